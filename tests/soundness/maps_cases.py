"""Adversarial certificate cases (symplectic, conformal, contact, preserves, conserves), as data.

Each case builds the claim with geomcheck's public constructors (Chart, Map, ImplicitMap,
forms) AND, separately, the same map in plain sympy (``coords``, ``exprs``, the form's
matrix or vector), from which ``independent_truth`` re-establishes the truth without
geomcheck:

* symplectic / preserves (2-forms): the residual matrix ``J^T Omega(phi(x)) J - Omega(x)``;
* conformal: ``J^T Omega J = k Omega`` with k a nonzero constant;
* contact: ``J^T alpha(phi(x)) = g(x) alpha(x)`` with g nowhere zero on the domain;
* conserves: ``H(phi(x)) - H(x)``.

Undefined functions are made concrete (``concrete``) for the truth check: one concrete V
refutes "for every V"; for claims that hold, a theorem is cited in ``why`` and the
concrete instance is checked at ``checks`` points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp
from sympy import Rational as R

import geomcheck as gc

h, gamma = sp.symbols("h gamma")
lam = sp.Symbol("lambda")
lam_pos = sp.Symbol("mu", positive=True)
V, W = sp.Function("V"), sp.Function("W")
d1, d2 = sp.symbols("d1 d2")
EPS160 = R(1, 10**160)
EPS40 = R(1, 10**40)

QUARTIC = sp.Lambda(d1, d1**4 / 4 + d1**3 / 3)  # a non-quadratic concrete V (V''' != 0)


@dataclass(frozen=True)
class CertCase:
    id: str
    cls: str
    kind: str  # symplectic | conformal | contact | preserves | conserves
    build: Callable[[], dict]
    truth: str  # "holds" | "fails"
    why: str
    must_decide: bool = False
    refusal_ok: bool = False  # a GeomcheckError is an acceptable answer (ill-posed claim)
    witness: dict | None = None  # {name: value}: where the independent residual is nonzero
    checks: tuple = ()  # points where the independent residual vanishes
    concrete: dict | None = None
    note: str = ""
    truth_from: str = ""  # another case whose explicit instance establishes this truth


# ----------------------------------------------------------------------------- builders

_PLAIN = [False]


def at(expr, mapping):
    """``expr`` with the mapping substituted simultaneously: geomcheck's ``substitute`` for
    the claim, a plain sympy ``Subs`` for the independent copy (see :func:`plain_build`)."""
    if _PLAIN[0]:
        keys = list(mapping)
        return sp.Subs(expr, tuple(keys), tuple(mapping[k] for k in keys))
    return gc.substitute(expr, mapping)


def plain_build(case):
    """The case built with plain sympy only (``Subs`` instead of geomcheck's jets): the
    independent copy used to establish the truth and to check counterexamples."""
    _PLAIN[0] = True
    try:
        return case.build()
    finally:
        _PLAIN[0] = False


def chart_qp(domain=None):
    return gc.Chart("q p", domain=domain) if domain else gc.Chart("q p")


def omega_matrix(dim):
    n = dim // 2
    Om = sp.zeros(dim, dim)
    for i in range(n):
        Om[i, n + i], Om[n + i, i] = 1, -1
    return Om


def form_from_matrix(M, Om):
    """The 2-form sum_{i<j} Om[i, j] dx_i ^ dx_j on chart M."""
    c = M.coords
    out = None
    for i in range(len(c)):
        for j in range(i + 1, len(c)):
            if Om[i, j] != 0:
                term = Om[i, j] * (M.d(c[i]) ^ M.d(c[j]))
                out = term if out is None else out + term
    return out if out is not None else 0 * (M.d(c[0]) ^ M.d(c[1]))


def verlet_1dof(M, extra_P=0, extra_Q=0, force=None, kick_arg_shift=0, kick2_arg=None):
    q, p = M.coords
    F = force if force is not None else V(q).diff(q)
    p_half = p - h / 2 * at(F, {q: q + kick_arg_shift}) if kick_arg_shift else p - h / 2 * F
    Q = q + h * p_half + extra_Q
    P = p_half - h / 2 * at(F, {q: Q if kick2_arg is None else kick2_arg(Q)}) + extra_P
    return [Q, P]


def verlet_ndof(n, extra=None):
    M = gc.Chart(" ".join([f"q{i}" for i in range(1, n + 1)] + [f"p{i}" for i in range(1, n + 1)]))
    qs, ps = M.coords[:n], M.coords[n:]
    grad = [V(*qs).diff(qi) for qi in qs]
    ph = [ps[i] - h / 2 * grad[i] for i in range(n)]
    Q = [qs[i] + h * ph[i] for i in range(n)]
    at_Q = dict(zip(qs, Q))
    P = [ph[i] - h / 2 * at(grad[i], at_Q) for i in range(n)]
    if extra:
        for i, e in extra.items():
            P[i] = P[i] + e(qs, ps)
    return M, Q + P


def _sym(M, exprs, Om=None, domain=None):
    Om = omega_matrix(M.dim) if Om is None else Om
    return {"chart": M, "phi": gc.Map(M, M, exprs), "form": form_from_matrix(M, Om),
                "coords": list(M.coords), "exprs": list(exprs), "matrix": Om, "domain": domain}


def contact_map(g):
    """(x, p, z) -> (x, g p + z g', g z): phi^*(dz - p dx) = g (dz - p dx)."""
    M = gc.Chart("x p z")
    x, p, z = M.coords
    gx = g(x)
    exprs = [x, gx * p + z * sp.diff(gx, x), gx * z]
    return M, exprs


def _contact(M, exprs, domain=None):
    x, p, z = M.coords
    return {"chart": M, "phi": gc.Map(M, M, exprs), "form": M.d(z) - p * M.d(x), "coords": list(M.coords),
                "exprs": list(exprs), "vector": lambda X: sp.Matrix([-X[1], 0, 1]), "domain": domain}


def b_verlet_generic():
    M = chart_qp()
    return _sym(M, verlet_1dof(M))


def b_euler_oscillator():
    M = chart_qp()
    q, p = M.coords
    return _sym(M, [q + h * p, p - h * q])


def b_euler_generic():
    M = chart_qp()
    q, p = M.coords
    return _sym(M, [q + h * p, p - h * V(q).diff(q)])


def b_verlet_plus(extra):
    def build():
        M = chart_qp()
        q, p = M.coords
        return _sym(M, verlet_1dof(M, extra_P=extra(q, p)))
    return build


def b_near_symplectic():
    M = chart_qp()
    q, p = M.coords
    return _sym(M, [q + h * p, p * (1 + EPS40 * h**3)])


def b_clamped_kick(generic):
    def build():
        M = chart_qp()
        q, p = M.coords
        force = V(q).diff(q) if generic else q**3
        P = sp.Max(sp.Min(p - h * force, 1), -1)
        return _sym(M, [q + h * P, P])
    return build


def b_drift_limiter():
    M = chart_qp()
    q, p = M.coords
    P = p - h * q**3
    return _sym(M, [q + h * sp.Max(sp.Min(P, 1), -1), P])


def b_verlet_6dof(extra=None):
    def build():
        M, exprs = verlet_ndof(6, extra)
        return _sym(M, exprs)
    return build


def b_verlet_force_shift():
    M = chart_qp()
    q, p = M.coords
    F = V(q).diff(q)
    p_half = p - h / 2 * at(F, {q: q + R(1, 10**30)})
    Q = q + h * p_half
    P = p_half - h / 2 * at(F, {q: Q + R(1, 10**30)})
    return _sym(M, [Q, P])


def b_verlet_force_p_dependent():
    M = chart_qp()
    q, p = M.coords
    F = V(q).diff(q)
    p_half = p - h / 2 * at(F, {q: q + R(1, 10**30) * p})
    Q = q + h * p_half
    P = p_half - h / 2 * at(F, {q: Q})
    return _sym(M, [Q, P])


def b_verlet_third_derivative():
    M = chart_qp()
    q, p = M.coords
    return _sym(M, verlet_1dof(M, extra_P=h**5 * V(q).diff(q, 3) * p))


def b_nested_VW():
    M = chart_qp()
    q, p = M.coords
    F = sp.diff(V(W(q)), q)
    p_half = p - h / 2 * F
    Q = q + h * p_half
    P = p_half - h / 2 * at(F, {q: Q})
    return _sym(M, [Q, P])


def b_polar_abs(domain):
    def build():
        M = gc.Chart("r theta", domain=domain) if domain else gc.Chart("r theta")
        r, th = M.coords
        return _sym(M, [sp.sqrt(r**2), th + h], domain=domain)
    return build


def b_polar_area_rotation():
    M = gc.Chart("r theta", domain={"r": (0, sp.oo)})
    r, th = M.coords
    Om = sp.Matrix([[0, r], [-r, 0]])
    return _sym(M, [r, th + h], Om, domain={"r": (0, sp.oo)})


def b_degenerate_q_form(domain):
    def build():
        M = chart_qp(domain)
        q, p = M.coords
        return _sym(M, [q, p + h], sp.Matrix([[0, q], [-q, 0]]), domain=domain)
    return build


def b_zero_form():
    M = chart_qp()
    q, p = M.coords
    return _sym(M, [q + h * p, p], sp.zeros(2, 2))


def b_degenerate_4d():
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    Om = sp.zeros(4, 4)
    Om[0, 2], Om[2, 0] = 1, -1
    return _sym(M, [q1, q2 + h * p2**2, p1, p2], Om)


def b_midpoint(defect=0, linear=False):
    def build():
        M = chart_qp()
        q, p = M.coords
        Qs, Ps = sp.symbols("Q P")
        mid = (q + Qs) / 2
        force = mid if linear else at(V(q).diff(q), {q: mid})
        eqs = [Qs - q - h * (p + Ps) / 2, Ps - p + h * force + defect * Ps]
        phi = gc.ImplicitMap(M, M, eqs, new=[Qs, Ps])
        out = {"chart": M, "phi": phi, "form": M.d(q) ^ M.d(p), "coords": [q, p], "matrix": omega_matrix(2)}
        if linear:  # solve the linear equations exactly: the same map, explicit
            sol = sp.solve(eqs, [Qs, Ps], dict=True)[0]
            out["exprs"] = [sp.together(sol[Qs]), sp.together(sol[Ps])]
        else:
            out["exprs"] = None
        return out
    return build


def b_input_form(variant):
    """Stormer-Verlet on a generic V(q1, q2); grad V at the new point written five ways."""

    def build():
        M = gc.Chart("q1 q2 p1 p2")
        q1, q2, p1, p2 = M.coords
        qs, ps = (q1, q2), (p1, p2)
        grad = [V(q1, q2).diff(qi) for qi in qs]
        ph = [ps[i] - h / 2 * grad[i] for i in range(2)]
        Q = [qs[i] + h * ph[i] for i in range(2)]
        ys = sp.symbols("y1 y2")
        s = sp.Symbol("s_aux")
        if variant == "substitute":
            F = [at(g, dict(zip(qs, Q))) for g in grad]
        elif variant == "Subs":
            F = [sp.Subs(g, qs, tuple(Q)) for g in grad]
        elif variant == "subs_simultaneous":
            F = [sp.diff(V(*ys), yi).subs(dict(zip(ys, Q)), simultaneous=True) for yi in ys]
        elif variant == "Derivative_subs":
            F = [sp.Derivative(V(*ys), yi).subs(list(zip(ys, Q))) for yi in ys]
        elif variant == "chain_rule":
            F = [sp.diff(V(Q[0] + s * int(i == 0), Q[1] + s * int(i == 1)), s).subs(s, 0) for i in range(2)]
        elif variant == "subs_simultaneous_captured":
            # sympy captures the derivative's own variable: d/dq1 V(q1, Q2(q1, ...)) at q1 = Q1,
            # a TOTAL derivative -- a different (non-symplectic) map
            F = [g.subs({q1: Q[0], q2: Q[1]}, simultaneous=True) for g in grad]
        else:  # pragma: no cover
            raise ValueError(variant)
        P = [ph[i] - h / 2 * F[i] for i in range(2)]
        return _sym(M, Q + P)

    return build


def b_conformal(exprs_fn, domain=None):
    def build():
        M = chart_qp(domain)
        q, p = M.coords
        return _sym(M, exprs_fn(q, p), domain=domain)
    return build


def b_damped_verlet_subs():
    M = chart_qp()
    q, p = M.coords
    u = sp.Symbol("u_aux")
    p1 = sp.exp(-gamma * h / 2) * p
    p2 = p1 - h / 2 * V(q).diff(q)
    Q = q + h * p2
    P = sp.exp(-gamma * h / 2) * (p2 - h / 2 * sp.Subs(V(u).diff(u), u, Q))
    return _sym(M, [Q, P])


def b_contact(g, domain=None):
    def build():
        M, exprs = contact_map(g)
        if domain:
            M2 = gc.Chart("x p z", domain=domain)
            exprs = [e.xreplace(dict(zip(M.coords, M2.coords))) for e in exprs]
            M = M2
        return _contact(M, exprs, domain)
    return build


def b_contact_literal():
    M = gc.Chart("x p z")
    x, p, z = M.coords
    return _contact(M, [x, (1 - x**2) * p, (1 - x**2) * z])


def b_contact_scaling(param):
    def build():
        M = gc.Chart("x p z")
        x, p, z = M.coords
        return _contact(M, [x, param * p, param * z])
    return build


def b_contact_translation():
    M = gc.Chart("x p z")
    x, p, z = M.coords
    return _contact(M, [x + h, p, z])


def b_conserves(kind):
    def build():
        M = chart_qp()
        q, p = M.coords
        H = (q**2 + p**2) / 2
        if kind == "verlet":
            ph = p - h / 2 * q
            Q = q + h * ph
            exprs = [Q, ph - h / 2 * Q]
            return {"chart": M, "phi": gc.Map(M, M, exprs), "H": H, "coords": [q, p], "exprs": exprs}
        if kind in ("rotation", "rotation_tiny"):
            scale = 1 + EPS40 if kind == "rotation_tiny" else 1
            exprs = [scale * (q * sp.cos(h) + p * sp.sin(h)), -q * sp.sin(h) + p * sp.cos(h)]
            return {"chart": M, "phi": gc.Map(M, M, exprs), "H": H, "coords": [q, p], "exprs": exprs}
        Qs, Ps = sp.symbols("Q P")
        defect = h**120 * Ps if kind == "midpoint_h120" else 0
        eqs = [Qs - q - h * (p + Ps) / 2, Ps - p + h * (q + Qs) / 2 + defect]
        sol = sp.solve(eqs, [Qs, Ps], dict=True)[0]
        return {"chart": M, "phi": gc.ImplicitMap(M, M, eqs, new=[Qs, Ps]), "H": H, "coords": [q, p],
                    "exprs": [sp.together(sol[Qs]), sp.together(sol[Ps])]}
    return build


def b_preserves(kind):
    def build():
        M = chart_qp()
        q, p = M.coords
        if kind == "shear_1form":
            exprs = [q + h * p, p]
            return {"chart": M, "phi": gc.Map(M, M, exprs), "form": p * M.d(q), "coords": [q, p], "exprs": exprs,
                        "vector": lambda X: sp.Matrix([X[1], 0])}
        exprs = [p, -q]
        return _sym(M, exprs)
    return build


S, C, K, P = "symplectic", "conformal", "contact", "preserves"
TINY, PW, DOM, FORMS, JETS, PARAM, BASIC = ("tiny", "piecewise", "domain", "input-forms", "undefined-functions",
                                            "parameters", "basic")
PT = {"q": R(1, 3), "p": -R(2, 5), "h": R(1, 4)}
PT2 = {"q": -R(3, 2), "p": R(1, 7), "h": R(2, 3)}
QUARTIC2 = sp.Lambda((d1, d2), d1**4 / 4 + d1 * d2**2 + d2**4 / 5)
SEXTIC6 = sp.Lambda(sp.symbols("e1:7"), sum(e**4 / 4 for e in sp.symbols("e1:7")) + sp.Mul(*sp.symbols("e1:3")))

PT_2DOF = {"q1": R(1, 3), "q2": -R(1, 2), "p1": R(2, 5), "p2": R(1, 7), "h": R(1, 4)}
PT_6DOF = {**{f"q{i}": R(i, 7) for i in range(1, 7)}, **{f"p{i}": R(-i, 5) for i in range(1, 7)}, "h": R(1, 3)}

CERT_CASES = [
    # ---------------------------------------------------------------- symplectic: basics
    CertCase("verlet_generic", BASIC, S, b_verlet_generic, "holds",
             "Stormer-Verlet is a composition of three shears (kick, drift, kick), each symplectic",
             must_decide=True, checks=(PT, PT2), concrete={V: QUARTIC}),
    CertCase("euler_oscillator", BASIC, S, b_euler_oscillator, "fails",
             "explicit Euler on q' = p, p' = -q has det J = 1 + h^2", must_decide=True, witness=PT),
    CertCase("euler_generic", BASIC, S, b_euler_generic, "fails",
             "det J = 1 + h^2 V''(q); V = quartic refutes", must_decide=True, witness=PT, concrete={V: QUARTIC}),
    CertCase("nested_V_of_W_verlet", JETS, S, b_nested_VW, "holds",
             "Verlet for H = p^2/2 + V(W(q)) (a composition of shears); nested undefined functions",
             must_decide=True, checks=(PT,), concrete={V: sp.Lambda(d1, d1**3 / 3 + d1**2), W: sp.Lambda(d1, d1**2 + d1)}),
    # ---------------------------------------------------------------- tiny perturbations
    CertCase("verlet_plus_1e_160_p", TINY, S, b_verlet_plus(lambda q, p: EPS160 * p), "fails",
             "P + 1e-160 p multiplies det J by (1 + 1e-160) (dQ ^ d(eps p) = eps dQ/dq dq^dp, dQ/dq = 1 - h^2 V''/2)",
             witness=PT, concrete={V: QUARTIC}),
    CertCase("verlet_plus_exp_m400_p", TINY, S, b_verlet_plus(lambda q, p: sp.exp(-400) * p), "fails",
             "as above with eps = exp(-400)", witness=PT, concrete={V: QUARTIC}),
    CertCase("verlet_plus_h20_q3", TINY, S, b_verlet_plus(lambda q, p: h**20 * q**3), "fails",
             "dQ ^ d(h^20 q^3) = 3 h^20 q^2 dQ^dq = -3 h^21 q^2 dq^dp != 0", must_decide=True, witness=PT,
             concrete={V: QUARTIC}),
    CertCase("near_symplectic_1e_40_h3", TINY, S, b_near_symplectic, "fails",
             "(q + h p, p (1 + 1e-40 h^3)) has det J = 1 + 1e-40 h^3", must_decide=True, witness=PT),
    CertCase("verlet_6dof_tiny_p6", TINY, S, b_verlet_6dof({5: lambda qs, ps: R(1, 10**50) * ps[5]**2}), "fails",
             "6-DOF Verlet with P6 + 1e-50 p6^2: the p6-p6 block gains 2e-50 p6 dQ6/dq6", witness=PT_6DOF,
             concrete={V: SEXTIC6}),
    CertCase("verlet_6dof_p6", TINY, S, b_verlet_6dof({5: lambda qs, ps: h**3 * qs[5] * ps[5]}), "fails",
             "6-DOF Verlet with P6 + h^3 q6 p6 (one of 12 coordinates perturbed)", must_decide=True,
             witness=PT_6DOF, concrete={V: SEXTIC6}),
    CertCase("verlet_6dof", BASIC, S, b_verlet_6dof(), "holds", "6-DOF Stormer-Verlet, composition of shears",
             must_decide=True, checks=(PT_6DOF,), concrete={V: SEXTIC6}),
    CertCase("verlet_force_shifted_1e_30", JETS, S, b_verlet_force_shift, "holds",
             "kicks by the gradient of V(. + 1e-30): still shears, still symplectic", checks=(PT,),
             concrete={V: QUARTIC}),
    CertCase("verlet_force_p_dependent_1e_30", TINY, S, b_verlet_force_p_dependent, "fails",
             "the first kick p - h/2 V'(q + 1e-30 p) depends on p: its det is 1 - 1e-30 h V''/2", witness=PT,
             concrete={V: QUARTIC}),
    CertCase("verlet_third_derivative_term", JETS, S, b_verlet_third_derivative, "fails",
             "P + h^5 V'''(q) p: symplectic for quadratic V only; the quartic V refutes", must_decide=True,
             witness=PT, concrete={V: QUARTIC}),
    CertCase("midpoint_implicit_generic", BASIC, S, b_midpoint(), "holds",
             "the implicit midpoint rule is symplectic (a Gauss method; Hairer-Lubich-Wanner VI.4)"),
    CertCase("midpoint_linear_defect_h120", TINY, S, b_midpoint(defect=h**120, linear=True), "fails",
             "equation (1 + h^120) P = p - h (q + Q)/2: det J != 1 (exact solve; checked at h = 1/4)",
             witness=PT),
    CertCase("midpoint_generic_defect_h120", TINY, S, b_midpoint(defect=h**120), "fails",
             "for V = q^2/2 this is the linear case above, so not symplectic for every V",
             witness=PT, truth_from="midpoint_linear_defect_h120"),
    # ---------------------------------------------------------------- piecewise
    CertCase("clamped_kick", PW, S, b_clamped_kick(False), "fails",
             "where |p - h q^3| > 1 the new P is constant: det J = 0", witness={"q": 0, "p": 3, "h": R(1, 4)}),
    CertCase("clamped_kick_generic", PW, S, b_clamped_kick(True), "fails",
             "as above for any V (V = quartic, p = 3 is clamped)", witness={"q": 0, "p": 3, "h": R(1, 4)},
             concrete={V: QUARTIC}),
    CertCase("drift_velocity_limiter", PW, S, b_drift_limiter, "holds",
             "kick then a drift by clamp(P): both shears, det J = 1 wherever differentiable",
             checks=(PT, {"q": 0, "p": 3, "h": R(1, 4)}),
             note="not C^1 on |P| = 1: True (a.e.) or None acceptable, a False is wrong"),
    # ---------------------------------------------------------------- domains
    CertCase("polar_abs_r_positive", DOM, S, b_polar_abs({"r": (0, sp.oo)}), "holds",
             "sqrt(r^2) = r for r > 0: a rotation in theta", checks=({"r": 2, "theta": 1, "h": R(1, 3)},)),
    CertCase("polar_abs_r_real", DOM, S, b_polar_abs(None), "fails",
             "for r < 0, sqrt(r^2) = -r and det J = -1", witness={"r": -2, "theta": 1, "h": R(1, 3)}),
    CertCase("area_form_rotation_r_positive", DOM, S, b_polar_area_rotation, "holds",
             "r dr^dtheta is non-degenerate for r > 0 and preserved by theta -> theta + h",
             checks=({"r": 2, "theta": 1, "h": R(1, 3)},)),
    CertCase("q_form_on_1_2", DOM, S, b_degenerate_q_form({"q": (1, 2)}), "holds",
             "q dq^dp is symplectic on q in (1, 2) and preserved by p -> p + h",
             checks=({"q": R(3, 2), "p": 1, "h": R(1, 3)},)),
    # ---------------------------------------------------------------- ill-posed claims
    CertCase("degenerate_q_form_real", PARAM, S, b_degenerate_q_form(None), "fails",
             "q dq^dp vanishes at q = 0: not a symplectic form on the real line", refusal_ok=True,
             witness={"q": 0, "p": 1, "h": R(1, 3)}),
    CertCase("zero_form", PARAM, S, b_zero_form, "fails", "the zero 2-form is not symplectic", refusal_ok=True,
             witness=PT),
    CertCase("degenerate_4d_form", PARAM, S, b_degenerate_4d, "fails",
             "dq1^dp1 has rank 2 on a 4-dimensional chart", refusal_ok=True,
             witness={"q1": 1, "q2": 2, "p1": 3, "p2": 4, "h": R(1, 3)}),
    # ---------------------------------------------------------------- input forms
    *[CertCase(f"input_form_{v}", FORMS, S, b_input_form(v), "holds",
               "2-DOF Stormer-Verlet on a generic V, grad V at the new point written as " + v,
               must_decide=True, checks=(PT_2DOF,), concrete={V: QUARTIC2})
      for v in ("substitute", "Subs", "subs_simultaneous", "Derivative_subs", "chain_rule")],
    CertCase("input_form_subs_simultaneous_captured", FORMS, S, b_input_form("subs_simultaneous_captured"), "fails",
             "sympy's subs(simultaneous=True) on Derivative(V(q1, q2), q1) with q2 -> Q2(q1, ...) builds "
             "d/dq1 V(q1, Q2(q1)) at q1 = Q1, a total derivative: a different map, not symplectic (quartic V)",
             witness=PT_2DOF, concrete={V: QUARTIC2},
             note="the truth is that of the expression sympy builds, not of what the user meant"),
    # ---------------------------------------------------------------- conformal
    CertCase("conformal_k_zero", BASIC, C, b_conformal(lambda q, p: [q, sp.S.Zero]), "fails",
             "phi^* omega = 0: k = 0 is not a (nonzero) conformal factor", must_decide=True, witness=PT),
    CertCase("conformal_k_zero_collapse", BASIC, C, b_conformal(lambda q, p: [q + p, q + p]), "fails",
             "d(q + p) ^ d(q + p) = 0: k = 0", must_decide=True, witness=PT),
    CertCase("conformal_k_nonconstant", BASIC, C, b_conformal(lambda q, p: [q, (1 + q**2) * p]), "fails",
             "k = 1 + q^2 is not constant", must_decide=True, witness=PT),
    CertCase("conformal_damped_shear", BASIC, C, b_conformal(lambda q, p: [q + h * p, sp.exp(-gamma * h) * p]),
             "holds", "det J = exp(-gamma h), a nonzero constant", must_decide=True,
             checks=({"q": 1, "p": 2, "h": R(1, 3), "gamma": R(1, 2)},)),
    CertCase("conformal_near_symplectic", TINY, C,
             b_conformal(lambda q, p: [q + h * p, p * (1 + EPS40 * h**2)]), "holds",
             "k = 1 + 1e-40 h^2 >= 1, a nonzero constant in (q, p)", must_decide=True, checks=(PT,)),
    CertCase("conformal_near_symplectic_h3", PARAM, C, b_near_symplectic, "fails",
             "k = 1 + 1e-40 h^3 is constant in (q, p) but vanishes at the real step h = -10**(40/3)",
             witness={"q": 0, "p": 0, "h": -sp.Integer(10)**R(40, 3)},
             note="judgement: the step h ranges over the real line (a negative step included)"),
    CertCase("conformal_damped_verlet_Subs", FORMS, C, b_damped_verlet_subs, "holds",
             "kick and drift are shears, the two damping steps scale p by exp(-gamma h/2): k = exp(-gamma h)",
             must_decide=True, checks=({**PT, "gamma": R(1, 2)},), concrete={V: QUARTIC}),
    CertCase("conformal_gamma_scaling_real", PARAM, C, b_conformal(lambda q, p: [q, gamma * p]), "fails",
             "k = gamma, which is 0 at gamma = 0 (gamma ranges over the real line)",
             witness={"q": 1, "p": 2, "gamma": 0},
             note="judgement: a parameter value where the factor vanishes"),
    CertCase("conformal_mu_scaling_positive", PARAM, C, b_conformal(lambda q, p: [q, lam_pos * p]), "holds",
             "k = mu > 0", checks=({"q": 1, "p": 2, "mu": 3},)),
    # ---------------------------------------------------------------- contact
    CertCase("contact_factor_vanishes_real", "contact", K, b_contact(lambda x: 1 - x**2), "fails",
             "g = 1 - x^2 vanishes at x = +-1: phi^* eta = 0 there, not a contact map",
             witness={"x": 1, "p": 2, "z": 3}),
    CertCase("contact_factor_vanishes_outside_domain", DOM, K, b_contact(lambda x: 1 - x**2, {"x": (-R(1, 2), R(1, 2))}),
             "holds", "g = 1 - x^2 >= 3/4 on (-1/2, 1/2)", checks=({"x": R(1, 4), "p": 2, "z": 3},)),
    CertCase("contact_literal_not_proportional", "contact", K, b_contact_literal, "fails",
             "phi^* eta = (1 - x^2) dz - (2 x z + (1 - x^2) p) dx is not proportional to dz - p dx when x z != 0",
             must_decide=True, witness={"x": R(1, 2), "p": 2, "z": 3}),
    CertCase("contact_factor_x_squared", "contact", K, b_contact(lambda x: x**2), "fails",
             "g = x^2 vanishes at x = 0", witness={"x": 0, "p": 2, "z": 3}),
    CertCase("contact_factor_x_squared_plus_tiny", TINY, K, b_contact(lambda x: x**2 + EPS40), "holds",
             "g = x^2 + 1e-40 > 0 everywhere", checks=({"x": 0, "p": 2, "z": 3}, {"x": 5, "p": -1, "z": 1})),
    CertCase("contact_factor_exp", "contact", K, b_contact(sp.exp), "holds", "g = e^x > 0",
             must_decide=False, checks=({"x": 1, "p": 2, "z": 3},)),
    CertCase("contact_translation", "contact", K, b_contact_translation, "holds", "g = 1", must_decide=True,
             checks=({"x": 1, "p": 2, "z": 3, "h": R(1, 3)},)),
    CertCase("contact_lambda_scaling_real", PARAM, K, b_contact_scaling(lam), "fails",
             "g = lambda vanishes at lambda = 0 (lambda ranges over the real line)",
             witness={"x": 1, "p": 2, "z": 3, "lambda": 0},
             note="judgement: a parameter value where the factor vanishes"),
    CertCase("contact_mu_scaling_positive", PARAM, K, b_contact_scaling(lam_pos), "holds", "g = mu > 0",
             checks=({"x": 1, "p": 2, "z": 3, "mu": 2},)),
    # ---------------------------------------------------------------- preserves / conserves
    CertCase("conserves_verlet_energy", BASIC, "conserves", b_conserves("verlet"), "fails",
             "Verlet does not conserve (q^2 + p^2)/2 exactly (H o phi - H = O(h^3) != 0)", must_decide=True,
             witness=PT),
    CertCase("conserves_midpoint_quadratic", BASIC, "conserves", b_conserves("midpoint"), "holds",
             "the midpoint rule conserves quadratic invariants (Cooper's theorem)", checks=(PT,)),
    CertCase("conserves_midpoint_defect_h120", TINY, "conserves", b_conserves("midpoint_h120"), "fails",
             "the O(h^120) defect scales P: H o phi - H != 0 (exact solve; h = 1/4)", witness=PT),
    CertCase("conserves_exact_rotation", BASIC, "conserves", b_conserves("rotation"), "holds",
             "rotation by h conserves q^2 + p^2 (cos^2 + sin^2 = 1)", must_decide=True, checks=(PT,)),
    CertCase("conserves_rotation_scaled_1e_40", TINY, "conserves", b_conserves("rotation_tiny"), "fails",
             "Q scaled by 1 + 1e-40: H changes by about 1e-40 Q^2", witness=PT),
    CertCase("preserves_shear_1form", BASIC, P, b_preserves("shear_1form"), "fails",
             "phi^*(p dq) = p dq + h p dp", must_decide=True, witness={"q": 1, "p": 2, "h": R(1, 3)}),
    CertCase("preserves_rotation_2form", BASIC, P, b_preserves("rotation"), "holds",
             "(p, -q) has det 1", must_decide=True, checks=({"q": 1, "p": 2},)),
]

CERT_BY_ID = {c.id: c for c in CERT_CASES}
assert len(CERT_BY_ID) == len(CERT_CASES)
