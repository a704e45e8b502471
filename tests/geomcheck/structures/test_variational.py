"""Galerkin variational integrators (geomcheck.structures.variational): rules, certificates, Noether.

Independent references: the quadrature rules' defining moments (written here), HLW VI.6 and
Marsden-West Sec. 2.2 (the midpoint L_d gives the implicit midpoint rule, for every regular L;
the trapezoidal one of L = v^2/2 - V(q) Stormer-Verlet; both written out by hand below), and a
numeric Jacobian (implicit function theorem, mpmath) for the conformal factor.
"""

import mpmath
import pytest
import sympy as sp

from geomcheck.errors import ExpressionError, InvalidArgumentError, ShapeError
from geomcheck.structures.variational import (certify_discrete_noether, certify_variational_conformal,
                                              certify_variational_del, certify_variational_order,
                                              certify_variational_symplectic, discrete_momentum,
                                              legendre_transform, quadrature_rule, variational_integrator)
from geomcheck.zero import decide_all_zero

q, v, h, gamma = sp.symbols("q v h gamma")
g_pos = sp.Symbol("gamma", positive=True)
V = sp.Function("V")
x1, y1, x2, y2, u1, w1, u2, w2 = sp.symbols("x1 y1 x2 y2 u1 w1 u2 w2")
x, y, u, w = sp.symbols("x y u w")


# ----------------------------------------------------------------------------- quadrature


@pytest.mark.parametrize("rule", [("gauss", 1), ("gauss", 2), ("gauss", 3), ("lobatto", 2), ("lobatto", 3),
                                  ("lobatto", 4)])
def test_quadrature_rules_integrate_exactly_to_their_degree(rule):
    """Gauss s: exact for degree 2s - 1; Lobatto s: 2s - 3; and not one degree more."""
    R = quadrature_rule(rule)
    exact_to = 2 * R.stages - 1 if R.kind == "gauss" else 2 * R.stages - 3
    for k in range(exact_to + 2):
        err = sp.nsimplify(sum(b * c**k for b, c in zip(R.weights, R.nodes)) - sp.Rational(1, k + 1))
        assert (sp.simplify(err) == 0) == (k <= exact_to), (rule, k)
    assert R.order == exact_to + 1
    if R.kind == "lobatto":
        assert R.nodes[0] == 0 and R.nodes[-1] == 1


def test_order_picks_the_smallest_rule_and_refuses_odd_orders():
    assert quadrature_rule(order=2).name == "midpoint"
    assert quadrature_rule(order=6).name == "gauss-3"
    assert quadrature_rule("lobatto-3", order=4).name == "lobatto-3"
    with pytest.raises(InvalidArgumentError, match="order 3"):
        quadrature_rule(order=3)
    with pytest.raises(InvalidArgumentError, match="has order 2"):
        quadrature_rule("trapezoidal", order=4)
    for bad in [("lobatto", 1), ("gauss", 0), ("radau", 2), "simpson", ("gauss", 2.0)]:
        with pytest.raises(InvalidArgumentError):
            quadrature_rule(bad)
    import dataclasses
    for change in [{"degree": 0}, {"weights": (1,)}, {"degree": True}]:
        with pytest.raises(InvalidArgumentError, match="malformed"):
            quadrature_rule(dataclasses.replace(quadrature_rule("trapezoidal"), **change))


def test_bad_inputs_raise_geomcheck_errors():
    with pytest.raises(ShapeError):
        variational_integrator(v**2 / 2, [q], [v, w])
    with pytest.raises(ExpressionError):
        variational_integrator(v**2 / 2, [q], [q])
    with pytest.raises(InvalidArgumentError, match="degenerate"):
        variational_integrator(q * v, q, v)                     # L_vv = 0
    with pytest.raises(ExpressionError, match="momenta"):
        variational_integrator(v**2 / 2 + sp.Symbol("p_{q}"), q, v)
    with pytest.raises(ShapeError):
        variational_integrator(v**2 / 2, q, v, forcing=[v, v])
    vi = variational_integrator(v**2 / 2 - q**4, q, v, quadrature=("lobatto", 3))
    with pytest.raises(InvalidArgumentError, match="extremum"):
        vi.discrete_lagrangian(x, y)
    with pytest.raises(InvalidArgumentError, match="interior"):
        certify_variational_del(vi)


def test_legendre_transform_of_a_position_dependent_mass_is_inverted_exactly():
    T = legendre_transform((1 + q**2) * v**2 / 2 + q * v - q**2 / 2, [q], [v], [sp.Symbol("p")])
    p = sp.Symbol("p")
    assert sp.simplify(T.velocity[0] - (p - q) / (1 + q**2)) == 0
    assert sp.simplify(T.hamiltonian - ((p - q)**2 / (2 * (1 + q**2)) + q**2 / 2)) == 0
    assert legendre_transform(sp.cosh(v), [q], [v], [p]).vector_field is None


# ----------------------------------------------------------------------------- independent identities


def _explicit_in_endpoints(vi):
    """(p0, p1) as functions of (q0, q1) for a rule without interior points: V = (q1 - q0)/h."""
    eqs = vi.step_map.equations
    n = len(vi.q)
    Q = vi.step_map.new[:n]
    P = vi.step_map.new[n:]
    at = {Vx: (X - xx) / vi.step for Vx, X, xx in zip(vi.velocity_unknowns, Q, vi.q)}
    p0 = [pi - e.subs(at) for pi, e in zip(vi.p, eqs[n:2 * n])]           # eq: p0 - (...) = 0
    p1 = [Pi - e.subs(at) for Pi, e in zip(P, eqs[2 * n:3 * n])]
    return Q, p0, p1


def test_midpoint_discrete_lagrangian_is_the_implicit_midpoint_rule_for_v2_over_2_minus_V():
    """p0 = -D1 L_d, p1 = D2 L_d with L_d = h L(qbar, (q1 - q0)/h) satisfy the implicit midpoint rule."""
    vi = variational_integrator(v**2 / 2 - V(q), q, v, quadrature="midpoint")
    (Q,), (p0,), (p1,) = _explicit_in_endpoints(vi)
    midpoint = [Q - q - h * (p0 + p1) / 2, p1 - p0 + h * sp.Subs(sp.Derivative(V(q), q), q, (q + Q) / 2).doit()]
    assert decide_all_zero(midpoint).is_zero is True


def test_midpoint_is_the_implicit_midpoint_rule_for_every_regular_lagrangian():
    """Not only for quadratic L: p0 + p1 = 2 L_v(qbar, V) and p1 - p0 = h L_q(qbar, V), and by the
    Legendre identities H_p(qbar, pbar) = V, H_q(qbar, pbar) = -L_q(qbar, V).  Checked with the
    Hamiltonian of a position-dependent mass with a gyroscopic term, written by hand."""
    p = sp.Symbol("p")
    vi = variational_integrator((1 + q**2) * v**2 / 2 + q * v - sp.cos(q), q, v, quadrature="midpoint")
    (Q,), (p0,), (p1,) = _explicit_in_endpoints(vi)
    H = (p - q)**2 / (2 * (1 + q**2)) + sp.cos(q)
    at = {q: (q + Q) / 2, p: (p0 + p1) / 2}
    midpoint = [Q - q - h * sp.diff(H, p).subs(at, simultaneous=True),
                p1 - p0 + h * sp.diff(H, q).subs(at, simultaneous=True)]
    assert decide_all_zero(midpoint).is_zero is True
    # adversarial: the trapezoidal L_d of the same L is not the midpoint rule
    (Q,), (p0,), (p1,) = _explicit_in_endpoints(variational_integrator(
        (1 + q**2) * v**2 / 2 + q * v - sp.cos(q), q, v, quadrature="trapezoidal"))
    at = {q: (q + Q) / 2, p: (p0 + p1) / 2}
    assert decide_all_zero([p1 - p0 + h * sp.diff(H, q).subs(at, simultaneous=True)]).is_zero is False


def test_trapezoidal_discrete_lagrangian_is_stormer_verlet():
    """HLW VI.6: trapezoidal L_d of v^2/2 - V(q) gives Stormer-Verlet (written out by hand)."""
    vi = variational_integrator(v**2 / 2 - V(q), q, v, quadrature="trapezoidal")
    (Q,), (p0,), (p1,) = _explicit_in_endpoints(vi)
    dV = lambda z: sp.Subs(sp.Derivative(V(q), q), q, z).doit()
    half = p0 - h / 2 * dV(q)
    assert decide_all_zero([Q - q - h * half, p1 - half + h / 2 * dV(Q)]).is_zero is True


# ----------------------------------------------------------------------------- certificates


def _double_pendulum():
    t1, t2, o1, o2 = sp.symbols("theta1 theta2 omega1 omega2")
    m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
    L = ((m1 + m2) / 2 * l1**2 * o1**2 + m2 / 2 * l2**2 * o2**2 + m2 * l1 * l2 * o1 * o2 * sp.cos(t1 - t2)
         + (m1 + m2) * g * l1 * sp.cos(t1) + m2 * g * l2 * sp.cos(t2))
    return L, [t1, t2], [o1, o2]


def test_double_pendulum_midpoint_is_symplectic_and_its_del_form_closed():
    """Generic masses, lengths, gravity (about 2 s)."""
    L, Q, W = _double_pendulum()
    vi = variational_integrator(L, Q, W, quadrature="midpoint")
    assert certify_variational_del(vi).holds is True
    c = certify_variational_symplectic(vi)
    assert c.holds is True
    assert "pullback" in c.derivation.latex().lower() or c.derivation.steps


@pytest.mark.parametrize("rule, order", [("midpoint", 2), ("trapezoidal", 2), (("lobatto", 3), 4), (("gauss", 2), 4)])
def test_order_is_certified_and_the_next_one_refuted(rule, order):
    vi = variational_integrator(v**2 / 2 - q**4 / 4 - q**3 / 3, q, v, quadrature=rule)
    assert vi.order == order
    assert certify_variational_order(vi).holds is True
    assert certify_variational_order(vi, order + 1).holds is False


def test_order_on_a_position_dependent_mass():
    vi = variational_integrator((1 + q**2) * v**2 / 2 - q**2 / 2, q, v, quadrature="midpoint")
    assert certify_variational_order(vi).holds is True
    assert certify_variational_symplectic(vi).holds is True


def test_a_non_variational_perturbation_is_refuted():
    """Adversarial: a small non-variational term in the p1 equation: no longer symplectic."""
    vi = variational_integrator(v**2 / 2 - q**4 / 4, q, v, quadrature="trapezoidal")
    phi = vi.step_map
    bad = list(phi.equations)
    bad[2] = bad[2] + h * q * phi.auxiliary[0]      # p1 = D2 L_d - h q0 V: det of the Jacobian 1 - h q + h^2 p
    import geomcheck as gc
    psi = gc.ImplicitMap(phi.source, phi.target, bad, new=phi.new, auxiliary=phi.auxiliary, guess=phi.guess,
                         parameters=phi.parameters, derivatives="implicit")
    assert gc.certify_symplectic(psi, vi.omega).holds is False


# ----------------------------------------------------------------------------- forcing


def _numeric_jacobian_det(vi, point, hval, gval, dps=30):
    """det d(q1, p1)/d(q0, p0) by the implicit function theorem at a Newton solution (mpmath)."""
    phi = vi.step_map
    unk = list(phi.new) + list(phi.auxiliary)
    src = list(vi.q) + list(vi.p)
    with mpmath.workdps(dps):
        sub = {h: mpmath.mpf(hval), g_pos: mpmath.mpf(gval), **{s: mpmath.mpf(c) for s, c in zip(src, point)}}
        F = [sp.lambdify(unk, e.subs(sub), "mpmath") for e in phi.equations]
        start = [mpmath.mpf(float(phi.guess[u_].subs(sub))) for u_ in unk]
        sol = mpmath.findroot(lambda *z: [f(*z) for f in F], start)
        at = {**{s: sp.Float(str(c), dps) for s, c in zip(src, point)},
              **{u_: sp.Float(mpmath.nstr(sol[i], dps), dps) for i, u_ in enumerate(unk)},
              h: sp.Float(str(hval), dps), g_pos: sp.Float(str(gval), dps)}
        Fu = sp.Matrix([[sp.diff(e, u_).subs(at) for u_ in unk] for e in phi.equations])
        Fx = sp.Matrix([[sp.diff(e, s).subs(at) for s in src] for e in phi.equations])
        dU = -Fu.LUsolve(Fx)
        return dU[:2, :].det()


def test_damped_trapezoidal_is_conformal_for_every_potential_but_the_midpoint_is_not():
    """Linear damping f = -gamma v on the pendulum: certificates, checked by a numeric Jacobian.
    (Measured, not run here: galerkin lobatto-3 and gauss-2 are not conformal either, 5-9 s each.)"""
    L = v**2 / 2 + sp.cos(q)
    trap = variational_integrator(L, q, v, forcing=[-g_pos * v], quadrature="trapezoidal")
    c = certify_variational_conformal(trap)
    assert c.holds is True
    assert sp.simplify(c.factor - (2 - g_pos * h) / (2 + g_pos * h)) == 0
    d1 = _numeric_jacobian_det(trap, [1.0, 0.5], 0.1, 0.3)
    d2 = _numeric_jacobian_det(trap, [-2.0, 1.25], 0.1, 0.3)
    with mpmath.workdps(30):
        k = (2 - mpmath.mpf("0.03")) / (2 + mpmath.mpf("0.03"))
        assert abs(d1 - d2) < 1e-20 and abs(d1 - k) < 1e-20
    lob2 = certify_variational_conformal(variational_integrator(L, q, v, forcing=[-g_pos * v],
                                                                quadrature=("lobatto", 2)))
    assert lob2.holds is True and sp.simplify(lob2.factor - c.factor) == 0
    mid = variational_integrator(L, q, v, forcing=[-g_pos * v], quadrature="midpoint")
    assert certify_variational_conformal(mid).holds is False
    e1 = _numeric_jacobian_det(mid, [1.0, 0.5], 0.1, 0.3)
    e2 = _numeric_jacobian_det(mid, [-2.0, 1.25], 0.1, 0.3)
    assert abs(e1 - e2) > 1e-6                       # the determinant is not constant: not conformal


def test_damped_midpoint_is_conformal_for_the_harmonic_oscillator_and_not_symplectic():
    mid = variational_integrator(v**2 / 2 - q**2 / 2, q, v, forcing=[-g_pos * v])
    c = certify_variational_conformal(mid)
    assert c.holds is True
    assert sp.simplify(c.factor - (4 + h**2 - 2 * g_pos * h) / (4 + h**2 + 2 * g_pos * h)) == 0
    assert certify_variational_symplectic(mid).holds is False
    with pytest.raises(InvalidArgumentError):
        certify_variational_del(mid)


# ----------------------------------------------------------------------------- Noether


def _chain():
    """Two unit masses in the plane, springs origin-1 and 1-2 with nonlinear potentials of the lengths^2."""
    r1, r12 = x1**2 + y1**2, (x2 - x1)**2 + (y2 - y1)**2
    L = (u1**2 + w1**2 + u2**2 + w2**2) / 2 - (r1 - 1)**2 / 4 - (r12 - 1)**2 / 4 - r12**3 / 50
    return L, [x1, y1, x2, y2], [u1, w1, u2, w2]


def test_spring_chain_angular_momentum_is_a_discrete_noether_momentum():
    """About 2 s: rotation is a symmetry; translation is not (the spring to the origin)."""
    L, Q, W = _chain()
    vi = variational_integrator(L, Q, W, quadrature="midpoint")
    rot = [-y1, x1, -y2, x2]
    J = discrete_momentum(vi, rot)
    assert sp.expand(J - sum(sp.Matrix(vi.p).T * sp.Matrix(rot))) == 0
    c = certify_discrete_noether(vi, rot)
    assert c.holds is True and c.witness == J
    bad = certify_discrete_noether(vi, [1, 0, 1, 0])
    assert bad.holds is False and bad.counterexample


def test_kepler_noether_with_interior_points_and_nonaffine_fields():
    K = (u**2 + w**2) / 2 + 1 / sp.sqrt(x**2 + y**2)
    lob = variational_integrator(K, [x, y], [u, w], quadrature=("lobatto", 3))
    assert certify_discrete_noether(lob, [-y, x]).holds is True
    with pytest.raises(InvalidArgumentError, match="affine"):
        certify_discrete_noether(lob, [-y * x, x**2])
    with pytest.raises(ExpressionError):
        discrete_momentum(lob, [-u, x])                  # a velocity in a field on Q
    with pytest.raises(ShapeError):
        discrete_momentum(lob, [-y])


def test_a_nonaffine_symmetry_of_the_midpoint_discrete_lagrangian():
    """xi = (0, f(x)) for L = (u^2 + w^2)/2 - V(x) with a nonlinear f is no symmetry of L (L is
    not invariant under the lifted field, whose velocity part is f'(x) u), and the certificate says
    so; xi = (0, 1) is one."""
    vi = variational_integrator((u**2 + w**2) / 2 - x**4, [x, y], [u, w], quadrature="midpoint")
    assert certify_discrete_noether(vi, [0, 1]).holds is True
    assert certify_discrete_noether(vi, [0, x**2]).holds is False


def test_damping_breaks_the_discrete_momentum():
    K = (u**2 + w**2) / 2 + 1 / sp.sqrt(x**2 + y**2)
    vi = variational_integrator(K, [x, y], [u, w], forcing=[-u / 10, -w / 10], quadrature="midpoint")
    assert certify_discrete_noether(vi, [-y, x]).holds is False


@pytest.mark.needs_pdflatex
def test_derivations_compile(tmp_path):
    """The integrator's derivation and each certificate's, in one document (about 3 s)."""
    from geomcheck.latex import compile_pdf, document

    vi = variational_integrator(v**2 / 2 + sp.cos(q), q, v, quadrature=("lobatto", 3))
    trap = variational_integrator(v**2 / 2 + sp.cos(q), q, v, quadrature="trapezoidal")
    damped = variational_integrator(v**2 / 2 + sp.cos(q), q, v, forcing=[-g_pos * v], quadrature="trapezoidal")
    K = variational_integrator((u**2 + w**2) / 2 + 1 / sp.sqrt(x**2 + y**2), [x, y], [u, w])
    parts = [vi.latex(), certify_variational_del(trap).latex(), certify_variational_order(trap).latex(),
             certify_variational_conformal(damped).latex(), certify_discrete_noether(K, [-y, x]).latex()]
    pdf = compile_pdf(document("\n".join(parts)), tmp_path / "variational.pdf")
    assert pdf.exists() and pdf.stat().st_size > 0


@pytest.mark.parametrize("rule", ["midpoint", "trapezoidal", ("lobatto", 3)])
def test_lagrange_d_alembert_keeps_the_order_of_the_rule(rule):
    """The forced map against the damped pendulum's field q' = p, p' = -sin q - gamma p."""
    vi = variational_integrator(v**2 / 2 + sp.cos(q), q, v, forcing=[-g_pos * v], quadrature=rule)
    pq = vi.p[0]
    assert sp.simplify(vi.vector_field.component(pq) - (-sp.sin(q) - g_pos * pq)) == 0
    assert certify_variational_order(vi).holds is True
    assert certify_variational_order(vi, vi.order + 1).holds is False


def test_a_callable_lagrangian_needs_no_velocity_symbols():
    vi = variational_integrator(lambda a, b: (b.T * b)[0] / 2 - (a.T * a)[0]**2, [x, y], order=2)
    assert vi.qdot == (sp.Symbol(r"\dot{x}"), sp.Symbol(r"\dot{y}"))
    assert certify_variational_order(vi).holds is True
    with pytest.raises(ExpressionError, match="qdot"):
        variational_integrator(v**2 / 2, q)
