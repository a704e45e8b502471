"""Coupled natural systems (Komatsu, Terakawa & Yaguchi 2020) in the integrators: the system, the
coupled discrete-gradient schemes run by integrate, the linear implicit path, bad input."""

import mpmath
import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from geomcheck.latex import compile_pdf, document
from geomcheck.structures import couple, natural_system, wave_beam_system
from integrators.systems import certify_forced_form, oscillator_touching_chain
from integrators.errors import (NewtonConvergenceError, NotLowerableError, SchemeNotApplicableError,
                                SystemDefinitionError)
from integrators.forced import evaluate_along
from integrators.linear_implicit import linear_implicit_step
from integrators.lower import lower
from ig_cases_coupled_natural import CONCRETE, INITIAL

EPS = 2.0**-53
SCHEMES = ["coupled-avf", "coupled-itoh-abe"]


def undamped_chain():
    R = sp.Rational
    A = natural_system(1, lambda u: u[0]**2 / 2 + R(1, 2) * u[0]**3 / 3 + u[0]**4 / 4, name="1")
    B = natural_system(2, lambda w: w[0]**2 + 2 * (w[0] - w[1])**2 + w[1]**4 / 8, name="2", mass=2)
    return ig.CoupledNaturalSystem(couple(A, B, 0, 1))


def balance_residuals(system, sol):
    """Per step: E^{n+1} - E^n + h D^n with D^n the dissipation at w = (u^{n+1} - u^n)/h (Theorems 4, 6)."""
    if sol.backend == "mpmath":
        with mpmath.workdps(sol.dps):
            return _balance_residuals(system, sol)
    return _balance_residuals(system, sol)


def _balance_residuals(system, sol):
    E = evaluate_along(sol, system.energy)
    y = sol.y
    h = sol.dt
    nat = system.natural
    n1 = nat.first.n
    k = len(system.q)
    W = (y[1:, ..., :k] - y[:-1, ..., :k]) / h
    w1, w2 = sp.symbols(f"w1_:{n1}"), sp.symbols(f"w2_:{nat.second.n}")
    D = sp.lambdify(w1 + w2, nat.first.dissipation(w1) + nat.second.dissipation(w2), modules="mpmath"
                    if sol.backend == "mpmath" else "numpy")
    if sol.backend == "mpmath":
        D = np.vectorize(D, otypes=[object])
    Dn = D(*[W[..., i] for i in range(k)])
    return E, np.diff(E, axis=0) + h * Dn


# --------------------------------------------------------------------------- the system


def test_the_system_is_the_natural_systems_field_on_the_canonical_chart():
    nat = CONCRETE.natural
    assert CONCRETE.kind == "coupled-natural" and CONCRETE.dim == 6
    assert CONCRETE.chart.coords == nat.first.u + nat.second.u + nat.first.v + nat.second.v
    for x in CONCRETE.coords:                      # one definition: the very expressions
        assert CONCRETE.vector_field.component(x) is nat.vector_field.component(x)
    assert CONCRETE.energy == nat.energy() and CONCRETE.constraint == nat.constraint
    assert CONCRETE.force == nat.force.expr
    assert not CONCRETE.is_separable               # damped: f depends on the velocities
    assert undamped_chain().is_separable
    # the masses are in omega: m2 = 2 on the chain
    w = nat.second
    assert CONCRETE.omega.components[(CONCRETE.chart.index(w.u[0]), CONCRETE.chart.index(w.v[0]))] == 2


@pytest.mark.parametrize("system", [oscillator_touching_chain(generic=True), CONCRETE,
                                    ig.CoupledNaturalSystem(couple(natural_system(2, name="1", damping=[1, 2]),
                                                                   natural_system(1, name="2", mass=3), 1, 0))],
                         ids=["generic-quartic", "concrete", "undefined-potentials"])
def test_it_is_a_forced_hamiltonian_system(system):
    c = certify_forced_form(system)
    assert c.holds is True, c.method


def test_a_wrong_force_is_caught_by_the_forced_form():
    s = undamped_chain()
    broken = ig.CoupledNaturalSystem.__new__(ig.CoupledNaturalSystem)
    broken.__dict__.update(s.__dict__)
    X = s.vector_field
    v1 = s.p[0]
    broken.vector_field = gc.VectorField(s.chart, {x: X.component(x) + (s.q[0] if x == v1 else 0) for x in s.coords})
    assert certify_forced_form(broken).holds is False


# --------------------------------------------------------------------------- certificates


@pytest.mark.parametrize("name", SCHEMES)
def test_energy_balance_for_undefined_potentials(name):
    """Theorems 4/6 for every potential: AVF as integrals (fundamental theorem of calculus), Itoh-Abe as quotients."""
    g1, g2 = sp.symbols("gamma1 gamma2", positive=True)
    s = ig.CoupledNaturalSystem(couple(natural_system(2, name="1", damping=g1), natural_system(1, name="2",
                                                                                              damping=g2), 1, 0))
    cert = ig.scheme(name).certify(s, properties=["energy-balance"])["energy-balance"]
    assert cert.holds is True, cert.method


def test_itoh_abe_is_first_order_and_not_symmetric():
    s = oscillator_touching_chain(generic=True)
    sch = ig.scheme("coupled-itoh-abe")
    assert sch.observed_order(s) == 1
    assert gc.certify_symmetric(sch.step_map(s), sch.h).holds is False
    assert ig.scheme("coupled-avf").observed_order(s, max_order=3) == 2


def test_the_certified_scheme_is_the_one_that_runs():
    """The step map's equations are h times the DiscreteGradientScheme's, term by term."""
    sch = ig.scheme("coupled-avf")
    dg = sch.discrete_scheme(CONCRETE)
    phi = sch.step_map(CONCRETE)
    h = sch.h
    diffs = [a - h * b for a, b in zip(phi.equations, dg.equations)]
    assert gc.zero.decide_all_zero(diffs).is_zero is True
    assert set(phi.new) == set(dg.new) and phi.source is CONCRETE.chart


# --------------------------------------------------------------------------- runs


@pytest.mark.parametrize("name", SCHEMES)
def test_energy_balance_along_numpy_runs_to_rounding(name):
    sol = ig.integrate(CONCRETE, name, np.array(INITIAL), dt=0.05, steps=200, save_every=1)
    E, res = balance_residuals(CONCRETE, sol)
    assert np.all(np.diff(E, axis=0) < 0)                     # damped: decreasing at every step
    scale = np.abs(E).max()
    assert np.abs(res).max() <= 40 * EPS * scale, np.abs(res).max() / (EPS * scale)
    c = evaluate_along(sol, CONCRETE.constraint)
    assert np.abs(c).max() <= 40 * EPS                         # c(v^+) = c(v): the contact velocities stay equal


def test_energy_balance_at_50_digits():
    y0 = [[sp.Rational(x) for x in row] for row in INITIAL[:2]]
    sol = ig.integrate(CONCRETE, "coupled-avf", y0, dt="0.125", steps=4, save_every=1, backend="mpmath", dps=50)
    E, res = balance_residuals(CONCRETE, sol)
    assert max(abs(r) for r in res.flat) <= mpmath.mpf(10) ** -45
    assert max(abs(v) for v in evaluate_along(sol, CONCRETE.constraint).flat) <= mpmath.mpf(10) ** -45


@pytest.mark.parametrize("name", SCHEMES)
def test_without_dissipation_the_energy_is_conserved(name):
    s = undamped_chain()
    sol = ig.integrate(s, name, np.array(INITIAL), dt=0.05, steps=400, save_every=1)
    E = sol.energy()
    assert np.abs(E - E[0]).max() <= 400 * 4 * EPS * np.abs(E).max()
    assert np.abs(evaluate_along(sol, s.constraint)).max() <= 100 * EPS


def test_wave_beam_at_the_papers_step_through_integrate():
    """The wave + beam (N = 10) at dt = 1e-3: linear, so integrate takes the linear implicit path."""
    s = ig.CoupledNaturalSystem(wave_beam_system(10, damping=(0, 0)))
    phi = ig.scheme("coupled-avf").step_map(s)
    assert linear_implicit_step(phi) is not None
    y0 = np.zeros(s.dim)
    y0[:9] = np.exp(-200 * (np.arange(1, 10) / 10 - 0.5) ** 2)
    sol = ig.integrate(s, "coupled-avf", y0, dt=1e-3, steps=300, save_every=10)
    E = sol.energy()
    assert np.abs(E - E[0]).max() <= 300 * 4 * EPS * E[0]
    assert np.abs(evaluate_along(sol, s.constraint)).max() <= 1e-12


# --------------------------------------------------------------------------- the linear implicit path


def newton_run(system, name, y0, dt, steps):
    bound = lower(ig.scheme(name).step_map(system)).bind([dt])
    y = [np.array([v]) for v in y0]
    for n in range(steps):
        y = bound.step(y, step_index=n + 1)
    return np.array([v[0] for v in y])


@pytest.mark.parametrize("name", ["coupled-avf", "gauss-legendre-4", "implicit-midpoint"])
def test_linear_path_equals_newton(name):
    s = ig.CoupledNaturalSystem(wave_beam_system(5, damping=(1, 2)))
    y0 = np.random.default_rng(3).uniform(-1, 1, s.dim)
    fast = ig.integrate(s, name, y0, dt=0.01, steps=20, save_every=20).y[-1]
    assert np.abs(fast - newton_run(s, name, y0, 0.01, 20)).max() <= 1e-13 * np.abs(fast).max()


def test_linear_path_ensembles_equal_single_runs():
    s = ig.CoupledNaturalSystem(wave_beam_system(5, damping=(1, 2)))
    Y0 = np.random.default_rng(4).uniform(-1, 1, (3, s.dim))
    ens = ig.integrate(s, "gauss-legendre-4", Y0, dt=0.01, steps=12, save_every=4)
    for b in range(3):
        one = ig.integrate(s, "gauss-legendre-4", Y0[b], dt=0.01, steps=12, save_every=4)
        assert np.array_equal(ens.y[:, b, :], one.y)


def test_linear_path_is_only_taken_for_linear_steps():
    assert linear_implicit_step(ig.scheme("coupled-avf").step_map(CONCRETE)) is None      # quartic
    assert linear_implicit_step(ig.scheme("stormer-verlet").step_map(undamped_chain())) is None   # explicit


def test_linear_path_refuses_a_singular_step():
    q, p = sp.symbols("q p")
    s = ig.HamiltonianSystem(q * p, q, p)          # q' = q: the midpoint matrix 1 - h/2 is singular at h = 2
    with pytest.raises(NewtonConvergenceError, match="singular"):
        ig.integrate(s, "implicit-midpoint", [1.0, 1.0], dt=2.0, steps=1)
    assert np.allclose(ig.integrate(s, "implicit-midpoint", [1.0, 1.0], dt=1.0, steps=1).y[-1], [3.0, 1 / 3])


# --------------------------------------------------------------------------- bad input


def test_bad_input():
    with pytest.raises(SystemDefinitionError, match="CoupledNaturalSystem"):
        ig.CoupledNaturalSystem(ig.example_system("pendulum"))
    with pytest.raises(SchemeNotApplicableError, match="coupled by action and reaction"):
        ig.integrate(ig.example_system("pendulum"), "coupled-avf", [1.0, 0.0], dt=0.1, steps=1)
    generic = ig.CoupledNaturalSystem(couple(natural_system(1, name="1"), natural_system(1, name="2"), 0, 0))
    with pytest.raises(NotLowerableError, match="undefined function"):
        ig.integrate(generic, "coupled-itoh-abe", [1.0, 0.0, 0.0, 0.0], dt=0.1, steps=1)
    with pytest.raises(ValueError, match="gradient must be one of"):
        from integrators.schemes.coupled_discrete_gradient import CoupledDiscreteGradient
        CoupledDiscreteGradient("gonzales")
    m = sp.Symbol("m", positive=True)
    s = ig.CoupledNaturalSystem(couple(natural_system(1, lambda u: u[0]**2, name="1", mass=m),
                                       natural_system(1, lambda u: u[0]**2, name="2"), 0, 0))
    with pytest.raises(Exception, match="m"):
        ig.integrate(s, "coupled-avf", [1.0, 0.0, 0.0, 0.0], dt=0.1, steps=1)     # no value for m
    ok = ig.integrate(s, "coupled-avf", [1.0, 0.0, 0.0, 0.0], dt=0.1, steps=1, params={"m": 2})
    assert ok.y.shape == (2, 4)
    with pytest.raises(SystemDefinitionError, match="not a number"):
        ig.CoupledNaturalSystem(s.natural, parameters={m: "heavy"})


@pytest.mark.needs_pdflatex
def test_derivations_compile(tmp_path):
    s = oscillator_touching_chain(generic=True)
    certs = ig.scheme("coupled-avf").certify(s)
    assert all(c.holds is True for c in certs.values())
    body = "\n".join(c.latex() for c in [*certs.values(), certify_forced_form(s)])
    pdf = compile_pdf(document(body), tmp_path / "coupled.pdf")
    assert pdf.read_bytes().startswith(b"%PDF")
