"""Integrators: a state that leaves the real domain is a named error (mpmath) or nan plus a
warning (numpy), never a raw TypeError or a silently complex "real" trajectory (issue 13, class 8)."""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest
import sympy as sp

from geomcheck.errors import GeomcheckError

from .judge import fail, short_trace

q, p = sp.symbols("q p")


def _system(kind):
    import integrators as ig

    if kind == "sqrt":
        # H = p^2/2 + sqrt(q): from q = 1/100, p = -1 a step of 1/10 drives q negative, then sqrt(q) is complex
        return ig.HamiltonianSystem(p**2 / 2 + sp.sqrt(q), q, p)
    if kind == "qlogq":
        # H = p^2/2 + q log q: the force -(log q + 1) is complex once q < 0
        return ig.HamiltonianSystem(p**2 / 2 + q * sp.log(q), q, p)
    if kind == "oscillator":
        return ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
    raise ValueError(kind)


def _independent_first_steps(kind):
    """Plain mpmath Stormer-Verlet from (1/100, -1) with h = 1/10: q after one step is negative."""
    with mpmath.workdps(30):
        qv, pv, hv = mpmath.mpf(1) / 100, mpmath.mpf(-1), mpmath.mpf(1) / 10
        force = (lambda x: -1 / (2 * mpmath.sqrt(x))) if kind == "sqrt" else (lambda x: -(mpmath.log(x) + 1))
        ph = pv + hv / 2 * force(qv)
        qn = qv + hv * ph
        return qn


@pytest.mark.parametrize("kind", ["sqrt", "qlogq"])
def test_mpmath_backend_leaving_real_domain_is_a_named_error(kind):
    import integrators as ig

    assert _independent_first_steps(kind) < 0, "the trajectory must leave q > 0 (independent check)"
    try:
        sol = ig.integrate(_system(kind), "stormer-verlet", ["0.01", "-1"], dt="0.1", steps=5, backend="mpmath",
                           dps=30, save_every=1)
    except GeomcheckError:
        return
    except Exception as exc:  # noqa: BLE001
        fail(f"raw exception instead of a geomcheck error: {short_trace(exc)}")
    values = [v for row in np.asarray(sol.y).reshape(-1) for v in [row]]
    complex_values = [v for v in values if isinstance(v, mpmath.mpc) and v.imag != 0]
    fail(f"no error although the state left the real domain; {len(complex_values)} complex values were stored")


def test_numpy_backend_leaving_real_domain_gives_nan_and_a_warning():
    import integrators as ig

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            sol = ig.integrate(_system("sqrt"), "stormer-verlet", np.array([0.01, -1.0]), dt=0.1, steps=5,
                               backend="numpy", save_every=1)
        except GeomcheckError as exc:
            fail(f"the numpy backend is specified to continue with nan and warn, not to raise: {short_trace(exc)}")
        except Exception as exc:  # noqa: BLE001
            fail(f"raw exception {short_trace(exc)}")
    assert np.isnan(np.asarray(sol.y, dtype=float)).any(), "no nan although the state left the real domain"
    assert caught, "no warning although the state left the real domain"


def test_mpmath_backend_valid_run():
    """A valid run must not raise, and its values are finite real mpf (the energy error of Verlet on the
    oscillator is O(h^2), checked against the exact invariant)."""
    import integrators as ig

    try:
        sol = ig.integrate(_system("oscillator"), "stormer-verlet", ["1", "0"], dt="0.01", steps=100,
                           backend="mpmath", dps=40, save_every=50)
    except Exception as exc:  # noqa: BLE001
        fail(f"valid input raised {short_trace(exc)}")
    last = np.asarray(sol.y)[-1]
    assert all(isinstance(v, mpmath.mpf) and mpmath.isfinite(v) for v in last)
    with mpmath.workdps(40):
        energy = (last[0] ** 2 + last[1] ** 2) / 2
        assert abs(energy - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** -4


@pytest.mark.parametrize("name, kwargs", [
    ("negative_dt", {"dt": -0.1}),
    ("nan_dt", {"dt": float("nan")}),
    ("negative_steps", {"steps": -1}),
    ("unknown_backend", {"backend": "bogus"}),
    ("tiny_dps", {"backend": "mpmath", "dps": 3}),
    ("wrong_state_length", {"y0": np.array([1.0, 0.0, 2.0])}),
    ("unknown_scheme", {"scheme": "leapfrog-17"}),
])
def test_bad_integrate_arguments_are_named_errors(name, kwargs):
    import integrators as ig

    args = {"y0": np.array([1.0, 0.0]), "dt": 0.1, "steps": 3, "backend": "numpy", "scheme": "stormer-verlet"}
    args.update(kwargs)
    scheme, y0 = args.pop("scheme"), args.pop("y0")
    try:
        ig.integrate(_system("oscillator"), scheme, y0, **args)
    except GeomcheckError:
        return
    except Exception as exc:  # noqa: BLE001
        fail(f"{name}: raw exception {short_trace(exc)}")
    fail(f"{name}: bad input accepted")
