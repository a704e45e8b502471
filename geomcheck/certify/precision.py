"""How precise inexact coefficients are, and what residuals computed from them can prove.

A floating-point coefficient (a Python ``float``, an mpmath ``mpf``, a sympy ``Float``) is
a binary number, and its container says nothing about how much of it is *information*: an
``mpf`` at 60 digits made from the published string ``"-1.17767998417887"`` knows 15
digits, not 60.  Judging order conditions against the container's precision then refutes a
sixth-order method because its coefficients were rounded to 15 digits.  This module
estimates the information from the data and bounds, rigorously, how far that imprecision
can move a residual.

* :func:`significant_digits` -- the number of significant digits of the shortest decimal
  that reproduces a value at the precision of its mantissa (what a Python float's ``repr``
  shows; the same for ``mpf`` and sympy ``Float``).
* :func:`data_precision` -- one absolute uncertainty per value (a :class:`DataPrecision`),
  by the rule below.
* :class:`Bounded` -- a number computed from the data by ``+ - *`` and exact constants,
  carrying a *majorant* bound on how far it can move when every datum moves within its
  uncertainty.

The rule (documented in every certificate that uses it)
-------------------------------------------------------
Each nonzero inexact value ``x`` has ``n`` significant digits (its shortest decimal) and
its container holds ``cap`` digits (16 for a double, ``dps + 1`` for mpmath/sympy).  A
value with ``SHORT_DIGITS < n < cap`` shows how the data were rounded; ``N`` is the
fewest digits among those (or, when there is none, the fewest container digits).  Every
nonzero inexact value is then taken to be known to one unit in its ``N``-th significant
digit, ``delta = 10**(e + 1 - N)`` (``e`` its decimal exponent):

* one unit, twice a rounding error, so data truncated rather than rounded are covered;
* one ``N`` for all, because a value computed from the others (Yoshida's
  ``w0 = 1 - 2 (w1 + w2 + w3)``) can print as a longer decimal than the data it came
  from, and because short values (``0.5``, ``1.0``) and full-precision ones do not show
  their rounding;
* zeros and exact numbers (ints, Rationals, algebraic sympy numbers) have ``delta = 0``.

A residual ``r`` computed from the data (a polynomial in them) is *refuted* only when
``|r| > 2 * bound``, ``bound`` the majorant bound of :meth:`Bounded.bound` (rigorous: no
choice of the data within their uncertainties makes ``r`` vanish, with a factor 2 to
spare); otherwise it is zero *up to the precision of the data*.

>>> significant_digits(0.784513610477560), significant_digits(0.5)
(14, 1)
>>> import mpmath
>>> significant_digits(mpmath.mpf("-1.17767998417887"))      # at any working precision
15
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

import mpmath
import sympy
from mpmath import libmp

__all__ = [
    "SHORT_DIGITS",
    "REFUTATION_FACTOR",
    "significant_digits",
    "container_digits",
    "DataPrecision",
    "data_precision",
    "Bounded",
]

#: values with at most this many significant digits (0.5, 1.0, 0.25) do not show how a
#: table was rounded; they take the precision of the table's other values
SHORT_DIGITS = 3

#: a residual is refuted only when it exceeds this multiple of its majorant bound
REFUTATION_FACTOR = 2


def _mpf_and_bits(x):
    """(mpf tuple, container bits) of an inexact real value, or None for an exact one."""
    if isinstance(x, bool):
        return None
    if isinstance(x, float):
        return libmp.from_float(x), 53
    if isinstance(x, sympy.Float):
        return x._mpf_, int(x._prec)
    if isinstance(x, (sympy.Basic, numbers.Integral, Fraction)):
        return None
    if hasattr(x, "_mpf_"):
        t = x._mpf_
        ctx = getattr(x, "context", mpmath.mp)
        return t, max(int(getattr(ctx, "prec", 53)), t[3])
    return None


def significant_digits(x) -> int | None:
    """Significant digits of the shortest decimal that reproduces ``x`` at its mantissa's precision.

    Parameters
    ----------
    x : float, mpmath.mpf or sympy.Float
        (Exact numbers -- ints, Fractions, sympy Rationals -- give None.)

    Returns
    -------
    int or None
        ``0`` for zero; None for an exact number.

    Notes
    -----
    The test precision is the number of bits of ``x``'s mantissa (trailing zero bits
    stripped), never more than the container's: a value made at 53 bits and held in a
    60-digit container is read at 53 bits, so the container cannot add digits.

    Examples
    --------
    >>> significant_digits(0.1), significant_digits(1 / 3), significant_digits(2.0)
    (1, 16, 1)
    >>> import sympy
    >>> significant_digits(sympy.Float("0.33259913678935943859974864", 60))
    26
    """
    got = _mpf_and_bits(x)
    if got is None:
        return None
    t, _bits = got
    if t == libmp.fzero:
        return 0
    if t in (libmp.finf, libmp.fninf, libmp.fnan):
        raise ValueError(f"significant_digits: {x!r} is not finite")
    bc = max(int(t[3]), 1)
    lo, hi = 1, int(bc * 0.30103) + 3
    # a shorter rounding is also a candidate of the next length (append a zero), so
    # "reproduces" is monotone in the length and a bisection finds the shortest
    while lo < hi:
        mid = (lo + hi) // 2
        if libmp.from_str(libmp.to_str(t, mid), bc, libmp.round_nearest) == t:
            hi = mid
        else:
            lo = mid + 1
    return lo


def container_digits(x) -> int | None:
    """Decimal digits a generic value of ``x``'s container needs (16 for a double); None if exact.

    >>> container_digits(1.5), container_digits(1)
    (16, None)
    """
    got = _mpf_and_bits(x)
    if got is None:
        return None
    return libmp.prec_to_dps(got[1]) + 1


def _exponent(t, n) -> int:
    """The decimal exponent of the ``n``-digit decimal of a nonzero mpf tuple (``d.dd...e E``)."""
    return Decimal(libmp.to_str(t, n)).adjusted()


@dataclass(frozen=True)
class DataPrecision:
    """The uncertainty of each value of a data set (see the module docstring).

    Attributes
    ----------
    values : tuple
        The values, as given.
    deltas : tuple of Fraction
        Absolute uncertainty of each value (0 for exact values and zeros; for a sympy
        expression containing Floats, the majorant bound of its change).
    digits : tuple of int or None
        Significant digits of each value's shortest decimal (None: exact; for an expression,
        the fewest of its Floats).
    table_digits : int or None
        ``N``: every nonzero inexact value is known to one unit in its ``N``-th significant
        digit (None when a relative precision was imposed, or no value is inexact).
    relative : float
        The largest relative uncertainty ``delta / |x|`` (0.0 when all values are exact).
    exact : bool
        True when no value is inexact.
    """

    values: tuple
    deltas: tuple
    digits: tuple
    table_digits: int | None
    relative: float
    exact: bool
    # {identity of an inexact number: delta}, for :meth:`bounded`
    leaf_deltas: dict = field(default=None, compare=False, repr=False)

    def describe(self) -> str:
        """One sentence: how precise the data were taken to be, and why."""
        if self.exact:
            return "all values are exact"
        given = sorted({d for d in self.digits if d})
        if not given:
            return "the inexact values are all zero"
        rng = f"{given[0]}" if len(given) == 1 else f"{given[0]} to {given[-1]}"
        out = (f"the inexact values carry {rng} significant digits (the shortest decimals that reproduce them "
               f"at their binary precision)")
        if self.table_digits is not None:
            out += (f"; all are taken to be known to one unit in their {self.table_digits}th significant digit, "
                    f"the coarsest that shows its rounding")
        else:
            out += "; each is taken to be known to the given relative precision"
        return out + f" (relative precision {self.relative:.0e})"

    @property
    def label(self) -> str:
        """The relative precision as a power of ten at or above it (``"1e-15"``)."""
        if self.exact or self.relative == 0:
            return "0"
        return f"1e{math.ceil(math.log10(self.relative))}"

    def bounded(self, ctx) -> list:
        """Each value as a :class:`Bounded` number of the mpmath context ``ctx``."""
        return [_bounded(ctx, x, self.leaf_deltas or {}) for x in self.values]


def _leaves(x, out: list):
    """The inexact real numbers in a value (itself, its real and imaginary parts, or the
    Floats of a sympy expression)."""
    if isinstance(x, sympy.Basic) and not isinstance(x, sympy.Float):
        out.extend(sorted(x.atoms(sympy.Float), key=sympy.default_sort_key))
    elif isinstance(x, complex) or hasattr(x, "_mpc_"):
        out.extend([x.real, x.imag])
    elif _mpf_and_bits(x) is not None:
        out.append(x)


def data_precision(values, *, relative=None) -> DataPrecision:
    """The uncertainty of each value, by the rule of the module docstring.

    Parameters
    ----------
    values : sequence
        Floats, mpmath numbers, sympy numbers and expressions (their Floats are the inexact
        data), ints, Fractions.
    relative : float, optional
        Override: every inexact number is known to this relative precision.

    Returns
    -------
    DataPrecision

    Examples
    --------
    >>> p = data_precision([-1.17767998417887, 0.235573213359357, 0.78451361047756, 1.3151863206839])
    >>> p.digits, p.table_digits, p.label
    ((15, 15, 14, 14), 14, '1e-13')
    >>> data_precision([0.5, 0.5]).label                   # short values: their container's precision
    '1e-15'
    >>> data_precision([1, sympy.Rational(1, 2)]).exact
    True
    """
    values = tuple(values)
    leaves: list = []
    for x in values:
        _leaves(x, leaves)
    leaf_info = {}
    for x in leaves:
        key = _key(x)
        if key not in leaf_info:
            leaf_info[key] = _leaf_info(x)
    if relative is not None:
        rel = float(relative)
        if not (rel >= 0 and math.isfinite(rel)):
            raise ValueError(f"relative precision must be a finite number >= 0, got {relative!r}")
    nonzero = [info for info in leaf_info.values() if info[0]]
    mids = [n for n, cap, _e, _v in nonzero if SHORT_DIGITS < n < cap]
    if mids:
        N = min(mids)
    elif nonzero:
        N = min(cap for _n, cap, _e, _v in nonzero)
    else:
        N = None
    table = False
    leaf_deltas = {}
    for key, (n, cap, e, v) in leaf_info.items():
        if not n:
            d = Fraction(0)
        elif relative is not None:
            d = Fraction(rel) * abs(v)
        else:
            # one precision for all: a value derived from others (w0 = 1 - 2 (w1 + w2 + w3)) can
            # look like a longer decimal than the data it came from
            table = True
            d = Fraction(10) ** (e + 1 - N)
        leaf_deltas[key] = d
    ctx = mpmath.MPContext()
    ctx.prec = 64 + max([53] + [libmp.dps_to_prec(cap) for (_n, cap, _e, _v) in leaf_info.values()])
    deltas, digits = [], []
    worst = 0.0
    for x in values:
        mine: list = []
        _leaves(x, mine)
        if not mine:
            deltas.append(Fraction(0))
            digits.append(None)
            continue
        ns = [leaf_info[_key(y)][0] for y in mine]
        digits.append(min([k for k in ns if k], default=0))
        b = _bounded(ctx, x, leaf_deltas)
        if _mpf_and_bits(x) is not None:
            d = leaf_deltas[_key(x)]
        else:   # an expression or a complex number: its bound
            d = Fraction(b.d)
        deltas.append(d)
        if d and b.v != 0:
            worst = max(worst, float(d) / float(abs(b.v)))
    if relative is not None and nonzero:
        worst = rel
    return DataPrecision(values, tuple(deltas), tuple(digits), N if table else None, worst,
                         not leaf_info, leaf_deltas)


def _key(x):
    """A hashable identity of an inexact number (its binary value and container)."""
    t, bits = _mpf_and_bits(x)
    return (t, bits)


def _leaf_info(x):
    """(digits, container digits, decimal exponent, exact binary value as a Fraction)."""
    t, bits = _mpf_and_bits(x)
    n = significant_digits(x)
    cap = libmp.prec_to_dps(bits) + 1
    if n == 0:
        return (0, cap, 0, Fraction(0))
    sign, man, exp, _bc = t
    v = Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** (-exp))
    return (n, cap, _exponent(t, n), -v if sign else v)


def _bounded(ctx, x, leaf_deltas):
    """``x`` as a Bounded number: data leaves with their uncertainty, the rest exact."""
    if isinstance(x, sympy.Basic) and not isinstance(x, sympy.Float):
        if not x.has(sympy.Float):
            return Bounded.exact(ctx, _number(ctx, x))
        if x.is_Add:
            out = Bounded.exact(ctx, 0)
            for a in x.args:
                out = out + _bounded(ctx, a, leaf_deltas)
            return out
        if x.is_Mul:
            out = Bounded.exact(ctx, 1)
            for a in x.args:
                out = out * _bounded(ctx, a, leaf_deltas)
            return out
        if x.is_Pow and x.exp.is_Integer and int(x.exp) >= 0:
            return _bounded(ctx, x.base, leaf_deltas) ** int(x.exp)
        # not a polynomial in its Floats: a datum of its own, as precise as its coarsest Float
        rel = Fraction(0)
        for f in x.atoms(sympy.Float):
            n, _cap, _e, v = _leaf_info(f)
            if n:
                rel = max(rel, leaf_deltas.get(_key(f), Fraction(0)) / abs(v))
        v = _number(ctx, x)
        return Bounded.datum(ctx, v, float(abs(v)) * float(rel))
    if isinstance(x, complex) or hasattr(x, "_mpc_"):
        # |y - x| <= delta_re + delta_im: the majorant argument holds for complex data too
        d = leaf_deltas.get(_key(x.real), Fraction(0)) + leaf_deltas.get(_key(x.imag), Fraction(0))
        return Bounded.datum(ctx, ctx.mpc(_to_ctx(ctx, x.real), _to_ctx(ctx, x.imag)), d)
    got = _mpf_and_bits(x)
    if got is None:
        return Bounded.exact(ctx, _number(ctx, x))
    return Bounded.datum(ctx, ctx.make_mpf(got[0]), leaf_deltas.get(_key(x), Fraction(0)))


def _number(ctx, x):
    if isinstance(x, (int, Fraction)):
        return _to_ctx(ctx, x)
    if hasattr(x, "_mpf_"):
        return ctx.make_mpf(x._mpf_)
    dps = libmp.prec_to_dps(ctx.prec) + 5
    re, im = sympy.N(x, dps).as_real_imag()
    re = ctx.make_mpf(sympy.Float(re, dps)._mpf_)
    if im == 0:
        return re
    return ctx.mpc(re, ctx.make_mpf(sympy.Float(im, dps)._mpf_))


# ----------------------------------------------------------------------------------
# Numbers that carry a bound on how far the data's imprecision moves them


class Bounded:
    """A number computed from inexact data, with a majorant bound on its uncertainty.

    It stands for a polynomial ``f`` of the data ``y`` (each datum ``y_k`` with value
    ``x_k`` and uncertainty ``delta_k``), computed by ``+ - *``, integer powers and exact
    constants.  Beside the value ``v ~ f(x)`` (mpmath, at the working precision of the
    context) it carries ``m = F(|x|)`` and ``d = F(|x| + delta) - F(|x|)``, where ``F`` is
    the majorant of ``f`` that the same operations build with absolute values (``f - g`` ->
    ``F + G``, ``c f`` -> ``|c| F``).  Since ``F`` dominates ``f`` coefficient by
    coefficient, ``|f(y) - f(x)| <= d`` for every ``y`` within the uncertainties.  ``m`` and
    ``d`` are sums and products of nonnegative numbers, so they are carried as Python
    floats (relative rounding ``2**-53`` per operation, no cancellation); :meth:`bound`
    inflates ``d`` by ``2**-20`` to cover that, and adds the rounding of ``v``.

    Parameters
    ----------
    ctx : mpmath context
        The working precision (a few dozen bits beyond the data's).
    v : mpmath number
    m, d : float

    Examples
    --------
    >>> import mpmath
    >>> ctx = mpmath.MPContext(); ctx.prec = 120
    >>> a = Bounded.datum(ctx, ctx.mpf("0.5"), 0.01)
    >>> r = a * a - Bounded.exact(ctx, ctx.mpf("0.25"))
    >>> r.refuted(), abs(r.v) <= r.bound()
    (False, True)
    >>> (a * a * 4 - Bounded.exact(ctx, 2)).refuted()         # 4 a^2 - 2 = -1 +- 0.0804
    True
    """

    __slots__ = ("ctx", "d", "m", "v")

    def __init__(self, ctx, v, m, d):
        self.ctx = ctx
        self.v = v
        self.m = m
        self.d = d

    @classmethod
    def datum(cls, ctx, value, delta):
        """An input value with absolute uncertainty ``delta`` (a number >= 0)."""
        v = _to_ctx(ctx, value)
        return cls(ctx, v, float(abs(v)), float(delta))

    @classmethod
    def exact(cls, ctx, value):
        """An exact constant (rounded to the working precision; the rounding is in the slack)."""
        v = _to_ctx(ctx, value)
        return cls(ctx, v, float(abs(v)), 0.0)

    def _lift(self, other):
        if isinstance(other, (int, Fraction)) or hasattr(other, "_mpf_") or hasattr(other, "_mpc_"):
            return Bounded.exact(self.ctx, other)
        return None

    def __add__(self, o):
        if not isinstance(o, Bounded):
            o = self._lift(o)
            if o is None:
                return NotImplemented
        return Bounded(self.ctx, self.v + o.v, self.m + o.m, self.d + o.d)

    __radd__ = __add__

    def __sub__(self, o):
        if not isinstance(o, Bounded):
            o = self._lift(o)
            if o is None:
                return NotImplemented
        return Bounded(self.ctx, self.v - o.v, self.m + o.m, self.d + o.d)

    def __rsub__(self, other):
        o = self._lift(other)
        if o is None:
            return NotImplemented
        return o - self

    def __neg__(self):
        return Bounded(self.ctx, -self.v, self.m, self.d)

    def __mul__(self, o):
        if not isinstance(o, Bounded):
            o = self._lift(o)
            if o is None:
                return NotImplemented
        # (m + d)(m' + d') - m m'
        return Bounded(self.ctx, self.v * o.v, self.m * o.m, self.m * o.d + self.d * (o.m + o.d))

    __rmul__ = __mul__

    def __truediv__(self, other):
        # only exact constants: 1/y is not a polynomial, its majorant would not be valid
        if isinstance(other, Bounded):
            if other.d:
                raise TypeError("Bounded: division by an inexact number has no majorant bound")
            other = other.v
        if isinstance(other, (int, Fraction)) or hasattr(other, "_mpf_"):
            c = _to_ctx(self.ctx, other)
            if c == 0:
                raise ZeroDivisionError("Bounded: division by zero")
            a = float(abs(c))
            return Bounded(self.ctx, self.v / c, self.m / a, self.d / a)
        return NotImplemented

    def __pow__(self, k):
        if not isinstance(k, int) or k < 0:
            return NotImplemented
        out = Bounded.exact(self.ctx, 1)
        base = self
        while k:
            if k & 1:
                out = out * base
            k >>= 1
            if k:
                base = base * base
        return out

    def __bool__(self):
        # false only for an exact zero (no value and no uncertainty), so skipping it loses nothing
        return not (self.v == 0 and self.d == 0 and self.m == 0)

    def bound(self):
        """The largest change of the value over the data's uncertainties, plus rounding slack (mpf)."""
        ctx = self.ctx
        d = ctx.mpf(self.d) * (1 + ctx.ldexp(ctx.one, -20))
        return d + ctx.mpf(self.m + self.d) * ctx.ldexp(ctx.one, -(ctx.prec - 30))

    def refuted(self) -> bool:
        """True when the value cannot vanish for any data within their uncertainties (with room)."""
        return abs(self.v) > REFUTATION_FACTOR * self.bound()

    def __repr__(self):
        return f"Bounded({mpmath.nstr(self.v, 8)} +- {mpmath.nstr(self.bound(), 3)})"


def _to_ctx(ctx, x):
    if hasattr(x, "_mpf_"):
        return ctx.make_mpf(x._mpf_)
    if hasattr(x, "_mpc_"):
        return ctx.make_mpc(x._mpc_)
    if isinstance(x, Fraction):
        return ctx.mpf(x.numerator) / x.denominator
    if isinstance(x, sympy.Float):
        return ctx.make_mpf(x._mpf_)
    if isinstance(x, sympy.Rational):
        return ctx.mpf(int(x.p)) / int(x.q)
    return ctx.mpf(x)
