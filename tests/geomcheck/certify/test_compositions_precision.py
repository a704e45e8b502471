"""Inexact composition coefficients are judged against the precision they carry, not their container.

Truths: Yoshida's solution A (Phys. Lett. A 150 (1990), Table 1) and Kahan-Li's s9odr6a and
s17odr8a (Math. Comp. 66 (1997)) are methods of order 6, 6 and 8 whatever container holds their
published digits; the triple jump (Yoshida 1990) has order 4.  Where a condition must fail, its
value is recomputed here with plain mpmath (for a palindromic composition the weight-3 and
weight-5 single-letter conditions are sum gamma_i^3 and sum gamma_i^5).
"""

import mpmath
import pytest
import sympy as sp

from geomcheck.certify.compositions import (
    certify_composition_order,
    composition_order,
    is_symmetric_composition,
)

YOSHIDA_A = ("-1.17767998417887", "0.235573213359357", "0.784513610477560")
# Hairer, Lubich, Wanner, GNI, Sect. V.3.2: first half and middle of the palindromes
S9ODR6A = ("0.39216144400731413927925056", "0.33259913678935943859974864", "-0.70624617255763935980996482",
           "0.08221359629355080023149045", "0.79854399093482996339895035")
S17ODR8A = ("0.13020248308889008087881763", "0.56116298177510838456196441", "-0.38947496264484728640807860",
            "0.15884190655515560089621075", "-0.39590389413323757733623154", "0.18453964097831570709183254",
            "0.25837438768632204729397911", "0.29501172360931029887096624", "-0.60550853383003451169892108")


def yoshida(convert):
    w1, w2, w3 = (convert(x) for x in YOSHIDA_A)
    w0 = 1 - 2 * (w1 + w2 + w3)
    return [w3, w2, w1, w0, w1, w2, w3]


def palindrome(half, convert):
    h = [convert(x) for x in half]
    return h + h[-2::-1]


@pytest.mark.parametrize("dps", [None, 30, 60])
def test_yoshida_published_digits_are_order_six_in_every_container(dps):
    if dps is None:
        g = yoshida(float)
    else:
        with mpmath.workdps(dps):
            g = yoshida(mpmath.mpf)
    r = composition_order(g)
    assert r.order == 6 and r.exact                       # order 7 fails for every nearby coefficient
    assert r.certificate.holds is True and r.certificate.stage == "numeric"
    assert r.precision is not None and 1e-16 < r.precision.relative < 1e-12
    assert r.certificate.claim.endswith(f"up to the {r.precision.label} precision of the coefficients")
    assert r.failure.holds is False and "every choice of the coefficients" in r.failure.method
    assert {c.weight for c in r.conditions} == {7}


def test_yoshida_as_sympy_floats_of_60_digits_made_from_the_strings():
    g = yoshida(lambda s: sp.Float(s, 60))
    r = composition_order(g)
    assert r.order == 6 and r.precision.table_digits in (14, 15)


@pytest.mark.parametrize("half, order", [(S9ODR6A, 6), (S17ODR8A, 8)])
def test_kahan_li_published_26_digits_at_60_digits(half, order):
    with mpmath.workdps(60):
        g = palindrome(half, mpmath.mpf)
    r = composition_order(g)
    assert r.order == order and r.exact and r.precision.label in ("1e-25", "1e-24")
    assert certify_composition_order(g, order).holds is True


def test_the_same_published_digits_give_the_same_verdict_in_floats():
    # a double rounds 26 digits to 15-17; one that happens to print with 14 sets the precision
    r = composition_order(palindrome(S9ODR6A, float))
    assert r.order == 6 and r.exact and 1e-16 < r.precision.relative < 1e-12


def test_a_perturbation_beyond_the_precision_is_refuted():
    with mpmath.workdps(60):
        g = yoshida(mpmath.mpf)
        g[0] += mpmath.mpf("1e-4")
        g[-1] += mpmath.mpf("1e-4")
        g[3] -= mpmath.mpf("2e-4")                       # keeps the sum and the palindrome
        a3 = mpmath.fsum(x ** 3 for x in g)             # the weight-3 condition, by hand
    assert abs(a3) > 1e-4
    r = composition_order(g)
    assert r.order == 2 and r.exact and [c.label for c in r.conditions] == ["A3"]
    assert abs(float(r.conditions[0].value) - float(a3)) < 1e-12


def test_low_precision_data_hold_up_to_their_precision():
    # the triple jump to 4 digits: the weight-3 condition is 1e-3 off, which 4 digits explain;
    # the weight-5 condition sum gamma^5 is far from 0 for every coefficient within 1e-3
    g = [1.351, -1.702, 1.351]
    r = composition_order(g)
    assert r.order == 4 and r.exact and r.precision.label == "1e-3"
    a5 = sum(x ** 5 for x in g)
    assert abs(a5) > 1
    assert "up to the 1e-3 precision" in r.certificate.claim
    # the same digits read as exact rationals are only of order 2: the verdict is about the data
    exact = composition_order([sp.Rational("1.351"), sp.Rational("-1.702"), sp.Rational("1.351")])
    assert exact.order == 2 and exact.precision is None


@pytest.mark.parametrize("g", [[0.5, 0.5], [1.0], [0.1] * 10, [1 / 3] * 3])
def test_short_decimals_are_taken_at_their_container_precision(g):
    r = composition_order(g)
    assert r.order == 2 and r.exact and r.precision.label in ("1e-15", "1e-14")


def test_an_imposed_precision_overrides_the_estimate():
    g = yoshida(float)
    assert composition_order(g, tol=1e-30).order == 2           # pretending the 15 digits are exact
    assert composition_order(g, tol=1e-12).order == 6


def test_inexact_palindromes_are_compared_up_to_their_precision():
    with mpmath.workdps(60):
        g = yoshida(mpmath.mpf)
        assert is_symmetric_composition(g)
        g[0] += mpmath.mpf("1e-6")
    assert not is_symmetric_composition(g)


def test_complex_inexact_coefficients_agree_with_the_exact_ones():
    # gamma = 1/2 +- i sqrt(3)/6: order 3 (the weight-4 condition [A1,A3] is -i sqrt(3)/18)
    exact = composition_order([sp.Rational(1, 2) + sp.I * sp.sqrt(3) / 6, sp.Rational(1, 2) - sp.I * sp.sqrt(3) / 6])
    im = 3 ** 0.5 / 6
    approx = composition_order([complex(0.5, im), complex(0.5, -im)])
    assert exact.order == approx.order == 3 and approx.exact
    ref = complex(sp.N(-sp.I * sp.sqrt(3) / 18))
    assert abs(complex(approx.conditions[0].value) - ref) < 1e-14
    assert sp.simplify(exact.conditions[0].value + sp.I * sp.sqrt(3) / 18) == 0
