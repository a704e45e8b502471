"""Compositions with high-precision (refined, not exact) coefficients, e.g. Kahan and Li's.

Kahan and Li's symmetric compositions of orders 6 (9 stages) and 8 (17 stages) have no
closed form; :func:`geomcheck.certify.compositions.kahan_li` refines the published
26-digit coefficients on the order conditions to ``dps`` digits.  A
:class:`~integrators.schemes.composition.Composition` takes exact numbers only (so that its
order is a theorem); this subclass takes sympy Floats of at least ``min_digits`` digits
and says so: the order conditions are then decided *numerically* at that precision (the
order certificate's ``stage`` is ``"numeric"``), and the symmetry by the palindromic
coefficients (compared exactly: the refined tuples are palindromic by construction).

>>> import integrators as ig
>>> from geomcheck.certify import compositions
>>> s = RefinedComposition(ig.scheme("stormer-verlet"), compositions.kahan_li(6), name="kahan-li-6")
>>> s.order, sorted(s.properties), s.order_certificate().stage
(6, ['symmetric', 'symplectic'], 'numeric')
"""

from __future__ import annotations

import sympy
from mpmath.libmp import prec_to_dps

from geomcheck.certify.precision import SHORT_DIGITS, significant_digits
from geomcheck.errors import CompositionCoefficientError

from .composition import Composition

__all__ = ["RefinedComposition"]


class RefinedComposition(Composition):
    """A :class:`Composition` whose coefficients are high-precision sympy Floats.

    Parameters
    ----------
    base, name, description, max_order
        As for :class:`Composition`.
    gammas : sequence of sympy.Float
        Each with at least ``min_digits`` significant digits, in the container and in the
        value itself (the shortest decimal that reproduces it; Python floats are refused:
        16 digits cannot certify an eighth-order condition).
    min_digits : int
        Default 50.

    Raises
    ------
    geomcheck.errors.CompositionCoefficientError
        A coefficient that is not a sympy Float of enough digits.
    """

    def __init__(self, base, gammas, name=None, description="", max_order=10, min_digits=50):
        if isinstance(gammas, (str, bytes)) or not hasattr(gammas, "__iter__"):
            raise CompositionCoefficientError(f"RefinedComposition: gammas must be a sequence, got {gammas!r}")
        gammas = list(gammas)
        for i, g in enumerate(gammas):
            if not isinstance(g, sympy.Float):
                raise CompositionCoefficientError(
                    f"RefinedComposition: coefficient gamma[{i}] = {g!r} is not a sympy Float; expected"
                    f" high-precision Floats (at least {min_digits} digits), or use Composition for exact numbers")
            if prec_to_dps(g._prec) < min_digits:
                raise CompositionCoefficientError(
                    f"RefinedComposition: coefficient gamma[{i}] has {prec_to_dps(g._prec)} digits; expected at "
                    f"least {min_digits}")
            # the digits the value carries, not its container's: a 60-digit Float made from a
            # 15-digit string knows 15 digits (a short value such as 0.5 shows no rounding)
            digits = significant_digits(g)
            if SHORT_DIGITS < digits < min_digits:
                raise CompositionCoefficientError(
                    f"RefinedComposition: coefficient gamma[{i}] = {g} carries only {digits} significant digits "
                    f"(the shortest decimal that reproduces it), although its container holds "
                    f"{prec_to_dps(g._prec)}; expected at least {min_digits}")
        # the exact-number check of Composition is replaced by the precision check above
        exact = [sympy.Integer(1)] * len(gammas)
        super().__init__(base, exact, name=name, description=description, max_order=max_order)
        if any(g.is_zero for g in gammas):
            raise CompositionCoefficientError(f"RefinedComposition: a coefficient is zero ({gammas})")
        self.gammas = tuple(gammas)
