"""Rooted trees (Butcher) and bicoloured P-trees, for Runge-Kutta order conditions.

A Runge-Kutta method has order p iff ``Phi(t) == 1/gamma(t)`` for every rooted tree
``t`` with at most p vertices (Butcher's theorem); a partitioned method iff the same
holds for every *bicoloured* tree (P-tree) with at most p vertices, the colour of a
vertex saying which of the two tableaux its coefficient comes from (Hairer, Lubich,
Wanner, *Geometric Numerical Integration*, III.2).

Trees are generated once, order by order, and interned: every tree of a family is one
:class:`RootedTree` object with a serial ``index``, its children are sorted by index,
and equal trees are the same object (canonical form = the sorted tuple of children).
A tree of order ``n`` is generated exactly once as ``t' + [u]``: ``u`` its last
(largest) child and ``t'`` the tree with one copy of ``u`` removed, which is a tree of
smaller order all of whose children precede ``u``.

>>> [len(trees_of_order(n)) for n in range(1, 11)]       # OEIS A000081
[1, 1, 2, 4, 9, 20, 48, 115, 286, 719]
>>> [len(trees_of_order(n, colours=2)) for n in range(1, 7)]   # 2 x OEIS A000151
[2, 4, 14, 52, 214, 916]
>>> t = trees_of_order(4)[1]
>>> str(t), t.gamma, t.sigma
('[τ[τ]]', 8, 1)
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Callable, Iterable, Sequence

from ..caches import register

__all__ = [
    "RootedTree",
    "trees_of_order",
    "trees_up_to",
    "ElementaryWeights",
    "residuals",
    "clear_caches",
]

#: letters of the leaves in ``str``: one colour, or colours 0 / 1 of a P-tree
_LEAF_TEXT = {1: ("τ",), 2: ("●", "○")}
_LEAF_TEX = {1: (r"\tau",), 2: (r"\bullet", r"\circ")}


class RootedTree:
    """A rooted tree (``colours == 1``) or a bicoloured P-tree (``colours == 2``).

    Trees are created only by the generator (:func:`trees_of_order`), never directly,
    so that equal trees are identical objects.

    Attributes
    ----------
    index : int
        Serial number in the family (all trees of order n come after those of order < n).
    order : int
        Number of vertices ``|t|``.
    colour : int
        Colour of the root (always 0 for ``colours == 1``).
    children : tuple of RootedTree
        The subtrees hanging from the root, sorted by ``index`` (repeats allowed).
    colours : int
        1 for Butcher trees, 2 for P-trees.
    gamma : int
        The density ``gamma(t) = |t| * prod gamma(children)``.
    sigma : int
        The symmetry ``sigma(t) = prod_u k_u! sigma(u)**k_u`` over the distinct children
        ``u`` with multiplicities ``k_u`` (the order of the automorphism group).
    rest, last : RootedTree or None
        The decomposition ``t = rest + [last]`` (``last`` the largest child); None for a
        leaf.

    Examples
    --------
    >>> leaf, = trees_of_order(1)
    >>> leaf.order, leaf.gamma, leaf.sigma, str(leaf)
    (1, 1, 1, 'τ')
    >>> bush, chain = trees_of_order(4)[0], trees_of_order(4)[3]
    >>> str(bush), bush.gamma, bush.sigma
    ('[τ³]', 4, 6)
    >>> str(chain), chain.gamma, chain.sigma
    ('[[[τ]]]', 24, 1)
    """

    __slots__ = ("index", "order", "colour", "children", "colours", "gamma", "sigma",
                 "rest", "last", "_text", "_tex")

    def __init__(self, index, colour, children, colours, rest, last):
        self.index = index
        self.colour = colour
        self.children = children
        self.colours = colours
        self.rest = rest
        self.last = last
        self.order = 1 + sum(u.order for u in children)
        self.gamma = self.order * math.prod(u.gamma for u in children)
        sigma = 1
        for u, k in Counter(children).items():
            sigma *= math.factorial(k) * u.sigma ** k
        self.sigma = sigma
        self._text = None
        self._tex = None

    # identity is equality (trees are interned); the key survives pickling
    def __eq__(self, other):
        if not isinstance(other, RootedTree):
            return NotImplemented
        return (self.colours, self.index) == (other.colours, other.index)

    def __hash__(self):
        return hash((RootedTree, self.colours, self.index))

    def __lt__(self, other):
        return (self.colours, self.index) < (other.colours, other.index)

    def __reduce__(self):
        return (_tree_by_index, (self.colours, self.order, self.index))

    def _groups(self):
        return list(Counter(self.children).items())  # children are sorted, Counter keeps order

    def __str__(self):
        if self._text is None:
            leaf = _LEAF_TEXT[self.colours][self.colour]
            if not self.children:
                self._text = leaf
            else:
                parts = []
                for u, k in self._groups():
                    s = str(u)
                    parts.append(s + (_superscript(k) if k > 1 else ""))
                root = "" if self.colours == 1 else leaf
                self._text = "[" + "".join(parts) + "]" + root
        return self._text

    def __repr__(self):
        return f"RootedTree({str(self)!r})"

    def ascii(self) -> str:
        """Bracket notation in ASCII (for plain-text messages): ``t`` a vertex; in P-trees
        ``*`` a vertex of colour 0 and ``o`` one of colour 1.

        >>> [t.ascii() for t in trees_of_order(4)]
        ['[t^3]', '[t[t]]', '[[t^2]]', '[[[t]]]']
        >>> trees_of_order(3, colours=2)[2].ascii()
        '[*o]*'
        """
        leaf = ("t",) if self.colours == 1 else ("*", "o")
        if not self.children:
            return leaf[self.colour]
        parts = "".join(u.ascii() + (f"^{k}" if k > 1 else "") for u, k in self._groups())
        return "[" + parts + "]" + ("" if self.colours == 1 else leaf[self.colour])

    def _latex(self, printer=None):
        """Butcher's bracket notation: ``[\\tau^{2}[\\tau]]``; P-trees carry the root colour
        as a subscript, ``\\bullet`` for colour 0 and ``\\circ`` for colour 1."""
        if self._tex is None:
            leaf = _LEAF_TEX[self.colours][self.colour]
            if not self.children:
                self._tex = leaf
            else:
                parts = []
                for u, k in self._groups():
                    s = u._latex()
                    if k > 1:
                        s = (s if not u.children else "{" + s + "}") + "^{" + str(k) + "}"
                    parts.append(s)
                body = r"[" + " ".join(parts) + r"]"
                self._tex = body if self.colours == 1 else body + "_{" + leaf + "}"
        return self._tex

    def weight_latex(self, names: Sequence[tuple[str, str, str]] = (("A", "b", "c"),)) -> str:
        """The elementary weight ``Phi(t)`` in vector notation, e.g. ``b^T (c \\cdot A c)``.

        ``names[k]`` are the LaTeX names of ``(A, b, c)`` of colour ``k``; products of
        vectors (``\\cdot``, powers) are componentwise, matrix products are written by
        juxtaposition, ``e`` is the vector of ones and ``c = A e`` (the row sums).

        >>> for t in trees_of_order(4):
        ...     print(t.weight_latex())
        b^{T} c^{3}
        b^{T} (c \\cdot A c)
        b^{T} A c^{2}
        b^{T} A A c
        """
        vec, product = self._vector_latex(names)
        root_b = names[self.colour][1]
        return root_b + "^{T} " + ("(" + vec + ")" if product else vec)

    def _vector_latex(self, names):
        """The stage vector ``g(t)`` (``e`` for a leaf) and whether it is a ``\\cdot`` product."""
        if not self.children:
            return "e", False
        factors = []
        for u, k in self._groups():
            A, _b, c = names[u.colour]
            if not u.children:
                term = c
            else:
                inner, product = u._vector_latex(names)
                term = A + " " + ("(" + inner + ")" if product else inner)
            if k > 1:
                term = ("(" + term + ")" if " " in term else term) + "^{" + str(k) + "}"
            factors.append(term)
        return r" \cdot ".join(factors), len(factors) > 1


_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _superscript(k: int) -> str:
    return str(k).translate(_SUPERSCRIPTS)


class _Family:
    """All trees of one colour count, generated order by order and interned."""

    def __init__(self, colours: int):
        self.colours = colours
        self.by_order: dict[int, list[RootedTree]] = {}
        self.count = 0
        self.by_order[1] = [self._make(k, (), None, None) for k in range(colours)]

    def _make(self, colour, children, rest, last):
        t = RootedTree(self.count, colour, children, self.colours, rest, last)
        self.count += 1
        return t

    def of_order(self, n: int) -> list[RootedTree]:
        for m in range(2, n + 1):
            if m not in self.by_order:
                self._generate(m)
        return self.by_order[n]

    def _generate(self, n: int) -> None:
        out = []
        for m in range(1, n):            # order of the largest child u
            rests = self.by_order[n - m]
            for u in self.by_order[m]:
                for rest in rests:
                    kids = rest.children
                    if kids and kids[-1].index > u.index:
                        continue
                    out.append(self._make(rest.colour, kids + (u,), rest, u))
        self.by_order[n] = out


_FAMILIES: dict[int, _Family] = {}

#: trees are generated on demand up to this order (order 12 has 4766 trees, a P-tree
#: family of order 9 has 93 068: beyond, the order conditions are not a sensible test)
MAX_ORDER = {1: 14, 2: 9}


def _family(colours: int) -> _Family:
    if colours not in (1, 2):
        from ..errors import InvalidArgumentError

        raise InvalidArgumentError(f"colours must be 1 (rooted trees) or 2 (P-trees), not {colours!r}")
    fam = _FAMILIES.get(colours)
    if fam is None:
        fam = _FAMILIES[colours] = _Family(colours)
    return fam


def _check_order(n, colours):
    from ..errors import InvalidArgumentError

    _family(colours)  # validates colours
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidArgumentError(f"a tree order must be a positive integer, not {n!r}")
    if n > MAX_ORDER[colours]:
        kind = "rooted trees" if colours == 1 else "P-trees"
        raise InvalidArgumentError(
            f"{kind} are generated up to order {MAX_ORDER[colours]} (asked for {n}); "
            f"their number grows like 3**n")


def trees_of_order(n: int, colours: int = 1) -> list[RootedTree]:
    """All rooted trees (``colours=1``) or P-trees (``colours=2``) with ``n`` vertices.

    >>> [str(t) for t in trees_of_order(3)]
    ['[τ²]', '[[τ]]']
    >>> [str(t) for t in trees_of_order(2, colours=2)]
    ['[●]●', '[●]○', '[○]●', '[○]○']
    """
    _check_order(n, colours)
    return list(_family(colours).of_order(n))


def trees_up_to(p: int, colours: int = 1) -> list[RootedTree]:
    """All trees with at most ``p`` vertices, by order (``p = 0`` gives none).

    >>> len(trees_up_to(4)), len(trees_up_to(8))
    (8, 200)
    """
    if p == 0:
        return []
    _check_order(p, colours)
    fam = _family(colours)
    return [t for n in range(1, p + 1) for t in fam.of_order(n)]


def _tree_by_index(colours, order, index):
    for t in _family(colours).of_order(order):
        if t.index == index:
            return t
    raise ValueError(f"no tree with index {index}")  # pragma: no cover


def clear_caches() -> None:
    """Forget the generated trees (for cold-start benchmarks); regenerated on demand."""
    _FAMILIES.clear()


# two families at most (rooted trees, P-trees), each bounded by MAX_ORDER
register("geomcheck.certify.trees", clear_caches, lambda: len(_FAMILIES))


class ElementaryWeights:
    """Elementary weights ``Phi(t)`` of one tableau (or pair), computed incrementally.

    With ``g(leaf) = e`` (ones) and ``g(t) = g(rest) * (A_k g(last))`` (componentwise,
    ``A_k`` the matrix of the colour of ``last``), ``Phi(t) = b_k . g(t)`` with ``b_k`` of
    the root's colour.  Every stage vector and every ``A_k g`` is computed once.

    Parameters
    ----------
    A : sequence of matrices
        ``A[k]`` (a list of rows) for colour ``k``; one matrix for Butcher trees.
    b : sequence of vectors
        ``b[k]`` for colour ``k``.
    one : object
        The unit of the arithmetic the entries live in (``1``, an exact field element,
        an mpmath number ...); entries need ``+``, ``*`` and a truth value (zero is
        false; used only to skip zero products).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> A = [[[0, 0], [F(1, 2), 0]]]; b = [[0, 1]]        # the explicit midpoint rule
    >>> w = ElementaryWeights(A, b, 1)
    >>> [w.phi(t) for t in trees_up_to(3)]
    [1, Fraction(1, 2), Fraction(1, 4), Fraction(0, 1)]
    """

    def __init__(self, A, b, one):
        self.A = [[[(j, a) for j, a in enumerate(row) if a] for row in Ak] for Ak in A]
        self.b = [list(bk) for bk in b]
        self.s = len(self.b[0])
        self.one = one
        self._g: dict = {}
        self._Ag: dict = {}

    def _stage(self, t: RootedTree):
        g = self._g.get(t)
        if g is None:
            if t.last is None:
                g = [self.one] * self.s
            else:
                g0 = self._stage(t.rest)
                ag = self._times_A(t.last)
                g = [x * y for x, y in zip(g0, ag)]
            self._g[t] = g
        return g

    def _times_A(self, u: RootedTree):
        v = self._Ag.get(u)
        if v is None:
            g = self._stage(u)
            v = []
            for row in self.A[u.colour]:
                acc = None
                for j, a in row:
                    term = a * g[j]
                    acc = term if acc is None else acc + term
                v.append(self.one * 0 if acc is None else acc)
            self._Ag[u] = v
        return v

    def phi(self, t: RootedTree):
        """``Phi(t) = sum_i b_i g_i(t)`` with ``b`` of the root's colour."""
        g = self._stage(t)
        acc = self.one * 0
        for bi, gi in zip(self.b[t.colour], g):
            if bi:
                acc = acc + bi * gi
        return acc

    def phis(self, trees: Iterable[RootedTree]) -> list:
        return [self.phi(t) for t in trees]


def residuals(weights: ElementaryWeights, trees: Iterable[RootedTree],
              inv: Callable[[int], object]) -> dict:
    """``{t: Phi(t) - 1/gamma(t)}``; ``inv(n)`` gives ``1/n`` in the weights' arithmetic.

    >>> from fractions import Fraction as F
    >>> w = ElementaryWeights([[[0, 0], [F(1, 2), 0]]], [[0, 1]], 1)
    >>> r = residuals(w, trees_up_to(3), lambda n: F(1, n))
    >>> {str(t): v for t, v in r.items()}
    {'τ': Fraction(0, 1), '[τ]': Fraction(0, 1), '[τ²]': Fraction(-1, 12), '[[τ]]': Fraction(-1, 6)}
    """
    return {t: weights.phi(t) - inv(t.gamma) for t in trees}
