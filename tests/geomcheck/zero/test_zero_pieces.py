"""Piecewise expressions split into analytic pieces."""

import sympy as sp

from geomcheck.zero import decide_zero
from geomcheck.zero.pieces import split

x, y = sp.symbols("x y")


def test_split_resolves_every_node_the_switch_decides():
    s, plus, minus = split(sp.Piecewise((x, x > 0), (-x, True)) - sp.Abs(x))
    assert s == x and plus == 0 and minus == 0
    s, plus, minus = split(sp.Max(x, y) - x)
    assert {s, -s} == {x - y, y - x}
    assert {sp.expand(plus), sp.expand(minus)} == {0, y - x}
    s, plus, minus = split(sp.Heaviside(x) * x)
    assert (plus, minus) == (x, 0)
    assert split(x + y) is None


def test_piecewise_identities_are_proved_on_every_piece():
    for e in (sp.Abs(x) ** 2 - x**2, sp.Max(x, y) + sp.Min(x, y) - x - y,
              sp.Piecewise((x, x > 0), (-x, True)) - sp.Abs(x), sp.sign(x) * sp.Abs(x) - x,
              sp.Max(x, 0) - (x + sp.Abs(x)) / 2):
        d = decide_zero(e, budget=10)
        assert d.is_zero is True, (e, d.method)
        assert "every piece" in d.method


def test_a_nonzero_piece_is_found_not_assumed():
    for e in (sp.Abs(x) - x, sp.Max(x - sp.Rational(19, 10), 0), sp.Heaviside(x - 3) * x,
              sp.Piecewise((0, x < 5), (1, True))):
        d = decide_zero(e, budget=10)
        assert d.is_zero is False, (e, d.method)
        assert e.subs(x, d.point["x"]) != 0
