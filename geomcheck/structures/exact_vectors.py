"""Vectors of exact expressions: exact entries, dot products and sparse matrix products.

The semi-discretized systems have difference matrices with a few nonzero entries per row
and contact vectors with one: products are formed over the nonzero entries only, so a
grid of a hundred nodes costs a few hundred terms, not ten thousand.

>>> import sympy
>>> u = sympy.symbols("u1:4")
>>> matvec(sympy.ImmutableMatrix([[2, -1, 0], [-1, 2, -1], [0, -1, 2]]), u)
(2*u1 - u2, -u1 + 2*u2 - u3, -u2 + 2*u3)
>>> dot((0, 1, 0), u)
u2
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy

from ..errors import ExpressionError

__all__ = ["exact_entry", "dot", "matvec"]


def exact_entry(x, what: str) -> sympy.Expr:
    """A sympy number or expression; a float becomes the rational it prints as (0.2 -> 1/5).

    Parameters
    ----------
    x : number or sympy expression
    what : str
        What ``x`` is, for the error message.

    Raises
    ------
    ExpressionError
        ``x`` is a boolean, not a number or expression, or not scalar.

    Examples
    --------
    >>> exact_entry(0.2, "the mass")
    1/5
    >>> exact_entry(True, "the mass")
    Traceback (most recent call last):
    ...
    geomcheck.errors.ExpressionError: the mass = True is a boolean; a number or sympy expression was expected
    """
    if isinstance(x, bool):
        raise ExpressionError(f"{what} = {x!r} is a boolean; a number or sympy expression was expected")
    if isinstance(x, float):
        return sympy.Rational(repr(x))
    try:
        e = sympy.sympify(x, strict=True)
    except (sympy.SympifyError, TypeError):
        raise ExpressionError(f"{what} = {x!r} is not a number or sympy expression") from None
    if not isinstance(e, sympy.Expr):
        raise ExpressionError(f"{what} = {x!r} is not a scalar expression")
    return e


def dot(a: Sequence[sympy.Expr], b: Sequence[sympy.Expr]) -> sympy.Expr:
    """``a . b`` over the pairs of nonzero entries."""
    return sympy.Add(*[x * y for x, y in zip(a, b) if x != 0 and y != 0])


def matvec(A: sympy.ImmutableMatrix, w: Sequence[sympy.Expr]) -> tuple[sympy.Expr, ...]:
    """``A w`` over the nonzero entries of ``A`` (a sparse difference matrix) and of ``w``."""
    rows = [[] for _ in range(A.shape[0])]
    for (i, j), a in A.todok().items():
        if w[j] != 0:
            rows[i].append(a * w[j])
    return tuple(sympy.Add(*r) for r in rows)
