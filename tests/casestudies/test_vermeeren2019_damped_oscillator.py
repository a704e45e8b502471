"""The damped-oscillator case study: the figures' claims, the documented disagreements, controls, figures."""

import os

import mpmath
import numpy as np
import pytest
import sympy as sp

import casestudies
import geomcheck
from geomcheck.latex import compile_pdf, document, pdflatex_available
import integrators as ig
from casestudies import vermeeren2019_damped_oscillator as m
from geomcheck.certify.compositions import yoshida_composition
from casestudies._kick_drift import SYMPLECTIC_EULER, kick_drift_step
from geomcheck.zero import decide_all_zero

TEST = "tests/casestudies/test_vermeeren2019_damped_oscillator.py::"


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return casestudies.run(m.NAME, "quick", out=str(tmp_path_factory.mktemp("figs")))


def test_quick_profile_checks(result):
    assert [c.description for c in result.checks if not c.passed] == []
    assert len(result.checks) == 35
    assert all(c.holds is True for _, c in result.certificates), [l for l, c in result.certificates if c.holds is not True]


def test_claim_checks_are_the_figures_comparison_with_the_stated_thresholds(result):
    """'better' against the damped-kick symplectic methods at alpha = 1, 2 (slides 0.1); 'comparable' at 0.01."""
    better = [c for c in result.checks if "max figure error" in c.description and not c.description.startswith("log10")]
    comparable = [c for c in result.checks if c.description.startswith("log10 of")]
    assert len(better) == 3 * len(m.BEATS) and len(comparable) == 2 * len(m.COMPARABLE_WITH)
    assert {c.description.split(": ")[1].split(" / ")[1].split(",")[0] for c in better} == {"Ruth3", "Verlet"}
    assert all(c.passed == (c.measured <= 10 ** -0.1) for c in better)
    assert all(c.passed == (abs(c.measured) <= 1.0) for c in comparable)
    assert max(c.measured for c in better) < 0.7                    # not a near miss
    assert not any("Caldirola-Kanai" in c.description or "E_max" in c.description for c in result.checks)


def _figure_ratio(a, dt, y0, t_end, other):
    steps = int(round(t_end / dt))
    times = np.arange(steps + 1) * dt
    sols = {False: m.exact_solution(False), True: m.exact_solution(True)}
    xe, _ = m._exact_for(a, y0, sols)(times)
    contact = m._herglotz_run(2, m.contact_oscillator(), a, y0, dt, steps)[:, 0]
    if other == "Leapfrog":
        q = m._forced_verlet_run(2, a, y0, dt, steps, m.forced_verlet_step())[:, 0]
    else:
        q = m._run_composition(kick_drift_step(m.KICK_DRIFT[other]), (1,), a, list(y0), dt, steps)[:, 0]
    return m.figure_error(contact, xe).max() / m.figure_error(q, xe).max()


def test_contact_does_not_beat_the_implicit_leapfrog_at_alpha_2(result):
    """The documented disagreement: the figures' Leapfrog (implicit in the damping) is better at alpha = 2."""
    y0 = (-0.25, 0.75)
    assert _figure_ratio(2.0, 0.1, y0, 15.0, "Leapfrog") > 2.0
    assert _figure_ratio(1.0, 0.1, y0, 15.0, "Leapfrog") < 10 ** -0.1           # where it does hold
    assert abs(_figure_ratio(0.1, 0.25, (0.5, 0.5), 50.0, "Leapfrog") - 1) < 0.03
    # control: the same computation against Ruth3 with damped kicks gives the paper's claim
    assert _figure_ratio(2.0, 0.1, y0, 15.0, "Ruth3") < 0.2
    texts = [d for d, t in result.disagreements if t.endswith("test_contact_does_not_beat_the_implicit_leapfrog_at_alpha_2")]
    assert len(texts) == 1 and "2.46" in texts[0]


def test_contact_first_order_is_symplectic_euler(result):
    """Herglotz-1 on (x, p) is symplectic Euler with the damped kick: certified, and equal along a run."""
    assert m.contact_first_order_is_symplectic_euler().holds is True
    assert m.contact_first_order_is_symplectic_euler(sp.Function("V")(m.x)).holds is True
    y0, a = (-0.25, 0.75), 1.3
    hg1 = m._herglotz_run(1, m.contact_oscillator(), a, y0, 0.1, 300)
    eu = m._run_composition(kick_drift_step(SYMPLECTIC_EULER), (1,), a, list(y0), 0.1, 300)
    assert np.abs(hg1 - eu).max() < 1e-14
    # control: the second-order Herglotz step is not symplectic Euler
    hg2 = m._herglotz_run(2, m.contact_oscillator(), a, y0, 0.1, 300)
    assert np.abs(hg2 - eu).max() > 1e-3
    assert any(t == TEST + "test_contact_first_order_is_symplectic_euler" for _, t in result.disagreements)


def test_second_order_herglotz_is_the_authors_contact_2nd():
    """Our Herglotz-2 on the oscillator is the authors' closed form of "Contact (2nd)"."""
    h, a = 0.1, 1.7
    x, p = -0.25, 0.75
    ours = m._herglotz_run(2, m.contact_oscillator(), a, (x, p), h, 20)
    for n in range(1, 21):
        x_new = (h - h * h * a / 2) * p + (1 - h * h / 2) * x
        p = ((1 - h * a / 2) * p - h / 2 * (x + x_new)) / (1 + h * a / 2)
        x = x_new
        assert abs(ours[n, 0] - x) < 1e-14 and abs(ours[n, 1] - p) < 1e-14


def test_figure_error_is_the_shifted_relative_error():
    assert float(m.figure_error(0.1, 0.0)) == pytest.approx(0.01)
    assert float(m.figure_error(-0.2, 0.3, shift=1.0)) == pytest.approx(0.5 / 1.3)


def test_our_extension_is_reported_not_checked(result):
    """Orders 2, 4, 6 against forced Verlet compositions: equal at order 2, contact better at 4 and 6 (alpha = 1)."""
    row = next(n for n in result.notes if n.startswith("OUR EXTENSION (h = 0.1, E_max)"))
    at1 = [float(v) for v in row.split("alpha = 1: ")[1].split(";")[0].split(", ")]
    assert 0.9 < at1[0] < 1.1 and at1[1] < 0.8 and at1[2] < 0.6
    assert sum(n.startswith("OUR EXTENSION") for n in result.notes) == 4
    assert sum(n.startswith("SECONDARY reading") for n in result.notes) == 4


def test_orders_are_checked_for_every_method(result):
    orders = [c for c in result.checks if "observed order" in c.description]
    assert len(orders) == 18 and all(c.passed for c in orders)
    assert {round(c.measured) for c in orders} == {1, 2, 4, 6}


def test_figures_exist(result):
    assert len(result.figures) == 10
    for path in result.figures:
        assert os.path.getsize(path) > 1000 and os.path.basename(path).startswith(m.NAME)


def test_misprints_and_disagreements_point_at_existing_tests(result):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert len(result.disagreements) == 2
    for _, where in result.misprints + result.disagreements:
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
    c = geomcheck.certify_conformal_symplectic(phi, M.d(m.x) ^ M.d(m.p), small_step=m.h)
    assert c.holds is True
    assert geomcheck.zero.decide_zero(c.factor - (1 - m.alpha * m.h / 2) / (1 + m.alpha * m.h / 2)).is_zero is True
    # the factor vanishes at alpha h = 2: conformally symplectic for small steps, not for every h
    assert geomcheck.certify_conformal_symplectic(phi, M.d(m.x) ^ M.d(m.p)).holds is False
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
