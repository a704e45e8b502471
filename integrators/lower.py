"""Lower the one symbolic step to numbers: batched numpy, or mpmath at a chosen precision.

The input is the very ``gc.Map`` / ``gc.ImplicitMap`` that the certificates are
about.  Python source is generated from it by :mod:`integrators.codegen` (scalars hoisted
and evaluated once per binding, ``LoweredStep.bind``; common subexpressions shared; small
powers as products), as numpy array code (states are arrays of shape ``(batch,)`` per
coordinate) or as mpmath scalar code.  An explicit mpmath step runs on mpmath's raw values
(:class:`RawMpfKernel`: each sum of products formed exactly and rounded once, no mpf objects
inside the step), with the plain mpmath code for the rows it hands back.

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

import functools

import itertools
import linecache
from typing import Mapping

import mpmath
import numpy as np
import sympy

from geomcheck.caches import Memo
import geomcheck as gc
from geomcheck.errors import InvalidArgumentError, NonRealValueError

from .codegen import SMALL_POWERS, Kernel, MpmathPrinter, hoist_scalars, lower_expressions, refuse_generic
from .errors import NotLowerableError
from .newton import StageSolver, check_newton_mode
from .systems import STEP_SYMBOL

__all__ = ["lower", "lower_expressions", "LoweredStep", "BoundStep", "Kernel", "real_rows", "split_implicit",
           "split_step", "RawMpfKernel", "RawFallback", "raw_dot", "raw_div", "raw_round", "raw_of", "RAW_SPREAD_BITS"]

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


def split_step(phi, what="the step map"):
    """``(unknowns, equations, guess, update)``: what the kernels of a step map compute, for every backend.

    An explicit map (``gc.Map``): no unknowns, equations or guesses; ``update`` is its
    expressions of the state.  An implicit map (``gc.ImplicitMap``): the stage unknowns
    (a tuple), the equations they solve (a tuple: the map's ``evaluation_equations`` when it
    carries them, else its equations), their starting guesses (expressions of the state) and
    the new state in the state and the unknowns (:func:`split_implicit`; a map not of that
    form solves for all its unknowns, the new state among them).  :class:`LoweredStep` and
    :mod:`integrators.jax_backend` build their kernels from these.

    Raises
    ------
    NotLowerableError
        An undefined function (a generic map), named after ``what``.

    The implicit midpoint rule on ``q' = p, p' = -q`` with stage slopes ``k1, k2``:

    >>> import sympy, geomcheck as gc
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> Q1, P1, k1, k2 = sympy.symbols("Q1 P1 k1 k2")
    >>> midpoint = gc.ImplicitMap(M, M, [k1 - p - h * k2 / 2, k2 + q + h * k1 / 2, Q1 - q - h * k1, P1 - p - h * k2],
    ...                           new=[Q1, P1], auxiliary=[k1, k2])
    >>> split_step(midpoint)
    ((k1, k2), (-h*k2/2 + k1 - p, h*k1/2 + k2 + q), [0, 0], [h*k1 + q, h*k2 + p])
    >>> split_step(gc.Map(M, M, [q + h * p, p - h * sympy.sin(q)]))
    ((), (), [], (h*p + q, -h*sin(q) + p))
    >>> split_step(gc.Map(M, M, [q + h * p, p - h * sympy.Function("V")(q)]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    integrators.errors.NotLowerableError: the step map contains the undefined function(s) V(q): ...
    """
    if isinstance(phi, gc.Map):
        refuse_generic(phi.exprs, what)
        return (), (), [], phi.exprs
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
    return unknowns, tuple(equations), [phi.guess[u] for u in unknowns], [final[Y] for Y in phi.new]


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
            # mpmath: the same map on raw mpf values, each sum rounded once (RawMpfKernel); None
            # when it has a part that kernel does not print (a Piecewise): the plain kernel runs
            self.raw_update = None
            if backend == "mpmath":
                try:
                    self.raw_update = RawMpfKernel(phi.exprs, self.coords, self.parameters)
                except NotLowerableError:
                    pass
                else:
                    self.source += "# on raw mpf values\n" + self.raw_update.source
            return
        self.explicit = False
        self.raw_update = None
        unknowns, self.equations, guess, update = split_step(phi, what)
        self.unknowns = unknowns
        self.m = len(unknowns)
        self.guess = Kernel(guess, self.coords, self.parameters, backend)
        self.update = Kernel(update, self.coords + unknowns, self.parameters, backend)

    # built when first needed: Newton's method in C (integrators.compiled_newton) lowers only the
    # structurally nonzero entries, and the dense m x m Jacobian of a 200-unknown stage took 27 s

    @functools.cached_property
    def jacobian(self) -> tuple:
        """The stage equations' Jacobian by the unknowns, row by row (implicit steps)."""
        return tuple(sympy.diff(e, u) for e in self.equations for u in self.unknowns)

    @functools.cached_property
    def residual(self) -> Kernel:
        """The kernel of the stage equations and their Jacobian (implicit steps)."""
        return Kernel(list(self.equations) + list(self.jacobian), self.coords + self.unknowns, self.parameters,
                      self.backend)

    @functools.cached_property
    def source(self) -> str:
        """The generated Python source of every kernel (implicit steps; explicit ones set it at once)."""
        return "\n".join(["# guess", self.guess.source, "# residual and Jacobian", self.residual.source,
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
                # a decimal string is read by mpmath (sympify would make it a 15-digit Float)
                vals = [v if isinstance(v, mpmath.mpf) else mpmath.mpf(v) if isinstance(v, str)
                        else mpmath.mpf(sympy.N(sympy.sympify(v), ctx_dps + 5)) for v in values]
                self.S = {name: k.scalars(*vals) for name, k in self._kernels().items()}
                raw = lowered.raw_update
                # None when a hoisted scalar is complex: the plain kernel then runs
                self.raw_S = None if raw is None else raw.bind_scalars(mpmath.mp.prec, raw.scalars(*vals))
        else:
            vals = [float(v) for v in values]
            self.raw_S = None
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
            if self.raw_S is not None and self.raw_S[0] == mpmath.mp.prec:     # (bound at this precision)
                return self._step_raw(y, step_index)
            if L.explicit:
                return real_rows(lambda b, x: L.update.kernel(self.S["update"], *x), y, L.coords, step_index)

            def row(b, x):
                u = self.solver.mpmath(x, dps, trajectory=b, step_index=step_index)
                return L.update.kernel(self.S["update"], *x, *u)

            return real_rows(row, y, L.coords, step_index, self.complex_guess)

    def _step_raw(self, y, step_index):
        """The explicit mpmath step on raw values (:class:`RawMpfKernel`); a row it hands back
        (:class:`RawFallback`) is taken by the plain kernel, with its checks."""
        L = self.lowered
        kernel, S = L.raw_update.kernel, self.raw_S
        if len(y[0]) == 1:                     # one trajectory: no rows to collect
            try:
                return [[v] for v in kernel(S, *[c[0] for c in y])]
            except RawFallback:
                pass
        rows = []
        for b in range(len(y[0])):
            x = [c[b] for c in y]
            try:
                rows.append(kernel(S, *x))
            except RawFallback:
                plain = real_rows(lambda _, x: L.update.kernel(self.S["update"], *x), [[v] for v in x],
                                  L.coords, step_index, first=b)
                rows.append([c[0] for c in plain])
        return [list(column) for column in zip(*rows)] if rows else [[] for _ in L.coords]

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


def real_rows(compute, y, names, step_index=None, diagnose=None, first=0) -> list:
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
    first : int, optional
        The number of the trajectory in the first row (for the messages and ``compute``).

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
    for r in range(len(y[0])):
        x = [c[r] for c in y]
        b = first + r
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


# ------------------------------------------------------------------ mpmath on raw mpf tuples
#
# An mpmath kernel spends most of its time outside the arithmetic: every ``a*b + c`` builds
# two mpf objects, converts, rounds and normalizes twice.  The kernel below works on mpmath's
# raw values (the ``(sign, mantissa, exponent, bitcount)`` tuples of ``mpmath.libmp``): a sum
# of products is computed EXACTLY in integer arithmetic and rounded ONCE to the run's
# precision (round to nearest), the idea of ``mpmath.fdot`` (which, unlike this, may drop a
# term far below the others).  Each sum therefore has an error of at most half a unit in the
# last place, never more than the same sum rounded term by term; the value may differ from
# the term-by-term one in the last place.

class RawFallback(Exception):
    """A value the raw kernel does not evaluate itself: the row is evaluated by the plain mpmath kernel.

    Raised for an input that is not an mpf, an infinity or nan, a complex value inside the step,
    a division by zero, and a sum whose terms differ in size by more than ``RAW_SPREAD_BITS`` +
    4 x the precision (an exact sum would need a huge integer).
    """


#: exponent spread (bits, beyond 4 x the precision) up to which a sum is formed exactly
RAW_SPREAD_BITS = 4096

_FONE = mpmath.libmp.fone
_NEAREST = mpmath.libmp.round_nearest
_normalize = mpmath.libmp.normalize
_exact_mul = mpmath.libmp.mpf_mul          # no precision: the exact product
_make_mpf = mpmath.mp.make_mpf
_MPF = mpmath.mpf


def raw_dot(prec, *xs):
    """``a_1 b_1 + a_2 b_2 + ...`` of raw mpf values ``xs = (a_1, b_1, a_2, b_2, ...)``, rounded once.

    The products and their sum are exact (integers); the result is that exact value rounded
    to ``prec`` bits, to nearest.

    At 53 bits, ``3 t - 1`` with ``t`` the double nearest 1/3 is exactly ``-2**-54``; rounding
    ``3 t`` first gives 1 and loses it:

    >>> import mpmath
    >>> from mpmath.libmp import fone, from_int
    >>> with mpmath.workprec(53):
    ...     t = mpmath.mpf(1) / 3
    ...     stepwise = 3 * t - 1
    >>> exact = raw_dot(53, t._mpf_, from_int(3), fone, from_int(-1))
    >>> mpmath.mpf(exact) == -mpmath.mpf(2) ** -54, stepwise
    (True, mpf('0.0'))
    """
    it = iter(xs)
    man = 0
    exp = None
    limit = 4 * prec + RAW_SPREAD_BITS
    for a, b in zip(it, it):
        s, m, e, _ = a
        t, n, f, _ = b
        m *= n
        if not m:
            if (e and not a[1]) or (f and not b[1]):     # inf or nan (a zero has exponent 0)
                raise RawFallback
            continue
        e += f
        if s != t:
            m = -m
        if exp is None:
            man, exp = m, e
        elif e >= exp:
            if e - exp > limit:
                raise RawFallback
            man += m << (e - exp)
        else:
            if exp - e > limit:
                raise RawFallback
            man = (man << (exp - e)) + m
            exp = e
    if not man:
        return mpmath.libmp.fzero
    if man < 0:
        man = -man
        return _normalize(1, man, exp, man.bit_length(), prec, _NEAREST)
    return _normalize(0, man, exp, man.bit_length(), prec, _NEAREST)


def raw_div(prec, a, b):
    """``a / b`` of raw mpf values, rounded to ``prec`` bits (nearest); a zero or special ``b``: RawFallback."""
    if not b[1] or not a[1] and a[2]:
        raise RawFallback
    return mpmath.libmp.mpf_div(a, b, prec, _NEAREST)


def raw_round(prec, a):
    """``a`` rounded to ``prec`` bits (nearest)."""
    return mpmath.libmp.mpf_pos(a, prec, _NEAREST)


def raw_of(v):
    """The raw value of an mpf; anything else (an mpc: a complex value inside the step): RawFallback."""
    if type(v) is _MPF:
        return v._mpf_
    raise RawFallback


class RawMpfKernel:
    """Generated mpmath code on raw mpf values: ``scalars(*scalar_args)`` and ``kernel(S, *values)``.

    The same expressions as :class:`integrators.codegen.Kernel` (scalars hoisted, common
    subexpressions shared), evaluated differently: every sum, product and quotient of values
    is formed exactly and rounded once (:func:`raw_dot`); other functions (``sin``, ``sqrt``,
    a power with a non-integer exponent, ...) are mpmath's, at the current precision.

    ``kernel(S, *values)`` takes mpf values and returns a tuple of mpf, ``S`` being
    ``bind_scalars(prec, scalars(...))``.  It raises :class:`RawFallback` where the plain kernel
    must be used instead (see there).  Expressions it cannot print (a ``Piecewise``, a
    relation) raise :class:`NotLowerableError` at construction.

    >>> import mpmath, sympy
    >>> q, p, h = sympy.symbols("q p h")
    >>> K = RawMpfKernel([q + h * p, p - h * sympy.sin(q)], [q, p], [h])
    >>> with mpmath.workdps(30):
    ...     S = K.bind_scalars(mpmath.mp.prec, K.scalars(mpmath.mpf("0.1")))
    ...     Q, P = K.kernel(S, mpmath.mpf(1), mpmath.mpf(2))
    ...     print(Q, P == 2 - mpmath.mpf("0.1") * mpmath.sin(1))
    1.2 True
    """

    _ids = itertools.count()

    def __init__(self, outputs, array_args, scalar_args):
        outputs = [sympy.sympify(o) for o in outputs]
        self.n_outputs = len(outputs)
        names = {s: sympy.Symbol(f"y{k}") for k, s in enumerate(array_args)}
        names.update({s: sympy.Symbol(f"a{k}") for k, s in enumerate(scalar_args)})
        outputs = [o.xreplace(names) for o in outputs]
        arrays = {names[s] for s in array_args}
        extra = set().union(set(), *(o.free_symbols for o in outputs)) - set(names.values())
        if extra:
            raise NotLowerableError(f"cannot lower: the expressions contain {sorted(map(str, extra))}")
        hoisted, outputs = hoist_scalars(outputs, arrays, numbers=True)
        printer = MpmathPrinter({"fully_qualified_modules": True, "strict": True})
        scalar_in = [f"a{k}" for k in range(len(scalar_args))]
        lines = [f"def scalars({', '.join(scalar_in)}):"]
        if hoisted:
            reps, reduced = sympy.cse([e for _, e in hoisted], symbols=sympy.numbered_symbols("_t"), order="none")
            lines += [f"    {sym} = {printer.doprint(e)}" for sym, e in reps]
            lines += [f"    {sym} = {printer.doprint(e)}" for (sym, _), e in zip(hoisted, reduced)]
        bound = scalar_in + [str(s) for s, _ in hoisted]
        lines.append(f"    return ({', '.join(bound)},)" if bound else "    return ()")
        body = _RawCode(printer, bound)
        reps, reduced = _inline_monomials(*sympy.cse(outputs, symbols=sympy.numbered_symbols("_x"), order="none"))
        try:
            for sym, e in reps:
                body.assign(e, str(sym))
            results = [body.value(e) for e in reduced]
        except NotLowerableError:
            raise
        except Exception as exc:  # a function the printer does not know
            raise NotLowerableError(f"cannot lower to raw mpmath values: {exc}") from None
        array_in = [str(names[s]) for s in array_args]
        lines += body.constants
        # the exact products of scalars, once per binding
        lines.append("def exact_products(_S):")
        lines.append(f"    ({', '.join(['_P'] + bound)},) = _S")
        lines += ["    " + line for line in body.bind_lines]
        lines.append(f"    return _S + ({''.join(name + ', ' for name in body.products.values())})")
        lines.append(f"def kernel(_S, {', '.join(array_in)}):")
        lines.append(f"    ({', '.join(['_P'] + bound + list(body.products.values()))},) = _S")
        # the inputs' raw values (an input that is not an mpf has none: the plain kernel takes it)
        lines.append("    try:")
        lines += [f"        {y} = {y}._mpf_" for y in array_in]
        lines.append("    except AttributeError:")
        lines.append("        raise RawFallback from None")
        lines += ["    " + line for line in body.lines]
        # an output that is an input or a scalar is rounded to the precision, as every computed one is
        computed = set(body.computed)
        outs = [f"_M({r})" if r in computed else f"_M(raw_round(_P, {r}))" for r in results]
        lines.append(f"    return ({', '.join(outs)},)")
        self.source = "\n".join(lines) + "\n"
        filename = f"<integrators-lowered-raw-mpmath-{next(self._ids)}>"
        linecache.cache[filename] = (len(self.source), None, self.source.splitlines(True), filename)
        namespace = {"mpmath": mpmath, "RawFallback": RawFallback, "raw_dot": raw_dot, "raw_div": raw_div,
                     "raw_round": raw_round, "raw_of": raw_of, "_M": _make_mpf, "_W": _make_mpf,
                     "_exact_mul": _exact_mul, "_ONE": _FONE, "from_int": mpmath.libmp.from_int}
        exec(compile(self.source, filename, "exec"), namespace)
        self.scalars = namespace["scalars"]
        self.kernel = namespace["kernel"]
        self._exact_products = namespace["exact_products"]

    def bind_scalars(self, prec, values):
        """The ``S`` of :meth:`kernel`: the precision, the raw values of ``scalars(...)`` and the exact
        products of scalars the kernel uses; None if a value is complex."""
        if any(type(v) is not _MPF for v in values):
            return None
        return self._exact_products((prec, *(v._mpf_ for v in values)))


def _inline_monomials(reps, outputs):
    """``(reps, outputs)`` of ``sympy.cse`` with each subexpression ``n * x`` (an integer times a symbol)
    written out where it is used: a sum takes ``n x`` as one exact term, no rounding."""
    inline, kept = {}, []
    for sym, e in reps:
        e = e.xreplace(inline)
        if e.is_Mul and len(e.args) == 2 and e.args[0].is_Integer and e.args[1].is_Symbol:
            inline[sym] = e
        else:
            kept.append((sym, e))
    return kept, [o.xreplace(inline) for o in outputs]


class _RawCode:
    """The statements of a :class:`RawMpfKernel`: each sum, product or quotient one exact rounded step."""

    def __init__(self, printer, scalars):
        self.printer = printer
        self.lines, self.constants, self.computed, self.bind_lines = [], [], [], []
        self.scalar_names = set(scalars) | {"_ONE"}
        self.products = {}            # sorted scalar names -> the name of their exact product (per binding)
        self.integers = {}
        self.count = itertools.count()

    def fresh(self):
        return f"_r{next(self.count)}"

    def integer(self, n):
        name = self.integers.get(int(n))
        if name is None:
            name = self.integers[int(n)] = f"_c{len(self.integers)}"
            self.constants.append(f"{name} = from_int({int(n)})")       # exact
            self.scalar_names.add(name)
        return name

    def value(self, e):
        """The name of a raw value equal to ``e`` (rounded once where it is computed)."""
        if e.is_Symbol:
            return str(e)
        if e.is_Integer:
            return self.integer(e)
        return self.assign(e, self.fresh())

    def factors(self, e):
        """``(numerator, denominator)``: names whose exact products make ``e`` (a product or a small power)."""
        num, den = [], []
        for a in sympy.Mul.make_args(e):
            b, k = a.as_base_exp()
            if k.is_Integer and 1 <= abs(k) <= SMALL_POWERS and not (b.is_Integer and k < 0):
                (num if k > 0 else den).extend([self.value(b)] * abs(int(k)))
            else:
                num.append(self.value(a))
        return num, den

    def scalar_product(self, names):
        """A name of the exact product of the scalars ``names``, formed once per binding."""
        names = [n for n in names if n != "_ONE"]
        if len(names) <= 1:
            return names[0] if names else "_ONE"
        key = tuple(sorted(names))
        name = self.products.get(key)
        if name is None:
            name = self.products[key] = f"_e{len(self.products)}"
            self.scalar_names.add(name)
            acc = key[0]
            for k, n in enumerate(key[1:]):
                t = name if k == len(key) - 2 else f"{name}_{k}"
                self.bind_lines.append(f"{t} = _exact_mul({acc}, {n})")
                acc = t
        return name

    def split(self, names):
        """``(scalar, values)``: the exact product of the scalars among ``names`` and the other names."""
        return (self.scalar_product([n for n in names if n in self.scalar_names]),
                [n for n in names if n not in self.scalar_names])

    def exact_product(self, names):
        """A name of the exact product of ``names`` (no rounding)."""
        scalar, values = self.split(names)
        acc = scalar
        for n in values:
            if acc == "_ONE":
                acc = n
                continue
            t = self.fresh()
            self.lines.append(f"{t} = _exact_mul({acc}, {n})")
            acc = t
        return acc

    def pair(self, names):
        """Two names whose exact product is the exact product of ``names``."""
        scalar, values = self.split(names)
        if len(values) <= 1:
            return [scalar, values[0] if values else "_ONE"]
        return [self.exact_product([scalar] + values[:-1]), values[-1]]

    def assign(self, e, target):
        """Emit ``target = <e>``; returns ``target``."""
        if e.is_Add or (e.is_Mul and any(a.is_Add for a in e.args)):
            pairs = [n for term in sympy.Add.make_args(e) for n in self.term_pairs(term)]
            self.lines.append(f"{target} = raw_dot(_P, {', '.join(pairs)})")
        elif e.is_Mul or (e.is_Pow and e.exp.is_Integer and 1 <= abs(e.exp) <= SMALL_POWERS):
            num, den = self.factors(e)
            if den:
                self.lines.append(f"{target} = raw_div(_P, {self.exact_product(num)}, {self.exact_product(den)})")
            else:
                self.lines.append(f"{target} = raw_dot(_P, {', '.join(self.pair(num))})")
        elif e.is_Symbol or e.is_Integer:
            self.lines.append(f"{target} = {self.value(e)}")
            return target
        elif isinstance(e, sympy.Function) or e.is_Pow:
            if any(not isinstance(a, sympy.Expr) for a in e.args):
                raise NotLowerableError(f"cannot lower {e} to raw mpmath values")
            wrapped = {}
            for a in e.args:
                if a.is_Number:
                    continue
                w = sympy.Symbol(f"_w{next(self.count)}")
                self.lines.append(f"{w} = _W({self.value(a)})")
                wrapped[a] = w
            text = self.printer.doprint(e.func(*[wrapped.get(a, a) for a in e.args]))
            self.lines.append(f"{target} = raw_of({text})")
        else:
            raise NotLowerableError(f"cannot lower {type(e).__name__} ({e}) to raw mpmath values")
        self.computed.append(target)
        return target

    def term_pairs(self, term):
        """Names ``a_1, b_1, a_2, b_2, ...`` with ``sum a_k b_k`` EXACTLY equal to ``term``.

        A scalar multiple of a sum, ``c (a x + b y)``, is distributed: ``(c a) x + (c b) y``
        with ``c a`` and ``c b`` exact products formed once per binding -- the inner sum is
        then not rounded on its own.
        """
        if term.is_Mul:
            sums = [a for a in term.args if a.is_Add]
            rest = [a for a in term.args if not a.is_Add]
            if len(sums) == 1 and all(a.is_Integer or str(a) in self.scalar_names for a in rest):
                inner = [n for t in sympy.Add.make_args(sums[0]) for n in self.term_pairs(t)]
                scale = [self.value(a) for a in rest]
                if all(a in self.scalar_names for a in inner[::2]):
                    return [n for a, b in zip(inner[::2], inner[1::2]) for n in (self.scalar_product(scale + [a]), b)]
                t = self.fresh()
                self.lines.append(f"{t} = raw_dot(_P, {', '.join(inner)})")
                self.computed.append(t)
                return [self.scalar_product(scale), t]
        num, den = self.factors(term) if term.is_Mul or term.is_Pow else ([self.value(term)], [])
        return [self.quotient(num, den), "_ONE"] if den else self.pair(num)

    def quotient(self, num, den):
        """A name of ``prod(num) / prod(den)``, rounded once."""
        t = self.fresh()
        self.lines.append(f"{t} = raw_div(_P, {self.exact_product(num)}, {self.exact_product(den)})")
        self.computed.append(t)
        return t


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
