"""``geomcheck certify SCHEME [--system NAME] [--latex FILE]``: certify one catalog scheme.

Every declared property of the scheme (and its order) is certified on the named example
system (default: the generic system of the kind the scheme needs, so the verdict holds
for every smooth potential), printed as a table, and optionally written as one LaTeX
document of the derivations (atomically: a failed run leaves no file behind).

``geomcheck certify --all [--workers N | --scheduler ADDRESS] [--latex FILE]`` does the same
for every scheme of the catalog, each on its default system, in worker processes of this
machine (by default one per usable core; ``--workers 1`` runs here) or on Dask workers (the
same verdicts and derivations either way; see :mod:`geomcheck.report_jobs`).
"""

from __future__ import annotations

import sys
import time

from . import report_jobs
from .files import write_text_atomically
from .latex import document
from .report_model import VERDICT_WORDS

__all__ = ["run_certify", "run_certify_all"]


def run_certify(scheme_name, system_name=None, latex_file=None, out=None) -> int:
    """Certify ``scheme_name`` on an example system; 0 if every claim holds, else 1.

    Unknown names raise :class:`integrators.errors.UnknownNameError` (the caller turns
    it into exit status 2 with the message).
    """
    import integrators as ig
    from integrators.examples import default_example_for, describe_example

    out = sys.stdout if out is None else out
    s = ig.scheme(scheme_name)
    if system_name is None:
        system_name = default_example_for(s)
    system = ig.example_system(system_name)
    s.check_applies(system)
    print(f"scheme {s.name} (declared order {s.order}; properties: "
          f"{', '.join(sorted(s.properties)) or 'none'})", file=out)
    print(f"on {system_name}: {describe_example(system_name)}", file=out)
    rows = []
    certificates = []
    t0 = time.perf_counter()
    for prop in ["order", *sorted(s.properties)]:
        t = time.perf_counter()
        cert = s.certify(system, properties=[prop]).get(prop)
        if cert is None:
            continue
        dt = time.perf_counter() - t
        label = f"order {s.order}" if prop == "order" else prop
        rows.append((label, cert.verdict(), f"{dt:.2f} s", cert.method))
        certificates.append((label, cert))
    width = max(len(r[0]) for r in rows) if rows else 10
    for label, verdict, dt, method in rows:
        print(f"  {label:<{width}}  {verdict:<9}  {dt:>8}  {method}", file=out)
    ok = all(c.holds is True for _, c in certificates)
    total = time.perf_counter() - t0
    if latex_file:
        body = [r"\section*{" + s.name + " on " + system_name.replace("_", r"\_") + "}"]
        for label, cert in certificates:
            body.append(r"\subsection*{" + label + "}")
            body.append(cert.latex())
        write_text_atomically(latex_file, document("\n".join(body)))
        print(f"derivations written to {latex_file}", file=out)
    verdict = "every claim holds" if ok else "NOT every claim holds"
    print(f"RESULT: {verdict} ({total:.2f} s)", file=out)
    return 0 if ok else 1


def run_certify_all(latex_file=None, out=None, workers=None, scheduler=None, stream=None) -> int:
    """Certify every catalog scheme on its default system; 0 if every claim holds, else 1.

    ``workers`` runs the schemes in that many worker processes of this machine (None or 1: here),
    ``scheduler`` on the Dask scheduler at that address; progress goes to ``stream`` (stderr),
    the table to ``out`` (stdout).
    """
    out = sys.stdout if out is None else out
    stream = sys.stderr if stream is None else stream
    t0 = time.perf_counter()
    jobs = report_jobs.catalog_jobs()
    with report_jobs.job_runner(workers, scheduler) as client:
        results = report_jobs.run_jobs(jobs, stream, client)
    entries = [e for group in results for e in group]
    width = max((len(e.scheme) + len(e.prop) + 2 for e in entries), default=10)
    for e in entries:
        print(f"  {e.scheme + ': ' + e.prop:<{width}}  {VERDICT_WORDS[e.holds]:<9}  {e.method}", file=out)
    failing = [e for e in entries if e.holds is not True]
    if latex_file:
        body = []
        for e in entries:
            body.append(r"\section*{" + e.scheme + " on " + e.system.replace("_", r"\_") + ": " + e.prop + "}")
            body.append(e.latex)
        write_text_atomically(latex_file, document("\n".join(body)))
        print(f"derivations written to {latex_file}", file=out)
    total = time.perf_counter() - t0
    print(f"RESULT: {len(entries) - len(failing)} of {len(entries)} claims of {len(jobs)} schemes hold"
          + ("" if not failing else "; NOT: " + ", ".join(f"{e.scheme} {e.prop}" for e in failing))
          + f" ({total:.1f} s)", file=out)
    return 0 if not failing else 1
