"""Laws of Q-structures on random data.

* de Rham fields are homological on random charts;
* Chevalley-Eilenberg fields of random Lie algebras are homological.  The random Lie
  algebras are built from *matrices*, never from the structure constants the engine
  reads: a random basis (an integer change of basis) of a direct sum of known matrix Lie
  algebras (so(3), sl(2), gl(2), Heisenberg, strictly upper triangular n(4), the Borel
  b(2), aff(1), abelian), whose structure constants are then solved for exactly;
* for ANY skew constants, the coefficient of xi^a xi^b xi^c (a < b < c) in (Q o Q)(xi^m)
  is the Jacobiator Jac(e_a, e_b, e_c)^m, computed here from its definition in Fractions;
  so a random perturbation of a Lie algebra that breaks Jacobi gives Q o Q != 0, and the
  report names exactly the components xi^m where the Jacobiator is nonzero;
* Poisson: every bivector in 2D, the Lie-Poisson bivector of a random Lie algebra, and
  Q o Q = 1/2 [[P, P], .] for random 3D bivectors, with the Schouten bracket from its
  coordinate formula;
* action algebroids of random matrix Lie algebras acting linearly: the homomorphism
  A -> -(A x).d/dx is homological, the anti-homomorphism A -> (A x).d/dx is not.

Each example is small (dimension <= 7), so a test takes seconds under the ``ci`` profile.
"""

from fractions import Fraction

import sympy as sp
from hypothesis import assume, given
from hypothesis import strategies as st

import geomcheck as gc
from geomcheck import strategies as gst
from oracles.lie_algebras import dense_constants, jacobiator


# --------------------------------------------------------------------------- random Lie algebras


def unit(m, a, b):
    E = sp.zeros(m, m)
    E[a, b] = 1
    return E


def so3():
    return [unit(3, 0, 1) - unit(3, 1, 0), unit(3, 0, 2) - unit(3, 2, 0), unit(3, 1, 2) - unit(3, 2, 1)]


BASES = {
    "so3": so3,
    "sl2": lambda: [unit(2, 0, 1), unit(2, 1, 0), unit(2, 0, 0) - unit(2, 1, 1)],
    "gl2": lambda: [unit(2, a, b) for a in range(2) for b in range(2)],
    "heisenberg": lambda: [unit(3, 0, 1), unit(3, 1, 2), unit(3, 0, 2)],
    "n4": lambda: [unit(4, a, b) for a in range(4) for b in range(a + 1, 4)],
    "b2": lambda: [unit(2, 0, 0), unit(2, 0, 1), unit(2, 1, 1)],
    "aff1": lambda: [unit(2, 0, 0), unit(2, 0, 1)],
    "abelian2": lambda: [unit(2, 0, 0), unit(2, 1, 1)],
}


DIMS = {name: len(make()) for name, make in BASES.items()}


def direct_sum(bases):
    """Block-diagonal matrices: the direct sum of the Lie algebras."""
    size = sum(B[0].shape[0] for B in bases)
    out, offset = [], 0
    for B in bases:
        m = B[0].shape[0]
        for A in B:
            big = sp.zeros(size, size)
            big[offset:offset + m, offset:offset + m] = A
            out.append(big)
        offset += m
    return out


@st.composite
def matrix_lie_algebras(draw, max_dim=7):
    """A random basis of a direct sum of one or two known matrix Lie algebras."""
    fits = [name for name in sorted(BASES) if DIMS[name] <= max_dim]
    names = [draw(st.sampled_from(fits), label="summand")]
    room = max_dim - DIMS[names[0]]
    fits = [name for name in sorted(BASES) if DIMS[name] <= room]
    if fits and draw(st.booleans(), label="direct sum"):
        names.append(draw(st.sampled_from(fits), label="second summand"))
    basis = direct_sum([BASES[name]() for name in names])
    n = len(basis)
    # an integer change of basis, unit upper triangular times a permutation: invertible
    perm = draw(st.permutations(range(n)), label="order")
    upper = sp.eye(n)
    for i in range(n):
        for j in range(i + 1, n):
            upper[i, j] = draw(st.integers(-2, 2), label=f"A{i}{j}")
    new = [sp.zeros(*basis[0].shape) for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if upper[i, j]:
                new[perm[i]] += upper[i, j] * basis[j]
    return names, new


def lie_algebras():
    return matrix_lie_algebras().map(lambda nb: (nb[0], nb[1], gc.structure_constants(nb[1])))


def square_coefficients(Q):
    """{(a, b, c, m): coefficient of xi^a xi^b xi^c in (Q o Q)(xi^m)} (nonzero, as Fractions)."""
    out = {}
    for m, terms in Q.square().component_terms().items():
        for key, v in terms.items():
            assert len(key) == 3
            v = sp.nsimplify(v)
            if v != 0:
                out[key + (m,)] = Fraction(int(v.p), int(v.q))
    return out


@st.composite
def perturbations(draw, n):
    i, j = sorted(draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True), label="ij"))
    k = draw(st.integers(0, n - 1), label="k")
    delta = draw(st.sampled_from([Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(2)]), label="delta")
    return i, j, k, delta


def perturbed(c, p):
    i, j, k, delta = p
    out = dict(c)
    d = sp.Rational(delta.numerator, delta.denominator)
    out[(i, j, k)] = out.get((i, j, k), 0) + d
    out[(j, i, k)] = out.get((j, i, k), 0) - d
    return out


def homological(Q):
    """``Q.is_homological()``; the zero field (abelian g) counts as odd and homological.

    ``VectorField.parity`` of the zero field is 0, so ``square()`` refuses it; the report
    (``homological_report``) handles it, ``is_homological`` does not (fields.py).
    """
    if not Q.component_terms():
        assert gc.homological_report(Q).holds is True
        return True
    return Q.is_homological()


# --------------------------------------------------------------------------- laws


@given(gst.charts(1, 4))
def test_de_rham_fields_are_homological(M):
    Q = gc.de_rham_vector_field(M)
    assert Q.degree == 1
    assert Q.is_homological() is True


@given(lie_algebras())
def test_ce_fields_of_random_lie_algebras_are_homological(lie):
    names, basis, c = lie
    assert jacobiator(dense_constants(c, len(basis), complete_skew=False)) == {}      # the generator is right
    Q = gc.chevalley_eilenberg_vector_field(c, dim=len(basis))
    assert Q.degree == (1 if c else 0)     # the zero field (abelian g) has degree 0
    assert homological(Q) is True
    assert gc.homological_report(Q).components == ()


@given(st.data())
def test_ce_square_is_the_jacobiator(data):
    names, basis, c = data.draw(lie_algebras(), label="g")
    n = len(basis)
    assume(n >= 3)
    c2 = perturbed(c, data.draw(perturbations(n), label="perturbation"))
    Q = gc.chevalley_eilenberg_vector_field(c2, dim=n)
    assert square_coefficients(Q) == jacobiator(dense_constants(c2, n, complete_skew=False))


@given(st.data())
def test_a_perturbation_that_breaks_jacobi_is_reported(data):
    names, basis, c = data.draw(lie_algebras(), label="g")
    n = len(basis)
    assume(n >= 3)
    c2 = perturbed(c, data.draw(perturbations(n), label="perturbation"))
    J = jacobiator(dense_constants(c2, n, complete_skew=False))
    assume(J)          # perturbations inside a nilpotent centre can keep Jacobi
    Q = gc.chevalley_eilenberg_vector_field(c2, dim=n)
    assert Q.is_homological() is False
    rep = gc.homological_report(Q)
    assert rep.holds is False
    xi = Q.chart.odd
    assert [comp.coordinate for comp in rep.components] == [xi[m] for m in sorted({k[3] for k in J})]
    for comp in rep.components:
        m = xi.index(comp.coordinate)
        for (a, b, cc, mm), v in J.items():
            if mm == m:
                assert comp.value.coefficient(xi[a], xi[b], xi[cc]) == sp.Rational(v.numerator, v.denominator)
    coord, key = rep.decision.index
    assert key + (xi.index(coord),) in J


@given(st.data())
def test_lie_poisson_fields_are_homological_iff_jacobi(data):
    names, basis, c = data.draw(matrix_lie_algebras(max_dim=4).map(
        lambda nb: (nb[0], nb[1], gc.structure_constants(nb[1]))), label="g")
    n = len(basis)
    if n >= 3 and data.draw(st.booleans(), label="perturb"):
        c = perturbed(c, data.draw(perturbations(n), label="perturbation"))
    M = gc.Chart([f"x{i}" for i in range(n)])
    Q = gc.poisson_vector_field(gc.lie_poisson_matrix(c, M), M)
    assert homological(Q) is (not jacobiator(dense_constants(c, n, complete_skew=False)))


@given(st.data())
def test_every_bivector_in_two_dimensions_is_poisson(data):
    M = gc.Chart("x y")
    f = data.draw(gst.coefficients(M, kind=st.sampled_from(["polynomial", "transcendental", "generic"])), label="f")
    assert homological(gc.poisson_vector_field([[0, f], [-f, 0]], M)) is True   # f = 0 gives Q = 0


def schouten_square(P, xs):
    """[P, P]^{ijk} = 2 * cyclic sum of P^{il} d_l P^{jk}, from the coordinate formula."""
    n = len(xs)

    def term(i, j, k):
        return sum(P[i][l] * sp.diff(P[j][k], xs[l]) for l in range(n))

    return {(i, j, k): 2 * (term(i, j, k) + term(j, k, i) + term(k, i, j))
            for i in range(n) for j in range(n) for k in range(n)}


@given(st.data())
def test_poisson_square_is_half_the_schouten_square(data):
    M = gc.Chart("x y z")
    xs = M.coords
    kinds = st.sampled_from(["polynomial", "transcendental", "generic"])
    upper = [data.draw(gst.coefficients(M, kind=kinds), label=f"P{i}{j}") for i, j in ((0, 1), (0, 2), (1, 2))]
    P = [[0, upper[0], upper[1]], [-upper[0], 0, upper[2]], [-upper[1], -upper[2], 0]]
    PP = schouten_square(P, xs)
    Q = gc.poisson_vector_field(P, M)
    T, S = Q.chart, (Q.square() if Q.component_terms() else Q)   # Q = 0 when P = 0
    th = T.odd
    xx = sp.Add(*[PP[(0, j, k)] * th[j] * th[k] for j, k in ((1, 2),)])
    # (Q o Q)(x) = 1/2 [P, P]^{xyz} theta_y theta_z;  (Q o Q)(theta_k) = -1/2 d_k [P, P]^{xyz} theta_x theta_y theta_z
    parts = {("x", ()): (S.component(xs[0]) - T.function(xx / 2)).terms}
    for k in range(3):
        expected = -sp.diff(PP[(0, 1, 2)], xs[k]) / 2 * th[0] * th[1] * th[2]
        parts[("theta", k)] = (S.component(th[k]) - T.function(expected)).terms
    flat = {(p, key): v for p, terms in parts.items() for key, v in terms.items()}
    from geomcheck.zero import decide_all_zero

    assert decide_all_zero(flat).is_zero is True
    assert homological(Q) is decide_all_zero([PP[(0, 1, 2)]]).is_zero


@given(st.data())
def test_linear_action_algebroids(data):
    names, basis = data.draw(matrix_lie_algebras(max_dim=4), label="g")
    c = gc.structure_constants(basis)
    m = basis[0].shape[0]
    M = gc.Chart([f"u{i}" for i in range(m)])
    u = sp.Matrix(M.coords)
    fields = [gc.VectorField(M, list(-(B * u))) for B in basis]
    assert homological(gc.action_algebroid(c, fields, M)) is True
    anti = gc.action_algebroid(c, [-X for X in fields], M)
    assert homological(anti) is (not c)       # the anti-homomorphism only for abelian g


@given(st.data())
def test_the_report_squares_like_the_engine(data):
    # homological_report assembles Q o Q itself (sparsely; in Python arithmetic for
    # polynomial coefficients): it must be the field VectorField.square() computes
    G = data.draw(gst.graded_charts(2, 4, min_odd=1), label="chart")
    kind = data.draw(st.sampled_from(["polynomial", "transcendental", "generic"]), label="kind")
    Q = data.draw(gst.odd_vector_fields(G, coefficients=lambda chart: gst.coefficients(chart, kind=kind)),
                  label="Q")
    rep = gc.homological_report(Q)
    if not Q.component_terms():
        assert rep.holds is True and rep.square.component_terms() == {}
        return
    if kind == "polynomial":
        assert rep.square_method == "polynomial"
    assert (rep.square - Q.square()).is_zero() is True
    assert rep.holds is Q.is_homological()
    shown = {comp.coordinate for comp in rep.components}
    assert all((Q.square().component(y).is_zero() is False) for y in shown)
