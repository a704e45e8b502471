"""Certificates of Poisson structures, Poisson maps, Casimirs and volume preservation.

Every verdict is checked against a computation written here, independently of geomcheck:
plain sympy Jacobians and determinants, and mpmath evaluations of the residual at the
counterexample (or at random points).
"""

import random

import mpmath
import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.certify.poisson import (
    certify_casimir,
    certify_divergence_free,
    certify_poisson,
    certify_poisson_structure,
    certify_preserves_casimir,
    certify_volume_preserving,
)
from geomcheck.errors import (
    ChartMismatchError,
    ExpressionError,
    InvalidArgumentError,
    NotACasimirError,
    NotAPoissonStructureError,
)

M = gc.Chart("m1 m2 m3")
m1, m2, m3 = M.coords
HAT = sp.Matrix([[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]])
h = sp.Symbol("h")
I1, I2, I3 = sp.symbols("I1 I2 I3", positive=True)
L = gc.Chart("u v")
u, v = L.coords
LV = sp.Matrix([[0, u * v], [-u * v, 0]])


def jacobi_by_hand(P, xs):
    """All Jacobi sums {x_i, {x_j, x_k}} + cyclic, from the bracket {F, G} = grad F^T P grad G."""
    def bracket(F, G):
        return sp.expand(sum(sp.diff(F, a) * P[i, j] * sp.diff(G, b)
                             for i, a in enumerate(xs) for j, b in enumerate(xs)))
    n = len(xs)
    return [sp.simplify(bracket(xs[i], bracket(xs[j], xs[k])) + bracket(xs[j], bracket(xs[k], xs[i]))
                        + bracket(xs[k], bracket(xs[i], xs[j])))
            for i in range(n) for j in range(i + 1, n) for k in range(j + 1, n)]


def rotation(axis, t, I):
    """The exact flow of m_axis^2 / (2 I): rotation by t m_axis / I (written out, not from integrators)."""
    m = [m1, m2, m3]
    a = t * m[axis] / I
    j, k = (axis + 1) % 3, (axis + 2) % 3
    out = list(m)
    out[j] = sp.cos(a) * m[j] + sp.sin(a) * m[k]
    out[k] = sp.cos(a) * m[k] - sp.sin(a) * m[j]
    return out


def poisson_residual_at(exprs, P, xs, point):
    """max |D phi P D phi^T - P o phi| at a point, by sympy Jacobian + mpmath evaluation (60 digits)."""
    F = sp.Matrix(exprs)
    J = F.jacobian(xs)
    R = J * P * J.T - P.subs(dict(zip(xs, exprs)), simultaneous=True)
    with mpmath.workdps(60):
        return max(abs(sp.N(e.subs(point), 60)) for e in R)


# ----------------------------------------------------------------------- Poisson structures


def test_so3_and_lotka_volterra_are_poisson_tensors_and_jacobi_by_hand_agrees():
    assert all(r == 0 for r in jacobi_by_hand(HAT, [m1, m2, m3]))
    assert certify_poisson_structure(HAT, M).holds is True
    assert certify_poisson_structure(LV, L).holds is True
    # any 2x2 skew matrix is Poisson (no triple): with an undefined function
    f = sp.Function("f")
    assert certify_poisson_structure([[0, f(u, v)], [-f(u, v), 0]], L).holds is True


def test_jacobi_failure_names_the_triple_and_a_genuine_point():
    P = sp.Matrix([[0, m2, 0], [-m2, 0, 1], [0, -1, 0]])
    by_hand = jacobi_by_hand(P, [m1, m2, m3])
    assert by_hand != [0]                                   # independently: Jacobi fails
    c = certify_poisson_structure(P, M)
    assert c.holds is False and c.counterexample["triple"] == ("m1", "m2", "m3")
    assert "Jacobi" in c.method
    point = {s: c.counterexample[s.name] for s in (m1, m2, m3) if s.name in c.counterexample}
    assert by_hand[0].subs(point) != 0


def test_skew_failure_names_the_pair():
    c = certify_poisson_structure(sp.Matrix([[0, m1, 0], [m1, 0, 0], [0, 0, 0]]), M)
    assert c.holds is False and c.counterexample["pair"] == ("m1", "m2")
    point = {m1: c.counterexample["m1"]}
    assert (2 * m1).subs(point) != 0
    # a nonzero diagonal is a skew failure too
    d = certify_poisson_structure(sp.Matrix([[m1 - m1 + 1, 0, 0], [0, 0, 0], [0, 0, 0]]), M)
    assert d.holds is False and d.counterexample["pair"] == ("m1", "m1")


def test_structure_undecided_is_none_not_true():
    # Jacobi residual of P = [[0, a, 0], [-a, 0, b], [0, -b, 0]] with a = f(m2), b = 1 is -f'(m2) ... make the
    # residual a function that is zero only on part of its domain: a Max, so the zero test cannot prove it
    P = sp.Matrix([[0, sp.Max(m2, 0), 0], [-sp.Max(m2, 0), 0, 1], [0, -1, 0]])
    c = certify_poisson_structure(P, gc.Chart("m1 m2 m3", domain={"m2": (-2, -1)}))
    assert c.holds in (True, None)         # on m2 < 0 the entry is 0: never a False there
    c = certify_poisson_structure(P, M)
    assert c.holds is not True             # on the whole line Jacobi fails for m2 > 0


def test_undecidable_structure_is_none_and_poisson_map_then_none():
    # d/dm2 floor(m2) is 0 between integers and undefined at them: the zero test cannot decide
    P = sp.Matrix([[0, sp.floor(m2), 0], [-sp.floor(m2), 0, 1], [0, -1, 0]])
    c = certify_poisson_structure(P, M)
    assert c.holds is None and c.counterexample is None
    d = certify_poisson(gc.Map(M, M, [m1, m2, m3]), P)
    assert d.holds is None and "not decided" in d.method


def test_structure_bad_input():
    with pytest.raises(InvalidArgumentError, match="3 x 3"):
        certify_poisson_structure(sp.Matrix([[0, 1], [-1, 0]]), M)
    with pytest.raises(InvalidArgumentError, match="floating-point"):
        certify_poisson_structure(sp.Matrix([[0, 0.5], [-0.5, 0]]), L)
    with pytest.raises(ExpressionError):
        certify_poisson_structure(u, L)
    with pytest.raises(ExpressionError):
        certify_poisson_structure(LV, "u v")


# ------------------------------------------------------------------------------ Poisson maps


def test_exact_rotation_is_poisson_and_agrees_with_mpmath():
    phi = gc.Map(M, M, rotation(0, h, I1))
    assert certify_poisson(phi, HAT).holds is True
    rnd = random.Random(1)
    point = {s: sp.Rational(rnd.randint(-9, 9), 7) for s in (m1, m2, m3)}
    point.update({h: sp.Rational(3, 10), I1: sp.Rational(5, 3)})
    assert poisson_residual_at(rotation(0, h, I1), HAT, [m1, m2, m3], point) < mpmath.mpf(10) ** -50


def test_explicit_euler_is_not_poisson_with_a_genuine_counterexample():
    H = m1**2 / (2 * I1) + m2**2 / (2 * I2) + m3**2 / (2 * I3)
    field = HAT * sp.Matrix([sp.diff(H, s) for s in (m1, m2, m3)])
    euler = [m1 + h * field[0], m2 + h * field[1], m3 + h * field[2]]
    c = certify_poisson(gc.Map(M, M, euler), HAT)
    assert c.holds is False and c.stage == "counterexample"
    point = {s: sp.sympify(c.counterexample[s.name]) for s in (m1, m2, m3, h, I1, I2, I3)}
    assert poisson_residual_at(euler, HAT, [m1, m2, m3], point) > mpmath.mpf(10) ** -30
    assert c.counterexample["entry"] in {("m1", "m2"), ("m1", "m3"), ("m2", "m3")}


def test_implicit_map_derivative_from_the_implicit_function_theorem():
    # the flow of H = u for Lotka-Volterra, written implicitly: V - v exp(h u) = 0
    U, V = sp.symbols("U V")
    phi = gc.ImplicitMap(L, L, [U - u, V - v * sp.exp(h * u)], new=[U, V])
    assert certify_poisson(phi, LV).holds is True
    # a map that is not Poisson for LV: v <- 2 v (D phi P D phi^T = 2 u v, P o phi = 2 u v: it IS Poisson)
    assert certify_poisson(gc.Map(L, L, [u, 2 * v]), LV).holds is True
    # u <- 2u, v <- 2v: D phi P D phi^T = 4 u v but P(phi) = 4 u v too; u <- u + 1 is not
    c = certify_poisson(gc.Map(L, L, [u + 1, v]), LV)
    assert c.holds is False
    pt = {u: sp.sympify(c.counterexample["u"]), v: sp.sympify(c.counterexample["v"])}
    assert (u * v - (u + 1) * v).subs(pt) != 0


def test_not_a_poisson_structure_raises_and_undecided_structure_gives_none():
    with pytest.raises(NotAPoissonStructureError, match="triple"):
        certify_poisson(gc.Map(M, M, [m1, m2, m3]), sp.Matrix([[0, m2, 0], [-m2, 0, 1], [0, -1, 0]]))
    with pytest.raises(NotAPoissonStructureError):
        certify_poisson(gc.Map(L, L, [u, v]), sp.Matrix([[0, u], [u, 0]]))


def test_poisson_map_bad_input():
    N = gc.Chart("a b")
    with pytest.raises(ChartMismatchError):
        certify_poisson(gc.Map(L, N, [u, v]), LV)
    with pytest.raises(InvalidArgumentError):
        certify_poisson(gc.Map(L, L, [u, v]), HAT)
    with pytest.raises(ExpressionError):
        certify_poisson(LV, LV)


# ---------------------------------------------------------------------------------- Casimirs


def test_casimir_true_false_and_by_hand():
    C = m1**2 + m2**2 + m3**2
    assert sp.expand(HAT * sp.Matrix([sp.diff(C, s) for s in (m1, m2, m3)])) == sp.zeros(3, 1)
    assert certify_casimir(C, HAT, M).holds is True
    bad = certify_casimir(m1 * m2, HAT, M)
    assert bad.holds is False
    grad = HAT * sp.Matrix([m2, m1, 0])
    pt = {s: sp.sympify(bad.counterexample[s.name]) for s in (m1, m2, m3) if s.name in bad.counterexample}
    comp = [m1, m2, m3].index(sp.Symbol(bad.counterexample["component"]))
    assert grad[comp].subs(pt) != 0


def test_preserves_casimir_and_its_refusals():
    C = m1**2 + m2**2 + m3**2
    assert certify_preserves_casimir(gc.Map(M, M, rotation(1, h, I2)), C, HAT).holds is True
    euler = gc.Map(M, M, [m1, m2 + h * m1 * m3, m3 - h * m1 * m2])
    c = certify_preserves_casimir(euler, C, HAT)
    assert c.holds is False
    pt = {s: sp.sympify(c.counterexample[s.name]) for s in (m1, m2, m3, h)}
    by_hand = sp.expand(C.subs({m2: m2 + h * m1 * m3, m3: m3 - h * m1 * m2}, simultaneous=True) - C)
    assert by_hand == sp.expand(h**2 * m1**2 * (m2**2 + m3**2)) and by_hand.subs(pt) != 0
    with pytest.raises(NotACasimirError):
        certify_preserves_casimir(euler, m1, HAT)


def test_implicit_midpoint_keeps_the_quadratic_casimir():
    # midpoint rule of Euler's equations with I = (1, 2, 3), written by hand as an ImplicitMap
    N1, N2, N3 = sp.symbols("N1 N2 N3")
    mid = [(m1 + N1) / 2, (m2 + N2) / 2, (m3 + N3) / 2]
    w = [mid[0] / 1, mid[1] / 2, mid[2] / 3]
    cross = [mid[1] * w[2] - mid[2] * w[1], mid[2] * w[0] - mid[0] * w[2], mid[0] * w[1] - mid[1] * w[0]]
    phi = gc.ImplicitMap(M, M, [N - m - h * f for N, m, f in zip((N1, N2, N3), (m1, m2, m3), cross)],
                         new=[N1, N2, N3])
    assert certify_preserves_casimir(phi, m1**2 + m2**2 + m3**2, HAT).holds is True


# ------------------------------------------------------------------------------------ volumes


def test_volume_preserving_true_false_with_sympy_determinants():
    flow = gc.Map(L, L, [u, v * sp.exp(h * u)])
    det = sp.Matrix([u, v * sp.exp(h * u)]).jacobian([u, v]).det()
    assert sp.simplify(det - sp.exp(h * u)) == 0
    c = certify_volume_preserving(flow)
    assert c.holds is False
    pt = {u: sp.sympify(c.counterexample["u"]), h: sp.sympify(c.counterexample["h"])}
    assert (det - 1).subs(pt) != 0
    assert certify_volume_preserving(flow, 1 / (u * v)).holds is True
    rot = rotation(2, h, I3)
    assert sp.simplify(sp.Matrix(rot).jacobian([m1, m2, m3]).det()) == 1
    assert certify_volume_preserving(gc.Map(M, M, rot)).holds is True


def test_volume_density_refusals():
    flow = gc.Map(L, L, [u, v])
    with pytest.raises(InvalidArgumentError, match="identically zero"):
        certify_volume_preserving(flow, u - u)
    with pytest.raises(InvalidArgumentError, match="identically zero"):
        certify_volume_preserving(flow, sp.sin(u)**2 + sp.cos(u)**2 - 1)
    with pytest.raises(InvalidArgumentError, match="floating-point"):
        certify_volume_preserving(flow, 0.5)


def test_divergence_free_rigid_body_and_lotka_volterra():
    H = m1**2 / (2 * I1) + m2**2 / (2 * I2) + m3**2 / (2 * I3)
    field = HAT * sp.Matrix([sp.diff(H, s) for s in (m1, m2, m3)])
    assert sum(sp.diff(field[i], s) for i, s in enumerate((m1, m2, m3))) == 0
    assert certify_divergence_free(gc.VectorField(M, list(field))).holds is True
    lv = gc.VectorField(L, [u * (v - 2), v * (1 - u)])
    c = certify_divergence_free(lv)
    assert c.holds is False
    assert sp.simplify(sp.diff(u * (v - 2) / (u * v), u) + sp.diff(v * (1 - u) / (u * v), v)) == 0
    assert certify_divergence_free(lv, 1 / (u * v)).holds is True
    with pytest.raises(ExpressionError):
        certify_divergence_free(LV)


def test_every_certificate_carries_a_typesetting_derivation():
    certs = [certify_poisson_structure(HAT, M), certify_poisson(gc.Map(M, M, rotation(0, h, I1)), HAT),
             certify_casimir(m1**2 + m2**2 + m3**2, HAT, M),
             certify_volume_preserving(gc.Map(L, L, [u, v * sp.exp(h * u)]), 1 / (u * v)),
             certify_divergence_free(gc.VectorField(L, [u, -v]))]
    for c in certs:
        tex = c.derivation.latex()
        assert r"\paragraph" in tex and "align" in tex


@pytest.mark.needs_pdflatex
def test_derivations_compile_with_pdflatex(tmp_path):
    from geomcheck.latex import compile_pdf, document

    N1, N2, N3 = sp.symbols("N1 N2 N3")
    mid = [(m1 + N1) / 2, (m2 + N2) / 2, (m3 + N3) / 2]
    field = cross_by_hand(mid, [mid[0], mid[1] / 2, mid[2] / 3])
    implicit = gc.ImplicitMap(M, M, [N - m - h * f for N, m, f in zip((N1, N2, N3), (m1, m2, m3), field)],
                              new=[N1, N2, N3])
    euler = gc.Map(M, M, [m1, m2 + h * m1 * m3, m3 - h * m1 * m2])
    certs = [certify_poisson_structure(sp.Matrix([[0, m2, 0], [-m2, 0, 1], [0, -1, 0]]), M),
             certify_poisson_structure(sp.Matrix([[0, m1, 0], [m1, 0, 0], [0, 0, 0]]), M),
             certify_poisson(implicit, HAT), certify_poisson(euler, HAT),
             certify_preserves_casimir(implicit, m1**2 + m2**2 + m3**2, HAT),
             certify_casimir(m1 * m2, HAT, M), certify_volume_preserving(implicit),
             certify_divergence_free(gc.VectorField(L, [u * (v - 2), v * (1 - u)]))]
    compile_pdf(document("\n".join(c.latex() for c in certs)), str(tmp_path / "poisson.pdf"))


def cross_by_hand(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def test_four_dimensional_tensors_agree_with_the_bracket_by_hand():
    K = gc.Chart("a b c d")
    a, b, c, d = K.coords
    xs = [a, b, c, d]
    rnd = random.Random(7)
    cases = [sp.Matrix([[0, -c, b, 0], [c, 0, -a, 0], [-b, a, 0, 0], [0, 0, 0, 0]]),     # so(3)* + a Casimir d
             sp.Matrix([[0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, d], [0, 0, -d, 0]])]      # a product
    for _ in range(3):
        P = sp.zeros(4, 4)
        for i in range(4):
            for j in range(i + 1, 4):
                P[i, j] = rnd.choice([0, 1, xs[rnd.randrange(4)], xs[rnd.randrange(4)] * xs[rnd.randrange(4)]])
                P[j, i] = -P[i, j]
        cases.append(P)
    for P in cases:
        truth = all(r == 0 for r in jacobi_by_hand(P, xs))
        assert certify_poisson_structure(P, K).holds is truth, P


def test_implicit_derivatives_mode_gives_the_same_verdicts():
    U, V = sp.symbols("U V")
    flow = gc.ImplicitMap(L, L, [U - u, V - v * sp.exp(h * u)], new=[U, V], derivatives="implicit")
    assert flow.derivative_mode == "implicit"
    assert certify_poisson(flow, LV).holds is True
    assert certify_volume_preserving(flow, 1 / (u * v)).holds is True
    assert certify_volume_preserving(flow).holds is False
