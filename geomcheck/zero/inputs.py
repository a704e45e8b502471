"""Checking what the zero test is given: scalar expressions and collections of them."""

from __future__ import annotations

from collections.abc import Mapping

import sympy
from sympy.matrices import MatrixBase

from ..errors import ExpressionError

__all__ = ["as_expr", "entries"]


def as_expr(e, what="expression"):
    if isinstance(e, sympy.Basic):
        x = e
    else:
        if isinstance(e, (str, bytes)):
            raise ExpressionError(
                f"{what} {e!r} is a string; parse it first (sympy.parse_expr) so that its symbols are explicit"
            )
        try:
            x = sympy.sympify(e, strict=True)
        except (sympy.SympifyError, TypeError, ValueError, AttributeError):
            raise ExpressionError(f"{what} {e!r} (of type {type(e).__name__}) is not a sympy expression") from None
    if isinstance(x, MatrixBase) or getattr(x, "is_Matrix", False):
        raise ExpressionError(f"{what} {x!r} is a matrix; zero testing takes scalar expressions (pass its entries)")
    # a Lambda is a function, not a value (sympy's assumption queries on it raise IndexError)
    if not isinstance(x, sympy.Expr) or isinstance(x, sympy.Lambda):
        raise ExpressionError(f"{what} {x!r} (a {type(x).__name__}) is not a scalar sympy expression")
    if x.is_commutative is False:
        raise ExpressionError(
            f"{what} {x} contains noncommutative symbols; zero testing takes commutative coefficient expressions"
        )
    return x


def entries(exprs):
    if isinstance(exprs, Mapping):
        return list(exprs.items())
    if isinstance(exprs, MatrixBase):
        return [((i, j), exprs[i, j]) for i in range(exprs.rows) for j in range(exprs.cols)]
    if isinstance(exprs, (sympy.Basic, str, bytes)) or not hasattr(exprs, "__iter__"):
        raise ExpressionError(
            f"decide_all_zero expects a mapping or a sequence of expressions, got {type(exprs).__name__} {exprs!r}; "
            "use decide_zero for a single expression"
        )
    return list(enumerate(exprs))
