"""RATTLE: certificates on the constraint manifold, negative controls, applicability (runs: test_rattle_runs.py)."""

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.latex import compile_pdf, document, pdflatex_available
import integrators as ig
from integrators.errors import SchemeNotApplicableError
from integrators.schemes.on_manifold import (certify_constraints_are_equations, certify_symmetric_on_manifold,
                                             certify_symplectic_on_manifold)
from integrators.schemes.stages import StageMap

from ig_cases_constrained import CONCRETE, GENERIC

h = sp.Symbol("h")
x, y, px, py = sp.symbols("x y p_x p_y")


def test_certificates_on_the_generic_circle_say_what_they_prove(tmp_path):
    s = ig.scheme("rattle")
    certs = s.certify(GENERIC)
    assert {k: c.holds for k, c in certs.items()} == {"order": True, "symplectic": True, "symmetric": True,
                                                       "constraint-preserving": True}
    assert "constraint manifold" in certs["symplectic"].claim and "iota" in certs["symplectic"].claim
    assert certs["constraint-preserving"].stage == "exact"
    assert "g_1 is equation" in certs["constraint-preserving"].method
    assert "c_1 vanishes identically" in certs["constraint-preserving"].method
    if pdflatex_available():                                          # every derivation compiles
        body = "\n".join(c.derivation.latex() for c in certs.values())
        compile_pdf(document(body), str(tmp_path / "rattle.pdf"))


def test_order_is_exactly_two_on_the_manifold():
    assert ig.scheme("rattle").observed_order(GENERIC, max_order=3) == 2


def test_symplecticity_on_the_whole_chart_is_false():
    """Off the manifold RATTLE projects: phi^* omega != omega on the chart (the wrong question)."""
    phi = ig.scheme("rattle").step_map(GENERIC)
    cert = gc.certify_symplectic(phi, GENERIC.omega)
    assert cert.holds is False and cert.counterexample is not None


def _perturbed(phi, factor):
    """RATTLE with the new momenta scaled by ``factor`` (still on the manifold: G H_p is linear in p)."""
    eqs = list(phi.equations)
    n = len(phi.new) // 2
    for k in range(n, 2 * n):
        P = phi.new[k]
        eqs = [e if not (e.has(P) and gc.calculus.diff(e, P) == 1) else P - factor * (P - e) for e in eqs]
    return StageMap(phi.source, phi.target, eqs, new=phi.new, auxiliary=phi.auxiliary, parameters=phi.parameters,
                    guess=phi.guess, step=phi.step)


def test_negative_controls_fail():
    phi = ig.scheme("rattle").step_map(GENERIC)
    bad = _perturbed(phi, 1 + h**2)
    S, iota = GENERIC.manifold()
    assert certify_constraints_are_equations(bad, GENERIC).holds is True     # still keeps the manifold
    sym = certify_symplectic_on_manifold(bad, GENERIC.omega, iota)
    assert sym.holds is False and sym.counterexample is not None
    assert certify_symmetric_on_manifold(bad, iota).holds is False


def test_certificates_on_the_manifold_carry_their_zero_tests_record():
    """Not only the kind their stage implies: the domain and points the residual was decided on."""
    certs = ig.scheme("rattle").certify(GENERIC, properties=["order", "symplectic", "symmetric"])
    for name, cert in certs.items():
        assert cert.soundness.stage == cert.stage and cert.soundness.points >= 1, name
        assert cert.soundness.symbols, name
    assert "solution manifold" in certs["symmetric"].soundness.relations


def test_refuses_unconstrained_and_non_separable_systems():
    q, p = sp.symbols("q p")
    with pytest.raises(SchemeNotApplicableError, match="holonomic constraints"):
        ig.scheme("rattle").step_map(ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p))
    coupled = ig.ConstrainedHamiltonianSystem((px**2 + py**2) * (2 + x) / 2 + y, [x, y], [px, py], [x**2 + y**2 - 1])
    with pytest.raises(SchemeNotApplicableError, match="separable"):
        ig.scheme("rattle").step_map(coupled)
    # a scheme for ordinary differential equations applies to the index-reduced field, Verlet refuses it
    assert ig.scheme("rk4").why_not(CONCRETE) is None
    assert "explicit only" in ig.scheme("stormer-verlet").why_not(CONCRETE)


def test_symplectic_on_the_manifold_with_the_implicit_parametrization():
    """Without a given parametrization the manifold is geomcheck's implicit one: randomized, same verdict."""
    s = ig.ConstrainedHamiltonianSystem(CONCRETE.H, CONCRETE.q, CONCRETE.p, CONCRETE.constraints)
    S, iota = s.manifold()
    assert isinstance(iota, gc.ImplicitMap) and S.dim == 2
    phi = ig.scheme("rattle").step_map(s)
    assert certify_symplectic_on_manifold(phi, s.omega, iota).holds is True
    order = ig.scheme("rattle").certify(s, properties=["order"])["order"]
    assert order.holds is None and "explicit parametrization" in order.method
