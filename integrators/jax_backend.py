"""The certified step maps on JAX: jitted ensemble runs, and trajectories to differentiate.

The step that runs is the scheme's symbolic step map for the system -- the very ``gc.Map`` /
``gc.ImplicitMap`` that ``scheme.certify`` is about -- printed as ``jax.numpy`` source by the
same lowering as the numpy path (:class:`integrators.codegen.Kernel`): the symbols renamed
``y0, y1, ...`` (the arrays) and ``a0, a1, ...`` (the scalars), the state-free subexpressions
hoisted (:func:`integrators.codegen.hoist_scalars`), common subexpressions shared by
``sympy.cse``, small powers as products.  JAX therefore evaluates the formulas of the numpy
path in the same order, but not bit for bit: XLA contracts ``a*b + c`` into a fused
multiply-add (one rounding instead of two; seen on the CPU backend) and its ``sin``, ``exp``, ...
are not numpy's, so the states agree with the numpy path to a few units in the last place per
step (measured: at most 18 ulps after 1000 Stormer-Verlet steps of Henon-Heiles ensembles,
``benchmarks/bench_jax.py``).  The loop is compiled once per lowered step, ensemble shape and
block size (a power of two of saved states) and reused by later runs with other step sizes,
constants, start times and Newton options.

Two entry points:

* ``integrators.integrate(..., backend="jax")`` runs :func:`jax_run` (wired in
  :mod:`integrators.pipeline`): the step written for one trajectory, ``jax.vmap``-ed over the
  ensemble, ``lax.fori_loop`` over the steps between saved states inside a jitted block, the
  saved states copied into the run's buffer.  ``sol.path == "jax"``, ``sol.path_note`` names
  the device (``"jax cpu:0"``).
* :func:`trajectory_function` returns a pure JAX function ``(y0, params) -> final state`` (or
  every state), so ``jax.grad`` / ``jax.jacfwd`` differentiate a trajectory with respect to its
  initial data and the system's constants, through the certified step.

Implicit steps: the stage equations ``G(x, u) = 0`` and their symbolic Jacobian are lowered as
on the numpy path (:func:`integrators.lower.split_step`) and solved by full Newton in a
``lax.while_loop`` from the map's own guess, with the rule of :func:`integrators.newton.newton_numpy`
(:class:`geomcheck.newton_iteration.RelativeStep`, elementwise):
a trajectory has converged when ``max |delta u| <= tol (1 + max |u|)`` (``tol`` 1e-13 unless
given), at most ``max_iter`` iterations.  Whatever Newton mode is asked for, the JAX path runs
full Newton (the fixed point does not depend on the mode; ``sol.newton.mode`` records the mode
asked for, its counts the full-Newton work).  A traced computation cannot raise, so failures
are recorded per trajectory and raised after the jitted block as
:class:`~integrators.errors.NewtonConvergenceError` naming the trajectories and the step
(:func:`jax_run`), or turn the result into nan (:func:`trajectory_function`, documented there).
For derivatives the Newton solve is wrapped in ``lax.custom_root``: the derivative of the
stage values is the implicit-function-theorem one, ``-(dG/du)^{-1} dG/dx``, exact at the
solution, not the derivative of the iteration.

Double precision: JAX computes in float32 unless ``jax_enable_x64`` is set.  :func:`jax_run`
runs inside ``with jax.enable_x64(True):`` (a context manager: the user's global setting is
left as it was).  The function of :func:`trajectory_function` is called, traced and
differentiated by the user, so it cannot switch the setting for them: it refuses to run in
float32 (:class:`~geomcheck.errors.InvalidArgumentError` saying how to enable float64).

jax is an optional dependency: without it both entry points raise
:class:`~geomcheck.errors.MissingDependencyError` naming the ``jax`` extra.

>>> import sympy, numpy as np, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
>>> ref = ig.integrate(pendulum, "stormer-verlet", [1.0, 0.0], dt=0.01, steps=200, save_every=100)
>>> if jax_available():
...     sol = ig.integrate(pendulum, "stormer-verlet", [1.0, 0.0], dt=0.01, steps=200, save_every=100,
...                        backend="jax")
...     print(sol.path, sol.path_note.startswith("jax "), bool(np.abs(sol.y - ref.y).max() < 1e-13))
... else:                                   # jax is optional: the same line where it is not installed
...     print("jax True True")
jax True True
"""

from __future__ import annotations

from typing import Mapping

import mpmath
import numpy as np
import sympy
from sympy.printing.numpy import JaxPrinter as SympyJaxPrinter

import geomcheck as gc
from geomcheck.caches import Memo
from geomcheck.errors import InvalidArgumentError, MissingDependencyError, ShapeError, import_optional

from .codegen import Kernel, power_text
from .errors import NewtonConvergenceError, NotLowerableError
from .lower import split_step
from .newton import DEFAULT_TOL, NewtonRecord
from .staged import stage_values

__all__ = ["jax_run", "JaxRun", "JaxStep", "jax_step", "trajectory_function", "TrajectoryFunction", "JaxPrinter",
           "jax_available", "jax_device", "SAVED_VALUES_PER_BLOCK"]

#: a jitted block writes at most this many saved values (doubles) before handing them over: 32 MiB
SAVED_VALUES_PER_BLOCK = 2**22
#: digits of the products offset_i * h (a stage's start time) computed for a double-precision run
_OFFSET_DIGITS = 40
#: the codes of a failed Newton solve (per trajectory)
_NO_CONVERGENCE, _NON_FINITE = 1, 2


def _modules():
    """``(jax, jax.numpy, jax.lax)``, or MissingDependencyError naming the extra."""
    jax = import_optional("jax", "jax", "backend='jax'")
    import_optional("jax.numpy", "jax", "backend='jax'")
    return jax, jax.numpy, jax.lax


def jax_available() -> bool:
    """True when jax can be imported (it is an optional dependency).

    >>> jax_available() in (True, False)
    True
    """
    try:
        _modules()
    except MissingDependencyError:
        return False
    return True


def jax_device() -> str:
    """The device JAX runs on, as ``"jax <platform>:<id>"`` (e.g. ``"jax cpu:0"``).

    >>> jax_device().startswith("jax ") if jax_available() else True
    True
    """
    jax, _, _ = _modules()
    device = jax.devices()[0]
    return f"jax {device.platform}:{device.id}"


# ------------------------------------------------------------------------ lowering to jax.numpy


class JaxPrinter(SympyJaxPrinter):
    """``jax.numpy`` code with small integer powers as products (as :class:`integrators.codegen.NumpyPrinter`).

    >>> import sympy
    >>> x = sympy.Symbol("y0")
    >>> JaxPrinter({"fully_qualified_modules": True}).doprint(x**3 + sympy.sin(x) / x**2)
    '(y0*y0*y0) + jax.numpy.sin(y0)/(y0*y0)'
    """

    def _print_Pow(self, expr, rational=False):
        return power_text(self, expr, lambda e: super(JaxPrinter, self)._print_Pow(e, rational=rational))


def _jax_kernel(outputs, array_args, scalar_args, jax) -> Kernel:
    """``scalars(*scalar_args)`` and ``kernel(S, *arrays)`` in jax.numpy: :class:`codegen.Kernel` itself with
    the jax printer, so the renaming, the hoisting, the ``cse`` calls -- and the order of the printed
    operations -- are the numpy kernel's."""
    return Kernel(outputs, array_args, scalar_args, backend="jax",
                  printer=JaxPrinter({"fully_qualified_modules": True, "strict": True}), modules={"jax": jax})


class _JaxMap:
    """One stage map lowered to jax.numpy: explicit (``update``) or implicit (guess, residual, update)."""

    def __init__(self, phi, parameters, jax):
        if not isinstance(phi, (gc.Map, gc.ImplicitMap)):
            raise NotLowerableError(f"the jax path lowers a geomcheck Map or ImplicitMap, got {type(phi).__name__}")
        self.phi = phi
        self.coords = tuple(phi.source.coords)
        self.dim = len(self.coords)
        # the numpy path's split into kernels (integrators.lower.LoweredStep)
        unknowns, equations, guess, update = split_step(phi)
        if isinstance(phi, gc.Map):
            self.explicit, self.m = True, 0
            self.update = _jax_kernel(update, self.coords, parameters, jax)
            self.kernels = (self.update,)
            return
        self.explicit, self.m = False, len(unknowns)
        jac = [sympy.diff(e, u) for e in equations for u in unknowns]
        self.residual = _jax_kernel(list(equations) + jac, self.coords + unknowns, parameters, jax)
        self.guess = _jax_kernel(guess, self.coords, parameters, jax)
        self.update = _jax_kernel(update, self.coords + unknowns, parameters, jax)
        self.kernels = (self.guess, self.residual, self.update)

    def scalars(self, values) -> tuple:
        """The hoisted scalars of each kernel for the parameter values ``values``."""
        return tuple(k.scalars(*values) for k in self.kernels)


def _stack(jnp, values, like):
    """The kernel's outputs as one array (a state-free output broadcast to the state's dtype)."""
    return jnp.stack([jnp.asarray(v, dtype=like.dtype) for v in values])


class JaxStep:
    """The stages of a step lowered to jax.numpy, as functions of ONE trajectory (vmap them for a batch).

    Parameters
    ----------
    stages : sequence of Stage
    parameters : sequence of Symbol
        The scalars bound at run time: ``h`` first, then the constants, then the time (if any).
    time : Symbol or None

    Attributes
    ----------
    maps : list of the distinct lowered stage maps
    explicit : bool
    n_implicit : int    implicit stages per step (one Newton solve each)
    source : str        the generated jax.numpy source of each distinct map
    """

    def __init__(self, stages, parameters, time=None):
        jax, jnp, lax = _modules()
        self.jax, self.jnp, self.lax = jax, jnp, lax
        self.stages = tuple(stages)
        if not self.stages:
            raise InvalidArgumentError("a step needs at least one stage")
        self.parameters = tuple(parameters)
        self.time = time
        self.time_index = self.parameters.index(time) if time is not None else None
        self.maps, index = [], []
        for st in self.stages:
            for k, M in enumerate(self.maps):
                if M.phi is st.map:
                    index.append(k)
                    break
            else:
                self.maps.append(_JaxMap(st.map, self.parameters, jax))
                index.append(len(self.maps) - 1)
        self.index = tuple(index)
        self.dim = self.maps[0].dim
        self.explicit = all(M.explicit for M in self.maps)
        self.n_implicit = sum(1 for k in self.index if not self.maps[k].explicit)
        self.source = "\n".join(f"# stage map {k}\n" + "".join(K.source for K in M.kernels)
                                for k, M in enumerate(self.maps))

    # -- the numbers of one step size, computed once in Python

    def stage_numbers(self, dt) -> tuple:
        """``(h_i, offset_hi_i, offset_lo_i)`` per stage, as float arrays.

        ``h_i = factor_i h`` rounded once from 40 digits (as :func:`integrators.staged.stage_values`);
        the stage starts at ``t + offset_i h``, with ``offset_i h`` kept as the unevaluated sum
        ``hi + lo`` of two doubles so that ``t + offset_i h`` is rounded once inside the loop
        (the numpy path computes it at 40 digits from ``t`` and rounds once).
        """
        hs, his, los = [], [], []
        for st in self.stages:
            hs.append(stage_values([float(dt)], st, "numpy")[0])
            with mpmath.workdps(_OFFSET_DIGITS):
                c = mpmath.mpf(sympy.N(st.offset, _OFFSET_DIGITS)) * mpmath.mpf(float(dt))
                hi = float(c)
                his.append(hi)
                los.append(float(c - mpmath.mpf(hi)))
        return np.array(hs), np.array(his), np.array(los)

    def stage_scalars(self, numbers, constants, t=None) -> list:
        """The hoisted scalars of every stage (traceable: ``constants`` and ``t`` may be traced)."""
        hs, his, los = numbers
        out = []
        for i, st in enumerate(self.stages):
            values = [hs[i], *[constants[j] for j in range(len(self.parameters) - 1 - (self.time is not None))]]
            if t is not None:
                s = t + his[i]                       # TwoSum(t, hi): s + e == t + hi exactly
                b = s - t
                e = (t - (s - b)) + (his[i] - b)
                values.append(s + (e + los[i]))
            out.append(self.maps[self.index[i]].scalars(values))
        return out

    # -- one step of one trajectory

    def newton(self, M, S, x, u0, tol, max_iter):
        """Full Newton on one trajectory: ``(u, failure code, last residual, iterations)``."""
        jnp, lax = self.jnp, self.lax
        m = M.m
        S_res = S[1]

        def body(c):
            u, it, code, res = c
            out = M.residual.kernel(S_res, *x, *u)
            F = _stack(jnp, out[:m], x[0])
            J = _stack(jnp, out[m:], x[0]).reshape(m, m)
            res = jnp.max(jnp.abs(F))
            delta = jnp.linalg.solve(J, -F)
            finite = jnp.all(jnp.isfinite(delta))
            u_new = u + delta
            done = jnp.max(jnp.abs(delta)) <= tol * (1.0 + jnp.max(jnp.abs(u_new)))
            code = jnp.where(finite, jnp.where(done, 0, _NO_CONVERGENCE), _NON_FINITE)
            return jnp.where(finite, u_new, u), it + 1, code, res

        def cond(c):
            _, it, code, _ = c
            return (code == _NO_CONVERGENCE) & (it < max_iter)

        start = (u0, jnp.asarray(0, dtype=jnp.int64), jnp.asarray(_NO_CONVERGENCE, dtype=jnp.int64),
                 jnp.asarray(0.0, dtype=x[0].dtype))
        u, it, code, res = lax.while_loop(cond, body, start)
        return u, code, res, it

    def apply_map(self, M, S, y, tol, max_iter, differentiable=False):
        """One stage map on one trajectory: ``(new state, failure code, residual, iterations)``."""
        jnp, lax = self.jnp, self.lax
        x = [y[i] for i in range(self.dim)]
        zero = jnp.asarray(0, dtype=jnp.int64)
        if M.explicit:
            return _stack(jnp, M.update.kernel(S[0], *x), y), zero, jnp.zeros((), y.dtype), zero
        S_guess, S_res, S_up = S
        m = M.m
        if m == 0:
            return _stack(jnp, M.update.kernel(S_up, *x), y), zero, jnp.zeros((), y.dtype), zero
        u0 = _stack(jnp, M.guess.kernel(S_guess, *x), y)
        if not differentiable:
            u, code, res, it = self.newton(M, S, x, u0, tol, max_iter)
        else:
            def equations(u):
                return _stack(jnp, M.residual.kernel(S_res, *x, *[u[k] for k in range(m)])[:m], y)

            def solve(_, start):
                u, code, _, _ = self.newton(M, S, x, start, tol, max_iter)
                # a traced function cannot raise: an unsolved step makes the result nan
                return jnp.where(code == 0, u, jnp.nan)

            def tangent_solve(g, b):
                return jnp.linalg.solve(self.jax.jacfwd(g)(b), b)

            u = lax.custom_root(equations, u0, solve, tangent_solve)
            code, res, it = zero, jnp.zeros((), y.dtype), zero
        return _stack(jnp, M.update.kernel(S_up, *x, *[u[k] for k in range(m)]), y), code, res, it

    def step(self, y, scalars, tol, max_iter, differentiable=False):
        """One step of one trajectory ``y`` (``(dim,)``) with the stages' hoisted scalars.

        Returns ``(new y, failure code, residual, iterations per implicit stage)``: the code and
        residual of the first implicit stage that failed (0 when none did).
        """
        jnp = self.jnp
        code = jnp.asarray(0, dtype=jnp.int64)
        res = jnp.zeros((), y.dtype)
        its = []
        for i, st in enumerate(self.stages):
            M = self.maps[self.index[i]]
            y, c, r, it = self.apply_map(M, scalars[i], y, tol, max_iter, differentiable)
            if not M.explicit:
                first = (code == 0) & (c != 0)
                res = jnp.where(first, r, res)
                code = jnp.where(first, c, code)
                its.append(it)
        its = jnp.stack(its) if its else jnp.zeros((0,), jnp.int64)
        return y, code, res, its


_STEPS = Memo("integrators.jax_backend.steps", 64)


def jax_step(stages, parameters, time=None) -> JaxStep:
    """The :class:`JaxStep` of ``stages`` (cached per stage maps and parameters in this process).

    Raises
    ------
    NotLowerableError
        A generic map (undefined functions), a symbol that is neither a coordinate nor a
        parameter, a function the printer does not know.
    MissingDependencyError
        jax is not installed.
    """
    key = (tuple((id(st.map), str(st.factor), str(st.offset)) for st in stages), tuple(parameters), time)
    hit = _STEPS.get(key)
    if hit is not None and all(a.map is b.map for a, b in zip(hit.stages, stages)):
        return hit
    step = JaxStep(stages, parameters, time)
    _STEPS.put(key, step)
    return step


# ------------------------------------------------------------------------ the ensemble run


def _ensemble_block(step: JaxStep, time_dependent: bool):
    """The jitted block: ``count`` saved states, ``every`` steps apart, from step ``n0`` (batched by vmap).

    Failures are accumulated per trajectory (the first failing step, its code and residual);
    the Newton work as the numpy solver counts it.
    """
    jax, jnp, lax = step.jax, step.jnp, step.lax

    def block(size, Y, n0, count, every, numbers, constants, t0, dt, tol, max_iter, fails):
        if not time_dependent:
            fixed = step.stage_scalars(numbers, constants)

        def one(y, scalars):
            return step.step(y, scalars, tol, max_iter)

        def advance(n, carry):
            Y, (fail_step, fail_code, fail_res, counts) = carry
            if time_dependent:
                t = t0 + n.astype(Y.dtype) * dt             # as DoublePrecision.time_at: t0 + n dt
                scalars = step.stage_scalars(numbers, constants, t)
            else:
                scalars = fixed
            Y, code, res, its = jax.vmap(one, in_axes=(0, None))(Y, scalars)
            if step.explicit:                           # nothing can fail, nothing to count
                return Y, (fail_step, fail_code, fail_res, counts)
            new = (code != 0) & (fail_step < 0)
            fail_step = jnp.where(new, n + 1, fail_step)
            fail_code = jnp.where(new, code, fail_code)
            fail_res = jnp.where(new, res, fail_res)
            # per solve: the batch iterations (the slowest trajectory), matrices factorized (all of them)
            if its.shape[1]:
                counts = counts + jnp.stack([jnp.sum(jnp.max(its, axis=0)), jnp.sum(its)]).astype(jnp.int64)
            return Y, (fail_step, fail_code, fail_res, counts)

        def save(j, carry):
            buf, Y, fails = carry
            first = n0 + j * every
            Y, fails = lax.fori_loop(first, first + every, advance, (Y, fails))
            return buf.at[j].set(Y), Y, fails

        buf = jnp.zeros((size,) + Y.shape, Y.dtype)
        return lax.fori_loop(0, count, save, (buf, Y, fails))

    return jax.jit(block, static_argnums=0)


class JaxRun:
    """A jitted ensemble loop of a :class:`JaxStep` bound to its scalars: ``run`` as the Stepper's.

    Attributes
    ----------
    device : str   the device, ``"jax cpu:0"`` (the Solution's ``path_note``)
    step : JaxStep
    """

    def __init__(self, step: JaxStep, values, t0, time_dependent: bool, solver_options: dict | None = None):
        options = dict(solver_options or {})
        self.step = step
        self.values = [float(v) for v in values]
        self.t0 = float(sympy.N(t0)) if isinstance(t0, sympy.Basic) else float(t0)
        self.time_dependent = time_dependent
        tol = options.get("tol")
        self.tol = DEFAULT_TOL if tol is None else float(tol)
        self.max_iter = int(options.get("max_iter", 50))
        self.mode = options.get("newton") or "auto"
        self.device = jax_device()
        self.counts = np.zeros(2, dtype=np.int64)
        self.solves = 0
        key = "block_t" if time_dependent else "block"
        block = getattr(step, key, None)
        if block is None:          # jitted once per lowered step: later runs reuse the compilation
            block = _ensemble_block(step, time_dependent)
            setattr(step, key, block)
        self.block = block

    def newton_record(self) -> NewtonRecord | None:
        """How the implicit stages were solved (full Newton, counted as :class:`integrators.newton.StageSolver`)."""
        if self.step.explicit:
            return None
        iterations, factorizations = (int(c) for c in self.counts)
        return NewtonRecord(self.mode, "newton", solves=self.solves, iterations=iterations, jacobians=iterations,
                            factorizations=factorizations)

    def run(self, Y, saved_steps, out, watch, bar=None, observer=None) -> None:
        """Run from ``Y`` (``(batch, dim)``) to ``saved_steps[-1]``, filling ``out[k]`` at ``saved_steps[k]``."""
        jax, jnp = self.step.jax, self.step.jnp
        with jax.enable_x64(True):
            batch, dim = Y.shape
            numbers = tuple(jnp.asarray(a) for a in self.step.stage_numbers(self.values[0]))
            constants = jnp.asarray(self.values[1:], dtype=jnp.float64)
            self._args = (numbers, constants, jnp.float64(self.t0), jnp.float64(self.values[0]),
                          jnp.float64(self.tol), jnp.int64(self.max_iter))
            # the block's buffer: a power of two of saved states (few sizes, so few compilations), at
            # most SAVED_VALUES_PER_BLOCK values
            wanted = len(saved_steps) - 1 if observer is None else min(observer.size, int(saved_steps[-1]))
            self._size = max(1, min(1 << max(0, wanted - 1).bit_length(),
                                    SAVED_VALUES_PER_BLOCK // max(1, batch * dim)))
            self._fails = (jnp.full(batch, -1, jnp.int64), jnp.zeros(batch, jnp.int64), jnp.zeros(batch),
                           jnp.zeros(2, jnp.int64))
            state = jnp.asarray(np.asarray(Y, dtype=float))
            if observer is None:
                self._run_saved(state, saved_steps, out, bar)
            else:
                self._run_observed(state, saved_steps, out, observer, bar)
        for k, n in enumerate(saved_steps):
            watch.saved(out[k], int(n))

    def _advance(self, state, n0, count, every, dest, bar):
        """``count`` states ``every`` steps apart from step ``n0`` into ``dest`` (``(count, batch, dim)``)."""
        done = 0
        while done < count:
            k = min(self._size, count - done)
            first = n0 + done * every
            buf, state, self._fails = self.block(self._size, state, first, k, every, *self._args, self._fails)
            dest[done:done + k] = np.asarray(buf)[:k]
            self._check(first + k * every)
            done += k
            if bar is not None:
                bar.update(first + k * every)
        return state

    def _check(self, n_end):
        """Raise NewtonConvergenceError for the first step at which some trajectory failed."""
        fail_step, fail_code, fail_res, counts = (np.asarray(a) for a in self._fails)
        self.counts = counts.copy()
        self.solves = n_end * self.step.n_implicit
        failed = fail_step >= 0
        if not failed.any():
            return
        n = int(fail_step[failed].min())
        bad = np.flatnonzero(fail_step == n)
        reason = "a singular Jacobian or a non-finite value" if (fail_code[bad] == _NON_FINITE).any() \
            else "no convergence"
        shown = ", ".join(str(int(b)) for b in bad[:10]) + (" ..." if len(bad) > 10 else "")
        res = ", ".join(f"{float(r):.3g}" for r in fail_res[bad][:10])
        raise NewtonConvergenceError(
            f"Newton's method (jax) for the implicit stage equations did not converge at step {n} for {len(bad)}"
            f" of {len(fail_step)} trajectories (indices {shown}): {reason} within max_iter = {self.max_iter}"
            f" iterations; residual max-norms {res}. A smaller step size dt usually helps (the stage equations"
            " have a solution near the guess for small h), or raise max_iter / loosen tol.",
            trajectories=[int(b) for b in bad], residuals=[float(r) for r in fail_res[bad]], step=n)

    def _run_saved(self, state, saved_steps, out, bar):
        out[0] = np.asarray(state)
        k = 1
        while k < len(saved_steps):
            every = int(saved_steps[k] - saved_steps[k - 1])
            j = k
            while j < len(saved_steps) and int(saved_steps[j] - saved_steps[j - 1]) == every:
                j += 1
            state = self._advance(state, int(saved_steps[k - 1]), j - k, every, out[k:j], bar)
            k = j

    def _run_observed(self, state, saved_steps, out, observer, bar):
        batch, dim = out.shape[1:]
        steps = int(saved_steps[-1])
        position = {int(n): k for k, n in enumerate(saved_steps)}
        first = 0
        while first <= steps:
            m = min(observer.size, steps + 1 - first)
            taken = min(m, steps - first)
            block = np.empty((taken + 1, batch, dim))
            block[0] = np.asarray(state)
            state = self._advance(state, first, taken, 1, block[1:], bar)
            observer.add_rows(block[:m], first)
            for j in range(m):
                k = position.get(first + j)
                if k is not None:
                    out[k] = block[j]
            first += m


def jax_run(stages, parameters, time, values, t0, solver_options=None) -> JaxRun:
    """The jitted ensemble loop of ``stages`` bound to ``values`` (``h`` and the constants), for the run pipeline.

    Parameters
    ----------
    stages : sequence of Stage
    parameters : list of Symbol   ``h``, the constants, the time (if ``time``)
    time : Symbol or None
    values : list                 the step size and the constants' values
    t0 : number                   the start time
    solver_options : dict         ``tol``, ``max_iter``, ``newton`` (see :mod:`integrators.newton`)

    Raises
    ------
    MissingDependencyError
        jax is not installed.
    NotLowerableError
        A generic map, or a function the jax printer does not know.
    """
    step = jax_step(stages, parameters, time)
    return JaxRun(step, values, t0, time is not None, solver_options)


# ------------------------------------------------------------------------ differentiable trajectories


class TrajectoryFunction:
    """A trajectory of a scheme on a system as a pure JAX function ``f(y0, params)``.

    Made by :func:`trajectory_function`; see there.

    Attributes
    ----------
    coords : tuple of Symbol       the order of ``y0``'s entries
    parameters : tuple of Symbol   the system's constants (the keys ``params`` may give)
    defaults : dict                their values on the system
    dt, steps, t0, saved
    step : JaxStep
    """

    def __init__(self, step: JaxStep, coords, parameters, defaults, dt, steps, t0, saved, tol, max_iter):
        self.step, self.coords, self.parameters = step, tuple(coords), tuple(parameters)
        self.defaults = dict(defaults)
        self.dt, self.steps, self.t0, self.saved = dt, steps, t0, saved
        self.tol, self.max_iter = tol, max_iter
        self.numbers = step.stage_numbers(dt)

    def _constants(self, params):
        """The constants in ``parameters`` order: ``params`` (mapping or sequence) over the defaults."""
        jnp = self.step.jnp
        if params is None:
            params = {}
        if isinstance(params, Mapping):
            values = dict(self.defaults)
            names = {s.name: s for s in self.parameters}
            for k, v in params.items():
                s = names.get(k) if isinstance(k, str) else k
                if s not in self.parameters:
                    raise InvalidArgumentError(
                        f"params: {k!r} is not a constant of the system; its constants are"
                        f" {', '.join(map(str, self.parameters)) or 'none'}")
                values[s] = v
            missing = [s for s in self.parameters if s not in values]
            if missing:
                raise InvalidArgumentError(f"no value for the constant(s) {', '.join(map(str, missing))}: pass"
                                           " them in params")
            # a system's own values may be sympy numbers; a given one may be traced (do not float() it)
            return [jnp.asarray(float(sympy.N(v)) if isinstance(v, sympy.Basic) else v, dtype=jnp.float64)
                    for v in (values[s] for s in self.parameters)]
        p = jnp.asarray(params, dtype=jnp.float64)
        if p.shape != (len(self.parameters),):
            raise ShapeError(f"params must be a mapping or an array of shape ({len(self.parameters)},) (the"
                             f" constants {', '.join(map(str, self.parameters)) or 'none'}), got shape {p.shape}")
        return [p[j] for j in range(len(self.parameters))]

    def __call__(self, y0, params=None):
        """The final state (``(dim,)``), or every state ``(steps + 1, dim)`` when ``saved``."""
        jax, jnp, lax = self.step.jax, self.step.jnp, self.step.lax
        if not jax.config.read("jax_enable_x64"):
            raise InvalidArgumentError(
                "the certified step runs in float64, but JAX is set to float32: enable float64 with"
                " jax.config.update('jax_enable_x64', True), or call (and differentiate) this function inside"
                " `with jax.enable_x64(True):`")
        y = jnp.asarray(y0, dtype=jnp.float64)
        if y.shape != (len(self.coords),):
            raise ShapeError(f"y0 must have shape ({len(self.coords)},) (the coordinates"
                             f" {', '.join(map(str, self.coords))}), got shape {y.shape}; jax.vmap the function"
                             " for an ensemble")
        constants = self._constants(params)
        step, numbers = self.step, self.numbers
        time_dependent = step.time is not None
        fixed = None if time_dependent else step.stage_scalars(numbers, constants)

        def advance(y, n):
            if time_dependent:
                t = self.t0 + n.astype(jnp.float64) * self.dt
                scalars = step.stage_scalars(numbers, constants, t)
            else:
                scalars = fixed
            y, _, _, _ = step.step(y, scalars, self.tol, self.max_iter, differentiable=True)
            return y, (y if self.saved else None)

        final, states = lax.scan(advance, y, jnp.arange(self.steps, dtype=jnp.int64))
        if self.saved:
            return jnp.concatenate([y[None], states])
        return final


def trajectory_function(system, scheme, dt, steps, *, t0=0.0, saved=False, tol=None,
                        max_iter=50) -> TrajectoryFunction:
    """``f(y0, params)``: ``steps`` steps of ``scheme`` on ``system``, a pure JAX function to differentiate.

    The step is the scheme's certified step map for the system (the same stages as
    :func:`integrators.integrate`), lowered to jax.numpy.  ``jax.grad``, ``jax.jacfwd``,
    ``jax.jacrev``, ``jax.vmap`` and ``jax.jit`` apply: derivatives with respect to the initial
    state and to the system's constants go through the step map itself (through the stage
    equations of an implicit scheme by the implicit function theorem).

    Parameters
    ----------
    system : a concrete system of integrators
    scheme : str or Scheme
    dt : positive finite float   the step size (fixed: not a variable of ``f``)
    steps : int >= 0
    t0 : float                   the start time (time-dependent systems)
    saved : bool                 return every state ``(steps + 1, dim)`` instead of the last
    tol, max_iter                Newton's tolerance (default 1e-13) and iterations (implicit schemes)

    Returns
    -------
    TrajectoryFunction
        ``f(y0, params=None)``: ``y0`` of shape ``(dim,)`` in ``f.coords`` order; ``params`` a
        mapping ``{name or Symbol: value}`` over the system's own values, or an array of shape
        ``(len(f.parameters),)`` in ``f.parameters`` order.  Must be called with float64 enabled
        (``jax.config.update("jax_enable_x64", True)`` or inside ``with jax.enable_x64(True):``);
        :class:`~geomcheck.errors.InvalidArgumentError` otherwise.  An implicit step whose Newton
        iteration does not converge makes the result nan (a traced function cannot raise): check
        ``jnp.isfinite``, or run the same trajectory with ``integrate(..., backend="jax")``, which raises
        :class:`~integrators.errors.NewtonConvergenceError` naming the step.

    Raises
    ------
    MissingDependencyError, UnknownSchemeError, SchemeNotApplicableError, NotLowerableError,
    InvalidArgumentError

    Examples
    --------
    The derivative of ``q(1)`` with respect to the spring constant ``k`` of an oscillator,
    ``d/dk cos(sqrt(k) t) = -t sin(sqrt(k) t) / (2 sqrt(k))``, at ``k = 1``: ``-sin(1)/2 = -0.4207``
    (Stormer-Verlet with ``h = 0.1`` has it to about ``h^2``):

    >>> import sympy, integrators as ig
    >>> q, p, k = sympy.symbols("q p k")
    >>> osc = ig.HamiltonianSystem(p**2 / 2 + k * q**2 / 2, q, p, parameters={k: 1.0})
    >>> if jax_available():
    ...     import jax
    ...     f = trajectory_function(osc, "stormer-verlet", dt=0.1, steps=10)
    ...     with jax.enable_x64(True):
    ...         dq = jax.grad(lambda k: f([1.0, 0.0], {"k": k})[0])(1.0)
    ...     print(round(float(dq), 3))
    ... else:                               # jax is optional: the same line where it is not installed
    ...     print(-0.421)
    -0.421
    """
    from .catalog import scheme as scheme_by_name
    from .run_options import check_count, check_dt, check_t0, check_tolerance
    from .systems import STEP_SYMBOL, System
    from .errors import SystemDefinitionError

    if not isinstance(system, System):
        raise SystemDefinitionError(f"trajectory_function expects a system of integrators, got"
                                    f" {type(system).__name__} {system!r}")
    s = scheme_by_name(scheme)
    s.check_applies(system)
    _modules()                    # MissingDependencyError before anything is generated
    steps = check_count(steps, "steps", 0)
    max_iter = check_count(max_iter, "max_iter", 1)
    dt = float(check_dt(dt, "numpy", None))
    t0 = check_t0(t0, "numpy", None)
    t0 = float(sympy.N(t0)) if isinstance(t0, sympy.Basic) else float(t0)
    tol = check_tolerance(tol, "jax", None)
    tol = DEFAULT_TOL if tol is None else float(tol)
    if not isinstance(saved, bool):
        raise InvalidArgumentError(f"saved must be True or False, got {saved!r}")
    defaults = dict(system.parameter_values)
    scalars = [STEP_SYMBOL, *system.parameters] + ([system.time] if system.time is not None else [])
    step = jax_step(s.stages(system), scalars, system.time)
    return TrajectoryFunction(step, system.coords, system.parameters, defaults, dt, steps, t0, saved, tol, max_iter)
