"""The exact number-field engine (geomcheck.certify.number_field), checked against sympy.

The oracle is independent of the engine: sympy's ``AlgebraicField`` over the same primitive
element (its own reduction modulo its own minimal polynomial, its own inverses) gives the
coordinates every product, sum and quotient must have, and ``minimal_polynomial`` decides that
a value written back to sympy equals the expression it came from.  Planted bugs (a wrong
reduction modulo the minimal polynomial, a reducible "minimal" polynomial) are caught.
"""

from fractions import Fraction
import random

import mpmath
import pytest
import sympy as sp

from geomcheck import errors
from geomcheck.certify import number_field
from geomcheck.certify.number_field import NotAlgebraic, NumberField, algebraic_generators, degree_bound
from geomcheck.errors import GeomcheckError, InvalidArgumentError

x = sp.Symbol("x")

#: generator sets of the kinds tableaux and compositions meet
FIELDS = {
    "two square roots": [sp.sqrt(2), sp.sqrt(3)],
    "nested radical": [sp.sqrt(sp.Rational(3, 28) - sp.sqrt(30) / 70)],
    "cos(pi/9)": [sp.cos(sp.pi / 9)],
    "CRootOf": [sp.CRootOf(x**3 - x - 1, 0)],
    "I and sqrt(5)": [sp.I, sp.sqrt(5)],
    "radicals of one base": [2 ** sp.Rational(1, 3), sp.sqrt(2)],
    "negative base": [(-2) ** sp.Rational(1, 3)],
}


def _samples(name, count=4, seed=0):
    """Random polynomials of degree <= 2 in the generators with small rational coefficients."""
    rng = random.Random(seed)
    gens = list(algebraic_generators(FIELDS[name]))
    monomials = [sp.S.One] + gens + [a * b for i, a in enumerate(gens) for b in gens[i:]]
    return [sp.Add(*[sp.Rational(rng.randint(-9, 9), rng.randint(1, 7)) * m for m in monomials]) for _ in range(count)]


def _field(name):
    """The field of the samples, as the certificates build it: from the generators they are written in
    (sympy writes sqrt(2) sqrt(3) as sqrt(6), a generator too)."""
    return NumberField.from_generators(algebraic_generators(_samples(name, 8) + _samples(name, 8, seed=1)))


def _sympy_coordinates(F, anp, degree):
    """Coordinates of a sympy ANP, lowest power first, as Fractions (padded to the degree)."""
    high_first = [F.dom.to_sympy(c) for c in anp.to_list()]
    low = [Fraction(int(c.p), int(c.q)) for c in reversed(high_first)]
    return low + [Fraction(0)] * (degree - len(low))


def _agrees_with_sympy(K, exprs) -> bool:
    """Whether products, sums and quotients of ``exprs`` in K have sympy's coordinates."""
    F = sp.QQ.algebraic_field(K.theta)
    assert [F.dom.to_sympy(c) for c in F.mod.to_list()] == [sp.Rational(c.numerator, c.denominator)
                                                           for c in reversed(K.minpoly)]
    ours = [K.convert(e) for e in exprs]
    theirs = [F.from_sympy(e) for e in exprs]
    for a, A in zip(ours, theirs):
        if a.coordinates() != _sympy_coordinates(F, A, K.degree):
            return False
    for i in range(len(exprs)):
        for j in range(i, len(exprs)):
            for ours_ij, theirs_ij in ((ours[i] * ours[j], theirs[i] * theirs[j]),
                                       (ours[i] + ours[j], theirs[i] + theirs[j]),
                                       (ours[i] / ours[j], theirs[i] / theirs[j])):
                if ours_ij.coordinates() != _sympy_coordinates(F, theirs_ij, K.degree):
                    return False
    return True


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_arithmetic_agrees_with_sympys_algebraic_field(name):
    K = _field(name)
    assert sp.Poly(sp.minimal_polynomial(K.theta, x), x).monic().all_coeffs()[::-1] == \
        [sp.Rational(c.numerator, c.denominator) for c in K.minpoly]
    assert _agrees_with_sympy(K, _samples(name))


@pytest.mark.parametrize("name", ["two square roots", "cos(pi/9)", "radicals of one base"])
def test_values_written_back_to_sympy_are_the_expressions_they_came_from(name):
    K = _field(name)
    a, b = _samples(name, 2, seed=1)
    for e, el in ((a, K.convert(a)), (a * b, K.convert(a) * K.convert(b)), (1 / b, 1 / K.convert(b))):
        assert sp.minimal_polynomial(K.to_sympy(el) - e, x) == x
    ctx = mpmath.MPContext()
    ctx.dps = 30
    assert abs(K.evaluate(K.convert(a), ctx) - ctx.mpf(str(sp.N(a, 40)))) < ctx.mpf(10) ** -25


@pytest.mark.parametrize("planted", ["theta**d reduced to 0", "reduction with the wrong sign"])
def test_a_wrong_reduction_modulo_the_minimal_polynomial_is_caught(planted, monkeypatch):
    name = "two square roots"
    K = _field(name)
    exprs = _samples(name)
    assert _agrees_with_sympy(K, exprs)
    rows = K._reduction_rows
    wrong = ([[] for _ in rows] if planted == "theta**d reduced to 0"
             else [[(k, -c) for k, c in row] for row in rows])
    monkeypatch.setattr(K, "_reduction_rows", wrong)
    K._converted.clear()
    assert not _agrees_with_sympy(K, exprs)


def test_a_reducible_minimal_polynomial_is_refused_by_capellis_test():
    # 4**(1/6) = 2**(1/3) has degree 3: x**6 - 4 factors, and Q[x]/(x**6 - 4) would have zero
    # divisors (theta**3 - 2 would be a nonzero element equal to 0)
    g = sp.Pow(4, sp.Rational(1, 6), evaluate=False)
    K = NumberField.from_generators([g])
    assert K.degree == 3
    assert K.images[g] ** 3 == 2 and not (K.images[g] ** 3 - 2)
    fake = NumberField(sp.Integer(2), [-4, 0, 1])        # "minimal polynomial" x**2 - 4 of 2
    with pytest.raises(InvalidArgumentError, match="reducible"):
        (fake.element([0, 1]) - 2).inverse()


def test_zero_is_decided_exactly():
    c = sp.cos(sp.pi / 9)
    e = 4 * c**3 - 3 * c - sp.Rational(1, 2)           # cos(3x) = 4 cos(x)**3 - 3 cos(x), at x = pi/9
    K = NumberField.from_generators(algebraic_generators([e]))
    assert K.convert(e) == 0 and not K.convert(e) and K.to_sympy(K.convert(e)) == 0
    near = e + sp.Rational(1, 10**30)
    assert K.convert(near) and K.convert(near) == Fraction(1, 10**30)
    assert K.to_sympy(K.convert(near)) == sp.Rational(1, 10**30)
    r2 = sp.Pow(sp.sqrt(2), 2, evaluate=False) - 2
    assert not NumberField.from_generators(algebraic_generators([r2])).convert(r2)


def test_inverses_powers_and_normal_form():
    K = _field("two square roots")
    for e in _samples("two square roots", 3, seed=2):
        a = K.convert(e)
        assert a * a.inverse() == 1 and 1 / a == a.inverse() and a ** -2 * a**2 == 1
        assert a / a == K.one and not (a - a) and (a - a) == K.zero
        assert (a + Fraction(1, 3)) - Fraction(1, 3) == a and 2 * a / 2 == a and (a * 6) / Fraction(6) == a
    with pytest.raises(ZeroDivisionError):
        K.zero.inverse()
    with pytest.raises(ZeroDivisionError):
        K.one / 0
    half = K.element([Fraction(1, 2), Fraction(1, 2)])
    assert (half.denominator, half.numerators) == (2, {0: 1, 1: 1})
    assert (half + half).denominator == 1 and (half + half).numerators == {0: 1, 1: 1}


def test_equal_elements_hash_alike_and_fields_do_not_mix():
    K = _field("two square roots")
    three = K.convert(sp.Integer(3))
    assert three == 3 and hash(three) == hash(3) and {3: "three"}[three] == "three"
    assert hash(K.constant(Fraction(1, 2))) == hash(Fraction(1, 2))
    assert len({K.convert(sp.sqrt(2)), K.convert(2 * sp.sqrt(2)) / 2}) == 1
    L = _field("cos(pi/9)")
    assert K.one != L.one
    with pytest.raises(InvalidArgumentError, match="different number fields"):
        K.one + L.one


def test_radicals_of_one_base_are_monomials_in_one_binomial_field():
    gens = algebraic_generators([2 ** sp.Rational(1, 3), 2 ** sp.Rational(2, 5), 2 ** sp.Rational(1, 7)])
    K = NumberField.from_generators(gens)
    assert K.degree == 105 and K.theta == 2 ** sp.Rational(1, 105) and K.name == "Q(2**(1/105))"
    assert K.minpoly == (Fraction(-2),) + (Fraction(0),) * 104 + (Fraction(1),)
    images = [K.images[g] for g in gens]
    assert all(len(img.numerators) == 1 for img in images)
    product = images[0] * images[1] * images[2]
    assert len(product.numerators) == 1 and K.to_sympy(product) == 2 ** sp.Rational(71, 105)
    y = K.convert(1 / (2 - 2 ** sp.Rational(1, 3)))    # the triple-jump coefficient's denominator
    assert y * (2 - K.images[2 ** sp.Rational(1, 3)]) == 1
    # sympy's own arithmetic modulo x**105 - 2, from the same coordinates
    F = sp.QQ.algebraic_field(K.theta)
    anp = {g: F.new([sp.QQ(c.numerator, c.denominator) for c in reversed(K.images[g].coordinates())]) for g in gens}
    z = K.images[gens[0]] * K.images[gens[2]] + Fraction(1, 3) / (K.images[gens[1]] - 3)
    Z = anp[gens[0]] * anp[gens[2]] + F.convert(sp.Rational(1, 3)) / (anp[gens[1]] - F.convert(3))
    assert z.coordinates() == _sympy_coordinates(F, Z, K.degree)
    assert (y - Fraction(1, 2)).coordinates() == _sympy_coordinates(
        F, F.one / (F.convert(2) - anp[2 ** sp.Rational(1, 3)]) - F.convert(sp.Rational(1, 2)), K.degree)


def test_generators_and_degree_bounds():
    e = sp.sqrt(2) / 3 + sp.cos(sp.pi / 9) + 5 ** sp.Rational(2, 3) + sp.sqrt(1 + sp.sqrt(3))
    gens = algebraic_generators([e])
    assert set(gens) == {sp.sqrt(2), sp.cos(sp.pi / 9), 5 ** sp.Rational(1, 3), sp.sqrt(3), sp.sqrt(1 + sp.sqrt(3))}
    assert algebraic_generators([e, sp.Rational(1, 2)]) == gens
    assert degree_bound(gens) == 2 * 3 * 3 * 2 * 4
    assert degree_bound([]) == 1 and degree_bound([sp.I, sp.CRootOf(x**5 - x - 1, 0)]) == 10
    for bad in (sp.pi, sp.cos(1), sp.Float("0.5") * sp.sqrt(2), sp.sqrt(sp.pi)):
        with pytest.raises(NotAlgebraic) as info:
            algebraic_generators([bad])
        assert info.value.expression is not None


def test_not_algebraic_is_one_of_the_hierarchy_and_importable_from_both_places():
    assert number_field.NotAlgebraic is errors.NotAlgebraic and "NotAlgebraic" in errors.__all__
    assert issubclass(NotAlgebraic, GeomcheckError) and issubclass(NotAlgebraic, ValueError)
    K = NumberField.from_generators([sp.sqrt(2), sp.sqrt(3)])
    with pytest.raises(NotAlgebraic, match="sqrt\\(6\\) is not written in the generators of Q\\(sqrt\\(2\\), sqrt"):
        K.convert(sp.sqrt(6))
    with pytest.raises(NotAlgebraic, match="pi is not recognizably an algebraic number"):
        K.convert(sp.sqrt(2) + sp.pi)


def test_construction_is_validated():
    with pytest.raises(InvalidArgumentError, match="monic"):
        NumberField(sp.sqrt(2), [-2, 0, 2])
    with pytest.raises(InvalidArgumentError, match="monic"):
        NumberField(sp.Integer(1), [1])
    K = NumberField(sp.sqrt(2), [-2, 0, 1])
    with pytest.raises(InvalidArgumentError, match="degree 2"):
        K.element([0, 0, 1])
    assert K.to_sympy(K.element([1, 1]) ** 2) == 3 + 2 * sp.sqrt(2)
    Q = NumberField.from_generators([])
    assert Q.degree == 1 and Q.name == "Q" and Q.describe() == "exact rational arithmetic"
    assert Q.to_sympy(Q.constant(Fraction(3, 4)) / 3) == sp.Rational(1, 4)
