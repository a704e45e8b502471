"""Q-structures: shifted charts, Poisson, Chevalley-Eilenberg and Lie algebroid fields,
homological reports and bad input (geomcheck.qstructures).

Conventions (stated in the module docstring; every one is checked here by an
independent computation):

* [e_i, e_j] = sum_k c[i][j][k] e_k;  Q_CE = -1/2 c_ij^k xi^i xi^j d/dxi^k and the
  coefficient of xi^a xi^b xi^c (a < b < c) in (Q o Q)(xi^m) is Jac(e_a, e_b, e_c)^m;
* P^{ij} = {x^i, x^j};  Q_P = P^{ij} theta_i d/dx^j - 1/2 d_k P^{ij} theta_i theta_j d/dtheta_k,
  Q_P(f) = {x^i, f} theta_i and Q_P o Q_P = 1/2 [[P, P], .] with
  [P, R]^{ijk} = cyclic sum of (P^{il} d_l R^{jk} + R^{il} d_l P^{jk});
* algebroids: Q = rho_a^i xi^a d/dx^i - 1/2 C_ab^c xi^a xi^b d/dxi^c.

Expected values below were computed by hand for the small cases.
"""

import contextlib
import itertools

import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
from geomcheck import errors
from geomcheck.errors import GeomcheckError
from geomcheck.zero import decide_all_zero
from oracles.lie_algebras import dense_constants, jacobiator


@contextlib.contextmanager
def raises(exc_type, *fragments):
    """pytest.raises that also checks the class is a GeomcheckError/ValueError and the message."""
    assert issubclass(exc_type, GeomcheckError)
    with pytest.raises(exc_type) as info:
        yield info
    assert isinstance(info.value, ValueError)
    msg = str(info.value)
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in message {msg!r}"


def field_equal(X, Y):
    """Same chart and every component of X - Y is zero (decided by the zero test)."""
    assert X.chart == Y.chart
    return (X - Y).is_zero() is True


def sf(chart, expr):
    return chart.function(expr)


SO3 = {(0, 1, 2): 1, (1, 2, 0): 1, (2, 0, 1): 1}          # [e1, e2] = e3 and cyclic
SL2 = {(0, 1, 2): 1, (2, 0, 0): 2, (2, 1, 1): -2}          # e, f, h: [e, f] = h, [h, e] = 2e, [h, f] = -2f
HEIS = {(0, 1, 2): 1}                                      # [p, q] = z


# --------------------------------------------------------------------------- shifted charts


def test_cotangent_shift_names_degrees_and_symbols():
    x = sp.Symbol("x", real=True)
    M = gc.Chart([x, "y"])
    T = gc.cotangent_shift(M)
    assert [c.name for c in T.coords] == ["x", "y", "theta_x", "theta_y"]
    assert T.degrees == (0, 0, 1, 1)
    assert T.coords[0] is x                       # M's own symbols, assumptions kept
    assert T.odd == T.coords[2:] and not any(c.is_commutative for c in T.odd)
    assert gc.cotangent_shift(M) == T             # a value: the same chart again
    assert sp.latex(T.odd[0]) == r"\theta_{x}"


def test_cotangent_shift_avoids_name_clashes():
    T = gc.cotangent_shift(gc.Chart("x theta_x"))
    assert [c.name for c in T.coords] == ["x", "theta_x", "theta_x'", "theta_theta_x"]
    assert len(set(T.coords)) == 4


def test_lie_algebra_shift():
    G = gc.lie_algebra_shift(3)
    assert [c.name for c in G.coords] == ["xi1", "xi2", "xi3"]
    assert G.degrees == (1, 1, 1)
    assert [c.name for c in gc.lie_algebra_shift(2, ["a", "b"]).odd] == ["a", "b"]
    with raises(errors.ChartError, "2 names", "3 odd coordinates"):
        gc.lie_algebra_shift(3, "a b")
    with raises(errors.InvalidArgumentError, "positive integer", "0"):
        gc.lie_algebra_shift(0)


def test_de_rham_field():
    M = gc.Chart("x y z")
    Q = gc.de_rham_vector_field(M)
    T = M.shifted_tangent()
    x, y, z, dx, dy, dz = T.coords
    assert Q.degree == 1 and Q.is_homological() is True
    assert Q(x * y) == sf(T, y * dx + x * dy)
    # Q(x dy) = dx dy, Q(Q(x dy)) = 0
    assert Q(x * dy) == sf(T, dx * dy)
    assert Q(Q(sp.sin(x) * y * dz)).is_zero()
    assert gc.homological_report(Q).holds is True


# --------------------------------------------------------------------------- Chevalley-Eilenberg


def test_ce_field_of_so3_by_hand():
    Q = gc.chevalley_eilenberg_vector_field(SO3)
    G = Q.chart
    x1, x2, x3 = G.coords
    # Q(xi^k) = -sum_{i<j} c_ij^k xi^i xi^j:  d xi3 = -xi1 xi2, d xi1 = -xi2 xi3, d xi2 = -xi3 xi1
    assert Q.component(x3) == sf(G, -x1 * x2)
    assert Q.component(x1) == sf(G, -x2 * x3)
    assert Q.component(x2) == sf(G, x1 * x3)
    assert Q.degree == 1
    assert Q.square() == gc.VectorField(G, {})
    assert Q.is_homological() is True


def test_ce_field_is_the_ce_differential():
    # (d alpha)(e_i, e_j) = -alpha([e_i, e_j]): with alpha = xi^k, the coefficient of
    # xi^i xi^j (i < j) in Q(xi^k) is -c_ij^k, for sl(2)
    Q = gc.chevalley_eilenberg_vector_field(SL2, "e f h")
    G = Q.chart
    e, f, h = G.coords
    assert Q.component(h) == sf(G, -e * f)
    assert Q.component(e) == sf(G, 2 * e * h)          # c_he^e = 2 -> c_eh^e = -2
    assert Q.component(f) == sf(G, -2 * f * h)         # c_hf^f = -2 -> c_fh^f = 2
    assert Q.is_homological() is True


def test_heisenberg_and_abelian_tail():
    Q = gc.chevalley_eilenberg_vector_field(HEIS)
    assert Q.chart.dim == 3 and Q.is_homological() is True
    Q5 = gc.chevalley_eilenberg_vector_field(HEIS, dim=5)
    assert Q5.chart.dim == 5 and Q5.is_homological() is True
    assert gc.chevalley_eilenberg_vector_field({}, dim=2) == gc.VectorField(gc.lie_algebra_shift(2), {})


def test_input_formats_agree():
    dense = [[[sp.S(0)] * 3 for _ in range(3)] for _ in range(3)]
    for (i, j, k), v in SL2.items():
        dense[i][j][k] = v
        dense[j][i][k] = -v
    full = {(i, j, k): dense[i][j][k] for i in range(3) for j in range(3) for k in range(3) if dense[i][j][k]}
    ref = gc.chevalley_eilenberg_vector_field(SL2)
    for c in (dense, full, np.array(dense, dtype=object), np.array([[[int(v) for v in r] for r in p] for p in dense]),
              sp.Array(dense), sp.MutableDenseNDimArray(dense)):
        assert gc.chevalley_eilenberg_vector_field(c) == ref, type(c)


def test_symbolic_structure_constants():
    t = sp.Symbol("t")
    # [e0, e1] = t e2, [e1, e2] = e0, [e2, e0] = e1 is a Lie algebra for every t
    Q = gc.chevalley_eilenberg_vector_field({(0, 1, 2): t, (1, 2, 0): 1, (2, 0, 1): 1})
    assert Q.is_homological() is True
    # [e0, e1] = e1, [e0, e2] = t e2, [e1, e2] = e0: Jacobi fails for every t (component e0 has 1 + t, ...)
    bad = gc.chevalley_eilenberg_vector_field({(0, 1, 1): 1, (0, 2, 2): t, (1, 2, 0): 1})
    assert bad.is_homological() is False


def test_ce_square_is_the_jacobiator_for_a_non_lie_bracket():
    # [e0, e1] = e1, [e1, e2] = e2, [e0, e2] = e0:
    # Jac(e0, e1, e2) = [[e0,e1],e2] + [[e1,e2],e0] + [[e2,e0],e1] = [e1,e2] + [e2,e0] - [e0,e1]
    #                 = e2 - e0 - e1
    c = {(0, 1, 1): 1, (1, 2, 2): 1, (0, 2, 0): 1}
    Q = gc.chevalley_eilenberg_vector_field(c)
    G = Q.chart
    x0, x1, x2 = G.coords
    S = Q.square()
    assert S.component(x0) == sf(G, -x0 * x1 * x2)
    assert S.component(x1) == sf(G, -x0 * x1 * x2)
    assert S.component(x2) == sf(G, x0 * x1 * x2)
    assert jacobiator(dense_constants(c, 3)) == {(0, 1, 2, 0): -1, (0, 1, 2, 1): -1, (0, 1, 2, 2): 1}
    assert Q.is_homological() is False


def test_so_structure_constants_match_matrix_commutators():
    for n in (2, 3, 4, 5):
        basis = []
        for a in range(n):
            for b in range(a + 1, n):
                E = sp.zeros(n, n)
                E[a, b], E[b, a] = 1, -1
                basis.append(E)
        assert gc.so_structure_constants(n) == gc.structure_constants(basis)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 8])
def test_ce_of_so_n_is_homological(n):
    Q = gc.chevalley_eilenberg_vector_field(gc.so_structure_constants(n))
    assert Q.chart.dim == n * (n - 1) // 2
    assert Q.is_homological() is True


def test_structure_constants_of_matrix_bases():
    e = sp.Matrix([[0, 1], [0, 0]])
    f = e.T
    h = e * f - f * e
    c = gc.structure_constants([e, f, h])
    assert c == {(0, 1, 2): 1, (1, 0, 2): -1, (2, 0, 0): 2, (0, 2, 0): -2, (2, 1, 1): -2, (1, 2, 1): 2}
    # another basis (e + f, e - f, h) of the same algebra, nested lists and numpy input
    c2 = gc.structure_constants([(e + f).tolist(), np.array((e - f).tolist(), dtype=int), h])
    assert gc.chevalley_eilenberg_vector_field(c2).is_homological() is True
    assert c2[(0, 1, 2)] == -2           # [e + f, e - f] = -2 h


def test_structure_constants_bad_bases():
    e = sp.Matrix([[0, 1], [0, 0]])
    with raises(errors.StructureConstantsError, "[B_0, B_1]", "not in their span"):
        gc.structure_constants([e, e.T])                     # h is missing
    with raises(errors.StructureConstantsError, "basis matrix 1", "linear combination"):
        gc.structure_constants([e, 2 * e])
    with raises(errors.StructureConstantsShapeError, "basis matrix 1", "2 x 2"):
        gc.structure_constants([e, sp.eye(3)])
    with raises(errors.StructureConstantsError, "not a rational number"):
        gc.structure_constants([sp.Matrix([[sp.Symbol("a")]])])


# --------------------------------------------------------------------------- Poisson


def schouten_coordinates(P, R, xs):
    """[P, R]^{ijk} = cyclic sum of (P^{il} d_l R^{jk} + R^{il} d_l P^{jk}), straight from the formula."""
    n = len(xs)
    P, R = sp.Matrix(P), sp.Matrix(R)

    def term(i, j, k):
        return sum(P[i, l] * sp.diff(R[j, k], xs[l]) + R[i, l] * sp.diff(P[j, k], xs[l]) for l in range(n))

    return {(i, j, k): term(i, j, k) + term(j, k, i) + term(k, i, j)
            for i in range(n) for j in range(n) for k in range(n)}


def assert_square_is_half_schouten(P, M):
    """Q o Q = 1/2 [[P, P], .]: (QQ)(x^i) = 1/2 sum_{j<k} [P,P]^{ijk} theta_j theta_k and
    (QQ)(theta_k) = -1/2 d_k Phi, Phi = sum_{a<b<c} [P,P]^{abc} theta_a theta_b theta_c."""
    Q = gc.poisson_vector_field(P, M)
    T, S, n, xs = Q.chart, Q.square(), M.dim, M.coords
    th = T.odd
    PP = schouten_coordinates(P, P, xs)
    Phi = sp.Add(*[PP[(a, b, c)] * th[a] * th[b] * th[c] for a, b, c in itertools.combinations(range(n), 3)])
    diffs = {}
    for i in range(n):
        expected = sp.Add(*[PP[(i, j, k)] * th[j] * th[k] for j, k in itertools.combinations(range(n), 2)]) / 2
        diffs[xs[i]] = (S.component(xs[i]) - T.function(expected)).terms
    for k in range(n):
        dPhi = T.function(Phi)
        dPhi = gc.SuperFunction(T, {key: sp.diff(v, xs[k]) for key, v in dPhi.terms.items()})
        diffs[th[k]] = (S.component(th[k]) + dPhi * sp.Rational(1, 2)).terms
    flat = {(c, key): v for c, terms in diffs.items() for key, v in terms.items()}
    assert decide_all_zero(flat).is_zero is True
    return Q, PP


def test_canonical_poisson_structure():
    M = gc.Chart("q p")
    q, p = M.coords
    Q = gc.poisson_vector_field([[0, 1], [-1, 0]], M)          # {q, p} = 1
    T = Q.chart
    tq, tp = T.odd
    # Q(x^j) = sum_i P^{ij} theta_i: Q(q) = P^{pq} theta_p = -theta_p, Q(p) = theta_q
    assert Q == gc.VectorField(T, {q: -tp, p: tq})
    assert Q.is_homological() is True
    # Q(f) = {x^i, f} theta_i = {q, f} theta_q + {p, f} theta_p = f_p theta_q - f_q theta_p
    f = sp.Function("f")(q, p)
    assert (Q(f) - T.function(sp.diff(f, p) * tq - sp.diff(f, q) * tp)).is_zero() is True


def test_lie_poisson_so3():
    M = gc.Chart("x y z")
    x, y, z = M.coords
    P = gc.lie_poisson_matrix(SO3, M)
    assert P == sp.Matrix([[0, z, -y], [-z, 0, x], [y, -x, 0]])
    Q = gc.poisson_vector_field(P, M)
    T = Q.chart
    tx, ty, tz = T.odd
    expected = gc.VectorField(T, {
        x: -z * ty + y * tz,          # P^{yx} theta_y + P^{zx} theta_z
        y: z * tx - x * tz,
        z: -y * tx + x * ty,
        tx: -ty * tz,                 # -sum_{i<j} d_x P^{ij} theta_i theta_j = -(d_x P^{yz}) ty tz
        ty: tx * tz,                  # d_y P^{xz} = -1
        tz: -tx * ty,
    })
    assert Q == expected
    assert Q.degree == 1 and Q.is_homological() is True
    # the theta-part is the CE field of so(3) on the theta's
    assert all(schouten_coordinates(P, P, M.coords)[k] == 0 for k in itertools.product(range(3), repeat=3))


def test_the_other_sign_is_not_homological():
    # Q' = P^{ij} theta_j d/dx^i - 1/2 d_k P^{ij} theta_i theta_j d/dtheta_k mixes two
    # conventions (it is -Q on the x part and Q on the theta part): not homological on so(3)*
    M = gc.Chart("x y z")
    P = gc.lie_poisson_matrix(SO3, M)
    Q = gc.poisson_vector_field(P, M)
    comps = Q.component_terms()
    flipped = {i: ({k: -v for k, v in t.items()} if i < 3 else t) for i, t in comps.items()}
    Qf = gc.VectorField(Q.chart, {Q.chart.coords[i]: gc.SuperFunction(Q.chart, t) for i, t in flipped.items()})
    assert Qf.is_homological() is False
    assert (-Q).is_homological() is True


def test_rank_two_nonconstant_structure():
    M = gc.Chart("x y")
    x, y = M.coords
    Q = gc.poisson_vector_field([[0, x * y], [-x * y, 0]], M)
    T = Q.chart
    tx, ty = T.odd
    assert Q == gc.VectorField(T, {x: -x * y * ty, y: x * y * tx, tx: -y * tx * ty, ty: -x * tx * ty})
    assert Q.is_homological() is True


def test_every_2d_bivector_and_flaschka_ratiu_are_poisson():
    M = gc.Chart("x y")
    x, y = M.coords
    f = sp.Function("f")(x, y)
    assert gc.poisson_vector_field([[0, f], [-f, 0]], M).is_homological() is True
    M3 = gc.Chart("x y z")
    x, y, z = M3.coords
    h, C = sp.Function("h")(x, y, z), sp.Function("C")(x, y, z)
    g = [sp.diff(C, v) for v in (x, y, z)]
    # {x_i, x_j} = h eps_ijk d_k C
    P = [[0, h * g[2], -h * g[1]], [-h * g[2], 0, h * g[0]], [h * g[1], -h * g[0], 0]]
    assert gc.poisson_vector_field(P, M3).is_homological() is True
    assert decide_all_zero(gc.schouten_bracket(P, P, M3).tolist()[0][1]).is_zero is True


def test_non_poisson_bivector_and_the_schouten_relation():
    M = gc.Chart("x y z")
    x, y, z = M.coords
    # P = [[0, z, 0], [-z, 0, x], [0, -x, 0]] IS Poisson (linear, from a Lie algebra): [P, P] = 0
    good = [[0, z, 0], [-z, 0, x], [0, -x, 0]]
    assert gc.poisson_vector_field(good, M).is_homological() is True
    assert schouten_coordinates(good, good, M.coords)[(0, 1, 2)] == 0
    # {x, y} = z, {y, z} = y: Jac = P^{xl} d_l P^{yz} + ... = P^{xy} = z, [P, P]^{xyz} = 2 z
    bad = [[0, z, 0], [-z, 0, y], [0, -y, 0]]
    T3 = gc.schouten_bracket(bad, bad, M)
    assert T3[0, 1, 2] == 2 * z and T3[1, 0, 2] == -2 * z and T3[0, 0, 2] == 0
    Q, PP = assert_square_is_half_schouten(bad, M)
    assert PP[(0, 1, 2)] == 2 * z
    T = Q.chart
    tx, ty, tz = T.odd
    assert Q.square() == gc.VectorField(T, {x: z * ty * tz, y: -z * tx * tz, z: z * tx * ty, tz: -tx * ty * tz})
    rep = gc.homological_report(Q)
    assert rep.holds is False
    assert [c.coordinate for c in rep.components] == [x, y, z, tz]


def test_schouten_relation_with_undefined_functions():
    M = gc.Chart("x y z")
    x, y, z = M.coords
    a, b, c = (sp.Function(n)(x, y, z) for n in "abc")
    P = [[0, a, b], [-a, 0, c * sp.sin(x)], [-b, -c * sp.sin(x), 0]]
    Q, PP = assert_square_is_half_schouten(P, M)
    assert Q.is_homological() is False


def test_schouten_bracket_against_the_coordinate_formula():
    M = gc.Chart("x y z w")
    xs = M.coords
    x, y, z, w = xs
    P = sp.Matrix(4, 4, lambda i, j: 0)
    R = sp.Matrix(4, 4, lambda i, j: 0)
    for (i, j), v in {(0, 1): x * z, (0, 3): y**2, (1, 2): sp.exp(w), (2, 3): x + y}.items():
        P[i, j], P[j, i] = v, -v
    for (i, j), v in {(0, 2): w, (1, 3): sp.cos(x) * z, (2, 3): 1}.items():
        R[i, j], R[j, i] = v, -v
    T = gc.schouten_bracket(P, R, M)
    ref = schouten_coordinates(P, R, xs)
    assert decide_all_zero({k: T[k] - v for k, v in ref.items()}).is_zero is True
    # symmetric in its two bivector arguments
    T2 = gc.schouten_bracket(R, P, M)
    assert decide_all_zero({k: T[k] - T2[k] for k in ref}).is_zero is True


def test_poisson_field_is_the_lichnerowicz_differential():
    # Q = [pi, .] with pi = 1/2 P^{ij} theta_i theta_j and the Schouten bracket of the module
    # ([X, f] = X(f), [X, Y] = Lie bracket, checked first)
    from geomcheck.qstructures import _schouten_terms

    M = gc.Chart("x y z")
    x, y, z = M.coords
    assert _schouten_terms({(0,): y, (1,): x * z}, 1, {(2,): x}, 1, M.coords) == {(1,): -x**2, (2,): y}
    assert _schouten_terms({(0,): y}, 1, {(): x**2}, 0, M.coords) == {(): 2 * x * y}
    P = sp.Matrix([[0, x * y, sp.sin(z)], [-x * y, 0, z**2], [-sp.sin(z), -z**2, 0]])
    Q = gc.poisson_vector_field(P, M)
    T = Q.chart
    pi = {(i, j): P[i, j] for i in range(3) for j in range(i + 1, 3)}
    f = sp.Function("f")(x, y, z)
    assert (gc.SuperFunction(T, _schouten_terms(pi, 2, {(): f}, 0, M.coords)) - Q(f)).is_zero() is True
    for k in range(3):
        bracket = gc.SuperFunction(T, _schouten_terms(pi, 2, {(k,): sp.S.One}, 1, M.coords))
        assert (bracket - Q(T.odd[k])).is_zero() is True


def test_poisson_field_is_the_cotangent_algebroid_field():
    # rho(dx^a) = P^{ai} d/dx^i, [dx^a, dx^b] = d P^{ab} = d_c P^{ab} dx^c
    M = gc.Chart("x y z")
    x, y, z = M.coords
    V = sp.Function("V")(x, y, z)
    P = sp.Matrix([[0, V, x * y], [-V, 0, sp.sin(z)], [-x * y, -sp.sin(z), 0]])
    rho = [[P[a, i] for i in range(3)] for a in range(3)]
    C = {(a, b, c): sp.diff(P[a, b], M.coords[c]) for a in range(3) for b in range(3) for c in range(3)}
    Q = gc.poisson_vector_field(P, M)
    names = [c.name for c in Q.chart.odd]
    assert gc.lie_algebroid_vector_field(M, rho, C, names) == Q


def test_lie_poisson_of_so_n():
    for n in (3, 4, 5):
        N = n * (n - 1) // 2
        M = gc.Chart([f"x{i}" for i in range(N)])
        Q = gc.poisson_vector_field(gc.lie_poisson_matrix(gc.so_structure_constants(n), M), M)
        assert Q.chart.dim == 2 * N and Q.is_homological() is True


# --------------------------------------------------------------------------- Lie algebroids


def rotations(M):
    x, y, z = M.coords
    # the rotation fields R_a = eps_abc x_b d/dx_c:  R_x = y d_z - z d_y, ...
    return [gc.VectorField(M, {y: -z, z: y}), gc.VectorField(M, {z: -x, x: z}), gc.VectorField(M, {x: -y, y: x})]


def test_action_algebroid_of_rotations():
    M = gc.Chart("x y z")
    R = rotations(M)
    # [R_x, R_y] = -R_z: a -> R_a is an anti-homomorphism of (so(3), [e1, e2] = e3), a -> -R_a a homomorphism
    assert gc.bracket(R[0], R[1]) == -R[2]
    X = [-Ra for Ra in R]
    Q = gc.action_algebroid(SO3, X, M)
    E = Q.chart
    assert [c.name for c in E.coords] == ["x", "y", "z", "xi1", "xi2", "xi3"]
    assert E.degrees == (0, 0, 0, 1, 1, 1)
    x, y, z, a1, a2, a3 = E.coords
    # Q(x) = rho_a^x xi^a = (X_2)^x xi2 + (X_3)^x xi3 = -z xi2 + y xi3
    assert Q.component(x) == sf(E, -z * a2 + y * a3)
    assert Q.component(a3) == sf(E, -a1 * a2)
    assert Q.is_homological() is True


def test_wrong_anchor_breaks_q_squared():
    M = gc.Chart("x y z")
    R = rotations(M)
    Q = gc.action_algebroid(SO3, R, M)         # the anti-homomorphism
    assert Q.is_homological() is False
    # (Q o Q)(x^i) = sum_{a<b} ([rho_a, rho_b]^i - C_ab^c rho_c^i) xi^a xi^b, computed independently
    E = Q.chart
    xi = E.odd
    S = Q.square()
    t = dense_constants(SO3, 3)
    for i, xv in enumerate(M.coords):
        expected = 0
        for a, b in itertools.combinations(range(3), 2):
            coeff = gc.bracket(R[a], R[b]).component(xv) - sum(t[a][b][c] * R[c].component(xv) for c in range(3))
            expected += coeff * xi[a] * xi[b]
        assert (S.component(xv) - E.function(expected)).is_zero() is True
    rep = gc.homological_report(Q)
    assert rep.holds is False
    assert [c.coordinate.name for c in rep.components] == ["x", "y", "z"]      # the xi part is CE: zero
    x, y, z = M.coords
    # [R_x, R_y] - R_z = -2 R_z: coefficient of xi1 xi2 in (QQ)(x) is -2 (R_z)^x = 2 y
    assert rep.components[0].value.coefficient(xi[0], xi[1]) == 2 * y


def test_lie_algebroid_with_structure_functions():
    M = gc.Chart("x")
    x, = M.coords
    f = sp.Function("f")(x)
    # rho(e1) = d_x, rho(e2) = f d_x, [e1, e2] = f' e1: rho([e1, e2]) = f' d_x = [d_x, f d_x]
    Q = gc.lie_algebroid_vector_field(M, [[1], [f]], {(0, 1, 0): sp.diff(f, x)})
    assert Q.is_homological() is True
    assert gc.lie_algebroid_vector_field(M, [[1], [f]], {(0, 1, 0): f}).is_homological() is False
    # the tangent algebroid (rho = identity, C = 0) is the de Rham field
    M2 = gc.Chart("u v")
    Q = gc.lie_algebroid_vector_field(M2, sp.eye(2), {}, ["du", "dv"])
    assert Q == gc.de_rham_vector_field(M2)


def test_algebroid_names_avoid_clashes():
    M = gc.Chart("xi1 y")
    Q = gc.lie_algebroid_vector_field(M, [[1, 0]], {}, None)
    assert [c.name for c in Q.chart.coords] == ["xi1", "y", "xi1'"]


def test_action_algebroid_of_linear_matrix_actions():
    # g in gl(m) acts on R^m by X_A = -(A x)^i d/dx^i (A -> X_A is a homomorphism)
    e = sp.Matrix([[0, 1], [0, 0]])
    f, h = e.T, sp.Matrix([[1, 0], [0, -1]])
    c = gc.structure_constants([e, f, h])
    M = gc.Chart("u v")
    u = sp.Matrix(M.coords)
    fields = [gc.VectorField(M, list(-(B * u))) for B in (e, f, h)]
    assert gc.action_algebroid(c, fields, M).is_homological() is True
    assert gc.action_algebroid(c, [-X for X in fields], M).is_homological() is False
    # a matrix anchor is accepted as well
    rho = sp.Matrix([list(-(B * u)) for B in (e, f, h)])
    assert gc.action_algebroid(c, rho, M) == gc.action_algebroid(c, fields, M)


# --------------------------------------------------------------------------- reports


def test_report_of_a_homological_field():
    rep = gc.homological_report(gc.chevalley_eilenberg_vector_field(SO3))
    assert rep.holds is True and rep.components == ()
    assert str(rep).startswith("Q o Q = 0")
    assert gc.latex(rep) == r"Q \circ Q = 0"
    assert rep._repr_latex_() == r"$Q \circ Q = 0$"
    assert rep.decision.is_zero is True


def test_report_text_and_latex():
    c = {(0, 1, 1): 1, (1, 2, 2): 1, (0, 2, 0): 1}
    rep = gc.homological_report(gc.chevalley_eilenberg_vector_field(c))
    text = str(rep)
    assert text.startswith("Q o Q != 0")
    assert "3 component(s)" in text
    assert "(Q o Q)(xi1) = -xi1*xi2*xi3" in text
    assert "(Q o Q)(xi3) = xi1*xi2*xi3" in text
    tex = gc.latex(rep)
    assert r"(Q \circ Q)\left(\xi_{3}\right) &= \xi_{1} \xi_{2} \xi_{3}" in tex
    assert rep.decision.is_zero is False and rep.decision.index[0] in rep.field.chart.coords
    assert all(comp.decision.is_zero is False for comp in rep.components)
    assert "holds=False" in repr(rep)


def test_report_drops_terms_that_are_zero_but_not_structurally():
    G = gc.Chart("x a b c d", degrees=[0, 1, 1, 1, 1])
    x, a, b, c, d = G.coords
    Z = sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1          # zero, but not structurally
    # Q = a d/dx + (Z x + x c d) d/db:  (Q o Q)(b) = Q(Z x + x c d) = Z a + a c d
    Q = gc.VectorField(G, {x: a, b: Z * x + x * c * d})
    S = Q.square()
    assert S.component(b) == G.function(Z * a + a * c * d)
    rep = gc.homological_report(Q)
    assert rep.holds is False
    assert [comp.coordinate for comp in rep.components] == [b]
    assert rep.components[0].value == G.function(a * c * d)     # the zero term is dropped
    assert "(Q o Q)(b) = a*c*d" in str(rep)


def test_report_computes_the_square_of_the_engine():
    # polynomial coefficients (with a parameter t): exact Python arithmetic, expanded result
    M = gc.Chart("x y z")
    x, y, z = M.coords
    t = sp.Symbol("t")
    P = [[0, t * z, 0], [-t * z, 0, (y + 1) ** 2], [0, -(y + 1) ** 2, 0]]
    Q = gc.poisson_vector_field(P, M)
    rep = gc.homological_report(Q)
    assert rep.square_method == "polynomial"
    assert (rep.square - Q.square()).is_zero() is True
    T = Q.chart
    tx, ty, tz = T.odd
    # [P, P]^{xyz} = 2 (P^{xl} d_l P^{yz} + ...) = 2 t z * 2 (y + 1) = 4 t z (y + 1)
    assert rep.square.component(x) == T.function(sp.expand(2 * t * z * (y + 1)) * ty * tz)
    assert rep.holds is False
    # transcendental coefficients: sympy arithmetic
    Q2 = gc.poisson_vector_field([[0, sp.sin(z), 0], [-sp.sin(z), 0, y], [0, -y, 0]], M)   # Jac = sin(z)
    rep2 = gc.homological_report(Q2)
    assert rep2.square_method == "symbolic"
    assert (rep2.square - Q2.square()).is_zero() is True
    assert rep2.holds is Q2.is_homological() is False
    # the zero field is homological (VectorField.parity calls it even)
    rep0 = gc.homological_report(gc.chevalley_eilenberg_vector_field({}, dim=2))
    assert rep0.holds is True and rep0.components == ()


def test_report_needs_an_odd_field():
    M = gc.Chart("x")
    with pytest.raises(errors.NotHomogeneousError):
        gc.homological_report(gc.VectorField(M, {M.coords[0]: 1}))
    with pytest.raises(errors.ExpressionError, match="needs a VectorField"):   # a TypeError
        gc.homological_report("Q")


# --------------------------------------------------------------------------- bad input


def test_hierarchy_of_the_new_errors():
    assert issubclass(errors.StructureConstantsNotSkewError, errors.NotSkewError)
    assert issubclass(errors.StructureConstantsNotSkewError, errors.StructureConstantsError)
    assert issubclass(errors.StructureConstantsShapeError, errors.ShapeError)
    assert issubclass(errors.AnchorShapeError, errors.ShapeError)
    for cls in (errors.ShapeError, errors.NotSkewError, errors.StructureConstantsError, errors.AnchorShapeError):
        assert issubclass(cls, GeomcheckError) and issubclass(cls, ValueError)


def test_bivector_not_skew():
    M = gc.Chart("x y z")
    x, y, z = M.coords
    with raises(errors.NotSkewError, "the bivector P", "not skew", "entry [0][1]", "{x, y}", "z", "[1][0]",
                "expected [1][0] = -[0][1]"):
        gc.poisson_vector_field([[0, z, 0], [z, 0, x], [0, -x, 0]], M)
    with raises(errors.NotSkewError, "diagonal entry [2][2]", "{z, z}", "expected 0"):
        gc.poisson_vector_field([[0, z, 0], [-z, 0, x], [0, -x, 1]], M)
    with raises(errors.NotSkewError, "the bivector R", "[0][2]"):
        gc.schouten_bracket(sp.zeros(3, 3), [[0, 0, x], [0, 0, 0], [x, 0, 0]], M)
    # skew up to a trigonometric identity is skew
    s = sp.sin(x) ** 2
    assert gc.poisson_vector_field([[0, s, 0], [sp.cos(x) ** 2 - 1, 0, 0], [0, 0, 0]], M).degree == 1


def test_bivector_of_the_wrong_shape():
    M = gc.Chart("x y z")
    with raises(errors.ShapeError, "the bivector P", "2 rows", "3 x 3"):
        gc.poisson_vector_field([[0, 1], [-1, 0]], M)
    with raises(errors.ShapeError, "row 1 of the bivector P", "2 entries", "3 x 3"):
        gc.poisson_vector_field([[0, 1, 0], [-1, 0], [0, 0, 0]], M)
    with raises(errors.ShapeError, "the bivector P must be"):
        gc.poisson_vector_field("P", M)
    with raises(errors.ChartMismatchError, "ordinary chart"):
        gc.poisson_vector_field([[0]], gc.Chart("x xi", degrees=[0, 1]))


def test_structure_constants_not_skew():
    with raises(errors.StructureConstantsNotSkewError, "not skew in the lower indices", "i=0, j=1, k=2",
                "c[0][1][2] = 1", "c[1][0][2] = 1"):
        gc.chevalley_eilenberg_vector_field({(0, 1, 2): 1, (1, 0, 2): 1})
    dense = [[[0, 0, 0], [0, 0, 1], [0, 0, 0]],
             [[0, 0, 1], [0, 0, 0], [0, 0, 0]],
             [[0, 0, 0], [0, 0, 0], [0, 0, 0]]]
    with raises(errors.NotSkewError, "i=0, j=1, k=2", "expected c[1][0][2] = -c[0][1][2]"):
        gc.chevalley_eilenberg_vector_field(dense)
    with raises(errors.StructureConstantsNotSkewError, "c[1][1][0] = 3", "[e_1, e_1] = 0"):
        gc.chevalley_eilenberg_vector_field({(1, 1, 0): 3})
    dense[1][0][2] = -1
    dense[2][2][1] = sp.Rational(1, 2)
    with raises(errors.StructureConstantsNotSkewError, "c[2][2][1] = 1/2"):
        gc.chevalley_eilenberg_vector_field(dense)


def test_structure_constants_of_inconsistent_size():
    with raises(errors.StructureConstantsShapeError, "inconsistent size", "c[1] has 2 entries", "c has 3"):
        gc.chevalley_eilenberg_vector_field([[[0] * 3] * 3, [[0] * 3] * 2, [[0] * 3] * 3])
    with raises(errors.StructureConstantsShapeError, "c[0][2] has 1 entries"):
        gc.chevalley_eilenberg_vector_field([[[0] * 3, [0] * 3, [0]], [[0] * 3] * 3, [[0] * 3] * 3])
    with raises(errors.StructureConstantsShapeError, "index 3 is out of range", "< 3"):
        gc.chevalley_eilenberg_vector_field({(0, 1, 3): 1}, dim=3)
    with raises(errors.StructureConstantsShapeError, "not a triple"):
        gc.chevalley_eilenberg_vector_field({(0, 1): 1})
    with raises(errors.StructureConstantsShapeError, "empty dict", "dim="):
        gc.chevalley_eilenberg_vector_field({})
    with raises(errors.StructureConstantsShapeError, "have size 2; expected 3"):
        gc.chevalley_eilenberg_vector_field(np.zeros((2, 2, 2), dtype=int), dim=3)
    with raises(errors.StructureConstantsShapeError, "index -1"):
        gc.chevalley_eilenberg_vector_field({(0, -1, 1): 1})


def test_anchor_of_the_wrong_shape():
    M = gc.Chart("x y z")
    x, y, z = M.coords
    with raises(errors.AnchorShapeError, "the anchor rho", "2 rows", "3 x 3", "one row rho_a per fibre"):
        gc.lie_algebroid_vector_field(M, [[1, 0, 0], [0, 1, 0]], [[[0] * 3] * 3] * 3)
    with raises(errors.AnchorShapeError, "row 0 of the anchor rho has 2 entries", "(x, y, z)"):
        gc.lie_algebroid_vector_field(M, [[1, 0], [0, 1]], {(0, 1, 1): 1})
    # a 3 x 2 anchor for a rank-2 bundle over a 3-dimensional M: transposed
    with raises(errors.AnchorShapeError, "transpose"):
        gc.lie_algebroid_vector_field(M, [[1, 0], [0, 1], [0, 0]], [[[0] * 2] * 2] * 2)
    with raises(errors.AnchorShapeError, "2 action fields", "dimension 3", "one vector field X_a"):
        gc.action_algebroid(SO3, rotations(M)[:2], M)
    with raises(errors.ChartMismatchError, "vector field 0"):
        gc.action_algebroid(HEIS, [gc.VectorField(gc.Chart("u v w"), {})] * 3, M)
    with raises(errors.StructureConstantsError, "must be constants"):
        gc.action_algebroid({(0, 1, 2): x}, rotations(M), M)
