"""The data of a port-Hamiltonian system as the user gives it, checked and converted.

States and inputs are sequences of Symbols (or a Chart), the energy and the matrix entries
scalar expressions; each error names what was wrong and what was expected.

>>> symbol_tuple("q p", "the state x")
(q, p)
>>> shaped_matrix([[0, 1]], (2, 2), "J", "one row per state variable")
Traceback (most recent call last):
...
geomcheck.errors.PortHamiltonianShapeError: J has 1 rows; expected a 2 x 2 matrix (one row per state variable)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import sympy

from ..algebra import Chart, scalar_expression
from ..errors import PortHamiltonianError, PortHamiltonianShapeError
from ..zero import decide_zero

__all__ = ["symbol_tuple", "scalar_expression", "shaped_matrix", "input_term", "entry_is_zero"]


def symbol_tuple(v, what: str) -> tuple:
    """The Symbols of ``v``: a Chart's coordinates, names split on spaces, or a sequence.

    Raises
    ------
    PortHamiltonianError
        ``v`` is not a sequence of Symbols (or names), or repeats one.
    """
    if isinstance(v, Chart):
        return tuple(v.coords)
    if isinstance(v, (str, bytes)):
        v = sympy.symbols(v, seq=True)
    if not isinstance(v, Iterable):
        raise PortHamiltonianError(f"{what} must be a sequence of sympy Symbols, got {v!r}")
    out = tuple(sympy.Symbol(s) if isinstance(s, str) else s for s in v)
    for s in out:
        if not isinstance(s, sympy.Symbol):
            raise PortHamiltonianError(f"{what} must be sympy Symbols; {s!r} is not a Symbol")
    if len(set(out)) != len(out):
        raise PortHamiltonianError(f"{what} has a repeated symbol: {out}")
    return out


def shaped_matrix(A, shape: tuple, what: str, hint: str) -> sympy.ImmutableMatrix:
    """``A`` (a Matrix, an array or nested sequences; None for zero) as an ``r x c`` ImmutableMatrix.

    ``hint`` says what the rows and columns stand for, in the error messages.

    Raises
    ------
    PortHamiltonianShapeError
        ``A`` is not a matrix of the shape.
    ExpressionError
        An entry is not a scalar expression.
    """
    r, c = shape
    expected = f"a {r} x {c} matrix ({hint})"
    if A is None:
        return sympy.ImmutableMatrix.zeros(r, c)
    if isinstance(A, sympy.MatrixBase):
        rows = A.tolist()
        if A.shape != (r, c) and not (A.shape[0] == r and c == 0):
            raise PortHamiltonianShapeError(f"{what} has shape {A.shape}; expected {expected}")
    else:
        if hasattr(A, "tolist") and not isinstance(A, (str, bytes)):
            A = A.tolist()
        if isinstance(A, (str, bytes, Mapping)) or not isinstance(A, Iterable):
            raise PortHamiltonianShapeError(f"{what} must be {expected}, got {A!r}")
        rows = list(A)
        if len(rows) != r:
            raise PortHamiltonianShapeError(f"{what} has {len(rows)} rows; expected {expected}")
        for i, row in enumerate(rows):
            if isinstance(row, (str, bytes, Mapping)) or not isinstance(row, Iterable):
                raise PortHamiltonianShapeError(f"row {i} of {what} is {row!r}; expected {expected}")
            if len(list(row)) != c:
                raise PortHamiltonianShapeError(
                    f"row {i} of {what} has {len(list(row))} entries; expected {expected}")
    if c == 0:
        return sympy.ImmutableMatrix.zeros(r, 0)
    return sympy.ImmutableMatrix([[scalar_expression(v, f"entry [{i}][{j}] of {what}") for j, v in enumerate(row)]
                                  for i, row in enumerate(rows)])


def input_term(g: sympy.MatrixBase, u: tuple) -> sympy.Matrix:
    """``g u`` (a zero column when there are no inputs)."""
    if not u:
        return sympy.zeros(g.shape[0], 1)
    return g * sympy.Matrix(u)


def entry_is_zero(e: sympy.Expr) -> bool | None:
    """Whether a matrix entry (or a determinant) is zero: structurally, else by a short zero test.

    >>> import sympy
    >>> q = sympy.Symbol("q")
    >>> entry_is_zero(sympy.sin(q)**2 + sympy.cos(q)**2 - 1), entry_is_zero(q)
    (True, False)
    """
    if e == 0:
        return True
    if e.is_Number:
        return False
    return decide_zero(e, budget=5.0).is_zero
