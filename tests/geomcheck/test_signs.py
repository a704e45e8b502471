"""The sign prover (geomcheck.signs): proved signs, exhibited zeros and poles, enclosures.

Every expected verdict is established independently of geomcheck: by a theorem named in
the test (exp > 0, a square plus a positive number is positive ...), by exact sympy
arithmetic at the returned point, or by mpmath at 60 digits (the value at a returned
zero, and a sign change within the stated tolerance).  Where the prover may honestly
answer "unknown", the test asserts only that it never answers wrongly.
"""

import random
import time

import mpmath
import pytest
import sympy as sp

from geomcheck.domain import Domain
from geomcheck.errors import ExpressionError, InvalidArgumentError
from geomcheck.signs import SignDecision, decide_defined, decide_sign, domain_point, enclose

x, y, h, g = sp.symbols("x y h gamma")
r = sp.Symbol("r", positive=True)
lam = sp.Symbol("lambda", positive=True)
a_neg = sp.Symbol("a", negative=True)
a_nonneg = sp.Symbol("a", nonnegative=True)
m_nonzero = sp.Symbol("m", nonzero=True)
n = sp.Symbol("n", integer=True)
z = sp.Symbol("z", complex=True)
V = sp.Function("V")
R = sp.Rational


# ----------------------------------------------------------------------------- independent checks


def mp_value(expr, point, dps=60):
    """``expr`` at ``point`` with mpmath (no geomcheck involved)."""
    with mpmath.workdps(dps):
        args = list(point)
        f = sp.lambdify(args, expr, modules="mpmath")
        vals = []
        for s in args:
            v = sp.nsimplify(point[s]) if isinstance(point[s], sp.Float) else point[s]
            vals.append(mpmath.mpf(sp.N(v, dps + 10)) if not v.is_Rational else mpmath.mpf(v.p) / v.q)
        return f(*vals)


def assert_genuine_zero(expr, d):
    """The point is in the domain and expr vanishes there: exactly, or within d.tolerance (a sign change)."""
    assert d.verdict == "vanishes", d
    point = d.point
    if d.exact:
        assert sp.simplify(expr.xreplace(point)) == 0, (expr, point)
        return
    # the bisected coordinate is the one given as a Float; the zero lies within the tolerance of it
    (s,) = [k for k, v in point.items() if isinstance(v, sp.Float)]
    tol = d.tolerance
    assert 0 < tol < sp.Rational(1, 10**10)
    lo, hi = dict(point), dict(point)
    lo[s] = sp.Rational(point[s]) - tol
    hi[s] = sp.Rational(point[s]) + tol
    va, vb = mp_value(expr, lo), mp_value(expr, hi)
    assert va * vb < 0, (expr, point, va, vb)


def assert_positive_on_samples(expr, symbols, ranges, count=200, seed=1):
    """Evidence for a theorem-backed positivity claim: mpmath values at spread points are > 0."""
    rng = random.Random(seed)
    for _ in range(count):
        point = {}
        for s in symbols:
            lo, hi = ranges.get(s, (-50, 50))
            point[s] = sp.Rational(rng.uniform(lo, hi)).limit_denominator(10**6)
        assert mp_value(expr, point) > 0, (expr, point)


# ----------------------------------------------------------------------------- proved signs


@pytest.mark.parametrize("expr", [
    sp.exp(x),                        # exp > 0
    sp.cosh(x),                       # cosh >= 1
    1 + x**2,                         # a square plus 1
    x**2 + y**2 + R(1, 10**9),        # squares plus a positive number
    1 / (1 + x**2),
    sp.sqrt(1 + x**2),
    sp.Abs(x) + 1,
    sp.Max(x, 1),                     # Max(x, 1) >= 1
    sp.exp(-g * h),                   # the conformal factor of linear damping
    (h**2 + 1) * sp.exp(x),
    2 + sp.sin(x),                    # sin >= -1
    x**2 - 2 * x + 2,                 # (x - 1)**2 + 1
    sp.cosh(x) - R(1, 2),
    sp.atan(x) + 2,                   # atan > -pi/2
], ids=str)
def test_positive_by_structure_and_intervals(expr):
    d = decide_sign(expr)
    assert d.verdict == "positive", d
    assert d.nowhere_zero is True and d.point is None
    assert_positive_on_samples(expr, sorted(expr.free_symbols, key=str), {})


@pytest.mark.parametrize("expr", [-sp.exp(x) * (1 + y**2), -(1 + x**4), a_neg, a_neg * sp.exp(x), -lam], ids=str)
def test_negative(expr):
    assert decide_sign(expr).verdict == "negative"


def test_assumptions_decide_the_sign_of_parameters():
    assert decide_sign(lam).verdict == "positive"
    assert decide_sign(lam * (1 + x**2)).verdict == "positive"
    assert decide_sign(r * sp.exp(-r)).verdict == "positive"          # r > 0
    assert decide_sign(1 / r + sp.log(r) ** 2).verdict == "positive"   # r > 0: 1/r > 0, log(r) real
    # nonzero=True: m never 0, so m is nowhere zero (of either sign) and m**2 is positive
    assert decide_sign(m_nonzero).verdict == "nonzero"
    assert decide_sign(m_nonzero**2).verdict == "positive"
    # a nonnegative symbol may be 0 (its assumptions allow it): neither it nor exp(a) - 1 is nowhere zero
    d = decide_sign(a_nonneg)
    assert d.verdict == "vanishes" and d.point == {a_nonneg: 0}
    assert decide_sign(a_nonneg + 1).verdict == "positive"
    # m (y**2 + 1) and m (1 + m**2 exp(y)) change sign only across m = 0, which m's domain excludes
    # (two half lines)
    assert decide_sign(m_nonzero * y**2 + m_nonzero, budget=1.0).verdict in ("nonzero", "unknown")
    assert decide_sign(m_nonzero + m_nonzero**3 * sp.exp(y), budget=1.0).verdict in ("nonzero", "unknown")
    assert domain_point([m_nonzero])[m_nonzero] != 0
    assert_genuine_zero(sp.exp(a_nonneg) - 1, decide_sign(sp.exp(a_nonneg) - 1))


def test_integer_symbols_only_take_integer_values():
    # 2n - 1 is odd, n**2 - 2 has the irrational roots +-sqrt(2): both nowhere zero on the integers
    assert decide_sign(2 * n - 1).verdict == "nonzero"
    assert decide_sign(n**2 - 2).verdict == "nonzero"
    e = (n - 1) * (n - 2) * (n - 3) * (n - 4)
    d = decide_sign(e)
    assert d.verdict == "vanishes" and d.point[n] in (1, 2, 3, 4)
    assert_genuine_zero(e, d)


def test_domains_of_coordinates():
    D = Domain({x: (1, 2), y: (0, 1)})
    assert_genuine_zero(x - R(3, 2), decide_sign(x - R(3, 2), D))
    assert decide_sign(x - 3, D).verdict == "negative"
    # the ends are open: 1/(x - 1) is defined and positive on (1, 2), x (1 - y) positive on the open square
    assert decide_sign(1 / (x - 1), D).verdict == "positive"
    assert decide_sign(x * (1 - y), Domain({x: (0, 1), y: (0, 1)})).verdict == "positive"
    # sin vanishes at pi in (1, 4); cos at pi/2 in (1, 2)
    for expr, dom in ((sp.sin(x), Domain({x: (1, 4)})), (sp.cos(x), Domain({x: (1, 2)}))):
        d = decide_sign(expr, dom)
        assert_genuine_zero(expr, d)
        assert 1 < d.point[x] < 4


# ----------------------------------------------------------------------------- tiny margins


def test_tiny_margins_are_decided_exactly_for_rational_functions():
    eps = R(1, 10**30)
    assert decide_sign((x - 1) ** 2 + eps).verdict == "positive"
    assert decide_sign((x - R(1, 3)) ** 2 + R(1, 10**40)).verdict == "positive"
    # (x - 1)**2 - 1e-30 vanishes at the rational points 1 +- 1e-15
    e = (x - 1) ** 2 - eps
    d = decide_sign(e)
    assert_genuine_zero(e, d)
    assert abs(d.point[x] - 1) == R(1, 10**15)


@pytest.mark.parametrize("expr", [
    (x - y) ** 2 + R(1, 10**30),                       # a square plus a positive number
    sp.exp(x) - 1 - x + R(1, 10**20),                  # exp(x) >= 1 + x
    (sp.sin(x) ** 2 + R(1, 10**25)) * (1 + y**2),
], ids=str)
def test_tiny_positive_margins_are_never_called_zero_or_negative(expr):
    d = decide_sign(expr, budget=1.0)
    assert d.verdict in ("positive", "unknown"), d


@pytest.mark.parametrize("expr", [
    (x - y) ** 2 - R(1, 10**30),
    sp.exp(x) - 1 - x - R(1, 10**20),                  # zeros near +-sqrt(2e-20)
    sp.tanh(x) - R(1, 2),                              # atanh(1/2), not recognised in closed form
    sp.exp(x) - x**3,
], ids=str)
def test_zeros_found_through_a_sign_change_are_genuine(expr):
    assert_genuine_zero(expr, decide_sign(expr))


def test_exact_zeros():
    for expr, want in ((sp.exp(-x) - R(1, 2), {x: sp.log(2)}), (x**2 - 2, None), (sp.cosh(x) - 1, {x: 0}),
                       (1 - h * g, None), (x**2 + y**2, {x: 0, y: 0})):
        d = decide_sign(expr)
        assert d.exact, d
        assert_genuine_zero(expr, d)
        if want is not None:
            assert d.point == want
    d = decide_sign(x**3 - x - 1)   # one real root, a CRootOf
    assert_genuine_zero(x**3 - x - 1, d)


# ----------------------------------------------------------------------------- unbounded domains, poles


def test_unbounded_domains():
    assert decide_sign(x * sp.exp(-x), Domain({x: (0, sp.oo)})).verdict == "positive"
    assert decide_sign(sp.exp(-x**2)).verdict == "positive"
    # atan(x) + pi/2 > 0 and 1 - exp(-x) > 0 on (0, oo): true, but the bound is only reached at infinity
    # or at the open end; the prover may not get there, and must not say otherwise
    assert decide_sign(sp.atan(x) + sp.pi / 2, budget=1.0).verdict in ("positive", "unknown")
    assert decide_sign(1 - sp.exp(-x), Domain({x: (0, sp.oo)}), budget=1.0).verdict in ("positive", "unknown")
    d = decide_sign(sp.exp(x) - 10**6)           # the zero log(10**6) is far out
    assert_genuine_zero(sp.exp(x) - 10**6, d)


@pytest.mark.parametrize("expr, point", [
    (1 / x, {x: 0}),
    (1 / (x - R(1, 3)), {x: R(1, 3)}),
    (sp.sin(x) / x, {x: 0}),                      # undefined as written at 0 (0/0)
    (sp.log(x) ** 2 + 1, None),                   # log(x) is not real for x <= 0 (and this has no zero)
    (sp.sqrt(x - 1) + 1, None),                   # nor sqrt(x - 1) for x < 1
    (1 / (x**2 + y**2 - 1), None),
], ids=str)
def test_poles_and_points_outside_the_real_domain_are_shown(expr, point):
    d = decide_sign(expr)
    assert d.verdict == "undefined", d
    assert d.nowhere_zero is None
    if point is not None:
        assert d.point == point
    value = expr.xreplace(d.point) if d.exact else None
    if value is not None:
        # exact evaluation at the point: not a finite real number
        assert value.has(sp.zoo, sp.nan, sp.I) or value.is_real is False, value


@pytest.mark.parametrize("expr, dom", [
    (sp.tan(x), Domain({x: (1, 2)})),          # changes sign across its pole pi/2; no zero in (1, 2)
    (1 / (sp.exp(x) - 2), None),               # changes sign across its pole log 2; never zero
], ids=["tan", "exp-pole"])
def test_a_sign_change_across_a_pole_is_not_a_zero(expr, dom):
    d = decide_sign(expr, dom, budget=1.0)
    assert d.verdict in ("undefined", "unknown"), d


def test_tan_has_poles():
    d = decide_sign(sp.tan(x) + 100)
    assert d.verdict == "undefined"
    assert sp.simplify(sp.cos(d.point[x])) == 0
    assert decide_sign(sp.tan(x) + 100, Domain({x: (-1, 1)}), budget=1.0).verdict in ("positive", "unknown")


def test_log_on_the_positive_half_line_vanishes_at_one():
    d = decide_sign(sp.log(r))
    assert d.verdict == "vanishes" and d.point == {r: 1}


# ----------------------------------------------------------------------------- undefined functions, opaque symbols


def test_undefined_functions_are_arbitrary():
    # any smooth V: V(x) and V(x)**2 vanish for some V and not for others -- neither is decided
    for expr in (V(x), V(x) ** 2, V(x) - V(y), V(x) * (1 + x**2), sp.Derivative(V(x), x)):
        d = decide_sign(expr, budget=1.0)
        assert d.verdict == "unknown", (expr, d)
        assert "V" in d.reason
    # ... but their structure can fix the sign for every V
    for expr in (sp.exp(V(x)), 1 + V(x) ** 2, 2 + sp.sin(V(x)), (h**2 + 1) * sp.exp(V(x)), sp.cosh(V(x))):
        assert decide_sign(expr).verdict == "positive", expr
    # ... or a factor free of V vanishes: then the product does, for every V
    d = decide_sign(h * sp.exp(V(x)))
    assert d.verdict == "vanishes" and d.point[h] == 0
    # a factor that may be infinite (1/V) spoils that
    assert decide_sign(h / V(x), budget=1.0).verdict == "unknown"


def test_opaque_symbols_are_arbitrary_reals_never_chosen():
    u = sp.Symbol("u")
    assert decide_sign(1 + u**2, opaque=[u]).verdict == "positive"
    assert decide_sign(u, opaque=[u], budget=1.0).verdict == "unknown"        # u = 0 may not be attainable
    assert decide_sign(u * h, opaque=[u]).point[h] == 0                       # h = 0 kills it for every u


def test_complex_symbols():
    assert decide_sign(sp.exp(z)).verdict == "nonzero"        # exp has no zero in C
    assert decide_sign(z**2 + 1).verdict == "unknown"         # signs of complex values are not defined


def test_numbers():
    assert decide_sign(sp.pi - R(355, 113)).verdict == "negative"       # 355/113 = 3.14159292... > pi
    assert decide_sign(sp.exp(-800)).verdict == "positive"
    d = decide_sign(sp.sqrt(2) * sp.sqrt(3) - sp.sqrt(6))
    assert d.verdict == "vanishes"
    assert decide_sign(sp.S.Zero).verdict == "vanishes"


# ----------------------------------------------------------------------------- enclosures


ENCLOSURE_CASES = [
    (x * y - x, {x: (-2, 3), y: (-1, 1)}),
    (sp.exp(x) * sp.sin(y), {x: (-3, 2), y: (0, 7)}),
    (sp.sqrt(x) / (1 + y**2), {x: (0, 4), y: (-5, 5)}),
    (sp.log(1 + x**2) - sp.atan(y), {x: (-10, 10), y: (-10, 10)}),
    (sp.cos(x) ** 3 + sp.tanh(y), {x: (-1, 9), y: (-2, 2)}),
    (x ** -2 + y ** R(1, 3), {x: (1, 2), y: (0, 8)}),
    (sp.Abs(x - y) + sp.Max(x, y**2), {x: (-1, 1), y: (-2, 1)}),
    (sp.erf(x) * sp.cosh(y) - sp.asinh(x * y), {x: (-2, 2), y: (-1, 3)}),
    (sp.exp(-x**2) + 1 / (1 + y**2), {x: (-sp.oo, sp.oo), y: (-sp.oo, sp.oo)}),
    (2**x - x**R(3, 2), {x: (0, 5)}),
]


@pytest.mark.parametrize("expr, box", ENCLOSURE_CASES, ids=[str(c[0]) for c in ENCLOSURE_CASES])
def test_enclosures_contain_every_value(expr, box):
    iv = enclose(expr, box)
    assert not iv.pole
    rng = random.Random(7)
    for _ in range(60):
        point = {}
        for s, (lo, hi) in box.items():
            lo_f = -40.0 if lo == -sp.oo else float(lo)
            hi_f = 40.0 if hi == sp.oo else float(hi)
            point[s] = sp.Rational(rng.uniform(lo_f, hi_f)).limit_denominator(10**5)
        v = mp_value(expr, point, dps=30)
        assert iv.lo <= v <= iv.hi, (expr, point, v, iv)


def test_enclosure_poles():
    assert enclose(1 / x, {x: (-1, 1)}).pole
    assert not enclose(1 / x, {x: (0, sp.oo)}).pole           # the open end 0 is not reached
    assert enclose(1 / x, {x: (0, 1)}, closed=True).pole      # ... unless the ends are closed
    assert enclose(sp.log(x), {x: (-1, 1)}).pole
    assert enclose(sp.sqrt(x), {x: (-1, 1)}).pole
    assert enclose(sp.tan(x), {x: (1, 2)}).pole               # pi/2 inside
    assert not enclose(sp.tan(x), {x: (0, 1)}).pole
    assert not enclose(sp.log(r) / r).pole                    # from r's assumptions
    assert enclose(z + 1).pole                                # not real
    iv = enclose(V(x) + sp.Derivative(V(x), x))               # any smooth V: finite, any value
    assert not iv.pole and iv.lo == -float("inf") and iv.hi == float("inf")
    assert enclose(1 / (x - 1), Domain({x: (1, 2)})).lo > 0.99   # 1/(x - 1) > 1: x - 1 > 0 by exact root counting


def test_enclosure_at_a_point():
    iv = enclose(sp.exp(x) - 1 - x, {x: (0, 0)})
    assert iv.lo <= 0 <= iv.hi and iv.hi - iv.lo < 1e-14


def test_bad_input():
    with pytest.raises(ExpressionError, match="sympy expression"):
        enclose("not an expression")
    with pytest.raises(ExpressionError):
        decide_sign(x > 1)
    with pytest.raises(InvalidArgumentError, match="empty"):
        enclose(x, {x: (2, 1)})
    with pytest.raises(InvalidArgumentError, match="Symbol"):
        enclose(x, {"x": (0, 1)})
    with pytest.raises(InvalidArgumentError, match="budget"):
        decide_sign(x, budget=0)
    with pytest.raises(TypeError):
        bool(decide_sign(x))


# ----------------------------------------------------------------------------- definedness, points, budgets


def test_decide_defined():
    assert decide_defined(x / (1 + x**2)).verdict == "defined"
    assert decide_defined(sp.log(1 + x**2) + V(x)).verdict == "defined"
    d = decide_defined(-y / (x**2 + y**2))
    assert d.verdict == "undefined" and d.point == {x: 0, y: 0}
    assert decide_defined(-y / (x**2 + y**2), Domain({x: (0, 1)})).verdict == "defined"
    assert decide_defined(sp.sqrt(x)).verdict == "undefined"
    assert decide_defined(1 / (x**2 - 2 * x + 2)).verdict == "defined"    # no real zero of the denominator


def test_domain_point():
    assert domain_point([x, r, a_neg]) == {x: 0, r: 1, a_neg: -1}
    assert domain_point([x], Domain({x: (2, 3)})) == {x: R(5, 2)}


def test_the_budget_bounds_the_time():
    hard = sp.exp(x) - 1 - x + R(1, 10**20) + sp.sin(y) ** 2 * sp.exp(-y**2)
    start = time.monotonic()
    d = decide_sign(hard, budget=0.5)
    assert time.monotonic() - start < 5
    assert d.verdict in ("positive", "unknown")


def test_decisions_are_small_frozen_objects():
    d = decide_sign(1 + x**2)
    assert isinstance(d, SignDecision)
    with pytest.raises(AttributeError):
        d.verdict = "negative"
    assert str(d).startswith("positive")
