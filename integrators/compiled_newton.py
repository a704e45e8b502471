r"""A compiled Newton: the whole run loop of an implicit step, stage solves included, in C.

The stage equations ``G(x, u) = 0`` of the lowered implicit step (the certified step map,
:mod:`integrators.lower`), the structurally nonzero entries of their Jacobian
(:mod:`integrators.stage_sparsity`), the starting guess and the new state are printed as C
(:class:`integrators.codegen.CPrinter`, scalars hoisted and evaluated once per run, common
subexpressions shared).  Before that, every unknown that an equation gives explicitly
(``c u_i + R = 0``, ``c`` a nonzero number: the slopes ``k_q = p + h sum a k_p`` of a
Runge-Kutta stage on ``H = p^2/2 + V(q)``) is substituted away
(:func:`~integrators.stage_sparsity.eliminate_affine_unknowns`; the same solutions, fewer
unknowns: the midpoint rule on a chain becomes its tridiagonal force equations), and the
rest are ordered for a narrow band (reverse Cuthill-McKee when narrower).  The linear
algebra is a band LU with partial pivoting written into the loop (LAPACK's ``dgbtrf``
scheme: row interchanges within the band, the multipliers kept below the diagonal) with
the bandwidths ``(l, u)`` of the pattern, ``l = u = m - 1`` (a dense LU) when no band is
narrower.  :class:`CompiledSystem` records the choice.

Newton's iteration follows :class:`integrators.newton.StageSolver`'s rule (``newton="auto"``):
the start of a step is the polynomial through the roots of the trajectory's last
``EXTRAPOLATION_POINTS`` steps (:data:`integrators.newton.EXTRAPOLATION_POINTS`, at most 6),
extrapolated one step on (Hairer-Wanner II, Sec. IV.8, "starting values", with the history of
steps in place of the collocation polynomial: no tableau needed), kept only when it moves the
root at most twice as far as the last step did, else the map's guess (``start="guess"``: the
guess every step); the Jacobian at the start, factorized, reused over the iterations and the following steps;
convergence when ``max |delta| <= tol (1 + max |u|)`` and the error estimate
``theta / (1 - theta) |delta|`` is below ``REFINE`` times that bound (or the contraction has
stalled at rounding level); a contraction rate above ``REFRESH_RATE`` refreshes the Jacobian
at the next step, a stale factorization contracting slower than ``STALE_LIMIT`` (or
diverging) is replaced at once, and a trajectory on which even a fresh factorization fails
is handed to full Newton from the map's guess (a fresh Jacobian every iteration);
``"simplified"`` (the same without that fallback) and ``"full"`` (full Newton from the map's
guess, no extrapolation) as there.  The convergence test is the same for every start,
so the states are full Newton's to the Newton tolerance; only the iterations differ (Gauss-4 on
Henon-Heiles, h = 0.05: 3.9 simplified iterations per step from the guess, 3.0 from the
extrapolated start; benchmarks/bench_newton_structure.py).  A small system's trajectories
(up to ``INVERSE_UNKNOWNS`` unknowns) run in groups of ``LANES``, step by step together, each
with its own factorization, history and decisions: the same states, bit for bit, as one by one
(tests/integrators/test_newton_starts.py), with the lanes' independent operations overlapped.
On failure :class:`~integrators.errors.NewtonConvergenceError` names the step and the first
failing trajectory (as one by one): nothing half-solved is returned.

The library is compiled with the system C compiler as in :mod:`integrators.compiled`
(``-O2 -ffp-contract=off``: IEEE double operations as numpy's, no fused multiply-add) into
the compiled steps' per-user cache directory (:func:`integrators.compiled.build_library`), with its SHA-256 beside it.

>>> import sympy, numpy as np, integrators as ig
>>> from integrators.lower import lower
>>> from integrators.compiled import find_compiler
>>> q, p, h = sympy.symbols("q p h")
>>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
>>> L = lower(ig.scheme("gauss-legendre-4").step_map(pendulum))
>>> if find_compiler():
...     C = CompiledNewton(L)
...     Y = C.run([0.1], np.array([[1.0, 0.0]]), steps=10)
...     ref = np.array([[1.0, 0.0]])
...     B = L.bind({h: 0.1}, newton="full")
...     for _ in range(10):
...         ref = B.step_array(ref)
...     print(bool(np.abs(Y[0, -1] - ref[0]).max() < 1e-13))
... else:
...     print(True)
True
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np
import sympy

from geomcheck.caches import Memo
from geomcheck.errors import InvalidArgumentError
from geomcheck.newton_iteration import REFINE, REFRESH_RATE, STALE_LIMIT, STALLED

from .codegen import CPrinter, hoist_scalars
from .compiled import build_library, load_library
from .errors import NewtonConvergenceError, NotLowerableError
from .lower import lower, split_step
from .newton import DEFAULT_TOL, EXTRAPOLATION_POINTS, check_newton_mode
from .stage_sparsity import bandwidths, eliminate_affine_unknowns, pattern_of

__all__ = ["CompiledNewton", "compiled_newton", "compiled_newton_run", "CompiledNewtonRun", "c_source_newton", "CompiledSystem", "compiled_system",
           "LANES", "STARTS"]

#: up to this many unknowns the simplified iteration applies an explicit inverse of the factorized Jacobian
INVERSE_UNKNOWNS = 8
#: a small system's trajectories run in groups of this many, step by step together (independent chains of
#: operations the CPU overlaps); a larger one (beyond ``INVERSE_UNKNOWNS``) one by one
LANES = 4
#: the starting values :meth:`CompiledNewton.run` knows
STARTS = ("extrapolate", "guess")
ENTRY = "gc_newton_run"

#: the reasons the C loop gives when Newton fails (its return codes)
_REASONS = {2: "a singular Jacobian or a non-finite value", 3: "no convergence (full Newton after the simplified"
            " iteration failed with a fresh Jacobian)", 4: "the simplified iteration (a fresh Jacobian at the guess,"
            " factorized once) diverged, met a singular Jacobian or did not converge (newton='full' or 'auto' may"
            " succeed)"}


@dataclass(frozen=True)
class CompiledSystem:
    """The stage equations as the compiled Newton solves them.

    Unknowns that an equation gives explicitly (``c u_i + R = 0`` with ``c`` a nonzero number,
    :func:`integrators.stage_sparsity.eliminate_affine_unknowns`) are substituted away when
    ``eliminate``; the rest are ordered to make the Jacobian's band narrow (reverse
    Cuthill-McKee when it is narrower than the given order).

    Attributes
    ----------
    unknowns : tuple of Symbol    the unknowns Newton iterates on (original order)
    equations : tuple of Expr     their equations
    eliminated : dict             {unknown: its expression in the state and ``unknowns``}
    rows, cols, entries : tuple   the structurally nonzero Jacobian entries
    lower, upper : int            the band used (``m - 1, m - 1``: dense)
    position : tuple of int       the place of each unknown (and equation) in the band order
    """

    unknowns: tuple
    equations: tuple
    eliminated: dict
    rows: tuple
    cols: tuple
    entries: tuple
    lower: int
    upper: int
    position: tuple

    @property
    def m(self) -> int:
        return len(self.unknowns)

    @property
    def linear_solver(self) -> str:
        m = self.m
        return "dense" if self.lower + self.upper + 1 >= m else f"banded({self.lower},{self.upper})"


def compiled_system(L, eliminate=True) -> CompiledSystem:
    """The :class:`CompiledSystem` of the lowered implicit step ``L``.

    >>> import sympy, integrators as ig
    >>> from integrators.lower import lower
    >>> q = sympy.symbols("q0:8"); p = sympy.symbols("p0:8")
    >>> H = sum(x**2 / 2 for x in p) + sum((q[i + 1] - q[i])**4 / 4 for i in range(7))
    >>> L = lower(ig.scheme("implicit-midpoint").step_map(ig.HamiltonianSystem(H, list(q), list(p))))
    >>> S = compiled_system(L)
    >>> S.m, len(S.eliminated), S.linear_solver              # k_q = p + h/2 k_p eliminated: a tridiagonal system
    (8, 8, 'banded(1,1)')
    >>> compiled_system(L, eliminate=False).linear_solver
    'banded(3,1)'
    """
    if eliminate:
        unknowns, equations, eliminated = eliminate_affine_unknowns(L.equations, L.unknowns)
    else:
        unknowns, equations, eliminated = tuple(L.unknowns), list(L.equations), {}
    m = len(unknowns)
    rows, cols, entries = pattern_of(equations, unknowns)
    lo, up = bandwidths(rows, cols)
    position = list(range(m))
    if m and lo + up > 0:
        order = _rcm_order(m, rows, cols)
        inverse = np.empty(m, dtype=np.intp)
        inverse[order] = np.arange(m)
        lo2, up2 = bandwidths(inverse[np.asarray(rows, dtype=np.intp)], inverse[np.asarray(cols, dtype=np.intp)])
        if lo2 + up2 < lo + up:
            lo, up, position = lo2, up2, [int(k) for k in inverse]
    if lo + up + 1 >= m:
        lo = up = max(m - 1, 0)
    return CompiledSystem(tuple(unknowns), tuple(equations), dict(eliminated), tuple(rows), tuple(cols),
                          tuple(entries), lo, up, tuple(position))


def _rcm_order(m, rows, cols):
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    A = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(m, m))
    return np.asarray(reverse_cuthill_mckee((A + A.T).tocsr(), symmetric_mode=True), dtype=np.intp)


def c_source_newton(L, system=None) -> str:
    """The C source of the compiled Newton run loop of the lowered implicit step ``L``.

    ``system``: the :class:`CompiledSystem` to solve (default ``compiled_system(L)``).
    Defines ``int gc_newton_run(const double *a, long n_traj, const double *y_init, long steps,
    long save_every, double *out, double tol, long max_iter, long full, long *info,
    double *fail_res, long *counts)``: trajectory ``b`` starts at ``y_init + b*DIM`` and its
    saved states go to ``out + (b*n_saved + k)*DIM``; ``full``: 0 the simplified iteration with
    the full-Newton fallback, 1 full Newton only, 2 the simplified iteration alone.  Returns 0,
    1 (no memory) or a failure code with ``info = {trajectory, step}`` and ``fail_res`` the
    residual max-norm.

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> from integrators.lower import lower
    >>> q, p = sympy.symbols("q p")
    >>> L = lower(ig.scheme("implicit-midpoint").step_map(ig.HamiltonianSystem(p**2/2 + q**4/4, q, p)))
    >>> src = c_source_newton(L)
    >>> "#define M 1" in src and "gc_lu" in src        # k_q eliminated: one unknown
    True
    """
    if L.explicit or L.backend != "numpy":
        raise NotLowerableError("the compiled Newton runs implicit steps lowered for numpy (float64)")
    S = compiled_system(L) if system is None else system
    m, dim = S.m, L.dim
    lo, up, pos = S.lower, S.upper, S.position
    width = 2 * lo + up + 1
    names = {c: sympy.Symbol(f"y{k}") for k, c in enumerate(L.coords)}
    names.update({u: sympy.Symbol(f"u{j}") for j, u in enumerate(S.unknowns)})
    names.update({s: sympy.Symbol(f"a{k}") for k, s in enumerate(L.parameters)})
    arrays = {names[c] for c in L.coords} | {names[u] for u in S.unknowns}
    guess = [sympy.sympify(L.phi.guess[u]) for u in S.unknowns]
    equations = [sympy.sympify(e) for e in S.equations]
    update = [sympy.sympify(e).xreplace(S.eliminated) for e in split_step(L.phi)[3]]
    groups = [guess, equations, list(S.entries), update]
    flat = [e.xreplace(names) for g in groups for e in g]
    extra = set().union(*(e.free_symbols for e in flat)) - arrays - {names[s] for s in L.parameters}
    if extra:
        raise NotLowerableError(f"cannot compile: the step contains {sorted(map(str, extra))}")
    hoisted, flat = hoist_scalars(flat, arrays)
    sizes = [len(g) for g in groups]
    parts, k = [], 0
    for s in sizes:
        parts.append(flat[k:k + s])
        k += s
    printer = CPrinter()
    p = printer.doprint

    def body(exprs, targets, reads_u):
        reps, reduced = sympy.cse(exprs, symbols=sympy.numbered_symbols("_x"), order="none")
        lines = [f"const double y{k} = y[{k}];" for k in range(dim)]
        if reads_u:
            lines += [f"const double u{j} = u[{pos[j]}];" for j in range(m)]
        lines += [f"const double {s} = {p(e)};" for s, e in reps]
        lines += [f"{t} = {p(e)};" for t, e in zip(targets, reduced)]
        return lines

    hoisted_names = [str(s) for s, _ in hoisted]
    unpack = [f"const double a{k} = a[{k}];" for k in range(len(L.parameters))]
    unpack_s = [f"const double {n} = s[{k}];" for k, n in enumerate(hoisted_names)]
    try:
        scal = []
        if hoisted:
            reps, reduced = sympy.cse([e for _, e in hoisted], symbols=sympy.numbered_symbols("_t"), order="none")
            scal += [f"const double {s} = {p(e)};" for s, e in reps]
            scal += [f"s[{k}] = {p(e)};" for k, e in enumerate(reduced)]
        f_guess = body(parts[0], [f"u[{pos[j]}]" for j in range(m)], False)
        f_eqs = body(parts[1], [f"F[{pos[i]}]" for i in range(m)], True)
        rows, cols = S.rows, S.cols
        f_jac = body(parts[2], [f"AB({pos[i]}, {pos[j]})" for i, j in zip(rows, cols)], True)
        f_upd = body(parts[3], [f"yn[{k}]" for k in range(dim)], True)
    except Exception as exc:  # a function the C printer does not know
        raise NotLowerableError(f"cannot print the stage equations as C: {exc}") from None
    ind = "    "
    lines = [
        "/* generated by integrators.compiled_newton from the symbolic implicit step map */",
        "#include <math.h>", "#include <stdlib.h>", "#include <string.h>",
        "#ifndef M_PI", "#define M_PI 3.14159265358979323846264338327950288", "#endif",
        "#ifndef M_E", "#define M_E 2.71828182845904523536028747135266250", "#endif",
        f"#define DIM {dim}", f"#define M {m}", f"#define KL {lo}", f"#define KU {up}", f"#define W {width}",
        f"#define NS {max(len(hoisted), 1)}", f"#define INVERSE {int(0 < m <= INVERSE_UNKNOWNS)}",
        f"#define LANES {LANES if m <= INVERSE_UNKNOWNS else 1}",
        "#define AB(i, j) ab[(i) * W + (j) - (i) + KL]",
        f"#define REFINE {float(REFINE)!r}", f"#define STALLED {float(STALLED)!r}",
        f"#define REFRESH_RATE {float(REFRESH_RATE)!r}", f"#define STALE_LIMIT {float(STALE_LIMIT)!r}",
        "static void gc_scalars(const double *a, double *s)", "{",
        *[ind + x for x in unpack + scal], "    (void)s;", "}",
    ]
    for name, sig, code in (
            ("gc_guess", "const double *a, const double *s, const double *y, double *u", f_guess),
            ("gc_eqs", "const double *a, const double *s, const double *y, const double *u, double *F", f_eqs),
            ("gc_jac", "const double *a, const double *s, const double *y, const double *u, double *ab", f_jac),
            ("gc_update", "const double *a, const double *s, const double *y, const double *u, double *yn", f_upd)):
        lines += [f"static void {name}({sig})", "{", *[ind + x for x in unpack + unpack_s],
                  *([ind + "memset(ab, 0, sizeof(double) * M * W);"] if name == "gc_jac" else []),
                  *[ind + x for x in code], "    (void)a; (void)s;", "}"]
    lines += _C_SOLVER.splitlines()
    return "\n".join(lines) + "\n"


# the band LU with partial pivoting, its solve, and the run loop with the Newton rule of
# integrators.newton.StageSolver (simplified, then full Newton for a trajectory that needs it)
_C_SOLVER = r"""
static int gc_lu(double *ab, int *piv, double *dinv)
{
    for (int k = 0; k < M; k++) {
        int last = k + KL < M - 1 ? k + KL : M - 1;
        int jmax = k + KL + KU < M - 1 ? k + KL + KU : M - 1;
        int p = k;
        double best = fabs(AB(k, k));
        for (int i = k + 1; i <= last; i++) {
            double v = fabs(AB(i, k));
            if (v > best) { best = v; p = i; }
        }
        piv[k] = p;
        if (!(best > 0.0) || !isfinite(best)) return 1;
        if (p != k)
            for (int j = k; j <= jmax; j++) { double t = AB(k, j); AB(k, j) = AB(p, j); AB(p, j) = t; }
        double inv = 1.0 / AB(k, k);
        dinv[k] = inv;                  /* the solve multiplies: no division in its serial chain */
        for (int i = k + 1; i <= last; i++) {
            double f = AB(i, k) * inv;
            AB(i, k) = f;
            if (f != 0.0)
                for (int j = k + 1; j <= jmax; j++) AB(i, j) -= f * AB(k, j);
        }
    }
    return 0;
}

static void gc_lu_solve(const double *ab, const int *piv, const double *dinv, double *b)
{
    for (int k = 0; k < M; k++) {
        int p = piv[k];
        if (p != k) { double t = b[k]; b[k] = b[p]; b[p] = t; }
        int last = k + KL < M - 1 ? k + KL : M - 1;
        for (int i = k + 1; i <= last; i++) b[i] -= AB(i, k) * b[k];
    }
    for (int i = M - 1; i >= 0; i--) {
        int jmax = i + KL + KU < M - 1 ? i + KL + KU : M - 1;
        double x = b[i];
        for (int j = i + 1; j <= jmax; j++) x -= AB(i, j) * b[j];
        b[i] = x * dinv[i];
    }
}

static double gc_maxabs(const double *v, int n)
{
    /* branch-free: the max of |v_i|, and a NaN when some v_i is not finite (inf * 0 = NaN) */
    double r = 0.0, bad = 0.0;
    for (int i = 0; i < n; i++) { double a = fabs(v[i]); r = a > r ? a : r; bad += v[i] * 0.0; }
    return bad == 0.0 ? r : NAN;
}

/* the factorization used by the iteration: the band LU, or for a small system its explicit inverse
   (a matrix-vector product per iteration, no serial elimination chain; the simplified iteration's
   fixed point does not depend on how J^{-1} is applied, only its speed does) */
static int gc_factor(double *ab, int *piv, double *dinv, double *inv)
{
    if (gc_lu(ab, piv, dinv)) return 1;
#if INVERSE
    for (int j = 0; j < M; j++) {
        double e[M];
        for (int i = 0; i < M; i++) e[i] = i == j ? 1.0 : 0.0;
        gc_lu_solve(ab, piv, dinv, e);
        for (int i = 0; i < M; i++) inv[i * M + j] = e[i];
    }
#else
    (void)inv;
#endif
    return 0;
}

/* d = -J^{-1} F */
static void gc_correction(const double *ab, const int *piv, const double *dinv, const double *inv, const double *F,
                          double *d)
{
#if INVERSE
    (void)ab; (void)piv; (void)dinv;
    for (int i = 0; i < M; i++) {
        double acc = 0.0;
        for (int j = 0; j < M; j++) acc -= inv[i * M + j] * F[j];
        d[i] = acc;
    }
#else
    (void)inv;
    for (int i = 0; i < M; i++) d[i] = -F[i];
    gc_lu_solve(ab, piv, dinv, d);
#endif
}

/* x^k for an integer k >= 0, by squaring (a libm pow call costs more than a small system's iteration) */
static double gc_ipow(double x, long k)
{
    double r = 1.0;
    while (k > 0) {
        if (k & 1) r *= x;
        x *= x;
        k >>= 1;
    }
    return r;
}

/* u += d; returns max |d| (NaN if not finite) and sets *umax = max |u| */
static double gc_add(double *u, const double *d, double *umax)
{
    double r = 0.0, m = 0.0, bad = 0.0;
    for (int i = 0; i < M; i++) {
        double a = fabs(d[i]);
        r = a > r ? a : r;
        bad += d[i] * 0.0;
        double v = u[i] + d[i];
        u[i] = v;
        double b = fabs(v);
        m = b > m ? b : m;
    }
    *umax = m;
    return bad == 0.0 ? r : NAN;
}

/* the starting value of a step from the roots of the previous ones (newest first): the polynomial
   through the last `order` roots, equally spaced in the step index, evaluated one step on */
static const double gc_extrapolation[7][6] = {{0, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0}, {2, -1, 0, 0, 0, 0},
                                               {3, -3, 1, 0, 0, 0}, {4, -6, 4, -1, 0, 0}, {5, -10, 10, -5, 1, 0},
                                               {6, -15, 20, -15, 6, -1}};

/* one trajectory of a group: its state, its factorization, its history of roots, its iteration */
typedef struct {
    double yc[DIM], yn[DIM], g[M], u0[M], u[M], F[M], d[M], dinv[M], ab[M * W], inv[INVERSE ? M * M : 1], hist[6 * M];
    int piv[M + 1];
    int valid, fresh, ok, running, failed, code, have_g, extrapolated;
    long b, nh, k, to_save, fail_step;
    double prev, fail_res;
} gc_lane;

/* one simplified iteration of lane l: 1 converged, -1 diverged (or hopeless), 0 go on */
static int gc_iterate(const double *a, const double *s, gc_lane *l, double tol, long max_iter, long it, long *counts)
{
    gc_eqs(a, s, l->yc, l->u, l->F);
    gc_correction(l->ab, l->piv, l->dinv, l->inv, l->F, l->d);
    counts[0]++;
    double umax;
    double dn = gc_add(l->u, l->d, &umax);
    int finite = isfinite(dn);
    double theta = l->prev > 0.0 ? dn / l->prev : 0.0;
    double eta = theta < 1.0 ? theta / (1.0 - theta) : INFINITY;
    double bound = tol * (1.0 + umax);
    int done = finite && dn <= bound && (eta * dn <= REFINE * bound || theta >= STALLED);
    /* theta^r <= theta for 0 < theta < 1: dn * theta within the bound decides without the power */
    int hopeless = !done && theta > 0.0 && dn > (1.0 - theta) * bound
                   && (theta >= 1.0 || dn * theta > (1.0 - theta) * bound)
                   && dn * gc_ipow(theta, max_iter - it) > (1.0 - theta) * bound;
    int diverged = !done && (!finite || hopeless || theta >= (l->fresh ? 1.0 : STALE_LIMIT));
    if (theta > REFRESH_RATE) l->valid = 0;
    l->prev = dn;
    return done ? 1 : (diverged ? -1 : 0);
}

/* a fresh Jacobian at the start u0, factorized; 0 when singular */
static int gc_refresh(const double *a, const double *s, gc_lane *l, long *counts)
{
    gc_jac(a, s, l->yc, l->u0, l->ab);
    counts[1]++; counts[2]++;
    if (gc_factor(l->ab, l->piv, l->dinv, l->inv)) return 0;
    l->valid = 1; l->fresh = 1;
    return 1;
}

/* the step's start: the map's guess, or the extrapolation of the previous roots when it stays on their branch:
   it moves the root at most twice as far as the last step moved it (max-norms), else it is not used */
static void gc_start(const double *a, const double *s, gc_lane *l, long history, long *counts)
{
    long order = l->nh < history ? l->nh : history;          /* the first steps: fewer points */
    l->have_g = 0;                                           /* the map's guess: only when needed */
    l->extrapolated = 0;
    if (order >= 2) {
        double last = 0.0, move = 0.0;
        for (int i = 0; i < M; i++) {
            double x = 0.0;
            for (long j = 0; j < order; j++) x += gc_extrapolation[order][j] * l->hist[j * M + i];
            double a1 = fabs(l->hist[i] - l->hist[M + i]), a2 = fabs(x - l->hist[i]);
            last = a1 > last ? a1 : last;
            move = a2 > move ? a2 : move;
            l->u0[i] = x;
        }
        if (move <= 2.0 * last) { counts[5]++; l->extrapolated = 1; return; }
        counts[6]++;
    }
    gc_guess(a, s, l->yc, l->g);                             /* the map's own guess: exact at h = 0 */
    l->have_g = 1;
    memcpy(l->u0, l->g, M * sizeof(double));
}

/* the rest of a step whose first simplified attempt failed (or was not made): once more with a fresh
   Jacobian when the first one was stale, once more from the map's guess when the start was extrapolated,
   then full Newton from the map's guess; 0 or a failure code */
static int gc_finish(const double *a, const double *s, gc_lane *l, double tol, long max_iter, long full,
                     long *counts)
{
    if (full != 1 && !l->fresh) {                            /* the stale factorization failed: refreshed */
        l->valid = 0;
        counts[3]++;
        if (gc_refresh(a, s, l, counts)) {
            memcpy(l->u, l->u0, M * sizeof(double));
            l->prev = -1.0;
            for (long it = 1; it <= max_iter; it++) {
                int r = gc_iterate(a, s, l, tol, max_iter, it, counts);
                if (r > 0) return 0;
                if (r < 0) break;
            }
        }
    }
    if (full != 1 && l->extrapolated) {                      /* from the map's guess, refreshed */
        if (!l->have_g) { gc_guess(a, s, l->yc, l->g); l->have_g = 1; }
        memcpy(l->u0, l->g, M * sizeof(double));
        memcpy(l->u, l->u0, M * sizeof(double));
        l->extrapolated = 0;
        l->valid = 0;
        counts[3]++;
        if (gc_refresh(a, s, l, counts)) {
            l->prev = -1.0;
            for (long it = 1; it <= max_iter; it++) {
                int r = gc_iterate(a, s, l, tol, max_iter, it, counts);
                if (r > 0) return 0;
                if (r < 0) break;
            }
        }
    }
    l->valid = 0;
    if (full == 2) {                                         /* "simplified": no fallback */
        gc_eqs(a, s, l->yc, l->u, l->F);                     /* the residual where it stopped */
        l->fail_res = gc_maxabs(l->F, M);
        return 4;
    }
    if (full == 0) counts[4]++;                              /* full Newton from the map's guess */
    if (!l->have_g) gc_guess(a, s, l->yc, l->g);
    memcpy(l->u, l->g, M * sizeof(double));
    double res = 0.0;
    for (long it = 1; it <= max_iter; it++) {
        gc_eqs(a, s, l->yc, l->u, l->F);
        res = gc_maxabs(l->F, M);
        gc_jac(a, s, l->yc, l->u, l->ab);
        counts[0]++; counts[1]++; counts[2]++;
        if (gc_lu(l->ab, l->piv, l->dinv)) { l->fail_res = res; return 2; }
        for (int i = 0; i < M; i++) l->d[i] = -l->F[i];
        gc_lu_solve(l->ab, l->piv, l->dinv, l->d);
        double umax;
        double dn = gc_add(l->u, l->d, &umax);
        if (!isfinite(dn)) { l->fail_res = res; return 2; }
        if (dn <= tol * (1.0 + umax)) return 0;
    }
    l->fail_res = res;
    return 3;
}

/* counts: iterations, jacobians, factorizations, refreshes, fallbacks, extrapolated starts, rejected ones.
   The trajectories run in groups of LANES, step by step together: each keeps its own factorization,
   history and decisions (the results are those of running them one by one), and the CPU overlaps
   the lanes' independent chains of operations. */
int gc_newton_run(const double *a, long n_traj, const double *y_init, long steps, long save_every, double *out,
                  double tol, long max_iter, long full, long history, long *info, double *fail_res, long *counts)
{
    double s[NS];
    gc_scalars(a, s);
    long n_saved = steps / save_every + 1 + (steps % save_every ? 1 : 0);
    if (history < 0) history = 0;
    if (history > 6) history = 6;
    gc_lane *lanes = malloc(sizeof(gc_lane) * LANES);
    if (!lanes) return 1;
    for (long b0 = 0; b0 < n_traj; b0 += LANES) {
        int nl = n_traj - b0 < LANES ? (int)(n_traj - b0) : LANES;
        for (int j = 0; j < nl; j++) {
            gc_lane *l = lanes + j;
            l->b = b0 + j; l->valid = 0; l->nh = 0; l->k = 0; l->to_save = 0; l->failed = 0;
            memcpy(l->yc, y_init + l->b * DIM, DIM * sizeof(double));
        }
        for (long n = 0; ; n++) {
            for (int j = 0; j < nl; j++) {                   /* saved states (no division in the loop) */
                gc_lane *l = lanes + j;
                if (l->to_save == 0 || n == steps) {
                    memcpy(out + (l->b * n_saved + l->k) * DIM, l->yc, DIM * sizeof(double));
                    l->k++;
                    l->to_save = save_every;
                }
                l->to_save--;
            }
            if (n == steps) break;
            int running = 0;
            for (int j = 0; j < nl; j++) {                   /* the first simplified attempt, set up */
                gc_lane *l = lanes + j;
                l->ok = 0; l->running = 0; l->fresh = 0;
                if (l->failed) continue;
                gc_start(a, s, l, history, counts);
                memcpy(l->u, l->u0, M * sizeof(double));
                if (full == 1) continue;
                if (!l->valid && !gc_refresh(a, s, l, counts)) { l->fresh = 1; continue; }  /* singular */
                l->prev = -1.0;
                l->running = 1;
                running++;
            }
            for (long it = 1; it <= max_iter && running; it++) {   /* ... run together */
                for (int j = 0; j < nl; j++) {
                    gc_lane *l = lanes + j;
                    if (!l->running) continue;
                    int r = gc_iterate(a, s, l, tol, max_iter, it, counts);
                    if (r) { l->running = 0; running--; l->ok = r > 0; }
                }
            }
            for (int j = 0; j < nl; j++) {
                gc_lane *l = lanes + j;
                if (l->failed) continue;
                l->running = 0;
                if (!l->ok) {
                    int code = gc_finish(a, s, l, tol, max_iter, full, counts);
                    if (code) { l->failed = 1; l->code = code; l->fail_step = n + 1; continue; }
                }
                if (history) {                               /* the root joins the history */
                    memmove(l->hist + M, l->hist, (history - 1) * M * sizeof(double));
                    memcpy(l->hist, l->u, M * sizeof(double));
                    if (l->nh < history) l->nh++;
                }
                gc_update(a, s, l->yc, l->u, l->yn);
                memcpy(l->yc, l->yn, DIM * sizeof(double));
            }
        }
        for (int j = 0; j < nl; j++) {                       /* the first failing trajectory, as one by one */
            gc_lane *l = lanes + j;
            if (l->failed) {
                info[0] = l->b; info[1] = l->fail_step; *fail_res = l->fail_res;
                int code = l->code;
                free(lanes);
                return code;
            }
        }
    }
    free(lanes);
    return 0;
}
"""


#: the entry points of the loaded libraries, by path
_LIBRARIES = Memo("integrators.compiled_newton.libraries", 64)


def _entry_point(target: str, data: bytes):
    """The Newton loop's entry point in the verified library (loaded once per library)."""
    fn = _LIBRARIES.get(target)
    if fn is not None:
        return fn
    fn = getattr(load_library(target, data), ENTRY)
    dp, lp = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_long)
    fn.argtypes = [dp, ctypes.c_long, dp, ctypes.c_long, ctypes.c_long, dp, ctypes.c_double, ctypes.c_long,
                   ctypes.c_long, ctypes.c_long, lp, dp, lp]
    fn.restype = ctypes.c_int
    _LIBRARIES.put(target, fn)
    return fn


class CompiledNewton:
    """The run loop of an implicit lowered step, Newton's method included, compiled to C.

    Parameters
    ----------
    L : LoweredStep
        An implicit step lowered for numpy (:func:`integrators.lower.lower`).

    Attributes
    ----------
    source : str         the generated C
    library : str        the shared library's path
    linear_solver : str  ``"banded(l,u)"`` (the pattern's band) or ``"dense"`` (a full LU)
    counts : dict        the work of the last :meth:`run` (as :attr:`StageSolver.counts`)
    """

    def __init__(self, L, eliminate=True):
        self.lowered = L
        self.system = compiled_system(L, eliminate)
        self.linear_solver = self.system.linear_solver
        self.source = c_source_newton(L, self.system)
        # the compiled steps' cache, checksums and flags (integrators.compiled)
        self.library, data = build_library(self.source)
        self._fn = _entry_point(self.library, data)
        self.counts = {}

    def run(self, values, Y0, steps, save_every=1, tol=None, max_iter=50, trajectories=None, newton="auto",
            step_offset=0, start="extrapolate"):
        """Run every row of ``Y0`` (``(batch, dim)``); the saved states ``(batch, n_saved, dim)``.

        ``values``: the parameters in ``L.parameters`` order (``h`` first).  ``trajectories``:
        the numbers errors give the rows (default their positions).  ``newton``: ``"auto"`` or
        ``"full"`` as :class:`~integrators.newton.StageSolver`'s modes: ``"auto"`` the simplified
        iteration, full Newton for a trajectory it fails on even with a fresh Jacobian;
        ``"simplified"`` the same without that fallback (the failure is an error); ``"full"``
        full Newton only.  ``step_offset``: added to the step errors name (a run in blocks).
        ``start``: ``"extrapolate"`` (default) each step starts from the extrapolation of the
        trajectory's previous roots where it stays on their branch (see the module docstring),
        ``"guess"`` from the map's guess every step; ``counts["extrapolated"]`` and
        ``counts["rejected"]`` say how many starts were extrapolated and refused.

        Raises
        ------
        NewtonConvergenceError
            Newton's method failed; ``trajectories`` and ``step`` say where.
        """
        L = self.lowered
        check_newton_mode(newton)
        if start not in STARTS:
            raise InvalidArgumentError(f"start must be one of {', '.join(map(repr, STARTS))}, got {start!r}")
        a = np.ascontiguousarray(values, dtype=float)
        if a.shape != (len(L.parameters),):
            raise InvalidArgumentError(f"expected {len(L.parameters)} parameter values for {L.parameters}")
        Y = np.ascontiguousarray(np.atleast_2d(np.asarray(Y0, dtype=float)))
        if Y.ndim != 2 or Y.shape[1] != L.dim:
            raise InvalidArgumentError(f"Y0 must have shape (batch, {L.dim}), got {np.shape(Y0)}")
        steps, save_every, max_iter = int(steps), int(save_every), int(max_iter)
        if steps < 0 or save_every < 1 or max_iter < 1:
            raise InvalidArgumentError(f"steps must be >= 0, save_every and max_iter >= 1; got {steps}, {save_every},"
                                       f" {max_iter}")
        if tol is not None and not (np.isfinite(tol) and tol > 0):
            raise InvalidArgumentError(f"tol must be a positive number, got {tol!r}")
        n_saved = steps // save_every + 1 + (1 if steps % save_every else 0)
        out = np.empty((Y.shape[0], n_saved, L.dim))
        info = np.zeros(2, dtype=np.int_)
        res = np.zeros(1)
        counts = np.zeros(7, dtype=np.int_)
        dp, lp = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_long)
        tol = DEFAULT_TOL if tol is None else float(tol)
        code = self._fn(a.ctypes.data_as(dp), Y.shape[0], Y.ctypes.data_as(dp), steps, save_every,
                        out.ctypes.data_as(dp), tol, int(max_iter), {"auto": 0, "full": 1, "simplified": 2}[newton],
                        EXTRAPOLATION_POINTS if start == "extrapolate" and newton != "full" else 0,
                        info.ctypes.data_as(lp),
                        res.ctypes.data_as(dp), counts.ctypes.data_as(lp))
        self.counts = dict(zip(("iterations", "jacobians", "factorizations", "refreshes", "fallbacks",
                                "extrapolated", "rejected"), (int(c) for c in counts)))
        if code == 1:
            raise MemoryError("the compiled Newton loop could not allocate its buffers")
        if code:
            b, step = int(info[0]), int(info[1]) + int(step_offset)
            name = b if trajectories is None else int(trajectories[b])
            raise NewtonConvergenceError(
                f"Newton's method (compiled) for the implicit stage equations did not converge at step {step} for"
                f" trajectory {name}: {_REASONS[code]} after at most {max_iter} iterations; residual max-norm"
                f" {float(res[0]):.3g}. A smaller step size dt usually helps, or raise max_iter / loosen tol.",
                trajectories=[name], residuals=[float(res[0])], step=step)
        return out


_STEPS = Memo("integrators.compiled_newton.steps", 64)


def compiled_newton(L) -> CompiledNewton:
    """The :class:`CompiledNewton` of the lowered implicit step ``L`` (cached per lowered step)."""
    hit = _STEPS.get(id(L))
    if hit is not None and hit.lowered is L:
        return hit
    C = CompiledNewton(L)
    _STEPS.put(id(L), C)
    return C


# ------------------------------------------------------------------------ the run (for the pipeline)


def compiled_newton_run(stages, parameters, time, values, tol=None, max_iter=50, newton="auto"):
    """A :class:`CompiledNewtonRun` of a one-stage implicit step, for ``integrate(..., backend="compiled")``.

    Raises
    ------
    NotLowerableError
        Not one plain implicit stage, a time-dependent system (the time would have to advance
        inside the loop), a generic map, or a function C does not know.
    CompilerUnavailableError
        No C compiler, or the generated C did not compile.
    """
    import geomcheck as gc

    stages = tuple(stages)
    if len(stages) != 1 or sympy.sympify(stages[0].factor) != 1 or not isinstance(stages[0].map, gc.ImplicitMap):
        raise NotLowerableError("the compiled Newton runs a step made of ONE implicit stage map")
    if time is not None:
        raise NotLowerableError("the compiled Newton runs autonomous steps (no time argument)")
    check_newton_mode(newton)
    L = lower(stages[0].map, parameters=tuple(parameters))
    return CompiledNewtonRun(compiled_newton(L), values, tol, max_iter, newton)


class CompiledNewtonRun:
    """A compiled Newton loop bound to its scalars: ``run`` as :class:`integrators.compiled.CompiledRun`'s.

    With an observer the loop runs in blocks (each block starts with a fresh Jacobian: the
    states agree with an uninterrupted run to the Newton tolerance, not bit for bit).
    """

    def __init__(self, compiled: CompiledNewton, values, tol=None, max_iter=50, newton="auto"):
        self.compiled = compiled
        self.values = [float(v) for v in values]
        self.tol, self.max_iter, self.newton = tol, max_iter, newton
        self.library = compiled.library
        self.totals = dict.fromkeys(("solves", "iterations", "jacobians", "factorizations", "refreshes",
                                     "fallbacks", "extrapolated", "rejected"), 0)

    def _run(self, Y, steps, save_every, first):
        out = self.compiled.run(self.values, Y, steps, save_every, self.tol, self.max_iter,
                                newton=self.newton, step_offset=first)
        for key, v in self.compiled.counts.items():
            self.totals[key] += v
        self.totals["solves"] += steps * Y.shape[0]
        return out

    def newton_record(self):
        """The :class:`~integrators.newton.NewtonRecord` of the runs so far (``linear_solver``: ``"compiled ..."``)."""
        from .newton import NewtonRecord

        from .newton import COUNTS

        return NewtonRecord(self.newton, "newton", **{key: self.totals[key] for key in COUNTS},
                            linear_solver=f"compiled {self.compiled.linear_solver}")

    def run(self, Y, saved_steps, out, watch, bar=None, observer=None) -> None:
        steps = int(saved_steps[-1])
        save_every = int(saved_steps[1]) if len(saved_steps) > 1 else 1
        if observer is None:
            out[:] = np.swapaxes(self._run(np.asarray(Y, dtype=float), steps, save_every, 0), 0, 1)
        else:
            position = {int(n): k for k, n in enumerate(saved_steps)}
            state = np.array(Y, dtype=float)
            first = 0
            while first <= steps:
                m = min(observer.size, steps + 1 - first)
                taken = min(m, steps - first)
                block = np.swapaxes(self._run(state, taken, 1, first), 0, 1)
                observer.add_rows(block[:m], first)
                for j in range(m):
                    k = position.get(first + j)
                    if k is not None:
                        out[k] = block[j]
                state = block[taken]
                first += m
        for k, n in enumerate(saved_steps):
            watch.saved(out[k], int(n))
        if bar is not None:
            bar.update(steps)
