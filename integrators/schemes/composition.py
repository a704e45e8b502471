"""Compositions ``base(gamma_1 h) o ... o base(gamma_m h)`` (a scheme that is data).

The step map is the composite of the base's step maps with scaled steps (``gamma_m``
acts first, as the notation says).  Order and properties are *computed*:

* order: for a symmetric base of even order r, by geomcheck's composition order
  conditions (:func:`geomcheck.certify.compositions.composition_order`: BCH in the free
  Lie algebra, exact arithmetic in the coefficients' number field; the order for every
  symmetric base of order r).  For any other base, by :func:`geomcheck.map_order` of the
  composed step on the generic test system ``H = p^2/2 + V(q)`` (V undefined, one degree
  of freedom): the Taylor coefficients against the exact flow's Lie series.
* symmetric: a palindromic composition of a symmetric base
  (:func:`~geomcheck.certify.compositions.is_symmetric_composition`); for a non-symmetric
  base, certified on the composed step on the test system.
* any structure the base preserves for every step size (symplectic, ...): each factor
  preserves it, so the composite does; the certificate is the base's on the test system.

>>> import sympy, integrators as ig
>>> third = sympy.Rational(1, 3)
>>> g1 = 1 / (2 - 2**third)
>>> triple_jump = ig.Composition(ig.scheme("stormer-verlet"), [g1, 1 - 2 * g1, g1])
>>> triple_jump.order, sorted(triple_jump.properties)
(4, ['symmetric', 'symplectic'])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import sympy

import geomcheck as gc
from geomcheck.certify import Certificate, compositions
from geomcheck.errors import CompositionCoefficientError, CompositionError

from ..systems import HamiltonianSystem
from .base import Scheme, Stage, scaled

if TYPE_CHECKING:
    from geomcheck.bseries import BSeries
    from fractions import Fraction

    from ..systems import System

__all__ = ["Composition", "test_system"]

_TEST = {}


def test_system():
    """The generic test system: ``p^2/2 + V(q)``, V undefined."""
    if "hamiltonian" not in _TEST:
        q, p = sympy.symbols("q p")
        _TEST["hamiltonian"] = HamiltonianSystem(p**2 / 2 + sympy.Function("V")(q), q, p)
    return _TEST["hamiltonian"]


test_system.__test__ = False  # not a pytest test


def _coefficient(g, i):
    where = f"Composition: coefficient gamma[{i}] = {g!r}"
    if isinstance(g, (bool, str, bytes)) or g is None:
        raise CompositionCoefficientError(f"{where} is not a number")
    if isinstance(g, float) or isinstance(g, sympy.Float):
        raise CompositionCoefficientError(
            f"{where} is a float; compositions take exact numbers (int, Fraction, sympy Rational or algebraic"
            " numbers such as 1/(2 - 2**Rational(1, 3)))"
        )
    try:
        e = sympy.nsimplify(g) if not isinstance(g, sympy.Basic) and not isinstance(g, int) else sympy.sympify(g)
    except (sympy.SympifyError, TypeError, ValueError):
        raise CompositionCoefficientError(f"{where} is not a number") from None
    if not isinstance(e, sympy.Expr) or e.free_symbols or not e.is_number or e.has(sympy.Float):
        raise CompositionCoefficientError(f"{where} is not an exact number")
    if e.is_extended_real is False or not e.is_finite:
        raise CompositionCoefficientError(f"{where} is not a finite real number")
    return e


class Composition(Scheme):
    """``base(gamma_1 h) o ... o base(gamma_m h)``.

    Parameters
    ----------
    base : Scheme
    gammas : sequence of exact numbers (``sum(gammas) == 1`` for a consistent method)
    name, description : str, optional
    max_order : int
        The largest order examined (default 10).

    Attributes
    ----------
    order : int
        Computed (see the module docstring; ``order_certificate()`` says how).
    properties : frozenset of str
        Computed (``property_certificates()``).

    Raises
    ------
    geomcheck.errors.CompositionError
        A base that is not a scheme, no coefficients, a zero coefficient;
        ``CompositionCoefficientError`` for a coefficient that is not an exact finite number.
    """

    def __init__(self, base: Scheme, gammas: Iterable[int | Fraction | sympy.Expr], name: str | None = None,
                 description: str = "", max_order: int = 10):
        if not isinstance(base, Scheme):
            raise CompositionError(f"Composition: base must be a scheme (e.g. ig.scheme('stormer-verlet')), got {base!r}")
        if isinstance(gammas, (str, bytes)) or not hasattr(gammas, "__iter__"):
            raise CompositionCoefficientError(f"Composition: gammas must be a sequence of numbers, got {gammas!r}")
        gammas = list(gammas)
        if not gammas:
            raise CompositionError("Composition: at least one coefficient gamma is needed")
        self.base = base
        self.gammas = tuple(_coefficient(g, i) for i, g in enumerate(gammas))
        if any(g == 0 for g in self.gammas):
            raise CompositionError(f"Composition: a coefficient is zero ({list(self.gammas)}); leave that step out")
        self.requires = base.requires
        self.name = name or f"composition-of-{base.name}-{len(self.gammas)}"
        self.description = description
        self.max_order = max_order
        self._order = None
        self._props = None

    def stages(self, system: System) -> tuple[Stage, ...]:
        """The base's stages at the steps ``gamma_i h``, in the order they act (``gamma_m`` first).

        A stage of a time-dependent system starts where the previous ones ended: its
        ``offset`` is the sum of the factors before it.
        """
        self.check_applies(system)
        out, elapsed = [], sympy.Integer(0)
        for g in reversed(self.gammas):
            for st in self.base.stages(system):
                out.append(Stage(st.map, g * st.factor, elapsed + g * st.offset))
            elapsed += g
        return tuple(out)

    def _build(self, system):
        # the composite of the stages, as ONE map (for certificates that need it; expensive
        # for many stages: running and lowering use :meth:`stages`)
        phi = None
        for st in self.stages(system):
            m = scaled(st.map, st.factor, st.offset, system.time)
            phi = m if phi is None else gc.compose(m, phi)
        return phi

    def bseries(self, order: int) -> BSeries:
        """The series of the composition from the base's: ``base(gamma_1 h)`` then ``base(gamma_2 h)`` ...

        >>> import integrators as ig
        >>> yoshida = ig.scheme("yoshida-4").bseries(5)
        >>> from geomcheck.bseries import exact_flow
        >>> yoshida.truncate(4) == exact_flow(4, colours=2), yoshida == exact_flow(5, colours=2)
        (True, False)
        """
        from geomcheck import bseries

        return bseries.composition_method(self.base.bseries(order), self.gammas, name=self.name)

    certifies_without_the_map = True   # Scheme.certify: the composite is built only for a property that needs it

    def _symmetric_base(self) -> bool:
        return "symmetric" in self.base.properties and self.base.order >= 2 and self.base.order % 2 == 0

    def order_certificate(self) -> Certificate:
        """``(order, Certificate)``: how the order was computed."""
        if self._order is None:
            if self._symmetric_base():
                result = compositions.composition_order(self.gammas, base_order=self.base.order,
                                                        max_order=self.max_order)
                self._order = (result.order, result.certificate)
            else:
                S = test_system()
                p = gc.map_order(self.step_map(S), S.vector_field, self.h, self.max_order)
                cert = Certificate(
                    claim=f"order == {p} on the test system {S.energy}", holds=p is not None,
                    method=("Taylor coefficients of the composed step against the exact flow's Lie series on the"
                            f" generic test system H = {S.energy} (gc.map_order): they agree up to h^{p} and the"
                            f" h^{p + 1} coefficient differs" if p is not None else "undecided"),
                    stage="exact" if p is not None else "unknown")
                self._order = (p, cert)
        return self._order[1]

    def _certify_one(self, prop, phi, system):
        """The order of a composition of a symmetric base by its order conditions (system-independent).

        The BCH order conditions hold in the free Lie algebra, so they give the order of the
        composite for *every* vector field on which the base is symmetric of its order; the
        Taylor expansion of a many-stage composite (27 stages for order 8) is left to
        :meth:`observed_order`.
        """
        if prop == "order" and self._symmetric_base() and system.time is None:
            return self.order_certificate()
        if prop in self.base.properties and prop != "symmetric":
            return self._from_the_base(prop, system)
        if prop == "symmetric" and "symmetric" in self.base.properties and system.time is None \
                and compositions.is_symmetric_composition(self.gammas):
            return self._palindromic(system)
        return super()._certify_one(prop, self.step_map(system) if phi is None else phi, system)

    def _from_the_base(self, prop, system):
        """A structure the base step preserves on ``system`` for every h is preserved by the composite.

        (Certifying the composed map directly grows with the number of stages, and with
        inexact coefficients the zero test cannot confirm an identity that holds only by
        the structure.)  A contact factor is the product of the base's at ``gamma_i h``.
        """
        c = self.base.certify(system, properties=[prop]).get(prop)
        if c is None:
            return None
        factor = None
        if c.factor is not None:
            factor = sympy.Mul(*[gc.substitute(c.factor, {self.h: g * self.h}) for g in self.gammas])
            factor = sympy.powsimp(factor)
        return Certificate(
            claim=f"{prop} (composition of {len(self.gammas)} steps of {self.base.name})", holds=c.holds,
            stage=c.stage, residual=c.residual, derivation=c.derivation, factor=factor,
            method=(f"each factor base(gamma_i h) is the base step at another step size, and the base step is"
                    f" {prop} for every h on this system ({c.method}); so is their composite"),
                    soundness=getattr(c, "soundness", None))

    def _palindromic(self, system):
        """A palindromic composition of a symmetric step is symmetric: its adjoint is itself.

        ``(phi_{g1 h} o ... o phi_{gm h})^* = phi*_{gm h} o ... o phi*_{g1 h}``, and with
        ``phi* = phi`` (the base is symmetric on this system) and ``g_i = g_{m+1-i}`` that is
        the same composition.
        """
        c = self.base.certify(system, properties=["symmetric"]).get("symmetric")
        if c is None:
            return None
        return Certificate(
            claim=f"symmetric (palindromic composition of {len(self.gammas)} steps of {self.base.name})",
            holds=c.holds, stage=c.stage, residual=c.residual, derivation=c.derivation,
            method=(f"the coefficients are palindromic and the base step is symmetric on this system ({c.method});"
                    " the adjoint of the composite is the same composition"), soundness=getattr(c, "soundness", None))

    @property
    def order(self) -> int:
        self.order_certificate()
        return self._order[0]

    def _test_system(self):
        """The generic system the candidate properties are certified on (a contact one for contact bases)."""
        return test_system()

    def property_certificates(self) -> dict:
        """Certificates of the candidate properties (see the module docstring), on :meth:`_test_system`."""
        if self._props is None:
            S = self._test_system()
            props = {}
            for prop in sorted(set(self.base.properties) - {"symmetric"}):
                c = self._from_the_base(prop, S)
                if c is not None:
                    props[prop] = c
            # palindromic with a symmetric base: by the coefficients; otherwise on the composed step
            props.update(self.certify(S, properties=["symmetric"]))
            self._props = props
        return self._props

    @property
    def properties(self) -> frozenset:
        return frozenset(k for k, c in self.property_certificates().items() if c.holds is True)

    def __eq__(self, other):
        return type(other) is type(self) and (self.base, self.gammas) == (other.base, other.gammas)

    def __hash__(self):
        return hash(("Composition", self.base, self.gammas))

    def __repr__(self):
        return f"Composition({self.base.name}, gammas={list(self.gammas)})"
