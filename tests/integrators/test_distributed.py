"""integrators.distributed on a LocalCluster of two worker processes: the serial result, bit for bit."""

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
