"""The modular stage: primes, square roots mod p, what it can evaluate, and exactness."""

from fractions import Fraction

import pytest
import sympy as sp

from geomcheck.zero import decide_all_zero, decide_zero
from geomcheck.zero import modular
from geomcheck.zero.program import Program

x, y, h = sp.symbols("x y h")
V = sp.Function("V")


def test_random_primes_are_prime_and_have_the_needed_roots():
    for seed in range(5):
        P, roots = modular.random_prime(("t", seed), radicands=(2, 3, 5), need_i=True)
        assert P.bit_length() == modular.PRIME_BITS and sp.isprime(P)
        for q, r in roots.items():
            assert (r * r - q) % P == 0
    # different seeds give different primes (a fixed prime could be planted in a coefficient)
    assert len({modular.random_prime(("u", s))[0] for s in range(6)}) == 6


def test_sqrt_mod_p_on_both_residue_classes():
    for p in (10007, 10009, 2**61 - 1):  # p % 4 == 3 and == 1 both covered
        for a in (2, 3, 5, 7, 11, 1234567):
            r = modular._sqrt_mod(a, p)
            if sp.jacobi_symbol(a % p, p) == 1:
                assert r * r % p == a % p
            else:
                assert r is None


def test_plan_accepts_rational_operations_and_refuses_the_rest():
    prog = Program()
    ok = prog.add(x**3 / (1 + y**2) + V(x + h).diff(x) * sp.sqrt(6) - sp.I * y)
    plan = modular.plan(prog, [ok])
    assert plan.radicands == (2, 3) and plan.need_i
    assert plan.degree[ok] >= 3
    for bad in (sp.sin(x), sp.sqrt(x), x**sp.Rational(1, 3), sp.pi * x, sp.exp(1) + x):
        prog = Program()
        with pytest.raises(modular.NotModular):
            modular.plan(prog, [prog.add(bad)])


def test_exact_tiny_values_are_counterexamples_with_their_exact_value():
    for e in (x / 10**200, (x / 4) ** 300, x - x * (1 + sp.Rational(1, 10**160))):
        d = decide_zero(e)
        assert d.is_zero is False and d.stage == "counterexample"
        assert d.value == e.subs(x, d.point["x"]) and d.value != 0


def test_radicals_are_consistent_and_complex_unit_works():
    assert decide_zero(sp.sqrt(2) * sp.sqrt(3) * x - sp.sqrt(6) * x).is_zero is True
    assert decide_zero((sp.sqrt(2) * x + 1) ** 2 - 2 * x**2 - 2 * sp.sqrt(2) * x - 1).is_zero is True
    assert decide_zero(sp.sqrt(8) * x - 2 * sp.sqrt(2) * x).is_zero is True
    assert decide_zero((sp.I * x) ** 2 + x**2).is_zero is True
    d = decide_zero(sp.sqrt(2) * x - sp.Rational(14142135623730951, 10**16) * x)  # sqrt(2) to 16 digits
    assert d.is_zero is False


def test_a_coefficient_divisible_by_a_known_prime_does_not_vanish():
    # a fixed modulus (2**61 - 1, a favourite) would see (2**61 - 1) * x as 0
    for c in (2**61 - 1, 2**127 - 1, sp.prod(sp.primerange(2**60, 2**60 + 3000))):
        assert decide_zero(c * x).is_zero is False


def test_degree_bound_sets_the_number_of_points_and_is_stated():
    d = decide_zero((x + y) ** 40 - sp.expand((x + y) ** 40) + V(x) - V(x))
    assert d.is_zero is True
    e = sp.expand((x + y) ** 7) - (x + y) ** 7 + V(x * y).diff(x) - y * V(x * y).diff(x) / y
    d = decide_zero(e)
    assert d.is_zero is True and d.stage in ("exact", "modular")
    d = decide_all_zero([(h + x) ** 3 - h**3 - 3 * h**2 * x - 3 * h * x**2 - x**3 + V(h) * 0 + V(x + h) - V(h + x),
                         V(x) ** 2 - V(x) * V(x)])
    assert d.is_zero is True


def test_jets_keyed_by_exact_argument():
    d = decide_zero(V(x) - V(x + sp.Rational(1, 10**30)))
    assert d.is_zero is False and d.stage == "counterexample"
    assert decide_zero(V(2 * (x + h)) - V(2 * x + 2 * h)).is_zero is True


def test_exact_value_helper_refuses_growth():
    prog = Program()
    r = prog.add((1 + x) ** 4000)
    plan = modular.plan(prog, [r])
    sym = prog.symbols[x]
    assert modular.exact_value(prog, plan.order, r, {sym: (Fraction(3, 7), Fraction(0))}, None, max_bits=1000) is None
