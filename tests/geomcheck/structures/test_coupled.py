"""Coupled Hamiltonian systems: Lemma 6, Theorem 7 and the beam + two masses (Terakawa & Yaguchi 2022)."""


import pytest
import sympy

import geomcheck as gc
from geomcheck import errors
from geomcheck.latex import compile_pdf, document
from geomcheck.structures import (
    CoupledSystem,
    Subsystem,
    beam_symplecticity,
    beam_two_mass,
    certify_interaction_condition,
    certify_invariant_submanifold,
    certify_symplectic_on_submanifold,
    coupled_lie_derivative,
    generic_coupled_system,
    is_hamiltonian,
    local_hamiltonian,
)

q1, p1, q2, p2 = sympy.symbols("q1 p1 q2 p2")


def spring_pair(k=sympy.Symbol("k")):
    """Two free particles coupled through interaction forces of a spring."""
    return CoupledSystem([Subsystem([q1], [p1], p1**2 / 2, [k * (q2 - q1)]),
                          Subsystem([q2], [p2], p2**2 / 2, [-k * (q2 - q1)])], parameters=[k])


# --------------------------------------------------------------------------- the builder


def test_builder_chart_form_field_and_energy():
    H1 = sympy.Function("H1")(q1, p1)
    H2 = sympy.Function("H2")(q2, p2)
    f1 = sympy.Function("f1")(q1, q2)
    S = CoupledSystem([Subsystem([q1], [p1], H1, [f1]), Subsystem([q2], [p2], H2)])
    assert S.chart.coords == (q1, p1, q2, p2)          # the paper's order (q1, p1, q2, p2)
    assert S.omega.components == {(0, 1): 1, (2, 3): 1}
    X = S.vector_field
    assert X.component(q1) == H1.diff(p1)
    assert X.component(p1) == -H1.diff(q1) + f1
    assert X.component(q2) == H2.diff(p2)
    assert X.component(p2) == -H2.diff(q2)
    assert S.energy == H1 + H2
    assert S.interactions == {p1: f1}
    with pytest.raises(AttributeError, match="immutable"):
        S.energy = 0
    assert gc.latex(S) == gc.latex(S.vector_field)


def test_weighted_subsystem_uses_the_discrete_variational_derivative():
    c = sympy.Symbol("c", positive=True)
    H = sympy.Function("H")(q1, p1)
    S = CoupledSystem([Subsystem([q1], [p1], H, [q1], weight=c)])
    assert S.omega.components == {(0, 1): c}
    assert S.vector_field.component(q1) == H.diff(p1) / c
    assert S.vector_field.component(p1) == -H.diff(q1) / c + q1


@pytest.mark.parametrize("sizes", [(1, 1), (2, 2), (3, 1), (1, 2, 2)])
def test_uncoupled_generic_subsystems_are_hamiltonian(sizes):
    S0 = generic_coupled_system(sizes)
    S = CoupledSystem([Subsystem(s.q, s.p, s.hamiltonian) for s in S0.subsystems])
    assert gc.hamiltonian_vector_field(S.energy, S.omega) == S.vector_field


# --------------------------------------------------------------------------- Lemma 6


@pytest.mark.parametrize("sizes", [(1, 1), (2, 2), (3, 2), (1, 1, 1)])
def test_lemma6_generic_direct_cartan_and_closed_form_agree(sizes):
    r = coupled_lie_derivative(generic_coupled_system(sizes))
    assert r.cartan_check.holds is True           # component formula == d(i_X w) + i_X dw
    assert r.closed_form_check.holds is True      # == sum_i dq_i ^ df_i
    assert not r.direct.is_zero()                 # generic interactions break symplecticity


@pytest.mark.parametrize("sizes", [(1, 1), (2, 3)])
def test_printed_lemma6_has_the_wrong_sign(sizes):
    """The paper prints L_X w = df1^dq1 + df2^dq2; the engine (API.md conventions) finds its negative."""
    S = generic_coupled_system(sizes)
    r = coupled_lie_derivative(S)
    assert r.printed_check.holds is False
    assert r.printed_check.counterexample is not None
    assert (r.direct + r.printed).is_zero() is True      # exactly the opposite sign
    # the misprint is the paper's interior product: it uses -i_X w = p' dq - q' dp
    X = S.vector_field
    papers_interior = sum((X.component(pi) * S.chart.d(qi) - X.component(qi) * S.chart.d(pi)
                           for s in S.subsystems for qi, pi in zip(s.q, s.p)), gc.Form(S.chart, {}))
    assert (papers_interior + r.interior).is_zero() is True
    assert (gc.d(papers_interior) - r.printed).is_zero() is True


def test_lemma6_interior_is_dH_minus_interaction():
    S = generic_coupled_system((2, 1), interaction_depends_on="positions")
    r = coupled_lie_derivative(S)
    expected = S.chart.d(S.energy)
    for s in S.subsystems:
        for qi, f in zip(s.q, s.interaction):
            expected = expected - f * S.chart.d(qi)
    assert (r.interior - expected).is_zero() is True


def test_lemma6_concrete_spring_forces():
    k = sympy.Symbol("k")
    r = coupled_lie_derivative(spring_pair(k))
    # dq1 ^ d(k(q2 - q1)) + dq2 ^ d(-k(q2 - q1)) = k dq1^dq2 + k dq1^dq2 ... = 0
    assert r.direct.is_zero() is True
    assert r.cartan_check.holds is True and r.closed_form_check.holds is True


# --------------------------------------------------------------------------- Theorem 7


def test_theorem7_holds_for_forces_from_a_potential_and_gives_the_hamiltonian():
    V = sympy.Function("V")(q1, q2)
    H1 = sympy.Function("H1")(q1, p1)
    H2 = sympy.Function("H2")(q2, p2)
    S = CoupledSystem([Subsystem([q1], [p1], H1, [-V.diff(q1)]), Subsystem([q2], [p2], H2, [-V.diff(q2)])])
    c = certify_interaction_condition(S)
    assert c.holds is True
    h = is_hamiltonian(S.vector_field, S.omega)
    assert h.holds is True
    assert gc.zero.decide_zero(h.witness - (H1 + H2 + V)).is_zero is True


def test_theorem7_fails_for_generic_interactions_with_counterexample():
    c = certify_interaction_condition(generic_coupled_system((2, 2)))
    assert c.holds is False
    assert c.stage == "counterexample" and "component" in c.counterexample


def test_theorem7_fails_for_velocity_dependent_drag():
    g = sympy.Symbol("gamma")
    S = CoupledSystem([Subsystem([q1], [p1], p1**2 / 2, [-g * (p1 - p2)]),
                       Subsystem([q2], [p2], p2**2 / 2, [g * (p1 - p2)])], parameters=[g])
    c = certify_interaction_condition(S)
    assert c.holds is False
    assert (c.residual - (-g * (S.chart.d(q1) ^ S.chart.d(p1)) + g * (S.chart.d(q1) ^ S.chart.d(p2))
                          + g * (S.chart.d(q2) ^ S.chart.d(p1)) - g * (S.chart.d(q2) ^ S.chart.d(p2)))).is_zero()


def test_non_symplectic_coupled_field_asked_for_its_hamiltonian():
    S = CoupledSystem([Subsystem([q1], [p1], p1**2 / 2, [q2]), Subsystem([q2], [p2], p2**2 / 2)])
    with pytest.raises(errors.NotSymplecticError) as info:
        local_hamiltonian(S.vector_field, S.omega)
    assert "dq1^dq2" in str(info.value)            # the nonzero L_X w is in the message
    assert info.value.residual.coefficient(q1, q2) == 1


# --------------------------------------------------------------------------- submanifolds


def test_restriction_by_pullback_and_by_equations_agree():
    S = CoupledSystem([Subsystem([q1], [p1], p1**2 / 2, [q2]), Subsystem([q2], [p2], p2**2 / 2)])
    a = certify_symplectic_on_submanifold(S, [q2 - 2 * q1], method="pullback")
    b = certify_symplectic_on_submanifold(S, [q2 - 2 * q1], method="restrict")
    assert a.holds is True and b.holds is True
    c = certify_symplectic_on_submanifold(S, [p2 - 1])
    assert c.holds is False and c.counterexample["component"] == (q1, q2)


def test_invariant_submanifold_certificate():
    S = spring_pair()
    # total momentum p1 + p2 is conserved: {p1 + p2 = P} is invariant
    P = sympy.Symbol("P")       # declared: a chart elsewhere may use "P" as a coordinate
    assert certify_invariant_submanifold(S, [p1 + p2 - P], solve_for=[p2], parameters=[P]).holds is True
    c = certify_invariant_submanifold(S, [p1 - P], solve_for=[p1], parameters=[P])
    assert c.holds is False and c.counterexample["equation"] == p1 - P


# --------------------------------------------------------------------------- Section 6


@pytest.fixture(scope="module")
def beam():
    return beam_two_mass()


def test_beam_has_104_coordinates_and_the_papers_equations(beam):
    S = beam.system
    assert S.chart.dim == 104
    X, (u, v) = S.vector_field, (beam.u, beam.v)
    R = sympy.Rational
    rhoA, dx = 10, R(1, 50)
    j = beam.n_b - 1
    for i in range(len(u)):
        assert X.component(u[i]) == v[i] / rhoA
        F = beam.force / dx if i == j else 0
        assert sympy.expand(X.component(v[i]) - (-beam.delta4(i + 1) + F)) == 0
    assert X.component(p1) == sympy.expand(R(1, 2) * (q2 - q1) - beam.force)
    assert X.component(p2) == -R(1, 2) * (q2 - q1)
    assert X.component(q1) == 10 * p1


def test_delta4_is_variational_derivative(beam):
    """With the corrected ghost u_{N+1} = -u_{N-1}: EI delta4 u_i == (1/dx) dH_el/du_i for every i."""
    H_el = beam.system.subsystems[0].hamiltonian
    dx = beam.values["dx"]
    for i, ui in enumerate(beam.u, start=1):
        assert sympy.expand(beam.delta4(i) - H_el.diff(ui) / dx) == 0
    # the printed (6), u_{N_x-1} = -u_{N_x} (= 0), cannot be right: at i = N_x - 1 the stencil needs
    # u_{N_x+1}; the printed relation leaves it free, and e.g. u_{N_x+1} = 0 breaks the identity
    n = beam.n_x
    u = beam.u
    wrong = (0 - 4 * 0 + 6 * u[n - 2] - 4 * u[n - 3] + u[n - 4]) / dx**4
    assert sympy.expand(wrong - H_el.diff(u[n - 2]) / dx) != 0


def test_beam_lie_derivative_is_dunb_minus_dq1_wedge_df(beam):
    S = beam.system
    L = gc.lie(S.vector_field, S.omega)
    M = S.chart
    expected = (M.d(beam.u[beam.n_b - 1]) - M.d(q1)) ^ M.d(beam.force)
    assert (L - expected).is_zero() is True
    assert len(L.components) == 11


def test_beam_whole_computation():
    # its time (goal: 2 s) is measured by benchmarks/bench_coupled_beam.py, not here
    gc.clear_caches()
    r = beam_symplecticity()                        # N_x = 51, 104 coordinates
    assert r.full_space.holds is False              # not symplectic on the full phase space
    assert r.full_space.counterexample["component"] == (beam_two_mass().u[7], beam_two_mass().u[9])
    assert r.invariance.holds is True               # the flow keeps the submanifold
    assert r.on_submanifold.holds is True           # and is symplectic on it
    assert r.energy.holds is True
    assert r.lemma.cartan_check.holds is True and r.lemma.closed_form_check.holds is True
    assert r.lemma.printed_check.holds is False


def test_beam_restriction_by_equations_too():
    r = beam_symplecticity(n_x=21, n_b=4, method="restrict")
    assert r.full_space.holds is False and r.on_submanifold.holds is True


@pytest.mark.parametrize("n_x,n_b", [(5, 1), (5, 4), (8, 2)])
def test_beam_any_resolution_and_boundary_contact_nodes(n_x, n_b):
    r = beam_symplecticity(n_x=n_x, n_b=n_b)
    assert r.model.system.chart.dim == 2 * n_x + 2
    assert (r.full_space.holds, r.invariance.holds, r.on_submanifold.holds, r.energy.holds) == (False, True, True, True)


def test_beam_symbolic_parameters():
    r = beam_symplecticity(n_x=6, n_b=2, symbolic=True)
    assert r.model.values["rho"] == sympy.Symbol("rho", positive=True)
    assert (r.full_space.holds, r.invariance.holds, r.on_submanifold.holds, r.energy.holds) == (False, True, True, True)


def test_unweighted_beam_form_is_not_symplectic_on_submanifold(beam):
    """With sum du^dv (weight 1, Hamiltonian H_el/dx: the same equations) the paper's claim fails."""
    el, sp_ = beam.system.subsystems
    dx = beam.values["dx"]
    plain = CoupledSystem([Subsystem(el.q, el.p, el.hamiltonian / dx, el.interaction), sp_])
    assert plain.vector_field == beam.system.vector_field
    c = certify_symplectic_on_submanifold(plain, beam.submanifold, solve_for=beam.solve_for,
                                          parameters=beam.parameters)
    assert c.holds is False
    good = certify_symplectic_on_submanifold(beam.system, beam.submanifold, solve_for=beam.solve_for,
                                             parameters=beam.parameters)
    assert good.holds is True


# --------------------------------------------------------------------------- bad input


def test_mismatched_block_sizes():
    with pytest.raises(errors.SubsystemShapeError, match="same length"):
        Subsystem([q1, q2], [p1], p1**2)
    with pytest.raises(errors.SubsystemShapeError, match="one force per momentum"):
        Subsystem([q1], [p1], p1**2, [q1, q2])


def test_interaction_naming_coordinates_outside_the_system():
    z = gc.Chart("z_outside").coords[0]               # a coordinate of another chart, not declared
    with pytest.raises(errors.InteractionError, match="z_outside"):
        CoupledSystem([Subsystem([q1], [p1], p1**2 / 2, [z]), Subsystem([q2], [p2], p2**2 / 2)], parameters=[])
    # undeclared parameters: every other symbol is a constant, whatever charts exist elsewhere
    S = CoupledSystem([Subsystem([q1], [p1], p1**2 / 2, [z]), Subsystem([q2], [p2], p2**2 / 2)])
    assert S.vector_field.component(p1) == z
    w = sympy.Symbol("w")                              # undeclared, parameters given
    with pytest.raises(errors.InteractionError, match="w"):
        CoupledSystem([Subsystem([q1], [p1], p1**2 / 2, [w * q2])], parameters=[])
    with pytest.raises(errors.InteractionError, match="momenta"):
        Subsystem([q1], [p1], p1**2 / 2, {q1: q2})     # interactions act on momenta


def test_hamiltonian_depending_on_another_subsystem():
    with pytest.raises(errors.InteractionError, match="another subsystem"):
        CoupledSystem([Subsystem([q1], [p1], p1**2 / 2 + q1 * q2), Subsystem([q2], [p2], p2**2 / 2)])


@pytest.mark.parametrize("n_b", [0, 51, 60, -3, 2.5])
def test_contact_point_outside_the_grid(n_b):
    with pytest.raises(errors.ContactPointError, match="outside the grid"):
        beam_two_mass(51, n_b)


def test_bad_grid_size_and_parameter_name():
    with pytest.raises(errors.InvalidArgumentError):
        beam_two_mass(2, 1)
    with pytest.raises(errors.InvalidArgumentError, match="unknown parameters"):
        beam_two_mass(11, 3, mass=1)


# --------------------------------------------------------------------------- typesetting


@pytest.mark.needs_pdflatex
def test_derivations_compile(tmp_path):
    lemma = coupled_lie_derivative(generic_coupled_system((1, 1)))
    r = beam_symplecticity(n_x=11, n_b=3)
    body = (lemma.latex() + lemma.printed_check.latex() + r.latex() + r.full_space.latex()
            + r.invariance.latex() + r.on_submanifold.latex() + r.energy.latex()
            + certify_interaction_condition(spring_pair()).latex())
    assert r"\mathrm{d}(i_X\omega)" in lemma.latex()
    assert compile_pdf(document(body), tmp_path / "coupled.pdf").exists()


# --------------------------------------------------------------------------- the findings, re-derived with plain sympy


def _wedge(a, b):
    """The matrix of a ^ b (a, b coefficient columns): (a ^ b)(X, Y) = X^T (a b^T - b a^T) Y."""
    return a * b.T - b * a.T


def test_lemma6_sign_from_the_flow_plain_sympy():
    """Finding [error] Lemma 6, without geomcheck: L_X w from the flow, (DX)^T W + W DX for w(a, b) = a^T W b."""
    Q1, P1, Q2, P2 = z = sympy.symbols("q1 p1 q2 p2")
    H1, H2 = sympy.Function("H1")(Q1, P1), sympy.Function("H2")(Q2, P2)
    f1, f2 = sympy.Function("f1")(*z), sympy.Function("f2")(*z)
    X = sympy.Matrix([H1.diff(P1), -H1.diff(Q1) + f1, H2.diff(P2), -H2.diff(Q2) + f2])     # system (3)
    W = sympy.zeros(4, 4)                                       # w := dq1 ^ dp1 + dq2 ^ dp2
    W[0, 1], W[1, 0], W[2, 3], W[3, 2] = 1, -1, 1, -1
    DX = X.jacobian(z)
    L = DX.T * W + W * DX                                       # d/dt phi_t^* w at t = 0: no i_X convention
    e = lambda i: sympy.Matrix([1 if j == i else 0 for j in range(4)])   # noqa: E731
    grad = lambda g: sympy.Matrix([g.diff(c) for c in z])                 # noqa: E731
    computed = _wedge(e(0), grad(f1)) + _wedge(e(2), grad(f2))           # dq1 ^ df1 + dq2 ^ df2
    printed = _wedge(grad(f1), e(0)) + _wedge(grad(f2), e(2))            # df1 ^ dq1 + df2 ^ dq2
    assert sympy.simplify(L - computed) == sympy.zeros(4, 4)
    assert sympy.simplify(L + printed) == sympy.zeros(4, 4)    # the printed lemma is the negative
    assert sympy.simplify(L - printed) != sympy.zeros(4, 4)
    # where the sign enters: (i_X w)(Y) = w(X, Y) has coefficients W^T X; with it Definition 2,
    # i_X w = dH, is system (3) (f = 0); the proof's first line p' dq - q' dp is its negative
    X0 = X.subs({f1: 0, f2: 0})
    assert sympy.simplify(W.T * X0 - grad(H1 + H2)) == sympy.zeros(4, 1)
    proof_line = sympy.Matrix([X[1], -X[0], X[3], -X[2]])
    assert sympy.simplify(proof_line + W.T * X) == sympy.zeros(4, 1)


def _paper_beam(n, nb, ghost=None):
    """Section 6 written from the paper with plain sympy: unknowns u_1..u_{n-1}, eq. (5), ghosts, (4), f.

    ``ghost`` is the value used for u_{n+1} (default: -u_{n-1}, from the discrete u_xx = 0 at x = L).
    """
    dx, rho, A, E, I, m1, m2, k = sympy.symbols("Delta_x rho A E I m_1 m_2 k", positive=True)
    u, v = sympy.symbols(f"u1:{n}"), sympy.symbols(f"v1:{n}")
    Q1, Q2, P1, P2 = sympy.symbols("q1 q2 p1 p2")

    def U(j):
        if j in (0, n):
            return sympy.S.Zero                                 # eq. (5)
        if j == -1:
            return -u[0]                                        # eq. (6), left
        if j == n + 1:
            return -u[n - 2] if ghost is None else ghost
        return u[j - 1]

    d2 = lambda i: (U(i + 1) - 2 * U(i) + U(i - 1)) / dx**2                                  # noqa: E731
    d4 = lambda i: (U(i + 2) - 4 * U(i + 1) + 6 * U(i) - 4 * U(i - 1) + U(i - 2)) / dx**4    # noqa: E731
    H_el = sum((v[i - 1] ** 2 / (rho * A) + E * I * d2(i) ** 2) * dx / 2 for i in range(1, n))
    H_sp = P1**2 / (2 * m1) + P2**2 / (2 * m2) + k / 2 * (Q2 - Q1) ** 2
    f = rho * A * dx * m1 / (rho * A * dx + m1) * (E * I / (rho * A) * d4(nb) + k / m1 * (Q2 - Q1))
    y = list(u) + list(v) + [Q1, Q2, P1, P2]
    X = ([vi / (rho * A) for vi in v] + [-E * I * d4(i) + (f / dx if i == nb else 0) for i in range(1, n)]
         + [P1 / m1, P2 / m2, k * (Q2 - Q1) - f, -k * (Q2 - Q1)])
    return dict(dx=dx, rhoA=rho * A, EI=E * I, m1=m1, u=u, v=v, q1=Q1, p1=P1, y=y, X=sympy.Matrix(X), f=f,
                H_el=H_el, H_sp=H_sp, d4=d4, n=n, nb=nb)


def _beam_form(b, weight):
    n, dim = b["n"] - 1, len(b["y"])
    W = sympy.zeros(dim, dim)
    for i in range(n):
        W[i, n + i], W[n + i, i] = weight, -weight             # weight du_i ^ dv_i
    for j in range(2):
        W[2 * n + j, 2 * n + 2 + j], W[2 * n + 2 + j, 2 * n + j] = 1, -1    # dq_j ^ dp_j
    return W


def _is_zero(matrix):
    return all(sympy.cancel(c) == 0 for c in matrix)


def test_section6_beam_form_readings_plain_sympy():
    """Finding [convention] Sec. 6: the printed condition is exact for dx sum du ^ dv, not for sum du ^ dv."""
    b = _paper_beam(6, 2)
    y, X, dx, f = b["y"], b["X"], b["dx"], b["f"]
    n, j = b["n"] - 1, b["nb"] - 1
    unb, q1 = b["u"][j], b["q1"]
    grad = lambda g: sympy.Matrix([g.diff(c) for c in y])     # noqa: E731
    weighted, plain = _beam_form(b, dx), _beam_form(b, 1)
    # both readings give the same equations without the interaction: i_X w = dH (coefficients W^T X)
    # with H = H_el + H_sp for the weighted form, with H_el/dx + H_sp for the plain one
    X0 = sympy.Matrix(X)
    X0[n + j] -= f / dx
    X0[2 * n + 2] += f
    assert _is_zero(weighted.T * X0 - grad(b["H_el"] + b["H_sp"]))
    assert _is_zero(plain.T * X0 - grad(b["H_el"] / dx + b["H_sp"]))
    M = X.jacobian(y)                                         # the system is linear: X = M y
    L_w = M.T * weighted + weighted * M                       # L_X w from the flow
    L_p = M.T * plain + plain * M
    df = grad(f)
    # weighted: (du_nb - dq1) ^ df, i.e. minus the printed df ^ du_nb - df ^ dq1 (Lemma 6's sign)
    assert _is_zero(L_w - _wedge(grad(unb) - grad(q1), df))
    assert _is_zero(L_w + _wedge(df, grad(unb)) - _wedge(df, grad(q1)))
    # plain: (du_nb / dx - dq1) ^ df
    assert _is_zero(L_p - _wedge(grad(unb) / dx - grad(q1), df))
    # restricted to the tangent space of S = {v_nb/(rho A) = p1/m1, u_nb - q1 = C}
    G = sympy.Matrix([grad(b["v"][j] / b["rhoA"] - b["p1"] / b["m1"]).T, grad(unb - q1).T])
    T = sympy.Matrix.hstack(*G.nullspace())
    assert T.shape == (len(y), len(y) - 2)
    assert _is_zero(T.T * L_w * T)
    assert not _is_zero(T.T * L_p * T)


def test_ghost_node_of_eq6_plain_sympy():
    """Finding [error] eq. (6): the right-end ghost is u_{N_x+1} = -u_{N_x-1}, not u_{N_x-1} = -u_{N_x}."""
    n = 7
    g = sympy.Symbol("u_ghost")
    b = _paper_beam(n, 3, ghost=g)
    dx, u = b["dx"], b["u"]
    # eq. (7) at the right end with eq. (5): (u_{N-1} - 2 u_N + u_{N+1}) / dx^2 = 0, u_N = 0
    assert sympy.solve((u[n - 2] - 2 * 0 + g) / dx**2, g) == [-u[n - 2]]
    # the printed right-end relation u_{N-1} = -u_N with u_N = 0 forces an unknown to vanish
    assert sympy.solve(sympy.Eq(u[n - 2], -0), u[n - 2]) == [0]
    # EI delta_4 u_i = (1/dx) dH_el/du_i (the discrete variational derivative) for every i only with
    # u_{N+1} = -u_{N-1}; delta_4 u_{N-1} needs u_{N+1}, which the printed (6) leaves undefined
    last = sympy.expand(b["EI"] * b["d4"](n - 1) - b["H_el"].diff(u[n - 2]) / dx)
    assert last.has(g) and sympy.solve(last, g) == [-u[n - 2]]
    full = _paper_beam(n, 3)
    for i in range(1, n):
        assert sympy.expand(full["EI"] * full["d4"](i) - full["H_el"].diff(full["u"][i - 1]) / full["dx"]) == 0
