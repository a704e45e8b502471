r"""Implicit steps that are linear in the state: one factorization per step size, then no Newton.

An implicit step map of a *linear* system (the midpoint rule, a Gauss method, a discrete-gradient
scheme of a quadratic energy) has equations linear and homogeneous in the state ``y`` and the
unknowns ``w`` (stage slopes and the new state ``Y``):

    A w + B y = 0,        A, B  depending on h and the constants only.

:func:`linear_implicit_step` reads ``A`` and ``B`` off the symbolic equations of the map -- the
same map that is certified -- after checking that every term is a coefficient free of ``y`` and
``w`` times exactly one of them (otherwise it returns None: the step is not linear, and Newton's
method, :mod:`integrators.newton`, solves it).  In the increment form ``Y = y + delta`` the
equations read ``A w' = -C y`` with ``C = B + A_{:, new}``, whose coefficients are summed
symbolically: the ``1/h`` terms of ``A Y`` and ``B y`` cancel in ``C`` exactly, not in floating
point.  Binding the step size and the constants evaluates the coefficients of ``A`` and ``C``
and factors ``A`` once (LU with partial pivoting); a step is then one of two **forms**:

``"matrix"`` (:class:`BoundLinearStep`)
    the increment matrix ``K = -(A^{-1} C)_{new rows}`` is formed once and a step is
    ``Y = y + K y``, one matrix product per trajectory.  ``K`` is rounded once, and that
    rounding error enters every step alike: over ``n`` steps a linear invariant of the exact
    step (``w.Y = w.y``) drifts by up to ``n`` times ``|w.K y|``, coherently.
``"solve"`` (:class:`BoundLinearSolve`)
    a step solves ``A w' = -C y`` with the factors of ``A`` (two triangular solves) and sets
    ``Y = y + w'_{new}``: backward stable at every step (the computed step is the exact step
    of ``A + dA`` with ``|dA| <= c m eps |L| |U|``, ``dA`` depending on the state), so the
    errors of successive steps do not add up coherently.  Dense, it costs about
    ``(m/dim)^2 + (m/dim)`` matrix products of the state's size; a sparse ``A`` of at least
    ``SPARSE_UNKNOWNS`` unknowns is factored by a sparse LU, whose solve can cost less than the
    dense product ``K y`` (:class:`BoundLinearSolve`).  In mpmath (``bind(..., dps=...)``) this
    is the only form: the coefficients are evaluated at the run's precision (exact rationals
    rounded once) and ``A`` factored by :func:`geomcheck.dense_lu.lu_factor`.

``"auto"`` (:func:`resolve_form`): the solve form in mpmath and, in double precision, for a
one-level scheme (the unknowns are the new state alone, ``m = dim``: a discrete-gradient
scheme) of at least ``GEMV_DIM`` coordinates, where both forms are calls per trajectory; the
matrix form for stage unknowns (``m > dim``: the solve would cost ``(m/dim)^2`` times more
densely) and for small states (one product over the whole ensemble).  The
Komatsu-Terakawa-Yaguchi wave + beam (``casestudies/komatsu2020_wave_beam.py``) is the case:
there ``K``'s rounding parts the contact velocities by 0.7-1.5 of the case study's rounding
budget, the solve form by 0.006 of it.

:func:`integrators.integrate` and :func:`integrators.run_map` use this path for single-stage
implicit steps of autonomous systems (not with ``compensated=True``), in double precision and in
mpmath, and record the form in ``Solution.path_note``; the tests hold it against the Newton path.

>>> import sympy, numpy as np, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
>>> L = linear_implicit_step(ig.scheme("implicit-midpoint").step_map(osc))
>>> L.bind([0.5]).step_array(np.array([[1.0, 0.0]]))        # ((1 - 1/16) q - p/2, ...) / (1 + 1/16)
array([[ 0.88235294, -0.47058824]])
>>> L.bind([0.5], linear_solve="solve").step_array(np.array([[1.0, 0.0]]))
array([[ 0.88235294, -0.47058824]])
>>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
>>> linear_implicit_step(ig.scheme("implicit-midpoint").step_map(pendulum)) is None
True
"""

from __future__ import annotations

import copy
import warnings

import mpmath
import numpy as np
import sympy
from scipy.linalg import LinAlgWarning, lu_factor, lu_solve
from scipy.linalg.lapack import dgetrs as getrs

from geomcheck import dense_lu
from geomcheck.caches import Memo
import geomcheck as gc
from geomcheck.errors import InvalidArgumentError, SingularMatrixError

from .errors import NewtonConvergenceError
from .run_options import LINEAR_SOLVE_FORMS
from .systems import STEP_SYMBOL

__all__ = ["linear_implicit_step", "LinearImplicitStep", "BoundLinearStep", "BoundLinearSolve", "BoundLinearSolveMP",
           "EXACT_UNKNOWNS", "LINEAR_SOLVE_FORMS", "SPARSE_UNKNOWNS", "SPARSE_DENSITY", "resolve_form"]

#: up to this many unknowns the step matrix of a linear implicit step is computed exactly over Q
#: and rounded once (:meth:`LinearImplicitStep.step_matrix`)
EXACT_UNKNOWNS = 48
#: from this many coordinates on a step is one BLAS matrix-vector product per trajectory
GEMV_DIM = 32
#: from this many unknowns on, a sparse ``A`` (at most ``SPARSE_DENSITY`` of its entries nonzero) is solved by a
#: sparse LU (:class:`BoundLinearSolve`): a sparse solve costs a fixed ~15 us per call more than LAPACK's; on
#: the coupled-avf wave + beam the dense solve is the faster at 116 unknowns, the sparse one at 396
SPARSE_UNKNOWNS = 200
SPARSE_DENSITY = 0.05
#: the forms of a bound linear step (see the module docstring)


def resolve_form(form: str, dim: int, m: int, multiprecision: bool = False) -> str:
    """The form a bound linear step takes: ``"matrix"`` or ``"solve"`` (the rule of the module docstring).

    >>> resolve_form("auto", 116, 116), resolve_form("auto", 396, 1188), resolve_form("auto", 16, 16)
    ('solve', 'matrix', 'matrix')
    >>> resolve_form("auto", 2, 4, multiprecision=True), resolve_form("solve", 2, 4)
    ('solve', 'solve')

    Raises
    ------
    InvalidArgumentError
        A form that is not one of ``LINEAR_SOLVE_FORMS``, or ``"matrix"`` in mpmath (there the
        step is always solved).
    """
    if not isinstance(form, str) or form not in LINEAR_SOLVE_FORMS:
        raise InvalidArgumentError(f"linear_solve must be one of {', '.join(map(repr, LINEAR_SOLVE_FORMS))},"
                                   f" got {form!r}")
    if multiprecision:
        if form == "matrix":
            raise InvalidArgumentError("linear_solve='matrix' is a double-precision form; an mpmath run solves"
                                       " A w = -C y at every step (use 'solve' or 'auto')")
        return "solve"
    if form == "auto":
        return "solve" if m == dim and dim >= GEMV_DIM else "matrix"
    return form


def _linear_rows(equations, variables):
    """``[{variable index: coefficient}]`` per equation, or None when some term is not linear and homogeneous."""
    index = {v: k for k, v in enumerate(variables)}
    names = frozenset(variables)
    rows = []
    for e in equations:
        row = {}
        for term in sympy.Add.make_args(sympy.expand(e)):
            if term == 0:
                continue
            var, coeff = None, []
            for f in sympy.Mul.make_args(term):
                if f.free_symbols & names:
                    if var is not None or f not in index:
                        return None        # a product or a power of the unknowns, a function of them
                    var = f
                else:
                    coeff.append(f)
            if var is None:
                return None                # a term free of the unknowns: not homogeneous
            k = index[var]
            row[k] = row.get(k, 0) + sympy.Mul(*coeff)
        rows.append({k: c for k, c in row.items() if c != 0})
    return rows


class LinearImplicitStep:
    """The equations ``A w + B y = 0`` of a linear implicit step, coefficients symbolic in the scalars.

    Build with :func:`linear_implicit_step`.  Attributes: ``phi`` (the map), ``coords``,
    ``unknowns``, ``parameters`` (the scalars bound at run time, ``h`` first), ``dim``, ``m``
    (the number of unknowns), ``explicit`` (False), ``A`` (``{(row, unknown): coefficient}``),
    ``B`` (``{(row, coordinate): coefficient}``).
    """

    explicit = False

    def __init__(self, phi, parameters, A, B):
        self.phi = phi
        self.coords = tuple(phi.source.coords)
        self.unknowns = tuple(phi.unknowns)
        self.dim = len(self.coords)
        self.m = len(self.unknowns)
        self.parameters = tuple(parameters)
        self.A, self.B = A, B
        self._new_column = [self.unknowns.index(Y) for Y in phi.new]
        coeffs = sorted(set(A.values()) | set(B.values()), key=sympy.default_sort_key)
        stray = set().union(*(c.free_symbols for c in coeffs)) - set(self.parameters) if coeffs else set()
        if stray:
            raise InvalidArgumentError(
                f"the linear step's coefficients contain {sorted(map(str, stray))}, which are not among the bound"
                f" parameters {[str(s) for s in self.parameters]}")
        # C = B + A_{:, new}: the increment form's right-hand side, summed symbolically (exact cancellation)
        C = dict(B)
        for coord, col in enumerate(self._new_column):
            for (i, k), c in A.items():
                if k == col:
                    C[(i, coord)] = C.get((i, coord), 0) + c
        self.C = {k: v for k, v in ((k, sympy.sympify(v)) for k, v in C.items()) if v != 0}
        coeffs = sorted(set(A.values()) | set(self.C.values()), key=sympy.default_sort_key)
        self._coeffs = coeffs
        self._position = {c: k for k, c in enumerate(coeffs)}
        self._evaluate = sympy.lambdify(self.parameters, coeffs, modules="math", cse=True)
        self._evaluate_mp = None          # generated at the first mpmath binding
        self.form = "auto"

    def with_form(self, form: str) -> "LinearImplicitStep":
        """This step, bound in ``form`` (``"auto"``, ``"matrix"`` or ``"solve"``; see the module docstring)."""
        resolve_form(form, self.dim, self.m)
        other = copy.copy(self)
        other.form = form
        return other

    def description(self, multiprecision: bool = False) -> str:
        """What a binding of this step does, in words (``Solution.path_note``)."""
        if resolve_form(self.form, self.dim, self.m, multiprecision) == "solve":
            return (f"linear implicit step, solve form: A ({self.m} x {self.m}) LU-factored once, each step one solve"
                    " of A w = -C y" + (" (mpmath, geomcheck.dense_lu)" if multiprecision else ""))
        return "linear implicit step, matrix form: K = -(A^-1 C)_new formed once, each step Y = y + K y"

    def dense_matrices(self, values):
        """``(A, C)`` as float arrays (``m x m``, ``m x dim``) at the scalars ``values`` (``parameters`` order).

        Each distinct coefficient is evaluated once in double precision (an exact rational: the
        quotient of its numerator and denominator, rounded once).
        """
        vals = np.array(self._evaluate(*values), dtype=float).reshape(-1)
        A = np.zeros((self.m, self.m))
        C = np.zeros((self.m, self.dim))
        for (i, k), c in self.A.items():
            A[i, k] = vals[self._position[c]]
        for (i, k), c in self.C.items():
            C[i, k] = vals[self._position[c]]
        return A, C

    def bind(self, values, *, dps=None, linear_solve=None, **solver_options):
        """Bind the scalars (a sequence in ``parameters`` order, or a dict).

        ``dps``: bind in mpmath at that many digits (:class:`BoundLinearSolveMP`), else in double
        precision in the form ``linear_solve`` (default: this step's ``form``): :class:`BoundLinearStep`
        or :class:`BoundLinearSolve`.  Newton's options are not used.
        """
        if isinstance(values, dict):
            values = [values[s] for s in self.parameters]
        values = list(values)
        if len(values) != len(self.parameters):
            raise InvalidArgumentError(f"expected {len(self.parameters)} parameter values for {self.parameters}")
        form = resolve_form(self.form if linear_solve is None else linear_solve, self.dim, self.m, dps is not None)
        if dps is not None:
            return BoundLinearSolveMP(self, values, dps)
        values = [float(v) for v in values]
        return BoundLinearStep(self, values) if form == "matrix" else BoundLinearSolve(self, values)

    def step_matrix(self, values, *, exact_up_to: int = EXACT_UNKNOWNS) -> np.ndarray:
        """The matrix ``M = I + K`` of the step (``Y = M y``) for the scalars ``values``.

        With at most ``exact_up_to`` unknowns and every scalar (and coefficient) rational --
        a float step size is the rational it stores -- ``A W = -C`` is solved exactly over Q and
        every entry of ``M`` is the float64 nearest to its exact value.  Otherwise it is solved
        in float64 by LU with partial pivoting, as the run does (:class:`BoundLinearStep`), and
        the identity added in float64.

        Raises
        ------
        NewtonConvergenceError
            ``A`` is singular at these scalars (the step is not defined for this step size).
        """
        if isinstance(values, dict):
            values = [values[s] for s in self.parameters]
        if len(values) != len(self.parameters):
            raise InvalidArgumentError(f"expected {len(self.parameters)} parameter values for {self.parameters}")
        if self.m <= exact_up_to:
            M = self._exact_step_matrix(values)
            if M is not None:
                return M
        return np.eye(self.dim) + BoundLinearStep(self, [float(v) for v in values]).K

    def _exact_step_matrix(self, values):
        """``I + K`` rounded entry by entry from its exact value, or None when it cannot be computed exactly.

        Exact means over the field the entries generate: Q, or an algebraic extension of Q (the
        Gauss methods' ``sqrt(3)``, ``sqrt(15)``); a float parameter, or an entry that is not
        algebraic, leaves it to floating point.
        """
        from sympy.polys.constructor import construct_domain
        from sympy.polys.matrices import DomainMatrix

        exact = [sympy.Rational(v) if isinstance(v, (float, sympy.Float)) else sympy.sympify(v) for v in values]
        at = dict(zip(self.parameters, exact))
        A = [[sympy.Integer(0)] * self.m for _ in range(self.m)]
        C = [[sympy.Integer(0)] * self.dim for _ in range(self.m)]
        for (i, k), c in self.A.items():
            A[i][k] = sympy.sympify(c).subs(at)
        for (i, k), c in self.B.items():
            C[i][k] += sympy.sympify(c).subs(at)
        for coord, col in enumerate(self._new_column):
            for i in range(self.m):
                C[i][coord] += A[i][col]
        entries = [x for row in A + C for x in row]
        if any(x.free_symbols or x.has(sympy.Float) or not x.is_algebraic for x in entries):
            return None
        try:
            domain, converted = construct_domain(entries, extension=True)
        except (sympy.polys.polyerrors.PolynomialError, NotImplementedError, ValueError):
            return None
        if not (domain.is_QQ or domain.is_ZZ or domain.is_AlgebraicField):
            return None
        if domain.is_ZZ:
            domain, converted = domain.get_field(), [domain.get_field().convert(x, domain) for x in converted]
        Aq = DomainMatrix([converted[r * self.m:(r + 1) * self.m] for r in range(self.m)], (self.m, self.m), domain)
        offset = self.m * self.m
        Cq = -DomainMatrix([converted[offset + r * self.dim:offset + (r + 1) * self.dim] for r in range(self.m)],
                           (self.m, self.dim), domain)
        if Aq.rank() < self.m:
            shown = ", ".join(f"{s} = {v}" for s, v in zip(self.parameters, values))
            raise NewtonConvergenceError(
                f"the implicit step's linear equations A w + B y = 0 have a singular matrix A at {shown}: the step"
                " is not defined there; change the step size dt")
        W = Aq.lu_solve(Cq).to_Matrix()
        return np.array([[_nearest_float(W[col, j] + int(i == j)) for j in range(self.dim)]
                         for i, col in enumerate(self._new_column)])

    def __repr__(self):
        return f"LinearImplicitStep(dim {self.dim}, {self.m} unknowns, {len(self.A)} + {len(self.B)} coefficients)"


def _nearest_float(x) -> float:
    """The float64 nearest to the exact number ``x`` (rational exactly; algebraic from 40 digits)."""
    return float(x) if x.is_Rational else float(sympy.N(x, 40))


class BoundLinearStep:
    """A linear implicit step with its scalars bound, matrix form: ``Y = y + K y`` (``K`` formed once).

    ``step(components)`` takes and returns a list of ``dim`` arrays of shape ``(batch,)``, like
    :class:`integrators.lower.BoundStep`; ``K`` is the increment matrix (``dim x dim``).
    """

    backend = "numpy"
    #: solved by one factorization per step size, not by Newton's method
    linear = True
    form = "matrix"

    def __init__(self, L: LinearImplicitStep, values):
        self.lowered = L
        self.values = values
        A, C = L.dense_matrices(values)
        factors = _factor_or_none(A)
        W = np.full((L.m, L.dim), np.nan) if factors is None else lu_solve(factors, -C, check_finite=False)
        self.K = np.ascontiguousarray(W[L._new_column])
        if not np.isfinite(self.K).all():
            raise _singular_error(L, values)

    def solvers(self) -> list:
        """No stage solver: the linear equations were solved once, when the step was bound."""
        return []

    def step(self, y, step_index=None):
        """One step of the column state: ``dim`` arrays of shape ``(batch,)``, or one ``(dim, batch)`` array.

        The new state comes back as one ``(dim, batch)`` array, whose rows are the columns: a
        list of 396 one-element arrays costs more to build and take apart than the step itself.
        """
        Y = y.T if isinstance(y, np.ndarray) else np.array(y).T       # (batch, dim)
        return self.step_array(Y).T

    def step_array(self, Y):
        """One step of a ``(batch, dim)`` array.

        Each trajectory's product ``K y`` is summed in an order that does not depend on the batch
        size, so an ensemble equals its single runs bit for bit (a BLAS matrix-matrix product
        takes different kernels, and roundings, for one and for many trajectories): ``einsum``
        for small states, one BLAS matrix-vector product per trajectory from ``GEMV_DIM``
        coordinates on, where ``einsum``'s unblocked loop is several times slower.
        """
        Y = np.ascontiguousarray(Y, dtype=float)
        if Y.shape[1] < GEMV_DIM:
            return Y + np.einsum("bj,ij->bi", Y, self.K)
        out = np.empty_like(Y)
        row = np.empty(Y.shape[1])
        for b in range(Y.shape[0]):
            row[:] = Y[b]                       # the same aligned buffer for every trajectory
            np.dot(self.K, row, out=out[b])
        out += Y
        return out


class BoundLinearSolve:
    """A linear implicit step with its scalars bound, solve form (double precision).

    ``A`` is LU-factored once with partial pivoting; a step of each trajectory is one product
    ``r = -C y`` and one pair of triangular solves ``A w = r``, then ``Y = y + w_new``: backward
    stable at every step (module docstring).  Dense (LAPACK ``getrf`` once, ``gemv`` and ``getrs``
    per step) below ``SPARSE_UNKNOWNS`` unknowns or when ``A`` is not sparse; sparse otherwise
    (SuperLU with a COLAMD column order once, its solve and a sparse product per step: for the
    396-coordinate wave + beam the factors have 2 567 entries against 156 816 in the dense ones).
    ``sparse`` (None: by that rule) forces one or the other.  Each trajectory is solved on its own,
    in the same buffers, so an ensemble equals its single runs bit for bit.

    Raises
    ------
    NewtonConvergenceError
        ``A`` is singular (a zero pivot) or not finite at these scalars, naming them.
    """

    backend = "numpy"
    linear = True
    form = "solve"

    def __init__(self, L: LinearImplicitStep, values, sparse: bool | None = None):
        self.lowered = L
        self.values = values
        A, self.C = L.dense_matrices(values)
        if sparse is None:
            sparse = L.m >= SPARSE_UNKNOWNS and np.count_nonzero(A) <= SPARSE_DENSITY * L.m * L.m
        self.sparse = bool(sparse)
        if self.sparse:
            self._factor_sparse(L, A, values)
        else:
            factors = _factor_or_none(A)
            if factors is None:
                raise _singular_error(L, values)
            self.lu, self.piv = factors
        self._new = np.array(L._new_column)
        self._new_is_all = L._new_column == list(range(L.m))     # the unknowns are the new state, in order

    def _factor_sparse(self, L, A, values):
        from scipy.sparse import csc_matrix
        from scipy.sparse.linalg import splu

        if not np.isfinite(A).all():
            raise _singular_error(L, values)
        try:
            self.splu = splu(csc_matrix(A), permc_spec="COLAMD", diag_pivot_thresh=1.0)
        except RuntimeError as exc:                 # SuperLU: "Factor is exactly singular"
            raise _singular_error(L, values, str(exc)) from None
        rows, cols = np.nonzero(self.C)
        self._rows, self._cols, self._vals = rows, cols, -self.C[rows, cols]

    def solvers(self) -> list:
        """No stage solver: the factorization was done once, when the step was bound."""
        return []

    def step(self, y, step_index=None):
        """One step of the column state: ``dim`` arrays of shape ``(batch,)``, or one ``(dim, batch)`` array.

        The new state comes back as one ``(dim, batch)`` array (as :meth:`BoundLinearStep.step`).
        """
        Y = y.T if isinstance(y, np.ndarray) else np.array(y).T
        return self.step_array(Y).T

    def step_array(self, Y):
        """One step of a ``(batch, dim)`` array (one product and one solve per trajectory)."""
        Y = np.ascontiguousarray(Y, dtype=float)
        out = np.empty_like(Y)
        row = np.empty(Y.shape[1])
        m = self.C.shape[0]
        if self.sparse:
            lu, rows, cols, vals = self.splu, self._rows, self._cols, self._vals
            for b in range(Y.shape[0]):
                row[:] = Y[b]
                # -C y, each row summed in column order (bincount adds its weights in order)
                w = lu.solve(np.bincount(rows, weights=vals * row[cols], minlength=m))
                np.add(row, w if self._new_is_all else w[self._new], out=out[b])
            return out
        rhs = np.empty(m)
        lu, piv, C = self.lu, self.piv, self.C
        for b in range(Y.shape[0]):
            row[:] = Y[b]                       # the same aligned buffer for every trajectory
            np.dot(C, row, out=rhs)
            np.negative(rhs, out=rhs)
            w, _ = getrs(lu, piv, rhs)          # A nonsingular (checked when bound): info is 0
            np.add(row, w if self._new_is_all else w[self._new], out=out[b])
        return out


class BoundLinearSolveMP:
    """A linear implicit step with its scalars bound in mpmath at ``dps`` digits (solve form).

    The distinct coefficients of ``A`` and ``C`` are evaluated at ``dps`` digits (an exact
    rational: numerator over denominator, rounded once), ``A`` is factored once by
    :func:`geomcheck.dense_lu.lu_factor` and a step solves ``A w = -C y`` per trajectory
    (:func:`geomcheck.dense_lu.lu_solve`), ``Y = y + w_new``, all at ``dps`` digits.

    Raises
    ------
    NewtonConvergenceError
        ``A`` is singular to working precision at these scalars (from
        :class:`geomcheck.errors.SingularMatrixError`), naming them.
    """

    backend = "mpmath"
    linear = True
    form = "solve"

    def __init__(self, L: LinearImplicitStep, values, dps: int):
        self.lowered, self.values, self.dps = L, values, dps
        if L._evaluate_mp is None:
            L._evaluate_mp = sympy.lambdify(L.parameters, L._coeffs, modules="mpmath", cse=True)
        with mpmath.workdps(dps):
            vals = [mpmath.mpf(v) for v in L._evaluate_mp(*[mpmath.mpf(v) for v in values])]
            A = [[mpmath.mpf(0)] * L.m for _ in range(L.m)]
            for (i, k), c in L.A.items():
                A[i][k] = vals[L._position[c]]
            self.C_rows = [[] for _ in range(L.m)]
            for (i, k), c in sorted(L.C.items()):
                self.C_rows[i].append((k, vals[L._position[c]]))
            try:
                self.LU, self.perm = dense_lu.lu_factor(mpmath.mp, A)
            except SingularMatrixError as exc:
                raise _singular_error(L, values, str(exc)) from exc

    def solvers(self) -> list:
        """No stage solver: the factorization was done once, when the step was bound."""
        return []

    def step(self, y, step_index=None):
        """One step of the column state: ``dim`` lists of ``batch`` mpf; returns the same."""
        L = self.lowered
        batch = len(y[0]) if len(y) else 0
        out = [[None] * batch for _ in range(L.dim)]
        with mpmath.workdps(self.dps):
            for b in range(batch):
                z = [column[b] for column in y]
                rhs = [-mpmath.fdot([(c, z[k]) for k, c in row]) if row else mpmath.mpf(0) for row in self.C_rows]
                w = dense_lu.lu_solve(self.LU, self.perm, rhs)
                for i, col in enumerate(L._new_column):
                    out[i][b] = z[i] + w[col]
        return out

    def step_array(self, Y):
        """One step of a ``(batch, dim)`` array of mpf (dtype object)."""
        new = self.step([list(Y[:, i]) for i in range(Y.shape[1])])
        out = np.empty(Y.shape, dtype=object)
        for i, column in enumerate(new):
            for b, v in enumerate(column):
                out[b, i] = v
        return out


def _factor_or_none(A):
    """scipy's ``(lu, piv)`` of ``A``, or None when ``A`` is singular (a zero pivot) or not finite."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", LinAlgWarning)
        try:
            lu, piv = lu_factor(A, check_finite=True)
        except (LinAlgWarning, ValueError, np.linalg.LinAlgError):
            return None
    return (lu, piv) if np.isfinite(lu).all() and np.all(np.diag(lu) != 0) else None


def _singular_error(L, values, cause=None):
    """The error of a step whose matrix ``A`` is singular at ``values`` (naming the step size and the constants)."""
    shown = ", ".join(f"{s} = {mpmath.nstr(v, 10) if isinstance(v, mpmath.mpf) else format(v, 'g')}"
                      for s, v in zip(L.parameters, values))
    detail = f" ({cause})" if cause else ""
    return NewtonConvergenceError(
        f"the implicit step's linear equations A w + B y = 0 have a singular (or non-finite) matrix A at {shown}"
        f"{detail}: the step is not defined there; change the step size dt")


_CACHE = Memo("integrators.linear_implicit.steps", 32)


def linear_implicit_step(phi, parameters=None):
    """The linear step of the implicit map ``phi``, or None when its equations are not linear.

    Parameters
    ----------
    phi : geomcheck.ImplicitMap of a chart to itself (a scheme's step map)
    parameters : sequence of Symbol, optional
        The scalars bound at run time, ``h`` first (default: ``h`` and the other constant symbols
        of the equations, sorted by name).

    Returns
    -------
    LinearImplicitStep or None
        None for an explicit map, a map between different charts, or equations with a term that is
        not a coefficient (free of the state and the unknowns) times one state coordinate or unknown.
        The answer is cached per map.
    """
    if not isinstance(phi, gc.ImplicitMap) or tuple(phi.source.coords) != tuple(phi.target.coords):
        return None
    key = (id(phi), None if parameters is None else tuple(parameters))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is phi:
        return hit[1]
    coords, unknowns = tuple(phi.source.coords), tuple(phi.unknowns)
    rows = _linear_rows(phi.equations, coords + unknowns)
    result = None
    if rows is not None and len(rows) == len(unknowns):
        if parameters is None:
            syms = set().union(*(c.free_symbols for r in rows for c in r.values())) if rows else set()
            parameters = [STEP_SYMBOL] + sorted(syms - {STEP_SYMBOL}, key=lambda s: s.name)
        n = len(coords)
        A = {(i, k - n): c for i, r in enumerate(rows) for k, c in r.items() if k >= n}
        B = {(i, k): c for i, r in enumerate(rows) for k, c in r.items() if k < n}
        result = LinearImplicitStep(phi, parameters, A, B)
    _CACHE.put(key, (phi, result))
    return result
