r"""Port-Hamiltonian systems as systems of the integrators: the structure, closed by its inputs.

A port-Hamiltonian system

.. math::  \dot x = (J(x) - R(x))\,\nabla H(x) + g(x)\,u, \qquad y = g^{T}\nabla H,

with ``J`` skew and ``R`` symmetric obeys the power balance
``dH/dt = -grad H^T R grad H + y^T u``.  Two objects carry it, and they are two ideas:

* :class:`geomcheck.structures.PortHamiltonianSystem` is the *structure*: ``J``, ``R``, ``g``
  and ``H`` with input *symbols* ``u`` (an open system with ports).  It is the one definition:
  it checks the data, proves the power balance for every input and gives the Dirac and
  Q-structures.  It has no single vector field to step, since ``u`` is free.
* :class:`PortHamiltonianSystem` here is the *runnable system* built from a structure: the
  inputs closed by given values (expressions in the time ``t`` and the state ``x``, or
  constants), hence one vector field that schemes step and ``integrate`` runs.  It holds its
  structure as :attr:`~PortHamiltonianSystem.structure` and takes ``J``, ``R``, ``g``, ``H``
  and the power balance from it.  Build it from the parts (the constructor builds the
  structure) or from an existing structure (:meth:`PortHamiltonianSystem.from_structure`,
  which keeps that very object).

Its scheme, the discrete-gradient step with the discrete power balance, is
:class:`integrators.schemes.port_hamiltonian.PortHamiltonianDiscreteGradient` (catalog name
``port-hamiltonian-avf``).

>>> import sympy, numpy as np, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> S = ig.PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, sympy.Rational(1, 10)]], p**2 / 2 + q**4 / 4,
...                              [q, p])
>>> S.vector_field
VectorField({q: p, p: -p/10 - q**3})
>>> S.power_balance().holds
True
>>> sol = ig.integrate(S, "port-hamiltonian-avf", [1.0, 0.0], dt=0.1, steps=100, save_every=100)
>>> bool(sol.energy()[-1] < sol.energy()[0])                 # dissipated
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import sympy
from sympy.core.function import AppliedUndef

import geomcheck as gc
from geomcheck.certify.certificate import Certificate
from geomcheck.errors import PortHamiltonianShapeError
from geomcheck.structures import PortHamiltonianSystem as PortHamiltonianStructure

from ..errors import SystemDefinitionError
from .base import System, checked_expression, checked_symbols, constant_parameters

if TYPE_CHECKING:
    import numpy

__all__ = ["PortHamiltonianSystem"]


def _inputs(u, owner):
    if u is None:
        return ()
    if isinstance(u, (str, bytes)) or not hasattr(u, "__iter__"):
        u = [u]
    out = []
    for k, v in enumerate(u):
        try:
            e = sympy.sympify(v, strict=True)
        except (sympy.SympifyError, TypeError, ValueError):
            raise SystemDefinitionError(f"{owner}: the input u[{k}] = {v!r} is not a sympy expression") from None
        if not isinstance(e, sympy.Expr) or isinstance(e, sympy.MatrixBase):
            raise SystemDefinitionError(f"{owner}: the input u[{k}] = {v!r} is not a scalar expression")
        out.append(e)
    return tuple(out)


class PortHamiltonianSystem(System):
    """The runnable ``x' = (J - R) grad H + g u``: a port-Hamiltonian structure with its inputs given.

    Not the structure itself (:class:`geomcheck.structures.PortHamiltonianSystem`, whose inputs
    are symbols): this is that structure closed by input values, which the schemes step and
    ``integrate`` runs (see the module docstring).

    Parameters
    ----------
    J : n x n skew matrix (entries functions of x and constants)
    R : n x n symmetric matrix, or None for 0
    H : sympy expression, the energy (undefined functions allowed: a generic system)
    x : sequence of n Symbols, the state
    g : n x m matrix, optional (None: no ports)
    u : sequence of m expressions, optional
        The input values: expressions in the time ``t`` and the state, or constants.
    parameters : dict, optional
        Numeric values of constant symbols (as for :class:`~integrators.HamiltonianSystem`).
    t : Symbol, optional
        The time (default: the symbol named ``t`` if the inputs contain one).

    Attributes
    ----------
    structure : geomcheck.structures.PortHamiltonianSystem
        The one definition, with input symbols standing for ``u`` (:attr:`input_symbols`).
    chart, vector_field, energy (H), J, R, g, inputs, time
    dissipation : ``grad H^T R grad H``
    supply : ``y^T u`` (``y = g^T grad H``), with the inputs substituted

    Raises
    ------
    geomcheck.errors.NotSkewError           J not skew
    geomcheck.errors.PortHamiltonianError   R not symmetric
    geomcheck.errors.PortHamiltonianShapeError  J, R, g of the wrong shape; inputs without g or g without inputs
    SystemDefinitionError                   bad symbols, a time-dependent J, R, g or H, an input not an expression

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> q, p, t = sympy.symbols("q p t")
    >>> S = ig.PortHamiltonianSystem([[0, 1], [-1, 0]], None, p**2 / 2 - sympy.cos(q), [q, p],
    ...                              g=[[0], [1]], u=[sympy.cos(t) / 2])
    >>> S.time, S.vector_field
    (t, VectorField({q: p, p: -sin(q) + cos(t)/2}))
    >>> S.supply
    p*cos(t)/2
    """

    kind = "port-hamiltonian"

    def __init__(self, J: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]],
                 R: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]], H: sympy.Expr | float,
                 x: sympy.Symbol | str | Iterable[sympy.Symbol],
                 g: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]] | None = None,
                 u: sympy.Expr | float | Iterable[sympy.Expr | float] | None = None, parameters: Mapping | None = None,
                 t: sympy.Symbol | None = None):
        owner = "PortHamiltonianSystem"
        xs = checked_symbols(x, "x", owner)
        if not xs:
            raise PortHamiltonianShapeError(f"{owner}: the state x is empty; expected at least one state variable")
        H = checked_expression(H, owner)
        inputs = _inputs(u, owner)
        if g is None and inputs:
            raise PortHamiltonianShapeError(
                f"{owner}: {len(inputs)} input(s) u given but no input matrix g; expected g of shape"
                f" {len(xs)} x {len(inputs)}")
        if g is not None and not inputs:
            raise PortHamiltonianShapeError(
                f"{owner}: an input matrix g is given but no inputs u; give u (one value per column of g)")
        # the structure's inputs are symbols no user expression can contain
        input_symbols = tuple(sympy.Dummy(f"u{k + 1}") for k in range(len(inputs)))
        self._close(PortHamiltonianStructure(J, R, g, H, xs, input_symbols), inputs, parameters, t, owner)

    @classmethod
    def from_structure(cls, structure: PortHamiltonianStructure,
                       inputs: Mapping[sympy.Symbol, sympy.Expr | float] | Sequence[sympy.Expr | float] | None = None,
                       parameters: Mapping | None = None, t: sympy.Symbol | None = None) -> PortHamiltonianSystem:
        """The runnable system of a :class:`geomcheck.structures.PortHamiltonianSystem` (no copy of it).

        ``inputs``: the values of its input symbols, a dict ``{symbol: value}`` or a sequence
        (default: every input equal to 1, the constant effort of a port made from a remainder).
        The structure itself becomes :attr:`structure`.

        Examples
        --------
        >>> import sympy
        >>> from geomcheck.structures import PortHamiltonianSystem as Structure
        >>> from integrators.systems import PortHamiltonianSystem
        >>> q, p, u, c = sympy.symbols("q p u c")
        >>> damped = Structure([[0, 1], [-1, 0]], [[0, 0], [0, c]], [[0], [1]], (q**2 + p**2) / 2, [q, p], [u])
        >>> S = PortHamiltonianSystem.from_structure(damped, {u: 0})     # a damped oscillator, no input
        >>> S.dim, [str(s) for s in S.parameters], S.structure is damped
        (2, ['c'], True)
        """
        if not isinstance(structure, PortHamiltonianStructure):
            raise SystemDefinitionError(
                f"from_structure expects a geomcheck.structures.PortHamiltonianSystem, got {type(structure).__name__}")
        syms = structure.u
        if inputs is None:
            values = [sympy.S.One] * len(syms)
        elif isinstance(inputs, Mapping):
            missing = [s for s in syms if s not in inputs]
            if missing:
                raise SystemDefinitionError(f"from_structure: no value for the input(s) {missing}")
            values = [inputs[s] for s in syms]
        else:
            values = list(inputs)
            if len(values) != len(syms):
                raise PortHamiltonianShapeError(
                    f"from_structure: {len(values)} input values for the {len(syms)} inputs {list(syms)}")
        owner = "PortHamiltonianSystem"
        checked_symbols(structure.x, "x", owner)
        checked_expression(structure.H, owner)
        self = cls.__new__(cls)
        self._close(structure, _inputs(values, owner), parameters, t, owner)
        return self

    def _close(self, structure, inputs, parameters, t, owner):
        """Hold ``structure`` with its input symbols replaced by ``inputs`` (the vector field, the constants)."""
        S = self.structure = structure
        self.input_symbols = S.u
        xs = S.x
        if t is None:
            t = next((s for s in set().union(*(e.free_symbols for e in inputs)) if s.name == "t"), None) \
                if inputs else None
        if t is not None:
            (t,) = checked_symbols([t], "t", owner)
            if t in xs:
                raise SystemDefinitionError(f"{owner}: the time {t} is a state variable")
            fixed = sympy.Tuple(S.H, *S.J, *S.R, *S.g)
            if fixed.has(t):
                raise SystemDefinitionError(
                    f"{owner}: J, R, g and H must not depend on the time {t} (only the inputs u may)")
        self.time = t
        self.x = xs
        self.inputs = inputs
        self.H = S.H
        self.J, self.R, self.g = S.J, S.R, S.g
        self.chart = gc.Chart(list(xs))
        put = dict(zip(self.input_symbols, inputs))
        field = [sympy.sympify(F).xreplace(put) for F in S.vector_field]
        self.vector_field = gc.VectorField(self.chart, dict(zip(xs, field)))
        everything = sympy.Tuple(S.H, *S.J, *S.R, *S.g, *inputs)
        self._parameters, self._values = constant_parameters(everything, xs, t, parameters, owner)

    def _key(self):
        return (self.H, tuple(self.J), tuple(self.R), tuple(self.g), self.g.shape, self.x, self.inputs, self.time,
                tuple(sorted(self._values.items(), key=lambda kv: kv[0].name)))

    @property
    def energy(self) -> sympy.Expr:
        """H (not conserved: ``dH/dt = -dissipation + supply``)."""
        return self.H

    @property
    def is_generic(self) -> bool:
        """True when H, J, R, g or the inputs contain undefined functions."""
        return bool(sympy.Tuple(self.H, *self.J, *self.R, *self.g, *self.inputs).atoms(AppliedUndef))

    @property
    def grad(self) -> tuple:
        return self.structure.grad

    @property
    def dissipation(self) -> sympy.Expr:
        """``grad H^T R grad H``."""
        e = sympy.Matrix(self.grad)
        return sympy.expand((e.T * self.R * e)[0])

    @property
    def output(self) -> tuple:
        """``y = g^T grad H``."""
        return self.structure.output

    @property
    def supply(self) -> sympy.Expr:
        """``y^T u`` with the given inputs."""
        return sympy.Add(*[yi * ui for yi, ui in zip(self.output, self.inputs)])

    def power_balance(self) -> Certificate:
        """``dH/dt = -grad H^T R grad H + y^T u`` (geomcheck's certificate, for arbitrary inputs).

        The structure's inputs are free symbols, so the certificate holds for every input, in
        particular for the given values.
        """
        return self.structure.power_balance()

    def __repr__(self):
        return (f"PortHamiltonianSystem(H={self.H}, x={list(self.x)}, {len(self.inputs)} input(s)"
                + (f", t={self.time}" if self.time is not None else "") + ")")

    def _latex(self, printer=None):
        return self.structure._latex()
