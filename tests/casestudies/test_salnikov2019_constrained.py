"""The Salnikov & Hamdouni 2019 Section 3 case study (discrete Dirac scheme): quick profile and controls."""

import os

import pytest
import sympy

import casestudies
import geomcheck as gc
from casestudies import salnikov2019_constrained as cs
from geomcheck.latex import compile_pdf, document


@pytest.fixture(scope="module")
def result(case_study_run):
    """The session's one quick run of the case study (shared with the doc pages)."""
    return case_study_run(cs.NAME)


def test_registered_and_parameters():
    assert cs.NAME in casestudies.names()
    quick, paper = cs.Parameters.quick(), cs.Parameters.paper()
    assert paper.pendulum_steps * paper.h_pendulum >= 400 > quick.pendulum_steps * quick.h_pendulum


def test_quick_profile_passes_every_check(result):
    failed = [(c.description, c.measured, c.expected) for c in result.checks if not c.passed]
    assert not failed
    assert all(c.holds is True for _, c in result.certificates)
    assert result.passed and result.profile == "quick"
    # a claim of the paper cites Section 3; our own expectations (energy, accuracy) say they are ours
    assert all(c.source.startswith(("Sec. 3", "ours")) for c in result.checks)
    for c in result.checks:
        if "energy" in c.description and not c.description.startswith("finding"):
            assert c.source.startswith("ours") and c.description.startswith("ours"), c.description


def test_claims_are_all_there(result):
    text = " ".join(c.description for c in result.checks)
    for system in ("pendulum", "knife"):
        for variant in ("printed", "bounded"):
            assert f"{system}, {variant} scheme: discrete constraints" in text
    assert "energy error bounded over long times" in text
    assert "mpmath 50 digits" in text
    # the paper's own statement at the end of Section 3, on all four maps that run
    linear = [c for c in result.checks if "linear in lambda and p_(k+1)" in c.description]
    assert len(linear) == 4 and all(c.source == "Sec. 3 (end)" and c.passed for c in linear)
    # the printed scheme's drift is reported as a finding, not as a passed claim of the paper
    findings = [c for c in result.checks if c.description.startswith("finding")]
    assert len(findings) == 3 and all("printed" in c.description for c in findings)


def test_figures_exist(result):
    assert len(result.figures) == 4
    for path in result.figures:
        assert os.path.getsize(path) > 1000
    assert {os.path.basename(p).split(".")[0] for p in result.figures} == {
        f"{cs.NAME}-energy-constraint", f"{cs.NAME}-knife-trajectory"}


def test_findings_are_the_module_findings(result):
    assert tuple(result.findings) == cs.FINDINGS
    assert [f.kind for f in cs.FINDINGS] == ["critique", "critique"]
    assert result.misprints == []                  # nothing in Section 3 is an error of the authors
    assert cs.EQUATIONS == {}                      # Section 3 numbers no display


def _roots_as_series(poly, zeta, h, start, order=5):
    """The root of poly(zeta; h) through zeta = start at h = 0, as a series in h (plain sympy)."""
    c = sympy.symbols(f"c1:{order + 1}")
    ansatz = start + sum(ci * h ** (i + 1) for i, ci in enumerate(c))
    e = sympy.expand(poly.subs(zeta, ansatz))
    sol = {}
    for k in range(1, 2 * order + 1):
        coeff = sympy.expand(e.coeff(h, k).subs(sol))
        free = [ci for ci in c if coeff.has(ci) and ci not in sol]
        if free:
            sol[free[0]] = sympy.solve(coeff, free[0])[-1]
    return [sympy.expand(ansatz.subs(sol))]


def test_centred_example_velocity_roots_plain_sympy():
    """Finding [critique] Sec. 3, re-derived from the printed lines with plain sympy (no geomcheck)."""
    h, zeta = sympy.symbols("h zeta", positive=True)
    qk, vk, pk, pk1 = sympy.symbols("q_k v_k p_k p_k1")
    Ld = h * (vk**2 / 2 - qk**2 / 2)                          # L_d = h L(q_k, v_k), L = v^2/2 - q^2/2
    line1 = pk1 - Ld.diff(vk) / h                             # p_{k+1} = (1/h) dL_d/dv_k
    line2 = pk - Ld.diff(vk) / h + Ld.diff(qk)                # no constraint
    # v_k = (q_{k+1} - q_{k-1})/(2h) and, by line 1 one step earlier, p_k = v_{k-1}; q_j = zeta^j
    v = lambda j: (zeta ** (j + 1) - zeta ** (j - 1)) / (2 * h)   # noqa: E731
    assert line1.subs({pk1: v(0), vk: v(0)}) == 0
    chi = sympy.expand(sympy.cancel(line2.subs({pk: v(-1), vk: v(0), qk: 1}) * (-2 * h * zeta**2)))
    assert sympy.expand(chi - (zeta**3 + (2 * h**2 - 1) * zeta**2 - zeta + 1)) == 0
    # q_{k+1} - q_k - q_{k-1} + q_{k-2} = -2 h^2 q_k: not self-reciprocal (not a symmetric scheme)
    assert sympy.expand(-zeta**3 * chi.subs(zeta, 1 / zeta) - chi) != 0
    (principal,) = _roots_as_series(chi, zeta, h, 1)
    (parasite,) = _roots_as_series(chi, zeta, h, -1)
    modulus2 = sympy.expand(principal * principal.subs(sympy.I, -sympy.I))
    modulus = sympy.series(sympy.sqrt(sum(modulus2.coeff(h, k) * h**k for k in range(5))), h, 0, 4).removeO()
    assert sympy.expand(modulus - (1 - h**2 / 4)) == 0           # |zeta| = 1 - h^2/4 + O(h^4)
    assert sympy.im(principal.coeff(h, 1)) != 0                 # a rotating (oscillating) pair
    truncated = sum(parasite.coeff(h, k) * h**k for k in range(4))
    assert sympy.expand(truncated - (-1 - h**2 / 2)) == 0         # -(1 + h^2/2) + O(h^4): outside
    # energy ~ |zeta|^(2k) = (1 - h^2/4)^(2t/h) -> exp(-h t/2)
    t = sympy.Symbol("t", positive=True)
    rate = sympy.limit(sympy.log((1 - h**2 / 4) ** (2 * t / h)) / (h * t), h, 0)
    assert rate == -sympy.Rational(1, 2)
    # numerically at h = 1/10: the exact roots agree with the series
    roots = sympy.Poly(chi.subs(h, sympy.Rational(1, 10)), zeta).nroots(n=30)
    moduli = sorted(abs(r) for r in roots)
    assert abs(moduli[0] - moduli[1]) < 1e-25 and abs(moduli[0] - (1 - 0.01 / 4)) < 0.1**4     # O(h^4)
    assert abs(moduli[2] - (1 + 0.01 / 2)) < 0.1**4


def test_linearity_is_decided_by_alpha_d_not_by_holonomy_plain_sympy():
    """Finding [critique] Sec. 3 (end): the printed lines written by hand, plain sympy (no geomcheck)."""
    h, lam = sympy.symbols("h lambda")

    def lines(L, q, v, alpha, qk, q1, p, pk1, velocity, at):
        """The three printed lines for one constraint, alpha_d at q_k or at the midpoint."""
        vk = [(a - b) / (2 * h if velocity == "centred" else h) for a, b in zip(q1, qk)]
        on = dict(zip(v, vk)) | dict(zip(q, qk))
        Ld = h * L.subs(on, simultaneous=True)
        point = qk if at == "current" else [(a + b) / 2 for a, b in zip(qk, q1)]
        ad = [a.subs(dict(zip(q, point)), simultaneous=True) for a in alpha]
        dLv = [h * L.diff(vi).subs(on, simultaneous=True) for vi in v]
        dLq = [h * L.diff(qi).subs(on, simultaneous=True) for qi in q]
        first = [P1 - dv / h for P1, dv in zip(pk1, dLv)]
        second = [P - dv / h + dq - lam * a for P, dv, dq, a in zip(p, dLv, dLq, ad)]
        third = [sum(a * w for a, w in zip(ad, vk))]
        return first + second + third

    def nonlinear(eqs, unknowns):
        return any(sympy.simplify(e.diff(a).diff(b)) != 0 for e in eqs for a in unknowns for b in unknowns)

    def curl_dot(alpha, q):
        """alpha ^ d alpha = (a . curl a) dx ^ dy ^ dz in three dimensions (zero: integrable)."""
        a = [sympy.sympify(c) for c in alpha] + [sympy.S.Zero] * (3 - len(alpha))
        x = list(q) + [sympy.Symbol("z_pad")] * (3 - len(q))
        curl = [a[2].diff(x[1]) - a[1].diff(x[2]), a[0].diff(x[2]) - a[2].diff(x[0]),
                a[1].diff(x[0]) - a[0].diff(x[1])]
        return sympy.simplify(sum(ai * ci for ai, ci in zip(a, curl)))

    # the knife edge: nonholonomic
    x, y, th = q = sympy.symbols("x y theta")
    v = sympy.symbols("v_x v_y v_theta")
    knife = (sum(c**2 for c in v) / 2, q, v, [sympy.sin(th), -sympy.cos(th), sympy.S.Zero])
    assert curl_dot(knife[3], q) == -1                          # alpha ^ d alpha = -dx ^ dy ^ dtheta != 0
    qk, q1 = sympy.symbols("x_k y_k theta_k"), sympy.symbols("x_k1 y_k1 theta_k1")
    p, pk1 = sympy.symbols("p_x p_y p_theta"), sympy.symbols("P_x P_y P_theta")
    unknowns = list(q1) + list(pk1) + [lam]
    for velocity in ("centred", "forward"):
        assert not nonlinear(lines(*knife, qk, q1, p, pk1, velocity, "current"), unknowns)
    assert nonlinear(lines(*knife, qk, q1, p, pk1, "forward", "midpoint"), unknowns)

    # the pendulum: holonomic (x dx + y dy = d(r^2/2))
    X, Y = qp = sympy.symbols("x y")
    vp = sympy.symbols("v_x v_y")
    pend = ((vp[0]**2 + vp[1]**2) / 2 - Y, qp, vp, [X, Y])
    assert curl_dot(pend[3], qp) == 0
    qk, q1 = sympy.symbols("x_k y_k"), sympy.symbols("x_k1 y_k1")
    p, pk1 = sympy.symbols("p_x p_y"), sympy.symbols("P_x P_y")
    unknowns = list(q1) + list(pk1) + [lam]
    assert not nonlinear(lines(*pend, qk, q1, p, pk1, "centred", "current"), unknowns)
    assert nonlinear(lines(*pend, qk, q1, p, pk1, "forward", "midpoint"), unknowns)   # holonomic, nonlinear
    # and L decides too: dL/dv not linear in v makes even alpha_d(q_k) nonlinear
    quartic = ((vp[0]**2 + vp[1]**2) ** 2 / 4 - Y, qp, vp, [X, Y])
    assert nonlinear(lines(*quartic, qk, q1, p, pk1, "forward", "current"), unknowns)


def test_negative_control_printed_scheme_fails_the_bounded_energy_claim():
    """The claim 'energy error of size h' that the bounded scheme passes, the printed scheme fails."""
    p = cs.Parameters.quick()
    errors = {}
    for variant, sch in cs.schemes(cs.pendulum()).items():
        r = cs.simulate(sch, cs._pendulum_start(sch, p.h_pendulum, p.angles), p.h_pendulum, 600, 20)
        assert r["constraint"].max() < 1e-12            # both hold their constraints
        errors[variant] = r["energy_error"].max()
    assert errors["bounded"] < p.h_pendulum < errors["printed"]


def test_negative_control_energy_off_the_discrete_constraint_manifold():
    """Energy conservation of the knife edge needs the manifold: on all of T*Q it is refuted."""
    sch = cs.schemes(cs.knife_edge())["bounded"]
    assert cs.knife_energy_on_constraint_manifold(sch).holds is True
    assert gc.certify_conserves(sch.map, sch.energy_on_state()).holds is False
    with pytest.raises(gc.errors.InvalidArgumentError):
        cs.knife_energy_on_constraint_manifold(cs.schemes(cs.knife_edge())["printed"])


def test_high_precision_run_of_the_printed_scheme_does_not_keep_the_radius():
    """The 1e-45 level of x^2 + y^2 is the bounded scheme's property, not an artefact of mpmath."""
    p = cs.Parameters.quick()
    sch = cs.schemes(cs.pendulum())["printed"]
    hp = cs.high_precision(sch, cs._pendulum_start(sch, p.h_pendulum, p.angles), p.h_pendulum, 3, 30)
    assert hp["discrete constraint"] < 1e-25                  # its constraint line holds
    assert hp["x^2 + y^2"] > 1e-8                              # but only to O(h^2) for the radius


@pytest.mark.needs_pdflatex
def test_derivations_compile(result, tmp_path):
    cert = dict(result.certificates)["knife edge, bounded scheme: energy conserved on the discrete constraint manifold"]
    body = "\n".join([cert.derivation.latex(), result.derivations[-2].latex()])
    compile_pdf(document(body), str(tmp_path / "constrained.pdf"))
    assert (tmp_path / "constrained.pdf").stat().st_size > 1000
