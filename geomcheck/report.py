"""``geomcheck report --out DIR [--profile quick|paper] [--force]``: the main job.

Certifies every scheme of the integrators catalog, typesets the papers' symbolic results
(``geomcheck.structures``), runs every case study, and writes

- ``DIR/report.tex`` (derivations, figures, and a table of every claim: the paper's
  statement, our measurement, pass/fail, source) and ``DIR/report.pdf`` where pdflatex exists,
- ``DIR/summary.json`` (the same, machine-readable),
- ``DIR/figures/*.png`` and ``*.pdf``.

Everything is built in a staging directory beside DIR and moved into place only at the
end: an interrupted or failed run leaves no half-written report.  Progress goes to
stderr.  Exit status: 0 when every certificate holds and every check passes, 1 when one
does not, 2 for bad input (an existing non-empty DIR without ``--force``, an unwritable
location), 130 when interrupted.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time

from .certify.certificate import _tex_text
from .latex import compile_pdf, pdflatex_available

__all__ = ["run_report", "output_problem"]


def output_problem(out: str, force: bool):
    """Why the report cannot be written to ``out`` (None when it can); checked first."""
    out = os.path.abspath(out)
    if os.path.exists(out) and not os.path.isdir(out):
        return f"{out} exists and is not a directory"
    if os.path.isdir(out) and os.listdir(out) and not force:
        return f"{out} exists and is not empty; choose another directory or pass --force to replace it"
    from .cli import unwritable_parent

    return unwritable_parent(out)


class _Progress:
    def __init__(self, total, stream):
        self.total, self.k, self.stream, self.t0 = total, 0, stream, time.perf_counter()

    def step(self, what):
        self.k += 1
        print(f"[{self.k}/{self.total}] {what} ...", file=self.stream, flush=True, end="")
        self.t = time.perf_counter()

    def done(self, verdict):
        print(f" {verdict} ({time.perf_counter() - self.t:.1f} s)", file=self.stream, flush=True)


def _catalog_jobs():
    import integrators as ig
    from integrators.examples import default_example_for

    jobs = []
    for name in ig.list_schemes():
        s = ig.scheme(name)
        jobs.append((name, s, default_example_for(s)))
    return jobs


def _structure_jobs():
    try:
        from .structures.showcase import showcase
    except ImportError:  # pragma: no cover - the showcase is part of the package
        return []
    return showcase()


def _case_jobs():
    import casestudies

    return casestudies.names()


def _esc(s) -> str:
    return _tex_text(str(s))


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def _verdict_tex(holds) -> str:
    return {True: "holds", False: r"\textbf{fails}", None: r"\textbf{undecided}"}[holds]


def run_report(out: str, profile: str = "quick", force: bool = False, stream=None) -> int:
    """Write the report to ``out``; returns the exit status (see the module docstring)."""
    stream = sys.stderr if stream is None else stream
    out = os.path.abspath(out)
    parent = os.path.dirname(out)
    staging = tempfile.mkdtemp(prefix="." + os.path.basename(out) + ".partial-", dir=parent)
    try:
        status = _build(staging, profile, stream)
        _install(staging, out)
    except KeyboardInterrupt:
        shutil.rmtree(staging, ignore_errors=True)
        print(f"\ngeomcheck: interrupted; nothing was written to {out}", file=stream)
        return 130
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    print(f"report written to {out}", file=stream)
    return status


def _install(staging, out):
    """Move the finished staging directory to ``out`` (replacing an old report)."""
    os.chmod(staging, 0o755)
    if os.path.exists(out):
        old = tempfile.mkdtemp(prefix="." + os.path.basename(out) + ".old-", dir=os.path.dirname(out))
        os.rmdir(old)
        os.replace(out, old)
        os.replace(staging, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(staging, out)


def _build(root, profile, stream) -> int:
    import casestudies

    figures = os.path.join(root, "figures")
    os.makedirs(figures)
    t_start = time.perf_counter()
    catalog = _catalog_jobs()
    structures = _structure_jobs()
    cases = _case_jobs()
    progress = _Progress(len(catalog) + len(structures) + len(cases) + 1, stream)
    summary = {"profile": profile, "catalog": [], "structures": [], "cases": [], "misprints": [],
               "disagreements": []}
    tex = [r"\section*{geomcheck report (profile: " + profile + ")}"]
    ok = True

    # --- the catalog
    import integrators as ig

    rows, certs_tex = [], []
    for name, s, system_name in catalog:
        progress.step(f"certify {name} on {system_name}")
        certs = s.certify(ig.example_system(system_name))
        verdicts = []
        for prop, c in certs.items():
            ok &= c.holds is True
            label = f"order {s.order}" if prop == "order" else prop
            rows.append(f"{_esc(name)} & {_esc(system_name)} & {_esc(label)} & {_verdict_tex(c.holds)} \\\\")
            certs_tex.append(r"\subsubsection*{" + _esc(name) + ": " + _esc(label) + "}\n" + c.latex())
            summary["catalog"].append({"scheme": name, "system": system_name, "property": label,
                                       "holds": c.holds, "method": c.method})
            verdicts.append(c.verdict())
        progress.done(", ".join(sorted(set(verdicts))))
    tex.append(r"\subsection*{The integrators catalog, certified}")
    tex.append("Every declared property and order of every scheme, certified on a generic system "
               "(an undefined potential: the verdict holds for every smooth potential).")
    tex.append(r"\begin{longtable}{llll}\hline scheme & system & property & verdict \\ \hline\endhead")
    tex.extend(rows)
    tex.append(r"\hline\end{longtable}")

    # --- the papers' symbolic results
    if structures:
        tex.append(r"\subsection*{The papers' theorems, computed}")
    for title, build in structures:
        progress.step(f"derive {title}")
        item = build()
        holds = getattr(item, "holds", True)
        ok &= holds is True
        tex.append(r"\subsubsection*{" + _esc(title) + "}")
        tex.append(item.latex())
        summary["structures"].append({"title": title, "holds": holds})
        progress.done({True: "holds", False: "fails", None: "undecided"}[holds])

    # --- the case studies
    claims = []
    for name in cases:
        progress.step(f"case study {name} ({profile})")
        r = casestudies.run(name, profile, out=figures)
        ok &= r.passed
        summary["cases"].append(r.to_dict())
        for c in r.checks:
            mark = "pass" if c.passed else r"\textbf{FAIL}"
            claims.append(f"{_esc(name)} & {_esc(c.description)} & {_esc(_fmt(c.measured))} & {_esc(c.expected)}"
                          f" & {mark} & {_esc(c.source)} \\\\")
        for m, t in r.misprints:
            summary["misprints"].append({"case": name, "misprint": m, "test": t})
        for d, t in r.disagreements:
            summary["disagreements"].append({"case": name, "disagreement": d, "test": t})
        tex.append(r"\subsection*{" + _esc(r.title) + "}")
        tex.append(_esc(r.source) + r"\par")
        for note in r.notes:
            tex.append(_esc(note) + r"\par")
        for path in r.figures:
            if path.endswith(".pdf"):
                rel = os.path.relpath(path, root)
                tex.append(r"\begin{center}\includegraphics[width=0.8\textwidth]{" + rel + r"}\end{center}")
        for label, c in r.certificates:
            tex.append(r"\subsubsection*{" + _esc(label) + "}\n" + c.latex())
        for d in r.derivations:
            tex.append(d.latex())
        progress.done("pass" if r.passed else "FAIL")

    if claims:
        tex.append(r"\subsection*{Every claim: the paper's statement and our measurement}")
        tex.append(r"\begin{longtable}{p{2.2cm}p{4.2cm}p{1.6cm}p{2cm}lp{2cm}}\hline case & claim & measured"
                   r" & expected & & source \\ \hline\endhead")
        tex.extend(claims)
        tex.append(r"\hline\end{longtable}")
    for key, heading in (("misprints", "Misprints found in the papers"),
                         ("disagreements", "Claims that do not hold as stated (what holds instead)")):
        if not summary[key]:
            continue
        tex.append(r"\subsection*{" + heading + "}")
        tex.append(r"\begin{itemize}")
        for m in summary[key]:
            # \url breaks long test ids at / and :: (a \texttt one runs into the margin)
            test_id = "".join(ch for ch in str(m["test"]) if ch not in "{}%#\\")
            tex.append(r"\item " + _esc(m[key[:-1]]) + r" (shown by \url{" + test_id + "})")
        tex.append(r"\end{itemize}")
    tex.append(r"\subsection*{Derivations of the catalog certificates}")
    tex.extend(certs_tex)

    source = (
        "\\documentclass{article}\n\\usepackage{amsmath,amssymb,graphicx,longtable,url}\n"
        "\\usepackage[margin=2cm]{geometry}\n\\begin{document}\n" + "\n".join(tex) + "\n\\end{document}\n"
    )
    with open(os.path.join(root, "report.tex"), "w", encoding="utf-8") as f:
        f.write(source)
    progress.step("typeset report.pdf")
    if pdflatex_available():
        compile_pdf(source, os.path.join(root, "report.pdf"), resources=root)
        progress.done("written")
    else:
        progress.done("skipped: pdflatex not installed (report.tex is complete)")
    summary["passed"] = bool(ok)
    summary["seconds"] = round(time.perf_counter() - t_start, 2)
    with open(os.path.join(root, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1, default=str)
    print(("RESULT: every certificate holds and every check passes" if ok
           else "RESULT: NOT every certificate holds / check passes (see summary.json)"), file=stream)
    return 0 if ok else 1
