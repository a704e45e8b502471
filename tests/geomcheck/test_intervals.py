"""Outward-rounded interval arithmetic: every enclosure holds the true values."""

import math
import random
from fractions import Fraction

import mpmath
import pytest

import geomcheck.intervals as iv
from geomcheck.intervals import Interval, interval_of_number


def _points(x: Interval, n=64):
    lo = x.lo if math.isfinite(x.lo) else -50.0
    hi = x.hi if math.isfinite(x.hi) else 50.0
    rnd = random.Random(7)
    return [lo, hi] + [lo + (hi - lo) * rnd.random() for _ in range(n)]


@pytest.mark.parametrize("f, F", [(iv.exp, mpmath.exp), (iv.sin, mpmath.sin), (iv.cos, mpmath.cos),
                                  (iv.atan, mpmath.atan), (iv.tanh, mpmath.tanh), (iv.sinh, mpmath.sinh),
                                  (iv.cosh, mpmath.cosh), (iv.asinh, mpmath.asinh), (iv.abs_, abs),
                                  (iv.erf, mpmath.erf)])
@pytest.mark.parametrize("box", [(-1, 1), (0.25, 3.5), (-40, -30), (1e-300, 1e-200), (2, 2)])
def test_functions_enclose_their_values(f, F, box):
    x = Interval(*box)
    y = f(x)
    for t in _points(x):
        v = float(F(mpmath.mpf(t)))
        assert y.lo <= v <= y.hi, (f, box, t, v, y)


def test_arithmetic_encloses_and_rounds_outward():
    third = interval_of_number(Fraction(1, 3))
    assert third.lo < 1 / 3 < third.hi or third.lo <= Fraction(1, 3) <= third.hi
    x, y = Interval(-2, 3), Interval(0.5, 4)
    for a in _points(x, 16):
        for b in _points(y, 16):
            assert (x + y).lo <= a + b <= (x + y).hi
            assert (x * y).lo <= a * b <= (x * y).hi
            assert (x / y).lo <= a / b <= (x / y).hi
    assert (Interval(0.1, 0.1) + Interval(0.2, 0.2)).lo < 0.1 + 0.2 < (Interval(0.1, 0.1) + Interval(0.2, 0.2)).hi


def test_signs_survive_where_they_are_strict():
    whole = Interval(-math.inf, math.inf)
    assert iv.exp(whole).positive and not iv.exp(whole).contains(0.0)
    assert (iv.exp(whole) + Interval(0, 1)).positive
    assert (iv.exp(whole) * iv.exp(whole)).positive
    assert (Interval(1, 2) ** 2).positive and not (Interval(-1, 1) ** 2).positive
    assert (Interval(-1, 1) ** 2).nonnegative
    assert (-iv.exp(whole)).negative
    assert iv.abs_(Interval(-3, -1)).positive and not iv.abs_(Interval(-1, 1)).positive


def test_poles_are_flagged():
    assert Interval(-1, 1).reciprocal().pole
    assert iv.tan(Interval(1, 2)).pole and not iv.tan(Interval(-1, 1)).pole
    assert (Interval(1, 2) / Interval(-1, 1)).pole
    assert iv.log(Interval(0, 1)).pole and not iv.log(Interval(0.5, 1)).pole
    assert not iv.exp(whole := Interval(-math.inf, math.inf)).reciprocal().pole and whole.bounded is False


def test_bad_interval_is_refused():
    with pytest.raises(ValueError):
        Interval(2, 1)
