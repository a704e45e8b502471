"""The main job's units of work, and where they run: in this process, or on Dask workers.

Each unit (certify one catalog scheme, derive one of the papers' results, run one case study)
is a plain function of names that returns plain data, so it can run anywhere: serially here
(``--workers 1``), in worker processes of this machine (``--workers N``; by default one per usable
core, with the standard library's process pool: no Dask needed) or on any Dask scheduler
(``--scheduler ADDRESS``).  The results come back in the order of the jobs, whatever order
they finish in, and every unit is deterministic (the zero test seeds its points from the
expression, and the exact stage stops at a limit in work units, not seconds), so the report
written from them is the same, byte for byte, wherever the units ran.  A case study's figures
are written on the worker into a private directory and travel back as bytes: the workers need
no file system shared with the client.  Workers that run other code than the client are refused
(:func:`geomcheck.provenance.check_workers`).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import multiprocessing
import os
import shutil
import tempfile
import time

from .errors import InvalidArgumentError, WorkerProcessError, import_optional
from .provenance import check_workers
from .report_model import VERDICT_WORDS, CatalogEntry, StructureEntry

#: how long to wait for a Dask scheduler to answer
SCHEDULER_TIMEOUT = "20s"

__all__ = ["Job", "catalog_jobs", "bseries_jobs", "structure_jobs", "case_jobs", "run_jobs", "dask_client",
           "usable_cores", "default_workers", "check_workers_count", "job_runner",
           "certify_scheme", "bseries_row", "derive_structure", "run_case", "install_figures"]


@dataclasses.dataclass(frozen=True)
class Job:
    """One unit of work: ``function(*args)`` returns ``(result, verdict words)``."""

    label: str
    function: object
    args: tuple


# ----------------------------------------------------------------------------- the units


def certify_scheme(name: str, system_name: str):
    """Every declared property (and the order) of one catalog scheme: ``([CatalogEntry], verdicts)``."""
    import integrators as ig

    s = ig.scheme(name)
    certs = s.certify(ig.example_system(system_name))
    entries = []
    for prop, c in certs.items():
        label = f"order {s.order}" if prop == "order" else prop
        entries.append(CatalogEntry(name, system_name, label, c.holds, c.method, c.latex()))
    return entries, ", ".join(sorted({c.verdict() for c in certs.values()}))


def bseries_row(name: str):
    """One B-series scheme of the catalog read for every vector field: ``(BSeriesProperties, verdict)``."""
    from integrators.bseries_table import bseries_properties

    row = bseries_properties(name)
    if row.skipped:
        words = "not expanded"
    else:
        words = {True: "agrees", False: "DISAGREES", None: "undecided"}[row.agrees]
    return row, words


def _showcase():
    from .structures.showcase import showcase

    return showcase()


def derive_structure(index: int):
    """The ``index``-th of the papers' symbolic results: ``(StructureEntry, verdict)``."""
    title, build = _showcase()[index]
    item = build()
    holds = getattr(item, "holds", True)
    return StructureEntry(title, holds, item.latex()), VERDICT_WORDS[holds]


def run_case(name: str, profile: str):
    """One case study, its figures as bytes: ``((CaseResult, {file name: bytes}), verdict)``."""
    import casestudies

    scratch = tempfile.mkdtemp(prefix=f"geomcheck-{name}-")
    try:
        r = casestudies.run(name, profile, out=scratch)
        figures = {}
        for path in r.figures:
            with open(path, "rb") as f:
                figures[os.path.basename(path)] = f.read()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return (r, figures), "pass" if r.passed else "FAIL"


def install_figures(case, figures: dict, directory: str):
    """Write a case study's figures into ``directory``; the result with the paths there."""
    paths = []
    for name, data in figures.items():
        # the names come from a worker, maybe another machine: a plain file name in ``directory``
        if not isinstance(name, str) or name in ("", ".", "..") or os.path.basename(name) != name \
                or (os.altsep and os.altsep in name):
            raise InvalidArgumentError(f"a worker sent back a figure named {name!r}; expected a plain file name")
        path = os.path.join(directory, name)
        with open(path, "wb") as f:
            f.write(data)
        paths.append(path)
    return dataclasses.replace(case, figures=paths)


def catalog_jobs() -> list:
    import integrators as ig
    from integrators.examples import default_example_for

    jobs = []
    for name in ig.list_schemes():
        system_name = default_example_for(ig.scheme(name))
        jobs.append(Job(f"certify {name} on {system_name}", certify_scheme, (name, system_name)))
    return jobs


def bseries_jobs() -> list:
    from integrators.bseries_table import bseries_scheme_names

    return [Job(f"B-series of {name} (every f)", bseries_row, (name,)) for name in bseries_scheme_names()]


def structure_jobs() -> list:
    return [Job(f"derive {title}", derive_structure, (k,)) for k, (title, _build) in enumerate(_showcase())]


def case_jobs(profile: str) -> list:
    import casestudies

    return [Job(f"case study {name} ({profile})", run_case, (name, profile)) for name in casestudies.names()]


# ----------------------------------------------------------------------------- where they run


def _dask():
    return import_optional("dask.distributed", "distributed", "running on Dask workers")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:          # not on Linux
        return max(1, os.cpu_count() or 1)


def default_workers() -> int:
    """The worker processes of ``geomcheck report`` and ``certify --all`` when none are asked for:
    one per usable core (1 runs the units in this process)."""
    return usable_cores()


def check_workers_count(workers) -> int:
    """``workers`` as an int from 1 to 1024, or :class:`InvalidArgumentError`."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 1024:
        raise InvalidArgumentError(f"the number of workers must be an integer from 1 to 1024, got {workers!r}")
    return workers


@contextlib.contextmanager
def job_runner(workers=None, scheduler=None):
    """Where :func:`run_jobs` runs the units: ``None`` (here: neither given, or ``workers=1``), a
    pool of ``workers`` fresh processes of this machine (``spawn``: each imports the packages as a
    new interpreter does, so no state of this process leaks into a result), or a Dask client of
    the scheduler at ``scheduler``."""
    if workers is not None and scheduler is not None:
        raise InvalidArgumentError("give either a number of local workers or a scheduler address, not both")
    if scheduler is not None:
        with dask_client(None, scheduler) as client:
            yield client
        return
    if workers is None or check_workers_count(workers) == 1:
        yield None
        return
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers,
                                                  mp_context=multiprocessing.get_context("spawn"))
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


@contextlib.contextmanager
def dask_client(workers=None, scheduler=None):
    """A Dask client: ``None`` for neither (run here), a ``LocalCluster`` of ``workers`` processes,
    or the scheduler at ``scheduler`` (``"tcp://host:8786"``)."""
    if workers is None and scheduler is None:
        yield None
        return
    if workers is not None and scheduler is not None:
        raise InvalidArgumentError("give either a number of local workers or a scheduler address, not both")
    dd = _dask()
    if scheduler is not None:
        if not isinstance(scheduler, str) or not scheduler.strip():
            raise InvalidArgumentError(f"a scheduler address such as tcp://host:8786 was expected, got {scheduler!r}")
        try:
            client = dd.Client(scheduler, timeout=SCHEDULER_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise InvalidArgumentError(f"no Dask scheduler answered at {scheduler}: {exc}") from None
        with client:
            yield client
        return
    check_workers_count(workers)
    with dd.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                         silence_logs=40) as cluster, dd.Client(cluster) as client:
        yield client


def _timed(function, args):
    start = time.perf_counter()
    result, verdict = function(*args)
    return result, verdict, time.perf_counter() - start


def run_jobs(jobs, stream, client=None, first=1, total=None) -> list:
    """Run ``jobs``; their results in order.  Each prints ``[k/N] label ... verdict (seconds)``
    to ``stream`` as it finishes (in completion order on workers).  ``client``: None (here), a
    :class:`concurrent.futures.Executor` or a Dask client (see :func:`job_runner`).
    ``first``/``total`` number the lines within a longer run."""
    total = len(jobs) if total is None else total
    results = [None] * len(jobs)
    if client is None:
        for k, job in enumerate(jobs):
            print(f"[{first + k}/{total}] {job.label} ...", file=stream, flush=True, end="")
            start = time.perf_counter()
            results[k], verdict = job.function(*job.args)
            print(f" {verdict} ({time.perf_counter() - start:.1f} s)", file=stream, flush=True)
        return results
    if isinstance(client, concurrent.futures.Executor):
        futures = {client.submit(_timed, job.function, job.args): k for k, job in enumerate(jobs)}
        completed = concurrent.futures.as_completed(list(futures))
    else:
        dd = _dask()
        check_workers(client)
        futures = {client.submit(_timed, job.function, job.args, pure=False): k for k, job in enumerate(jobs)}
        completed = dd.as_completed(list(futures))
    for done, future in enumerate(completed):
        k = futures[future]
        try:
            result, verdict, seconds = future.result()
        except concurrent.futures.process.BrokenProcessPool as exc:
            raise WorkerProcessError(f"a worker process died while running {jobs[k].label!r} (out of memory, or"
                                     f" killed); run with --workers 1 to see it fail here") from exc
        results[k] = result
        print(f"[{first + done}/{total}] {jobs[k].label} ... {verdict} ({seconds:.1f} s on a worker)", file=stream,
              flush=True)
    return results
