r"""Coupled natural systems: the action-reaction force and the energy balance.

Komatsu, Terakawa & Yaguchi, *Energetic-property-preserving numerical schemes for coupled
natural systems*, Mathematics 8 (2020) 249, Sections 2 and 4 (the schemes of Sections 3-4 are
in :mod:`geomcheck.structures.natural_discrete`).

A *natural system* here is ``M u'' = -grad V(u) - G u' + (force)`` with a symmetric mass matrix
``M``, a potential ``V`` and a dissipation matrix ``G``; its energy is
``E = mu (1/2 u'.M u' + V(u))`` and its dissipation ``mu u'.G u'``, where the weight ``mu`` is 1
for an ODE and the grid spacing ``dx`` for a semi-discretized PDE (Theorem 5).  Two natural
systems touch at one point: the first is pushed by ``f eps1``, the second by ``-f eps2``
(action-reaction), with ``eps`` a unit vector ``e_i`` for an ODE and an approximate delta vector
(``e_k / dx`` or a normalized Gaussian) for a PDE.

The force ``f`` is *derived*, the way the paper does it: the velocities at the contact point
must agree, ``c = mu1 eps1.u1' - mu2 eps2.u2' = 0``; differentiating ``c`` along the equations
of motion gives an equation linear in ``f``, solved for ``f`` (:func:`couple`).  Then
``dE/dt + (dissipation) = f c`` identically, ``c`` is a first integral of the coupled flow, and on
``c = 0`` the energy balance ``dE/dt = -(dissipation)`` holds (Theorems 1, 2, 3, 5:
:func:`certify_energy_balance`).

Concrete systems of Section 5: :func:`discrete_wave_system` (``u_tt = u_xx - g u_t``, Dirichlet),
:func:`discrete_beam_system` (``u_tt = -u_xxxx - g u_t``, simply supported),
:func:`mass_spring_system`, and the two coupled examples :func:`wave_beam_system` and
:func:`mass_spring_beam_system`; the difference matrices ``D2`` and ``D4`` as printed
(:func:`second_difference_matrix`, :func:`fourth_difference_matrix`, the corner 5 of ``D4`` coming
from the ghost node ``u_{-1} = -u_1``).

What the computation says about the printed formulas
----------------------------------------------------
Each item has a kind (as the case studies' findings do): an *error* of the authors'
text, *damage* in our converted copy of the paper, a *convention* (an ambiguous or unstated reading,
both readings stated), and a test in ``tests/geomcheck/structures/test_natural.py``.  Our copy has
lost its minus signs and nabla symbols, so signs are judged only where it kept them.  Equation
numbers are the paper's (most of its displays carry no number in our copy; the numbers are fixed
by the in-text references and the figure captions, see ``EQUATIONS`` in the case studies).

* [error] Eqs. (26)-(27) damp the *second* subsystem with ``G1`` (``G1 du2/dt``); the derivation
  gives ``G2``, as Theorem 1's eq. (34) prints it.  ``printed_force(s, "27")`` is the printed
  version; ``test_eq27_misprint_G1_for_G2`` shows it differs from the derived force.
* [error] Eq. (21) writes the second kinetic energy with ``du1/dt``: ``test_eq21_misprint_kinetic_energy``.
* [error] Theorem 5: its energy ``E`` lacks the factor 1/2 of the kinetic energy (its proof and
  Theorem 6 have it): ``test_theorem5_energy_misprint_missing_half``.
* [convention] Theorem 5, eq. (78) writes the dissipation ``G1(du1, du1) + G2(du2, du2)`` without
  the weights ``mu1, mu2``.  Read with the bilinear form of eq. (8), ``w.G w`` (as the proof and
  Theorem 6 read it: they write the weights), it is wrong for ``mu = dx``; read as the discrete
  analogue of eq. (9), ``sum w G w dx`` (weight built in), it holds:
  ``test_theorem5_dissipation_readings``.
* [convention] Theorem 2 (PDE-PDE, eq. (44)): the printed ``f`` comes from the "naive" computation
  the paper announces, ``delta(0)`` read like the unit vector's 1.  Read as the coefficient of
  ``delta(x - x1)`` (the ``f_hat`` of the delta vector ``e_k/dx``) it is off by a length ``dx``;
  read as the nodal force ``f_hat/dx`` (the ``f_d`` of the paper's scheme, eq. (92)) it holds
  exactly: ``test_theorem2_force_readings``.
* [convention] Theorem 3 (ODE-PDE, eq. (51)) and eq. (98) print ``rho/(m + rho)`` and
  ``m/(m + rho)``, from the same naive step, which adds a mass to a mass per length.  Read with
  ``rho`` the density, they are not the force of the semi-discretization, which (with
  ``eps2 = e_k/dx``, ``mu2 = dx``) is ``dx rho/(dx rho + m)`` and ``m/(dx rho + m)`` times ``dx``,
  as the paper's own scheme (100) has it; read with ``rho`` the mass ``rho dx`` of the contact node
  (and the elastic force per node) they hold; on a grid of spacing 1 both readings agree:
  ``test_theorem3_force_readings``.
* [convention] Eq. (94): the wave energy ``sum_{i=1}^{N1} 1/4 ((d+ u_i)^2 + (d- u_i)^2) dx``, "N1 the
  number of the nodes".  Over the interior nodes (the unknowns) it is not the energy of ``D2``
  (it counts the two boundary edges half); over all nodes ``0..N`` with the differences that
  would leave the grid omitted it is ``1/2 |d+ u|^2 dx``, whose gradient is ``-D2 u``:
  ``test_eq94_wave_energy_readings`` (:func:`printed_wave_potential`, ``nodes="interior"`` or ``"all"``).
* [damage] Eqs. (92) and (100): as read in our copy the schemes' forces have lost their minus
  signs; the derived forces restore them consistently with every sign our copy kept:
  ``test_eq92_nodal_force_signs``, ``test_eq100_force_signs``.

Examples
--------
>>> import sympy
>>> from geomcheck.structures import natural_system, couple, certify_energy_balance
>>> m1, m2, g1, g2 = sympy.symbols("m1 m2 gamma1 gamma2", positive=True)
>>> A = natural_system(2, name="1", mass=m1, damping=g1)       # any V_1(u_1, u_2)
>>> B = natural_system(3, name="2", mass=m2, damping=g2)
>>> s = couple(A, B, 0, 2)                                     # e_1 on A, e_3 on B
>>> certify_energy_balance(s).holds
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Sequence

import sympy
from sympy.core.function import UndefinedFunction

from ..algebra import Chart
from ..calculus import diff
from ..certify.certificate import Certificate
from ..errors import (
    ContactPointError,
    DuplicateCoordinateError,
    ExpressionError,
    InteractionError,
    InvalidArgumentError,
    SubsystemShapeError,
)
from ..fields import VectorField
from ..latex import Derivation, latex, tex_text
from ..maps import substitute
from ..zero import decide_all_zero, decide_zero
from .exact_vectors import dot, exact_entry, matvec
from .typeset import typeset, typeset_sum

__all__ = [
    "NaturalSystem",
    "natural_system",
    "CoupledNaturalSystem",
    "InteractionForce",
    "couple",
    "unit_vector",
    "point_delta",
    "gaussian_delta",
    "printed_force",
    "certify_interaction_force",
    "certify_energy_balance",
    "second_difference_matrix",
    "fourth_difference_matrix",
    "discrete_wave_system",
    "discrete_beam_system",
    "printed_wave_potential",
    "mass_spring_system",
    "wave_beam_system",
    "mass_spring_beam_system",
    "certify_gradient_operator",
]

def _square(value, n, what, name, allow_none=False):
    """An n x n ImmutableMatrix from a scalar (times I), a length-n diagonal, or a matrix."""
    if value is None:
        if allow_none:
            return None
        raise ExpressionError(f"system {name}: {what} is missing")
    if isinstance(value, sympy.MatrixBase):
        if value.shape != (n, n):
            raise SubsystemShapeError(
                f"system {name}: the {what} matrix has shape {value.shape}; ({n}, {n}) was expected"
                f" for {n} coordinates")
        return sympy.ImmutableMatrix(value)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise SubsystemShapeError(
                f"system {name}: {len(value)} diagonal entries given for the {what}; {n} were expected")
        return sympy.ImmutableMatrix(sympy.diag(*[exact_entry(x, what) for x in value]))
    return sympy.ImmutableMatrix(exact_entry(value, what) * sympy.eye(n))


# --------------------------------------------------------------------------- one natural system


@dataclass(frozen=True)
class NaturalSystem:
    r"""``M u'' = -grad V(u) - G u' (+ an external force)``, energy ``mu (1/2 u'.M u' + V)``.

    Build it with :func:`natural_system` (or the concrete builders).  Attributes: ``name``;
    ``u`` and ``v`` (position and velocity symbols); ``potential`` (V, an expression in ``u``);
    ``mass`` and ``damping`` (n x n ImmutableMatrix; ``damping`` None for none); ``weight``
    (``mu``: 1 for an ODE, ``dx`` for a semi-discretized PDE); ``spacing`` and ``length`` (the
    grid of a PDE: interior nodes ``x_k = k dx``, k = 1..n; None for an ODE).
    """

    name: str
    u: tuple
    v: tuple
    potential: sympy.Expr
    mass: sympy.ImmutableMatrix
    damping: object = None
    weight: sympy.Expr = sympy.S.One
    spacing: object = None
    length: object = None

    @property
    def n(self) -> int:
        return len(self.u)

    @cached_property
    def gradient(self) -> tuple:
        """grad V, component by component."""
        return tuple(diff(self.potential, x) for x in self.u)

    @cached_property
    def scalar_mass(self) -> sympy.Expr | None:
        """m when ``M = m I``, else None."""
        m = self.mass[0, 0]
        return m if self.mass == m * sympy.eye(self.n) else None

    def solve_mass(self, w: Sequence[sympy.Expr | float]) -> tuple[sympy.Expr, ...]:
        """M^{-1} w (elementwise for a diagonal mass matrix)."""
        if self.mass.is_diagonal():
            return tuple(wi / self.mass[i, i] if wi != 0 else sympy.S.Zero for i, wi in enumerate(w))
        return tuple(self.mass.LUsolve(sympy.Matrix(w)))

    def damping_force(self, w: Sequence[sympy.Expr | float]) -> tuple[sympy.Expr, ...]:
        """G w (zero without damping)."""
        if self.damping is None:
            return (sympy.S.Zero,) * self.n
        return matvec(self.damping, w)

    def kinetic(self, w: Sequence[sympy.Expr | float]) -> sympy.Expr:
        """1/2 w.M w."""
        return dot(w, matvec(self.mass, w)) / 2

    def energy(self, u: Sequence[sympy.Expr | float] | None = None,
               v: Sequence[sympy.Expr | float] | None = None) -> sympy.Expr:
        """``mu (1/2 v.M v + V(u))`` (at other points u, v when given)."""
        V = self.potential if u is None else substitute(self.potential, dict(zip(self.u, u)))
        return self.weight * (self.kinetic(self.v if v is None else v) + V)

    def dissipation(self, w: Sequence[sympy.Expr | float] | None = None) -> sympy.Expr:
        """``mu w.G w`` (the paper's ``mu G(w, w)``), with ``w = v`` by default."""
        w = self.v if w is None else tuple(w)
        if self.damping is None:
            return sympy.S.Zero
        return self.weight * dot(w, matvec(self.damping, w))

    def acceleration(self, force: Sequence[sympy.Expr | float]) -> tuple[sympy.Expr, ...]:
        """``M^{-1}(-grad V - G v + force)``."""
        G = self.damping_force(self.v)
        return self.solve_mass([-g - d + f for g, d, f in zip(self.gradient, G, force)])

    def node(self, x0: sympy.Expr | float) -> int:
        """The index (0-based into ``u``) of the grid node nearest to the point ``x0``.

        Raises
        ------
        ContactPointError
            The system is not a semi-discretized PDE, or ``x0`` is not inside the interval, or
            its nearest node is a boundary node (where u is fixed).
        """
        if self.spacing is None:
            raise ContactPointError(
                f"system {self.name} is an ODE (no spatial grid); give the contact as a coordinate index"
                f" 0..{self.n - 1} instead of the point {x0!r}")
        x0 = exact_entry(x0, "contact point")
        if not x0.is_number:
            raise ContactPointError(f"the contact point {x0} must be a number inside (0, {self.length})")
        if not (0 < x0 < self.length):
            raise ContactPointError(
                f"the contact point x0 = {x0} of system {self.name} lies outside the interval (0, {self.length})"
                f" of its grid (nodes x_k = k*{self.spacing}, k = 1..{self.n})")
        k = int(sympy.floor(x0 / self.spacing + sympy.Rational(1, 2)))
        if not 1 <= k <= self.n:
            raise ContactPointError(
                f"the contact point x0 = {x0} of system {self.name} is nearest to the boundary node x_{k}, where"
                f" u is fixed; interior nodes are x_1 = {self.spacing} .. x_{self.n} = {self.n * self.spacing}")
        return k - 1

    def _latex(self, printer=None):
        V = typeset(self.potential)
        return (rf"{latex(self.mass[0, 0]) if self.scalar_mass is not None else 'M'}\,\ddot u_{{{self.name}}}"
                rf" = -\nabla V_{{{self.name}}} - G_{{{self.name}}}\dot u_{{{self.name}}},\quad"
                rf" V_{{{self.name}}} = {V}")

    def latex(self) -> str:
        return self._latex()

    def _repr_latex_(self):
        return f"${self._latex()}$"


def _symbols(letter, name, n):
    return tuple(sympy.Symbol(f"{letter}_{{{name},{k + 1}}}") for k in range(n))


def natural_system(n: int, potential: sympy.Expr | Callable[[tuple[sympy.Symbol, ...]], sympy.Expr] | None = None, *,
                   name: str = "1", mass: sympy.Expr | float | Sequence[sympy.Expr | float] | sympy.MatrixBase = 1,
                   damping: sympy.Expr | float | Sequence[sympy.Expr | float] | sympy.MatrixBase | None = None,
                   weight: sympy.Expr | float = 1, spacing: sympy.Expr | float | None = None,
                   length: sympy.Expr | float | None = None) -> NaturalSystem:
    r"""A natural system with ``n`` coordinates ``u_{name,1..n}`` and velocities ``v_{name,1..n}``.

    Parameters
    ----------
    n : int
        The number of coordinates (any n >= 1).
    potential : sympy.Expr, callable or None
        V: an expression in the position symbols, or a callable ``V(u)`` of the tuple of
        positions, or None for a generic smooth ``V_name(u_1, ..., u_n)`` (an undefined function).
    name : str
        Names the symbols (``u_{name,k}``) and the generic potential; subsystems need distinct names.
    mass, damping : scalar, sequence of n (a diagonal) or n x n Matrix
        ``M`` (default 1) and ``G`` (default None: no dissipation).
    weight : scalar
        ``mu``: 1 for an ODE, the spacing for a semi-discretized PDE.
    spacing, length : scalar, optional
        The grid of a semi-discretized PDE (interior nodes ``x_k = k spacing``).

    Raises
    ------
    SubsystemShapeError
        ``n`` is not a positive int; a mass or damping of the wrong size.
    ExpressionError
        The potential is not an expression in the positions.
    InvalidArgumentError
        A mass matrix that is not symmetric.

    Examples
    --------
    >>> s = natural_system(2, lambda u: (u[0] - u[1])**2 / 2, name="a")
    >>> s.gradient
    (u_{a,1} - u_{a,2}, -u_{a,1} + u_{a,2})
    >>> natural_system(3).potential
    V_1(u_{1,1}, u_{1,2}, u_{1,3})
    """
    if isinstance(n, bool) or not isinstance(n, (int, sympy.Integer)) or n < 1:
        raise SubsystemShapeError(f"a natural system needs a positive integer number of coordinates, got n = {n!r}")
    n = int(n)
    name = str(name)
    u, v = _symbols("u", name, n), _symbols("v", name, n)
    if potential is None:
        V = sympy.Function(f"V_{name}")(*u)
    elif isinstance(potential, UndefinedFunction):
        V = potential(*u)
    elif callable(potential) and not isinstance(potential, sympy.Basic):
        V = potential(u)
    else:
        V = potential
    V = exact_entry(V, f"the potential of system {name}")
    stray = {s for s in V.free_symbols if s.name.startswith(("u_{", "v_{")) and s not in u}
    if stray or V.has(*v):
        raise ExpressionError(
            f"the potential {V} of system {name} uses {sorted(map(str, stray | (V.free_symbols & set(v))))},"
            f" which are not its positions {u}")
    M = _square(mass, n, "mass", name)
    if not M.is_symmetric():
        raise InvalidArgumentError(
            f"system {name}: the mass matrix {M.tolist()} is not symmetric; the kinetic energy 1/2 v.M v"
            " needs a symmetric M")
    G = _square(damping, n, "damping", name, allow_none=True)
    if G is not None and G.is_zero_matrix:
        G = None
    return NaturalSystem(name, u, v, V, M, G, exact_entry(weight, "weight"),
                         None if spacing is None else exact_entry(spacing, "spacing"),
                         None if length is None else exact_entry(length, "length"))


# --------------------------------------------------------------------------- contact vectors


def unit_vector(system: NaturalSystem, i: int) -> tuple[sympy.Expr, ...]:
    """``e_i`` (0-based index) for the contact of an ODE at its i-th coordinate.

    >>> unit_vector(natural_system(3), 1)
    (0, 1, 0)
    """
    if isinstance(i, bool) or not isinstance(i, (int, sympy.Integer)) or not 0 <= i < system.n:
        raise ContactPointError(
            f"contact index {i!r} is outside system {system.name}, whose coordinates are numbered 0..{system.n - 1}")
    return tuple(sympy.S.One if k == i else sympy.S.Zero for k in range(system.n))


def point_delta(system: NaturalSystem, x0: sympy.Expr | float) -> tuple[sympy.Expr, ...]:
    r"""``eps_j = 1/dx`` at the node nearest to ``x0``, 0 elsewhere (the paper's "straightforward"
    discretization of the delta function, Section 4).

    >>> w = discrete_wave_system(10)
    >>> point_delta(w, sympy.Rational(1, 5))[:3]
    (0, 10, 0)
    """
    k = system.node(x0)
    return tuple(1 / system.spacing if j == k else sympy.S.Zero for j in range(system.n))


def gaussian_delta(system: NaturalSystem, x0: sympy.Expr | float, sigma: sympy.Expr | float) -> tuple[sympy.Expr, ...]:
    r"""``eps_j = c0 exp(-(x_j - x0)^2 / (2 sigma^2))`` normalized by ``sum eps_j dx = 1`` (the
    "more sophisticated way" of Section 4).

    Exact (sympy exponentials); the constant ``1/sqrt(2 pi sigma^2)`` cancels in the normalization.
    """
    system.node(x0)   # validates the point
    sigma = exact_entry(sigma, "sigma")
    if sigma.is_number and not sigma > 0:
        raise ContactPointError(f"the width sigma = {sigma} of the Gaussian delta must be positive")
    x0 = exact_entry(x0, "contact point")
    raw = [sympy.exp(-((k + 1) * system.spacing - x0) ** 2 / (2 * sigma**2)) for k in range(system.n)]
    total = sympy.Add(*raw) * system.spacing
    return tuple(r / total for r in raw)


def _contact(system, eps, which):
    if isinstance(eps, (int, sympy.Integer)) and not isinstance(eps, bool):
        return unit_vector(system, eps)
    if isinstance(eps, (list, tuple, sympy.MatrixBase)):
        eps = tuple(exact_entry(e, f"eps{which}") for e in (list(eps)))
        if len(eps) != system.n:
            raise SubsystemShapeError(
                f"eps{which} has {len(eps)} entries but system {system.name} has {system.n} coordinates")
        if all(e == 0 for e in eps):
            raise InteractionError(f"eps{which} is the zero vector: system {system.name} would not be touched")
        return eps
    raise ContactPointError(
        f"eps{which} must be a coordinate index of system {system.name} (0..{system.n - 1}) or a vector of"
        f" length {system.n} (see unit_vector, point_delta, gaussian_delta); got {eps!r}")


# --------------------------------------------------------------------------- the coupled system


@dataclass(frozen=True)
class InteractionForce:
    r"""The action-reaction force ``f`` derived from equal contact velocities.

    Attributes
    ----------
    expr : sympy.Expr
        ``f`` as a function of the state.
    constraint : sympy.Expr
        ``c = mu1 eps1.v1 - mu2 eps2.v2`` (equal velocities at the contact point).
    coefficient, remainder : sympy.Expr
        ``dc/dt = coefficient * f + remainder`` along the equations of motion.
    derivation : Derivation
    """

    expr: sympy.Expr
    constraint: sympy.Expr
    coefficient: sympy.Expr
    remainder: sympy.Expr
    derivation: Derivation

    def latex(self) -> str:
        return self.derivation.latex()

    def _latex(self, printer=None):
        return "f = " + typeset(self.expr)


@dataclass(frozen=True)
class CoupledNaturalSystem:
    r"""Two natural systems pushing each other at one point (eq. 33 / 74 / 75).

    ``M1 u1'' = -grad V1 - G1 u1' + f eps1``, ``M2 u2'' = -grad V2 - G2 u2' - f eps2`` with ``f``
    the derived :class:`InteractionForce`.  Build with :func:`couple`.
    """

    first: NaturalSystem
    second: NaturalSystem
    eps1: tuple
    eps2: tuple
    force: InteractionForce = field(compare=False)

    @property
    def systems(self) -> tuple[NaturalSystem, NaturalSystem]:
        return (self.first, self.second)

    @cached_property
    def chart(self) -> Chart:
        """Coordinates ``(u1, v1, u2, v2)``."""
        a, b = self.first, self.second
        return Chart(list(a.u + a.v + b.u + b.v))

    @cached_property
    def vector_field(self) -> VectorField:
        """The coupled first-order field ``u' = v, v' = M^{-1}(-grad V - G v +- f eps)``."""
        return _field(self.first, self.second, self.eps1, self.eps2, self.force.expr)

    def energy(self) -> sympy.Expr:
        return self.first.energy() + self.second.energy()

    def dissipation(self) -> sympy.Expr:
        return self.first.dissipation() + self.second.dissipation()

    @property
    def constraint(self) -> sympy.Expr:
        return self.force.constraint

    def _latex(self, printer=None):
        return self.first._latex() + r",\quad " + self.second._latex()

    def latex(self) -> str:
        """The derivation of the interaction force."""
        return self.force.latex()

    def _repr_latex_(self):
        return f"${self._latex()}$"


def _field(a, b, eps1, eps2, f) -> VectorField:
    """The first-order field of ``a`` pushed by ``f eps1`` and ``b`` by ``-f eps2``."""
    acc1 = a.acceleration([f * e for e in eps1])
    acc2 = b.acceleration([-f * e for e in eps2])
    comps = dict(zip(a.u, a.v))
    comps.update(zip(a.v, acc1))
    comps.update(zip(b.u, b.v))
    comps.update(zip(b.v, acc2))
    return VectorField(Chart(list(a.u + a.v + b.u + b.v)), comps)


def couple(first: NaturalSystem, second: NaturalSystem, eps1: int | Sequence[sympy.Expr | float],
           eps2: int | Sequence[sympy.Expr | float]) -> CoupledNaturalSystem:
    r"""Couple two natural systems by action and reaction; derive the force ``f``.

    Parameters
    ----------
    first, second : NaturalSystem
    eps1, eps2 : int or sequence
        Where each is touched: a coordinate index (the unit vector ``e_i``, an ODE) or a vector
        (a :func:`point_delta` or :func:`gaussian_delta` of a semi-discretized PDE).

    The force is derived as in the paper's eqs. (25)-(27) and (80) (Theorem 5's proof): the contact velocities agree,
    ``c = mu1 eps1.v1 - mu2 eps2.v2 = 0``; along the equations of motion (with ``f`` unknown)
    ``dc/dt = a f + b``; requiring ``dc/dt = 0`` gives ``f = -b/a`` with
    ``a = mu1 eps1.M1^{-1} eps1 + mu2 eps2.M2^{-1} eps2``.

    Raises
    ------
    DuplicateCoordinateError
        The two systems share names (hence symbols).
    SubsystemShapeError, ContactPointError, InteractionError
        A contact vector of the wrong length, an index outside the system, a zero vector, or
        ``a = 0`` (no coupling).

    Examples
    --------
    >>> import sympy
    >>> m1, m2 = sympy.symbols("m1 m2", positive=True)
    >>> s = couple(natural_system(1, name="1", mass=m1), natural_system(1, name="2", mass=m2), 0, 0)
    >>> sympy.expand(s.force.expr * (m1 + m2))      # m2/(m1+m2) V1' - m1/(m1+m2) V2', eq. (34)
    -m1*Derivative(V_2(u_{2,1}), u_{2,1}) + m2*Derivative(V_1(u_{1,1}), u_{1,1})
    """
    for s in (first, second):
        if not isinstance(s, NaturalSystem):
            raise ExpressionError(f"couple expects NaturalSystem objects, got {type(s).__name__} {s!r}")
    if set(first.u + first.v) & set(second.u + second.v):
        raise DuplicateCoordinateError(
            f"the two systems are both named {first.name!r}: their coordinates coincide; give them distinct names")
    e1, e2 = _contact(first, eps1, 1), _contact(second, eps2, 2)
    f = sympy.Dummy("f")
    c = first.weight * dot(e1, first.v) - second.weight * dot(e2, second.v)
    X = _field(first, second, e1, e2, f)
    cdot = X(c)                                  # differentiate the constraint along the motion
    a = sympy.cancel(diff(cdot, f))             # cdot = a f + b is linear in f
    b = cdot.xreplace({f: 0})
    if a == 0:
        raise InteractionError("the contact vectors give dc/dt independent of f: the force is not determined")
    force = -b / a
    D = _force_derivation(first, second, e1, e2, c, cdot, a, b, force, f)
    return CoupledNaturalSystem(first, second, e1, e2, InteractionForce(force, c, a, b, D))


def _eps_tex(e, k):
    nz = [i for i, x in enumerate(e) if x != 0]
    if len(nz) == 1 and e[nz[0]] == 1:
        return rf"e_{{{nz[0] + 1}}}"
    if len(nz) == 1:
        return rf"{latex(e[nz[0]])}\, e_{{{nz[0] + 1}}}"
    return rf"\varepsilon_{{{k}}}"


def _force_derivation(A, B, e1, e2, c, cdot, a, b, force, f):
    fs = sympy.Symbol("f")
    D = Derivation(r"The action-reaction force from equal contact velocities")
    D = D.add(
        r"The coupled system (the paper's eqs. (33), (74), (75)) is",
        r"M_1 \ddot u_1 &= -\nabla V_1(u_1) - G_1 \dot u_1 + f\,\varepsilon_1, \\"
        r"M_2 \ddot u_2 &= -\nabla V_2(u_2) - G_2 \dot u_2 - f\,\varepsilon_2,"
        rf"\qquad \varepsilon_1 = {_eps_tex(e1, 1)},\ \varepsilon_2 = {_eps_tex(e2, 2)}.")
    D = D.add(
        r"The energy is conserved (up to dissipation) when the velocities at the contact point agree "
        r"(eq. (24)):",
        rf"c &= \mu_1 \varepsilon_1\cdot \dot u_1 - \mu_2\varepsilon_2\cdot\dot u_2 = {typeset(c)} = 0.")
    D = D.add(
        r"We impose $\dot c = 0$ (eq. (25)): differentiating $c$ and substituting the equations of motion gives",
        r"\dot c &= " + typeset_sum(cdot.xreplace({f: fs})) + " = 0,")
    D = D.add(
        r"a linear equation $a f + b = 0$ with",
        r"a &= \mu_1\varepsilon_1\cdot M_1^{-1}\varepsilon_1 + \mu_2\varepsilon_2\cdot M_2^{-1}\varepsilon_2 = "
        + typeset(a) + r", \\ b &= " + typeset_sum(b, expand=True) + ".")
    D = D.add(
        r"Hence (eqs. (34), (77))",
        r"f &= \Bigl(\mu_1\varepsilon_1\cdot M_1^{-1}\varepsilon_1 + \mu_2\varepsilon_2\cdot M_2^{-1}\varepsilon_2"
        r"\Bigr)^{-1}\Bigl(\mu_1\varepsilon_1\cdot M_1^{-1}(\nabla V_1 + G_1\dot u_1) - "
        r"\mu_2\varepsilon_2\cdot M_2^{-1}(\nabla V_2 + G_2\dot u_2)\Bigr) \\ &= \Bigl(" + typeset(a) + r"\Bigr)^{-1}"
        r"\Bigl(" + typeset_sum(-b, expand=True) + r"\Bigr).")
    return D


# --------------------------------------------------------------------------- printed formulas


def single_contact_node(eps: Sequence[sympy.Expr], which: int) -> int:
    """The node of a contact vector concentrated at one node (a unit vector or a point delta).

    The paper's printed forces read the contact vector at one node; ``which`` (1 or 2) names
    the subsystem in the error.

    Raises
    ------
    InteractionError
        ``eps`` has more (or fewer) than one nonzero entry.

    Examples
    --------
    >>> single_contact_node((0, 0, 1), 2)
    2
    """
    nz = [i for i, x in enumerate(eps) if x != 0]
    if len(nz) != 1:
        raise InteractionError(
            f"the printed formula needs eps{which} to be concentrated at one node (a unit vector or a point delta);"
            f" it has {len(nz)} nonzero entries")
    return nz[0]


def required_scalar_mass(system: NaturalSystem, what: str) -> sympy.Expr:
    """The ``m`` of a system with mass matrix ``M = m I``, which the printed formula ``what`` assumes.

    Raises
    ------
    SubsystemShapeError
        The system has a mass matrix that is not a multiple of the identity.
    """
    m = system.scalar_mass
    if m is None:
        raise SubsystemShapeError(
            f"the printed formula {what} is for a scalar mass (M = m I); system {system.name} has a mass matrix")
    return m


def _load(system, k, vel=None):
    """(grad V + G v)_k, optionally with another velocity vector in the damping term."""
    G = system.damping_force(system.v if vel is None else vel)
    return system.gradient[k] + G[k]


def printed_force(system: CoupledNaturalSystem, equation: str) -> sympy.Expr:
    r"""The interaction force as the paper prints it.

    ``equation`` is one of

    * ``"34"`` (Theorem 1, eq. (34); also the scheme's eq. (61)): ``m2/(m1+m2) (grad V1 + G1 u1')_i
      - m1/(m1+m2) (grad V2 + G2 u2')_j``;
    * ``"27"``: the same with ``G1 u2'`` in the second term (as printed in eqs. (26)-(27));
    * ``"theorem 2"`` (eq. (44), PDE-PDE): ``rho2/(rho1+rho2)(...)_{k1} - rho1/(rho1+rho2)(...)_{k2}``
      with ``delta V/delta u`` read as the semi-discrete gradient (the nodal force);
    * ``"theorem 3"`` (eq. (51), ODE-PDE): ``rho/(m+rho)(...)_i - m/(m+rho)(...)_k``;
    * ``"theorem 5"`` (eq. (77)): ``(mu1 eps1.eps1/rho1 + mu2 eps2.eps2/rho2)^{-1}
      (mu1/rho1 eps1.(grad V1 + G1 u1') - mu2/rho2 eps2.(grad V2 + G2 u2'))``.

    Raises
    ------
    SubsystemShapeError, InteractionError
        A mass matrix that is not scalar, contact vectors not concentrated at one node, or
        (for "27") subsystems of different sizes, where ``G1 u2'`` means nothing.
    ExpressionError
        An unknown equation label.
    """
    A, B = system.first, system.second
    m1, m2 = required_scalar_mass(A, equation), required_scalar_mass(B, equation)
    if equation == "theorem 5":
        e1, e2 = system.eps1, system.eps2
        a = A.weight * dot(e1, e1) / m1 + B.weight * dot(e2, e2) / m2
        l1 = dot(e1, [g + d for g, d in zip(A.gradient, A.damping_force(A.v))])
        l2 = dot(e2, [g + d for g, d in zip(B.gradient, B.damping_force(B.v))])
        return (A.weight / m1 * l1 - B.weight / m2 * l2) / a
    i, j = single_contact_node(system.eps1, 1), single_contact_node(system.eps2, 2)
    if equation in ("34", "theorem 2", "theorem 3"):
        return m2 / (m1 + m2) * _load(A, i) - m1 / (m1 + m2) * _load(B, j)
    if equation == "27":
        if A.n != B.n:
            raise SubsystemShapeError(
                f"eq. (27) applies G1 to du2/dt, which needs subsystems of equal size; they have {A.n} and {B.n}")
        if A.damping is None:
            return m2 / (m1 + m2) * _load(A, i) - m1 / (m1 + m2) * B.gradient[j]
        return m2 / (m1 + m2) * _load(A, i) - m1 / (m1 + m2) * (B.gradient[j] + matvec(A.damping, B.v)[j])
    raise ExpressionError(
        f"unknown equation {equation!r}; expected '34', '27', 'theorem 2', 'theorem 3' or 'theorem 5'")


def certify_interaction_force(system: CoupledNaturalSystem, candidate: sympy.Expr | float, *,
                              factor: sympy.Expr | float = 1, label: str = "the printed formula") -> Certificate:
    r"""Certify ``f == factor * candidate`` for the derived force ``f`` (e.g. a printed formula).

    ``factor`` relates conventions: Theorem 2 prints the nodal force ``f/dx``, so compare with
    ``factor = dx``.
    """
    cand = exact_entry(candidate, "candidate force")
    factor = exact_entry(factor, "factor")
    residual = system.force.expr - factor * cand
    dec = decide_zero(residual)
    D = system.force.derivation
    D = D.add(rf"Compared with {label}", r"f_{\mathrm{printed}} &= " + typeset(cand)
              + (r"" if factor == 1 else r",\qquad \text{scaled by } " + latex(factor)) + ",")
    D = D.add(r"the difference, which must vanish, is", r"f - f_{\mathrm{printed}} &= " + typeset(residual))
    return Certificate.from_decision(f"the derived interaction force equals {label}", dec, residual=residual,
                                     derivation=D)


# --------------------------------------------------------------------------- the energy balance


def _solve_constraint(system, c):
    """Solve ``c = 0`` (linear in the velocities) for one velocity of the first system."""
    A = system.first
    for k, e in enumerate(system.eps1):
        if e != 0:
            x = A.v[k]
            coeff = diff(c, x)
            return x, sympy.expand(x - c / coeff)   # c is linear in x: x cancels
    raise InteractionError("eps1 is zero")  # unreachable: couple() refuses it


def certify_energy_balance(system: CoupledNaturalSystem, *, energy: sympy.Expr | None = None,
                           dissipation: sympy.Expr | None = None) -> Certificate:
    r"""Certify ``dE/dt = -(dissipation)`` along the coupled flow (Theorems 1, 2, 3 and 5).

    The proof has the paper's two parts: (a) the contact-velocity mismatch
    ``c = mu1 eps1.v1 - mu2 eps2.v2`` is a first integral, ``X(c) = 0`` (this is how ``f`` was
    chosen); (b) ``dE/dt + D`` vanishes on ``c = 0`` (the initial condition (32)/(76)); indeed
    ``dE/dt + D = f c`` identically (as in the proof of Theorem 5), which the derivation shows.

    Parameters
    ----------
    system : CoupledNaturalSystem
    energy, dissipation : sympy.Expr, optional
        Replace ``E = sum mu (1/2 v.M v + V)`` and ``D = sum mu v.G v`` (to test printed variants).

    Returns
    -------
    Certificate
        ``residual = {"invariance": X(c), "balance": dE/dt + D, "on c = 0": ...}``.
    """
    X = system.vector_field
    E = system.energy() if energy is None else exact_entry(energy, "energy")
    Dis = system.dissipation() if dissipation is None else exact_entry(dissipation, "dissipation")
    c = system.constraint
    Xc = X(c)
    inv = decide_zero(Xc)
    x, sol = _solve_constraint(system, c)
    # dE/dt + D = f c holds for every value of f, so it is first decided with f a free symbol
    # (smaller expressions; an identity for all f holds for the derived one), and with the
    # derived f only when that is not conclusive
    fs = sympy.Dummy("f")
    R = _field(system.first, system.second, system.eps1, system.eps2, fs)(E) + Dis
    R_on = substitute(R, {x: sol})
    bal, identity = decide_zero(R_on), decide_zero(R - fs * c)
    if bal.is_zero is not True:
        R = X(E) + Dis
        R_on = substitute(R, {x: sol})
        bal, identity = decide_zero(R_on), decide_zero(R - system.force.expr * c)
    if inv.is_zero is True and bal.is_zero is True:
        holds, stage = True, ("randomized" if "randomized" in (inv.stage, bal.stage) else "exact")
        method = f"c is a first integral ({inv.method}); dE/dt + D vanishes on c = 0 ({bal.method})"
    elif inv.is_zero is False or bal.is_zero is False:
        holds, stage = False, "counterexample"
        bad = inv if inv.is_zero is False else bal
        method = ("c is not a first integral: " if bad is inv else "dE/dt + D does not vanish on c = 0: ") + bad.method
    else:
        holds, stage = None, "unknown"
        method = f"undecided: invariance of c: {inv.method}; balance on c = 0: {bal.method}"
    point = (inv if inv.is_zero is False else bal).point if holds is False else None

    D = Derivation(r"Energy balance of the coupled natural system (Theorems 1 and 5)")
    D = D.add(r"The energy and the dissipation are",
              r"E &= \mu_1\Bigl(\tfrac12 \dot u_1\cdot M_1\dot u_1 + V_1(u_1)\Bigr) + "
              r"\mu_2\Bigl(\tfrac12 \dot u_2\cdot M_2\dot u_2 + V_2(u_2)\Bigr) \\ &= " + typeset_sum(E) + r", \\"
              r"\mathcal D &= \mu_1 G_1(\dot u_1, \dot u_1) + \mu_2 G_2(\dot u_2, \dot u_2) = " + typeset_sum(Dis) + ".")
    D = D.add(r"Differentiating $E$ and substituting the equations of motion (eq. (22) and the proof of Theorem 5),",
              r"\frac{dE}{dt} + \mathcal D &= " + typeset_sum(R)
              + r" \\ &= f\,\bigl(\mu_1\varepsilon_1\cdot\dot u_1 - \mu_2\varepsilon_2\cdot\dot u_2\bigr) = f\,c")
    D = D.add(r"(the last equality: " + tex_text(identity.method) + r"). By the choice of $f$, $c$ is conserved:",
              r"\dot c &= " + typeset_sum(Xc, expand=True) + r"\quad(" + r"\text{" + tex_text(inv.method) + "})")
    D = D.add(r"so $c = 0$ for all $t$ when it holds at $t = 0$ (eq. (32)). On $c = 0$, with $"
              + latex(x) + " = " + typeset(sol) + r"$,",
              r"\frac{dE}{dt} + \mathcal D &= " + typeset_sum(R_on, expand=True)
              + r"\quad(\text{" + tex_text(bal.method) + "}).")
    D = D.concluding({True: r"Hence $dE/dt = -\mathcal D \le 0$, and $dE/dt = 0$ without dissipation.",
                      False: "Hence the balance fails.", None: "The claim is undecided."}[holds])
    return Certificate(
        claim="dE/dt == -(dissipation) along the coupled flow, on the invariant set of equal contact velocities",
        holds=holds, method=method, stage=stage,
        residual={"invariance": Xc, "balance": R, "on c = 0": R_on},
        counterexample=point, derivation=D)


# --------------------------------------------------------------------------- Section 5: concrete systems


def second_difference_matrix(n: int, dx: sympy.Expr | float) -> sympy.ImmutableMatrix:
    r"""``D2 = tridiag(1, -2, 1) / dx^2`` (n x n), as printed in eq. (93): Dirichlet ``u_0 = u_{n+1} = 0``
    (the boundary conditions of eq. (90)).

    >>> second_difference_matrix(3, 1)
    Matrix([
    [-2,  1,  0],
    [ 1, -2,  1],
    [ 0,  1, -2]])
    """
    dx = exact_entry(dx, "dx")
    return sympy.ImmutableMatrix(n, n, lambda i, j: {0: -2, 1: 1, -1: 1}.get(i - j, 0) / dx**2)


def fourth_difference_matrix(n: int, dx: sympy.Expr | float) -> sympy.ImmutableMatrix:
    r"""``D4`` as printed in eq. (93): pentadiagonal ``(1, -4, 6, -4, 1) / dx^4`` with corners 5.

    The corner 5 comes from the simply supported ends: ``u_0 = 0`` and the ghost node
    ``u_{-1} = -u_1`` (so ``u_xx = 0``), giving ``u_{-1} - 4u_0 + 6u_1 - 4u_2 + u_3 = 5u_1 - 4u_2 + u_3``.

    >>> fourth_difference_matrix(4, 1)[0, :]
    Matrix([[5, -4, 1, 0]])
    """
    dx = exact_entry(dx, "dx")

    def entry(i, j):
        if i == j:
            return (5 if i in (0, n - 1) else 6) / dx**4
        return {1: -4, 2: 1}.get(abs(i - j), 0) / dx**4

    return sympy.ImmutableMatrix(n, n, entry)


def _grid(intervals, length):
    if isinstance(intervals, bool) or not isinstance(intervals, (int, sympy.Integer)) or intervals < 3:
        raise SubsystemShapeError(f"a grid needs an integer number of intervals >= 3, got {intervals!r}")
    length = exact_entry(length, "length")
    return int(intervals), length, length / int(intervals)


def discrete_wave_system(intervals: int, length: sympy.Expr | float = 1, *, speed: sympy.Expr | float = 1,
                         density: sympy.Expr | float = 1, damping: sympy.Expr | float = 0,
                         name: str = "1") -> NaturalSystem:
    r"""The wave equation ``rho u_tt = c^2 u_xx - g u_t`` on (0, L), ``u = 0`` at both ends, semi-discretized.

    Unknowns at the interior nodes ``x_k = k dx``, k = 1..N-1 (``dx = L/N``);
    ``V = c^2/2 sum_{i=0}^{N-1} (d+ u_i)^2`` (so ``grad V = -c^2 D2 u``), weight ``mu = dx``.

    >>> w = discrete_wave_system(4)
    >>> w.n, w.spacing, w.gradient[0]
    (3, 1/4, 32*u_{1,1} - 16*u_{1,2})
    """
    N, L, dx = _grid(intervals, length)
    u = _symbols("u", name, N - 1)
    full = (sympy.S.Zero,) + u + (sympy.S.Zero,)
    c = exact_entry(speed, "speed")
    V = c**2 / 2 * sympy.Add(*[((full[i + 1] - full[i]) / dx) ** 2 for i in range(N)])
    return natural_system(N - 1, V, name=name, mass=density, damping=damping, weight=dx, spacing=dx, length=L)


def printed_wave_potential(system: NaturalSystem, nodes: str = "interior") -> sympy.Expr:
    r"""The wave potential of eq. (94), ``sum_i 1/4 ((d+ u_i)^2 + (d- u_i)^2)``, in one of its two readings.

    Eq. (94) sums over ``i = 1..N1``, "N1 the number of the nodes", and does not say which nodes:

    * ``nodes="interior"``: the interior nodes ``i = 1..N-1`` (the unknowns, the rows of ``D2``), with
      ``u_0 = u_N = 0``.  This is *not* the energy of ``D2``: it counts the two boundary edges half;
    * ``nodes="all"``: all nodes ``i = 0..N``, the differences that would need a node outside the grid
      (``d- u_0``, ``d+ u_N``) omitted.  This is ``1/2 sum_{i=0}^{N-1} (d+ u_i)^2``, the potential of
      :func:`discrete_wave_system`, whose gradient is ``-D2 u``.

    >>> w = discrete_wave_system(4)
    >>> sympy.expand(printed_wave_potential(w, "all") - w.potential)
    0
    """
    if nodes not in ("interior", "all"):
        raise InvalidArgumentError(f"nodes = {nodes!r}: expected 'interior' or 'all'")
    dx = system.spacing
    full = (sympy.S.Zero,) + system.u + (sympy.S.Zero,)
    last = len(full) - 1                                    # node N
    lo, hi = (1, last - 1) if nodes == "interior" else (0, last)
    terms = []
    for i in range(lo, hi + 1):
        if i < last:
            terms.append(((full[i + 1] - full[i]) / dx) ** 2 / 4)     # (d+ u_i)^2 / 4
        if i > 0:
            terms.append(((full[i] - full[i - 1]) / dx) ** 2 / 4)     # (d- u_i)^2 / 4
    return sympy.Add(*terms)


def discrete_beam_system(intervals: int, length: sympy.Expr | float = 1, *, stiffness: sympy.Expr | float = 1,
                         density: sympy.Expr | float = 1, damping: sympy.Expr | float = 0,
                         name: str = "2") -> NaturalSystem:
    r"""The beam ``rho u_tt = -EI u_xxxx - g u_t`` on (0, L), simply supported, semi-discretized.

    Unknowns at the interior nodes; ``V = EI/2 sum_{i=1}^{N-1} (d2 u_i)^2`` with ``u_0 = u_N = 0``
    (the ghost node ``u_{-1} = -u_1`` makes ``d2 u_0 = 0``), so ``grad V = EI D4 u`` with ``D4`` as
    printed; weight ``mu = dx``.

    >>> b = discrete_beam_system(5)
    >>> b.gradient[0]
    3125*u_{2,1} - 2500*u_{2,2} + 625*u_{2,3}
    """
    N, L, dx = _grid(intervals, length)
    u = _symbols("u", name, N - 1)
    full = (sympy.S.Zero,) + u + (sympy.S.Zero,)
    EI = exact_entry(stiffness, "stiffness")
    V = EI / 2 * sympy.Add(*[((full[i + 1] - 2 * full[i] + full[i - 1]) / dx**2) ** 2 for i in range(1, N)])
    return natural_system(N - 1, V, name=name, mass=density, damping=damping, weight=dx, spacing=dx, length=L)


def mass_spring_system(m1: sympy.Expr | float = 1, m2: sympy.Expr | float = 1, k: sympy.Expr | float = 1000, *,
                       name: str = "1") -> NaturalSystem:
    r"""Two masses joined by a spring: ``m1 u1'' = -k(u1 - u2)``, ``m2 u2'' = -k(u2 - u1)`` (eq. (96)).

    >>> mass_spring_system(1, 1, 10).gradient
    (10*u_{1,1} - 10*u_{1,2}, -10*u_{1,1} + 10*u_{1,2})
    """
    kk = exact_entry(k, "k")
    return natural_system(2, lambda u: kk / 2 * (u[0] - u[1]) ** 2, name=name, mass=[m1, m2])


def certify_gradient_operator(system: NaturalSystem, matrix: sympy.MatrixBase | Sequence[Sequence[Any]], sign: int = 1,
                              *, potential: sympy.Expr | float | None = None) -> Certificate:
    r"""Certify ``grad V = sign * matrix * u`` (e.g. ``grad V = -D2 u`` for the wave, ``D4 u`` for the beam)."""
    matrix = sympy.ImmutableMatrix(matrix)
    if matrix.shape != (system.n, system.n):
        raise SubsystemShapeError(f"the operator has shape {matrix.shape}; ({system.n}, {system.n}) was expected")
    V = system.potential if potential is None else exact_entry(potential, "potential")
    grad = [diff(V, x) for x in system.u]
    Mu = matvec(matrix, system.u)
    residual = [g - sign * m for g, m in zip(grad, Mu)]
    dec = decide_all_zero(residual)
    D = Derivation(r"The semi-discrete potential and the difference operator")
    D = D.add(r"The potential is", r"V &= " + typeset(V))
    D = D.add(r"and its gradient is compared with " + ("" if sign == 1 else r"$-$") + r"the matrix times $u$:",
              r"\nabla V - " + ("" if sign == 1 else "(-1)") + r"D u &= " + typeset(sympy.Matrix(residual).T))
    return Certificate.from_decision("grad V == sign * D u", dec, residual=residual, derivation=D)


def wave_beam_system(
        intervals: int = 100, *, damping: tuple[sympy.Expr | float, sympy.Expr | float] = (0, 0),
        contact: tuple[sympy.Expr | float, sympy.Expr | float] = (sympy.Rational(1, 5), sympy.Rational(1, 5)),
        length: tuple[sympy.Expr | float, sympy.Expr | float] = (1, 1),
) -> CoupledNaturalSystem:
    r"""Section 5, first example: the wave (system 1) and the beam (system 2) touching at x1, x2.

    ``u1_tt = u1_xx - g1 u1_t + f delta(x - x1)``, ``u2_tt = -u2_xxxx - g2 u2_t - f delta(x - x2)``;
    point deltas ``e_k / dx`` and weights ``dx`` (Theorem 5).  Paper: N = 100 (dx = 1/100),
    x1 = x2 = 0.2, g1 = g2 in {0, 10}.
    """
    W = discrete_wave_system(intervals, length[0], damping=damping[0], name="1")
    B = discrete_beam_system(intervals, length[1], damping=damping[1], name="2")
    return couple(W, B, point_delta(W, contact[0]), point_delta(B, contact[1]))


def mass_spring_beam_system(intervals: int = 100, *, m1: sympy.Expr | float = 1, m2: sympy.Expr | float = 1,
                            rho: sympy.Expr | float = 1, k: sympy.Expr | float = 1000,
                            contact: sympy.Expr | float = sympy.Rational(4, 5),
                            length: sympy.Expr | float = 1) -> CoupledNaturalSystem:
    r"""Section 5, second example: a mass-spring (u1 attached) and the beam u3 touching at x0.

    ``m1 u1'' = -k(u1 - u2) + f``, ``m2 u2'' = -k(u2 - u1)``, ``rho u3_tt = -u3_xxxx - f delta(x - x0)``.
    Paper: m1 = m2 = rho = 1, k = 1000, N = 100, x0 = 0.8.
    """
    S = mass_spring_system(m1, m2, k, name="1")
    B = discrete_beam_system(intervals, length, density=rho, name="3")
    return couple(S, B, 0, point_delta(B, contact))
