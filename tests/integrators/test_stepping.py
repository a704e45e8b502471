"""The step protocol: every kind of lowered step binds and steps the same way."""

import numpy as np
import pytest
import sympy

import integrators as ig
from integrators.backends import backend_for
from integrators.kernels import kernel_step
from integrators.linear_implicit import linear_implicit_step
from integrators.lower import lower
from integrators.staged import lower_scheme
from integrators.stepping import BoundStep, Step, Stepper
from integrators.systems import STEP_SYMBOL

q, p = sympy.symbols("q p")
OSC = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)


def _steps():
    pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
    with_kernel = ig.with_kernel(pendulum, lambda Y, params: np.column_stack([Y[:, 1], -np.sin(Y[:, 0])]))
    return {
        "lowered": lower(ig.scheme("stormer-verlet").step_map(pendulum), parameters=[STEP_SYMBOL]),
        "staged": lower_scheme("yoshida-4", pendulum),
        "linear-implicit": linear_implicit_step(ig.scheme("implicit-midpoint").step_map(OSC), [STEP_SYMBOL]),
        "kernel": kernel_step("stormer-verlet", with_kernel),
    }


@pytest.mark.parametrize("kind", ["lowered", "staged", "linear-implicit", "kernel"])
def test_every_step_kind_follows_the_protocol(kind):
    step = _steps()[kind]
    assert isinstance(step, Step)
    bound = step.bind([0.1], tol=None, max_iter=50, dps=None, newton="full")
    assert isinstance(bound, BoundStep)
    Y = np.array([[1.0, 0.0], [0.5, 0.25]])
    by_array = bound.step_array(Y)
    by_columns = np.column_stack(bound.step([Y[:, 0].copy(), Y[:, 1].copy()], step_index=1))
    assert np.array_equal(by_array, by_columns)


def test_stepper_is_the_loop_of_integrate():
    """The loop run by hand through Stepper gives integrate's states bit for bit."""
    step = _steps()["staged"]
    arithmetic = backend_for("numpy")
    stepper = Stepper(step, [0.05], arithmetic, {}, 0.0, 0.05, False)
    saved = np.array([0, 4, 8, 9])
    out = arithmetic.saved_buffer(4, 1, 2)

    class Watch:
        def saved(self, state, n):
            pass

    stepper.run(np.array([[1.0, 0.0]]), saved, out, Watch())
    pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
    sol = ig.integrate(pendulum, "yoshida-4", [1.0, 0.0], dt=0.05, steps=9, save_every=4)
    assert np.array_equal(out[:, 0, :], sol.y)
