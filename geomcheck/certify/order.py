"""Order and symmetry of one-step maps, explicit or implicit.

Order: the Taylor coefficients in h of ``phi_h(x)`` are compared with those of the
exact flow ``exp(h X) x = sum_k h^k/k! X^k(x)`` (the Lie series).  For an implicit
map the solution ``u(h)`` of ``F(x, u, h) = 0`` is expanded order by order: the
h^k coefficient of F is linear in the k-th coefficient of u, with the matrix
``F_u`` at h = 0, solved by one sparse linear solve per order.  The h^k coefficient
of F is computed by truncated power-series arithmetic over F's expression tree
(Taylor mode: a function of series arguments is expanded by its partial derivatives
at the h = 0 point, so an undefined function contributes its jets there), and each
solved coefficient is expanded to a polynomial before the next order; differentiating
``F(x, u(h), h)`` k times by h instead grows like Faa di Bruno's formula (measured: 58
s for the 3-stage Gauss method on one degree of freedom, coefficients of 18000
operations at order 6, against well under a second this way).

Smoothness at h = 0: an order is a statement about a Taylor expansion, so every entry
(and every implicit equation) must be smooth in h at h = 0.  Entries built from
polynomials, ``exp``, ``sin``, ``cos``, ``sinh``, ``cosh`` and the user's undefined
functions are, and are differentiated.  Anything else (a negative or fractional power
of an h-dependent expression, another function of h) is expanded by truncated
*Laurent* series that carry their precision: a removable singularity (``sinc(h)``, the
phi functions ``(exp(z) - 1)/z`` of exponential integrators at ``z = h L``) is seen
through by carrying extra powers of h, a pole (``1/h``) or a non-smooth point
(``sqrt(h)``, ``log(h)``, ``h**(5/2)``, whose first derivatives at 0 may all be finite)
raises :class:`~geomcheck.errors.MapError` naming the entry, and a coefficient that
cannot be proved zero or nonzero exactly makes the certificate undecided.  A kink at
h = 0 itself (``Abs(h)``) is undecided too.  The requested order is at most
:data:`MAX_ORDER`, and the expansion runs within a time budget (undecided past it).

Symmetry: ``phi_h o phi_{-h} = id``, decided exactly for explicit maps and on the
solution manifold of the composite for implicit ones.  The composite's relation is
built directly from the two maps' equations: no ImplicitMap (and no implicit function
theorem data) is made for it.

>>> import geomcheck as gc, sympy
>>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
>>> X = gc.VectorField(M, {q: p, p: -q})
>>> euler = gc.Map(M, M, [q + h * p, p - h * q])
>>> gc.map_order(euler, X, h)
1
>>> gc.certify_symmetric(euler, h).holds
False
"""

from __future__ import annotations

import itertools
import time
from math import factorial

import sympy
from sympy.core.function import AppliedUndef, Derivative, Subs

from ..algebra import find_node
from ..calculus import diff
from ..errors import ChartMismatchError, ExpressionError, GeomcheckError, InvalidArgumentError, MapError
from ..fields import VectorField
from ..latex import Derivation, expression_size, in_lines, latex, summarize_map
from ..maps import ImplicitMap, Map, compose, substitute
from ..zero import Jet, Relation, canonical_jets, decide_all_zero, decide_zero, from_jets, jet_function
from .certificate import Certificate

#: Taylor-coefficient rows typeset at most in an order certificate's derivation
_ROWS = 24

#: a Taylor coefficient is typeset when its tree has at most this many nodes
_ROW_NODES = 400

#: the highest order certify_order and map_order accept.  Each entry is differentiated
#: ``order`` times in h (and the field applied ``order`` times), whose cost grows
#: combinatorially; no one-step method in use has an order near this
MAX_ORDER = 30

#: seconds certify_order and map_order may spend expanding a map in h by default (the zero
#: test that follows has its own budget); past it the answer is None, never a hang
EXPANSION_BUDGET = 120.0

#: at most this many extra powers of h are carried to expand through removable singularities
#: (the total order of the poles that cancel, as in ``(exp(z) - 1)/z`` at z = h L)
POLE_ORDER_BUDGET = 24

__all__ = ["taylor_coefficients", "flow_coefficients", "certify_order", "map_order", "certify_symmetric",
           "MAX_ORDER", "EXPANSION_BUDGET"]


def _check(phi, X, h):
    if not isinstance(phi, (Map, ImplicitMap)):
        raise ExpressionError(f"expected a Map or ImplicitMap, got {type(phi).__name__}")
    if not isinstance(h, sympy.Symbol):
        raise ExpressionError(f"the step must be a sympy Symbol, got {h!r}")
    if X is not None:
        if not isinstance(X, VectorField):
            raise ExpressionError(f"expected the system's VectorField, got {type(X).__name__}")
        if X.chart != phi.source or phi.source.dim != phi.target.dim:
            raise ChartMismatchError(
                f"the field lives on {X.chart!r}; the map goes {phi.source!r} -> {phi.target!r}:"
                " a map of the field's chart to itself was expected"
            )


def _at_zero(expr, h):
    return substitute(expr, {h: sympy.S.Zero})


def _replace(e, mapping):
    """``e.xreplace(mapping)`` (symbols to values) rebuilding each shared subexpression once.

    ``xreplace`` walks the tree: on a composition of a dozen steps (a tree of millions of
    nodes on a DAG of a few hundred) it takes minutes.  ``e`` must hold no ``Derivative`` or
    ``Subs`` of the replaced symbols (bring them to jets first).
    """
    memo = {}
    stack = [(e, False)]
    while stack:
        node, done = stack.pop()
        k = id(node)
        if k in memo:
            continue
        if not node.args:
            memo[k] = mapping.get(node, node) if node.is_Symbol else node
            continue
        if not done:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if id(a) not in memo)
            continue
        args = [memo[id(a)] for a in node.args]
        memo[k] = node.func(*args) if any(n is not a for n, a in zip(args, node.args)) else node
    return memo[id(e)]


def _check_order(name, order, lowest):
    if isinstance(order, bool) or not isinstance(order, int) or not lowest <= order <= MAX_ORDER:
        raise InvalidArgumentError(
            f"{name} must be an integer from {lowest} to {MAX_ORDER} (MAX_ORDER), got {order!r}")


def _check_budget(budget):
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float))
                               or not budget > 0 or budget == float("inf")):
        raise InvalidArgumentError(f"budget must be a positive number of seconds or None, got {budget!r}")


class _Undecided(Exception):
    """The expansion in h could not be completed or decided (internal: certificates say None)."""


class _Clock:
    """A deadline checked between the steps of an expansion (cooperative, so it holds in any thread)."""

    def __init__(self, budget):
        self.budget = budget
        self.end = None if budget is None else time.monotonic() + budget

    def tick(self, what):
        if self.end is not None and time.monotonic() > self.end:
            raise _Undecided(f"the expansion budget of {self.budget:g} s ran out while {what}")

    def left(self, most):
        return most if self.end is None else max(0.05, min(most, self.end - time.monotonic()))


def taylor_coefficients(phi: Map | ImplicitMap, h: sympy.Symbol, order: int, *,
                        budget: float | None = None) -> list[list[sympy.Expr]]:
    """``[c_0, ..., c_order]`` with ``phi_h(x) = sum_k h^k c_k(x)``, one list per target coordinate.

    Entries are differentiated in h at h = 0; an entry with a removable singularity there
    (``sinc(h)``, ``(exp(h*L) - 1)/(h*L)``), where differentiating gives ``nan``, is expanded
    by truncated Laurent-series arithmetic instead, carrying enough extra powers of h for
    the poles to cancel.

    Parameters
    ----------
    phi : Map or ImplicitMap
    h : Symbol
        The step.
    order : int
        The highest power of h, from 0 to :data:`MAX_ORDER`.
    budget : float, optional
        Seconds the expansion may take (None: no limit).

    Returns
    -------
    list of list
        One list of ``order + 1`` coefficients per target coordinate.

    Raises
    ------
    MapError
        An entry has a pole at h = 0 or is not smooth there (``1/h``, ``sqrt(h)``,
        ``exp(1/h)``), or the expansion could not be decided (the message says why).
    InvalidArgumentError
        ``order`` or ``budget`` out of range.

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> flow = gc.Map(M, M, [sympy.cos(h)*q + h*sympy.sinc(h)*p, -h*sympy.sinc(h)*q + sympy.cos(h)*p])
    >>> taylor_coefficients(flow, h, 3)[0]
    [q, p, -q/2, -p/6]
    """
    if not isinstance(phi, (Map, ImplicitMap)):
        raise ExpressionError(f"expected a Map or ImplicitMap, got {type(phi).__name__}")
    _check_order("order", order, 0)
    _check_budget(budget)
    try:
        return _taylor(phi, h, order, _Clock(budget))
    except _Undecided as exc:
        raise MapError(f"taylor_coefficients: the expansion of {phi!r} in {h} was not completed: {exc}") from None


def _taylor(phi, h, order, clock) -> list:
    # the expansion is costly: keep what was computed (per step symbol) on the map, so that
    # map_order and certify_order at several orders share it; an explicit entry's expansion is
    # extended from where it stopped
    memo = phi.__dict__.setdefault("_taylor_memo", {})
    if isinstance(phi, Map):
        entries = memo.setdefault(h, [_Entry(e, f"the entry for {y}") for y, e in zip(phi.target_symbols, phi.exprs)])
        return [entry.coefficients(h, order, clock) for entry in entries]
    hit = memo.get(h)
    if hit is None or len(hit[0]) <= order:
        hit = memo[h] = _implicit_taylor(phi, h, order, clock)
    return [list(c[:order + 1]) for c in hit]


def _dag_has(e, types) -> bool:
    """Whether some subexpression of ``e`` is an instance of ``types`` (each shared one looked at once)."""
    return find_node(e, lambda node: isinstance(node, types)) is not None


_NON_FINITE = (sympy.core.numbers.NaN, sympy.core.numbers.ComplexInfinity, sympy.core.numbers.Infinity,
               sympy.core.numbers.NegativeInfinity)


def _not_finite(e) -> bool:
    return isinstance(e, sympy.Basic) and _dag_has(e, _NON_FINITE)


class _Entry:
    """The Taylor coefficients of one explicit entry, computed so far, and how to go on.

    Differentiation continues from the last derivative; an entry that may be singular at
    h = 0 (see :func:`_scan`) is expanded by series instead, which proves it smooth there
    (or finds the pole) and sees through removable singularities.
    """

    def __init__(self, e, label):
        self.e, self.label = e, label
        self.kind = None          # "constant", "series" or "derivatives", once scanned
        self.coeffs = []
        self.derivative = e       # the derivative of the last coefficient computed, for "derivatives"

    def coefficients(self, h, order, clock) -> list:
        if self.kind is None:
            depends, kinked, suspicious = _scan(self.e, frozenset([h]))
            if depends:
                _require_no_kink_at_zero(kinked, {h: sympy.S.Zero}, h, self.label)
            self.kind = "constant" if not depends else "series" if suspicious else "derivatives"
        if self.kind == "constant":
            return [self.e] + [sympy.S.Zero] * order
        if len(self.coeffs) <= order and self.kind == "derivatives":
            self._differentiate(h, order, clock)
        if len(self.coeffs) <= order:
            self.coeffs = [from_jets(c) if c.has(Jet) else c
                           for c in _series_at_zero(self.e, h, order + 1, clock, self.label)]
        return list(self.coeffs[:order + 1])

    def _differentiate(self, h, order, clock):
        for k in range(len(self.coeffs), order + 1):
            clock.tick(f"differentiating {self.label} {k} times in {h}")
            if k:
                self.derivative = diff(self.derivative, h)
            if _dag_has(self.derivative, (Derivative, Subs)):
                # in jets, derivatives and values at h = 0 need no Subs bookkeeping, so the
                # substitution can go through the DAG (see _replace)
                self.derivative = canonical_jets(self.derivative)
            try:
                c = _replace(self.derivative, {h: sympy.S.Zero})
            except GeomcheckError:
                raise
            except (ValueError, TypeError, NotImplementedError) as exc:
                # sympy's derivatives of Abs, sign ... of complex arguments cannot always be evaluated
                raise _Undecided(f"the {k}-th derivative of {self.label} by {h} could not be evaluated at"
                                 f" {h} = 0 ({type(exc).__name__}: {exc})") from None
            if _not_finite(c):
                # 0/0 at h = 0 that the scan did not foresee: the series sees through it
                self.kind = "series"
                return
            self.coeffs.append(c / factorial(k))


#: functions that are not smooth where their argument vanishes (or two arguments meet, or
#: an integer is crossed); their derivatives at such a point are not Taylor coefficients
_KINKED = (sympy.Abs, sympy.sign, sympy.Heaviside, sympy.DiracDelta, sympy.Max, sympy.Min,
           sympy.floor, sympy.ceiling, sympy.frac, sympy.Piecewise, sympy.re, sympy.im, sympy.arg,
           sympy.conjugate)

#: functions smooth wherever their arguments are: an expression built from these, polynomials
#: and the user's (smooth) undefined functions is smooth in h, and differentiation gives its
#: Taylor coefficients
_ENTIRE = (sympy.exp, sympy.sin, sympy.cos, sympy.sinh, sympy.cosh, AppliedUndef, Jet)

#: expression nodes that are smooth in their arguments (functions and powers are checked apart)
_SMOOTH_NODES = (sympy.Add, sympy.Mul, sympy.Symbol, sympy.Number, sympy.NumberSymbol, sympy.Tuple,
                 Derivative, Subs, sympy.core.numbers.ImaginaryUnit)


def _scan(e, active):
    """``(depends, kinked, suspicious)`` of ``e`` over its DAG (shared subexpressions visited once).

    ``depends``: e contains a symbol of ``active``; ``kinked``: the applications of
    :data:`_KINKED` functions that depend on them; ``suspicious``: some node depending on
    them may be singular or non-smooth at h = 0 (a negative or fractional power, a function
    that is not entire, an expression type without a smoothness rule).  Walking the tree
    instead (``free_symbols``, ``atoms``) costs seconds on a composition of a dozen steps.
    """
    dep = {}
    kinked, suspicious = [], False
    stack = [(e, False)]
    while stack:
        node, done = stack.pop()
        k = id(node)
        if k in dep:
            continue
        if not done:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if id(a) not in dep)
            continue
        d = dep[k] = node in active if node.is_Symbol else any(dep[id(a)] for a in node.args)
        if not d:
            continue
        if isinstance(node, _KINKED):
            kinked.append(node)
        elif isinstance(node, sympy.Pow):
            suspicious = suspicious or not (node.exp.is_Integer and node.exp >= 0)
        elif isinstance(node, sympy.Function):
            suspicious = suspicious or not isinstance(node, _ENTIRE)
        elif not isinstance(node, _SMOOTH_NODES):
            suspicious = True
    return dep[id(e)], kinked, suspicious


def _kink_arguments(f) -> list:
    """What must not vanish at h = 0 for ``f`` to be smooth near h = 0 (None: cannot tell)."""
    if isinstance(f, (sympy.Max, sympy.Min)):
        return [a - b for a, b in itertools.combinations(f.args, 2)]
    if isinstance(f, (sympy.Abs, sympy.sign, sympy.Heaviside, sympy.DiracDelta, sympy.re, sympy.im,
                      sympy.arg, sympy.conjugate)):
        return [f.args[0]]
    return None


def _require_no_kink_at_zero(kinked, at0, h, label):
    """Refuse (as undecided) a kink in h at h = 0 itself (``Abs(h)``, ``Max(h, 0)``).

    A kink elsewhere (``Abs(q + h)`` at q = 0) leaves the Taylor coefficients right wherever
    they exist, and the zero test treats the switching functions they contain; a kink at
    h = 0 for every x makes differentiation at h = 0 meaningless.
    """
    for f in kinked:
        kinks = _kink_arguments(f)
        if kinks is None:
            raise _Undecided(f"{label} contains {f}, which is not smooth in {h}: its expansion is not decided")
        for a in kinks:
            if decide_zero(substitute(a, at0), budget=5.0).is_zero is not False:
                raise _Undecided(f"{label} contains {f}, which may not be smooth at {h} = 0 ({a} vanishes"
                                 f" there): its expansion is not decided")


def _exactly_zero(c, budget):
    """True (proved zero), False (shown nonzero) or None, for a coefficient of a series."""
    if c == 0:
        return True
    if c.is_Number:
        return False
    d = decide_zero(c, budget=budget)
    if d.is_zero is True and d.stage not in ("structural", "exact"):
        return None  # a coefficient dropped on randomized evidence would weaken every later claim
    return d.is_zero


def _series_at_zero(e, h, need, clock, label, useries=None) -> list:
    """The first ``need`` Taylor coefficients of ``e`` at h = 0, through removable singularities.

    Raises MapError for a pole or a non-smooth point at h = 0, _Undecided when that
    cannot be decided or the extra precision runs out.
    """
    ej = canonical_jets(e) if _dag_has(e, (Derivative, Subs, AppliedUndef)) else e
    P = need
    while True:
        series = _LaurentSeries(h, P, clock, useries, label)
        try:
            s = series(ej)
        except _TooShort:
            s = None
        except RecursionError:
            raise _Undecided(f"{label} is nested too deeply for the series expansion at {h} = 0") from None
        except _NotSmooth as exc:
            raise MapError(f"{label} is not smooth at {h} = 0: {exc}; a one-step map must be smooth at"
                           f" {h} = 0 (removable singularities such as sinc({h}) are fine)") from None
        if s is not None and s.prec >= need:
            break
        if P >= need + POLE_ORDER_BUDGET:
            raise _Undecided(
                f"{label} did not expand at {h} = 0 within {POLE_ORDER_BUDGET} extra powers of {h} (a"
                f" removable singularity of higher order, or a division by an expression that vanishes"
                f" identically)")
        # a pole of order m cancelling costs m powers: raise the precision by what was lost
        P = min(need + POLE_ORDER_BUDGET, P + max(1, need - s.prec if s is not None else P))
    for k in range(s.v, 0):
        c = s.coeff(k)
        verdict = _exactly_zero(c, clock.left(5.0))
        if verdict is False:
            raise MapError(
                f"{label} has a pole of order {-k} at {h} = 0 (its {h}^{k} coefficient {from_jets(c)} is not"
                f" zero); a one-step map must be smooth at {h} = 0 (removable singularities such as"
                f" sinc({h}) are fine)")
        if verdict is None:
            raise _Undecided(f"could not decide whether the {h}^{k} coefficient of {label}, {from_jets(c)},"
                             f" vanishes (if not, it has a pole at {h} = 0)")
    return [s.coeff(k) for k in range(need)]


class _TooShort(Exception):
    """A divisor's known coefficients all vanish: more precision is needed (internal)."""


class _NotSmooth(Exception):
    """A pole inside a function, a non-integer power of a vanishing series (internal)."""


class _Trunc:
    """``sum_i c[i] h^(v + i) + O(h^prec)``: a truncated Laurent series (later terms of c are zero)."""

    __slots__ = ("v", "c", "prec")

    def __init__(self, v, c, prec):
        self.v, self.c, self.prec = v, c[:max(0, prec - v)], prec

    def coeff(self, k):
        i = k - self.v
        return self.c[i] if 0 <= i < len(self.c) else sympy.S.Zero


#: functions with a removable singularity, rewritten where their values or derivatives are not finite
_REMOVABLE = {sympy.sinc: lambda x: sympy.sin(x) / x}


class _LaurentSeries:
    """Truncated Laurent series at h = 0 of expressions in h (and unknowns with given series).

    Every series carries its absolute precision, so poles that cancel (``(exp(h) - 1)/h``)
    are seen through: dividing by ``h^m`` loses m powers, and :func:`_series_at_zero`
    retries with more when the result is short.  Capped at ``P`` powers.
    """

    def __init__(self, h, P, clock, useries, label):
        self.h, self.P, self.clock, self.label = h, P, clock, label
        self.useries = dict(useries or {})
        self.active = frozenset(self.useries) | {h}
        self.memo = {}
        self.dep = {}

    def _depends(self, e) -> bool:
        """Whether ``e`` contains h or an unknown (memoized per object: free_symbols walks the tree)."""
        k = id(e)
        hit = self.dep.get(k)
        if hit is None:
            hit = self.dep[k] = e in self.active if e.is_Symbol else any(self._depends(a) for a in e.args)
        return hit

    def __call__(self, e):
        hit = self.memo.get(e)
        if hit is None:
            self.clock.tick(f"expanding {self.label} at {self.h} = 0")
            hit = self.memo[e] = self._series(e)
        return hit

    def _const(self, e):
        return _Trunc(0, [e], self.P)

    def _series(self, e):
        if not self._depends(e):
            return self._const(e)
        if e == self.h:
            return _Trunc(0, [sympy.S.Zero, sympy.S.One], self.P)
        if e in self.useries:
            return _Trunc(0, list(self.useries[e]), self.P)
        if isinstance(e, sympy.Add):
            return self._add([self(a) for a in e.args])
        if isinstance(e, sympy.Mul):
            out = self._const(sympy.S.One)
            for a in e.args:
                out = self._mul(out, self(a))
            return out
        if isinstance(e, sympy.Pow):
            if self._depends(e.exp):
                return self(sympy.exp(e.exp * sympy.log(e.base)))
            if e.exp.is_Integer:
                return self._ipow(self(e.base), int(e.exp), e)
            return self._rpow(self(e.base), e.exp, e)
        if isinstance(e, (Derivative, Subs, AppliedUndef)) or not isinstance(e, sympy.Function):
            raise _Undecided(f"{self.label}: no series rule for {type(e).__name__} ({e})")
        return self._function(e)

    def _add(self, parts):
        v = min(p.v for p in parts)
        prec = min(p.prec for p in parts)
        top = min(prec, max(p.v + len(p.c) for p in parts))
        c = []
        for k in range(v, top):
            terms = [p.coeff(k) for p in parts]
            c.append(sympy.Add(*[t for t in terms if t != 0]))
        return _Trunc(v, c, prec)

    def _mul(self, a, b):
        v = a.v + b.v
        prec = min(a.v + b.prec, b.v + a.prec, self.P)
        n = min(len(a.c) + len(b.c) - 1, prec - v)
        c = []
        for k in range(max(0, n)):
            terms = [a.c[i] * b.c[k - i] for i in range(max(0, k - len(b.c) + 1), min(k, len(a.c) - 1) + 1)
                     if a.c[i] != 0 and b.c[k - i] != 0]
            c.append(sympy.Add(*terms) if terms else sympy.S.Zero)
        return _Trunc(v, c, prec)

    def _lead(self, a, what):
        """``a`` with its leading zero coefficients removed (decided exactly)."""
        for i, c in enumerate(a.c):
            verdict = _exactly_zero(c, self.clock.left(5.0))
            if verdict is False:
                return _Trunc(a.v + i, a.c[i:], a.prec)
            if verdict is None:
                raise _Undecided(f"could not decide whether the {self.h}^{a.v + i} coefficient of {what}"
                                 f" in {self.label}, {from_jets(c)}, vanishes")
        raise _TooShort

    def _inv(self, a, what):
        s = self._lead(a, what)
        c0, r = s.c[0], s.prec - s.v
        d = [1 / c0]
        for k in range(1, r):
            terms = [s.c[i] * d[k - i] for i in range(1, min(k, len(s.c) - 1) + 1) if s.c[i] != 0]
            d.append(_NORMALIZE(-sympy.Add(*terms) / c0) if terms else sympy.S.Zero)
        return _Trunc(-s.v, d, min(r - s.v, self.P))

    def _ipow(self, b, n, e):
        if n < 0:
            return self._ipow(self._inv(b, e.base), -n, e)
        out, base = self._const(sympy.S.One), b
        while n:
            if n & 1:
                out = self._mul(out, base)
            n >>= 1
            if n:
                base = self._mul(base, base)
        return out

    def _rpow(self, b, alpha, e):
        """``b**alpha`` by J.C.P. Miller's recurrence (b's constant term nonzero)."""
        s = self._lead(b, e.base)
        if s.v != 0:
            raise _NotSmooth(f"{e} is a non-integer power of an expression of order {self.h}^{s.v}")
        b0, r = s.c[0], min(s.prec, self.P)
        c = [b0**alpha]
        for k in range(1, r):
            terms = [((alpha + 1) * i - k) * s.c[i] * c[k - i] for i in range(1, min(k, len(s.c) - 1) + 1)
                     if s.c[i] != 0]
            c.append(_NORMALIZE(sympy.Add(*terms) / (k * b0)) if terms else sympy.S.Zero)
        return _Trunc(0, c, r)

    def _regular(self, a, e):
        """``a`` (an argument of the function ``e``) without negative powers, which must vanish."""
        if a.v >= 0:
            return a
        for k in range(a.v, 0):
            verdict = _exactly_zero(a.coeff(k), self.clock.left(5.0))
            if verdict is False:
                raise _NotSmooth(f"the argument of {e} has a pole at {self.h} = 0")
            if verdict is None:
                raise _Undecided(f"could not decide whether the argument of {e} in {self.label} has a pole"
                                 f" at {self.h} = 0")
        return _Trunc(0, a.c[-a.v:], a.prec)

    def _function(self, e):
        """``f(a0 + delta) = sum_beta d^beta f(a0) delta^beta / beta!``, truncated."""
        if isinstance(e, _KINKED):
            raise _Undecided(f"{self.label} contains {e}, which is not smooth in {self.h}: its expansion"
                             " through a removable singularity is not decided")
        args = [self._regular(self(a), e) for a in e.args]
        at = [a.coeff(0) for a in args]
        prec = min([self.P] + [a.prec for a in args])
        moving = [i for i, a in enumerate(args) if any(c != 0 for c in a.c[1:])]
        value = e.func(*at)
        if _not_finite(value):
            return self._singular(e, at)
        if not moving:
            return _Trunc(0, [value], prec)
        powers = {}
        for i in moving:
            delta = _Trunc(0, [sympy.S.Zero] + list(args[i].c[1:]), args[i].prec)
            pw = [self._const(sympy.S.One)]
            for _m in range(prec - 1):
                pw.append(self._mul(pw[-1], delta))
            powers[i] = pw
        parts = []
        for beta_m in itertools.product(range(prec), repeat=len(moving)):
            if sum(beta_m) >= prec:
                continue
            self.clock.tick(f"expanding {e} in {self.label}")
            beta = [0] * len(args)
            for i, b in zip(moving, beta_m):
                beta[i] = b
            d = _partial(e, beta, at) if any(beta) else value
            if _not_finite(d):
                return self._singular(e, at)
            term = self._const(d / sympy.Mul(*[factorial(b) for b in beta_m]))
            for i, b in zip(moving, beta_m):
                if b:
                    term = self._mul(term, powers[i][b])
            parts.append(term)
        out = self._add(parts)
        return _Trunc(out.v, out.c, min(out.prec, prec))

    def _singular(self, e, at):
        rewrite = _REMOVABLE.get(e.func)
        if rewrite is None:
            raise _NotSmooth(f"{e} or its derivatives are not finite at the h = 0 value {tuple(at)} of its arguments")
        return self(rewrite(*e.args))


class _NoSeries(Exception):
    """An expression the truncated-series arithmetic does not handle (internal)."""


def _smul(a, b, N):
    """Truncated product of two coefficient lists."""
    n = min(len(a) + len(b) - 1, N + 1)
    out = []
    for k in range(n):
        terms = [a[i] * b[k - i] for i in range(max(0, k - len(b) + 1), min(k, len(a) - 1) + 1)
                 if a[i] != 0 and b[k - i] != 0]
        out.append(sympy.Add(*terms) if terms else sympy.S.Zero)
    return out


def _sadd(parts, N):
    n = min(max(len(p) for p in parts), N + 1)
    return [sympy.Add(*[p[k] for p in parts if k < len(p)]) for k in range(n)]


def _spow_int(b, n, N):
    out, base = [sympy.S.One], b
    while n:
        if n & 1:
            out = _smul(out, base, N)
        n >>= 1
        if n:
            base = _smul(base, base, N)
    return out


def _spow_real(b, alpha, N):
    """``b**alpha`` by J.C.P. Miller's recurrence (b_0 != 0)."""
    b0 = b[0]
    if b0 == 0:
        raise _NoSeries("a power of a series vanishing at h = 0")
    c = [b0**alpha]
    for k in range(1, N + 1):
        terms = [((alpha + 1) * i - k) * b[i] * c[k - i] for i in range(1, min(k, len(b) - 1) + 1) if b[i] != 0]
        c.append(sympy.Add(*terms) / (k * b0) if terms else sympy.S.Zero)
    return c


def _partial(e, beta, at):
    """The ``beta`` partial derivative of the function application ``e`` at the point ``at``."""
    if isinstance(e, Jet):
        index = tuple(i + b for i, b in zip(e.jet_index, beta))
        return jet_function(e.jet_name, index)(*at)
    ts = [sympy.Dummy("t%d" % i) for i in range(len(e.args))]
    g = e.func(*ts)
    for t, b in zip(ts, beta):
        for _ in range(b):
            g = diff(g, t)
    return g.xreplace(dict(zip(ts, at)))


class _Series:
    """Taylor coefficients in h, up to h^N, of expressions in which the unknowns are given series."""

    def __init__(self, h, useries, N):
        self.h, self.useries, self.N = h, useries, N
        self.active = frozenset(useries) | {h}
        self.memo = {}

    def __call__(self, e):
        hit = self.memo.get(e)
        if hit is None:
            hit = self.memo[e] = self._series(e)
        return hit

    def _series(self, e):
        N = self.N
        if not (e.free_symbols & self.active):
            return [e]
        if e == self.h:
            return [sympy.S.Zero, sympy.S.One]
        if e in self.useries:
            return self.useries[e][:N + 1]
        if isinstance(e, sympy.Add):
            return _sadd([self(a) for a in e.args], N)
        if isinstance(e, sympy.Mul):
            out = [sympy.S.One]
            for a in e.args:
                out = _smul(out, self(a), N)
            return out
        if isinstance(e, sympy.Pow):
            if e.exp.free_symbols & self.active:
                raise _NoSeries("a power with an exponent depending on h")
            b = self(e.base)
            if e.exp.is_Integer and e.exp > 0:
                return _spow_int(b, int(e.exp), N)
            if e.exp.is_Integer:
                return _spow_real(_spow_int(b, int(-e.exp), N), sympy.S.NegativeOne, N)
            return _spow_real(b, e.exp, N)
        if isinstance(e, (Derivative, Subs, AppliedUndef)) or not isinstance(e, sympy.Function):
            raise _NoSeries(f"no series rule for {type(e).__name__}")
        return self._function(e)

    def _function(self, e):
        """``f(a0 + delta) = sum_beta d^beta f(a0) delta^beta / beta!``, truncated."""
        N = self.N
        args = [self(a) for a in e.args]
        at = [a[0] for a in args]
        moving = [i for i, a in enumerate(args) if any(c != 0 for c in a[1:])]
        if not moving:
            return [e.func(*at)]
        powers = {}
        for i in moving:
            delta = [sympy.S.Zero] + list(args[i][1:])
            pw = [[sympy.S.One]]
            for _m in range(N):
                pw.append(_smul(pw[-1], delta, N))
            powers[i] = pw
        parts = []
        for beta_m in itertools.product(range(N + 1), repeat=len(moving)):
            order = sum(beta_m)
            if order > N:
                continue
            beta = [0] * len(args)
            for i, b in zip(moving, beta_m):
                beta[i] = b
            term = [_partial(e, beta, at) / sympy.Mul(*[factorial(b) for b in beta_m])]
            for i, b in zip(moving, beta_m):
                if b:
                    term = _smul(term, powers[i][b], N)
            parts.append(term)
        return _sadd(parts, N)


#: a solved Taylor coefficient is expanded only while its tree is at most this large:
#: expanded coefficients keep the next orders small and let the exact stage prove the
#: order, but expanding a large one costs more than the randomized stage saves
EXPAND_MAX_NODES = 300


def _NORMALIZE(e):
    return sympy.expand(e) if expression_size(e, EXPAND_MAX_NODES) <= EXPAND_MAX_NODES else e


def _implicit_taylor(psi: ImplicitMap, h, order: int, clock) -> list:
    """Order-by-order solution of F(x, u(h), h) = 0 around u(0) = the map's guess."""
    from ..linalg import SingularSystem, solve_sparse

    unknowns = psi.unknowns
    u0 = [psi.guess[u] for u in unknowns]
    at0 = {**dict(zip(unknowns, u0)), h: sympy.S.Zero}
    guess_series = {u: [c] for u, c in zip(unknowns, u0)}

    def at_zero(F, label):
        v = substitute(F, at0)
        if _not_finite(v):
            # a removable singularity at h = 0 (sinc(h) in the equations): the series' constant term
            (v,) = _series_at_zero(F, h, 1, clock, label, guess_series)
            v = from_jets(v) if v.has(Jet) else v
        return v

    labels = [f"the implicit equation {i}" for i in range(len(psi.equations))]
    active = frozenset(unknowns) | {h}
    for F, lab in zip(psi.equations, labels):
        _, kinked, suspicious = _scan(F, active)
        _require_no_kink_at_zero(kinked, at0, h, lab)
        if suspicious:
            # the expansion needs F smooth in (u, h) jointly near (u0, 0): expanded in h with the
            # unknowns left free, a pole such as (Q - q)/h is found
            _series_at_zero(F, h, 1, clock, lab)
    start = decide_all_zero([at_zero(F, lab) for F, lab in zip(psi.equations, labels)])
    if start.is_zero is not True:
        raise InvalidArgumentError(
            "the implicit map's guess does not solve its equations at h = 0, so its expansion in h has"
            f" no starting point ({start.method}); pass guess= with the h = 0 solution"
        )
    rows = []
    for F, lab in zip(psi.equations, labels):
        row = {}
        for j, u in enumerate(unknowns):
            v = at_zero(diff(F, u), f"the derivative of {lab} by {u}")
            if v != 0:
                row[j] = v
        rows.append(row)
    equations = [canonical_jets(F) if F.has(Derivative, Subs, AppliedUndef) else F for F in psi.equations]
    coeffs = [[canonical_jets(c) if c.has(Derivative, Subs, AppliedUndef) else c] for c in u0]
    for k in range(1, order + 1):
        clock.tick(f"solving for the {h}^{k} coefficients of the implicit map")
        useries = {u: coeffs[j] + [sympy.S.Zero] for j, u in enumerate(unknowns)}
        try:
            series = _Series(h, useries, k)
            rhs = []
            for F in equations:
                c = series(F)
                rhs.append(-c[k] if k < len(c) else sympy.S.Zero)
        except _NoSeries:
            rhs = _rhs_by_differentiation(psi, h, coeffs, k)
        if any(_not_finite(r) for r in rhs):
            # 0/0 at h = 0 (a removable singularity): truncated Laurent series see through it
            rhs = [-_series_at_zero(F, h, k + 1, clock, lab, useries)[k] for F, lab in zip(equations, labels)]
        try:
            (sol,) = solve_sparse(rows, [rhs], len(unknowns))
        except SingularSystem:
            raise InvalidArgumentError("F_u is singular at h = 0: the implicit map has no expansion in h") from None
        for j in range(len(unknowns)):
            coeffs[j].append(_NORMALIZE(sol[j]))
    return [coeffs[unknowns.index(u)] for u in psi.new]


def _rhs_by_differentiation(psi, h, coeffs, k):
    """``-[h^k] F`` by differentiating k times (for expressions without series rules)."""
    z = [sympy.Dummy("z%d" % j) for j in range(len(psi.unknowns))]
    series = {u: sum((coeffs[j][i] * h**i for i in range(k)), sympy.S.Zero) + z[j] * h**k
              for j, u in enumerate(psi.unknowns)}
    rhs = []
    for F in psi.equations:
        Fk = substitute(F, series)
        for _ in range(k):
            Fk = diff(Fk, h)
        rhs.append(-substitute(Fk, {h: sympy.S.Zero, **{zj: sympy.S.Zero for zj in z}}) / factorial(k))
    return rhs


def flow_coefficients(X: VectorField, order: int) -> list:
    """``[x_i, X(x_i), X^2(x_i)/2!, ...]``: the Lie series of the exact flow, per coordinate."""
    _check_order("order", order, 0)
    return _flow(X, order, _Clock(None))


def _flow(X, order, clock) -> list:
    out = []
    for x in X.chart.coords:
        coeffs, term = [x], x
        for k in range(1, order + 1):
            clock.tick(f"applying the field {k} times to {x}")
            term = X.apply_expr(term)
            coeffs.append(term / factorial(k))
        out.append(coeffs)
    return out


def certify_order(phi: Map | ImplicitMap, X: VectorField, h: sympy.Symbol, order: int, *,
                  budget: float | None = EXPANSION_BUDGET) -> Certificate:
    """Certify that ``phi_h`` agrees with the flow of X to order ``order``: local error O(h^(order+1)).

    The map's Taylor coefficients in h (see :func:`taylor_coefficients`: removable
    singularities at h = 0 such as ``sinc(h)`` or the phi functions of exponential
    integrators are expanded as series) are compared with the exact flow's Lie series.

    Parameters
    ----------
    phi : Map or ImplicitMap
        A map of X's chart to itself.
    X : VectorField
    h : Symbol
        The step.
    order : int
        From 1 to :data:`MAX_ORDER`.
    budget : float or None
        Seconds the expansion in h may take (the zero test has its own budget); when it
        runs out the certificate is undecided.  None: no limit.

    Returns
    -------
    Certificate
        ``holds`` None (undecided) when the budget ran out or a coefficient needed for a
        removable singularity could not be decided; ``method`` says which.

    Raises
    ------
    MapError
        An entry has a pole at h = 0 or is not smooth there (the message names it).
    InvalidArgumentError
        ``order`` or ``budget`` out of range.

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> X = gc.VectorField(M, {q: p, p: -sympy.sin(q)})
    >>> Q, P = sympy.symbols("Q P")
    >>> mid = gc.ImplicitMap(M, M, [Q - q - h*(p + P)/2, P - p + h*sympy.sin((q + Q)/2)], new=[Q, P])
    >>> gc.certify_order(mid, X, h, 2).holds, gc.certify_order(mid, X, h, 3).holds
    (True, False)

    The exact flow of the harmonic oscillator, written with ``sinc``, has every order:

    >>> O = gc.VectorField(M, {q: p, p: -q})
    >>> flow = gc.Map(M, M, [sympy.cos(h)*q + h*sympy.sinc(h)*p, -h*sympy.sinc(h)*q + sympy.cos(h)*p])
    >>> gc.certify_order(flow, O, h, 8).holds
    True
    """
    _check(phi, X, h)
    _check_order("order", order, 1)
    _check_budget(budget)
    return _certify_order(phi, X, h, order, _Clock(budget))


def _certify_order(phi, X, h, order, clock) -> Certificate:
    return _order_certificate(phi, X, h, order, clock)[0]


def _order_certificate(phi, X, h, order, clock):
    """The certificate, and the key ``(coordinate, k)`` of a failing coefficient (or None)."""
    claim = f"order >= {order}"
    D = Derivation(rf"The map has order {order}: $\varphi_h(x) - \exp(hX)(x) = O(h^{{{order + 1}}})$")
    try:
        got = _taylor(phi, h, order, clock)
        want = _flow(X, order, clock)
    except _Undecided as exc:
        return Certificate(claim=claim, holds=None, method=f"the expansion in {h} is undecided: {exc}",
                           stage="unknown", derivation=D), None
    residuals = {}
    for i, x in enumerate(phi.source.coords):
        # k = 0 too: a map that is not the identity at h = 0 (q + 1 + h p) has no order at all
        for k in range(0, order + 1):
            residuals[(str(x), k)] = got[i][k] - want[i][k]
    # the Taylor coefficients of an implicit map are explicit in x: no relation needed
    decision = decide_all_zero(residuals, domain=phi.source.domain)
    D = D.add(r"The exact flow's Lie series is $\exp(hX)x = \sum_k \frac{h^k}{k!} X^k(x)$ with", r"X &= " + in_lines(X))
    rows = []
    for i, x in enumerate(phi.source.coords):
        for k in range(1, order + 1):
            if expression_size(got[i][k], _ROW_NODES) <= _ROW_NODES:
                rows.append(rf"[h^{{{k}}}]\,\varphi_h({latex(x)}) &= {latex(got[i][k])}")
    if rows:
        # a page of rows at most (a 104-dimensional step has hundreds)
        more = f" (the first {_ROWS} of {len(rows)})" if len(rows) > _ROWS else ""
        D = D.add(f"The Taylor coefficients of the map are{more}", r"\\ ".join(rows[:_ROWS]))
    method = decision.method
    if decision.is_zero is False:
        method = f"the coefficient {decision.index} differs from the exact flow's: " + method
    return (Certificate.from_decision(claim, decision, method=method, residual=residuals, derivation=D),
            decision.index if decision.is_zero is False else None)


def map_order(phi: Map | ImplicitMap, X: VectorField, h: sympy.Symbol, max_order: int = 6, *,
              budget: float | None = EXPANSION_BUDGET) -> int | None:
    """The order of ``phi_h`` as an approximation of the flow of X (None if undecided).

    The largest p <= max_order whose coefficients all agree, confirmed by a nonzero
    h^(p+1) coefficient; ``max_order`` if all agree up to it.

    Parameters
    ----------
    phi : Map or ImplicitMap
    X : VectorField
    h : Symbol
    max_order : int
        From 1 to :data:`MAX_ORDER`.
    budget : float or None
        Seconds the expansions in h may take together (see :func:`certify_order`).

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("y"); (y,) = M.coords; h, lam = sympy.symbols("h lam")
    >>> N = sympy.Function("N")
    >>> X = gc.VectorField(M, {y: lam*y + N(y)})
    >>> phi1 = lambda z: (sympy.exp(z) - 1) / z
    >>> exponential_euler = gc.Map(M, M, [sympy.exp(h*lam)*y + h*phi1(h*lam)*N(y)])
    >>> gc.map_order(exponential_euler, X, h, 3)
    1
    """
    _check(phi, X, h)
    _check_order("max_order", max_order, 1)
    _check_budget(budget)
    clock = _Clock(budget)
    if isinstance(phi, ImplicitMap):
        try:
            _taylor(phi, h, max_order, clock)  # one expansion, shared by the orders below
        except _Undecided:
            return None
    for p in range(1, max_order + 1):
        c, failing = _order_certificate(phi, X, h, p, clock)
        if c.holds is False:
            # the failing coefficient says which order fails (0 when phi_0 is not the identity)
            return max(failing[1] - 1, 0) if isinstance(failing, tuple) else p - 1
        if c.holds is None:
            return None
    return max_order


def _symmetry_relation(phi: ImplicitMap, h):
    """The relation of ``phi_h o phi_{-h}`` (phi_{-h} first), built from the equations alone.

    Returns the symbols of the composite's new values and the :class:`Relation` whose
    unknowns are both maps' unknowns; no implicit-function-theorem data is computed (the
    certificate needs only the solution manifold).
    """
    source = phi.source
    taken = set(phi.unknowns) | set(source.coords)
    back = {u: sympy.Dummy(u.name) for u in phi.unknowns}
    back_eqs = [substitute(e, {h: -h, **back}) for e in phi.equations]
    back_guess = {back[u]: substitute(g, {h: -h}) for u, g in phi.guess.items()}
    fwd = {u: sympy.Dummy(u.name) if u in taken else u for u in phi.unknowns}
    into = dict(zip(source.coords, [back[u] for u in phi.new]))
    fwd_eqs = [substitute(e, {**into, **fwd}) for e in phi.equations]
    start = dict(zip(source.coords, [back_guess[back[u]] for u in phi.new]))
    fwd_guess = {fwd[u]: substitute(g, start) for u, g in phi.guess.items()}
    unknowns = [back[u] for u in phi.unknowns] + [fwd[u] for u in phi.unknowns]
    small = (phi.step,) if phi.step is not None else ()
    relation = Relation(back_eqs + fwd_eqs, unknowns, guess={**back_guess, **fwd_guess}, small=small)
    return [fwd[u] for u in phi.new], relation


def certify_symmetric(phi: Map | ImplicitMap, h: sympy.Symbol) -> Certificate:
    """Certify ``phi_h o phi_{-h} = id`` (the map is its own adjoint).

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> V = sympy.Function("V")
    >>> ph = p - h / 2 * V(q).diff(q)
    >>> Q = q + h * ph
    >>> verlet = gc.Map(M, M, [Q, ph - h / 2 * gc.substitute(V(q).diff(q), {q: Q})])
    >>> gc.certify_symmetric(verlet, h).holds
    True
    """
    _check(phi, None, h)
    if phi.source != phi.target:
        raise ChartMismatchError(f"symmetry compares a map with its inverse: {phi.source!r} -> {phi.target!r} is not a self-map")
    D = Derivation(r"The map is symmetric: $\varphi_h \circ \varphi_{-h} = \mathrm{id}$")
    D = D.add(r"The map $\varphi_h$ is", summarize_map(phi))
    if isinstance(phi, Map):
        backward = Map(phi.source, phi.target, [substitute(e, {h: -h}) for e in phi.exprs], parameters=phi.parameters)
        both = compose(phi, backward)
        residual = {str(x): e - x for x, e in zip(phi.source.coords, both.exprs)}
        decision = decide_all_zero(residual)
    else:
        new, relation = _symmetry_relation(phi, h)
        residual = {str(x): u - x for x, u in zip(phi.source.coords, new)}
        decision = decide_all_zero(residual, relations=(relation,))
    return Certificate.from_decision("phi_h o phi_{-h} == id", decision, residual=residual, derivation=D)
