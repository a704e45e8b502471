"""Splitting methods for separable ``H = T(p) + V(q)``: exact drifts and kicks (a scheme that is data).

With coefficients ``a = (a_1, ..., a_s)`` and ``b = (b_1, ..., b_s)`` the step is

    drift a_1 h, kick b_1 h, drift a_2 h, kick b_2 h, ..., drift a_s h, kick b_s h

(in the order they act), where the drift is the exact flow of ``T``, ``q <- q + t T_p(p)``, and
the kick the exact flow of ``V``, ``p <- p - t V_q(q)``; zero coefficients are left out.  As Lie
operators this is ``exp(a_1 h A) exp(b_1 h B) ... exp(a_s h A) exp(b_s h B)``, the convention of
:mod:`geomcheck.certify.splitting`.  A method that starts with a kick has ``a_1 = 0``; ``b`` may be
one shorter than ``a`` (a final ``b_s = 0``).

Order and properties are *computed*:

* order: by the splitting order conditions of the coefficients on the scheme's problem class
  (:func:`geomcheck.certify.splitting.splitting_order`): ``class_="separable"`` for every separable
  H, ``class_="rkn"`` for methods designed for ``T`` quadratic in ``p`` (Runge-Kutta-Nystrom
  problems).  ``certify(system)`` certifies the order on the class the *system* belongs to: an RKN
  method on a system whose ``T`` is not quadratic gets the separable class's certificate, which
  fails for SRKN11b at order 6 (it has order 4 for general separable H).
* symplectic: every factor is the exact flow of a Hamiltonian (``T`` or ``V``); the certificate
  is geomcheck's on the drift and on the kick map of the system.
* symmetric: a palindromic sequence of flows (the exact flows satisfy
  ``phi_t^{-1} = phi_{-t}``, so the product is its own adjoint).

The catalog's Blanes-Moan entries (:func:`blanes_moan`) are built from the coefficients of
Blanes and Moan, *Practical symplectic partitioned Runge-Kutta and Runge-Kutta-Nystrom methods*,
J. Comput. Appl. Math. 142 (2002) 313-330, Tables 2 and 3 (15 published digits), refined to 60
digits on the order conditions of their class (:func:`geomcheck.certify.splitting.refine_splitting`);
:func:`yoshida8` gives Yoshida's 15-stage eighth-order compositions the same way.

>>> import sympy, integrators as ig
>>> half = sympy.Rational(1, 2)
>>> s = Splitting([half, half], [1, 0], name="position-verlet")
>>> s.order, sorted(s.properties), s.order_certificate().stage
(2, ['symmetric', 'symplectic'], 'exact')
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

import sympy

import geomcheck as gc
from geomcheck.caches import register
from geomcheck.certify import Certificate, compositions
from geomcheck.certify import splitting as splitting_conditions
from geomcheck.errors import CompositionCoefficientError, CompositionError, InvalidArgumentError

from .base import Scheme, Stage, scaled
from .composition import test_system
from .stages import stage_parameters

if TYPE_CHECKING:
    from ..systems import System

__all__ = ["Splitting", "blanes_moan", "yoshida8", "BLANES_MOAN", "YOSHIDA8"]


# Published coefficients (data).  Blanes and Moan, J. Comput. Appl. Math. 142 (2002) 313-330:
# S6 (Table 2, separable H, order 4) and SRKN6b, SRKN11b (Table 3, RKN problems, orders 4 and 6),
# all of the form  b1 a1 b2 a2 ... (kick first, palindromic); the middle coefficients follow from
# consistency.  The numbers as cross-checked in several open-source integrator libraries (e.g. the
# Principia and SeLaLib projects) against the paper.
BLANES_MOAN = {
    "s6": {"class": "separable", "order": 4,
           "b": ("0.0792036964311957", "0.353172906049774", "-0.0420650803577195"),
           "a": ("0.209515106613362", "-0.143851773179818")},
    "srkn6b": {"class": "rkn", "order": 4,
               "b": ("0.0829844064174052", "0.396309801498368", "-0.0390563049223486"),
               "a": ("0.245298957184271", "0.604872665711080")},
    "srkn11b": {"class": "rkn", "order": 6,
                "b": ("0.0414649985182624", "0.198128671918067", "-0.0400061921041533", "0.0752539843015807",
                      "-0.0115113874206879"),
                "a": ("0.123229775946271", "0.290553797799558", "-0.127049212625417", "-0.246331761062075",
                      "0.357208872795928")},
}

# Yoshida, Phys. Lett. A 150 (1990) 262-268, Table 2: w1 ... w7 of the symmetric 15-stage
# compositions w7 ... w1 w0 w1 ... w7 (w0 = 1 - 2 (w1 + ... + w7)) of order 8, solutions A and D.
YOSHIDA8 = {
    "A": ("-1.61582374150097", "-2.44699182370524", "-0.716989419708120e-2", "2.44002732616735",
          "0.157739928123617", "1.82020630970714", "1.04242620869991"),
    "D": ("0.102799849391985", "-1.96061023297549", "1.93813913762276", "-0.158240635368243",
          "-1.44485223686048", "0.253693336566229", "0.914844246229740"),
}


def _published(key: str, digits: int = 40) -> tuple:
    """The published Blanes-Moan method as (a, b) of the product form, middle coefficients by consistency."""
    data = BLANES_MOAN[key]
    bs = [sympy.Float(x, digits) for x in data["b"]]
    as_ = [sympy.Float(x, digits) for x in data["a"]]
    if len(bs) == len(as_) + 1:      # an even number of drifts: b1 a1 ... b_k a_k b_{k+1} a_k b_k ... a1 b1
        a_mid = sympy.Rational(1, 2) - sum(as_)
        b_mid = 1 - 2 * sum(bs)
        a = [0] + as_ + [a_mid, a_mid] + as_[::-1]
        b = bs + [b_mid] + bs[::-1]
    else:                             # an odd number of drifts: b1 a1 ... b_k a_k b_k ... a1 b1
        a_mid = 1 - 2 * sum(as_)
        b_mid = sympy.Rational(1, 2) - sum(bs)
        a = [0] + as_ + [a_mid] + as_[::-1]
        b = bs + [b_mid, b_mid] + bs[::-1]
    return tuple(a), tuple(b)


def blanes_moan(method: str, refined: bool = True, dps: int = 60) -> tuple:
    """Blanes and Moan's S6, SRKN6b or SRKN11b as ``(a, b)`` in the product form of :class:`Splitting`.

    Parameters
    ----------
    method : {"s6", "srkn6b", "srkn11b"}
    refined : bool
        True: the published 15 digits refined to ``dps`` digits on the order conditions of the
        method's class (minimum-norm Gauss-Newton: the solution nearest them, up to second
        order in the distance); False: the published
        values themselves (sympy Floats that know their 15 digits), middle ones by consistency.
    dps : int

    Examples
    --------
    >>> a, b = blanes_moan("srkn6b", refined=False)
    >>> len(a), str(b[0])[:18], a[0]
    (7, '0.0829844064174052', 0)
    """
    key = str(method).lower().replace("-", "").replace("_", "")
    if key not in BLANES_MOAN:
        raise InvalidArgumentError(f"Blanes-Moan methods here are 's6', 'srkn6b', 'srkn11b'; got {method!r}")
    if not refined:
        return _published(key)
    return _refined_blanes_moan(key, dps)


@lru_cache(maxsize=16)
def _refined_blanes_moan(key, dps):
    a, b = _published(key)
    data = BLANES_MOAN[key]
    return splitting_conditions.refine_splitting(a, b, data["class"], data["order"], dps=dps)


def yoshida8(solution: str = "A", dps: int = 60) -> tuple:
    """Yoshida's 15-stage symmetric compositions of order 8 (solutions "A" and "D"), refined to ``dps`` digits.

    The published 15 digits of ``w1 ... w7`` are refined by Newton's method on the order
    conditions of a symmetric composition of a symmetric second-order method
    (:func:`geomcheck.certify.compositions.refine_composition`: 8 conditions, 8 unknowns).

    Returns
    -------
    tuple of sympy.Float
        ``(w7, ..., w1, w0, w1, ..., w7)``.

    Examples
    --------
    >>> g = yoshida8("A")
    >>> len(g), str(g[7])[:12]
    (15, '-1.780828626')
    """
    key = str(solution).upper()
    if key not in YOSHIDA8:
        raise InvalidArgumentError(f"Yoshida's eighth-order solutions here are 'A' and 'D'; got {solution!r}")
    return _refined_yoshida8(key, dps)


@lru_cache(maxsize=8)
def _refined_yoshida8(key, dps):
    w = [sympy.Float(x, 40) for x in YOSHIDA8[key]]
    w0 = 1 - 2 * sum(w)
    return compositions.refine_composition(w[::-1] + [w0] + w, 8, dps=dps)


for _memo in (_refined_blanes_moan, _refined_yoshida8):
    register(f"integrators.schemes.splitting.{_memo.__name__}", _memo.cache_clear,
             lambda m=_memo: m.cache_info().currsize)


def _number(x, where):
    """A coefficient as a sympy number: exact, or a Float that knows its digits."""
    if isinstance(x, str):
        try:
            d = Decimal(x.strip())
        except InvalidOperation:
            raise CompositionCoefficientError(f"Splitting: {where} = {x!r} is not a decimal number") from None
        return sympy.Float(x.strip(), max(30, len(d.as_tuple().digits) + 10))
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    if hasattr(x, "_mpf_") and not isinstance(x, sympy.Basic):
        return sympy.Float(x)
    if isinstance(x, (bool, bytes)) or x is None:
        raise CompositionCoefficientError(f"Splitting: {where} = {x!r} is not a number")
    try:
        e = sympy.sympify(x)
    except (sympy.SympifyError, TypeError, ValueError):
        raise CompositionCoefficientError(f"Splitting: {where} = {x!r} is not a number") from None
    if not isinstance(e, sympy.Expr) or e.free_symbols or not e.is_number:
        raise CompositionCoefficientError(f"Splitting: {where} = {x!r} is not a number (a scheme needs numbers)")
    return e


class Splitting(Scheme):
    """A splitting method ``drift(a_1 h) kick(b_1 h) ... drift(a_s h) kick(b_s h)`` (see the module docstring).

    Parameters
    ----------
    a, b : sequences of numbers
        Exact numbers (ints, Fractions, sympy rationals and radicals) or inexact ones (sympy
        Floats, decimal strings, floats: the order is then certified up to their precision).
    class_ : {"separable", "rkn"}
        The problem class the order is claimed for (see :mod:`geomcheck.certify.splitting`).
    name, description : str, optional
    max_order : int
        The largest order examined (default 10).

    Raises
    ------
    geomcheck.errors.CompositionError
        No coefficients, lengths that do not match, every coefficient zero;
        ``CompositionCoefficientError`` for a coefficient that is not a finite real number.
    """

    requires = frozenset({"hamiltonian", "separable", "autonomous"})

    def __init__(self, a: Iterable, b: Iterable, class_: str = "separable", name: str | None = None,
                 description: str = "", max_order: int = 10):
        # validates the coefficients and the class the way the order conditions read them
        splitting_conditions.condition_counts(1, class_)
        splitting_conditions.is_symmetric_splitting(a, b)
        a, b = list(a), list(b)
        if len(b) == len(a) - 1:
            b = b + [0]
        self.a = tuple(_number(x, f"a_{i + 1}") for i, x in enumerate(a))
        self.b = tuple(_number(x, f"b_{i + 1}") for i, x in enumerate(b))
        self.flows = tuple(splitting_conditions.flow_sequence(self.a, self.b))
        if not self.flows:
            raise CompositionError("Splitting: every coefficient is zero; a step needs at least one flow")
        self.class_ = class_
        self.max_order = max_order
        self.name = name or f"splitting-{len(self.flows)}-flows"
        self.description = description or f"splitting method with {len(self.flows)} exact flows of T and V"
        self._order = None
        self._props = None

    # -- the step
    def _parts(self, system):
        """The drift and the kick of ``system`` (maps in h, built once per system)."""
        cache = self.__dict__.setdefault("_part_maps", {})
        got = cache.get(system)
        if got is None:
            X = system.vector_field
            q, p = list(system.q), list(system.p)
            h = self.h
            drift = gc.Map(system.chart, system.chart, [qi + h * X.component(qi) for qi in q] + p,
                           parameters=stage_parameters(system))
            kick = gc.Map(system.chart, system.chart, q + [pi + h * X.component(pi) for pi in p],
                          parameters=stage_parameters(system))
            got = cache[system] = (drift, kick)
        return got

    def stages(self, system: System) -> tuple:
        """The exact flows, in the order they act: ``Stage(drift, a_i)``, ``Stage(kick, b_i)``."""
        self.check_applies(system)
        parts = self._parts(system)
        return tuple(Stage(parts[letter], c) for letter, c in self.flows)

    def _build(self, system):
        # the composite of the flows as ONE map (for certificates that need it; running uses stages)
        phi = None
        for st in self.stages(system):
            m = scaled(st.map, st.factor)
            phi = m if phi is None else gc.compose(m, phi)
        return phi

    # -- order and properties
    def order_certificate(self) -> splitting_conditions.SplittingOrder:
        """The certified order on the scheme's class (a :class:`~geomcheck.certify.splitting.SplittingOrder`)."""
        if self._order is None:
            self._order = splitting_conditions.splitting_order(self.a, self.b, self.class_, self.max_order)
        return self._order

    @property
    def order(self) -> int:
        return self.order_certificate().order

    def system_class(self, system: System) -> str:
        """``"rkn"`` when ``system``'s kinetic part is quadratic in p (``q'`` affine in p), else ``"separable"``."""
        from geomcheck.zero import decide_all_zero

        X = system.vector_field
        second = [sympy.diff(X.component(qi), pj, pk) for qi in system.q for pj in system.p for pk in system.p]
        second = [e for e in second if e != 0]
        if not second or decide_all_zero(second).is_zero is True:
            return "rkn"
        return "separable"

    certifies_without_the_map = True   # Scheme.certify: the composite is built only for a property that needs it

    def _certify_one(self, prop, phi, system):
        if prop == "order":
            if system.time is not None:
                return None
            cls = "separable" if self.class_ == "separable" else self.system_class(system)
            order = max(self.order, 1)
            if cls == self.class_:
                return self.order_certificate() if self.order >= 1 else \
                    splitting_conditions.certify_splitting_order(self.a, self.b, order, cls)
            # an RKN method on a system whose T is not quadratic: the separable class's conditions
            return splitting_conditions.certify_splitting_order(self.a, self.b, order, cls)
        if prop == "symplectic":
            return self._flows_symplectic(system)
        if prop == "symmetric" and self._palindromic():
            return Certificate(
                claim=f"symmetric (palindromic sequence of {len(self.flows)} exact flows)", holds=True,
                method=("the flows of T and V are exact, so phi_t^(-1) = phi_(-t) for each, and the sequence of "
                        "flows is a palindrome: the adjoint of the step is the step"), stage="structural")
        return super()._certify_one(prop, self.step_map(system) if phi is None else phi, system)

    def _palindromic(self) -> bool:
        f = self.flows
        return all(x[0] == y[0] and sympy.simplify(x[1] - y[1]) == 0 for x, y in zip(f, reversed(f)))

    def _flows_symplectic(self, system):
        drift, kick = self._parts(system)
        certs = [gc.certify_symplectic(drift, system.omega), gc.certify_symplectic(kick, system.omega)]
        holds = True if all(c.holds is True for c in certs) else (
            False if any(c.holds is False for c in certs) else None)
        return Certificate(
            claim=f"symplectic (composition of {len(self.flows)} exact flows of T and V)", holds=holds,
            stage=certs[0].stage if holds is not None else "unknown",
            derivation=certs[1].derivation,
            method=("the step is a composition of the drift and the kick at other step sizes; both are "
                    f"symplectic for every h on this system (drift: {certs[0].method}; kick: {certs[1].method}),"
                    " so is their composite"))

    def property_certificates(self) -> dict:
        """Certificates of the candidate properties (symplectic, symmetric) on the generic test system."""
        if self._props is None:
            S = test_system()
            self._props = {"symplectic": self._flows_symplectic(S),
                           **self.certify(S, properties=["symmetric"])}
        return self._props

    @property
    def properties(self) -> frozenset:
        return frozenset(k for k, c in self.property_certificates().items() if c.holds is True)

    def __eq__(self, other):
        return type(other) is type(self) and (self.a, self.b, self.class_) == (other.a, other.b, other.class_)

    def __hash__(self):
        return hash(("Splitting", self.a, self.b, self.class_))

    def __repr__(self):
        return f"<scheme {self.name}: {self.description}>"
