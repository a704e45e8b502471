"""Coefficients solved from their order conditions, from approximate (published, rounded) values.

The refinements of compositions (:func:`geomcheck.certify.compositions.refine_composition`) and of
splitting methods (:func:`geomcheck.certify.splitting.refine_splitting`) evaluate their order
conditions numerically at any precision but have no Jacobian at hand.  Both solve them by the one
Newton iteration of the project (:func:`geomcheck.newton_iteration.newton_solve`) as a chord
iteration: a central-difference Jacobian, taken again whenever the residual falls by less than six
digits in an iteration; minimum-norm corrections where there are more unknowns than conditions, so
that the solution found is the one nearest the start up to second order in their distance; and an
iterate is accepted once its residual is below the target.

>>> import mpmath
>>> ctx = mpmath.MPContext(); ctx.dps = 40
>>> x, y = refine_coefficients(ctx, lambda u: [u[0] ** 2 - 2, u[0] * u[1] - 1], [ctx.mpf("1.4"), ctx.mpf("0.7")],
...                            target=ctx.mpf(10) ** -35, max_iter=30, what="two equations")
>>> mpmath.nstr(x, 30), mpmath.nstr(x * y, 30)
('1.41421356237309504880168872421', '1.0')
>>> refine_coefficients(ctx, lambda u: [u[0] ** 2 + 1], [ctx.mpf(1)], target=ctx.mpf(10) ** -35, max_iter=30,
...                     what="x**2 = -1")        # no real solution   # doctest: +ELLIPSIS
Traceback (most recent call last):
...
geomcheck.errors.RefinementError: Newton's method on x**2 = -1 did not converge (residual ...)
"""

from __future__ import annotations

from typing import Any, Callable

import mpmath

from ..errors import RefinementError
from ..newton_iteration import ChordLeastSquares, ResidualBelow, central_differences, newton_solve

__all__ = ["refine_coefficients", "JACOBIAN_REFRESH_DIGITS"]

#: the chord iteration takes a fresh Jacobian when the residual falls by fewer digits than this
JACOBIAN_REFRESH_DIGITS = 6


def refine_coefficients(ctx, conditions: Callable[[list], list], start: list, *, target: Any, max_iter: int,
                        what: str, good_enough: Any = None) -> list:
    """A solution of ``conditions(u) = 0`` near ``start`` (lists of the context's numbers).

    Parameters
    ----------
    ctx : mpmath context (its precision is the working precision)
    conditions : callable
        The residuals of the conditions at ``u``.
    start : list
    target : number
        The first iterate with ``max |conditions| <= target`` is the solution.
    max_iter : int
    what : str
        The conditions, in words, for the errors ("the order-4 conditions").
    good_enough : number, optional
        When ``max_iter`` iterations end above ``target``, the last iterate is still accepted if
        the residual before its correction was below this.

    Raises
    ------
    RefinementError
        No unknown, a singular Jacobian, a non-finite iterate, or no convergence (with the last
        residual).
    """
    if not start:
        raise RefinementError(f"{what}: there is no unknown to solve for")
    step = ctx.mpf(10) ** (-(ctx.dps // 2))      # central differences: about half the digits

    def equations(u, jacobian):
        return conditions(u), (central_differences(ctx, conditions, u, step) if jacobian else None)

    out = newton_solve(ctx, equations, start, ResidualBelow(target, good_enough),
                       ChordLeastSquares(ctx, ctx.mpf(10) ** -JACOBIAN_REFRESH_DIGITS), max_iter=max_iter)
    if out.reason == "a singular Jacobian":
        raise RefinementError(f"the Jacobian of {what} is singular at an iterate "
                              "(a start nearer a regular solution is needed)")
    if out.reason == "a non-finite value":
        raise RefinementError(f"Newton's method on {what} diverged")
    if out.solution is None:
        raise RefinementError(f"Newton's method on {what} did not converge (residual {mpmath.nstr(out.residual, 3)})")
    return out.solution
