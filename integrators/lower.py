"""Lower the one symbolic step to numbers: batched numpy, or mpmath at a chosen precision.

The input is the very ``gc.Map`` / ``gc.ImplicitMap`` that the certificates are
about.  Python source is generated from it by :mod:`integrators.codegen` (scalars hoisted
and evaluated once per binding, ``LoweredStep.bind``; common subexpressions shared; small
powers as products), as numpy array code (states are arrays of shape ``(batch,)`` per
coordinate) or as mpmath scalar code.

An implicit map is split into the equations its stage unknowns solve (lowered
with their Jacobian, for Newton's method: :mod:`integrators.newton`) and the new
state, explicit in the stage unknowns when the map has that form (every map a
scheme of this package builds has it).

Only concrete systems can be lowered: an undefined function (``V(q)``) has no
numeric value, so generic maps are refused with :class:`NotLowerableError`.

>>> import sympy, numpy as np, geomcheck as gc
>>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
>>> euler = gc.Map(M, M, [q + h * p, p - h * sympy.sin(q)])
>>> step = lower(euler).bind({h: 0.1})
>>> step.step_array(np.array([[1.0, 0.0]])).round(6)
array([[ 1.      , -0.084147]])
"""

from __future__ import annotations

from typing import Mapping

import mpmath
import numpy as np
import sympy

from geomcheck.caches import Memo
import geomcheck as gc
from geomcheck.errors import InvalidArgumentError, NonRealValueError

from .codegen import Kernel, lower_expressions, refuse_generic
from .errors import NotLowerableError
from .newton import StageSolver, check_newton_mode
from .systems import STEP_SYMBOL

__all__ = ["lower", "lower_expressions", "LoweredStep", "BoundStep", "Kernel", "real_rows", "split_implicit"]

# ------------------------------------------------------------------------ steps


def split_implicit(phi, equations=None):
    """``(stage unknowns, stage equations, {new: explicit value})`` or None when not of that form.

    ``equations`` (default ``phi.equations``): the map's equations in the form to be lowered.
    """
    equations = phi.equations if equations is None else equations
    new = set(phi.new)
    explicit = {}
    used = set()
    for Y in phi.new:
        for k, e in enumerate(equations):
            if k in used or not e.has(Y):
                continue
            if sympy.diff(e, Y) == 1:
                rest = e - Y
                if not (rest.free_symbols & new):
                    explicit[Y] = -rest
                    used.add(k)
                    break
    if len(explicit) != len(phi.new):
        return None
    remaining = [e for k, e in enumerate(equations) if k not in used]
    if any(e.free_symbols & new for e in remaining):
        return None
    return tuple(phi.auxiliary), remaining, explicit


class LoweredStep:
    """A step map lowered to one backend.

    Parameters
    ----------
    phi : gc.Map or gc.ImplicitMap
    parameters : sequence of Symbol
        The scalars bound at run time, the step symbol ``h`` first (default: ``h`` and the
        other constant symbols of ``phi``, sorted by name).
    backend : "numpy" or "mpmath"

    Attributes
    ----------
    explicit : bool
    dim : int
    parameters : tuple of Symbol
    source : str   the generated Python source (all kernels)
    """

    def __init__(self, phi, parameters=None, backend="numpy"):
        if backend not in ("numpy", "mpmath"):
            raise InvalidArgumentError(f"backend must be 'numpy' or 'mpmath', got {backend!r}")
        if not isinstance(phi, (gc.Map, gc.ImplicitMap)):
            raise NotLowerableError(f"lower expects a geomcheck Map or ImplicitMap, got {type(phi).__name__}")
        self.phi = phi
        self.backend = backend
        self.coords = phi.source.coords
        self.dim = len(self.coords)
        if parameters is None:
            params = phi.parameters
            if params is None:
                syms = set()
                exprs = phi.exprs if isinstance(phi, gc.Map) else phi.equations
                for e in exprs:
                    syms |= e.free_symbols
                syms -= set(self.coords)
                if isinstance(phi, gc.ImplicitMap):
                    syms -= set(phi.unknowns)
                params = sorted(syms, key=lambda s: s.name)
            params = [STEP_SYMBOL] + [s for s in params if s != STEP_SYMBOL]
        self.parameters = tuple(parameters if parameters is not None else params)
        what = "the step map"
        if isinstance(phi, gc.Map):
            self.explicit = True
            refuse_generic(phi.exprs, what)
            self.update = Kernel(phi.exprs, self.coords, self.parameters, backend)
            self.source = self.update.source
            return
        self.explicit = False
        # a map may carry an evaluation rule for subexpressions of its equations (removable
        # singularities such as divided differences: integrators.schemes.quotients), the same
        # functions written to be evaluated in finite precision; otherwise its equations
        source_equations = tuple(getattr(phi, "evaluation_equations", None) or phi.equations)
        refuse_generic(source_equations, what)
        split = split_implicit(phi, source_equations)
        if split is None:
            unknowns, equations, final = tuple(phi.unknowns), list(source_equations), {Y: Y for Y in phi.new}
        else:
            unknowns, equations, final = split
        self.unknowns = unknowns
        m = len(unknowns)
        jac = [sympy.diff(e, u) for e in equations for u in unknowns]
        self.m = m
        self.equations, self.jacobian = tuple(equations), tuple(jac)     # read by newton.stage_structure
        self.residual = Kernel(list(equations) + jac, self.coords + unknowns, self.parameters, backend)
        self.guess = Kernel([phi.guess[u] for u in unknowns], self.coords, self.parameters, backend)
        self.update = Kernel([final[Y] for Y in phi.new], self.coords + unknowns, self.parameters, backend)
        self.source = "\n".join(["# guess", self.guess.source, "# residual and Jacobian", self.residual.source,
                                 "# new state", self.update.source])

    def bind(self, values, **newton_options) -> "BoundStep":
        """Bind the scalar parameters: ``values`` is ``{symbol: number}`` or a sequence in ``parameters`` order."""
        if isinstance(values, Mapping):
            missing = [s for s in self.parameters if s not in values]
            if missing:
                raise InvalidArgumentError(
                    f"no value for the parameter(s) {', '.join(map(str, missing))} of the step;"
                    f" expected values for {', '.join(map(str, self.parameters))}"
                )
            seq = [values[s] for s in self.parameters]
        else:
            seq = list(values)
            if len(seq) != len(self.parameters):
                raise InvalidArgumentError(f"expected {len(self.parameters)} parameter values for {self.parameters}")
        return BoundStep(self, seq, **newton_options)


class BoundStep:
    """A lowered step with its parameters bound: call :meth:`step` on the state components.

    numpy: ``step(components)`` takes and returns a list of ``dim`` arrays of shape
    ``(batch,)``; mpmath: a list of ``dim`` lists of mpf (one per trajectory).
    Implicit steps: ``tol``, ``max_iter`` and ``newton`` (see :mod:`integrators.newton`)
    configure ``solver``, which solves the stage equations.
    """

    def __init__(self, lowered: LoweredStep, values, tol=None, max_iter=50, dps=None, newton="full"):
        self.lowered = lowered
        self.backend = lowered.backend
        self.dps = dps
        if self.backend == "mpmath":
            ctx_dps = dps or mpmath.mp.dps
            with mpmath.workdps(ctx_dps):
                vals = [mpmath.mpf(sympy.N(sympy.sympify(v), ctx_dps + 5)) if not isinstance(v, mpmath.mpf)
                        else v for v in values]
                self.S = {name: k.scalars(*vals) for name, k in self._kernels().items()}
        else:
            vals = [float(v) for v in values]
            self.S = {name: k.scalars(*vals) for name, k in self._kernels().items()}
        self.values = vals
        self.tol = tol
        self.max_iter = max_iter
        mode = check_newton_mode(newton)
        # the stage equations' solver (Newton mode "full", "simplified" or "auto"), None if explicit
        self.solver = None if lowered.explicit else StageSolver(self, mode)

    def solvers(self) -> list:
        """The stage solvers of this bound step (none when it is explicit)."""
        return [] if self.solver is None else [self.solver]

    def _kernels(self):
        L = self.lowered
        if L.explicit:
            return {"update": L.update}
        return {"update": L.update, "residual": L.residual, "guess": L.guess}

    def step(self, components, step_index=None):
        """One step of the state ``components`` (``step_index`` is named in Newton errors)."""
        if self.backend == "numpy":
            return self._step_numpy(components, step_index)
        return self._step_mpmath(components, step_index)

    def _step_numpy(self, y, step_index):
        L = self.lowered
        batch = y[0].shape[0]
        if L.explicit:
            out = L.update.kernel(self.S["update"], *y)
            return [o if a else np.full(batch, o, dtype=float) for o, a in zip(out, L.update.is_array)]
        u = self.solver.numpy(y, step_index)
        out = L.update.kernel(self.S["update"], *y, *u)
        return [o if a else np.full(batch, o, dtype=float) for o, a in zip(out, L.update.is_array)]

    def _step_mpmath(self, y, step_index):
        L = self.lowered
        dps = self.dps or mpmath.mp.dps
        with mpmath.workdps(dps):
            if L.explicit:
                return real_rows(lambda b, x: L.update.kernel(self.S["update"], *x), y, L.coords, step_index)

            def row(b, x):
                u = self.solver.mpmath(x, dps, trajectory=b, step_index=step_index)
                return L.update.kernel(self.S["update"], *x, *u)

            return real_rows(row, y, L.coords, step_index, self.complex_guess)

    def complex_guess(self, x):
        """``(unknown, value)`` of the first stage unknown whose starting guess at ``x`` is complex, or None."""
        L = self.lowered
        if L.explicit:
            return None
        for u, g in zip(L.unknowns, L.guess.kernel(self.S["guess"], *x)):
            if isinstance(g, mpmath.mpc):
                return u, g
        return None

    def step_array(self, Y):
        """One step of a ``(batch, dim)`` array (numpy) or nested list/object array (mpmath)."""
        if self.backend == "numpy":
            Y = np.asarray(Y, dtype=float)
            out = self.step([np.ascontiguousarray(Y[:, i]) for i in range(Y.shape[1])])
            return np.stack(out, axis=1)
        comps = [[Y[b][i] for b in range(len(Y))] for i in range(len(Y[0]))]
        out = self.step(comps)
        arr = np.empty((len(Y), len(out)), dtype=object)
        for i, col in enumerate(out):
            for b, v in enumerate(col):
                arr[b, i] = v
        return arr


def real_rows(compute, y, names, step_index=None, diagnose=None) -> list:
    """One mpmath step of every trajectory, refusing values that leave the real domain.

    mpmath evaluates ``sqrt``, ``log`` and fractional powers of negative numbers as complex
    numbers and carries on (numpy gives nan); a complex state is no state of a real system,
    so the run stops here with an error that says where.

    Parameters
    ----------
    compute : callable
        ``compute(b, x)``: the new values (one per coordinate in ``names``) of trajectory
        ``b`` from its state ``x`` (a list of mpf).
    y : list of list
        The state: one list of mpf (one entry per trajectory) per coordinate.
    names : sequence
        The coordinates, in the order of ``compute``'s outputs.
    step_index : int, optional
        The step being taken, for the message.
    diagnose : callable, optional
        ``diagnose(x)`` -> ``(name, value)`` of an intermediate (a stage unknown's guess)
        that is complex, or None: used when mpmath refused a complex value inside
        ``compute`` (in Newton's iteration of an implicit step).

    Returns
    -------
    list of list of mpf
        The new state, in the layout of ``y``.

    Raises
    ------
    NonRealValueError
        A new value, or a value inside the step, is complex; ``step``, ``trajectory``,
        ``coordinate`` and ``value`` say which.

    Examples
    --------
    >>> import mpmath, sympy
    >>> q = sympy.Symbol("q")
    >>> try:
    ...     real_rows(lambda b, x: [mpmath.sqrt(x[0])], [[mpmath.mpf(4), mpmath.mpf(-1)]], [q], 7)
    ... except ArithmeticError as exc:
    ...     print(exc.step, exc.trajectory, exc.coordinate)
    7 1 q
    """
    step = "" if step_index is None else f"step {step_index}, "
    rows = []
    for b in range(len(y[0])):
        x = [c[b] for c in y]
        try:
            row = compute(b, x)
        except TypeError as exc:
            # mpmath refuses to make an mpf of an mpc or to order complex values: a value inside
            # the step (an implicit step's stage values) left the real domain
            if "mpc" not in str(exc) and "complex" not in str(exc):
                raise
            culprit = diagnose(x) if diagnose is not None else None
            where = f"the stage unknown {culprit[0]} (guess {culprit[1]})" if culprit else "a value inside the step"
            raise NonRealValueError(
                f"{step}trajectory {b}: {where} became complex, from the state {_state_text(names, x)}: the step"
                " left the real domain (sqrt, log or a fractional power of a negative number?); a real"
                " system's state was expected", step=step_index, trajectory=b,
                coordinate=str(culprit[0]) if culprit else None, value=culprit[1] if culprit else None) from exc
        for i, v in enumerate(row):
            if isinstance(v, mpmath.mpc):
                raise NonRealValueError(
                    f"{step}trajectory {b}: the new value of {names[i]} is complex ({v}), from the state"
                    f" {_state_text(names, x)}: the step left the real domain (sqrt, log or a fractional power"
                    " of a negative number?); a real system's state was expected",
                    step=step_index, trajectory=b, coordinate=str(names[i]), value=v)
        rows.append(row)
    return [[mpmath.mpf(r[i]) for r in rows] for i in range(len(names))]


def _state_text(names, x) -> str:
    return ", ".join(f"{n} = {mpmath.nstr(v, 8)}" for n, v in zip(names, x))


_CACHE = Memo("integrators.lower.steps", 64)


def lower(phi, backend="numpy", parameters=None) -> LoweredStep:
    """Lower a step map (``gc.Map`` or ``gc.ImplicitMap``) to ``backend`` ("numpy" or "mpmath").

    The generated code is cached per (map, backend, parameters): integrating the same system
    with the same scheme again does not generate it again.

    Raises
    ------
    NotLowerableError
        The map contains undefined functions (a generic system) or symbols that are neither
        coordinates nor parameters.
    """
    key = (id(phi), backend, None if parameters is None else tuple(parameters))
    hit = _CACHE.get(key)
    if hit is not None and hit.phi is phi:
        return hit
    lowered = LoweredStep(phi, parameters=parameters, backend=backend)
    _CACHE.put(key, lowered)
    return lowered
