r"""The step-size limit of Stormer-Verlet, and a check that refuses a step beyond it.

For ``q' = B p``, ``p' = D q`` (the linearization of a separable system, Hamiltonian or
forced) the positions obey ``q'' = B D q``.  On a mode with ``B D v = -omega^2 v`` one
Verlet step (either form) has the characteristic polynomial
``z^2 - (2 - h^2 omega^2) z + 1``: its roots stay on the unit circle iff
``h omega < 2``, and for ``h omega > 2`` one root exceeds 1 in modulus and the numerical
solution grows like ``|z|^n`` although the exact one oscillates.  So

    dt_max = 2 / omega_max,     omega_max^2 = max over the eigenvalues of -B D.

For a linear system (a semi-discretized beam) the matrices are constant and the limit is
exact; for a nonlinear one it is the limit of the linearization at a given state.  The
matrices come from the system's symbolic vector field (differentiated by
:func:`geomcheck.calculus.diff`).

>>> import sympy, integrators as ig
>>> from integrators.stability import verlet_stability_limit, check_verlet_step
>>> q, p = sympy.symbols("q p")
>>> osc = ig.HamiltonianSystem(p**2 / 2 + 100 * q**2 / 2, q, p)     # omega = 10
>>> verlet_stability_limit(osc).dt_max
0.2
>>> check_verlet_step(osc, 0.21)
Traceback (most recent call last):
    ...
integrators.errors.StepSizeError: dt = 0.21 is beyond the stability limit of Stormer-Verlet for HamiltonianSystem(p**2/2 + 50*q**2, q=[q], p=[p]): dt*omega_max = 2.1 >= 2 (omega_max = 10, dt_max = 2/omega_max = 0.2); the numerical solution would grow without bound. Take dt < 0.2.

Every explicit scheme, in ``integrate``
---------------------------------------
:func:`stability_interval` generalizes the limit to any explicit scheme: its step on
the test oscillator ``H = (p^2 + q^2)/2`` is linear, ``y -> M(x) y`` with ``x = h omega``,
and the scheme is stable on a mode of frequency ``omega`` iff both roots of
``z^2 - tr M z + det M`` lie in the closed unit disk (Jury: ``|det M| <= 1``,
``|tr M| <= 1 + det M``), a boundary double root excluded.  The interval
``0 < x < x_max`` is found exactly from the real roots of those polynomials in ``x``
(when the coefficients are irrational, as in Yoshida's compositions, by a grid search
refined by bisection at 40 digits: the triple jump gives ``x_max = 1.5734...``):
Stormer-Verlet (both forms) and symplectic Euler ``x_max = 2``, classical RK4
``x_max = 2 sqrt(2)``, explicit Euler ``x_max = 0`` (``|R(i x)| = sqrt(1 + x^2) > 1``: it
amplifies every oscillatory mode at every step size).

:func:`check_step` is what ``integrate`` runs before an explicit step on a canonical
system: ``omega_max`` is the largest ``|eigenvalue|`` of the Jacobian of the vector field
at every initial state of the ensemble (conservative: a real eigenvalue, where the exact
flow itself grows, counts as well), and

- ``dt * omega_max >= x_max > 0``  ->  :class:`StepSizeError` (the numerical solution would
  grow without bound while the linearization oscillates: an error, not a warning, since a
  warning scrolls past and the numbers that come out are meaningless);
- ``x_max == 0`` (explicit Euler) and ``omega_max > 0``  ->  :class:`StabilityWarning`
  with the amplification per step: refusing would forbid the baseline altogether, and its
  drift is what it is run to show;
- implicit steps (midpoint, Gauss, trapezoidal: A-stable) and contact systems are not checked.

Damped systems (:class:`~integrators.DampedHamiltonianSystem`): a scheme that requires "damped"
(the conformally symplectic splittings) integrates the damping ``p -> e^{-gamma t} p`` exactly,
so the damping limits no step size; its interval is taken on the damped oscillator
``H = (p^2 + q^2)/2`` in the undamped limit ``gamma -> 0`` (``x = h omega_0``) and ``omega_max`` is
the spectral radius of the Jacobian of the *undamped* vector field (``system.undamped``).  For
``conformal-splitting-2`` (``det M = e^{-gamma h}``, ``tr M = (1 - x^2/2)(1 + e^{-gamma h})``) the
interval ``x < 2`` is exact for every ``gamma >= 0``; for ``conformal-symplectic-euler`` the exact
interval ``x^2 < 2(1 + e^{gamma h})`` contains ``x < 2`` (test_damped_systems.py proves both).  An
overdamped mode (real eigenvalues of the full Jacobian far beyond ``omega_0``) is therefore not
refused, as it would be by the full Jacobian.  Any other explicit scheme on a damped system (rk4,
explicit Euler) is checked with the full Jacobian, damping included, as for a forced system.

``integrate(..., check_stability=False)`` skips the check.  The bound is local (at y0)
for a nonlinear system; it is exact for a linear one.

>>> from integrators.stability import stability_interval
>>> stability_interval("stormer-verlet"), stability_interval("rk4")**2, stability_interval("explicit-euler")
(2, 8, 0)
>>> stability_interval("implicit-midpoint") is None
True
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy

from geomcheck.caches import Memo
import geomcheck as gc

from geomcheck.calculus import diff
from geomcheck.errors import InvalidArgumentError

from .codegen import lower_expressions
from .errors import StabilityWarning, StepSizeError
from .run_options import check_dt, parameter_values
from .systems import CanonicalSystem

__all__ = ["StabilityLimit", "StepSizeError", "StabilityWarning", "verlet_stability_limit", "check_verlet_step",
           "stability_interval", "jacobian_spectral_radius", "check_step"]


@dataclass(frozen=True)
class StabilityLimit:
    """The Stormer-Verlet step-size limit of a system.

    Attributes
    ----------
    dt_max : float             ``2 / omega_max`` (inf when no mode oscillates)
    omega_max : float          the largest angular frequency of the (linearized) system
    frequencies : ndarray      every ``omega`` (sorted), from the eigenvalues of ``-B D``
    unstable_modes : int       eigenvalues of ``-B D`` that are negative or complex (the
                               linearization itself grows there; no step size helps)
    linear : bool              the system is linear (the limit is exact, not local)
    """

    dt_max: float
    omega_max: float
    frequencies: np.ndarray
    unstable_modes: int
    linear: bool


def _jacobian_block(X, rows, cols, values, at):
    J = np.zeros((len(rows), len(cols)))
    col = {c: j for j, c in enumerate(cols)}
    linear = True
    for i, r in enumerate(rows):
        comp = X.component(r)
        for c in comp.free_symbols & set(cols):
            dij = diff(comp, c)
            if dij.free_symbols & set(at):
                linear = False
            J[i, col[c]] = float(sympy.N(dij.xreplace({**values, **at})))
    return J, linear


def verlet_stability_limit(system, params=None, at=None) -> StabilityLimit:
    """The step-size limit ``2 / omega_max`` of Stormer-Verlet on ``system``.

    Parameters
    ----------
    system : HamiltonianSystem or ForcedHamiltonianSystem, separable, concrete
    params : dict, optional
        Values of the system's constants.
    at : dict {coordinate: number}, optional
        Where to linearize a nonlinear system (default: the origin).

    Raises
    ------
    InvalidArgumentError
        Not a canonical separable system.
    """
    if not isinstance(system, CanonicalSystem) or not system.is_separable:
        raise InvalidArgumentError(
            f"the Stormer-Verlet stability limit needs a separable canonical system (q' = T(p), p' = F(q)),"
            f" got {system!r}")
    values = parameter_values(system, params)
    point = {c: sympy.S.Zero for c in system.coords}
    point.update({k: sympy.sympify(v) for k, v in dict(at or {}).items()})
    X = system.vector_field
    B, lin_b = _jacobian_block(X, system.q, system.p, values, point)
    D, lin_d = _jacobian_block(X, system.p, system.q, values, point)
    lam = np.linalg.eigvals(-(B @ D))
    scale = max(1.0, float(np.abs(lam).max())) if lam.size else 1.0
    tiny = 1e-9 * scale
    good = lam[(np.abs(lam.imag) <= tiny) & (lam.real >= -tiny)].real
    unstable = int(lam.size - good.size)
    omegas = np.sort(np.sqrt(np.clip(good, 0.0, None)))
    omega_max = float(omegas[-1]) if omegas.size else 0.0
    dt_max = 2.0 / omega_max if omega_max > 0 else float("inf")
    return StabilityLimit(dt_max, omega_max, omegas, unstable, lin_b and lin_d)


def check_verlet_step(system, dt, params=None, at=None, limit=None) -> StabilityLimit:
    """Refuse a Stormer-Verlet step size at or beyond the stability limit.

    Returns the :class:`StabilityLimit` when ``dt < dt_max``.

    Raises
    ------
    StepSizeError
        ``dt * omega_max >= 2``; the message gives the limit and what to take instead.
    """
    dt_value = check_dt(dt, "numpy", None)
    lim = limit if limit is not None else verlet_stability_limit(system, params, at)
    if dt_value * lim.omega_max >= 2.0:
        where = "" if lim.linear else " (linearized at the given state)"
        raise StepSizeError(
            f"dt = {dt_value:g} is beyond the stability limit of Stormer-Verlet for {system!r}{where}:"
            f" dt*omega_max = {dt_value * lim.omega_max:.4g} >= 2 (omega_max = {lim.omega_max:.6g},"
            f" dt_max = 2/omega_max = {lim.dt_max:.6g}); the numerical solution would grow without bound."
            f" Take dt < {lim.dt_max:.6g}."
        )
    return lim


# ------------------------------------------------------------------ any explicit scheme

_INTERVALS = Memo("integrators.stability.intervals", 1024)


def _oscillator_matrices(s):
    """``(x, [(M_i(x), factor_i)])``: the stages' matrices on the unit oscillator, or None.

    Each stage is linear on the oscillator, so its matrix is read off the images of (1, 0) and
    (0, 1) (no expansion).  None for an implicit or nonlinear stage, or a scheme that does not
    apply to the oscillator.
    """
    from .systems import HamiltonianSystem

    q, p = sympy.symbols("q_stab p_stab", real=True)
    test = HamiltonianSystem((p**2 + q**2) / 2, q, p)
    undamped_limit = {}
    if "damped" in s.requires:
        from .systems import DampedHamiltonianSystem

        # the damped oscillator, its damping then set to 0: x = h omega_0 (module docstring)
        g = sympy.Symbol("gamma_stab", positive=True)
        test = DampedHamiltonianSystem((p**2 + q**2) / 2, q, p, damping=g)
        undamped_limit = {g: sympy.S.Zero}
    if s.why_not(test) is not None:
        return None
    out = []
    for st in s.stages(test):
        phi = st.map
        if undamped_limit and isinstance(phi, gc.Map):
            phi = gc.Map(phi.source, phi.target, [e.xreplace(undamped_limit) for e in phi.exprs])
        if not isinstance(phi, gc.Map):
            return None
        if any(diff(diff(e, a), b) != 0 for e in phi.exprs for a in (q, p) for b in (q, p)):
            return None  # not linear in the state: no stability polynomial
        col = [[e.xreplace({q: a, p: b}) for e in phi.exprs] for a, b in ((1, 0), (0, 1))]
        out.append((sympy.ImmutableMatrix([[col[0][0], col[1][0]], [col[0][1], col[1][1]]]), st.factor))
    return s.h, out


def _jury(tr, det):
    return [1 - det, 1 + det, 1 + det - tr, 1 + det + tr]


def _jury_functions(scheme_obj):
    """``(x, [1 - det, 1 + det, 1 + det - tr, 1 + det + tr])`` for a one-stage step on the unit oscillator.

    None when the step is implicit, nonlinear, not applicable, or has several stages (those
    are handled numerically by :func:`_staged_jury`).
    """
    from .catalog import scheme as scheme_by_name

    found = _oscillator_matrices(scheme_by_name(scheme_obj))
    if found is None or len(found[1]) != 1 or sympy.sympify(found[1][0][1]) != 1:
        return None
    x, [(M, _)] = found
    return x, _jury(M[0, 0] + M[1, 1], M[0, 0] * M[1, 1] - M[1, 0] * M[0, 1])


def _staged_jury(scheme_obj):
    """``(fast, precise)``: the Jury functions of a many-stage step as numeric functions of x, or None.

    ``M(x) = M_m(gamma_m x) ... M_1(gamma_1 x)`` is multiplied out numerically (float64 on a
    grid; mpmath at the working precision for the bisection): the product of 27 symbolic
    matrices is too large an expression to search.
    """
    from .catalog import scheme as scheme_by_name

    found = _oscillator_matrices(scheme_by_name(scheme_obj))
    if found is None:
        return None
    x, mats = found
    distinct = {}
    for M, _ in mats:
        distinct.setdefault(M, None)
    lowered = {M: _lowered(x, list(M)) for M in distinct}     # the entries row by row

    def fast(grid):
        P = np.broadcast_to(np.eye(2), (grid.size, 2, 2)).copy()
        for M, g in mats:
            entries = lowered[M][0](float(sympy.N(g, 20)) * grid)
            A = np.array([np.broadcast_to(np.asarray(v, dtype=float), grid.shape)
                          for v in entries]).reshape(2, 2, grid.size)                # (2, 2, N)
            P = np.einsum("ijn,njk->nik", A, P)
        tr = P[:, 0, 0] + P[:, 1, 1]
        det = P[:, 0, 0] * P[:, 1, 1] - P[:, 0, 1] * P[:, 1, 0]
        return _jury(tr, det)

    def precise(v):
        P = mpmath.eye(2)
        for M, g in mats:
            a, b, c, d = lowered[M][1](mpmath.mpf(sympy.N(g, mpmath.mp.dps + 5)) * v)
            P = mpmath.matrix([[a, b], [c, d]]) * P
        return _jury(P[0, 0] + P[1, 1], P[0, 0] * P[1, 1] - P[0, 1] * P[1, 0])

    return fast, precise


def _is_rational(expr):
    return all(a.is_Rational for a in expr.atoms(sympy.Number)) and \
        all(a.exp.is_Integer for a in expr.atoms(sympy.Pow))


def _exact_interval(x, funcs):
    """The interval from the exact real roots of rational polynomials (None when they are not)."""
    if not all(_is_rational(f) for f in funcs):
        return None
    try:
        polys = [sympy.Poly(sympy.expand(f), x) for f in funcs]
    except sympy.PolynomialError:
        return None
    polys = [P for P in polys if not P.is_zero]
    if any(P.degree() > 40 for P in polys):
        return None
    roots = sorted({r for P in polys for r in P.real_roots() if r > 0}, key=lambda r: float(r))
    ends = [sympy.S.Zero, *roots]
    for k, a in enumerate(ends):
        # a rational point strictly between this end and the next root (or beyond the last)
        b = float(ends[k + 1]) if k + 1 < len(ends) else float(a) + 1.0
        sample = sympy.nsimplify((float(a) + b) / 2, rational=True)
        if any(P.eval(sample) < 0 for P in polys):
            return a
    return sympy.oo


#: the numeric search: a grid on (0, SCAN_MAX] with spacing SCAN_STEP, then bisection at 40 digits
SCAN_MAX, SCAN_STEP, SCAN_TOL = 40.0, 1e-3, 1e-9


def _numeric_interval(x, funcs):
    """The first ``x`` where a Jury function turns negative: grid in float64, bisection at 40 digits.

    Used when the coefficients are irrational (Yoshida's cube roots of 2); an instability window
    narrower than the grid spacing could be missed.
    """
    return _search(*_lowered(x, funcs))


def _lowered(x, exprs):
    """``(fast, precise)``: ``exprs``, expressions in ``x`` alone, as numeric functions of ``x``.

    ``fast`` takes a float64 array (an expression free of ``x`` gives a scalar: broadcast it),
    ``precise`` an mpf and computes at the working precision (``mpmath.mp.dps`` when it is
    called: the constants, ``2**(1/3)`` in Yoshida's coefficients, are computed once per
    precision).  Both lowered by :func:`integrators.codegen.lower_expressions`.
    """
    fast_kernel = lower_expressions(exprs, [x], [], backend="numpy", what="a stability function")
    precise_kernel = lower_expressions(exprs, [x], [], backend="mpmath", what="a stability function")
    fast_scalars = fast_kernel.scalars()
    precise_scalars = {}

    def fast(grid):
        return fast_kernel.kernel(fast_scalars, grid)

    def precise(v):
        S = precise_scalars.get(mpmath.mp.prec)
        if S is None:
            S = precise_scalars[mpmath.mp.prec] = precise_kernel.scalars()
        return precise_kernel.kernel(S, v)

    return fast, precise


def _search(fast, precise):
    """The grid search and bisection of :func:`_numeric_interval` on numeric Jury functions."""
    grid = np.arange(1, int(SCAN_MAX / SCAN_STEP) + 1) * SCAN_STEP
    with np.errstate(all="ignore"):
        values = np.array([np.broadcast_to(v, grid.shape) for v in fast(grid)], dtype=float)
    bad = ~(values >= -SCAN_TOL).all(axis=0)
    if not bad.any():
        return sympy.oo
    k = int(np.argmax(bad))
    with mpmath.workdps(40):
        def fails(v):
            return any(val < -mpmath.mpf(10) ** -30 for val in precise(mpmath.mpf(v)))

        lo, hi = (grid[k - 1] if k > 0 else 0.0), grid[k]
        lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
        if k == 0 and fails(mpmath.mpf(10) ** -6):
            return sympy.S.Zero
        while hi - lo > mpmath.mpf(10) ** -14:
            mid = (lo + hi) / 2
            if fails(mid):
                hi = mid
            else:
                lo = mid
        return sympy.Float(mpmath.nstr(lo, 15), 15)


def stability_interval(scheme_obj):
    """``x_max``: the scheme is stable on a mode ``omega`` iff ``0 < h omega < x_max``.

    Exact (sympy) when the step's coefficients are rational; otherwise a 15-digit Float from a
    grid search refined by bisection.  ``None`` for an implicit step or a scheme that does not
    apply to a canonical separable system (not checked); ``sympy.oo`` when every step size is
    stable (numerically: up to ``x = 40``); ``0`` when none is.

    >>> stability_interval("symplectic-euler-a"), stability_interval("stormer-verlet-position")
    (2, 2)
    """
    from .catalog import scheme as scheme_by_name

    s = scheme_by_name(scheme_obj)
    key = s.name if isinstance(scheme_obj, str) else s
    if key in _INTERVALS:
        return _INTERVALS.get(key)
    jury = _jury_functions(s)
    if jury is None:
        staged = _staged_jury(s)
        result = None if staged is None else _search(*staged)
    else:
        x, funcs = jury
        result = _exact_interval(x, funcs)
        if result is None:
            result = _numeric_interval(x, funcs)
    _INTERVALS.put(key, result)
    return result


_JACOBIANS = Memo("integrators.stability.jacobians", 32)


def _jacobian_kernel(system, scalars):

    key = (id(system), tuple(scalars))
    hit = _JACOBIANS.get(key)
    if hit is not None and hit[0] is system:
        return hit[1], hit[2]
    coords = tuple(system.coords)
    index = {c: j for j, c in enumerate(coords)}
    X = system.vector_field
    entries, exprs = [], []
    for i, r in enumerate(coords):
        comp = sympy.sympify(X.component(r))
        for c in sorted(comp.free_symbols & set(coords), key=lambda s: index[s]):
            entries.append((i, index[c]))
            exprs.append(diff(comp, c))
    kernel = lower_expressions(exprs, coords, scalars, backend="numpy", what="the Jacobian of the vector field")
    _JACOBIANS.put(key, (system, kernel, entries))
    return kernel, entries


def jacobian_spectral_radius(system, Y, values, t=None, above=None) -> float:
    """``omega_max``: the largest ``|eigenvalue|`` of the vector field's Jacobian over the states ``Y``.

    With ``above`` only whether ``omega_max >= above`` matters: the result is exact when it is,
    and otherwise some upper bound of ``omega_max`` below ``above`` (much cheaper for an ensemble).

    Parameters
    ----------
    system : a concrete system (no undefined functions)
    Y : array (batch, dim) of floats
    values : dict {constant: number}, the system's constants
    t : the time, for a time-dependent system
    above : float, optional

    >>> import sympy, numpy as np, integrators as ig
    >>> q, p = sympy.symbols("q p")
    >>> osc = ig.HamiltonianSystem(p**2 / 2 + 100 * q**2 / 2, q, p)
    >>> round(jacobian_spectral_radius(osc, np.array([[1.0, 0.0]]), {}), 12)
    10.0
    """
    scalars = list(system.parameters) + ([system.time] if system.time is not None else [])
    kernel, entries = _jacobian_kernel(system, scalars)
    Y = np.asarray(Y, dtype=float)
    batch, dim = Y.shape
    if not entries:
        return 0.0
    vals = [float(sympy.N(values[k])) if isinstance(values[k], sympy.Basic) else float(values[k])
            for k in system.parameters] + ([float(t)] if system.time is not None else [])
    out = kernel.kernel(kernel.scalars(*vals), *[Y[:, i] for i in range(dim)])
    varying = any(kernel.is_array)
    n = batch if varying else 1
    J = np.zeros((n, dim, dim))
    for (i, j), v in zip(entries, out):
        J[:, i, j] = v
    if not np.isfinite(J).all():
        raise InvalidArgumentError("the Jacobian of the vector field is not finite at the initial state(s)")
    # the exact maximum without an eigenvalue problem per trajectory (a stacked LAPACK call costs
    # ~5 microseconds a matrix: 0.5 s for an ensemble of 10^5): rho(J) <= ||J^k||^(1/k) for the
    # max-row-sum norm and every k, and k = 8 is already tight; so take the matrices in decreasing
    # order of that bound and stop when the bound of what is left cannot beat the largest
    # |eigenvalue| found
    bound = np.abs(J).sum(axis=2).max(axis=1)
    power = J
    with np.errstate(over="ignore", invalid="ignore"):
        for k in (2, 4, 8):
            if above is not None and bound.max() < above:
                return float(bound.max())       # the usual case, a step well inside the bound
            power = power @ power
            b = np.abs(power).sum(axis=2).max(axis=1) ** (1.0 / k)
            bound = np.where(np.isfinite(b), np.minimum(bound, b), bound)
    order = np.argsort(-bound, kind="stable")
    best, chunk = 0.0, 256
    for start in range(0, n, chunk):
        if bound[order[start]] <= best:
            break
        if above is not None and bound[order[start]] < above:
            return max(best, float(bound[order[start]]))
        best = max(best, float(np.abs(np.linalg.eigvals(J[order[start:start + chunk]])).max()))
    return best


def check_step(system, scheme_obj, dt, Y, values, t=None):
    """Refuse (or, for a scheme with no stability interval, warn about) ``dt`` beyond the linear bound.

    Returns ``(x_max, omega)``: ``x_max`` None when the scheme is not checked; ``omega`` is
    ``omega_max``, or an upper bound of it below ``x_max / dt`` when the step is safe.

    Raises
    ------
    StepSizeError
        ``dt * omega_max >= x_max``; the message gives the bound and what to take instead.
    """
    x_max = stability_interval(scheme_obj)
    if x_max is None or x_max == sympy.oo:
        return x_max, None
    dt = float(dt)
    from .catalog import scheme as scheme_by_name

    frequencies_of = system
    if getattr(system, "kind", None) == "damped-hamiltonian" and "damped" in scheme_by_name(scheme_obj).requires:
        frequencies_of = system.undamped     # the scheme's damping flow is exact (module docstring)
    omega = jacobian_spectral_radius(frequencies_of, Y, values, t, above=None if x_max == 0 else float(x_max) / dt)
    name = getattr(scheme_obj, "name", scheme_obj)
    if x_max == 0:
        if omega > 0:
            warnings.warn(
                f"{name} has no stability interval on the imaginary axis: on a mode of frequency omega it"
                f" multiplies the amplitude by sqrt(1 + (dt*omega)^2) per step; here omega_max = {omega:.6g}"
                f" (largest |eigenvalue| of the Jacobian at y0) and dt*omega_max = {dt * omega:.4g}, a growth"
                f" of up to {np.sqrt(1 + (dt * omega) ** 2):.6g} per step. Use a symplectic scheme for"
                " oscillatory problems.", StabilityWarning, stacklevel=4)
        return x_max, omega
    xf = float(x_max)
    if dt * omega >= xf:
        shown = f"{x_max}" if x_max.is_Integer else f"{x_max} = {xf:.6g}"
        raise StepSizeError(
            f"dt = {dt:g} is beyond the linear stability limit of {name} for {system!r}: dt*omega_max ="
            f" {dt * omega:.4g} >= {shown}, omega_max = {omega:.6g} being the largest |eigenvalue| of the Jacobian"
            f" of the{' undamped' if frequencies_of is not system else ''} vector field at y0; the numerical"
            f" solution would grow without bound. Take"
            f" dt < {xf / omega:.6g}, use an implicit scheme, or pass check_stability=False."
        )
    return x_max, omega
