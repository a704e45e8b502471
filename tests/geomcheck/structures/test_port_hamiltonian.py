"""Port-Hamiltonian systems: power balance, Dirac structure, Q-structure, and Section 4 of
Salnikov & Hamdouni 2019 end to end (with the printed formulas as read in our copy: damage and readings)."""

import itertools

import pytest
import sympy as sp

from casestudies.salnikov2019_van_der_pol import oscillator_van_der_pol, printed_q_structure, q_as_printed_with_brackets
import geomcheck as gc
from geomcheck import errors
from geomcheck.latex import compile_pdf, document
from geomcheck.structures import (
    PortHamiltonianSystem,
    first_order_system,
    port_form,
    port_hamiltonian_forms,
    port_q_structure,
    quadratic_energy_forms,
)
from geomcheck.zero import decide_all_zero, decide_zero

q, p, c, u, k = sp.symbols("q p c u k")
V = sp.Function("V")


@pytest.fixture(scope="module")
def vdp():
    return oscillator_van_der_pol()


def generic_system(n, m):
    xs = sp.symbols(f"x1:{n + 1}")
    us = sp.symbols(f"u1:{m + 1}")
    J = sp.zeros(n, n)
    R = sp.zeros(n, n)
    for i, j in itertools.combinations(range(n), 2):
        J[i, j] = sp.Function(f"J{i}{j}")(*xs)
        J[j, i] = -J[i, j]
    for i in range(n):
        for j in range(i, n):
            R[i, j] = R[j, i] = sp.Function(f"R{i}{j}")(*xs)
    g = sp.Matrix(n, m, lambda i, a: sp.Function(f"g{i}{a}")(*xs))
    H = sp.Function("H")(*xs)
    return PortHamiltonianSystem(J, R, g, H, xs, us)


# --------------------------------------------------------------------------- the system


@pytest.mark.parametrize("n,m", [(2, 1), (3, 2), (4, 1)])
def test_power_balance_generic(n, m):
    S = generic_system(n, m)
    cert = S.power_balance()
    assert cert.holds is True
    # the residual is exactly dH/dt + grad H^T R grad H - y^T u, and dH/dt alone is not it
    assert decide_zero(cert.residual).is_zero is True
    e = sp.Matrix(S.grad)
    dH = (e.T * sp.Matrix(S.vector_field))[0]
    assert decide_zero(dH).is_zero is False


def test_output_and_vector_field():
    S = PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, c]], [[0], [1]], p**2 / 2 + V(q), [q, p], [u])
    assert S.output == (p,)
    assert S.vector_field == (p, -c * p + u - sp.Derivative(V(q), q))


def test_dissipation_certificates():
    pos = sp.Symbol("r", positive=True)
    S = PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, pos]], None, (q**2 + p**2) / 2, [q, p])
    assert S.certify_dissipative().holds is True
    S = PortHamiltonianSystem([[0, 1], [-1, 0]], [[1, 2], [2, 1]], None, (q**2 + p**2) / 2, [q, p])
    bad = S.certify_dissipative()
    assert bad.holds is False and bad.residual == -3
    S = PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, c]], None, (q**2 + p**2) / 2, [q, p])
    assert S.certify_dissipative().holds is False        # c may be negative
    # sampling respects assumptions: r > 0 makes [[r, 1], [1, r + 1/r]] PSD (det = r^2), never refuted
    S = PortHamiltonianSystem([[0, 1], [-1, 0]], [[pos, 1], [1, pos + 1 / pos]], None, (q**2 + p**2) / 2, [q, p])
    assert S.certify_dissipative().holds is not False
    S = PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, V(q)**2]], None, (q**2 + p**2) / 2, [q, p])
    assert S.certify_dissipative().holds is None          # sign of a generic function's square: not decided


def test_dirac_structure_contains_the_dynamics():
    """(f, e) of the system lies in the graph of D, with resistive ports for R."""
    S = PortHamiltonianSystem([[0, V(q, p)], [-V(q, p), 0]], [[0, 0], [0, c]], [[0], [1]],
                              sp.Function("H")(q, p), [q, p], [u])
    D = S.dirac_matrix()
    assert S.port_names() == ("resistive_p", "port_u")
    e_s = list(S.grad)
    f = sp.Matrix([-v for v in S.vector_field] + [-e_s[1]] + list(S.output))
    e = sp.Matrix(e_s + [c * e_s[1]] + [u])
    assert decide_all_zero(list(f - D * e)).is_zero is True
    assert decide_zero((e.T * f)[0]).is_zero is True          # power conservation of the Dirac structure
    L = S.dirac_structure()
    assert L.certify_isotropic().holds is True and L.certify_maximal_rank().holds is True


def test_q_structure_homological_iff_D_poisson():
    S = PortHamiltonianSystem([[0, 1], [-1, 0]], None, [[0], [1]], (q**2 + p**2) / 2, [q, p], [u])
    assert S.q_structure().holds is True             # constant D
    S = PortHamiltonianSystem([[0, 1], [-1, 0]], None, [[0], [q]], (q**2 + p**2) / 2, [q, p], [u])
    assert S.q_structure().holds is True             # D^{pw} = -q: still Poisson in 3D
    S = PortHamiltonianSystem([[0, 1], [-1, 0]], None, [[q], [0]], (q**2 + p**2) / 2, [q, p], [u])
    Qs = S.q_structure()                             # [D, D]^{qpw} = 2 D^{pq} d_q D^{wq} != 0
    assert Qs.holds is False
    assert Qs.schouten and Qs.poisson_decision.is_zero is False


def test_q_o_q_is_half_the_schouten_bracket(vdp):
    """(Q o Q)(x^i) = 1/2 sum_{j<k} [D, D]^{ijk} p_j p_k for the Section 4 D."""
    Qs = vdp.q_structure
    E = Qs.chart
    n = E.dim
    T = gc.schouten_bracket(Qs.D, Qs.D, E)
    S = Qs.report.square
    diffs = []
    for i in range(n):
        comp = S.component_terms().get(i, {})
        for j, kk in itertools.combinations(range(n), 2):
            diffs.append(comp.get((j, kk), 0) - T[i, j, kk] / 2)
    assert decide_all_zero(diffs).is_zero is True


def test_port_q_structure_convention():
    """Q(x^i) = D^{ij} p_j and Q(p_k) = 1/2 d_k D^{ij} p_i p_j, as in the paper."""
    M = gc.Chart("a b")
    a, b = M.coords
    W = sp.Function("W")(a, b)
    D = [[0, W, 0], [-W, 0, a * b], [0, -a * b, 0]]
    Qs = port_q_structure(D, M, ["w"])
    Q = Qs.field
    T = Q.chart
    th = T.coords[3:]
    for i, xi in enumerate(T.coords[:3]):
        expected = sum((D[i][j] * th[j] for j in range(3)), sp.S.Zero)
        assert (Q.component(xi) - T.function(expected)).is_zero()
    for kx, xk in enumerate(T.coords[:3]):
        expected = sum((sp.diff(sp.sympify(D[i][j]), xk) * th[i] * th[j] / 2
                        for i in range(3) for j in range(3)), sp.S.Zero)
        assert (Q.component(th[kx]) - T.function(expected)).is_zero()


def test_bad_systems():
    with pytest.raises(errors.NotSkewError, match="J is not skew"):
        PortHamiltonianSystem([[0, 1], [1, 0]], None, None, p**2, [q, p])
    with pytest.raises(errors.PortHamiltonianError, match="R is not symmetric"):
        PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 1], [0, 0]], None, p**2, [q, p])
    with pytest.raises(errors.PortHamiltonianShapeError, match="3 rows"):
        PortHamiltonianSystem([[0, 1], [-1, 0], [0, 0]], None, None, p**2, [q, p])
    with pytest.raises(errors.ShapeError, match="one column per input"):
        PortHamiltonianSystem([[0, 1], [-1, 0]], None, [[0, 1], [1, 0]], p**2, [q, p], [u])
    with pytest.raises(errors.PortHamiltonianError, match="share symbols"):
        PortHamiltonianSystem([[0, 1], [-1, 0]], None, [[0], [1]], p**2, [q, p], [p])
    with pytest.raises(errors.PortHamiltonianError, match="depends on the inputs"):
        PortHamiltonianSystem([[0, 1], [-1, 0]], None, [[0], [1]], p**2 + u, [q, p], [u])
    with pytest.raises(errors.PortHamiltonianError, match="not affine"):
        port_hamiltonian_forms([p, -q + u**2], [q, p], (q**2 + p**2) / 2, u=[u])
    with pytest.raises(errors.PortHamiltonianError, match="nonlinear part"):
        quadratic_energy_forms([p, -q**3], [q, p])
    t = sp.Symbol("t")
    y = sp.Function("y")(t)
    with pytest.raises(errors.PortHamiltonianError, match="not linear in the highest"):
        first_order_system([y.diff(t, 2)**2 + y], [y], t)


# --------------------------------------------------------------------------- from equations to structure


def test_forms_of_the_damped_oscillator_are_unique():
    f = port_hamiltonian_forms([p, -q - c * p + u], [q, p], (q**2 + p**2) / 2, u=[u])
    assert f.consistent and f.parameters == ()
    assert f.J == sp.Matrix([[0, 1], [-1, 0]]) and f.R == sp.Matrix([[0, 0], [0, c]])
    assert f.g == sp.Matrix([[0], [1]])
    assert f.check.holds is True
    assert f.system().power_balance().holds is True


def test_forms_with_a_degenerate_energy_have_free_parameters():
    xs = sp.symbols("x1:4")
    H = (xs[0]**2 + xs[1]**2) / 2                      # x3 does not enter H
    F = [xs[1], -xs[0], 2 * xs[0]]
    f = port_hamiltonian_forms(F, xs, H)
    assert f.consistent and len(f.parameters) == 3      # the third column of J - R is free
    assert f.check.holds is True
    S = f.system({p_: 1 for p_ in f.parameters})
    assert decide_all_zero([a - b for a, b in zip(S.vector_field, F)]).is_zero is True


def test_forms_with_a_generic_energy():
    H = sp.Function("H")(q, p)
    F = [H.diff(p), -H.diff(q) - c * H.diff(p)]
    f = port_hamiltonian_forms(F, [q, p], H)
    assert f.consistent and f.parameters == ()
    assert f.R == sp.Matrix([[0, 0], [0, c]])


def test_inconsistent_ansatz():
    f = port_hamiltonian_forms([p, -q - c * q**2 * p], [q, p], (q**2 + p**2) / 2)
    assert not f.consistent and f.J is None
    with pytest.raises(errors.PortHamiltonianError, match="inconsistent"):
        f.system()
    g = port_hamiltonian_forms([p, -q - c * q**2 * p], [q, p], (q**2 + p**2) / 2, degree=2, depends_on=[q])
    assert g.consistent and g.R[1, 1] == c * q**2


def test_quadratic_energy_family():
    A = sp.Matrix([[0, 1, 0], [-2, -1, 1], [0, -1, 0]])
    xs = sp.symbols("x1:4")
    F = list(A * sp.Matrix(xs))
    f = quadratic_energy_forms(F, xs)
    assert len(f.parameters) == 6 and f.check.holds is True
    S = f.system({"P11": 1, "P12": 0, "P13": 0, "P22": 2, "P23": 0, "P33": 2})
    assert decide_all_zero([a - b for a, b in zip(S.vector_field, F)]).is_zero is True
    assert S.certify_dissipative().holds is True


def test_unknown_quadratic_energy_for_section4(vdp):
    """The paper's H is one member of the quadratic family; the nonlinear damping is a port."""
    x = vdp.first_order.x
    Omt = vdp.parameters["Omega_t"]
    F = [f.xreplace({vdp.system.u[0]: 1}) for f in vdp.system.vector_field]
    fam = quadratic_energy_forms(F, x, remainder="port")
    assert len(fam.parameters) == 10 and fam.check.holds is True
    vals = {s: 0 for s in fam.parameters}
    vals.update({"P11": 1, "P22": 1, "P33": 1 / Omt**2, "P44": 1})
    S = fam.system(vals)
    assert decide_zero(S.H - vdp.H).is_zero is True
    eps, q1 = vdp.parameters["epsilon"], x[2]
    assert S.R[3, 3] == -eps                               # the linear part of the damping
    assert decide_zero(S.g[3, 0] + eps * q1**2 * x[3]).is_zero is True   # the rest is the port
    assert S.power_balance().holds is True


def test_port_form_every_J_works():
    xs = sp.symbols("x1:4")
    F = [xs[1] * xs[2], -xs[0], xs[0] ** 2]
    H = sum(v**2 for v in xs) / 2
    f = port_form(F, xs, H)
    assert len(f.parameters) == 3 and f.check.holds is True
    S = f.system({"J12": 5})
    assert S.power_balance().holds is True
    e = list(f.port_value)[0]
    assert decide_all_zero([a.xreplace({e: 1}) - b for a, b in zip(S.vector_field, F)]).is_zero is True


def test_first_order_system_of_any_order():
    t = sp.Symbol("t")
    y = sp.Function("y")(t)
    S = first_order_system([y.diff(t, 3) + k * y.diff(t) - y**2], [y], t)
    assert S.x == sp.symbols("y0 y1 y2")
    assert S.F == (S.x[1], S.x[2], S.x[0]**2 - k * S.x[1])


# --------------------------------------------------------------------------- Section 4 end to end


def test_first_order_system_of_eq2(vdp):
    x1, x2, q1, q2 = vdp.first_order.x
    P = vdp.parameters
    m, Om, A, eps, Omt = P["m"], P["Omega"], P["A"], P["epsilon"], P["Omega_t"]
    a = eps * (1 - q1**2)
    expected = [x2, -x1 + m * Om**2 * q1, q2, -(Om**2 - A * m * Om**2) * q1 + a * q2 - A * x1]
    assert decide_all_zero([f - e for f, e in zip(vdp.first_order.F, expected)]).is_zero is True
    # with Omega_t^2 := Omega^2 - A m Omega^2 (what the pH system uses)
    F = vdp.system.vector_field
    e = vdp.system.u[0]
    printed = [x2, -x1 + m * Om**2 * q1, q2, -Omt**2 * q1 + a * q2 - A * x1]
    assert decide_all_zero([f.xreplace({e: 1}) - w for f, w in zip(F, printed)]).is_zero is True


def test_first_order_line_as_read_in_our_copy(vdp):
    """Finding [damage]: as read in our copy x2' = -x1 + m Omega q; eq. (2) gives -x1 + m Omega^2 q1.

    Re-derived with plain sympy from eq. (2), then held against the example's first-order system.
    """
    m, Om, A, eps, y, q_, yd, qd, ydd, qdd = sp.symbols("m Omega A epsilon y q ydot qdot yddot qddot")
    eq2 = [ydd + y - m * Om**2 * q_, qdd - eps * (1 - q_**2) * qd + Om**2 * q_ - A * ydd]
    sol = sp.solve(eq2, [ydd, qdd], dict=True)[0]
    # the second line: y'' = -y + m Omega^2 q, i.e. x2' = -x1 + m Omega^2 q1 (q is q1: the authors' notation)
    assert sp.expand(sol[ydd] - (-y + m * Om**2 * q_)) == 0
    assert sp.expand(sol[ydd] - (-y + m * Om * q_)) != 0                      # the line as read in our copy
    # the fourth line as printed, -Omega_t^2 q1 + a q2 - A y with Omega_t^2 = Omega^2 - A m Omega^2, holds
    assert sp.expand(sol[qdd] - (-(Om**2 - A * m * Om**2) * q_ + eps * (1 - q_**2) * qd - A * y)) == 0
    # the paper prints the coefficient m Omega^2 q1 in g (second entry) and in D (entries 25, 52) itself
    x1, x2, q1, q2 = vdp.first_order.x
    P = vdp.parameters
    assert vdp.system.g[1, 0] == P["m"] * P["Omega"]**2 * q1
    assert decide_zero(vdp.first_order.F[1] - (-x1 + P["m"] * P["Omega"] * q1)).is_zero is False
    assert decide_zero(vdp.first_order.F[1] - (-x1 + P["m"] * P["Omega"]**2 * q1)).is_zero is True


def test_pH_form_H_g_D_and_f_i_as_printed(vdp):
    x1, x2, q1, q2 = vdp.first_order.x
    P = vdp.parameters
    m, Om, A, eps, Omt = P["m"], P["Omega"], P["A"], P["epsilon"], P["Omega_t"]
    a = eps * (1 - q1**2)
    S = vdp.system
    assert S.H == (x1**2 + x2**2) / 2 + (Omt**2 * q1**2 + q2**2) / 2
    assert S.J == sp.Matrix([[0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 1], [0, 0, -1, 0]])
    assert S.R == sp.zeros(4, 4)
    g_printed = [0, m * Om**2 * q1, 0, a * q2 - A * x1]
    assert decide_all_zero([S.g[i, 0] - g_printed[i] for i in range(4)]).is_zero is True
    fi_printed = m * Om**2 * q1 * x2 - A * x1 * q2 + a * q2**2
    assert decide_zero(vdp.flows_efforts["f_i"] - fi_printed).is_zero is True
    assert vdp.flows_efforts["e_s"] == (x1, x2, Omt**2 * q1, q2)
    D_printed = sp.Matrix([
        [0, -1, 0, 0, 0],
        [1, 0, 0, 0, -m * Om**2 * q1],
        [0, 0, 0, -1, 0],
        [0, 0, 1, 0, -a * q2 + A * x1],
        [0, m * Om**2 * q1, 0, a * q2 - A * x1, 0],
    ])
    assert decide_all_zero(list(vdp.dirac.matrix - D_printed)).is_zero is True
    assert vdp.dirac.matrix.shape == (5, 5)


def test_power_balance_H_dot_is_e_i_f_i(vdp):
    assert vdp.power_balance.holds is True
    x = vdp.system.x
    e = vdp.system.u[0]
    Hdot = sum(sp.diff(vdp.H, xi) * fi for xi, fi in zip(x, vdp.system.vector_field)).xreplace({e: 1})
    f_s = vdp.flows_efforts["f_s"]
    e_s = vdp.flows_efforts["e_s"]
    assert decide_zero(Hdot + sum(a * b for a, b in zip(e_s, f_s))).is_zero is True          # H' = -e_s^T f_s
    assert decide_zero(Hdot - vdp.flows_efforts["e_i"] * vdp.flows_efforts["f_i"]).is_zero is True


def test_dirac_structure_of_section4(vdp):
    cs = vdp.certificates
    assert cs["isotropic"].holds is True
    assert cs["maximal_rank"].holds is True
    assert cs["integrable"].holds is False          # D is not Poisson


def test_non_uniqueness_reported(vdp):
    # no pH form with constant J, R and no port: the Van der Pol damping depends on q1
    assert vdp.constant_forms.consistent is False
    # with entries quadratic in q1 there is exactly one, but its R is indefinite
    f = vdp.quadratic_forms
    assert f.consistent and f.parameters == () and f.check.holds is True
    assert f.system().certify_dissipative().holds is False
    # the paper's construction with a port: every skew J works
    x = vdp.first_order.x
    assert len(port_form(vdp.forms.F, x, vdp.H).parameters) == 6
    assert vdp.forms.check.holds is True


def test_q_built_from_D(vdp):
    Qs = vdp.q_structure
    Q = Qs.field
    assert Q.degree == 1
    T = Q.chart
    X1, X2, X3, X4, X5 = T.coords[:5]
    p1, p2, p3, p4, p5 = T.coords[5:]
    P = vdp.parameters
    m, Om, A, eps = P["m"], P["Omega"], P["A"], P["epsilon"]
    a = eps * (1 - X3**2)
    corrected = gc.VectorField(T, {
        X1: -p2,
        X2: p1 - p5 * m * Om**2 * X3,
        X3: -p4,
        X4: p3 + (A * X1 - a * X4) * p5,
        X5: p2 * m * Om**2 * X3 + (a * X4 - A * X1) * p4,
        p1: A * p4 * p5,
        p3: -m * Om**2 * p2 * p5 + 2 * eps * X3 * X4 * p4 * p5,
        p4: -a * p4 * p5,
    })
    assert (Q - corrected).is_zero()


def _q_of_bivector_plain(D, xs):
    """Q = D^{ij} p_j d/dx^i + 1/2 d_k D^{ij} p_i p_j d/dp_k, with plain sympy.

    Returns ``(linear, quadratic)``: ``linear[i][j]`` the coefficient of ``p_j`` in ``Q(x^i)`` and
    ``quadratic[k][(i, j)]`` (``i < j``) the coefficient of ``p_i p_j`` in ``Q(p_k)`` (odd p: p_j p_i = -p_i p_j).
    """
    n = len(xs)
    linear = [[D[i, j] for j in range(n)] for i in range(n)]
    quadratic = [{(i, j): sp.expand((D[i, j].diff(xs[k]) - D[j, i].diff(xs[k])) / 2)
                  for i in range(n) for j in range(i + 1, n)} for k in range(n)]
    return linear, quadratic


def test_printed_q_literal_and_bracketed_readings(vdp):
    """Findings [convention] (brackets in d/dx^4, d/dx^5) and [damage] (A p4 p5 p5 in d/dp_1), plain sympy.

    Q is computed from the printed D by the formula, with no geomcheck; the printed components are
    then compared in both readings, and the readings are held against the example's Q.
    """
    X = sp.symbols("x1:6")
    m, Om, A, eps = sp.symbols("m Omega A epsilon")
    a = eps * (1 - X[2]**2)
    D = sp.Matrix([                                    # the printed D, with q1 = x^3, q2 = x^4, x1 = x^1
        [0, -1, 0, 0, 0],
        [1, 0, 0, 0, -m * Om**2 * X[2]],
        [0, 0, 0, -1, 0],
        [0, 0, 1, 0, -a * X[3] + A * X[0]],
        [0, m * Om**2 * X[2], 0, a * X[3] - A * X[0], 0],
    ])
    linear, quadratic = _q_of_bivector_plain(D, X)
    # d/dx^4, bracketed: p3 - p5 (a x4 - A x1) -> coefficients (p3: 1, p5: -(a x4 - A x1)), nothing of degree 0
    assert [sp.expand(c) for c in linear[3]] == [0, 0, 1, 0, sp.expand(-(a * X[3] - A * X[0]))]
    # d/dx^5, bracketed: p2 m Omega^2 x3 + p4 (a x4 - A x1)
    assert [sp.expand(c) for c in linear[4]] == [0, sp.expand(m * Om**2 * X[2]), 0, sp.expand(a * X[3] - A * X[0]), 0]
    # literally, p3 - p5 a x4 - A x1 has p5-coefficient -a x4 (not the D entry) and a degree-0 term -A x1
    assert sp.expand(linear[3][4] - (-a * X[3])) != 0 and A * X[0] != 0
    # d/dp_1: A p4 p5 from D (p4 p5 with i < j); the printed A p4 p5 p5 = 0 since p5 p5 = 0 for odd p5
    assert {ij: c for ij, c in quadratic[0].items() if c != 0} == {(3, 4): A}
    # the other printed components agree with the formula
    assert {ij: c for ij, c in quadratic[2].items() if c != 0} == {(1, 4): -m * Om**2, (3, 4): sp.expand(2 * eps * X[2] * X[3])}
    assert {ij: c for ij, c in quadratic[3].items() if c != 0} == {(3, 4): sp.expand(-a)}
    assert all(c == 0 for k in (1, 4) for c in quadratic[k].values())
    assert linear[0][1] == -1 and linear[2][3] == -1 and linear[1][0] == 1 and linear[1][4] == -m * Om**2 * X[2]

    # the same with geomcheck: literal reading differs in exactly three components, bracketed reading agrees
    Q = vdp.q_structure.field
    printed = printed_q_structure(vdp)
    T = Q.chart
    assert printed.chart == T
    diff = Q - printed
    wrong = {T.coords[i] for i, terms in diff.component_terms().items()
             if not gc.VectorField._raw(T, {i: terms}).is_zero()}
    X4, X5, p1 = T.coords[3], T.coords[4], T.coords[5]
    assert wrong == {X4, X5, p1}
    assert printed.component(p1).is_zero() and not Q.component(p1).is_zero()
    with pytest.raises(errors.NotHomogeneousError):      # literally, not of degree 1
        printed.degree
    bracketed = q_as_printed_with_brackets(vdp)
    assert (Q - bracketed).is_zero() is True and bracketed.degree == 1


def test_literal_disagreements_found_by_the_example(vdp):
    assert set(vdp.misprints) == {"first-order system, x2'", "Q, coefficient of d/dq2",
                                  "Q, coefficient of d/dx5", "Q, coefficient of d/dtheta_x1"}
    printed, computed = vdp.misprints["Q, coefficient of d/dtheta_x1"]
    assert printed.is_zero() and not computed.is_zero()


def test_obstruction_comes_from_the_port(vdp):
    assert vdp.q_structure.state_poisson is True
    assert "comes from the ports" in vdp.q_structure.derivation.steps[-1].text


@pytest.mark.parametrize("n", [1, 2, 3])
def test_canonical_system_with_constant_inputs_is_dirac(n):
    """J canonical in dimension 2n, generic H, constant g: D is constant, so Poisson."""
    xs = sp.symbols(f"z1:{2 * n + 1}")
    J = sp.zeros(2 * n, 2 * n)
    for i in range(n):
        J[i, n + i], J[n + i, i] = 1, -1
    g = sp.Matrix(2 * n, 1, lambda i, a: i + 1)
    S = PortHamiltonianSystem(J, None, g, sp.Function("H")(*xs), xs, [u])
    assert S.power_balance().holds is True
    assert S.dirac_structure().certify_integrable().holds is True
    Qs = S.q_structure()
    assert Qs.holds is True and Qs.state_poisson is True


def test_q_o_q_obstruction(vdp):
    Qs = vdp.q_structure
    assert Qs.holds is False
    E = Qs.chart
    names = {(E.coords[i].name, E.coords[j].name, E.coords[kk].name): v for (i, j, kk), v in Qs.schouten.items()}
    P = vdp.parameters
    A, m, Om, eps = P["A"], P["m"], P["Omega"], P["epsilon"]
    q1 = E.coords[2]
    assert set(names) == {("x2", "q2", "x5"), ("q1", "q2", "x5")}
    assert decide_zero(names[("x2", "q2", "x5")] - 2 * (A + m * Om**2)).is_zero is True
    assert decide_zero(names[("q1", "q2", "x5")] - 2 * eps * (1 - q1**2)).is_zero is True
    nonzero = {c.coordinate.name for c in Qs.report.components}
    assert nonzero == {"x2", "q1", "q2", "x5", "theta_q1"}


def test_q_homological_exactly_when_the_obstruction_vanishes(vdp):
    """With A = -m Omega^2 and epsilon = 0, [D, D] = 0 and Q is a Q-structure."""
    P = vdp.parameters
    sub = {P["A"]: -P["m"] * P["Omega"]**2, P["epsilon"]: 0}
    D = vdp.dirac.matrix.xreplace(sub)
    M = gc.Chart(list(vdp.system.x))
    assert port_q_structure(D, M, ["x5"]).holds is True


# --------------------------------------------------------------------------- LaTeX


@pytest.mark.needs_pdflatex
def test_derivations_compile(vdp, tmp_path):
    parts = [vdp.latex(), vdp.quadratic_forms.latex(),
             quadratic_energy_forms([p, -k * q - c * p], [q, p]).latex(),
             generic_system(2, 1).power_balance().latex(),
             PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, c]], None, (q**2 + p**2) / 2,
                                   [q, p]).certify_dissipative().latex(),
             "$" + vdp.system.latex() + "$"]
    compile_pdf(document("\n".join(parts)), tmp_path / "ph.pdf")
    assert (tmp_path / "ph.pdf").stat().st_size > 0
