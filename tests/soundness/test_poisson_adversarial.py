"""Adversarial soundness suite of the Poisson certificates (issue 20, item 4).

``certify_poisson_structure``, ``certify_poisson``, ``certify_casimir`` and
``certify_preserves_casimir`` (``geomcheck.certify.poisson``), judged against truths
established WITHOUT geomcheck.  Every case states its source of truth in ``why``:

* a theorem, cited there, and re-checked here with plain sympy: the Jacobi residuals
  ``J_ijk = sum_l (d_l P_ij P_lk + d_l P_jk P_li + d_l P_ki P_lj)`` (the Jacobi identity of
  ``{x_i, x_j} = P_ij`` written out), the Poisson-map residual
  ``D phi P D phi^T - P o phi``, the Casimir residual ``P grad C`` and ``C o phi - C``, all
  computed with plain ``sympy.diff`` / ``xreplace`` and evaluated with ``value_at`` (exact,
  or 300-2400 digits, two evaluators) at the points in ``checks`` (holds) or ``witness``
  (fails); undefined functions are made concrete (``concrete``) for these checks;
* the implicit midpoint rule on so(3)^*: solved and differentiated implicitly with mpmath at
  40 digits (``midpoint_rigid_body_residual``); the residual is of size 1e-5 there, so the
  rule is NOT a Poisson map of the Lie-Poisson structure (it does preserve |m|^2, a quadratic
  first integral, exactly).

Two 3D facts used repeatedly (P_v is the skew matrix with ``P_v y = y x v``, i.e.
``P_ij = eps_ijk v_k``): P_v is Poisson iff ``v . curl v == 0``, and
``(f v) . curl(f v) = f^2 v . curl v`` because ``v . (grad f x v) = 0``: in dimension 3 ANY
function times a Poisson tensor is Poisson; ``P_grad C`` is Poisson (curl grad = 0) with
Casimir C (``P_v grad C = grad C x v = 0``).

The judging rules are those of the rest of ``tests/soundness``: truth "holds" -> True or
None, never False; truth "fails" -> False or None, never True, and a False must name a
point inside the chart's domain where the independent residual is nonzero;
``must_decide`` -> not None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import pytest
import sympy as sp
from sympy import Rational as R

import geomcheck as gc
from geomcheck.certify.poisson import (
    certify_casimir,
    certify_poisson,
    certify_poisson_structure,
    certify_preserves_casimir,
)
from geomcheck.errors import GeomcheckError, InvalidArgumentError

from .independent import concretize, has_undefined, point_in_domain, value_at
from .judge import fail, fill_value, short_trace

h, a, c = sp.symbols("h a c")
I1 = sp.Symbol("I1", positive=True)
theta = sp.Function("theta")
F = sp.Function("F")
d1, d2, d3, d4 = sp.symbols("d1:5")
EPS30 = R(1, 10**30)
EPS25 = R(1, 10**25)
EPS100 = R(1, 10**100)
BIG = 10**6


# ----------------------------------------------------------------------------- independent residuals


def jacobi_residuals(P, X):
    """``{(i, j, k): J_ijk}`` for i < j < k: the Jacobi identity of ``{x_i, x_j} = P_ij`` expanded
    (``{{x_i, x_j}, x_k} = sum_l d_l P_ij P_lk``, plus the cyclic permutations)."""
    n = len(X)
    out = {}
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                out[(i, j, k)] = sum(sp.diff(P[i, j], X[l]) * P[l, k] + sp.diff(P[j, k], X[l]) * P[l, i]
                                     + sp.diff(P[k, i], X[l]) * P[l, j] for l in range(n))
    return out


def structure_residuals(P, X):
    skew = [P[i, j] + P[j, i] for i in range(P.rows) for j in range(i, P.cols)]
    return skew + list(jacobi_residuals(P, X).values())


def at_phi(expr, X, exprs):
    return sp.sympify(expr).xreplace(dict(zip(X, exprs)))


def poisson_map_residuals(exprs, P, X):
    J = sp.Matrix(exprs).jacobian(X)
    return list(J * P * J.T - P.xreplace(dict(zip(X, exprs))))


def casimir_residuals(C, P, X):
    return list(P * sp.Matrix([sp.diff(C, x) for x in X]))


def P_so3(m):
    """The Lie-Poisson tensor of so(3)^*: ``{m_i, m_j} = -eps_ijk m_k`` (the rigid body)."""
    m1, m2, m3 = m
    return sp.Matrix([[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]])


def P_vec(v):
    """The 3x3 skew matrix ``P_ij = eps_ijk v_k``."""
    return sp.Matrix([[0, v[2], -v[1]], [-v[2], 0, v[0]], [v[1], -v[0], 0]])


def rotation_about_m1(m, angle):
    """(m1, m2, m3) -> (m1, R(angle) (m2, m3)): the time-1 flow of H = Theta(m1), Theta' = angle/1,
    for {m_i, m_j} = -eps_ijk m_k: m' = P grad H = Theta'(m1) (0, m3, -m2)."""
    m1, m2, m3 = m
    return [m1, m2 * sp.cos(angle) + m3 * sp.sin(angle), -m2 * sp.sin(angle) + m3 * sp.cos(angle)]


# ----------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    id: str
    build: Callable[[], dict]
    truth: str  # "holds" | "fails"
    why: str
    must_decide: bool = False
    witness: dict | None = None  # {name: value}: the independent residual is nonzero there
    checks: tuple = ()  # points ({name: value}) where the independent residual vanishes
    concrete: dict | None = None  # undefined function -> Lambda, for the independent checks
    refusal_ok: bool = False  # a GeomcheckError is an acceptable answer


def so3_chart():
    return gc.Chart("m1 m2 m3")


def xyz_chart(domain=None):
    return gc.Chart("x y z", domain=domain) if domain else gc.Chart("x y z")


def structure(P_of, chart_of=xyz_chart, domain=None):
    def build():
        M = chart_of(domain) if domain else chart_of()
        P = P_of(M.coords)
        return {"call": lambda: certify_poisson_structure(P, M), "residuals": structure_residuals(P, M.coords),
                "domain": domain}
    return build


def pmap(exprs_of, P_of=P_so3, chart_of=so3_chart):
    def build():
        M = chart_of()
        P = P_of(M.coords)
        exprs = exprs_of(M.coords)
        return {"call": lambda: certify_poisson(gc.Map(M, M, exprs), P),
                "residuals": poisson_map_residuals(exprs, P, M.coords), "domain": None,
                "parts": (exprs, P, M.coords)}
    return build


def casimir(C_of, P_of=P_so3, chart_of=so3_chart):
    def build():
        M = chart_of()
        P, C = P_of(M.coords), C_of(M.coords)
        return {"call": lambda: certify_casimir(C, P, M), "residuals": casimir_residuals(C, P, M.coords),
                "domain": None}
    return build


def preserves(exprs_of, C_of, P_of=P_so3, chart_of=so3_chart):
    def build():
        M = chart_of()
        P, C, exprs = P_of(M.coords), C_of(M.coords), exprs_of(M.coords)
        return {"call": lambda: certify_preserves_casimir(gc.Map(M, M, exprs), C, P),
                "residuals": [at_phi(C, M.coords, exprs) - C], "domain": None}
    return build


def x4_chart():
    return gc.Chart("x1 x2 x3 x4")


def rank2_perturbed(X, eps=EPS30):
    """u ^ w with u = d1, w = d2 + eps x1 x4 d3: [u, w] = eps x4 d3 is not in span(u, w) where
    x4 != 0, so Jacobi fails by J_123 = -eps x4 (computed in the truth test)."""
    u = sp.Matrix([1, 0, 0, 0])
    w = sp.Matrix([0, 1, eps * X[0] * X[3], 0])
    return u * w.T - w * u.T


def rank2_times_function(X):
    """F(x) u ^ w with u = d1 + x4 d3, w = d2 (commuting fields: [u, w] = 0)."""
    u = sp.Matrix([1, 0, X[3], 0])
    w = sp.Matrix([0, 1, 0, 0])
    return F(*X) * (u * w.T - w * u.T)


def far_max(X):
    x, y, _ = X
    g = sp.Max(x - BIG, 0) ** 3
    return P_vec([-g * y, g * x, 1])


def rotation_about_m2(m, angle):
    """Time-1 flow of H = Theta(m2), Theta' = angle: m' = angle (m3, 0, -m1)."""
    m1, m2, m3 = m
    return [m1 * sp.cos(angle) + m3 * sp.sin(angle), m2, -m1 * sp.sin(angle) + m3 * sp.cos(angle)]


def splitting_rigid_body(m):
    """Exact flow of m1^2/2 for time h, then exact flow of m2^2/4 for time h (a splitting step)."""
    first = rotation_about_m1(m, h * m[0])
    return rotation_about_m2(first, h * first[1] / 2)


def explicit_euler_rigid_body(m):
    """m + h P(m) grad H, H = m1^2/2 + m2^2/4 + m3^2/6 (I = 1, 2, 3)."""
    grad = sp.Matrix([m[0], m[1] / 2, m[2] / 3])
    step = P_so3(m) * grad
    return [m[i] + h * step[i] for i in range(3)]


def pythagoras(t):
    """sin(t)^2 + cos(t)^2, i.e. 1: a transcendental way of writing 1 that forces numeric evaluation."""
    return sp.sin(t) ** 2 + sp.cos(t) ** 2


def P_se3(X):
    """Lie-Poisson tensor of se(3)^* in (M, Gamma): {M_i, M_j} = -eps M_k, {M_i, G_j} = -eps G_k,
    {G_i, G_j} = 0 (the heavy top / Kirchhoff); Casimirs |G|^2 and M . G."""
    M, G = X[:3], X[3:]
    out = sp.zeros(6, 6)
    out[:3, :3], out[:3, 3:], out[3:, :3] = P_so3(M), P_so3(G), P_so3(G)
    return out


def se3_chart():
    return gc.Chart("M1 M2 M3 G1 G2 G3")


NORM = lambda m: m[0] ** 2 + m[1] ** 2 + m[2] ** 2
CONCRETE_F = {"F": sp.Lambda((d1, d2, d3, d4), sp.exp(d1 * d3) + d2 - d4**2)}
CONCRETE_F3 = {"F": sp.Lambda((d1, d2, d3), sp.exp(d1 * d3) + d2)}
CONCRETE_THETA = {"theta": sp.Lambda(d1, d1**3 - 2 * d1 + sp.Rational(1, 3))}
PTS3 = ({"x": R(1, 3), "y": R(-2, 7), "z": R(5, 4)}, {"x": R(-3, 2), "y": R(1, 5), "z": R(2, 9)})
PTS_M = ({"m1": R(1, 3), "m2": R(-2, 7), "m3": R(5, 4), "h": R(1, 7)},
         {"m1": R(-3, 2), "m2": R(1, 5), "m3": R(2, 9), "h": R(-2, 3)})
PTS4 = ({"x1": R(1, 3), "x2": R(-2, 7), "x3": R(5, 4), "x4": R(1, 6)},)


STRUCTURE_CASES = [
    Case("so3_lie_poisson", structure(P_so3, so3_chart), "holds",
         "Lie-Poisson structure of so(3)^* (the Jacobi identity of the cross product); J_123 = 0 "
         "identically", must_decide=True, checks=PTS_M),
    Case("constant_skew_4x4_with_parameters",
         structure(lambda X: sp.Matrix([[0, a, 1, 0], [-a, 0, 0, c], [-1, 0, 0, 2], [0, -c, -2, 0]]), x4_chart),
         "holds", "a constant skew matrix: every d_l P_ij = 0", must_decide=True),
    Case("jacobi_holds_only_at_a_eq_minus_1", structure(lambda X: P_vec([-a * X[1], X[0], 1])), "fails",
         "v = (-a y, x, 1): v . curl v = 1 + a = J_123, nonzero unless a = -1 (claim is for all a)",
         must_decide=True, witness={"a": 0, "x": 1, "y": 1, "z": 1}),
    Case("jacobi_at_a_eq_minus_1", structure(lambda X: P_vec([X[1], X[0], 1])), "holds",
         "v = (y, x, 1) = grad(x y + z): curl v = 0", must_decide=True, checks=PTS3),
    Case("jacobi_holds_only_at_double_root", structure(lambda X: P_vec([-(a - 1) ** 2 * X[1], 0, 1])), "fails",
         "v = (-(a-1)^2 y, 0, 1): J_123 = (a - 1)^2, zero only at the double root a = 1",
         must_decide=True, witness={"a": 3, "x": 0, "y": 0, "z": 0}),
    Case("jacobi_fails_only_far_away", structure(far_max), "fails",
         "v = (-g y, g x, 1), g = max(x - 10^6, 0)^3 (C^2): J_123 = x g' + 2 g, zero for x <= 10^6, "
         "8e18 at x = 2e6: a sampler that stays near the origin would wrongly say True",
         witness={"x": 2 * BIG, "y": 0, "z": 0}),
    Case("jacobi_fails_only_far_away_outside_domain", structure(far_max, domain={"x": (-1, 1)}), "holds",
         "the same tensor on the domain |x| < 1, where g = 0 and P is constant",
         checks=({"x": R(1, 3), "y": R(-2, 7), "z": R(5, 4)}, {"x": R(-9, 10), "y": 3, "z": 0})),
    Case("f_times_grad_casimir_3d", structure(lambda X: F(*X) * P_vec([X[1], X[0], 2 * X[2]])), "holds",
         "F grad C with C = x y + z^2, F arbitrary: (F v) . curl(F v) = F^2 v . curl v = 0",
         checks=PTS3, concrete=CONCRETE_F3),
    Case("f_times_grad_casimir_3d_transcendental",
         structure(lambda X: sp.exp(sp.sin(X[0] * X[1])) * P_vec(
             [sp.cos(X[0]) * sp.exp(X[1]), sp.sin(X[0]) * sp.exp(X[1]), 1])),
         "holds", "exp(sin(x y)) grad C with C = sin(x) e^y + z (same theorem)", checks=PTS3),
    Case("f_times_non_poisson_3d", structure(lambda X: (1 + X[0] ** 2) * P_vec([-X[1], X[0], 1])), "fails",
         "(1 + x^2) P_v, v = (-y, x, 1): J_123 = (1 + x^2)^2 v . curl v = 2 (1 + x^2)^2 != 0",
         must_decide=True, witness={"x": 0, "y": 0, "z": 0}),
    Case("vanishing_f_times_non_poisson_3d", structure(lambda X: X[0] ** 2 * P_vec([-X[1], X[0], 1])), "fails",
         "x^2 P_v, v = (-y, x, 1): J_123 = 2 x^4, zero only on the plane x = 0",
         must_decide=True, witness={"x": 1, "y": 0, "z": 0}),
    Case("rank2_fails_by_1e-30_x4", structure(rank2_perturbed, x4_chart), "fails",
         "u ^ w, u = d1, w = d2 + 1e-30 x1 x4 d3: J_123 = -1e-30 x4 (zero only on x4 = 0)",
         witness={"x1": 0, "x2": 0, "x3": 0, "x4": 1}),
    Case("rank2_times_function_4d", structure(rank2_times_function, x4_chart), "holds",
         "F u ^ w with [u, w] = 0: [F P, F P] = F^2 [P, P] - 2 F P#(dF) ^ P and P#(dF) ^ u ^ w = 0 "
         "for a decomposable P = u ^ w", checks=PTS4, concrete=CONCRETE_F),
    Case("not_skew_constant", structure(lambda X: sp.Matrix([[0, 1, 0], [1, 0, 0], [0, 0, 0]])), "fails",
         "P_12 + P_21 = 2", must_decide=True, witness={"x": 0, "y": 0, "z": 0}),
    Case("not_skew_diagonal", structure(lambda X: sp.Matrix([[X[0], 0, 0], [0, 0, 0], [0, 0, 0]])), "fails",
         "P_11 = x is nonzero for x != 0", must_decide=True, witness={"x": 1, "y": 0, "z": 0}),
    Case("skew_only_for_positive_x", structure(lambda X: sp.Matrix([[0, X[0], 0], [-sp.sqrt(X[0] ** 2), 0, 0],
                                                                    [0, 0, 0]])), "fails",
         "P_12 + P_21 = x - |x| = -2 at x = -1", witness={"x": -1, "y": 0, "z": 0}),
    Case("skew_on_positive_domain", structure(lambda X: sp.Matrix([[0, X[0], 0], [-sp.sqrt(X[0] ** 2), 0, 0],
                                                                   [0, 0, 0]]), domain={"x": (0, sp.oo)}),
         "holds", "on x > 0, sqrt(x^2) = x: P = x d_x ^ d_y, a single entry (J_123 = 0)",
         checks=({"x": R(1, 3), "y": 1, "z": 2}, {"x": 7, "y": -1, "z": 0})),
    Case("sqrt_x2_whole_line", structure(lambda X: P_vec([-X[1], sp.sqrt(X[0] ** 2), 1])), "fails",
         "v = (-y, |x|, 1): J_123 = 1 + |x|/x = 2 for x > 0 (replacing sqrt(x^2) by x is wrong here)",
         witness={"x": 1, "y": 0, "z": 0}),
    Case("sqrt_x2_negative_domain", structure(lambda X: P_vec([-X[1], sp.sqrt(X[0] ** 2), 1]),
                                              domain={"x": (-sp.oo, 0)}), "holds",
         "on x < 0, |x| = -x: v = (-y, -x, 1) = grad(-x y + z), curl v = 0 (replacing sqrt(x^2) by x "
         "would give the non-Poisson (-y, x, 1))", checks=({"x": R(-1, 3), "y": 1, "z": 2}, {"x": -5, "y": 0, "z": 1})),
    Case("sqrt_x2_positive_domain", structure(lambda X: P_vec([-X[1], sp.sqrt(X[0] ** 2), 1]),
                                              domain={"x": (0, sp.oo)}), "fails",
         "on x > 0: v = (-y, x, 1), J_123 = 2", witness={"x": 1, "y": 0, "z": 0}),
    Case("hidden_trig_identity", structure(lambda X: P_vec([-X[1] * (sp.sin(X[0]) ** 2 + sp.cos(X[0]) ** 2),
                                                            -X[0], 1])), "holds",
         "v = (-y (sin^2 x + cos^2 x), -x, 1) = (-y, -x, 1): curl v = 0", checks=PTS3),
    Case("hidden_constant_1e-100", structure(lambda X: P_vec([-X[1] * (pythagoras(X[0]) + EPS100), -X[0], 1])),
         "fails", "v = (-y (1 + 1e-100), -x, 1) in disguise: curl v = (0, 0, 1e-100), J_123 = 1e-100 exactly "
         "(sin^2 + cos^2 = 1); numeric evaluation at 50-100 digits rounds the 1e-100 away",
         witness={"x": 0, "y": 0, "z": 0}),
    Case("hidden_constant_pi_1e-100",
         structure(lambda X: P_vec([-X[1] * (pythagoras(X[0]) + sp.pi / 10**100), -X[0], 1])), "fails",
         "as above with the constant pi 1e-100: J_123 = pi 1e-100", witness={"x": 0, "y": 0, "z": 0}),
    Case("hidden_constant_exp_m231",
         structure(lambda X: P_vec([-X[1] * (pythagoras(X[0]) + sp.exp(-231)), -X[0], 1])), "fails",
         "as above with the constant e^-231 (about 4.8e-101): J_123 = e^-231", witness={"x": 0, "y": 0, "z": 0}),
    Case("dimension_1_zero", structure(lambda X: sp.Matrix([[0]]), lambda: gc.Chart("x")), "holds",
         "the zero 1x1 matrix: skew, no Jacobi triple", must_decide=True),
    Case("dimension_1_nonzero", structure(lambda X: sp.Matrix([[X[0]]]), lambda: gc.Chart("x")), "fails",
         "P_11 = x is not skew", must_decide=True, witness={"x": 1}),
    Case("dimension_2_any_function", structure(lambda X: sp.Matrix([[0, sp.sqrt(X[0] ** 2) * sp.exp(X[1])],
                                                                   [-sp.sqrt(X[0] ** 2) * sp.exp(X[1]), 0]]),
                                               lambda: gc.Chart("x y")), "holds",
         "in dimension 2 every skew matrix is Poisson (no triple i < j < k)", must_decide=True),
    Case("se3_lie_poisson", structure(P_se3, se3_chart), "holds",
         "Lie-Poisson structure of se(3)^* (Jacobi identity of the Lie algebra); all 20 J_ijk = 0 identically",
         must_decide=True),
    Case("skew_fails_by_1e-30", structure(lambda X: P_so3(X) + sp.Matrix([[0, 0, 0], [EPS30, 0, 0], [0, 0, 0]]),
                                          so3_chart), "fails", "P_12 + P_21 = 1e-30", must_decide=True,
         witness={"m1": 0, "m2": 0, "m3": 0}),
    Case("hidden_trig_identity_fails", structure(lambda X: P_vec([-X[1] * (sp.sin(X[0]) ** 2 + sp.cos(X[0]) ** 2),
                                                                  X[0], 1])), "fails",
         "v = (-y, x, 1) in disguise: J_123 = 2", witness={"x": 0, "y": 0, "z": 0}),
]

MAP_CASES = [
    Case("rotation_about_m1_by_theta_m1", pmap(lambda m: rotation_about_m1(m, theta(m[0]))), "holds",
         "time-1 flow of H = Theta(m1) with Theta' = theta (Hamiltonian flows are Poisson maps)",
         checks=PTS_M, concrete=CONCRETE_THETA),
    Case("rigid_body_axis1_exact_flow", pmap(lambda m: rotation_about_m1(m, h * m[0] / I1)), "holds",
         "exact flow of H = m1^2/(2 I1): m' = (m1/I1)(0, m3, -m2), a rotation of (m2, m3) by h m1/I1",
         checks=({"m1": R(1, 3), "m2": R(-2, 7), "m3": R(5, 4), "h": R(1, 7), "I1": R(3, 2)},)),
    Case("rigid_body_axis1_backward_flow", pmap(lambda m: rotation_about_m1(m, -h * m[0] / I1)), "holds",
         "the same flow at time -h (a flow map of the same Hamiltonian)",
         checks=({"m1": R(1, 3), "m2": R(-2, 7), "m3": R(5, 4), "h": R(1, 7), "I1": R(3, 2)},)),
    Case("splitting_rigid_body", pmap(splitting_rigid_body), "holds",
         "a composition of two exact Hamiltonian flows (H1 = m1^2/2, H2 = m2^2/4) is a Poisson map",
         checks=PTS_M[:1]),
    Case("casimir_dependent_scaling", pmap(lambda m: [mi * (1 + NORM(m)) for mi in m]), "fails",
         "phi = g m with g = 1 + |m|^2: D phi P D phi^T = g^2 P (P m = 0), P(phi) = g P: Poisson iff g in {0, 1}",
         must_decide=True, witness={"m1": 1, "m2": 0, "m3": 0}),
    Case("rotation_by_rotated_coordinate", pmap(lambda m: rotation_about_m1(m, h * m[1])), "fails",
         "rotation of (m2, m3) by the angle h m2 (not a function of the Casimir-free m1): the (1, 3) entry "
         "of the residual is 0.1995... at the witness", witness={"m1": 1, "m2": R(1, 2), "m3": R(1, 3), "h": 1}),
    Case("constant_rotation", pmap(lambda m: list(sp.Matrix([[R(3, 5), -R(4, 5), 0], [R(4, 5), R(3, 5), 0],
                                                             [0, 0, 1]]) * sp.Matrix(m))), "holds",
         "R in SO(3): R hat(m) R^T = hat(R m) (coadjoint action)", must_decide=True, checks=PTS_M),
    Case("cyclic_permutation", pmap(lambda m: [m[1], m[2], m[0]]), "holds",
         "the cyclic permutation is a rotation (det +1) of R^3: R hat(m) R^T = hat(R m); a sequential "
         "substitution m1 -> m2, m2 -> m3, ... would compute the wrong P(phi)", must_decide=True, checks=PTS_M),
    Case("transposition", pmap(lambda m: [m[1], m[0], m[2]]), "fails",
         "swapping m1 and m2 is a reflection (det -1)", must_decide=True, witness={"m1": 0, "m2": 0, "m3": 1}),
    Case("degenerate_constant_A", pmap(lambda X: [X[0] + a * X[2], X[1] + c * X[2], 3 * X[2]],
                                       lambda X: sp.Matrix([[0, 1, 0], [-1, 0, 0], [0, 0, 0]]), xyz_chart),
         "holds", "P = dx ^ dy, phi = A x with A e1 = e1, A e2 = e2: A P A^T = (A e1) ^ (A e2) = P "
         "(whereas A^T P A has entry (1, 3) = c)", must_decide=True,
         checks=({"x": 1, "y": 2, "z": 3, "a": R(1, 2), "c": -2},)),
    Case("degenerate_constant_A_transposed", pmap(lambda X: [X[0], X[1], a * X[0] + c * X[1] + 3 * X[2]],
                                                  lambda X: sp.Matrix([[0, 1, 0], [-1, 0, 0], [0, 0, 0]]), xyz_chart),
         "fails", "phi = A^T x: D P D^T = A^T P A has entry (2, 3) = ... a, nonzero for a != 0 (the claim is for "
         "all a, c); catches D^T P D computed in place of D P D^T", must_decide=True,
         witness={"x": 0, "y": 0, "z": 0, "a": 1, "c": 1}),
    Case("any_map_of_zero_tensor", pmap(lambda m: [2 * m[0], m[1] ** 3, sp.sin(m[2])], lambda m: sp.zeros(3, 3)),
         "holds", "P = 0: both sides vanish for every map", must_decide=True, checks=PTS_M),
    Case("reflection", pmap(lambda m: [m[0], m[1], -m[2]]), "fails",
         "R in O(3) with det -1: R hat(m) R^T = -hat(R m)", must_decide=True, witness={"m1": 1, "m2": 0, "m3": 0}),
    Case("minus_identity", pmap(lambda m: [-m[0], -m[1], -m[2]]), "fails",
         "D P D^T = P(m) but P(-m) = -P(m)", must_decide=True, witness={"m1": 1, "m2": 0, "m3": 0}),
    Case("scaling_by_2", pmap(lambda m: [2 * m[0], 2 * m[1], 2 * m[2]]), "fails",
         "D phi P D phi^T = 4 P(m), P(2 m) = 2 P(m)", must_decide=True, witness={"m1": 1, "m2": 0, "m3": 0}),
    Case("scaling_by_parameter", pmap(lambda m: [c * m[0], c * m[1], c * m[2]]), "fails",
         "c^2 P(m) vs c P(m): Poisson only for c in {0, 1}, not for all c", must_decide=True,
         witness={"c": 2, "m1": 1, "m2": 0, "m3": 0}),
    Case("normalisation_poisson_only_on_sphere",
         pmap(lambda m: [mi / sp.sqrt(NORM(m)) for mi in m]), "fails",
         "phi = m/|m|: D phi P D phi^T = P(m)/|m|^2, P(phi) = P(m)/|m| (P m = 0): equal only on |m| = 1",
         witness={"m1": 2, "m2": 0, "m3": 0}),
    Case("exact_flow_plus_h9", pmap(lambda m: [m[0] + h**9 * m[1] ** 2] + rotation_about_m1(m, h * m[0])[1:]),
         "fails", "the exact flow (I1 = 1) with h^9 m2^2 added to m1: residual entry (2, 3) = h^9 m2^2", witness={"m1": 1, "m2": 1, "m3": 0, "h": 1}),
    Case("identity_plus_1e-25", pmap(lambda m: [m[0] + EPS25 * m[1] ** 2, m[1], m[2]]), "fails",
         "m1 + 1e-25 m2^2: residual entries (1, 3) = -2e-25 m1 m2 and (2, 3) = 1e-25 m2^2",
         witness={"m1": 1, "m2": 1, "m3": 1}),
    Case("hidden_constant_map_1e-100", pmap(lambda m: [m[0] + m[1] * (pythagoras(m[0]) - 1 + EPS100), m[1], m[2]]),
         "fails", "m1 + 1e-100 m2 in disguise (sin^2 + cos^2 = 1): D phi P D phi^T - P(phi) has entries "
         "(1, 3) = -1e-100 m1 and (2, 3) = 1e-100 m2", witness={"m1": 1, "m2": 1, "m3": 1}),
    Case("removable_singularity_sinc_angle", pmap(lambda m: rotation_about_m1(m, sp.sin(m[0]) / m[0])), "holds",
         "rotation about axis 1 by theta(m1) = sin(m1)/m1 (smooth after removal at 0): a flow of H(m1)",
         checks=PTS_M),
    Case("removable_singularity_identity",
         pmap(lambda m: [m[0], m[1] * (m[0] ** 2 - 1) / ((m[0] - 1) * (m[0] + 1)), m[2]]), "holds",
         "the identity, written with a removable singularity at m1 = +-1", checks=PTS_M),
]

CASIMIR_CASES = [
    Case("norm_squared", casimir(NORM), "holds", "P(m) m = m x m = 0", must_decide=True, checks=PTS_M),
    Case("m1_not_casimir", casimir(lambda m: m[0]), "fails", "P e1 = (0, m3, -m2)", must_decide=True,
         witness={"m1": 0, "m2": 1, "m3": 0}),
    Case("casimir_only_at_a_eq_1", casimir(lambda m: m[0] ** 2 + m[1] ** 2 + a * m[2] ** 2), "fails",
         "grad C = 2 m + 2 (a - 1) m3 e3, so P grad C = 2 (a - 1) m3 (m2, -m1, 0): nonzero for a != 1 "
         "(the claim is for all a)",
         witness={"a": 0, "m1": 1, "m2": 1, "m3": 1}),
    Case("casimir_at_a_eq_1", casimir(lambda m: m[0] ** 2 + m[1] ** 2 + m[2] ** 2), "holds",
         "|m|^2", must_decide=True, checks=PTS_M),
    Case("casimir_only_for_positive_parameter",
         casimir(lambda m: m[0] ** 2 + m[1] ** 2 + sp.sqrt(a**2) / a * m[2] ** 2), "fails",
         "sqrt(a^2)/a = sign(a): C = m1^2 + m2^2 - m3^2 for a < 0, not a Casimir (the claim is for all real a)",
         must_decide=True, witness={"a": -1, "m1": 1, "m2": 1, "m3": 1}),
    Case("casimir_positive_parameter",
         casimir(lambda m: m[0] ** 2 + m[1] ** 2 + sp.sqrt(I1**2) / I1 * m[2] ** 2), "holds",
         "I1 > 0 by assumption: sqrt(I1^2)/I1 = 1, C = |m|^2", checks=PTS_M + ({"m1": 1, "m2": 2, "m3": 3, "I1": 5},)),
    Case("casimir_removable_singularity", casimir(lambda m: (NORM(m) ** 2 - 1) / (NORM(m) - 1)), "holds",
         "(|m|^4 - 1)/(|m|^2 - 1) = |m|^2 + 1 off the unit sphere (removable there)", checks=PTS_M),
    Case("hidden_constant_casimir_1e-100",
         casimir(lambda m: NORM(m) + m[0] * (pythagoras(m[1]) - 1 + EPS100)), "fails",
         "|m|^2 + 1e-100 m1 in disguise: P grad C = 1e-100 P e1 = 1e-100 (0, m3, -m2)",
         witness={"m1": 1, "m2": 1, "m3": 1}),
    Case("generic_function_of_m1", casimir(lambda m: theta(m[0])), "fails",
         "theta(m1) for every theta: false for the concrete theta (P grad = theta'(m1) (0, m3, -m2))",
         witness={"m1": 1, "m2": 1, "m3": 1}, concrete=CONCRETE_THETA),
    Case("se3_casimir_M_dot_G", casimir(lambda X: X[0] * X[3] + X[1] * X[4] + X[2] * X[5], P_se3, se3_chart),
         "holds", "M . G is a Casimir of se(3)^* (the heavy top's area integral is not; this one is)",
         must_decide=True, checks=({"M1": 1, "M2": 2, "M3": 3, "G1": -1, "G2": R(1, 2), "G3": 4},)),
    Case("se3_casimir_G_norm", casimir(lambda X: X[3] ** 2 + X[4] ** 2 + X[5] ** 2, P_se3, se3_chart), "holds",
         "|G|^2 is a Casimir of se(3)^*", must_decide=True,
         checks=({"M1": 1, "M2": 2, "M3": 3, "G1": -1, "G2": R(1, 2), "G3": 4},)),
    Case("se3_M_norm_not_casimir", casimir(lambda X: X[0] ** 2 + X[1] ** 2 + X[2] ** 2, P_se3, se3_chart),
         "fails", "|M|^2 is a Casimir of so(3)^* but not of se(3)^*: {G_i, |M|^2} = 2 (G x M)_i",
         must_decide=True, witness={"M1": 1, "M2": 0, "M3": 0, "G1": 0, "G2": 1, "G3": 0}),
    Case("function_of_norm", casimir(lambda m: theta(NORM(m))), "holds",
         "grad theta(|m|^2) = 2 theta' m and P m = 0", checks=PTS_M, concrete=CONCRETE_THETA),
    Case("casimir_of_f_times_grad_C", casimir(lambda X: X[0] * X[1] + X[2] ** 2,
                                              lambda X: F(*X) * P_vec([X[1], X[0], 2 * X[2]]), xyz_chart),
         "holds", "P_v grad C = grad C x v = 0 for v = grad C", checks=PTS3, concrete=CONCRETE_F3),
]

PRESERVES_CASES = [
    Case("rotation_preserves_norm", preserves(lambda m: rotation_about_m1(m, theta(m[0])), NORM), "holds",
         "a rotation of (m2, m3) keeps m2^2 + m3^2 and m1", checks=PTS_M, concrete=CONCRETE_THETA),
    Case("explicit_euler_loses_norm_at_h2", preserves(explicit_euler_rigid_body, NORM), "fails",
         "|m + h v|^2 - |m|^2 = h^2 |v|^2 since m . v = m . (P(m) grad H) = 0: = h^2 (9 m1^2 m2^2 + 16 m1^2 m3^2 "
         "+ m2^2 m3^2)/36",
         must_decide=True, witness={"m1": 1, "m2": 1, "m3": 0, "h": 1}),
    Case("rotation_perturbed_at_h7", preserves(lambda m: [m[0], m[1] * sp.cos(h) + m[2] * sp.sin(h) + h**7 * m[0],
                                                          -m[1] * sp.sin(h) + m[2] * sp.cos(h)], NORM), "fails",
         "C o phi - C = 2 h^7 m1 (m2 cos h + m3 sin h) + h^14 m1^2 = O(h^7)",
         witness={"m1": 1, "m2": 1, "m3": 0, "h": 1}),
    Case("hidden_constant_preserves_1e-100",
         preserves(lambda m: [m[0], m[1], m[2] + pythagoras(m[0]) - 1 + EPS100], NORM), "fails",
         "m3 + 1e-100 in disguise: C o phi - C = 2e-100 m3 + 1e-200", witness={"m1": 1, "m2": 1, "m3": 1}),
]

ALL_CASES = STRUCTURE_CASES + MAP_CASES + CASIMIR_CASES + PRESERVES_CASES
BY_ID = {case.id: case for case in ALL_CASES}
assert len(BY_ID) == len(ALL_CASES)


# ----------------------------------------------------------------------------- the judge


def _symbols_of(exprs):
    out = set()
    for e in exprs:
        out |= sp.sympify(e).free_symbols
    return out


def _flat_point(point):
    """A counterexample as one flat ``{name: value}`` dict (nested dicts merged, e.g. a point under a
    ``"point"`` key next to the failing index triple)."""
    flat = {}
    for key, value in (point or {}).items():
        if isinstance(value, dict):
            flat.update(_flat_point(value))
        else:
            flat[key] = value
    return flat


def _values(exprs, names, fill=True, domain=None):
    syms = _symbols_of(exprs)
    by_name = {s.name: s for s in syms}
    ok, why, values = point_in_domain({k: v for k, v in names.items() if str(k) in by_name}, syms, domain)
    if not ok:
        return None, why
    if fill:
        for s in syms:
            values.setdefault(s, fill_value(s, domain))
    return values, ""


def _concrete(exprs, concrete):
    return [concretize(e, concrete) if concrete and has_undefined(e) else sp.sympify(e) for e in exprs]


def counterexample_problems(residuals, cert, domain):
    point = _flat_point(cert.counterexample if isinstance(cert.counterexample, dict) else {})
    if any(has_undefined(r) for r in residuals):
        return []  # a generic claim: a counterexample needs concrete functions, not judged here
    values, why = _values(residuals, point, domain=domain)
    if values is None:
        return [f"counterexample outside the domain: {why} ({cert.counterexample})"]
    verdicts = [value_at(r, values) for r in residuals]
    if not any(v == "nonzero" for v, _ in verdicts):
        found = [v for v, _ in verdicts]
        return [f"the counterexample {cert.counterexample} is not genuine: independent residuals there: {found}"]
    return []


def zero_at(expr, values):
    """``expr`` vanishes at the exact point ``values``: exactly, or its sympy ``evalf`` value shrinks
    with the working precision (below 1e-45 at 50 digits and below 1e-95 at 100 digits).  A
    cheaper relative of ``value_at`` for the many trigonometric 'holds' residuals."""
    e = sp.sympify(expr).xreplace(values)
    if e.has(sp.Derivative, sp.Subs):
        e = e.doit()
    if e == 0:
        return True, "exactly 0"
    v50, v100 = e.evalf(50), e.evalf(100)
    ok = e.free_symbols == set() and abs(v50) < 1e-45 and abs(v100) < 1e-95
    return ok, f"{v50!s:.30} at 50 digits, {v100!s:.30} at 100 digits"


def map_residual_is_zero_at(exprs, P, X, values, concrete=None):
    """The Poisson-map residual at a point, multiplied out numerically (the Jacobian's entries and
    phi(x) by sympy evalf, then mpmath matrix products): much cheaper than evaluating the entries of
    the symbolic product.  Zero: every entry below 1e-(d-5) at d = 40 and d = 80 digits."""
    exprs = _concrete(exprs, concrete)
    J = sp.Matrix(exprs).jacobian(X)
    if concrete:
        J = J.applyfunc(lambda e: concretize(e, concrete))
    worst = []
    for dps in (40, 80):
        with mpmath.workdps(dps):
            def num(e, digits=dps + 10):
                return mpmath.mpmathify(str(sp.sympify(e).xreplace(values).evalf(digits)))

            Jn = mpmath.matrix([[num(J[i, j]) for j in range(J.cols)] for i in range(J.rows)])
            at_x = {x: values[x] for x in X}
            at_phi = dict(zip(X, [num(e) for e in exprs]))
            Px = mpmath.matrix([[num(P[i, j].xreplace(at_x)) for j in range(P.cols)] for i in range(P.rows)])
            Pphi = mpmath.matrix([[num(P[i, j].xreplace(at_phi)) for j in range(P.cols)] for i in range(P.rows)])
            R_ = Jn * Px * Jn.T - Pphi
            worst.append(max(abs(R_[i, j]) for i in range(R_.rows) for j in range(R_.cols)))
    return worst[0] < mpmath.mpf(10) ** -35 and worst[1] < mpmath.mpf(10) ** -75, worst


def truth_problems(case, data):
    res = _concrete(data["residuals"], case.concrete)
    problems = []
    if case.truth == "fails":
        values, why = _values(res, case.witness, fill=False, domain=data["domain"])
        assert values is not None, why
        verdicts = [value_at(r, values)[0] for r in res]
        if "nonzero" not in verdicts:
            problems.append(f"the witness {case.witness} does not refute the claim: {verdicts}")
    else:
        assert case.checks or all(sp.sympify(r).is_zero for r in res), "a 'holds' case needs check points"
        for pt in case.checks:
            values, why = _values(res, pt, fill=False, domain=data["domain"])
            assert values is not None, why
            if "parts" in data:
                exprs, P, X = data["parts"]
                syms = _symbols_of(list(exprs) + list(P) + list(X))
                values = {sym: sp.Rational(sp.sympify(pt[sym.name])) for sym in syms if sym.name in pt}
                ok, worst = map_residual_is_zero_at(exprs, P, X, values, case.concrete)
                if not ok:
                    problems.append(f"residual not zero at {pt}: largest entry {worst}")
                continue
            verdicts = [zero_at(r, values) for r in res]
            bad = [d for ok, d in verdicts if not ok]
            if bad:
                problems.append(f"residual not zero at {pt}: {bad[:2]}")
    return problems


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda case: case.id)
def test_truth_is_established(case):
    problems = truth_problems(case, case.build())
    if problems:
        fail(f"[{case.id}] {case.why}: " + "; ".join(problems))


EXPECTED_KINDS = {True: {"proof", "probabilistic proof", "numerical evidence"}, False: {"counterexample"},
                  None: {"undecided"}}


def record_problems(cert):
    """The soundness record matches the verdict (a randomized True is never called a proof) and the
    derivation typesets."""
    problems = []
    kind = getattr(cert.soundness, "kind", None)
    if kind not in EXPECTED_KINDS.get(cert.holds, ()):
        problems.append(f"soundness kind {kind!r} does not fit the verdict {cert.holds!r}")
    if cert.holds is True and cert.stage == "randomized" and kind == "proof":
        problems.append("a randomized verdict is recorded as a proof")
    try:
        tex = cert.latex()
    except Exception as exc:  # noqa: BLE001
        return problems + [f"the derivation does not typeset: {short_trace(exc)}"]
    if not isinstance(tex, str) or not tex.strip():
        problems.append("empty derivation")
    return problems


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda case: case.id)
def test_certificate_verdict(case):
    data = case.build()
    try:
        cert = data["call"]()
    except GeomcheckError as exc:
        if case.refusal_ok:
            return
        fail(f"[{case.id}] refused: {short_trace(exc)}")
    except Exception as exc:  # noqa: BLE001 -- any foreign exception is a failure
        fail(f"[{case.id}] foreign exception: {short_trace(exc)}")
    problems = []
    if cert.holds not in (True, False, None):
        problems.append(f"verdict {cert.holds!r} is not True/False/None")
    if case.truth == "holds" and cert.holds is False:
        problems.append(f"WRONG False; counterexample {cert.counterexample} ({cert.method})")
    if case.truth == "fails" and cert.holds is True:
        problems.append(f"WRONG True ({cert.method})")
    if case.truth == "fails" and cert.holds is False:
        problems += counterexample_problems(data["residuals"], cert, data["domain"])
    if case.must_decide and cert.holds is None:
        problems.append(f"undecided on a case a sound tool decides ({cert.method})")
    problems += record_problems(cert)
    if problems:
        fail(f"[{case.id}] truth {case.truth} ({case.why}): " + "; ".join(problems))


@pytest.mark.parametrize("planted", [True, None])
def test_suite_rejects_planted_answers(planted, monkeypatch):
    """The suite can fail: a certifier that always answers True is caught on exactly the cases whose
    truth is "fails", one that always answers None on exactly the ``must_decide`` cases."""
    from geomcheck.certify.certificate import Certificate

    stage = "exact" if planted else "unknown"
    for name in ("certify_poisson_structure", "certify_poisson", "certify_casimir", "certify_preserves_casimir"):
        monkeypatch.setitem(globals(), name, lambda *args, **kw: Certificate("planted", planted, "planted",
                                                                                stage=stage))
    caught = set()
    for case in ALL_CASES:
        try:
            test_certificate_verdict(case)
        except pytest.fail.Exception:
            caught.add(case.id)
    expected = {c.id for c in ALL_CASES if (c.truth == "fails" if planted else c.must_decide)}
    assert caught == expected


# ----------------------------------------------------------------------------- implicit maps


def midpoint_equations(M, new, rhs):
    x = sp.Matrix(M.coords)
    X = sp.Matrix(new)
    return list(X - x - h * rhs((x + X) / 2))


P_CONST = sp.Matrix([[0, 1, 0], [-1, 0, 2], [0, -2, 0]])  # rank 2, constant
S_QUAD = sp.Matrix([[2, 1, 0], [1, a, 0], [0, 0, 1]])  # H = x^T S x / 2, a a parameter


def test_midpoint_linear_constant_poisson_truth():
    """Source of truth: the midpoint rule on x' = B x, B = P S, is the Cayley transform
    C = (I - h B/2)^{-1} (I + h B/2); C P C^T = P because B P + P B^T = P S P - P S P = 0
    (HLW VII.4: for a constant P, symplectic Runge-Kutta methods are Poisson integrators).
    Checked here with plain sympy (exact rational functions in h and a)."""
    B = P_CONST * S_QUAD
    E = sp.eye(3)
    # C P C^T = P  <=>  (I + h B/2) P (I + h B/2)^T = (I - h B/2) P (I - h B/2)^T (both factors invertible
    # for small h); the difference is h (B P + P B^T)
    plus, minus = E + h * B / 2, E - h * B / 2
    assert (plus * P_CONST * plus.T - minus * P_CONST * minus.T).expand() == sp.zeros(3, 3)
    assert sp.factor((E - h * B / 2).det()) != 0


def test_midpoint_with_stage_unknowns_constant_poisson_certificate():
    """The same midpoint rule written with an auxiliary stage K: X = x + h K, K = B (x + h K / 2)."""
    M = xyz_chart()
    new, K = sp.symbols("X1 Y1 Z1"), sp.symbols("K1 K2 K3")
    x, X, Kv = sp.Matrix(M.coords), sp.Matrix(new), sp.Matrix(K)
    B = P_CONST * S_QUAD
    eqs = list(X - x - h * Kv) + list(Kv - B * (x + h * Kv / 2))
    phi = gc.ImplicitMap(M, M, eqs, new=list(new), auxiliary=list(K))
    cert = certify_poisson(phi, P_CONST)
    assert cert.holds is not False, f"WRONG False (theorem: Cayley transform); {cert.counterexample}"


def test_midpoint_linear_constant_poisson_certificate():
    M = xyz_chart()
    X1, Y1, Z1 = sp.symbols("X1 Y1 Z1")
    eqs = midpoint_equations(M, [X1, Y1, Z1], lambda mid: P_CONST * S_QUAD * mid)
    phi = gc.ImplicitMap(M, M, eqs, new=[X1, Y1, Z1])
    cert = certify_poisson(phi, P_CONST)
    assert cert.holds is not False, f"WRONG False (theorem: Cayley transform); {cert.counterexample}"


def _rigid_body_field(m):
    return P_so3(m) * sp.Matrix([m[0], m[1] / 2, m[2] / 3])


def midpoint_rigid_body_residual(m0, hv, dps=40):
    """Max |entry| of D Phi P(m0) D Phi^T - P(Phi(m0)) for the implicit midpoint rule of the rigid
    body (I = 1, 2, 3), and |Phi(m0)|^2 - |m0|^2: Newton (mpmath.findroot) from m0, the derivative
    by implicit differentiation (I - h/2 Df) D Phi = I + h/2 Df at the midpoint.  Plain mpmath."""
    def mp(v):  # an exact (Rational, Float, str) value as an mpf at the working precision
        r = sp.Rational(sp.sympify(v))
        return mpmath.mpf(r.p) / r.q

    with mpmath.workdps(dps):
        hv = mp(hv)
        m0 = mpmath.matrix([mp(v) for v in m0])
        ms = sp.symbols("u1:4")
        f_sym = _rigid_body_field(ms)
        f = sp.lambdify(ms, list(f_sym), "mpmath")
        Df = sp.lambdify(ms, f_sym.jacobian(ms), "mpmath")

        def eqs(*X):
            mid = [(m0[i] + X[i]) / 2 for i in range(3)]
            fm = f(*mid)
            return [X[i] - m0[i] - hv * fm[i] for i in range(3)]

        X = mpmath.matrix(mpmath.findroot(eqs, [m0[i] for i in range(3)]))
        mid = [(m0[i] + X[i]) / 2 for i in range(3)]
        D = mpmath.matrix(Df(*mid).tolist())
        E = mpmath.eye(3)
        J = mpmath.inverse(E - hv / 2 * D) * (E + hv / 2 * D)

        def Pm(v):
            return mpmath.matrix([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])

        Res = J * Pm(m0) * J.T - Pm(X)
        worst = max(abs(Res[i, j]) for i in range(3) for j in range(3))
        drift = sum(X[i] ** 2 for i in range(3)) - sum(m0[i] ** 2 for i in range(3))
        return worst, abs(drift)


def test_midpoint_rigid_body_truth():
    """Source of truth (mpmath, 40 and 60 digits agree): the implicit midpoint rule is NOT a
    Poisson map of so(3)^* for the rigid body (residual ~2e-5 at h = 1/3) but preserves the
    quadratic Casimir |m|^2 exactly (a quadratic first integral of every field m x omega)."""
    worst40, drift40 = midpoint_rigid_body_residual([R(1, 2), R(3, 4), R(-1, 5)], R(1, 3), 40)
    worst60, drift60 = midpoint_rigid_body_residual([R(1, 2), R(3, 4), R(-1, 5)], R(1, 3), 60)
    assert worst40 > mpmath.mpf("1e-6") and abs(worst40 - worst60) < mpmath.mpf("1e-30")
    assert drift40 < mpmath.mpf("1e-35") and drift60 < mpmath.mpf("1e-55")


def _midpoint_rigid_body_map():
    M = so3_chart()
    new = sp.symbols("M1 M2 M3")
    eqs = midpoint_equations(M, new, _rigid_body_field)
    return M, gc.ImplicitMap(M, M, eqs, new=list(new))


def test_midpoint_rigid_body_is_not_certified_poisson():
    M, phi = _midpoint_rigid_body_map()
    cert = certify_poisson(phi, P_so3(M.coords))
    assert cert.holds is not True, "WRONG True: the residual is ~2e-5 at m = (1/2, 3/4, -1/5), h = 1/3"
    if cert.holds is False:
        pt = {str(k): v for k, v in _flat_point(cert.counterexample).items()}
        hv = pt.get("h", R(1, 3))  # a counterexample leaving h out claims any h will do
        m0 = [pt.get(n, fill_value(sp.Symbol(n))) for n in ("m1", "m2", "m3")]
        worst, _ = midpoint_rigid_body_residual(m0, hv)
        assert worst > mpmath.mpf("1e-25"), f"the counterexample {cert.counterexample} is not genuine"


def test_midpoint_rigid_body_preserves_norm():
    M, phi = _midpoint_rigid_body_map()
    cert = certify_preserves_casimir(phi, NORM(M.coords), P_so3(M.coords))
    assert cert.holds is not False, f"WRONG False (quadratic invariant); {cert.counterexample}"


def implicit_residuals(eqs, coords, new, values, P=None, C=None, dps=60):
    """For the map x -> X defined by ``eqs(x, X) == 0`` (plain mpmath): Newton from X = x, then
    D Phi = -(d eqs/dX)^{-1} d eqs/dx (implicit function theorem).  Returns the largest |entry| of
    D Phi P(x) D Phi^T - P(X) (when P is given) and |C(X) - C(x)| (when C is given)."""
    params = sorted(set().union(*(sp.sympify(e).free_symbols for e in eqs)) - set(coords) - set(new),
                    key=lambda s: s.name)
    exact = {s: sp.Rational(sp.sympify(values[s.name])) for s in params + list(coords)}
    with mpmath.workdps(dps):
        def mp(r):
            return mpmath.mpf(r.p) / r.q

        x0 = [mp(exact[c]) for c in coords]
        eq_sub = [sp.sympify(e).xreplace({s: exact[s] for s in params}) for e in eqs]
        G = sp.lambdify(list(coords) + list(new), eq_sub, "mpmath")
        X = mpmath.findroot(lambda *X: G(*x0, *X), x0)
        X = [X[i] for i in range(len(new))]
        GX = sp.lambdify(list(coords) + list(new), sp.Matrix(eq_sub).jacobian(new), "mpmath")
        Gx = sp.lambdify(list(coords) + list(new), sp.Matrix(eq_sub).jacobian(coords), "mpmath")
        D = -mpmath.inverse(mpmath.matrix(GX(*x0, *X).tolist())) * mpmath.matrix(Gx(*x0, *X).tolist())
        out = []
        if P is not None:
            Pf = sp.lambdify(list(coords), P.xreplace({s: exact[s] for s in params}), "mpmath")
            Res = D * mpmath.matrix(Pf(*x0).tolist()) * D.T - mpmath.matrix(Pf(*X).tolist())
            out.append(max(abs(Res[i, j]) for i in range(Res.rows) for j in range(Res.cols)))
        if C is not None:
            Cf = sp.lambdify(list(coords), C, "mpmath")
            out.append(abs(Cf(*X) - Cf(*x0)))
        return out


def _check_implicit_counterexample(cert, coords, eqs, new, P=None, C=None, defaults=None):
    """A False must name a point where the independently recomputed residual is nonzero."""
    pt = {str(k): v for k, v in _flat_point(cert.counterexample).items()}
    values = dict(defaults or {}, **{k: v for k, v in pt.items() if k not in {str(n) for n in new}})
    (worst,) = implicit_residuals(eqs, coords, new, values, P=P, C=C)
    return worst


EPS40 = R(1, 10**40)


def _perturbed_midpoint_constant():
    M = xyz_chart()
    new = sp.symbols("X1 Y1 Z1")
    eqs = midpoint_equations(M, new, lambda mid: P_CONST * S_QUAD * mid)
    eqs[0] = eqs[0] + EPS40 * h * new[0] ** 2
    return M, new, eqs


def test_perturbed_midpoint_constant_truth():
    """The constant-P midpoint rule with 1e-40 h X1^2 added to the first equation: the residual is
    of size 1e-42 at this point (60 and 90 digits agree), so the map is not Poisson."""
    M, new, eqs = _perturbed_midpoint_constant()
    pt = {"x": R(1, 2), "y": R(-3, 4), "z": R(2, 3), "h": R(1, 10), "a": R(3, 2)}
    (r60,) = implicit_residuals(eqs, M.coords, new, pt, P=P_CONST, dps=60)
    (r90,) = implicit_residuals(eqs, M.coords, new, pt, P=P_CONST, dps=90)
    assert mpmath.mpf(10) ** -45 < r60 < mpmath.mpf(10) ** -38 and abs(r60 - r90) < mpmath.mpf(10) ** -55


def test_perturbed_midpoint_constant_is_not_true():
    M, new, eqs = _perturbed_midpoint_constant()
    cert = certify_poisson(gc.ImplicitMap(M, M, eqs, new=list(new)), P_CONST)
    assert cert.holds is not True, "WRONG True: the residual is ~1e-42, not 0"
    if cert.holds is False:
        worst = _check_implicit_counterexample(cert, M.coords, eqs, new, P=P_CONST,
                                               defaults={"h": R(1, 10), "a": R(3, 2)})
        assert worst > mpmath.mpf(10) ** -55


def _perturbed_midpoint_rigid_body():
    M = so3_chart()
    new = sp.symbols("M1 M2 M3")
    eqs = midpoint_equations(M, new, _rigid_body_field)
    eqs[2] = eqs[2] + EPS40 * h
    return M, new, eqs


def test_perturbed_midpoint_rigid_body_casimir_truth():
    M, new, eqs = _perturbed_midpoint_rigid_body()
    pt = {"m1": R(1, 2), "m2": R(3, 4), "m3": R(-1, 5), "h": R(1, 10)}
    (d60,) = implicit_residuals(eqs, M.coords, new, pt, C=NORM(M.coords), dps=60)
    (d90,) = implicit_residuals(eqs, M.coords, new, pt, C=NORM(M.coords), dps=90)
    assert mpmath.mpf(10) ** -43 < d60 < mpmath.mpf(10) ** -38 and abs(d60 - d90) < mpmath.mpf(10) ** -55


def test_perturbed_midpoint_rigid_body_casimir_is_not_true():
    M, new, eqs = _perturbed_midpoint_rigid_body()
    cert = certify_preserves_casimir(gc.ImplicitMap(M, M, eqs, new=list(new)), NORM(M.coords), P_so3(M.coords))
    assert cert.holds is not True, "WRONG True: |m|^2 drifts by ~1e-41 per step"
    if cert.holds is False:
        worst = _check_implicit_counterexample(cert, M.coords, eqs, new, C=NORM(M.coords), defaults={"h": R(1, 10)})
        assert worst > mpmath.mpf(10) ** -55


# ----------------------------------------------------------------------------- errors


def _errors():
    from geomcheck import errors

    return errors.NotAPoissonStructureError, errors.NotACasimirError


def test_new_error_classes_are_invalid_argument_errors():
    NotPoisson, NotCasimir = _errors()
    assert issubclass(NotPoisson, InvalidArgumentError) and issubclass(NotCasimir, InvalidArgumentError)


@pytest.mark.parametrize("P_of", [
    lambda X: P_vec([-X[1], X[0], 1]),  # J_123 = 2
    lambda X: P_vec([-a * X[1], X[0], 1]),  # J_123 = 1 + a: not Poisson for all a
    lambda X: (1 + X[0] ** 2) * P_vec([-X[1], X[0], 1]),
], ids=["v=(-y,x,1)", "v=(-ay,x,1)", "(1+x^2)P"])
def test_poisson_map_of_non_poisson_tensor_raises(P_of):
    NotPoisson, _ = _errors()
    M = xyz_chart()
    P = P_of(M.coords)
    assert jacobi_residuals(P, M.coords)[(0, 1, 2)] != 0
    with pytest.raises(NotPoisson) as info:
        certify_poisson(gc.Map(M, M, list(M.coords)), P)  # the identity map: the premise alone fails
    msg = str(info.value)
    names = all(n in msg for n in ("x", "y", "z"))
    indices = any(t in msg for t in ("0, 1, 2", "1, 2, 3", "(0,1,2)", "(1,2,3)"))
    assert names or indices, f"the message does not name the failing Jacobi triple: {msg}"


def test_poisson_map_of_non_skew_tensor_raises():
    NotPoisson, _ = _errors()
    M = xyz_chart()
    with pytest.raises(NotPoisson):
        certify_poisson(gc.Map(M, M, list(M.coords)), sp.Matrix([[0, 1, 0], [1, 0, 0], [0, 0, 0]]))


@pytest.mark.parametrize("P_of", [
    P_so3,
    lambda X: F(*X) * P_vec([X[1], X[0], 2 * X[2]]),  # Poisson for every F (3D theorem)
    lambda X: P_vec([-X[1] * (sp.sin(X[0]) ** 2 + sp.cos(X[0]) ** 2), -X[0], 1]),
], ids=["so3", "F_grad_C", "hidden_trig"])
def test_poisson_map_of_poisson_tensor_does_not_raise(P_of):
    M = so3_chart() if P_of is P_so3 else xyz_chart()
    P = P_of(M.coords)
    cert = certify_poisson(gc.Map(M, M, list(M.coords)), P)
    assert cert.holds is not False  # the identity is a Poisson map of every Poisson tensor


def test_poisson_map_with_far_away_jacobi_failure_is_not_true():
    """Premise undecidable by sampling near the origin: the answer may be None or the error, never True."""
    NotPoisson, _ = _errors()
    M = xyz_chart()
    try:
        cert = certify_poisson(gc.Map(M, M, list(M.coords)), far_max(M.coords))
    except NotPoisson:
        return
    assert cert.holds is not True, "WRONG True: J_123 = 8e18 at x = 2e6"


def test_preserves_casimir_raises_for_non_casimir_even_if_preserved():
    """m1 is preserved by the rotation about axis 1 (m1 o phi = m1) but is not a Casimir (P e1 != 0)."""
    _, NotCasimir = _errors()
    M = so3_chart()
    phi = gc.Map(M, M, rotation_about_m1(M.coords, h * M.coords[0]))
    with pytest.raises(NotCasimir):
        certify_preserves_casimir(phi, M.coords[0], P_so3(M.coords))


def test_preserves_casimir_with_parameter_is_not_true():
    """C = m1^2 + m2^2 + a m3^2 is a Casimir only at a = 1; the claim (for all a) must not be True."""
    _, NotCasimir = _errors()
    M = so3_chart()
    m1, m2, m3 = M.coords
    phi = gc.Map(M, M, rotation_about_m1(M.coords, h * m1))
    try:
        cert = certify_preserves_casimir(phi, m1**2 + m2**2 + a * m3**2, P_so3(M.coords))
    except NotCasimir:
        return
    assert cert.holds is not True


def test_preserves_casimir_of_true_casimir_does_not_raise():
    M = so3_chart()
    cert = certify_preserves_casimir(gc.Map(M, M, [2 * c for c in M.coords]), NORM(M.coords), P_so3(M.coords))
    assert cert.holds is False  # |2 m|^2 = 4 |m|^2: a genuine failure, not an error
    pt = _flat_point(cert.counterexample)
    values, _ = _values([3 * NORM(M.coords)], pt)
    assert value_at(3 * NORM(M.coords), values)[0] == "nonzero"


@pytest.mark.parametrize("call", [
    lambda M, P: certify_poisson_structure(None, M),
    lambda M, P: certify_poisson_structure("P", M),
    lambda M, P: certify_poisson_structure(P, list(M.coords)),
    lambda M, P: certify_poisson_structure(sp.Matrix([[0, 1], [-1, 0]]), gc.Chart("x t", degrees=[0, 1])),
    lambda M, P: certify_poisson(None, P),
    lambda M, P: certify_poisson(gc.Map(M, M, list(M.coords)), None),
    lambda M, P: certify_casimir(None, P, M),
    lambda M, P: certify_casimir(sp.Matrix([1, 2, 3]), P, M),
    lambda M, P: certify_preserves_casimir(gc.Map(M, M, list(M.coords)), sp.Matrix(M.coords), P),
    lambda M, P: certify_poisson_structure(P * sp.Float(0.5), M),  # the API: floats where exact values are needed
], ids=["P_None", "P_str", "chart_list", "graded_chart", "map_None", "map_P_None", "C_None", "C_matrix",
        "preserves_C_matrix", "P_float"])
def test_bad_input_raises_geomcheck_error(call):
    M = so3_chart()
    try:
        call(M, P_so3(M.coords))
    except GeomcheckError:
        return
    except Exception as exc:  # noqa: BLE001
        fail(f"foreign exception: {short_trace(exc)}")
    fail("no error raised for bad input")


@pytest.mark.parametrize("shape", [(2, 3), (3, 2), (2, 2), (4, 4), (1, 3)])
def test_wrong_shape_raises_invalid_argument(shape):
    M = xyz_chart()
    P = sp.zeros(*shape)
    if shape[0] == shape[1]:
        P[0, 1], P[1, 0] = 1, -1
    with pytest.raises(InvalidArgumentError):
        certify_poisson_structure(P, M)
    with pytest.raises(InvalidArgumentError):
        certify_casimir(M.coords[0], P, M)


def test_map_between_different_charts_raises():
    M, N = gc.Chart("m1 m2 m3"), gc.Chart("n1 n2 n3")
    phi = gc.Map(M, N, list(M.coords))
    with pytest.raises(GeomcheckError):
        certify_poisson(phi, P_so3(M.coords))
    with pytest.raises(GeomcheckError):
        certify_preserves_casimir(phi, NORM(M.coords), P_so3(M.coords))
    implicit = gc.ImplicitMap(M, N, [n - m for n, m in zip(N.coords, M.coords)])
    with pytest.raises(GeomcheckError):
        certify_poisson(implicit, P_so3(M.coords))


def test_tensor_in_other_chart_raises():
    """P written in the coordinates of another chart of the same dimension."""
    M, N = gc.Chart("m1 m2 m3"), gc.Chart("n1 n2 n3")
    try:
        cert = certify_poisson_structure(P_so3(N.coords), M)
    except GeomcheckError:
        return
    # read as parameters, n1, n2, n3 make P constant on M: a Poisson tensor; never False
    assert cert.holds is not False


def test_float_perturbation_is_never_true():
    """The rank-2 tensor failing Jacobi by 1e-30 x4, with the 1e-30 written as a Float: an error
    (inexact input) or False/None, never True."""
    M = x4_chart()
    P = rank2_perturbed(M.coords, eps=sp.Float(1e-30))
    try:
        cert = certify_poisson_structure(P, M)
    except GeomcheckError:
        return
    assert cert.holds is not True


def test_certificates_typeset():
    M = so3_chart()
    P = P_so3(M.coords)
    certs = [certify_poisson_structure(P, M), certify_casimir(M.coords[0], P, M),
             certify_poisson(gc.Map(M, M, [2 * c for c in M.coords]), P)]
    for cert in certs:
        tex = cert.latex()
        assert isinstance(tex, str) and tex.strip()
