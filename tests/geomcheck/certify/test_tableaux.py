"""ButcherTableau / PartitionedTableau: validation, exact decisions, every property function."""

import math
import re
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from sympy import Rational as R

from geomcheck import errors
from geomcheck.certify.certificate import Certificate
from geomcheck.certify.tableaux import (
    ButcherTableau,
    OrderCertificate,
    PartitionedTableau,
    condition_B,
    condition_C,
    condition_D,
    is_diagonally_implicit,
    is_explicit,
    is_symmetric,
    is_symplectic,
    order,
    order_conditions,
    stability_function,
    stage_order,
)

z = sp.Symbol("z")
r3 = sp.sqrt(3)
RK4 = dict(A=[[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]],
           b=[R(1, 6), R(1, 3), R(1, 3), R(1, 6)])
GAUSS2 = dict(A=[[R(1, 4), R(1, 4) - r3 / 6], [R(1, 4) + r3 / 6, R(1, 4)]], b=[R(1, 2), R(1, 2)])


def rk4(**kw):
    return ButcherTableau(RK4["A"], RK4["b"], name="RK4", **kw)


def gauss2():
    return ButcherTableau(GAUSS2["A"], GAUSS2["b"], name="Gauss s=2")


# --------------------------------------------------------------------------- construction


def test_tableau_is_frozen_and_exact():
    T = rk4()
    assert T.s == 4 and T.c == (0, R(1, 2), R(1, 2), 1) and T.exact
    assert all(isinstance(x, sp.Rational) for row in T.A for x in row)
    with pytest.raises(AttributeError):
        T.s = 3
    with pytest.raises(AttributeError):
        T.A = ()
    assert T == rk4() and hash(T) == hash(rk4())
    assert T.matrix.shape == (4, 4)


def test_accepted_entry_types():
    T = ButcherTableau(np.array([[0, 0], [1, 0]]), ("1/2", Fraction(1, 2)))
    assert T.b == (R(1, 2), R(1, 2))
    T = ButcherTableau(sp.Matrix([[R(1, 2)]]), sp.Matrix([1]))
    assert T.A == ((R(1, 2),),)
    assert ButcherTableau([["0.25"]], ["1"]).A == ((R(1, 4),),)      # decimal strings are exact


@pytest.mark.parametrize("A,b,c,fragments", [
    ([[0, 0], [1]], [1, 0], None, ["row 1 has 1 entries", "square"]),
    ([[0, 0, 0], [1, 0, 0]], [1, 0, 0], None, ["row 0 has 3 entries"]),
    ([[0, 0], [1, 0]], [1, 0, 0], None, ["b has 3 entries", "A is 2 x 2"]),
    ([[0, 0], [1, 0]], [R(1, 2), R(1, 2)], [0], ["c has 1 entries"]),
    ([], [], None, ["empty"]),
    ([1, 2], [1, 2], None, ["square matrix"]),
    ("abc", [1], None, ["not a matrix"]),
    ([[0]], 1, None, ["not a vector"]),
])
def test_shape_errors(A, b, c, fragments):
    with pytest.raises(errors.TableauShapeError) as info:
        ButcherTableau(A, b, c)
    for frag in fragments:
        assert frag in str(info.value)
    assert isinstance(info.value, (errors.GeomcheckError, ValueError))


X = sp.Symbol("x")


@pytest.mark.parametrize("entry,fragment", [
    (X, "contains x"),
    (sp.Function("f")(1), "contains f(1)"),
    (sp.nan, "finite"),
    (float("nan"), "finite"),
    (float("inf"), "finite"),
    (sp.oo, "finite"),
    (sp.zoo, "finite"),
    (sp.I, "real"),
    (True, "bool"),
    ("not a number", "not a number"),
    (object(), "not a number"),
    ([1, 2], "not a number"),
])
def test_entry_errors(entry, fragment):
    with pytest.raises(errors.TableauEntryError) as info:
        ButcherTableau([[R(1, 2), entry], [0, R(1, 2)]], [R(1, 2), R(1, 2)])
    assert fragment in str(info.value)
    assert "A[0][1]" in str(info.value)


def test_floats_are_refused_with_a_suggestion():
    with pytest.raises(errors.TableauFloatError) as info:
        ButcherTableau([[0, 0], [0.5, 0]], [0.5, 0.5])
    msg = str(info.value)
    assert "A[1][0] = 0.5 is a float" in msg and "nsimplify(0.5) = 1/2" in msg and "exact=False" in msg
    with pytest.raises(errors.TableauFloatError):
        ButcherTableau([[sp.Float("0.5")]], [1])
    with pytest.raises(errors.TableauFloatError, match="1/3"):
        ButcherTableau([[1 / 3]], [1])


def test_floats_accepted_with_exact_false_and_decided_numerically():
    T = ButcherTableau([[0, 0, 0, 0], [0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1, 0]],
                       [1 / 6, 1 / 3, 1 / 3, 1 / 6], exact=False, name="RK4 in floats")
    assert not T.exact
    c = order(T, max_order=6)
    assert (c.order, c.holds, c.stage) == (4, True, "numeric")
    assert "not a proof for exact coefficients" in c.method and str(c.failing_tree) == "[τ⁴]"
    assert c.claim == "the order of RK4 in floats is 4, up to the 1e-15 precision of the entries"


def test_inconsistent_nodes():
    with pytest.raises(errors.InconsistentNodesError) as info:
        ButcherTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)], c=[0, R(1, 2)])
    msg = str(info.value)
    assert "c[1] = 1/2" in msg and "sums to 1" in msg and "allow_inconsistent_c=True" in msg
    T = ButcherTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)], c=[0, R(1, 2)], allow_inconsistent_c=True)
    assert T.c == (0, R(1, 2))
    # exact decision with algebraic entries: consistent c written differently is accepted
    ButcherTableau(GAUSS2["A"], GAUSS2["b"], c=[(3 - r3) / 6, (3 + r3) / 6])
    with pytest.raises(errors.InconsistentNodesError):
        ButcherTableau(GAUSS2["A"], GAUSS2["b"], c=[(3 - r3) / 6, (3 + r3) / 6 + sp.sqrt(2) - sp.sqrt(2) * (1 + R(1, 10**30))])


def test_partitioned_validation():
    with pytest.raises(errors.TableauShapeError, match="2 stages and the p part 1"):
        PartitionedTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)], [[1]], [1])
    with pytest.raises(errors.TableauEntryError, match="p part"):
        PartitionedTableau([[0]], [1], [[X]], [1])
    with pytest.raises(errors.TableauError, match="from_parts"):
        PartitionedTableau(rk4(), rk4(), None, None)
    P = PartitionedTableau.from_parts(rk4(), rk4(), name="RK4 twice")
    with pytest.raises(AttributeError):
        P.q = None
    assert order(P, max_order=5).order == 4


def test_property_functions_reject_other_objects():
    with pytest.raises(errors.InvalidArgumentError, match="ButcherTableau"):
        order([[0]])
    with pytest.raises(errors.InvalidArgumentError, match="T.q and T.p"):
        stage_order(PartitionedTableau([[0]], [1], [[1]], [1]))
    with pytest.raises(errors.InvalidArgumentError, match="max_order"):
        order(rk4(), max_order=0)
    with pytest.raises(errors.InvalidArgumentError, match="max_order"):
        order(rk4(), max_order=99)


# --------------------------------------------------------------------------- order


def test_rk4_has_order_four_and_order_five_fails_with_the_failing_tree():
    T = rk4()
    c = order(T)
    assert isinstance(c, OrderCertificate) and isinstance(c, Certificate)
    assert (c.order, c.holds, c.stage) == (4, True, "exact")
    assert str(c.failing_tree) == "[τ⁴]" and c.residual == R(1, 120)
    assert c.claim == "the order of RK4 is 4"
    five = order_conditions(T, 5)
    assert five.holds is False and five.stage == "exact"
    assert str(five.counterexample["tree"]) == "[τ⁴]" and five.counterexample["residual"] == R(1, 120)
    assert len(five.residual) == 17
    assert sum(1 for r in five.residual.values() if r != 0) == 9      # every order-5 condition fails
    assert order_conditions(T, 4).holds is True


def test_explicit_euler_has_order_one():
    c = order(ButcherTableau([[0]], [1], name="explicit Euler"))
    assert c.order == 1 and str(c.failing_tree) == "[τ]" and c.residual == R(-1, 2)


def test_order_zero_when_weights_do_not_sum_to_one():
    c = order(ButcherTableau([[0]], [R(1, 2)]))
    assert c.order == 0 and str(c.failing_tree) == "τ"


def test_order_lower_bound_claim():
    c = order(rk4(), max_order=3)
    assert c.order == 3 and c.failing_tree is None and "at least 3" in c.claim


def test_a_fourth_order_method_with_a_typo_is_second_order():
    # RK4 with a32 = 1/2 misprinted as a31 = 1/2: c is unchanged, the order drops to 2
    A = [[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [R(1, 2), 0, 0, 0], [0, 0, 1, 0]]
    c = order(ButcherTableau(A, RK4["b"], name="RK4 with a typo"))
    assert c.order == 2 and str(c.failing_tree) == "[[τ]]" and c.residual == R(-1, 12)


def test_sqrt3_entries_are_decided_exactly():
    T = gauss2()
    c = order_conditions(T, 4)
    assert c.holds is True and c.stage == "exact"
    assert "Q(sqrt(3))" in c.method and "exactly 0" in c.method
    assert all(r is sp.S.Zero for r in c.residual.values())
    five = order_conditions(T, 5)
    assert five.holds is False and five.stage == "exact"
    assert five.counterexample["residual"] == R(-1, 180)        # b.c^4 - 1/5 for Gauss s=2
    # a residual that is an irrational algebraic number is reported exactly
    Tb = ButcherTableau(GAUSS2["A"], [R(1, 2) + r3 / 100, R(1, 2) - r3 / 100])
    cb = order_conditions(Tb, 2)
    assert cb.holds is False and sp.simplify(cb.counterexample["residual"] - (-R(1, 100))) == 0


def test_nested_radicals_and_rootof_entries_are_exact():
    a = sp.sqrt(2 + sp.sqrt(2))
    T = ButcherTableau([[a, -a], [0, 0]], [R(1, 2), R(1, 2)], c=[0, 0])
    c = order_conditions(T, 2)
    assert c.stage == "exact" and c.holds is False
    r = sp.CRootOf(X**3 - X - 1, 0)
    T = ButcherTableau([[r, 1 - r], [0, 0]], [1 - r**2, r**2], c=[1, 0])
    cert = order_conditions(T, 1)
    assert cert.holds is True and cert.stage == "exact"


def test_non_algebraic_entries_fall_back_to_the_zero_test():
    one = sp.cos(1) ** 2 + sp.sin(1) ** 2           # equals 1, not recognizably algebraic
    T = ButcherTableau([[0]], [one])
    c = order_conditions(T, 1)
    assert c.holds is True and "geomcheck.zero" in c.method and c.stage in ("exact", "randomized")
    assert order_conditions(T, 2).holds is False


# --------------------------------------------------------------------------- B, C, D, stage order


def test_simplifying_assumptions_of_gauss2():
    T = gauss2()
    assert condition_B(T, 4).holds is True and condition_B(T, 5).holds is False
    assert condition_C(T, 2).holds is True and condition_C(T, 3).holds is False
    assert condition_D(T, 2).holds is True and condition_D(T, 3).holds is False
    assert stage_order(T).order == 2


def test_condition_failure_names_the_entry():
    c = condition_C(rk4(), 2)
    assert c.holds is False and c.counterexample["entry"] == "C k=2 i=1"
    assert c.counterexample["residual"] == R(-1, 8)
    assert stage_order(rk4()).order == 1


# --------------------------------------------------------------------------- structure


def test_explicit_and_diagonally_implicit():
    assert is_explicit(rk4()).holds is True and is_diagonally_implicit(rk4()).holds is False
    sdirk = ButcherTableau([[R(1, 4), 0], [R(1, 2), R(1, 4)]], [R(1, 2), R(1, 2)])
    assert is_explicit(sdirk).holds is False and is_diagonally_implicit(sdirk).holds is True
    full = gauss2()
    assert is_explicit(full).holds is False and is_diagonally_implicit(full).holds is False
    assert is_explicit(full).counterexample["entry"] == "A[0][0]"


# --------------------------------------------------------------------------- symplectic, symmetric


def test_symplecticity_condition():
    c = is_symplectic(gauss2())
    assert c.holds is True and c.stage == "exact" and c.residual == sp.zeros(2, 2)
    bad = is_symplectic(rk4())
    assert bad.holds is False and bad.counterexample == {"entry": "M[0][0]", "residual": R(-1, 36)}


def test_symmetry_finds_a_permutation_even_when_stages_are_shuffled():
    T = gauss2()
    A, b = T.A, T.b
    shuffled = ButcherTableau([[A[0][0], A[0][1]], [A[1][0], A[1][1]]], b)
    assert is_symmetric(shuffled).residual["sigma"] == (1, 0)
    # a symmetric 3-stage method with stages listed out of order: Lobatto IIIA s=3 permuted
    L = [[0, 0, 0], [R(5, 24), R(1, 3), R(-1, 24)], [R(1, 6), R(2, 3), R(1, 6)]]
    bl = [R(1, 6), R(2, 3), R(1, 6)]
    perm = [1, 2, 0]
    P = ButcherTableau([[L[i][j] for j in perm] for i in perm], [bl[i] for i in perm])
    c = is_symmetric(P)
    assert c.holds is True and c.residual["sigma"] == (0, 2, 1)
    assert is_symmetric(rk4()).holds is False
    assert is_symmetric(ButcherTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)])).holds is False  # Heun


def test_partitioned_symplectic_conventions():
    verlet = PartitionedTableau([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)],
                                [[R(1, 2), 0], [R(1, 2), 0]], [R(1, 2), R(1, 2)], name="Stormer-Verlet")
    assert is_symplectic(verlet).holds is True
    assert is_symmetric(verlet).holds is True
    assert order(verlet).order == 2
    swapped = PartitionedTableau.from_parts(verlet.p, verlet.q)
    assert is_symplectic(swapped).holds is True                      # condition symmetric in the parts
    # different weights: not symplectic in general, but fine for separable Hamiltonians
    pair = PartitionedTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)], [[R(1, 2), 0], [R(1, 2), 0]], [1, 0])
    general = is_symplectic(pair)
    assert general.holds is False
    sep = is_symplectic(pair, separable=True)
    M = [[R(1, 2) * Ah + bh * Aq - R(1, 2) * bh for Ah, bh, Aq in zip(rowh, [1, 0], colq)]
         for rowh, colq in zip([[R(1, 2), 0], [R(1, 2), 0]], [[0, 1], [0, 0]])]
    assert sep.holds is (all(x == 0 for row in M for x in row))


def test_explicit_euler_pair_is_not_symplectic_but_symplectic_euler_is():
    fake = PartitionedTableau([[0]], [1], [[0]], [1], name="'symplectic' Euler")
    c = is_symplectic(fake)
    assert c.holds is False and c.counterexample["residual"] == -1
    real = PartitionedTableau([[0]], [1], [[1]], [1], name="symplectic Euler")
    assert is_symplectic(real).holds is True and order(real).order == 1


# --------------------------------------------------------------------------- stability function


def test_stability_functions_of_gauss_are_pade():
    mid = ButcherTableau([[R(1, 2)]], [1])
    st = stability_function(mid)
    assert sp.expand(st.numerator - (1 + z / 2)) == 0 and sp.expand(st.denominator - (1 - z / 2)) == 0
    st2 = stability_function(gauss2())
    assert sp.expand(st2.numerator - (1 + z / 2 + z**2 / 12)) == 0
    assert sp.expand(st2.denominator - (1 - z / 2 + z**2 / 12)) == 0
    assert sp.simplify(st2(1) - R(19, 7)) == 0


def test_stability_function_of_rk4_is_the_taylor_polynomial():
    st = stability_function(rk4())
    assert sp.expand(st.numerator - sum(z**k / math.factorial(k) for k in range(5))) == 0
    assert st.denominator == 1


def test_stability_function_against_the_resolvent_formula():
    A = sp.Matrix([[R(1, 6), R(-1, 3), R(1, 6)], [R(1, 6), R(5, 12), R(-1, 12)], [R(1, 6), R(2, 3), R(1, 6)]])
    b = sp.Matrix([R(1, 6), R(2, 3), R(1, 6)])
    e = sp.ones(3, 1)
    ref = 1 + z * (b.T * (sp.eye(3) - z * A).inv() * e)[0]
    st = stability_function(ButcherTableau(A, b))
    assert sp.simplify(st.expr - ref) == 0


# --------------------------------------------------------------------------- certificates print


def _well_formed(tex):
    assert tex.count("{") == tex.count("}")
    begins = re.findall(r"\\begin\{(\w+\*?)\}", tex)
    ends = re.findall(r"\\end\{(\w+\*?)\}", tex)
    assert sorted(begins) == sorted(ends)
    assert all(ord(ch) < 128 for ch in tex), [ch for ch in tex if ord(ch) >= 128][:5]


@pytest.mark.parametrize("make", [
    lambda: order(rk4(), max_order=5),
    lambda: order_conditions(rk4(), 5),
    lambda: order_conditions(gauss2(), 4),
    lambda: is_symplectic(rk4()),
    lambda: is_symmetric(gauss2()),
    lambda: is_symmetric(rk4()),
    lambda: condition_D(gauss2(), 3),
    lambda: stage_order(gauss2()),
    lambda: is_diagonally_implicit(rk4()),
    lambda: order(PartitionedTableau([[0]], [1], [[1]], [1], name="symplectic_Euler & co"), max_order=3),
])
def test_certificates_typeset_and_serialize(make):
    cert = make()
    tex = cert.latex()
    _well_formed(tex)
    assert "\\begin{tabular}" in tex or "\\begin{align*}" in tex
    doc = cert.document()
    assert doc.startswith("\\documentclass")
    assert cert.to_json().startswith("{")
    with pytest.raises(TypeError):
        bool(cert)


def test_order_derivation_lists_every_tree_with_its_residual():
    tex = order_conditions(rk4(), 5).latex()
    assert tex.count(r"\\" + "\n") + 1 >= 17
    assert r"$[\tau^{4}]$ & 5 & 5 & 24 & $b^{T} c^{4}$ & $\frac{1}{120}$" in tex
