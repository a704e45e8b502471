"""Reference values of the B-series core, from the literature and from first principles.

Nothing here is computed by ``geomcheck.bseries``: every expected value is either

* published: BSeries.jl's test-suite and tutorials (Ketcheson, Ranocha; values "tested with
  the Python package BSeries"), Chartier-Hairer-Vilmart 2007 "Numerical integrators based on
  modified differential equations" (Math. Comp., eqs. (5), (6), (12)), Celledoni-McLachlan-
  Owren-Quispel 2010 "Energy-preserving integrators and the structure of B-series" (FoCM,
  Example 1), Hairer-Lubich-Wanner "Geometric Numerical Integration" (HLW) IX.1, Butcher 1969
  "The effective order of Runge-Kutta methods"; or
* computed by the small reference algebra below, written from the definitions on ONE labelled
  instance of each tree (composition: a sum over the vertex sets closed under "parent of";
  substitution: a sum over the sets of kept edges), sharing nothing with the library except
  the tree objects used as keys.  The reference algebra is itself checked against the
  published symbolic formulas of CHV 2007 first.

Normalisation (the spec's, = BSeries.jl's): ``B(a, y) = a(empty) y + sum_t h^|t|/sigma(t) a(t) F(t)(y)``.
HLW writes the modified field as ``f + h f_2 + h^2 f_3 + ...`` in elementary differentials, so
the HLW coefficient of ``h^{|t|-1} F(t)`` is ``b(t) / sigma(t)``.

Trees are written as nested tuples of children: ``L = ()`` the leaf, ``N(L, L)`` = [tau^2],
``N(N(L))`` = [[tau]]; or as BSeries.jl level sequences (``levels([1, 2, 2, 3])`` = [tau[tau]]).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from functools import cache

import pytest
import sympy
from sympy import Rational as R

from geomcheck.bseries import (
    BSeries,
    average_vector_field,
    compose,
    exact_flow,
    exponential,
    identity,
    inverse,
    kahan,
    logarithm,
    modified_equation,
    modifying_integrator,
    runge_kutta,
    substitute,
)
from geomcheck.certify.trees import trees_up_to

# ============================================================================ trees as keys

L = ()


def N(*kids):
    """The (canonical) key of the tree with the given children keys (colour 0)."""
    return tuple(sorted(kids))


def key(t):
    """Canonical key of a library tree: (root colour, sorted children keys) for P-trees,
    the sorted tuple of children keys for Butcher trees."""
    if t.colours == 1:
        return tuple(sorted(key(u) for u in t.children))
    return (t.colour, tuple(sorted(key(u) for u in t.children)))


@cache
def tree_table(p, colours=1):
    return {key(t): t for t in trees_up_to(p, colours)}


def T(k, colours=1):
    return tree_table(8 if colours == 1 else 5, colours)[k]


def levels(seq):
    """The key of the tree with the level sequence ``seq`` (BSeries.jl / RootedTrees.jl)."""
    assert seq[0] == 1

    def build(i):
        # children of vertex i: the following vertices of level seq[i]+1 until the level drops back
        kids, j = [], i + 1
        while j < len(seq) and seq[j] > seq[i]:
            if seq[j] == seq[i] + 1:
                k, j = build(j)
                kids.append(k)
            else:  # pragma: no cover - malformed sequence
                raise AssertionError(seq)
        return N(*kids), j

    k, end = build(0)
    assert end == len(seq)
    return k


def k_order(k):
    return 1 + sum(k_order(c) for c in k)


def k_sigma(k):
    s = 1
    for c, m in Counter(k).items():
        s *= math.factorial(m) * k_sigma(c) ** m
    return s


def k_gamma(k):
    return k_order(k) * math.prod(k_gamma(c) for c in k)


def keys_up_to(p):
    return [key(t) for t in trees_up_to(p)]


# ============================================================================ labelled instances


def labelled(k):
    """(parent list, children lists) of one labelled instance of the tree ``k`` (preorder)."""
    parent, kids = [], []

    def walk(node, p):
        me = len(parent)
        parent.append(p)
        kids.append([])
        if p >= 0:
            kids[p].append(me)
        for c in node:
            walk(c, me)

    walk(k, -1)
    return parent, kids


def induced(vertices, top, kids):
    """Key of the subtree on ``vertices`` hanging from ``top``."""
    return N(*[induced(vertices, c, kids) for c in kids[top] if c in vertices])


def descendants(v, kids):
    out = {v}
    for c in kids[v]:
        out |= descendants(c, kids)
    return out


def root_subtree_terms(k):
    """All (skeleton key or None, [pruned component keys]) of one labelled instance of ``k``:
    for every vertex set S closed under "parent of" (S empty included, skeleton None)."""
    parent, kids = labelled(k)
    n = len(parent)
    out = []
    for mask in range(1 << n):
        S = {v for v in range(n) if mask >> v & 1}
        if any(parent[v] >= 0 and parent[v] not in S for v in S):
            continue
        if not S:
            out.append((None, [k]))
            continue
        tops = [v for v in range(n) if v not in S and parent[v] in S]
        out.append((induced(S, 0, kids), [induced(descendants(v, kids), v, kids) for v in tops]))
    return out


def component_top(v, keep, parent):
    """The top vertex of v's component when the edges (w, parent[w]), w in keep, are kept."""
    while v in keep:
        v = parent[v]
    return v


def skeleton(c, skel_kids):
    """Key of the contracted tree below component c."""
    return N(*[skeleton(d, skel_kids) for d in skel_kids[c]])


def partition_terms(k):
    """All (skeleton key, [component keys]) of one labelled instance of ``k``: for every set of
    kept edges, the components of the forest and the tree of components (contracted tree)."""
    parent, kids = labelled(k)
    n = len(parent)
    edges = list(range(1, n))  # edge v = (v, parent[v])
    out = []
    for kept in itertools.product((False, True), repeat=len(edges)):
        keep = {v for v, kv in zip(edges, kept) if kv}
        top = {v: component_top(v, keep, parent) for v in range(n)}
        comps = sorted(set(top.values()))
        members = {c: {v for v in range(n) if top[v] == c} for c in comps}
        comp_key = {c: induced(members[c], c, kids) for c in comps}
        # skeleton: component c (top v != 0) hangs from the component of parent[v]
        skel_kids = {c: [] for c in comps}
        for c in comps:
            if c != 0:
                skel_kids[top[parent[c]]].append(c)
        out.append((skeleton(0, skel_kids), [comp_key[c] for c in comps]))
    return out


# ============================================================================ reference algebra
# a series is (empty, {key: sympy coefficient}) over all keys up to p


def exact_ref(p):
    return 1, {k: R(1, k_gamma(k)) for k in keys_up_to(p)}


def compose_ref(a, b, p):
    """The method "a then b" (a's empty coefficient 1)."""
    (_a0, ac), (b0, bc) = a, b
    out = {}
    for k in keys_up_to(p):
        s = 0
        for skel, comps in root_subtree_terms(k):
            term = b0 if skel is None else bc[skel]
            for c in comps:
                term = term * ac[c]
            s += term
        out[k] = sympy.expand(s)
    return b0, out


def substitute_ref(b, a, p):
    """CHV substitution b * a: method a applied to the field B(b)."""
    (_b0, bc), (a0, ac) = b, a
    out = {}
    for k in keys_up_to(p):
        s = 0
        for skel, comps in partition_terms(k):
            s += ac[skel] * math.prod((bc[c] for c in comps), start=sympy.Integer(1))
        out[k] = sympy.expand(s)
    return a0, out


def solve_substitution_ref(a, target, p):
    """The field b with substitute(b, a) == target, order by order (needs a(tau) != 0)."""
    (_a0, ac), (_t0, tc) = a, target
    bc = {}
    leaf = N()
    for k in keys_up_to(p):
        rest = 0
        for skel, comps in partition_terms(k):
            if len(comps) == 1:  # every edge kept: a(tau) b(k)
                continue
            rest += ac[skel] * math.prod((bc[c] for c in comps), start=sympy.Integer(1))
        bc[k] = sympy.simplify((tc[k] - rest) / ac[leaf])
    return 0, bc


def logarithm_ref(a, p):
    return solve_substitution_ref(exact_ref(p), a, p)


def modifying_ref(a, p):
    return solve_substitution_ref(a, exact_ref(p), p)


def inverse_ref(a, p):
    """c with compose(a, c) == identity."""
    _a0, ac = a
    cc = {}
    for k in keys_up_to(p):
        rest = 0
        for skel, comps in root_subtree_terms(k):
            if skel == k:  # S = every vertex: c(k) itself
                continue
            term = 1 if skel is None else cc[skel]
            for c in comps:
                term = term * ac[c]
            rest += term
        cc[k] = sympy.expand(-rest)
    return 1, cc


def adjoint_ref(a, p):
    _c0, cc = inverse_ref(a, p)
    return 1, {k: (-1) ** k_order(k) * v for k, v in cc.items()}


def weights_ref(A, b, p):
    """Elementary weights Phi(t) of a tableau (written here: g_i(t) = prod_u (A g(u))_i)."""
    s = len(b)
    A = [[sympy.sympify(x) for x in row] for row in A]
    b = [sympy.sympify(x) for x in b]

    @cache
    def g(k):
        v = [sympy.Integer(1)] * s
        for c in k:
            gc = g(c)
            v = [v[i] * sum(A[i][j] * gc[j] for j in range(s)) for i in range(s)]
        return tuple(v)

    return 1, {k: sympy.expand(sum(b[i] * g(k)[i] for i in range(s))) for k in keys_up_to(p)}


def series_ref(coeffs, p, empty=0):
    """A reference series from {key: value}, zero elsewhere."""
    return empty, {k: sympy.sympify(coeffs.get(k, 0)) for k in keys_up_to(p)}


def assert_matches(series, ref, p, what=""):
    """Coefficientwise exact comparison of a library series with a reference one."""
    empty, coeffs = ref
    assert series.order == p, (what, series.order, p)
    assert sympy.simplify(sympy.sympify(series.empty) - empty) == 0, (what, series.empty, empty)
    for k in keys_up_to(p):
        got = series[T(k)]
        assert isinstance(got, sympy.Basic), (what, type(got))
        diff = sympy.expand(got - coeffs[k])
        if diff != 0:  # rational functions (a parameter) and radicals: bring to a normal form
            diff = sympy.simplify(sympy.cancel(sympy.together(diff)))
        assert diff == 0, f"{what}: tree {T(k)}: got {got}, expected {coeffs[k]}"


def lib(ref, p, **kw):
    """The library series with the reference coefficients (a BSeries built from a mapping)."""
    empty, coeffs = ref
    return BSeries({T(k): v for k, v in coeffs.items()}, p, empty=empty, **kw)


# tableaux (entries written here, from HLW II.1 / III.1 and Butcher's book)
EULER = ([[0]], [1])
IMPLICIT_EULER = ([[1]], [1])
MIDPOINT = ([[0, 0], [R(1, 2), 0]], [0, 1])            # explicit midpoint (Runge's method)
HEUN = ([[0, 0], [1, 0]], [R(1, 2), R(1, 2)])          # SSPRK(2,2)
SSPRK33 = ([[0, 0, 0], [1, 0, 0], [R(1, 4), R(1, 4), 0]], [R(1, 6), R(1, 6), R(2, 3)])
IMR = ([[R(1, 2)]], [1])                               # implicit midpoint rule
RK4 = ([[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]],
       [R(1, 6), R(1, 3), R(1, 3), R(1, 6)])


# ============================================================================ the reference algebra itself


def test_reference_algebra_reproduces_CHV_2007_formulas():
    """The reference composition and substitution give CHV 2007 eqs. (5) and (6) (as printed in
    BSeries.jl's tests) on symbolic coefficients up to order 3."""
    a0, a1, a2, a31, a32 = sympy.symbols("a0 a1 a2 a31 a32")
    b1, b2, b31, b32 = sympy.symbols("b1 b2 b31 b32")
    t1, t2, t31, t32 = N(), N(N()), N(N(), N()), N(N(N()))
    a = (a0, {t1: a1, t2: a2, t31: a31, t32: a32})
    b = (0, {t1: b1, t2: b2, t31: b31, t32: b32})
    # eq. (5): the series b (empty 0) followed by a: compose(b, a)
    _, c = compose_ref(b, a, 3)
    assert c[t1] == sympy.expand(a0 * b1 + a1)
    assert c[t2] == sympy.expand(a0 * b2 + a1 * b1 + a2)
    assert c[t31] == sympy.expand(a0 * b31 + a1 * b1 ** 2 + 2 * a2 * b1 + a31)
    assert c[t32] == sympy.expand(a0 * b32 + a1 * b2 + a2 * b1 + a32)
    # eq. (6): b * a
    _, s = substitute_ref(b, a, 3)
    assert s[t1] == a1 * b1
    assert s[t2] == sympy.expand(a1 * b2 + a2 * b1 ** 2)
    assert s[t31] == sympy.expand(a1 * b31 + 2 * a2 * b1 * b2 + a31 * b1 ** 3)
    assert s[t32] == sympy.expand(a1 * b32 + 2 * a2 * b1 * b2 + a32 * b1 ** 3)


def test_level_sequences_and_tree_data():
    assert levels([1, 2, 2, 3]) == N(N(), N(N()))
    assert levels([1, 2, 3, 2, 3]) == N(N(N()), N(N()))
    for k in keys_up_to(6):
        t = T(k)
        assert (t.order, t.sigma, t.gamma) == (k_order(k), k_sigma(k), k_gamma(k))


# ============================================================================ tree counts


def test_tree_counts_through_the_series():
    """OEIS A000081: 1, 1, 2, 4, 9, 20, 48, 115, 286, 719 rooted trees of order 1..10."""
    e = exact_flow(10)
    counts = Counter(t.order for t in e.trees())
    assert [counts[n] for n in range(1, 11)] == [1, 1, 2, 4, 9, 20, 48, 115, 286, 719]
    assert len(e.items()) == 1205 == sum([1, 1, 2, 4, 9, 20, 48, 115, 286, 719])
    # bicoloured P-trees: 2 x OEIS A000151 = 2, 4, 14, 52, 214
    e2 = exact_flow(5, colours=2)
    counts2 = Counter(t.order for t in e2.trees())
    assert [counts2[n] for n in range(1, 6)] == [2, 4, 14, 52, 214]


# ============================================================================ exact flow, exponential, logarithm


def test_exact_flow_is_one_over_gamma_to_order_8():
    e = exact_flow(8)
    assert e.empty == 1 and e.order == 8
    for t in trees_up_to(8):
        assert e[t] == R(1, k_gamma(key(t))), t


def test_exact_flow_colours_2_is_one_over_gamma():
    e = exact_flow(4, colours=2)
    assert e.colours == 2
    for t in trees_up_to(4, colours=2):
        # gamma of a P-tree does not depend on the colours
        assert e[t] == R(1, t.order * math.prod(u.gamma for u in t.children)), t


def test_exponential_of_f_is_exact_flow_and_back():
    """exp(h f) is the exact flow: the field with b(tau) = 1 and 0 elsewhere."""
    f = BSeries({T(N()): 1}, 8, empty=0)
    assert_matches(exponential(f), exact_ref(8), 8, "exponential(f)")
    assert_matches(logarithm(exact_flow(8)), series_ref({N(): 1}, 8), 8, "logarithm(exact flow)")


# ============================================================================ Runge-Kutta series


def test_rk4_agrees_with_exact_flow_exactly_to_order_4():
    _, phi = weights_ref(*RK4, 5)
    s = runge_kutta(*RK4, 5)
    assert_matches(s, (1, phi), 5, "RK4")
    for t in trees_up_to(4):
        assert s[t] == R(1, t.gamma), t
    # order exactly 4: some order-5 tree fails, e.g. b^T c^4 = 1/3 * 2/16 + 1/6 = 5/24 != 1/5
    bad = [t for t in trees_up_to(5) if t.order == 5 and s[t] != R(1, t.gamma)]
    assert bad and T(N(L, L, L, L)) in bad
    assert s[T(N(L, L, L, L))] == R(5, 24)


def test_average_vector_field_and_kahan_series():
    """AVF: a(tau) = 1, a([t1..tm]) = a(t1)...a(tm)/(m+1) (CMOQ 2010); Kahan's method as the RK
    method y1 = y0 + h(-f(y0)/2 + 2 f((y0+y1)/2) - f(y1)/2)."""
    p = 5

    @cache
    def avf(k):
        return math.prod((avf(c) for c in k), start=sympy.Integer(1)) / (len(k) + 1)

    assert_matches(average_vector_field(p), (1, {k: avf(k) for k in keys_up_to(p)}), p, "AVF")
    A = [[0, 0, 0], [R(-1, 4), 1, R(-1, 4)], [R(-1, 2), 2, R(-1, 2)]]
    b = [R(-1, 2), 2, R(-1, 2)]
    assert_matches(kahan(p), weights_ref(A, b, p), p, "Kahan")


def test_butcher_effective_order_5_composition():
    """Butcher 1969 (BSeries.jl tutorial 'Composing B-series'): starting method b, main method a,
    finishing method c; b then a then c approximates the exact flow over 3h to order 5."""
    A_a = [[0] * 5, [R(1, 5), 0, 0, 0, 0], [0, R(2, 5), 0, 0, 0], [R(3, 16), 0, R(5, 16), 0, 0],
           [R(1, 4), 0, R(-5, 4), 2, 0]]
    b_a = [R(1, 6), 0, 0, R(2, 3), R(1, 6)]
    A_b = [[0] * 5, [R(1, 5), 0, 0, 0, 0], [0, R(2, 5), 0, 0, 0], [R(75, 64), R(-9, 4), R(117, 64), 0, 0],
           [R(-37, 36), R(7, 3), R(-3, 4), R(4, 9), 0]]
    b_b = [R(19, 144), 0, R(25, 48), R(2, 9), R(1, 8)]
    A_c = [[0] * 5, [R(1, 5), 0, 0, 0, 0], [0, R(2, 5), 0, 0, 0], [R(161, 192), R(-19, 12), R(287, 192), 0, 0],
           [R(-27, 28), R(19, 7), R(-291, 196), R(36, 49), 0]]
    b_c = [R(7, 48), 0, R(475, 1008), R(2, 7), R(7, 72)]
    p = 6
    sa, sb, sc = (runge_kutta(A, b, p) for A, b in ((A_a, b_a), (A_b, b_b), (A_c, b_c)))
    total = compose(compose(sb, sa), sc)
    assert total.order == p
    flow3 = {t: R(3 ** t.order, t.gamma) for t in trees_up_to(p)}
    assert all(total[t] == flow3[t] for t in trees_up_to(5))
    assert any(total[t] != flow3[t] for t in trees_up_to(6) if t.order == 6)
    # and a alone is of order 4 only
    assert any(sa[t] != R(1, t.gamma) for t in trees_up_to(5))
    # the reference composition agrees coefficientwise
    ref = compose_ref(compose_ref(weights_ref(A_b, b_b, p), weights_ref(A_a, b_a, p), p),
                      weights_ref(A_c, b_c, p), p)
    assert_matches(total, ref, p, "b then a then c")


def test_rk4_composed_with_itself_is_the_eight_stage_tableau():
    """BSeries.jl test 'Composing RK4 with itself': two RK4 steps of h/2 = the 8-stage tableau
    printed there; unnormalised, the coefficients are 2^|t| times the normalised ones."""
    p = 6
    s = runge_kutta(*RK4, p)
    two = compose(s, s)
    e = R(1, 12), R(1, 6), R(1, 6), R(1, 12)
    A8 = [[0] * 8, [R(1, 4)] + [0] * 7, [0, R(1, 4)] + [0] * 6, [0, 0, R(1, 2)] + [0] * 5,
          [*e, 0, 0, 0, 0], [*e, R(1, 4), 0, 0, 0], [*e, 0, R(1, 4), 0, 0], [*e, 0, 0, R(1, 2), 0]]
    b8 = [*e, *e]
    _, phi8 = weights_ref(A8, b8, p)
    for t in trees_up_to(p):
        assert two[t] == 2 ** t.order * phi8[key(t)], t


# ============================================================================ modified equations
# BSeries.jl test-suite, "modified_equation", values "tested with the Python package BSeries"

T1, T2 = levels([1]), levels([1, 2])
T31, T32 = levels([1, 2, 2]), levels([1, 2, 3])
T41, T42, T43, T44 = (levels(s) for s in ([1, 2, 2, 2], [1, 2, 2, 3], [1, 2, 3, 3], [1, 2, 3, 4]))
T51, T52, T53, T54, T55, T56, T57, T58, T59 = (levels(s) for s in (
    [1, 2, 2, 2, 2], [1, 2, 2, 2, 3], [1, 2, 2, 3, 3], [1, 2, 2, 3, 4], [1, 2, 3, 2, 3],
    [1, 2, 3, 3, 3], [1, 2, 3, 3, 4], [1, 2, 3, 4, 4], [1, 2, 3, 4, 5]))
ORDER5 = (T1, T2, T31, T32, T41, T42, T43, T44, T51, T52, T53, T54, T55, T56, T57, T58, T59)

MODIFIED = {
    "explicit midpoint": (MIDPOINT, (1, 0, R(-1, 12), R(-1, 6), 0, 0, R(1, 8), R(1, 8), R(7, 240),
                                     R(1, 40), R(3, 80), R(7, 240), R(1, 30), R(-7, 240), R(-1, 40),
                                     R(-19, 240), R(-1, 20))),
    # the floats of the published values, read as the rationals they print (0.0583333 = 7/120 ...)
    "Heun SSPRK(2,2)": (HEUN, (1, 0, R(1, 6), R(-1, 6), 0, R(-1, 8), 0, R(1, 8), R(-1, 30), R(-7, 120),
                               R(7, 120), R(1, 20), R(3, 40), R(1, 30), R(7, 120), R(-7, 120), R(-1, 20))),
    "SSPRK(3,3)": (SSPRK33, (1, 0, 0, 0, 0, R(-1, 24), R(1, 12), R(-1, 24), R(1, 120), R(-1, 60),
                             R(1, 60), R(1, 120), R(1, 30), R(-1, 120), R(-1, 40), R(-1, 60), R(1, 30))),
}

MODIFYING = {
    "explicit midpoint": (MIDPOINT, (1, 0, R(1, 12), R(1, 6), 0, 0, R(-1, 8), R(-1, 8), R(1, 80),
                                     R(1, 60), R(1, 240), R(1, 80), R(7, 240), R(9, 80), R(13, 120),
                                     R(13, 80), R(2, 15))),
    "Heun SSPRK(2,2)": (HEUN, (1, 0, R(-1, 6), R(1, 6), 0, R(1, 8), 0, R(-1, 8), R(1, 5), R(7, 120),
                               R(-7, 120), R(-2, 15), R(1, 120), R(-1, 5), R(-7, 120), R(7, 120), R(2, 15))),
    "SSPRK(3,3)": (SSPRK33, (1, 0, 0, 0, 0, R(1, 24), R(-1, 12), R(1, 24), R(-1, 120), R(1, 60),
                             R(-1, 60), R(-1, 120), R(-1, 30), R(1, 120), R(1, 40), R(1, 60), R(-1, 30))),
}


@pytest.mark.parametrize("name", sorted(MODIFIED))
def test_modified_equation_published_values(name):
    (A, b), values = MODIFIED[name]
    published = (0, dict(zip(ORDER5, values)))
    # the transcription is checked against the reference algebra first
    ref = logarithm_ref(weights_ref(A, b, 5), 5)
    assert ref == published, name
    assert_matches(modified_equation(runge_kutta(A, b, 5), 5), published, 5, name)


@pytest.mark.parametrize("name", sorted(MODIFYING))
def test_modifying_integrator_published_values(name):
    (A, b), values = MODIFYING[name]
    published = (0, dict(zip(ORDER5, values)))
    ref = modifying_ref(weights_ref(A, b, 5), 5)
    assert ref == published, name
    assert_matches(modifying_integrator(runge_kutta(A, b, 5), 5), published, 5, name)


def test_explicit_euler_modified_equation_HLW():
    """HLW IX.1: f~ = f - h/2 f'f + h^2 (1/12 f''(f,f) + 1/3 f'f'f) + ...; HLW coefficient =
    b(t)/sigma(t), so b([tau]) = -1/2, b([tau^2]) = 2/12 = 1/6, b([[tau]]) = 1/3."""
    m = modified_equation(runge_kutta(*EULER, 5), 5)
    assert m.empty == 0
    assert m[T(N())] == 1
    assert m[T(N(L))] == R(-1, 2)
    assert m[T(N(L, L))] == R(1, 6)
    assert m[T(N(N(L)))] == R(1, 3)
    assert_matches(m, logarithm_ref(weights_ref(*EULER, 5), 5), 5, "explicit Euler")


def test_implicit_midpoint_modified_equation_has_only_odd_powers():
    """HLW IX (symmetric methods): the modified field of the implicit midpoint rule has only even
    powers of h, i.e. b(t) = 0 for every tree of even order; and at h^2:
    f~ = f + h^2 (-1/24 f''(f,f) + 1/12 f'f'f)  ->  b([tau^2]) = -1/12, b([[tau]]) = 1/12."""
    p = 7
    m = modified_equation(runge_kutta(*IMR, p), p)
    assert m[T(N(L, L))] == R(-1, 12) and m[T(N(N(L)))] == R(1, 12)
    for t in trees_up_to(p):
        if t.order % 2 == 0:
            assert m[t] == 0, t
    assert any(m[t] != 0 for t in trees_up_to(5) if t.order == 5)
    assert_matches(m.truncate(5), logarithm_ref(weights_ref(*IMR, 5), 5), 5, "IMR")


def test_alpha_family_modified_equation():
    """BSeries.jl tutorial 'Symbolic computations': A = [0 0; 1/(2 alpha) 0], b = [1-alpha, alpha].
    By hand: Phi([tau^2]) = alpha/(4 alpha^2), Phi([[tau]]) = 0, so b([tau^2]) = 1/(4 alpha) - 1/3,
    b([[tau]]) = -1/6; alpha = 1 is the explicit midpoint rule, alpha = 1/2 Heun's method."""
    alpha = sympy.Symbol("alpha")
    A = [[0, 0], [1 / (2 * alpha), 0]]
    b = [1 - alpha, alpha]
    p = 4
    m = modified_equation(runge_kutta(A, b, p), p)
    assert sympy.simplify(m[T(N(L, L))] - (1 / (4 * alpha) - R(1, 3))) == 0
    assert m[T(N(N(L)))] == R(-1, 6)
    assert m[T(N(L))] == 0
    assert_matches(m, logarithm_ref(weights_ref(A, b, p), p), p, "alpha family")
    for value, (A0, b0) in ((1, MIDPOINT), (R(1, 2), HEUN)):
        ref = logarithm_ref(weights_ref(A0, b0, p), p)[1]
        for t in trees_up_to(p):
            assert sympy.simplify(m[t].subs(alpha, value) - ref[key(t)]) == 0, (value, t)


def test_avf_modified_equation_CMOQ_2010_example_1():
    """Celledoni-McLachlan-Owren-Quispel 2010, Example 1 (BSeries.jl test): the modified field
    of the AVF method, coefficients divided by sigma(t)."""
    by_sigma = {
        T1: 1, T2: 0, levels([1, 2, 3]): R(1, 12), levels([1, 2, 2]): 0,
        T41: 0, T42: 0, T43: 0, T44: 0,
        levels([1, 2, 3, 4, 5]): R(9, 720), levels([1, 2, 3, 4, 4]): R(4, 720),
        levels([1, 2, 3, 4, 3]): R(2, 720), levels([1, 2, 3, 4, 2]): R(-4, 720),
        levels([1, 2, 3, 3, 3]): R(-1, 720), levels([1, 2, 3, 3, 2]): R(-4, 720),
        levels([1, 2, 3, 2, 3]): R(2, 720), levels([1, 2, 3, 2, 2]): R(-1, 720),
        levels([1, 2, 2, 2, 2]): 0,
    }
    assert len(by_sigma) == 17
    m = modified_equation(average_vector_field(5), 5)
    for k, v in by_sigma.items():
        assert m[T(k)] / k_sigma(k) == v, T(k)


# ============================================================================ elementary differentials


def elementary_differential(k, fields, u):
    """F(t)(u) for a tree key (colour 0) and the field ``fields[0]`` (a list of sympy expressions
    in ``u``), or a P-tree key (colour, kids) and the parts ``fields[c]``."""
    if isinstance(k, tuple) and len(k) == 2 and isinstance(k[0], int):
        colour, kids = k
    else:
        colour, kids = 0, k
    f = list(fields[colour])
    if not kids:
        return f
    n = len(u)
    ws = [sympy.symbols(f"w{i}_0:{n}") for i in range(len(kids))]
    D = f
    for w in ws:
        D = [sum(sympy.diff(Di, u[j]) * w[j] for j in range(n)) for Di in D]
    subs = {}
    for w, c in zip(ws, kids):
        Fc = elementary_differential(c, fields, u)
        subs.update({w[j]: Fc[j] for j in range(n)})
    return [sympy.expand(Di.subs(subs, simultaneous=True)) for Di in D]


def modified_field(series, fields, u, h, colours=1):
    """h^{-1} sum_t h^|t|/sigma(t) b(t) F(t): the field a vector-field series stands for."""
    n = len(u)
    out = [0] * n
    for t in series.trees():
        c = series[t]
        if c == 0:
            continue
        F = elementary_differential(key(t), fields, u)
        out = [out[i] + h ** (t.order - 1) * c / t.sigma * F[i] for i in range(n)]
    return [sympy.expand(x) for x in out]


def test_implicit_midpoint_modifying_integrator_rigid_body_CHV_2007_eq_12():
    """CHV 2007 eq. (12) (BSeries.jl test): for the rigid body f = (alpha u2 u3, beta u3 u1,
    gamma u1 u2) the modifying integrator of the implicit midpoint rule is
    f~_i = f_i (1 + h^2 s3 + h^4 s5 + ...), s3 = -(alpha beta u3^2 + alpha gamma u2^2 + beta gamma u1^2)/12,
    s5 = 6/5 s3^2 + 1/60 alpha beta gamma (beta u1^2 u3^2 + gamma u2^2 u1^2 + alpha u3^2 u2^2).
    (At h^2 this is 1/24 f''(f,f) - 1/12 f'f'f, i.e. b([tau^2]) = 1/12, b([[tau]]) = -1/12.)"""
    al, be, ga, h = sympy.symbols("alpha beta gamma h")
    u = sympy.symbols("u1 u2 u3")
    u1, u2, u3 = u
    f = [al * u2 * u3, be * u3 * u1, ga * u1 * u2]
    mi = modifying_integrator(runge_kutta(*IMR, 5), 5)
    assert mi[T(N(L, L))] == R(1, 12) and mi[T(N(N(L)))] == R(-1, 12)
    ft = modified_field(mi, [f], u, h)
    s3 = -(al * be * u3 ** 2 + al * ga * u2 ** 2 + be * ga * u1 ** 2) / 12
    s5 = R(6, 5) * s3 ** 2 + R(1, 60) * al * be * ga * (be * u1 ** 2 * u3 ** 2 + ga * u2 ** 2 * u1 ** 2
                                                        + al * u3 ** 2 * u2 ** 2)
    for i in range(3):
        expected = sympy.expand(f[i] * (1 + h ** 2 * s3 + h ** 4 * s5))
        assert sympy.expand(ft[i] - expected) == 0, i


def test_explicit_euler_modified_equation_lotka_volterra():
    """HLW p. 340 / BSeries.jl test 'modified_equation with elementary differentials' (order 3)
    for p' = p (2 - q), q' = q (p - 1)."""
    p, q, dt = sympy.symbols("p q dt")
    f = [p * (2 - q), q * (p - 1)]
    m = modified_equation(runge_kutta(*EULER, 3), 3)
    got = modified_field(m, [f], (p, q), dt)
    reference = [
        -dt ** 2 * p * q * (2 - q) * (p - 1) / 6
        + dt ** 2 * (-p ** 2 * q * (2 - q) - p * q * (2 - q) * (p - 1) - p * q * (p - 1) ** 2
                     + p * (2 - q) ** 3) / 3
        - dt * (-p * q * (p - 1) + p * (2 - q) ** 2) / 2 + p * (2 - q),
        dt ** 2 * p * q * (2 - q) * (p - 1) / 6
        + dt ** 2 * (-p * q ** 2 * (p - 1) + p * q * (2 - q) ** 2 + p * q * (2 - q) * (p - 1)
                     + q * (p - 1) ** 3) / 3
        - dt * (p * q * (2 - q) + q * (p - 1) ** 2) / 2 + q * (p - 1),
    ]
    for g, r in zip(got, reference):
        assert sympy.expand(g - r) == 0


def test_symplectic_euler_modified_equation_lotka_volterra_HLW_IX_1_3():
    """HLW Example IX.1.3(b) (BSeries.jl test): symplectic Euler (p implicit, q explicit) on
    q' = q (p - 1), p' = p (2 - q) has the modified equation
    q' = q(p-1) - h/2 q (p^2 + pq - 4p + 1),  p' = -p(q-2) + h/2 p (q^2 + pq - 5q + 4).
    As a partitioned pair: colour 0 = q with (A, b) = (0, 1), colour 1 = p with (1, 1)."""
    from geomcheck.bseries import partitioned_runge_kutta
    from geomcheck.certify.tableaux import PartitionedTableau

    q, p, h = sympy.symbols("q p h")
    pair = PartitionedTableau([[0]], [1], [[1]], [1])
    m = modified_equation(partitioned_runge_kutta(pair, 2), 2)
    assert m.colours == 2
    fields = [[q * (p - 1), 0], [0, p * (2 - q)]]
    got = modified_field(m, fields, (q, p), h)
    reference = [q * (p - 1) - h / 2 * q * (p ** 2 + p * q - 4 * p + 1),
                 -p * (q - 2) + h / 2 * p * (q ** 2 + p * q - 5 * q + 4)]
    for g, r in zip(got, reference):
        assert sympy.expand(g - r) == 0


# ============================================================================ inverse and adjoint by hand


def test_inverse_and_adjoint_of_explicit_euler():
    """Explicit Euler: a(tau) = 1, a = 0 on larger trees; its inverse is the backward step, whose
    coefficients are (-1)^|t| (all trees), and the adjoint is implicit Euler (Phi = 1 on every tree)."""
    p = 5
    ee = runge_kutta(*EULER, p)
    inv = inverse(ee)
    for t in trees_up_to(p):
        assert inv[t] == (-1) ** t.order, t
    assert_matches(inv, inverse_ref(weights_ref(*EULER, p), p), p, "inverse(Euler)")
    ie = runge_kutta(*IMPLICIT_EULER, p)
    assert all(ie[t] == 1 for t in trees_up_to(p))
    assert_matches(compose(ee, inv), (1, {k: 0 for k in keys_up_to(p)}), p, "Euler then inverse")
    assert_matches(identity(p), (1, {k: 0 for k in keys_up_to(p)}), p, "identity")


def test_substitution_and_logarithm_match_reference_on_symbolic_series():
    """Generic symbolic coefficients up to order 4: the library's compose, substitute, inverse,
    logarithm and exponential equal the reference algebra's."""
    p = 4
    ks = keys_up_to(p)
    syms_a = sympy.symbols(f"a0:{len(ks)}")
    syms_b = sympy.symbols(f"b0:{len(ks)}")
    a = (1, dict(zip(ks, syms_a)))
    b = (1, dict(zip(ks, syms_b)))
    fb = (0, dict(zip(ks, syms_b)))
    A, B, FB = lib(a, p), lib(b, p), lib(fb, p)
    assert_matches(compose(A, B), compose_ref(a, b, p), p, "compose")
    # the second series need not be a method: a field evaluated at B(a, y) (empty 0), or 2 b
    assert_matches(compose(A, FB), compose_ref(a, fb, p), p, "compose with a field")
    twice = (2, {k: 2 * v for k, v in b[1].items()})
    assert_matches(compose(A, B + B), compose_ref(a, twice, p), p, "compose with 2 b")
    assert_matches(substitute(FB, A), substitute_ref(fb, a, p), p, "substitute")
    assert_matches(inverse(A), inverse_ref(a, p), p, "inverse")
    assert_matches(exponential(FB), substitute_ref(fb, exact_ref(p), p), p, "exponential")
    # logarithm / modifying integrator of a symbolic series: rational functions of a(tau)
    assert_matches(logarithm(A), logarithm_ref(a, p), p, "logarithm")
    assert_matches(modifying_integrator(A, p), modifying_ref(a, p), p, "modifying integrator")


# ============================================================================ closed forms on the linear problem


def chain(n):
    k = N()
    for _ in range(n - 1):
        k = N(k)
    return k


STABILITY = {
    # R(z) = 1 + sum_n Phi(chain_n) z^n: y1 = R(h lambda) y0 on y' = lambda y
    "explicit Euler": (EULER, lambda z: 1 + z),
    "implicit midpoint": (IMR, lambda z: (1 + z / 2) / (1 - z / 2)),
    "RK4": (RK4, lambda z: 1 + z + z ** 2 / 2 + z ** 3 / 6 + z ** 4 / 24),
}


@pytest.mark.parametrize("name", sorted(STABILITY))
def test_chain_coefficients_are_the_linear_problem(name):
    """On y' = lambda y only the chains [[..[tau]..]] contribute, F = lambda^n y: the modified
    equation is h lambda~ = log R(h lambda) and the modifying integrator w(z) solves R(w) = e^z.
    Explicit Euler: log(1+z) -> (-1)^(n-1)/n, w = e^z - 1 -> 1/n!; implicit midpoint:
    2 artanh(z/2), w = 2 tanh(z/2) (only odd powers); RK4: the Taylor series computed here."""
    p = 7
    (A, b), stability = STABILITY[name]
    z = sympy.Symbol("z")
    s = runge_kutta(A, b, p)
    assert sympy.expand(sum(s[T(chain(n))] * z ** n for n in range(1, p + 1)) + 1
                        - sympy.series(stability(z), z, 0, p + 1).removeO()) == 0
    log_r = sympy.series(sympy.log(stability(z)), z, 0, p + 1).removeO()
    m = modified_equation(s, p)
    for n in range(1, p + 1):
        assert m[T(chain(n))] == log_r.coeff(z, n), (name, n)
    # w(z) = sum c_n z^n with R(w(z)) = e^z, solved order by order here
    cs = sympy.symbols(f"c1:{p + 1}")
    w = sum(c * z ** (i + 1) for i, c in enumerate(cs))
    eq = sympy.expand(sympy.series(stability(w) - sympy.exp(z), z, 0, p + 1).removeO())
    sol = {}
    for n in range(1, p + 1):
        cn = sympy.solve(eq.coeff(z, n).subs(sol), cs[n - 1])
        assert len(cn) == 1
        sol[cs[n - 1]] = cn[0]
    mi = modifying_integrator(s, p)
    for n in range(1, p + 1):
        assert mi[T(chain(n))] == sol[cs[n - 1]], (name, n)
    if name == "explicit Euler":
        assert [m[T(chain(n))] for n in range(1, 6)] == [1, R(-1, 2), R(1, 3), R(-1, 4), R(1, 5)]
        assert [mi[T(chain(n))] for n in range(1, 6)] == [1, R(1, 2), R(1, 6), R(1, 24), R(1, 120)]
    if name == "implicit midpoint":
        assert [m[T(chain(n))] for n in range(1, 8)] == [1, 0, R(1, 12), 0, R(1, 80), 0, R(1, 448)]
        assert [mi[T(chain(n))] for n in range(1, 8)] == [1, 0, R(-1, 12), 0, R(1, 120), 0, R(-17, 20160)]


def test_tableau_objects_give_the_same_series():
    """series_of / runge_kutta / modified_equation accept a ButcherTableau: same published values."""
    from geomcheck.bseries import series_of
    from geomcheck.certify.tableaux import ButcherTableau

    (A, b), values = MODIFIED["explicit midpoint"]
    tab = ButcherTableau(A, b, name="explicit midpoint")
    published = (0, dict(zip(ORDER5, values)))
    assert_matches(modified_equation(tab, 5), published, 5, "modified_equation(tableau)")
    assert_matches(runge_kutta(tab, 5), weights_ref(A, b, 5), 5, "runge_kutta(tableau)")
    assert_matches(series_of(tab, 5), weights_ref(A, b, 5), 5, "series_of(tableau)")
    s = runge_kutta(A, b, 5)
    assert series_of(s, 5) == s and series_of(s, 3).order == 3
