"""Rooted trees and P-trees: counts, densities, symmetries, elementary weights."""

import math
import pickle
from fractions import Fraction as F

import pytest

from geomcheck.errors import InvalidArgumentError
from geomcheck.certify.trees import ElementaryWeights, residuals, trees_of_order, trees_up_to

A000081 = [1, 1, 2, 4, 9, 20, 48, 115, 286, 719, 1842, 4766]
A000151 = [1, 2, 7, 26, 107, 458, 2058]  # rooted trees with 2-coloured vertices, halved


def test_counts_match_oeis_a000081():
    assert [len(trees_of_order(n)) for n in range(1, 13)] == A000081


def test_bicoloured_counts_match_twice_oeis_a000151():
    assert [len(trees_of_order(n, colours=2)) for n in range(1, 8)] == [2 * a for a in A000151]


@pytest.mark.parametrize("colours,top", [(1, 10), (2, 6)])
def test_trees_are_distinct_canonical_and_interned(colours, top):
    for n in range(1, top + 1):
        ts = trees_of_order(n, colours)
        keys = {(t.colour, tuple(u.index for u in t.children)) for t in ts}
        assert len(keys) == len(ts)
        for t in ts:
            assert t.order == n
            assert list(t.children) == sorted(t.children)            # canonical: children sorted
            if t.children:
                assert t.last is t.children[-1] and t.rest.children + (t.last,) == t.children
        assert all(a is b for a, b in zip(ts, trees_of_order(n, colours)))   # interned


HAND = {  # tree: (gamma, sigma), computed by hand
    "τ": (1, 1),
    "[τ]": (2, 1),
    "[τ²]": (3, 2),
    "[[τ]]": (6, 1),
    "[τ³]": (4, 6),
    "[τ[τ]]": (8, 1),
    "[[τ²]]": (12, 2),
    "[[[τ]]]": (24, 1),
    "[[τ]²]": (20, 2),
    "[τ⁴]": (5, 24),
    "[[τ³]]": (20, 6),
    "[[[[τ]]]]": (120, 1),
}


def test_gamma_and_sigma_by_hand():
    found = {str(t): (t.gamma, t.sigma) for t in trees_up_to(5)}
    for name, expected in HAND.items():
        assert found[name] == expected, name


@pytest.mark.parametrize("n", range(1, 11))
def test_sigma_and_gamma_through_counting_identities(n):
    ts = trees_of_order(n)
    # labellings: sum n!/sigma = n^(n-1) (Cayley); monotone labellings: sum n!/(sigma gamma) = (n-1)!
    assert sum(F(math.factorial(n), t.sigma) for t in ts) == n ** (n - 1)
    assert sum(F(math.factorial(n), t.sigma * t.gamma) for t in ts) == math.factorial(n - 1)


@pytest.mark.parametrize("n", range(1, 7))
def test_bicoloured_sigma_counts_coloured_labelled_trees(n):
    ts = trees_of_order(n, colours=2)
    assert sum(F(math.factorial(n), t.sigma) for t in ts) == 2 ** n * n ** (n - 1)


def test_string_latex_and_weight_notation():
    t = trees_of_order(5)[1]
    assert str(t) == "[τ²[τ]]" and t.ascii() == "[t^2[t]]"
    assert t._latex() == r"[\tau^{2} [\tau]]"
    assert t.weight_latex() == r"b^{T} (c^{2} \cdot A c)"
    p = trees_of_order(3, colours=2)[2]
    assert str(p) == "[●○]●" and p.ascii() == "[*o]*"
    assert p._latex() == r"[\bullet \circ]_{\bullet}"


def test_pickle_keeps_identity():
    t = trees_of_order(7)[30]
    assert pickle.loads(pickle.dumps(t)) is t


def test_elementary_weights_of_explicit_midpoint():
    w = ElementaryWeights([[[0, 0], [F(1, 2), 0]]], [[0, 1]], 1)
    r = residuals(w, trees_up_to(3), lambda n: F(1, n))
    assert [r[t] for t in trees_up_to(2)] == [0, 0]
    assert {str(t): r[t] for t in trees_of_order(3)} == {"[τ²]": F(-1, 12), "[[τ]]": F(-1, 6)}


def test_elementary_weights_against_direct_sums_for_a_p_tree():
    A = [[F(1, 3), F(1, 5)], [F(2, 7), F(1, 11)]]
    Ah = [[F(1, 2), 0], [F(3, 4), F(1, 6)]]
    b, bh = [F(1, 4), F(3, 4)], [F(2, 3), F(1, 3)]
    w = ElementaryWeights([A, Ah], [b, bh], 1)
    c = [sum(r) for r in A]
    ch = [sum(r) for r in Ah]
    for t in trees_of_order(3, colours=2):
        if str(t) == "[[○]●]○":     # root colour 1 (hat b), child colour 0 (A), grandchild colour 1 (hat c)
            direct = sum(bh[i] * A[i][j] * ch[j] for i in range(2) for j in range(2))
            assert w.phi(t) == direct
        if str(t) == "[●○]●":
            assert w.phi(t) == sum(b[i] * c[i] * ch[i] for i in range(2))


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3"])
def test_bad_orders(bad):
    with pytest.raises(InvalidArgumentError):
        trees_of_order(bad)


def test_orders_beyond_the_generated_range_are_refused():
    with pytest.raises(InvalidArgumentError, match="up to order"):
        trees_of_order(40)
    with pytest.raises(InvalidArgumentError, match="colours"):
        trees_of_order(2, colours=3)
