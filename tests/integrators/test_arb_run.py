"""run_arb: arb balls that enclose the exact-arithmetic iterate of the discrete step map.

References established here independently of the package's code generation: for linear maps
with rational entries, the exact iterate by sympy Rationals; for the pendulum, an mpmath
evaluation (sympy's lambdify) at 80 digits, far more accurate than the balls are wide.
"""

import sys

import mpmath
import pytest
import sympy as sp

import integrators as ig
from geomcheck.errors import InvalidArgumentError, MissingDependencyError, NonRealValueError
from integrators.errors import NotLowerableError
from integrators.systems import STEP_SYMBOL as h

flint = pytest.importorskip("flint")

from integrators.arb_run import run_arb  # noqa: E402

q, p = sp.symbols("q p")


def exact_iterate(system, scheme, y0, dt, steps):
    phi = ig.scheme(scheme).step_map(system)
    coords = phi.source.coords
    y = list(y0)
    for _ in range(steps):
        y = [e.xreplace({**dict(zip(coords, y)), h: dt}) for e in phi.exprs]
    return y


def test_rational_oscillator_encloses_the_exact_iterate():
    """H = p^2/2 + q^2/6 (a 1/3 that no binary number equals), Stormer-Verlet, dt = 1/10, 25 steps."""
    osc = ig.HamiltonianSystem(p**2 / 2 + q**2 / 6, q, p)
    want = exact_iterate(osc, "stormer-verlet", [sp.Integer(1), sp.Rational(1, 7)], sp.Rational(1, 10), 25)
    r = run_arb(osc, "stormer-verlet", ["1", sp.Rational(1, 7)], "0.1", 25, digits=30)
    assert r.contains(want) == [True, True]
    assert max(r.radii) < 1e-30
    # a state 1e-28 away is not in the balls
    assert r.contains([want[0] + sp.Rational(1, 10**28), want[1]]) == [False, True]
    assert r.error_bound(want) <= 2 * max(r.radii)


def test_mpmath_50_digit_run_lies_in_the_balls_and_a_planted_error_does_not():
    pendulum = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
    y0, dt, steps = ["1.25", "0.5"], "0.05", 40
    run = ig.integrate(pendulum, "stormer-verlet", y0, dt=dt, steps=steps, backend="mpmath", dps=50,
                       save_every=steps, progress=False).y[-1]
    balls = run_arb(pendulum, "stormer-verlet", y0, dt, steps, digits=40)
    assert balls.contains(run) == [True, True]
    assert max(balls.radii) < 1e-38
    # the planted error: y0 perturbed by 1e-40 moves the final state by about 1e-40, beyond the radius
    with mpmath.workdps(50):
        bad_y0 = [mpmath.mpf("1.25") + mpmath.mpf(10) ** -40, mpmath.mpf("0.5")]
    planted = ig.integrate(pendulum, "stormer-verlet", bad_y0, dt=dt, steps=steps, backend="mpmath", dps=50,
                           save_every=steps, progress=False).y[-1]
    assert max(balls.radii) < 1e-42
    assert balls.contains(planted) != [True, True]
    # the rigorous error bound of the 50-digit run, checked against an 80-digit evaluation of the map
    bound = run_arb(pendulum, "stormer-verlet", y0, dt, steps, digits=60).error_bound(run)
    assert bound < 1e-46
    phi = ig.scheme("stormer-verlet").step_map(pendulum)
    f = sp.lambdify([q, p, h], list(phi.exprs), "mpmath")
    with mpmath.workdps(80):
        x = [mpmath.mpf(v) for v in y0]
        for _ in range(steps):
            x = list(f(*x, mpmath.mpf(dt)))
        true_error = max(abs(a - b) for a, b in zip(run, x))
        assert true_error <= bound


def test_a_composition_is_enclosed_stage_by_stage():
    """yoshida-4 (irrational stage factors 1/(2 - 2^(1/3))) on the pendulum, against 120 digits."""
    pendulum = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
    r = run_arb(pendulum, "yoshida-4", ["1", "0"], "0.25", 4, digits=30)
    stages = ig.scheme("yoshida-4").stages(pendulum)
    with mpmath.workdps(120):
        maps = [(sp.lambdify([q, p, h], list(st.map.exprs), "mpmath"), mpmath.mpf(sp.N(st.factor, 130)))
                for st in stages]
        y = [mpmath.mpf(1), mpmath.mpf(0)]
        for _ in range(4):
            for f, factor in maps:
                y = list(f(*y, factor / 4))
    assert r.contains(y) == [True, True]
    assert max(r.radii) < 1e-30


def test_implicit_scheme_is_refused():
    osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
    with pytest.raises(NotLowerableError, match="explicit schemes only"):
        run_arb(osc, "implicit-midpoint", ["1", "0"], "0.1", 3)


def test_a_ball_that_is_not_finite_is_an_error():
    """sqrt(q) at q < 0: no real value, the ball is nan; no enclosure is reported."""
    s = ig.HamiltonianSystem(p**2 / 2 + sp.sqrt(q), q, p)
    with pytest.raises(NonRealValueError, match="not finite"):
        run_arb(s, "stormer-verlet", ["-1", "0"], "0.1", 2)


@pytest.mark.parametrize("kw, match", [
    (dict(steps=-1), "steps"), (dict(steps=2.0), "steps"), (dict(digits=0), "digits"),
    (dict(y0=["1"]), "coordinates"), (dict(y0=["abc", "0"]), "y0"), (dict(dt=float("nan")), "dt"),
])
def test_bad_inputs(kw, match):
    osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
    args = dict(y0=["1", "0"], dt="0.1", steps=2)
    args.update(kw)
    with pytest.raises(InvalidArgumentError, match=match):
        run_arb(osc, "stormer-verlet", **args)


def test_without_python_flint(monkeypatch):
    monkeypatch.setitem(sys.modules, "flint", None)       # import flint now raises ImportError
    osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
    with pytest.raises(MissingDependencyError, match="flint"):
        run_arb(osc, "stormer-verlet", ["1", "0"], "0.1", 2)


def test_time_dependent_system_binds_the_time_of_each_stage():
    """A forced damped oscillator as a contact system with time t: step n is bound to t_n = n h."""
    x, px, z, t, g = sp.symbols("x p_x z t gamma")
    s = ig.ContactSystem(px**2 / 2 + x**2 / 2 + g * z - x * sp.cos(t), x, px, z, t=t,
                         parameters={g: sp.Rational(1, 10)})
    stages = ig.scheme("contact-splitting-2-t").stages(s)
    y0, dt, steps = ["1", "0", "0"], sp.Rational(1, 5), 5
    r = run_arb(s, "contact-splitting-2-t", y0, dt, steps, digits=30)
    with mpmath.workdps(80):
        maps = [(sp.lambdify([x, px, z, h, g, t], list(st.map.exprs), "mpmath"), st) for st in stages]
        y = [mpmath.mpf(v) for v in y0]
        hh, gg = mpmath.mpf(1) / 5, mpmath.mpf(1) / 10
        for n in range(steps):
            for f, st in maps:
                factor, offset = mpmath.mpf(sp.N(st.factor, 90)), mpmath.mpf(sp.N(st.offset, 90))
                y = list(f(*y, factor * hh, gg, n * hh + offset * hh))
    assert r.contains(y) == [True, True, True]
    assert max(r.radii) < 1e-30
    assert r.contains([y[0] + mpmath.mpf(10) ** -25, y[1], y[2]]) == [False, True, True]


@pytest.mark.parametrize("term", [sp.Max(q, 0) * q, sp.LambertW(q), sp.Piecewise((q, q > 0), (0, True)),
                                  q * sp.atan2(q, 2)], ids=["Max", "LambertW", "Piecewise", "atan2"])
def test_parts_without_an_arb_evaluation_are_refused(term):
    s = ig.HamiltonianSystem(p**2 / 2 + term, q, p)
    with pytest.raises(NotLowerableError):
        run_arb(s, "stormer-verlet", ["1", "0"], "0.1", 1)
