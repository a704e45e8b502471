"""``geomcheck report --out DIR [--profile quick|paper] [--force]``: the main job.

Certifies every scheme of the integrators catalog, typesets the papers' symbolic results
(``geomcheck.structures``), runs every case study, and writes

- ``DIR/report.html``: the whole report in one self-contained page (no TeX, no network);
- ``DIR/report.tex`` and ``DIR/report.pdf`` where pdflatex exists: page 1 is the verdict
  (what was checked, how many hold, what fails, the findings by kind), then the contents,
  the papers' claims (one table per case study), the findings, the papers' theorems, and the
  catalog and every derivation as appendices;
- ``DIR/summary.json`` (the same, machine-readable, with the run time);
- ``DIR/figures/*.png`` and ``*.pdf``.

The report's text depends on nothing but its inputs: two runs write the same report.tex.

Everything is built in a staging directory beside DIR and moved into place only at the
end: an interrupted or failed run leaves no half-written report.  Progress goes to
stderr.  Exit status: 0 when every certificate holds and every check passes, 1 when one
does not, 2 for bad input (an empty DIR name, an existing non-empty DIR without ``--force``,
an unwritable location), 130 when interrupted.

One report at a time is written into a DIR (a second run is refused while the first writes),
and a run killed before it finished is cleaned up by the next one: its staging directory is
removed, an earlier report it had moved aside is put back.  A full disk is a named error
(exit 2), with nothing half-written left.

``--force`` replaces only an earlier report: a directory holding the marker the report writes
(``.geomcheck-report.json``) and nothing but the files it lists; never the current directory,
one of its parents, the home directory or a filesystem root.  Anything else is refused before
any work is done, so a command never deletes what it did not write.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import sys
import tempfile
import time

from .errors import InvalidArgumentError, ReportWriteError
from .files import REPORT_MARKER, STAGING_TAG, creation_mode, replace_problem, unwritable_parent, write_report_marker
from .latex import compile_pdf, pdflatex_available
from . import report_jobs
from .report_html import render_html
from .report_model import CLASSIFICATION, ReportData
from .report_tex import render_tex

__all__ = ["run_report", "output_problem", "REPORT_MARKER", "CLASSIFICATION", "ReportWriteError", "overfull_widths"]


def output_problem(out: str, force: bool):
    """Why the report cannot be written to ``out`` (None when it can); checked first."""
    if not isinstance(out, (str, os.PathLike)) or not str(os.fspath(out)).strip():
        return "an empty directory name; expected the path of a new directory (or of an earlier report)"
    out = os.path.abspath(os.fspath(out))
    if os.path.exists(out) and not os.path.isdir(out):
        return f"{out} exists and is not a directory"
    if os.path.isdir(out) and os.listdir(out):
        if not force:
            return f"{out} exists and is not empty; choose another directory or pass --force to replace it"
        problem = replace_problem(out)
        if problem:
            return f"--force replaces only an earlier geomcheck report: {problem}"
    return unwritable_parent(out)


def run_report(out: str, profile: str = "quick", force: bool = False, stream=None, workers=None,
               scheduler=None) -> int:
    """Write the report to ``out``; returns the exit status (see the module docstring).

    Parameters
    ----------
    out, profile, force
        As for ``geomcheck report``.
    stream : file, optional
        Where the progress goes (default stderr).
    workers : int, optional
        Run the units of work (a catalog scheme, a derivation, a case study) in this many worker
        processes of this machine (None or 1: in this process; ``geomcheck report`` passes one
        per usable core unless told otherwise).
    scheduler : str, optional
        Run them on the Dask scheduler at this address instead.  Either way the report is the
        one a serial run writes, byte for byte (see :mod:`geomcheck.report_jobs`).

    Raises
    ------
    InvalidArgumentError
        ``out`` cannot take the report (see :func:`output_problem`), or bad ``workers`` /
        ``scheduler``; nothing is done.
    MissingDependencyError
        ``scheduler`` without dask.distributed installed.
    WorkerProcessError
        A worker process died (nothing is written).
    """
    stream = sys.stderr if stream is None else stream
    if workers is not None:
        report_jobs.check_workers_count(workers)
    if workers is not None and scheduler is not None:
        raise InvalidArgumentError("give either --workers or --scheduler, not both")
    problem = output_problem(out, force)
    if problem:
        raise InvalidArgumentError(f"cannot write the report to {out!r}: {problem}")
    out = os.path.abspath(out)
    parent = os.path.dirname(out)
    with _exclusive(out):
        _recover(out)
        problem = output_problem(out, force)   # again: the recovery may have put a report back
        if problem:
            raise InvalidArgumentError(f"cannot write the report to {out!r}: {problem}")
        staging = tempfile.mkdtemp(prefix="." + os.path.basename(out) + ".partial-", dir=parent)
        with open(os.path.join(staging, STAGING_TAG), "w", encoding="ascii") as f:
            f.write(str(os.getpid()))
        try:
            with report_jobs.job_runner(workers, scheduler) as client:
                status = _build(staging, profile, stream, client)
            os.remove(os.path.join(staging, STAGING_TAG))
            _install(staging, out)
        except KeyboardInterrupt:
            shutil.rmtree(staging, ignore_errors=True)
            print(f"\ngeomcheck: interrupted; nothing was written to {out}", file=stream)
            return 130
        except OSError as exc:   # a full disk, a vanished directory: nothing half-written stays
            shutil.rmtree(staging, ignore_errors=True)
            raise ReportWriteError(f"the report could not be written ({exc.strerror or exc}); nothing was written to"
                                   f" {out}") from exc
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    print(f"report written to {out}", file=stream)
    return status


@contextlib.contextmanager
def _exclusive(out):
    """One report at a time into ``out``: a second run is refused while the first writes."""
    import fcntl

    lock_path = os.path.join(os.path.dirname(out), "." + os.path.basename(out) + ".lock")
    try:
        with open(lock_path, encoding="ascii", errors="replace") as f:
            held = f.read(64).strip()
    except FileNotFoundError:
        held = ""
    except OSError as exc:
        raise InvalidArgumentError(f"{lock_path} cannot be read ({exc.strerror}); it is not a geomcheck lock") from None
    if held and not held.isdigit():   # a file of the user's under our lock's name: not ours to touch
        raise InvalidArgumentError(f"{lock_path} exists and is not a geomcheck lock (a pid); move it away")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, creation_mode())
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "another process"
            raise InvalidArgumentError(f"another geomcheck report (pid {holder}) is being written to {out}; wait for"
                                       " it or choose another directory") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode("ascii"))
        try:
            yield
        finally:
            os.unlink(lock_path)
    finally:
        os.close(fd)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _recover(out):
    """Clean up after a report run that was killed (SIGKILL, a power cut) before it finished.

    Its staging directories (``.DIR.partial-*``, tagged with the writer's pid) are removed when
    that process is gone; an earlier report moved aside (``.DIR.old-*``) is put back when DIR is
    missing, else removed when it holds nothing but what the report wrote.
    """
    parent, base = os.path.dirname(out), os.path.basename(out)
    for name in os.listdir(parent):
        path = os.path.join(parent, name)
        if name.startswith("." + base + ".partial-") and os.path.isdir(path):
            try:
                with open(os.path.join(path, STAGING_TAG), encoding="ascii") as f:
                    pid = int(f.read().strip())
            except (OSError, ValueError):
                continue        # not tagged by us: not ours to delete
            if not _alive(pid):
                shutil.rmtree(path, ignore_errors=True)
        elif name.startswith("." + base + ".old-") and os.path.isdir(path):
            if not os.path.exists(out):
                os.replace(path, out)
            elif replace_problem(path) is None:
                shutil.rmtree(path, ignore_errors=True)


def _install(staging, out):
    """Move the finished staging directory to ``out`` (replacing an old report, checked again)."""
    os.chmod(staging, creation_mode(directory=True))
    if os.path.isdir(out) and not os.listdir(out):
        os.rmdir(out)
    if os.path.exists(out):
        problem = replace_problem(out)
        if problem:  # it changed while the report ran
            raise InvalidArgumentError(f"the report was not installed at {out}: {problem}")
        old = tempfile.mkdtemp(prefix="." + os.path.basename(out) + ".old-", dir=os.path.dirname(out))
        os.rmdir(old)
        os.replace(out, old)
        os.replace(staging, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(staging, out)


def overfull_widths(log_text: str) -> list:
    """How far (pt) each overfull box of a pdflatex log runs into the margin."""
    import re

    return [float(m) for m in re.findall(r"Overfull \\[hv]box \(([\d.]+)pt too", log_text)]


def _build(root, profile, stream, client=None) -> int:
    figures = os.path.join(root, "figures")
    os.makedirs(figures)
    t_start = time.perf_counter()
    case_jobs = report_jobs.case_jobs(profile)
    catalog_jobs = report_jobs.catalog_jobs()
    bseries_jobs = report_jobs.bseries_jobs()
    structure_jobs = report_jobs.structure_jobs()
    # the long case studies first, so that on workers they do not finish last
    jobs = case_jobs + catalog_jobs + bseries_jobs + structure_jobs
    total = len(jobs) + 1
    results = report_jobs.run_jobs(jobs, stream, client, total=total)
    n_cases, n_catalog, n_bseries = len(case_jobs), len(catalog_jobs), len(bseries_jobs)
    cases = results[:n_cases]
    catalog = results[n_cases:n_cases + n_catalog]
    bseries_rows = results[n_cases + n_catalog:n_cases + n_catalog + n_bseries]
    structures = results[n_cases + n_catalog + n_bseries:]
    data = ReportData(profile)
    summary = {"profile": profile, "catalog": [], "bseries": [], "structures": [], "cases": [], "findings": [],
               "misprints": []}

    for entries in catalog:
        for e in entries:
            data.catalog.append(e)
            summary["catalog"].append({"scheme": e.scheme, "system": e.system, "property": e.prop,
                                       "holds": e.holds, "method": e.method})

    for row in bseries_rows:
        data.bseries.append(row)
        summary["bseries"].append(dataclasses.asdict(row) | {"declared": sorted(row.declared)})

    for entry in structures:
        data.structures.append(entry)
        summary["structures"].append({"title": entry.title, "holds": entry.holds})

    for case, figure_bytes in cases:
        r = report_jobs.install_figures(case, figure_bytes, figures)
        name = r.name
        data.cases.append(r)
        summary["cases"].append(r.to_dict())
        for f in r.findings:
            summary["findings"].append({"case": name, **f.to_dict()})
            if f.is_misprint:
                summary["misprints"].append({"case": name, "where": f.where, "misprint": f.statement, "test": f.test})

    source = render_tex(data, root)
    with open(os.path.join(root, "report.tex"), "w", encoding="utf-8") as f:
        f.write(source)
    with open(os.path.join(root, "report.html"), "w", encoding="utf-8") as f:
        f.write(render_html(data))
    print(f"[{total}/{total}] typeset report.pdf ...", file=stream, flush=True, end="")
    t_pdf = time.perf_counter()
    if pdflatex_available():
        with tempfile.TemporaryDirectory(prefix="geomcheck-report-log-") as tmp:
            log = os.path.join(tmp, "report.log")
            compile_pdf(source, os.path.join(root, "report.pdf"), resources=root, passes=3, log=log)
            with open(log, encoding="latin-1") as f:
                widths = overfull_widths(f.read())
        summary["layout"] = {"overfull_boxes": len(widths), "worst_overfull_pt": max(widths, default=0.0)}
        print(" written" + (f" ({len(widths)} overfull boxes, the worst {max(widths):.0f} pt)" if widths else "")
              + f" ({time.perf_counter() - t_pdf:.1f} s)", file=stream, flush=True)
    else:
        print(" skipped: pdflatex is not installed; report.html has everything (for the PDF, Debian:"
              " apt-get install texlive-latex-base texlive-latex-recommended)", file=stream, flush=True)
    summary["verdict"] = data.verdict()
    summary["passed"] = data.passed
    summary["seconds"] = round(time.perf_counter() - t_start, 2)
    with open(os.path.join(root, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1, default=str)
    write_report_marker(root)
    print(("RESULT: every certificate holds and every check passes" if data.passed
           else "RESULT: NOT every certificate holds / check passes (see summary.json)"), file=stream)
    return 0 if data.passed else 1
