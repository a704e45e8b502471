"""Hand-written fast kernels of a vector field, held against the one symbolic definition.

A system's vector field is defined once, symbolically; that definition is certified and
lowered (:mod:`integrators.lower`).  Where a hand-written kernel is worth it (a
finite-difference stencil, :mod:`integrators.stencils`), :func:`with_kernel` attaches it to
the system -- but only after holding it against the *lowered symbolic* vector field at
random points (random batch sizes, one of them 1): a kernel that disagrees is refused with
:class:`~integrators.errors.KernelMismatchError` naming the component, the point and both
values.  So the kernel is a faster evaluation of the same definition, never a second one.

A kernel is a Python callable ``kernel(Y, params) -> dY``: ``Y`` of shape ``(batch, dim)`` in
the chart's coordinate order, ``params`` a dict ``{name: float}`` of the system's constants
(the symbols of ``system.parameters``, by name), ``dY`` a float array of the same shape.

Where the kernel is used.  :func:`kernel_step` runs a scheme with the kernel as the vector
field through the scheme's *own* step map -- the certified one, not a second implementation
of the scheme.  The map is built on a generic field on the system's chart, every component an
undefined function ``F_y`` of the coordinates (for Stormer-Verlet the separable form it is
written for, ``q' = F_q(p)``, ``p' = F_p(q)``), so the vector field enters it only as the
components at some points; :class:`~integrators.codegen.VectorCallKernel` lowers it to numpy
with all components at one point as ONE call of the kernel, the calls in dependency order.  A
Runge-Kutta stage costs one call; a Verlet step three (the force at ``q``, the velocity at the
half-step momenta, the force at the new positions), as its map has them.  A composition runs
as its stages (:meth:`Composition.stages`: the base map at ``gamma_i h``, ``gamma_m`` first),
each distinct stage map generated once per chart.  The schemes so run are

* an explicit :class:`~integrators.schemes.runge_kutta.RungeKutta` (strictly lower triangular ``A``);
* :class:`~integrators.schemes.verlet.StormerVerlet` on a separable system (both forms);
* a :class:`~integrators.schemes.composition.Composition` of those.

Anything else (implicit tableaux, discrete gradients, contact splittings, time-dependent
systems) is refused with :class:`~integrators.errors.SchemeNotApplicableError`: there the
kernel is not the whole definition of the step.  The test-suite holds :func:`kernel_step`
against the lowered symbolic step (:func:`integrators.staged.lower_scheme`) to 1e-12.

Why a shallow copy.  ``with_kernel`` returns ``copy.copy(system)`` with the checked kernel
in its ``kernel`` attribute: an object of the same class with the same definition, so it is
*equal* to (and hashes like) the original -- every scheme, certificate and cache treats it
as the same system (a step map built for one is the step map of the other) -- while the
original stays untouched (immutability).  A registry keyed by the system would not do: equal
systems are the same key, so attaching a kernel to a copy would attach it to the original.

>>> import sympy, numpy as np, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
>>> fast = with_kernel(osc, lambda Y, params: np.stack([Y[:, 1], -Y[:, 0]], axis=1), name="rotation")
>>> fast == osc, fast.kernel.name, hasattr(osc, "kernel")
(True, 'rotation', False)
>>> a = ig.integrate(fast, "rk4", [1.0, 0.0], dt=0.1, steps=10, use_kernel=True)
>>> b = ig.integrate(osc, "rk4", [1.0, 0.0], dt=0.1, steps=10)
>>> bool(np.abs(a.y - b.y).max() < 1e-14)
True
>>> try:
...     with_kernel(osc, lambda Y, params: np.stack([Y[:, 1], Y[:, 0]], axis=1))
... except ig.errors.KernelMismatchError as exc:
...     print(exc.component)
p
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import sympy

import geomcheck as gc
from geomcheck.caches import Memo

from .codegen import VectorCallKernel, lower_expressions
from .errors import KernelError, KernelMismatchError, NotLowerableError, SchemeNotApplicableError
from .schemes.composition import Composition
from .schemes.runge_kutta import RungeKutta
from .schemes.verlet import StormerVerlet
from .staged import stage_values
from .systems import STEP_SYMBOL, CanonicalSystem, System

__all__ = ["SystemKernel", "KernelReport", "KernelStep", "with_kernel", "check_kernel", "kernel_of",
           "kernel_step"]

#: random constants (for symbols without a value) are drawn from this interval
_PARAMETER_RANGE = (0.5, 1.5)


@dataclass(frozen=True)
class KernelReport:
    """How far a kernel is from the lowered symbolic vector field.

    Attributes
    ----------
    deviations : dict
        ``{coordinate: relative deviation}``: for the component ``y_c'``, the largest
        ``|kernel - symbolic|`` over all points divided by the largest ``|symbolic|`` over
        all points (the component's scale; a single accidental cancellation at one point does
        not inflate it).  0.0 when both vanish everywhere.
    worst : dict
        ``{coordinate: (point, kernel value, symbolic value)}`` where the deviation is largest.
    points : int
        How many states were tried.
    batch_sizes : tuple of int
        The batch sizes the kernel was called with.
    params : tuple of dict
        The constants of each call (``{name: value}``).
    """

    deviations: dict
    worst: dict
    points: int
    batch_sizes: tuple
    params: tuple = field(default=())

    @property
    def max_deviation(self) -> float:
        return max(self.deviations.values(), default=0.0)

    def passed(self, rtol=1e-12) -> bool:
        """True when every component's relative deviation is at most ``rtol``."""
        return self.max_deviation <= rtol

    def __repr__(self):
        return (f"KernelReport({self.points} points, batches {list(self.batch_sizes)},"
                f" max relative deviation {self.max_deviation:.3g})")


@dataclass(frozen=True)
class SystemKernel:
    """A kernel attached to a system by :func:`with_kernel`: the callable and its check."""

    function: Callable
    name: str
    report: KernelReport

    def __call__(self, Y, params):
        return self.function(Y, params)


# ------------------------------------------------------------------------ checking


def _check_system(system):
    if not isinstance(system, System):
        raise KernelError(f"a kernel is attached to a system of integrators (HamiltonianSystem, ...), got"
                          f" {type(system).__name__} {system!r}")
    if system.time is not None:
        raise KernelError(f"{system!r} depends on the time {system.time}; a kernel(Y, params) has no time"
                          " argument, so kernels are for autonomous systems only")


def _given_params(system, params):
    """``{Symbol: float}`` of the constants given (the system's values, overridden by ``params``)."""
    by_name = {s.name: s for s in system.parameters}
    out = {s: float(sympy.N(v)) for s, v in system.parameter_values.items() if s in by_name.values()}
    for k, v in dict(params or {}).items():
        s = by_name.get(k.name if isinstance(k, sympy.Symbol) else k)
        if s is None:
            raise KernelError(f"{k!r} is not a constant of {system!r}; its constants are"
                              f" {[str(x) for x in system.parameters]}")
        out[s] = float(sympy.N(v)) if isinstance(v, sympy.Basic) else float(v)
    return out


def _call(kernel, Y, params, system):
    """Call the kernel on a copy of ``Y`` and check what comes back."""
    arg = Y.copy()
    try:
        out = kernel(arg, dict(params))
    except Exception as exc:
        raise KernelError(f"the kernel raised {type(exc).__name__}: {exc} (called on a float array of shape"
                          f" {Y.shape} with params {dict(params)})") from exc
    if not np.array_equal(arg, Y):
        raise KernelError("the kernel changed its input array Y; it must return a new array dY")
    if not isinstance(out, np.ndarray):
        raise KernelError(f"the kernel returned {type(out).__name__}; expected a numpy array of shape {Y.shape}")
    if out.shape != Y.shape:
        raise KernelError(f"the kernel returned an array of shape {out.shape}; expected {Y.shape} (batch, dim)"
                          f" for the {system.dim} coordinates {[str(c) for c in system.coords]}")
    if out.dtype != np.float64:
        raise KernelError(f"the kernel returned dtype {out.dtype}; expected float64")
    return out


def check_kernel(system, kernel, *, points=8, seed=0, params=None) -> KernelReport:
    """Evaluate ``kernel`` and the lowered symbolic vector field of ``system`` at random points.

    Parameters
    ----------
    system : a concrete, autonomous system of integrators
    kernel : callable ``kernel(Y, params) -> dY`` (see the module docstring)
    points : int >= 1
        How many random states (standard normal coordinates), in batches of random sizes,
        the first of size 1.
    seed : int
        Seed of the random states (and of random values for constants without one).
    params : dict, optional
        Values of the system's constants (Symbol or name -> number); a constant without a
        value (here or in the system) gets a random value in [0.5, 1.5] per batch.

    Returns
    -------
    KernelReport

    Raises
    ------
    KernelError
        The kernel raised, returned the wrong shape or dtype, or changed its input; or the
        system is time dependent.
    NotLowerableError
        The system is generic (an undefined function has no numeric value).
    """
    _check_system(system)
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 1:
        raise KernelError(f"points must be an integer >= 1, got {points!r}")
    if not callable(kernel):
        raise KernelError(f"a kernel is a callable kernel(Y, params) -> dY, got {type(kernel).__name__}")
    coords = system.coords
    X = system.vector_field
    symbolic = lower_expressions([X.component(c) for c in coords], coords, system.parameters,
                                 what="the vector field")
    given = _given_params(system, params)
    rng = np.random.default_rng(seed)
    sizes, left = [1], int(points) - 1
    while left > 0:
        sizes.append(int(rng.integers(1, left + 1)))
        left -= sizes[-1]
    dim = system.dim
    states, ours, theirs, used = [], [], [], []
    for size in sizes:
        values = {s: given[s] if s in given else float(rng.uniform(*_PARAMETER_RANGE)) for s in system.parameters}
        Y = rng.standard_normal((size, dim))
        dY = _call(kernel, Y, {s.name: v for s, v in values.items()}, system)
        S = symbolic.scalars(*[values[s] for s in system.parameters])
        ref = symbolic.kernel(S, *[Y[:, i] for i in range(dim)])
        ref = np.stack([np.broadcast_to(np.asarray(r, dtype=float), (size,)) for r in ref], axis=1)
        states.append(Y)
        ours.append(dY)
        theirs.append(ref)
        used.append({s.name: v for s, v in values.items()})
    Y, K, R = (np.concatenate(a) for a in (states, ours, theirs))
    deviations, worst = {}, {}
    with np.errstate(invalid="ignore"):
        for i, c in enumerate(coords):
            diff = np.abs(K[:, i] - R[:, i])
            diff = np.where(np.isnan(diff) & ~(np.isnan(K[:, i]) & np.isnan(R[:, i])), np.inf, diff)
            diff = np.nan_to_num(diff, nan=0.0)
            scale = np.abs(R[:, i]).max()
            b = int(np.argmax(diff))
            dev = float(diff[b] / scale) if scale > 0 else (0.0 if diff[b] == 0 else float("inf"))
            deviations[c] = dev
            worst[c] = (Y[b].copy(), float(K[b, i]), float(R[b, i]))
    return KernelReport(deviations, worst, int(points), tuple(sizes), tuple(used))


def with_kernel(system: System, kernel: Callable[[np.ndarray, dict[str, float]], np.ndarray], *,
                name: str | None = None, points: int = 8, seed: int = 0, rtol: float = 1e-12,
                params: Mapping[Any, Any] | None = None) -> System:
    """``system`` carrying ``kernel`` as a fast evaluation of its vector field, once it is checked.

    Parameters
    ----------
    system : a concrete, autonomous system of integrators
    kernel : callable ``kernel(Y, params) -> dY``
    name : str, optional
        A name for listings (default: the callable's ``__name__``).
    points, seed, params : see :func:`check_kernel`
    rtol : float
        The largest relative deviation per component (see :class:`KernelReport`) accepted.

    Returns
    -------
    A shallow copy of ``system`` (same class, equal to it) whose ``kernel`` attribute is a
    :class:`SystemKernel`; ``system`` itself is not changed.

    Raises
    ------
    KernelMismatchError
        A component deviates by more than ``rtol`` (the message names the component, the
        point and both values).
    KernelError, NotLowerableError
        As :func:`check_kernel`.
    """
    report = check_kernel(system, kernel, points=points, seed=seed, params=params)
    for c, dev in report.deviations.items():
        if not dev <= rtol:
            point, ours, theirs = report.worst[c]
            shown = ", ".join(f"{x}={v:.17g}" for x, v in zip(system.coords, point))
            field = str(system.vector_field.component(c))
            field = field if len(field) <= 200 else field[:200] + " ..."
            raise KernelMismatchError(
                f"the kernel {name or getattr(kernel, '__name__', 'kernel')!r} disagrees with the symbolic vector"
                f" field of {type(system).__name__} in the component {c}' = {field}: at the point ({shown}) the"
                f" kernel gives {ours!r}, the lowered symbolic field {theirs!r} (relative deviation {dev:.3g} >"
                f" rtol = {rtol:g})",
                component=c, point=point, kernel_value=ours, symbolic_value=theirs, deviation=dev)
    new = copy.copy(system)
    new.__dict__["kernel"] = SystemKernel(kernel, name or getattr(kernel, "__name__", "kernel"), report)
    return new


def kernel_of(system):
    """The :class:`SystemKernel` attached to ``system`` by :func:`with_kernel`, or None."""
    k = getattr(system, "__dict__", {}).get("kernel")
    return k if isinstance(k, SystemKernel) else None


# ------------------------------------------------------------------------ running


class _GenericField(System):
    """``y' = F(y)`` on the chart of a system: every component an undefined function ``F_y``.

    The scheme's step map on this system is the scheme written for every vector field on the
    chart; a component of the field enters it only as an application ``F_y(a)`` -- the
    component ``y'`` at some point -- and that is what the kernel evaluates.  The component of
    ``y`` depends on the coordinates ``arguments[y]`` (all of them by default).

    Attributes
    ----------
    components : dict
        ``{F_y: column of y}``: which column of the kernel's value each function stands for.
    slots : dict
        ``{F_y: columns of its arguments}``.
    """

    kind = "generic-field"
    energy = None
    is_generic = True

    def __init__(self, chart, arguments=None):
        coords = chart.coords
        self.chart = chart
        self.arguments = tuple(tuple(a) for a in (arguments or [coords] * len(coords)))
        self._parameters, self._values = (), {}
        functions = [sympy.Function(f"F_{y.name}") for y in coords]
        self.components = {F: c for c, F in enumerate(functions)}
        column = {y: c for c, y in enumerate(coords)}
        self.slots = {F: tuple(column[x] for x in args) for F, args in zip(functions, self.arguments)}
        self.vector_field = gc.VectorField(chart, [F(*args) for F, args in zip(functions, self.arguments)])

    def _key(self):
        return (self.chart.coords, self.arguments)


class _SeparableField(_GenericField, CanonicalSystem):
    """The generic separable field on a canonical chart: ``q' = F_q(p)``, ``p' = F_p(q)``.

    The form Stormer-Verlet is written for (it refuses any other): the kernel of a system Verlet
    applies to has ``q'`` free of ``q`` and ``p'`` free of ``p``, so calling it at a state whose
    other half is the step's own start gives the component the map asks for.
    """

    def __init__(self, chart, q, p):
        self.q, self.p = tuple(q), tuple(p)
        positions = set(self.q)
        super().__init__(chart, [self.p if y in positions else self.q for y in chart.coords])

    @property
    def is_separable(self) -> bool:
        return self._vector_field_is_separable()


def _why_not_on_kernel(scheme):
    """None when every step of ``scheme`` is explicit in the vector field, else the reason."""
    if isinstance(scheme, Composition):
        if type(scheme).stages is not Composition.stages:
            return f"{scheme.name} ({type(scheme).__name__}) arranges its stages its own way"
        return _why_not_on_kernel(scheme.base)
    if isinstance(scheme, RungeKutta):
        if not scheme.explicit:
            return f"{scheme.name} is an implicit Runge-Kutta method (A is not strictly lower triangular)"
        return None
    if isinstance(scheme, StormerVerlet):
        return None
    return (f"{scheme.name} ({type(scheme).__name__}) is not an explicit Runge-Kutta method, Stormer-Verlet or a"
            " composition of those")


#: the lowered stages per scheme and generic field (its chart, and q, p if separable): systems on one chart share them
_LOWERED = Memo("integrators.kernels.stages", 32)


def _lowered_stages(scheme, system):
    """``(stages, lowered)``: the scheme's own stages on the generic field of ``system``'s chart, and the
    :class:`~integrators.codegen.VectorCallKernel` of each (one per distinct stage map)."""
    separable = (system.q, system.p) if "separable" in scheme.requires else None
    # keyed by what the generic field is made of: building it (one function per coordinate) costs
    # more than a run of a few steps
    key = (scheme, system.coords, separable)
    hit = _LOWERED.get(key)
    if hit is not None:
        return hit
    generic = _SeparableField(system.chart, *separable) if separable else _GenericField(system.chart)
    stages = scheme.stages(generic)
    by_map, lowered = {}, []
    for st in stages:
        L = by_map.get(id(st.map))
        if L is None:
            if not isinstance(st.map, gc.Map):
                raise SchemeNotApplicableError(f"scheme {scheme.name!r} cannot run on a kernel: its step is implicit"
                                               " in the vector field")
            try:
                L = VectorCallKernel(st.map.exprs, generic.coords, [STEP_SYMBOL], generic.components, generic.slots)
            except NotLowerableError as exc:
                raise SchemeNotApplicableError(f"scheme {scheme.name!r} cannot run on a kernel: {exc}") from exc
            by_map[id(st.map)] = L
        lowered.append(L)
    hit = (tuple(stages), tuple(lowered))
    _LOWERED.put(key, hit)
    return hit


def _float(x) -> float:
    return float(sympy.N(x, 40))


class KernelStep:
    """A step of ``scheme`` on ``system`` with the system's kernel as the vector field.

    The step is the scheme's own step map: its stages (:meth:`Scheme.stages`) built on a
    generic field of the system's chart, each component of the field a call of the kernel
    (:class:`~integrators.codegen.VectorCallKernel`).  ``bind(values)`` as for a
    :class:`~integrators.lower.LoweredStep` (``{symbol: number}`` or a sequence in
    ``parameters`` order: ``h`` then the system's constants).

    Attributes
    ----------
    stages : tuple of Stage
        The scheme's stages on the generic field, in the order they act.
    lowered : tuple of VectorCallKernel
        One per stage (equal maps share one object).
    source : str
        The generated source of each distinct stage map.
    """

    def __init__(self, scheme, system):
        from .catalog import scheme as scheme_by_name

        s = scheme_by_name(scheme)
        s.check_applies(system)
        kernel = kernel_of(system)
        if kernel is None:
            raise SchemeNotApplicableError(f"{system!r} carries no kernel; attach one with"
                                           " integrators.with_kernel(system, kernel)")
        if system.time is not None:
            raise SchemeNotApplicableError(f"kernels are for autonomous systems; {system!r} depends on {system.time}")
        reason = _why_not_on_kernel(s)
        if reason is not None:
            raise SchemeNotApplicableError(f"scheme {s.name!r} cannot run on a kernel: {reason}; use_kernel works"
                                           " for explicit Runge-Kutta methods, Stormer-Verlet and their compositions")
        self.scheme, self.system, self.kernel = s, system, kernel
        self.stages, self.lowered = _lowered_stages(s, system)
        self.parameters = (STEP_SYMBOL, *system.parameters)
        self.dim = system.dim
        self.coords = system.coords
        self.explicit = True
        distinct = {id(L): L for L in self.lowered}
        self.source = "\n".join(f"# stage map {k}\n{L.source}" for k, L in enumerate(distinct.values()))

    def bind(self, values, **newton_options) -> "BoundKernelStep":
        """Bind ``h`` and the constants (Newton options are accepted and unused: the step is explicit)."""
        if isinstance(values, Mapping):
            missing = [s for s in self.parameters if s not in values]
            if missing:
                raise KernelError(f"no value for the parameter(s) {', '.join(map(str, missing))} of the step")
            values = [values[s] for s in self.parameters]
        values = list(values)
        if len(values) != len(self.parameters):
            raise KernelError(f"expected {len(self.parameters)} parameter values for {self.parameters}")
        return BoundKernelStep(self, values)


class BoundKernelStep:
    """A :class:`KernelStep` with ``h`` and the constants bound."""

    def __init__(self, step: KernelStep, values):
        self.step_object = step
        values = [_float(v) if isinstance(v, sympy.Basic) else float(v) for v in values]
        self.params = {s.name: v for s, v in zip(step.parameters[1:], values[1:])}
        # each stage's step gamma h computed at 40 digits and rounded once, as for the lowered stages
        self.stages = [(L, L.scalars(*stage_values([values[0]], st))) for L, st in zip(step.lowered, step.stages)]

    def _f(self, Y):
        return self.step_object.kernel.function(Y, self.params)

    def step_array(self, Y):
        """One step of a ``(batch, dim)`` float array."""
        Y = np.asarray(Y, dtype=float)
        for L, S in self.stages:
            Y = L.kernel(S, self._f, Y)
        return Y

    def step(self, components, step_index=None):
        """One step of the state as a list of per-coordinate arrays (as ``BoundStep.step``).

        The state is handed to the kernel as the transpose of a ``(dim, batch)`` array (Fortran
        order): a kernel that works on ``Y.T`` sees each coordinate as one contiguous row.
        """
        Y = self.step_array(np.array(components, dtype=float).T)
        return [Y[:, i] for i in range(Y.shape[1])]


def kernel_step(scheme, system) -> KernelStep:
    """The step of ``scheme`` on ``system`` (carrying a kernel) with the kernel as the vector field.

    Raises
    ------
    SchemeNotApplicableError
        The scheme does not apply to the system, the system carries no kernel, or the scheme
        is not an explicit Runge-Kutta method, Stormer-Verlet or a composition of those.
    """
    return KernelStep(scheme, system)
