"""A rigorous enclosure of a discrete trajectory: the certified step map in arb ball arithmetic.

:func:`run_arb` lowers the same symbolic step map that the certificates are about (the
scheme's stages on the system) to Python code on python-flint's ``arb`` balls (a midpoint
and a radius, every operation rounding outward) and iterates it.  The final balls enclose
the **exact-arithmetic iterate of the discrete map**: the state reached from the given
``y0`` by ``steps`` applications of the step map with the given ``dt``, every operation
carried out in exact real arithmetic -- ``y0``, ``dt`` and the system's constants taken as
the exact numbers they denote (a decimal string ``"0.1"`` is 1/10, a float is its binary
value).  They do **not** enclose the flow of the ODE: the distance to the flow is the
scheme's error, which no rounding analysis sees.

Since the exact iterate lies in the balls, ``|v - mid| + radius`` bounds rigorously how far
any value ``v`` -- the result of an mpmath run of the same map, say -- is from it
(:meth:`ArbState.error_bound`); :meth:`ArbState.contains` tells whether ``v`` lies in the balls
(it does when ``v`` is more accurate than the balls are wide).

python-flint is optional (``pip install 'geomcheck[arb]'``); without it :func:`run_arb`
raises :class:`geomcheck.errors.MissingDependencyError`.

Stormer-Verlet on the harmonic oscillator is a linear map with rational entries for
h = 1/10, so its exact iterate is a pair of rationals (computed here with sympy); the
balls contain it and are narrower than 10^-30:

>>> import integrators as ig, sympy
>>> from integrators.systems import STEP_SYMBOL as h
>>> q, p = sympy.symbols("q p")
>>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
>>> r = run_arb(osc, "stormer-verlet", ["1", "0"], "1/10", 10, digits=30)
>>> phi = ig.scheme("stormer-verlet").step_map(osc)
>>> y = [sympy.Integer(1), sympy.Integer(0)]
>>> for _ in range(10):
...     y = [e.subs({q: y[0], p: y[1], h: sympy.Rational(1, 10)}) for e in phi.exprs]
>>> r.contains(y), max(r.radii) < 1e-30
([True, True], True)
>>> r.contains([y[0] + sympy.Rational(1, 10**28), y[1]])      # a state 1e-28 away is outside
[False, True]
"""

from __future__ import annotations

import itertools
import linecache
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy
from sympy.printing.str import StrPrinter

import geomcheck as gc
from geomcheck.caches import Memo
from geomcheck.errors import InvalidArgumentError, NonRealValueError, import_optional

from .codegen import SMALL_POWERS, hoist_scalars, refuse_generic
from .errors import NotLowerableError
from .run_options import parameter_values
from .systems import STEP_SYMBOL

__all__ = ["run_arb", "ArbState", "ArbStep", "ArbPrinter", "GUARD_BITS"]

#: bits beyond ``digits * log2(10)`` carried by the balls' midpoints
GUARD_BITS = 20

# sympy function name -> the arb method that evaluates it (each encloses the exact value)
_METHODS = {"sin": "sin", "cos": "cos", "tan": "tan", "exp": "exp", "log": "log", "atan": "atan",
            "asin": "asin", "acos": "acos", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
            "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "Abs": "__abs__", "sec": "sec",
            "csc": "csc", "cot": "cot", "erf": "erf", "gamma": "gamma"}


def _flint():
    return import_optional("flint", "arb", "run_arb (rigorous ball arithmetic)")


class ArbPrinter(StrPrinter):
    """Python source on arb balls: exact numbers become balls (``_q(p, q)``), functions arb's methods.

    With ``exact_integers`` every integer is made a ball (``_A(n)``): no ``int / int`` can then
    be evaluated as a Python float.  Otherwise each integer other than +-1 is a named ball
    made once (``constants`` holds the lines; an integer's ball is exact): the step's kernel,
    where every non-integer number has been hoisted.

    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> ArbPrinter(exact_integers=True).doprint(sympy.Rational(1, 3) * sympy.sin(x) + sympy.sqrt(2))
    '_sqrt(_A(2)) + _sin(x)/_A(3)'
    """

    def __init__(self, exact_integers=False):
        super().__init__({"order": "none"})
        self.exact_integers = exact_integers
        self.integers, self.constants = {}, []

    def _print_Integer(self, expr):
        n = int(expr)
        if self.exact_integers:
            return f"_A({n})"
        if abs(n) <= 1:
            return str(n)
        name = self.integers.get(n)
        if name is None:
            name = self.integers[n] = f"_k{len(self.integers)}"
            self.constants.append(f"{name} = _A({n})")
        return name

    def _print_Rational(self, expr):
        return f"_q({int(expr.p)}, {int(expr.q)})"

    def _print_Float(self, expr):
        r = sympy.Rational(expr)          # a Float is a binary number: exact
        return f"_q({int(r.p)}, {int(r.q)})"

    def _print_Pi(self, expr):
        return "_pi()"

    def _print_Exp1(self, expr):
        return "_e()"

    def _print_NumberSymbol(self, expr):
        raise NotLowerableError(f"run_arb: no ball for the constant {expr}")

    def _print_ImaginaryUnit(self, expr):
        raise NotLowerableError("run_arb: the step map is complex (contains I); a real map was expected")

    def _print_Pow(self, expr, rational=False):
        b, e = expr.as_base_exp()
        base = self.parenthesize(b, 100)
        if e == sympy.S.Half:
            return f"_sqrt({self._print(b)})"
        if e == -sympy.S.Half:
            return f"_rsqrt({self._print(b)})"
        if e.is_Integer:
            if 2 <= e <= SMALL_POWERS:
                return "(" + "*".join([base] * int(e)) + ")"
            if -SMALL_POWERS <= e <= -1:
                return "1/(" + "*".join([base] * int(-e)) + ")"
            return f"{base}**{int(e)}"
        return f"_pow({self._print(b)}, {self._print(e)})"

    def _print_Function(self, expr):
        name = _METHODS.get(type(expr).__name__)
        if name is None or len(expr.args) != 1:
            raise NotLowerableError(f"run_arb: no arb evaluation of the function {type(expr).__name__} (in {expr});"
                                    f" supported: {', '.join(sorted(_METHODS))}")
        return f"_{type(expr).__name__.lower()}({self._print(expr.args[0])})"

    def emptyPrinter(self, expr):
        raise NotLowerableError(f"run_arb: cannot evaluate {type(expr).__name__} ({expr}) in ball arithmetic")

    _print_Piecewise = _print_Relational = _print_BooleanTrue = _print_BooleanFalse = emptyPrinter


def _check_evaluable(expr):
    """Refuse (NotLowerableError) a part of ``expr`` that has no arb evaluation here: only numbers,
    symbols, pi, E, sums, products, powers and the functions of ``_METHODS`` are evaluated."""
    for node in sympy.preorder_traversal(expr):
        if node.is_Symbol or node.is_Number or node in (sympy.pi, sympy.E) or node.is_Add or node.is_Mul \
                or node.is_Pow:
            continue
        if isinstance(node, sympy.Function) and type(node).__name__ in _METHODS and len(node.args) == 1:
            continue
        raise NotLowerableError(f"run_arb: no arb evaluation of {type(node).__name__} (in {node}); supported:"
                                f" numbers, pi, E, +, *, powers and the functions {', '.join(sorted(_METHODS))}")


def _namespace(flint):
    arb = flint.arb

    def A(x):
        return x if type(x) is arb else arb(x)

    ns = {"_A": A, "_q": lambda p, q: arb(flint.fmpq(p, q)), "_pi": arb.pi, "_e": arb.const_e,
          "_sqrt": lambda x: A(x).sqrt(), "_rsqrt": lambda x: A(x).rsqrt(),
          "_pow": lambda b, e: A(b) ** A(e)}
    for sym, method in _METHODS.items():
        ns[f"_{sym.lower()}"] = (lambda m: lambda x: getattr(A(x), m)())(method)
    return ns


class ArbStep:
    """One explicit step map generated as arb code: ``scalars(*values)`` then ``kernel(S, *state)``.

    Scalars (``h``, the constants, their combinations) are hoisted into ``scalars``; the
    kernel shares common subexpressions (``sympy.cse``).  Every operation is arb's, so the
    outputs enclose the exact values of the map's expressions at every point of the input
    balls.
    """

    _ids = itertools.count()

    def __init__(self, phi, parameters):
        if not isinstance(phi, gc.Map):
            raise NotLowerableError(
                f"run_arb runs explicit schemes only: this step has an implicit stage ({type(phi).__name__}), whose"
                " stage equations would need an interval Newton method to be enclosed rigorously")
        refuse_generic(phi.exprs, "the step map")
        for e in phi.exprs:
            _check_evaluable(sympy.sympify(e))
        coords = phi.source.coords
        names = {s: sympy.Symbol(f"y{k}") for k, s in enumerate(coords)}
        names.update({s: sympy.Symbol(f"a{k}") for k, s in enumerate(parameters)})
        exprs = [sympy.sympify(e).xreplace(names) for e in phi.exprs]
        extra = set().union(set(), *(e.free_symbols for e in exprs)) - set(names.values())
        if extra:
            raise NotLowerableError(f"run_arb: the step map contains {sorted(map(str, extra))}, which are neither"
                                    f" coordinates nor the parameters {[str(s) for s in parameters]}")
        arrays = {names[s] for s in coords}
        hoisted, exprs = hoist_scalars(exprs, arrays, numbers=True)
        exact, plain = ArbPrinter(exact_integers=True), ArbPrinter()
        scalar_in = [f"a{k}" for k in range(len(parameters))]
        lines = [f"def scalars({', '.join(scalar_in)}):"]
        lines += [f"    {s} = {exact.doprint(e)}" for s, e in hoisted]
        bound = scalar_in + [str(s) for s, _ in hoisted]
        lines.append(f"    return ({''.join(b + ', ' for b in bound)})")
        lines.append(f"def kernel(_S, {', '.join(str(names[s]) for s in coords)}):")
        lines.append(f"    ({''.join(b + ', ' for b in bound)}) = _S")
        reps, reduced = sympy.cse(exprs, symbols=sympy.numbered_symbols("_x"), order="none")
        lines += [f"    {s} = {plain.doprint(e)}" for s, e in reps]
        # an output that is an integer or an unchanged scalar is made a ball too
        lines.append(f"    return ({''.join('_A(' + plain.doprint(e) + '), ' for e in reduced)})")
        self.source = "\n".join(plain.constants + lines) + "\n"
        self.phi = phi
        self.dim = len(coords)
        flint = _flint()
        filename = f"<integrators-arb-{next(self._ids)}>"
        linecache.cache[filename] = (len(self.source), None, self.source.splitlines(True), filename)
        namespace = _namespace(flint)
        exec(compile(self.source, filename, "exec"), namespace)
        self.scalars = namespace["scalars"]
        self.kernel = namespace["kernel"]


_CACHE = Memo("integrators.arb_run.steps", 32)


def _arb_step(phi, parameters):
    """The :class:`ArbStep` of ``phi``, generated once per (map, parameters)."""
    key = (id(phi), tuple(parameters))
    hit = _CACHE.get(key)
    if hit is not None and hit.phi is phi:
        return hit
    step = ArbStep(phi, parameters)
    _CACHE.put(key, step)
    return step


@dataclass(frozen=True)
class ArbState:
    """The final state of :func:`run_arb`: one arb ball per coordinate.

    Attributes
    ----------
    balls : tuple of flint.arb
    midpoints : tuple of mpmath.mpf      the balls' midpoints (exact)
    radii : tuple of mpmath.mpf          their radii (exact upper bounds)
    coords : tuple of Symbol
    digits, prec : int                   the requested digits and the balls' precision (bits)
    steps : int
    """

    balls: tuple
    midpoints: tuple
    radii: tuple
    coords: tuple
    digits: int
    prec: int
    steps: int

    def contains(self, values) -> list:
        """For each coordinate, whether ``values[i]`` (an mpf, a number, a decimal string) lies in ball ``i``.

        True is proved.  A value that is not a binary number (1/3) is enclosed at 4 x the
        balls' precision first, so False may also mean "within about 2^(-4 prec) of the
        ball's boundary".
        """
        flint = _flint()
        values = list(values)
        if len(values) != len(self.balls):
            raise InvalidArgumentError(f"contains expects {len(self.balls)} values (one per coordinate), got"
                                       f" {len(values)}")
        old = flint.ctx.prec
        flint.ctx.prec = 4 * self.prec + 64
        try:
            return [bool(ball.contains(_exact_ball(flint, v, "value"))) for ball, v in zip(self.balls, values)]
        finally:
            flint.ctx.prec = old


    def error_bound(self, values) -> mpmath.mpf:
        """A rigorous upper bound on ``max_i |values[i] - x_i|``, ``x`` the exact iterate (in the balls)."""
        flint = _flint()
        values = list(values)
        if len(values) != len(self.balls):
            raise InvalidArgumentError(f"error_bound expects {len(self.balls)} values (one per coordinate), got"
                                       f" {len(values)}")
        old = flint.ctx.prec
        flint.ctx.prec = 4 * self.prec + 64
        try:
            # |v - x| <= upper(|v - ball|) for every x in the ball; arb rounds that bound upward
            return max(_exact_mpf(abs(_exact_ball(flint, v, "value") - ball).upper())
                       for ball, v in zip(self.balls, values))
        finally:
            flint.ctx.prec = old


def _exact_mpf(ball):
    """The exact value of an exact ball (a midpoint or a radius) as an mpf, not rounded."""
    man, exp = ball.man_exp()
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(man), int(exp)))


def _exact_rational(v, what):
    """The exact rational a number denotes (a decimal string, int, Fraction, float, mpf, sympy number)."""
    try:
        if isinstance(v, mpmath.mpf):
            sign, man, exp, _ = v._mpf_          # (man_exp drops the sign)
            r = (-1) ** sign * sympy.Integer(man) * sympy.Integer(2) ** exp
        elif isinstance(v, (str, int, Fraction, float)) or getattr(v, "is_Rational", False) \
                or getattr(v, "is_Float", False):
            r = sympy.Rational(v) if not isinstance(v, Fraction) else sympy.Rational(v.numerator, v.denominator)
        else:
            return None
    except (TypeError, ValueError, ArithmeticError):
        raise InvalidArgumentError(f"run_arb: {what} = {v!r} is not a real number") from None
    # (sympy makes 0 of a float nan)
    if not r.is_Rational or (isinstance(v, float) and not math.isfinite(v)):
        raise InvalidArgumentError(f"run_arb: {what} = {v!r} is not a finite real number")
    return r


def _exact_ball(flint, v, what):
    """A ball enclosing the number ``v`` (exact when ``v`` is a binary number)."""
    if isinstance(v, flint.arb):
        return v
    if isinstance(v, mpmath.mpf) and mpmath.isfinite(v):
        return flint.arb(v)                               # exact
    r = _exact_rational(v, what)
    if r is not None:
        return flint.arb(flint.fmpq(int(r.p), int(r.q)))
    e = sympy.sympify(v) if isinstance(v, sympy.Basic) else None
    if e is None or not e.is_number or e.free_symbols:
        raise InvalidArgumentError(f"run_arb: {what} = {v!r} is not a real number")
    if e.is_real is False:
        raise InvalidArgumentError(f"run_arb: {what} = {v!r} is not real")
    text = ArbPrinter(exact_integers=True).doprint(e)
    return eval(compile(text, "<run_arb number>", "eval"), _namespace(flint))


def run_arb(system, scheme, y0, dt, steps, digits=50, params=None, t0=0, guard_bits=GUARD_BITS) -> ArbState:
    """Iterate ``scheme``'s step map on ``system`` in arb ball arithmetic: a rigorous enclosure.

    Parameters
    ----------
    system : a concrete system of :mod:`integrators`
    scheme : str or Scheme
        An explicit scheme (every stage a ``gc.Map``).
    y0 : sequence of numbers
        The initial state, taken exactly (decimal strings are exact decimals).
    dt : number
        The step size, taken exactly (give ``"0.0005"``, not ``5e-4``, to mean 1/2000).
    steps : int >= 0
    digits : int >= 1
        The balls carry ``ceil(digits log2(10)) + guard_bits`` bits.
    params : mapping, optional
        Values of the system's constants (as for :func:`integrators.integrate`), taken exactly.
    t0 : number, optional
        The start time (a time-dependent system).
    guard_bits : int >= 0, optional
        Extra bits beyond ``digits``.  Ball arithmetic overestimates (the wrapping effect: a
        stiff linear step can double a radius per step), so a long run may need many more
        bits than the digits it should keep; the radii say what was kept.

    Returns
    -------
    ArbState
        The final balls: each contains the corresponding coordinate of the exact-arithmetic
        iterate ``Phi_dt^steps(y0)`` of the discrete step map (not the ODE's flow).

    Raises
    ------
    MissingDependencyError
        python-flint is not installed.
    NotLowerableError
        An implicit scheme, a generic system, or a function with no arb evaluation.
    InvalidArgumentError
        ``y0``, ``dt``, ``steps`` or ``digits`` malformed.
    NonRealValueError
        A ball stopped being finite (a function left its real domain, or the balls grew
        without bound): there is no enclosure to report.

    Examples
    --------
    The pendulum: an mpmath run at 40 digits lies in balls of 30 digits, and is within
    10^-38 of the exact discrete trajectory (a rigorous bound):

    >>> import integrators as ig, sympy
    >>> q, p = sympy.symbols("q p")
    >>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
    >>> mp = ig.integrate(pendulum, "stormer-verlet", ["1", "0"], dt="0.1", steps=20, backend="mpmath",
    ...                   dps=40, save_every=20, progress=False)
    >>> run_arb(pendulum, "stormer-verlet", ["1", "0"], "0.1", 20, digits=30).contains(mp.y[-1])
    [True, True]
    >>> run_arb(pendulum, "stormer-verlet", ["1", "0"], "0.1", 20, digits=50).error_bound(mp.y[-1]) < 1e-38
    True
    """
    flint = _flint()
    from .catalog import scheme as scheme_by_name

    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise InvalidArgumentError(f"run_arb: steps must be an integer >= 0, got {steps!r}")
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise InvalidArgumentError(f"run_arb: digits must be an integer >= 1, got {digits!r}")
    if isinstance(guard_bits, bool) or not isinstance(guard_bits, int) or guard_bits < 0:
        raise InvalidArgumentError(f"run_arb: guard_bits must be an integer >= 0, got {guard_bits!r}")
    s = scheme_by_name(scheme)
    s.check_applies(system)
    values = parameter_values(system, params)
    stages = tuple(s.stages(system))
    time = system.time
    parameters = [STEP_SYMBOL, *system.parameters] + ([time] if time is not None else [])
    lowered = [_arb_step(st.map, parameters) for st in stages]
    y0 = list(y0)
    if len(y0) != system.dim:
        raise InvalidArgumentError(f"run_arb: y0 has {len(y0)} values; the system has {system.dim} coordinates"
                                   f" ({', '.join(map(str, system.coords))})")
    prec = math.ceil(digits * math.log2(10)) + guard_bits
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        h = _exact_ball(flint, dt, "dt")
        start = _exact_ball(flint, t0, "t0")
        constants = [_exact_ball(flint, values[k], str(k)) for k in system.parameters]
        y = [_exact_ball(flint, v, f"y0[{i}]") for i, v in enumerate(y0)]
        factors = [_exact_ball(flint, sympy.sympify(st.factor), "a stage factor") for st in stages]
        offsets = [_exact_ball(flint, sympy.sympify(st.offset), "a stage offset") for st in stages]

        def bind(t):
            return [L.scalars(*([f * h] + constants + ([] if t is None else [t + o * h])))
                    for L, f, o in zip(lowered, factors, offsets)]

        bound = bind(None) if time is None else None
        for n in range(steps):
            S = bound if bound is not None else bind(start + n * h)
            for L, Sk in zip(lowered, S):
                y = L.kernel(Sk, *y)
        bad = [i for i, v in enumerate(y) if not v.is_finite()]
        if bad:
            raise NonRealValueError(
                f"run_arb: after {steps} steps the ball of {system.coords[bad[0]]} is not finite ({y[bad[0]]}): a"
                " function left its real domain or the enclosure grew without bound; a finite enclosure needs a"
                " smaller dt, fewer steps or more digits", coordinate=str(system.coords[bad[0]]))
        mids = tuple(_exact_mpf(v.mid()) for v in y)
        radii = tuple(_exact_mpf(v.rad()) for v in y)
    finally:
        flint.ctx.prec = old
    return ArbState(tuple(y), mids, radii, tuple(system.coords), digits, prec, steps)
