"""User-defined schemes: RungeKutta, PartitionedRungeKutta, Composition (computed order and properties)."""

from fractions import Fraction

import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from geomcheck.errors import CompositionError, TableauError

half = sp.Rational(1, 2)


def test_runge_kutta_order_and_properties_are_computed():
    heun = ig.RungeKutta([[0, 0], [1, 0]], [half, half])
    assert heun.order == 2 and heun.properties == frozenset() and heun.explicit
    kutta3 = ig.RungeKutta([[0, 0, 0], [half, 0, 0], [-1, 2, 0]], [Fraction(1, 6), Fraction(2, 3), Fraction(1, 6)])
    assert kutta3.order == 3
    radau_iia = ig.RungeKutta([[sp.Rational(5, 12), sp.Rational(-1, 12)], [sp.Rational(3, 4), sp.Rational(1, 4)]],
                              [sp.Rational(3, 4), sp.Rational(1, 4)])
    assert radau_iia.order == 3 and radau_iia.properties == frozenset() and not radau_iia.explicit
    certs = radau_iia.tableau_certificates()
    assert certs["symplectic"].holds is False and certs["order"].holds is True
    assert "order 4" in certs["order"].method


def test_runge_kutta_with_algebraic_entries():
    r = sp.sqrt(3) / 6
    gauss4 = ig.RungeKutta([[sp.Rational(1, 4), sp.Rational(1, 4) - r], [sp.Rational(1, 4) + r, sp.Rational(1, 4)]],
                           [half, half])
    assert gauss4.order == 4 and gauss4.properties == {"symplectic", "symmetric"}
    assert gauss4 == ig.scheme("gauss-legendre-4")
    assert gauss4.tableau_certificates()["order"].stage == "exact"   # in the number field Q(sqrt 3)


def test_runge_kutta_step_map_is_the_tableau(generic):
    q, p = generic.coords
    heun = ig.RungeKutta([[0, 0], [1, 0]], [half, half])
    phi = heun.step_map(generic)
    assert isinstance(phi, gc.Map)
    assert gc.map_order(phi, generic.vector_field, heun.h, 4) == 2


@pytest.mark.parametrize("A, b, c, match", [
    ([[0, 0], [1]], [half, half], None, "square"),
    ([[0]], [half, half], None, "b has 2 entries"),
    ([], [], None, "at least one stage"),
    ([[0.5]], [1], None, "float"),
    ([[sp.Symbol("a")]], [1], None, "not numeric"),
    ([["x"]], [1], None, "not numeric"),
    ([[sp.oo]], [1], None, "finite"),
    ([[sp.I]], [1], None, "real"),
    ([[half]], [1], [1], "row sums"),
    ([[half]], [1], [half, half], "c has 2 entries"),
    (5, [1], None, "square"),
])
def test_malformed_tableaux_are_refused(A, b, c, match):
    with pytest.raises(TableauError, match=match) as info:
        ig.RungeKutta(A, b, c)
    assert isinstance(info.value, ValueError)


def test_partitioned_runge_kutta_order_and_properties():
    euler_a = ig.PartitionedRungeKutta([[0]], [1], [[1]], [1])
    assert euler_a.order == 1 and euler_a.properties == {"symplectic"}
    A1 = [[0, 0], [half, half]]
    A2 = [[half, 0], [half, 0]]
    lobatto = ig.PartitionedRungeKutta(A1, [half, half], A2, [half, half])
    assert lobatto.order == 2 and lobatto.properties == {"symplectic", "symmetric"}
    both_explicit = ig.PartitionedRungeKutta([[0]], [1], [[0]], [1])      # explicit Euler, partitioned
    assert both_explicit.order == 1 and both_explicit.properties == frozenset()
    with pytest.raises(TableauError, match="same number of stages"):
        ig.PartitionedRungeKutta([[0]], [1], A2, [half, half])


def test_composition_order_and_properties_are_computed(generic):
    third = sp.Rational(1, 3)
    g1 = 1 / (2 - 2**third)
    base = ig.scheme("stormer-verlet")
    triple = ig.Composition(base, [g1, 1 - 2 * g1, g1])
    assert triple.order == 4
    assert triple.properties == {"symplectic", "symmetric"}
    assert "each factor" in triple.property_certificates()["symplectic"].method
    # the direct certificate on the composed map agrees
    assert triple.certify(generic, properties=["symplectic"])["symplectic"].holds is True
    # two unequal steps: still order 2 (consistent), symplectic, no longer symmetric
    lopsided = ig.Composition(base, [sp.Rational(1, 3), sp.Rational(2, 3)])
    assert lopsided.order == 2 and lopsided.properties == {"symplectic"}
    # Verlet at half steps twice is still symmetric and of order 2
    assert ig.Composition(base, [half, half]).order == 2


def test_composition_step_applies_gamma_m_first(generic):
    q, p = generic.coords
    base = ig.scheme("symplectic-euler-b")
    comp = ig.Composition(base, [sp.Rational(1, 3), sp.Rational(2, 3)])
    phi = comp.step_map(generic)
    h = comp.h
    first = base.step_map(generic)
    sub = {h: sp.Rational(2, 3) * h}
    inner = [gc.substitute(e, sub) for e in first.exprs]
    outer = gc.Map(generic.chart, generic.chart, [gc.substitute(e, {h: h / 3}) for e in first.exprs])
    expected = [gc.substitute(e, dict(zip(generic.coords, inner))) for e in outer.exprs]
    from geomcheck.zero import decide_all_zero

    assert decide_all_zero([a - b for a, b in zip(phi.exprs, expected)]).is_zero is True


@pytest.mark.parametrize("args, match", [
    (("not a scheme", [1]), "must be a scheme"),
    ((None, [1]), "must be a scheme"),
    (("verlet", []), "at least one"),
    (("verlet", [0.5, 0.5]), "float"),
    (("verlet", [0, 1]), "zero"),
    (("verlet", 3), "sequence"),
])
def test_malformed_compositions_are_refused(args, match):
    base, gammas = args
    if base == "verlet":
        base = ig.scheme("stormer-verlet")
    with pytest.raises(CompositionError, match=match):
        ig.Composition(base, gammas)
