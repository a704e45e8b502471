"""Structure checks of P-series (partitioned methods): conjugate symplecticity and effective order.

``geomcheck.bseries.conjugate.is_conjugate_symplectic`` and
``geomcheck.bseries.effective_order.effective_order`` on bicoloured trees (colour 0 = q, colour 1 = p).

Truth established independently of the code under test:

* symplectic pairs from the classical condition ``b_i Ahat_ij + bhat_j A_ji = b_i bhat_j``,
  ``b = bhat`` (Hairer, Lubich, Wanner, *Geometric Numerical Integration* (HLW), Thm VI.4.6),
  written here: symplectic Euler, Stormer-Verlet (Lobatto IIIA-IIIB, s = 2) and Lobatto
  IIIA-IIIB with s = 3 (HLW II.2, VI.4);
* conjugate-symplectic methods built by construction: ``psi o Phi o psi^-1`` with ``Phi``
  symplectic and ``psi`` a non-symplectic partitioned map; Lobatto IIIA in both parts (the
  trapezoidal rule) conjugated by half an explicit Euler step IS the implicit midpoint rule
  (HLW VI.8), recomputed here with the laws;
* a witness is turned into a map with ``exponential`` and ``compose`` and the conjugated method
  checked with ``is_symplectic`` -- not with the Lie algebra the construction uses;
* every False (and every True) below degree 4 is checked against a brute force: ALL P-series
  conjugations ``chi`` (symbolic coefficients on the trees with fewer than ``p`` vertices; those
  with ``p`` vertices cancel), the symplecticity conditions of ``chi^-1 o Phi o chi`` written here,
  and sympy's Groebner basis: ``{1}`` exactly when no conjugation exists (not even a complex one);
* explicit Euler in both parts: a P-series map fixes every equilibrium (every elementary
  differential vanishes there), so ``det D(chi^-1 Phi chi)(y*) = det D Phi(y*)``, and a map
  symplectic to order 2 has determinant ``1 + O(h^3)``; on the pendulum ``det D Phi(0) = 1 + h^2``
  (plain sympy), and the ``h`` term of its modified equation for ``H = p^2/2 + q^4/4`` has nonzero
  divergence (not Hamiltonian);
* effective order: a kernel ``chi^-1 o b o chi`` with ``b`` of order 4 has effective order 4
  (the processor is re-verified here); Stormer-Verlet reaches no order 3: the order-3 equations
  of ``chi o Phi o chi^-1 = exact flow`` (written here with ``inverse``, another formulation than
  the library's) have the Groebner basis {1}.

Planted bugs (each made one or more tests here fail; see the helper report): the sign of the
root-colour condition in ``_condition_trees``; the sign of the conjugating field; dropping the
lower-order equations in ``_solve_top_linear``.

Cost: about 5 s in total (the effective order of the order-4 kernel: about 3 s).
"""

from __future__ import annotations

import pytest
import sympy
from sympy import Rational as R

from geomcheck.bseries.conjugate import _conjugation_table, is_conjugate_symplectic
from geomcheck.bseries.effective_order import effective_order
from geomcheck.bseries.energy import is_energy_preserving
from geomcheck.bseries.laws import compose, exponential, inverse, logarithm
from geomcheck.bseries.methods import exact_flow, partitioned_runge_kutta
from geomcheck.bseries.properties import is_symplectic, order_of, symplecticity_pairs
from geomcheck.bseries.series import BSeries
from geomcheck.bseries.tree_ops import butcher_product
from geomcheck.certify.trees import trees_of_order, trees_up_to
from geomcheck.errors import BSeriesError

H = R(1, 2)
SYMPLECTIC_EULER = ([[1]], [1], [[0]], [1])                       # q implicit, p explicit
VERLET = ([[0, 0], [H, H]], [H, H], [[H, 0], [H, 0]], [H, H])      # Lobatto IIIA-IIIB, s = 2
L3A = [[0, 0, 0], [R(5, 24), R(1, 3), R(-1, 24)], [R(1, 6), R(2, 3), R(1, 6)]]
L3B = [[R(1, 6), R(-1, 6), 0], [R(1, 6), R(1, 3), 0], [R(1, 6), R(5, 6), 0]]
W3 = [R(1, 6), R(2, 3), R(1, 6)]
LOBATTO3 = (L3A, W3, L3B, W3)                                       # Lobatto IIIA-IIIB, s = 3, order 4
EULER_BOTH = ([[0]], [1], [[0]], [1])                               # explicit Euler in q and in p
TRAPEZOIDAL_BOTH = ([[0, 0], [H, H]], [H, H], [[0, 0], [H, H]], [H, H])   # Lobatto IIIA in both parts
MIDPOINT_BOTH = ([[H]], [1], [[H]], [1])
#: a non-symplectic partitioned explicit map (two stages, different tableaux in q and p)
TWISTED = ([[0, 0], [R(2, 3), 0]], [R(1, 5), R(-3, 7)], [[0, 0], [R(1, 3), 0]], [R(1, 2), R(1, 4)])

TQ, TP = trees_of_order(1, 2)


def prk(tab, p, name=None):
    return partitioned_runge_kutta(tab, p, name=name)


def classical_symplectic(tab) -> bool:
    """HLW Thm VI.4.6, written here: b1 = b2 and b1_i A2_ij + b2_j A1_ji - b1_i b2_j = 0."""
    A1, b1, A2, b2 = tab
    s = len(b1)
    return list(b1) == list(b2) and all(b1[i] * A2[i][j] + b2[j] * A1[j][i] - b1[i] * b2[j] == 0
                                        for i in range(s) for j in range(s))


def chi_of(witness):
    """chi = exp(c_1) o exp(c_2) o ...: exp(c_last) applied first (as the docstring states)."""
    chi = None
    for c in witness:
        step = exponential(c)
        chi = step if chi is None else compose(step, chi)
    return chi


def conjugated(chi, phi):
    """chi^-1 o phi o chi: chi applied first, then phi, then chi^-1."""
    return compose(compose(chi, phi), inverse(chi))


def symplectic_residuals(s, p):
    """The P-series symplecticity conditions (HLW VI.7), written here from the trees."""
    out = []
    for n in range(1, p + 1):
        for kind, u, v in symplecticity_pairs(n, 2):
            if kind == "root colour":
                out.append(s[u] - s[v])
            else:
                out.append(s[butcher_product(u, v)] + s[butcher_product(v, u)] - s[u] * s[v])
    return out


def no_conjugation_exists(phi, p) -> bool:
    """Brute force over all P-series conjugations up to order p: True iff the Groebner basis is {1}."""
    unknowns = {t: sympy.Symbol(f"x{t.index}") for t in trees_up_to(p - 1, 2)}
    chi = BSeries(unknowns, p, colours=2)
    symbolic_phi = BSeries({t: c for t, c in phi.truncate(p).items()}, p, colours=2)
    conj = conjugated(chi, symbolic_phi)
    equations = [sympy.numer(sympy.together(r)) for r in symplectic_residuals(conj, p)]
    equations = [e for e in (sympy.expand(e) for e in equations) if e != 0]
    if not equations or not unknowns:
        return bool(equations)               # no unknowns: a nonzero constant condition is the obstruction
    return list(sympy.groebner(equations, *unknowns.values(), order="grevlex").exprs) == [1]


# ============================================================================ conjugate symplecticity


@pytest.mark.parametrize("tab, p", [(SYMPLECTIC_EULER, 5), (VERLET, 5), (LOBATTO3, 5)])
def test_symplectic_pairs_are_conjugate_symplectic_with_the_identity(tab, p):
    assert classical_symplectic(tab)                      # the truth, from the tableau
    phi = prk(tab, p)
    assert is_symplectic(phi, p).holds is True
    c = is_conjugate_symplectic(phi, p)
    assert c.holds is True and c.stage == "exact"
    assert len(c.witness) == p - 1 and all(w.colours == 2 and w.is_vector_field for w in c.witness)
    assert all(w[t] == 0 for w in c.witness for t in w.trees())          # psi = id
    assert "P-series" in c.claim and "VI.7" in c.latex()


@pytest.mark.parametrize("psi_tab", [EULER_BOTH, TWISTED])
def test_a_symplectic_pair_conjugated_by_a_non_symplectic_map_is_found_again(psi_tab):
    p = 5
    phi0 = prk(VERLET, p)
    psi = prk(psi_tab, p)
    if psi_tab == EULER_BOTH:
        psi = BSeries({TQ: H, TP: H}, p, colours=2)                    # half an explicit Euler step
    assert not classical_symplectic(psi_tab) and is_symplectic(psi, p).holds is False
    phi = compose(compose(inverse(psi), phi0), psi)                    # psi o Phi o psi^-1
    assert is_symplectic(phi, p).holds is False                        # not symplectic itself ...
    c = is_conjugate_symplectic(phi, p)
    assert c.holds is True                                             # ... but conjugate-symplectic
    chi = chi_of(c.witness)
    assert is_symplectic(conjugated(chi, phi), p).holds is True        # the witness works
    assert all(r == 0 for r in symplectic_residuals(conjugated(chi, phi), p))
    assert not no_conjugation_exists(phi, 3)                           # the brute force agrees


def test_lobatto_iiia_in_both_parts_is_the_trapezoidal_rule_conjugate_to_the_midpoint_rule():
    """HLW VI.8: trapezoidal = IE(h/2) o E(h/2), midpoint = E(h/2) o IE(h/2); chi = E(h/2)."""
    p = 5
    trap, mid = prk(TRAPEZOIDAL_BOTH, p), prk(MIDPOINT_BOTH, p)
    half_euler = BSeries({TQ: H, TP: H}, p, colours=2)
    assert compose(compose(inverse(half_euler), trap), half_euler) == mid
    assert is_symplectic(mid, p).holds is True and is_symplectic(trap, p).holds is False
    c = is_conjugate_symplectic(trap, p)
    assert c.holds is True
    assert is_symplectic(conjugated(chi_of(c.witness), trap), p).holds is True


def test_explicit_euler_in_both_parts_is_not_conjugate_symplectic():
    c = is_conjugate_symplectic(prk(EULER_BOTH, 4, name="explicit Euler"), 4)
    assert c.holds is False and c.stage == "exact"
    assert c.counterexample["degree"] == 2 and c.counterexample["residual"] == -1
    assert c.counterexample["combination"] == {("pair", TQ, TP): 1}
    assert "P-series conjugation" in c.latex()
    # independent 1: all conjugations up to order 2, brute force
    assert no_conjugation_exists(prk(EULER_BOTH, 2), 2)
    # independent 2: at the pendulum's equilibrium det D Phi = 1 + h^2 (needs 1 + O(h^3))
    q, pp, h = sympy.symbols("q p h")
    ham = pp ** 2 / 2 - sympy.cos(q)
    step = sympy.Matrix([q + h * sympy.diff(ham, pp), pp - h * sympy.diff(ham, q)])
    det = step.jacobian([q, pp]).subs({q: 0, pp: 0}).det()
    assert sympy.expand(det) == 1 + h ** 2
    # independent 3: the modified field f - h/2 f'f (order h, solved for here) of H = p^2/2 + q^4/4
    # has nonzero divergence: not Hamiltonian at that order
    ham = pp ** 2 / 2 + q ** 4 / 4
    f = sympy.Matrix([sympy.diff(ham, pp), -sympy.diff(ham, q)])
    f2 = sympy.Matrix(sympy.symbols("u v"))
    flow = h * (f + h * f2) + h ** 2 / 2 * f.jacobian([q, pp]) * f     # time-h flow of f + h f2, to h^2
    sol = sympy.solve(list(flow - h * f), list(f2))
    f2 = sympy.Matrix([sol[s] for s in sympy.symbols("u v")])
    assert sympy.simplify(sympy.diff(f2[0], q) + sympy.diff(f2[1], pp)) == 3 * q ** 2


def test_different_weights_of_the_two_leaves_fail_at_degree_one():
    phi = BSeries({TQ: 1, TP: R(1, 2)}, 3, colours=2, name="inconsistent pair")
    c = is_conjugate_symplectic(phi, 3)
    assert c.holds is False and c.counterexample["degree"] == 1 and c.counterexample["residual"] == R(1, 2)
    assert no_conjugation_exists(phi, 1)


def test_witness_fields_and_certificate_round_trip():
    from geomcheck.certify.certificate import Certificate

    psi = prk(TWISTED, 4)
    phi = compose(compose(inverse(psi), prk(SYMPLECTIC_EULER, 4)), psi)
    c = is_conjugate_symplectic(phi, 4)
    assert c.holds is True
    degrees = [{t.order for t, x in w.items() if x != 0} for w in c.witness]
    assert all(d <= {k + 1} for k, d in enumerate(degrees))               # c_k lives on trees of order k
    back = Certificate.from_json(c.to_json())
    assert (back.holds, back.claim) == (c.holds, c.claim)


@pytest.mark.parametrize("n", [2, 3])
def test_conjugations_that_keep_degree_n_hamiltonian_are_hamiltonian(n):
    """The lemma behind a False verdict, checked with compose/inverse/logarithm and sympy's nullspace:
    conjugating the exact flow by chi = id + eps c (c on the trees of order n - 1) changes its
    modified field at degree n by eps [c, tau_q + tau_p] + O(eps^2); every c for which that change
    satisfies the degree-n Hamiltonian conditions is a Hamiltonian field.  The construction's own
    tables agree up to degree 6."""
    eps = sympy.Symbol("eps")
    flow = exact_flow(n, colours=2)
    cols = trees_of_order(n - 1, 2)
    conditions = symplecticity_pairs(n, 2)

    def condition(b, key):
        kind, u, v = key
        if kind == "root colour":
            return b[u] - b[v]
        return b[butcher_product(u, v)] + b[butcher_product(v, u)]

    matrix = []
    for s in cols:
        chi = BSeries({s: eps}, n, colours=2)
        change = logarithm(conjugated(chi, flow))
        matrix.append([sympy.diff(condition(change, key), eps).subs(eps, 0) for key in conditions])
    kernel = sympy.Matrix(matrix).T.nullspace()
    lower = symplecticity_pairs(n - 1, 2)
    for vec in kernel:
        c = BSeries(dict(zip(cols, vec)), n - 1, empty=0, colours=2)
        assert all(sympy.simplify(condition(c, key)) == 0 for key in lower)
    assert len(kernel) == len(cols) - sympy.Matrix(matrix).rank()
    assert all(_conjugation_table(m, 2)[4] is True for m in range(1, 7))


# ---------------------------------------------------------------- adversarial: planted coefficient errors


def test_planted_coefficient_errors_flip_true():
    """The conjugate-symplectic psi o Verlet o psi^-1 with one coefficient of order 2 or 3 moved by
    1/1000: never True, and every verdict agrees with the brute force over all conjugations."""
    p = 3
    psi = prk(TWISTED, p)
    phi = compose(compose(inverse(psi), prk(VERLET, p)), psi)
    assert is_conjugate_symplectic(phi, p).holds is True
    verdicts = []
    for t in trees_of_order(2, 2) + trees_of_order(3, 2)[::3]:
        bad = BSeries({u: c + (R(1, 1000) if u == t else 0) for u, c in phi.items()}, p, colours=2)
        c = is_conjugate_symplectic(bad, p)
        assert c.holds is not True, t
        if c.holds is False:
            assert no_conjugation_exists(bad, c.counterexample["degree"]), t
        verdicts.append(c.holds)
    assert verdicts.count(False) == len(verdicts)          # every error is caught with a proof


def test_a_perturbed_verlet_tableau_is_caught():
    tab = ([[0, 0], [H, H + R(1, 1000)]], [H, H], [[H, 0], [H, 0]], [H, H])
    c = is_conjugate_symplectic(prk(tab, 3), 3)
    assert c.holds is False
    assert no_conjugation_exists(prk(tab, 3), c.counterexample["degree"])


# ============================================================================ effective order


def test_a_kernel_of_an_order_4_pair_has_effective_order_4():
    b = prk(LOBATTO3, 5)
    assert order_of(b, 5).order == 4                                   # HLW: Lobatto IIIA-IIIB s = 3 has order 4
    chi = BSeries({trees_of_order(3, 2)[5]: R(1, 3), trees_of_order(2, 2)[1]: 0}, 4, colours=2)
    a = compose(compose(inverse(chi), b.truncate(4)), chi)             # chi o b o chi^-1
    assert order_of(a).order == 3                                      # the processor lowers the order
    c = effective_order(a, 4)
    assert (c.order, c.holds) == (4, True) and c.witness.colours == 2
    processed = conjugated(c.witness, a)                               # re-verified here
    assert all(processed[t] == R(1, t.gamma) for t in trees_up_to(4, 2))


def test_stormer_verlet_has_effective_order_2():
    verlet = prk(VERLET, 3)
    c = effective_order(verlet, 3)
    assert (c.order, c.holds) == (2, False) and "Groebner basis {1}" in c.method
    # independently: chi o Phi o chi^-1 = exact flow up to order 3 (chi on trees of order <= 2)
    unknowns = {t: sympy.Symbol(f"x{t.index}") for t in trees_up_to(2, 2)}
    chi = BSeries(unknowns, 3, colours=2)
    sym = BSeries(dict(verlet.items()), 3, colours=2)
    processed = conjugated(chi, sym)
    eqs = [sympy.numer(sympy.together(processed[t] - R(1, t.gamma))) for t in trees_up_to(3, 2)]
    eqs = [e for e in (sympy.expand(e) for e in eqs) if e != 0]
    assert list(sympy.groebner(eqs, *unknowns.values(), order="grevlex").exprs) == [1]


def test_a_planted_error_in_a_kernel_drops_its_effective_order():
    verlet = prk(VERLET, 3)
    t = trees_of_order(2, 2)[0]
    bad = BSeries({u: c + (R(1, 1000) if u == t else 0) for u, c in verlet.items()}, 3, colours=2)
    c = effective_order(bad, 3)
    assert (c.order, c.holds) == (1, False)
    unknowns = {u: sympy.Symbol(f"x{u.index}") for u in trees_up_to(1, 2)}
    processed = conjugated(BSeries(unknowns, 2, colours=2), BSeries(dict(bad.truncate(2).items()), 2, colours=2))
    eqs = [sympy.expand(sympy.numer(sympy.together(processed[u] - R(1, u.gamma)))) for u in trees_up_to(2, 2)]
    assert list(sympy.groebner([e for e in eqs if e != 0], *unknowns.values()).exprs) == [1]


def test_p_series_limits_and_refusals():
    with pytest.raises(BSeriesError, match="up to 4 for P-series"):
        effective_order(exact_flow(5, colours=2), 5)
    assert (effective_order(exact_flow(3, colours=2), 3).order, effective_order(exact_flow(3, colours=2), 3).holds) \
        == (3, True)
    with pytest.raises(BSeriesError, match="missing theory"):
        is_energy_preserving(prk(VERLET, 3), 3)
