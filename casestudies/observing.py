"""Quantities along a run, evaluated with the lowering the steps use.

A case study measures things along its runs: energies and constraints at every state (the
``observe`` hook of :func:`integrators.run_map` and :func:`integrators.integrate`), quantities
of one step that need both of its ends (a discrete constraint, the power at the midpoint), and
values at the saved states.  The expressions are lowered once by
:func:`integrators.codegen.lower_expressions` (scalars hoisted, common subexpressions shared),
for numpy arrays of states or for mpmath states.

>>> import numpy as np, sympy
>>> q, p, k = sympy.symbols("q p k")
>>> energy = expressions_on_states([(p**2 + k * q**2) / 2], [q, p], [k], [4.0])
>>> energy(np.array([[1.0, 0.0], [0.0, 1.0]]))
array([[2. , 0.5]])
>>> change = observe_steps(lambda before, after: energy(after)[0] - energy(before)[0])
>>> change(np.arange(2.0), np.array([[1.0, 0.0], [0.0, 1.0]]))
array([ nan, -1.5])
"""

from __future__ import annotations

from typing import Callable

import mpmath
import numpy as np
import sympy

from integrators.backends import backend_for
from integrators.codegen import lower_expressions

__all__ = ["expressions_on_states", "observe_steps"]


def _mpf(v, dps):
    return v if isinstance(v, mpmath.mpf) else mpmath.mpf(sympy.N(sympy.sympify(v), dps + 10))


def expressions_on_states(exprs, coords, scalars=(), values=(), backend="numpy", dps=None,
                          what="the expressions") -> Callable:
    """A function of states giving the values of ``exprs``.

    Parameters
    ----------
    exprs : sequence of sympy expressions in ``coords`` and ``scalars``
    coords : sequence of Symbol
        The state's coordinates, in the order of the last axis of the states.
    scalars, values : sequences
        The constants of the expressions and their values.
    backend : "numpy" or "mpmath"
    dps : int, for mpmath: the digits of the evaluation (default: the current ``mpmath.mp.dps``)
    what : str, for the error when an expression cannot be lowered

    Returns
    -------
    callable
        ``f(Y)`` for states ``Y`` of shape ``(..., dim)`` (floats, or mpf objects for mpmath) returns
        an array of shape ``(len(exprs), ...)`` (dtype object of mpf for mpmath).
    """
    exprs = [sympy.sympify(e) for e in exprs]
    coords, scalars = list(coords), list(scalars)
    kernel = lower_expressions(exprs, coords, scalars, backend=backend, what=what)
    dim = len(coords)
    arithmetic = backend_for(backend, dps or mpmath.mp.dps)
    if backend == "numpy":
        S = kernel.scalars(*[arithmetic.value(v) for v in values])
    else:
        with mpmath.workdps(arithmetic.dps):
            S = kernel.scalars(*[_mpf(v, arithmetic.dps) for v in values])

    def on_states(Y):
        Y = np.asarray(Y, dtype=arithmetic.dtype)
        rows = Y.reshape(-1, dim)
        with np.errstate(all="ignore"):        # a blown-up run gives inf/nan, judged by the checks
            columns = arithmetic.apply(kernel, S, arithmetic.columns(rows))
        out = np.empty((len(exprs), len(rows)), dtype=arithmetic.dtype)
        for k, column in enumerate(columns):
            out[k] = column
        return out.reshape((len(exprs),) + Y.shape[:-1])

    return on_states


def observe_steps(quantity: Callable, first=np.nan) -> Callable:
    """An ``observe(t, y)`` function for a quantity of each step, from the step's two ends.

    ``quantity(before, after)`` gets consecutive states (``before[k]``, ``after[k]``: the states
    ``n - 1`` and ``n``) and returns an array whose first axis runs over the steps.  The observed
    value at state ``n`` is that of the step into it; at state 0 (no step yet) it is ``first``.

    ``observe`` sees the states in consecutive blocks; the last state of a block is kept for the
    step into the first state of the next one, so one function serves one run.
    """
    last = []

    def observe(t, y):
        y = np.asarray(y)
        before = np.concatenate([last[0], y[:-1]]) if last else y[:-1]
        after = y if last else y[1:]
        values = np.asarray(quantity(before, after)) if len(after) else None
        if not last:
            pad = np.full((1,) + (values.shape[1:] if values is not None else ()), first,
                          dtype=values.dtype if values is not None else float)
            values = pad if values is None else np.concatenate([pad, values])
        last[:] = [y[-1:].copy()]
        return values

    return observe
