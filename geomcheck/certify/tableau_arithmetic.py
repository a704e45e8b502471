"""The arithmetics a Runge-Kutta tableau's entries are computed in, and the choice among them.

Every condition on a tableau is a polynomial in its entries, computed in one arithmetic
chosen by :func:`domain_for` from the entries (see :mod:`geomcheck.certify.tableaux`):

* :class:`ExactDomain` -- rational and algebraic entries: exact arithmetic in the number
  field they generate (:class:`~geomcheck.certify.number_field.NumberField`); a residual is
  zero exactly when it is (stage ``"exact"``);
* :class:`InexactDomain` -- floating-point entries: judged against the precision the entries
  carry (:mod:`geomcheck.certify.precision`), a residual nonzero only above twice its
  rigorous bound (stage ``"numeric"``);
* :class:`SymbolicDomain` -- other constants (``pi``, ``cos(1)`` ...): sympy arithmetic
  decided by :mod:`geomcheck.zero`;
* :class:`NumericDomain` -- plain mpmath numbers at a fixed precision (the numeric path of
  :mod:`geomcheck.certify.families`, which solves for high-stage tableaux in floating point);
* :class:`RationalFunctionDomain` -- rational functions of free symbols with rational
  coefficients (a family of methods with a parameter ``alpha``): exact, and zero means zero as a
  rational function, i.e. for every value of the parameters (:func:`parametric_domain_for`).

Each offers ``kind``, ``zero``, ``one``, ``convert`` (a sympy entry into the arithmetic),
``const``, ``to_sympy``, ``is_zero``, ``short``, ``tex``, ``describe`` and ``decide`` (a
list of residuals that must vanish, judged together); elements do their own ``+ - * /``.
:func:`gauss_jordan` eliminates in any of them.

>>> import sympy
>>> dom = domain_for([sympy.Rational(1, 4), sympy.sqrt(3) / 6])
>>> dom.kind, dom.describe()[:50]
('exact', 'exact arithmetic in the number field Q(sqrt(3)) of')
>>> x = dom.convert(sympy.sqrt(3) / 6)
>>> dom.to_sympy(12 * x * x - 1), dom.is_zero(12 * x * x - 1)
(0, True)
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy

from ..caches import Memo
from .number_field import NotAlgebraic, NumberField, algebraic_generators, degree_bound
from .precision import REFUTATION_FACTOR, Bounded, data_precision

__all__ = [
    "ExactDomain",
    "NumericDomain",
    "InexactDomain",
    "SymbolicDomain",
    "RationalFunctionDomain",
    "domain_for",
    "parametric_domain_for",
    "gauss_jordan",
    "characteristic_coefficients",
    "clear_caches",
    "MAX_FIELD_DEGREE",
]

#: a number field of larger degree (upper bound: product of the generators' degrees)
#: is not built; the entries are then handled by sympy and geomcheck.zero instead.
MAX_FIELD_DEGREE = 64

#: the number fields of recent tableaux, by their generators: the fields of one family's
#: tableaux (Gauss, Radau, Lobatto of one s) are built once
_FIELDS = Memo("geomcheck.certify.tableau_arithmetic.fields", 64)


class ExactDomain:
    """Exact arithmetic in a number field: rational and algebraic entries.

    Parameters
    ----------
    K : NumberField
        The field of the entries; elements are its
        :class:`~geomcheck.certify.number_field.FieldElement`, zero exactly when zero.
    """

    kind = "exact"

    def __init__(self, K: NumberField):
        self.K = K
        self.one = K.one
        self.zero = K.zero

    def convert(self, e):
        return self.K.convert(e)

    def const(self, p, q=1):
        return self.K.constant(Fraction(p, q))

    def to_sympy(self, x):
        return self.K.to_sympy(x)

    def is_zero(self, x):
        return not x

    def short(self, x):
        return sympy.sstr(self.to_sympy(x))

    def describe(self):
        return self.K.describe()

    def tex(self, x):
        return sympy.latex(self.to_sympy(x))

    def decide(self, items, label=str):
        """``items``: list of (key, residual); the first nonzero one decides False."""
        for key, r in items:
            if r:
                return False, "exact", (f"{self.describe()}: the residual of {label(key)} is the nonzero "
                                        f"number {sympy.sstr(self.to_sympy(r))}"), key
        return True, "exact", f"{self.describe()}: all {len(items)} residuals are exactly 0", None


class NumericDomain:
    """mpmath numbers of ``prec`` bits, computed with 64 more; zero means ``<= 2**-(prec - 24)``.

    Evidence, not a proof: the numeric path of :mod:`geomcheck.certify.families` solves for
    the entries of high-stage tableaux in it.

    Parameters
    ----------
    prec : int
        The precision of the entries, in bits.
    """

    kind = "numeric"

    def __init__(self, prec: int):
        self.prec = prec
        self.ctx = mpmath.MPContext()
        self.ctx.prec = prec + 64
        self.one = self.ctx.mpf(1)
        self.zero = self.ctx.mpf(0)
        self.tol = self.ctx.ldexp(self.one, -(prec - 24))

    def convert(self, e):
        if isinstance(e, sympy.Float):
            return self.ctx.make_mpf(e._mpf_)
        if e.is_Rational:
            return self.ctx.mpf(int(e.p)) / int(e.q)
        v = sympy.N(e, int((self.prec + 64) * 0.30103) + 5)
        re, im = v.as_real_imag()
        if im == 0:
            return self.ctx.make_mpf(sympy.Float(re)._mpf_)
        return self.ctx.mpc(self.ctx.make_mpf(sympy.Float(re)._mpf_), self.ctx.make_mpf(sympy.Float(im)._mpf_))

    def const(self, p, q=1):
        return self.ctx.mpf(p) / q

    def to_sympy(self, x):
        if isinstance(x, mpmath.mpc):
            return sympy.Float._new(x.real._mpf_, self.prec) + sympy.I * sympy.Float._new(x.imag._mpf_, self.prec)
        return sympy.Float._new(x._mpf_, self.prec)

    def is_zero(self, x):
        return abs(x) <= self.tol

    def short(self, x):
        return self.ctx.nstr(x, 5)

    def describe(self):
        digits = int(self.prec * 0.30103)
        return (f"numeric: the entries are floating-point numbers of {self.prec} bits (~{digits} digits), "
                f"taken at their exact binary values and computed with {self.prec + 64} bits; "
                f"'zero' means abs(residual) <= 2**-{self.prec - 24} (evidence, not a proof)")

    def tex(self, x):
        return _float_tex(x)

    def decide(self, items, label=str):
        worst = self.zero
        for key, r in items:
            if not self.is_zero(r):
                return False, "numeric", (f"{self.describe()}: the residual of {label(key)} is "
                                          f"{self.ctx.nstr(r, 5)}, above the tolerance"), key
            worst = max(worst, abs(r))
        return True, "numeric", (f"{self.describe()}: all {len(items)} residuals are below the tolerance "
                                 f"(largest {self.ctx.nstr(worst, 3)})"), None


class InexactDomain:
    """Floating-point entries judged against their own precision (item 10 of the soundness issue).

    Elements are :class:`~geomcheck.certify.precision.Bounded` numbers: a value and a
    rigorous bound on how far entries within their precision can move it.  The precision
    comes from the data (the shortest decimals that reproduce the entries), not from the
    container, so a 60-digit Float made from a 15-digit published value counts as 15 digits.
    A residual is nonzero only when it exceeds twice its bound.
    """

    kind = "numeric"

    def __init__(self, entries):
        self.precision = data_precision(entries)
        self.prec = max([53] + [f._prec for e in entries for f in e.atoms(sympy.Float)])
        self.ctx = mpmath.MPContext()
        self.ctx.prec = self.prec + 64
        self.one = Bounded.exact(self.ctx, 1)
        self.zero = Bounded.exact(self.ctx, 0)
        # keyed by type too: a Float must never be read as an equal exact number, or vice versa
        self._values = {(type(e), e): v for e, v in zip(entries, self.precision.bounded(self.ctx))}

    def convert(self, e):
        got = self._values.get((type(e), e))
        if got is None:
            if e.has(sympy.Float):  # pragma: no cover - every entry is in the data
                raise AssertionError(f"inexact value {e} is not one of the tableau's entries")
            got = Bounded.exact(self.ctx, _exact_number(self.ctx, e))
        return got

    def const(self, p, q=1):
        return Bounded.exact(self.ctx, Fraction(p, q))

    def to_sympy(self, x):
        return sympy.Float._new(self.ctx.mpf(x.v)._mpf_, self.prec)

    @staticmethod
    def is_zero(x):
        return not x.refuted()

    def short(self, x):
        return self.ctx.nstr(x.v, 5)

    def describe(self):
        return (f"numeric: inexact entries judged against their own precision ({self.precision.describe()}); "
                f"each residual is computed with {self.prec + 64}-bit mpmath arithmetic together with a "
                f"rigorous bound on how far entries within that precision can move it, and counts as nonzero "
                f"only above {REFUTATION_FACTOR} times that bound (evidence about the given numbers up to "
                f"their {self.precision.label} precision, not a proof for exact coefficients)")

    def tex(self, x):
        return _float_tex(x.v)

    def decide(self, items, label=str):
        closest = None
        for key, r in items:
            if r.refuted():
                return False, "numeric", (f"{self.describe()}: the residual of {label(key)} is "
                                          f"{self.ctx.nstr(r.v, 5)}, above {REFUTATION_FACTOR} times its bound "
                                          f"{self.ctx.nstr(r.bound(), 3)}"), key
            if closest is None or abs(r.v) * closest.bound() > abs(closest.v) * r.bound():
                closest = r
        tail = "" if closest is None else (f" (closest: {self.ctx.nstr(abs(closest.v), 3)} against a bound "
                                           f"of {self.ctx.nstr(closest.bound(), 3)})")
        return True, "numeric", (f"{self.describe()}: all {len(items)} residuals vanish up to that precision"
                                 + tail), None


def _exact_number(ctx, e):
    """An exact sympy number at the working precision of ``ctx`` (real, validated entries)."""
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    v = sympy.N(e, int(ctx.dps) + 10)
    return ctx.make_mpf(sympy.Float(v, int(ctx.dps) + 10)._mpf_)


class SymbolicDomain:
    """sympy expressions (entries that are not recognizably algebraic), decided by :mod:`geomcheck.zero`."""

    kind = "symbolic"
    one = sympy.S.One
    zero = sympy.S.Zero

    def convert(self, e):
        return e

    def const(self, p, q=1):
        return sympy.Rational(p, q)

    def to_sympy(self, x):
        return x

    def is_zero(self, x):
        from ..zero import decide_zero

        return decide_zero(x).is_zero

    def short(self, x):
        return sympy.sstr(x)

    def describe(self):
        return "sympy arithmetic (entries that are not recognizably algebraic) decided by geomcheck.zero"

    def tex(self, x):
        return sympy.latex(x)

    def decide(self, items, label=str):
        from ..zero import decide_all_zero

        if not items:
            return True, "structural", "no conditions", None
        d = decide_all_zero({i: r for i, (_k, r) in enumerate(items)})
        key = items[d.index][0] if d.index is not None else None
        where = f" (at {label(key)})" if key is not None else ""
        return d.is_zero, d.stage, f"{self.describe()}: {d.method}{where}", key


class RationalFunctionDomain:
    """Rational functions of free symbols with rational coefficients, exactly (sympy's ``QQ(x, ...)``).

    An element is zero exactly when it is the zero rational function: a residual that vanishes
    here vanishes for *every* value of the symbols where it is defined, and a nonzero one vanishes
    at most on a proper algebraic subset of them.

    Parameters
    ----------
    field : sympy.polys.domains.Domain
        A fraction field ``QQ(x, ...)`` whose generators are sympy Symbols.

    Examples
    --------
    >>> import sympy
    >>> alpha = sympy.Symbol("alpha")
    >>> dom = parametric_domain_for([1 / (2 * alpha), sympy.Rational(1, 2)])
    >>> x = dom.convert(1 / (2 * alpha))
    >>> dom.to_sympy(2 * x * dom.convert(alpha) - dom.one), dom.describe()
    (0, 'exact arithmetic in the field of rational functions QQ(alpha): zero means zero for every alpha')
    """

    kind = "exact"

    def __init__(self, field):
        self.field = field
        self.one = field.one
        self.zero = field.zero
        self.symbols = tuple(field.symbols)

    def convert(self, e):
        return self.field.from_sympy(sympy.sympify(e))

    def const(self, p, q=1):
        return self.field.from_sympy(sympy.Rational(p, q))

    def to_sympy(self, x):
        return sympy.factor(self.field.to_sympy(x))

    def is_zero(self, x):
        return not x

    def short(self, x):
        return sympy.sstr(self.to_sympy(x))

    def describe(self):
        names = ", ".join(str(s) for s in self.symbols)
        return (f"exact arithmetic in the field of rational functions QQ({names}): zero means zero for "
                f"every {names}")

    def tex(self, x):
        return sympy.latex(self.to_sympy(x))

    def decide(self, items, label=str):
        for key, r in items:
            if r:
                return False, "exact", (f"{self.describe()}: the residual of {label(key)} is the nonzero rational "
                                        f"function {self.short(r)} (it may vanish for special values)"), key
        return True, "exact", f"{self.describe()}: all {len(items)} residuals are identically 0", None


def parametric_domain_for(entries: list):
    """The arithmetic for entries that may contain free symbols (parameters of a family).

    Without free symbols: :func:`domain_for`.  With free symbols, when every entry is a rational
    function of them with rational coefficients: :class:`RationalFunctionDomain`.  Otherwise
    (algebraic numbers or functions beside the symbols): :class:`SymbolicDomain`, decided by
    :mod:`geomcheck.zero` -- never a fraction field whose generators could be algebraically
    dependent (``sin(x)`` and ``cos(x)`` as independent generators would make
    ``sin(x)**2 + cos(x)**2 - 1`` nonzero).
    """
    from sympy.polys.constructor import construct_domain
    from sympy.polys.polyerrors import PolynomialError

    entries = [sympy.sympify(e) for e in entries]
    symbols = set().union(*(e.free_symbols for e in entries)) if entries else set()
    if not symbols:
        return domain_for(entries)
    try:
        K, _ = construct_domain(entries, field=True)
    except PolynomialError:  # pragma: no cover - construct_domain falls back to EX
        return SymbolicDomain()
    gens = getattr(K, "symbols", None) or getattr(K, "gens", ())
    if K.is_FractionField and K.domain.is_QQ or K.is_FractionField and K.domain.is_ZZ:
        if all(isinstance(g, sympy.Symbol) for g in gens):
            return RationalFunctionDomain(sympy.QQ.frac_field(*gens))
    return SymbolicDomain()


def _float_tex(x):
    s = mpmath.nstr(x, 3, min_fixed=0, max_fixed=0)
    if "e" in s:
        mant, ex = s.split("e")
        return mant + r" \cdot 10^{" + str(int(ex)) + "}"
    return s


def clear_caches() -> None:
    """Forget the memoized number fields (for cold benchmarks); rebuilt on demand."""
    _FIELDS.clear()


def domain_for(entries: list) -> ExactDomain | InexactDomain | SymbolicDomain:
    """The arithmetic for a list of validated sympy entries (see the module docstring).

    Floats anywhere make it inexact; otherwise the number field of the entries' algebraic
    generators when there are such generators only and the field's degree is at most
    :data:`MAX_FIELD_DEGREE`; otherwise sympy arithmetic.
    """
    if any(e.has(sympy.Float) for e in entries):
        return InexactDomain(entries)
    try:
        key = algebraic_generators(entries)
    except NotAlgebraic:
        return SymbolicDomain()
    K = _FIELDS.get(key)
    if K is None:
        if degree_bound(key) > MAX_FIELD_DEGREE:
            return SymbolicDomain()
        K = NumberField.from_generators(key)
        _FIELDS.put(key, K)
    dom = ExactDomain(K)
    try:
        for e in entries:
            dom.convert(e)
    except NotAlgebraic:  # pragma: no cover - every atom was collected above
        return SymbolicDomain()
    return dom


def gauss_jordan(aug, n, numeric=False):
    """Reduce an augmented n x (n + k) matrix in place so its left block is the identity.

    Entries are Fractions, number-field elements or mpmath numbers (anything with + - * /);
    the left block must be nonsingular.  ``numeric`` picks the largest pivot (partial
    pivoting) instead of the first nonzero one.
    """
    for col in range(n):
        if numeric:
            piv = max(range(col, n), key=lambda r: abs(aug[r][col]))
        else:
            piv = next(r for r in range(col, n) if aug[r][col])
        aug[col], aug[piv] = aug[piv], aug[col]
        pv = aug[col][col]
        aug[col] = [x / pv for x in aug[col]]
        for r in range(n):
            if r != col and aug[r][col]:
                f = aug[r][col]
                aug[r] = [x - f * y for x, y in zip(aug[r], aug[col])]
    return aug


def characteristic_coefficients(dom, M) -> list:
    """``[1, c_1, ..., c_s]`` with ``det(lambda I - M) = lambda^s + c_1 lambda^(s-1) + ... + c_s``.

    Equivalently ``det(I - z M) = sum_k c_k z^k`` (the denominator of a stability function).
    Faddeev-LeVerrier in the arithmetic ``dom`` of the entries (exact: no division but by k).

    >>> from fractions import Fraction
    >>> dom = domain_for([sympy.Rational(1, 2)])
    >>> half = dom.convert(sympy.Rational(1, 2))
    >>> [dom.to_sympy(c) for c in characteristic_coefficients(dom, [[half, dom.zero], [dom.one, half]])]
    [1, -1, 1/4]
    """
    s = len(M)
    coeffs = [dom.one]
    Mk = [[dom.zero] * s for _ in range(s)]

    def dot(u, v):
        acc = dom.zero
        for x, y in zip(u, v):
            if x and y:
                acc = acc + x * y
        return acc

    for k in range(1, s + 1):
        # M_k = M M_{k-1} + c_{k-1} I ;  c_k = -tr(M M_k) / k
        prod = [[dot(M[i], [Mk[l][j] for l in range(s)]) for j in range(s)] for i in range(s)]
        for i in range(s):
            prod[i][i] = prod[i][i] + coeffs[k - 1]
        Mk = prod
        tr = dom.zero
        for i in range(s):
            tr = tr + dot(M[i], [Mk[l][i] for l in range(s)])
        coeffs.append(-tr / k)
    return coeffs
