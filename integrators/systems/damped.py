r"""Hamiltonian systems with linear damping: ``q' = H_p``, ``p' = -H_q - gamma p``.

The damping is the force ``f = -gamma p`` on the momenta, so a
:class:`DampedHamiltonianSystem` *is* a :class:`~integrators.systems.forced.ForcedHamiltonianSystem`
(one definition: its vector field, form and energy are the forced system's) and every
scheme that accepts a canonical system (implicit midpoint, Gauss-Legendre, the
partitioned methods) applies to it unchanged.  What is special about this force is
that the flow is *conformally symplectic*: with ``omega = sum dq_i ^ dp_i``,

    L_X omega = d(i_X omega) = d(dH + gamma sum p_i dq_i) = -gamma omega,

hence ``phi_t^* omega = e^{-gamma t} omega``.  :meth:`DampedHamiltonianSystem.certify_conformal`
certifies the first identity with geomcheck (``lie`` and the zero tester), for generic H
too, and :meth:`~DampedHamiltonianSystem.conformal_factor` gives ``e^{-gamma t}``.  Schemes
whose step has ``phi_h^* omega = e^{-gamma h} omega`` with exactly that factor are the
conformally symplectic splittings of :mod:`integrators.schemes.conformal_splitting`.

Separability: the vector field of a damped system is never "separable" in the sense of
the forced systems (``p'`` depends on ``p``), so Stormer-Verlet, whose kick would use the
momentum at the start of the step, refuses it (``is_separable`` is False).  The
splittings need ``H = T(p) + V(q)`` instead, detected like
:attr:`integrators.HamiltonianSystem.is_separable` (mixed derivatives ``H_{q_i p_j}``
vanish): :attr:`DampedHamiltonianSystem.hamiltonian_is_separable`.

>>> import sympy, integrators as ig
>>> q, p, g = sympy.symbols("q p gamma")
>>> s = ig.DampedHamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p, damping=g)
>>> s.vector_field
VectorField({q: p, p: -gamma*p - sin(q)})
>>> s.kind, s.is_separable, s.hamiltonian_is_separable
('damped-hamiltonian', False, True)
>>> s.conformal_factor(sympy.Symbol("t"))
exp(-gamma*t)
>>> c = s.certify_conformal()
>>> c.holds, c.factor
(True, -gamma)
"""

from __future__ import annotations

import math
import numbers
from typing import Iterable, Mapping

import sympy

import geomcheck as gc
from geomcheck.certify.certificate import Certificate
from geomcheck.latex import Derivation
from geomcheck.structures.symplectic import counterexample_of, show

from ..errors import DampingError
from .base import STEP_SYMBOL, checked_symbols
from .forced import ForcedHamiltonianSystem
from .hamiltonian import HamiltonianSystem

__all__ = ["DampedHamiltonianSystem"]

_OWNER = "DampedHamiltonianSystem"


def _damping(value, coords):
    """The damping coefficient as a positive sympy number or a constant Symbol (checked)."""
    if isinstance(value, bool) or value is None:
        raise DampingError(f"{_OWNER}: the damping must be a positive number or a constant sympy Symbol,"
                           f" got {value!r}")
    if isinstance(value, sympy.Symbol):
        if value in coords:
            raise DampingError(f"{_OWNER}: the damping {value} is a coordinate; a constant (a number or a"
                               " parameter Symbol) was expected")
        if value.name == STEP_SYMBOL.name:
            raise DampingError(f"{_OWNER}: the damping may not be called h (the step size); rename it")
        if value.is_positive is False:
            raise DampingError(f"{_OWNER}: the damping symbol {value} is declared non-positive; gamma > 0"
                               " was expected")
        return value
    if isinstance(value, numbers.Number) and not isinstance(value, sympy.Basic):
        # an int or Fraction is exact and finite however large (float() of 10**400 would overflow)
        if isinstance(value, complex) or (not isinstance(value, numbers.Rational)
                                          and not math.isfinite(float(value))):
            raise DampingError(f"{_OWNER}: the damping {value!r} is not a finite real number")
        g = sympy.sympify(value)     # a float keeps its binary value (53 bits)
    elif isinstance(value, sympy.Basic):
        g = value
        if g.free_symbols or not g.is_number:
            raise DampingError(f"{_OWNER}: the damping {value} is an expression in {sorted(map(str, g.free_symbols))};"
                               " a positive number or one constant Symbol was expected")
        if g.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or g.is_real is False:
            raise DampingError(f"{_OWNER}: the damping {value} is not a finite real number")
    else:
        raise DampingError(f"{_OWNER}: the damping must be a positive number or a constant sympy Symbol,"
                           f" got {value!r} ({type(value).__name__})")
    if not g.is_positive:
        raise DampingError(f"{_OWNER}: the damping must be positive (gamma > 0), got {value!r}; for gamma = 0"
                           " use HamiltonianSystem")
    return g


class DampedHamiltonianSystem(ForcedHamiltonianSystem):
    """A Hamiltonian system with linear damping ``p' = -H_q - gamma p`` (see the module docstring).

    Parameters
    ----------
    H : sympy expression
        The Hamiltonian (undefined functions such as ``Function("V")(q)`` for generic systems).
    q, p : sequence of Symbol (or one Symbol), as many of each
    damping : positive number or Symbol
        ``gamma``.  A Symbol is a constant parameter (its value, if given in ``parameters``,
        must be a positive number too).
    parameters : dict, optional
        Numeric values of constant symbols (see :class:`~integrators.HamiltonianSystem`).

    Attributes
    ----------
    damping : sympy number or Symbol       ``gamma``
    undamped : HamiltonianSystem           ``q' = H_p, p' = -H_q`` (same chart and form)
    chart, omega, vector_field, energy (= H), q, p, forces : as for ForcedHamiltonianSystem

    Raises
    ------
    DampingError
        The damping is not a positive finite number or a constant Symbol.
    SystemDefinitionError
        Malformed coordinates (as for HamiltonianSystem).

    Examples
    --------
    >>> import sympy
    >>> from integrators.systems import DampedHamiltonianSystem
    >>> q1, q2, p1, p2 = sympy.symbols("q1 q2 p1 p2")
    >>> s = DampedHamiltonianSystem((p1**2 + p2**2) / 2 + q1**2 * q2**2, [q1, q2], [p1, p2], sympy.Rational(1, 5))
    >>> s.vector_field.component(p2)
    -p2/5 - 2*q1**2*q2
    >>> s.damping, s.dim, s.parameters
    (1/5, 4, ())
    >>> DampedHamiltonianSystem(p1**2 / 2, [q1], [p1], damping=-1)
    Traceback (most recent call last):
        ...
    integrators.errors.DampingError: DampedHamiltonianSystem: the damping must be positive (gamma > 0), got -1; for gamma = 0 use HamiltonianSystem
    """

    kind = "damped-hamiltonian"

    def __init__(self, H: sympy.Expr | float, q: sympy.Symbol | str | Iterable[sympy.Symbol],
                 p: sympy.Symbol | str | Iterable[sympy.Symbol], damping: sympy.Expr | float,
                 parameters: Mapping | None = None):
        # the Hamiltonian part is checked (and its separability decided) by HamiltonianSystem
        undamped_values = {k: v for k, v in dict(parameters or {}).items() if k is not damping and k != damping}
        undamped = HamiltonianSystem(H, q, p, parameters=undamped_values)
        q, p = checked_symbols(q, "q", _OWNER), checked_symbols(p, "p", _OWNER)
        gamma = _damping(damping, set(q + p))
        super().__init__(undamped.H, q, p, force={pi: -gamma * pi for pi in p}, parameters=parameters)
        if isinstance(gamma, sympy.Symbol) and gamma in self._values:
            value = self._values[gamma]
            if value.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or not value.is_positive:
                raise DampingError(f"{_OWNER}: the value {value} given for the damping {gamma} is not a positive"
                                   " finite number")
        self.damping = gamma
        self.undamped = undamped

    def _key(self):
        return super()._key() + (self.damping,)

    @property
    def hamiltonian_is_separable(self) -> bool:
        """True iff ``H = T(p) + V(q)`` (decided like HamiltonianSystem: mixed derivatives vanish)."""
        return self.undamped.is_separable

    def conformal_factor(self, t: sympy.Expr | float) -> sympy.Expr:
        """``e^{-gamma t}``: the exact flow satisfies ``phi_t^* omega = e^{-gamma t} omega``."""
        return sympy.exp(-self.damping * sympy.sympify(t))

    @property
    def energy_rate(self) -> sympy.Expr:
        """``dH/dt = X(H) = -gamma sum_i p_i H_{p_i}`` along the flow (``-2 gamma T`` for ``T = |p|^2/2``)."""
        return sympy.expand(self.vector_field(self.H))

    def certify_conformal(self) -> Certificate:
        """Certify ``L_X omega = -gamma omega`` (the flow is conformally symplectic, factor ``e^{-gamma t}``).

        The Lie derivative is computed by :func:`geomcheck.lie` and the residual
        ``L_X omega + gamma omega`` decided by geomcheck's zero tester; ``factor`` is the rate
        ``-gamma``.

        Examples
        --------
        >>> import sympy
        >>> from integrators.systems import DampedHamiltonianSystem
        >>> q, p, g = sympy.symbols("q p gamma")
        >>> c = DampedHamiltonianSystem(sympy.Function("T")(p) + sympy.Function("V")(q), q, p, g).certify_conformal()
        >>> c.holds, c.stage in ("structural", "exact")
        (True, True)
        """
        X, omega, g = self.vector_field, self.omega, self.damping
        LX = gc.lie(X, omega)
        residual = LX + g * omega
        dec = residual.zero_decision()
        D = Derivation(r"The damped flow is conformally symplectic: $L_X\omega = -\gamma\,\omega$")
        D = D.add(r"The vector field ($q' = H_p$, $p' = -H_q - \gamma p$) and the symplectic form are",
                  r"X &= " + show(X) + r" \\ \omega &= " + show(omega))
        D = D.add(r"By Cartan's formula $L_X\omega = \mathrm{d}\,i_X\omega$ ($\omega$ is closed):",
                  r"i_X\omega &= " + show(gc.interior(X, omega)) + r" \\ L_X\omega &= " + show(LX))
        D = D.add(r"The residual, which must vanish, is", r"L_X\omega + \gamma\,\omega &= " + show(residual))
        D = D.concluding(r"Hence $\frac{\mathrm{d}}{\mathrm{d}t}\varphi_t^*\omega = \varphi_t^* L_X\omega"
                         r" = -\gamma\,\varphi_t^*\omega$, so $\varphi_t^*\omega = e^{-\gamma t}\,\omega$ with $\gamma = "
                         + sympy.latex(g) + "$.")
        return Certificate("L_X omega == -gamma omega", dec.is_zero, dec.method, dec.stage, residual=residual,
                           factor=-g, counterexample=counterexample_of(residual, dec), derivation=D)

    def __repr__(self):
        return f"DampedHamiltonianSystem({self.H}, q={list(self.q)}, p={list(self.p)}, damping={self.damping})"

    def _latex(self, printer=None):
        return r"H = " + sympy.latex(self.H) + r",\quad \gamma = " + sympy.latex(self.damping)
