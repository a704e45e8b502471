r"""Port-Hamiltonian systems and their discrete-gradient scheme (energy balance certified).

A port-Hamiltonian system

.. math::  \dot x = (J(x) - R(x))\,\nabla H(x) + g(x)\,u, \qquad y = g^{T}\nabla H,

with ``J`` skew and ``R`` symmetric obeys the power balance
``dH/dt = -grad H^T R grad H + y^T u``.  :class:`PortHamiltonianSystem` is the integrators'
view of :class:`geomcheck.structures.PortHamiltonianSystem` (the one definition: it checks
``J``, ``R``, ``g`` and proves the power balance), with the inputs ``u`` given as values:
expressions in the time ``t`` and the state ``x``, or constants.

:class:`PortHamiltonianDiscreteGradient` (catalog name ``port-hamiltonian-avf`` for the average
vector field) is the discrete-gradient scheme

.. math::  x' = x + h\,(J - R)(\bar x)\,\bar g + h\, g(\bar x)\, u(t_n + h/2, \bar x),
           \qquad \bar x = (x + x')/2,

with ``gbar`` the average-vector-field discrete gradient of H (closed form: see
:mod:`integrators.schemes.discrete_gradient`), or Gonzalez' or Itoh-Abe's
(``PortHamiltonianDiscreteGradient("gonzalez")``: any H).  Its property ``"energy-balance"`` is the
discrete power balance

.. math::  H(x') - H(x) = -h\,\bar g^{T} R(\bar x)\,\bar g + h\,\bar g^{T} g(\bar x)\, u,

certified on the solution manifold of the step (exactly the step that is lowered and run);
it follows from the discrete chain rule ``H(x') - H(x) = gbar.(x' - x)`` and the skewness of J.
With the average vector field or Gonzalez' gradient the scheme is symmetric (midpoint
evaluations, a symmetric gradient) and of order 2; with Itoh-Abe's of order 1.

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
from geomcheck.latex import Derivation, summarize
from geomcheck.maps import substitute
from geomcheck.structures import PortHamiltonianSystem as _StructurePH
from geomcheck.zero import decide_zero

from .errors import SystemDefinitionError
from .schemes.discrete_gradient import (GRADIENTS, GradientStepScheme, avf_closed_form, discrete_gradient, increment_step,
                                        order_by_expansion)
from .systems import STEP_SYMBOL, System, _expression, _parameters, _symbols

if TYPE_CHECKING:
    import numpy

__all__ = ["PortHamiltonianSystem", "PortHamiltonianDiscreteGradient"]


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
    """``x' = (J - R) grad H + g u`` with given inputs ``u`` (see the module docstring).

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
        xs = _symbols(x, "x", owner)
        if not xs:
            raise PortHamiltonianShapeError(f"{owner}: the state x is empty; expected at least one state variable")
        H = _expression(H, owner)
        inputs = _inputs(u, owner)
        if g is None and inputs:
            raise PortHamiltonianShapeError(
                f"{owner}: {len(inputs)} input(s) u given but no input matrix g; expected g of shape"
                f" {len(xs)} x {len(inputs)}")
        if g is not None and not inputs:
            raise PortHamiltonianShapeError(
                f"{owner}: an input matrix g is given but no inputs u; give u (one value per column of g)")
        self.input_symbols = tuple(sympy.Dummy(f"u{k + 1}") for k in range(len(inputs)))
        self.structure = _StructurePH(J, R, g, H, xs, self.input_symbols)
        S = self.structure
        if t is None:
            t = next((s for s in set().union(*(e.free_symbols for e in inputs)) if s.name == "t"), None) \
                if inputs else None
        if t is not None:
            (t,) = _symbols([t], "t", owner)
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
        self._parameters, self._values = _parameters(everything, xs, t, parameters, owner)

    @classmethod
    def from_structure(cls, structure: _StructurePH,
                       inputs: Mapping[sympy.Symbol, sympy.Expr | float] | Sequence[sympy.Expr | float] | None = None,
                       parameters: Mapping | None = None, t: sympy.Symbol | None = None) -> PortHamiltonianSystem:
        """The integrators' system of a :class:`geomcheck.structures.PortHamiltonianSystem`.

        ``inputs``: the values of its input symbols, a dict ``{symbol: value}`` or a sequence
        (default: every input equal to 1, the constant effort of a port made from a remainder).

        Examples
        --------
        >>> from geomcheck.structures import oscillator_van_der_pol
        >>> from integrators.port_hamiltonian import PortHamiltonianSystem
        >>> ex = oscillator_van_der_pol(quick=True)
        >>> S = PortHamiltonianSystem.from_structure(ex.system)
        >>> S.dim, [str(s) for s in S.parameters]
        (4, ['A', 'Omega', 'Omega_t', 'epsilon', 'm'])
        """
        if not isinstance(structure, _StructurePH):
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
        return cls(structure.J, structure.R, structure.H, structure.x, g=structure.g if syms else None,
                   u=values if syms else None, parameters=parameters, t=t)

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


# --------------------------------------------------------------------------- the scheme


_NAMES = {"average-vector-field": "port-hamiltonian-avf", "gonzalez": "port-hamiltonian-gonzalez",
          "itoh-abe": "port-hamiltonian-itoh-abe"}


class PortHamiltonianDiscreteGradient(GradientStepScheme):
    """The discrete-gradient scheme of a port-Hamiltonian system (see the module docstring).

    Parameters
    ----------
    gradient : "average-vector-field" (default), "gonzalez" or "itoh-abe"

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> from integrators.port_hamiltonian import PortHamiltonianDiscreteGradient
    >>> q, p = sympy.symbols("q p")
    >>> S = ig.PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, 1]], p**2 * (2 + sympy.cos(q)) / 2, [q, p])
    >>> ig.scheme("port-hamiltonian-avf").why_not(S) is not None        # no closed-form AVF
    True
    >>> PortHamiltonianDiscreteGradient("gonzalez").certify(S, ["energy-balance"])["energy-balance"].holds
    True
    """

    requires = frozenset({"port-hamiltonian"})

    def __init__(self, gradient="average-vector-field"):
        if gradient not in GRADIENTS:
            raise ValueError(f"PortHamiltonianDiscreteGradient: gradient must be one of {', '.join(GRADIENTS)},"
                             f" got {gradient!r}")
        self.gradient = gradient
        self.name = _NAMES[gradient]
        order, props = GRADIENTS[gradient]
        self.order = order
        self.properties = frozenset({"energy-balance"} | (props & {"symmetric"}))
        self.description = (f"x' = x + h (J - R)(xbar) gbar + h g(xbar) u(t + h/2, xbar), gbar the {gradient}"
                            " discrete gradient: the discrete power balance")

    def why_not(self, system):
        reason = super().why_not(system)
        if reason is None and self.gradient == "average-vector-field":
            closed = avf_closed_form(system.H, system.coords)
            if isinstance(closed, str):
                reason = (f"int_0^1 grad H(x + s (x' - x)) ds has no closed form for H = {system.H}: {closed};"
                          ' use PortHamiltonianDiscreteGradient("gonzalez") (an exact discrete gradient for every H)')
        return reason

    def _parts(self, system):
        """(gradient, w, Y, midpoint substitution, R(xbar), g(xbar) u) for ``system`` (cached)."""
        memo = self.__dict__.setdefault("_parts_memo", {})
        hit = memo.get(system)
        if hit is None:
            h = STEP_SYMBOL
            y = list(system.coords)
            w = [sympy.Dummy(f"w_{c.name}") for c in y]
            Y = [sympy.Dummy(f"{c.name}'") for c in y]
            grad = discrete_gradient(self.gradient, system.H, y, y, w, h)
            mid = {c: c + h * wi / 2 for c, wi in zip(y, w)}
            at = dict(mid)
            if system.time is not None:
                at[system.time] = system.time + h / 2
            Rm = system.R.applyfunc(lambda e: substitute(e, mid))
            JRm = (system.J - system.R).applyfunc(lambda e: substitute(e, mid))
            Gu = sympy.zeros(len(y), 1)
            if system.inputs:
                Gm = system.g.applyfunc(lambda e: substitute(e, mid))
                Gu = Gm * sympy.Matrix([substitute(v, at) for v in system.inputs])
            hit = memo[system] = (grad, w, Y, JRm, Rm, Gu)
        return hit

    def _build(self, system):
        grad, w, Y, JRm, Rm, Gu = self._parts(system)
        return increment_step(system, Y, w, list(JRm * sympy.Matrix(grad.template) + Gu), grad.quotients)

    def _certify_one(self, prop, phi, system):
        if prop == "order":
            return order_by_expansion(self, phi, system)
        if prop == "energy-balance":
            return self.certify_energy_balance(system)
        return super()._certify_one(prop, phi, system)

    def discrete_balance(self, system, form="exact"):
        """``(dissipated, supplied, w)``: ``h gbar^T R(xbar) gbar`` and ``h gbar^T g(xbar) u`` of one step.

        In the state ``x``, the increment ``w = (x' - x)/h`` (the returned Dummies), ``h`` and the
        time; ``form="evaluation"`` with the quotients' evaluation rule (to lower them), else exact.

        Examples
        --------
        >>> import sympy, integrators as ig
        >>> q, p, c = sympy.symbols("q p c")
        >>> S = ig.PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, c]], (q**2 + p**2) / 2, [q, p])
        >>> dissipated, supplied, (wq, wp) = ig.scheme("port-hamiltonian-avf").discrete_balance(S)
        >>> W = sympy.Symbol("W")
        >>> sympy.factor(dissipated.subs(wp, W)), supplied
        (c*h*(W*h + 2*p)**2/4, 0)
        """
        if form not in ("exact", "evaluation"):
            raise ValueError(f"form must be 'exact' or 'evaluation', got {form!r}")
        self.check_applies(system)
        grad, w, Y, JRm, Rm, Gu = self._parts(system)
        gbar = sympy.Matrix(grad.exact() if form == "exact" else grad.evaluation())
        h = self.h
        return h * (gbar.T * Rm * gbar)[0], h * (gbar.T * Gu)[0], tuple(w)

    def certify_energy_balance(self, system) -> Certificate:
        """``H(x') - H(x) = -h gbar^T R(xbar) gbar + h gbar^T g(xbar) u`` on the step's solutions."""
        phi = self.step_map(system)
        grad, w, Y, JRm, Rm, Gu = self._parts(system)
        gbar = sympy.Matrix(grad.exact())
        y = list(system.coords)
        change = substitute(system.H, dict(zip(y, Y))) - system.H
        dissipated, supplied, _ = self.discrete_balance(system)
        residual = change + dissipated - supplied
        decision = decide_zero(residual, relations=(phi.dependence.relation,))
        D = Derivation(r"Discrete power balance of the port-Hamiltonian discrete-gradient step")
        D = D.add(r"The step is $x' = x + h w$ with $w = (J - R)(\bar x)\,\bar g + g(\bar x)\,u$, "
                  r"$\bar x = (x + x')/2$, and the discrete gradient (" + self.gradient + ")",
                  r"\bar g &= " + summarize(gbar))
        D = D.add(r"By the discrete chain rule $H(x') - H(x) = \bar g^{T}(x' - x) = h\,\bar g^{T} w$, and "
                  r"$\bar g^{T} J \bar g = 0$ ($J$ skew), so it must hold that",
                  r"H(x') - H(x) &= -h\,\bar g^{T} R(\bar x)\,\bar g + h\,\bar g^{T} g(\bar x)\,u.")
        D = D.add(r"The residual $H(x') - H(x) + h\,\bar g^{T} R \bar g - h\,\bar g^{T} g u$ on the solutions of the"
                  r" step equations is decided by the zero test: " + {True: "it vanishes", False: "it does not vanish",
                                                                       None: "undecided"}[decision.is_zero] + ".")
        claim = "H(x') - H(x) == -h gbar^T R(xbar) gbar + h gbar^T g(xbar) u"
        return Certificate(claim, decision.is_zero, decision.method, decision.stage, residual=residual,
                           counterexample=decision.point if decision.is_zero is False else None, derivation=D)
