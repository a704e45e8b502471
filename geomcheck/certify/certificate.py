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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import sympy

from ..latex import Derivation, latex, summarize, tex_text

if TYPE_CHECKING:
    from ..zero import ZeroDecision

__all__ = ["Certificate", "point_by_name"]


#: a factor or witness expression of more than this many nodes is described, not typeset
_SHOWN_NODES = 1200


def _shown(obj) -> str:
    """LaTeX of a factor or witness; an expression too large to read is described (its size is
    counted first, in O(``_SHOWN_NODES``) steps, so it is never typeset only to be dropped)."""
    if isinstance(obj, sympy.Expr):
        return summarize(obj, _SHOWN_NODES)
    return latex(obj)


def point_by_name(point: Mapping | None) -> dict | None:
    """A counterexample point keyed by the names of its symbols (as a certificate shows it).

    >>> import sympy
    >>> point_by_name({sympy.Symbol("q"): sympy.Rational(1, 2)})
    {'q': 1/2}
    >>> point_by_name(None) is None
    True
    """
    return {str(k): v for k, v in point.items()} if point else point


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

    @classmethod
    def from_decision(cls, claim: str, decision: ZeroDecision, *, method: str | None = None, residual: Any = None,
                      factor: Any = None, counterexample: Mapping | None = None, derivation: Derivation | None = None,
                      witness: Any = None) -> "Certificate":
        """The certificate of a claim that holds exactly when what ``decision`` tested is zero.

        The verdict, the stage and the soundness record are the decision's.  A failed claim
        shows the decision's point, keyed by name (``{"q": 1/2}``), unless ``counterexample``
        gives a fuller one; a witness is kept only when the claim holds, a counterexample only
        when it fails.

        Parameters
        ----------
        claim : str
            What was checked, in words.
        decision : ZeroDecision
            The zero test of the claim's residual (:func:`geomcheck.zero.decide_zero`,
            :func:`geomcheck.zero.decide_all_zero`, ``Form.zero_decision()``).
        method : str, optional
            How it was decided, when the decision's sentence needs context (default
            ``decision.method``).
        residual, factor, derivation
            As the attributes of :class:`Certificate`.
        counterexample : dict, optional
            The point to show for a failed claim instead of the decision's (e.g. with the
            component of a form it was found in); dropped unless the claim fails.
        witness : object, optional
            What proves an existence claim; dropped unless the claim holds.

        Examples
        --------
        >>> import sympy
        >>> from geomcheck.zero import decide_zero
        >>> q = sympy.Symbol("q")
        >>> c = Certificate.from_decision("(q + 1)^2 == q^2 + 2 q + 1", decide_zero((q + 1)**2 - q**2 - 2*q - 1))
        >>> c.holds, c.soundness.kind, c.counterexample
        (True, 'proof', None)
        >>> bad = Certificate.from_decision("q^2 == q", decide_zero(q**2 - q), witness=q)
        >>> bad.holds, bad.stage, list(bad.counterexample), bad.soundness.kind, bad.witness
        (False, 'counterexample', ['q'], 'counterexample', None)
        """
        holds = decision.is_zero
        # a point is a counterexample only to a refuted claim (one given for a claim that holds or is
        # undecided would contradict the verdict)
        if holds is not False:
            counterexample = None
        elif counterexample is None:
            counterexample = point_by_name(decision.point)
        # without a derivation the field's default (an empty one) applies
        given = {} if derivation is None else {"derivation": derivation}
        return cls(claim, holds, decision.method if method is None else method, stage=decision.stage,
                   residual=residual, factor=factor, counterexample=counterexample,
                   witness=witness if holds is True else None, soundness=decision.soundness, **given)

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
            True: r"\textbf{The claim holds} (" + tex_text(self.method) + ").",
            False: r"\textbf{The claim fails} (" + tex_text(self.method) + ").",
            None: r"\textbf{Undecided} (" + tex_text(self.method) + ").",
        }[self.holds]
        if self.holds is False and self.counterexample:
            rows = [_tex_key(k) + " &= " + _tex_value(v)
                    for k, v in list(self.counterexample.items())[:12]]
            verdict += r"\begin{align*}" + r"\\ ".join(rows) + r"\end{align*}"
        if self.factor is not None and self.holds is True:
            verdict += r" The factor is $" + _shown(self.factor) + "$."
        if self.witness is not None and self.holds is True:
            verdict += r" A witness is $" + _shown(self.witness) + "$."
        verdict += r" \emph{Soundness:} " + tex_text(self.evidence()) + "."
        return body + verdict + "\n"

    def evidence(self) -> str:
        """What the verdict rests on, in words: ``"a proof (exact arithmetic)"``, ``"numerical evidence,
        not a proof (randomized high-precision evaluation; 3 points; 50 digits)"``."""
        rec = self.soundness
        kind = getattr(rec, "kind", None) or _KIND_OF_STAGE.get(self.stage, "undecided")
        stage = getattr(rec, "stage", None) or self.stage
        details = [_STAGE_PHRASE[stage]] if stage in _STAGE_PHRASE else []
        if getattr(rec, "points", 0):
            details.append(f"{rec.points} point{'s' if rec.points != 1 else ''}")
        if getattr(rec, "digits", None):
            details.append(f"{rec.digits} digits")
        if getattr(rec, "error_bound", None) is not None:
            details.append(f"error probability at most {rec.error_bound:.1e}")
        return _EVIDENCE.get(kind, kind) + (f" ({'; '.join(details)})" if details else "")

    def _repr_latex_(self) -> str:
        r"""Jupyter (MathJax): the claim in LaTeX, the verdict and what it rests on, in one line of
        math, e.g. ``$\checkmark\; \varphi^* \omega = \omega \quad \text{holds: a proof (exact arithmetic)}$``;
        :meth:`latex` has the derivation."""
        mark = {True: r"\checkmark", False: r"\times", None: r"\text{?}"}[self.holds]
        return ("$" + mark + r"\; " + claim_latex(self.claim) + r" \quad \text{" + tex_text(self.verdict())
                + ": " + tex_text(self.evidence()) + "}$")

    def _repr_html_(self) -> str:
        """Jupyter (HTML, typeset by MathJax): the verdict, the claim, how it was decided and what
        it rests on, with the derivation's LaTeX (for a paper) under a disclosure triangle."""
        import html

        colour = {True: "#1a7f37", False: "#cf222e", None: "#9a6700"}[self.holds]
        mark = {True: "&#10003;", False: "&#10007;", None: "?"}[self.holds]
        return (
            '<div class="geomcheck-certificate">'
            f'<span style="color:{colour};font-weight:bold">{mark} {html.escape(self.verdict())}</span> '
            f"\\({html.escape(claim_latex(self.claim))}\\)"
            f"<br><small>{html.escape(self.method)}</small>"
            f"<br><small><em>Soundness:</em> {html.escape(self.evidence())}</small>"
            "<details><summary>derivation (LaTeX)</summary>"
            f'<pre style="white-space:pre-wrap">{html.escape(self.latex())}</pre></details></div>'
        )

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


#: the kinds of evidence, as the verdict of a derivation states them
_EVIDENCE = {
    "proof": "a proof", "probabilistic proof": "a probabilistic proof",
    "numerical evidence": "numerical evidence, not a proof",
    "numerical evidence (inexact data)": "numerical evidence on inexact data, not a proof",
    "counterexample": "a counterexample", "undecided": "undecided",
}

#: how each stage of the zero test decided, in words
_STAGE_PHRASE = {
    "structural": "structurally", "exact": "exact arithmetic", "modular": "exact arithmetic modulo random primes",
    "randomized": "randomized high-precision evaluation", "numeric": "evaluation of inexact data",
    "pieces": "randomized evaluation, piece by piece",
}

_GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau upsilon"
          " phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega").split()
#: words of a claim that are mathematics, not English
_MATH_WORDS = {"id": r"\mathrm{id}", "grad": r"\nabla", "exp": r"\exp", "log": r"\log", "sin": r"\sin",
               "cos": r"\cos", "det": r"\det", "dim": r"\dim", "sum": r"\sum", "rank": r"\operatorname{rank}"}
_CLAIM_TOKEN = re.compile(r"[A-Za-z]+|==|!=|>=|<=|\s+|.", re.S)


def claim_latex(claim: str) -> str:
    r"""A certificate's claim (ASCII mathematics with English words) as LaTeX math.

    Greek names become letters (``phi`` is ``\varphi``), ``==`` is ``=``, `` o `` is ``\circ``,
    `` ^ `` between forms is ``\wedge``, ``L_X`` is ``\mathcal{L}_X``; runs of English words
    are set as text.

    >>> print(claim_latex("phi^* omega == omega"))
    \varphi^* \omega = \omega
    >>> print(claim_latex("phi_h o phi_{-h} == id"))
    \varphi_h \circ \varphi_{-h} = \mathrm{id}
    >>> print(claim_latex("phi^* eta == g eta, g nowhere zero for small h"))
    \varphi^* \eta = g \eta, g\text{ nowhere zero for small }h
    """
    tokens = _CLAIM_TOKEN.findall(str(claim))
    out, text, depth = [], [], []

    def english(k):
        tok = tokens[k]
        nxt = tokens[k + 1] if k + 1 < len(tokens) else ""
        prev = tokens[k - 1] if k else ""
        if not (tok.isalpha() and tok.islower()) or tok in _GREEK or tok in _MATH_WORDS:
            return False
        if nxt in ("_", "^", "(", "'") or prev in ("_", "^"):
            return False
        if len(tok) == 1:
            return tok == "a" and _english_ahead(tokens, k + 1)
        return not (len(tok) == 2 and tok[0] == "d")

    def flush():
        if text:
            words = "".join(text)
            core = words.strip()
            if core:
                lead = " " if words[:1].isspace() else ""
                trail = " " if words[-1:].isspace() else ""
                if out and out[-1] == " " and lead:
                    out.pop()
                out.append(r"\text{" + lead + tex_text(core) + trail + "}")
            text.clear()

    for k, tok in enumerate(tokens):
        nxt = tokens[k + 1] if k + 1 < len(tokens) else ""
        prev = tokens[k - 1] if k else ""
        if english(k) or (tok.isspace() and (text or _english_ahead(tokens, k + 1))) \
                or (text and tok in ",;" and _english_ahead(tokens, k + 1)):
            text.append(" " if tok.isspace() else tok)
            continue
        flush()
        if tok.isspace():
            if out and out[-1] != " ":
                out.append(" ")
        elif tok in _GREEK:
            out.append({"phi": r"\varphi", "epsilon": r"\varepsilon"}.get(tok, "\\" + tok))
        elif tok in _MATH_WORDS and prev not in ("_", "^"):
            out.append(_MATH_WORDS[tok])
        elif tok == "L" and nxt == "_":
            out.append(r"\mathcal{L}")
        elif tok in ("==", "!=", ">=", "<="):
            out.append({"==": "=", "!=": r"\neq", ">=": r"\geq", "<=": r"\leq"}[tok])
        elif tok == "o" and prev.isspace() and nxt.isspace():
            out.append(r"\circ")
        elif tok == "^" and prev.isspace() and nxt.isspace():
            out.append(r"\wedge")
        elif tok in "^_" and (not nxt or nxt.isspace()):      # a script with nothing to carry
            out.append(r"\hat{}" if tok == "^" else r"\_")
        elif tok == "{":
            script = prev in ("_", "^")
            depth.append(script)
            out.append("{" if script else r"\{")
        elif tok == "}":
            out.append("}" if depth and depth.pop() else r"\}")
        elif tok in "#$%&":
            out.append("\\" + tok)
        elif tok == "~":
            out.append(r"\sim")
        elif tok == "\\":
            out.append(r"\backslash")
        else:
            out.append(tok)
    flush()
    out += ["}"] * sum(1 for script in depth if script)     # a script left open
    result = ""
    for piece in out:
        # a command followed by a letter needs a space (\varphi h, not \varphih)
        if piece[:1].isalpha() and re.search(r"\\[A-Za-z]+$", result):
            result += " "
        result += piece
    return result.strip()


def _english_ahead(tokens, k) -> bool:
    """Whether an English word follows (through spaces and commas) from token ``k``."""
    for i in range(k, len(tokens)):
        tok = tokens[i]
        if tok.isspace() or tok in ",;":
            continue
        if tok == "a":
            return _english_ahead(tokens, i + 1)
        return (tok.isalpha() and tok.islower() and len(tok) >= 2 and tok not in _GREEK and tok not in _MATH_WORDS
                and not (len(tok) == 2 and tok[0] == "d"))
    return False


def _tex_key(k) -> str:
    """A counterexample key: a coordinate name as a symbol, a jet description as text.

    Jet descriptions such as ``V_{q}(1/2, 3)`` are not symbol names (typeset as one
    they give LaTeX errors like a double subscript).
    """
    s = str(k)
    if re.fullmatch(r"[A-Za-z]+[0-9]*(_[A-Za-z0-9]+|_\{[A-Za-z0-9,+\-]+\})?(\^\{[A-Za-z0-9()+\-]+\})?'*", s):
        return sympy.latex(sympy.Symbol(s))
    m = _JET_KEY.fullmatch(s)
    if m:       # df_1/dp_1(1/2, 3): a derivative in the user's notation, at a point
        order, name, below, args = m.groups()
        slots = re.findall(r"d([A-Za-z][A-Za-z0-9_{},]*?)(?:\^(\d+))?(?=d[A-Za-z]|$)", below)
        if slots and all(re.fullmatch(_NAME, v) for v, _ in slots) and re.fullmatch(_NAME, name):
            top = r"\partial" + ("^{%s}" % order if order and order != "1" else "") + " " + sympy.latex(sympy.Symbol(name))
            bottom = r"\,".join(r"\partial " + sympy.latex(sympy.Symbol(v)) + ("^{%s}" % n if n else "")
                                 for v, n in slots)
            return r"\frac{" + top + "}{" + bottom + r"}\left(" + tex_text(args).replace(",", ",\\,") + r"\right)"
    return r"\text{" + tex_text(s) + "}"


_NAME = r"[A-Za-z]+[0-9]*(_[A-Za-z0-9]+|_\{[A-Za-z0-9,]+\})?"
_JET_KEY = re.compile(r"d(?:\^(\d+))?([A-Za-z][^/]*)/((?:d[^(]+))\((.*)\)")


def _tex_value(v) -> str:
    try:
        return sympy.latex(sympy.nsimplify(v) if isinstance(v, str) else v)
    except (sympy.SympifyError, TypeError, ValueError):
        return r"\text{" + tex_text(str(v)) + "}"
