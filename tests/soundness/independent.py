"""Independent oracles for the soundness suite: plain sympy and mpmath, never geomcheck.

Everything a soundness test needs to judge a verdict without trusting the tool:

* :func:`in_domain` -- is a counterexample value inside a symbol's domain (an explicit
  interval, else the symbol's sympy assumptions: integer, positive, negative,
  nonnegative, imaginary, complex; a plain symbol ranges over the real line)?
* :func:`value_at` -- the value of an expression at an exact point, computed at two (or
  more) precisions with sympy ``evalf`` and with mpmath (``lambdify``) and accepted only
  when the precisions agree; the verdict is ``"nonzero"``, ``"zero"`` (shrinks with the
  working precision), ``"undefined"`` (nan/zoo: the point is outside the natural domain)
  or ``"inconclusive"``.
* :func:`concretize` -- replace undefined functions by concrete ones (a Lambda), so that a
  claim "for every V" can be refuted (one V suffices) or sanity-checked.

No function here imports geomcheck.
"""

from __future__ import annotations

import mpmath
import sympy
from sympy.core.function import AppliedUndef

# the precisions tried, in decimal digits; a value is accepted when two successive ones agree
PRECISIONS = (300, 600, 1200, 2400)
AGREE = 80  # digits two evaluations must share to count as the same nonzero value


# ----------------------------------------------------------------------------- domains


def _as_number(v):
    """A counterexample value as an exact sympy number (a Float is its exact binary value)."""
    if isinstance(v, str):
        v = sympy.sympify(v, rational=False)
    v = sympy.sympify(v)
    if isinstance(v, sympy.Float):
        return sympy.Rational(v)
    if v.has(sympy.Float):
        v = v.xreplace({f: sympy.Rational(f) for f in v.atoms(sympy.Float)})
    return v


def interval_for(symbol, domain):
    """The explicit interval given for ``symbol`` in ``domain`` (by Symbol or by name), or None."""
    if not domain:
        return None
    if symbol in domain:
        return domain[symbol]
    if symbol.name in domain:
        return domain[symbol.name]
    return None


def in_domain(symbol, value, domain=None):
    """``(ok, reason)``: whether ``value`` is an admissible value of ``symbol``."""
    try:
        v = _as_number(value)
    except (sympy.SympifyError, TypeError, ValueError) as exc:
        return False, f"{symbol} = {value!r} is not a number ({exc})"
    if not v.is_number or v.free_symbols:
        return False, f"{symbol} = {v} is not a number"
    if v.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        return False, f"{symbol} = {v} is not finite"
    re_v, im_v = (sympy.re(v), sympy.im(v))
    re_n, im_n = sympy.N(re_v, 60), sympy.N(im_v, 60)
    if symbol.is_integer and not v.is_Integer:
        return False, f"{symbol} is an integer symbol but got {v}"
    if symbol.is_imaginary:
        if re_v != 0 or im_v == 0:
            return False, f"{symbol} is imaginary (a nonzero multiple of I) but got {v}"
        return True, ""
    if symbol.is_complex and symbol.is_real is not True and not symbol.is_integer:
        return True, ""
    # a real symbol (plain, integer, positive, negative, ...)
    if im_v != 0 and abs(im_n) > 0:
        return False, f"{symbol} is real but got the non-real value {v}"
    if symbol.is_positive and not (re_n > 0):
        return False, f"{symbol} is positive but got {v}"
    if symbol.is_negative and not (re_n < 0):
        return False, f"{symbol} is negative but got {v}"
    if symbol.is_nonnegative and not (re_n >= 0):
        return False, f"{symbol} is nonnegative but got {v}"
    if symbol.is_nonpositive and not (re_n <= 0):
        return False, f"{symbol} is nonpositive but got {v}"
    iv = interval_for(symbol, domain)
    if iv is not None:
        lo, hi = (sympy.sympify(iv[0]), sympy.sympify(iv[1])) if not isinstance(iv, sympy.Interval) \
            else (iv.start, iv.end)
        lo = sympy.Rational(lo) if isinstance(lo, sympy.Float) else lo
        hi = sympy.Rational(hi) if isinstance(hi, sympy.Float) else hi
        if not (bool(sympy.Lt(lo, re_v)) and bool(sympy.Lt(re_v, hi))):
            return False, f"{symbol} = {v} lies outside its domain ({lo}, {hi})"
    return True, ""


def point_in_domain(point, symbols, domain=None):
    """Check every entry of a counterexample whose key names one of ``symbols``.

    Returns ``(ok, reason, values)`` with ``values`` a ``{Symbol: exact value}`` dict for
    the symbols named.  Keys that name no symbol (e.g. jet descriptions ``V(1/2)``) are
    ignored here.
    """
    by_name = {}
    for s in symbols:
        by_name.setdefault(s.name, []).append(s)
    values = {}
    for key, value in (point or {}).items():
        name = key.name if isinstance(key, sympy.Symbol) else str(key)
        for s in by_name.get(name, ()):
            ok, why = in_domain(s, value, domain)
            if not ok:
                return False, why, values
            values[s] = _as_number(value)
    return True, "", values


# ----------------------------------------------------------------------------- evaluation


def _mp_value(v, dps):
    """An exact sympy number as an mpmath number at the current working precision."""
    v = sympy.sympify(v)
    if v.is_Rational:
        return mpmath.mpf(int(v.p)) / int(v.q)
    re_v, im_v = sympy.re(v), sympy.im(v)
    if im_v == 0:
        return mpmath.mpf(str(sympy.N(v, dps + 20)))
    re_m = mpmath.mpf(int(re_v.p)) / int(re_v.q) if re_v.is_Rational else mpmath.mpf(str(sympy.N(re_v, dps + 20)))
    im_m = mpmath.mpf(int(im_v.p)) / int(im_v.q) if im_v.is_Rational else mpmath.mpf(str(sympy.N(im_v, dps + 20)))
    return mpmath.mpc(re_m, im_m)


def _bad(v):
    return v is None or (isinstance(v, (mpmath.mpf, mpmath.mpc)) and (mpmath.isnan(v) or mpmath.isinf(v)))


def _sympy_eval(e, dps):
    try:
        v = sympy.N(e, dps, maxn=max(4 * dps, 2000))
    except Exception:  # noqa: BLE001 - an evaluator failure is "no opinion"
        return None
    if v.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        return "undefined"
    try:
        re_v, im_v = v.as_real_imag()
        with mpmath.workdps(dps + 10):
            return mpmath.mpc(mpmath.mpf(str(sympy.N(re_v, dps + 5))) if re_v != 0 else 0,
                              mpmath.mpf(str(sympy.N(im_v, dps + 5))) if im_v != 0 else 0)
    except Exception:  # noqa: BLE001
        return None


def _mpmath_eval(e_fn, values, dps):
    with mpmath.workdps(dps):
        try:
            args = [_mp_value(v, dps) for v in values]
            r = e_fn(*args)
            r = mpmath.mpmathify(r)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            return "undefined"
        except Exception:  # noqa: BLE001
            return None
        if _bad(r):
            return "undefined"
        return mpmath.mpc(r)


def _judge(seq):
    """From values at the increasing precisions ``PRECISIONS``: nonzero / zero / undefined / inconclusive.

    nonzero: the values at the two highest precisions agree to ``AGREE`` digits;
    zero: both are exactly 0, or the value still shrinks with the precision (by at least
    half the added digits) between the two highest precisions.
    """
    if any(isinstance(v, str) for v in seq):
        return "undefined"
    if len(seq) < 2 or seq[-1] is None or seq[-2] is None:
        return "inconclusive"
    (d1, v1), (d2, v2) = (PRECISIONS[len(seq) - 2], seq[-2]), (PRECISIONS[len(seq) - 1], seq[-1])
    a1, a2 = abs(v1), abs(v2)
    if a1 == 0 and a2 == 0:
        return "zero"
    if a1 != 0 and a2 != 0 and abs(v1 - v2) <= max(a1, a2) * mpmath.mpf(10) ** (-AGREE):
        return "nonzero"
    if a2 == 0 or a2 <= a1 * mpmath.mpf(10) ** (-((d2 - d1) // 2)):
        return "zero"
    if a1 == 0 and a2 <= mpmath.mpf(10) ** (-(d2 * 9 // 10)):
        return "zero"  # exactly cancelled at one precision, rounding-level residue at the next
    return "inconclusive"


def exact_floats(expr):
    """Every Float replaced by its exact binary value (a Float IS that rational number)."""
    floats = expr.atoms(sympy.Float)
    if not floats:
        return expr
    return expr.xreplace({f: sympy.Rational(f) for f in floats})


def value_at(expr, point: dict):
    """Judge ``expr`` at the exact ``point`` ({Symbol: value}); see the module docstring.

    Returns ``(verdict, detail)``.
    """
    expr = exact_floats(sympy.sympify(expr))
    e = expr.xreplace({s: _as_number(v) for s, v in point.items()})
    if isinstance(e, (sympy.Derivative, sympy.Subs)) or e.has(sympy.Derivative, sympy.Subs):
        e = simultaneous_doit(e)
    if e.free_symbols:
        return "inconclusive", f"the point does not fix {sorted(map(str, e.free_symbols))}"
    if e.atoms(AppliedUndef):
        return "inconclusive", "undefined functions remain"
    if e.has(sympy.nan, sympy.zoo):
        return "undefined", f"{e}"
    if e.is_Rational or (e.is_number and e.is_Number):
        return ("zero" if e == 0 else "nonzero"), f"exactly {e}"
    # evaluator 1: mpmath through lambdify (arguments converted at each precision); cheap
    syms = sorted(point, key=lambda s: s.name)
    try:
        fn = sympy.lambdify(syms, expr, modules="mpmath")
    except Exception:  # noqa: BLE001
        fn = None
    v_mp, mp = "inconclusive", []
    if fn is not None:
        args = [_as_number(point[s]) for s in syms]
        mp = [_mpmath_eval(fn, args, dps) for dps in PRECISIONS]
        v_mp = _judge(mp)
    if v_mp == "zero":
        return "zero", f"mpmath: the value shrinks with the precision ({mp[-1]})"
    # evaluator 2: sympy evalf (adaptive, exact arguments); a nonzero needs both to agree
    sym = []
    for dps in PRECISIONS:
        sym.append(_sympy_eval(e, dps))
        if len(sym) >= 2 and _judge(sym) == "nonzero":
            break
    v_sym = _judge(sym)
    verdicts = {v_sym, v_mp} - {"inconclusive"}
    detail = f"sympy: {v_sym} ({sym[-1] if sym else None}); mpmath: {v_mp} ({mp[-1] if mp else None})"
    if "undefined" in verdicts:
        return "undefined", detail
    if verdicts == {"nonzero"}:
        return "nonzero", detail
    if verdicts == {"zero"}:
        return "zero", detail
    if not verdicts:
        return "inconclusive", detail
    return "inconclusive", "evaluators disagree: " + detail


# ----------------------------------------------------------------------------- undefined functions


def _derivatives_wrt_symbols(expr):
    """Rewrite ``Derivative(f, W(q))`` (sympy's chain rule of a composed function) as a Subs."""

    def bad(e):
        return isinstance(e, sympy.Derivative) and any(not v.is_Symbol for v, _ in e.variable_count)

    def fix(e):
        body, rep, pairs = e.expr, {}, []
        for v, k in e.variable_count:
            if v.is_Symbol:
                pairs.append((v, k))
                continue
            d = rep.get(v)
            if d is None:
                d = rep[v] = sympy.Dummy("d")
            pairs.append((d, k))
        body = body.xreplace(rep)
        inner = sympy.Derivative(body, *pairs)
        return sympy.Subs(inner, tuple(rep.values()), tuple(rep.keys()))

    return expr.replace(bad, fix)


def concretize(expr, functions: dict):
    """Replace undefined functions (``{FunctionClass or name: Lambda}``) and evaluate derivatives."""
    expr = _derivatives_wrt_symbols(exact_floats(sympy.sympify(expr)))
    by_name = {(k if isinstance(k, str) else k.__name__): v for k, v in functions.items()}
    rep = {}
    for f in expr.atoms(AppliedUndef):
        name = type(f).__name__
        if name in by_name:
            rep[type(f)] = by_name[name]
    out = expr
    for cls, lam in rep.items():
        out = out.replace(cls, lam)
    return simultaneous_doit(out)


def simultaneous_doit(expr):
    """``doit`` with every ``Subs`` evaluated as a SIMULTANEOUS substitution (its meaning).

    sympy 1.14's ``Subs(f, (x, y), (A, B)).doit()`` substitutes one variable after the
    other (``Subs(x**3, (x, y), (x + y, y + 1)).doit()`` gives ``(x + y + 1)**3``); the
    expression means ``f(A, B)``, so the variables are first renamed to fresh dummies.
    """

    def fix(e):
        body, variables, points = e.args
        dummies = [sympy.Dummy(str(v)) for v in variables]
        inner = body.xreplace(dict(zip(variables, dummies))).doit()
        return inner.xreplace(dict(zip(dummies, points)))

    return expr.replace(lambda e: isinstance(e, sympy.Subs), fix).doit()


def has_undefined(expr) -> bool:
    return bool(sympy.sympify(expr).atoms(AppliedUndef))
