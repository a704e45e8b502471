"""Error coefficients and the principal error norm, against published values and plain sympy.

Published values: NodePy's documentation (``rk4.error_metrics()`` for the classical RK4:
``(sqrt(1745)/2880, 1/120, sqrt(8531)/5760, 1/144, 1)``, the 2-norm and max-norm of the error
coefficients of orders 5 and 6); the error constant of the Gauss methods, whose stability
function is the (s, s) Pade approximant: ``e^z - R(z) = (-1)^s (s!)^2 / ((2s)! (2s+1)!) z^(2s+1)
+ ...`` (Hairer, Wanner II, IV.3, Pade approximations), the error coefficient of the tall tree with 2s + 1
vertices (on y' = lambda y only tall trees contribute).  Elementary weights are recomputed here
by a plain recursion over the trees' children.
"""

import math

import pytest
import sympy as sp
from sympy import Rational as R

from geomcheck.certify.error_coefficients import (
    ErrorCoefficients,
    error_coefficients,
    principal_error_norm,
)
from geomcheck.certify.families import gauss_legendre
from geomcheck.certify.tableaux import ButcherTableau
from geomcheck.errors import InvalidArgumentError

RK4 = ([[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]], [R(1, 6), R(1, 3), R(1, 3), R(1, 6)])


def reference_phi(A, b, t):
    """Phi(t) = sum_i b_i prod_children (A g(child))_i, g(leaf) = e (plain sympy)."""
    A = sp.Matrix(A)

    def g(u):
        v = sp.ones(A.shape[0], 1)
        for child in u.children:
            v = v.multiply_elementwise(A * g(child))
        return v

    return sp.expand((sp.Matrix([b]) * g(t))[0])


def test_rk4_matches_nodepy_error_metrics():
    T = ButcherTableau(*RK4, name="RK4")
    assert principal_error_norm(T) == sp.sqrt(1745) / 2880
    five = error_coefficients(T)
    assert (five.order, five.tree_order, five.max_norm) == (4, 5, R(1, 120))
    six = error_coefficients(T, 5)
    assert (six.norm, six.max_norm) == (sp.sqrt(8531) / 5760, R(1, 144))


@pytest.mark.parametrize("p", [3, 4, 5])
def test_residuals_and_coefficients_from_plain_elementary_weights(p):
    A, b = RK4
    ec = error_coefficients(ButcherTableau(A, b), p)
    assert len(ec.coefficients) == {4: 4, 5: 9, 6: 20}[p + 1]     # rooted trees with p + 1 vertices
    for t, c in ec.coefficients.items():
        tau = reference_phi(A, b, t) - R(1, t.gamma)
        assert ec.residuals[t] == tau
        assert c == tau / t.sigma
    if p == 3:
        assert all(v == 0 for v in ec.coefficients.values())          # RK4 has order 4


@pytest.mark.parametrize("s", [1, 2, 3])
def test_gauss_error_constant_is_the_pade_constant(s):
    ec = error_coefficients(gauss_legendre(s))
    assert ec.order == 2 * s
    tall, = [t for t in ec.coefficients if t.gamma == math.factorial(2 * s + 1)]
    pade = (-1) ** s * R(math.factorial(s) ** 2, math.factorial(2 * s) * math.factorial(2 * s + 1))
    assert sp.simplify(ec.coefficients[tall] + pade) == 0      # R(z) - e^z = -pade z^(2s+1) + ...
    # and the series R(z) = 1 + sum_k b^T A^k e z^(k+1) says the same (plain sympy)
    T = gauss_legendre(s)
    A = sp.Matrix(T.A)
    coefficient = (sp.Matrix([T.b]) * A ** (2 * s) * sp.ones(s, 1))[0] - R(1, math.factorial(2 * s + 1))
    assert sp.simplify(coefficient - ec.coefficients[tall]) == 0


def test_heun_and_midpoint_by_hand():
    heun = ButcherTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)])
    # [tau^2]: (1/2 - 1/3)/2 = 1/12 ; [[tau]]: (0 - 1/6)/1 = -1/6
    assert principal_error_norm(heun) == sp.sqrt(R(1, 144) + R(1, 36))
    mid = error_coefficients(ButcherTableau([[R(1, 2)]], [1]))
    assert sorted(mid.coefficients.values()) == [R(-1, 24), R(1, 12)]


def test_gauss2_norm_is_exact_and_algebraic_entries_are_fine():
    value = principal_error_norm(gauss_legendre(2))
    assert value.free_symbols == set() and not value.has(sp.Float)
    assert sp.simplify(value ** 2 - R(14, 864 ** 2)) == 0


def test_float_tableau_gives_a_float_close_to_the_exact_value():
    rk4f = ButcherTableau([[0, 0, 0, 0], [0.5, 0, 0, 0], [0, 0.5, 0, 0], [0, 0, 1.0, 0]],
                          [1 / 6, 1 / 3, 1 / 3, 1 / 6], exact=False)
    ec = error_coefficients(rk4f)
    assert not ec.exact and ec.order == 4
    assert abs(float(ec.norm) - float(sp.sqrt(1745) / 2880)) < 1e-14


def test_bad_arguments():
    T = ButcherTableau(*RK4)
    for bad in (-1, 14, 2.0, True, "4"):
        with pytest.raises(InvalidArgumentError):
            error_coefficients(T, bad)
    with pytest.raises(InvalidArgumentError, match="ButcherTableau"):
        principal_error_norm([[0]])


def test_latex_table():
    ec = error_coefficients(ButcherTableau([[R(1, 2)]], [1]))
    assert isinstance(ec, ErrorCoefficients)
    assert r"\sigma(t)" in sp.latex(ec) and r"- \frac{1}{24}" in sp.latex(ec)
