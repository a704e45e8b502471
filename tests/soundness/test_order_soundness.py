"""Adversarial soundness suite of order claims: ``map_order`` / ``certify_order`` of one-step maps
and ``composition_order`` of composition methods (issue 13, classes 2, 8 and 10).

Truths are established independently:

* maps: the Taylor coefficients in h of the map (``sympy.series``, which handles the removable
  singularities of ``sinc`` and of ``(e^{2h} - 1)/(e^h - 1)``) against the Lie series of the
  exact flow (repeated plain differentiation), compared at a sample point with ``value_at``
  (exact or 300-2400 digits); generic V made concrete;
* compositions of a symmetric second-order base method: consistency ``sum g = 1``, the only
  weight-3 condition ``sum g^3 = 0`` and the weight-5 condition ``sum g^5 = 0`` (the
  coefficients of the letters A3 and A5 in the BCH expansion; for palindromic compositions the
  even weights vanish identically), evaluated with ``value_at``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import mpmath
import pytest
import sympy as sp
from sympy import Rational as R

import geomcheck as gc

from .independent import concretize, value_at
from .judge import fail, short_trace

h, L = sp.symbols("h L")
V = sp.Function("V")
d1 = sp.Symbol("d1")
QUARTIC = sp.Lambda(d1, d1**4 / 4 + d1**3 / 3)


# ----------------------------------------------------------------------------- independent order of a map


def map_order_truth(exprs, coords, field, point, max_order, concrete=None):
    """Minimum over coordinates of the first disagreeing power minus one (capped at max_order)."""
    best = max_order
    for x, e in zip(coords, exprs):
        e_c = concretize(e, concrete) if concrete else e
        f_c = [concretize(f, concrete) for f in field] if concrete else field
        ser = sp.series(e_c, h, 0, max_order + 2).removeO()
        term = x
        for k in range(max_order + 2):
            if k > 0:
                term = sp.expand(sum(fj * sp.diff(term, xj) for fj, xj in zip(f_c, coords)))
            diff = sp.sympify(ser.coeff(h, k) - term / factorial(k))
            verdict, detail = value_at(diff, point)
            assert verdict in ("zero", "nonzero"), f"[h^{k}] of {x}: {verdict} ({detail})"
            if verdict == "nonzero":
                best = min(best, max(k - 1, 0))  # an inconsistent map (phi_0 != id) has "order 0"
                break
    return best


# ----------------------------------------------------------------------------- the maps


def chart(names="q p", domain=None):
    return gc.Chart(names, domain=domain) if domain else gc.Chart(names)


def m_verlet(extra_P=0):
    M = chart()
    q, p = M.coords
    F = V(q).diff(q)
    ph = p - h / 2 * F
    Q = q + h * ph
    P = ph - h / 2 * sp.Subs(V(d1).diff(d1), d1, Q) + extra_P
    return M, [Q, P], [p, -F]


def m_euler():
    M = chart()
    q, p = M.coords
    return M, [q + h * p, p - h * q], [p, -q]


def m_sinc_flow(extra_P=0):
    M = chart()
    q, p = M.coords
    return M, [q * sp.cos(h) + p * h * sp.sinc(h), p * sp.cos(h) - q * h * sp.sinc(h) + extra_P], [p, -q]


def m_trig_flow(extra_P=0):
    M = chart()
    q, p = M.coords
    return M, [q * sp.cos(h) + p * sp.sin(h), p * sp.cos(h) - q * sp.sin(h) + extra_P], [p, -q]


def m_exp_ratio():
    M = chart("y")
    (y,) = M.coords
    return M, [y * (sp.exp(2 * h) - 1) / (sp.exp(h) - 1) - y], [y]


def m_etd(nonlinear, unevaluated=False):
    M = chart("y")
    (y,) = M.coords
    N = y**2 if nonlinear else sp.S.One
    phi1 = (sp.exp(h * L) - 1) / (h * L)
    step = sp.Mul(h, phi1, evaluate=False) if unevaluated else h * phi1
    return M, [sp.exp(h * L) * y + step * N], [L * y + N]


def m_not_identity(shift):
    M = chart()
    q, p = M.coords
    return M, [q + shift + h * p, p - h * q], [p, -q]


def m_sqrt(domain):
    M = chart(domain=domain)
    q, p = M.coords
    return M, [sp.sqrt(q**2) + h * p, p - h * q], [p, -q]


def m_three_oscillators_tiny():
    M = chart("q1 q2 q3 p1 p2 p3")
    qs, ps = M.coords[:3], M.coords[3:]
    Q = [qs[i] * sp.cos(h) + ps[i] * sp.sin(h) for i in range(3)]
    P = [ps[i] * sp.cos(h) - qs[i] * sp.sin(h) for i in range(3)]
    P[2] = P[2] + R(1, 10**30) * h**3 * qs[2]
    return M, Q + P, list(ps) + [-q for q in qs]


@dataclass(frozen=True)
class OrderCase:
    id: str
    build: object
    order: int  # the truth (capped at max_order)
    max_order: int
    why: str
    point: dict
    must: bool = True
    concrete: dict | None = None
    domain_note: str = ""


PT = {"q": R(1, 3), "p": -R(2, 5)}
ORDER_CASES = [
    OrderCase("verlet_generic", lambda: m_verlet(), 2, 4, "Stormer-Verlet has order 2", PT, concrete={V: QUARTIC}),
    OrderCase("euler_oscillator", m_euler, 1, 4, "explicit Euler has order 1", PT),
    OrderCase("exact_flow_sinc", lambda: m_sinc_flow(), 6, 6, "the exact flow written with sinc: every order", PT),
    OrderCase("exact_flow_exp_ratio", m_exp_ratio, 6, 6,
              "(e^{2h} - 1)/(e^h - 1) - 1 = e^h: the exact flow of y' = y, removable singularity at h = 0",
              {"y": R(3, 7)}),
    OrderCase("etd_linear_exact", lambda: m_etd(False), 6, 6,
              "exponential Euler is exact for y' = L y + 1", {"y": R(3, 7), "L": R(-5, 3)}),
    OrderCase("etd_linear_exact_unevaluated_phi1", lambda: m_etd(False, True), 6, 6,
              "the same with h * phi1(h L) kept unevaluated (removable singularity at h = 0)",
              {"y": R(3, 7), "L": R(-5, 3)}),
    OrderCase("etd_nonlinear", lambda: m_etd(True), 1, 4, "exponential Euler has order 1 for y' = L y + y^2",
              {"y": R(3, 7), "L": R(-5, 3)}),
    OrderCase("exact_flow_plus_1e_40_h4", lambda: m_trig_flow(R(1, 10**40) * h**4 * sp.Symbol("q")), 3, 6,
              "a 1e-40 h^4 q defect in P: the h^4 coefficient differs, order exactly 3", PT),
    OrderCase("exact_flow_sinc_plus_1e_40_h6", lambda: m_sinc_flow(R(1, 10**40) * h**6 * sp.Symbol("q")), 5, 6,
              "a 1e-40 h^6 q defect: order exactly 5", PT),
    OrderCase("verlet_plus_h20_q3", lambda: m_verlet(h**20 * sp.Symbol("q")**3), 2, 5,
              "Verlet's h^3 term already differs; the h^20 defect changes nothing below", PT, concrete={V: QUARTIC}),
    OrderCase("not_identity_at_h0", lambda: m_not_identity(1), 0, 3,
              "phi_0 = (q + 1, p) != id: local error O(1), not even order 1 (map_order reports 0)", PT),
    OrderCase("not_identity_1e_100", lambda: m_not_identity(R(1, 10**100)), 0, 3,
              "phi_0 = (q + 1e-100, p) != id: not even order 1", PT),
    OrderCase("three_oscillators_tiny_p3", m_three_oscillators_tiny, 2, 4,
              "exact flow of three oscillators, 1e-30 h^3 q3 added to P3 only: order exactly 2",
              {"q1": R(1, 3), "q2": R(1, 5), "q3": R(2, 7), "p1": -R(2, 5), "p2": R(1, 2), "p3": R(3, 4)}),
    OrderCase("sqrt_map_on_positive_q", lambda: m_sqrt({"q": (0, sp.oo)}), 1, 3,
              "sqrt(q^2) = q for q > 0: explicit Euler, order 1", PT | {"q": R(1, 3)}),
]


def _field(M, field):
    return gc.VectorField(M, dict(zip(M.coords, field)))


@pytest.mark.parametrize("case", ORDER_CASES, ids=[c.id for c in ORDER_CASES])
def test_order_truth(case):
    M, exprs, field = case.build()
    coords = list(M.coords)
    by_name = {s.name: s for s in coords}
    by_name.update({"L": L})
    point = {by_name[k]: v for k, v in case.point.items()}
    got = map_order_truth(exprs, coords, field, point, case.max_order, case.concrete)
    assert got == case.order, f"{case.id}: independent order {got}, stated {case.order}"


@pytest.mark.parametrize("case", ORDER_CASES, ids=[c.id for c in ORDER_CASES])
def test_map_order(case):
    M, exprs, field = case.build()
    try:
        phi = gc.Map(M, M, exprs)
        got = gc.map_order(phi, _field(M, field), h, case.max_order)
    except Exception as exc:  # noqa: BLE001
        fail(f"{case.id}: raised {short_trace(exc)}")
    if got is None and not case.must:
        return
    assert got == case.order, f"{case.id}: map_order = {got}, the truth is {case.order} ({case.why})"


@pytest.mark.parametrize("case_id, k, truth", [
    ("euler_oscillator", 2, False),
    ("verlet_generic", 2, True),
    ("verlet_generic", 3, False),
    ("not_identity_at_h0", 1, False),
    ("not_identity_1e_100", 1, False),
    ("exact_flow_plus_1e_40_h4", 4, False),
    ("exact_flow_plus_1e_40_h4", 3, True),
    ("exact_flow_sinc", 5, True),
    ("etd_nonlinear", 2, False),
])
def test_certify_order(case_id, k, truth):
    case = next(c for c in ORDER_CASES if c.id == case_id)
    M, exprs, field = case.build()
    try:
        c = gc.certify_order(gc.Map(M, M, exprs), _field(M, field), h, k)
    except Exception as exc:  # noqa: BLE001
        fail(f"{case_id}: raised {short_trace(exc)}")
    assert c.holds is truth, f"{case_id}: 'order >= {k}' is {truth}, certificate says {c.holds} ({c.method})"
    if c.holds is False and c.counterexample:
        from .independent import point_in_domain

        ok, why, _ = point_in_domain(c.counterexample, set(M.coords) | {h, L})
        assert ok, why


def test_sqrt_map_on_real_line_is_not_order_1():
    """On the real line sqrt(q^2) = |q| != q for q < 0: phi_0 != id, so not even order 1."""
    M, exprs, field = m_sqrt(None)
    try:
        c = gc.certify_order(gc.Map(M, M, exprs), _field(M, field), h, 1)
    except Exception as exc:  # noqa: BLE001
        fail(f"raised {short_trace(exc)}")
    assert c.holds is not True, f"WRONG True: phi_0(q) = |q| differs from q for q < 0 ({c.method})"


def test_implicit_midpoint_order():
    M = chart()
    q, p = M.coords
    Qs, Ps = sp.symbols("Q P")
    eqs = [Qs - q - h * (p + Ps) / 2, Ps - p + h * sp.Subs(V(d1).diff(d1), d1, (q + Qs) / 2)]
    X = _field(M, [p, -V(q).diff(q)])
    try:
        phi = gc.ImplicitMap(M, M, eqs, new=[Qs, Ps])
        got = gc.map_order(phi, X, h, 4)
    except Exception as exc:  # noqa: BLE001
        fail(f"raised {short_trace(exc)}")
    assert got == 2, f"the implicit midpoint rule has order 2 (a Gauss method, s = 1); map_order says {got}"


# ----------------------------------------------------------------------------- compositions

YOSHIDA_A = ("-1.17767998417887", "0.235573213359357", "0.784513610477560")  # w1, w2, w3 (Yoshida 1990)


def yoshida_from(w1, w2, w3, one=1):
    w0 = one - 2 * (w1 + w2 + w3)
    return [w3, w2, w1, w0, w1, w2, w3]


def yoshida_floats():
    return yoshida_from(*(float(s) for s in YOSHIDA_A))


def yoshida_mpf(dps):
    with mpmath.workdps(dps):
        return yoshida_from(*(mpmath.mpf(s) for s in YOSHIDA_A), one=mpmath.mpf(1))


def yoshida_sympy_floats():
    return yoshida_from(*(sp.Float(s, 15) for s in YOSHIDA_A))


def yoshida_decimal_rationals():
    return yoshida_from(*(sp.Rational(s) for s in YOSHIDA_A))


def triple_jump():
    c = sp.cbrt(2)
    g1 = 1 / (2 - c)
    return [g1, -c / (2 - c), g1]


def power_sums(gs, powers=(1, 3, 5, 7)):
    """Exact sympy sums of g^k (floats and mpf as their exact binary values)."""
    ex = []
    for g in gs:
        if isinstance(g, float):
            ex.append(sp.Rational(g))
        elif isinstance(g, mpmath.mpf):
            sign, man, exp, _ = g._mpf_
            ex.append((-1)**sign * sp.Integer(int(man)) * sp.Integer(2)**exp)
        else:
            ex.append(sp.sympify(g))
    return {k: sum(gk**k for gk in ex) for k in powers}


def test_composition_truths():
    """The independent facts the composition tests rely on."""
    def v(e):
        return value_at(e, {})[0]

    s = power_sums(yoshida_decimal_rationals())
    assert s[1] == 1 and v(s[3]) == "nonzero" and abs(sp.N(s[3], 30)) < 1e-13, "decimal Yoshida: order exactly 2"
    for gs in (yoshida_floats(), yoshida_mpf(30), yoshida_mpf(60)):
        s = power_sums(gs)
        assert abs(sp.N(s[1] - 1, 40)) < 1e-14 and abs(sp.N(s[3], 40)) < 1e-13 and abs(sp.N(s[5], 40)) < 1e-12
        assert abs(sp.N(s[7], 40)) > 1e-3, "weight 7 fails by O(1): order < 8"
    s = power_sums(triple_jump())
    assert v(s[1] - 1) == "zero" and v(s[3]) == "zero" and v(s[5]) == "nonzero"
    g = triple_jump()
    eps = R(1, 10**100)
    s = power_sums([g[0] + eps, g[1] - 2 * eps, g[2] + eps])
    assert v(s[1] - 1) == "zero" and v(s[3]) == "nonzero"
    s = power_sums([g[0] + eps, g[1], g[2]])
    assert v(s[1] - 1) == "nonzero"
    c4 = 4 ** R(1, 3)
    sz = 1 / (4 - c4)
    s = power_sums([sz, sz, 1 - 4 * sz, sz, sz])
    assert v(s[1] - 1) == "zero" and v(s[3]) == "zero" and v(s[5]) == "nonzero"


def _composition_order(gs):
    from geomcheck.certify.compositions import composition_order

    try:
        return composition_order(gs, max_order=8)
    except Exception as exc:  # noqa: BLE001
        fail(f"composition_order raised {short_trace(exc)}")


@pytest.mark.parametrize("name, gammas", [
    ("floats", yoshida_floats),
    ("mpf_dps30", lambda: yoshida_mpf(30)),
    ("mpf_dps60", lambda: yoshida_mpf(60)),
    ("sympy_float15", yoshida_sympy_floats),
])
def test_yoshida6_published_digits(name, gammas):
    """Yoshida's solution A with its published 15 digits is order 6 up to the data's precision.

    Never "order 8" (weight 7 fails by O(1)); never a certified-exact lower order (the conditions
    of weights 3 and 5 hold to about 1e-15, all the information the 15-digit data carries).
    """
    res = _composition_order(gammas())
    problems = []
    if res.order > 6:
        problems.append(f"order {res.order} claimed; the weight-7 condition fails by O(1)")
    if res.order < 6 and res.exact:
        problems.append(f"order {res.order} certified exactly (the next order 'certified false') for data that "
                        f"satisfies the order-6 conditions to its 15-digit precision")
    if res.order < 6 and getattr(res.failure, "stage", None) not in ("numeric", "unknown", None) and \
            getattr(res.failure, "holds", None) is False:
        problems.append(f"order {res.order + 1} certified false at stage {res.failure.stage!r}")
    assert not problems, f"{name}: order {res.order}, exact {res.exact}: " + "; ".join(problems)


@pytest.mark.parametrize("name, gammas, order", [
    ("yoshida_decimal_rationals", yoshida_decimal_rationals, 2),
    ("triple_jump_exact", triple_jump, 4),
    ("triple_jump_symmetric_1e_100", lambda: [triple_jump()[0] + R(1, 10**100), triple_jump()[1] - 2 * R(1, 10**100),
                                             triple_jump()[2] + R(1, 10**100)], 2),
    ("triple_jump_sum_off_1e_100", lambda: [triple_jump()[0] + R(1, 10**100)] + triple_jump()[1:], 0),
    ("suzuki5_exact", lambda: [(s := 1 / (4 - 4 ** R(1, 3))), s, 1 - 4 * s, s, s], 4),
])
def test_exact_composition_order(name, gammas, order):
    """Exact coefficients: the order is decided exactly, and it is the true one."""
    res = _composition_order(gammas())
    assert res.order == order, f"{name}: order {res.order}, the truth is {order}"
    assert res.exact is True, f"{name}: exact data, the order {order} must be certified exactly"
