"""B-series of methods: the exact flow, Runge-Kutta and partitioned methods, AVF, Kahan, compositions.

Every constructor is exact: the coefficients are computed in the arithmetic of the method's
own entries (rationals, the number field of algebraic entries, rational functions of a
family's parameters), never in floating point.

>>> import sympy
>>> rk4 = runge_kutta([[0, 0, 0, 0], [sympy.Rational(1, 2), 0, 0, 0], [0, sympy.Rational(1, 2), 0, 0],
...                    [0, 0, 1, 0]], [sympy.Rational(1, 6), sympy.Rational(1, 3), sympy.Rational(1, 3),
...                    sympy.Rational(1, 6)], order=5, name="RK4")
>>> rk4.truncate(4) == exact_flow(4)                          # order 4 ...
True
>>> rk4 == exact_flow(5)                                        # ... and not 5
False
>>> alpha = sympy.Symbol("alpha")                               # the explicit two-stage family
>>> fam = runge_kutta([[0, 0], [alpha, 0]], [1 - 1 / (2 * alpha), 1 / (2 * alpha)], order=3)
>>> [str(c) for _, c in fam.items()]
['1', '1/2', 'alpha/2', '0']
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sympy

from ..certify.tableau_arithmetic import parametric_domain_for
from ..certify.tableaux import ButcherTableau, PartitionedTableau
from ..certify.trees import ElementaryWeights, trees_up_to
from ..errors import BSeriesError, TableauShapeError
from .laws import compose
from .series import BSeries, exact_coefficient

__all__ = [
    "exact_matrix",
    "exact_vector",
    "exact_flow",
    "runge_kutta",
    "partitioned_runge_kutta",
    "average_vector_field",
    "kahan",
    "composition_method",
    "scaled",
    "series_of",
]


def exact_flow(order: int, colours: int = 1) -> BSeries:
    """The exact time-``h`` flow: ``e(t) = 1 / gamma(t)`` (HLW III.1, Theorem 1.3).

    >>> [str(c) for _, c in exact_flow(3).items()]
    ['1', '1/2', '1/3', '1/6']
    """
    trees = trees_up_to(order, colours) if order else []
    return BSeries({t: sympy.Rational(1, t.gamma) for t in trees}, order, colours=colours, name="exact flow")


def exact_matrix(A, owner: str, what: str = "A", size: tuple | None = None, error=TableauShapeError) -> list:
    """``A`` (a list of rows, or a sympy matrix) as rows of exact sympy numbers, square (``size``: a
    ``(name, n)`` the matrix must match, e.g. ``("alpha", 3)``); ``error`` (naming ``owner`` and ``what``)
    for anything else."""
    if isinstance(A, sympy.MatrixBase):
        A = A.tolist()
    if isinstance(A, (str, bytes)):
        raise error(f"{owner}: {what} must be a square matrix (a list of rows), not {A!r}")
    try:
        rows = [list(r) for r in A]
    except TypeError as exc:
        raise error(f"{owner}: {what} must be a square matrix (a list of rows), not {A!r}") from exc
    s = len(rows)
    if s == 0 or any(len(r) != s for r in rows):
        raise error(f"{owner}: {what} must be a nonempty square matrix; its rows have lengths "
                    f"{[len(r) for r in rows]}")
    if size is not None and s != size[1]:
        raise error(f"{owner}: {what} is {s} x {s} but {size[0]} is {size[1]} x {size[1]}")
    return [[exact_coefficient(x, f"{owner}: {what}[{i}][{j}]") for j, x in enumerate(r)] for i, r in enumerate(rows)]


def exact_vector(b, s: int, owner: str, name: str = "b", error=TableauShapeError) -> list:
    """``b`` as a list of ``s`` exact sympy numbers; ``error`` (naming ``owner`` and ``name``) otherwise."""
    if isinstance(b, sympy.MatrixBase):
        b = list(b)
    if isinstance(b, (str, bytes)):
        raise error(f"{owner}: {name} must be a vector of {s} weights, not {b!r}")
    try:
        v = list(b)
    except TypeError as exc:
        raise error(f"{owner}: {name} must be a vector of {s} weights, not {b!r}") from exc
    if len(v) != s:
        raise error(f"{owner}: {name} has {len(v)} entries but the method has {s} stages")
    return [exact_coefficient(x, f"{owner}: {name}[{i}]") for i, x in enumerate(v)]


def _weights_series(parts, order, colours, name):
    """The series ``a(t) = Phi(t)`` of tableaux ``parts = [(A, b), ...]`` (one per colour)."""
    entries = [x for A, b in parts for row in A for x in row] + [x for _A, b in parts for x in b]
    dom = parametric_domain_for(entries)
    As = [[[dom.convert(x) for x in row] for row in A] for A, _b in parts]
    bs = [[dom.convert(x) for x in b] for _A, b in parts]
    w = ElementaryWeights(As, bs, dom.one)
    elements = {t: w.phi(t) for t in (trees_up_to(order, colours) if order else [])}
    return BSeries.from_elements(dom, elements, order, empty=dom.one, colours=colours, name=name)


def _check_order(order):
    if isinstance(order, bool) or not isinstance(order, int) or order < 0:
        raise BSeriesError(f"the truncation order must be a nonnegative integer, not {order!r}")
    return order


def runge_kutta(A: ButcherTableau | Sequence[Sequence[Any]], b: Sequence[Any] | int | None = None,
                order: int | None = None, *, name: str | None = None) -> BSeries:
    """The B-series of a Runge-Kutta method: ``a(t) = Phi(t)``, its elementary weights.

    Parameters
    ----------
    A : square matrix, or ButcherTableau
        The coefficients (exact numbers; free symbols allowed for a family of methods), or a
        :class:`~geomcheck.certify.tableaux.ButcherTableau` (then ``b`` is omitted, or is the order).
    b : vector
        The weights.
    order : int
        The truncation order.
    name : str, optional

    Examples
    --------
    >>> [str(c) for _, c in runge_kutta([[0]], [1], order=3).items()]     # explicit Euler
    ['1', '0', '0', '0']
    """
    if isinstance(A, ButcherTableau):
        if order is None and isinstance(b, int):
            b, order = None, b
        if b is not None:
            raise BSeriesError("runge_kutta(tableau, order): the weights come from the tableau")
        name = name or A.name or None
        A, b = [list(r) for r in A.A], list(A.b)
    owner = f"runge_kutta({name})" if name else "runge_kutta"
    if b is None or order is None:
        raise BSeriesError("runge_kutta needs A, b and order (or a ButcherTableau and order)")
    order = _check_order(order)
    Am = exact_matrix(A, owner)
    bv = exact_vector(b, len(Am), owner)
    return _weights_series([(Am, bv)], order, 1, name)


def partitioned_runge_kutta(tableau: PartitionedTableau | tuple, order: int, *, name: str | None = None) -> BSeries:
    """The P-series of a partitioned Runge-Kutta pair (bicoloured trees).

    Colour 0 is the first tableau (positions ``q``), colour 1 the second (momenta ``p``), as in
    :class:`~geomcheck.certify.tableaux.PartitionedTableau`.

    Parameters
    ----------
    tableau : PartitionedTableau or (A1, b1, A2, b2)
    order : int

    Examples
    --------
    >>> from sympy import Rational as R
    >>> verlet = partitioned_runge_kutta(([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)],
    ...                                   [[R(1, 2), 0], [R(1, 2), 0]], [R(1, 2), R(1, 2)]), 3)
    >>> verlet.colours, verlet.truncate(2) == exact_flow(2, colours=2), verlet == exact_flow(3, colours=2)
    (2, True, False)
    """
    if isinstance(tableau, PartitionedTableau):
        name = name or tableau.name or None
        parts = [([list(r) for r in T.A], list(T.b)) for T in (tableau.q, tableau.p)]
    else:
        try:
            A1, b1, A2, b2 = tableau
        except (TypeError, ValueError) as exc:
            raise BSeriesError("partitioned_runge_kutta needs a PartitionedTableau or a tuple (A1, b1, A2, b2)") from exc
        parts = [(A1, b1), (A2, b2)]
    owner = f"partitioned_runge_kutta({name})" if name else "partitioned_runge_kutta"
    order = _check_order(order)
    checked = []
    for k, (A, b) in enumerate(parts):
        Am = exact_matrix(A, f"{owner}, part {k + 1}")
        checked.append((Am, exact_vector(b, len(Am), f"{owner}, part {k + 1}")))
    if len(checked[0][0]) != len(checked[1][0]):
        raise TableauShapeError(f"{owner}: the two parts have {len(checked[0][0])} and {len(checked[1][0])} stages")
    return _weights_series(checked, order, 2, name)


def average_vector_field(order: int) -> BSeries:
    """The average vector field method ``y1 = y0 + h int_0^1 f((1 - s) y0 + s y1) ds``.

    A continuous-stage method: its stage at ``s`` is ``B(s a)``, so
    ``a([t1 ... tm]) = a(t1) ... a(tm) / (m + 1)`` (Celledoni et al. 2010).

    >>> [str(c) for _, c in average_vector_field(3).items()]
    ['1', '1/2', '1/3', '1/4']
    """
    order = _check_order(order)
    a: dict = {}
    for t in trees_up_to(order) if order else []:
        v = Fraction(1, len(t.children) + 1)
        for u in t.children:
            v *= a[u]
        a[t] = v
    return BSeries({t: sympy.Rational(v.numerator, v.denominator) for t, v in a.items()}, order,
                   name="average vector field")


def kahan(order: int) -> BSeries:
    """Kahan's method on quadratic vector fields, as the Runge-Kutta method it coincides with there.

    On a quadratic field ``f``, Kahan's unconventional discretization equals
    ``y1 = y0 + h (-f(y0)/2 + 2 f((y0 + y1)/2) - f(y1)/2)`` (Celledoni, McLachlan, Owren,
    Quispel 2013); this is that three-stage method.  Only trees whose vertices have at most two
    children matter on quadratic fields (``f''' = 0``).

    Structure (tests/geomcheck/bseries/test_kahan.py; each statement is also checked there with
    plain sympy on the explicit rational map, built from the polarized definition):

    * symmetric at every order (the tableau is its own adjoint);
    * not symplectic: the condition of the pair ``(τ, [τ])`` (trees ``[[τ]]`` and ``[τ²]``, both
      seen by quadratic fields) fails with residual -1/4, and on ``H = p²/2 + q²/2 + q³/3`` the
      map does not preserve ``dq ∧ dp``;
    * ``H(y1) - H(y0) = O(h³)``, not ``O(h⁴)``: ``is_energy_preserving`` fails at order 3 on
      ``[τ²]``, and so does the concrete cubic;
    * conjugate symplectic up to order 4; the order-5 obstruction of ``is_conjugate_symplectic``
      involves ``[τ³]``, which quadratic fields do not see: no statement about them follows;
    * for ``f = J grad H``, ``H`` cubic, ``J`` constant, the map (one linear solve per step)
      conserves ``H~ = H + (h/3) grad H^T (I - h/2 f')^{-1} f`` and the measure
      ``dx / det(I - h/2 f'(x))`` (Celledoni et al. 2013); certified with
      ``geomcheck.certify_conserves`` / ``certify_preserves`` for ``H = p²/2 + q²/2 + q³/3``
      (any ``h``) and Henon-Heiles (``h = 1/5``); ``h/4`` in place of ``h/3`` is refuted.  For a
      quartic ``H`` the RK form does not conserve that ``H~`` (a nonzero ``h⁵`` term).

    >>> kahan(2)[trees_up_to(2)[1]]
    1/2
    >>> from geomcheck.bseries.properties import is_symplectic
    >>> c = is_symplectic(kahan(3), 3)
    >>> c.holds, [str(t) for t in c.counterexample["pair"]], c.counterexample["residual"]
    (False, ['τ', '[τ]'], -1/4)
    """
    h = sympy.Rational(1, 2)
    b = [-h, 2, -h]
    return runge_kutta([[0, 0, 0], [sympy.Rational(1, 2) * x for x in b], b], b, order=order,
                       name="Kahan's method (quadratic vector fields)")


def scaled(a: BSeries, gamma: Any) -> BSeries:
    """The series of the method with step ``gamma h``: ``a(t) gamma^|t|``.

    >>> [str(c) for _, c in scaled(exact_flow(2), 2).items()]
    ['2', '2']
    """
    g = exact_coefficient(gamma, "a step-size factor")
    coefficients = {t: c * g ** t.order for t, c in a.items() if c != 0}
    return BSeries(coefficients, a.order, empty=a.empty, colours=a.colours,
                   name=None if a.name is None else f"{a.name} with step {g} h")


def composition_method(methods: BSeries | Sequence[BSeries], gammas: Sequence[Any], *,
                       name: str | None = None) -> BSeries:
    """``base_1(gamma_1 h)`` then ``base_2(gamma_2 h)`` then ...: the composition of the scaled methods.

    Parameters
    ----------
    methods : BSeries or sequence of BSeries
        One base method for every step, or one per step.
    gammas : sequence of numbers
        The step-size factors (exact).

    Notes
    -----
    Everything is computed in one arithmetic, chosen once from the factors and the bases'
    coefficients (for Yoshida's triple jumps: the number field of ``2**(1/3)``, ...), so no
    coefficient is converted twice.

    Examples
    --------
    >>> import sympy
    >>> w = 2 ** sympy.Rational(1, 3)                        # Yoshida's triple jump of the midpoint rule
    >>> g1 = 1 / (2 - w)
    >>> mid = runge_kutta([[sympy.Rational(1, 2)]], [1], order=5)
    >>> yo = composition_method(mid, [g1, -w * g1, g1])
    >>> yo.truncate(4) == exact_flow(4), yo == exact_flow(5)
    (True, False)
    """
    gammas = [exact_coefficient(g, "a step-size factor") for g in gammas]
    if not gammas:
        raise BSeriesError("a composition needs at least one step-size factor")
    if isinstance(methods, BSeries):
        methods = [methods] * len(gammas)
    methods = list(methods)
    if len(methods) != len(gammas):
        raise BSeriesError(f"{len(methods)} methods but {len(gammas)} step-size factors")
    if not all(isinstance(m, BSeries) for m in methods):
        raise BSeriesError("composition_method composes BSeries (geomcheck.bseries.series_of converts methods)")
    distinct = list({id(m): m for m in methods}.values())
    entries = list(gammas) + [c for m in distinct for _, c in m.items() if c != 0] + [m.empty for m in distinct]
    dom = parametric_domain_for(entries)
    read = {id(m): ({t: dom.convert(c) for t, c in m.items() if c != 0}, dom.convert(m.empty)) for m in distinct}
    out = None
    for m, g in zip(methods, gammas):
        elements, empty = read[id(m)]
        ge = dom.convert(g)
        powers = [dom.one]
        for _ in range(m.order):
            powers.append(powers[-1] * ge)
        step = BSeries.from_elements(dom, {t: x * powers[t.order] for t, x in elements.items()}, m.order,
                                     empty=empty, colours=m.colours)
        out = step if out is None else compose(out, step)
    return out if name is None else out.with_name(name)


def series_of(method: Any, order: int) -> BSeries:
    """The B-series (or P-series) of ``method`` up to ``order``.

    ``method`` is a :class:`BSeries` (truncated to ``order``), a
    :class:`~geomcheck.certify.tableaux.ButcherTableau` or
    :class:`~geomcheck.certify.tableaux.PartitionedTableau`, or any object with a method
    ``bseries(order)`` (the catalog schemes of :mod:`integrators` that are B-series methods).

    Raises
    ------
    BSeriesError
        Anything else, or a series known only to a lower order.
    """
    order = _check_order(order)
    if isinstance(method, BSeries):
        if method.order < order:
            raise BSeriesError(f"{method.name or 'the series'} is known only up to order {method.order}, "
                               f"not {order}")
        return method.truncate(order)
    if isinstance(method, ButcherTableau):
        return runge_kutta(method, order=order)
    if isinstance(method, PartitionedTableau):
        return partitioned_runge_kutta(method, order)
    maker = getattr(method, "bseries", None)
    if callable(maker):
        got = maker(order)
        if not isinstance(got, BSeries):
            raise BSeriesError(f"{type(method).__name__}.bseries({order}) returned {type(got).__name__}, "
                               f"not a BSeries")
        return got
    raise BSeriesError(f"cannot make a B-series of {type(method).__name__}: give a BSeries, a ButcherTableau, a "
                       f"PartitionedTableau, or a method with .bseries(order) (e.g. ig.RungeKutta)")
