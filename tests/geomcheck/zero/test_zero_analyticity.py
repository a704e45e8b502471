"""The branch analysis: which expressions are one analytic function on the domain."""

import pytest
import sympy as sp

from geomcheck.domain import Domain
from geomcheck.zero.analyticity import analyse
from geomcheck.zero.program import Program

x, y, q1, q2 = sp.symbols("x y q1 q2")
r = sp.Symbol("r", positive=True)
V = sp.Function("V")


def _analysis(e, domain=None):
    prog = Program()
    root = prog.add(e)
    return analyse(prog, prog.reachable([root]), Domain(domain or {}))


@pytest.mark.parametrize("e, domain", [
    (sp.sqrt(1 + x**2), None),
    (sp.log(r), None),
    (sp.log(sp.exp(x)), None),
    (sp.Abs(sp.exp(x)) - sp.exp(x), None),
    (sp.atan(x), None),
    (sp.asin(x / 2), {x: (-1, 1)}),
    (sp.sqrt(x), {x: (0, sp.oo)}),
    (sp.Max(x + 3, y), {x: (0, 1), y: (-1, 1)}),
    (sp.floor(x), {x: (sp.Rational(1, 4), sp.Rational(3, 4))}),
    (sp.Piecewise((x, x > 0), (-x, True)), {x: (1, 2)}),
    (sp.sin(x) + sp.tan(x) + sp.gamma(x), None),
    (sp.besselj(2, x), None),
])
def test_no_switch_on_the_domain(e, domain):
    assert _analysis(e, domain).safe


@pytest.mark.parametrize("e, domain", [
    (sp.sqrt(x**2), None),                       # |x|: x**2 is a square
    (sp.log(x), None),
    (sp.Max(x - sp.Rational(19, 10), 0), None),
    (sp.asin(sp.sin(x)), None),                  # sin x reaches the branch points +-1
    (sp.atan(sp.tan(x)), None),                  # tan passes through poles
    (sp.Abs(x), None),
    (sp.Piecewise((x, x > 0), (-x, True)), None),
    (sp.floor(x), None),
    (sp.sqrt(x) * sp.sqrt(y) - sp.sqrt(x * y), None),   # three radicals, dependent modulo squares
    (sp.sqrt(V(x) ** 2), None),
    (sp.besselj(sp.Rational(1, 2), x), None),
    (sp.log(x**2 + y**2), None),                 # touches the branch point 0
    (sp.asin(x / 2), {x: (-3, 3)}),
])
def test_possible_switch_inside_the_domain(e, domain):
    a = _analysis(e, domain)
    assert not a.safe and a.switches


def test_algebraic_square_roots_are_safe_and_named():
    for e in (sp.sqrt(x) * sp.sqrt(x + 1), 1 / sp.sqrt(q1**2 + q2**2), sp.sqrt(V(x).diff(x) ** 3 + x),
              sp.sqrt(x) * sp.sqrt(y), sp.sqrt(2 * x) + sp.sqrt(3 * y)):
        a = _analysis(e)
        assert a.safe and a.algebraic, e
        assert "square roots" in a.phrase()


def test_radicand_bounded_away_from_the_cut_needs_no_algebra():
    a = _analysis(sp.sqrt(1 + V(x).diff(x) ** 2))
    assert a.safe and not a.algebraic


def test_open_domain_end_at_zero_is_excluded():
    assert _analysis(sp.log(x), {x: (0, 1)}).safe
    assert _analysis(1 / sp.sqrt(x), {x: (0, sp.oo)}).safe
    assert not _analysis(sp.log(x), {x: (-1, 1)}).safe
