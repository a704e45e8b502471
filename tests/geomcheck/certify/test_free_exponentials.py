"""Products of exponentials in a free algebra (geomcheck.certify.free_exponentials), on their own.

The reference values are computed here, independently of the module, in sympy's noncommutative
algebra: truncated exponential series multiplied out term by term, and the Baker-Campbell-Hausdorff
series to weight 4 as published (Hairer, Lubich and Wanner, *Geometric Numerical Integration*,
Sect. III.4.2):

    log(e^X e^Y) = X + Y + [X,Y]/2 + ([X,[X,Y]] + [Y,[Y,X]])/12 - [Y,[X,[X,Y]]]/24 + (weight >= 5).
"""

import itertools
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from geomcheck.certify.free_exponentials import ExponentialProduct, lyndon_coordinates
from geomcheck.certify.lyndon import bracket_expansion, is_lyndon

A, B = sp.symbols("A B", commutative=False)
A1, A3, A5 = sp.symbols("A1 A3 A5", commutative=False)
LETTERS = {A: 0, B: 1, A1: 1, A3: 3, A5: 5}
x, y, z = sp.symbols("x y z")


def words_of(expr) -> dict:
    """``{word: coefficient}`` of a noncommutative sympy polynomial (letters as in LETTERS)."""
    out: dict = {}
    for term in sp.Add.make_args(sp.expand(expr)):
        c, nc = term.args_cnc()
        word = []
        for f in nc:
            if f.is_Pow:
                word += [LETTERS[f.base]] * int(f.exp)
            else:
                word.append(LETTERS[f])
        key = tuple(word)
        out[key] = sp.expand(out.get(key, 0) + sp.Mul(*c))
    return {k: v for k, v in out.items() if v != 0}


def truncated_exp(Z, order):
    return sum((Z**k / sp.factorial(k) for k in range(order + 1)), sp.S.Zero)


def com(X, Y):
    return X * Y - Y * X


def nonzero(d: dict) -> dict:
    return {k: sp.expand(v) for k, v in d.items() if sp.expand(v) != 0}


def symbolic(factors, words_by_length=None, **kw):
    return ExponentialProduct(factors, words_by_length, one=sp.S.One, zero=sp.S.Zero, constant=sp.Rational, **kw)


def graded_words(alphabet, r):
    """The words of weight r over letters that are their weights, grouped by length (for the tests)."""
    ws = [w for k in range(1, r + 1) for w in itertools.product(alphabet, repeat=k) if sum(w) == r]
    return tuple((k, tuple(w for w in ws if len(w) == k)) for k in sorted({len(w) for w in ws}))


# -- one-letter exponentials exp(x A) exp(y B) ...


def test_components_of_exp_xA_exp_yB_are_the_multiplied_out_series():
    P = symbolic([(0, x), (1, y)])
    series = words_of(truncated_exp(x * A, 5) * truncated_exp(y * B, 5))
    for n in range(6):
        expected = {w: c for w, c in series.items() if len(w) == n}
        assert nonzero(P.component(n)) == expected, n


def test_log_of_exp_xA_exp_yB_is_the_published_bch_series_to_weight_4():
    X, Y = x * A, y * B
    bch = {1: X + Y, 2: com(X, Y) / 2, 3: (com(X, com(X, Y)) + com(Y, com(Y, X))) / 12,
           4: -com(Y, com(X, com(X, Y))) / 24}
    P = symbolic([(0, x), (1, y)])
    for n, term in bch.items():
        expected = words_of(term)
        assert nonzero(P.log_component(n)) == expected, n
        # the word-by-word logarithm agrees on every word of the weight
        for w in itertools.product((0, 1), repeat=n):
            assert sp.expand(P.log_coefficient(w) - expected.get(w, 0)) == 0, w


def test_lyndon_coordinates_rebuild_the_bch_element():
    # weight 3: [A,[A,B]] x^2 y / 12 and [[A,B],B] x y^2 / 12 (the published coefficients)
    P = symbolic([(0, x), (1, y)])
    coords = dict(lyndon_coordinates([(0, 0, 1), (0, 1, 1)], P.log_coefficient, sp.Rational))
    assert sp.expand(coords[(0, 0, 1)] - x**2 * y / 12) == 0
    assert sp.expand(coords[(0, 1, 1)] - x * y**2 / 12) == 0
    # weight 4: sum_w c_w P_w, expanded in words, is the BCH term (whatever the coordinates are)
    lyn = [w for w in itertools.product((0, 1), repeat=4) if is_lyndon(w)]
    coords = lyndon_coordinates(lyn, P.log_coefficient, sp.Rational)
    rebuilt: dict = {}
    for w, c in coords:
        for word, e in bracket_expansion(w).items():
            rebuilt[word] = rebuilt.get(word, 0) + e * c
    assert nonzero(rebuilt) == words_of(-com(y * B, com(x * A, com(x * A, y * B))) / 24)


def test_exp_of_minus_the_same_flows_is_the_identity():
    P = symbolic([(0, x), (1, y), (1, -y), (0, -x)])
    assert all(not nonzero(P.component(n)) for n in range(1, 7))
    assert all(not nonzero(P.log_component(n)) for n in range(1, 5))


def test_a_three_letter_product_with_a_repeated_letter():
    # exp(x A) exp(y B) exp(z A): the words A^k get three contributions (x + z)^k / k!
    P = ExponentialProduct([(0, Fraction(2, 3)), (1, Fraction(-5, 7)), (0, Fraction(3, 11))],
                           one=Fraction(1), zero=Fraction(0), constant=Fraction)
    series = words_of(truncated_exp(x * A, 5) * truncated_exp(y * B, 5) * truncated_exp(z * A, 5))
    vals = {x: sp.Rational(2, 3), y: sp.Rational(-5, 7), z: sp.Rational(3, 11)}
    for n in range(1, 6):
        expected = {w: c.subs(vals) for w, c in series.items() if len(w) == n}
        got = {w: sp.Rational(c.numerator, c.denominator) for w, c in P.component(n).items() if c}
        assert got == {w: c for w, c in expected.items() if c}, n
    assert P.coefficient((0,) * 4) == (Fraction(2, 3) + Fraction(3, 11)) ** 4 / 24
    assert P.coefficient((1, 0, 1, 0)) is None                # B A B A does not occur


def test_mpmath_arithmetic_agrees_with_exact_rationals():
    ctx = mpmath.MPContext()
    ctx.dps = 40
    xs = [(0, "0.3"), (1, "-1.7"), (0, "2.25"), (1, "0.125")]
    exact = ExponentialProduct([(letter, Fraction(v)) for letter, v in xs],
                               one=Fraction(1), zero=Fraction(0), constant=Fraction)
    floats = ExponentialProduct([(letter, ctx.mpf(v)) for letter, v in xs], one=ctx.one, zero=ctx.zero,
                                constant=lambda q: ctx.mpf(q.numerator) / q.denominator)
    for w in itertools.product((0, 1), repeat=5):
        e, f = exact.log_coefficient(w), floats.log_coefficient(w)
        assert abs(f - ctx.mpf(e.numerator) / e.denominator) < ctx.mpf(10) ** -35, w


# -- graded alphabets: Z = x A1 + x^3 A3 + x^5 A5 (compositions of a second-order method)


def free_mul(X: dict, Y: dict, max_weight: int) -> dict:
    """The product in the free algebra of {word: Fraction} (letters are their weights), truncated."""
    out: dict = {}
    for u, a in X.items():
        for v, b in Y.items():
            if sum(u) + sum(v) <= max_weight:
                out[u + v] = out.get(u + v, 0) + a * b
    return out


def free_exp(Z: dict, max_weight: int) -> dict:
    """sum_k Z^k / k!, truncated at max_weight (Z has no weight-0 part)."""
    out, power = {(): Fraction(1)}, {(): Fraction(1)}
    for k in range(1, max_weight + 1):
        power = free_mul(power, Z, max_weight)
        for w, c in power.items():
            out[w] = out.get(w, 0) + c / sp.factorial(k)
    return out


def test_graded_components_are_the_multiplied_out_series_by_weight():
    alphabet, W = (1, 3, 5), 7
    gs = [Fraction(2, 5), Fraction(-7, 3), Fraction(9, 4)]
    P = ExponentialProduct([(alphabet, g) for g in gs], graded_words, one=Fraction(1), zero=Fraction(0),
                           constant=Fraction, word_weight=sum)
    series = {(): Fraction(1)}
    for g in gs:
        series = free_mul(series, free_exp({(a,): g**a for a in alphabet}, W), W)
    for n in range(1, W + 1):
        expected = {w: c for w, c in series.items() if sum(w) == n and c}
        assert {w: c for w, c in P.component(n).items() if c} == expected, n


def test_graded_log_by_weight_and_by_word_agree_and_exp_z_exp_minus_z_is_one():
    alphabet = (1, 3, 5)
    gs = [Fraction(2, 5), Fraction(-7, 3), Fraction(9, 4)]
    P = ExponentialProduct([(alphabet, g) for g in gs], graded_words, one=Fraction(1), zero=Fraction(0),
                           constant=Fraction, word_weight=sum)
    for n in range(1, 8):
        comp = P.log_component(n)
        for _length, ws in graded_words(alphabet, n):
            for w in ws:
                assert P.log_coefficient(w) == comp.get(w, 0), w
    # log(exp(Z)) = Z: weight r carries x^r on the letter A_r alone
    single = ExponentialProduct([(alphabet, Fraction(3, 2))], graded_words, one=Fraction(1), zero=Fraction(0),
                                constant=Fraction, word_weight=sum)
    for n in range(1, 8):
        expected = {(n,): Fraction(3, 2) ** n} if n in alphabet else {}
        assert {w: c for w, c in single.log_component(n).items() if c} == expected, n
    inverse = symbolic([(alphabet, x), (alphabet, -x)], graded_words, word_weight=sum)
    assert all(not nonzero(inverse.component(n)) for n in range(1, 8))


def test_an_exact_zero_factor_is_skipped_only_when_asked():
    alphabet = (1, 3)
    plain = ExponentialProduct([(alphabet, Fraction(0)), ((2,), Fraction(1, 2))], graded_words,
                               one=Fraction(1), zero=Fraction(0), constant=Fraction, word_weight=sum)
    skipping = ExponentialProduct([(alphabet, Fraction(0)), ((2,), Fraction(1, 2))], graded_words,
                                  one=Fraction(1), zero=Fraction(0), constant=Fraction, word_weight=sum,
                                  skip_zero=lambda v: v == 0)
    for n in range(1, 6):
        same = {w: c for w, c in plain.component(n).items() if c}
        assert skipping.component(n) == same, n        # no explicit zero terms, the same nonzero ones
    # without skip_zero the zero factor leaves explicit zero terms; with it there are none
    assert any(c == 0 for c in plain.component(4).values())
    assert skipping.component(4) == {(2, 2): Fraction(1, 2) ** 4 / 2}     # exp(Z_2): (x^2 A2)^2 / 2!


def test_lyndon_coordinates_of_a_single_bracket_and_of_zero():
    element = {(0, 1): Fraction(3), (1, 0): Fraction(-3)}
    assert lyndon_coordinates([(0, 1)], lambda w: element.get(w, Fraction(0)), Fraction) == [((0, 1), 3)]
    assert lyndon_coordinates([(0, 0, 1), (0, 1, 1)], lambda w: Fraction(0), Fraction) == [
        ((0, 0, 1), 0), ((0, 1, 1), 0)]


@pytest.mark.parametrize("n", [5, 6])
def test_words_that_do_not_occur_have_zero_log_coefficient(n):
    # exp(x A) alone: log = x A, nothing above weight 1
    P = symbolic([(0, x)])
    assert sp.expand(P.log_coefficient((0,) * n)) == 0
    assert nonzero(P.log_component(n)) == {}
