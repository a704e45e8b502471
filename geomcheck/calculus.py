"""Placeholder with the agreed interface (replaced by the full implementation)."""
from functools import lru_cache
import sympy
from sympy.core.function import AppliedUndef


def canonical_derivatives(expr):
    def rebuild(e):
        if isinstance(e, sympy.Derivative) and isinstance(e.expr, AppliedUndef):
            args = e.expr.args
            order = {a: i for i, a in enumerate(args)}
            vc = sorted(e.variable_count, key=lambda vc: (order.get(vc[0], len(args)), sympy.default_sort_key(vc[0])))
            return sympy.Derivative(e.expr, *vc)
        return e
    return expr.replace(lambda e: isinstance(e, sympy.Derivative), rebuild)


@lru_cache(maxsize=200000)
def diff(expr, x):
    r = sympy.diff(expr, x)
    if r.has(sympy.Derivative):
        r = canonical_derivatives(r)
    return r


@lru_cache(maxsize=200000)
def free_coordinates(expr, coords):
    return expr.free_symbols & coords
