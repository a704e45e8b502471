"""Scale out on Dask: an ensemble split along its batch axis, and sweeps over systems and options.

Both run on any ``dask.distributed`` client (a ``LocalCluster`` on this machine, or a scheduler
address of a cluster) and give what the serial run gives, bit for bit: every trajectory of an
ensemble is computed by the same operations whichever chunk it is in.  The system and scheme
are shipped to the workers once (scattered), not with every task; each worker lowers the step
once and reuses it for all its chunks (the lowering is memoized per process).  For
``backend="compiled"`` the C library is built once, on the client, and installed into every
worker's cache (checked against its SHA-256; a worker uses it only under the key it computes
itself, so a different compiler or architecture compiles its own).  ``progress=True`` shows
Dask's progress bar (on stderr; by default when stderr is a terminal).

Dask is an optional dependency (``pip install 'geomcheck[distributed]'``); without it these
functions raise :class:`geomcheck.errors.MissingDependencyError` naming the extra.

>>> import numpy as np, sympy, integrators as ig
>>> from integrators.distributed import integrate_distributed
>>> q, p = sympy.symbols("q p")
>>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
>>> y0 = np.column_stack([np.linspace(0.1, 2.0, 40), np.zeros(40)])
>>> from dask.distributed import Client, LocalCluster
>>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as cluster, Client(cluster) as client:
...     sol = integrate_distributed(pendulum, "stormer-verlet", y0, client=client, dt=0.1, steps=100, chunks=4)
>>> serial = ig.integrate(pendulum, "stormer-verlet", y0, dt=0.1, steps=100)
>>> bool(np.array_equal(sol.y, serial.y))
True
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from geomcheck.errors import InvalidArgumentError, import_optional
from geomcheck.provenance import check_workers

from .compiled import install_library, ship_library
from .catalog import scheme as catalog_scheme
from .integrate import Solution, chosen_backend, integrate
from .newton import NewtonRecord

if TYPE_CHECKING:
    from dask.distributed import Client
    from numpy.typing import ArrayLike

    from .schemes.base import Scheme
    from .systems import System

__all__ = ["integrate_distributed", "sweep"]


def _dask():
    return import_optional("dask.distributed", "distributed", "scaling out")


def _check_client(client):
    dd = _dask()
    if not isinstance(client, dd.Client):
        raise InvalidArgumentError(f"client must be a dask.distributed.Client, got {type(client).__name__} {client!r}"
                                   " (for this machine: Client(LocalCluster()))")
    check_workers(client)   # a worker running other code would not give the serial result
    return client


def _progress_flag(progress) -> bool:
    """Whether to show the bar: ``None`` shows it when stderr is a terminal."""
    if progress is None:
        isatty = getattr(sys.stderr, "isatty", None)
        return bool(isatty and isatty())
    if not isinstance(progress, (bool, np.bool_)):
        raise InvalidArgumentError(f"progress must be True, False or None, got {progress!r}")
    return bool(progress)


def _show_progress(futures, progress: bool):
    """Dask's own progress bar over ``futures``, on stderr."""
    if progress:
        with contextlib.redirect_stdout(sys.stderr):   # Dask's text bar writes to stdout
            _dask().progress(futures, notebook=False)
            sys.stderr.write("\n")


def _ship_compiled(client, probe):
    """Install the library the client built for ``probe`` into every worker's cache."""
    if getattr(probe, "path", None) != "compiled":
        return
    shipped = ship_library(probe.path_note)
    if shipped is not None:
        client.run(install_library, *shipped)


def _run_chunk(system, scheme, y0, options):
    """One chunk on a worker: the solution and the warnings it raised (they are re-raised by the caller)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sol = integrate(system, scheme, y0, **options)
    return sol.without_system(), [(w.category, str(w.message)) for w in caught]


def integrate_distributed(system: System, scheme: str | Scheme, y0: ArrayLike, *, client: Client,
                          chunks: int | None = None, **options: Any) -> Solution:
    """:func:`integrators.integrate` of an ensemble, its batch split into chunks run on Dask workers.

    Parameters
    ----------
    system, scheme, y0
        As for :func:`integrators.integrate`; ``y0`` of shape ``(batch, dim)``.
    client : dask.distributed.Client
    chunks : int, optional
        How many pieces the batch is cut into (default: twice the number of workers, at most
        the batch size).
    **options
        Every other option of :func:`integrators.integrate` (``dt``, ``steps``, ``backend``, ...);
        ``progress`` is Dask's progress bar over the chunks.  Not ``observe``: what it returns has
        no batch axis this function could join the chunks along (observe the serial run, or
        reduce the returned states).

    Returns
    -------
    Solution
        The same as the serial run's, bit for bit.  A warning raised on a worker (a trajectory
        that left the finite domain, say) is raised again here, naming the chunk's trajectories.

    Raises
    ------
    InvalidArgumentError, ShapeError, and whatever :func:`integrate` raises on bad input
    (checked on the first chunk before the others are sent).
    """
    if options.get("observe") is not None:
        raise InvalidArgumentError("integrate_distributed does not take observe=: the chunks' observations could not"
                                   " be joined (their batch axis is the observe function's own); observe a serial"
                                   " run, or reduce the states of the returned Solution")
    client = _check_client(client)
    batch = np.asarray(y0, dtype=object)
    if batch.ndim != 2 or batch.shape[0] == 0:
        raise InvalidArgumentError(f"integrate_distributed takes an ensemble: y0 of shape (batch, dim), got shape"
                                   f" {batch.shape}")
    n = batch.shape[0]
    if chunks is None:
        chunks = 2 * max(1, len(client.scheduler_info().get("workers", {})))
    if isinstance(chunks, bool) or not isinstance(chunks, (int, np.integer)) or chunks < 1:
        raise InvalidArgumentError(f"chunks must be a positive integer, got {chunks!r}")
    bounds = np.linspace(0, n, min(int(chunks), n) + 1).round().astype(int)
    pieces = [np.asarray(y0)[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    progress = _progress_flag(options.pop("progress", None))
    if options.get("backend", "auto") == "auto":
        # the serial run's choice for the whole ensemble, so that every chunk takes the same path as it
        # (a chunk alone might choose otherwise, and the two paths may differ in the last bits)
        options["backend"] = chosen_backend(system, scheme, y0, **options)
    # bad input is refused here, before anything is shipped (the same checks as every chunk's);
    # for the compiled backend this also builds the library the workers are sent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a chunk's run warns again, naming its trajectories
        probe = integrate(system, scheme, pieces[0][:1], **{**options, "steps": 0, "progress": False})
    _ship_compiled(client, probe)
    # hash=False: keys of this call's own (content-hashed keys are shared with an earlier call on
    # the same data, whose release can reach the scheduler after this call's tasks ask for them:
    # "lost dependencies")
    shared_system, shared_scheme = client.scatter([system, scheme], broadcast=True, hash=False)
    options = {**options, "progress": False}
    # the chunks travel as data, not inside the task graph (a large graph is slow to ship)
    shipped = client.scatter(pieces, hash=False)
    futures = [client.submit(_run_chunk, shared_system, shared_scheme, piece, options, pure=False) for piece in shipped]
    _show_progress(futures, progress)
    results = client.gather(futures)
    for (a, b), (_, caught) in zip(zip(bounds[:-1], bounds[1:]), results):
        for category, message in caught:
            warnings.warn(category(f"(trajectories {a}..{b - 1} of the ensemble, numbered from 0 in this chunk)"
                                   f" {message}"), stacklevel=2)
    # only the arrays came back: the solutions get the caller's own system and scheme
    parts = [Solution.with_system(data, system, catalog_scheme(scheme)) for data, _ in results]
    first = parts[0]
    y = np.concatenate([part.y for part in parts], axis=1)
    sol = Solution(first.t, y, system, first.scheme, first.backend, first.dps, first.dt, first.steps,
                   first.save_every, first.parameters, False, newton=NewtonRecord.summed([p.newton for p in parts]))
    results = [(part, caught) for part, (_, caught) in zip(parts, results)]
    paths = {getattr(s, "path", None) for s, _ in results}
    if paths == {"compiled"}:
        sol.path, sol.path_note = "compiled", first.path_note
    elif "numpy" in paths:   # a chunk fell back (its warning was raised above)
        sol.path, sol.path_note = "numpy", next(s.path_note for s, _ in results if getattr(s, "path", None) == "numpy")
    return sol


def _run_jobs(jobs):
    out = []
    for job in jobs:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sol = integrate(**{**job, "progress": False})
        out.append((sol.without_system(), [(w.category, str(w.message)) for w in caught]))
    return out


def sweep(jobs: Iterable[Mapping[str, Any]], *, client: Client, chunks: int | None = None,
          progress: bool | None = None) -> list[Solution]:
    """Run many :func:`integrators.integrate` calls on Dask workers: a sweep over systems,
    parameters, step sizes or schemes.

    Parameters
    ----------
    jobs : sequence of dict
        The keyword arguments of each call (``system``, ``scheme``, ``y0``, ``dt``, ...).
    client : dask.distributed.Client
    chunks : int, optional
        How many tasks the jobs are grouped into (default: four per worker, at most one per
        job): a task per job would pay Dask's per-task cost for every small run, and a system
        shared by several jobs of a chunk is shipped and lowered once for them.
    progress : None, True or False
        Dask's progress bar over the tasks, on stderr (``None``: when stderr is a terminal).

    Returns
    -------
    list of Solution
        In the order of ``jobs``, each the same as the serial call's.

    >>> import sympy, integrators as ig
    >>> from dask.distributed import Client, LocalCluster
    >>> q, p, k = sympy.symbols("q p k")
    >>> osc = ig.HamiltonianSystem(p**2 / 2 + k * q**2 / 2, q, p)
    >>> jobs = [dict(system=osc, scheme="stormer-verlet", y0=[1.0, 0.0], dt=0.1, steps=10, params={"k": kv})
    ...         for kv in (1.0, 2.0, 4.0)]
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as cluster, Client(cluster) as client:
    ...     sols = sweep(jobs, client=client)
    >>> [round(float(s.y[-1][0]), 6) for s in sols] == [round(float(ig.integrate(**j).y[-1][0]), 6) for j in jobs]
    True
    """
    client = _check_client(client)
    jobs = list(jobs)
    for i, job in enumerate(jobs):
        if not isinstance(job, dict) or not {"system", "scheme", "y0"} <= set(job):
            raise InvalidArgumentError(f"job {i}: expected a dict of integrate()'s arguments with system, scheme and"
                                       f" y0, got {job!r}")
    progress = _progress_flag(progress)
    if not jobs:
        return []
    if chunks is None:
        chunks = 4 * max(1, len(client.scheduler_info().get("workers", {})))
    if isinstance(chunks, bool) or not isinstance(chunks, (int, np.integer)) or chunks < 1:
        raise InvalidArgumentError(f"chunks must be a positive integer, got {chunks!r}")
    # contiguous groups: neighbouring jobs of a sweep often share their system
    bounds = np.linspace(0, len(jobs), min(int(chunks), len(jobs)) + 1).round().astype(int)
    futures = client.map(_run_jobs, [jobs[a:b] for a, b in zip(bounds[:-1], bounds[1:])], pure=False)
    _show_progress(futures, progress)
    done = [d for group in client.gather(futures) for d in group]
    for i, (_, caught) in enumerate(done):
        for category, message in caught:   # raised on a worker: raised again here, naming the job
            warnings.warn(category(f"(job {i} of the sweep) {message}"), stacklevel=2)
    return [Solution.with_system(d, job["system"], catalog_scheme(job["scheme"])) for (d, _), job in zip(done, jobs)]
