"""The batched compiled loop (one C call per ensemble, chunks, threads), FSAL found in the step map,
and backend="auto" (issue 18 items 1, 2 and 4)."""

import warnings

import numpy as np
import pytest
import sympy

import geomcheck as gc
import integrators as ig
from integrators import compiled, pipeline
from integrators.compiled import CompiledPathWarning, compile_batch, fsal_links
from integrators.errors import NotLowerableError
from integrators.schemes.base import Stage
from integrators.systems import STEP_SYMBOL

HAVE_CC = compiled.find_compiler() is not None
needs_cc = pytest.mark.skipif(not HAVE_CC, reason="no C compiler")


@pytest.fixture(autouse=True, scope="module")
def _module_cache(tmp_path_factory):
    # one cache directory for this module's libraries (each compiled once), not the user's
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GEOMCHECK_CACHE_DIR", str(tmp_path_factory.mktemp("compiled-ensemble-cache")))
        yield


q, p = sympy.symbols("q p")
PENDULUM = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
QUARTIC = ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)
x, y, px, py = sympy.symbols("x y p_x p_y")
HENON_HEILES = ig.HamiltonianSystem((px**2 + py**2) / 2 + (x**2 + y**2) / 2 + x**2 * y - y**3 / 3, [x, y], [px, py])


def ensemble(n, dim=4, seed=5):
    return np.random.default_rng(seed).uniform(-0.25, 0.25, size=(n, dim))


def numpy_run(system, scheme, Y, steps, save_every, dt=0.01):
    return ig.integrate(system, scheme, Y, dt=dt, steps=steps, save_every=save_every, backend="numpy",
                        progress=False).y


# ------------------------------------------------------------------ the batched loop


@needs_cc
def test_batched_loop_without_fsal_equals_numpy_bit_for_bit_on_every_chunk_and_thread(monkeypatch):
    """The same IEEE operations as the numpy path (-ffp-contract=off, no -ffast-math): the same doubles,
    over several chunks, a last partial chunk, on one thread and on two."""
    Y = ensemble(1100)                                   # 512 + 512 + 76 trajectories
    stages = ig.scheme("stormer-verlet").stages(HENON_HEILES)
    loop = compile_batch(stages, [STEP_SYMBOL], fsal=False)
    assert loop.links == [] and compiled.chunk_size(4) == 512
    ref = numpy_run(HENON_HEILES, "stormer-verlet", Y, 40, 7)
    one = loop.run([0.01], Y, 40, 7, threads=1)
    np.testing.assert_array_equal(one, ref)
    monkeypatch.setattr(compiled, "THREADS_MIN_WORK", 0)  # threads even for this small run
    np.testing.assert_array_equal(loop.run([0.01], Y, 40, 7, threads=2), ref)


@needs_cc
@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork()")
def test_a_forked_child_runs_the_threaded_loop(monkeypatch):
    """libgomp's thread pool does not survive fork() (a child hangs in its next parallel region); the
    loop's threads are Python threads, so a child of a process that ran it runs it too."""
    import os

    monkeypatch.setattr(compiled, "THREADS_MIN_WORK", 0)
    Y = ensemble(1100)
    loop = compile_batch(ig.scheme("stormer-verlet").stages(HENON_HEILES), [STEP_SYMBOL])
    parent = loop.run([0.01], Y, 20, 20, threads=2)
    pid = os.fork()
    if pid == 0:                                          # the child: exit 0 on the same doubles
        try:
            import signal

            signal.alarm(20)                              # a hang kills the child, the test fails
            os._exit(0 if np.array_equal(loop.run([0.01], Y, 20, 20, threads=2), parent) else 3)
        finally:
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    assert status == 0


@needs_cc
def test_integrate_compiled_runs_the_ensemble_in_one_call(monkeypatch):
    Y = ensemble(600)
    calls = []
    stages = ig.scheme("stormer-verlet").stages(HENON_HEILES)
    loop = compile_batch(stages, [STEP_SYMBOL])
    original = loop._fn
    monkeypatch.setattr(loop, "_fn", lambda *a: calls.append(a[4]) or original(*a))
    monkeypatch.setattr(compiled, "compile_batch", lambda *a, **k: loop)
    sol = ig.integrate(HENON_HEILES, "stormer-verlet", Y, dt=0.01, steps=30, save_every=10, backend="compiled")
    assert sol.path == "compiled" and calls == [600]      # one C call, the whole batch
    assert np.abs(sol.y - numpy_run(HENON_HEILES, "stormer-verlet", Y, 30, 10)).max() <= 1e-14


# ------------------------------------------------------------------ FSAL


def test_fsal_links_are_found_in_the_step_map_and_are_exact():
    """Each link (S, E): E is a subexpression of the step map and equals S at the new state; checked
    here independently, numerically at random points (lambdify), not through the detector's own test."""
    for system, n_links in ((PENDULUM, 1), (HENON_HEILES, 2), (QUARTIC, 1)):
        phi = ig.scheme("stormer-verlet").step_map(system)
        links = fsal_links(phi)
        assert len(links) == n_links
        coords = list(phi.source.coords)
        new_state = sympy.lambdify([*coords, STEP_SYMBOL], list(phi.exprs))
        rng = np.random.default_rng(1)
        for S, E in links:
            assert STEP_SYMBOL not in S.free_symbols and any(E == node for e in phi.exprs
                                                            for node in sympy.preorder_traversal(e))
            s_at = sympy.lambdify(coords, S)
            e_at = sympy.lambdify([*coords, STEP_SYMBOL], E)
            for _ in range(3):
                point = list(rng.uniform(-1, 1, len(coords))) + [0.1]
                assert abs(e_at(*point) - s_at(*new_state(*point))) <= 1e-12


def test_no_fsal_where_the_last_force_is_not_the_next_first():
    """rk4 evaluates no stage at the new state; a 'Verlet' whose last kick is evaluated at another
    point than the new position, or a force that depends on the step size, carries nothing."""
    M = gc.Chart("q p")
    Q, P = M.coords
    h = STEP_SYMBOL
    assert fsal_links(ig.scheme("rk4").step_map(PENDULUM)) == []
    p_half = P - h / 2 * sympy.sin(Q)
    q_new = Q + h * p_half
    wrong_point = gc.Map(M, M, [q_new, p_half - h / 2 * sympy.sin(q_new + h**3)])
    assert fsal_links(wrong_point) == []
    stepsize_force = gc.Map(M, M, [q_new, p_half - h / 2 * sympy.sin(h * Q) * 0 - h / 2 * sympy.sin(h * q_new)])
    assert all(h not in S.free_symbols for S, _ in fsal_links(stepsize_force))
    true_verlet = gc.Map(M, M, [q_new, p_half - h / 2 * sympy.sin(q_new)])
    assert [S for S, _ in fsal_links(true_verlet)] == [sympy.sin(Q)]


@needs_cc
def test_fsal_is_bit_identical_where_the_operations_are_the_same():
    """Quartic and pendulum forces: the end-of-step force printed from the new state is the same
    sequence of IEEE operations as the next step's start, and as numpy's: the same doubles."""
    Y = ensemble(300, dim=2)
    for system in (QUARTIC, PENDULUM):
        loop = compile_batch(ig.scheme("stormer-verlet").stages(system), [STEP_SYMBOL])
        assert len(loop.links) == 1
        out = loop.run([0.05], Y, 60, 20, threads=1)
        if system is QUARTIC:
            np.testing.assert_array_equal(out, numpy_run(system, "stormer-verlet", Y, 60, 20, dt=0.05))
        else:   # sin: glibc's and numpy's may differ in the last bit
            assert np.abs(out - numpy_run(system, "stormer-verlet", Y, 60, 20, dt=0.05)).max() <= 1e-13


@needs_cc
def test_fsal_on_henon_heiles_and_a_composition_agrees_with_numpy():
    """Henon-Heiles: the carried force is printed from the new state (-x' - 2 x'y'), numpy evaluates
    the distributed expression: equal to rounding. Yoshida-4 (three stages of one map) carries
    the force from stage to stage."""
    Y = ensemble(200)
    for scheme in ("stormer-verlet", "yoshida-4"):
        loop = compile_batch(ig.scheme(scheme).stages(HENON_HEILES), [STEP_SYMBOL])
        assert len(loop.links) == 2
        out = loop.run([0.01], Y, 200, 100, threads=1)
        assert np.abs(out - numpy_run(HENON_HEILES, scheme, Y, 200, 100)).max() <= 1e-13


@needs_cc
def test_observed_blocks_restart_the_carried_values_exactly(monkeypatch):
    import integrators.stepping as stepping

    monkeypatch.setattr(stepping, "OBSERVED_VALUES_PER_BLOCK", 9)     # several blocks of the C loop
    Y = ensemble(3, dim=2)
    kw = dict(dt=0.05, steps=37, save_every=6, backend="compiled")
    observed = ig.integrate(PENDULUM, "stormer-verlet", Y, observe=lambda t, y: y.reshape(len(t), -1), **kw)
    plain = ig.integrate(PENDULUM, "stormer-verlet", Y, **kw)
    assert observed.path == plain.path == "compiled"
    np.testing.assert_array_equal(observed.y, plain.y)


# ------------------------------------------------------------------ backend="auto"


def test_auto_keeps_a_short_run_on_numpy_with_the_same_doubles():
    Y = ensemble(4, dim=2)
    auto = ig.integrate(PENDULUM, "stormer-verlet", Y, dt=0.05, steps=300, save_every=30)
    ref = ig.integrate(PENDULUM, "stormer-verlet", Y, dt=0.05, steps=300, save_every=30, backend="numpy")
    assert auto.path == "numpy" and auto.path_note.startswith("auto: numpy (a short run")
    np.testing.assert_array_equal(auto.y, ref.y)
    assert ref.path_note is None                                    # backend="numpy" as before


def _cheap_build(monkeypatch):
    # the model as if the build cost nothing and any run were long: auto's compiled branch, tested small
    monkeypatch.setattr(pipeline, "AUTO_MIN_SECONDS", 0.0)
    monkeypatch.setattr(pipeline, "BUILD_SECONDS", 0.0)
    monkeypatch.setattr(pipeline, "BUILD_SECONDS_PER_OPERATION", 0.0)


@needs_cc
def test_auto_compiles_a_long_explicit_run_and_says_why(monkeypatch):
    _cheap_build(monkeypatch)
    sol = ig.integrate(QUARTIC, "stormer-verlet", [0.5, 0.1], dt=0.05, steps=400, save_every=100)
    assert sol.path == "compiled"
    assert sol.path_note.startswith("auto: compiled (estimated work") and "library" in sol.path_note
    ref = ig.integrate(QUARTIC, "stormer-verlet", [0.5, 0.1], dt=0.05, steps=400, save_every=100, backend="numpy")
    np.testing.assert_array_equal(sol.y, ref.y)
    ran = ig.run_map(ig.scheme("stormer-verlet").step_map(QUARTIC), [0.5, 0.1], dt=0.05, steps=400, save_every=100)
    assert ran.path == "compiled"
    np.testing.assert_array_equal(ran.y, ref.y)


def test_auto_never_picks_mpmath_or_compiles_implicit_compensated_steps(monkeypatch):
    _cheap_build(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledPathWarning)
        implicit = ig.integrate(PENDULUM, "implicit-midpoint", [1.0, 0.0], dt=0.1, steps=5)
        comp = ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=5, compensated=True)
    assert implicit.path == "numpy" and "implicit" in implicit.path_note
    assert comp.path == "numpy"
    mp = ig.integrate(PENDULUM, "stormer-verlet", ["1", "0"], dt="0.1", steps=2, backend="mpmath", dps=20)
    assert mp.path == "mpmath"


def test_auto_warns_when_a_long_run_cannot_be_compiled(monkeypatch):
    _cheap_build(monkeypatch)
    monkeypatch.setenv("CC", "/nonexistent/cc-for-the-test")
    with pytest.warns(CompiledPathWarning, match="long run on the numpy path.*no C compiler"):
        sol = ig.integrate(QUARTIC, "stormer-verlet", [0.5, 0.1], dt=0.05, steps=40, save_every=20)
    assert sol.path == "numpy" and "no C compiler" in sol.path_note
    ref = ig.integrate(QUARTIC, "stormer-verlet", [0.5, 0.1], dt=0.05, steps=40, save_every=20, backend="numpy")
    np.testing.assert_array_equal(sol.y, ref.y)


def test_the_cost_model_compiles_long_runs_and_keeps_short_ones():
    """Henon-Heiles: one trajectory of 10^6 steps compiles, of 1000 steps does not (screened out before the map
    is looked at); 10^5 trajectories x 1000 steps compile, x 100 steps do not (the build would cost about as
    much as the numpy run); the estimates are stated in the reason."""
    from integrators.pipeline import CheckedRun, auto_choice
    from integrators.run_options import check_options
    from integrators.backends import backend_for

    stages = ig.scheme("stormer-verlet").stages(HENON_HEILES)
    options = check_options("auto")

    def choice(batch, steps):
        run = CheckedRun(np.zeros((batch, 4)), batch == 1, steps, steps, 0.01, 0, backend_for("numpy", None))
        return auto_choice(stages, options, run)

    long_run = choice(1, 10**6)
    assert long_run.path == ("compiled" if HAVE_CC else "numpy") and "estimated work" in long_run.reason
    assert choice(1, 1000).path == "numpy" and "short run" in choice(1, 1000).reason
    assert choice(10**5, 1000).path == ("compiled" if HAVE_CC else "numpy")
    assert choice(10**5, 100).path == "numpy" and "numpy ~" in choice(10**5, 100).reason
    assert choice(1, 0).path == "numpy"


def test_auto_is_the_default_and_is_checked():
    import inspect

    from geomcheck.errors import InvalidArgumentError

    assert inspect.signature(ig.integrate).parameters["backend"].default == "auto"
    with pytest.raises(InvalidArgumentError, match="'auto'"):
        ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], backend="fast")
    with pytest.raises(InvalidArgumentError, match="mpmath"):
        ig.integrate(PENDULUM, "stormer-verlet", [1.0, 0.0], dps=30)


def test_an_implicit_stage_is_refused_by_the_batched_generator():
    with pytest.raises(NotLowerableError, match="explicit"):
        compiled.c_source_batch(ig.scheme("implicit-midpoint").stages(PENDULUM), [STEP_SYMBOL])
