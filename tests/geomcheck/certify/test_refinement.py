"""Coefficients solved from conditions (geomcheck.certify.refinement): solutions and named failures.

The solutions are checked against closed forms, independently of the iteration.
"""

import mpmath
import pytest

from geomcheck.certify.refinement import refine_coefficients
from geomcheck.errors import RefinementError


def context(dps):
    ctx = mpmath.MPContext()
    ctx.dps = dps
    return ctx


def test_square_and_underdetermined_conditions_are_solved_to_the_target():
    ctx = context(50)
    # the triple jump's weight-3 condition: 2 a**3 + (1 - 2 a)**3 = 0, a = 1 / (2 - 2**(1/3))
    a, = refine_coefficients(ctx, lambda u: [2 * u[0] ** 3 + (1 - 2 * u[0]) ** 3], [ctx.mpf("1.35")],
                             target=ctx.mpf(10) ** -45, max_iter=40, what="the triple jump")
    assert abs(a - 1 / (2 - ctx.cbrt(2))) < ctx.mpf(10) ** -44
    # one condition, two unknowns: the nearest point of the line x + 2 y = 1 to (1, 1)
    x, y = refine_coefficients(ctx, lambda u: [u[0] + 2 * u[1] - 1], [ctx.mpf(1), ctx.mpf(1)],
                               target=ctx.mpf(10) ** -45, max_iter=10, what="a line")
    assert abs(x - ctx.mpf(3) / 5) < ctx.mpf(10) ** -45 and abs(y - ctx.mpf(1) / 5) < ctx.mpf(10) ** -45


def test_failures_are_refinement_errors_naming_the_conditions():
    ctx = context(30)
    with pytest.raises(RefinementError, match=r"Jacobian of two equal rows is singular"):
        refine_coefficients(ctx, lambda u: [u[0] + u[1] - 1, 2 * u[0] + 2 * u[1] - 3], [ctx.mpf(1), ctx.mpf(1)],
                            target=ctx.mpf(10) ** -25, max_iter=10, what="two equal rows")
    with pytest.raises(RefinementError, match=r"on a wall diverged"):
        refine_coefficients(ctx, lambda u: [u[0] ** 2 - 4 if u[0] < 1.5 else ctx.inf], [ctx.mpf(1)],
                            target=ctx.mpf(10) ** -25, max_iter=10, what="a wall")
    with pytest.raises(RefinementError, match=r"on x\*\*2 = -1 did not converge \(residual"):
        refine_coefficients(ctx, lambda u: [u[0] ** 2 + 1], [ctx.mpf(3)], target=ctx.mpf(10) ** -25, max_iter=30,
                            what="x**2 = -1")


def test_a_looser_target_is_accepted_only_when_the_iterations_run_out():
    ctx = context(30)
    # x**3 = 0 converges linearly (the Jacobian vanishes at the root): 12 iterations reach 1e-6 only
    with pytest.raises(RefinementError, match="did not converge"):
        refine_coefficients(ctx, lambda u: [u[0] ** 3], [ctx.mpf(1)], target=ctx.mpf(10) ** -25, max_iter=12,
                            what="a triple root")
    x, = refine_coefficients(ctx, lambda u: [u[0] ** 3], [ctx.mpf(1)], target=ctx.mpf(10) ** -25, max_iter=12,
                             what="a triple root", good_enough=ctx.mpf(10) ** -4)
    assert abs(x) < ctx.mpf("0.01")


def test_hundreds_of_digits_are_reached():
    # the triple jump (Forest-Ruth) at 400 digits: 1 / (2 - 2**(1/3)) exactly, for compositions and splittings
    # (the chord iteration gains about ten digits an iteration from this start: 40 iterations alone stop short)
    from geomcheck.certify.compositions import refine_composition
    from geomcheck.certify.splitting import refine_splitting

    g = refine_composition([1.35, -1.70, 1.35], 4, dps=400)
    a, b = refine_splitting(["0.6756", "-0.1756", "-0.1756", "0.6756"], ["1.3512", "-1.7024", "1.3512", 0],
                            "separable", 4, dps=400)
    with mpmath.workdps(420):
        exact = 1 / (2 - mpmath.cbrt(2))
        for value in (g[0], b[0], 2 * a[0]):
            assert abs(mpmath.mpf(value._mpf_) - exact) < mpmath.mpf(10) ** -398


def test_inputs_that_cannot_be_refined_are_named():
    from geomcheck.certify.compositions import refine_composition
    from geomcheck.certify.splitting import refine_splitting
    from geomcheck.errors import CompositionCoefficientError

    with pytest.raises(CompositionCoefficientError, match="real coefficients"):
        refine_composition([1.35 + 0.1j, -1.70, 1.35 - 0.1j], 4, dps=30)
    with pytest.raises(RefinementError, match="no unknown"):
        refine_splitting([0, 0], [0, 0], "separable", 2, dps=30)        # exact zeros stay zero: nothing is free


def test_minimum_norm_steps_move_the_start_orthogonally_to_the_solution_set():
    """Kahan-Li's s9odr6a: 5 unknowns, 4 conditions.  The refined coefficients differ from the published
    26 digits by about 5e-27, and that move is orthogonal to the solution set (it lies in the row space
    of the conditions' Jacobian, taken exactly from the conditions as polynomials) up to second order."""
    import sympy

    from geomcheck.certify.compositions import kahan_li, order_conditions

    published = ["0.39216144400731413927925056", "0.33259913678935943859974864", "-0.70624617255763935980996482",
                 "0.08221359629355080023149045", "0.79854399093482996339895035"]
    a = sympy.symbols("a1:6")
    conditions = [c.value for c in order_conditions(list(a) + list(a[-2::-1]), 6)]
    conditions = [c for c in conditions if sympy.expand(c) != 0]     # the even weights vanish by symmetry
    assert len(conditions) == 4
    refined = kahan_li(6, dps=60)[:5]
    with mpmath.workdps(80):
        at = {s: sympy.Float(v, 60) for s, v in zip(a, refined)}
        J = mpmath.matrix([[mpmath.mpf(sympy.N(sympy.diff(c, s).subs(at), 80)) for s in a] for c in conditions])
        # the start is the published digits read as 30-digit floats (kahan_li does so)
        move = mpmath.matrix([mpmath.mpf(r._mpf_) - mpmath.mpf(sympy.Float(p, 30)._mpf_)
                              for r, p in zip(refined, published)])
        along_rows = J.T * mpmath.lu_solve(J * J.T, J * move)
        size, tangential = mpmath.norm(move), mpmath.norm(move - along_rows)
    assert 1e-28 < size < 1e-25
    assert tangential < size ** 2 * 10 ** 3         # 3e-53 against 5e-27 moved
