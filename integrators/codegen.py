"""Code generation: sympy expressions printed as numpy, mpmath or C source and compiled once.

One generator serves every path that runs a step (:mod:`integrators.lower` for numpy and
mpmath, :mod:`integrators.newton` for the stage equations, :mod:`integrators.compiled`
for C):

* every subexpression that depends only on the scalars (the step size, the constants:
  ``h/2``, ``sqrt(3)/6 * h`` ...) is *hoisted* (:func:`hoist_scalars`) into a function of
  those scalars, evaluated once per binding, not once per array element;
* the rest shares its common subexpressions (``sympy.cse``);
* small integer powers are printed as products (``x*x*x``, :func:`power_text`), which numpy
  evaluates much faster than ``x**3`` and C as IEEE products like numpy.

Only concrete expressions can be generated: an undefined function (``V(q)``) has no numeric
value (:func:`refuse_generic`) -- except the components of a vector function given as numbers
only (a system's hand-written kernel, :mod:`integrators.kernels`): :class:`VectorCallKernel`
makes each of its calls one call of that function, on whole ``(batch, dim)`` arrays.

>>> import sympy
>>> q, p, h = sympy.symbols("q p h")
>>> K = lower_expressions([q + h / 2 * p], [q, p], [h])
>>> S = K.scalars(0.2)
>>> K.kernel(S, 1.0, 2.0)
(1.2,)
"""

from __future__ import annotations

import itertools
import linecache

import mpmath
import numpy as np
import sympy
from sympy.core.function import AppliedUndef
from sympy.printing.c import C99CodePrinter
from sympy.printing.numpy import NumPyPrinter as SympyNumPyPrinter
from sympy.printing.pycode import MpmathPrinter as SympyMpmathPrinter

from .errors import NotLowerableError

__all__ = ["Kernel", "VectorCallKernel", "lower_expressions", "hoist_scalars", "power_text", "refuse_generic",
           "NumpyPrinter", "MpmathPrinter", "CPrinter", "SMALL_POWERS"]

SMALL_POWERS = 4


def power_text(printer, expr, base_print):
    b, e = expr.as_base_exp()
    if e.is_Integer and 2 <= e <= SMALL_POWERS:
        s = printer.parenthesize(b, 100)  # atom-level parentheses
        # the product is bracketed as a whole: the printers place a power, which binds
        # tighter than * and /, unbracketed in a denominator (y/b**2) or an exponent
        return "(" + "*".join([s] * int(e)) + ")"
    if e.is_Integer and -SMALL_POWERS <= e <= -1:
        s = printer.parenthesize(b, 100)
        return "1/(" + "*".join([s] * int(-e)) + ")"
    return base_print(expr)


class NumpyPrinter(SympyNumPyPrinter):
    """numpy code with small integer powers as products."""

    def _print_Pow(self, expr, rational=False):
        return power_text(self, expr, lambda e: super(NumpyPrinter, self)._print_Pow(e, rational=rational))


class MpmathPrinter(SympyMpmathPrinter):
    """mpmath code with small integer powers as products and exact rationals as mpf quotients."""

    def _print_Pow(self, expr, rational=False):
        return power_text(self, expr, lambda e: super(MpmathPrinter, self)._print_Pow(e, rational=rational))

    def _print_Integer(self, expr):
        return f"mpmath.mpf({int(expr)})"


class CPrinter(C99CodePrinter):
    """C99 with small integer powers as products (as the numpy path) and integers as double literals."""

    def __init__(self):
        super().__init__({"strict": True})

    def _print_Pow(self, expr, rational=False):
        return power_text(self, expr, lambda e: super(CPrinter, self)._print_Pow(e))

    def _print_Integer(self, expr):
        # a double literal: an int literal could overflow, and int/int would truncate in C
        return repr(float(expr))


def _undefined(e):
    """Applications of undefined functions (and of geomcheck's jets of them) in ``e``."""
    from geomcheck.zero import Jet

    return {f for f in e.atoms(sympy.Function) if isinstance(f, (AppliedUndef, Jet))}


def refuse_generic(exprs, what):
    for e in exprs:
        bad = _undefined(e)
        if bad:
            names = ", ".join(sorted({str(f) for f in bad}))
            raise NotLowerableError(
                f"{what} contains the undefined function(s) {names}: a generic system stands for every"
                " such function and has no numeric value; give a concrete expression (e.g. -cos(q) for V(q))"
                " to integrate it numerically"
            )
        if e.has(sympy.Derivative, sympy.Subs, sympy.Integral):
            raise NotLowerableError(f"{what} contains an unevaluated derivative or integral: {e}")


class Kernel:
    """Generated functions for a list of outputs: ``scalars(*scalar_args)`` and ``kernel(S, *arrays)``.

    ``kernel`` returns the tuple of outputs; an output that does not depend on the arrays
    is a scalar (broadcast it).
    """

    _ids = itertools.count()

    def __init__(self, outputs, array_args, scalar_args, backend="numpy", printer=None, modules=None):
        """``backend``: "numpy" or "mpmath" (their printers), or the name of another array library
        whose ``printer`` (a sympy code printer) and ``modules`` (``{name: module}`` the printed
        code refers to) are given, e.g. jax (:mod:`integrators.jax_backend`)."""
        self.backend = backend
        self.n_outputs = len(outputs)
        outputs = [sympy.sympify(o) for o in outputs]
        self.array_args = tuple(array_args)
        self.scalar_args = tuple(scalar_args)
        arrays = set(array_args)
        extra = set().union(*(o.free_symbols for o in outputs)) - arrays - set(scalar_args) if outputs else set()
        if extra:
            raise NotLowerableError(
                f"cannot lower: the expressions contain {sorted(map(str, extra))}, which are neither state"
                f" coordinates nor the bound parameters {[str(s) for s in scalar_args]}"
            )
        # safe names
        names = {}
        for k, s in enumerate(self.array_args):
            names[s] = sympy.Symbol(f"y{k}")
        for k, s in enumerate(self.scalar_args):
            names[s] = sympy.Symbol(f"a{k}")
        outputs = [o.xreplace(names) for o in outputs]
        array_names = {names[s] for s in self.array_args}
        hoisted, outputs = hoist_scalars(outputs, array_names, numbers=backend == "mpmath")
        if printer is None:
            printer = NumpyPrinter({"fully_qualified_modules": True, "strict": True}) if backend == "numpy" \
                else MpmathPrinter({"fully_qualified_modules": True, "strict": True})
        try:
            self._generate(outputs, hoisted, names, printer)
        except Exception as exc:  # a function the printer does not know
            if isinstance(exc, NotLowerableError):
                raise
            raise NotLowerableError(f"cannot lower to {backend}: {exc}") from None
        namespace = _compiled(self.source, f"<integrators-lowered-{backend}-{next(self._ids)}>", modules)
        self.scalars = namespace["scalars"]
        self.kernel = namespace["kernel"]

    def _generate(self, outputs, hoisted, names, printer):
        array_names = {names[s] for s in self.array_args}
        lines, bound = _scalars_source([str(names[s]) for s in self.scalar_args], hoisted, printer)
        array_in = ", ".join(str(names[s]) for s in self.array_args)
        lines.append(f"def kernel(_S, {array_in}):")
        if bound:
            lines.append(f"    ({', '.join(bound)},) = _S")
        reps, reduced = sympy.cse(outputs, symbols=sympy.numbered_symbols("_x"), order="none")
        for sym, e in reps:
            lines.append(f"    {sym} = {printer.doprint(e)}")
        lines.append(f"    return ({', '.join(printer.doprint(e) for e in reduced)},)")
        self.source = "\n".join(lines) + "\n"
        self.is_array = [bool(e.free_symbols & (array_names | {s for s, _ in reps})) for e in reduced]


def _scalars_source(scalar_in, hoisted, printer):
    """``(lines, bound)``: the source of ``scalars(*scalar_in)`` computing the hoisted scalars, and their names."""
    lines = [f"def scalars({', '.join(scalar_in)}):"]
    if hoisted:
        reps, reduced = sympy.cse([e for _, e in hoisted], symbols=sympy.numbered_symbols("_t"), order="none")
        for sym, e in reps:
            lines.append(f"    {sym} = {printer.doprint(e)}")
        for (sym, _), e in zip(hoisted, reduced):
            lines.append(f"    {sym} = {printer.doprint(e)}")
    bound = list(scalar_in) + [str(s) for s, _ in hoisted]
    lines.append(f"    return ({', '.join(bound)},)" if bound else "    return ()")
    return lines, bound


def _compiled(source, filename, modules=None):
    """The namespace of the generated ``source``, registered with linecache so tracebacks show it."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"numpy": np, "mpmath": mpmath, **(modules or {})}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


class VectorCallKernel:
    """Generated numpy code for a new state whose expressions call an opaque vector function.

    The new state (``outputs``, one expression per coordinate) may contain *calls*: an
    application ``F(a_1, ..., a_n)`` of a function ``F`` of ``components`` is the component
    ``components[F]`` of a vector function ``f: R^n -> R^n`` -- a hand-written kernel, known
    only by its values -- at the point ``(a_1, ..., a_n)``.  All components taken at the same
    point (the same argument expressions) are ONE call of ``f``.  A point may contain the
    results of other calls (a Runge-Kutta stage reads the slopes before it), so the calls are
    made in dependency order, each point built from the state and the earlier results.

    The code works on whole arrays, as ``f`` does: the state ``Y`` has shape ``(batch, n)``
    (its columns in ``coords`` order), and so have every point and every result.  The
    components of a point (or of the new state) that are one formula up to the column they
    read -- ``y_c + h/2 k_c`` for every ``c``, the usual case -- are computed together, on all
    columns at once or on the slice (or index array) of columns they cover; a component that
    reads another column than its own reads it as a ``(batch, 1)`` column.  A sum of arrays
    and their scalar multiples (every point and new state of a Runge-Kutta or splitting step)
    is accumulated in place, into the columns of the new array where it can, in the order the
    printer writes it: the value of the printed formula, without a fresh ``(batch, n)``
    temporary per operation.  Scalars are hoisted as for :class:`Kernel`; a formula met twice
    (a drift's positions, which are also the new positions) is computed once.

    Parameters
    ----------
    outputs : sequence of sympy expressions
        The new state, one expression per coordinate.
    coords : sequence of Symbol
        The coordinates: the columns of ``Y``.
    scalar_args : sequence of Symbol
        The scalars bound once per binding (the step size, constants).
    components : mapping {undefined function: int}
        The column of ``f``'s value each function stands for.
    slots : mapping {undefined function: sequence of int}, optional
        For a function that takes fewer than ``n`` arguments: the columns of the point its
        arguments are.  The point's other columns are those of the state ``Y`` (a component
        that does not depend on them, as ``q' = T_p(p)``, has the same value whatever they are).

    Attributes
    ----------
    points : tuple of tuple
        The point of each call, in the order the calls are made; in the expressions a call's
        result is the symbol ``results[j][c]`` (a Dummy).
    results : tuple of tuple of Dummy
    source : str
        The generated source: ``scalars(*scalar_values) -> S`` and ``kernel(S, f, Y) -> new Y``.

    Raises
    ------
    NotLowerableError
        Not one output per coordinate; a call whose point has not ``n`` coordinates; another
        undefined function, or a derivative; a symbol that is neither a coordinate nor a scalar.

    Examples
    --------
    The midpoint rule on ``f``, written with the components ``F1, F2`` of ``f``:

    >>> import numpy as np
    >>> y1, y2, h = sympy.symbols("y1 y2 h")
    >>> F1, F2 = sympy.Function("F1"), sympy.Function("F2")
    >>> mid = [y1 + h / 2 * F1(y1, y2), y2 + h / 2 * F2(y1, y2)]
    >>> V = VectorCallKernel([y1 + h * F1(*mid), y2 + h * F2(*mid)], [y1, y2], [h], {F1: 0, F2: 1})
    >>> len(V.points)                                   # two points: one call each
    2
    >>> rotation = lambda Y: np.stack([Y[:, 1], -Y[:, 0]], axis=1)
    >>> V.kernel(V.scalars(0.1), rotation, np.array([[1.0, 0.0]]))
    array([[ 0.995, -0.1  ]])
    """

    _ids = itertools.count()

    def __init__(self, outputs, coords, scalar_args, components, slots=None):
        self.coords = tuple(coords)
        self.scalar_args = tuple(scalar_args)
        n = len(self.coords)
        outputs = [sympy.sympify(o) for o in outputs]
        if len(outputs) != n:
            raise NotLowerableError(f"a new state needs one expression per coordinate: {len(outputs)} expressions for"
                                    f" the {n} coordinates {[str(c) for c in self.coords]}")
        points, results, outputs = _separate_calls(outputs, dict(components), dict(slots or {}), self.coords)
        self.points, self.results = tuple(points), tuple(results)
        exprs = [*itertools.chain(*points), *outputs]
        for e in exprs:
            other = _undefined(e)
            if other:
                raise NotLowerableError(
                    f"the expressions contain the undefined function(s) {', '.join(sorted(map(str, other)))}, which"
                    " are no components of the vector function; only its calls can be evaluated")
            if e.has(sympy.Derivative, sympy.Subs, sympy.Integral):
                raise NotLowerableError(f"the expressions contain an unevaluated derivative or integral: {e}")
        # private names: the coordinates become columns, the scalars a0, a1, ... (as in Kernel)
        columns = tuple(sympy.Dummy(f"y{c}") for c in range(n))
        names = dict(zip(self.coords, columns))
        names.update({s: sympy.Symbol(f"a{k}") for k, s in enumerate(self.scalar_args)})
        exprs = [e.xreplace(names) for e in exprs]
        arrays = set(columns) | {k for row in self.results for k in row}
        scalars = {names[s] for s in self.scalar_args}
        extra = set().union(*(e.free_symbols for e in exprs)) - arrays - scalars if exprs else set()
        if extra:
            raise NotLowerableError(
                f"cannot lower: the expressions contain {sorted(map(str, extra))}, which are neither coordinates"
                f" nor the bound parameters {[str(s) for s in self.scalar_args]}")
        hoisted, exprs = hoist_scalars(exprs, arrays)
        printer = NumpyPrinter({"fully_qualified_modules": True, "strict": True})
        lines, bound = _scalars_source([f"a{k}" for k in range(len(self.scalar_args))], hoisted, printer)
        code = _ArrayCode(columns, self.results, scalars | {sym for sym, _ in hoisted}, printer)
        vectors = [exprs[j * n:(j + 1) * n] for j in range(len(points) + 1)]
        try:
            for j, point in enumerate(vectors[:-1]):
                code.lines.append(f"K{j} = _f({code.vector(point, f'P{j}')})")
            code.lines.append(f"return {code.vector(vectors[-1], 'out')}")
        except Exception as exc:  # a function the printer does not know
            raise NotLowerableError(f"cannot lower to numpy: {exc}") from None
        lines += code.constants
        lines.append("def kernel(_S, _f, Y):")
        if bound:
            lines.append(f"    ({', '.join(bound)},) = _S")
        lines += ["    " + line for line in code.lines]
        self.source = "\n".join(lines) + "\n"
        namespace = _compiled(self.source, f"<integrators-vector-calls-{next(self._ids)}>")
        self.scalars = namespace["scalars"]
        self.kernel = namespace["kernel"]


def _separate_calls(outputs, components, slots, coords):
    """``(points, results, outputs)``: the distinct call points in dependency order, the symbols of
    each call's result (one per column), and the outputs with each call replaced by its symbol."""
    index, points, results, memo = {}, [], [], {}
    n = len(coords)

    def visit(e):
        r = memo.get(e)
        if r is not None:
            return r
        column = components.get(e.func) if isinstance(e, AppliedUndef) else None
        if column is not None:
            where = slots.get(e.func, range(n))
            if len(e.args) != len(where):
                raise NotLowerableError(f"{e} is a call of the vector function with {len(e.args)} arguments; it"
                                        f" takes {len(where)} (the state has {n} coordinates)")
            # the arguments first: a call inside them gets its number before this one
            point = list(coords)
            for c, a in zip(where, e.args):
                point[c] = visit(a)
            point = tuple(point)
            j = index.get(point)
            if j is None:
                j = index[point] = len(points)
                points.append(point)
                results.append(tuple(sympy.Dummy(f"k{j}_{c}") for c in range(n)))
            r = results[j][column]
        elif e.args:
            args = [visit(a) for a in e.args]
            r = e if all(x is y for x, y in zip(args, e.args)) else e.func(*args)
        else:
            r = e
        memo[e] = r
        return r

    outputs = [visit(o) for o in outputs]
    return points, results, outputs


class _ArrayCode:
    """The lines of a :class:`VectorCallKernel` that build points and the new state from columns."""

    def __init__(self, columns, results, scalars, printer):
        self.n = len(columns)
        self.printer = printer
        self.scalar_symbols = frozenset(scalars)
        self.scalar_names = frozenset(str(s) for s in scalars)
        self.own = sympy.Symbol("_y")
        self.own_results = [sympy.Symbol(f"_k{j}") for j in range(len(results))]
        self.arrays = {y: (None, c) for c, y in enumerate(columns)}
        self.arrays.update({k: (j, c) for j, row in enumerate(results) for c, k in enumerate(row)})
        self.columns, self.results = columns, results
        self.lines, self.constants = [], []
        self.values = {}          # (formula, columns) -> the text of its value
        self.views = {}           # (array name, columns) -> the variable holding that view
        self.read = set()         # the (batch, 1) columns read so far
        self.indices = {}         # columns -> their index text

    def vector(self, exprs, name):
        """Emit the lines of a point (or of the new state) and return the name holding it."""
        groups = {}
        for c, e in enumerate(exprs):
            own = {self.columns[c]: self.own, **{row[c]: k for row, k in zip(self.results, self.own_results)}}
            groups.setdefault(e.xreplace(own), []).append(c)
        everything = tuple(range(self.n))
        if len(groups) == 1:
            (formula, cols), = groups.items()
            if tuple(cols) == everything and formula.free_symbols & {self.own, *self.own_results}:
                return self._value(formula, everything)
        self.lines.append(f"{name} = numpy.empty_like(Y)")
        for formula, cols in groups.items():
            cols = tuple(cols)
            key, index = (formula, cols), self._index(cols)
            if key in self.values or formula in self._bare() or index.startswith("_ix"):
                # computed before, a copy, or columns an index array picks (a copy, not a view)
                self.lines.append(f"{name}[:, {index}] = {self._value(formula, cols)}")
                continue
            # computed in place, in the columns of the new array
            target = f"_d{len(self.values)}"
            self.lines.append(f"{target} = {name}[:, {index}]")
            self._evaluate(self._resolve(formula, cols), target, fresh=False)
            self.values[key] = target
        return name

    def _bare(self):
        return {self.own: "Y", **{k: f"K{j}" for j, k in enumerate(self.own_results)}}

    def _value(self, formula, cols):
        """The text of ``formula`` on the columns ``cols``: an array's columns, or a variable computed once."""
        key = (formula, cols)
        if key in self.values:
            return self.values[key]
        bare = self._bare()
        if formula in bare:                   # the columns themselves: no copy before they are stored
            text = bare[formula] if cols == tuple(range(self.n)) else f"{bare[formula]}[:, {self._index(cols)}]"
        else:
            text = f"_g{len(self.values)}"
            self._evaluate(self._resolve(formula, cols), text, fresh=True)
        self.values[key] = text
        return text

    def _resolve(self, formula, cols):
        """``formula`` on the columns ``cols`` in the names of the generated code."""
        everything = cols == tuple(range(self.n))
        names = {}
        if self.own in formula.free_symbols:
            names[self.own] = sympy.Symbol("Y") if everything else self._view("Y", cols)
        for j, k in enumerate(self.own_results):
            if k in formula.free_symbols:
                names[k] = sympy.Symbol(f"K{j}") if everything else self._view(f"K{j}", cols)
        for s in formula.free_symbols & self.arrays.keys():
            names[s] = self._column(*self.arrays[s])
        return formula.xreplace(names)

    def _evaluate(self, e, target, fresh):
        """Emit lines that compute ``e`` into ``target``: a new array (``fresh``) or a view to fill.

        A sum of arrays and scalar multiples of arrays -- every point and new state of a
        Runge-Kutta or splitting step -- is accumulated in place, term by term in the order the
        printer writes it (so the value is that of the printed formula): on ``(batch, dim)``
        arrays each temporary of a plain expression is a fresh allocation, which costs more
        than the arithmetic.  Anything else is printed as it is.
        """
        if e.is_Add:
            terms = self.printer._as_ordered_terms(e, order=None)
            # a + b == b + a exactly: start from a term that is not a bare array (no copy), and a
            # new array from a term of its full width (a column read as (batch, 1) is narrower)
            if self._is_array(terms[0]) and not self._is_array(terms[1]) and (self._wide(terms[1]) or not fresh):
                terms[0], terms[1] = terms[1], terms[0]
            if fresh and not self._wide(terms[0]):
                terms[0], terms[1] = terms[1], terms[0]
            if fresh and not self._wide(terms[0]):
                self.lines.append(f"{target} = {self._printed(e)}")
                return
            self._evaluate(terms[0], target, fresh)
            for t in terms[1:]:
                if self._is_array(t) or self._is_multiple(t):
                    self.lines.append(f"{target} += {self._printed(t)}")
                else:
                    partial = f"{target}_{len(self.lines)}"
                    self._evaluate(t, partial, fresh=True)
                    self.lines.append(f"{target} += {partial}")
            return
        scalar = self._scalar_part(e) if e.is_Mul else 1
        rest = e / scalar
        if scalar != 1 and self._is_array(rest):
            if fresh:
                self.lines.append(f"{target} = numpy.multiply({rest}, {self._printed(scalar)})")
            else:
                self.lines.append(f"numpy.multiply({rest}, {self._printed(scalar)}, out={target})")
            return
        if scalar != 1 and rest.is_Add:
            # printed s*(a + b): the sum first, then its multiple
            self._evaluate(rest, target, fresh)
            self.lines.append(f"{target} *= {self._printed(scalar)}")
            return
        if fresh:
            text = self._printed(e)
            self.lines.append(f"{target} = {text}.copy()" if self._is_array(e) else f"{target} = {text}")
        else:
            self.lines.append(f"{target}[...] = {self._printed(e)}")

    def _is_array(self, e):
        return e.is_Symbol and e.name not in self.scalar_names

    def _wide(self, e):
        """True when ``e`` has the width of its group: it reads a column range, not only (batch, 1) columns."""
        return any(s.name not in self.scalar_names and s.name not in self.read for s in e.free_symbols)

    def _is_multiple(self, e):
        return e.is_Mul and self._is_array(e / self._scalar_part(e))

    def _scalar_part(self, e):
        return sympy.Mul(*[a for a in e.args if not (a.free_symbols - self.scalar_symbols)])

    def _printed(self, e):
        """The text of ``e``, its common subexpressions assigned first."""
        reps, (reduced,) = sympy.cse([e], symbols=sympy.numbered_symbols(f"_x{len(self.lines)}_"), order="none")
        for sym, r in reps:
            self.lines.append(f"{sym} = {self.printer.doprint(r)}")
        return self.printer.doprint(reduced)

    def _view(self, array, cols):
        """A variable holding the view ``array[:, cols]`` (made once)."""
        key = (array, cols)
        name = self.views.get(key)
        if name is None:
            name = self.views[key] = sympy.Symbol(f"_v{len(self.views)}")
            self.lines.append(f"{name} = {array}[:, {self._index(cols)}]")
        return name

    def _column(self, j, c):
        """Column ``c`` of the state (``j`` None) or of call ``j``'s result, as a ``(batch, 1)`` array."""
        name = f"_y_{c}" if j is None else f"_k{j}_{c}"
        if name not in self.read:
            self.read.add(name)
            self.lines.append(f"{name} = {'Y' if j is None else f'K{j}'}[:, {c}:{c + 1}]")
        return sympy.Symbol(name)

    def _index(self, cols):
        """``cols`` as an index of the second axis: a slice where they are evenly spaced, else an index array."""
        text = self.indices.get(cols)
        if text is None:
            steps = {b - a for a, b in zip(cols, cols[1:])}
            if not steps or steps == {1}:
                text = f"{cols[0]}:{cols[-1] + 1}"
            elif len(steps) == 1 and min(steps) > 0:
                text = f"{cols[0]}:{cols[-1] + 1}:{steps.pop()}"
            else:
                text = f"_ix{len(self.constants)}"
                self.constants.append(f"{text} = numpy.array({list(cols)}, dtype=numpy.intp)")
            self.indices[cols] = text
        return text


def hoist_scalars(outputs, arrays, numbers=False):
    """Replace maximal scalar subexpressions (free of the arrays) by symbols ``_s<k>``.

    With ``numbers`` (mpmath), non-integer numbers are hoisted too: ``mpf(1)/mpf(3)`` is
    then computed once per binding instead of once per trajectory and step.
    """
    memo_arr = {}
    table = {}
    order = []
    counter = itertools.count()

    def depends(e):
        r = memo_arr.get(e)
        if r is None:
            r = bool(e.free_symbols & arrays)
            memo_arr[e] = r
        return r

    def hoist(e):
        if e.is_Atom and not (numbers and e.is_Number and not e.is_Integer):
            return e
        s = table.get(e)
        if s is None:
            s = sympy.Symbol(f"_s{next(counter)}")
            table[e] = s
            order.append((s, e))
        return s

    memo = {}

    def visit(e):
        r = memo.get(e)
        if r is not None:
            return r
        if not depends(e) and isinstance(e, sympy.Expr):
            # only expressions are hoisted: the branches (expr, cond) of a Piecewise and its
            # conditions are not values, and are rebuilt with their hoisted parts below
            r = hoist(e)
        elif e.is_Pow and e.exp.is_Number:
            r = e.func(visit(e.base), e.exp)
        elif e.is_Add or e.is_Mul:
            sc = [a for a in e.args if not depends(a)]
            ar = [visit(a) for a in e.args if depends(a)]
            r = e.func(hoist(e.func(*sc)), *ar) if sc else e.func(*ar)
        elif e.args:
            r = e.func(*[visit(a) for a in e.args])
        else:
            r = e
        memo[e] = r
        return r

    out = [visit(o) for o in outputs]
    return order, out


def lower_expressions(exprs, coords, parameters, backend="numpy", what="expression"):
    """A :class:`Kernel` for expressions in ``coords`` with scalar ``parameters``."""
    exprs = [sympy.sympify(e) for e in exprs]
    refuse_generic(exprs, what)
    return Kernel(exprs, coords, parameters, backend)
