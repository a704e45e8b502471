"""Graded charts and sparse supercommutative functions.

A function on a graded chart is a polynomial in the odd coordinates with
coefficients that are arbitrary sympy expressions in the even ones.  It is stored
sparsely as ``{tuple of strictly increasing odd indices: coefficient}``; the same
kernel serves differential forms (functions on T[1]M, see :mod:`geomcheck.forms`).

>>> import geomcheck as gc
>>> G = gc.Chart("x y xi eta", degrees=[0, 0, 1, 1])
>>> x, y, xi, eta = G.coords
>>> f = G.function(x * xi * eta)
>>> f == G.function(-x * eta * xi)
True
>>> G.function(xi * xi).is_zero()
True
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import sympy

from .errors import (
    ChartError,
    ChartMismatchError,
    DegreeListError,
    DuplicateCoordinateError,
    ExpressionError,
    NotHomogeneousError,
    UnknownCoordinateError,
)
from .latex import superfunction_latex

if TYPE_CHECKING:
    from .domain import Domain
    from .forms import Form
    from .zero import ZeroDecision

__all__ = ["Chart", "SuperFunction"]

Terms = dict  # {tuple[int, ...]: sympy.Expr}


# ---------------------------------------------------------------------------
# the sparse kernel: pure functions on term dicts, shared by forms and functions


def merge_sign(a: tuple, b: tuple):
    """Sign and sorted union of two increasing odd-index tuples (``(0, None)`` if they meet).

    The sign is that of the permutation bringing ``a + b`` to increasing order,
    i.e. (-1) to the number of pairs (i in a, j in b) with i > j.
    """
    if not a:
        return 1, b
    if not b:
        return 1, a
    inversions = 0
    for j in b:
        for i in a:
            if i == j:
                return 0, None
            if i > j:
                inversions += 1
    return (-1 if inversions & 1 else 1), tuple(sorted(a + b))


def sort_with_sign(key: tuple):
    """Sign of the permutation sorting ``key`` and the sorted key (``(0, None)`` on a repeat)."""
    if len(set(key)) != len(key):
        return 0, None
    inversions = sum(1 for a in range(len(key)) for b in range(a + 1, len(key)) if key[a] > key[b])
    return (-1 if inversions & 1 else 1), tuple(sorted(key))


def insert_sign(index: int, key: tuple):
    """Sign and key of the product ``theta_index * theta_key`` (``(0, None)`` if index in key)."""
    pos = 0
    for i in key:
        if i == index:
            return 0, None
        if i < index:
            pos += 1
    return (-1 if pos & 1 else 1), key[:pos] + (index,) + key[pos:]


class Accumulator:
    """Collects coefficient contributions per key and sums each once at the end.

    Summing a list with one ``Add`` is much cheaper than repeated ``+``, and like
    terms (e.g. a mixed partial and its negative) still cancel structurally.
    """

    __slots__ = ("parts",)

    def __init__(self):
        self.parts: dict = {}

    def add(self, key, value):
        if value == 0:
            return
        lst = self.parts.get(key)
        if lst is None:
            self.parts[key] = [value]
        else:
            lst.append(value)

    def add_terms(self, terms: Mapping, factor=1):
        for key, value in terms.items():
            self.add(key, value if factor == 1 else factor * value)

    def result(self) -> Terms:
        out = {}
        for key, lst in self.parts.items():
            value = lst[0] if len(lst) == 1 else sympy.Add(*lst)
            if value != 0:
                out[key] = value
        return out


def nonzero_terms(terms: Mapping) -> Terms:
    """The terms whose coefficient the zero test does not decide to be zero."""
    from .zero import decide_zero

    return {k: v for k, v in terms.items() if decide_zero(v).is_zero is not True}


def add_terms(a: Mapping, b: Mapping, sign: int = 1) -> Terms:
    acc = Accumulator()
    acc.add_terms(a)
    acc.add_terms(b, sign)
    return acc.result()


def scale_terms(a: Mapping, factor) -> Terms:
    if factor == 0:
        return {}
    if factor == 1:
        return dict(a)
    out = {}
    for key, value in a.items():
        v = factor * value
        if v != 0:
            out[key] = v
    return out


def _rational_terms(terms: Mapping):
    """``{key: Fraction}`` when every coefficient is a plain rational, else None."""
    out = {}
    for key, value in terms.items():
        if not value.is_Rational:
            return None
        out[key] = Fraction(int(value.p), int(value.q))
    return out


def _mul_rational(a: Mapping, b: Mapping) -> Terms:
    # Python integer arithmetic: no sympy object is built until the end
    acc: dict = {}
    for ka, va in a.items():
        for kb, vb in b.items():
            sign, key = merge_sign(ka, kb)
            if sign:
                acc[key] = acc.get(key, 0) + (va * vb if sign > 0 else -(va * vb))
    return {k: sympy.Rational(v.numerator, v.denominator) for k, v in acc.items() if v}


def mul_terms(a: Mapping, b: Mapping) -> Terms:
    """Supercommutative product of two term dicts (fast path for rational coefficients)."""
    if len(a) * len(b) > 8:
        ra = _rational_terms(a)
        rb = _rational_terms(b) if ra is not None else None
        if rb is not None:
            return _mul_rational(ra, rb)
    acc = Accumulator()
    for ka, va in a.items():
        for kb, vb in b.items():
            sign, key = merge_sign(ka, kb)
            if sign:
                acc.add(key, sign * va * vb if sign < 0 else va * vb)
    return acc.result()


def odd_left_derivative(terms: Mapping, index: int) -> Terms:
    """Left derivative by the odd coordinate of the given odd index."""
    out = {}
    for key, value in terms.items():
        if index in key:
            pos = key.index(index)
            out[key[:pos] + key[pos + 1:]] = -value if pos & 1 else value
    return out


# ---------------------------------------------------------------------------
# charts

_NAME = re.compile(r"^[A-Za-z_\\][A-Za-z0-9_{}^\\']*$")


def split_names(names) -> list:
    """``[(name, given Symbol or None)]`` from a string or a list of str/Symbol."""
    if isinstance(names, str):
        parts = [s for s in re.split(r"[\s,]+", names.strip()) if s]
    elif isinstance(names, (set, frozenset, Mapping, bytes)):
        # a set has no order (which name comes first would be a coin toss); a dict or bytes is no list of names
        raise ChartError(f"Chart names must be a string or a list of str/Symbol in order, got"
                         f" {type(names).__name__} {names!r}")
    elif isinstance(names, Iterable):
        parts = list(names)
    else:
        raise ChartError(f"Chart names must be a string or a list of str/Symbol, got {names!r}")
    out = []
    for p in parts:
        if isinstance(p, sympy.Symbol):
            out.append((p.name, p))
        elif isinstance(p, str) and p and _NAME.match(p):
            out.append((p, None))
        else:
            raise ChartError(
                f"Chart coordinate {p!r} is not a valid name; expected a str or sympy Symbol"
            )
    return out


def _make_coordinate(name, given, degree):
    """The coordinate Symbol: the user's own when given (never a look-alike), else a new one."""
    odd = degree % 2
    if given is None:
        return sympy.Symbol(name, commutative=False) if odd else sympy.Symbol(name)
    if odd and given.is_commutative:
        raise ChartError(
            f"coordinate {name} has odd degree {degree} but the given Symbol is commutative;"
            f" pass the name {name!r} (or Symbol({name!r}, commutative=False))"
        )
    if not odd and not given.is_commutative:
        raise ChartError(f"coordinate {name} has even degree {degree} but the given Symbol is noncommutative")
    return given


class Chart:
    """A coordinate chart, optionally graded.

    Parameters
    ----------
    names : str or sequence of str/Symbol
        Coordinate names, split on spaces or commas when a string.
    degrees : sequence of int, optional
        One integer degree per coordinate (default all 0).  Coordinates of odd
        degree anticommute and are ``Symbol(name, commutative=False)``.
    domain : mapping, optional
        ``{coordinate or name: (lo, hi)}``: the open interval each named coordinate
        ranges over (see :class:`geomcheck.domain.Domain`); the others range over the
        domain of their assumptions (the real line for a plain name).  Zero tests draw
        their points inside it and certificates state it.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("q1 q2 p1 p2")
    >>> M.dim, M.coords
    (4, (q1, q2, p1, p2))
    >>> M.is_graded
    False
    >>> import sympy
    >>> P = gc.Chart("r theta", domain={"r": (0, sympy.oo)})
    >>> P.domain.describe(P.coords)
    'r in (0, oo), theta in (-oo, oo)'
    """

    __slots__ = ("_coords", "_degrees", "_index", "_odd", "_even", "_odd_index", "_hash",
                 "_tangent_shift", "_coord_set", "_domain")

    def __init__(self, names: str | Iterable[str | sympy.Symbol], degrees: Sequence[int] | None = None,
                 domain: Domain | Mapping[Any, tuple[Any, Any] | sympy.Interval] | None = None):
        given = split_names(names)
        names = [n for n, _ in given]
        if not names:
            raise ChartError("a Chart needs at least one coordinate")
        seen = set()
        for n in names:
            if n in seen:
                raise DuplicateCoordinateError(
                    f"Chart coordinate name {n!r} appears twice in {names}; names must be distinct"
                )
            seen.add(n)
        if degrees is None:
            degrees = [0] * len(names)
        degrees = as_sequence(degrees, "Chart degrees", "a sequence of ints, one per coordinate", DegreeListError)
        if len(degrees) != len(names):
            raise DegreeListError(
                f"Chart got {len(degrees)} degrees {degrees} for {len(names)} coordinates {names};"
                " expected one integer degree per coordinate"
            )
        for deg in degrees:
            if isinstance(deg, bool) or not isinstance(deg, (int, sympy.Integer)):
                raise DegreeListError(f"Chart degree {deg!r} is not an integer; degrees: {degrees}")
        degrees = tuple(int(d) for d in degrees)
        coords = tuple(_make_coordinate(n, g, d) for (n, g), d in zip(given, degrees))
        self._coords = coords
        self._degrees = degrees
        self._index = {c: i for i, c in enumerate(coords)}
        self._coord_set = frozenset(coords)
        self._odd = tuple(c for c, d in zip(coords, degrees) if d % 2)
        self._even = tuple(c for c, d in zip(coords, degrees) if not d % 2)
        self._odd_index = {c: i for i, c in enumerate(self._odd)}
        self._domain = self._read_domain(domain)
        self._hash = hash((coords, degrees, self._domain))
        self._tangent_shift = None

    def _read_domain(self, domain):
        """The Domain of the coordinates, keyed by the coordinate symbols themselves."""
        from .domain import Domain

        if domain is None:
            return Domain()
        if isinstance(domain, Domain):
            domain = domain.explicit
        if not isinstance(domain, Mapping):
            raise ChartError(f"Chart domain must be a mapping {{coordinate: (lo, hi)}}, got {domain!r}")
        by_coord = {}
        for key, spec in domain.items():
            name = key if isinstance(key, str) else getattr(key, "name", None)
            matches = [c for c in self._coords if c.name == name] if isinstance(key, (str, sympy.Symbol)) else []
            if not matches:
                raise UnknownCoordinateError(
                    f"Chart domain names {key!r}, which is not a coordinate of this chart; its coordinates are "
                    f"{', '.join(c.name for c in self._coords)}"
                )
            c = matches[0]
            if not c.is_commutative:
                raise ChartError(f"Chart domain: {c} is an odd (anticommuting) coordinate; it has no interval")
            by_coord[c] = spec
        return Domain(by_coord)

    @property
    def domain(self) -> Domain:
        """The :class:`~geomcheck.domain.Domain` of the coordinates (intervals where they range)."""
        return self._domain

    # -- basic data
    @property
    def coords(self) -> tuple:
        return self._coords

    @property
    def dim(self) -> int:
        return len(self._coords)

    @property
    def degrees(self) -> tuple:
        return self._degrees

    @property
    def odd(self) -> tuple:
        """The odd (anticommuting) coordinates, in chart order."""
        return self._odd

    @property
    def even(self) -> tuple:
        return self._even

    @property
    def is_graded(self) -> bool:
        return any(self._degrees)

    @property
    def coordinate_set(self) -> frozenset:
        return self._coord_set

    def index(self, coordinate: sympy.Symbol | str) -> int:
        """Position of a coordinate (Symbol or name) in the chart."""
        if isinstance(coordinate, str):
            for i, c in enumerate(self._coords):
                if c.name == coordinate:
                    return i
        else:
            i = self._index.get(coordinate)
            if i is not None:
                return i
        raise UnknownCoordinateError(
            f"{coordinate!r} is not a coordinate of {self!r}; its coordinates are "
            f"{', '.join(c.name for c in self._coords)}"
        )

    def odd_index(self, coordinate: sympy.Symbol) -> int:
        i = self._odd_index.get(coordinate)
        if i is None:
            raise UnknownCoordinateError(
                f"{coordinate!r} is not an odd coordinate of {self!r}; odd coordinates: "
                f"{', '.join(c.name for c in self._odd) or 'none'}"
            )
        return i

    def degree_of(self, coordinate: sympy.Symbol | str) -> int:
        return self._degrees[self.index(coordinate)]

    # -- value semantics
    def __eq__(self, other):
        return (
            isinstance(other, Chart)
            and self._hash == other._hash
            and self._coords == other._coords
            and self._degrees == other._degrees
            and self._domain == other._domain
        )

    def __hash__(self):
        return self._hash

    def __repr__(self):
        names = " ".join(c.name for c in self._coords)
        extra = f", degrees={list(self._degrees)}" if self.is_graded else ""
        if self._domain:
            extra += ", domain={" + ", ".join(f"{k}: ({lo}, {hi})" for k, (lo, hi) in self._domain.explicit.items()) + "}"
        return f"Chart({names!r}{extra})"

    def _latex(self, printer=None):
        parts = []
        for c, d in zip(self._coords, self._degrees):
            s = sympy.latex(c)
            parts.append(f"{s}^{{[{d}]}}" if self.is_graded else s)
        return r"\left(" + ", ".join(parts) + r"\right)"

    def _repr_latex_(self):
        return f"${self._latex()}$"

    # -- constructions
    def function(self, expr: sympy.Expr | float | SuperFunction) -> "SuperFunction":
        """The canonical superfunction of a sympy expression (read in the order written)."""
        return SuperFunction.from_expr(self, expr)

    def d(self, f: sympy.Expr | float) -> Form:
        """Exterior derivative of a function on an ordinary chart: a 1-form."""
        if self.is_graded:
            raise ChartMismatchError(
                f"{self!r}.d(f) is the exterior derivative on an ordinary chart; this chart is"
                " graded (use de_rham_vector_field on its T[1] shift instead)"
            )
        return _exterior_derivative(self, f)

    def shifted_tangent(self) -> "Chart":
        """T[1]M: this chart's coordinates and their differentials dx^i (degree 1)."""
        if self.is_graded:
            raise ChartMismatchError(f"shifted_tangent is defined here for ordinary charts, not {self!r}")
        if self._tangent_shift is None:
            names = [c.name for c in self._coords]
            taken = set(names)
            for c in self._coords:
                # "dx" unless the chart already has a coordinate of that name
                name = "d" + c.name
                while name in taken:
                    name += "'"
                taken.add(name)
                names.append(name)
            self._tangent_shift = Chart(names, [0] * self.dim + [1] * self.dim,
                                        domain={c.name: iv for c, iv in self._domain.explicit.items()})
        return self._tangent_shift

    def check_expression(self, expr: Any, what: str = "expression", finite: dict | None = None) -> sympy.Expr:
        """Sympify ``expr`` and refuse odd coordinates of *any* chart inside coefficients.

        ``finite``: passed to :func:`require_finite` (a dict shared by the checks of several
        expressions with common subexpressions, so each is walked once).
        """
        try:
            e = sympy.sympify(expr, strict=False)
        except (sympy.SympifyError, TypeError) as exc:
            raise ExpressionError(f"{what} {expr!r} is not a sympy expression") from exc
        # a Matrix (MatrixExpr is an Expr) and a Lambda (a function, not a value) are not scalar
        # coefficients; without this they reached the anticommuting-symbol test or sympy's diff
        if not isinstance(e, sympy.Expr) or isinstance(e, (sympy.MatrixBase, sympy.MatrixExpr, sympy.Lambda)):
            raise ExpressionError(f"{what} {expr!r} is not a scalar sympy expression (got {type(e).__name__})")
        if not e.is_commutative:
            raise ExpressionError(
                f"{what} {e} contains anticommuting symbols; an even coefficient was expected"
            )
        return require_finite(e, what, finite)


# Chart.d makes a Form, and forms (geomcheck.forms) are built on this module: a form is a
# function on the chart's T[1] shift.  So forms hands its exterior derivative down when it is
# imported (importing geomcheck imports it), and this module needs no import of the one above.
_exterior_derivative = None


def provide_exterior_derivative(exterior_derivative) -> None:
    """Let :meth:`Chart.d` compute ``exterior_derivative(chart, f)``, the 1-form ``df``.

    Called once, by :mod:`geomcheck.forms`, which defines forms.
    """
    global _exterior_derivative
    _exterior_derivative = exterior_derivative


def scalar_expression(v, what: str) -> sympy.Expr:
    """``v`` as a scalar (commutative) sympy expression.

    Raises
    ------
    ExpressionError
        ``v`` is not a sympy expression, or not a scalar one.
    """
    try:
        e = sympy.sympify(v, strict=False)
    except (sympy.SympifyError, TypeError) as exc:
        raise ExpressionError(f"{what} {v!r} is not a sympy expression") from exc
    if not isinstance(e, sympy.Expr) or not e.is_commutative:
        raise ExpressionError(f"{what} {v!r} is not a scalar (commutative) expression")
    return e


def as_sequence(values, what: str, expected: str, error=None) -> list:
    """``values`` as a list, or an error (``error``, default ExpressionError) naming ``what``.

    Refused: non-iterables (a number or ``None`` where one entry per coordinate was
    expected), strings and bytes (iterating them gives characters), and sets (their order
    is arbitrary, so which entry belongs to which coordinate would be a coin toss).
    """
    error = error or ExpressionError
    if isinstance(values, (str, bytes, set, frozenset, sympy.Set)):
        raise error(f"{what} must be {expected}, got {type(values).__name__} {values!r}")
    try:
        return list(values)
    except TypeError:  # not iterable (a number, None), or a 0-d array
        raise error(f"{what} must be {expected}, got {type(values).__name__} {values!r}") from None


_NONFINITE = tuple(type(c) for c in (sympy.S.NaN, sympy.S.Infinity, sympy.S.NegativeInfinity, sympy.S.ComplexInfinity))


def _is_nonfinite(node) -> bool:
    return isinstance(node, _NONFINITE)


def find_node(e, predicate, cleared=None):
    """The first subexpression of ``e`` for which ``predicate`` holds, else None.

    Each shared subexpression is looked at once: ``Basic.has`` walks the tree, which for a
    composition of a dozen steps is millions of nodes on a DAG of a few hundred.

    Parameters
    ----------
    e : sympy.Basic
    predicate : callable ``node -> bool``
    cleared : dict, optional
        ``{id(node): node}`` of nodes whose whole subtree is known to have no node
        satisfying ``predicate``; they are skipped.  Pass the same dict to several calls
        with the same predicate (the expressions of one map share most of their
        subexpressions, so each shared one is then walked once for all of them, not once
        per expression).  Filled in place only by a call that answers None (its walk saw
        every node below ``e``); a call that finds a node stops part way and adds nothing,
        so the dict never holds a node whose subtree was not looked at in full.  It holds
        the nodes themselves, so an id in it can never be reused by another object.

    >>> x = sympy.Symbol("x")
    >>> find_node(sympy.sin(x) + sympy.nan * x, lambda n: n is sympy.nan)
    nan
    >>> cleared = {}
    >>> find_node(sympy.sin(x) + 1, lambda n: n is sympy.nan, cleared) is None, id(sympy.sin(x)) in cleared
    (True, True)
    >>> find_node(sympy.sin(x) + sympy.nan, lambda n: n is sympy.nan, cleared), len(cleared)
    (nan, 4)
    """
    if cleared is not None and id(e) in cleared:
        return None
    seen, stack = {id(e): e}, [e]
    while stack:
        node = stack.pop()
        if predicate(node):
            return node
        for arg in node.args:
            key = id(arg)
            if key not in seen and (cleared is None or key not in cleared):
                seen[key] = arg
                stack.append(arg)
    if cleared is not None:
        cleared.update(seen)
    return None


def require_finite(e, what="expression", finite=None):
    """``e`` itself, or an ExpressionError when it contains nan, oo, -oo or zoo.

    A coefficient like that is not a function: its derivatives would be read as 0 and a
    Lie derivative along it as zero.

    ``finite`` (optional): a dict shared by the checks of several expressions, of the
    subexpressions already found finite (see ``cleared`` in :func:`find_node`); each shared
    subexpression is then walked once for all of them.

    >>> x = sympy.Symbol("x")
    >>> finite = {}
    >>> require_finite(sympy.sin(x) + 1, finite=finite)
    sin(x) + 1
    >>> require_finite(sympy.sin(x) + sympy.zoo * x, finite=finite)
    Traceback (most recent call last):
    ...
    geomcheck.errors.ExpressionError: expression zoo*x + sin(x) contains zoo; a finite expression was expected
    """
    bad = find_node(e, _is_nonfinite, finite)
    if bad is not None:
        from .latex import expression_size

        # printing a tree of shared subexpressions takes time exponential in its depth: a large
        # one is described by its size (counted in O(limit) steps), not printed
        limit = 5000
        shown = e if expression_size(e, limit) <= limit else f"(an expression of more than {limit} nodes)"
        raise ExpressionError(f"{what} {shown} contains {bad}; a finite expression was expected")
    return e


# ---------------------------------------------------------------------------
# superfunctions


class SuperFunction:
    """A function on a graded chart: a polynomial in the odd coordinates.

    ``terms`` maps strictly increasing tuples of odd indices (positions in
    ``chart.odd``) to nonzero coefficients in the even coordinates.
    """

    __slots__ = ("chart", "terms", "_hash")

    def __init__(self, chart: Chart, terms: Mapping | None = None):
        self.chart = chart
        clean = {}
        n = len(chart.odd)
        for key, value in (terms or {}).items():
            key = tuple(key)
            if any(not (0 <= i < n) for i in key) or list(key) != sorted(set(key)):
                raise ExpressionError(
                    f"term key {key} is not a strictly increasing tuple of odd indices of {chart!r}"
                )
            v = chart.check_expression(value, "coefficient")
            if v != 0:
                clean[key] = v
        self.terms = clean
        self._hash = None

    @classmethod
    def _raw(cls, chart, terms):
        obj = object.__new__(cls)
        obj.chart = chart
        obj.terms = terms
        obj._hash = None
        return obj

    @classmethod
    def from_expr(cls, chart: Chart, expr: sympy.Expr | float | SuperFunction) -> "SuperFunction":
        if isinstance(expr, SuperFunction):
            require_same_chart(chart, expr.chart, "function")
            return expr
        try:
            e = sympy.sympify(expr, strict=False)
        except (sympy.SympifyError, TypeError) as exc:
            raise ExpressionError(f"{expr!r} is not a sympy expression") from exc
        if isinstance(e, sympy.Basic):
            require_finite(e)
        return cls._raw(chart, read_terms(chart, e))

    # -- arithmetic
    def _coerce(self, other):
        if isinstance(other, SuperFunction):
            require_same_chart(self.chart, other.chart, "superfunction")
            return other
        return SuperFunction.from_expr(self.chart, other)

    def __add__(self, other):
        return SuperFunction._raw(self.chart, add_terms(self.terms, self._coerce(other).terms))

    __radd__ = __add__

    def __sub__(self, other):
        return SuperFunction._raw(self.chart, add_terms(self.terms, self._coerce(other).terms, -1))

    def __rsub__(self, other):
        return self._coerce(other) - self

    def __neg__(self):
        return SuperFunction._raw(self.chart, scale_terms(self.terms, -1))

    def __mul__(self, other):
        return SuperFunction._raw(self.chart, mul_terms(self.terms, self._coerce(other).terms))

    def __rmul__(self, other):
        return SuperFunction._raw(self.chart, mul_terms(self._coerce(other).terms, self.terms))

    # -- properties
    def term_degrees(self) -> set:
        return {_term_degree(self.chart, k, v) for k, v in self.terms.items()}

    @property
    def degree(self) -> int:
        degs = self.term_degrees()
        if len(degs) > 1:
            # a coefficient may be zero without being structurally 0 (e.g. b*(b+1) - b**2 - b)
            degs = {_term_degree(self.chart, k, v) for k, v in nonzero_terms(self.terms).items()}
        if len(degs) > 1:
            raise NotHomogeneousError(
                f"superfunction {self.expr} is not homogeneous: its terms have degrees {sorted(degs)}"
            )
        return degs.pop() if degs else 0

    @property
    def parity(self) -> int:
        pars = {len(k) & 1 for k in self.terms}
        if len(pars) > 1:
            raise NotHomogeneousError(f"superfunction {self.expr} mixes even and odd terms")
        return pars.pop() if pars else 0

    def parity_parts(self) -> tuple[SuperFunction, SuperFunction]:
        """(even part, odd part)."""
        even = {k: v for k, v in self.terms.items() if not len(k) & 1}
        odd = {k: v for k, v in self.terms.items() if len(k) & 1}
        return SuperFunction._raw(self.chart, even), SuperFunction._raw(self.chart, odd)

    @property
    def expr(self) -> sympy.Expr:
        """The canonical sympy expression (odd symbols in increasing order)."""
        odd = self.chart.odd
        parts = []
        for key in sorted(self.terms, key=lambda k: (len(k), k)):
            parts.append(sympy.Mul(self.terms[key], *[odd[i] for i in key]))
        return sympy.Add(*parts)

    def coefficient(self, *odd_coords: sympy.Symbol) -> sympy.Expr:
        """The coefficient c in ``f = c * theta_1 * ... * theta_k + ...`` (odd coordinates in the order given)."""
        sign, key = sort_with_sign(tuple(self.chart.odd_index(c) for c in odd_coords))
        if not sign:
            return sympy.S.Zero
        v = self.terms.get(key, sympy.S.Zero)
        return v if sign > 0 else -v

    def zero_decision(self, **budget: Any) -> ZeroDecision:
        from .zero import decide_all_zero

        budget.setdefault("domain", self.chart.domain)
        return decide_all_zero(self.terms, **budget)

    def is_zero(self, **budget: Any) -> bool | None:
        """True/False/None (undecided within the budget); never hangs."""
        if not self.terms:
            return True
        return self.zero_decision(**budget).is_zero

    def __eq__(self, other):
        if isinstance(other, SuperFunction):
            return self.chart == other.chart and self.terms == other.terms
        return NotImplemented

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self.chart, frozenset(self.terms.items())))
        return self._hash

    def __repr__(self):
        return f"SuperFunction({self.expr})"

    def _latex(self, printer=None):
        return superfunction_latex(self)

    def _repr_latex_(self):
        return f"${self._latex()}$"


def require_same_chart(a: Chart, b: Chart, what: str) -> None:
    """Refuse to combine a ``what`` on chart ``b`` with one on chart ``a`` unless the charts are equal."""
    if a != b:
        raise ChartMismatchError(f"cannot combine a {what} on {b!r} with one on {a!r}")


def _term_degree(chart: Chart, key: tuple, coeff) -> int:
    odd_deg = 0
    if key:
        odd_degrees = [d for d in chart.degrees if d % 2]
        odd_deg = sum(odd_degrees[i] for i in key)
    graded_even = [c for c, d in zip(chart.coords, chart.degrees) if d and not d % 2]
    if not graded_even:
        return odd_deg
    present = [c for c in graded_even if coeff.has(c)]
    if not present:
        return odd_deg
    weights = {c: chart.degree_of(c) for c in present}
    try:
        poly = sympy.Poly(sympy.expand(coeff), *present)
    except sympy.PolynomialError as exc:
        raise NotHomogeneousError(
            f"coefficient {coeff} is not polynomial in the graded even coordinates {present}"
        ) from exc
    degs = {sum(w * e for w, e in zip(weights.values(), mon)) for mon in poly.monoms()}
    if len(degs) > 1:
        raise NotHomogeneousError(f"coefficient {coeff} mixes degrees {sorted(degs)}")
    return odd_deg + degs.pop()


def read_terms(chart: Chart, e) -> Terms:
    """Read a sympy expression, in the order written, as canonical terms."""
    if e.is_commutative:
        if not isinstance(e, sympy.Expr):
            raise ExpressionError(f"{e!r} is not a scalar expression on {chart!r}")
        return {(): e} if e != 0 else {}
    if isinstance(e, sympy.Symbol):
        i = chart._odd_index.get(e)
        if i is None:
            raise UnknownCoordinateError(
                f"anticommuting symbol {e} is not an odd coordinate of {chart!r}; odd coordinates:"
                f" {', '.join(c.name for c in chart.odd) or 'none'}"
            )
        return {(i,): sympy.S.One}
    if isinstance(e, sympy.Add):
        acc = Accumulator()
        for arg in e.args:
            acc.add_terms(read_terms(chart, arg))
        return acc.result()
    if isinstance(e, sympy.Mul):
        # sympy keeps commutative factors first and the rest in the order written
        out = {(): sympy.S.One}
        for arg in e.args:
            out = mul_terms(out, read_terms(chart, arg))
            if not out:
                return {}
        return out
    if isinstance(e, sympy.Pow) and e.exp.is_Integer and e.exp > 0:
        base = read_terms(chart, e.base)
        out = {(): sympy.S.One}
        for _ in range(int(e.exp)):
            out = mul_terms(out, base)
            if not out:
                return {}
        return out
    raise ExpressionError(
        f"{e} is not polynomial in the odd coordinates of {chart!r}; a superfunction must be a"
        " polynomial in odd coordinates with even coefficients"
    )
