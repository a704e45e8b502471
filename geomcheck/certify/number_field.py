"""Exact arithmetic in a number field ``Q(theta)``, for algebraic coefficients.

The entries of a Runge-Kutta tableau (:mod:`geomcheck.certify.tableaux`,
:mod:`geomcheck.certify.families`) and the coefficients of a composition method
(:mod:`geomcheck.certify.compositions`) are often algebraic numbers: radicals
(``sqrt(3)``, ``2**(1/3)``), ``I``, ``CRootOf``, ``AlgebraicNumber``, or ``cos``, ``sin``,
``tan`` of rational multiples of ``pi`` (the ``cos(pi/18)`` of the 3-stage SDIRK of order
4).  Their order conditions are polynomials in them, and such a condition is *proved* zero,
not found small, by computing in the number field they generate:

* :func:`algebraic_generators` collects the generators of some sympy expressions (or
  raises :class:`~geomcheck.errors.NotAlgebraic`); :func:`degree_bound` bounds the degree
  of their field before it is built;
* :meth:`NumberField.from_generators` builds ``Q(theta)``, ``theta`` a primitive element
  with monic minimal polynomial ``g`` of degree ``d``, and the image of every generator;
  :meth:`NumberField.convert` reads a sympy expression in the generators into the field
  and :meth:`NumberField.to_sympy` writes an element back;
* an element (:class:`FieldElement`) is ``sum_k c_k theta**k`` over ``k < d``, its
  rational coordinates ``c_k`` stored as integer numerators over one positive denominator.
  The powers of ``theta`` below ``d`` are a basis and ``g`` is irreducible, so an element
  is zero exactly when every numerator is: a decision, not an estimate.

The numerators are a sparse dict because the coefficients of compositions built by triple
jumps are monomials in radicals: ``2**(1/3)``, ``2**(1/5)`` and ``2**(1/7)`` generate a
field of degree 105 in which each is one power of ``theta = 2**(1/105)``, and a product of
monomials stays one.  Radicals of one positive rational ``b`` get that ``theta = b**(1/N)``
and ``g = x**N - b`` directly (irreducible by Capelli's theorem, since ``b`` is checked to
be no ``p``-th power for a prime ``p`` dividing ``N``).  Other generators go through
sympy's ``primitive_element``; ``theta`` is then scaled so that ``g`` has integer
coefficients (reducing modulo ``g`` needs no fractions), and each generator's image is
checked numerically once.  Elements print in a basis of monomials of the generators
(``1, sqrt(2), sqrt(3), sqrt(6)`` rather than powers of ``sqrt(2) + sqrt(3)``).

Examples
--------
>>> import sympy
>>> from geomcheck.certify.number_field import NumberField, algebraic_generators
>>> r2, r3 = sympy.sqrt(2), sympy.sqrt(3)
>>> K = NumberField.from_generators(algebraic_generators([r2 + r3]))
>>> K.name, K.degree
('Q(sqrt(2), sqrt(3))', 4)
>>> x = K.convert(r2 + r3)
>>> K.to_sympy(x * x), K.to_sympy(1 / x)
(2*sqrt(6) + 5, -sqrt(2) + sqrt(3))
>>> K.convert(r2) * K.convert(r3) == (x * x - 5) / 2
True
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Iterable

import mpmath
import sympy

from ..errors import InvalidArgumentError, NotAlgebraic
from ..latex import expression_size

__all__ = ["NumberField", "FieldElement", "NotAlgebraic", "algebraic_generators", "degree_bound"]


# =====================================================================================
# Generators


#: trigonometric functions whose values at rational multiples of pi are algebraic numbers that
#: sympy's minimal_polynomial (hence primitive_element) handles
_TRIG = (sympy.cos, sympy.sin, sympy.tan)


def _trig_multiple(e):
    """``r`` when ``e`` is cos, sin or tan of ``r pi`` with ``r`` rational, else None."""
    if isinstance(e, _TRIG) and len(e.args) == 1:
        r = e.args[0] / sympy.pi
        if r.is_Rational:
            return r
    return None


def _collect(e, out: set) -> None:
    """Add the algebraic generators of the numeric sympy expression ``e`` to ``out`` (or raise)."""
    if e.is_Rational:
        return
    if e is sympy.S.ImaginaryUnit or isinstance(e, (sympy.CRootOf, sympy.AlgebraicNumber)):
        out.add(e)
        return
    if _trig_multiple(e) is not None:
        out.add(e)
        return
    if e.is_Add or e.is_Mul:
        for a in e.args:
            _collect(a, out)
        return
    if e.is_Pow and e.exp.is_Integer:
        _collect(e.base, out)
        return
    if e.is_Pow and e.exp.is_Rational and e.base.is_number:
        # the radicals inside a nested one are generators too: they give a readable printing basis
        _collect(e.base, out)
        out.add(sympy.Pow(e.base, sympy.Rational(1, e.exp.q)))
        return
    raise NotAlgebraic(e)


def _generator_key(g):
    return (expression_size(g, 200), sympy.default_sort_key(g))


def algebraic_generators(exprs: Iterable[sympy.Expr]) -> tuple:
    """The algebraic numbers that generate some numeric sympy expressions over the rationals.

    A radical ``b**(p/q)`` contributes ``b**(1/q)`` (and the generators of ``b``); ``I``,
    ``CRootOf``, ``AlgebraicNumber`` and ``cos``, ``sin``, ``tan`` of rational multiples of
    ``pi`` are generators themselves; sums, products and integer powers contribute those of
    their parts.

    Parameters
    ----------
    exprs : iterable of sympy expressions
        Numbers (no free symbols).

    Returns
    -------
    tuple
        The generators, smallest first (a canonical order: equal sets give equal tuples).

    Raises
    ------
    NotAlgebraic
        Some part is not recognizably algebraic (``pi``, ``E``, ``cos(1)``, a Float ...).

    Examples
    --------
    >>> import sympy
    >>> algebraic_generators([sympy.sqrt(2) / 3 + sympy.cos(sympy.pi / 9), sympy.Integer(2) ** sympy.Rational(2, 3)])
    (2**(1/3), sqrt(2), cos(pi/9))
    >>> algebraic_generators([sympy.pi])
    Traceback (most recent call last):
        ...
    geomcheck.errors.NotAlgebraic: pi is not recognizably an algebraic number (a radical, I, a CRootOf, an AlgebraicNumber, or cos, sin, tan of a rational multiple of pi)
    """
    found: set = set()
    for e in exprs:
        _collect(e, found)
    return tuple(sorted(found, key=_generator_key))


def _trig_degree_bound(e) -> int:
    """An upper bound for the degree of cos/sin/tan(r pi) over the rationals.

    ``cos(2 pi k / n)`` with ``gcd(k, n) = 1`` has degree ``phi(n)/2`` (``n >= 3``); sin is
    cos at ``1/2 - r``; tan lies in ``Q(zeta_n, i)``, of degree at most ``phi(lcm(n, 4))``.
    """
    r = _trig_multiple(e)
    if isinstance(e, sympy.sin):
        r = sympy.Rational(1, 2) - r
    n = int((r / 2).q)                      # cos(r pi) = cos(2 pi (r/2)): the order of the root of unity
    if isinstance(e, sympy.tan):
        return int(sympy.totient(math.lcm(int((r / 2).q), 4)))
    return max(1, int(sympy.totient(n)) // 2) if n >= 3 else 1


def _radical_degree_bound(g) -> int:
    """An upper bound for the degree of ``base**(1/q)`` over the rationals."""
    q = int(g.exp.q)
    if g.base.is_Rational:
        return q
    inner: set = set()
    _collect(g.base, inner)
    return q * degree_bound(inner)


def _generator_degree_bound(g) -> int:
    if g is sympy.S.ImaginaryUnit:
        return 2
    if isinstance(g, sympy.CRootOf):
        return g.poly.degree()
    if isinstance(g, sympy.Pow):
        return _radical_degree_bound(g)
    if _trig_multiple(g) is not None:
        return _trig_degree_bound(g)
    return 8   # an AlgebraicNumber: no cheap bound; a guess that keeps small fields buildable


def degree_bound(generators: Iterable[sympy.Expr]) -> int:
    """An upper bound for the degree of the field the generators generate: the product of theirs.

    Cheap (no minimal polynomial is computed), so a caller can refuse a field too large to be
    worth building before building it.

    >>> import sympy
    >>> degree_bound([sympy.sqrt(2), sympy.Integer(3) ** sympy.Rational(1, 3), sympy.cos(sympy.pi / 9)])
    18
    >>> two = sympy.Integer(2)                   # radicals of one rational: the lcm, not the product
    >>> degree_bound([two ** sympy.Rational(1, 15), two ** sympy.Rational(1, 5), two ** sympy.Rational(1, 3)])
    15
    """
    generators = list(generators)
    one_base = _one_radical_base(generators)
    if one_base is not None:
        return one_base[1]          # Q(b**(1/N)), of degree N, holds every b**(1/q) with q | N
    bound = 1
    for g in generators:
        bound *= _generator_degree_bound(g)
    return bound


# =====================================================================================
# Elements


def _normalized(field, den, nums):
    """The element ``nums / den`` (``den > 0``, no zero in ``nums``) without common factors."""
    g = den
    for v in nums.values():
        g = math.gcd(g, v)
        if g == 1:
            return FieldElement(field, den, nums)
    if not nums:
        return FieldElement(field, 1, nums)
    return FieldElement(field, den // g, {k: v // g for k, v in nums.items()})


class FieldElement:
    """An element ``(sum_k numerators[k] theta**k) / denominator`` of a :class:`NumberField`.

    Kept normalized -- ``denominator > 0``, no zero numerator stored, no factor common to the
    denominator and every numerator -- so that equal elements hold equal data.  Exact
    ``+ - * / **`` with elements of the same field, ints and Fractions; true exactly when
    nonzero.  Immutable.

    Attributes
    ----------
    field : NumberField
    denominator : int
    numerators : dict
        ``{k: integer numerator of the coordinate of theta**k}``, nonzero ones only.
    """

    __slots__ = ("field", "denominator", "numerators", "_inverse")

    def __init__(self, field: NumberField, denominator: int, numerators: dict):
        self.field = field
        self.denominator = denominator
        self.numerators = numerators
        self._inverse = None

    def coordinates(self) -> list:
        """The rational coordinates in the basis ``1, theta, ..., theta**(d - 1)`` (length d)."""
        return [Fraction(self.numerators.get(k, 0), self.denominator) for k in range(self.field.degree)]

    def inverse(self) -> FieldElement:
        """``1 / self`` (remembered: elements are immutable)."""
        if self._inverse is None:
            self._inverse = self.field.inverse(self)
        return self._inverse

    def _same_field(self, other):
        """``other`` as an element of this field, or None when it is no number this field holds."""
        if isinstance(other, FieldElement):
            if other.field is not self.field:
                raise InvalidArgumentError(f"elements of two different number fields ({self.field.name} and "
                                           f"{other.field.name}) cannot be combined")
            return other
        if isinstance(other, (int, Fraction)):
            return self.field.constant(other)
        return None

    def __add__(self, other):
        if other.__class__ is FieldElement and other.field is self.field:
            o = other
        elif isinstance(other, int):
            # the constant coordinate moves by a multiple of the denominator: no new common factor
            nums = dict(self.numerators)
            c = nums.get(0, 0) + other * self.denominator
            if c:
                nums[0] = c
            else:
                nums.pop(0, None)
            return FieldElement(self.field, self.denominator if nums else 1, nums)
        else:
            o = self._same_field(other)
            if o is None:
                return NotImplemented
        da, na = self.denominator, self.numerators
        db, nb = o.denominator, o.numerators
        if not nb:
            return self
        if not na:
            return o
        if da == db:
            r = dict(na)
            for k, v in nb.items():
                s = r.get(k, 0) + v
                if s:
                    r[k] = s
                else:
                    del r[k]
            return _normalized(self.field, da, r)
        g = math.gcd(da, db)
        fa, fb = db // g, da // g
        r = {k: v * fa for k, v in na.items()}
        for k, v in nb.items():
            s = r.get(k, 0) + v * fb
            if s:
                r[k] = s
            else:
                del r[k]
        return _normalized(self.field, da * fa, r)

    __radd__ = __add__

    def __neg__(self):
        return FieldElement(self.field, self.denominator, {k: -v for k, v in self.numerators.items()})

    def __pos__(self):
        return self

    def __sub__(self, other):
        o = self._same_field(other)
        if o is None:
            return NotImplemented
        return self + (-o)

    def __rsub__(self, other):
        return (-self) + other

    def _scaled(self, p: int, q: int):
        """``self * p / q`` for integers ``p`` and ``q > 0``."""
        if not p or not self.numerators:
            return self.field.zero
        return _normalized(self.field, self.denominator * q, {k: v * p for k, v in self.numerators.items()})

    def __mul__(self, other):
        if other.__class__ is FieldElement and other.field is self.field:
            return self.field.multiply(self, other)
        if isinstance(other, int):
            return self._scaled(other, 1)
        if isinstance(other, Fraction):
            return self._scaled(other.numerator, other.denominator)
        o = self._same_field(other)
        if o is None:
            return NotImplemented
        return self.field.multiply(self, o)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, (int, Fraction)):
            if not other:
                raise ZeroDivisionError("division by zero in a number field")
            q = Fraction(other)
            if q < 0:
                return self._scaled(-q.denominator, -q.numerator)
            return self._scaled(q.denominator, q.numerator)
        o = self._same_field(other)
        if o is None:
            return NotImplemented
        return self.field.multiply(self, o.inverse())

    def __rtruediv__(self, other):
        o = self._same_field(other)
        if o is None:
            return NotImplemented
        return self.field.multiply(o, self.inverse())

    def __pow__(self, k):
        if not isinstance(k, int):
            return NotImplemented
        if k < 0:
            return self.inverse() ** (-k)
        result, base = self.field.one, self
        while k:
            if k & 1:
                result = self.field.multiply(result, base)
            k >>= 1
            if k:
                base = self.field.multiply(base, base)
        return result

    def __bool__(self):
        return bool(self.numerators)

    def __eq__(self, other):
        if isinstance(other, FieldElement) and other.field is not self.field:
            return False
        o = self._same_field(other)
        if o is None:
            return NotImplemented
        return self.denominator == o.denominator and self.numerators == o.numerators

    def __hash__(self):
        nums = self.numerators
        if not nums.keys() - {0}:
            # a rational element hashes like the int or Fraction it equals
            return hash(Fraction(nums.get(0, 0), self.denominator))
        return hash((self.denominator, frozenset(nums.items())))

    def __repr__(self):
        return f"FieldElement({sympy.sstr(self.field.to_sympy(self))} in {self.field.name})"


# =====================================================================================
# The field


def _fraction(c) -> Fraction:
    """A rational number (int, Fraction, sympy Rational or sympy domain element) as a Fraction."""
    if isinstance(c, sympy.Basic):
        return Fraction(int(c.p), int(c.q))
    return Fraction(int(c.numerator), int(c.denominator))


def _trimmed(p: list) -> list:
    while p and not p[-1]:
        p.pop()
    return p


def _polynomial_inverse(f: list, g: list) -> list:
    """``u`` with ``u f = 1`` modulo ``g`` (Fractions, lowest degree first; f, g coprime).

    The extended Euclidean algorithm: every remainder ``r`` comes with the ``s`` for which
    ``r = s f`` modulo ``g``, until a constant remainder is reached.
    """
    r0, r1 = list(g), _trimmed(list(f))
    s0, s1 = [], [Fraction(1)]
    while len(r1) > 1:
        # r0 = q r1 + r, then s for r is s0 - q s1
        r, lead = list(r0), r1[-1]
        q = [Fraction(0)] * (len(r0) - len(r1) + 1)
        while len(r) >= len(r1):
            c = r[-1] / lead
            shift = len(r) - len(r1)
            q[shift] = c
            for i, x in enumerate(r1):
                r[shift + i] -= c * x
            r.pop()
            _trimmed(r)
        s = list(s0) + [Fraction(0)] * max(0, len(q) + len(s1) - 1 - len(s0))
        for i, x in enumerate(q):
            if x:
                for j, y in enumerate(s1):
                    s[i + j] -= x * y
        r0, r1, s0, s1 = r1, r, s1, _trimmed(s)
    if not r1:
        raise InvalidArgumentError("the minimal polynomial of the number field is reducible: an element "
                                   "shares a factor with it")
    return [x / r1[0] for x in s1]


def _exponent_tuples(total: int, parts: int):
    """Every tuple of ``parts`` nonnegative integers summing to ``total``, first entries largest first."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in _exponent_tuples(total - first, parts - 1):
            yield (first,) + rest


def _echelon_add(rows: list, v: list) -> bool:
    """Add ``v`` to the echelon ``rows`` ((pivot, row) pairs) when it is independent of them."""
    v = list(v)
    for pivot, row in rows:
        if v[pivot]:
            f = v[pivot]
            v = [a - f * b for a, b in zip(v, row)]
    for i, x in enumerate(v):
        if x:
            rows.append((i, [y / x for y in v]))
            return True
    return False


def _integral_scale(fi: list) -> int:
    """The smallest ``m`` with ``m**(d-k) f_k / f_d`` integral for every k (``fi`` integers, high first)."""
    d = len(fi) - 1
    lead = abs(fi[0])
    if lead == 1:
        return 1
    m = 1
    for p, e in sympy.factorint(lead).items():
        need = 0
        for k in range(d):           # the coefficient of x**k is fi[d - k]
            c = fi[d - k]
            if c == 0:
                continue
            v = 0
            while c % p == 0:
                c //= p
                v += 1
            if v < e:
                need = max(need, -(-(e - v) // (d - k)))
        m *= p ** need
    return m


def _is_power(b: Fraction, p: int) -> bool:
    """Whether the positive rational ``b`` is the ``p``-th power of a rational."""
    return sympy.integer_nthroot(b.numerator, p)[1] and sympy.integer_nthroot(b.denominator, p)[1]


def _one_radical_base(generators) -> tuple | None:
    """``(b, N)`` when every generator is ``b**(1/q)`` for one positive rational ``b`` and
    ``x**N - b`` (``N`` the lcm of the ``q``) is irreducible, else None."""
    if not generators or not all(g.is_Pow and g.exp.is_Rational and g.exp.p == 1 for g in generators):
        return None
    bases = {g.base for g in generators}
    if len(bases) != 1:
        return None
    b = bases.pop()
    if not (b.is_Rational and b > 0):
        return None
    N = math.lcm(*[int(g.exp.q) for g in generators])
    b = _fraction(b)
    # Capelli: x**N - b is irreducible unless b is a p-th power for a prime p | N (b > 0 rules
    # out the other case, b = -4 c**4 with 4 | N)
    if any(_is_power(b, int(p)) for p in sympy.primefactors(N)):
        return None
    return b, N


def _mp_number(ctx, value):
    """A numeric sympy value (real or complex) as an mpmath number of ``ctx``."""
    re, im = value.as_real_imag()
    re = ctx.make_mpf(sympy.Float(re, int(ctx.dps) + 5)._mpf_)
    if im == 0:
        return re
    return ctx.mpc(re, ctx.make_mpf(sympy.Float(im, int(ctx.dps) + 5)._mpf_))


class NumberField:
    """``Q(theta) = Q[x] / (g)``: exact arithmetic with the algebraic numbers of one field.

    Usually built by :meth:`from_generators`; the constructor takes a primitive element and
    its minimal polynomial directly.

    Parameters
    ----------
    theta : sympy expression
        The primitive element, an algebraic number.
    minpoly : sequence of rationals
        The minimal polynomial ``g`` of ``theta``, lowest degree first, monic (the last
        entry is 1).  It must be irreducible: elements are decided zero by their
        coordinates, which is sound only in a field.

    Attributes
    ----------
    theta : sympy expression
    minpoly : tuple of Fraction
        ``g``, lowest degree first.
    degree : int
        ``d``, the degree of ``g``.
    generators : tuple
        The algebraic numbers the field was built from (``(theta,)`` when built from theta).
    images : dict
        ``{generator: FieldElement}``, read by :meth:`convert`.
    name : str
        ``"Q(generators)"``, or ``"Q"`` for the rationals.
    zero, one : FieldElement

    Examples
    --------
    >>> import sympy
    >>> from fractions import Fraction
    >>> K = NumberField(sympy.Integer(2) ** sympy.Rational(1, 3), [-2, 0, 0, 1])   # theta**3 = 2
    >>> t = K.element([0, 1])
    >>> t ** 3 == 2, K.to_sympy(t ** 4), K.to_sympy(t / 2 + Fraction(1, 3))
    (True, 2*2**(1/3), 1/3 + 2**(1/3)/2)
    >>> K.to_sympy(1 / (1 + t))
    -2**(1/3)/3 + 1/3 + 2**(2/3)/3
    """

    def __init__(self, theta: sympy.Expr, minpoly: Iterable):
        coefficients = tuple(_fraction(c) for c in minpoly)
        if len(coefficients) < 2 or coefficients[-1] != 1:
            raise InvalidArgumentError(f"the minimal polynomial of a number field must be monic of degree >= 1, "
                                       f"lowest degree first; got {list(map(str, coefficients))}")
        self.theta = sympy.sympify(theta)
        self.minpoly = coefficients
        self.degree = d = len(coefficients) - 1
        self.zero = FieldElement(self, 1, {})
        self.one = FieldElement(self, 1, {0: 1})
        self.generators: tuple = (self.theta,) if d > 1 else ()
        self.images: dict = {self.theta: self.element([0, 1])} if d > 1 else {}
        self.name = f"Q({sympy.sstr(self.theta)})" if d > 1 else "Q"
        # x**(d + j) modulo g for j = 0 .. d - 2, over one common denominator: a product of two
        # elements has degree <= 2d - 2 and is reduced with one pass over these rows
        rows, current = [], {k: -c for k, c in enumerate(coefficients[:-1]) if c}
        for _ in range(d - 1):
            rows.append(current)
            shifted = {k + 1: c for k, c in current.items() if k + 1 < d}
            top = current.get(d - 1, 0)
            if top:
                for k, c in enumerate(coefficients[:-1]):
                    if c:
                        shifted[k] = shifted.get(k, 0) - top * c
            current = {k: c for k, c in shifted.items() if c}
        self._reduction_denominator = H = math.lcm(1, *[c.denominator for row in rows for c in row.values()])
        self._reduction_rows = [[(k, int(c * H)) for k, c in sorted(row.items())] for row in rows]
        #: generators whose monomials are the printing basis (None: print in powers of theta)
        self._printing_generators: tuple | None = None
        self._converted: dict = {}
        self._printed: dict = {}
        self._theta_values: dict = {}

    def __repr__(self):
        return f"NumberField({self.name}, degree {self.degree})"

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_generators(cls, generators: Iterable[sympy.Expr]) -> NumberField:
        """The field generated by some algebraic numbers (see :func:`algebraic_generators`).

        Radicals of one positive rational ``b`` give ``theta = b**(1/N)``; anything else a
        primitive element from sympy's ``primitive_element``, scaled to an algebraic
        integer, with every generator's image checked numerically to 40 digits.

        Parameters
        ----------
        generators : iterable of sympy expressions
            Algebraic numbers; none gives the rationals (degree 1).

        Examples
        --------
        >>> import sympy
        >>> K = NumberField.from_generators([sympy.Integer(2) ** sympy.Rational(1, 3), sympy.sqrt(2)])
        >>> K.theta, K.degree
        (2**(1/6), 6)
        >>> K.to_sympy(K.convert(sympy.sqrt(2)) * K.convert(2 ** sympy.Rational(1, 3)))
        2**(5/6)
        """
        gens = tuple(generators)
        if not gens:
            return cls(sympy.S.Zero, [0, 1])
        radical = _one_radical_base(gens)
        if radical is not None:
            # named by theta = b**(1/N): every generator is a power of it
            b, N = radical
            K = cls(sympy.Rational(b.numerator, b.denominator) ** sympy.Rational(1, N), [-b] + [0] * (N - 1) + [1])
            images = {g: K.element({N // int(g.exp.q): 1}) for g in gens}
        else:
            K, images = cls._by_primitive_element(gens)
            K._printing_generators = gens
            K.name = "Q(" + ", ".join(sympy.sstr(g) for g in gens) + ")"
        K.generators = gens
        K.images = images
        return K

    @classmethod
    def _by_primitive_element(cls, gens):
        from sympy.polys.numberfields.subfield import primitive_element

        t = sympy.Dummy("t")
        f, coeffs, reps = primitive_element(list(gens), t, ex=True, polys=True)
        fc = [_fraction(x) for x in f.all_coeffs()]                   # highest degree first
        den = math.lcm(*(x.denominator for x in fc))
        fi = [int(x * den) for x in fc]
        content = math.gcd(*fi)
        fi = [x // content for x in fi]
        if fi[0] < 0:
            fi = [-x for x in fi]
        d = len(fi) - 1
        # g(y) = m**d f(y/m) / lead is monic with integer coefficients: theta = m * (the primitive element)
        m = _integral_scale(fi)
        lead = fi[0]
        g_low = [fi[d - k] * m ** (d - k) // lead for k in range(d)]
        theta = sympy.Mul(m, sympy.Add(*[sympy.Integer(int(c)) * gen for c, gen in zip(coeffs, gens)]))
        K = cls(theta, g_low + [1])
        images = {}
        for gen, rep in zip(gens, reps):
            h = [_fraction(x) for x in rep]
            h = [Fraction(0)] * (d - len(h)) + h                          # highest first, length d
            images[gen] = K.element([h[d - 1 - k] / Fraction(m) ** k for k in range(d)])
        K._check_images(images)
        return K, images

    def _check_images(self, images) -> None:
        """Each generator's image, evaluated at theta to 60 digits, is the generator."""
        ctx = mpmath.MPContext()
        ctx.dps = 60
        theta = _mp_number(ctx, sympy.N(self.theta, 70))
        for gen, image in images.items():
            terms = [ctx.mpf(v) / image.denominator * theta ** k for k, v in image.numerators.items()]
            value = ctx.fsum(terms)
            scale = ctx.fsum(abs(t) for t in terms)
            reference = _mp_number(ctx, sympy.N(gen, 70))
            if abs(value - reference) > ctx.mpf(10) ** -40 * (1 + scale + abs(reference)):  # pragma: no cover
                raise AssertionError(f"number field construction failed for {gen}")  # a sympy bug

    # ------------------------------------------------------------------ elements

    def element(self, coordinates) -> FieldElement:
        """The element with the given rational coordinates in ``1, theta, ..., theta**(d-1)``.

        ``coordinates`` is a sequence (lowest power first) or a dict ``{power: coordinate}``.
        """
        items = coordinates.items() if isinstance(coordinates, dict) else enumerate(coordinates)
        values = {k: _fraction(c) for k, c in items if c}
        if any(not 0 <= k < self.degree for k in values):
            raise InvalidArgumentError(f"{self.name} has degree {self.degree}: coordinates of theta**k exist for "
                                       f"0 <= k < {self.degree} only, got {sorted(values)}")
        den = math.lcm(1, *(c.denominator for c in values.values()))
        return _normalized(self, den, {k: int(c * den) for k, c in values.items()})

    def constant(self, q) -> FieldElement:
        """The rational number ``q`` (int, Fraction or sympy Rational) as an element."""
        q = _fraction(q) if not isinstance(q, int) else Fraction(q)
        return FieldElement(self, q.denominator, {0: q.numerator}) if q else self.zero

    def multiply(self, a: FieldElement, b: FieldElement) -> FieldElement:
        """``a * b``: the product of the polynomials in theta, reduced modulo the minimal polynomial."""
        na, nb = a.numerators, b.numerators
        if not na or not nb:
            return self.zero
        d = self.degree
        prod = [0] * (2 * d - 1)
        for i, x in na.items():
            for j, y in nb.items():
                prod[i + j] += x * y
        return self._reduce(a.denominator * b.denominator, prod)

    def _reduce(self, den: int, prod: list) -> FieldElement:
        """The element ``sum_k prod[k] theta**k / den`` for a list of length ``2d - 1``."""
        d = self.degree
        H = self._reduction_denominator
        out = prod[:d] if H == 1 else [v * H for v in prod[:d]]
        for k in range(d, 2 * d - 1):
            c = prod[k]
            if c:
                for j, h in self._reduction_rows[k - d]:
                    out[j] += c * h
        return _normalized(self, den * H, {k: v for k, v in enumerate(out) if v})

    def inverse(self, a: FieldElement) -> FieldElement:
        """``1 / a``, by the extended Euclidean algorithm for ``a`` (as a polynomial) and g."""
        nums = a.numerators
        if not nums:
            raise ZeroDivisionError("division by zero in a number field")
        if not nums.keys() - {0}:
            return self.constant(Fraction(a.denominator, nums[0]))
        u = _polynomial_inverse(a.coordinates(), list(self.minpoly))
        return self.element(u)

    # ------------------------------------------------------------------ sympy and mpmath

    def convert(self, e: sympy.Expr) -> FieldElement:
        """The element equal to the sympy number ``e``, built from the images of the generators.

        ``e`` must be written in the generators: rationals, generators and their powers,
        sums and products (as the expressions the generators were collected from are).

        Raises
        ------
        NotAlgebraic
            ``e`` involves something else (``sqrt(6)`` in ``Q(sqrt(2), sqrt(3))`` too:
            it is in the field, but not written in its generators).
        """
        hit = self._converted.get(e)
        if hit is not None:
            return hit
        if e.is_Rational:
            r = self.constant(e)
        elif e in self.images:
            r = self.images[e]
        elif e.is_Add:
            r = self.zero
            for a in e.args:
                r = r + self.convert(a)
        elif e.is_Mul:
            r = self.one
            for a in e.args:
                r = self.multiply(r, self.convert(a))
        elif e.is_Pow and e.exp.is_Integer:
            r = self.convert(e.base) ** int(e.exp)
        elif e.is_Pow and e.exp.is_Rational:
            generator = sympy.Pow(e.base, sympy.Rational(1, e.exp.q))
            if generator not in self.images:
                self._refuse(e)
            r = self.images[generator] ** int(e.exp.p)
        else:
            self._refuse(e)
        self._converted[e] = r
        return r

    def _refuse(self, e):
        """Raise NotAlgebraic for ``e``, saying whether it is not algebraic or only not in the generators."""
        _collect(e, set())
        raise NotAlgebraic(e, f"is not written in the generators of {self.name}")

    @functools.cached_property
    def _printing_basis(self):
        """``(monomials, matrix)``: a basis of monomials in the generators, increasing total
        degree, and the matrix taking theta-coordinates to coordinates in it."""
        d, gens = self.degree, self._printing_generators
        rows: list = []
        basis, vectors = [], []
        for total in range(0, d * len(gens) + 1):
            for exponents in _exponent_tuples(total, len(gens)):
                if any(e >= d for e in exponents):
                    continue
                el = self.one
                for gen, e in zip(gens, exponents):
                    if e:
                        el = el * self.images[gen] ** e
                v = el.coordinates()
                if _echelon_add(rows, v):
                    basis.append(sympy.Mul(*[gen ** e for gen, e in zip(gens, exponents) if e]))
                    vectors.append(v)
                    if len(basis) == d:
                        break
            if len(basis) == d:
                break
        from sympy.polys.matrices import DomainMatrix

        QQ = sympy.QQ
        B = DomainMatrix([[QQ(vectors[k][i].numerator, vectors[k][i].denominator) for k in range(d)]
                          for i in range(d)], (d, d), QQ)
        inverse = B.inv().to_list()
        return basis, [[_fraction(x) for x in row] for row in inverse]

    def to_sympy(self, a: FieldElement) -> sympy.Expr:
        """``a`` as a sympy number: in monomials of the generators, or in powers of theta."""
        hit = self._printed.get(a)
        if hit is not None:
            return hit
        den, nums = a.denominator, a.numerators
        if not nums:
            r = sympy.S.Zero
        elif self._printing_generators is None:
            r = sympy.Add(*[sympy.Rational(v, den) * self.theta ** k for k, v in sorted(nums.items())])
        else:
            basis, matrix = self._printing_basis
            terms = []
            for row, monomial in zip(matrix, basis):
                c = sum((row[k] * v for k, v in nums.items()), Fraction(0)) / den
                if c:
                    terms.append(sympy.Rational(c.numerator, c.denominator) * monomial)
            r = sympy.Add(*terms)
        self._printed[a] = r
        return r

    def evaluate(self, a: FieldElement, ctx) -> object:
        """The value of ``a`` as an mpmath number of the context ``ctx`` (complex when theta is)."""
        t = self._theta_values.get(ctx.prec)
        if t is None:
            t = self._theta_values[ctx.prec] = _mp_number(ctx, sympy.N(self.theta, int(ctx.dps) + 10))
        if not a.numerators:
            return ctx.zero
        return ctx.fsum(ctx.mpf(v) * t ** k for k, v in a.numerators.items()) / a.denominator

    def describe(self) -> str:
        """One sentence on the arithmetic, for certificates."""
        if self.degree == 1:
            return "exact rational arithmetic"
        return (f"exact arithmetic in the number field {self.name} of degree {self.degree} "
                f"(elements are vectors of rationals; zero iff all coordinates are 0)")
