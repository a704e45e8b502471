"""Outward-rounded interval arithmetic: enclosures of values over whole boxes.

An :class:`Interval` ``[lo, hi]`` (ends may be infinite) encloses every value a
quantity can take; every operation returns an interval that encloses every result,
its ends rounded outward (by two units in the last place, more than the error of the
C library's functions).  Strict signs survive rounding: ``exp(x)`` on the whole line is
``[0, inf]`` with 0 excluded, so it is provably positive.  ``pole`` marks an enclosure of a quantity that may be
undefined or infinite somewhere (a division by an interval holding 0, ``tan`` across
``pi/2``): its ends are then ``-inf, inf``.

This is the arithmetic behind the sign prover (:mod:`geomcheck.signs`) and the
branch analysis of the zero test (:mod:`geomcheck.zero.analyticity`): both ask
whether a quantity can reach a value (0, a branch point) anywhere on a domain.

>>> x = Interval(1, 2)
>>> y = x * x - x          # dependency: wider than the true range [0, 2]
>>> y.lo <= 0 and y.hi >= 2
True
>>> (Interval(-1, 1) ** 2).lo
0.0
>>> Interval(-1, 1).reciprocal().pole
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Interval", "ENTIRE", "interval_of_number"]

_INF = math.inf


def _down(v: float) -> float:
    if v == -_INF or math.isnan(v):
        return -_INF
    return math.nextafter(math.nextafter(v, -_INF), -_INF)


def _up(v: float) -> float:
    if v == _INF or math.isnan(v):
        return _INF
    return math.nextafter(math.nextafter(v, _INF), _INF)


def _safe(f, *args, default):
    try:
        v = f(*args)
    except (OverflowError, ValueError, ZeroDivisionError):
        return default
    return default if math.isnan(v) else v


@dataclass(frozen=True)
class Interval:
    """The closed interval ``[lo, hi]`` (floats, ends may be infinite), and whether a pole may lie inside.

    Parameters
    ----------
    lo, hi : float
        The ends, ``lo <= hi``.
    pole : bool
        The enclosed quantity may be undefined or infinite somewhere in the box.
    """

    lo: float
    hi: float
    pole: bool = False
    zero_excluded: bool = False  # an end is 0 but 0 itself is not enclosed (exp(x) > 0)

    def __post_init__(self):
        lo, hi = float(self.lo), float(self.hi)
        if math.isnan(lo) or math.isnan(hi):
            lo, hi = -_INF, _INF
        if lo > hi:
            raise ValueError(f"Interval({lo}, {hi}): the lower end exceeds the upper end")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        if self.zero_excluded and not (lo == 0 or hi == 0):
            object.__setattr__(self, "zero_excluded", False)

    # -- queries
    def contains(self, v: float) -> bool:
        """True when ``v`` may be enclosed (always, when a pole makes it unknown)."""
        if v == 0 and self.zero_excluded:
            return self.pole
        return self.pole or self.lo <= v <= self.hi

    def excludes(self, v: float) -> bool:
        """True only when ``v`` provably lies outside the interval."""
        return not self.contains(v)

    @property
    def positive(self) -> bool:
        """Every enclosed value is > 0."""
        return not self.pole and (self.lo > 0 or (self.lo == 0 and self.zero_excluded and self.hi > 0))

    @property
    def negative(self) -> bool:
        """Every enclosed value is < 0."""
        return not self.pole and (self.hi < 0 or (self.hi == 0 and self.zero_excluded and self.lo < 0))

    @property
    def nonnegative(self) -> bool:
        return not self.pole and self.lo >= 0

    @property
    def nonpositive(self) -> bool:
        return not self.pole and self.hi <= 0

    @property
    def bounded(self) -> bool:
        return not self.pole and math.isfinite(self.lo) and math.isfinite(self.hi)

    def within(self, lo: float, hi: float) -> bool:
        """Every enclosed value lies in the open interval ``(lo, hi)``."""
        return not self.pole and lo < self.lo and self.hi < hi

    # -- arithmetic
    def __neg__(self):
        return Interval(-self.hi, -self.lo, self.pole, self.zero_excluded)

    def __add__(self, other):
        other = _coerce(other)
        if self.pole or other.pole:
            return ENTIRE_POLE
        lo, hi = self.lo + other.lo, self.hi + other.hi
        out = Interval(-_INF if math.isnan(lo) else _down(lo), _INF if math.isnan(hi) else _up(hi))
        if (self.positive and other.nonnegative) or (self.nonnegative and other.positive):
            return _positive(out)
        if (self.negative and other.nonpositive) or (self.nonpositive and other.negative):
            return _negative(out)
        return out

    __radd__ = __add__

    def __sub__(self, other):
        return self + (-_coerce(other))

    def __rsub__(self, other):
        return _coerce(other) + (-self)

    def __mul__(self, other):
        other = _coerce(other)
        if self.pole or other.pole:
            return ENTIRE_POLE
        products = []
        for a in (self.lo, self.hi):
            for b in (other.lo, other.hi):
                if (a == 0 and math.isinf(b)) or (b == 0 and math.isinf(a)):
                    products.append(0.0)  # the finite factor is exactly 0 at that end
                else:
                    products.append(a * b)
        out = Interval(_down(min(products)), _up(max(products)))
        if (self.positive and other.positive) or (self.negative and other.negative):
            return _positive(out)
        if (self.positive and other.negative) or (self.negative and other.positive):
            return _negative(out)
        return out

    __rmul__ = __mul__

    def reciprocal(self):
        """``1/x``; a pole when the interval holds 0."""
        if self.pole or self.contains(0.0):
            return ENTIRE_POLE
        # one sign throughout: 1/x is decreasing, so the ends swap
        lo = 0.0 if math.isinf(self.hi) else _safe(lambda: 1 / self.hi, default=-_INF)
        hi = 0.0 if math.isinf(self.lo) else _safe(lambda: 1 / self.lo, default=_INF)
        out = Interval(_down(lo) if lo else lo, _up(hi) if hi else hi)
        return _positive(out) if self.positive else _negative(out)

    def __truediv__(self, other):
        return self * _coerce(other).reciprocal()

    def __rtruediv__(self, other):
        return _coerce(other) * self.reciprocal()

    def __pow__(self, n):
        if not isinstance(n, int):
            raise TypeError("Interval ** n takes an integer n; use root() for fractional powers")
        if n == 0:
            return Interval(1.0, 1.0)
        if n < 0:
            return (self ** (-n)).reciprocal()
        if self.pole:
            return ENTIRE_POLE
        ends = [_safe(lambda v=v: v ** n, default=math.copysign(_INF, v) if n % 2 else _INF) for v in (self.lo, self.hi)]
        if n % 2:
            out = Interval(_down(ends[0]), _up(ends[1]))
            return _positive(out) if self.positive else (_negative(out) if self.negative else out)
        if self.lo >= 0:
            out = Interval(_down(ends[0]), _up(ends[1]))
        elif self.hi <= 0:
            out = Interval(_down(ends[1]), _up(ends[0]))
        else:
            return Interval(0.0, _up(max(ends)))
        return _positive(out) if (self.positive or self.negative) else Interval(max(out.lo, 0.0), out.hi)

    def hull(self, other):
        other = _coerce(other)
        return Interval(min(self.lo, other.lo), max(self.hi, other.hi), self.pole or other.pole)

    def __repr__(self):
        return f"Interval({self.lo!r}, {self.hi!r}{', pole' if self.pole else ''})"


def _positive(x: Interval) -> Interval:
    """``x`` known to hold only positive values: its lower end clipped at 0, 0 excluded."""
    return Interval(max(x.lo, 0.0), max(x.hi, 0.0), x.pole, True)


def _negative(x: Interval) -> Interval:
    return Interval(min(x.lo, 0.0), min(x.hi, 0.0), x.pole, True)


ENTIRE = Interval(-_INF, _INF)
ENTIRE_POLE = Interval(-_INF, _INF, True)


def _coerce(v) -> Interval:
    if isinstance(v, Interval):
        return v
    return interval_of_number(v)


def interval_of_number(v) -> Interval:
    """The tightest float interval around a number (int, float, Fraction, sympy Rational/Float/Integer, +-oo)."""
    if isinstance(v, Interval):
        return v
    if isinstance(v, (int, Fraction)) or type(v).__name__ in ("Integer", "Rational", "Zero", "One", "NegativeOne", "Half"):
        f = Fraction(int(v.p), int(v.q)) if hasattr(v, "p") else Fraction(v)
        try:
            x = float(f)
        except OverflowError:
            return Interval(_INF, _INF) if f > 0 else Interval(-_INF, -_INF)
        if Fraction(x) == f:
            return Interval(x, x)
        return Interval(_down(x), _up(x))
    if type(v).__name__ == "Infinity":
        return Interval(_INF, _INF)
    if type(v).__name__ == "NegativeInfinity":
        return Interval(-_INF, -_INF)
    x = float(v)
    if math.isnan(x):
        return ENTIRE_POLE
    return Interval(_down(x), _up(x)) if math.isfinite(x) else Interval(x, x)


# ---------------------------------------------------------------------------------- functions


def _monotone(f, x: Interval, increasing=True, lo_clip=-_INF, hi_clip=_INF) -> Interval:
    if x.pole:
        return ENTIRE_POLE
    a = _safe(f, x.lo, default=-_INF if increasing else _INF) if x.lo > -_INF else (lo_clip if increasing else hi_clip)
    b = _safe(f, x.hi, default=_INF if increasing else -_INF) if x.hi < _INF else (hi_clip if increasing else lo_clip)
    if not increasing:
        a, b = b, a
    return Interval(max(_down(a), lo_clip), min(_up(b), hi_clip))


def exp(x: Interval) -> Interval:
    if x.pole:
        return ENTIRE_POLE
    lo = 0.0 if x.lo == -_INF else max(0.0, _down(_safe(math.exp, x.lo, default=0.0)))
    hi = _INF if x.hi == _INF else _up(_safe(math.exp, x.hi, default=_INF))
    return _positive(Interval(lo, hi))


def log(x: Interval) -> Interval:
    """The real logarithm on the positive part (the caller checks the sign of the argument)."""
    if x.pole or x.hi <= 0:
        return ENTIRE_POLE
    lo = -_INF if x.lo <= 0 else _down(math.log(x.lo))
    hi = _INF if x.hi == _INF else _up(math.log(x.hi))
    return Interval(lo, hi, not x.positive)


def sqrt(x: Interval) -> Interval:
    """The real square root on the nonnegative part (the caller checks the sign of the argument)."""
    if x.pole or x.hi < 0:
        return ENTIRE_POLE
    lo = 0.0 if x.lo <= 0 else max(0.0, _down(math.sqrt(x.lo)))
    hi = _INF if x.hi == _INF else _up(math.sqrt(x.hi))
    out = Interval(lo, hi, x.lo < 0)
    return _positive(out) if x.positive else out


def root(x: Interval, q: int) -> Interval:
    """The real q-th root (odd q: on the whole line; even q: on the nonnegative part)."""
    if q % 2 == 0:
        if x.pole or x.hi < 0:
            return ENTIRE_POLE
        f = lambda v: v ** (1.0 / q)  # noqa: E731
        lo = 0.0 if x.lo <= 0 else max(0.0, _down(f(x.lo)))
        hi = _INF if x.hi == _INF else _up(f(x.hi))
        out = Interval(lo, hi, x.lo < 0)
        return _positive(out) if x.positive else out
    g = lambda v: math.copysign(abs(v) ** (1.0 / q), v)  # noqa: E731
    out = _monotone(g, x)
    return _positive(out) if x.positive else (_negative(out) if x.negative else out)


def _periodic(f, x: Interval, peaks) -> Interval:
    """sin / cos: exact range on short intervals from the critical points inside."""
    if x.pole:
        return ENTIRE_POLE
    if not x.bounded or x.hi - x.lo >= 2 * math.pi or max(abs(x.lo), abs(x.hi)) > 1e15:
        return Interval(-1.0, 1.0)
    vals = [f(x.lo), f(x.hi)]
    for base, value in peaks:  # critical points base + 2 pi k with value +-1
        k = math.ceil((x.lo - base) / (2 * math.pi))
        c = base + 2 * math.pi * k
        if c <= x.hi + 1e-12 * max(1.0, abs(c)):
            vals.append(value)
    return Interval(max(-1.0, _down(min(vals))), min(1.0, _up(max(vals))))


def sin(x: Interval) -> Interval:
    return _periodic(math.sin, x, [(math.pi / 2, 1.0), (-math.pi / 2, -1.0)])


def cos(x: Interval) -> Interval:
    return _periodic(math.cos, x, [(0.0, 1.0), (math.pi, -1.0)])


def tan(x: Interval) -> Interval:
    if x.pole or not x.bounded or x.hi - x.lo >= math.pi:
        return ENTIRE_POLE
    k = math.ceil((x.lo - math.pi / 2) / math.pi)
    if math.pi / 2 + k * math.pi <= x.hi + 1e-12 * max(1.0, abs(x.hi)):
        return ENTIRE_POLE
    return _monotone(math.tan, x)


def atan(x: Interval) -> Interval:
    return _monotone(math.atan, x, lo_clip=-math.pi / 2, hi_clip=math.pi / 2)


def sinh(x: Interval) -> Interval:
    return _monotone(math.sinh, x)


def cosh(x: Interval) -> Interval:
    if x.pole:
        return ENTIRE_POLE
    return _even_from_abs(math.cosh, x, 1.0)


def tanh(x: Interval) -> Interval:
    return _monotone(math.tanh, x, lo_clip=-1.0, hi_clip=1.0)


def _even_from_abs(f, x: Interval, at_zero: float) -> Interval:
    a = abs_(x)
    hi = _INF if a.hi == _INF else _up(_safe(f, a.hi, default=_INF))
    return Interval(max(at_zero if a.lo == 0 else _down(f(a.lo)), at_zero), hi)


def abs_(x: Interval) -> Interval:
    if x.pole:
        return Interval(0.0, _INF, True)
    if x.lo >= 0:
        return x
    if x.hi <= 0:
        return -x
    return Interval(0.0, max(-x.lo, x.hi))





def asin(x: Interval) -> Interval:
    return _monotone(math.asin, Interval(max(x.lo, -1.0), min(x.hi, 1.0)) if not x.pole else x,
                     lo_clip=-math.pi / 2, hi_clip=math.pi / 2)


def acos(x: Interval) -> Interval:
    return _monotone(math.acos, Interval(max(x.lo, -1.0), min(x.hi, 1.0)) if not x.pole else x,
                     increasing=False, lo_clip=0.0, hi_clip=math.pi)


def asinh(x: Interval) -> Interval:
    return _monotone(math.asinh, x)


def maximum(*xs: Interval) -> Interval:
    if any(x.pole for x in xs):
        return ENTIRE_POLE
    return Interval(max(x.lo for x in xs), max(x.hi for x in xs))


def minimum(*xs: Interval) -> Interval:
    if any(x.pole for x in xs):
        return ENTIRE_POLE
    return Interval(min(x.lo for x in xs), min(x.hi for x in xs))


def floor(x: Interval) -> Interval:
    if x.pole:
        return ENTIRE_POLE
    return Interval(math.floor(x.lo) if math.isfinite(x.lo) else x.lo, math.floor(x.hi) if math.isfinite(x.hi) else x.hi)


def ceiling(x: Interval) -> Interval:
    if x.pole:
        return ENTIRE_POLE
    return Interval(math.ceil(x.lo) if math.isfinite(x.lo) else x.lo, math.ceil(x.hi) if math.isfinite(x.hi) else x.hi)


def sign(x: Interval) -> Interval:
    if x.pole:
        return Interval(-1.0, 1.0, True)
    return Interval(-1.0 if x.lo < 0 else (0.0 if x.lo == 0 else 1.0), 1.0 if x.hi > 0 else (0.0 if x.hi == 0 else -1.0))


def erf(x: Interval) -> Interval:
    return _monotone(math.erf, x, lo_clip=-1.0, hi_clip=1.0)


def erfc(x: Interval) -> Interval:
    return _monotone(math.erfc, x, increasing=False, lo_clip=0.0, hi_clip=2.0)


#: enclosures of sympy function classes by name (the walkers map sympy classes to these)
FUNCTIONS = {
    "exp": exp, "log": log, "sin": sin, "cos": cos, "tan": tan, "atan": atan, "sinh": sinh,
    "cosh": cosh, "tanh": tanh, "Abs": abs_, "asin": asin, "acos": acos, "asinh": asinh,
    "Max": maximum, "Min": minimum, "floor": floor, "ceiling": ceiling, "sign": sign, "erf": erf, "erfc": erfc,
}
__all__ += ["FUNCTIONS", "exp", "log", "sqrt", "root", "sin", "cos", "tan", "atan", "sinh", "cosh", "tanh", "abs_",
            "asin", "acos", "asinh", "maximum", "minimum", "floor", "ceiling", "sign", "erf", "erfc"]
