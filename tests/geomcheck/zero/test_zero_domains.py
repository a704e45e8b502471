"""Domains: points are drawn inside them, verdicts hold on them, and every decision says so."""

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.domain import Domain
from geomcheck.errors import DomainError, UnknownCoordinateError
from geomcheck.zero import decide_all_zero, decide_zero

x, y, h = sp.symbols("x y h")
n = sp.Symbol("n", integer=True)
k = sp.Symbol("k", integer=True, positive=True)
z = sp.Symbol("z", complex=True)
w = sp.Symbol("w", imaginary=True)
r = sp.Symbol("r", positive=True)
V = sp.Function("V")


def test_verdict_depends_on_the_domain():
    assert decide_zero(sp.sqrt(x**2) - x).is_zero is False
    assert decide_zero(sp.sqrt(x**2) - x, domain={x: (0, sp.oo)}).is_zero is True
    d = decide_zero(sp.sqrt(x**2) + x, domain={"x": (-sp.oo, 0)})
    assert d.is_zero is True and "x in (-oo, 0)" in d.method
    assert decide_zero(sp.log(x * y) - sp.log(x) - sp.log(y)).is_zero is False
    assert decide_zero(sp.log(x * y) - sp.log(x) - sp.log(y), domain={x: (0, 1), y: (2, 3)}).is_zero is True


def test_counterexamples_lie_in_the_domain():
    for e, dom in [(sp.Max(x, 5) - 5, {x: (0, 10)}), (sp.Abs(x - 3) - (x - 3), {x: (-1, 4)}),
                   (x - sp.Rational(1, 3), {x: (sp.Rational(1, 4), sp.Rational(1, 2))}),
                   (sp.sin(x) - x, {x: (100, 101)})]:
        d = decide_zero(e, domain=dom)
        lo, hi = dom[x]
        assert d.is_zero is False and lo < d.point["x"] < hi, (e, d.point)
    d = decide_zero(sp.sqrt(r) - r)
    assert d.is_zero is False and d.point["r"] > 0


def test_integer_symbols_are_drawn_widely_or_enumerated():
    assert decide_zero((n - 1) * (n - 2) * (n - 3) * (n - 4)).is_zero is False
    d = decide_zero(sp.prod([n - j for j in range(1, 13)]))
    assert d.is_zero is False and d.point["n"].is_integer
    # on a small domain every value is tried: zero on {1, 2, 3, 4} is proved there
    d = decide_zero((n - 1) * (n - 2) * (n - 3) * (n - 4), domain={n: (0, 5)})
    assert d.is_zero is True
    d = decide_zero((n - 1) * (n - 2) * (n - 3) * (n - 4) * x, domain={n: (0, 6)})
    assert d.is_zero is False and d.point["n"] == 5
    assert decide_zero(sp.cos(2 * sp.pi * k * x) - 1, domain={x: (1, 2)}).is_zero is False
    assert decide_zero((-1) ** (2 * k) - 1).is_zero is True


def test_imaginary_and_complex_symbols():
    assert decide_zero(w**2 + sp.Abs(w) ** 2).is_zero is True
    assert decide_zero(z * sp.conjugate(z) - sp.Abs(z) ** 2).is_zero is True
    d = decide_zero(sp.re(z) - z)
    assert d.is_zero is False and sp.im(d.point["z"]) != 0


def test_soundness_is_data():
    d = decide_zero((x + y) ** 2 - x**2 - 2 * x * y - y**2 + V(x) - V(x))
    assert d.soundness.kind == "proof" and d.soundness.stage == "exact"
    d = decide_zero(V(x + h) ** 2 - V(h + x) * V(x + h) + (x + y) ** 3 - x**3 - y**3 - 3 * x * y * (x + y))
    assert d.soundness.stage in ("exact", "modular")
    d = decide_zero(V(x * (1 + h) - x * h) - V(x))  # jets whose arguments are equal but written differently
    assert d.is_zero is True and d.soundness.stage == "modular"
    assert d.soundness.error_bound is not None and d.soundness.error_bound < 1e-15
    assert "jets" in d.soundness.jet_model
    d = decide_zero(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, domain={x: (0, 1)})
    s = d.soundness
    assert (s.stage, s.kind, s.digits) == ("randomized", "numerical evidence", 50)
    assert "x in (0, 1)" in s.domain and s.points >= 3 and "analytic" in s.analytic
    d = decide_zero(sp.Max(x, 1) - x)
    assert d.is_zero is False and d.soundness.kind == "counterexample"
    assert decide_all_zero([x - x, sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1]).soundness is not None


def test_points_are_seeded_by_the_expression_and_reproducible():
    d1, d2 = decide_zero(x - sp.Rational(1, 7)), decide_zero(x - sp.Rational(1, 7))
    assert d1.point == d2.point
    d3 = decide_zero(x - sp.Rational(1, 9))
    assert d3.point["x"] != d1.point["x"]


def test_bad_domains_are_refused():
    with pytest.raises(DomainError):
        decide_zero(x, domain={x: (1, 0)})
    with pytest.raises(DomainError):
        decide_zero(x, domain={x: (0, "a")})
    with pytest.raises(DomainError):
        decide_zero(r, domain={r: (-1, 0)})
    with pytest.raises(DomainError):
        decide_zero(x, domain=[(x, 0, 1)])
    with pytest.raises(DomainError):
        Domain({w: (0, 1)})
    with pytest.raises(UnknownCoordinateError):
        gc.Chart("q p", domain={"r": (0, 1)})


def test_chart_domain_reaches_the_zero_test():
    M = gc.Chart("r theta", domain={"r": (0, sp.oo)})
    rr, th = M.coords
    form = (sp.sqrt(rr**2) - rr) * M.d(th)
    assert form.is_zero() is True
    N = gc.Chart("r theta")
    assert ((sp.sqrt(N.coords[0] ** 2) - N.coords[0]) * N.d(N.coords[1])).is_zero() is False
    assert M != N and "domain" in repr(M)
