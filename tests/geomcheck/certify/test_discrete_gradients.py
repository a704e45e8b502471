"""Discrete gradients: AVF, Gonzalez and Itoh-Abe for generic and concrete V; wrong ones; bad input."""

import json

import pytest
import sympy as sp

from geomcheck.certify.discrete_gradients import (
    avf_gradient,
    certify_discrete_gradient,
    gonzalez_gradient,
    itoh_abe_gradient,
    midpoint_gradient,
)
from geomcheck.errors import DiscreteGradientError, ExpressionError, GeomcheckError

V = sp.Function("V")
GRADIENTS = {"avf": avf_gradient, "gonzalez": gonzalez_gradient, "itoh-abe": itoh_abe_gradient}


def points(n):
    return sp.symbols(f"u1:{n + 1}"), sp.symbols(f"v1:{n + 1}")


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_discrete_gradients_of_a_generic_function(name, n):
    u, v = points(n)
    g = GRADIENTS[name](V, None, u, v)
    cert = certify_discrete_gradient(g, V, u, v)
    assert cert.holds is True, cert.method
    assert cert.stage in ("structural", "exact", "randomized")
    assert cert.counterexample is None
    assert "(i)" in cert.method and "(ii)" in cert.method


def test_generic_avf_is_kept_as_integrals_and_proved_by_the_fundamental_theorem():
    u, v = points(2)
    g = avf_gradient(V, None, u, v)
    assert all(isinstance(gi, sp.Integral) for gi in g)
    cert = certify_discrete_gradient(g, V, u, v)
    assert "fundamental theorem of calculus" in cert.method
    assert "continuous" in cert.method


def test_methods_name_the_limit_arguments():
    u, v = points(2)
    gon = certify_discrete_gradient(gonzalez_gradient(V, None, u, v), V, u, v)
    assert "d1**2 + d2**2" in gon.method and "limit v -> u exists" in gon.method
    ia = certify_discrete_gradient(itoh_abe_gradient(V, None, u, v), V, u, v)
    assert "Hadamard" in ia.method
    # in one dimension Gonzalez' gradient has the denominator (u1 - v1)^2: Hadamard of order 2
    u1, v1 = points(1)
    g1 = certify_discrete_gradient(gonzalez_gradient(V, None, u1, v1), V, u1, v1)
    assert g1.holds is True and "Hadamard" in g1.method


X3 = sp.symbols("x1:4")
CONCRETE = [
    X3[0] ** 3 + X3[0] * X3[1] ** 2 - X3[2] ** 4 + 2 * X3[1] * X3[2],
    sp.sin(X3[0]) * X3[1] + sp.exp(X3[2]) + X3[0] ** 2 * X3[2],
    (X3[0] ** 2 + X3[1] ** 2 + X3[2] ** 2) ** 2 / 4 - X3[0] * X3[1] * X3[2],
]


@pytest.mark.parametrize("k", range(len(CONCRETE)))
@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_discrete_gradients_of_concrete_functions(name, k):
    u, v = points(3)
    pot = CONCRETE[k]
    g = GRADIENTS[name](pot, X3, u, v)
    cert = certify_discrete_gradient(g, pot, u, v, x=X3)
    assert cert.holds is True, cert.method


def test_avf_of_polynomials_is_exact():
    x, u, v = sp.symbols("x u v")
    assert avf_gradient(x**3, [x], [u], [v]) == (u**2 + u * v + v**2,)
    # quadratic V = x^T A x / 2: the AVF gradient is A (u + v)/2, the midpoint gradient
    x1, x2 = sp.symbols("x1 x2")
    (u1, u2), (v1, v2) = points(2)
    quad = 3 * x1**2 / 2 + x1 * x2 - x2**2
    avf = avf_gradient(quad, [x1, x2], [u1, u2], [v1, v2])
    mid = midpoint_gradient(quad, [x1, x2], [u1, u2], [v1, v2])
    assert all(sp.expand(p - q) == 0 for p, q in zip(avf, mid))
    assert certify_discrete_gradient(mid, quad, [u1, u2], [v1, v2], x=[x1, x2]).holds is True
    # unevaluated on request, and still certified
    lazy = avf_gradient(quad, [x1, x2], [u1, u2], [v1, v2], evaluate=False)
    assert all(isinstance(gi, sp.Integral) for gi in lazy)
    assert certify_discrete_gradient(lazy, quad, [u1, u2], [v1, v2], x=[x1, x2]).holds is True


def test_the_midpoint_gradient_of_a_cubic_is_not_a_discrete_gradient():
    x1, x2 = sp.symbols("x1 x2")
    u, v = points(2)
    cubic = x1**3 + x1 * x2**2
    cert = certify_discrete_gradient(midpoint_gradient(cubic, [x1, x2], u, v), cubic, u, v, x=[x1, x2])
    assert cert.holds is False and cert.stage == "counterexample"
    assert "condition (i) fails" in cert.method
    point = {sp.Symbol(k): sp.Rational(val) for k, val in cert.counterexample.items()}
    assert set(point) == set(u) | set(v)
    residual = cert.residual["(i)"]
    assert residual.xreplace(point) != 0          # the counterexample is a real one
    # for a generic V the same guess fails too (random jets: a smooth V with them exists)
    gen = certify_discrete_gradient(midpoint_gradient(V, None, u, v), V, u, v)
    assert gen.holds is False and gen.counterexample


def test_wrong_integral_gradients_get_exact_counterexamples():
    u, v = points(2)
    g = avf_gradient(V, None, u, v)
    cert = certify_discrete_gradient((2 * g[0], g[1]), V, u, v)
    assert cert.holds is False
    assert "polynomial" in cert.method and "V" in cert.counterexample
    x1, x2 = sp.symbols("x1 x2")
    cubic = x1**3 + x1 * x2**2
    lazy = avf_gradient(cubic, [x1, x2], u, v, evaluate=False)
    bad = (lazy[0], lazy[1] + (u[0] - v[0]) * (u[1] - v[1]))
    cert = certify_discrete_gradient(bad, cubic, u, v, x=[x1, x2])
    assert cert.holds is False and set(cert.counterexample) == {"u1", "u2", "v1", "v2"}


def test_consistency_failures():
    (u1, u2), (v1, v2) = u, v = points(2)
    d1, d2 = u1 - v1, u2 - v2
    base = itoh_abe_gradient(V, None, u, v)
    # w is orthogonal to u - v, so (i) still holds; bounded but direction-dependent at v = u
    w = (-d2 * d1 / (d1**2 + d2**2), d1**2 / (d1**2 + d2**2))
    cert = certify_discrete_gradient([base[0] + w[0], base[1] + w[1]], V, u, v)
    assert cert.holds is False and "(ii)" in cert.method
    assert "(i) the residual" in cert.method and "is zero" in cert.method
    # unbounded near the diagonal
    w = (-d2 / (d1**2 + d2**2), d1 / (d1**2 + d2**2))
    cert = certify_discrete_gradient([base[0] + w[0], base[1] + w[1]], V, u, v)
    assert cert.holds is False and "unbounded" in cert.method
    # V = x1 x2: V(u) - V(v) = u2 (u1 - v1) + v1 (u2 - v2), and any continuous term orthogonal
    # to u - v keeps (i) but vanishes on the diagonal, so it stays a discrete gradient
    x1, x2 = sp.symbols("x1 x2")
    pot = x1 * x2
    for g in [(u2, v1), (u2 + d2, v1 - d1)]:
        assert certify_discrete_gradient(g, pot, u, v, x=[x1, x2]).holds is True
    cert = certify_discrete_gradient((u2 + 1, v1), pot, u, v, x=[x1, x2])
    assert cert.holds is False and "(i)" in cert.method
    assert "component 1" in cert.method and cert.residual["(ii)"][0] == 1


def test_non_smooth_candidates_are_left_undecided_not_proved():
    (u1, u2), (v1, v2) = u, v = points(2)
    x1, x2 = sp.symbols("x1 x2")
    pot = x1**2 + x2**2
    d1, d2 = u1 - v1, u2 - v2
    r = sp.sqrt(d1**2 + d2**2)
    # u + v plus a term orthogonal to u - v of size |u - v|^0: (i) holds, the limit does not exist,
    # and the square root of |u - v|^2 is not smooth across the diagonal
    g = (u1 + v1 - d2 / r, u2 + v2 + d1 / r)
    cert = certify_discrete_gradient(g, pot, u, v, x=[x1, x2])
    assert cert.holds is None and "not smooth" in cert.method
    assert "(i) the residual" in cert.method


def test_other_ways_to_give_the_function():
    (u1, u2), (v1, v2) = u, v = points(2)
    y1, y2 = sp.symbols("y1 y2")
    lam = sp.Lambda((y1, y2), y1**2 * y2 + sp.cos(y2))
    g = itoh_abe_gradient(lam, None, u, v)
    assert certify_discrete_gradient(g, lam, u, v).holds is True
    g = gonzalez_gradient(lambda a, b: a**4 - a * b, None, u, v)
    assert certify_discrete_gradient(g, lambda a, b: a**4 - a * b, u, v).holds is True
    expr_in_u = u1**3 + u2**2
    g = avf_gradient(expr_in_u, None, u, v)
    assert certify_discrete_gradient(g, expr_in_u, u, v).holds is True


def test_certificate_latex_and_json():
    u, v = points(2)
    cert = certify_discrete_gradient(gonzalez_gradient(V, None, u, v), V, u, v)
    doc = cert.document()
    assert doc.startswith("\\documentclass") and "discrete chain rule" in doc and "The claim holds" in doc
    data = json.loads(cert.to_json())
    assert data["holds"] is True and "(i)" in data["residual"]


def test_bad_input():
    u, v = points(2)
    x1, x2 = sp.symbols("x1 x2")
    with pytest.raises(DiscreteGradientError, match="coordinates"):
        certify_discrete_gradient([0], V, u, v)
    with pytest.raises(DiscreteGradientError):
        avf_gradient(V, None, u, v[:1])
    with pytest.raises(DiscreteGradientError, match="share"):
        gonzalez_gradient(V, None, u, (u[0], v[1]))
    with pytest.raises(DiscreteGradientError, match="Symbols"):
        itoh_abe_gradient(V, None, (u[0], 2), v)
    with pytest.raises(DiscreteGradientError, match="repeats"):
        itoh_abe_gradient(V, None, (u[0], u[0]), v)
    with pytest.raises(DiscreteGradientError):
        avf_gradient(x1 * x2, [x1], u, v)
    with pytest.raises(DiscreteGradientError, match="besides"):
        avf_gradient(x1 * u[0], [x1, x2], u, v)
    with pytest.raises(ExpressionError):
        certify_discrete_gradient(["not", "exprs"], V, u, v)
    with pytest.raises(ExpressionError):
        avf_gradient(object(), None, u, v)
    with pytest.raises(GeomcheckError):
        certify_discrete_gradient([0, 0], V, [], [])
