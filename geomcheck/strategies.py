"""Hypothesis strategies for geomcheck objects, shipped to users.

Use them to write property-based tests of your own schemes and structures:
every strategy draws a *small* object (few terms, polynomial degree at most 2
by default) because symbolic work is slow, and every part of what is drawn can
be overridden by an argument -- a fixed value, or a strategy of your own.

The building blocks are

- :func:`charts` and :func:`graded_charts` -- coordinate charts;
- :func:`coefficients` (alias :func:`functions`) -- sympy expressions in a
  chart's coordinates: polynomials, transcendental or generic (containing an
  undefined ``sympy.Function``);
- :func:`forms`, :func:`vector_fields`, :func:`maps`,
  :func:`constant_symplectic_forms` -- exterior calculus on an ordinary chart;
- :func:`superfunctions`, :func:`vector_fields_graded`,
  :func:`odd_vector_fields` -- graded geometry;
- :func:`butcher_tableaux`, :func:`partitioned_tableaux` -- Runge-Kutta methods with exact
  entries (for laws of :mod:`geomcheck.bseries` and tableau certificates).

Wherever a chart is asked for, a :class:`~geomcheck.Chart` or a strategy of
charts may be given.  Wherever ``coefficients`` is asked for, you may give a
strategy of sympy expressions, or a callable ``chart -> strategy`` (useful when
the chart is itself drawn).

Examples
--------
>>> from hypothesis import given, settings
>>> import geomcheck as gc
>>> from geomcheck import strategies as gst
>>> M = gc.Chart("x y z")
>>> @settings(max_examples=5, deadline=None, database=None)
... @given(gst.forms(M, degree=1))
... def test_dd_is_zero(a):
...     assert gc.d(gc.d(a)).is_zero() is True
>>> test_dd_is_zero()

This module needs ``hypothesis``, which is not a runtime dependency of
geomcheck (install the ``test`` extra; without it, importing this module raises a
:class:`~geomcheck.errors.MissingDependencyError` that says so).  Importing it registers
strategies for ``st.from_type``: :class:`~geomcheck.Chart`, :class:`~geomcheck.Form` and
:class:`~geomcheck.VectorField` (small ordinary charts, forms and fields on them).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import sympy as sp

from .algebra import Chart, SuperFunction
from .fields import VectorField
from .forms import Form
from .maps import Map

try:
    from hypothesis import reject
    from hypothesis import strategies as st
    from hypothesis.errors import InvalidArgument
    from hypothesis.strategies import SearchStrategy
except ImportError as exc:   # pragma: no cover - exercised in a process without hypothesis
    from .errors import MissingDependencyError

    raise MissingDependencyError(
        "geomcheck.strategies needs hypothesis, which is not a runtime dependency: install it with"
        " pip install 'geomcheck[test]' (or pip install hypothesis)") from exc

__all__ = [
    "charts",
    "graded_charts",
    "numbers",
    "coefficients",
    "functions",
    "forms",
    "vector_fields",
    "maps",
    "constant_symplectic_forms",
    "superfunctions",
    "vector_fields_graded",
    "odd_vector_fields",
    "superfunction_degrees",
    "vector_field_degrees",
    "butcher_tableaux",
    "partitioned_tableaux",
]

#: Default names of even coordinates (no ``h``: it is the step size by convention;
#: no capitals: those name undefined functions).  Drawn in a random order, so the
#: chart order usually differs from sympy's alphabetical order.
DEFAULT_NAMES = ("x", "y", "z", "u", "v", "w", "q", "p", "r", "s", "a", "b")
#: Default names of odd coordinates of graded charts.
DEFAULT_ODD_NAMES = ("xi", "eta", "theta", "zeta", "chi", "psi", "mu", "nu")
#: Default base names of undefined functions in ``kind="generic"`` coefficients.
DEFAULT_FUNCTION_NAMES = ("F", "G")

_KINDS = ("polynomial", "transcendental", "generic")


# --------------------------------------------------------------------------- helpers


def _as_strategy(value) -> SearchStrategy:
    """A strategy from a value or a strategy (a value means "always this")."""
    if isinstance(value, SearchStrategy):
        return value
    return st.just(value)


def _chart_strategy(chart) -> SearchStrategy:
    return _as_strategy(chart)


def _resolve(coeffs, chart, default: Callable[[object], SearchStrategy]) -> SearchStrategy:
    """The coefficient strategy for ``chart``: None -> default, callable -> called."""
    if coeffs is None:
        return default(chart)
    if isinstance(coeffs, SearchStrategy):
        return coeffs
    if callable(coeffs):
        out = coeffs(chart)
        if not isinstance(out, SearchStrategy):
            raise InvalidArgument(
                f"coefficients={coeffs!r} returned {out!r} for chart {chart!r}; "
                "expected a hypothesis strategy of sympy expressions"
            )
        return out
    raise InvalidArgument(
        f"coefficients={coeffs!r}: expected None, a strategy of sympy expressions, "
        "or a callable chart -> strategy"
    )


def _nonzero(strategy: SearchStrategy) -> SearchStrategy:
    return strategy.filter(lambda e: sp.sympify(e) != 0)


def _split_names(names) -> list[str]:
    if isinstance(names, str):
        return [n for n in names.replace(",", " ").split() if n]
    return [str(n) for n in names]


def _even_degree0_coords(chart) -> tuple:
    """The even coordinates of degree 0 (coefficients of superfunctions live there)."""
    degrees = tuple(getattr(chart, "degrees", None) or (0,) * len(chart.coords))
    return tuple(c for c, k in zip(chart.coords, degrees) if k == 0 and c.is_commutative)


def _variables_of(chart) -> tuple:
    """Symbols a coefficient may depend on: a chart's degree-0 even coordinates, or
    a sequence of symbols as given."""
    if hasattr(chart, "coords"):
        return _even_degree0_coords(chart)
    return tuple(chart)


# --------------------------------------------------------------------------- charts


@st.composite
def _fixed_prefix_names(draw, min_dim, max_dim, prefix):
    n = draw(st.integers(min_dim, max_dim))
    return [f"{prefix}{i}" for i in range(1, n + 1)]


def charts(min_dim: int = 1, max_dim: int = 4,
           names: str | Sequence[str | sp.Symbol] | SearchStrategy[str | Sequence[str | sp.Symbol]] | None = None, *,
           prefix: str | None = None) -> SearchStrategy[Chart]:
    """Ordinary (ungraded) coordinate charts.

    Parameters
    ----------
    min_dim, max_dim : int
        Bounds on the dimension (ignored when ``names`` fixes it).
    names : None, str, sequence of str, or strategy of lists of str, optional
        Coordinate names.  ``None`` draws distinct names from
        :data:`DEFAULT_NAMES` in a random order (so that chart order and sympy's
        alphabetical order disagree).  A string such as ``"q1 q2 p1 p2"`` or a
        sequence fixes the names (and the dimension); a strategy is drawn from.
    prefix : str, optional
        When given (and ``names`` is None), the names are ``prefix1 .. prefixN``:
        use distinct prefixes to draw charts whose coordinates do not overlap,
        e.g. the source and target of a map.

    Returns
    -------
    SearchStrategy[geomcheck.Chart]

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from geomcheck import strategies as gst
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.charts(min_dim=2, max_dim=3, prefix="y"))
    ... def test_dim(M):
    ...     assert 2 <= M.dim <= 3 and str(M.coords[0]) == "y1"
    >>> test_dim()
    """
    if min_dim < 0 or max_dim < min_dim:
        raise InvalidArgument(f"charts: need 0 <= min_dim <= max_dim, got {min_dim}, {max_dim}")
    if names is None:
        if prefix is not None:
            names_st = _fixed_prefix_names(min_dim, max_dim, prefix)
        else:
            if max_dim > len(DEFAULT_NAMES):
                raise InvalidArgument(
                    f"charts: max_dim={max_dim} exceeds the {len(DEFAULT_NAMES)} default names; "
                    "pass names= or prefix="
                )
            names_st = st.integers(min_dim, max_dim).flatmap(
                lambda n: st.permutations(DEFAULT_NAMES).map(lambda p: list(p[:n]))
            )
    elif isinstance(names, SearchStrategy):
        names_st = names.map(_split_names)
    else:
        names_st = st.just(_split_names(names))
    return names_st.map(lambda ns: Chart(ns))


@st.composite
def graded_charts(
    draw: st.DrawFn,
    min_dim: int = 1,
    max_dim: int = 4,
    names: str | Sequence[str | sp.Symbol] | SearchStrategy[str | Sequence[str | sp.Symbol]] | None = None,
    degrees: Sequence[int] | SearchStrategy[Sequence[int]] | None = None,
    *,
    min_odd: int = 1,
    even_degrees: SearchStrategy | None = None,
    odd_degrees: SearchStrategy | None = None,
) -> Chart:
    """Graded charts mixing even and odd coordinates.

    Parameters
    ----------
    min_dim, max_dim : int
        Bounds on the number of coordinates (ignored when ``names`` fixes it).
    names : None, str, sequence of str, or strategy, optional
        Coordinate names.  ``None``: even names from :data:`DEFAULT_NAMES`,
        odd names from :data:`DEFAULT_ODD_NAMES`.
    degrees : None, sequence of int, or strategy of lists of int, optional
        The degree of each coordinate (odd degree = anticommuting).  When
        ``None``, each coordinate is odd or even at random (at least ``min_odd``
        odd ones), with a degree from ``odd_degrees`` / ``even_degrees``, and
        the coordinates are interleaved in a random order.
    min_odd : int
        Least number of odd coordinates (default 1).
    even_degrees, odd_degrees : strategy of int, optional
        Degrees of even (default mostly 0, sometimes 2) and odd (default mostly
        1, sometimes -1 or 3) coordinates.

    Returns
    -------
    SearchStrategy[geomcheck.Chart]

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from geomcheck import strategies as gst
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.graded_charts(max_dim=3))
    ... def test_has_odd(G):
    ...     assert len(G.odd) >= 1
    >>> test_has_odd()
    """
    even_degrees = even_degrees if even_degrees is not None else st.sampled_from((0, 0, 0, 2))
    odd_degrees = odd_degrees if odd_degrees is not None else st.sampled_from((1, 1, 1, -1, 3))
    if names is not None:
        ns = _split_names(draw(_as_strategy(names)))
        n = len(ns)
    else:
        ns = None
        n = draw(st.integers(max(min_dim, min_odd, 1), max(max_dim, min_odd, 1)))
    if degrees is not None:
        degs = list(draw(_as_strategy(degrees)))
        if len(degs) != n and ns is not None:
            raise InvalidArgument(f"graded_charts: {len(degs)} degrees for {n} names {ns}")
        n = len(degs)
    else:
        n_odd = draw(st.integers(min(min_odd, n), n))
        parities = [1] * n_odd + [0] * (n - n_odd)
        parities = draw(st.permutations(parities))
        degs = [draw(odd_degrees) if par else draw(even_degrees) for par in parities]
        for k, par in zip(degs, parities):
            if k % 2 != par:
                raise InvalidArgument(f"graded_charts: degree {k} has the wrong parity")
    if ns is None:
        n_odd = sum(1 for k in degs if k % 2)
        if n_odd > len(DEFAULT_ODD_NAMES) or n - n_odd > len(DEFAULT_NAMES):
            raise InvalidArgument("graded_charts: too many coordinates for the default names")
        odd_names = iter(draw(st.permutations(DEFAULT_ODD_NAMES))[:n_odd])
        even_names = iter(draw(st.permutations(DEFAULT_NAMES))[: n - n_odd])
        ns = [next(odd_names) if k % 2 else next(even_names) for k in degs]
    return Chart(ns, degrees=degs)


# --------------------------------------------------------------------------- coefficients


def numbers(max_numerator: int = 3, max_denominator: int = 3, *, allow_zero: bool = False) -> SearchStrategy:
    """Small exact numbers: integers and rationals ``p/q``, ``|p| <= max_numerator``,
    ``1 <= q <= max_denominator``, as sympy ``Rational``.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from geomcheck import strategies as gst
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.numbers())
    ... def test_rational(c):
    ...     assert c.is_Rational and c != 0
    >>> test_rational()
    """
    lo = 0 if allow_zero else 1
    mag = st.integers(lo, max_numerator)
    return st.builds(
        lambda m, s, q: sp.Rational(s * m, q),
        mag,
        st.sampled_from((1, -1)),
        st.integers(1, max_denominator),
    )


@st.composite
def _monomials(draw, variables, max_degree):
    if not variables or max_degree <= 0:
        return sp.S.One
    vs = draw(st.lists(st.sampled_from(variables), max_size=max_degree))
    return sp.Mul(*vs)


@st.composite
def _polynomials(draw, variables, max_degree, max_terms, nums, min_terms=1):
    k = draw(st.integers(min_terms, max_terms))
    return sp.Add(*[draw(nums) * draw(_monomials(variables, max_degree)) for _ in range(k)])


@st.composite
def _transcendental_terms(draw, variables, nums, elementary):
    f = draw(st.sampled_from(elementary))
    if variables:
        vs = draw(st.lists(st.sampled_from(variables), min_size=1, max_size=2, unique=True))
        arg = sp.Add(*[draw(st.sampled_from((1, -1, 2))) * v for v in vs])
        factor = draw(_monomials(variables, 1))
    else:
        arg, factor = draw(nums), sp.S.One
    return draw(nums) * factor * f(arg)


@st.composite
def _undefined_terms(draw, variables, nums, function_names, name_arity):
    base = draw(st.sampled_from(tuple(function_names)))
    if variables:
        idx = draw(st.lists(st.integers(0, len(variables) - 1), min_size=1, unique=True))
        args = [variables[i] for i in sorted(idx)]
    else:
        args = []
    name = f"{base}{len(args)}" if name_arity else base
    fn = sp.Function(name)(*args) if args else sp.Symbol(name)
    factor = draw(_monomials(variables, 1))
    return draw(nums) * factor * fn


@st.composite
def coefficients(
    draw: st.DrawFn,
    chart: Chart | Sequence[sp.Symbol] | SearchStrategy[Chart],
    kind: str | SearchStrategy[str] = "polynomial",
    max_degree: int = 2,
    *,
    max_terms: int = 3,
    numbers: SearchStrategy | None = None,
    variables: Sequence[sp.Symbol] | None = None,
    function_names: Sequence[str] | None = None,
    elementary: Sequence = (sp.sin, sp.cos, sp.exp),
    nonzero: bool = False,
) -> sp.Expr:
    """Functions of a chart's coordinates, as sympy expressions.

    Parameters
    ----------
    chart : Chart, sequence of Symbols, or strategy of charts
        The coordinates.  On a graded chart the expressions depend only on the
        even coordinates of degree 0 (the coefficients of superfunctions).
    kind : {"polynomial", "transcendental", "generic"} or strategy of these
        ``"polynomial"``: a sum of 1..``max_terms`` monomials of degree
        <= ``max_degree`` with small integer / rational coefficients.
        ``"transcendental"``: such a polynomial plus a term
        ``c * m * f(a x_i + b x_j)`` with ``f`` one of ``elementary``
        (sin, cos, exp) and ``m`` a monomial of degree <= 1.
        ``"generic"``: a polynomial plus a term ``c * m * F(x_i, ...)`` with
        an undefined ``sympy.Function`` of some coordinates (meaning "any smooth
        function"; named ``F2`` for a function of two arguments, etc., so one
        name never has two arities), sometimes also a transcendental term.
    max_degree, max_terms : int
        Size of the polynomial part.
    numbers : strategy of sympy numbers, optional
        Numeric coefficients (default :func:`numbers`: small nonzero rationals).
    variables : sequence of Symbols, optional
        Overrides which symbols the expressions depend on.
    function_names : sequence of str, optional
        Base names of undefined functions (default ``("F", "G")``, with the
        arity appended).  When given, the names are used as they are.
    elementary : sequence of sympy functions
        The transcendental functions used.
    nonzero : bool
        Reject expressions that are structurally zero.

    Returns
    -------
    SearchStrategy[sympy.Expr]

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> import sympy as sp
    >>> import geomcheck as gc
    >>> from geomcheck import strategies as gst
    >>> M = gc.Chart("q p")
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.coefficients(M, kind="generic"))
    ... def test_generic(H):
    ...     assert H.atoms(sp.core.function.AppliedUndef)
    >>> test_generic()
    """
    chart = draw(_chart_strategy(chart))
    kind = draw(_as_strategy(kind))
    if kind not in _KINDS:
        raise InvalidArgument(f"coefficients: kind={kind!r}; expected one of {_KINDS}")
    nums = numbers if numbers is not None else _default_numbers()
    vs = tuple(variables) if variables is not None else _variables_of(chart)
    expr = draw(_polynomials(vs, max_degree, max_terms, nums))
    if kind == "transcendental":
        expr += draw(_transcendental_terms(vs, nums, tuple(elementary)))
    elif kind == "generic":
        if function_names is None:
            fnames, name_arity = DEFAULT_FUNCTION_NAMES, True
        else:
            fnames, name_arity = tuple(function_names), False
        expr += draw(_undefined_terms(vs, nums, fnames, name_arity))
        if draw(st.booleans()):
            expr += draw(_transcendental_terms(vs, nums, tuple(elementary)))
    if nonzero and expr == 0:
        reject()
    return expr


#: Alias of :func:`coefficients`: a "function" on a chart is a sympy expression.
functions = coefficients

# module-level names for the defaults (the parameters of the strategies below shadow them)
_default_numbers = numbers
_default_coefficients = coefficients


# --------------------------------------------------------------------------- forms, fields, maps


def _draw_degree(draw, degree, lo, hi, what):
    if degree is None:
        return draw(st.integers(lo, hi))
    k = draw(_as_strategy(degree))
    if not isinstance(k, int) or not lo <= k <= hi:
        raise InvalidArgument(f"{what}: degree={k!r} is not an integer in [{lo}, {hi}]")
    return k


@st.composite
def forms(draw: st.DrawFn, chart: Chart | SearchStrategy[Chart], degree: int | SearchStrategy[int] | None = None,
          max_terms: int = 3,
          coefficients: SearchStrategy[sp.Expr] | Callable[[Chart], SearchStrategy[sp.Expr]] | None = None, *,
          min_terms: int = 1) -> Form:
    """Homogeneous differential forms on an ordinary chart.

    Parameters
    ----------
    chart : Chart or strategy of charts
    degree : int or strategy of int, optional
        The degree (default: drawn from 0 .. dim).
    max_terms, min_terms : int
        Number of nonzero components (capped by the number of index tuples).
    coefficients : strategy, or callable chart -> strategy, optional
        The component functions (default polynomial :func:`coefficients`).
        Structurally zero draws are rejected, so the form has exactly the
        drawn number of components.

    Returns
    -------
    SearchStrategy[geomcheck.Form]

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> import geomcheck as gc
    >>> from geomcheck import strategies as gst
    >>> M = gc.Chart("x y z")
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.forms(M, degree=2, coefficients=gst.coefficients(M, kind="transcendental")))
    ... def test_degree(a):
    ...     assert a.degree == 2
    >>> test_degree()
    """
    chart = draw(_chart_strategy(chart))
    k = _draw_degree(draw, degree, 0, chart.dim, "forms")
    idx = list(itertools.combinations(range(chart.dim), k))
    lo = min(min_terms, len(idx))
    n = draw(st.integers(lo, max(lo, min(max_terms, len(idx)))))
    keys = draw(st.lists(st.sampled_from(idx), min_size=n, max_size=n, unique=True)) if n else []
    coeffs = _nonzero(_resolve(coefficients, chart, _default_coefficients))
    comps = {tuple(key): draw(coeffs) for key in sorted(keys)}
    return Form(chart, comps)


@st.composite
def constant_symplectic_forms(draw: st.DrawFn, chart: Chart | SearchStrategy[Chart],
                              entries: SearchStrategy | None = None) -> Form:
    """Constant non-degenerate 2-forms ``sum_{i<j} W_ij dx^i ^ dx^j`` on an
    even-dimensional ordinary chart (``det W != 0``).

    Parameters
    ----------
    chart : Chart or strategy of charts
    entries : strategy of numbers, optional
        Entries ``W_ij`` (default small integers in -2 .. 2).

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> import geomcheck as gc
    >>> from geomcheck import strategies as gst
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.constant_symplectic_forms(gc.Chart("q p")))
    ... def test_two_form(w):
    ...     assert w.degree == 2 and (gc.d(w)).is_zero() is True
    >>> test_two_form()
    """
    chart = draw(_chart_strategy(chart))
    n = chart.dim
    if n % 2:
        raise InvalidArgument(f"constant_symplectic_forms: chart {chart!r} has odd dimension {n}")
    entries = entries if entries is not None else st.integers(-2, 2).map(sp.Integer)
    pairs = list(itertools.combinations(range(n), 2))
    vals = draw(st.lists(entries, min_size=len(pairs), max_size=len(pairs)))
    W = sp.zeros(n, n)
    for (i, j), v in zip(pairs, vals):
        W[i, j], W[j, i] = v, -v
    if W.det() == 0:
        # cheap repair instead of rejection: add the canonical pairing
        for i in range(0, n, 2):
            W[i, i + 1] += 1
            W[i + 1, i] -= 1
        if W.det() == 0:
            reject()
    comps = {(i, j): W[i, j] for i, j in pairs if W[i, j] != 0}
    return Form(chart, comps)


@st.composite
def vector_fields(draw: st.DrawFn, chart: Chart | SearchStrategy[Chart], max_terms: int | None = None,
                  coefficients: SearchStrategy[sp.Expr] | Callable[[Chart], SearchStrategy[sp.Expr]] | None = None, *,
                  min_terms: int = 1) -> VectorField:
    """Vector fields on a chart.

    On an ordinary chart: ``sum X^i d/dx^i`` with 1..``max_terms`` nonzero
    components (default up to ``min(dim, 3)``).  On a graded chart this is
    :func:`vector_fields_graded` (homogeneous, degree drawn).

    Parameters
    ----------
    chart : Chart or strategy of charts
    max_terms, min_terms : int, optional
        Number of nonzero components.
    coefficients : strategy, or callable chart -> strategy, optional
        Component functions (default polynomial :func:`coefficients`).

    Returns
    -------
    SearchStrategy[geomcheck.VectorField]

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> import geomcheck as gc
    >>> from geomcheck import strategies as gst
    >>> M = gc.Chart("x y")
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.vector_fields(M), gst.coefficients(M))
    ... def test_lie_of_function(X, f):
    ...     assert (gc.lie(X, f) - X(f)).expand() == 0
    >>> test_lie_of_function()
    """
    chart = draw(_chart_strategy(chart))
    if getattr(chart, "is_graded", False):
        return draw(vector_fields_graded(chart, max_terms=max_terms, coefficients=coefficients))
    cap = min(chart.dim, 3 if max_terms is None else max_terms)
    lo = min(min_terms, cap)
    n = draw(st.integers(lo, max(lo, cap)))
    which = draw(st.lists(st.sampled_from(chart.coords), min_size=n, max_size=n, unique=True)) if n else []
    coeffs = _nonzero(_resolve(coefficients, chart, _default_coefficients))
    comps = {c: draw(coeffs) for c in chart.coords if c in which}
    return VectorField(chart, comps)


@st.composite
def maps(draw: st.DrawFn, source: Chart | SearchStrategy[Chart], target: Chart | SearchStrategy[Chart],
         coefficients: SearchStrategy[sp.Expr] | Callable[[Chart], SearchStrategy[sp.Expr]] | None = None) -> Map:
    """Maps ``source -> target``: the target's coordinates as expressions in the
    source's coordinates (polynomials of degree <= 2 by default).

    Parameters
    ----------
    source, target : Chart or strategy of charts
        May be the same chart.
    coefficients : strategy, or callable source chart -> strategy, optional
        The component expressions.

    Returns
    -------
    SearchStrategy[geomcheck.Map]

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> import geomcheck as gc
    >>> from geomcheck import strategies as gst
    >>> M, N = gc.Chart("x1 x2"), gc.Chart("y1 y2 y3")
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.maps(M, N), gst.forms(N, degree=1))
    ... def test_commutes_with_d(phi, a):
    ...     lhs = gc.d(gc.pullback(a, phi))
    ...     assert (lhs - gc.pullback(gc.d(a), phi)).is_zero() is True
    >>> test_commutes_with_d()
    """
    source = draw(_chart_strategy(source))
    target = draw(_chart_strategy(target))
    coeffs = _resolve(coefficients, source, _default_coefficients)
    exprs = [draw(coeffs) for _ in range(target.dim)]
    return Map(source, target, exprs)


# --------------------------------------------------------------------------- graded geometry


def _odd_degrees(chart):
    return [k for c, k in zip(chart.coords, chart.degrees) if not c.is_commutative]


def _graded_even(chart):
    """Even coordinates of nonzero degree (they may only appear polynomially)."""
    return [(c, k) for c, k in zip(chart.coords, chart.degrees) if c.is_commutative and k != 0]


def _shapes(chart, max_even_power, max_odd):
    """All monomial shapes (odd subset, even exponents) with their degree."""
    odd = list(chart.odd)
    odd_deg = dict(zip(odd, _odd_degrees(chart)))
    geven = _graded_even(chart)
    out = []
    for r in range(0, min(len(odd), max_odd) + 1):
        for sub in itertools.combinations(odd, r):
            for pw in itertools.product(range(max_even_power + 1), repeat=len(geven)):
                if sum(pw) > max_even_power:
                    continue
                deg = sum(odd_deg[o] for o in sub) + sum(p * k for p, (_, k) in zip(pw, geven))
                out.append((deg, sub, pw))
    return out


def superfunction_degrees(chart: Chart, *, max_even_power: int = 1, max_odd: int = 3) -> list[int]:
    """The degrees that :func:`superfunctions` can draw on ``chart``."""
    return sorted({deg for deg, _, _ in _shapes(chart, max_even_power, max_odd)})


@st.composite
def _superfunction_exprs(draw, chart, degree, max_terms, coefficients, max_even_power, max_odd, homogeneous):
    shapes = _shapes(chart, max_even_power, max_odd)
    if degree is None and homogeneous:
        degree = draw(st.sampled_from(sorted({s[0] for s in shapes})))
    if degree is not None:
        shapes = [s for s in shapes if s[0] == degree]
    if not shapes:
        return sp.S.Zero, degree
    n = draw(st.integers(1, min(max_terms, len(shapes))))
    chosen = draw(st.lists(st.sampled_from(range(len(shapes))), min_size=n, max_size=n, unique=True))
    coeffs = _nonzero(_resolve(coefficients, chart, _default_coefficients))
    geven = _graded_even(chart)
    terms = []
    for i in sorted(chosen):
        _, sub, pw = shapes[i]
        # the odd factors are written in a random order: the engine must bring
        # them to its canonical signed form
        order = draw(st.permutations(sub)) if len(sub) > 1 else list(sub)
        even = sp.Mul(*[c**p for p, (c, _) in zip(pw, geven)])
        terms.append(sp.Mul(draw(coeffs), even, *order))
    return sp.Add(*terms), degree


@st.composite
def superfunctions(
    draw: st.DrawFn,
    graded_chart: Chart | SearchStrategy[Chart],
    degree: int | SearchStrategy[int] | None = None,
    max_terms: int = 3,
    coefficients: SearchStrategy[sp.Expr] | Callable[[Chart], SearchStrategy[sp.Expr]] | None = None,
    *,
    homogeneous: bool = True,
    max_even_power: int = 1,
    max_odd: int = 3,
) -> SuperFunction:
    """Superfunctions on a graded chart.

    A term is ``c(x) * m * theta_1 ... theta_r``: ``c`` a function of the even
    coordinates of degree 0 (from ``coefficients``), ``m`` a monomial in the
    even coordinates of nonzero degree (total power <= ``max_even_power``) and
    at most ``max_odd`` odd coordinates, written in a random order (the engine
    brings them to canonical signed form).

    Parameters
    ----------
    graded_chart : Chart or strategy of charts
    degree : int or strategy of int, optional
        The degree.  Default: a degree drawn from :func:`superfunction_degrees`
        when ``homogeneous`` (the default), else terms of any degree.  A degree
        no term can have gives the zero function.
    max_terms : int
    coefficients : strategy, or callable chart -> strategy, optional
        The coefficient functions ``c`` (default: polynomial
        :func:`coefficients` of the degree-0 even coordinates).

    Returns
    -------
    SearchStrategy[geomcheck.SuperFunction]

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> import geomcheck as gc
    >>> from geomcheck import strategies as gst
    >>> G = gc.Chart("x xi eta", degrees=[0, 1, 1])
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.superfunctions(G, degree=1))
    ... def test_degree(f):
    ...     assert f.degree == 1
    >>> test_degree()
    """
    chart = draw(_chart_strategy(graded_chart))
    deg = None if degree is None else draw(_as_strategy(degree))
    expr, _ = draw(
        _superfunction_exprs(chart, deg, max_terms, coefficients, max_even_power, max_odd, homogeneous)
    )
    return chart.function(expr)


def vector_field_degrees(chart: Chart, *, max_even_power: int = 1, max_odd: int = 3) -> list[int]:
    """The degrees that :func:`vector_fields_graded` can draw on ``chart``
    (component along ``x^a`` has degree ``k + deg x^a``)."""
    fdeg = set(superfunction_degrees(chart, max_even_power=max_even_power, max_odd=max_odd))
    return sorted({fd - k for fd in fdeg for k in chart.degrees})


@st.composite
def vector_fields_graded(
    draw: st.DrawFn,
    graded_chart: Chart | SearchStrategy[Chart],
    degree: int | SearchStrategy[int] | None = None,
    max_terms: int | None = None,
    coefficients: SearchStrategy[sp.Expr] | Callable[[Chart], SearchStrategy[sp.Expr]] | None = None,
    *,
    parity: int | None = None,
    max_even_power: int = 1,
    max_odd: int = 3,
    max_function_terms: int = 2,
) -> VectorField:
    """Homogeneous vector fields ``sum X^a d/dx^a`` on a graded chart.

    The component along ``x^a`` of a field of degree ``k`` is a superfunction
    of degree ``k + deg x^a`` (drawn with :func:`superfunctions`).

    Parameters
    ----------
    graded_chart : Chart or strategy of charts
    degree : int or strategy of int, optional
        Default: drawn from :func:`vector_field_degrees` (restricted to
        ``parity`` when given).  A degree no field can have gives the zero field.
    max_terms : int, optional
        Most coordinates with a nonzero component (default ``min(dim, 3)``).
    coefficients : strategy, or callable chart -> strategy, optional
        Coefficient functions of the components' terms.
    parity : {0, 1}, optional
        Restrict the drawn degree to this parity.
    max_function_terms : int
        Terms per component.

    Returns
    -------
    SearchStrategy[geomcheck.VectorField]

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> import geomcheck as gc
    >>> from geomcheck import strategies as gst
    >>> G = gc.Chart("x xi", degrees=[0, 1])
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.vector_fields_graded(G, degree=0))
    ... def test_degree(X):
    ...     assert X.degree == 0
    >>> test_degree()
    """
    chart = draw(_chart_strategy(graded_chart))
    fdeg = set(superfunction_degrees(chart, max_even_power=max_even_power, max_odd=max_odd))
    if degree is None:
        cands = vector_field_degrees(chart, max_even_power=max_even_power, max_odd=max_odd)
        if parity is not None:
            cands = [k for k in cands if k % 2 == parity % 2]
        if not cands:
            raise InvalidArgument(f"vector_fields_graded: no degree of parity {parity} on {chart!r}")
        k = draw(st.sampled_from(cands))
    else:
        k = draw(_as_strategy(degree))
    possible = [c for c, dc in zip(chart.coords, chart.degrees) if k + dc in fdeg]
    cap = min(len(possible), min(chart.dim, 3) if max_terms is None else max_terms)
    comps = {}
    if cap:
        n = draw(st.integers(1, cap))
        which = draw(st.lists(st.sampled_from(possible), min_size=n, max_size=n, unique=True))
        for c, dc in zip(chart.coords, chart.degrees):
            if c in which:
                expr, _ = draw(
                    _superfunction_exprs(
                        chart, k + dc, max_function_terms, coefficients, max_even_power, max_odd, True
                    )
                )
                comps[c] = expr
    return VectorField(chart, comps)


def odd_vector_fields(graded_chart: Chart | SearchStrategy[Chart], degree: int | SearchStrategy[int] | None = None,
                      max_terms: int | None = None,
                      coefficients: SearchStrategy[sp.Expr] | Callable[[Chart], SearchStrategy[sp.Expr]] | None = None,
                      **kwargs: Any) -> SearchStrategy[VectorField]:
    """Odd homogeneous vector fields (candidates for homological vector fields Q).

    Same as :func:`vector_fields_graded` with ``parity=1``; ``degree`` (if
    given) must be odd.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> import geomcheck as gc
    >>> from geomcheck import strategies as gst
    >>> G = gc.Chart("x xi", degrees=[0, 1])
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.odd_vector_fields(G))
    ... def test_odd(Q):
    ...     assert Q.is_zero() or Q.degree % 2 == 1
    >>> test_odd()
    """
    if degree is not None and not isinstance(degree, SearchStrategy) and degree % 2 == 0:
        raise InvalidArgument(f"odd_vector_fields: degree={degree} is even")
    return vector_fields_graded(
        graded_chart, degree=degree, max_terms=max_terms, coefficients=coefficients, parity=1, **kwargs
    )


# --------------------------------------------------------------------------- tableaux


@st.composite
def _tableau_entries(draw, stages, explicit, entries):
    n = draw(_as_strategy(stages))
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidArgument(f"the number of stages must be a positive integer, not {n!r}")
    kind = draw(_as_strategy(explicit)) if explicit is not None else draw(st.sampled_from(("explicit", "implicit")))
    if kind not in ("explicit", "diagonally-implicit", "implicit"):
        raise InvalidArgument(f"explicit must be 'explicit', 'diagonally-implicit' or 'implicit', not {kind!r}")
    nums = entries if entries is not None else numbers(2, 4, allow_zero=True)
    A = [[draw(nums) if (j < i or (j == i and kind != "explicit") or kind == "implicit") else sp.S.Zero
          for j in range(n)] for i in range(n)]
    b = [draw(nums) for _ in range(n)]
    return A, b


def butcher_tableaux(stages: int | SearchStrategy[int] = st.integers(1, 3), *,
                     explicit: str | SearchStrategy[str] | None = None,
                     entries: SearchStrategy | None = None,
                     consistent: bool = True) -> SearchStrategy:
    """Runge-Kutta tableaux with exact rational entries (a
    :class:`~geomcheck.certify.tableaux.ButcherTableau`).

    Parameters
    ----------
    stages : int or strategy
        The number of stages (1 to 3 by default: the laws of B-series are checked on trees,
        whose number grows fast, not on stages).
    explicit : {"explicit", "diagonally-implicit", "implicit"} or strategy, optional
        The structure of A; drawn among explicit and fully implicit when not given.
    entries : strategy of sympy numbers, optional
        The entries of A and b (default: :func:`numbers` with numerators up to 2 and
        denominators up to 4, zero allowed).
    consistent : bool
        Rescale b to sum to 1 (order at least 1) when its sum is not zero; tableaux whose b sums
        to zero are rejected.

    Examples
    --------
    >>> from hypothesis import given, settings
    >>> from geomcheck import strategies as gst
    >>> from geomcheck.certify.tableaux import order
    >>> @settings(max_examples=5, deadline=None, database=None)
    ... @given(gst.butcher_tableaux(explicit="explicit"))
    ... def test_consistent(T):
    ...     assert sum(T.b) == 1 and order(T).order >= 1
    >>> test_consistent()
    """
    from .certify.tableaux import ButcherTableau

    @st.composite
    def build(draw):
        A, b = draw(_tableau_entries(stages, explicit, entries))
        if consistent:
            total = sum(b)
            if total == 0:
                reject()
            b = [x / total for x in b]
        return ButcherTableau(A, b, name="drawn tableau")

    return build()


def partitioned_tableaux(stages: int | SearchStrategy[int] = st.integers(1, 2), *,
                         explicit: str | SearchStrategy[str] | None = None,
                         entries: SearchStrategy | None = None) -> SearchStrategy:
    """Partitioned Runge-Kutta pairs with exact rational entries and consistent weights (a
    :class:`~geomcheck.certify.tableaux.PartitionedTableau`); parameters as for
    :func:`butcher_tableaux`, the two parts drawn independently with one number of stages.

    >>> from hypothesis import given, settings
    >>> from geomcheck import strategies as gst
    >>> @settings(max_examples=3, deadline=None, database=None)
    ... @given(gst.partitioned_tableaux())
    ... def test_two_parts(T):
    ...     assert T.q.s == T.p.s
    >>> test_two_parts()
    """
    from .certify.tableaux import PartitionedTableau

    @st.composite
    def build(draw):
        n = draw(_as_strategy(stages))
        parts = []
        for _ in range(2):
            A, b = draw(_tableau_entries(n, explicit, entries))
            total = sum(b)
            if total == 0:
                reject()
            parts.append((A, [x / total for x in b]))
        (A1, b1), (A2, b2) = parts
        return PartitionedTableau(A1, b1, A2, b2, name="drawn pair")

    return build()


def _register_types():
    st.register_type_strategy(Chart, charts(max_dim=3))
    st.register_type_strategy(Form, charts(max_dim=3).flatmap(lambda M: forms(M)))
    st.register_type_strategy(VectorField, charts(max_dim=3).flatmap(lambda M: vector_fields(M)))


_register_types()
