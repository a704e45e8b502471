"""geomcheck's exterior calculus against galgebra (an independent implementation).

The oracle (``tests/oracles/galgebra_forms.py``) identifies dx^i with the basis vector
e_i of flat R^n (orthonormal Euclidean metric, Cartesian coordinates), so that
d = grad ^ , wedge = outer product and i_X = left contraction X < .  The first tests
pin these conventions down on hand-computed examples, independently of geomcheck;
the property tests then compare geomcheck with the oracle on random forms in up to
8 dimensions, including charts whose order differs from sympy's alphabetical order.
"""

import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import geomcheck as gc
from geomcheck import strategies as gst
from oracles import galgebra_forms as og

KINDS = st.sampled_from(["polynomial", "transcendental", "generic"])


def mixed(chart):
    return gst.coefficients(chart, kind=KINDS)


def assert_same(mine: dict, oracle: dict, what):
    # expand (after re-evaluating derivatives) decides these: both sides differentiate
    # the same coefficients; simplify is only a fallback against harmless rewritings
    diff = {k: r for k, r in og.difference(mine, oracle).items() if sp.simplify(r) != 0}
    assert diff == {}, f"{what}: geomcheck and galgebra differ in components {diff}"


# ---------------------------------------------------------------- the oracle's conventions


def test_oracle_conventions_by_hand():
    x, y, z = sp.symbols("x y z")
    c = (x, y, z)
    F = sp.Function("F")(x, y, z)
    # d of a function is its gradient
    assert og.d({(): F}, c) == {(0,): F.diff(x), (1,): F.diff(y), (2,): F.diff(z)}
    # d(x dy) = dx ^ dy ; d(y dx) = dy ^ dx = -dx ^ dy
    assert og.d({(1,): x}, c) == {(0, 1): 1}
    assert og.d({(0,): y}, c) == {(0, 1): -1}
    # d(F dx ^ dy) = F_z dz ^ dx ^ dy = F_z dx ^ dy ^ dz
    assert og.difference(og.d({(0, 1): F}, c), {(0, 1, 2): F.diff(z)}) == {}
    # d(F dx ^ dz) = F_y dy ^ dx ^ dz = -F_y dx ^ dy ^ dz
    assert og.difference(og.d({(0, 2): F}, c), {(0, 1, 2): -F.diff(y)}) == {}
    # wedge: dy ^ dx = -dx ^ dy ; dx ^ dx = 0 ; (dx ^ dz) ^ dy = -dx ^ dy ^ dz
    assert og.wedge({(1,): 1}, {(0,): 1}, c) == {(0, 1): -1}
    assert og.wedge({(0,): 1}, {(0,): 1}, c) == {}
    assert og.wedge({(0, 2): 1}, {(1,): 1}, c) == {(0, 1, 2): -1}
    assert og.wedge({(): x}, {(1,): y}, c) == {(1,): x * y}
    # interior: i_{d/dy}(dx ^ dy) = -dx ; i_X of a function is 0
    assert og.interior({1: 1}, {(0, 1): 1}, c) == {(0,): -1}
    assert og.interior({0: 1}, {(): x}, c) == {}
    # the index of a blade is the coordinate's position in the chart, not its name:
    # on the chart (y, x), x dy is {(0,): x} and d of it is dx ^ dy = -(dy ^ dx)
    assert og.d({(0,): x}, (y, x)) == {(0, 1): -1}


def test_oracle_d_squared_and_leibniz_sanity():
    x, y, z, w = c = sp.symbols("x y z w")
    a = {(0,): sp.sin(x * y) * z, (2,): sp.Function("G")(x, w)}
    b = {(1, 3): x**2 * w}
    assert og.d(og.d(a, c), c) == {}
    lhs = og.d(og.wedge(a, b, c), c)
    rhs = og.wedge(og.d(a, c), b, c)
    for k, v in og.wedge(a, og.d(b, c), c).items():
        rhs[k] = rhs.get(k, 0) - v
    assert og.difference(lhs, rhs) == {}


def test_geomcheck_on_the_hand_examples():
    M = gc.Chart("y x")
    y, x = M.coords
    a = gc.Form(M, {(0,): x})  # x dy
    assert gc.d(a).components == {(0, 1): -1}
    assert (M.d(x) ^ M.d(y)).components == {(0, 1): -1}


# ---------------------------------------------------------------- random cross-checks


@given(st.data())
def test_d_matches_galgebra(data):
    M = data.draw(gst.charts(1, 8), label="chart")
    a = data.draw(gst.forms(M, coefficients=mixed), label="a")
    assert_same(gc.d(a).components, og.d(a.components, M.coords), f"d({a})")


@given(st.data())
def test_wedge_matches_galgebra(data):
    M = data.draw(gst.charts(1, 8), label="chart")
    a = data.draw(gst.forms(M, coefficients=mixed), label="a")
    b = data.draw(gst.forms(M, degree=st.integers(0, M.dim - a.degree), coefficients=mixed), label="b")
    assert_same((a ^ b).components, og.wedge(a.components, b.components, M.coords), f"{a} ^ {b}")


@given(st.data())
def test_interior_matches_galgebra(data):
    M = data.draw(gst.charts(1, 8), label="chart")
    X = data.draw(gst.vector_fields(M, coefficients=mixed), label="X")
    a = data.draw(gst.forms(M, coefficients=mixed), label="a")
    field = {M.index(c): v for c, v in X.components.items()}
    assert_same(gc.interior(X, a).components, og.interior(field, a.components, M.coords), f"i_X {a}")


@given(st.data())
def test_lie_component_formula_matches_galgebra_cartan(data):
    M = data.draw(gst.charts(1, 6), label="chart")
    X = data.draw(gst.vector_fields(M, coefficients=mixed), label="X")
    a = data.draw(gst.forms(M, coefficients=mixed), label="a")
    field = {M.index(c): v for c, v in X.components.items()}
    assert_same(gc.lie(X, a).components, og.lie(field, a.components, M.coords), f"L_X {a}")


@given(st.data())
def test_d_of_function_matches_galgebra(data):
    M = data.draw(gst.charts(1, 8), label="chart")
    f = data.draw(gst.coefficients(M, kind=KINDS), label="f")
    assert_same(M.d(f).components, og.d({(): f}, M.coords), f"d({f})")
