"""Certificates: a claim, its verdict, how it was decided, and a typeset proof.

``holds`` is True only when the claim was proved (exact arithmetic) or when
randomized high-precision evaluation says so (``method`` says which); False only
with a confirmed counterexample; None when it could not be decided.

>>> import geomcheck as gc, sympy
>>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
>>> c = gc.certify_symplectic(gc.Map(M, M, [q + h * p, p]), M.d(q) ^ M.d(p))
>>> c.holds, c.stage
(True, 'structural')
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import sympy

from ..latex import Derivation, latex, tex_text

__all__ = ["Certificate"]


def _jsonable(obj):
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return str(obj)


@dataclass(frozen=True)
class Certificate:
    """The outcome of checking one claim.

    Attributes
    ----------
    claim : str
        What was checked, in words (e.g. ``"phi^* omega == omega"``).
    holds : bool or None
        True (proved, or zero by randomized high-precision evaluation: see ``method``),
        False (a confirmed counterexample, see ``counterexample``) or None (undecided).
    method : str
        How it was decided, one sentence.
    stage : str
        ``"structural"``, ``"exact"``, ``"randomized"``, ``"counterexample"``, ``"unknown"``, or
        ``"numeric"`` for claims about coefficients known only to finite precision (evidence at
        the stated digits, not a proof).
    residual : object
        What must vanish for the claim to hold (a Form, an expression, a dict).
    factor : object
        The conformal or contact factor, where the claim has one.
    counterexample : dict or None
        The point (and jet values) at which the residual is nonzero.
    derivation : Derivation
        The steps, typeset by :meth:`latex`.
    witness : object
        What proves an existence claim when it holds (e.g. the Hamiltonian of a
        Hamiltonian vector field), else None.
    soundness : Soundness
        What the verdict rests on, as data (:class:`geomcheck.zero.Soundness`): the kind
        (proof, probabilistic proof, numerical evidence, counterexample, undecided), the
        domain, the points and digits, the jet model, error bounds.  Certificates decided
        by the zero test carry its full record; others get the kind their stage implies.
    """

    claim: str
    holds: Any
    method: str
    stage: str = "unknown"
    residual: Any = None
    factor: Any = None
    counterexample: Any = None
    derivation: Derivation = field(default_factory=lambda: Derivation("Certificate"))
    witness: Any = None
    soundness: Any = field(default=None, compare=False)

    def __post_init__(self):
        if self.soundness is None:
            from ..zero import Soundness

            object.__setattr__(self, "soundness", Soundness(self.stage, _KIND_OF_STAGE.get(self.stage, "undecided")))

    def __bool__(self):
        raise TypeError(
            "a Certificate is not a boolean (it may be undecided): test `.holds is True`"
        )

    def verdict(self) -> str:
        return {True: "holds", False: "fails", None: "undecided"}[self.holds]

    def latex(self) -> str:
        """A readable proof (or the counterexample), as a LaTeX fragment."""
        d = self.derivation
        body = d.latex()
        verdict = {
            True: r"\textbf{The claim holds} (" + _tex_text(self.method) + ").",
            False: r"\textbf{The claim fails} (" + _tex_text(self.method) + ").",
            None: r"\textbf{Undecided} (" + _tex_text(self.method) + ").",
        }[self.holds]
        if self.holds is False and self.counterexample:
            rows = [_tex_key(k) + " &= " + _tex_value(v)
                    for k, v in list(self.counterexample.items())[:12]]
            verdict += r"\begin{align*}" + r"\\ ".join(rows) + r"\end{align*}"
        if self.factor is not None and self.holds is True:
            verdict += r" The factor is $" + latex(self.factor) + "$."
        if self.witness is not None and self.holds is True:
            verdict += r" A witness is $" + latex(self.witness) + "$."
        return body + verdict + "\n"

    def _repr_latex_(self) -> str:
        """Jupyter (MathJax): the claim, the verdict and how it was decided; ``latex()`` has the derivation."""
        text = _tex_text(f"{self.claim}: {self.verdict()} ({self.soundness.kind}; {self.stage})")
        return "$\\text{" + text + "}$"

    def document(self) -> str:
        from ..latex import document

        return document(self.latex())

    def to_dict(self) -> dict:
        """A JSON-serializable summary."""
        return {
            "claim": self.claim,
            "holds": self.holds,
            "method": self.method,
            "stage": self.stage,
            "residual": _jsonable(self.residual),
            "factor": _jsonable(self.factor),
            "counterexample": _jsonable(self.counterexample),
            "witness": _jsonable(self.witness),
            "soundness": _jsonable(self.soundness.to_dict()) if hasattr(self.soundness, "to_dict") else None,
            "derivation": [[s.text, s.math] for s in self.derivation.steps],
            "derivation_title": self.derivation.title,
            "conclusion": self.derivation.conclusion,
        }

    def to_json(self) -> str:
        """The certificate as JSON text (see :meth:`from_json`)."""
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict) -> "Certificate":
        """The certificate :meth:`to_dict` wrote: claim, verdict, method, stage, soundness record
        and derivation as they were; the symbolic objects (residual, factor, counterexample,
        witness) as the text they were written as.

        >>> import geomcheck as gc, sympy
        >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
        >>> c = gc.certify_symplectic(gc.Map(M, M, [q + h * p, p]), M.d(q) ^ M.d(p))
        >>> back = Certificate.from_json(c.to_json())
        >>> (back.holds, back.stage, back.soundness.kind) == (c.holds, c.stage, c.soundness.kind)
        True
        >>> back.to_json() == c.to_json()
        True

        Raises
        ------
        InvalidArgumentError
            ``data`` is not what :meth:`to_dict` writes.
        """
        from ..errors import InvalidArgumentError
        from ..latex import Step
        from ..zero import Soundness

        try:
            holds = data["holds"]
            if holds not in (True, False, None):
                raise ValueError(f"holds = {holds!r}")
            steps = tuple(Step(str(text), None if math is None else str(math)) for text, math in data["derivation"])
            record = data.get("soundness")
            soundness = Soundness(**{k: tuple(tuple(x) if isinstance(x, list) else x for x in v)
                                     if isinstance(v, list) else v for k, v in record.items()}) if record else None
            return cls(claim=str(data["claim"]), holds=holds, method=str(data["method"]), stage=str(data["stage"]),
                       residual=data.get("residual"), factor=data.get("factor"),
                       counterexample=data.get("counterexample"), witness=data.get("witness"),
                       derivation=Derivation(str(data.get("derivation_title", data["claim"])), steps,
                                             str(data.get("conclusion", ""))), soundness=soundness)
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"not a certificate written by Certificate.to_dict: {exc}") from None

    @classmethod
    def from_json(cls, text: str) -> "Certificate":
        """The certificate :meth:`to_json` wrote (see :meth:`from_dict`)."""
        from ..errors import InvalidArgumentError

        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"not JSON text of a certificate: {exc}") from None
        if not isinstance(data, dict):
            raise InvalidArgumentError(f"not JSON text of a certificate: a {type(data).__name__}, not an object")
        return cls.from_dict(data)

    def __repr__(self):
        return f"Certificate({self.claim!r}: {self.verdict()}; {self.method})"


#: the kind of evidence each stage gives, for certificates that do not carry a full record
_KIND_OF_STAGE = {
    "structural": "proof", "exact": "proof", "modular": "probabilistic proof",
    "randomized": "numerical evidence", "numeric": "numerical evidence (inexact data)",
    "counterexample": "counterexample", "unknown": "undecided",
}


def _tex_text(s: str) -> str:
    """Plain text made safe inside LaTeX (see :func:`geomcheck.latex.tex_text`)."""
    return tex_text(s)


def _tex_key(k) -> str:
    """A counterexample key: a coordinate name as a symbol, a jet description as text.

    Jet descriptions such as ``V_{q}(1/2, 3)`` are not symbol names (typeset as one
    they give LaTeX errors like a double subscript).
    """
    s = str(k)
    if re.fullmatch(r"[A-Za-z]+[0-9]*(_[A-Za-z0-9]+)?", s):
        return sympy.latex(sympy.Symbol(s))
    return r"\text{" + _tex_text(s) + "}"


def _tex_value(v) -> str:
    try:
        return sympy.latex(sympy.nsimplify(v) if isinstance(v, str) else v)
    except (sympy.SympifyError, TypeError, ValueError):
        return r"\text{" + _tex_text(str(v)) + "}"
