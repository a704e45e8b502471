"""Lyndon words and their standard bracketing: the basis of a free Lie algebra.

A word is a tuple of letters (integers, compared as Python compares tuples).  A Lyndon word is
strictly smaller than each of its proper suffixes; the Lyndon words of each length (or weight)
are a basis of the free Lie algebra, through the standard bracketing ``P_w = [P_u, P_v]`` of the
standard factorization ``w = u v`` (``v`` the longest proper Lyndon suffix).  The order
conditions of compositions (:mod:`geomcheck.certify.compositions`: letters are the generators'
weights) and of splitting methods (:mod:`geomcheck.certify.splitting`: letters 0 and 1 for A and
B) are coordinates in this basis.

>>> [w for w in [(0,), (0, 1), (1, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0)] if is_lyndon(w)]
[(0,), (0, 1), (0, 0, 1), (0, 1, 1)]
>>> standard_factorization((0, 0, 1))
((0,), (0, 1))
>>> sorted(bracket_expansion((0, 1)).items())            # [A, B] = AB - BA
[((0, 1), 1), ((1, 0), -1)]
"""

from __future__ import annotations

from functools import lru_cache

from ..caches import register

__all__ = ["is_lyndon", "standard_factorization", "bracket_expansion", "commutator"]

#: the bracketings of Lyndon words, one per word (bounded, like every memo: see geomcheck.caches)
_BRACKET_MEMO_SIZE = 8192


def is_lyndon(w: tuple) -> bool:
    """Whether ``w`` is strictly smaller than each of its proper suffixes (Python's tuple order is
    the lexicographic order, with a proper prefix smaller, that Lyndon words are defined with)."""
    return len(w) > 0 and all(w < w[i:] for i in range(1, len(w)))


def standard_factorization(w: tuple) -> tuple:
    """``(u, v)`` with ``w = u v`` and ``v`` the longest proper suffix of ``w`` that is a Lyndon word."""
    for i in range(1, len(w)):
        if is_lyndon(w[i:]):
            return w[:i], w[i:]
    raise ValueError(f"{w} has no proper Lyndon suffix (a single letter has no factorization)")


def commutator(X: dict, Y: dict) -> dict:
    """``XY - YX`` for elements of the free associative algebra given as ``{word: coefficient}``."""
    out: dict = {}
    for a, x in X.items():
        for b, y in Y.items():
            out[a + b] = out.get(a + b, 0) + x * y
            out[b + a] = out.get(b + a, 0) - x * y
    return {k: c for k, c in out.items() if c}


@lru_cache(maxsize=_BRACKET_MEMO_SIZE)
def bracket_expansion(w: tuple) -> dict:
    """The standard bracketing ``P_w`` of a Lyndon word, expanded in words (integer coefficients)."""
    if len(w) == 1:
        return {w: 1}
    u, v = standard_factorization(w)
    return commutator(bracket_expansion(u), bracket_expansion(v))


register("geomcheck.certify.lyndon.bracket_expansion", bracket_expansion.cache_clear,
         lambda: bracket_expansion.cache_info().currsize)
