"""Budgets: cooperative deadline checks, work units, and a SIGALRM safety net where one is safe to arm.

A budget in seconds depends on the machine and its load; a budget in *work units* does
not.  A work unit is one step of our own loops (a node evaluated, a term multiplied, a
polynomial summand added), counted where those loops check the clock.  The same input and
the same work budget therefore give the same verdict in any thread, process or Dask worker,
on any machine, as long as the time budget does not run out first.
"""

from __future__ import annotations

import contextlib
import contextvars
import signal
import threading
import time
from collections.abc import Iterator

__all__ = ["Interrupted", "WorkExhausted", "check_deadline", "work_budget", "Alarm", "CHECK_EVERY"]

CHECK_EVERY = 2048  # nodes between clock checks in the interpreters


#: how soon the alarm fires again when it met a garbage-collection callback
RETRY_SECONDS = 0.005


def _in_gc_callback(frame) -> bool:
    """Whether ``frame`` (or a caller) runs one of ``gc.callbacks`` (hypothesis registers one)."""
    import gc

    codes = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    codes |= {getattr(getattr(cb, "__func__", None), "__code__", None) for cb in gc.callbacks}
    codes.discard(None)
    depth = 0
    while frame is not None and depth < 8 and codes:
        if frame.f_code in codes:
            return True
        frame, depth = frame.f_back, depth + 1
    return False


class Interrupted(BaseException):
    """The clock ran out (BaseException so that sympy's ``except Exception`` cannot eat it)."""


class WorkExhausted(Interrupted):
    """The work budget ran out (a deterministic event, unlike the clock)."""

    def __init__(self, meter):
        super().__init__(meter.limit)
        self.meter = meter


class WorkMeter:
    """Work units spent against a limit; a nested meter also charges the one it is inside."""

    __slots__ = ("limit", "used", "parent")

    def __init__(self, limit, parent=None):
        self.limit = limit
        self.used = 0
        self.parent = parent

    def charge(self, units):
        meter = self
        while meter is not None:
            meter.used += units
            if meter.used > meter.limit:
                raise WorkExhausted(meter)
            meter = meter.parent


#: the meter of the decision running now (charged by check_deadline), and the meter of the
#: enclosing work_budget block (charged through the decisions inside it, not by the work done
#: between them, where running out could not be answered with "unknown")
_METER: contextvars.ContextVar = contextvars.ContextVar("geomcheck_work_meter", default=None)
_BLOCK: contextvars.ContextVar = contextvars.ContextVar("geomcheck_work_block", default=None)


@contextlib.contextmanager
def metered(units=None):
    """Run one decision against ``units`` (or no limit of its own) and every enclosing budget."""
    parent = _METER.get() or _BLOCK.get()
    if units is None and parent is None:
        yield None
        return
    meter = WorkMeter(float("inf") if units is None else units, parent)
    token = _METER.set(meter)
    try:
        yield meter
    finally:
        _METER.reset(token)


@contextlib.contextmanager
def work_budget(units: int | None) -> Iterator[WorkMeter | None]:
    """Limit every zero decision inside the block to ``units`` work units in all.

    A decision that runs out answers None ("the work budget ... ran out"), exactly as for
    the time budget, which still applies.  Unlike seconds, work units do not depend on the
    machine or its load: the verdicts inside the block are the same wherever it runs.
    Blocks nest (the inner limit and the outer one both apply).  ``None`` adds no limit.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.zero import decide_zero, work_budget
    >>> x = sympy.Symbol("x")
    >>> with work_budget(10**6):
    ...     decide_zero(sympy.sin(x)**2 + sympy.cos(x)**2 - 1).is_zero
    True
    """
    check_work_units(units)
    if units is None:
        yield None
        return
    meter = WorkMeter(units, _BLOCK.get())
    token = _BLOCK.set(meter)
    try:
        yield meter
    finally:
        _BLOCK.reset(token)


def check_work_units(units) -> None:
    """Refuse a work budget that is not None or a positive int."""
    if units is not None and (isinstance(units, bool) or not isinstance(units, int) or units <= 0):
        from ..errors import InvalidArgumentError

        raise InvalidArgumentError(f"a work budget must be None or a positive int (work units), got {units!r}")


def charge(units) -> None:
    """Charge ``units`` of work to the current decision, without reading the clock (for the
    up-front charge of a loop that checks the clock itself)."""
    meter = _METER.get()
    if meter is not None:
        meter.charge(units)


def check_deadline(deadline, units=1):
    """Charge ``units`` of work to the current work budget, then check the clock."""
    meter = _METER.get()
    if meter is not None:
        meter.charge(units)
    if deadline is not None and time.monotonic() > deadline:
        raise Interrupted


class Alarm:
    """Raise :class:`Interrupted` at ``deadline`` via SIGALRM, when that is safe to arm.

    Only in the main thread, on POSIX, and only when nobody else uses SIGALRM/ITIMER_REAL
    (pytest-timeout, for one): a foreign handler is never replaced.
    """

    def __init__(self, deadline):
        self.deadline = deadline
        self.armed = False
        self._old = None

    def __enter__(self):
        if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            return self
        try:
            old = signal.getsignal(signal.SIGALRM)
            if old not in (signal.SIG_DFL, signal.SIG_IGN, None) or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
                return self
            delay = self.deadline - time.monotonic()
            if delay <= 0:
                raise Interrupted
            self._old = old
            self.armed = True
            signal.signal(signal.SIGALRM, self._handler)
            signal.setitimer(signal.ITIMER_REAL, delay)
        except (ValueError, OSError):
            self.armed = False
        return self

    def _handler(self, signum, frame):
        if not self.armed:
            return
        if _in_gc_callback(frame):
            # an exception raised in a garbage-collection callback is printed and lost
            # ("Exception ignored in ..."): try again as soon as the callback has returned
            signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)
            return
        self.armed = False
        raise Interrupted

    def __exit__(self, *exc):
        if self._old is not None or self.armed:
            self.armed = False
            try:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, self._old if self._old is not None else signal.SIG_DFL)
            except (ValueError, OSError):
                pass
        return False


