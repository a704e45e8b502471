"""Laws of exterior calculus on random forms and vector fields (ordinary charts).

Every law is checked as "this difference is zero" with geomcheck's own zero test and
asserted ``is True``: an undecided answer (None) fails as loudly as a False.  The
coefficients mix polynomials, transcendental functions and undefined functions (see
``geomcheck.strategies.coefficients``).  Run more examples with
``GEOMCHECK_HYPOTHESIS_PROFILE=thorough python -m pytest`` (tests/conftest.py).
"""

import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import geomcheck as gc
from geomcheck import strategies as gst

KINDS = st.sampled_from(["polynomial", "transcendental", "generic"])
# the homotopy operator integrates coefficients along rays: keep them integrable in closed form
PRIMITIVE_KINDS = st.sampled_from(["polynomial", "transcendental"])


def mixed(chart):
    return gst.coefficients(chart, kind=KINDS)


def zero_form(M, f):
    return gc.Form(M, {(): f})


def draw_chart(data, max_dim=4):
    return data.draw(gst.charts(1, max_dim), label="chart")


def draw_form(data, M, degree=None, label="a"):
    return data.draw(gst.forms(M, degree=degree, coefficients=mixed), label=label)


def draw_pair(data, M):
    """Two homogeneous forms whose wedge is not trivially zero for degree reasons."""
    a = draw_form(data, M, label="a")
    b = draw_form(data, M, degree=st.integers(0, M.dim - a.degree), label="b")
    return a, b


def draw_field(data, M, label="X"):
    return data.draw(gst.vector_fields(M, coefficients=mixed), label=label)


def sign(k):
    return -1 if k % 2 else 1


# ---------------------------------------------------------------- d


@given(st.data())
def test_d_squared_is_zero(data):
    M = draw_chart(data)
    a = draw_form(data, M)
    assert gc.d(gc.d(a)).is_zero() is True


@given(st.data())
def test_d_of_function_is_its_gradient(data):
    M = draw_chart(data)
    f = data.draw(mixed(M), label="f")
    grad = gc.Form(M, {(i,): sp.diff(f, x) for i, x in enumerate(M.coords)})
    assert (M.d(f) - grad).is_zero() is True
    assert (gc.d(zero_form(M, f)) - grad).is_zero() is True


@given(st.data())
def test_d_is_a_graded_derivation(data):
    M = draw_chart(data)
    a, b = draw_pair(data, M)
    lhs = gc.d(a ^ b)
    rhs = (gc.d(a) ^ b) + sign(a.degree) * (a ^ gc.d(b))
    assert (lhs - rhs).is_zero() is True


@given(st.data())
def test_wedge_is_graded_commutative_and_associative(data):
    M = draw_chart(data)
    a, b = draw_pair(data, M)
    assert ((a ^ b) - sign(a.degree * b.degree) * (b ^ a)).is_zero() is True
    c = draw_form(data, M, degree=st.integers(0, M.dim - a.degree - b.degree), label="c")
    assert (((a ^ b) ^ c) - (a ^ (b ^ c))).is_zero() is True


# ---------------------------------------------------------------- interior product


@given(st.data())
def test_interior_is_a_graded_derivation(data):
    M = draw_chart(data)
    X = draw_field(data, M)
    a, b = draw_pair(data, M)
    lhs = gc.interior(X, a ^ b)
    rhs = (gc.interior(X, a) ^ b) + sign(a.degree) * (a ^ gc.interior(X, b))
    assert (lhs - rhs).is_zero() is True


@given(st.data())
def test_interior_squared_is_zero(data):
    M = draw_chart(data)
    X = draw_field(data, M)
    a = draw_form(data, M)
    assert gc.interior(X, gc.interior(X, a)).is_zero() is True


@given(st.data())
def test_interior_of_one_form_is_pairing(data):
    M = draw_chart(data)
    X = draw_field(data, M)
    a = draw_form(data, M, degree=1)
    pairing = sp.Add(*[X.components.get(x, 0) * a.components.get((i,), 0) for i, x in enumerate(M.coords)])
    assert (gc.interior(X, a) - zero_form(M, pairing)).is_zero() is True


# ---------------------------------------------------------------- Lie derivative


@given(st.data())
def test_lie_component_formula_equals_cartan(data):
    M = draw_chart(data)
    X = draw_field(data, M)
    a = draw_form(data, M)
    assert (gc.lie(X, a) - gc.lie_cartan(X, a)).is_zero() is True


@given(st.data())
def test_lie_of_function_is_derivative_along_field(data):
    M = draw_chart(data)
    X = draw_field(data, M)
    f = data.draw(mixed(M), label="f")
    by_hand = sp.Add(*[v * sp.diff(f, x) for x, v in X.components.items()])
    assert (zero_form(M, X(f)) - zero_form(M, by_hand)).is_zero() is True
    assert (zero_form(M, gc.lie(X, f)) - zero_form(M, by_hand)).is_zero() is True
    assert (gc.lie(X, zero_form(M, f)) - zero_form(M, by_hand)).is_zero() is True


@given(st.data())
def test_lie_is_a_derivation_of_the_wedge(data):
    M = draw_chart(data)
    X = draw_field(data, M)
    a, b = draw_pair(data, M)
    lhs = gc.lie(X, a ^ b)
    rhs = (gc.lie(X, a) ^ b) + (a ^ gc.lie(X, b))
    assert (lhs - rhs).is_zero() is True


@given(st.data())
def test_lie_commutes_with_d(data):
    M = draw_chart(data)
    X = draw_field(data, M)
    a = draw_form(data, M)
    assert (gc.lie(X, gc.d(a)) - gc.d(gc.lie(X, a))).is_zero() is True


@given(st.data())
def test_commutator_of_lie_derivatives_is_lie_of_bracket(data):
    M = draw_chart(data, max_dim=3)
    X = draw_field(data, M, "X")
    Y = draw_field(data, M, "Y")
    a = draw_form(data, M)
    lhs = gc.lie(X, gc.lie(Y, a)) - gc.lie(Y, gc.lie(X, a))
    assert (lhs - gc.lie(gc.bracket(X, Y), a)).is_zero() is True


@given(st.data())
def test_interior_of_bracket(data):
    # i_[X,Y] = [L_X, i_Y]
    M = draw_chart(data, max_dim=3)
    X = draw_field(data, M, "X")
    Y = draw_field(data, M, "Y")
    a = draw_form(data, M)
    rhs = gc.lie(X, gc.interior(Y, a)) - gc.interior(Y, gc.lie(X, a))
    assert (gc.interior(gc.bracket(X, Y), a) - rhs).is_zero() is True


# ---------------------------------------------------------------- vector fields


@given(st.data())
def test_bracket_is_the_commutator_on_functions(data):
    M = draw_chart(data)
    X = draw_field(data, M, "X")
    Y = draw_field(data, M, "Y")
    f = data.draw(mixed(M), label="f")
    lhs = gc.bracket(X, Y)(f)
    rhs = X(Y(f)) - Y(X(f))
    assert (zero_form(M, lhs) - zero_form(M, rhs)).is_zero() is True
    assert (gc.lie(X, Y) - gc.bracket(X, Y)).is_zero() is True


@given(st.data())
def test_bracket_is_antisymmetric_and_satisfies_jacobi(data):
    M = draw_chart(data, max_dim=3)
    X = draw_field(data, M, "X")
    Y = draw_field(data, M, "Y")
    Z = draw_field(data, M, "Z")
    b = gc.bracket
    assert (b(X, Y) + b(Y, X)).is_zero() is True
    assert (b(X, b(Y, Z)) + b(Y, b(Z, X)) + b(Z, b(X, Y))).is_zero() is True


# ---------------------------------------------------------------- closed forms


@given(st.data())
def test_exact_forms_are_closed_and_primitive_inverts_d(data):
    M = draw_chart(data, max_dim=3)
    b = data.draw(
        gst.forms(M, degree=st.integers(0, M.dim - 1), coefficients=lambda M: gst.coefficients(M, kind=PRIMITIVE_KINDS)),
        label="b",
    )
    a = gc.d(b)
    assert gc.is_closed(a) is True
    if a.is_zero() is not True:
        assert (gc.d(gc.primitive(a)) - a).is_zero() is True
