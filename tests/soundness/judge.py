"""How a verdict is judged against an independently established truth (shared by the test files).

The rules (see ``cases_zero.py`` for how truths are established):

* truth "zero"    -> the verdict is True or None, never False;
* truth "nonzero" -> the verdict is False or None, never True; a False carries a GENUINE
  counterexample: every named symbol value lies in the domain (interval or assumptions)
  and, for expressions without undefined functions, the expression evaluated there
  independently (sympy evalf and mpmath at 300-2400 digits) is nonzero;
* ``must_decide`` -> the verdict is not None.
"""

from __future__ import annotations

import sympy

from .independent import has_undefined, interval_for, point_in_domain, value_at


def fill_value(symbol, domain=None, variant=0):
    """Some admissible value of ``symbol`` (used for symbols a counterexample leaves out)."""
    iv = interval_for(symbol, domain)
    if symbol.is_imaginary:
        return sympy.Rational(7 + variant, 3) * sympy.I
    if symbol.is_complex and symbol.is_real is not True and not symbol.is_integer:
        return sympy.Rational(7 + variant, 3) + sympy.Rational(2, 5) * sympy.I
    lo, hi = (-sympy.oo, sympy.oo) if iv is None else (sympy.sympify(iv[0]), sympy.sympify(iv[1]))
    if symbol.is_positive or symbol.is_nonnegative:
        lo = max(lo, sympy.S.Zero) if lo.is_finite else sympy.S.Zero
    if symbol.is_negative or symbol.is_nonpositive:
        hi = min(hi, sympy.S.Zero) if hi.is_finite else sympy.S.Zero
    if lo.is_finite and hi.is_finite:
        v = lo + (hi - lo) * sympy.Rational(3 + variant, 7)
    elif lo.is_finite:
        v = lo + sympy.Rational(7 + variant, 3)
    elif hi.is_finite:
        v = hi - sympy.Rational(7 + variant, 3)
    else:
        v = sympy.Rational(7 + variant, 3)
    if symbol.is_integer:
        v = sympy.floor(v)
        if not (v > lo):
            v = v + 1
    return v


def counterexample_problems(expr, point, domain=None, symbols=None, evaluate=True):
    """Problems with a claimed counterexample of ``expr == 0`` (an empty list: genuine)."""
    expr = sympy.sympify(expr)
    if not isinstance(point, dict):
        return [f"the counterexample is not a dict: {point!r}"]
    symbols = set(expr.free_symbols) if symbols is None else set(symbols)
    ok, why, values = point_in_domain(point, symbols, domain)
    if not ok:
        return [f"counterexample outside the domain: {why} (point {point})"]
    if not evaluate or has_undefined(expr):
        return []
    missing = [s for s in expr.free_symbols if s not in values]
    fills = [dict(values)]
    if missing:
        # the tool left these out, claiming they do not matter: try two admissible fillings
        fills = [{**values, **{s: fill_value(s, domain) for s in missing}},
                 {**values, **{s: fill_value(s, domain, 1) for s in missing}}]
    problems = []
    for full in fills:
        verdict, detail = value_at(expr, full)
        if verdict != "nonzero":
            problems.append(f"the counterexample {point} is not genuine: independent evaluation at "
                            f"{ {str(k): v for k, v in full.items()} } says {verdict} ({detail})")
            break
    return problems


def verdict_problems(truth, must_decide, verdict, point=None, expr=None, domain=None, evaluate=True):
    """Problems with a verdict (True/False/None) against the truth ("zero"/"nonzero")."""
    problems = []
    if verdict not in (True, False, None):
        return [f"the verdict {verdict!r} is not True, False or None"]
    if truth == "zero" and verdict is False:
        problems.append(f"WRONG False (the truth is zero); claimed counterexample {point}")
    if truth == "nonzero" and verdict is True:
        problems.append("WRONG True (the truth is nonzero)")
    if must_decide and verdict is None:
        problems.append("undecided (None) on a case any sound and reasonably strong tool decides")
    if truth == "nonzero" and verdict is False and expr is not None:
        problems += counterexample_problems(expr, point, domain, evaluate=evaluate)
    return problems


def short_trace(exc, frames=2) -> str:
    """The exception, its innermost frames and its innermost geomcheck/integrators frame, on one line."""
    import traceback

    tb = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in tb if "/work/main/geomcheck/" in f.filename or "/work/main/integrators/" in f.filename]
    picked = list(reversed(tb[-frames:])) + ([ours[-1]] if ours and ours[-1] not in tb[-frames:] else [])
    where = " <- ".join(f"{f.filename.split('/work/main/')[-1].split('site-packages/')[-1]}:{f.lineno} {f.name}"
                        for f in picked)
    msg = str(exc)
    if len(msg) > 300:
        msg = msg[:300] + "..."
    return f"{type(exc).__name__}: {msg} [at {where}]"


def fail(message):
    """``pytest.fail`` without the (possibly thousands of frames long) traceback."""
    import pytest

    pytest.fail(message, pytrace=False)
