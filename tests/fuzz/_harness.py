"""Shared machinery of the bad-input fuzz suite: a hard per-case deadline and the outcome rules.

Every generated case must end in one of two ways:

* a :class:`geomcheck.errors.GeomcheckError` whose message is a sentence that names what was
  wrong (checked by :func:`expect_error`); or
* a result, which the test then checks against an independently known answer.

Anything else (a foreign exception, a silent acceptance of nonsense, a hang) fails the test.

The deadline uses ``ITIMER_VIRTUAL`` (process CPU time, signal SIGVTALRM) rather than the
wall clock, for two reasons: geomcheck's own zero-test safety net arms SIGALRM/ITIMER_REAL
only when nobody else holds it (``geomcheck.zero.budget.Alarm``), so taking SIGALRM here
would silently switch that net off and test different code than users run; and on this
shared, loaded machine CPU time does not count the time other people's jobs take.
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading

import mpmath
import numpy as np
import sympy

from geomcheck.errors import GeomcheckError

#: CPU seconds one case may take before it counts as a hang
DEFAULT_SECONDS = 8.0


class Hang(BaseException):
    """A case ran out of its CPU-time deadline (BaseException: sympy's ``except Exception`` cannot eat it)."""


@contextlib.contextmanager
def deadline(seconds: float = DEFAULT_SECONDS):
    """Raise :class:`Hang` in the main thread when the block uses more than ``seconds`` of CPU time."""
    if threading.current_thread() is not threading.main_thread():  # pragma: no cover - pytest runs in main
        yield
        return

    def _raise(signum, frame):
        raise Hang(f"no answer within {seconds} s of CPU time")

    old = signal.signal(signal.SIGVTALRM, _raise)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, old)


class Outcome:
    """What one guarded call did: ``value`` on success, ``error`` (a GeomcheckError) on refusal."""

    def __init__(self, value=None, error=None):
        self.value = value
        self.error = error

    @property
    def refused(self) -> bool:
        return self.error is not None

    def __repr__(self):
        return f"Outcome(error={self.error!r})" if self.refused else f"Outcome(value={self.value!r:.200})"


def guarded(fn, *args, seconds: float = DEFAULT_SECONDS, **kwargs) -> Outcome:
    """Call ``fn(*args, **kwargs)`` under a deadline; a GeomcheckError is an outcome, anything else fails.

    A foreign exception propagates unchanged (pytest shows its traceback: that is the bug
    report); a hang raises :class:`Hang`.
    """
    with deadline(seconds):
        try:
            return Outcome(value=fn(*args, **kwargs))
        except GeomcheckError as exc:
            return Outcome(error=exc)


def _check_message(exc, names):
    msg = str(exc)
    assert len(msg) >= 20, f"{type(exc).__name__} with a message too short to say what was wrong: {msg!r}"
    if names:
        low = msg.lower()
        assert any(str(n).lower() in low for n in names), (
            f"{type(exc).__name__}: the message does not name any of {names!r}: {msg!r}")


def expect_error(fn, *args, names=(), kinds=(GeomcheckError,), seconds: float = DEFAULT_SECONDS, **kwargs):
    """``fn`` must refuse with a GeomcheckError of one of ``kinds`` whose message names one of ``names``.

    ``names`` are fragments (the argument's name, the offending value, the expected kind) of
    which at least one must appear in the message: a refusal that does not say what it
    refused is not a diagnosis.  Returns the error.
    """
    out = guarded(fn, *args, seconds=seconds, **kwargs)
    assert out.refused, f"nonsense silently accepted: {fn.__name__ if hasattr(fn, '__name__') else fn} -> {out!r}"
    assert isinstance(out.error, kinds), f"{type(out.error).__name__} raised, expected one of {kinds}: {out.error}"
    _check_message(out.error, names)
    return out.error


def error_or(fn, *args, names=(), seconds: float = DEFAULT_SECONDS, **kwargs) -> Outcome:
    """``fn`` may refuse (with a named GeomcheckError) or answer; the caller checks an answer."""
    out = guarded(fn, *args, seconds=seconds, **kwargs)
    if out.refused:
        _check_message(out.error, names)
    return out


# ------------------------------------------------------------------------- bad values

NON_FINITE = [sympy.nan, sympy.oo, -sympy.oo, sympy.zoo, float("nan"), float("inf"), -float("inf"), np.nan,
              mpmath.mpf("inf"), mpmath.mpf("nan")]
NOT_REAL = [sympy.I, 1j, 1 + 2j, sympy.Integer(2) + sympy.I, np.complex128(1 + 1j), mpmath.mpc(1, 1)]
NOT_NUMBERS = ["x", "", "1.0.0", "nan", None, [], [1.0], [[1.0]], {}, (), object(), b"1", {1, 2},
               np.array([1.0, 2.0]), np.array(["a"]), np.array([None], dtype=object), sympy.Matrix([1, 2]),
               sympy.Eq(sympy.Symbol("a"), 1), sympy.true, sympy.S.EmptySet, sympy.Tuple(1, 2)]
HUGE = [10**400, -10**400, 10**15, 2**63, 2**64 + 1]


def is_finite_real_number(v) -> bool:
    """An independent oracle: does ``v`` denote one finite real number?"""
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    if isinstance(v, (float, np.floating)):
        return math.isfinite(v)
    if isinstance(v, mpmath.mpf):
        return bool(mpmath.isfinite(v))
    if isinstance(v, sympy.Basic):
        return bool(v.is_number and v.is_extended_real and v.is_finite)
    return False
