"""``run_map``: run a step map given as is (a ``gc.Map``, a ``gc.ImplicitMap``, or stages of them).

:func:`integrators.integrate` runs a catalog scheme on a system; a paper's own scheme is often
just its step map, built and certified in geomcheck (an extended map, a discrete Euler-Lagrange
map, a composition with its own coefficients).  ``run_map`` runs such a map through the same
pipeline (:mod:`integrators.pipeline`): the same checks, lowering, Newton solver, compiled path,
compensated summation, ``observe`` hook and :class:`~integrators.solution.Solution` (with no
system: ``energy()`` needs one, ``observe`` computes what the map's user needs).

>>> import sympy, numpy as np, geomcheck as gc
>>> from integrators.run_map import run_map
>>> M = gc.Chart("q p"); q, p = M.coords; h, k = sympy.symbols("h k")
>>> euler_b = gc.Map(M, M, [q + h * (p - h * k * q), p - h * k * q])     # symplectic Euler, V = k q^2 / 2
>>> sol = run_map(euler_b, [1.0, 0.0], dt=0.1, steps=20, save_every=20, params={k: 1.0},
...               observe=lambda t, y: (y[:, 1]**2 + y[:, 0]**2) / 2)
>>> sol.y.shape, sol.observed.shape
((2, 2), (21,))
>>> bool(np.abs(sol.observed - 0.5).max() < 0.03)        # a bounded energy error
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy

import geomcheck as gc
from geomcheck.errors import InvalidArgumentError

from .pipeline import check_run, run_pipeline
from .run_options import check_options, is_finite_real
from .schemes.base import Stage
from .solution import Solution
from .systems import STEP_SYMBOL

__all__ = ["run_map"]


def _stages_of(step_map) -> tuple:
    if isinstance(step_map, (gc.Map, gc.ImplicitMap)):
        return (Stage(step_map),)
    if isinstance(step_map, Sequence) and step_map and all(isinstance(st, Stage) for st in step_map):
        return tuple(step_map)
    raise InvalidArgumentError(f"run_map runs a geomcheck Map or ImplicitMap of a chart to itself, or a sequence of"
                               f" integrators.schemes.base.Stage; got {type(step_map).__name__} {step_map!r}")


def run_map(step_map: Any, y0: Any, *, dt: Any, steps: int, step: sympy.Symbol | None = None,
            params: Mapping[sympy.Symbol, Any] | None = None, time: sympy.Symbol | None = None, t0: Any = 0,
            save_every: int = 10, backend: str = "auto", dps: int | None = None, tol: Any = None,
            max_iter: int = 50, newton: str = "auto", compensated: bool = False, progress: bool | None = None,
            observe: Callable | None = None, linear_solve: str = "auto") -> Solution:
    """Run ``step_map`` from ``y0`` for ``steps`` steps of size ``dt``.

    Parameters
    ----------
    step_map : gc.Map, gc.ImplicitMap, or a sequence of Stage
        The step of a chart to itself (the state's coordinates are the chart's, in its order).
        Stages are applied in order, each with the step ``factor * h`` (and time ``t + offset h``).
    y0 : array_like, shape (dim,) or (batch, dim)
    dt, steps, save_every, t0, backend, dps, tol, max_iter, newton, compensated, progress, observe, linear_solve
        As for :func:`integrators.integrate` (no stability check: there is no system to check against);
        ``backend="auto"`` (default) compiles a long explicit run and runs a short one on numpy.
    step : Symbol, optional
        The step-size symbol of the map (default: the map's own ``step``, else ``h``).
    params : dict, optional
        ``{Symbol: number}`` for every other constant of the map.
    time : Symbol, optional
        The time symbol of a time-dependent map (its value at step ``n`` is ``t0 + n dt``).

    Returns
    -------
    Solution (``system`` and ``scheme`` None)

    Raises
    ------
    InvalidArgumentError
        A map that is not a step of one chart, a constant without a value, a value for a symbol
        the map does not have, or bad run options (as for ``integrate``).
    """
    stages = _stages_of(step_map)
    first = stages[0].map
    coords = tuple(first.source.coords)
    for st in stages:
        if tuple(st.map.source.coords) != coords or tuple(st.map.target.coords) != coords:
            raise InvalidArgumentError(f"run_map: every stage must map the chart ({', '.join(map(str, coords))}) to"
                                       f" itself; {st.map!r} does not")
    step = step if step is not None else (getattr(first, "step", None) or STEP_SYMBOL)
    params = dict(params or {})
    if not isinstance(step, sympy.Symbol) or step in params or (time is not None and (time in params or time == step)):
        raise InvalidArgumentError(f"run_map: step={step!r} must be a Symbol, distinct from the time and the params")
    symbols = set()
    for st in stages:
        exprs = st.map.exprs if isinstance(st.map, gc.Map) else st.map.equations
        symbols |= set().union(*(e.free_symbols for e in exprs))
        if isinstance(st.map, gc.ImplicitMap):
            symbols -= set(st.map.unknowns)
    constants = sorted(symbols - set(coords) - {step, time}, key=lambda s: s.name)
    missing = [s for s in constants if s not in params]
    unknown = [s for s in params if s not in constants]
    if missing or unknown:
        raise InvalidArgumentError(
            f"run_map: params must give a value to each constant of the map ({', '.join(map(str, constants)) or 'none'})"
            f"{'; missing ' + ', '.join(map(str, missing)) if missing else ''}"
            f"{'; not in the map ' + ', '.join(map(str, unknown)) if unknown else ''}")
    for s, v in params.items():
        if not is_finite_real(v) or (isinstance(v, sympy.Basic) and not v.is_number):
            raise InvalidArgumentError(f"run_map: the value {v!r} of {s} is not a finite real number")
    options = check_options(backend, dps, tol, max_iter, newton, compensated, progress, check_stability=False,
                            linear_solve=linear_solve)
    run = check_run(y0, len(coords), coords, dt, steps, save_every, t0, options)
    scalars = [step, *constants] + ([time] if time is not None else [])
    return run_pipeline(run, stages, coords, scalars, [params[s] for s in constants], time, options, observe,
                        parameters={s: params[s] for s in constants})
