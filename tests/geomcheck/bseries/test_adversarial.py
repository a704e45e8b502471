"""Adversarial inputs for the B-series core: every misuse raises a geomcheck error that says what
was wrong, exact arithmetic stays exact (radicals, a free parameter), and the objects are
immutable values (pickling, no mutation through what they hand out).

The hand computations at the end (composition and substitution at [tau^2] and [[tau]], from the
definition on ordered subtrees / partitions of one labelled tree) are the "planted bug" checks:
a wrong multiplicity in the library (1 instead of 2) gives a different coefficient, and the
tests show that it would.
"""

from __future__ import annotations

import pickle

import pytest
import sympy
from sympy import Rational as R

from geomcheck.bseries import (
    BSeries,
    adjoint,
    compose,
    exact_flow,
    exponential,
    identity,
    inverse,
    logarithm,
    modified_equation,
    modifying_integrator,
    runge_kutta,
    substitute,
)
from geomcheck.certify.trees import trees_of_order, trees_up_to
from geomcheck.errors import GeomcheckError, InvalidArgumentError, TableauFloatError

TAU = trees_of_order(1)[0]
T2 = trees_of_order(2)[0]                        # [tau]
BUSH3, TALL3 = trees_of_order(3)                 # [tau^2], [[tau]]
assert str(BUSH3) == "[τ²]" and str(TALL3) == "[[τ]]"

MIDPOINT = ([[0, 0], [R(1, 2), 0]], [0, 1])
r3 = sympy.sqrt(3)
GAUSS4 = ([[R(1, 4), R(1, 4) - r3 / 6], [R(1, 4) + r3 / 6, R(1, 4)]], [R(1, 2), R(1, 2)])


def field(order, colours=1):
    return BSeries({t: 1 for t in trees_up_to(1, colours)}, order, empty=0, colours=colours)


# ============================================================================ orders


def test_mismatched_orders_take_the_minimum():
    a = runge_kutta(*MIDPOINT, 3)
    b = runge_kutta(*MIDPOINT, 5)
    for s in (compose(a, b), compose(b, a), a + b, b - a, substitute(field(5), a),
              substitute(field(3), b)):
        assert s.order == 3
    assert (compose(a, b) == compose(runge_kutta(*MIDPOINT, 3), runge_kutta(*MIDPOINT, 3)))
    assert b.truncate(3) == a and b.truncate(3).order == 3
    assert b.truncate(9).order == 5
    # == compares up to the common order (spec)
    assert a == b


def test_tree_above_the_truncation_order_is_refused():
    s = runge_kutta(*MIDPOINT, 3)
    big = trees_of_order(4)[0]
    with pytest.raises(InvalidArgumentError) as info:
        s[big]
    message = str(info.value)
    assert "3" in message and "4" in message, message     # names the order asked and the truncation
    with pytest.raises(InvalidArgumentError):
        s.element(big)


def test_coefficient_for_a_tree_beyond_the_order_is_refused():
    with pytest.raises(InvalidArgumentError):
        BSeries({trees_of_order(4)[0]: 1}, 3)


def test_bad_orders_are_refused():
    for bad in (-1, 1.5, "3", True, None):
        with pytest.raises(InvalidArgumentError):
            BSeries({}, bad)
        with pytest.raises(InvalidArgumentError):
            exact_flow(bad)


def test_non_tree_keys_are_refused():
    for k in ("τ", 1, (), None):
        with pytest.raises(InvalidArgumentError):
            BSeries({k: 1}, 3)


# ============================================================================ colours


def test_mixing_colours_raises():
    one = runge_kutta(*MIDPOINT, 3)
    two = exact_flow(3, colours=2)
    for op in (lambda: compose(one, two), lambda: compose(two, one), lambda: one + two,
               lambda: one - two, lambda: substitute(field(3, colours=2), one)):
        with pytest.raises(InvalidArgumentError):
            op()


def test_tree_of_the_other_colouring_is_refused():
    one = exact_flow(3)
    two = exact_flow(3, colours=2)
    with pytest.raises(InvalidArgumentError):
        one[trees_of_order(1, colours=2)[0]]
    with pytest.raises(InvalidArgumentError):
        two[TAU]
    with pytest.raises(InvalidArgumentError):
        BSeries({trees_of_order(2, colours=2)[0]: 1}, 3)          # colours=1 by default
    for bad in (0, 3, "2"):
        with pytest.raises(InvalidArgumentError):
            BSeries({}, 3, colours=bad)


# ============================================================================ the empty-tree coefficient


def test_methods_and_fields_are_not_interchangeable():
    a = runge_kutta(*MIDPOINT, 3)
    f = field(3)
    assert f.is_vector_field and not a.is_vector_field
    for op in (lambda: compose(f, a),          # the first method of a composition is a field
               lambda: inverse(f),
               lambda: adjoint(f),
               lambda: logarithm(f),
               lambda: exponential(a),          # exponential of a method
               lambda: substitute(a, a),        # substitute a method into a method
               lambda: modifying_integrator(f, 3),
               lambda: modified_equation(f, 3)):
        with pytest.raises(InvalidArgumentError):
            op()


def test_composition_needs_an_empty_coefficient_of_one():
    """2 a (empty coefficient 2, a legal vector-space combination) is not a method: compose,
    inverse and logarithm need a(empty) = 1."""
    a = runge_kutta(*MIDPOINT, 3)
    two = a + a
    assert two.empty == 2
    for op in (lambda: compose(two, a), lambda: inverse(two), lambda: logarithm(two)):
        with pytest.raises(InvalidArgumentError):
            op()


def test_modifying_integrator_of_a_method_without_f_term_is_refused():
    """a(tau) = 0: b * a = e has no solution (the tau coefficient of b * a is a(tau) b(tau))."""
    a = BSeries({T2: 1}, 3, empty=1)
    with pytest.raises(GeomcheckError):
        modifying_integrator(a, 3)


# ============================================================================ exactness


def test_float_coefficients_are_refused():
    """0.1 is not one tenth: a B-series is exact (BSeriesError: 'an inexact coefficient')."""
    with pytest.raises(InvalidArgumentError):
        BSeries({TAU: 0.5}, 2)
    with pytest.raises(InvalidArgumentError):
        BSeries({TAU: sympy.Float("0.5")}, 2)
    with pytest.raises((InvalidArgumentError, TableauFloatError)):
        runge_kutta([[0, 0], [0.5, 0]], [0, 1], 3)
    s = exact_flow(3)
    with pytest.raises(InvalidArgumentError):
        0.5 * s
    with pytest.raises(InvalidArgumentError):
        BSeries({TAU: "not a number"}, 2)


def test_gauss4_inverse_composed_is_exactly_the_identity():
    g = runge_kutta(*GAUSS4, 6)
    e = compose(inverse(g), g)
    assert e == identity(6)
    for t in e.trees():
        c = e[t]
        assert c == 0, (t, c)          # structurally zero: not an unsimplified radical expression
    assert e.empty == 1
    gi = inverse(g)
    assert all(gi[t].free_symbols == set() for t in gi.trees())
    # Gauss-4 has order 4: equal to the exact flow up to order 4, exactly
    flow = exact_flow(6)
    assert all(g[t] == flow[t] for t in g.trees() if t.order <= 4)
    assert any(sympy.simplify(g[t] - flow[t]) != 0 for t in g.trees() if t.order == 5)


def test_symbolic_parameter_survives_the_laws():
    """A = [0 0; 1/(2 alpha) 0], b = [1 - alpha, alpha]: results are rational functions of alpha;
    at alpha = 1 they are those of the explicit midpoint rule, computed separately."""
    alpha = sympy.Symbol("alpha")
    fam = runge_kutta([[0, 0], [1 / (2 * alpha), 0]], [1 - alpha, alpha], 4)
    mid = runge_kutta(*MIDPOINT, 4)
    results = {
        "series": (fam, mid),
        "inverse": (inverse(fam), inverse(mid)),
        "adjoint": (adjoint(fam), adjoint(mid)),
        "compose": (compose(fam, fam), compose(mid, mid)),
        "logarithm": (logarithm(fam), logarithm(mid)),
        "modified": (modified_equation(fam, 4), modified_equation(mid, 4)),
        "modifying": (modifying_integrator(fam, 4), modifying_integrator(mid, 4)),
    }
    for name, (sym, num) in results.items():
        for t in sym.trees():
            c = sym[t]
            assert c.free_symbols <= {alpha}, (name, t, c)
            num_, den_ = sympy.fraction(sympy.cancel(sympy.together(c)))
            assert num_.is_polynomial(alpha) and den_.is_polynomial(alpha), (name, t, c)
            assert sympy.simplify(c.subs(alpha, 1) - num[t]) == 0, (name, t, c, num[t])
    # laws hold identically in alpha
    assert compose(fam, inverse(fam)) == identity(4)
    assert adjoint(adjoint(fam)) == fam
    assert exponential(logarithm(fam)) == fam
    # and the laws say something: the family is not symmetric for any alpha
    assert adjoint(fam) != fam


def test_coefficients_are_sympy_objects_usable_with_subs_and_lambdify():
    alpha = sympy.Symbol("alpha")
    fam = runge_kutta([[0, 0], [1 / (2 * alpha), 0]], [1 - alpha, alpha], 3)
    c = fam[BUSH3]                                     # alpha * (1/(2 alpha))^2 = 1/(4 alpha)
    assert isinstance(c, sympy.Basic)
    assert sympy.simplify(c - 1 / (4 * alpha)) == 0
    assert c.subs(alpha, R(1, 2)) == R(1, 2)
    fn = sympy.lambdify(alpha, c)
    assert fn(0.25) == pytest.approx(1.0)
    assert fam.items() == [(t, fam[t]) for t in fam.trees()]
    assert all(isinstance(v, sympy.Basic) for _t, v in fam.items())
    assert isinstance(fam.empty, sympy.Basic) and fam.empty == 1
    assert isinstance(exact_flow(3)[TAU], sympy.Basic)


# ============================================================================ values: pickling, immutability


def test_pickling_round_trips():
    alpha = sympy.Symbol("alpha")
    for s in (runge_kutta(*GAUSS4, 4), exact_flow(4, colours=2), field(3),
              runge_kutta([[0, 0], [1 / (2 * alpha), 0]], [1 - alpha, alpha], 3),
              BSeries({TAU: 1, T2: R(1, 3)}, 3, name="my series")):
        back = pickle.loads(pickle.dumps(s))
        assert back == s
        assert (back.order, back.colours, back.name) == (s.order, s.colours, s.name)
        assert all(back[t] == s[t] for t in s.trees())


def test_series_are_immutable():
    s = BSeries({TAU: 1, T2: R(1, 2)}, 3, name="x")
    for attr in ("order", "colours", "empty", "name", "domain", "new_attribute"):
        with pytest.raises((AttributeError, TypeError)):
            setattr(s, attr, 7)
    with pytest.raises((AttributeError, TypeError)):
        del s.order
    with pytest.raises(TypeError):
        s[TAU] = 5
    items = s.items()
    try:
        items.clear()
    except (AttributeError, TypeError):
        pass
    trees = s.trees()
    try:
        trees.clear()
    except (AttributeError, TypeError):
        pass
    assert s[TAU] == 1 and s[T2] == R(1, 2) and len(s.items()) == 4 and len(s.trees()) == 4


def test_the_input_mapping_is_copied():
    coeffs = {TAU: 1, T2: R(1, 2)}
    s = BSeries(coeffs, 3)
    coeffs[T2] = 7
    coeffs[BUSH3] = 9
    assert s[T2] == R(1, 2) and s[BUSH3] == 0


def test_equality_sees_every_coefficient_and_the_empty_tree():
    a = exact_flow(4)
    for t in a.trees():
        changed = BSeries({u: (a[u] + 1 if u == t else a[u]) for u in a.trees()}, 4)
        assert changed != a, t
    assert BSeries({t: a[t] for t in a.trees()}, 4, empty=0) != a
    assert BSeries({t: a[t] for t in a.trees()}, 4) == a


def test_vector_space_operations_by_hand():
    a = BSeries({TAU: 1, T2: R(1, 2)}, 2)
    b = BSeries({TAU: 3, T2: -1}, 2)
    x = sympy.Symbol("x")
    assert (a + b)[T2] == R(-1, 2) and (a + b).empty == 2
    assert (a - b)[TAU] == -2 and (a - b).empty == 0 and (a - b).is_vector_field
    assert (-a)[T2] == R(-1, 2) and (-a).empty == -1
    assert (R(2, 3) * a)[T2] == R(1, 3) and (R(2, 3) * a).empty == R(2, 3)
    assert (a * 3)[TAU] == 3 and (a * 3).empty == 3
    assert sympy.simplify((x * a)[T2] - x / 2) == 0 and (x * a).empty == x
    assert R(1, 2) * (a + a) == a


# ============================================================================ hand computations (planted bugs)


def test_composition_at_bush_and_tall_trees_by_hand():
    """(a then b)(t) = sum over the vertex sets S of t closed under "parent of" of
    b(S) * prod a(pruned parts), on one labelled instance.  [tau^2] (root r, leaves l1, l2):
    S = {}: b(empty) a([tau^2]); {r}: b(tau) a(tau)^2; {r, l1} and {r, l2}: 2 b([tau]) a(tau);
    all: b([tau^2]).  [[tau]] (r - c - g): b(empty) a([[tau]]) + b(tau) a([tau]) + b([tau]) a(tau)
    + b([[tau]])."""
    a1, a2, a31, a32, b1, b2, b31, b32 = sympy.symbols("a1 a2 a31 a32 b1 b2 b31 b32")
    a = BSeries({TAU: a1, T2: a2, BUSH3: a31, TALL3: a32}, 3)
    b = BSeries({TAU: b1, T2: b2, BUSH3: b31, TALL3: b32}, 3)
    c = compose(a, b)
    right = a31 + b1 * a1 ** 2 + 2 * b2 * a1 + b31
    wrong = a31 + b1 * a1 ** 2 + 1 * b2 * a1 + b31           # multiplicity 1: the planted bug
    assert sympy.expand(c[BUSH3] - right) == 0
    assert sympy.expand(c[BUSH3] - wrong) != 0              # the test tells them apart
    assert sympy.expand(c[TALL3] - (a32 + b1 * a2 + b2 * a1 + b32)) == 0
    assert sympy.expand(c[T2] - (a2 + b1 * a1 + b2)) == 0
    assert sympy.expand(c[TAU] - (a1 + b1)) == 0


def test_substitution_at_bush_and_tall_trees_by_hand():
    """(b * a)(t) = sum over the sets of kept edges of a(contracted tree) * prod b(parts)
    (CHV 2007 eq. (6)): [tau^2]: a(tau) b([tau^2]) + 2 a([tau]) b(tau) b([tau]) + a([tau^2]) b(tau)^3;
    [[tau]]: a(tau) b([[tau]]) + 2 a([tau]) b(tau) b([tau]) + a([[tau]]) b(tau)^3."""
    a1, a2, a31, a32, b1, b2, b31, b32 = sympy.symbols("a1 a2 a31 a32 b1 b2 b31 b32")
    a = BSeries({TAU: a1, T2: a2, BUSH3: a31, TALL3: a32}, 3)
    b = BSeries({TAU: b1, T2: b2, BUSH3: b31, TALL3: b32}, 3, empty=0)
    s = substitute(b, a)
    assert s.empty == 1
    assert sympy.expand(s[TAU] - a1 * b1) == 0
    assert sympy.expand(s[T2] - (a1 * b2 + a2 * b1 ** 2)) == 0
    assert sympy.expand(s[BUSH3] - (a1 * b31 + 2 * a2 * b1 * b2 + a31 * b1 ** 3)) == 0
    assert sympy.expand(s[TALL3] - (a1 * b32 + 2 * a2 * b1 * b2 + a32 * b1 ** 3)) == 0
    assert sympy.expand(s[TALL3] - (a1 * b32 + a2 * b1 * b2 + a32 * b1 ** 3)) != 0


def test_inverse_by_hand():
    """compose(a, c) = identity, solved by hand at orders 1-3 from the formulas above:
    c(tau) = -a1, c([tau]) = -a2 + a1^2, c([tau^2]) = -a31 + 2 a1 a2 - a1^3 ... (checked by
    composing back, and at [tau^2] against the explicit solution)."""
    a1, a2, a31, a32 = sympy.symbols("a1 a2 a31 a32")
    a = BSeries({TAU: a1, T2: a2, BUSH3: a31, TALL3: a32}, 3)
    c = inverse(a)
    assert sympy.expand(c[TAU] + a1) == 0
    assert sympy.expand(c[T2] - (-a2 + a1 ** 2)) == 0
    # 0 = c([tau^2]) + c(tau) a1^2 + 2 c([tau]) a1 + a31  =>  c([tau^2]) = -a31 + a1^3 - 2 a1 (a1^2 - a2)
    assert sympy.expand(c[BUSH3] - (-a31 + a1 ** 3 - 2 * a1 * (a1 ** 2 - a2))) == 0
    # 0 = c([[tau]]) + c(tau) a2 + c([tau]) a1 + a32
    assert sympy.expand(c[TALL3] - (-a32 + a1 * a2 - a1 * (a1 ** 2 - a2))) == 0


def test_things_that_are_not_methods_are_refused():
    from geomcheck.bseries import series_of

    for bad in ("RK4", None, 3, [[0]], object()):
        with pytest.raises(InvalidArgumentError):
            series_of(bad, 3)
        with pytest.raises(InvalidArgumentError):
            modified_equation(bad, 3)
    with pytest.raises(InvalidArgumentError):
        compose(exact_flow(3), "not a series")
    with pytest.raises(InvalidArgumentError):
        modified_equation(runge_kutta(*MIDPOINT, 3), -1)
