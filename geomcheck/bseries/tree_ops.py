"""Operations on rooted trees that the laws of B-series are sums over.

With the normalisation ``B(a, y) = a(∅) y + sum_t h^|t| / sigma(t) a(t) F(t)(y)``
(Hairer, Lubich, Wanner, *Geometric Numerical Integration*, III.1), every law is a sum over
the ways of cutting one *labelled* tree, each way counted once; the symmetry factors
``sigma`` then take care of themselves.  Trees are unlabelled here (interned
:class:`~geomcheck.certify.trees.RootedTree` objects), so each function below groups equal
outcomes and returns their multiplicity:

* :func:`single_cuts` -- remove one edge: the part that keeps the root and the subtree that
  falls off (derivatives of B-series, hence exponential and logarithm);
* :func:`root_subtrees` -- keep a subtree containing the root (possibly empty); the rest is
  a forest (the composition law of the Butcher group);
* :func:`partitions` -- remove any set of edges: the pieces, and the skeleton obtained by
  contracting each piece to one vertex (the substitution law of Chartier, Hairer, Vilmart).

Each is computed once per tree and remembered (the trees of one family are interned, so
the tables are shared by every series).

>>> from geomcheck.certify.trees import trees_of_order
>>> bush = trees_of_order(3)[0]                       # [τ²]
>>> [(str(s), str(u), m) for s, u, m in single_cuts(bush)]
[('[τ]', 'τ', 2)]
>>> sorted((str(s), [str(f) for f in forest], m) for s, forest, m in root_subtrees(bush)
...        if s is not None)
[('[τ]', ['τ'], 2), ('[τ²]', [], 1), ('τ', ['τ', 'τ'], 1)]
>>> str(butcher_product(trees_of_order(1)[0], trees_of_order(2)[0]))
'[[τ]]'
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ..caches import register
from ..certify.trees import MAX_ORDER, RootedTree, trees_of_order
from ..errors import BSeriesError

__all__ = [
    "tree_from_children",
    "butcher_product",
    "leaf",
    "single_cuts",
    "root_subtrees",
    "partitions",
    "clear_caches",
]

#: (colours, colour, child indices) -> tree, filled order by order as trees are generated
_BY_CHILDREN: dict = {}
_INDEXED_ORDER: dict = {}
_CUTS: dict = {}
_SUBTREES: dict = {}
_PARTS: dict = {}
_PARTITIONS: dict = {}


def clear_caches() -> None:
    """Forget the tables (for cold-start benchmarks); rebuilt on demand."""
    for table in (_BY_CHILDREN, _INDEXED_ORDER, _CUTS, _SUBTREES, _PARTS, _PARTITIONS):
        table.clear()


register("geomcheck.bseries.tree_ops", clear_caches, lambda: len(_CUTS) + len(_SUBTREES) + len(_PARTS))


def _index_up_to(colours: int, n: int) -> None:
    done = _INDEXED_ORDER.get(colours, 0)
    for m in range(done + 1, n + 1):
        for t in trees_of_order(m, colours):
            _BY_CHILDREN[(colours, t.colour, tuple(u.index for u in t.children))] = t
    _INDEXED_ORDER[colours] = max(done, n)


def tree_from_children(colour: int, children: Iterable[RootedTree], colours: int = 1) -> RootedTree:
    """The tree whose root has colour ``colour`` and the given subtrees (in any order).

    >>> from geomcheck.certify.trees import trees_of_order
    >>> tau = trees_of_order(1)[0]
    >>> str(tree_from_children(0, [tau, tau]))
    '[τ²]'
    """
    kids = tuple(sorted(children, key=lambda u: u.index))
    order = 1 + sum(u.order for u in kids)
    if order > MAX_ORDER[colours]:
        raise BSeriesError(f"a tree with {order} vertices is beyond the largest generated order "
                           f"{MAX_ORDER[colours]} of {'rooted trees' if colours == 1 else 'P-trees'}")
    if any(u.colours != colours for u in kids):
        raise BSeriesError("the subtrees of a tree must all be of one kind (rooted trees or P-trees)")
    if _INDEXED_ORDER.get(colours, 0) < order:
        _index_up_to(colours, order)
    return _BY_CHILDREN[(colours, colour, tuple(u.index for u in kids))]


def leaf(colour: int = 0, colours: int = 1) -> RootedTree:
    """The one-vertex tree of the given colour."""
    return trees_of_order(1, colours)[colour]


def butcher_product(u: RootedTree, v: RootedTree) -> RootedTree:
    """``u ∘ v``: the tree ``v`` grafted onto the root of ``u`` (the root keeps ``u``'s colour).

    >>> from geomcheck.certify.trees import trees_of_order
    >>> tau, = trees_of_order(1)
    >>> str(butcher_product(trees_of_order(2)[0], tau))
    '[τ²]'
    """
    if u.colours != v.colours:
        raise BSeriesError("the Butcher product needs two trees of one kind (rooted trees or P-trees)")
    return tree_from_children(u.colour, u.children + (v,), u.colours)


def single_cuts(t: RootedTree) -> list:
    """``[(s, u, m)]``: removing one edge of ``t`` leaves ``s`` (with the root) and ``u``; ``m`` edges do so.

    Grafting is the inverse: ``F(s)'(y) F(u)(y)`` is the sum of ``F`` of the trees made by
    grafting ``u`` onto a vertex of ``s``, so the derivative of a B-series in the direction of
    another is a sum over these cuts.
    """
    got = _CUTS.get(t)
    if got is None:
        acc: dict = defaultdict(int)
        kids = t.children
        for i, c in enumerate(kids):
            if i and kids[i - 1] is c:
                continue  # equal children give equal outcomes: counted by the multiplicity below
            k = kids.count(c)
            others = kids[:i] + kids[i + k:] + (c,) * (k - 1)
            acc[(tree_from_children(t.colour, others, t.colours), c)] += k
            for s2, u2, m2 in single_cuts(c):
                s = tree_from_children(t.colour, others + (s2,), t.colours)
                acc[(s, u2)] += k * m2
        got = _CUTS[t] = [(s, u, m) for (s, u), m in acc.items()]
    return got


def _sorted(trees) -> tuple:
    return tuple(sorted(trees, key=lambda u: u.index))


def root_subtrees(t: RootedTree) -> list:
    """``[(s, forest, m)]``: ``s`` a subtree of ``t`` containing its root (None: the empty one),
    ``forest`` the sorted tuple of the trees left when ``s`` is removed, ``m`` the number of
    labelled subtrees giving this outcome.

    The composition of two B-series is the sum over these (Butcher's composition law).
    """
    got = _SUBTREES.get(t)
    if got is None:
        states = {((), ()): 1}
        for c in t.children:
            nxt: dict = defaultdict(int)
            options = root_subtrees(c)
            for (kept, forest), m in states.items():
                for s2, f2, m2 in options:
                    key = (kept if s2 is None else kept + (s2,), forest + f2)
                    nxt[(_sorted(key[0]), _sorted(key[1]))] += m * m2
            states = nxt
        got = [(tree_from_children(t.colour, kept, t.colours), forest, m) for (kept, forest), m in states.items()]
        got.append((None, (t,), 1))
        _SUBTREES[t] = got
    return got


def _pieces(t: RootedTree) -> dict:
    """``{(root piece, skeleton, other pieces): m}`` over the sets of removed edges of ``t``."""
    got = _PARTS.get(t)
    if got is None:
        states = {((), (), ()): 1}
        for c in t.children:
            nxt: dict = defaultdict(int)
            options = _pieces(c)
            for (rp, sk, others), m in states.items():
                for (rp2, sk2, others2), m2 in options.items():
                    # keep the edge to c: c's root piece joins ours, its skeleton merges with ours
                    keep = (rp + (rp2,), sk + sk2.children, others + others2)
                    # remove it: c's root piece is complete and a child of our skeleton vertex
                    cut = (rp, sk + (sk2,), others + others2 + (rp2,))
                    for a, b, o in (keep, cut):
                        nxt[(_sorted(a), _sorted(b), _sorted(o))] += m * m2
            states = nxt
        got = {}
        for (rp, sk, others), m in states.items():
            key = (tree_from_children(t.colour, rp, t.colours), tree_from_children(t.colour, sk, t.colours), others)
            got[key] = got.get(key, 0) + m
        _PARTS[t] = got
    return got


def partitions(t: RootedTree) -> list:
    """``[(skeleton, pieces, m)]`` over the sets of edges of ``t`` removed (the empty set included).

    The pieces are the connected parts left (a sorted tuple of trees); the skeleton is ``t``
    with each piece contracted to one vertex of the colour of the piece's root.  Substituting a
    B-series vector field into a B-series is a sum over these (Chartier, Hairer, Vilmart 2010).

    >>> from geomcheck.certify.trees import trees_of_order
    >>> sorted((str(sk), [str(p) for p in pcs], m) for sk, pcs, m in partitions(trees_of_order(2)[0]))
    [('[τ]', ['τ', 'τ'], 1), ('τ', ['[τ]'], 1)]
    """
    got = _PARTITIONS.get(t)
    if got is None:
        out: dict = defaultdict(int)
        for (rp, sk, others), m in _pieces(t).items():
            out[(sk, _sorted(others + (rp,)))] += m
        got = _PARTITIONS[t] = [(sk, pieces, m) for (sk, pieces), m in out.items()]
    return got
