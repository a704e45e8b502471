"""The lowered step equals the symbolic step map: numpy to 1e-13, mpmath (60 digits) to 1e-50.

A composition is lowered stage by stage (integrators.staged); its reference is the symbolic
stage maps evaluated one after the other, and where the composite map is small enough to build,
the composite itself (test_staged_reference_is_the_composite).
"""

import random

import mpmath
import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from integrators.errors import NotLowerableError
from integrators.lower import lower
from integrators.staged import lower_scheme
from geomcheck.errors import InvalidArgumentError
from ig_cases import concrete_for, kind_cases

h = sp.Symbol("h")
NAMES = ig.list_schemes()


def points(dim, n=4, seed=1):
    """Random points with dyadic coordinates (exact in binary floating point)."""
    rnd = random.Random(seed)
    return [tuple(sp.Rational(rnd.randint(-2048, 2048), 1024) for _ in range(dim)) for _ in range(n)]


def points_for(name, dim, n=4, seed=1):
    """Random points for a scheme: its cases module's ``points(n, seed)`` when it has one (e.g. points on a
    constraint manifold, where a constrained step is solvable), else :func:`points`."""
    cases = kind_cases(name)
    if cases is not None and hasattr(cases, "points"):
        return cases.points(n, seed)
    return points(dim, n, seed)


def reference(phi, point, h0, dps=80, at_t=None):
    """The symbolic map at a point, by sympy/mpmath directly (no code of integrators.lower)."""
    point = [sp.Float(v, dps + 10) if isinstance(v, mpmath.mpf) else v for v in point]
    sub = dict(zip(phi.source.coords, point))
    sub[h] = h0
    sub.update(at_t or {})
    with mpmath.workdps(dps):
        if isinstance(phi, gc.Map):
            return [mpmath.mpf(sp.N(e.xreplace(sub), dps)) for e in phi.exprs]
        unknowns = list(phi.unknowns)
        eqs = [e.xreplace(sub) for e in phi.equations]
        F = sp.lambdify(unknowns, eqs, modules="mpmath")
        x0 = [mpmath.mpf(sp.N(phi.guess[u].xreplace(sub), dps)) for u in unknowns]
        sol = mpmath.findroot(lambda *u: F(*u), x0, tol=mpmath.mpf(10) ** (10 - dps))
        values = dict(zip(unknowns, sol))
        return [values[u] for u in phi.new]


def reference_step(name, system, point, h0, at_t, dps=80):
    """The scheme's symbolic step at a point: its stage maps evaluated in order (one stage for most)."""
    y = list(point)
    for st in ig.scheme(name).stages(system):
        shifted = {t: v + st.offset * h0 for t, v in at_t.items()}
        y = reference(st.map, y, st.factor * h0, dps=dps, at_t=shifted)
    return y


@pytest.mark.parametrize("name", NAMES)
def test_numpy_step_equals_symbolic_map(name):
    system = concrete_for(name)
    h0 = sp.Rational(1, 8)
    pts = points_for(name, system.dim)
    at_t = {system.time: sp.Rational(3, 8)} if system.time is not None else {}     # a time-dependent step needs t
    got = lower_scheme(name, system).bind({h: float(h0), **{k: float(v) for k, v in at_t.items()}}).step_array(
        np.array([[float(a) for a in pt] for pt in pts]))
    for row, pt in zip(got, pts):
        want = reference_step(name, system, pt, h0, at_t)
        assert np.abs(row - np.array([float(w) for w in want])).max() <= 1e-13, name


@pytest.mark.parametrize("name", NAMES)
def test_mpmath_step_equals_symbolic_map_to_50_digits(name):
    system = concrete_for(name)
    h0 = sp.Rational(1, 8)
    pts = points_for(name, system.dim, 2, seed=2)
    at_t = {system.time: sp.Rational(3, 8)} if system.time is not None else {}
    got = lower_scheme(name, system, backend="mpmath").bind({h: h0, **at_t}, dps=60).step_array(
        [list(pt) for pt in pts])
    for row, pt in zip(got, pts):
        want = reference_step(name, system, pt, h0, at_t)
        assert all(isinstance(v, mpmath.mpf) for v in row)
        assert max(abs(a - b) for a, b in zip(row, want)) <= mpmath.mpf(10) ** -50, name


def test_generated_code_shares_subexpressions_and_hoists_scalars(pendulum):
    L = lower(ig.scheme("stormer-verlet").step_map(pendulum))
    kernel = L.source.split("def kernel")[1]
    assert kernel.count("numpy.sin(") == 2            # sin(q) and sin(Q), each once
    assert "1/2" not in kernel                          # h/2 is computed once per binding
    assert "_s0" in L.source.split("def kernel")[0]


def test_small_powers_are_products():
    q, p = sp.symbols("q p")
    s = ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)
    L = lower(ig.scheme("stormer-verlet").step_map(s))
    assert "**" not in L.source
    out = L.bind({h: 0.1}).step_array(np.array([[1.0, 0.5]]))
    ph = 0.5 - 0.05 * 1.0
    Q = 1.0 + 0.1 * ph
    assert np.allclose(out, [[Q, ph - 0.05 * Q**3]], rtol=0, atol=1e-15)


def test_generic_systems_are_refused(generic):
    with pytest.raises(NotLowerableError, match="V") as info:
        lower(ig.scheme("stormer-verlet").step_map(generic))
    assert "concrete" in str(info.value)
    with pytest.raises(NotLowerableError):
        lower(ig.scheme("implicit-midpoint").step_map(generic), backend="mpmath")


def test_parameters_are_bound_and_checked():
    q, p, lam = sp.symbols("q p lambda")
    s = ig.HamiltonianSystem(p**2 / 2 + lam * q**2 / 2, q, p)
    L = lower(ig.scheme("symplectic-euler-a").step_map(s))
    assert L.parameters == (h, lam)
    out = L.bind({h: 0.5, lam: 2.0}).step_array(np.array([[1.0, 0.0]]))
    assert np.allclose(out, [[1.0 + 0.5 * (0.0 - 0.5 * 2.0), -1.0]])
    with pytest.raises(InvalidArgumentError, match="lambda"):
        L.bind({h: 0.5})
    with pytest.raises(InvalidArgumentError, match="backend"):
        lower(ig.scheme("symplectic-euler-a").step_map(s), backend="cuda")


def test_implicit_map_without_explicit_new_state_is_solved_for_all_unknowns():
    M = gc.Chart("q p")
    q, p = M.coords
    Q, P = sp.symbols("Q P")
    # midpoint written with the new state inside the equations only
    mid = gc.ImplicitMap(M, M, [Q - q - h * (p + P) / 2, P - p + h * sp.sin((q + Q) / 2)], new=[Q, P])
    got = lower(mid).bind({h: 0.25}).step_array(np.array([[1.0, 0.5]]))
    want = reference(mid, (1, sp.Rational(1, 2)), sp.Rational(1, 4))
    assert np.abs(got[0] - np.array([float(w) for w in want])).max() <= 1e-14


def test_small_powers_in_denominators_and_exponents_keep_their_meaning():
    # regression: b**2 was printed as b*b without brackets, so y/(2*(x+1)**2) became
    # y/(2*(x+1))*(x+1) in the generated code (found by the Guo case study)
    M = gc.Chart("x y")
    x, y = M.coords
    exprs = [x + h * y / (2 * (x + 1) ** 2), y - h * 2 ** (x**2) / (x**3 + 1) ** 3 + h * (x + y) ** -2]
    phi = gc.Map(M, M, exprs, parameters=[h])
    pts = [(sp.Rational(1, 3), sp.Rational(2, 7)), (sp.Rational(5, 4), sp.Rational(-1, 2))]
    h0 = sp.Rational(1, 10)
    exact = [[e.subs({x: a, y: b, h: h0}) for e in exprs] for a, b in pts]
    got = lower(phi).bind({h: float(h0)}).step_array(np.array([[float(a), float(b)] for a, b in pts]))
    assert np.abs(got - np.array([[float(v) for v in row] for row in exact])).max() <= 1e-14
    got = lower(phi, backend="mpmath").bind({h: h0}, dps=60).step_array([list(p) for p in pts])
    for row, want in zip(got, exact):
        assert max(abs(a - sp.N(b, 70)) for a, b in zip(row, want)) <= mpmath.mpf(10) ** -50
