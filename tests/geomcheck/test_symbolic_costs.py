"""Symbolic costs that scale (issue 18, item 5).

* Deciding how to show an expression (typeset it, or describe it by its size) visits at most
  about ``limit`` nodes, however large the expression: checked with a node class that counts
  every visit (never with a wall clock).
* The engine's derivatives of an undefined function of many arguments are built without
  re-reading its arguments, and are the very objects sympy builds (structurally equal, same
  hash): the results do not change.
"""

from __future__ import annotations

import functools
import itertools
import operator
import types

import pytest
import sympy
from sympy.core.function import Derivative

import geomcheck as gc
from geomcheck.calculus import canonical_derivatives, diff
from geomcheck.certify.certificate import Certificate
from geomcheck.jets import from_jets, short_text
from geomcheck.latex import expression_size, summarize, summarize_map, summarize_text

# ----------------------------------------------------------------------------- bounded decisions

VISITS = [0]


class Counted(sympy.Expr):
    """A node that counts how often its arguments are read (how often it is visited)."""

    @property
    def args(self):
        VISITS[0] += 1
        return self._args


@pytest.fixture(scope="module")
def huge():
    """A balanced tree of 2**17 - 1 counted nodes over one symbol (built without sympy's checks)."""
    x = sympy.Symbol("x")
    level = [x] * (1 << 17)
    while len(level) > 1:
        level = [sympy.Expr.__new__(Counted, level[i], level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def visits(fn, *args):
    VISITS[0] = 0
    out = fn(*args)
    return out, VISITS[0]


def test_the_counter_counts_a_full_walk(huge):
    # the fixture is what it claims: a full count reads every one of its 131071 inner nodes
    n, seen = visits(expression_size, huge)
    assert n == 2 * (1 << 17) - 1
    assert seen == (1 << 17) - 1


@pytest.mark.parametrize("limit", [10, 300, 1200])
def test_expression_size_stops_at_its_limit(huge, limit):
    n, seen = visits(expression_size, huge, limit)
    assert n == limit + 1
    assert seen <= limit + 1


def test_summaries_of_a_huge_expression_visit_a_bounded_number_of_nodes(huge):
    tex, seen = visits(summarize, huge)
    assert tex == r"\text{(an expression of more than 300 nodes)}" and seen <= 301
    text, seen = visits(summarize_text, huge, 500)
    assert text == "(an expression of more than 500 nodes)" and seen <= 501
    explicit = types.SimpleNamespace(exprs=[huge, huge])        # what summarize_map reads of a Map
    tex, seen = visits(summarize_map, explicit)
    assert tex == r"\text{(explicit, more than 400 nodes)}" and seen <= 401
    text, seen = visits(short_text, huge, 60)
    assert text == "(more than 1200 nodes)" and seen <= 1201


def test_a_certificate_with_a_huge_factor_typesets_in_bounded_visits(huge):
    c = Certificate(claim="phi^* omega == k omega", holds=True, method="by hand", stage="exact", factor=huge)
    tex, seen = visits(c.latex)
    assert "more than 1200 nodes" in tex and seen <= 1201


def test_small_objects_are_shown_as_before():
    x, y = sympy.symbols("x y")
    e = x**2 + sympy.sin(y)
    assert summarize_text(e) == str(e)
    assert short_text(e) == str(e)
    c = Certificate(claim="phi^* omega == k omega", holds=True, method="m", stage="exact", factor=sympy.exp(-y))
    assert r"The factor is $" + sympy.latex(sympy.exp(-y)) + "$." in c.latex()
    M = gc.Chart("q p")
    q, p = M.coords
    w = q * (M.d(q) ^ M.d(p))
    assert summarize_text(w) == str(w)
    # a form is measured by its coefficients: a large one is described, with its number of components
    big = sympy.Add(*[q**k for k in range(150)]) * (M.d(q) ^ M.d(p))          # 150 terms, over 400 nodes
    assert summarize_text(big) == "(a form with 1 components, more than 300 nodes)"


def test_a_large_factor_is_named_only_when_short():
    # certify_conformal_symplectic names the factor in its method only when it prints short
    M = gc.Chart("q p")
    q, p = M.coords
    h = sympy.Symbol("h", positive=True)
    c = gc.certify_conformal_symplectic(gc.Map(M, M, [q, sympy.exp(-h) * p]), M.d(q) ^ M.d(p))
    assert c.holds is True and "exp(-h)" in c.method


# ----------------------------------------------------------------------------- derivatives of H(x_1..x_n)


def _sympy_canonical(f, variables):
    """What the engine's derivative must equal: sympy's own, with canonically ordered variables."""
    return canonical_derivatives(sympy.diff(f, *variables))


@pytest.mark.parametrize("order", [1, 2, 3])
def test_derivatives_of_a_function_of_many_arguments_are_sympys_own(order):
    xs = sympy.symbols("x1:7")
    H = sympy.Function("H")(*xs)
    for variables in itertools.product(xs[:4], repeat=order):
        got = functools.reduce(diff, variables, H)
        want = _sympy_canonical(H, variables)
        assert got == want and hash(got) == hash(want) and got.args == want.args
        assert isinstance(got, Derivative) and got.is_commutative


def test_derivatives_in_every_order_are_one_object():
    a, b, c = sympy.symbols("a b c")
    H = sympy.Function("H")(c, a, b)                       # slot order, not alphabetical
    seen = {functools.reduce(diff, perm, H) for perm in itertools.permutations((a, b, c, a))}
    assert len(seen) == 1
    (d,) = seen
    assert d.variable_count == ((c, 1), (a, 2), (b, 1))


def test_adversarial_arguments_still_go_through_sympy_or_jets():
    x, y, z, u, v = sympy.symbols("x y z u v")
    f, g = sympy.Function("f"), sympy.Function("g")
    # a variable the function does not have: zero
    assert diff(diff(f(x, y), x), z) == 0
    # a repeated argument, g(x, x): both slots' derivatives (sympy's own fdiff would count one slot twice)
    concrete = from_jets(diff(g(x, x), x)).subs(g, sympy.Lambda((u, v), u**3 * v)).doit()
    assert sympy.expand(concrete - sympy.diff(x**4, x)) == 0
    # a non-symbol argument: the chain rule, checked on a concrete function
    concrete = from_jets(diff(diff(f(x + y, y), y), x)).subs(f, sympy.Lambda((u, v), u**2 * v)).doit()
    assert sympy.expand(concrete - sympy.diff((x + y) ** 2 * y, y, x)) == 0
    # a derivative by a function (variational calculus) keeps its order: not rebuilt by slots
    d = sympy.Derivative(f(x, y), f(x, y))
    assert canonical_derivatives(d) == d


def test_generic_hamiltonian_lie_derivative_is_zero_and_other_fields_are_right():
    n = 8
    q = sympy.symbols(f"q1:{n + 1}")
    p = sympy.symbols(f"p1:{n + 1}")
    coords = list(q) + list(p)
    M = gc.Chart(coords)
    w = functools.reduce(operator.add, [M.d(a) ^ M.d(b) for a, b in zip(q, p)])
    H = sympy.Function("H")(*q, *p)
    assert gc.lie(gc.hamiltonian_vector_field(H, w), w).terms == {}
    # a field that is not Hamiltonian: every component checked against plain sympy matrices,
    # (L_Y w)_ij = (DY^T W + W DY)_ij for w = sum dq_i ^ dp_i (W[q_i, p_i] = 1)
    Y = gc.VectorField(M, {q[0]: H, p[1]: q[0] * H})
    L = gc.lie(Y, w)
    assert L.terms and L.is_zero() is False
    W = sympy.zeros(2 * n, 2 * n)
    for i in range(n):
        W[i, n + i], W[n + i, i] = 1, -1
    Yv = sympy.zeros(2 * n, 1)
    Yv[0], Yv[n + 1] = H, q[0] * H
    DY = Yv.jacobian(coords)
    R = DY.T * W + W * DY
    for i, j in itertools.combinations(range(2 * n), 2):
        assert sympy.expand(canonical_derivatives(R[i, j]) - L.terms.get((i, j), 0)) == 0


def test_lie_derivative_agrees_with_cartans_formula_on_adversarial_fields():
    # the classical formula (whose contributions cancel before sums are built) against
    # L_X = d i_X + i_X d, computed independently; forms with non-constant and rational
    # coefficients, fields whose contributions cancel only partly
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    H, W = sympy.Function("H")(q1, q2, p1, p2), sympy.Function("W")(q1, p2)
    forms = [M.d(q1) ^ M.d(p1), (M.d(q1) ^ M.d(p1)) + (M.d(q2) ^ M.d(p2)),
             q1 * (M.d(q1) ^ M.d(p2)) - sympy.Rational(3, 2) * (M.d(q2) ^ M.d(p1)),
             W * (M.d(q1) ^ M.d(q2) ^ M.d(p1)), H * M.d(p2)]
    fields = [gc.VectorField(M, {q1: H.diff(p1), p1: -H.diff(q1)}),
              gc.VectorField(M, {q1: 2 * W, q2: -2 * W, p2: q1 * H}),
              gc.VectorField(M, {p1: sympy.sin(q2) * H, q2: -sympy.Rational(1, 3) * W.diff(q1)})]
    for X in fields:
        for w in forms:
            classical, cartan = gc.lie(X, w), gc.lie_cartan(X, w)
            for key in set(classical.terms) | set(cartan.terms):
                diff_ = classical.terms.get(key, 0) - cartan.terms.get(key, 0)
                assert sympy.expand(canonical_derivatives(diff_)) == 0, (X, w, key)
