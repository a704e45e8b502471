"""geomcheck.testing: assertions pass on certified properties and fail informatively otherwise."""

import pytest
import sympy as sp
from hypothesis import given

import geomcheck as gc
from geomcheck import strategies as gst
from geomcheck.testing import assert_conserves, assert_contact, assert_order, assert_preserves, assert_symplectic

h = sp.Symbol("h")
M = gc.Chart("q p")
q, p = M.coords
W = M.d(q) ^ M.d(p)


@given(V=gst.coefficients(gc.Chart("q"), kind="transcendental"))
def test_users_verlet_is_symplectic_for_drawn_potentials(V):
    dV = sp.diff(V, q)
    ph = p - h / 2 * dV
    Q = q + h * ph
    cert = assert_symplectic(gc.Map(M, M, [Q, ph - h / 2 * gc.substitute(dV, {q: Q})]), W)
    assert cert.holds is True


def test_failures_show_the_counterexample():
    with pytest.raises(AssertionError, match="not symplectic.*counterexample"):
        assert_symplectic(gc.Map(M, M, [q + h * p, p - h * q]), W)
    with pytest.raises(AssertionError, match="not of order 2"):
        assert_order(gc.Map(M, M, [q + h * p, p - h * q]), gc.VectorField(M, {q: p, p: -q}), h, 2)
    with pytest.raises(AssertionError, match="not conservative"):
        assert_conserves(gc.Map(M, M, [q + h * p, p - h * q]), (q**2 + p**2) / 2)


def test_passing_assertions_return_certificates():
    assert assert_order(gc.Map(M, M, [q + h * p, p - h * q]), gc.VectorField(M, {q: p, p: -q}), h, 1).holds is True
    assert assert_preserves(gc.Map(M, M, [p, -q]), W).holds is True
    assert assert_conserves(gc.Map(M, M, [p, -q]), q**2 + p**2).holds is True
    C = gc.Chart("x y z")
    x, y, z = C.coords
    lam = sp.Symbol("lambda", positive=True)        # lambda = 0 would collapse the contact form
    assert assert_contact(gc.Map(C, C, [x, lam * y, lam * z]), C.d(z) - y * C.d(x)).factor == lam


def test_undecided_is_a_failure(monkeypatch):
    from geomcheck import testing
    from geomcheck.certify.certificate import Certificate

    monkeypatch.setattr(testing, "certify_symplectic", lambda phi, w: Certificate("c", None, "budget ran out"))
    with pytest.raises(AssertionError, match="could not decide"):
        testing.assert_symplectic(None, None)
