r"""Newton's method at a working precision: the one iteration of the project.

Every Newton's method in geomcheck and in the integrators is this loop (:func:`newton_solve`):
evaluate the equations ``F(u)`` (and their Jacobian when the linear algebra asks for it), solve
for the correction ``delta``, move ``u <- u + delta``, and judge the iterate by the size of the
correction, the size of ``u`` and the contraction rate ``theta = |delta_k| / |delta_{k-1}|``
(max-norms).  Two things vary, and they are objects passed in:

the rule (when an iterate is accepted, when the iteration is given up)
    :class:`ResidualBelow` (accept an iterate whose residual ``max |F|`` is below a target,
    before correcting it: for equations whose solution is wanted to a residual, such as order
    conditions solved for coefficients), :class:`RelativeStep` (Newton's method proper: ``|delta| <= tol (1 + |u|)``),
    :class:`ContractingStep` (a simplified iteration, which converges linearly: the same bound
    and the error estimate ``theta / (1 - theta) |delta|`` below :data:`REFINE` times it, given
    up as soon as the rate cannot reach the bound), :class:`DigitsStep` (the zero test's:
    the correction below ``2**-bits`` relative, a stale Jacobian's only while it contracts).
the linear algebra (:class:`Correction`)
    :class:`FreshLU` (a Jacobian at every iterate, our partial-pivoting LU at working
    precision), :class:`KeptLU` (one factorization, given), :class:`ChordLeastSquares` (a
    Jacobian kept while the residual falls fast, minimum-norm or least-squares corrections for
    systems that are not square), or the zero test's float64 factorization refreshed when the
    contraction slows (``geomcheck.zero.implicit``).

The integrators' batched numpy Newton and the one generated in C (``integrators.newton``,
``integrators.compiled_newton``) run the same two integrator rules elementwise over a batch,
with the constants defined here; the tests hold their iterates to this loop's.

Every outcome is a :class:`NewtonOutcome`: the solution, or None and the reason (a singular
Jacobian, a non-finite value, a rate too slow, no convergence within ``max_iter``).  Nothing
half-solved is returned as a solution.

>>> import mpmath
>>> def F(u, jacobian):                       # x**2 = 2 and x*y = 1
...     x, y = u
...     J = [[2 * x, 0], [y, x]] if jacobian else None
...     return [x * x - 2, x * y - 1], J
>>> with mpmath.workdps(30):
...     out = newton_solve(mpmath.mp, F, [mpmath.mpf(1), mpmath.mpf(1)], RelativeStep(mpmath.mpf(10) ** -25),
...                        FreshLU(mpmath.mp), max_iter=20)
...     print(mpmath.nstr(out.solution[0], 25), mpmath.nstr(out.solution[1] * mpmath.sqrt(2), 25), out.iterations)
1.414213562373095048801689 1.0 7
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .dense_lu import lu_factor, lu_solve
from .errors import SingularMatrixError

__all__ = ["newton_solve", "NewtonOutcome", "Rule", "ResidualBelow", "RelativeStep", "ContractingStep", "DigitsStep",
           "Correction", "FreshLU", "KeptLU", "ChordLeastSquares", "central_differences", "ACCEPT", "REFINE",
           "STALLED", "STALE_LIMIT", "REFRESH_RATE"]

#: a simplified iteration stops when its error estimate theta/(1-theta) |delta| is below REFINE
#: times the bound (and |delta| below the bound): it converges linearly, so it goes on to about the
#: accuracy Newton's method proper reaches with its quadratic convergence, not just to the bound
REFINE = 1e-3
#: ... or when |delta| is below the bound and no longer decreases (theta >= STALLED): rounding level
STALLED = 0.9
#: a stale factorization contracting slower than this is given up at once (a fresh one is taken)
STALE_LIMIT = 0.5
#: a simplified iteration contracting slower than this takes a fresh Jacobian at the next solve
REFRESH_RATE = 0.1
#: what a rule's verdict is when the iterate is accepted (otherwise None to go on, or the reason to stop)
ACCEPT = "accept"


@dataclass(frozen=True)
class NewtonOutcome:
    """What :func:`newton_solve` found.

    solution : list or None
        The accepted iterate; None when the iteration failed (``reason`` says why).
    residual : number
        ``max |F|`` at the last iterate the equations were evaluated at.
    iterations : int
        Corrections computed (the equations are evaluated once more when a residual rule
        accepts the iterate before correcting it).
    contraction : number
        The largest contraction rate seen (0 when there was one iteration).
    reason : str
        Empty on success.
    """

    solution: list | None
    residual: Any
    iterations: int
    contraction: Any
    reason: str = ""


class Rule:
    """When an iterate is accepted and when the iteration is given up.

    :meth:`verdict` judges the corrected iterate; the two other hooks are for rules that judge
    by the residual and by default decide nothing.
    """

    def residual_verdict(self, ctx, F):
        """Judged on the values ``F`` at the iterate, before it is corrected: :data:`ACCEPT`
        (the iterate is the solution), None to go on."""
        return None

    def verdict(self, ctx, step, size, theta, iteration, max_iter, fresh):
        """Judged after the correction: :data:`ACCEPT`, None to go on, or the reason to stop.

        ``step`` = ``|delta|``, ``size`` = ``|u|`` of the corrected iterate, ``theta`` the
        contraction rate (None at the first iteration), ``fresh`` whether the correction used a
        Jacobian of its iterate."""
        raise NotImplementedError

    def accepts_unconverged(self, ctx, residual) -> bool:
        """Whether the last iterate is still a solution when ``max_iter`` iterations did not
        converge (``residual``: ``max |F|`` before its last correction)."""
        return False


@dataclass(frozen=True)
class ResidualBelow(Rule):
    """Accept the iterate at which ``max |F| <= target``, before correcting it.

    ``good_enough``: when the iterations run out, the corrected last iterate is still accepted
    if the residual before that correction was below it (a looser target; None: never).
    """

    target: Any
    good_enough: Any = None

    def residual_verdict(self, ctx, F):
        return ACCEPT if _residual(F) <= self.target else None

    def verdict(self, ctx, step, size, theta, iteration, max_iter, fresh):
        return None

    def accepts_unconverged(self, ctx, residual):
        return self.good_enough is not None and residual <= self.good_enough


@dataclass(frozen=True)
class RelativeStep(Rule):
    """Newton's method proper: accept when ``|delta| <= tol (1 + |u|)`` (max-norms); never give up early."""

    tol: Any

    def verdict(self, ctx, step, size, theta, iteration, max_iter, fresh):
        return ACCEPT if step <= self.tol * (1 + size) else None


@dataclass(frozen=True)
class ContractingStep(Rule):
    """A simplified iteration (a Jacobian of an earlier iterate): linear convergence.

    Accept when ``|delta| <= b = tol (1 + |u|)`` and either the error estimate
    ``theta / (1 - theta) |delta| <= REFINE b`` or the rate has stalled (``theta >= STALLED``:
    rounding level).  Give up when the rate reaches ``limit`` (1 with a Jacobian taken for this
    solve, :data:`STALE_LIMIT` with one kept from earlier solves), or when at this rate the
    iterations left cannot bring ``|delta|`` below the bound.
    """

    tol: Any
    limit: Any = 1

    def verdict(self, ctx, step, size, theta, iteration, max_iter, fresh):
        theta = theta or 0
        bound = self.tol * (1 + size)
        if step <= bound and (theta >= STALLED or theta / (1 - theta) * step <= REFINE * bound):
            return ACCEPT
        if theta >= self.limit or (theta > 0 and step * theta ** (max_iter - iteration) > (1 - theta) * bound):
            return f"contraction rate {float(theta):.3g}, too slow to converge"
        return None


@dataclass(frozen=True)
class DigitsStep(Rule):
    """The zero test's rule: accept when ``mag(|delta|) <= max(1, mag(|u|)) - bits`` (binary
    magnitudes), and a correction from a Jacobian of an earlier iterate only while the iteration
    contracts (``theta <= accept_ratio``: the error left is then below the correction); a zero
    correction always.  Never gives up early."""

    bits: float
    accept_ratio: float

    def verdict(self, ctx, step, size, theta, iteration, max_iter, fresh):
        if not step:
            return ACCEPT
        if ctx.mag(step) <= -self.bits + max(1, ctx.mag(size) if size else 1):
            if fresh or (theta is not None and theta <= self.accept_ratio):
                return ACCEPT
        return None


class Correction:
    """The linear algebra of an iteration (override :meth:`wants_jacobian`, :meth:`solve`).

    ``fresh`` says whether the last correction used a Jacobian evaluated at its iterate.
    """

    fresh = True

    def wants_jacobian(self, iteration: int) -> bool:
        """Whether the equations must come with their Jacobian at this iteration (1-based)."""
        return True

    def solve(self, F, J, jacobian_here: Callable[[], list]) -> list:
        """The correction ``delta`` with ``J delta = -F`` (``J`` None when not asked for;
        ``jacobian_here()`` evaluates it at the iterate).  :class:`SingularMatrixError` when
        the Jacobian is singular to working precision."""
        raise NotImplementedError

    def contracted(self, theta) -> None:
        """Told the contraction rate of an iteration that did not end the solve."""


class FreshLU(Correction):
    """A Jacobian at every iterate, factored by our partial-pivoting LU at the working precision
    (:func:`geomcheck.dense_lu.lu_factor`; ``singular``: its threshold, default its own)."""

    def __init__(self, ctx, singular=None):
        self.ctx, self.singular = ctx, singular

    def solve(self, F, J, jacobian_here):
        try:
            return lu_solve(*lu_factor(self.ctx, J, singular=self.singular), [-f for f in F])
        except ZeroDivisionError:
            raise SingularMatrixError("a singular Jacobian") from None


class KeptLU(Correction):
    """One factorization (``(LU, permutation)`` of :func:`~geomcheck.dense_lu.lu_factor`) for every
    iteration; ``fresh``: whether it was taken for this solve."""

    def __init__(self, factorization, fresh: bool):
        self.factorization, self.fresh = factorization, fresh

    def wants_jacobian(self, iteration):
        return False

    def solve(self, F, J, jacobian_here):
        return lu_solve(*self.factorization, [-f for f in F])


class ChordLeastSquares(Correction):
    """A chord iteration: one Jacobian (``jacobian_here()``) kept for as long as the residual
    ``max |F|`` falls by more than the factor ``refresh`` per iteration, and a fresh one otherwise.

    Corrections are the minimum-norm solution ``-J^T (J J^T)^{-1} F`` of an underdetermined
    system (more unknowns than equations: for linear equations the solution nearest the start,
    for others nearest up to second order in the distance) and the least-squares
    solution ``-(J^T J)^{-1} J^T F`` of an overdetermined one (mpmath's LU at the context's
    precision), and a square one by LU.
    """

    def __init__(self, ctx, refresh):
        self.ctx, self.refresh = ctx, refresh
        self.J = None
        self.last = None

    def wants_jacobian(self, iteration):
        return False

    def solve(self, F, J, jacobian_here):
        ctx = self.ctx
        norm = _residual(F)
        if self.J is None or (self.last is not None and norm > self.last * self.refresh):
            self.J = ctx.matrix(jacobian_here())
        self.last = norm
        J, f = self.J, ctx.matrix(F)
        try:
            if J.rows == J.cols:
                delta = ctx.lu_solve(J, f)
            elif J.rows < J.cols:
                delta = J.T * ctx.lu_solve(J * J.T, f)
            else:
                delta = ctx.lu_solve(J.T * J, J.T * f)
        except ZeroDivisionError:
            raise SingularMatrixError("a singular Jacobian") from None
        # mpmath's lu_solve returns ten guard bits: negate exactly, so that u + delta rounds once
        return [ctx.fneg(delta[i], exact=True) for i in range(J.cols)]


def central_differences(ctx, F: Callable[[list], list], u: list, step) -> list:
    """The Jacobian of ``F`` at ``u`` by central differences ``(F(u + s e_j) - F(u - s e_j)) / 2s``
    (rows: the equations), for equations whose derivative is not at hand.  Its error is about
    ``eps / step`` (rounding, ``eps`` the working precision) plus ``step**2 / 6`` times a third
    derivative: with ``step = sqrt(eps)`` about half the digits, enough for a chord iteration."""
    columns = []
    for j in range(len(u)):
        up, um = list(u), list(u)
        up[j] += step
        um[j] -= step
        columns.append([(a - b) / (2 * step) for a, b in zip(F(up), F(um))])
    return [[column[i] for column in columns] for i in range(len(columns[0]))]


def newton_solve(ctx, equations, start, rule, correction: Correction, max_iter: int) -> NewtonOutcome:
    """Newton's method from ``start`` (see the module docstring).

    Parameters
    ----------
    ctx : mpmath context (its precision is the working precision)
    equations : callable
        ``equations(u, jacobian) -> (F, J)``: the values at ``u`` (a list of the context's
        numbers) and, when ``jacobian`` is true, the Jacobian (a list of rows; else None).
    start : list
    rule : Rule
        :class:`ResidualBelow`, :class:`RelativeStep`, :class:`ContractingStep` or :class:`DigitsStep`.
    correction : Correction
    max_iter : int

    Returns
    -------
    NewtonOutcome
    """
    u = list(start)
    previous = None
    worst = 0
    F = None
    for iteration in range(1, max_iter + 1):
        F, J = equations(u, correction.wants_jacobian(iteration))
        if rule.residual_verdict(ctx, F) == ACCEPT:
            return NewtonOutcome(u, _residual(F), iteration - 1, worst)
        try:
            delta = correction.solve(F, J, lambda: equations(u, True)[1])
        except SingularMatrixError:
            return NewtonOutcome(None, _residual(F), iteration, worst, "a singular Jacobian")
        if not all(ctx.isfinite(d) for d in delta):
            return NewtonOutcome(None, _residual(F), iteration, worst, "a non-finite value")
        u = [a + d for a, d in zip(u, delta)]
        step = max(abs(d) for d in delta)
        theta = step / previous if previous else None
        verdict = rule.verdict(ctx, step, max(abs(a) for a in u), theta, iteration, max_iter, correction.fresh)
        if verdict == ACCEPT:
            return NewtonOutcome(u, _residual(F), iteration, max(worst, theta or 0))
        if verdict is not None:
            return NewtonOutcome(None, _residual(F), iteration, theta or 0, verdict)
        if theta is not None:
            worst = max(worst, theta)
        correction.contracted(theta)
        previous = step
    if rule.accepts_unconverged(ctx, _residual(F)):
        return NewtonOutcome(u, _residual(F), max_iter, worst)
    return NewtonOutcome(None, _residual(F), max_iter, worst, "no convergence")


def _residual(F):
    return max((abs(f) for f in F), default=0) if F is not None else 0
