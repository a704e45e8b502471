"""The cuts of labelled trees behind the B-series laws, counted independently.

Each table is checked against a brute-force enumeration over the labelled tree (vertices
numbered, every edge set tried), written here from the definitions and sharing nothing with
geomcheck.bseries.tree_ops except the trees.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from geomcheck.bseries.tree_ops import (
    butcher_product,
    leaf,
    partitions,
    root_subtrees,
    single_cuts,
    tree_from_children,
)
from geomcheck.certify.trees import trees_of_order, trees_up_to
from geomcheck.errors import BSeriesError


def labelled(t):
    """(parent list, colour list) of ``t`` in preorder; parent[0] = -1."""
    parent, colour = [], []

    def walk(u, p):
        me = len(parent)
        parent.append(p)
        colour.append(u.colour)
        for c in u.children:
            walk(c, me)

    walk(t, -1)
    return parent, colour


def unlabelled(vertices, parent, colour, root, colours):
    """The interned tree on ``vertices`` (a connected set containing ``root``) of the labelled tree."""
    kids = [v for v in vertices if parent[v] == root]
    return tree_from_children(colour[root], [unlabelled(vertices, parent, colour, k, colours) for k in kids], colours)


def components(n, parent, kept_edges):
    """Connected parts of the forest on n vertices with the edges (v, parent[v]) for v in kept_edges."""
    up = list(range(n))

    def find(x):
        while up[x] != x:
            up[x] = up[up[x]]
            x = up[x]
        return x

    for v in kept_edges:
        up[find(v)] = find(parent[v])
    groups = {}
    for v in range(n):
        groups.setdefault(find(v), []).append(v)
    return list(groups.values())


def brute_partitions(t):
    parent, colour = labelled(t)
    n = len(parent)
    out = Counter()
    for mask in itertools.product((0, 1), repeat=n - 1):
        kept = [v for v, k in zip(range(1, n), mask) if k]
        parts = components(n, parent, kept)
        piece_of = {v: i for i, part in enumerate(parts) for v in part}
        roots = {i: min(part) for i, part in enumerate(parts)}   # preorder: the smallest vertex is the root
        pieces = tuple(sorted((unlabelled(set(part), parent, colour, roots[i], t.colours) for i, part in enumerate(parts)),
                              key=lambda u: u.index))

        def skeleton(i):
            kids = [j for j in roots if roots[j] != 0 and piece_of[parent[roots[j]]] == i]
            return tree_from_children(colour[roots[i]], [skeleton(j) for j in kids], t.colours)

        out[(skeleton(piece_of[0]), pieces)] += 1
    return out


def brute_root_subtrees(t):
    parent, colour = labelled(t)
    n = len(parent)
    out = Counter()
    for mask in itertools.product((0, 1), repeat=n):
        keep = {v for v in range(n) if mask[v]}
        # a subtree containing the root: closed under taking parents (or empty)
        if keep and (0 not in keep or any(parent[v] not in keep for v in keep if v)):
            continue
        rest = [v for v in range(n) if v not in keep]
        forest = []
        for v in rest:
            if parent[v] == -1 or parent[v] in keep:
                part = {w for w in rest if _below(w, v, parent)}
                forest.append(unlabelled(part, parent, colour, v, t.colours))
        s = unlabelled(keep, parent, colour, 0, t.colours) if keep else None
        out[(s, tuple(sorted(forest, key=lambda u: u.index)))] += 1
    return out


def _below(w, v, parent):
    while w != -1:
        if w == v:
            return True
        w = parent[w]
    return False


def brute_single_cuts(t):
    parent, colour = labelled(t)
    n = len(parent)
    out = Counter()
    for v in range(1, n):
        sub = {w for w in range(n) if _below(w, v, parent)}
        rest = set(range(n)) - sub
        out[(unlabelled(rest, parent, colour, 0, t.colours), unlabelled(sub, parent, colour, v, t.colours))] += 1
    return out


def summed(pairs):
    """Multiplicities added up (a table listing one outcome twice is as good as once with 2)."""
    out = Counter()
    for key, m in pairs:
        out[key] += m
    return out


CASES = [(n, 1) for n in range(1, 7)] + [(n, 2) for n in range(1, 5)]


@pytest.mark.parametrize("n,colours", CASES)
def test_single_cuts_match_the_labelled_tree(n, colours):
    for t in trees_of_order(n, colours):
        got = summed(((s, u), m) for s, u, m in single_cuts(t))
        assert got == brute_single_cuts(t), str(t)
        assert sum(got.values()) == n - 1


@pytest.mark.parametrize("n,colours", CASES)
def test_root_subtrees_match_the_labelled_tree(n, colours):
    for t in trees_of_order(n, colours):
        got = summed(((s, f), m) for s, f, m in root_subtrees(t))
        assert got == brute_root_subtrees(t), str(t)


@pytest.mark.parametrize("n,colours", CASES)
def test_partitions_match_the_labelled_tree(n, colours):
    for t in trees_of_order(n, colours):
        got = summed(((sk, p), m) for sk, p, m in partitions(t))
        assert got == brute_partitions(t), str(t)
        assert sum(got.values()) == 2 ** (n - 1)


def test_butcher_product_and_its_inverse_by_cutting():
    # every tree t = u o v is recovered among its single cuts at the root
    for t in trees_up_to(6):
        for v in set(t.children):
            rest = list(t.children)
            rest.remove(v)
            u = tree_from_children(t.colour, rest)
            assert butcher_product(u, v) is t
            assert any(s is u and w is v for s, w, _m in single_cuts(t))


def test_bicoloured_product_keeps_the_root_colour():
    black, white = leaf(0, 2), leaf(1, 2)
    t = butcher_product(white, black)
    assert t.colour == 1 and t.children == (black,)


def test_bad_trees_are_refused():
    with pytest.raises(BSeriesError, match="one kind"):
        butcher_product(leaf(0, 1), leaf(0, 2))
    big = trees_of_order(14)[0]
    with pytest.raises(BSeriesError, match="beyond the largest generated order"):
        butcher_product(big, leaf())
