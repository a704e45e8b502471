"""ConstrainedHamiltonianSystem (index reduction, Legendre transform, bad input) and the discrete Dirac entry."""

import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from geomcheck.latex import compile_pdf, document
from geomcheck.structures import discrete_dirac_scheme
from geomcheck.zero import Relation, decide_all_zero, decide_zero
from integrators.errors import InconsistentStateError, SchemeNotApplicableError, SystemDefinitionError
from integrators.schemes.discrete_dirac import lagrangian_system
from integrators.schemes.on_manifold import certify_symplectic_on_manifold

from ig_cases_constrained import CONCRETE, GENERIC, INITIAL, u

h = sp.Symbol("h")
x, y, z, px, py, pz, m, g0 = sp.symbols("x y z p_x p_y p_z m g0")
V = sp.Function("V")


def _on(system, exprs):
    S, iota = system.manifold()
    sub = iota.substitution()
    return [gc.substitute(e, sub) for e in exprs]


@pytest.mark.parametrize("system", [CONCRETE, GENERIC], ids=["pendulum", "generic-circle"])
def test_index_reduced_field_is_tangent_and_conserves_energy_on_the_manifold(system):
    X = system.vector_field
    g, c = system.constraints[0], system.hidden_constraints[0]
    assert decide_zero(X.apply_expr(g) - c).is_zero is True                # d/dt g = G H_p everywhere
    d = decide_all_zero(_on(system, [X.apply_expr(c), X.apply_expr(system.energy)]))
    assert d.is_zero is True                                             # d/dt c = 0 and dH/dt = 0 on M


def test_any_number_of_degrees_of_freedom_a_sphere_with_any_potential():
    s = ig.ConstrainedHamiltonianSystem((px**2 + py**2 + pz**2) / 2 + V(x, y, z), [x, y, z], [px, py, pz],
                                        [x**2 + y**2 + z**2 - 1])
    assert s.dim == 6 and s.manifold_dimension == 4 and s.is_generic
    X = s.vector_field
    assert decide_zero(X.apply_expr(s.constraints[0]) - s.hidden_constraints[0]).is_zero is True
    # on the manifold (unit sphere, tangent momenta) the hidden constraint is kept by the field
    r = decide_zero(gc.substitute(X.apply_expr(s.hidden_constraints[0]), {x: sp.sqrt(1 - y**2 - z**2),
                                                                             px: -(y * py + z * pz) / sp.sqrt(
                                                                                 1 - y**2 - z**2)}))
    assert r.is_zero is True


def test_from_lagrangian_is_the_legendre_transform():
    vx, vy = sp.symbols("v_x v_y")
    s = ig.ConstrainedHamiltonianSystem.from_lagrangian(m * (vx**2 + vy**2) / 2 - m * g0 * y, [x, y],
                                                        [x**2 + y**2 - 1], velocities=[vx, vy],
                                                        parameters={m: 2, g0: 1})
    assert decide_zero(s.H - ((px**2 + py**2) / (2 * m) + m * g0 * y)).is_zero is True
    assert s.parameters == (g0, m) and s.parameter_values == {m: 2, g0: 1}
    with pytest.raises(SystemDefinitionError, match="not affine in the velocities"):
        ig.ConstrainedHamiltonianSystem.from_lagrangian(vx**4 + vy**2 - y, [x, y], [x**2 + y**2 - 1],
                                                        velocities=[vx, vy])


def test_bad_constraints_are_refused():
    H = (px**2 + py**2) / 2 + y
    cases = [([x * px], "depends on the momenta"), ([m + 1], "does not depend on the positions"),
             ([], "no constraint"), ([x, y], "leave no motion"),
             (["not an expression ("], "not a scalar sympy expression")]
    for constraints, why in cases:
        with pytest.raises(SystemDefinitionError, match=why):
            ig.ConstrainedHamiltonianSystem(H, [x, y], [px, py], constraints)
    with pytest.raises(SystemDefinitionError, match="dependent"):
        ig.ConstrainedHamiltonianSystem((px**2 + py**2 + pz**2) / 2, [x, y, z], [px, py, pz],
                                        [x**2 + y**2 - 1, 2 * x**2 + 2 * y**2 - 2])
    with pytest.raises(SystemDefinitionError, match="as many momenta"):
        ig.ConstrainedHamiltonianSystem(H, [x, y], [px], [x**2 + y**2 - 1])


def test_parametrization_is_checked():
    S = gc.Chart([u, sp.Symbol("w")])
    w = S.coords[1]
    off = gc.Map(S, CONCRETE.chart, [u, 1 - u, w, w])
    with pytest.raises(SystemDefinitionError, match="does not land on the constraint manifold"):
        ig.ConstrainedHamiltonianSystem(CONCRETE.H, CONCRETE.q, CONCRETE.p, CONCRETE.constraints,
                                        parametrization=(S, off))
    S1 = gc.Chart([u])
    with pytest.raises(SystemDefinitionError, match="dimension 2"):
        ig.ConstrainedHamiltonianSystem(CONCRETE.H, CONCRETE.q, CONCRETE.p, CONCRETE.constraints,
                                        parametrization=(S1, gc.Map(S1, CONCRETE.chart, [1, 0, 0, u])))


def test_dependent_constraints_at_the_state_are_refused():
    """x^2 - y^2 = 0 (two crossing lines): G = 0 at the origin, where the multiplier is undetermined."""
    s = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2, [x, y], [px, py], [x**2 - y**2])
    s.check_state(np.array([[1.0, 1.0, 0.5, 0.5]]))
    with pytest.raises(InconsistentStateError, match="dependent") as info:
        ig.integrate(s, "rattle", [0.0, 0.0, 1.0, 0.0], dt=0.1, steps=2)
    assert info.value.name == "rank"


def test_constraint_drift_needs_constraints(pendulum):
    sol = ig.integrate(pendulum, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=2)
    with pytest.raises(SystemDefinitionError, match="ConstrainedHamiltonianSystem"):
        sol.constraint_drift()


# ----------------------------------------------------------------------------- the discrete Dirac entry


def test_discrete_dirac_entry_is_the_structures_map():
    phi = ig.scheme("discrete-dirac").step_map(CONCRETE)
    ref = discrete_dirac_scheme(lagrangian_system(CONCRETE), "forward", "midpoint", h=h).map
    assert phi.equations == ref.equations and phi.new == ref.new and phi.auxiliary == ref.auxiliary
    assert phi.source == CONCRETE.chart


def _keeps_g(system):
    phi = ig.scheme("discrete-dirac").step_map(system)
    g = system.constraints[0]
    after = gc.substitute(g, dict(zip(system.chart.coords, phi.new)))
    rel = Relation(phi.equations, phi.unknowns, guess=phi.guess, small=[h])
    return decide_zero(after - g, relations=[rel])


def test_discrete_dirac_keeps_quadratic_constraints_only():
    assert _keeps_g(CONCRETE).is_zero is True
    quartic = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2 + y, [x, y], [px, py], [x**4 + y**2 - 1])
    d = _keeps_g(quartic)
    assert d.is_zero is False and d.point is not None


def test_discrete_dirac_is_presymplectic_on_the_position_constraint():
    """On {g = 0} with p free (iota^* omega degenerate along G^T): preserved for the pendulum."""
    S = gc.Chart([u, px, py])
    iota = gc.Map(S, CONCRETE.chart, [(1 - u**2) / (1 + u**2), 2 * u / (1 + u**2), px, py])
    phi = ig.scheme("discrete-dirac").step_map(CONCRETE)
    assert certify_symplectic_on_manifold(phi, CONCRETE.omega, iota).holds is True


def test_discrete_dirac_long_run_keeps_g_and_energy_error_bounded():
    sol = ig.integrate(CONCRETE, "discrete-dirac", INITIAL, dt=0.05, steps=3000, save_every=100)
    g, c = sol.constraint_drift()
    assert g.max() < 1e-13                                   # measured 3.6e-15
    assert 0.01 < c.max() < 0.2                              # the hidden constraint is O(h) off: p is a velocity
    E = np.abs(sol.energy() - sol.energy()[0])
    assert E.max() < 0.05 and E[15:].max() < 1.5 * E[:16].max()   # bounded (measured 0.036)


def test_discrete_dirac_needs_a_quadratic_kinetic_energy():
    s = ig.ConstrainedHamiltonianSystem(px**4 + py**2 + y, [x, y], [px, py], [x**2 + y**2 - 1])
    with pytest.raises(SchemeNotApplicableError, match="quadratic in p"):
        ig.scheme("discrete-dirac").step_map(s)


def test_discrete_dirac_order_certificate_uses_the_projection():
    cert = ig.scheme("discrete-dirac").certify(GENERIC)["order"]
    assert cert.holds is True
    reg, equivalence = ig.scheme("discrete-dirac").regular_form(GENERIC)
    assert equivalence.holds is True and "invariant under p -> p + G^T c" in equivalence.method


@pytest.mark.needs_pdflatex
def test_discrete_dirac_derivations_compile(tmp_path):
    cert = ig.scheme("discrete-dirac").certify(GENERIC)["order"]
    _, equivalence = ig.scheme("discrete-dirac").regular_form(GENERIC)
    compile_pdf(document(cert.derivation.latex() + "\n" + equivalence.derivation.latex()),
                str(tmp_path / "dirac.pdf"))


def rod_chain(n, dependent=False):
    """An n-rod chain in the plane (unit masses and rods, gravity); ``dependent``: the last rod replaced by 2 g_1."""
    xs, ys = sp.symbols(f"x1:{n + 1}"), sp.symbols(f"y1:{n + 1}")
    q = [v for pair in zip(xs, ys) for v in pair]
    p = sp.symbols(f"p1:{2 * n + 1}")
    g = [xs[0]**2 + ys[0]**2 - 1] + [(xs[i] - xs[i - 1])**2 + (ys[i] - ys[i - 1])**2 - 1 for i in range(1, n)]
    if dependent:
        g[-1] = 2 * g[0]
    return ig.ConstrainedHamiltonianSystem(sum(v**2 for v in p) / 2 + sum(ys), q, p, g)


@pytest.mark.parametrize("n", [3, 4])
def test_chains_of_three_and_four_rods_are_built_quickly_and_their_multipliers_keep_the_constraints(n):
    """Construction took 200 s for 3 rods (cancel of the multipliers); now well under 2 s.  The index-reduced field
    keeps the hidden constraints: d/dt (G H_p) = 0 along X, an identity in (q, p) (HLW VII.1)."""
    import time

    t = time.process_time()
    s = rod_chain(n)
    assert time.process_time() - t < 2.0
    X = s.vector_field
    ddt = [sum(sp.diff(c, v) * X.component(v) for v in s.chart.coords) for c in s.hidden_constraints]
    assert decide_all_zero(ddt).is_zero is True


@pytest.mark.parametrize("n", [3, 4])
def test_dependent_rods_are_refused(n):
    """g_n = 2 g_1: G H_pp G^T has two proportional rows everywhere (det identically 0)."""
    with pytest.raises(SystemDefinitionError, match="dependent"):
        rod_chain(n, dependent=True)


def test_regular_somewhere_is_proved_by_one_exact_nonzero_value_and_never_guessed():
    from integrators.systems.constrained import regular_at_a_rational_point

    a, b, l = sp.symbols("a b l")
    n = sp.Symbol("n", integer=True)
    assert regular_at_a_rational_point(sp.Matrix([[a, b], [b, a]])) is True
    # singular everywhere, or rational but zero at every point tried, or not a rational number: False (undecided)
    assert regular_at_a_rational_point(sp.Matrix([[a, b], [2 * a, 2 * b]])) is False
    assert regular_at_a_rational_point(sp.Matrix([[sp.sin(a) ** 2 + sp.cos(a) ** 2 - 1]])) is False
    assert regular_at_a_rational_point(sp.Matrix([[V(a)]])) is False
    # an integer symbol gets integers: sin(pi n) is 0 there (and would be nonzero, not rational, elsewhere)
    assert regular_at_a_rational_point(sp.Matrix([[sp.sin(sp.pi * n)]])) is False
    assert regular_at_a_rational_point(sp.Matrix([[l**2 + n]])) is True
    # a determinant that vanishes on a hypersurface only: nonzero at a random rational point
    assert regular_at_a_rational_point(sp.Matrix([[a - b, 0], [0, 1]])) is True
