"""What a run is asked to do, checked once: the options, the inputs, the progress bar.

Every entry point that runs a scheme (``integrate``, ``step_matrix``, the stability check,
the compiled path, the Dask runners) checks its input here, so nonsense gets the same
named error whichever door it comes in by.

>>> opts = check_options(backend="mpmath", dps=None)
>>> opts.backend, opts.dps, opts.newton
('mpmath', 50, 'auto')
>>> check_count(3, "steps", 0), check_dt(0.25, "numpy", None)
(3, 0.25)
"""

from __future__ import annotations

import math
import numbers
import os
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy

from geomcheck.errors import InvalidArgumentError, ShapeError

from .errors import SchemeNotApplicableError
from .newton import DEFAULT_NEWTON, check_newton_mode

__all__ = ["RunOptions", "check_options", "BACKENDS", "C_LONG_LIMIT", "MIN_DPS", "DEFAULT_DPS", "to_mpf", "check_count",
           "check_flag", "check_tolerance", "is_finite_real", "check_dt", "check_t0", "check_y0", "parameter_values",
           "check_saved_size", "SAVED_MEMORY_SHARE", "LINEAR_SOLVE_FORMS", "ProgressBar", "progress_bar"]

#: the forms of a linear implicit step (integrators.linear_implicit): "auto" chooses by its rule
LINEAR_SOLVE_FORMS = ("auto", "matrix", "solve")
BACKENDS = ("auto", "numpy", "mpmath", "compiled", "jax")
MIN_DPS = 15
DEFAULT_DPS = 50
#: step counts handed to the compiled C loop stay below this (a C long, with room for n + save_every)
C_LONG_LIMIT = 2**62
#: at most this share of the machine's memory may go to the saved states of one run
SAVED_MEMORY_SHARE = 0.5


@dataclass(frozen=True)
class RunOptions:
    """How a run is carried out (checked by :func:`check_options`).

    Attributes
    ----------
    backend : "auto", "numpy", "mpmath", "compiled" or "jax"
        ("auto": the run pipeline picks compiled or numpy by its cost model, :func:`integrators.pipeline.auto_choice`)
    dps : int or None       decimal digits (mpmath only)
    tol : float, mpf or None  Newton tolerance (None: the solver's default for the precision)
    max_iter : int          Newton iterations per step
    newton : "full", "simplified" or "auto"
    compensated : bool      Kahan-summed increments
    progress : bool or None the progress bar (None: when stderr is a terminal)
    check_stability : bool  the linear stability check of explicit steps
    use_kernel : bool       the system's hand-written kernel as the vector field
    linear_solve : "auto", "matrix" or "solve"  the form of a linear implicit step
        (:func:`integrators.linear_implicit.resolve_form`)
    """

    backend: str = "numpy"
    dps: int | None = None
    tol: Any = None
    max_iter: int = 50
    newton: str = DEFAULT_NEWTON
    compensated: bool = False
    progress: bool | None = None
    check_stability: bool = True
    use_kernel: bool = False
    linear_solve: str = "auto"

    @property
    def precision(self) -> str:
        """The arithmetic of the run: "mpmath" or "numpy" (double precision: auto, compiled and jax included)."""
        return "mpmath" if self.backend == "mpmath" else "numpy"

    def solver_options(self) -> dict:
        """The keyword arguments every ``Step.bind`` takes: Newton's tolerance, iterations, mode and the digits."""
        return dict(tol=self.tol, max_iter=self.max_iter, dps=self.dps, newton=self.newton)


def check_options(backend="numpy", dps=None, tol=None, max_iter=50, newton=DEFAULT_NEWTON, compensated=False,
                  progress=None, check_stability=True, use_kernel=False, linear_solve="auto") -> RunOptions:
    """Check every option of a run and return them as :class:`RunOptions` (named errors otherwise)."""
    if not isinstance(linear_solve, str) or linear_solve not in LINEAR_SOLVE_FORMS:
        raise InvalidArgumentError(f"linear_solve must be one of {', '.join(map(repr, LINEAR_SOLVE_FORMS))}, got"
                                   f" {linear_solve!r}")
    if linear_solve == "matrix" and backend == "mpmath":
        raise InvalidArgumentError("linear_solve='matrix' is for double precision; backend='mpmath' solves every step"
                                   " (linear_solve='solve' or 'auto')")
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise InvalidArgumentError(f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {backend!r}")
    if backend == "mpmath":
        dps = check_count(DEFAULT_DPS if dps is None else dps, "dps", 1)
        if dps < MIN_DPS:
            raise InvalidArgumentError(f"dps must be at least {MIN_DPS} for backend='mpmath' (got {dps}); below"
                                       " double precision use backend='numpy'")
    elif dps is not None:
        raise InvalidArgumentError(f"dps applies to backend='mpmath' only; {backend} runs in double precision")
    use_kernel = check_flag(use_kernel, "use_kernel")
    if backend == "auto" and (use_kernel or compensated is True):
        backend = "numpy"      # the kernel and compensated summation run on the numpy path only
    if use_kernel and (backend != "numpy" or compensated is not False):
        raise SchemeNotApplicableError(f"use_kernel=True runs the hand-written numpy kernel: backend='numpy' and"
                                       f" compensated=False are needed (got backend={backend!r},"
                                       f" compensated={compensated!r})")
    compensated = check_flag(compensated, "compensated")
    if compensated and backend in ("compiled", "jax"):
        raise InvalidArgumentError(f"compensated summation is not available on backend={backend!r}; use numpy")
    return RunOptions(backend=backend, dps=dps, tol=check_tolerance(tol, backend, dps),
                      max_iter=check_count(max_iter, "max_iter", 1), newton=check_newton_mode(newton),
                      compensated=compensated, progress=check_flag(progress, "progress", allow_none=True),
                      check_stability=check_flag(check_stability, "check_stability"), use_kernel=use_kernel,
                      linear_solve=linear_solve)


# ------------------------------------------------------------------------ numbers


def to_mpf(v, dps: int) -> mpmath.mpf:
    """``v`` (a number, a decimal string, a Fraction or a sympy number) as an mpf, 5 guard digits above ``dps``."""
    with mpmath.workdps(dps + 5):
        if isinstance(v, mpmath.mpf):
            return +v
        if isinstance(v, sympy.Basic):
            return mpmath.mpf(sympy.N(v, dps + 5))
        if isinstance(v, Fraction):
            return mpmath.mpf(v.numerator) / v.denominator
        return mpmath.mpf(v)


def check_count(value, name: str, minimum: int) -> int:
    """An integer option (``steps``, ``save_every``, ...) at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise InvalidArgumentError(f"{name} must be an integer >= {minimum}, got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise InvalidArgumentError(f"{name} must be an integer >= {minimum}, got {value}")
    return int(value)


def check_flag(value, name: str, allow_none: bool = False):
    """A True/False option (or None where allowed)."""
    if value is None and allow_none:
        return value
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(f"{name} must be True or False{' or None' if allow_none else ''}, got {value!r}")
    return bool(value)


def check_tolerance(tol, backend: str, dps: int | None):
    """None, or the Newton tolerance as a positive finite real number (an mpf for mpmath)."""
    if tol is None:
        return None
    bad = InvalidArgumentError(f"tol must be a positive finite real number (the Newton tolerance), got {tol!r}")
    if isinstance(tol, (bool, complex)) or not isinstance(tol, (numbers.Real, np.floating, str, sympy.Basic,
                                                                  mpmath.mpf)):
        raise bad
    try:
        value = to_mpf(tol, dps or 15)
    except (TypeError, ValueError, AttributeError):
        raise bad from None
    if not (mpmath.isfinite(value) and value > 0):
        raise bad
    return value if backend == "mpmath" else float(value)


def _real_value(value, backend: str, dps: int | None):
    """``(value, finite)`` in the run's arithmetic; TypeError/ValueError for what is not a real number."""
    if backend == "mpmath":
        v = to_mpf(value, dps)
        return v, bool(mpmath.isfinite(v))
    if isinstance(value, str) or (isinstance(value, sympy.Basic) and not getattr(value, "is_number", False)):
        raise TypeError
    v = float(sympy.N(value)) if isinstance(value, sympy.Basic) else float(value)
    return v, math.isfinite(v)


def check_dt(dt, backend: str, dps: int | None):
    """The step size as a positive finite number (an mpf for mpmath, a float otherwise)."""
    if isinstance(dt, (bool, complex)):
        raise InvalidArgumentError(f"dt must be a positive finite real number, got {dt!r}")
    try:
        value, finite = _real_value(dt, backend if backend == "mpmath" else "numpy", dps)
    except OverflowError:
        raise InvalidArgumentError(f"dt must be finite in double precision, got {dt!r}") from None
    except (TypeError, ValueError, AttributeError):
        raise InvalidArgumentError(f"dt must be a positive finite real number, got {dt!r} ({type(dt).__name__})") from None
    if not finite:
        raise InvalidArgumentError(f"dt must be finite, got {dt!r}")
    if not value > 0:
        raise InvalidArgumentError(f"dt must be positive, got {dt!r}" + (" (zero)" if value == 0 else ""))
    return value


def check_t0(t0, backend: str, dps: int | None):
    """The start time, checked finite and real (returned as given)."""
    bad = InvalidArgumentError(f"t0 must be a finite real number, got {t0!r} ({type(t0).__name__})")
    if isinstance(t0, (bool, complex)) or t0 is None:
        raise bad
    try:
        _, finite = _real_value(t0, backend if backend == "mpmath" else "numpy", dps)
    except (TypeError, ValueError, AttributeError, OverflowError):
        raise bad from None
    if not finite:
        raise bad
    return t0


def check_y0(y0, dim: int, backend: str, dps: int | None, coords) -> tuple[np.ndarray, bool]:
    """``(Y, single)``: the initial states as a ``(batch, dim)`` array (mpf objects for mpmath)."""
    names = ", ".join(str(c) for c in coords)
    if backend != "mpmath":
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
        raise ShapeError(f"y0 has shape {arr.shape}; expected ({dim},) for one trajectory or (batch, {dim}) for an"
                         f" ensemble, the last axis holding the coordinates ({names})")
    single = arr.ndim == 1
    arr2 = arr[None, :] if single else arr
    if backend != "mpmath":
        bad = ~np.isfinite(arr2)
        if bad.any():
            b, i = map(int, np.argwhere(bad)[0])
            raise InvalidArgumentError(f"y0 contains a non-finite value ({arr2[b, i]}) at trajectory {b}, coordinate"
                                       f" {coords[i]}; every initial value must be a finite number")
        return np.ascontiguousarray(arr2), single
    out = np.empty(arr2.shape, dtype=object)
    for (b, i), v in np.ndenumerate(arr2):
        try:
            val = to_mpf(v, dps)
        except (TypeError, ValueError):
            raise ShapeError(f"y0[{b}][{i}] = {v!r} is not a number") from None
        if not mpmath.isfinite(val):
            raise InvalidArgumentError(f"y0 contains a non-finite value ({v}) at trajectory {b}, coordinate"
                                       f" {coords[i]}; every initial value must be a finite number")
        out[b, i] = val
    return out, single


def is_finite_real(v) -> bool:
    """Whether ``v`` (a number or an array of them) is real and finite."""
    try:
        values = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        return False
    return bool(np.all(np.isfinite(values)))


def parameter_values(system, params) -> dict:
    """``{constant: value}`` of every constant of ``system``: its own values overridden by ``params``."""
    if params is not None and not isinstance(params, Mapping):
        raise InvalidArgumentError(f"params must be a mapping {{name or Symbol: number}}, got {params!r}"
                                   f" ({type(params).__name__})")
    constants = ", ".join(map(str, system.parameters)) or "none"
    values = dict(system.parameter_values)
    for k, v in dict(params or {}).items():
        if isinstance(k, str):
            match = [s for s in system.parameters if s.name == k]
            if not match:
                raise InvalidArgumentError(f"params: {k!r} is not a constant of the system; its constants are"
                                           f" {constants}")
            k = match[0]
        if k not in system.parameters:
            raise InvalidArgumentError(f"params: {k} is not a constant of the system; its constants are {constants}")
        if not is_finite_real(v):
            raise InvalidArgumentError(f"params: the value {v!r} of {k} is not a finite real number")
        values[k] = v
    missing = [s for s in system.parameters if s not in values]
    if missing:
        raise InvalidArgumentError(
            f"no numeric value for the constant(s) {', '.join(map(str, missing))} of {system!r}; pass"
            f" params={{{', '.join(repr(s.name) + ': ...' for s in missing)}}} (or parameters= to the system)")
    return values


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def _count_text(n: int) -> str:
    return f"{n:,}" if n < 10**15 else f"about 10^{len(str(n)) - 1}"


def check_saved_size(steps: int, save_every: int, batch: int, dim: int, backend: str) -> None:
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


# ------------------------------------------------------------------------ progress bar


class ProgressBar:
    """A one-line bar written with carriage returns to ``stream`` (at most ~100 redraws per run)."""

    WIDTH = 30

    def __init__(self, total: int, stream, delay: float = 0.0):
        self.total = max(int(total), 1)
        self.stream = stream
        self.delay = delay
        self.start = time.perf_counter()
        self.every = max(1, self.total // 100)
        self.shown = False

    def update(self, n: int) -> None:
        if n % self.every and n != self.total:
            return
        elapsed = time.perf_counter() - self.start
        if elapsed < self.delay:
            return
        filled = self.WIDTH * n // self.total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\r[{bar}] {100 * n // self.total:3d}% {n}/{self.total} steps {elapsed:.1f} s")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def progress_bar(progress: bool | None, steps: int) -> ProgressBar | None:
    """The bar a run shows: None (the default) only on a terminal after half a second; True always."""
    if progress is None:
        stream = sys.stderr
        isatty = getattr(stream, "isatty", None)
        if stream is None or isatty is None or not isatty():
            return None
        return ProgressBar(steps, stream, delay=0.5)
    if progress is True:
        return ProgressBar(steps, sys.stderr)
    return None

