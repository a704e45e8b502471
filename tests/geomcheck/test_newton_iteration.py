"""The project's one Newton iteration (geomcheck.newton_iteration): rules, failures, and its users.

Truth is established without the loop: mpmath's own findroot, closed forms, and the iteration counts
of the numpy batch Newton (which runs the same rules elementwise) on the same stage equations.
"""

import mpmath
import numpy as np
import pytest

import integrators as ig
from geomcheck.newton_iteration import (ACCEPT, REFINE, STALE_LIMIT, STALLED, ChordLeastSquares, ContractingStep,
                                        Correction, DigitsStep, FreshLU, KeptLU, RelativeStep, ResidualBelow,
                                        central_differences, newton_solve)
from geomcheck.dense_lu import lu_factor
from geomcheck.errors import SingularMatrixError


def circle_line(u, jacobian):
    """x**2 + y**2 = 4 and x = y: the root (sqrt 2, sqrt 2) from (1, 2)."""
    x, y = u
    return [x * x + y * y - 4, x - y], ([[2 * x, 2 * y], [1, -1]] if jacobian else None)


def test_newton_proper_matches_findroot_to_working_precision():
    with mpmath.workdps(50):
        out = newton_solve(mpmath.mp, circle_line, [mpmath.mpf(1), mpmath.mpf(2)],
                           RelativeStep(mpmath.mpf(10) ** -45), FreshLU(mpmath.mp), max_iter=30)
        ref = mpmath.findroot(lambda x, y: [x * x + y * y - 4, x - y], (1, 2))
        assert out.reason == ""
        assert abs(out.solution[0] - ref[0]) < mpmath.mpf(10) ** -48
        assert abs(out.solution[0] - mpmath.sqrt(2)) < mpmath.mpf(10) ** -48
        # quadratic convergence: a handful of iterations, and the last correction far below the bound
        assert 4 <= out.iterations <= 8


def test_kept_factorization_converges_linearly_to_the_same_root():
    with mpmath.workdps(40):
        u0 = [mpmath.mpf(1), mpmath.mpf(2)]
        J0 = circle_line(u0, True)[1]
        fac = lu_factor(mpmath.mp, [[mpmath.mpf(v) for v in row] for row in J0])
        out = newton_solve(mpmath.mp, circle_line, u0, ContractingStep(mpmath.mpf(10) ** -35), KeptLU(fac, True), 200)
        assert out.reason == ""
        assert abs(out.solution[1] - mpmath.sqrt(2)) < mpmath.mpf(10) ** -36
        assert 0 < out.contraction < 1
        # linear convergence takes more iterations than Newton's method proper
        proper = newton_solve(mpmath.mp, circle_line, u0, RelativeStep(mpmath.mpf(10) ** -35), FreshLU(mpmath.mp), 30)
        assert out.iterations > proper.iterations


def test_singular_jacobian_is_a_failure_not_a_solution():
    def fold(u, jacobian):            # x**2 = 0 ... from x = 0: J = 0
        return [u[0] * u[0] + 1], ([[2 * u[0]]] if jacobian else None)

    with mpmath.workdps(30):
        out = newton_solve(mpmath.mp, fold, [mpmath.mpf(0)], RelativeStep(mpmath.mpf(10) ** -25), FreshLU(mpmath.mp), 10)
    assert out.solution is None and out.reason == "a singular Jacobian"
    assert out.residual == 1


def test_no_real_root_is_no_convergence():
    def no_root(u, jacobian):          # x**2 + 1 = 0 has no real root: Newton wanders
        return [u[0] * u[0] + 1], ([[2 * u[0]]] if jacobian else None)

    with mpmath.workdps(30):
        out = newton_solve(mpmath.mp, no_root, [mpmath.mpf("0.5")], RelativeStep(mpmath.mpf(10) ** -25),
                           FreshLU(mpmath.mp), 40)
    assert out.solution is None and out.reason == "no convergence" and out.iterations == 40


def test_non_finite_correction_is_refused():
    class Infinite(Correction):
        def solve(self, F, J, jacobian_here):
            return [mpmath.inf]

    out = newton_solve(mpmath.mp, lambda u, j: ([u[0]], [[1]]), [mpmath.mpf(1)], RelativeStep(mpmath.mpf(1e-10)),
                       Infinite(), 5)
    assert out.solution is None and out.reason == "a non-finite value"


def test_contracting_rule_verdicts():
    rule = ContractingStep(mpmath.mpf("1e-10"), limit=STALE_LIMIT)
    ctx = mpmath.mp
    # below the bound, fast contraction: accepted
    assert rule.verdict(ctx, 1e-12, 1.0, 1e-3, 3, 50, False) == ACCEPT
    # below the bound but the error estimate theta/(1-theta)|delta| above REFINE * bound: go on
    assert rule.verdict(ctx, 0.9e-10, 0.0, 0.4, 3, 50, False) is None
    # ... and that estimate just below REFINE * bound: accepted
    assert rule.verdict(ctx, 0.9e-10, 0.0, 1e-3, 3, 50, False) == ACCEPT
    # stalled at rounding level: accepted
    assert rule.verdict(ctx, 1e-10, 0.0, STALLED, 3, 50, False) == ACCEPT
    # a stale factorization contracting slower than STALE_LIMIT: given up at once
    assert "too slow" in rule.verdict(ctx, 1.0, 0.0, 0.6, 2, 50, False)
    # a rate that cannot reach the bound within the iterations left: given up
    assert "too slow" in rule.verdict(ctx, 1.0, 0.0, 0.3, 45, 50, True)
    assert REFINE < 1


def test_digits_rule_accepts_a_stale_correction_only_while_contracting():
    ctx = mpmath.MPContext()
    ctx.dps = 30
    rule = DigitsStep(0.9 * 30 * 3.3219280948873626, 0.25)
    tiny = ctx.mpf(10) ** -29
    assert rule.verdict(ctx, tiny, ctx.mpf(1), None, 2, 60, True) == ACCEPT
    assert rule.verdict(ctx, tiny, ctx.mpf(1), None, 2, 60, False) is None          # stale, no rate yet
    assert rule.verdict(ctx, tiny, ctx.mpf(1), 0.5, 2, 60, False) is None           # stale, not contracting
    assert rule.verdict(ctx, tiny, ctx.mpf(1), 0.01, 2, 60, False) == ACCEPT
    assert rule.verdict(ctx, ctx.mpf(10) ** -10, ctx.mpf(1), 0.01, 2, 60, True) is None
    assert rule.verdict(ctx, 0, ctx.mpf(1), 0.9, 2, 60, False) == ACCEPT


@pytest.mark.parametrize("newton", ["full", "simplified"])
def test_numpy_batch_and_multiprecision_run_the_same_rule(newton):
    """The numpy batch Newton runs the rules of newton_solve elementwise: on the same equations and tolerance
    both take the same iterations (the multiprecision run at 30 digits only removes rounding).  Two steps: from
    the third on, the numpy path starts from extrapolated roots, which only it does."""
    system = ig.example_system("henon-heiles")
    y0 = [0.1, 0.2, 0.3, 0.1]
    runs = {}
    for backend, options in (("numpy", {}), ("mpmath", {"dps": 30})):
        sol = ig.integrate(system, "gauss-legendre-4", y0, dt=0.1, steps=2, backend=backend, newton=newton, tol=1e-13,
                           **options)
        runs[backend] = sol
    assert runs["numpy"].newton.iterations == runs["mpmath"].newton.iterations
    assert runs["numpy"].newton.solves == runs["mpmath"].newton.solves == 2
    assert np.allclose(np.asarray(runs["mpmath"].y, dtype=float), runs["numpy"].y, rtol=0, atol=1e-14)


def test_singular_matrix_error_from_a_correction_is_reported():
    class Refuses(Correction):
        def solve(self, F, J, jacobian_here):
            raise SingularMatrixError("no")

    out = newton_solve(mpmath.mp, circle_line, [mpmath.mpf(1), mpmath.mpf(2)], RelativeStep(mpmath.mpf(1e-10)),
                       Refuses(), 5)
    assert out.solution is None and out.reason == "a singular Jacobian" and out.iterations == 1


def test_relative_rule_is_relative_to_one_plus_the_size():
    rule = RelativeStep(1e-10)
    assert rule.verdict(None, 0.9e-10, 0.0, None, 1, 50, True) == ACCEPT      # a root at 0: an absolute bound
    assert rule.verdict(None, 1.9e-10, 1.0, None, 1, 50, True) == ACCEPT      # 1e-10 * (1 + 1)
    assert rule.verdict(None, 2.1e-10, 1.0, None, 1, 50, True) is None
    assert rule.verdict(None, 1.0e-6, 1e5, None, 1, 50, True) == ACCEPT       # relative for large roots


# -- the residual rule and the chord least-squares correction (the coefficient refinements' iteration)

def _finite_difference_equations(F, ctx):
    """``equations`` for newton_solve from values alone: the Jacobian by central differences."""
    def equations(u, jacobian):
        return F(u), (central_differences(ctx, F, u, ctx.mpf(10) ** (-(ctx.dps // 2))) if jacobian else None)
    return equations


def test_central_differences_match_the_analytic_jacobian():
    with mpmath.workdps(40):
        u = [mpmath.mpf("0.7"), mpmath.mpf("-1.3")]

        def F(v):
            return circle_line(v, False)[0] + [mpmath.exp(v[0]) * v[1]]

        exact = circle_line(u, True)[1] + [[mpmath.exp(u[0]) * u[1], mpmath.exp(u[0])]]
        ten = mpmath.mpf(10)
        for step, bound in ((ten ** -20, ten ** -19), (ten ** -13, ten ** -24)):
            J = central_differences(mpmath.mp, F, u, step)
            assert len(J) == 3 and all(len(row) == 2 for row in J)
            # error: rounding 1e-40 / step plus truncation step**2 / 6 times a third derivative
            assert max(abs(a - b) for ra, rb in zip(J, exact) for a, b in zip(ra, rb)) < bound


def test_residual_rule_accepts_the_iterate_before_correcting_it():
    ctx = mpmath.MPContext()
    ctx.dps = 50
    target = ctx.mpf(10) ** -40
    out = newton_solve(ctx, _finite_difference_equations(lambda u: circle_line(u, False)[0], ctx),
                       [ctx.mpf(1), ctx.mpf(2)], ResidualBelow(target), ChordLeastSquares(ctx, ctx.mpf(10) ** -6),
                       max_iter=30)
    assert out.reason == "" and out.residual <= target
    # the solution is the iterate whose residual was measured: its residual is the one reported
    assert max(abs(f) for f in circle_line(out.solution, False)[0]) == out.residual
    assert abs(out.solution[0] - ctx.sqrt(2)) < ctx.mpf(10) ** -39
    # a start that already solves the equations is returned as it is, with no correction
    root = [ctx.sqrt(2), ctx.sqrt(2)]
    again = newton_solve(ctx, _finite_difference_equations(lambda u: circle_line(u, False)[0], ctx), root,
                         ResidualBelow(ctx.mpf(10) ** -45), ChordLeastSquares(ctx, ctx.mpf(10) ** -6), max_iter=5)
    assert again.solution == root and again.iterations == 0


def test_underdetermined_corrections_are_minimum_norm_so_the_solution_is_the_nearest_one():
    # x + y + z = 1 from (3, 5, -2): the nearest solution is the orthogonal projection onto the plane
    ctx = mpmath.MPContext()
    ctx.dps = 40
    start = [ctx.mpf(3), ctx.mpf(5), ctx.mpf(-2)]
    out = newton_solve(ctx, _finite_difference_equations(lambda u: [u[0] + u[1] + u[2] - 1], ctx), start,
                       ResidualBelow(ctx.mpf(10) ** -35), ChordLeastSquares(ctx, ctx.mpf(10) ** -6), max_iter=10)
    shift = (sum(start) - 1) / 3
    assert all(abs(a - (b - shift)) < ctx.mpf(10) ** -35 for a, b in zip(out.solution, start))
    # and on a curved constraint (x**2 + y**2 = 1 from (2, 2)), steps along the gradient reach the
    # nearest point of the circle, (1, 1)/sqrt 2: the gradient at (2, 2) points at it
    out = newton_solve(ctx, _finite_difference_equations(lambda u: [u[0] ** 2 + u[1] ** 2 - 1], ctx),
                       [ctx.mpf(2), ctx.mpf(2)], ResidualBelow(ctx.mpf(10) ** -35),
                       ChordLeastSquares(ctx, ctx.mpf(10) ** -6), max_iter=30)
    assert all(abs(v - 1 / ctx.sqrt(2)) < ctx.mpf(10) ** -34 for v in out.solution)


def test_overdetermined_consistent_equations_are_solved_by_least_squares():
    ctx = mpmath.MPContext()
    ctx.dps = 40
    out = newton_solve(ctx, _finite_difference_equations(lambda u: [u[0] - 2, 2 * u[0] - 4, u[0] ** 2 - 4], ctx),
                       [ctx.mpf("1.5")], ResidualBelow(ctx.mpf(10) ** -35), ChordLeastSquares(ctx, ctx.mpf(10) ** -6),
                       max_iter=30)
    assert abs(out.solution[0] - 2) < ctx.mpf(10) ** -35


def test_chord_jacobian_is_refreshed_only_when_the_residual_falls_slowly():
    ctx = mpmath.MPContext()
    ctx.dps = 40
    calls = []

    def counted(F):
        inner = _finite_difference_equations(F, ctx)

        def equations(u, jacobian):
            calls.append(jacobian)
            return inner(u, jacobian)
        return equations

    # linear equations: the first Jacobian is exact, every later correction uses it
    out = newton_solve(ctx, counted(lambda u: [2 * u[0] + u[1] - 3, u[0] - u[1]]), [ctx.mpf(5), ctx.mpf(-4)],
                       ResidualBelow(ctx.mpf(10) ** -35), ChordLeastSquares(ctx, ctx.mpf(10) ** -6), max_iter=10)
    assert out.reason == "" and calls.count(True) == 1
    # a nonlinear system from far away: the residual falls by less than 1e-6 at some iterations,
    # so the Jacobian is taken again, and the iteration ends sooner than with one Jacobian kept
    calls.clear()
    newton_solve(ctx, counted(lambda u: circle_line(u, False)[0]), [ctx.mpf(1), ctx.mpf(3)],
                 ResidualBelow(ctx.mpf(10) ** -35), ChordLeastSquares(ctx, ctx.mpf(10) ** -6), max_iter=40)
    refreshed, evaluations = calls.count(True), len(calls)
    calls.clear()
    never = newton_solve(ctx, counted(lambda u: circle_line(u, False)[0]), [ctx.mpf(1), ctx.mpf(3)],
                         ResidualBelow(ctx.mpf(10) ** -35), ChordLeastSquares(ctx, ctx.inf), max_iter=200)
    assert refreshed > 1 and calls.count(True) == 1 and never.reason == ""
    assert evaluations < len(calls)


def test_chord_correction_adds_exactly_what_lu_solve_subtracts():
    # mpmath's lu_solve returns guard bits: a rounded negation would move u + delta by an ulp
    # from u - lu_solve(J, F) (the refinements' published bits depend on it)
    ctx = mpmath.MPContext()
    ctx.dps = 30
    rng = np.random.default_rng(7)
    mismatches = 0
    for _ in range(40):
        J = [[ctx.mpf(float(x)) for x in row] for row in rng.normal(size=(3, 3))]
        F = [ctx.mpf(float(x)) / 3 for x in rng.normal(size=3)]
        u = [ctx.mpf(float(x)) * 10 for x in rng.normal(size=3)]
        delta = ChordLeastSquares(ctx, ctx.mpf(10) ** -6).solve(F, None, lambda: J)
        reference = ctx.lu_solve(ctx.matrix(J), ctx.matrix(F))
        mismatches += sum(a + d != a - reference[i] for i, (a, d) in enumerate(zip(u, delta)))
    assert mismatches == 0


def test_residual_rule_gives_up_or_accepts_a_looser_target_when_iterations_run_out():
    # x**3 = 0 (a triple root): Newton converges linearly, the residual falls by 8/27 an iteration
    ctx = mpmath.MPContext()
    ctx.dps = 30

    def cube(u, jacobian):
        return [u[0] ** 3], ([[3 * u[0] ** 2]] if jacobian else None)

    class EveryIterate(FreshLU):
        pass

    start = [ctx.mpf(1)]
    strict = newton_solve(ctx, cube, start, ResidualBelow(ctx.mpf(10) ** -25), EveryIterate(ctx), max_iter=10)
    assert strict.solution is None and strict.reason == "no convergence"
    assert abs(strict.residual - (ctx.mpf(2) / 3) ** 27) < ctx.mpf(10) ** -20     # x_9 = (2/3)**9
    loose = newton_solve(ctx, cube, start, ResidualBelow(ctx.mpf(10) ** -25, good_enough=ctx.mpf(10) ** -4),
                         EveryIterate(ctx), max_iter=10)
    # the residual before the tenth correction was 2e-5: the corrected tenth iterate is returned
    assert loose.reason == "" and abs(loose.solution[0] - (ctx.mpf(2) / 3) ** 10) < ctx.mpf(10) ** -25
    too_loose = newton_solve(ctx, cube, start, ResidualBelow(ctx.mpf(10) ** -25, good_enough=ctx.mpf(10) ** -6),
                             EveryIterate(ctx), max_iter=10)
    assert too_loose.solution is None


def test_chord_correction_refuses_a_singular_jacobian():
    ctx = mpmath.MPContext()
    ctx.dps = 30
    out = newton_solve(ctx, _finite_difference_equations(lambda u: [u[0] + u[1] - 1, 2 * u[0] + 2 * u[1] - 2], ctx),
                       [ctx.mpf(3), ctx.mpf(5)], ResidualBelow(ctx.mpf(10) ** -25),
                       ChordLeastSquares(ctx, ctx.mpf(10) ** -6),
                       max_iter=10)
    assert out.solution is None and out.reason == "a singular Jacobian"
