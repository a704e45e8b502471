"""Exact signs of real algebraic numbers, and a tableau's entries in their exact arithmetic.

:func:`real_sign` decides the sign of an element of the exact arithmetic of
:mod:`geomcheck.certify.tableau_arithmetic` (a rational, or ``f(theta)`` in a number field
``Q(theta)``) without letting a floating-point comparison decide: ``theta`` is located among
the real roots of its minimal polynomial by rigorous interval arithmetic, then an isolating
interval is refined in exact rational arithmetic until ``f`` has no root in it.
:func:`tableau_arithmetic` reads a Runge-Kutta tableau's ``A`` and ``b`` into that arithmetic.
Linear and algebraic stability (:mod:`geomcheck.certify.linear_stability`,
:mod:`geomcheck.certify.algebraic_stability`) and the error coefficients build on both.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import sympy
from mpmath import libmp

from ..caches import register
from ..errors import InvalidArgumentError
from .tableau_arithmetic import ExactDomain, domain_for
from .tableaux import ButcherTableau

__all__ = ["TableauArithmetic", "tableau_arithmetic", "real_sign", "clear_caches"]


# ===================================================================== the entries, exactly


@dataclass(frozen=True)
class TableauArithmetic:
    """A tableau's ``A`` and ``b`` in the exact (or numeric) arithmetic of its entries.

    ``dom`` is the arithmetic chosen by :func:`geomcheck.certify.tableau_arithmetic.domain_for`
    (an :class:`~geomcheck.certify.tableau_arithmetic.ExactDomain` for rational and algebraic
    entries); ``A`` a list of rows and ``b`` a list of its elements.
    """

    dom: Any
    A: list
    b: list

    @property
    def s(self) -> int:
        return len(self.b)

    @property
    def exact(self) -> bool:
        """True when the entries are rational or algebraic (signs and zeros are decided exactly)."""
        return isinstance(self.dom, ExactDomain)


def tableau_arithmetic(T: ButcherTableau, what: str = "this function") -> TableauArithmetic:
    """``A`` and ``b`` of a Runge-Kutta tableau in the arithmetic of its entries.

    >>> from sympy import Rational as R, sqrt
    >>> ar = tableau_arithmetic(ButcherTableau([[R(1, 2) - sqrt(3) / 6]], [1]))
    >>> ar.exact, ar.dom.describe()[:46]
    (True, 'exact arithmetic in the number field Q(sqrt(3)')

    Raises
    ------
    InvalidArgumentError
        ``T`` is not a :class:`~geomcheck.certify.tableaux.ButcherTableau` (apply the
        function to the parts ``T.q`` and ``T.p`` of a partitioned pair).
    """
    if not isinstance(T, ButcherTableau):
        parts = hasattr(T, "q") and hasattr(T, "p")
        raise InvalidArgumentError(f"{what} needs a ButcherTableau, not {type(T).__name__}"
                                   + ("; apply it to the parts T.q and T.p" if parts else ""))
    entries = [x for row in T.A for x in row] + list(T.b)
    dom = domain_for(entries)
    return TableauArithmetic(dom, [[dom.convert(x) for x in row] for row in T.A], [dom.convert(x) for x in T.b])


# ===================================================================== exact signs

#: the located primitive element of recent number fields: id -> (field, g, a, b)
_THETA: dict = {}


def _frac(q) -> Fraction:
    """A rational (sympy, gmpy or python) as a Fraction."""
    return Fraction(int(q.numerator), int(q.denominator))


def _iv_rational(iv, q: Fraction):
    """A rigorous enclosure of a rational in the interval context ``iv``."""
    return iv.mpf(q.numerator) / iv.mpf(q.denominator)


def _enclose(e, iv):
    """A rigorous real interval (mpmath ``iv``) holding the real number ``e``, or None.

    Handles rationals, ``+``, ``*``, integer and rational powers, ``pi``, ``E``, cos, sin,
    tan, exp, log, real ``CRootOf`` (through an exact isolating interval of its root) and
    ``AlgebraicNumber``; anything else (or a complex value) gives None.
    """
    if e.is_Rational:
        return _iv_rational(iv, Fraction(int(e.p), int(e.q)))
    if e is sympy.pi:
        return iv.pi
    if e is sympy.E:
        return iv.e
    if isinstance(e, sympy.AlgebraicNumber):
        return _enclose(e.as_expr(), iv)
    if isinstance(e, sympy.CRootOf):
        if not e.is_real:
            return None
        # real roots of CRootOf(f, k) come first, in increasing order (sympy's documented indexing)
        poly = sympy.Poly(e.poly, domain=sympy.QQ)
        roots = sorted((ab for ab, mult in poly.intervals() for _ in range(mult)), key=lambda ab: ab[0])
        a, b = roots[e.index]
        eps = sympy.Rational(1, 2 ** iv.prec)
        if b - a > eps:
            a, b = poly.refine_root(a, b, eps=eps)
        lo = _iv_rational(iv, _frac(a))
        hi = _iv_rational(iv, _frac(b))
        return iv.mpf([lo.a, hi.b])
    if isinstance(e, (sympy.Add, sympy.Mul)):
        parts = [_enclose(a, iv) for a in e.args]
        if any(p is None for p in parts):
            return None
        acc = parts[0]
        for p in parts[1:]:
            acc = acc + p if isinstance(e, sympy.Add) else acc * p
        return acc
    if isinstance(e, sympy.Pow):
        base = _enclose(e.base, iv)
        if base is None or not e.exp.is_Rational:
            return None
        n, d = int(e.exp.p), int(e.exp.q)
        if d == 1:
            return base ** n if n >= 0 else 1 / base ** (-n)
        if base.a > 0:
            return iv.exp(iv.log(base) * n / d)
        if base.b < 0 and d % 2 == 1:
            root = -iv.exp(iv.log(-base) / d)
            return root ** n if n >= 0 else 1 / root ** (-n)
        return None
    functions = {sympy.cos: "cos", sympy.sin: "sin", sympy.tan: "tan", sympy.exp: "exp", sympy.log: "log"}
    name = functions.get(type(e))
    if name is not None:
        arg = _enclose(e.args[0], iv)
        return None if arg is None else getattr(iv, name)(arg)
    return None


def _interval_ends(x):
    """The exact rational endpoints of an mpmath interval (its endpoint tuples: converting the
    endpoints with ``mpf()`` would round them to the global precision)."""
    a, b = x._mpi_
    pa, qa = libmp.to_rational(a)
    pb, qb = libmp.to_rational(b)
    return Fraction(pa, qa), Fraction(pb, qb)


def _theta_location(K):
    """``(g, a, b)``: the minimal polynomial of the primitive element ``theta`` of ``K`` (a
    sympy Poly over QQ) and a rational interval ``[a, b]`` holding ``theta`` and no other root
    of ``g``; None when ``theta`` is not real or could not be enclosed."""
    got = _THETA.get(id(K))
    if got is not None and got[0] is K:
        return got[1:]
    t = sympy.Dummy("t")
    g = sympy.Poly([sympy.Rational(c.numerator, c.denominator) for c in reversed(K.minpoly)], t, domain=sympy.QQ)
    intervals = [iv_ for iv_, _k in g.intervals()]
    located = None
    ctx = mpmath.MPIntervalContext()
    for prec in (64, 128, 256, 512, 1024):
        ctx.prec = prec
        try:
            enc = _enclose(K.theta, ctx)
        except (ValueError, ZeroDivisionError, TypeError):  # pragma: no cover - defensive
            enc = None
        if enc is None or not hasattr(enc, "_mpi_"):
            break
        lo, hi = _interval_ends(enc)
        hits = [(a, b) for a, b in intervals if not (b < lo or a > hi)]
        if len(hits) == 1:
            located = hits[0]
            break
        if not hits:
            break
        # shrink the isolating intervals and enclose theta more tightly
        intervals = [g.refine_root(a, b, eps=(b - a) / 2 ** 20) if b > a else (a, b) for a, b in intervals]
    if located is None:
        _THETA[id(K)] = (K, None)
        return None
    _THETA[id(K)] = (K, g, located[0], located[1])
    return g, located[0], located[1]


def real_sign(dom, x) -> int | None:
    """The sign (-1, 0 or 1) of a real element of an exact tableau arithmetic, or None.

    Rationals directly; an element ``f(theta)`` of a number field by refining an isolating
    interval of ``theta`` (exact rational arithmetic on its minimal polynomial ``g``) until
    ``f`` has no root in it, then the sign of ``f`` at a rational endpoint.  Only the
    location of ``theta`` among the roots of ``g`` uses interval arithmetic, which is
    rigorous.  None for inexact or symbolic arithmetics and for a non-real ``theta``.

    >>> import sympy
    >>> dom = domain_for([sympy.sqrt(2)])
    >>> x = dom.convert(sympy.sqrt(2)) * 1000 - 1414        # 0.2135...
    >>> real_sign(dom, x), real_sign(dom, x - 1), real_sign(dom, x - x)
    (1, -1, 0)
    >>> c = domain_for([sympy.cos(sympy.pi / 18)])          # degree 3: cos(pi/18) > 0.9848
    >>> from fractions import Fraction
    >>> x = c.convert(sympy.cos(sympy.pi / 18))
    >>> real_sign(c, x - Fraction(9848, 10000)), real_sign(c, x - Fraction(9849, 10000))
    (1, -1)
    """
    if not isinstance(dom, ExactDomain):
        return None
    if not x:
        return 0
    K = dom.K
    coords = x.coordinates()
    if K.degree == 1:
        return 1 if coords[0] > 0 else -1
    loc = _theta_location(K)
    if loc is None:
        return None
    g, a, b = loc
    f = sympy.Poly([sympy.Rational(c.numerator, c.denominator) for c in reversed(coords)], g.gens[0],
                   domain=sympy.QQ)
    for _ in range(400):
        if f.count_roots(a, b) == 0:
            v = f.eval(a)
            _THETA[id(K)] = (K, g, a, b)   # the refined interval is as valid and tighter
            return 1 if v > 0 else -1
        a, b = g.refine_root(a, b, eps=(b - a) / 16)
    return None  # pragma: no cover - f(theta) != 0, so refinement ends long before


def clear_caches() -> None:
    """Forget the located primitive elements (for cold benchmarks)."""
    _THETA.clear()


register("geomcheck.certify.exact_sign", clear_caches, lambda: len(_THETA))
