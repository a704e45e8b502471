"""Time budgets: cooperative deadline checks, and a SIGALRM safety net where one is safe to arm."""

from __future__ import annotations

import signal
import threading
import time

__all__ = ["Interrupted", "check_deadline", "Alarm", "CHECK_EVERY"]

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


def check_deadline(deadline):
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


