"""Hamiltonian, contact and Reeb vector fields (geomcheck.hamiltonian).

Conventions (API.md): i_X w = dH, so q' = H_p, p' = -H_q for w = dq ^ dp;
for a contact form eta: eta(X) = -H and L_X eta = -R(H) eta (R the Reeb field), so for
eta = dz - p dx:  x' = H_p, p' = -H_x - p H_z, z' = p H_p - H.
"""

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import (
    DegenerateFormError,
    GeomcheckError,
    MixedDegreeError,
    NotContactError,
)

D = sp.Derivative


def components_equal(X, expected):
    """X's components equal the expected dict (coordinate -> expr) after simplification."""
    comps = X.components
    for c in X.chart.coords:
        diff = comps.get(c, 0) - expected.get(c, 0)
        assert sp.simplify(diff) == 0, (c, comps.get(c, 0), expected.get(c, 0))
    return True


# --------------------------------------------------------------------------- symplectic


def test_canonical_form_gives_hamiltons_equations():
    M = gc.Chart("q p")
    q, p = M.coords
    H = sp.Function("H")(q, p)
    X = gc.hamiltonian_vector_field(H, M.d(q) ^ M.d(p))
    assert X.components == {q: D(H, p), p: -D(H, q)}
    X = gc.hamiltonian_vector_field(p**2 / 2 - sp.cos(q), M.d(q) ^ M.d(p))
    assert X == gc.VectorField(M, {q: p, p: -sp.sin(q)})


def test_chart_order_does_not_change_the_sign_convention():
    M = gc.Chart("p q")  # p first: w = dq^dp is stored as -dp^dq
    p, q = M.coords
    H = sp.Function("H")(q, p)
    X = gc.hamiltonian_vector_field(H, M.d(q) ^ M.d(p))
    assert X.components == {q: D(H, p), p: -D(H, q)}


def test_canonical_form_in_four_dimensions():
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    w = (M.d(q1) ^ M.d(p1)) + (M.d(q2) ^ M.d(p2))
    H = (p1**2 + p2**2) / 2 + q1**2 * q2 - q2**3 / 3
    X = gc.hamiltonian_vector_field(H, w)
    assert components_equal(X, {q1: p1, q2: p2, p1: -2 * q1 * q2, p2: -(q1**2 - q2**2)})
    assert (gc.interior(X, w) - M.d(H)).components == {}  # polynomial: cancels structurally


def test_non_canonical_constant_forms():
    M = gc.Chart("q p")
    q, p = M.coords
    # w = 3 dq^dp:  3 (X^q dp - X^p dq) = dH
    X = gc.hamiltonian_vector_field(q * p, 3 * (M.d(q) ^ M.d(p)))
    assert X == gc.VectorField(M, {q: q / 3, p: -p / 3})
    # w = dp^dq (the opposite orientation) flips the signs
    X = gc.hamiltonian_vector_field(q * p, M.d(p) ^ M.d(q))
    assert X == gc.VectorField(M, {q: -q, p: p})


def test_non_canonical_constant_form_in_four_dimensions():
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    # w = dq1^dp2 + dq2^dp1 + 2 dq1^dq2 + dp1^dp2, constant and non-degenerate
    w = (M.d(q1) ^ M.d(p2)) + (M.d(q2) ^ M.d(p1)) + 2 * (M.d(q1) ^ M.d(q2)) + (M.d(p1) ^ M.d(p2))
    H = sp.Function("H")(q1, q2, p1, p2)
    X = gc.hamiltonian_vector_field(H, w)
    diff = gc.interior(X, w) - M.d(H)
    assert diff.is_zero() is True
    assert all(sp.simplify(c) == 0 for c in diff.components.values())


def test_magnetic_term():
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    B = sp.Symbol("B")
    w = (M.d(q1) ^ M.d(p1)) + (M.d(q2) ^ M.d(p2)) + B * (M.d(q1) ^ M.d(q2))
    K = (p1**2 + p2**2) / 2
    X = gc.hamiltonian_vector_field(K, w)
    # -X^p1 - B X^q2 = 0 ; -X^p2 + B X^q1 = 0 ; X^q = p
    assert components_equal(X, {q1: p1, q2: p2, p1: -B * p2, p2: B * p1})
    assert (gc.interior(X, w) - M.d(K)).is_zero() is True


def test_non_constant_symplectic_form():
    M = gc.Chart("q p")
    q, p = M.coords
    H = sp.Function("H")(q, p)
    w = sp.exp(q) * (M.d(q) ^ M.d(p))
    X = gc.hamiltonian_vector_field(H, w)
    assert components_equal(X, {q: sp.exp(-q) * D(H, p), p: -sp.exp(-q) * D(H, q)})
    assert (gc.interior(X, w) - M.d(H)).is_zero() is True
    # the flow preserves w (w closed, i_X w exact)
    assert gc.lie(X, w).is_zero() is True


def test_non_constant_magnetic_field():
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    B = sp.Function("B")(q1, q2)
    w = (M.d(q1) ^ M.d(p1)) + (M.d(q2) ^ M.d(p2)) + B * (M.d(q1) ^ M.d(q2))
    H = (p1**2 + p2**2) / 2 + sp.Function("U")(q1, q2)
    X = gc.hamiltonian_vector_field(H, w)
    assert (gc.interior(X, w) - M.d(H)).is_zero() is True
    U = sp.Function("U")(q1, q2)
    assert components_equal(X, {q1: p1, q2: p2, p1: -B * p2 - D(U, q1), p2: B * p1 - D(U, q2)})
    assert gc.is_closed(w) is True
    assert gc.lie(X, w).is_zero() is True


def test_degenerate_forms_are_refused():
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    with pytest.raises(DegenerateFormError):
        gc.hamiltonian_vector_field(p1, M.d(q1) ^ M.d(q2))
    # rank 2 in four dimensions
    with pytest.raises(DegenerateFormError):
        gc.hamiltonian_vector_field(p1, (M.d(q1) + M.d(q2)) ^ (M.d(p1) + M.d(p2)))
    # any 2-form in odd dimension
    N = gc.Chart("q p s")
    q, p, s = N.coords
    with pytest.raises(DegenerateFormError):
        gc.hamiltonian_vector_field(p, N.d(q) ^ N.d(p))


def test_a_disguised_zero_coefficient_is_not_taken_as_a_pivot():
    M = gc.Chart("q p")
    q, p = M.coords
    w = (sp.sin(q) ** 2 + sp.cos(q) ** 2 - 1) * (M.d(q) ^ M.d(p))
    with pytest.raises(DegenerateFormError):
        gc.hamiltonian_vector_field(p, w)


def test_wrong_degree_is_refused():
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    for bad in (M.d(q1), M.d(q1) ^ M.d(q2) ^ M.d(p1)):
        with pytest.raises(MixedDegreeError, match="2-form"):
            gc.hamiltonian_vector_field(p1, bad)
    with pytest.raises(MixedDegreeError, match="mixed degree"):
        gc.hamiltonian_vector_field(p1, M.d(q1) + (M.d(q1) ^ M.d(p1)))
    with pytest.raises(GeomcheckError):
        gc.hamiltonian_vector_field(p1, q1)  # not a form at all


# --------------------------------------------------------------------------- contact


def test_contact_field_standard_form_n1():
    C = gc.Chart("x p z")
    x, p, z = C.coords
    eta = C.d(z) - p * C.d(x)
    H = sp.Function("H")(x, p, z)
    X = gc.contact_vector_field(H, eta)
    assert components_equal(
        X, {x: D(H, p), p: -D(H, x) - p * D(H, z), z: p * D(H, p) - H}
    )
    # a concrete damped oscillator: H = p^2/2 + x^2/2 + gamma z
    g = sp.Symbol("gamma")
    X = gc.contact_vector_field(p**2 / 2 + x**2 / 2 + g * z, eta)
    assert components_equal(X, {x: p, p: -x - g * p, z: p**2 / 2 - x**2 / 2 - g * z})


def test_contact_field_standard_form_n2():
    C = gc.Chart("x1 x2 p1 p2 z")
    x1, x2, p1, p2, z = C.coords
    eta = C.d(z) - p1 * C.d(x1) - p2 * C.d(x2)
    H = sp.Function("H")(x1, x2, p1, p2, z)
    X = gc.contact_vector_field(H, eta)
    assert components_equal(
        X,
        {
            x1: D(H, p1),
            x2: D(H, p2),
            p1: -D(H, x1) - p1 * D(H, z),
            p2: -D(H, x2) - p2 * D(H, z),
            z: p1 * D(H, p1) + p2 * D(H, p2) - H,
        },
    )


def test_contact_field_chart_order_z_first():
    C = gc.Chart("z p x")
    z, p, x = C.coords
    eta = C.d(z) - p * C.d(x)
    H = sp.Function("H")(x, p, z)
    X = gc.contact_vector_field(H, eta)
    assert components_equal(X, {x: D(H, p), p: -D(H, x) - p * D(H, z), z: p * D(H, p) - H})


def test_contact_field_of_a_non_standard_form():
    """eta = dz + x dy: R = d_z; by hand X = (H_y - x H_z) d_x - H_x d_y + (x H_x - H) d_z."""
    C = gc.Chart("x y z")
    x, y, z = C.coords
    eta = C.d(z) + x * C.d(y)
    H = sp.Function("H")(x, y, z)
    R = gc.reeb_vector_field(eta)
    assert R == gc.VectorField(C, {z: 1})
    X = gc.contact_vector_field(H, eta)
    assert components_equal(X, {x: D(H, y) - x * D(H, z), y: -D(H, x), z: x * D(H, x) - H})
    # the defining properties
    assert sp.simplify(eta(X) + H) == 0
    assert (gc.lie(X, eta) + R(H) * eta).is_zero() is True
    assert (gc.lie_cartan(X, eta) + R(H) * eta).is_zero() is True


def test_contact_field_of_a_rotating_form():
    """eta = cos z dx + sin z dy: R = cos z d_x + sin z d_y (not a coordinate field)."""
    C = gc.Chart("x y z")
    x, y, z = C.coords
    eta = sp.cos(z) * C.d(x) + sp.sin(z) * C.d(y)
    R = gc.reeb_vector_field(eta)
    assert components_equal(R, {x: sp.cos(z), y: sp.sin(z)})
    H = sp.Function("H")(x, y, z)
    X = gc.contact_vector_field(H, eta)
    assert sp.simplify(eta(X) + H) == 0
    residual = gc.lie(X, eta) + R(H) * eta
    assert residual.is_zero() is True
    assert all(sp.simplify(c) == 0 for c in residual.components.values())


def test_contact_field_of_a_conformally_rescaled_form():
    C = gc.Chart("x p z")
    x, p, z = C.coords
    eta = sp.exp(x) * (C.d(z) - p * C.d(x))
    H = p**2 / 2 + z
    X = gc.contact_vector_field(H, eta)
    R = gc.reeb_vector_field(eta)
    assert sp.simplify(eta(R) - 1) == 0
    assert gc.interior(R, gc.d(eta)).is_zero() is True
    assert sp.simplify(eta(X) + H) == 0
    assert (gc.lie(X, eta) + R(H) * eta).is_zero() is True


def test_reeb_field_of_the_standard_form():
    C = gc.Chart("x1 x2 p1 p2 z")
    x1, x2, p1, p2, z = C.coords
    eta = C.d(z) - p1 * C.d(x1) - p2 * C.d(x2)
    assert gc.reeb_vector_field(eta) == gc.VectorField(C, {z: 1})


def test_non_contact_forms_are_refused():
    C = gc.Chart("x p z")
    x, p, z = C.coords
    with pytest.raises(NotContactError):
        gc.contact_vector_field(p**2 / 2, C.d(z))
    with pytest.raises(NotContactError):
        gc.reeb_vector_field(C.d(z))
    # x dp - p dx + dz ... is contact; but p dx alone is not:  p dx ^ dp ^ dx = 0
    with pytest.raises(NotContactError):
        gc.contact_vector_field(p, p * C.d(x))
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    with pytest.raises(NotContactError):
        gc.contact_vector_field(q1, M.d(q1) - p1 * M.d(q2))
    with pytest.raises(MixedDegreeError):
        gc.contact_vector_field(p, C.d(x) ^ C.d(z))
