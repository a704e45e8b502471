"""The Guo, Li & Wu 2001 case study (DEL one-forms of four schemes): quick profile and controls."""

import os
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
import sympy as sp

from casestudies import guo2001_del_schemes as cs
from geomcheck.latex import compile_pdf, document
from geomcheck.structures import feng_kang_map, runge_kutta_del


@pytest.fixture(scope="module")
def result(case_study_run):
    """The session's one quick run of the case study (shared with the doc pages)."""
    return case_study_run(cs.NAME)


def test_quick_profile_passes_every_check(result):
    failed = [(c.description, c.measured, c.expected) for c in result.checks if not c.passed]
    assert not failed
    assert result.passed
    # a DEL certificate (generic H and pendulum), a preserved-form certificate and an order per scheme
    labels = [label for label, _ in result.certificates]
    for name in cs.SCHEMES:
        assert sum(label.startswith((f"{name} (", f"{name}, ")) for label in labels) == 4
    assert len(result.derivations) >= 5


def test_trapezoidal_not_preserving_dq_dp_is_an_expected_failure(result):
    (c,) = [c for c in result.checks if c.description.startswith("trapezoidal rule does NOT preserve")]
    assert c.passed and c.expected == "holds False"
    # and it is not among the certificates (which must all hold)
    assert all(c.holds is True for _, c in result.certificates)


def test_orders_measured(result):
    orders = {c.description.split(":")[0]: c.measured for c in result.checks if "observed order" in c.description}
    assert orders.keys() == set(cs.SCHEMES)
    for name, k in zip(cs.SCHEMES, cs.Parameters.quick().orders):
        assert abs(orders[name] - k) < 0.1


def test_figures_and_findings(result):
    assert len(result.figures) == 4 and all(os.path.getsize(p) > 1000 for p in result.figures)
    assert tuple(result.findings) == cs.FINDINGS
    assert result.misprints == []                       # no error of the authors: damage, convention, critique
    assert [f.kind for f in cs.FINDINGS] == ["damage", "convention", "critique"]


def test_backward_difference_scheme_eq31_is_certified(result):
    (c,) = [c for c in result.checks if c.source == "Sec. 3, eq. (31)"]
    assert c.passed and c.measured.count("holds") >= 2
    labels = [label for label, _ in result.certificates if label.startswith("backward difference (eq. (31))")]
    assert len(labels) == 4


def test_printed_sign_of_eq48_is_a_check_not_a_finding(result):
    (c,) = [c for c in result.checks if c.source == "Sec. 4.3, eqs. (48)-(49)"]
    assert c.passed and c.measured == (4, 2)
    assert all("(48)" not in f.where for f in result.findings)


def test_negative_control_different_maps_are_told_apart():
    H, q, p, h = cs.pendulum_hamiltonian()
    dels = cs.scheme_dels(H)
    assert cs.same_map(dels["mid-point"].step_map, dels["Feng Kang"].step_map, 0.1, 2, 30) > 1e-6


def test_negative_control_explicit_euler_jacobian_defect():
    """A non-symplectic scheme shows a defect of size h at the same precision."""
    H, q, p, h = cs.pendulum_hamiltonian()
    euler = runge_kutta_del(([[0]], [1]), H, q, p, h, name="explicit Euler")
    chart = euler.step_map.source
    d = cs.step_jacobian_defects(euler, 0.1, [[1.0, 0.3]], 2, {"dq^dp": chart.d(q) ^ chart.d(p)}, dps=30)
    assert d["dq^dp"] > 1e-3


def test_negative_control_other_feng_kang_sign_is_order_two():
    """eq. (48) with the other sign than printed: the observed order drops to 2 (the order check would fail)."""
    H, q, p, h = cs.pendulum_hamiltonian()
    prm = cs.Parameters.quick()
    y0 = np.array([[prm.q0, prm.p0]])
    hs = prm.order_steps[:3]
    ref = cs._reference(H, q, p, y0, 2.0, hs[-1])
    wrong = SimpleNamespace(step_map=feng_kang_map(H, q, p, h, sign=1))
    _, orders = cs.observed_orders(wrong, y0, 2.0, hs, ref)
    assert abs(orders[-1] - 2) < 0.2


@pytest.mark.needs_pdflatex
def test_derivations_compile(result, tmp_path):
    trap = [c for label, c in result.certificates if label.startswith("trapezoidal, pendulum: the step map")][0]
    body = "\n".join([result.derivations[0].latex(), trap.derivation.latex()])
    compile_pdf(document(body), str(tmp_path / "guo.pdf"))
    assert (tmp_path / "guo.pdf").stat().st_size > 1000


# ---------------------------------------------------------------- the findings, re-derived with plain sympy/mpmath
# (independent of geomcheck: exterior derivatives of one-forms as antisymmetric coefficient matrices)


def _d(one_form, X):
    """d of sum_j a_j dX_j: the matrix W_ij = d_i a_j - d_j a_i (d a = sum_{i<j} W_ij dX_i ^ dX_j)."""
    return sp.Matrix(len(X), len(X), lambda i, j: sp.diff(one_form[j], X[i]) - sp.diff(one_form[i], X[j]))


def _wedge(f, g, X):
    """df ^ dg as the matrix W_ij = f_i g_j - f_j g_i."""
    return sp.Matrix(len(X), len(X),
                     lambda i, j: sp.diff(f, X[i]) * sp.diff(g, X[j]) - sp.diff(f, X[j]) * sp.diff(g, X[i]))


def _pairing(terms, X):
    """The one-form sum f dg over (f, g) in terms, as its coefficients on X."""
    return [sum((f * sp.diff(g, x) for f, g in terms), sp.S.Zero) for x in X]


def _is_zero(W):
    return all(sp.expand(w) == 0 for w in W)


hs = sp.Symbol("h")


def test_eq39_as_read_in_our_copy_lacks_the_factor_one_over_h():
    """Eq. (32): p^(n+1) = (q^(n+1) - q^(n))/h - h/2 V_q(q^(n+1/2)) on (q^(n), q^(n+1)) = (x, y); then
    dp^(n+1) ^ dq^(n+1) = (1/h)(1 + h^2/4 V_qq) dq^(n+1) ^ dq^(n), not the (1 + h^2/4 V_qq) dq^(n+1) ^ dq^(n)
    of our copy. Also for V = q^4/4, where the coefficients are polynomials."""
    x, y = sp.symbols("x y")
    for V in (sp.Function("V")(x), x**4 / 4):
        Vq, Vqq = sp.diff(V, x), sp.diff(V, x, 2)
        mid = {x: (x + y) / 2}
        p_new = (y - x) / hs - hs / 2 * Vq.subs(mid)
        coefficient = _wedge(p_new, y, [x, y])[1, 0]                  # of dq^(n+1) ^ dq^(n)
        derived = (1 + hs**2 / 4 * Vqq.subs(mid)) / hs
        assert sp.simplify(coefficient - derived) == 0
        assert sp.simplify(coefficient - hs * derived) != 0            # as read: without 1/h


def test_eq41_readings_of_the_pair_on_the_function_space():
    """Reading 1 (our copy: dp^(n), dq^(n), + sign) is not an identity d(E_1 + E_2) = dQ ^ dP - dq ^ dp
    on (q, p, Q, P), nor either change alone; reading 2 (mid-point differentials, sign of eq. (12)) is,
    and it is h times eq. (47)'s one-form."""
    q, p, Q, P = X = sp.symbols("q p Q P")
    z = sp.symbols("zq zp")
    Hz = z[1]**2 / 2 + z[0]**4 / 4 + z[0] * z[1]**3 / 3            # non-separable, polynomial
    qbar, pbar = (q + Q) / 2, (p + P) / 2
    Hq, Hp = (sp.diff(Hz, v).subs({z[0]: qbar, z[1]: pbar}, simultaneous=True) for v in z)
    r_q, r_p = Q - q - hs * Hp, P - p + hs * Hq                     # eq. (40)
    target = _wedge(Q, P, X) - _wedge(q, p, X)
    readings = {"as read": [(r_q, p), (r_p, q)], "sign of eq. (12) only": [(r_q, p), (-r_p, q)],
                "mid-point differentials only": [(r_q, pbar), (r_p, qbar)],
                "mid-point differentials and sign of eq. (12)": [(r_q, pbar), (-r_p, qbar)]}
    holds = {name: _is_zero(_d(_pairing(terms, X), X) - target) for name, terms in readings.items()}
    assert holds == {"as read": False, "sign of eq. (12) only": False, "mid-point differentials only": False,
                     "mid-point differentials and sign of eq. (12)": True}
    # eq. (47): 1/2 d(z^(n+1) + z^(n))^T {J Delta_t z - grad H(zbar)}, J = [[0, -1], [1, 0]]: J Delta_t z = (-Dp, Dq)
    eq47 = _pairing([(-(P - p) / hs - Hq, qbar), ((Q - q) / hs - Hp, pbar)], X)
    pair = _pairing(readings["mid-point differentials and sign of eq. (12)"], X)
    assert all(sp.expand(a - hs * b) == 0 for a, b in zip(pair, eq47))


_GAUSS_A = lambda c: [[sp.Rational(1, 4), sp.Rational(1, 4) - c / 6], [sp.Rational(1, 4) + c / 6, sp.Rational(1, 4)]]
_HALF = sp.Rational(1, 2)


def _gauss_residuals(K, X, Y, c):
    """Step residuals r (eq. (54)) and stage residuals s_i (eq. (55)) of the two-stage Gauss method."""
    q, p, Q, P = X
    A = _GAUSS_A(c)
    r = [(Q, P)[k] - (q, p)[k] - hs * _HALF * (K[0][k] + K[1][k]) for k in range(2)]
    s = [[Y[i][k] - (q, p)[k] - hs * (A[i][0] * K[0][k] + A[i][1] * K[1][k]) for k in range(2)] for i in range(2)]
    return r, s


def test_eq56_gauss_pair_alone_is_not_closed_on_the_function_space():
    """Free stage values: the pair (mid-point differentials, sign of eq. (12)) misses dQ ^ dP - dq ^ dp, a
    stage one-form S = h/2 sum_i b_i [(r - 2 s_i)_q d(K_i)_p - (r - 2 s_i)_p d(K_i)_q] restores it.
    Stages solved from eq. (55) (harmonic oscillator): the pair misses it by a two-form of order h;
    stages written about the mid-point (r = 2 s_i) make the pair alone exact."""
    q, p, Q, P, Q1, P1, Q2, P2 = X = sp.symbols("q p Q P Q1 P1 Q2 P2")
    z = sp.symbols("zq zp")
    Hz = z[1]**2 / 2 + z[0]**4 / 4 + z[0] * z[1]**3 / 3
    K = [[sp.diff(Hz, z[1]).subs({z[0]: a, z[1]: b}, simultaneous=True),
          -sp.diff(Hz, z[0]).subs({z[0]: a, z[1]: b}, simultaneous=True)] for a, b in ((Q1, P1), (Q2, P2))]
    r, s = _gauss_residuals(K, X[:4], [(Q1, P1), (Q2, P2)], sp.sqrt(3))
    qbar, pbar = (q + Q) / 2, (p + P) / 2
    pair = _pairing([(r[0], pbar), (-r[1], qbar)], X)
    target = _wedge(Q, P, X) - _wedge(q, p, X)
    assert not _is_zero(_d(pair, X) - target)
    S = _pairing([(hs * _HALF / 2 * (r[0] - 2 * s[i][0]), K[i][1]) for i in range(2)]
                 + [(-hs * _HALF / 2 * (r[1] - 2 * s[i][1]), K[i][0]) for i in range(2)], X)
    assert _is_zero(_d([a + b for a, b in zip(pair, S)], X) - target)

    # the harmonic oscillator, stages eliminated (c stands for sqrt(3): results reduced modulo c^2 - 3)
    c = sp.Symbol("c")
    X4 = X[:4]
    Y = sp.symbols("y1q y1p y2q y2p")
    K = [(Y[1], -Y[0]), (Y[3], -Y[2])]
    r, s = _gauss_residuals(K, X4, [Y[:2], Y[2:]], c)
    target = _wedge(Q, P, X4) - _wedge(q, p, X4)
    reduced = lambda w: sp.rem(sp.numer(w), c**2 - 3, c) / sp.rem(sp.denom(w), c**2 - 3, c)
    defects = {}
    for how, eqs in (("eq. (55)", [s[i][k] for i in range(2) for k in range(2)]),
                     ("about the mid-point", [r[k] - 2 * s[i][k] for i in range(2) for k in range(2)])):
        M, rhs = sp.linear_eq_to_matrix(eqs, Y)
        sol = dict(zip(Y, M.LUsolve(rhs)))
        rq, rp = (sp.together(e.subs(sol)) for e in r)
        defects[how] = _d(_pairing([(rq, pbar), (-rp, qbar)], X4), X4) - target
    assert all(sp.expand(reduced(sp.together(w))) == 0 for w in defects["about the mid-point"])
    dq_dQ = sp.cancel(reduced(sp.together(defects["eq. (55)"][0, 2])))    # -h/2 + O(h^3)
    assert sp.series(dq_dQ, hs, 0, 2).removeO() == -hs / 2


def test_eq48_printed_sign_gives_order_four():
    """eq. (48) as printed: Z = z + h J^-1 grad H(zbar) - h^3/24 J^-1 grad alpha(zbar); one step against the exact
    flow (mpmath, 40 digits) at h and h/2: local error ratio 2^5 (order 4); with + h^3/24 only 2^3 (order 2)."""
    q, p = sp.symbols("q p")
    H = p**2 / 2 + q**4 / 4 + q * p**3 / 3
    G = sp.Matrix([H.diff(q), H.diff(p)])
    J = sp.Matrix([[0, -1], [1, 0]])
    alpha = sp.expand((G.T * J * sp.hessian(H, (q, p)) * J * G)[0])
    field = lambda E: [sp.lambdify((q, p), e, "mpmath") for e in (E.diff(p), -E.diff(q))]  # J^-1 grad E
    f, fa = field(H), field(alpha)
    with mpmath.workdps(40):
        z0 = [mpmath.mpf("0.3"), mpmath.mpf("0.2")]
        flow = mpmath.odefun(lambda t, y: [f[0](*y), f[1](*y)], 0, z0)

        def local_error(hv, sign):
            def eqs(Q, P):
                zb = ((z0[0] + Q) / 2, (z0[1] + P) / 2)
                return [Z - z - hv * fk(*zb) + sign * hv**3 / 24 * fak(*zb)
                        for Z, z, fk, fak in zip((Q, P), z0, f, fa)]
            Z = mpmath.findroot(eqs, z0)
            return max(abs(Z[i] - flow(hv)[i]) for i in range(2))

        ratio = lambda sign: local_error(mpmath.mpf(1) / 20, sign) / local_error(mpmath.mpf(1) / 40, sign)
        orders = {sign: float(mpmath.log(ratio(sign), 2)) - 1 for sign in (1, -1)}   # sign 1: the printed minus
    assert abs(orders[1] - 4) < 0.05 and abs(orders[-1] - 2) < 0.05


def test_eq31_backward_difference_del_map_preserves_omega():
    """L_D(q, q_tbar) = (1 + q^2/2) q_tbar^2/2 + cos q with the backward difference of eq. (31): the discrete
    Lagrangian L_d(x, y) = L_D(y, (y - x)/h); its DEL map (x, y) -> (y, z), D2 L_d(x, y) + D1 L_d(y, z) = 0,
    preserves D12 L_d(x, y) dx ^ dy (Jacobian by mpmath differentiation, 40 digits); control: dx ^ dy is not
    preserved (the mass depends on q)."""
    x, y, hq = sp.symbols("x y h")
    L_D = lambda qq, vv: (1 + qq**2 / 2) * vv**2 / 2 + sp.cos(qq)
    L_d = L_D(y, (y - x) / hq)
    D1, D2 = L_d.diff(x), L_d.diff(y)
    w = sp.lambdify((x, y, hq), L_d.diff(x, y), "mpmath")
    a = sp.lambdify((x, y, hq), D2, "mpmath")
    b = sp.lambdify((x, y, hq), D1, "mpmath")
    with mpmath.workdps(40):
        hv = mpmath.mpf("0.1")

        def step(xv, yv):
            zv = mpmath.findroot(lambda zz: a(xv, yv, hv) + b(yv, zz, hv), 2 * yv - xv)
            return yv, zv

        x0, y0 = mpmath.mpf("0.4"), mpmath.mpf("0.47")
        jac = mpmath.matrix([[mpmath.diff(lambda s, t: step(s, t)[k], (x0, y0), tuple(e)) for e in ((1, 0), (0, 1))]
                             for k in range(2)])
        det = mpmath.det(jac)
        y1, z1 = step(x0, y0)
        assert abs(w(y1, z1, hv) * det - w(x0, y0, hv)) < mpmath.mpf(10)**-25
        assert abs(det - 1) > mpmath.mpf(10)**-3
