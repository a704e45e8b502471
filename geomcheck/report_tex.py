r"""The report as a LaTeX document: the verdict on page 1, then a table of contents, the papers'
claims (one table per case study), the findings by kind, the papers' theorems, and the catalog
and every derivation as appendices.

Every table column has a fixed width (text wraps inside it), measured numbers are rounded
(:func:`geomcheck.report_model.shown`) and test ids are set with ``\url`` (which breaks at
``/`` and ``::``), so that nothing runs into the margin; derivations are fitted to the line by
:func:`geomcheck.latex.fit_to_width` (their full LaTeX is in report.html).
"""

from __future__ import annotations

import os
import re

from .latex import fit_to_width, tex_text
from .report_model import BSERIES_INTRO, CLASSIFICATION, VERDICT_WORDS, shown

__all__ = ["render_tex", "PREAMBLE"]

PREAMBLE = (
    "\\documentclass[11pt]{article}\n"
    "\\usepackage[a4paper,margin=2cm]{geometry}\n"
    "\\usepackage{amsmath,amssymb,graphicx,longtable,array,url}\n"
    "\\usepackage[hidelinks]{hyperref}\n"
    "\\setlength{\\emergencystretch}{3em}\n"
    "\\newcolumntype{L}[1]{>{\\raggedright\\arraybackslash}p{#1}}\n"
    "\\allowdisplaybreaks\n"
    "\\setcounter{tocdepth}{2}\n"
)


def _esc(s) -> str:
    return tex_text(str(s))


def _cell(s) -> str:
    """Text for a narrow column or a paragraph: escaped, with break points after ``* / , ; =``
    (a long product or a URL has no space where TeX could break it)."""
    return re.sub(r"([*/,;=])", r"\1\\allowbreak{}", tex_text(str(s)))


def _url(test_id) -> str:
    return r"\url{" + "".join(ch for ch in str(test_id) if ch not in "{}%#\\") + "}"


def _label(*parts) -> str:
    return "sec:" + "-".join("".join(ch if ch.isalnum() else "-" for ch in str(p)) for p in parts)


def _verdict(holds) -> str:
    word = VERDICT_WORDS[holds]
    return word if holds is True else r"\textbf{" + word + "}"


def render_tex(data, root) -> str:
    """The whole document for ``data`` (a :class:`~geomcheck.report_model.ReportData`).

    ``root`` is the report directory: figure paths are written relative to it.
    """
    from casestudies import FINDING_KINDS

    t = [PREAMBLE, "\\begin{document}"]

    # ---- page 1: the verdict
    t.append(r"\begin{center}{\LARGE geomcheck report}\\[0.5ex]profile: " + _esc(data.profile) + r"\end{center}")
    t.append(r"\section*{Verdict}")
    t.append(r"\noindent\fbox{\parbox{\dimexpr\textwidth-2\fboxsep-2\fboxrule}{\large\bfseries "
             + _esc(data.verdict()) + "}}")
    t.append(r"\par\medskip\noindent\begin{tabular}{@{}p{9.5cm}rrrr@{}}\hline")
    t.append(r"what was checked & checked & hold & fail & undecided \\ \hline")
    for part, n, ok, bad, unknown in data.parts():
        t.append(f"{_esc(part)} & {n} & {ok} & {bad} & {unknown} \\\\")
    t.append(r"\hline\end{tabular}")
    failures = data.failures()
    if failures:
        t.append(r"\subsection*{What does not hold}")
        t.append(r"\begin{itemize}")
        t += [r"\item " + _esc(line) for line in failures]
        t.append(r"\end{itemize}")
    counts = data.finding_counts()
    t.append(r"\subsection*{The papers, one by one}")
    t.append(r"\noindent\begin{tabular}{@{}p{5.6cm}rrp{5.2cm}r@{}}\hline")
    t.append(r"case study & checks & certificates & findings & page \\ \hline")
    for r in data.cases:
        checks = f"{sum(c.passed for c in r.checks)}/{len(r.checks)}"
        certs = f"{sum(c.holds is True for _, c in r.certificates)}/{len(r.certificates)}"
        kinds = ", ".join(f"{sum(f.kind == k for f in r.findings)} {k}" for k in FINDING_KINDS
                          if any(f.kind == k for f in r.findings)) or "none"
        t.append(f"{_esc(r.name)} & {checks} & {certs} & {_esc(kinds)} & \\pageref{{{_label('case', r.name)}}} \\\\")
    t.append(r"\hline\end{tabular}")
    t.append(r"\subsection*{Findings about the papers}")
    t.append(r"\noindent Section~\ref{sec:findings}, page~\pageref{sec:findings}: "
             + "; ".join(f"{_esc(title)}: {counts[k]}" for k, title in FINDING_KINDS.items())
             + ". Only an error in the paper is called a misprint.")
    t.append(r"\clearpage\tableofcontents\clearpage")

    # ---- the papers' claims
    t.append(r"\section{The papers' claims, measured}\label{sec:claims}")
    for r in data.cases:
        t.append(r"\subsection{" + _esc(r.title) + r"}\label{" + _label("case", r.name) + "}")
        t.append(r"\noindent\textit{" + _esc(r.source) + r"}\par\smallskip")
        t.append(r"\noindent Case study \texttt{" + _esc(r.name) + "}: "
                 + f"{sum(c.passed for c in r.checks)} of {len(r.checks)} checks pass" + r".\par")
        if r.checks:
            t.append(r"\begin{longtable}{@{}L{6.3cm}L{4.7cm}L{3.4cm}L{1.2cm}@{}}\hline")
            t.append(r"claim (source) & measured & expected & verdict \\ \hline\endhead")
            for c in r.checks:
                mark = "pass" if c.passed else r"\textbf{FAIL}"
                t.append(f"{_cell(c.description)} {{\\small({_cell(c.source)})}} & {_cell(shown(c.measured))}"
                         f" & {_cell(c.expected)} & {mark} \\\\")
            t.append(r"\hline\end{longtable}")
        for note in r.notes:
            t.append(r"\noindent " + _cell(shown(note)) + r"\par\smallskip")
        for path in r.figures:
            if path.endswith(".pdf"):
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                t.append(r"\begin{center}\includegraphics[width=0.8\textwidth]{" + rel + r"}\end{center}")

    # ---- findings
    t.append(r"\section{Findings about the papers}\label{sec:findings}")
    t.append(r"\subsection{How we classify findings}")
    t.append(_esc(CLASSIFICATION))
    findings = data.findings()
    for kind, title in FINDING_KINDS.items():
        items = [(name, f) for name, f in findings if f.kind == kind]
        t.append(r"\subsection{Findings: " + _esc(title) + f" ({len(items)})" + "}")
        if not items:
            t.append("None.")
            continue
        t.append(r"\begin{itemize}")
        for name, f in items:
            readings = "".join(r" \emph{Reading:} " + _esc(x) for x in f.readings)
            t.append(r"\item \textbf{" + _esc(name) + ", " + _esc(f.where) + ".} " + _cell(f.statement) + readings
                     + r" (shown by " + _url(f.test) + ")")
        t.append(r"\end{itemize}")

    # ---- the papers' theorems
    if data.structures:
        t.append(r"\section{The papers' theorems, computed}")
        for s in data.structures:
            t.append(r"\subsection{" + _esc(s.title) + f" ({VERDICT_WORDS[s.holds]})" + "}")
            t.append(fit_to_width(s.latex))

    # ---- appendices
    t.append(r"\appendix")
    t.append(r"\section{The integrators catalog, certified}")
    t.append("Every declared property and order of every scheme, certified on a generic system "
             "(an undefined potential: the verdict holds for every smooth potential).")
    t.append(r"\begin{longtable}{@{}p{4.6cm}p{4.4cm}p{4.6cm}l@{}}\hline scheme & system & property & verdict \\"
             r" \hline\endhead")
    t += [f"{_esc(e.scheme)} & {_esc(e.system)} & {_esc(e.prop)} & {_verdict(e.holds)} \\\\" for e in data.catalog]
    t.append(r"\hline\end{longtable}")
    if data.bseries:
        t.append(r"\section{The catalog for every vector field (B-series)}")
        t.append(_esc(BSERIES_INTRO))
        t.append(r"\begin{longtable}{@{}p{3.8cm}lllllll@{}}\hline scheme & trees & order & symm. & sympl."
                 r" & conj.\ to & energy to & agrees \\ \hline\endhead")
        for r in data.bseries:
            if r.skipped:
                t.append(f"{_esc(r.scheme)} & \\multicolumn{{7}}{{p{{9cm}}}}{{{_esc(r.skipped)}}} \\\\")
                continue
            cells = [r.checked_to, r.order, VERDICT_WORDS[r.symmetric], VERDICT_WORDS[r.symplectic],
                     "--" if r.conjugate_symplectic_to is None else r.conjugate_symplectic_to,
                     "--" if r.energy_preserving_to is None else r.energy_preserving_to]
            t.append(f"{_esc(r.scheme)} ({_esc(r.kind)}) & " + " & ".join(_esc(c) for c in cells)
                     + f" & {_verdict(r.agrees)} \\\\")
        t.append(r"\hline\end{longtable}")
    if any(r.certificates or r.derivations for r in data.cases):
        t.append(r"\section{Certificates and derivations of the case studies}")
        for r in data.cases:
            if not (r.certificates or r.derivations):
                continue
            t.append(r"\subsection{" + _esc(r.name) + "}")
            for label, c in r.certificates:
                t.append(r"\subsubsection*{" + _esc(label) + "}\n" + fit_to_width(c.latex()))
            for d in r.derivations:
                t.append(fit_to_width(d.latex()))
    t.append(r"\section{Derivations of the catalog certificates}")
    for e in data.catalog:
        t.append(r"\subsubsection*{" + _esc(e.scheme) + ": " + _esc(e.prop) + "}\n" + fit_to_width(e.latex))
    t.append("\\end{document}\n")
    return "\n".join(t)
