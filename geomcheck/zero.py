"""Deciding whether an expression is identically zero, without hanging or lying.

Every proof in geomcheck ends in a question ``expr == 0?``.  :func:`decide_zero` and
:func:`decide_all_zero` answer it in stages, cheapest first, all inside one time budget:

1. **structural** -- the expression is the number 0 (or another number);
2. **exact** -- undefined functions and their derivatives are rewritten as *jets* (see
   below), and the expression is brought to a sparse rational-function normal form with
   integer coefficients in its atoms (symbols, jets, ``sin(q)``, ``sqrt(x)``, ...).  A zero
   numerator proves zero.  A nonzero one proves nothing (``sin(q)**2 + cos(q)**2 - 1`` is
   a nonzero polynomial in the atoms ``sin(q)``, ``cos(q)``), so we go on;
3. **randomized** -- the expression is evaluated with mpmath at random rational points,
   every jet of an undefined function replaced by an independent random rational number.
   The evaluator walks the expression DAG once per point (no lambdify) and tracks for
   every node a bound ``2**m`` on the size of the quantities it was computed from; a
   value is zero at a point when it is below ``10**(-0.7*dps) * max(1, 2**m)``.  One
   point is re-evaluated at ``2*dps`` digits: rounding noise shrinks by ``dps`` digits
   there, a genuine tiny value (``1e-60 * x``) does not, and is then confirmed;
4. **counterexample** -- a value that is not negligible is re-evaluated at twice the
   digits at the same point with the same jet values (and at four times, if needed);
   only a consistent value is reported as a counterexample, with the point.

Every stage checks the clock; when the budget runs out the answer is ``None`` ("unknown")
with the reason, never a hang.  The exact stage is cooperative (it is our own sparse
polynomial arithmetic, which estimates the size of every product and power before
computing it); sympy calls that cannot be interrupted cooperatively (rewriting
derivatives as jets) run under a SIGALRM timer when called from the main thread and no
one else uses SIGALRM.

"Zero by randomized evaluation" means zero, up to a tiny probability, at points drawn in
(1/8, 2) for every symbol (so that ``sqrt`` and ``log`` stay real; with both signs when
the expression contains ``Abs``, ``sign``, ``Max`` ...), hence on that region and, for
analytic expressions, wherever it continues analytically.  Symbol assumptions
(``positive``, ``negative``, ``integer``) are respected.  Floats are taken at their exact
binary values.

The jet model
-------------
An undefined function ``V`` of k arguments, applied anywhere in an expression, enters
only through its derivatives at finitely many points.  :func:`canonical_jets` rewrites
``V(a1, ..., ak)``, every ``Derivative`` of it and sympy's chain-rule output
``Subs(Derivative(V(_xi_1, q2), _xi_1), _xi_1, q1 + h*p1)`` as an application
``V_alpha(a1, ..., ak)`` of a *jet function* identified by the name ``"V"`` and the
multi-index ``alpha`` of derivative counts per argument slot.  Mixed partials taken in
different orders become the same object, and sympy's chain rule applied to a jet gives
jets again.

At a numeric point the value of ``V_alpha(a)`` is drawn at random, keyed by the name, the
multi-index and the *numeric* argument point (rounded to ``dps/2`` digits), so
``V(2*(q + h))`` and ``V(2*q + 2*h)`` get one value.  This is sound: for any finite set of
distinct points and any prescribed values of all derivatives at them there is a smooth
function with exactly those derivatives, so a nonzero value is a real counterexample,
and a nonzero identity between jets vanishes at random values only with tiny probability.

Implicit relations
------------------
With ``relations`` the expression is a function on the manifold ``{equations == 0}``
whose unknowns are implicit functions of the other symbols.  The exact stage is still
valid (zero with the unknowns free is zero on the manifold).  The randomized stage draws
the other symbols (``small`` ones such as the step size in (1/100, 1/20)), solves the
equations for the unknowns by Newton's method in mpmath, and evaluates there.  Inside
Newton the arguments of the jets move, so jet values must come from one smooth function:
each undefined function ``V`` occurring in the equations is replaced by a random
polynomial ``P_V`` of total degree ``r + 3`` (``r`` the highest derivative order of ``V``
in the equations; lowered to keep at most 2000 coefficients), and *its jets of the
orders used by the equations* are the derivatives of ``P_V`` everywhere.  All other jets
stay independent random values keyed by point: the solution only sees the jets of the
equations at the solution, so a smooth ``V`` with all these values exists and the test
is as strong as without relations except for correlations between equation jets at
several distinct points.

A relation may also carry *derived linear unknowns* (``Relation(..., derived=...)``):
columns ``D`` fixed by ``J D + rhs = 0`` with ``J`` the Jacobian of the equations, e.g.
the derivatives ``du/dx`` of the unknowns by the implicit function theorem.  After
Newton's method they are computed at each point by one LU factorization of ``J`` (with
partial pivoting, at the working precision, again at the higher precision of every
confirmation) shared by all columns.  They involve one derivative order more of the
equations' functions, so the jets of ``J`` and ``rhs`` are taken from the same random
polynomials (whose degree accounts for that order) wherever they occur: the values of
``D`` and the expression's own jets then belong to one smooth function.  The exact
stage treats ``D`` as free symbols, which is sound (zero for all values is zero).

Examples
--------
>>> import sympy
>>> from geomcheck.zero import decide_zero
>>> x = sympy.Symbol("x")
>>> decide_zero(sympy.sin(x)**2 + sympy.cos(x)**2 - 1).is_zero
True
>>> d = decide_zero(sympy.exp(x) - 1 - x)
>>> d.is_zero, d.stage
(False, 'counterexample')
"""

from __future__ import annotations

import hashlib
import itertools
import math
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
from mpmath.libmp import normalize as _mpf_normalize
from mpmath.libmp import round_nearest as _ROUND_NEAREST
import sympy
from sympy.core.function import AppliedUndef, Derivative, Function, Subs
from sympy.matrices import MatrixBase

from .errors import ExpressionError, ImplicitMapError, InvalidArgumentError

__all__ = [
    "ZeroDecision",
    "decide_zero",
    "decide_all_zero",
    "canonical_jets",
    "from_jets",
    "Relation",
    "decide_jacobian_singular",
    "Jet",
    "jet_function",
]

# ----------------------------------------------------------------------------------
# Tunables, chosen from measurements on a 2-core x86 box with pure-Python integers
# (no gmpy2): the exact stage multiplies ~7*10**5 pairs of polynomial terms per second,
# the evaluator ~3*10**4 nodes per second at 50 digits; the Stormer-Verlet residual of
# 8 degrees of freedom (256 entries, ~3400 distinct subexpressions) is proved zero by
# the exact stage in 0.04 s.

#: fraction of the total budget the exact stage may use before randomized evaluation.
EXACT_BUDGET_FRACTION = 0.4
#: above this many distinct subexpressions the exact stage is skipped: randomized
#: evaluation is linear in the size, expansion is not, and is the better first shot.
EXACT_MAX_NODES = 60_000
#: the same limit off the main thread, where no SIGALRM safety net can be armed.
EXACT_MAX_NODES_THREAD = 20_000
#: an intermediate polynomial of the exact stage with more terms than this aborts it.
EXACT_MAX_TERMS = 100_000
#: the largest integer exponent the exact stage expands.
EXACT_MAX_EXPONENT = 512
#: how many draws a randomized stage may spend on points that turn out singular.
TRIES_PER_POINT = 4
#: a random polynomial standing for an undefined function has at most this many terms.
POLY_MAX_TERMS = 2000
#: Newton iterations per solve (quadratic convergence needs ~6 from a good guess).
NEWTON_MAX_ITER = 60

_LOG2_10 = math.log2(10)
_NEG = -(10**9)  # the "magnitude" of an exact zero
_CHECK_EVERY = 2048  # nodes between clock checks in the interpreters


class _Interrupted(BaseException):
    """The clock ran out (BaseException so that sympy's ``except Exception`` cannot eat it)."""


class _TooBig(Exception):
    """The exact stage met a polynomial too large to expand within reason."""


class _Unevaluable(Exception):
    """A node has no numeric meaning we know how to compute."""


class _BadPoint(Exception):
    """The drawn point is singular for the expression (division by zero, ...)."""


# ----------------------------------------------------------------------------------
# Decisions


@dataclass(frozen=True)
class ZeroDecision:
    """The answer to "is this expression (are these expressions) identically zero?".

    Attributes
    ----------
    is_zero : bool or None
        True (zero), False (a confirmed counterexample) or None (unknown).
    stage : str
        ``"structural"``, ``"exact"``, ``"randomized"``, ``"counterexample"`` or
        ``"unknown"``: the stage that decided.
    method : str
        One readable sentence saying how it was decided (or why not).
    point : dict or None
        For a counterexample: ``{symbol name or jet description: value}``; values are
        sympy Rationals for drawn values, strings for computed ones (solved unknowns).
    value : mpmath number or None
        For a counterexample: the nonzero value at ``point``.
    index : object or None
        For :func:`decide_all_zero`: the key (mapping) or position (sequence) of the
        entry that is nonzero (or undecided, for None).

    Notes
    -----
    ``bool(decision)`` raises ``TypeError``: a decision has three values, so callers
    must look at ``decision.is_zero`` and handle ``None``.
    """

    is_zero: bool | None
    stage: str
    method: str
    point: dict | None = None
    value: Any = None
    index: Any = None

    def __bool__(self):
        raise TypeError(
            "a ZeroDecision has three values (True, False, None = unknown); "
            "test decision.is_zero explicitly instead of its truth value"
        )

    def __str__(self):
        return self.method


# ----------------------------------------------------------------------------------
# Jets


class Jet(Function):
    """Base class of jet functions: ``V_alpha(a1, ..., ak)`` = the derivative of an
    undefined function ``V`` with multi-index ``alpha`` (counts per argument slot),
    evaluated at ``(a1, ..., ak)``.

    Subclasses are made (once per name and multi-index) by :func:`jet_function`;
    ``jet_name`` and ``jet_index`` identify them.  Differentiating by an argument slot
    increments its count, so sympy's chain rule maps jets to jets.
    """

    jet_name = ""
    jet_index: tuple = ()

    def fdiff(self, argindex=1):
        index = list(self.jet_index)
        index[argindex - 1] += 1
        return jet_function(self.jet_name, tuple(index))(*self.args)

    def _eval_evalf(self, prec):
        # An undefined function has no numeric value; never look it up in mpmath by name.
        return None

    @property
    def order(self) -> int:
        """The total derivative order ``|alpha|``."""
        return sum(self.jet_index)

    def _sympystr(self, printer):
        argstr = ", ".join(printer._print(a) for a in self.args)
        return f"{_jet_label(self)}({argstr})"

    def _latex(self, printer, exp=None):
        argstr = ", ".join(printer._print(a) for a in self.args)
        name = printer._print(sympy.Symbol(self.jet_name))
        parts = []
        for i, n in enumerate(self.jet_index):
            if n:
                sub = printer._print(self.args[i]) if isinstance(self.args[i], sympy.Symbol) and \
                    self.args.count(self.args[i]) == 1 and all(isinstance(a, sympy.Symbol) for a in self.args) \
                    else str(i + 1)
                parts.append(rf"\partial_{{{sub}}}" + (f"^{{{n}}}" if n > 1 else ""))
        body = "".join(parts) + (" " if parts else "") + name + rf"\left({argstr}\right)"
        if exp is not None:
            body = rf"\left({body}\right)^{{{exp}}}"
        return body

    def __reduce_ex__(self, protocol):
        # The classes are made at run time; pickle the recipe, not the class.
        return (_apply_jet, (self.jet_name, self.jet_index, self.args))


_JET_CLASSES: dict = {}
_JET_LOCK = threading.Lock()


def jet_function(name: str, index: tuple):
    """The jet function class of the undefined function ``name`` with multi-index ``index``.

    Parameters
    ----------
    name : str
        The name of the undefined function.
    index : tuple of int
        Derivative counts per argument slot; its length is the arity.

    Returns
    -------
    type
        A :class:`Jet` subclass, the same object for equal arguments.

    Examples
    --------
    >>> import sympy
    >>> q1, q2 = sympy.symbols("q1 q2")
    >>> Vq = jet_function("V", (0, 0))(q1, q2)
    >>> Vq.diff(q2).diff(q1) == Vq.diff(q1).diff(q2)
    True
    >>> Vq.diff(q1, 2)
    V_{q1q1}(q1, q2)
    """
    key = (str(name), tuple(int(n) for n in index))
    cls = _JET_CLASSES.get(key)
    if cls is None:
        with _JET_LOCK:
            cls = _JET_CLASSES.get(key)
            if cls is None:
                # named by the differentiated slots and the arity ("V__d112.2" for
                # d1 d1 d2 V(x, y)), so that sympy's printing order lists jets by slot
                slots = [str(i + 1) for i, n in enumerate(key[1]) for _ in range(n)]
                clsname = f"{key[0]}__d" + ("" if len(key[1]) < 10 else ",").join(slots) + f".{len(key[1])}"
                cls = type(clsname, (Jet,), {
                    "jet_name": key[0],
                    "jet_index": key[1],
                    "nargs": len(key[1]),
                    "__module__": __name__,
                })
                _JET_CLASSES[key] = cls
    return cls


def _jet_label(j):
    """``V`` / ``V_{q1q2}`` (distinct symbol arguments) / ``V_{12}`` (argument slots)."""
    index, args = j.jet_index, j.args
    if not any(index):
        return j.jet_name
    if all(isinstance(a, sympy.Symbol) for a in args) and len(set(args)) == len(args):
        labels = [str(args[i]) for i, n in enumerate(index) for _ in range(n)]
        sep = ""
    else:
        labels = [str(i + 1) for i, n in enumerate(index) for _ in range(n)]
        sep = "" if len(index) < 10 else ","
    return f"{j.jet_name}_{{{sep.join(labels)}}}"


def _apply_jet(name, index, args):
    return jet_function(name, index)(*args)


def _check_deadline(deadline):
    if deadline is not None and time.monotonic() > deadline:
        raise _Interrupted


def _to_jets(expr, memo, deadline=None):
    """Convert ``expr`` (recursively, sharing ``memo``) to jet form."""
    # Subs compares and hashes through a dummy-renaming xreplace of its whole body,
    # which made equality lookups the dominant cost; Subs nodes are memoized by
    # identity instead (the input, which holds them, outlives the memo).
    key = ("subs", id(expr)) if isinstance(expr, Subs) else expr
    hit = memo.get(key)
    if hit is not None:
        return hit
    if len(memo) % 512 == 0:
        _check_deadline(deadline)
    if not expr.args:
        res = expr
    elif isinstance(expr, AppliedUndef):
        args = [_to_jets(a, memo, deadline) for a in expr.args]
        res = jet_function(expr.func.__name__, (0,) * len(args))(*args)
    elif isinstance(expr, Derivative):
        vc = expr.variable_count
        if all(isinstance(v, sympy.Symbol) and isinstance(n, (int, sympy.Integer)) for v, n in vc):
            res = _direct_jet(expr, memo, deadline)
            if res is None:
                res = _to_jets(expr.expr, memo, deadline)
                for v, n in vc:
                    res = res.diff(v, int(n))
        else:
            res = expr  # a derivative by a function: no jet form; it stays opaque
    elif isinstance(expr, Subs):
        inner = _to_jets(expr.expr, memo, deadline)
        pts = [_to_jets(p, memo, deadline) for p in expr.point]
        rule = dict(zip(expr.variables, pts))
        if inner.has(Derivative, Subs, sympy.Integral):
            # something stayed unevaluated: let sympy substitute into it properly
            res = inner.subs(rule, simultaneous=True)
        else:
            # after conversion no derivative refers to the bound variables any more,
            # so plain replacement is substitution
            res = inner.xreplace(rule)
    else:
        args = expr.args
        new = [_to_jets(a, memo, deadline) for a in args]
        if all(a is b for a, b in zip(args, new)):
            res = expr
        else:
            res = expr.func(*new)
    memo[key] = res
    return res


def _direct_jet(deriv, memo, deadline):
    """The jet of ``Derivative(V(a1..ak), vars)`` when every variable is one argument slot.

    That is the common case (``Derivative(V(q1, q2), q1, q2)``, and the body of sympy's
    ``Subs`` chain-rule output), and building the jet directly avoids sympy's slow
    ``Derivative`` constructor.  None when the chain rule is needed.
    """
    f = deriv.expr
    if not isinstance(f, AppliedUndef):
        return None
    args = f.args
    index = [0] * len(args)
    for v, n in deriv.variable_count:
        slots = [i for i, a in enumerate(args) if a == v]
        if len(slots) != 1:
            return None
        i = slots[0]
        if any(v in a.free_symbols for k, a in enumerate(args) if k != i):
            return None
        index[i] += int(n)
    new = [_to_jets(a, memo, deadline) for a in args]
    return jet_function(f.func.__name__, tuple(index))(*new)


class _LRU:
    """A small thread-safe least-recently-used memo."""

    def __init__(self, size):
        self.size = size
        self.data: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            hit = self.data.get(key)
            if hit is not None:
                self.data.move_to_end(key)
            return hit

    def put(self, key, value):
        with self.lock:
            self.data[key] = value
            if len(self.data) > self.size:
                self.data.popitem(last=False)

    def clear(self):
        with self.lock:
            self.data.clear()


_JETS_CACHE = _LRU(4096)


def canonical_jets(expr):
    """Rewrite undefined functions, their derivatives and ``Subs`` of them as jets.

    Parameters
    ----------
    expr : sympy.Basic
        Any sympy expression.

    Returns
    -------
    sympy.Basic
        The same function, with every ``V(a1..ak)``, ``Derivative(V(...), ...)`` and
        ``Subs(Derivative(V(...), ...), ..., ...)`` replaced by an application of a
        :class:`Jet` class.  Derivatives taken in different orders give equal jets.

    Examples
    --------
    >>> import sympy
    >>> p, q = sympy.symbols("p q")
    >>> V = sympy.Function("V")
    >>> canonical_jets(sympy.Derivative(V(p, q), p, q) - sympy.Derivative(V(p, q), q, p))
    0
    >>> canonical_jets(V(q + p, q).diff(q))
    V_{1}(p + q, q) + V_{2}(p + q, q)
    """
    if not isinstance(expr, sympy.Basic):
        return expr
    hit = _JETS_CACHE.get(expr)
    if hit is not None:
        return hit
    if not expr.has(AppliedUndef, Derivative, Subs):
        res = expr
    else:
        res = _to_jets(expr, {})
    _JETS_CACHE.put(expr, res)
    return res


def _from_jet(j, args):
    V = sympy.Function(j.jet_name)
    index = j.jet_index
    if not any(index):
        return V(*args)
    base, dummies, points = [], [], []
    for i, a in enumerate(args):
        direct = (
            isinstance(a, sympy.Symbol)
            and all(a not in b.free_symbols for k, b in enumerate(args) if k != i)
        )
        if index[i] and not direct:
            d = sympy.Dummy(f"xi_{i + 1}")
            base.append(d)
            dummies.append(d)
            points.append(a)
        else:
            base.append(a)
    # evaluate=False: evaluating would differentiate every argument by the variables
    # (walking the large points of a Subs) only to find the derivative we are building
    deriv = Derivative(V(*base), *[(base[i], n) for i, n in enumerate(index) if n], evaluate=False)
    if not dummies:
        return deriv
    return Subs(deriv, tuple(dummies), tuple(points))


def from_jets(expr):
    """Convert jets back to sympy-native ``Derivative`` / ``Subs`` form.

    ``V_alpha(q1, q2)`` with distinct symbol arguments becomes
    ``Derivative(V(q1, q2), ...)``; otherwise the differentiated slots are replaced by
    dummies and substituted: ``Subs(Derivative(V(_xi_1, q2), _xi_1), _xi_1, q1 + h*p1)``.

    Parameters
    ----------
    expr : sympy.Basic

    Returns
    -------
    sympy.Basic

    Examples
    --------
    >>> import sympy
    >>> q1, q2 = sympy.symbols("q1 q2")
    >>> V = sympy.Function("V")
    >>> e = sympy.Derivative(V(q1, q2), q2, q1)
    >>> from_jets(canonical_jets(e))
    Derivative(V(q1, q2), q1, q2)
    >>> canonical_jets(from_jets(canonical_jets(V(2*q1, q2).diff(q1)))) == canonical_jets(V(2*q1, q2).diff(q1))
    True
    """
    if not isinstance(expr, sympy.Basic) or not expr.has(Jet):
        return expr
    memo = {}

    def conv(e):
        hit = memo.get(e)
        if hit is not None:
            return hit
        if not e.args:
            res = e
        else:
            new = [conv(a) for a in e.args]
            if isinstance(e, Jet):
                res = _from_jet(e, new)
            elif all(a is b for a, b in zip(e.args, new)):
                res = e
            else:
                res = e.func(*new)
        memo[e] = res
        return res

    return conv(expr)


# ----------------------------------------------------------------------------------
# Relations


class Relation:
    """Equations ``== 0`` that define ``unknowns`` implicitly as functions of the other symbols.

    Parameters
    ----------
    equations : sequence of sympy expressions
        As many as unknowns.
    unknowns : sequence of sympy.Symbol
        Distinct symbols fixed by the equations.
    guess : dict, optional
        ``{unknown: expression in the other symbols}``: where Newton's method starts
        (default 0 for every unknown).
    small : sequence of sympy.Symbol
        Symbols to draw small, e.g. the step size ``h`` of an implicit scheme, so that
        the solution near ``guess`` exists and Newton converges.
    derived : sequence of (symbols, rhs), optional
        *Derived linear unknowns*.  Each pair defines a column of new symbols (one per
        unknown, in the order of ``unknowns``) by the linear equations
        ``J . symbols + rhs == 0``, where ``J`` is the Jacobian of ``equations`` with
        respect to ``unknowns`` and ``rhs`` has one expression per equation (in the
        other symbols, the unknowns and the symbols of *earlier* columns).  With
        ``rhs = dF/dx`` the column is ``du/dx`` (implicit function theorem): the
        derivatives of the unknowns without any symbolic elimination.  At every point
        of the randomized stage they are computed numerically, after Newton's method,
        from one LU factorization of ``J`` shared by all columns.

    Raises
    ------
    ImplicitMapError
        Unknowns that are not distinct symbols, or a count of equations that differs
        from the count of unknowns, or a guess that refers to the unknowns.
    ExpressionError
        An equation that is not a scalar commutative sympy expression.

    Examples
    --------
    >>> import sympy
    >>> q, p, h, Q, P = sympy.symbols("q p h Q P")
    >>> R = Relation([Q - q - h*(p + P)/2, P - p + h*sympy.sin((q + Q)/2)], [Q, P],
    ...              guess={Q: q, P: p}, small=[h])
    >>> decide_zero(Q - q - h*(p + P)/2, relations=[R]).is_zero
    True

    The derivatives of Q, P by q as derived unknowns ``dQ, dP`` (``J (dQ, dP) + F_q = 0``):

    >>> dQ, dP = sympy.symbols("dQ dP")
    >>> F = [Q - q - h*(p + P)/2, P - p + h*sympy.sin((q + Q)/2)]
    >>> R2 = Relation(F, [Q, P], guess={Q: q, P: p}, small=[h], derived=[([dQ, dP], [f.diff(q) for f in F])])
    >>> decide_zero(dP + h*sympy.cos((q + Q)/2)*(1 + dQ)/2, relations=[R2]).is_zero
    True
    """

    def __init__(self, equations, unknowns, guess=None, small=(), derived=()):
        if isinstance(equations, sympy.Basic) or not hasattr(equations, "__iter__"):
            equations = [equations]
        self.equations = tuple(_as_expr(e, "Relation equation") for e in equations)
        if isinstance(unknowns, sympy.Basic) or not hasattr(unknowns, "__iter__"):
            unknowns = [unknowns]
        self.unknowns = tuple(unknowns)
        if not all(isinstance(u, sympy.Symbol) for u in self.unknowns) or len(set(self.unknowns)) != len(self.unknowns):
            raise ImplicitMapError(f"Relation: unknowns {self.unknowns!r} must be distinct sympy Symbols")
        if len(self.equations) != len(self.unknowns):
            raise ImplicitMapError(
                f"Relation: {len(self.equations)} equations for {len(self.unknowns)} unknowns "
                f"{list(self.unknowns)}; expected one equation per unknown"
            )
        guess = dict(guess or {})
        unknown_set = set(self.unknowns)
        for k in guess:
            if k not in unknown_set:
                raise ImplicitMapError(
                    f"Relation: guess given for {k!r}, which is not one of the unknowns {list(self.unknowns)}"
                )
        self.guess = {}
        for u in self.unknowns:
            g = _as_expr(guess.get(u, 0), f"Relation guess for {u}")
            if g.free_symbols & unknown_set:
                raise ImplicitMapError(f"Relation: the guess {g} for {u} refers to the unknowns {list(self.unknowns)}")
            self.guess[u] = g
        if isinstance(small, sympy.Basic):
            small = [small]
        self.small = tuple(small)
        if not all(isinstance(s, sympy.Symbol) for s in self.small) or unknown_set & set(self.small):
            raise ImplicitMapError(f"Relation: small={self.small!r} must be symbols that are not unknowns")
        self.derived = self._check_derived(derived, unknown_set)

    def _check_derived(self, derived, unknown_set):
        columns = []
        seen = set()
        for n, pair in enumerate(derived or ()):
            try:
                symbols, rhs = pair
            except (TypeError, ValueError):
                raise ImplicitMapError(f"Relation: derived entry {n} must be a pair (symbols, rhs), got {pair!r}") from None
            symbols = tuple(symbols)
            rhs = tuple(_as_expr(r, f"Relation derived right-hand side {n}") for r in rhs)
            if len(symbols) != len(self.unknowns) or len(rhs) != len(self.equations):
                raise ImplicitMapError(
                    f"Relation: derived column {n} has {len(symbols)} symbols and {len(rhs)} right-hand sides; "
                    f"expected one symbol per unknown ({len(self.unknowns)}) and one entry per equation"
                )
            bad = [x for x in symbols if not isinstance(x, sympy.Symbol) or x in seen or x in unknown_set
                   or x in self.small]
            if bad or len(set(symbols)) != len(symbols):
                raise ImplicitMapError(
                    f"Relation: derived symbols {list(symbols)} must be distinct Symbols that are not unknowns, "
                    "small symbols or symbols of another column"
                )
            if any(set(symbols) & r.free_symbols for r in rhs):
                raise ImplicitMapError(f"Relation: the right-hand side of derived column {n} refers to its own symbols")
            seen.update(symbols)
            columns.append((symbols, rhs))
        all_derived = set(seen)
        earlier = set()
        for n, (symbols, rhs) in enumerate(columns):
            ahead = all_derived - earlier - set(symbols)
            if any(ahead & r.free_symbols for r in rhs):
                raise ImplicitMapError(f"Relation: derived column {n} refers to symbols of a later column")
            earlier.update(symbols)
        if any(all_derived & e.free_symbols for e in self.equations) or any(
                all_derived & g.free_symbols for g in self.guess.values()):
            raise ImplicitMapError("Relation: the equations and guesses may not refer to derived symbols")
        return tuple(columns)

    @property
    def derived_symbols(self) -> tuple:
        """Every derived symbol, column by column."""
        return tuple(x for symbols, _ in self.derived for x in symbols)

    def _key(self):
        return (self.equations, self.unknowns, tuple(self.guess[u] for u in self.unknowns), self.small, self.derived)

    def __eq__(self, other):
        return isinstance(other, Relation) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        eqs = ", ".join(f"{e} = 0" for e in self.equations)
        return f"Relation([{eqs}], unknowns={list(self.unknowns)})"


# ----------------------------------------------------------------------------------
# Input checking


def _as_expr(e, what="expression"):
    if isinstance(e, sympy.Basic):
        x = e
    else:
        if isinstance(e, (str, bytes)):
            raise ExpressionError(
                f"{what} {e!r} is a string; parse it first (sympy.parse_expr) so that its symbols are explicit"
            )
        try:
            x = sympy.sympify(e, strict=True)
        except (sympy.SympifyError, TypeError, ValueError, AttributeError):
            raise ExpressionError(f"{what} {e!r} (of type {type(e).__name__}) is not a sympy expression") from None
    if isinstance(x, MatrixBase) or getattr(x, "is_Matrix", False):
        raise ExpressionError(f"{what} {x!r} is a matrix; zero testing takes scalar expressions (pass its entries)")
    if not isinstance(x, sympy.Expr):
        raise ExpressionError(f"{what} {x!r} (a {type(x).__name__}) is not a scalar sympy expression")
    if x.is_commutative is False:
        raise ExpressionError(
            f"{what} {x} contains noncommutative symbols; zero testing takes commutative coefficient expressions"
        )
    return x


def _entries(exprs):
    if isinstance(exprs, Mapping):
        return list(exprs.items())
    if isinstance(exprs, MatrixBase):
        return [((i, j), exprs[i, j]) for i in range(exprs.rows) for j in range(exprs.cols)]
    if isinstance(exprs, (sympy.Basic, str, bytes)) or not hasattr(exprs, "__iter__"):
        raise ExpressionError(
            f"decide_all_zero expects a mapping or a sequence of expressions, got {type(exprs).__name__} {exprs!r}; "
            "use decide_zero for a single expression"
        )
    return list(enumerate(exprs))


def _as_relations(relations):
    if relations is None:
        return ()
    if isinstance(relations, Relation):
        relations = (relations,)
    out = []
    for r in relations:
        if not isinstance(r, Relation):
            raise ExpressionError(f"relations must be Relation objects, got {type(r).__name__} {r!r}")
        if r not in out:
            out.append(r)
    return tuple(out)


# ----------------------------------------------------------------------------------
# The expression DAG as a flat program

_NUM, _SYM, _ADD, _MUL, _POWI, _POWR, _POWG, _FN, _JET, _CONST, _FALLBACK, _OPAQUE, _PIECEWISE = range(13)

_RELATIONS = {
    sympy.StrictLessThan: lambda a, b: a < b,
    sympy.LessThan: lambda a, b: a <= b,
    sympy.StrictGreaterThan: lambda a, b: a > b,
    sympy.GreaterThan: lambda a, b: a >= b,
    sympy.Equality: lambda a, b: a == b,
    sympy.Unequality: lambda a, b: a != b,
}


def _piecewise_parts(e):
    """``[(expr, cond_kind, lhs, rhs)]`` of a Piecewise whose conditions are simple
    comparisons of expressions (or True), else None."""
    parts = []
    for expr, cond in e.args:
        if cond is sympy.true:
            parts.append((expr, None, None, None))
        elif type(cond) in _RELATIONS and all(isinstance(a, sympy.Expr) for a in cond.args):
            parts.append((expr, type(cond), cond.lhs, cond.rhs))
        else:
            return None
    return parts


def _py_max(ctx, *a):
    return max(a)


def _py_min(ctx, *a):
    return min(a)


def _mp(name):
    return lambda ctx, *a: getattr(ctx, name)(*a)


_FUNCTIONS = {
    sympy.exp: _mp("exp"), sympy.log: _mp("log"),
    sympy.sin: _mp("sin"), sympy.cos: _mp("cos"), sympy.tan: _mp("tan"), sympy.cot: _mp("cot"),
    sympy.sec: _mp("sec"), sympy.csc: _mp("csc"),
    sympy.asin: _mp("asin"), sympy.acos: _mp("acos"), sympy.atan: _mp("atan"), sympy.acot: _mp("acot"),
    sympy.asec: _mp("asec"), sympy.acsc: _mp("acsc"),
    sympy.sinh: _mp("sinh"), sympy.cosh: _mp("cosh"), sympy.tanh: _mp("tanh"), sympy.coth: _mp("coth"),
    sympy.sech: _mp("sech"), sympy.csch: _mp("csch"),
    sympy.asinh: _mp("asinh"), sympy.acosh: _mp("acosh"), sympy.atanh: _mp("atanh"), sympy.acoth: _mp("acoth"),
    sympy.atan2: _mp("atan2"), sympy.sinc: _mp("sinc"),
    sympy.Abs: lambda ctx, x: abs(x), sympy.sign: _mp("sign"),
    sympy.re: _mp("re"), sympy.im: _mp("im"), sympy.conjugate: _mp("conj"),
    sympy.erf: _mp("erf"), sympy.erfc: _mp("erfc"), sympy.gamma: _mp("gamma"),
    sympy.loggamma: _mp("loggamma"), sympy.factorial: _mp("factorial"),
    sympy.floor: _mp("floor"), sympy.ceiling: _mp("ceil"),
    sympy.Max: _py_max, sympy.Min: _py_min,
}

# Functions that are not analytic on the positive orthant's neighbourhood: an identity
# that holds for positive arguments (Abs(x) - x) need not hold elsewhere, so points are
# then drawn with both signs.
_NONANALYTIC = {sympy.Abs, sympy.sign, sympy.floor, sympy.ceiling, sympy.Max, sympy.Min,
                sympy.re, sympy.im, sympy.conjugate}

_CONSTANTS = {
    sympy.pi: lambda ctx: +ctx.pi,
    sympy.E: lambda ctx: +ctx.e,
    sympy.I: lambda ctx: ctx.mpc(0, 1),
    sympy.EulerGamma: lambda ctx: +ctx.euler,
    sympy.Catalan: lambda ctx: +ctx.catalan,
    sympy.GoldenRatio: lambda ctx: +ctx.phi,
}

_SPECIAL = (AppliedUndef, Derivative, Subs)

_NONFINITE = (sympy.S.NaN, sympy.S.ComplexInfinity, sympy.S.Infinity, sympy.S.NegativeInfinity)




class _Program:
    """A DAG of sympy nodes flattened in post-order (children before parents).

    ``nodes[i] = (op, data, args)`` with ``args`` indices of earlier nodes.  One program
    holds all entries of a :func:`decide_all_zero` call, so common subexpressions are
    compiled, expanded and evaluated once.
    """

    def __init__(self):
        self.nodes = []
        self.exprs = []
        self.index = {}
        self.symbols = {}  # Symbol -> node index
        self.complex_constant = False
        self.nonanalytic = False  # Abs, sign, Max, ...: sample both signs
        self.has_float = False
        self._consts = {}
        self.jet_memo = {}  # shared by every conversion to jets of this program
        self.deadline = None  # checked by long walks over the program
        self._keep = []  # nodes keyed by identity stay alive as long as the program

    def __len__(self):
        return len(self.nodes)

    @staticmethod
    def _key(e):
        # Undefined functions, Derivative and Subs are compiled through their jet form
        # and keyed by identity: Subs compares through an xreplace of its whole body.
        return ("id", id(e)) if isinstance(e, _SPECIAL) else e

    def add(self, expr, deadline=None):
        """Compile ``expr`` (rewriting undefined functions as jets); its node index."""
        index = self.index
        key = self._key
        k0 = key(expr)
        hit = index.get(k0)
        if hit is not None:
            return hit
        stack = [(expr, 0, None)]
        count = 0
        while stack:
            e, state, conv = stack.pop()
            k = key(e)
            if k in index:
                continue
            count += 1
            if count % _CHECK_EVERY == 0:
                _check_deadline(deadline)
            if state == 0:
                if isinstance(e, _SPECIAL):
                    conv = _to_jets(e, self.jet_memo, deadline)
                    if conv is not e:
                        self._keep.append(e)
                        stack.append((e, 2, conv))
                        if key(conv) not in index:
                            stack.append((conv, 0, None))
                        continue
                stack.append((e, 1, None))
                for c in reversed(self._children(e)):
                    if key(c) not in index:
                        stack.append((c, 0, None))
            elif state == 1:
                index[k] = self._emit(e)
            else:
                index[k] = index[key(conv)]
        return index[k0]

    @staticmethod
    def _children(e):
        if isinstance(e, (sympy.Add, sympy.Mul)):
            return e.args
        if isinstance(e, sympy.Pow):
            if isinstance(e.exp, sympy.Rational):
                return (e.base,)
            return e.args
        if isinstance(e, Jet):
            return e.args
        if isinstance(e, sympy.Piecewise):
            parts = _piecewise_parts(e)
            if parts is None:
                return ()
            return tuple(a for expr, kind, lhs, rhs in parts for a in ((expr,) if kind is None else (expr, lhs, rhs)))
        if isinstance(e, (Function, sympy.Max, sympy.Min)) and all(isinstance(a, sympy.Expr) for a in e.args):
            return e.args
        return ()

    def _emit(self, e):
        i = len(self.nodes)
        index = self.index
        key = self._key

        if isinstance(e, sympy.Rational):
            node = (_NUM, (int(e.p), int(e.q)), ())
        elif isinstance(e, sympy.Float):
            node = (_NUM, e._mpf_, ())
            self.has_float = True
        elif isinstance(e, sympy.Symbol) or (
            isinstance(e, sympy.Indexed) and all(isinstance(k, sympy.Integer) for k in e.indices)
        ):
            # u[3] of a semi-discretized PDE is a coordinate like any symbol
            if e.is_commutative is False:
                raise ExpressionError(f"the symbol {e} is noncommutative; zero testing takes commutative expressions")
            node = (_SYM, e, ())
            self.symbols[e] = i
        elif e in _CONSTANTS:
            node = (_CONST, e, ())
            if e is sympy.I:
                self.complex_constant = True
        elif isinstance(e, sympy.Add):
            node = (_ADD, None, tuple(index[key(a)] for a in e.args))
        elif isinstance(e, sympy.Mul):
            node = (_MUL, None, tuple(index[key(a)] for a in e.args))
        elif isinstance(e, sympy.Pow):
            b, x = e.args
            if isinstance(x, sympy.Integer):
                node = (_POWI, int(x), (index[key(b)],))
            elif isinstance(x, sympy.Rational):
                node = (_POWR, (int(x.p), int(x.q)), (index[key(b)],))
            else:
                node = (_POWG, None, (index[key(b)], index[key(x)]))
        elif isinstance(e, Jet):
            node = (_JET, (e.jet_name, e.jet_index, _jet_label(e)), tuple(index[key(a)] for a in e.args))
        elif any(e is c or e == c for c in _NONFINITE):
            raise ExpressionError(f"the expression contains {e}, so it is not a finite function")
        elif isinstance(e, sympy.Piecewise) and _piecewise_parts(e) is not None:
            # the branch whose condition holds first at the point; non-analytic
            pieces = tuple(
                (index[key(expr)], kind, None if kind is None else index[key(lhs)],
                 None if kind is None else index[key(rhs)])
                for expr, kind, lhs, rhs in _piecewise_parts(e)
            )
            args = tuple(sorted({a for piece in pieces for a in (piece[0], piece[2], piece[3]) if a is not None}))
            node = (_PIECEWISE, pieces, args)
            self.nonanalytic = True
        elif type(e) in _FUNCTIONS and all(key(a) in index for a in e.args):
            node = (_FN, _FUNCTIONS[type(e)], tuple(index[key(a)] for a in e.args))
            if type(e) in _NONANALYTIC:
                self.nonanalytic = True
        elif isinstance(e, Function) and e.args and all(key(a) in index for a in e.args):
            node = (_FALLBACK, e.func, tuple(index[key(a)] for a in e.args))
            self.nonanalytic = True
        elif isinstance(e, sympy.NumberSymbol):
            node = (_FALLBACK, e, ())
        else:
            node = (_OPAQUE, e, ())
        self.nodes.append(node)
        self.exprs.append(e)
        return i

    def reachable(self, roots, skip=None):
        """Sorted indices of the nodes the ``roots`` depend on (a valid evaluation order)."""
        seen = set() if skip is None else set(skip)
        stack = [r for r in roots if r not in seen]
        nodes = self.nodes
        out = []
        while stack:
            if len(out) % 4096 == 4095:
                _check_deadline(self.deadline)
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            out.append(i)
            stack.extend(a for a in nodes[i][2] if a not in seen)
        out.sort()
        return out

    def constants(self, ctx):
        key = ctx.dps
        table = self._consts.get(key)
        if table is None:
            table = self._consts[key] = {}
        return table


# ----------------------------------------------------------------------------------
# Stage 2: exact normal form.  A value is (N, c, D): N / (c * D) with N, D sparse
# polynomials {monomial: int}, c a positive int and D None for 1.  A monomial is a
# sorted tuple of generator indices with repetition (x0**2*x3 is (0, 0, 3)), so
# multiplying monomials is concatenating and sorting short tuples.  No gcds of
# polynomials are taken: N == 0 decides zero whatever the denominator.


def _pmul(a, b, deadline):
    if len(a) < len(b):
        a, b = b, a
    if len(a) * len(b) > 50 * EXACT_MAX_TERMS:
        raise _TooBig(f"a product of polynomials with {len(a)} and {len(b)} terms")
    out = {}
    get = out.get
    bitems = list(b.items())
    n = 0
    for m1, c1 in a.items():
        n += 1
        if n % 256 == 0:
            _check_deadline(deadline)
        for m2, c2 in bitems:
            if not m1:
                m = m2
            elif not m2:
                m = m1
            else:
                m = tuple(sorted(m1 + m2))
            out[m] = get(m, 0) + c1 * c2
    out = {m: c for m, c in out.items() if c}
    if len(out) > EXACT_MAX_TERMS:
        raise _TooBig(f"a polynomial with {len(out)} terms")
    return out


def _padd(a, ka, b, kb):
    """ka*a + kb*b for int scalars."""
    if len(a) < len(b):
        a, ka, b, kb = b, kb, a, ka
    out = {m: c * ka for m, c in a.items()} if ka != 1 else dict(a)
    for m, c in b.items():
        s = out.get(m, 0) + c * kb
        if s:
            out[m] = s
        else:
            out.pop(m, None)
    return out


def _content_reduce(N, c):
    if c == 1 or not N:
        return N, (1 if not N else c)
    g = math.gcd(c, *N.values())
    if g > 1:
        return {m: v // g for m, v in N.items()}, c // g
    return N, c


def _rf_add(x, y, deadline):
    N1, c1, D1 = x
    N2, c2, D2 = y
    if D1 == D2:
        L = c1 * c2 // math.gcd(c1, c2)
        N = _padd(N1, L // c1, N2, L // c2)
        N, c = _content_reduce(N, L)
        return N, c, D1
    A = N1 if D2 is None else _pmul(N1, D2, deadline)
    B = N2 if D1 is None else _pmul(N2, D1, deadline)
    D = D1 if D2 is None else (D2 if D1 is None else _pmul(D1, D2, deadline))
    L = c1 * c2 // math.gcd(c1, c2)
    N = _padd(A, L // c1, B, L // c2)
    N, c = _content_reduce(N, L)
    return N, c, D


def _rf_sum(terms, deadline):
    """The sum of many values: polynomial terms accumulate in place (pairwise addition
    would copy the growing sum once per term)."""
    L = 1
    for N, c, D in terms:
        if D is None and c != 1:
            L = L * c // math.gcd(L, c)
    acc = {}
    rest = []
    for n, (N, c, D) in enumerate(terms):
        if D is not None:
            rest.append((N, c, D))
            continue
        if n % 256 == 255:
            _check_deadline(deadline)
        k = L // c
        for m, v in N.items():
            s = acc.get(m, 0) + v * k
            if s:
                acc[m] = s
            else:
                del acc[m]
    N, c = _content_reduce(acc, L)
    out = (N, c, None)
    for x in rest:
        out = _rf_add(out, x, deadline)
    if len(out[0]) > EXACT_MAX_TERMS:
        raise _TooBig(f"a polynomial with {len(out[0])} terms")
    return out


def _rf_mul(x, y, deadline):
    N1, c1, D1 = x
    N2, c2, D2 = y
    if not N1 or not N2:
        return {}, 1, None
    N = _pmul(N1, N2, deadline)
    D = D1 if D2 is None else (D2 if D1 is None else _pmul(D1, D2, deadline))
    N, c = _content_reduce(N, c1 * c2)
    return N, c, D


def _rf_inv(x):
    N, c, D = x
    if not N:
        raise _TooBig("a division by an expression that expands to 0")
    if len(N) == 1 and () in N:
        k = N[()]
        num = {m: v * c * (1 if k > 0 else -1) for m, v in (D or {(): 1}).items()}
        return num, abs(k), None
    num = {m: v * c for m, v in (D or {(): 1}).items()}
    return num, 1, N


def _poly_power_size(t, n):
    # number of monomials of degree n in t variables: a bound on the terms of p**n
    return math.comb(n + t - 1, n) if t > 1 else 1


def _rf_pow(x, n, deadline):
    if n == 0:
        return {(): 1}, 1, None
    if n < 0:
        x = _rf_inv(x)
        n = -n
    if n > EXACT_MAX_EXPONENT:
        raise _TooBig(f"an exponent {n}")
    N, c, D = x
    for P in (N, D):
        if P is not None and _poly_power_size(len(P), n) > EXACT_MAX_TERMS:
            raise _TooBig(f"a {len(P)}-term polynomial raised to the power {n}")
    result = ({(): 1}, 1, None)
    base = x
    while True:
        if n & 1:
            result = _rf_mul(result, base, deadline)
        n >>= 1
        if not n:
            return result
        base = _rf_mul(base, base, deadline)


def _exact_stage(prog, roots, deadline):
    """Prove roots zero by the sparse normal form.

    Returns ``(proven, reason)``: the set of root node indices proven zero and, when
    the stage stopped early, why.
    """
    nodes = prog.nodes
    vals = {}
    gens = {}
    proven = set()
    reason = None

    def gen(key):
        g = gens.get(key)
        if g is None:
            g = gens[key] = len(gens)
        return ({(g,): 1}, 1, None)

    done = set()
    for r in roots:
        order = prog.reachable([r], skip=done)
        try:
            count = 0
            for i in order:
                count += 1
                if count % 256 == 0:
                    _check_deadline(deadline)
                op, data, args = nodes[i]
                if any(vals.get(a) is None for a in args):
                    vals[i] = None  # depends on something too big
                elif op == _NUM:
                    if isinstance(data[0], int) and len(data) == 2:
                        p, q = data
                    else:
                        p, q = _mpf_tuple_ratio(data)
                    vals[i] = ({(): p}, q, None) if p else ({}, 1, None)
                elif op == _ADD:
                    vals[i] = _rf_sum([vals[a] for a in args], deadline)
                elif op == _MUL:
                    acc = vals[args[0]]
                    for a in args[1:]:
                        acc = _rf_mul(acc, vals[a], deadline)
                    vals[i] = acc
                elif op == _POWI:
                    try:
                        vals[i] = _rf_pow(vals[args[0]], data, deadline)
                    except _TooBig as exc:
                        vals[i] = None
                        reason = reason or f"met {exc}"
                elif op == _POWR:
                    p, q = data
                    try:
                        vals[i] = _rf_pow(gen(("root", args[0], q)), p, deadline)
                    except _TooBig as exc:
                        vals[i] = None
                        reason = reason or f"met {exc}"
                else:
                    vals[i] = gen(("atom", i))
            done.update(order)
        except _TooBig as exc:
            done.update(order)
            for i in order:
                vals.setdefault(i, None)
            reason = reason or f"met {exc}"
            continue
        v = vals.get(r)
        if v is not None and not v[0]:
            proven.add(r)
    return proven, reason


def _mpf_tuple_ratio(mpf_tuple):
    sign, man, exp, bc = mpf_tuple
    if not man:
        return 0, 1
    p = -man if sign else man
    if exp >= 0:
        return p << exp, 1
    return p, 1 << (-exp)


# ----------------------------------------------------------------------------------
# Stage 3: numeric evaluation


_CTX_LOCAL = threading.local()


def _context(dps):
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


def _hash_int(*parts):
    return int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=12).digest(), "big")


def _draw(kind, *parts):
    """A deterministic pseudo-random rational ``(p, q)`` from a hash of ``parts``."""
    r = _hash_int(*parts)
    if kind == "small":
        q = 1000 + r % 9000
        lo, hi = q // 100 + 1, q // 20 - 1
        return lo + (r >> 16) % (hi - lo + 1), q
    q = 64 + r % 960
    if kind == "coord":
        lo, hi = q // 8 + 1, 2 * q - 1
        return lo + (r >> 16) % (hi - lo + 1), q
    # "jet": nonzero, in (-2, 2)
    p = (r >> 16) % (4 * q - 2) - (2 * q - 1)
    return (p + 1 if p >= 0 else p), q


def _symbol_key(s):
    key = (type(s).__name__, s.name)
    if isinstance(s, sympy.Dummy):
        key += (s.dummy_index,)
    return key + (tuple(sorted((k, v) for k, v in s.assumptions0.items() if v is not None)),)


def _symbol_value(s, seed, j, small, signed=False):
    """The rational value of symbol ``s`` at the ``j``-th drawn point, respecting its assumptions.

    Symbols are drawn in (1/8, 2) (``small`` ones in (1/100, 1/20)), with a random sign
    when ``signed`` and the assumptions allow it.
    """
    if s.is_zero:
        return 0, 1
    key = _symbol_key(s)
    if s.is_integer:
        r = _hash_int(seed, "int", j, key)
        k = 1 + r % 4
        if s.is_even:
            k = 2 * k
        elif s.is_odd:
            k = 2 * k + 1
        p, q = k, 1
    else:
        p, q = _draw("small" if s in small else "coord", seed, "pt", j, key)
    if s.is_negative or s.is_nonpositive:
        p = -p
    elif signed and not (s.is_positive or s.is_nonnegative) and s not in small and _hash_int(seed, "sign", j, key) % 2:
        p = -p
    return p, q


def _to_ctx(ctx, pq):
    p, q = pq
    return ctx.mpf(p) / q if q != 1 else ctx.mpf(p)


def _mag(ctx, v):
    return ctx.mag(v) if v else _NEG


def _is_small(ctx, v, scale_mag, dps):
    return (not v) or ctx.mag(v) <= scale_mag - 0.7 * dps * _LOG2_10


def _to_sympy_number(ctx, v):
    if isinstance(v, ctx.mpc):
        return sympy.Float._new(v.real._mpf_, ctx.prec) + sympy.I * sympy.Float._new(v.imag._mpf_, ctx.prec)
    return sympy.Float._new(v._mpf_, ctx.prec) if v else sympy.S.Zero


def _from_sympy_number(ctx, r):
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
    raise _Unevaluable(f"{r} has no numeric value")


class _Evaluator:
    """Evaluates a program at points; shared by all entries and precisions of one decision."""

    def __init__(self, prog, base_dps, seed, deadline, poly=None, eq_jets=()):
        self.prog = prog
        self.base_dps = base_dps
        self.seed = seed
        self.deadline = deadline
        # Arguments of jets are keyed to half the working digits at every precision:
        # the re-evaluation at higher precision (and Newton's solution, accurate to
        # ~0.9 dps digits) then meets the same jet values, while distinct random points
        # are never closer than that.
        self.key_bits = int(max(10, base_dps // 2) * _LOG2_10)
        self.jet_values = {}  # key -> (p, q)
        self.poly = poly  # the random-polynomial model (relations) or None
        self.eq_jets = frozenset(eq_jets)  # (name, index) taken from the polynomial model
        self.use_poly_for_all = False
        self.last_keys = {}  # jet node -> the key of its value in the last run

    # -- jets
    def _arg_key(self, ctx, v, m, dps):
        if isinstance(v, ctx.mpc):
            return (self._arg_key(ctx, v.real, m, dps), self._arg_key(ctx, v.imag, m, dps))
        if not v or ctx.mag(v) <= m - 0.7 * dps * _LOG2_10:
            return 0
        s, man, e, bc = v._mpf_
        return _mpf_normalize(s, man, e, bc, self.key_bits, _ROUND_NEAREST)

    def jet_value(self, ctx, i, name, index, argvals, argmags):
        if self.poly is not None and (self.use_poly_for_all or (name, index) in self.eq_jets):
            self.last_keys[i] = None
            return self.poly.value(ctx, name, index, argvals)
        key = (name, index, tuple(self._arg_key(ctx, v, m, ctx.dps) for v, m in zip(argvals, argmags)))
        self.last_keys[i] = key
        pq = self.jet_values.get(key)
        if pq is None:
            pq = self.jet_values[key] = _draw("jet", self.seed, "jet", key)
        return _to_ctx(ctx, pq)

    # -- the interpreter
    def run(self, ctx, order, symvals, vals=None, mags=None):
        """Evaluate the nodes in ``order``; ``symvals`` maps symbol node index -> value."""
        prog = self.prog
        nodes = prog.nodes
        n = len(nodes)
        if vals is None:
            vals = [None] * n
            mags = [_NEG] * n
        consts = prog.constants(ctx)
        deadline = self.deadline
        dps = ctx.dps
        count = 0
        fsum, mag = ctx.fsum, ctx.mag
        for i in order:
            count += 1
            if count % _CHECK_EVERY == 0:
                _check_deadline(deadline)
            op, data, args = nodes[i]
            if op == _ADD:
                if len(args) == 2:
                    v = vals[args[0]] + vals[args[1]]
                else:
                    v = fsum([vals[a] for a in args])
                # the rounding error of a sum is relative to its largest term (or to the
                # sum itself, when many terms of one sign add up)
                m = max(max(mags[a] for a in args), mag(v) if v else _NEG)
            elif op == _MUL:
                # a plain loop: fprod's extra-precision bookkeeping costs more than
                # the products, and each product is rounded to the working precision
                v = vals[args[0]]
                for a in args[1:]:
                    v = v * vals[a]
                m = sum(mags[a] for a in args)
                if not v:
                    m = _NEG
            elif op == _POWI:
                b = vals[args[0]]
                if not b and data < 0:
                    raise _BadPoint("division by zero")
                v = b**data
                m = data * mags[args[0]] if data > 0 else (mag(v) if v else _NEG)
            elif op == _SYM:
                v = symvals[i]
                m = mag(v) if v else _NEG
            elif op == _NUM or op == _CONST:
                hit = consts.get(i)
                if hit is None:
                    if op == _CONST:
                        v = _CONSTANTS[data](ctx)
                    elif len(data) == 2:
                        v = ctx.mpf(data[0]) / data[1]
                    else:
                        v = ctx.mpf(data)
                    hit = consts[i] = (v, mag(v) if v else _NEG)
                v, m = hit
            elif op == _JET:
                name, index, _ = data
                v = self.jet_value(ctx, i, name, index, [vals[a] for a in args], [mags[a] for a in args])
                m = mag(v) if v else _NEG
            elif op == _POWR:
                b = vals[args[0]]
                p, q = data
                if not b:
                    if p < 0:
                        raise _BadPoint("division by zero")
                    v = b
                else:
                    r = ctx.sqrt(b) if q == 2 else ctx.root(b, q)
                    v = r**p
                m = mag(v) if v else _NEG
            elif op == _POWG:
                b, x = vals[args[0]], vals[args[1]]
                v = ctx.power(b, x)
                m = mag(v) if v else _NEG
            elif op == _FN:
                v = data(ctx, *[vals[a] for a in args])
                m = max(mag(v) if v else _NEG, max(mags[a] for a in args))
            elif op == _PIECEWISE:
                v = None
                for expr_i, kind, lhs_i, rhs_i in data:
                    if kind is None:
                        v, m = vals[expr_i], mags[expr_i]
                        break
                    a, b = vals[lhs_i], vals[rhs_i]
                    if isinstance(a, ctx.mpc) or isinstance(b, ctx.mpc):
                        raise _BadPoint("a complex value in a Piecewise condition")
                    if _RELATIONS[kind](a, b):
                        v, m = vals[expr_i], mags[expr_i]
                        break
                if v is None:
                    raise _BadPoint("no Piecewise condition holds")
            elif op == _FALLBACK:
                if args:
                    expr = data(*[_to_sympy_number(ctx, vals[a]) for a in args])
                else:
                    expr = data
                v = _from_sympy_number(ctx, expr.evalf(dps))
                m = mag(v) if v else _NEG
            else:
                bad = prog.exprs[i]
                raise _Unevaluable(f"{bad} (a {type(bad).__name__}) cannot be evaluated numerically")
            if isinstance(v, ctx.mpc):
                if ctx.isinf(v.real) or ctx.isinf(v.imag) or ctx.isnan(v.real) or ctx.isnan(v.imag):
                    raise _BadPoint("a non-finite value")
            elif ctx.isinf(v) or ctx.isnan(v):
                raise _BadPoint("a non-finite value")
            vals[i] = v
            mags[i] = m
        return vals, mags


class _PolyModel:
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

    def _terms_for(self, name, index, ctx):
        key = (name, index, ctx.dps)
        hit = self._terms.get(key)
        if hit is None:
            k = len(index)
            monos, _parents, mindex = self._monomials(k, self.degrees[(name, k)])
            hit = []
            for m in monos:
                if all(e >= a for e, a in zip(m, index)):
                    p, q = _draw("jet", self.seed, "poly", name, k, m)
                    f = 1
                    for e, a in zip(m, index):
                        for t in range(a):
                            f *= e - t
                    rest = tuple(e - a for e, a in zip(m, index))
                    hit.append((mindex[rest], ctx.mpf(p * f) / q))
            self._terms[key] = hit
        return hit

    def value(self, ctx, name, index, argvals):
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


# ----------------------------------------------------------------------------------
# The SIGALRM safety net for sympy calls we cannot interrupt cooperatively


class _Alarm:
    """Raise :class:`_Interrupted` at ``deadline`` via SIGALRM, when that is safe to arm.

    Only in the main thread, on POSIX, and only when nobody else uses SIGALRM/ITIMER_REAL
    (pytest-timeout, for one): a foreign handler is never replaced.
    """

    def __init__(self, deadline):
        self.deadline = deadline
        self.armed = False
        self._old = None

    def __enter__(self):
        if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            return self
        try:
            old = signal.getsignal(signal.SIGALRM)
            if old not in (signal.SIG_DFL, signal.SIG_IGN, None) or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
                return self
            delay = self.deadline - time.monotonic()
            if delay <= 0:
                raise _Interrupted
            self._old = old
            self.armed = True
            signal.signal(signal.SIGALRM, self._handler)
            signal.setitimer(signal.ITIMER_REAL, delay)
        except (ValueError, OSError):
            self.armed = False
        return self

    def _handler(self, signum, frame):
        if self.armed:
            self.armed = False
            raise _Interrupted

    def __exit__(self, *exc):
        if self._old is not None or self.armed:
            self.armed = False
            try:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, self._old if self._old is not None else signal.SIG_DFL)
            except (ValueError, OSError):
                pass
        return False


# ----------------------------------------------------------------------------------
# The decision procedure

_DECISION_CACHE = _LRU(2048)


def _fmt(v, n=3):
    return mpmath.nstr(v, n)


def _check_parameters(budget, dps, points):
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0:
        raise InvalidArgumentError(f"budget must be a positive number of seconds, got {budget!r}")
    if isinstance(dps, bool) or not isinstance(dps, int) or dps < 15:
        raise InvalidArgumentError(f"dps must be an int >= 15, got {dps!r}")
    if isinstance(points, bool) or not isinstance(points, int) or points < 1:
        raise InvalidArgumentError(f"points must be a positive int, got {points!r}")


def decide_zero(expr, *, budget=10.0, dps=50, points=3, relations=(), seed=0) -> ZeroDecision:
    """Decide whether ``expr`` is identically zero.

    Parameters
    ----------
    expr : sympy.Expr or number
        A scalar, commutative expression.  Undefined functions (``sympy.Function("V")``)
        stand for arbitrary smooth functions; other symbols are real variables.
    budget : float
        Total wall-clock seconds for all stages; when exhausted the answer is unknown.
    dps : int
        Decimal digits of the randomized evaluation (a counterexample is confirmed at
        twice as many).
    points : int
        Number of random points that must all give zero.
    relations : Relation or sequence of Relation
        Implicit equations on whose solution manifold ``expr`` must vanish.
    seed : int
        Seed of the (deterministic) random points and jet values.

    Returns
    -------
    ZeroDecision
        ``is_zero`` True, False (with the counterexample in ``point`` and ``value``) or
        None (unknown, with the reason in ``method``).

    Raises
    ------
    ExpressionError
        ``expr`` cannot be a function: a matrix, a noncommutative expression, a
        non-finite number, a relational or other non-expression object.
    ValueError
        A budget, ``dps`` or ``points`` out of range.

    Notes
    -----
    "Zero by randomized evaluation" means zero at every sampled point: symbols are
    drawn in (1/8, 2) (with both signs when the expression contains ``Abs``, ``sign``,
    ``Max`` ...), so the identity is established, up to a small probability, on that
    region and, for analytic expressions, on the connected domain it extends to.

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> decide_zero((x + 1)**2 - x**2 - 2*x - 1).method
    'zero by exact expansion (a rational function with integer coefficients in 1 atom)'
    >>> decide_zero(sympy.sin(x)**2 + sympy.cos(x)**2 - 1).stage
    'randomized'
    """
    _check_parameters(budget, dps, points)
    e = _as_expr(expr)
    return _decide_cached([(None, e)], True, float(budget), dps, points, _as_relations(relations), seed)


def decide_all_zero(exprs, *, budget=10.0, dps=50, points=3, relations=(), seed=0) -> ZeroDecision:
    """Decide whether all of ``exprs`` are identically zero, sharing the work.

    The entries share one canonicalization memo, one compiled expression DAG (common
    subexpressions are expanded and evaluated once), the same random points and the same
    jet values.

    Parameters
    ----------
    exprs : mapping or sequence
        ``{key: expr}``, a list/tuple of expressions, or a sympy Matrix (keys ``(i, j)``).
    budget, dps, points, relations, seed
        As for :func:`decide_zero`; ``budget`` is for all entries together.

    Returns
    -------
    ZeroDecision
        True iff every entry is zero; False names in ``index`` the key (or position) of
        an entry with a confirmed counterexample; None when undecided (``index`` names
        the undecided entry when there is one).

    Examples
    --------
    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> d = decide_all_zero({"a": (x + y)**2 - x**2 - 2*x*y - y**2, "b": x*y - y*x + x})
    >>> d.is_zero, d.index
    (False, 'b')
    """
    _check_parameters(budget, dps, points)
    items = [(k, _as_expr(v, f"entry {k!r}")) for k, v in _entries(exprs)]
    return _decide_cached(items, False, float(budget), dps, points, _as_relations(relations), seed)


def _decide_cached(items, single, budget, dps, points, rels, seed):
    start = time.monotonic()
    try:
        cache_key = (tuple(items), single, budget, dps, points, rels, seed)
        hash(cache_key)
    except TypeError:
        cache_key = None
    if cache_key is not None:
        hit = _DECISION_CACHE.get(cache_key)
        if hit is not None:
            return hit
    job = _Job(items, single, start, budget, dps, points, rels, seed)
    decision = job.run()
    # an unknown may become known with a fresh clock; only definite answers are kept
    if cache_key is not None and decision.is_zero is not None:
        _DECISION_CACHE.put(cache_key, decision)
    return decision


def clear_caches():
    """Forget every memo of the engine (for benchmarks: no answer from a warm cache)."""
    from . import calculus

    from .certify import tableaux

    _JETS_CACHE.clear()
    _DECISION_CACHE.clear()
    calculus.clear_caches()
    tableaux.clear_caches()


def decide_jacobian_singular(relation, *, budget=10.0, dps=50, points=3, seed=0) -> ZeroDecision:
    """Decide whether ``det(d equations / d unknowns)`` vanishes on the relation's solution manifold.

    The equations are solved by Newton's method at random points (as in the randomized
    stage of :func:`decide_zero`) and the determinant of the Jacobian is evaluated there;
    one that is clearly nonzero relative to the sizes of the Jacobian's rows and stays so
    at twice the digits proves the Jacobian nonsingular (``is_zero`` False, the point in
    ``point``).  When Newton's method fails at every point, the Jacobian is evaluated with
    the unknowns drawn at random too: if it is singular there at every point it is
    singular identically (``is_zero`` True); otherwise the answer is None.

    Parameters
    ----------
    relation : Relation
    budget, dps, points, seed
        As for :func:`decide_zero`.

    Returns
    -------
    ZeroDecision
        ``is_zero`` True (singular), False (nonsingular) or None (undecided).

    Examples
    --------
    >>> import sympy
    >>> x, u, v, h = sympy.symbols("x u v h")
    >>> decide_jacobian_singular(Relation([u - x - h*v**2, v - h*u], [u, v], small=[h])).is_zero
    False
    >>> decide_jacobian_singular(Relation([u + v - x, 2*u + 2*v - 2*x], [u, v])).is_zero
    True
    """
    _check_parameters(budget, dps, points)
    if not isinstance(relation, Relation):
        raise ExpressionError(f"decide_jacobian_singular expects a Relation, got {type(relation).__name__}")
    start = time.monotonic()
    deadline = start + budget
    if len(relation.equations) != len(relation.unknowns):
        raise ImplicitMapError("decide_jacobian_singular needs as many equations as unknowns")
    plain = Relation(relation.equations, relation.unknowns, guess=relation.guess, small=relation.small)
    try:
        with _Alarm(deadline):
            prog = _Program()
            prog.deadline = deadline
            rel = _prepare_relations((plain,), prog.jet_memo, deadline)
            if len(rel.equations) != len(rel.unknowns):
                return ZeroDecision(True, "exact", "singular: two equations coincide up to sign")
            ev, _order, info = _setup_numeric(prog, [], rel, seed, dps, deadline)
    except _Interrupted:
        return ZeroDecision(None, "unknown", f"unknown: compiling the Jacobian exceeded the {budget:g} s budget")
    unknown_set = set(rel.unknowns)
    small = rel.small
    draw_syms = sorted((x for x in prog.symbols if x not in unknown_set), key=_symbol_key)

    def det_at(ctx, symv):
        ev.use_poly_for_all = True
        try:
            vals, _ = ev.run(ctx, info["order_eq"], symv)
        finally:
            ev.use_poly_for_all = False
        J = [[vals[x] for x in row] for row in info["jac_roots"]]
        # relative to Hadamard's bound, a determinant below 10**(-0.7 dps) is rounding noise
        bound = ctx.one
        for row in J:
            bound *= ctx.sqrt(ctx.fsum(abs(x) ** 2 for x in row))
        if not bound:
            return ctx.zero, True
        det = ctx.det(ctx.matrix(J)) if J else ctx.one
        return det, abs(det) <= bound * ctx.mpf(10) ** (-(7 * ctx.dps) // 10)

    zero_points = failures = 0
    try:
        with _Alarm(deadline):
            for j in range(TRIES_PER_POINT * points):
                if zero_points >= points:
                    break
                base = {x: _symbol_value(x, seed, j, small) for x in draw_syms}
                ctx = _context(dps)
                try:
                    _vals, _mags, state = _evaluate_point(ev, prog, base, info, [], dps, j)
                    symv = _symvals(prog, ctx, base)
                    symv.update(zip(info["unknown_nodes"], state))
                    det, small_det = det_at(ctx, symv)
                except (_BadPoint, ArithmeticError, ValueError, TypeError):
                    failures += 1
                    continue
                if small_det:
                    zero_points += 1
                    continue
                ctx2 = _context(2 * dps)
                try:
                    state2 = _newton(ev, info, ctx2, _symvals(prog, ctx2, base), [ctx2.convert(x) for x in state])
                    symv2 = _symvals(prog, ctx2, base)
                    symv2.update(zip(info["unknown_nodes"], state2))
                    det2, small2 = det_at(ctx2, symv2)
                except (_BadPoint, ArithmeticError, ValueError, TypeError):
                    continue
                if small2 or abs(det2 - det) > abs(det2) * ctx2.mpf(10) ** (-(dps // 2)):
                    continue
                point = {str(x): sympy.Rational(*base[x]) for x in draw_syms}
                point.update({str(u): mpmath.nstr(v, 20) for u, v in zip(rel.unknowns, state2)})
                return ZeroDecision(
                    False, "counterexample",
                    f"nonsingular: the Jacobian's determinant is {_fmt(det2)} at a random point of the solution "
                    f"manifold (solved by Newton's method), confirmed at {2 * dps} digits", point, det2)
            if zero_points >= points:
                return ZeroDecision(True, "randomized",
                                    f"singular: the Jacobian's determinant vanishes at {_plural(zero_points, 'point')} "
                                    f"of the solution manifold ({dps} digits)")
            if zero_points == 0:
                # Newton failed everywhere: is the Jacobian singular even off the manifold?
                free = 0
                for j in range(points):
                    ctx = _context(dps)
                    base = {x: _symbol_value(x, seed, j, small) for x in draw_syms}
                    symv = _symvals(prog, ctx, base)
                    for k, u in enumerate(rel.unknowns):
                        symv[prog.symbols[u]] = _to_ctx(ctx, _symbol_value(u, seed, j, ()))
                    try:
                        _det, small_det = det_at(ctx, symv)
                    except (_BadPoint, ArithmeticError, ValueError, TypeError):
                        break
                    if not small_det:
                        break
                    free += 1
                if free == points:
                    return ZeroDecision(True, "randomized",
                                        f"singular: the Jacobian's determinant vanishes at {_plural(points, 'point')} "
                                        f"with the unknowns drawn at random too ({dps} digits); Newton's method "
                                        "failed on the manifold")
    except _Interrupted:
        return ZeroDecision(None, "unknown", f"unknown: the check exceeded the {budget:g} s budget")
    why = (f"Newton's method failed at {_plural(failures, 'point')}" if failures else "no usable point")
    if zero_points:
        why += f", and the determinant vanished at {_plural(zero_points, 'point')} only"
    return ZeroDecision(None, "unknown", f"unknown: {why}")


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


class _Job:
    """One call of decide_zero / decide_all_zero: its state and the phrasing of its answer."""

    def __init__(self, items, single, start, budget, dps, points, rels, seed):
        self.items = items
        self.single = single
        self.start = start
        self.deadline = start + budget
        self.budget = budget
        self.dps = dps
        self.points = points
        self.rels = rels
        self.seed = seed
        self.counts = {}  # how many entries each stage proved zero
        self.exact_note = None

    # -- phrasing
    def where(self, k):
        return "" if self.single else f"entry {k!r} "

    def index(self, k):
        return None if self.single else k

    def unknown(self, why, k=None):
        if self.exact_note:
            why = f"{self.exact_note}, and {why}"
        return ZeroDecision(None, "unknown", f"unknown: {why}", None, None, self.index(k))

    def zero(self, stage, how):
        if self.single:
            return ZeroDecision(True, stage, how)
        parts = [f"{n} {what}" for what, n in self.counts.items() if n]
        n_all = len(self.items)
        if not n_all:
            return ZeroDecision(True, stage, "structurally zero: no nonzero component remains")
        if len(parts) == 1 and stage == "structural":
            return ZeroDecision(True, stage, f"all {n_all} entries are structurally 0")
        return ZeroDecision(True, stage, f"all {n_all} entries are zero: " + ", ".join(parts))

    # -- the stages
    def run(self):
        dps = self.dps
        # ---- stage 1: structural
        remaining = []
        for k, e in self.items:
            if e.is_Number:
                if e in _NONFINITE:
                    raise ExpressionError(f"{self.where(k) or 'the expression '}is {e}, which is not a finite function")
                if e.is_zero:
                    continue
                return ZeroDecision(False, "structural", f"nonzero: {self.where(k) or 'it '}is the constant {e}", {},
                                    _from_sympy_number(_context(dps), e), self.index(k))
            remaining.append((k, e))
        self.counts["structurally"] = len(self.items) - len(remaining)
        if not remaining:
            return self.zero("structural", "zero structurally (the expression is the number 0)")

        # ---- jets and compilation: cooperative, with the SIGALRM safety net
        try:
            with _Alarm(self.deadline):
                prog = _Program()
                prog.deadline = self.deadline
                conv = remaining
                roots = [prog.add(e, self.deadline) for k, e in conv]
                rel = _prepare_relations(self.rels, prog.jet_memo, self.deadline) if self.rels else None
        except _Interrupted:
            return self.unknown(f"rewriting derivatives as jets and compiling exceeded the {self.budget:g} s budget")
        todo = list(range(len(roots)))

        # ---- stage 2: exact
        exact_deadline = min(self.deadline, time.monotonic() + EXACT_BUDGET_FRACTION * self.budget)
        main = threading.current_thread() is threading.main_thread()
        limit = EXACT_MAX_NODES if main else EXACT_MAX_NODES_THREAD
        proven = set()
        if len(prog) > limit:
            self.exact_note = f"the exact stage was skipped ({len(prog)} distinct subexpressions > {limit})"
        else:
            t0 = time.monotonic()
            try:
                with _Alarm(exact_deadline):
                    proven, reason = _exact_stage(prog, [roots[t] for t in todo], exact_deadline)
                if reason:
                    self.exact_note = f"the exact stage stopped: it {reason}"
            except _Interrupted:
                self.exact_note = f"the exact stage exceeded its {exact_deadline - t0:.2g} s budget"
        self.counts["by exact expansion"] = sum(roots[t] in proven for t in todo)
        todo = [t for t in todo if roots[t] not in proven]
        if not todo:
            return self.zero("exact", f"zero by exact expansion ({_exact_phrase(prog)})")

        # ---- stages 3 and 4
        return self.randomized(prog, conv, roots, todo, rel)

    def randomized(self, prog, conv, roots, todo, rel):
        dps, points, seed = self.dps, self.points, self.seed
        keys = [conv[t][0] for t in todo]
        troots = [roots[t] for t in todo]
        try:
            with _Alarm(self.deadline):
                if rel is not None:
                    unknown_nodes = {prog.symbols.get(u) for u in rel.unknowns + rel.derived_symbols} - {None}
                    if not unknown_nodes.intersection(prog.reachable(troots)):
                        rel = None  # nothing to solve for: the relations do not matter
                ev, order, info = _setup_numeric(prog, troots, rel, seed, dps, self.deadline)
        except _Interrupted:
            return self.unknown(f"preparing the randomized stage exceeded the {self.budget:g} s budget")
        except _BadPoint as exc:
            return self.unknown(f"the relations cannot be used: {exc}")
        unknown_set = set(rel.unknowns) | set(rel.derived_symbols) if rel is not None else set()
        small = rel.small if rel is not None else set()
        draw_syms = sorted((s for s in prog.symbols if s not in unknown_set), key=_symbol_key)
        signed = prog.nonanalytic

        first = None  # the first usable point: (base, state)
        n_good = 0
        higher = 0
        tries = 0
        max_tries = TRIES_PER_POINT * points + 4
        skipped = []
        ctx = _context(dps)
        try:
            while n_good < points and tries < max_tries:
                j = tries
                tries += 1
                base = {s: _symbol_value(s, seed, j, small, signed) for s in draw_syms}
                try:
                    vals, mags, state = _evaluate_point(ev, prog, base, info, order, dps, j)
                except (_BadPoint, ArithmeticError, ValueError, TypeError) as exc:
                    # TypeError: e.g. Max of complex values at a point where a root went
                    # complex; the point is unusable, not the expression
                    skipped.append(str(exc) or type(exc).__name__)
                    continue
                except _Unevaluable as exc:
                    return self.unknown(f"randomized evaluation is impossible: {exc}")
                if not prog.complex_constant and any(
                    isinstance(vals[r], ctx.mpc) and not _is_small(ctx, vals[r].imag, max(1, mags[r]), dps)
                    for r in troots
                ):
                    skipped.append("a non-real value")
                    continue
                for t, r in enumerate(troots):
                    if _is_small(ctx, vals[r], max(1, mags[r]), dps):
                        continue
                    out = _confirm(ev, prog, base, info, order, r, dps, vals[r], max(1, mags[r]), state)
                    if out[0] == "nonzero":
                        return self.counterexample(ev, prog, base, info, r, keys[t], out, dps)
                    if out[0] == "zero":
                        higher += 1
                    else:
                        return self.unknown(f"{self.where(keys[t])}is not clearly zero at {dps} digits and "
                                            f"{out[1]}", keys[t])
                n_good += 1
                if first is None:
                    first = (base, state, vals, mags)
            if n_good < points:
                why = ", ".join(sorted(set(skipped))) or "no usable point"
                return self.unknown(f"only {n_good} of {points} random points were usable after {tries} draws "
                                    f"({why})")
            # A tiny nonzero (1e-60 * x) is below the threshold at dps digits at every
            # point; at twice the digits it is not.  One point suffices to see it.
            base, state, vals1, _mags1 = first
            d2 = 2 * dps
            ctx2 = _context(d2)
            vals2, mags2, state2 = _reevaluate(ev, prog, base, info, order, d2, state)
            for t, r in enumerate(troots):
                v1, v2 = vals1[r], vals2[r]
                if _is_small(ctx2, v2, max(1, mags2[r]), d2):
                    # Rounding noise shrinks by ~dps digits when the digits double; a
                    # value that shrank much less (5 digits of slack) may be a tiny
                    # nonzero below the threshold: look again at 4*dps digits.
                    if not v2 or (v1 and ctx2.mag(v2) <= ctx.mag(v1) - (dps - 5) * _LOG2_10):
                        continue
                out = _confirm(ev, prog, base, info, order, r, d2, v2, max(1, mags2[r]), state2)
                if out[0] == "nonzero":
                    return self.counterexample(ev, prog, base, info, r, keys[t], out, dps, tiny=True)
                if out[0] != "zero":
                    return self.unknown(f"{self.where(keys[t])}is zero to {dps} digits but not to {d2}, and "
                                        f"{out[1]}", keys[t])
        except _Interrupted:
            return self.unknown(f"the randomized stage exceeded the {self.budget:g} s budget after "
                                f"{n_good} of {points} points")

        notes = [f"re-checked at {2 * dps} digits at one point"]
        if higher:
            notes.append(f"{_plural(higher, 'value')} needed {2 * dps} digits")
        if any(op == _JET for op, _, _ in prog.nodes):
            notes.append("undefined functions replaced by independent random jets")
        notes.append("symbols drawn in (1/8, 2)" + (" with both signs" if signed else ""))
        how = (f"zero by randomized evaluation at {_plural(points, 'point')} with {dps} digits"
               f"{_manifold_phrase(info)} ({'; '.join(notes)})")
        self.counts["by randomized evaluation"] = len(todo)
        if not self.single:
            self.counts[f"by randomized evaluation at {points} points with {dps} digits{_manifold_phrase(info)}"] = \
                self.counts.pop("by randomized evaluation")
        return self.zero("randomized", how)

    def counterexample(self, ev, prog, base, info, root, key, out, dps, tiny=False):
        _, v, d_hi, vals_hi, _state = out
        point = _describe_point(ev, prog, base, info, root, vals_hi, out[4])
        size = "tiny value" if tiny else "value"
        extra = f", below the {dps}-digit zero threshold" if tiny else ""
        if prog.has_float:
            extra += " (Floats in the expression are taken at their exact binary values)"
        return ZeroDecision(
            False, "counterexample",
            f"nonzero: {self.where(key)}{'has ' if not self.single else ''}{size} {_fmt(v)} at the point in .point"
            f"{_manifold_phrase(info)}"
            f"{extra}, confirmed at {d_hi} digits",
            point, v, self.index(key))


def _exact_phrase(prog):
    n = sum(1 for op, _, _ in prog.nodes if op not in (_NUM, _ADD, _MUL, _POWI))
    return f"a rational function with integer coefficients in {_plural(n, 'atom')}"


class _Relations:
    """The relations of one decision in jet form, with their Jacobian and guesses."""

    def __init__(self, unknowns, equations, jacobian, guesses, small, derived=()):
        self.unknowns = unknowns
        self.equations = equations
        self.jacobian = jacobian
        self.guesses = guesses
        self.small = small
        # per relation with derived unknowns: (its Jacobian, its unknowns, [(symbols, rhs)])
        self.derived = derived

    @property
    def derived_symbols(self):
        return tuple(x for _jac, _u, columns in self.derived for symbols, _ in columns for x in symbols)


def _prepare_relations(rels, memo, deadline):
    def conv(e):
        return _to_jets(e, memo, deadline) if e.has(AppliedUndef, Derivative, Subs) else e

    # Relations are merged: a composite map's relation repeats the equations of its
    # factors, so shared unknowns with repeated equations are one system.
    unknowns, eqs, guesses, small = [], [], [], set()
    for r in rels:
        for u in r.unknowns:
            if u not in unknowns:
                unknowns.append(u)
                guesses.append(conv(r.guess[u]))
        for e in r.equations:
            ce = conv(e)
            if ce not in eqs and -ce not in eqs:
                eqs.append(ce)
        small.update(r.small)
    if len(eqs) < len(unknowns):
        raise ImplicitMapError(
            f"the relations give {len(eqs)} distinct equations for the {len(unknowns)} unknowns "
            f"{[str(u) for u in unknowns]}; they do not determine them"
        )
    jac = []
    for e in eqs:
        _check_deadline(deadline)
        jac.append(_gradient(e, unknowns))
    derived = []
    for r in rels:
        if not r.derived:
            continue
        rjac = []
        for e in r.equations:
            _check_deadline(deadline)
            rjac.append(_gradient(conv(e), r.unknowns))
        columns = [(symbols, [conv(x) for x in rhs]) for symbols, rhs in r.derived]
        derived.append((rjac, r.unknowns, columns))
    return _Relations(tuple(unknowns), eqs, jac, guesses, small, tuple(derived))


def _gradient(e, unknowns):
    """``[de/du for u in unknowns]``, differentiating only by the unknowns ``e`` contains."""
    present = e.free_symbols
    return [e.diff(u) if u in present else sympy.S.Zero for u in unknowns]


def _manifold_phrase(info):
    if info is None:
        return ""
    rel = info["rel"]
    names = list(map(str, rel.unknowns))
    shown = ", ".join(names) if len(names) <= 12 else ", ".join(names[:12]) + f", ... ({len(names)} unknowns)"
    txt = (f" on the solution manifold of {_plural(len(rel.equations), 'equation')} for "
           f"{shown} (solved by Newton's method")
    nd = len(rel.derived_symbols)
    if nd:
        txt += (f"; the {_plural(nd, 'derivative')} of the unknowns computed numerically by the implicit "
                "function theorem at each evaluation point (one LU factorization of the Jacobian)")
    if rel.small:
        txt += f"; {', '.join(sorted(map(str, rel.small)))} drawn in (1/100, 1/20)"
    if info["degrees"]:
        ds = sorted(set(info["degrees"].values()))
        txt += (f"; undefined functions in the equations replaced by random polynomials of degree "
                f"{'/'.join(map(str, ds))}")
    return txt + ")"


def _setup_numeric(prog, troots, rel, seed, dps, deadline):
    order_entries = prog.reachable(troots)
    if rel is None:
        return _Evaluator(prog, dps, seed, deadline), order_entries, None
    eq_roots = [prog.add(e, deadline) for e in rel.equations]
    jac_roots = [[prog.add(x, deadline) for x in row] for row in rel.jacobian]
    guess_roots = [prog.add(g, deadline) for g in rel.guesses]
    for u in rel.unknowns:
        prog.add(u)
    order_eq = prog.reachable(eq_roots + [x for row in jac_roots for x in row])
    order_guess = prog.reachable(guess_roots)
    derived_blocks, derived_roots = _compile_derived(prog, rel, deadline)
    # the jets of the equations, and the derivative orders the polynomial model must carry;
    # derived unknowns are computed from derivatives of the equations (one order more),
    # whose jets must come from the same polynomials wherever they occur
    eq_jets = set()
    maxorder = {}
    for i in prog.reachable(eq_roots + derived_roots):
        op, data, _args = prog.nodes[i]
        if op == _JET:
            name, index, _ = data
            eq_jets.add((name, index))
            k = len(index)
            maxorder[(name, k)] = max(maxorder.get((name, k), 0), sum(index))
    for i in order_eq + order_guess:
        op, data, _args = prog.nodes[i]
        if op == _JET:
            maxorder.setdefault((data[0], len(data[1])), 0)
    degrees = {}
    for (name, k), r in maxorder.items():
        D = r + 3
        while D > r + 1 and math.comb(D + k, k) > POLY_MAX_TERMS:
            D -= 1
        degrees[(name, k)] = D
    poly = _PolyModel(seed, degrees) if degrees else None
    ev = _Evaluator(prog, dps, seed, deadline, poly, eq_jets)
    info = {
        "rel": rel,
        "eq_roots": eq_roots,
        "jac_roots": jac_roots,
        "guess_roots": guess_roots,
        "order_eq": order_eq,
        "order_guess": order_guess,
        "unknown_nodes": [prog.symbols[u] for u in rel.unknowns],
        "degrees": degrees,
        "derived": derived_blocks,
    }
    return ev, order_entries, info


def _compile_derived(prog, rel, deadline):
    """Nodes of the derived unknowns' linear systems, grouped by evaluation level.

    Returns ``(blocks, roots)``; a block is ``(jacobian node rows, jacobian order,
    levels)`` and a level ``(order, [(symbol nodes, rhs nodes)])``: the columns of a
    level refer only to derived symbols of earlier levels.
    """
    blocks, roots = [], []
    for rjac, unknowns, columns in rel.derived:
        for u in unknowns:
            prog.add(u)
        jr = [[prog.add(x, deadline) for x in row] for row in rjac]
        level_of = {}
        grouped = {}
        for symbols, rhs in columns:
            refs = set().union(*(r.free_symbols for r in rhs))
            lev = 1 + max((level_of[x] for x in refs if x in level_of), default=-1)
            for x in symbols:
                level_of[x] = lev
            grouped.setdefault(lev, []).append(
                ([prog.add(x) for x in symbols], [prog.add(r, deadline) for r in rhs]))
        levels = []
        for lev in sorted(grouped):
            cols = grouped[lev]
            rhs_nodes = [r for _, rhs in cols for r in rhs]
            roots.extend(rhs_nodes)
            levels.append((prog.reachable(rhs_nodes), cols))
        flat = [x for row in jr for x in row]
        roots.extend(flat)
        blocks.append((jr, prog.reachable(flat), levels))
    return blocks, roots


def _lu_factor(ctx, A):
    """LU with partial pivoting of a square mpmath list-of-lists; raises _BadPoint if singular."""
    n = len(A)
    LU = [list(row) for row in A]
    perm = list(range(n))
    scale = max((abs(x) for row in A for x in row), default=ctx.zero)
    if not scale:
        raise _BadPoint("a singular Jacobian of the relations")
    tiny = scale * ctx.mpf(10) ** (-(ctx.dps * 7) // 10)
    for k in range(n):
        piv = max(range(k, n), key=lambda r: abs(LU[r][k]))
        if abs(LU[piv][k]) <= tiny:
            raise _BadPoint("a singular Jacobian of the relations")
        if piv != k:
            LU[k], LU[piv] = LU[piv], LU[k]
            perm[k], perm[piv] = perm[piv], perm[k]
        pk = LU[k][k]
        rowk = LU[k]
        for r in range(k + 1, n):
            row = LU[r]
            if not row[k]:
                continue
            f = row[k] / pk
            row[k] = f
            for c in range(k + 1, n):
                if rowk[c]:
                    row[c] -= f * rowk[c]
    return LU, perm


def _lu_solve(LU, perm, b):
    n = len(LU)
    y = [b[p] for p in perm]
    for r in range(n):
        row = LU[r]
        acc = y[r]
        for c in range(r):
            if row[c]:
                acc -= row[c] * y[c]
        y[r] = acc
    for r in range(n - 1, -1, -1):
        row = LU[r]
        acc = y[r]
        for c in range(r + 1, n):
            if row[c]:
                acc -= row[c] * y[c]
        y[r] = acc / row[r]
    return y


def _solve_derived(ev, info, ctx, symv):
    """Set the derived unknowns in ``symv``: one LU of each relation's Jacobian, many columns."""
    if not info["derived"]:
        return
    ev.use_poly_for_all = True
    try:
        for jr, jorder, levels in info["derived"]:
            vals, _ = ev.run(ctx, jorder, symv)
            LU, perm = _lu_factor(ctx, [[vals[x] for x in row] for row in jr])
            for order, cols in levels:
                vals, _ = ev.run(ctx, order, symv)
                for sym_nodes, rhs_nodes in cols:
                    sol = _lu_solve(LU, perm, [-vals[r] for r in rhs_nodes])
                    symv.update(zip(sym_nodes, sol))
    finally:
        ev.use_poly_for_all = False


def _symvals(prog, ctx, base):
    return {i: _to_ctx(ctx, base[s]) for s, i in prog.symbols.items() if s in base}


def _newton(ev, info, ctx, symv, start):
    """Solve the relations for the unknowns at the precision of ``ctx``."""
    unknown_nodes = info["unknown_nodes"]
    u = list(start)
    n = len(u)
    tol = -0.9 * ctx.dps * _LOG2_10
    ev.use_poly_for_all = True
    try:
        for _ in range(NEWTON_MAX_ITER):
            sv = dict(symv)
            sv.update(zip(unknown_nodes, u))
            vals, _mags = ev.run(ctx, info["order_eq"], sv)
            F = [vals[r] for r in info["eq_roots"]]
            J = [[vals[x] for x in row] for row in info["jac_roots"]]
            try:
                if len(F) == n:
                    # our own LU on lists: mpmath's matrix class costs ~1 s per 40 x 40 solve
                    LU, perm = _lu_factor(ctx, J)
                    delta = _lu_solve(LU, perm, [-f for f in F])
                else:
                    # more (consistent) equations than unknowns: Gauss-Newton, which
                    # converges quadratically on a zero-residual system
                    Jm = ctx.matrix(J)
                    delta = ctx.lu_solve(Jm.T * Jm, -(Jm.T * ctx.matrix(F)))
            except ZeroDivisionError:
                raise _BadPoint("a singular Jacobian of the relations") from None
            u = [u[k] + delta[k] for k in range(n)]
            step = max(abs(delta[k]) for k in range(n))
            size = max(abs(x) for x in u)
            if not step or ctx.mag(step) <= tol + max(1, ctx.mag(size) if size else 1):
                return u
        raise _BadPoint("Newton's method did not converge on the relations")
    finally:
        ev.use_poly_for_all = False


#: Newton starts per point: the guess, then the guess moved at random (a guess on a
#: fold of the relation, such as y = 0 for x**2 + y**2 = 1, has a singular Jacobian).
NEWTON_STARTS = 3


def _evaluate_point(ev, prog, base, info, order, dps, j=0):
    ctx = _context(dps)
    symv = _symvals(prog, ctx, base)
    state = None
    if info is not None:
        ev.use_poly_for_all = True
        try:
            gv, _ = ev.run(ctx, info["order_guess"], symv)
        finally:
            ev.use_poly_for_all = False
        guess = [gv[g] for g in info["guess_roots"]]
        for attempt in range(NEWTON_STARTS):
            start = guess
            if attempt:
                start = []
                for k, g in enumerate(guess):
                    pq = _draw("jet", ev.seed, "newton", j, attempt, k)  # in (-2, 2)
                    start.append(g + _to_ctx(ctx, pq) / 4 * (1 + abs(g)))
            try:
                state = _newton(ev, info, ctx, symv, start)
                break
            except _BadPoint:
                if attempt == NEWTON_STARTS - 1:
                    raise
        symv.update(zip(info["unknown_nodes"], state))
        _solve_derived(ev, info, ctx, symv)
    vals, mags = ev.run(ctx, order, symv)
    return vals, mags, state


def _reevaluate(ev, prog, base, info, order, d, state):
    """The same point at ``d`` digits, Newton restarted from the lower-precision solution."""
    ctx = _context(d)
    symv = _symvals(prog, ctx, base)
    new_state = None
    if info is not None:
        new_state = _newton(ev, info, ctx, symv, [ctx.convert(x) for x in state])
        symv.update(zip(info["unknown_nodes"], new_state))
        _solve_derived(ev, info, ctx, symv)
    vals, mags = ev.run(ctx, order, symv)
    return vals, mags, new_state


def _confirm(ev, prog, base, info, order, root, d, v, m, state):
    """Settle a value ``v`` (magnitude bound ``2**m``) that is not clearly zero at ``d`` digits.

    The point is re-evaluated at 2d (and 4d) digits with the same jet values.  The value
    is confirmed nonzero when the higher precision gives a value above its own zero
    threshold that agrees with the lower one, either to half the lower digits or within
    the lower precision's zero threshold (a tiny value that the lower precision could
    only just resolve).  Returns ``("nonzero", value, digits, values, state)``,
    ``("zero", digits)`` when the higher precision shows rounding noise, or
    ``("inconsistent", reason)``.
    """
    prev_v, prev_m, prev_d, st = v, m, d, state
    for _ in range(2):
        d2 = 2 * prev_d
        ctx2 = _context(d2)
        try:
            vals2, mags2, st = _reevaluate(ev, prog, base, info, order, d2, st)
        except (_BadPoint, ArithmeticError, ValueError, TypeError) as exc:
            return ("inconsistent", f"re-evaluation at {d2} digits failed ({exc})")
        v2, m2 = vals2[root], max(1, mags2[root])
        if _is_small(ctx2, v2, m2, d2):
            return ("zero", d2)
        diff = abs(v2 - ctx2.convert(prev_v))
        if not diff or diff <= abs(v2) * ctx2.mpf(10) ** (-(prev_d // 2)) or _is_small(ctx2, diff, prev_m, prev_d):
            return ("nonzero", v2, d2, vals2, st)
        prev_v, prev_m, prev_d = v2, m2, d2
    return ("inconsistent", f"its values at {d}, {2 * d} and {4 * d} digits disagree")


def _describe_point(ev, prog, base, info, root, vals, state):
    """The counterexample: drawn symbols, solved unknowns and the jets the root uses."""
    point = {}
    reach = prog.reachable([root])
    reach_set = set(reach)
    for s in sorted(base, key=_symbol_key):
        if info is not None or prog.symbols.get(s) in reach_set:
            point[str(s)] = sympy.Rational(*base[s])
    if info is not None:
        for u, value in zip(info["rel"].unknowns, state):
            point[str(u)] = mpmath.nstr(value, 20)
        nd = len(info["rel"].derived_symbols)
        if nd:
            point["derivatives of the unknowns"] = (f"{nd} values computed by the implicit function theorem "
                                                    "at this point")
    for i in reach:
        op, data, args = prog.nodes[i]
        if op != _JET:
            continue
        _name, _index, label = data
        rendered = []
        for a in args:
            aop, adata, _ = prog.nodes[a]
            if aop == _SYM and prog.exprs[a] in base:
                rendered.append(str(sympy.Rational(*base[prog.exprs[a]])))
            elif aop == _NUM and len(adata) == 2:
                rendered.append(str(sympy.Rational(*adata)))
            else:
                rendered.append(mpmath.nstr(vals[a], 15))
        desc = f"{label}({', '.join(rendered)})"
        key = ev.last_keys.get(i)
        pq = ev.jet_values.get(key) if key is not None else None
        point[desc] = sympy.Rational(*pq) if pq is not None else mpmath.nstr(vals[i], 20)
    if info is not None:
        for (name, k), D in sorted(info["degrees"].items()):
            point[f"{name} (in the relations)"] = (f"a random polynomial of degree {D} in {k} variables "
                                                  f"(seed {ev.seed})")
    return point
