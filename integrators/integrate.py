"""``integrate``: run a scheme on a system, one trajectory or a whole ensemble.

The step that runs is the scheme's symbolic step map for the system, lowered
(:mod:`integrators.lower`) to batched numpy or to mpmath; implicit steps are solved
by batched Newton (:mod:`integrators.newton`).  Results are deterministic: the same
input gives bit-identical output (no random numbers, a fixed order of operations; the compiled
loop's threads run independent trajectories, so their number does not change a result).

One pipeline for every backend: the input is checked (:mod:`integrators.run_options`), the
step is chosen (the lowered map, the stages of a composition, a linear implicit step factored
once, the system's kernel, or the compiled C loop -- ``backend="auto"``, the default, picks C
for long explicit runs by a cost model and numpy otherwise), one loop runs it
(:class:`integrators.stepping.Stepper`, or the C loop of :mod:`integrators.compiled`), and one
:class:`Solution` comes back.

Options of a long run:

- ``compensated=True``: the state is advanced by the separately lowered increment
  ``Phi(y) - y`` with Kahan's compensated summation (:mod:`integrators.compensated`), so the
  rounding of ``y_n + increment`` does not random-walk over long runs.
- ``progress``: a bar on stderr (``None``, the default, shows it only when stderr is a
  terminal and the run lasts longer than half a second; ``True`` always; ``False`` never).
- ``check_stability`` (default True): before an explicit step on a canonical system the
  step size is held against the linear stability bound at y0 (:mod:`integrators.stability`);
  ``StepSizeError`` beyond it.

Step sizes are fixed: symplectic and symmetric schemes lose their structure (and with it
the bounded energy error over long times) when the step size is adapted to the state,
since the variable-step map is no longer a symplectic map of the phase space (Stormer-Verlet
with ``h`` replaced by ``h s(q, p)`` is certified NOT symplectic, with a counterexample, in
``tests/integrators/test_integrate_guards.py``); variable steps that keep the structure need a
time transformation of the system itself (Sundman), not an adaptive controller.

>>> import sympy, numpy as np, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
>>> sol = ig.integrate(osc, "implicit-midpoint", [1.0, 0.0], dt=0.1, steps=10, save_every=5)
>>> sol.t
array([0. , 0.5, 1. ])
>>> sol.y.shape, sol.energy().shape
((3, 2), (3,))
>>> bool(np.allclose(sol.energy(), 0.5, atol=1e-14))       # midpoint conserves quadratic energies
True
>>> drift = ig.integrate(osc, "rk4", [1.0, 0.0], dt=0.1, steps=10, save_every=10,
...                      observe=lambda t, y: (y**2).sum(axis=-1) / 2 - 0.5)
>>> drift.observed.shape                                     # every state, not only the 2 saved
(11,)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

import mpmath
import numpy as np
import sympy

import geomcheck as gc

from .catalog import scheme as scheme_by_name
from geomcheck.errors import InvalidArgumentError

from .errors import SystemDefinitionError
from .kernels import kernel_step
from .linear_implicit import linear_implicit_step
from .pipeline import auto_choice, check_run, run_pipeline
from .run_options import check_options, check_saved_size, check_t0, parameter_values
from .solution import DOUBLE_MAX, FiniteWatch, Solution
from .systems import STEP_SYMBOL, CanonicalSystem, System

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from .schemes.base import Scheme

__all__ = ["integrate", "integrate_compiled", "chosen_backend", "Solution", "FiniteWatch", "DOUBLE_MAX", "check_saved_size", "check_t0"]


def integrate(system: System, scheme: str | Scheme, y0: ArrayLike,
              dt: float | str | Fraction | sympy.Expr | mpmath.mpf = 0.01, steps: int = 1000,
              backend: Literal["auto", "numpy", "mpmath", "compiled", "jax"] = "auto", dps: int | None = None,
              save_every: int = 10,
              params: Mapping[Any, Any] | None = None, t0: float | str | Fraction | sympy.Expr | mpmath.mpf = 0,
              tol: float | str | sympy.Expr | mpmath.mpf | None = None, max_iter: int = 50, compensated: bool = False,
              progress: bool | None = None, check_stability: bool = True,
              newton: Literal["full", "simplified", "auto"] = "auto", use_kernel: bool = False,
              observe: Callable[[np.ndarray, np.ndarray], Any] | None = None,
              linear_solve: Literal["auto", "matrix", "solve"] = "auto") -> Solution:
    """Integrate ``system`` with ``scheme`` from ``y0``.

    Parameters
    ----------
    system : a system of integrators (HamiltonianSystem, ContactSystem, ...; concrete: no undefined functions)
    scheme : str (a catalog name, see ``list_schemes()``) or a Scheme
    y0 : array_like, shape (dim,) or (batch, dim)
        Coordinates in the system chart's order (q then p; x, p, z for contact systems).
    dt : positive finite number
        The step size (for ``backend="mpmath"`` give a string or an exact number, e.g. "0.01",
        to avoid the binary rounding of a float).
    steps : int >= 0
    backend : "auto" (default), "numpy", "mpmath", "compiled" or "jax"
        "auto": the compiled C loop for a long explicit run in double precision when a C
        compiler works, else numpy, by the cost model of :func:`integrators.pipeline.auto_choice`
        (estimated work = batch x steps x operations per step; a short run stays on numpy and
        compiles nothing); mpmath only when asked for (the precision decides it); a long run of
        one implicit autonomous stage runs Newton's method in C (:mod:`integrators.compiled_newton`,
        results equal to the numpy Newton's to its tolerance), a shorter one and a step linear in
        the state on numpy; ``compensated=True`` and ``use_kernel=True`` run on numpy.  ``sol.path`` says which path
        ran and ``sol.path_note`` why ("auto: ...").  A long run that the model would compile but
        cannot (no compiler, a function C does not know) runs on numpy with a
        ``CompiledPathWarning``.  Where the C loop runs, its results equal numpy's to rounding
        (bit for bit when no value is carried across steps and only ``+``, ``-``, ``*``, ``/`` and sqrt occur;
        :mod:`integrators.compiled`).
        "numpy": the generated numpy kernel, always.
        "compiled": the explicit step map generated as C and compiled (:mod:`integrators.compiled`):
        one C call for the whole ensemble, in chunks over the processors; falls back to numpy with
        a ``CompiledPathWarning`` when no compiler is present or the step is implicit.
        "jax": the step traced by jax (:mod:`integrators.jax_backend`, an optional dependency).
    dps : int >= 15, only for backend="mpmath" (default 50): decimal digits of the run; the
        Newton tolerance of implicit schemes is tied to it (10**(5 - dps)).
    save_every : int >= 1
        States are saved at steps 0, save_every, 2 save_every, ... and at the last step.
    params : dict, optional
        Values of the system's constants (symbol or name -> number), overriding the system's.
    t0 : number
        Initial time (for time-dependent systems; also the first entry of ``sol.t``).
    tol, max_iter : Newton options for implicit schemes (default tol: 1e-13 numpy, 10**(5-dps) mpmath).
    newton : "auto" (default), "full" or "simplified"
        How implicit stage equations are solved (:mod:`integrators.newton`): "full" takes a fresh
        Jacobian every iteration; "simplified" reuses one factorization across iterations and steps
        (refreshed when the contraction rate deteriorates; one per run for linear stage
        equations); "auto" solves affine stage equations in one step, uses full Newton below
        ``AUTO_SIMPLIFIED`` unknowns (numpy) and the simplified iteration from there on (and with
        mpmath), handing a trajectory on which it fails to full Newton.  ``sol.newton`` records
        the mode, the method and the work done.
    compensated : bool
        Advance by the separately lowered increment ``Phi(y) - y`` with Kahan summation, so
        that the rounding of ``y_n + increment`` does not accumulate over long runs.
    progress : None, True or False
        A progress bar on stderr: None shows it when stderr is a terminal (after half a
        second), True always, False never.
    check_stability : bool
        Refuse an explicit step size beyond the linear stability bound estimated from the
        Jacobian of the vector field at y0 (see :mod:`integrators.stability`; explicit Euler
        only warns, implicit schemes and contact systems are not checked).
    observe : callable, optional
        ``observe(t, y)`` is shown EVERY state of the run (steps 0 to ``steps``, not only the saved
        ones), in blocks of consecutive states: ``t`` of shape ``(n,)``, ``y`` of shape
        ``(n, batch, dim)`` (``(n, dim)`` for one trajectory); it returns an array whose first axis
        has length ``n`` (an energy error, a constraint residual, ...). The results, concatenated,
        are ``sol.observed``: extremes over the whole run are seen without saving every state.
    linear_solve : "auto" (default), "matrix" or "solve"
        How an implicit step that is linear in the state (a linear system: the midpoint rule,
        Gauss, AVF of a quadratic energy) is stepped without Newton: "matrix" forms the step's
        increment matrix once (one product per step; its rounding enters every step alike),
        "solve" factors the step's matrix once and solves per step (backward stable per step;
        sparse LU for large sparse systems; the only form at multiprecision); "auto" chooses by
        :func:`integrators.linear_implicit.resolve_form`.  ``sol.path_note`` names the form.
        An explicit step linear in the state (a linear system) runs as its matrix, formed once,
        only when asked ("matrix": :mod:`integrators.matrix_step`; double precision).
    use_kernel : bool
        Run the scheme with the system's hand-written kernel (attached, and checked against the
        symbolic vector field, by :func:`integrators.with_kernel`) as the vector field:
        :func:`integrators.kernels.kernel_step`; explicit Runge-Kutta methods, Stormer-Verlet and
        their compositions, numpy backend, not compensated (SchemeNotApplicableError otherwise).

    Returns
    -------
    Solution

    Raises
    ------
    UnknownSchemeError, SchemeNotApplicableError, NotLowerableError, ShapeError,
    InvalidArgumentError, NewtonConvergenceError, StepSizeError
    """
    prepared = _prepare(system, scheme, y0, dt, steps, backend, dps, save_every, params, t0, tol, max_iter,
                        compensated, progress, check_stability, newton, use_kernel, linear_solve)
    run, stages, scalars, values, options, step, s = prepared
    return run_pipeline(run, stages, system.coords, scalars, [values[k] for k in system.parameters], system.time,
                        options, observe, system=system, scheme=s, parameters=values, step=step)


def _prepare(system, scheme, y0, dt, steps, backend, dps, save_every, params, t0, tol, max_iter, compensated,
             progress, check_stability, newton, use_kernel, linear_solve):
    """The checked run, the stages and the rest of what :func:`integrate` hands the pipeline."""
    if not isinstance(system, System):
        raise SystemDefinitionError(
            f"integrate expects a system of integrators (HamiltonianSystem, ContactSystem, DampedHamiltonianSystem,"
            f" ConstrainedHamiltonianSystem, PortHamiltonianSystem, ...), got {type(system).__name__} {system!r}")
    s = scheme_by_name(scheme)
    s.check_applies(system)
    options = check_options(backend, dps, tol, max_iter, newton, compensated, progress, check_stability, use_kernel,
                            linear_solve)
    run = check_run(y0, system.dim, system.coords, dt, steps, save_every, t0, options)
    values = parameter_values(system, params)
    if hasattr(system, "check_state"):     # a constrained system: y0 must lie on its constraint manifold
        system.check_state(run.Y, values)
    stages = s.stages(system)
    if options.check_stability and all(isinstance(st.map, gc.Map) for st in stages) \
            and isinstance(system, CanonicalSystem):
        from .stability import check_step

        check_step(system, s, float(run.dt), np.asarray(run.Y, dtype=float), values, float(run.arithmetic.value(t0)))
    scalars = [STEP_SYMBOL, *system.parameters] + ([system.time] if system.time is not None else [])
    step = kernel_step(s, system) if options.use_kernel else None
    return run, stages, scalars, values, options, step, s


def chosen_backend(system: System, scheme: str | Scheme, y0: ArrayLike, **options: Any) -> str:
    """The path :func:`integrate` takes with these arguments: "compiled" or "numpy" for
    ``backend="auto"`` (by :func:`integrators.pipeline.auto_choice`), else the backend asked for.

    The input is checked as ``integrate`` checks it; nothing runs.

    >>> import sympy, integrators as ig
    >>> q, p = sympy.symbols("q p")
    >>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
    >>> chosen_backend(osc, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=10)
    'numpy'
    """
    options = {**options, "observe": None}
    names = ("dt", "steps", "backend", "dps", "save_every", "params", "t0", "tol", "max_iter", "compensated",
             "progress", "check_stability", "newton", "use_kernel", "linear_solve")
    signature = inspect.signature(integrate).parameters
    unknown = sorted(set(options) - set(names) - {"observe"})
    if unknown:
        raise InvalidArgumentError(f"chosen_backend: unknown option(s) {', '.join(unknown)}")
    args = [options.get(n, signature[n].default) for n in names]
    run, stages, scalars, _values, checked, step, _s = _prepare(system, scheme, y0, *args)
    if checked.backend != "auto":
        return checked.backend
    path = auto_choice(stages, checked, run, step, system.time).path
    if path == "compiled-newton":      # as the pipeline decides: a linear step keeps its factorization
        return "numpy" if linear_implicit_step(stages[0].map, scalars) is not None else "compiled"
    return path


def integrate_compiled(system, scheme, y0, dt, steps, save_every=1, params=None, t0=0.0, check_stability=True):
    """Integrate with the scheme's explicit step map compiled to C (numpy fallback, with a warning).

    The same as ``integrators.integrate(..., backend="compiled", progress=False)``.

    Parameters
    ----------
    system, scheme, y0, dt, steps, save_every, params, t0, check_stability
        As for :func:`integrators.integrate` (numpy backend); ``y0`` of shape ``(dim,)`` or
        ``(batch, dim)`` (the trajectories run one after the other).

    Returns
    -------
    Solution
        ``backend == "numpy"`` (double precision, so ``energy()`` works as for numpy runs),
        with ``path`` ("compiled" or "numpy") and ``path_note`` (why numpy ran).

    Warns
    -----
    CompiledPathWarning
        The compiled path could not run (the reason is in the message and in ``path_note``).

    Raises
    ------
    As :func:`integrators.integrate` for bad input (checked before anything is compiled).

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> q, p = sympy.symbols("q p")
    >>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
    >>> sol = integrate_compiled(osc, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=10, save_every=5)
    >>> sol.t
    array([0. , 0.5, 1. ])
    """
    return integrate(system, scheme, y0, dt=dt, steps=steps, save_every=save_every, params=params, t0=t0,
                     backend="compiled", progress=False, check_stability=check_stability)
