"""HamiltonianSystem and ContactSystem: geomcheck objects, separability, bad input."""

import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from geomcheck.errors import ExpressionError, GeomcheckError
from integrators.errors import SystemDefinitionError

q, p, q2, p2, x, z, t, lam = sp.symbols("q p q2 p2 x z t lambda")
V = sp.Function("V")


def test_hamiltonian_system_objects():
    H = (p**2 + p2**2) / 2 + V(q, q2)
    s = ig.HamiltonianSystem(H, q=[q, q2], p=[p, p2])
    assert s.chart.coords == (q, q2, p, p2) and s.dim == 4 and s.degrees_of_freedom == 2
    assert s.omega == (s.chart.d(q) ^ s.chart.d(p)) + (s.chart.d(q2) ^ s.chart.d(p2))
    assert s.energy == H
    X = s.vector_field
    assert X.component(q) == p and X.component(p) == -sp.diff(V(q, q2), q)
    assert gc.lie(X, s.omega).is_zero() is True
    assert s.is_separable and s.is_generic


@pytest.mark.parametrize("H, separable", [
    (p**2 / 2 + V(q), True),
    (p**2 / 2 - sp.cos(q) + sp.exp(p), True),
    (p**2 * q**2 / 2, False),
    (sp.Function("H")(q, p), False),
    ((p + q)**2 - 2 * p * q - q**2, True),        # separable after expansion: p^2
])
def test_separability_is_detected(H, separable):
    assert ig.HamiltonianSystem(H, q, p).is_separable is separable


def test_parameters_are_collected_and_values_checked():
    s = ig.HamiltonianSystem(p**2 / 2 + lam * q**4, q, p, parameters={lam: 2})
    assert s.parameters == (lam,) and s.parameter_values == {lam: 2}
    with pytest.raises(SystemDefinitionError, match="not a number"):
        ig.HamiltonianSystem(p**2 / 2 + lam * q**4, q, p, parameters={lam: sp.Symbol("mu")})


def test_contact_system_objects_and_time():
    g = sp.Symbol("gamma")
    c = ig.ContactSystem(p**2 / 2 + x**2 / 2 + g * z, x, p, z)
    assert c.chart.coords == (x, p, z) and c.parameters == (g,)
    assert c.eta == c.chart.d(z) - p * c.chart.d(x)
    X = c.vector_field
    H = c.energy
    assert sp.simplify(X.component(x) - sp.diff(H, p)) == 0
    assert sp.simplify(X.component(p) - (-sp.diff(H, x) - p * sp.diff(H, z))) == 0
    assert sp.simplify(X.component(z) - (p * sp.diff(H, p) - H)) == 0
    ct = ig.ContactSystem(p**2 / 2 + x**2 / 2 + sp.cos(t) * z, x, p, z, t=t)
    assert ct.time == t and ct.parameters == ()
    assert ct.vector_field.component(p).has(t)


@pytest.mark.parametrize("make, match", [
    (lambda: ig.HamiltonianSystem(p**2, [q, q2], [p]), "momenta"),
    (lambda: ig.HamiltonianSystem(p**2, [], []), "at least one"),
    (lambda: ig.HamiltonianSystem(p**2, [q], [q]), "distinct"),
    (lambda: ig.HamiltonianSystem(p**2, ["q"], [p]), "Symbols"),
    (lambda: ig.HamiltonianSystem(p**2 + sp.Symbol("h") * q, q, p), "reserved"),
    (lambda: ig.HamiltonianSystem(p**2, sp.Symbol("h"), p), "reserved"),
    (lambda: ig.ContactSystem(p**2, [x], [p], [z, t]), "one Symbol"),
    (lambda: ig.ContactSystem(p**2, [x], [p], x), "distinct"),
])
def test_bad_systems_are_refused(make, match):
    with pytest.raises(SystemDefinitionError, match=match) as info:
        make()
    assert isinstance(info.value, (GeomcheckError, ValueError))


def test_hamiltonian_must_be_an_expression():
    with pytest.raises(ExpressionError):
        ig.HamiltonianSystem(sp.Matrix([p]), q, p)
    with pytest.raises(ExpressionError):
        ig.HamiltonianSystem(object(), q, p)


def test_systems_compare_by_definition():
    a = ig.HamiltonianSystem(p**2 / 2 + q**2 / 2, q, p)
    b = ig.HamiltonianSystem(p**2 / 2 + q**2 / 2, q, p)
    assert a == b and hash(a) == hash(b)
    assert a != ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)


def test_is_separable_looks_only_at_the_terms_that_mix():
    q, p = sp.symbols("q p")
    # the mixing terms cancel only together: H = p^2/2 + q^2 in disguise
    assert ig.HamiltonianSystem((p + q)**2 - (p - q)**2 - 4 * p * q + p**2 / 2 + q**2, q, p).is_separable is True
    assert ig.HamiltonianSystem((p + q)**2 + p**2 / 2, q, p).is_separable is False
    n = 200   # a chain: no term mixes, so no n^2 derivatives are taken
    qs, ps = sp.symbols(f"q0:{n}"), sp.symbols(f"p0:{n}")
    chain = sum(pi**2 / 2 for pi in ps) + sum(sp.cos(qs[i] - qs[i + 1]) for i in range(n - 1))
    assert ig.HamiltonianSystem(chain, qs, ps).is_separable is True
    assert ig.HamiltonianSystem(chain + qs[3] * ps[7], qs, ps).is_separable is False
