"""Composition methods: BCH order conditions, the classical coefficient families, bad input.

Independent checks of the machinery: the Lyndon counts against the Witt-type formula, the
two-stage conditions against the BCH formula written out by hand, the Lyndon basis'
triangularity, and the local error of the compositions of an exact Strang splitting of two
non-commuting matrices, whose error ratio under halving of h tends to 2^(p+1).
"""

import itertools
import json
import random
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from geomcheck.certify import compositions as C
from geomcheck.certify.compositions import (
    certify_composition_order,
    composition_order,
    is_symmetric_composition,
    kahan_li,
    lie_dimensions,
    lyndon_words,
    order_conditions,
    refine_composition,
    suzuki_fractal,
    triple_jump,
    yoshida6,
    yoshida_composition,
)
from geomcheck.errors import (
    CompositionCoefficientError,
    CompositionError,
    GeomcheckError,
    InvalidArgumentError,
)

a, b, c = sp.symbols("a b c")


# ----------------------------------------------------------------------------------
# the free Lie algebra


def _witt(max_weight, generator_weights):
    """dim of the weight-n part of the free Lie algebra on generators of the given weights:
    N l_N = sum_{d | N} mu(N/d) d b_d, with b the coefficients of log 1/(1 - sum t^w)."""
    # words: a_n = sum_w a_{n-w}
    words = [1] + [0] * max_weight
    for n in range(1, max_weight + 1):
        words[n] = sum(words[n - w] for w in generator_weights if w <= n)
    # log(1/(1-g)) = sum_j g^j / j; its t^N coefficient via N b_N = sum_k k c_k a_{N-k}... use power sums:
    # with a(t) = 1/(1-g), t a'/a = t g'/(1-g) = sum_N N b_N t^N
    tg = [0] * (max_weight + 1)
    for w in generator_weights:
        if w <= max_weight:
            tg[w] += w
    Nb = [0] * (max_weight + 1)
    for N in range(1, max_weight + 1):
        Nb[N] = sum(tg[k] * words[N - k] for k in range(1, N + 1))
    dims = []
    for N in range(1, max_weight + 1):
        total = sum(sp.mobius(N // d) * Nb[d] for d in sp.divisors(N))
        assert total % N == 0
        dims.append(total // N)
    return dims


@pytest.mark.parametrize("base_order", [2, 4, 6])
def test_lyndon_counts_match_the_witt_formula(base_order):
    W = 12
    gens = [1] + list(range(base_order + 1, W + 1, 2))
    assert lie_dimensions(W, base_order) == _witt(W, gens)


def test_condition_counts_of_the_literature():
    # HLW GNI Sect. V.3.2 / McLachlan 1995: per weight 1, 0, 1, 1, 2, 2, 4, 5, 8, 11 ...
    assert lie_dimensions(10) == [1, 0, 1, 1, 2, 2, 4, 5, 8, 11]
    # ... and symmetric compositions of a symmetric 2nd-order method need 1, 2, 4, 8, 16
    # conditions for orders 2, 4, 6, 8, 10
    cumulative = list(itertools.accumulate(lie_dimensions(9, symmetric=True)))
    assert cumulative[::2] == [1, 2, 4, 8, 16]
    # order 6 adds sum gamma^5 = 0 and one bracket of weight 5
    assert lyndon_words(5) == ["[A1,[A1,A3]]", "A5"]


def test_lyndon_basis_is_triangular():
    from geomcheck.certify.lyndon import bracket_expansion

    letters = C._letters(2, 9)
    for n in range(1, 10):
        for w in C._lyndon(letters, n):
            expansion = bracket_expansion(w)
            assert min(expansion) == w and expansion[w] == 1


def test_two_stage_conditions_are_the_bch_formula():
    # log(e^X e^Y) = X + Y + [X,Y]/2 + ([X,[X,Y]] - [Y,[X,Y]])/12 + ... with
    # X = a A1 + a^3 A3 + a^5 A5, Y = b A1 + b^3 A3 + b^5 A5: by hand,
    # [A1,A3]: (a b^3 - a^3 b)/2, [A1,[A1,A3]]: (a - b)(a b^3 - a^3 b)/12, A5: a^5 + b^5
    got = {cond.label: cond.value for cond in order_conditions([a, b], 5)}
    assert sp.expand(got["A1"] - (a + b - 1)) == 0
    assert sp.expand(got["A3"] - (a**3 + b**3)) == 0
    assert sp.expand(got["[A1,A3]"] - (a * b**3 - a**3 * b) / 2) == 0
    assert sp.expand(got["[A1,[A1,A3]]"] - (a - b) * (a * b**3 - a**3 * b) / 12) == 0
    assert sp.expand(got["A5"] - (a**5 + b**5)) == 0


def test_palindromic_compositions_have_no_even_conditions():
    conds = order_conditions([a, b, c, b, a], 8)
    for cond in conds:
        if cond.weight % 2 == 0:
            assert sp.expand(cond.value) == 0, cond
    odd = [cond for cond in conds if cond.weight % 2 == 1 and cond.weight > 1]
    assert len(odd) == 1 + 2 + 4
    assert all(sp.expand(cond.value) != 0 for cond in odd)


def test_reversing_the_composition_changes_conditions_by_sign_only():
    # log of the reversed product at h is minus the log at -h: weight n picks up (-1)^(n+1)
    fwd = order_conditions([a, b, c], 6)
    rev = order_conditions([c, b, a], 6)
    for f, r in zip(fwd, rev):
        assert f.label == r.label
        sign = 1 if f.weight == 1 else (-1) ** (f.weight + 1)
        assert sp.expand(r.value - sign * f.value) == 0, f.label


def test_base_order_four_has_generators_a1_a5_a7():
    assert lyndon_words(5, base_order=4) == ["A5"]
    assert lyndon_words(7, base_order=4) == ["[A1,[A1,A5]]", "A7"]
    assert lie_dimensions(4, base_order=4) == [1, 0, 0, 0]


# ----------------------------------------------------------------------------------
# triple jumps and Yoshida's recursion


@pytest.mark.parametrize("p", [2, 4, 6])
def test_triple_jump_raises_the_order_by_two(p):
    g = triple_jump(p)
    root = sp.Integer(2) ** sp.Rational(1, p + 1)
    assert g[0] == g[2] == 1 / (2 - root)
    assert sp.together(g[1] + root / (2 - root)) == 0
    assert sp.together(sum(g) - 1) == 0
    ok = certify_composition_order(g, p + 2, base_order=p)
    assert ok.holds is True and ok.stage == "exact"
    bad = certify_composition_order(g, p + 4, base_order=p)
    assert bad.holds is False and bad.stage == "counterexample"
    # the failing weight is p + 3: A_{p+3} and [A1,[A1,A_{p+1}]]
    assert set(bad.residual) == {f"A{p + 3}", f"[A1,[A1,A{p + 1}]]"}
    assert all(abs(complex(sp.N(v))) > 1e-3 for v in bad.residual.values())
    assert bad.counterexample
    r = composition_order(g, base_order=p)
    assert (r.order, r.exact, int(r)) == (p + 2, True, p + 2)


@pytest.mark.parametrize("order, stages, failing", [
    (4, 3, ["[A1,[A1,A3]]", "A5"]),
    (6, 9, ["[A1,[A1,[A1,[A1,A3]]]]", "[A1,[A1,A5]]", "[[A1,A3],A3]", "A7"]),
    (8, 27, None),
])
def test_yoshida_recursive_triple_jumps(order, stages, failing):
    g = yoshida_composition(order)
    assert len(g) == stages
    assert is_symmetric_composition(g)
    r = composition_order(g)
    assert r.order == order and r.exact
    assert r.certificate.holds is True and r.certificate.stage == "exact"
    assert r.failure.holds is False
    labels = [cond.label for cond in r.conditions]
    assert all(cond.weight == order + 1 for cond in r.conditions)
    if failing is not None:
        assert labels == failing
    else:
        assert labels == lyndon_words(9) and len(labels) == 8


def test_yoshida_order_eight_claims():
    g = yoshida_composition(8)
    assert certify_composition_order(g, 8).holds is True
    fail = certify_composition_order(g, 10)
    assert fail.holds is False
    assert "weight-9" in fail.method
    assert set(fail.residual) == set(lyndon_words(9))


def test_suzuki_fractal_order_four():
    s = suzuki_fractal(4)
    p = 1 / (4 - sp.Integer(4) ** sp.Rational(1, 3))
    assert len(s) == 5 and s[0] == s[1] == s[3] == s[4] == p
    assert sp.simplify(s[2] - (1 - 4 * p)) == 0
    r = composition_order(s)
    assert r.order == 4 and r.exact and r.certificate.stage == "exact"


def test_rational_compositions():
    assert composition_order([sp.Rational(1, 2)] * 2).order == 2
    assert composition_order([Fraction(1, 3)] * 3).order == 2
    r = composition_order([1, 1])
    assert r.order == 0 and r.failure.holds is False and "A1" in r.failure.residual


def test_a_perturbed_exact_coefficient_fails():
    g = list(triple_jump(2))
    eps = sp.Rational(1, 10**6)
    g = [g[0] + eps, g[1] - 2 * eps, g[2] + eps]   # still consistent and palindromic
    r = composition_order(g)
    assert r.order == 2 and r.exact
    assert [cond.label for cond in r.conditions] == ["A3"]
    assert certify_composition_order(g, 4).holds is False


def test_symbolic_coefficients_give_the_conditions_for_all_values():
    r = composition_order([a, 1 - 2 * a, a])
    assert r.order == 2 and r.failure.holds is False     # 2a^3 + (1-2a)^3 is not identically 0
    # the refutation is the zero test's: its point, and its record of the domain of a
    assert "a" in r.failure.counterexample and "c[A3]" in r.failure.counterexample
    assert r.failure.soundness.kind == "counterexample" and r.failure.soundness.symbols == ("a",)
    conds = order_conditions([a, 1 - 2 * a, a], 3)
    assert sp.expand(conds[-1].value - (2 * a**3 + (1 - 2 * a) ** 3)) == 0


def test_algebraic_and_complex_coefficients():
    r = composition_order([sp.sqrt(2) / 2, 1 - sp.sqrt(2), sp.sqrt(2) / 2])
    assert r.order == 2 and r.exact
    # complex coefficients with positive real parts: the four-stage order-3 family is beyond
    # this; here just check exact complex arithmetic decides consistency and weight 3
    z = [(1 + sp.I) / 4, (1 - sp.I) / 4, (1 - sp.I) / 4, (1 + sp.I) / 4]
    r = composition_order(z)
    assert r.order == 2 and r.failure.holds is False


# ----------------------------------------------------------------------------------
# published numeric coefficients, refined to 60 digits


_PUBLISHED_Y6 = {
    "A": ["-1.17767998417887", "0.235573213359357", "0.784513610477560"],
    "B": ["-2.13228522200144", "0.00426068187079180", "1.43984816797678"],
    "C": ["0.00152886228424922", "-2.14403531630539", "1.44778256239930"],
}


@pytest.mark.parametrize("solution", ["A", "B", "C"])
def test_yoshida_sixth_order_solutions(solution):
    g = yoshida6(solution)
    assert len(g) == 7 and is_symmetric_composition(g)
    w1, w2, w3 = (sp.Float(s, 30) for s in _PUBLISHED_Y6[solution])
    assert abs(g[2] - w1) < 1e-13 and abs(g[1] - w2) < 1e-13 and abs(g[0] - w3) < 1e-13
    r = composition_order(g)
    assert r.order == 6 and r.exact
    assert r.certificate.stage == "numeric"
    assert r.precision.table_digits >= 59 and r.precision.relative < 1e-57     # refined to 60 digits
    assert "precision of the coefficients" in r.certificate.claim and "every choice" in r.failure.method
    assert {cond.weight for cond in r.conditions} == {7}
    assert certify_composition_order(g, 8).holds is False


def test_yoshida_a_matches_the_26_digit_values():
    g = yoshida6("A")
    ref = ["0.78451361047755726381949763", "0.23557321335935813368479318", "-1.17767998417887100694641568",
           "1.31518632068391121888424973"]
    for x, r in zip(g, ref):
        assert abs(x - sp.Float(r, 30)) < 1e-25


@pytest.mark.parametrize("order, stages", [(6, 9), (8, 17)])
def test_kahan_li(order, stages):
    g = kahan_li(order)
    assert len(g) == stages and is_symmetric_composition(g)
    published = C._KAHAN_LI[order]
    for x, s in zip(g, published):
        assert abs(x - sp.Float(s, 30)) < 1e-24
    r = composition_order(g)
    assert r.order == order and r.exact and r.certificate.stage == "numeric"
    assert r.precision.relative < 1e-57 and "precision of the coefficients" in r.certificate.claim


def test_double_precision_published_values():
    w = [0.78451361047755726382, 0.23557321335935813368, -1.17767998417887100695]
    g = w + [1 - 2 * sum(w)] + w[::-1]
    r = composition_order(g)
    assert r.order == 6 and r.precision.label == "1e-15" and "up to the 1e-15 precision" in r.certificate.claim
    # a perturbation that keeps the sum and the symmetry fails at weight 3
    bad = list(g)
    bad[0] += 1e-4
    bad[-1] += 1e-4
    bad[3] -= 2e-4
    r = composition_order(bad)
    assert r.order == 2 and r.exact and [cond.label for cond in r.conditions] == ["A3"]
    assert r.failure.holds is False


def test_refine_from_a_rough_start_finds_the_triple_jump():
    g = refine_composition([1.35, -1.70, 1.35], 4, dps=40)
    exact = triple_jump(2)
    for x, y in zip(g, exact):
        assert abs(x - sp.N(y, 50)) < 1e-38


# ----------------------------------------------------------------------------------
# independent check: local error of compositions of the exact Strang splitting


def _strang_error_ratios(gammas, hs, ctx):
    rng = random.Random(7)
    A = ctx.matrix([[ctx.mpf(rng.randint(-5, 5)) / 4 for _ in range(3)] for _ in range(3)])
    B = ctx.matrix([[ctx.mpf(rng.randint(-5, 5)) / 4 for _ in range(3)] for _ in range(3)])
    assert ctx.mnorm(A * B - B * A, 1) > 0.1
    gs = [ctx.make_mpf(sp.Float(sp.N(x, 70), 70)._mpf_) for x in gammas]
    errs = []
    for h in hs:
        P = ctx.eye(3)
        for g in gs:
            half = ctx.expm(g * h / 2 * A)
            P = half * ctx.expm(g * h * B) * half * P
        errs.append(ctx.mnorm(P - ctx.expm(h * (A + B)), 1))
    return [errs[i] / errs[i + 1] for i in range(len(errs) - 1)]


@pytest.mark.parametrize("name, order", [("triple jump", 4), ("yoshida 8", 8), ("yoshida A", 6),
                                         ("kahan-li 8", 8), ("suzuki", 4)])
def test_local_error_of_strang_compositions(name, order):
    gammas = {"triple jump": triple_jump(2), "yoshida 8": yoshida_composition(8), "yoshida A": yoshida6("A"),
              "kahan-li 8": kahan_li(8), "suzuki": suzuki_fractal(4)}[name]
    ctx = mpmath.MPContext()
    ctx.dps = 50
    hs = [ctx.mpf(1) / 2**k for k in range(4, 7)]
    ratios = _strang_error_ratios(gammas, hs, ctx)
    # local error C h^(p+1): halving h divides it by 2^(p+1) (and not by 2^(p+3))
    assert abs(ratios[-1] / 2 ** (order + 1) - 1) < 0.06, ratios
    assert composition_order(gammas).order == order


# ----------------------------------------------------------------------------------
# certificates, LaTeX, JSON


def test_certificate_latex_and_json():
    cert = certify_composition_order(triple_jump(2), 6)
    tex = cert.latex()
    assert r"[A_{1}, [A_{1}, A_{3}]]" in tex and r"\sum_i \gamma_i^{5}" in tex
    assert "The claim fails" in tex
    data = json.loads(cert.to_json())
    assert data["holds"] is False and "[A1,[A1,A3]]" in data["residual"]
    doc = certify_composition_order(yoshida_composition(6), 6).document()
    assert doc.startswith("\\documentclass") and "The claim holds" in doc


def test_is_symmetric_composition():
    assert is_symmetric_composition(triple_jump(2))
    assert not is_symmetric_composition([1, 2, 3])
    assert is_symmetric_composition([a, b, a])
    assert not is_symmetric_composition([a, b, b])
    assert is_symmetric_composition([0.5, 0.5])


# ----------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize("bad", [[], ()])
def test_empty_composition(bad):
    with pytest.raises(CompositionError, match="at least one coefficient"):
        composition_order(bad)
    with pytest.raises(GeomcheckError):
        certify_composition_order(bad, 2)
    with pytest.raises(ValueError):
        order_conditions(bad, 2)


@pytest.mark.parametrize("bad", [["1/2", "1/2"], [None, 1], [[0.5], 0.5], [True, 0], [float("nan"), 1.0],
                                 [float("inf"), 0.0], [sp.oo, 0], [sp.nan, 1], [sp.Function("f")(a), 1], "abc", 3])
def test_non_numeric_coefficients(bad):
    with pytest.raises(CompositionCoefficientError) as info:
        composition_order(bad)
    assert isinstance(info.value, GeomcheckError) and isinstance(info.value, (TypeError, ValueError))
    assert str(info.value)


@pytest.mark.parametrize("base_order", [0, 1, 3, -2, 2.0, "2", True])
def test_bad_base_order(base_order):
    with pytest.raises(CompositionError, match="base_order"):
        composition_order([1], base_order=base_order)


def test_bad_orders_and_options():
    with pytest.raises(InvalidArgumentError):
        certify_composition_order([1], 0)
    with pytest.raises(InvalidArgumentError):
        composition_order([1], max_order=0)
    with pytest.raises(CompositionError):
        triple_jump(3)
    with pytest.raises(InvalidArgumentError):
        yoshida6("D")
    with pytest.raises(InvalidArgumentError):
        kahan_li(10)
    with pytest.raises(InvalidArgumentError):
        yoshida6("A", dps=5)
    with pytest.raises(CompositionCoefficientError):
        refine_composition([a, 1 - 2 * a, a], 4)


def test_coefficients_given_by_cosines_of_rational_multiples_of_pi_are_exact():
    # (c, 1 - 2c, c) sums to 1 and is palindromic: order 2 exactly, and the weight-3 condition
    # 2 c^3 + (1 - 2c)^3 vanishes only at the triple jump's c, not at c = cos(pi/9)
    c = sp.cos(sp.pi / 9)
    r = composition_order([c, 1 - 2 * c, c])
    assert r.order == 2 and r.exact and r.precision is None
    assert "number field" in r.failure.method and "cos(pi/9)" in r.failure.method
    x = sp.Symbol("x")
    assert sp.minimal_polynomial(r.conditions[0].value - (2 * c ** 3 + (1 - 2 * c) ** 3), x) == x
