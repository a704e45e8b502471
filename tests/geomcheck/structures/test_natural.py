"""Coupled natural systems (Komatsu, Terakawa & Yaguchi 2020): force, energy balance, schemes."""

import pytest
import sympy

import geomcheck
from geomcheck.latex import compile_pdf, document
from geomcheck.certify.discrete_gradients import (
    avf_gradient,
    gonzalez_gradient,
    itoh_abe_gradient,
    midpoint_gradient,
)
from geomcheck.errors import (
    ContactPointError,
    DiscreteGradientError,
    DuplicateCoordinateError,
    InteractionError,
    InvalidArgumentError,
    ShapeError,
    SubsystemShapeError,
)
from geomcheck.structures import (
    certify_discrete_energy_balance,
    certify_energy_balance,
    certify_gradient_operator,
    certify_interaction_force,
    couple,
    discrete_beam_system,
    discrete_gradient_scheme,
    discrete_wave_system,
    fourth_difference_matrix,
    gaussian_delta,
    generic_discrete_gradient,
    mass_spring_beam_system,
    natural_system,
    point_delta,
    printed_force,
    printed_scheme_force,
    printed_wave_potential,
    second_difference_matrix,
    unit_vector,
    wave_beam_system,
)
from geomcheck.zero import decide_zero

m1, m2, g1, g2, dx, rho1, rho2 = sympy.symbols("m1 m2 gamma1 gamma2 dx rho1 rho2", positive=True)


def _ode_pair(n1=2, n2=3, i=0, j=2, damping=True):
    A = natural_system(n1, name="1", mass=m1, damping=g1 if damping else None)
    B = natural_system(n2, name="2", mass=m2,
                       damping=sympy.Matrix(n2, n2, sympy.symbols(f"G:{n2 * n2}")) if damping else None)
    return couple(A, B, i, j)


# --------------------------------------------------------------------------- the force


def test_ode_ode_force_is_eq34():
    s = _ode_pair()
    assert certify_interaction_force(s, printed_force(s, "34")).holds is True


def test_force_derivation_differentiates_the_constraint():
    s = _ode_pair()
    F = s.force
    # the force makes dc/dt vanish; a is the effective inverse mass 1/m1 + 1/m2
    assert decide_zero(F.coefficient - (1 / m1 + 1 / m2)).is_zero is True
    assert decide_zero(F.coefficient * F.expr + F.remainder).is_zero is True
    assert decide_zero(s.vector_field(s.constraint)).is_zero is True
    assert "Derivative" not in F.latex() or r"\dot c" in F.latex()


def test_eq27_misprint_G1_for_G2():
    # plain sympy, scalar subsystems: eq. (25), d2u1/dt2 = d2u2/dt2, with the equations of motion (20)
    f, V1p, V2p, w1, w2, G1, G2 = sympy.symbols("f V1p V2p w1 w2 G1 G2")
    fs = sympy.solve(sympy.Eq((-V1p - G1 * w1 + f) / m1, (-V2p - G2 * w2 - f) / m2), f)[0]
    assert sympy.simplify(fs - (m2 * (V1p + G1 * w1) - m1 * (V2p + G2 * w2)) / (m1 + m2)) == 0   # eq. (34)
    printed27 = (m2 * (V1p + G1 * w1) - m1 * (V2p + G1 * w2)) / (m1 + m2)                         # G1 du2/dt
    assert sympy.simplify(fs - printed27) != 0 and sympy.simplify((fs - printed27).subs(G1, G2)) == 0
    # eqs. (26)-(27) damp the second system with G1; with G1 != G2 that is not the derived force
    s = _ode_pair(3, 3, 0, 1)
    c = certify_interaction_force(s, printed_force(s, "27"))
    assert c.holds is False and c.counterexample
    assert certify_interaction_force(s, printed_force(s, "34")).holds is True


def test_theorem5_force_general_eps_and_weights():
    e = sympy.symbols("e1:4")
    A = natural_system(3, name="1", mass=rho1, damping=g1, weight=dx)
    B = natural_system(2, name="2", mass=rho2, damping=g2)
    s = couple(A, B, list(e), 1)
    assert certify_interaction_force(s, printed_force(s, "theorem 5")).holds is True
    assert certify_energy_balance(s).holds is True


def test_theorem2_force_readings():
    # plain sympy: the semi-discrete contact, rho_i u_i'' = -L_i +- f eps_i with eps_i = e_k/dx; equal contact
    # accelerations fix the coefficient f of the delta vector
    f, L1, L2 = sympy.symbols("f L1 L2")
    fhat = sympy.solve(sympy.Eq((-L1 + f / dx) / rho1, (-L2 - f / dx) / rho2), f)[0]
    printed = rho2 / (rho1 + rho2) * L1 - rho1 / (rho1 + rho2) * L2              # eq. (44), naive delta(0)
    assert sympy.simplify(fhat - printed) != 0                  # reading 1: the coefficient of delta(x - x1)
    assert sympy.simplify(fhat / dx - printed) == 0             # reading 2: the nodal force f/dx
    # the same with geomcheck on the wave + beam of Section 5 (the nodal force is eq. (92)'s f_d)
    s = wave_beam_system(8, damping=(3, 5))
    h = s.first.spacing
    assert certify_interaction_force(s, printed_force(s, "theorem 2"), factor=h).holds is True
    assert certify_interaction_force(s, printed_force(s, "theorem 2")).holds is False


def test_theorem3_force_readings():
    # plain sympy: m u1'' = -L1 + f (the mass), rho u2_k'' = -L2 - f/dx (the node, delta vector e_k/dx)
    f, L1, L2, m = sympy.symbols("f L1 L2 m", positive=True)
    fhat = sympy.solve(sympy.Eq((-L1 + f) / m, (-L2 - f / dx) / rho1), f)[0]
    printed = rho1 / (m + rho1) * L1 - m / (m + rho1) * L2                      # eq. (51), rho = rho1 here
    assert sympy.simplify(fhat - printed) != 0                                  # rho a density: no
    assert sympy.simplify(fhat - printed.subs(rho1, rho1 * dx).subs(L2, L2 * dx)) == 0  # rho dx, L2 dx: the node
    assert sympy.simplify((fhat - printed).subs(dx, 1)) == 0
    s = mass_spring_beam_system(10)
    assert certify_interaction_force(s, printed_force(s, "theorem 3")).holds is False
    # on a grid of spacing 1 the printed rho/(m + rho) is right
    s1 = mass_spring_beam_system(5, length=5, contact=4)
    assert s1.second.spacing == 1
    assert certify_interaction_force(s1, printed_force(s1, "theorem 3")).holds is True


def test_mass_matrix_force_and_balance():
    M = sympy.Matrix([[2, 1], [1, 3]])      # symmetric, not diagonal
    A = natural_system(2, name="1", mass=M, damping=g1)
    B = natural_system(2, name="2", mass=m2)
    s = couple(A, B, [1, 1], 0)
    assert certify_energy_balance(s).holds is True


# --------------------------------------------------------------------------- Theorems 1 and 5


@pytest.mark.parametrize("n1,n2,i,j", [(1, 1, 0, 0), (2, 3, 1, 2), (4, 2, 3, 0)])
def test_theorem1_generic(n1, n2, i, j):
    c = certify_energy_balance(_ode_pair(n1, n2, i, j))
    assert c.holds is True
    # the balance needs equal contact velocities: off c = 0 it is f c, not 0
    assert decide_zero(c.residual["balance"]).is_zero is False


def test_theorem1_without_damping_conserves():
    s = _ode_pair(damping=False)
    assert s.dissipation() == 0
    assert certify_energy_balance(s).holds is True


def test_eq21_misprint_kinetic_energy():
    s = _ode_pair(2, 2, 0, 1)
    A, B = s.first, s.second
    printed = A.energy() + m2 / 2 * sum(x**2 for x in A.v) + B.potential   # m2/2 du1/dt . du1/dt
    assert certify_energy_balance(s, energy=printed).holds is False


def test_theorem5_energy_misprint_missing_half():
    A = natural_system(2, name="1", mass=rho1, weight=dx)
    B = natural_system(3, name="2", mass=rho2, weight=dx)
    s = couple(A, B, [0, 1 / dx], [1 / dx, 0, 0])
    assert certify_energy_balance(s).holds is True
    printed = sum(X.weight * (X.scalar_mass * sum(v**2 for v in X.v) + X.potential) for X in s.systems)
    assert certify_energy_balance(s, energy=printed).holds is False


def test_theorem5_dissipation_readings():
    A = natural_system(2, name="1", damping=g1, weight=dx)          # a semi-discretized PDE (mu = dx)
    B = natural_system(2, name="2", damping=g2)                     # an ODE (mu = 1)
    s = couple(A, B, 0, 1)
    # eq. (78) read with eq. (8)'s form G(w, w) = w.G w (the proof's and Theorem 6's reading): fails
    form8 = g1 * sum(v**2 for v in A.v) + g2 * sum(v**2 for v in B.v)
    assert certify_energy_balance(s, dissipation=form8).holds is False
    # read as the discrete eq. (9), G(w, w) = sum w G w dx for the PDE (w.G w for the ODE): holds
    form9 = g1 * sum(v**2 * dx for v in A.v) + g2 * sum(v**2 for v in B.v)
    assert certify_energy_balance(s, dissipation=form9).holds is True
    assert certify_energy_balance(s).holds is True


def test_gaussian_delta_normalized_and_balance():
    W = discrete_wave_system(4, damping=2, name="1")
    eps = gaussian_delta(W, sympy.Rational(1, 2), sympy.Rational(1, 10))
    assert decide_zero(sum(eps) * W.spacing - 1).is_zero is True
    B = natural_system(1, name="2", mass=m2, damping=g2)
    s = couple(W, B, eps, 0)
    assert certify_energy_balance(s).holds is True


# --------------------------------------------------------------------------- Section 5 operators


def test_D2_D4_as_printed():
    h = sympy.Rational(1, 7)
    D2, D4 = second_difference_matrix(6, h), fourth_difference_matrix(6, h)
    assert D4 == D2 * D2              # the ghost node u_{-1} = -u_1 gives the corner 5
    assert D4[0, 0] == 5 / h**4 and D4[1, 1] == 6 / h**4
    W, B = discrete_wave_system(7, name="1"), discrete_beam_system(7, name="2")
    assert certify_gradient_operator(W, D2, -1).holds is True
    assert certify_gradient_operator(B, D4, 1).holds is True


def test_eq94_wave_energy_readings():
    W = discrete_wave_system(7, name="1")
    D2 = second_difference_matrix(6, W.spacing)
    interior, every = printed_wave_potential(W, "interior"), printed_wave_potential(W, "all")
    assert certify_gradient_operator(W, D2, -1, potential=interior).holds is False
    assert certify_gradient_operator(W, D2, -1, potential=every).holds is True
    # plain sympy: over all nodes it is 1/2 |d+ u|^2; over the interior nodes the boundary edges count half
    u = (0,) + W.u + (0,)
    h = W.spacing
    half = sum(((u[i + 1] - u[i]) / h) ** 2 for i in range(7)) / 2
    assert sympy.expand(every - half) == 0
    assert sympy.expand(half - interior - (u[1]**2 + u[6]**2) / (4 * h**2)) == 0
    with pytest.raises(InvalidArgumentError):
        printed_wave_potential(W, "boundary")


def test_section5_energy_balance_small_and_paper_N():
    for s in (wave_beam_system(6, damping=(10, 10)), mass_spring_beam_system(6), wave_beam_system(100)):
        assert certify_energy_balance(s).holds is True


# --------------------------------------------------------------------------- schemes: Theorems 4 and 6


@pytest.mark.parametrize("gradient", [generic_discrete_gradient, avf_gradient, gonzalez_gradient,
                                      itoh_abe_gradient])
def test_theorem4_generic_potentials_every_gradient(gradient):
    sch = discrete_gradient_scheme(_ode_pair(2, 2, 0, 1), gradient)
    c = certify_discrete_energy_balance(sch)
    assert c.holds is True, c.method
    assert decide_zero(c.residual["balance"]).is_zero is False      # f * c off the invariant set


def test_generic_gradient_identity_is_assumed_not_built_in():
    sch = discrete_gradient_scheme(_ode_pair(1, 1, 0, 0), generic_discrete_gradient)
    c = certify_discrete_energy_balance(sch)
    assert "assumed" in c.method
    ids = c.residual["discrete-gradient identity"]
    assert decide_zero(ids[0]).is_zero is False     # V(u+) - V(u) - g.(u+ - u) is not zero by itself


def test_not_a_discrete_gradient_fails():
    A = natural_system(1, lambda u: u[0]**3, name="1")
    B = natural_system(1, lambda u: u[0]**2, name="2")
    sch = discrete_gradient_scheme(couple(A, B, 0, 0), midpoint_gradient)
    c = certify_discrete_energy_balance(sch)
    assert c.holds is False and "discrete-gradient identity for g1" in c.method


def test_theorem6_generic_eps_mass_matrix_weights():
    e = sympy.symbols("e1:3")
    A = natural_system(2, name="1", mass=sympy.Matrix([[2, 1], [1, 3]]), damping=g1, weight=dx)
    B = natural_system(3, name="2", mass=rho2, damping=sympy.Matrix(3, 3, sympy.symbols("G:9")))
    sch = discrete_gradient_scheme(couple(A, B, list(e), 2), generic_discrete_gradient)
    assert certify_discrete_energy_balance(sch).holds is True


def test_theorem6_printed_force_misprint():
    A = natural_system(2, name="1", mass=rho1, damping=g1, weight=dx)
    B = natural_system(2, name="2", mass=rho2, damping=g2, weight=dx)
    s = couple(A, B, [0, 1 / dx], [1 / dx, 0])
    printed = discrete_gradient_scheme(s, generic_discrete_gradient, force=printed_scheme_force("82"))
    c = certify_discrete_energy_balance(printed)
    assert c.holds is False and "invariant" in c.method
    # without G1 the slip is harmless, and the printed force is the derived one
    A0 = natural_system(2, name="1", mass=rho1, weight=dx)
    s0 = couple(A0, B, [0, 1 / dx], [1 / dx, 0])
    sch0 = discrete_gradient_scheme(s0, generic_discrete_gradient)
    assert decide_zero(sch0.force - printed_scheme_force("82")(sch0)).is_zero is True


def test_eq61_printed_discrete_force():
    sch = discrete_gradient_scheme(_ode_pair(2, 3, 1, 0), gonzalez_gradient)
    assert decide_zero(sch.force - printed_scheme_force("61")(sch)).is_zero is True


def _lost_signs_match(derived, candidates):
    """Which sign choices of the signs our copy lost give the derived force."""
    return [signs for signs, expr in candidates.items() if decide_zero(derived - expr).is_zero is True]


def test_eq92_nodal_force_signs():
    # eq. (92) as read in our copy: f_d = 1/2 ((d2 A u1)_k1 + (d4 A u2)_k2 [?] g1 A v1 + g2 A v2), the leading
    # sign and the one before g1 lost; of the four ways to restore them, only (-, -) gives the derived
    # force, keeping both '+' our copy shows
    s = wave_beam_system(10, damping=(g1, g2))
    sch = discrete_gradient_scheme(s, avf_gradient)
    h = s.first.spacing
    (u1, v1, U1, W1), (u2, v2, U2, W2) = sch.blocks(0), sch.blocks(1)
    k1, k2 = s.first.node(sympy.Rational(1, 5)), s.second.node(sympy.Rational(1, 5))
    Au1 = sympy.Matrix([(a + b) / 2 for a, b in zip(U1, u1)])
    Au2 = sympy.Matrix([(a + b) / 2 for a, b in zip(U2, u2)])
    D2, D4 = second_difference_matrix(9, h), fourth_difference_matrix(9, h)
    candidates = {(s0, s1): s0 * ((D2 * Au1)[k1] + (D4 * Au2)[k2] + s1 * g1 * (W1[k1] + v1[k1]) / 2
                                  + g2 * (W2[k2] + v2[k2]) / 2) / 2
                  for s0 in (1, -1) for s1 in (1, -1)}
    assert _lost_signs_match(sch.force / h, candidates) == [(-1, -1)]      # the nodal force f/dx is f_d


def test_eq100_force_signs():
    # eq. (100) as read in our copy: f = dx/(rho dx + m1) (m1 A d4 u3 + rho k A(u1 [?] u2)), two minus signs lost
    ms = mass_spring_beam_system(10)
    sch = discrete_gradient_scheme(ms, avf_gradient)
    (u1, _, U1, _), (u3, _, U3, _) = sch.blocks(0), sch.blocks(1)
    l = ms.second.node(sympy.Rational(4, 5))
    h = ms.second.spacing
    Au3 = sympy.Matrix([(a + b) / 2 for a, b in zip(U3, u3)])
    d4 = (fourth_difference_matrix(9, h) * Au3)[l]
    candidates = {(s0, s1): h / (h + 1) * (s0 * d4 + 1000 * ((U1[0] + u1[0]) + s1 * (U1[1] + u1[1])) / 2)
                  for s0 in (1, -1) for s1 in (1, -1)}                      # m1 = rho = 1, k = 1000
    assert _lost_signs_match(sch.force, candidates) == [(-1, -1)]


def test_section5_discrete_balance_small_N():
    for s in (wave_beam_system(6, damping=(10, 10)), wave_beam_system(6), mass_spring_beam_system(6)):
        for gradient in (avf_gradient, itoh_abe_gradient):
            assert certify_discrete_energy_balance(discrete_gradient_scheme(s, gradient)).holds is True


def test_section5_discrete_balance_paper_N():
    # the paper's grids: N = 100 intervals, 99 unknowns per PDE; damped wave + beam (Fig. 7)
    for s in (mass_spring_beam_system(100), wave_beam_system(100, damping=(10, 10))):
        assert s.second.n == 99
        assert certify_discrete_energy_balance(discrete_gradient_scheme(s, avf_gradient)).holds is True


def test_scheme_implicit_map():
    sch = discrete_gradient_scheme(mass_spring_beam_system(4), avf_gradient)
    phi = sch.implicit_map()
    assert isinstance(phi, geomcheck.ImplicitMap) and len(phi.equations) == 2 * (2 + 3)


# --------------------------------------------------------------------------- bad input


def test_contact_point_outside_grid():
    W = discrete_wave_system(10, name="1")
    for x0 in (sympy.Rational(3, 2), 0, -1, 1, sympy.Rational(1, 100)):
        with pytest.raises(ContactPointError):
            point_delta(W, x0)
    with pytest.raises(ContactPointError):
        wave_beam_system(10, contact=(2, 0.2))
    with pytest.raises(ContactPointError):
        point_delta(natural_system(2, name="9"), 0.5)         # an ODE has no grid
    A, B = natural_system(3, name="1"), natural_system(2, name="2")
    with pytest.raises(ContactPointError):
        couple(A, B, 3, 0)
    with pytest.raises(ContactPointError):
        unit_vector(B, -1)


def test_mismatched_sizes():
    A, B = natural_system(3, name="1"), natural_system(2, name="2")
    with pytest.raises(SubsystemShapeError):
        couple(A, B, [1, 0], 0)
    with pytest.raises(ShapeError):
        natural_system(2, mass=[1, 2, 3])
    with pytest.raises(SubsystemShapeError):
        natural_system(2, damping=sympy.eye(3))
    with pytest.raises(SubsystemShapeError):
        natural_system(0)
    with pytest.raises(InvalidArgumentError):
        natural_system(2, mass=sympy.Matrix([[1, 2], [0, 1]]))
    with pytest.raises(SubsystemShapeError):
        certify_gradient_operator(A, sympy.eye(2))
    with pytest.raises(SubsystemShapeError):
        printed_force(couple(A, B, 0, 0), "27")
    with pytest.raises(DuplicateCoordinateError):
        couple(A, natural_system(3, name="1"), 0, 0)
    with pytest.raises(InteractionError):
        couple(A, B, [0, 0, 0], 0)


def test_discrete_gradient_of_wrong_length():
    s = couple(natural_system(2, name="1"), natural_system(2, name="2"), 0, 0)

    def too_long(V, x, u, v):
        return tuple(avf_gradient(V, x, u, v)) + (sympy.S.Zero,)

    with pytest.raises(DiscreteGradientError, match="3 components; 2 were expected"):
        discrete_gradient_scheme(s, too_long)
    with pytest.raises(DiscreteGradientError):
        generic_discrete_gradient(None, [sympy.Symbol("a")], [], [])


# --------------------------------------------------------------------------- typesetting


@pytest.mark.needs_pdflatex
def test_derivations_compile(tmp_path):
    s = wave_beam_system(5, damping=(g1, g2))
    sch = discrete_gradient_scheme(_ode_pair(2, 2, 0, 1), generic_discrete_gradient)
    body = (s.force.latex() + certify_energy_balance(s).latex()
            + certify_interaction_force(s, printed_force(s, "theorem 2"), factor=s.first.spacing).latex()
            + certify_discrete_energy_balance(sch).latex()
            + certify_discrete_energy_balance(discrete_gradient_scheme(s, avf_gradient)).latex())
    pdf = compile_pdf(document(body), tmp_path / "natural.pdf")
    assert pdf.stat().st_size > 1000
