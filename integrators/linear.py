r"""Linear step maps as matrices: long runs of a linear system at matrix-vector speed.

When a scheme's symbolic step map for a system is linear and homogeneous in the state
(a linear system such as a semi-discretized beam, with any explicit scheme), one step is
``y -> M y``.  :func:`step_matrix` obtains ``M`` from the SAME symbolic step map that is
certified, lowered (:mod:`integrators.lower`) and applied to the unit vectors; it first
checks symbolically that the map is linear and homogeneous (so ``M`` *is* the step).
:func:`propagate` then runs ``y_{n+1} = M y_n`` for a whole ensemble.  The generated
per-coordinate kernel and the matrix agree to rounding (the tests hold them together at
random points); the matrix is much faster when the state has ~100 coordinates
(measured: ~1 ms per step for the generated kernel on the 104-coordinate beam, a few
microseconds for the matrix).

>>> import sympy, numpy as np, integrators as ig
>>> from integrators.linear import step_matrix, propagate
>>> q, p = sympy.symbols("q p")
>>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
>>> M = step_matrix("stormer-verlet", osc, 0.1)
>>> M.round(4)
array([[ 0.995 ,  0.1   ],
       [-0.0998,  0.995 ]])
>>> ys = propagate(M, [1.0, 0.0], steps=4, save_every=2)
>>> ys.shape
(3, 2)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

from geomcheck.caches import Memo
from geomcheck import Map
from geomcheck.errors import ExpressionError, InvalidArgumentError, ShapeError

from .catalog import scheme as _scheme_by_name
from .errors import NotLowerableError
from .linear_implicit import linear_implicit_step
from .run_options import check_count, check_dt, parameter_values
from .staged import lower_stages
from .systems import STEP_SYMBOL

__all__ = ["is_linear_map", "step_matrix", "propagate", "LinearStep", "lower_linear_scheme"]


def _linear_term(term, coords) -> bool:
    """A product with exactly one factor that is a coordinate (to the first power)."""
    degree = 0
    for f in sympy.Mul.make_args(term):
        if f in coords:
            degree += 1
        elif f.free_symbols & coords:
            return False        # a power, a function of a coordinate, ...
    return degree == 1


_CHECKED = Memo("integrators.linear.checked", 1024)


def is_linear_map(phi) -> bool:
    """True iff every component of the explicit map ``phi`` is linear and homogeneous in its
    source coordinates (exact: after expansion every term is a constant times one coordinate).

    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("x y"); x, y = M.coords; h = sympy.Symbol("h")
    >>> is_linear_map(gc.Map(M, M, [x + h * y, y])), is_linear_map(gc.Map(M, M, [x + h * y**2, y]))
    (True, False)
    >>> is_linear_map(gc.Map(M, M, [x + 1, y])), is_linear_map(gc.Map(M, M, [sympy.sin(x), y]))
    (False, False)
    """
    if not isinstance(phi, Map):
        return False
    hit = _CHECKED.get(id(phi))
    if hit is not None and hit[0] is phi:
        return hit[1]
    coords = frozenset(phi.source.coords)
    result = all(_linear_term(t, coords) for e in phi.exprs for t in sympy.Add.make_args(sympy.expand(e)) if t != 0)
    _CHECKED.put(id(phi), (phi, result))   # maps are immutable; the entry keeps phi alive
    return result


def step_matrix(scheme, system, dt, params=None) -> np.ndarray:
    """The matrix ``M`` of a linear step: ``step(y) = M y`` (float64, ``dim x dim``).

    Explicit stages are lowered and applied to the unit vectors.  Implicit stages whose
    equations are linear and homogeneous in the state and the unknowns (any implicit
    Runge-Kutta or discrete-gradient scheme of a linear system) are solved for their
    matrix once (:meth:`integrators.linear_implicit.LinearImplicitStep.step_matrix`:
    exactly over Q and rounded once when the step size and the constants are rational and
    the stage has at most ``EXACT_UNKNOWNS`` unknowns, by LU in float64 otherwise).  A
    composition's matrix is the product of its stages' matrices.

    Parameters
    ----------
    scheme : str or Scheme
    system : a system the scheme applies to, whose step map is linear and homogeneous
    dt : positive number
    params : dict, optional
        Values of the system's constants (as for :func:`integrators.integrate`).

    Raises
    ------
    NotLowerableError
        The step map is not linear and homogeneous in the state (use ``integrate``).
    NewtonConvergenceError
        An implicit stage's linear equations are singular at this step size.

    Examples
    --------
    The implicit midpoint rule on the harmonic oscillator is the Cayley transform of
    ``h J``: rotation by ``2 atan(h/2)``, exactly.

    >>> import sympy, numpy as np, integrators as ig
    >>> q, p = sympy.symbols("q p")
    >>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
    >>> M = step_matrix("implicit-midpoint", osc, 0.5)
    >>> M * 17          # ((1 - 1/16) q + p/2, -q/2 + (1 - 1/16) p) / (1 + 1/16)
    array([[15.,  8.],
           [-8., 15.]])
    """
    s = _scheme_by_name(scheme)
    stages = s.stages(system)
    dt_value = check_dt(dt, "numpy", None)
    values = parameter_values(system, params)
    scalars = [STEP_SYMBOL, *system.parameters]
    float_values = [float(sympy.N(values[k])) for k in system.parameters]
    if all(is_linear_map(st.map) for st in stages):
        bound = lower_stages(stages, backend="numpy", parameters=scalars).bind([dt_value] + float_values)
        # the images of the unit vectors are the columns of M
        return bound.step_array(np.eye(system.dim)).T.copy()
    M = np.eye(system.dim)
    for st in stages:
        M = _stage_matrix(st, s, system, scalars, dt_value, values, float_values) @ M
    return M


def _stage_matrix(stage, s, system, scalars, dt_value, values, float_values):
    """The matrix of one stage (explicit and linear, or implicit with linear equations)."""
    if is_linear_map(stage.map):
        bound = lower_stages([stage], backend="numpy", parameters=scalars).bind([dt_value] + float_values)
        return bound.step_array(np.eye(system.dim)).T
    linear = linear_implicit_step(stage.map, parameters=scalars)
    if linear is None:
        raise NotLowerableError(
            f"the step map of {s.name} on {system!r} is not linear and homogeneous in the state"
            f" ({', '.join(map(str, system.coords[:4]))}...); it has no step matrix: use integrators.integrate")
    h = sympy.Rational(dt_value) * sympy.sympify(stage.factor)
    return linear.step_matrix([h] + [values[k] for k in system.parameters])


def propagate(M, y0, steps, save_every=1, observe=None, chunk=4096):
    """Run ``y_{n+1} = M y_n`` and return the states (or observations) every ``save_every`` steps.

    Parameters
    ----------
    M : ndarray (dim, dim)
    y0 : array_like (dim,) or (batch, dim)
    steps, save_every : int
    observe : callable, optional
        ``observe(Y)`` for a block ``Y`` of states of shape ``(n, batch, dim)`` returns an
        array whose first axis is n; it is applied to EVERY state (steps 0..steps), in blocks
        of ``chunk`` steps, so extremes over the whole run are seen, not only at saved steps.

    Returns
    -------
    states : ndarray ``(n_saved, [batch,] dim)`` at steps 0, save_every, ..., and ``steps``;
    or ``(states, observations)`` when ``observe`` is given (observations for every step).
    """
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ShapeError(f"M must be a square matrix, got shape {M.shape}")
    steps = check_count(steps, "steps", 0)
    save_every = check_count(save_every, "save_every", 1)
    chunk = check_count(chunk, "chunk", 1)
    y = np.array(y0, dtype=float)
    single = y.ndim == 1
    Y = np.atleast_2d(y)
    if Y.ndim != 2 or Y.shape[1] != M.shape[0]:
        raise ShapeError(f"y0 has shape {y.shape}; expected ({M.shape[0]},) or (batch, {M.shape[0]})")
    if not np.isfinite(Y).all():
        raise InvalidArgumentError("y0 contains a non-finite value")
    MT = np.ascontiguousarray(M.T)
    saved, observed = [], []
    n = 0
    block = np.empty((min(chunk, steps + 1), Y.shape[0], Y.shape[1]))
    while n <= steps:
        m = min(chunk, steps + 1 - n)
        for j in range(m):
            if j or n:
                Y = Y @ MT
            block[j] = Y
        idx = [j for j in range(m) if (n + j) % save_every == 0 or n + j == steps]
        saved.append(block[idx].copy())
        if observe is not None:
            observed.append(np.array(observe(block[:m])))   # a copy: block is reused
        n += m
    states = np.concatenate(saved)
    if single:
        states = states[:, 0, :]
    if observe is None:
        return states
    return states, np.concatenate(observed)


# --------------------------------------------------------------------------- implicit linear steps


@dataclass(frozen=True)
class LinearStep:
    r"""An implicit linear one-step scheme ``A z^+ + B z = 0`` lowered from its symbolic equations.

    For linear implicit schemes (a discrete-gradient scheme of a quadratic energy, the
    midpoint rule of a linear system) the matrices are read off the very equations that
    are certified, with exact coefficients; ``A`` is factored once.

    ``A`` and ``B`` hold the EXACT coefficients (sympy numbers) as ``{(row, column): value}``;
    ``current`` and ``new`` are the symbols of ``z`` and ``z^+``.  Build with
    :func:`lower_linear_scheme`.  :meth:`float_stepper` and :meth:`mp_stepper` step one state by
    hand; a run goes through :func:`integrators.run_map`, whose linear implicit step in its dense
    solve form (:class:`integrators.linear_implicit.BoundLinearSolve`) does the same double-precision
    arithmetic (``tests/casestudies/test_komatsu2020_wave_beam.py`` holds the two equal bit for bit).

    Examples
    --------
    >>> import sympy
    >>> x, X = sympy.symbols("x X")
    >>> L = lower_linear_scheme([X - x / 2], [x], [X])
    >>> L.float_stepper()(np.array([4.0]))
    array([2.])
    """

    current: tuple
    new: tuple
    A: dict
    B: dict

    @property
    def dim(self) -> int:
        return len(self.current)

    @property
    def C(self) -> dict:
        """``A + B`` (exact): the step is ``z^+ = z + Delta`` with ``A Delta = -C z``.

        The increment form is the same equation, ``A z^+ + B z = A (z^+ - z) + (A + B) z``, but it
        does not cancel the large ``1/dt`` terms of ``A z^+`` and ``B z`` in floating point.
        """
        out = dict(self.A)
        for k, b in self.B.items():
            out[k] = out.get(k, 0) + b
        return {k: v for k, v in out.items() if v != 0}

    def dense(self, which="A", convert=float):
        """``A``, ``B`` or ``C`` as a dense list of rows, entries converted by ``convert``."""
        M = {"A": self.A, "B": self.B, "C": self.C}[which]
        rows = [[convert(sympy.S.Zero)] * self.dim for _ in range(self.dim)]
        for (i, j), a in M.items():
            rows[i][j] = convert(a)
        return rows

    def float_stepper(self):
        """``z -> z^+`` in double precision: ``A`` LU-factored once, one solve per step."""
        from scipy.linalg import lu_factor, lu_solve

        A = np.array(self.dense("A"), dtype=float)
        C = np.array(self.dense("C"), dtype=float)
        lu = lu_factor(A)

        def step(z):
            return z + lu_solve(lu, -(C @ z), check_finite=False)   # a blow-up runs on to inf/nan

        return step

    def mp_stepper(self, dps=50):
        """``z -> z^+`` in ``mpmath`` at ``dps`` digits (``A`` LU-factored once at that precision).

        Call it inside ``mpmath.workdps(dps)``; the entries are the exact coefficients rounded once.
        """
        import mpmath

        with mpmath.workdps(dps + 10):
            def conv(a):
                a = sympy.Rational(a)
                return mpmath.mpf(int(a.p)) / int(a.q)

            A = mpmath.matrix(self.dense("A", conv))
            C = mpmath.matrix(self.dense("C", conv))
            LU, perm = mpmath.mp.LU_decomp(A)

        def step(z):
            with mpmath.workdps(dps + 10):
                out = z + mpmath.mp.U_solve(LU, mpmath.mp.L_solve(LU, -(C * z), perm))
            return out

        return step


def lower_linear_scheme(equations, current, new, values=None) -> LinearStep:
    r"""Read ``A z^+ + B z = 0`` off symbolic equations that are linear and homogeneous in ``(z, z^+)``.

    Parameters
    ----------
    equations : sequence of sympy.Expr
        The scheme, each ``== 0`` (e.g. ``DiscreteGradientScheme.equations``), as many as ``new``.
    current, new : sequence of Symbol
        ``z`` and ``z^+``.
    values : dict, optional
        Numbers for the remaining symbols (the step ``h``, parameters), substituted first.

    Raises
    ------
    ExpressionError
        An equation is not linear in ``(z, z^+)``, has a term without them, or leaves a free symbol;
        or the counts disagree.
    """
    current, new = tuple(current), tuple(new)
    if len(equations) != len(new) or len(current) != len(new):
        raise ExpressionError(
            f"a one-step scheme needs as many equations as new unknowns as current ones; got {len(equations)}"
            f" equations, {len(new)} new and {len(current)} current unknowns")
    col_new = {s: k for k, s in enumerate(new)}
    col_cur = {s: k for k, s in enumerate(current)}
    A, B = {}, {}
    for i, eq in enumerate(equations):
        e = sympy.expand(sympy.sympify(eq).xreplace(values or {}))
        for term, coeff in e.as_coefficients_dict().items():
            if term in col_new:
                A[(i, col_new[term])] = A.get((i, col_new[term]), 0) + coeff
            elif term in col_cur:
                B[(i, col_cur[term])] = B.get((i, col_cur[term]), 0) + coeff
            else:
                raise ExpressionError(
                    f"equation {i} is not linear and homogeneous in the state: it has the term {coeff}*{term};"
                    " give numbers for every parameter (values=) and a scheme linear in the new level")
    return LinearStep(current, new, {k: v for k, v in A.items() if v != 0}, {k: v for k, v in B.items() if v != 0})
