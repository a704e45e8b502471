"""Laws of graded geometry on random graded charts: supercommutativity, graded
derivations, the graded Jacobi identity with Koszul signs, and [Q, Q] = 2 Q o Q.

Degrees used in the Koszul signs are the ones the strategies were asked for (drawn
here), not the engine's ``.degree``, so a wrong degree in the engine cannot hide a
wrong sign.  Odd coordinates are written in random orders by the strategies.
"""

from hypothesis import given
from hypothesis import strategies as st

import geomcheck as gc
from geomcheck import strategies as gst


def koszul(a, b):
    return -1 if (a * b) % 2 else 1


def draw_chart(data, max_dim=4, min_odd=1):
    return data.draw(gst.graded_charts(min_odd, max_dim, min_odd=min_odd), label="graded chart")


def draw_sign_sensitive_chart(data):
    """2-3 odd coordinates of degree 1 (+ at most one even one): products of odd
    functions are then rarely zero and odd derivatives hit every position."""
    return data.draw(
        gst.graded_charts(
            2, 4, min_odd=2, odd_degrees=st.just(1), even_degrees=st.just(0)
        ).filter(lambda G: len(G.odd) <= 3),
        label="graded chart",
    )


def draw_function(data, G, label="f", parity=None):
    degs = gst.superfunction_degrees(G)
    if parity is not None:
        degs = [k for k in degs if k % 2 == parity]
    k = data.draw(st.sampled_from(degs), label=f"|{label}|")
    return data.draw(gst.superfunctions(G, degree=k), label=label), k


def draw_field(data, G, label="X", parity=None):
    degs = gst.vector_field_degrees(G)
    if parity is not None:
        degs = [k for k in degs if k % 2 == parity]
    k = data.draw(st.sampled_from(degs), label=f"|{label}|")
    return data.draw(gst.vector_fields_graded(G, degree=k, max_terms=2), label=label), k


@given(st.data())
def test_superfunctions_supercommute(data):
    G = draw_chart(data)
    f, kf = draw_function(data, G, "f")
    g, kg = draw_function(data, G, "g")
    assert (f * g - koszul(kf, kg) * (g * f)).is_zero() is True


@given(st.data())
def test_odd_superfunctions_anticommute(data):
    # the sign-sensitive case, drawn on purpose: two odd functions, >= 2 odd coordinates
    G = draw_sign_sensitive_chart(data)
    f, _ = draw_function(data, G, "f", parity=1)
    g, _ = draw_function(data, G, "g", parity=1)
    assert (f * g + g * f).is_zero() is True


@given(st.data())
def test_superfunction_product_is_associative_and_degrees_add(data):
    G = draw_chart(data)
    f, kf = draw_function(data, G, "f")
    g, kg = draw_function(data, G, "g")
    h, kh = draw_function(data, G, "h")
    assert ((f * g) * h - f * (g * h)).is_zero() is True
    fg = f * g
    if fg.is_zero() is not True:
        assert fg.degree == kf + kg


@given(st.data())
def test_odd_squares_vanish(data):
    G = draw_chart(data)
    f, kf = draw_function(data, G, "f")
    if kf % 2:
        assert (f * f).is_zero() is True


@given(st.data())
def test_vector_fields_are_graded_derivations(data):
    # X(f g) = X(f) g + (-1)^{|X||f|} f X(g)
    G = draw_chart(data)
    X, kX = draw_field(data, G, "X")
    f, kf = draw_function(data, G, "f")
    g, _ = draw_function(data, G, "g")
    lhs = X(f * g)
    rhs = X(f) * g + koszul(kX, kf) * (f * X(g))
    assert (lhs - rhs).is_zero() is True


@given(st.data())
def test_odd_vector_fields_are_odd_derivations(data):
    # the sign-sensitive case: X odd, f odd, functions with several odd factors
    G = draw_sign_sensitive_chart(data)
    X, _ = draw_field(data, G, "X", parity=1)
    f, _ = draw_function(data, G, "f", parity=1)
    g, _ = draw_function(data, G, "g")
    assert (X(f * g) - (X(f) * g - f * X(g))).is_zero() is True


@given(st.data())
def test_bracket_is_the_graded_commutator_on_functions(data):
    G = draw_chart(data)
    X, kX = draw_field(data, G, "X")
    Y, kY = draw_field(data, G, "Y")
    f, _ = draw_function(data, G, "f")
    lhs = gc.bracket(X, Y)(f)
    rhs = X(Y(f)) - koszul(kX, kY) * Y(X(f))
    assert (lhs - rhs).is_zero() is True


@given(st.data())
def test_bracket_is_graded_antisymmetric(data):
    G = draw_chart(data)
    X, kX = draw_field(data, G, "X")
    Y, kY = draw_field(data, G, "Y")
    assert (gc.bracket(X, Y) + koszul(kX, kY) * gc.bracket(Y, X)).is_zero() is True


@given(st.data())
def test_graded_jacobi_identity(data):
    # [X, [Y, Z]] = [[X, Y], Z] + (-1)^{|X||Y|} [Y, [X, Z]]
    G = draw_chart(data, max_dim=3)
    X, kX = draw_field(data, G, "X")
    Y, kY = draw_field(data, G, "Y")
    Z, _ = draw_field(data, G, "Z")
    b = gc.bracket
    lhs = b(X, b(Y, Z))
    rhs = b(b(X, Y), Z) + koszul(kX, kY) * b(Y, b(X, Z))
    assert (lhs - rhs).is_zero() is True


@given(st.data())
def test_bracket_of_odd_field_with_itself_is_twice_its_square(data):
    # [Q, Q] = 2 Q o Q, whose components are 2 Q(Q^a)
    G = draw_chart(data)
    Q, _ = draw_field(data, G, "Q", parity=1)
    twice_square = gc.VectorField(G, {x: 2 * Q(G.function(v)) for x, v in Q.components.items()})
    assert (gc.bracket(Q, Q) - twice_square).is_zero() is True
    homological = Q.is_homological()
    assert homological is (gc.bracket(Q, Q).is_zero() is True)


def test_de_rham_field_is_homological():
    # d = xi d/dx + eta d/dy on T[1]R^2 (and a non-example)
    G = gc.Chart("x y xi eta", degrees=[0, 0, 1, 1])
    x, y, xi, eta = G.coords
    assert gc.VectorField(G, {x: xi, y: eta}).is_homological() is True
    assert gc.VectorField(G, {x: xi, y: x * eta}).is_homological() is False  # Q(Q^y) = xi eta
