"""The BSeries object: exact coefficients in the right arithmetic, validation, vector-space operations."""

from __future__ import annotations

import pickle

import pytest
import sympy
from hypothesis import given, settings
from sympy import Rational as R

import geomcheck.bseries as bs
from geomcheck import strategies as gst
from geomcheck.certify.tableau_arithmetic import ExactDomain, RationalFunctionDomain, SymbolicDomain
from geomcheck.certify.trees import trees_of_order, trees_up_to
from geomcheck.errors import BSeriesError, InvalidArgumentError, TableauShapeError

tau, = trees_of_order(1)
r3 = sympy.sqrt(3)
GAUSS4_A = [[R(1, 4), R(1, 4) - r3 / 6], [R(1, 4) + r3 / 6, R(1, 4)]]


def gauss4(order):
    return bs.runge_kutta(GAUSS4_A, [R(1, 2), R(1, 2)], order=order, name="Gauss-4")


def test_the_arithmetic_follows_the_coefficients():
    assert isinstance(bs.exact_flow(3).domain, ExactDomain)
    g = gauss4(4)
    assert isinstance(g.domain, ExactDomain) and g.domain.K.degree == 2
    alpha = sympy.Symbol("alpha")
    fam = bs.runge_kutta([[0, 0], [alpha, 0]], [1 - 1 / (2 * alpha), 1 / (2 * alpha)], order=3)
    assert isinstance(fam.domain, RationalFunctionDomain)
    # a transcendental constant beside a symbol: sympy arithmetic decided by the zero test
    odd = bs.BSeries({tau: sympy.cos(alpha) ** 2 + sympy.sin(alpha) ** 2}, 2)
    assert isinstance(odd.domain, SymbolicDomain)
    assert odd == bs.BSeries({tau: 1}, 2)          # sin^2 + cos^2 = 1, not two independent generators


def test_gauss4_is_exactly_order_4_and_symmetric():
    g = gauss4(6)
    assert g.truncate(4) == bs.exact_flow(4)
    assert g.truncate(5) != bs.exact_flow(5)
    assert bs.adjoint(g) == g
    assert bs.compose(bs.inverse(g), g) == bs.identity(6)   # exact in Q(sqrt(3)), no rounding
    bush = trees_of_order(5)[0]
    assert g[bush] == R(1, 4) ** 0 * sum(b * c ** 4 for b, c in [(R(1, 2), R(1, 2) - r3 / 6), (R(1, 2), R(1, 2) + r3 / 6)]).expand()


def test_family_with_a_parameter_specializes():
    alpha = sympy.Symbol("alpha")
    fam = bs.runge_kutta([[0, 0], [alpha, 0]], [1 - 1 / (2 * alpha), 1 / (2 * alpha)], order=4)
    f = bs.modified_equation(fam, 4)
    mid = bs.modified_equation(bs.runge_kutta([[0, 0], [R(1, 2), 0]], [0, 1], order=4), 4)
    heun = bs.modified_equation(bs.runge_kutta([[0, 0], [1, 0]], [R(1, 2), R(1, 2)], order=4), 4)
    for t, c in f.items():
        assert sympy.simplify(c.subs(alpha, R(1, 2)) - mid[t]) == 0
        assert sympy.simplify(c.subs(alpha, 1) - heun[t]) == 0
    # the results are sympy expressions in the user's symbol: subs and lambdify work
    bush3 = trees_of_order(3)[0]
    assert sympy.lambdify(alpha, f[bush3])(0.5) == pytest.approx(float(mid[bush3]))


def test_mixing_arithmetics_converts_exactly():
    g = gauss4(4)
    e = bs.exact_flow(4)
    diff = g - e        # Gauss's weights are symmetric in sqrt(3) -> -sqrt(3): every Phi(t) is rational
    assert diff.domain.K.degree == 1
    assert all(c == 0 for _, c in diff.items())
    mixed = bs.BSeries({tau: r3}, 4) + e
    assert mixed.domain.K.degree == 2 and mixed[tau] == 1 + r3
    assert (2 * e)[tau] == 2 and (e * r3)[tau] == r3


def test_validation():
    with pytest.raises(BSeriesError, match="floating-point"):
        bs.BSeries({tau: 0.5}, 2)
    with pytest.raises(BSeriesError, match="floating-point"):
        bs.runge_kutta([[0.5]], [1], order=2)
    with pytest.raises(BSeriesError, match="not a tree"):
        bs.BSeries({"tau": 1}, 2)
    with pytest.raises(BSeriesError, match="beyond the truncation order"):
        bs.BSeries({trees_of_order(3)[0]: 1}, 2)
    with pytest.raises(BSeriesError, match="colours"):
        bs.BSeries({tau: 1}, 2, colours=2)
    with pytest.raises(BSeriesError, match="nonnegative integer"):
        bs.BSeries({}, -1)
    with pytest.raises(BSeriesError, match="not finite"):
        bs.BSeries({tau: sympy.oo}, 1)
    with pytest.raises(TableauShapeError):
        bs.runge_kutta([[0, 0], [1]], [1, 1], order=2)
    with pytest.raises(TableauShapeError):
        bs.runge_kutta([[0]], [1, 1], order=2)
    s = bs.exact_flow(3)
    with pytest.raises(BSeriesError, match="truncated at order 3"):
        s[trees_of_order(4)[0]]
    with pytest.raises(BSeriesError, match="not of the kind"):
        s[trees_of_order(1, colours=2)[0]]
    with pytest.raises(BSeriesError, match="cannot combine"):
        s + bs.exact_flow(3, colours=2)
    assert issubclass(BSeriesError, InvalidArgumentError)


def test_laws_refuse_the_wrong_kind_of_series():
    field = bs.logarithm(bs.exact_flow(3))
    method = bs.exact_flow(3)
    with pytest.raises(BSeriesError, match="method or a flow"):
        bs.compose(field, method)
    with pytest.raises(BSeriesError, match="method or a flow"):
        bs.inverse(field)
    with pytest.raises(BSeriesError, match="vector field series"):
        bs.substitute(method, method)
    with pytest.raises(BSeriesError, match="vector field series"):
        bs.exponential(method)
    with pytest.raises(BSeriesError, match="not consistent"):
        bs.modifying_integrator(bs.BSeries({}, 3), 3)
    with pytest.raises(BSeriesError, match="known only up to order 3"):
        bs.modified_equation(method, 4)
    with pytest.raises(BSeriesError, match="cannot make a B-series of str"):
        bs.modified_equation("rk4", 3)


def test_orders_combine_to_the_smaller():
    a, b = bs.exact_flow(5), bs.exact_flow(3)
    assert bs.compose(a, b).order == 3 and (a - b).order == 3
    assert a == b and b == a                      # equal up to the common order


def test_immutable_picklable_unhashable():
    g = gauss4(3)
    with pytest.raises(AttributeError):
        g.order = 4
    with pytest.raises(TypeError):
        hash(g)
    back = pickle.loads(pickle.dumps(g))
    assert back == g and back.name == "Gauss-4" and back.order == 3
    items = g.items()
    items.clear()
    assert len(g.items()) == len(trees_up_to(3))


def test_catalog_schemes_have_their_series():
    import integrators as ig

    verlet = ig.scheme("stormer-verlet").bseries(4)
    pair = ig.scheme("lobatto-iiia-iiib-2").bseries(4)
    assert verlet == pair
    position = ig.scheme("stormer-verlet-position").bseries(4)
    assert position != verlet and bs.adjoint(position) == position
    assert ig.scheme("rk4").bseries(5).truncate(4) == bs.exact_flow(4)
    with pytest.raises(BSeriesError, match="not a B-series method"):
        bs.series_of(ig.scheme("coupled-avf"), 3)


@settings(max_examples=12, deadline=None, database=None)
@given(gst.butcher_tableaux())
def test_adjoint_is_the_series_of_the_adjoint_tableau(T):
    # HLW V.1: the adjoint of (A, b) is a*_ij = b_{s+1-j} - a_{s+1-i, s+1-j}, b*_i = b_{s+1-i}
    s = T.s
    A_adj = [[T.b[s - 1 - j] - T.A[s - 1 - i][s - 1 - j] for j in range(s)] for i in range(s)]
    b_adj = [T.b[s - 1 - i] for i in range(s)]
    assert bs.adjoint(bs.runge_kutta(T, order=5)) == bs.runge_kutta(A_adj, b_adj, order=5)


@settings(max_examples=8, deadline=None, database=None)
@given(gst.partitioned_tableaux())
def test_partitioned_adjoint_is_the_series_of_the_adjoint_pair(T):
    def adj(A, b):
        s = len(b)
        return ([[b[s - 1 - j] - A[s - 1 - i][s - 1 - j] for j in range(s)] for i in range(s)],
                [b[s - 1 - i] for i in range(s)])
    A1, b1 = adj(T.q.A, T.q.b)
    A2, b2 = adj(T.p.A, T.p.b)
    assert bs.adjoint(bs.partitioned_runge_kutta(T, 4)) == bs.partitioned_runge_kutta((A1, b1, A2, b2), 4)
