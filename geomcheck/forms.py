"""Differential forms on an ordinary chart, as functions on T[1]M.

A k-form ``sum_I w_I dx^I`` is stored as ``{I: w_I}`` with I a strictly
increasing tuple of coordinate indices (the odd coordinate dx^i of T[1]M has
index i), so the wedge product is the supercommutative product of
:mod:`geomcheck.algebra`.  The Lie derivative is computed by the classical
component formula ``L_X(w_I dx^I) = X(w_I) dx^I + w_I sum_r dx^i1 ^ .. ^ d(X^ir) ^ .. ^ dx^ik``,
independently of Cartan's formula (:func:`lie_cartan`), so that comparing them
is a real check.

>>> import geomcheck as gc
>>> M = gc.Chart("q p")
>>> q, p = M.coords
>>> w = M.d(q) ^ M.d(p)
>>> w.degree, w.components
(2, {(0, 1): 1})
>>> X = gc.hamiltonian_vector_field(p**2/2 + q**4/4, w)
>>> gc.lie(X, w).is_zero()
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence, overload

import sympy

from .algebra import (
    Accumulator,
    Chart,
    SuperFunction,
    add_terms,
    insert_sign,
    mul_terms,
    nonzero_terms,
    provide_exterior_derivative,
    scale_terms,
    sort_with_sign,
)
from .calculus import diff, free_coordinates
from .errors import (
    ChartMismatchError,
    ExpressionError,
    ImplicitDerivativeError,
    MixedDegreeError,
    NotClosedError,
    UnknownCoordinateError,
)
from .fields import VectorField, bracket
from .latex import form_latex, form_terms
from .signs import decide_defined, domain_point

if TYPE_CHECKING:
    from .zero import ZeroDecision

__all__ = ["Form", "d", "interior", "lie", "lie_cartan", "is_closed", "primitive"]


@dataclass(frozen=True, eq=False)
class Dependence:
    """How the unknowns of an implicit map depend on the coordinates of a chart.

    ``derivatives[u][j]`` is du/dx_j (possibly containing the unknowns); ``relation``
    (a :class:`geomcheck.zero.Relation`) is what fixes the unknowns, so that zero tests
    run on its solution manifold.  With implicit derivatives (see :mod:`geomcheck.maps`)
    du/dx_j is one of the relation's derived symbols, fixed numerically at evaluation
    points; such symbols have no derivative of their own.
    """

    relation: object
    derivatives: Mapping

    def renamed(self, mapping: Mapping) -> "Dependence":
        """The same dependence with unknowns (and any other symbols) renamed."""
        from .zero import Relation

        rel = self.relation
        relation = Relation(
            [e.xreplace(mapping) for e in rel.equations],
            [mapping.get(u, u) for u in rel.unknowns],
            guess={mapping.get(u, u): rel.guess[u].xreplace(mapping) for u in rel.unknowns},
            small=rel.small,
            derived=[([mapping.get(x, x) for x in symbols], [r.xreplace(mapping) for r in rhs])
                     for symbols, rhs in rel.derived],
        )
        derivatives = {
            mapping.get(u, u): {j: v.xreplace(mapping) for j, v in row.items()}
            for u, row in self.derivatives.items()
        }
        return Dependence(relation, derivatives)


class Form:
    """A differential form on an ordinary chart.

    Parameters
    ----------
    chart : Chart
        An ordinary (ungraded) chart.
    components : dict
        ``{tuple of coordinate indices or coordinates: coefficient}``; keys need not
        be sorted (they are sorted with the permutation's sign; repeated indices give 0).

    Notes
    -----
    ``dependence`` is set on forms obtained by pulling back through an implicit
    map: their coefficients then contain the implicit map's unknowns, which are
    functions of the coordinates; derivatives use the implicit function theorem
    and zero tests evaluate on the solution manifold.
    """

    __slots__ = ("chart", "terms", "_deg", "dependence", "_hash")

    # ``array * form``: numpy would broadcast the form into an object array of forms; this makes
    # numpy hand the operation to Form.__rmul__, which refuses a non-scalar factor with an
    # ExpressionError.  (No ``_op_priority``: sympy's number operators take any object carrying
    # one for a sympy object, and ``nan * form`` would silently give nan.)
    __array_ufunc__ = None

    def __init__(self, chart: Chart, components: Mapping | None = None):
        require_ordinary(chart)
        self.chart = chart
        acc = Accumulator()
        for key, value in (components or {}).items():
            if not isinstance(key, tuple):
                key = (key,)
            idx = tuple(k if isinstance(k, int) and not isinstance(k, bool) else chart.index(k) for k in key)
            for i in idx:
                if not 0 <= i < chart.dim:
                    raise UnknownCoordinateError(f"form index {i} is out of range for {chart!r}")
            sign, sorted_key = sort_with_sign(idx)
            if sign:
                v = chart.check_expression(value, f"coefficient of {key}")
                acc.add(sorted_key, v if sign > 0 else -v)
        self.terms = acc.result()
        self._deg = None
        self.dependence = ()
        self._hash = None

    @classmethod
    def _raw(cls, chart, terms, deg=None, dependence=()):
        obj = object.__new__(cls)
        obj.chart = chart
        obj.terms = terms
        obj._deg = deg
        obj.dependence = dependence
        obj._hash = None
        return obj

    @classmethod
    def function(cls, chart: Chart, f: sympy.Expr | float) -> "Form":
        """The 0-form of a function."""
        require_ordinary(chart)
        e = chart.check_expression(f, "function")
        return cls._raw(chart, {(): e} if e != 0 else {}, 0)

    # -- data
    @property
    def components(self) -> dict:
        """``{increasing index tuple: structurally nonzero coefficient}``."""
        return dict(self.terms)

    @property
    def degrees(self) -> set:
        """The set of degrees of the nonzero components."""
        return {len(k) for k in self.terms}

    @property
    def degree(self) -> int:
        degs = self.degrees
        if len(degs) > 1:
            # a component may vanish without being structurally 0 (sin^2 + cos^2 - 1)
            degs = {len(k) for k in nonzero_terms(self.terms)}
        if len(degs) > 1:
            raise MixedDegreeError(f"form {self} has components of degrees {sorted(degs)}; it has no single degree")
        if degs:
            return degs.pop()
        if self._deg is not None:
            return self._deg
        return 0

    def homogeneous_part(self, k: int) -> "Form":
        return self._new({key: v for key, v in self.terms.items() if len(key) == k}, k)

    def coefficient(self, *coords: sympy.Symbol | str) -> sympy.Expr:
        """The coefficient of ``dx^{i1} ^ ... ^ dx^{ik}`` (coordinates in any order, with sign)."""
        sign, key = sort_with_sign(tuple(self.chart.index(c) for c in coords))
        if not sign:
            return sympy.S.Zero
        v = self.terms.get(key, sympy.S.Zero)
        return v if sign > 0 else -v

    def as_superfunction(self) -> SuperFunction:
        """This form as a function on T[1]M (``chart.shifted_tangent()``)."""
        return SuperFunction._raw(self.chart.shifted_tangent(), dict(self.terms))

    @classmethod
    def from_superfunction(cls, chart: Chart, f: SuperFunction) -> "Form":
        if f.chart != chart.shifted_tangent():
            raise ChartMismatchError(f"{f!r} is not a function on T[1] of {chart!r}")
        return cls._raw(chart, dict(f.terms))

    def _new(self, terms, deg=None, dependence=None):
        return Form._raw(self.chart, terms, deg, self.dependence if dependence is None else dependence)

    # -- arithmetic
    def _coerce(self, other) -> "Form":
        if isinstance(other, Form):
            if other.chart != self.chart:
                raise ChartMismatchError(f"cannot combine a form on {other.chart!r} with a form on {self.chart!r}")
            return other
        if isinstance(other, (VectorField, SuperFunction)):
            raise ExpressionError(f"cannot combine a form with a {type(other).__name__}")
        return Form.function(self.chart, other)

    def _align(self, other: "Form"):
        """``(other's terms, merged dependences)``, renaming other's clashing unknowns.

        Two forms may both depend on unknowns named ``Q, P`` fixed by different
        relations (e.g. two pullbacks through different implicit maps); the same name
        must then not denote two functions, so other's unknowns get fresh names.
        """
        if not other.dependence:
            return other.terms, self.dependence
        if not self.dependence:
            return other.terms, other.dependence
        mine = {dep.relation for dep in self.dependence}
        taken = {u for dep in self.dependence for u in dep.relation.unknowns + dep.relation.derived_symbols}
        rename = {}
        for dep in other.dependence:
            if dep.relation in mine:
                continue
            for u in dep.relation.unknowns + dep.relation.derived_symbols:
                if u in taken:
                    rename[u] = sympy.Dummy(u.name)
        merged = list(self.dependence)
        for dep in other.dependence:
            if dep.relation in mine:
                continue
            merged.append(dep.renamed(rename) if rename else dep)
        terms = other.terms
        if rename:
            terms = {k: v.xreplace(rename) for k, v in terms.items()}
        return terms, tuple(merged)

    def _sum_degree(self, other):
        return self._deg if self._deg == other._deg else None

    def __add__(self, other):
        o = self._coerce(other)
        terms, deps = self._align(o)
        return self._new(add_terms(self.terms, terms), self._sum_degree(o), deps)

    __radd__ = __add__

    def __sub__(self, other):
        o = self._coerce(other)
        terms, deps = self._align(o)
        return self._new(add_terms(self.terms, terms, -1), self._sum_degree(o), deps)

    def __rsub__(self, other):
        return self._coerce(other) - self

    def __neg__(self):
        return self._new(scale_terms(self.terms, -1), self._deg)

    def __mul__(self, f):
        if isinstance(f, Form):
            raise ExpressionError("multiply forms with ^ (the wedge product), not *")
        if isinstance(f, (VectorField, SuperFunction)):
            return NotImplemented
        e = self.chart.check_expression(f, "factor")
        return self._new(scale_terms(self.terms, e), self._deg)

    __rmul__ = __mul__

    def __truediv__(self, f):
        e = self.chart.check_expression(f, "divisor")
        if e == 0:
            raise ZeroDivisionError(f"form {self} divided by zero")
        return self * (1 / e)

    def __xor__(self, other):
        """Wedge product."""
        o = self._coerce(other)
        deg = None if self._deg is None or o._deg is None else self._deg + o._deg
        terms, deps = self._align(o)
        return self._new(mul_terms(self.terms, terms), deg, deps)

    def __rxor__(self, other):
        return self._coerce(other).__xor__(self)

    def __call__(self, *fields):
        """Evaluate a k-form on k vector fields: ``w(X, Y) = i_Y i_X w``."""
        out = self
        for X in fields:
            out = interior(X, out)
        if out.degrees - {0}:
            raise MixedDegreeError(f"form {self} evaluated on {len(fields)} fields is not a function")
        return out.terms.get((), sympy.S.Zero)

    # -- decisions
    def zero_decision(self, **budget: Any) -> ZeroDecision:
        from .zero import decide_all_zero

        relations = tuple(dep.relation for dep in self.dependence)
        if relations:
            budget.setdefault("relations", relations)
        budget.setdefault("domain", self.chart.domain)
        return decide_all_zero(self.terms, **budget)

    def is_zero(self, **budget: Any) -> bool | None:
        """True/False, or None when undecided within the time budget (never hangs)."""
        if not self.terms:
            return True
        return self.zero_decision(**budget).is_zero

    def __eq__(self, other):
        if isinstance(other, Form):
            # the same symbol P may stand for different implicit functions: compare relations too
            return (
                self.chart == other.chart
                and self.terms == other.terms
                and {dep.relation for dep in self.dependence} == {dep.relation for dep in other.dependence}
            )
        return NotImplemented

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self.chart, frozenset(self.terms.items())))
        return self._hash

    def __repr__(self):
        return f"Form({self})"

    def __str__(self):
        if not self.terms:
            return "0"
        names = [c.name for c in self.chart.coords]
        parts = []
        for key in sorted(self.terms, key=lambda k: (len(k), k)):
            diff_str = "^".join("d" + names[i] for i in key)
            c = self.terms[key]
            if not key:
                parts.append(str(c))
            elif c == 1:
                parts.append(diff_str)
            else:
                parts.append(f"({c})*{diff_str}")
        return " + ".join(parts)

    def _latex(self, printer=None):
        return form_latex(self)

    def _latex_coefficients(self):
        return "form", list(self.terms.values())

    def _latex_terms(self):
        return form_terms(self)

    def _repr_latex_(self):
        return f"${self._latex()}$"


def require_ordinary(chart) -> None:
    """Refuse anything but an ordinary (ungraded) Chart: differential forms live on those."""
    if not isinstance(chart, Chart):
        raise ExpressionError(f"a Chart was expected, got {chart!r}")
    if chart.is_graded:
        raise ChartMismatchError(
            f"differential forms live on ordinary charts; {chart!r} is graded (use its functions directly)"
        )


def _require_form(a, what):
    if not isinstance(a, Form):
        raise ExpressionError(f"{what} expects a Form, got {type(a).__name__} {a!r}")


def require_form(obj, degree: int, who: str, what: str | None = None):
    """``obj`` if it is a Form of the given degree; else a clear ExpressionError / MixedDegreeError.

    >>> import geomcheck as gc
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> require_form(M.d(q), 2, "f")
    Traceback (most recent call last):
    ...
    geomcheck.errors.MixedDegreeError: f expects a 2-form, got a 1-form dq
    """
    what = what or f"{degree}-form"
    if not isinstance(obj, Form):
        raise ExpressionError(f"{who} expects a {what} (a Form), got {type(obj).__name__} {obj!r}")
    try:
        k = obj.degree
    except MixedDegreeError:
        raise MixedDegreeError(f"{who} expects a {degree}-form; {obj} has mixed degree") from None
    if k != degree:
        raise MixedDegreeError(f"{who} expects a {degree}-form, got a {k}-form {obj}")
    return obj


def _require_field(X, a):
    if not isinstance(X, VectorField):
        raise ExpressionError(f"expected a VectorField, got {type(X).__name__} {X!r}")
    if X.chart != a.chart:
        raise ChartMismatchError(f"vector field on {X.chart!r} used with a form on {a.chart!r}")


# ---------------------------------------------------------------------------
# derivatives of coefficients (total derivatives when the form depends on
# unknowns of an implicit map)


#: the derivative-table entry of an implicit derivative: it has no derivative of its own
_NOT_DIFFERENTIABLE = object()


def _dependence_table(form: Form) -> dict:
    table = {}
    for dep in form.dependence:
        table.update(dep.derivatives)
        for x in dep.relation.derived_symbols:
            table[x] = _NOT_DIFFERENTIABLE
    return table


def coefficient_gradient(c, chart: Chart, table: Mapping) -> list:
    """``[(j, dc/dx_j)]`` for every coordinate index j the derivative may not vanish for.

    Raises
    ------
    ImplicitDerivativeError
        ``c`` contains an implicit derivative (a derived symbol of a relation, see
        :mod:`geomcheck.maps`): its derivative would need second derivatives of the
        implicit map, which are not available, and treating it as a constant is wrong.
    """
    index = chart._index
    grad = {}
    coords = chart.coordinate_set
    # a large sum is differentiated term by term, each term only by the coordinates
    # it contains, so a gradient costs O(size) and not O(size * dim)
    for part in (c.args if isinstance(c, sympy.Add) and len(c.args) > 4 else (c,)):
        for x in free_coordinates(part, coords):
            dx = diff(part, x)
            if dx != 0:
                grad.setdefault(index[x], []).append(dx)
    if table:
        for u in c.free_symbols:
            row = table.get(u)
            if row is None:
                continue
            if row is _NOT_DIFFERENTIABLE:
                raise ImplicitDerivativeError(
                    f"cannot differentiate a coefficient containing the implicit derivative {u}: the form was pulled"
                    " back by an implicit map whose derivatives are computed numerically (implicit function theorem"
                    " at evaluation points), so its exterior or Lie derivative would need second derivatives of the"
                    " map, which are not available; decide the property without differentiating the pullback"
                    " (e.g. compare values at two independent points)"
                )
            du = diff(c, u)
            if du == 0:
                continue
            for j, z in row.items():
                grad.setdefault(j, []).append(du * z)
    return [(j, sympy.Add(*v)) for j, v in grad.items()]


# ---------------------------------------------------------------------------
# operations


def d(a: Form) -> Form:
    """Exterior derivative: the de Rham vector field ``dx^i d/dx^i`` acting on T[1]M."""
    _require_form(a, "d")
    table = _dependence_table(a)
    acc = Accumulator()
    for key, c in a.terms.items():
        for j, dc in coefficient_gradient(c, a.chart, table):
            sign, new = insert_sign(j, key)
            if sign:
                acc.add(new, dc if sign > 0 else -dc)
    deg = None if a._deg is None and len(a.degrees) != 1 else a.degree + 1
    return a._new(acc.result(), deg)


def _function_differential(chart: Chart, f) -> Form:
    """``df`` for a function ``f`` on an ordinary chart: what :meth:`Chart.d` returns."""
    return d(Form.function(chart, f))


provide_exterior_derivative(_function_differential)


def interior(X: VectorField, a: Form) -> Form:
    """Interior product ``i_X a`` (the degree -1 derivation ``X^i d/d(dx^i)``)."""
    _require_form(a, "interior")
    _require_field(X, a)
    comps = X.component_terms()
    acc = Accumulator()
    for key, c in a.terms.items():
        for pos, i in enumerate(key):
            comp = comps.get(i)
            if comp is None:
                continue
            v = comp[()] * c
            acc.add(key[:pos] + key[pos + 1:], -v if pos & 1 else v)
    deg = None if a._deg is None and len(a.degrees) != 1 else a.degree - 1
    return a._new(acc.result(), deg)


class _CancellingAccumulator(Accumulator):
    """An :class:`~geomcheck.algebra.Accumulator` whose contributions cancel before any sum is built.

    Each contribution is split into its numeric coefficient and the rest
    (``as_coeff_Mul``) and the coefficients of equal rests are added as numbers: the
    contributions that cancel (a mixed partial and its negative, twice per pair of
    coordinates in the Lie derivative of a form along a Hamiltonian field) build no sympy
    sum at all.  The sums that remain are the ones :class:`Accumulator` builds (sympy's
    ``Add`` collects terms by the same split), so the results are the same objects.
    """

    __slots__ = ()

    def add(self, key, value):
        if value == 0:
            return
        coeff, rest = value.as_coeff_Mul()
        per_key = self.parts.get(key)
        if per_key is None:
            self.parts[key] = {rest: coeff}
        else:
            per_key[rest] = per_key.get(rest, 0) + coeff

    def result(self):
        out = {}
        for key, per_key in self.parts.items():
            items = [rest if coeff == 1 else sympy.Mul(coeff, rest) for rest, coeff in per_key.items() if coeff != 0]
            if not items:
                continue
            value = items[0] if len(items) == 1 else sympy.Add(*items)
            if value != 0:
                out[key] = value
        return out


def _lie_form(X: VectorField, a: Form) -> Form:
    """Lie derivative by the classical component formula (not Cartan's)."""
    _require_field(X, a)
    chart = a.chart
    table = _dependence_table(a)
    comps = X.component_terms()
    dX = {}  # i -> [(j, d X^i / d x^j)], computed once per component

    def grad_component(i):
        g = dX.get(i)
        if g is None:
            comp = comps.get(i)
            g = coefficient_gradient(comp[()], chart, {}) if comp else []
            dX[i] = g
        return g

    acc = _CancellingAccumulator()
    for key, c in a.terms.items():
        # X(w_I) dx^I
        for j, dc in coefficient_gradient(c, chart, table):
            comp = comps.get(j)
            if comp is not None:
                acc.add(key, comp[()] * dc)
        # w_I dx^i1 ^ .. ^ d(X^ir) ^ .. ^ dx^ik
        for r, i in enumerate(key):
            rest = key[:r] + key[r + 1:]
            for j, dxi in grad_component(i):
                sign, new = insert_sign(j, rest)
                if sign:
                    # a constant-coefficient form (the canonical one) has c == 1: no product to build
                    v = dxi if c is sympy.S.One else c * dxi
                    acc.add(new, v if (sign > 0) == (r % 2 == 0) else -v)
    return a._new(acc.result(), a._deg)


@overload
def lie(X: VectorField, a: Form) -> Form: ...
@overload
def lie(X: VectorField, a: VectorField) -> VectorField: ...
@overload
def lie(X: VectorField, a: SuperFunction) -> SuperFunction: ...
@overload
def lie(X: VectorField, a: sympy.Expr | float) -> sympy.Expr | SuperFunction: ...
def lie(X: VectorField,
        a: Form | VectorField | SuperFunction | sympy.Expr | float) -> Form | VectorField | SuperFunction | sympy.Expr:
    """Lie derivative of a function, form, superfunction or vector field along X.

    Forms use the classical component formula (see the module docstring); vector
    fields the (graded) bracket; functions ``X(f)``.
    """
    if isinstance(a, Form):
        return _lie_form(X, a)
    if isinstance(a, VectorField):
        return bracket(X, a)
    if not isinstance(X, VectorField):
        raise ExpressionError(f"lie expects a VectorField first, got {type(X).__name__}")
    return X(a)


def lie_cartan(X: VectorField, a: Form) -> Form:
    """Lie derivative through Cartan's formula ``L_X = d i_X + i_X d``."""
    _require_form(a, "lie_cartan")
    return d(interior(X, a)) + interior(X, d(a))


def is_closed(a: Form, **budget: Any) -> bool | None:
    """True/False/None: whether ``d a == 0``."""
    _require_form(a, "is_closed")
    return d(a).is_zero(**budget)


def primitive(a: Form, center: Mapping[Any, Any] | Sequence[Any] | None = None, check: bool = True) -> Form:
    """A primitive of a closed form on a star-shaped chart, by the homotopy operator.

    ``K w = sum_I sum_r (-1)^r (int_0^1 t^(k-1) w_I(c + t (x - c)) dt) (x^ir - c^ir) dx^(I without ir)``
    satisfies ``d K w = w`` for closed ``w`` of degree ``k >= 1`` wherever the
    coefficients of ``w`` are smooth along the segments from the centre ``c``: the chart's
    domain is a box, so the segments from a centre inside it cover it, and the
    coefficients must be defined and finite on all of it.

    Parameters
    ----------
    a : Form
        A closed form of a single degree k >= 1.
    center : dict or sequence, optional
        The centre c: ``{coordinate or name: value}`` (coordinates left out take their
        default) or one value per coordinate; real numbers inside the chart's domain.
        Default: the origin, or where a coordinate's domain excludes 0 a simple point
        of it (:func:`geomcheck.signs.domain_point`).
    check : bool
        Refuse forms that are not closed (``NotClosedError`` with the nonzero ``d a``).

    Raises
    ------
    SingularFormError
        A coefficient is undefined or infinite at the centre, or at a point of the
        domain (hence on a segment from the centre), as far as this can be decided
        (:func:`geomcheck.signs.decide_defined`); or the radial integral came out infinite.
    InvalidArgumentError
        The centre lies outside the chart's domain.
    ExpressionError
        A centre value that is not a real number, or of the wrong length.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("x y")
    >>> x, y = M.coords
    >>> w = M.d(x) ^ M.d(y)
    >>> theta = gc.primitive(w)
    >>> theta
    Form((-y/2)*dx + (x/2)*dy)
    >>> (gc.d(theta) - w).is_zero()
    True
    >>> gc.primitive((x * M.d(y) - y * M.d(x)) / (x**2 + y**2))      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geomcheck.errors.SingularFormError: primitive: the form ... is singular at the centre x = 0, y = 0: ...
    >>> P = gc.Chart("r theta", domain={"r": (0, sympy.oo)}); r, _ = P.coords
    >>> gc.primitive(P.d(r) / r)       # centred at r = 1: the origin is outside the domain
    Form(log(r))
    >>> gc.primitive(P.d(r) / r, center={r: -1})      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geomcheck.errors.InvalidArgumentError: primitive: the centre's r = -1 lies outside the domain of ...
    """
    _require_form(a, "primitive")
    if a.dependence:
        raise ExpressionError("primitive of a form depending on implicit unknowns is not supported")
    k = a.degree
    if k == 0:
        if not a.terms:
            return a
        raise MixedDegreeError(f"a 0-form {a} has no primitive; a form of degree >= 1 was expected")
    chart = a.chart
    coords = chart.coords
    c = _primitive_center(chart, center)
    _require_smooth(a, c)
    if check:
        da = d(a)
        closed = da.is_zero()
        if closed is False:
            raise NotClosedError(f"form {a} is not closed: d of it is {da}; only closed forms have primitives")
    t = sympy.Dummy("t")
    acc = Accumulator()
    for key, w in a.terms.items():
        radial = _radial_integral(w, coords, c, t, k)
        for r, i in enumerate(key):
            v = radial * (coords[i] - c[i])
            acc.add(key[:r] + key[r + 1:], -v if r & 1 else v)
    out = a._new(acc.result(), k - 1)
    for key, v in out.terms.items():
        if v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            # a safety net: the checks above should have refused such a form
            raise _singular_form_error(
                f"primitive: the radial integral of {a} from the centre {_centre_text(coords, c)} is not finite"
                f" ({v} in the component {_differentials(coords, key)}); a form smooth on the segments from the"
                " centre was expected")
    return out


def _singular_form_error(message):
    from .errors import SingularFormError

    return SingularFormError(message)


def _centre_text(coords, c) -> str:
    return ", ".join(f"{x} = {v}" for x, v in zip(coords, c))


def _differentials(coords, key) -> str:
    return "^".join("d" + coords[i].name for i in key) if key else "1"


def _primitive_center(chart, center) -> list:
    """The centre of a primitive as exact real numbers, one per coordinate, checked to lie in the domain."""
    from .errors import InvalidArgumentError

    coords = chart.coords
    default = domain_point(coords, chart.domain)
    if center is None:
        given = {}
    elif isinstance(center, Mapping):
        given = {}
        for key, value in center.items():
            name = key if isinstance(key, str) else getattr(key, "name", None)
            hits = [x for x in coords if x == key or (isinstance(key, str) and x.name == name)]
            if not hits:
                raise UnknownCoordinateError(
                    f"primitive: the centre names {key!r}, which is not a coordinate of {chart!r}"
                )
            given[hits[0]] = value
    else:
        values = list(center)
        if len(values) != chart.dim:
            raise ExpressionError(f"center has {len(values)} entries; expected {chart.dim} for {chart!r}")
        given = dict(zip(coords, values))
    c = []
    for x in coords:
        if x not in given:
            c.append(default[x])
            continue
        try:
            v = sympy.sympify(given[x], strict=True)
        except (sympy.SympifyError, TypeError, ValueError):
            v = None
        if not isinstance(v, sympy.Expr) or not v.is_number or v.is_real is not True or v.is_finite is not True:
            raise ExpressionError(f"primitive: the centre's {x} coordinate {given[x]!r} is not a real number")
        lo, hi = chart.domain.interval(x)
        if not (bool(sympy.Lt(lo, v)) and bool(sympy.Lt(v, hi))):
            raise InvalidArgumentError(
                f"primitive: the centre's {x} = {v} lies outside the domain of {chart!r}, where {x} is in"
                f" ({lo}, {hi}); a centre inside the domain was expected"
            )
        c.append(v)
    return c


def _require_smooth(a: Form, c) -> None:
    """Refuse a form whose coefficients are singular at the centre or at a point of the domain."""
    chart = a.chart
    coords = chart.coords
    at_centre = dict(zip(coords, c))
    where = _centre_text(coords, c)
    for key, w in sorted(a.terms.items()):
        try:
            # subs, not xreplace: Derivative(V(x), x) at x = 0 must become a Subs, not a derivative by 0
            value = w.subs(at_centre)
        except (TypeError, ValueError):
            value = sympy.S.Zero  # not evaluable here: the domain check below still looks at it
        if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo, sympy.I):
            raise _singular_form_error(
                f"primitive: the form {a} is singular at the centre {where}: its coefficient {w} of"
                f" {_differentials(coords, key)} is {value} there; a centre where the form is smooth was expected"
            )
        # the segments from a centre inside the box cover the box: the coefficient must be finite on it
        decision = decide_defined(w, chart.domain, budget=1.0)
        if decision.verdict == "undefined":
            point = ", ".join(f"{s} = {v}" for s, v in decision.point.items())
            raise _singular_form_error(
                f"primitive: the form {a} is singular at {point}, which lies on a segment from the centre {where}"
                f" inside the domain ({chart.domain.describe(coords)}): its coefficient {w} of"
                f" {_differentials(coords, key)} is undefined there ({decision.reason}); the homotopy formula"
                " integrates along every segment from the centre, so the form must be smooth on them"
            )


def _radial_integral(w, coords, c, t, k):
    """``int_0^1 t^(k-1) w(c + t (x - c)) dt``, monomial by monomial for polynomials."""
    if w.is_polynomial(*coords):
        ys = [sympy.Dummy("y%d" % n) for n in range(len(coords))]
        shifted = w.xreplace({x: ci + y for x, ci, y in zip(coords, c, ys)})
        out = []
        for mon, coeff in sympy.Poly(shifted, *ys).terms():
            out.append(coeff * sympy.Mul(*[y**e for y, e in zip(ys, mon)]) / (sum(mon) + k))
        return sympy.Add(*out).xreplace({y: x - ci for y, x, ci in zip(ys, coords, c)})
    integrand = t ** (k - 1) * w.subs({x: ci + t * (x - ci) for x, ci in zip(coords, c)}, simultaneous=True)
    return sympy.integrate(integrand, (t, 0, 1), conds="none")
