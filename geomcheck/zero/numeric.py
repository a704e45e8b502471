"""Evaluation in mpmath with a rigorous-in-spirit error bound on every node.

The evaluator walks the program once per point and precision and keeps, for every node,
its value ``v``, a bound ``2**E`` on the absolute error of ``v`` (first-order
propagation of the rounding errors, with the derivative bound of each function), and
two flags:

- ``LOSSY``: information finer than the working precision was rounded away although it
  was genuinely there -- a sum absorbed a term that is nonzero and resolved but below
  its rounding unit (``1 + exp(-400)``), or a function saturated (``tanh(1300)``: its
  output no longer depends on its input at this precision).  A value that is "zero" only
  because of such a loss is not evidence of zero: the caller raises the precision.
- ``UNRESOLVED``: a function was applied to an argument whose error is too large for
  the result to mean anything (``sin(10**150 x)`` at 50 digits, ``floor`` of a value
  within its error of an integer, a ``Piecewise`` condition within its error of the
  switch).  The caller raises the precision, or answers "unknown".

A value is *consistent with zero* when ``|v| <= 2**(E + 2)``; it is a *resolved nonzero*
when ``|v| > 2**(E + 4)``: no absolute floor anywhere, so ``x / 10**200`` and
``exp(-400) * x`` are resolved nonzero values at any precision.

Jets of undefined functions get independent random values keyed by their argument
values, compared with their error bounds: two arguments within each other's error are
the same point (the same jet value), two arguments separated by more than their errors
are different points (independent values).  ``V(x) - V(x + 10**-30)`` has two jets 1e-30
apart, resolved at 50 digits, so it is nonzero; an argument whose perturbation was
absorbed is ``LOSSY`` and is looked at again at a higher precision.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import threading

import mpmath
from mpmath.libmp import from_int, from_man_exp, mpf_div
import sympy

from .budget import CHECK_EVERY, check_deadline
from .program import (ADD, CONST, CONSTANTS, FALLBACK, FN, JET, MUL, NEG, NUM, PIECEWISE, POWG, POWI, POWR, RELATIONS,
                      SYM, mpf_tuple_ratio)
from .sampling import jet_fraction

__all__ = ["context", "Evaluator", "PolyModel", "JetTable", "Unevaluable", "BadPoint", "LOSSY", "UNRESOLVED",
           "hidden_terms", "to_ctx", "from_sympy_number", "to_sympy_number", "LOG2_10"]

LOSSY = 1
UNRESOLVED = 2
#: a rational constant is resolved when its numerator fits in the precision with this many
#: bits to spare
RATIONAL_GUARD_BITS = 16
LOG2_10 = math.log2(10)
#: the random polynomials of :class:`PolyModel` are evaluated exactly in integers when every argument
#: is a multiple of 2**-EXACT_MAX_SHIFT (else, e.g. for an argument below 2**-20000, by rounded products)
EXACT_MAX_SHIFT = 1 << 16
#: bits beyond the working precision of the fixed-point sums of :class:`PolyModel` (a sum whose error
#: bound is not below 1/32 of its last place is computed exactly instead)
FIXED_GUARD_BITS = 64
_NINF = -math.inf


class Unevaluable(Exception):
    """A node has no numeric meaning we know how to compute."""


class BadPoint(Exception):
    """The drawn point is singular for the expression (division by zero, ...)."""


_CTX_LOCAL = threading.local()


def context(dps):
    """A private mpmath context at ``dps`` digits (never the global one: thread safety)."""
    cache = getattr(_CTX_LOCAL, "cache", None)
    if cache is None:
        cache = _CTX_LOCAL.cache = {}
    ctx = cache.get(dps)
    if ctx is None:
        ctx = mpmath.MPContext()
        ctx.dps = dps
        cache[dps] = ctx
    return ctx


def to_ctx(ctx, value):
    """``(re, im)`` Fractions (or one Fraction) as an mpmath number of ``ctx``."""
    if isinstance(value, tuple):
        re, im = value
        r = ctx.mpf(re.numerator) / re.denominator if re.denominator != 1 else ctx.mpf(re.numerator)
        if not im:
            return r
        return ctx.mpc(r, ctx.mpf(im.numerator) / im.denominator)
    return ctx.mpf(value.numerator) / value.denominator if value.denominator != 1 else ctx.mpf(value.numerator)


def to_sympy_number(ctx, v):
    if isinstance(v, ctx.mpc):
        return sympy.Float._new(v.real._mpf_, ctx.prec) + sympy.I * sympy.Float._new(v.imag._mpf_, ctx.prec)
    return sympy.Float._new(v._mpf_, ctx.prec) if v else sympy.S.Zero


def from_sympy_number(ctx, r):
    r = sympy.sympify(r)
    if r.is_Float:
        return ctx.mpf(r._mpf_)
    if r.is_Rational:
        return ctx.mpf(int(r.p)) / int(r.q)
    if r.is_number:
        re, im = r.as_real_imag()
        re, im = sympy.Float(re, ctx.dps), sympy.Float(im, ctx.dps)
        if re.is_Float and im.is_Float:
            return ctx.mpc(ctx.mpf(re._mpf_), ctx.mpf(im._mpf_)) if im else ctx.mpf(re._mpf_)
    raise Unevaluable(f"{r} has no numeric value")


# ---------------------------------------------------------------------------------- functions
# For each function: how to evaluate it, a bound (log2) on |f'| near the argument, the
# scale (log2) over which that bound stays valid (None: the bound holds everywhere), and
# whether the function saturates (tends to a constant, so that its output can stop
# depending on its input at a finite precision).


def _mag(ctx, v):
    return ctx.mag(v) if v else NEG


def _fn(name):
    return lambda ctx, *a: getattr(ctx, name)(*a)


def _d_exp(ctx, a, v):
    return _mag(ctx, v), 0


def _d_log(ctx, a, v):
    m = _mag(ctx, a[0])
    return -m + 2, m - 2


def _d_one(ctx, a, v):
    return 1, None


def _d_tan(ctx, a, v):
    m = max(_mag(ctx, v), 0)
    return 2 * m + 1, -m - 2


def _d_sec(ctx, a, v):
    m = max(_mag(ctx, v), 0)
    return 2 * m + 1, -m - 2


def _d_asin(ctx, a, v):
    w = 1 - a[0] * a[0]
    m = _mag(ctx, w)
    return -m / 2 + 1, m - 2


def _d_asec(ctx, a, v):
    w = a[0] * a[0] - 1
    m, ma = _mag(ctx, w), _mag(ctx, a[0])
    return -ma - m / 2 + 1, m - ma - 2


def _d_sinh(ctx, a, v):
    return max(_mag(ctx, v), 0) + 1, 0


def _d_coth(ctx, a, v):
    # csch(a)**2: 1/a**2 near 0, 4 exp(-2|a|) far from it
    m = _mag(ctx, a[0])
    if m > 1:
        return min(0.0, 2 - 2 * _abs_float(ctx, a[0]) * math.log2(math.e)) + 1, 0
    return -2 * m + 2, m - 2


def _d_sech(ctx, a, v):
    return _mag(ctx, v) + 1, 0


def _d_csch(ctx, a, v):
    m = _mag(ctx, a[0])
    return _mag(ctx, v) - min(m, 0) + 2, m - 2


def _d_acosh(ctx, a, v):
    w = a[0] * a[0] - 1
    m = _mag(ctx, w)
    return -m / 2 + 1, m - 2


def _d_atanh(ctx, a, v):
    w = 1 - a[0] * a[0]
    m = _mag(ctx, w)
    return -m + 1, m - 2


def _d_atan2(ctx, a, v):
    r2 = a[0] * a[0] + a[1] * a[1]
    m = _mag(ctx, r2)
    return -m / 2 + 1, m / 2 - 2


def _d_gamma(ctx, a, v):
    psi = ctx.digamma(a[0])
    return _mag(ctx, v) + max(_mag(ctx, psi), 0) + 1, -2


def _d_loggamma(ctx, a, v):
    return max(_mag(ctx, ctx.digamma(a[0])), 0) + 1, -2


def _d_atan(ctx, a, v):
    m = max(_mag(ctx, a[0]), 0)
    return 1 - 2 * m, m - 2


def _d_asinh(ctx, a, v):
    m = max(_mag(ctx, a[0]), 0)
    return 1 - m, m - 2


def _abs_float(ctx, a):
    try:
        return float(abs(a))
    except (OverflowError, ValueError):
        return math.inf


def _d_tanh(ctx, a, v):
    # sech(a)**2 <= min(1, 4 exp(-2|a|))
    return min(0.0, 2 - 2 * _abs_float(ctx, a[0]) * math.log2(math.e)) + 1, 0


def _d_erf(ctx, a, v):
    # 2/sqrt(pi) exp(-a**2)
    t = _abs_float(ctx, a[0])
    return 1 - t * t * math.log2(math.e), -max(_mag(ctx, a[0]), 0) - 2


def _py_max(ctx, *a):
    if any(isinstance(x, ctx.mpc) for x in a):
        raise BadPoint("Max of a complex value")
    return max(a)


def _py_min(ctx, *a):
    if any(isinstance(x, ctx.mpc) for x in a):
        raise BadPoint("Min of a complex value")
    return min(a)


# the derivative of a saturating function, exactly (not a bound): its smallness is the point
def _s_tanh(ctx, a):
    return ctx.sech(a) ** 2


def _s_coth(ctx, a):
    return ctx.csch(a) ** 2


def _s_erf(ctx, a):
    return 2 * ctx.exp(-a * a) / ctx.sqrt(ctx.pi)


def _s_atan(ctx, a):
    return 1 / (1 + a * a)


FUNCTIONS = {
    "exp": (_fn("exp"), _d_exp, None), "log": (_fn("log"), _d_log, None),
    "sin": (_fn("sin"), _d_one, None), "cos": (_fn("cos"), _d_one, None),
    "tan": (_fn("tan"), _d_tan, None), "cot": (_fn("cot"), _d_tan, None),
    "sec": (_fn("sec"), _d_sec, None), "csc": (_fn("csc"), _d_sec, None),
    "asin": (_fn("asin"), _d_asin, None), "acos": (_fn("acos"), _d_asin, None),
    "atan": (_fn("atan"), _d_atan, _s_atan), "acot": (_fn("acot"), _d_atan, _s_atan),
    "asec": (_fn("asec"), _d_asec, None), "acsc": (_fn("acsc"), _d_asec, None),
    "sinh": (_fn("sinh"), _d_sinh, None), "cosh": (_fn("cosh"), _d_sinh, None),
    "tanh": (_fn("tanh"), _d_tanh, _s_tanh), "coth": (_fn("coth"), _d_coth, _s_coth),
    "sech": (_fn("sech"), _d_sech, None), "csch": (_fn("csch"), _d_csch, None),
    "asinh": (_fn("asinh"), _d_asinh, None), "acosh": (_fn("acosh"), _d_acosh, None),
    "atanh": (_fn("atanh"), _d_atanh, None), "acoth": (_fn("acoth"), _d_atanh, None),
    "atan2": (_fn("atan2"), _d_atan2, None), "sinc": (_fn("sinc"), _d_one, None),
    "Abs": (lambda ctx, x: abs(x), _d_one, None), "sign": (_fn("sign"), _d_one, None),
    "re": (_fn("re"), _d_one, None), "im": (_fn("im"), _d_one, None), "conjugate": (_fn("conj"), _d_one, None),
    "erf": (_fn("erf"), _d_erf, _s_erf), "erfc": (_fn("erfc"), _d_erf, _s_erf),
    "gamma": (_fn("gamma"), _d_gamma, None), "loggamma": (_fn("loggamma"), _d_loggamma, None),
    "factorial": (_fn("factorial"), _d_gamma, None),
    "floor": (_fn("floor"), _d_one, None), "ceiling": (_fn("ceil"), _d_one, None),
    "Max": (_py_max, _d_one, None), "Min": (_py_min, _d_one, None),
}
# functions with a jump: an argument within its error of the jump is unresolved
_JUMPS = {"sign", "floor", "ceiling"}


def _jump_unresolved(ctx, name, a, err_bits):
    x = a[0]
    if isinstance(x, ctx.mpc):
        return name != "sign"
    if name == "sign":
        return not x or ctx.mag(x) <= err_bits + 2
    gap = x - ctx.nint(x)
    return not gap or ctx.mag(gap) <= err_bits + 2


# ---------------------------------------------------------------------------------- jets


class JetTable:
    """Independent random jet values, keyed by argument points compared within their errors."""

    def __init__(self, seed):
        self.seed = seed
        self.entries = {}  # (name, index) -> list of (argvals, argerrs, Fraction value)

    def value(self, ctx, name, index, argvals, argerrs):
        """The value of the jet at these arguments, and whether the match was ambiguous."""
        rows = self.entries.setdefault((name, index), [])
        for vals, errs, value in rows:
            same = True
            for a, ea, b, eb in zip(argvals, argerrs, vals, errs):
                d = a - b
                if not d:
                    continue
                tol = max(ea, eb) + 3
                if ctx.mag(d) > tol:
                    same = False
                    break
            if same:
                return value
        value = jet_fraction(self.seed, name, index, len(rows))
        rows.append((tuple(argvals), tuple(argerrs), value))
        return value


class PolyModel:
    """One random polynomial per undefined function, standing for it in implicit equations.

    ``P_V`` has total degree ``degrees[(name, arity)]`` and rational coefficients drawn
    from the seed; the jet ``V_alpha`` is the ``alpha`` derivative of ``P_V``, so all the
    jets it supplies are consistent derivatives of one smooth function.
    """

    def __init__(self, seed, degrees):
        self.seed = seed
        self.degrees = degrees  # (name, arity) -> total degree
        self._monos = {}
        self._terms = {}
        self._tables = {}
        self._exact = {}
        self._fixed = {}

    def _monomials(self, k, D):
        hit = self._monos.get((k, D))
        if hit is None:
            monos = []
            for deg in range(D + 1):
                for combo in itertools.combinations_with_replacement(range(k), deg):
                    m = [0] * k
                    for j in combo:
                        m[j] += 1
                    monos.append(tuple(m))
            index = {m: t for t, m in enumerate(monos)}
            parents = [None]
            for m in monos[1:]:
                j = next(j for j, e in enumerate(m) if e)
                parent = m[:j] + (m[j] - 1,) + m[j + 1:]
                parents.append((index[parent], j))
            hit = self._monos[(k, D)] = (monos, parents, index)
        return hit

    def _derivative_terms(self, name, index):
        """The terms of the derivative ``index`` of the random polynomial ``name``: ``(t, rest, c, f)``,
        one per monomial that survives, the term being ``c * f * x**monos[t]`` (``rest = monos[t]``,
        ``c`` the monomial's coefficient, a Fraction, and ``f`` the integer from differentiating)."""
        k = len(index)
        monos, _parents, mindex = self._monomials(k, self.degrees[(name, k)])
        for m in monos:
            if all(e >= a for e, a in zip(m, index)):
                c = jet_fraction(self.seed, "poly", name, k, m)
                f = 1
                for e, a in zip(m, index):
                    for t in range(a):
                        f *= e - t
                rest = tuple(e - a for e, a in zip(m, index))
                yield mindex[rest], rest, c, f

    def _terms_for(self, name, index, ctx):
        key = (name, index, ctx.dps)
        hit = self._terms.get(key)
        if hit is None:
            hit = [(t, ctx.mpf(c.numerator * f) / c.denominator)
                   for t, _rest, c, f in self._derivative_terms(name, index)]
            self._terms[key] = hit
        return hit

    def _exact_terms(self, name, index):
        """The jet's polynomial as integers: ``(L, [[(t, N_t)] for each degree])``, the jet being
        ``sum_t N_t x**monos[t] / L`` with the terms grouped by the degree of ``monos[t]``."""
        key = (name, index)
        hit = self._exact.get(key)
        if hit is None:
            D = self.degrees[(name, len(index))]
            coefficients = [(t, sum(rest), c * f) for t, rest, c, f in self._derivative_terms(name, index)]
            L = math.lcm(*(c.denominator for _t, _d, c in coefficients)) if coefficients else 1
            by_degree = [[] for _ in range(D + 1)]
            for t, d, c in coefficients:
                by_degree[d].append((t, c.numerator * (L // c.denominator)))
            while len(by_degree) > 1 and not by_degree[-1]:
                by_degree.pop()
            hit = self._exact[key] = (L, by_degree)
        return hit

    def _exact_value(self, ctx, name, index, argvals):
        """The jet at real finite arguments as an integer computation: in fixed point with a proved
        error bound below 1/32 of the last place of the result (:meth:`_fixed_value`), else exactly,
        rounded once.  At least as accurate as the sum of rounded products of :meth:`value`; None
        for complex or non-finite arguments."""
        parts = []
        for v in argvals:
            mpf = getattr(v, "_mpf_", None)
            if mpf is None:
                return None  # complex
            sign, man, exp, _bc = mpf
            if not man:
                if exp:
                    return None  # inf or nan
                parts.append(None)
                continue
            parts.append((sign, man, exp))
        parts = tuple(parts)
        k = len(index)
        D = self.degrees[(name, k)]
        monos, parents, _ = self._monomials(k, D)
        prec, rnd = ctx._prec_rounding
        fast = self._fixed_value(name, index, parts, monos, parents, D, prec, rnd)
        if fast is not None:
            return ctx.make_mpf(fast) if fast[1] else ctx.zero
        shift = max((-p[2] for p in parts if p is not None), default=0)
        if shift < 0:
            shift = 0
        if shift > EXACT_MAX_SHIFT:
            return None
        tkey = (name, k, "exact", parts)
        table = self._tables.get(tkey)
        if table is None:
            if len(self._tables) > 256:
                self._tables.clear()
            # the arguments as integers times 2**-shift: table[t] = prod x_j**m_j * 2**(shift |m|)
            X = [0 if p is None else (-(p[1] << (p[2] + shift)) if p[0] else p[1] << (p[2] + shift)) for p in parts]
            table = [1] * len(monos)
            for t in range(1, len(monos)):
                pi, j = parents[t]
                table[t] = table[pi] * X[j]
            self._tables[tkey] = table
        L, by_degree = self._exact_terms(name, index)
        # sum_d 2**(shift (Dmax - d)) sum_{|m| = d} N_t table[t]: the jet times L 2**(shift Dmax)
        acc = 0
        for group in by_degree:
            acc <<= shift
            if group:
                acc += sum(N * table[t] for t, N in group)
        if not acc:
            return ctx.zero
        return ctx.make_mpf(mpf_div(from_int(acc), from_int(L << (shift * (len(by_degree) - 1))), prec, rnd))

    def _fixed_value(self, name, index, parts, monos, parents, D, prec, rnd):
        """The jet in fixed point with ``P = prec + FIXED_GUARD_BITS`` fractional bits, as an mpf
        tuple, when its error bound is below 1/32 of a unit in the last place; else None.

        ``M_t = floor(M_parent X_j / 2**P)`` (``X_j = round(x_j 2**P)``, ``M_0 = 2**P``) is off from
        ``x**m_t 2**P`` by at most ``2 d A**d`` (``d = |m_t|``, ``A = max(1, |x_j|)``, by induction on
        ``d``: ``eps_m <= eps_p |x_j| + A**(d-1)/2 + 1``); with ``C_t = round(c_t 2**P)`` each product
        ``C_t M_t`` is off from ``c_t x**m_t 2**(2P)`` by at most ``|C_t| 2 D A**D + (|M_t| + 1)/2``,
        ``|M_t| <= A**D 2**P + 2 D A**D``: their sum bounds the error of the sum.
        """
        P = prec + FIXED_GUARD_BITS
        k = len(parts)
        tkey = (name, k, P, parts)
        hit = self._tables.get(tkey)
        if hit is None:
            if len(self._tables) > 256:
                self._tables.clear()
            X = []
            amag = 0  # A <= 2**amag
            for p in parts:
                if p is None:
                    X.append(0)
                    continue
                sign, man, exp = p
                e = exp + P
                x = man << e if e >= 0 else (man + (1 << (-e - 1))) >> -e
                X.append(-x if sign else x)
                m = exp + man.bit_length()
                if m > amag:
                    amag = m
            M = [1 << P] * len(monos)
            for t in range(1, len(monos)):
                pi, j = parents[t]
                M[t] = (M[pi] * X[j]) >> P
            hit = self._tables[tkey] = (M, amag)
        M, amag = hit
        key = (name, index, P)
        coefficients = self._fixed.get(key)
        if coefficients is None:
            L, by_degree = self._exact_terms(name, index)
            # C_t = round(N_t 2**P / L)
            terms = [(t, (2 * (N << P) + L) // (2 * L)) for group in by_degree for t, N in group]
            coefficients = self._fixed[key] = (terms, sum(abs(c) for _t, c in terms))
        terms, sum_c = coefficients
        acc = sum(c * M[t] for t, c in terms)
        if not acc:
            return None
        e_max = (2 * D) << (D * amag)
        bound = sum_c * e_max + len(terms) * (((1 << (P + D * amag)) + e_max + 1) // 2 + 1)
        if bound.bit_length() + 5 > acc.bit_length() - prec:  # |acc| >= 2**(bit_length - 1)
            return None
        return from_man_exp(acc, -2 * P, prec, rnd)

    def value(self, ctx, name, index, argvals):
        exact = self._exact_value(ctx, name, index, argvals)
        if exact is not None:
            return exact
        k = len(index)
        monos, parents, _ = self._monomials(k, self.degrees[(name, k)])
        tkey = (name, k, ctx.dps, tuple(getattr(v, "_mpf_", None) or (v.real._mpf_, v.imag._mpf_) for v in argvals))
        table = self._tables.get(tkey)
        if table is None:
            if len(self._tables) > 256:
                self._tables.clear()
            table = [ctx.one] * len(monos)
            for t in range(1, len(monos)):
                pi, j = parents[t]
                table[t] = table[pi] * argvals[j]
            self._tables[tkey] = table
        terms = self._terms_for(name, index, ctx)
        return ctx.fsum([c * table[t] for t, c in terms]) if terms else ctx.zero


# ---------------------------------------------------------------------------------- the evaluator


class Evaluator:
    """Evaluates a program at points with error bounds; shared by all entries, points and
    precisions of one decision (so that jets keep their values)."""

    def __init__(self, prog, seed, deadline, poly=None, eq_jets=()):
        self.prog = prog
        self.seed = seed
        self.deadline = deadline
        self.jets = JetTable(seed)
        self.poly = poly  # the random-polynomial model (relations) or None
        self.eq_jets = frozenset(eq_jets)  # (name, index) taken from the polynomial model
        self.use_poly_for_all = False
        self.last_values = {}  # jet node -> its value in the last run (for describing points)

    @contextlib.contextmanager
    def polynomial_jets(self):
        """Every jet from the random-polynomial model while inside (the relations are solved,
        and their Jacobians taken, on the one model in which derivatives are consistent)."""
        self.use_poly_for_all = True
        try:
            yield self
        finally:
            self.use_poly_for_all = False

    def run_values(self, ctx, order, symvals):
        """The values of :meth:`run` alone, without error bounds or flags (Newton's method).

        The same arithmetic as :meth:`run` (the values are identical); only for the
        random-polynomial model of every jet (inside :meth:`polynomial_jets`: independent jets
        are matched by their error bounds, which are not kept here).  Sums, products, integer
        powers, symbols and jets are evaluated here; any other node by :meth:`run` itself.
        """
        if not self.use_poly_for_all or self.poly is None:
            return self.run(ctx, order, symvals)[0]
        nodes = self.prog.nodes
        n = len(nodes)
        vals = [None] * n
        full = None  # (vals, errs, flags) for the nodes evaluated by run
        consts = self.prog.constants(ctx)
        deadline = self.deadline
        fsum = ctx.fsum
        poly = self.poly
        mpf_type = ctx.mpf
        count = 0
        for i in order:
            count += 1
            if count % CHECK_EVERY == 0:
                check_deadline(deadline, CHECK_EVERY)
            op, data, args = nodes[i]
            if op == MUL:
                v = vals[args[0]]
                for a in args[1:]:
                    v = v * vals[a]
            elif op == ADD:
                if len(args) == 2:
                    v = vals[args[0]] + vals[args[1]]
                else:
                    v = fsum([vals[a] for a in args])
            elif op == SYM:
                v = symvals[i]
            elif op == JET:
                name, index, _ = data
                v = poly.value(ctx, name, index, [vals[a] for a in args])
            elif op == POWI:
                b = vals[args[0]]
                if not b and data < 0:
                    raise BadPoint("division by zero")
                v = b**data
            elif (op == NUM or op == CONST) and i in consts:
                v = consts[i][0]
            else:
                if full is None:
                    full = (vals, [_NINF] * n, [0] * n)
                self.run(ctx, [i], symvals, None, full)
                continue
            if type(v) is mpf_type:
                special = v._mpf_
                if not special[1] and special[2]:
                    raise BadPoint("a non-finite value")
            elif ctx.isinf(v.real) or ctx.isinf(v.imag) or ctx.isnan(v.real) or ctx.isnan(v.imag):
                raise BadPoint("a non-finite value")
            vals[i] = v
        return vals

    def run(self, ctx, order, symvals, symerrs=None, state=None):
        """Evaluate the nodes in ``order``.

        ``symvals`` maps symbol node index -> value, ``symerrs`` (optional) symbol node
        index -> error exponent (solved unknowns); ``state`` continues an earlier run.
        Returns the lists ``(vals, errs, flags)``.
        """
        prog = self.prog
        nodes = prog.nodes
        n = len(nodes)
        if state is None:
            vals, errs, flags = [None] * n, [_NINF] * n, [0] * n
        else:
            vals, errs, flags = state
        symerrs = symerrs or {}
        consts = prog.constants(ctx)
        deadline = self.deadline
        prec = ctx.prec
        fsum, mag = ctx.fsum, ctx.mag
        mpc = ctx.mpc
        count = 0
        for i in order:
            count += 1
            if count % CHECK_EVERY == 0:
                check_deadline(deadline, CHECK_EVERY)
            op, data, args = nodes[i]
            fl = 0
            for a in args:
                fl |= flags[a]
            if op == ADD:
                terms = [vals[a] for a in args]
                v = terms[0] + terms[1] if len(terms) == 2 else fsum(terms)
                mv = mag(v) if v else NEG
                e = max(errs[a] for a in args) + (len(args) - 1).bit_length()
                rnd = mv - prec
                if e < rnd:
                    e = rnd
                e += 1
                # a genuine term below the rounding unit of the sum was lost (a term below the
                # error of the others, after a cancellation, is looked at across two precisions:
                # :func:`hidden_terms`)
                for a, t in zip(args, terms):
                    if t:
                        mt = mag(t)
                        if mt < rnd and errs[a] < mt - 4:
                            fl |= LOSSY
                            break
            elif op == MUL:
                factors = [vals[a] for a in args]
                v = factors[0]
                for x in factors[1:]:
                    v = v * x
                # first order: d(prod) = sum_i d(x_i) * prod_{j != i} |x_j| (NEG stands for 0)
                bounds = [max(mag(x) if x else NEG, errs[a]) for a, x in zip(args, factors)]
                total = sum(bounds)
                e = _NINF
                for a, bnd in zip(args, bounds):
                    ea = errs[a]
                    if ea != _NINF:
                        t = ea + (total - bnd)
                        if t > e:
                            e = t
                e += (len(args) - 1).bit_length()
                if v:
                    e = max(e, mag(v) - prec) + 1
            elif op == POWI:
                b = vals[args[0]]
                eb = errs[args[0]]
                if not b and data < 0:
                    raise BadPoint("division by zero")
                v = b**data
                mb = mag(b) if b else NEG
                if data > 0:
                    e = eb + math.log2(data) + (data - 1) * (max(mb, eb) + 1) if eb != _NINF else _NINF
                else:
                    if eb != _NINF and eb >= mb - 2:
                        fl |= UNRESOLVED
                        e = (mag(v) if v else 0) + 4
                    else:
                        e = eb + math.log2(-data) + (data - 1) * (mb - 2) if eb != _NINF else _NINF
                if v:
                    e = max(e, mag(v) - prec) + 1
            elif op == SYM:
                v = symvals[i]
                e = symerrs.get(i)
                if e is None:
                    e = (mag(v) - prec) if v else _NINF
            elif op == NUM or op == CONST:
                hit = consts.get(i)
                if hit is None:
                    if op == CONST:
                        v = CONSTANTS[data](ctx)
                        e = mag(v) - prec
                    else:
                        p, q = data if isinstance(data[0], int) and len(data) == 2 else mpf_tuple_ratio(data)
                        v = ctx.mpf(p) / q
                        exact = q == 1 and abs(p).bit_length() <= prec
                        e = _NINF if exact or not v else mag(v) - prec
                        # a numerator longer than the precision: the rational's low-order digits are
                        # rounded away (-1 + 10**-100 becomes -1 at 50 digits), and with them what
                        # tells it from simpler numbers (1/10**100 keeps all it has: its numerator is 1)
                        if abs(p).bit_length() > prec - RATIONAL_GUARD_BITS:
                            fl |= LOSSY
                    hit = consts[i] = (v, e, fl)
                v, e, fl = hit
            elif op == JET:
                name, index, _ = data
                argvals = [vals[a] for a in args]
                if self.poly is not None and (self.use_poly_for_all or (name, index) in self.eq_jets):
                    v = self.poly.value(ctx, name, index, argvals)
                    ea = max((errs[a] for a in args), default=_NINF)
                    e = ea + max(mag(v) if v else 0, 0) + 6 if ea != _NINF else _NINF
                else:
                    value = self.jets.value(ctx, name, index, argvals, [errs[a] for a in args])
                    v = ctx.mpf(value.numerator) / value.denominator
                    e = mag(v) - prec
                    self.last_values[i] = value
                if v:
                    e = max(e, mag(v) - prec)
            elif op == FN:
                name = data.__name__
                spec = FUNCTIONS.get(name)
                if spec is None:
                    raise Unevaluable(f"{prog.exprs[i]} has no numeric evaluator")
                f, deriv, saturation = spec
                argvals = [vals[a] for a in args]
                v = f(ctx, *argvals)
                ea = max(errs[a] for a in args)
                d, scale = deriv(ctx, argvals, v)
                e = ea + d if ea != _NINF else _NINF
                mv = mag(v) if v else NEG
                if mv > NEG:
                    e = max(e, mv - prec) + 1
                if ea != _NINF:
                    if scale is not None and ea > scale - 3:
                        fl |= UNRESOLVED
                    elif e > max(mv, 0) - 3:
                        fl |= UNRESOLVED
                    elif name in _JUMPS and _jump_unresolved(ctx, name, argvals, ea):
                        fl |= UNRESOLVED
                if saturation is not None and v and not isinstance(v, mpc) and argvals[0]:
                    # relative sensitivity below the working precision: the input is lost
                    s = saturation(ctx, argvals[0])
                    if not s or mag(argvals[0]) + mag(s) < mv - prec:
                        fl |= LOSSY
            elif op == POWR:
                b = vals[args[0]]
                eb = errs[args[0]]
                p, q = data
                if not b:
                    if p < 0:
                        raise BadPoint("division by zero")
                    v = b
                else:
                    r = ctx.sqrt(b) if q == 2 else ctx.root(b, q)
                    v = r**p
                e = _powr_error(ctx, b, eb, p / q, v, prec)
                if e is None:
                    fl |= UNRESOLVED
                    e = (mag(v) if v else 0) + 4
            elif op == POWG:
                b, x = vals[args[0]], vals[args[1]]
                eb, ex = errs[args[0]], errs[args[1]]
                v = ctx.power(b, x)
                mv = mag(v) if v else NEG
                if not b:
                    e = _NINF if eb == _NINF and ex == _NINF else mv + 4
                    if eb != _NINF:
                        fl |= UNRESOLVED
                else:
                    mb = mag(b)
                    if eb != _NINF and eb >= mb - 2 or ex > -3:
                        fl |= UNRESOLVED
                    lb = ctx.log(b)
                    t1 = ex + (mag(lb) if lb else NEG) if ex != _NINF else _NINF
                    t2 = eb + (mag(x) if x else NEG) - mb + 1 if eb != _NINF else _NINF
                    e = max(t1, t2)
                    e = mv + e + 1 if e != _NINF else _NINF
                    if mv > NEG:
                        e = max(e, mv - prec) + 1
            elif op == PIECEWISE:
                v = None
                for expr_i, kind, lhs_i, rhs_i in data:
                    if kind is None:
                        v, e = vals[expr_i], errs[expr_i]
                        break
                    a, b = vals[lhs_i], vals[rhs_i]
                    if isinstance(a, mpc) or isinstance(b, mpc):
                        raise BadPoint("a complex value in a Piecewise condition")
                    gap = a - b
                    tol = max(errs[lhs_i], errs[rhs_i])
                    if tol != _NINF and (not gap or mag(gap) <= tol + 2):
                        fl |= UNRESOLVED  # too close to the switch to tell which piece applies
                    if RELATIONS[kind](a, b):
                        v, e = vals[expr_i], errs[expr_i]
                        break
                if v is None:
                    raise BadPoint("no Piecewise condition holds")
            elif op == FALLBACK:
                if args:
                    expr = data(*[to_sympy_number(ctx, vals[a]) for a in args])
                else:
                    expr = data
                v = from_sympy_number(ctx, expr.evalf(ctx.dps))
                mv = mag(v) if v else 0
                ea = max((errs[a] for a in args), default=_NINF)
                # an unknown function: its derivative is not known, so assume a generous one
                e = max(mv - prec + 4, ea + max(mv, 0) + 8 if ea != _NINF else _NINF)
                if ea != _NINF and ea > -8:
                    fl |= UNRESOLVED
            else:
                bad = prog.exprs[i]
                raise Unevaluable(f"{bad} (a {type(bad).__name__}) cannot be evaluated numerically")
            if isinstance(v, mpc):
                if ctx.isinf(v.real) or ctx.isinf(v.imag) or ctx.isnan(v.real) or ctx.isnan(v.imag):
                    raise BadPoint("a non-finite value")
            elif ctx.isinf(v) or ctx.isnan(v):
                raise BadPoint("a non-finite value")
            vals[i] = v
            errs[i] = e
            flags[i] = fl
        return vals, errs, flags


def _powr_error(ctx, b, eb, r, v, prec):
    """The error exponent of ``b**r`` (r a non-integer rational), or None when unresolved."""
    mv = ctx.mag(v) if v else NEG
    if eb == _NINF:
        return mv - prec + 1 if v else _NINF
    mb = ctx.mag(b) if b else NEG
    if eb >= mb - 2:
        if r >= 1:
            return r * (eb + 2) + 2  # |b| and its error are both below 2**(eb+2)
        return None
    slope = (r - 1) * (mb + 1 if r >= 1 else mb - 2)
    e = eb + math.log2(abs(r)) + slope
    return max(e, mv - prec) + 1


def consistent_with_zero(ctx, v, e) -> bool:
    """``|v| <= 2**(e + 2)``: the value is within its error bound of zero."""
    return not v or (e != _NINF and ctx.mag(v) <= e + 2)


def resolved_nonzero(ctx, v, e) -> bool:
    """``|v| > 2**(e + 4)``: the value is nonzero whatever its rounding errors were."""
    return bool(v) and (e == _NINF or ctx.mag(v) > e + 5)


def hidden_terms(nodes, low, high) -> bool:
    """Whether a sum holds a genuine term below the error bound of its other terms.

    ``low`` and ``high`` are the values, errors and flags of the same evaluation at two
    precisions (``.vals``, ``.errs``, ``.dps``; ``high`` at the higher one).  After a
    cancellation, ``sin(x)**2 + cos(x)**2 - 1 + exp(-231)`` is about 1e-100 beside an error of
    1e-50 at 50 digits, and its error bound keeps falling with the digits while the sum stays
    "consistent with zero" -- until the digits pass 100.  A term of a sum (``nodes``: the
    program's) that is below the sum's error bound at ``high`` is such a hidden term when it
    is not rounding noise: its size did not fall with the digits between ``low`` and ``high``
    (a residual of solved relations, or a difference that is exactly zero, falls with them).
    """
    ctx_high, ctx_low = context(high.dps), context(low.dps)
    drop = 0.4 * ctx_low.prec
    for i, (op, _, args) in enumerate(nodes):
        if op != ADD or high.vals[i] is None:
            continue
        e = high.errs[i]
        for a in args:
            t = high.vals[a]
            if not t:
                continue
            mt = ctx_high.mag(t)
            if mt < e - 2 and high.errs[a] < mt - 4:
                t_low = low.vals[a]
                if t_low and ctx_low.mag(t_low) < mt + drop:
                    return True
    return False


__all__ += ["consistent_with_zero", "resolved_nonzero"]
