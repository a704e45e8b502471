"""The one multiprecision LU, checked against mpmath's own solver and determinant."""

import random

import mpmath
import pytest

from geomcheck.dense_lu import lu_determinant, lu_factor, lu_solve
from geomcheck.errors import SingularMatrixError


def _random_matrix(n, rng, zeros=0.0):
    return [[mpmath.mpf(0) if rng.random() < zeros else mpmath.mpf(rng.uniform(-2, 2)) for _ in range(n)]
            for _ in range(n)]


@pytest.mark.parametrize("n, zeros", [(1, 0.0), (3, 0.0), (6, 0.5), (9, 0.7)])
def test_solutions_and_determinants_agree_with_mpmath(n, zeros):
    rng = random.Random(n)
    compared = 0
    with mpmath.workdps(40):
        for _ in range(40):
            A = _random_matrix(n, rng, zeros)
            try:
                reference_det = mpmath.det(mpmath.matrix(A))
            except (TypeError, ZeroDivisionError):      # mpmath's own LU fails on some exactly singular matrices
                continue
            if abs(reference_det) < mpmath.mpf(10) ** -20:
                continue
            compared += 1
            b = [mpmath.mpf(rng.uniform(-1, 1)) for _ in range(n)]
            x = lu_solve(*lu_factor(mpmath.mp, A), b)
            reference = mpmath.lu_solve(mpmath.matrix(A), mpmath.matrix(b))
            assert max(abs(x[i] - reference[i]) for i in range(n)) < mpmath.mpf(10) ** -30
            assert abs(lu_determinant(mpmath.mp, A) - reference_det) < mpmath.mpf(10) ** -30
    assert compared >= 10


def test_pivoting_is_needed_and_done():
    """A zero in the first pivot position: without row exchanges the factorization would divide by zero."""
    A = [[mpmath.mpf(0), mpmath.mpf(1), mpmath.mpf(2)], [mpmath.mpf(1), mpmath.mpf(0), mpmath.mpf(3)],
         [mpmath.mpf(4), mpmath.mpf(-3), mpmath.mpf(8)]]
    LU, perm = lu_factor(mpmath.mp, A)
    assert perm[0] == 2                                       # the largest entry of the first column
    assert lu_determinant(mpmath.mp, A) == mpmath.det(mpmath.matrix(A))
    x = lu_solve(LU, perm, [mpmath.mpf(1), mpmath.mpf(2), mpmath.mpf(3)])
    residual = [sum(A[i][j] * x[j] for j in range(3)) - [1, 2, 3][i] for i in range(3)]
    assert max(abs(r) for r in residual) < mpmath.mpf(10) ** -14


@pytest.mark.parametrize("A", [
    [[0, 0], [0, 0]],
    [[1, 2], [2, 4]],
    [[1, 1], [1, 1 + 1e-40]],          # singular to 15 digits, not to 50
])
def test_singular_to_working_precision_is_refused(A):
    M = [[mpmath.mpf(v) for v in row] for row in A]
    with pytest.raises(SingularMatrixError):
        lu_factor(mpmath.mp, M)
    assert lu_determinant(mpmath.mp, M) == 0


def test_a_stricter_or_looser_threshold():
    with mpmath.workdps(50):
        M = [[mpmath.mpf(1), mpmath.mpf(1)], [mpmath.mpf(1), 1 + mpmath.mpf(10) ** -40]]
        with pytest.raises(SingularMatrixError):
            lu_factor(mpmath.mp, M)                             # default: pivots below 1e-35 relative
        LU, perm = lu_factor(mpmath.mp, M, singular=mpmath.eps * 2)   # mpmath's own threshold accepts it
        assert abs(LU[1][1] - mpmath.mpf(10) ** -40) < mpmath.mpf(10) ** -49
