"""The report as one self-contained HTML page: readable in any browser, with no TeX and no network.

The same structure as the PDF (:mod:`geomcheck.report_tex`): the verdict first (a coloured box
at the top of the page, :data:`VERDICT_COLOURS`), a table of contents, the papers' claims, the
findings by kind, the papers' theorems, and the catalog and the derivations (their LaTeX
source, folded) as appendices.  Figures are embedded as PNG data, so the file can be mailed or
archived alone.
"""

from __future__ import annotations

import base64
import html
import os

from .report_model import BSERIES_INTRO, CLASSIFICATION, VERDICT_WORDS, shown

__all__ = ["render_html", "VERDICT_COLOURS"]

#: the verdict box's background: green when every result holds, red otherwise
VERDICT_COLOURS = {True: "#1b7f3b", False: "#b00020"}

_CSS = """
body { font-family: Georgia, 'DejaVu Serif', serif; max-width: 62rem; margin: 1.5rem auto; padding: 0 1rem;
       line-height: 1.45; color: #1a1a1a; }
h1 { font-size: 1.7rem; margin: 0 0 .3rem 0; }
#verdict { color: #fff; padding: .9rem 1.1rem; font-size: 1.35rem; font-weight: bold; border-radius: 4px;
           margin: .4rem 0 1rem 0; }
table { border-collapse: collapse; margin: .5rem 0 1rem 0; width: 100%; }
th, td { border-bottom: 1px solid #ccc; padding: .25rem .5rem; text-align: left; vertical-align: top; }
td.num { text-align: right; }
.fail { color: #b00020; font-weight: bold; }
.source { color: #555; font-size: .9em; }
code { font-size: .9em; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: .5rem; font-size: .8rem; }
img { max-width: 100%; }
nav ol { padding-left: 1.4rem; }
"""


def _e(s) -> str:
    return html.escape(str(s), quote=True)


def _anchor(*parts) -> str:
    return "-".join("".join(ch if ch.isalnum() else "-" for ch in str(p)) for p in parts)


def _png(path) -> str:
    with open(path, "rb") as f:
        return "data:image/png;base64," + base64.b64encode(f.read()).decode("ascii")


def render_html(data) -> str:
    """The whole page for ``data`` (a :class:`~geomcheck.report_model.ReportData`)."""
    from casestudies import FINDING_KINDS

    h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
         '<meta name="viewport" content="width=device-width, initial-scale=1">',
         f"<title>geomcheck report ({_e(data.profile)})</title><style>{_CSS}</style></head><body>"]

    # ---- the verdict
    h.append(f"<h1>geomcheck report</h1><p>profile: {_e(data.profile)}</p>")
    h.append(f'<div id="verdict" style="background: {VERDICT_COLOURS[data.passed]}">{_e(data.verdict())}</div>')
    h.append("<table><tr><th>what was checked</th><th>checked</th><th>hold</th><th>fail</th><th>undecided</th></tr>")
    for part, n, ok, bad, unknown in data.parts():
        h.append(f'<tr><td>{_e(part)}</td><td class="num">{n}</td><td class="num">{ok}</td>'
                 f'<td class="num">{bad}</td><td class="num">{unknown}</td></tr>')
    h.append("</table>")
    failures = data.failures()
    if failures:
        h.append("<h3>What does not hold</h3><ul>" + "".join(f"<li>{_e(x)}</li>" for x in failures) + "</ul>")
    counts = data.finding_counts()
    h.append('<p><a href="#findings">Findings about the papers</a>: '
             + "; ".join(f"{_e(title)}: {counts[k]}" for k, title in FINDING_KINDS.items())
             + ". Only an error in the paper is called a misprint.</p>")
    h.append("<table><tr><th>case study</th><th>checks</th><th>certificates</th><th>findings</th></tr>")
    for r in data.cases:
        kinds = ", ".join(f"{sum(f.kind == k for f in r.findings)} {k}" for k in FINDING_KINDS
                          if any(f.kind == k for f in r.findings)) or "none"
        h.append(f'<tr><td><a href="#{_anchor("case", r.name)}">{_e(r.name)}</a></td>'
                 f'<td class="num">{sum(c.passed for c in r.checks)}/{len(r.checks)}</td>'
                 f'<td class="num">{sum(c.holds is True for _, c in r.certificates)}/{len(r.certificates)}</td>'
                 f"<td>{_e(kinds)}</td></tr>")
    h.append("</table>")

    # ---- contents
    h.append('<nav><h2>Contents</h2><ol><li><a href="#claims">The papers\' claims, measured</a><ol>'
             + "".join(f'<li><a href="#{_anchor("case", r.name)}">{_e(r.title)}</a></li>' for r in data.cases)
             + '</ol></li><li><a href="#findings">Findings about the papers</a></li>'
             + ('<li><a href="#theorems">The papers\' theorems, computed</a></li>' if data.structures else "")
             + '<li><a href="#catalog">Appendix A: the integrators catalog, certified</a></li>'
             + '<li><a href="#derivations">Appendix B: derivations</a></li></ol></nav>')

    # ---- the papers' claims
    h.append('<h2 id="claims">1. The papers\' claims, measured</h2>')
    for r in data.cases:
        h.append(f'<h3 id="{_anchor("case", r.name)}">{_e(r.title)}</h3><p class="source">{_e(r.source)}</p>')
        if r.checks:
            h.append("<table><tr><th>claim (source)</th><th>measured</th><th>expected</th><th>verdict</th></tr>")
            for c in r.checks:
                mark = "pass" if c.passed else '<span class="fail">FAIL</span>'
                h.append(f'<tr><td>{_e(c.description)} <span class="source">({_e(c.source)})</span></td>'
                         f"<td>{_e(shown(c.measured))}</td><td>{_e(c.expected)}</td><td>{mark}</td></tr>")
            h.append("</table>")
        h += [f"<p>{_e(shown(note))}</p>" for note in r.notes]
        for path in r.figures:
            if path.endswith(".png") and os.path.exists(path):
                h.append(f'<p><img alt="{_e(os.path.basename(path))}" src="{_png(path)}"></p>')

    # ---- findings
    h.append('<h2 id="findings">2. Findings about the papers</h2>')
    h.append(f"<h3>How we classify findings</h3><p>{_e(CLASSIFICATION)}</p>")
    findings = data.findings()
    for kind, title in FINDING_KINDS.items():
        items = [(name, f) for name, f in findings if f.kind == kind]
        h.append(f'<h3 id="findings-{kind}">Findings: {_e(title)} ({len(items)})</h3>')
        if not items:
            h.append("<p>None.</p>")
            continue
        h.append("<ul>")
        for name, f in items:
            readings = "".join(f" <em>Reading:</em> {_e(x)}" for x in f.readings)
            h.append(f"<li><strong>{_e(name)}, {_e(f.where)}.</strong> {_e(f.statement)}{readings}"
                     f" (shown by <code>{_e(f.test)}</code>)</li>")
        h.append("</ul>")

    # ---- theorems and appendices (LaTeX source, folded)
    if data.structures:
        h.append('<h2 id="theorems">3. The papers\' theorems, computed</h2>')
        for s in data.structures:
            h.append(f"<details><summary>{_e(s.title)}: {VERDICT_WORDS[s.holds]}</summary>"
                     f"<pre>{_e(s.latex)}</pre></details>")
    h.append('<h2 id="catalog">Appendix A: the integrators catalog, certified</h2>')
    h.append("<p>Every declared property and order of every scheme, certified on a generic system (an undefined"
             " potential: the verdict holds for every smooth potential).</p>")
    h.append("<table><tr><th>scheme</th><th>system</th><th>property</th><th>verdict</th><th>how</th></tr>")
    for e in data.catalog:
        verdict = VERDICT_WORDS[e.holds] if e.holds is True else f'<span class="fail">{VERDICT_WORDS[e.holds]}</span>'
        h.append(f"<tr><td>{_e(e.scheme)}</td><td>{_e(e.system)}</td><td>{_e(e.prop)}</td><td>{verdict}</td>"
                 f'<td class="source">{_e(e.method)}</td></tr>')
    h.append("</table>")
    if data.bseries:
        h.append('<h3 id="bseries">The catalog for every vector field (B-series)</h3>')
        h.append(f"<p>{_e(BSERIES_INTRO)}</p>")
        h.append("<table><tr><th>scheme</th><th>trees to</th><th>order</th><th>symmetric</th><th>symplectic</th>"
                 "<th>conj. sympl. to</th><th>energy to</th><th>agrees</th></tr>")
        for r in data.bseries:
            if r.skipped:
                h.append(f'<tr><td>{_e(r.scheme)}</td><td colspan="7" class="source">{_e(r.skipped)}</td></tr>')
                continue
            agrees = "yes" if r.agrees is True else f'<span class="fail">{_e(r.disagreement or "undecided")}</span>'
            cells = [r.checked_to, r.order, VERDICT_WORDS[r.symmetric], VERDICT_WORDS[r.symplectic],
                     "-" if r.conjugate_symplectic_to is None else r.conjugate_symplectic_to,
                     "-" if r.energy_preserving_to is None else r.energy_preserving_to]
            h.append(f"<tr><td>{_e(r.scheme)} ({_e(r.kind)})</td>" + "".join(f"<td>{_e(c)}</td>" for c in cells)
                     + f"<td>{agrees}</td></tr>")
        h.append("</table>")
    h.append('<h2 id="derivations">Appendix B: derivations (LaTeX)</h2>')
    for r in data.cases:
        for label, c in r.certificates:
            h.append(f"<details><summary>{_e(r.name)}: {_e(label)}</summary><pre>{_e(c.latex())}</pre></details>")
        for d in r.derivations:
            h.append(f"<details><summary>{_e(r.name)}: {_e(getattr(d, 'title', 'derivation'))}</summary>"
                     f"<pre>{_e(d.latex())}</pre></details>")
    for e in data.catalog:
        h.append(f"<details><summary>{_e(e.scheme)}: {_e(e.prop)}</summary><pre>{_e(e.latex)}</pre></details>")
    h.append("</body></html>\n")
    return "\n".join(h)
