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

import numpy as np
import sympy

from geomcheck import Map
from geomcheck.errors import InvalidArgumentError, ShapeError

from .catalog import scheme as _scheme_by_name
from .errors import NotLowerableError
from .integrate import _check_count, _check_dt, _parameter_values
from .lower import lower
from .systems import STEP_SYMBOL

__all__ = ["is_linear_map", "step_matrix", "propagate"]


def _linear_term(term, coords) -> bool:
    """A product with exactly one factor that is a coordinate (to the first power)."""
    degree = 0
    for f in sympy.Mul.make_args(term):
        if f in coords:
            degree += 1
        elif f.free_symbols & coords:
            return False        # a power, a function of a coordinate, ...
    return degree == 1


_CHECKED: dict = {}


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
    _CHECKED[id(phi)] = (phi, result)      # maps are immutable; the entry keeps phi alive
    return result


def step_matrix(scheme, system, dt, params=None) -> np.ndarray:
    """The matrix ``M`` of a linear step: ``step(y) = M y`` (float64, ``dim x dim``).

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
    """
    s = _scheme_by_name(scheme)
    phi = s.step_map(system)
    if not is_linear_map(phi):
        raise NotLowerableError(
            f"the step map of {s.name} on {system!r} is not linear and homogeneous in the state"
            f" ({', '.join(map(str, system.coords[:4]))}...); it has no step matrix: use integrators.integrate")
    dt_value = _check_dt(dt, "numpy", None)
    values = _parameter_values(system, params)
    scalars = [STEP_SYMBOL, *system.parameters]
    bound = lower(phi, backend="numpy", parameters=scalars).bind(
        [dt_value] + [float(sympy.N(values[k])) for k in system.parameters])
    # the images of the unit vectors are the columns of M
    return bound.step_array(np.eye(system.dim)).T.copy()


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
    steps = _check_count(steps, "steps", 0)
    save_every = _check_count(save_every, "save_every", 1)
    chunk = _check_count(chunk, "chunk", 1)
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
