"""integrators.distributed on a LocalCluster of two worker processes: the serial result, bit for bit."""

import os
import warnings

import numpy as np
import pytest
import sympy

import integrators as ig
from geomcheck.errors import GeomcheckError, InvalidArgumentError, NonFiniteStateWarning

dd = pytest.importorskip("dask.distributed")

from integrators.distributed import integrate_distributed, sweep  # noqa: E402

q, p, k = sympy.symbols("q p k")
PENDULUM = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)


@pytest.fixture(scope="module")
def client():
    with dd.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            dd.Client(cluster) as c:
        yield c


@pytest.mark.parametrize("scheme, backend", [("stormer-verlet", "numpy"), ("implicit-midpoint", "numpy"),
                                             ("yoshida-4", "mpmath")])
def test_an_ensemble_in_chunks_equals_the_serial_run_bit_for_bit(client, scheme, backend):
    n = 12 if backend == "mpmath" else 301
    y0 = np.column_stack([np.linspace(0.1, 2.5, n), np.linspace(-0.3, 0.3, n)])
    opts = dict(dt=0.05, steps=40, save_every=10, backend=backend)
    if backend == "mpmath":
        opts.update(dt="0.05", dps=30, steps=8, save_every=4)
    serial = ig.integrate(PENDULUM, scheme, y0, **opts)
    spread = integrate_distributed(PENDULUM, scheme, y0, client=client, chunks=5, **opts)
    assert spread.y.shape == serial.y.shape and np.array_equal(spread.y, serial.y)
    assert np.array_equal(np.asarray(spread.t), np.asarray(serial.t))
    assert np.array_equal(np.asarray(spread.energy()), np.asarray(serial.energy()))


def test_a_worker_warning_reaches_the_caller(client):
    escape = ig.HamiltonianSystem(p**2 / 2 - q**3 / 3, q, p)
    y0 = np.array([[0.1, 0.0], [0.2, 0.0], [1.2, 0.0], [0.3, 0.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        integrate_distributed(escape, "stormer-verlet", y0, client=client, chunks=2, dt=0.01, steps=400,
                              check_stability=False)
    named = [w for w in caught if issubclass(w.category, NonFiniteStateWarning)]
    assert len(named) == 1 and "trajectories 2..3 of the ensemble" in str(named[0].message)


def test_bad_input_is_refused_before_anything_is_shipped(client):
    y0 = np.zeros((4, 2))
    for bad, message in ((dict(dt=-1.0), "dt must be positive"), (dict(steps=-1), "steps must be"),
                         (dict(chunks=0), "chunks must be a positive integer")):
        with pytest.raises(GeomcheckError, match=message):
            integrate_distributed(PENDULUM, "stormer-verlet", y0, client=client, **bad)
    with pytest.raises(InvalidArgumentError, match="ensemble"):
        integrate_distributed(PENDULUM, "stormer-verlet", [1.0, 0.0], client=client)
    with pytest.raises(InvalidArgumentError, match="dask.distributed.Client"):
        integrate_distributed(PENDULUM, "stormer-verlet", y0, client="localhost:8786")


def test_a_sweep_over_systems_and_parameters_returns_the_serial_results_in_order(client):
    osc = ig.HamiltonianSystem(p**2 / 2 + k * q**4 / 4, q, p)
    jobs = [dict(system=osc, scheme=s, y0=[1.0, 0.0], dt=0.05, steps=30, params={"k": kv})
            for s in ("stormer-verlet", "rk4", "implicit-midpoint") for kv in (0.5, 1.0, 2.0, 4.0)]
    results = sweep(jobs, client=client)
    assert len(results) == len(jobs)
    for job, sol in zip(jobs, results):
        assert np.array_equal(sol.y, ig.integrate(**job).y)
    with pytest.raises(InvalidArgumentError, match="job 0"):
        sweep([{"system": osc}], client=client)


def test_a_sweep_in_chunks_keeps_the_order_and_refuses_bad_chunks(client):
    osc = ig.HamiltonianSystem(p**2 / 2 + k * q**2 / 2, q, p)
    jobs = [dict(system=osc, scheme="stormer-verlet", y0=[1.0, 0.0], dt=0.1, steps=5 + j, params={"k": 1.0 + j})
            for j in range(7)]
    for chunks in (1, 3, 7, 50):
        results = sweep(jobs, client=client, chunks=chunks)
        assert [s.steps for s in results] == [5 + j for j in range(7)]
        assert all(np.array_equal(s.y, ig.integrate(**j).y) for s, j in zip(results, jobs))
    assert sweep([], client=client) == []
    for bad in (0, -2, 1.5, True):
        with pytest.raises(InvalidArgumentError, match="chunks"):
            sweep(jobs, client=client, chunks=bad)
    with pytest.raises(InvalidArgumentError, match="progress"):
        sweep(jobs, client=client, progress="yes")


def test_dask_progress_bar_goes_to_stderr(client, capfd):
    y0 = np.column_stack([np.linspace(0.1, 1.0, 8), np.zeros(8)])
    integrate_distributed(PENDULUM, "stormer-verlet", y0, client=client, chunks=2, dt=0.1, steps=5, progress=True)
    out, err = capfd.readouterr()
    assert "% Completed" in err and "% Completed" not in out
    integrate_distributed(PENDULUM, "stormer-verlet", y0, client=client, chunks=2, dt=0.1, steps=5, progress=False)
    assert "% Completed" not in capfd.readouterr().err


def _worker_cannot_compile(cache):
    """On a worker: a fresh empty cache, and a compiler that fails: only a shipped library can run."""
    import os as _os

    import integrators.compiled as compiled

    _os.environ["GEOMCHECK_CACHE_DIR"] = cache

    def refuse(*args, **kwargs):
        raise compiled.CompilerUnavailableError("this worker may not compile (test)")

    compiled._compile_into = refuse
    return compiled.cache_dir()


def test_the_compiled_library_is_built_once_and_shipped_to_the_workers(tmp_path):
    from integrators.compiled import find_compiler

    if find_compiler() is None:
        pytest.skip("no C compiler")
    y0 = np.column_stack([np.linspace(0.1, 1.5, 6), np.zeros(6)])
    opts = dict(dt=0.05, steps=50, save_every=25, backend="compiled")
    serial = ig.integrate(PENDULUM, "yoshida-4", y0, **opts)
    with dd.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            dd.Client(cluster) as c:
        caches = c.run(_worker_cannot_compile, str(tmp_path / "worker-cache"))
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # a fallback to numpy would warn
            spread = integrate_distributed(PENDULUM, "yoshida-4", y0, client=c, chunks=2, **opts)
    assert spread.path == "compiled" and np.array_equal(spread.y, serial.y)
    (cache,) = caches.values()
    assert any(name.endswith(".so") for name in os.listdir(cache))


def test_install_library_refuses_a_foreign_name_or_damaged_bytes(tmp_path, monkeypatch):
    from integrators.compiled import install_library, ship_library

    monkeypatch.setenv("GEOMCHECK_CACHE_DIR", str(tmp_path))
    import hashlib

    data = b"\x7fELF not really"
    good = hashlib.sha256(data).hexdigest()
    with pytest.raises(InvalidArgumentError, match="not the name"):
        install_library("../evil.so", data, good)
    with pytest.raises(InvalidArgumentError, match="SHA-256"):
        install_library("gc_step_" + "0" * 24 + ".so", data + b"!", good)
    path = install_library("gc_step_" + "0" * 24 + ".so", data, good)
    assert os.path.dirname(path) == str(tmp_path) and ship_library(path) == (os.path.basename(path), data, good)
    assert ship_library(str(tmp_path / "other.so")) is None


def _pretend_other_code(on):
    """On a worker: report another code digest (``on``) or the true one again."""
    from geomcheck import provenance

    if on:
        provenance.true_code_digest = provenance.code_digest
        provenance.code_digest = lambda: "0" * 64
    else:
        provenance.code_digest = provenance.true_code_digest


def test_workers_running_other_code_are_refused(client):
    """The same version is not enough: the code itself must be the client's."""
    y0 = np.zeros((4, 2))
    client.run(_pretend_other_code, True)
    try:
        with pytest.raises(InvalidArgumentError, match="2 of 2 Dask worker.*other geomcheck code"):
            integrate_distributed(PENDULUM, "stormer-verlet", y0, client=client, dt=0.1, steps=2)
        with pytest.raises(InvalidArgumentError, match="other geomcheck code"):
            sweep([dict(system=PENDULUM, scheme="stormer-verlet", y0=[1.0, 0.0], dt=0.1, steps=2)], client=client)
    finally:
        client.run(_pretend_other_code, False)
    integrate_distributed(PENDULUM, "stormer-verlet", y0, client=client, dt=0.1, steps=2)


def _count_lowerings(action):
    """On a worker: start counting the steps it lowers, read the count, or stop."""
    import integrators.lower as lower

    if action == "start":
        original = lower.LoweredStep.__init__

        def counting(self, *args, **kwargs):
            lower.lowerings_counted += 1
            original(self, *args, **kwargs)

        lower.lowerings_counted, lower.uncounted_init = 0, original
        lower.LoweredStep.__init__ = counting
        return 0
    count = lower.lowerings_counted
    if action == "stop":
        lower.LoweredStep.__init__ = lower.uncounted_init
    return count


@pytest.mark.parametrize("chunks, lowerings", [(1, 1), (6, 2)])
def test_a_system_shared_by_the_jobs_of_a_sweep_is_lowered_once_per_worker(client, chunks, lowerings):
    """A parameter sweep over one system: each worker process lowers its step once, for all the
    jobs that reach it (one chunk: one worker, one lowering; six tasks: at most one per worker)."""
    osc = ig.HamiltonianSystem(p**2 / 2 + k * q**2 / 2 + q**4 / 7, q, p)   # lowered nowhere yet
    jobs = [dict(system=osc, scheme="rk4", y0=[1.0, 0.0], dt=0.1, steps=3, params={"k": 1.0 + j}) for j in range(6)]
    client.run(_count_lowerings, "start")
    try:
        results = sweep(jobs, client=client, chunks=chunks)
    finally:
        counts = client.run(_count_lowerings, "stop")
    assert 1 <= sum(counts.values()) <= lowerings and max(counts.values()) == 1 and len(results) == 6


def test_a_warning_raised_in_a_sweep_job_reaches_the_caller_naming_the_job(client):
    escape = ig.HamiltonianSystem(p**2 / 2 - q**3 / 3, q, p)
    jobs = [dict(system=escape, scheme="stormer-verlet", y0=[y, 0.0], dt=0.01, steps=400, check_stability=False)
            for y in (0.1, 1.2, 0.2)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = sweep(jobs, client=client, chunks=2)
    named = [w for w in caught if issubclass(w.category, NonFiniteStateWarning)]
    assert len(named) == 1 and "(job 1 of the sweep)" in str(named[0].message)
    assert np.isfinite(results[0].y).all() and not np.isfinite(results[1].y[-1]).all()


def test_auto_is_decided_once_for_the_whole_ensemble(client, monkeypatch):
    """backend="auto" (the default) takes the serial run's path in every chunk: a chunk alone,
    smaller, could be sent to another path by the cost model, and the paths may differ in the
    last bits.  Here the model is made to choose C for this ensemble; the chunks run compiled."""
    import importlib

    from integrators import pipeline

    integrate_module = importlib.import_module("integrators.integrate")   # the package's name is the function
    from integrators.compiled import find_compiler

    if find_compiler() is None:
        pytest.skip("no C compiler")
    y0 = np.column_stack([np.linspace(0.1, 2.5, 64), np.zeros(64)])
    opts = dict(dt=0.05, steps=40, save_every=10)
    assert integrate_module.chosen_backend(PENDULUM, "stormer-verlet", y0, **opts) == "numpy"
    monkeypatch.setattr(integrate_module, "auto_choice", lambda *a: pipeline.AutoChoice("compiled", "forced"))
    assert integrate_module.chosen_backend(PENDULUM, "stormer-verlet", y0, **opts) == "compiled"
    spread = integrate_distributed(PENDULUM, "stormer-verlet", y0, client=client, chunks=3, **opts)
    serial = ig.integrate(PENDULUM, "stormer-verlet", y0, backend="compiled", **opts)
    assert spread.path == "compiled" and np.array_equal(spread.y, serial.y)
    with pytest.raises(InvalidArgumentError, match="unknown option"):
        integrate_module.chosen_backend(PENDULUM, "stormer-verlet", y0, colour="red", **opts)


def test_a_call_scatters_its_data_under_keys_of_its_own(client, monkeypatch):
    """Two calls on the same data scatter it under different keys: with content-hashed keys the second
    call's tasks could ask for data whose release by the first call reaches the scheduler just after
    ("lost dependencies"; it failed a back-to-back pair of calls about once in 60)."""
    scattered = []
    scatter = client.scatter

    def recording(data, **kwargs):
        futures = scatter(data, **kwargs)
        scattered.append({f.key for f in (futures if isinstance(futures, list) else [futures])})
        return futures

    monkeypatch.setattr(client, "scatter", recording)
    y0 = np.column_stack([np.linspace(0.1, 1.0, 8), np.zeros(8)])
    first = integrate_distributed(PENDULUM, "stormer-verlet", y0, client=client, chunks=2, dt=0.1, steps=5)
    keys_first = set().union(*scattered)
    scattered.clear()
    second = integrate_distributed(PENDULUM, "stormer-verlet", y0, client=client, chunks=2, dt=0.1, steps=5)
    assert keys_first and not keys_first & set().union(*scattered)
    assert np.array_equal(first.y, second.y)
