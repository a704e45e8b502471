"""An explicit linear step run as its matrix (integrators.matrix_step, linear_solve="matrix").

Truth: the matrix powers of step_matrix applied by hand (plain numpy, the same products), and the
default lowered step to rounding.
"""

import numpy as np
import pytest
import sympy

import integrators as ig
from geomcheck.errors import InvalidArgumentError
from integrators.linear import step_matrix
from integrators.matrix_step import MATRIX_NOTE


def chain(n=4):
    """A chain of n unit masses and springs, fixed ends: linear, H = p.p/2 + sum (q_i - q_{i-1})^2 / 2."""
    q = sympy.symbols(f"q1:{n + 1}")
    p = sympy.symbols(f"p1:{n + 1}")
    ext = (0, *q, 0)
    H = sum(pi**2 for pi in p) / 2 + sum((ext[i + 1] - ext[i]) ** 2 for i in range(n + 1)) / 2
    return ig.HamiltonianSystem(H, q, p)


@pytest.mark.parametrize("scheme", ["stormer-verlet", "rk4", "yoshida-4"])
def test_matrix_run_is_the_matrix_powers_bit_for_bit(scheme):
    system = chain()
    y0 = np.linspace(-1.0, 1.0, system.dim)
    sol = ig.integrate(system, scheme, y0, dt=0.1, steps=50, save_every=10, linear_solve="matrix",
                       observe=lambda t, y: (y**2).sum(axis=-1))
    assert sol.path_note == MATRIX_NOTE and sol.path == "numpy"
    MT = np.ascontiguousarray(step_matrix(scheme, system, 0.1).T)
    Y = y0[None, :].copy()
    expected, norms = [Y[0].copy()], [float((Y**2).sum())]
    for n in range(1, 51):
        Y = Y @ MT
        norms.append(float((Y**2).sum()))
        if n % 10 == 0:
            expected.append(Y[0].copy())
    assert np.array_equal(sol.y, np.array(expected))
    assert np.array_equal(sol.observed, np.array(norms))
    # the lowered step gives the same run to rounding
    plain = ig.integrate(system, scheme, y0, dt=0.1, steps=50, save_every=10)
    assert np.allclose(plain.y, sol.y, rtol=0, atol=1e-13)
    assert plain.path_note != MATRIX_NOTE


def test_a_nonlinear_step_has_no_matrix():
    with pytest.raises(InvalidArgumentError, match="not linear and homogeneous"):
        ig.integrate(ig.example_system("henon-heiles"), "stormer-verlet", [0.1, 0.2, 0.3, 0.1], dt=0.1, steps=3,
                     linear_solve="matrix")


@pytest.mark.parametrize("options", [{"backend": "mpmath", "dps": 30}, {"compensated": True}])
def test_the_matrix_form_is_double_precision_and_plain(options):
    with pytest.raises(InvalidArgumentError, match="linear_solve='matrix'"):
        ig.integrate(chain(2), "stormer-verlet", [1.0, 0.0, 0.0, 0.0], dt=0.1, steps=3, linear_solve="matrix",
                     **options)


def test_a_time_dependent_system_has_no_fixed_matrix():
    x, p, z, t = sympy.symbols("x p z t")
    damped = ig.ContactSystem(p**2 / 2 + x**2 / 2 + t * z, x=[x], p=[p], z=z, t=t)
    with pytest.raises(InvalidArgumentError, match="time-dependent: True"):
        ig.integrate(damped, "contact-splitting-2-t", [1.0, 0.0, 0.0], dt=0.1, steps=3, linear_solve="matrix")


def test_implicit_linear_steps_keep_their_own_matrix_form():
    sol = ig.integrate(chain(2), "implicit-midpoint", [1.0, 0.0, 0.0, 0.0], dt=0.1, steps=3, linear_solve="matrix")
    assert sol.path_note != MATRIX_NOTE and "matrix" in sol.path_note
