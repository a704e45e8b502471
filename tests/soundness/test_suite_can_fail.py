"""The suite has teeth: lying zero testers (plain mpmath, no geomcheck) are caught by the cases.

Each liar is a small randomized zero tester with one planted flaw that the soundness issue
describes (an absolute floor near 1e-140; samples only in (1/8, 2); integers only from
{1, 2, 3, 4}; undefined functions keyed by their argument rounded to 20 digits; a real sampler
for imaginary and complex symbols).  Run over ``cases_zero.CASES`` and judged by the same rules
as geomcheck, each liar must be caught by several cases.  An honest tester (the same code
without the flaw) must not be caught on the cases it answers.
"""

from __future__ import annotations

import random

import mpmath
import pytest
import sympy as sp
from sympy.core.function import AppliedUndef

from .cases_zero import CASES
from .independent import exact_floats, interval_for
from .judge import verdict_problems


def _sample(sym, domain, rng, flaw):
    iv = interval_for(sym, domain)
    if sym.is_imaginary and flaw != "real-sampler":
        return sp.I * sp.Rational(rng.randint(1, 400), 37) * rng.choice((-1, 1))
    if sym.is_complex and sym.is_real is not True and not sym.is_integer and flaw != "real-sampler":
        return sp.Rational(rng.randint(-400, 400), 37) + sp.I * sp.Rational(rng.randint(-400, 400), 41)
    if sym.is_integer:
        if flaw == "small-integers":
            return sp.Integer(rng.randint(1, 4))
        lo, hi = (-60, 60) if iv is None else (max(-60, int(sp.ceiling(iv[0])) if iv[0] != -sp.oo else -60),
                                              min(60, int(sp.floor(iv[1])) if iv[1] != sp.oo else 60))
        if sym.is_positive:
            lo = max(lo, 1)
        vals = [v for v in range(lo, hi + 1) if iv is None or (sp.Lt(iv[0], v) and sp.Lt(v, iv[1]))]
        return sp.Integer(rng.choice(vals))
    if flaw == "narrow-box":
        return sp.Rational(rng.randint(1, 2**20), 2**20) * sp.Rational(15, 8) + sp.Rational(1, 8)
    lo, hi = (-sp.oo, sp.oo) if iv is None else (sp.sympify(iv[0]), sp.sympify(iv[1]))
    if sym.is_positive or sym.is_nonnegative:
        lo = max(lo, 0) if lo != -sp.oo else sp.S.Zero
    if sym.is_negative:
        hi = min(hi, 0) if hi != sp.oo else sp.S.Zero
    lo = sp.Rational(lo) if isinstance(lo, sp.Float) else lo
    hi = sp.Rational(hi) if isinstance(hi, sp.Float) else hi
    u = sp.Rational(rng.randint(1, 2**30 - 1), 2**30)
    if lo.is_finite and hi.is_finite:
        return lo + (hi - lo) * u
    scale = sp.Rational(rng.choice((1, 4, 16, 64)), 1)
    if lo.is_finite:
        return lo + scale * u
    if hi.is_finite:
        return hi - scale * u
    return scale * (2 * u - 1)


def liar(expr, domain, flaw, seed=0):
    """A randomized zero tester with one flaw: (verdict, point)."""
    rng = random.Random(sum(map(ord, str(expr))) * 1000003 + seed)  # the same points for every flaw
    expr = exact_floats(sp.sympify(expr))
    if expr.has(sp.Derivative, sp.Subs):
        return None, None
    jets = {}

    def jet_value(name, args):
        # jets keyed by the argument to 40 digits (exact enough: the points are rationals evaluated at
        # 50 and 100 digits); the flaw keys them to 20 digits, merging arguments 1e-30 apart
        key = (name,) + tuple(mpmath.nstr(a, 20 if flaw == "rounded-jets" else 40) for a in args)
        if key not in jets:
            jets[key] = mpmath.mpf(rng.randint(1, 10**9)) / 10**8
        return jets[key]

    funcs = {type(f).__name__ for f in expr.atoms(AppliedUndef)}
    modules = [{name: (lambda *a, _n=name: jet_value(_n, a)) for name in funcs}, "mpmath"]
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    try:
        fn = sp.lambdify(syms, expr, modules=modules)
    except Exception:  # noqa: BLE001
        return None, None
    floor = mpmath.mpf(10) ** -140 if flaw == "absolute-floor" else None
    for _ in range(3):
        pt = {s: _sample(s, domain, rng, flaw) for s in syms}
        with mpmath.workdps(50):
            try:
                args = [mpmath.mpc(sp.re(v).p / mpmath.mpf(sp.re(v).q), sp.im(v).p / mpmath.mpf(sp.im(v).q))
                        if not v.is_real else mpmath.mpf(v.p) / v.q for v in pt.values()]
                val = mpmath.mpmathify(fn(*args))
            except (ZeroDivisionError, ValueError, TypeError, OverflowError):
                continue
            # honest relative test: recompute at 100 digits; a value that does not shrink is nonzero
            with mpmath.workdps(100):
                try:
                    args2 = [mpmath.mpc(sp.re(v).p / mpmath.mpf(sp.re(v).q), sp.im(v).p / mpmath.mpf(sp.im(v).q))
                             if not v.is_real else mpmath.mpf(v.p) / v.q for v in pt.values()]
                    val2 = mpmath.mpmathify(fn(*args2))
                except Exception:  # noqa: BLE001, S112 - an evaluation failure: try the next point
                    continue
            nonzero = val2 != 0 and abs(val2 - val) <= abs(val2) * mpmath.mpf(10) ** -30
            if floor is not None:
                nonzero = nonzero and abs(val2) > floor
        if nonzero:
            return False, {s.name: v for s, v in pt.items()}
    return True, None


FLAWS = ("absolute-floor", "narrow-box", "small-integers", "rounded-jets", "real-sampler")
_CACHE = {}


def _caught(flaw):
    if flaw in _CACHE:
        return _CACHE[flaw]
    caught = []
    for case in CASES:
        expr = case.expr()
        verdict, point = liar(expr, case.domain, flaw)
        problems = verdict_problems(case.truth, False, verdict, point, expr, case.domain)
        if problems:
            caught.append(case.id)
    _CACHE[flaw] = frozenset(caught)
    return _CACHE[flaw]


@pytest.mark.parametrize("flaw", FLAWS)
def test_each_lie_is_caught(flaw):
    """Cases that catch the flawed tester but not the same tester without the flaw."""
    extra = _caught(flaw) - _caught(None)
    assert len(extra) >= 2, f"the planted flaw {flaw!r} is caught by {sorted(extra)} only"
