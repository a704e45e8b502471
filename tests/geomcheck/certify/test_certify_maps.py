"""Map certificates: symplectic, conformal, contact, any form; verdicts, factors, bad input."""

import json

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import ChartMismatchError, ExpressionError, GeomcheckError, MixedDegreeError

h = sp.Symbol("h")
V = sp.Function("V")


def canonical(M, n):
    q, p = M.coords[:n], M.coords[n:]
    w = M.d(q[0]) ^ M.d(p[0])
    for i in range(1, n):
        w = w + (M.d(q[i]) ^ M.d(p[i]))
    return w


def verlet(M, n, kick=sp.Rational(1, 2)):
    q, p = list(M.coords[:n]), list(M.coords[n:])
    grad = [V(*q).diff(x) for x in q]
    ph = [p[i] - h / 2 * grad[i] for i in range(n)]
    Q = [q[i] + h * ph[i] for i in range(n)]
    at_Q = dict(zip(q, Q))
    P = [ph[i] - kick * h * gc.substitute(grad[i], at_Q) for i in range(n)]
    return gc.Map(M, M, Q + P, parameters=[h])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_stormer_verlet_is_symplectic_for_every_potential(n):
    M = gc.Chart([f"q{i}" for i in range(n)] + [f"p{i}" for i in range(n)])
    c = gc.certify_symplectic(verlet(M, n), canonical(M, n))
    assert c.holds is True
    assert c.stage in ("structural", "exact", "randomized")
    assert c.counterexample is None


def test_a_kick_at_the_wrong_point_is_not_symplectic_with_a_counterexample():
    M = gc.Chart("q0 q1 p0 p1")
    q0, q1, p0, p1 = M.coords
    grad = [V(q0, q1).diff(x) for x in (q0, q1)]
    # second kick at the predictor q + h p instead of the new position: not a composition of symplectic maps
    Q = [q0 + h * (p0 - h / 2 * grad[0]), q1 + h * (p1 - h / 2 * grad[1])]
    pred = {q0: q0 + h * p0, q1: q1 + h * p1}
    P = [p0 - h / 2 * grad[0] - h / 2 * gc.substitute(grad[0], pred),
         p1 - h / 2 * grad[1] - h / 2 * gc.substitute(grad[1], pred)]
    c = gc.certify_symplectic(gc.Map(M, M, Q + P, parameters=[h]), canonical(M, 2))
    assert c.holds is False
    assert c.stage == "counterexample"
    assert c.counterexample


def test_explicit_euler_is_not_symplectic():
    M = gc.Chart("q p")
    q, p = M.coords
    c = gc.certify_symplectic(gc.Map(M, M, [q + h * p, p - h * sp.sin(q)]), M.d(q) ^ M.d(p))
    assert c.holds is False and c.counterexample


def pendulum_scheme(M, rule):
    q, p = M.coords
    Q, P = sp.symbols("Q P")
    if rule == "midpoint":
        eqs = [Q - q - h * (p + P) / 2, P - p + h * sp.sin((q + Q) / 2)]
    else:  # trapezoidal
        eqs = [Q - q - h * (p + P) / 2, P - p + h * (sp.sin(q) + sp.sin(Q)) / 2]
    return gc.ImplicitMap(M, M, eqs, new=[Q, P], parameters=[h])


def test_implicit_midpoint_is_symplectic_and_trapezoidal_is_not():
    M = gc.Chart("q p")
    q, p = M.coords
    w = M.d(q) ^ M.d(p)
    assert gc.certify_symplectic(pendulum_scheme(M, "midpoint"), w).holds is True
    c = gc.certify_symplectic(pendulum_scheme(M, "trapezoidal"), w)
    assert c.holds is False
    assert "solution manifold" in c.method


def test_conformal_factor_of_a_damped_map():
    M = gc.Chart("q p")
    q, p = M.coords
    g = sp.Symbol("gamma")
    c = gc.certify_conformal_symplectic(gc.Map(M, M, [q + h * p, sp.exp(-g * h) * (p - h * q)]), M.d(q) ^ M.d(p))
    assert c.holds is True
    assert sp.simplify(c.factor - sp.exp(-g * h) * (1 + h**2)) == 0


def test_a_nonconstant_factor_is_not_conformal():
    M = gc.Chart("q p")
    q, p = M.coords
    c = gc.certify_conformal_symplectic(gc.Map(M, M, [q, p * (1 + q**2)]), M.d(q) ^ M.d(p))
    assert c.holds is False
    assert c.counterexample
    assert "not shown constant" in c.method


def test_contact_scaling_and_a_non_contact_map():
    M = gc.Chart("x p z")
    x, p, z = M.coords
    lam = sp.Symbol("lambda", positive=True)
    eta = M.d(z) - p * M.d(x)
    ok = gc.certify_contact(gc.Map(M, M, [x, lam * p, lam * z]), eta)
    assert ok.holds is True and ok.factor == lam
    bad = gc.certify_contact(gc.Map(M, M, [x + z, p, z]), eta)
    assert bad.holds is False and bad.counterexample
    assert bad.factor is None


def test_a_map_that_kills_the_contact_form_is_not_contact():
    M = gc.Chart("x p z")
    x, p, z = M.coords
    c = gc.certify_contact(gc.Map(M, M, [0, 0, 0]), M.d(z) - p * M.d(x))
    assert c.holds is False


def test_preserves_any_form_and_charts_identified_by_position():
    M = gc.Chart("q p")
    N = gc.Chart("Q P")
    q, p = M.coords
    Q, P = N.coords
    rot = gc.Map(M, N, [p, -q])
    assert gc.certify_preserves(rot, N.d(Q) ^ N.d(P), identify="by position").holds is True
    assert gc.certify_preserves(rot, N.d(Q), identify="by position").holds is False
    with pytest.raises(ChartMismatchError, match="identify"):
        gc.certify_preserves(rot, N.d(Q) ^ N.d(P))


def test_certificate_is_not_a_boolean_and_serializes():
    M = gc.Chart("q p")
    q, p = M.coords
    c = gc.certify_symplectic(gc.Map(M, M, [q + h * p, p - h * q]), M.d(q) ^ M.d(p))
    with pytest.raises(TypeError):
        bool(c)
    data = json.loads(c.to_json())
    assert data["holds"] is False and data["claim"] == "phi^* omega == omega"
    tex = c.latex()
    assert r"\varphi^*\omega" in tex and "fails" in tex


def test_bad_input():
    M = gc.Chart("q p")
    M3 = gc.Chart("x p z")
    q, p = M.coords
    x, pz, z = M3.coords
    w = M.d(q) ^ M.d(p)
    with pytest.raises(ChartMismatchError, match="dimension"):
        gc.certify_symplectic(gc.Map(M3, M, [x, z]), w)
    with pytest.raises(MixedDegreeError, match="2-form"):
        gc.certify_symplectic(gc.Map(M, M, [q, p]), M.d(q))
    with pytest.raises(MixedDegreeError, match="contact 1-form"):
        gc.certify_contact(gc.Map(M3, M3, [x, pz, z]), M3.d(x) ^ M3.d(z))
    with pytest.raises(ChartMismatchError, match="odd dimension"):
        gc.certify_symplectic(gc.Map(M3, M3, [x, pz, z]), M3.d(x) ^ M3.d(z))
    with pytest.raises(ExpressionError):
        gc.certify_symplectic("not a map", w)
    with pytest.raises(GeomcheckError):
        gc.certify_contact(gc.Map(M, M, [q, p]), M.d(q))


@pytest.mark.parametrize("symplectic", [True, False])
def test_certificate_json_round_trip(symplectic):
    import json

    from geomcheck.certify.certificate import Certificate
    from geomcheck.errors import InvalidArgumentError

    M = gc.Chart("q p")
    q, p = M.coords
    h = sp.Symbol("h")
    phi = gc.Map(M, M, [q + h * p, p - h * sp.sin(q)] if not symplectic else [q + h * p, p])
    c = gc.certify_symplectic(phi, M.d(q) ^ M.d(p))
    assert c.holds is symplectic
    back = Certificate.from_json(c.to_json())
    assert (back.claim, back.holds, back.method, back.stage) == (c.claim, c.holds, c.method, c.stage)
    assert back.soundness == c.soundness and back.derivation.steps == c.derivation.steps
    assert json.loads(back.to_json()) == json.loads(c.to_json())
    if not symplectic:
        assert back.counterexample and set(back.counterexample) == {str(k) for k in c.counterexample}
    for bad in ("[1, 2]", "{", '{"claim": "x"}', '{"claim": "x", "holds": "maybe", "method": "", "stage": "",'
                                                  ' "derivation": []}'):
        with pytest.raises(InvalidArgumentError, match="certificate"):
            Certificate.from_json(bad)
