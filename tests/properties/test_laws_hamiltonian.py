"""Hamiltonian and contact vector fields of random Hamiltonians.

Conventions (API.md): i_X w = dH, so for w = sum dq_i ^ dp_i: q' = H_p, p' = -H_q;
for eta = dz - sum p_i dx_i: eta(X) = -H and L_X eta = -R(H) eta with R = d/dz.
"""

import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import geomcheck as gc
from geomcheck import strategies as gst

KINDS = st.sampled_from(["polynomial", "transcendental", "generic"])


def canonical_chart(n):
    return gc.Chart([f"q{i}" for i in range(1, n + 1)] + [f"p{i}" for i in range(1, n + 1)])


def canonical_form(M, n):
    q, p = M.coords[:n], M.coords[n:]
    w = gc.Form(M, {})
    for qi, pi in zip(q, p):
        w = w + (M.d(qi) ^ M.d(pi))
    return w


def contact_chart(n):
    return gc.Chart([f"x{i}" for i in range(1, n + 1)] + [f"p{i}" for i in range(1, n + 1)] + ["z"])


def contact_form(M, n):
    x, p, z = M.coords[:n], M.coords[n : 2 * n], M.coords[2 * n]
    eta = M.d(z)
    for xi, pi in zip(x, p):
        eta = eta - pi * M.d(xi)
    return eta


def function_form(M, f):
    return gc.Form(M, {(): f})


@given(st.data())
def test_hamiltonian_field_of_canonical_form(data):
    n = data.draw(st.integers(1, 2), label="n")
    M = canonical_chart(n)
    w = canonical_form(M, n)
    H = data.draw(gst.coefficients(M, kind=KINDS), label="H")
    X = gc.hamiltonian_vector_field(H, w)
    assert (gc.interior(X, w) - M.d(H)).is_zero() is True
    q, p = M.coords[:n], M.coords[n:]
    expected = gc.VectorField(
        M, {**{qi: sp.diff(H, pi) for qi, pi in zip(q, p)}, **{pi: -sp.diff(H, qi) for qi, pi in zip(q, p)}}
    )
    assert (X - expected).is_zero() is True
    # energy is conserved and the flow is symplectic
    assert function_form(M, X(H)).is_zero() is True
    assert gc.lie(X, w).is_zero() is True


@given(st.data())
def test_hamiltonian_field_of_constant_nondegenerate_form(data):
    n = data.draw(st.integers(1, 2), label="n")
    M = data.draw(gst.charts(2 * n, 2 * n), label="chart")
    w = data.draw(gst.constant_symplectic_forms(M), label="w")
    H = data.draw(gst.coefficients(M, kind=KINDS), label="H")
    X = gc.hamiltonian_vector_field(H, w)
    assert (gc.interior(X, w) - M.d(H)).is_zero() is True
    assert function_form(M, X(H)).is_zero() is True


@given(st.data())
def test_contact_vector_field(data):
    n = data.draw(st.integers(1, 2), label="n")
    M = contact_chart(n)
    eta = contact_form(M, n)
    H = data.draw(gst.coefficients(M, kind=KINDS), label="H")
    X = gc.contact_vector_field(H, eta)
    z = M.coords[2 * n]
    RH = sp.diff(H, z)  # the Reeb field of dz - p dx is d/dz
    assert (gc.interior(X, eta) + H).is_zero() is True
    assert (gc.lie(X, eta) + RH * eta).is_zero() is True
    assert (gc.lie_cartan(X, eta) + RH * eta).is_zero() is True
    x, p = M.coords[:n], M.coords[n : 2 * n]
    comps = {z: sp.Add(*[pi * sp.diff(H, pi) for pi in p]) - H}
    for xi, pi in zip(x, p):
        comps[xi] = sp.diff(H, pi)
        comps[pi] = -sp.diff(H, xi) - pi * sp.diff(H, z)
    assert (X - gc.VectorField(M, comps)).is_zero() is True
