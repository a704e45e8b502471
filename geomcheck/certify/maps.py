"""Certificates for one-step maps: symplectic, conformally symplectic, contact, any form.

Each certificate pulls the form back by the map (explicit or implicit), forms the
residual that must vanish, and decides it with the staged zero test; implicit maps
are decided on their solution manifold.  Each also checks what its claim takes for
granted, on the domain of the map's source chart (and the assumptions of the
parameters):

- a symplectic form must be non-degenerate: the zero form, and forms whose coefficient
  matrix is singular identically or at a point of the domain, are refused with
  :class:`~geomcheck.errors.DegenerateFormError` (naming the point); when
  non-degeneracy cannot be decided the certificate is undecided, never True;
- the factor k of a conformally symplectic map must be a nonzero constant, and the
  factor g of a contact map must be nowhere zero on the domain (proved with
  :func:`geomcheck.signs.decide_sign`; a factor, or a Pfaffian, with poles is judged
  where it is defined, by its numerator); a point where the factor vanishes is a
  counterexample.  ``domain={h: (0, Rational(1, 10))}`` states a narrower region for
  these side conditions (a step size, a damping), and the certificate says so;
- a map between two *different* charts is compared only through an identification of
  their coordinates passed explicitly (``identify={q: Q, p: P}`` or
  ``identify="by position"``), which the certificate states; charts with the same
  coordinates need none.

The factor of a certificate that holds is given in the user's notation (derivatives of
undefined functions as ``Derivative`` / ``Subs``, not internal jets), cancelled when it
is small; ``factor`` is None on a certificate that does not hold.

>>> import geomcheck as gc, sympy
>>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
>>> V = sympy.Function("V")
>>> p_half = p - h / 2 * V(q).diff(q)
>>> Q = q + h * p_half
>>> P = p_half - h / 2 * gc.substitute(V(q).diff(q), {q: Q})   # Stormer-Verlet, any V
>>> gc.certify_symplectic(gc.Map(M, M, [Q, P]), M.d(q) ^ M.d(p)).holds
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal
from dataclasses import replace

import sympy
from sympy.polys.polyerrors import PolynomialError

from ..errors import (
    ChartMismatchError,
    DegenerateFormError,
    ExpressionError,
    ImplicitDerivativeError,
    InvalidArgumentError,
    MixedDegreeError,
    UnknownCoordinateError,
)
from ..forms import Form, d
from ..latex import MAP_NODES, Derivation, expression_size, latex, summarize, summarize_map, summarize_text
from ..maps import ImplicitMap, Map, pullback, substitute
from ..domain import Domain, describe_pairs
from ..signs import decide_sign, domain_point
from ..zero import Jet, Soundness, canonical_jets, decide_zero, from_jets
from .certificate import Certificate, point_by_name

__all__ = ["certify_symplectic", "certify_conformal_symplectic", "certify_contact", "certify_preserves",
           "certify_conserves"]

#: expressions with more nodes than this are summarized, not typeset, in derivations
_TYPESET_NODES = MAP_NODES
#: factors with more nodes than this are given as computed, not cancelled
_CANCEL_NODES = 2000
#: blocks of a 2-form with non-constant coefficients up to this size get their Pfaffian computed
_PFAFFIAN_MAX = 12
#: seconds for proving a factor (or a Pfaffian) nowhere zero
_SIGN_BUDGET = 5.0
#: expressions named in a method's sentence are printed up to this many nodes, and described beyond
_PHRASE_NODES = 2000
#: an expression of more than this many nodes prints to more than 80 characters (every node
#: prints at least a character or stands next to one: at most about 3 nodes a character)
_NAMED_NODES = 400
#: likewise for a 2-form of more than this many coefficient nodes and 120 characters
_DESCRIBED_NODES = 600


# ------------------------------------------------------------------------------------ input checks


def _check_map(phi, who):
    if not isinstance(phi, (Map, ImplicitMap)):
        raise ExpressionError(f"{who} expects a Map or ImplicitMap, got {type(phi).__name__} {phi!r}")
    if phi.source.dim != phi.target.dim:
        raise ChartMismatchError(
            f"{who}: the map goes from dimension {phi.source.dim} ({phi.source!r}) to dimension"
            f" {phi.target.dim} ({phi.target!r}); a map of a space to itself was expected"
        )


def _check_form(form, phi, degree, who, what):
    if not isinstance(form, Form):
        raise ExpressionError(f"{who} expects a {what}, got {type(form).__name__} {form!r}")
    if form.chart not in (phi.target, phi.source):
        raise ChartMismatchError(
            f"{who}: the form lives on {form.chart!r}, the map goes {phi.source!r} -> {phi.target!r}")
    if degree is not None:
        try:
            k = form.degree
        except MixedDegreeError:
            raise MixedDegreeError(f"{who} expects a {what} (degree {degree}); {form} has mixed degree") from None
        if k != degree:
            raise MixedDegreeError(f"{who} expects a {what} (degree {degree}), got a {k}-form {form}")


def _require_even(phi, who):
    if phi.source.dim % 2:
        raise ChartMismatchError(
            f"{who}: {phi.source!r} has odd dimension {phi.source.dim}; symplectic forms live in even dimension"
        )


# -------------------------------------------------------------------------- identifying two charts


class _Identification:
    """Which coordinate of the target chart stands for which coordinate of the source chart."""

    __slots__ = ("to_target", "to_source", "how")

    def __init__(self, pairs, how):
        self.to_target = {s: t for s, t in pairs}
        self.to_source = {t: s for s, t in pairs}
        self.how = how

    @property
    def trivial(self) -> bool:
        return all(s == t for s, t in self.to_target.items())

    def phrase(self) -> str:
        pairs = ", ".join(f"{t} = {s}" for s, t in self.to_target.items())
        return f"the target chart is identified with the source chart {self.how}: {pairs}"

    def latex(self) -> str:
        return r",\quad ".join(latex(t) + r" \leftrightarrow " + latex(s) for s, t in self.to_target.items())


def _resolve(key, chart, role, who):
    """The coordinate of ``chart`` that ``key`` (a Symbol or a name) names."""
    if isinstance(key, sympy.Symbol) and key in chart.coords:
        return key
    if isinstance(key, str):
        hits = [c for c in chart.coords if c.name == key]
        if hits:
            return hits[0]
    raise UnknownCoordinateError(
        f"{who}: identify names {key!r}, which is not a coordinate of the {role} chart {chart!r};"
        " expected {source coordinate: target coordinate}"
    )


def _identification(phi, identify, who) -> _Identification:
    """The identification of the map's target chart with its source chart (validated)."""
    S, T = phi.source, phi.target
    same = set(S.coords) == set(T.coords)
    if identify is None:
        if same:
            return _Identification([(c, c) for c in S.coords], "by coordinate")
        raise ChartMismatchError(
            f"{who}: the map goes from {S!r} to the different chart {T!r}, so the form on one cannot be compared"
            f" with the form on the other without saying which coordinates correspond; pass"
            f" identify={{source coordinate: target coordinate, ...}} or identify='by position'"
        )
    if isinstance(identify, str):
        if identify.strip().lower() != "by position":
            raise InvalidArgumentError(
                f"{who}: identify must be 'by position' or a mapping {{source coordinate: target coordinate}},"
                f" got {identify!r}"
            )
        ident = _Identification(list(zip(S.coords, T.coords)), "by position")
    elif isinstance(identify, Mapping):
        try:
            pairs = [(_resolve(k, S, "source", who), _resolve(v, T, "target", who)) for k, v in identify.items()]
        except UnknownCoordinateError:
            # a mapping written the other way round deserves a pointed message
            if all(_names_coordinate(k, T) and _names_coordinate(v, S) for k, v in identify.items()):
                raise InvalidArgumentError(
                    f"{who}: identify maps target coordinates to source coordinates; write it the other way"
                    f" round, {{source coordinate: target coordinate}}"
                ) from None
            raise
        sources = [s for s, _ in pairs]
        targets = [t for _, t in pairs]
        missing = [c.name for c in S.coords if c not in sources]
        if missing or len(set(sources)) != len(sources) or len(set(targets)) != len(targets):
            raise InvalidArgumentError(
                f"{who}: identify must pair every source coordinate with a distinct target coordinate;"
                f" got {identify!r}" + (f" (missing: {', '.join(missing)})" if missing else "")
            )
        ident = _Identification(pairs, "as given")
    else:
        raise InvalidArgumentError(
            f"{who}: identify must be 'by position' or a mapping {{source coordinate: target coordinate}},"
            f" got {type(identify).__name__} {identify!r}"
        )
    if S.coords == T.coords and not ident.trivial:
        raise InvalidArgumentError(
            f"{who}: the map goes from {S!r} to a chart with the same coordinates; identify {identify!r} would"
            " exchange coordinates of one chart (leave it out)"
        )
    return ident


def _names_coordinate(key, chart) -> bool:
    return (isinstance(key, sympy.Symbol) and key in chart.coords) or (
        isinstance(key, str) and any(c.name == key for c in chart.coords))


def _on_both(form: Form, phi, ident: _Identification):
    """The form on the map's target chart and on its source chart, carried over by the identification."""
    def carried(chart, rename):
        if form.chart == chart:
            return form
        if ident.trivial:
            # the same coordinate symbols (perhaps another order or domain): only the chart changes
            return Form(chart, {tuple(form.chart.coords[i] for i in key): v for key, v in form.terms.items()})
        components = {tuple(rename[form.chart.coords[i]] for i in key): v.xreplace(rename)
                      for key, v in form.terms.items()}
        return Form(chart, components)

    return carried(phi.target, ident.to_target), carried(phi.source, ident.to_source)


# --------------------------------------------------------------------------------- typesetting


def _show(obj) -> str:
    """LaTeX of a form or expression, summarized when too large to be read."""
    return summarize(obj, _TYPESET_NODES)


def _show_in(expr, T=None) -> str:
    """An expression in the notation of the implicit map's derivation (``H_{qp}`` at ``z``), when there is one."""
    if T is None or isinstance(expr, Form):
        return _show(expr)
    try:
        return T.notation.latex(expr)
    except _TYPESETTING_ERRORS:
        return _show(expr)


#: what the typesetting of an implicit map may raise on expressions it cannot present (then the
#: derivation shows the objects as they are: a verdict never depends on its typesetting)
_TYPESETTING_ERRORS = (PolynomialError, sympy.SympifyError, ValueError, TypeError, NotImplementedError,
                       AttributeError, KeyError, IndexError, RecursionError)


def _typesetting(phi):
    """The derivation's typesetting of an implicit map in the user's notation, or None
    (explicit maps, and implicit maps without symbolic implicit-function-theorem data)."""
    from .implicit_tex import ImplicitTypesetting

    try:
        return ImplicitTypesetting.of(phi)
    except _TYPESETTING_ERRORS:
        return None


def _map_step(D: Derivation, phi, T=None, claim_tex=None) -> Derivation:
    if T is not None:
        try:
            return T.map_steps(D, claim_tex)
        except _TYPESETTING_ERRORS:
            pass
    if isinstance(phi, Map):
        return D.add(r"The map $\varphi$ is", summarize_map(phi, _TYPESET_NODES))
    return D.add(r"The map $\varphi$ is defined implicitly by", latex(phi))


def _form_step(D: Derivation, text: str, lhs: str, form, T=None, label: str = "N", holds=None) -> Derivation:
    """``lhs = form``: over powers of the determinant of the implicit function theorem, with
    the numerators expanded, when the map is implicit (:mod:`.implicit_tex`).  For a residual
    (``holds`` given), numerators that are not identically zero are reduced by the equations of
    the map solved for their unknowns, and what the reduction shows is said."""
    try:
        rows = T.form_rows(lhs, form, label) if T is not None and isinstance(form, Form) else None
        if rows is not None:
            from .implicit_tex import numerators_rows

            shown = numerators_rows(T, rows[1])
            solutions = _on_solutions_phrase(T, rows[3], holds) if rows[3] and holds is not None else ""
    except _TYPESETTING_ERRORS:
        rows = None
    if rows is None:
        return D.add(text, lhs + " &= " + _show(form))
    head, numerators, vanished, _, power = rows
    over = "" if T.constant_delta or not power else r"over powers of $\Delta$, "
    notes = []
    if numerators:
        notes.append(over + r"the numerators expanded and written through $\Delta$ where it divides them" if over
                     else "the coefficients expanded")
    if vanished:
        what = ("the coefficient" if T.constant_delta else "the numerator") + ("s" if vanished > 1 else "")
        of = "" if vanished == 1 and not numerators else (" of %d further component%s" % (vanished, "s" * (vanished > 1))
                                                          if numerators else " of all %d components" % vanished)
        verb = " expand" + "s" * (vanished == 1 and not of) + " to 0"
        notes.append((over if not numerators else "") + what + of + verb)
    text = text + (" (" + "; ".join(notes) + ")" if notes else "")
    D = D.add(text, head + (r" \\ " + shown if numerators else ""))
    return D.add(solutions) if solutions else D


def _on_solutions_phrase(T, numerators, holds) -> str:
    """What the numerators of a residual become once the equations of the map are used."""
    reduced = [T.on_solutions(num) for _, num, _ in numerators]
    names = []
    for r in reduced:
        if r is not None:
            names += [u for u in r[1] if u not in names]
    if names and all(r is not None and r[0] == 0 for r in reduced):
        unknowns = ", ".join("$" + T.notation.symbol_latex(u) + "$" for u in names)
        return (r"These are not zero as polynomials, but they vanish on the solutions of the equations:"
                r" with " + unknowns + r" replaced by what the equations give "
                + ("it" if len(names) == 1 else "them") + r", each expands to 0.")
    if holds is True:
        return (r"These are not zero as polynomials; they vanish where the unknowns solve the equations"
                r" of $\varphi$, as the decision below shows.")
    return ""


def _identification_step(D: Derivation, ident: _Identification) -> Derivation:
    if ident.trivial:
        return D
    return D.add(r"The target chart is identified with the source chart (%s):" % ident.how, ident.latex())


# --------------------------------------------------------------------------------- the verdict


#: the kinds of evidence, weakest first (a verdict resting on several is as strong as the weakest)
_WEAKEST_FIRST = ("undecided", "numerical evidence", "probabilistic proof", "proof")


def _certificate(claim, residual: Form, D: Derivation, conditions=(), factor=None, ident=None,
                 domain=(), decisions=(), T=None) -> Certificate:
    """The certificate of ``residual == 0`` and of every extra condition.

    ``conditions``: ``(holds, phrase, counterexample, stage)`` for what the claim needs
    besides the residual (a non-degenerate form, a constant or nowhere-zero factor).  A
    refuted condition refutes the claim (its point is a counterexample); an undecided
    one leaves it undecided; ``factor`` is kept only when everything holds.  ``decisions``
    are the other zero tests the verdict rests on (their soundness records are weighed
    with the residual's).  ``domain``: the claim's region as ``(name, phrase)`` pairs
    (:func:`_where`).  ``T``: the typesetting of an implicit map (:func:`_typesetting`).
    """
    decision = residual.zero_decision()
    holds, method, stage = decision.is_zero, decision.method, decision.stage
    point = decision.point if holds is False else None
    soundness = getattr(decision, "soundness", None)
    for c_holds, phrase, c_point, c_stage in conditions:
        method = method + "; " + phrase
        if c_holds is False and holds is not False:
            holds, point, stage = False, c_point, c_stage
            soundness = Soundness("counterexample", "counterexample", describe_pairs(domain),
                                  tuple(str(k) for k in (c_point or {})))
    if holds is True and any(c[0] is None for c in conditions):
        holds, stage = None, "unknown"
        soundness = Soundness("unknown", "undecided", describe_pairs(domain))
    if holds is True:
        records = [r for r in [soundness] + [getattr(d, "soundness", None) for d in decisions] if r is not None]
        if records:
            soundness = min(records, key=lambda r: _WEAKEST_FIRST.index(r.kind) if r.kind in _WEAKEST_FIRST else 0)
    if ident is not None and not ident.trivial:
        method = method + "; " + ident.phrase()
    soundness = _claim_soundness(soundness, domain)
    D = _form_step(D, r"The residual, which must vanish, is", "R", residual, T, "N^{R}", holds=holds)
    return Certificate(
        claim=claim,
        holds=holds,
        method=method,
        stage=stage,
        residual=residual,
        factor=factor if holds is True else None,
        counterexample=point_by_name(point) if holds is False else None,
        derivation=D,
        soundness=soundness,
    )


def _region(chart, domain, who):
    """The chart's domain, with the intervals of ``domain`` (the region a claim is stated on) taking precedence."""
    if domain is None:
        return chart.domain
    if not isinstance(domain, (Mapping, Domain)):
        raise InvalidArgumentError(
            f"{who}: domain must be a mapping {{symbol: (lo, hi)}} (the region of the claim), got {domain!r}")
    return chart.domain.merged(domain)


def _where(phi, region=None) -> tuple:
    """The region of the claim (the source chart's domain, perhaps narrowed): ``(name, phrase)``
    for each coordinate (in words with :func:`geomcheck.domain.describe_pairs`)."""
    region = region if region is not None else phi.source.domain
    return tuple(region.describe_each([c for c in phi.source.coords if c.is_commutative]))


def _claim_soundness(soundness, domain):
    """The record of the residual's decision, stated on the claim's whole domain (every coordinate
    of the chart, and the parameters the decision met)."""
    pairs = tuple(domain)
    if soundness is None or not pairs:
        return soundness
    names = {n for n, _ in pairs}
    merged = pairs + tuple(p for p in soundness.domains if p[0] not in names)
    symbols = tuple(dict.fromkeys([n for n, _ in pairs] + list(soundness.symbols)))
    return replace(soundness, domain=describe_pairs(merged), domains=merged, symbols=symbols)


def _implicit_symbols(form: Form) -> frozenset:
    """The unknowns (and derived symbols) of the implicit maps a form depends on."""
    out = set()
    for dep in form.dependence:
        out.update(dep.relation.unknowns)
        out.update(dep.relation.derived_symbols)
    return frozenset(out)


def _sign_where_defined(expr, region, opaque=frozenset()):
    """``decide_sign`` of ``expr``; when it has poles (or is undecided), of its numerator.

    A quotient ``N/D`` vanishes nowhere where it is defined when ``N`` vanishes nowhere:
    where ``D = 0`` the quantity (a factor read off a pullback, a Pfaffian) is not defined,
    and neither is what it was read off.  Returns the decision and a note saying which
    was decided ("" for ``expr`` itself).
    """
    s = decide_sign(expr, region, opaque=opaque, budget=_SIGN_BUDGET)
    if s.verdict in ("undefined", "unknown") and not s.nowhere_zero:
        num, den = sympy.fraction(sympy.together(expr)) if expression_size(expr, _CANCEL_NODES) <= _CANCEL_NODES \
            else (expr, sympy.S.One)
        if den != 1:
            sn = decide_sign(num, region, opaque=opaque, budget=_SIGN_BUDGET)
            if sn.nowhere_zero:
                return sn, (f" where it is defined (its numerator {summarize_text(num, _PHRASE_NODES)} is {sn.verdict};"
                            f" it has poles where {summarize_text(den, _PHRASE_NODES)} = 0)")
    return s, ""


def _nowhere_zero(expr, chart, region, opaque, what, relations=(), closed=None) -> tuple:
    """The condition "``expr`` vanishes nowhere on the chart's domain", as ``(holds, phrase, point, stage)``.

    ``opaque``: the unknowns of implicit maps in ``expr`` (arbitrary values for the sign
    prover); ``relations`` fix them, so that a factor known only on the solution manifold
    can still be recognised as the constant 1 or -1 there.
    """
    s, note = _sign_where_defined(expr, region, opaque)
    # counted before printed: a huge factor is never printed only to be found too long
    text = str(expr) if expression_size(expr, _NAMED_NODES) <= _NAMED_NODES else None
    named = f"{what} = {text}" if text is not None and len(text) <= 80 else what
    if closed is not None:
        named += f" (the computed factor equals this closed form: {closed.method})"
    if s.nowhere_zero:
        return True, f"{named} vanishes nowhere on the domain{note} ({s.reason})", None, None
    if s.verdict == "unknown" and relations and expr.free_symbols & opaque:
        for c in (1, -1):
            same = decide_zero(expr - c, relations=relations, domain=region)
            if same.is_zero is True:
                return True, f"{what} equals {c} on the solution manifold ({same.method})", None, None
    if s.verdict in ("vanishes", "undefined"):
        where = ", ".join(f"{k} = {v}" for k, v in s.point.items()) or "every point"
        if s.verdict == "undefined":
            return None, f"{named} is undefined at {where}, a point of the domain ({s.reason})", None, None
        point = dict(s.point)
        free = [c for c in chart.coords if c not in point and c.is_commutative]
        point.update(domain_point(free, region))
        return False, f"{named} vanishes at {where}, a point of the domain ({s.reason})", point, "counterexample"
    return None, f"{named} is not shown to vanish nowhere on the domain: {s.verdict} ({s.reason})", None, None


def _nowhere_zero_for_small(expr, step, chart, region, opaque, what, relations=(), closed=None) -> tuple:
    """"``expr`` vanishes nowhere for all sufficiently small ``step``": its value at ``step = 0``
    vanishes nowhere on the domain (by continuity every point then has a neighbourhood of
    step sizes where ``expr`` is not 0)."""
    at0 = substitute(expr, {step: sympy.S.Zero})
    if at0.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or at0.free_symbols & opaque:
        return None, (f"{what} is not shown to vanish nowhere for small {step}: its value at {step} = 0 is "
                      f"{'not finite' if at0.free_symbols.isdisjoint(opaque) else 'not explicit'}"), None, None
    holds, phrase, point, stage = _nowhere_zero(at0, chart, region, opaque, f"{what} at {step} = 0", relations)
    if holds is True:
        return True, f"{what} tends to {summarize_text(at0, _PHRASE_NODES)} as {step} -> 0 and is nonzero for every sufficiently small {step} ({phrase})", \
            None, None
    if holds is False:
        point = dict(point or {})
        return None, (f"{what} may vanish for small {step}: at {step} = 0 it vanishes at "
                      f"{', '.join(f'{k} = {v}' for k, v in point.items())}"), None, None
    return None, phrase, None, None


# ------------------------------------------------------------------------------- non-degeneracy


def _describe(form: Form) -> str:
    # counted before printed: a large form is never printed only to be found too long
    small = expression_size(list(form.terms.values()), _DESCRIBED_NODES) <= _DESCRIBED_NODES
    text = str(form) if small else None
    return f"the 2-form {text}" if text is not None and len(text) <= 120 else f"a 2-form with {len(form.terms)} components"


def _blocks(form: Form):
    """The coordinate indices of the connected blocks of the coefficient matrix, and the unused ones."""
    n = form.chart.dim
    parent = list(range(n))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    used = set()
    for i, j in form.terms:
        used.update((i, j))
        parent[root(i)] = root(j)
    groups = {}
    for i in sorted(used):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values()), [i for i in range(n) if i not in used]


def _pfaffian(form: Form, block):
    """The Pfaffian (up to sign) of the block of the coefficient matrix: from the top wedge power."""
    part = Form._raw(form.chart, {k: v for k, v in form.terms.items() if k[0] in block}, 2)
    m = len(block) // 2
    top = part
    for _ in range(m - 1):
        top = top ^ part
    return top.terms.get(tuple(block), sympy.S.Zero) / math.factorial(m)


def _constant_determinant(form: Form, block):
    from sympy.polys.matrices import DomainMatrix

    index = {c: k for k, c in enumerate(block)}
    rows = [[sympy.S.Zero] * len(block) for _ in block]
    for (i, j), v in form.terms.items():
        if i in index:
            rows[index[i]][index[j]] = v
            rows[index[j]][index[i]] = -v
    return DomainMatrix.from_list_sympy(len(block), len(block), rows).to_field().det()


def _nondegeneracy(form: Form, who, region=None) -> tuple:
    """``(holds, phrase, None, None)`` for "the 2-form is non-degenerate on its chart's domain".

    Raises DegenerateFormError when it is degenerate identically or at a point of the domain.
    """
    chart = form.chart
    region = region if region is not None else chart.domain
    name = _describe(form)
    if not form.terms:
        raise DegenerateFormError(f"{who}: the 2-form is zero; a symplectic (non-degenerate) 2-form was expected")
    blocks, unused = _blocks(form)
    if unused:
        missing = ", ".join("d" + chart.coords[i].name for i in unused)
        raise DegenerateFormError(
            f"{who}: {name} is degenerate everywhere: it does not involve {missing} (zero rows of its coefficient"
            " matrix); a symplectic (non-degenerate) 2-form was expected"
        )
    pfaffians = []
    for block in blocks:
        coords = ", ".join(chart.coords[i].name for i in block)
        if len(block) % 2:
            raise DegenerateFormError(
                f"{who}: {name} is degenerate everywhere: its coefficients couple {coords}, an odd number of"
                " coordinates, so its coefficient matrix has determinant 0"
            )
        values = [v for k, v in form.terms.items() if k[0] in block]
        if len(block) == 2 and values[0].is_Rational:
            continue  # c dx^i ^ dx^j with a nonzero number c (components are structurally nonzero)
        if all(v.is_number and v.is_Rational for v in values):
            if _constant_determinant(form, block) == 0:
                raise DegenerateFormError(
                    f"{who}: {name} is degenerate everywhere: the constant coefficient matrix of {coords} is singular"
                )
            continue
        if len(block) > _PFAFFIAN_MAX:
            return (None, f"whether {name} is non-degenerate was not decided (a block of {len(block)} coupled"
                    " coordinates with non-constant coefficients)", None, None)
        pfaffians.append((coords, _pfaffian(form, block)))
    proved = []
    for coords, pf in pfaffians:
        if decide_zero(pf, domain=region).is_zero is True:
            raise DegenerateFormError(
                f"{who}: {name} is degenerate everywhere: the Pfaffian {summarize_text(pf, _PHRASE_NODES)} of its coefficient matrix (in {coords})"
                " vanishes identically"
            )
        s, note = _sign_where_defined(pf, region)
        if s.verdict == "vanishes" and not note:
            where = ", ".join(f"{k} = {v}" for k, v in s.point.items())
            raise DegenerateFormError(
                f"{who}: {name} degenerates at {where}, a point of the domain ({region.describe(chart.coords)}):"
                f" the Pfaffian {summarize_text(pf, _PHRASE_NODES)} of its coefficient matrix vanishes there ({s.reason})"
            )
        if not s.nowhere_zero:
            return (None, f"whether {name} is non-degenerate on the domain was not decided: the Pfaffian {summarize_text(pf, _PHRASE_NODES)} of its"
                    f" coefficient matrix is {s.verdict} ({s.reason})", None, None)
        proved.append(f"{summarize_text(pf, _PHRASE_NODES)}: {s.verdict}{note}")
    phrase = "the form is non-degenerate on the domain"
    if proved:
        phrase += " (Pfaffians " + "; ".join(proved) + ")"
    return True, phrase, None, None


# ---------------------------------------------------------------------------------- the factors


def _factor(pulled: Form, base: Form):
    """The function f with pulled == f * base, read off the simplest nonzero component of base."""
    key = min(base.terms, key=lambda k: (not base.terms[k].is_Number,
                                         expression_size(base.terms[k], _TYPESET_NODES), k))
    return pulled.terms.get(key, sympy.S.Zero) / base.terms[key]


def _user_factor(f, region, relations=()):
    """``f`` in the user's notation and in closed form where one is found; and the zero test that showed it.

    Small factors are cancelled (an exact identity of rational functions in the symbols,
    jets and other atoms).  A large one (a composition, many degrees of freedom) is
    compared with the candidate its jets give when set to 0 -- the factor of a damped
    Verlet step does not depend on the potential -- and replaced by it only when the zero
    test shows the two equal (the returned decision, on which the verdict then also
    rests).  Jets go back to ``Derivative`` / ``Subs``.
    """
    jf = canonical_jets(f)
    if expression_size(jf, _CANCEL_NODES) <= _CANCEL_NODES:
        return from_jets(sympy.cancel(jf)), None
    jets = jf.atoms(Jet)
    if jets:
        candidate = jf.xreplace({j: sympy.S.Zero for j in jets})
        if expression_size(candidate, _CANCEL_NODES) <= _CANCEL_NODES:
            candidate = sympy.cancel(candidate)
            if not candidate.has(sympy.zoo, sympy.nan):
                same = decide_zero(jf - candidate, relations=relations, domain=region)
                if same.is_zero is True:
                    return candidate, same
    return from_jets(f), None


# -------------------------------------------------------------------------------- certificates


def certify_preserves(phi: Map | ImplicitMap, form: Form, *,
                      identify: Mapping[Any, Any] | Literal["by position"] | None = None) -> Certificate:
    """Certify ``phi^* form == form`` for a form of any degree (e.g. a modified 2-form).

    Parameters
    ----------
    phi : Map or ImplicitMap
    form : Form
        On the map's source or target chart.
    identify : mapping or "by position", optional
        For a map between two different charts: ``{source coordinate: target
        coordinate}`` (Symbols or names), or ``"by position"`` (the k-th coordinates
        correspond).  Required then; stated in the certificate.

    Raises
    ------
    ChartMismatchError
        The map joins two different charts and no identification was given.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> rotation = gc.Map(M, M, [p, -q])
    >>> gc.certify_preserves(rotation, M.d(q) ^ M.d(p)).holds
    True
    >>> N = gc.Chart("Q P"); Q, P = N.coords
    >>> c = gc.certify_preserves(gc.Map(M, N, [p, -q]), N.d(Q) ^ N.d(P), identify={q: Q, p: P})
    >>> c.holds, "identified" in c.method
    (True, True)
    """
    _check_map(phi, "certify_preserves")
    _check_form(form, phi, None, "certify_preserves", "form")
    ident = _identification(phi, identify, "certify_preserves")
    target, source = _on_both(form, phi, ident)
    pulled = pullback(target, phi)
    T = _typesetting(phi)
    D = _map_step(Derivation(r"$\varphi^*\alpha = \alpha$"), phi, T, r"\varphi^*\alpha = \alpha")
    D = _identification_step(D, ident)
    D = D.add(r"The form is", r"\alpha &= " + _show(source))
    D = _form_step(D, r"Its pullback is", r"\varphi^*\alpha", pulled, T)
    return _certificate("phi^* alpha == alpha", pulled - source, D, ident=ident, domain=_where(phi), T=T)


def certify_symplectic(phi: Map | ImplicitMap, omega: Form, *,
                       identify: Mapping[Any, Any] | Literal["by position"] | None = None,
                       domain: Mapping[Any, tuple[Any, Any] | sympy.Interval] | Domain | None = None) -> Certificate:
    """Certify ``phi^* omega == omega`` for a symplectic (non-degenerate) 2-form omega.

    Parameters
    ----------
    phi : Map or ImplicitMap
    omega : Form
        A 2-form on the map's source or target chart (even dimension), non-degenerate on
        its chart's domain.
    identify : mapping or "by position", optional
        The identification of two different charts (see :func:`certify_preserves`).
    domain : mapping, optional
        ``{symbol: (lo, hi)}``: the region the claim is stated on, narrowing the source
        chart's domain and the parameters' (e.g. ``{h: (0, Rational(1, 10))}`` for a step
        size); the side conditions (non-degeneracy, a nowhere-zero factor) are proved
        there, and the certificate states it.

    Returns
    -------
    Certificate
        Undecided (``holds`` None) when the non-degeneracy of omega on the domain could
        not be decided.

    Raises
    ------
    DegenerateFormError
        omega is zero, or degenerate identically or at a point of the domain (named).
    ChartMismatchError
        Odd dimension; two different charts without an identification.

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> euler = gc.Map(M, M, [q + h * p, p - h * q])     # explicit Euler, harmonic oscillator
    >>> c = gc.certify_symplectic(euler, M.d(q) ^ M.d(p))
    >>> c.holds, c.stage
    (False, 'counterexample')
    >>> gc.certify_symplectic(euler, q * M.d(q) ^ M.d(p))      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geomcheck.errors.DegenerateFormError: certify_symplectic: the 2-form (q)*dq^dp degenerates at q = 0, ...
    """
    _check_map(phi, "certify_symplectic")
    _check_form(omega, phi, 2, "certify_symplectic", "2-form")
    _require_even(phi, "certify_symplectic")
    ident = _identification(phi, identify, "certify_symplectic")
    region = _region(phi.source, domain, "certify_symplectic")
    nondegenerate = _nondegeneracy(omega, "certify_symplectic", _region(omega.chart, domain, "certify_symplectic"))
    target, source = _on_both(omega, phi, ident)
    pulled = pullback(target, phi)
    T = _typesetting(phi)
    D = _map_step(Derivation(r"$\varphi$ is symplectic: $\varphi^*\omega = \omega$"), phi, T,
                  r"\varphi^*\omega = \omega")
    D = _identification_step(D, ident)
    D = D.add(r"The symplectic form is", r"\omega &= " + _show(source))
    D = _form_step(D, r"Its pullback is", r"\varphi^*\omega", pulled, T)
    return _certificate("phi^* omega == omega", pulled - source, D, [nondegenerate], ident=ident,
                        domain=_where(phi, region), T=T)


def certify_conformal_symplectic(phi: Map | ImplicitMap, omega: Form, *,
                                 identify: Mapping[Any, Any] | Literal["by position"] | None = None,
                                 domain: Mapping[Any, tuple[Any, Any] | sympy.Interval] | Domain | None = None,
                                 small_step: sympy.Symbol | None = None) -> Certificate:
    """Certify ``phi^* omega == k omega`` with k a nonzero constant (returned as ``factor``).

    k must be constant (its differential vanishes, on the solution manifold for implicit
    maps) and nowhere zero for the parameters' values (their domain from their
    assumptions): ``k = 0`` (a map collapsing omega) is refuted, and so is a k that
    vanishes for some admissible parameters (the point is the counterexample).

    Parameters
    ----------
    phi : Map or ImplicitMap
    omega : Form
        A symplectic 2-form (see :func:`certify_symplectic`).
    identify : mapping or "by position", optional
        The identification of two different charts (see :func:`certify_preserves`).
    domain : mapping, optional
        ``{symbol: (lo, hi)}``: the region the claim is stated on, narrowing the source
        chart's domain and the parameters' (e.g. ``{h: (0, Rational(1, 10))}`` for a step
        size); the side conditions (non-degeneracy, a nowhere-zero factor) are proved
        there, and the certificate states it.
    small_step : Symbol, optional
        The claim is made for every sufficiently small value of this symbol (the step
        size of a scheme): k must then be nonzero at ``small_step = 0`` (by continuity it
        is nonzero nearby), rather than for every value (``1 - gamma*h`` vanishes at
        ``h = 1/gamma``; a scheme with that factor is conformally symplectic for small h).

    Raises
    ------
    DegenerateFormError
        omega is zero, or degenerate identically or at a point of the domain.

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h, g = sympy.symbols("h gamma")
    >>> damped = gc.Map(M, M, [q + h * p, sympy.exp(-g * h) * p])   # a damped shear
    >>> c = gc.certify_conformal_symplectic(damped, M.d(q) ^ M.d(p))
    >>> c.holds, c.factor
    (True, exp(-gamma*h))
    >>> c = gc.certify_conformal_symplectic(gc.Map(M, M, [q, g * p]), M.d(q) ^ M.d(p))
    >>> c.holds, c.counterexample                      # gamma = 0 collapses omega
    (False, {'gamma': 0, 'q': 0, 'p': 0})
    """
    _check_map(phi, "certify_conformal_symplectic")
    _check_form(omega, phi, 2, "certify_conformal_symplectic", "2-form")
    _require_even(phi, "certify_conformal_symplectic")
    ident = _identification(phi, identify, "certify_conformal_symplectic")
    region = _region(phi.source, domain, "certify_conformal_symplectic")
    nondegenerate = _nondegeneracy(omega, "certify_conformal_symplectic",
                                   _region(omega.chart, domain, "certify_conformal_symplectic"))
    target, source = _on_both(omega, phi, ident)
    pulled = pullback(target, phi)
    k = _factor(pulled, source)
    relations = tuple(dep.relation for dep in pulled.dependence)
    shown, closed = _user_factor(k, region, relations)
    T = _typesetting(phi)
    D = _map_step(Derivation(r"$\varphi$ is conformally symplectic: $\varphi^*\omega = k\,\omega$"), phi, T,
                  r"\varphi^*\omega = k\,\omega")
    D = _identification_step(D, ident)
    D = D.add(r"The symplectic form is", r"\omega &= " + _show(source))
    D = _form_step(D, r"Its pullback is", r"\varphi^*\omega", pulled, T)
    D = D.add(r"Comparing one component gives the factor", r"k &= " + _show_in(shown, T))
    # k must be a constant: its differential vanishes (on the solution manifold for implicit maps)
    try:
        dk = d(Form._raw(phi.source, {(): k} if k != 0 else {}, 0, pulled.dependence))
    except ImplicitDerivativeError:
        # implicit derivatives have no derivative: compare k at two independent points instead
        constant, k2 = _constant_by_two_points(k, phi.source, pulled.dependence)
        phrase = (f"the factor takes the same value at two independent points, so it is constant ({constant.method})"
                  if constant.is_zero else
                  f"the factor is not shown constant: k(x) - k(y) at two independent points ({constant.method})")
        D = D.add(r"and $k$ must be constant; its differential would need second derivatives of the implicit map,"
                  r" so $k$ is compared at two independent points $x$, $y$:",
                  r"k(x) - k(y) &= " + _show(k - k2))
    else:
        constant = dk.zero_decision()
        phrase = (f"the factor is constant ({constant.method})" if constant.is_zero else
                  f"the factor is not shown constant: d k = {summarize_text(dk, _PHRASE_NODES)} ({constant.method})")
        D = _form_step(D, r"and $k$ must be constant:", r"\mathrm{d}k", dk, T, "N^{k}")
    conditions = [nondegenerate,
                  (constant.is_zero, phrase, constant.point if constant.is_zero is False else None, constant.stage)]
    if constant.is_zero is not False:
        if small_step is not None:
            conditions.append(_nowhere_zero_for_small(shown, small_step, phi.source, region, _implicit_symbols(pulled),
                                                      "the factor k", relations, closed))
            D = D.add(rf"and $k$ must not vanish for small ${latex(small_step)}$.")
        else:
            conditions.append(_nowhere_zero(shown, phi.source, region, _implicit_symbols(pulled), "the factor k",
                                            relations, closed))
            D = D.add(r"and $k$ must not vanish (for any admissible parameters).")
    claim = "phi^* omega == k omega, k a nonzero constant" + (f" for small {small_step}" if small_step is not None else "")
    return _certificate(claim, pulled - k * source, D, conditions,
                        factor=shown, ident=ident, domain=_where(phi, region),
                        decisions=[constant] + ([closed] if closed is not None else []), T=T)


def _constant_by_two_points(k, chart, dependence):
    """Decide ``k(x) == k(y)`` for independent points x, y (on the solution manifold).

    A copy of k and of its relations with every coordinate, unknown and derived symbol
    renamed is a function of the second point; the difference vanishes identically iff k
    is constant (on a connected domain).  Returns the decision and the copy of k.
    """
    rename = {x: sympy.Dummy(x.name + "'") for x in chart.coords}
    for dep in dependence:
        for u in dep.relation.unknowns + dep.relation.derived_symbols:
            rename[u] = sympy.Dummy(u.name)
    copies = [dep.renamed(rename) for dep in dependence]
    k2 = k.xreplace(rename)
    relations = tuple(dep.relation for dep in dependence) + tuple(dep.relation for dep in copies)
    return decide_zero(k - k2, relations=relations, domain=chart.domain), k2


def certify_contact(phi: Map | ImplicitMap, eta: Form, *,
                    identify: Mapping[Any, Any] | Literal["by position"] | None = None,
                    domain: Mapping[Any, tuple[Any, Any] | sympy.Interval] | Domain | None = None,
                    small_step: sympy.Symbol | None = None,
                    factor_hint: sympy.Expr | float | None = None) -> Certificate:
    """Certify ``phi^* eta == g eta`` for a function g nowhere zero on the domain (returned as ``factor``).

    g is proved nowhere zero on the source chart's domain, the parameters ranging over
    the domain of their assumptions (:func:`geomcheck.signs.decide_sign`); a point where g
    vanishes is a counterexample (the claim fails there whatever the residual), and when
    neither can be shown the certificate is undecided.  ``factor`` is set only when the
    certificate holds.

    Parameters
    ----------
    phi : Map or ImplicitMap
    eta : Form
        A 1-form on the map's source or target chart (odd dimension).
    identify : mapping or "by position", optional
        The identification of two different charts (see :func:`certify_preserves`).
    domain : mapping, optional
        ``{symbol: (lo, hi)}``: the region the claim is stated on, narrowing the source
        chart's domain and the parameters' (e.g. ``{h: (0, Rational(1, 10))}`` for a step
        size); the side conditions (non-degeneracy, a nowhere-zero factor) are proved
        there, and the certificate states it.
    small_step : Symbol, optional
        The claim is made for every sufficiently small value of this symbol (the step size
        of a scheme): g must be nowhere zero at ``small_step = 0`` (then, at every point, it
        is nonzero for all small enough step sizes).
    factor_hint : sympy expression, optional
        A closed form expected for g (e.g. in an implicit map's unknowns).  Once proved
        equal to the computed g (on the solution manifold), the nowhere-zero condition is
        decided on it: the computed g of an implicit map holds numerically computed
        derivatives of the unknowns, whose limit at ``small_step = 0`` is not explicit.

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("x p z"); x, p, z = M.coords; lam = sympy.Symbol("lambda", positive=True)
    >>> eta = M.d(z) - p * M.d(x)
    >>> c = gc.certify_contact(gc.Map(M, M, [x, lam * p, lam * z]), eta)
    >>> c.holds, c.factor
    (True, lambda)
    >>> mu = sympy.Symbol("mu")                          # any real mu: mu = 0 collapses eta
    >>> c = gc.certify_contact(gc.Map(M, M, [x, mu * p, mu * z]), eta)
    >>> c.holds, c.counterexample, c.factor
    (False, {'mu': 0, 'x': 0, 'p': 0, 'z': 0}, None)
    """
    _check_map(phi, "certify_contact")
    _check_form(eta, phi, 1, "certify_contact", "contact 1-form")
    if phi.source.dim % 2 == 0:
        raise ChartMismatchError(
            f"certify_contact: {phi.source!r} has even dimension {phi.source.dim}; contact forms live in odd dimension"
        )
    if not eta.terms:
        raise ExpressionError("certify_contact: the 1-form is zero; a contact form was expected")
    ident = _identification(phi, identify, "certify_contact")
    region = _region(phi.source, domain, "certify_contact")
    target, source = _on_both(eta, phi, ident)
    pulled = pullback(target, phi)
    g = _factor(pulled, source)
    relations = tuple(dep.relation for dep in pulled.dependence)
    shown, closed = _user_factor(g, region, relations)
    if factor_hint is not None:
        hint = sympy.sympify(factor_hint)
        same = decide_zero(g - hint, relations=relations, domain=region)
        if same.is_zero is True:
            shown, closed = hint, same
    if small_step is not None:
        nonzero = _nowhere_zero_for_small(shown, small_step, phi.source, region, _implicit_symbols(pulled),
                                          "the factor g", relations, closed)
    else:
        nonzero = _nowhere_zero(shown, phi.source, region, _implicit_symbols(pulled), "the factor g", relations, closed)
    T = _typesetting(phi)
    D = _map_step(Derivation(r"$\varphi$ is a contact map: $\varphi^*\eta = g\,\eta$"), phi, T,
                  r"\varphi^*\eta = g\,\eta")
    D = _identification_step(D, ident)
    D = D.add(r"The contact form is", r"\eta &= " + _show(source))
    D = _form_step(D, r"Its pullback is", r"\varphi^*\eta", pulled, T)
    D = D.add(r"Comparing one component gives the conformal factor $g$; it must vanish nowhere on the domain",
              r"g &= " + _show_in(shown, T))
    claim = "phi^* eta == g eta, g nowhere zero" + (f" for small {small_step}" if small_step is not None else "")
    return _certificate(claim, pulled - g * source, D, [nonzero], factor=shown,
                        ident=ident, domain=_where(phi, region), decisions=[closed] if closed is not None else [],
                        T=T)


def certify_conserves(phi: Map | ImplicitMap, H: sympy.Expr | float, *,
                      identify: Mapping[Any, Any] | Literal["by position"] | None = None) -> Certificate:
    """Certify ``H o phi == H``: the map conserves the function H (an energy, a momentum).

    Parameters
    ----------
    phi : Map or ImplicitMap
    H : sympy expression
        A function on the source chart.
    identify : mapping or "by position", optional
        The identification of two different charts (see :func:`certify_preserves`).

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> Q, P = sympy.symbols("Q P")
    >>> mid = gc.ImplicitMap(M, M, [Q - q - h*(p + P)/2, P - p + h*(q + Q)/2], new=[Q, P])
    >>> gc.certify_conserves(mid, (q**2 + p**2) / 2).holds     # midpoint conserves quadratic invariants
    True
    """
    if not isinstance(phi, (Map, ImplicitMap)):
        raise ExpressionError(f"certify_conserves expects a Map or ImplicitMap, got {type(phi).__name__}")
    if phi.source.dim != phi.target.dim:
        raise ChartMismatchError(f"certify_conserves: {phi.source!r} -> {phi.target!r} is not a self-map")
    ident = _identification(phi, identify, "certify_conserves")
    e = phi.source.check_expression(H, "conserved quantity")
    on_target = e if ident.trivial else substitute(e, ident.to_target)
    after = substitute(on_target, phi.substitution())
    relations = (phi.dependence.relation,) if isinstance(phi, ImplicitMap) else ()
    residual = after - e
    decision = decide_zero(residual, relations=relations, domain=phi.source.domain)
    T = _typesetting(phi)
    D = _map_step(Derivation(r"$\varphi$ conserves $H$: $H\circ\varphi = H$"), phi, T, r"H\circ\varphi = H")
    D = _identification_step(D, ident)
    D = D.add(r"The quantity is", r"H &= " + _show(e))
    D = D.add(r"The residual, which must vanish, is", r"H\circ\varphi - H &= " + _show_in(residual, T))
    method = decision.method + ("" if ident.trivial else "; " + ident.phrase())
    return Certificate.from_decision("H o phi == H", decision, method=method, residual=residual, derivation=D)
