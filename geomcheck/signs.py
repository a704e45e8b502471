"""Signs of expressions on box domains: proved positive, negative or nowhere zero, or a zero shown.

A certificate that calls a map contact because ``phi^* eta = g eta`` needs ``g`` to vanish
*nowhere* on the domain; "not identically zero" is not enough (``g = 1 - h p`` vanishes on
a whole curve).  :func:`decide_sign` answers, for an expression and a box domain (a
:class:`~geomcheck.domain.Domain`: open intervals per symbol, the other symbols ranging
over the domain of their sympy assumptions), with a :class:`SignDecision`:

``"positive"`` / ``"negative"`` / ``"nonzero"``
    proved, everywhere on the domain (and the expression is defined everywhere there);
``"vanishes"``
    it is zero at ``point``, a point of the domain (exact, or within ``tolerance`` of a
    zero whose existence is proved by a sign change of a continuous function);
``"undefined"``
    it is undefined at ``point`` (a denominator vanishes, a logarithm or root of a
    negative number ...);
``"unknown"``
    none of the above could be shown within the budget (the reason says what was tried).

It proceeds in stages, cheapest first:

1. **structure and intervals, in one pass** -- every node of the expression DAG gets an
   enclosure of its values over the box (outward-rounded interval arithmetic,
   :mod:`geomcheck.intervals`) and the set of signs it can take, each refining the
   other: ``exp(.) > 0``, ``cosh > 0``, even powers ``>= 0``, sums of positive terms,
   products and quotients of nowhere-zero factors, a symbol on ``(0, oo)`` is positive
   (the ends of a domain are open).  A sum of one symbol that is a rational function with
   rational coefficients gets its exact sign set from root counting (Sturm sequences),
   which sees the open ends and tiny margins: ``x**2 - 2*x + 1 + 10**-30 > 0``,
   ``r - 1 > 0`` on ``(1, 2)``;
2. **a product** is decided factor by factor;
3. **bisection** of the box (unbounded intervals are cut at finite points) under a work
   budget, with the mean-value form on bounded boxes;
4. **a search for a zero**: the expression is evaluated at points of the domain; a point
   where it is exactly zero is a zero; a sign change along a segment on which the
   expression is continuous (interval arithmetic shows it finite there) encloses a zero
   (intermediate value theorem), which is located by bisection, refined with mpmath at
   50 digits, and recognised exactly where possible (roots of rational functions,
   ``pi/2`` ...).  Points where the expression is undefined are found the same way.

Undefined functions (``sympy.Function("V")(q)``, their derivatives, geomcheck's jets)
stand for *any* smooth function: an expression whose sign depends on them is decided
only when its structure fixes the sign for every choice (``exp(V(q)) > 0``,
``1 + V(q)**2 > 0``, ``2 + sin(V(q)) > 0``), or when a factor free of them vanishes (then
the product vanishes for every choice).  Symbols passed as ``opaque`` (the unknowns of an
implicit map) are treated the same way: arbitrary real values that cannot be chosen.

>>> import sympy
>>> from geomcheck.domain import Domain
>>> x, lam = sympy.Symbol("x"), sympy.Symbol("lambda", positive=True)
>>> decide_sign(sympy.exp(x) + x**2).verdict
'positive'
>>> decide_sign(lam * (1 + x**2)).verdict
'positive'
>>> d = decide_sign(x**2 - 2, Domain({x: (0, 3)}))
>>> d.verdict, d.point
('vanishes', {x: sqrt(2)})
>>> enclose(1 / (1 + x**2), {x: (-1, 1)}).pole
False
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

import mpmath
import sympy
from sympy.core.function import AppliedUndef, Derivative, Subs

from . import intervals as iv
from .domain import Domain
from .errors import ExpressionError, InvalidArgumentError
from .intervals import ENTIRE, ENTIRE_POLE, Interval, interval_of_number
from .jets import Jet
from .latex import expression_size

__all__ = ["SignDecision", "decide_sign", "decide_defined", "enclose", "domain_point"]

# sign sets: the signs (-1, 0, 1) a quantity can take on a box
_POS, _NEG, _ZERO = frozenset({1}), frozenset({-1}), frozenset({0})
_NONNEG, _NONPOS, _NONZERO = frozenset({0, 1}), frozenset({-1, 0}), frozenset({-1, 1})
_ANY = frozenset({-1, 0, 1})

_INF = math.inf

#: nodes of exact univariate sums larger than this are left to interval arithmetic
_EXACT_MAX_NODES = 80
_EXACT_MAX_DEGREE = 40
#: the zero search and the mean-value form only look at expressions this small (DAG nodes)
_SEARCH_MAX_NODES = 3000
#: width below which a sign-change bracket is not bisected further (relative to its scale)
_BRACKET_BITS = 48
#: digits of the mpmath refinement of a located zero
_REFINE_DPS = 50

# functions continuous wherever they are defined and finite (the intermediate value theorem applies)
_CONTINUOUS = (sympy.exp, sympy.log, sympy.sin, sympy.cos, sympy.tan, sympy.sinh, sympy.cosh, sympy.tanh,
               sympy.atan, sympy.asinh, sympy.asin, sympy.acos, sympy.erf, sympy.erfc, sympy.Abs,
               sympy.Max, sympy.Min)
# functions that are also differentiable wherever the enclosure of their derivative is finite
_SMOOTH = (sympy.exp, sympy.log, sympy.sin, sympy.cos, sympy.tan, sympy.sinh, sympy.cosh, sympy.tanh,
           sympy.atan, sympy.asinh, sympy.asin, sympy.acos, sympy.erf, sympy.erfc)
# every kind of function application (Max and Min are not sympy Functions)
_APPLICATIONS = (sympy.Function, sympy.Max, sympy.Min)


def _only(e, allowed) -> bool:
    """Every function applied in ``e`` is one of ``allowed``."""
    return all(isinstance(f, allowed) for f in e.atoms(*_APPLICATIONS))


# odd, increasing, zero only at zero: the sign of the value is the sign of the argument
_ODD_INCREASING = {sympy.sinh: iv.sinh, sympy.tanh: iv.tanh, sympy.atan: iv.atan, sympy.asinh: iv.asinh,
                   sympy.erf: iv.erf}


def _s_add(a, b):
    out = set()
    for x in a:
        for y in b:
            if y == 0 or x == y:
                out.add(x)
            elif x == 0:
                out.add(y)
            else:
                return _ANY
    return frozenset(out)


def _s_mul(a, b):
    return frozenset(x * y for x in a for y in b)


def _signs_of_interval(x: Interval):
    """The signs an interval allows (all of them when it may hold a pole)."""
    if x.pole:
        return _ANY
    out = set()
    if x.lo < 0:
        out.add(-1)
    if x.hi > 0:
        out.add(1)
    if x.lo <= 0 <= x.hi:
        out.add(0)
    return frozenset(out)


def _clip(x: Interval, signs) -> Interval:
    """``x`` cut to the half line the (proved) signs allow."""
    if x.pole:
        return x
    lo, hi = x.lo, x.hi
    if -1 not in signs and lo < 0:
        lo = 0.0
    if 1 not in signs and hi > 0:
        hi = 0.0
    if lo > hi:
        return x
    return Interval(lo, hi)


def _sign_text(signs) -> str:
    return {_POS: "positive", _NEG: "negative", _NONZERO: "nowhere zero", _ZERO: "zero"}.get(signs, "")


# ----------------------------------------------------------------------------------------- boxes


def _number(v):
    """A finite real sympy number or +-oo from a box or domain end (InvalidArgumentError otherwise)."""
    try:
        x = sympy.sympify(v, strict=True) if not isinstance(v, mpmath.mpf) else sympy.Float(v, 30)
    except (sympy.SympifyError, TypeError, ValueError):
        raise InvalidArgumentError(f"a box end must be a real number or +-oo, got {v!r}") from None
    if x in (sympy.oo, -sympy.oo):
        return x
    if not getattr(x, "is_number", False) or x.is_real is not True or not x.is_finite:
        raise InvalidArgumentError(f"a box end must be a real number or +-oo, got {v!r}")
    if isinstance(x, sympy.Float):
        return sympy.Rational(x)
    if not isinstance(x, sympy.Rational):
        raise InvalidArgumentError(f"a box end must be a rational number, a float or +-oo, got {v!r}")
    return x


def _domain_ends(domain, s):
    """``(lo, hi, lo_open, hi_open)`` of a symbol on a Domain, its assumptions deciding the ends.

    A Domain's intervals are open (the zero test samples the interior), but a
    ``nonnegative`` symbol may be 0: a sign proof must include that end.
    """
    lo, hi = domain.interval(s)
    lo_open = hi_open = True
    if domain.is_default(s):
        if lo == 0 and s.is_nonnegative and not s.is_positive:
            lo_open = False
        if hi == 0 and s.is_nonpositive and not s.is_negative:
            hi_open = False
    return lo, hi, lo_open, hi_open


def _box_from(box, symbols, closed):
    """``{symbol: (lo, hi, lo_open, hi_open)}`` for ``symbols`` from a mapping, a Domain or None."""
    out = {}
    domain = box if isinstance(box, Domain) else Domain()
    given = {} if box is None or isinstance(box, Domain) else box
    if not isinstance(given, Mapping):
        raise InvalidArgumentError(f"a box is a mapping {{symbol: (lo, hi)}} or a Domain, got {type(box).__name__}")
    for key, spec in given.items():
        if not isinstance(key, sympy.Symbol):
            raise InvalidArgumentError(f"a box key must be a sympy Symbol, got {type(key).__name__} {key!r}")
        if not (isinstance(spec, (tuple, list)) and len(spec) == 2):
            raise InvalidArgumentError(f"the box interval of {key} must be a pair (lo, hi), got {spec!r}")
        lo, hi = _number(spec[0]), _number(spec[1])
        if lo == hi:
            if lo in (sympy.oo, -sympy.oo):
                raise InvalidArgumentError(f"the box interval of {key} is the point {lo}; a finite point was expected")
            out[key] = (lo, hi, False, False)
            continue
        if not bool(sympy.Lt(lo, hi)):
            raise InvalidArgumentError(f"the box interval ({lo}, {hi}) of {key} is empty; expected lo < hi")
        out[key] = (lo, hi, not closed or lo == -sympy.oo, not closed or hi == sympy.oo)
    for s in symbols:
        if s in out or domain.kind(s) in ("imaginary", "complex"):
            continue
        out[s] = _domain_ends(domain, s)
    return out


def _size_over(expr, limit):
    """True when ``expr`` has more than ``limit`` distinct subexpressions (counted lazily)."""
    return expression_size(expr, limit, distinct=True) > limit


def _opaque_function(e) -> bool:
    return isinstance(e, (AppliedUndef, Jet)) or (
        isinstance(e, (Derivative, Subs)) and e.has(AppliedUndef, Jet))


def _is_clean(e, opaque) -> bool:
    """Free of undefined functions, jets and opaque symbols: a function of the box's symbols only."""
    if e.has(AppliedUndef, Jet, Derivative, Subs):
        return False
    return not (opaque and e.free_symbols & opaque)


# ---------------------------------------------------------------------------- exact univariate signs


class _RationalData:
    """A univariate rational function ``N/D`` (coprime, rational coefficients), for exact sign sets."""

    __slots__ = ("x", "num", "den", "odd")

    def __init__(self, x, num, den):
        self.x, self.num, self.den = x, num, den
        odd = sympy.Poly(1, x, domain="QQ")
        for factor, mult in sympy.sqf_list(num * den)[1]:
            if mult % 2:
                odd = odd * factor
        self.odd = odd  # the sign of N/D changes exactly at the real roots of this polynomial

    @staticmethod
    def of(e, x):
        if not e.is_rational_function(x):
            return None
        num, den = sympy.fraction(sympy.cancel(sympy.together(e)))
        try:
            N = sympy.Poly(num, x, domain="QQ")
            D = sympy.Poly(den, x, domain="QQ")
        except (sympy.PolynomialError, sympy.CoercionFailed, ValueError, TypeError):
            return None
        if N.degree() > _EXACT_MAX_DEGREE or D.degree() > _EXACT_MAX_DEGREE:
            return None
        return _RationalData(x, N, D)

    @staticmethod
    def roots_in(P, lo, hi, lo_open, hi_open) -> int:
        """The number of distinct real roots of ``P`` in the interval (ends open or closed)."""
        if P.degree() <= 0:
            return 0
        P = P.sqf_part()
        n = P.count_roots(None if lo == -sympy.oo else lo, None if hi == sympy.oo else hi)
        if lo_open and lo != -sympy.oo and P.eval(lo) == 0:
            n -= 1
        if hi_open and hi != sympy.oo and P.eval(hi) == 0 and lo != hi:
            n -= 1
        return n

    def value(self, c):
        return self.num.eval(c) / self.den.eval(c)

    def signs(self, lo, hi, lo_open, hi_open):
        """The exact sign set of ``N/D`` where it is defined on the interval."""
        if lo == hi:
            d = self.den.eval(lo)
            return _ANY if d == 0 else frozenset({int(sympy.sign(self.num.eval(lo) / d))})
        out = set()
        if self.roots_in(self.num, lo, hi, lo_open, hi_open):
            out.add(0)
        c = _inside_point(lo, hi, avoid=lambda t: self.num.eval(t) * self.den.eval(t) == 0)
        s = int(sympy.sign(self.value(c)))
        out.add(s)
        if self.roots_in(self.odd, lo, hi, True, True):
            out.add(-s)
        return frozenset(out)


def _inside_point(lo, hi, avoid=None, integer=False):
    """A simple rational (an integer if asked) strictly inside ``(lo, hi)`` with ``avoid(t)`` false.

    0 when it is inside, else the integer next to the finite end of a half line, else the
    midpoint; then points near these (``avoid`` rules out finitely many roots).
    """
    for c in _inside_candidates(lo, hi, integer):
        if not (lo < c < hi) or (integer and not c.is_integer):
            continue
        if avoid is None or not avoid(c):
            return c
    raise InvalidArgumentError(f"no simple {'integer ' if integer else ''}point found inside ({lo}, {hi})")


def _inside_candidates(lo, hi, integer):
    """The candidates of :func:`_inside_point`, simplest first (generated lazily: usually the first one serves)."""
    R = sympy.Rational
    if lo < 0 < hi:
        yield sympy.S.Zero
    if lo == -sympy.oo or hi == sympy.oo:
        if lo < 0 < hi:
            anchor, steps = sympy.S.Zero, (1, -1)
        elif hi == sympy.oo:
            anchor, steps = sympy.floor(lo) + 1, (1,)
        else:
            anchor, steps = sympy.ceiling(hi) - 1, (-1,)
        for k in range(0, 64):
            for s in steps:
                yield anchor + s * k
        if not integer:
            for k in range(1, 64):
                for s in steps:
                    yield anchor + s * R(k, 7919)
    elif integer:
        first = sympy.floor(lo) + 1
        for k in range(0, 64):
            yield first + k
    else:
        yield (lo + hi) / 2
        for k in range(1, 997):
            yield lo + (hi - lo) * R(k, 997)


# ----------------------------------------------------------------------------------------- the walker


class _Node:
    __slots__ = ("iv", "signs")

    def __init__(self, x: Interval, signs):
        if not x.pole:
            signs = signs & _signs_of_interval(x)
            if not signs:  # contradictory information: keep the sound, weaker one
                signs = _signs_of_interval(x)
            x = _clip(x, signs)
        self.iv = x
        self.signs = signs


_ENTIRE_NODE = _Node(ENTIRE, _ANY)
_POLE_NODE = _Node(ENTIRE_POLE, _ANY)


class _Walker:
    """Enclosures and sign sets of the nodes of expressions over one box (memoized)."""

    def __init__(self, box, opaque=frozenset(), domain=None, deadline=None, exact=None):
        self.box = box
        self.opaque = opaque
        self.domain = domain if domain is not None else Domain()
        self.deadline = deadline
        self.exact = exact if exact is not None else {}  # shared cache: node -> _RationalData or False
        self.memo = {}
        self.used_exact = False  # some sum's signs came from exact root counting

    def __call__(self, expr) -> _Node:
        hit = self.memo.get(expr)
        if hit is not None:
            return hit
        stack = [expr]
        count = 0
        while stack:
            e = stack[-1]
            if e in self.memo:
                stack.pop()
                continue
            kids = self._children(e)
            missing = [a for a in kids if a not in self.memo]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            count += 1
            if count % 256 == 0 and self.deadline is not None and time.monotonic() > self.deadline:
                raise _OutOfTime
            self.memo[e] = self._node(e)
        return self.memo[expr]

    @staticmethod
    def _children(e):
        if not e.args or _opaque_function(e) or isinstance(e, (Derivative, Subs)):
            return ()
        if isinstance(e, sympy.Piecewise):
            return tuple(arg.expr for arg in e.args)
        return tuple(a for a in e.args if isinstance(a, sympy.Expr))

    @staticmethod
    def _pole():
        return _POLE_NODE

    def _node(self, e) -> _Node:
        m = self.memo
        if e.is_Symbol:
            return self._symbol(e)
        if e.is_Number or e.is_NumberSymbol or e is sympy.I or isinstance(e, sympy.core.numbers.ImaginaryUnit):
            return self._constant(e)
        if _opaque_function(e):
            return _ENTIRE_NODE
        if isinstance(e, (Derivative, Subs)):
            return self._pole()  # an unevaluated derivative of a known function: no enclosure
        if e.is_Add:
            acc, signs = m[e.args[0]].iv, m[e.args[0]].signs
            for a in e.args[1:]:
                acc, signs = acc + m[a].iv, _s_add(signs, m[a].signs)
            exact = self._exact_signs(e)
            if exact is not None:
                signs = exact
                self.used_exact = True
            return _Node(acc, signs)
        if e.is_Mul:
            acc, signs = m[e.args[0]].iv, m[e.args[0]].signs
            for a in e.args[1:]:
                acc, signs = acc * m[a].iv, _s_mul(signs, m[a].signs)
            return _Node(acc, signs)
        if e.is_Pow:
            return self._power(m[e.base], m[e.exp], e.exp)
        if isinstance(e, sympy.Piecewise):
            out, signs = None, frozenset()
            for arg in e.args:
                n = m[arg.expr]
                out = n.iv if out is None else out.hull(n.iv)
                signs = signs | n.signs
            if e.args[-1].cond is not sympy.true:
                out = ENTIRE_POLE  # undefined where no condition holds
            return _Node(out, signs)
        if isinstance(e, _APPLICATIONS):
            return self._function(e, [m[a] for a in e.args if isinstance(a, sympy.Expr)])
        return self._pole()

    def _symbol(self, s) -> _Node:
        if s in self.opaque:
            return _ENTIRE_NODE
        spec = self.box.get(s)
        if spec is None:
            kind = self.domain.kind(s)
            if kind in ("imaginary", "complex"):
                return self._pole()
            spec = _domain_ends(self.domain, s)
        lo, hi, lo_open, hi_open = spec
        x = Interval(interval_of_number(lo).lo, interval_of_number(hi).hi)
        signs = set()
        if lo < 0:
            signs.add(-1)
        if hi > 0:
            signs.add(1)
        if ((lo < 0 < hi) or (lo == 0 and not lo_open) or (hi == 0 and not hi_open)) and s.is_zero is not False:
            signs.add(0)  # (a symbol assumed nonzero is never 0)
        return _Node(x, frozenset(signs))

    def _constant(self, e) -> _Node:
        if e.is_Rational or e.is_Float:
            if e.is_Float and not e.is_finite:
                return self._pole()
            s = int(sympy.sign(e))
            return _Node(interval_of_number(e), frozenset({s}))
        if e.is_NumberSymbol:
            x = float(e)
            # sympy's named constants (pi, E, EulerGamma, Catalan, GoldenRatio ...) are positive
            return _Node(Interval(math.nextafter(x, -_INF), math.nextafter(x, _INF)), _POS if x > 0 else _ANY)
        return self._pole()  # I, oo, zoo, nan

    def _exact_signs(self, e):
        """The exact sign set of a univariate rational sum on the box, or None."""
        cached = self.exact.get(e)
        if cached is None:
            cached = False
            free = e.free_symbols
            if len(free) == 1 and _is_clean(e, self.opaque) and not _size_over(e, _EXACT_MAX_NODES):
                (x,) = free
                if self.domain.kind(x) in ("real", "integer"):
                    try:
                        cached = _RationalData.of(e, x) or False
                    except (sympy.PolynomialError, ValueError, TypeError):
                        cached = False
            self.exact[e] = cached
        if cached is False:
            return None
        x = cached.x
        spec = self.box.get(x)
        if spec is None:
            spec = _domain_ends(self.domain, x)
        return cached.signs(*spec)

    def _power(self, b: _Node, e: _Node, exponent) -> _Node:
        if exponent.is_Integer:
            n = int(exponent)
            if n == 0:
                return _Node(Interval(1.0, 1.0), _POS)
            signs = b.signs if n % 2 else frozenset(abs(s) for s in b.signs)
            if n > 0:
                return _Node(b.iv ** n, signs)
            if 0 in b.signs:
                return self._pole()
            return _Node(_reciprocal(b.iv ** (-n), signs), signs)
        if exponent.is_Rational:
            p, q = int(exponent.p), int(exponent.q)
            if -1 in b.signs or (p < 0 and 0 in b.signs):
                # sympy's x**(p/q) is complex for x < 0 (principal branch), infinite at 0 for p < 0
                return self._pole()
            base = _clip(b.iv, b.signs)
            r = iv.root(base, q)
            signs = frozenset(abs(s) for s in b.signs)
            if p > 0:
                return _Node(r ** p, signs)
            return _Node(_reciprocal(r ** (-p), signs), signs)
        # a real exponent: b**e = exp(e log b) for b > 0, and 0 at b = 0 when e > 0
        if b.signs == _POS:
            return _Node(iv.exp(e.iv * _log(b.iv)), _POS)
        if b.signs <= _NONNEG and not e.iv.pole and e.iv.lo > 0:
            top = iv.exp(e.iv * _log(Interval(b.iv.hi, b.iv.hi))) if b.iv.hi > 0 else Interval(0.0, 0.0)
            return _Node(Interval(0.0, top.hi), _NONNEG)
        return self._pole()

    def _function(self, e, args) -> _Node:
        f = type(e)
        a = args[0] if args else None
        if f is sympy.exp:
            return _Node(iv.exp(a.iv), _POS)
        if f is sympy.log:
            if a.signs != _POS:
                return self._pole()
            return _Node(_log(a.iv), _ANY)
        if f in _ODD_INCREASING:
            return _Node(_ODD_INCREASING[f](a.iv), a.signs)
        if f is sympy.cosh:
            return _Node(iv.cosh(a.iv), _POS)
        if f is sympy.sin:
            return _Node(iv.sin(a.iv), _ANY)
        if f is sympy.cos:
            return _Node(iv.cos(a.iv), _ANY)
        if f is sympy.tan:
            return _Node(iv.tan(a.iv), _ANY)
        if f is sympy.Abs:
            return _Node(iv.abs_(a.iv), frozenset(abs(s) for s in a.signs))
        if f is sympy.sign:
            return _Node(iv.sign(a.iv), a.signs)
        if f is sympy.erfc:
            return _Node(iv.erfc(a.iv), _POS)
        if f in (sympy.asin, sympy.acos):
            if a.iv.pole or a.iv.lo < -1 or a.iv.hi > 1:
                return self._pole()
            return _Node((iv.asin if f is sympy.asin else iv.acos)(a.iv), a.signs if f is sympy.asin else _NONNEG)
        if f in (sympy.Max, sympy.Min):
            xs = [n.iv for n in args]
            out = iv.maximum(*xs) if f is sympy.Max else iv.minimum(*xs)
            if f is sympy.Max:
                signs = _POS if any(n.signs == _POS for n in args) else _ANY
            else:
                signs = _NEG if any(n.signs == _NEG for n in args) else _ANY
            return _Node(out, signs)
        if f in (sympy.floor, sympy.ceiling):
            return _Node((iv.floor if f is sympy.floor else iv.ceiling)(a.iv), _ANY)
        if f is sympy.Heaviside:
            if a.iv.pole:
                return self._pole()
            return _Node(Interval(0.0, 1.0), _NONNEG)
        return self._pole()


def _reciprocal(x: Interval, signs) -> Interval:
    """``1/x`` for a quantity proved nowhere zero (``signs``), even when its closed enclosure touches 0."""
    if x.pole:
        return x
    if not (x.lo <= 0 <= x.hi):
        return x.reciprocal()
    if signs <= _POS and x.hi > 0:
        lo = 0.0 if x.hi == _INF else Interval(x.hi, x.hi).reciprocal().lo
        return Interval(max(lo, 0.0), _INF)
    if signs <= _NEG and x.lo < 0:
        hi = 0.0 if x.lo == -_INF else Interval(x.lo, x.lo).reciprocal().hi
        return Interval(-_INF, min(hi, 0.0))
    if signs <= _NONZERO:
        return ENTIRE
    return ENTIRE_POLE


def _log(x: Interval) -> Interval:
    """``log`` of a quantity proved positive, even when its closed enclosure touches 0."""
    if x.pole:
        return x
    if x.lo > 0:
        return iv.log(x)
    if x.hi <= 0:
        return ENTIRE  # cannot happen for a positive quantity; stay sound
    top = iv.log(Interval(x.hi, x.hi)).hi if x.hi < _INF else _INF
    return Interval(-_INF, top)


class _OutOfTime(Exception):
    pass


# -------------------------------------------------------------------------------------- enclosures


def enclose(expr, box=None, *, opaque=(), closed=False) -> Interval:
    """An interval enclosing every value of ``expr`` on a box, and whether it may have a pole there.

    Outward-rounded interval arithmetic (:mod:`geomcheck.intervals`) on the expression
    DAG, sharpened by sign reasoning: a quantity proved positive (a symbol on ``(0, oo)``,
    ``1 + x**2``, a univariate rational sum without roots in the box) may be divided by
    and have its logarithm taken even when its closed enclosure touches 0.

    Parameters
    ----------
    expr : sympy expression
    box : mapping or Domain, optional
        ``{symbol: (lo, hi)}``: the interval of each symbol, open unless ``closed``
        (``lo == hi`` gives a point); ends may be ``-oo`` / ``oo``.  A
        :class:`~geomcheck.domain.Domain` gives the intervals of all symbols.  Symbols
        not named range over the domain of their assumptions (the real line for a
        plain symbol).
    opaque : iterable of Symbol
        Symbols standing for arbitrary real values (implicit unknowns): the whole line.
    closed : bool
        Take the finite ends of the intervals in ``box`` as attained.

    Returns
    -------
    geomcheck.intervals.Interval
        ``lo``, ``hi`` (floats, possibly infinite) enclose the values of ``expr`` at every
        point of the box where it is defined; ``pole`` is True when ``expr`` may be
        undefined or infinite somewhere in the box (a denominator that may vanish, the
        logarithm or root of a quantity that may be negative, a complex symbol, a
        function without an enclosure) -- its ends are then ``-inf, inf``.  Undefined
        functions (``V(q)``) and their derivatives are finite: their values are the
        whole line, without a pole.

    Raises
    ------
    ExpressionError
        ``expr`` is not a sympy expression (a relation, a string ...).
    InvalidArgumentError
        A malformed box.

    Examples
    --------
    >>> import sympy
    >>> x, r = sympy.Symbol("x"), sympy.Symbol("r", positive=True)
    >>> e = enclose(sympy.exp(-x**2), {x: (-1, 2)})
    >>> 0 < e.lo and e.hi >= 1, e.pole
    (True, False)
    >>> enclose(1 / x, {x: (-1, 1)}).pole
    True
    >>> enclose(sympy.log(r) / r, {}).pole      # r > 0: log and division are defined
    False
    """
    e = _as_expression(expr, "enclose")
    opaque = frozenset(opaque)
    b = _box_from(box, [s for s in e.free_symbols if s not in opaque], closed)
    domain = box if isinstance(box, Domain) else None
    return _Walker(b, opaque, domain)(e).iv


def _as_expression(expr, who):
    try:
        e = sympy.sympify(expr, strict=True) if not isinstance(expr, sympy.Basic) else expr
    except (sympy.SympifyError, TypeError, ValueError):
        raise ExpressionError(f"{who} expects a sympy expression, got {type(expr).__name__} {expr!r}") from None
    if not isinstance(e, sympy.Expr) or isinstance(e, sympy.MatrixBase):
        raise ExpressionError(f"{who} expects a sympy expression, got {type(e).__name__} {e}")
    return e


# ---------------------------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class SignDecision:
    """Where an expression is positive, negative, nowhere zero, or where it vanishes.

    Attributes
    ----------
    verdict : str
        ``"positive"``, ``"negative"``, ``"nonzero"`` (proved everywhere on the domain,
        where the expression is also defined), ``"vanishes"`` (zero at ``point``),
        ``"undefined"`` (undefined at ``point``), ``"defined"`` (from
        :func:`decide_defined`: defined and finite everywhere on the domain) or
        ``"unknown"``.
    reason : str
        How it was decided, or what was tried, in words.
    point : dict or None
        ``{symbol: value}``, a point of the domain, for ``"vanishes"`` and ``"undefined"``.
    exact : bool
        The point is exact; otherwise a zero lies within ``tolerance`` of it (in the
        coordinate that was bisected; the other coordinates are exact).
    tolerance : sympy.Rational or None
        For an inexact point: how far the proved zero may be from it.
    """

    verdict: str
    reason: str
    point: dict | None = None
    exact: bool = True
    tolerance: object = None

    @property
    def nowhere_zero(self):
        """True (proved nowhere zero), False (vanishes at ``point``) or None (undefined somewhere, or unknown)."""
        return {"positive": True, "negative": True, "nonzero": True, "vanishes": False}.get(self.verdict)

    def __bool__(self):
        raise TypeError("a SignDecision has several outcomes: test .verdict or .nowhere_zero explicitly")

    def __str__(self):
        return f"{self.verdict}: {self.reason}"


def domain_point(symbols, domain=None) -> dict:
    """A simple exact point of the domain: ``{symbol: value}`` (0 where allowed, else near an end).

    >>> import sympy
    >>> x, r, n = sympy.Symbol("x"), sympy.Symbol("r", positive=True), sympy.Symbol("n", integer=True, negative=True)
    >>> domain_point([x, r, n])
    {x: 0, r: 1, n: -1}
    """
    domain = domain if isinstance(domain, Domain) else Domain(domain)
    out = {}
    for s in symbols:
        if domain.kind(s) in ("imaginary", "complex"):
            raise InvalidArgumentError(f"{s} is not a real symbol; domain_point gives real points")
        lo, hi = domain.interval(s)
        avoid = (lambda t: t == 0) if s.is_zero is False else None
        out[s] = _inside_point(lo, hi, avoid=avoid, integer=domain.kind(s) == "integer")
    return out


def decide_sign(expr, domain=None, *, opaque=(), budget: float = 2.0, seed: int = 0) -> SignDecision:
    """Prove that ``expr`` is positive, negative or nowhere zero on a box domain, or show a zero.

    Parameters
    ----------
    expr : sympy expression
        Undefined functions mean "any smooth function" (see the module docstring).
    domain : Domain or mapping, optional
        The open intervals of (some of) the symbols; the others range over the domain of
        their sympy assumptions (a plain symbol over the real line).
    opaque : iterable of Symbol
        Symbols standing for arbitrary real values that cannot be chosen (the unknowns of
        an implicit map, its derived symbols): signs are proved for every value, zeros
        are never looked for in them.
    budget : float
        Seconds for bisection and the zero search (the structural stage always runs).
    seed : int
        Varies the sampled points of the zero search (reproducibly).

    Returns
    -------
    SignDecision

    Raises
    ------
    ExpressionError
        ``expr`` is not a sympy expression.
    InvalidArgumentError
        A budget that is not a positive number.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.domain import Domain
    >>> x, y, h, g = sympy.symbols("x y h gamma")
    >>> decide_sign(1 + y**2 + sympy.exp(x)).verdict
    'positive'
    >>> print(decide_sign(x**2 - 2*x + 1 + sympy.Rational(1, 10**30)))   # doctest: +ELLIPSIS
    positive: positive on x in (-oo, oo), ... with exact root counting (Sturm) for its univariate sums
    >>> d = decide_sign(1 - h * g)
    >>> d.verdict, d.point
    ('vanishes', {gamma: 1, h: 1})
    >>> decide_sign(sympy.Function("V")(x)).verdict
    'unknown'
    >>> decide_sign(sympy.exp(sympy.Function("V")(x))).verdict
    'positive'
    """
    e = _as_expression(expr, "decide_sign")
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0 or budget != budget:
        raise InvalidArgumentError(f"budget must be a positive number of seconds, got {budget!r}")
    dom = domain if isinstance(domain, Domain) else Domain(domain)
    opaque = frozenset(opaque)
    prover = _Prover(e, dom, opaque, time.monotonic() + float(budget), seed)
    try:
        return prover.run()
    except _OutOfTime:
        return SignDecision("unknown", "not decided within the budget of %g s" % budget)


def decide_defined(expr, domain=None, *, opaque=(), budget: float = 2.0, seed: int = 0) -> SignDecision:
    """Prove that ``expr`` is defined and finite everywhere on a box domain, or show where it is not.

    Parameters and domain conventions as in :func:`decide_sign`.

    Returns
    -------
    SignDecision
        ``"defined"`` (proved by interval arithmetic, with bisection), ``"undefined"``
        with a point of the domain where it is not a finite real number (a denominator
        or a logarithm's argument vanishes there, or exact evaluation there gives
        ``zoo``, ``nan`` or a complex number), or ``"unknown"``.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.domain import Domain
    >>> x, y = sympy.symbols("x y")
    >>> decide_defined(x / (1 + x**2)).verdict
    'defined'
    >>> d = decide_defined(-y / (x**2 + y**2))
    >>> d.verdict, d.point
    ('undefined', {x: 0, y: 0})
    >>> decide_defined(-y / (x**2 + y**2), Domain({x: (0, 1)})).verdict
    'defined'
    """
    e = _as_expression(expr, "decide_defined")
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0 or budget != budget:
        raise InvalidArgumentError(f"budget must be a positive number of seconds, got {budget!r}")
    dom = domain if isinstance(domain, Domain) else Domain(domain)
    prover = _Prover(e, dom, frozenset(opaque), time.monotonic() + float(budget), seed)
    try:
        return prover.defined(e)
    except _OutOfTime:
        return SignDecision("unknown", "not decided within the budget of %g s" % budget)


class _Prover:
    """One decision: the expression, its domain, the clock, and the caches they share."""

    def __init__(self, expr, domain, opaque, deadline, seed):
        self.expr = expr
        self.domain = domain
        self.opaque = opaque
        self.deadline = deadline
        self.seed = seed
        self.exact = {}

    def expired(self):
        return time.monotonic() > self.deadline

    # -- the box of the whole domain
    def symbols_of(self, e):
        return sorted((s for s in e.free_symbols if s not in self.opaque), key=lambda s: s.name)

    def root_box(self, symbols):
        return _box_from(self.domain, symbols, False)

    def walker(self, box):
        return _Walker(box, self.opaque, self.domain, self.deadline, self.exact)

    def describe(self, symbols):
        if not symbols:
            return "(no free symbols)"
        ends = {s: _domain_ends(self.domain, s) for s in symbols}
        if all(lo_open and hi_open and s.is_zero is not False for s, (_, _, lo_open, hi_open) in ends.items()):
            return self.domain.describe(symbols)
        parts = []
        for s, (lo, hi, lo_open, hi_open) in ends.items():
            kind = " an integer" if self.domain.kind(s) == "integer" else ""
            nonzero = ", nonzero" if s.is_zero is False else ""
            parts.append(f"{s}{kind} in {'(' if lo_open else '['}{lo}, {hi}{')' if hi_open else ']'}{nonzero}")
        return ", ".join(parts)

    def run(self) -> SignDecision:
        return self.decide(self.expr, top=True)

    def decide(self, e, top=False) -> SignDecision:
        symbols = self.symbols_of(e)
        if any(self.domain.kind(s) in ("imaginary", "complex") for s in symbols):
            return self.complex_symbols(e, symbols)
        box = self.root_box(symbols)
        w = self.walker(box)
        node = w(e)
        where = " on " + self.describe(symbols) if symbols else ""
        if not node.iv.pole:
            word = _sign_text(node.signs)
            if word and word != "zero":
                verdict = {"positive": "positive", "negative": "negative"}.get(word, "nonzero")
                how = ", with exact root counting (Sturm) for its univariate sums" if w.used_exact else ""
                return SignDecision(verdict, f"{word}{where}, by its structure and interval arithmetic{how}")
            if node.signs == _ZERO and not self.opaque_in(e):
                return SignDecision("vanishes", f"identically zero{where}", domain_point(symbols, self.domain))
        if e.is_Mul and len(e.args) > 1:
            d = self.by_factors(e, symbols)
            if d is not None:
                return d
        if e.is_Pow and e.exp.is_number and e.exp.is_positive:
            d = self.by_base(e)
            if d is not None:
                return d
        if e.is_Add and symbols and top:
            # a small polynomial may hide a square ((gamma h - 2)**2 / 4): a tangential zero that no sign change
            # shows; its factors are decided one by one
            f = _factored(e, symbols)
            if f is not None:
                d = self.decide(f)
                if d.verdict != "unknown":
                    return d
        if not _is_clean(e, self.opaque):
            return self.opaque_unknown(e)
        if not symbols:
            return self.number(e)
        if len(symbols) == 1:
            d = self.univariate(e, symbols[0])
            if d is not None:
                return d
        # a zero is cheap to find when there is one; bisection is the expensive proof that there is none
        for stage in (self.search, self.pole_search, lambda e, symbols: self.bisect(e, symbols, box)):
            d = stage(e, symbols)
            if d is not None:
                return d
        return SignDecision("unknown", f"not proved{where}: interval arithmetic with bisection did not separate it"
                            " from zero, and no zero or undefined point was found at the sampled points")

    def opaque_in(self, e):
        return not _is_clean(e, self.opaque)

    def opaque_unknown(self, e):
        names = sorted({str(type(f).__name__) if not isinstance(f, Jet) else f.jet_name
                        for f in e.atoms(AppliedUndef, Jet)}
                       | {str(s) for s in e.free_symbols & self.opaque})
        what = ", ".join(names) if names else "an unevaluated derivative"
        return SignDecision("unknown", f"its sign depends on {what} (arbitrary smooth functions or implicit"
                            " unknowns), and its structure does not fix the sign for every choice")

    def complex_symbols(self, e, symbols):
        # only "nowhere zero" survives complex values: exp(anything) and nonzero numbers
        factors = sympy.Mul.make_args(e)
        if all(isinstance(f, sympy.exp) or (f.is_number and f.is_zero is False) for f in factors):
            return SignDecision("nonzero", "a product of exponentials and nonzero numbers (nowhere zero, complex"
                                " values included)")
        names = ", ".join(str(s) for s in symbols if self.domain.kind(s) in ("imaginary", "complex"))
        return SignDecision("unknown", f"{names} ranges over complex values: signs are not defined, and this"
                            " expression is not of a form known to be nowhere zero there")

    # -- definedness
    def defined(self, e) -> SignDecision:
        symbols = self.symbols_of(e)
        if any(self.domain.kind(s) in ("imaginary", "complex") for s in symbols):
            return SignDecision("unknown", "complex symbols: definedness as a real function is not decided")
        box = self.root_box(symbols)
        where = " on " + self.describe(symbols) if symbols else ""
        if not self.walker(box)(e).iv.pole:
            return SignDecision("defined", f"defined and finite{where}, by its structure and interval arithmetic")
        if not symbols:
            value = _exact_value(e)
            if value == "undefined":
                return SignDecision("undefined", f"the number {e} is not a finite real number", {})
            return SignDecision("unknown", f"whether the number {e} is finite was not decided")
        for stage in (self.undefined_at_samples, self.pole_search):
            d = stage(e, symbols)
            if d is not None:
                return d
        d = self.bisect(e, symbols, box, goal="defined")
        if d is not None:
            return d
        return SignDecision("unknown", f"not decided{where}: interval arithmetic with bisection did not exclude a"
                            " pole, and no point where it is undefined was found")

    def undefined_at_samples(self, e, symbols):
        if _size_over(e, _SEARCH_MAX_NODES):
            return None
        for p in self.sample_points(e, symbols):
            if self.expired():
                return None
            if _sign_at(e, p, self.exact) == "undefined":
                return SignDecision("undefined", "it is undefined (not a finite real number) at a point of the"
                                    f" domain ({self.describe(symbols)})", p)
        return None

    # -- numbers
    def number(self, e):
        if e == 0:
            return SignDecision("vanishes", "it is the number 0", {})
        x = enclose(e)
        if not x.pole and (x.lo > 0 or x.hi < 0):
            return SignDecision("positive" if x.lo > 0 else "negative", "a number, by interval arithmetic")
        value = _exact_value(e)
        if value == "undefined":
            return SignDecision("undefined", f"the number {e} is not a finite real number", {})
        if value == 0:
            return SignDecision("vanishes", f"the number {e} is zero (exact simplification)", {})
        if e.is_positive is True or e.is_negative is True:
            # sympy's numeric sign test: evalf with tracked accuracy, trusted only for nonzero values
            return SignDecision("positive" if e.is_positive else "negative",
                                "a number, by sympy's evaluation with tracked accuracy")
        return SignDecision("unknown", f"the sign of the number {e} was not decided")

    # -- products
    def by_factors(self, e, symbols):
        factors = sympy.Mul.make_args(e)
        decisions = []
        for f in factors:
            d = self.decide(f)
            decisions.append((f, d))
        if all(d.nowhere_zero for _, d in decisions):
            signs = _POS
            for _, d in decisions:
                signs = _s_mul(signs, {"positive": _POS, "negative": _NEG}.get(d.verdict, _NONZERO))
            word = {_POS: "positive", _NEG: "negative"}.get(signs, "nonzero")
            return SignDecision(word, "a product of factors each proved nowhere zero: "
                                + "; ".join(f"{f} {d.verdict}" for f, d in decisions))
        # a zero (a refutation) before an undefined point
        for f, d in sorted(decisions, key=lambda fd: fd[1].verdict != "vanishes"):
            if d.verdict not in ("vanishes", "undefined"):
                continue
            others = [g for g in factors if g is not f]
            rest = [s for s in symbols if s not in d.point]
            if d.verdict == "undefined":
                point = {**d.point, **domain_point(rest, self.domain)}
                return SignDecision("undefined", f"its factor {f} is undefined there ({d.reason})", point, d.exact,
                                    d.tolerance)
            # the product vanishes where one factor does, if the others are finite there
            if all(not self.walker(self.root_box(self.symbols_of(g)))(g).iv.pole for g in others):
                point = {**d.point, **domain_point(rest, self.domain)}
                return SignDecision("vanishes", f"its factor {f} vanishes there ({d.reason}), and the other"
                                    " factors are finite everywhere", point, d.exact, d.tolerance)
            if d.exact and all(_is_clean(g, self.opaque) for g in others):
                # the other symbols are free: choose them where the other factors are finite
                for values in self.rest_values(rest):
                    point = {**d.point, **values}
                    if all(_finite_number(g.xreplace(point)) for g in others):
                        return SignDecision("vanishes", f"its factor {f} vanishes there ({d.reason}), and the"
                                            " other factors are finite there", point, True)
        return None

    def rest_values(self, symbols, count=3):
        """A few simple points for ``symbols`` (the domain point first)."""
        cands = {}
        for s in symbols:
            lo, hi, lo_open, hi_open = _domain_ends(self.domain, s)
            integer = self.domain.kind(s) == "integer"
            values = [v for v in _candidates(lo, hi, integer) if not (s.is_zero is False and v == 0)][:count]
            cands[s] = values or [domain_point([s], self.domain)[s]]
        yield domain_point(symbols, self.domain)
        for combo in itertools.product(*(cands[s] for s in symbols)):
            yield dict(zip(symbols, combo))

    def by_base(self, e):
        """``b**r`` with ``r > 0`` vanishes exactly where ``b`` does; its sign follows from b's."""
        b, r = e.base, e.exp
        d = self.decide(b)
        if d.verdict == "vanishes":
            return SignDecision("vanishes", f"its base {b} vanishes there ({d.reason})", d.point, d.exact, d.tolerance)
        if d.verdict == "undefined":
            return SignDecision("undefined", f"its base {b} is undefined there ({d.reason})", d.point, d.exact,
                                d.tolerance)
        if not d.nowhere_zero:
            return None
        if r.is_integer:
            word = "positive" if (r % 2 == 0 or d.verdict == "positive") else d.verdict
            return SignDecision(word, f"a power {e} of a base proved {d.verdict} ({d.reason})")
        if d.verdict == "positive":
            return SignDecision("positive", f"a power {e} of a base proved positive ({d.reason})")
        return None  # a real power of a negative base is not real (the walker says where)

    # -- one symbol, rational: exact
    def univariate(self, e, x):
        data = self.exact.get(("whole", e))
        if data is None:
            try:
                data = _RationalData.of(e, x) if not _size_over(e, 4 * _EXACT_MAX_NODES) else None
            except (sympy.PolynomialError, ValueError, TypeError):
                data = None
            self.exact[("whole", e)] = data or False
        if not data:
            return None
        lo, hi, lo_open, hi_open = _domain_ends(self.domain, x)
        integer = self.domain.kind(x) == "integer"
        iv_text = ("(" if lo_open else "[") + f"{lo}, {hi}" + (")" if hi_open else "]")
        # as written, the expression is undefined where a denominator of it vanishes
        raw_den = sympy.fraction(sympy.together(e))[1]
        try:
            D = sympy.Poly(raw_den, x, domain="QQ")
        except (sympy.PolynomialError, sympy.CoercionFailed):
            D = data.den
        # a zero where the expression (as written) is defined, else a point where it is not
        root = _first_root(data.num, lo, hi, integer, avoid=D, lo_open=lo_open, hi_open=hi_open)
        if root is not None and x.is_zero is False and root == 0:
            root = None  # (x is assumed nonzero: its other roots, if any, are found by the search)
        if root is not None:
            return SignDecision("vanishes", f"exact: the numerator {data.num.as_expr()} has the root {x} = {root}",
                                {x: root})
        root = _first_root(D, lo, hi, integer, lo_open=lo_open, hi_open=hi_open)
        if root is not None and not (x.is_zero is False and root == 0):
            return SignDecision("undefined", f"exact: its denominator {D.as_expr()} vanishes at {x} = {root}",
                                {x: root})
        if integer or x.is_zero is False:
            if self.roots_are_excluded(data, x, lo, hi, lo_open, hi_open, integer):
                return SignDecision("nonzero", f"exact: no admissible root of the numerator or denominator in {iv_text}"
                                    + (" (an integer)" if integer else f" ({x} nonzero)"))
            return None
        c = _inside_point(lo, hi)
        s = sympy.sign(data.value(c))
        return SignDecision("positive" if s > 0 else "negative",
                            f"{'positive' if s > 0 else 'negative'}: exact root counting (Sturm) shows no zero of the"
                            f" numerator in {iv_text}")

    @staticmethod
    def roots_are_excluded(data, x, lo, hi, lo_open, hi_open, integer):
        """Every real root of N and D in the interval is inadmissible (not an integer; 0 for a nonzero x)."""
        for P in (data.num, data.den):
            if P.degree() <= 0 or not _RationalData.roots_in(P.sqf_part(), lo, hi, lo_open, hi_open):
                continue
            for r in P.sqf_part().real_roots():
                inside = (lo < r or (lo == r and not lo_open)) and (r < hi or (r == hi and not hi_open))
                if inside and (not integer or r.is_integer) and not (x.is_zero is False and r == 0):
                    return False
        return True

    # -- bisection
    def bisect(self, e, symbols, box, max_boxes=600, goal="sign"):
        """Prove the sign (``goal="sign"``) or the definedness (``goal="defined"``) box by box."""
        grad = self.gradient(e, symbols) if goal == "sign" else None
        queue = deque([box])
        seen_signs = set()
        boxes = 0
        while queue:
            if self.expired() or boxes >= max_boxes:
                return None
            b = queue.popleft()
            boxes += 1
            node = self.walker(b)(e)
            signs = node.signs if not node.iv.pole else None
            if goal == "defined":
                if signs is None:
                    split = _split(b, symbols)
                    if split is None:
                        return None
                    queue.extend(split)
                continue
            if signs is not None and signs <= _NONZERO and signs:
                seen_signs |= signs
                continue
            if signs is not None and grad is not None:
                mv = self.mean_value(e, grad, b, symbols)
                if mv is not None:
                    seen_signs.add(mv)
                    continue
            if signs == _ZERO or (signs is not None and signs <= _ZERO):
                return None  # zero on a whole box: the search finds the point
            split = _split(b, symbols)
            if split is None:
                return None
            queue.extend(split)
        where = " on " + self.describe(symbols)
        if goal == "defined":
            return SignDecision("defined", f"defined and finite{where}, by interval arithmetic on {boxes} boxes"
                                " (bisection)")
        word = {frozenset({1}): "positive", frozenset({-1}): "negative"}.get(frozenset(seen_signs), "nonzero")
        return SignDecision(word, f"{word if word != 'nonzero' else 'nowhere zero'}{where}, by interval arithmetic"
                            f" on {boxes} boxes (bisection)")

    def gradient(self, e, symbols):
        if _size_over(e, 400) or not _only(e, _SMOOTH):
            return None
        try:
            return [sympy.diff(e, s) for s in symbols]
        except (TypeError, ValueError):
            return None

    def mean_value(self, e, grad, box, symbols):
        """The sign (+-1) proved by the mean-value form on a bounded box, or None."""
        mid = {}
        for s in symbols:
            lo, hi, _, _ = box[s]
            if lo == -sympy.oo or hi == sympy.oo:
                return None
            mid[s] = (lo + hi) / 2
        point = {s: (mid[s], mid[s], False, False) for s in symbols}
        w_point = self.walker({**box, **point})
        acc = w_point(e).iv
        if acc.pole:
            return None
        w = self.walker(box)
        for s, g in zip(symbols, grad):
            lo, hi, _, _ = box[s]
            gi = w(g).iv
            if gi.pole:
                return None
            delta = Interval(interval_of_number(lo - mid[s]).lo, interval_of_number(hi - mid[s]).hi)
            acc = acc + gi * delta
        if acc.pole:
            return None
        if acc.lo > 0:
            return 1
        if acc.hi < 0:
            return -1
        return None

    # -- the search for a zero or an undefined point
    def search(self, e, symbols):
        if _size_over(e, _SEARCH_MAX_NODES):
            return None
        points = self.sample_points(e, symbols)
        evaluated = []
        undefined = None
        for p in points:
            if self.expired():
                return None
            s = _sign_at(e, p, self.exact)
            if s == 0:
                return SignDecision("vanishes", f"it is exactly zero at a point of the domain"
                                    f" ({self.describe(symbols)})", p)
            if s == "undefined" and undefined is None:
                # a zero (a refutation) is worth more than an undefined point: keep looking first
                undefined = SignDecision("undefined", "it is undefined (not a finite real number) at a point of"
                                         f" the domain ({self.describe(symbols)})", p)
            if s in (1, -1):
                evaluated.append((p, s))
        d = self.legs(e, symbols, evaluated)
        return d if d is not None else undefined

    def legs(self, e, symbols, evaluated):
        """A zero on a path between sampled points of opposite signs, or None."""
        if _only(e, _CONTINUOUS):
            positive = [p for p, s in evaluated if s > 0]
            negative = [p for p, s in evaluated if s < 0]
            pairs = [(a, b) for a in positive[:6] for b in negative[:6]]
            pairs.sort(key=lambda ab: sum(1 for s in symbols if ab[0][s] != ab[1][s]))
            for a, b in pairs[:24]:
                if self.expired():
                    return None
                d = self.cross(e, symbols, a, b)
                if d is not None:
                    return d
        return None

    def sample_points(self, e, symbols):
        cands = {}
        for s in symbols:
            lo, hi, lo_open, hi_open = _domain_ends(self.domain, s)
            values = _candidates(lo, hi, self.domain.kind(s) == "integer")
            values += [v for v, is_open in ((lo, lo_open), (hi, hi_open)) if not is_open]
            if s.is_zero is False:
                values = [v for v in values if v != 0]
            cands[s] = values or [_inside_point(lo, hi, avoid=lambda t: t == 0)]
        points = []
        n = max(len(c) for c in cands.values())
        for k in range(n):  # the diagonal: every symbol at its k-th value (x = y = 0 ...)
            points.append({s: cands[s][k % len(cands[s])] for s in symbols})
        if len(symbols) > 1:  # the axes: one symbol moves, the others at their first value
            for s in symbols:
                for v in cands[s]:
                    p = {t: cands[t][0] for t in symbols}
                    p[s] = v
                    points.append(p)
        digest = hashlib.sha256((str(e)[:20000] + "|" + str(self.seed)).encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big"))
        for _ in range(48 if len(symbols) > 1 else 0):
            points.append({s: rng.choice(cands[s]) for s in symbols})
        unique, seen = [], set()
        for p in points:
            key = tuple(p[s] for s in symbols)
            if key not in seen:
                seen.add(key)
                unique.append(p)
        return unique

    def cross(self, e, symbols, a, b):
        """A zero on the staircase path from ``a`` (positive) to ``b`` (negative), or None."""
        corners = [dict(a)]
        for s in symbols:
            if a[s] != b[s]:
                nxt = dict(corners[-1])
                nxt[s] = b[s]
                corners.append(nxt)
        signs = [1]
        for c in corners[1:-1]:
            signs.append(_sign_at(e, c, self.exact))
        signs.append(-1)
        for i in range(len(corners) - 1):
            s0, s1 = signs[i], signs[i + 1]
            if s0 in (1, -1) and s1 in (1, -1) and s0 != s1:
                (x,) = [s for s in symbols if corners[i][s] != corners[i + 1][s]]
                if self.domain.kind(x) == "integer":
                    continue
                if x.is_zero is False and corners[i][x] * corners[i + 1][x] < 0:
                    continue  # x is assumed nonzero: its domain is two half lines, the segment leaves it
                d = self.leg(e, x, corners[i], corners[i + 1][x], s0)
                if d is not None:
                    return d
        return None

    def leg(self, e, x, start, end_value, start_sign):
        """Locate the zero of ``e`` on the segment moving ``x`` from ``start[x]`` to ``end_value``."""
        fixed = {s: v for s, v in start.items() if s != x}
        g = e.xreplace(fixed)
        a, b = start[x], end_value
        lo, hi = min(a, b), max(a, b)
        if not _finite_on(g, x, lo, hi, self):
            return None
        # exact: a rational function of x with rational coefficients has its roots isolated exactly
        try:
            data = _RationalData.of(g, x) if not _size_over(g, 4 * _EXACT_MAX_NODES) else None
        except (sympy.PolynomialError, ValueError, TypeError):
            data = None
        if data:
            root = _first_root(data.num, lo, hi, False)
            if root is not None:
                return SignDecision("vanishes", f"it changes sign along {x} between {lo} and {hi} and is a rational"
                                    f" function there; its numerator has the root {x} = {root}", {**fixed, x: root})
        sa = start_sign
        # bisection on dyadic points, each sign proved by interval arithmetic at that point
        for _ in range(200):
            if self.expired():
                return None
            m = (a + b) / 2
            s = _sign_at(g, {x: m}, self.exact)
            if s == 0:
                return SignDecision("vanishes", f"it is exactly zero at {x} = {m}", {**fixed, x: m})
            if s not in (1, -1):
                break
            if s == sa:
                a = m
            else:
                b = m
            scale = max(abs(a), abs(b), sympy.S.One)
            if abs(b - a) < scale / 2**_BRACKET_BITS:
                break
        lo, hi = min(a, b), max(a, b)
        point, exact = _refine(g, x, lo, hi)
        tol = None if exact else hi - lo
        how = ("recognised exactly" if exact else
               f"located to within {sympy.Float(tol, 3)} and refined to {_REFINE_DPS} digits with mpmath")
        return SignDecision("vanishes", f"it changes sign along {x} between {lo} and {hi}, where it is continuous"
                            f" (interval arithmetic shows it finite), so it vanishes in between (intermediate value"
                            f" theorem); the zero is {how}", {**fixed, x: point}, exact, tol)

    def pole_search(self, e, symbols):
        """A point where a denominator of ``e``, or the argument of a logarithm in it, vanishes."""
        if _size_over(e, _SEARCH_MAX_NODES):
            return None
        guards = {}
        for p in e.atoms(sympy.Pow):
            if p.exp.is_number and p.exp.is_negative:
                guards.setdefault(p.base, f"the denominator {p.base}")
        for f in e.atoms(sympy.log):
            guards.setdefault(f.args[0], f"the argument {f.args[0]} of a logarithm")
        for f in e.atoms(sympy.tan):
            guards.setdefault(sympy.cos(f.args[0]), f"cos({f.args[0]}) (a pole of tan)")
        for den, label in guards.items():
            if self.expired():
                return None
            if not _is_clean(den, self.opaque) or den.is_number:
                continue
            sub = _Prover(den, self.domain, self.opaque, self.deadline, self.seed + 1)
            sub.exact = self.exact
            d = sub.decide(den)
            if d.verdict == "vanishes":
                return SignDecision("undefined", f"{label} vanishes there ({d.reason})", d.point, d.exact,
                                    d.tolerance)
        return None


def _factored(e, symbols):
    """``e`` factored over the rationals when it is a small polynomial or rational function that factors."""
    if _size_over(e, _EXACT_MAX_NODES) or not _is_clean(e, frozenset()):
        return None
    try:
        if not e.is_rational_function(*symbols):
            return None
        num, den = sympy.fraction(sympy.together(e))
        if sympy.Poly(num, *symbols).total_degree() > 12 or sympy.Poly(den, *symbols).total_degree() > 12:
            return None
        f = sympy.factor(e)
    except (sympy.PolynomialError, sympy.CoercionFailed, ValueError, TypeError):
        return None
    return f if (f.is_Mul or f.is_Pow) and f != e else None


def _first_root(P, lo, hi, integer, avoid=None, lo_open=True, hi_open=True):
    """An exact real root of the polynomial ``P`` in the interval (an integer one if asked; not a root of
    the polynomial ``avoid``), or None."""
    if P.degree() <= 0:
        return None
    P = P.sqf_part()
    if avoid is not None and avoid.degree() > 0:
        P = P.quo(P.gcd(avoid))
        if P.degree() <= 0:
            return None
    if not _RationalData.roots_in(P, lo, hi, lo_open, hi_open):
        return None
    for r in P.real_roots():
        if integer and not r.is_integer:
            continue
        if (bool(lo < r) or (lo == r and not lo_open)) and (bool(r < hi) or (r == hi and not hi_open)):
            return r
    return None


def _candidates(lo, hi, integer):
    """Simple values spread over ``(lo, hi)`` at several scales."""
    R = sympy.Rational
    scales = [R(1, 1024), R(1, 8), R(1, 2), sympy.S.One, R(3, 2), 2, 8, 64, 1024, 2**20]
    out = [sympy.S.Zero, sympy.S.One, -sympy.S.One]
    if lo != -sympy.oo and hi != sympy.oo:
        out += [lo + (hi - lo) * R(k, 8) for k in range(1, 8)]
        out += [lo + (hi - lo) * R(1, 1000), hi - (hi - lo) * R(1, 1000)]
    if lo != -sympy.oo:
        out += [lo + d for d in scales]
    if hi != sympy.oo:
        out += [hi - d for d in scales]
    out += [sympy.sympify(d) for d in scales] + [-sympy.sympify(d) for d in scales]
    if integer:
        out = [sympy.floor(v) for v in out] + [sympy.ceiling(v) for v in out]
    seen, kept = set(), []
    for v in out:
        v = sympy.Rational(v)
        if lo < v < hi and v not in seen:
            seen.add(v)
            kept.append(v)
    return kept or [_inside_point(lo, hi, integer=integer)]


def _split(box, symbols):
    """Two halves of the box along its widest side (unbounded sides cut at finite points), or None."""
    best, best_w = None, -1.0
    for s in symbols:
        lo, hi, _, _ = box[s]
        if lo == hi:
            continue
        w = _INF if (lo == -sympy.oo or hi == sympy.oo) else float(hi - lo)
        if w > best_w:
            best, best_w = s, w
    if best is None or best_w < 1e-12:
        return None
    lo, hi, lo_open, hi_open = box[best]
    if lo == -sympy.oo and hi == sympy.oo:
        cut = sympy.S.Zero
    elif hi == sympy.oo:
        cut = lo + max(sympy.S.One, abs(lo))
    elif lo == -sympy.oo:
        cut = hi - max(sympy.S.One, abs(hi))
    else:
        cut = (lo + hi) / 2
    left, right = dict(box), dict(box)
    left[best] = (lo, cut, lo_open, False)
    right[best] = (cut, hi, False, hi_open)
    return [left, right]


def _finite_number(v) -> bool:
    """An exact numeric expression that is a finite real number (as sympy evaluates it)."""
    return bool(v.is_number) and not v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo, sympy.I)


def _exact_value(v):
    """0, "undefined", or None (not decided) for an exact numeric expression.

    Only sympy's automatic evaluation is trusted (``cos(pi/2)``, ``sqrt(2)*sqrt(3) - sqrt(6)``
    and ``exp(-log(2)) - 1/2`` evaluate to 0): ``simplify`` can run for minutes on a
    number (it factors huge integers), and nothing here may escape the budget.
    """
    if v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or v.has(sympy.I):
        return "undefined"
    if v == 0:
        return 0
    return None


def _sign_at(e, point, exact=None):
    """The sign (+-1, 0) of ``e`` at an exact point, "undefined", or None (not decided).

    ``exact``: a cache of the exact data of univariate sums, shared between calls.
    """
    box = {s: (v, v, False, False) for s, v in point.items()}
    x = _Walker(box, exact=exact)(e).iv
    if not x.pole:
        if x.lo > 0:
            return 1
        if x.hi < 0:
            return -1
    v = e.xreplace(point)
    exact = _exact_value(v)
    if exact is not None:
        return exact
    if v.is_number:
        try:
            w = v.evalf(_REFINE_DPS)
        except (TypeError, ValueError):
            return None
        if w.is_real and w.is_Float and abs(w) > sympy.Float(10) ** (-_REFINE_DPS // 2):
            # the interval enclosure could not separate it from 0: trust evalf only for a clear value
            return 1 if w > 0 else -1
    return None


def _finite_on(g, x, lo, hi, prover, pieces=64):
    """``g`` (a function of ``x`` only) is defined and finite on the closed segment ``[lo, hi]``."""
    queue = deque([(lo, hi)])
    done = 0
    while queue:
        if prover.expired() or done > pieces:
            return False
        a, b = queue.popleft()
        done += 1
        if _Walker({x: (a, b, False, False)}, exact=prover.exact)(g).iv.pole:
            if (b - a) < (hi - lo) / pieces:
                return False
            m = (a + b) / 2
            queue.extend([(a, m), (m, b)])
    return True


def _refine(g, x, lo, hi):
    """A zero of ``g`` in ``[lo, hi]`` (a sign change): exact if recognised, else 50 digits; and whether exact."""
    try:
        f = sympy.lambdify(x, g, modules="mpmath")
        with mpmath.workdps(_REFINE_DPS + 10):
            a, b = mpmath.mpf(lo.p) / lo.q, mpmath.mpf(hi.p) / hi.q
            fa = f(a)
            for _ in range(4 * _REFINE_DPS):
                m = (a + b) / 2
                fm = f(m)
                if fm == 0:
                    a = b = m
                    break
                if (fm > 0) == (fa > 0):
                    a, fa = m, fm
                else:
                    b = m
            root = (a + b) / 2
    except (TypeError, ValueError, ZeroDivisionError, NameError):
        return sympy.Float((lo + hi) / 2, 20), False
    approx = sympy.Float(root, _REFINE_DPS)
    try:
        guess = sympy.nsimplify(approx, [sympy.pi, sympy.E], tolerance=sympy.Float(10) ** (-_REFINE_DPS + 10))
    except (TypeError, ValueError, NotImplementedError):
        guess = None
    if guess is not None and guess.is_real and bool(lo <= guess) and bool(guess <= hi):
        if _exact_value(g.xreplace({x: guess})) == 0:
            return guess, True
    if not (lo <= sympy.Rational(approx) <= hi):
        approx = sympy.Float((lo + hi) / 2, _REFINE_DPS)
    return approx, False
