"""What every case study is made of: parameters, checks, a result.

A case study reproduces one published experiment.  Its module defines

``NAME``, ``TITLE``, ``SOURCE``     the registry name, a title, the paper (authors, year, venue);
``Parameters``                      a frozen dataclass with ``quick()`` and ``paper()`` constructors;
``run(profile, out=None)``          builds the system from the SAME symbolic definitions that are
                                    certified, runs it, and returns a :class:`CaseResult`.

A :class:`Check` is one claim of the paper: what it says, what we measured, the expected
value or bound with its tolerance, whether it passed, and where the paper says it.

A :class:`Finding` is something we say ABOUT the paper, of one of four kinds
(:data:`FINDING_KINDS`), each shown by a test:

``error``       the authors' text is wrong (the only kind we call a misprint);
``damage``      our converted (OCR/HTML) copy is damaged there: "as read in our copy";
``convention``  an unstated but natural choice, a sign convention or an ambiguous reading: the
                readings are stated and which of them holds;
``critique``    the paper is not wrong as printed, but a method or claim has a weakness we show.

Each case-study module lists its findings in ``FINDINGS`` (and in its docstring, one bullet
``[kind] where: ...`` each) and the equation numbers it cites in ``EQUATIONS`` (number -> the
text of our copy around it), so that both can be checked without running anything.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Check", "CaseResult", "Finding", "FINDING_KINDS", "check_below", "check_close", "check_true",
           "PROFILES"]

PROFILES = ("quick", "paper")

#: kind -> how the report names it; only ``error`` is ever called a misprint
FINDING_KINDS = {
    "error": "error in the paper",
    "damage": "damage in our converted copy",
    "convention": "convention or reading",
    "critique": "critique",
}


@dataclass(frozen=True)
class Check:
    """One claim of a paper, measured.

    Unpacks (and indexes) as ``(description, measured, expected, passed)`` as in the
    public contract (docs/contract.md); ``tolerance`` and ``source`` are attributes.

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


@dataclass(frozen=True)
class Finding:
    """Something we say about the paper, its kind, and the test that shows it.

    Parameters
    ----------
    kind : {"error", "damage", "convention", "critique"}
        See :data:`FINDING_KINDS`.
    where : str
        Where in the paper, as its own numbering has it ("eq. (27)", "slide 22", "Sec. 3").
    statement : str
        What we say, in full: what is printed (or read), what holds, and the measurement.
    test : str
        The pytest node id (``tests/....py::test_name``) that shows it.
    readings : tuple of str
        For a ``convention``: each reading and whether it holds (at least two).

    >>> f = Finding("damage", "eq. (39)", "as read in our copy the factor 1/h is lost", "tests/x.py::test_y")
    >>> f.is_misprint, f.title
    (False, 'damage in our converted copy')

    Raises
    ------
    InvalidArgumentError
        An unknown kind, an empty text, a test that is not a pytest node id, or a convention
        without its readings.
    """

    kind: str
    where: str
    statement: str
    test: str
    readings: tuple = ()

    def __post_init__(self):
        from geomcheck.errors import InvalidArgumentError

        if self.kind not in FINDING_KINDS:
            raise InvalidArgumentError(f"finding kind {self.kind!r}: expected one of {', '.join(FINDING_KINDS)}")
        for name in ("where", "statement", "test"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise InvalidArgumentError(f"finding {name} {value!r}: expected a non-empty string")
        if not re.fullmatch(r"tests/[\w/]+\.py(::\w+)?", self.test):
            raise InvalidArgumentError(f"finding test {self.test!r}: expected a pytest node id tests/...py::test_name")
        if not isinstance(self.readings, tuple) or not all(isinstance(r, str) and r.strip() for r in self.readings):
            raise InvalidArgumentError(f"finding readings {self.readings!r}: expected a tuple of strings")
        if self.kind == "convention" and len(self.readings) < 2:
            raise InvalidArgumentError(f"convention finding at {self.where}: state at least two readings and which"
                                       " holds (readings=(...))")

    @property
    def title(self) -> str:
        """The kind as the report names it."""
        return FINDING_KINDS[self.kind]

    @property
    def is_misprint(self) -> bool:
        """Only an error in the authors' text is a misprint."""
        return self.kind == "error"

    def to_dict(self) -> dict:
        d = {"kind": self.kind, "title": self.title, "where": self.where, "statement": self.statement,
             "test": self.test}
        if self.readings:
            d["readings"] = list(self.readings)
        return d


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
    findings : list of Finding
        What we say about the paper (errors, damage in our copy, conventions, critiques), each
        with its kind and test; the claims that hold are checks.
    notes : list of str
        Plain-text remarks for the report (e.g. which coefficients were used).
    timings : dict
        Wall times of parts of the run (label -> seconds): in summary.json, never in the report's
        text, which depends on nothing but its inputs.
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
    findings: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    timings: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def misprints(self) -> list:
        """``(statement, test)`` of the findings that are errors in the paper (nothing else is one)."""
        return [(f.statement, f.test) for f in self.findings if f.is_misprint]

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
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
            "checks": [c.to_dict() for c in self.checks],
            "certificates": [{"label": label, **_cert_summary(c)} for label, c in self.certificates],
            "figures": list(self.figures),
            "findings": [f.to_dict() for f in self.findings],
            "notes": list(self.notes),
        }


def _cert_summary(c) -> dict:
    return {"claim": c.claim, "holds": c.holds, "method": c.method, "stage": c.stage}
