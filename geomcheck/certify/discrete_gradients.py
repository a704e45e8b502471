"""Discrete gradients: the average vector field, Gonzalez midpoint and Itoh-Abe gradients, certified.

A *discrete gradient* of a function ``V`` on R^n is a map ``g(u, v)`` with

(i)  ``V(u) - V(v) = g(u, v) . (u - v)``   (the discrete chain rule), and
(ii) ``g(u, u) = grad V(u)``               (consistency; a limit ``v -> u`` where ``g`` is a quotient).

Schemes ``(y1 - y0)/h = S g(y1, y0)`` with ``S`` skew then conserve ``V`` exactly.  This module
builds the three classical discrete gradients and certifies (i) and (ii) for a *generic* ``V``
(an undefined sympy Function: "for every smooth V") or a concrete one.

How the conditions are proved
-----------------------------
* Algebraic gradients (Gonzalez, Itoh-Abe, anything without integrals): (i) is an identity of
  rational functions in the coordinates and the jets of ``V`` (values of ``V`` and its
  derivatives at the points where they occur), decided by the staged zero test
  (:func:`geomcheck.zero.decide_zero`).
* The average vector field gradient ``g = int_0^1 grad V(v + s (u - v)) ds`` of a polynomial
  ``V`` is computed exactly.  For any other ``V`` it is kept as unevaluated integrals
  ``Integral(dV/dx_i(v + s (u - v)), (s, 0, 1))``; condition (i) is then proved by the
  fundamental theorem of calculus along the segment ``s -> v + s (u - v)``: the integrand of
  ``g . (u - v)`` is shown (by the zero test, identically in ``s``) to equal
  ``d/ds V(v + s (u - v))``, whose integral over [0, 1] is ``V(u) - V(v)``.  When that fails, a
  concrete instance is evaluated exactly (``V`` replaced by a random polynomial, so the
  integrals are exact): a nonzero value is a genuine counterexample.
* Condition (ii) where ``g`` is a quotient that is 0/0 on the diagonal ``u = v``:

  - a denominator with linear factors ``(u_j - v_j)**k`` (Itoh-Abe): if the numerator vanishes
    to order ``k`` on each hyperplane ``u_j = v_j`` (zero test), Hadamard's lemma writes it as
    ``prod (u_j - v_j)**k_j * M`` with ``M`` smooth, so ``g`` extends continuously and its value
    on the diagonal is ``d^K P / prod (du_j^k_j k_j!)`` there;
  - any other denominator (``|u - v|**2`` for Gonzalez): put ``v = u - t d``; if the first ``b``
    Taylor coefficients in ``t`` of the numerator vanish identically in ``d`` (``b`` the order of
    the denominator), both are ``t**b`` times smooth functions of ``(t, d)``; when the leading
    coefficient of the denominator has no real zero on ``d != 0`` (a definite quadratic form:
    checked) the quotient is continuous in ``(t, d)`` on ``|d| = 1`` and the limit ``v -> u``
    exists and is the ratio of the ``t**b`` coefficients, compared with ``grad V(u)``.
  - integrals (AVF) are continuous in ``(u, v)`` (smooth integrand on a compact interval), so
    ``g(u, u)`` is the integral at ``v = u``, where the integrand no longer depends on ``s``.

Examples
--------
>>> import sympy
>>> from geomcheck.certify.discrete_gradients import gonzalez_gradient, certify_discrete_gradient
>>> u = sympy.symbols("u1 u2"); v = sympy.symbols("v1 v2")
>>> V = sympy.Function("V")
>>> c = certify_discrete_gradient(gonzalez_gradient(V, None, u, v), V, u, v)
>>> c.holds
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

import sympy
from sympy.core.function import AppliedUndef, UndefinedFunction

from ..calculus import diff
from ..errors import DiscreteGradientError, ExpressionError
from ..latex import Derivation, tex_text
from ..maps import substitute
from ..zero import Jet, canonical_jets, decide_all_zero, decide_zero
from .certificate import Certificate

__all__ = [
    "avf_gradient",
    "gonzalez_gradient",
    "itoh_abe_gradient",
    "midpoint_gradient",
    "certify_discrete_gradient",
]

#: expressions larger than this (in nodes) are summarized, not typeset, in derivations
_TYPESET_NODES = 150
#: the highest order of vanishing looked for in a limit v -> u
_MAX_ORDER = 6


# ----------------------------------------------------------------------------------
# Reading the input


def _symbols(seq, name):
    if isinstance(seq, sympy.Symbol):
        seq = [seq]
    if isinstance(seq, (str, bytes)) or not hasattr(seq, "__iter__"):
        raise DiscreteGradientError(f"{name} must be a sequence of sympy Symbols, got {seq!r}")
    out = tuple(seq)
    if not out:
        raise DiscreteGradientError(f"{name} is empty; a point of R^n with n >= 1 was expected")
    bad = [s for s in out if not isinstance(s, sympy.Symbol)]
    if bad:
        raise DiscreteGradientError(f"{name} must consist of sympy Symbols; {bad[0]!r} is not one")
    if len(set(out)) != len(out):
        raise DiscreteGradientError(f"{name} = {out} repeats a symbol")
    return out


def _points(u, v):
    u, v = _symbols(u, "u"), _symbols(v, "v")
    if len(u) != len(v):
        raise DiscreteGradientError(f"u has {len(u)} coordinates and v has {len(v)}; they must agree")
    if set(u) & set(v):
        raise DiscreteGradientError(f"u = {u} and v = {v} share symbols; two independent points are needed")
    return u, v


def _potential(V, x, n):
    """(expression, variables) for V given as an expression in x, an undefined function class,
    a Lambda, or a Python callable of n arguments."""
    if isinstance(V, UndefinedFunction):
        xs = tuple(sympy.Dummy(f"x{i + 1}") for i in range(n))
        return V(*xs), xs
    if isinstance(V, sympy.Lambda):
        xs = tuple(V.variables)
        if len(xs) != n:
            raise DiscreteGradientError(f"the Lambda {V} has {len(xs)} variables; u has {n} coordinates")
        return V.expr, xs
    if isinstance(V, sympy.Expr):
        if x is None:
            raise DiscreteGradientError(
                f"V = {V} is an expression: give its variables x (or pass the variables u themselves)")
        xs = _symbols(x, "x")
        if len(xs) != n:
            raise DiscreteGradientError(f"x has {len(xs)} variables but u has {n} coordinates")
        if not V.is_commutative:
            raise ExpressionError(f"V = {V} is not a commutative expression")
        return V, xs
    if callable(V) and not isinstance(V, sympy.Basic):
        xs = tuple(sympy.Dummy(f"x{i + 1}") for i in range(n))
        try:
            e = sympy.sympify(V(*xs))
        except (TypeError, ValueError, sympy.SympifyError) as exc:
            raise ExpressionError(f"calling V{xs} did not give a sympy expression: {exc}") from None
        if not isinstance(e, sympy.Expr):
            raise ExpressionError(f"V{xs} = {e!r} is not a sympy expression")
        return e, xs
    raise ExpressionError(
        f"V must be a sympy expression (with its variables x), an undefined Function, a Lambda or a callable;"
        f" got {type(V).__name__} {V!r}")


class _Potential:
    """V with its variables: values and gradients at points."""

    def __init__(self, V, x, u, v):
        self.u, self.v = _points(u, v)
        n = len(self.u)
        if x is None and isinstance(V, sympy.Expr) and not isinstance(V, UndefinedFunction):
            x = self.u   # an expression in u describes the function itself
        self.expr, self.x = _potential(V, x, n)
        self.n = n
        clash = (self.expr.free_symbols - set(self.x)) & (set(self.u) | set(self.v))
        if clash:
            raise DiscreteGradientError(
                f"V = {self.expr} depends on {sorted(map(str, clash))} besides its variables {self.x}; "
                "u and v must be new symbols")
        self.grad = tuple(diff(self.expr, xi) for xi in self.x)

    def at(self, point):
        return substitute(self.expr, dict(zip(self.x, point)))

    def grad_at(self, point):
        m = dict(zip(self.x, point))
        return tuple(substitute(gi, m) for gi in self.grad)

    @property
    def generic(self):
        return bool(self.expr.atoms(AppliedUndef)) or self.expr.has(Jet)

    def is_polynomial(self):
        return not self.generic and self.expr.is_polynomial(*self.x)


# ----------------------------------------------------------------------------------
# The three gradients (and the midpoint gradient, which is not one)


def avf_gradient(V: sympy.Expr | UndefinedFunction | sympy.Lambda | Callable[..., sympy.Expr],
                 x: Sequence[sympy.Symbol] | None, u: Sequence[sympy.Symbol], v: Sequence[sympy.Symbol], *,
                 evaluate: bool | None = None, s: sympy.Symbol | None = None) -> tuple[sympy.Expr, ...]:
    """The average vector field gradient ``g_i = int_0^1 dV/dx_i(v + s (u - v)) ds``.

    Parameters
    ----------
    V : sympy.Expr, undefined Function, Lambda or callable
        The function: an expression in ``x`` (``x=None``: in ``u``), or ``sympy.Function("V")``
        for a generic smooth function of ``len(u)`` variables.
    x : sequence of Symbol or None
        The variables of ``V`` when it is an expression.
    u, v : sequence of Symbol
        The two points.
    evaluate : bool, optional
        Compute the integrals (default: only for polynomial ``V``, where it is exact and cheap);
        otherwise they stay as unevaluated ``sympy.Integral`` objects, which
        :func:`certify_discrete_gradient` handles by the fundamental theorem of calculus.
    s : Symbol, optional
        The integration variable (default a Dummy).

    Returns
    -------
    tuple of sympy.Expr

    Examples
    --------
    >>> import sympy
    >>> x, u, v = sympy.symbols("x u v")
    >>> avf_gradient(x**3, [x], [u], [v])
    (u**2 + u*v + v**2,)
    >>> g = avf_gradient(sympy.Function("V"), None, [u], [v])
    >>> isinstance(g[0], sympy.Integral)
    True
    """
    P = _Potential(V, x, u, v)
    s = sympy.Dummy("s") if s is None else s
    if not isinstance(s, sympy.Symbol) or s in set(P.u) | set(P.v) | P.expr.free_symbols:
        raise DiscreteGradientError(f"the integration variable s = {s!r} must be a new Symbol")
    path = [vi + s * (ui - vi) for ui, vi in zip(P.u, P.v)]
    integrands = P.grad_at(path)
    if evaluate is None:
        evaluate = P.is_polynomial()
    if not evaluate:
        return tuple(sympy.Integral(f, (s, 0, 1)) for f in integrands)
    out = []
    for f in integrands:
        f = sympy.expand(f)
        if f.is_polynomial(s):
            poly = sympy.Poly(f, s)
            # int_0^1 s^k ds = 1/(k + 1), term by term: exact and fast
            val = sympy.Add(*[c / (k + 1) for (k,), c in poly.terms()])
            out.append(sympy.expand(val))
        else:
            out.append(sympy.integrate(f, (s, 0, 1)))
    return tuple(out)


def gonzalez_gradient(V: sympy.Expr | UndefinedFunction | sympy.Lambda | Callable[..., sympy.Expr],
                      x: Sequence[sympy.Symbol] | None, u: Sequence[sympy.Symbol],
                      v: Sequence[sympy.Symbol]) -> tuple[sympy.Expr, ...]:
    """Gonzalez' midpoint discrete gradient.

    ``g = grad V(m) + (V(u) - V(v) - grad V(m) . (u - v)) / |u - v|^2 (u - v)`` with
    ``m = (u + v) / 2`` (Gonzalez, J. Nonlinear Sci. 6 (1996) 449-467).

    Parameters
    ----------
    V, x, u, v
        As for :func:`avf_gradient`.

    Returns
    -------
    tuple of sympy.Expr

    Examples
    --------
    >>> import sympy
    >>> x, u, v = sympy.symbols("x u v")
    >>> sympy.factor(gonzalez_gradient(x**3, [x], [u], [v])[0])
    u**2 + u*v + v**2
    """
    P = _Potential(V, x, u, v)
    m = [(ui + vi) / 2 for ui, vi in zip(P.u, P.v)]
    gm = P.grad_at(m)
    delta = [ui - vi for ui, vi in zip(P.u, P.v)]
    num = P.at(P.u) - P.at(P.v) - sum(g * d for g, d in zip(gm, delta))
    norm2 = sum(d**2 for d in delta)
    return tuple(g + num / norm2 * d for g, d in zip(gm, delta))


def itoh_abe_gradient(V: sympy.Expr | UndefinedFunction | sympy.Lambda | Callable[..., sympy.Expr],
                      x: Sequence[sympy.Symbol] | None, u: Sequence[sympy.Symbol],
                      v: Sequence[sympy.Symbol]) -> tuple[sympy.Expr, ...]:
    """The Itoh-Abe (coordinate increment) discrete gradient.

    ``g_i = (V(u_1..u_i, v_{i+1}..v_n) - V(u_1..u_{i-1}, v_i..v_n)) / (u_i - v_i)``
    (Itoh and Abe, J. Comput. Phys. 76 (1988) 85-102).

    Parameters
    ----------
    V, x, u, v
        As for :func:`avf_gradient`.

    Returns
    -------
    tuple of sympy.Expr

    Examples
    --------
    >>> import sympy
    >>> x1, x2, u1, u2, v1, v2 = sympy.symbols("x1 x2 u1 u2 v1 v2")
    >>> [sympy.factor(gi) for gi in itoh_abe_gradient(x1**2 * x2, [x1, x2], [u1, u2], [v1, v2])]
    [v2*(u1 + v1), u1**2]
    """
    P = _Potential(V, x, u, v)
    n = P.n
    out = []
    for i in range(n):
        hi = list(P.u[: i + 1]) + list(P.v[i + 1:])
        lo = list(P.u[:i]) + list(P.v[i:])
        out.append((P.at(hi) - P.at(lo)) / (P.u[i] - P.v[i]))
    return tuple(out)


def midpoint_gradient(V, x, u, v):
    """``grad V((u + v)/2)``: a discrete gradient for quadratic ``V`` only (a standard wrong guess).

    Examples
    --------
    >>> import sympy
    >>> x, u, v = sympy.symbols("x u v")
    >>> midpoint_gradient(x**3, [x], [u], [v])
    (3*(u/2 + v/2)**2,)
    """
    P = _Potential(V, x, u, v)
    return P.grad_at([(ui + vi) / 2 for ui, vi in zip(P.u, P.v)])


# ----------------------------------------------------------------------------------
# Condition (i): the discrete chain rule


class _Verdict:
    def __init__(self, holds, method, stage, residual=None, point=None, math=""):
        self.holds, self.method, self.stage = holds, method, stage
        self.residual, self.point, self.math = residual, point, math


def _integrals(expr):
    return [a for a in expr.atoms(sympy.Integral)]


def _unit_interval(I):
    lims = I.limits
    return len(lims) == 1 and len(lims[0]) == 3 and lims[0][1] == 0 and lims[0][2] == 1


def _chain_rule(P: _Potential, g) -> _Verdict:
    delta = [ui - vi for ui, vi in zip(P.u, P.v)]
    dot = sum(gi * d for gi, d in zip(g, delta))
    R = P.at(P.u) - P.at(P.v) - dot
    ints = _integrals(R)
    if not ints:
        dec = decide_zero(R)
        return _Verdict(dec.is_zero, "the residual V(u) - V(v) - g.(u - v) is " + dec.method, dec.stage, R,
                        dec.point)
    return _chain_rule_integrals(P, g, R, ints)


def _chain_rule_integrals(P, g, R, ints) -> _Verdict:
    """(i) for a gradient with integrals over [0, 1]: fundamental theorem of calculus."""
    s = sympy.Dummy("s")
    if not all(_unit_interval(I) for I in ints):
        return _instance_check(P, R, "the integrals are not all over [0, 1]")
    # each integral I_k = int_0^1 F_k(s) ds; R must be affine in the I_k with s-free coefficients
    J = [sympy.Dummy(f"J{k}") for k in range(len(ints))]
    F = [I.function.xreplace({I.limits[0][0]: s}) for I in ints]
    Rj = R.xreplace(dict(zip(ints, J)))
    coeffs = [sympy.diff(Rj, Jk) for Jk in J]
    r0 = Rj.xreplace({Jk: 0 for Jk in J})
    if any(c.has(*J) for c in coeffs) or sympy.expand(Rj - r0 - sum(c * Jk for c, Jk in zip(coeffs, J))) != 0:
        return _instance_check(P, R, "the residual is not affine in the integrals")
    # V(u) - V(v) = int_0^1 d/ds V(v + s (u - v)) ds
    path = [vi + s * (ui - vi) for ui, vi in zip(P.u, P.v)]
    phi = P.at(path)
    dphi = diff(phi, s)
    integrand = dphi + (r0 - (P.at(P.u) - P.at(P.v))) + sum(c * f for c, f in zip(coeffs, F))
    dec = decide_zero(integrand)
    if dec.is_zero is True:
        how = ("by the fundamental theorem of calculus along the segment s -> v + s (u - v): the integrand of "
               "g.(u - v) equals d/ds V(v + s (u - v)) identically in s (" + dec.method + "), and "
               "V(v + s (u - v)) is V(v) at s = 0 and V(u) at s = 1")
        return _Verdict(True, how, dec.stage, R)
    why = "the integrand differs from d/ds V(v + s (u - v)) (" + dec.method + ")"
    return _instance_check(P, R, why)


def _random_polynomial(k, degree, rng, name):
    xs = sympy.symbols(f"_{name}_0:{k}")
    terms = []
    for alpha in _multi_indices(k, degree):
        c = sympy.Rational(rng.randint(-9, 9), rng.randint(1, 5))
        terms.append(c * sympy.Mul(*[xi**a for xi, a in zip(xs, alpha)]))
    return sympy.Lambda(xs, sympy.Add(*terms))


def _multi_indices(k, degree):
    if k == 0:
        yield ()
        return
    for a in range(degree + 1):
        for rest in _multi_indices(k - 1, degree - a):
            yield (a,) + rest


def _instance_check(P, R, why) -> _Verdict:
    """Evaluate R exactly for one concrete instance: a counterexample if nonzero, else undecided.

    A generic V (undefined functions) is replaced by a random polynomial, a concrete polynomial
    V is kept; (u, v) are random rationals; the integrals of polynomials in s are then exact.
    """
    rng = random.Random(20240521)
    R = canonical_jets(R)
    replacements = {}
    jets = R.atoms(Jet)
    orders = {}
    for j in jets:
        orders[j.jet_name] = max(orders.get(j.jet_name, 0), j.order)
    polys = {}
    for j in sorted(jets, key=sympy.default_sort_key):
        if j.jet_name not in polys:
            polys[j.jet_name] = _random_polynomial(len(j.jet_index), orders[j.jet_name] + 3, rng, j.jet_name)
        lam = polys[j.jet_name]
        e = lam.expr
        for var, cnt in zip(lam.variables, j.jet_index):
            if cnt:
                e = sympy.diff(e, var, cnt)
        replacements[j] = e.xreplace(dict(zip(lam.variables, j.args)))
    inst = R.xreplace(replacements)
    point = {}
    for sym in sorted(inst.free_symbols - {a for I in inst.atoms(sympy.Integral) for a in I.variables},
                      key=lambda q: q.name):
        point[sym] = sympy.Rational(rng.randint(1, 40), rng.randint(1, 17))
    inst = inst.xreplace(point)

    def integrate(I):
        f = sympy.expand(I.function)
        (var, a, b), = I.limits
        if f.free_symbols - {var} or not f.is_polynomial(var):
            raise ValueError
        return sympy.integrate(f, (var, a, b))

    try:
        value = inst.replace(lambda e: isinstance(e, sympy.Integral), integrate)
    except (ValueError, TypeError, NotImplementedError):
        return _Verdict(None, f"undecided: {why}, and the instance could not be integrated exactly", "unknown", R)
    if value.free_symbols or not value.is_number:
        return _Verdict(None, f"undecided: {why}", "unknown", R)
    if not value.is_Rational:
        # an exact constant that is not a rational number (exp(2) - ...): accept it as nonzero
        # only when two precisions agree on a value far from rounding noise
        lo, hi = sympy.N(value, 60), sympy.N(value, 120)
        if not (lo.is_number and hi.is_number) or abs(hi) < sympy.Float("1e-40") or \
                abs(lo - hi) > abs(hi) / 10**20:
            return _Verdict(None, f"undecided: {why}, and the instance is numerically zero", "unknown", R)
        value = hi
    if value != 0:
        cx = {str(k): v for k, v in point.items()}
        for name, lam in polys.items():
            cx[name] = str(lam)
        where = ", ".join(f"{k} = {v}" for k, v in point.items())
        return _Verdict(False, f"{why}; the exact value at {where}"
                        + (" with V replaced by the polynomial in .counterexample" if polys else "")
                        + f" is {value} != 0", "counterexample", R, cx)
    return _Verdict(None, f"undecided: {why}, while a random exact instance satisfies the identity", "unknown", R)


# ----------------------------------------------------------------------------------
# Condition (ii): consistency, a limit v -> u


def _integral_at_diagonal(I, on_diag):
    """The value at v = u of an integral over [0, 1] whose integrand is smooth across the diagonal."""
    (var, lo, hi), = I.limits
    num, den = sympy.fraction(sympy.together(I.function))
    den_diag = substitute(den, on_diag)
    if den_diag.has(var) or _decide(den_diag).is_zero is not False or not _smooth_near_diagonal(num, on_diag):
        raise ValueError("an integrand is not continuous across v = u")
    f = substitute(num, on_diag) / den_diag
    if var not in f.free_symbols:
        return f * (hi - lo)
    f2 = sympy.expand(f)
    if f2.is_polynomial(var):
        return sympy.integrate(f2, (var, lo, hi))
    raise ValueError("at v = u an integrand still depends on the integration variable")


def _consistency(P: _Potential, g) -> list:
    target = P.grad_at(P.u)
    on_diag = dict(zip(P.v, P.u))
    return [_limit_component(P, i, gi, target[i], on_diag) for i, gi in enumerate(g)]


def _decide(expr):
    """decide_zero, with 'not a finite function' (nan after a substitution) as undecided."""
    try:
        return decide_zero(expr)
    except ExpressionError as exc:
        from ..zero import ZeroDecision

        return ZeroDecision(None, "unknown", f"not a finite function ({exc})")


#: functions that are not smooth where their argument vanishes (or anywhere they switch)
_NONSMOOTH = (sympy.Abs, sympy.sign, sympy.Piecewise, sympy.Max, sympy.Min, sympy.Heaviside, sympy.floor,
              sympy.ceiling)


def _smooth_near_diagonal(expr, on_diag) -> bool:
    """A sufficient check that expr is smooth near v = u: no switching functions, and the bases
    of fractional powers and logarithms do not vanish identically on the diagonal."""
    if expr.has(*_NONSMOOTH):
        return False
    for e in sympy.preorder_traversal(expr):
        base = None
        if isinstance(e, sympy.Pow) and not e.exp.is_Integer:
            base = e.base
        elif isinstance(e, sympy.log):
            base = e.args[0]
        if base is not None and _decide(substitute(base, on_diag)).is_zero is not False:
            return False
    return True


def _limit_component(P, i, gi, target, on_diag) -> _Verdict:
    gi = sympy.sympify(gi)
    ints = sorted(gi.atoms(sympy.Integral), key=sympy.default_sort_key)
    J = [sympy.Dummy(f"J{k}") for k in range(len(ints))]
    G = gi.xreplace(dict(zip(ints, J)))
    num, den = sympy.fraction(sympy.together(G))
    if den.has(*J) or not _smooth_near_diagonal(num, on_diag) or not _smooth_near_diagonal(den, on_diag):
        return _Verdict(None, f"g_{i + 1}: not of a form whose limit v -> u is certified here (an integral in a "
                        "denominator, or a function that is not smooth across the diagonal)", "unknown")
    den_diag = substitute(den, on_diag)
    dd = _decide(den_diag)
    if dd.is_zero is False:
        # num/den after cancellation (``together`` cancels common factors: that is the
        # continuous extension), so no 0/0 is evaluated; integrals with integrands smooth
        # across the diagonal are continuous in (u, v)
        try:
            values = {Jk: _integral_at_diagonal(I, on_diag) for Jk, I in zip(J, ints)}
        except ValueError as exc:
            return _Verdict(None, f"g_{i + 1}: {exc}", "unknown")
        val = substitute(num, on_diag).xreplace(values) / den_diag
        dec = _decide(val - target)
        what = "its integrals have integrands smooth across the diagonal, so " if ints else ""
        how = (f"g_{i + 1} = P/Q in lowest terms with Q not vanishing identically at v = u; {what}g_{i + 1} is "
               f"continuous there and g_{i + 1}(u, u) = {_brief(val)} by substitution; compared with "
               f"dV/dx_{i + 1}(u): {dec.method}")
        return _Verdict(dec.is_zero, how, dec.stage, val - target, dec.point)
    if dd.is_zero is None:
        return _Verdict(None, f"g_{i + 1}: could not decide whether its denominator vanishes at v = u", "unknown")
    if ints:
        return _Verdict(None, f"g_{i + 1}: a quotient with integrals that is 0/0 at v = u is not handled", "unknown")
    verdict = _hadamard(P, i, num, den, target, on_diag)
    if verdict is not None:
        return verdict
    return _scaling_limit(P, i, num, den, target)


def _hadamard(P, i, num, den, target, on_diag):
    """Denominators c * prod (u_j - v_j)**k_j * rest (rest nonzero on the diagonal): Hadamard's lemma."""
    if den.has(AppliedUndef, Jet, sympy.Integral, sympy.Derivative):
        return None
    try:
        c, factors = sympy.factor_list(den)
    except sympy.PolynomialError:
        return None
    lin = {}
    rest = sympy.Integer(c)
    for f, k in factors:
        hit = None
        for j, (uj, vj) in enumerate(zip(P.u, P.v)):
            if sympy.expand(f - (uj - vj)) == 0:
                hit = (j, 1)
            elif sympy.expand(f + (uj - vj)) == 0:
                hit = (j, -1)
        if hit is None:
            rest = rest * f**k
            continue
        j, sign = hit
        lin[j] = lin.get(j, 0) + k
        rest = rest * sign**k
    if not lin:
        return None
    rest_diag = substitute(rest, on_diag)
    if _decide(rest_diag).is_zero is not False:
        return None
    # the numerator must vanish to order k_j on each hyperplane u_j = v_j
    checks = []
    for j, k in lin.items():
        d = num
        for r in range(k):
            checks.append(substitute(d, {P.u[j]: P.v[j]}))
            d = diff(d, P.u[j])
    dec = decide_all_zero(checks)
    if dec.is_zero is False:
        return _Verdict(False, f"g_{i + 1} = P/Q with Q vanishing on u_j = v_j, but P does not vanish there to the "
                        f"same order, so g_{i + 1} is unbounded near the diagonal: {dec.method}",
                        "counterexample", checks[dec.index] if dec.index is not None else None, dec.point)
    if dec.is_zero is None:
        return _Verdict(None, f"g_{i + 1}: could not decide the vanishing of its numerator: {dec.method}", "unknown")
    d = num
    denom = sympy.Integer(1)
    for j, k in lin.items():
        for _ in range(k):
            d = diff(d, P.u[j])
        denom *= math.factorial(k)
    val = substitute(d, on_diag) / (denom * rest_diag)
    dec2 = _decide(val - target)
    facs = " * ".join(f"(u{j + 1} - v{j + 1})" + (f"**{k}" if k > 1 else "") for j, k in lin.items())
    how = (f"g_{i + 1} = P/Q with Q = {facs} times a factor nonzero at v = u; P vanishes to that order on each "
           f"hyperplane u_j = v_j ({dec.method}), so by Hadamard's lemma g_{i + 1} extends smoothly "
           f"and g_{i + 1}(u, u) = [d^K P / prod(k_j!) du_j^k_j] / (rest) at v = u = {_brief(val)}; compared with "
           f"dV/dx_{i + 1}(u): {dec2.method}")
    return _Verdict(dec2.is_zero, how, dec2.stage, val - target, dec2.point)


def _taylor(expr, t, order):
    """Taylor coefficients c_0..c_order of expr in t at 0 (jets for undefined functions)."""
    out = []
    e = expr
    for k in range(order + 1):
        out.append(substitute(e, {t: 0}) / math.factorial(k))
        if k < order:
            e = diff(e, t)
    return out


def _definite_in(q, ds):
    """True when the polynomial q(d) has no real zero with d != 0 (detected cases), else None."""
    q = sympy.expand(q)
    if not q.free_symbols & set(ds):
        return None
    try:
        c, factors = sympy.factor_list(q, *ds)
    except sympy.PolynomialError:
        return None
    for f, k in factors:
        if not f.free_symbols & set(ds):
            continue  # a factor free of d (nonzero at generic points, since q is not identically zero)
        poly = sympy.Poly(f, *ds)
        if poly.total_degree() != 2 or not poly.is_homogeneous:
            return None
        H = sympy.hessian(f, ds) / 2
        if H.free_symbols:
            return None
        if not (H.is_positive_definite or H.is_negative_definite):
            return None
    return True


def _scaling_limit(P, i, num, den, target):
    """v = u - t d: orders of vanishing in t, the limit of the leading coefficients, uniformity in d."""
    t = sympy.Dummy("t")
    ds = tuple(sympy.Dummy(f"d{j + 1}") for j in range(P.n))
    line = {vj: uj - t * dj for uj, vj, dj in zip(P.u, P.v, ds)}
    N = substitute(num, line)
    D = substitute(den, line)
    qs = _taylor(D, t, _MAX_ORDER)
    b = None
    for k, q in enumerate(qs):
        dq = _decide(q)
        if dq.is_zero is False:
            b = k
            break
        if dq.is_zero is None:
            return _Verdict(None, f"g_{i + 1}: undecided order of its denominator on lines v = u - t d", "unknown")
    if b is None:
        return _Verdict(None, f"g_{i + 1}: its denominator vanishes to order > {_MAX_ORDER} at v = u", "unknown")
    ps = _taylor(N, t, b)
    low = ps[:b]
    if low:
        dec = decide_all_zero(low)
        if dec.is_zero is False:
            k = dec.index
            if _nonzero_at(qs[b], dec.point) is not True:
                return _Verdict(None, f"g_{i + 1}: its numerator has a nonzero t^{k} term on a line v = u - t d "
                                "where the denominator's leading coefficient vanishes", "unknown")
            return _Verdict(False, f"g_{i + 1} is unbounded as v -> u along v = u - t d: its numerator has a nonzero "
                            f"t^{k} term while the denominator starts at t^{b} ({dec.method})",
                            "counterexample", low[k], dec.point)
        if dec.is_zero is None:
            return _Verdict(None, f"g_{i + 1}: undecided Taylor coefficients of its numerator: {dec.method}",
                            "unknown")
    lead_n, lead_d = ps[b], qs[b]
    dec = _decide(lead_n - lead_d * target)
    uniform = _definite_in(lead_d, ds) if b > 0 else True
    shown = sympy.factor(lead_d).xreplace({dj: sympy.Symbol(f"d{j + 1}") for j, dj in enumerate(ds)})
    scale = ("; the leading coefficient " + _brief(shown) +
             " of the denominator vanishes for no real direction d != 0, so numerator and denominator are t^"
             f"{b} times smooth functions of (t, d) with the denominator's bounded away from 0 on |d| = 1, and "
             "the limit v -> u exists" if uniform else "")
    how = (f"on the lines v = u - t d the denominator of g_{i + 1} vanishes to order {b} and its numerator's "
           f"Taylor coefficients below t^{b} vanish identically in d, so the limit along d is the ratio of the "
           f"t^{b} coefficients{scale}; compared with dV/dx_{i + 1}(u) for every d: {dec.method}")
    if dec.is_zero is False:
        if _nonzero_at(lead_d, dec.point) is not True:
            return _Verdict(None, how + "; the direction found has a vanishing leading coefficient, so it is not a "
                            "counterexample", "unknown", lead_n - lead_d * target)
        return _Verdict(False, how + "; along the direction d of the counterexample the limit differs from "
                        "dV/dx(u)", dec.stage, lead_n - lead_d * target, dec.point)
    if dec.is_zero is True and not uniform:
        return _Verdict(None, how + "; but the leading coefficient of the denominator may vanish for some real "
                        "directions, so the existence of the limit v -> u is not certified", "unknown",
                        lead_n - lead_d * target)
    return _Verdict(dec.is_zero, how, dec.stage, lead_n - lead_d * target, dec.point)


def _nonzero_at(expr, point):
    """True when expr (free of jets) is a nonzero number at the symbol values of a counterexample point."""
    if not point:
        return None
    values = {}
    for sym in expr.free_symbols:
        for key in (str(sym), sym.name):
            if key in point:
                try:
                    values[sym] = sympy.Rational(point[key])
                except (TypeError, ValueError):
                    return None
                break
        else:
            return None
    val = expr.xreplace(values)
    return bool(val.is_number and val != 0)


# ----------------------------------------------------------------------------------
# The certificate


def _brief(e) -> str:
    return sympy.sstr(e) if _small(e) else "(a large expression)"


def _small(e, limit=_TYPESET_NODES):
    n = 0
    for _ in sympy.preorder_traversal(e):
        n += 1
        if n > limit:
            return False
    return True


def _tex(e) -> str:
    return sympy.latex(e) if _small(e) else r"\text{(an expression of more than %d nodes)}" % _TYPESET_NODES


def certify_discrete_gradient(g: Sequence[sympy.Expr],
                              V: sympy.Expr | UndefinedFunction | sympy.Lambda | Callable[..., sympy.Expr],
                              u: Sequence[sympy.Symbol], v: Sequence[sympy.Symbol],
                              x: Sequence[sympy.Symbol] | None = None) -> Certificate:
    """Certify that ``g`` is a discrete gradient of ``V``.

    Parameters
    ----------
    g : sequence of sympy.Expr
        The components ``g_i(u, v)`` (unevaluated ``Integral`` objects over [0, 1] allowed).
    V : sympy.Expr, undefined Function, Lambda or callable
        The function (see :func:`avf_gradient`); an expression without ``x`` is read as a
        function of ``u``.
    u, v : sequence of Symbol
        The two points.
    x : sequence of Symbol, optional
        The variables of ``V`` when it is an expression in other symbols than ``u``.

    Returns
    -------
    Certificate
        ``holds`` True when (i) ``V(u) - V(v) = g(u, v) . (u - v)`` and (ii) ``g(u, u) = grad V(u)``
        are both proved; False with a counterexample when one fails; None otherwise.
        ``residual`` is ``{"(i)": V(u) - V(v) - g.(u - v), "(ii)": [g_i(u, u) - dV/dx_i(u)]}``;
        ``method`` states how each condition was decided.

    Raises
    ------
    DiscreteGradientError
        ``g``, ``u``, ``v`` (and ``x``) of different lengths; ``u``, ``v`` not distinct symbols.
    ExpressionError
        ``V`` or an entry of ``g`` is not an expression.

    Examples
    --------
    >>> import sympy
    >>> x1, x2 = sympy.symbols("x1 x2"); u = sympy.symbols("u1 u2"); v = sympy.symbols("v1 v2")
    >>> V = x1**3 + x1 * x2**2
    >>> certify_discrete_gradient(midpoint_gradient(V, [x1, x2], u, v), V, u, v, x=[x1, x2]).holds
    False
    >>> certify_discrete_gradient(itoh_abe_gradient(V, [x1, x2], u, v), V, u, v, x=[x1, x2]).holds
    True
    """
    P = _Potential(V, x, u, v)
    if isinstance(g, sympy.MatrixBase):
        g = list(g)
    if isinstance(g, (str, bytes)) or not hasattr(g, "__iter__"):
        raise ExpressionError(f"g must be a sequence of {P.n} expressions, got {g!r}")
    g = list(g)
    if len(g) != P.n:
        raise DiscreteGradientError(f"g has {len(g)} components but u has {P.n} coordinates")
    comps = []
    for k, gi in enumerate(g):
        try:
            gi = sympy.sympify(gi, strict=True)
        except sympy.SympifyError:
            raise ExpressionError(f"g_{k + 1} = {gi!r} is not a sympy expression") from None
        if not isinstance(gi, sympy.Expr):
            raise ExpressionError(f"g_{k + 1} = {gi!r} is not a scalar expression")
        comps.append(gi)
    first = _chain_rule(P, comps)
    second = _consistency(P, comps)

    D = Derivation("Discrete gradient")
    D = D.add(r"The function is $V = " + _tex(P.expr) + r"$ and the candidate discrete gradient is",
              r" \\ ".join(rf"g_{{{k + 1}}}(u, v) &= {_tex(gi)}" for k, gi in enumerate(comps)))
    D = D.add(r"(i) The discrete chain rule $V(u) - V(v) = g(u, v) \cdot (u - v)$: the residual is",
              r"V(u) - V(v) - g \cdot (u - v) &= " + _tex(first.residual if first.residual is not None else 0))
    D = D.add("Decided " + tex_text(first.method) + ".")
    for k, res in enumerate(second):
        D = D.add(rf"(ii) Consistency of $g_{{{k + 1}}}$: " + tex_text(res.method) + ".")

    verdicts = [first] + second
    if all(w.holds is True for w in verdicts):
        holds = True
    elif any(w.holds is False for w in verdicts):
        holds = False
    else:
        holds = None
    failing = next((w for w in verdicts if w.holds is False), None) or next(
        (w for w in verdicts if w.holds is None), None)
    parts = [f"(i) {first.method}"] + [f"(ii) component {k + 1}: {w.method}" for k, w in enumerate(second)]
    method = "; ".join(parts)
    if holds is True:
        stages = {w.stage for w in verdicts}
        stage = "randomized" if "randomized" in stages else ("exact" if "exact" in stages else "structural")
    elif holds is False:
        stage = "counterexample"
        which = "(i)" if failing is first else f"(ii) for component {second.index(failing) + 1}"
        method = f"condition {which} fails. " + method
    else:
        stage = "unknown"
    counter = None
    if holds is False:
        counter = {str(k): val for k, val in (failing.point or {}).items()}
    residual = {"(i)": first.residual, "(ii)": [w.residual for w in second]}
    D = D.concluding({True: "Hence g is a discrete gradient of V.", False: "Hence g is not a discrete gradient of V.",
                      None: "The claim is undecided."}[holds])
    return Certificate(
        claim="g is a discrete gradient of V: V(u) - V(v) = g(u, v).(u - v) and g(u, u) = grad V(u)",
        holds=holds, method=method, stage=stage, residual=residual, counterexample=counter, derivation=D)
