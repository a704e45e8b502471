"""Maps between charts, explicit and implicit; pullbacks and restrictions.

``Map(M, N, exprs)`` gives N's coordinates as expressions in M's.  An
``ImplicitMap(M, N, equations)`` defines them by ``equations == 0``; its
derivatives come from the implicit function theorem through one sparse linear
solve (no symbolic inverse).  Pulling a form back through an implicit map gives a
form whose coefficients contain the map's unknowns (the new coordinates and any
auxiliary stage variables); such a form remembers that dependence, so that its
derivatives are total derivatives and its zero test runs on the solution manifold.

Implicit derivatives
--------------------
The symbolic solve of ``J_U du/dx = -J_x`` suffers fill-in: for a 4-stage Gauss
method on two degrees of freedom its pivots become huge expressions in the jets of
the potential, whose nonzero test runs out of time.  So the symbolic route is taken
only for small systems (at most :data:`SYMBOLIC_IFT_MAX_UNKNOWNS` unknowns with
non-numeric Jacobian columns) and within :data:`SYMBOLIC_IFT_BUDGET` seconds.
Otherwise -- or when a pivot's nonzero test is undecided -- the map uses *implicit
derivatives*: ``du_k/dx_j`` is a fresh symbol ``D_kj``, and the relation of the map
carries the linear equations ``J_U D + J_x = 0`` as derived unknowns
(:class:`geomcheck.zero.Relation`), which the zero test solves numerically at each
evaluation point after Newton's method.  The Jacobian's nonsingularity is then
checked numerically at construction (:func:`geomcheck.zero.decide_jacobian_singular`).
``ImplicitMap(..., derivatives="symbolic" | "implicit")`` overrides the choice.
A form pulled back in this mode cannot be differentiated again (that would need
second derivatives): :func:`geomcheck.d` raises
:class:`~geomcheck.errors.ImplicitDerivativeError` instead of treating ``D_kj`` as
constants.

>>> import geomcheck as gc, sympy
>>> M = gc.Chart("q p")
>>> q, p = M.coords
>>> h = sympy.Symbol("h")
>>> phi = gc.Map(M, M, [q + h * p, p])              # a shear
>>> w = M.d(q) ^ M.d(p)
>>> gc.pullback(w, phi) == w
True
"""

from __future__ import annotations

import time
from typing import Iterable, Literal, Mapping, Sequence, overload

import sympy

from .algebra import Accumulator, Chart, as_sequence, mul_terms
from .calculus import canonical_forms, canonical_jets, diff, free_coordinates, symbols_of
from .errors import ChartMismatchError, ExpressionError, ImplicitMapError, MapError
from .forms import Dependence, Form, coefficient_gradient, require_ordinary
from .latex import implicit_map_latex, map_latex
from .linalg import EliminationTooCostly, SingularSystem, solve_by_determinant, solve_sparse

__all__ = ["Map", "ImplicitMap", "compose", "pullback", "restrict", "submanifold_parametrization", "substitute"]

#: seconds the symbolic elimination of the implicit function theorem may take before
#: the map switches to implicit derivatives
SYMBOLIC_IFT_BUDGET = 3.0
#: above this many unknowns whose Jacobian column is not numeric, the symbolic
#: elimination is not tried (its fill-in grows too fast): implicit derivatives at once
SYMBOLIC_IFT_MAX_UNKNOWNS = 4


def substitute(expr: sympy.Expr | float, mapping: Mapping) -> sympy.Expr:
    """Simultaneous substitution that stays valid inside derivatives.

    ``substitute(V(q1, q2).diff(q1), {q1: Q1, q2: Q2})`` is dV/dq1 evaluated at (Q1, Q2),
    even when Q2 contains q1.  Derivatives of undefined functions are first brought to
    canonical jets (plain function applications), on which ``xreplace`` is exact and
    cheap; sympy 1.14's ``subs(..., simultaneous=True)`` can capture a variable of the
    derivative inside a substituted expression and return a different function.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> q1, q2, h = sympy.symbols("q1 q2 h")
    >>> V = sympy.Function("V")
    >>> gc.substitute(V(q1, q2).diff(q1), {q1: q1 + h, q2: q1})
    V_{1}(h + q1, q1)
    """
    expr = sympy.sympify(expr)
    if not mapping:
        return expr
    if expr.has(sympy.Derivative, sympy.Subs):
        expr = canonical_jets(expr)
    return expr.xreplace(mapping)


def _check_symbols(owner: str, exprs, allowed: frozenset, parameters, others=()):
    """Refuse coordinates of the ``others`` charts (the target of a map into another chart), and
    undeclared symbols when parameters are given.

    Without declared parameters every other symbol is a constant parameter: which charts
    happen to exist elsewhere in the process must not change what a map means.
    """
    other = frozenset().union(*(c.coordinate_set for c in others))
    for k, e in exprs:
        syms = symbols_of(e)
        if parameters is None:
            foreign = (syms - allowed) & other
        else:
            foreign = syms - allowed - set(parameters)
        if foreign:
            names = ", ".join(sorted(str(s) for s in foreign))
            raise MapError(
                f"{owner}: the expression for {k} ({e}) contains {names}, which "
                f"{'are' if len(foreign) > 1 else 'is'} not "
                f"{'coordinates of the source chart or declared parameters' if parameters is not None else 'a coordinate of the source chart but of another chart'};"
                f" expected expressions in {', '.join(str(s) for s in sorted(allowed, key=str))}"
                " (and constant parameters such as a step size)"
            )


class Map:
    """An explicit map ``M -> N``: N's coordinates as expressions in M's.

    Parameters
    ----------
    source, target : Chart
    exprs : sequence (in target-coordinate order) or dict {target coordinate: expression}
    parameters : sequence of Symbol, optional
        Constant symbols the expressions may contain.  When omitted, any symbol that
        is not a source coordinate counts as a parameter, except the coordinates of the
        target when it is another chart (e.g. N's when N is not M), which are refused.
    """

    def __init__(self, source: Chart, target: Chart,
                 exprs: Sequence[sympy.Expr | float] | Mapping[sympy.Symbol, sympy.Expr | float],
                 parameters: Iterable[sympy.Symbol] | None = None):
        require_ordinary(source)
        require_ordinary(target)
        if isinstance(exprs, Mapping):
            missing = [y for y in target.coords if y not in exprs]
            extra = [k for k in exprs if k not in target.coordinate_set]
            if missing or extra:
                raise MapError(
                    f"Map to {target!r} needs exactly one expression per target coordinate;"
                    f" missing {missing}, unknown {extra}"
                )
            values = [exprs[y] for y in target.coords]
        else:
            values = as_sequence(exprs, f"the expressions of a Map to {target!r}",
                                 "a sequence in target-coordinate order or a dict {target coordinate: expression}",
                                 MapError)
        if len(values) != target.dim:
            raise MapError(
                f"Map from {source!r} to {target!r} got {len(values)} expressions; expected"
                f" {target.dim}, one per target coordinate"
            )
        self.source = source
        self.target = target
        # one finiteness walk for all components: a step map's components share most of their
        # subexpressions (the stages), which a walk per component would visit once per component
        finite = {}
        self.exprs = tuple(source.check_expression(v, f"Map expression for {y}", finite)
                           for y, v in zip(target.coords, values))
        self.parameters = None if parameters is None else tuple(parameters)
        _check_symbols("Map", zip(target.coords, self.exprs), source.coordinate_set, self.parameters,
                       () if target == source else (target,))
        self._jacobian = None
        self._canonical = None

    @property
    def canonical_exprs(self) -> tuple:
        """The expressions in one notation, however they were written (computed once).

        ``Subs(Derivative(V(y), y), y, Q)``, ``Derivative(V(y), y).subs(y, Q)``, sympy's
        chain rule and :func:`substitute` all give the same expression here (see
        :func:`geomcheck.calculus.canonical_form`); the Jacobian and pullbacks are computed
        from it, so neither their result nor their cost depends on the notation.
        :attr:`exprs` keeps the expressions as given.
        """
        if self._canonical is None:
            self._canonical = canonical_forms(self.exprs)
        return self._canonical

    @property
    def target_symbols(self) -> tuple[sympy.Symbol, ...]:
        return self.target.coords

    def substitution(self) -> dict:
        """``{target coordinate: expression}``."""
        return dict(zip(self.target.coords, self.exprs))

    def __call__(self, f):
        """The composite ``f o phi`` of a function on the target."""
        return substitute(sympy.sympify(f), self._canonical_substitution())

    def _canonical_substitution(self) -> dict:
        return dict(zip(self.target.coords, self.canonical_exprs))

    def jacobian(self) -> dict:
        """Sparse Jacobian ``{(i, j): d phi^i / d x^j}`` (nonzero entries)."""
        if self._jacobian is None:
            jac = {}
            index = self.source._index
            for i, e in enumerate(self.canonical_exprs):
                for x in free_coordinates(e, self.source.coordinate_set):
                    v = diff(e, x)
                    if v != 0:
                        jac[(i, index[x])] = v
            self._jacobian = jac
        return self._jacobian

    def jacobian_matrix(self) -> sympy.Matrix:
        J = sympy.zeros(self.target.dim, self.source.dim)
        for (i, j), v in self.jacobian().items():
            J[i, j] = v
        return J

    def differentials(self) -> list:
        """``[d phi^i]`` as sparse term dicts of 1-forms on the source."""
        rows = [dict() for _ in range(self.target.dim)]
        for (i, j), v in self.jacobian().items():
            rows[i][(j,)] = v
        return rows

    def __eq__(self, other):
        return (
            isinstance(other, Map)
            and (self.source, self.target, self.exprs) == (other.source, other.target, other.exprs)
        )

    def __hash__(self):
        return hash((self.source, self.target, self.exprs))

    def __repr__(self):
        body = ", ".join(f"{y} -> {e}" for y, e in zip(self.target.coords, self.exprs))
        return f"Map({body})"

    def _latex(self, printer=None):
        return map_latex(self)

    def _repr_latex_(self):
        return f"${self._latex()}$"


class _IFTData:
    """The implicit function theorem as computed for an :class:`ImplicitMap` (symbolic mode).

    ``rows[i]`` is ``{k: dF_i/du_k}`` (the matrix A), ``rhs[j][i]`` is ``-dF_i/dx_j`` (the matrix
    C), and ``cramer`` the :class:`geomcheck.linalg.CramerSolution` the derivatives
    ``du/dx = A^{-1} C`` were taken from (None when sparse elimination was used): derivations
    typeset these, the very objects the pullbacks are made of.
    """

    __slots__ = ("rows", "rhs", "cramer")

    def __init__(self, rows, rhs, cramer):
        self.rows, self.rhs, self.cramer = rows, rhs, cramer


class ImplicitMap:
    """A map ``M -> N`` whose new coordinates are defined by ``equations == 0``.

    Parameters
    ----------
    source, target : Chart
    equations : sequence of expressions
        As many as unknowns (new coordinates plus auxiliary unknowns).
    new : sequence of Symbol, optional
        The symbols standing for the target coordinates in the equations.  Defaults
        to the target's coordinates; required when the target shares coordinates with
        the source (e.g. a one-step map M -> M), where e.g. ``Q1, P1`` name the new values.
    auxiliary : sequence of Symbol
        Further unknowns fixed by the equations (internal stages of a scheme).
    parameters : sequence of Symbol, optional
        Constant symbols (as for :class:`Map`).
    guess : dict, optional
        ``{unknown: expression in the source coordinates}`` near which the solution is
        sought numerically (default: the source coordinate at the same position for the
        new coordinates when the dimensions agree, 0 for auxiliary unknowns).
    step : Symbol, optional
        A small parameter (default: a parameter named ``h``); numeric checks take it small.
    derivatives : {"auto", "symbolic", "implicit"}
        How du/dx is obtained (see the module docstring): ``"auto"`` (default) tries
        symbolic elimination for small systems within a time limit and otherwise uses
        implicit derivatives; ``"symbolic"`` always tries the elimination, without size or
        time limit (pullbacks can then be differentiated again), falling back to implicit
        derivatives only when a pivot's nonzero test is undecided; ``"implicit"`` always
        uses implicit derivatives.

    Attributes
    ----------
    derivative_mode : str
        ``"symbolic"`` (du/dx as expressions) or ``"implicit"`` (du/dx as symbols fixed
        numerically by the implicit function theorem; see the module docstring); set
        once :attr:`dependence` has been computed (at construction for this class).
    derivative_note : str
        Why the mode was chosen, and for implicit derivatives how the Jacobian's
        nonsingularity was checked.

    Raises
    ------
    ImplicitMapError
        Wrong number of equations, or a Jacobian with respect to the unknowns that is
        singular (the equations do not determine the new coordinates).  When symbolic
        elimination cannot decide, nonsingularity is checked numerically at random points
        of the solution manifold; if even that is undecided (Newton's method fails), no
        error is raised and certificates of the map will answer None.
    """

    def __init__(self, source: Chart, target: Chart, equations: Sequence[sympy.Expr | float],
                 new: Sequence[sympy.Symbol] | None = None, auxiliary: Sequence[sympy.Symbol] = (),
                 parameters: Iterable[sympy.Symbol] | None = None,
                 guess: Mapping[sympy.Symbol, sympy.Expr | float] | None = None, step: sympy.Symbol | None = None,
                 derivatives: Literal["auto", "symbolic", "implicit"] = "auto"):
        require_ordinary(source)
        require_ordinary(target)
        if derivatives not in ("auto", "symbolic", "implicit"):
            raise ImplicitMapError(
                f"ImplicitMap: derivatives={derivatives!r}; expected 'auto', 'symbolic' or 'implicit'"
            )
        self.derivatives = derivatives
        equations = as_sequence(equations, "the equations of an ImplicitMap", "a sequence of sympy expressions",
                                ImplicitMapError)
        finite = {}      # one finiteness walk for all the equations (they share the stage values)
        eqs = tuple(source.check_expression(e, "ImplicitMap equation", finite) for e in equations)
        if new is None:
            shared = set(target.coords) & set(source.coords)
            if shared:
                raise ImplicitMapError(
                    f"ImplicitMap: the target {target!r} shares coordinates {sorted(map(str, shared))} with the"
                    " source; pass new=[...] symbols that stand for the new values in the equations"
                )
            new = target.coords
        try:
            new = tuple(sympy.sympify(s) for s in as_sequence(new, "ImplicitMap: new", "a sequence of Symbols",
                                                               ImplicitMapError))
            auxiliary = tuple(sympy.sympify(s) for s in as_sequence(auxiliary, "ImplicitMap: auxiliary",
                                                                     "a sequence of Symbols", ImplicitMapError))
        except (sympy.SympifyError, TypeError, ValueError) as exc:
            if isinstance(exc, ImplicitMapError):
                raise
            raise ImplicitMapError(f"ImplicitMap: the unknowns new={new!r}, auxiliary={auxiliary!r} must be"
                                   f" Symbols ({exc})") from None
        if len(new) != target.dim:
            raise ImplicitMapError(f"ImplicitMap: {len(new)} new symbols given for the {target.dim} coordinates of {target!r}")
        unknowns = new + auxiliary
        if len(set(unknowns)) != len(unknowns) or any(not isinstance(u, sympy.Symbol) for u in unknowns):
            raise ImplicitMapError(f"ImplicitMap: unknowns {unknowns} must be distinct Symbols")
        clash = set(unknowns) & source.coordinate_set
        if clash:
            raise ImplicitMapError(f"ImplicitMap: unknowns {sorted(map(str, clash))} are coordinates of the source {source!r}")
        if len(eqs) != len(unknowns):
            raise ImplicitMapError(
                f"ImplicitMap: {len(eqs)} equations for {len(unknowns)} unknowns {list(unknowns)};"
                " expected one equation per unknown"
            )
        self.source, self.target = source, target
        self.equations, self.new, self.auxiliary, self.unknowns = eqs, new, auxiliary, unknowns
        self.parameters = None if parameters is None else tuple(parameters)
        allowed = source.coordinate_set | frozenset(unknowns)
        # the unknowns may be coordinates of the target chart: they are allowed here
        _check_symbols("ImplicitMap", [(f"equation {i}", e) for i, e in enumerate(eqs)], allowed, self.parameters,
                       () if target == source else (target,))
        if guess is None:
            guess = {}
            if len(new) == source.dim:
                guess.update(zip(new, source.coords))
        self.guess = {u: sympy.sympify(guess.get(u, 0)) for u in unknowns}
        syms = set().union(*(symbols_of(e) for e in eqs)) if eqs else set()
        if step is None:
            step = next((s for s in syms if s.name == "h" and s not in allowed), None)
        self.step = step
        self._dependence = None
        self._canonical = None
        self.derivative_mode = None
        self.derivative_note = None
        self.implicit_function_data = None
        self.dependence  # validate the Jacobian now: bad input fails at construction

    @property
    def target_symbols(self) -> tuple[sympy.Symbol, ...]:
        return self.new

    @property
    def canonical_equations(self) -> tuple:
        """The equations in one notation, however they were written (see :attr:`Map.canonical_exprs`)."""
        if self._canonical is None:
            self._canonical = canonical_forms(self.equations)
        return self._canonical

    @property
    def dependence(self) -> Dependence:
        """Derivatives of every unknown by the source coordinates (implicit function theorem)."""
        if self._dependence is None:
            from .zero import Relation

            unknown_index = {u: k for k, u in enumerate(self.unknowns)}
            rows = []
            rhs_columns = [[] for _ in range(self.source.dim)]
            for e in self.canonical_equations:
                row = {}
                for u in symbols_of(e) & set(self.unknowns):
                    v = diff(e, u)
                    if v != 0:
                        row[unknown_index[u]] = v
                rows.append(row)
                grads = dict(coefficient_gradient(e, self.source, {}))
                for j in range(self.source.dim):
                    rhs_columns[j].append(-grads.get(j, sympy.S.Zero))
            self._check_structure(rows)
            small = (self.step,) if self.step is not None else ()
            symbolic = {k for row in rows for k, v in row.items() if not v.is_Number}
            sols, why, cramer, note = None, None, None, None
            mode = getattr(self, "derivatives", "auto")
            if mode == "implicit":
                why = "requested with derivatives='implicit'"
            elif mode == "auto" and len(symbolic) > SYMBOLIC_IFT_MAX_UNKNOWNS:
                why = (f"{len(symbolic)} unknowns have non-numeric Jacobian columns (more than"
                       f" {SYMBOLIC_IFT_MAX_UNKNOWNS}: symbolic elimination would fill in)")
            else:
                deadline = time.monotonic() + SYMBOLIC_IFT_BUDGET if mode == "auto" else None
                try:
                    # one denominator, det(dF/du): a symbolic pivot of sparse elimination would divide
                    # by a quantity (h V''(q)) whose zeros are no singularity of the map
                    cramer = solve_by_determinant(rows, rhs_columns, len(self.unknowns), deadline=deadline)
                    if cramer is not None:
                        sols = cramer.solutions()
                        note = ("derivatives of the unknowns by the implicit function theorem, over the one"
                                " denominator det(dF/du) (Cramer's rule after constant pivots)")
                    else:
                        sols = solve_sparse(rows, rhs_columns, len(self.unknowns), deadline=deadline)
                        note = "derivatives of the unknowns by symbolic sparse elimination"
                except SingularSystem as exc:
                    if not exc.undecided:
                        raise ImplicitMapError(
                            f"ImplicitMap: the equations do not determine {self.unknowns[exc.column]}: their Jacobian"
                            f" with respect to the unknowns {list(self.unknowns)} is singular"
                        ) from None
                    why = (f"symbolic elimination could not decide whether a pivot for {self.unknowns[exc.column]}"
                           " is nonzero")
                except EliminationTooCostly:
                    why = f"symbolic elimination took more than {SYMBOLIC_IFT_BUDGET:g} s"
            if sols is not None:
                derivatives = {u: {} for u in self.unknowns}
                for j, sol in enumerate(sols):
                    for k, v in enumerate(sol):
                        if v != 0:
                            derivatives[self.unknowns[k]][j] = v
                relation = Relation(list(self.canonical_equations), list(self.unknowns), guess=self.guess,
                                    small=small)
                self.derivative_mode = "symbolic"
                self.derivative_note = note
                self.implicit_function_data = _IFTData(rows, rhs_columns, cramer)
                self._dependence = Dependence(relation, derivatives)
            else:
                self._dependence = self._implicit_dependence(rhs_columns, small, why)
        return self._dependence

    def _check_structure(self, rows):
        """A decided singularity visible without any algebra: an unused unknown."""
        used = {k for row in rows for k in row}
        for k, u in enumerate(self.unknowns):
            if k not in used:
                raise ImplicitMapError(
                    f"ImplicitMap: the equations do not determine {u}: it occurs in none of them (their Jacobian"
                    f" with respect to the unknowns {list(self.unknowns)} is singular)"
                )

    def _implicit_dependence(self, rhs_columns, small, why) -> Dependence:
        """du_k/dx_j as fresh symbols fixed by ``J_U D + J_x = 0`` (see the module docstring)."""
        from .zero import Relation, decide_jacobian_singular

        derived, derivatives = [], {u: {} for u in self.unknowns}
        for j, column in enumerate(rhs_columns):
            if all(v == 0 for v in column):
                continue  # no equation contains x_j: du/dx_j = 0
            x = self.source.coords[j]
            symbols = [sympy.Dummy(f"D[{u.name},{x.name}]") for u in self.unknowns]
            derived.append((symbols, [-v for v in column]))
            for u, D in zip(self.unknowns, symbols):
                derivatives[u][j] = D
        relation = Relation(list(self.canonical_equations), list(self.unknowns), guess=self.guess, small=small,
                            derived=derived)
        check = decide_jacobian_singular(relation)
        if check.is_zero is True:
            raise ImplicitMapError(
                f"ImplicitMap: the equations do not determine the unknowns {list(self.unknowns)}: their Jacobian"
                f" is singular ({check.method})"
            )
        self.derivative_mode = "implicit"
        self.derivative_note = f"implicit derivatives ({why}); Jacobian check: {check.method}"
        return Dependence(relation, derivatives)

    def substitution(self) -> dict:
        return dict(zip(self.target.coords, self.new))

    def __repr__(self):
        return f"ImplicitMap({', '.join(f'{e} = 0' for e in self.equations)})"

    def _latex(self, printer=None):
        return implicit_map_latex(self)

    def _repr_latex_(self):
        return f"${self._latex()}$"


def _transport(deps, subst: Mapping, guess_subst: Mapping, chain: Sequence, avoid: set):
    """Carry the implicit dependences of a form through a pullback.

    A dependence says how unknowns u depend on the coordinates y of the chart the form
    lives on (``du/dy_k`` and the relation fixing u).  After ``y = phi(x)`` the relation's
    equations and guesses are composed with phi and ``du/dx_j = sum_k du/dy_k dy_k/dx_j``
    (``chain[k][j] = dy_k/dx_j``).  Unknowns that clash with ``avoid`` (the new map's
    unknowns, the source coordinates) are renamed, since the same implicit map may be
    used twice.  Returns the new dependences and the renaming (to apply to coefficients).
    """
    from .zero import Relation

    rename = {}
    for dep in deps:
        rel = dep.relation
        if any(u in avoid for u in rel.unknowns + rel.derived_symbols):
            # the same implicit map met twice: all its unknowns, derived ones too, get fresh names
            for u in rel.unknowns + rel.derived_symbols:
                rename[u] = sympy.Dummy(u.name)
    full = {**subst, **rename}
    out = []
    for dep in deps:
        rel = dep.relation
        derivatives = {}
        for u, row in dep.derivatives.items():
            acc = {}
            for k, v in row.items():
                vs = substitute(v, full)
                for j, c in chain[k].items():
                    acc.setdefault(j, []).append(vs * c)
            derivatives[rename.get(u, u)] = {j: sympy.Add(*parts) for j, parts in acc.items()}
        relation = Relation(
            [substitute(e, full) for e in rel.equations],
            [rename.get(u, u) for u in rel.unknowns],
            guess={rename.get(u, u): substitute(rel.guess[u], guess_subst) for u in rel.unknowns},
            small=rel.small,
            derived=[([rename.get(x, x) for x in symbols], [substitute(r, full) for r in rhs])
                     for symbols, rhs in rel.derived],
        )
        out.append(Dependence(relation, derivatives))
    return tuple(out), rename


def pullback(a: Form, phi: Map | ImplicitMap) -> Form:
    """``phi^* a``: a form on ``phi.target`` pulled back to ``phi.source``.

    Works for :class:`Map` and :class:`ImplicitMap`; the pullback by an implicit map
    has coefficients in the unknowns and remembers how they depend on the coordinates
    (also through further pullbacks).
    """
    if not isinstance(a, Form):
        raise ExpressionError(f"pullback expects a Form, got {type(a).__name__}")
    if not isinstance(phi, (Map, ImplicitMap)):
        raise ExpressionError(f"pullback expects a Map or ImplicitMap, got {type(phi).__name__}")
    if a.chart != phi.target:
        raise ChartMismatchError(f"cannot pull back a form on {a.chart!r} by a map into {phi.target!r}")
    if isinstance(phi, Map):
        mapping = phi._canonical_substitution()
        dphi = [{j: v for (j,), v in row.items()} for row in phi.differentials()]
        guess_subst = mapping
        avoid = set(phi.source.coords)
        own = ()
    else:
        mapping = phi.substitution()
        dep = phi.dependence
        dphi = [dep.derivatives[u] for u in phi.new]
        guess_subst = {y: phi.guess[u] for y, u in zip(phi.target.coords, phi.new)}
        avoid = set(phi.source.coords) | set(phi.unknowns) | set(dep.relation.derived_symbols)
        own = (dep,)
    dependence, rename = _transport(a.dependence, mapping, guess_subst, dphi, avoid)
    full = {**mapping, **rename}
    dphi_terms = [{(j,): v for j, v in row.items()} for row in dphi]
    acc = Accumulator()
    for key, c in a.terms.items():
        terms = {(): substitute(c, full)}
        for i in key:
            terms = mul_terms(terms, dphi_terms[i])
            if not terms:
                break
        acc.add_terms(terms)
    return Form._raw(phi.source, acc.result(), a._deg, own + dependence)


@overload
def compose(psi: Map, phi: Map) -> Map: ...
@overload
def compose(psi: Map | ImplicitMap, phi: Map | ImplicitMap) -> Map | ImplicitMap: ...
def compose(psi: Map | ImplicitMap, phi: Map | ImplicitMap) -> Map | ImplicitMap:
    """``psi o phi`` (phi first): a Map when both are explicit, otherwise an ImplicitMap."""
    for m in (psi, phi):
        if not isinstance(m, (Map, ImplicitMap)):
            raise ExpressionError(f"compose expects Maps or ImplicitMaps, got {type(m).__name__}")
    if phi.target != psi.source:
        raise ChartMismatchError(f"cannot compose: the first map lands in {phi.target!r}, the second starts on {psi.source!r}")
    params = None if (phi.parameters is None or psi.parameters is None) else phi.parameters + psi.parameters
    if isinstance(phi, Map) and isinstance(psi, Map):
        sub = phi._canonical_substitution()
        return Map(phi.source, psi.target, [substitute(e, sub) for e in psi.canonical_exprs], parameters=params)
    if isinstance(phi, Map):
        sub = phi._canonical_substitution()
        eqs = [substitute(e, sub) for e in psi.equations]
        return ImplicitMap(phi.source, psi.target, eqs, new=psi.new, auxiliary=psi.auxiliary,
                           parameters=params, guess={u: substitute(g, sub) for u, g in psi.guess.items()},
                           step=psi.step, derivatives=_derivatives_of(psi, phi))
    # phi implicit: its unknowns become auxiliary unknowns of the composite
    taken = set(phi.unknowns) | set(phi.source.coords)
    fresh = {}
    for u in (psi.unknowns if isinstance(psi, ImplicitMap) else psi.target.coords):
        fresh[u] = sympy.Dummy(u.name) if u in taken else u
    sub = dict(zip(psi.source.coords, phi.new))
    if isinstance(psi, Map):
        new = [fresh[y] for y in psi.target.coords]
        eqs = list(phi.equations) + [y - substitute(e, sub) for y, e in zip(new, psi.exprs)]
        aux = list(phi.unknowns)
        guess = dict(phi.guess)
        guess.update({y: substitute(substitute(e, sub), phi.guess) for y, e in zip(new, psi.exprs)})
    else:
        ren = {**sub, **fresh}
        new = [fresh[u] for u in psi.new]
        eqs = list(phi.equations) + [substitute(e, ren) for e in psi.equations]
        aux = list(phi.unknowns) + [fresh[u] for u in psi.auxiliary]
        guess = dict(phi.guess)
        for u, g in psi.guess.items():
            guess[fresh[u]] = substitute(substitute(g, sub), phi.guess)
    return ImplicitMap(phi.source, psi.target, eqs, new=new, auxiliary=aux, parameters=params, guess=guess,
                       step=phi.step or getattr(psi, "step", None), derivatives=_derivatives_of(psi, phi))


def _derivatives_of(*maps) -> str:
    """The ``derivatives`` option of a composite: an explicit request of a factor wins."""
    modes = {getattr(m, "derivatives", "auto") for m in maps}
    for mode in ("implicit", "symbolic"):
        if mode in modes:
            return mode
    return "auto"


def submanifold_parametrization(
        chart: Chart, equations: Sequence, solve_for: Sequence[sympy.Symbol | str] | None = None,
        parameters: Iterable[sympy.Symbol] | None = None,
        guess: Mapping[sympy.Symbol, sympy.Expr | float] | None = None,
) -> tuple[Chart, Map | ImplicitMap]:
    """A parametrization of ``{equations == 0}`` by the coordinates not solved for.

    Parameters
    ----------
    chart : Chart
    equations : sequence of expressions, each ``== 0`` on the submanifold
    solve_for : sequence of coordinates, optional
        The coordinates the equations are solved for (default: for each equation, the
        first coordinate in which it is linear with a constant coefficient).
    parameters : sequence of Symbol, optional
        Constant symbols in the equations (see :class:`Map`).
    guess : dict, optional
        ``{solved coordinate: expression in the others}``: the branch of the solution
        numeric checks follow when the equations are nonlinear (default 1).

    Returns
    -------
    (S, param): the chart S of the remaining coordinates and a Map (or an ImplicitMap
    when the equations are not linear in the solved coordinates) from S into ``chart``.
    """
    require_ordinary(chart)
    eqs = [chart.check_expression(e, "submanifold equation") for e in equations]
    if not eqs:
        raise MapError("a submanifold needs at least one equation")
    if solve_for is None:
        solve_for = []
        for e in eqs:
            for x in chart.coords:
                if x in solve_for or not e.has(x):
                    continue
                if diff(diff(e, x), x) == 0 and not diff(e, x).has(*chart.coords):
                    solve_for.append(x)
                    break
            else:
                raise MapError(
                    f"cannot choose a coordinate to solve the equation {e} = 0 for; pass solve_for=[...]"
                )
    solve_for = [chart.coords[chart.index(x)] for x in solve_for]
    if len(solve_for) != len(eqs):
        raise MapError(f"solve_for names {len(solve_for)} coordinates for {len(eqs)} equations")
    free = [x for x in chart.coords if x not in solve_for]
    if not free:
        raise MapError("the equations leave no free coordinate: the submanifold is a point")
    S = Chart(free)
    _check_symbols("submanifold", [(f"equation {i}", e) for i, e in enumerate(eqs)], chart.coordinate_set,
                   parameters)
    linear = all(diff(diff(e, x), y) == 0 for e in eqs for x in solve_for for y in solve_for)
    if linear:
        rows = [{k: diff(e, x) for k, x in enumerate(solve_for) if diff(e, x) != 0} for e in eqs]
        rhs = [-e.xreplace({x: 0 for x in solve_for}) for e in eqs]
        try:
            (sol,) = solve_sparse(rows, [rhs], len(solve_for))
        except SingularSystem:
            raise MapError(f"the equations {eqs} do not determine {solve_for}") from None
        values = dict(zip(solve_for, sol))
        return S, Map(S, chart, [values.get(x, x) for x in chart.coords], parameters=parameters)
    new = [sympy.Dummy(x.name) for x in chart.coords]
    ren = dict(zip(chart.coords, new))
    impl_eqs = [n - x for n, x in zip(new, chart.coords) if x in free] + [e.xreplace(ren) for e in eqs]
    # the solved coordinates start Newton at 1 unless told: 0 is a critical point of
    # the commonest nonlinear constraints (circles, spheres: x^2 + y^2 - 1)
    start = {n: x for n, x in zip(new, chart.coords) if x in free}
    for n, x in zip(new, chart.coords):
        if x not in free:
            start[n] = sympy.sympify((guess or {}).get(x, 1))
    try:
        return S, ImplicitMap(S, chart, impl_eqs, new=new, guess=start, parameters=parameters)
    except ImplicitMapError as exc:
        raise MapError(f"the equations {eqs} do not define a submanifold solvable for {solve_for}: {exc}") from None


def restrict(a: Form, equations: Sequence, solve_for: Sequence[sympy.Symbol | str] | None = None,
             parameters: Iterable[sympy.Symbol] | None = None,
             guess: Mapping[sympy.Symbol, sympy.Expr | float] | None = None) -> Form:
    """The restriction ``i^* a`` of a form to the submanifold ``{equations == 0}``.

    The result lives on the chart of the coordinates not solved for (see
    :func:`submanifold_parametrization`).
    """
    if not isinstance(a, Form):
        raise ExpressionError(f"restrict expects a Form, got {type(a).__name__}")
    _, param = submanifold_parametrization(a.chart, equations, solve_for, parameters, guess)
    return pullback(a, param)
