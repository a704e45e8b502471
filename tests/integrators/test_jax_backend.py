"""The JAX backend (integrators.jax_backend): equal to the numpy path, differentiable, named errors.

Every reference is independent of the module under test: the numpy path of ``integrate``
(which shares only the symbolic step map), a Stormer-Verlet loop written out here in plain
numpy, and central finite differences of numpy runs.  Small batches and few steps: the cost is
JAX's compilation (about one jitted block per system and scheme).
"""

import sys

import numpy as np
import pytest
import sympy

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import integrators as ig
from geomcheck.errors import InvalidArgumentError, MissingDependencyError, ShapeError
from integrators.errors import NewtonConvergenceError, NotLowerableError
from integrators.jax_backend import jax_device, trajectory_function

q, p, k = sympy.symbols("q p k")
#: a pendulum with a constant: H = p^2/2 - k cos q
PENDULUM = ig.HamiltonianSystem(p**2 / 2 - k * sympy.cos(q), q, p, parameters={k: 1.0})
HENON_HEILES = ig.example_system("henon-heiles")
#: bounded Henon-Heiles orbits (energies below the escape energy 1/6)
Y_HH = np.array([[0.1, -0.2, 0.3, 0.05], [0.0, 0.1, 0.2, -0.3], [-0.25, 0.05, 0.0, 0.1], [0.2, 0.2, -0.1, 0.1]])
Y_PEND = np.array([[0.0, 0.0], [1.0, 0.5], [2.0, 0.0]])


def both(system, scheme, y0, dt, steps, save_every, **kw):
    sol = ig.integrate(system, scheme, y0, dt=dt, steps=steps, save_every=save_every, backend="jax",
                       progress=False, **kw)
    ref = ig.integrate(system, scheme, y0, dt=dt, steps=steps, save_every=save_every, backend="numpy",
                       progress=False, **kw)
    return sol, ref


def ulps(a, b):
    """The largest difference in units of the last place of the largest value."""
    return float(np.abs(a - b).max() / np.spacing(np.abs(b).max()))


def test_verlet_ensemble_equals_numpy_to_a_few_ulps():
    # save_every 7 of 30 steps: the last saved gap (2 steps) is shorter, a separate block
    sol, ref = both(HENON_HEILES, "stormer-verlet", Y_HH, 0.05, 30, 7)
    assert sol.path == "jax" and sol.path_note == jax_device() and sol.path_note.startswith("jax ")
    assert ref.path == "numpy"
    np.testing.assert_array_equal(sol.t, ref.t)
    assert sol.y.shape == ref.y.shape == (6, 4, 4)
    np.testing.assert_array_equal(sol.y[0], Y_HH)
    assert ulps(sol.y, ref.y) <= 8
    assert sol.newton is None


def test_the_compiled_loop_is_reused_for_other_step_sizes_and_start_times():
    from integrators.jax_backend import jax_step
    from integrators.systems import STEP_SYMBOL

    first = ig.integrate(HENON_HEILES, "stormer-verlet", Y_HH, dt=0.05, steps=30, save_every=7, backend="jax")
    step = jax_step(ig.scheme("stormer-verlet").stages(HENON_HEILES), [STEP_SYMBOL], None)
    compiled = step.block._cache_size()
    # 5 saved gaps again (a block of 8 states), another dt, start time and ensemble of the same shape
    sol, ref = both(HENON_HEILES, "stormer-verlet", Y_HH / 2, 0.03, 33, 8, t0=1.0)
    assert step.block._cache_size() == compiled
    assert ulps(sol.y, ref.y) <= 8 and np.abs(sol.y[-1] - first.y[-1]).max() > 1e-3


def test_observer_sees_every_state_as_on_numpy():
    def energy(t, y):
        return (y**2).sum(axis=-1)

    # 7 steps: blocks of 8 states, as the other Henon-Heiles runs (one compilation for them all)
    sol, ref = both(HENON_HEILES, "stormer-verlet", Y_HH, 0.05, 7, 3, observe=energy)
    assert sol.observed.shape == ref.observed.shape == (8, 4)
    assert ulps(sol.observed, ref.observed) <= 16
    assert ulps(sol.y, ref.y) <= 8


def test_rk4_with_a_bound_constant_equals_numpy():
    sol, ref = both(PENDULUM, "rk4", [1.0, 0.3], 0.1, 25, 5, params={"k": 4.0})
    assert sol.y.shape == (6, 2)
    assert np.abs(sol.y - ref.y).max() <= 1e-14
    # the constant is used: k = 4 differs from the system's own k = 1
    other = ig.integrate(PENDULUM, "rk4", [1.0, 0.3], dt=0.1, steps=25, save_every=5, backend="jax")
    assert np.abs(other.y - sol.y).max() > 0.1


def test_time_dependent_system_equals_numpy():
    x, px, z, t = sympy.symbols("x p z t")
    forced = ig.ContactSystem(px**2 / 2 + x**2 / 2 + sympy.cos(t) * z / 5, x, px, z, t=t)
    sol, ref = both(forced, "contact-splitting-2-t", [1.0, 0.0, 0.0], 0.05, 40, 10, t0=0.3)
    np.testing.assert_array_equal(sol.t, ref.t)
    assert np.abs(sol.y - ref.y).max() <= 1e-14
    # the time is used: another start time gives another trajectory
    shifted = ig.integrate(forced, "contact-splitting-2-t", [1.0, 0.0, 0.0], dt=0.05, steps=40, save_every=10,
                           t0=1.3, backend="jax")
    assert np.abs(shifted.y - sol.y).max() > 1e-3


def test_gauss_legendre_on_a_nonlinear_system_equals_numpy():
    sol, ref = both(PENDULUM, "gauss-legendre-4", Y_PEND, 0.1, 20, 5, newton="full")
    assert np.abs(sol.y - ref.y).max() <= 1e-13
    # the same full-Newton work as numpy's solver: one solve per step, the same iterations
    assert sol.newton.solves == ref.newton.solves == 20
    assert sol.newton.iterations == ref.newton.iterations
    assert sol.newton.factorizations == ref.newton.factorizations
    assert sol.newton.mode == "full" and sol.newton.method == "newton"


def test_newton_failure_names_the_trajectories_and_the_step():
    # one iteration: the equilibrium's guess is the solution (converged), the two others are not
    with pytest.raises(NewtonConvergenceError) as info:
        ig.integrate(PENDULUM, "gauss-legendre-4", Y_PEND, dt=0.1, steps=20, save_every=5, max_iter=1,
                     newton="full", backend="jax")
    with pytest.raises(NewtonConvergenceError) as ref:
        ig.integrate(PENDULUM, "gauss-legendre-4", Y_PEND, dt=0.1, steps=20, save_every=5, max_iter=1,
                     newton="full", backend="numpy")
    assert info.value.trajectories == ref.value.trajectories == [1, 2]
    assert info.value.step == ref.value.step == 1
    assert "step 1" in str(info.value) and "1, 2" in str(info.value)


# ------------------------------------------------------------------------ gradients


def verlet_numpy(y0, k_value, dt, steps):
    """Stormer-Verlet (kick-drift-kick) on H = p^2/2 - k cos q, written out independently."""
    qq, pp = float(y0[0]), float(y0[1])
    for _ in range(steps):
        pp = pp - dt / 2 * k_value * np.sin(qq)
        qq = qq + dt * pp
        pp = pp - dt / 2 * k_value * np.sin(qq)
    return np.array([qq, pp])


def test_gradient_of_a_verlet_trajectory_matches_finite_differences():
    f = trajectory_function(PENDULUM, "stormer-verlet", dt=0.1, steps=20)
    y0, kv, eps = np.array([1.0, 0.2]), 2.0, 1e-6
    with jax.enable_x64(True):
        value = np.asarray(jax.jit(f)(jnp.asarray(y0), {"k": kv}))
        d_y0, d_params = jax.jit(jax.jacrev(f, argnums=(0, 1)))(jnp.asarray(y0), {"k": kv})
        forward = jax.jit(jax.jacfwd(f))(jnp.asarray(y0), jnp.array([kv]))
    assert np.abs(value - verlet_numpy(y0, kv, 0.1, 20)).max() <= 1e-14
    fd_y0 = np.stack([(verlet_numpy(y0 + eps * e, kv, 0.1, 20) - verlet_numpy(y0 - eps * e, kv, 0.1, 20)) / (2 * eps)
                      for e in np.eye(2)], axis=1)
    fd_k = (verlet_numpy(y0, kv + eps, 0.1, 20) - verlet_numpy(y0, kv - eps, 0.1, 20)) / (2 * eps)
    assert np.abs(np.asarray(d_y0) - fd_y0).max() <= 1e-8
    assert np.abs(np.asarray(d_params["k"]) - fd_k).max() <= 1e-8
    assert np.abs(np.asarray(forward) - fd_y0).max() <= 1e-8        # forward mode, params as an array
    # a symplectic map: det of the Jacobian of the flow map is 1
    assert abs(np.linalg.det(np.asarray(d_y0)) - 1) <= 1e-12


def test_gradient_through_the_implicit_stage_equations():
    f = trajectory_function(PENDULUM, "implicit-midpoint", dt=0.2, steps=10)
    y0, kv, eps = np.array([1.0, 0.2]), 2.0, 1e-6

    def numpy_run(y, kk):
        return ig.integrate(PENDULUM, "implicit-midpoint", y, dt=0.2, steps=10, save_every=10,
                            params={"k": kk}, newton="full", backend="numpy").y[-1]

    with jax.enable_x64(True):
        value = np.asarray(jax.jit(f)(jnp.asarray(y0), {"k": kv}))
        d_y0, d_params = jax.jit(jax.jacrev(f, argnums=(0, 1)))(jnp.asarray(y0), {"k": kv})
    assert np.abs(value - numpy_run(y0, kv)).max() <= 1e-13
    fd_y0 = np.stack([(numpy_run(y0 + eps * e, kv) - numpy_run(y0 - eps * e, kv)) / (2 * eps) for e in np.eye(2)],
                     axis=1)
    fd_k = (numpy_run(y0, kv + eps) - numpy_run(y0, kv - eps)) / (2 * eps)
    assert np.abs(np.asarray(d_y0) - fd_y0).max() <= 1e-7
    assert np.abs(np.asarray(d_params["k"]) - fd_k).max() <= 1e-7
    assert abs(np.linalg.det(np.asarray(d_y0)) - 1) <= 1e-10        # the midpoint rule is symplectic


def test_unsolved_stage_equations_give_nan_in_a_traced_trajectory():
    f = trajectory_function(PENDULUM, "implicit-midpoint", dt=0.2, steps=1, max_iter=1)
    with jax.enable_x64(True):
        run = jax.jit(f)
        assert np.isnan(np.asarray(run(jnp.array([1.0, 0.2])))).all()
        # at the equilibrium the guess solves the equations at once: a number, not nan
        np.testing.assert_array_equal(np.asarray(run(jnp.array([0.0, 0.0]))), [0.0, 0.0])


def test_saved_states_of_a_trajectory_function():
    f = trajectory_function(PENDULUM, "stormer-verlet", dt=0.1, steps=20, saved=True)
    with jax.enable_x64(True):
        states = np.asarray(jax.jit(f)(jnp.array([1.0, 0.2])))
    assert states.shape == (21, 2)
    assert np.abs(states[-1] - verlet_numpy([1.0, 0.2], 1.0, 0.1, 20)).max() <= 1e-14
    assert np.abs(states[7] - verlet_numpy([1.0, 0.2], 1.0, 0.1, 7)).max() <= 1e-14
    # an ensemble by jax.vmap, the constant shared (a sympy number on the system, a float here)
    half = ig.HamiltonianSystem(p**2 / 2 - k * sympy.cos(q), q, p, parameters={k: sympy.Rational(1, 2)})
    g = trajectory_function(half, "stormer-verlet", dt=0.1, steps=20)
    with jax.enable_x64(True):
        finals = np.asarray(jax.jit(jax.vmap(g))(jnp.array([[1.0, 0.2], [0.5, 0.0]])))
    assert np.abs(finals[0] - verlet_numpy([1.0, 0.2], 0.5, 0.1, 20)).max() <= 1e-14
    assert np.abs(finals[1] - verlet_numpy([0.5, 0.0], 0.5, 0.1, 20)).max() <= 1e-14


# ------------------------------------------------------------------------ bad input


def test_bad_input_of_trajectory_function():
    f = trajectory_function(PENDULUM, "stormer-verlet", dt=0.1, steps=2)
    with jax.enable_x64(True):
        with pytest.raises(ShapeError, match="shape"):
            f(jnp.array([1.0, 0.2, 0.0]))
        with pytest.raises(InvalidArgumentError, match="not a constant"):
            f(jnp.array([1.0, 0.2]), {"g": 1.0})
        with pytest.raises(ShapeError, match="params"):
            f(jnp.array([1.0, 0.2]), jnp.array([1.0, 2.0]))
        no_value = trajectory_function(ig.HamiltonianSystem(p**2 / 2 - k * sympy.cos(q), q, p), "stormer-verlet",
                                       dt=0.1, steps=2)
        with pytest.raises(InvalidArgumentError, match="no value for the constant"):
            no_value(jnp.array([1.0, 0.2]))
    if not jax.config.read("jax_enable_x64"):
        with pytest.raises(InvalidArgumentError, match="float64"):
            f(np.array([1.0, 0.2]))
    with pytest.raises(InvalidArgumentError, match="dt"):
        trajectory_function(PENDULUM, "stormer-verlet", dt=-0.1, steps=2)
    with pytest.raises(InvalidArgumentError, match="steps"):
        trajectory_function(PENDULUM, "stormer-verlet", dt=0.1, steps=-1)
    with pytest.raises(NotLowerableError, match="undefined function"):
        trajectory_function(ig.example_system("generic-1dof"), "stormer-verlet", dt=0.1, steps=2)


def test_bad_input_of_a_jax_run():
    with pytest.raises(NotLowerableError, match="undefined function"):
        ig.integrate(ig.example_system("generic-1dof"), "stormer-verlet", [1.0, 0.0], dt=0.1, steps=2, backend="jax")
    with pytest.raises(InvalidArgumentError, match="dps"):
        ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=2, backend="jax", dps=30)
    with pytest.raises(InvalidArgumentError, match="compensated"):
        ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=2, backend="jax", compensated=True)


def test_missing_jax_is_a_named_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(MissingDependencyError, match=r"geomcheck\[jax\]"):
        ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=2, backend="jax")
    with pytest.raises(MissingDependencyError, match=r"geomcheck\[jax\]"):
        trajectory_function(HENON_HEILES, "rk4", dt=0.1, steps=2)
