"""Differential forms on ordinary charts (geomcheck.forms).

Hand-computed conventions: dy ^ dx = -dx ^ dy; d(f dx^I) = sum_j f_j dx^j ^ dx^I;
i_X(dq ^ dp) = X^q dp - X^p dq; w(X, Y) = i_Y i_X w; L_X is checked both by the
component formula (gc.lie) and by Cartan's formula (gc.lie_cartan).
"""

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import (
    ChartMismatchError,
    ExpressionError,
    InvalidArgumentError,
    MixedDegreeError,
    NotClosedError,
    SingularFormError,
    UnknownCoordinateError,
)

M = gc.Chart("x y z")
x, y, z = M.coords
dx, dy, dz = (M.d(c) for c in M.coords)
V = sp.Function("V")(x, y, z)


def same(a, b):
    """Exact comparison through sympy.simplify, independent of geomcheck's zero test."""
    assert a.chart == b.chart, (a.chart, b.chart)
    return all(sp.simplify(c) == 0 for c in (a - b).components.values())


# --------------------------------------------------------------------------- components


def test_differentials_of_coordinates():
    assert dx.components == {(0,): 1}
    assert dy.components == {(1,): 1}
    assert dz.degree == 1
    assert M.d(x * y).components == {(0,): y, (1,): x}


def test_components_are_sorted_with_signs():
    w = dy ^ dx
    assert w.components == {(0, 1): -1}
    assert w.coefficient(x, y) == -1
    assert w.coefficient(y, x) == 1
    assert (dz ^ dx ^ dy).components == {(0, 1, 2): 1}  # cyclic
    assert (dz ^ dy ^ dx).components == {(0, 1, 2): -1}
    f = gc.Form(M, {(z, x): V, (y,): 1, (x, x): 5})
    assert f.components == {(0, 2): -V, (1,): 1}
    assert f.coefficient(x, z) == -V
    assert f.coefficient(z, x) == V
    assert f.coefficient(y) == 1
    assert f.coefficient(x) == 0
    assert f.coefficient(x, x) == 0
    assert gc.Form(M, {(2, 0): 3}) == -3 * (dx ^ dz)


def test_form_constructor_rejects_foreign_keys():
    with pytest.raises(UnknownCoordinateError):
        gc.Form(M, {(sp.Symbol("not_a_coordinate"),): 1})
    with pytest.raises(UnknownCoordinateError):
        gc.Form(M, {(7,): 1})
    with pytest.raises(ChartMismatchError):
        gc.Form(gc.Chart("x xi", degrees=[0, 1]), {})


def test_degree():
    assert gc.Form(M, {(): x}).degree == 0
    assert (dx ^ dy).degree == 2
    assert (x * (dx ^ dy ^ dz)).degree == 3
    mixed = dy + V * (dx ^ dz)
    assert mixed.degrees == {1, 2}
    with pytest.raises(MixedDegreeError):
        mixed.degree
    with pytest.raises(ValueError):
        mixed.degree


def test_zero_components_are_dropped():
    a = x * dy
    assert (a - a).components == {}
    assert (dx ^ dx).components == {}
    assert (0 * dx).components == {}


# --------------------------------------------------------------------------- wedge


def test_wedge_of_one_forms_anticommutes():
    a = V * dx + x * y * dz
    b = sp.sin(z) * dy - dx
    assert a ^ b == -(b ^ a)
    assert (a ^ a).components == {}
    # by hand: (V dx + xy dz) ^ (sin z dy - dx) = V sin z dx^dy + xy sin z dz^dy - xy dz^dx
    expected = gc.Form(M, {(0, 1): V * sp.sin(z), (1, 2): -x * y * sp.sin(z), (0, 2): x * y})
    assert same(a ^ b, expected)


def test_wedge_of_two_forms_commutes_and_one_with_two_forms():
    a = dx ^ dy
    b = z * (dy ^ dz) + (dx ^ dz)
    assert a ^ b == b ^ a
    assert (a ^ b).components == {}  # repeated differentials in every product
    c = x * (dy ^ dz)
    assert (dx ^ c) == (c ^ dx)  # (-1)^{1*2} = 1
    assert (dx ^ c).components == {(0, 1, 2): x}


def test_wedge_is_associative_and_scales():
    a = dx + y * dz
    b = z * dy
    c = dx - dz
    assert (a ^ b) ^ c == a ^ (b ^ c)
    assert (x * a) ^ b == x * (a ^ b) == a ^ (x * b)


def test_form_times_form_is_refused():
    with pytest.raises(ExpressionError, match=r"\^"):
        dx * dy


def test_forms_on_different_charts_do_not_combine():
    N = gc.Chart("q p")
    q, p = N.coords
    with pytest.raises(ChartMismatchError):
        dx + N.d(q)
    with pytest.raises(ChartMismatchError):
        dx ^ N.d(p)


# --------------------------------------------------------------------------- d


def test_d_on_known_forms():
    assert gc.d(x * dy) == dx ^ dy
    assert gc.d(y * dx) == -(dx ^ dy)
    assert gc.d(x * dy - y * dx) == 2 * (dx ^ dy)
    # d(x y z dz) = yz dx^dz + xz dy^dz
    assert same(gc.d(x * y * z * dz), gc.Form(M, {(0, 2): y * z, (1, 2): x * z}))
    # d(V dx ^ dy) = V_z dz ^ dx ^ dy = V_z dx^dy^dz ;  d(V dx ^ dz) = V_y dy^dx^dz = -V_y dx^dy^dz
    assert gc.d(V * (dx ^ dy)).components == {(0, 1, 2): sp.Derivative(V, z)}
    assert gc.d(V * (dx ^ dz)).components == {(0, 1, 2): -sp.Derivative(V, y)}
    # d of a top form and of a constant form
    assert gc.d(V * (dx ^ dy ^ dz)).components == {}
    assert gc.d(3 * (dx ^ dy)).components == {}


def test_d_of_a_function_is_its_gradient():
    assert M.d(V).components == {
        (0,): sp.Derivative(V, x),
        (1,): sp.Derivative(V, y),
        (2,): sp.Derivative(V, z),
    }
    assert gc.d(gc.Form(M, {(): sp.sin(x) * y})) == sp.cos(x) * y * dx + sp.sin(x) * dy


def test_d_d_vanishes_structurally_for_an_undefined_function():
    """Needs canonical mixed partials: V_xy and V_yx must be the same sympy object."""
    assert gc.d(M.d(V)).components == {}
    assert gc.d(gc.d(V * dx)).components == {}


def test_d_d_vanishes_for_generic_forms():
    W = sp.Function("W")(x, y, z)
    a = V * dx + V**2 * dy + x * W * dz + sp.exp(V) * W * dy
    assert gc.d(gc.d(a)).is_zero() is True
    b = W * V * (dx ^ dy) + sp.sin(V) * (dy ^ dz)
    assert gc.d(gc.d(b)).is_zero() is True


def test_d_is_a_graded_derivation():
    a = V * dx + y * dz  # 1-form
    b = x * z * dy  # 1-form
    lhs = gc.d(a ^ b)
    rhs = (gc.d(a) ^ b) - (a ^ gc.d(b))
    assert (lhs - rhs).is_zero() is True
    assert same(lhs, rhs)


# --------------------------------------------------------------------------- interior


def test_interior_by_hand():
    N = gc.Chart("q p")
    q, p = N.coords
    Xq, Xp = sp.symbols("X_q X_p")
    X = gc.VectorField(N, {q: Xq, p: Xp})
    w = N.d(q) ^ N.d(p)
    assert gc.interior(X, w) == Xq * N.d(p) - Xp * N.d(q)
    assert gc.interior(X, N.d(q)).components == {(): Xq}
    # w(X, Y) = i_Y i_X w = X^q Y^p - X^p Y^q
    X1 = gc.VectorField(N, {q: 1, p: 2})
    Y1 = gc.VectorField(N, {q: 3, p: 5})
    assert w(X1, Y1) == 1 * 5 - 2 * 3


def test_interior_on_three_forms():
    X = gc.VectorField(M, {x: 1, y: 2, z: 3})
    vol = V * (dx ^ dy ^ dz)
    # i_X vol = V (X^x dy^dz - X^y dx^dz + X^z dx^dy)
    assert gc.interior(X, vol) == gc.Form(M, {(1, 2): V, (0, 2): -2 * V, (0, 1): 3 * V})
    # i_X i_X = 0
    assert gc.interior(X, gc.interior(X, vol)).components == {}


def test_interior_with_field_of_another_chart_is_refused():
    N = gc.Chart("q p")
    with pytest.raises(ChartMismatchError):
        gc.interior(gc.VectorField(N, {N.coords[0]: 1}), dx)


# --------------------------------------------------------------------------- Lie derivative


def test_lie_on_specific_examples():
    X = gc.VectorField(M, {x: y, y: -x, z: V})
    # L_X(x dy) = X(x) dy + x d(X^y) = y dy - x dx
    assert gc.lie(X, x * dy) == y * dy - x * dx
    assert gc.lie_cartan(X, x * dy) == y * dy - x * dx
    # L_X dz = d(X^z) = dV
    assert gc.lie(X, dz) == M.d(V)
    # L_X(V dx^dz) = X(V) dx^dz + V (d(X^x) ^ dz + dx ^ d(X^z))
    #             = (y V_x - x V_y + 2 V V_z) dx^dz + V dy^dz + V V_y dx^dy
    Vx, Vy, Vz = (sp.Derivative(V, c) for c in (x, y, z))
    expected = gc.Form(M, {(0, 2): y * Vx - x * Vy + 2 * V * Vz, (1, 2): V, (0, 1): V * Vy})
    assert same(gc.lie(X, V * (dx ^ dz)), expected)
    assert same(gc.lie_cartan(X, V * (dx ^ dz)), expected)
    assert (gc.lie(X, V * (dx ^ dz)) - gc.lie_cartan(X, V * (dx ^ dz))).is_zero() is True


def test_lie_and_lie_cartan_agree_with_an_undefined_function_in_the_form():
    W = sp.Function("W")(x, y)
    X = gc.VectorField(M, {x: x * z, y: sp.sin(y), z: W})
    for a in (W * dx + V * dz, W * V * (dx ^ dy) + x * (dy ^ dz), V * (dx ^ dy ^ dz)):
        assert (gc.lie(X, a) - gc.lie_cartan(X, a)).is_zero() is True


def test_lie_of_a_rotation_on_the_area_form():
    # rotations preserve dx^dy; dilations scale it by 2
    rot = gc.VectorField(M, {x: -y, y: x})
    assert gc.lie(rot, dx ^ dy).components == {}
    dil = gc.VectorField(M, {x: x, y: y})
    assert gc.lie(dil, dx ^ dy) == 2 * (dx ^ dy)
    assert gc.lie_cartan(dil, dx ^ dy) == 2 * (dx ^ dy)


def test_lie_of_a_form_is_not_zero_when_it_should_not_be():
    X = gc.VectorField(M, {x: x**2})
    # L_X dx = d(x^2) = 2 x dx
    assert gc.lie(X, dx) == 2 * x * dx
    assert gc.lie(X, dx).is_zero() is False


# --------------------------------------------------------------------------- closed forms, primitives


def test_is_closed():
    assert gc.is_closed(y * dx + x * dy) is True
    assert gc.is_closed(M.d(V)) is True
    assert gc.is_closed(y * dx) is False
    assert gc.is_closed(sp.exp(x) * sp.cos(y) * dx - sp.exp(x) * sp.sin(y) * dy) is True


def test_primitive_of_polynomial_forms():
    theta = gc.primitive(dx ^ dy)
    assert theta == gc.Form(M, {(0,): -y / 2, (1,): x / 2})
    assert gc.d(theta) == dx ^ dy
    a = y * z * dx + x * z * dy + x * y * dz  # = d(xyz)
    f = gc.primitive(a)
    assert f.degree == 0
    assert sp.expand(f.components[()] - x * y * z) == 0
    b = (x**2 + y * z) * (dx ^ dy ^ dz)
    assert same(gc.d(gc.primitive(b)), b)
    c = gc.d(x**2 * y * dz + z**3 * dx)
    pc = gc.primitive(c)
    assert pc.degree == 1
    assert same(gc.d(pc), c)
    assert (gc.d(pc) - c).is_zero() is True


def test_primitive_with_a_centre():
    theta = gc.primitive(dx ^ dy, center={x: 1, y: 2})
    assert same(theta, gc.Form(M, {(0,): -(y - 2) / 2, (1,): (x - 1) / 2}))
    assert gc.primitive(dx ^ dy, center=[1, 2, 0]) == theta
    assert gc.d(theta) == dx ^ dy


@pytest.mark.parametrize(
    "form",
    [
        sp.exp(x + y) * (dx + dy),
        sp.cos(x) * (dx ^ dy),
        sp.exp(x) * sp.cos(y) * dx - sp.exp(x) * sp.sin(y) * dy,
    ],
    ids=["exp", "cos-2form", "harmonic"],
)
def test_primitive_of_transcendental_closed_forms(form):
    theta = gc.primitive(form)
    assert theta.degree == form.degree - 1
    assert (gc.d(theta) - form).is_zero() is True
    assert same(gc.d(theta), form)


def test_primitive_of_exact_one_form_is_the_function_up_to_constant():
    f = gc.primitive(sp.exp(x + y) * (dx + dy))
    assert sp.simplify(f.components[()] - (sp.exp(x + y) - 1)) == 0


def test_primitive_of_a_non_closed_form_shows_d():
    with pytest.raises(NotClosedError) as info:
        gc.primitive(y * dx)
    msg = str(info.value)
    assert "dx^dy" in msg  # d(y dx) = -dx^dy is shown
    assert "dx" in msg and "closed" in msg


P2 = gc.Chart("u v")
u, v = P2.coords
du, dv = P2.d(u), P2.d(v)


@pytest.mark.parametrize("form, centre", [
    ((u * dv - v * du) / (u**2 + v**2), "u = 0, v = 0"),    # d(angle): 0/0 at the origin
    ((du ^ dv) / (u**2 + v**2), "u = 0, v = 0"),            # infinite at the origin
    (du / u, "u = 0"),
], ids=["angle", "area-over-r2", "du-over-u"])
def test_primitive_refuses_a_form_singular_at_the_centre(form, centre):
    with pytest.raises(SingularFormError) as info:
        gc.primitive(form)
    msg = str(info.value)
    assert "singular at the centre " + centre in msg
    assert str(form) in msg


def test_primitive_refuses_a_form_singular_on_the_segments_from_the_centre():
    # centred at (1, 0) the form is finite there, but the segment to (-1, 0) crosses the origin
    with pytest.raises(SingularFormError) as info:
        gc.primitive((du ^ dv) / (u**2 + v**2), center={u: 1})
    msg = str(info.value)
    assert "u = 0, v = 0" in msg and "segment" in msg and "u = 1, v = 0" in msg
    with pytest.raises(SingularFormError, match="u = 2"):
        gc.primitive((du ^ dv) / (u - 2) ** 2)


def test_primitive_on_a_domain_that_avoids_the_singularity():
    H = gc.Chart("u v", domain={"u": (0, sp.oo)})
    hu, hv = H.coords
    # on u > 0, du/u = d(log u): centred at u = 1 (the default, the origin being outside)
    f = gc.primitive(H.d(hu) / hu)
    assert sp.simplify(f.components[()] - sp.log(hu)) == 0
    # the angle form is exact on the half plane: its primitive from (1, 0) is atan(v/u)
    angle = (hu * H.d(hv) - hv * H.d(hu)) / (hu**2 + hv**2)
    theta = gc.primitive(angle, center={hu: 1})
    assert not theta.components[()].has(sp.zoo, sp.nan, sp.oo)
    # (sympy's closed form of the radial integral has removable singularities on u = 1 and v = 0)
    for point in ({hu: 2, hv: 3}, {hu: sp.Rational(1, 3), hv: -5}, {hu: 7, hv: sp.Rational(1, 2)}):
        value = sp.N(theta.components[()].xreplace(point), 30)
        assert abs(sp.re(value) - sp.atan(sp.Rational(point[hv]) / point[hu])) < 1e-25
        assert abs(sp.im(value)) < 1e-25


def test_primitive_centre_must_lie_in_the_domain():
    H = gc.Chart("u v", domain={"u": (0, sp.oo)})
    hu, hv = H.coords
    with pytest.raises(InvalidArgumentError) as info:
        gc.primitive(H.d(hu) ^ H.d(hv), center={hu: -1})
    assert "outside the domain" in str(info.value) and "u = -1" in str(info.value)
    with pytest.raises(InvalidArgumentError):
        gc.primitive(H.d(hu) ^ H.d(hv), center=[0, 0])     # the end 0 is not in (0, oo)
    theta = gc.primitive(H.d(hu) ^ H.d(hv), center=[2, -7])
    assert same(theta, gc.Form(H, {(0,): -(hv + 7) / 2, (1,): (hu - 2) / 2}))
    with pytest.raises(ExpressionError, match="real number"):
        gc.primitive(du ^ dv, center={u: sp.Symbol("a")})
    with pytest.raises(ExpressionError, match="real number"):
        gc.primitive(du ^ dv, center={u: sp.I})
    with pytest.raises(UnknownCoordinateError, match="w"):
        gc.primitive(du ^ dv, center={sp.Symbol("w"): 1})


def test_primitive_of_smooth_forms_with_undefined_functions_is_not_refused():
    W = sp.Function("W")
    f = gc.primitive(W(u) * du)        # W is smooth: nothing to refuse (the radial integral stays unevaluated)
    assert f.degree == 0
    with pytest.raises(SingularFormError, match="u = 0"):
        gc.primitive(W(u) / u * du)    # ... but 1/u is not


# --------------------------------------------------------------------------- forms as functions on T[1]M


@pytest.mark.parametrize(
    "form",
    [
        gc.Form(M, {(): V}),
        V * dx + x * y * dz,
        (V * dx + dz) ^ (sp.sin(z) * dy - dx),
        V * (dx ^ dz),
        x * (dx ^ dy ^ dz),
    ],
    ids=["function", "one-form", "wedge", "two-form", "top"],
)
def test_de_rham_field_agrees_with_d(form):
    Q = gc.de_rham_vector_field(M)
    assert Q.chart == M.shifted_tangent()
    lhs = Q(form.as_superfunction())
    rhs = gc.d(form).as_superfunction()
    assert lhs.chart == rhs.chart == M.shifted_tangent()
    assert (lhs - rhs).is_zero() is True
    assert all(sp.simplify(v) == 0 for v in (lhs - rhs).terms.values())


def test_as_superfunction_round_trip():
    a = V * dx + (dy ^ dz)
    f = a.as_superfunction()
    T = M.shifted_tangent()
    X, Y, Z, DX, DY, DZ = T.coords
    assert f == T.function(V * DX + DY * DZ)
    assert gc.Form.from_superfunction(M, f) == a
