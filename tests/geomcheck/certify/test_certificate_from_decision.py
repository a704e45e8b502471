"""Certificate.from_decision: the verdict, stage, point and soundness of one zero test, mapped once."""

import pytest
import sympy

from geomcheck.certify.certificate import Certificate, point_by_name
from geomcheck.latex import Derivation
from geomcheck.zero import ZeroDecision, decide_all_zero, decide_zero

q, p = sympy.symbols("q p")
f = sympy.Function("f")


def test_a_proved_claim_carries_the_decisions_verdict_stage_and_record():
    decision = decide_zero((q + p)**2 - q**2 - 2 * q * p - p**2)
    D = Derivation("The binomial formula")
    c = Certificate.from_decision("(q + p)^2 == q^2 + 2 q p + p^2", decision, residual=q, factor=2, derivation=D,
                                  witness=p)
    assert (c.holds, c.stage, c.method) == (True, decision.stage, decision.method)
    assert c.soundness is decision.soundness and c.soundness.kind == "proof"
    assert c.counterexample is None and c.witness == p and c.factor == 2 and c.residual == q
    assert c.derivation is D


def test_a_failed_claim_shows_the_decisions_point_by_name():
    decision = decide_zero(q**2 - q + f(p).diff(p))
    c = Certificate.from_decision("q^2 == q - f'(p)", decision, witness=p)
    assert c.holds is False and c.stage == "counterexample" and c.soundness.kind == "counterexample"
    assert c.counterexample == point_by_name(decision.point) and all(isinstance(k, str) for k in c.counterexample)
    assert set(c.counterexample) >= {"q", "p"}
    assert c.witness is None                    # a witness proves nothing about a failed claim


def test_a_nonzero_constant_fails_structurally_with_an_empty_point():
    c = Certificate.from_decision("2 == 0", decide_zero(sympy.Integer(2)))
    assert (c.holds, c.stage, c.counterexample) == (False, "structural", {})


def test_a_fuller_counterexample_and_a_method_in_context_replace_the_decisions():
    decision = decide_all_zero({"a": q - q, "b": q})
    point = {**decision.point, "component": "b"}
    c = Certificate.from_decision("a == b == 0", decision, method="componentwise: " + decision.method,
                                  counterexample=point)
    assert c.counterexample == point and c.method.startswith("componentwise: ")


def test_an_undecided_claim_has_no_point_and_says_why():
    decision = ZeroDecision(None, "unknown", "unknown: the budget ran out")
    c = Certificate.from_decision("q == 0", decision, witness=p)
    assert (c.holds, c.stage, c.counterexample, c.witness) == (None, "unknown", None, None)
    assert c.method == "unknown: the budget ran out" and c.soundness.kind == "undecided"
    with pytest.raises(TypeError):
        bool(c)


def test_keys_that_are_symbols_become_names():
    assert point_by_name({q: 1, "p": 2}) == {"q": 1, "p": 2}
    assert point_by_name({}) == {} and point_by_name(None) is None


@pytest.mark.parametrize("verdict", [True, None])
def test_a_point_given_for_a_claim_that_is_not_refuted_is_dropped(verdict):
    """A counterexample beside True (or undecided) would contradict the verdict: it is not kept."""
    decision = decide_zero(q - q) if verdict else ZeroDecision(None, "unknown", "unknown: the budget ran out")
    c = Certificate.from_decision("q - q == 0", decision, counterexample={"q": 1})
    assert c.holds is verdict and c.counterexample is None
