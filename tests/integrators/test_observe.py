"""``integrate(..., observe=...)``: every state of a run is shown to the observer, on every path."""

import mpmath
import numpy as np
import pytest
import sympy

import integrators as ig
from geomcheck.errors import InvalidArgumentError
from integrators.compiled import find_compiler
from integrators.stepping import observation_block

q, p = sympy.symbols("q p")
PENDULUM = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)


def _energy(t, y):
    return y[..., 1] ** 2 / 2 - np.cos(y[..., 0])


def test_every_state_is_observed_not_only_the_saved_ones():
    steps = 37
    sol = ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=steps, save_every=10,
                       observe=lambda t, y: np.column_stack([t, y]))
    full = ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=steps, save_every=1)
    assert sol.observed.shape == (steps + 1, 3)
    # the observed states are the states of the run, bit for bit, and so are their times
    assert np.array_equal(sol.observed[:, 1:], full.y)
    assert np.array_equal(sol.observed[:, 0], full.t)
    assert np.array_equal(sol.y, full.y[[0, 10, 20, 30, 37]])


def test_observe_sees_the_extreme_between_saved_steps():
    """The largest energy error of a run lies between saved states: observe finds it, the saved states do not."""
    sol = ig.integrate(PENDULUM, "stormer-verlet", [2.0, 0.0], dt=0.2, steps=400, save_every=100,
                       observe=lambda t, y: _energy(t, y))
    full = ig.integrate(PENDULUM, "stormer-verlet", [2.0, 0.0], dt=0.2, steps=400, save_every=1)
    e0 = full.energy()[0]
    assert np.max(np.abs(sol.observed - e0)) == np.max(np.abs(full.energy() - e0))
    assert np.max(np.abs(sol.energy() - e0)) < np.max(np.abs(sol.observed - e0))


def test_ensemble_observation_has_the_batch_axis():
    y0 = np.array([[0.5, 0.0], [1.0, 0.0], [1.5, 0.2]])
    sol = ig.integrate(PENDULUM, "rk4", y0, dt=0.05, steps=20, save_every=20, observe=_energy)
    assert sol.observed.shape == (21, 3)
    full = ig.integrate(PENDULUM, "rk4", y0, dt=0.05, steps=20, save_every=1)
    assert np.array_equal(sol.observed, full.energy())


def test_observation_blocks_cover_long_runs(monkeypatch):
    """States are handed over in blocks; a run longer than a block is observed whole and in order."""
    import integrators.stepping as stepping

    monkeypatch.setattr(stepping, "OBSERVED_VALUES_PER_BLOCK", 14)   # 7 states of dimension 2 per block
    assert observation_block(1, 2, 100) == 7
    calls = []

    def observe(t, y):
        calls.append(len(t))
        return t

    sol = ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], dt=0.5, steps=20, save_every=20, observe=observe)
    assert calls == [7, 7, 7]
    assert np.array_equal(sol.observed, 0.5 * np.arange(21))


def test_mpmath_observation():
    sol = ig.integrate(PENDULUM, "implicit-midpoint", ["1", "0"], dt="0.125", steps=8, save_every=8, backend="mpmath",
                       dps=30, observe=lambda t, y: t)
    assert sol.observed.dtype == object and len(sol.observed) == 9
    assert sol.observed[-1] == mpmath.mpf(1)


@pytest.mark.skipif(find_compiler() is None, reason="no C compiler")
def test_compiled_observation_equals_the_numpy_run(monkeypatch):
    import integrators.stepping as stepping

    monkeypatch.setattr(stepping, "OBSERVED_VALUES_PER_BLOCK", 10)     # several blocks of the C loop
    x, z, t = sympy.symbols("x z t")
    forced = ig.ContactSystem(p**2 / 2 + x**2 / 2 + sympy.cos(t) * z / 5, x, p, z, t=t)
    y0 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.5]])
    kw = dict(dt=0.1, steps=23, save_every=5, t0=0.3, observe=lambda t, y: y.reshape(len(t), -1))
    scheme = "contact-splitting-2-t"
    compiled = ig.integrate(forced, scheme, y0, backend="compiled", **kw)
    plain = ig.integrate(forced, scheme, y0, backend="compiled", dt=0.1, steps=23, save_every=5, t0=0.3)
    numpy_run = ig.integrate(forced, scheme, y0, **kw)
    assert compiled.path == "compiled"
    # blocks of the C loop give the same doubles as one uninterrupted C run (time from the step index)
    assert np.array_equal(compiled.y, plain.y)
    assert np.array_equal(compiled.observed.reshape(24, 2, 3)[[0, 5, 10, 15, 20, 23]], plain.y)
    assert compiled.observed.shape == (24, 6)
    assert np.abs(compiled.observed - numpy_run.observed).max() < 1e-13


@pytest.mark.parametrize("bad", [lambda t, y: 1.0, lambda t, y: np.zeros(3)])
def test_observe_must_return_one_entry_per_state(bad):
    with pytest.raises(InvalidArgumentError, match="first axis"):
        ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=10, observe=bad)


def test_observe_must_be_callable():
    with pytest.raises(InvalidArgumentError, match="observe must be a function"):
        ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=10, observe="energy")


def test_no_observe_no_observations():
    assert ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=3).observed is None


def test_distributed_refuses_observe():
    from integrators.distributed import integrate_distributed

    with pytest.raises(InvalidArgumentError, match="observe"):
        integrate_distributed(PENDULUM, "stormer-verlet", np.zeros((2, 2)), client=_FakeClient(), observe=_energy)


class _FakeClient:
    """Enough of a Dask client for the argument checks that come before anything is sent."""

    def scheduler_info(self):
        return {"workers": {}}
