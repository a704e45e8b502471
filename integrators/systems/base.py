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

import sympy

import geomcheck as gc
from geomcheck.algebra import find_node, require_finite
from geomcheck.calculus import diff
from geomcheck.errors import ExpressionError
from geomcheck.zero import decide_all_zero

from ..errors import SystemDefinitionError

__all__ = ["System", "CanonicalSystem", "STEP_SYMBOL", "checked_symbols", "checked_expression",
           "checked_parametrization", "separable_hamiltonian",
           "constant_parameters", "canonical_coordinates"]

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
