"""Order conditions of splitting methods on problem classes (geomcheck.certify.splitting).

Reference values are established independently of the module: the numbers of conditions from
the literature (McLachlan-Quispel, Acta Numerica 2002; Blanes-Casas, "A Concise Introduction to
Geometric Numerical Integration") and Witt's formula; the BCH coordinates against exact
logarithms of products of nilpotent matrices; Strang's error terms from the BCH formula; the
published coefficients of Blanes and Moan (2002) and their published orders.
"""

import itertools
import random
import re
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from geomcheck.certify import splitting as S
from geomcheck.errors import CompositionCoefficientError, CompositionError, InvalidArgumentError

half = sp.Rational(1, 2)
F = lambda s: sp.Float(s, 30)          # noqa: E731 - a published decimal, in a container that knows its digits


# -- published coefficients (Blanes and Moan, J. Comput. Appl. Math. 142 (2002), Tables 2 and 3)

def srkn6b(b2="0.396309801498368"):
    b1, b3 = "0.0829844064174052", "-0.0390563049223486"
    a1, a2 = "0.245298957184271", "0.604872665711080"
    a3, b4 = half - (F(a1) + F(a2)), 1 - 2 * (F(b1) + F(b2) + F(b3))
    return [0, a1, a2, a3, a3, a2, a1], [b1, b2, b3, b4, b3, b2, b1]


def s6():
    b1, b2, b3 = "0.0792036964311957", "0.353172906049774", "-0.0420650803577195"
    a1, a2 = "0.209515106613362", "-0.143851773179818"
    a3, b4 = half - (F(a1) + F(a2)), 1 - 2 * (F(b1) + F(b2) + F(b3))
    return [0, a1, a2, a3, a3, a2, a1], [b1, b2, b3, b4, b3, b2, b1]


def srkn11b():
    bs = ["0.0414649985182624", "0.198128671918067", "-0.0400061921041533", "0.0752539843015807",
          "-0.0115113874206879"]
    as_ = ["0.123229775946271", "0.290553797799558", "-0.127049212625417", "-0.246331761062075", "0.357208872795928"]
    b6 = half - sum(F(x) for x in bs)
    a6 = 1 - 2 * sum(F(x) for x in as_)
    return [0] + as_ + [a6] + as_[::-1], bs + [b6, b6] + bs[::-1]


def forest_ruth():
    """Yoshida's triple jump of position Verlet written as a splitting (Forest-Ruth), exact radicals."""
    r = sp.Integer(2) ** sp.Rational(1, 3)
    c1, c2 = 1 / (2 * (2 - r)), (1 - r) / (2 * (2 - r))
    d1, d2 = 1 / (2 - r), -r / (2 - r)
    return [c1, c2, c2, c1], [d1, d2, d1, 0]


# -- counts

def witt(n, letters=2):
    """Dimension of the degree-n part of the free Lie algebra: (1/n) sum_{d | n} mu(d) k^(n/d)."""
    return sum(sp.mobius(d) * letters ** (n // d) for d in sp.divisors(n)) // n


def test_condition_counts_match_the_literature():
    assert S.condition_counts(7, "separable") == [2, 1, 2, 3, 6, 9, 18]
    assert S.condition_counts(7, "rkn") == [2, 1, 2, 2, 4, 5, 10]
    assert S.condition_counts(10, "separable") == [witt(n) for n in range(1, 11)]
    # cumulative counts for order 4 and 6 (general: 8 and 23; RKN: 7 and 16)
    assert sum(S.condition_counts(4)) == 8 and sum(S.condition_counts(6)) == 23
    assert sum(S.condition_counts(4, "rkn")) == 7 and sum(S.condition_counts(6, "rkn")) == 16


def _commutator(X, Y):
    out = {}
    for a, x in X.items():
        for b, y in Y.items():
            out[a + b] = out.get(a + b, 0) + x * y
            out[b + a] = out.get(b + a, 0) - x * y
    return out


def test_rkn_counts_by_an_independent_rank_computation():
    """dim L_n - rank(I_n), I_n spanned by ad_{y_1} ... ad_{y_k} [B,[B,[B,A]]] in word coordinates."""
    A, B = {"A": 1}, {"B": 1}
    X = _commutator(B, _commutator(B, _commutator(B, A)))
    span = [X]
    for n in range(4, 10):
        words = ["".join(w) for w in itertools.product("AB", repeat=n)]
        rank = sp.Matrix([[e.get(w, 0) for w in words] for e in span]).rank()
        assert S.condition_counts(n, "rkn")[-1] == witt(n) - rank, n
        span = [_commutator(y, e) for e in span for y in (A, B)]


def test_condition_labels():
    assert S.condition_labels(1) == ["sum(a) - 1", "sum(b) - 1"]
    assert S.condition_labels(2) == ["[A,B]"]
    assert S.condition_labels(4, "separable") == ["[A,[A,[A,B]]]", "[A,[[A,B],B]]", "[[[A,B],B],B]"]
    # [[[A,B],B],B] = [B,[B,[B,A]]] is the relation of RKN problems
    assert S.condition_labels(4, "rkn") == ["[A,[A,[A,B]]]", "[A,[[A,B],B]]"]


# -- the BCH coordinates themselves, against exact matrix logarithms

def _bracket_value(label, A, B):
    """Evaluate a bracketed word such as "[A,[A,B]]" on matrices (parsed here, not by the module)."""
    def parse(s, i):
        if s[i] == "A":
            return A, i + 1
        if s[i] == "B":
            return B, i + 1
        assert s[i] == "["
        X, i = parse(s, i + 1)
        assert s[i] == ","
        Y, i = parse(s, i + 1)
        assert s[i] == "]"
        return X * Y - Y * X, i + 1
    M, end = parse(label, 0)
    assert end == len(label)
    return M


def _nilpotent(rnd, n):
    return sp.Matrix(n, n, lambda i, j: sp.Integer(rnd.randint(-3, 3)) if j > i else 0)


def test_conditions_are_the_lyndon_coordinates_of_the_logarithm():
    """For strictly upper triangular 6x6 A, B every series is finite: log(prod exp) is exact."""
    rnd = random.Random(3)
    n = 6
    A, B = _nilpotent(rnd, n), _nilpotent(rnd, n)
    a = [Fraction(1, 3), Fraction(-1, 4), Fraction(5, 6)]
    b = [Fraction(2, 5), Fraction(3, 7), Fraction(-1, 9)]
    I = sp.eye(n)

    def expm(M):
        return sum((M ** k / sp.factorial(k) for k in range(1, n)), I)

    P = I
    for x, y in zip(a, b):
        P = P * expm(sp.Rational(x.numerator, x.denominator) * A) * expm(sp.Rational(y.numerator, y.denominator) * B)
    N = P - I
    log = sum((sp.Integer(-1) ** (k + 1) * N ** k / k for k in range(1, n)), sp.zeros(n, n))
    conds = S.order_conditions(a, b, n - 1)
    series = sp.zeros(n, n)
    for c in conds:
        if c.weight == 1:
            series += (c.value + 1) * (A if c.label == "sum(a) - 1" else B)
        else:
            series += c.value * _bracket_value(c.label, A, B)
    assert (series - log).expand() == sp.zeros(n, n)
    assert len(conds) == sum(S.condition_counts(n - 1))


def test_strang_splitting_error_terms():
    """exp(h/2 A) exp(h B) exp(h/2 A) = exp(h(A + B) - h^3/24 [A,[A,B]] + h^3/12 [B,[B,A]] + O(h^5))."""
    values = {c.label: c.value for c in S.order_conditions([half, half], [1, 0], 4)}
    assert values["[A,B]"] == 0
    assert values["[A,[A,B]]"] == sp.Rational(-1, 24) and values["[[A,B],B]"] == sp.Rational(1, 12)
    assert all(values[w] == 0 for w in S.condition_labels(4))          # symmetric: even weights vanish


def test_symbolic_coefficients_give_polynomial_conditions():
    x, y = sp.symbols("x y")
    conds = S.order_conditions([x, 1 - x], [y, 1 - y], 2)
    # weight 2 of exp(xA) exp(yB) exp((1-x)A) exp((1-y)B): half the sum of [X_i, X_j], i < j
    assert sp.expand(conds[2].value - (x * y - y + half)) == 0
    assert S.splitting_order([x, 1 - x], [y, 1 - y]).order == 1          # not order 2 for all x, y


# -- certified orders

def test_verlet_has_order_2_exactly_and_names_the_failing_conditions():
    for cls in ("separable", "rkn"):
        c = S.splitting_order([half, half], [1, 0], cls)
        assert (c.holds, c.order, c.exact, c.stage) == (True, 2, True, "exact")
        f = S.certify_splitting_order([half, half], [1, 0], 3, cls)
        assert f.holds is False and f.stage == "counterexample"
        assert f.residual == {"[A,[A,B]]": sp.Rational(-1, 24), "[[A,B],B]": sp.Rational(1, 12)}
        assert "[A,[A,B]]" in f.method and "order on this class is 2" in f.method
    # b one shorter: a final b = 0
    assert S.splitting_order([half, half], [1]).order == 2


def test_triple_jump_with_a_radical_is_proved_order_4():
    a, b = forest_ruth()
    c = S.splitting_order(a, b)
    assert (c.holds, c.order, c.exact, c.stage) == (True, 4, True, "exact")
    assert "2**(1/3)" in c.method
    assert c.failure.holds is False and c.failure.stage == "counterexample"
    assert len(c.conditions) == 6                            # every weight-5 condition fails
    assert S.is_symmetric_splitting(a, b)


def test_forest_ruth_published_decimals_and_refinement_to_the_radicals():
    theta = "1.3512071919596576"                             # 1 / (2 - 2^(1/3)), Forest and Ruth 1990
    a = ["0.6756035959798288", "-0.1756035959798288", "-0.1756035959798288", "0.6756035959798288"]
    b = [theta, "-1.7024143839193153", theta, 0]
    c = S.splitting_order(a, b)
    assert (c.order, c.stage) == (4, "numeric") and "precision of the coefficients" in c.claim
    ra, rb = S.refine_splitting(a, b, "separable", 4, dps=50)
    ea, eb = forest_ruth()
    assert all(abs(sp.N(x - y, 60)) < sp.Float("1e-45") for x, y in zip(ra + rb, ea + eb))


@pytest.mark.parametrize("method, cls, order", [(s6, "separable", 4), (s6, "rkn", 4), (srkn6b, "rkn", 4),
                                                (srkn11b, "rkn", 6)])
def test_published_blanes_moan_coefficients_reach_their_published_orders(method, cls, order):
    a, b = method()
    c = S.splitting_order(a, b, cls)
    assert (c.holds, c.order, c.exact, c.stage) == (True, order, True, "numeric")
    assert "up to the 1e-1" in c.claim and "precision of the coefficients" in c.claim
    assert c.failure.holds is False and c.failure.stage == "numeric"


def test_srkn11b_is_not_order_6_for_every_separable_hamiltonian():
    """An RKN method: order 6 needs [B,[B,[B,A]]] = 0; for general separable H it has order 4.

    The two weight-5 conditions that fail are the coordinates along [A, X] and [X, B] with
    X = [[[A,B],B],B] = [B,[B,[B,A]]]: the brackets that vanish on RKN problems and nowhere else.
    """
    a, b = srkn11b()
    c = S.splitting_order(a, b, "separable")
    assert (c.order, c.exact) == (4, True)
    assert [x.label for x in c.conditions] == ["[A,[[[A,B],B],B]]", "[[[[A,B],B],B],B]"]
    claim6 = S.certify_splitting_order(a, b, 6, "separable")
    assert claim6.holds is False and claim6.stage == "numeric"
    assert "every separable H" in claim6.claim


def test_a_perturbation_of_1e_10_is_refuted_not_accepted():
    # b2 moved by 1e-10 (b4 recomputed: still consistent): the order drops to 2, at its precision
    a, b = srkn6b(b2="0.396309801598368")
    c = S.splitting_order(a, b, "rkn")
    assert (c.order, c.exact, c.stage) == (2, True, "numeric")
    f = c.failure
    assert f.holds is False and f.stage == "numeric" and {"[A,[A,B]]", "[[A,B],B]"} & set(f.residual)
    assert "do not vanish" in f.method
    # the same perturbation without recomputing the middle kick: not even consistent
    a, b = srkn6b()
    b[1] = "0.396309801598368"
    c = S.splitting_order(a, b, "rkn")
    assert c.order == 0 and c.holds is False and [x.label for x in c.conditions] == ["sum(b) - 1"]


def test_floats_are_judged_at_their_own_precision():
    c = S.splitting_order([0.5, 0.5], [1.0, 0.0])
    assert (c.order, c.stage) == (2, "numeric") and "1e-15" in c.claim
    with mpmath.workdps(40):
        d = S.splitting_order([mpmath.mpf(1) / 2, mpmath.mpf(1) / 2], [1])
    assert d.order == 2


# -- refinement

def test_refined_coefficients_satisfy_the_conditions_to_the_digits_asked():
    a, b = srkn11b()
    ra, rb = S.refine_splitting(a, b, "rkn", 6, dps=60)
    assert all(isinstance(x, sp.Float) or x == 0 for x in ra + rb)
    assert ra[0] == 0                                        # the method still starts with a kick
    resid = [abs(c.value) for c in S.order_conditions(ra, rb, 6, "rkn")]      # odd weights; even ones by symmetry
    assert len(resid) == sum(S.condition_counts(6, "rkn")) and max(resid) < sp.Float("1e-55")
    # the nearest solution: the published 15 digits are kept
    assert all(abs(sp.N(x - F(y) if isinstance(y, str) else x - y, 30)) < 1e-14 for x, y in zip(ra, a))
    c = S.splitting_order(ra, rb, "rkn")
    assert c.order == 6 and c.exact and re.search(r"up to the 1e-(59|60) precision", c.claim)


def test_refinement_fails_loudly_far_from_a_solution():
    from geomcheck.errors import RefinementError

    with pytest.raises(RefinementError):
        S.refine_splitting([half, half], [1, 0], "separable", 4, dps=30)     # Verlet has no free parameter


# -- bad input

def test_bad_input_raises_geomcheck_errors():
    with pytest.raises(InvalidArgumentError, match="class_"):
        S.splitting_order([1], [1], class_="nystrom")
    with pytest.raises(CompositionError, match="len"):
        S.splitting_order([1, 0, 0], [1])
    with pytest.raises(CompositionError):
        S.splitting_order([], [])
    with pytest.raises(CompositionCoefficientError, match="decimal"):
        S.splitting_order(["one half", "0.5"], [1])
    with pytest.raises(CompositionCoefficientError):
        S.splitting_order([None], [1])
    with pytest.raises(CompositionCoefficientError, match="not real"):
        S.splitting_order([sp.I], [1])
    with pytest.raises(CompositionCoefficientError):
        S.splitting_order("ab", [1])
    with pytest.raises(InvalidArgumentError):
        S.splitting_order([1], [1], max_order=0)
    with pytest.raises(InvalidArgumentError):
        S.condition_counts(13)


def test_certificates_typeset_and_serialize():
    a, b = srkn11b()
    c = S.splitting_order(a, b, "rkn")
    tex = c.latex()
    assert "[B, [B, [B, A]]]" in tex and "Weight 5" in tex
    assert '"holds": true' in c.to_json()
    assert int(c) == 6
