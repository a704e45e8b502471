"""The damped-oscillator case study: checks, the documented non-reproduction, controls, figures."""

import os

import mpmath
import pytest
import sympy as sp

import casestudies
import geomcheck
from geomcheck.latex import compile_pdf, document, pdflatex_available
import integrators as ig
from casestudies import vermeeren2019_damped_oscillator as m
from geomcheck.certify.compositions import yoshida_composition
from geomcheck.zero import decide_all_zero

# "contact beats a symplectic integrator applied to the damped equation for larger damping" against
# forced Stormer-Verlet (primary reading, thresholds fixed before the run: ratio <= 10^-0.1) holds
# for orders 4 and 6 at h = 0.1 except E_env at alpha = 2, order 4; it fails for order 2 and for
# the slides' alpha = 0.1 (ratios 1.0000 +- 2e-4: the two methods nearly coincide for small
# alpha h).  These checks fail, and the test says exactly which.
NOT_REPRODUCED = {f"alpha = {a}, order 2: {measure} contact / forced Verlet" for a in (1, 2) for measure in m.MEASURES}
NOT_REPRODUCED.add("alpha = 2, order 4: E_env contact / forced Verlet")
NOT_REPRODUCED |= {f"slides, alpha = 0.1, order {k}: {measure} contact / forced Verlet"
                   for k in (2, 4, 6) for measure in m.MEASURES}
# the authors' own pairing (their code's "Contact (2nd)" / "Leapfrog"): better only at alpha = 1 in E_max
PAIRING = "Herglotz-2 / forced Verlet (the authors' pairing: Contact (2nd) / Leapfrog)"
NOT_REPRODUCED |= {"alpha = 1: E_env " + PAIRING, "alpha = 2: E_max " + PAIRING, "alpha = 2: E_env " + PAIRING,
                   "slides, alpha = 0.1: E_max " + PAIRING, "slides, alpha = 0.1: E_env " + PAIRING}


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return casestudies.run(m.NAME, "quick", out=str(tmp_path_factory.mktemp("figs")))


def test_quick_profile_checks(result):
    failing = {c.description for c in result.checks if not c.passed}
    assert failing == NOT_REPRODUCED
    assert len(result.checks) == 57
    assert all(c.holds is True for _, c in result.certificates), [l for l, c in result.certificates if c.holds is not True]


def test_the_authors_pairing_is_reproduced_where_it_holds(result):
    """Herglotz-2 beats Leapfrog (forced Verlet) at alpha = 1 in E_max; comparable at alpha = 0.01."""
    by = {c.description: c for c in result.checks}
    assert by["alpha = 1: E_max " + PAIRING].passed and by["alpha = 1: E_max " + PAIRING].measured < 0.5
    assert by["alpha = 2: E_max " + PAIRING].measured > 1.1          # Leapfrog is better there
    assert abs(by["slides, alpha = 0.1: E_max " + PAIRING].measured - 1) < 0.01
    assert by["log10 of alpha = 0.01: E_max " + PAIRING].passed


def test_orders_are_checked_for_every_method(result):
    orders = [c for c in result.checks if "observed order" in c.description]
    assert len(orders) == 16 and all(c.passed for c in orders)
    assert {round(c.measured) for c in orders} == {1, 2, 4, 6}


def test_figures_exist(result):
    assert len(result.figures) == 8
    for path in result.figures:
        assert os.path.getsize(path) > 1000 and os.path.basename(path).startswith(m.NAME)


def test_misprints_point_at_existing_tests(result):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for _, where in result.misprints:
        path, name = where.split("::")
        assert f"def {name}(" in open(os.path.join(root, path)).read()


def test_contact_defect_control_rk4_is_not_contact():
    """Negative control of the high-precision check: RK4's step has an O(h^5) contact defect."""
    osc = m.contact_oscillator()
    rk4 = ig.scheme("rk4").step_map(osc)
    base = ig.scheme("contact-splitting-2").step_map(osc)
    args = (yoshida_composition(2), sp.Rational(1, 10), ["-0.25", "0.75", "0.5"], "0.1", 50, 2)
    assert m._contact_defect(base, osc, *args) < mpmath.mpf(10) ** -45
    assert m._contact_defect(rk4, osc, *args) > mpmath.mpf(10) ** -9


def test_exact_solution_control():
    sol = m.exact_solution()
    wrong = sol.x.subs(m.alpha, -m.alpha)                 # the anti-damped solution
    residual = sp.diff(wrong, m.t, 2) + m.alpha * sp.diff(wrong, m.t) + wrong
    assert decide_all_zero([residual]).is_zero is False


def test_symplectic_comparison_is_symplectic_and_not_contact_preserving_energy():
    ck = m.caldirola_kanai()
    phi = m.caldirola_kanai_step(ck)
    broken = geomcheck.Map(ck.chart, ck.chart, [phi.exprs[0], phi.exprs[1], phi.exprs[2] * (1 + m.h**3), phi.exprs[3]],
                           parameters=[m.h, m.alpha])
    assert geomcheck.certify_symplectic(broken, ck.omega).holds is False


@pytest.mark.skipif(not pdflatex_available(), reason="pdflatex not installed")
def test_derivations_and_certificates_compile(result, tmp_path):
    parts = [d.latex() for d in result.derivations] + [c.latex() for _, c in result.certificates[:4]]
    pdf = compile_pdf(document("\n".join(parts)), str(tmp_path / "osc.pdf"))
    assert open(pdf, "rb").read(4) == b"%PDF"


def test_claim_thresholds_are_the_stated_ones(result):
    """The thresholds were fixed before the run (module docstring); the checks use exactly them."""
    better = [c for c in result.checks if ("contact / forced Verlet" in c.description or PAIRING in c.description)
              and "log10" not in c.description]
    comparable = [c for c in result.checks if c.description.startswith("log10 of")]
    assert len(better) == 18 + 6 and len(comparable) == 12 + 4
    assert all(c.passed == (c.measured <= 10 ** -0.1) for c in better)
    assert all(c.passed == (abs(c.measured) <= 1.0) for c in comparable)
    assert not any("Caldirola-Kanai" in c.description for c in result.checks)     # secondary reading: notes only
    assert sum("SECONDARY reading" in n for n in result.notes) == 4


def test_secondary_reading_caldirola_kanai_figure(result):
    assert any(p.endswith(f"{m.NAME}-caldirola-kanai.pdf") for p in result.figures)


def test_forced_verlet_is_the_lagrange_dalembert_recurrence():
    """The lowered forced Verlet step's positions satisfy the two-step recurrence numerically."""
    import numpy as np
    a, dt, n = 0.7, 0.1, 50
    xs = m._forced_verlet_run(2, a, (-0.25, 0.75), dt, n, m.forced_verlet_step())[:, 0]
    lhs = xs[2:] - 2 * xs[1:-1] + xs[:-2]
    rhs = -dt**2 * xs[1:-1] - a * dt * (xs[2:] - xs[:-2]) / 2
    assert np.max(np.abs(lhs - rhs)) < 1e-15
    # control: the same positions do not satisfy the one-sided (backward-difference) damping recurrence
    assert np.max(np.abs(lhs + dt**2 * xs[1:-1] + a * dt * (xs[2:] - xs[1:-1]))) > 1e-4


def test_forced_verlet_certificates_and_controls():
    """Symmetric (so Yoshida applies), order exactly 2, conformally symplectic; a one-sided damping is not symmetric."""
    phi = m.forced_verlet_step()
    M = phi.source
    assert geomcheck.certify_symmetric(phi, m.h).holds is True
    X = m.damped_vector_field()
    assert geomcheck.certify_order(phi, X, m.h, 2).holds is True
    assert geomcheck.certify_order(phi, X, m.h, 3).holds is False
    c = geomcheck.certify_conformal_symplectic(phi, M.d(m.x) ^ M.d(m.p))
    assert c.holds is True
    assert geomcheck.zero.decide_zero(c.factor - (1 - m.alpha * m.h / 2) / (1 + m.alpha * m.h / 2)).is_zero is True
    assert geomcheck.certify_symplectic(phi, M.d(m.x) ^ M.d(m.p)).holds is False       # damped: not symplectic
    x, p, h, a = m.x, m.p, m.h, m.alpha
    half = p - h / 2 * x - h / 2 * a * p                 # explicit damping on both half kicks: not symmetric
    X1 = x + h * half
    one_sided = geomcheck.Map(M, M, [X1, half - h / 2 * X1 - h / 2 * a * half], parameters=[h, a])
    assert geomcheck.certify_symmetric(one_sided, h).holds is False


def test_forced_del_certificate_control():
    """The DEL certificate fails for the wrong sign of the damping term."""
    cert = m.forced_del_certificate()
    assert cert.holds is True
    assert m.forced_del_certificate(sp.Function("V")(m.x)).holds is True
    X = m.forced_verlet_step().exprs[0]
    back = geomcheck.substitute(X, {m.h: -m.h})
    wrong = X - 2 * m.x + back + m.h**2 * m.x - m.alpha * m.h * (X - back) / 2
    assert decide_all_zero([wrong]).is_zero is False
