"""Implicit Lagrangian systems with constraints (Salnikov & Hamdouni 2019, Section 3)."""

import mpmath
import numpy as np
import pytest
import sympy

import geomcheck as gc
from geomcheck.latex import compile_pdf, document
from geomcheck.errors import ChartMismatchError, ConstraintError, InvalidArgumentError
from geomcheck.linalg import solve_sparse
from geomcheck.structures import (
    ConstrainedDiracStructure,
    DiscreteDiracScheme,
    ImplicitLagrangianEquations,
    discrete_dirac_scheme,
    implicit_lagrangian_system,
)
from geomcheck.zero import decide_all_zero, decide_zero


# --------------------------------------------------------------------------- examples


def pendulum(m=1, g=1):
    """Planar pendulum in Cartesian coordinates: x^2 + y^2 = l^2 as the one-form x dx + y dy."""
    Q = gc.Chart("x y")
    x, y = Q.coords
    vx, vy = sympy.symbols("v_x v_y")
    L = sympy.Rational(1, 2) * m * (vx**2 + vy**2) - m * g * y
    return implicit_lagrangian_system(L, Q, [vx, vy], [x * Q.d(x) + y * Q.d(y)])


def knife_edge():
    """The knife edge on the plane: sin(theta) dx - cos(theta) dy = 0 (nonholonomic)."""
    Q = gc.Chart("x y theta")
    x, y, th = Q.coords
    vx, vy, vth = sympy.symbols("v_x v_y v_theta")
    L = (vx**2 + vy**2 + vth**2) / 2
    return implicit_lagrangian_system(L, Q, [vx, vy, vth], [[sympy.sin(th), -sympy.cos(th), 0]])


def generic(n, m):
    """An undefined L(q, v) and undefined constraint coefficients a_{a i}(q)."""
    Q = gc.Chart([f"q{i}" for i in range(n)])
    q = Q.coords
    v = sympy.symbols(f"v0:{n}")
    L = sympy.Function("L")(*q, *v)
    rows = [[sympy.Function(f"a{a}{i}")(*q) for i in range(n)] for a in range(m)]
    return implicit_lagrangian_system(L, Q, v, rows), rows


# --------------------------------------------------------------------------- continuous


@pytest.mark.parametrize("n, m", [(1, 0), (1, 1), (2, 1), (3, 2), (4, 1)])
def test_generic_equations_any_dof(n, m):
    s, rows = generic(n, m)
    eqs = s.equations()
    assert isinstance(eqs, ImplicitLagrangianEquations)
    L, q, v, p = s.lagrangian, s.q, s.velocities, s.momenta
    lam = eqs.multipliers
    expected = {}
    for i in range(n):
        expected[("legendre", i)] = eqs.legendre[i] - (p[i] - L.diff(v[i]))
        expected[("kinematic", i)] = eqs.kinematic[i] - (v[i] - eqs.qdot[i])
        force = sum((lam[a] * rows[a][i] for a in range(m)), sympy.S.Zero)
        expected[("dynamics", i)] = eqs.dynamics[i] - (eqs.pdot[i] - L.diff(q[i]) - force)
    for a in range(m):
        expected[("constraint", a)] = eqs.constraints[a] - sum(rows[a][i] * v[i] for i in range(n))
    assert decide_all_zero(expected).is_zero is True
    assert len(eqs.all()) == 3 * n + m


def test_pendulum_equations_have_the_multiplier_force():
    eqs = pendulum().equations()
    x, y = eqs.system.q
    (lam,) = eqs.multipliers
    pdx, pdy = eqs.pdot
    assert eqs.dynamics == (pdx - lam * x, pdy - lam * y + 1)
    assert "lambda" in eqs.latex()


def test_dirac_structure_membership_conditions():
    s = knife_edge()
    DD = s.dirac_structure()
    assert isinstance(DD, ConstrainedDiracStructure)
    P = s.phase
    x, y, th, px, py, pth = P.coords
    # w projects into Delta (rolling along the blade); beta = Omega^flat w + 3 pi^* alpha
    w = gc.VectorField(P, [sympy.cos(th), sympy.sin(th), 1, x, y**2, 0])
    beta = DD.omega_flat(w) + 3 * DD.annihilator[0]
    good = DD.conditions(w, beta, [3])
    assert decide_all_zero(good).is_zero is True
    wrong_multiplier = DD.conditions(w, beta, [2])
    assert decide_zero(wrong_multiplier[("dq", 0)]).is_zero is False
    # a w whose projection leaves Delta is not in D_Delta, whatever beta
    w_out = gc.VectorField(P, [1, 0, 0, 0, 0, 0])
    bad = DD.conditions(w_out, DD.omega_flat(w_out), [0])
    assert decide_zero(bad[("Delta", 0)]).is_zero is False
    # Omega^flat(d/dp) = -dq with Omega = dq ^ dp
    assert DD.omega_flat(gc.VectorField(P, {px: 1})) == -P.d(x)


def test_d_delta_is_dirac_for_holonomic_and_not_for_the_knife_edge():
    # Yoshimura & Marsden: D_Delta is integrable iff Delta is; checked through dirac.py
    hol = pendulum().dirac_structure().as_almost_dirac_structure()
    assert hol.certify_isotropic().holds is True
    assert hol.certify_maximal_rank().holds is True
    assert hol.certify_integrable().holds is True
    non = knife_edge().dirac_structure().as_almost_dirac_structure()
    assert non.certify_isotropic().holds is True
    assert non.certify_maximal_rank().holds is True
    assert non.certify_integrable().holds is False


def test_spanning_sections_of_d_delta():
    s = knife_edge()
    DD = s.dirac_structure()
    sections = DD.spanning_sections()
    assert len(sections) == 2 * 3
    assert len(s.distribution.kernel_basis()) == 2
    for u in s.distribution.kernel_basis():
        assert s.distribution.contains(u).is_zero is True
    mu = [sympy.Symbol("mu")]
    for w, beta in sections[:-1]:
        assert decide_all_zero(DD.conditions(w, beta, [0])).is_zero is True
    w, beta = sections[-1]                                  # (0, pi^* alpha)
    assert decide_all_zero(DD.conditions(w, beta, [1])).is_zero is True
    assert decide_all_zero(DD.conditions(w, beta, mu)).is_zero is False
    tex = DD.latex()
    assert r"\mu_{1}" in tex and "rank $2n = 6$" in tex


def test_hamiltonian_of_the_pendulum():
    m, g = sympy.Symbol("m", positive=True), sympy.Symbol("g")
    s = pendulum(m=m, g=g)
    px, py = s.momenta
    x, y = s.q
    assert decide_zero(s.hamiltonian() - ((px**2 + py**2) / (2 * m) + m * g * y)).is_zero is True
    # not affine in v: no Hamiltonian by the linear solve
    Q = gc.Chart("r")
    v = sympy.Symbol("v_r")
    assert implicit_lagrangian_system(v**4, Q, [v]).hamiltonian() is None


# --------------------------------------------------------------------------- bad input


def test_constraint_on_another_chart_is_refused():
    s = pendulum()
    other = gc.Chart("a b")
    with pytest.raises(ConstraintError, match="lives on Chart\\('a b'\\)"):
        implicit_lagrangian_system(s.lagrangian, s.configuration, s.velocities, [other.d(other.coords[0])])
    # the chart of (q, v), where L lives, is not the configuration chart either
    x, y = s.q
    TQ = gc.Chart([x, y] + list(s.velocities))
    with pytest.raises(ConstraintError, match="not on the configuration chart"):
        implicit_lagrangian_system(s.lagrangian, s.configuration, s.velocities, [x * TQ.d(x)])


@pytest.mark.parametrize("bad, match", [
    ("two-form", "not a one-form"),
    ("short list", "has 1 coefficients; expected 2"),
    ("velocity", "depends on"),
    ("a form, not a list of forms", "sequence of one-forms"),
])
def test_bad_constraints(bad, match):
    Q = gc.Chart("x y")
    x, y = Q.coords
    vx, vy = sympy.symbols("v_x v_y")
    constraints = {
        "two-form": [Q.d(x) ^ Q.d(y)],
        "short list": [[x]],
        "velocity": [[vx, 0]],
        "a form, not a list of forms": Q.d(x),
    }[bad]
    with pytest.raises(ConstraintError, match=match):
        implicit_lagrangian_system(vx**2 + vy**2, Q, [vx, vy], constraints)


def test_lagrangian_with_momenta_is_refused_and_other_symbols_are_constants():
    Q = gc.Chart("x")
    v, p_x = sympy.symbols("v p_x")
    with pytest.raises(ChartMismatchError, match="momenta"):
        implicit_lagrangian_system(v**2 / 2 + p_x, Q, [v], momenta=[p_x])
    # a symbol that is a coordinate of some chart made elsewhere is still just a constant here:
    # the meaning of a system does not depend on what else the process created
    R = gc.Chart("r_elsewhere")
    S = implicit_lagrangian_system(R.coords[0] * v**2 / 2, Q, [v])
    assert R.coords[0] in S.lagrangian.free_symbols


def test_dependent_constraints_make_the_scheme_undetermined():
    Q = gc.Chart("x y")
    x, y = Q.coords
    vx, vy = sympy.symbols("v_x v_y")
    s = implicit_lagrangian_system((vx**2 + vy**2) / 2, Q, [vx, vy], [[x, y], [2 * x, 2 * y]])
    with pytest.raises(ConstraintError, match="linearly"):
        discrete_dirac_scheme(s)


def test_bad_scheme_options():
    with pytest.raises(InvalidArgumentError, match="velocity"):
        discrete_dirac_scheme(pendulum(), velocity="backward")
    with pytest.raises(InvalidArgumentError, match="constraint_at"):
        discrete_dirac_scheme(pendulum(), constraint_at="end")


# --------------------------------------------------------------------------- discrete


@pytest.mark.parametrize("velocity", ["centered", "forward"])
def test_discrete_lines_are_the_printed_ones_for_generic_data(velocity):
    s, rows = generic(2, 1)
    sch = discrete_dirac_scheme(s, velocity)
    assert isinstance(sch, DiscreteDiracScheme)
    h, L, q, v, p = sch.h, s.lagrangian, s.q, s.velocities, s.momenta
    (lam,) = sch.multipliers
    first, second, third = sch.lines
    checks = {}
    for i in range(2):
        checks[("1", i)] = first[i] - (sch.new_momenta[i] - L.diff(v[i]))
        checks[("2", i)] = second[i] - (p[i] - L.diff(v[i]) + h * L.diff(q[i]) - lam * rows[0][i])
    checks["3"] = third[0] - (rows[0][0] * v[0] + rows[0][1] * v[1])
    assert decide_all_zero(checks).is_zero is True
    assert set(sch.map.auxiliary) == set(v) | {lam}
    assert sch.map.step == h
    # 2n + m equations in q_{k+1}, p_{k+1}, lambda (plus the shift of q_k for the two-step form)
    assert len(sch.map.equations) == (3 if velocity == "centered" else 2) * 2 + 2 + 1


def test_centered_scheme_state_and_velocity_definition():
    sch = discrete_dirac_scheme(pendulum())
    assert sch.state.dim == 6
    h = sch.h
    for d, Q1, qm, v in zip(sch.velocity_definition, sch.new_positions, sch.previous, sch.system.velocities):
        assert d == Q1 - qm - 2 * h * v                     # v_k = (q_{k+1} - q_{k-1}) / (2h)
    x, y = sch.system.q
    X1, Y1 = sch.new_positions
    xm, ym = sch.previous
    c = sch.discrete_constraint()[0]
    assert decide_zero(c - (x * (X1 - xm) + y * (Y1 - ym)) / (2 * h)).is_zero is True


def test_forward_scheme_is_symplectic_for_any_lagrangian():
    Q = gc.Chart("q")
    (q,) = Q.coords
    v = sympy.Symbol("v")
    s = implicit_lagrangian_system(sympy.Function("L")(q, v), Q, [v])
    sch = discrete_dirac_scheme(s, "forward")
    P = s.phase
    c = gc.certify_symplectic(sch.map, P.d(q) ^ P.d(s.momenta[0]))
    assert c.holds is True


def _linear_step_matrix(sch):
    """The matrix of a linear one-step ImplicitMap (new state = M state), by one sparse solve."""
    phi = sch.map
    unknowns, coords = phi.unknowns, phi.source.coords
    rows = [{k: e.diff(u) for k, u in enumerate(unknowns) if e.diff(u) != 0} for e in phi.equations]
    rhs = [[-e.diff(x) for e in phi.equations] for x in coords]
    sols = solve_sparse(rows, rhs, len(unknowns))
    k_new = [unknowns.index(u) for u in phi.new]
    return sympy.Matrix(len(coords), len(coords), lambda i, j: sympy.cancel(sols[j][k_new[i]]))


def test_printed_centered_scheme_is_not_symmetric():
    """Finding 1: for L = v^2/2 - q^2/2 the printed scheme damps the oscillation."""
    Q = gc.Chart("q")
    (q,) = Q.coords
    v = sympy.Symbol("v")
    s = implicit_lagrangian_system(v**2 / 2 - q**2 / 2, Q, [v])
    zeta = sympy.Symbol("zeta")
    M = _linear_step_matrix(discrete_dirac_scheme(s, "centered"))
    chi = sympy.Poly((zeta * sympy.eye(3) - M).det(), zeta)
    h = discrete_dirac_scheme(s, "centered").h
    # q_{k+1} - q_k - q_{k-1} + q_{k-2} = -2 h^2 q_k  <=>  chi = zeta^3 + (2h^2 - 1) zeta^2 - zeta + 1
    assert decide_zero(chi.as_expr() - (zeta**3 + (2 * h**2 - 1) * zeta**2 - zeta + 1)).is_zero is True
    reciprocal = sympy.Poly(sympy.expand(-zeta**3 * chi.as_expr().subs(zeta, 1 / zeta)), zeta)
    assert decide_zero(reciprocal.as_expr() - chi.as_expr()).is_zero is False
    tenth = sympy.Rational(1, 10)
    roots = mpmath.polyroots([mpmath.mpf(c) for c in sympy.Poly(chi.as_expr().subs(h, tenth), zeta).all_coeffs()],
                             extraprec=60)
    moduli = sorted(abs(r) for r in roots)
    assert moduli[0] < 1 and moduli[1] < 1 < moduli[2]          # damped principal pair, growing parasite
    # |zeta| = 1 - h^2/4 + O(h^4) per step: amplitude ~ exp(-h t/4), energy ~ exp(-h t/2)
    assert abs(moduli[0] - (1 - tenth**2 / 4)) < 1e-4 and abs(moduli[1] - moduli[0]) < 1e-12
    assert abs(moduli[2] - (1 + tenth**2 / 2)) < 1e-4          # the parasite near -1 grows like exp(h t/2)
    # the forward difference gives a reciprocal polynomial with roots on the unit circle
    F = _linear_step_matrix(discrete_dirac_scheme(s, "forward"))
    chiF = sympy.Poly((zeta * sympy.eye(2) - F).det(), zeta)
    assert chiF.all_coeffs()[0] == chiF.all_coeffs()[-1] == 1
    rootsF = mpmath.polyroots([mpmath.mpf(c) for c in sympy.Poly(chiF.as_expr().subs(h, sympy.Rational(1, 10)), zeta).all_coeffs()])
    assert all(abs(abs(r) - 1) < 1e-12 for r in rootsF)


def test_knife_edge_scheme_is_linear_in_the_unknowns():
    """Finding 2: a nonholonomic constraint does not make the step nonlinear in q_{k+1}."""
    for sch in (discrete_dirac_scheme(knife_edge()), discrete_dirac_scheme(knife_edge(), "forward")):
        phi = sch.map
        second = {(k, a, b): e.diff(a).diff(b) for k, e in enumerate(phi.equations)
                  for a in phi.unknowns for b in phi.unknowns}
        assert all(d == 0 for d in second.values())
    # what does make it nonlinear: alpha_d evaluated at a point that involves q_{k+1}
    phi = discrete_dirac_scheme(knife_edge(), "forward", "midpoint").map
    assert any(e.diff(a).diff(b) != 0 for e in phi.equations for a in phi.unknowns for b in phi.unknowns)


# --------------------------------------------------------------------------- numerics (short runs)


def _run(sch, Y, h, steps):
    from integrators.lower import lower

    step = lower(sch.map).bind({sch.h: h})
    n = sch.system.configuration.dim
    dc = sympy.lambdify(list(sch.state.coords) + list(sch.new_positions) + [sch.h], list(sch.discrete_constraint()))
    H = sympy.lambdify(sch.state.coords, sch.energy_on_state())
    E0 = H(*Y.T)
    worst_constraint = 0.0
    worst_energy = 0.0
    for _ in range(steps):
        Yn = step.step_array(Y)
        new_q = Yn[:, -2 * n:-n]
        worst_constraint = max(worst_constraint, max(np.abs(c).max() for c in dc(*Y.T, *new_q.T, h)))
        Y = Yn
        worst_energy = max(worst_energy, np.abs(H(*Y.T) - E0).max())
    return Y, worst_constraint, worst_energy


def _pendulum_start(sch, h, angles):
    q0 = np.stack([np.sin(angles), -np.cos(angles)], 1)
    p0 = np.zeros_like(q0)                              # released at rest
    if sch.velocity == "forward":
        return np.hstack([q0, p0])
    a = -np.sin(angles)[:, None] * np.stack([np.cos(angles), np.sin(angles)], 1)
    return np.hstack([q0 + h * h / 2 * a, q0, p0])          # q(-h) to second order


def test_pendulum_short_run_keeps_the_constraints():
    h = 0.02
    angles = np.array([0.3, 1.0, 2.0])
    for velocity, at in [("centered", "current"), ("forward", "midpoint")]:
        sch = discrete_dirac_scheme(pendulum(), velocity, at)
        Y, c, e = _run(sch, _pendulum_start(sch, h, angles), h, 200)
        assert c < 1e-12                                    # <alpha_d, v_k> = 0 to solver tolerance
        radius2 = Y[:, -4] ** 2 + Y[:, -3] ** 2
        if at == "midpoint":
            assert np.abs(radius2 - 1).max() < 1e-12        # SHAKE: x^2 + y^2 kept exactly
        else:
            assert np.abs(radius2 - 1).max() < 1e-2         # only its derivative is imposed


def test_numpy_and_mpmath_lowerings_agree():
    from integrators.lower import lower

    sch = discrete_dirac_scheme(knife_edge(), "forward", "midpoint")
    Y = np.array([[0.1, -0.2, 0.3, 1.0, 0.5, 2.0], [0.0, 0.0, 1.0, -1.0, 0.2, 0.5]])
    a = lower(sch.map).bind({sch.h: 0.05}).step_array(Y)
    with mpmath.workdps(30):
        b = lower(sch.map, backend="mpmath").bind({sch.h: sympy.Rational(1, 20)}, dps=30).step_array(
            [[mpmath.mpf(str(c)) for c in row] for row in Y])
    assert np.abs(a - np.array(b, dtype=float)).max() < 1e-12


# --------------------------------------------------------------------------- LaTeX


def test_derivations_mention_the_paper_steps():
    s = knife_edge()
    eqs = s.equations()
    tex = eqs.latex()
    assert r"D_\Delta" in tex and r"\Omega^\flat" in tex and r"\mathcal{D}L" in tex
    sch = discrete_dirac_scheme(s)
    assert r"\frac{q_{k+1} - q_{k-1}}{2h}" in sch.latex()
    assert "auxiliary" in sch.latex()


@pytest.mark.needs_pdflatex
def test_derivations_compile(tmp_path):
    s, _ = generic(2, 1)
    parts = [s.dirac_structure().latex(), s.equations().derivation.latex(), discrete_dirac_scheme(s).derivation.latex(),
             discrete_dirac_scheme(knife_edge(), "forward", "midpoint").derivation.latex(),
             pendulum().equations().latex()]
    pdf = compile_pdf(document("\n".join(parts)), tmp_path / "implicit.pdf")
    assert pdf.exists() and pdf.stat().st_size > 0
