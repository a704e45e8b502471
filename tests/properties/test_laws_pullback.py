"""Laws of pullbacks by explicit maps: phi^* commutes with d and with the wedge
product, and (psi o phi)^* = phi^* psi^*.

Maps are polynomial (degree <= 2) between charts of dimension 1..3 with disjoint
coordinate names; forms on the target carry polynomial, transcendental or generic
coefficients, so a pullback also exercises derivatives of undefined functions at
composite arguments.
"""

import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import geomcheck as gc
from geomcheck import strategies as gst

KINDS = st.sampled_from(["polynomial", "transcendental", "generic"])


def mixed(chart):
    return gst.coefficients(chart, kind=KINDS)


def sign(k):
    return -1 if k % 2 else 1


def draw_charts(data, *prefixes, max_dim=3):
    return [data.draw(gst.charts(1, max_dim, prefix=p), label=f"chart {p}") for p in prefixes]


def draw_map(data, M, N, label="phi"):
    """A polynomial map M -> N and its component expressions."""
    exprs = data.draw(
        st.lists(gst.coefficients(M), min_size=N.dim, max_size=N.dim), label=f"{label} components"
    )
    return gc.Map(M, N, exprs), exprs


@given(st.data())
def test_pullback_of_function_is_composition(data):
    M, N = draw_charts(data, "x", "y")
    phi, exprs = draw_map(data, M, N)
    f = data.draw(mixed(N), label="f")
    composed = f.subs(dict(zip(N.coords, exprs)), simultaneous=True)
    lhs = gc.pullback(gc.Form(N, {(): f}), phi)
    assert (lhs - gc.Form(M, {(): composed})).is_zero() is True


@given(st.data())
def test_pullback_commutes_with_d(data):
    M, N = draw_charts(data, "x", "y")
    phi = data.draw(gst.maps(M, N), label="phi")
    a = data.draw(gst.forms(N, coefficients=mixed), label="a")
    lhs = gc.pullback(gc.d(a), phi)
    rhs = gc.d(gc.pullback(a, phi))
    assert (lhs - rhs).is_zero() is True


@given(st.data())
def test_pullback_commutes_with_wedge(data):
    M, N = draw_charts(data, "x", "y")
    phi = data.draw(gst.maps(M, N), label="phi")
    a = data.draw(gst.forms(N, coefficients=mixed), label="a")
    b = data.draw(gst.forms(N, degree=st.integers(0, N.dim - a.degree), coefficients=mixed), label="b")
    lhs = gc.pullback(a ^ b, phi)
    rhs = gc.pullback(a, phi) ^ gc.pullback(b, phi)
    assert (lhs - rhs).is_zero() is True


@given(st.data())
def test_pullback_is_contravariant(data):
    M, N, P = draw_charts(data, "x", "y", "z")
    phi = data.draw(gst.maps(M, N), label="phi")
    psi = data.draw(gst.maps(N, P), label="psi")
    a = data.draw(gst.forms(P, coefficients=mixed), label="a")
    lhs = gc.pullback(a, gc.compose(psi, phi))
    rhs = gc.pullback(gc.pullback(a, psi), phi)
    assert (lhs - rhs).is_zero() is True


@given(st.data())
def test_pullback_by_identity_and_of_top_forms(data):
    (M,) = draw_charts(data, "x")
    a = data.draw(gst.forms(M, coefficients=mixed), label="a")
    ident = gc.Map(M, M, list(M.coords))
    assert (gc.pullback(a, ident) - a).is_zero() is True
    # a top form pulls back by the Jacobian determinant
    phi, exprs = draw_map(data, M, M)
    f = data.draw(mixed(M), label="f")
    jac = sp.Matrix([[sp.diff(e, x) for x in M.coords] for e in exprs]).det()
    top = gc.Form(M, {tuple(range(M.dim)): f})
    expected = gc.Form(M, {tuple(range(M.dim)): f.subs(dict(zip(M.coords, exprs)), simultaneous=True) * jac})
    assert (gc.pullback(top, phi) - expected).is_zero() is True

