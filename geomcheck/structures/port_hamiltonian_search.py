r"""Search a family of port-Hamiltonian forms for a member with R >= 0 and an integrable Dirac structure.

Salnikov & Hamdouni (2019), Sections 4-5: the pH form of a system is not unique, "existence
tests are appropriate, and if they succeed, there are choices to be made, so there is room for
optimization".  :func:`find_port_hamiltonian` makes the choice:

1. The family: :func:`~geomcheck.structures.port_hamiltonian_ansatz.port_hamiltonian_forms`
   (entries of ``J``, ``R`` polynomials of a degree, no port) or, with ``port="e"``, the
   paper's construction (``J`` of the ansatz, ``R = 0`` unless ``dissipation=True``, the rest
   of ``F`` a port of constant effort ``e = 1``).  Its entries are affine in the free
   parameters ``p``.
2. Integrability: the Dirac structure of a member is the graph of ``D`` (``-J`` on the
   state, the ports ``g``, one resistive port per nonzero row of ``R``), and it is integrable
   (``Q o Q = 0``) iff the Schouten bracket ``[D, D]`` vanishes.  Its components are
   polynomials in the state whose coefficients are polynomial equations in ``p``; since ``D``
   depends on which rows of ``R`` are nonzero, every such support ``S`` is a case (with the
   rows outside ``S`` set to zero).  Each case is decided by a Groebner basis over ``Q`` (the
   system's constants as variables too): a basis ``{1}`` (with cofactors re-checked by
   expansion) proves that no member of that case is integrable; otherwise the equations are
   solved for ``p`` (generic constants).
3. Candidates: the remaining free parameters are set to 0 and to +-1 one at a time.  Each
   candidate is re-certified with the existing certificates (never the solver alone): ``F``
   reproduced (zero test), ``R >= 0`` (principal minors; proved by numbers, assumptions or a
   factorization into nonnegative factors; refuted at an exact point; otherwise the region
   where the minors are nonnegative is reported, never a global True), and ``Q o Q = 0`` of
   :meth:`~geomcheck.structures.port_hamiltonian_system.PortHamiltonianSystem.q_structure`.
4. Ranking by the objective (default ``"sparsity"``): the number of state-dependent entries
   of ``J`` (upper triangle), then of ``R`` (upper triangle with the diagonal), then the sum of
   the total degrees in the state of those entries, then the number of nonzero entries of
   ``J`` and ``R``.  A callable ``objective(system) -> tuple`` replaces it.
5. When no candidate has every required property, an infeasibility certificate is sought:
   the Groebner certificates of every support case (no integrable member) or a sign argument
   (a diagonal entry of ``R`` negative at a state point for every ``p``: no ``R >= 0``).

``holds`` is True when a member with every required property was found, False when the
infeasibility is proved, None otherwise (the search is not exhaustive: not finding a member
proves nothing).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy
from sympy.core.function import AppliedUndef

from ..algebra import Chart
from ..calculus import diff
from ..certify.certificate import Certificate
from ..errors import InvalidArgumentError
from ..latex import Derivation, summarize, tex_text
from ..qstructures import schouten_bracket
from ..zero import decide_all_zero
from .dirac import AlmostDiracStructure
from .polynomial_feasibility import (
    InfeasibilityCertificate,
    groebner_infeasibility,
    sign_infeasibility,
)
from .port_hamiltonian_ansatz import (
    PortHamiltonianForms,
    ansatz_matrices,
    identity_conditions,
    port_form,
    port_hamiltonian_forms,
)
from .port_hamiltonian_data import input_term, scalar_expression, symbol_tuple
from .port_hamiltonian_system import PortHamiltonianSystem
from .positive_semidefinite import certify_positive_semidefinite

__all__ = [
    "PortHamiltonianMember",
    "StructureSearch",
    "certify_psd_with_region",
    "find_dirac_structure",
    "find_port_hamiltonian",
    "sparsity_objective",
]

_REQUIREMENTS = ("psd", "integrable")


# --------------------------------------------------------------------------- certificates
def _nonnegative_by_factors(expr) -> bool:
    """True when ``expr`` factors into a nonnegative constant times even powers and nonnegative factors."""
    for part in sympy.fraction(sympy.together(sympy.expand(expr))):
        try:
            coeff, factors = sympy.factor_list(sympy.expand(part))
        except sympy.PolynomialError:
            return False
        if not (coeff.is_nonnegative is True):
            return False
        for f, k in factors:
            # an even power is >= 0 only for a real factor (w^2 < 0 for w = i)
            if (k % 2 == 0 and f.is_extended_real is True) or f.is_nonnegative is True:
                continue
            return False
    return True


def certify_psd_with_region(R: sympy.MatrixBase, x: Sequence[sympy.Symbol] = (), *,
                            samples: int = 20, seed: int = 0) -> Certificate:
    """``R >= 0`` on the whole state space, proved, refuted, or with the region where it holds.

    Every principal minor must be ``>= 0``.  A minor is proved nonnegative when it is a
    nonnegative number, nonnegative by sympy's assumptions, or factors into a nonnegative
    constant times even powers and nonnegative factors; a negative exact value at a rational
    point refutes it (:func:`~geomcheck.structures.positive_semidefinite.certify_positive_semidefinite`).
    When neither, or when refuted, ``witness``/``residual`` hold the region: the tuple of
    conditions ``minor >= 0`` not proved (``R >= 0`` exactly where all of them hold).  The
    verdict is never a global True for such a region.

    Examples
    --------
    >>> import sympy
    >>> v, c = sympy.symbols("v c", real=True)
    >>> certify_psd_with_region(sympy.Matrix([[v**2, 0], [0, 0]])).holds
    True
    >>> cert = certify_psd_with_region(sympy.Matrix([[v**2 - 1, 0], [0, 0]]), [v])
    >>> cert.holds, cert.residual
    (False, (v**2 - 1 >= 0,))
    """
    R = sympy.Matrix(R)
    base = certify_positive_semidefinite(R, samples=samples, seed=seed)
    if base.holds is True:
        return base
    n = R.shape[0]
    region, proved_by_factor = [], []
    for size in range(1, n + 1):
        for idx in itertools.combinations(range(n), size):
            m = sympy.expand(R.extract(list(idx), list(idx)).det(method="berkowitz"))
            if m.is_Number and m >= 0 or m.is_nonnegative is True:
                continue
            if not (m.atoms(AppliedUndef) or m.has(sympy.Derivative)) and not m.is_Number \
                    and _nonnegative_by_factors(m):
                proved_by_factor.append((idx, m))
                continue
            region.append(sympy.GreaterThan(m, 0, evaluate=False) if not m.is_Number else sympy.false)
    D = base.derivation
    if not region and base.holds is not False:
        rows = r" \\ ".join(r"\Delta_{" + "".join(str(i + 1) for i in idx) + "} &= " + sympy.latex(sympy.factor(m))
                            for idx, m in proved_by_factor[:12])
        D = Derivation("Dissipation matrix").add(
            r"$R$ is positive semidefinite iff all its principal minors are nonnegative:", r"R &= " + summarize(R))
        D = D.add(r"The minors not decided by their sign alone factor into nonnegative factors (even powers,"
                  r" nonnegative symbols):", rows).concluding(r"Every principal minor is nonnegative: $R \succeq 0$.")
        return Certificate("R is positive semidefinite", True, "every principal minor is nonnegative (numbers,"
                           " assumptions, factorization into nonnegative factors; exact)", stage="exact",
                           residual=R, derivation=D)
    region = tuple(region)
    D = D.add(r"$R \succeq 0$ exactly where " + ", ".join("$" + sympy.latex(r) + "$" for r in region[:12]) + ".")
    if base.holds is False:
        # the refutation is an exact value at a point; it wins over anything else
        return Certificate(base.claim, False, base.method + "; R >= 0 only where the listed minors are >= 0",
                           stage=base.stage, residual=region, counterexample=base.counterexample, derivation=D)
    return Certificate(base.claim, None, base.method + "; R >= 0 where the listed minors are >= 0 (not proved"
                       " everywhere)", stage="unknown", residual=region, derivation=D)


def sparsity_objective(S: PortHamiltonianSystem) -> tuple:
    """The default ranking key (smaller is better).

    ``(state-dependent entries of J (i < j), state-dependent entries of R (i <= j), sum of the
    total degrees in the state of the entries of J and R (i <= j; a non-polynomial entry
    counts 1 more than its number of state symbols), nonzero entries of J and R (i <= j))``.

    Examples
    --------
    >>> import sympy
    >>> q, p = sympy.symbols("q p")
    >>> S = PortHamiltonianSystem([[0, q], [-q, 0]], [[0, 0], [0, 1]], None, (q**2 + p**2) / 2, [q, p])
    >>> sparsity_objective(S)
    (1, 0, 1, 2)
    """
    xs = set(S.x)
    n = S.n

    def degree(e):
        if not (e.free_symbols & xs):
            return 0
        try:
            return sympy.Poly(e, *S.x).total_degree()
        except sympy.PolynomialError:
            return len(e.free_symbols & xs) + 1

    Jentries = [sympy.expand(S.J[i, j]) for i in range(n) for j in range(i + 1, n)]
    Rentries = [sympy.expand(S.R[i, j]) for i in range(n) for j in range(i, n)]
    dep = lambda es: sum(1 for e in es if e.free_symbols & xs)
    return (dep(Jentries), dep(Rentries), sum(degree(e) for e in Jentries + Rentries),
            sum(1 for e in Jentries + Rentries if e != 0))


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class PortHamiltonianMember:
    """One concrete member of the family with its certificates.

    Attributes
    ----------
    values : dict              the parameter values.
    system : PortHamiltonianSystem
    port_value : dict          constant port efforts (``{e: 1}`` for the port family).
    reproduces : Certificate   ``F == (J - R) grad H + g u`` (at the port values).
    psd : Certificate          ``R >= 0``; ``residual`` is the region (conditions) when not proved.
    integrable : Certificate   ``Q o Q = 0`` for the Q of ``D`` (``[D, D] = 0``).
    score : tuple              the objective's value.
    """

    values: dict
    system: PortHamiltonianSystem
    port_value: dict
    reproduces: Certificate
    psd: Certificate
    integrable: Certificate
    score: tuple

    @property
    def J(self) -> sympy.Matrix:
        return self.system.J

    @property
    def R(self) -> sympy.Matrix:
        return self.system.R

    @property
    def dirac(self) -> AlmostDiracStructure:
        """The almost-Dirac structure (graph of ``D`` with the ports)."""
        return self.system.dirac_structure()

    @property
    def region(self) -> tuple | None:
        """The conditions ``minor >= 0`` where ``R >= 0`` when not proved globally, else None."""
        return None if self.psd.holds is True else self.psd.residual

    def satisfies(self, require: Iterable[str]) -> bool:
        checks = {"psd": self.psd, "integrable": self.integrable}
        return self.reproduces.holds is True and all(checks[r].holds is True for r in require)


@dataclass(frozen=True)
class StructureSearch:
    """The result of :func:`find_port_hamiltonian`.

    Attributes
    ----------
    family : PortHamiltonianForms   the family searched (its free parameters ``parameters``).
    parameters : tuple              the free parameters.
    require : tuple                 the required properties (``"psd"``, ``"integrable"``).
    objective : str                 how members are ranked.
    members : tuple                 members with every required property proved, best first.
    rejected : tuple                candidates tried that lack a required property (or undecided).
    integrability : tuple           per support case ``(support rows, equations, InfeasibilityCertificate,
                                    solutions)``.
    infeasibility : tuple           the certificates proving that no member has the properties (empty if none).
    holds : bool or None            True: found; False: infeasibility proved; None: neither.
    seconds : float
    derivation : Derivation
    """

    family: PortHamiltonianForms
    parameters: tuple
    require: tuple
    objective: str
    members: tuple
    rejected: tuple
    integrability: tuple
    infeasibility: tuple
    holds: object
    seconds: float
    derivation: Derivation
    member_factory: Callable = field(repr=False, default=None)

    @property
    def best(self) -> PortHamiltonianMember | None:
        return self.members[0] if self.members else None

    def member(self, values: dict) -> PortHamiltonianMember:
        """Certify a chosen member (parameter values; missing ones are 0)."""
        return self.member_factory(values)

    def latex(self) -> str:
        return self.derivation.latex()


# --------------------------------------------------------------------------- the search
def _dirac_with_support(J, g, support, n):
    """``D`` on (state, resistive ports of the rows in ``support``, input ports), as ``dirac_matrix`` builds it."""
    k, m = len(support), g.shape[1]
    D = sympy.zeros(n + k + m, n + k + m)
    D[:n, :n] = -J
    for a, i in enumerate(support):
        D[i, n + a] = 1
        D[n + a, i] = -1
    if m:
        D[:n, n + k:] = -g
        D[n + k:, :n] = g.T
    return D


def _solve_generic(eqs, unknowns):
    """Solutions for generic constants; none when a condition on the constants alone remains."""
    eqs = [e for e in (sympy.expand(e) for e in eqs) if e != 0]
    if any(not (e.free_symbols & set(unknowns)) for e in eqs):
        return []  # a condition on the constants alone: solvable only for special values of them
    if not eqs:
        return [{}]
    return sympy.solve(eqs, list(unknowns), dict=True) or []


def _solve_sparse_first(eqs, params):
    """The generic solutions, then those with all parameters but at most one set to zero.

    ``sympy.solve`` divides by expressions in the parameters (generic solutions), which can
    lose the sparse members the objective prefers; these are found by solving again with most
    parameters set to zero.
    """
    out = []
    seeds = [{}, {p: sympy.S.Zero for p in params}] + [{q: sympy.S.Zero for q in params if q != p} for p in params]
    for seed in seeds:
        rest = [p for p in params if p not in seed]
        for sol in _solve_generic([e.xreplace(seed) for e in eqs], rest):
            full = {**seed, **sol}
            if full not in out:
                out.append(full)
    return out


def _port_family(F, x, H, u, degree, depends_on, dissipation, port):
    variables = list(x) if depends_on is None else list(symbol_tuple(depends_on, "depends_on"))
    J, R, unknowns = ansatz_matrices(len(x), variables, degree, dissipation)
    f = port_form(F, x, H, J=J, R=R, u=u, port=port)
    return f, tuple(unknowns)


def find_port_hamiltonian(F: Sequence[sympy.Expr | float], x: Chart | str | Iterable[sympy.Symbol | str],
                          H: sympy.Expr | float, *, u: str | Iterable[sympy.Symbol | str] = (), degree: int = 0,
                          depends_on: Iterable[sympy.Symbol | str] | None = None, port: str | None = None,
                          dissipation: bool | None = None, require: Iterable[str] = ("psd", "integrable"),
                          objective: str | Callable = "sparsity", nonzero: Iterable[sympy.Expr] = (),
                          max_candidates: int = 40, budget: float = 20.0) -> StructureSearch:
    """Search the pH forms of ``x' = F(x, u)`` for members with ``R >= 0`` and ``Q o Q = 0``, ranked.

    Parameters
    ----------
    F, x, H, u, degree, depends_on
        As for :func:`~geomcheck.structures.port_hamiltonian_ansatz.port_hamiltonian_forms`.
    port : str or None
        None: the family without a port.  A name ``e``: the paper's construction, where what
        ``(J - R) grad H`` does not produce is a port column with constant effort ``e = 1``.
    dissipation : bool
        Whether ``R`` is part of the ansatz (default True without a port, False with one, as in
        the paper: ``R = 0`` and every skew ``J``).
    require : subset of ``("psd", "integrable")``.
    objective : ``"sparsity"`` (:func:`sparsity_objective`) or a callable ``system -> tuple``.
    nonzero : expressions assumed (constants) or required (parameters) to be nonzero: each
        enters the Groebner computations as ``1 - t s = 0``, and members where one vanishes
        are skipped (e.g. ``[epsilon]``: without it a constant may vanish and make a condition
        solvable; ``[epsilon, A, J12]``: is there an integrable member with ``J12 != 0``?).
    max_candidates : candidates certified per solution component.

    Returns
    -------
    StructureSearch

    Raises
    ------
    InvalidArgumentError
        An unknown requirement or objective.

    Examples
    --------
    The damped oscillator: the only form of degree 0 is the canonical one.

    >>> import sympy
    >>> q, p = sympy.symbols("q p"); c = sympy.Symbol("c", positive=True)
    >>> s = find_port_hamiltonian([p, -q - c * p], [q, p], (q**2 + p**2) / 2)
    >>> s.holds, s.best.R, s.best.psd.holds, s.best.integrable.holds
    (True, Matrix([
    [0, 0],
    [0, c]]), True, True)

    With negative damping no member is dissipative (a sign argument):

    >>> s = find_port_hamiltonian([p, -q + p], [q, p], (q**2 + p**2) / 2)
    >>> s.holds, s.infeasibility[0].kind, s.infeasibility[0].entry
    (False, 'sign', (1, -1))
    """
    start = time.monotonic()
    require = tuple(require)
    for r in require:
        if r not in _REQUIREMENTS:
            raise InvalidArgumentError(f"unknown requirement {r!r}; expected some of {_REQUIREMENTS}")
    if objective == "sparsity":
        key, objective_text = sparsity_objective, (
            "sparsity: (state-dependent entries of J, of R, sum of their degrees in the state, nonzero entries)")
    elif callable(objective):
        key, objective_text = objective, getattr(objective, "__name__", "a user objective")
    else:
        raise InvalidArgumentError(f'objective must be "sparsity" or a callable system -> tuple, got {objective!r}')
    x = symbol_tuple(x, "the state x")
    u = symbol_tuple(u, "the inputs u")
    n = len(x)
    H = scalar_expression(H, "the energy H")
    nonzero = tuple(sympy.sympify(s) for s in nonzero)
    if port is None:
        fam = port_hamiltonian_forms(F, x, H, u=u, degree=degree, depends_on=depends_on,
                                     dissipation=True if dissipation is None else dissipation, budget=budget)
        params = fam.parameters
    else:
        fam, params = _port_family(F, x, H, u, degree, depends_on, bool(dissipation), port)
    U, port_value = fam.u, dict(fam.port_value)
    Dv = Derivation("Structure search in a family of port-Hamiltonian forms")
    for s in fam.derivation.steps:
        Dv = Dv.add(s.text, s.math)

    make_member = None

    def result(members, rejected, cases, infeas, holds):
        return StructureSearch(fam, tuple(params), require, objective_text, tuple(members), tuple(rejected),
                               tuple(cases), tuple(infeas), holds, time.monotonic() - start, Dv, make_member)

    if not fam.consistent:
        cert = groebner_infeasibility(fam.conditions, fam.unknowns, nonzero=nonzero, max_degree=0,
                                      what="linear conditions of the ansatz")
        for s in cert.derivation.steps:
            Dv = Dv.add(s.text, s.math)
        Dv = Dv.concluding(r"No port-Hamiltonian form of this ansatz exists"
                           + ("." if cert.holds is True else r" (for generic values of the constants)."))
        return result([], [], [], [cert] if cert.holds is True else [], False if cert.holds is True else None)

    J0, R0, g0 = sympy.Matrix(fam.J), sympy.Matrix(fam.R), sympy.Matrix(fam.g)
    grad = sympy.Matrix([diff(H, xi) for xi in x])
    Fm = sympy.Matrix(fam.F)

    def make_member(values):  # noqa: F811 (the factory of the result)
        vals = {p: sympy.S.Zero for p in params}
        vals.update({sympy.Symbol(k) if isinstance(k, str) else k: sympy.sympify(v) for k, v in values.items()})
        J, R, g = (sympy.Matrix(A.xreplace(vals)).applyfunc(sympy.expand) for A in (J0, R0, g0))
        S = PortHamiltonianSystem(J, R, g, H, x, U)
        model = (J - R) * grad + input_term(g, U)
        res = {i: Fm[i] - model[i].xreplace(port_value) for i in range(n)}
        rep = Certificate.from_decision("F == (J - R) grad H + g u", decide_all_zero(res, budget=budget), residual=res)
        psd = certify_psd_with_region(R, x)
        Qs = S.q_structure()
        integ = Certificate("Q o Q = 0 ([D, D] = 0): the Dirac structure is integrable", Qs.holds,
                            "Schouten bracket [D, D] of the Dirac matrix (homological_report of its Q)",
                            stage="exact" if Qs.holds is not None else "unknown", residual=Qs.schouten,
                            derivation=Qs.derivation)
        return PortHamiltonianMember({p: vals[p] for p in params}, S, port_value, rep, psd, integ, tuple(key(S)))

    # -- integrability: one case per support of R, from the full support down; the search stops at the
    # first case with a member (smaller supports matter only for a proof that none exists)
    support0 = [i for i in range(n) if any(R0[i, j] != 0 for j in range(n))]
    cases, infeas = [], []
    all_infeasible, exact_all = True, True
    members, rejected, seen = [], [], set()

    def candidates(sol):
        free = [p for p in params if p not in sol]
        assignments = [{}] + [{p: sgn} for p in free for sgn in (1, -1)] + ([{p: 1 for p in free}] if free else [])
        for a in assignments[:max_candidates]:
            a = {**{p: 0 for p in free}, **a}
            vals = {p: sympy.expand(sympy.sympify(v).xreplace(a)) for p, v in sol.items()}
            vals.update({p: sympy.Integer(v) for p, v in a.items()})
            vals = {p: vals.get(p, sympy.S.Zero) for p in params}
            if any(v.free_symbols & set(params) or v.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo)
                   for v in vals.values()):
                continue  # a solution with a denominator that vanishes at this assignment
            tag = tuple(sympy.srepr(vals[p]) for p in params)
            if tag in seen:
                continue
            seen.add(tag)
            if any(sympy.expand(e.xreplace(vals)) == 0 for e in nonzero):
                continue  # a member the caller excluded (a required-nonzero expression vanishes)
            mem = make_member(vals)
            (members if mem.satisfies(require) else rejected).append(mem)

    if "integrable" in require:
        supports = [tuple(S) for k in range(len(support0), -1, -1) for S in itertools.combinations(support0, k)]
        for S in supports:
            D = _dirac_with_support(J0, g0, S, n)
            E = Chart(list(x) + [sympy.Dummy(f"w{k}") for k in range(D.shape[0] - n)])
            T = schouten_bracket(D.T, D.T, E)
            comps = [T[i, j, k] for i, j, k in itertools.combinations(range(D.shape[0]), 3)]
            zero_rows = [R0[i, j] for i in range(n) if i not in S for j in range(n)]
            # jets count like sin(q) here: with independent jet values the equations exclude only the members
            # that work for every function at once, not one that works for the system's own (exact False)
            eqs, exact = identity_conditions(comps + zero_rows, x, jets_independent=False,
                                             what="the integrability conditions")
            eqs = [sympy.expand(e) for e in eqs]
            exact_all = exact_all and exact
            eqs = sorted(set(eqs), key=sympy.default_sort_key)
            what = ("integrability conditions $[D, D] = 0$" + (r" with $R$ supported on the rows $"
                    + (",".join(str(i + 1) for i in S) or r"\emptyset") + r"$ (the other rows of $R$ vanish)"
                    if support0 else ""))
            cert = groebner_infeasibility(eqs, list(params), nonzero=nonzero, what=what)
            sols = []
            if cert.holds is True:
                if not exact:
                    cert = InfeasibilityCertificate(cert.kind, None, cert.equations, cert.generators, cert.basis,
                                                    cert.cofactors, method=cert.method + "; but the conditions are"
                                                    " only sufficient (non-polynomial functions of the state)",
                                                    derivation=cert.derivation)
                    all_infeasible = False
            else:
                all_infeasible = False
                sols = _solve_sparse_first(eqs, params)
            cases.append((S, tuple(eqs), cert, tuple(sols)))
            for sol in sols:
                candidates(sol)
            if members:
                break
    else:
        all_infeasible = False
        candidates({})
    members.sort(key=lambda m: m.score)

    # -- infeasibility certificates when nothing was found
    if not members:
        if "integrable" in require and all_infeasible and cases:
            infeas += [c[2] for c in cases]
        if "psd" in require:
            sgn = sign_infeasibility(R0, x, params)
            if sgn.holds is True:
                infeas.append(sgn)
    holds = True if members else (False if infeas else None)

    # -- derivation
    Dv = Dv.add(r"\textbf{Search.} Required: " + ", ".join(
        {"psd": r"$R \succeq 0$", "integrable": r"$Q \circ Q = 0$ ($[D, D] = 0$)"}[r] for r in require)
        + r". Free parameters: $" + (", ".join(sympy.latex(p) for p in params) or r"\text{none}") + r"$.")
    for S, eqs, cert, sols in cases:
        head = (r"Support of $R$ on rows $" + (",".join(str(i + 1) for i in S) or r"\emptyset") + r"$: "
                if support0 else "")
        if cert.holds is True:
            Dv = Dv.add(head + r"the " + str(len(eqs)) + r" integrability conditions have the Groebner basis"
                        r" $\{1\}$: no member is integrable." + (r" Certificate: " + tex_text(cert.method) + "."))
            for s in cert.derivation.steps:
                Dv = Dv.add(s.text, s.math)
        else:
            Dv = Dv.add(head + r"the integrability conditions (coefficients of the state monomials of $[D, D]$)"
                        r" have the Groebner basis over $\mathbf{Q}$ (constants as variables)",
                        r" \\ ".join(r"0 &= " + summarize(b) for b in cert.basis[:20]) or r"&\text{(none)}")
            if sols:
                Dv = Dv.add(r"Solved for the parameters (generic constants):", r" \\ ".join(
                    r"&" + ", ".join(sympy.latex(p) + " = " + sympy.latex(v) for p, v in s.items()) if s
                    else r"&\text{all parameters free}" for s in sols[:10]))
    if members:
        b = members[0]
        Dv = Dv.add(r"Candidates re-certified: " + str(len(members) + len(rejected)) + r"; with every required"
                    r" property: " + str(len(members)) + r". Ranked by " + tex_text(objective_text)
                    + r", the best member (score $" + sympy.latex(b.score) + r"$) has",
                    r"J &= " + summarize(b.J) + r", & R &= " + summarize(b.R) + r", \\ g &= " + summarize(b.system.g)
                    + r", & & " + ", ".join(sympy.latex(p) + " = " + sympy.latex(v) for p, v in b.values.items()))
        Dv = Dv.concluding(r"Certificates of the best member: $F$ reproduced: " + tex_text(b.reproduces.verdict())
                           + r"; $R \succeq 0$: " + tex_text(b.psd.verdict()) + r"; $Q \circ Q = 0$: "
                           + tex_text(b.integrable.verdict()) + ".")
    elif holds is False:
        for c in infeas:
            if c.kind == "sign":
                for s in c.derivation.steps:
                    Dv = Dv.add(s.text, s.math)
        Dv = Dv.concluding(r"Proved: no member of the family has the required properties ("
                           + tex_text("; ".join(c.method for c in infeas)) + ").")
    else:
        Dv = Dv.concluding(r"No candidate has every required property proved, and no infeasibility certificate was"
                           r" found: undecided" + ("" if exact_all else r" (the conditions are only sufficient for"
                                                   r" non-polynomial functions of the state)") + ".")
    return result(members, rejected, cases, infeas, holds)


def find_dirac_structure(F: Sequence[sympy.Expr | float], x: Chart | str | Iterable[sympy.Symbol | str],
                         H: sympy.Expr | float, **options: Any) -> StructureSearch:
    """The members of the family whose Dirac structure is integrable (``R >= 0`` not required).

    This is :func:`find_port_hamiltonian` with ``require=("integrable",)``: the Dirac structure
    of a member is the graph ``f = D e`` of its Dirac matrix (``-J``, the resistive ports of
    the nonzero rows of ``R``, the input ports), so it depends on ``J``, the ports and only the
    support of ``R``; ``R >= 0`` is the resistive relation closing the resistive ports, not
    part of the Dirac structure.  Each member's ``dirac`` is its
    :class:`~geomcheck.structures.dirac.AlmostDiracStructure`.

    Examples
    --------
    >>> import sympy
    >>> q, p, a = sympy.symbols("q p a")
    >>> s = find_dirac_structure([p, -q + a * q**2], [q, p], (q**2 + p**2) / 2, port="e")
    >>> s.holds, s.best.J, s.best.dirac.certify_integrable().holds
    (True, Matrix([
    [0, 0],
    [0, 0]]), True)
    """
    options = dict(options)
    if "require" in options:
        raise InvalidArgumentError("find_dirac_structure requires integrability only; use find_port_hamiltonian"
                                   " to choose the requirements")
    return find_port_hamiltonian(F, x, H, require=("integrable",), **options)
