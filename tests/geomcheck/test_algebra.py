"""Charts and the sparse supercommutative kernel (geomcheck.algebra).

Every expected value below is computed by hand.  Sign conventions: odd coordinates
anticommute (xi*eta == -eta*xi, xi*xi == 0); an expression is read in the order it is
written; the canonical form lists odd coordinates in chart order.
"""

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import (
    ChartError,
    ChartMismatchError,
    DegreeListError,
    DuplicateCoordinateError,
    ExpressionError,
    GeomcheckError,
    MixedDegreeError,
    NotHomogeneousError,
    UnknownCoordinateError,
)


def sf_equal(a, b):
    """Two superfunctions on the same chart whose difference expands to zero, term by term."""
    assert a.chart == b.chart
    return all(sp.expand(v) == 0 for v in (a - b).terms.values())


# --------------------------------------------------------------------------- chart parsing


@pytest.mark.parametrize(
    "names",
    ["q1 q2 p1 p2", "q1,q2,p1,p2", "q1, q2,  p1 ,p2", "  q1\tq2\np1 p2 ", ["q1", "q2", "p1", "p2"]],
)
def test_chart_parsing_strings_and_lists(names):
    M = gc.Chart(names)
    assert M.coords == sp.symbols("q1 q2 p1 p2")
    assert [c.name for c in M.coords] == ["q1", "q2", "p1", "p2"]
    assert M.dim == 4
    assert M.degrees == (0, 0, 0, 0)
    assert not M.is_graded
    assert M.odd == ()
    assert M.even == M.coords


def test_chart_parsing_symbols_and_mixed_list():
    q, p = sp.symbols("q p")
    M = gc.Chart([q, "p"])
    assert M.coords == (q, p)
    # order is the order given, not sympy's alphabetical order
    assert gc.Chart("z a m").coords == sp.symbols("z a m")


def test_chart_given_symbols_with_assumptions_is_not_a_silent_wrong_answer():
    """Chart([q, p]) with the user's own Symbols: either the chart uses those very
    symbols, or it refuses them.  It must not silently swap in assumption-free
    look-alikes (then d(p**2) on the chart would be 0)."""
    q, p = sp.symbols("q p", real=True)
    try:
        M = gc.Chart([q, p])
    except GeomcheckError:
        return
    assert M.coords == (q, p), (
        f"chart coordinates {M.coords} have assumptions {[c.assumptions0 for c in M.coords]},"
        f" the given symbols {[c.assumptions0 for c in (q, p)]}"
    )
    assert M.d(p**2).components == {(1,): 2 * p}


def test_chart_value_semantics():
    assert gc.Chart("x y") == gc.Chart("x, y") == gc.Chart(["x", "y"])
    assert hash(gc.Chart("x y")) == hash(gc.Chart(["x", "y"]))
    assert gc.Chart("x y") != gc.Chart("y x")
    assert gc.Chart("x y") != gc.Chart("x y z")
    assert gc.Chart("x y") != gc.Chart("x y", degrees=[0, 1])
    assert len({gc.Chart("x y"), gc.Chart("x,y"), gc.Chart("y x")}) == 2


def test_chart_index_by_symbol_and_by_name():
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    assert [M.index(c) for c in (q1, q2, p1, p2)] == [0, 1, 2, 3]
    assert M.index("p1") == 2
    with pytest.raises(UnknownCoordinateError):
        M.index(sp.Symbol("x"))
    with pytest.raises(UnknownCoordinateError):
        M.index("x")


# --------------------------------------------------------------------------- graded charts


def test_graded_chart_odd_and_even_coordinates():
    G = gc.Chart("x y xi eta", degrees=[0, 0, 1, 1])
    x, y, xi, eta = G.coords
    assert G.is_graded
    assert G.degrees == (0, 0, 1, 1)
    assert G.odd == (xi, eta)
    assert G.even == (x, y)
    assert x.is_commutative and y.is_commutative
    assert xi.is_commutative is False and eta.is_commutative is False
    assert xi == sp.Symbol("xi", commutative=False)
    assert G.odd_index(eta) == 1
    assert G.degree_of(eta) == 1


def test_graded_chart_parity_follows_degree_mod_2():
    G = gc.Chart("x b xi c", degrees=[0, 2, 1, -1])
    x, b, xi, c = G.coords
    assert G.odd == (xi, c)  # degree 1 and degree -1 are odd
    assert G.even == (x, b)  # degree 2 is even: a commutative coordinate
    assert b.is_commutative
    assert c.is_commutative is False


def test_chart_rejects_bad_input():
    with pytest.raises(DuplicateCoordinateError):
        gc.Chart("q p q")
    with pytest.raises(DegreeListError):
        gc.Chart("x y", degrees=[0])
    with pytest.raises(DegreeListError):
        gc.Chart("x y", degrees=[0, 1, 1])
    with pytest.raises(DegreeListError):
        gc.Chart("x", degrees=[0.5])
    with pytest.raises(ChartError):
        gc.Chart("")
    with pytest.raises(ChartError):
        gc.Chart("x 1y")
    with pytest.raises(ChartError):
        gc.Chart(42)


# --------------------------------------------------------------------------- canonical form


@pytest.fixture
def G3():
    return gc.Chart("x y xi eta theta", degrees=[0, 0, 1, 1, 1])


def test_odd_coordinates_anticommute(G3):
    x, y, xi, eta, th = G3.coords
    f = G3.function(xi * eta)
    g = G3.function(eta * xi)
    assert f == -g
    assert f != g
    assert G3.function(x * xi * eta) == G3.function(-x * eta * xi)
    assert G3.function(x * xi * eta).expr == x * xi * eta
    assert G3.function(x * eta * xi).expr == -x * xi * eta
    assert G3.function(eta * xi).coefficient(xi, eta) == -1


def test_products_are_read_in_the_order_written(G3):
    x, y, xi, eta, th = G3.coords
    assert G3.function(xi * eta * th).expr == xi * eta * th
    assert G3.function(eta * th * xi).expr == xi * eta * th  # cyclic: even permutation
    assert G3.function(th * eta * xi).expr == -xi * eta * th  # reversal of 3: odd
    assert G3.function(eta * xi * th).expr == -xi * eta * th
    # commutative factors may sit anywhere
    assert G3.function(eta * x * xi * y).expr == -x * y * xi * eta


def test_squares_and_powers_of_odd_elements_vanish(G3):
    x, y, xi, eta, th = G3.coords
    assert G3.function(xi * xi).terms == {}
    assert G3.function(xi**2).terms == {}
    assert G3.function(x * xi * eta * xi).terms == {}
    assert G3.function((xi + eta) ** 2).terms == {}  # xi eta + eta xi = 0
    assert G3.function((x * xi) ** 2).terms == {}
    assert G3.function(xi**1) == G3.function(xi)
    # an even element built of odd ones does not square to zero
    assert G3.function((1 + xi * eta) ** 2).expr == 1 + 2 * xi * eta


def test_like_terms_collect_with_signs(G3):
    x, y, xi, eta, th = G3.coords
    f = G3.function(x * eta * xi + xi * eta * y)
    assert f.terms == {(0, 1): y - x}
    assert G3.function(xi * eta + eta * xi).terms == {}


def test_non_polynomial_in_odd_coordinates_is_refused(G3):
    x, y, xi, eta, th = G3.coords
    with pytest.raises(ExpressionError):
        G3.function(sp.sin(xi))
    with pytest.raises(ExpressionError):
        G3.function(1 / xi)
    with pytest.raises(UnknownCoordinateError):
        G3.function(sp.Symbol("zeta", commutative=False))


def test_superfunction_coefficient_carries_the_permutation_sign(G3):
    """f = x xi eta = -x eta xi: the coefficient of eta xi is -x (as Form.coefficient does)."""
    x, y, xi, eta, th = G3.coords
    f = G3.function(x * xi * eta)
    assert f.coefficient(xi, eta) == x
    assert f.coefficient(eta, xi) == -x


# --------------------------------------------------------------------------- degrees


def test_degree_of_homogeneous_superfunctions(G3):
    x, y, xi, eta, th = G3.coords
    assert G3.function(x**2 + sp.sin(y)).degree == 0
    assert G3.function(sp.exp(x) * xi + y * eta).degree == 1
    assert G3.function(xi * eta).degree == 2
    assert G3.function(xi * eta * th).degree == 3
    with pytest.raises(NotHomogeneousError):
        G3.function(1 + xi).degree
    with pytest.raises(NotHomogeneousError):
        G3.function(xi + xi * eta * th).degree
    assert issubclass(NotHomogeneousError, MixedDegreeError)
    assert issubclass(NotHomogeneousError, ValueError)


def test_degree_with_even_coordinates_of_degree_2():
    G = gc.Chart("x b xi", degrees=[0, 2, 1])
    x, b, xi = G.coords
    assert G.function(b).degree == 2
    assert G.function(b**2).degree == 4
    assert G.function(x * b * xi).degree == 3
    assert G.function(sp.sin(x) * b**2 * xi).degree == 5
    assert G.function(b * xi + sp.Rational(1, 2) * b * xi).degree == 3
    with pytest.raises(NotHomogeneousError):
        G.function(b + xi).degree  # degrees 2 and 1
    with pytest.raises(NotHomogeneousError):
        G.function(b**2 + b).degree  # degrees 4 and 2
    with pytest.raises(NotHomogeneousError):
        G.function(sp.exp(b)).degree  # not polynomial in a graded coordinate


def test_degree_with_negative_degree_odd_coordinate():
    G = gc.Chart("x c", degrees=[0, -1])
    x, c = G.coords
    assert G.function(x * c).degree == -1


# --------------------------------------------------------------------------- arithmetic


def test_superfunction_arithmetic(G3):
    x, y, xi, eta, th = G3.coords
    f = G3.function(x * xi)
    g = G3.function(y * eta)
    assert f * g == G3.function(x * y * xi * eta)
    assert g * f == G3.function(-x * y * xi * eta)
    assert f * f == G3.function(0)
    assert f + g == G3.function(x * xi + y * eta)
    assert f - f == G3.function(0)
    assert (-f).expr == -x * xi
    assert (f + 1).expr == 1 + x * xi
    assert (1 - f).expr == 1 - x * xi
    assert (3 * f).expr == 3 * x * xi
    assert (f * y).expr == x * y * xi
    # a plain sympy odd symbol multiplies in the order written, on either side
    assert (eta * G3.function(xi)).expr == -xi * eta
    assert (G3.function(xi) * eta).expr == xi * eta
    # (1 + xi)(1 - xi) = 1
    assert G3.function(1 + xi) * G3.function(1 - xi) == G3.function(1)


def test_superfunction_product_is_associative_and_graded_commutative(G3):
    x, y, xi, eta, th = G3.coords
    a = G3.function(x * xi + eta)  # odd
    b = G3.function(y * th + xi)  # odd
    c = G3.function(1 + x * eta * th)  # even
    assert sf_equal((a * b) * c, a * (b * c))
    assert sf_equal(a * b, -(b * a))
    assert sf_equal(a * c, c * a)


def test_superfunctions_on_different_charts_do_not_combine():
    G = gc.Chart("x xi", degrees=[0, 1])
    H = gc.Chart("y xi", degrees=[0, 1])
    with pytest.raises(ChartMismatchError):
        G.function(G.coords[1]) + H.function(H.coords[1])
    with pytest.raises(ChartMismatchError):
        G.function(G.coords[1]) * H.function(H.coords[1])


def test_superfunction_equality_and_hash(G3):
    x, y, xi, eta, th = G3.coords
    f = G3.function(x * xi * eta)
    g = G3.function(-x * eta * xi)
    assert f == g and hash(f) == hash(g)
    assert len({f, g, G3.function(y * xi * eta)}) == 2
    other = gc.Chart("x y xi eta theta", degrees=[0, 0, 1, 1, 1])
    assert other.function(x * xi * eta) == f  # equal charts


def test_superfunction_is_zero(G3):
    x, y, xi, eta, th = G3.coords
    assert G3.function(0).is_zero() is True
    assert G3.function(xi * xi).is_zero() is True
    assert (G3.function(x * xi * eta) + G3.function(x * eta * xi)).is_zero() is True
    # not structurally zero: needs the zero test
    assert G3.function((sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1) * xi).is_zero() is True
    assert G3.function(x * xi).is_zero() is False
    assert G3.function((x + y) ** 2 * xi * eta - (x**2 + y**2) * xi * eta).is_zero() is False


# --------------------------------------------------------------------------- T[1]M


def test_shifted_tangent():
    M = gc.Chart("x y")
    T = M.shifted_tangent()
    assert T.dim == 4
    assert T.degrees == (0, 0, 1, 1)
    assert T.coords[:2] == M.coords
    assert [c.name for c in T.odd] == ["dx", "dy"]
    assert all(c.is_commutative is False for c in T.odd)
    assert T == gc.Chart("x y dx dy", degrees=[0, 0, 1, 1])
    with pytest.raises(ChartMismatchError):
        T.shifted_tangent()


def test_shifted_tangent_of_a_chart_with_a_coordinate_named_like_a_differential():
    """A coordinate may be called ``dx`` (a displacement, say); T[1] of the chart must
    still have four distinct coordinates instead of failing on a name clash."""
    M = gc.Chart("x dx")
    T = M.shifted_tangent()
    assert T.dim == 4
    assert T.degrees == (0, 0, 1, 1)
    assert T.coords[:2] == M.coords
    assert len(set(T.coords)) == 4


def test_chart_d_on_graded_chart_is_refused():
    G = gc.Chart("x xi", degrees=[0, 1])
    with pytest.raises(ChartMismatchError):
        G.d(G.coords[0])
