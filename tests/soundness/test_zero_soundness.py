"""Adversarial soundness suite of the zero test ``geomcheck.zero.decide_zero``.

Written against the specification (DESIGN.md "Zero testing", issue 13), not against the
implementation: every truth is established independently (``cases_zero.py``: a theorem,
or plain sympy/mpmath, re-checked here by ``test_truth_*``); a verdict is judged by
``judge.verdict_problems``: never a wrong True, never a wrong False, a False only with a
genuine counterexample inside the domain, no raw exception, an answer where any sound
and reasonably strong tool answers.
"""

from __future__ import annotations

import pytest
import sympy

from geomcheck.errors import GeomcheckError

from .cases_zero import BY_ID, CASES, RESEEDED
from .independent import concretize, has_undefined, in_domain, value_at
from .judge import fail, short_trace, verdict_problems

BUDGET = 5.0


def decide(expr, domain=None, label="", **kw):
    """``decide_zero`` with a budget; a raised exception on valid input is a failure."""
    from geomcheck.zero import decide_zero

    try:
        return decide_zero(expr, budget=BUDGET, domain=domain, **kw)
    except GeomcheckError as exc:  # valid input must not be refused
        fail(f"{label}: valid input refused: {short_trace(exc)}")
    except Exception as exc:  # noqa: BLE001 - a raw exception is a failure
        fail(f"{label}: raw exception {short_trace(exc)}")


def _point(expr, names: dict):
    """``{name: value}`` -> ``{Symbol: value}`` for the symbols of ``expr``."""
    by_name = {s.name: s for s in expr.free_symbols}
    return {by_name[k]: sympy.sympify(v) for k, v in names.items() if k in by_name}


# ----------------------------------------------------------------------------- the truths


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_truth_is_established(case):
    """Re-establish each case's truth without geomcheck (sympy + mpmath at 300-2400 digits)."""
    expr = case.expr()
    instances = [expr]
    if has_undefined(expr):
        assert case.concrete, f"{case.id}: undefined functions need concrete instances"
        instances = [concretize(expr, fns) for fns in case.concrete]
    if case.truth == "nonzero":
        for e in instances[:1]:  # one concrete function refutes "for every V"
            pt = _point(expr, case.witness)
            for sym, v in pt.items():
                ok, why = in_domain(sym, v, case.domain)
                assert ok, f"{case.id}: the witness is outside the domain: {why}"
            verdict, detail = value_at(e, {s: v for s, v in pt.items() if s in e.free_symbols})
            assert verdict == "nonzero", f"{case.id}: witness {case.witness} gives {verdict}: {detail}"
    else:
        assert case.checks, f"{case.id}: a zero case needs check points"
        for e in instances:
            for names in case.checks:
                pt = _point(expr, names)
                for sym, v in pt.items():
                    ok, why = in_domain(sym, v, case.domain)
                    assert ok, f"{case.id}: the check point is outside the domain: {why}"
                verdict, detail = value_at(e, {s: v for s, v in pt.items() if s in e.free_symbols})
                assert verdict == "zero", f"{case.id}: at {names} the value is {verdict}: {detail}"


def test_case_count_and_classes():
    assert len(CASES) >= 110
    classes = {c.cls for c in CASES}
    assert {"piecewise", "tiny", "huge-argument", "assumptions", "undefined-functions"} <= classes


# ----------------------------------------------------------------------------- the verdicts


def states_null_set_exception(d) -> bool:
    """Whether a True verdict says, in words or data, that a null set of points is excepted.

    Policy for the isolated-point cases (nonzero only on a measure-zero set, e.g. sign(x)**2 - 1
    at x = 0): an unqualified True is wrong; "zero except on a null set (the switch points)" is
    a true statement and is accepted.
    """
    text = " ".join(str(getattr(d, a, "")) for a in ("method", "soundness")).lower()
    return any(k in text for k in ("null set", "measure zero", "almost everywhere", "a.e."))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_verdict(case):
    expr = case.expr()
    d = decide(expr, case.domain, label=case.id)
    problems = verdict_problems(case.truth, case.must_decide, d.is_zero, d.point, expr, case.domain)
    if case.cls == "isolated-point" and d.is_zero is True and states_null_set_exception(d):
        problems = []  # "zero except on a stated null set" is a true statement
    if problems:
        fail(f"{case.id} ({case.why}): verdict {d.is_zero}, stage {getattr(d, 'stage', None)}, "
             f"method {getattr(d, 'method', None)!r}: " + "; ".join(problems))


@pytest.mark.parametrize("seed", [1, 7])
@pytest.mark.parametrize("case_id", RESEEDED)
def test_verdict_other_seeds(case_id, seed):
    """The rules hold for every seed, not only the default one."""
    case = BY_ID[case_id]
    expr = case.expr()
    d = decide(expr, case.domain, label=f"{case.id} seed {seed}", seed=seed)
    problems = verdict_problems(case.truth, case.must_decide, d.is_zero, d.point, expr, case.domain)
    assert not problems, f"{case.id} seed {seed}: verdict {d.is_zero}: " + "; ".join(problems)


@pytest.mark.parametrize("case_id", ["max_19_10_real", "integer_poly_12_roots", "V_shift_1e_30"])
def test_reproducible(case_id):
    """The same call twice gives the same verdict and the same counterexample."""
    case = BY_ID[case_id]
    d1 = decide(case.expr(), case.domain)
    d2 = decide(case.expr(), case.domain)
    assert d1.is_zero == d2.is_zero
    assert (d1.point or {}) == (d2.point or {})


def test_more_precision_does_not_flip():
    """A nonzero verdict must survive more digits and more points (and a zero one, too)."""
    for case_id in ("exp_m400_x", "pythagoras", "tiny_coefficient_off", "V_shift_1e_30"):
        case = BY_ID[case_id]
        expr = case.expr()
        d = decide(expr, case.domain, dps=120, points=5)
        problems = verdict_problems(case.truth, False, d.is_zero, d.point, expr, case.domain)
        assert not problems, f"{case_id} at dps=120, points=5: " + "; ".join(problems)


# ----------------------------------------------------------------------------- decide_all_zero


def _all_zero(exprs, domain=None):
    from geomcheck.zero import decide_all_zero

    try:
        return decide_all_zero(exprs, budget=BUDGET, domain=domain)
    except Exception as exc:  # noqa: BLE001
        fail(f"decide_all_zero raised {short_trace(exc)}")


x, y = sympy.symbols("x y")
V = sympy.Function("V")

ALL_ZERO_CASES = [
    # (id, expressions, the keys of the nonzero ones, must decide, why)
    ("one_tiny_among_zeros", {"a": sympy.sin(x)**2 + sympy.cos(x)**2 - 1, "b": x / 10**200, "c": x - x},
     {"b"}, True, "b is a nonzero polynomial"),
    ("one_piecewise_among_zeros", {"a": sympy.Max(x - sympy.Rational(19, 10), 0), "b": y * 0},
     {"a"}, True, "a = 1/10 at x = 2"),
    ("jet_shift_among_zeros", {"a": V(x) - V(x), "b": V(x) - V(x + sympy.Rational(1, 10**30))},
     {"b"}, True, "b: jets at distinct exact points are independent"),
    ("all_zero", {"a": (x + y)**2 - x**2 - 2 * x * y - y**2,
                  "b": sympy.sin(2 * x) - 2 * sympy.sin(x) * sympy.cos(x)},
     set(), False, "binomial and double-angle identities"),
    ("integer_in_second", {"a": sympy.S.Zero,
                           "b": sympy.Mul(*[sympy.Symbol("n", integer=True) - j for j in range(1, 9)])},
     {"b"}, True, "b is a nonzero polynomial (40320 at n = 9)"),
    ("tiny_exp_in_second", {"a": x - x, "b": sympy.exp(-400) * y}, {"b"}, True, "exp(-400) y != 0 for y != 0"),
]


@pytest.mark.parametrize("name, exprs, nonzero_keys, must, why", ALL_ZERO_CASES,
                         ids=[c[0] for c in ALL_ZERO_CASES])
def test_decide_all_zero(name, exprs, nonzero_keys, must, why):
    from .judge import counterexample_problems

    d = _all_zero(exprs)
    truth = "nonzero" if nonzero_keys else "zero"
    problems = verdict_problems(truth, must, d.is_zero)
    if d.is_zero is False:
        index = getattr(d, "index", None)
        if index not in exprs:
            problems.append(f"False without naming which expression is nonzero (index {index!r})")
        elif index not in nonzero_keys:
            problems.append(f"index {index!r} names an expression that is zero")
        else:
            problems += counterexample_problems(exprs[index], d.point)
    assert not problems, f"{name} ({why}): " + "; ".join(problems)


# ----------------------------------------------------------------------------- what was proved, as data


@pytest.mark.parametrize("case_id", ["pythagoras", "max_19_10_narrow", "V_shift_1e_30", "integer_poly_4_on_0_5",
                                     "complex_z_conj_abs", "domain_log_product"])
def test_soundness_record(case_id):
    """``decision.soundness`` says what was proved and how, as data (issue 13, deliverable 3)."""
    case = BY_ID[case_id]
    expr = case.expr()
    d = decide(expr, case.domain, label=case.id)
    rec = getattr(d, "soundness", None)
    assert rec is not None, "the decision has no .soundness record"
    for attr in ("stage", "domain", "points", "digits", "jet_model"):
        assert hasattr(rec, attr), f".soundness has no attribute {attr!r}"
    text = str(rec.domain)
    for s in expr.free_symbols:
        assert s.name in text, f".soundness.domain {text!r} does not mention {s.name}"
