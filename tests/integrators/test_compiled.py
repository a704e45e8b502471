"""The compiled path (integrators.compiled) equals the numpy path; its fallback is never silent."""

import os
import shutil
import warnings

import numpy as np
import pytest
import sympy

import integrators as ig
from geomcheck.caches import Memo
from geomcheck.errors import InvalidArgumentError, ShapeError
from integrators import compiled
from integrators.compiled import CompiledPathWarning, CompilerUnavailableError, c_source, compile_step
from integrators.integrate import integrate_compiled
from integrators.errors import NotLowerableError

HAVE_CC = compiled.find_compiler() is not None
needs_cc = pytest.mark.skipif(not HAVE_CC, reason="no C compiler (the fallback is tested separately)")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    # one cache directory for this module's tests, not the user's
    monkeypatch.setenv("GEOMCHECK_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "compiled-cache"))


def pendulum():
    q, p = sympy.symbols("q p")
    return ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)


def henon_heiles():
    x, y, px, py = sympy.symbols("x y p_x p_y")
    H = (px**2 + py**2) / 2 + (x**2 + y**2) / 2 + x**2 * y - y**3 / 3
    return ig.HamiltonianSystem(H, [x, y], [px, py])


def both(system, scheme, y0, dt, steps, save_every, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledPathWarning)     # a fallback here is a failure
        sol = integrate_compiled(system, scheme, y0, dt, steps, save_every=save_every, **kw)
    ref = ig.integrate(system, scheme, y0, dt=dt, steps=steps, save_every=save_every, progress=False, **kw)
    return sol, ref


@needs_cc
def test_pendulum_stormer_verlet_equals_numpy():
    sol, ref = both(pendulum(), "stormer-verlet", [2.5, 0.3], 0.05, 5000, 37)
    assert sol.path == "compiled" and os.path.exists(sol.path_note)
    assert sol.y.shape == ref.y.shape == (5000 // 37 + 2, 2)
    np.testing.assert_array_equal(sol.t, ref.t)
    assert np.abs(sol.y - ref.y).max() <= 1e-12
    assert np.abs(sol.energy() - ref.energy()).max() <= 1e-12


@needs_cc
def test_henon_heiles_ensemble_equals_numpy():
    rng = np.random.default_rng(3)
    Y = rng.uniform(-0.3, 0.3, size=(3, 4))
    sol, ref = both(henon_heiles(), "stormer-verlet", Y, 0.01, 3000, 100)
    assert sol.path == "compiled"
    assert sol.y.shape == ref.y.shape == (31, 3, 4)
    assert np.abs(sol.y - ref.y).max() <= 1e-12
    # and an ensemble run equals its single runs
    one, _ = both(henon_heiles(), "stormer-verlet", Y[1], 0.01, 3000, 100)
    np.testing.assert_array_equal(one.y, sol.y[:, 1, :])


@needs_cc
@pytest.mark.parametrize("name", ["rk4", "symplectic-euler-a", "stormer-verlet-position"])
def test_other_explicit_schemes_equal_numpy(name):
    sol, ref = both(pendulum(), name, [1.0, 0.0], 0.05, 400, 7)
    assert sol.path == "compiled"
    assert np.abs(sol.y - ref.y).max() <= 1e-12


@needs_cc
def test_coupled_beam_104_dimensions_equals_numpy():
    from geomcheck.structures import beam_two_mass
    from integrators.forced import ForcedHamiltonianSystem

    B = beam_two_mass()
    system = ForcedHamiltonianSystem.from_coupled(B.system)
    assert system.dim == 104
    y0 = np.zeros(system.dim)
    y0[system.chart.index(B.q[1])] = -1.0                      # the Terakawa case's initial state
    sol, ref = both(system, "stormer-verlet", y0, 5e-4, 1500, 250)
    assert sol.path == "compiled"
    assert np.abs(sol.y - ref.y).max() <= 1e-12
    assert np.abs(sol.y[-1] - y0).max() > 1e-3                   # it moved


@needs_cc
def test_parameters_are_bound_at_run_time():
    q, p, k = sympy.symbols("q p k")
    osc = ig.HamiltonianSystem(p**2 / 2 + k * q**2 / 2, q, p, parameters={k: 1})
    sol, ref = both(osc, "stormer-verlet", [1.0, 0.0], 0.01, 300, 300, params={"k": 4})
    assert np.abs(sol.y - ref.y).max() <= 1e-12
    assert abs(sol.y[-1, 0] - np.cos(2 * 3.0)) < 1e-3           # frequency 2: k = 4 was used


@needs_cc
def test_time_dependent_contact_system_equals_numpy():
    x, p, z, t = sympy.symbols("x p z t")
    S = ig.ContactSystem(p**2 / 2 + x**2 / 2 + sympy.cos(t) * z / 5, x, p, z, t=t)
    sol, ref = both(S, "contact-splitting-2-t", [1.0, 0.0, 0.0], 0.01, 500, 50, t0=0.3)
    assert sol.path == "compiled"
    np.testing.assert_array_equal(sol.t, ref.t)
    assert np.abs(sol.y - ref.y).max() <= 1e-12


@needs_cc
def test_library_is_cached_per_source(tmp_path, monkeypatch):
    monkeypatch.setenv("GEOMCHECK_CACHE_DIR", str(tmp_path))
    M = sympy.symbols("a b")
    import geomcheck as gc

    chart = gc.Chart(list(M))
    a, b = chart.coords
    h = sympy.Symbol("h")
    phi = gc.Map(chart, chart, [a + h * b, b - h * a**3])
    first = compiled.CompiledStep(phi, [h])
    assert os.path.dirname(first.library) == str(tmp_path)
    stamp = os.stat(first.library).st_mtime_ns
    second = compiled.CompiledStep(phi, [h])
    assert second.library == first.library and os.stat(first.library).st_mtime_ns == stamp
    # the library and its checksum, no temporary file left
    assert sorted(os.listdir(tmp_path)) == sorted([os.path.basename(first.library), os.path.basename(first.library)
                                                   + ".sha256"])
    out = first.run([0.5], [1.0, 0.0], steps=2, save_every=1)
    assert out.tolist() == [[1.0, 0.0], [1.0, -0.5], [0.75, -1.0]]


def _euler_map(power=3):
    import geomcheck as gc

    chart = gc.Chart("a b")
    a, b = chart.coords
    h = sympy.Symbol("h")
    return gc.Map(chart, chart, [a + h * b, b - h * a**power]), h


def _fresh_process_cache(monkeypatch, directory):
    monkeypatch.setenv("GEOMCHECK_CACHE_DIR", str(directory))
    monkeypatch.setattr(compiled, "_LIBRARIES", Memo("test.libraries", 8))
    monkeypatch.setattr(compiled, "_PRIVATE_DIR", [])


@needs_cc
@pytest.mark.parametrize("damage", ["truncate", "foreign", "no-checksum"])
def test_a_damaged_or_foreign_cached_library_is_rebuilt_not_loaded(damage, tmp_path, monkeypatch):
    _fresh_process_cache(monkeypatch, tmp_path)
    phi, h = _euler_map(3)
    first = compiled.CompiledStep(phi, [h])
    expected = first.run([0.5], [2.0, 0.0], steps=2).tolist()
    if damage == "truncate":      # once a Bus error when loaded
        with open(first.library, "r+b") as f:
            f.truncate(100)
    elif damage == "foreign":     # a valid library of another map under the same name: wrong numbers if loaded
        other_phi, _ = _euler_map(5)
        other = compiled.CompiledStep(other_phi, [h])
        shutil.copyfile(other.library, first.library)
        assert other.run([0.5], [2.0, 0.0], steps=2).tolist() != expected
    else:
        os.remove(first.library + ".sha256")
    _fresh_process_cache(monkeypatch, tmp_path)   # a new process: nothing loaded yet
    with pytest.warns(compiled.CompiledCacheWarning, match="does not match its checksum"):
        again = compiled.CompiledStep(phi, [h])
    assert again.run([0.5], [2.0, 0.0], steps=2).tolist() == expected


@needs_cc
@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_an_unwritable_cache_falls_back_to_a_private_directory(tmp_path, monkeypatch):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        _fresh_process_cache(monkeypatch, ro / "cache")
        phi, h = _euler_map(3)
        with pytest.warns(compiled.CompiledCacheWarning, match="cannot be written"):
            step = compiled.CompiledStep(phi, [h])
        assert not str(step.library).startswith(str(ro))
        assert step.run([0.5], [1.0, 0.0], steps=2).tolist() == [[1.0, 0.0], [1.0, -0.5], [0.75, -1.0]]
    finally:
        ro.chmod(0o700)


@needs_cc
def test_a_cache_on_a_regular_file_falls_back_too(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _fresh_process_cache(monkeypatch, blocker / "cache")   # makedirs fails: not a directory
    phi, h = _euler_map(3)
    with pytest.warns(compiled.CompiledCacheWarning, match="cannot be written"):
        step = compiled.CompiledStep(phi, [h])
    assert step.run([0.5], [1.0, 0.0], steps=1).tolist() == [[1.0, 0.0], [1.0, -0.5]]


@needs_cc
def test_the_cache_is_trimmed_oldest_first(tmp_path, monkeypatch):
    _fresh_process_cache(monkeypatch, tmp_path)
    phi, h = _euler_map(3)
    old = tmp_path / "gc_step_old.so"
    old.write_bytes(b"x" * 4096)
    os.utime(old, (1, 1))
    monkeypatch.setattr(compiled, "CACHE_LIMIT_BYTES", 4096)
    step = compiled.CompiledStep(phi, [h])
    assert not old.exists() and os.path.exists(step.library)


def test_c_source_shares_subexpressions_and_hoists_scalars():
    import geomcheck as gc

    chart = gc.Chart("q p")
    q, p = chart.coords
    h = sympy.Symbol("h")
    src = c_source(gc.Map(chart, chart, [q + h * p * sympy.sin(q), p - h * sympy.sin(q) / 2]), [h])
    assert src.count("sin(") == 1                        # sin(q) computed once (cse)
    assert "const double _s0 = " in src.split("for (long n")[0]   # h/2 outside the loop


def test_no_compiler_falls_back_with_a_warning(monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/cc-for-the-test")
    monkeypatch.setattr(compiled, "_STEPS", Memo("test.steps", 8))
    with pytest.warns(CompiledPathWarning, match="no C compiler"):
        sol = integrate_compiled(pendulum(), "stormer-verlet", [1.0, 0.0], 0.05, 200, save_every=20)
    assert sol.path == "numpy" and "no C compiler" in sol.path_note
    ref = ig.integrate(pendulum(), "stormer-verlet", [1.0, 0.0], dt=0.05, steps=200, save_every=20)
    np.testing.assert_array_equal(sol.y, ref.y)
    with pytest.raises(CompilerUnavailableError):
        compile_step(ig.scheme("stormer-verlet").step_map(pendulum()), [sympy.Symbol("h")])


def test_an_implicit_scheme_runs_its_newton_iteration_in_c():
    """One implicit stage: the compiled Newton (integrators.compiled_newton), to the Newton tolerance of
    the numpy path; a step it cannot run (time-dependent) falls back with a warning naming why."""
    from integrators.compiled_newton import compiled_newton_run

    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledPathWarning)
        sol = integrate_compiled(pendulum(), "implicit-midpoint", [1.0, 0.0], 0.05, 20, save_every=10)
    assert sol.path == "compiled" and sol.newton.linear_solver.startswith("compiled")
    ref = ig.integrate(pendulum(), "implicit-midpoint", [1.0, 0.0], dt=0.05, steps=20, save_every=10, backend="numpy")
    np.testing.assert_allclose(sol.y, ref.y, rtol=0, atol=1e-13)
    stages = ig.scheme("implicit-midpoint").stages(pendulum())
    with pytest.raises(NotLowerableError, match="autonomous"):
        compiled_newton_run(stages, [sympy.Symbol("h")], sympy.Symbol("t"), [0.05])


def test_generic_and_implicit_maps_are_refused_by_the_printer():
    q, p = sympy.symbols("q p")
    generic = ig.HamiltonianSystem(p**2 / 2 + sympy.Function("V")(q), q, p)
    with pytest.raises(NotLowerableError, match="undefined function"):
        c_source(ig.scheme("stormer-verlet").step_map(generic), [sympy.Symbol("h")])
    with pytest.raises(NotLowerableError, match="explicit"):
        c_source(ig.scheme("implicit-midpoint").step_map(pendulum()), [sympy.Symbol("h")])


@pytest.mark.parametrize("kw, err", [
    (dict(dt=-0.1), InvalidArgumentError),
    (dict(dt=float("nan")), InvalidArgumentError),
    (dict(steps=-1), InvalidArgumentError),
    (dict(save_every=0), InvalidArgumentError),
    (dict(y0=[1.0, 0.0, 0.0]), ShapeError),
    (dict(y0=[float("inf"), 0.0]), InvalidArgumentError),
])
def test_bad_input_is_refused_before_compiling(kw, err):
    args = dict(y0=[1.0, 0.0], dt=0.1, steps=10, save_every=1) | kw
    with pytest.raises(err):
        integrate_compiled(pendulum(), "stormer-verlet", args.pop("y0"), args.pop("dt"), args.pop("steps"), **args)


def test_step_size_beyond_the_stability_limit_is_refused():
    from integrators.stability import StepSizeError

    q, p = sympy.symbols("q p")
    stiff = ig.HamiltonianSystem(p**2 / 2 + 100 * q**2 / 2, q, p)     # omega = 10: dt < 0.2
    with pytest.raises(StepSizeError):
        integrate_compiled(stiff, "stormer-verlet", [1.0, 0.0], 0.25, 10)


@needs_cc
def test_constants_pi_and_e_and_rationals_print_as_doubles():
    q, p = sympy.symbols("q p")
    S = ig.HamiltonianSystem(p**2 / 2 + sympy.pi * q**2 / 2 + sympy.E * q**4 / 7 - q / 3, q, p)
    sol, ref = both(S, "stormer-verlet", [0.5, 0.1], 0.01, 500, 100)
    assert sol.path == "compiled"
    assert np.abs(sol.y - ref.y).max() <= 1e-12


def test_out_buffer_of_the_wrong_layout_is_refused():
    import geomcheck as gc

    if not HAVE_CC:
        pytest.skip("no C compiler")
    chart = gc.Chart("q p")
    q, p = chart.coords
    h = sympy.Symbol("h")
    step = compiled.CompiledStep(gc.Map(chart, chart, [q + h * p, p - h * q]), [h])
    with pytest.raises(InvalidArgumentError, match="out must be"):
        step.run([0.1], [1.0, 0.0], steps=4, save_every=2, out=np.empty((2, 2)), out_stride=2)


def test_integrate_backend_compiled_is_the_compiled_path():
    q, p = sympy.symbols("q p")
    pend = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
    y0 = np.array([[0.5, 0.0], [1.0, 0.2]])
    a = ig.integrate(pend, "stormer-verlet", y0, dt=0.05, steps=200, save_every=50, backend="compiled")
    b = ig.integrate(pend, "stormer-verlet", y0, dt=0.05, steps=200, save_every=50)
    assert np.abs(a.y - b.y).max() <= 1e-12
    assert a.path in ("compiled", "numpy")
    with pytest.raises(InvalidArgumentError, match="compensated"):
        ig.integrate(pend, "stormer-verlet", y0, dt=0.05, steps=10, backend="compiled", compensated=True)
    with pytest.raises(InvalidArgumentError, match="double precision"):
        ig.integrate(pend, "stormer-verlet", y0, dt=0.05, steps=10, backend="compiled", dps=30)


@needs_cc
def test_the_cache_key_names_the_architecture(tmp_path, monkeypatch):
    """A library shipped to another node is used there only if the node computes the same key, and
    `cc --version` does not always name the target: the machine's architecture is in the key."""
    import platform

    _fresh_process_cache(monkeypatch, tmp_path)
    phi, h = _euler_map(5)
    here = compiled.CompiledStep(phi, [h]).library
    monkeypatch.setattr(platform, "machine", lambda: "some-other-architecture")
    monkeypatch.setattr(compiled, "_compile_into", lambda *a: (_ for _ in ()).throw(
        compiled.CompilerUnavailableError("would compile")))
    with pytest.raises(compiled.CompilerUnavailableError, match="would compile"):
        compiled.CompiledStep(phi, [h])   # another key: the library built here is not taken
    assert os.path.exists(here)
