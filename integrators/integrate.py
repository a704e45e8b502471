"""``integrate``: run a scheme on a system, one trajectory or a whole ensemble.

The step that runs is the scheme's symbolic step map for the system, lowered
(:mod:`integrators.lower`) to batched numpy or to mpmath; implicit steps are solved
by batched Newton (:mod:`integrators.newton`).  Results are deterministic: the same
input gives bit-identical output (no threads, no random numbers, a fixed order of operations).

Options of a long run:

- ``compensated=True``: the state is advanced as ``y_{n+1} = y_n + (Phi(y_n) - y_n)`` with
  the increment lowered on its own (the symbolic ``Phi - y`` cancels ``y`` exactly, so the
  increment carries no rounding of ``y``) and summed with Kahan's compensated summation.
  Plain stepping rounds ``y_n + increment`` once per step, and over ``N`` steps those
  roundings random-walk (about ``sqrt(N) eps |y|``); compensated, the accumulated error
  stays at a few ``eps |y|``.  Implicit steps: the Newton stages are solved as usual and
  the increment is built from them.
- ``progress``: a bar on stderr (``None``, the default, shows it only when stderr is a
  terminal and the run lasts longer than half a second; ``True`` always; ``False`` never).
- ``check_stability`` (default True): before an explicit step on a canonical system the
  step size is held against the linear stability bound at y0 (:mod:`integrators.stability`);
  ``StepSizeError`` beyond it.

Step sizes are fixed: symplectic and symmetric schemes lose their structure (and with it
the bounded energy error over long times) when the step size is adapted to the state,
since the variable-step map is no longer a symplectic map of the phase space (Stormer-Verlet
with ``h`` replaced by ``h s(q, p)`` is certified NOT symplectic, with a counterexample, in
``tests/integrators/test_integrate_guards.py``); variable steps that keep the structure need a
time transformation of the system itself (Sundman), not an adaptive controller.

>>> import sympy, numpy as np, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
>>> sol = ig.integrate(osc, "implicit-midpoint", [1.0, 0.0], dt=0.1, steps=10, save_every=5)
>>> sol.t
array([0. , 0.5, 1. ])
>>> sol.y.shape, sol.energy().shape
((3, 2), (3,))
>>> bool(np.allclose(sol.energy(), 0.5, atol=1e-14))       # midpoint conserves quadratic energies
True
"""

from __future__ import annotations

import functools
import math
import numbers
import os
import sys
import time as _time
import warnings
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

import mpmath
import numpy as np
import sympy

import geomcheck as gc
from geomcheck.errors import InvalidArgumentError, NonFiniteStateWarning, NonRealValueError, ShapeError

from .catalog import scheme as _scheme_by_name
from .errors import SchemeNotApplicableError, SystemDefinitionError
from .lower import LoweredStep, _split_implicit, lower_expressions, real_rows
from .newton import check_newton_mode
from .staged import StagedStep, lower_stages
from .systems import STEP_SYMBOL, CanonicalSystem, System

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .schemes.base import Scheme

__all__ = ["integrate", "Solution", "FiniteWatch", "DOUBLE_MAX", "check_saved_size", "check_t0"]

BACKENDS = ("numpy", "mpmath", "compiled")
MIN_DPS = 15


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
    """

    def __init__(self, t: np.ndarray, y: np.ndarray, system: System, scheme: Scheme, backend: str, dps: int | None,
                 dt: float | mpmath.mpf, steps: int, save_every: int, parameters: Mapping[sympy.Symbol, Any],
                 single: bool):
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
        self._energy = None

    @property
    def single(self) -> bool:
        """Whether one trajectory was run (``y0`` of shape ``(dim,)``), not an ensemble."""
        return self._single

    def without_system(self) -> tuple:
        """The data of the run without its system and scheme, to send back from a worker (the
        caller holds those; sending a system back means pickling its expressions)."""
        return (self.t, self.y, self.backend, self.dps, self.dt, self.steps, self.save_every, self.parameters,
                self._single, getattr(self, "path", None), getattr(self, "path_note", None))

    @classmethod
    def with_system(cls, data: tuple, system: Any, scheme: Any) -> "Solution":
        """The inverse of :meth:`without_system`, with the caller's system and scheme."""
        t, y, backend, dps, dt, steps, save_every, parameters, single, path, note = data
        sol = cls(t, y, system, scheme, backend, dps, dt, steps, save_every, parameters, single)
        if path is not None:
            sol.path, sol.path_note = path, note
        return sol

    def energy(self) -> np.ndarray:
        """The system's energy (H) at every saved state: ``(n_saved, batch)`` or ``(n_saved,)``."""
        if self._energy is None:
            self._energy = self._evaluate(self.system.energy)
        return self._energy

    def constraint_drift(self) -> tuple[np.ndarray, np.ndarray]:
        """``(g, c)``: ``max_a |g_a|`` and ``max_a |(G H_p)_a|`` at every saved state of a constrained system.

        Each of shape ``(n_saved, batch)`` or ``(n_saved,)`` (dtype object of mpf for mpmath): how far
        the run has left the constraint manifold, in positions and in the hidden (velocity) constraints.
        """
        residuals = getattr(self.system, "constraint_residuals", None)
        if residuals is None:
            raise SystemDefinitionError(f"constraint_drift needs a ConstrainedHamiltonianSystem; {self.system!r} has"
                                        " no constraints")
        values = {name: abs(self._evaluate(e)) for name, e in residuals.items()}
        g = [v for name, v in values.items() if name.startswith("g")]
        c = [v for name, v in values.items() if name.startswith("c")]
        return functools.reduce(np.maximum, g), functools.reduce(np.maximum, c)

    def _evaluate(self, expr):
        system = self.system
        time = system.time
        scalars = [s for s in system.parameters]
        values = [self.parameters[s] for s in scalars]
        if time is not None:
            scalars.append(time)
        kernel = lower_expressions([expr], system.coords, scalars, backend=self.backend, what="the energy")
        y = self.y[:, None, :] if self._single else self.y
        n_saved, batch, dim = y.shape
        out = np.empty((n_saved, batch), dtype=object if self.backend == "mpmath" else float)
        if self.backend == "numpy":
            for k in range(n_saved):
                vals = [float(v) for v in values] + ([float(self.t[k])] if time is not None else [])
                (e,) = kernel.kernel(kernel.scalars(*vals), *[y[k, :, i] for i in range(dim)])
                out[k] = e
        else:
            with mpmath.workdps(self.dps):
                for k in range(n_saved):
                    vals = [_mpf(v, self.dps) for v in values] + ([self.t[k]] if time is not None else [])
                    S = kernel.scalars(*vals)
                    for b in range(batch):
                        (e,) = kernel.kernel(S, *[y[k, b, i] for i in range(dim)])
                        out[k, b] = mpmath.mpf(e)
        return out[:, 0] if self._single else out

    def __repr__(self):
        return (f"Solution({self.scheme.name} on {self.system!r}: {len(self.t)} saved states, y.shape={self.y.shape},"
                f" backend={self.backend})")


# ------------------------------------------------------------------------ input checks


def _mpf(v, dps):
    with mpmath.workdps(dps + 5):
        if isinstance(v, mpmath.mpf):
            return +v
        if isinstance(v, sympy.Basic):
            return mpmath.mpf(sympy.N(v, dps + 5))
        if isinstance(v, Fraction):
            return mpmath.mpf(v.numerator) / v.denominator
        return mpmath.mpf(v)


def _check_count(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise InvalidArgumentError(f"{name} must be an integer >= {minimum}, got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise InvalidArgumentError(f"{name} must be an integer >= {minimum}, got {value}")
    return int(value)


def _check_tolerance(tol, backend, dps):
    """None, or the Newton tolerance as a positive finite real number (an mpf for mpmath)."""
    if tol is None:
        return None
    bad = InvalidArgumentError(f"tol must be a positive finite real number (the Newton tolerance), got {tol!r}")
    if isinstance(tol, (bool, complex)) or not isinstance(tol, (numbers.Real, np.floating, str, sympy.Basic,
                                                                  mpmath.mpf)):
        raise bad
    try:
        value = _mpf(tol, dps or 15)
    except (TypeError, ValueError, AttributeError):
        raise bad from None
    if not (mpmath.isfinite(value) and value > 0):
        raise bad
    return value if backend == "mpmath" else float(value)


#: at most this share of the machine's memory may go to the saved states of one run
SAVED_MEMORY_SHARE = 0.5


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def check_saved_size(steps, save_every, batch, dim, backend):
    """Refuse, before anything is allocated, a run whose saved states cannot fit in memory."""
    n_saved = steps // save_every + 2
    per_value = 8 if backend != "mpmath" else 120   # a double; an mpf with its Python object
    need = n_saved * (batch * dim * per_value + 40)  # and the list of saved step indices
    limit = SAVED_MEMORY_SHARE * _physical_memory()
    if need > limit:
        raise InvalidArgumentError(
            f"steps={_count_text(steps)}, save_every={_count_text(save_every)}: the saved states ({batch} x {dim}"
            f" values each) would take {_count_text(need // 2**30)} GiB, more than {limit / 2**30:.3g} GiB (half this"
            " machine's memory); save less often (a larger save_every) or run fewer steps")


def _count_text(n: int) -> str:
    return f"{n:,}" if n < 10**15 else f"about 10^{len(str(n)) - 1}"


def check_t0(t0, backend, dps):
    """The start time as a finite real number (an mpf for mpmath)."""
    bad = InvalidArgumentError(f"t0 must be a finite real number, got {t0!r} ({type(t0).__name__})")
    if isinstance(t0, (bool, complex)) or t0 is None:
        raise bad
    try:
        if backend == "mpmath":
            value = _mpf(t0, dps)
            ok = mpmath.isfinite(value)
        else:
            if isinstance(t0, str) or (isinstance(t0, sympy.Basic) and not getattr(t0, "is_number", False)):
                raise TypeError
            value = float(sympy.N(t0)) if isinstance(t0, sympy.Basic) else float(t0)
            ok = math.isfinite(value)
    except (TypeError, ValueError, AttributeError, OverflowError):
        raise bad from None
    if not ok:
        raise bad
    return t0


def _check_dt(dt, backend, dps):
    if isinstance(dt, bool) or isinstance(dt, complex):
        raise InvalidArgumentError(f"dt must be a positive finite real number, got {dt!r}")
    try:
        if backend == "mpmath":
            value = _mpf(dt, dps)
            finite, positive = mpmath.isfinite(value), value > 0
        else:
            if isinstance(dt, str) or (isinstance(dt, sympy.Basic) and not getattr(dt, "is_number", False)):
                raise TypeError
            value = float(sympy.N(dt)) if isinstance(dt, sympy.Basic) else float(dt)
            finite, positive = math.isfinite(value), value > 0
    except OverflowError:
        raise InvalidArgumentError(f"dt must be finite in double precision, got {dt!r}") from None
    except (TypeError, ValueError, AttributeError):
        raise InvalidArgumentError(f"dt must be a positive finite real number, got {dt!r} ({type(dt).__name__})") from None
    if not finite:
        raise InvalidArgumentError(f"dt must be finite, got {dt!r}")
    if not positive:
        raise InvalidArgumentError(f"dt must be positive, got {dt!r}" + (" (zero)" if value == 0 else ""))
    return value


def _check_y0(y0, dim, backend, dps, coords):
    names = ", ".join(str(c) for c in coords)
    if backend == "numpy":
        if np.iscomplexobj(np.asarray(y0) if not isinstance(y0, np.ndarray) else y0):
            raise InvalidArgumentError(f"y0 has complex values; real initial values ({names}) were expected")
        try:
            arr = np.array(y0, dtype=float)
        except OverflowError:
            raise InvalidArgumentError("y0 has a value beyond the double range; finite initial values were"
                                       " expected (backend='mpmath' runs any size)") from None
        except (TypeError, ValueError) as exc:
            raise ShapeError(f"y0 must be an array of numbers of shape ({dim},) or (batch, {dim}); {exc}") from None
    else:
        arr = np.array(y0, dtype=object)
    if arr.ndim not in (1, 2) or arr.shape[-1] != dim or (arr.ndim == 2 and arr.shape[0] == 0):
        raise ShapeError(
            f"y0 has shape {arr.shape}; expected ({dim},) for one trajectory or (batch, {dim}) for an ensemble,"
            f" the last axis holding the coordinates ({names})"
        )
    single = arr.ndim == 1
    arr2 = arr[None, :] if single else arr
    if backend == "numpy":
        bad = ~np.isfinite(arr2)
        if bad.any():
            b, i = map(int, np.argwhere(bad)[0])
            raise InvalidArgumentError(
                f"y0 contains a non-finite value ({arr2[b, i]}) at trajectory {b}, coordinate {coords[i]};"
                " every initial value must be a finite number"
            )
        return np.ascontiguousarray(arr2), single
    out = np.empty(arr2.shape, dtype=object)
    for (b, i), v in np.ndenumerate(arr2):
        try:
            val = _mpf(v, dps)
        except (TypeError, ValueError):
            raise ShapeError(f"y0[{b}][{i}] = {v!r} is not a number") from None
        if not mpmath.isfinite(val):
            raise InvalidArgumentError(
                f"y0 contains a non-finite value ({v}) at trajectory {b}, coordinate {coords[i]};"
                " every initial value must be a finite number"
            )
        out[b, i] = val
    return out, single


def _finite_real(v) -> bool:
    try:
        values = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        return False
    return bool(np.all(np.isfinite(values)))


def _parameter_values(system, params):
    if params is not None and not isinstance(params, Mapping):
        raise InvalidArgumentError(f"params must be a mapping {{name or Symbol: number}}, got {params!r}"
                                   f" ({type(params).__name__})")
    values = dict(system.parameter_values)
    for k, v in dict(params or {}).items():
        if isinstance(k, str):
            match = [s for s in system.parameters if s.name == k]
            if not match:
                raise InvalidArgumentError(f"params: {k!r} is not a constant of the system; its constants are"
                                           f" {', '.join(map(str, system.parameters)) or 'none'}")
            k = match[0]
        if k not in system.parameters:
            raise InvalidArgumentError(f"params: {k} is not a constant of the system; its constants are"
                                       f" {', '.join(map(str, system.parameters)) or 'none'}")
        if not _finite_real(v):
            raise InvalidArgumentError(f"params: the value {v!r} of {k} is not a finite real number")
        values[k] = v
    missing = [s for s in system.parameters if s not in values]
    if missing:
        raise InvalidArgumentError(
            f"no numeric value for the constant(s) {', '.join(map(str, missing))} of {system!r}; pass"
            f" params={{{', '.join(repr(s.name) + ': ...' for s in missing)}}} (or parameters= to the system)"
        )
    return values


# ------------------------------------------------------------------------ progress bar


class _ProgressBar:
    """A one-line bar written with carriage returns to ``stream`` (at most ~100 redraws per run)."""

    WIDTH = 30

    def __init__(self, total, stream, delay=0.0):
        self.total = max(int(total), 1)
        self.stream = stream
        self.delay = delay
        self.start = _time.perf_counter()
        self.every = max(1, self.total // 100)
        self.shown = False

    def update(self, n):
        if n % self.every and n != self.total:
            return
        elapsed = _time.perf_counter() - self.start
        if elapsed < self.delay:
            return
        filled = self.WIDTH * n // self.total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\r[{bar}] {100 * n // self.total:3d}% {n}/{self.total} steps {elapsed:.1f} s")
        self.stream.flush()
        self.shown = True

    def close(self):
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def _progress_bar(progress, steps):
    if progress is None:
        stream = sys.stderr
        isatty = getattr(stream, "isatty", None)
        if stream is None or isatty is None or not isatty():
            return None
        return _ProgressBar(steps, stream, delay=0.5)
    if progress is True:
        return _ProgressBar(steps, sys.stderr)
    return None


def _check_flag(value, name, allow_none=False):
    if value is None and allow_none:
        return value
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(f"{name} must be True or False{' or None' if allow_none else ''}, got {value!r}")
    return bool(value)


# ------------------------------------------------------------------------ compensated summation


class _Increment:
    """``Phi(y) - y`` for a lowered step: the increment expressions lowered on their own."""

    def __init__(self, phi, lowered, coords, scalars, backend):
        self.lowered = lowered
        self.backend = backend
        if isinstance(phi, gc.Map):
            self.implicit = False
            exprs, args = [e - c for e, c in zip(phi.exprs, coords)], list(coords)
        else:
            self.implicit = True
            split = _split_implicit(phi)
            final = split[2] if split is not None else {Y: Y for Y in phi.new}
            unknowns = lowered.unknowns
            exprs = [final[Y] - c for Y, c in zip(phi.new, coords)]
            args = list(coords) + list(unknowns)
        self.kernel = lower_expressions(exprs, args, scalars, backend=backend, what="the step increment")
        self._bound = (None, None)

    def _scalars(self, bound):
        # bound once per run (per step for a time-dependent system)
        if self._bound[0] is not bound:
            self._bound = (bound, self.kernel.scalars(*bound.values))
        return self._bound[1]

    def __call__(self, bound, y, step_index):
        K = self.kernel
        if self.backend == "numpy":
            batch = y[0].shape[0]
            S = self._scalars(bound)
            u = []
            if self.implicit:
                u = bound.solver.numpy(y, step_index)
            out = K.kernel(S, *y, *u)
            return [o if a else np.full(batch, o, dtype=float) for o, a in zip(out, K.is_array)]
        dps = bound.dps or mpmath.mp.dps
        with mpmath.workdps(dps):
            S = self._scalars(bound)

            def row(b, x):
                u = bound.solver.mpmath(x, dps, trajectory=b, step_index=step_index) if self.implicit else []
                return K.kernel(S, *x, *u)

            return real_rows(row, y, self.lowered.coords, step_index, bound.complex_guess)


class _StagedIncrement:
    """The increment of a staged step: the stages' increments summed, each from the running state.

    Each stage's increment ``Phi_i(Y) - Y`` is lowered on its own and accumulated in ``d``;
    the stage after it starts from ``y + d`` (rounded: it only feeds the next small
    increment), so the sum that reaches ``y`` is the accurately accumulated ``d``.
    """

    def __init__(self, staged, coords, scalars, backend):
        self.backend = backend
        self.parts = [_Increment(st.map, L, coords, scalars, backend) for st, L in zip(staged.stages, staged.lowered)]

    def __call__(self, bound, y, step_index):
        d = None
        Y = y
        for part, b in zip(self.parts, bound.bound):
            di = part(b, Y, step_index)
            if self.backend == "numpy":
                d = di if d is None else [a + e for a, e in zip(d, di)]
                Y = [a + e for a, e in zip(y, d)]
            else:
                with mpmath.workdps(bound.dps or mpmath.mp.dps):
                    d = di if d is None else [[a + e for a, e in zip(r, t)] for r, t in zip(d, di)]
                    Y = [[a + e for a, e in zip(r, t)] for r, t in zip(y, d)]
        return d


def _kahan_add(y, c, d, backend, dps):
    """``y + d`` with the running compensation ``c`` (Kahan): returns the new ``(y, c)``."""
    if backend == "numpy":
        new_y, new_c = [], []
        for yi, ci, di in zip(y, c, d):
            z = di - ci
            t = yi + z
            new_c.append((t - yi) - z)
            new_y.append(t)
        return new_y, new_c
    with mpmath.workdps(dps):
        new_y, new_c = [], []
        for yi, ci, di in zip(y, c, d):
            row_y, row_c = [], []
            for a, cc, dd in zip(yi, ci, di):
                z = dd - cc
                t = a + z
                row_c.append((t - a) - z)
                row_y.append(t)
            new_y.append(row_y)
            new_c.append(row_c)
        return new_y, new_c


# ------------------------------------------------------------------------ non-finite states


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


# ------------------------------------------------------------------------ the run


def integrate(system: System, scheme: str | Scheme, y0: ArrayLike,
              dt: float | str | Fraction | sympy.Expr | mpmath.mpf = 0.01, steps: int = 1000,
              backend: Literal["numpy", "mpmath", "compiled"] = "numpy", dps: int | None = None, save_every: int = 10,
              params: Mapping[Any, Any] | None = None, t0: float | str | Fraction | sympy.Expr | mpmath.mpf = 0,
              tol: float | str | sympy.Expr | mpmath.mpf | None = None, max_iter: int = 50, compensated: bool = False,
              progress: bool | None = None, check_stability: bool = True,
              newton: Literal["full", "simplified", "auto"] = "full", use_kernel: bool = False) -> Solution:
    """Integrate ``system`` with ``scheme`` from ``y0``.

    Parameters
    ----------
    system : a system of integrators (HamiltonianSystem, ContactSystem, ...; concrete: no undefined functions)
    scheme : str (a catalog name, see ``list_schemes()``) or a Scheme
    y0 : array_like, shape (dim,) or (batch, dim)
        Coordinates in the system chart's order (q then p; x, p, z for contact systems).
    dt : positive finite number
        The step size (for ``backend="mpmath"`` give a string or an exact number, e.g. "0.01",
        to avoid the binary rounding of a float).
    steps : int >= 0
    backend : "numpy", "mpmath" or "compiled"
        "compiled": the explicit step map generated as C and compiled (long single
        trajectories; :mod:`integrators.compiled`); falls back to numpy with a
        ``CompiledPathWarning`` when no compiler is present or the step is implicit.
    dps : int >= 15, only for backend="mpmath" (default 50): decimal digits of the run; the
        Newton tolerance of implicit schemes is tied to it (10**(5 - dps)).
    save_every : int >= 1
        States are saved at steps 0, save_every, 2 save_every, ... and at the last step.
    params : dict, optional
        Values of the system's constants (symbol or name -> number), overriding the system's.
    t0 : number
        Initial time (for time-dependent systems; also the first entry of ``sol.t``).
    tol, max_iter : Newton options for implicit schemes (default tol: 1e-13 numpy, 10**(5-dps) mpmath).
    newton : "full", "simplified" or "auto"
        How implicit stage equations are solved (:mod:`integrators.newton`): a fresh Jacobian every
        iteration; or one factorization reused across iterations and steps (refreshed when the
        contraction rate deteriorates; one per run for linear stage equations); or simplified with
        full Newton for the trajectories where it fails.
    compensated : bool
        Advance by the separately lowered increment ``Phi(y) - y`` with Kahan summation, so
        that the rounding of ``y_n + increment`` does not accumulate over long runs.
    progress : None, True or False
        A progress bar on stderr: None shows it when stderr is a terminal (after half a
        second), True always, False never.
    check_stability : bool
        Refuse an explicit step size beyond the linear stability bound estimated from the
        Jacobian of the vector field at y0 (see :mod:`integrators.stability`; explicit Euler
        only warns, implicit schemes and contact systems are not checked).
    use_kernel : bool
        Run the scheme with the system's hand-written kernel (attached, and checked against the
        symbolic vector field, by :func:`integrators.with_kernel`) as the vector field:
        :func:`integrators.kernels.kernel_step`; explicit Runge-Kutta methods, Stormer-Verlet and
        their compositions, numpy backend, not compensated (SchemeNotApplicableError otherwise).

    Returns
    -------
    Solution

    Raises
    ------
    UnknownSchemeError, SchemeNotApplicableError, NotLowerableError, ShapeError,
    InvalidArgumentError, NewtonConvergenceError, StepSizeError
    """
    if not isinstance(system, System):
        raise SystemDefinitionError(
            f"integrate expects a system of integrators (HamiltonianSystem, ContactSystem, DampedHamiltonianSystem,"
            f" ConstrainedHamiltonianSystem, PortHamiltonianSystem, ...), got"
            f" {type(system).__name__} {system!r}"
        )
    s = _scheme_by_name(scheme)
    s.check_applies(system)
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise InvalidArgumentError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}")
    if backend == "mpmath":
        if dps is None:
            dps = 50
        dps = _check_count(dps, "dps", 1)
        if dps < MIN_DPS:
            raise InvalidArgumentError(
                f"dps must be at least {MIN_DPS} for backend='mpmath' (got {dps}); below double precision"
                " use backend='numpy'"
            )
    elif dps is not None:
        raise InvalidArgumentError(f"dps applies to backend='mpmath' only; {backend} runs in double precision")
    if _check_flag(use_kernel, "use_kernel") and (backend != "numpy" or compensated is not False):
        raise SchemeNotApplicableError(f"use_kernel=True runs the hand-written numpy kernel: backend='numpy' and"
                                       f" compensated=False are needed (got backend={backend!r},"
                                       f" compensated={compensated!r})")
    if backend == "compiled":
        if compensated is not False:
            raise InvalidArgumentError("compensated summation is not available on backend='compiled'; use numpy")
        # checked although the compiled loop (explicit steps) does not use them: nonsense is never accepted
        _check_flag(progress, "progress", allow_none=True)
        check_newton_mode(newton)
        _check_tolerance(tol, "numpy", None)
        _check_count(max_iter, "max_iter", 1)
        from .compiled import integrate_compiled

        return integrate_compiled(system, s, y0, dt, steps, save_every=save_every, params=params, t0=t0,
                                  check_stability=check_stability)
    steps = _check_count(steps, "steps", 0)
    save_every = _check_count(save_every, "save_every", 1)
    dt_value = _check_dt(dt, backend, dps)
    Y, single = _check_y0(y0, system.dim, backend, dps, system.coords)
    check_saved_size(steps, save_every, Y.shape[0], system.dim, backend)
    t0 = check_t0(t0, backend, dps)
    values = _parameter_values(system, params)
    if hasattr(system, "check_state"):     # a constrained system: y0 must lie on its constraint manifold
        system.check_state(Y, values)
    compensated = _check_flag(compensated, "compensated")
    check_stability = _check_flag(check_stability, "check_stability")
    progress = _check_flag(progress, "progress", allow_none=True)
    newton = check_newton_mode(newton)
    tol = _check_tolerance(tol, backend, dps)
    max_iter = _check_count(max_iter, "max_iter", 1)

    stages = s.stages(system)
    explicit = all(isinstance(st.map, gc.Map) for st in stages)
    if check_stability and explicit and isinstance(system, CanonicalSystem):
        from .stability import check_step

        t_start = float(sympy.N(t0)) if isinstance(t0, sympy.Basic) else float(t0)
        check_step(system, s, float(dt_value), np.asarray(Y, dtype=float), values, t_start)
    scalars = [STEP_SYMBOL, *system.parameters] + ([system.time] if system.time is not None else [])
    lowered = None
    if use_kernel:
        from .kernels import kernel_step

        lowered = kernel_step(s, system)
    elif backend == "numpy" and not compensated and not explicit and len(stages) == 1 and system.time is None:
        from .linear_implicit import linear_implicit_step

        # a linear implicit step: A factored once per step size, no Newton (None when not linear)
        lowered = linear_implicit_step(stages[0].map, scalars)
    if lowered is None:
        lowered = lower_stages(stages, backend=backend, parameters=scalars, time=system.time)
    increment = None
    if compensated:
        if isinstance(lowered, StagedStep):
            increment = _StagedIncrement(lowered, system.coords, scalars, backend)
        else:
            increment = _Increment(stages[0].map, lowered, system.coords, scalars, backend)
    batch, dim = Y.shape
    # an array, not a list: 10**7 saved steps as Python ints would take 360 MB beside the output
    saved_steps = np.arange(0, steps + 1, save_every, dtype=np.int64)
    if saved_steps[-1] != steps:
        saved_steps = np.append(saved_steps, np.int64(steps))

    if backend == "numpy":
        t0v = float(sympy.N(t0)) if isinstance(t0, sympy.Basic) else float(t0)
        base = [dt_value] + [float(sympy.N(values[k])) if isinstance(values[k], sympy.Basic) else float(values[k])
                             for k in system.parameters]
        out = np.empty((len(saved_steps), batch, dim))
        # the same two IEEE operations as t0 + float(n) * dt for each n (n < 2**53 is exact)
        times = t0v + saved_steps.astype(np.float64) * dt_value
    else:
        t0v = _mpf(t0, dps)
        base = [dt_value] + [_mpf(values[k], dps) for k in system.parameters]
        out = np.empty((len(saved_steps), batch, dim), dtype=object)
        with mpmath.workdps(dps):
            times = np.array([t0v + int(n) * dt_value for n in saved_steps] + [None], dtype=object)[:-1]

    time_dependent = system.time is not None
    options = dict(tol=tol, max_iter=max_iter, dps=dps)
    if isinstance(lowered, (LoweredStep, StagedStep)):        # a linear implicit step has no Newton mode
        options["newton"] = newton

    def bind(n):
        if time_dependent:
            with mpmath.workdps(dps or 15):
                t_n = t0v + n * dt_value
            return lowered.bind(base + [t_n], **options)
        return lowered.bind(base, **options)

    bound = None if time_dependent else bind(0)
    if backend == "numpy":
        y = [np.ascontiguousarray(Y[:, i]) for i in range(dim)]
    else:
        y = [[Y[b, i] for b in range(batch)] for i in range(dim)]
    if compensated:
        c = [np.zeros(batch) for _ in range(dim)] if backend == "numpy" else \
            [[mpmath.mpf(0)] * batch for _ in range(dim)]
    bar = _progress_bar(progress, steps)
    watch = FiniteWatch(batch, system.coords)
    k = 0
    next_saved = int(saved_steps[0])
    try:
        for n in range(steps + 1):
            if n == next_saved:
                for i in range(dim):
                    out[k, :, i] = y[i]
                watch.saved(out[k], n)
                k += 1
                if n == steps:
                    break
                next_saved = int(saved_steps[k])
            step = bind(n) if time_dependent else bound
            try:
                if compensated:
                    y, c = _kahan_add(y, c, increment(step, y, n + 1), backend, dps)
                else:
                    y = step.step(y, step_index=n + 1)
            except NonRealValueError as exc:
                with mpmath.workdps(dps or 15):
                    t_n = t0v + n * dt_value
                raise NonRealValueError(f"{exc} (the step from t = {mpmath.nstr(t_n, 10)})", step=exc.step,
                                        trajectory=exc.trajectory, coordinate=exc.coordinate, value=exc.value,
                                        time=t_n) from exc.__cause__
            if bar is not None:
                bar.update(n + 1)
    finally:
        if bar is not None:
            bar.close()
    watch.report(times, saved_steps)
    result = out[:, 0, :] if single else out
    return Solution(times, result, system, s, backend, dps, dt_value, steps, save_every, values, single)
