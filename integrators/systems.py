"""Systems a scheme is applied to: Hamiltonian and contact systems.

A system is written once, symbolically (a sympy Hamiltonian in the coordinates
of a chart).  Its chart, its geometric form (``omega`` or ``eta``), its vector
field and its energy are geomcheck objects: the very objects the certificates
and the lowered numeric steps are built from.

>>> import sympy, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q=[q], p=[p])
>>> pendulum.vector_field
VectorField({q: p, p: -sin(q)})
>>> pendulum.is_separable, pendulum.dim
(True, 2)
"""

from __future__ import annotations

from typing import Iterable, Mapping

import sympy

import geomcheck as gc
from geomcheck.algebra import find_node, require_finite
from geomcheck.errors import ExpressionError

from .errors import SystemDefinitionError

__all__ = ["HamiltonianSystem", "ContactSystem", "CanonicalSystem", "System", "STEP_SYMBOL"]

#: The step-size symbol of every scheme: ``h`` (the public contract, docs/contract.md).
STEP_SYMBOL = sympy.Symbol("h")


def _symbols(values, what, owner):
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


def _expression(H, owner):
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


def _parameters(e, coords, time, given, owner):
    """The constant symbols of ``e`` (sorted by name) and their numeric values, where given."""
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

    The common base of :class:`HamiltonianSystem` and of systems that share its coordinates
    and symplectic form but whose vector field is not Hamiltonian on the whole phase space
    (:class:`integrators.forced.ForcedHamiltonianSystem`).  Schemes that need positions and
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


class HamiltonianSystem(CanonicalSystem):
    """A canonical Hamiltonian system ``q' = H_p, p' = -H_q``.

    Parameters
    ----------
    H : sympy expression
        The Hamiltonian, in the coordinates ``q`` and ``p`` and constant parameters
        (undefined functions such as ``Function("V")(q)`` mean "any smooth function").
    q, p : sequence of Symbol (or one Symbol)
        Positions and momenta, as many of each.
    parameters : dict, optional
        Numeric values of constant symbols of H, used when a step is lowered to numbers
        (``integrate`` may override them).

    Attributes
    ----------
    chart : geomcheck.Chart        (q_1..q_n, p_1..p_n)
    omega : geomcheck.Form         sum dq_i ^ dp_i
    vector_field : geomcheck.VectorField
    energy : sympy expression      H itself
    is_separable : bool            H = T(p) + V(q), detected (mixed second derivatives vanish)

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> q, p = sympy.symbols("q p")
    >>> V = sympy.Function("V")
    >>> s = ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
    >>> s.omega
    Form(dq^dp)
    >>> s.is_separable, s.is_generic
    (True, True)
    >>> ig.HamiltonianSystem(p**2 * q**2 / 2, q, p).is_separable
    False
    """

    kind = "hamiltonian"

    def __init__(self, H: sympy.Expr | float, q: sympy.Symbol | str | Iterable[sympy.Symbol],
                 p: sympy.Symbol | str | Iterable[sympy.Symbol], parameters: Mapping | None = None):
        owner = "HamiltonianSystem"
        self.q = _symbols(q, "q", owner)
        self.p = _symbols(p, "p", owner)
        if not self.q:
            raise SystemDefinitionError(f"{owner}: at least one degree of freedom is needed (q is empty)")
        if len(self.q) != len(self.p):
            raise SystemDefinitionError(
                f"{owner}: {len(self.q)} positions {list(self.q)} but {len(self.p)} momenta {list(self.p)};"
                " expected as many momenta as positions"
            )
        coords = self.q + self.p
        if len(set(coords)) != len(coords):
            raise SystemDefinitionError(f"{owner}: the coordinates {list(coords)} are not distinct")
        self.H = _expression(H, owner)
        self._parameters, self._values = _parameters(self.H, coords, None, parameters, owner)
        self.chart = gc.Chart(list(coords))
        M = self.chart
        omega = M.d(self.q[0]) ^ M.d(self.p[0])
        for qi, pi in zip(self.q[1:], self.p[1:]):
            omega = omega + (M.d(qi) ^ M.d(pi))
        self.omega = omega
        self.vector_field = gc.hamiltonian_vector_field(self.H, omega)
        self._separable = None

    def _key(self):
        return (self.H, self.q, self.p, tuple(sorted(self._values.items(), key=lambda kv: kv[0].name)))

    @property
    def energy(self) -> sympy.Expr:
        """The conserved energy: H."""
        return self.H

    @property
    def is_separable(self) -> bool:
        """True iff ``H = T(p) + V(q)``: every mixed derivative ``H_{q_i p_j}`` vanishes.

        Decided by geomcheck's zero test (an undecided case counts as not separable).
        """
        if self._separable is None:
            from geomcheck.zero import decide_all_zero

            # only the additive terms that contain a position and a momentum can have a mixed
            # derivative: a chain's H = sum p^2/2 + sum V(q_i - q_j) has none (no n^2 derivatives)
            qs, ps = set(self.q), set(self.p)
            mixing = sympy.Add(*[t for t in sympy.Add.make_args(self.H)
                                 if t.free_symbols & qs and t.free_symbols & ps])
            present = mixing.free_symbols
            mixed = [sympy.diff(mixing, qi, pj) for qi in self.q if qi in present for pj in self.p if pj in present]
            mixed = [m for m in mixed if m != 0]
            self._separable = (not mixed) or decide_all_zero(mixed, budget=5.0).is_zero is True
        return self._separable

    def __repr__(self):
        return f"HamiltonianSystem({self.H}, q={list(self.q)}, p={list(self.p)})"

    def _latex(self, printer=None):
        return r"H = " + sympy.latex(self.H)


class ContactSystem(System):
    """A contact Hamiltonian system on ``(x, p, z)`` with contact form ``eta = dz - sum p_i dx_i``.

    The vector field (the public contract, docs/contract.md):
    ``x' = H_p, p' = -H_x - p H_z, z' = p H_p - H``.

    Parameters
    ----------
    H : sympy expression
        The contact Hamiltonian ``H(x, p, z[, t])``.
    x, p : sequence of Symbol (or one Symbol)
    z : Symbol
    t : Symbol, optional
        The time, when H depends on it (a time-dependent system; schemes evaluate their
        stages at ``t + c_i h``).
    parameters : dict, optional
        Numeric values of constant symbols (see :class:`HamiltonianSystem`).

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> x, p, z, g = sympy.symbols("x p z gamma")
    >>> damped = ig.ContactSystem(p**2 / 2 + x**2 / 2 + g * z, x, p, z)
    >>> damped.vector_field
    VectorField({x: p, p: -gamma*p - x, z: -gamma*z + p**2/2 - x**2/2})
    >>> damped.eta
    Form((-p)*dx + dz)
    >>> damped.parameters
    (gamma,)
    """

    kind = "contact"

    def __init__(self, H: sympy.Expr | float, x: sympy.Symbol | str | Iterable[sympy.Symbol],
                 p: sympy.Symbol | str | Iterable[sympy.Symbol], z: sympy.Symbol | str,
                 t: sympy.Symbol | str | None = None, parameters: Mapping | None = None):
        owner = "ContactSystem"
        self.x = _symbols(x, "x", owner)
        self.p = _symbols(p, "p", owner)
        zz = _symbols(z, "z", owner)
        if len(zz) != 1:
            raise SystemDefinitionError(f"{owner}: z must be one Symbol, got {z!r}")
        self.z = zz[0]
        if not self.x or len(self.x) != len(self.p):
            raise SystemDefinitionError(
                f"{owner}: {len(self.x)} positions {list(self.x)} and {len(self.p)} momenta {list(self.p)};"
                " expected at least one and as many momenta as positions"
            )
        if t is not None:
            times = _symbols(t, "t", owner)
            if len(times) != 1:
                raise SystemDefinitionError(f"{owner}: t must be one time Symbol, got {t!r}")
            (t,) = times
        self.time = t
        coords = self.x + self.p + (self.z,)
        if len(set(coords + ((t,) if t is not None else ()))) != len(coords) + (t is not None):
            raise SystemDefinitionError(f"{owner}: the coordinates {list(coords)} (and the time {t}) are not distinct")
        self.H = _expression(H, owner)
        self._parameters, self._values = _parameters(self.H, coords, t, parameters, owner)
        self.chart = gc.Chart(list(coords))
        M = self.chart
        eta = M.d(self.z)
        for xi, pi in zip(self.x, self.p):
            eta = eta - pi * M.d(xi)
        self.eta = eta
        self.vector_field = gc.contact_vector_field(self.H, eta)

    def _key(self):
        return (self.H, self.x, self.p, self.z, self.time,
                tuple(sorted(self._values.items(), key=lambda kv: kv[0].name)))

    @property
    def energy(self) -> sympy.Expr:
        """The contact Hamiltonian H (not conserved: dH/dt = -H H_z + H_t along the flow)."""
        return self.H

    @property
    def degrees_of_freedom(self) -> int:
        return len(self.x)

    def __repr__(self):
        t = f", t={self.time}" if self.time is not None else ""
        return f"ContactSystem({self.H}, x={list(self.x)}, p={list(self.p)}, z={self.z}{t})"

    def _latex(self, printer=None):
        return r"H = " + sympy.latex(self.H)


_System = System  # the former private name
