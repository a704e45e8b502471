"""The step protocol and the one run loop every Python-side step goes through.

A **step** is what a scheme's step map becomes once lowered: a lowered map
(:class:`integrators.lower.LoweredStep`), the stages of a composition
(:class:`integrators.staged.StagedStep`), a linear implicit step factored once
(:class:`integrators.linear_implicit.LinearImplicitStep`), a system's hand-written kernel
(:class:`integrators.kernels.KernelStep`).  Each has ``parameters`` (the scalars bound at run
time, ``h`` first), ``explicit``, and ``bind(values, **solver_options)`` giving a **bound
step** with ``step(y, step_index)`` (the state as one column per coordinate) and
``step_array(Y)`` (a ``(batch, dim)`` array).  The compiled path
(:class:`integrators.compiled.CompiledRun`) runs the loop itself in C and offers the same
``run`` as :class:`Stepper`.

:class:`Stepper` is the loop: it binds the step (again at every step for a time-dependent
system), advances plainly or by compensated summation, saves the states the run keeps,
shows every state to the ``observe`` function, and updates the progress bar.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence, runtime_checkable

import mpmath
import numpy as np

from geomcheck.errors import InvalidArgumentError, NonRealValueError

from .newton import COUNTS, DEFAULT_NEWTON, NewtonRecord

__all__ = ["Step", "BoundStep", "Stepper", "Observer", "observation_block"]


@runtime_checkable
class BoundStep(Protocol):
    """A step with its scalars bound."""

    def step(self, y: list, step_index: int | None = None) -> list:
        """One step of the column state (numpy: ``dim`` arrays ``(batch,)``; mpmath: ``dim`` lists of mpf)."""

    def step_array(self, Y: Any) -> Any:
        """One step of a ``(batch, dim)`` array."""


@runtime_checkable
class Step(Protocol):
    """A lowered step map: bind its scalars to get a :class:`BoundStep`."""

    parameters: tuple
    explicit: bool

    def bind(self, values: Any, **solver_options: Any) -> BoundStep:
        """``values``: ``{symbol: number}`` or a sequence in ``parameters`` order; ``solver_options``: Newton's."""


#: states observed at once: about 32 MiB of doubles per block
OBSERVED_VALUES_PER_BLOCK = 2**22


def observation_block(batch: int, dim: int, steps: int) -> int:
    """How many consecutive states are handed to ``observe`` at once."""
    return max(1, min(steps + 1, 4096, OBSERVED_VALUES_PER_BLOCK // max(1, batch * dim)))


class Observer:
    """Collects ``observe(t, Y)`` over every state of a run, in blocks of consecutive states.

    ``observe`` receives the times ``t`` of shape ``(n,)`` and the states ``Y`` of shape
    ``(n, batch, dim)`` (``(n, dim)`` for a single trajectory) and returns an array whose
    first axis has length ``n``.
    """

    def __init__(self, observe: Callable, arithmetic, batch: int, dim: int, steps: int, single: bool, t0, dt):
        if not callable(observe):
            raise InvalidArgumentError(f"observe must be a function observe(t, y), got {observe!r}")
        self.observe, self.arithmetic, self.single = observe, arithmetic, single
        self.t0, self.dt = t0, dt
        self.size = observation_block(batch, dim, steps)
        self.block = arithmetic.saved_buffer(self.size, batch, dim)
        self.first, self.filled = 0, 0
        self.results: list = []

    def add(self, y: list, n: int) -> None:
        """The column state at step ``n`` (steps arrive in order)."""
        if self.filled == 0:
            self.first = n
        self.arithmetic.store(self.block[self.filled], y)
        self.filled += 1
        if self.filled == self.size:
            self.flush()

    def add_rows(self, Y: np.ndarray, first: int) -> None:
        """Consecutive states ``Y[k]`` (``(n, batch, dim)``) at steps ``first + k`` (the compiled loop's blocks)."""
        self.flush()
        self._emit(Y, first)

    def flush(self) -> None:
        if self.filled:
            self._emit(self.block[:self.filled], self.first)
            self.filled = 0

    def _emit(self, Y: np.ndarray, first: int) -> None:
        steps = np.arange(first, first + len(Y), dtype=np.int64)
        t = self.arithmetic.times(self.t0, self.dt, steps)
        states = Y[:, 0, :].copy() if self.single else Y.copy()
        value = np.asarray(self.observe(t, states))
        if value.ndim == 0 or value.shape[0] != len(Y):
            raise InvalidArgumentError(f"observe(t, y) must return an array whose first axis has one entry per state"
                                       f" ({len(Y)} here); it returned shape {value.shape}")
        self.results.append(value)

    def result(self) -> np.ndarray:
        self.flush()
        return np.concatenate(self.results)


class Stepper:
    """The run loop of a Python-side step.

    Parameters
    ----------
    step : Step
    values : list
        The scalars in ``step.parameters`` order, without the time (``h`` first).
    arithmetic : DoublePrecision or Multiprecision (:mod:`integrators.backends`)
    solver_options : dict
        Passed to ``step.bind`` (Newton's tolerance, iterations, mode, digits).
    t0, dt
        Start time and step size (the time of step ``n`` is ``t0 + n dt``).
    time_dependent : bool
        Bind the step at every step with its time appended to ``values``.
    increment : callable, optional
        ``increment(bound, y, step_index)``: advance by Kahan-summed increments
        (:mod:`integrators.compensated`) instead of the step's own new state.
    """

    def __init__(self, step, values: Sequence, arithmetic, solver_options: dict, t0, dt, time_dependent: bool,
                 increment=None):
        self.step, self.values, self.arithmetic = step, list(values), arithmetic
        self.solver_options, self.t0, self.dt = solver_options, t0, dt
        self.time_dependent, self.increment = time_dependent, increment
        self.bound = None if time_dependent else step.bind(self.values, **solver_options)
        self._last_bound = self.bound
        self._retired: dict | None = None     # the counts of stage solvers bound for earlier steps

    def bound_at(self, n: int):
        """The step bound for the step from ``n`` to ``n + 1``."""
        if not self.time_dependent:
            return self.bound
        if self._last_bound is not None and not self.step.explicit:
            retired = NewtonRecord.of("", self._last_bound.solvers(), self._retired)
            self._retired = {key: getattr(retired, key) for key in COUNTS}
        self._last_bound = self.step.bind(self.values + [self.arithmetic.time_at(self.t0, self.dt, n)],
                                          **self.solver_options)
        return self._last_bound

    def newton_record(self) -> NewtonRecord | None:
        """How the implicit stage equations were solved (None for an explicit step)."""
        if self.step.explicit:
            return None
        mode = self.solver_options.get("newton", DEFAULT_NEWTON)
        bound = self._last_bound
        if bound is not None and getattr(bound, "linear", False):
            return NewtonRecord(mode, "linear", factorizations=1)
        solvers = [] if bound is None else bound.solvers()
        return NewtonRecord.of(mode, solvers, self._retired)

    def run(self, Y: np.ndarray, saved_steps: np.ndarray, out: np.ndarray, watch, bar=None, observer=None) -> None:
        """Run from ``Y`` (``(batch, dim)``) to step ``saved_steps[-1]``, filling ``out[k]`` at ``saved_steps[k]``."""
        arithmetic = self.arithmetic
        batch, dim = Y.shape
        y = arithmetic.columns(Y)
        c = arithmetic.zeros(batch, dim) if self.increment is not None else None
        steps = int(saved_steps[-1])
        k = 0
        next_saved = int(saved_steps[0])
        for n in range(steps + 1):
            if observer is not None:
                observer.add(y, n)
            if n == next_saved:
                arithmetic.store(out[k], y)
                watch.saved(out[k], n)
                k += 1
                if n == steps:
                    break
                next_saved = int(saved_steps[k])
            bound = self.bound_at(n)
            try:
                if self.increment is not None:
                    y, c = arithmetic.kahan_add(y, c, self.increment(bound, y, n + 1))
                else:
                    y = bound.step(y, step_index=n + 1)
            except NonRealValueError as exc:
                t_n = arithmetic.time_at(self.t0, self.dt, n)
                raise NonRealValueError(f"{exc} (the step from t = {mpmath.nstr(t_n, 10)})", step=exc.step,
                                        trajectory=exc.trajectory, coordinate=exc.coordinate, value=exc.value,
                                        time=t_n) from exc.__cause__
            if bar is not None:
                bar.update(n + 1)
