"""What the report says, before it is typeset: the results, their counts and the verdict.

The TeX (:mod:`geomcheck.report_tex`) and HTML (:mod:`geomcheck.report_html`) renderings are
drawn from one :class:`ReportData`, so both state the same verdict in the same structure.
Nothing here depends on the clock: the same inputs give the same text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

__all__ = ["CatalogEntry", "StructureEntry", "ReportData", "shown", "CLASSIFICATION", "VERDICT_WORDS",
           "BSERIES_INTRO"]

#: how a certificate's three-valued verdict reads
VERDICT_WORDS = {True: "holds", False: "fails", None: "undecided"}

#: the report's account of how a finding about a paper is classified
CLASSIFICATION = (
    "Everything we say about a paper beyond its checked claims is a finding of one of four kinds, each"
    " shown by a test of the project's suite. An error in the paper: the authors' text is wrong (only"
    " these are called misprints). Damage in our converted copy: our text of the paper comes from an"
    " OCR/HTML conversion, and where it is unreadable or garbled we say what we read and what holds,"
    " without blaming the authors. A convention or reading: an unstated but natural choice, a different"
    " sign convention or an ambiguous formula; we state the readings and which one holds. A critique: the"
    " paper is not wrong as printed, but a method or claim it offers has a weakness we show.")

#: what the B-series table says (TeX and HTML)
BSERIES_INTRO = (
    "Each catalog scheme that is a Runge-Kutta or partitioned Runge-Kutta method, Stormer-Verlet or a "
    "composition of these, read as a B-series (P-series: bicoloured trees) and decided exactly on the trees "
    "with at most the stated number of vertices, for every vector field at once. 'conj. sympl. to' and "
    "'energy to': the largest order up to which the method is conjugate to a symplectic method, or preserves "
    "every Hamiltonian (B-series only). 'agrees': the trees confirm the declared order, symmetry and "
    "symplecticity, which the table above certified on one generic system: two independent proofs.")

_LONG_NUMBER = re.compile(r"-?\d[\d.]{15,}(?:[eE][-+]?\d+)?")


def shown(value) -> str:
    """A measured value as a reader wants it: verdicts in words, numbers to 4 significant digits."""
    if isinstance(value, bool) or value is None:
        return VERDICT_WORDS[value]
    if isinstance(value, int):
        return f"{value:,}" if abs(value) < 10**15 else f"{float(value):.4g}"
    if isinstance(value, float):
        return f"{value:.4g}" if math.isfinite(value) else str(value)
    text = str(value)
    # a long digit string (a 100-digit mpmath number) runs off any page: rounded
    return _LONG_NUMBER.sub(lambda m: f"{float(m.group(0)):.4g}", text)


@dataclass(frozen=True)
class CatalogEntry:
    """One declared property (or the order) of a catalog scheme, certified on an example system."""

    scheme: str
    system: str
    prop: str
    holds: object
    method: str
    latex: str


@dataclass(frozen=True)
class StructureEntry:
    """One of the papers' symbolic results, computed (``holds``: its expected outcome is met)."""

    title: str
    holds: object
    latex: str


@dataclass
class ReportData:
    """Everything the report shows, in report order."""

    profile: str
    catalog: list = field(default_factory=list)
    bseries: list = field(default_factory=list)
    structures: list = field(default_factory=list)
    cases: list = field(default_factory=list)

    # -- the verdict
    def parts(self) -> list:
        """``(part, checked, holds, fails, undecided)`` for each kind of result."""
        def count(values):
            values = list(values)
            return (len(values), sum(v is True for v in values), sum(v is False for v in values),
                    sum(v is None for v in values))

        return [
            ("The papers' claims, measured (case-study checks)",
             *count(bool(c.passed) for r in self.cases for c in r.checks)),
            ("Certificates of the case studies' schemes",
             *count(c.holds for r in self.cases for _, c in r.certificates)),
            ("The papers' theorems, computed", *count(s.holds for s in self.structures)),
            ("The integrators catalog: every declared property and order", *count(e.holds for e in self.catalog)),
            ("The catalog for every vector field: declared order and properties confirmed on B-series trees",
             *count(r.agrees for r in self.bseries if not r.skipped)),
        ]

    @property
    def passed(self) -> bool:
        return all(fails == 0 and undecided == 0 for _, _, _, fails, undecided in self.parts())

    def total(self) -> int:
        return sum(row[1] for row in self.parts())

    def failures(self) -> list:
        """One line for every result that does not hold (fails or is undecided)."""
        out = []
        for r in self.cases:
            out += [f"{r.name}: {c.description}: measured {shown(c.measured)}, expected {c.expected}"
                    for c in r.checks if not c.passed]
            out += [f"{r.name}: certificate '{label}' {VERDICT_WORDS[c.holds]}"
                    for label, c in r.certificates if c.holds is not True]
        out += [f"theorem '{s.title}' {VERDICT_WORDS[s.holds]}" for s in self.structures if s.holds is not True]
        out += [f"catalog: {e.scheme} on {e.system}, {e.prop}: {VERDICT_WORDS[e.holds]}"
                for e in self.catalog if e.holds is not True]
        out += [f"B-series of {r.scheme}: {'undecided' if r.agrees is None else r.disagreement}"
                for r in self.bseries if not r.skipped and r.agrees is not True]
        return out

    def verdict(self) -> str:
        """The one sentence the report opens with."""
        n = self.total()
        if self.passed:
            return f"Every one of the {n:,} results holds."
        bad = len(self.failures())
        return f"{bad:,} of the {n:,} results do not hold (listed below)."

    # -- the findings
    def findings(self) -> list:
        """``(case name, Finding)`` in report order."""
        return [(r.name, f) for r in self.cases for f in r.findings]

    def finding_counts(self) -> dict:
        from casestudies import FINDING_KINDS

        counts = {kind: 0 for kind in FINDING_KINDS}
        for _, f in self.findings():
            counts[f.kind] += 1
        return counts
