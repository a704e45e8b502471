"""Implicit maps at scale: implicit derivatives, numeric Jacobian checks, their soundness guard.

Large implicit maps (many-stage Gauss methods on two degrees of freedom) take their
derivatives by the implicit function theorem numerically at evaluation points
(``ImplicitMap.derivative_mode == "implicit"``); these tests hold that route to the
same standard as the symbolic one: True only by randomized evaluation on the solution
manifold, False only with a confirmed counterexample, never a silent constant.
"""

import sympy
import pytest

import geomcheck as gc
from geomcheck.latex import compile_pdf
import integrators as ig
from geomcheck import linalg, maps
from geomcheck.certify import order as order_module
from geomcheck.errors import ImplicitDerivativeError, ImplicitMapError
from geomcheck.zero import Relation, decide_all_zero, decide_jacobian_singular, decide_zero

q1, q2, p1, p2 = sympy.symbols("q1 q2 p1 p2")
V = sympy.Function("V")
h = sympy.Symbol("h")
HALF = sympy.Rational(1, 2)


@pytest.fixture(scope="module")
def two_dof():
    return ig.HamiltonianSystem((p1**2 + p2**2) / 2 + V(q1, q2), q=[q1, q2], p=[p1, p2])


@pytest.fixture(scope="module")
def gauss4_two_dof(two_dof):
    return ig.scheme("gauss-legendre-4").step_map(two_dof)


def _radau_iia_2():
    # Radau IIA, 2 stages (order 3): L-stable, not symplectic (b_i a_ij + b_j a_ji != b_i b_j)
    A = [[sympy.Rational(5, 12), sympy.Rational(-1, 12)], [sympy.Rational(3, 4), sympy.Rational(1, 4)]]
    return ig.RungeKutta(A, [sympy.Rational(3, 4), sympy.Rational(1, 4)], name="radau-iia-3")


def _radau_iia_3():
    # Radau IIA, 3 stages (order 5), exact entries in Q(sqrt 6)
    r6 = sympy.sqrt(6)
    A = [[sympy.Rational(88, 360) - 7 * r6 / 360, sympy.Rational(296, 1800) - 169 * r6 / 1800,
          -sympy.Rational(2, 225) + 3 * r6 / 225],
         [sympy.Rational(296, 1800) + 169 * r6 / 1800, sympy.Rational(88, 360) + 7 * r6 / 360,
          -sympy.Rational(2, 225) - 3 * r6 / 225],
         [sympy.Rational(16, 36) - r6 / 36, sympy.Rational(16, 36) + r6 / 36, sympy.Rational(1, 9)]]
    return ig.RungeKutta(A, A[2], name="radau-iia-5")


def _midpoint_1dof(derivatives="auto"):
    M = gc.Chart("q p")
    q, p = M.coords
    Q, P = sympy.symbols("Q P")
    mid = [Q - q - h * (p + P) / 2, P - p + h * gc.substitute(V(q).diff(q), {q: (q + Q) / 2})]
    return M, gc.ImplicitMap(M, M, mid, new=[Q, P], derivatives=derivatives)


# ---------------------------------------------------------------------------- linalg


def test_solve_sparse_reports_decided_and_undecided_singularity(monkeypatch):
    x = sympy.Symbol("x")
    with pytest.raises(linalg.SingularSystem) as info:
        linalg.solve_sparse([{0: x - x, 1: 1}, {1: 2}], [[1, 2]], 2)
    assert info.value.undecided is False
    # a zero test that cannot decide: the singularity is only "undecided"
    monkeypatch.setattr(linalg, "_zero_status", lambda e, deadline=None: (e == 0) if e.is_Number else None)
    with pytest.raises(linalg.SingularSystem) as info:
        linalg.solve_sparse([{0: x, 1: 1}, {1: 2}], [[1, 2]], 2)
    assert info.value.undecided is True and info.value.column == 0


def test_solve_sparse_stops_at_its_deadline():
    x = sympy.Symbol("x")
    with pytest.raises(linalg.EliminationTooCostly):
        linalg.solve_sparse([{0: x, 1: 1}, {0: 1, 1: x}], [[1, 2]], 2, deadline=0.0)


# ---------------------------------------------------------------------------- Relation


def test_relation_derived_unknowns_are_validated():
    x, u, D, E = sympy.symbols("x u D E")
    with pytest.raises(ImplicitMapError, match="one symbol per unknown"):
        Relation([u - x], [u], derived=[([D, E], [-1])])
    with pytest.raises(ImplicitMapError, match="must be distinct Symbols"):
        Relation([u - x], [u], derived=[([u], [-1])])
    with pytest.raises(ImplicitMapError, match="later column"):
        Relation([u - x], [u], derived=[([D], [E]), ([E], [-1])])
    with pytest.raises(ImplicitMapError, match="may not refer to derived"):
        Relation([u - x - D], [u], derived=[([D], [-1])])


def test_derived_unknowns_use_the_equation_polynomials_consistently():
    # u = x + h V(u): du/dx = 1 / (1 - h V'(u)), and V'(u) in the expression must be the
    # same function value as the one the derivative was computed from
    x, u, D = sympy.symbols("x u D")
    F = u - x - h * V(u)
    R = Relation([F], [u], guess={u: x}, small=[h], derived=[([D], [F.diff(x)])])
    exact = decide_zero(D * (1 - h * V(u).diff(u)) - 1, relations=[R])
    assert exact.is_zero is True and "implicit function theorem" in exact.method
    wrong = decide_zero(D * (1 - h * V(u).diff(u)) - 1 - h**2 * D, relations=[R])
    assert wrong.is_zero is False and wrong.stage == "counterexample"
    # second-level columns: d2u/dx2 from the first derivatives (rhs refers to D)
    E = sympy.Symbol("E")
    Fu, Fuu = F.diff(u), F.diff(u, 2)
    R2 = Relation([F], [u], guess={u: x}, small=[h],
                  derived=[([D], [F.diff(x)]), ([E], [Fuu * D**2])])
    second = decide_zero(E - h * V(u).diff(u, 2) * D**3, relations=[R2])
    assert second.is_zero is True, second.method
    del Fu


# ---------------------------------------------------------------------------- the Jacobian check


def test_jacobian_check_numeric_nonsingular_and_singular():
    x, u, v = sympy.symbols("x u v")
    good = decide_jacobian_singular(Relation([u - x - h * v**3, v - h * sympy.sin(u)], [u, v], small=[h]))
    assert good.is_zero is False and "confirmed at 100 digits" in good.method
    # det J = 0 identically, but not after any cancellation the elimination sees first
    W = V(x)
    bad = decide_jacobian_singular(Relation([u + W * v - x, (u + W * v) ** 2 - x**2], [u, v]))
    assert bad.is_zero is True


def test_construction_checks_the_jacobian_numerically_when_elimination_is_undecided(monkeypatch):
    monkeypatch.setattr(linalg, "_zero_status", lambda e, deadline=None: (e == 0) if e.is_Number else None)
    M, phi = _midpoint_1dof()
    assert phi.derivative_mode == "implicit"
    assert "could not decide" in phi.derivative_note and "nonsingular" in phi.derivative_note
    cert = gc.certify_symplectic(phi, M.d(M.coords[0]) ^ M.d(M.coords[1]))
    assert cert.holds is True and "implicit function theorem" in cert.method


def test_construction_raises_for_a_numerically_singular_jacobian():
    M = gc.Chart("x")
    (x,) = M.coords
    X, v = sympy.symbols("X v")
    W = V(x)
    with pytest.raises(ImplicitMapError, match="singular"):
        gc.ImplicitMap(M, M, [X + W * v - x, (X + W * v) ** 2 - x**2], new=[X], auxiliary=[v],
                       derivatives="implicit")


def test_a_decided_singular_jacobian_still_raises_at_construction():
    M = gc.Chart("x")
    (x,) = M.coords
    X, v = sympy.symbols("X v")
    with pytest.raises(ImplicitMapError, match="do not determine"):
        gc.ImplicitMap(M, M, [X + v - x, 2 * X + 2 * v - 2 * x], new=[X], auxiliary=[v])
    with pytest.raises(ImplicitMapError, match="occurs in none"):
        gc.ImplicitMap(M, M, [X - x, X**2 - x**2], new=[X], auxiliary=[v])


def test_the_derivatives_option(monkeypatch):
    M, auto = _midpoint_1dof()
    assert auto.derivative_mode == "symbolic"
    w = M.d(M.coords[0]) ^ M.d(M.coords[1])
    assert gc.d(gc.pullback(w, auto)).is_zero() is True  # symbolic derivatives can be differentiated
    # above the size limit "auto" goes implicit, "symbolic" still eliminates
    monkeypatch.setattr(maps, "SYMBOLIC_IFT_MAX_UNKNOWNS", 0)
    assert _midpoint_1dof()[1].derivative_mode == "implicit"
    assert _midpoint_1dof("symbolic")[1].derivative_mode == "symbolic"
    forced = _midpoint_1dof("implicit")[1]
    assert forced.derivative_mode == "implicit" and "requested" in forced.derivative_note
    with pytest.raises(ImplicitMapError, match="expected 'auto', 'symbolic' or 'implicit'"):
        _midpoint_1dof("numeric")


# ---------------------------------------------------------------------------- certificates


def test_gauss4_on_two_dof_is_symplectic_by_randomized_evaluation(gauss4_two_dof, two_dof):
    phi = gauss4_two_dof
    cert = gc.certify_symplectic(phi, two_dof.omega)
    assert phi.derivative_mode == "implicit"
    assert cert.holds is True and cert.stage == "randomized"
    assert "computed numerically by the implicit function theorem at each evaluation point" in cert.method


@pytest.mark.parametrize("tableau", [_radau_iia_2, _radau_iia_3], ids=["radau-iia-2-stage", "radau-iia-3-stage"])
def test_radau_iia_on_two_dof_is_not_symplectic_with_a_confirmed_counterexample(two_dof, tableau):
    phi = tableau().step_map(two_dof)
    cert = gc.certify_symplectic(phi, two_dof.omega)
    assert phi.derivative_mode == "implicit"
    assert cert.holds is False and cert.stage == "counterexample"
    assert "confirmed at 100 digits" in cert.method
    assert "derivatives of the unknowns" in cert.counterexample


def test_differentiating_an_implicit_derivative_pullback_raises(gauss4_two_dof, two_dof):
    pulled = gc.pullback(two_dof.omega, gauss4_two_dof)
    with pytest.raises(ImplicitDerivativeError, match="second derivatives"):
        gc.d(pulled)
    X = gc.VectorField(two_dof.chart, {q1: p1})
    with pytest.raises(ImplicitDerivativeError):
        gc.lie(X, pulled)


def test_conformal_certificate_falls_back_to_two_points(gauss4_two_dof, two_dof):
    cert = gc.certify_conformal_symplectic(gauss4_two_dof, two_dof.omega)
    assert cert.holds is True
    assert "two independent points" in cert.method


def test_conformal_certificate_two_points_sees_a_nonconstant_factor():
    M = gc.Chart("q p")
    q, p = M.coords
    Q, P, g = sympy.symbols("Q P gamma")
    w = M.d(q) ^ M.d(p)
    # damped symplectic Euler: P = exp(-gamma h) p - h V'(q), Q = q + h P; factor exp(-gamma h)
    damped = gc.ImplicitMap(M, M, [Q - q - h * P, P - sympy.exp(-g * h) * p + h * V(q).diff(q)], new=[Q, P],
                            derivatives="implicit")
    assert damped.derivative_mode == "implicit"
    ok = gc.certify_conformal_symplectic(damped, w)
    # k is shown constant at two independent points, but it is known only numerically (through
    # the implicit derivatives), so that it vanishes for no gamma, h cannot be proved: undecided
    assert ok.holds is None and "two independent points" in ok.method
    assert "not shown to vanish nowhere" in ok.method
    # with V'(Q) instead of V'(q): dQ ^ dP = dq ^ d(e^{-gamma h} p) / (1 + h^2 V''(Q)), a factor
    # that depends on the point
    wrong = gc.ImplicitMap(M, M, [Q - q - h * P, P - sympy.exp(-g * h) * p + h * V(Q).diff(Q)], new=[Q, P],
                           derivatives="implicit")
    bad = gc.certify_conformal_symplectic(wrong, w)
    assert bad.holds is False and bad.stage == "counterexample"
    assert "two independent points" in bad.method
    # the factor 1 + h q Q depends on the point too
    stretched = gc.ImplicitMap(M, M, [Q - q - h * p, P - (1 + h * q * Q) * p], new=[Q, P], derivatives="implicit")
    assert gc.certify_conformal_symplectic(stretched, w).holds is False


def test_pulling_back_twice_by_an_implicit_derivative_map():
    M, phi = _midpoint_1dof("implicit")
    assert phi.derivative_mode == "implicit"
    w = M.d(M.coords[0]) ^ M.d(M.coords[1])
    twice = gc.pullback(gc.pullback(w, phi), phi)
    names = [set(dep.relation.derived_symbols) for dep in twice.dependence]
    assert len(names) == 2 and not names[0] & names[1]
    assert (twice - w).is_zero() is True


# ---------------------------------------------------------------------------- order and symmetry


def test_gauss4_two_dof_order_and_symmetry(gauss4_two_dof, two_dof):
    assert gc.certify_order(gauss4_two_dof, two_dof.vector_field, h, 4).holds is True
    assert gc.certify_order(gauss4_two_dof, two_dof.vector_field, h, 5).holds is False
    assert gc.certify_symmetric(gauss4_two_dof, h).holds is True


def test_radau_is_not_symmetric(two_dof):
    phi = _radau_iia_2().step_map(two_dof)
    cert = gc.certify_symmetric(phi, h)
    assert cert.holds is False and cert.stage == "counterexample"


def test_taylor_mode_agrees_with_repeated_differentiation():
    M = gc.Chart("q p")
    q, p = M.coords
    Q, P = sympy.symbols("Q P")
    W = gc.substitute(V(q).diff(q), {q: (q + Q) / 2})
    phi = gc.ImplicitMap(M, M, [Q - q - h * (p + P) / 2 * sympy.cos(q * Q) ** 2,
                                P - p + h * W / (1 + Q**2)], new=[Q, P])
    series = order_module.taylor_coefficients(phi, h, 4)
    coeffs = [[phi.guess[u]] for u in phi.unknowns]
    for k in range(1, 5):
        rhs = order_module._rhs_by_differentiation(phi, h, coeffs, k)
        (sol,) = linalg.solve_sparse([{0: 1}, {1: 1}], [rhs], 2)
        for j in range(2):
            coeffs[j].append(sol[j])
    residual = {(i, k): series[i][k] - coeffs[i][k] for i in range(2) for k in range(5)}
    assert decide_all_zero(residual).is_zero is True


@pytest.mark.needs_pdflatex
def test_implicit_derivative_derivations_compile(tmp_path):
    M, phi = _midpoint_1dof("implicit")
    w = M.d(M.coords[0]) ^ M.d(M.coords[1])
    for cert in (gc.certify_symplectic(phi, w), gc.certify_conformal_symplectic(phi, w)):
        assert cert.holds is True
        compile_pdf(cert.derivation.document(), str(tmp_path / "x.pdf"))


@pytest.mark.parametrize("name", ["gauss-legendre-6", "gauss-legendre-8"])
def test_many_stage_gauss_catalog_certificates_on_one_dof(name):
    # order, symmetry and symplecticity of the 3- and 4-stage Gauss maps on H = p^2/2 + V(q)
    # (tests/integrators/test_catalog.py skips them as too slow for the symbolic route;
    # 0.7 s and 2 s now)
    q, p = sympy.symbols("q p")
    system = ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
    certs = ig.scheme(name).certify(system)
    assert set(certs) == {"order", "symmetric", "symplectic"}
    assert all(c.holds is True for c in certs.values()), {k: c.method for k, c in certs.items()}
