"""Elementary differentials, and B-series evaluated on a concrete or generic vector field.

For a field ``f`` on ``R^n`` the elementary differentials are (Hairer, Lubich, Wanner,
*Geometric Numerical Integration*, III.1)::

    F(τ) = f,    F([t_1 ... t_m]) = f^(m)(F(t_1), ..., F(t_m)),

``f^(m)`` the m-th derivative, a symmetric m-linear map.  A B-series
``B(a, y) = a(∅) y + sum_t h^|t| / sigma(t) a(t) F(t)(y)`` becomes, for one ``f``, a step map
(``a(∅) = 1``) or ``h`` times a vector field (``a(∅) = 0``): :func:`evaluate`.

Partitioned fields (P-series, bicoloured trees)
-----------------------------------------------
For ``y = (q, p)`` with ``q' = f_0(q, p)``, ``p' = f_1(q, p)`` the field is the pair
``(f_0, f_1)``.  Colour 0 is ``q`` and colour 1 is ``p``, as in
:class:`geomcheck.certify.tableaux.PartitionedTableau` (its first tableau integrates the
positions, P-tree colour 0).  A vertex of colour ``k`` evaluates ``f_k``, and a child of
colour ``c`` is a derivative along the coordinates of part ``c`` (HLW III.2)::

    F(t) = d^m f_k / (d y_{c_1} ... d y_{c_m}) (F(t_1), ..., F(t_m)),   k the root's colour,

so ``F(t)`` is a vector of the part of the root's colour (``len(f_k)`` components).

How it is computed
------------------
Write each ``F(t_j)`` as a vector in the full coordinate space (zero outside its part).
Then ``F(t)_i = sum_J c_J(t) d^m f_{k,i} / dy_J`` over sorted multi-indices ``J``, where
``c_J(t)`` gathers the products ``F(t_1)_{j_1} ... F(t_m)_{j_m}`` with ``sorted(j) = J``
(the derivatives are symmetric).  ``c(t)`` is built child by child along the decomposition
``t = rest + [last]`` of :mod:`geomcheck.certify.trees`, so it is computed once per tree and
shared; each partial derivative ``d^m f_{k,i} / dy_J`` is computed once, from the one with
the last index of ``J`` removed, and a zero derivative is never differentiated again.
Components that are structurally zero are skipped, so sparse fields (e.g. ``(-y2, y1)``)
cost little.  Nothing is expanded or simplified: the results are sympy expressions in the
user's own symbols (no dummies), ready for ``subs`` and ``lambdify``.

>>> import sympy
>>> from geomcheck.certify.trees import trees_of_order
>>> y = sympy.Symbol("y"); g = sympy.Function("g")
>>> [elementary_differential(t, [g(y)], [y])[0] for t in trees_of_order(3)]
[g(y)**2*Derivative(g(y), (y, 2)), g(y)*Derivative(g(y), y)**2]
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from typing import Any

import sympy

from ..algebra import Chart
from ..calculus import diff
from ..certify.trees import RootedTree
from ..errors import BSeriesError, ExpressionError, GeomcheckError, InvalidArgumentError
from ..fields import VectorField
from ..maps import Map
from .series import BSeries

__all__ = ["ElementaryDifferentials", "elementary_differential", "terms_by_order", "evaluate"]


def _symbols(coords, what: str) -> tuple:
    if isinstance(coords, (str, bytes)) or not isinstance(coords, Sequence):
        raise InvalidArgumentError(f"{what} must be a sequence of sympy Symbols, not {coords!r}")
    out = tuple(coords)
    for x in out:
        if not isinstance(x, sympy.Symbol):
            raise InvalidArgumentError(f"{what}: {x!r} is not a sympy Symbol")
    if len(set(out)) != len(out):
        raise InvalidArgumentError(f"{what}: a coordinate appears twice in {list(out)}")
    if not out:
        raise InvalidArgumentError(f"{what} is empty; a field needs at least one coordinate")
    return out


def _components(values, what: str) -> tuple:
    if isinstance(values, (str, bytes, dict)) or not isinstance(values, Sequence):
        raise ExpressionError(f"{what} must be a sequence of sympy expressions, not {values!r}")
    out = []
    for v in values:
        try:
            e = sympy.sympify(v, strict=True)
        except (sympy.SympifyError, TypeError, ValueError) as exc:
            raise ExpressionError(f"{what}: {v!r} is not a sympy expression") from exc
        if not isinstance(e, sympy.Expr) or isinstance(e, (sympy.MatrixBase, sympy.MatrixExpr)):
            raise ExpressionError(f"{what}: {v!r} is not a scalar sympy expression")
        out.append(e)
    return tuple(out)


def _is_pair(obj) -> bool:
    return (isinstance(obj, Sequence) and not isinstance(obj, (str, bytes)) and len(obj) == 2
            and all(isinstance(part, Sequence) and not isinstance(part, (str, bytes)) for part in obj))


class ElementaryDifferentials:
    """The elementary differentials ``F(t)`` of one field, memoized (trees share subtrees).

    Parameters
    ----------
    field : VectorField, sequence of expressions, or pair of sequences
        ``colours=1``: a :class:`geomcheck.VectorField` (on an ordinary chart) or the
        components ``f`` as sympy expressions in ``coords``.
        ``colours=2``: the pair ``(f_0, f_1)`` of the ``q`` and ``p`` parts (colour 0 is
        ``q``, see the module docstring), or a VectorField split by ``coords = (q, p)``.
    coords : sequence of Symbol, or pair of sequences, optional
        The coordinates ``y`` (not needed with a VectorField for ``colours=1``).  For
        ``colours=2`` either the pair ``(q, p)`` or the flat sequence ``q + p`` whose first
        ``len(f_0)`` entries are ``q``.
    colours : int
        1 for B-series (rooted trees), 2 for P-series (bicoloured trees).

    Attributes
    ----------
    coords : tuple of Symbol
        All coordinates, ``q`` then ``p`` for ``colours=2``.
    parts : tuple of tuple of int
        ``parts[k]``: the indices in :attr:`coords` of the part of colour ``k``.
    chart : Chart
        The chart of the field (the VectorField's, or one made from the coordinates).

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.certify.trees import trees_of_order
    >>> q, p = sympy.symbols("q p")
    >>> F = ElementaryDifferentials(([p], [-sympy.sin(q)]), [q, p], colours=2)
    >>> [(t.ascii(), F.of(t)) for t in trees_of_order(2, colours=2)]
    [('[*]*', [0]), ('[*]o', [-p*cos(q)]), ('[o]*', [-sin(q)]), ('[o]o', [0])]
    """

    def __init__(self, field: Any, coords: Any = None, colours: int = 1):
        if colours not in (1, 2) or isinstance(colours, bool):
            raise InvalidArgumentError(f"colours must be 1 (rooted trees) or 2 (P-trees), not {colours!r}")
        self.colours = colours
        chart = None
        if isinstance(field, VectorField):
            chart = field.chart
            if chart.is_graded:
                raise InvalidArgumentError(f"elementary differentials need an ordinary chart, not the graded {chart!r}")
            if colours == 1:
                if coords is not None and tuple(coords) != chart.coords:
                    raise InvalidArgumentError(f"coords {list(coords)} differ from the field's chart coordinates "
                                               f"{list(chart.coords)}; leave coords out for a VectorField")
                all_coords = chart.coords
                split = [all_coords]
            else:
                if not _is_pair(coords):
                    raise InvalidArgumentError("a VectorField as a partitioned field needs coords = (q coordinates, "
                                               "p coordinates), the split of its chart into the two parts")
                split = [_symbols(coords[0], "the q coordinates"), _symbols(coords[1], "the p coordinates")]
                all_coords = split[0] + split[1]
                if len(set(all_coords)) != len(all_coords) or set(all_coords) != set(chart.coords):
                    raise InvalidArgumentError(f"coords {list(split[0])}, {list(split[1])} do not split the chart "
                                               f"{list(chart.coords)} into two parts")
            comps = [tuple(field.component(x) for x in part) for part in split]
        else:
            if colours == 1:
                comps = [_components(field, "the components of the field")]
                if coords is None:
                    raise InvalidArgumentError("coords are needed with a field given as expressions: the Symbols "
                                               "the components are functions of, in order")
                all_coords = _symbols(coords, "coords")
                split = [all_coords]
            else:
                if not _is_pair(field):
                    raise ExpressionError("a partitioned field is a pair (f_0, f_1) of component lists: f_0 for q "
                                          "(colour 0), f_1 for p (colour 1)")
                comps = [_components(field[0], "f_0 (the q part)"), _components(field[1], "f_1 (the p part)")]
                if coords is None:
                    raise InvalidArgumentError("coords are needed with a field given as expressions: (q, p) or q + p")
                if _is_pair(coords):
                    split = [_symbols(coords[0], "the q coordinates"), _symbols(coords[1], "the p coordinates")]
                else:
                    flat = _symbols(coords, "coords")
                    split = [flat[:len(comps[0])], flat[len(comps[0]):]]
                all_coords = split[0] + split[1]
                _symbols(all_coords, "coords")
            for part, values, name in zip(split, comps, ("q", "p") if colours == 2 else ("y",)):
                if len(part) != len(values):
                    raise InvalidArgumentError(
                        f"{len(values)} components for {len(part)} coordinates {list(part)}"
                        + (f" (the {name} part)" if colours == 2 else "") + "; expected one component per coordinate")
        self.coords = tuple(all_coords)
        index = {x: i for i, x in enumerate(self.coords)}
        self.parts = tuple(tuple(index[x] for x in part) for part in split)
        self.components = tuple(comps)
        self._chart = chart
        self._F: dict = {}
        self._coef: dict = {}
        self._deriv: dict = {}

    @property
    def chart(self) -> Chart:
        if self._chart is None:
            self._chart = Chart(list(self.coords))
        return self._chart

    def _derivative(self, colour: int, i: int, J: tuple) -> sympy.Expr:
        """``d^|J| f_{colour, i} / dy_J`` (``J`` sorted indices into :attr:`coords`)."""
        key = (colour, i, J)
        d = self._deriv.get(key)
        if d is None:
            if not J:
                d = self.components[colour][i]
            else:
                inner = self._derivative(colour, i, J[:-1])
                d = sympy.S.Zero if inner == 0 else diff(inner, self.coords[J[-1]])
            self._deriv[key] = d
        return d

    def _coefficients(self, t: RootedTree) -> dict:
        """``{J: c_J(t)}``: the products of the children's components, by sorted multi-index."""
        c = self._coef.get(t)
        if c is None:
            if t.last is None:
                c = {(): sympy.S.One}
            else:
                before = self._coefficients(t.rest)
                v = self.of(t.last)
                idx = self.parts[t.last.colour]
                c = {}
                for J, cj in before.items():
                    for j, vj in zip(idx, v):
                        if vj == 0:
                            continue
                        K = list(J)
                        insort(K, j)
                        K = tuple(K)
                        c[K] = c[K] + cj * vj if K in c else cj * vj
            self._coef[t] = c
        return c

    def of(self, t: RootedTree) -> list:
        """``F(t)``: the components (of the part of the root's colour for a P-tree).

        Raises
        ------
        InvalidArgumentError
            ``t`` is not a tree of this field's kind (``colours``).
        """
        if not isinstance(t, RootedTree):
            raise InvalidArgumentError(f"elementary differentials are indexed by trees, not {t!r}")
        if t.colours != self.colours:
            kind = "rooted trees" if self.colours == 1 else "bicoloured trees (P-trees)"
            raise InvalidArgumentError(f"the tree {t.ascii()} is not one of the {kind} of this field "
                                       f"(colours={self.colours})")
        F = self._F.get(t)
        if F is None:
            coef = self._coefficients(t)
            k = t.colour
            F = []
            for i in range(len(self.parts[k])):
                terms = []
                for J, cj in coef.items():
                    d = self._derivative(k, i, J)
                    if d != 0:
                        terms.append(cj * d)
                F.append(sympy.Add(*terms))
            self._F[t] = F
        return list(F)

    def embed(self, t: RootedTree) -> list:
        """``F(t)`` as a vector of all coordinates (zero outside the part of the root's colour)."""
        out = [sympy.S.Zero] * len(self.coords)
        for j, v in zip(self.parts[t.colour], self.of(t)):
            out[j] = v
        return out


def elementary_differential(tree: RootedTree, field: Any, coords: Any = None) -> list:
    """The elementary differential ``F(tree)(y)`` of a field, as a list of sympy expressions.

    Parameters
    ----------
    tree : RootedTree
        A rooted tree, or a bicoloured tree for a partitioned field.
    field, coords
        As for :class:`ElementaryDifferentials` (``colours`` is the tree's).

    Returns
    -------
    list of sympy.Expr
        ``f^(m)(F(t_1), ..., F(t_m))``; for a P-tree with root colour ``k`` the
        ``len(f_k)`` components of part ``k``.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> from geomcheck.certify.trees import trees_of_order
    >>> M = gc.Chart("y1 y2"); y1, y2 = M.coords
    >>> f = gc.VectorField(M, [-y2, y1])                  # the harmonic oscillator
    >>> chain = trees_of_order(3)[1]                      # [[τ]]: f'f'f
    >>> elementary_differential(chain, f)
    [y2, -y1]
    """
    if not isinstance(tree, RootedTree):
        raise InvalidArgumentError(f"elementary_differential needs a tree (geomcheck.certify.trees), not {tree!r}")
    return ElementaryDifferentials(field, coords, tree.colours).of(tree)


def _step(h) -> sympy.Expr:
    try:
        e = sympy.sympify(h, strict=True)
    except (sympy.SympifyError, TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"the step size h must be a sympy Symbol or expression, not {h!r}") from exc
    if not isinstance(e, sympy.Expr):
        raise InvalidArgumentError(f"the step size h must be a sympy Symbol or expression, not {h!r}")
    return e


def terms_by_order(series: BSeries, field: Any, coords: Any = None) -> list:
    """``[T_1, ..., T_p]`` with ``T_k = sum_{|t| = k} a(t) / sigma(t) F(t)``, ``p = series.order``.

    ``B(a, y) = a(∅) y + sum_k h^k T_k(y)``: the coefficient of each power of ``h``.  Each
    ``T_k`` is a list over all coordinates (``q`` then ``p`` for a P-series).

    Parameters
    ----------
    series : BSeries
    field, coords
        As for :class:`ElementaryDifferentials`; ``field`` may also be an
        :class:`ElementaryDifferentials`, whose memo is then shared by several series.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.bseries.methods import exact_flow
    >>> y, lam = sympy.symbols("y lambda")
    >>> terms_by_order(exact_flow(3), [lam * y], [y])
    [[lambda*y], [lambda**2*y/2], [lambda**3*y/6]]
    """
    if not isinstance(series, BSeries):
        raise BSeriesError(f"expected a BSeries, not {type(series).__name__}")
    F = field if isinstance(field, ElementaryDifferentials) else ElementaryDifferentials(field, coords, series.colours)
    if F.colours != series.colours:
        raise BSeriesError(f"a series over {'rooted' if series.colours == 1 else 'bicoloured'} trees cannot be "
                           f"evaluated on a field made for colours={F.colours}")
    n = len(F.coords)
    out = [[[] for _ in range(n)] for _ in range(series.order)]
    for t, a in series.items():
        if a == 0:
            continue
        weight = a / t.sigma
        for j, v in zip(F.parts[t.colour], F.of(t)):
            if v != 0:
                out[t.order - 1][j].append(weight * v)
    return [[sympy.Add(*parts) for parts in row] for row in out]


def evaluate(series: BSeries, field: Any, h: Any, coords: Any = None) -> VectorField | Map:
    """The series for one field: the modified field (``a(∅) = 0``) or the truncated step map.

    Parameters
    ----------
    series : BSeries
        A vector-field series (``a(∅) = 0``, e.g. :func:`~geomcheck.bseries.modified_equation`)
        or a method / flow series (``a(∅) != 0``).
    field, coords
        As for :func:`terms_by_order`.
    h : Symbol
        The step size (any sympy expression free of the coordinates).

    Returns
    -------
    VectorField or Map
        ``a(∅) = 0``: the VectorField ``f~ = sum_t h^(|t|-1) / sigma(t) a(t) F(t)``, so that
        ``h f~ = B(a)``.  Otherwise the Map ``y -> a(∅) y + sum_t h^|t| / sigma(t) a(t) F(t)(y)``
        of the chart to itself (the step truncated after ``h^order``).  Both live on the
        VectorField's chart, or on a chart of the given coordinates (the user's Symbols).

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> from geomcheck.bseries import runge_kutta, modified_equation
    >>> M = gc.Chart("y1 y2"); y1, y2 = M.coords; h = sympy.Symbol("h")
    >>> f = gc.VectorField(M, [-y2, y1])
    >>> euler = runge_kutta([[0]], [1], order=3)
    >>> evaluate(euler, f, h).exprs
    (-h*y2 + y1, h*y1 + y2)
    >>> ft = evaluate(modified_equation(euler, 3), f, h)
    >>> [sympy.expand(ft.component(y)) for y in (y1, y2)]
    [h**2*y2/3 + h*y1/2 - y2, -h**2*y1/3 + h*y2/2 + y1]
    """
    if not isinstance(series, BSeries):
        raise BSeriesError(f"evaluate needs a BSeries, not {type(series).__name__}")
    F = field if isinstance(field, ElementaryDifferentials) else ElementaryDifferentials(field, coords, series.colours)
    step = _step(h)
    clash = step.free_symbols & set(F.coords)
    if clash:
        raise InvalidArgumentError(f"the step size {step} contains the coordinate(s) "
                                   f"{', '.join(sorted(map(str, clash)))}")
    terms = terms_by_order(series, F)
    try:
        chart = F.chart
    except GeomcheckError as exc:
        raise InvalidArgumentError(f"the coordinates {list(F.coords)} do not make a chart: {exc}") from exc
    n = len(F.coords)
    if series.is_vector_field:
        comps = [sympy.Add(*[step ** k * terms[k][j] for k in range(series.order)]) for j in range(n)]
        return VectorField(chart, comps)
    empty = series.empty
    exprs = [empty * F.coords[j] + sympy.Add(*[step ** (k + 1) * terms[k][j] for k in range(series.order)])
             for j in range(n)]
    return Map(chart, chart, exprs)
