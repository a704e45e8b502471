"""Linear stability of Runge-Kutta methods, decided exactly: A-stability and L-stability.

Applied to ``y' = lambda y`` a Runge-Kutta method gives ``y1 = R(h lambda) y0`` with the
stability function ``R(z) = P(z)/Q(z)`` (:func:`geomcheck.certify.tableaux.stability_function`).
The method is *A-stable* when ``|R(z)| <= 1`` for every ``z`` with ``Re z <= 0``, and
*L-stable* when moreover ``R(z) -> 0`` as ``z -> infinity``.

How it is decided (Hairer, Wanner, *Solving ODEs II*, IV.3, the E-polynomial criterion)
----------------------------------------------------------------------------------------
After cancelling the common factor of ``P`` and ``Q`` (a gcd over the number field of the
entries), ``R`` is A-stable iff

1. every pole of ``R`` lies in ``Re z > 0`` -- ``Q(-z)`` is a Hurwitz polynomial, decided by the
   Routh-Hurwitz criterion (the first column of the Routh array is nonzero and of one sign);
2. ``|R(iy)| <= 1`` for all real ``y`` -- the even polynomial
   ``E(y) = |Q(iy)|^2 - |P(iy)|^2`` is ``>= 0`` on the real line.

(By the maximum principle, 1 and 2 give ``|R| <= 1`` on the closed left half plane; a pole
in ``Re z <= 0`` makes ``|R|`` unbounded there.)  Nonnegativity of ``E`` is proved by exact
real root isolation: all real roots of ``E`` are roots of the rational polynomial
``N(y) = Res_t(g(t), E(y, t))`` (``g`` the minimal polynomial of the field's primitive
element; ``N = E`` for rational tableaux), whose real roots sympy isolates in disjoint
rational intervals.  ``E`` has one sign on each gap between them, and its sign at one
rational point of each gap decides.  Double roots (``E`` touching 0) are therefore fine.

Signs of algebraic numbers are decided exactly by :func:`real_sign`: an element of
``Q(theta)`` is ``f(theta)`` with ``f`` rational; ``theta`` is located in an isolating
interval of ``g`` by rigorous interval arithmetic (mpmath's ``iv`` context), and the interval
is refined with exact rational arithmetic until ``f`` has no root in it.  No floating-point
comparison decides a verdict.

Counterexamples: a rational ``y`` with ``E(y) < 0`` (so ``|R(iy)| > 1``), or the Routh array
showing a pole in ``Re z <= 0`` together with a Gaussian-rational point ``z`` near it, with
``Re z <= 0``, where ``|R(z)|^2 > 1`` was verified exactly (the pole itself is shown to 15
digits).  Tableaux with floating-point or non-algebraic entries are undecided (``holds``
None): no exact sign is available for them.

Examples
--------
>>> import sympy
>>> from sympy import Rational as R
>>> from geomcheck.certify.tableaux import ButcherTableau
>>> midpoint = ButcherTableau([[R(1, 2)]], [1], name="implicit midpoint")
>>> is_A_stable(midpoint).holds, is_L_stable(midpoint).holds
(True, False)
>>> is_L_stable(midpoint).counterexample
{'R(infinity)': -1}
>>> euler = ButcherTableau([[0]], [1], name="explicit Euler")
>>> c = is_A_stable(euler)
>>> c.holds, c.counterexample
(False, {'z': I, '|R(z)|^2': 2})
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import mpmath
import sympy

from ..errors import InvalidArgumentError
from ..latex import Derivation, tex_text
from .certificate import Certificate
from .exact_sign import TableauArithmetic, real_sign, tableau_arithmetic
from .tableau_arithmetic import characteristic_coefficients
from .tableaux import ButcherTableau, stability_function

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "ReducedStability",
    "reduced_stability_function",
    "e_polynomial",
    "is_A_stable",
    "is_L_stable",
    "stability_region_plot",
]


# ===================================================================== polynomials over the arithmetic
# (lists of elements, lowest degree first, trimmed: no zero leading coefficient)


def _trim(f):
    f = list(f)
    while f and not f[-1]:
        f.pop()
    return f


def _add(dom, f, g):
    n = max(len(f), len(g))
    return _trim([(f[k] if k < len(f) else dom.zero) + (g[k] if k < len(g) else dom.zero) for k in range(n)])


def _neg(f):
    return [-c for c in f]


def _mul(dom, f, g):
    if not f or not g:
        return []
    out = [dom.zero] * (len(f) + len(g) - 1)
    for i, a in enumerate(f):
        if a:
            for j, c in enumerate(g):
                out[i + j] = out[i + j] + a * c
    return _trim(out)


def _divmod(dom, f, g):
    f = list(f)
    q = [dom.zero] * max(len(f) - len(g) + 1, 1)
    inv = dom.one / g[-1]
    while len(f) >= len(g) and f:
        c = f[-1] * inv
        k = len(f) - len(g)
        q[k] = c
        for i, gi in enumerate(g):
            f[k + i] = f[k + i] - c * gi
        f.pop()          # its coefficient is now exactly zero
        f = _trim(f)
    return _trim(q), f


def _gcd(dom, f, g):
    while g:
        f, g = g, _divmod(dom, f, g)[1]
    return [c / f[-1] for c in f]   # monic


def _eval(dom, f, x):
    acc = dom.zero
    for c in reversed(f):
        acc = acc * x + c
    return acc


def _to_expr(dom, f, var):
    return sympy.Add(*[dom.to_sympy(c) * var ** k for k, c in enumerate(f)])


def _det_poly(dom, M):
    """``det(I - z M)`` as a coefficient list, lowest degree first."""
    return _trim(characteristic_coefficients(dom, M))


# ===================================================================== the reduced stability function


@dataclass(frozen=True)
class ReducedStability:
    """``R(z) = P(z)/Q(z)`` in lowest terms, with coefficients in the tableau's arithmetic.

    Attributes
    ----------
    arithmetic : TableauArithmetic
    P, Q : list
        Coefficients (lowest degree first) with ``Q(0) = 1``; ``gcd(P, Q) = 1``.
    cancelled : int
        The degree of the common factor of ``det(I - zA + z e b^T)`` and ``det(I - zA)``
        that was cancelled (0 for most methods).
    """

    arithmetic: TableauArithmetic
    P: list
    Q: list
    cancelled: int

    @property
    def dom(self):
        return self.arithmetic.dom

    def numerator(self, z: sympy.Symbol) -> sympy.Expr:
        return _to_expr(self.dom, self.P, z)

    def denominator(self, z: sympy.Symbol) -> sympy.Expr:
        return _to_expr(self.dom, self.Q, z)


def reduced_stability_function(T: ButcherTableau) -> ReducedStability:
    """The stability function of ``T`` in lowest terms (exact arithmetic only).

    >>> from sympy import Rational as R, Symbol
    >>> z = Symbol("z")
    >>> red = reduced_stability_function(ButcherTableau([[R(1, 4), R(1, 4)], [R(1, 4), R(1, 4)]],
    ...                                                 [R(1, 4), R(3, 4)]))   # midpoint, 2 stages
    >>> red.numerator(z), red.denominator(z), red.cancelled
    (z/2 + 1, 1 - z/2, 0)

    Raises
    ------
    InvalidArgumentError
        The entries are not rational or algebraic (no exact gcd), or ``T`` is not a
        ButcherTableau.
    """
    ar = tableau_arithmetic(T, "reduced_stability_function")
    if not ar.exact:
        raise InvalidArgumentError(f"reduced_stability_function needs rational or algebraic entries; "
                                   f"{T.label} has {ar.dom.describe()}")
    dom, s = ar.dom, ar.s
    Q = _det_poly(dom, ar.A)
    P = _det_poly(dom, [[ar.A[i][j] - ar.b[j] for j in range(s)] for i in range(s)])
    G = _gcd(dom, P, Q)
    if len(G) > 1:
        P, Q = _divmod(dom, P, G)[0], _divmod(dom, Q, G)[0]
        c0 = Q[0]                     # Q(0) != 0 (it divides the original Q(0) = 1): normalize Q(0) = 1
        P, Q = [c / c0 for c in P], [c / c0 for c in Q]
    return ReducedStability(ar, P, Q, len(G) - 1)


def _on_axis(dom, f):
    """Real and imaginary parts of ``f(iy)`` as polynomials in ``y``."""
    re, im = [dom.zero] * len(f), [dom.zero] * len(f)
    for k, c in enumerate(f):
        sign = -1 if (k // 2) % 2 else 1
        if k % 2 == 0:
            re[k] = c * sign
        else:
            im[k] = c * sign
    return _trim(re), _trim(im)


def _e_coefficients(red):
    dom = red.dom
    pr, pi = _on_axis(dom, red.P)
    qr, qi = _on_axis(dom, red.Q)
    pos = _add(dom, _mul(dom, qr, qr), _mul(dom, qi, qi))
    neg = _add(dom, _mul(dom, pr, pr), _mul(dom, pi, pi))
    return _add(dom, pos, _neg(neg))


def e_polynomial(T: ButcherTableau, y: sympy.Symbol | None = None) -> sympy.Expr:
    """``E(y) = |Q(iy)|^2 - |P(iy)|^2`` for ``R = P/Q`` in lowest terms (an even polynomial).

    ``|R(iy)| <= 1`` for every real ``y`` iff ``E(y) >= 0`` on the real line.

    >>> from sympy import Rational as R
    >>> e_polynomial(ButcherTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)]))    # Heun: R = 1 + z + z^2/2
    -y**4/4
    >>> e_polynomial(ButcherTableau([[1]], [1]))                                 # implicit Euler
    y**2

    Raises
    ------
    InvalidArgumentError
        As :func:`reduced_stability_function` (entries not rational or algebraic).
    """
    y = sympy.Symbol("y", real=True) if y is None else y
    red = reduced_stability_function(T)
    return sympy.expand(_to_expr(red.dom, _e_coefficients(red), y))


def _norm_polynomial(dom, f, y):
    """``N(y)`` over QQ whose real roots include those of ``f`` (coefficients in ``dom``)."""
    K = dom.K
    if K.degree == 1:
        return sympy.Poly([sympy.Rational(c.coordinates()[0].numerator, c.coordinates()[0].denominator)
                           for c in reversed(f)], y, domain=sympy.QQ)
    t = sympy.Dummy("t")
    bivariate = sympy.Add(*[sympy.Rational(q.numerator, q.denominator) * t ** j * y ** k
                            for k, c in enumerate(f) for j, q in enumerate(c.coordinates()) if q])
    g = sum(sympy.Rational(q.numerator, q.denominator) * t ** j for j, q in enumerate(K.minpoly))
    return sympy.Poly(sympy.resultant(g, bivariate, t), y, domain=sympy.QQ)


def _gap_points(N):
    """Rational points in every gap between the real roots of ``N`` (and beyond them)."""
    sq = N.sqf_part()
    ivs = [list(iv) for iv, _k in sq.intervals()]
    # isolating intervals are disjoint; make them strictly separated so a gap has interior
    for _ in range(200):
        touching = [k for k in range(len(ivs) - 1) if ivs[k][1] >= ivs[k + 1][0]]
        if not touching:
            break
        for k in touching:
            for m in (k, k + 1):
                a, b = ivs[m]
                if b > a:
                    ivs[m] = list(sq.refine_root(a, b, eps=(b - a) / 4))
    if not ivs:
        return [sympy.Integer(0)]
    pts = [ivs[0][0] - 1]
    pts += [(ivs[k][1] + ivs[k + 1][0]) / 2 for k in range(len(ivs) - 1)]
    pts.append(ivs[-1][1] + 1)
    return pts


def _axis_decision(red):
    """``(verdict, y, E(y), steps)``: whether ``E >= 0`` on the real line (None: undecided)."""
    dom = red.dom
    E = _e_coefficients(red)
    y = sympy.Symbol("y", real=True)
    steps = [("On the imaginary axis $|R(iy)| \\le 1$ iff $E(y) = |Q(iy)|^2 - |P(iy)|^2 \\ge 0$, where",
              "E(y) = " + (sympy.latex(sympy.expand(_to_expr(dom, E, y))) if E else "0"))]
    if not E:
        steps.append(("$E \\equiv 0$: $|R(iy)| = 1$ for every real $y$.", ""))
        return True, None, None, steps
    N = _norm_polynomial(dom, E, y)
    pts = _gap_points(N)
    how = ("" if dom.K.degree == 1 else
           " (all real roots of $E$ are roots of the rational polynomial $N(y) = \\mathrm{Res}_t(g(t), E(y, t))$,"
           " $g$ the minimal polynomial of the primitive element of the field)")
    values = []
    for p in pts:
        v = _eval(dom, E, dom.const(int(p.p), int(p.q)))
        values.append((p, v, real_sign(dom, v)))
    rows = ", ".join(f"E({sympy.latex(p)}) = {dom.tex(v)}" for p, v, _s in values[:12])
    text = (f"Exact real root isolation{how} gives rational points in every gap between the real roots of "
            f"$E$, where $E$ has one sign; its values there:")
    steps.append((text, rows))
    if any(sg is None for _p, _v, sg in values):
        return None, None, None, steps
    bad = [(p, v) for p, v, sg in values if sg < 0]
    if bad:
        p, v = max(bad, key=lambda pv: pv[0])   # E is even: report a point with y >= 0 if any
        return False, abs(p), v, steps
    return True, None, None, steps


def _routh_column(dom, Q):
    """The first column of the Routh array of ``H(z) = Q(-z)`` (stopping at a zero)."""
    h = [c * (-1 if k % 2 else 1) for k, c in enumerate(Q)]
    n = len(h) - 1
    r0 = [h[n - 2 * j] for j in range(n // 2 + 1)]
    r1 = [h[n - 1 - 2 * j] for j in range((n - 1) // 2 + 1)] if n >= 1 else []
    col = [r0[0]]
    for _k in range(1, n + 1):
        c = r1[0] if r1 else dom.zero
        col.append(c)
        if not c or len(col) == n + 1:
            break
        width = max(len(r0), len(r1)) - 1

        def at(r, j):
            return r[j] if j < len(r) else dom.zero

        new = [(c * at(r0, j + 1) - r0[0] * at(r1, j + 1)) / c for j in range(width)]
        r0, r1 = r1, _trim_right_zeros(new)
    return col, n


def _trim_right_zeros(row):
    row = list(row)
    while row and not row[-1]:
        row.pop()
    return row


def _complex_value(dom, f, x: Fraction, y: Fraction):
    """``f(x + iy)`` as (real part, imaginary part) in ``dom`` for a Gaussian rational point."""
    re, im = dom.zero, dom.zero
    pr, pi = Fraction(1), Fraction(0)
    for c in f:
        re = re + c * pr
        im = im + c * pi
        pr, pi = pr * x - pi * y, pr * y + pi * x
    return re, im


def _pole_witness(red):
    """A Gaussian-rational ``z`` with ``Re z <= 0`` and ``|R(z)|^2 > 1`` (exactly), and the pole
    near it (15 digits); None when the search finds none."""
    dom = red.dom
    ctx = mpmath.MPContext()
    ctx.dps = 40
    coeffs = [dom.K.evaluate(c, ctx) for c in reversed(red.Q)]
    try:
        roots = ctx.polyroots(coeffs, maxsteps=200, extraprec=200)
    except mpmath.NoConvergence:  # pragma: no cover - small degrees converge
        return None
    for r in sorted(roots, key=lambda r: ctx.re(r)):
        if ctx.re(r) > ctx.mpf("1e-20"):
            continue
        for delta in (Fraction(1, 10 ** 3), Fraction(1, 10 ** 6), Fraction(1, 10 ** 12)):
            x = Fraction(ctx.nstr(ctx.re(r), 35, min_fixed=-100, max_fixed=100)) - delta
            x = min(x, Fraction(0))
            y = Fraction(ctx.nstr(ctx.im(r), 35, min_fixed=-100, max_fixed=100))
            pr, pi = _complex_value(dom, red.P, x, y)
            qr, qi = _complex_value(dom, red.Q, x, y)
            num, den = pr * pr + pi * pi, qr * qr + qi * qi
            if real_sign(dom, num - den) == 1:
                z = sympy.Rational(x.numerator, x.denominator) + sympy.I * sympy.Rational(y.numerator, y.denominator)
                return z, (dom.to_sympy(num / den) if den else sympy.oo), complex(r)
    return None


def _undecided(claim, why, d):
    return Certificate(claim=claim, holds=None, method=why, stage="unknown",
                       derivation=d.concluding("Undecided: " + tex_text(why) + "."))


def _intro(T, title):
    d = Derivation(tex_text(title))
    d = d.add("The tableau:", sympy.latex(T) if T.s <= 8 else r"\text{(" + str(T.s) + r" stages)}")
    return d


def _a_stability(T, claim):
    """``(certificate, reduced stability function or None)``."""
    ar = tableau_arithmetic(T, "is_A_stable")
    d = _intro(T, f"A-stability of {T.label}")
    if not ar.exact:
        return _undecided(claim, f"the entries are not rational or algebraic ({ar.dom.describe()}); signs "
                                 f"cannot be decided exactly", d), None
    red = reduced_stability_function(T)
    dom = red.dom
    z = sympy.Symbol("z")
    Rz = red.numerator(z) / red.denominator(z)
    d = d.add("Arithmetic: " + tex_text(dom.describe()) + ".")
    d = d.add("The stability function" + (f" (a common factor of degree {red.cancelled} cancelled)"
                                          if red.cancelled else "") + " in lowest terms:",
              "R(z) = " + sympy.latex(Rz))
    d = d.add(r"Criterion (Hairer, Wanner II, IV.3): $R$ is A-stable iff all its poles lie in $\mathrm{Re}\, z > 0$ "
              r"and $|R(iy)| \le 1$ for all real $y$.")
    residual = {"R": Rz}
    # poles: Routh-Hurwitz on Q(-z)
    col, n = _routh_column(dom, red.Q)
    signs = [real_sign(dom, c) for c in col]
    residual["routh_column"] = [dom.to_sympy(c) for c in col]
    if n == 0:
        d = d.add("$R$ is a polynomial: it has no poles.")
        poles_ok = True
    else:
        d = d.add(r"Poles: $Q(-z)$ must be a Hurwitz polynomial; the first column of its Routh array is",
                  ", ".join(dom.tex(c) for c in col))
        if any(s_ is None for s_ in signs):
            return _undecided(claim, "a sign in the Routh array could not be decided", d), red
        poles_ok = len(col) == n + 1 and all(s_ == signs[0] and s_ != 0 for s_ in signs)
    method = f"{dom.describe()}: Routh-Hurwitz criterion for the poles, exact real root isolation of E(y)"
    if not poles_ok:
        d = d.add(r"The column has a zero or a sign change: $Q(-z)$ is not Hurwitz, so $R$ has a pole in "
                  r"$\mathrm{Re}\, z \le 0$, near which $|R|$ is unbounded.")
        cx = {"routh_column": residual["routh_column"]}
        found = _pole_witness(red)
        if found is not None:
            zz, val, pole = found
            cx = {"z": zz, "|R(z)|^2": val, "pole (approx.)": sympy.Float(pole.real, 15) + sympy.I
                  * sympy.Float(pole.imag, 15), **cx}
            d = d.add(f"At $z = {sympy.latex(zz)}$ ($\\mathrm{{Re}}\\, z \\le 0$), exactly, "
                      f"$|R(z)|^2 = {sympy.latex(val)} > 1$.")
        return Certificate(claim=claim, holds=False, method=method, stage="exact", residual=residual,
                           counterexample=cx, derivation=d.concluding("The method is not A-stable.")), red
    if n:
        d = d.add("All entries are nonzero and of one sign: every pole lies in $\\mathrm{Re}\\, z > 0$.")
    verdict, yy, ev, steps = _axis_decision(red)
    for text, math in steps:
        d = d.add(text, math)
    residual["E"] = sympy.expand(_to_expr(dom, _e_coefficients(red), sympy.Symbol("y", real=True)))
    if verdict is None:
        return _undecided(claim, "the sign of E(y) at a sample point could not be decided", d), red
    if verdict is False:
        pr, pi = _complex_value(dom, red.P, Fraction(0), Fraction(int(yy.p), int(yy.q)))
        qr, qi = _complex_value(dom, red.Q, Fraction(0), Fraction(int(yy.p), int(yy.q)))
        den = qr * qr + qi * qi
        val = dom.to_sympy((pr * pr + pi * pi) / den) if den else sympy.oo
        cx = {"z": sympy.I * yy, "|R(z)|^2": val}
        d = d.add(f"$E({sympy.latex(yy)}) = {dom.tex(ev)} < 0$, so $|R({sympy.latex(sympy.I * yy)})|^2 = "
                  f"{sympy.latex(val)} > 1$.")
        return Certificate(claim=claim, holds=False, method=method, stage="exact", residual=residual,
                           counterexample=cx, derivation=d.concluding("The method is not A-stable.")), red
    d = d.concluding("$E(y) \\ge 0$ for all real $y$ and all poles lie in the right half plane: the method "
                     "is A-stable.")
    return Certificate(claim=claim, holds=True, method=method, stage="exact", residual=residual,
                       derivation=d), red


def is_A_stable(T: ButcherTableau) -> Certificate:
    """Whether ``|R(z)| <= 1`` for all ``Re z <= 0`` (see the module docstring for the proof).

    ``residual`` holds ``R`` in lowest terms, the first column of the Routh array of
    ``Q(-z)`` and (when the poles pass) ``E(y)``; a False verdict has ``counterexample`` ``{"z": iy, "|R(z)|^2": ...}``
    (or, for a pole in ``Re z <= 0``, the Routh column and, when found, a point near the pole).

    >>> from sympy import Rational as R
    >>> is_A_stable(ButcherTableau([[R(5, 12), R(-1, 12)], [R(3, 4), R(1, 4)]], [R(3, 4), R(1, 4)])).holds
    True
    >>> theta = R(1, 4)                                       # theta-method, theta < 1/2
    >>> c = is_A_stable(ButcherTableau([[0, 0], [1 - theta, theta]], [1 - theta, theta]))
    >>> c.holds, c.counterexample
    (False, {'z': I, '|R(z)|^2': 25/17})
    """
    claim = f"{T.label if isinstance(T, ButcherTableau) else T} is A-stable (|R(z)| <= 1 for Re z <= 0)"
    return _a_stability(T, claim)[0]


def is_L_stable(T: ButcherTableau) -> Certificate:
    """Whether the method is A-stable and ``R(z) -> 0`` as ``z -> infinity`` (deg P < deg Q in
    lowest terms).  A failure gives the counterexample of A-stability or ``{"R(infinity)": r}``.

    >>> from sympy import Rational as R
    >>> is_L_stable(ButcherTableau([[1]], [1])).holds                      # implicit Euler
    True
    >>> is_L_stable(ButcherTableau([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)])).counterexample
    {'R(infinity)': -1}
    """
    claim = f"{T.label if isinstance(T, ButcherTableau) else T} is L-stable (A-stable and R(infinity) = 0)"
    cert, red = _a_stability(T, claim)
    if cert.holds is not True:
        return cert
    dom = red.dom
    d = cert.derivation
    if len(red.P) < len(red.Q):
        d = d.add("$\\deg P < \\deg Q$, so $R(z) \\to 0$ as $z \\to \\infty$.")
        return Certificate(claim=claim, holds=True, method=cert.method + "; deg P < deg Q", stage="exact",
                           residual=cert.residual, derivation=d.concluding("The method is L-stable."))
    limit = dom.to_sympy(red.P[-1] / red.Q[-1])
    d = d.add(f"$\\deg P = \\deg Q$: $R(z) \\to {sympy.latex(limit)} \\neq 0$ as $z \\to \\infty$.")
    return Certificate(claim=claim, holds=False, method=cert.method + "; lim R(z) at infinity is not 0",
                       stage="exact", residual=cert.residual, counterexample={"R(infinity)": limit},
                       derivation=d.concluding("The method is A-stable but not L-stable."))


# ===================================================================== the stability region


def stability_region_plot(T: ButcherTableau, ax: Axes | None = None, *, bounds: tuple | None = None,
                          resolution: int = 400, color: str = "tab:blue", alpha: float = 0.35,
                          boundary: bool = True) -> Axes:
    """Draw the stability region ``{z : |R(z)| <= 1}`` (filled) and its boundary ``|R| = 1``.

    For pictures only (floating point); the decisions are :func:`is_A_stable` and
    :func:`is_L_stable`.

    Parameters
    ----------
    T : ButcherTableau
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure's axes).
    bounds : (xmin, xmax, ymin, ymax), optional
        The window; by default a square around the origin large enough for the region's
        features (the roots and poles of R), at least ``[-3, 3]^2``.
    resolution : int
        Grid points per side.
    color, alpha : matplotlib colour and the filling's opacity.
    boundary : bool
        Also draw the curve ``|R(z)| = 1``.

    Returns
    -------
    matplotlib.axes.Axes
        The axes; the filled region is the first ``ContourSet`` this call adds to
        ``ax.collections`` (its first path holds ``|R| <= 1``; a region with holes, such as
        implicit Euler's, is the even-odd union of ``path.to_polygons()``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> ax = stability_region_plot(ButcherTableau([[0]], [1]))            # explicit Euler: the unit disc at -1
    >>> region = ax.collections[0].get_paths()[0]
    >>> region.contains_point((-1, 0)), region.contains_point((1, 0))
    (True, False)
    """
    import numpy as np

    if not isinstance(T, ButcherTableau):
        tableau_arithmetic(T, "stability_region_plot")   # raises the error naming what was expected
    if isinstance(resolution, bool) or not isinstance(resolution, int) or resolution < 10:
        raise InvalidArgumentError(f"resolution must be an integer >= 10, not {resolution!r}")
    import matplotlib.pyplot as plt

    st = stability_function(T)
    z = st.z
    num = [complex(sympy.N(c, 20)) for c in sympy.Poly(st.numerator, z).all_coeffs()]
    den = [complex(sympy.N(c, 20)) for c in sympy.Poly(st.denominator, z).all_coeffs()]
    if bounds is None:
        feats = [abs(r) for r in list(np.roots(num)) + list(np.roots(den)) if np.isfinite(r)] if len(num) > 1 \
            or len(den) > 1 else []
        L = max([3.0] + [min(1.3 * f, 60.0) for f in feats])
        bounds = (-L, L, -L, L)
    try:
        xmin, xmax, ymin, ymax = (float(v) for v in bounds)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"bounds must be (xmin, xmax, ymin, ymax), not {bounds!r}") from None
    if not (xmin < xmax and ymin < ymax):
        raise InvalidArgumentError(f"bounds must have xmin < xmax and ymin < ymax, not {bounds!r}")
    X, Y = np.meshgrid(np.linspace(xmin, xmax, resolution), np.linspace(ymin, ymax, resolution))
    Z = X + 1j * Y
    with np.errstate(divide="ignore", invalid="ignore"):
        absR = np.abs(np.polyval(num, Z) / np.polyval(den, Z))
    absR = np.where(np.isfinite(absR), absR, np.inf)
    if ax is None:
        _fig, ax = plt.subplots()
    top = max(2.0, float(np.nanmax(absR[np.isfinite(absR)])) if np.isfinite(absR).any() else 2.0)
    ax.contourf(X, Y, np.minimum(absR, top), levels=[0.0, 1.0], colors=[color], alpha=alpha)
    if boundary:
        ax.contour(X, Y, np.minimum(absR, top), levels=[1.0], colors=[color])
    ax.axhline(0, color="0.5", lw=0.5)
    ax.axvline(0, color="0.5", lw=0.5)
    ax.set_aspect("equal")
    ax.set_xlabel(r"$\mathrm{Re}\, z$")
    ax.set_ylabel(r"$\mathrm{Im}\, z$")
    ax.set_title(f"stability region of {T.label}")
    return ax
