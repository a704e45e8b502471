"""Products of exponentials in a free associative algebra, weight by weight, and their logarithm.

The order conditions of splitting methods (:mod:`geomcheck.certify.splitting`) and of
compositions (:mod:`geomcheck.certify.compositions`) are the coordinates of

.. math:: \\log\\big(e^{Z_1} e^{Z_2} \\cdots e^{Z_m}\\big)

in the Lyndon basis of a free Lie algebra (the BCH formula).  Here each exponent is a sum of
letters of one alphabet, the letter ``a`` (of weight ``|a|``, the power of the step size it
carries) scaled by the power ``x_i^{|a|}`` of one coefficient:

.. math:: Z_i = \\sum_{a} x_i^{|a|}\\, a, \\qquad
          \\big(e^{Z_i}\\big)_r = x_i^{r} \\sum_{|v| = r} \\frac{v}{\\operatorname{len}(v)!},

the sum over the words ``v`` of total weight ``r`` in the alphabet.  Two kinds of factors:

* one-letter exponentials :math:`e^{x L}` (the letter of weight 1; splitting methods), whose
  weight-``r`` part :math:`(x^r / r!)\\, L^r` is kept with its factorial;
* graded alphabets (the letters ``A_1, A_{r+1}, A_{r+3}, ...`` of a composition,
  :math:`Z_i = \\gamma_i A_1 + \\gamma_i^{r+1} A_{r+1} + \\cdots`), whose weight-``r`` part is
  :math:`x^r` times the words of weight ``r``, each group of one length scaled by ``1/length!``.

:class:`ExponentialProduct` expands the product one weight at a time (weight ``n`` needs only
the lower weights, so an analysis can stop at the first weight that fails), and takes its
logarithm :math:`\\log P = \\sum_k (-1)^{k+1} (P - 1)^k / k` either a whole weight at a time
(:meth:`ExponentialProduct.log_component`) or one word at a time
(:meth:`ExponentialProduct.log_coefficient`: cheaper when only the Lyndon words are needed).
:func:`lyndon_coordinates` reads the coordinates of a Lie element in the Lyndon basis off its
word coefficients by triangularity (:math:`P_w = w +` lexicographically larger words).

The coefficients live in any arithmetic whose elements do ``+``, ``-`` and ``*`` (Fractions,
number field elements, polynomial ring elements, mpmath numbers, the bounded numbers of
:mod:`geomcheck.certify.precision`, sympy expressions); the caller names its ``one``, ``zero``
and ``constant`` (a rational number as an element).  Every operation is done in one fixed
order, so floating-point results are reproducible: a one-letter factor adds its terms by
increasing power of ``x`` (the old term first), a graded alphabet by decreasing power, as the
splitting and composition analyses always have (their refined coefficients and numeric
residuals depend on it to the last bit).

Examples
--------
``log(e^a e^b) = a + b + [a, b]/2 + ...`` in exact rationals (letters 0 = a, 1 = b):

>>> from fractions import Fraction
>>> P = ExponentialProduct([(0, Fraction(1)), (1, Fraction(1))],
...                        one=Fraction(1), zero=Fraction(0), constant=Fraction)
>>> sorted(P.component(2).items())
[((0, 0), Fraction(1, 2)), ((0, 1), Fraction(1, 1)), ((1, 1), Fraction(1, 2))]
>>> sorted((w, c) for w, c in P.log_component(2).items() if c)     # [a, b]/2 = (ab - ba)/2
[((0, 1), Fraction(1, 2)), ((1, 0), Fraction(-1, 2))]
>>> lyndon_coordinates([(0, 1)], P.log_coefficient, Fraction)
[((0, 1), Fraction(1, 2))]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from .lyndon import bracket_expansion

__all__ = ["ExponentialProduct", "lyndon_coordinates"]


class ExponentialProduct:
    """The graded components of ``exp(Z_1) ... exp(Z_m)`` and of its logarithm, weight by weight.

    Parameters
    ----------
    factors : sequence of (letter, x) or of (alphabet, x)
        The exponentials in the order of the product, ``x`` an element of the arithmetic.
        Without ``words_by_length``: one-letter exponentials ``exp(x L)`` (``L`` of weight 1).
        With it: ``Z_i`` is the sum of the letters ``a`` of ``alphabet`` times ``x**|a|``.
    words_by_length : callable, optional
        ``words_by_length(alphabet, r)`` gives the words of total weight ``r >= 1`` over the
        alphabet as ``((length, (word, ...)), ...)``: words are tuples of letters, grouped by
        their length (each group carries ``1/length!``).
    one, zero : element
        The units of the arithmetic.
    constant : callable
        ``constant(q)``: the rational ``q`` (a ``fractions.Fraction``) as an element.
    skip_zero : callable, optional
        ``skip_zero(x)`` is True for an exact zero power ``x**r``, whose terms are then left out
        (exact arithmetic only: an inexact zero still carries an uncertainty).
    word_weight : callable
        The weight of a word (default ``len``: every letter of weight 1); used by
        :meth:`coefficient` and :meth:`log_coefficient` to find the component of a word.

    Notes
    -----
    Component ``n`` of the partial product ``exp(Z_1) ... exp(Z_k)`` is
    :math:`\\sum_{j \\le n} (\\text{partial}_{k-1})_j\\, (e^{Z_k})_{n-j}`; each is kept, so weight
    ``n`` costs only its own products.

    Examples
    --------
    ``exp(Z) exp(-Z) = 1`` for ``Z = x A_1 + x^3 A_3`` (letters are their weights):

    >>> from fractions import Fraction
    >>> from itertools import product
    >>> def words(alphabet, r):            # the letters are their weights
    ...     ws = [w for k in range(1, r + 1) for w in product(alphabet, repeat=k) if sum(w) == r]
    ...     return tuple((k, tuple(w for w in ws if len(w) == k)) for k in sorted({len(w) for w in ws}))
    >>> P = ExponentialProduct([((1, 3), Fraction(2)), ((1, 3), Fraction(-2))], words,
    ...                        one=Fraction(1), zero=Fraction(0), constant=Fraction, word_weight=sum)
    >>> sorted(P.component(3))             # the words of weight 3 that occur ...
    [(1, 1, 1), (3,)]
    >>> all(c == 0 for n in range(1, 8) for c in P.component(n).values())   # ... all with coefficient 0
    True
    """

    def __init__(self, factors: Iterable, words_by_length: Callable | None = None, *, one: Any, zero: Any,
                 constant: Callable, skip_zero: Callable | None = None, word_weight: Callable = len):
        self.factors = [(letters, x) for letters, x in factors]
        self.words_by_length = words_by_length
        self.one, self.zero = one, zero
        self.constant = constant
        self.skip_zero = skip_zero
        self.word_weight = word_weight
        m = len(self.factors)
        # levels[k][n]: the weight-n component of exp(Z_1) ... exp(Z_k) as {word: coefficient}
        self.levels = [[{(): one}] for _ in range(m + 1)]
        # the scalar of each factor's weight-r part: x^r / r! (one letter) or x^r (graded alphabet)
        self.powers = [[one] for _ in range(m)]
        self.done = 0
        self._constants: dict = {}
        self._log_powers: dict = {}                     # (k, n) -> ((P - 1)^k)_n

    def _const(self, p: int, q: int):
        """The element of the rational p/q, made once (keyed by plain ints: hashing Fractions is slow)."""
        key = (p, q)
        c = self._constants.get(key)
        if c is None:
            c = self._constants[key] = self.constant(Fraction(p, q))
        return c

    def _power(self, i: int, r: int):
        pw = self.powers[i]
        x = self.factors[i][1]
        while len(pw) <= r:
            if self.words_by_length is None:
                pw.append(pw[-1] * x * self._const(1, len(pw)))
            else:
                pw.append(pw[-1] * x)
        return pw[r]

    def _groups(self, letters, r: int) -> tuple:
        """((1/length! or None for 1, words), ...): the words of the weight-r part of one factor."""
        if self.words_by_length is None:          # the factorial is in the power x^r / r!
            return ((None, ((letters,) * r,)),)
        return tuple((None if length == 1 else self._const(1, math.factorial(length)), ws)
                     for length, ws in self.words_by_length(letters, r))

    def component(self, n: int) -> dict:
        """The weight-``n`` component of the product, ``{word: coefficient}`` (lower weights computed as needed)."""
        while self.done < n:
            self._advance(self.done + 1)
        return self.levels[-1][n]

    def coefficient(self, word: tuple):
        """The coefficient of ``word`` in the product, or None when it does not occur."""
        return self.component(self.word_weight(word)).get(word)

    def _advance(self, n: int) -> None:
        self.levels[0].append({})  # the empty product has nothing above weight 0
        # the fixed order of the sums: see the module docstring
        powers = range(n + 1) if self.words_by_length is None else range(n, -1, -1)
        for k in range(1, len(self.factors) + 1):
            letters = self.factors[k - 1][0]
            prev = self.levels[k - 1]
            res: dict = {}
            for r in powers:
                A = prev[n - r]
                if not A:
                    continue
                if r == 0:
                    if not res:       # the old terms come first (one-letter factors): a plain copy
                        res = dict(A)
                        continue
                    for u, c in A.items():
                        res[u] = res[u] + c if u in res else c
                    continue
                x_r = self._power(k - 1, r)
                if self.skip_zero is not None and self.skip_zero(x_r):
                    continue
                groups = self._groups(letters, r)
                if len(groups) == 1 and groups[0][0] is None and len(groups[0][1]) == 1:
                    # one word and no factorial (a one-letter factor): the same sums, without the loops
                    v = groups[0][1][0]
                    for u, c in A.items():
                        key, val = u + v, c * x_r
                        res[key] = res[key] + val if key in res else val
                    continue
                for u, c in A.items():
                    cr = c * x_r
                    for q, ws in groups:
                        # 1/1! = 1 is left out (a product with it is exact in every arithmetic)
                        val = cr if q is None else cr * q
                        for v in ws:
                            key = u + v
                            res[key] = res[key] + val if key in res else val
            self.levels[k].append(res)
        self.done = n

    # ------------------------------------------------------------------ the logarithm

    def _log_power(self, k: int, n: int) -> dict:
        """``((P - 1)^k)_n``, built from ``((P - 1)^(k-1))_j`` and ``(P - 1)_(n-j)`` and kept."""
        if k == 1:
            return self.component(n)
        got = self._log_powers.get((k, n))
        if got is None:
            got = {}
            for j in range(k - 1, n):
                left, right = self._log_power(k - 1, j), self.component(n - j)
                for u, a in left.items():
                    for v, b in right.items():
                        key, val = u + v, a * b
                        got[key] = got[key] + val if key in got else val
            self._log_powers[(k, n)] = got
        return got

    def log_component(self, n: int) -> dict:
        """The weight-``n >= 1`` component of ``log`` of the product, ``{word: coefficient}``.

        ``log P = sum_k (-1)^(k+1)/k (P - 1)^k``; only ``k <= n`` reach weight ``n``.
        """
        out: dict = {}
        for k in range(1, n + 1):
            coef = self._const((-1) ** (k + 1), k)
            for w, c in self._log_power(k, n).items():
                v = c * coef
                out[w] = out[w] + v if w in out else v
        return out

    def log_coefficient(self, word: tuple):
        """The coefficient of one word in ``log`` of the product: a sum over its factorizations.

        The coefficient of ``w`` in ``(P - 1)^k`` is the sum, over the ways of cutting ``w``
        into ``k`` nonempty pieces, of the product of the pieces' coefficients in ``P``.
        """
        n = len(word)
        D = {(0, 0): self.one}     # (k, i): the coefficient of word[:i] in (P - 1)^k
        total = None
        for k in range(1, n + 1):
            for i in range(k, n + 1):
                s = None
                for j in range(k - 1, i):
                    d = D.get((k - 1, j))
                    if d is None:
                        continue
                    c = self.coefficient(word[j:i])
                    if c is None:
                        continue
                    t = d * c
                    s = t if s is None else s + t
                if s is not None:
                    D[(k, i)] = s
            got = D.get((k, n))
            if got is not None:
                t = got * self._const((-1) ** (k + 1), k)
                total = t if total is None else total + t
        return self.zero if total is None else total


def lyndon_coordinates(words: Iterable[tuple], coefficient: Callable, constant: Callable) -> list:
    """Coordinates in the Lyndon basis of a Lie element, from its word coefficients.

    The standard bracketing is :math:`P_w = w +` lexicographically larger words, so the
    coordinate of ``w`` is its word coefficient minus the contributions of the smaller Lyndon
    words already found (a triangular solve).  The element is taken to be a Lie element: the
    words that are not Lyndon words are not read.

    Parameters
    ----------
    words : iterable of tuple
        The Lyndon words of one weight, in increasing (lexicographic) order.
    coefficient : callable
        ``coefficient(w)``: the coefficient of the word ``w`` in the element.
    constant : callable
        ``constant(q)``: the rational ``q`` (a ``fractions.Fraction``) as an element.

    Returns
    -------
    list of (word, element)
        ``c_w`` with ``element = sum_w c_w P_w``, in the order of ``words``.

    Examples
    --------
    ``[A, B] = AB - BA`` has the coordinate 1 along ``P_(0, 1)``:

    >>> from fractions import Fraction
    >>> element = {(0, 1): Fraction(1), (1, 0): Fraction(-1)}
    >>> lyndon_coordinates([(0, 1)], lambda w: element.get(w, Fraction(0)), Fraction)
    [((0, 1), Fraction(1, 1))]
    """
    coords: list = []
    for w in words:
        c = coefficient(w)
        for w2, c2 in coords:
            e = bracket_expansion(w2).get(w)
            if e:
                c = c - c2 * constant(Fraction(e))
        coords.append((w, c))
    return coords
