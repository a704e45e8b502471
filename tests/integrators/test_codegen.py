"""integrators.codegen: expressions that call an opaque vector function (VectorCallKernel)."""

import numpy as np
import pytest
import sympy

from integrators.codegen import VectorCallKernel, lower_expressions
from integrators.errors import NotLowerableError

y1, y2, y3, h, c = sympy.symbols("y1 y2 y3 h c")
Y3 = (y1, y2, y3)
F1, F2, F3 = (sympy.Function(f"F{k}") for k in (1, 2, 3))
COMPONENTS = {F1: 0, F2: 1, F3: 2}
#: the concrete field the tests put in for F: f(y) = (y2 y3, -sin y1, c y1 - y3**2)
FIELD = {F1: lambda a, b, d: b * d, F2: lambda a, b, d: -sympy.sin(a), F3: lambda a, b, d: c * a - d**2}


def f(Y):
    return np.stack([Y[:, 1] * Y[:, 2], -np.sin(Y[:, 0]), 1.25 * Y[:, 0] - Y[:, 2]**2], axis=1)


class Counting:
    def __init__(self, function):
        self.function, self.points = function, []

    def __call__(self, Y):
        self.points.append(Y.copy())
        return self.function(Y)


def at(point):
    """The three components of f at ``point``, as calls."""
    return [F(*point) for F in (F1, F2, F3)]


def substituted(exprs):
    """The expressions with the concrete field put in for the calls (the reference)."""
    return [e.replace(lambda e: e.func in FIELD, lambda e: FIELD[e.func](*e.args)) for e in exprs]


def reference(exprs, Y, hv=0.1, cv=1.25):
    K = lower_expressions(substituted(exprs), Y3, [h, c])
    out = K.kernel(K.scalars(hv, cv), *[Y[:, i] for i in range(3)])
    return np.stack([np.broadcast_to(o, (Y.shape[0],)) for o in out], axis=1)


def run(V, Y, hv=0.1, cv=1.25, function=f):
    S = V.scalars(*([hv, cv][:len(V.scalar_args)]))
    return V.kernel(S, function, Y)


def rk4_state():
    k1 = at(Y3)
    k2 = at([y + h / 2 * k for y, k in zip(Y3, k1)])
    k3 = at([y + h / 2 * k for y, k in zip(Y3, k2)])
    k4 = at([y + h * k for y, k in zip(Y3, k3)])
    return [y + h * (a / 6 + b / 3 + d / 3 + e / 6) for y, a, b, d, e in zip(Y3, k1, k2, k3, k4)]


STATES = np.random.default_rng(0).standard_normal((5, 3))


def test_all_components_at_one_point_are_one_call_made_in_dependency_order():
    V = VectorCallKernel(rk4_state(), Y3, [h], COMPONENTS)
    assert len(V.points) == 4
    counting = Counting(f)
    ours = run(V, STATES, function=counting)
    assert len(counting.points) == 4
    assert np.array_equal(counting.points[0], STATES)
    assert np.allclose(counting.points[1], STATES + 0.05 * f(STATES), rtol=0, atol=1e-15)
    assert np.abs(ours - reference(rk4_state(), STATES)).max() <= 4 * np.finfo(float).eps


def test_sums_accumulated_in_place_give_the_printed_formula_bit_for_bit():
    V = VectorCallKernel(rk4_state(), Y3, [h], COMPONENTS)
    assert "+=" in V.source
    Y = np.random.default_rng(3).standard_normal((1000, 3))
    hv = 0.37
    K0 = f(Y)
    K1 = f(K0 * (hv / 2) + Y)
    K2 = f(K1 * (hv / 2) + Y)
    K3 = f(K2 * hv + Y)
    printed = Y + hv * ((1 / 6) * K0 + (1 / 3) * K1 + (1 / 3) * K2 + (1 / 6) * K3)
    assert np.array_equal(run(V, Y, hv=hv), printed)


def test_identical_points_share_a_call():
    k = at(Y3)
    again = at([y2 - y2 + y1, y2, y3])                    # the same point written again: the same call
    state = [y + h * a + h**2 * b for y, a, b in zip(Y3, k, again)]
    V = VectorCallKernel(state, Y3, [h], COMPONENTS)
    assert len(V.points) == 1
    counting = Counting(f)
    ours = run(V, STATES, function=counting)
    assert len(counting.points) == 1
    assert np.abs(ours - reference(state, STATES)).max() <= 4 * np.finfo(float).eps


def test_components_with_different_formulas_are_computed_on_their_columns():
    # a kick-drift splitting of the columns: 0 and 2 one formula, 1 another; then all three differ
    k = at(Y3)
    mid = [y1 + h * k[0], y2, y3 + h * k[2]]
    k2 = at(mid)
    state = [mid[0], y2 + c * h * k2[1], mid[2] * k2[2]]
    V = VectorCallKernel(state, Y3, [h, c], COMPONENTS)
    assert "0:3:2" in V.source                            # the evenly spaced columns 0 and 2 as one slice
    assert np.abs(run(V, STATES) - reference(state, STATES)).max() <= 4 * np.finfo(float).eps


def test_unevenly_spaced_columns_and_reads_of_other_columns():
    Y4 = sympy.symbols("z0:4")
    G = [sympy.Function(f"G{k}") for k in range(4)]
    k = [g(*Y4) for g in G]
    # columns 0, 1, 3 share a formula; column 2 reads columns 0 and 3 of the state and of the call
    state = [Y4[0] + h * k[0], Y4[1] + h * k[1], Y4[0] * Y4[3] + k[3] - k[0], Y4[3] + h * k[3]]
    V = VectorCallKernel(state, Y4, [h], {g: i for i, g in enumerate(G)})
    assert "_ix0" in V.source
    A = np.random.default_rng(1).standard_normal((6, 4))
    fA = np.cos(A) * np.arange(1, 5)
    expected = np.stack([A[:, 0] + 0.1 * fA[:, 0], A[:, 1] + 0.1 * fA[:, 1],
                         A[:, 0] * A[:, 3] + fA[:, 3] - fA[:, 0], A[:, 3] + 0.1 * fA[:, 3]], axis=1)
    ours = V.kernel(V.scalars(0.1), lambda Y: np.cos(Y) * np.arange(1, 5), A)
    assert np.abs(ours - expected).max() <= 4 * np.finfo(float).eps * np.abs(expected).max()


def test_a_sum_that_starts_with_another_columns_value():
    # columns 0, 2, 3 (an index array) add column 1 of the call's result, read as (batch, 1)
    Y4 = sympy.symbols("z0:4")
    G = [sympy.Function(f"G{k}") for k in range(4)]
    k = [g(*Y4) for g in G]
    state = [Y4[0] + k[1], Y4[1], Y4[2] + k[1], Y4[3] + k[1]]
    V = VectorCallKernel(state, Y4, [h], {g: i for i, g in enumerate(G)})
    assert "_ix0" in V.source and "K0[:, 1:2]" in V.source
    A = np.random.default_rng(4).standard_normal((5, 4))
    expected = A + np.cos(A[:, 1:2])
    expected[:, 1] = A[:, 1]
    assert np.array_equal(V.kernel(V.scalars(0.1), np.cos, A), expected)


def test_a_function_of_fewer_arguments_reads_the_other_columns_from_the_state():
    # q' = Fq(p), p' = Fp(q) on the chart (q, p): the separable form
    q, p = sympy.symbols("q p")
    Fq, Fp = sympy.Function("Fq"), sympy.Function("Fp")
    ph = p + h / 2 * Fp(q)
    Q = q + h * Fq(ph)
    state = [Q, ph + h / 2 * Fp(Q)]
    V = VectorCallKernel(state, [q, p], [h], {Fq: 0, Fp: 1}, slots={Fq: [1], Fp: [0]})
    k = V.results
    assert V.points == ((q, p), (q, p + h / 2 * k[0][1]), (q + h * k[1][0], p))
    counting = Counting(lambda Y: np.stack([Y[:, 1], -np.sin(Y[:, 0])], axis=1))
    Z = np.array([[0.5, 0.25], [1.0, -0.5]])
    out = V.kernel(V.scalars(0.1), counting, Z)
    assert len(counting.points) == 3
    # the drift's point keeps the state's q, the second kick's keeps the state's p
    assert np.array_equal(counting.points[1][:, 0], Z[:, 0]) and np.array_equal(counting.points[2][:, 1], Z[:, 1])
    p_half = Z[:, 1] - 0.05 * np.sin(Z[:, 0])
    q_new = Z[:, 0] + 0.1 * p_half
    assert np.allclose(out, np.stack([q_new, p_half - 0.05 * np.sin(q_new)], axis=1), rtol=0, atol=1e-15)


def test_scalars_are_hoisted_into_the_binding():
    V = VectorCallKernel(rk4_state(), Y3, [h], COMPONENTS)
    S = V.scalars(0.2)
    assert 0.1 in S                                       # h/2, computed once per binding
    kernel_body = V.source.split("def kernel")[1]
    assert "1/2" not in kernel_body and "numpy.empty_like" not in kernel_body   # all columns at once


def test_a_state_that_is_a_constant_or_the_state_itself():
    V = VectorCallKernel([y1, sympy.Integer(2) * h, y3], Y3, [h], COMPONENTS)
    assert V.points == ()
    assert np.array_equal(V.kernel(V.scalars(0.5), f, STATES), np.stack([STATES[:, 0], np.ones(5), STATES[:, 2]], 1))


@pytest.mark.parametrize("outputs, components, message", [
    ([y1, y2], COMPONENTS, "one expression per coordinate"),
    ([y1 + F1(y1, y2), y2, y3], COMPONENTS, "2 arguments"),
    ([y1 + sympy.Function("V")(y1), y2, y3], COMPONENTS, "undefined function"),
    ([y1 + sympy.Derivative(F1(*Y3), y1), y2, y3], COMPONENTS, "derivative"),
    ([y1 + sympy.Symbol("w"), y2, y3], COMPONENTS, "neither coordinates"),
])
def test_what_cannot_be_lowered_is_refused(outputs, components, message):
    with pytest.raises(NotLowerableError, match=message):
        VectorCallKernel(outputs, Y3, [h], components)
