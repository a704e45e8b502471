"""What a run gives back: the saved states (:class:`Solution`) and the watch on non-finite states."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np
import sympy

from geomcheck.errors import NonFiniteStateWarning

from .backends import backend_for
from .codegen import lower_expressions
from .errors import SystemDefinitionError

if TYPE_CHECKING:
    from .newton import NewtonRecord
    from .schemes.base import Scheme
    from .systems import System

__all__ = ["Solution", "FiniteWatch", "DOUBLE_MAX"]


class Solution:
    """The saved states of a run.

    Attributes
    ----------
    t : ndarray (n_saved,)
        Times of the saved states (dtype object of mpmath.mpf for the mpmath backend).
    y : ndarray
        ``(n_saved, batch, dim)`` for an initial state of shape ``(batch, dim)``,
        ``(n_saved, dim)`` for one of shape ``(dim,)``; dtype object of mpmath.mpf for the
        mpmath backend.
    system, scheme, backend, dps, dt, steps, save_every, parameters
        What was run.
    path : str
        Which path ran the steps: "numpy", "mpmath" or "compiled" (a compiled run that could not
        compile says "numpy" here, and why in ``path_note``).
    path_note : str or None
        The compiled library that ran, or why the compiled path did not run.
    observed : ndarray or None
        What ``observe(t, y)`` returned for every state of the run (steps 0 to ``steps``),
        concatenated along the first axis; None when the run had no ``observe``.
    newton : NewtonRecord or None
        How the implicit stage equations were solved: the mode asked for, the method that ran
        (Newton's, or one linear solve per step size) and the work counts
        (:class:`integrators.newton.NewtonRecord`); None for an explicit step.
    """

    def __init__(self, t: np.ndarray, y: np.ndarray, system: System, scheme: Scheme, backend: str, dps: int | None,
                 dt: float | mpmath.mpf, steps: int, save_every: int, parameters: Mapping[sympy.Symbol, Any],
                 single: bool, path: str | None = None, path_note: str | None = None,
                 observed: np.ndarray | None = None, newton: NewtonRecord | None = None):
        self.t = t
        self.y = y
        self.system = system
        self.scheme = scheme
        self.backend = backend
        self.dps = dps
        self.dt = dt
        self.steps = steps
        self.save_every = save_every
        self.parameters = dict(parameters)
        self._single = single
        self.path = backend if path is None else path
        self.path_note = path_note
        self.observed = observed
        self.newton = newton
        self._energy = None

    @property
    def single(self) -> bool:
        """Whether one trajectory was run (``y0`` of shape ``(dim,)``), not an ensemble."""
        return self._single

    def without_system(self) -> tuple:
        """The data of the run without its system and scheme, to send back from a worker (the
        caller holds those; sending a system back means pickling its expressions)."""
        return (self.t, self.y, self.backend, self.dps, self.dt, self.steps, self.save_every, self.parameters,
                self._single, self.path, self.path_note, self.observed, self.newton)

    @classmethod
    def with_system(cls, data: tuple, system: Any, scheme: Any) -> "Solution":
        """The inverse of :meth:`without_system`, with the caller's system and scheme."""
        t, y, backend, dps, dt, steps, save_every, parameters, single, path, note, observed, newton = data
        return cls(t, y, system, scheme, backend, dps, dt, steps, save_every, parameters, single, path, note,
                   observed, newton)

    def energy(self) -> np.ndarray:
        """The system's energy (H) at every saved state: ``(n_saved, batch)`` or ``(n_saved,)``."""
        if self._energy is None:
            (self._energy,) = self.evaluate([self.system_or_error("energy").energy], what="the energy")
        return self._energy

    def constraint_drift(self) -> tuple[np.ndarray, np.ndarray]:
        """``(g, c)``: ``max_a |g_a|`` and ``max_a |(G H_p)_a|`` at every saved state of a constrained system.

        Each of shape ``(n_saved, batch)`` or ``(n_saved,)`` (dtype object of mpf for mpmath): how far
        the run has left the constraint manifold, in positions and in the hidden (velocity) constraints.
        A system with velocity constraints only (nonholonomic) has no position constraints: ``g`` is 0.
        """
        residuals = getattr(self.system, "constraint_residuals", None)
        if residuals is None:
            raise SystemDefinitionError(f"constraint_drift needs a ConstrainedHamiltonianSystem; {self.system!r} has"
                                        " no constraints")
        values = dict(zip(residuals, map(abs, self.evaluate(list(residuals.values()), what="the constraints"))))
        g = [v for name, v in values.items() if name.startswith("g")]
        c = [v for name, v in values.items() if name.startswith("c")]
        if not g:        # velocity constraints only: nothing to leave in the positions
            g = [np.zeros_like(c[0])]
        return functools.reduce(np.maximum, g), functools.reduce(np.maximum, c)

    def system_or_error(self, what: str) -> Any:
        """The run's system; a named error for a run of a bare step map, which has none."""
        if self.system is None:
            raise SystemDefinitionError(f"this run of a bare step map (run_map) has no system and so no {what};"
                                        " compute what you need with observe=, or from sol.y")
        return self.system

    def evaluate(self, exprs: list, what: str = "the expressions") -> list[np.ndarray]:
        """Values of expressions in the system's coordinates, constants and time at every saved state.

        One array per expression, ``(n_saved, batch)`` or ``(n_saved,)`` (dtype object of mpf for
        mpmath), computed in the run's arithmetic with the constants the run used.
        """
        system = self.system_or_error(what)
        time = system.time
        arithmetic = backend_for(self.backend, self.dps)
        scalars = list(system.parameters) + ([time] if time is not None else [])
        values = [arithmetic.value(self.parameters[s]) for s in system.parameters]
        kernel = lower_expressions(exprs, system.coords, scalars, backend=arithmetic.name, what=what)
        y = self.y[:, None, :] if self._single else self.y
        n_saved, batch, dim = y.shape
        outs = [np.empty((n_saved, batch), dtype=arithmetic.dtype) for _ in exprs]
        with mpmath.workdps(self.dps or mpmath.mp.dps):
            if time is None:      # one call over every saved state
                columns = arithmetic.apply(kernel, kernel.scalars(*values), arithmetic.columns(y.reshape(-1, dim)))
                for out, column in zip(outs, columns):
                    out.reshape(-1)[:] = column
            else:                 # the scalars change with the time of each saved state
                for k in range(n_saved):
                    columns = arithmetic.apply(kernel, kernel.scalars(*values, self.t[k]), arithmetic.columns(y[k]))
                    for out, column in zip(outs, columns):
                        out[k] = column
        return [out[:, 0] for out in outs] if self._single else outs

    def __repr__(self):
        what = f"{self.scheme.name} on {self.system!r}" if self.scheme is not None else "a step map"
        return f"Solution({what}: {len(self.t)} saved states, y.shape={self.y.shape}, backend={self.backend})"


#: beyond this a state has left the double range: nan/inf in double precision, a blow-up in mpmath
DOUBLE_MAX = float(np.finfo(float).max)


def _mp_finite(v) -> bool:
    return bool(mpmath.isfinite(v)) and abs(v) <= DOUBLE_MAX


_MP_FINITE = np.frompyfunc(_mp_finite, 1, 1)


class FiniteWatch:
    """Which trajectories of a run became nan or infinite, seen at the saved steps.

    Every backend reports through it: numpy and the compiled path (nan or inf), and mpmath,
    whose numbers do not overflow: there a state beyond the double range (``|y| > 1.8e308``)
    counts as having left the finite domain (it would be inf in double precision; a run
    that large has blown up).
    """

    #: trajectories listed in the warning's message (all are in its attributes)
    SHOWN = 10

    def __init__(self, batch, coords):
        self.coords = [str(c) for c in coords]
        self.finite = np.ones(batch, dtype=bool)
        self.last_step = 0
        self.found = []  # (trajectory, first saved step not finite, last saved step finite, coordinates)

    def saved(self, state, n):
        ok = np.isfinite(state) if state.dtype != object else _MP_FINITE(state).astype(bool)
        fine = ok.all(axis=1)
        for b in np.flatnonzero(self.finite & ~fine):
            self.found.append((int(b), n, self.last_step, [self.coords[i] for i in np.flatnonzero(~ok[b])]))
        self.finite &= fine
        self.last_step = n

    def report(self, times, saved_steps):
        if not self.found:
            return
        needed = {f[1] for f in self.found[:self.SHOWN]}
        where = {int(n): float(t) for n, t in zip(saved_steps, times) if int(n) in needed}
        shown = "; ".join(
            f"trajectory {b}: {', '.join(cs)} not finite at step {n} (t = {where[n]:.6g}), finite at step {m}"
            for b, n, m, cs in self.found[:self.SHOWN])
        more = f" (and {len(self.found) - self.SHOWN} more)" if len(self.found) > self.SHOWN else ""
        warnings.warn(NonFiniteStateWarning(
            f"{len(self.found)} trajectory(ies) left the finite (real) domain (nan, infinite or beyond the double"
            f" range) from then on: {shown}{more}; a smaller step, other initial values, or a system defined there"
            " (sqrt, log of a negative number?) may help",
            trajectories=[f[0] for f in self.found], first_seen=[f[1] for f in self.found],
            last_finite=[f[2] for f in self.found], coordinates=[f[3] for f in self.found]), stacklevel=3)
