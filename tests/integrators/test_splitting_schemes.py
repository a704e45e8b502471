"""Splitting schemes (integrators.schemes.splitting) and the catalog's Blanes-Moan and Yoshida-8 entries.

The catalog-wide tests certify every entry on its generic system; here: the certificates say
which class they are about, the step is what the coefficients say (Verlet, by hand), and the
orders are measured by running integrate() in mpmath (the error ratio when halving h), also on
a system outside the RKN class where SRKN11b drops to order 4 as its certificate says.
"""

import mpmath
import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from geomcheck.certify import compositions
from geomcheck.errors import CompositionCoefficientError, CompositionError
from integrators.errors import SchemeNotApplicableError
from integrators.schemes.refined_composition import RefinedComposition
from integrators.schemes.splitting import BLANES_MOAN, YOSHIDA8, Splitting, blanes_moan, yoshida8
from ig_cases import GENERIC

q, p, h = sp.symbols("q p h")
V, T = sp.Function("V"), sp.Function("T")
half = sp.Rational(1, 2)
PENDULUM = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
#: separable, but T is not quadratic: outside the RKN class
QUARTIC = ig.HamiltonianSystem(p**4 / 4 + p**2 / 2 - sp.cos(q), q, p)
GENERIC_T = ig.HamiltonianSystem(T(p) + V(q), q, p)

ENTRIES = {"blanes-moan-s6": ("separable", 4), "blanes-moan-srkn6b": ("rkn", 4), "blanes-moan-srkn11b": ("rkn", 6)}


def observed_orders(name, system, steps=(4, 8, 16, 32)):
    """log2 of the ratios of successive differences y_h - y_{h/2} at t = 1 (mpmath, 50 digits)."""
    ys = []
    for n in steps:
        sol = ig.integrate(system, name, ["1", "0.5"], dt=mpmath.mpf(1) / n, steps=n, save_every=n,
                           backend="mpmath", dps=50)
        ys.append(sol.y[-1])
    d = [max(abs(x - y) for x, y in zip(ys[i], ys[i + 1])) for i in range(len(ys) - 1)]
    return [float(mpmath.log(d[i] / d[i + 1], 2)) for i in range(len(d) - 1)]


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_blanes_moan_entries_certify_their_order_on_their_class(name):
    cls, order = ENTRIES[name]
    s = ig.scheme(name)
    assert isinstance(s, Splitting) and s.class_ == cls and s.order == order
    assert s.properties == frozenset({"symplectic", "symmetric"})
    c = s.order_certificate()
    assert (c.holds, c.exact, c.stage) == (True, True, "numeric")
    assert "precision of the coefficients" in c.claim and ("quadratic in p" in c.claim) == (cls == "rkn")
    certs = s.certify(GENERIC)
    assert {k: v.holds for k, v in certs.items()} == {"order": True, "symmetric": True, "symplectic": True}
    assert certs["order"].claim == c.claim
    # the refined coefficients are the published ones to their 15 digits
    a, b = blanes_moan(name.split("-")[-1], refined=False)
    assert all(abs(sp.N(x - y, 30)) < 1e-14 for x, y in zip(s.a + s.b, a + b))


def test_an_rkn_method_on_a_system_outside_the_rkn_class():
    s = ig.scheme("blanes-moan-srkn11b")
    assert s.system_class(GENERIC) == "rkn" and s.system_class(QUARTIC) == "separable"
    assert s.system_class(GENERIC_T) == "separable"
    for system in (QUARTIC, GENERIC_T):
        c = s.certify(system, properties=["order"])["order"]
        assert c.holds is False and c.stage == "numeric" and "every separable H" in c.claim
        assert "[A,[[[A,B],B],B]]" in c.method and "order on this class is 4" in c.method
    # a general-purpose method certifies on every separable system
    assert ig.scheme("blanes-moan-s6").certify(GENERIC_T, properties=["order"])["order"].holds is True


def test_observed_orders_in_integrate():
    for name, system, order in [("blanes-moan-s6", PENDULUM, 4), ("blanes-moan-srkn11b", PENDULUM, 6),
                                ("blanes-moan-srkn11b", QUARTIC, 4), ("yoshida-8-15a", PENDULUM, 8)]:
        slopes = observed_orders(name, system)
        assert abs(slopes[-1] - order) < 0.2, (name, system, slopes)


def test_yoshida_15_stage_entries():
    for sol in ("A", "D"):
        s = ig.scheme(f"yoshida-8-15{sol.lower()}")
        assert type(s) is RefinedComposition and len(s.gammas) == 15 and s.order == 8
        r = compositions.composition_order(s.gammas)
        assert r.order == 8 and r.exact and r.certificate.stage == "numeric"
        w = yoshida8(sol)
        assert list(s.gammas) == list(w)
        # the nearest solution of the 8 conditions differs from Yoshida's printed 15 digits by up to 1e-12
        # (the conditions are ill-conditioned there; his values were computed in double precision)
        published = [sp.Float(x, 30) for x in YOSHIDA8[sol]]
        gaps = [abs(sp.N(x - y, 30)) for x, y in zip(w[8:], published)]
        assert max(gaps) < 2e-12 and min(gaps) < 1e-13
    # the published 15 digits certify order 8 by themselves, up to their precision
    wA = [sp.Float(x, 30) for x in YOSHIDA8["A"]]
    r = compositions.composition_order(wA[::-1] + [1 - 2 * sum(wA)] + wA)
    assert r.order == 8 and "precision of the coefficients" in r.certificate.claim
    assert ig.scheme("yoshida-8").order == 8 and len(ig.scheme("yoshida-8").gammas) == 27     # the triple jumps stay


def test_splitting_step_is_position_verlet():
    s = Splitting([half, half], [1, 0], name="position-verlet")
    mine, verlet = s.step_map(GENERIC), ig.scheme("stormer-verlet-position").step_map(GENERIC)
    assert all(sp.simplify(x - y) == 0 for x, y in zip(mine.exprs, verlet.exprs))
    assert [float(st.factor) for st in s.stages(PENDULUM)] == [0.5, 1.0, 0.5]
    assert s.order == 2 and s.order_certificate().stage == "exact"


def test_a_non_palindromic_splitting_is_not_symmetric():
    s = Splitting([1], [1], name="euler-drift-kick")
    assert s.order == 1 and s.properties == frozenset({"symplectic"})
    assert s.certify(GENERIC, properties=["symmetric"])["symmetric"].holds is False


def test_exact_triple_jump_splitting():
    """Yoshida's triple jump of velocity Verlet, flattened into kicks and drifts: order 4, proved."""
    g1, g2, g3 = compositions.triple_jump(2)
    s = Splitting([0, g1, g2, g3], [g1 / 2, (g1 + g2) / 2, (g2 + g3) / 2, g3 / 2])
    assert s.order == 4 and s.order_certificate().exact and s.order_certificate().stage == "exact"
    # the Taylor expansion of the step map itself agrees (not the order conditions)
    assert gc.certify_order(s.step_map(GENERIC), GENERIC.vector_field, h, 4).holds is True


def test_bad_splittings_are_refused():
    with pytest.raises(CompositionCoefficientError):
        Splitting([sp.Symbol("x")], [1])
    with pytest.raises(CompositionError):
        Splitting([0, 0], [0, 0])
    with pytest.raises(CompositionError):
        Splitting([1, 2, 3], [1])
    with pytest.raises(SchemeNotApplicableError, match="separable"):
        Splitting([half, half], [1]).step_map(ig.HamiltonianSystem(p**2 * (1 + q**2) / 2, q, p))
    assert set(BLANES_MOAN) == {"s6", "srkn6b", "srkn11b"}
