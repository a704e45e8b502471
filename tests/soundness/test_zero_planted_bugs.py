"""Mutation testing of the zero test: plant each bug that would make it lie, and check
that the soundness cases catch it.

Each mutant patches one safeguard out of geomcheck.zero (an absolute floor instead of the
relative error test, positive-only sampling, integers from {1, 2, 3, 4}, jets keyed by
rounded arguments, no branch analysis, no detection of lost digits, no detection of
unresolved arguments, a fixed modulus, a loose nonzero test).  Under the mutant at least
one case must get a wrong answer or none: that is what shows the cases can fail.
Without the mutant every case is decided right (each is one a sound tool decides: an
exact computation, or a counterexample found by sampling the domain).
"""

from __future__ import annotations


import pytest
import sympy as sp

from geomcheck.zero import decide_zero
from geomcheck.zero import analyticity, decision, modular, numeric, sampling
from geomcheck.zero.analyticity import Analysis

x, y, q = sp.symbols("x y q")
n = sp.Symbol("n", integer=True)
xp = sp.Symbol("xp", positive=True)
V = sp.Function("V")


def _wrong(expr, truth, must_decide=True):
    """True when geomcheck's verdict contradicts the independently known truth, or when a
    case that a sound tool decides (an exact computation, or a counterexample found by
    sampling the domain) is left undecided."""
    decision.clear_caches()
    d = decide_zero(expr, budget=10)
    if d.is_zero is None:
        return must_decide
    return d.is_zero is not truth


# (expr, truth, must_decide=True): truth True = zero on the domain, False = nonzero somewhere
# in it, established by hand (a counterexample point or an identity):
CASES = {
    "floor": [(sp.exp(-400) * x, False), ((1 + sp.exp(-400)) * x - x, False), (x / 10**200, False)],
    "positive-only": [(sp.Abs(x) - x, False), (sp.sqrt(x**2) - x, False), (sp.log(x**2) - 2 * sp.log(x), False)],
    "integers 1..4": [(sp.prod([n - k for k in range(1, 5)]), False), (sp.cos(sp.pi * n) ** 2 * (n - 2) * (n - 3), False)],
    "jets by rounding": [(V(x) - V(x + sp.Rational(1, 10**30)), False), (V(sp.sin(x)) - V(sp.sin(x) + sp.Rational(1, 10**30)), False)],
    "no branch analysis": [(sp.Max(x - sp.Rational(19, 10), 0), False), (sp.asin(sp.sin(x)) - x, False),
                           (sp.atan(sp.tan(x)) - x, False)],
    # genuinely tiny or unresolvable: None is the honest answer, True is the lie
    "no lost-digit detection": [(sp.tanh(1000 * xp) - 1, False, False), (sp.erf(100 * xp) - 1, False, False)],
    # a jump at a value known only to within rounding: sign(0) and floor(1) are exact, their
    # rounding noise is not
    "no unresolved detection": [(sp.sign(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1), True, False),
                                (sp.floor(sp.sin(x) ** 2 + sp.cos(x) ** 2) - 1, True, False),
                                (sp.sin(10**400 * x) * sp.exp(x), False, False)],
    "fixed modulus": [((2**61 - 1) * x, False), ((2**61 - 1) * (x - y) * V(x), False)],
    "loose nonzero test": [(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, True), (sp.exp(x) * sp.exp(-x) - 1, True),
                           (sp.tan(x) * sp.cos(x) - sp.sin(x), True)],
}


def _mutant_floor(mp):
    orig = numeric.consistent_with_zero

    def floored(ctx, v, e):
        return orig(ctx, v, e) or (not v) or ctx.mag(v) < -465  # an absolute floor near 1e-140
    mp.setattr(decision, "consistent_with_zero", floored)
    mp.setattr(decision, "resolved_nonzero", lambda ctx, v, e: bool(v) and ctx.mag(v) >= -465 and
               numeric.resolved_nonzero(ctx, v, e))
    mp.setattr(decision, "LOSSY", 0)
    mp.setattr(modular, "plan", lambda *a, **k: (_ for _ in ()).throw(modular.NotModular("mutant")))


def _mutant_positive_only(mp):
    orig = sampling.Sampler._real

    def positive(self, s, key, j, mode, interval, tag):
        return abs(orig(self, s, key, j, mode, interval, tag))
    mp.setattr(sampling.Sampler, "_real", positive)


def _mutant_small_integers(mp):
    mp.setattr(sampling, "INT_WINDOW", 4)
    mp.setattr(sampling, "INT_WINDOW_NUMERIC", 4)
    orig = sampling.Sampler._integer

    def small(self, key, j, mode, lo, hi):
        return 1 + orig(self, key, j, mode, 0, 5) % 4
    mp.setattr(sampling.Sampler, "_integer", small)
    mp.setattr(decision, "ENUMERATE_MAX", 0)
    mp.setattr(decision, "MODULAR_TARGET", 1.0)


def _mutant_jets_by_rounding(mp):
    def rounded(self, ctx, name, index, argvals, argerrs):
        key = (name, index, tuple(float(v) if not isinstance(v, ctx.mpc) else complex(v) for v in argvals))
        return sampling.jet_fraction(self.seed, *key)
    mp.setattr(numeric.JetTable, "value", rounded)

    def rounded_modular(self, key, mode="numeric"):
        return sampling.jet_fraction(self.seed, key[0], key[1])  # the argument forgotten
    mp.setattr(sampling.Sampler, "jet_value", rounded_modular)


def _mutant_no_branch_analysis(mp):
    mp.setattr(decision, "analyse", lambda *a, **k: Analysis(True))


def _mutant_no_lossy(mp):
    mp.setattr(numeric, "LOSSY", 0)
    mp.setattr(decision, "LOSSY", 0)
    orig = numeric.Evaluator.run

    def run(self, *a, **k):
        vals, errs, flags = orig(self, *a, **k)
        return vals, errs, [f & ~1 for f in flags]
    mp.setattr(numeric.Evaluator, "run", run)


def _mutant_no_unresolved(mp):
    orig = numeric.Evaluator.run

    def run(self, *a, **k):
        vals, errs, flags = orig(self, *a, **k)
        return vals, errs, [f & ~2 for f in flags]
    mp.setattr(numeric.Evaluator, "run", run)


def _mutant_fixed_modulus(mp):
    mp.setattr(modular, "random_prime", lambda seed, radicands=(), need_i=False: (2**61 - 1, {}))


def _mutant_loose_nonzero(mp):
    mp.setattr(decision, "resolved_nonzero", lambda ctx, v, e: bool(v) and ctx.mag(v) > e - 60)


MUTANTS = {
    "floor": _mutant_floor,
    "positive-only": _mutant_positive_only,
    "integers 1..4": _mutant_small_integers,
    "jets by rounding": _mutant_jets_by_rounding,
    "no branch analysis": _mutant_no_branch_analysis,
    "no lost-digit detection": _mutant_no_lossy,
    "no unresolved detection": _mutant_no_unresolved,
    "fixed modulus": _mutant_fixed_modulus,
    "loose nonzero test": _mutant_loose_nonzero,
}


@pytest.mark.parametrize("name", list(MUTANTS))
def test_the_cases_are_right_without_the_mutant(name):
    wrong = [str(c[0]) for c in CASES[name] if _wrong(*c)]
    assert not wrong, wrong


@pytest.mark.parametrize("name", list(MUTANTS))
def test_each_planted_bug_is_caught(name, monkeypatch):
    MUTANTS[name](monkeypatch)
    try:
        caught = [str(c[0]) for c in CASES[name] if _wrong(*c)]
    finally:
        decision.clear_caches()
    assert caught, f"the mutant {name!r} survived every case: the cases cannot see it"


def test_unused_names_are_real():
    # the mutants patch names that exist (a typo would make a mutant a silent no-op)
    for mod, attr in [(numeric, "consistent_with_zero"), (decision, "consistent_with_zero"),
                      (decision, "resolved_nonzero"), (sampling.Sampler, "_real"), (sampling.Sampler, "_integer"),
                      (numeric.JetTable, "value"), (decision, "analyse"), (modular, "random_prime"),
                      (sampling, "INT_WINDOW"), (decision, "ENUMERATE_MAX"), (analyticity, "analyse")]:
        assert hasattr(mod, attr), (mod, attr)
