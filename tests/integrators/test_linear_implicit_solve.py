"""The solve form of linear implicit steps (integrators.linear_implicit: BoundLinearSolve, BoundLinearSolveMP).

The references are independent of the step's code: the matrices ``A`` and ``B`` of the test maps are
written here as numbers, and each step is solved by ``numpy.linalg.solve`` (double) or by
``mpmath.lu_solve`` at 60 digits, directly for the new state (not in the increment form the step uses).
"""

import mpmath
import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import InvalidArgumentError, SingularMatrixError
from integrators.errors import NewtonConvergenceError
import integrators.linear_implicit as li
from integrators.linear_implicit import (GEMV_DIM, BoundLinearSolve, BoundLinearSolveMP, BoundLinearStep,
                                         linear_implicit_step, resolve_form)
from integrators.run_map import run_map
from integrators.schemes.stages import StageMap

h = sp.Symbol("h")


def midpoint_map(T):
    """The midpoint rule of ``y' = T y`` as ``A Y + B y = 0``, ``A = I/h - T/2``, ``B = -I/h - T/2`` (one level)."""
    n = T.rows
    M = gc.Chart(" ".join(f"y{i}" for i in range(n)))
    new = sp.symbols(f"Y0:{n}")
    y = M.coords
    eqs = [(new[i] - y[i]) / h - sum(T[i, j] * (new[j] + y[j]) for j in range(n) if T[i, j]) / 2 for i in range(n)]
    return StageMap(M, M, eqs, new=new, step=h)


def tridiagonal(n, seed):
    """A random rational tridiagonal matrix (entries k/8, |k| <= 8; a zero diagonal)."""
    rng = np.random.default_rng(seed)
    T = sp.zeros(n, n)
    for i in range(n - 1):
        T[i, i + 1] = sp.Rational(int(rng.integers(1, 9)), 8)
        T[i + 1, i] = -sp.Rational(int(rng.integers(1, 9)), 8)
    return T


def reference_double(T, dt, y0, steps):
    """``Y = A^{-1} (-B y)`` by numpy.linalg.solve, step after step."""
    Tf = np.array(T.tolist(), dtype=float)
    I = np.eye(T.rows)
    A, B = I / dt - Tf / 2, -I / dt - Tf / 2
    y = np.array(y0, dtype=float)
    for _ in range(steps):
        y = np.linalg.solve(A, -B @ y)
    return y


BIG = tridiagonal(GEMV_DIM, 1)        # one level, GEMV_DIM coordinates: "auto" takes the solve form
BIG_MAP = midpoint_map(BIG)
SMALL = tridiagonal(5, 2)
SMALL_MAP = midpoint_map(SMALL)


def test_auto_takes_the_solve_form_for_a_large_one_level_step_and_matches_numpy_solve():
    y0 = np.random.default_rng(5).uniform(-1, 1, (3, GEMV_DIM))
    sol = run_map(BIG_MAP, y0, dt=0.125, steps=20, save_every=20)
    assert "solve form" in sol.path_note and sol.newton.method == "linear"
    for b in range(3):
        ref = reference_double(BIG, 0.125, y0[b], 20)
        assert np.abs(sol.y[-1, b] - ref).max() <= 1e-13 * np.abs(ref).max()
        one = run_map(BIG_MAP, y0[b], dt=0.125, steps=20, save_every=20)
        assert np.array_equal(one.y, sol.y[:, b, :])        # an ensemble equals its single runs bit for bit


@pytest.mark.parametrize("form", ["solve", "matrix"])
def test_both_double_forms_match_numpy_solve_on_a_small_step(form):
    L = linear_implicit_step(SMALL_MAP, [h])
    bound = L.bind([0.25], linear_solve=form)
    assert isinstance(bound, BoundLinearSolve if form == "solve" else BoundLinearStep) and bound.form == form
    Y = np.random.default_rng(6).uniform(-1, 1, (4, 5))
    out = Y
    for _ in range(7):
        out = bound.step_array(out)
    for b in range(4):
        ref = reference_double(SMALL, 0.25, Y[b], 7)
        assert np.abs(out[b] - ref).max() <= 1e-14 * np.abs(ref).max()
    assert resolve_form("auto", L.dim, L.m) == "matrix"                  # 5 < GEMV_DIM coordinates
    assert "matrix form" in run_map(SMALL_MAP, Y[0], dt=0.25, steps=2).path_note


def test_stage_unknowns_are_solved_for_the_new_state_only():
    # the midpoint rule with its stage slope k as an unknown: k = T (y + h k / 2), Y = y + h k (m = 2 dim)
    T = SMALL
    n = T.rows
    M = gc.Chart(" ".join(f"y{i}" for i in range(n)))
    new, k = sp.symbols(f"Y0:{n}"), sp.symbols(f"k0:{n}")
    y = M.coords
    eqs = [k[i] - sum(T[i, j] * (y[j] + h * k[j] / 2) for j in range(n)) for i in range(n)]
    eqs += [new[i] - y[i] - h * k[i] for i in range(n)]
    phi = StageMap(M, M, eqs, new=new, auxiliary=k, step=h)
    L = linear_implicit_step(phi, [h])
    assert L.m == 2 * n and resolve_form("auto", L.dim, L.m) == "matrix"
    y0 = np.linspace(-1, 1, n)
    ref = reference_double(T, 0.25, y0, 6)
    for form in ("solve", "matrix"):
        out = y0[None, :]
        bound = L.bind([0.25], linear_solve=form)
        for _ in range(6):
            out = bound.step_array(out)
        assert np.abs(out[0] - ref).max() <= 1e-14 * np.abs(ref).max()


def reference_mp(T, dt, y0, steps, dps=60):
    """The one-level midpoint step solved by mpmath.lu_solve at ``dps`` digits (exact rational entries)."""
    with mpmath.workdps(dps):
        n = T.rows
        hh = mpmath.mpf(sp.Rational(dt).p) / sp.Rational(dt).q
        Tm = mpmath.matrix([[mpmath.mpf(x.p) / x.q for x in T.row(i)] for i in range(n)])
        I = mpmath.eye(n)
        A, B = I / hh - Tm / 2, -I / hh - Tm / 2
        y = mpmath.matrix([mpmath.mpf(v) for v in y0])
        for _ in range(steps):
            y = mpmath.lu_solve(A, -(B * y))
        return [y[i] for i in range(n)]


def test_mpmath_solve_form_matches_mpmath_lu_solve_at_60_digits():
    y0 = [["1", "0.5", "-0.25", "0", "2"], ["0", "-1", "0.75", "0.125", "1"]]
    sol = run_map(SMALL_MAP, y0, dt="0.125", steps=6, save_every=6, backend="mpmath", dps=50)
    assert "solve form" in sol.path_note and "mpmath" in sol.path_note and sol.newton.method == "linear"
    for b in range(2):
        ref = reference_mp(SMALL, sp.Rational(1, 8), y0[b], 6)
        with mpmath.workdps(60):
            err = max(abs(a - r) for a, r in zip(sol.y[-1, b], ref))
            assert err <= mpmath.mpf(10) ** -47 * max(abs(r) for r in ref)
        one = run_map(SMALL_MAP, y0[b], dt="0.125", steps=6, save_every=6, backend="mpmath", dps=50)
        assert all(x == z for x, z in zip(one.y[-1], sol.y[-1, b]))


def test_mpmath_binding_is_the_solve_form_and_refuses_the_matrix_form():
    L = linear_implicit_step(SMALL_MAP, [h])
    with mpmath.workdps(40):
        assert isinstance(L.bind([mpmath.mpf("0.25")], dps=40), BoundLinearSolveMP)
    with pytest.raises(InvalidArgumentError, match="double-precision form"):
        L.bind([0.25], dps=40, linear_solve="matrix")
    with pytest.raises(InvalidArgumentError, match="'auto', 'matrix', 'solve'"):
        L.bind([0.25], linear_solve="lu")
    with pytest.raises(InvalidArgumentError, match="linear_solve"):
        L.with_form("inverse")


def test_a_singular_step_is_refused_naming_the_step_size():
    # (1 - h/2) Y - (1 + h/2) y = 0 for y' = y: A = 1 - h/2 is singular at h = 2, exactly, in both arithmetics
    M = gc.Chart("x")
    X = sp.Symbol("X")
    phi = StageMap(M, M, [(1 - h / 2) * X - (1 + h / 2) * M.coords[0]], new=[X], step=h)
    L = linear_implicit_step(phi, [h])
    for form in ("solve", "matrix"):
        with pytest.raises(NewtonConvergenceError, match="singular.*h = 2"):
            L.bind([2.0], linear_solve=form)
    with pytest.raises(NewtonConvergenceError, match="singular.*h = 2") as info:
        run_map(phi, ["1"], dt="2", steps=1, backend="mpmath", dps=30)
    assert isinstance(info.value.__cause__, SingularMatrixError)
    assert L.bind([1.0], linear_solve="solve").step_array(np.array([[1.0]]))[0, 0] == 3.0     # (1 + 1/2)/(1 - 1/2)


def test_the_increment_form_cancels_the_step_terms_exactly():
    # A = 1/h + 1/3, B = -1/h + 1/3: C = A + B = 2/3 exactly; in floating point (10 + 1/3) - (10 - 1/3) is not 2/3
    M = gc.Chart("x")
    X = sp.Symbol("X")
    third = sp.Rational(1, 3)
    phi = StageMap(M, M, [(1 / h + third) * X + (-1 / h + third) * M.coords[0]], new=[X], step=h)
    L = linear_implicit_step(phi, [h])
    A, C = L.dense_matrices([0.1])
    assert C[0, 0] == 2 / 3 and (10.0 + 1 / 3) + (-10.0 + 1 / 3) != 2 / 3
    assert A[0, 0] == 1 / 0.1 + 1 / 3


def test_sparse_and_dense_solves_agree_with_numpy_and_keep_ensembles_equal_to_single_runs(monkeypatch):
    L = linear_implicit_step(BIG_MAP, [h])
    assert not BoundLinearSolve(L, [0.125]).sparse                  # 32 < SPARSE_UNKNOWNS unknowns: dense
    monkeypatch.setattr(li, "SPARSE_UNKNOWNS", GEMV_DIM)              # ... as if it were large and sparse
    monkeypatch.setattr(li, "SPARSE_DENSITY", 0.1)                    # (3 diagonals of 32: 9 % of the entries)
    sparse = L.bind([0.125], linear_solve="solve")
    dense = BoundLinearSolve(L, [0.125], sparse=False)
    assert sparse.sparse and not dense.sparse
    Y0 = np.random.default_rng(8).uniform(-1, 1, (3, GEMV_DIM))
    a, b = Y0, Y0
    for _ in range(15):
        a, b = sparse.step_array(a), dense.step_array(b)
    for k in range(3):
        ref = reference_double(BIG, 0.125, Y0[k], 15)
        assert np.abs(a[k] - ref).max() <= 1e-13 * np.abs(ref).max()
        assert np.abs(a[k] - b[k]).max() <= 1e-13 * np.abs(ref).max()
        one = Y0[k:k + 1]
        for _ in range(15):
            one = sparse.step_array(one)
        assert np.array_equal(one[0], a[k])


def test_a_singular_sparse_step_is_refused_naming_the_step_size():
    T = tridiagonal(GEMV_DIM, 9)
    T[0, 0], T[1, 0] = 1, 0                  # A = I/h - T/2: its first column is (1/h - 1/2) e_1, zero at h = 2
    L = linear_implicit_step(midpoint_map(T), [h])
    for sparse in (True, False):
        with pytest.raises(NewtonConvergenceError, match="singular.*h = 2"):
            BoundLinearSolve(L, [2.0], sparse=sparse)
    assert BoundLinearSolve(L, [1.0], sparse=True).step_array(np.eye(GEMV_DIM)[:1])[0, 0] == 3.0   # (1 + 1/2)/(1 - 1/2)
