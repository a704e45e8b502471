"""The run pipeline shared by :func:`integrators.integrate` and :func:`integrators.run_map`.

check (:func:`check_run`) -> choose the step and its loop (:func:`choose_runner`) -> run the
loop -> one :class:`~integrators.solution.Solution`.  The entry points differ only in where
the step map comes from (a scheme on a system, or a map given as is) and in the checks that
need a system (the constraint manifold, the stability bound).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import geomcheck as gc
from geomcheck.errors import InvalidArgumentError

from .backends import backend_for
from .compensated import increment_of
from .compiled import compiled_run
from .errors import CompiledPathWarning, NotLowerableError
from .linear_implicit import linear_implicit_step
from .run_options import (C_LONG_LIMIT, RunOptions, check_count, check_dt, check_saved_size, check_t0, check_y0,
                          progress_bar)
from .solution import FiniteWatch, Solution
from .staged import lower_stages
from .stepping import Observer, Stepper

__all__ = ["CheckedRun", "check_run", "choose_runner", "run_pipeline", "saved_steps_of"]


@dataclass(frozen=True)
class CheckedRun:
    """The checked inputs of a run: the initial states ``Y`` ``(batch, dim)``, ``single``, the counts,
    the step size and start time in the run's arithmetic."""

    Y: np.ndarray
    single: bool
    steps: int
    save_every: int
    dt: Any
    t0: Any
    arithmetic: Any


def check_run(y0, dim: int, coords, dt, steps, save_every, t0, options: RunOptions) -> CheckedRun:
    """Check the run's inputs (named errors, before anything is allocated or generated)."""
    arithmetic = backend_for(options.precision, options.dps)
    steps = check_count(steps, "steps", 0)
    save_every = check_count(save_every, "save_every", 1)
    if options.backend == "compiled":
        for name, count in (("steps", steps), ("save_every", save_every)):
            if count >= C_LONG_LIMIT:   # a C long: beyond it the loop's counters wrap around
                raise InvalidArgumentError(f"{name}={count} is beyond the compiled loop's range (< 2**62)")
    dt_value = check_dt(dt, arithmetic.name, options.dps)
    Y, single = check_y0(y0, dim, arithmetic.name, options.dps, coords)
    check_saved_size(steps, save_every, Y.shape[0], dim, arithmetic.name)
    t0 = check_t0(t0, arithmetic.name, options.dps)
    return CheckedRun(Y, single, steps, save_every, dt_value, t0, arithmetic)


def saved_steps_of(steps: int, save_every: int) -> np.ndarray:
    """Steps 0, save_every, 2 save_every, ... and the last one."""
    # an array, not a list: 10**7 saved steps as Python ints would take 360 MB beside the output
    saved = np.arange(0, steps + 1, save_every, dtype=np.int64)
    return saved if saved[-1] == steps else np.append(saved, np.int64(steps))


def choose_runner(stages, coords, scalars, base, time, options: RunOptions, run: CheckedRun, step=None):
    """``(runner, path, note)``: what runs the steps, which path that is, and the library or why not compiled.

    ``step``: a ready step (a system's kernel) instead of the one lowered from ``stages``.
    """
    arithmetic = run.arithmetic
    note = None
    if options.backend == "compiled":
        try:
            runner = compiled_run(stages, scalars, time, base, run.t0)
            return runner, "compiled", runner.library
        except NotLowerableError as exc:      # CompilerUnavailableError included
            note = str(exc)
        warnings.warn(f"integrate: the numpy path ran instead of the compiled one: {note}", CompiledPathWarning,
                      stacklevel=4)
    explicit = all(isinstance(st.map, gc.Map) for st in stages)
    if step is None and arithmetic.name == "numpy" and not options.compensated and len(stages) == 1 \
            and time is None and not explicit:
        # a linear implicit step: A factored once per step size, no Newton (None when not linear)
        step = linear_implicit_step(stages[0].map, scalars)
    if step is None:
        step = lower_stages(stages, backend=arithmetic.name, parameters=scalars, time=time)
    increment = increment_of(step, stages, coords, scalars, arithmetic) if options.compensated else None
    runner = Stepper(step, base, arithmetic, options.solver_options(), run.t0, run.dt, time is not None, increment)
    return runner, arithmetic.name, note


def run_pipeline(run: CheckedRun, stages, coords, scalars, constants, time, options: RunOptions,
                 observe: Callable | None = None, *, system=None, scheme=None, parameters=None, step=None) -> Solution:
    """Run ``stages`` from the checked inputs and return the Solution.

    Parameters
    ----------
    run : CheckedRun
    stages : sequence of Stage
    coords : the state's coordinates, in the order of ``run.Y``'s columns
    scalars : list of Symbol
        The step size first, then the constants, then the time (if ``time``).
    constants : list
        The constants' values (in ``scalars`` order, after the step size).
    time : Symbol or None
    options : RunOptions
    observe : callable, optional (see :func:`integrators.integrate`)
    system, scheme, parameters : what the Solution records
    step : a ready step (a system's kernel), optional
    """
    arithmetic = run.arithmetic
    base = [run.dt] + [arithmetic.value(v) for v in constants]
    batch = run.Y.shape[0]
    observer = None if observe is None else Observer(observe, arithmetic, *run.Y.shape, run.steps, run.single,
                                                      run.t0, run.dt)
    runner, path, note = choose_runner(stages, coords, scalars, base, time, options, run, step)
    saved_steps = saved_steps_of(run.steps, run.save_every)
    out = arithmetic.saved_buffer(len(saved_steps), *run.Y.shape)
    watch = FiniteWatch(batch, coords)
    bar = progress_bar(options.progress, run.steps)
    try:
        runner.run(run.Y, saved_steps, out, watch, bar, observer)
    finally:
        if bar is not None:
            bar.close()
    times = arithmetic.times(run.t0, run.dt, saved_steps)
    watch.report(times, saved_steps)
    return Solution(times, out[:, 0, :] if run.single else out, system, scheme, arithmetic.name, options.dps, run.dt,
                    run.steps, run.save_every, parameters or {}, run.single, path, note,
                    None if observer is None else observer.result(), runner.newton_record())
