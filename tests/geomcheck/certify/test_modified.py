"""Modified vector fields and modified Hamiltonians."""

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import InvalidArgumentError, NotClosedError

h = sp.Symbol("h")


@pytest.fixture
def M():
    return gc.Chart("q p")


def verlet(M, dV):
    q, p = M.coords
    ph = p - h / 2 * dV
    Q = q + h * ph
    return gc.Map(M, M, [Q, ph - h / 2 * gc.substitute(dV, {q: Q})])


def test_oscillator_verlet_matches_the_exact_modified_matrix(M):
    # Verlet's matrix A equals exp(h B) with B12 = omega / sqrt(1 - h^2/4), omega = arccos(1 - h^2/2) / h
    q, p = M.coords
    F = gc.modified_vector_field(verlet(M, q), h, 5)
    omega = sp.acos(1 - h**2 / 2) / h
    b12 = sp.series(omega / sp.sqrt(1 - h**2 / 4), h, 0, 5).removeO()
    b21 = sp.series(-omega * sp.sqrt(1 - h**2 / 4), h, 0, 5).removeO()
    for k, Fk in enumerate(F, start=1):
        assert sp.expand(Fk(q) - b12.coeff(h, k - 1) * p) == 0
        assert sp.expand(Fk(p) - b21.coeff(h, k - 1) * q) == 0


def test_symmetric_maps_have_only_odd_powers_and_euler_has_minus_half_f_prime_f(M):
    q, p = M.coords
    F = gc.modified_vector_field(verlet(M, q**3), h, 4)
    assert F[1].is_zero() is True and F[3].is_zero() is True
    euler = gc.Map(M, M, [q + h * p, p - h * sp.sin(q)])
    F2 = gc.modified_vector_field(euler, h, 2)[1]
    f = gc.VectorField(M, {q: p, p: -sp.sin(q)})
    # F_2 = -1/2 f' f, i.e. component i: -1/2 f(f^i)
    assert sp.simplify(F2(q) + f(p) / 2) == 0
    assert sp.simplify(F2(p) + f(-sp.sin(q)) / 2) == 0


def test_modified_hamiltonian_of_verlet_is_conserved_to_next_order(M):
    q, p = M.coords
    Ht, cert = gc.modified_hamiltonian(verlet(M, q**3), M.d(q) ^ M.d(p), h, 5)
    assert cert.holds is True
    assert sp.expand(Ht.coeff(h, 0) - (p**2 / 2 + q**4 / 4)) == 0
    assert sp.expand(Ht.coeff(h, 1)) == 0
    # the truncated H~ is conserved only to the order it was built for
    H3 = sp.expand(Ht).subs(h**4, 0)
    c = gc.certify_conserves(verlet(M, q**3), H3)
    assert c.holds is False


def test_a_non_symplectic_map_has_no_modified_hamiltonian(M):
    q, p = M.coords
    with pytest.raises(NotClosedError, match="not symplectic"):
        gc.modified_hamiltonian(gc.Map(M, M, [q + h * p, p - h * q**3]), M.d(q) ^ M.d(p), h, 3)


def test_bad_input(M):
    q, p = M.coords
    with pytest.raises(InvalidArgumentError, match="identity"):
        gc.modified_vector_field(gc.Map(M, M, [p, q]), h, 2)
    with pytest.raises(InvalidArgumentError):
        gc.modified_vector_field(gc.Map(M, M, [q, p]), h, 0)
