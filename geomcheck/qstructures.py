r"""Q-structures (homological vector fields) on graded charts.

A Q-structure is an odd vector field ``Q`` with ``Q o Q = 0``.  This module builds the
classical ones from ordinary data and reports, for a field that is *not* homological,
which components of ``Q o Q`` survive:

===================================  =========================  ===========================
field                                graded chart               homological iff
===================================  =========================  ===========================
:func:`de_rham_vector_field`         T[1]M  (x^i, dx^i)         always (d o d = 0)
:func:`poisson_vector_field`         T*[1]M (x^i, theta_i)      the bivector P is Poisson
:func:`chevalley_eilenberg_vector_field`  g[1] (xi^a)           the bracket obeys Jacobi
:func:`lie_algebroid_vector_field`   E[1]   (x^i, xi^a)         the algebroid axioms hold
:func:`action_algebroid`             M x g[1]                   the action is a Lie algebra
                                                                homomorphism g -> X(M)
===================================  =========================  ===========================

Conventions (each one is checked by the tests against an independent computation):

* Lie algebras: ``[e_i, e_j] = sum_k c[i][j][k] e_k``; the Chevalley-Eilenberg field is
  ``Q = -1/2 c_ij^k xi^i xi^j d/dxi^k`` (the differential of ``Lambda g*``,
  ``d alpha(x, y) = -alpha([x, y])``), and ``(Q o Q)(xi^m)`` has coefficient
  ``Jac(e_a, e_b, e_c)^m`` on ``xi^a xi^b xi^c`` (a < b < c), where
  ``Jac(x, y, z) = [[x, y], z] + [[y, z], x] + [[z, x], y]``.
* Lie algebroids ``(E, rho, [.,.])`` with ``rho(e_a) = rho_a^i d/dx^i`` and
  ``[e_a, e_b] = C_ab^c(x) e_c``: ``Q = rho_a^i xi^a d/dx^i - 1/2 C_ab^c xi^a xi^b d/dxi^c``.
* Poisson: ``P^{ij} = {x^i, x^j}`` and ``Q = P^{ij} theta_i d/dx^j - 1/2 d_k P^{ij}
  theta_i theta_j d/dtheta_k``, so that ``Q(f) = {x^i, f} theta_i``.  This is the
  Lichnerowicz differential ``[pi, .]`` (multivectors = functions of ``theta``,
  ``theta_i <-> d/dx^i``, ``pi = 1/2 P^{ij} theta_i theta_j``) and the Lie algebroid field
  of the cotangent algebroid ``(T*M, rho(dx^i) = P^{ij} d/dx^j, [dx^i, dx^j] = d P^{ij})``.
  With the Schouten bracket of :func:`schouten_bracket`,
  ``Q o Q = 1/2 [[P, P], .]``.

>>> import geomcheck as gc
>>> M = gc.Chart("x y")
>>> Q = gc.de_rham_vector_field(M)
>>> Q.degree, Q.is_homological()
(1, True)
>>> so3 = {(0, 1, 2): 1, (1, 2, 0): 1, (2, 0, 1): 1}     # [e1, e2] = e3 and cyclic
>>> gc.chevalley_eilenberg_vector_field(so3).is_homological()
True
"""

from __future__ import annotations

import itertools
import numbers
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

import sympy

from .algebra import (Accumulator, Chart, SuperFunction, mul_terms, odd_left_derivative, scalar_expression,
                      split_names)
from .calculus import diff, free_coordinates
from .errors import (
    AnchorShapeError,
    ChartError,
    ChartMismatchError,
    ExpressionError,
    InvalidArgumentError,
    NotSkewError,
    ShapeError,
    StructureConstantsError,
    StructureConstantsNotSkewError,
    StructureConstantsShapeError,
)
from .fields import VectorField
from .polynomials import NotPolynomial, to_poly
from .square import square_terms

if TYPE_CHECKING:
    import numpy

__all__ = [
    "de_rham_vector_field",
    "cotangent_shift",
    "lie_algebra_shift",
    "poisson_vector_field",
    "schouten_bracket",
    "lie_poisson_matrix",
    "chevalley_eilenberg_vector_field",
    "lie_algebroid_vector_field",
    "action_algebroid",
    "structure_constants",
    "so_structure_constants",
    "homological_report",
    "HomologicalReport",
    "ComponentReport",
]

#: seconds the zero test may spend on one skewness check of an input entry
_SKEW_BUDGET = 5.0


# --------------------------------------------------------------------------- charts


def de_rham_vector_field(M: Chart) -> VectorField:
    """The exterior derivative as the degree-1 vector field ``dx^i d/dx^i`` on T[1]M.

    Parameters
    ----------
    M : Chart
        An ordinary chart.

    Returns
    -------
    VectorField
        ``Q`` on ``M.shifted_tangent()``; ``Q(f) = df`` for functions on T[1]M (forms).

    Examples
    --------
    >>> import geomcheck as gc
    >>> Q = gc.de_rham_vector_field(gc.Chart("x y"))
    >>> Q
    VectorField({x: dx, y: dy})
    >>> Q.is_homological()
    True
    """
    T = M.shifted_tangent()
    n = M.dim
    return VectorField(T, {T.coords[i]: T.coords[n + i] for i in range(n)})


def _ordinary(M, what: str) -> Chart:
    if not isinstance(M, Chart):
        raise ExpressionError(f"{what} needs an ordinary Chart M, got {M!r}")
    if M.is_graded:
        raise ChartMismatchError(f"{what} needs an ordinary chart (all degrees 0), not the graded {M!r}")
    return M


def _fresh_names(wanted, taken) -> list:
    """``wanted`` with a prime appended while a name is taken (as ``Chart.shifted_tangent``)."""
    taken = set(taken)
    out = []
    for name in wanted:
        while name in taken:
            name += "'"
        taken.add(name)
        out.append(name)
    return out


def cotangent_shift(M: Chart) -> Chart:
    """T*[1]M: the coordinates x^i of M (degree 0) and odd momenta ``theta_<x>`` (degree 1).

    The odd momentum of the coordinate ``x`` is named ``theta_x`` (printed
    :math:`\\theta_{x}`); a prime is appended when the chart already has that name.  The
    even coordinates are M's own Symbols, so expressions written on M are functions on
    T*[1]M as they are.  Multivector fields on M are the functions on T*[1]M
    (``theta_i <-> d/dx^i``).

    Parameters
    ----------
    M : Chart
        An ordinary chart.

    Returns
    -------
    Chart
        Coordinates ``(x^1..x^n, theta_1..theta_n)`` with degrees ``(0..0, 1..1)``.

    Raises
    ------
    ChartMismatchError
        M is graded.

    Examples
    --------
    >>> import geomcheck as gc
    >>> T = gc.cotangent_shift(gc.Chart("x y"))
    >>> T
    Chart('x y theta_x theta_y', degrees=[0, 0, 1, 1])
    >>> gc.cotangent_shift(gc.Chart("x theta_x")).coords
    (x, theta_x, theta_x', theta_theta_x)
    """
    _ordinary(M, "cotangent_shift")
    names = [c.name for c in M.coords]
    thetas = _fresh_names(["theta_" + n for n in names], names)
    return Chart(list(M.coords) + thetas, [0] * M.dim + [1] * M.dim)


def _positive_int(n, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or int(n) < 1:
        raise InvalidArgumentError(f"{what} must be a positive integer, got {n!r}")
    return int(n)


def lie_algebra_shift(n: int, names: str | Sequence[str | sympy.Symbol] | None = None) -> Chart:
    """g[1] for an n-dimensional Lie algebra g: n odd coordinates of degree 1.

    Parameters
    ----------
    n : int
        The dimension of g.
    names : str or sequence of str/Symbol, optional
        Names of the coordinates (dual to the basis e_1..e_n of g); default
        ``xi1 .. xin``.

    Returns
    -------
    Chart

    Raises
    ------
    InvalidArgumentError
        n is not a positive integer.
    ChartError
        The number of names is not n (or a name is invalid).

    Examples
    --------
    >>> import geomcheck as gc
    >>> gc.lie_algebra_shift(3)
    Chart('xi1 xi2 xi3', degrees=[1, 1, 1])
    >>> gc.lie_algebra_shift(2, "a b").odd
    (a, b)
    """
    n = _positive_int(n, "lie_algebra_shift: the dimension n")
    if names is None:
        names = [f"xi{i}" for i in range(1, n + 1)]
    _count_names(names, n, "lie_algebra_shift")
    return Chart(names, [1] * n)


def _count_names(names, n, what) -> int:
    k = len(split_names(names))
    if k != n:
        raise ChartError(f"{what} got {k} names {names!r} for {n} odd coordinates; expected {n}")
    return k


def _fibre_chart(M: Chart, r: int, names, what: str) -> Chart:
    """E[1] = (x^1..x^n, xi^1..xi^r); default fibre names xi1..xir, primed on a clash."""
    if names is None:
        fibre = _fresh_names([f"xi{a}" for a in range(1, r + 1)], [c.name for c in M.coords])
    else:
        _count_names(names, r, what)
        fibre = [given if given is not None else name for name, given in split_names(names)]
    return Chart(list(M.coords) + fibre, [0] * M.dim + [1] * r)


# --------------------------------------------------------------------------- input parsing


def _nested(A, what: str, error_cls, expected: str) -> list:
    """A nested list from a sympy Matrix / NDimArray, a numpy array or nested sequences."""
    if isinstance(A, sympy.MatrixBase):
        return A.tolist()
    if hasattr(A, "tolist") and not isinstance(A, (str, bytes)):
        A = A.tolist()
    if isinstance(A, (str, bytes, Mapping)) or not isinstance(A, Iterable):
        raise error_cls(f"{what} must be {expected}, got {A!r}")
    return list(A)


def matrix_rows(A, what: str, error_cls, shape: tuple, row_hint: str, col_hint: str) -> list:
    """``A`` as a list of rows of the given shape (entries unconverted)."""
    r, c = shape
    expected = f"a {r} x {c} matrix ({row_hint}; {col_hint})"
    rows = _nested(A, what, error_cls, expected)
    if len(rows) != r:
        raise error_cls(f"{what} has {len(rows)} rows; expected {expected}")
    out = []
    for i, row in enumerate(rows):
        row = _nested(row, f"row {i} of {what}", error_cls, f"a row of {c} entries ({col_hint})")
        if len(row) != c:
            raise error_cls(f"row {i} of {what} has {len(row)} entries; expected {expected}")
        out.append(row)
    return out


def _entry(chart, value, what: str):
    """An even scalar sympy expression (on the chart when one is given)."""
    if chart is not None:
        return chart.check_expression(value, what)
    return scalar_expression(value, what)


def _negatives(a, b) -> bool:
    """``a == -b``: exact Python arithmetic for polynomials, the zero test otherwise.

    (``a + b`` in sympy costs ~100 us per pair, too much for the n^2/2 pairs of a large
    Lie-Poisson matrix; for polynomials the comparison of coefficient dicts is exact.)
    """
    if a == 0 and b == 0:
        return True
    variables: dict = {}
    try:
        pa, pb = to_poly(a, variables), to_poly(b, variables)
    except NotPolynomial:
        return _decided_zero(a + b)
    return all(pa.get(m, 0) + pb.get(m, 0) == 0 for m in set(pa) | set(pb))


def _decided_zero(s) -> bool:
    """Cheap structural test first; the zero test (within a small budget) otherwise."""
    if s == 0:
        return True
    if s.is_Number:
        return False
    from .zero import decide_zero

    return decide_zero(s, budget=_SKEW_BUDGET).is_zero is True


def skew_matrix(P, M: Chart, what: str) -> list:
    """The checked skew matrix as a list of rows, with ``P[j][i] = -P[i][j]`` exactly."""
    n = M.dim
    names = ", ".join(c.name for c in M.coords)
    rows = matrix_rows(P, what, ShapeError, (n, n), f"one row per coordinate of M ({names})",
                 "one column per coordinate")
    P = [[_entry(M, v, f"{what} entry [{i}][{j}]") for j, v in enumerate(row)] for i, row in enumerate(rows)]
    xs = M.coords
    for i in range(n):
        if not _decided_zero(P[i][i]):
            raise NotSkewError(
                f"{what} is not skew: the diagonal entry [{i}][{i}] (the bracket {{{xs[i]}, {xs[i]}}})"
                f" is {P[i][i]}; expected 0"
            )
        for j in range(i + 1, n):
            if not _negatives(P[i][j], P[j][i]):
                raise NotSkewError(
                    f"{what} is not skew: entry [{i}][{j}] (the bracket {{{xs[i]}, {xs[j]}}}) is"
                    f" {P[i][j]} but entry [{j}][{i}] is {P[j][i]}; expected [{j}][{i}] = -[{i}][{j}]"
                )
    out = [[sympy.S.Zero] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            out[i][j] = P[i][j]
            out[j][i] = -P[i][j]
    return out


def _index(k, n, what) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise StructureConstantsShapeError(f"{what}: index {k!r} is not an integer")
    k = int(k)
    if n is not None and not 0 <= k < n:
        raise StructureConstantsShapeError(
            f"{what}: index {k} is out of range; expected 0 <= index < {n} (the dimension)"
        )
    if k < 0:
        raise StructureConstantsShapeError(f"{what}: index {k} is negative")
    return k


def _structure_constants(c, *, dim=None, chart=None, name="c", what="structure constants"):
    """Parse and check structure constants.

    Returns ``(n, brackets)`` with ``brackets = {(i, j): {k: value}}`` for ``i < j`` and
    structurally nonzero values only (the other half follows by skewness).
    """
    full = {}
    if isinstance(c, Mapping):
        n = None if dim is None else _positive_int(dim, f"{what}: dim")
        keys = []
        for key in c:
            if not isinstance(key, tuple) or len(key) != 3:
                raise StructureConstantsShapeError(
                    f"{what} {name}: key {key!r} is not a triple (i, j, k) meaning {name}[i][j][k]"
                )
            keys.append(tuple(_index(k, n, f"{what} {name}{list(key)}") for k in key))
        if n is None:
            if not keys:
                raise StructureConstantsShapeError(
                    f"{what} {name} is an empty dict: pass dim= to say how many basis elements there are"
                )
            n = 1 + max(max(k) for k in keys)
        for key, value in zip(keys, c.values()):
            v = _entry(chart, value, f"{what} {name}[{key[0]}][{key[1]}][{key[2]}]")
            if v != 0:
                full[key] = v
        for (i, j, k), v in list(full.items()):
            if i == j:
                if _decided_zero(v):
                    del full[(i, j, k)]
                    continue
                raise StructureConstantsNotSkewError(
                    f"{what} {name} are not skew in the lower indices: {name}[{i}][{i}][{k}] = {v};"
                    f" expected 0 ([e_{i}, e_{i}] = 0)"
                )
            other = full.get((j, i, k))
            if other is None:
                continue  # the other half is given by skewness
            if not _negatives(v, other):
                raise StructureConstantsNotSkewError(
                    f"{what} {name} are not skew in the lower indices: i={i}, j={j}, k={k}:"
                    f" {name}[{i}][{j}][{k}] = {v} but {name}[{j}][{i}][{k}] = {other};"
                    f" expected {name}[{j}][{i}][{k}] = -{name}[{i}][{j}][{k}]"
                )
    else:
        expected = f"an n x n x n array {name}[i][j][k] ([e_i, e_j] = sum_k {name}[i][j][k] e_k) or a dict"
        top = _nested(c, f"{what} {name}", StructureConstantsShapeError, expected)
        n = len(top)
        if n == 0:
            raise StructureConstantsShapeError(f"{what} {name} are empty; expected {expected}")
        if dim is not None and n != dim:
            raise StructureConstantsShapeError(f"{what} {name} have size {n}; expected {dim}")
        arr = []
        for i, plane in enumerate(top):
            plane = _nested(plane, f"{what} {name}[{i}]", StructureConstantsShapeError, expected)
            if len(plane) != n:
                raise StructureConstantsShapeError(
                    f"{what} {name} are of inconsistent size: {name}[{i}] has {len(plane)} entries"
                    f" but {name} has {n}; expected {expected}"
                )
            rows = []
            for j, row in enumerate(plane):
                row = _nested(row, f"{what} {name}[{i}][{j}]", StructureConstantsShapeError, expected)
                if len(row) != n:
                    raise StructureConstantsShapeError(
                        f"{what} {name} are of inconsistent size: {name}[{i}][{j}] has {len(row)}"
                        f" entries but {name} has {n}; expected {expected}"
                    )
                rows.append(row)
            arr.append(rows)
        for i in range(n):
            for j in range(i, n):
                a_row, b_row = arr[i][j], arr[j][i]
                for k in range(n):
                    a, b = a_row[k], b_row[k]
                    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number) and a == 0 and b == 0:
                        continue  # the bulk of a dense array: no sympy object is made
                    av = _entry(chart, a, f"{what} {name}[{i}][{j}][{k}]")
                    bv = _entry(chart, b, f"{what} {name}[{j}][{i}][{k}]")
                    if i == j:
                        if not _decided_zero(av):
                            raise StructureConstantsNotSkewError(
                                f"{what} {name} are not skew in the lower indices: {name}[{i}][{i}][{k}]"
                                f" = {av}; expected 0 ([e_{i}, e_{i}] = 0)"
                            )
                        continue
                    if not _negatives(av, bv):
                        raise StructureConstantsNotSkewError(
                            f"{what} {name} are not skew in the lower indices: i={i}, j={j}, k={k}:"
                            f" {name}[{i}][{j}][{k}] = {av} but {name}[{j}][{i}][{k}] = {bv};"
                            f" expected {name}[{j}][{i}][{k}] = -{name}[{i}][{j}][{k}]"
                        )
                    if av != 0:
                        full[(i, j, k)] = av
    brackets = {}
    for (i, j, k), v in full.items():
        if i < j:
            brackets.setdefault((i, j), {})[k] = v
        elif (j, i, k) not in full:
            brackets.setdefault((j, i), {})[k] = -v
    return n, brackets


# --------------------------------------------------------------------------- Lie algebras


def chevalley_eilenberg_vector_field(
        c: Mapping[tuple[int, int, int], Any] | Sequence[Any] | numpy.ndarray | sympy.NDimArray,
        names: str | Sequence[str | sympy.Symbol] | None = None, *, dim: int | None = None,
) -> VectorField:
    """The Chevalley-Eilenberg Q-structure on g[1] from structure constants.

    ``Q = -1/2 c_ij^k xi^i xi^j d/dxi^k`` (sum over all i, j, k), i.e.
    ``Q(xi^k) = -sum_{i<j} c_ij^k xi^i xi^j``: the Chevalley-Eilenberg differential of
    ``Lambda g*`` (``d alpha(x, y) = -alpha([x, y])``), with ``xi^i`` the basis dual to
    ``e_i``.  ``Q`` is homological iff the bracket satisfies the Jacobi identity; precisely
    (checked by the tests) the coefficient of ``xi^a xi^b xi^c`` (a < b < c) in
    ``(Q o Q)(xi^m)`` is the component ``m`` of ``[[e_a, e_b], e_c] + [[e_b, e_c], e_a] +
    [[e_c, e_a], e_b]``.

    Parameters
    ----------
    c : nested sequence, numpy/sympy array, or dict
        Structure constants, ``[e_i, e_j] = sum_k c[i][j][k] e_k`` (indices from 0):
        an ``n x n x n`` array, or a sparse dict ``{(i, j, k): value}``.  In a dict an
        entry whose partner ``(j, i, k)`` is absent gives the partner by skewness (so
        ``{(0, 1, 2): 1}`` means ``[e_0, e_1] = e_2``); when both are given they must be
        negatives.  Values are numbers or expressions in parameters.
    names : str or sequence, optional
        Names of the odd coordinates (default ``xi1 .. xin``).
    dim : int, optional
        The dimension n; needed for a dict whose last basis elements never appear.

    Returns
    -------
    VectorField
        A degree-1 field on ``lie_algebra_shift(n, names)``.

    Raises
    ------
    StructureConstantsShapeError
        Inconsistent sizes, indices out of range, keys that are not triples.
    StructureConstantsNotSkewError
        ``c[i][j][k] != -c[j][i][k]`` for some i, j, k (named in the message).

    Examples
    --------
    >>> import geomcheck as gc
    >>> Q = gc.chevalley_eilenberg_vector_field({(0, 1, 2): 1})    # Heisenberg: [e0, e1] = e2
    >>> Q
    VectorField({xi3: -xi1*xi2})
    >>> Q.is_homological()
    True
    >>> bad = {(0, 1, 1): 1, (1, 2, 2): 1, (0, 2, 0): 1}            # not a Lie algebra
    >>> gc.chevalley_eilenberg_vector_field(bad).is_homological()
    False
    """
    n, brackets = _structure_constants(c, dim=dim)
    G = lie_algebra_shift(n, names)
    comps: dict = {}
    for key, row in brackets.items():
        for k, v in row.items():
            comps.setdefault(k, {})[key] = -v
    return VectorField._raw(G, dict(sorted(comps.items())))


def so_structure_constants(n: int) -> dict:
    """Structure constants of so(n) in the basis ``E_ab = e_a e_b^T - e_b e_a^T`` (a < b).

    The basis is ordered lexicographically, ``(0, 1), (0, 2), ..., (n-2, n-1)``, and
    ``[E_ab, E_cd] = d_bc E_ad - d_ac E_bd - d_bd E_ac + d_ad E_bc`` (``E_ba = -E_ab``);
    the tests compare this with matrix commutators (:func:`structure_constants`).

    Parameters
    ----------
    n : int
        ``n >= 2``; ``dim so(n) = n (n - 1) / 2``.

    Returns
    -------
    dict
        ``{(i, j, k): int}``, both ``(i, j, k)`` and ``(j, i, k)`` for every nonzero
        bracket (a sparse, fully given skew tensor).

    Examples
    --------
    >>> c = so_structure_constants(3)        # basis E01, E02, E12
    >>> c[(0, 1, 2)], c[(1, 0, 2)], len(c)
    (-1, 1, 6)
    """
    n = _positive_int(n, "so_structure_constants: n")
    if n < 2:
        raise InvalidArgumentError(f"so_structure_constants: n must be >= 2, got {n}")
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    pos = {p: i for i, p in enumerate(pairs)}

    def E(a, b):  # (sign, index) of E_ab; None for a == b
        if a == b:
            return None
        return (1, pos[(a, b)]) if a < b else (-1, pos[(b, a)])

    c = {}
    for i, (a, b) in enumerate(pairs):
        for j, (cc, d) in enumerate(pairs):
            if i == j:
                continue
            acc: dict = {}
            for coeff, p, q in ((b == cc, a, d), (-(a == cc), b, d), (-(b == d), a, cc), (a == d, b, cc)):
                e = E(p, q) if coeff else None
                if e is not None:
                    acc[e[1]] = acc.get(e[1], 0) + int(coeff) * e[0]
            for k, v in acc.items():
                if v:
                    c[(i, j, k)] = v
    return c


def _rational(x, what):
    if isinstance(x, bool):
        raise StructureConstantsError(f"{what} is a bool; expected a rational number")
    if isinstance(x, numbers.Integral):
        return Fraction(int(x))
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float):
        return Fraction(x)
    try:
        e = sympy.sympify(x, strict=False)
    except (sympy.SympifyError, TypeError):
        e = None
    if e is not None and e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    raise StructureConstantsError(f"{what} = {x!r} is not a rational number; matrix bases must be rational")


def structure_constants(
        basis: Sequence[sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]]],
) -> dict[tuple[int, int, int], sympy.Rational]:
    """Structure constants of a Lie algebra of matrices, from a basis (exact, rational).

    Parameters
    ----------
    basis : sequence of square matrices
        Linearly independent matrices (sympy Matrix, numpy arrays or nested lists of
        rational numbers) whose span is closed under the commutator ``[A, B] = AB - BA``.

    Returns
    -------
    dict
        ``{(i, j, k): sympy.Rational}`` with ``[B_i, B_j] = sum_k c[(i, j, k)] B_k``,
        nonzero entries only, both orders ``(i, j)`` and ``(j, i)``.

    Raises
    ------
    StructureConstantsShapeError
        Matrices of different or non-square shapes, or an empty basis.
    StructureConstantsError
        Entries that are not rational, a linearly dependent basis, or a span that is
        not closed under the commutator (the offending pair is named).

    Examples
    --------
    >>> import sympy
    >>> e = sympy.Matrix([[0, 1], [0, 0]]); f = e.T; h = e * f - f * e
    >>> c = structure_constants([e, f, h])          # sl(2): [e, f] = h, [h, e] = 2e, [h, f] = -2f
    >>> c[(0, 1, 2)], c[(2, 0, 0)], c[(2, 1, 1)]
    (1, 2, -2)
    """
    mats = []
    for t, B in enumerate(basis):
        rows = _nested(B, f"basis matrix {t}", StructureConstantsShapeError, "a square matrix")
        rows = [_nested(r, f"row of basis matrix {t}", StructureConstantsShapeError, "a matrix row") for r in rows]
        m = len(rows)
        if m == 0 or any(len(r) != m for r in rows):
            raise StructureConstantsShapeError(f"basis matrix {t} is not a nonempty square matrix: {rows!r}")
        if mats and m != len(mats[0]):
            raise StructureConstantsShapeError(
                f"basis matrix {t} is {m} x {m} but basis matrix 0 is {len(mats[0])} x {len(mats[0])};"
                " expected matrices of one size"
            )
        mats.append([[_rational(v, f"basis matrix {t} entry [{a}][{b}]") for b, v in enumerate(r)]
                     for a, r in enumerate(rows)])
    if not mats:
        raise StructureConstantsShapeError("structure_constants needs at least one basis matrix")
    n, m = len(mats), len(mats[0])
    flat = [[v for r in A for v in r] for A in mats]
    # echelon form of the basis: rows w_t = sum_s T[t][s] B_s, pivot column piv[t]
    echelon, transform, pivots = [], [], []
    for t, v in enumerate(flat):
        v = list(v)
        coeffs = [Fraction(0)] * n
        coeffs[t] = Fraction(1)
        for w, tr, p in zip(echelon, transform, pivots):
            f = v[p]
            if f:
                v = [a - f * b for a, b in zip(v, w)]
                coeffs = [a - f * b for a, b in zip(coeffs, tr)]
        p = next((col for col, a in enumerate(v) if a), None)
        if p is None:
            raise StructureConstantsError(
                f"basis matrix {t} is a linear combination of the matrices before it; expected a basis"
            )
        inv = 1 / v[p]
        echelon.append([a * inv for a in v])
        transform.append([a * inv for a in coeffs])
        pivots.append(p)

    def commutator(A, B):
        return [sum(A[a][s] * B[s][b] - B[a][s] * A[s][b] for s in range(m)) for a in range(m) for b in range(m)]

    c = {}
    for i in range(n):
        for j in range(i + 1, n):
            v = commutator(mats[i], mats[j])
            coords = [Fraction(0)] * n
            for w, tr, p in zip(echelon, transform, pivots):
                f = v[p]
                if f:
                    v = [a - f * b for a, b in zip(v, w)]
                    coords = [a + f * b for a, b in zip(coords, tr)]
            if any(v):
                raise StructureConstantsError(
                    f"the commutator [B_{i}, B_{j}] of basis matrices {i} and {j} is not in their span;"
                    " expected a basis of a Lie algebra of matrices"
                )
            for k, val in enumerate(coords):
                if val:
                    r = sympy.Rational(val.numerator, val.denominator)
                    c[(i, j, k)] = r
                    c[(j, i, k)] = -r
    return c


# --------------------------------------------------------------------------- Poisson


def lie_poisson_matrix(c: Mapping[tuple[int, int, int], Any] | Sequence[Any] | numpy.ndarray | sympy.NDimArray,
                       M: Chart, *, dim: int | None = None) -> sympy.Matrix:
    """The Lie-Poisson bivector on g*: ``P^{ij} = {x_i, x_j} = sum_k c_ij^k x_k``.

    Parameters
    ----------
    c : structure constants
        As for :func:`chevalley_eilenberg_vector_field`.
    M : Chart
        Linear coordinates ``x_1 .. x_n`` on g* (``x_k(mu) = mu(e_k)``); ``M.dim`` must be n.

    Returns
    -------
    sympy.Matrix
        The skew n x n matrix of linear functions.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("x y z")
    >>> gc.lie_poisson_matrix({(0, 1, 2): 1, (1, 2, 0): 1, (2, 0, 1): 1}, M)
    Matrix([
    [ 0,  z, -y],
    [-z,  0,  x],
    [ y, -x,  0]])
    """
    _ordinary(M, "lie_poisson_matrix")
    if dim is None and isinstance(c, Mapping):
        dim = M.dim  # a sparse c may leave an abelian tail out
    n, brackets = _structure_constants(c, dim=dim)
    if n != M.dim:
        raise ShapeError(
            f"lie_poisson_matrix: the Lie algebra has dimension {n} but {M!r} has {M.dim} coordinates;"
            " expected one linear coordinate on g* per basis element"
        )
    xs = M.coords
    P = sympy.zeros(n, n)
    for (i, j), row in brackets.items():
        v = sympy.Add(*[val * xs[k] for k, val in row.items()])
        P[i, j] = v
        P[j, i] = -v
    return P


def poisson_vector_field(P: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]], M: Chart) -> VectorField:
    """The Q-structure on T*[1]M of a bivector ``P^{ij} = {x^i, x^j}``; homological iff P is Poisson.

    .. math::

        Q = P^{ij}\\,\\theta_i \\frac{\\partial}{\\partial x^j}
            - \\tfrac12\\, \\partial_k P^{ij}\\, \\theta_i \\theta_j \\frac{\\partial}{\\partial \\theta_k},
        \\qquad Q(f) = \\{x^i, f\\}\\, \\theta_i .

    Convention.  Multivector fields on M are functions on T*[1]M with ``theta_i <->
    d/dx^i``; the bivector is ``pi = 1/2 P^{ij} theta_i theta_j``, and the Schouten
    bracket is the one of :func:`schouten_bracket` (``[X, f] = X(f)``, ``[X, Y]`` the Lie
    bracket).  Then ``Q = [pi, .]`` (the Lichnerowicz-Poisson differential) and, by the
    graded Jacobi identity, ``Q o Q = 1/2 [[P, P], .]``.  In components, with
    ``[P, P]^{ijk} = 2 (P^{il} d_l P^{jk} + P^{jl} d_l P^{ki} + P^{kl} d_l P^{ij})`` and
    ``Phi = sum_{a<b<c} [P, P]^{abc} theta_a theta_b theta_c``:

    * ``(Q o Q)(x^i) = 1/2 sum_{j<k} [P, P]^{ijk} theta_j theta_k``,
    * ``(Q o Q)(theta_k) = -1/2 d Phi / d x^k``,

    so Q is homological iff ``[P, P] = 0`` iff the bracket ``{f, g} = P^{ij} d_i f d_j g``
    satisfies the Jacobi identity.  (The often quoted ``P^{ij} theta_j d/dx^i - 1/2
    d_k P^{ij} theta_i theta_j d/dtheta_k`` is *not* homological for a Poisson P: its
    two terms have opposite conventions; the tests show it on so(3)*.)  Q is also the
    Lie algebroid field (:func:`lie_algebroid_vector_field`) of the cotangent algebroid
    with anchor ``rho(dx^i) = P^{ij} d/dx^j`` and bracket ``[dx^i, dx^j] = d P^{ij}``.

    Parameters
    ----------
    P : sympy Matrix, numpy array or nested lists
        A skew ``dim M x dim M`` matrix of functions on M (undefined functions allowed).
    M : Chart
        An ordinary chart.

    Returns
    -------
    VectorField
        A degree-1 field on ``cotangent_shift(M)``.

    Raises
    ------
    ShapeError
        P is not a ``dim M x dim M`` matrix.
    NotSkewError
        ``P[j][i] != -P[i][j]`` or a nonzero diagonal entry (named in the message).

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("x y")
    >>> x, y = M.coords
    >>> Q = gc.poisson_vector_field([[0, x * y], [-x * y, 0]], M)
    >>> Q
    VectorField({x: -x*y*theta_y, y: x*y*theta_x, theta_x: -y*theta_x*theta_y, theta_y: -x*theta_x*theta_y})
    >>> Q.is_homological()        # every bivector in two dimensions is Poisson
    True
    >>> M3 = gc.Chart("x y z")
    >>> x, y, z = M3.coords
    >>> P = [[0, z, 0], [-z, 0, y], [0, -y, 0]]        # {x, y} = z, {y, z} = y, {z, x} = 0
    >>> gc.poisson_vector_field(P, M3).is_homological()
    False
    >>> print(gc.homological_report(gc.poisson_vector_field(P, M3)))   # doctest: +ELLIPSIS
    Q o Q != 0 (...); 4 component(s) of Q o Q not proved zero:
      (Q o Q)(x) = z*theta_y*theta_z
      (Q o Q)(y) = -z*theta_x*theta_z
      (Q o Q)(z) = z*theta_x*theta_y
      (Q o Q)(theta_z) = -theta_x*theta_y*theta_z

    Here ``[P, P]^{xyz} = 2 z``, so ``(Q o Q)(x) = 1/2 [P, P]^{xyz} theta_y theta_z`` and
    ``(Q o Q)(theta_z) = -1/2 d_z (2 z theta_x theta_y theta_z)``.
    """
    _ordinary(M, "poisson_vector_field")
    rows = skew_matrix(P, M, "the bivector P")
    T = cotangent_shift(M)
    n = M.dim
    coordinate_set = M.coordinate_set
    index = {x: k for k, x in enumerate(M.coords)}
    comps: dict = {}
    for i in range(n):
        for j in range(n):
            v = rows[i][j]
            if v != 0:
                # Q(x^j) = sum_i P^{ij} theta_i
                comps.setdefault(j, {})[(i,)] = v
    for i in range(n):
        for j in range(i + 1, n):
            p = rows[i][j]
            if p == 0:
                continue
            # -1/2 sum_{i,j} d_k P^{ij} theta_i theta_j = -sum_{i<j} d_k P^{ij} theta_i theta_j
            for x in free_coordinates(p, coordinate_set):
                dv = diff(p, x)
                if dv != 0:
                    comps.setdefault(n + index[x], {})[(i, j)] = -dv
    return VectorField._raw(T, dict(sorted(comps.items())))


def _dx_terms(terms, x) -> dict:
    out = {}
    for key, value in terms.items():
        dv = diff(value, x)
        if dv != 0:
            out[key] = dv
    return out


def _schouten_terms(A, a: int, B, b: int, coords) -> dict:
    """Schouten bracket of multivectors given as theta-polynomials of degrees a and b.

    ``[A, B] = sum_l (A <d/dtheta_l) (d_l B) - (-1)^{(a-1)(b-1)} (B <d/dtheta_l) (d_l A)``
    with right derivatives ``F <d/dtheta = (-1)^{|F|-1} d/dtheta F``.  This gives
    ``[X, f] = X(f)`` and the Lie bracket on vector fields.
    """
    ra = -1 if (a - 1) & 1 else 1
    rb = -1 if (b - 1) & 1 else 1
    koszul = -1 if ((a - 1) * (b - 1)) & 1 else 1
    acc = Accumulator()
    for l, x in enumerate(coords):
        dA = odd_left_derivative(A, l)
        if dA:
            dxB = _dx_terms(B, x)
            if dxB:
                acc.add_terms(mul_terms(dA, dxB), ra)
        dB = odd_left_derivative(B, l)
        if dB:
            dxA = _dx_terms(A, x)
            if dxA:
                acc.add_terms(mul_terms(dB, dxA), -koszul * rb)
    return acc.result()


def schouten_bracket(P: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]],
                     R: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]],
                     M: Chart) -> sympy.ImmutableSparseNDimArray:
    """The Schouten bracket ``[P, R]`` of two bivectors on M, as trivector components.

    Bivectors are skew matrices, ``pi_P = 1/2 P^{ij} d_i ^ d_j``; the trivector is
    ``[pi_P, pi_R] = 1/6 T^{ijk} d_i ^ d_j ^ d_k`` with ``T`` totally skew.  The
    Schouten-Nijenhuis bracket is normalised by ``[X, f] = X(f)`` and ``[X, Y] =`` the Lie
    bracket for vector fields; it is computed here on multivectors as functions on
    T*[1]M (``theta_i <-> d_i``; see ``_schouten_terms``), and in coordinates it reads

    .. math::

        T^{ijk} = \\oint_{ijk} \\left(P^{il} \\partial_l R^{jk} + R^{il} \\partial_l P^{jk}\\right),
        \\qquad [P, P]^{ijk} = 2 \\oint_{ijk} P^{il} \\partial_l P^{jk}

    (cyclic sum over ijk), which the tests check independently.  ``[P, P] = 0`` iff the
    bracket of P satisfies the Jacobi identity; see :func:`poisson_vector_field` for
    ``Q o Q = 1/2 [[P, P], .]``.

    Parameters
    ----------
    P, R : sympy Matrix, numpy array or nested lists
        Skew ``dim M x dim M`` matrices of functions on M.
    M : Chart
        An ordinary chart.

    Returns
    -------
    sympy.ImmutableSparseNDimArray
        Shape ``(n, n, n)``, ``T[i, j, k]`` totally skew.  Entries are assembled without
        simplification (a sum of structurally distinct terms that vanishes may show as a
        nonzero expression; decide with :func:`geomcheck.zero.decide_all_zero`).

    Raises
    ------
    ShapeError, NotSkewError
        As for :func:`poisson_vector_field`.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("x y z")
    >>> x, y, z = M.coords
    >>> P = [[0, z, 0], [-z, 0, y], [0, -y, 0]]        # {x, y} = z, {y, z} = y: not Poisson
    >>> T = gc.schouten_bracket(P, P, M)
    >>> T[0, 1, 2], T[2, 1, 0], T[0, 0, 1]
    (2*z, -2*z, 0)
    >>> so3 = gc.lie_poisson_matrix({(0, 1, 2): 1, (1, 2, 0): 1, (2, 0, 1): 1}, M)
    >>> gc.schouten_bracket(so3, so3, M)[0, 1, 2]
    0
    """
    _ordinary(M, "schouten_bracket")
    A = skew_matrix(P, M, "the bivector P")
    B = skew_matrix(R, M, "the bivector R")
    n = M.dim
    at = {(i, j): A[i][j] for i in range(n) for j in range(i + 1, n) if A[i][j] != 0}
    bt = {(i, j): B[i][j] for i in range(n) for j in range(i + 1, n) if B[i][j] != 0}
    T = _schouten_terms(at, 2, bt, 2, M.coords)
    return _trivector_array(T, n)


def _trivector_array(T: Mapping, n: int):
    flat = {}
    for (i, j, k), v in T.items():
        for perm in itertools.permutations((i, j, k)):
            sign = _perm_sign((i, j, k), perm)
            a, b, c = perm
            flat[(a * n + b) * n + c] = v if sign > 0 else -v
    return sympy.ImmutableSparseNDimArray(flat, (n, n, n))


def _perm_sign(base, perm) -> int:
    pos = [base.index(p) for p in perm]
    inv = sum(1 for s in range(3) for t in range(s + 1, 3) if pos[s] > pos[t])
    return -1 if inv & 1 else 1


# --------------------------------------------------------------------------- Lie algebroids


def _anchor(rho, M: Chart, r, what="the anchor rho") -> list:
    """Rows ``rho_a = (rho_a^1..rho_a^n)`` from a matrix or a sequence of VectorFields on M."""
    n = M.dim
    names = ", ".join(c.name for c in M.coords)
    items = None
    if not isinstance(rho, (sympy.MatrixBase, str, bytes)) and not hasattr(rho, "tolist") \
            and isinstance(rho, Iterable):
        items = list(rho)
        if items and all(isinstance(X, VectorField) for X in items):
            for a, X in enumerate(items):
                if X.chart != M:
                    raise ChartMismatchError(
                        f"{what}: vector field {a} lives on {X.chart!r}; expected a field on {M!r}"
                    )
            rho = [[X.component(x) for x in M.coords] for X in items]
    rows_hint = "one row rho_a per fibre coordinate xi^a" if r is None else \
        f"one row rho_a per fibre coordinate xi^a, i.e. per basis section e_a ({r} of them)"
    shape_r = r if r is not None else len(_nested(rho, what, AnchorShapeError, "a matrix"))
    try:
        rows = matrix_rows(rho, what, AnchorShapeError, (shape_r, n), rows_hint,
                     f"one column rho_a^i per coordinate of M ({names})")
    except AnchorShapeError as exc:
        nested = _nested(rho, what, AnchorShapeError, "a matrix")
        if len(nested) == n and r is not None and r != n:
            raise AnchorShapeError(f"{exc} (was its transpose given?)") from None
        raise
    return [[_entry(M, v, f"{what} entry [{a}][{i}]") for i, v in enumerate(row)] for a, row in enumerate(rows)]


def lie_algebroid_vector_field(M: Chart,
                               rho: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]] | Sequence[VectorField],
                               C: Mapping[tuple[int, int, int], Any] | Sequence[Any] | numpy.ndarray | sympy.NDimArray,
                               names: str | Sequence[str | sympy.Symbol] | None = None) -> VectorField:
    """The Q-structure on E[1] of a Lie algebroid over a chart M (homological iff the axioms hold).

    The algebroid ``E -> M`` of rank r has a local frame ``e_1 .. e_r``, anchor
    ``rho(e_a) = rho_a^i d/dx^i`` and bracket ``[e_a, e_b] = C_ab^c(x) e_c``.  On
    ``E[1] = (x^i, xi^a)``:

    .. math::

        Q = \\rho_a^i\\, \\xi^a \\frac{\\partial}{\\partial x^i}
            - \\tfrac12\\, C_{ab}^c\\, \\xi^a \\xi^b \\frac{\\partial}{\\partial \\xi^c}.

    ``(Q o Q)(x^i) = sum_{a<b} ([rho_a, rho_b]^i - C_ab^c rho_c^i) xi^a xi^b`` vanishes
    iff the anchor maps brackets to Lie brackets, and ``(Q o Q)(xi^c)`` then vanishes iff
    the Jacobi identity ``[[e_a, e_b], e_d] + cyclic = 0`` holds (with the Leibniz rule
    built in).  For M a point this is :func:`chevalley_eilenberg_vector_field`.

    Parameters
    ----------
    M : Chart
        The base, an ordinary chart.
    rho : matrix (r x dim M) or sequence of r VectorFields on M
        ``rho[a][i] = rho_a^i``: row a is the vector field ``rho(e_a)``.
    C : structure functions
        ``C[a][b][c]``, functions on M, in any form accepted by
        :func:`chevalley_eilenberg_vector_field` (dense array or sparse dict).
    names : str or sequence, optional
        Names of the fibre coordinates (default ``xi1 .. xir``, primed on a clash with M).

    Returns
    -------
    VectorField
        A degree-1 field on the chart ``(x^1..x^n, xi^1..xi^r)``.

    Raises
    ------
    AnchorShapeError
        rho is not r x dim M (r the size of C, or the number of anchor rows for a dict C).
    StructureConstantsShapeError, StructureConstantsNotSkewError
        As for :func:`chevalley_eilenberg_vector_field`.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("x")
    >>> x, = M.coords
    >>> Q = gc.lie_algebroid_vector_field(M, [[1], [x]], {(0, 1, 0): 1})   # [d_x, x d_x] = d_x
    >>> Q
    VectorField({x: x*xi2 + xi1, xi1: -xi1*xi2})
    >>> Q.is_homological()
    True
    >>> gc.lie_algebroid_vector_field(M, [[1], [x]], {(0, 1, 0): 2}).is_homological()
    False
    """
    _ordinary(M, "lie_algebroid_vector_field")
    if isinstance(C, Mapping):
        rows = _anchor(rho, M, None)
        r = len(rows)
        if r == 0:
            raise AnchorShapeError("the anchor rho has no rows; expected one row per fibre coordinate")
        r, brackets = _structure_constants(C, dim=r, chart=M, name="C",
                                           what="bracket structure functions")
    else:
        r, brackets = _structure_constants(C, chart=M, name="C", what="bracket structure functions")
        rows = _anchor(rho, M, r)
    E = _fibre_chart(M, r, names, "lie_algebroid_vector_field")
    n = M.dim
    comps: dict = {}
    for a, row in enumerate(rows):
        for i, v in enumerate(row):
            if v != 0:
                comps.setdefault(i, {})[(a,)] = v
    for key, row in brackets.items():
        for c, v in row.items():
            comps.setdefault(n + c, {})[key] = -v
    return VectorField._raw(E, dict(sorted(comps.items())))


def action_algebroid(c: Mapping[tuple[int, int, int], Any] | Sequence[Any] | numpy.ndarray | sympy.NDimArray,
                     action_fields: Sequence[VectorField] | sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]],
                     M: Chart, names: str | Sequence[str | sympy.Symbol] | None = None) -> VectorField:
    """The action Lie algebroid ``M x g`` of a Lie algebra acting on M by vector fields.

    Anchor ``rho(e_a) = X_a`` (the given fields) and constant bracket
    ``[e_a, e_b] = c_ab^k e_k`` on the constant sections: the field is
    ``Q = X_a^i xi^a d/dx^i - 1/2 c_ab^k xi^a xi^b d/dxi^k``, homological iff c satisfies
    Jacobi and ``a -> X_a`` is a Lie algebra homomorphism, ``[X_a, X_b] = c_ab^k X_k``
    (with :func:`geomcheck.bracket`, ``[X, Y] = XY - YX``).

    Parameters
    ----------
    c : structure constants of g
        As for :func:`chevalley_eilenberg_vector_field`; constants (no coordinates of M).
    action_fields : sequence of VectorField on M, or a dim g x dim M matrix
        ``X_a``, one per basis element ``e_a``.
    M : Chart
    names : optional names of the odd coordinates (default ``xi1 ..``).

    Returns
    -------
    VectorField
        A degree-1 field on ``(x^1..x^n, xi^1..xi^r)``.

    Raises
    ------
    AnchorShapeError
        The number of action fields is not dim g, or a field has the wrong length.
    StructureConstantsError
        Malformed c, or c depends on the coordinates of M.

    Examples
    --------
    so(3) acting on R^3 by rotations: with ``[e1, e2] = e3`` (cyclic), ``e_a`` acts by
    ``X_a = -(x_a-th rotation) = -eps_abc x_b d/dx_c``; the opposite sign is an
    anti-homomorphism, and breaks ``Q o Q = 0``.

    >>> import geomcheck as gc
    >>> M = gc.Chart("x y z")
    >>> x, y, z = M.coords
    >>> so3 = {(0, 1, 2): 1, (1, 2, 0): 1, (2, 0, 1): 1}
    >>> X = [gc.VectorField(M, {y: z, z: -y}), gc.VectorField(M, {z: x, x: -z}), gc.VectorField(M, {x: y, y: -x})]
    >>> gc.action_algebroid(so3, X, M).is_homological()
    True
    >>> gc.action_algebroid(so3, [-Xa for Xa in X], M).is_homological()
    False
    """
    _ordinary(M, "action_algebroid")
    if isinstance(action_fields, (sympy.MatrixBase, str, bytes)) or hasattr(action_fields, "tolist") \
            or not isinstance(action_fields, Iterable):
        fields = action_fields
        count = len(_nested(action_fields, "action_fields", AnchorShapeError, "a sequence of vector fields"))
    else:
        fields = list(action_fields)
        count = len(fields)
    r, brackets = _structure_constants(c, dim=None if c else count)
    if isinstance(c, Mapping) and count > r:
        # a sparse c may leave the last basis elements out (an abelian tail): one per field
        r, brackets = _structure_constants(c, dim=count)
    for row in brackets.values():
        for k, v in row.items():
            if free_coordinates(v, M.coordinate_set):
                raise StructureConstantsError(
                    f"action_algebroid: the structure constants of g must be constants, but a bracket"
                    f" has coefficient {v} in the coordinates of {M!r}; use lie_algebroid_vector_field"
                    " for structure functions"
                )
    if count != r:
        raise AnchorShapeError(
            f"action_algebroid got {count} action fields for a Lie algebra of dimension {r};"
            " expected one vector field X_a on M per basis element e_a"
        )
    dense = {(i, j, k): v for (i, j), row in brackets.items() for k, v in row.items()}
    return lie_algebroid_vector_field(M, fields, dense, names)


def _square(Q: VectorField) -> tuple:
    """(Q o Q as a VectorField, "polynomial" or "symbolic")."""
    terms, how = square_terms(Q)
    return VectorField._raw(Q.chart, terms), how


# --------------------------------------------------------------------------- reports


class ComponentReport(NamedTuple):
    """One component of ``Q o Q`` that is not (proved) zero."""

    coordinate: sympy.Symbol   #: the coordinate y of ``(Q o Q)(y)``
    value: SuperFunction       #: ``(Q o Q)(y)``, terms proved zero removed
    decision: object           #: ZeroDecision of this component (False: nonzero; None: undecided)


@dataclass(frozen=True)
class HomologicalReport:
    """Whether ``Q o Q = 0``, and if not, which components of ``Q o Q`` survive.

    Attributes
    ----------
    field : VectorField
        The odd field Q.
    square : VectorField
        ``Q o Q`` as computed (unsimplified).
    decision : ZeroDecision
        The decision for all of ``Q o Q`` (the one ``Q.is_homological()`` returns).
    components : tuple of ComponentReport
        The components ``(Q o Q)(y)`` that are nonzero (or undecided), in chart order.
    square_method : str
        ``"polynomial"`` (Q o Q computed in exact Python arithmetic: every coefficient of Q
        is a polynomial with rational coefficients; the components are then expanded
        polynomials) or ``"symbolic"`` (sympy arithmetic).
    """

    field: VectorField
    square: VectorField
    decision: object
    components: tuple
    square_method: str = "symbolic"

    @property
    def holds(self) -> bool | None:
        """True (homological), False (not) or None (undecided)."""
        return self.decision.is_zero

    def __str__(self):
        if self.holds is True:
            return f"Q o Q = 0 ({self.decision.method})"
        head = "Q o Q != 0" if self.holds is False else "Q o Q = 0 is undecided"
        lines = [f"{head} ({self.decision.method}); {len(self.components)} component(s) of Q o Q"
                 " not proved zero:"]
        for comp in self.components:
            state = "" if comp.decision.is_zero is False else "  [undecided]"
            lines.append(f"  (Q o Q)({comp.coordinate}) = {comp.value.expr}{state}")
        return "\n".join(lines)

    def __repr__(self):
        return f"HomologicalReport(holds={self.holds!r}, components={len(self.components)})"

    def _latex(self, printer=None):
        if self.holds is True:
            return r"Q \circ Q = 0"
        rows = []
        for comp in self.components:
            lhs = r"(Q \circ Q)\left(" + sympy.latex(comp.coordinate) + r"\right)"
            mark = "" if comp.decision.is_zero is False else r" \quad (\text{undecided})"
            rows.append(lhs + " &= " + comp.value._latex() + mark)
        return r"\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}" if rows else r"Q \circ Q \ne 0"

    def _repr_latex_(self):
        return f"${self._latex()}$"


def homological_report(Q: VectorField, *, budget: float = 10.0, **options) -> HomologicalReport:
    """Decide ``Q o Q = 0`` and list the components of ``Q o Q`` that are not zero.

    ``Q o Q`` is the field ``Q.square()`` computes, assembled sparsely here (only the
    directions that occur; in exact Python arithmetic when every coefficient of Q is a
    polynomial with rational coefficients, which makes the report several times faster
    than ``Q.is_homological()`` on Chevalley-Eilenberg and Lie-Poisson fields).  The
    decision is the same zero test (:func:`geomcheck.zero.decide_all_zero`) on it.

    Parameters
    ----------
    Q : VectorField
        An odd vector field on a graded chart (the zero field counts as odd).
    budget : float
        Seconds for the whole report: the joint decision first, then, when it is not
        zero, the components one by one and their terms (terms proved zero are dropped
        from the shown value).  When the budget runs out the remaining components are
        listed unsimplified as undecided.
    **options
        ``dps``, ``points``, ``seed`` of :func:`geomcheck.zero.decide_all_zero`.

    Returns
    -------
    HomologicalReport
        ``str(report)`` is readable text, ``geomcheck.latex(report)`` typesets it.

    Raises
    ------
    NotHomogeneousError
        Q is not odd.

    Examples
    --------
    >>> import geomcheck as gc
    >>> Q = gc.chevalley_eilenberg_vector_field({(0, 1, 1): 1, (1, 2, 2): 1, (0, 2, 0): 1})
    >>> r = gc.homological_report(Q)
    >>> r.holds
    False
    >>> print(r)      # doctest: +ELLIPSIS
    Q o Q != 0 (...); 3 component(s) of Q o Q not proved zero:
      (Q o Q)(xi1) = -xi1*xi2*xi3
      (Q o Q)(xi2) = -xi1*xi2*xi3
      (Q o Q)(xi3) = xi1*xi2*xi3

    The coefficients are the components of the Jacobiator
    ``Jac(e0, e1, e2) = [e1, e2] + [e2, e0] + [-e0, e1] = -e0 - e1 + e2``.
    """
    from .zero import ZeroDecision, decide_all_zero

    if not isinstance(Q, VectorField):
        raise ExpressionError(f"homological_report needs a VectorField, got {Q!r}")
    start = time.monotonic()
    S, how = _square(Q)
    decision = S.zero_decision(budget=budget, **options)
    comps = []
    if decision.is_zero is not True:
        chart = S.chart
        for i in sorted(S.component_terms()):
            terms = S.component_terms()[i]
            left = budget - (time.monotonic() - start)
            if left <= 0:
                comps.append(ComponentReport(chart.coords[i], SuperFunction._raw(chart, dict(terms)),
                                             ZeroDecision(None, "unknown", "the report's budget ran out")))
                continue
            d = decide_all_zero(terms, budget=left, **options)
            if d.is_zero is True:
                continue
            if how == "polynomial":
                # expanded polynomials with nonzero coefficients: every term is nonzero
                comps.append(ComponentReport(chart.coords[i], SuperFunction._raw(chart, dict(terms)), d))
                continue
            kept = {}
            for key, value in terms.items():
                left = budget - (time.monotonic() - start)
                if left > 0 and decide_all_zero({key: value}, budget=left, **options).is_zero is True:
                    continue
                kept[key] = value
            comps.append(ComponentReport(chart.coords[i], SuperFunction._raw(chart, kept), d))
    return HomologicalReport(Q, S, decision, tuple(comps), how)
