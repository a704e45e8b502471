"""Adversarial soundness suite of the volume certificates (issue 20, item 4).

``certify_volume_preserving(phi, density)`` (``rho(phi(x)) det D phi(x) == rho(x)``) and
``certify_divergence_free(X, density)`` (``sum_i d_i(rho X^i) == 0``), from
``geomcheck.certify.poisson``, judged against truths established WITHOUT geomcheck: the
residuals are computed here with plain ``sympy`` (``Matrix.jacobian``, ``det``, ``diff``) and
evaluated with ``value_at`` (exact, or 300-2400 digits with two evaluators) at a witness
(claims that fail) or at check points (claims that hold, with the theorem cited in ``why``);
undefined functions are made concrete for these checks.

Judging rules as in the rest of ``tests/soundness``: truth "holds" -> True or None, never
False; truth "fails" -> False or None, never True, and a False names a point inside the
chart's domain where the independent residual is nonzero; ``must_decide`` -> not None.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
import sympy as sp
from sympy import Rational as R

import geomcheck as gc
from geomcheck.certify.poisson import certify_divergence_free, certify_volume_preserving
from geomcheck.errors import GeomcheckError

from .independent import concretize, has_undefined, point_in_domain, value_at
from .judge import fail, fill_value, short_trace

h, a = sp.symbols("h a")
A, B, C = sp.symbols("A B C")
alpha = sp.Symbol("alpha")
f = sp.Function("f")
theta = sp.Function("theta")
d1 = sp.Symbol("d1")
EPS30 = R(1, 10**30)
EPS100 = R(1, 10**100)
BIG = 10**6
CONCRETE = {"f": sp.Lambda(d1, d1**3 - sp.sin(d1)), "theta": sp.Lambda(d1, d1**2 / 3 + 1)}
PTS2 = ({"x": R(1, 3), "y": R(-2, 7), "h": R(1, 5), "alpha": R(2, 3)},
        {"x": R(-3, 2), "y": R(5, 4), "h": R(-1, 3), "alpha": R(-7, 5)})
PTS_UV = ({"u": R(1, 3), "v": R(5, 2), "h": R(1, 5)}, {"u": R(7, 4), "v": R(2, 9), "h": R(-1, 3)})
PTS3 = ({"x": R(1, 3), "y": R(-2, 7), "z": R(5, 4), "A": 1, "B": R(1, 2), "C": R(-3, 2)},)


# ----------------------------------------------------------------------------- independent residuals


def volume_residual(exprs, X, density):
    """rho(phi(x)) det D phi(x) - rho(x), plain sympy."""
    J = sp.Matrix(exprs).jacobian(X)
    return sp.sympify(density).xreplace(dict(zip(X, exprs))) * J.det() - density


def divergence_residual(components, X, density):
    """sum_i d_i(rho X^i), plain sympy."""
    return sum(sp.diff(density * comp, x) for comp, x in zip(components, X))


@dataclass(frozen=True)
class Case:
    id: str
    build: Callable[[], dict]
    truth: str  # "holds" | "fails"
    why: str
    must_decide: bool = False
    witness: dict | None = None
    checks: tuple = ()


def chart(names, domain=None):
    return gc.Chart(names, domain=domain) if domain else gc.Chart(names)


def volume(names, exprs_of, density_of=lambda X: 1, domain=None):
    def build():
        M = chart(names, domain)
        exprs, rho = exprs_of(M.coords), sp.sympify(density_of(M.coords))
        return {"call": lambda: certify_volume_preserving(gc.Map(M, M, exprs), rho) if rho != 1
                else certify_volume_preserving(gc.Map(M, M, exprs)),
                "residual": volume_residual(exprs, M.coords, rho), "domain": domain}
    return build


def divergence(names, comps_of, density_of=lambda X: 1, domain=None):
    def build():
        M = chart(names, domain)
        comps, rho = comps_of(M.coords), sp.sympify(density_of(M.coords))
        X = gc.VectorField(M, comps)
        return {"call": lambda: certify_divergence_free(X, rho) if rho != 1 else certify_divergence_free(X),
                "residual": divergence_residual(comps, M.coords, rho), "domain": domain}
    return build


def rotation(X, angle):
    x, y = X
    return [x * sp.cos(angle) - y * sp.sin(angle), x * sp.sin(angle) + y * sp.cos(angle)]


def lotka_volterra_symplectic_euler(X):
    """u' = u (v - 2), v' = v (1 - u) (HLW I.1): in p = ln u, q = ln v the two substeps are shears
    q -> q + h (1 - e^p), then p -> p + h (e^q - 2), which preserve dp dq = du dv / (u v)."""
    u, v = X
    v1 = v * sp.exp(h * (1 - u))
    return [u * sp.exp(h * (v1 - 2)), v1]


def abc(X):
    x, y, z = X
    return [A * sp.sin(z) + C * sp.cos(y), B * sp.sin(x) + A * sp.cos(z), C * sp.sin(y) + B * sp.cos(x)]


def explicit_euler(X, field):
    return [xi + h * fi for xi, fi in zip(X, field(X))]


def pythagoras(t):
    """sin(t)^2 + cos(t)^2, i.e. 1, written so that it must be evaluated numerically."""
    return sp.sin(t) ** 2 + sp.cos(t) ** 2


UV_POS = {"u": (0, sp.oo), "v": (0, sp.oo)}
INV_UV = lambda X: 1 / (X[0] * X[1])

VOLUME_CASES = [
    Case("shear_generic", volume("x y", lambda X: [X[0] + f(X[1]), X[1]]), "holds",
         "D phi = [[1, f'], [0, 1]]", must_decide=True, checks=PTS2),
    Case("rotation_by_parameter", volume("x y", lambda X: rotation(X, alpha)), "holds",
         "det = cos^2 + sin^2 = 1", checks=PTS2),
    Case("twist_map", volume("x y", lambda X: rotation(X, theta(X[0] ** 2 + X[1] ** 2))), "holds",
         "rotation by theta(x^2 + y^2): the time-1 flow of H = G(x^2 + y^2) (angular velocity -2 G'), "
         "symplectic hence area-preserving", checks=PTS2),
    Case("henon_generic", volume("x y", lambda X: [X[1], -X[0] + f(X[1])]), "holds",
         "D phi = [[0, 1], [-1, f'(y)]], det = 1 for any f", must_decide=True, checks=PTS2),
    Case("henon_quadratic", volume("x y", lambda X: [X[1], -X[0] + 1 - a * X[1] ** 2]), "holds",
         "Henon with f(y) = 1 - a y^2", must_decide=True, checks=({"x": 1, "y": 2, "a": R(7, 5)},)),
    Case("det_one_plus_1e-30_x", volume("x y", lambda X: [X[0] + EPS30 * X[0] ** 2 / 2, X[1]]), "fails",
         "det D phi = 1 + 1e-30 x", witness={"x": 1, "y": 0}),
    Case("hidden_constant_det_1e-100", volume("x y", lambda X: [X[0] * (pythagoras(X[1]) + EPS100), X[1]]),
         "fails", "x (1 + 1e-100) in disguise (sin^2 + cos^2 = 1): det = 1 + 1e-100; numeric evaluation at "
         "50-100 digits rounds the 1e-100 away", witness={"x": 0, "y": 0}),
    Case("hidden_constant_density_1e-100",
         volume("x y", lambda X: [X[0] + 1, X[1]], lambda X: pythagoras(X[1]) + EPS100 * X[0]), "fails",
         "translation x -> x + 1 with density 1 + 1e-100 x in disguise: residual 1e-100",
         witness={"x": 0, "y": 0}),
    Case("hyperbolic_identity_plus_1e-100",
         volume("x y", lambda X: [X[0] * (sp.cosh(X[1]) ** 2 - sp.sinh(X[1]) ** 2 + EPS100), X[1]]), "fails",
         "cosh^2 - sinh^2 = 1: det = 1 + 1e-100", witness={"x": 0, "y": 0}),
    Case("explicit_euler_rotation_field", volume("x y", lambda X: explicit_euler(X, lambda X: [-X[1], X[0]])),
         "fails", "det(I + h [[0, -1], [1, 0]]) = 1 + h^2 (div = 0 but det(DX) = 1)", must_decide=True,
         witness={"x": 0, "y": 0, "h": 1}),
    Case("explicit_euler_cubic_hamiltonian",
         volume("x y", lambda X: explicit_euler(X, lambda X: [X[0] ** 2 + X[1] ** 2, -2 * X[0] * X[1]])),
         "fails", "X = (H_y, -H_x), H = x^2 y + y^3/3: DX = [[2x, 2y], [-2y, -2x]], det(I + h DX) = "
         "1 + h^2 det DX = 1 + 4 h^2 (y^2 - x^2)", must_decide=True, witness={"x": 1, "y": 0, "h": 1}),
    Case("explicit_euler_abc", volume("x y z", lambda X: explicit_euler(X, abc)), "fails",
         "det(I + h DX) = 1 + h^2 E2(DX) + h^3 det DX with E2 = -(A B sin x cos z ... ): nonzero at the witness",
         witness={"x": 1, "y": 1, "z": 1, "h": 1, "A": 1, "B": 1, "C": 1}),
    Case("lotka_volterra_symplectic_euler_density",
         volume("u v", lotka_volterra_symplectic_euler, INV_UV, domain=UV_POS), "holds",
         "shears in (ln u, ln v) preserve du dv/(u v)", checks=PTS_UV),
    Case("lotka_volterra_symplectic_euler_lebesgue",
         volume("u v", lotka_volterra_symplectic_euler, domain=UV_POS), "fails",
         "det = u' v' / (u v) != 1 (the density 1 is not preserved)", must_decide=True,
         witness={"u": 1, "v": 1, "h": 1}),
    Case("scaling_preserves_dx_over_x", volume("x", lambda X: [2 * X[0]], lambda X: 1 / X[0],
                                               domain={"x": (0, sp.oo)}), "holds",
         "rho(2x) * 2 = (1/(2x)) * 2 = 1/x", must_decide=True, checks=({"x": R(1, 3)}, {"x": 7})),
    Case("scaling_power_density_parameter", volume("x", lambda X: [2 * X[0]], lambda X: X[0] ** a,
                                                   domain={"x": (0, sp.oo)}), "fails",
         "rho = x^a: rho(2x) * 2 - rho = (2^(a+1) - 1) x^a, zero only for a = -1 (the claim is for all a)",
         witness={"x": 1, "a": 0}),
    Case("removable_singularity_identity",
         volume("x y", lambda X: [X[0], X[1] * (X[0] ** 2 - 1) / ((X[0] - 1) * (X[0] + 1))]), "holds",
         "the identity, with a removable singularity at x = +-1", checks=PTS2),
    Case("abs_value_shear_positive_domain",
         volume("x y", lambda X: [sp.sqrt(X[0] ** 2), X[1] + X[0]], domain={"x": (0, sp.oo)}), "holds",
         "on x > 0: (x, y + x), det 1", checks=({"x": R(1, 3), "y": 2},)),
    Case("abs_value_shear_whole_line", volume("x y", lambda X: [sp.sqrt(X[0] ** 2), X[1] + X[0]]), "fails",
         "(|x|, y + x): det = sign(x), -1 for x < 0", witness={"x": -1, "y": 0}),
]

DIVERGENCE_CASES = [
    Case("abc_flow", divergence("x y z", abc), "holds",
         "each component is independent of its own coordinate", must_decide=True, checks=PTS3),
    Case("lotka_volterra_density", divergence("u v", lambda X: [X[0] * (X[1] - 2), X[1] * (1 - X[0])], INV_UV,
                                              domain=UV_POS), "holds",
         "rho X = ((v - 2)/v, (1 - u)/u): d_u of the first and d_v of the second vanish", must_decide=True,
         checks=PTS_UV),
    Case("lotka_volterra_density_parameters",
         divergence("u v", lambda X: [X[0] * (A - B * X[1]), X[1] * (C * X[0] - a)], INV_UV, domain=UV_POS), "holds",
         "u' = u (A - B v), v' = v (C u - a): the same computation", must_decide=True,
         checks=({"u": R(1, 3), "v": 2, "A": 1, "B": 2, "C": 3, "a": 4},)),
    Case("lotka_volterra_lebesgue", divergence("u v", lambda X: [X[0] * (X[1] - 2), X[1] * (1 - X[0])],
                                               domain=UV_POS), "fails",
         "div X = (v - 2) + (1 - u) = -2 at u = v = 1", must_decide=True, witness={"u": 1, "v": 1}),
    Case("divergence_only_at_a_eq_minus_1", divergence("x y", lambda X: [X[0], a * X[1]]), "fails",
         "div = 1 + a: zero only at a = -1 (the claim is for all a)", must_decide=True,
         witness={"x": 0, "y": 0, "a": 0}),
    Case("conjugate_exp_field", divergence("x y", lambda X: [sp.exp(X[0]) * sp.cos(X[1]),
                                                          -sp.exp(X[0]) * sp.sin(X[1])]), "holds",
         "X = (Re e^z, -Im e^z) (Cauchy-Riemann): div = e^x cos y - e^x cos y = 0", checks=PTS2),
    Case("exp_field", divergence("x y", lambda X: [sp.exp(X[0]) * sp.cos(X[1]), sp.exp(X[0]) * sp.sin(X[1])]),
         "fails", "X = (Re e^z, Im e^z): div = 2 e^x cos y, zero only on the lines cos y = 0",
         witness={"x": 0, "y": 0}),
    Case("hidden_constant_divergence_1e-100",
         divergence("x y", lambda X: [X[0] * pythagoras(X[1]) - X[0] * (1 - EPS100), 0]), "fails",
         "X = (1e-100 x, 0) in disguise: div = 1e-100", witness={"x": 0, "y": 0}),
    Case("pendulum_gibbs_density", divergence("x y", lambda X: [X[1], -sp.sin(X[0])],
                                              lambda X: sp.exp(-(X[1] ** 2 / 2 - sp.cos(X[0])))), "holds",
         "div(e^-H X_H) = e^-H (div X_H - grad H . X_H) = 0 (H = y^2/2 - cos x): the Gibbs measure",
         checks=PTS2),
    Case("pendulum_wrong_density", divergence("x y", lambda X: [X[1], -sp.sin(X[0])],
                                              lambda X: sp.exp(-(X[1] ** 2 / 2 - sp.cos(X[0])) + X[0])), "fails",
         "rho = e^(x - H): div(rho X_H) = rho (d_x(x) y) = rho y, nonzero for y != 0", witness={"x": 0, "y": 1}),
    Case("hamiltonian_field_generic",
         divergence("x y", lambda X: [sp.diff(f(X[0] * X[1]), X[1]), -sp.diff(f(X[0] * X[1]), X[0])]), "holds",
         "X = (H_y, -H_x) with H = f(x y): div = H_yx - H_xy = 0", must_decide=True, checks=PTS2),
    Case("sqrt_divergence_positive_domain",
         divergence("x y", lambda X: [sp.sqrt(X[0] ** 2), -X[1]], domain={"x": (0, sp.oo)}), "holds",
         "on x > 0: (x, -y), div = 0", checks=({"x": R(1, 3), "y": 2},)),
    Case("sqrt_divergence_whole_line", divergence("x y", lambda X: [sp.sqrt(X[0] ** 2), -X[1]]), "fails",
         "(|x|, -y): div = sign(x) - 1 = -2 for x < 0 (sqrt(x^2) -> x would wrongly give 0)",
         witness={"x": -1, "y": 0}),
    Case("density_failing_only_far_away",
         divergence("x y", lambda X: [1, 0], lambda X: 1 + sp.Max(X[0] - BIG, 0) ** 2), "fails",
         "d_x(1 + max(x - 10^6, 0)^2) = 2 max(x - 10^6, 0): zero for x <= 10^6, 2e6 at x = 2e6",
         witness={"x": 2 * BIG, "y": 0}),
    Case("density_failing_only_far_away_outside_domain",
         divergence("x y", lambda X: [1, 0], lambda X: 1 + sp.Max(X[0] - BIG, 0) ** 2, domain={"x": (-5, 5)}),
         "holds", "on |x| < 5 the density is 1 and X is constant", checks=({"x": 1, "y": 2},)),
]

ALL_CASES = VOLUME_CASES + DIVERGENCE_CASES
assert len({c.id for c in ALL_CASES}) == len(ALL_CASES)


# ----------------------------------------------------------------------------- the judge


def _flat_point(point):
    flat = {}
    for key, value in (point or {}).items():
        if isinstance(value, dict):
            flat.update(_flat_point(value))
        else:
            flat[key] = value
    return flat


def _values(expr, names, fill, domain):
    syms = sp.sympify(expr).free_symbols
    by_name = {s.name for s in syms}
    ok, why, values = point_in_domain({k: v for k, v in names.items() if str(k) in by_name}, syms, domain)
    if not ok:
        return None, why
    if fill:
        for s in syms:
            values.setdefault(s, fill_value(s, domain))
    return values, ""


def zero_at(expr, values):
    """Exactly zero at ``values``, or the evalf value shrinks with the precision (< 1e-45 at 50
    digits, < 1e-95 at 100 digits)."""
    e = sp.sympify(expr).xreplace(values)
    if e.has(sp.Derivative, sp.Subs):
        e = e.doit()
    if e == 0:
        return True, "exactly 0"
    v50, v100 = e.evalf(50), e.evalf(100)
    return (not e.free_symbols and abs(v50) < 1e-45 and abs(v100) < 1e-95), f"{v50} / {v100}"


def _concrete(expr):
    return concretize(expr, CONCRETE) if has_undefined(expr) else sp.sympify(expr)


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda case: case.id)
def test_truth_is_established(case):
    data = case.build()
    res = _concrete(data["residual"])
    if case.truth == "fails":
        values, why = _values(res, case.witness, False, data["domain"])
        assert values is not None, why
        verdict, detail = value_at(res, values)
        assert verdict == "nonzero", f"[{case.id}] the witness does not refute: {verdict} ({detail})"
    else:
        assert case.checks, "a 'holds' case needs check points"
        for pt in case.checks:
            values, why = _values(res, pt, False, data["domain"])
            assert values is not None, why
            ok, detail = zero_at(res, values)
            assert ok, f"[{case.id}] residual not zero at {pt}: {detail}"


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
    if case.truth == "fails" and cert.holds is False and not has_undefined(data["residual"]):
        point = _flat_point(cert.counterexample if isinstance(cert.counterexample, dict) else {})
        values, why = _values(data["residual"], point, True, data["domain"])
        if values is None:
            problems.append(f"counterexample outside the domain: {why} ({cert.counterexample})")
        else:
            verdict, detail = value_at(data["residual"], values)
            if verdict != "nonzero":
                problems.append(f"the counterexample {cert.counterexample} is not genuine: {verdict} ({detail})")
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
    for name in ("certify_volume_preserving", "certify_divergence_free"):
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


def _midpoint_linear(names, Bm):
    M = gc.Chart(names)
    new = sp.symbols(" ".join(n.upper() + "1" for n in names.split()))
    x, X = sp.Matrix(M.coords), sp.Matrix(new)
    eqs = list(X - x - h * Bm * (x + X) / 2)
    return gc.ImplicitMap(M, M, eqs, new=list(new))


B2 = sp.Matrix([[1, 2], [3, -1]])  # trace 0
B3 = sp.Matrix([[1, 0, 0], [0, 1, 0], [0, 0, -2]])  # trace 0, det -2


def cayley_det_ratio(Bm):
    """det of the midpoint map of x' = B x: det(I + h B/2) / det(I - h B/2) (plain sympy)."""
    E = sp.eye(Bm.rows)
    return sp.cancel((E + h * Bm / 2).det() / (E - h * Bm / 2).det())


def test_midpoint_linear_truth():
    """Source of truth: det(I + t B) = 1 + t tr B + t^2 E2(B) + t^3 det B; with tr B = 0 the 2D
    ratio det(I + tB)/det(I - tB) is 1, in 3D it is 1 only if det B = 0 (B3: det -2, so the
    midpoint rule is NOT volume-preserving for this divergence-free linear field)."""
    assert cayley_det_ratio(B2) == 1
    r3 = cayley_det_ratio(B3)
    assert r3 != 1 and r3.subs(h, R(1, 2)) == R(25, 27)


def test_midpoint_linear_2d_is_volume_preserving():
    cert = certify_volume_preserving(_midpoint_linear("x y", B2))
    assert cert.holds is not False, f"WRONG False; {cert.counterexample}"


def test_midpoint_linear_3d_is_not_volume_preserving():
    cert = certify_volume_preserving(_midpoint_linear("x y z", B3))
    assert cert.holds is not True, "WRONG True: det D phi = 25/27 at h = 1/2"
    if cert.holds is False:
        point = {str(k): v for k, v in _flat_point(cert.counterexample).items()}
        hv = sp.Rational(sp.sympify(point.get("h", R(1, 2))))
        assert cayley_det_ratio(B3).subs(h, hv) != 1, f"the counterexample {cert.counterexample} is not genuine"


# ----------------------------------------------------------------------------- errors


ZERO_DENSITIES = [
    lambda X: 0,
    lambda X: sp.sin(X[0]) ** 2 + sp.cos(X[0]) ** 2 - 1,
    lambda X: (X[0] + 1) ** 2 - X[0] ** 2 - 2 * X[0] - 1,
]


@pytest.mark.parametrize("density_of", ZERO_DENSITIES, ids=["zero", "trig_identity", "expanded_square"])
def test_identically_zero_density_raises(density_of):
    M = gc.Chart("x y")
    x, y = M.coords
    rho = density_of(M.coords)
    assert sp.simplify(rho) == 0  # the truth: identically zero
    with pytest.raises(GeomcheckError):
        certify_volume_preserving(gc.Map(M, M, [x + 1, y]), rho)
    with pytest.raises(GeomcheckError):
        certify_divergence_free(gc.VectorField(M, [1, 0]), rho)


@pytest.mark.parametrize("call", [
    lambda M, rho: certify_volume_preserving(gc.Map(M, M, [M.coords[0] - 1, M.coords[1]]), rho),
    lambda M, rho: certify_divergence_free(gc.VectorField(M, [1, 0]), rho),
], ids=["volume", "divergence"])
def test_density_zero_on_the_domain_is_not_certified(call):
    """rho = max(x, 0) on the domain x < 0 is identically zero THERE (though not as an expression):
    the claim is vacuous, so the answer must be the zero-density error or None, never a verdict."""
    M = gc.Chart("x y", domain={"x": (-sp.oo, 0)})
    rho = sp.Max(M.coords[0], 0)
    try:
        cert = call(M, rho)
    except GeomcheckError:
        return
    assert cert.holds is None, f"a verdict ({cert.holds}) about the zero density: {cert.method}"


def test_nonzero_density_does_not_raise():
    """A density vanishing on a thin set only (x^2) is not identically zero: a verdict, not an error.
    Truth: rho(phi) det D phi - rho = (x + 1)^2 - x^2 = 2 x + 1 for the translation x -> x + 1."""
    M = gc.Chart("x y")
    x, y = M.coords
    cert = certify_volume_preserving(gc.Map(M, M, [x + 1, y]), x**2)
    assert cert.holds is not True
    cert = certify_divergence_free(gc.VectorField(M, [0, 1]), x**2)  # d_y(x^2) = 0
    assert cert.holds is not False


@pytest.mark.parametrize("call", [
    lambda M: certify_volume_preserving(None),
    lambda M: certify_volume_preserving(gc.Map(M, M, list(M.coords)), sp.Matrix([1, 2])),
    lambda M: certify_volume_preserving(gc.Map(M, M, list(M.coords)), None),
    lambda M: certify_divergence_free(list(M.coords)),
    lambda M: certify_divergence_free(gc.VectorField(M, [1, 0]), sp.Matrix([1, 2])),
    lambda M: certify_volume_preserving(gc.Map(M, gc.Chart("a b c"), [M.coords[0], M.coords[1], 0])),
], ids=["map_None", "density_matrix", "density_None", "field_list", "div_density_matrix", "2d_to_3d"])
def test_bad_input_raises_geomcheck_error(call):
    M = gc.Chart("x y")
    try:
        call(M)
    except GeomcheckError:
        return
    except Exception as exc:  # noqa: BLE001
        fail(f"foreign exception: {short_trace(exc)}")
    fail("no error raised for bad input")


def test_map_between_different_charts_raises():
    M, N = gc.Chart("x y"), gc.Chart("u v")
    with pytest.raises(GeomcheckError):
        certify_volume_preserving(gc.Map(M, N, list(M.coords)))


def test_density_in_other_chart_coordinates():
    """A density written in another chart's coordinates: an error, or read as a parameter (then the
    translation preserves the constant density u: never False)."""
    M, N = gc.Chart("x y"), gc.Chart("u v")
    x, y = M.coords
    try:
        cert = certify_volume_preserving(gc.Map(M, M, [x + 1, y]), 1 + N.coords[0] ** 2)
    except GeomcheckError:
        return
    assert cert.holds is not False


def test_float_perturbation_is_never_true():
    M = gc.Chart("x y")
    x, y = M.coords
    try:
        cert = certify_volume_preserving(gc.Map(M, M, [x + sp.Float(1e-30) * x**2 / 2, y]))
    except GeomcheckError:
        return
    assert cert.holds is not True


def test_certificates_typeset():
    M = gc.Chart("x y")
    x, y = M.coords
    for cert in (certify_volume_preserving(gc.Map(M, M, [y, -x + y**2])),
                 certify_divergence_free(gc.VectorField(M, [x, y]))):
        tex = cert.latex()
        assert isinstance(tex, str) and tex.strip()
