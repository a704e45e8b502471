"""Port-Hamiltonian systems and their discrete-gradient scheme (the discrete power balance)."""

import numpy as np
import pytest
import sympy as sp

import integrators as ig
from geomcheck.errors import NotSkewError, PortHamiltonianError, PortHamiltonianShapeError
from geomcheck.latex import compile_pdf, document
from casestudies.salnikov2019_van_der_pol import oscillator_van_der_pol
from geomcheck.structures import PortHamiltonianSystem as StructurePH
from integrators.errors import SchemeNotApplicableError, SystemDefinitionError
from integrators.lower import lower_expressions
from integrators.schemes.port_hamiltonian import PortHamiltonianDiscreteGradient
from integrators.systems import PortHamiltonianSystem

from ig_cases_port_hamiltonian import CONCRETE, GENERIC

q, p, t, c, h = sp.symbols("q p t c h")
V, U = sp.Function("V"), sp.Function("U")
J2 = [[0, 1], [-1, 0]]
NAME = "port-hamiltonian-avf"


def balance_along(system, sol, dt):
    """Per step: H(x_{n+1}) - H(x_n) and -dissipated + supplied of the scheme, evaluated at the run's states."""
    dissipated, supplied, w = ig.scheme(NAME).discrete_balance(system, form="evaluation")
    scalars = [h, *system.parameters] + ([system.time] if system.time is not None else [])
    K = lower_expressions([supplied - dissipated], list(system.coords) + list(w), scalars)
    y = sol.y if sol.y.ndim == 3 else sol.y[:, None, :]
    E = sol.energy() if sol.y.ndim == 3 else sol.energy()[:, None]
    out = []
    for n in range(y.shape[0] - 1):
        values = [dt] + [float(sp.N(system.parameter_values[s])) for s in system.parameters]
        if system.time is not None:
            values.append(float(sol.t[n]))
        inc = (y[n + 1] - y[n]) / dt
        (rhs,) = K.kernel(K.scalars(*values), *[y[n][:, i] for i in range(system.dim)],
                          *[inc[:, i] for i in range(system.dim)])
        out.append((E[n + 1] - E[n], np.broadcast_to(rhs, E[n].shape)))
    return out


# ------------------------------------------------------------------ the system


def test_system_exposes_chart_field_energy_and_balance_terms():
    S = PortHamiltonianSystem(J2, [[0, 0], [0, c]], p**2 / 2 + V(q), [q, p], g=[[0], [1]], u=[sp.cos(t) * q],
                              parameters={c: sp.Rational(1, 10)})
    assert S.kind == "port-hamiltonian" and S.dim == 2 and S.time == t
    assert S.vector_field.component(q) == p
    assert sp.expand(S.vector_field.component(p) - (-c * p - sp.Derivative(V(q), q) + q * sp.cos(t))) == 0
    assert S.energy == p**2 / 2 + V(q) and S.is_generic
    assert S.dissipation == c * p**2 and S.supply == p * q * sp.cos(t)
    assert S.parameters == (c,) and S.parameter_values == {c: sp.Rational(1, 10)}
    assert S.power_balance().holds is True
    assert S == PortHamiltonianSystem(J2, [[0, 0], [0, c]], p**2 / 2 + V(q), [q, p], g=[[0], [1]],
                                      u=[sp.cos(t) * q], parameters={c: sp.Rational(1, 10)})
    assert isinstance(S.structure, StructurePH)
    assert PortHamiltonianSystem(J2, None, p**2 / 2 + q**2 / 2, [q, p]).time is None


def test_the_runnable_system_is_its_structure_closed_by_the_inputs():
    """One definition: the structure is kept, and its field with the inputs substituted is the system's."""
    u = sp.Symbol("u")
    structure = StructurePH(J2, [[0, 0], [0, c]], [[0], [1]], p**2 / 2 + V(q), [q, p], [u])
    S = PortHamiltonianSystem.from_structure(structure, {u: sp.cos(t) * q})
    assert S.structure is structure and S.input_symbols == (u,) and S.time == t
    for x, F in zip(structure.x, structure.vector_field):
        assert sp.expand(S.vector_field.component(x) - F.subs(u, sp.cos(t) * q)) == 0
    built = PortHamiltonianSystem(J2, [[0, 0], [0, c]], p**2 / 2 + V(q), [q, p], g=[[0], [1]], u=[sp.cos(t) * q])
    assert built == S and all(built.vector_field.component(x) == S.vector_field.component(x) for x in (q, p))
    assert built.structure.J == structure.J and built.structure.R == structure.R and built.structure.H == structure.H
    with pytest.raises(SystemDefinitionError, match="expects a geomcheck.structures.PortHamiltonianSystem"):
        PortHamiltonianSystem.from_structure(S)
    with pytest.raises(SystemDefinitionError, match="no value for the input"):
        PortHamiltonianSystem.from_structure(structure, {c: 1})


def test_bad_input_is_named():
    H = p**2 / 2 + q**2 / 2
    with pytest.raises(NotSkewError, match="J is not skew"):
        PortHamiltonianSystem([[0, 1], [1, 0]], None, H, [q, p])
    with pytest.raises(PortHamiltonianError, match="R is not symmetric"):
        PortHamiltonianSystem(J2, [[0, 1], [0, 0]], H, [q, p])
    with pytest.raises(PortHamiltonianShapeError, match="J has 3 rows"):
        PortHamiltonianSystem([[0, 1], [-1, 0], [0, 0]], None, H, [q, p])
    with pytest.raises(PortHamiltonianShapeError, match="no input matrix g"):
        PortHamiltonianSystem(J2, None, H, [q, p], u=[1])
    with pytest.raises(PortHamiltonianShapeError, match="no inputs u"):
        PortHamiltonianSystem(J2, None, H, [q, p], g=[[0], [1]])
    with pytest.raises(PortHamiltonianShapeError, match="g"):
        PortHamiltonianSystem(J2, None, H, [q, p], g=[[0], [1]], u=[1, 2])
    with pytest.raises(SystemDefinitionError, match="must not depend on the time"):
        PortHamiltonianSystem([[0, t], [-t, 0]], None, H, [q, p], g=[[0], [1]], u=[t])
    with pytest.raises(SystemDefinitionError, match="reserved for the step size"):
        PortHamiltonianSystem(J2, None, h**2 / 2, [h, p])
    with pytest.raises(SystemDefinitionError, match="not a sympy expression"):
        PortHamiltonianSystem(J2, None, H, [q, p], g=[[0], [1]], u=[object()])
    with pytest.raises(SchemeNotApplicableError, match="PortHamiltonianSystem"):
        ig.scheme(NAME).step_map(ig.HamiltonianSystem(H, q, p))
    with pytest.raises(SchemeNotApplicableError, match="no closed form"):
        ig.scheme(NAME).step_map(PortHamiltonianSystem(J2, None, p**2 * sp.cos(q), [q, p]))


# ------------------------------------------------------------------ certificates


def test_energy_balance_order_and_symmetry_certified_on_the_generic_system():
    s = ig.scheme(NAME)
    certs = s.certify(GENERIC)
    assert set(certs) == {"order", "energy-balance", "symmetric"}
    assert all(cert.holds is True for cert in certs.values()), {k: v.method for k, v in certs.items()}
    assert s.observed_order(GENERIC) == 2


def test_energy_balance_certified_with_a_time_dependent_input_and_state_dependent_J_R():
    x1, x2 = sp.symbols("x1 x2")
    S = PortHamiltonianSystem([[0, 1 + x1**2], [-(1 + x1**2), 0]], [[x2**2, 0], [0, 0]], x1**2 / 2 + sp.cosh(x2),
                              [x1, x2], g=[[x1], [1]], u=[sp.sin(t)])
    c_ = ig.scheme(NAME).certify(S)
    assert set(c_) == {"energy-balance"} and c_["energy-balance"].holds is True


def test_the_energy_balance_rests_on_its_zero_tests_record():
    """The record says where and how the balance was tested: on the step's solution manifold, at points."""
    cert = ig.scheme(NAME).certify(GENERIC, ["energy-balance"])["energy-balance"]
    assert cert.soundness.stage == cert.stage and cert.soundness.points >= 1
    assert "solution manifold" in cert.soundness.relations


def test_the_midpoint_rule_does_not_satisfy_the_discrete_balance():
    """The certificate can fail: the implicit midpoint step of the damped quartic oscillator."""
    import geomcheck as gc
    from geomcheck.zero import decide_zero

    S = PortHamiltonianSystem(J2, [[0, 0], [0, sp.Rational(1, 4)]], p**2 / 2 + q**4 / 4, [q, p])
    phi = ig.scheme("implicit-midpoint").step_map(S)
    Q, P = phi.new
    H = S.H
    # midpoint: the increment is h X(xbar); the AVF balance in its terms would need gbar = grad H(xbar)
    gm = [sp.diff(H, x).subs({q: (q + Q) / 2, p: (p + P) / 2}) for x in (q, p)]
    residual = H.subs({q: Q, p: P}, simultaneous=True) - H + h * gm[1] ** 2 / 4
    assert decide_zero(residual, relations=(phi.dependence.relation,)).is_zero is False
    assert isinstance(phi, gc.ImplicitMap)


def test_gonzalez_and_itoh_abe_variants_for_energies_without_a_closed_form_avf():
    S = PortHamiltonianSystem(J2, [[0, 0], [0, c]], p**2 * (2 + sp.cos(q)) / 2 + q**2 / 2, [q, p], g=[[0], [1]],
                              u=[U(q)], parameters={c: sp.Rational(1, 4)})
    with pytest.raises(SchemeNotApplicableError, match='PortHamiltonianDiscreteGradient\\("gonzalez"\\)'):
        ig.scheme(NAME).step_map(S)
    gz, ia = PortHamiltonianDiscreteGradient("gonzalez"), PortHamiltonianDiscreteGradient("itoh-abe")
    assert (gz.name, gz.order, sorted(gz.properties)) == ("port-hamiltonian-gonzalez", 2, ["energy-balance", "symmetric"])
    assert (ia.order, sorted(ia.properties)) == (1, ["energy-balance"])
    for scheme in (gz, ia):
        assert scheme.certify(S, ["energy-balance"])["energy-balance"].holds is True
    assert ia.certify(S, ["symmetric"])["symmetric"].holds is False
    with pytest.raises(ValueError, match="gradient must be one of"):
        PortHamiltonianDiscreteGradient("midpoint")


# ------------------------------------------------------------------ numbers


def test_discrete_balance_along_numpy_and_mpmath_runs():
    y0 = [[1.0, 0.5], [2.0, -0.25], [0.0, 0.0]]
    sol = ig.integrate(CONCRETE, NAME, y0, dt=0.05, steps=200, save_every=1)
    steps = balance_along(CONCRETE, sol, 0.05)
    change = sum(d for d, _ in steps)
    predicted = sum(r for _, r in steps)
    assert np.abs(change - predicted).max() < 1e-13
    assert np.abs(change).min() > 1e-2           # the energy does change (forcing and damping)
    # each step's energy change is the discrete supply minus the dissipation (to rounding: |H| ~ 3)
    assert max(np.abs(d - r).max() for d, r in steps) < 1e-14
    mp = ig.integrate(CONCRETE, NAME, [1, "0.5"], dt="0.05", steps=20, save_every=20, backend="mpmath", dps=50)
    num = ig.integrate(CONCRETE, NAME, [1, 0.5], dt=0.05, steps=20, save_every=20)
    assert max(abs(float(a) - b) for a, b in zip(mp.y[-1], num.y[-1])) < 1e-13


def test_pure_dissipation_decreases_the_energy_every_step_and_no_dissipation_conserves_it():
    damped = PortHamiltonianSystem(J2, [[0, 0], [0, sp.Rational(1, 5)]], p**2 / 2 - sp.cos(q), [q, p])
    sol = ig.integrate(damped, NAME, [[2.0, 0.0], [0.5, 1.0]], dt=0.1, steps=300, save_every=1)
    dE = np.diff(sol.energy(), axis=0)
    assert np.all(dE <= 1e-15) and np.all(dE[:50] < 0)
    lossless = PortHamiltonianSystem(J2, None, p**2 / 2 - sp.cos(q), [q, p])
    sol = ig.integrate(lossless, NAME, [[2.0, 0.0], [0.0, 0.0]], dt=0.1, steps=500, save_every=500,
                       compensated=True)
    assert np.abs(sol.energy()[-1] - sol.energy()[0]).max() < 1e-14
    assert sol.y[-1, 1].tolist() == [0.0, 0.0]


def test_oscillator_coupled_to_van_der_pol_of_salnikov_and_hamdouni():
    """The paper's pH form (canonical J, R = 0, one port with effort e_i = 1), run and balanced."""
    ex = oscillator_van_der_pol(quick=True)
    prm = {str(k): v for k, v in ex.parameters.items()}
    m, Om, A, eps = sp.Rational(1, 2), sp.Integer(1), sp.Rational(1, 4), sp.Rational(1, 2)
    values = {prm["m"]: m, prm["Omega"]: Om, prm["A"]: A, prm["epsilon"]: eps,
              prm["Omega_t"]: sp.sqrt(Om**2 - A * m * Om**2)}
    S = PortHamiltonianSystem.from_structure(ex.system, parameters=values)
    assert S.dim == 4 and len(S.inputs) == 1 and S.inputs[0] == 1
    assert ig.scheme(NAME).certify(S, ["energy-balance"])["energy-balance"].holds is True
    sol = ig.integrate(S, NAME, [[0.5, 0.0, 0.25, 0.0], [0.0, 0.25, 1.0, -0.5]], dt=0.02, steps=250, save_every=1)
    steps = balance_along(S, sol, 0.02)
    assert max(np.abs(d - r).max() for d, r in steps) < 1e-14
    assert np.all(np.isfinite(sol.y))


@pytest.mark.needs_pdflatex
def test_energy_balance_certificate_typesets(tmp_path):
    cert = ig.scheme(NAME).certify(GENERIC, ["energy-balance"])["energy-balance"]
    compile_pdf(document(cert.latex()), str(tmp_path / "ph.pdf"))
    assert ig.scheme(NAME) == PortHamiltonianDiscreteGradient()
