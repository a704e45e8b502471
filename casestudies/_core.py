"""What every case study is made of: parameters, checks, a result.

A case study reproduces one published experiment.  Its module defines

``NAME``, ``TITLE``, ``SOURCE``     the registry name, a title, the paper (authors, year, venue);
``Parameters``                      a frozen dataclass with ``quick()`` and ``paper()`` constructors;
``run(profile, out=None)``          builds the system from the SAME symbolic definitions that are
                                    certified, runs it, and returns a :class:`CaseResult`.

A :class:`Check` is one claim of the paper: what it says, what we measured, the expected
value or bound with its tolerance, whether it passed, and where the paper says it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Check", "CaseResult", "check_below", "check_close", "check_true", "PROFILES"]

PROFILES = ("quick", "paper")


@dataclass(frozen=True)
class Check:
    """One claim of a paper, measured.

    Unpacks (and indexes) as ``(description, measured, expected, passed)`` as in
    API.md; ``tolerance`` and ``source`` are attributes.

    >>> c = check_below("energy error", 3e-14, 1e-12, "Fig. 4")
    >>> description, measured, expected, passed = c
    >>> passed, c.source
    (True, 'Fig. 4')
    """

    description: str
    measured: Any
    expected: str
    passed: bool
    tolerance: Any = None
    source: str = ""

    def __iter__(self):
        return iter((self.description, self.measured, self.expected, self.passed))

    def __getitem__(self, i):
        return (self.description, self.measured, self.expected, self.passed)[i]

    def __len__(self):
        return 4

    def to_dict(self) -> dict:
        return {
            "description": self.description,
            "measured": _jsonable(self.measured),
            "expected": self.expected,
            "tolerance": _jsonable(self.tolerance),
            "passed": bool(self.passed),
            "source": self.source,
        }


def _jsonable(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    return f if math.isfinite(f) else str(f)


def check_below(description, measured, bound, source, *, strict=False) -> Check:
    """The claim ``measured <= bound`` (``<`` when ``strict``); NaN never passes."""
    m = float(measured)
    ok = (m < bound) if strict else (m <= bound)
    return Check(description, m, f"{'<' if strict else '<='} {bound:g}", bool(ok and math.isfinite(m)),
                 tolerance=bound, source=source)


def check_close(description, measured, expected, tolerance, source, *, relative=False) -> Check:
    """The claim ``|measured - expected| <= tolerance`` (times |expected| when ``relative``)."""
    m = float(measured)
    tol = tolerance * abs(expected) if relative else tolerance
    ok = math.isfinite(m) and abs(m - expected) <= tol
    what = f"{expected:g} +- {tolerance:g}" + (" (relative)" if relative else "")
    return Check(description, m, what, bool(ok), tolerance=tolerance, source=source)


def check_true(description, measured, expected_text, passed, source) -> Check:
    """A claim with a yes/no outcome (a certificate that holds, a monotone sequence)."""
    return Check(description, measured, expected_text, bool(passed), source=source)


@dataclass
class CaseResult:
    """What a case-study run produced.

    Attributes
    ----------
    name, title, source, profile : str
    parameters : object
        The frozen parameter dataclass that was run.
    checks : list of Check
    figures : list of str
        Paths of the figures written (PNG and PDF).
    certificates : list of (str, Certificate)
        The symbolic certificates of the scheme on this very system.
    derivations : list of Derivation
        Further typeset derivations (the paper's symbolic results).
    misprints : list of (str, str)
        (what is misprinted and what is right, the test that shows it).
    disagreements : list of (str, str)
        (a claim of the paper that does not hold as stated, with what holds instead and the
        measurement, the test that shows it); the claims that do hold are checks.
    notes : list of str
        Plain-text remarks for the report (e.g. which coefficients were used).
    seconds : float
        Wall time of the run.
    """

    name: str
    title: str
    source: str
    profile: str
    parameters: Any
    checks: list = field(default_factory=list)
    figures: list = field(default_factory=list)
    certificates: list = field(default_factory=list)
    derivations: list = field(default_factory=list)
    misprints: list = field(default_factory=list)
    disagreements: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """Every check passed and every certificate holds."""
        return all(c.passed for c in self.checks) and all(c.holds is True for _, c in self.certificates)

    def to_dict(self) -> dict:
        from dataclasses import asdict, is_dataclass

        params = asdict(self.parameters) if is_dataclass(self.parameters) else str(self.parameters)
        return {
            "name": self.name,
            "title": self.title,
            "source": self.source,
            "profile": self.profile,
            "parameters": {k: _jsonable(v) if not isinstance(v, (list, tuple)) else [_jsonable(x) for x in v]
                           for k, v in params.items()} if isinstance(params, dict) else params,
            "passed": self.passed,
            "seconds": round(self.seconds, 3),
            "checks": [c.to_dict() for c in self.checks],
            "certificates": [{"label": label, **_cert_summary(c)} for label, c in self.certificates],
            "figures": list(self.figures),
            "misprints": [{"misprint": m, "test": t} for m, t in self.misprints],
            "disagreements": [{"disagreement": d, "test": t} for d, t in self.disagreements],
            "notes": list(self.notes),
        }


def _cert_summary(c) -> dict:
    return {"claim": c.claim, "holds": c.holds, "method": c.method, "stage": c.stage}
