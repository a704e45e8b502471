"""Points of a solution manifold: relations in jet form, solved by Newton's method in mpmath.

With relations, the expression is a function on ``{equations == 0}`` whose unknowns are
implicit functions of the other symbols.  At every point the other symbols are drawn,
the equations are solved for the unknowns by Newton's method, and the *derived* unknowns
(``J D + rhs = 0``, e.g. derivatives of the unknowns by the implicit function theorem) are
computed from one factorization of the Jacobian.

From :data:`FLOAT_MIN_UNKNOWNS` unknowns on, a well-conditioned Jacobian is factored in
float64 (:func:`geomcheck.dense_lu.float_factor`) and the answers are brought to the working
precision by residuals computed at that precision: a simplified Newton's method (the
factorization kept while each correction is at most :data:`NEWTON_REFRESH_RATIO` of the one
before) and iterative refinement for the derived unknowns (exact integer residuals,
:func:`geomcheck.dense_lu.refine_solve`).  The stopping rules are those of the
multiprecision path; a Jacobian float64 cannot factor reliably is factored by our own
multiprecision LU with partial pivoting, which refuses it when singular to working precision.

Undefined functions in the equations are replaced by random polynomials (see
:class:`geomcheck.zero.numeric.PolyModel`): inside Newton the arguments of their jets
move, so their values must come from one smooth function.
"""

from __future__ import annotations

import math
from fractions import Fraction

from sympy.core.function import AppliedUndef, Derivative, Subs
import sympy

from ..calculus import diff
from ..dense_lu import (ExactMatrix, float_factor, lu_determinant, lu_factor, lu_solve, refine_solve,
                        solve_equilibrated)
from ..errors import ImplicitMapError, SingularMatrixError
from ..newton_iteration import Correction, DigitsStep, newton_solve
from .budget import check_deadline
from .jets import to_jets
from .numeric import LOG2_10, BadPoint, Evaluator, PolyModel, context, to_ctx
from .program import JET
from .sampling import jet_fraction

__all__ = ["PreparedRelations", "prepare_relations", "NumericProblem", "NEWTON_STARTS", "POLY_MAX_TERMS",
           "FloatRefreshedJacobian", "multiprecision_correction"]

#: Newton iterations per solve (quadratic convergence needs ~6 from a good guess).
NEWTON_MAX_ITER = 60
#: the simplified Newton's method keeps a factored Jacobian while each correction is at most this
#: fraction of the one before (3 digits gained per residual evaluation), else refactors
NEWTON_REFRESH_RATIO = 1e-3
#: the fewest unknowns for which linear systems are factored in float64 and refined (below, the
#: multiprecision LU is cheaper than numpy's overhead)
FLOAT_MIN_UNKNOWNS = 8
#: a solve that starts this close (relative) to where the last one ended starts with its factorization
NEWTON_REUSE_DISTANCE = 1e-12
#: a small correction from a Jacobian of an earlier iterate ends the iteration only when it is at
#: most this fraction of the one before (a contraction: the error left is below the correction)
NEWTON_ACCEPT_RATIO = 0.25
#: Newton starts per point: the guess, then the guess moved at random (a guess on a
#: fold of the relation, such as y = 0 for x**2 + y**2 = 1, has a singular Jacobian).
NEWTON_STARTS = 3
#: a random polynomial standing for an undefined function has at most this many terms.
POLY_MAX_TERMS = 2000
#: fractions of the drawn step sizes along which a solution is continued from small ones
CONTINUATION_STEPS = (Fraction(1, 16), Fraction(1, 8), Fraction(1, 4), Fraction(3, 8), Fraction(1, 2),
                      Fraction(5, 8), Fraction(3, 4), Fraction(7, 8), Fraction(1))


#: steps of the continuation that checks, before a counterexample is reported, that the
#: solution used lies on the branch that starts at the guess (and twice as many)
CONTINUATION_CHECK_STEPS = 8
#: the fewest digits at which the intermediate steps of that continuation are solved
CONTINUATION_MIN_DPS = 20


def multiprecision_correction(ctx, J, F):
    """The Newton correction ``-J^-1 F`` in multiprecision (:class:`SingularMatrixError` on a singular ``J``).

    Equilibrated (an equation or an unknown of size 1e-40 is not a singular Jacobian); with more
    (consistent) equations than unknowns, Gauss-Newton, which converges quadratically on a
    zero-residual system.
    """
    try:
        if len(F) == len(J[0]):
            return solve_equilibrated(ctx, J, [-f for f in F])
        Jm = ctx.matrix(J)
        return ctx.lu_solve(Jm.T * Jm, -(Jm.T * ctx.matrix(F)))
    except ZeroDivisionError:
        raise SingularMatrixError("a singular Jacobian of the relations") from None


class FloatRefreshedJacobian(Correction):
    """The zero test's linear algebra for Newton's method (a :class:`~geomcheck.newton_iteration.Correction`).

    A Jacobian evaluated at an iterate is factored in float64 (``square``: only for as many
    equations as unknowns, :data:`FLOAT_MIN_UNKNOWNS` or more;
    :func:`~geomcheck.dense_lu.float_factor`, which declines an ill-conditioned or complex
    matrix) and kept while the iteration contracts by :data:`NEWTON_REFRESH_RATIO` or better;
    after half of :data:`NEWTON_MAX_ITER` iterations a fresh Jacobian at every iterate.  A
    Jacobian float64 declines, and a residual it cannot solve with (complex, non-finite), take
    the multiprecision correction (:func:`multiprecision_correction`).  ``factor``: the float
    factor in use (the one the solve ended with, for the next solve to start from).
    """

    def __init__(self, ctx, factor, square):
        self.ctx, self.factor, self.square = ctx, factor, square
        self.fresh = False

    def wants_jacobian(self, iteration):
        if iteration > NEWTON_MAX_ITER // 2:
            self.factor = None  # slow going: Newton's method proper (a Jacobian at every iterate)
        self.fresh = self.factor is None
        return self.fresh

    def solve(self, F, J, jacobian_here):
        ctx = self.ctx
        if self.fresh:
            if self.square:
                self.factor = float_factor(ctx, J)
            if self.factor is None:
                return multiprecision_correction(ctx, J, F)
        delta = self.factor.solve(ctx, [-f for f in F])
        if delta is None:  # a complex or non-finite residual: the multiprecision step
            delta = multiprecision_correction(ctx, J if self.fresh else jacobian_here(), F)
            self.factor = None
        return delta

    def contracted(self, theta):
        if theta is not None and theta > NEWTON_REFRESH_RATIO or not self.square:
            self.factor = None


class PreparedRelations:
    """The relations of one decision in jet form, merged, with their Jacobian and guesses."""

    def __init__(self, unknowns, equations, jacobian, guesses, small, derived=()):
        self.unknowns = unknowns
        self.equations = equations
        self.jacobian = jacobian
        self.guesses = guesses
        self.small = small
        # per relation with derived unknowns: (its Jacobian, its unknowns, [(symbols, rhs)])
        self.derived = derived

    @property
    def derived_symbols(self):
        return tuple(x for _jac, _u, columns in self.derived for symbols, _ in columns for x in symbols)


def prepare_relations(rels, memo, deadline) -> PreparedRelations:
    def conv(e):
        return to_jets(e, memo, deadline) if e.has(AppliedUndef, Derivative, Subs) else e

    # Relations are merged: a composite map's relation repeats the equations of its
    # factors, so shared unknowns with repeated equations are one system.
    unknowns, eqs, guesses, small = [], [], [], set()
    for r in rels:
        for u in r.unknowns:
            if u not in unknowns:
                unknowns.append(u)
                guesses.append(conv(r.guess[u]))
        for e in r.equations:
            ce = conv(e)
            if ce not in eqs and -ce not in eqs:
                eqs.append(ce)
        small.update(r.small)
    if len(eqs) < len(unknowns):
        raise ImplicitMapError(
            f"the relations give {len(eqs)} distinct equations for the {len(unknowns)} unknowns "
            f"{[str(u) for u in unknowns]}; they do not determine them"
        )
    jac = []
    for e in eqs:
        check_deadline(deadline)
        jac.append(_gradient(e, unknowns))
    derived = []
    for r in rels:
        if not r.derived:
            continue
        rjac = []
        for e in r.equations:
            check_deadline(deadline)
            rjac.append(_gradient(conv(e), r.unknowns))
        columns = [(symbols, [conv(x) for x in rhs]) for symbols, rhs in r.derived]
        derived.append((rjac, r.unknowns, columns))
    return PreparedRelations(tuple(unknowns), eqs, jac, guesses, small, tuple(derived))


def _gradient(e, unknowns):
    """``[de/du for u in unknowns]``, differentiating only by the unknowns ``e`` contains."""
    present = e.free_symbols
    # geomcheck's derivative: the arguments of undefined functions are read once, not per unknown
    return [diff(e, u) if u in present else sympy.S.Zero for u in unknowns]


class PointValues:
    """The values of one evaluation: node lists, the unknowns' solution, and the precision."""

    __slots__ = ("vals", "errs", "flags", "state", "dps")

    def __init__(self, vals, errs, flags, state, dps):
        self.vals, self.errs, self.flags, self.state, self.dps = vals, errs, flags, state, dps


class NumericProblem:
    """The program, its evaluator and (when there are relations) how to solve them at a point.

    Parameters
    ----------
    prog : Program
    roots : list of int
        The nodes to decide.
    rel : PreparedRelations or None
    seed : int
    deadline : float or None
    """

    def __init__(self, prog, roots, rel, seed, deadline):
        self.prog = prog
        self.rel = rel
        self.seed = seed
        self.deadline = deadline
        self.order = prog.reachable(roots)
        self.degrees = {}
        self._last_factor = None  # (float factor, where the last Newton solve ended)
        if rel is None:
            self.ev = Evaluator(prog, seed, deadline)
            return
        self.eq_roots = [prog.add(e, deadline) for e in rel.equations]
        self.jac_roots = [[prog.add(x, deadline) for x in row] for row in rel.jacobian]
        self.guess_roots = [prog.add(g, deadline) for g in rel.guesses]
        for u in rel.unknowns:
            prog.add(u)
        self.order_eq = prog.reachable(self.eq_roots + [x for row in self.jac_roots for x in row])
        # the residual alone: the steps of the simplified Newton's method that reuse a factorization
        self.order_residual = prog.reachable(self.eq_roots)
        self.order_guess = prog.reachable(self.guess_roots)
        self.derived, derived_roots = self._compile_derived(deadline)
        # the jets of the equations, and the derivative orders the polynomial model must carry;
        # derived unknowns are computed from derivatives of the equations (one order more),
        # whose jets must come from the same polynomials wherever they occur
        eq_jets = set()
        maxorder = {}
        for i in prog.reachable(self.eq_roots + derived_roots):
            op, data, _args = prog.nodes[i]
            if op == JET:
                name, index, _ = data
                eq_jets.add((name, index))
                k = len(index)
                maxorder[(name, k)] = max(maxorder.get((name, k), 0), sum(index))
        for i in self.order_eq + self.order_guess:
            op, data, _args = prog.nodes[i]
            if op == JET:
                maxorder.setdefault((data[0], len(data[1])), 0)
        for (name, k), r in maxorder.items():
            D = r + 3
            while D > r + 1 and math.comb(D + k, k) > POLY_MAX_TERMS:
                D -= 1
            self.degrees[(name, k)] = D
        poly = PolyModel(seed, self.degrees) if self.degrees else None
        self.ev = Evaluator(prog, seed, deadline, poly, eq_jets)
        self.unknown_nodes = [prog.symbols[u] for u in rel.unknowns]

    @property
    def all_nodes(self):
        """Every node an evaluation touches (the analysis of branches looks at all of them)."""
        if self.rel is None:
            return self.order
        extra = set(self.order_eq) | set(self.order_guess)
        for _jr, jorder, levels in self.derived:
            extra.update(jorder)
            for order, _cols in levels:
                extra.update(order)
        return sorted(set(self.order) | extra)

    def _compile_derived(self, deadline):
        """Nodes of the derived unknowns' linear systems, grouped by evaluation level.

        Returns ``(blocks, roots)``; a block is ``(jacobian node rows, jacobian order,
        levels)`` and a level ``(order, [(symbol nodes, rhs nodes)])``: the columns of a
        level refer only to derived symbols of earlier levels.
        """
        prog, rel = self.prog, self.rel
        blocks, roots = [], []
        for rjac, unknowns, columns in rel.derived:
            for u in unknowns:
                prog.add(u)
            jr = [[prog.add(x, deadline) for x in row] for row in rjac]
            level_of = {}
            grouped = {}
            for symbols, rhs in columns:
                refs = set().union(*(r.free_symbols for r in rhs))
                lev = 1 + max((level_of[x] for x in refs if x in level_of), default=-1)
                for x in symbols:
                    level_of[x] = lev
                grouped.setdefault(lev, []).append(
                    ([prog.add(x) for x in symbols], [prog.add(r, deadline) for r in rhs]))
            levels = []
            for lev in sorted(grouped):
                cols = grouped[lev]
                rhs_nodes = [r for _, rhs in cols for r in rhs]
                roots.extend(rhs_nodes)
                levels.append((prog.reachable(rhs_nodes), cols))
            flat = [x for row in jr for x in row]
            roots.extend(flat)
            blocks.append((jr, prog.reachable(flat), levels))
        return blocks, roots

    # -- evaluation at a point
    def symvals(self, ctx, base):
        return {i: to_ctx(ctx, base[s]) for s, i in self.prog.symbols.items() if s in base}

    def evaluate(self, base, dps, j=0, start=None, order=None) -> PointValues:
        """The nodes of ``order`` (default: the roots' DAG) at the point ``base``, at ``dps`` digits.

        With relations, Newton starts from ``start`` (a lower-precision solution) or from
        the guesses.
        """
        ctx = context(dps)
        symv = self.symvals(ctx, base)
        symerrs = {}
        state = None
        if self.rel is not None:
            if start is not None:
                state = self._newton(ctx, symv, [ctx.convert(x) for x in start])
            else:
                state = self._solve_from_guess(ctx, symv, j)
            symv.update(zip(self.unknown_nodes, state))
            tol = -0.9 * ctx.prec
            for node, x in zip(self.unknown_nodes, state):
                symerrs[node] = (ctx.mag(x) if x else 0) + tol
            self._solve_derived(ctx, symv, symerrs)
        vals, errs, flags = self.ev.run(ctx, self.order if order is None else order, symv, symerrs)
        return PointValues(vals, errs, flags, state, dps)

    def _guess(self, ctx, symv):
        with self.ev.polynomial_jets() as ev:
            gv = ev.run_values(ctx, self.order_guess, symv)
        return [gv[g] for g in self.guess_roots]

    def _solve_from_guess(self, ctx, symv, j):
        guess = self._guess(ctx, symv)
        for attempt in range(NEWTON_STARTS):
            start = guess
            if attempt:
                start = [g + to_ctx(ctx, jet_fraction(self.seed, "newton", j, attempt, k)) / 4 * (1 + abs(g))
                         for k, g in enumerate(guess)]
            try:
                return self._newton(ctx, symv, start)
            except BadPoint:
                pass
        return self._continuation(ctx, symv)

    def _continuation(self, ctx, symv):
        """Follow the solution from small step sizes up to the drawn ones (a larger step
        size makes a defect of high order in it visible: h**120 at h = 1/2, not 1/20)."""
        small_nodes = [self.prog.symbols[s] for s in self.rel.small if s in self.prog.symbols]
        if not small_nodes:
            raise BadPoint("Newton's method did not converge on the relations")
        state = None
        for t in CONTINUATION_STEPS:
            sv = dict(symv)
            for node in small_nodes:
                sv[node] = symv[node] * t.numerator / t.denominator
            start = self._guess(ctx, sv) if state is None else state
            state = self._newton(ctx, sv, start)
        return state

    def continued_solution(self, base, dps, fine=CONTINUATION_CHECK_STEPS):
        """The solution at ``base`` on the branch that starts at the guess as the small symbols
        (the step sizes) go to 0: followed along ``fine`` equal steps and again along twice as
        many, which must end at the same solution (else a fold or a near-crossing of branches
        lies on the way).  None when the relations have no small symbol (no branch to follow).

        Raises
        ------
        BadPoint
            Newton's method fails on the way, or the two ladders end on different solutions.
        """
        ctx = context(dps)
        symv = self.symvals(ctx, base)
        small_nodes = [self.prog.symbols[s] for s in self.rel.small if s in self.prog.symbols]
        if not small_nodes:
            return None
        # the rungs only give Newton's method its starts: they are solved (by the same method, to
        # their own precision) at half the digits, and the solution at the last rung is then
        # refined at the full digits
        low = context(max(CONTINUATION_MIN_DPS, dps // 2))
        symv_low = self.symvals(low, base)
        ends = []
        for n in (fine, 2 * fine):
            path = []
            for k in range(1, n + 1):
                sv = dict(symv_low)
                for node in small_nodes:
                    sv[node] = symv_low[node] * k / n
                if not path:
                    start = self._guess(low, sv)
                elif len(path) == 1:
                    start = path[-1]
                else:
                    # predictor along the equal steps: the line (the parabola) through the last two
                    # (three) solutions -- Newton's method starts O(step**2) (O(step**3)) from the branch
                    start = ([2 * a - b for a, b in zip(path[-1], path[-2])] if len(path) == 2 else
                             [3 * (a - b) + c for a, b, c in zip(path[-1], path[-2], path[-3])])
                path.append(self._newton(low, sv, start))
            ends.append(self._newton(ctx, dict(symv), [ctx.convert(a) for a in path[-1]]))
        gap = max(abs(a - b) / (1 + abs(a)) for a, b in zip(*ends))
        if gap and ctx.mag(gap) > -ctx.prec // 3:
            raise BadPoint("the branch of solutions cannot be followed from small step sizes to this point")
        return ends[1]

    def _newton(self, ctx, symv, start):
        """Solve the relations for the unknowns at the precision of ``ctx``.

        The project's Newton iteration (:func:`geomcheck.newton_iteration.newton_solve`) with the
        zero test's rule (:class:`~geomcheck.newton_iteration.DigitsStep`: the correction below
        ``0.9 dps`` digits, one from a Jacobian of an earlier iterate only while the iteration
        contracts) and a simplified Newton's method (:class:`FloatRefreshedJacobian`): the
        Jacobian, evaluated at an iterate, is factored in float64 and reused while each correction
        is at most :data:`NEWTON_REFRESH_RATIO` times the one before; the residual is always
        evaluated at the full precision of ``ctx``, so the corrections -- and the stopping test on
        them -- are those of the full-precision equations.  A Jacobian too ill-conditioned for
        float64 (or complex) is solved with the multiprecision LU instead: a Jacobian singular to
        working precision still makes the point bad.
        """
        # float factorizations pay from FLOAT_MIN_UNKNOWNS unknowns on (numpy's overhead against a
        # small multiprecision LU); below, and for more equations than unknowns, Newton's method proper
        square = len(self.eq_roots) == len(start) >= FLOAT_MIN_UNKNOWNS
        # float factor of the Jacobian at an earlier iterate (of this solve, or of the last one
        # when it ended where this one starts: a refinement at more digits)
        correction = FloatRefreshedJacobian(ctx, self._factor_near(start) if square else None, square)
        rule = DigitsStep(0.9 * ctx.dps * LOG2_10, NEWTON_ACCEPT_RATIO)
        with self.ev.polynomial_jets() as ev:
            def equations(u, jacobian):
                sv = dict(symv)
                sv.update(zip(self.unknown_nodes, u))
                vals = ev.run_values(ctx, self.order_eq if jacobian else self.order_residual, sv)
                J = [[vals[x] for x in row] for row in self.jac_roots] if jacobian else None
                return [vals[r] for r in self.eq_roots], J

            out = newton_solve(ctx, equations, start, rule, correction, NEWTON_MAX_ITER)
        if out.solution is None:
            if out.reason == "a singular Jacobian":
                raise BadPoint("a singular Jacobian of the relations")
            if out.reason == "no convergence":
                raise BadPoint("Newton's method did not converge on the relations")
            raise BadPoint(f"Newton's method met {out.reason} on the relations")
        factor = correction.factor
        self._last_factor = (factor, [float(x.real) if isinstance(x, ctx.mpc) else float(x)
                                      for x in out.solution]) if factor is not None else None
        return out.solution

    def _factor_near(self, u):
        """The float factor the last solve ended with, when ``u`` is within ``NEWTON_REUSE_DISTANCE``
        (relative) of where it ended; else None."""
        if self._last_factor is None:
            return None
        factor, end = self._last_factor
        if len(end) != len(u):
            return None
        for a, b in zip(u, end):
            a = float(a.real) if hasattr(a, "imag") and a.imag else float(a)
            if abs(a - b) > NEWTON_REUSE_DISTANCE * (1 + abs(b)):
                return None
        return factor

    def _solve_derived(self, ctx, symv, symerrs):
        """Set the derived unknowns: one LU of each relation's Jacobian, many columns."""
        if not self.derived:
            return
        tol = -0.7 * ctx.prec
        with self.ev.polynomial_jets() as ev:
            for jr, jorder, levels in self.derived:
                vals = ev.run_values(ctx, jorder, symv)
                J = [[vals[x] for x in row] for row in jr]
                solve = self._derived_solver(ctx, J)
                for order, cols in levels:
                    vals = ev.run_values(ctx, order, symv)
                    for sym_nodes, rhs_nodes in cols:
                        sol = solve([-vals[r] for r in rhs_nodes])
                        symv.update(zip(sym_nodes, sol))
                        for node, x in zip(sym_nodes, sol):
                            symerrs[node] = (ctx.mag(x) if x else 0) + tol

    @staticmethod
    def _derived_solver(ctx, J):
        """A function solving ``J x = b`` at the precision of ``ctx``: iterative refinement on a
        float64 factorization when ``J`` is well conditioned (:func:`~geomcheck.dense_lu.float_factor`:
        the multiprecision LU would not refuse it), else the multiprecision LU (BadPoint when
        ``J`` is singular to working precision, as before)."""
        factor = float_factor(ctx, J) if len(J) >= FLOAT_MIN_UNKNOWNS and len(J) == len(J[0]) else None
        if factor is not None:
            try:
                exact = ExactMatrix(J)
            except ValueError:
                factor = None
        mp_lu = []

        def by_lu(b):
            if not mp_lu:
                try:
                    mp_lu.append(lu_factor(ctx, J))
                except SingularMatrixError:
                    raise BadPoint("a singular Jacobian of the relations") from None
            return lu_solve(*mp_lu[0], b)

        if factor is None:
            return by_lu

        def by_refinement(b):
            try:
                x = refine_solve(ctx, exact, factor, b)
            except ValueError:  # a complex or non-finite right-hand side
                x = None
            return by_lu(b) if x is None else x

        return by_refinement

    def jacobian_at(self, ctx, symv):
        """The Jacobian of the equations (polynomial model for every jet) at ``symv``."""
        with self.ev.polynomial_jets() as ev:
            vals = ev.run_values(ctx, self.order_eq, symv)
        return [[vals[x] for x in row] for row in self.jac_roots]


__all__ += ["PointValues", "lu_determinant"]
