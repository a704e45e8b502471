"""geomcheck.certify.precision: how much a number knows, and bounds that hold.

Truths: the digits of a decimal string are counted by hand; the majorant bound is checked
against the actual change of a polynomial at the corners of the uncertainty box (plain
mpmath); RK4 has order 4 (Kutta 1901) whatever container holds its 15-digit coefficients.
"""

import itertools
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from geomcheck.certify.precision import (
    Bounded,
    container_digits,
    data_precision,
    significant_digits,
)
from geomcheck.certify.tableaux import ButcherTableau, is_symplectic, order


@pytest.mark.parametrize("text, digits", [("-1.17767998417887", 15), ("0.784513610477560", 14), ("0.5", 1),
                                          ("123456.789", 9), ("1e-20", 1), ("0.33259913678935943859974864", 26)])
@pytest.mark.parametrize("dps", [30, 60, 100])
def test_significant_digits_do_not_depend_on_the_container(text, digits, dps):
    with mpmath.workdps(dps):
        assert significant_digits(mpmath.mpf(text)) == digits
    assert significant_digits(sp.Float(text, dps)) == digits


def test_python_floats_read_like_their_repr():
    for x in (0.1, 1 / 3, 2.0, -1.17767998417887, 1e300, 5e-324):
        assert significant_digits(x) == len(repr(x).split("e")[0].replace("-", "").replace(".", "").strip("0") or "0")
    assert significant_digits(0.0) == 0 and significant_digits(3) is None and significant_digits(Fraction(1, 3)) is None
    assert container_digits(1.0) == 16


def test_a_value_made_at_double_precision_cannot_gain_digits_in_a_bigger_container():
    with mpmath.workdps(15):
        x = mpmath.mpf(1) / 3
    with mpmath.workdps(60):
        assert significant_digits(x) <= 17
        y = mpmath.mpf(1) / 3
    assert significant_digits(y) >= 60


def test_data_precision_takes_the_coarsest_rounding_for_all():
    with mpmath.workdps(60):
        w = [mpmath.mpf(s) for s in ("-1.17767998417887", "0.235573213359357", "0.78451361047756")]
        w0 = 1 - 2 * sum(w)
    p = data_precision(w + [w0, 0, sp.Rational(1, 2)])
    assert p.table_digits == 14 and not p.exact
    assert p.deltas[0] == Fraction(1, 10 ** 13) and p.deltas[2] == Fraction(1, 10 ** 14)
    assert p.deltas[4] == 0 and p.deltas[5] == 0 and p.digits[5] is None
    assert data_precision([1, sp.sqrt(2)]).exact
    assert data_precision([0.5, 0.25]).deltas == (Fraction(1, 10 ** 16), Fraction(1, 10 ** 16))


def test_the_majorant_bound_contains_every_change_within_the_box():
    ctx = mpmath.MPContext()
    ctx.prec = 120
    xs = [ctx.mpf("0.7"), ctx.mpf("-1.3"), ctx.mpf("0.2")]
    ds = [1e-3, 2e-3, 5e-4]

    def f(a, b, c):                         # a polynomial with cancellations
        return a * a * b - 3 * b * c + c ** 3 - a * b * c * 2

    B = [Bounded.datum(ctx, x, d) for x, d in zip(xs, ds)]
    r = f(*B)
    assert abs(r.v - f(*xs)) < ctx.mpf(10) ** -30
    worst = max(abs(f(*[x + s * ctx.mpf(d) for x, s, d in zip(xs, signs, ds)]) - f(*xs))
                for signs in itertools.product((-1, 1), repeat=3))
    assert worst <= r.bound() < 20 * worst
    # refuted only when no point of the box makes it vanish
    assert not (r - f(*xs)).refuted()
    assert (r - f(*xs) + 10 * worst).refuted()


def test_division_only_by_exact_numbers():
    ctx = mpmath.MPContext()
    a = Bounded.datum(ctx, 1, 0.1)
    assert (a / 4).d == pytest.approx(0.025)
    with pytest.raises(TypeError):
        a / a


# --------------------------------------------------------------------------- inexact tableaux


def _rk4(convert):
    h, t, s = convert("0.5"), convert("0.333333333333333"), convert("0.166666666666667")
    return ButcherTableau([[0, 0, 0, 0], [h, 0, 0, 0], [0, h, 0, 0], [0, 0, 1, 0]], [s, t, t, s], exact=False)


@pytest.mark.parametrize("digits", [15, 30, 60])
def test_rk4_with_15_digit_weights_is_order_4_in_any_container(digits):
    T = _rk4(lambda x: sp.Float(x, digits))
    c = order(T, max_order=6)
    assert (c.order, c.holds, c.stage) == (4, True, "numeric") and str(c.failing_tree) == "[τ⁴]"
    assert c.claim.endswith("up to the 1e-14 precision of the entries")
    assert is_symplectic(T).holds is False


def test_an_inexact_tableau_that_reduces_is_decided_on_the_reduced_method():
    T = ButcherTableau([[0.25, 0.25], [0.25, 0.25]], [0.25, 0.75], exact=False)
    c = is_symplectic(T)
    assert c.holds is True and c.stage == "numeric" and "up to the precision of the entries" in c.method
