"""Hand-written kernels (integrators.kernels, integrators.stencils) held against the symbolic definition."""

import numpy as np
import pytest
import sympy
from sympy.core.function import AppliedUndef

import integrators as ig
from geomcheck.structures import beam_two_mass
from integrators.errors import KernelError, KernelMismatchError, NotLowerableError, SchemeNotApplicableError
from integrators.forced import ForcedHamiltonianSystem
from integrators.kernels import KernelStep, check_kernel, kernel_of, kernel_step, with_kernel
from integrators.staged import lower_scheme
from integrators.stencils import beam_two_mass_stencil

h = sympy.Symbol("h")
q1, q2, p1, p2, a = sympy.symbols("q1 q2 p1 p2 a")


def two_wells(values=True):
    """A nonlinear separable system with a constant ``a``: V = -cos q1 + q1 q2^2/2 + a q2^4/4."""
    H = (p1**2 + p2**2) / 2 - sympy.cos(q1) + q1 * q2**2 / 2 + a * q2**4 / 4
    return ig.HamiltonianSystem(H, [q1, q2], [p1, p2], parameters={a: sympy.Rational(3, 2)} if values else None)


def two_wells_kernel(Y, params):
    x1, x2, y1, y2 = Y.T
    return np.stack([y1, y2, -np.sin(x1) - x2**2 / 2, -x1 * x2 - params["a"] * x2**3], axis=1)


def beam(n_x=51, n_b=10):
    model = beam_two_mass(n_x=n_x, n_b=n_b)
    return model, ForcedHamiltonianSystem.from_coupled(model.system)


# ------------------------------------------------------------------------ with_kernel


def test_with_kernel_returns_an_equal_system_carrying_the_checked_kernel():
    s = two_wells()
    fast = with_kernel(s, two_wells_kernel)
    assert fast == s and hash(fast) == hash(s) and type(fast) is type(s)
    assert fast is not s and kernel_of(s) is None and not hasattr(s, "kernel")
    assert fast.kernel.name == "two_wells_kernel" and fast.kernel.report.passed(1e-12)
    # it works wherever the system works: applicability, certificates, symbolic runs
    assert ig.scheme("stormer-verlet").why_not(fast) is None
    assert ig.scheme("stormer-verlet").certify(fast, properties=["symplectic"])["symplectic"].holds is True
    assert ig.scheme("stormer-verlet").step_map(fast) is ig.scheme("stormer-verlet").step_map(s)
    sol = ig.integrate(fast, "stormer-verlet", [0.5, 0.1, 0.0, 0.0], dt=0.01, steps=10)
    assert sol.y.shape == (2, 4)


def test_check_kernel_reports_per_component_deviation_over_random_batches():
    s = two_wells(values=False)            # a has no value: drawn at random per batch
    report = check_kernel(s, two_wells_kernel, points=9, seed=3)
    assert set(report.deviations) == set(s.coords)
    assert report.batch_sizes[0] == 1 and sum(report.batch_sizes) == 9 == report.points
    assert report.max_deviation < 1e-14
    assert len({p["a"] for p in report.params}) == len(report.batch_sizes)


def test_a_kernel_with_a_wrong_component_is_refused_naming_component_point_and_values():
    def wrong(Y, params):
        out = two_wells_kernel(Y, params)
        out[:, 3] *= 1 + 1e-9                 # a relative error far above rounding
        return out

    with pytest.raises(KernelMismatchError) as info:
        with_kernel(two_wells(), wrong)
    exc = info.value
    assert exc.component == p2 and exc.point.shape == (4,)
    assert abs(exc.kernel_value / exc.symbolic_value - (1 + 1e-9)) < 1e-12
    assert "p2'" in str(exc) and repr(exc.kernel_value) in str(exc) and repr(exc.symbolic_value) in str(exc)
    report = check_kernel(two_wells(), wrong)
    assert report.deviations[p2] > 1e-10 and max(report.deviations[c] for c in (q1, q2, p1)) < 1e-15
    # an error at 1e-9 is accepted only when asked for
    assert with_kernel(two_wells(), wrong, rtol=1e-8).kernel.report.max_deviation > 1e-10


@pytest.mark.parametrize("bad, message", [
    (lambda Y, params: Y[:, :3].copy(), "shape"),
    (lambda Y, params: np.zeros(Y.shape, dtype=np.float32), "dtype"),
    (lambda Y, params: Y.tolist(), "numpy array"),
    (lambda Y, params: 1 / 0, "ZeroDivisionError"),
    (lambda Y, params: params["b"] * Y, "KeyError"),
])
def test_a_kernel_of_the_wrong_form_is_refused(bad, message):
    with pytest.raises(KernelError, match=message):
        with_kernel(two_wells(), bad)


def test_a_kernel_that_changes_its_input_is_refused():
    def in_place(Y, params):
        Y[:, 0] = 0.0
        return two_wells_kernel(Y, params)

    with pytest.raises(KernelError, match="changed its input"):
        with_kernel(two_wells(), in_place)


def test_generic_time_dependent_and_non_callable_are_refused():
    V = sympy.Function("V")
    generic = ig.HamiltonianSystem(p1**2 / 2 + V(q1), q1, p1)
    with pytest.raises(NotLowerableError):
        with_kernel(generic, lambda Y, params: Y.copy())
    x, p, z, t = sympy.symbols("x p z t")
    forced = ig.ContactSystem(p**2 / 2 + x**2 / 2 + sympy.cos(t) * x, x, p, z, t=t)
    with pytest.raises(KernelError, match="time"):
        with_kernel(forced, lambda Y, params: Y.copy())
    with pytest.raises(KernelError, match="callable"):
        with_kernel(two_wells(), "not a kernel")


# ------------------------------------------------------------------------ kernel_step


@pytest.mark.parametrize("name", ["explicit-euler", "rk4", "stormer-verlet", "stormer-verlet-position", "yoshida-4"])
def test_kernel_step_equals_the_lowered_symbolic_step_at_random_points(name):
    s = two_wells()
    fast = with_kernel(s, two_wells_kernel)
    rng = np.random.default_rng(7)
    for size in (1, 5):
        dt = float(rng.uniform(0.01, 0.2))
        Y = rng.standard_normal((size, 4))
        ours = kernel_step(name, fast).bind({h: dt, a: 1.5}).step_array(Y)
        theirs = lower_scheme(name, s).bind({h: dt, a: 1.5}).step_array(Y)
        assert np.abs(ours - theirs).max() <= 1e-12 * np.abs(theirs).max()


def test_kernel_step_follows_the_order_of_a_non_palindromic_composition():
    third = sympy.Rational(1, 3)
    lopsided = ig.Composition(ig.scheme("stormer-verlet"), [third, 2 * third])
    s = two_wells()
    fast = with_kernel(s, two_wells_kernel)
    Y = np.random.default_rng(2).standard_normal((3, 4))
    ours = kernel_step(lopsided, fast).bind({h: 0.3, a: 1.5}).step_array(Y)
    theirs = lower_scheme(lopsided, s).bind({h: 0.3, a: 1.5}).step_array(Y)
    swapped = lower_scheme(ig.Composition(ig.scheme("stormer-verlet"), [2 * third, third]), s)
    assert np.abs(ours - theirs).max() <= 1e-12 * np.abs(theirs).max()
    assert np.abs(ours - swapped.bind({h: 0.3, a: 1.5}).step_array(Y)).max() > 1e-6   # the order matters


def test_kernel_step_reads_the_tableau_of_any_explicit_runge_kutta_method():
    half = sympy.Rational(1, 2)
    heun = ig.RungeKutta([[0, 0], [1, 0]], [half, half], name="heun")
    s = two_wells()
    Y = np.random.default_rng(4).standard_normal((4, 4))
    ours = kernel_step(heun, with_kernel(s, two_wells_kernel)).bind([0.1, 1.5]).step_array(Y)
    theirs = lower_scheme(heun, s).bind([0.1, 1.5]).step_array(Y)
    assert np.abs(ours - theirs).max() <= 1e-12 * np.abs(theirs).max()


@pytest.mark.parametrize("name", ["implicit-midpoint", "gauss-legendre-4", "lobatto-iiia-iiib-2"])
def test_kernel_step_refuses_schemes_where_the_kernel_is_not_the_whole_step(name):
    fast = with_kernel(two_wells(), two_wells_kernel)
    with pytest.raises(SchemeNotApplicableError, match="cannot run on a kernel"):
        kernel_step(name, fast)


def test_kernel_step_refuses_a_system_without_kernel_and_a_scheme_that_does_not_apply():
    with pytest.raises(SchemeNotApplicableError, match="no kernel"):
        KernelStep("rk4", two_wells())
    q, p = sympy.symbols("q p")
    mixed = ig.HamiltonianSystem(p**2 * (1 + q**2) / 2, q, p)
    fast = with_kernel(mixed, lambda Y, params: np.stack([Y[:, 1] * (1 + Y[:, 0]**2), -Y[:, 0] * Y[:, 1]**2], 1))
    with pytest.raises(SchemeNotApplicableError, match="separable"):
        kernel_step("stormer-verlet", fast)


# ------------------------------------------------------------------------ integrate(use_kernel=True)


@pytest.mark.parametrize("name", ["rk4", "stormer-verlet", "yoshida-4"])
def test_integrate_with_the_kernel_follows_the_symbolic_run(name):
    s = two_wells()
    fast = with_kernel(s, two_wells_kernel)
    y0 = np.array([[0.5, 0.25, 0.0, 0.125], [1.0, -0.5, 0.25, 0.0], [0.0, 0.75, -0.5, 0.0]])
    ours = ig.integrate(fast, name, y0, dt=0.05, steps=40, save_every=10, use_kernel=True)
    theirs = ig.integrate(s, name, y0, dt=0.05, steps=40, save_every=10)
    assert ours.y.shape == theirs.y.shape == (5, 3, 4)
    assert np.abs(ours.y - theirs.y).max() <= 1e-12
    one = ig.integrate(fast, name, y0[1], dt=0.05, steps=40, save_every=10, use_kernel=True)
    assert np.array_equal(one.y, ours.y[:, 1])            # an ensemble row is a single run


def test_integrate_use_kernel_refusals():
    fast = with_kernel(two_wells(), two_wells_kernel)
    y0 = [0.5, 0.0, 0.0, 0.0]
    with pytest.raises(SchemeNotApplicableError, match="implicit"):
        ig.integrate(fast, "implicit-midpoint", y0, dt=0.1, steps=2, use_kernel=True)
    with pytest.raises(SchemeNotApplicableError, match="no kernel"):
        ig.integrate(two_wells(), "rk4", y0, dt=0.1, steps=2, use_kernel=True)
    with pytest.raises(SchemeNotApplicableError, match="backend='numpy'"):
        ig.integrate(fast, "rk4", y0, dt="0.1", steps=2, backend="mpmath", use_kernel=True)
    with pytest.raises(SchemeNotApplicableError, match="compensated"):
        ig.integrate(fast, "rk4", y0, dt=0.1, steps=2, compensated=True, use_kernel=True)


# ------------------------------------------------------------------------ the beam stencil


def test_the_beam_stencil_is_accepted_on_the_104_coordinate_system_and_runs_its_verlet_step():
    model, system = beam()
    assert system.dim == 104
    fast = with_kernel(system, beam_two_mass_stencil(model), points=12, seed=5)
    assert fast.kernel.report.max_deviation < 1e-13
    Y = np.random.default_rng(0).standard_normal((7, 104))
    ours = kernel_step("stormer-verlet", fast).bind({h: 5e-4}).step_array(Y)
    theirs = lower_scheme("stormer-verlet", system).bind({h: 5e-4}).step_array(Y)
    assert np.abs(ours - theirs).max() <= 1e-12 * np.abs(theirs).max()


def test_the_beam_stencil_reads_symbolic_constants_from_params():
    model = beam_two_mass(n_x=6, n_b=2, symbolic=True)
    system = ForcedHamiltonianSystem.from_coupled(model.system)
    assert {s.name for s in system.parameters} == {"rho", "A", "E", "I", "m_1", "m_2", "k", "Delta_x"}
    assert check_kernel(system, beam_two_mass_stencil(model), points=10, seed=1).max_deviation < 1e-13


@pytest.mark.parametrize("n_b", [1, 5])
def test_a_stencil_with_a_sign_flip_at_a_boundary_node_is_refused(n_b):
    model, system = beam(n_x=10, n_b=n_b)
    right = beam_two_mass_stencil(model)
    n = model.n_x - 1
    dx4 = float(model.values["dx"]) ** 4
    assert model.values["E"] * model.values["I"] == 1

    def ghost_flipped(Y, params):
        # the ghost node u_{-1} = +u_1 instead of -u_1: the boundary row of delta_4 becomes (7, -4, 1)/dx^4
        out = right(Y, params)
        out[:, n + 2] -= 2 * Y[:, 0] / dx4
        return out

    with pytest.raises(KernelMismatchError) as info:
        with_kernel(system, ghost_flipped)
    exc = info.value
    assert exc.component == system.p[0] and str(exc.component) == "v1" and "v1'" in str(exc)
    u1 = exc.point[0]
    assert abs((exc.kernel_value - exc.symbolic_value) - (-2 * u1 / dx4)) <= 1e-9 * abs(2 * u1 / dx4)


# ------------------------------------------------------------------------ the scheme's own step map, kernel calls


x, y, px, py = sympy.symbols("x y p_x p_y")
EPS = np.finfo(float).eps


def henon_heiles():
    return ig.HamiltonianSystem((px**2 + py**2) / 2 + (x**2 + y**2) / 2 + x**2 * y - y**3 / 3, [x, y], [px, py])


def henon_heiles_kernel(Y, params):
    X, Yy, PX, PY = Y.T
    return np.stack([PX, PY, -2 * X * Yy - X, -X * X + Yy * Yy - Yy], axis=1)


class CountingKernel:
    """A kernel that counts its calls (with_kernel's own check calls it too: reset before counting)."""

    def __init__(self, function):
        self.function, self.calls = function, 0

    def __call__(self, Y, params):
        self.calls += 1
        return self.function(Y, params)


def bounded_states(batch, seed):
    """States of Henon-Heiles below the escape energy 1/6: every step stays in the bounded region."""
    return 0.1 * np.random.default_rng(seed).standard_normal((batch, 4))


half = sympy.Rational(1, 2)
HEUN = ig.RungeKutta([[0, 0], [1, 0]], [half, half], name="heun")
#: a stage at the same point as the first (c_2 = 0): the same call
REPEATED_POINT = ig.RungeKutta([[0, 0, 0], [0, 0, 0], [1, 0, 0]], [half, 0, half], name="repeated-point")
#: a stage nothing reads (b_2 = 0, nothing after it): no call
DEAD_STAGE = ig.RungeKutta([[0, 0], [1, 0]], [1, 0], name="dead-stage")


@pytest.mark.parametrize("scheme, calls_per_step", [
    ("explicit-euler", 1), (HEUN, 2), ("rk4", 4), (REPEATED_POINT, 2), (DEAD_STAGE, 1),
    # Verlet: the force at q, the velocity at the half-step momenta, the force at the new positions
    ("stormer-verlet", 3), ("stormer-verlet-position", 3),
    ("yoshida-4", 9),                                    # three Verlet stages
])
def test_the_kernel_is_called_once_per_stage_of_the_step_map(scheme, calls_per_step):
    counting = CountingKernel(henon_heiles_kernel)
    fast = with_kernel(henon_heiles(), counting)
    bound = kernel_step(scheme, fast).bind([0.05])
    Y = bounded_states(3, 0)
    counting.calls = 0
    for _ in range(5):
        Y = bound.step_array(Y)
    assert counting.calls == 5 * calls_per_step


def test_each_call_gets_the_whole_state_of_its_stage():
    seen = []

    def recording(Y, params):
        seen.append(Y.copy())
        return henon_heiles_kernel(Y, params)

    fast = with_kernel(henon_heiles(), recording)
    Y = bounded_states(2, 1)
    seen.clear()
    kernel_step("rk4", fast).bind([0.1]).step_array(Y)
    assert [s.shape for s in seen] == [(2, 4)] * 4
    k1 = henon_heiles_kernel(Y, {})
    assert np.array_equal(seen[0], Y) and np.allclose(seen[1], Y + 0.05 * k1, rtol=0, atol=4 * EPS)
    seen.clear()
    # velocity Verlet: the drift's point has the state's positions and the half-step momenta
    kernel_step("stormer-verlet", fast).bind([0.1]).step_array(Y)
    assert len(seen) == 3 and np.array_equal(seen[1][:, :2], Y[:, :2])
    assert np.array_equal(seen[1][:, 2:], Y[:, 2:] + 0.05 * k1[:, 2:])


@pytest.mark.parametrize("name", ["rk4", "yoshida-4", "stormer-verlet", "stormer-verlet-position"])
def test_a_kernel_step_on_henon_heiles_equals_the_symbolic_step_to_rounding(name):
    s = henon_heiles()
    fast = with_kernel(s, henon_heiles_kernel)
    Y = bounded_states(200, 2)
    ours = kernel_step(name, fast).bind([0.05]).step_array(Y)
    theirs = lower_scheme(name, s).bind([0.05]).step_array(Y)
    assert np.abs(ours - theirs).max() <= 4 * EPS * np.abs(theirs).max()
    # and a run: integrate with the kernel against integrate with the generated step
    a = ig.integrate(fast, name, Y[:20], dt=0.05, steps=10, use_kernel=True).y
    b = ig.integrate(s, name, Y[:20], dt=0.05, steps=10).y
    assert np.abs(a - b).max() <= 8 * EPS * np.abs(b).max()


@pytest.mark.parametrize("name", ["rk4", "stormer-verlet", "stormer-verlet-position"])
def test_the_kernel_step_is_the_schemes_own_map_with_the_field_left_open(name):
    s = henon_heiles()
    step = kernel_step(name, with_kernel(s, henon_heiles_kernel))
    (stage,) = step.stages
    generic = stage.map
    assert generic.source.coords == s.coords
    assert all(e.atoms(AppliedUndef) for e in generic.exprs)
    assert not any(e.has(x * y) for e in generic.exprs)             # no trace of this system's field
    # putting the field in gives the scheme's step map on the system, expression for expression;
    # a component of the separable generic field (Verlet's) reads only the other half of the state
    field = s.vector_field

    def component(call):
        c = next(c for c in s.coords if call.func.__name__ == f"F_{c.name}")
        reads = s.coords if len(call.args) == s.dim else (s.p if c in s.q else s.q)
        return field.component(c).xreplace(dict(zip(reads, call.args)))

    filled = [e.replace(lambda e: isinstance(e, AppliedUndef), component) for e in generic.exprs]
    symbolic = ig.scheme(name).step_map(s).exprs
    assert all(sympy.expand(a - b) == 0 for a, b in zip(filled, symbolic))


def test_a_composition_runs_the_one_base_map_at_its_factors():
    step = kernel_step("yoshida-4", with_kernel(henon_heiles(), henon_heiles_kernel))
    assert len(step.stages) == 3 and len({id(L) for L in step.lowered}) == 1
    assert [st.factor for st in step.stages] == [st.factor for st in ig.scheme("yoshida-4").stages(henon_heiles())]


def test_a_planted_sign_error_is_caught_by_check_kernel():
    def wrong_sign(Y, params):
        out = henon_heiles_kernel(Y, params)
        out[:, 3] = -Y[:, 0]**2 - Y[:, 1]**2 - Y[:, 1]          # -x^2 - y^2 - y: the sign of y^2 flipped
        return out

    s = henon_heiles()
    report = check_kernel(s, wrong_sign)
    assert report.deviations[py] > 0.1 and max(report.deviations[c] for c in (x, y, px)) == 0.0
    assert not report.passed()
    with pytest.raises(KernelMismatchError) as info:
        with_kernel(s, wrong_sign)
    assert info.value.component == py and "p_y'" in str(info.value)
