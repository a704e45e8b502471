"""Structure checks of B-series and P-series (geomcheck.bseries.properties, .conjugate, .energy).

Reference facts (Hairer, Lubich, Wanner, *Geometric Numerical Integration*, HLW): Gauss methods
are symplectic and symmetric of order 2s; Radau IIA is neither symplectic nor symmetric;
Lobatto IIIA is symmetric and not symplectic; the trapezoidal rule is conjugate to the
implicit midpoint rule by half an explicit Euler step (HLW VI.8), hence conjugate-symplectic;
explicit and implicit Euler are not; the Stormer-Verlet pair is symplectic and symmetric
(HLW VI.3); the average vector field method preserves energy exactly (Quispel, McLaren 2008).

Independent verifications written here, not taken from the library:

* the classical symplecticity matrix ``M_ij = b_i a_ij + b_j a_ji - b_i b_j`` of random rational
  tableaux against the tree conditions (``(tau, tau)`` is ``sum M_ij``, ``(tau, [tau])`` is
  ``sum M_ij c_j``), and random symplectic (partitioned) tableaux built from ``M = 0``;
* the trapezoidal rule conjugated by an explicit Euler half step IS the implicit midpoint
  rule (composition of series), and the conjugating fields returned as a witness, turned into
  a map with ``exponential`` and ``compose``, make the method symplectic;
* the energy error of implicit methods on a cubic Hamiltonian, computed in mpmath at 50 digits,
  scales like ``h^(p+1)`` with the ``p`` the certificates claim (and AVF's vanishes).

The planted-bug runs (dropping ``a(u) a(v)``, swapping the signs of the energy classes,
using the wrong sign in the Lie bracket) each failed tests here; see the final report.
"""

from __future__ import annotations

import random

import mpmath
import pytest
import sympy
from sympy import Rational as R

from geomcheck.bseries import (
    BSeries,
    average_vector_field,
    compose,
    exact_flow,
    exponential,
    inverse,
    kahan,
    logarithm,
    partitioned_runge_kutta,
    runge_kutta,
)
from geomcheck.bseries.conjugate import is_conjugate_symplectic
from geomcheck.bseries.energy import energy_classes, is_energy_preserving
from geomcheck.bseries.properties import (
    is_hamiltonian,
    is_symmetric,
    is_symplectic,
    modified_equation_is_hamiltonian,
    order_of,
    symplecticity_pairs,
)
from geomcheck.bseries.tree_ops import butcher_product
from geomcheck.certify.tableaux import PartitionedTableau
from geomcheck.certify.tableaux import is_symplectic as tableau_is_symplectic
from geomcheck.certify.trees import trees_of_order
from geomcheck.errors import BSeriesError, InvalidArgumentError

TAU = trees_of_order(1)[0]
T2 = trees_of_order(2)[0]
BUSH3, TALL3 = trees_of_order(3)
R3 = sympy.sqrt(3)

GAUSS2 = ([[R(1, 4), R(1, 4) - R3 / 6], [R(1, 4) + R3 / 6, R(1, 4)]], [R(1, 2), R(1, 2)])
MIDPOINT = ([[R(1, 2)]], [1])
RADAU_IIA2 = ([[R(5, 12), R(-1, 12)], [R(3, 4), R(1, 4)]], [R(3, 4), R(1, 4)])
TRAPEZOIDAL = ([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)])          # = Lobatto IIIA, s = 2
LOBATTO_IIIA3 = ([[0, 0, 0], [R(5, 24), R(1, 3), R(-1, 24)], [R(1, 6), R(2, 3), R(1, 6)]],
                 [R(1, 6), R(2, 3), R(1, 6)])
LOBATTO_IIIB2 = ([[R(1, 2), 0], [R(1, 2), 0]], [R(1, 2), R(1, 2)])
LOBATTO_IIIB3 = ([[R(1, 6), R(-1, 6), 0], [R(1, 6), R(1, 3), 0], [R(1, 6), R(5, 6), 0]],
                 [R(1, 6), R(2, 3), R(1, 6)])
EXPLICIT_EULER = ([[0]], [1])
IMPLICIT_EULER = ([[1]], [1])
EXPLICIT_MIDPOINT = ([[0, 0], [R(1, 2), 0]], [0, 1])
#: Stormer-Verlet: Lobatto IIIA on q (colour 0), Lobatto IIIB on p (colour 1)
VERLET = ([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)], [[R(1, 2), 0], [R(1, 2), 0]], [R(1, 2), R(1, 2)])
SYMPLECTIC_EULER = ([[1]], [1], [[0]], [1])


def rk(tab, p, name=None):
    return runge_kutta(tab[0], tab[1], order=p, name=name)


# ============================================================================ literature facts


def test_gauss2_symplectic_symmetric_order_4_and_energy_only_to_its_order():
    g = rk(GAUSS2, 6, "Gauss s=2")
    assert is_symplectic(g, 6).holds is True
    assert is_symmetric(g, 6).holds is True
    c = order_of(g)
    assert (c.order, c.failing_tree.order, c.holds) == (4, 5, True)
    assert is_energy_preserving(g, 4).holds is True
    bad = is_energy_preserving(g, 5)
    assert bad.holds is False and bad.counterexample["trees"][0].order == 5
    assert is_conjugate_symplectic(g, 6).holds is True


def test_implicit_midpoint_energy_to_order_2_only_names_the_bush():
    m = rk(MIDPOINT, 8, "implicit midpoint")
    assert is_symplectic(m, 8).holds is True and is_symmetric(m, 8).holds is True
    assert modified_equation_is_hamiltonian(m, 8).holds is True
    assert is_energy_preserving(m, 2).holds is True
    c = is_energy_preserving(m, 3)
    # the modified field is f + h^2 (-1/24 f''(f,f) + 1/12 f'f'f) + ...: b([tau^2]) = -1/12, sigma = 2
    assert c.holds is False and c.counterexample["trees"] == (BUSH3,) and c.counterexample["residual"] == R(-1, 24)
    assert r"[\tau^{2}]" in c.latex()


def test_radau_iia_neither_symplectic_nor_symmetric():
    r = rk(RADAU_IIA2, 5, "Radau IIA s=2")
    assert order_of(r).order == 3
    assert is_symplectic(r, 5).holds is False
    assert is_symmetric(r, 5).holds is False
    assert is_conjugate_symplectic(r, 5).holds is False


def test_trapezoidal_rule_conjugate_symplectic_to_order_10_quickly():
    import time

    trap = rk(TRAPEZOIDAL, 10, "trapezoidal rule")
    assert is_symmetric(trap, 10).holds is True
    c = is_symplectic(trap, 10)
    assert c.holds is False and c.counterexample["pair"] == (TAU, T2)
    start = time.perf_counter()
    cc = is_conjugate_symplectic(trap, 10)
    assert cc.holds is True and cc.stage == "exact"
    assert time.perf_counter() - start < 10
    assert len(cc.witness) == 8 and all(w.is_vector_field for w in cc.witness)     # c_2 ... c_9
    assert is_energy_preserving(trap, 2).holds is True
    e = is_energy_preserving(trap, 3)
    assert e.holds is False and e.counterexample["trees"] == (BUSH3,)


def test_trapezoidal_conjugated_by_half_explicit_euler_is_the_midpoint_rule():
    """Independent proof: chi = y + h/2 f(y) has a(tau) = 1/2 and nothing else; trap = IE(h/2) o E(h/2)
    and midpoint = E(h/2) o IE(h/2), so chi o trap o chi^-1 is the midpoint rule, a symplectic method."""
    p = 8
    trap, mid = rk(TRAPEZOIDAL, p), rk(MIDPOINT, p)
    chi = BSeries({TAU: R(1, 2)}, p)
    assert compose(compose(inverse(chi), trap), chi) == mid     # chi^-1 first, then trap, then chi
    assert is_symplectic(mid, p).holds is True and is_symplectic(trap, p).holds is False


TWISTED_MIDPOINT = "midpoint conjugated by an explicit RK map"


@pytest.mark.parametrize("tab, p", [(TRAPEZOIDAL, 6), (LOBATTO_IIIA3, 6), (TWISTED_MIDPOINT, 6)])
def test_the_witness_conjugates_the_method_to_a_symplectic_one(tab, p):
    """The fields c_2, c_3, ... of the certificate, turned into maps (exponential) and composed as
    documented (chi = exp(c_2) o exp(c_3) o ..., the last applied first), make chi^-1 o Phi o chi
    symplectic: checked with is_symplectic on the composed series, not with the library's Lie algebra."""
    if tab == TWISTED_MIDPOINT:
        map_ = runge_kutta([[0, 0], [R(2, 3), 0]], [R(1, 5), R(-3, 7)], order=p)
        phi = compose(compose(map_, rk(MIDPOINT, p)), inverse(map_))
    else:
        phi = rk(tab, p)
    cert = is_conjugate_symplectic(phi, p)
    assert cert.holds is True
    chi = None
    for c in cert.witness:                              # chi = exp(c_2) o ... o exp(c_k): exp(c_k) applied first
        step = exponential(c)
        chi = step if chi is None else compose(step, chi)
    conjugated = compose(compose(chi, phi), inverse(chi))
    assert is_symplectic(conjugated, p).holds is True
    assert is_symplectic(phi, p).holds is False


def _hand_weight(A, b, t):
    """Phi(t) from the stage vectors, written here: g(leaf) = e, g([t1..tm]) = prod_k A g(t_k)."""
    s = len(b)

    def g(u):
        v = [sympy.Integer(1)] * s
        for child in u.children:
            gc = g(child)
            v = [x * sum(A[i][j] * gc[j] for j in range(s)) for i, x in enumerate(v)]
        return v

    return sum(bi * gi for bi, gi in zip(b, g(t)))


def test_lobatto_third_order_members_conjugate_symplectic_only_to_a_finite_order():
    """Lobatto IIIB (s = 2) reduces to the midpoint rule (its two stages coincide): symplectic. The
    s = 3 members are conjugate-symplectic up to order 6 (IIIA) and 4 (IIIB) only: the certificate
    names a combination of the Hamiltonian conditions that no conjugation changes."""
    assert rk(LOBATTO_IIIB2, 8) == rk(MIDPOINT, 8) and is_symplectic(rk(LOBATTO_IIIB2, 8), 8).holds is True
    a3 = rk(LOBATTO_IIIA3, 7)
    assert is_symmetric(a3, 7).holds is True and is_symplectic(a3, 7).holds is False
    assert is_conjugate_symplectic(a3, 6).holds is True
    c = is_conjugate_symplectic(a3, 7)
    assert c.holds is False and c.counterexample["degree"] == 7 and c.counterexample["residual"] == R(-1, 13824)
    b3 = rk(LOBATTO_IIIB3, 5)
    assert is_conjugate_symplectic(b3, 4).holds is True
    c = is_conjugate_symplectic(b3, 5)
    assert c.holds is False and c.counterexample["degree"] == 5 and c.counterexample["residual"] == R(1, 288)
    combination = c.counterexample["combination"]
    assert {(str(u), str(v)): x for (u, v), x in combination.items()} == {
        ("τ", "[τ³]"): R(1, 2), ("τ", "[τ[τ]]"): -1, ("[τ]", "[τ²]"): R(-1, 2), ("[τ]", "[[τ]]"): 1}

    def obstruction(coefficient):
        return sum(x * (coefficient(butcher_product(u, v)) + coefficient(butcher_product(v, u)))
                   for (u, v), x in combination.items())

    # order 4: the modified field at degree 5 is the local error a(t) - 1/gamma(t); from weights written here
    for tab, value in ((LOBATTO_IIIB3, R(1, 288)), (LOBATTO_IIIA3, 0)):
        assert obstruction(lambda t, tab=tab: _hand_weight(*tab, t) - R(1, t.gamma)) == value
    # the combination does not change under a conjugation of degree 4 (random coefficients) ...
    rng = random.Random(5)
    chi = BSeries({t: R(rng.randint(-5, 5), rng.randint(1, 4)) for t in trees_of_order(4)}, 5)
    twisted = logarithm(compose(compose(chi, b3), inverse(chi)))
    assert twisted != logarithm(b3) and obstruction(lambda t: twisted[t]) == R(1, 288)
    # ... and the verdict not under a general B-series map
    general = runge_kutta([[0, 0], [R(1, 3), 0]], [R(2, 5), R(1, 7)], order=5)
    assert is_conjugate_symplectic(compose(compose(general, b3), inverse(general)), 5).counterexample["degree"] == 5


@pytest.mark.parametrize("tab, degree", [(EXPLICIT_EULER, 2), (IMPLICIT_EULER, 2), (EXPLICIT_MIDPOINT, 4)])
def test_not_conjugate_symplectic_names_the_obstruction(tab, degree):
    phi = rk(tab, 6)
    c = is_conjugate_symplectic(phi, 6)
    assert c.holds is False and c.counterexample["degree"] == degree and c.counterexample["residual"] != 0
    assert is_conjugate_symplectic(phi, degree - 1).holds is True


def test_euler_obstruction_is_the_first_condition_itself():
    c = is_conjugate_symplectic(rk(EXPLICIT_EULER, 3), 3)
    # omega(tau, tau) = 2 b([tau]) with b([tau]) = -1/2 for explicit Euler; no conjugation changes degree 2
    assert c.counterexample["combination"] == {(TAU, TAU): 1} and c.counterexample["residual"] == -1
    assert is_symmetric(rk(EXPLICIT_EULER, 3), 3).holds is False


def test_avf_energy_preserving_to_order_8_not_symplectic():
    avf = average_vector_field(8)
    assert is_energy_preserving(avf, 8).holds is True
    assert order_of(avf).order == 2
    assert is_symmetric(avf, 8).holds is True
    assert is_symplectic(avf, 4).holds is False
    # an energy-preserving B-series method other than the flow is not symplectic (Chartier, Faou, Murua 2006)
    assert modified_equation_is_hamiltonian(avf, 4).holds is False
    # conjugate-symplectic up to order 4 only
    assert is_conjugate_symplectic(avf, 4).holds is True
    c = is_conjugate_symplectic(avf, 5)
    assert c.holds is False and c.counterexample["degree"] == 5 and c.counterexample["residual"] == R(-1, 180)


def test_kahan_as_a_runge_kutta_method_is_not_energy_preserving_for_all_fields():
    # the series is the RK method that equals Kahan's method on quadratic fields; on general fields it
    # is a second-order symmetric method whose energy error has an h^3 term
    k = kahan(4)
    assert order_of(k).order == 2
    assert is_energy_preserving(k, 2).holds is True and is_energy_preserving(k, 3).holds is False


def test_stormer_verlet_p_series_symplectic_and_symmetric():
    v = partitioned_runge_kutta(VERLET, 5)
    assert v.colours == 2
    assert order_of(v).order == 2
    assert is_symplectic(v, 5).holds is True
    assert is_symmetric(v, 5).holds is True
    assert modified_equation_is_hamiltonian(v, 5).holds is True
    se = partitioned_runge_kutta(SYMPLECTIC_EULER, 4)
    assert is_symplectic(se, 4).holds is True and is_symmetric(se, 4).holds is False
    # both parts explicit Euler: not symplectic, and the first failing condition is named
    ee = partitioned_runge_kutta(([[0]], [1], [[0]], [1]), 3)
    c = is_symplectic(ee, 3)
    assert c.holds is False and c.counterexample["residual"] != 0


def test_p_series_root_colour_condition():
    # b1 != b2 (weights differ by colour): the root-colour condition of the one-vertex trees fails
    pair = partitioned_runge_kutta(([[R(1, 2)]], [1], [[R(1, 2)]], [2]), 3)
    c = is_symplectic(pair, 3)
    assert c.holds is False and "root colour" in c.counterexample
    assert c.counterexample["residual"] == -1


# ============================================================================ independent checks


def _random_tableau(rng, s, symplectic):
    def q():
        return R(rng.randint(-6, 6), rng.randint(1, 5))

    b = [q() or R(1, 3) for _ in range(s)]
    A = [[q() for _ in range(s)] for _ in range(s)]
    if symplectic:             # M = 0: a_ji = b_i (b_j - a_ij) / b_j for j > i, a_ii = b_i / 2
        for i in range(s):
            A[i][i] = b[i] / 2
            for j in range(i + 1, s):
                A[j][i] = b[i] * (b[j] - A[i][j]) / b[j]
    return A, b


def test_tree_conditions_against_the_classical_matrix_on_random_tableaux():
    rng = random.Random(19)
    for _ in range(6):
        A, b = _random_tableau(rng, 2, symplectic=False)
        M = [[b[i] * A[i][j] + b[j] * A[j][i] - b[i] * b[j] for j in range(2)] for i in range(2)]
        c = [sum(row) for row in A]
        cert = is_symplectic(runge_kutta(A, b, order=3), 3)
        res = cert.residual
        assert res["the pair u = t, v = t"] == sympy.nsimplify(sum(M[i][j] for i in range(2) for j in range(2)))
        assert res["the pair u = t, v = [t]"] == sum(M[i][j] * c[j] for i in range(2) for j in range(2))
    for s in (2, 3):
        for _ in range(3):
            A, b = _random_tableau(rng, s, symplectic=True)
            assert is_symplectic(runge_kutta(A, b, order=6), 6).holds is True


def test_random_partitioned_pairs_agree_with_the_tableau_criterion():
    rng = random.Random(7)
    for symplectic in (True, False, True, False):
        s = 2
        b = [R(rng.randint(1, 6), rng.randint(1, 5)) for _ in range(s)]
        A2 = [[R(rng.randint(-5, 5), rng.randint(1, 4)) for _ in range(s)] for _ in range(s)]
        # b_i A2_ij + b_j A1_ji = b_i b_j (HLW Thm VI.4.6)
        A1 = [[b[i] * (b[j] - A2[i][j]) / b[j] for i in range(s)] for j in range(s)]
        if not symplectic:
            A1[0][1] += R(1, 7)
        pair = PartitionedTableau(A1, b, A2, b)
        series = partitioned_runge_kutta((A1, b, A2, b), 4)
        assert is_symplectic(series, 4).holds is symplectic
        assert tableau_is_symplectic(pair).holds is symplectic


def test_symplectic_and_hamiltonian_modified_field_fail_at_the_same_degree():
    rng = random.Random(3)
    for _ in range(4):
        A, b = _random_tableau(rng, 2, symplectic=False)
        a = runge_kutta(A, b, order=5)
        c1, c2 = is_symplectic(a, 5), modified_equation_is_hamiltonian(a, 5)
        assert c1.holds is c2.holds is False
        deg = [sum(t.order for t in c.counterexample["pair"]) for c in (c1, c2)]
        assert deg[0] == deg[1]


def test_reducible_midpoint_is_symplectic_although_its_matrix_is_not_zero():
    A, b = [[R(1, 4), R(1, 4)], [R(1, 4), R(1, 4)]], [R(1, 4), R(3, 4)]   # both stages solve one equation
    assert b[0] * A[0][0] * 2 - b[0] ** 2 != 0                          # M_11 != 0
    red = runge_kutta(A, b, order=7)
    assert red == rk(MIDPOINT, 7)
    assert is_symplectic(red, 7).holds is True and is_symmetric(red, 7).holds is True


def test_near_miss_series_fails_only_at_the_perturbed_tree():
    g = rk(GAUSS2, 7)
    t7 = trees_of_order(7)[30]
    coeffs = {t: c for t, c in g.items()}
    coeffs[t7] = coeffs[t7] + R(1, 1000)
    near = BSeries(coeffs, 7, name="perturbed Gauss")
    assert is_symplectic(near, 6).holds is True
    c = is_symplectic(near, 7)
    assert c.holds is False and t7 in c.counterexample["trees"] and c.counterexample["residual"] == R(1, 1000)
    assert is_conjugate_symplectic(near, 6).holds is True


def test_conjugating_a_symplectic_method_keeps_it_conjugate_symplectic():
    p = 7
    g = rk(MIDPOINT, p)
    chi = runge_kutta([[0, 0], [R(2, 3), 0]], [R(1, 5), R(-3, 7)], order=p)      # any B-series map
    phi = compose(compose(chi, g), inverse(chi))
    assert is_symplectic(phi, p).holds is False
    assert is_conjugate_symplectic(phi, p).holds is True
    # and a method that is not conjugate-symplectic stays so, failing at the same degree
    em = rk(EXPLICIT_MIDPOINT, 5)
    twisted = compose(compose(chi.truncate(5), em), inverse(chi.truncate(5)))
    assert is_conjugate_symplectic(twisted, 5).counterexample["degree"] == 4


def test_energy_classes_of_five_vertex_free_trees():
    # free trees with 5 vertices: the path (from [[[tau]]]), the chair ([tau[tau]] and [[tau^2]], at
    # distance 3 from each other: opposite signs) and the star ([tau^3])
    classes = {tuple(str(t) for t, _s in cls): [s for _t, s in cls] for cls in energy_classes(4)
               if cls[0][0].order == 4}
    assert classes == {("[τ³]",): [1], ("[τ[τ]]", "[[τ²]]"): [1, -1], ("[[[τ]]]",): [1]}
    # the path with 4 vertices is superfluous (u o u with u = [tau]): [[tau]] carries no condition
    assert all(TALL3 not in [t for t, _s in cls] for cls in energy_classes(3))


def _rk_step(A, b, h, y0, f, iterations=200):
    s = len(b)
    K = [f(y0) for _ in range(s)]
    for _ in range(iterations):
        K = [f([y0[k] + h * sum(A[i][j] * K[j][k] for j in range(s)) for k in range(2)]) for i in range(s)]
    return [y0[k] + h * sum(b[i] * K[i][k] for i in range(s)) for k in range(2)]


def _avf_step(h, y0, f, iterations=200):
    nodes = [(mpmath.mpf(1) / 2 - mpmath.sqrt(mpmath.mpf(3) / 5) / 2, mpmath.mpf(5) / 18),
             (mpmath.mpf(1) / 2, mpmath.mpf(8) / 18),
             (mpmath.mpf(1) / 2 + mpmath.sqrt(mpmath.mpf(3) / 5) / 2, mpmath.mpf(5) / 18)]
    y1 = list(y0)
    for _ in range(iterations):       # Gauss-Legendre with 3 nodes integrates the quadratic f exactly
        avg = [sum(w * f([(1 - s) * y0[k] + s * y1[k] for k in range(2)])[c] for s, w in nodes) for c in range(2)]
        y1 = [y0[k] + h * avg[k] for k in range(2)]
    return y1


def test_energy_error_scaling_matches_the_certified_order():
    """H = p^2/2 + q^2/2 + q^3/3: one step from (q, p) = (0.3, 0.2); the energy error ratio for h and
    h/2 is about 2^(p+1), p the largest order with is_energy_preserving True (False at p + 1)."""
    mpmath.mp.dps = 50
    try:
        def H(y):
            q, p = y
            return p ** 2 / 2 + q ** 2 / 2 + q ** 3 / 3

        def f(y):
            q, p = y
            return [p, -(q + q ** 2)]

        y0 = [mpmath.mpf(3) / 10, mpmath.mpf(2) / 10]
        h = mpmath.mpf(1) / 100
        for tab, name in ((MIDPOINT, "midpoint"), (TRAPEZOIDAL, "trapezoidal"), (GAUSS2, "gauss2")):
            series = rk(tab, 6)
            p = max(k for k in range(1, 6) if is_energy_preserving(series, k).holds is True)
            assert is_energy_preserving(series, p + 1).holds is False
            A = [[mpmath.mpf(sympy.N(x, 60)) for x in row] for row in tab[0]]
            b = [mpmath.mpf(sympy.N(x, 60)) for x in tab[1]]
            e1 = abs(H(_rk_step(A, b, h, y0, f)) - H(y0))
            e2 = abs(H(_rk_step(A, b, h / 2, y0, f)) - H(y0))
            ratio = e1 / e2
            assert abs(ratio / 2 ** (p + 1) - 1) < 0.1, (name, p, ratio)
        assert abs(H(_avf_step(h, y0, f)) - H(y0)) < mpmath.mpf(10) ** -40
    finally:
        mpmath.mp.dps = 15


# ============================================================================ families, inputs, errors


def test_theta_family_is_not_symplectic_identically_and_the_residual_locates_the_member():
    """A free parameter: the claim is "for every theta"; it fails (False) with a residual that is a
    nonzero rational function of theta, vanishing at theta = 1/2 only (the midpoint rule)."""
    theta = sympy.Symbol("theta")
    fam = runge_kutta([[theta]], [1], order=4, name="theta method")
    c = is_symplectic(fam, 4)
    assert c.holds is False and c.stage == "exact"
    assert sympy.solve(c.counterexample["residual"], theta) == [R(1, 2)]
    s = is_symmetric(fam, 4)
    assert s.holds is False and sympy.solve(s.counterexample["residual"], theta) == [R(1, 2)]
    member = runge_kutta([[R(1, 2)]], [1], order=4)
    assert is_symplectic(member, 4).holds is True


def test_truncation_and_bad_orders_are_refused_with_a_clear_error():
    s = rk(MIDPOINT, 4)
    for check in (is_symplectic, is_symmetric, is_conjugate_symplectic, is_energy_preserving):
        with pytest.raises(InvalidArgumentError, match="known only up to order 4"):
            check(s, 5)
        for bad in (0, -1, True, "3", 2.0):
            with pytest.raises(InvalidArgumentError, match="order p must be an integer"):
                check(s, bad)
    with pytest.raises(InvalidArgumentError, match="known only up to order 4"):
        order_of(s, 6)


def test_methods_and_fields_are_not_confused():
    field = logarithm(rk(MIDPOINT, 4))
    with pytest.raises(BSeriesError, match="is_hamiltonian"):
        is_symplectic(field, 4)
    with pytest.raises(BSeriesError, match="modified_equation_is_hamiltonian"):
        is_hamiltonian(rk(MIDPOINT, 4), 4)
    assert is_hamiltonian(field, 4).holds is True
    # a vector field series is checked for energy preservation as it is (exact field f: b = tau only)
    assert is_energy_preserving(logarithm(exact_flow(5)), 5).holds is True
    # a P-series is a method too: Stormer-Verlet is conjugate-symplectic (chi = id)
    assert is_conjugate_symplectic(partitioned_runge_kutta(VERLET, 3), 3).holds is True


def test_tableau_inputs_are_accepted():
    from geomcheck.certify.tableaux import ButcherTableau

    T = ButcherTableau(*MIDPOINT, name="midpoint")
    assert is_symplectic(T, 5).holds is True
    assert order_of(T, 4).order == 2


def test_certificates_typeset_the_trees_and_name_the_theorem():
    c = is_symplectic(rk(TRAPEZOIDAL, 4), 4)
    tex = c.latex()
    assert r"[\tau]" in tex and "VI.7.6" in tex and "fails" in tex
    assert "VI.7" in is_symplectic(partitioned_runge_kutta(VERLET, 3), 3).latex()
    assert "Faou" in is_energy_preserving(rk(MIDPOINT, 3), 3).latex()
    assert "with at most 4" in c.claim
    assert len(symplecticity_pairs(4)) == 3      # (tau, [tau^2]), (tau, [[tau]]), ([tau], [tau])
    assert butcher_product(TAU, T2) == TALL3


def test_parametric_families_for_conjugate_symplecticity():
    theta = sympy.Symbol("theta")
    c = is_conjugate_symplectic(runge_kutta([[theta]], [1], order=4), 4)
    # omega(tau, tau) = 2 b([tau]) = 2 theta - 1: not for every theta; only theta = 1/2 is a candidate
    assert c.holds is False and c.counterexample["degree"] == 2
    assert sympy.solve(c.counterexample["residual"], theta) == [R(1, 2)]
    alpha = sympy.Symbol("alpha")
    scaled_euler = BSeries({TAU: alpha}, 3, name="Euler with step alpha h")
    u = is_conjugate_symplectic(scaled_euler, 3)
    assert u.holds is None and "parameters" in u.method          # a(tau) = alpha: never a wrong verdict


def test_certificates_survive_json():
    from geomcheck.certify.certificate import Certificate

    for cert in (is_conjugate_symplectic(rk(EXPLICIT_MIDPOINT, 5), 5), is_energy_preserving(rk(MIDPOINT, 3), 3),
                 is_symplectic(partitioned_runge_kutta(VERLET, 3), 3), order_of(rk(RADAU_IIA2, 4))):
        back = Certificate.from_json(cert.to_json())
        assert (back.holds, back.stage, back.claim) == (cert.holds, cert.stage, cert.claim)


def test_helpers_validate_their_arguments():
    for bad in (0, True, "2"):
        with pytest.raises(InvalidArgumentError):
            symplecticity_pairs(bad)
        with pytest.raises(InvalidArgumentError):
            energy_classes(bad)
    with pytest.raises(InvalidArgumentError, match="colours"):
        symplecticity_pairs(3, colours=3)
    with pytest.raises(InvalidArgumentError, match="beyond"):
        symplecticity_pairs(20)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_conjugations_that_keep_degree_n_hamiltonian_are_hamiltonian(n):
    """The lemma behind a False verdict, checked independently with compose/inverse/logarithm and
    sympy's nullspace: conjugating the exact flow by chi = id + c (c on the trees of degree n - 1)
    changes the modified field at degree n by [c, tau]; every c for which that change satisfies the
    degree-n Hamiltonian conditions is itself a Hamiltonian field (so earlier choices in the
    construction differ only by symplectic maps)."""
    p = n
    flow = exact_flow(p)
    cols = trees_of_order(n - 1)
    pairs = [(u, v) for _k, u, v in symplecticity_pairs(n)]
    matrix = []
    for s in cols:
        chi = BSeries({s: 1}, p)
        change = logarithm(compose(compose(chi, flow), inverse(chi)))      # tau + [c, tau] at degree n
        matrix.append([change[butcher_product(u, v)] + change[butcher_product(v, u)] for u, v in pairs])
    kernel = sympy.Matrix(matrix).T.nullspace()
    lower = [(u, v) for _k, u, v in symplecticity_pairs(n - 1)]
    for vec in kernel:
        c = dict(zip(cols, vec))
        assert all(c.get(butcher_product(u, v), 0) + c.get(butcher_product(v, u), 0) == 0 for u, v in lower)
    assert n != 3 or kernel == []          # degree 3: [c, tau] with c = [tau] is never Hamiltonian
