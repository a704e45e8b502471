"""EL one-forms, canonical and symplectic forms (Guo, Li & Wu 2001, Sec. 2), generic and concrete."""

import dataclasses

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.latex import compile_pdf, document
from geomcheck.errors import ExpressionError, ShapeError
from geomcheck.structures import (
    certify_el_condition,
    certify_el_conservation,
    certify_el_identity,
    certify_hamiltonian_el_condition,
    euler_lagrange_forms,
    hamiltonian_el_forms,
)

V = sp.Function("V")


def coords(n, base="q"):
    return sp.symbols(" ".join(f"{base}{i}" for i in range(1, n + 1)), seq=True)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_identities_hold_on_function_space_for_a_generic_lagrangian(n):
    F = euler_lagrange_forms(None, coords(n))
    assert F.chart.dim == 3 * n
    for cert in (certify_el_identity(F), certify_el_condition(F)):
        assert cert.holds is True, cert
        assert cert.stage in ("structural", "exact", "randomized")


def magnetic_lagrangian():
    q1, q2 = coords(2)
    v1, v2 = sp.symbols("qdot1 qdot2")
    b = sp.Symbol("b")
    L = (v1**2 + v2**2) / 2 + b * (q1 * v2 - q2 * v1) - V(q1, q2)
    return L, (q1, q2), (v1, v2)


def test_symplectic_form_is_the_printed_eq_8():
    """omega = L_{qdot^i q^j} dq^j ^ dq^i + L_{qdot^i qdot^j} dqdot^j ^ dq^i (eq. 8), term by term."""
    L, q, v = magnetic_lagrangian()
    F = euler_lagrange_forms(L, q, v)
    M = F.chart
    printed = gc.Form(M, {})
    for i in range(2):
        for j in range(2):
            printed = printed + sp.diff(L, v[i], q[j]) * (M.d(q[j]) ^ M.d(q[i]))
            printed = printed + sp.diff(L, v[i], v[j]) * (M.d(v[j]) ^ M.d(q[i]))
    assert (F.symplectic_form - printed).is_zero() is True
    # the magnetic term gives a dq1 ^ dq2 component: the form is not just dv ^ dq
    assert F.symplectic_form.coefficient(q[0], q[1]) != 0
    assert certify_el_identity(F).holds is True
    assert certify_el_condition(F).holds is True


def test_el_form_of_a_natural_lagrangian():
    q, v = sp.symbols("q qdot")
    F = euler_lagrange_forms(v**2 / 2 - V(q), q, v)
    a = F.qddot[0]
    assert sp.expand(F.el_form.coefficient(q) - (-V(q).diff(q) - a)) == 0
    # off the solutions dE != 0: the EL condition is a condition, not an identity
    dE = gc.d(F.el_form)
    assert dE.is_zero() is False
    assert dE.coefficient(q, a) == 1


def test_a_wrong_el_form_is_refuted_with_a_counterexample():
    """Flip the sign of the d/dt term: eq. 4 then fails, and the certificate says where."""
    F = euler_lagrange_forms(None, coords(2))
    wrong = gc.Form(F.chart, {})
    for x, v in zip(F.q, F.qdot):
        L_q, L_v = sp.diff(F.lagrangian, x), sp.diff(F.lagrangian, v)
        wrong = wrong + (L_q + F.total_derivative(L_v)) * F.chart.d(x)
    bad = dataclasses.replace(F, el_form=wrong)
    cert = certify_el_identity(bad)
    assert cert.holds is False and cert.counterexample
    assert certify_el_condition(bad).holds is False


@pytest.mark.parametrize("which", ["pendulum", "magnetic", "generic"])
def test_the_lagrangian_flow_conserves_omega_on_solutions(which):
    if which == "pendulum":
        q, v = sp.symbols("q qdot")
        F = euler_lagrange_forms(v**2 / 2 + sp.cos(q), q, v)
    elif which == "magnetic":
        F = euler_lagrange_forms(*magnetic_lagrangian())
    else:
        F = euler_lagrange_forms(None, sp.Symbol("q"))
    cert = certify_el_conservation(F)
    assert cert.holds is True, cert


def test_a_non_conserved_form_is_refuted_on_solutions():
    """Control: on the same solution space, dq ^ dqdot scaled by (1 + q^2) is NOT conserved by the pendulum."""
    q, v = sp.symbols("q qdot")
    F = euler_lagrange_forms(v**2 / 2 + sp.cos(q), q, v)
    bad = dataclasses.replace(F, symplectic_form=(1 + q**2) * F.symplectic_form)
    assert certify_el_conservation(bad).holds is False


@pytest.mark.parametrize("n", [1, 2])
def test_hamiltonian_pair_eqs_12_to_16(n):
    q, p = coords(n), coords(n, "p")
    F = hamiltonian_el_forms(None, q, p)
    # dz^T ^ J dz = 2 sum dp ^ dq
    for x, y in zip(q, p):
        assert F.two_form.coefficient(y, x) == 2
    assert certify_hamiltonian_el_condition(F).holds is True
    # E2 with the opposite sign (E2 = +(pdot + H_q) dq) breaks the identity
    bad = dataclasses.replace(F, E2=-F.E2)
    cert = certify_hamiltonian_el_condition(bad)
    assert cert.holds is False   # a constant nonzero component: no point needs naming
    assert "-4" in cert.method


def test_hamiltonian_pair_is_null_exactly_on_hamiltons_equations():
    q, p = sp.symbols("q p")
    H = p**2 / 2 + q**4 / 4
    F = hamiltonian_el_forms(H, q, p)
    qd, pd = F.chart.coords[2:]
    on_solutions = {qd: sp.diff(H, p), pd: -sp.diff(H, q)}
    assert all(sp.expand(v.subs(on_solutions)) == 0 for v in (F.E1 + F.E2).terms.values())


def test_bad_input():
    q1, q2 = coords(2)
    with pytest.raises(ShapeError):
        euler_lagrange_forms(None, [q1, q2], [sp.Symbol("v1")])
    with pytest.raises(ExpressionError):
        euler_lagrange_forms(None, ["q1"])
    with pytest.raises(ExpressionError):
        euler_lagrange_forms(None, [q1, q1])
    q, v = sp.symbols("q qdot")
    a = sp.Symbol("qddot")
    with pytest.raises(ExpressionError, match="accelerations"):
        euler_lagrange_forms(v**2 / 2 + a * q, q, v, a)
    with pytest.raises(ShapeError):
        hamiltonian_el_forms(None, [q1, q2], [sp.Symbol("p1")])
    with pytest.raises(ExpressionError):
        certify_el_identity(hamiltonian_el_forms(None, q1, sp.Symbol("p1")))


@pytest.mark.needs_pdflatex
def test_derivations_compile(tmp_path):
    F = euler_lagrange_forms(*magnetic_lagrangian())
    body = "\n".join([F.latex(), certify_el_identity(F).latex(), certify_el_condition(F).latex(),
                      certify_el_conservation(F).latex(),
                      certify_hamiltonian_el_condition(hamiltonian_el_forms(None, coords(2), coords(2, "p"))).latex()])
    pdf = compile_pdf(document(body), tmp_path / "lagrangian.pdf")
    assert pdf.exists() and pdf.stat().st_size > 0
