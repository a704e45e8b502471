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
the Jacobian at the guess, factorized, reused over the iterations and the following steps;
convergence when ``max |delta| <= tol (1 + max |u|)`` and the error estimate
``theta / (1 - theta) |delta|`` is below ``REFINE`` times that bound (or the contraction has
stalled at rounding level); a contraction rate above ``REFRESH_RATE`` refreshes the Jacobian
at the next step, a stale factorization contracting slower than ``STALE_LIMIT`` (or
diverging) is replaced at once, and a trajectory on which even a fresh factorization fails
is handed to full Newton (a fresh Jacobian every iteration); ``"simplified"`` and ``"full"``
as there.  On failure :class:`~integrators.errors.NewtonConvergenceError` names the step and
the trajectory: nothing half-solved is returned.  Each trajectory of a batch runs on its own
(its own factorization), one after the other, in one call.

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

from .codegen import CPrinter, hoist_scalars
from .compiled import build_library, load_library
from .errors import NewtonConvergenceError, NotLowerableError
from .newton import DEFAULT_TOL, REFINE, REFRESH_RATE, STALE_LIMIT, STALLED, check_newton_mode
from .stage_sparsity import bandwidths, eliminate_affine_unknowns, pattern_of

__all__ = ["CompiledNewton", "compiled_newton", "compiled_newton_run", "CompiledNewtonRun", "c_source_newton", "CompiledSystem", "compiled_system"]

#: up to this many unknowns the simplified iteration applies an explicit inverse of the factorized Jacobian
INVERSE_UNKNOWNS = 8
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
    update = [sympy.sympify(e).xreplace(S.eliminated) for e in _update_exprs(L)]
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


def _update_exprs(L):
    """The new state as expressions of the coordinates and the unknowns (as ``L.update`` evaluates it)."""
    from .lower import split_implicit

    phi = L.phi
    source = tuple(getattr(phi, "evaluation_equations", None) or phi.equations)
    split = split_implicit(phi, source)
    if split is None:
        return [Y for Y in phi.new]
    return [split[2][Y] for Y in phi.new]


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

/* counts: iterations, jacobians, factorizations, refreshes, fallbacks */
int gc_newton_run(const double *a, long n_traj, const double *y_init, long steps, long save_every, double *out,
                  double tol, long max_iter, long full, long *info, double *fail_res, long *counts)
{
    double s[NS];
    gc_scalars(a, s);
    long n_saved = steps / save_every + 1 + (steps % save_every ? 1 : 0);
    double *buf = malloc(sizeof(double) * (2 * DIM + 5 * M + M * W + (INVERSE ? M * M : 0)));
    int *piv = malloc(sizeof(int) * (M + 1));
    if (!buf || !piv) { free(buf); free(piv); return 1; }
    double *yc = buf, *yn = buf + DIM, *u0 = yn + DIM, *u = u0 + M, *F = u + M, *d = F + M, *dinv = d + M, *ab = dinv + M, *inv = ab + M * W, *sw;
    for (long b = 0; b < n_traj; b++) {
        int valid = 0;
        memcpy(yc, y_init + b * DIM, DIM * sizeof(double));
        long k = 0;
        for (long n = 0; ; n++) {
            if (n % save_every == 0 || n == steps) {
                memcpy(out + (b * n_saved + k) * DIM, yc, DIM * sizeof(double));
                k++;
            }
            if (n == steps) break;
            gc_guess(a, s, yc, u0);
            memcpy(u, u0, M * sizeof(double));
            int ok = 0;
            double res = 0.0;
            for (int attempt = 0; attempt < 2 && !ok && full != 1; attempt++) {
                int fresh = 0;
                if (!valid) {
                    if (attempt) counts[3]++;
                    gc_jac(a, s, yc, u0, ab);
                    counts[1]++; counts[2]++;
                    if (gc_factor(ab, piv, dinv, inv)) break;      /* singular: full Newton decides */
                    valid = 1; fresh = 1;
                }
                memcpy(u, u0, M * sizeof(double));
                double prev = -1.0;
                for (long it = 1; it <= max_iter; it++) {
                    gc_eqs(a, s, yc, u, F);
                    gc_correction(ab, piv, dinv, inv, F, d);
                    counts[0]++;
                    double umax;
                    double dn = gc_add(u, d, &umax);
                    int finite = isfinite(dn);
                    double theta = prev > 0.0 ? dn / prev : 0.0;
                    double eta = theta < 1.0 ? theta / (1.0 - theta) : INFINITY;
                    double bound = tol * (1.0 + umax);
                    int done = finite && dn <= bound && (eta * dn <= REFINE * bound || theta >= STALLED);
                    int hopeless = !done && theta > 0.0 && dn > (1.0 - theta) * bound
                                   && dn * gc_ipow(theta, max_iter - it) > (1.0 - theta) * bound;
                    int diverged = !done && (!finite || hopeless || theta >= (fresh ? 1.0 : STALE_LIMIT));
                    if (theta > REFRESH_RATE) valid = 0;
                    if (done) { ok = 1; break; }
                    if (diverged) break;
                    prev = dn;
                }
                if (!ok) {
                    valid = 0;
                    if (fresh) break;
                }
            }
            if (!ok && full == 2) {                           /* "simplified": no fallback */
                gc_eqs(a, s, yc, u, F);                       /* the residual where it stopped */
                info[0] = b; info[1] = n + 1; *fail_res = gc_maxabs(F, M);
                free(buf); free(piv);
                return 4;
            }
            if (!ok) {                                        /* full Newton from the guess */
                if (full == 0) counts[4]++;
                valid = 0;
                memcpy(u, u0, M * sizeof(double));
                int code = 3;
                for (long it = 1; it <= max_iter; it++) {
                    gc_eqs(a, s, yc, u, F);
                    res = gc_maxabs(F, M);
                    gc_jac(a, s, yc, u, ab);
                    counts[0]++; counts[1]++; counts[2]++;
                    if (gc_lu(ab, piv, dinv)) { code = 2; break; }
                    for (int i = 0; i < M; i++) d[i] = -F[i];
                    gc_lu_solve(ab, piv, dinv, d);
                    double umax;
                    double dn = gc_add(u, d, &umax);
                    if (!isfinite(dn)) { code = 2; break; }
                    if (dn <= tol * (1.0 + umax)) { code = 0; break; }
                }
                if (code) {
                    info[0] = b; info[1] = n + 1; *fail_res = res;
                    free(buf); free(piv);
                    return code;
                }
            }
            gc_update(a, s, yc, u, yn);
            sw = yc; yc = yn; yn = sw;
        }
    }
    free(buf); free(piv);
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
                   ctypes.c_long, lp, dp, lp]
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
            step_offset=0):
        """Run every row of ``Y0`` (``(batch, dim)``); the saved states ``(batch, n_saved, dim)``.

        ``values``: the parameters in ``L.parameters`` order (``h`` first).  ``trajectories``:
        the numbers errors give the rows (default their positions).  ``newton``: ``"auto"`` or
        ``"full"`` as :class:`~integrators.newton.StageSolver`'s modes: ``"auto"`` the simplified
        iteration, full Newton for a trajectory it fails on even with a fresh Jacobian;
        ``"simplified"`` the same without that fallback (the failure is an error); ``"full"``
        full Newton only.  ``step_offset``: added to the step errors name (a run in blocks).

        Raises
        ------
        NewtonConvergenceError
            Newton's method failed; ``trajectories`` and ``step`` say where.
        """
        L = self.lowered
        check_newton_mode(newton)
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
        counts = np.zeros(5, dtype=np.int_)
        dp, lp = ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_long)
        tol = DEFAULT_TOL if tol is None else float(tol)
        code = self._fn(a.ctypes.data_as(dp), Y.shape[0], Y.ctypes.data_as(dp), steps, save_every,
                        out.ctypes.data_as(dp), tol, int(max_iter), {"auto": 0, "full": 1, "simplified": 2}[newton],
                        info.ctypes.data_as(lp),
                        res.ctypes.data_as(dp), counts.ctypes.data_as(lp))
        self.counts = dict(zip(("iterations", "jacobians", "factorizations", "refreshes", "fallbacks"),
                               (int(c) for c in counts)))
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

    from .lower import lower

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
                                     "fallbacks"), 0)

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

        return NewtonRecord(self.newton, "newton", **self.totals,
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
