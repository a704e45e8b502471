"""The project's one Newton iteration (geomcheck.newton_iteration): rules, failures, and its users.

Truth is established without the loop: mpmath's own findroot, closed forms, and the iteration counts
of the numpy batch Newton (which runs the same rules elementwise) on the same stage equations.
"""

import mpmath
import numpy as np
import pytest

import integrators as ig
from geomcheck.newton_iteration import (ACCEPT, REFINE, STALE_LIMIT, STALLED, ContractingStep, Correction, DigitsStep,
                                        FreshLU, KeptLU, RelativeStep, newton_solve)
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
