r"""Batched Newton's method for the stage equations of implicit steps.

The equations ``G(x, u) = 0`` and their Jacobian ``dG/du`` are lowered from the
symbolic ImplicitMap (:mod:`integrators.lower`); the start is the map's own guess
(the stage slopes ``k_i = f(x)``, exact at h = 0).  numpy: the whole batch is
iterated at once and a per-trajectory mask retires trajectories as they converge;
the linear solves are a Gaussian elimination with partial pivoting vectorized over
the batch for up to ``SMALL_SYSTEM`` unknowns (numpy's stacked LAPACK solve costs a
few microseconds per small matrix), LAPACK on ``(batch, m, m)`` stacks beyond.  mpmath: one trajectory
at a time, LU solves at the working precision.

Three modes (``integrate(..., newton=...)``, ``LoweredStep.bind(..., newton=...)``):

``"full"`` (the default)
    A fresh Jacobian every iteration (quadratic convergence).
``"simplified"``
    The Jacobian is evaluated at the step's guess and factorized once; the iteration
    ``u <- u - J^{-1} G(x, u)`` reuses the factorization, and later steps keep reusing
    it while the iteration contracts fast: when a trajectory's observed contraction
    rate ``theta = |delta_k| / |delta_{k-1}|`` exceeds ``REFRESH_RATE`` its next step
    starts with a fresh Jacobian, and when a stale factorization makes the iteration
    contract slower than ``STALE_LIMIT`` (or diverge, or not converge) the trajectory
    is restarted at once from the step's start with a fresh one.  Every decision is taken per
    trajectory, so an ensemble gives the same results as its trajectories run one by one.
    The fixed point does not depend on the Jacobian used, only the speed does.
``"auto"``
    Affine stage equations (below): the one solve of ``"simplified"``.  Otherwise, with
    numpy and fewer than ``AUTO_SIMPLIFIED`` unknowns, ``"full"``; from there on, and with
    mpmath (where an LU factorization costs far more than an evaluation of the equations),
    ``"simplified"``, handing a trajectory on which the simplified iteration fails even
    with a fresh Jacobian to full Newton.  Measured (numpy, Kepler and Henon-Heiles, one
    trajectory to 10^5, h = 0.01 .. 0.3): the simplified step costs 1.4-1.9 x full
    Newton's with 4 unknowns (midpoint rule), 0.5-1.2 x with 8 (Gauss s = 2, Lobatto
    IIIA-IIIB s = 3), 0.5-0.9 x with 12 (Gauss s = 3), 0.15 x with 16 (Gauss s = 4, where
    full Newton leaves the vectorized elimination for stacked LAPACK solves): it needs
    about twice the iterations (linear convergence, and it goes on to about the accuracy
    full Newton reaches), each cheaper by the Jacobian and its elimination, which grow as
    ``m^2`` and ``m^3``.

With ``"simplified"`` and ``"auto"`` the structure of the stage equations is read off
the symbolic Jacobian (:func:`stage_structure`): when it does not contain the
unknowns the equations are *affine* in them and one solve with the Jacobian at the
guess is exact (one iteration, no check iteration); when it contains neither the
unknowns nor the state (a linear system with any implicit Runge-Kutta scheme, a
discrete-gradient scheme of a quadratic energy) it is *constant*: factorized once per
binding (h fixed) and reused for every step and every trajectory.

Structure (numpy, :mod:`integrators.stage_sparsity`): from ``STRUCTURE_MIN_UNKNOWNS``
unknowns on, the sparsity pattern of the stage Jacobian is read off the symbolic equations
(structural zeros: the unknown does not occur, or the derivative is the exact zero); a banded
pattern (in the given order or after a reverse Cuthill-McKee permutation) is solved by
LAPACK's band LU (``dgbtrf``/``dgbtrs``), a sparse one by ``scipy.sparse.linalg.splu``, one
matrix per trajectory (a batch loops over its trajectories: the vectorized dense elimination
is kept below ``STRUCTURE_MIN_UNKNOWNS``, where it is faster), in every mode and with the
same factorization reuse; only the nonzero entries are evaluated.  ``StageSolver.linear_solver``
and ``NewtonRecord.linear_solver`` say which: ``"banded(l,u)"``, ``"sparse"`` or ``"dense"``.
A whole run with Newton's method inside compiled C: :mod:`integrators.compiled_newton`.

Starting values (numpy, ``"simplified"`` and ``"auto"`` on equations that are not affine): from
the third consecutive step of the same trajectories (``step_index`` one more than the last solved,
the same batch) the start is the polynomial through the roots of the last
``EXTRAPOLATION_POINTS`` steps extrapolated one step on (:func:`extrapolated_start`: kept per
trajectory only when it moves the root at most twice as far as the last step did, else the map's
guess); ``"auto"``'s full Newton from such a start that fails is run again from the map's guess.
The convergence test does not depend on the start: the same solutions to the tolerance, fewer
iterations (Gauss-4 on Henon-Heiles, 10^4 trajectories, h = 0.05: 4.7 -> 3.9 batch iterations per
step; Gauss-4's full Newton on the pendulum from (2, 0), h = 0.1: 3.0 -> 2.5, h = 0.05: 3.0 -> 2.0).  ``StageSolver.starts`` counts the extrapolated and
the refused starts.

Convergence (the rules of the project's one Newton iteration,
:mod:`geomcheck.newton_iteration`, which the mpmath path runs as it is and the numpy batch and
the C loop run elementwise): ``max |delta u| <= tol * (1 + max |u|)`` per trajectory, with ``tol``
1e-13 for float64 and ``10**(5 - dps)`` for mpmath unless given; the simplified
iteration converges only linearly, so it also requires the error estimate
``theta / (1 - theta) * max |delta u|`` to meet the same bound.  When some
trajectories have not converged after ``max_iter`` iterations (or meet a singular
Jacobian, or a non-finite value) :class:`NewtonConvergenceError` names them, their
residuals and the step: nothing half-solved is ever returned.

>>> import sympy, numpy as np, integrators as ig
>>> from integrators.lower import lower
>>> q, p, h = sympy.symbols("q p h")
>>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
>>> L = lower(ig.scheme("gauss-legendre-4").step_map(osc))
>>> stage_structure(L)
StageStructure(affine=True, constant=True)
>>> step = L.bind({h: 0.1}, newton="simplified")
>>> y = [np.array([1.0, 0.5]), np.array([0.0, 0.25])]
>>> for n in range(3):
...     y = step.step(y)
>>> step.solver.counts["factorizations"], step.solver.counts["iterations"]
(1, 3)
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from geomcheck.caches import Memo
from geomcheck.dense_lu import lu_factor, lu_solve
from geomcheck.errors import InvalidArgumentError, SingularMatrixError
from geomcheck.newton_iteration import (REFINE, REFRESH_RATE, STALE_LIMIT, STALLED, ContractingStep, FreshLU, KeptLU,
                                        RelativeStep, newton_solve)

from .codegen import Kernel
from .errors import NewtonConvergenceError
from .stage_sparsity import STRUCTURE_MIN_UNKNOWNS, stage_pattern

__all__ = ["newton_numpy", "newton_mpmath", "DEFAULT_TOL", "NEWTON_MODES", "DEFAULT_NEWTON", "check_newton_mode",
           "StageStructure", "stage_structure", "StageSolver", "NewtonRecord", "COUNTS", "EXTRAPOLATION_POINTS",
           "extrapolation_weights", "extrapolated_start"]

DEFAULT_TOL = 1e-13
NEWTON_MODES = ("full", "simplified", "auto")
#: the mode integrate and run_map use unless told otherwise
DEFAULT_NEWTON = "auto"
#: the work a StageSolver tallies
COUNTS = ("solves", "iterations", "jacobians", "factorizations", "refreshes", "fallbacks")
# REFRESH_RATE, STALE_LIMIT, REFINE, STALLED: the rule of the simplified iteration, defined once in
# geomcheck.newton_iteration (ContractingStep) for the multiprecision, numpy and C iterations
#: "auto" uses the simplified iteration from this many unknowns on (numpy; see the module doc)
AUTO_SIMPLIFIED = 8
#: a constant stage matrix with a larger condition number counts as singular
SINGULAR_CONDITION = 1e15
#: the starting value of a step (numpy ``"simplified"``/``"auto"``, the compiled Newton): the polynomial
#: through the roots of this many previous steps of the trajectory, extrapolated one step on
EXTRAPOLATION_POINTS = 6


def extrapolation_weights(points: int) -> tuple:
    """The weights of the roots of the last ``points`` steps (newest first) in the start of the next.

    The polynomial of degree ``points - 1`` through equally spaced values, at the next point:
    ``(-1)^(j) binomial(points, j + 1)``.

    >>> extrapolation_weights(3)
    (3, -3, 1)
    """
    from math import comb

    return tuple((-1) ** j * comb(points, j + 1) for j in range(points))


def extrapolated_start(roots, guess):
    """``(start, used)``: the start of a step from the previous roots (newest first), per trajectory.

    ``roots``: the last steps' solutions (at least two), arrays ``(m, batch)``; ``guess`` the
    map's own guess ``(m, batch)``.  A trajectory takes the
    extrapolation only when it moves the root at most twice as far (max-norm) as the last step
    moved it: a start that leaves the branch of the previous roots is not used (the map's guess
    is).  Any start gives the same solution to the Newton tolerance where Newton's method
    converges: only the iterations differ.

    >>> import numpy as np
    >>> roots = [np.array([[3.0, 3.0]]), np.array([[2.0, 1.0]]), np.array([[1.0, 2.0]])]
    >>> start, used = extrapolated_start(roots, np.zeros((1, 2)))
    >>> start, used                               # 4 on the line; the second moved back and forth
    (array([[4., 0.]]), array([ True, False]))
    """
    w = extrapolation_weights(len(roots))
    x = roots[0] * float(w[0])                 # elementwise, not a BLAS product: no threads for a small sum
    for c, r in zip(w[1:], roots[1:]):
        x += float(c) * r
    last = np.abs(roots[0] - roots[1]).max(axis=0)
    used = np.abs(x - roots[0]).max(axis=0) <= 2.0 * last
    return np.where(used, x, guess), used


def check_newton_mode(mode) -> str:
    """``mode`` if it is one of :data:`NEWTON_MODES`, else :class:`InvalidArgumentError`.

    >>> check_newton_mode("auto")
    'auto'
    """
    if not isinstance(mode, str) or mode not in NEWTON_MODES:
        raise InvalidArgumentError(
            f"newton must be one of {', '.join(map(repr, NEWTON_MODES))}, got {mode!r}: 'full' evaluates the"
            " Jacobian every iteration, 'simplified' reuses a factorization, 'auto' falls back to full Newton")
    return mode


def _fail(bad, residuals, batch, step_index, iters, reason, values=None, what="Newton's method"):
    shown = ", ".join(str(int(b)) for b in bad[:10]) + (" ..." if len(bad) > 10 else "")
    res = ", ".join(f"{float(r):.3g}" for r in residuals[:10])
    where = f" at step {step_index}" if step_index is not None else ""
    raise NewtonConvergenceError(
        f"{what} for the implicit stage equations did not converge{where} for {len(bad)} of {batch}"
        f" trajectories (indices {shown}): {reason} after {iters} iterations; residual max-norms {res}."
        " A smaller step size dt usually helps (the stage equations have a solution near the guess for small h),"
        " or raise max_iter / loosen tol.",
        trajectories=[int(b) for b in bad], residuals=[float(r) for r in residuals], step=step_index,
    )


#: up to this many unknowns the batched linear solve is a vectorized Gaussian elimination
#: (every operation runs over the whole batch); beyond it, LAPACK on stacked matrices
SMALL_SYSTEM = 12


def _lu_small(out, offset, m, n):
    """LU factorization with partial pivoting of the matrices ``out[offset + i*m + j]``.

    Each entry is an array of shape (n,) or a scalar.  Works in the layout (row, column,
    trajectory), so every operation is one numpy operation over the batch.  Returns
    ``(LU (m, m, n), pivots, bad)``: the multipliers below the diagonal, ``pivots[k]``
    the row swapped with row k at step k (per trajectory; None when no trajectory swaps),
    ``bad`` the mask of trajectories with a zero pivot or a non-finite value.
    """
    A = np.empty((m, m, n))
    for i in range(m):
        for j in range(m):
            A[i, j] = out[offset + i * m + j]
    idx = np.arange(n)
    bad = np.zeros(n, dtype=bool)
    pivots = []
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
                pivots.append(piv)
            else:
                pivots.append(None)
        pivot = A[k, k]
        zero = (pivot == 0) | ~np.isfinite(pivot)
        if zero.any():
            bad |= zero
            pivot = np.where(zero, 1.0, pivot)
        inv = 1.0 / pivot
        for i in range(k + 1, m):
            f = A[i, k] * inv
            A[i, k + 1:] -= f * A[k, k + 1:]
            A[i, k] = f
    return A, pivots, bad


def _lu_solve_small(A, pivots, b):
    """Solve with a factorization of :func:`_lu_small`; ``b`` (m, n) is overwritten.

    A factorization of one matrix (n = 1 in ``A``) solves for every column of ``b``.
    """
    m = A.shape[0]
    for k, piv in enumerate(pivots):
        if piv is None:
            continue
        if piv.shape[0] != b.shape[1]:          # one matrix for the whole batch
            r = int(piv[0])
            if r != k:
                b[[k, r]] = b[[r, k]]
            continue
        cols = np.flatnonzero(piv != k)
        if cols.size:
            r = piv[cols]
            row_k = b[k, cols].copy()
            b[k, cols] = b[r, cols]
            b[r, cols] = row_k
    for k in range(m):
        for i in range(k + 1, m):
            b[i] -= A[i, k] * b[k]
    delta = np.empty_like(b)
    for i in range(m - 1, -1, -1):
        acc = b[i].copy()
        for j in range(i + 1, m):
            acc -= A[i, j] * delta[j]
        d = A[i, i]
        delta[i] = acc / np.where(d == 0, 1.0, d)
    return delta


def _solve_small(out, m, n):
    """Solve ``J delta = -F`` for every trajectory by Gaussian elimination with partial pivoting.

    ``out`` is the residual kernel's output: F (m entries) then J row by row (m*m), each
    an array of shape (n,) or a scalar.  Returns ``(delta (m, n), bad)``, ``bad`` the mask
    of trajectories with a zero pivot or a non-finite value.
    """
    A, pivots, bad = _lu_small(out, m, m, n)
    b = np.empty((m, n))
    for i in range(m):
        b[i] = out[i]
        b[i] *= -1.0
    delta = _lu_solve_small(A, pivots, b)
    bad |= ~np.isfinite(delta).all(axis=0)
    return delta, bad


def _stack_jacobians(out, m, n):
    J = np.empty((n, m, m))
    for k in range(m * m):
        J[:, k // m, k % m] = out[m + k]
    return J


def _solve_lapack(out, m, n):
    """The same for larger systems: LAPACK on ``(n, m, m)`` stacks (one failure isolates itself)."""
    F = np.empty((n, m))
    for k in range(m):
        F[:, k] = out[k]
    J = _stack_jacobians(out, m, n)
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


def newton_numpy(L, S, y, tol=None, max_iter=50, step_index=None, trajectories=None, counts=None, start=None):
    """Solve the stage equations of the lowered implicit step ``L`` for a batch (full Newton).

    The rule is :class:`geomcheck.newton_iteration.RelativeStep`'s, elementwise over the batch.

    Parameters
    ----------
    L : LoweredStep (implicit, numpy backend)
    S : dict of bound scalars (``BoundStep.S``)
    y : list of ``dim`` arrays of shape (batch,)
    trajectories : sequence of int, optional
        The numbers errors give the rows of ``y`` (default 0, 1, ...: their positions).
    counts : dict, optional
        Tallies to add this solve's work to (as :attr:`StageSolver.counts`).
    start : array (m, batch), optional
        The starting values (default the map's guess).

    Returns
    -------
    list of ``m`` arrays (batch,): the stage unknowns.
    """
    tol = DEFAULT_TOL if tol is None else tol
    m = L.m
    batch = y[0].shape[0]
    names = np.arange(batch) if trajectories is None else np.asarray(trajectories)
    U = np.empty((m, batch))
    if start is not None:
        U[:] = start
    else:
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
        if counts is not None:
            counts["iterations"] += 1
            counts["jacobians"] += 1
            counts["factorizations"] += n
        res = np.zeros(n)
        for k in range(m):
            np.maximum(res, np.abs(out[k]), out=res)
        last_res[active] = res
        delta, bad = solve(out, m, n)
        if bad.any():
            _fail(names[active[bad]], last_res[active[bad]], batch, step_index, it,
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
    _fail(names[active], last_res[active], batch, step_index, max_iter, "no convergence")


def _mp_tol(dps, tol):
    return mpmath.mpf(10) ** (5 - dps) if tol is None else mpmath.mpf(tol)


def newton_mpmath(L, S, x, dps, tol=None, max_iter=50, trajectory=0, step_index=None, counts=None):
    """Solve the stage equations of the lowered implicit step ``L`` (mpmath) for one trajectory.

    Newton's method proper from the map's guess: the project's iteration
    (:func:`geomcheck.newton_iteration.newton_solve`) with a fresh Jacobian and LU at every
    iterate and the rule ``max |delta| <= tol (1 + max |u|)``.  ``counts``: tallies to add this
    solve's work to (as :attr:`StageSolver.counts`).
    """
    m = L.m
    u0 = [mpmath.mpf(g) for g in L.guess.kernel(S["guess"], *x)]

    def equations(u, jacobian):
        out = L.residual.kernel(S["residual"], *x, *u)
        return [mpmath.mpf(v) for v in out[:m]], [[mpmath.mpf(out[m + i * m + j]) for j in range(m)] for i in range(m)]

    out = newton_solve(mpmath.mp, equations, u0, RelativeStep(_mp_tol(dps, tol)),
                       FreshLU(mpmath.mp, singular=m * mpmath.mp.eps), max_iter)
    if counts is not None:
        for key in ("iterations", "jacobians", "factorizations"):
            counts[key] += out.iterations
    if out.solution is None:
        _fail([trajectory], [out.residual], 1, step_index, out.iterations, out.reason)
    return out.solution


@dataclass(frozen=True)
class NewtonRecord:
    """How a run solved its implicit stage equations (``Solution.newton``).

    ``mode`` is the mode asked for (``"full"``, ``"simplified"``, ``"auto"``); ``method`` is
    ``"newton"``, or ``"linear"`` when the equations are linear in the state and the unknowns
    and one factorization per step size replaced Newton's method
    (:mod:`integrators.linear_implicit`).  The counts are summed over the run's stage solvers
    (see :class:`StageSolver`): ``solves`` calls, ``iterations`` batch iterations, ``jacobians``
    batch Jacobian evaluations, ``factorizations`` matrices factorized, ``refreshes`` stale
    factorizations replaced, ``fallbacks`` trajectories handed to full Newton.
    ``linear_solver`` is the linear algebra chosen from the stage Jacobian's sparsity pattern
    (:mod:`integrators.stage_sparsity`): ``"dense"``, ``"banded(l,u)"`` or ``"sparse"``
    (several stage maps: their distinct choices joined by ``+``).
    """

    mode: str
    method: str
    solves: int = 0
    iterations: int = 0
    jacobians: int = 0
    factorizations: int = 0
    refreshes: int = 0
    fallbacks: int = 0
    linear_solver: str = "dense"

    @classmethod
    def of(cls, mode: str, solvers, totals: dict | None = None) -> "NewtonRecord":
        """The record of ``solvers`` (StageSolver objects), plus the ``totals`` of solvers already gone."""
        counts = dict.fromkeys(COUNTS, 0) if totals is None else dict(totals)
        kinds = []
        for solver in solvers:
            for key in COUNTS:
                counts[key] += solver.counts[key]
            kind = getattr(solver, "linear_solver", "dense")
            if kind not in kinds:
                kinds.append(kind)
        return cls(mode, "newton", **counts, linear_solver="+".join(kinds) or "dense")

    @classmethod
    def summed(cls, records) -> "NewtonRecord | None":
        """One record for the chunks of one run (None when the step is explicit)."""
        records = list(records)
        if not records or any(r is None for r in records):
            return None
        first = records[0]
        return cls(first.mode, first.method, **{key: sum(getattr(r, key) for r in records) for key in COUNTS},
                   linear_solver=first.linear_solver)


# ------------------------------------------------------------------------ simplified Newton


@dataclass(frozen=True)
class StageStructure:
    """How the unknowns ``u`` enter the stage equations ``G(x, u) = 0`` (read off the symbolic Jacobian).

    affine : bool
        ``dG/du`` does not contain ``u``: one Newton step from any start is the solution.
    constant : bool
        ``dG/du`` contains neither ``u`` nor the state ``x`` (only ``h`` and constants):
        one factorization serves every step and trajectory of a binding.
    """

    affine: bool
    constant: bool


_STRUCTURES = Memo("integrators.newton.structures", 256)


def stage_structure(L) -> StageStructure:
    """The :class:`StageStructure` of the lowered implicit step ``L`` (exact: symbol occurrence).

    A Jacobian entry free of the unknowns (or of the state) as a sympy expression is
    free of them as a function, so neither answer is ever a wrong True; an expression
    that only simplifies to a constant is reported as not constant (Newton then iterates).
    """
    hit = _STRUCTURES.get(id(L))
    if hit is not None and hit[0] is L:
        return hit[1]
    unknowns, coords = set(L.unknowns), set(L.coords)
    entries = stage_pattern(L).entries          # the structurally nonzero entries of the Jacobian
    affine = not any(e.free_symbols & unknowns for e in entries)
    constant = affine and not any(e.free_symbols & coords for e in entries)
    result = StageStructure(affine, constant)
    _STRUCTURES.put(id(L), (L, result))    # lowered steps are cached and immutable; the entry keeps L alive
    return result


_EQUATION_KERNELS = Memo("integrators.newton.equation_kernels", 256)


def _equation_kernel(L):
    """The stage equations alone (no Jacobian), lowered once per lowered step."""
    hit = _EQUATION_KERNELS.get(id(L))
    if hit is not None and hit[0] is L:
        return hit[1]
    kernel = Kernel(list(L.equations), L.coords + L.unknowns, L.parameters, L.backend)
    _EQUATION_KERNELS.put(id(L), (L, kernel))
    return kernel


class _Factors:
    """Factorized Jacobians of a batch, one per trajectory, and which of them are usable."""

    def __init__(self, m, n):
        self.m, self.n = m, n
        self.valid = np.zeros(n, dtype=bool)
        self.small = m <= SMALL_SYSTEM
        if self.small:
            self.A = np.empty((m, m, n))
            self.P = np.repeat(np.arange(max(m - 1, 0))[:, None], n, axis=1)
        else:
            self.inv = np.empty((n, m, m))

    def factor(self, out, idx):
        """Factorize the Jacobians in the residual kernel output ``out`` for the trajectories ``idx``."""
        m, k = self.m, idx.size
        if self.small:
            A, pivots, bad = _lu_small(out, m, m, k)
            self.A[:, :, idx] = A
            for j, piv in enumerate(pivots):
                self.P[j, idx] = j if piv is None else piv
        else:
            J = _stack_jacobians(out, m, k)
            try:
                inv = np.linalg.inv(J)
            except np.linalg.LinAlgError:
                inv = np.full_like(J, np.nan)
                for r in range(k):
                    try:
                        inv[r] = np.linalg.inv(J[r])
                    except np.linalg.LinAlgError:
                        pass
            bad = ~np.isfinite(inv).all(axis=(1, 2))
            self.inv[idx] = inv
        self.valid[idx] = ~bad
        return bad

    def solve(self, b, idx=None):
        """``J^{-1} b`` for the trajectories ``idx`` (None: all); ``b`` (m, len) is overwritten."""
        if self.small:
            A = self.A if idx is None else self.A[:, :, idx]
            pivots = [self.P[j] if idx is None else self.P[j, idx] for j in range(self.m - 1)]
            return _lu_solve_small(A, pivots, b)
        inv = self.inv if idx is None else self.inv[idx]
        return np.matmul(inv, b.T[..., None])[..., 0].T


class _StructuredFactors:
    """Factorized structured Jacobians of a batch (one per trajectory): band LU or sparse LU.

    The interface of :class:`_Factors`; the Jacobian values in a kernel output are the
    pattern's nonzero entries (``out[m:m + nnz]``), in the pattern's order.
    """

    def __init__(self, pattern, n):
        from scipy.linalg import lapack

        self.pattern, self.m, self.n = pattern, pattern.m, n
        self.valid = np.zeros(n, dtype=bool)
        self.rows, self.cols = pattern.permuted()
        self.perm = None if pattern.perm is None else np.asarray(pattern.perm, dtype=np.intp)
        self.band = pattern.banded
        self.lu = [None] * n
        if self.band:
            self.kl, self.ku = pattern.lower, pattern.upper
            self.width = 2 * self.kl + self.ku + 1
            self._gbtrf, self._gbtrs = lapack.dgbtrf, lapack.dgbtrs
            self.band_rows = self.kl + self.ku + self.rows - self.cols     # LAPACK band storage
        else:
            order = np.lexsort((self.rows, self.cols))                        # column-major: CSC
            self.csc_order = order
            self.csc_indices = self.rows[order]
            self.csc_indptr = np.searchsorted(self.cols[order], np.arange(self.m + 1))

    def _values(self, out, k):
        m, nnz = self.m, len(self.rows)
        V = np.empty((nnz, k))
        for e in range(nnz):
            V[e] = out[m + e]
        return V

    def factor(self, out, idx):
        """Factorize the Jacobians in ``out`` (the structured kernel's output) for the trajectories ``idx``."""
        from scipy.sparse import csc_matrix
        from scipy.sparse.linalg import splu

        k = idx.size
        V = self._values(out, k)
        bad = ~np.isfinite(V).all(axis=0)
        for r in range(k):
            self.lu[idx[r]] = None
            if bad[r]:
                continue
            if self.band:
                ab = np.zeros((self.width, self.m), order="F")
                ab[self.band_rows, self.cols] = V[:, r]
                lu, piv, info = self._gbtrf(ab, self.kl, self.ku, overwrite_ab=1)
                if info != 0:
                    bad[r] = True
                    continue
                self.lu[idx[r]] = (lu, piv)
            else:
                A = csc_matrix((V[self.csc_order, r], self.csc_indices, self.csc_indptr), shape=(self.m, self.m))
                try:
                    self.lu[idx[r]] = splu(A)
                except RuntimeError:          # "Factor is exactly singular"
                    bad[r] = True
        self.valid[idx] = ~bad
        return bad

    def _solve_one(self, f, b):
        if self.band:
            x, info = self._gbtrs(f[0], self.kl, self.ku, b, f[1])
            return x if info == 0 else np.full_like(np.asarray(b, dtype=float), np.nan)
        return f.solve(b)

    def solve(self, b, idx=None):
        """``J^{-1} b`` for the trajectories ``idx`` (None: all); ``b`` has shape (m, len)."""
        idx = np.arange(self.n) if idx is None else idx
        bp = b if self.perm is None else b[self.perm]
        z = np.empty_like(bp)
        for r, t in enumerate(idx):
            f = self.lu[t]
            z[:, r] = np.nan if f is None else self._solve_one(f, np.ascontiguousarray(bp[:, r]))
        if self.perm is None:
            return z
        delta = np.empty_like(z)
        delta[self.perm] = z
        return delta

    def solve_shared(self, b, t=0):
        """``J_t^{-1} b`` for every column of ``b`` with the one factorization of trajectory ``t``."""
        bp = b if self.perm is None else b[self.perm]
        f = self.lu[t]
        z = self._solve_one(f, np.asfortranarray(bp)) if self.band else f.solve(np.asfortranarray(bp))
        z = np.asarray(z).reshape(bp.shape)
        if self.perm is None:
            return z
        delta = np.empty_like(z)
        delta[self.perm] = z
        return delta


class StageSolver:
    """Solves the stage equations of one bound implicit step in one of :data:`NEWTON_MODES`.

    Made by :meth:`integrators.lower.LoweredStep.bind` (``bound.solver``).  It is mutable
    on purpose: with ``"simplified"`` and ``"auto"`` it keeps the factorized Jacobians
    from one step to the next (per trajectory, keyed by the position in the batch; a
    batch of another size starts afresh), and ``counts`` tallies the work done:
    ``solves`` (calls), ``iterations`` (batch iterations), ``jacobians`` (batch
    Jacobian evaluations), ``factorizations`` (matrices factorized), ``refreshes``
    (trajectories whose stale factorization was replaced during a step) and
    ``fallbacks`` (trajectories handed to full Newton by ``"auto"``).  ``"full"`` is
    :func:`newton_numpy` / :func:`newton_mpmath`, counted the same way (one Jacobian
    evaluation per batch iteration, one factorization per active trajectory).

    ``structure`` (default True): use the stage Jacobian's sparsity pattern when it is banded
    or sparse (numpy, at least ``STRUCTURE_MIN_UNKNOWNS`` unknowns; see the module
    docstring); False keeps the dense path.  ``linear_solver`` says which was chosen.
    """

    def __init__(self, bound, mode="full", structure=True):
        self.mode = check_newton_mode(mode)
        self.bound = bound
        self.lowered = bound.lowered
        self.structure = stage_structure(self.lowered) if self.mode != "full" else None
        # the sparsity pattern of the stage Jacobian (numpy; see integrators.stage_sparsity): a
        # banded or sparse pattern replaces the dense Jacobian and its LU by its nonzero entries
        self.pattern = None
        self.linear_solver = "dense"
        if structure and bound.backend == "numpy" and self.lowered.m >= STRUCTURE_MIN_UNKNOWNS:
            pattern = stage_pattern(self.lowered)
            if pattern.kind != "dense":
                self.pattern, self.linear_solver = pattern, pattern.kind
        self._jac_scalars = None
        self.counts = dict.fromkeys(COUNTS, 0)
        self._factors = None           # numpy: _Factors of the batch
        self._constant = None          # the one factorization of a constant Jacobian
        self._mp_factors = {}          # mpmath: trajectory -> (LU, permutation)
        self._eq_scalars = None
        # numpy, "simplified"/"auto": the roots of the last steps (newest first) and the step they solved,
        # for the next step's start (extrapolated_start); how many starts were extrapolated or not used
        self._roots, self._n_roots, self._roots_step = None, 0, None     # (points, m, batch), a ring
        self._newest = 0
        self.starts = {"extrapolated": 0, "rejected": 0}

    # ---------------------------------------------------------------- shared

    def _equations(self, args):
        K = _equation_kernel(self.lowered)
        if self._eq_scalars is None:
            self._eq_scalars = K.scalars(*self.bound.values)
        return K.kernel(self._eq_scalars, *args)

    # ---------------------------------------------------------------- numpy

    def numpy(self, y, step_index=None):
        """The stage unknowns (``m`` arrays) for the states ``y`` (``dim`` arrays of shape (batch,))."""
        B = self.bound
        self.counts["solves"] += 1
        if self.mode == "full":
            return self._full_numpy(y, step_index)
        L = self.lowered
        n = y[0].shape[0]
        U0 = np.empty((L.m, n))
        for k, g in enumerate(L.guess.kernel(B.S["guess"], *y)):
            U0[k] = g
        if self.pattern is not None and self.structure.affine:
            return self._affine_structured(y, U0, step_index)
        if self.structure.constant:
            return self._constant_numpy(y, U0, step_index)
        if self.structure.affine:
            return self._affine_numpy(y, U0, step_index)
        start = self._start(U0, step_index)
        if self.mode == "auto" and L.m < AUTO_SIMPLIFIED:
            # measured: a Jacobian this small is evaluated and eliminated about as fast as a
            # simplified iteration, and full Newton needs about half the iterations
            U = None
            if start is not None:
                try:
                    U = newton_numpy(L, B.S, y, tol=B.tol, max_iter=B.max_iter, step_index=step_index,
                                     counts=self.counts, start=start)
                except NewtonConvergenceError:
                    U = None                      # once more from the map's guess, as newton="full"
            if U is None:
                U = newton_numpy(L, B.S, y, tol=B.tol, max_iter=B.max_iter, step_index=step_index,
                                 counts=self.counts)
        else:
            U = self._simplified_numpy(y, U0, step_index, start)
        self._remember(U, step_index)
        return U

    def _start(self, U0, step_index):
        """The start extrapolated from the previous roots of these trajectories, or None (the map's guess).

        Only for the step right after the last one solved (``step_index`` one more) and the same
        batch: the roots are those of the same trajectories.
        """
        if step_index is None or self._roots_step != step_index - 1 or self._n_roots < 2 \
                or self._roots.shape[1:] != U0.shape:
            return None
        P = self._roots.shape[0]
        start, used = extrapolated_start([self._roots[(self._newest - j) % P] for j in range(self._n_roots)], U0)
        k = int(used.sum())
        self.starts["extrapolated"] += k
        self.starts["rejected"] += used.size - k
        return start

    def _remember(self, U, step_index):
        if step_index is None:
            self._n_roots, self._roots_step = 0, None
            return
        shape = (max(EXTRAPOLATION_POINTS, 2), len(U), len(U[0]))
        if self._roots_step != step_index - 1 or self._roots is None or self._roots.shape != shape:
            self._roots, self._n_roots = np.empty(shape), 0
        self._newest = (self._newest + 1) % shape[0]
        for k, u in enumerate(U):
            self._roots[self._newest, k] = u
        self._n_roots = min(self._n_roots + 1, EXTRAPOLATION_POINTS)
        self._roots_step = step_index

    def _full_numpy(self, y, step_index, trajectories=None):
        """Full Newton: today's dense batch iteration, or the structured one when there is a pattern."""
        B = self.bound
        if self.pattern is None:
            return newton_numpy(self.lowered, B.S, y, tol=B.tol, max_iter=B.max_iter, step_index=step_index,
                                trajectories=trajectories, counts=self.counts)
        return self._full_structured(y, step_index, trajectories)

    def _with_jacobian(self, args):
        """The equations then the Jacobian (dense row by row, or the pattern's nonzero entries) at ``args``."""
        if self.pattern is None:
            return self.lowered.residual.kernel(self.bound.S["residual"], *args)
        K = self.pattern.kernel(self.lowered)
        if self._jac_scalars is None:
            self._jac_scalars = K.scalars(*self.bound.values)
        return K.kernel(self._jac_scalars, *args)

    def _new_factors(self, n):
        return _Factors(self.lowered.m, n) if self.pattern is None else _StructuredFactors(self.pattern, n)

    def _full_structured(self, y, step_index, trajectories=None):
        """Full Newton (a fresh structured Jacobian and LU every iteration), the rule of :func:`newton_numpy`."""
        B, L = self.bound, self.lowered
        tol = DEFAULT_TOL if B.tol is None else B.tol
        m, batch = L.m, y[0].shape[0]
        names = np.arange(batch) if trajectories is None else np.asarray(trajectories)
        U = np.empty((m, batch))
        for k, g in enumerate(L.guess.kernel(B.S["guess"], *y)):
            U[k] = g
        active = np.arange(batch)
        last_res = np.zeros(batch)
        for it in range(1, B.max_iter + 1):
            ya = [c[active] for c in y]
            Ua = U[:, active]
            n = active.size
            out = self._with_jacobian([*ya, *Ua])
            self.counts["iterations"] += 1
            self.counts["jacobians"] += 1
            self.counts["factorizations"] += n
            F = np.empty((m, n))
            for k in range(m):
                F[k] = out[k]
            last_res[active] = np.abs(F).max(axis=0)
            fac = self._new_factors(n)
            bad = fac.factor(out, np.arange(n))
            F *= -1.0
            delta = fac.solve(F)
            bad |= ~np.isfinite(delta).all(axis=0)
            if bad.any():
                _fail(names[active[bad]], last_res[active[bad]], batch, step_index, it,
                      "a singular Jacobian or a non-finite value")
            Ua = Ua + delta
            done = np.abs(delta).max(axis=0) <= tol * (1.0 + np.abs(Ua).max(axis=0))
            U[:, active] = Ua
            if done.all():
                return [U[k] for k in range(m)]
            active = active[~done]
        _fail(names[active], last_res[active], batch, step_index, B.max_iter, "no convergence")

    def _affine_structured(self, y, U0, step_index):
        """Affine equations with a pattern: one structured solve (one factorization per binding if constant)."""
        m, n = self.lowered.m, U0.shape[1]
        if self.structure.constant:
            if self._constant is None:
                out = self._with_jacobian([*[c[:1] for c in y], *U0[:, :1]])
                fac = self._new_factors(1)
                self.counts["jacobians"] += 1
                self.counts["factorizations"] += 1
                if fac.factor(out, np.arange(1))[0]:
                    _fail(np.arange(n), self._residual_norms(y, U0), n, step_index, 0,
                          "the stage equations are linear with a singular matrix")
                self._constant = fac
            b = np.empty((m, n))
            for k, o in enumerate(self._equations([*y, *U0])):
                b[k] = o
            b *= -1.0
            delta = self._constant.solve_shared(b)
        else:
            out = self._with_jacobian([*y, *U0])
            fac = self._new_factors(n)
            fac.factor(out, np.arange(n))
            b = np.empty((m, n))
            for k in range(m):
                b[k] = out[k]
            b *= -1.0
            delta = fac.solve(b)
            self.counts["jacobians"] += 1
            self.counts["factorizations"] += n
        self.counts["iterations"] += 1
        return self._accept_single_solve(y, U0, delta, step_index, "a singular Jacobian or a non-finite value")

    def _residual_norms(self, y, U):
        out = self._equations([*y, *U])
        return np.max([np.abs(np.broadcast_to(o, U.shape[1:])) for o in out], axis=0)

    def _constant_numpy(self, y, U0, step_index):
        L, m, n = self.lowered, self.lowered.m, U0.shape[1]
        if self._constant is None:
            out = L.residual.kernel(self.bound.S["residual"], *[c[:1] for c in y], *U0[:, :1])
            J = np.array([float(np.asarray(v).reshape(-1)[0]) for v in out[m:]]).reshape(m, m)
            self.counts["jacobians"] += 1
            cond = np.linalg.cond(J) if np.isfinite(J).all() else np.inf
            if not cond < SINGULAR_CONDITION:
                _fail(np.arange(n), self._residual_norms(y, U0), n, step_index, 0,
                      f"the stage equations are linear with a singular matrix (condition number {cond:.3g})")
            if m <= SMALL_SYSTEM:
                A, pivots, _ = _lu_small([J[i, j] for i in range(m) for j in range(m)], 0, m, 1)
                self._constant = ("small", A, pivots)
            else:
                from scipy.linalg import lu_factor

                self._constant = ("lapack", lu_factor(J, check_finite=False))
            self.counts["factorizations"] += 1
        b = np.empty((m, n))
        for k, o in enumerate(self._equations([*y, *U0])):
            b[k] = o
        b *= -1.0
        if self._constant[0] == "small":
            delta = _lu_solve_small(self._constant[1], self._constant[2], b)
        else:
            from scipy.linalg import lu_solve

            delta = lu_solve(self._constant[1], b, check_finite=False)
        self.counts["iterations"] += 1
        return self._accept_single_solve(y, U0, delta, step_index, "a non-finite value")

    def _accept_single_solve(self, y, U0, delta, step_index, reason):
        bad = ~np.isfinite(delta).all(axis=0)
        if bad.any():
            idx = np.flatnonzero(bad)
            _fail(idx, self._residual_norms([c[idx] for c in y], U0[:, idx]), U0.shape[1], step_index, 1, reason)
        U = U0 + delta
        return [U[k] for k in range(U.shape[0])]

    def _affine_numpy(self, y, U0, step_index):
        L, m, n = self.lowered, self.lowered.m, U0.shape[1]
        out = L.residual.kernel(self.bound.S["residual"], *y, *U0)
        delta, _ = (_solve_small if m <= SMALL_SYSTEM else _solve_lapack)(out, m, n)
        self.counts["jacobians"] += 1
        self.counts["factorizations"] += n
        self.counts["iterations"] += 1
        return self._accept_single_solve(y, U0, delta, step_index, "a singular Jacobian or a non-finite value")

    def _refresh(self, fac, idx, y, U0):
        """Fresh Jacobians at the guess for the trajectories ``idx``; returns those that are singular."""
        everyone = idx.size == fac.n
        ya = y if everyone else [c[idx] for c in y]
        Ua = U0 if everyone else U0[:, idx]
        out = self._with_jacobian([*ya, *Ua])
        self.counts["jacobians"] += 1
        self.counts["factorizations"] += idx.size
        return idx[fac.factor(out, idx)], out[:self.lowered.m]

    def _iterate_numpy(self, todo, y, U0, result, fresh, res_out, first=None):
        """Simplified Newton for the trajectories ``todo``; returns the ones that failed.

        The rule is :class:`geomcheck.newton_iteration.ContractingStep`'s, elementwise over the batch.
        ``first``: the equations' values at the guess when already computed (with the Jacobian).
        """
        B, fac, tol = self.bound, self._factors, DEFAULT_TOL if self.bound.tol is None else self.bound.tol
        everyone = todo.size == fac.n
        active = todo
        Ua = (U0 if everyone else U0[:, todo]).copy()
        prev = None
        failed = []
        for it in range(1, B.max_iter + 1):
            ya = y if everyone else [c[active] for c in y]
            out = first if it == 1 and first is not None else self._equations([*ya, *Ua])
            F = np.empty(Ua.shape)
            for k, o in enumerate(out):
                F[k] = o
            res_out[active] = np.abs(F).max(axis=0)
            F *= -1.0
            delta = fac.solve(F, None if everyone else active)
            self.counts["iterations"] += 1
            dn = np.abs(delta).max(axis=0)
            finite = np.isfinite(dn)
            Ua += delta
            if prev is None:
                theta = np.zeros_like(dn)
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    theta = np.where(prev > 0, dn / prev, 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                eta = np.where(theta < 1.0, theta / (1.0 - theta), np.inf)
            bound = tol * (1.0 + np.abs(Ua).max(axis=0))
            done = finite & (dn <= bound) & ((eta * dn <= REFINE * bound) | (theta >= STALLED))
            with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
                # at this rate the iteration cannot reach the bound within the budget
                hopeless = (theta > 0) & (dn * theta ** (B.max_iter - it) > (1.0 - theta) * bound)
            diverged = ~done & (~finite | hopeless | (theta >= np.where(fresh[active], 1.0, STALE_LIMIT)))
            slow = theta > REFRESH_RATE
            if slow.any():
                fac.valid[active[slow]] = False          # contraction deteriorated: fresh Jacobian next step
            if done.any():
                result[:, active[done]] = Ua[:, done]
            if diverged.any():
                failed.append(active[diverged])
            keep = ~(done | diverged)
            if not keep.any():
                active = active[:0]
                break
            if not keep.all():
                active, Ua, dn = active[keep], Ua[:, keep], dn[keep]
                everyone = False
            prev = dn
        failed.append(active)
        return np.concatenate(failed)

    def _simplified_numpy(self, y, guess, step_index, start=None):
        """The simplified iteration from ``start`` (default the map's ``guess``); full Newton from the guess."""
        U0 = guess if start is None else np.array(start)
        m, n = self.lowered.m, U0.shape[1]
        if self._factors is None or self._factors.n != n:
            self._factors = self._new_factors(n)
        fac = self._factors
        result = np.empty((m, n))
        res = np.zeros(n)
        fresh = np.zeros(n, dtype=bool)
        hard = []
        todo = np.arange(n)
        for attempt in range(2):
            need = todo[~fac.valid[todo]]
            first = None
            if need.size:
                if attempt:
                    self.counts["refreshes"] += need.size
                singular, at_guess = self._refresh(fac, need, y, U0)
                fresh[need] = True
                if singular.size:
                    hard.append(singular)
                    todo = np.setdiff1d(todo, singular)
                elif need.size == todo.size:
                    first = at_guess             # the equations at the guess came with the Jacobian
            if not todo.size:
                break
            failed = self._iterate_numpy(todo, y, U0, result, fresh, res, first)
            fac.valid[failed] = False
            hard.append(failed[fresh[failed]])
            todo = failed[~fresh[failed]]                  # stale factorizations: once more, refreshed
            if not todo.size:
                break
        hard = np.sort(np.concatenate(hard)) if hard else np.arange(0)
        if hard.size and start is not None:
            # an extrapolated start on which the iteration failed: once more from the map's guess, refreshed
            retry = hard[(U0[:, hard] != guess[:, hard]).any(axis=0)]
            if retry.size:
                U0[:, retry] = guess[:, retry]
                self.counts["refreshes"] += retry.size
                singular, _ = self._refresh(fac, retry, y, U0)
                fresh[retry] = True
                solvable = np.setdiff1d(retry, singular)
                failed = self._iterate_numpy(solvable, y, U0, result, fresh, res) if solvable.size else solvable
                fac.valid[failed] = False
                hard = np.sort(np.concatenate([np.setdiff1d(hard, retry), singular, failed]))
        if hard.size:
            if self.mode == "auto":
                self.counts["fallbacks"] += hard.size
                U = self._full_numpy([c[hard] for c in y], step_index, trajectories=hard)
                for k in range(m):
                    result[k, hard] = U[k]
            else:
                _fail(hard, res[hard], n, step_index, self.bound.max_iter,
                      "the simplified iteration (a fresh Jacobian at the guess, factorized once) diverged, met a"
                      " singular Jacobian or did not converge (newton='full' or 'auto' may succeed)",
                      what="Simplified Newton")
        return [result[k] for k in range(m)]

    # ---------------------------------------------------------------- mpmath

    def mpmath(self, x, dps, trajectory=0, step_index=None):
        """The stage unknowns of one trajectory ``x`` (a list of mpf), at ``dps`` digits."""
        B = self.bound
        self.counts["solves"] += 1
        if self.mode == "full":
            return newton_mpmath(self.lowered, B.S, x, dps=dps, tol=B.tol, max_iter=B.max_iter,
                                 trajectory=trajectory, step_index=step_index, counts=self.counts)
        L = self.lowered
        eps = _mp_tol(dps, B.tol)
        u0 = [mpmath.mpf(g) for g in L.guess.kernel(B.S["guess"], *x)]
        if self.structure.affine:
            if self.structure.constant and self._constant is not None:
                fac = self._constant
            else:
                fac = self._mp_factor(x, u0)
                if fac is None:
                    _fail([trajectory], [self._mp_residual(x, u0)], 1, step_index, 0, "a singular Jacobian")
                if self.structure.constant:
                    self._constant = fac
            delta = self._mp_solve(fac, [-mpmath.mpf(v) for v in self._equations([*x, *u0])])
            self.counts["iterations"] += 1
            if not all(mpmath.isfinite(d) for d in delta):
                _fail([trajectory], [self._mp_residual(x, u0)], 1, step_index, 1, "a non-finite value")
            return [a + d for a, d in zip(u0, delta)]
        res, reason = mpmath.mpf(0), "a singular Jacobian"
        for attempt in range(2):
            fac = self._mp_factors.get(trajectory)
            fresh = fac is None
            if fresh:
                if attempt:
                    self.counts["refreshes"] += 1
                fac = self._mp_factor(x, u0)
                if fac is None:
                    break
                self._mp_factors[trajectory] = fac
            u, res, theta, reason = self._mp_iterate(fac, x, u0, eps, fresh)
            if u is not None:
                if theta > REFRESH_RATE:
                    del self._mp_factors[trajectory]
                return u
            del self._mp_factors[trajectory]
            if fresh:
                break
        if self.mode == "auto":
            self.counts["fallbacks"] += 1
            return newton_mpmath(L, B.S, x, dps=dps, tol=B.tol, max_iter=B.max_iter, trajectory=trajectory,
                                 step_index=step_index, counts=self.counts)
        _fail([trajectory], [res], 1, step_index, B.max_iter,
              f"the simplified iteration (a fresh Jacobian at the guess, factorized once): {reason}"
              " (newton='full' or 'auto' may succeed)", what="Simplified Newton")

    def _mp_residual(self, x, u):
        return max(abs(mpmath.mpf(v)) for v in self._equations([*x, *u]))

    def _mp_factor(self, x, u0):
        """The LU factorization of the Jacobian at ``(x, u0)``, or None when it is singular."""
        m = self.lowered.m
        out = self.lowered.residual.kernel(self.bound.S["residual"], *x, *u0)
        J = [[mpmath.mpf(out[m + i * m + j]) for j in range(m)] for i in range(m)]
        self.counts["jacobians"] += 1
        self.counts["factorizations"] += 1
        try:
            return lu_factor(mpmath.mp, J, singular=m * mpmath.mp.eps)
        except (SingularMatrixError, ZeroDivisionError):
            return None

    @staticmethod
    def _mp_solve(fac, b):
        return lu_solve(*fac, b)

    def _mp_iterate(self, fac, x, u0, eps, fresh):
        """``(u or None, residual, largest contraction rate, reason)`` of a simplified iteration
        (the project's iteration with the rule :class:`~geomcheck.newton_iteration.ContractingStep`)."""
        def equations(u, jacobian):
            return [mpmath.mpf(v) for v in self._equations([*x, *u])], None

        out = newton_solve(mpmath.mp, equations, u0, ContractingStep(eps, 1 if fresh else STALE_LIMIT),
                           KeptLU(fac, fresh), self.bound.max_iter)
        self.counts["iterations"] += out.iterations
        return out.solution, out.residual, out.contraction, out.reason
