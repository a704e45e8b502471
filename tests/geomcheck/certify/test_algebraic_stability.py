"""Algebraic stability and exact positive semidefiniteness, against independent knowledge.

Truths from the literature (Hairer, Wanner, *Solving ODEs II*, IV.12):
Gauss, Radau IA, Radau IIA and Lobatto IIIC are algebraically stable; Lobatto IIIA and IIIB are
not (M is not positive semidefinite).  Positive semidefiniteness is checked against the
definition by brute force: a symmetric matrix is PSD iff *every* principal minor is >= 0
(plain sympy determinants, no geomcheck).
"""

import itertools
import random

import mpmath
import pytest
import sympy as sp
from sympy import Rational as R

from geomcheck.certify.algebraic_stability import (
    algebraic_stability_matrix,
    is_algebraically_stable,
    is_positive_semidefinite,
)
from geomcheck.certify.families import (
    gauss_legendre,
    lobatto_iiia,
    lobatto_iiib,
    lobatto_iiic,
    radau_iia,
)
from geomcheck.certify.linear_stability import is_A_stable
from geomcheck.certify.tableaux import ButcherTableau, PartitionedTableau
from geomcheck.errors import InvalidArgumentError, ShapeError

RADAU_IA_2 = ([[R(1, 4), R(-1, 4)], [R(1, 4), R(5, 12)]], [R(1, 4), R(3, 4)])
# Radau IA, s = 3 (Hairer, Wanner II, Table IV.5.3)
S6 = sp.sqrt(6)
RADAU_IA_3 = ([[R(1, 9), (-1 - S6) / 18, (-1 + S6) / 18],
               [R(1, 9), R(11, 45) + 7 * S6 / 360, R(11, 45) - 43 * S6 / 360],
               [R(1, 9), R(11, 45) + 43 * S6 / 360, R(11, 45) - 7 * S6 / 360]],
              [R(1, 9), R(4, 9) + S6 / 36, R(4, 9) - S6 / 36])


def reference_M(A, b):
    A, b = sp.Matrix(A), sp.Matrix(b)
    B = sp.diag(*b)
    return B * A + A.T * B - b * b.T


def brute_force_psd(M):
    """All principal minors >= 0 (the definition's equivalent), plain sympy."""
    n = M.shape[0]
    for k in range(1, n + 1):
        for idx in itertools.combinations(range(n), k):
            if sp.simplify(M.extract(list(idx), list(idx)).det()) < 0:
                return False
    return True


def smallest_eigenvalue(M):
    with mpmath.workdps(50):
        m = mpmath.matrix([[mpmath.mpf(sp.N(x, 60)) for x in row] for row in M.tolist()])
        return min(mpmath.eigsy(m)[0])


@pytest.mark.parametrize("T", [gauss_legendre(1), gauss_legendre(2), gauss_legendre(3), radau_iia(1), radau_iia(2),
                               radau_iia(3), lobatto_iiic(2), lobatto_iiic(3),
                               ButcherTableau(*RADAU_IA_2), ButcherTableau(*RADAU_IA_3)], ids=str)
def test_algebraically_stable_families(T):
    c = is_algebraically_stable(T)
    assert c.holds is True and c.stage == "exact"
    M = reference_M(T.A, T.b)
    assert sp.simplify(c.residual - M) == sp.zeros(T.s, T.s)
    assert smallest_eigenvalue(M) > -mpmath.mpf(10) ** -40      # an independent numeric look
    assert is_A_stable(T).holds is True                          # algebraic stability implies A-stability


def test_gauss_has_M_zero():
    assert algebraic_stability_matrix(gauss_legendre(2)).applyfunc(sp.simplify) == sp.zeros(2, 2)


@pytest.mark.parametrize("T", [lobatto_iiia(2), lobatto_iiia(3), lobatto_iiib(2), lobatto_iiib(3), lobatto_iiib(4)],
                         ids=str)
def test_lobatto_iiia_iiib_are_not_algebraically_stable(T):
    c = is_algebraically_stable(T)
    assert c.holds is False
    x = sp.Matrix(c.counterexample["x"])
    value = sp.simplify((x.T * reference_M(T.A, T.b) * x)[0])
    assert sp.simplify(value - c.counterexample["x^T M x"]) == 0
    assert float(value) < 0


def test_a_tiny_negative_weight_is_found():
    eps = R(1, 10 ** 30)
    c = is_algebraically_stable(ButcherTableau([[1, 0], [0, 1]], [1 + eps, -eps]))
    assert c.holds is False and c.counterexample == {"b_2": -eps}


def test_an_algebraic_weight_just_below_zero():
    # 1351/780 - sqrt(3) = 2.5e-7 > 0 ; 989/571 - sqrt(3) < 0
    w = R(989, 571) - sp.sqrt(3)
    c = is_algebraically_stable(ButcherTableau([[1, 0], [0, 1]], [1 - w, w]))
    assert c.holds is False and c.counterexample == {"b_2": w}


@pytest.mark.parametrize("M, psd", [
    ([[0, 0], [0, -1]], False),                        # leading minors 0, 0
    ([[0, 0, 0], [0, 0, 1], [0, 1, 0]], False),        # leading minors 0, 0, 0; minor {2, 3} = -1
    ([[1, 0, 0], [0, 0, 0], [0, 0, -R(1, 10 ** 40)]], False),
    ([[1, 2], [2, 1]], False),
    ([[1, 1], [1, 1]], True),
    ([[0, 0], [0, 0]], True),
    ([[2, -1, 0], [-1, 2, -1], [0, -1, 2]], True),
    ([[1, sp.sqrt(2)], [sp.sqrt(2), 2]], True),                           # rank 1
    ([[1, sp.sqrt(2)], [sp.sqrt(2), R(19999, 10000)]], False),
])
def test_psd_on_attacker_matrices(M, psd):
    c = is_positive_semidefinite(M)
    assert c.holds is psd
    assert brute_force_psd(sp.Matrix(M)) is psd
    if not psd:
        x = sp.Matrix(c.counterexample["x"])
        value = sp.simplify((x.T * sp.Matrix(M) * x)[0])
        assert value == c.counterexample["x^T M x"] and value < 0


def test_leading_minors_are_not_enough():
    M = sp.Matrix([[0, 0, 0], [0, 0, 1], [0, 1, 0]])
    assert all(M[:k, :k].det() >= 0 for k in (1, 2, 3))
    assert is_positive_semidefinite(M).holds is False


def test_psd_agrees_with_all_principal_minors_on_random_matrices():
    rng = random.Random(20261126)
    for _ in range(150):
        n = rng.randint(1, 4)
        # low-rank and singular matrices are the hard cases: build some as sums of squares
        if rng.random() < 0.5:
            vs = [[rng.randint(-2, 2) for _ in range(n)] for _ in range(rng.randint(0, n))]
            M = sp.zeros(n, n)
            for v in vs:
                v = sp.Matrix(v)
                M += v * v.T
            if rng.random() < 0.5:
                i = rng.randrange(n)
                M[i, i] -= rng.randint(0, 1)
        else:
            M = sp.zeros(n, n)
            for i in range(n):
                for j in range(i, n):
                    M[i, j] = M[j, i] = rng.randint(-2, 2)
        assert is_positive_semidefinite(M).holds is brute_force_psd(M), M


def test_non_symmetric_matrix_is_refuted():
    c = is_positive_semidefinite([[1, 2], [0, 1]])
    assert c.holds is False and c.counterexample["entry"] == (0, 1)


def test_bad_inputs():
    with pytest.raises(ShapeError):
        is_positive_semidefinite([[1, 2]])
    with pytest.raises(ShapeError):
        is_positive_semidefinite("M")
    with pytest.raises(InvalidArgumentError, match="float"):
        is_positive_semidefinite([[0.5]])
    with pytest.raises(InvalidArgumentError, match="not an exact real number"):
        is_positive_semidefinite([[sp.I]])
    with pytest.raises(InvalidArgumentError, match="parts T.q and T.p"):
        is_algebraically_stable(PartitionedTableau([[R(1, 2)]], [1], [[R(1, 2)]], [1]))


def test_inexact_and_non_algebraic_are_undecided():
    assert is_algebraically_stable(ButcherTableau([[0.5]], [1.0], exact=False)).holds is None
    assert is_positive_semidefinite([[sp.pi]]).holds is None


def test_certificate_typesets():
    c = is_algebraically_stable(lobatto_iiia(2))
    assert "positive semidefinite" in c.latex() and c.to_dict()["holds"] is False
