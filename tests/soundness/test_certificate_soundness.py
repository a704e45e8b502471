"""Adversarial soundness suite of the map certificates (issue 13, classes 1, 2, 5, 7, 9).

The cases are in ``maps_cases.py``; each truth is re-established here without geomcheck
(plain sympy Jacobians of the same map, concrete instances of undefined functions,
mpmath/sympy evaluation at 300+ digits).  A certificate is judged by the rules:

* truth "holds": ``holds`` is True or None, never False;
* truth "fails": ``holds`` is False or None, never True; a False names a counterexample
  inside the chart's domain, and for maps without undefined functions the independent
  residual there is nonzero;
* ``must_decide``: not None; ``refusal_ok``: a ``GeomcheckError`` is also acceptable (a
  degenerate or zero form); otherwise any exception is a failure;
* contact: ``.factor`` only when the claim holds; the factor is in the user's notation.
"""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import ChartMismatchError, GeomcheckError

from .independent import concretize, has_undefined, point_in_domain, value_at
from .judge import fail, fill_value, short_trace
from .maps_cases import CERT_BY_ID, CERT_CASES, gamma, h, plain_build

CERTIFY = {
    "symplectic": lambda d: gc.certify_symplectic(d["phi"], d["form"]),
    "conformal": lambda d: gc.certify_conformal_symplectic(d["phi"], d["form"]),
    "contact": lambda d: gc.certify_contact(d["phi"], d["form"]),
    "preserves": lambda d: gc.certify_preserves(d["phi"], d["form"]),
    "conserves": lambda d: gc.certify_conserves(d["phi"], d["H"]),
}


# ----------------------------------------------------------------------------- independent residuals


def _jacobian(exprs, coords):
    return sp.Matrix(len(exprs), len(coords), lambda i, j: sp.diff(exprs[i], coords[j]))


def residuals(data, concrete=None):
    """The independent residual(s) of the claim, as a list of sympy expressions that must all vanish.

    For conformal claims: ``[k]`` followed by the entries of ``J^T Om J - k Om`` (k from
    the (0, 1) entry), so that k can be inspected separately.
    """
    coords, exprs = data["coords"], data["exprs"]
    if concrete:
        exprs = [concretize(e, concrete) for e in exprs]
    sub = dict(zip(coords, exprs))
    kind = data.get("kind")
    if "H" in data:
        H = data["H"]
        return [H.xreplace(sub) - H]
    J = _jacobian(exprs, coords)
    if "vector" in data:
        a_x = data["vector"](coords)
        beta = J.T * data["vector"](exprs)
        return list(beta), list(a_x)
    Om = data["matrix"]
    Om_phi = Om.xreplace(sub)
    K = J.T * Om_phi * J
    if kind == "conformal":
        k = K[0, 1] / Om[0, 1]
        return [k] + list(K - k * Om)
    return [e for e in (K - Om) if e != 0] or [sp.S.Zero]


def _pt(data, names):
    by_name = {str(s): s for s in data["coords"]}
    for e in (data["exprs"] or []):
        for s in sp.sympify(e).free_symbols:
            by_name.setdefault(s.name, s)
    for s in getattr(data.get("matrix"), "free_symbols", ()):
        by_name.setdefault(s.name, s)
    return {by_name[k]: sp.sympify(v) for k, v in names.items() if k in by_name}


def _vals(exprs, pt):
    return [value_at(e, {s: v for s, v in pt.items()})[0] for e in exprs]


def truth_problems(case, data, names):
    """Why the case's truth fails at ``names`` (empty: the truth is confirmed there)."""
    data = dict(data, kind=case.kind)
    pt = _pt(data, names)
    res = residuals(data, case.concrete)
    if case.kind == "contact" or "vector" in data:
        beta, alpha = res
        b = [sp.sympify(e).xreplace(pt) for e in beta]
        a_ = [sp.sympify(e).xreplace(pt) for e in alpha]
        if case.kind == "contact":
            wedge = [b[i] * a_[j] - b[j] * a_[i] for i in range(3) for j in range(i + 1, 3)]
            w_v = _vals(wedge, {})
            b_v = _vals(b, {})
            failing = "nonzero" in w_v or all(v == "zero" for v in b_v)
            ok = all(v == "zero" for v in w_v) and "nonzero" in b_v
        else:
            diff = _vals([bi - ai for bi, ai in zip(b, a_)], {})
            failing, ok = "nonzero" in diff, all(v == "zero" for v in diff)
    elif case.kind == "conformal":
        k, rest = res[0], res[1:]
        kv = value_at(sp.sympify(k), pt)[0]
        rv = _vals(rest, pt)
        grad = _vals([sp.diff(k, s) for s in data["coords"]], pt)
        failing = kv == "zero" or "nonzero" in rv or "nonzero" in grad
        ok = kv == "nonzero" and all(v == "zero" for v in rv + grad)
    else:
        rv = _vals(res, pt)
        failing, ok = "nonzero" in rv, all(v == "zero" for v in rv)
        if "matrix" in data:
            det = data["matrix"].det().xreplace(pt)
            if value_at(det, {})[0] == "zero":
                failing, ok = True, False  # the form itself degenerates here
    if case.truth == "fails" and not failing:
        return [f"the independent residual does not show the failure at {names}"]
    if case.truth == "holds" and not ok:
        return [f"the independent residual does not vanish at {names}"]
    return []


@pytest.mark.parametrize("case", CERT_CASES, ids=[c.id for c in CERT_CASES])
def test_truth_is_established(case):
    source = plain_build(CERT_BY_ID[case.truth_from] if case.truth_from else case)
    if source.get("exprs") is None:
        assert case.truth == "holds" and case.why, f"{case.id}: no explicit instance; a theorem must be cited"
        return
    if case.truth == "fails":
        assert case.witness is not None, f"{case.id}: a failing claim needs a witness point"
        probs = truth_problems(case, source, case.witness)
    else:
        assert case.checks, f"{case.id}: a holding claim needs check points"
        probs = [p for names in case.checks for p in truth_problems(case, source, names)]
    assert not probs, f"{case.id}: " + "; ".join(probs)


# ----------------------------------------------------------------------------- verdicts


def run_certificate(case, data):
    try:
        return CERTIFY[case.kind](data)
    except GeomcheckError as exc:
        if case.refusal_ok:
            return exc
        fail(f"{case.id}: valid input refused: {short_trace(exc)}")
    except Exception as exc:  # noqa: BLE001
        fail(f"{case.id}: raw exception {short_trace(exc)}")


def counterexample_problems(case, data, point):
    if not isinstance(point, dict):
        return [f"a False certificate without a counterexample dict ({point!r})"]
    symbols = set(data["coords"])
    for e in data.get("exprs") or []:
        symbols |= sp.sympify(e).free_symbols
    ok, why, values = point_in_domain(point, symbols, data.get("domain"))
    if not ok:
        return [f"counterexample outside the domain: {why} (point {point})"]
    exprs = data.get("exprs")
    if exprs is None or any(has_undefined(e) for e in exprs):
        return []
    full = dict(values)
    for s in symbols:
        if s not in full:
            full[s] = fill_value(s, data.get("domain"))
    names = {s.name: v for s, v in full.items()}
    probe = dataclasses.replace(case, truth="fails", concrete=None)
    probs = truth_problems(probe, data, names)
    return [f"the counterexample {point} is not genuine: " + p for p in probs]


@pytest.mark.parametrize("case", CERT_CASES, ids=[c.id for c in CERT_CASES])
def test_certificate_verdict(case):
    data = case.build()
    c = run_certificate(case, data)
    if isinstance(c, GeomcheckError):
        return  # an accepted refusal of an ill-posed claim
    problems = []
    if c.holds not in (True, False, None):
        problems.append(f"holds = {c.holds!r}")
    if case.truth == "holds" and c.holds is False:
        problems.append(f"WRONG False (the claim holds: {case.why}); counterexample {c.counterexample}")
    if case.truth == "fails" and c.holds is True:
        problems.append(f"WRONG True (the claim fails: {case.why})")
    if case.must_decide and c.holds is None:
        problems.append("undecided (None) on a case a sound and reasonably strong tool decides")
    if c.holds is False and case.truth == "fails":
        problems += counterexample_problems(case, plain_build(case), c.counterexample)
    if case.kind == "contact" and c.holds is not True and c.factor is not None:
        problems.append(f"a contact certificate that does not hold reports the factor {c.factor}")
    if problems:
        fail(f"{case.id}: holds={c.holds}, method={c.method!r}: " + "; ".join(problems))


@pytest.mark.parametrize("case_id, closed_form", [
    ("conformal_damped_shear", sp.exp(-gamma * h)),
    ("conformal_damped_verlet_Subs", sp.exp(-gamma * h)),
    ("conformal_near_symplectic", 1 + sp.Rational(1, 10**40) * h**2),
    ("contact_factor_exp", sp.exp(sp.Symbol("x"))),
    ("contact_translation", sp.S.One),
])
def test_factor_in_user_notation(case_id, closed_form):
    """The factor comes back equal to the closed form, with no internal jet objects (issue 13, class 9)."""
    from geomcheck.zero import Jet

    case = CERT_BY_ID[case_id]
    c = run_certificate(case, case.build())
    if c.holds is not True:
        pytest.skip(f"the certificate did not hold ({c.holds}); judged by test_certificate_verdict")
    f = c.factor
    assert f is not None, "a holding conformal/contact certificate must report its factor"
    assert not f.has(Jet), f"the factor contains internal jet objects: {f}"
    assert "V_{" not in str(f), f"the factor is in internal jet notation: {f}"
    x = sp.Symbol("x")
    f_user = f.xreplace({s: x for s in f.free_symbols if s.name == "x"})
    assert sp.simplify(f_user - closed_form) == 0, f"factor {f} != {closed_form}"


@pytest.mark.parametrize("case_id", ["verlet_generic", "polar_abs_r_positive", "contact_factor_vanishes_outside_domain",
                                     "euler_oscillator"])
def test_certificate_soundness_record(case_id):
    """Every certificate states what it proved and how, as data (issue 13, deliverable 3)."""
    case = CERT_BY_ID[case_id]
    data = case.build()
    c = run_certificate(case, data)
    rec = getattr(c, "soundness", None)
    assert rec is not None, "the certificate has no .soundness record"
    for attr in ("stage", "domain", "points", "digits", "jet_model"):
        assert hasattr(rec, attr), f".soundness has no attribute {attr!r}"
    text = str(rec.domain)
    for s in data["coords"]:
        assert s.name in text, f".soundness.domain {text!r} does not mention the coordinate {s.name}"


# ----------------------------------------------------------------------------- charts must match


def _two_charts(names_a, names_b):
    return gc.Chart(names_a), gc.Chart(names_b)


MISMATCH = [
    ("symplectic_form_on_source", "q p", "Q P", lambda M, N, phi: gc.certify_symplectic(phi, M.d(M.coords[0]) ^ M.d(M.coords[1]))),
    ("symplectic_form_on_target", "q p", "Q P", lambda M, N, phi: gc.certify_symplectic(phi, N.d(N.coords[0]) ^ N.d(N.coords[1]))),
    ("conformal_form_on_target", "q p", "Q P",
     lambda M, N, phi: gc.certify_conformal_symplectic(phi, N.d(N.coords[0]) ^ N.d(N.coords[1]))),
    ("preserves_form_on_source", "q p", "Q P", lambda M, N, phi: gc.certify_preserves(phi, M.coords[1] * M.d(M.coords[0]))),
    ("contact_form_on_target", "x p z", "X P Z",
     lambda M, N, phi: gc.certify_contact(phi, N.d(N.coords[2]) - N.coords[1] * N.d(N.coords[0]))),
]


@pytest.mark.parametrize("name, a, b, call", MISMATCH, ids=[m[0] for m in MISMATCH])
def test_different_charts_are_refused(name, a, b, call):
    """A map between two different charts is not silently compared "by coordinate position"."""
    M, N = _two_charts(a, b)
    h_ = sp.Symbol("h")
    c = M.coords
    exprs = [c[0] + h_ * c[1]] + list(c[1:])
    phi = gc.Map(M, N, exprs)
    with pytest.raises(ChartMismatchError):
        call(M, N, phi)


def test_reordered_chart_identity():
    """Chart("p q") is not Chart("q p"): the identity map between them is symplectic for dq^dp.

    Compared by coordinate position, dq^dp on the target would become dp^dq and the
    identity would be 'not symplectic'.  Refusing (ChartMismatchError) or True/None are right.
    """
    M = gc.Chart("q p")
    q, p = M.coords
    try:
        N = gc.Chart([p, q])
        phi = gc.Map(M, N, [p, q])  # N's coordinates (p, q) as functions of M's: the identity
        c = gc.certify_symplectic(phi, N.d(q) ^ N.d(p))
    except GeomcheckError:
        return
    except Exception as exc:  # noqa: BLE001
        fail(f"raw exception {short_trace(exc)}")
    assert c.holds is not False, f"WRONG False: the identity map is symplectic ({c.method})"


# ----------------------------------------------------------------------------- primitives


def test_primitive_refuses_singular_centre_2form():
    M = gc.Chart("x y")
    x, y = M.coords
    w = (M.d(x) ^ M.d(y)) * (1 / (x**2 + y**2))
    with pytest.raises(GeomcheckError):
        K = gc.primitive(w)
        # reaching here is a failure; show what came back
        raise AssertionError(f"a primitive of a form singular at the centre was returned: {K}")


def test_primitive_refuses_angle_form_at_origin():
    M = gc.Chart("x y")
    x, y = M.coords
    w = (x * M.d(y) - y * M.d(x)) * (1 / (x**2 + y**2))
    with pytest.raises(GeomcheckError):
        K = gc.primitive(w)
        raise AssertionError(f"a primitive of the angle form at the origin was returned: {K}")


def test_primitive_refuses_non_closed():
    M = gc.Chart("x y")
    x, y = M.coords
    with pytest.raises(GeomcheckError):
        gc.primitive(y * M.d(x))


def _d_of_1form(K, x, y):
    a = K.components.get((0,), sp.S.Zero)
    b = K.components.get((1,), sp.S.Zero)
    return sp.diff(b, x) - sp.diff(a, y)


@pytest.mark.parametrize("name, density, centre", [
    ("constant_off_centre", lambda x, y: sp.S.One, {"x": 1, "y": 2}),
    ("lorentzian_at_origin", lambda x, y: 1 / (1 + x**2 + y**2), None),
    ("polynomial_off_centre", lambda x, y: x**2 * y + 3, [sp.Rational(-1, 2), 3]),
])
def test_primitive_is_a_primitive(name, density, centre):
    """d(primitive(w)) == w, checked with plain sympy at sample points (not with geomcheck)."""
    M = gc.Chart("x y")
    x, y = M.coords
    w = (M.d(x) ^ M.d(y)) * density(x, y)
    if isinstance(centre, dict):
        centre = {M.coords[0]: centre["x"], M.coords[1]: centre["y"]}
    try:
        K = gc.primitive(w, center=centre) if centre is not None else gc.primitive(w)
    except Exception as exc:  # noqa: BLE001
        fail(f"valid input refused/crashed: {short_trace(exc)}")
    assert K.degree == 1
    for coeff in K.components.values():
        assert not coeff.has(sp.oo, -sp.oo, sp.zoo, sp.nan), f"non-finite coefficient in {K}"
    dK = _d_of_1form(K, x, y)
    for pt in ({x: sp.Rational(1, 3), y: -2}, {x: 3, y: sp.Rational(5, 7)}):
        verdict, detail = value_at(dK - density(x, y), pt)
        assert verdict == "zero", f"d(primitive) != w at {pt}: {verdict} ({detail})"
