"""Canonical forms, Poisson brackets, symplectic and Hamiltonian vector fields."""

import pytest
import sympy

import geomcheck as gc
from geomcheck import errors
from geomcheck.latex import compile_pdf, document
from geomcheck.structures import (
    canonical_symplectic_form,
    certify_symplectic_vector_field,
    is_hamiltonian,
    local_hamiltonian,
    poisson_bracket,
)


def blocks(n):
    M = gc.Chart([f"q{i}" for i in range(1, n + 1)] + [f"p{i}" for i in range(1, n + 1)])
    return M, M.coords[:n], M.coords[n:]


# --------------------------------------------------------------------------- canonical form


@pytest.mark.parametrize("n", [1, 2, 5])
def test_canonical_form_is_sum_dq_dp_and_closed_nondegenerate(n):
    M, q, p = blocks(n)
    w = canonical_symplectic_form(q, p, M)
    assert w.components == {(i, n + i): 1 for i in range(n)}
    assert gc.is_closed(w)
    H = sympy.Function("H")(*q, *p)
    X = gc.hamiltonian_vector_field(H, w)      # non-degenerate: the solve succeeds
    assert X.component(q[0]) == H.diff(p[0]) and X.component(p[0]) == -H.diff(q[0])


def test_canonical_form_builds_its_chart_when_none_is_given():
    q1, q2, p1, p2 = sympy.symbols("q1 q2 p1 p2")
    w = canonical_symplectic_form([q1, q2], [p1, p2])
    assert w.chart.coords == (q1, q2, p1, p2)


def test_canonical_form_rejects_mismatched_blocks():
    M, q, p = blocks(2)
    with pytest.raises(errors.SubsystemShapeError, match="same length"):
        canonical_symplectic_form(q, p[:1], M)


def test_canonical_form_rejects_coordinates_outside_the_chart():
    M, q, p = blocks(1)
    with pytest.raises(errors.UnknownCoordinateError):
        canonical_symplectic_form([sympy.Symbol("z9")], p, M)


# --------------------------------------------------------------------------- Poisson bracket


def test_poisson_bracket_canonical_relations():
    M, q, p = blocks(2)
    w = canonical_symplectic_form(q, p, M)
    assert poisson_bracket(q[0], p[0], w) == 1
    assert poisson_bracket(p[0], q[0], w) == -1
    assert poisson_bracket(q[0], p[1], w) == 0
    assert poisson_bracket(q[0], q[1], w) == 0


def test_poisson_bracket_with_H_is_the_time_derivative_along_X_H():
    M, q, p = blocks(2)
    w = canonical_symplectic_form(q, p, M)
    H = sympy.Function("H")(*q, *p)
    F = sympy.Function("F")(*q, *p)
    XH = gc.hamiltonian_vector_field(H, w)
    assert gc.zero.decide_zero(poisson_bracket(F, H, w) - XH(F)).is_zero is True
    # the explicit canonical formula {F, H} = F_q H_p - F_p H_q
    explicit = sum(F.diff(qi) * H.diff(pi) - F.diff(pi) * H.diff(qi) for qi, pi in zip(q, p))
    assert gc.zero.decide_zero(poisson_bracket(F, H, q=q, p=p) - explicit).is_zero is True


def test_poisson_bracket_jacobi_identity_generic():
    M, q, p = blocks(1)
    w = canonical_symplectic_form(q, p, M)
    f, g, h = (sympy.Function(n)(*q, *p) for n in "fgh")
    pb = lambda a, b: poisson_bracket(a, b, w)  # noqa: E731
    jacobi = pb(f, pb(g, h)) + pb(g, pb(h, f)) + pb(h, pb(f, g))
    assert gc.zero.decide_zero(jacobi).is_zero is True


def test_poisson_bracket_of_a_noncanonical_form():
    # w = dq ^ dp / q  (Darboux-equivalent away from q = 0): {q, p} = q
    M = gc.Chart("q p")
    q, p = M.coords
    w = (M.d(q) ^ M.d(p)) * (1 / q)
    assert gc.zero.decide_zero(poisson_bracket(q, p, w) - q).is_zero is True


def test_poisson_bracket_needs_a_form_or_blocks():
    q, p = sympy.symbols("q p")
    with pytest.raises(errors.ExpressionError, match="2-form"):
        poisson_bracket(q, p)


# --------------------------------------------------------------------------- symplectic fields


def test_hamiltonian_field_of_generic_H_is_symplectic():
    M, q, p = blocks(3)
    w = canonical_symplectic_form(q, p, M)
    X = gc.hamiltonian_vector_field(sympy.Function("H")(*q, *p), w)
    c = certify_symplectic_vector_field(X, w)
    assert c.holds is True
    assert c.residual.is_zero()


def test_damped_field_is_not_symplectic_with_counterexample():
    M = gc.Chart("q p")
    q, p = M.coords
    gamma = sympy.Symbol("gamma")
    V = sympy.Function("V")(q)
    X = gc.VectorField(M, {q: p, p: -V.diff(q) - gamma * p})
    c = certify_symplectic_vector_field(X, M.d(q) ^ M.d(p))
    assert c.holds is False
    assert c.stage == "counterexample"
    assert c.counterexample["component"] == (q, p)
    assert c.residual.coefficient(q, p) == -gamma


def test_certify_symplectic_vector_field_rejects_a_one_form():
    M = gc.Chart("q p")
    q, p = M.coords
    with pytest.raises(errors.MixedDegreeError):
        certify_symplectic_vector_field(gc.VectorField(M, {q: p}), M.d(q))


# --------------------------------------------------------------------------- Hamiltonians


@pytest.mark.parametrize("H", [
    lambda q, p: p**2 / 2 + q**4 / 4 - q**2,
    lambda q, p: p**2 / 2 - sympy.cos(q),
    lambda q, p: sympy.exp(q) * p,
])
def test_local_hamiltonian_recovers_concrete_hamiltonians(H):
    M = gc.Chart("q p")
    q, p = M.coords
    w = M.d(q) ^ M.d(p)
    H0 = H(q, p)
    X = gc.hamiltonian_vector_field(H0, w)
    found = local_hamiltonian(X, w)
    # a Hamiltonian is fixed up to a constant
    assert gc.d(gc.Form.function(M, sympy.expand(found - H0))).is_zero()


def test_local_hamiltonian_of_generic_field():
    M, q, p = blocks(2)
    w = canonical_symplectic_form(q, p, M)
    H = sympy.Function("H")(*q, *p)
    found = local_hamiltonian(gc.hamiltonian_vector_field(H, w), w)
    assert gc.zero.decide_zero(found - H).is_zero is True


def test_is_hamiltonian_witness_and_proof():
    M, q, p = blocks(2)
    w = canonical_symplectic_form(q, p, M)
    V = sympy.Function("V")(*q)
    H = (p[0] ** 2 + p[1] ** 2) / 2 + V
    c = is_hamiltonian(gc.hamiltonian_vector_field(H, w), w)
    assert c.holds is True
    assert gc.zero.decide_zero(c.witness - H).is_zero is True
    assert c.residual.is_zero()      # the proof: i_X w - dH == 0


def test_non_symplectic_field_refuses_a_hamiltonian_and_shows_the_lie_derivative():
    M = gc.Chart("q p")
    q, p = M.coords
    w = M.d(q) ^ M.d(p)
    X = gc.VectorField(M, {q: p, p: -q - 3 * p})      # damped oscillator
    with pytest.raises(errors.NotSymplecticError) as info:
        local_hamiltonian(X, w)
    err = info.value
    assert "L_X w = " in str(err) and "-3" in str(err)
    assert err.residual.coefficient(q, p) == -3
    assert err.decision.is_zero is False
    c = is_hamiltonian(X, w)
    assert c.holds is False and c.witness is None
    assert c.residual.coefficient(q, p) == -3


def test_symplectic_field_that_is_not_written_as_hamiltonian():
    # X = (q, -p) is the Hamiltonian field of q p; given only as components
    M = gc.Chart("q p")
    q, p = M.coords
    c = is_hamiltonian(gc.VectorField(M, {q: q, p: -p}), M.d(q) ^ M.d(p))
    assert c.holds is True and c.witness == q * p


@pytest.mark.needs_pdflatex
def test_derivations_compile(tmp_path):
    M, q, p = blocks(1)
    w = canonical_symplectic_form(q, p, M)
    V = sympy.Function("V")(*q)
    good = is_hamiltonian(gc.hamiltonian_vector_field(p[0] ** 2 / 2 + V, w), w)
    bad = certify_symplectic_vector_field(gc.VectorField(M, {q[0]: q[0]}), w)
    body = good.latex() + bad.latex()
    assert compile_pdf(document(body), tmp_path / "symplectic.pdf").exists()
