"""split_step: the one split of a step map into kernels, used by the numpy/mpmath lowering and by JAX.

The expected splits are read off the maps by hand.  The JAX part builds the kernels only (no jit).
"""

import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from integrators.errors import NotLowerableError
from integrators.jax_backend import JaxStep, jax_available
from integrators.lower import LoweredStep, split_step
from integrators.systems import STEP_SYMBOL

M = gc.Chart("q p")
q, p = M.coords
h = sp.Symbol("h")
Q1, P1, k1, k2 = sp.symbols("Q1 P1 k1 k2")
V = sp.Function("V")
#: the implicit midpoint rule on q' = p, p' = -sin q with stage slopes k1, k2 (auxiliary unknowns)
MIDPOINT = gc.ImplicitMap(M, M, [k1 - p - h * k2 / 2, k2 + sp.sin(q + h * k1 / 2), Q1 - q - h * k1,
                                 P1 - p - h * k2], new=[Q1, P1], auxiliary=[k1, k2], guess={k1: p, k2: -sp.sin(q)})


def test_explicit_map_has_only_an_update():
    exprs = [q + h * p, p - h * sp.sin(q)]
    assert split_step(gc.Map(M, M, exprs)) == ((), (), [], tuple(exprs))


def test_implicit_map_with_stage_unknowns():
    unknowns, equations, guess, update = split_step(MIDPOINT)
    assert unknowns == (k1, k2)
    assert equations == (k1 - p - h * k2 / 2, k2 + sp.sin(q + h * k1 / 2))
    assert guess == [p, -sp.sin(q)]
    assert update == [q + h * k1, p + h * k2]


def test_a_map_not_explicit_in_its_stage_unknowns_solves_for_the_new_state_too():
    # Q1 = q + h P1, P1 = p - h sin(Q1) (symplectic Euler written implicitly): Q1's equation holds P1
    phi = gc.ImplicitMap(M, M, [Q1 - q - h * P1, P1 - p + h * sp.sin(Q1)], new=[Q1, P1])
    unknowns, equations, guess, update = split_step(phi)
    assert unknowns == (Q1, P1) and equations == (Q1 - q - h * P1, P1 - p + h * sp.sin(Q1))
    assert guess == [q, p] and update == [Q1, P1]


def test_the_evaluation_equations_are_what_is_lowered():
    # an evaluation rule: (sin(x) - sin(y))/(x - y) written as 2 cos((x+y)/2) sin((x-y)/2)/(x-y); the
    # symbolic equations stay the certified ones
    phi = gc.ImplicitMap(M, M, [k1 - p - h * k2 / 2, k2 + sp.sin(q + h * k1 / 2), Q1 - q - h * k1, P1 - p - h * k2],
                         new=[Q1, P1], auxiliary=[k1, k2])
    rule = 2 * sp.cos(q / 2 + h * k1 / 4) * sp.sin(q / 2 + h * k1 / 4)
    assert sp.simplify(rule - sp.sin(q + h * k1 / 2)) == 0
    phi.evaluation_equations = (k1 - p - h * k2 / 2, k2 + rule, Q1 - q - h * k1, P1 - p - h * k2)
    assert split_step(phi)[1] == (k1 - p - h * k2 / 2, k2 + rule)
    assert LoweredStep(phi, parameters=[h]).equations == (k1 - p - h * k2 / 2, k2 + rule)


@pytest.mark.parametrize("phi", [gc.Map(M, M, [q + h * p, p - h * V(q).diff(q)]),
                                 gc.ImplicitMap(M, M, [Q1 - q - h * P1, P1 - p + h * V(Q1)], new=[Q1, P1])],
                         ids=["explicit", "implicit"])
def test_a_generic_map_is_refused_naming_the_function(phi):
    with pytest.raises(NotLowerableError, match="the stage map contains the undefined function"):
        split_step(phi, "the stage map")
    with pytest.raises(NotLowerableError, match="the step map contains the undefined function"):
        LoweredStep(phi)


def test_the_numpy_lowering_is_built_from_the_split():
    L = LoweredStep(MIDPOINT, parameters=[h])
    assert (L.unknowns, L.equations) == split_step(MIDPOINT)[:2] and L.m == 2
    assert L.jacobian == tuple(sp.diff(e, u) for e in L.equations for u in (k1, k2))
    # one Newton-free check of the update kernel: the new state from given stage values
    out = L.update.kernel(L.update.scalars(0.5), np.array([1.0]), np.array([2.0]), np.array([3.0]), np.array([4.0]))
    assert [float(o[0]) for o in out] == [1.0 + 0.5 * 3.0, 2.0 + 0.5 * 4.0]


@pytest.mark.skipif(not jax_available(), reason="jax is optional")
def test_the_jax_lowering_is_built_from_the_same_split():
    pendulum = ig.HamiltonianSystem(sp.Symbol("p")**2 / 2 - sp.cos(sp.Symbol("q")), sp.Symbol("q"), sp.Symbol("p"))
    stages = ig.scheme("gauss-legendre-4").stages(pendulum)
    step = JaxStep(stages, [STEP_SYMBOL])
    (Mj,) = step.maps
    unknowns, equations, guess, update = split_step(stages[0].map)
    m = len(unknowns)
    assert not Mj.explicit and Mj.m == m == 4
    assert (Mj.guess.n_outputs, Mj.residual.n_outputs, Mj.update.n_outputs) == (m, m + m * m, 2)
    # the numpy kernels of the same split print the same operations (only the module prefix differs)
    L = LoweredStep(stages[0].map, parameters=[STEP_SYMBOL])
    for jax_kernel, numpy_kernel in ((Mj.guess, L.guess), (Mj.residual, L.residual), (Mj.update, L.update)):
        assert jax_kernel.source.replace("jax.numpy.", "numpy.") == numpy_kernel.source
    explicit = JaxStep(ig.scheme("stormer-verlet").stages(pendulum), [STEP_SYMBOL])
    assert all(M.explicit and M.m == 0 and len(M.kernels) == 1 for M in explicit.maps)
