"""Non-finite coefficients (nan, oo, -oo, zoo) are not functions: refused where they enter.

The attack: sympy differentiates ``nan`` to 0, so a vector field with a nan component had a
Lie derivative that "is zero"; every constructor now refuses such input with an ExpressionError
naming it.
"""

import pytest
import sympy

import geomcheck as gc
from geomcheck.algebra import require_finite
from geomcheck.errors import ExpressionError

M = gc.Chart("q p")
q, p = M.coords
w = M.d(q) ^ M.d(p)
BAD = [sympy.nan, sympy.oo, -sympy.oo, sympy.zoo, q + sympy.oo * p, sympy.sin(q) * sympy.nan]


def test_the_attack_is_real():
    # plain sympy reads the derivative of a nan constant as 0: the reason for the guard
    assert sympy.diff(sympy.nan, q) == 0


@pytest.mark.parametrize("bad", BAD, ids=str)
@pytest.mark.parametrize("build", [
    lambda b: gc.VectorField(M, {q: b}),
    lambda b: gc.VectorField(M, [p, b]),
    lambda b: b * M.d(q),
    lambda b: M.d(q) * b,
    lambda b: gc.Map(M, M, [b, p]),
    lambda b: gc.hamiltonian_vector_field(b, w),
], ids=["field-dict", "field-list", "form-left", "form-right", "map", "hamiltonian"])
def test_non_finite_coefficients_are_refused(bad, build):
    with pytest.raises(ExpressionError, match="a finite expression was expected"):
        build(bad)


def test_finite_expressions_pass_and_shared_subtrees_are_walked_once():
    e = sympy.exp(q) * p
    for _ in range(60):  # a DAG of 2^60 tree nodes: a tree walk would never finish
        e = sympy.Add(e, sympy.Mul(e, q, evaluate=False), evaluate=False)
    assert require_finite(e) is e
    assert gc.VectorField(M, {q: sympy.erf(q) + p**2}).components


def test_integrators_refuse_non_finite_and_complex_systems():
    import numpy as np

    import integrators as ig
    from integrators.errors import SystemDefinitionError

    x, v, k = sympy.symbols("x v k")
    with pytest.raises(ExpressionError, match="contains nan"):
        ig.HamiltonianSystem(sympy.nan * v, x, v)
    with pytest.raises(ExpressionError, match="imaginary unit"):
        ig.HamiltonianSystem(sympy.I * v**2, x, v)
    for value in (sympy.nan, sympy.I, float("inf")):
        with pytest.raises(SystemDefinitionError, match="not a finite real number"):
            ig.HamiltonianSystem(v**2 / 2 + k * x**2, x, v, parameters={k: value})
    system = ig.HamiltonianSystem(v**2 / 2 + k * x**2, x, v)
    for value in (float("nan"), np.inf, 1j, "a"):
        with pytest.raises(gc.errors.InvalidArgumentError, match="not a finite real number"):
            ig.integrate(system, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=2, params={"k": value})
    sol = ig.integrate(system, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=2, params={"k": 0.5})
    assert np.all(np.isfinite(sol.y))
