r"""Quotients with a removable singularity: one definition, an exact form and two evaluation rules.

Discrete gradients are quotients ``N / D`` whose numerator and denominator vanish together
when the new and the old point coincide in some direction: the divided difference
``(f(a) - f(b)) / (a - b)`` (average vector field, Itoh-Abe) and Gonzalez' correction
``(H(u) - H(v) - grad H(m).(u - v)) / |u - v|^2``.  The function they define is the
continuous (in fact smooth, or at least bounded) extension across ``D = 0``.  A
:class:`Quotient` carries

``exact``
    ``N / D`` itself: the definition.  It is what the step map contains, so what is
    certified (energy, symmetry) is the exact discrete gradient.
``evaluation``
    How that same function is evaluated in finite precision (lowered to numpy and mpmath):

    .. math::

        \text{evaluation} = \begin{cases}
            \sum_{k=0}^{K-1} s_k & \text{if } (|s_K| + |s_{K+1}|)\,|D| \le \varepsilon S \\
            N / D & \text{otherwise,}\end{cases}

    where ``s_k`` are the terms of the Taylor expansion of ``N / D`` about the midpoint
    (the exact function's own series: even in the increment, so the truncation error is
    the next even power; the first two omitted terms estimate it), ``S`` bounds the size of the terms whose difference is ``N`` (so
    that ``eps S / |D|`` is the rounding error of ``N / D``), and ``eps`` is the unit
    roundoff of the arithmetic that evaluates it (:class:`RoundoffUnit`: ``2^-52`` in
    numpy, ``mpmath.eps`` at the working precision in mpmath).  The series is taken exactly
    when its truncation error estimate is below the rounding error of the quotient, so the
    evaluation error is at most about ``eps^((2K+2)/(2K+3))`` relative (measured in the
    tests: < 1e-55 at 60 digits near coincidence) instead of ``eps / |D|``, and ``D = 0``
    (an equilibrium, a turning point ``p = 0``, a Newton iterate at the old point) gives
    the limit, never ``0/0``.  Both branches are free of division by zero: the denominator
    of the exact branch is ``D + [D == 0]`` (numpy evaluates both branches everywhere).
``expansion(count)``
    The first ``count`` Taylor terms, for the order certificate: the Taylor coefficients of
    a step map in ``h`` cannot be computed through ``0/0`` at ``h = 0``; the truncated
    series differs from ``N / D`` by ``O(increment^(2 count))`` and therefore leaves the
    step's Taylor coefficients up to that order unchanged (see
    :mod:`integrators.schemes.discrete_gradient`).

The guard is an *evaluation rule* of the same function (as ``expm1`` is one of
``exp(x) - 1``), not a second definition: where it takes the series, the series agrees
with ``N / D`` to below the rounding error of ``N / D`` itself.

>>> import sympy
>>> a, b = sympy.symbols("a b")
>>> xi = sympy.Symbol("xi")
>>> Qt = divided_difference(sympy.cos(xi), xi, a, b, a - b)
>>> Qt.exact
(cos(a) - cos(b))/(a - b)
>>> Qt.expansion(2)
(a/2 - b/2)**2*sin(a/2 + b/2)/6 - sin(a/2 + b/2)
>>> sympy.sympify(divided_difference(xi**3, xi, a, b, a - b).exact)
a**2 + a*b + b**2
"""

from __future__ import annotations

from dataclasses import dataclass
from math import factorial

import sympy

from geomcheck.calculus import diff
from geomcheck.maps import substitute

__all__ = ["RoundoffUnit", "Magnitude", "Quotient", "divided_difference", "gonzalez_quotient", "TAYLOR_TERMS"]

#: the evaluation's series has the terms k = 0..TAYLOR_TERMS - 1 (powers of the increment up to
#: 2 (TAYLOR_TERMS - 1)), and the next two estimate its truncation error: with 6 terms the switch
#: to the exact quotient loses at most about 1/13 of the digits (measured: < 5e-16 relative in
#: double precision, < 1e-55 at 60 digits)
TAYLOR_TERMS = 6


class RoundoffUnit(sympy.Function):
    """The unit roundoff of the arithmetic that evaluates the expression (no arguments).

    Printed as ``numpy.finfo(float).eps`` by the numpy printer and as ``mpmath.eps`` (the
    working precision's) by the mpmath printer; as a constant of the step it is computed
    once per binding.  It occurs only in the evaluation form of a :class:`Quotient`.

    >>> RoundoffUnit()
    RoundoffUnit()
    """

    nargs = 0
    is_real = True
    is_positive = True

    @classmethod
    def eval(cls):
        return None

    def _eval_derivative(self, s):
        return sympy.S.Zero

    def _numpycode(self, printer):
        return "numpy.finfo(float).eps"

    def _mpmathcode(self, printer):
        return "mpmath.eps"

    def _pythoncode(self, printer):
        return "2.220446049250313e-16"

    def _latex(self, printer=None):
        return r"\varepsilon"


class Magnitude(sympy.Function):
    """``|x|`` for the guard's estimates, never rewritten (sympy's Abs of a non-real symbol's
    ``exp`` becomes ``exp(re(...))``, which the printers do not know).

    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> Magnitude(sympy.exp(x)), Magnitude(-3)
    (Magnitude(exp(x)), 3)
    """

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x.is_Number:
            return abs(x)
        return None

    def fdiff(self, argindex=1):
        return sympy.sign(self.args[0])

    def _numpycode(self, printer):
        return f"numpy.abs({printer._print(self.args[0])})"

    def _mpmathcode(self, printer):
        return f"abs({printer._print(self.args[0])})"

    def _pythoncode(self, printer):
        return f"abs({printer._print(self.args[0])})"

    def _latex(self, printer=None):
        return r"\left|" + sympy.latex(self.args[0]) + r"\right|"


def _indicator_zero(e):
    """``1`` where ``e == 0`` else ``0`` (a guard added to a denominator)."""
    return sympy.Piecewise((sympy.S.Zero, sympy.Ne(e, 0)), (sympy.S.One, True))


@dataclass(frozen=True)
class Quotient:
    """``N / D`` with a removable singularity where ``D = 0`` (see the module docstring).

    Attributes
    ----------
    numerator, denominator : sympy expressions ``N``, ``D``
    terms : tuple
        Numerators ``n_k`` of the Taylor terms ``s_k = n_k / d`` of ``N / D``; the last two are
        the first omitted terms of the evaluation's series (its error estimate).
    reduced : sympy expression
        ``d``: the denominator of the terms after the powers of the step are cancelled
        (1 for a divided difference, ``|w|^2`` for Gonzalez' correction).
    ratio : sympy expression
        ``D / d`` written without division.
    scale : sympy expression
        ``S >= 0``: the size of the terms whose difference is ``N``.
    exact_series : bool
        True when ``sum s_k`` is ``N / D`` exactly (a polynomial ``f`` of low degree): then
        no branch is needed.
    """

    numerator: object
    denominator: object
    terms: tuple
    reduced: object
    ratio: object
    scale: object
    exact_series: bool = False

    @property
    def exact(self):
        """``N / D``: the definition."""
        return self.numerator / self.denominator

    def expansion(self, count: int):
        """The sum of the first ``count`` Taylor terms (``count`` at most ``len(terms)``)."""
        if self.exact_series:
            return sympy.Add(*self.terms) / self.reduced
        if count > len(self.terms) or count < 1:
            raise ValueError(f"only {len(self.terms)} Taylor terms are available, {count} asked for")
        return sympy.Add(*self.terms[:count]) / self.reduced

    def evaluation(self):
        """The guarded form, free of ``0/0`` (see the module docstring)."""
        d = self.reduced
        d_safe = d if d == 1 else d + _indicator_zero(d)
        if self.exact_series:
            return sympy.Add(*self.terms) / d_safe
        series = sympy.Add(*self.terms[:-2]) / d_safe
        eps = RoundoffUnit()
        estimate = (Magnitude(self.terms[-2]) + Magnitude(self.terms[-1])) * Magnitude(self.ratio)
        D = self.denominator
        return sympy.Piecewise((series, estimate <= eps * self.scale),
                               (self.numerator / (D + _indicator_zero(D)), True))


def _is_polynomial(f, xi):
    try:
        return f.is_polynomial(xi)
    except Exception:  # noqa: BLE001 - sympy raises various errors on exotic input
        return False


def divided_difference(f, xi, a, b, delta, count: int = TAYLOR_TERMS) -> Quotient:
    """The divided difference ``(f(a) - f(b)) / delta`` of ``f(xi)``, where ``delta == a - b``.

    ``delta`` is passed separately so that it can be written in a form that is accurate in
    floating point (``h * w`` rather than ``(y + h w) - y``).  Its Taylor terms about
    ``m = (a + b)/2`` are ``f^(2k+1)(m) (delta/2)^(2k) / (2k+1)!``.  For a polynomial f the
    quotient is the exact polynomial ``sum_k c_k sum_j a^j b^(k-1-j)`` (no singularity).

    Examples
    --------
    >>> import sympy
    >>> a, b, xi = sympy.symbols("a b xi")
    >>> divided_difference(xi**2 + 3 * xi, xi, a, b, a - b).exact
    a + b + 3
    """
    f = sympy.sympify(f)
    m = (a + b) / 2
    if _is_polynomial(f, xi):
        poly = sympy.Poly(f, xi)
        value = sympy.Add(*[c * sympy.Add(*[a**j * b**(k - 1 - j) for j in range(k)])
                            for (k,), c in poly.terms() if k > 0])
        return Quotient(value, sympy.S.One, (value, sympy.S.Zero), sympy.S.One, sympy.S.Zero, sympy.S.One, True)
    terms = []
    g = diff(f, xi)
    for k in range(count + 2):
        terms.append(substitute(g, {xi: m}) * (delta / 2) ** (2 * k) / factorial(2 * k + 1))
        g = diff(diff(g, xi), xi)
    fa, fb = substitute(f, {xi: a}), substitute(f, {xi: b})
    return Quotient(fa - fb, delta, tuple(terms), sympy.S.One, delta, Magnitude(fa) + Magnitude(fb))


def gonzalez_quotient(H, x, y, w, h, count: int = TAYLOR_TERMS) -> Quotient:
    """Gonzalez' correction ``(H(u) - H(v) - grad H(m).(u - v)) / |u - v|^2`` for ``u = y + h w, v = y``.

    With ``psi(s) = H(m + s w / 2)`` (``m = y + h w / 2``) the numerator is
    ``2 sum_{k odd >= 3} h^k psi^(k)(0) / k!`` and the Taylor terms, with ``h^2`` cancelled,
    are ``2 h^(k-2) psi^(k)(0) / k!`` over ``|w|^2``.

    Examples
    --------
    >>> import sympy
    >>> q, p, Y, W, h = sympy.symbols("q p Y W h")
    >>> c = gonzalez_quotient(q**3, [q], [Y], [W], h)
    >>> sympy.simplify(c.exact - c.expansion(1)), c.exact_series
    (0, True)
    """
    x, y, w = list(x), list(y), list(w)
    s = sympy.Dummy("s")
    m = [yi + h * wi / 2 for yi, wi in zip(y, w)]
    u = [yi + h * wi for yi, wi in zip(y, w)]
    grad_m = [substitute(diff(H, xi), dict(zip(x, m))) for xi in x]
    Hu, Hv = substitute(H, dict(zip(x, u))), substitute(H, dict(zip(x, y)))
    dot = h * sympy.Add(*[g * wi for g, wi in zip(grad_m, w)])
    numerator = Hu - Hv - dot
    norm2 = sympy.Add(*[wi**2 for wi in w])
    psi = substitute(H, {xi: mi + s * wi / 2 for xi, mi, wi in zip(x, m, w)})
    terms = []
    d = diff(diff(diff(psi, s), s), s)
    k = 3
    for _ in range(count + 2):
        terms.append(2 * h ** (k - 2) * substitute(d, {s: sympy.S.Zero}) / factorial(k))
        d = diff(diff(d, s), s)
        k += 2
    H = sympy.sympify(H)
    # a polynomial of degree <= 2 count + 5: all the terms are the numerator itself
    polynomial = all(_is_polynomial(H, xi) for xi in x) and sympy.Poly(H, *x).total_degree() <= 2 * count + 5
    return Quotient(numerator, h**2 * norm2, tuple(terms), norm2, h**2,
                    Magnitude(Hu) + Magnitude(Hv) + Magnitude(dot), bool(polynomial))
