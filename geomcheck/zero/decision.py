"""The decision procedure: structural, exact, modular, then randomized stages inside one budget."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import mpmath
import sympy

from ..caches import Memo
from ..domain import Domain, describe_pairs, shown_name
from ..dense_lu import lu_determinant
from ..errors import DomainError, ExpressionError, ImplicitMapError, InvalidArgumentError
from ..jets import short_text
from . import modular
from .analyticity import analyse
from .budget import Alarm, Interrupted, WorkExhausted, check_work_units, metered
from .expansion import exact_stage
from .implicit import NumericProblem, prepare_relations
from .inputs import as_expr, entries
from .pieces import has_enumerable, split
from .numeric import (LOSSY, UNRESOLVED, BadPoint, Unevaluable, consistent_with_zero, context, from_sympy_number,
                      hidden_terms, resolved_nonzero, to_ctx)
from .program import ADD, JET, MUL, NONFINITE, NUM, POWI, SYM, Program, symbol_key
from .relations import Relation, as_relations
from .sampling import JET_SET_SIZE, Sampler, as_sympy_number

__all__ = ["ZeroDecision", "Soundness", "decide_zero", "decide_all_zero", "decide_jacobian_singular", "clear_caches"]

# ----------------------------------------------------------------------------------
# Tunables, chosen from measurements on a 2-core x86 box with pure-Python integers
# (no gmpy2): the exact stage multiplies ~7*10**5 pairs of polynomial terms per second,
# the modular stage evaluates ~10**6 nodes per second, the numeric evaluator ~2*10**4
# nodes per second at 50 digits.

#: fraction of the total budget the exact stage may use before the other stages.
EXACT_BUDGET_FRACTION = 0.4
#: the same when every entry is within the modular stage's reach (a probabilistic proof in
#: milliseconds is then the fallback, so expansion gets less time: it grows exponentially
#: with the nesting of a composed map, evaluation does not).
EXACT_BUDGET_FRACTION_MODULAR = 0.1
#: above this many distinct subexpressions the exact stage is skipped: evaluation is
#: linear in the size, expansion is not.  One limit in every thread (the stage checks its
#: deadline itself), so that the same input gets the same verdict wherever it runs.
EXACT_MAX_NODES = 60_000
#: work units (see :mod:`geomcheck.zero.budget`; here a product or sum of two polynomial
#: terms) the exact stage may spend.  With the default budget this limit is met before the
#: stage's share of the seconds on a machine up to about twice as slow as the one it was
#: calibrated on (1.2e6-2e6 units/s): so where the stage stops, and hence how a verdict was
#: reached, does not depend on the machine's speed or load.
EXACT_MAX_WORK = 3_000_000
#: the same when every entry is within the modular stage's reach (a tenth of the seconds).
EXACT_MAX_WORK_MODULAR = 700_000
#: how many draws a randomized stage may spend on points that turn out singular.
TRIES_PER_POINT = 4
#: the modular stage proves zero when a nonzero expression would vanish at all its points
#: with probability below this.
MODULAR_TARGET = 2.0**-60
#: at most this many points in the modular stage (more means the degree is too high for it).
MODULAR_MAX_POINTS = 40
#: integer symbols with at most this many values in their domain are enumerated, not sampled.
ENUMERATE_MAX = 64
#: precision escalation stops at this multiple of the requested digits.
MAX_DPS_FACTOR = 8
#: points the exploration of a possibly piecewise expression visits (at least).
EXPLORE_POINTS = 24
#: a piecewise expression is split into at most this many analytic pieces.
MAX_PIECES = 32


# ----------------------------------------------------------------------------------
# Decisions


@dataclass(frozen=True)
class Soundness:
    """What a decision rests on, as data (the conditions under which its verdict holds).

    Attributes
    ----------
    stage : str
        ``"structural"``, ``"exact"``, ``"modular"``, ``"randomized"``, ``"counterexample"``
        or ``"unknown"``.
    kind : str
        ``"proof"`` (structural or exact), ``"probabilistic proof"`` (modular: a wrong
        "zero" has probability at most ``error_bound``), ``"numerical evidence"``
        (randomized evaluation of an expression proved analytic on the domain),
        ``"counterexample"`` (a point of the domain where the expression is not zero) or
        ``"undecided"``.
    domain : str
        The domain of the symbols, in words.
    symbols : tuple of str
        The symbols the verdict is about.
    points : int
        How many points were evaluated.
    digits : int or None
        The working precision of numeric evaluation.
    jet_model : str or None
        How undefined functions were treated.
    error_bound : float or None
        Modular stage: the probability bound of a wrong "zero".
    degree : int or None
        Modular stage: the bound on the total degree of the numerator.
    analytic : str or None
        Randomized stages: what the analysis of branches found.
    relations : str or None
        With implicit relations: how the solution manifold was reached.
    domains : tuple of (str, str)
        The domain of each symbol, in words (``("r", "in (0, oo)")``).
    """

    stage: str
    kind: str
    domain: str = ""
    symbols: tuple = ()
    points: int = 0
    digits: int | None = None
    jet_model: str | None = None
    error_bound: float | None = None
    degree: int | None = None
    analytic: str | None = None
    relations: str | None = None
    domains: tuple = ()  # ((symbol name, its domain in words), ...)

    def __str__(self):
        parts = [f"{self.kind} ({self.stage})"]
        if self.domain:
            parts.append(f"domain: {self.domain}")
        if self.points:
            parts.append(f"{self.points} point{'s' if self.points != 1 else ''}")
        if self.digits:
            parts.append(f"{self.digits} digits")
        if self.error_bound is not None:
            parts.append(f"error probability <= {self.error_bound:.1e}")
        if self.jet_model:
            parts.append(self.jet_model)
        if self.analytic:
            parts.append(self.analytic)
        if self.relations:
            parts.append(self.relations)
        return "; ".join(parts)

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class ZeroDecision:
    """The answer to "is this expression (are these expressions) identically zero?".

    Attributes
    ----------
    is_zero : bool or None
        True (zero), False (a confirmed counterexample) or None (unknown).
    stage : str
        ``"structural"``, ``"exact"``, ``"modular"``, ``"randomized"``, ``"counterexample"``
        or ``"unknown"``: the stage that decided.
    method : str
        One readable sentence saying how it was decided (or why not).
    point : dict or None
        For a counterexample: ``{symbol name or jet description: value}``; values are
        sympy numbers for drawn values, strings for computed ones (solved unknowns).
    value : object or None
        For a counterexample: the nonzero value at ``point`` (an mpmath number, or a
        sympy Rational when it was computed exactly).
    index : object or None
        For :func:`decide_all_zero`: the key (mapping) or position (sequence) of the
        entry that is nonzero (or undecided, for None).
    soundness : Soundness or None
        What the verdict rests on (stage, domain, points, digits, jet model, bounds).

    Notes
    -----
    ``bool(decision)`` raises ``TypeError``: a decision has three values, so callers
    must look at ``decision.is_zero`` and handle ``None``.
    """

    is_zero: bool | None
    stage: str
    method: str
    point: dict | None = None
    value: Any = None
    index: Any = None
    soundness: Soundness | None = field(default=None, compare=False)

    def __bool__(self):
        raise TypeError(
            "a ZeroDecision has three values (True, False, None = unknown); "
            "test decision.is_zero explicitly instead of its truth value"
        )

    def __str__(self):
        return self.method


# ----------------------------------------------------------------------------------
# The public entry points

_DECISION_CACHE = Memo("geomcheck.zero.decisions", 2048)


def _fmt(v, n=3):
    if isinstance(v, sympy.Basic):
        return sympy.sstr(sympy.Float(v, n)) if v.is_real else str(sympy.N(v, n))
    return mpmath.nstr(v, n)


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


#: the most decimal digits a zero test may be asked for: one mpmath operation at 10**15 digits
#: allocates gigabytes and cannot be interrupted by the budget, so larger requests are refused
MAX_DPS = 100_000
#: the most random points a zero test may be asked to agree on (each costs an evaluation)
MAX_POINTS = 10_000


def _ran_out(exc, budget) -> str:
    if isinstance(exc, WorkExhausted):
        return f"the work budget of {exc.meter.limit} units ran out"
    return f"the {budget:g} s budget ran out"


def _check_parameters(budget, dps, points, seed=0):
    # budget: a float() of a huge int overflows, and inf seconds is no budget at all
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0 \
            or not (budget < 1e300 and math.isfinite(budget)):
        raise InvalidArgumentError(f"budget must be a positive finite number of seconds, got {budget!r}")
    if isinstance(dps, bool) or not isinstance(dps, int) or not 15 <= dps <= MAX_DPS:
        raise InvalidArgumentError(f"dps must be an int from 15 to {MAX_DPS}, got {dps!r}")
    if isinstance(points, bool) or not isinstance(points, int) or not 1 <= points <= MAX_POINTS:
        raise InvalidArgumentError(f"points must be an int from 1 to {MAX_POINTS}, got {points!r}")
    # the seed is hashed through its repr: an object's repr holds its address, so any seed but an
    # int would make the "deterministic" random points differ from run to run
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidArgumentError(f"seed must be an int, got {seed!r} ({type(seed).__name__})")


def _as_domain(domain) -> Domain:
    if domain is None:
        return Domain()
    if isinstance(domain, Domain):
        return domain
    try:
        return Domain(domain)
    except DomainError:
        raise
    except Exception as exc:  # noqa: BLE001 -- anything malformed is a domain error for the user
        raise DomainError(f"domain {domain!r} is not a mapping {{symbol: (lo, hi)}}: {exc}") from None


def decide_zero(expr: sympy.Expr | float, *, budget: float = 10.0, dps: int = 50, points: int = 3,
                relations: Relation | Iterable[Relation] | None = (), seed: int = 0,
                domain: Domain | Mapping[Any, tuple[Any, Any] | sympy.Interval] | None = None,
                work: int | None = None) -> ZeroDecision:
    """Decide whether ``expr`` is identically zero on a domain.

    Parameters
    ----------
    expr : sympy.Expr or number
        A scalar, commutative expression.  Undefined functions (``sympy.Function("V")``)
        stand for arbitrary smooth functions; other symbols range over ``domain``.
    budget : float
        Total wall-clock seconds for all stages; when exhausted the answer is unknown.
        It holds in any thread, process or Dask worker (our own loops check the clock).
    dps : int
        Decimal digits of the randomized evaluation (raised where the expression needs
        it, up to 8 times; a counterexample is confirmed at twice the digits it was found at).
    points : int
        The least number of random points that must all give zero (the modular stage
        takes as many as its error bound needs).
    relations : Relation or sequence of Relation
        Implicit equations on whose solution manifold ``expr`` must vanish.
    seed : int
        Seed of the (deterministic) random points and jet values; it is combined with a
        structural hash of the expression, so different expressions get different points.
    domain : Domain or mapping, optional
        ``{symbol or name: (lo, hi)}``: where the symbols range.  Symbols not named take
        the domain of their assumptions: ``positive`` (0, oo), ``integer`` the integers,
        ``imaginary`` the imaginary axis, ``complex`` the plane, and a plain symbol the
        whole real line.
    work : int, optional
        A budget in work units (steps of our own loops; see
        :func:`~geomcheck.zero.work_budget`), on top of ``budget``.  Unlike seconds it does
        not depend on the machine: the same input and ``work`` give the same verdict
        wherever they run, as long as ``budget`` does not run out first.

    Returns
    -------
    ZeroDecision
        ``is_zero`` True, False (with the counterexample in ``point`` and ``value``) or
        None (unknown, with the reason in ``method``); ``soundness`` says what the
        verdict rests on.

    Raises
    ------
    ExpressionError
        ``expr`` cannot be a function: a matrix, a noncommutative expression, a
        non-finite number, a relational or other non-expression object.
    DomainError
        A malformed domain.
    InvalidArgumentError
        A budget, ``work``, ``dps`` or ``points`` out of range.

    Notes
    -----
    The stages, cheapest first:

    1. **structural**: the expression is a number.
    2. **exact**: a sparse rational-function normal form in the atoms; a zero numerator
       is a proof.
    3. **modular**: for expressions built from rationals, symbols, jets, sums, products,
       integer powers and square roots of rationals: exact evaluation modulo a random
       61-bit prime at random points of the domain.  A nonzero residue proves the value
       at that rational point nonzero (a genuine counterexample, however tiny: ``x/10**200``);
       zero residues at ``k`` points make "zero" wrong with probability at most
       ``(D / s)**k`` (Schwartz-Zippel: ``D`` the degree, ``s`` the number of values each
       coordinate is drawn from, at least ``2**40``); ``k`` is chosen so that this is below
       ``2**-60`` and stated in ``soundness.error_bound``.
    4. **randomized**: the rest is evaluated in mpmath at random points of the domain with
       an error bound on every operation.  It is only used when the expression is one
       analytic function on the domain: every branch point (``sqrt``, ``log``, ``asin``,
       ``atan`` through a pole) and non-analytic piece (``Abs``, ``Max``, ``Piecewise``,
       ``floor``) is proved, by interval arithmetic over the whole domain, not to switch
       (see :mod:`geomcheck.zero.analyticity`).  "Zero by randomized evaluation" then
       means: at every sampled point the value is within its rounding error bound of 0,
       with nothing rounded away that was genuinely there (an absorbed ``exp(-400)``, a
       saturated ``tanh(1300)``, an unresolved ``sin(10**150 x)``: the digits are raised,
       up to 8 times, or the answer is None); a nonzero analytic function vanishes only on
       a thin set, so it is zero on the whole domain up to a small probability.  When a
       branch may switch inside the domain the expression is explored at points spread
       over many scales: a confirmed nonzero value is a counterexample; otherwise the
       answer is None (the pieces not visited could be nonzero).

    Undefined functions enter through their jets (derivatives at argument points), given
    independent random values: equal argument points get equal values (exactly equal
    rationals in the modular stage; within their error bounds in the randomized one),
    distinct points independent ones, which is what an arbitrary smooth function allows.

    Examples
    --------
    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> decide_zero((x + 1)**2 - x**2 - 2*x - 1).method
    'zero by exact expansion (a rational function with integer coefficients in 1 atom)'
    >>> decide_zero(sympy.sin(x)**2 + sympy.cos(x)**2 - 1).stage
    'randomized'
    >>> d = decide_zero(sympy.Max(x - sympy.Rational(19, 10), 0))   # zero only for x <= 19/10
    >>> d.is_zero, d.point["x"] > sympy.Rational(19, 10)
    (False, True)
    >>> decide_zero(sympy.sqrt(x**2) - x, domain={x: (0, sympy.oo)}).is_zero
    True
    """
    _check_parameters(budget, dps, points, seed)
    check_work_units(work)
    e = as_expr(expr)
    return _decide_cached([(None, e)], True, float(budget), dps, points, as_relations(relations), seed,
                          _as_domain(domain), work)


def decide_all_zero(exprs: Mapping[Any, sympy.Expr | float] | Sequence[sympy.Expr | float] | sympy.MatrixBase, *,
                    budget: float = 10.0, dps: int = 50, points: int = 3,
                    relations: Relation | Iterable[Relation] | None = (), seed: int = 0,
                    domain: Domain | Mapping[Any, tuple[Any, Any] | sympy.Interval] | None = None,
                    work: int | None = None) -> ZeroDecision:
    """Decide whether all of ``exprs`` are identically zero, sharing the work.

    The entries share one canonicalization memo, one compiled expression DAG (common
    subexpressions are expanded and evaluated once), the same random points and the same
    jet values.

    Parameters
    ----------
    exprs : mapping or sequence
        ``{key: expr}``, a list/tuple of expressions, or a sympy Matrix (keys ``(i, j)``).
    budget, dps, points, relations, seed, domain, work
        As for :func:`decide_zero`; ``budget`` and ``work`` are for all entries together.

    Returns
    -------
    ZeroDecision
        True iff every entry is zero; False names in ``index`` the key (or position) of
        an entry with a confirmed counterexample; None when undecided (``index`` names
        the undecided entry when there is one).

    Examples
    --------
    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> d = decide_all_zero({"a": (x + y)**2 - x**2 - 2*x*y - y**2, "b": x*y - y*x + x})
    >>> d.is_zero, d.index
    (False, 'b')
    """
    _check_parameters(budget, dps, points, seed)
    check_work_units(work)
    items = [(k, as_expr(v, f"entry {k!r}")) for k, v in entries(exprs)]
    return _decide_cached(items, False, float(budget), dps, points, as_relations(relations), seed, _as_domain(domain),
                          work)


def _decide_cached(items, single, budget, dps, points, rels, seed, domain, work=None):
    start = time.monotonic()
    try:
        cache_key = (tuple(items), single, budget, dps, points, rels, seed, domain, work)
        hash(cache_key)
    except TypeError:
        cache_key = None
    if cache_key is not None:
        hit = _DECISION_CACHE.get(cache_key)
        if hit is not None:
            return hit
    job = _Job(items, single, start, budget, dps, points, rels, seed, domain)
    with metered(work):
        decision = job.run()
    # an unknown may become known with a fresh clock; only definite answers are kept
    if cache_key is not None and decision.is_zero is not None:
        _DECISION_CACHE.put(cache_key, decision)
    return decision


def clear_caches() -> None:
    """Forget every memo of the engine and of integrators (for benchmarks: no answer from a warm
    cache); see :mod:`geomcheck.caches`."""
    from .. import caches

    caches.clear_caches()


# ----------------------------------------------------------------------------------
# One decision


class _Verdict:
    """The outcome of one stage on a set of roots."""

    def __init__(self, status, method="", point=None, value=None, root=None, soundness=None):
        self.status = status  # "zero", "nonzero", "unknown", "pass" (the stage cannot decide: try the next)
        self.method = method
        self.point = point
        self.value = value
        self.root = root
        self.soundness = soundness


class _Job:
    """One call of decide_zero / decide_all_zero: its state and the phrasing of its answer."""

    def __init__(self, items, single, start, budget, dps, points, rels, seed, domain):
        self.items = items
        self.single = single
        self.start = start
        self.deadline = start + budget
        self.budget = budget
        self.dps = dps
        self.points = points
        self.rels = rels
        self.user_seed = seed
        self._modular = {}  # root -> whether the modular stage can evaluate it
        self.domain = domain
        self.counts = {}  # how many entries each stage proved zero
        self.exact_note = None
        self.keys = {}  # root node -> entry key

    # -- phrasing
    def where(self, k):
        return "" if self.single else f"entry {k!r} "

    def index(self, k):
        return None if self.single else k

    def soundness(self, stage, kind, symbols=(), **kw):
        syms = sorted(symbols, key=symbol_key)
        pairs = tuple(self.domain.describe_each(syms))
        return Soundness(stage, kind, describe_pairs(pairs), tuple(shown_name(s) for s in syms), domains=pairs, **kw)

    def unknown(self, why, k=None, soundness=None):
        if self.exact_note:
            why = f"{self.exact_note}, and {why}"
        return ZeroDecision(None, "unknown", f"unknown: {why}", None, None, self.index(k),
                            soundness or self.soundness("unknown", "undecided"))

    def zero(self, stage, how, soundness):
        if self.single:
            return ZeroDecision(True, stage, how, soundness=soundness)
        parts = [f"{n} {what}" for what, n in self.counts.items() if n]
        n_all = len(self.items)
        if not n_all:
            return ZeroDecision(True, stage, "structurally zero: no nonzero component remains", soundness=soundness)
        if len(parts) == 1 and stage == "structural":
            return ZeroDecision(True, stage, f"all {n_all} entries are structurally 0", soundness=soundness)
        return ZeroDecision(True, stage, f"all {n_all} entries are zero: " + ", ".join(parts), soundness=soundness)

    def modular_ok(self, root) -> bool:
        """Whether the modular stage can evaluate ``root`` (planned once per root and job)."""
        ok = self._modular.get(root)
        if ok is None:
            try:
                modular.plan(self.prog, [root])
                ok = True
            except modular.NotModular:
                ok = False
            self._modular[root] = ok
        return ok

    # -- the stages
    def run(self):
        """The decision; a deadline met between the stages' own guards is an unknown, never an escape."""
        try:
            return self._run()
        except Interrupted as exc:
            return self.unknown(_ran_out(exc, self.budget))

    def _run(self):
        dps = self.dps
        # ---- stage 1: structural
        remaining = []
        for k, e in self.items:
            if e.is_Number:
                if e in NONFINITE:
                    raise ExpressionError(f"{self.where(k) or 'the expression '}is {e}, which is not a finite function")
                if e.is_zero:
                    continue
                return ZeroDecision(False, "structural", f"nonzero: {self.where(k) or 'it '}is the constant {e}", {},
                                    from_sympy_number(context(dps), e), self.index(k),
                                    self.soundness("structural", "counterexample"))
            remaining.append((k, e))
        self.counts["structurally"] = len(self.items) - len(remaining)
        if not remaining:
            return self.zero("structural", "zero structurally (the expression is the number 0)",
                             self.soundness("structural", "proof"))

        # ---- jets and compilation: cooperative, with the SIGALRM safety net
        try:
            with Alarm(self.deadline):
                prog = Program()
                prog.deadline = self.deadline
                roots = [prog.add(e, self.deadline) for k, e in remaining]
                rel = prepare_relations(self.rels, prog.jet_memo, self.deadline) if self.rels else None
        except Interrupted as exc:
            return self.unknown(f"rewriting derivatives as jets and compiling stopped: {_ran_out(exc, self.budget)}")
        for (k, _e), r in zip(remaining, roots):
            self.keys.setdefault(r, k)
        self.prog = prog
        # in the order of their digests, not of the input: a form's components may come in an
        # order that depends on the process (set iteration); the points and the counterexample
        # reported must not
        todo = sorted(dict.fromkeys(roots), key=prog.digests.__getitem__)
        self.seed = prog.digest(todo, self.user_seed, repr(self.domain))

        # ---- stage 2: exact
        fraction, work = EXACT_BUDGET_FRACTION, EXACT_MAX_WORK
        if rel is None and all(self.modular_ok(r) for r in todo):
            fraction, work = EXACT_BUDGET_FRACTION_MODULAR, EXACT_MAX_WORK_MODULAR
        exact_deadline = min(self.deadline, time.monotonic() + fraction * self.budget)
        limit = EXACT_MAX_NODES
        proven = set()
        if len(prog) > limit:
            self.exact_note = f"the exact stage was skipped ({len(prog)} distinct subexpressions > {limit})"
        else:
            t0 = time.monotonic()
            try:
                with Alarm(exact_deadline), metered(work) as meter:
                    proven, reason = exact_stage(prog, todo, exact_deadline)
                if reason:
                    self.exact_note = f"the exact stage stopped: it {reason}"
            except WorkExhausted as exc:
                if exc.meter is not meter:
                    raise
                self.exact_note = f"the exact stage reached its limit of {work} work units"
            except Interrupted:
                self.exact_note = f"the exact stage exceeded its {exact_deadline - t0:.2g} s budget"
        self.counts["by exact expansion"] = sum(1 for r in roots if r in proven)
        todo = [r for r in todo if r not in proven]
        all_symbols = {prog.exprs[i] for i in prog.reachable(roots) if prog.nodes[i][0] == SYM}
        if not todo:
            return self.zero("exact", f"zero by exact expansion ({_exact_phrase(prog)})",
                             self.soundness("exact", "proof", all_symbols))

        # ---- stages 3 and 4
        try:
            with Alarm(self.deadline):
                return self.evaluate(prog, roots, todo, rel, all_symbols)
        except Interrupted as exc:
            return self.unknown(f"the evaluation stages stopped: {_ran_out(exc, self.budget)}")

    def evaluate(self, prog, roots, todo, rel, all_symbols):
        """The modular stage for the rational roots, the numeric stages for the others."""
        unknown_set = set()
        if rel is not None:
            unknown_set = set(rel.unknowns) | set(rel.derived_symbols)
            unknown_nodes = {prog.symbols.get(u) for u in unknown_set} - {None}
            if not unknown_nodes.intersection(prog.reachable(todo)):
                rel = None  # nothing to solve for: the relations do not matter
        verdicts = []
        numeric_roots = todo
        if rel is None:
            rational = [r for r in todo if self.modular_ok(r)]
            if rational:
                v = self.modular_stage(prog, rational)
                if v.status == "nonzero":
                    return self.counterexample(v)
                if v.status == "zero":
                    verdicts.append(v)
                    numeric_roots = [r for r in todo if r not in rational]
        if numeric_roots:
            v = self.numeric_stage(prog, numeric_roots, rel)
            if v.status == "nonzero":
                return self.counterexample(v)
            if v.status == "unknown":
                return self.unknown(v.method, self.keys.get(v.root) if v.root is not None else None, v.soundness)
            verdicts.append(v)
        # every root is zero
        stage = "randomized" if any(v.soundness.stage == "randomized" for v in verdicts) else "modular"
        kinds = [v.soundness for v in verdicts]
        sound = kinds[0] if len(kinds) == 1 else _merge_soundness(kinds, self)
        if self.single:
            return ZeroDecision(True, stage, verdicts[0].method, soundness=sound)
        for v in verdicts:
            self.counts[v.method] = v.count
        return self.zero(stage, "", sound)

    # ---- the modular stage
    def modular_stage(self, prog, roots):
        try:
            plan = modular.plan(prog, roots, self.deadline)
        except modular.NotModular:
            return _Verdict("pass")
        symbols = sorted((prog.exprs[i] for i in plan.order if prog.nodes[i][0] == SYM), key=symbol_key)
        has_jets = any(prog.nodes[i][0] == JET for i in plan.order)
        sampler = Sampler(self.domain, self.seed)
        try:
            combos, free = _enumeration(sampler, symbols)
        except ValueError as exc:
            return _Verdict("unknown", f"the domain is empty for an integer symbol ({exc})")
        D = max(plan.degree.values())
        s = min([sampler.set_size(x) for x in free] + ([JET_SET_SIZE] if has_jets else []), default=None)
        eps = 0.0 if s is None or D == 0 else D / s
        eps += 2.0**-40  # the prime dividing a nonzero value of up to ~2**20 bits (fresh prime per point)
        if eps >= 0.5:
            return _Verdict("pass")
        k = self.points
        while eps**k > MODULAR_TARGET and k < MODULAR_MAX_POINTS:
            k += 1
        if eps**k > MODULAR_TARGET:
            return _Verdict("pass")
        node_of = {prog.symbols[x]: x for x in symbols}
        done = bad = 0
        j = 0
        total = k * len(combos)

        def jet_value(key):
            return sampler.jet_value((key[0], key[1], key[2]), "modular")

        while done < total and j < TRIES_PER_POINT * total + 4:
            combo = combos[done % len(combos)]
            P, roots_of = modular.random_prime((self.seed, j), plan.radicands, plan.need_i)
            base = {x: sampler.value(x, j, "modular") for x in free}
            base.update(combo)

            ev = modular.ModularEvaluator(prog, plan, P, roots_of, jet_value, self.deadline)
            j += 1
            try:
                vals = ev.run({i: base[x] for i, x in node_of.items()})
            except modular.BadResidue:
                bad += 1
                continue
            for r in roots:
                if vals[r]:
                    return self.modular_counterexample(prog, plan, r, sampler, symbols, free, base, P, roots_of)
            done += 1
        if done < total:
            return _Verdict("pass")
        bound = eps**k
        enum = f" (each of the {len(combos)} values of the enumerated integer symbols)" if len(combos) > 1 else ""
        jets = "undefined functions replaced by independent random jets, keyed by the exact argument" if has_jets else None
        how = (f"zero by exact modular evaluation at {_plural(total, 'random point')}{enum} of the domain "
               f"(modulo a random 61-bit prime per point; the numerator has degree <= {D}, so a nonzero "
               f"expression would vanish at all of them with probability <= {bound:.1e})")
        v = _Verdict("zero", how, soundness=self.soundness(
            "modular", "probabilistic proof", symbols, points=total, jet_model=jets, error_bound=bound, degree=D))
        v.count = len(roots)
        v.method = how if self.single else f"by exact modular evaluation at {total} points (error probability <= {bound:.1e})"
        return v

    def modular_counterexample(self, prog, plan, root, sampler, symbols, free, base, P, roots_of):
        """A nonzero residue: look for a readable point (small denominators) that shows it too."""
        node_of = {prog.symbols[x]: x for x in symbols}
        fixed = {x: v for x, v in base.items() if x not in free}
        chosen = (base, P, roots_of, "modular")
        for t in range(8):
            nice = {x: sampler.value(x, 1000 + t, "numeric") for x in free}
            nice.update(fixed)
            P2, roots2 = modular.random_prime((self.seed, "nice", t), plan.radicands, plan.need_i)
            ev = modular.ModularEvaluator(prog, plan, P2, roots2,
                                          lambda key: sampler.jet_value(key, "numeric"), self.deadline)
            try:
                vals = ev.run({i: nice[x] for i, x in node_of.items()})
            except modular.BadResidue:
                continue
            if vals[root]:
                chosen = (nice, P2, roots2, "numeric")
                break
        point_vals, P, roots_of, mode = chosen
        point = {str(x): as_sympy_number(point_vals[x]) for x in symbols}
        value = None
        if not plan.radicals and not plan.need_i:
            jets_seen = {}

            def jet_of(name, index, args):
                key = (name, index, tuple(modular._residue(a, P) for a in args))
                val = sampler.jet_value(key, mode)
                jets_seen[(name, index, args)] = val
                return val

            exact = modular.exact_value(prog, plan.order, root, {i: point_vals[x] for i, x in node_of.items()}, jet_of)
            if exact is not None:
                value = sympy.Rational(exact.numerator, exact.denominator)
                # by name, not in the order of evaluation, which follows the input's order (a
                # form's components may come in an order that depends on the process)
                labelled = sorted(
                    (_jet_text(name, index, [sympy.Rational(a.numerator, a.denominator) for a in args]), val)
                    for (name, index, args), val in jets_seen.items())
                for label, val in labelled[:12]:
                    point[label] = sympy.Rational(val.numerator, val.denominator)
        if any(prog.nodes[i][0] == JET for i in plan.order) and value is None:
            point["jets"] = "independent random values at each argument point (keyed modulo the prime)"
        size = f"exactly {_fmt(value, 3)}" if value is not None else "a nonzero number"
        how = (f"nonzero: the value is {size} at {_point_text(point)} (exact modular evaluation: its residue "
               f"modulo the prime {P} is not 0)")
        return _Verdict("nonzero", how, point, value, root,
                        self.soundness("counterexample", "counterexample", symbols))

    # ---- the numeric stages
    def numeric_stage(self, prog, roots, rel):
        try:
            problem = NumericProblem(prog, roots, rel, self.seed, self.deadline)
        except BadPoint as exc:
            return _Verdict("unknown", f"the relations cannot be used: {exc}")
        unknowns = set(rel.unknowns) | set(rel.derived_symbols) if rel is not None else set()
        analysis = analyse(prog, problem.all_nodes, self.domain, unknowns, self.deadline)
        symbols = sorted((x for x in prog.symbols if x not in unknowns), key=symbol_key)
        reach = set(problem.all_nodes)
        symbols = [x for x in symbols if prog.symbols[x] in reach]
        small = rel.small if rel is not None else ()
        sampler = Sampler(self.domain, self.seed, small)
        has_jets = any(prog.nodes[i][0] == JET for i in reach)
        runner = _PointRunner(self, prog, problem, roots, sampler, symbols)
        if analysis.safe:
            return self.randomized(runner, analysis, rel, has_jets, problem)
        return self.explore(runner, analysis, rel, has_jets, problem)

    def randomized(self, runner, analysis, rel, has_jets, problem):
        dps, points = self.dps, self.points
        try:
            combos, free = _enumeration(runner.sampler, runner.symbols)
        except ValueError as exc:
            return _Verdict("unknown", f"the domain is empty for an integer symbol ({exc})")
        needed = points * len(combos)
        good, tries, skipped, escalated = 0, 0, [], 0
        max_tries = TRIES_PER_POINT * needed + 4
        while good < needed and tries < max_tries:
            j = tries
            tries += 1
            base = runner.base(j, "numeric", free, combos[good % len(combos)])
            out = runner.decide_point(base, dps, j)
            if out.status == "skip":
                skipped.append(out.method)
                continue
            if out.status == "nonzero":
                return out
            if out.status == "unknown":
                return out
            escalated = max(escalated, out.dps)
            good += 1
        if good < needed:
            why = ", ".join(sorted(set(skipped))) or "no usable point"
            return _Verdict("unknown", f"only {good} of {needed} random points were usable after {tries} draws ({why})")
        notes = ["every point re-checked at twice the digits (the error bounds fell with the digits)"]
        if escalated > dps:
            notes.append(f"digits raised up to {escalated} where values needed it")
        if has_jets:
            notes.append("undefined functions replaced by independent random jets")
        notes.append(f"symbols drawn in the domain: {self.domain.describe(runner.symbols)}" if runner.symbols
                     else "no free symbols")
        rel_phrase = _manifold_phrase(problem) if rel is not None else ""
        how = (f"zero by randomized evaluation at {_plural(needed, 'point')} with {dps} digits{rel_phrase}, "
               f"the expression being {analysis.phrase()} ({'; '.join(notes)})")
        v = _Verdict("zero", how, soundness=self.soundness(
            "randomized", "numerical evidence", runner.symbols, points=needed, digits=dps,
            jet_model="independent random jets keyed by the argument point" if has_jets else None,
            analytic=analysis.phrase(), relations=rel_phrase.strip() or None))
        v.count = len(runner.roots)
        if not self.single:
            v.method = f"by randomized evaluation at {needed} points with {dps} digits{rel_phrase}"
        return v

    def explore(self, runner, analysis, rel, has_jets, problem):
        """Piecewise on the domain: look for a counterexample everywhere; never answer zero."""
        n = max(EXPLORE_POINTS, 8 * self.points)
        visited = 0
        for j in range(2 * n):
            if visited >= n:
                break
            mode = "explore" if j % 3 else "numeric"
            base = runner.base(10_000 + j, mode, runner.symbols, {})
            out = runner.decide_point(base, self.dps, 10_000 + j, max_factor=4)
            if out.status == "nonzero":
                return out
            if out.status in ("zero", "unknown"):
                visited += 1
        if rel is None:
            proved = self.prove_by_pieces(runner.roots)
            if proved is not None:
                return proved
        return _Verdict("unknown", f"the expression {analysis.phrase()}; it vanished at the {visited} points "
                                   "explored across the domain, which does not show it zero on every piece",
                        soundness=self.soundness("unknown", "undecided", runner.symbols, points=visited,
                                                 digits=self.dps, analytic=analysis.phrase()))

    def prove_by_pieces(self, roots):
        """Zero on every analytic piece (see :mod:`geomcheck.zero.pieces`), or None."""
        leaves, switches = [], []
        stack = [self.prog.exprs[r] for r in roots]
        if not all(has_enumerable(e) for e in stack):
            return None  # a possible switch that is not an Abs/Max/Piecewise piece: nothing to split
        while stack:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0 or len(stack) + len(leaves) > MAX_PIECES:
                return None
            e = stack.pop()
            if not has_enumerable(e):
                d = decide_zero(e, budget=max(remaining / (len(stack) + 1), 0.05), dps=self.dps, points=self.points,
                                seed=self.user_seed, domain=self.domain)
                if d.is_zero is not True:
                    return None
                leaves.append(d)
                continue
            parts = split(e)
            if parts is None:
                return None
            s, plus, minus = parts
            switches.append(s)
            stack.extend([plus, minus])
        kinds = {d.soundness.kind for d in leaves if d.soundness is not None}
        kind = next((k for k in ("numerical evidence", "probabilistic proof", "proof") if k in kinds), "proof")
        stage = next((d.stage for d in leaves if d.stage == "randomized"), leaves[0].stage if leaves else "exact")
        shown = ", ".join(dict.fromkeys(short_text(x, 40) for x in switches))
        how = (f"zero on every piece: split where {shown} change{'s' if len(switches) == 1 else ''} sign, "
               f"each of the {len(leaves)} pieces is zero on the whole domain ({'; '.join(dict.fromkeys(d.method for d in leaves))}); "
               "the boundaries between pieces, a null set, are excepted")
        symbols = {x for d in leaves if d.soundness is not None for x in d.soundness.symbols}
        pairs = tuple(dict.fromkeys(pair for d in leaves if d.soundness is not None for pair in d.soundness.domains))
        sound = Soundness(stage, kind, describe_pairs(pairs), tuple(sorted(symbols)),
                          sum(d.soundness.points for d in leaves if d.soundness),
                          self.dps if stage == "randomized" else None,
                          analytic=f"piecewise: zero on each piece cut out by the signs of {shown}", domains=pairs)
        v = _Verdict("zero", how, soundness=sound)
        v.count = len(roots)
        if not self.single:
            v.method = f"on every piece ({len(leaves)} pieces)"
        return v

    # ---- answers
    def counterexample(self, v):
        k = self.keys.get(v.root)
        method = v.method
        if not self.single:
            method = method.replace("nonzero: the value is", f"nonzero: entry {k!r} is", 1)
        return ZeroDecision(False, "counterexample", method, v.point, v.value, self.index(k), v.soundness)


def _enumeration(sampler, symbols):
    """``(combos, free)``: integer symbols with few values are enumerated (every combination
    of their values), the others are drawn at random."""
    small = []
    for x in symbols:
        if sampler.kind(x) == "integer":
            lo, hi = sampler.integer_window(*sampler.interval(x), 10**9)
            if hi < lo:
                raise ValueError(f"no integer lies in the domain of {x}")
            if hi - lo + 1 <= ENUMERATE_MAX:
                small.append((x, list(range(lo, hi + 1))))
    combos = [{}]
    for x, values in small:
        combos = [{**c, x: (Fraction(v), Fraction(0))} for c in combos for v in values]
        if len(combos) > 512:
            return [{}], list(symbols)  # too many: sample them all
    enumerated = {x for x, _ in small}
    return combos, [x for x in symbols if x not in enumerated]


def _merge_soundness(parts, job):
    stage = "randomized" if any(p.stage == "randomized" for p in parts) else "modular"
    kind = "numerical evidence" if stage == "randomized" else "probabilistic proof"
    symbols = tuple(sorted(set().union(*(p.symbols for p in parts))))
    bounds = [p.error_bound for p in parts if p.error_bound is not None]
    pairs = tuple(dict.fromkeys(pair for p in parts for pair in p.domains))
    return Soundness(stage, kind, describe_pairs(pairs), symbols,
                     sum(p.points for p in parts), max((p.digits or 0) for p in parts) or None,
                     next((p.jet_model for p in parts if p.jet_model), None),
                     sum(bounds) if bounds else None, max((p.degree or 0 for p in parts), default=None) or None,
                     next((p.analytic for p in parts if p.analytic), None),
                     next((p.relations for p in parts if p.relations), None), pairs)


class _PointOutcome(_Verdict):
    def __init__(self, status, method="", point=None, value=None, root=None, soundness=None, dps=0, pv=None, j=0):
        super().__init__(status, method, point, value, root, soundness)
        self.dps = dps
        self.pv = pv
        self.j = j


def off_branch(problem, base, pv):
    """Why the solution of the relations in ``pv`` cannot be used at ``base`` (None when it can).

    It must be the one on the branch that starts at the guess as the step sizes go to 0:
    Newton's method from a guess may converge to another root of the equations, where the
    implicit map is another function (a zero, a counterexample or a singular Jacobian there
    says nothing about the map).
    """
    if problem.rel is None or pv.state is None:
        return None
    try:
        continued = problem.continued_solution(base, pv.dps)
    except (BadPoint, ArithmeticError, ValueError, TypeError) as exc:
        return f"the solution branch cannot be followed to this point ({exc})"
    if continued is None:
        return None
    ctx = context(pv.dps)
    gap = max(abs(a - b) / (1 + abs(b)) for a, b in zip(pv.state, continued))
    if gap and ctx.mag(gap) > -ctx.prec // 2:
        return "Newton's method found a solution on another branch of the relations"
    return None


class _PointRunner:
    """Evaluates the roots at one point, raising the precision where the values need it."""

    def __init__(self, job, prog, problem, roots, sampler, symbols):
        self.job = job
        self.prog = prog
        self.problem = problem
        self.roots = roots
        self.sampler = sampler
        self.symbols = symbols

    def base(self, j, mode, free, combo):
        out = {x: self.sampler.value(x, j, mode) for x in free}
        out.update(combo)
        if j % 3 == 2 and self.problem.rel is not None:
            # every third point takes the small symbols (step sizes) ten times larger, in
            # (1/10, 1/2): reached by continuation, it shows defects of high order in them
            for x in self.problem.rel.small:
                if x in out:
                    re, im = out[x]
                    out[x] = (re * 10, im * 10)
        return out

    def decide_point(self, base, dps, j, max_factor=MAX_DPS_FACTOR):
        """``zero``, ``nonzero`` (confirmed), ``skip`` (a singular point) or ``unknown``.

        A point is zero when every root is within its error bound of 0 with nothing
        rounded away, at two precisions, the bound shrinking with the digits (so the
        smallness is rounding noise, not a genuine value hidden by a loose bound).
        """
        d = dps
        start = None
        candidate = None  # the evaluation at which every root looked zero
        while True:
            try:
                pv = self.problem.evaluate(base, d, j, start)
            except (BadPoint, ArithmeticError, ValueError, TypeError) as exc:
                return _PointOutcome("skip", str(exc) or type(exc).__name__)
            except Unevaluable as exc:
                return _PointOutcome("unknown", f"randomized evaluation is impossible: {exc}")
            ctx = context(d)
            # a non-real value is a value like any other: the expression is not zero there
            undecided = None
            for r in self.roots:
                v, e, fl = pv.vals[r], pv.errs[r], pv.flags[r]
                if resolved_nonzero(ctx, v, e) and not fl & UNRESOLVED:
                    return self.confirm(base, pv, r, j)
                # zero within rounding, and the rounding itself small: a bound of 1e800 around
                # cosh(1000 x)**2 - sinh(1000 x)**2 says nothing about a term exp(-100)
                if consistent_with_zero(ctx, v, e) and not fl and e <= -ctx.prec / 2:
                    continue
                undecided = (r, fl)
                break
            if undecided is None:
                if candidate is not None and self._shrank(candidate, pv):
                    if hidden_terms(self.prog.nodes, candidate, pv):
                        # a genuine term hides below the other terms' rounding: more digits
                        undecided = (self.roots[0], LOSSY)
                    else:
                        off_branch = self.off_branch(base, candidate)
                        if off_branch:
                            return _PointOutcome("skip", off_branch)
                        return _PointOutcome("zero", dps=candidate.dps, pv=candidate, j=j)
                candidate = pv  # look again at twice the digits
            else:
                candidate = None
            if d * 2 > dps * max_factor and (candidate is None or undecided is not None):
                r, fl = undecided
                what = ("information below the working precision was rounded away (a tiny term or a saturated "
                        "function)" if fl & LOSSY else "a function was applied to an argument known too roughly "
                        "(a huge argument, or a value at a jump)" if fl & UNRESOLVED
                        else "its rounding error is too large to tell a small value from zero (huge terms cancel)")
                return _PointOutcome("unknown",
                                     f"{self.job.where(self.job.keys.get(r))}cannot be resolved at "
                                     f"{_point_text(self.describe(base, pv, r), 160)} even at {d} digits: {what}",
                                     root=r, soundness=self.job.soundness("unknown", "undecided", self.symbols,
                                                                          digits=d))
            start = pv.state
            d *= 2

    def off_branch(self, base, pv):
        """Why the solution of the relations in ``pv`` cannot be used (None when it can)."""
        return off_branch(self.problem, base, pv)

    def _shrank(self, low, high) -> bool:
        """Between two precisions every root's error bound fell with the digits."""
        drop = 0.4 * context(low.dps).prec
        return all(high.errs[r] == -math.inf or high.errs[r] <= low.errs[r] - drop for r in self.roots)

    def confirm(self, base, pv, r, j):
        """Re-evaluate at twice the digits: the value must agree within the error bounds.

        With relations, the solution must also be the one on the branch that starts at the
        guess as the step sizes go to 0 (Newton's method from a guess may converge to another
        root of the equations, where the implicit map is another function): it is followed
        there by continuation, and the point is skipped when it lies elsewhere.
        """
        d2 = 2 * pv.dps
        off_branch = self.off_branch(base, pv)
        if off_branch:
            return _PointOutcome("skip", off_branch)
        try:
            pv2 = self.problem.evaluate(base, d2, j, pv.state)
        except (BadPoint, ArithmeticError, ValueError, TypeError, Unevaluable) as exc:
            return _PointOutcome("unknown", f"a nonzero value could not be confirmed at {d2} digits ({exc})", root=r)
        ctx2 = context(d2)
        v1, v2 = ctx2.convert(pv.vals[r]), pv2.vals[r]
        e1, e2 = pv.errs[r], pv2.errs[r]
        if not resolved_nonzero(ctx2, v2, e2) or pv2.flags[r] & UNRESOLVED:
            return _PointOutcome("unknown", f"a value nonzero at {pv.dps} digits is not resolved at {d2}", root=r)
        diff = v2 - v1
        if diff and ctx2.mag(diff) > max(e1, e2) + 4:
            return _PointOutcome("unknown", f"the values at {pv.dps} and {d2} digits disagree", root=r)
        point = self.describe(base, pv2, r)
        rel_phrase = _manifold_phrase(self.problem) if self.problem.rel is not None else ""
        bound = _fmt(mpmath.mpf(2) ** int(min(e2, 10**6)) if e2 > -10**6 else 0)
        how = (f"nonzero: the value is {_fmt(v2)} at {_point_text(point)}{rel_phrase}, confirmed at {d2} digits "
               f"(its error bound is below {bound})")
        if self.prog.has_float:
            how += " (Floats in the expression are taken at their exact binary values)"
        return _PointOutcome("nonzero", how, point, v2, r,
                             self.job.soundness("counterexample", "counterexample", self.symbols, digits=d2))

    def describe(self, base, pv, root):
        """The counterexample: drawn symbols, solved unknowns and the jets the root uses."""
        prog = self.prog
        point = {}
        reach = prog.reachable([root])
        reach_set = set(reach)
        for s in sorted(base, key=symbol_key):
            if self.problem.rel is not None or prog.symbols.get(s) in reach_set:
                point[str(s)] = as_sympy_number(base[s])
        rel = self.problem.rel
        if rel is not None and pv.state is not None:
            for u, value in zip(rel.unknowns, pv.state):
                point[str(u)] = mpmath.nstr(value, 20)
            nd = len(rel.derived_symbols)
            if nd:
                point["derivatives of the unknowns"] = (f"{nd} values computed by the implicit function theorem "
                                                        "at this point")
        ev = self.problem.ev
        for i in reach:
            op, data, args = prog.nodes[i]
            if op != JET:
                continue
            name, index, _label = data
            rendered = []
            for a in args:
                aop, adata, _ = prog.nodes[a]
                if aop == SYM and prog.exprs[a] in base:
                    rendered.append(as_sympy_number(base[prog.exprs[a]]))
                elif aop == NUM and isinstance(adata[0], int) and len(adata) == 2:
                    rendered.append(sympy.Rational(*adata))
                else:
                    rendered.append(mpmath.nstr(pv.vals[a], 15))
            value = ev.last_values.get(i)
            point[_jet_text(name, index, rendered)] = (sympy.Rational(value.numerator, value.denominator)
                                                      if value is not None else mpmath.nstr(pv.vals[i], 20))
        if rel is not None:
            for (name, k), D in sorted(self.problem.degrees.items()):
                point[f"{name} (in the relations)"] = (f"a random polynomial of degree {D} in {k} variables "
                                                      f"(seed {self.problem.seed % 10**6})")
        return point


def _jet_text(name, index, args) -> str:
    """``V'(1/2)``, ``d2V/dx1dx2(1/2, 3)``: a jet in the user's notation (not ours)."""
    order = sum(index)
    argtext = ", ".join(str(a) for a in args)
    if order == 0:
        return f"{name}({argtext})"
    if len(index) == 1:
        return f"{name}{chr(39) * order}({argtext})" if order <= 3 else f"d^{order}{name}/dx^{order}({argtext})"
    slots = "".join(f"dx{i + 1}" + (f"^{n}" if n > 1 else "") for i, n in enumerate(index) if n)
    return f"d^{order}{name}/{slots}({argtext})"


def _point_text(point, limit=240) -> str:
    """The point, printed (not a reference to an attribute): ``x = 39/20, h = 1/30, ...``."""
    parts = []
    for k, v in point.items():
        if k == "jets" or "(in the relations)" in k or k.startswith("derivatives of"):
            continue
        parts.append(f"{k} = {v}")
    text = ", ".join(parts) or "every point (no symbol is involved)"
    if len(text) > limit:
        text = text[: limit - 25].rsplit(", ", 1)[0] + ", ... (every coordinate in the decision's point)"
    return text


def _exact_phrase(prog):
    n = sum(1 for op, _, _ in prog.nodes if op not in (NUM, ADD, MUL, POWI))
    return f"a rational function with integer coefficients in {_plural(n, 'atom')}"


def _manifold_phrase(problem):
    rel = problem.rel
    if rel is None:
        return ""
    # a scheme's unknowns are Dummies (printed "_q'"): the reader gets their names
    names = [shown_name(u) for u in rel.unknowns]
    shown = ", ".join(names) if len(names) <= 12 else ", ".join(names[:12]) + f", ... ({len(names)} unknowns)"
    txt = (f" on the solution manifold of {_plural(len(rel.equations), 'equation')} for "
           f"{shown} (solved by Newton's method")
    nd = len(rel.derived_symbols)
    if nd:
        txt += (f"; the {_plural(nd, 'derivative')} of the unknowns computed numerically by the implicit "
                "function theorem at each evaluation point (one LU factorization of the Jacobian)")
    if rel.small:
        txt += (f"; {', '.join(sorted(map(str, rel.small)))} drawn in (1/100, 1/20), and in (1/10, 1/2) at every "
                "third point, reached by continuation from small values")
    if problem.degrees:
        ds = sorted(set(problem.degrees.values()))
        txt += (f"; undefined functions in the equations replaced by random polynomials of degree "
                f"{'/'.join(map(str, ds))}")
    return txt + ")"


# ----------------------------------------------------------------------------------
# Singular Jacobians of relations


def decide_jacobian_singular(relation: Relation, *, budget: float = 10.0, dps: int = 50, points: int = 3, seed: int = 0,
                             domain: Domain | Mapping[Any, tuple[Any, Any] | sympy.Interval] | None = None,
                             work: int | None = None) -> ZeroDecision:
    """Decide whether ``det(d equations / d unknowns)`` vanishes on the relation's solution manifold.

    The equations are solved by Newton's method at random points (as in the randomized
    stage of :func:`decide_zero`) and the Jacobian is factored there, its rows and columns
    scaled to largest entry 1: no pivot at or below ``10**(-0.7 dps)``, and a determinant
    that agrees at twice the digits, proves the Jacobian nonsingular (``is_zero`` False, the
    point in ``point``).  Singular to working precision at ``dps`` and again at ``2 dps`` digits
    at every point is the randomized evidence of a singular Jacobian (``is_zero`` True).  When
    Newton's method fails at every point, the Jacobian is evaluated with the unknowns drawn at
    random too: if it is singular there at every point, at both precisions, it is singular
    identically (``is_zero`` True); otherwise the answer is None.

    Parameters
    ----------
    relation : Relation
    budget, dps, points, seed, domain, work
        As for :func:`decide_zero`.

    Returns
    -------
    ZeroDecision
        ``is_zero`` True (singular), False (nonsingular) or None (undecided).

    Examples
    --------
    >>> import sympy
    >>> x, u, v, h = sympy.symbols("x u v h")
    >>> decide_jacobian_singular(Relation([u - x - h*v**2, v - h*u], [u, v], small=[h])).is_zero
    False
    >>> decide_jacobian_singular(Relation([u + v - x, 2*u + 2*v - 2*x], [u, v])).is_zero
    True
    """
    _check_parameters(budget, dps, points, seed)
    check_work_units(work)
    if not isinstance(relation, Relation):
        raise ExpressionError(f"decide_jacobian_singular expects a Relation, got {type(relation).__name__}")
    domain = _as_domain(domain)
    with metered(work):
        return _jacobian_singular(relation, budget, dps, points, seed, domain)


def _determinant(ctx, J):
    """``(det J, singular)``: ``singular`` when the matrix is singular to the working precision.

    Rows and then columns are scaled to largest entry 1 (singularity does not depend on the scale of
    an equation or of an unknown), and the scaled matrix is factored with partial pivoting: a pivot
    at or below ``10**(-0.7 dps)`` means singular to working precision.  (A bound relative to
    Hadamard's product of the row norms, used before, called nonsingular Jacobians of a few hundred
    unknowns singular: their determinant can lie 100 orders below that product at condition 1e7.)
    """
    if not J:
        return ctx.one, False
    scale = ctx.one
    rows = []
    for row in J:
        m = max(abs(x) for x in row)
        if not m:
            return ctx.zero, True
        scale *= m
        rows.append([x / m for x in row])
    for k in range(len(rows)):
        m = max(abs(row[k]) for row in rows)
        if not m:
            return ctx.zero, True
        scale *= m
        for row in rows:
            row[k] /= m
    det = lu_determinant(ctx, rows)        # 0 exactly when a pivot was at or below the threshold
    return (ctx.zero, True) if not det else (det * scale, False)


def _jacobian_singular(relation, budget, dps, points, seed, domain):
    start = time.monotonic()
    deadline = start + budget
    if len(relation.equations) != len(relation.unknowns):
        raise ImplicitMapError("decide_jacobian_singular needs as many equations as unknowns")
    plain = Relation(relation.equations, relation.unknowns, guess=relation.guess, small=relation.small)
    try:
        with Alarm(deadline):
            prog = Program()
            prog.deadline = deadline
            rel = prepare_relations((plain,), prog.jet_memo, deadline)
            if len(rel.equations) != len(rel.unknowns):
                return ZeroDecision(True, "exact", "singular: two equations coincide up to sign")
            problem = NumericProblem(prog, [], rel, seed, deadline)
    except Interrupted as exc:
        return ZeroDecision(None, "unknown", f"unknown: compiling the Jacobian stopped: {_ran_out(exc, budget)}")
    unknown_set = set(rel.unknowns)
    draw_syms = sorted((x for x in prog.symbols if x not in unknown_set), key=symbol_key)
    sampler = Sampler(domain, prog.digest(problem.eq_roots, seed), rel.small)

    def det_at(ctx, symv):
        return _determinant(ctx, problem.jacobian_at(ctx, symv))

    zero_points = failures = ill_conditioned = 0
    try:
        with Alarm(deadline):
            for j in range(TRIES_PER_POINT * points):
                if zero_points >= points:
                    break
                base = {x: sampler.value(x, j) for x in draw_syms}
                ctx = context(dps)
                try:
                    pv = problem.evaluate(base, dps, j, order=[])
                    if off_branch(problem, base, pv):
                        failures += 1
                        continue
                    symv = problem.symvals(ctx, base)
                    symv.update(zip(problem.unknown_nodes, pv.state))
                    det, small_det = det_at(ctx, symv)
                except (BadPoint, ArithmeticError, ValueError, TypeError):
                    failures += 1
                    continue
                # every verdict at a point is confirmed at twice the digits
                ctx2 = context(2 * dps)
                try:
                    pv2 = problem.evaluate(base, 2 * dps, j, start=pv.state, order=[])
                    symv2 = problem.symvals(ctx2, base)
                    symv2.update(zip(problem.unknown_nodes, pv2.state))
                    det2, small2 = det_at(ctx2, symv2)
                except (BadPoint, ArithmeticError, ValueError, TypeError):
                    if small_det:
                        failures += 1
                    continue
                if small_det:
                    # singular to dps digits; an exact zero stays singular at twice the digits (a
                    # nonsingular but ill-conditioned Jacobian does not): otherwise the point is not used
                    if small2:
                        zero_points += 1
                    else:
                        ill_conditioned += 1
                    continue
                if small2 or abs(det2 - det) > abs(det2) * ctx2.mpf(10) ** (-(dps // 2)):
                    continue
                point = {str(x): as_sympy_number(base[x]) for x in draw_syms}
                point.update({str(u): mpmath.nstr(v, 20) for u, v in zip(rel.unknowns, pv2.state)})
                return ZeroDecision(
                    False, "counterexample",
                    f"nonsingular: the Jacobian's determinant is {_fmt(det2)} at {_point_text(point)} of the "
                    f"solution manifold (solved by Newton's method), confirmed at {2 * dps} digits", point, det2)
            if zero_points >= points:
                return ZeroDecision(True, "randomized",
                                    f"singular: the Jacobian's determinant vanishes at {_plural(zero_points, 'point')} "
                                    f"of the solution manifold ({dps} digits)")
            if zero_points == 0 and not ill_conditioned:
                # Newton failed everywhere: is the Jacobian singular even off the manifold?
                free = 0
                for j in range(points):
                    base = {x: sampler.value(x, j) for x in draw_syms}
                    singular = True
                    for digits in (dps, 2 * dps):       # singular at both precisions, as above
                        ctx = context(digits)
                        symv = problem.symvals(ctx, base)
                        for u in rel.unknowns:
                            symv[prog.symbols[u]] = to_ctx(ctx, sampler.value(u, j))
                        try:
                            _det, small_det = det_at(ctx, symv)
                        except (BadPoint, ArithmeticError, ValueError, TypeError):
                            small_det = False
                        singular = singular and small_det
                    if not singular:
                        break
                    free += 1
                if free == points:
                    return ZeroDecision(True, "randomized",
                                        f"singular: the Jacobian's determinant vanishes at {_plural(points, 'point')} "
                                        f"with the unknowns drawn at random too ({dps} digits); Newton's method "
                                        "failed on the manifold")
    except Interrupted as exc:
        return ZeroDecision(None, "unknown", f"unknown: the check stopped: {_ran_out(exc, budget)}")
    why = (f"Newton's method failed at {_plural(failures, 'point')}" if failures else "no usable point")
    if ill_conditioned:
        why += (f"; the Jacobian was singular to {dps} digits but not to {2 * dps} at "
                f"{_plural(ill_conditioned, 'point')} (too ill-conditioned to tell)")
    if zero_points:
        why += f", and the determinant vanished at {_plural(zero_points, 'point')} only"
    return ZeroDecision(None, "unknown", f"unknown: {why}")

