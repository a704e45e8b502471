"""Random points of a domain: the values the zero test gives its symbols and jets.

Every value is an exact rational (or a Gaussian rational for imaginary and complex
symbols), drawn by hashing the call's seed, the point number and the symbol, so a
decision is the same in every run, thread and process, while different expressions get
different points (the seed includes a structural hash of the expression).

Three kinds of draws:

- ``"numeric"`` (mpmath evaluation): rationals with denominators below 1024, readable
  in a counterexample;
- ``"modular"`` (exact evaluation modulo a prime): rationals on a grid of ``2**40``
  values per interval, so that the Schwartz-Zippel bound is small (see
  :mod:`geomcheck.zero.modular`);
- ``"explore"`` (looking for a counterexample of an expression that may switch branch
  inside the domain): magnitudes spread over many scales, so that regions far from
  the unit box (``x > 1.9``, ``x < -100``) are visited too.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction

import sympy

from ..domain import Domain
from .program import symbol_key

__all__ = ["Sampler", "GRID_BITS", "JET_SET_SIZE", "draw_int", "jet_fraction"]

#: modular draws take k / 2**GRID_BITS of an interval
GRID_BITS = 40
#: jets of the modular stage: k / 2**GRID_BITS with |k| < 2 * 2**GRID_BITS, k != 0
JET_SET_SIZE = 4 * 2**GRID_BITS - 2
#: integer symbols of the modular stage range over [-INT_WINDOW, INT_WINDOW] (cut by the domain)
INT_WINDOW = 2**40
#: integer symbols of the numeric stages range over [-INT_WINDOW_NUMERIC, INT_WINDOW_NUMERIC]
INT_WINDOW_NUMERIC = 2**20

_OO = sympy.oo


def draw_int(*parts) -> int:
    """A deterministic pseudo-random 128-bit integer from a hash of ``parts``."""
    return int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=16).digest(), "big")


def jet_fraction(seed, *key) -> Fraction:
    """A jet value of the numeric stages: nonzero, in (-2, 2), denominator below 1024."""
    r = draw_int(seed, "jet", *key)
    q = 64 + r % 960
    p = (r >> 16) % (4 * q - 2) - (2 * q - 1)
    return Fraction(p + 1 if p >= 0 else p, q)


def _fraction(v) -> Fraction:
    if v in (_OO, -_OO):
        raise ValueError("an infinite end")
    v = sympy.Rational(v)
    return Fraction(int(v.p), int(v.q))


class Sampler:
    """Draws the points of one decision inside a domain.

    Parameters
    ----------
    domain : Domain
        Where the symbols range (defaults from their assumptions).
    seed : int
        The decision's seed (user seed and structural hash of the expression).
    small : collection of Symbol
        Symbols drawn small (step sizes of implicit relations): in (1/100, 1/20) of
        their domain's scale.
    """

    def __init__(self, domain: Domain, seed: int, small=()):
        self.domain = domain
        self.seed = seed
        self.small = frozenset(small)

    # -- what the domain says
    def kind(self, s) -> str:
        return self.domain.kind(s)

    def interval(self, s):
        return self.domain.interval(s)

    # -- draws
    def value(self, s, j, mode="numeric"):
        """The ``j``-th value of symbol ``s``: ``(re, im)`` as Fractions."""
        kind = self.kind(s)
        key = symbol_key(s)
        if kind == "imaginary":
            return Fraction(0), self._real(s, key, j, mode, (-_OO, _OO), "im")
        if kind == "complex":
            return (self._real(s, key, j, mode, (-_OO, _OO), "re"),
                    self._real(s, key, j, mode, (-_OO, _OO), "im"))
        lo, hi = self.interval(s)
        if kind == "integer":
            return Fraction(self._integer(key, j, mode, lo, hi)), Fraction(0)
        return self._real(s, key, j, mode, (lo, hi), ""), Fraction(0)

    def set_size(self, s, mode="modular") -> int:
        """How many distinct values a modular draw of ``s`` can take (for the Schwartz-Zippel bound)."""
        kind = self.kind(s)
        if kind == "integer":
            lo, hi = self.integer_window(*self.interval(s), INT_WINDOW)
            return hi - lo + 1
        return 2**GRID_BITS - 1

    def _unit(self, key, j, mode, tag):
        """A rational t in (0, 1), and a random sign bit."""
        r = draw_int(self.seed, mode, j, key, tag)
        if mode == "modular":
            k = 1 + r % (2**GRID_BITS - 1)
            return Fraction(k, 2**GRID_BITS), (r >> 64) & 1
        q = 64 + r % 960
        p = 1 + (r >> 16) % (q - 1)
        return Fraction(p, q), (r >> 64) & 1

    def _real(self, s, key, j, mode, interval, tag):
        lo, hi = interval
        t, sign = self._unit(key, j, mode, tag)
        if s in self.small:
            # step sizes: small and positive where the domain allows
            a, b = Fraction(1, 100), Fraction(1, 20)
            if not (lo == -_OO or _fraction(lo) < a) or not (hi == _OO or _fraction(hi) > b):
                a, b = self._inner(lo, hi)
            return a + (b - a) * t
        if mode == "explore":
            return self._explore(key, j, lo, hi, t, sign, tag)
        if lo == -_OO and hi == _OO:
            mag = Fraction(1, 8) + Fraction(15, 8) * t
            return -mag if sign else mag
        if hi == _OO:
            a = _fraction(lo)
            return a + max(Fraction(1), abs(a)) * (Fraction(1, 8) + Fraction(15, 8) * t)
        if lo == -_OO:
            b = _fraction(hi)
            return b - max(Fraction(1), abs(b)) * (Fraction(1, 8) + Fraction(15, 8) * t)
        a, b = self._inner(lo, hi)
        return a + (b - a) * t

    @staticmethod
    def _inner(lo, hi):
        """A closed sub-interval of (lo, hi) kept away from its ends."""
        if lo == -_OO or hi == _OO:
            if lo == -_OO and hi == _OO:
                return Fraction(-2), Fraction(2)
            if hi == _OO:
                a = _fraction(lo)
                return a + Fraction(1, 100), a + Fraction(1, 20)
            b = _fraction(hi)
            return b - Fraction(1, 20), b - Fraction(1, 100)
        a, b = _fraction(lo), _fraction(hi)
        w = b - a
        return a + w / 16, b - w / 16

    def _explore(self, key, j, lo, hi, t, sign, tag):
        """Multi-scale draws: magnitudes 2**-12 .. 2**12, both signs, inside (lo, hi)."""
        r = draw_int(self.seed, "scale", j, key, tag)
        e = r % 25 - 12
        mag = (1 + t) * Fraction(2) ** e / 2
        if lo == -_OO and hi == _OO:
            return -mag if sign else mag
        if hi == _OO:
            return _fraction(lo) + mag
        if lo == -_OO:
            return _fraction(hi) - mag
        a, b = _fraction(lo), _fraction(hi)
        w = b - a
        # close to either end, or anywhere inside
        frac = min(mag / (1 + mag), Fraction(1))
        u = frac if (r >> 8) % 3 == 0 else (1 - frac if (r >> 8) % 3 == 1 else t)
        u = min(max(u, Fraction(1, 2**30)), 1 - Fraction(1, 2**30))
        return a + w * u

    @staticmethod
    def integer_window(lo, hi, window):
        a = -window if lo == -_OO else max(-window, int(sympy.floor(lo)) + 1)
        b = window if hi == _OO else min(window, int(sympy.ceiling(hi)) - 1)
        if lo != -_OO and hi == _OO and a > b:
            b = a + window
        if hi != _OO and lo == -_OO and a > b:
            a = b - window
        return a, b

    def _integer(self, key, j, mode, lo, hi):
        window = INT_WINDOW if mode == "modular" else INT_WINDOW_NUMERIC
        a, b = self.integer_window(lo, hi, window)
        if a > b:
            raise ValueError(f"no integer lies in ({lo}, {hi})")
        r = draw_int(self.seed, mode, j, key, "int")
        if mode == "explore":
            e = r % 21
            span = min(b - a, 2**e)
            if (r >> 8) & 1 and a > -window:
                return a + (r >> 16) % (span + 1)
            if b < window:
                return b - (r >> 16) % (span + 1)
            v = (r >> 16) % (span + 1)
            return max(a, min(b, -v if (r >> 40) & 1 else v))
        return a + (r >> 16) % (b - a + 1)

    def jet_value(self, key, mode="numeric") -> Fraction:
        """The value of a jet: nonzero, in (-2, 2)."""
        if mode == "modular":
            r = draw_int(self.seed, "jetm", key)
            k = r % JET_SET_SIZE - (2 * 2**GRID_BITS - 1)
            return Fraction(k + 1 if k >= 0 else k, 2**GRID_BITS)
        return jet_fraction(self.seed, key)


def as_sympy_number(value):
    """``(re, im)`` Fractions as a sympy number."""
    re, im = value
    out = sympy.Rational(re.numerator, re.denominator)
    if im:
        out += sympy.I * sympy.Rational(im.numerator, im.denominator)
    return out


__all__ += ["as_sympy_number"]
