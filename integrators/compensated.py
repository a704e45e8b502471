"""Compensated stepping: the increment ``Phi(y) - y`` lowered on its own and Kahan-summed.

Plain stepping rounds ``y_n + increment`` once per step, and over ``N`` steps those
roundings random-walk (about ``sqrt(N) eps |y|``).  Here the symbolic ``Phi - y`` cancels
``y`` exactly, so the increment carries no rounding of ``y``, and the state advances by
Kahan's compensated summation: the accumulated error stays at a few ``eps |y|``.
Implicit steps: the Newton stages are solved as usual and the increment is built from them.
"""

from __future__ import annotations

import mpmath

import geomcheck as gc

from .codegen import lower_expressions
from .lower import real_rows, split_implicit
from .staged import StagedStep

__all__ = ["Increment", "StagedIncrement", "increment_of"]


class Increment:
    """``Phi(y) - y`` for a lowered step: the increment expressions lowered on their own."""

    def __init__(self, phi, lowered, coords, scalars, arithmetic):
        self.lowered = lowered
        self.arithmetic = arithmetic
        if isinstance(phi, gc.Map):
            self.implicit = False
            exprs, args = [e - c for e, c in zip(phi.exprs, coords)], list(coords)
        else:
            self.implicit = True
            split = split_implicit(phi)
            final = split[2] if split is not None else {Y: Y for Y in phi.new}
            exprs = [final[Y] - c for Y, c in zip(phi.new, coords)]
            args = list(coords) + list(lowered.unknowns)
        self.kernel = lower_expressions(exprs, args, scalars, backend=arithmetic.name, what="the step increment")
        self._bound = (None, None)

    def _scalars(self, bound):
        # bound once per run (per step for a time-dependent system)
        if self._bound[0] is not bound:
            self._bound = (bound, self.kernel.scalars(*bound.values))
        return self._bound[1]

    def __call__(self, bound, y, step_index):
        K, arithmetic = self.kernel, self.arithmetic
        if arithmetic.name == "numpy":
            S = self._scalars(bound)
            u = bound.solver.numpy(y, step_index) if self.implicit else []
            return arithmetic.apply(K, S, list(y) + list(u))
        with mpmath.workdps(arithmetic.dps):
            S = self._scalars(bound)

            def row(b, x):
                u = bound.solver.mpmath(x, arithmetic.dps, trajectory=b, step_index=step_index) if self.implicit \
                    else []
                return K.kernel(S, *x, *u)

            return real_rows(row, y, self.lowered.coords, step_index, bound.complex_guess)


class StagedIncrement:
    """The increment of a staged step: the stages' increments summed, each from the running state.

    Each stage's increment ``Phi_i(Y) - Y`` is lowered on its own and accumulated in ``d``;
    the stage after it starts from ``y + d`` (rounded: it only feeds the next small
    increment), so the sum that reaches ``y`` is the accurately accumulated ``d``.
    """

    def __init__(self, staged, coords, scalars, arithmetic):
        self.arithmetic = arithmetic
        self.parts = [Increment(st.map, L, coords, scalars, arithmetic) for st, L in zip(staged.stages, staged.lowered)]

    def __call__(self, bound, y, step_index):
        d = None
        Y = y
        for part, b in zip(self.parts, bound.bound):
            di = part(b, Y, step_index)
            d = di if d is None else self.arithmetic.add(d, di)
            Y = self.arithmetic.add(y, d)
        return d


def increment_of(lowered, stages, coords, scalars, arithmetic):
    """The increment of the lowered step of ``stages`` (a StagedStep or one lowered map)."""
    if isinstance(lowered, StagedStep):
        return StagedIncrement(lowered, coords, scalars, arithmetic)
    return Increment(stages[0].map, lowered, coords, scalars, arithmetic)
