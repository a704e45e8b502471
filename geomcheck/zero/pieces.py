"""Piecewise expressions split into analytic pieces: how "zero" is proved for ``Abs``, ``Max``, ``Piecewise``.

``Abs(a)``, ``sign(a)``, ``Heaviside(a)``, ``Max``/``Min`` and ``Piecewise`` with
comparisons are analytic except where a *switch function* changes sign (``a``, a
difference of two arguments, ``lhs - rhs`` of a condition).  :func:`split` picks one
switch function ``s`` and returns the expression with every node that ``s`` decides
replaced by its branch for ``s > 0`` and for ``s < 0``.  If both are zero on the whole
domain, the expression is zero on ``{s > 0}`` and on ``{s < 0}``, i.e. everywhere but on
the null set ``{s = 0}`` where the branches meet.  (Only this direction is used: a
branch that is nonzero somewhere may still vanish on its own piece, so a nonzero
branch proves nothing; counterexamples come from evaluating the expression itself.)

``DiracDelta`` is zero off a null set and is replaced by 0.

>>> import sympy
>>> x, y = sympy.symbols("x y")
>>> s, plus, minus = split(sympy.Max(x, y) + sympy.Min(x, y) - x - y)
>>> s, plus, minus
(x - y, 0, 0)
"""

from __future__ import annotations

import sympy

__all__ = ["split", "ENUMERABLE", "has_enumerable"]

ENUMERABLE = (sympy.Abs, sympy.sign, sympy.Heaviside, sympy.Max, sympy.Min, sympy.Piecewise)
_RELATIONAL = (sympy.StrictLessThan, sympy.LessThan, sympy.StrictGreaterThan, sympy.GreaterThan,
               sympy.Equality, sympy.Unequality)


def has_enumerable(expr) -> bool:
    return bool(expr.atoms(*ENUMERABLE, sympy.DiracDelta))


def _same(a, s) -> int:
    """+1 when ``a == s``, -1 when ``a == -s``, else 0 (compared after expansion)."""
    d = sympy.expand(a - s)
    if d == 0:
        return 1
    if sympy.expand(a + s) == 0:
        return -1
    return 0


def _switch_of(node):
    """A switch function of ``node`` (None when it has no usable one)."""
    if isinstance(node, (sympy.Abs, sympy.sign, sympy.Heaviside)):
        a = node.args[0]
        return a if a.is_real is not False else None
    if isinstance(node, (sympy.Max, sympy.Min)):
        return node.args[0] - node.args[1]
    if isinstance(node, sympy.Piecewise):
        for _expr, cond in node.args:
            if cond is sympy.true or cond is sympy.false:
                continue
            if isinstance(cond, _RELATIONAL) and not isinstance(cond, (sympy.Equality, sympy.Unequality)):
                return cond.lhs - cond.rhs
            return None
    return None


def _condition_truth(cond, s, sign):
    """The truth of a condition under ``sign(s)``, or None when ``s`` does not decide it."""
    if cond is sympy.true or cond is sympy.false:
        return cond
    if isinstance(cond, sympy.Equality):
        return sympy.false  # holds on a null set only
    if isinstance(cond, sympy.Unequality):
        return sympy.true
    if not isinstance(cond, _RELATIONAL):
        return None
    k = _same(cond.lhs - cond.rhs, s)
    if not k:
        return None
    positive = (sign * k) > 0
    greater = isinstance(cond, (sympy.StrictGreaterThan, sympy.GreaterThan))
    return sympy.true if positive == greater else sympy.false


def _resolve(node, s, sign):
    """The node with what ``sign(s)`` decides about it resolved (None when nothing)."""
    if isinstance(node, (sympy.Abs, sympy.sign, sympy.Heaviside)):
        k = _same(node.args[0], s)
        if not k:
            return None
        positive = sign * k > 0
        a = node.args[0]
        if isinstance(node, sympy.Abs):
            return a if positive else -a
        if isinstance(node, sympy.sign):
            return sympy.S.One if positive else sympy.S.NegativeOne
        return sympy.S.One if positive else sympy.S.Zero
    if isinstance(node, (sympy.Max, sympy.Min)):
        args = list(node.args)
        drop = set()
        for i, ai in enumerate(args):
            for j, aj in enumerate(args):
                if i < j:
                    k = _same(ai - aj, s)
                    if k:
                        i_larger = sign * k > 0
                        if isinstance(node, sympy.Max):
                            drop.add(j if i_larger else i)
                        else:
                            drop.add(i if i_larger else j)
        if not drop:
            return None
        return node.func(*[a for i, a in enumerate(args) if i not in drop])
    if isinstance(node, sympy.Piecewise):
        changed = False
        pieces = []
        for expr, cond in node.args:
            truth = _condition_truth(cond, s, sign)
            if truth is None:
                pieces.append((expr, cond))
            else:
                changed = changed or truth is not cond
                pieces.append((expr, truth))
        if not changed:
            return None
        return sympy.Piecewise(*pieces)
    return None


def _innermost(expr):
    """An enumerable node with a usable switch function and no enumerable node inside it (or any usable one)."""
    nodes = [n for n in expr.atoms(*ENUMERABLE) if _switch_of(n) is not None]
    if not nodes:
        return None
    inner = [n for n in nodes if not any(m is not n and m in n.atoms(*ENUMERABLE) for m in nodes)]
    return min(inner or nodes, key=sympy.count_ops)


def _branch(expr, s, sign):
    for _ in range(8):
        mapping = {}
        for n in expr.atoms(*ENUMERABLE):
            r = _resolve(n, s, sign)
            if r is not None and r != n:
                mapping[n] = r
        if not mapping:
            return expr
        expr = expr.xreplace(mapping)
    return expr


def split(expr):
    """``(s, expr on s > 0, expr on s < 0)`` for one switch function ``s``, or None.

    ``DiracDelta`` terms are dropped first (zero off a null set); the result is None
    when no enumerable node with a real switch function remains.
    """
    if expr.has(sympy.DiracDelta):
        expr = expr.replace(lambda e: isinstance(e, sympy.DiracDelta), lambda e: sympy.S.Zero)
    node = _innermost(expr)
    if node is None:
        return None
    s = _switch_of(node)
    return s, _branch(expr, s, 1), _branch(expr, s, -1)
