"""Is the expression one analytic function on the whole domain?  The condition that makes
randomized evaluation mean something.

A nonzero analytic function on a connected domain vanishes only on a thin set, so random
points find where it is nonzero; this is what "zero by randomized evaluation" rests on.
Principal branches (``sqrt``, ``log``, ``asin``, ``atan`` through a pole ...) and
non-analytic functions (``Abs``, ``Max``, ``Piecewise``, ``floor`` ...) can break it: an
expression can vanish on one part of the domain and not on another (``Max(x - 19/10, 0)``,
``asin(sin(x)) - x``), and random points may all fall in the part where it vanishes.

:func:`analyse` looks at every such *branch node* and decides, with outward-rounded
interval arithmetic over the whole domain (:mod:`geomcheck.intervals`), whether its
branch can switch anywhere in the domain:

- it cannot (``sqrt(1 + x**2)``, ``log(r)`` with ``r`` positive, ``Abs(exp(x))``): the
  node is one analytic function on the domain;
- ``sqrt(A)`` with ``A`` a rational function of the symbols and jets that is not a
  square, the radicands of all such roots independent modulo squares: the two signs of
  every root are exchanged by going around the zero set of ``A`` in complex space, so an
  identity that holds for one choice of signs holds for all (``sqrt(q1**2 + q2**2)``,
  ``sqrt(x)**2 - x``); ``sqrt(x**2)`` is not of this kind (``x**2`` is a square);
- otherwise the node *may switch*: the expression is analysed as piecewise, and the
  decision can only find a counterexample or say it does not know.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy

from .. import intervals as iv
from ..intervals import ENTIRE, ENTIRE_POLE, Interval, interval_of_number
from ..jets import short_text
from .budget import check_deadline
from .program import ADD, CONST, FALLBACK, FN, JET, MUL, NUM, PIECEWISE, POWG, POWI, POWR, SYM, mpf_tuple_ratio

__all__ = ["Analysis", "analyse"]

#: radicands larger than this many expanded terms are not factored (the root is then a possible switch)
GALOIS_MAX_TERMS = 200

_SEGMENTS = {
    # branch points on the real line: the function is analytic (with one branch) on each open segment
    "asin": (-1.0, 1.0), "acos": (-1.0, 1.0), "atanh": (-1.0, 1.0), "acoth": (-1.0, 0.0, 1.0),
    "asec": (-1.0, 0.0, 1.0), "acsc": (-1.0, 0.0, 1.0),
}
# entire in their last argument when every other argument is an integer (Bessel functions of integer order)
_ENTIRE_FOR_INTEGER_ORDER = {"besselj", "besseli"}
_ENTIRE_OR_MEROMORPHIC = {
    "exp", "sin", "cos", "tan", "cot", "sec", "csc", "sinh", "cosh", "tanh", "coth", "sech", "csch",
    "erf", "erfc", "gamma", "sinc", "factorial", "erfi", "fresnels", "fresnelc", "airyai", "airybi",
    "Si", "Shi",
}


@dataclass(frozen=True)
class Analysis:
    """The outcome of :func:`analyse`.

    Attributes
    ----------
    safe : bool
        No branch can switch on the domain: the expression is one analytic function there
        (up to poles), so randomized evaluation anywhere in the domain decides it.
    switches : tuple of str
        The nodes that may switch branch inside the domain, in words.
    algebraic : tuple of str
        Square roots treated as algebraic (their sign cannot matter), in words.
    """

    safe: bool
    switches: tuple = ()
    algebraic: tuple = ()

    def phrase(self) -> str:
        if not self.safe:
            return "may switch branch inside the domain: " + "; ".join(self.switches)
        if self.algebraic:
            return ("analytic on the domain, up to the signs of the square roots " + ", ".join(self.algebraic)
                    + " (their radicands are independent non-squares, so every choice of signs gives the same verdict)")
        return "analytic on the domain"


_SAFE = Analysis(True)


def _fname(cls) -> str:
    return getattr(cls, "__name__", str(cls))


class _Enclosure:
    """Interval enclosures of the program's nodes over the domain (memoized)."""

    def __init__(self, prog, domain, unknowns, deadline):
        self.prog = prog
        self.domain = domain
        self.unknowns = unknowns
        self.deadline = deadline
        self.memo = {}

    def __call__(self, i):
        """``(Interval, complex_possible)`` for node ``i``."""
        hit = self.memo.get(i)
        if hit is not None:
            return hit
        stack = [i]
        nodes = self.prog.nodes
        while stack:
            j = stack[-1]
            if j in self.memo:
                stack.pop()
                continue
            missing = [a for a in nodes[j][2] if a not in self.memo]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            if len(self.memo) % 2048 == 2047:
                check_deadline(self.deadline, 2048)
            self.memo[j] = self._node(j)
        return self.memo[i]

    def _symbol(self, s):
        if s in self.unknowns:
            return ENTIRE, False
        kind = self.domain.kind(s)
        if kind in ("imaginary", "complex"):
            return ENTIRE, True
        lo, hi = self.domain.interval(s)
        # the domain is open: an end at 0 is not attained
        return Interval(interval_of_number(lo).lo, interval_of_number(hi).hi, False, lo == 0 or hi == 0), False

    def _node(self, j):
        op, data, args = self.prog.nodes[j]
        m = self.memo
        if op == NUM:
            p, q = data if isinstance(data[0], int) and len(data) == 2 else mpf_tuple_ratio(data)
            return interval_of_number(sympy.Rational(p, q)), False
        if op == SYM:
            return self._symbol(self.prog.exprs[j])
        if op == CONST:
            e = self.prog.exprs[j]
            if e is sympy.I:
                return ENTIRE, True
            x = float(e)
            return Interval(math.nextafter(x, -math.inf), math.nextafter(x, math.inf)), False
        cplx = any(m[a][1] for a in args)
        if op == ADD:
            acc = m[args[0]][0]
            for a in args[1:]:
                acc = acc + m[a][0]
            return acc, cplx
        if op == MUL:
            acc = m[args[0]][0]
            for a in args[1:]:
                acc = acc * m[a][0]
            return acc, cplx
        if op == POWI:
            return m[args[0]][0] ** data, cplx
        if op == POWR:
            b = m[args[0]][0]
            p, q = data
            if b.positive:
                r = iv.root(b, q)
                return (r ** p if p >= 0 else (r ** (-p)).reciprocal()), cplx
            return ENTIRE_POLE, True
        if op == POWG:
            b, x = m[args[0]][0], m[args[1]][0]
            if b.positive:
                return iv.exp(x * iv.log(b)), cplx
            return ENTIRE_POLE, True
        if op == JET:
            return ENTIRE, cplx
        if op == FN:
            name = _fname(data)
            f = iv.FUNCTIONS.get(name)
            xs = [m[a][0] for a in args]
            if name == "log":
                return iv.log(xs[0]), cplx or not xs[0].positive
            if name in ("asin", "acos") and not xs[0].within(-1.0, 1.0):
                return ENTIRE_POLE, True
            if f is not None:
                return (f(*xs) if name in ("Max", "Min") else f(xs[0])), cplx
            if name in ("re", "im"):
                return ENTIRE, False
            return ENTIRE_POLE, cplx or name not in _ENTIRE_OR_MEROMORPHIC
        if op == PIECEWISE:
            out = None
            for expr_i, _kind, _l, _r in data:
                out = m[expr_i][0] if out is None else out.hull(m[expr_i][0])
            return out, cplx
        return ENTIRE_POLE, True  # FALLBACK, OPAQUE


def _strictly_one_side(x: Interval, points) -> bool:
    """The interval lies strictly inside one of the segments cut at ``points``."""
    if x.pole:
        return False
    for p in points:
        if x.lo <= p <= x.hi:
            return False
    return True


def analyse(prog, order, domain, unknowns=frozenset(), deadline=None) -> Analysis:
    """Decide whether the nodes in ``order`` form one analytic function on ``domain``.

    Parameters
    ----------
    prog : Program
    order : list of int
        The nodes the decision evaluates (the roots' DAG, and the relations' equations).
    domain : Domain
    unknowns : collection of Symbol
        Unknowns of implicit relations (they range over the whole line).

    Returns
    -------
    Analysis
    """
    nodes = prog.nodes
    branch = []
    for i in order:
        op, data, args = nodes[i]
        if op in (POWR, POWG) and _has_symbols(prog, args[0]):
            branch.append(i)
        elif op == POWG and _has_symbols(prog, args[1]) and not _constant_positive(prog, args[0]):
            branch.append(i)
        elif op == PIECEWISE or op in (FN, FALLBACK) and _fname(data) not in _ENTIRE_OR_MEROMORPHIC:
            branch.append(i)
    if not branch:
        return _SAFE
    enc = _Enclosure(prog, domain, frozenset(unknowns), deadline)
    switches, radicals = [], []
    for i in branch:
        why = _switch(prog, i, enc)
        if why == "galois":
            radicals.append(i)
        elif why:
            switches.append(why)
    algebraic = ()
    # sqrt(A), 1/sqrt(A), A**(3/2): powers of one root, one radical per radicand
    radicals = list({prog.nodes[i][2][0]: i for i in radicals}.values())
    if radicals and not switches:
        bad = _galois_failures(prog, radicals, deadline)
        if bad:
            switches.extend(bad)
        else:
            algebraic = tuple(short_text(prog.exprs[i]) for i in radicals)
    elif radicals:
        switches.extend(f"{short_text(prog.exprs[i])} (a square root whose radicand may change sign)" for i in radicals)
    if switches:
        return Analysis(False, tuple(switches))
    return Analysis(True, (), algebraic)


def _has_symbols(prog, i) -> bool:
    return bool(prog.exprs[i].free_symbols) or bool(prog.exprs[i].atoms(sympy.Function))


def _constant_positive(prog, i) -> bool:
    e = prog.exprs[i]
    return not e.free_symbols and bool(e.is_positive)


def _switch(prog, i, enc):
    """None when node ``i`` keeps one branch on the domain, ``"galois"`` for a candidate
    algebraic square root, else a description of the possible switch."""
    op, data, args = prog.nodes[i]
    e = prog.exprs[i]
    if op == POWR:
        b, cplx = enc(args[0])
        if not cplx and (b.positive or b.negative):
            return None
        if data[1] == 2 and _rational_subdag(prog, args[0]):
            return "galois"
        return f"{short_text(e)} (its radicand may cross 0 or the branch cut)"
    if op == POWG:
        b, cplx = enc(args[0])
        if not cplx and b.positive:
            return None
        return f"{short_text(e)} (a power whose base may leave the positive axis)"
    if op == PIECEWISE:
        return _piecewise_switch(prog, i, enc)
    name = _fname(data)
    xs = [enc(a) for a in args]
    real = all(not c for _, c in xs)
    x0 = xs[0][0] if xs else ENTIRE
    if name in ("log", "loggamma"):
        if real and (x0.positive or (name == "log" and x0.negative)):
            return None
        return f"{short_text(e)} (its argument may reach the branch cut on the negative axis)"
    if name in _SEGMENTS:
        if real and _strictly_one_side(x0, _SEGMENTS[name]):
            return None
        return f"{short_text(e)} (its argument may cross a branch point at {', '.join(str(p) for p in _SEGMENTS[name])})"
    if name == "acosh":
        if real and x0.lo > 1:
            return None
        return f"{short_text(e)} (its argument may leave (1, oo))"
    if name in ("atan", "asinh"):
        if real and not x0.pole:
            return None
        return f"{short_text(e)} (its argument may pass through a pole)"
    if name == "acot":
        if real and _strictly_one_side(x0, (0.0,)):
            return None
        return f"{short_text(e)} (its argument may cross 0 or a pole)"
    if name == "atan2":
        y, x = xs[0][0], xs[1][0]
        if real and (x.positive or y.positive or y.negative):
            return None
        return f"{short_text(e)} (the point may cross the negative x axis)"
    if name in ("Abs", "sign", "Heaviside", "DiracDelta"):
        if real and (x0.positive or x0.negative):
            return None
        if not real and name in ("Abs", "sign") and not any(prog.nodes[a][0] in (POWR, POWG) for a in args):
            return None  # |z| of complex symbols: real-analytic in their real and imaginary parts
        return f"{short_text(e)} (its argument may change sign)"
    if name in ("re", "im", "conjugate"):
        return None  # real-analytic in the real and imaginary parts of the symbols
    if name in _ENTIRE_OR_MEROMORPHIC:
        return None
    if name in _ENTIRE_FOR_INTEGER_ORDER and all(prog.exprs[a].is_integer for a in args[:-1]):
        return None
    if name in ("Max", "Min"):
        if real:
            ivs = [x for x, _ in xs]
            for k, xk in enumerate(ivs):
                others = [x for m, x in enumerate(ivs) if m != k]
                if name == "Max" and all(xk.lo > x.hi for x in others) and not xk.pole:
                    return None
                if name == "Min" and all(xk.hi < x.lo for x in others) and not xk.pole:
                    return None
        return f"{short_text(e)} (which argument is {'largest' if name == 'Max' else 'smallest'} may change)"
    if name in ("floor", "ceiling", "frac"):
        if real and x0.bounded and math.floor(x0.lo) == math.floor(x0.hi) and x0.lo != math.floor(x0.lo):
            return None
        return f"{short_text(e)} (its argument may cross an integer)"
    return f"{short_text(e)} ({name} is not known to be analytic)"


def _piecewise_switch(prog, i, enc):
    op, data, args = prog.nodes[i]
    for expr_i, kind, lhs, rhs in data:
        if kind is None:
            return None
        a, ca = enc(lhs)
        b, cb = enc(rhs)
        if ca or cb:
            break
        truth = _compare(kind, a, b)
        if truth is True:
            return None
        if truth is None:
            break
    return f"{short_text(prog.exprs[i])} (which piece applies may change)"


def _compare(kind, a: Interval, b: Interval):
    """True / False when the relation holds / fails on the whole box, else None."""
    if a.pole or b.pole:
        return None
    name = kind.__name__
    if name in ("StrictLessThan", "LessThan"):
        if a.hi < b.lo:
            return True
        if a.lo > b.hi:
            return False
        return None
    if name in ("StrictGreaterThan", "GreaterThan"):
        if a.lo > b.hi:
            return True
        if a.hi < b.lo:
            return False
        return None
    if name == "Unequality":
        if a.hi < b.lo or a.lo > b.hi:
            return True
        return None
    if a.hi < b.lo or a.lo > b.hi:
        return False
    return None


def _rational_subdag(prog, i) -> bool:
    for j in prog.reachable([i]):
        op = prog.nodes[j][0]
        if op not in (NUM, SYM, ADD, MUL, POWI, JET):
            return False
        if op == SYM and prog.exprs[j].is_real is False:
            return False
    return True


def _galois_failures(prog, radicals, deadline):
    """Descriptions of the square roots that the algebraic argument does not cover (empty when it does)."""
    vectors = []
    factors = []  # canonical odd-multiplicity irreducible factors, in order of discovery
    failures = []
    for i in radicals:
        check_deadline(deadline)
        base = prog.exprs[prog.nodes[i][2][0]]
        num, den = sympy.fraction(sympy.together(base))
        radicand = sympy.expand(num * den)
        if isinstance(radicand, sympy.Add) and len(radicand.args) > GALOIS_MAX_TERMS:
            failures.append(f"{short_text(prog.exprs[i])} (its radicand is too large to factor)")
            continue
        try:
            _c, parts = sympy.factor_list(radicand)
        except (sympy.PolificationFailed, sympy.GeneratorsNeeded, NotImplementedError):
            failures.append(f"{short_text(prog.exprs[i])} (its radicand could not be factored)")
            continue
        vec = set()
        for f, k in parts:
            if k % 2 == 0 or not f.free_symbols and not f.atoms(sympy.Function):
                continue
            f = _canonical(f)
            for n, g in enumerate(factors):
                if g == f:
                    vec ^= {n}
                    break
            else:
                factors.append(f)
                vec ^= {len(factors) - 1}
        if not vec:
            failures.append(f"{short_text(prog.exprs[i])} (its radicand is a square up to a constant)")
            continue
        vectors.append((i, vec))
    if failures:
        return failures
    # the radicands must be independent modulo squares: Gaussian elimination over GF(2)
    basis = []
    for i, vec in vectors:
        v = set(vec)
        for pivot, b in basis:
            if pivot in v:
                v ^= b
        if not v:
            return [f"{short_text(prog.exprs[i])} (its radicand is a product of the other radicands up to a square)"]
        basis.append((min(v), v))
    return []


def _canonical(f):
    """``f`` or ``-f``, whichever has a positive leading coefficient (factors are compared up to sign)."""
    f = sympy.expand(f)
    terms = sympy.Add.make_args(f)
    lead = sorted(terms, key=sympy.default_sort_key)[0]
    coeff = lead.as_coeff_Mul()[0]
    return -f if coeff.is_negative else f
