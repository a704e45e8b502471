"""Batched Newton's method for the stage equations of implicit steps.

The equations ``G(x, u) = 0`` and their Jacobian ``dG/du`` are lowered from the
symbolic ImplicitMap (:mod:`integrators.lower`); the start is the map's own guess
(the stage slopes ``k_i = f(x)``, exact at h = 0).  numpy: the whole batch is
iterated at once and a per-trajectory mask retires trajectories as they converge;
the linear solves are a Gaussian elimination with partial pivoting vectorized over
the batch for up to ``SMALL_SYSTEM`` unknowns (numpy's stacked LAPACK solve costs a
few microseconds per small matrix), LAPACK on ``(batch, m, m)`` stacks beyond.  mpmath: one trajectory
at a time, LU solves at the working precision.

Convergence: ``max |delta u| <= tol * (1 + max |u|)`` per trajectory, with ``tol``
1e-13 for float64 and ``10**(5 - dps)`` for mpmath unless given.  When some
trajectories have not converged after ``max_iter`` iterations (or meet a singular
Jacobian, or a non-finite value) :class:`NewtonConvergenceError` names them, their
residuals and the step: nothing half-solved is ever returned.
"""

from __future__ import annotations

import mpmath
import numpy as np

from .errors import NewtonConvergenceError

__all__ = ["newton_numpy", "newton_mpmath", "DEFAULT_TOL"]

DEFAULT_TOL = 1e-13


def _fail(bad, residuals, batch, step_index, iters, reason, values=None):
    shown = ", ".join(str(int(b)) for b in bad[:10]) + (" ..." if len(bad) > 10 else "")
    res = ", ".join(f"{float(r):.3g}" for r in residuals[:10])
    where = f" at step {step_index}" if step_index is not None else ""
    raise NewtonConvergenceError(
        f"Newton's method for the implicit stage equations did not converge{where} for {len(bad)} of {batch}"
        f" trajectories (indices {shown}): {reason} after {iters} iterations; residual max-norms {res}."
        " A smaller step size dt usually helps (the stage equations have a solution near the guess for small h),"
        " or raise max_iter / loosen tol.",
        trajectories=[int(b) for b in bad], residuals=[float(r) for r in residuals], step=step_index,
    )


#: up to this many unknowns the batched linear solve is a vectorized Gaussian elimination
#: (every operation runs over the whole batch); beyond it, LAPACK on stacked matrices
SMALL_SYSTEM = 12


def _solve_small(out, m, n):
    """Solve ``J delta = -F`` for every trajectory by Gaussian elimination with partial pivoting.

    ``out`` is the residual kernel's output: F (m entries) then J row by row (m*m), each
    an array of shape (n,) or a scalar.  Works in the layout (row, column, trajectory), so
    every operation is one numpy operation over the batch.  Returns ``(delta (m, n), bad)``,
    ``bad`` the mask of trajectories with a zero pivot or a non-finite value.
    """
    A = np.empty((m, m + 1, n))
    for i in range(m):
        A[i, m] = out[i]
        A[i, m] *= -1.0
        for j in range(m):
            A[i, j] = out[m + i * m + j]
    idx = np.arange(n)
    bad = np.zeros(n, dtype=bool)
    for k in range(m):
        if k < m - 1:
            best = np.abs(A[k, k])
            piv = None
            for i in range(k + 1, m):
                a = np.abs(A[i, k])
                better = a > best
                if better.any():
                    if piv is None:
                        piv = np.full(n, k)
                    piv[better] = i
                    best = np.where(better, a, best)
            swap = None if piv is None else piv != k
            if swap is not None and swap.any():
                cols = idx[swap]
                pk = piv[swap]
                row_k = A[k][:, cols].copy()
                A[k][:, cols] = A[pk, :, cols].T
                A[pk, :, cols] = row_k.T
        pivot = A[k, k]
        zero = (pivot == 0) | ~np.isfinite(pivot)
        if zero.any():
            bad |= zero
            pivot = np.where(zero, 1.0, pivot)
        inv = 1.0 / pivot
        for i in range(k + 1, m):
            f = A[i, k] * inv
            A[i, k:] -= f * A[k, k:]
    delta = np.empty((m, n))
    for i in range(m - 1, -1, -1):
        acc = A[i, m].copy()
        for j in range(i + 1, m):
            acc -= A[i, j] * delta[j]
        d = A[i, i]
        delta[i] = acc / np.where(d == 0, 1.0, d)
    bad |= ~np.isfinite(delta).all(axis=0)
    return delta, bad


def _solve_lapack(out, m, n):
    """The same for larger systems: LAPACK on ``(n, m, m)`` stacks (one failure isolates itself)."""
    F = np.empty((n, m))
    J = np.empty((n, m, m))
    for k in range(m):
        F[:, k] = out[k]
    for k in range(m * m):
        J[:, k // m, k % m] = out[m + k]
    bad = np.zeros(n, dtype=bool)
    try:
        delta = np.linalg.solve(J, -F[..., None])[..., 0]
    except np.linalg.LinAlgError:
        delta = np.full_like(F, np.nan)
        for r in range(n):
            try:
                delta[r] = np.linalg.solve(J[r], -F[r])
            except np.linalg.LinAlgError:
                pass
    bad |= ~np.isfinite(delta).all(axis=1)
    return delta.T, bad


def newton_numpy(L, S, y, tol=None, max_iter=50, step_index=None):
    """Solve the stage equations of the lowered implicit step ``L`` for a batch.

    Parameters
    ----------
    L : LoweredStep (implicit, numpy backend)
    S : dict of bound scalars (``BoundStep.S``)
    y : list of ``dim`` arrays of shape (batch,)

    Returns
    -------
    list of ``m`` arrays (batch,): the stage unknowns.
    """
    tol = DEFAULT_TOL if tol is None else tol
    m = L.m
    batch = y[0].shape[0]
    U = np.empty((m, batch))
    for k, g in enumerate(L.guess.kernel(S["guess"], *y)):
        U[k] = g
    active = np.arange(batch)
    everyone = True
    last_res = np.zeros(batch)
    solve = _solve_small if m <= SMALL_SYSTEM else _solve_lapack
    for it in range(1, max_iter + 1):
        ya = y if everyone else [c[active] for c in y]
        Ua = U if everyone else U[:, active]
        n = Ua.shape[1]
        out = L.residual.kernel(S["residual"], *ya, *Ua)
        res = np.zeros(n)
        for k in range(m):
            np.maximum(res, np.abs(out[k]), out=res)
        last_res[active] = res
        delta, bad = solve(out, m, n)
        if bad.any():
            _fail(active[bad], last_res[active[bad]], batch, step_index, it,
                  "a singular Jacobian or a non-finite value")
        Ua = Ua + delta
        scale = 1.0 + np.abs(Ua).max(axis=0)
        done = np.abs(delta).max(axis=0) <= tol * scale
        if everyone:
            U = Ua
        else:
            U[:, active] = Ua
        if done.all():
            return [U[k] for k in range(m)]
        active = active[~done]
        everyone = False
    _fail(active, last_res[active], batch, step_index, max_iter, "no convergence")


def newton_mpmath(L, S, x, dps, tol=None, max_iter=50, trajectory=0, step_index=None):
    """Solve the stage equations of the lowered implicit step ``L`` (mpmath) for one trajectory."""
    m = L.m
    eps = mpmath.mpf(10) ** (5 - dps) if tol is None else mpmath.mpf(tol)
    u = [mpmath.mpf(g) for g in L.guess.kernel(S["guess"], *x)]
    res = mpmath.mpf(0)
    for it in range(1, max_iter + 1):
        out = L.residual.kernel(S["residual"], *x, *u)
        F = mpmath.matrix([-mpmath.mpf(v) for v in out[:m]])
        J = mpmath.matrix(m, m)
        for k in range(m * m):
            J[k // m, k % m] = out[m + k]
        res = max(abs(v) for v in F)
        try:
            delta = mpmath.lu_solve(J, F)
        except ZeroDivisionError:
            _fail([trajectory], [res], 1, step_index, it, "a singular Jacobian")
        if not all(mpmath.isfinite(d) for d in delta):
            _fail([trajectory], [res], 1, step_index, it, "a non-finite value")
        u = [a + d for a, d in zip(u, delta)]
        if max(abs(d) for d in delta) <= eps * (1 + max(abs(a) for a in u)):
            return u
    _fail([trajectory], [res], 1, step_index, max_iter, "no convergence")
