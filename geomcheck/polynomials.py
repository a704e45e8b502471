"""Sparse polynomials with rational coefficients, in Python arithmetic.

A polynomial is ``{monomial: coefficient}`` with monomials sorted tuples ``((variable,
exponent), ...)`` of variable indices and coefficients ints or Fractions: adding and
multiplying them builds no sympy object, which makes exact polynomial work (Q o Q of a
Lie-Poisson field, the skew-symmetry of a large Poisson matrix) cheap.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

__all__ = ["NotPolynomial", "to_poly", "mono_mul", "poly_diff", "poly_to_expr"]


class NotPolynomial(Exception):
    """An expression is not a polynomial with rational coefficients (see :func:`to_poly`)."""


def mono_mul(a: tuple, b: tuple) -> tuple:
    """The product of two monomials."""
    if not a:
        return b
    if not b:
        return a
    merged = dict(a)
    for v, e in b:
        merged[v] = merged.get(v, 0) + e
    return tuple(sorted(merged.items()))


def _poly_mul(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = mono_mul(ma, mb)
            out[m] = out.get(m, 0) + ca * cb
    return {m: c for m, c in out.items() if c}


def _poly_add_into(acc: dict, p: dict, sign: int) -> None:
    for m, c in p.items():
        acc[m] = acc.get(m, 0) + (c if sign > 0 else -c)


def poly_diff(p: dict, v: int) -> dict:
    """The derivative of ``p`` by the variable of index ``v``."""
    out: dict = {}
    for m, c in p.items():
        for pos, (var, e) in enumerate(m):
            if var == v:
                new = m[:pos] + ((var, e - 1),) + m[pos + 1:] if e > 1 else m[:pos] + m[pos + 1:]
                out[new] = out.get(new, 0) + c * e
                break
    return {m: c for m, c in out.items() if c}


def to_poly(e, variables: dict) -> dict:
    """``{monomial: Fraction}`` of a polynomial with rational coefficients, else NotPolynomial.

    ``variables`` maps each symbol to its index in the monomials; a symbol met for the first
    time is given the next index.
    """
    if e.is_Integer:
        # plain ints where possible: Fraction arithmetic is ~10x slower
        return {(): int(e)} if e != 0 else {}
    if e.is_Rational:
        return {(): Fraction(int(e.p), int(e.q))}
    if e.is_Symbol:
        if not e.is_commutative:
            raise NotPolynomial
        v = variables.setdefault(e, len(variables))
        return {((v, 1),): 1}
    if e.is_Add:
        out: dict = {}
        for arg in e.args:
            _poly_add_into(out, to_poly(arg, variables), 1)
        return {m: c for m, c in out.items() if c}
    if e.is_Mul:
        out = {(): 1}
        for arg in e.args:
            out = _poly_mul(out, to_poly(arg, variables))
        return out
    if e.is_Pow and e.exp.is_Integer and 0 < int(e.exp) <= 64:
        base = to_poly(e.base, variables)
        out = {(): 1}
        for _ in range(int(e.exp)):
            out = _poly_mul(out, base)
        return out
    raise NotPolynomial


def poly_to_expr(p: dict, symbols: list) -> sympy.Expr:
    """The expanded sympy polynomial of ``p``, ``symbols[v]`` standing for variable ``v``."""
    parts = []
    for m, c in sorted(p.items()):
        factors = [symbols[v] ** e for v, e in m]
        c = sympy.Integer(c) if isinstance(c, int) else sympy.Rational(c.numerator, c.denominator)
        parts.append(sympy.Mul(c, *factors))
    return sympy.Add(*parts)
