"""Domains: intervals per symbol, defaults from assumptions, refusal of malformed ones."""

import pytest
import sympy as sp

from geomcheck.domain import Domain, describe_pairs
from geomcheck.errors import DomainError

x, y = sp.symbols("x y")
r = sp.Symbol("r", positive=True)
s = sp.Symbol("s", negative=True)
n = sp.Symbol("n", integer=True)
w = sp.Symbol("w", imaginary=True)
z = sp.Symbol("z", complex=True)


def test_defaults_come_from_assumptions():
    D = Domain()
    assert D.interval(x) == (-sp.oo, sp.oo) and D.kind(x) == "real"
    assert D.interval(r) == (0, sp.oo) and D.interval(s) == (-sp.oo, 0)
    assert D.kind(n) == "integer" and D.kind(w) == "imaginary" and D.kind(z) == "complex"
    assert D.interval(w) is None and D.interval(z) is None


def test_explicit_intervals_by_symbol_and_by_name():
    D = Domain({x: (0, 1), "y": sp.Interval(-2, 3)})
    assert D.interval(x) == (0, 1) and D.interval(y) == (-2, 3)
    assert D.interval(sp.Symbol("y", positive=True)) == (0, 3)       # the name, cut by the assumptions
    assert not D.is_default(x) and D.is_default(r)
    assert D.interval(x) == Domain({x: (0.0, 1.0)}).interval(x)      # Floats taken exactly
    assert D != Domain({x: (0, 2)}) and D == Domain({x: (0, 1), "y": (-2, 3)})
    merged = D.merged({x: (sp.Rational(1, 2), 1)})
    assert merged.interval(x) == (sp.Rational(1, 2), 1) and merged.interval(y) == (-2, 3)


@pytest.mark.parametrize("spec", [{x: (1, 0)}, {x: (0, 0)}, {x: (0, sp.I)}, {x: (0, "a")}, {x: 3},
                                  {r: (-1, 1)}, {s: (0, 1)}, {w: (0, 1)}, {3: (0, 1)}, {x: (sp.oo, sp.oo)}])
def test_malformed_domains_are_refused(spec):
    with pytest.raises(DomainError):
        Domain(spec)


def test_descriptions_group_symbols():
    D = Domain({x: (0, 1)})
    assert D.describe([x, y, r, n]) == "x in (0, 1), y in (-oo, oo), r in (0, oo), n an integer"
    syms = sp.symbols("a0:20")
    assert "(20 symbols)" in D.describe(syms)
    assert describe_pairs([("a", "in (0, 1)"), ("b", "in (0, 1)"), ("k", "an integer"), ("m", "an integer")]) == \
        "a, b in (0, 1), k, m integers"
