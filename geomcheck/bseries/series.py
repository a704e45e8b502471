"""Truncated B-series and P-series with exact coefficients.

A B-series is ``B(a, y) = a(∅) y + sum_t h^|t| / sigma(t) a(t) F(t)(y)`` over rooted trees
``t`` (Hairer, Lubich, Wanner, *Geometric Numerical Integration*, III.1; the normalisation
of BSeries.jl too): the exact flow has ``a(t) = 1/gamma(t)``, a Runge-Kutta method the
elementary weights ``a(t) = Phi(t)``.  A P-series does the same over bicoloured trees for a
partitioned field ``(f_0, f_1)``; the colour of the root says which component a term
belongs to.  ``a(∅) = 1`` for a method or a flow, ``a(∅) = 0`` for a vector field
``h f~(y)`` (a modified equation).

A :class:`BSeries` is truncated at an order ``p``: it knows ``a(t)`` for every tree with at
most ``p`` vertices and says nothing beyond.  Its coefficients live in one exact arithmetic
(:attr:`BSeries.domain`), chosen from them: the number field of rational and algebraic
coefficients, rational functions of free symbols for families of methods (``alpha``), and
sympy expressions decided by :mod:`geomcheck.zero` otherwise.  Floats are refused: a
statement about a B-series is a statement about exact numbers.

>>> import sympy
>>> from geomcheck.certify.trees import trees_up_to
>>> euler = BSeries({trees_up_to(1)[0]: 1}, 3, name="explicit Euler")
>>> [str(c) for _, c in euler.items()]
['1', '0', '0', '0']
>>> half = sympy.Rational(1, 2) * euler
>>> half.empty, half[trees_up_to(1)[0]]
(1/2, 1/2)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy

from ..certify.tableau_arithmetic import ExactDomain, parametric_domain_for
from ..certify.trees import MAX_ORDER, RootedTree, trees_up_to
from ..errors import BSeriesError

__all__ = ["BSeries", "aligned", "exact_coefficient", "provide_latex_printer"]


#: the typesetter of a series (geomcheck.bseries.drawing provides it, through the package's
#: __init__: drawing builds on this module, so this module cannot import it)
_LATEX_PRINTER: list = [lambda series: repr(series)]


def provide_latex_printer(printer: Callable[[BSeries], str]) -> None:
    """Register ``printer(series) -> str``, the LaTeX of a :class:`BSeries` (``_latex``, ``_repr_latex_``)."""
    _LATEX_PRINTER[0] = printer


def _check_order(order) -> int:
    if isinstance(order, bool) or not isinstance(order, int) or order < 0:
        raise BSeriesError(f"the truncation order of a B-series must be a nonnegative integer, not {order!r}")
    return order


def _check_colours(colours) -> int:
    if colours not in (1, 2) or isinstance(colours, bool):
        raise BSeriesError(f"colours must be 1 (B-series, rooted trees) or 2 (P-series, bicoloured trees), "
                           f"not {colours!r}")
    return colours


def exact_coefficient(value: Any, where: str) -> sympy.Expr:
    """``value`` as an exact sympy expression, or a :class:`BSeriesError` saying why not (floats are refused)."""
    try:
        v = sympy.sympify(value, strict=True)
    except (sympy.SympifyError, TypeError, ValueError) as exc:
        raise BSeriesError(f"{where}: {value!r} is not a number or a sympy expression") from exc
    if not isinstance(v, sympy.Expr):
        raise BSeriesError(f"{where}: {value!r} is not a number or a sympy expression")
    if v.has(sympy.Float):
        raise BSeriesError(f"{where}: {value!r} is a floating-point number; B-series coefficients must be exact "
                           f"(use sympy.Rational, sympy.nsimplify, or a decimal string such as '0.1')")
    if v.has(sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
        raise BSeriesError(f"{where}: {value!r} is not finite")
    return v


def _same_arithmetic(d1, d2) -> bool:
    if d1 is d2:
        return True
    if isinstance(d1, ExactDomain) and isinstance(d2, ExactDomain):
        return d1.K is d2.K
    return False


class BSeries:
    """A truncated B-series (``colours=1``) or P-series (``colours=2``) with exact coefficients.

    Parameters
    ----------
    coefficients : mapping RootedTree -> number or sympy expression
        ``a(t)``; every tree with at most ``order`` vertices that is missing has ``a(t) = 0``.
        Trees must be of the kind of ``colours`` and have at most ``order`` vertices.
    order : int
        The truncation order: the coefficients of all trees with at most ``order`` vertices.
    empty : number
        ``a(∅)``: 1 for a method or a flow (default), 0 for a vector field.
    colours : int
        1 for rooted trees, 2 for bicoloured trees (partitioned systems).
    name : str, optional
        What the series is (shown in printing and in certificates).

    Raises
    ------
    BSeriesError
        A float or non-numeric coefficient, a tree of the wrong kind or beyond ``order``.

    Notes
    -----
    Immutable and unhashable (equality compares up to the smaller of two truncation orders).  ``==``
    is exact in number fields and rational function fields; for sympy coefficients it asks
    :mod:`geomcheck.zero`, and a difference it cannot decide counts as unequal (``==`` is False,
    never a wrong True).
    """

    __slots__ = ("_domain", "_elements", "_order", "_colours", "_empty", "_name", "_sympy")

    def __init__(self, coefficients: Mapping[RootedTree, Any], order: int, *, empty: Any = 1, colours: int = 1,
                 name: str | None = None):
        order = _check_order(order)
        colours = _check_colours(colours)
        if order > MAX_ORDER[colours]:
            raise BSeriesError(f"a B-series of order {order} needs trees beyond the largest generated order "
                               f"{MAX_ORDER[colours]}")
        if not hasattr(coefficients, "items"):
            raise BSeriesError(f"coefficients must be a mapping from trees to numbers, not "
                               f"{type(coefficients).__name__}")
        values = {}
        for t, c in coefficients.items():
            if not isinstance(t, RootedTree):
                raise BSeriesError(f"a key of the coefficients is {t!r}, not a tree (geomcheck.certify.trees)")
            if t.colours != colours:
                kind = "rooted trees" if colours == 1 else "bicoloured trees"
                raise BSeriesError(f"the tree {t.ascii()} is not one of the {kind} of this series (colours={colours})")
            if t.order > order:
                raise BSeriesError(f"the tree {t.ascii()} has {t.order} vertices, beyond the truncation order {order}")
            values[t] = exact_coefficient(c, f"the coefficient of {t.ascii()}")
        empty = exact_coefficient(empty, "the coefficient of the empty tree")
        entries = list(values.values()) + [empty]
        domain = parametric_domain_for(entries)
        elements = {t: domain.convert(v) for t, v in values.items() if v != 0}
        self._init(domain, elements, order, domain.convert(empty), colours, name)

    def _init(self, domain, elements, order, empty, colours, name):
        set_ = object.__setattr__
        set_(self, "_domain", domain)
        set_(self, "_elements", elements)
        set_(self, "_order", order)
        set_(self, "_empty", empty)
        set_(self, "_colours", colours)
        set_(self, "_name", None if name is None else str(name))
        set_(self, "_sympy", {})

    @classmethod
    def from_elements(cls, domain: Any, elements: dict, order: int, *, empty: Any, colours: int = 1,
                      name: str | None = None) -> BSeries:
        """A series from coefficients already in ``domain`` (the laws build their results so).

        ``elements`` maps trees to domain elements (missing trees are zero); it is not copied,
        so the caller must not keep it.
        """
        self = cls.__new__(cls)
        self._init(domain, {t: x for t, x in elements.items() if _nonzero(x)}, order, empty, colours, name)
        return self

    def __setattr__(self, key, value):
        raise AttributeError(f"a BSeries is immutable (cannot set {key!r})")

    def __delattr__(self, key):
        raise AttributeError(f"a BSeries is immutable (cannot delete {key!r})")

    def __reduce__(self):
        return (_rebuild, (dict(self.items()), self._order, self.empty, self._colours, self._name))

    # ------------------------------------------------------------------ access
    @property
    def order(self) -> int:
        """The truncation order."""
        return self._order

    @property
    def colours(self) -> int:
        """1 for a B-series over rooted trees, 2 for a P-series over bicoloured trees."""
        return self._colours

    @property
    def name(self) -> str | None:
        return self._name

    @property
    def domain(self) -> Any:
        """The exact arithmetic of the coefficients (see :mod:`geomcheck.certify.tableau_arithmetic`)."""
        return self._domain

    @property
    def empty(self) -> sympy.Expr:
        """``a(∅)``: 1 for a method or flow, 0 for a vector field."""
        return self._domain.to_sympy(self._empty)

    @property
    def empty_element(self) -> Any:
        """``a(∅)`` as an element of :attr:`domain`."""
        return self._empty

    @property
    def is_vector_field(self) -> bool:
        """True when ``a(∅) = 0``: the series is ``h`` times a vector field."""
        return self._domain.is_zero(self._empty)

    def _check_tree(self, t):
        if not isinstance(t, RootedTree):
            raise BSeriesError(f"a B-series is indexed by trees (geomcheck.certify.trees), not {t!r}")
        if t.colours != self._colours:
            raise BSeriesError(f"the tree {t.ascii()} is not of the kind of this series (colours={self._colours})")
        if t.order > self._order:
            raise BSeriesError(f"the tree {t.ascii()} has {t.order} vertices; this series is truncated at order "
                               f"{self._order} and says nothing about it")

    def element(self, t: RootedTree) -> Any:
        """``a(t)`` as an element of :attr:`domain` (for exact decisions)."""
        self._check_tree(t)
        return self._elements.get(t, self._domain.zero)

    def __getitem__(self, t: RootedTree) -> sympy.Expr:
        """``a(t)`` as a sympy number or expression."""
        self._check_tree(t)
        got = self._sympy.get(t)
        if got is None:
            x = self._elements.get(t)
            got = sympy.S.Zero if x is None else sympy.sympify(self._domain.to_sympy(x))
            self._sympy[t] = got
        return got

    def coefficient(self, t: RootedTree) -> sympy.Expr:
        """``a(t)`` (the same as ``series[t]``)."""
        return self[t]

    def trees(self) -> list:
        """Every tree with at most :attr:`order` vertices, by order."""
        return trees_up_to(self._order, self._colours)

    def items(self) -> list:
        """``[(t, a(t))]`` for every tree up to the truncation order (zeros included), as sympy."""
        return [(t, self[t]) for t in self.trees()]

    def nonzero_elements(self) -> dict:
        """A copy of ``{t: a(t)}`` over the trees with a nonzero coefficient, as domain elements."""
        return dict(self._elements)

    def truncate(self, order: int) -> BSeries:
        """The same series known only up to ``min(order, self.order)``."""
        p = min(_check_order(order), self._order)
        kept = {t: x for t, x in self._elements.items() if t.order <= p}
        return BSeries.from_elements(self._domain, kept, p, empty=self._empty, colours=self._colours,
                                     name=self._name)

    def with_name(self, name: str) -> BSeries:
        """The same series under another name."""
        return BSeries.from_elements(self._domain, dict(self._elements), self._order, empty=self._empty,
                                     colours=self._colours, name=name)

    # ------------------------------------------------------------------ vector space
    def _combine(self, other, sign):
        if not isinstance(other, BSeries):
            return NotImplemented
        dom, (a, b) = aligned([self, other])
        p = min(self._order, other._order)
        out = {}
        for t in set(a.elements) | set(b.elements):
            if t.order <= p:
                x = a.get(t) + b.get(t) if sign > 0 else a.get(t) - b.get(t)
                out[t] = x
        empty = a.empty + b.empty if sign > 0 else a.empty - b.empty
        return BSeries.from_elements(dom, out, p, empty=empty, colours=self._colours)

    def __add__(self, other):
        return self._combine(other, 1)

    def __sub__(self, other):
        return self._combine(other, -1)

    def __neg__(self):
        return BSeries.from_elements(self._domain, {t: -x for t, x in self._elements.items()}, self._order,
                                     empty=-self._empty, colours=self._colours)

    def __mul__(self, c):
        if isinstance(c, BSeries):
            return NotImplemented
        c = exact_coefficient(c, "a scalar multiplying a B-series")
        coefficients = {t: c * v for t, v in self.items() if v != 0}
        return BSeries(coefficients, self._order, empty=c * self.empty, colours=self._colours)

    __rmul__ = __mul__

    def __eq__(self, other):
        if not isinstance(other, BSeries):
            return NotImplemented
        if self._colours != other._colours:
            return False
        dom, (a, b) = aligned([self, other])
        p = min(self._order, other._order)
        if not dom.is_zero(a.empty - b.empty):
            return False
        for t in set(a.elements) | set(b.elements):
            if t.order <= p and not dom.is_zero(a.get(t) - b.get(t)):
                return False
        return True

    __hash__ = None  # equality is up to the common truncation order: no hash can respect it

    def __repr__(self):
        shown = [f"∅: {self.empty}"]
        for t, c in self.items():
            if c != 0:
                shown.append(f"{t}: {c}")
            if len(shown) > 8:
                shown.append("...")
                break
        name = f"{self._name!r}, " if self._name else ""
        kind = "BSeries" if self._colours == 1 else "PSeries"
        return f"<{kind} {name}order {self._order}: " + ", ".join(shown) + ">"

    def _latex(self, printer=None):
        return _LATEX_PRINTER[0](self)

    def _repr_latex_(self):
        return "$\\displaystyle " + self._latex() + "$"


def _nonzero(x) -> bool:
    """Structurally nonzero (an exact element is zero exactly when false; a sympy expression
    is dropped only when it is literally 0)."""
    return bool(x) if not isinstance(x, sympy.Basic) else x != 0


def _rebuild(coefficients, order, empty, colours, name):
    return BSeries(coefficients, order, empty=empty, colours=colours, name=name)


class _Aligned:
    """One series' coefficients read in a common arithmetic."""

    __slots__ = ("elements", "empty", "zero")

    def __init__(self, elements, empty, zero):
        self.elements = elements
        self.empty = empty
        self.zero = zero

    def get(self, t):
        return self.elements.get(t, self.zero)

    def __call__(self, t):
        return self.elements.get(t, self.zero)


def aligned(series: Sequence[BSeries]) -> tuple:
    """The series' coefficients in one common arithmetic: ``(domain, [view, ...])``.

    Each view has ``elements`` (a dict tree -> element), ``empty`` and ``get(t)``
    (zero for missing trees).  Series already in one arithmetic are read as they are; others
    are converted through sympy into the arithmetic of all their coefficients together.

    Raises
    ------
    BSeriesError
        The series mix rooted trees and bicoloured trees.
    """
    if not series:
        raise BSeriesError("no series given")
    colours = {s.colours for s in series}
    if len(colours) > 1:
        raise BSeriesError("cannot combine a B-series (rooted trees) with a P-series (bicoloured trees)")
    dom = series[0].domain
    if all(_same_arithmetic(dom, s.domain) for s in series[1:]):
        return dom, [_Aligned(s._elements, s._empty, dom.zero) for s in series]
    entries = [s.domain.to_sympy(x) for s in series for x in list(s._elements.values()) + [s._empty]]
    dom = parametric_domain_for(entries)
    views = []
    for s in series:
        elements = {t: dom.convert(s.domain.to_sympy(x)) for t, x in s._elements.items()}
        views.append(_Aligned(elements, dom.convert(s.domain.to_sympy(s._empty)), dom.zero))
    return dom, views
