"""find_port_hamiltonian / find_dirac_structure: searches with the truth established by hand."""

import itertools

import pytest
import sympy

from geomcheck.errors import InvalidArgumentError
from geomcheck.structures.polynomial_feasibility import (
    groebner_infeasibility,
    nullstellensatz_cofactors,
    sign_infeasibility,
)
from geomcheck.structures.port_hamiltonian_search import (
    certify_psd_with_region,
    find_dirac_structure,
    find_port_hamiltonian,
)

# ---------------------------------------------------------------- the paper's example (Salnikov-Hamdouni 2019, Sec. 4)
x1, x2, q1, q2 = sympy.symbols("x1 x2 q1 q2")
m, Om, A, eps, Omt = sympy.symbols("m Omega A epsilon Omega_t")
PAPER_F = [x2, m * Om**2 * q1 - x1, q2, -A * x1 - Omt**2 * q1 + eps * (1 - q1**2) * q2]
PAPER_H = (x1**2 + x2**2) / 2 + (Omt**2 * q1**2 + q2**2) / 2
PAPER_X = [x1, x2, q1, q2]


@pytest.fixture(scope="module")
def paper():
    return find_port_hamiltonian(PAPER_F, PAPER_X, PAPER_H, port="e_i", nonzero=[eps])


def test_paper_family_has_six_parameters_and_only_J_zero_is_integrable(paper):
    assert len(paper.parameters) == 6 and paper.holds is True
    best = paper.best
    assert best.J == sympy.zeros(4, 4) and best.R == sympy.zeros(4, 4)
    # J = 0: the port column is all of F, D = g ^ d/de, and [g ^ d_e, g ^ d_e] = 0 since g does not depend on e
    assert [sympy.expand(v) for v in best.system.g[:, 0]] == [sympy.expand(f) for f in PAPER_F]
    assert best.reproduces.holds and best.psd.holds and best.integrable.holds
    assert best.dirac.certify_integrable().holds is True


def test_paper_canonical_J_is_not_integrable_and_no_member_with_J12_nonzero_is(paper):
    canonical = paper.member({"J12": 1, "J34": 1})
    assert canonical.reproduces.holds is True and canonical.integrable.holds is False
    # by hand: the (q1, q2, e) component of [D, D] for the canonical J is 2 eps (1 - q1^2) (the case study's
    # finding); independent of the search, the case's equations with A, eps, J12 nonzero have basis {1}
    (_support, eqs, cert, _sols) = paper.integrability[0]
    J = {str(p): p for p in paper.parameters}
    proof = groebner_infeasibility(eqs, paper.parameters, nonzero=[eps, A, J["J12"]])
    assert proof.holds is True
    # by hand: eps*J13, eps*J14, eps*J23, eps*J24, eps*J34 are among the conditions (eps != 0 kills them), and then
    # the (x2, q2, e) condition reads 2 A J12 = 0
    for name in ("J13", "J14", "J23", "J24", "J34"):
        assert any(sympy.expand(e / (eps * J[name])).is_Number for e in eqs)
    rest = [sympy.expand(e.xreplace({J[k]: 0 for k in ("J13", "J14", "J23", "J24", "J34")})) for e in eqs]
    assert {e for e in rest if e != 0} == {2 * A * J["J12"]}
    # the search's basis over Q (constants as variables) keeps A*J12: with A = 0, J12 is free
    assert A * J["J12"] in cert.basis


def test_paper_no_integrable_member_keeps_J12_is_proved():
    s = find_port_hamiltonian(PAPER_F, PAPER_X, PAPER_H, port="e_i", nonzero=[eps, A, sympy.Symbol("J12")])
    assert s.holds is False and s.members == ()
    cert = s.infeasibility[0]
    assert len(s.infeasibility) == 1 and cert.kind == "groebner" and cert.basis == (1,)
    # the combination sum c_i f_i = 1, expanded here (independent of the Groebner solver)
    assert cert.cofactors is not None
    assert sympy.expand(sum(c * f for c, f in zip(cert.cofactors, cert.equations))) == 1
    assert cert.equations[-3:] == (1 - sympy.Symbol("t_1") * eps, 1 - sympy.Symbol("t_2") * A,
                                   1 - sympy.Symbol("t_3") * sympy.Symbol("J12"))


def test_paper_search_is_fast(paper):
    assert paper.seconds < 10.0


def test_paper_derivation_is_latex(paper):
    tex = paper.latex()
    assert tex.count(r"\begin{align*}") == tex.count(r"\end{align*}") and "Groebner" in tex


# ---------------------------------------------------------------- damped pendulum chain
def pendulum_chain(N, c, k):
    q = sympy.symbols(f"q1:{N + 1}", real=True)
    p = sympy.symbols(f"p1:{N + 1}", real=True)
    H = sum(pi**2 / 2 for pi in p) + sum(1 - sympy.cos(qi) for qi in q) \
        + sum(k * (q[i] - q[i + 1])**2 / 2 for i in range(N - 1))
    F = list(p) + [-sympy.diff(H, q[i]) - c * p[i] for i in range(N)]
    return F, list(q) + list(p), H


def test_pendulum_chain_finds_the_canonical_form():
    c, k = sympy.symbols("c k", positive=True)
    F, x, H = pendulum_chain(2, c, k)
    s = find_port_hamiltonian(F, x, H)
    # by hand: J = [[0, I], [-I, 0]], R = diag(0, 0, c, c)
    J = sympy.Matrix([[0, 0, 1, 0], [0, 0, 0, 1], [-1, 0, 0, 0], [0, -1, 0, 0]])
    assert s.holds is True and s.best.J == J and s.best.R == sympy.diag(0, 0, c, c)
    assert s.best.psd.holds is True and s.best.integrable.holds is True


def test_pendulum_chain_with_negative_damping_is_proved_infeasible():
    F, x, H = pendulum_chain(2, -sympy.Rational(1, 10), sympy.Integer(1))
    s = find_port_hamiltonian(F, x, H)
    assert s.holds is False
    cert = s.infeasibility[-1]
    # by hand: the family has no parameter, R33 = -1/10 everywhere
    assert cert.kind == "sign" and cert.entry == (2, -sympy.Rational(1, 10))


# ---------------------------------------------------------------- RLC circuit with a cubic resistor i = g(v)
Qc, phi = sympy.symbols("Q phi", real=True)
C, L = sympy.symbols("C L", positive=True)
RLC_H = Qc**2 / (2 * C) + phi**2 / (2 * L)


def rlc(a, b):
    v = Qc / C
    return [-phi / L - (a * v + b * v**3), Qc / C]


def test_rlc_monotone_resistor_has_a_dissipative_form():
    s = find_port_hamiltonian(rlc(1, 1), [Qc, phi], RLC_H, degree=2)
    assert s.holds is True and len(s.parameters) == 6
    # by hand: R11 v = g(v) = v + v^3 gives R11 = 1 + Q^2 / C^2, J12 = -1
    assert s.best.R == sympy.Matrix([[1 + Qc**2 / C**2, 0], [0, 0]])
    assert s.best.J == sympy.Matrix([[0, -1], [1, 0]])
    assert s.best.score == (0, 1, 2, 2)


def test_rlc_tunnel_diode_is_passive_only_outside_a_strip():
    s = find_port_hamiltonian(rlc(-1, 1), [Qc, phi], RLC_H, degree=2)
    assert s.holds is False and s.members == ()
    cert = s.infeasibility[0]
    # by hand: at Q = phi = 0 every parameter term of R11 vanishes and R11 = g'(0) = -1
    assert cert.kind == "sign" and cert.point == {Qc: 0, phi: 0} and cert.entry == (0, -1)
    simplest = next(r for r in s.rejected if all(v == 0 for v in r.values.values()))
    assert simplest.psd.holds is False
    assert simplest.region == (sympy.GreaterThan(Qc**2 / C**2 - 1, 0, evaluate=False),)


# ---------------------------------------------------------------- coupled beam (Terakawa-Yaguchi) with Rayleigh damping
def beam(N, alpha, beta):
    u = sympy.symbols(f"u1:{N + 1}", real=True)
    v = sympy.symbols(f"v1:{N + 1}", real=True)
    q, p = sympy.symbols("q p", real=True)
    kappa = sympy.Symbol("kappa", positive=True)
    D2 = sympy.zeros(N, N)
    for i in range(N):
        D2[i, i] = -2
        if i + 1 < N:
            D2[i, i + 1] = D2[i + 1, i] = 1
    K = D2 * D2
    U, V = sympy.Matrix(u), sympy.Matrix(v)
    H = (V.T * V)[0] / 2 + (U.T * K * U)[0] / 2 + kappa * (u[1] - q)**2 / 2 + p**2 / 2
    damping = alpha * sympy.eye(N) + beta * K
    F = list(v) + [p] + list(-(sympy.Matrix([sympy.diff(H, w) for w in u]) + damping * V)) + [-sympy.diff(H, q)]
    return F, list(u) + [q] + list(v) + [p], H, damping


def test_beam_with_rayleigh_damping_finds_R_equal_to_the_damping_matrix():
    a, b = sympy.symbols("alpha beta", positive=True)
    F, x, H, damping = beam(3, a, b)
    s = find_port_hamiltonian(F, x, H)
    R = sympy.zeros(8, 8)
    R[4:7, 4:7] = damping
    assert s.holds is True and s.best.R == R and s.best.psd.holds is True


def test_beam_with_negative_mass_damping_is_infeasible():
    F, x, H, _ = beam(3, -1, 0)
    s = find_port_hamiltonian(F, x, H)
    assert s.holds is False and s.infeasibility[-1].entry == (4, -1)


# ---------------------------------------------------------------- adversarial
def test_psd_only_on_a_measure_zero_parameter_set():
    # H = q, F = 0: grad H = (1, 0), so (J - R) grad H = 0 gives R11 = 0, J12 = -R12, R22 free.  By hand
    # R = [[0, R12], [R12, R22]] >= 0 iff R12 = 0 and R22 >= 0: a set of measure zero in the (R12, R22) plane.
    q, p = sympy.symbols("q p", real=True)
    res = find_port_hamiltonian([0, 0], [q, p], q, require=("psd",))
    R12, R22 = sympy.symbols("R12 R22")
    assert res.parameters == (R12, R22)
    assert res.family.R == sympy.Matrix([[0, R12], [R12, R22]])
    assert all(mem.values[R12] == 0 and mem.values[R22] >= 0 for mem in res.members)
    assert res.best.values == {R12: 0, R22: 0}
    assert {R22: 1, R12: 0} in [mem.values for mem in res.members]
    refuted = [mem for mem in res.rejected if mem.values[R12] != 0 or mem.values[R22] < 0]
    assert refuted and all(mem.psd.holds is False for mem in refuted)
    assert certify_psd_with_region(sympy.Matrix([[0, 1], [1, 1]])).holds is False


def test_region_dependent_psd_is_never_a_global_true():
    v = sympy.Symbol("v", real=True)
    cert = certify_psd_with_region(sympy.Matrix([[1 - v**2]]), [v])
    assert cert.holds is False and cert.residual == (sympy.GreaterThan(1 - v**2, 0, evaluate=False),)
    # the minor 10^6 - v^2 is nonnegative at every sampled point (|v| <= 40) but not everywhere: None, with the
    # region, never True
    c2 = certify_psd_with_region(sympy.Matrix([[10**6 - v**2]]), [v])
    assert c2.holds is None and c2.residual == (sympy.GreaterThan(10**6 - v**2, 0, evaluate=False),)
    # a square times a positive symbol is proved by the factorization
    k = sympy.Symbol("k", positive=True)
    assert certify_psd_with_region(sympy.Matrix([[k * (v - 1)**2, 0], [0, k]]), [v]).holds is True


def jacobiator(J, xs):
    """The Jacobi sums of {x_i, x_j} = J_ij, computed directly (independent of geomcheck)."""
    return [sympy.expand(sum(J[l, i] * sympy.diff(J[j, k], xs[l]) + J[l, j] * sympy.diff(J[k, i], xs[l])
                             + J[l, k] * sympy.diff(J[i, j], xs[l]) for l in range(len(xs))))
            for i, j, k in itertools.combinations(range(len(xs)), 3)]


def test_J_state_dependent_unless_a_groebner_condition_holds():
    # H = 0, F = 0 on R^3 and J affine in z: J12 = a3 + b3 z, J13 = -(a2 + b2 z), J23 = a1 + b1 z.  By hand, the
    # bivector is Poisson iff v . curl v = 0 for v = (J23, -J13, J12); curl v = (-b2, b1, 0) here, so the
    # condition is a2 b1 - a1 b2 = 0, i.e. J13_0 J23_1 - J13_1 J23_0 = 0: a J depending on z is integrable only
    # on that quadric.
    x, y, z = sympy.symbols("x y z", real=True)
    s = find_dirac_structure([0, 0, 0], [x, y, z], 0, degree=1, depends_on=[z], dissipation=False)
    _J12_0, _J12_1, J13_0, J13_1, J23_0, J23_1 = s.parameters
    cert = s.integrability[0][2]
    assert cert.holds is False and len(cert.basis) == 1
    assert sympy.expand(cert.basis[0] + J13_0 * J23_1 - J13_1 * J23_0) == 0 or \
        sympy.expand(cert.basis[0] - J13_0 * J23_1 + J13_1 * J23_0) == 0
    assert s.holds is True and s.best.J == sympy.zeros(3, 3)   # the objective prefers the constant (zero) J
    for mem in s.members:
        assert all(e == 0 for e in jacobiator(mem.J, [x, y, z]))
    bad = s.member({"J13_0": 1, "J23_1": 1})
    assert bad.integrable.holds is False and any(e != 0 for e in jacobiator(bad.J, [x, y, z]))
    good = s.member({"J13_0": 1, "J23_0": 1, "J13_1": 1, "J23_1": 1})
    assert good.integrable.holds is True and all(e == 0 for e in jacobiator(good.J, [x, y, z]))
    ranked = [mem.score for mem in s.members]
    assert ranked == sorted(ranked)


def test_a_user_objective_reranks():
    x, y, z = sympy.symbols("x y z", real=True)

    def prefer_nonzero(S):
        return (S.J == sympy.zeros(3, 3),)
    s = find_dirac_structure([0, 0, 0], [x, y, z], z, degree=1, dissipation=False, objective=prefer_nonzero)
    assert s.best.J != sympy.zeros(3, 3) and s.objective == "prefer_nonzero"


def test_no_form_of_the_ansatz_degree_gives_a_linear_infeasibility_certificate():
    # by hand: (J - R) grad H is linear in (q, p) for constant J, R; F1 = q^2 has the coefficient equation 1 = 0
    q, p = sympy.symbols("q p")
    s = find_port_hamiltonian([q**2, 0], [q, p], (q**2 + p**2) / 2)
    assert s.holds is False and s.infeasibility[0].kind == "groebner"
    cert = s.infeasibility[0]
    assert sympy.expand(sum(c * e for c, e in zip(cert.cofactors, cert.equations))) == 1


def test_groebner_infeasibility_and_cofactors_by_hand():
    a, b, t = sympy.symbols("a b t")
    assert nullstellensatz_cofactors([a, 1 - t * a], [a, t]) == (t, 1)
    c = groebner_infeasibility([a * b - 1, a], [a, b])
    assert c.holds is True                       # a = 0 makes a b = 0 != 1
    assert sympy.expand(sum(f * e for f, e in zip(c.cofactors, c.equations))) == 1
    assert groebner_infeasibility([a * b - 1], [a, b]).holds is False
    with pytest.raises(InvalidArgumentError):
        groebner_infeasibility([sympy.sqrt(2) * a - 1], [a])


def test_sign_infeasibility_needs_a_parameter_free_negative_value():
    v, r = sympy.symbols("v r")
    assert sign_infeasibility(sympy.Matrix([[r - 1]]), [v], [r]).holds is None   # r = 2 works
    assert sign_infeasibility(sympy.Matrix([[v * r - 1]]), [v], [r]).holds is True


def test_bad_arguments():
    q, p = sympy.symbols("q p")
    with pytest.raises(InvalidArgumentError):
        find_port_hamiltonian([p, -q], [q, p], (q**2 + p**2) / 2, require=("symplectic",))
    with pytest.raises(InvalidArgumentError):
        find_port_hamiltonian([p, -q], [q, p], (q**2 + p**2) / 2, objective="fast")
    with pytest.raises(InvalidArgumentError):
        find_dirac_structure([p, -q], [q, p], (q**2 + p**2) / 2, require=("psd",))


def test_adversarial_psd_and_sign_respect_assumptions():
    w = sympy.Symbol("w")                        # complex: w^2 is not >= 0 (w = i gives -1)
    assert certify_psd_with_region(sympy.Matrix([[w**2]])).holds is not True
    wr = sympy.Symbol("w", real=True)
    assert certify_psd_with_region(sympy.Matrix([[wr**2]])).holds is True
    # R11 = x - 1 with x > 0: at the allowed point x = 1/2 it is -1/2 < 0; x = 0 or x = -1 are never used
    xp, r = sympy.symbols("x", positive=True), sympy.Symbol("r")
    cert = sign_infeasibility(sympy.Matrix([[xp - 1 + 0 * r]]), [xp], [r])
    assert cert.holds is True and cert.point[xp] > 0
    # R11 = x with x > 0 is positive everywhere: no obstruction may be claimed (x = 0, -1 are outside)
    assert sign_infeasibility(sympy.Matrix([[xp]]), [xp], [r]).holds is None
