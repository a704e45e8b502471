"""What every system of the integrators is, and the checks of a system's definition.

A system is written once, symbolically (a sympy expression in the coordinates of a
chart).  Its chart, its geometric form, its vector field and its energy are geomcheck
objects: the very objects the certificates and the lowered numeric steps are built from.
:class:`System` is the root of every system class, :class:`CanonicalSystem` the root of
those on positions and momenta.  The functions :func:`checked_symbols`,
:func:`checked_expression` and :func:`constant_parameters` read the arguments every
system's constructor takes (coordinates, a Hamiltonian, values of constants) and refuse
malformed ones with a message that names the owner.

>>> import sympy
>>> q, p, k = sympy.symbols("q p k")
>>> checked_symbols("q1 q2", "q", "MySystem")
(q1, q2)
>>> constant_parameters(k * q**2 / 2 + p**2 / 2, (q, p), None, {k: 3}, "MySystem")
((k,), {k: 3})
"""

from __future__ import annotations

from typing import Mapping

import mpmath
import numpy as np
import sympy

import geomcheck as gc
from geomcheck.algebra import find_node, require_finite
from geomcheck.calculus import diff
from geomcheck.errors import ExpressionError, InvalidArgumentError, ShapeError
from geomcheck.zero import decide_all_zero

from ..codegen import lower_expressions
from ..errors import InconsistentStateError, SystemDefinitionError

__all__ = ["System", "CanonicalSystem", "STEP_SYMBOL", "checked_symbols", "checked_expression",
           "checked_parametrization", "separable_hamiltonian",
           "constant_parameters", "canonical_coordinates", "check_states_on_manifold", "STATE_CHECK_DIGITS",
           "CONSISTENCY_TOL"]

#: The step-size symbol of every scheme: ``h`` (the public contract, docs/contract.md).
STEP_SYMBOL = sympy.Symbol("h")


def checked_symbols(values, what: str, owner: str) -> tuple:
    """``values`` as a tuple of sympy Symbols: one Symbol, a string of names, or a sequence.

    Parameters
    ----------
    values : Symbol, str or sequence of Symbol
        A string is split into names as :func:`sympy.symbols` does (``"q1 q2"``).
    what : str
        What the symbols are (``"q"``, ``"p"``, ``"t"``), for the messages.
    owner : str
        The class or function whose argument this is, for the messages.

    Raises
    ------
    SystemDefinitionError
        A set (no order), something that is not a Symbol, or a symbol named ``h`` (the step size).
    """
    if isinstance(values, sympy.Symbol):
        values = [values]
    elif isinstance(values, str):
        try:
            values = list(sympy.symbols(values, seq=True))
        except ValueError:
            raise SystemDefinitionError(f"{owner}: {what} {values!r} names no symbol; expected names such as"
                                        " 'q1 q2'") from None
    elif isinstance(values, (set, frozenset)):
        # which momentum pairs with which position must not depend on a hash
        raise SystemDefinitionError(f"{owner}: {what} is a set, which has no order; give a list or tuple")
    try:
        out = tuple(values)
    except TypeError:
        raise SystemDefinitionError(f"{owner}: {what} must be a sequence of sympy Symbols, got {values!r}") from None
    for s in out:
        if not isinstance(s, sympy.Symbol):
            raise SystemDefinitionError(f"{owner}: {what} must be sympy Symbols, got {s!r} ({type(s).__name__})")
        if s == STEP_SYMBOL or s.name == STEP_SYMBOL.name:
            raise SystemDefinitionError(f"{owner}: the name 'h' is reserved for the step size; rename the coordinate {s}")
    return out


def canonical_coordinates(q, p, owner: str) -> tuple[tuple, tuple]:
    """``(q, p)`` checked: symbols (:func:`checked_symbols`), at least one position, as many momenta as
    positions, all distinct; :class:`SystemDefinitionError` naming ``owner`` otherwise."""
    q, p = checked_symbols(q, "q", owner), checked_symbols(p, "p", owner)
    n = len(q)
    if not n or n != len(p):
        raise SystemDefinitionError(
            f"{owner}: {n} positions {list(q)} and {len(p)} momenta {list(p)}; expected at least"
            " one and as many momenta as positions")
    if len(set(q + p)) != 2 * n:
        raise SystemDefinitionError(f"{owner}: the coordinates {list(q + p)} are not distinct")
    return q, p


def separable_hamiltonian(H, q, p) -> bool:
    """True iff ``H = T(p) + V(q)``: every mixed derivative ``H_{q_i p_j}`` is decided zero (a budget
    of 5 s; undecided counts as not separable)."""
    mixed = [m for m in (diff(diff(H, qi), pj) for qi in q for pj in p) if m != 0]
    return (not mixed) or decide_all_zero(mixed, budget=5.0).is_zero is True


def checked_parametrization(system, parametrization, owner: str, equations, dimension_note: str,
                            manifold_note: str) -> tuple:
    """``(S, iota)``: a parametrization of a constrained system's manifold, checked.

    ``iota`` must be an explicit geomcheck Map from the chart ``S`` into ``system.chart``, ``S`` of
    ``system.manifold_dimension`` coordinates (``dimension_note`` says how it is counted), and every
    expression of ``equations`` (the constraints that define the manifold, ``manifold_note``) must
    vanish on it, decided by the zero test; else :class:`SystemDefinitionError`.
    """
    try:
        S, iota = parametrization
    except (TypeError, ValueError):
        raise SystemDefinitionError(f"{owner}: parametrization must be a pair (Chart S, Map S -> (q, p))") from None
    if not isinstance(iota, gc.Map) or iota.source != S or iota.target != system.chart:
        raise SystemDefinitionError(
            f"{owner}: the parametrization must be an explicit geomcheck Map from {S!r} into {system.chart!r}")
    if S.dim != system.manifold_dimension:
        raise SystemDefinitionError(
            f"{owner}: the parametrization has {S.dim} coordinates; the constraint manifold has dimension"
            f" {system.manifold_dimension} ({dimension_note})")
    sub = iota.substitution()
    on = decide_all_zero([gc.substitute(e, sub) for e in equations])
    if on.is_zero is not True:
        raise SystemDefinitionError(
            f"{owner}: the parametrization does not land on the constraint manifold {manifold_note}: {on.method}")
    return S, iota


#: The least number of digits at which :func:`check_states_on_manifold` computes the residuals,
#: whatever ``mpmath.mp.dps`` is: a constant such as ``sqrt(2)`` or ``1/3`` enters with this
#: accuracy (as ``sympy.N(c, 30)`` did in the lambdified check before), and a residual of a
#: float64 state is not lost in the state's own rounding (``y**2 - 2`` at ``y = -float(sqrt(2))``
#: is 2.7e-16, where double arithmetic gives 4.4e-16).
STATE_CHECK_DIGITS = 30
#: default tolerance of the constrained systems' ``check_state`` (absolute, per constraint)
CONSISTENCY_TOL = 1e-10


def check_states_on_manifold(system, Y, values, tol: float, residuals, reduction_matrix, matrix_name: str,
                             dependent: str) -> None:
    """Raise :class:`~integrators.errors.InconsistentStateError` unless every state of ``Y`` is on the manifold.

    The check of a constrained system's initial states (``ConstrainedHamiltonianSystem.check_state``,
    ``NonholonomicSystem.check_state``): at each state every residual must be real with
    ``|r| <= tol``, and the reduction matrix (``G H_pp G^T``, ``A H_pp A^T``: the one the
    multipliers are solved with) must have full numerical rank (singular values above
    ``1e-12 max(1, max|M_ij|)``).  The expressions are lowered once by
    :func:`integrators.codegen.lower_expressions` (mpmath) and evaluated at
    ``max(mpmath.mp.dps, STATE_CHECK_DIGITS)`` digits; the rank is taken in float64.

    Parameters
    ----------
    system : System
        Its coordinates are the columns of ``Y``, its constants those of the expressions.
    Y : array (batch, dim) or (dim,) of real numbers (floats, mpf)
    values : mapping {Symbol: number} or None
        The constants' values (None: the system's own); when one is missing nothing is checked.
    tol : float
        The largest accepted ``|r|``.
    residuals : mapping {name: (expression, description)}
        The residuals, in the order they are checked; ``description`` names one in the messages
        (``"the constraint g_1 = x**2 + y**2 - 1"``).
    reduction_matrix : square sympy Matrix
    matrix_name : str
        The matrix in the messages (``"G H_pp G^T"``).
    dependent : str
        The message when the matrix is singular at the state ``{trajectory}``, with its float
        entries ``{matrix}`` (a list of rows).

    Raises
    ------
    InconsistentStateError
        ``name`` is the residual's name (``"rank"`` for the matrix), ``value`` its ``|r|``,
        ``trajectory`` the state's index: a residual beyond ``tol``, not real or undefined at the
        state (a division by zero; sqrt, log or a fractional power of a negative number), a
        matrix that is singular, not finite or not real there.
    ShapeError
        ``Y`` is not a state or a batch of states of ``system.dim`` coordinates.
    InvalidArgumentError
        A coordinate or a constant that is not a real number.

    Examples
    --------
    A particle on the circle of radius ``l``, its constraint checked alone (no hidden constraint):

    >>> import sympy, numpy as np, integrators as ig
    >>> x, y, px, py, l = sympy.symbols("x y p_x p_y l")
    >>> s = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2, [x, y], [px, py], [x**2 + y**2 - l**2])
    >>> circle = {"g_1": (x**2 + y**2 - l**2, "the circle")}
    >>> G = sympy.Matrix([[2 * x, 2 * y]])
    >>> singular = "at the state {trajectory} G G^T = {matrix} is singular"
    >>> check_states_on_manifold(s, np.array([[0.6, 0.8, 0, 0]]), {l: 1}, 1e-10, circle, G * G.T, "G G^T", singular)
    >>> check_states_on_manifold(s, [[0.6, 0.8, 0, 0], [0.6, 0.9, 0, 0]], {l: 1}, 1e-10, circle, G * G.T, "G G^T",
    ...                          singular)
    Traceback (most recent call last):
    ...
    integrators.errors.InconsistentStateError: the initial state of trajectory 1 is not on the constraint manifold: the circle is 0.17 (tolerance 1e-10)

    The circle of radius 0: the origin is on it (``g = 0``), but ``G = 0`` there.

    >>> check_states_on_manifold(s, [0.0, 0.0, 0.0, 0.0], {l: 0}, 1e-10, circle, G * G.T, "G G^T", singular)
    Traceback (most recent call last):
    ...
    integrators.errors.InconsistentStateError: at the state 0 G G^T = [[0.0]] is singular
    """
    values = system.parameter_values if values is None else values
    coords, parameters, owner = tuple(system.chart.coords), tuple(system.parameters), repr(system)
    if any(s not in values for s in parameters):
        return
    try:
        Y = np.asarray(Y, dtype=object)
    except ValueError:      # ragged rows
        Y = None
    if Y is not None and Y.ndim == 1:
        Y = Y[None, :]
    if Y is None or Y.ndim != 2 or Y.shape[1] != len(coords):
        raise ShapeError(f"{owner}: the states to check must be an array (batch, {len(coords)}) or ({len(coords)},)"
                         f" of the coordinates {[str(c) for c in coords]}")
    names = list(residuals)
    R = sympy.Matrix(reduction_matrix)
    k = R.rows
    kernel = lower_expressions([residuals[n][0] for n in names] + list(R), coords, parameters, backend="mpmath",
                               what=f"the constraints of {owner}")
    with mpmath.workdps(max(mpmath.mp.dps, STATE_CHECK_DIGITS)):
        consts = [_real_mpf(values[s], f"the value of the constant {s}") for s in parameters]
        S = kernel.scalars(*consts)
        for b, row in enumerate(Y):
            point = [_real_mpf(v, f"the coordinate {c} of state {b}") for c, v in zip(coords, row)]
            try:
                out = kernel.kernel(S, *point)
            except (ZeroDivisionError, TypeError) as exc:
                # a division by zero, or mpmath refusing to order a complex value (a Piecewise, Max)
                if isinstance(exc, TypeError) and "mpc" not in str(exc) and "complex" not in str(exc):
                    raise
                name, what = _undefined_at(residuals, coords + parameters, point + consts) or ("rank", matrix_name)
                why = ("a division by zero" if isinstance(exc, ZeroDivisionError) else
                       "a complex value compared (sqrt, log or a fractional power of a negative number)")
                raise InconsistentStateError(
                    f"the initial state of trajectory {b} is not on the constraint manifold: {what} has no real"
                    f" value there ({why}); a state inside the domain of the constraints was expected",
                    name=name, value=None, trajectory=b) from None
            for name, r in zip(names, out[:len(names)]):
                size = abs(complex(r))
                if not size <= tol:
                    raise InconsistentStateError(
                        f"the initial state of trajectory {b} is not on the constraint manifold: {residuals[name][1]}"
                        f" is {float(size):.3g} (tolerance {tol:g})", name=name, value=float(size), trajectory=b)
                if _is_non_real(r):
                    # |r| <= tol, but the state is outside the constraint's real domain
                    raise InconsistentStateError(
                        f"the initial state of trajectory {b} is not on the constraint manifold: {residuals[name][1]}"
                        f" is complex there, {mpmath.nstr(r, 6)}: the state is outside its real domain (sqrt, log"
                        " or a fractional power of a negative number); a real state was expected",
                        name=name, value=float(size), trajectory=b)
            entries = out[len(names):]
            if any(_is_non_real(v) for v in entries):
                raise InconsistentStateError(
                    f"at the initial state of trajectory {b} {matrix_name} is complex,"
                    f" {[mpmath.nstr(v, 6) for v in entries]}: the state is outside the real domain of the system"
                    " (sqrt, log or a fractional power of a negative number); a real state was expected",
                    name="rank", value=None, trajectory=b)
            M = np.array([float(mpmath.re(v)) for v in entries], dtype=float).reshape(k, k)
            if not np.isfinite(M).all():
                raise InconsistentStateError(
                    f"at the initial state of trajectory {b} {matrix_name} = {M.tolist()} is not finite in float64"
                    " (it overflows, or the constraints or the Hamiltonian are singular there); its rank cannot be"
                    " taken", name="rank", value=None, trajectory=b)
            if k and np.linalg.matrix_rank(M, tol=1e-12 * max(1.0, np.abs(M).max())) < k:
                raise InconsistentStateError(dependent.format(trajectory=b, matrix=M.tolist()), name="rank",
                                             value=0.0, trajectory=b)


def _real_mpf(v, what):
    """``v`` (a float, an mpf, a sympy number) as an mpf at the working precision."""
    if isinstance(v, sympy.Basic):
        v = sympy.N(v, mpmath.mp.dps)
    try:
        return mpmath.mpf(v)
    except (TypeError, ValueError):
        pass
    try:
        return mpmath.mpf(sympy.N(sympy.sympify(v, strict=True), mpmath.mp.dps))
    except (sympy.SympifyError, TypeError, ValueError):
        raise InvalidArgumentError(f"{what} is {v!r}; a real number was expected") from None


def _is_non_real(v) -> bool:
    return isinstance(v, (mpmath.mpc, complex)) and v.imag != 0


def _undefined_at(residuals, symbols, point):
    """``(name, description)`` of the first residual with no finite real value at ``point`` (by sympy), or None."""
    sub = {s: sympy.Float(v, mpmath.mp.dps) for s, v in zip(symbols, point)}
    for name, (e, description) in residuals.items():
        try:
            v = sympy.sympify(e).xreplace(sub).evalf(mpmath.mp.dps)
        except (ValueError, TypeError, ZeroDivisionError):   # sympy refusing too: Max of an imaginary number
            return name, description
        if v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or v.is_extended_real is False:
            return name, description
    return None


def checked_expression(H, owner: str) -> sympy.Expr:
    """``H`` as a real, finite, scalar and commutative sympy expression (a Hamiltonian, a constraint).

    Raises
    ------
    geomcheck.errors.ExpressionError
        Not a sympy expression, a matrix, a Lambda, noncommutative, infinite or complex.
    """
    try:
        e = sympy.sympify(H, strict=True)
    except (sympy.SympifyError, TypeError, ValueError):
        raise ExpressionError(f"{owner}: the Hamiltonian {H!r} is not a sympy expression") from None
    if not isinstance(e, sympy.Expr) or isinstance(e, sympy.MatrixBase):
        raise ExpressionError(f"{owner}: the Hamiltonian {H!r} is not a scalar sympy expression")
    if e.has(sympy.Lambda):   # before any assumption query: sympy's own raise IndexError on one
        raise ExpressionError(f"{owner}: the Hamiltonian {e} contains a Lambda; give its value as an expression in"
                              " the coordinates")
    if not e.is_commutative:
        raise ExpressionError(f"{owner}: the Hamiltonian {e} contains noncommutative symbols")
    require_finite(e, f"{owner}: the Hamiltonian")
    if _has_imaginary_unit(e):
        raise ExpressionError(f"{owner}: the Hamiltonian {e} contains the imaginary unit I; a real expression was"
                              " expected")
    return e


def _has_imaginary_unit(e) -> bool:
    return find_node(e, lambda node: node is sympy.I or (node.is_Number and node.is_real is False)) is not None


def constant_parameters(e, coords, time, given, owner: str) -> tuple:
    """The constant symbols of ``e`` (sorted by name) and their numeric values, where given.

    Parameters
    ----------
    e : sympy expression (a ``sympy.Tuple`` of everything that defines the system)
    coords : sequence of Symbol, the coordinates (not constants)
    time : Symbol or None, the time (not a constant)
    given : mapping {Symbol: number} or None, the values the user gave
    owner : str, for the messages

    Returns
    -------
    (tuple of Symbol, dict)
        The constants of ``e`` other than the coordinates and the time, and ``{constant: value}``
        for the given ones (sympy numbers, checked real and finite).

    Raises
    ------
    SystemDefinitionError
        A constant named ``h``, a value for a coordinate, a value that is not a finite real number.
    """
    free = e.free_symbols - set(coords) - ({time} if time is not None else set())
    for s in free:
        if s.name == STEP_SYMBOL.name:
            raise SystemDefinitionError(
                f"{owner}: the Hamiltonian contains the symbol h, which is reserved for the step size;"
                " rename that constant"
            )
    if given is not None and not isinstance(given, Mapping):
        raise SystemDefinitionError(f"{owner}: parameters must be a mapping {{Symbol: number}}, got {given!r}"
                                    f" ({type(given).__name__})")
    values = {}
    for k, v in dict(given or {}).items():
        if not isinstance(k, sympy.Symbol):
            raise SystemDefinitionError(f"{owner}: parameters must be keyed by sympy Symbols, got {k!r}")
        if k in coords or k == time:
            raise SystemDefinitionError(f"{owner}: {k} is a coordinate (or the time), not a constant parameter")
        try:
            values[k] = sympy.sympify(v, strict=True)
        except (sympy.SympifyError, TypeError, ValueError):
            raise SystemDefinitionError(f"{owner}: the value {v!r} of parameter {k} is not a number") from None
        if values[k].free_symbols or not values[k].is_number:
            raise SystemDefinitionError(f"{owner}: the value {v!r} of parameter {k} is not a number")
        if values[k].is_extended_real is not True or values[k].is_finite is not True:
            raise SystemDefinitionError(f"{owner}: the value {v!r} of parameter {k} is not a finite real number")
    return tuple(sorted(free, key=lambda s: s.name)), values


class System:
    """The root of every system class: immutability by convention, equality by definition, LaTeX.

    A subclass provides ``chart``, ``vector_field``, ``energy`` (a sympy expression, or None
    when the system has none), ``_parameters``/``_values`` and ``_key()``; ``kind`` names it
    for scheme requirements (:data:`integrators.schemes.base.REQUIREMENTS`).
    """

    kind = "system"
    time = None

    def _key(self):
        raise NotImplementedError

    def __eq__(self, other):
        return type(self) is type(other) and self._key() == other._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    @property
    def dim(self) -> int:
        """The dimension of the phase space (the chart)."""
        return self.chart.dim

    @property
    def coords(self) -> tuple:
        return self.chart.coords

    @property
    def parameters(self) -> tuple:
        """Constant symbols of the Hamiltonian (sorted by name)."""
        return self._parameters

    @property
    def parameter_values(self) -> dict:
        """``{parameter: numeric value}`` given at construction (may be partial)."""
        return dict(self._values)

    @property
    def is_generic(self) -> bool:
        """True when the Hamiltonian contains undefined functions (it stands for a family)."""
        return bool(self.energy.atoms(sympy.core.function.AppliedUndef))

    def _repr_latex_(self):
        return f"${self._latex()}$"


class CanonicalSystem(System):
    """A system on canonical coordinates: positions ``q``, momenta ``p``, chart ``(q, p)``.

    The common base of :class:`~integrators.HamiltonianSystem` and of systems that share its
    coordinates and symplectic form but whose vector field is not Hamiltonian on the whole phase
    space (:class:`~integrators.systems.forced.ForcedHamiltonianSystem`).  Schemes that need positions and
    momenta (partitioned methods, Stormer-Verlet) accept every CanonicalSystem; subclasses
    provide ``q``, ``p``, ``chart`` (q then p), ``omega``, ``vector_field``, ``energy``.
    """

    @property
    def degrees_of_freedom(self) -> int:
        return len(self.q)

    def _vector_field_is_separable(self) -> bool:
        """True iff every ``q'`` is free of q and every ``p'`` free of p (cached): Verlet is then explicit."""
        cached = self.__dict__.get("_field_separable")
        if cached is None:
            X = self.vector_field
            qs, ps = set(self.q), set(self.p)
            cached = (all(not (X.component(x).free_symbols & qs) for x in self.q)
                      and all(not (X.component(x).free_symbols & ps) for x in self.p))
            self.__dict__["_field_separable"] = cached
        return cached
