"""Effective order (Butcher 1969): processors found and verified, impossibility proved."""

from __future__ import annotations

import pytest
import sympy
from sympy import Rational as R

import geomcheck.bseries as bs
from geomcheck.bseries.effective_order import _conditions, _processor_symbols
from geomcheck.errors import BSeriesError, InvalidArgumentError

#: Butcher's five-stage method of order 4 and effective order 5 (also BSeries.jl's "composing" tutorial)
BUTCHER_A = [[0] * 5, [R(1, 5), 0, 0, 0, 0], [0, R(2, 5), 0, 0, 0], [R(3, 16), 0, R(5, 16), 0, 0],
             [R(1, 4), 0, R(-5, 4), 2, 0]]
BUTCHER_B = [R(1, 6), 0, 0, R(2, 3), R(1, 6)]
RK4 = ([[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]], [R(1, 6), R(1, 3), R(1, 3), R(1, 6)])


def test_butchers_method_has_effective_order_5_not_6():
    a = bs.runge_kutta(BUTCHER_A, BUTCHER_B, order=6, name="Butcher")
    assert bs.order_of(a).order == 4
    c = bs.effective_order(a, 6)
    assert (c.order, c.holds) == (5, False)
    assert "Groebner basis {1}" in c.method
    # the witness, checked here without the library's verification: chi then a then chi^-1 is the flow
    chi = c.witness
    processed = bs.compose(bs.compose(chi, a.truncate(5)), bs.inverse(chi))
    assert all(processed[t] == R(1, t.gamma) for t in processed.trees())
    # and without the processor the method is only of order 4
    assert any(a[t] != R(1, t.gamma) for t in a.trees() if t.order == 5)


def test_explicit_euler_and_heun_gain_nothing():
    euler = bs.runge_kutta([[0]], [1], order=3)
    assert (bs.effective_order(euler, 3).order, bs.effective_order(euler, 3).holds) == (1, False)
    heun = bs.runge_kutta([[0, 0], [1, 0]], [R(1, 2), R(1, 2)], order=4)
    c = bs.effective_order(heun, 4)
    assert (c.order, c.holds) == (2, False)
    # the inconsistency, independently: sympy finds no solution of the order-3 equations
    unknowns = _processor_symbols(3)
    assert sympy.solve(_conditions(heun, 3, unknowns), list(unknowns.values()), dict=True) == []


def test_a_method_of_order_p_reaches_p_with_the_identity():
    rk4 = bs.runge_kutta(*RK4, order=4)
    c = bs.effective_order(rk4, 4)
    assert (c.order, c.holds) == (4, True)
    assert all(v == 0 for _, v in c.witness.items())
    assert bs.effective_order(bs.runge_kutta(*RK4, order=5), 5).order == 4   # RK4: no processor reaches 5


def test_bad_input_is_refused():
    r3 = sympy.sqrt(3)
    gauss = bs.runge_kutta([[R(1, 4), R(1, 4) - r3 / 6], [R(1, 4) + r3 / 6, R(1, 4)]], [R(1, 2), R(1, 2)], order=5)
    with pytest.raises(BSeriesError, match="rational coefficients"):
        bs.effective_order(bs.runge_kutta([[0, 0], [r3 / 2, 0]], [1 - 1 / r3, 1 / r3], order=4), 4)
    # Gauss-4's coefficients are rational (symmetric in sqrt(3) -> -sqrt(3)): accepted, order 4 with chi = id
    assert (bs.effective_order(gauss.truncate(4), 4).order, bs.effective_order(gauss.truncate(4), 4).holds) == (4, True)
    with pytest.raises(BSeriesError, match="up to 4 for P-series"):
        bs.effective_order(bs.exact_flow(5, colours=2), 5)
    with pytest.raises(BSeriesError, match="up to 6"):
        bs.effective_order(bs.exact_flow(8), 8)
    with pytest.raises(InvalidArgumentError):
        bs.effective_order(bs.exact_flow(3), 0)
