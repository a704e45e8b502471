r"""Implicit steps that are linear in the state: one factorization per step size, then a matrix per step.

An implicit step map of a *linear* system (the midpoint rule, a Gauss method, a discrete-gradient
scheme of a quadratic energy) has equations linear and homogeneous in the state ``y`` and the
unknowns ``w`` (stage slopes and the new state ``Y``):

    A w + B y = 0,        A, B  depending on h and the constants only.

:func:`linear_implicit_step` reads ``A`` and ``B`` off the symbolic equations of the map -- the
same map that is certified -- after checking that every term is a coefficient free of ``y`` and
``w`` times exactly one of them (otherwise it returns None: the step is not linear, and Newton's
method, :mod:`integrators.newton`, solves it).  Binding the step size and the constants evaluates
the coefficients, factors ``A`` once (LU) and forms the increment matrix ``K`` of the step,

    Y = y + K y,          K = -(A^{-1} C)_{new rows},   C = B + A_{:, new}   (Y = y + delta),

the increment form (the ``1/h`` terms of ``A Y`` and ``B y`` cancel in ``C`` exactly, not in
floating point).  A step is then one matrix product for the whole ensemble.  Newton's method on
the same step evaluates and factors the Jacobian of the stage equations at every iteration of
every step: for two-stage Gauss on the 396-coordinate wave + beam of Komatsu, Terakawa & Yaguchi
(``benchmarks/bench_implicit_step.py``) 792 stage slopes, 627 264 Jacobian entries.

:func:`integrators.integrate` uses this path for single-stage implicit steps of autonomous systems
on the numpy backend (not with ``compensated=True``); the tests hold it against the Newton path.

>>> import sympy, numpy as np, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
>>> L = linear_implicit_step(ig.scheme("implicit-midpoint").step_map(osc))
>>> L.bind([0.5]).step_array(np.array([[1.0, 0.0]]))        # ((1 - 1/16) q - p/2, ...) / (1 + 1/16)
array([[ 0.88235294, -0.47058824]])
>>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
>>> linear_implicit_step(ig.scheme("implicit-midpoint").step_map(pendulum)) is None
True
"""

from __future__ import annotations


import numpy as np
import sympy

from geomcheck.caches import Memo
import geomcheck as gc
from geomcheck.errors import InvalidArgumentError

from .errors import NewtonConvergenceError
from .systems import STEP_SYMBOL

__all__ = ["linear_implicit_step", "LinearImplicitStep", "BoundLinearStep", "EXACT_UNKNOWNS"]

#: up to this many unknowns the step matrix of a linear implicit step is computed exactly over Q
#: and rounded once (:meth:`LinearImplicitStep.step_matrix`)
EXACT_UNKNOWNS = 48
#: from this many coordinates on a step is one BLAS matrix-vector product per trajectory
GEMV_DIM = 32


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
        self._coeffs = coeffs
        self._position = {c: k for k, c in enumerate(coeffs)}
        self._evaluate = sympy.lambdify(self.parameters, coeffs, modules="math", cse=True)

    def bind(self, values, **solver_options) -> "BoundLinearStep":
        """Bind the scalars (a sequence in ``parameters`` order, or a dict); the solver options are not used."""
        if isinstance(values, dict):
            values = [values[s] for s in self.parameters]
        values = [float(v) for v in values]
        if len(values) != len(self.parameters):
            raise InvalidArgumentError(f"expected {len(self.parameters)} parameter values for {self.parameters}")
        return BoundLinearStep(self, values)

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
    """A linear implicit step with its scalars bound: ``Y = y + K y`` (``K`` formed once).

    ``step(components)`` takes and returns a list of ``dim`` arrays of shape ``(batch,)``, like
    :class:`integrators.lower.BoundStep`; ``K`` is the increment matrix (``dim x dim``).
    """

    backend = "numpy"
    #: solved by one factorization per step size, not by Newton's method
    linear = True

    def __init__(self, L: LinearImplicitStep, values):
        from scipy.linalg import LinAlgWarning, lu_factor, lu_solve
        import warnings

        self.lowered = L
        self.values = values
        vals = np.array(L._evaluate(*values), dtype=float).reshape(-1)
        A = np.zeros((L.m, L.m))
        C = np.zeros((L.m, L.dim))
        for (i, k), c in L.A.items():
            A[i, k] = vals[L._position[c]]
        for (i, k), c in L.B.items():
            C[i, k] += vals[L._position[c]]
        for coord, col in enumerate(L._new_column):     # Y = y + delta: A's new columns act on y too
            C[:, coord] += A[:, col]
        with warnings.catch_warnings():
            warnings.simplefilter("error", LinAlgWarning)
            try:
                lu = lu_factor(A, check_finite=True)
                W = lu_solve(lu, -C)
            except (LinAlgWarning, ValueError, np.linalg.LinAlgError):
                W = np.full((L.m, L.dim), np.nan)
        self.K = np.ascontiguousarray(W[L._new_column])
        if not np.isfinite(self.K).all():
            shown = ", ".join(f"{s} = {v:g}" for s, v in zip(L.parameters, values))
            raise NewtonConvergenceError(
                f"the implicit step's linear equations A w + B y = 0 have a singular (or non-finite) matrix A at"
                f" {shown}: the step is not defined there; change the step size dt")

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
