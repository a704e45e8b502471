"""Almost-Dirac structures: isotropy, maximal rank, Courant-Dorfman integrability."""

import itertools
import random

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import geomcheck as gc
from geomcheck import errors
from geomcheck import strategies as gst
from geomcheck.latex import compile_pdf, document
from geomcheck.structures import (
    AlmostDiracStructure,
    almost_dirac_structure,
    dirac_pairing,
    dorfman_bracket,
    graph_of_bivector,
    graph_of_two_form,
    graph_with_ports,
)
from geomcheck.zero import decide_all_zero

M3 = gc.Chart("x y z")
x, y, z = M3.coords
f, g, h, C, V = (sp.Function(n) for n in "fghCV")


def generic_bivector():
    a, b, c = f(x, y, z), g(x, y, z), h(x, y, z)
    return [[0, a, b], [-a, 0, c], [-b, -c, 0]]


def eps(i, j, k):
    return sp.LeviCivita(i, j, k)


# --------------------------------------------------------------------------- graphs of bivectors


def test_lie_poisson_so3_is_dirac():
    L = graph_of_bivector([[0, z, -y], [-z, 0, x], [y, -x, 0]], M3)
    assert isinstance(L, AlmostDiracStructure) and L.kind == "bivector"
    assert L.certify_isotropic().holds is True
    assert L.certify_maximal_rank().holds is True
    assert L.certify_integrable().holds is True
    assert L.is_almost_dirac() is True


def test_non_poisson_bivector_is_not_integrable_and_the_tensor_is_half_the_schouten_bracket():
    P = [[0, z, 0], [-z, 0, y], [0, -y, 0]]
    L = graph_of_bivector(P, M3)
    c = L.certify_integrable()
    assert c.holds is False
    assert c.residual[(0, 1, 2)] == z            # 1/2 [P, P]^{xyz} = z
    assert L.certify_isotropic().holds is True   # still almost-Dirac


def test_generic_bivector_courant_tensor_equals_half_schouten():
    P = generic_bivector()
    L = graph_of_bivector(P, M3)
    T = L.courant_tensor()
    S = gc.schouten_bracket(P, P, M3)
    diffs = {(a, b, c): T.get((a, b, c), 0) - S[a, b, c] / 2
             for a, b in itertools.combinations(range(3), 2) for c in range(3)}
    assert decide_all_zero(diffs).is_zero is True
    # and it is not zero: a generic bivector in 3D is not Poisson
    assert L.certify_integrable().holds is False


def test_generic_poisson_bivector_in_3d_is_dirac():
    # P^{ij} = eps_ijk f grad_k C is Poisson for any f, C (a . curl a = 0 for a = f grad C)
    F, c = f(x, y, z), C(x, y, z)
    grad = [c.diff(v) for v in (x, y, z)]
    P = [[sum(eps(i, j, k) * F * grad[k] for k in range(3)) for j in range(3)] for i in range(3)]
    assert graph_of_bivector(P, M3).certify_integrable().holds is True


@pytest.mark.parametrize("n", [2, 4])
def test_every_bivector_in_two_dimensions_and_constant_bivectors_are_dirac(n):
    M = gc.Chart([f"x{i}" for i in range(n)])
    xs = M.coords
    if n == 2:
        P = [[0, V(*xs)], [-V(*xs), 0]]
    else:
        rng = random.Random(n)
        P = [[0] * n for _ in range(n)]
        for i, j in itertools.combinations(range(n), 2):
            P[i][j] = sp.Rational(rng.randint(-5, 5), rng.randint(1, 4))
            P[j][i] = -P[i][j]
    L = graph_of_bivector(P, M)
    assert L.certify_maximal_rank().holds is True
    assert L.certify_integrable().holds is True


def _random_bracket(seed):
    rng = random.Random(seed)
    c = {}
    for i, j in itertools.combinations(range(3), 2):
        for k in range(3):
            v = rng.choice([0, 0, 1, -1, 2])
            if v:
                c[(i, j, k)] = v
    return c


LIE_ALGEBRAS = {
    "so3": ({(0, 1, 2): 1, (1, 2, 0): 1, (2, 0, 1): 1}, True),
    "heisenberg": ({(0, 1, 2): 1}, True),
    "book": ({(0, 2, 0): 1, (1, 2, 1): 1}, True),
    "so3-perturbed": ({(0, 1, 2): 1, (1, 2, 0): 1, (2, 0, 1): 1, (0, 1, 0): 1}, None),
    "random0": (_random_bracket(0), None),
    "random1": (_random_bracket(1), None),
}


@pytest.mark.parametrize("name", sorted(LIE_ALGEBRAS))
def test_linear_bivectors_integrable_iff_jacobi(name):
    """Lie-Poisson bivectors on R^3 of Lie algebras and of brackets that are not: Dirac iff [P, P] = 0."""
    c, known = LIE_ALGEBRAS[name]
    P = gc.lie_poisson_matrix(c, M3)
    S = gc.schouten_bracket(P, P, M3)
    poisson = decide_all_zero([S[0, 1, 2]]).is_zero
    if known is not None:
        assert poisson is known
    assert graph_of_bivector(P, M3).certify_integrable().holds is poisson


def test_the_bracket_table_has_both_outcomes():
    outcomes = set()
    for c, _ in LIE_ALGEBRAS.values():
        P = gc.lie_poisson_matrix(c, M3)
        outcomes.add(graph_of_bivector(P, M3).certify_integrable().holds)
    assert outcomes == {True, False}


# --------------------------------------------------------------------------- graphs of two-forms


def test_closed_two_forms_are_dirac():
    w = gc.d(V(x, y, z) * M3.d(x) + f(x, y, z) * M3.d(y))   # exact, generic coefficients
    assert w.degree == 2
    assert graph_of_two_form(w, M3).certify_integrable().holds is True
    assert graph_of_two_form(M3.d(x) ^ M3.d(y), M3).certify_integrable().holds is True


def test_generic_two_form_tensor_is_d_omega():
    a, b, c = f(x, y, z), g(x, y, z), h(x, y, z)
    w = a * (M3.d(x) ^ M3.d(y)) + b * (M3.d(y) ^ M3.d(z)) + c * (M3.d(x) ^ M3.d(z))
    L = graph_of_two_form(w, M3)
    T = L.courant_tensor()
    dw = gc.d(w).coefficient(x, y, z)
    assert decide_all_zero([T[(0, 1, 2)] - dw]).is_zero is True
    assert L.certify_integrable().holds is False
    # the matrix form gives the same structure
    Lm = graph_of_two_form(L.matrix, M3)
    assert Lm.forms == L.forms


def test_non_closed_two_form():
    c = graph_of_two_form(z * (M3.d(x) ^ M3.d(y)), M3).certify_integrable()
    assert c.holds is False and c.counterexample is not None


# --------------------------------------------------------------------------- spanning sections


def test_cotangent_and_tangent_bundles_are_dirac():
    M = gc.Chart("q p")
    q, p = M.coords
    TstarM = almost_dirac_structure(M, [([0, 0], M.d(q)), ([0, 0], M.d(p))])
    TM = almost_dirac_structure(M, [(gc.VectorField(M, {q: 1}), [0, 0]), (gc.VectorField(M, {p: 1}), [0, 0])])
    for L in (TstarM, TM):
        assert L.certify_isotropic().holds is True
        assert L.certify_maximal_rank().holds is True
        assert L.certify_integrable().holds is True


def test_non_isotropic_sections_and_integrability_is_then_undecided():
    M = gc.Chart("q p")
    q, p = M.coords
    L = almost_dirac_structure(M, [(gc.VectorField(M, {q: 1}), M.d(q)), ([0, 0], M.d(p))])
    iso = L.certify_isotropic()
    assert iso.holds is False and iso.residual[(0, 0)] == 2
    integ = L.certify_integrable()
    assert integ.holds is None and "isotropy" in integ.method


def test_rank_deficient_sections():
    M = gc.Chart("q p")
    q, p = M.coords
    X = gc.VectorField(M, {q: p})
    L = almost_dirac_structure(M, [(X, [0, 0]), (q * X, [0, 0])])
    assert L.certify_isotropic().holds is True
    assert L.certify_maximal_rank().holds is False
    assert L.is_almost_dirac() is False


def test_rank_proved_by_a_mixed_minor_with_generic_functions():
    M = gc.Chart("q p")
    q, p = M.coords
    a = V(q, p)
    # sections (V d_q, 0) and (0, dq): neither the vector block nor the form block is invertible
    L = almost_dirac_structure(M, [(gc.VectorField(M, {q: a}), [0, 0]), ([0, 0], M.d(q))])
    c = L.certify_maximal_rank()
    assert c.holds is True
    assert c.witness == (0, 2)     # rows X^q and alpha_q


def test_dorfman_bracket_of_exact_forms():
    X = gc.VectorField(M3, {x: y, z: f(x, y, z)})
    Y = gc.VectorField(M3, {y: x * z})
    F, G = g(x, y, z), h(x, y, z)
    Z, gamma = dorfman_bracket((X, M3.d(F)), (Y, M3.d(G)))
    assert Z == gc.bracket(X, Y)
    # L_X dG - i_Y d dF = d(X(G))
    assert (gamma - M3.d(X(G))).is_zero()
    assert dirac_pairing((X, M3.d(F)), (Y, M3.d(G))) == M3.d(F)(Y) + M3.d(G)(X)


def test_courant_tensor_is_totally_skew_on_a_lagrangian_subbundle():
    L = graph_of_bivector(generic_bivector(), M3)
    T = L.courant_tensor()
    # T(0,1,2) = -T(0,2,1) = T(1,2,0)
    assert decide_all_zero([T[(0, 1, 2)] + T[(0, 2, 1)], T[(0, 1, 2)] - T[(1, 2, 0)]]).is_zero is True


def test_graph_with_ports_is_the_graph_of_the_transposed_bivector():
    M = gc.Chart("q p")
    q, p = M.coords
    D = [[0, -1, 0], [1, 0, -V(q, p)], [0, V(q, p), 0]]
    L = graph_with_ports(D, M, ["w"])
    B = graph_of_bivector(sp.Matrix(D).T, L.chart)
    assert L.fields == B.fields and L.forms == B.forms
    assert L.certify_isotropic().holds is True
    c = L.certify_integrable()
    # [D, D]^{qpw} = 2 (D^{lq} d_l D^{wp} + ...) = 2 (dV/dq * 1 ...) is generically nonzero
    assert c.holds is False


# --------------------------------------------------------------------------- bad input


def test_bad_sections():
    M = gc.Chart("q p")
    q, p = M.coords
    with pytest.raises(errors.SectionShapeError, match="1 spanning section"):
        almost_dirac_structure(M, [([0, 0], [1, 0])])
    with pytest.raises(errors.SectionShapeError, match="3 spanning section"):
        almost_dirac_structure(M, [([0, 0], [1, 0])] * 3)
    with pytest.raises(errors.SectionShapeError, match="3 components; expected 2"):
        almost_dirac_structure(M, [([0, 0, 0], [1, 0]), ([0, 0], [0, 1])])
    with pytest.raises(errors.SectionShapeError, match="one-form of section 1 has 1 components"):
        almost_dirac_structure(M, [([0, 0], [1, 0]), ([0, 0], [1])])
    with pytest.raises(errors.SectionShapeError, match="pair"):
        almost_dirac_structure(M, [([0, 0], [1, 0], [0, 0]), ([0, 0], [0, 1])])
    with pytest.raises(errors.SectionShapeError, match="expected a one-form"):
        almost_dirac_structure(M, [([0, 0], M.d(q) ^ M.d(p)), ([0, 0], [0, 1])])
    with pytest.raises(errors.ShapeError):       # SectionShapeError is a ShapeError too
        almost_dirac_structure(M, [([0], [1, 0]), ([0, 0], [0, 1])])
    with pytest.raises(errors.ChartMismatchError):
        almost_dirac_structure(M, [(gc.VectorField(M3, {x: 1}), [1, 0]), ([0, 0], [0, 1])])
    with pytest.raises(errors.SectionShapeError, match="3 x 3"):
        graph_with_ports([[0, 1], [-1, 0]], M, ["w"])
    with pytest.raises(errors.NotSkewError):
        graph_of_bivector([[0, 1], [1, 0]], M)
    with pytest.raises(errors.SectionShapeError, match="two-form"):
        graph_of_two_form(M.d(q), M)
    with pytest.raises(errors.DiracStructureError):
        almost_dirac_structure(M, "q p")


# --------------------------------------------------------------------------- LaTeX


@pytest.mark.needs_pdflatex
def test_derivations_compile(tmp_path):
    L = graph_of_bivector([[0, z, 0], [-z, 0, y], [0, -y, 0]], M3)
    parts = [L.certify_isotropic().latex(), L.certify_maximal_rank().latex(), L.certify_integrable().latex(),
             graph_of_two_form(z * (M3.d(x) ^ M3.d(y)), M3).certify_integrable().latex(),
             graph_with_ports([[0, 1], [1, 0]], gc.Chart("q p")).certify_isotropic().latex(),
             "$" + L.latex() + "$"]
    compile_pdf(document("\n".join(parts)), tmp_path / "dirac.pdf")
    assert (tmp_path / "dirac.pdf").stat().st_size > 0


# --------------------------------------------------------------------------- property laws (ci profile)


@given(st.data())
def test_law_two_form_graph_dirac_iff_closed(data):
    kinds = st.sampled_from(["polynomial", "generic"])
    w = data.draw(gst.forms(M3, degree=2, coefficients=gst.coefficients(M3, kinds)))
    L = graph_of_two_form(w, M3)
    T = L.courant_tensor()
    assert decide_all_zero([T.get((0, 1, 2), 0) - gc.d(w).coefficient(x, y, z)]).is_zero is True
    closed = gc.d(w).is_zero()
    assert L.certify_integrable().holds is closed


@given(st.data())
def test_law_bivector_graph_tensor_is_half_schouten(data):
    a, b, c = (data.draw(gst.coefficients(M3, st.sampled_from(["polynomial", "generic"]))) for _ in range(3))
    P = [[0, a, b], [-a, 0, c], [-b, -c, 0]]
    L = graph_of_bivector(P, M3)
    T = L.courant_tensor()
    S = gc.schouten_bracket(P, P, M3)
    assert decide_all_zero([T.get((0, 1, 2), 0) - S[0, 1, 2] / 2]).is_zero is True
    assert L.certify_integrable().holds is decide_all_zero([S[0, 1, 2]]).is_zero
