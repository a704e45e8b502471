"""Lie-algebra facts computed from their definitions, independently of geomcheck."""

import itertools
from fractions import Fraction

import sympy as sp


def dense_constants(c, n, complete_skew=True):
    """Dense Fraction tensor t[i][j][k] from sparse constants {(i, j, k): c_ij^k}.

    With ``complete_skew`` an entry given for (i, j) also sets (j, i) to its negative
    (constants given for i < j only); without it the dict is taken entry by entry.
    """
    t = [[[Fraction(0)] * n for _ in range(n)] for _ in range(n)]
    for (i, j, k), v in c.items():
        r = sp.Rational(v)
        t[i][j][k] = Fraction(int(r.p), int(r.q))
        if complete_skew:
            t[j][i][k] = -t[i][j][k]
    return t


def jacobiator(t):
    """{(a, b, c, m): Jac(e_a, e_b, e_c)^m} for a < b < c, nonzero entries:
    sum_i c_ab^i c_ic^m + c_bc^i c_ia^m + c_ca^i c_ib^m."""
    n = len(t)
    J = {}
    for a, b, c in itertools.combinations(range(n), 3):
        for m in range(n):
            v = sum(t[a][b][i] * t[i][c][m] + t[b][c][i] * t[i][a][m] + t[c][a][i] * t[i][b][m]
                    for i in range(n))
            if v:
                J[(a, b, c, m)] = v
    return J
