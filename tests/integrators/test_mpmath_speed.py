"""The mpmath path on raw mpf values (integrators.lower.RawMpfKernel) against independent evaluations.

The raw kernel forms each sum of products exactly and rounds it once.  References, written
here without the package's code generation:

* sympy's own ``lambdify(..., "mpmath")`` of the step map at 50 digits (operation by
  operation): the raw result is within 10^-48 relative (it rounds less often);
* for a linear combination, the exact rational value of the sum (sympy Rationals from the
  mpf inputs) rounded once with ``mpmath.libmp.from_rational``: EQUAL, bit for bit;
* a single product or sum (one rounding either way): equal to the plain mpmath operation.
"""

import random

import mpmath
import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from geomcheck.errors import NonRealValueError
from integrators.lower import RawMpfKernel, lower
from integrators.systems import STEP_SYMBOL as h

DPS = 50
q, p = sp.symbols("q p")


def mp_points(dim, n, seed):
    """Random 50-digit states (full mantissas, mixed signs and sizes)."""
    rnd = random.Random(seed)
    with mpmath.workdps(DPS):
        return [[mpmath.mpf(rnd.uniform(-2, 2)) + mpmath.mpf(1) / rnd.randint(3, 10**6) for _ in range(dim)]
                for _ in range(n)]


def exact(v):
    """The exact rational value of an mpf (from its raw tuple: ``man_exp`` drops the sign)."""
    sign, man, exp, _ = v._mpf_
    return (-1) ** sign * sp.Integer(man) * sp.Integer(2) ** exp


def rounded_once(r, prec):
    """The rational ``r`` rounded to ``prec`` bits, to nearest (mpmath's correctly rounded conversion)."""
    return mpmath.mp.make_mpf(mpmath.libmp.from_rational(int(r.p), int(r.q), prec, "n"))


def systems():
    henon = ig.HamiltonianSystem((p**2 + q**2) / 2 + q**3 / 3, q, p)
    pendulum = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
    # non-separable, with a quotient and a square root: explicit Euler on it
    odd = ig.HamiltonianSystem(p**2 / (2 * (1 + q**2)) + sp.sqrt(2 + sp.sin(q)), q, p)
    return [("stormer-verlet", henon), ("stormer-verlet", pendulum), ("explicit-euler", odd),
            ("symplectic-euler-a", pendulum)]


@pytest.mark.parametrize("name, system", systems(), ids=["henon", "pendulum", "quotient-sqrt", "symplectic-euler"])
def test_step_equals_sympy_lambdify_at_50_digits(name, system):
    phi = ig.scheme(name).step_map(system)
    L = lower(phi, backend="mpmath")
    assert L.raw_update is not None
    reference = sp.lambdify([*phi.source.coords, h], list(phi.exprs), "mpmath")
    with mpmath.workdps(DPS):
        dt = mpmath.mpf("0.01")
    step = L.bind({h: dt}, dps=DPS)
    for x in mp_points(2, 5, seed=3):
        got = step.step_array([x])[0]
        with mpmath.workdps(DPS):
            want = reference(*x, dt)
            for a, b in zip(got, want):
                assert isinstance(a, mpmath.mpf)
                assert abs(a - b) <= mpmath.mpf(10) ** -48 * max(abs(b), 1), (name, a, b)


def test_a_linear_combination_is_the_exact_sum_rounded_once():
    """a q + b p - 5 q p + 7: exact products and sum, one rounding; a, b rounded when bound (hoisted)."""
    a, b = sp.Rational(1, 3), sp.Rational(-2, 7)
    out = [a * q + b * p - 5 * q * p + 7]
    K = RawMpfKernel(out, [q, p], [])
    with mpmath.workdps(DPS):
        prec = mpmath.mp.prec
        S = K.bind_scalars(prec, K.scalars())
        a_r, b_r = mpmath.mpf(1) / 3, mpmath.mpf(-2) / 7          # correctly rounded, as the binding does
        for x, y in mp_points(2, 20, seed=5):
            (got,) = K.kernel(S, x, y)
            want = rounded_once(exact(a_r) * exact(x) + exact(b_r) * exact(y) - 5 * exact(x) * exact(y) + 7, prec)
            assert got == want


def test_one_operation_equals_plain_mpmath():
    """A single product or sum is rounded once either way: the same value, bit for bit."""
    K = RawMpfKernel([q * p, q + p, q - p, q / p], [q, p], [])
    with mpmath.workdps(DPS):
        S = K.bind_scalars(mpmath.mp.prec, K.scalars())
        for x, y in mp_points(2, 20, seed=7):
            assert list(K.kernel(S, x, y)) == [x * y, x + y, x - y, x / y]


def test_cancellation_keeps_what_stepwise_rounding_loses():
    """(q + p) - q with q = 1, p = 2^-200: exactly p; rounded term by term at 50 digits it is 0."""
    K = RawMpfKernel([(q + p) - q + 0 * p], [q, p], [])
    phi_plain = sp.lambdify([q, p], sp.Add(sp.Add(q, p), -q, evaluate=False), "mpmath")
    with mpmath.workdps(DPS):
        tiny = mpmath.mpf(2) ** -200
        S = K.bind_scalars(mpmath.mp.prec, K.scalars())
        assert K.kernel(S, mpmath.mpf(1), tiny) == (tiny,)      # sympy already cancels: exact
        assert phi_plain(mpmath.mpf(1), tiny) == 0                 # stepwise: lost


def test_integrate_matches_iterated_lambdify():
    """integrate(..., backend="mpmath", dps=50), 10 steps of Stormer-Verlet on the pendulum."""
    system = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
    phi = ig.scheme("stormer-verlet").step_map(system)
    reference = sp.lambdify([q, p, h], list(phi.exprs), "mpmath")
    sol = ig.integrate(system, "stormer-verlet", ["1.5", "0.25"], dt="0.1", steps=10, backend="mpmath", dps=DPS,
                       save_every=10, progress=False)
    with mpmath.workdps(DPS):
        x = [mpmath.mpf("1.5"), mpmath.mpf("0.25")]
        for _ in range(10):
            x = list(reference(*x, mpmath.mpf("0.1")))
        assert max(abs(a - b) for a, b in zip(sol.y[-1], x)) <= mpmath.mpf(10) ** -48


def test_complex_value_in_second_trajectory_is_named():
    """sqrt of a negative number inside the step: the plain kernel takes the row and names trajectory 1."""
    M = gc.Chart("u v")
    u, v = M.coords
    with mpmath.workdps(30):
        dt = mpmath.mpf("0.1")
    step = lower(gc.Map(M, M, [u + h * sp.sqrt(v), v]), backend="mpmath").bind({h: dt}, dps=30)
    good = step.step_array([[mpmath.mpf(1), mpmath.mpf(4)]])
    with mpmath.workdps(30):
        assert good[0, 0] == 1 + dt * 2
    with pytest.raises(NonRealValueError) as info:
        step.step([[mpmath.mpf(1), mpmath.mpf(1)], [mpmath.mpf(4), mpmath.mpf(-4)]], step_index=3)
    assert info.value.trajectory == 1 and info.value.step == 3 and info.value.coordinate == "u"


@pytest.mark.parametrize("state", [
    ["1e-5000", "1e5000"],          # exponent spread far beyond the precision: the plain kernel's sum
    [1, 0.5],                        # not mpf (ints, floats): the plain kernel converts them
], ids=["huge-spread", "not-mpf"])
def test_rows_the_raw_kernel_hands_back_equal_the_plain_kernel(state):
    M = gc.Chart("u v")
    u, v = M.coords
    phi = gc.Map(M, M, [u + h * v, v - h * u])
    L = lower(phi, backend="mpmath")
    step = L.bind({h: sp.Rational(1, 8)}, dps=30)
    with mpmath.workdps(30):
        x = [mpmath.mpf(s) if isinstance(s, str) else s for s in state]
        got = step.step_array([x])[0]
        plain = L.update.kernel(step.S["update"], *x)
        assert list(got) == [mpmath.mpf(w) for w in plain]


def test_a_map_the_raw_kernel_cannot_print_runs_plainly():
    M = gc.Chart("u v")
    u, v = M.coords
    phi = gc.Map(M, M, [u + h * sp.Piecewise((v, u > 0), (-v, True)), v])
    L = lower(phi, backend="mpmath")
    assert L.raw_update is None
    out = L.bind({h: sp.Rational(1, 2)}, dps=30).step_array([[mpmath.mpf(-1), mpmath.mpf(2)]])
    assert out[0, 0] == -2


def test_numpy_path_is_untouched():
    system = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
    L = lower(ig.scheme("stormer-verlet").step_map(system))
    assert not hasattr(L, "raw_update") or L.raw_update is None
    out = L.bind({h: 0.1}).step_array(np.array([[1.0, 0.0]]))
    assert out.dtype == float


def test_a_decimal_string_is_bound_at_the_run_precision():
    """bind({h: "0.1"}) is 1/10 to 50 digits, not the 15-digit Float sympify makes of the string."""
    system = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
    L = lower(ig.scheme("stormer-verlet").step_map(system), backend="mpmath")
    from_string = L.bind({h: "0.1"}, dps=DPS).step_array([[mpmath.mpf(1), mpmath.mpf(0)]])
    exact = L.bind({h: sp.Rational(1, 10)}, dps=DPS).step_array([[mpmath.mpf(1), mpmath.mpf(0)]])
    assert list(from_string[0]) == list(exact[0])
