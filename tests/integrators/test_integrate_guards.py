"""integrate(): compensated summation, the progress bar, and the linear stability guard."""

import contextlib
import io
import warnings
import math

import mpmath
import numpy as np
import pytest
import sympy

import integrators as ig
from geomcheck.errors import InvalidArgumentError
from integrators.stability import (StabilityWarning, StepSizeError, jacobian_spectral_radius, stability_interval)

q, p = sympy.symbols("q p")
UNIT = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
OMEGA10 = ig.HamiltonianSystem(p**2 / 2 + 100 * q**2 / 2, q, p)     # omega = 10: Verlet needs dt < 0.2
QUARTIC = ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)          # linearization at q: omega = sqrt(3) |q|


# ------------------------------------------------------------------ compensated summation


def _exact_verlet_iterate(dt, n, y0):
    """``M^n y0`` at 60 digits: velocity Verlet on q' = p, p' = -q is the linear map M (dt a float, exact)."""
    with mpmath.workdps(60):
        h = mpmath.mpf(dt)
        M = mpmath.matrix([[1 - h**2 / 2, h], [-h * (1 - h**2 / 4), 1 - h**2 / 2]])
        Mn = M**n
        return [Mn * mpmath.matrix([mpmath.mpf(a), mpmath.mpf(b)]) for a, b in y0]


def test_verlet_matrix_is_the_catalog_step():
    phi = ig.scheme("stormer-verlet").step_map(UNIT)
    h = ig.scheme("stormer-verlet").h
    M = [[sympy.expand(sympy.diff(e, c)) for c in (q, p)] for e in phi.exprs]
    assert M == [[1 - h**2 / 2, h], [sympy.expand(-h * (1 - h**2 / 4)), 1 - h**2 / 2]]


def test_compensated_summation_removes_the_rounding_random_walk():
    # 16 trajectories on the unit circle, dt = 2^-10 (exact in binary), 10^5 steps: the float
    # run is compared with the same scheme iterated at 60 digits, so what is left is rounding only
    dt, n = 2.0**-10, 100_000
    angles = np.linspace(0.0, 3.0, 16)
    y0 = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    exact = _exact_verlet_iterate(dt, n, y0)

    def rounding_error(compensated):
        sol = ig.integrate(UNIT, "stormer-verlet", y0, dt=dt, steps=n, save_every=n, compensated=compensated)
        return max(abs(float(exact[b][i] - mpmath.mpf(sol.y[-1, b, i]))) for b in range(16) for i in range(2)), sol

    plain, sol_plain = rounding_error(False)
    comp, sol_comp = rounding_error(True)
    assert plain > 5e-15                  # measured 2.4e-14: the rounding of y + increment accumulates
    assert comp < 5e-16                   # measured 7.4e-17: a few ulps after 10^5 steps
    assert comp < plain / 30

    # Verlet's exact invariant of the oscillator, I = q^2 + p^2 / (1 - h^2/4): its drift shows the same
    def invariant_drift(sol):
        I = sol.y[:, :, 0] ** 2 + sol.y[:, :, 1] ** 2 / (1 - dt**2 / 4)
        return float(np.abs(I[-1] - I[0]).max())

    assert invariant_drift(sol_comp) < invariant_drift(sol_plain) / 10


def test_verlet_invariant_is_exact():
    h = sympy.Rational(1, 1024)
    M = sympy.Matrix([[1 - h**2 / 2, h], [-h * (1 - h**2 / 4), 1 - h**2 / 2]])
    G = sympy.diag(1, 1 / (1 - h**2 / 4))
    assert M.T * G * M == G


@pytest.mark.parametrize("name", ["stormer-verlet", "implicit-midpoint", "gauss-legendre-4"])
def test_compensated_run_is_the_same_scheme(pendulum, name):
    y0 = [[0.3, 0.1], [1.0, -0.5]]
    a = ig.integrate(pendulum, name, y0, dt=0.05, steps=200, save_every=50)
    b = ig.integrate(pendulum, name, y0, dt=0.05, steps=200, save_every=50, compensated=True)
    assert np.max(np.abs(a.y - b.y)) < 1e-13
    c = ig.integrate(pendulum, name, y0, dt=0.05, steps=200, save_every=50, compensated=True)
    assert np.array_equal(b.y, c.y)        # deterministic: bit-identical


@pytest.mark.parametrize("name", ["stormer-verlet", "implicit-midpoint"])
def test_compensated_mpmath(pendulum, name):
    a = ig.integrate(pendulum, name, ["0.3", "0.1"], dt="0.05", steps=20, backend="mpmath", dps=40, save_every=20)
    b = ig.integrate(pendulum, name, ["0.3", "0.1"], dt="0.05", steps=20, backend="mpmath", dps=40, save_every=20,
                     compensated=True)
    assert max(abs(x - y) for x, y in zip(a.y[-1], b.y[-1])) < mpmath.mpf(10) ** -33


def test_compensated_time_dependent_contact_system():
    x, pc, z, t = sympy.symbols("x p_c z t")
    damped = ig.ContactSystem(pc**2 / 2 + x**2 / 2 + (1 + sympy.cos(t)) / 10 * z, x, pc, z, t=t)
    for name in ("rk4", "gauss-legendre-4"):         # the step is re-bound at every t_n
        a = ig.integrate(damped, name, [1.0, 0.0, 0.0], dt=0.01, steps=300, save_every=100)
        b = ig.integrate(damped, name, [1.0, 0.0, 0.0], dt=0.01, steps=300, save_every=100, compensated=True)
        assert np.max(np.abs(a.y - b.y)) < 1e-13


# ------------------------------------------------------------------ progress bar


def _stderr_of(**kw):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        sol = ig.integrate(UNIT, "stormer-verlet", [1.0, 0.0], dt=0.01, steps=1000, **kw)
    return err.getvalue(), sol


def test_progress_bar_forced_into_a_captured_stream():
    text, sol = _stderr_of(progress=True)
    assert text.count("\r") >= 100                       # redrawn about once a percent
    last = text.rstrip("\n").split("\r")[-1]
    assert last.startswith("[" + "#" * 30 + "] 100% 1000/1000 steps")
    assert text.endswith("\n")
    assert "  1% 10/1000 steps" in text
    quiet, sol2 = _stderr_of(progress=False)
    assert quiet == "" and np.array_equal(sol.y, sol2.y)  # the bar does not change the run


def test_progress_bar_is_off_when_stderr_is_not_a_terminal():
    text, _ = _stderr_of()                                # StringIO.isatty() is False
    assert text == ""


def test_progress_bar_with_compensated_and_zero_steps():
    text, _ = _stderr_of(progress=True, compensated=True)
    assert "100% 1000/1000" in text
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        ig.integrate(UNIT, "stormer-verlet", [1.0, 0.0], dt=0.01, steps=0, progress=True)
    assert err.getvalue() == ""


@pytest.mark.parametrize("kw", [dict(progress="yes"), dict(compensated=1), dict(check_stability=None)])
def test_bad_flags(kw):
    with pytest.raises(InvalidArgumentError, match="must be True or False"):
        ig.integrate(UNIT, "stormer-verlet", [1.0, 0.0], dt=0.01, steps=1, **kw)


# ------------------------------------------------------------------ stability guard


def test_stability_intervals_are_exact():
    assert stability_interval("stormer-verlet") == 2
    assert stability_interval("stormer-verlet-position") == 2
    assert stability_interval("symplectic-euler-a") == 2
    assert stability_interval("symplectic-euler-b") == 2
    assert stability_interval("lobatto-iiia-iiib-2") == 2           # Verlet again, on a separable H
    assert stability_interval("rk4") == 2 * sympy.sqrt(2)
    assert stability_interval("explicit-euler") == 0
    for implicit in ("implicit-midpoint", "gauss-legendre-4", "trapezoidal"):
        assert stability_interval(implicit) is None
    assert stability_interval("contact-splitting-2") is None         # no canonical test oscillator


@pytest.mark.parametrize("name, x_max", [("stormer-verlet", 2.0), ("symplectic-euler-a", 2.0),
                                          ("rk4", 2 * np.sqrt(2))])
def test_interval_matches_what_a_run_does(name, x_max):
    # just inside the interval the amplitude stays bounded (on an ellipse that elongates as h omega
    # nears the end of the interval: |p| up to ~50 here against 10 exactly); just outside it explodes
    inside = ig.integrate(OMEGA10, name, [1.0, 0.0], dt=0.98 * x_max / 10, steps=2000, save_every=1)
    outside = ig.integrate(OMEGA10, name, [1.0, 0.0], dt=1.02 * x_max / 10, steps=200, save_every=200,
                           check_stability=False)
    assert np.max(np.abs(inside.y)) < 100
    assert np.max(np.abs(outside.y[-1])) > 1e6


def test_verlet_beyond_the_bound_is_refused():
    with pytest.raises(StepSizeError, match=r"dt\*omega_max = 2\.1 >= 2.*omega_max = 10\b.*Take dt < 0\.2\b"):
        ig.integrate(OMEGA10, "stormer-verlet", [1.0, 0.0], dt=0.21, steps=100)
    sol = ig.integrate(OMEGA10, "stormer-verlet", [1.0, 0.0], dt=0.19, steps=2000, save_every=100)
    assert np.max(np.abs(sol.y[:, 0])) < 3                         # bounded oscillation
    with pytest.raises(StepSizeError):                               # the mpmath backend is guarded too
        ig.integrate(OMEGA10, "stormer-verlet", ["1", "0"], dt="0.21", steps=3, backend="mpmath", dps=20)
    with pytest.raises(StepSizeError):
        ig.integrate(OMEGA10, "symplectic-euler-b", [1.0, 0.0], dt=0.21, steps=3)


def test_override_runs_and_shows_the_blow_up():
    sol = ig.integrate(OMEGA10, "stormer-verlet", [1.0, 0.0], dt=0.21, steps=300, save_every=300,
                       check_stability=False)
    assert np.max(np.abs(sol.y[-1])) > 1e10


@pytest.mark.parametrize("name", ["implicit-midpoint", "gauss-legendre-4"])
def test_implicit_schemes_are_not_refused(name):
    sol = ig.integrate(OMEGA10, name, [1.0, 0.0], dt=0.21, steps=50, save_every=50)
    assert np.allclose(sol.energy(), 50.0, rtol=1e-12)              # and they conserve the quadratic energy


def test_rk4_bound_and_explicit_euler_warning():
    with pytest.raises(StepSizeError, match="rk4"):
        ig.integrate(OMEGA10, "rk4", [1.0, 0.0], dt=0.29, steps=3)
    ig.integrate(OMEGA10, "rk4", [1.0, 0.0], dt=0.28, steps=3)
    with pytest.warns(StabilityWarning, match="sqrt\\(1 \\+ \\(dt\\*omega\\)\\^2\\)"):
        ig.integrate(OMEGA10, "explicit-euler", [1.0, 0.0], dt=0.01, steps=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ig.integrate(OMEGA10, "explicit-euler", [1.0, 0.0], dt=0.01, steps=3, check_stability=False)


def test_nonlinear_bound_is_taken_over_the_whole_ensemble():
    # at q = 10 the quartic oscillator's linearization has omega = sqrt(300) = 17.3: dt = 0.12 gives 2.08
    assert jacobian_spectral_radius(QUARTIC, np.array([[1.0, 0.0], [10.0, 0.0]]), {}) == pytest.approx(np.sqrt(300))
    ig.integrate(QUARTIC, "stormer-verlet", [1.0, 0.0], dt=0.12, steps=3)
    with pytest.raises(StepSizeError, match="omega_max = 17.32"):
        ig.integrate(QUARTIC, "stormer-verlet", [[1.0, 0.0], [10.0, 0.0]], dt=0.12, steps=3)
    ig.integrate(QUARTIC, "stormer-verlet", [[1.0, 0.0], [10.0, 0.0]], dt=0.11, steps=3)


def test_bound_uses_the_systems_constants():
    w = sympy.Symbol("w", positive=True)
    osc = ig.HamiltonianSystem(p**2 / 2 + w**2 * q**2 / 2, q, p, parameters={w: 10})
    with pytest.raises(StepSizeError):
        ig.integrate(osc, "stormer-verlet", [1.0, 0.0], dt=0.21, steps=3)
    ig.integrate(osc, "stormer-verlet", [1.0, 0.0], dt=0.21, steps=3, params={w: 9})


def _triple_jump():
    cbrt2 = sympy.root(2, 3)
    return ig.Composition(ig.scheme("stormer-verlet"), [1 / (2 - cbrt2), -cbrt2 / (2 - cbrt2), 1 / (2 - cbrt2)],
                          name="triple-jump-test")


def test_irrational_composition_interval_numerically():
    # Yoshida's triple jump (cube roots of 2): no rational polynomial, the grid + bisection path
    tj = _triple_jump()
    x_max = float(stability_interval(tj))
    assert x_max == pytest.approx(1.5734019474, abs=1e-9)

    # independently: the product of the three Verlet matrices has |trace| = 2 exactly there
    def trace(x):
        def verlet(h):
            return np.array([[1 - h**2 / 2, h], [-h * (1 - h**2 / 4), 1 - h**2 / 2]])
        g1 = 1 / (2 - 2 ** (1 / 3))
        g2 = 1 - 2 * g1
        return np.trace(verlet(g1 * x) @ verlet(g2 * x) @ verlet(g1 * x))

    assert abs(trace(x_max - 1e-7)) < 2 < abs(trace(x_max + 1e-7))
    with pytest.raises(StepSizeError):
        ig.integrate(OMEGA10, tj, [1.0, 0.0], dt=1.01 * x_max / 10, steps=3)
    ig.integrate(OMEGA10, tj, [1.0, 0.0], dt=0.99 * x_max / 10, steps=3)


def test_a_state_dependent_step_size_breaks_symplecticity():
    """Why integrate has no adaptive step sizes (module docstring of integrators.integrate).

    Stormer-Verlet with its step h replaced by h * s(q, p), s > 0 a step-size controller of the
    state, is no longer symplectic (certificate False with a counterexample), although the
    fixed-step map is.
    """
    import geomcheck as gc

    q, p = sympy.symbols("q p")
    osc = ig.HamiltonianSystem((p**2 + q**2) / 2 + q**4 / 4, q, p)
    phi = ig.scheme("stormer-verlet").step_map(osc)
    assert gc.certify_symplectic(phi, osc.omega).holds is True
    h = ig.scheme("stormer-verlet").h
    controller = 1 / (1 + q**2 + p**2)             # smaller steps far out, as an error controller would take
    adaptive = gc.Map(phi.source, phi.target, [e.subs(h, h * controller) for e in phi.exprs])
    cert = gc.certify_symplectic(adaptive, osc.omega)
    assert cert.holds is False and cert.counterexample is not None


# ------------------------------------------------------------------ leaving the real domain

from geomcheck.errors import GeomcheckError, NonFiniteStateWarning, NonRealValueError  # noqa: E402

SQRT = ig.HamiltonianSystem(p**2 / 2 + sympy.sqrt(q), q, p)        # force -1/(2 sqrt q) drives q below 0
QLOGQ = ig.HamiltonianSystem(p**2 / 2 + q * sympy.log(q), q, p)    # force -(log q + 1)
Y0 = [[4, 0], [1, -1]]                                               # trajectory 1 reaches q < 0


def _first_complex_verlet_step(force, y0, dt, steps):
    """The first Verlet step (1-based) whose new state is complex, by plain mpmath; None if none."""
    with mpmath.workdps(30):
        h = mpmath.mpf(dt)
        qq, pp = mpmath.mpf(y0[0]), mpmath.mpf(y0[1])
        for n in range(1, steps + 1):
            ph = pp - h / 2 * force(qq)
            qq = qq + h * ph
            pp = ph - h / 2 * force(qq)
            if isinstance(qq, mpmath.mpc) or isinstance(pp, mpmath.mpc):
                return n
    return None


@pytest.mark.parametrize("system, dV", [
    (SQRT, lambda x: 1 / (2 * mpmath.sqrt(x))),
    (QLOGQ, lambda x: mpmath.log(x) + 1),
])
def test_mpmath_run_leaving_the_real_domain_names_step_trajectory_and_coordinate(system, dV):
    expected = _first_complex_verlet_step(dV, Y0[1], "0.1", 15)
    assert expected is not None and _first_complex_verlet_step(dV, Y0[0], "0.1", 15) is None
    with pytest.raises(NonRealValueError) as info:
        ig.integrate(system, "stormer-verlet", Y0, dt="0.1", steps=15, backend="mpmath", dps=30)
    exc = info.value
    assert isinstance(exc, ArithmeticError) and isinstance(exc, GeomcheckError)
    assert (exc.step, exc.trajectory, exc.coordinate) == (expected, 1, "p")
    assert isinstance(exc.value, mpmath.mpc)
    assert exc.time == pytest.approx(0.1 * (expected - 1))
    msg = str(exc)
    assert f"step {expected}" in msg and "trajectory 1" in msg and "new value of p is complex" in msg


def test_mpmath_run_on_the_real_side_is_untouched():
    assert _first_complex_verlet_step(lambda x: 1 / (2 * mpmath.sqrt(x)), Y0[0], "0.1", 40) is None
    sol = ig.integrate(SQRT, "stormer-verlet", [Y0[0]], dt="0.1", steps=40, backend="mpmath", dps=30)
    assert all(isinstance(v, mpmath.mpf) for v in sol.y[-1].ravel())


@pytest.mark.parametrize("scheme, compensated", [
    ("implicit-midpoint", False), ("gauss-legendre-4", False), ("yoshida-4", False),
    ("stormer-verlet", True), ("implicit-midpoint", True),
])
def test_mpmath_leaving_the_real_domain_in_every_path(scheme, compensated):
    # implicit steps meet the complex value inside Newton's iteration, compositions in a stage,
    # compensated runs in the separately lowered increment
    with pytest.raises(NonRealValueError) as info:
        ig.integrate(SQRT, scheme, Y0, dt="0.1", steps=40, backend="mpmath", dps=30, compensated=compensated)
    exc = info.value
    assert exc.trajectory == 1 and isinstance(exc.step, int) and exc.step >= 1 and exc.coordinate
    assert f"step {exc.step}" in str(exc) and "trajectory 1" in str(exc)


def test_numpy_run_gives_nan_and_a_named_warning_per_trajectory():
    expected = _first_complex_verlet_step(lambda x: 1 / (2 * mpmath.sqrt(x)), Y0[1], "0.1", 40)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sol = ig.integrate(SQRT, "stormer-verlet", np.array(Y0, dtype=float), dt=0.1, steps=40, save_every=5)
    named = [w.message for w in caught if isinstance(w.message, NonFiniteStateWarning)]
    assert len(named) == 1
    w = named[0]
    assert isinstance(w, RuntimeWarning) and isinstance(w, GeomcheckError)
    first_saved = next(n for n in range(0, 41, 5) if n >= expected)
    assert (w.trajectories, w.first_seen, w.last_finite) == ([1], [first_saved], [first_saved - 5])
    assert "p" in w.coordinates[0]
    assert "trajectory 1" in str(w) and f"step {first_saved}" in str(w)
    assert np.isnan(sol.y[-1, 1]).all() and np.isfinite(sol.y[:, 0]).all()


def test_numpy_run_that_stays_finite_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonFiniteStateWarning)
        sol = ig.integrate(SQRT, "stormer-verlet", np.array([Y0[0]], dtype=float), dt=0.1, steps=40)
    assert np.isfinite(sol.y).all()


# a cubic potential: from q = 1.2 at rest the trajectory escapes to infinity in finite time
_q, _p = sympy.symbols("q p")
ESCAPE = ig.HamiltonianSystem(_p**2 / 2 - _q**3 / 3, _q, _p)


def _escape_step():
    """The first Stormer-Verlet step (h = 0.01) at which the state leaves the double range, in plain Python."""
    q, p, h = 1.2, 0.0, 0.01
    for n in range(1, 2001):
        try:
            p_half = p + h / 2 * q * q
            q = q + h * p_half
            p = p_half + h / 2 * q * q
        except OverflowError:
            return n
        if not (math.isfinite(q) and math.isfinite(p)):
            return n
    return None


@pytest.mark.parametrize("backend", ["numpy", "compiled", "mpmath"])
def test_every_backend_reports_a_blow_up(backend):
    blow = _escape_step()
    assert blow is not None and blow < 2000
    kw = dict(dps=20) if backend == "mpmath" else {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sol = ig.integrate(ESCAPE, "stormer-verlet", [1.2, 0.0], dt="0.01" if backend == "mpmath" else 0.01,
                           steps=400, save_every=10, backend=backend, check_stability=False, **kw)
    named = [w.message for w in caught if isinstance(w.message, NonFiniteStateWarning)]
    assert len(named) == 1, [str(w.message) for w in caught]
    w = named[0]
    first = next(n for n in range(0, 401, 10) if n >= blow)
    # mpmath does not overflow: it is caught when it passes the double range, at most a saved step later
    assert w.trajectories == [0] and w.first_seen[0] in (first, first + 10) and "trajectory 0" in str(w)
    assert sol.y.shape == (41, 2)


@pytest.mark.parametrize("system", [ig.HamiltonianSystem(_p**2 / 2 + _q**2 / 2, _q, _p),
                                    ig.HamiltonianSystem(_p**2 / 2 - sympy.cos(_q), _q, _p)], ids=["linear", "pendulum"])
@pytest.mark.parametrize("options, message", [
    (dict(tol=-1), "tol must be a positive finite real number"), (dict(tol=0), "tol must be a positive"),
    (dict(tol="a"), "tol must be a positive"), (dict(tol=float("nan")), "tol must be a positive"),
    (dict(tol=1j), "tol must be a positive"), (dict(max_iter=0), "max_iter must be an integer >= 1"),
    (dict(max_iter=2.5), "max_iter must be an integer >= 1"), (dict(max_iter=True), "max_iter must be an integer"),
])
def test_newton_options_are_checked_on_every_path(system, options, message):
    # the linear system takes the factored path (no Newton), the pendulum Newton's: both refuse alike
    with pytest.raises(GeomcheckError, match=message):
        ig.integrate(system, "implicit-midpoint", [1.0, 0.0], dt=0.1, steps=3, **options)


def test_a_valid_tolerance_is_taken_as_a_number_or_a_string():
    pendulum = ig.HamiltonianSystem(_p**2 / 2 - sympy.cos(_q), _q, _p)
    a = ig.integrate(pendulum, "implicit-midpoint", [1.0, 0.0], dt=0.1, steps=3, tol=1e-12)
    b = ig.integrate(pendulum, "implicit-midpoint", [1.0, 0.0], dt=0.1, steps=3, tol="1e-12")
    assert np.array_equal(a.y, b.y)
    c = ig.integrate(pendulum, "implicit-midpoint", [1.0, 0.0], dt="0.1", steps=3, backend="mpmath", dps=40,
                     tol="1e-35")
    assert abs(float(c.y[-1][0]) - a.y[-1][0]) < 1e-11


# ------------------------------------------------------------------ memory of long runs


@pytest.mark.parametrize("backend", ["numpy", "compiled"])
def test_a_long_run_saving_every_step_needs_little_more_than_its_output(backend):
    """The saved states are preallocated, and so are the saved step numbers and times (as arrays):
    a list of Python ints and floats beside them took 3-4 times the output (1071 MiB for a 153 MiB
    output at 10**7 steps)."""
    import tracemalloc

    steps = 10_000
    ig.integrate(UNIT, "stormer-verlet", [1.0, 0.0], dt=0.01, steps=10, backend=backend)   # warm (lowering)
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # no compiler: the numpy path, which must hold as well
            sol = ig.integrate(UNIT, "stormer-verlet", [1.0, 0.0], dt=0.01, steps=steps, save_every=1,
                               backend=backend, progress=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    output = sol.y.nbytes + sol.t.nbytes
    assert sol.y.shape == (steps + 1, 2) and sol.t[-1] == 0.01 * steps
    assert peak < 2.0 * output, (peak, output)
