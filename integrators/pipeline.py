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
import sympy

import geomcheck as gc
from geomcheck.caches import Memo
from geomcheck.errors import InvalidArgumentError

from .backends import backend_for
from .compensated import increment_of
from .compiled import compiled_run, find_compiler
from .compiled_newton import compiled_newton_run
from .errors import CompiledPathWarning, NotLowerableError
from .linear_implicit import linear_implicit_step
from .matrix_step import MATRIX_NOTE, matrix_step
from .run_options import (C_LONG_LIMIT, RunOptions, check_count, check_dt, check_saved_size, check_t0, check_y0,
                          progress_bar)
from .solution import FiniteWatch, Solution
from .staged import lower_stages
from .stepping import Observer, Stepper

__all__ = ["CheckedRun", "check_run", "choose_runner", "run_pipeline", "saved_steps_of", "auto_choice", "AutoChoice",
           "step_operations", "AUTO_MIN_SECONDS"]


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


#: backend="auto" compiles only a run the numpy path is estimated to take at least this long on
AUTO_MIN_SECONDS = 5.0
#: the cost model of backend="auto" (seconds, measured on the reference machine of the benchmarks):
#: the numpy path pays the interpreter per array operation and then per element; the C loop per
#: element; a build runs the compiler once per distinct step map (a cached library costs less)
NUMPY_SECONDS_PER_OPERATION = 2.0e-6
NUMPY_SECONDS_PER_ELEMENT = 3.0e-9
C_SECONDS_PER_ELEMENT = 2.0e-10
BUILD_SECONDS = 0.5
BUILD_SECONDS_PER_OPERATION = 4.5e-3
#: an implicit step: Newton's method evaluates the stage equations and their Jacobian about this
#: many times per step (about four iterations of residual and Jacobian), on either path
NEWTON_EVALUATIONS = 8
#: the numpy path's Newton iteration also pays the interpreter for its linear solve and its
#: convergence test, whatever the size of the equations (about 0.1 ms per iteration of a single
#: trajectory: Guo et al.'s pendulum, 5e4 implicit-midpoint steps of 3.44 iterations in 18.4 s on
#: numpy, docs/benchmarks.md); it takes about half as many iterations as evaluations
NUMPY_SECONDS_PER_NEWTON_ITERATION = 1.0e-4
#: backend="auto" runs Newton's method in C only for a run the numpy path is estimated to take at
#: least this long (the C Newton is built with the Jacobian: a longer build than an explicit step's)
AUTO_MIN_SECONDS_IMPLICIT = 10.0

#: step map -> (the map, its operation count): read by backend="auto" at every run
_OPERATIONS = Memo("integrators.pipeline.operations", 256)


def step_operations(stages) -> tuple[int, int]:
    """``(per step, distinct)``: the operations of one step (every stage) and of the distinct stage maps.

    An operation is a distinct compound subexpression of a stage map (what the generated code
    evaluates once common subexpressions are shared).

    >>> import sympy, geomcheck as gc
    >>> from integrators.schemes.base import Stage
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> step_operations([Stage(gc.Map(M, M, [q + h * p, p - h * q]))] * 2)    # h*p, q + h*p, -h*q, p - h*q
    (8, 4)
    """
    per_step, distinct = 0, {}
    for st in stages:
        count = _map_operations(st.map)
        per_step += count
        distinct[id(st.map)] = count
    return per_step, sum(distinct.values())


def _map_operations(step_map) -> int:
    """The operations of a map's expressions (an implicit map's equations), counted once per map."""
    key = id(step_map)
    hit = _OPERATIONS.get(key)
    if hit is None or hit[0] is not step_map:
        exprs = step_map.equations if isinstance(step_map, gc.ImplicitMap) else step_map.exprs
        hit = (step_map, _count_operations(exprs))
        _OPERATIONS.put(key, hit)     # maps are immutable; the entry keeps the map alive
    return hit[1]


def _count_operations(exprs) -> int:
    seen, stack = set(), [sympy.sympify(e) for e in exprs]
    while stack:
        e = stack.pop()
        if e in seen or not e.args:
            continue
        seen.add(e)
        stack.extend(e.args)
    return max(1, len(seen))


@dataclass(frozen=True)
class AutoChoice:
    """What backend="auto" chose (``path``: "compiled" or "numpy"), why (``reason``), and whether a long run
    is left on numpy although the model wanted C (``wanted_compiled``)."""

    path: str
    reason: str
    wanted_compiled: bool = False


def auto_choice(stages, options: RunOptions, run: CheckedRun, step=None, time=None) -> AutoChoice:
    """The choice of backend="auto" between the compiled C loop and the numpy path.

    The cost model (estimated work = batch x steps x operations per step, :func:`step_operations`):

    * numpy: ``steps * ops * (NUMPY_SECONDS_PER_OPERATION + batch * NUMPY_SECONDS_PER_ELEMENT)``;
    * compiled: ``BUILD_SECONDS + BUILD_SECONDS_PER_OPERATION * distinct ops`` (the compiler, once)
      ``+ steps * batch * ops * C_SECONDS_PER_ELEMENT``.

    Compiled when a C compiler is present, the step is explicit and in double precision (not
    compensated, no hand-written kernel), the numpy estimate is at least :data:`AUTO_MIN_SECONDS`
    and more than twice the compiled one (so a short run, a test, stays on numpy and compiles
    nothing); numpy otherwise.  mpmath is never chosen: the precision decides it.

    An implicit step of one autonomous stage: both estimates times :data:`NEWTON_EVALUATIONS`,
    the numpy one plus :data:`NUMPY_SECONDS_PER_NEWTON_ITERATION` per iteration
    (``NEWTON_EVALUATIONS / 2`` of them per step), the build twice an explicit one's; ``"compiled-newton"`` (Newton's method in C,
    :mod:`integrators.compiled_newton`) when the numpy estimate is at least
    :data:`AUTO_MIN_SECONDS_IMPLICIT` and more than twice the compiled one.  (A step that is
    linear in the state is then still run by its factorization, without Newton: see
    :func:`choose_runner`.)
    """
    if run.arithmetic.name != "numpy":
        return AutoChoice("numpy", "multiprecision arithmetic runs on the mpmath path")
    if step is not None or options.compensated:
        return AutoChoice("numpy", "a hand-written kernel or compensated summation runs on the numpy path")
    if run.steps == 0:
        return AutoChoice("numpy", "no steps to run")
    if not all(isinstance(st.map, gc.Map) for st in stages):
        return _implicit_choice(stages, run, time)
    batch = run.Y.shape[0]
    dim = run.Y.shape[1]
    # a first screen without looking at the map: every step evaluates at least one operation per coordinate
    lower_bound = run.steps * len(stages) * dim * (NUMPY_SECONDS_PER_OPERATION + batch * NUMPY_SECONDS_PER_ELEMENT)
    if lower_bound < AUTO_MIN_SECONDS / 50:
        return AutoChoice("numpy", f"a short run (steps x batch x dim = {run.steps * batch * dim:.3g}): the numpy path,"
                                   " nothing compiled")
    ops, distinct = step_operations(stages)
    t_numpy = run.steps * ops * (NUMPY_SECONDS_PER_OPERATION + batch * NUMPY_SECONDS_PER_ELEMENT)
    t_c = BUILD_SECONDS + BUILD_SECONDS_PER_OPERATION * distinct + run.steps * batch * ops * C_SECONDS_PER_ELEMENT
    estimate = (f"estimated work {run.steps * batch * ops:.3g} operations (steps {run.steps} x batch {batch} x"
                f" {ops} per step): numpy ~{t_numpy:.3g} s, compiled ~{t_c:.3g} s with the build")
    if t_numpy < AUTO_MIN_SECONDS or t_numpy <= 2 * t_c:
        return AutoChoice("numpy", estimate)
    if run.steps >= C_LONG_LIMIT or run.save_every >= C_LONG_LIMIT:
        return AutoChoice("numpy", f"{estimate}; steps beyond the compiled loop's range", True)
    if find_compiler() is None:
        return AutoChoice("numpy", f"{estimate}; no C compiler found (set $CC)", True)
    return AutoChoice("compiled", estimate)


def _implicit_choice(stages, run: CheckedRun, time) -> AutoChoice:
    if len(stages) != 1 or time is not None or not isinstance(stages[0].map, gc.ImplicitMap) \
            or sympy.sympify(stages[0].factor) != 1:
        return AutoChoice("numpy", "an implicit step of several stages, or of a time-dependent system: Newton's"
                                   " method on the numpy path")
    batch = run.Y.shape[0]
    ops = _map_operations(stages[0].map)
    work = run.steps * NEWTON_EVALUATIONS * ops
    t_numpy = (work * (NUMPY_SECONDS_PER_OPERATION + batch * NUMPY_SECONDS_PER_ELEMENT)
               + run.steps * NEWTON_EVALUATIONS / 2 * NUMPY_SECONDS_PER_NEWTON_ITERATION)
    t_c = 2 * (BUILD_SECONDS + BUILD_SECONDS_PER_OPERATION * ops) + work * batch * C_SECONDS_PER_ELEMENT
    estimate = (f"an implicit step, {ops} operations in its equations, about {NEWTON_EVALUATIONS} evaluations per"
                f" step: numpy ~{t_numpy:.3g} s, Newton's method in C ~{t_c:.3g} s with the build")
    if t_numpy < AUTO_MIN_SECONDS_IMPLICIT or t_numpy <= 2 * t_c or run.steps >= C_LONG_LIMIT \
            or run.save_every >= C_LONG_LIMIT or find_compiler() is None:
        return AutoChoice("numpy", estimate)
    return AutoChoice("compiled-newton", estimate)


def choose_runner(stages, coords, scalars, base, time, options: RunOptions, run: CheckedRun, step=None):
    """``(runner, path, note)``: what runs the steps, which path that is, and the library or why not compiled.

    ``step``: a ready step (a system's kernel) instead of the one lowered from ``stages``.
    backend="auto": :func:`auto_choice` decides, and ``note`` says what it chose and why.
    """
    arithmetic = run.arithmetic
    note = None
    explicit = all(isinstance(st.map, gc.Map) for st in stages)
    if step is None and explicit and options.linear_solve == "matrix":
        # asked for: the step's matrix, formed once (integrators.matrix_step); numpy only
        if options.backend not in ("auto", "numpy") or options.compensated or time is not None:
            raise InvalidArgumentError(
                f"linear_solve='matrix' runs an explicit step as its matrix in double precision, for an autonomous"
                f" system and without compensated summation (got backend={options.backend!r},"
                f" compensated={options.compensated}, time-dependent: {time is not None})")
        step = matrix_step(stages, scalars, len(coords))
        if step is None:
            raise InvalidArgumentError("linear_solve='matrix': the step map is not linear and homogeneous in the state,"
                                       " so it has no matrix; leave linear_solve='auto'")
        runner = Stepper(step, base, arithmetic, options.solver_options(), run.t0, run.dt, False)
        return runner, arithmetic.name, MATRIX_NOTE
    if options.backend == "auto":
        choice = auto_choice(stages, options, run, step, time)
        if choice.path == "compiled":
            try:
                runner = compiled_run(stages, scalars, time, base, run.t0)
                return runner, "compiled", f"auto: compiled ({choice.reason}); library {runner.library}"
            except NotLowerableError as exc:      # CompilerUnavailableError included
                choice = AutoChoice("numpy", f"{choice.reason}; the compiled path could not run: {exc}", True)
        elif choice.path == "compiled-newton":
            if linear_implicit_step(stages[0].map, scalars) is not None:
                choice = AutoChoice("numpy", "a step linear in the state: one factorization, no Newton")
            else:
                try:
                    runner = compiled_newton_run(stages, scalars, time, base, tol=options.tol,
                                                 max_iter=options.max_iter, newton=options.newton)
                    return runner, "compiled", (f"auto: Newton's method in C ({choice.reason}); library"
                                                f" {runner.library}")
                except NotLowerableError as exc:
                    # the numpy Newton is the established path of implicit steps: no warning
                    choice = AutoChoice("numpy", f"{choice.reason}; Newton's method in C could not run: {exc}")
        note = f"auto: numpy ({choice.reason})"
        if choice.wanted_compiled:
            warnings.warn(f"integrate: a long run on the numpy path (backend='auto'): {choice.reason}",
                          CompiledPathWarning, stacklevel=4)
    if options.backend == "jax":
        from .jax_backend import jax_run     # lazily: jax is an optional dependency

        runner = jax_run(stages, scalars, time, base, run.t0, options.solver_options())
        return runner, "jax", runner.device
    if options.backend == "compiled":
        explicit = all(isinstance(st.map, gc.Map) for st in stages)
        try:
            if explicit:
                runner = compiled_run(stages, scalars, time, base, run.t0)
            else:
                # one implicit stage: Newton's method in C, the stage Jacobian's band structure used
                runner = compiled_newton_run(stages, scalars, time, base, tol=options.tol,
                                             max_iter=options.max_iter, newton=options.newton)
            return runner, "compiled", runner.library
        except NotLowerableError as exc:      # CompilerUnavailableError included
            note = str(exc)
        warnings.warn(f"integrate: the numpy path ran instead of the compiled one: {note}", CompiledPathWarning,
                      stacklevel=4)
    if step is None and arithmetic.name in ("numpy", "mpmath") and not options.compensated and len(stages) == 1 \
            and time is None and not explicit:
        # a linear implicit step: A factored once per step size, no Newton (None when not linear); its form
        # (the increment matrix, or a solve per step) by linear_implicit.resolve_form, recorded in the note
        step = linear_implicit_step(stages[0].map, scalars)
        if step is not None:
            step = step.with_form(options.linear_solve)
            described = step.description(arithmetic.name == "mpmath")
            note = described if note is None else f"{note}; {described}"
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
