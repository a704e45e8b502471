"""The algebraic laws of B-series (Butcher group, substitution law), on random methods.

Hypothesis draws small rational Runge-Kutta tableaux (explicit and implicit, 1-3 stages) and
random coefficient series; every law is checked coefficientwise, exactly, with a comparison
written here (and the library's own ``==`` is required to agree with it).  Laws from
Hairer-Lubich-Wanner III.1, III.3, IX.9 and Chartier-Hairer-Vilmart 2010 "Algebraic structures
of B-series" (composition: a group; substitution: associative, a homomorphism of the
composition, with the field ``f`` (b(tau) = 1) as its unit; ``exp`` and ``log`` inverse maps).
Expected values that depend on a tableau are computed from the tableau in this file (elementary
weights written here), never taken from the library.
"""

from __future__ import annotations

from functools import cache

import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sympy import Rational as R

from geomcheck.bseries import (
    BSeries,
    adjoint,
    compose,
    composition_method,
    exact_flow,
    exponential,
    identity,
    inverse,
    logarithm,
    modified_equation,
    modifying_integrator,
    partitioned_runge_kutta,
    runge_kutta,
    substitute,
)
from geomcheck.certify.tableaux import PartitionedTableau
from geomcheck.certify.trees import trees_up_to

P = 4          # order of the random laws (8 trees; 3 laws go to order 5)
LAWS = settings(max_examples=8, deadline=None)

# ============================================================================ helpers written here


def weights(A, b, p):
    """{tree: Phi(tree)} for a tableau, or for a pair ((A1, b1), (A2, b2)) on P-trees:
    g_i(t) = prod over children u of (A^{colour(u)} g(u))_i, Phi(t) = b^{colour(root)} . g(t)."""
    parts = [(A, b)] if not isinstance(A, tuple) else [A, b]
    parts = [([[sympy.sympify(x) for x in row] for row in Ak], [sympy.sympify(x) for x in bk])
             for Ak, bk in parts]
    s = len(parts[0][1])
    colours = len(parts)

    @cache
    def g(t):
        v = [sympy.Integer(1)] * s
        for u in t.children:
            Au = parts[u.colour][0]
            gu = g(u)
            v = [v[i] * sum(Au[i][j] * gu[j] for j in range(s)) for i in range(s)]
        return tuple(v)

    return {t: sympy.expand(sum(parts[t.colour][1][i] * g(t)[i] for i in range(s)))
            for t in trees_up_to(p, colours)}


def same(x, y):
    """x and y are the same series: exactly equal coefficients (checked here) and x == y."""
    assert (x.order, x.colours) == (y.order, y.colours), ((x.order, x.colours), (y.order, y.colours))
    assert sympy.expand(x.empty - y.empty) == 0, (x.empty, y.empty)
    for t in x.trees():
        d = sympy.expand(x[t] - y[t])
        if d != 0:
            d = sympy.simplify(d)
        assert d == 0, f"tree {t}: {x[t]} != {y[t]}"
    assert x == y
    return True


def from_weights(w, p, colours=1):
    return BSeries(dict(w), p, empty=1, colours=colours)


def concatenate(A1, b1, A2, b2):
    """The tableau of "(A1, b1) then (A2, b2)" (one step of each, same h)."""
    s1, s2 = len(b1), len(b2)
    A = [list(A1[i]) + [0] * s2 for i in range(s1)]
    A += [list(b1) + list(A2[i]) for i in range(s2)]
    return A, list(b1) + list(b2)


def composed_tableau(A, b, gammas):
    """The tableau of base(gamma_1 h) then ... then base(gamma_m h)."""
    s, m = len(b), len(gammas)
    big = [[0] * (s * m) for _ in range(s * m)]
    for k, gk in enumerate(gammas):
        for i in range(s):
            for j in range(k):  # earlier steps enter with their full weights
                for jj in range(s):
                    big[k * s + i][j * s + jj] = gammas[j] * b[jj]
            for jj in range(s):
                big[k * s + i][k * s + jj] = gk * A[i][jj]
    return big, [gk * b[j] for gk in gammas for j in range(s)]


# ============================================================================ strategies

ENTRY = st.sampled_from([R(-1), R(-1, 2), R(0), R(0), R(1, 3), R(1, 2), R(1), R(3, 2)])


@st.composite
def tableaux(draw, implicit=None):
    s = draw(st.integers(1, 3))
    if implicit is None:
        implicit = draw(st.booleans())
    A = [[draw(ENTRY) if (implicit or j < i) else R(0) for j in range(s)] for i in range(s)]
    b = [draw(ENTRY) for _ in range(s)]
    return A, b


@st.composite
def methods(draw, p=P):
    """A random method series: an RK method, or random coefficients (empty 1)."""
    if draw(st.booleans()):
        A, b = draw(tableaux())
        return runge_kutta(A, b, p)
    return BSeries({t: draw(ENTRY) for t in trees_up_to(p)}, p, empty=1)


@st.composite
def fields(draw, p=P):
    """A random vector-field series (empty 0)."""
    return BSeries({t: draw(ENTRY) for t in trees_up_to(p)}, p, empty=0)


# ============================================================================ the Butcher group


@LAWS
@given(methods(5), methods(5), methods(5))
def test_compose_is_associative(a, b, c):
    same(compose(compose(a, b), c), compose(a, compose(b, c)))


@LAWS
@given(methods())
def test_identity_is_neutral(a):
    e = identity(P)
    assert all(e[t] == 0 for t in e.trees()) and e.empty == 1
    same(compose(e, a), a)
    same(compose(a, e), a)


@LAWS
@given(methods())
def test_inverse_is_two_sided(a):
    e = identity(P)
    same(compose(a, inverse(a)), e)
    same(compose(inverse(a), a), e)
    same(inverse(inverse(a)), a)


@LAWS
@given(methods())
def test_adjoint_is_an_involution(a):
    same(adjoint(adjoint(a)), a)


@LAWS
@given(methods(), methods())
def test_adjoint_reverses_compositions(a, b):
    same(adjoint(compose(a, b)), compose(adjoint(b), adjoint(a)))


@LAWS
@given(tableaux(), tableaux())
def test_compose_of_rk_is_rk_of_the_concatenated_tableau(m1, m2):
    (A1, b1), (A2, b2) = m1, m2
    A, b = concatenate(A1, b1, A2, b2)
    composed = compose(runge_kutta(A1, b1, P), runge_kutta(A2, b2, P))
    same(composed, from_weights(weights(A, b, P), P))
    same(composed, runge_kutta(A, b, P))


@LAWS
@given(tableaux(), st.lists(st.sampled_from([R(-1, 2), R(1, 3), R(1, 2), R(1), R(2)]), min_size=1, max_size=3))
def test_composition_method_is_the_rk_series_of_the_scaled_steps(m, gammas):
    A, b = m
    base = runge_kutta(A, b, P)
    big_A, big_b = composed_tableau(A, b, gammas)
    same(composition_method(base, gammas), from_weights(weights(big_A, big_b, P), P))


def test_composition_method_single_scaled_step():
    """gamma = 1/2: the coefficients of a step of h/2 are 2^-|t| times the base's (by hand)."""
    A, b = [[0, 0], [R(1, 2), 0]], [0, 1]
    base = runge_kutta(A, b, 5)
    half = composition_method(base, [R(1, 2)])
    for t in trees_up_to(5):
        assert half[t] == base[t] / 2 ** t.order, t


# ============================================================================ symmetric methods

r3 = sympy.sqrt(3)
SYMMETRIC = {
    "implicit midpoint": ([[R(1, 2)]], [1]),
    "trapezoidal": ([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)]),
    "Gauss-4": ([[R(1, 4), R(1, 4) - r3 / 6], [R(1, 4) + r3 / 6, R(1, 4)]], [R(1, 2), R(1, 2)]),
    "Lobatto IIIA-3": ([[0, 0, 0], [R(5, 24), R(1, 3), R(-1, 24)], [R(1, 6), R(2, 3), R(1, 6)]],
                       [R(1, 6), R(2, 3), R(1, 6)]),
}


@pytest.mark.parametrize("name", sorted(SYMMETRIC))
def test_symmetric_methods_are_their_own_adjoint(name):
    A, b = SYMMETRIC[name]
    s = runge_kutta(A, b, 5)
    same(s, from_weights(weights(A, b, 5), 5))
    same(adjoint(s), s)


def test_explicit_methods_are_not_symmetric_and_euler_adjoint_is_implicit_euler():
    ee = runge_kutta([[0]], [1], 5)
    ie = runge_kutta([[1]], [1], 5)
    same(adjoint(ee), ie)
    same(adjoint(ie), ee)
    assert adjoint(ee) != ee
    rk4 = runge_kutta([[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]],
                      [R(1, 6), R(1, 3), R(1, 3), R(1, 6)], 6)
    assert adjoint(rk4) != rk4
    # HLW Theorem II.3.2: the adjoint of a method of order p with error h^{p+1} C has error
    # (-1)^p h^{p+1} C; for RK4 (p = 4) both agree up to order 5 and first differ at order 6
    diff = [t for t in trees_up_to(6) if sympy.expand(adjoint(rk4)[t] - rk4[t]) != 0]
    assert diff and all(t.order == 6 for t in diff)
    flow = exact_flow(6)
    err = [t for t in trees_up_to(5) if rk4[t] != flow[t]]
    assert err and all(adjoint(rk4)[t] - flow[t] == rk4[t] - flow[t] for t in err)
    # explicit midpoint (p = 2): agree to order 3, differ at order 4
    mid = runge_kutta([[0, 0], [R(1, 2), 0]], [0, 1], 4)
    diff = [t for t in trees_up_to(4) if adjoint(mid)[t] != mid[t]]
    assert diff and all(t.order == 4 for t in diff)


# ============================================================================ exponential, logarithm, substitution


@LAWS
@given(fields())
def test_logarithm_inverts_exponential(b):
    same(logarithm(exponential(b)), b)


@LAWS
@given(methods())
def test_exponential_inverts_logarithm(a):
    same(exponential(logarithm(a)), a)


@LAWS
@given(methods())
def test_f_is_the_unit_of_substitution(a):
    f = BSeries({trees_up_to(1)[0]: 1}, P, empty=0)
    same(substitute(f, a), a)


@LAWS
@given(fields())
def test_substitution_into_the_exact_flow_is_the_exponential(b):
    same(substitute(b, exact_flow(P)), exponential(b))


@LAWS
@given(fields(), fields(), methods())
def test_substitution_is_associative(b1, b2, a):
    same(substitute(b1, substitute(b2, a)), substitute(substitute(b1, b2), a))


@LAWS
@given(fields(), methods(), methods())
def test_substitution_is_a_homomorphism_of_composition(b, a1, a2):
    """CHV 2010: the method "a1 then a2" applied to the field B(b) is "a1 on B(b) then a2 on B(b)"."""
    same(substitute(b, compose(a1, a2)), compose(substitute(b, a1), substitute(b, a2)))


@LAWS
@given(methods(5))
def test_modifying_integrator_substituted_gives_the_exact_flow(a):
    assume(a[trees_up_to(1)[0]] != 0)
    mi = modifying_integrator(a, 5)
    assert mi.empty == 0
    same(substitute(mi, a), exact_flow(5))


@LAWS
@given(methods(5))
def test_modified_equation_is_the_logarithm(a):
    m = modified_equation(a, 5)
    assert m.empty == 0
    same(m, logarithm(a))
    same(exponential(m), a)


@LAWS
@given(tableaux())
def test_modified_equation_of_a_tableau_equals_that_of_its_series(m):
    A, b = m
    same(modified_equation(runge_kutta(A, b, P), P), logarithm(from_weights(weights(A, b, P), P)))


# ============================================================================ P-series (colours = 2)

# colour 0: positions q (first tableau), colour 1: momenta p
SE_A = ((([[0]], [1]), ([[1]], [1])))          # q explicit, p implicit (symplectic Euler)
SE_B = ((([[1]], [1]), ([[0]], [1])))          # q implicit, p explicit (its adjoint)
SV = ((([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)]),   # Lobatto IIIA for q
       ([[R(1, 2), 0], [R(1, 2), 0]], [R(1, 2), R(1, 2)])))  # Lobatto IIIB for p
PP = 5


def prk(pair, p=PP):
    (A1, b1), (A2, b2) = pair
    return partitioned_runge_kutta(PartitionedTableau(A1, b1, A2, b2), p)


def prk_ref(pair, p=PP):
    (A1, b1), (A2, b2) = pair
    return from_weights(weights((A1, b1), (A2, b2), p), p, colours=2)


def scaled(s, gamma):
    return BSeries({t: s[t] * gamma ** t.order for t in s.trees()}, s.order, empty=1, colours=s.colours)


def test_partitioned_series_match_their_weights():
    for pair in (SE_A, SE_B, SV):
        s = prk(pair)
        assert s.colours == 2
        same(s, prk_ref(pair))


def test_stormer_verlet_is_symmetric_and_symplectic_euler_adjoint():
    sv, a, b = prk(SV), prk(SE_A), prk(SE_B)
    same(adjoint(sv), sv)
    same(adjoint(a), b)
    same(adjoint(b), a)
    assert adjoint(a) != a


def test_stormer_verlet_is_symplectic_euler_then_its_adjoint_with_half_steps():
    """HLW VI.3: Stormer-Verlet = Phi*_{h/2} o Phi_{h/2}, Phi the symplectic Euler method."""
    half = R(1, 2)
    same(compose(scaled(prk(SE_A), half), scaled(prk(SE_B), half)), prk(SV))
    # the other order is the other Stormer-Verlet variant, not this one
    assert compose(scaled(prk(SE_B), half), scaled(prk(SE_A), half)) != prk(SV)


def test_partitioned_compose_is_the_concatenated_pair_and_group_laws():
    (A1, b1), (A2, b2) = SV
    (C1, d1), (C2, d2) = SE_A
    q = concatenate(A1, b1, C1, d1)
    p = concatenate(A2, b2, C2, d2)
    sv, se = prk(SV), prk(SE_A)
    same(compose(sv, se), prk_ref((q, p)))
    same(compose(compose(sv, se), sv), compose(sv, compose(se, sv)))
    e = identity(PP, colours=2)
    same(compose(sv, inverse(sv)), e)
    same(compose(inverse(se), se), e)
    same(adjoint(compose(sv, se)), compose(adjoint(se), adjoint(sv)))
    flow = exact_flow(PP, colours=2)
    same(exponential(logarithm(se)), se)
    # Stormer-Verlet has order 2 exactly: equal to the exact flow to order 2, not at order 3
    assert all(sv[t] == flow[t] for t in sv.trees() if t.order <= 2)
    assert any(sv[t] != flow[t] for t in sv.trees() if t.order == 3)


def test_partitioned_substitution_laws():
    """P-series: the flow of the modified field is the method; the modifying integrator substituted
    into the method gives the exact flow; the field (f_0, f_1) (both one-vertex trees 1) is the unit."""
    flow = exact_flow(PP, colours=2)
    for pair in (SE_A, SV):
        s = prk(pair)
        m = logarithm(s)
        same(substitute(m, flow), s)
        same(exponential(m), s)
        mi = modifying_integrator(s, PP)
        same(substitute(mi, s), flow)
        f = BSeries({t: 1 for t in trees_up_to(1, 2)}, PP, empty=0, colours=2)
        same(substitute(f, s), s)
        same(substitute(mi, substitute(m, flow)), substitute(substitute(mi, m), flow))
