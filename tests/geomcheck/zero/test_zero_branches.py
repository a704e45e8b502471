"""Implicit maps are the branch of solutions that starts at the guess as the step size goes to 0.

The attack: Q = q + h Q^2 has two branches, Q1 = (1 - sqrt(1 - 4 h q)) / (2 h) -> q as h -> 0 and
Q2 = (1 + sqrt(1 - 4 h q)) / (2 h) -> oo.  With a guess q + c h that tends to q but, at the drawn
step sizes, lies nearer Q2, Newton's method converges to Q2: a "counterexample" there refuted a
claim that holds on the branch the relation defines (found by the catalog's trapezoidal rule).
"""

import mpmath
import pytest
import sympy as sp

from geomcheck.zero import Relation, clear_caches, decide_zero

q, h, Q = sp.symbols("q h Q")
ROOT = sp.sqrt(1 - 4 * h * q)
BRANCH_1 = (1 - ROOT) / (2 * h)


def test_the_claims_truth_independently():
    assert sp.simplify((1 - 2 * h * Q - ROOT).subs(Q, BRANCH_1)) == 0
    assert sp.simplify((BRANCH_1 - q - h * BRANCH_1**2)) == 0
    assert sp.limit(BRANCH_1, h, 0) == q
    assert sp.simplify((1 - 2 * h * Q + ROOT).subs(Q, BRANCH_1) - 2 * ROOT) == 0   # nonzero where 4 h q < 1


@pytest.mark.parametrize("pull", [10, 20, 40])
@pytest.mark.parametrize("points", [3, 9])
def test_a_guess_that_reaches_another_branch_gives_no_wrong_counterexample(pull, points):
    clear_caches()
    rel = Relation([Q - q - h * Q**2], [Q], guess={Q: q + pull * h}, small=[h])
    d = decide_zero(1 - 2 * h * Q - ROOT, relations=[rel], points=points)
    assert d.is_zero is not False, d.method
    assert d.is_zero is True


@pytest.mark.parametrize("pull", [10, 40])
def test_the_false_claim_is_refuted_on_the_right_branch(pull):
    clear_caches()
    rel = Relation([Q - q - h * Q**2], [Q], guess={Q: q + pull * h}, small=[h])
    d = decide_zero(1 - 2 * h * Q + ROOT, relations=[rel], points=9)
    assert d.is_zero is False
    hv, qv = (mpmath.mpf(sp.Rational(d.point[k]).p) / sp.Rational(d.point[k]).q for k in ("h", "q"))
    expected = (1 - mpmath.sqrt(1 - 4 * hv * qv)) / (2 * hv)      # branch 1, in plain mpmath
    assert abs(mpmath.mpf(d.point["Q"]) - expected) < 1e-15
