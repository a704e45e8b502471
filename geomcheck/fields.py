"""Vector fields as graded derivations, and their graded commutator.

A vector field ``X = sum_a X^a d/dx^a`` acts on functions by left derivatives,
so that ``X(f g) = X(f) g + (-1)^{|X||f|} f X(g)``.  On an ordinary chart this is
the usual derivation; on a graded chart the components are superfunctions.

>>> import geomcheck as gc, sympy
>>> M = gc.Chart("q p")
>>> q, p = M.coords
>>> X = gc.VectorField(M, {q: p, p: -q})
>>> X(q**2 + p**2)
0
>>> G = gc.Chart("x xi", degrees=[0, 1])
>>> x, xi = G.coords
>>> Q = gc.VectorField(G, {x: xi})          # the de Rham differential on T[1]R
>>> Q.degree, Q.is_homological()
(1, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Sequence

import sympy

from .algebra import (Accumulator, Chart, SuperFunction, as_sequence, mul_terms, odd_left_derivative, read_terms,
                      require_finite, require_same_chart)
from .calculus import diff, free_coordinates
from .errors import ChartMismatchError, ExpressionError, NotHomogeneousError
from .latex import vector_field_latex, vector_field_terms
from .square import square_terms

if TYPE_CHECKING:
    from .zero import ZeroDecision

__all__ = ["VectorField", "bracket"]


class VectorField:
    """A vector field on a chart (a graded derivation on a graded chart).

    Parameters
    ----------
    chart : Chart
    components : dict {coordinate Symbol: expression} or sequence in chart order
        Missing coordinates are 0.  On graded charts an expression may contain the
        odd coordinates (read in the order written) or be a ``SuperFunction``.
    """

    __slots__ = ("chart", "_comps", "_hash")

    def __init__(
            self, chart: Chart,
            components: Mapping[Any, sympy.Expr | float | SuperFunction] | Sequence[sympy.Expr | float | SuperFunction],
    ):
        if not isinstance(chart, Chart):
            raise ExpressionError(f"VectorField needs a Chart first, got {chart!r}")
        self.chart = chart
        if isinstance(components, Mapping):
            items = []
            for key, value in components.items():
                items.append((chart.index(key), value))
        else:
            values = as_sequence(components, f"the components of a VectorField on {chart!r}",
                                 "a dict {coordinate: component} or a sequence in chart order")
            if len(values) != chart.dim:
                raise ExpressionError(
                    f"VectorField on {chart!r} got {len(values)} components; expected {chart.dim}"
                    " (one per coordinate) or a dict {coordinate: component}"
                )
            items = list(enumerate(values))
        comps = {}
        for i, value in items:
            terms = _component_terms(chart, value, chart.coords[i])
            if terms:
                comps[i] = terms
        self._comps = comps
        self._hash = None

    @classmethod
    def _raw(cls, chart, comps):
        obj = object.__new__(cls)
        obj.chart = chart
        obj._comps = {i: t for i, t in comps.items() if t}
        obj._hash = None
        return obj

    # -- data
    @property
    def components(self) -> dict:
        """``{coordinate: nonzero component expression}``."""
        coords = self.chart.coords
        if not self.chart.odd:
            return {coords[i]: t[()] for i, t in self._comps.items()}
        return {coords[i]: SuperFunction._raw(self.chart, t).expr for i, t in self._comps.items()}

    def component(self, coordinate: sympy.Symbol | str) -> sympy.Expr | SuperFunction:
        """The component along a coordinate: an expression (a SuperFunction on graded charts)."""
        i = self.chart.index(coordinate)
        t = self._comps.get(i, {})
        if not self.chart.odd:
            return t.get((), sympy.S.Zero)
        return SuperFunction._raw(self.chart, dict(t))

    def component_terms(self) -> dict[int, dict[tuple[int, ...], sympy.Expr]]:
        """``{coordinate index: term dict}`` (the sparse internal form; do not mutate)."""
        return self._comps

    @property
    def degree(self) -> int:
        degs = set()
        for i, terms in self._comps.items():
            shift = self.chart.degrees[i]
            for d in SuperFunction._raw(self.chart, terms).term_degrees():
                degs.add(d - shift)
        if len(degs) > 1:
            raise NotHomogeneousError(f"vector field {self!r} is not homogeneous: degrees {sorted(degs)}")
        return degs.pop() if degs else 0

    def parity_parts(self) -> tuple[VectorField, VectorField]:
        """(even part, odd part) of the field."""
        even, odd = {}, {}
        for i, terms in self._comps.items():
            p = self.chart.degrees[i] & 1
            for key, value in terms.items():
                target = odd if (len(key) + p) & 1 else even
                target.setdefault(i, {})[key] = value
        return VectorField._raw(self.chart, even), VectorField._raw(self.chart, odd)

    @property
    def parity(self) -> int:
        even, odd = self.parity_parts()
        if even._comps and odd._comps:
            raise NotHomogeneousError(f"vector field {self!r} mixes even and odd parts")
        return 1 if odd._comps else 0

    # -- action on functions
    def __call__(self, f):
        """The derivative of a function along the field."""
        if isinstance(f, SuperFunction):
            require_same_chart(self.chart, f.chart, "function")
            return SuperFunction._raw(self.chart, self.apply_terms(f.terms))
        if not self.chart.odd:
            e = self.chart.check_expression(f, "function")
            return self.apply_expr(e)
        return SuperFunction._raw(self.chart, self.apply_terms(read_terms(self.chart, sympy.sympify(f))))

    def apply_expr(self, f: sympy.Expr) -> sympy.Expr:
        """X(f) for an expression f on an ordinary chart (the hot path of forms)."""
        parts = []
        index = self.chart._index
        for x in free_coordinates(f, self.chart.coordinate_set):
            comp = self._comps.get(index[x])
            if comp is not None:
                df = diff(f, x)
                if df != 0:
                    parts.append(comp[()] * df)
        return sympy.Add(*parts)

    def apply_terms(self, terms: Mapping) -> dict:
        """X(f) on a term dict."""
        chart = self.chart
        acc = Accumulator()
        for i, comp in self._comps.items():
            x = chart.coords[i]
            if chart.degrees[i] & 1:
                deriv = odd_left_derivative(terms, chart._odd_index[x])
            else:
                deriv = {}
                for key, value in terms.items():
                    dv = diff(value, x)
                    if dv != 0:
                        deriv[key] = dv
            if deriv:
                acc.add_terms(mul_terms(comp, deriv))
        return acc.result()

    # -- arithmetic
    def _check(self, other):
        if not isinstance(other, VectorField):
            raise ExpressionError(f"expected a VectorField, got {other!r}")
        require_same_chart(self.chart, other.chart, "vector field")

    def __add__(self, other):
        self._check(other)
        return VectorField._raw(self.chart, _combine(self._comps, other._comps, 1))

    def __sub__(self, other):
        self._check(other)
        return VectorField._raw(self.chart, _combine(self._comps, other._comps, -1))

    def __neg__(self):
        return VectorField._raw(self.chart, _combine({}, self._comps, -1))

    def __rmul__(self, f):
        """``f * X``: multiply every component on the left by a function."""
        if isinstance(f, VectorField):
            return NotImplemented
        fterms = _component_terms(self.chart, f, None)
        return VectorField._raw(self.chart, {i: mul_terms(fterms, t) for i, t in self._comps.items()})

    def __mul__(self, f):
        if isinstance(f, VectorField):
            return NotImplemented
        if self.chart.odd:
            raise ExpressionError(
                "on a graded chart write the function on the left (f * X): right multiplication"
                " of a derivation is ambiguous up to Koszul signs"
            )
        return self.__rmul__(f)

    # -- graded geometry
    def square(self) -> "VectorField":
        """Q o Q for an odd field Q (a vector field, = [Q, Q]/2; the zero field counts as odd)."""
        terms, _ = square_terms(self)
        return VectorField._raw(self.chart, terms)

    def is_homological(self, **budget: Any) -> bool | None:
        """True/False/None: whether Q o Q == 0 (Q must be odd)."""
        return self.square().is_zero(**budget)

    def zero_decision(self, **budget: Any) -> ZeroDecision:
        from .zero import decide_all_zero

        flat = {(self.chart.coords[i], k): v for i, t in self._comps.items() for k, v in t.items()}
        budget.setdefault("domain", self.chart.domain)
        return decide_all_zero(flat, **budget)

    def is_zero(self, **budget: Any) -> bool | None:
        if not self._comps:
            return True
        return self.zero_decision(**budget).is_zero

    def __eq__(self, other):
        if isinstance(other, VectorField):
            return self.chart == other.chart and self._comps == other._comps
        return NotImplemented

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self.chart, frozenset((i, frozenset(t.items())) for i, t in self._comps.items())))
        return self._hash

    def __repr__(self):
        inner = ", ".join(f"{c}: {v}" for c, v in self.components.items())
        return f"VectorField({{{inner}}})"

    def _latex(self, printer=None):
        return vector_field_latex(self)

    def _latex_coefficients(self):
        return "vector field", [c for terms in self._comps.values() for c in terms.values()]

    def _latex_terms(self):
        # a component that is a polynomial in odd coordinates is no scalar coefficient
        if any(list(terms) != [()] for terms in self._comps.values()):
            return None
        return vector_field_terms(self)

    def _repr_latex_(self):
        return f"${self._latex()}$"


def _component_terms(chart: Chart, value, coordinate):
    if isinstance(value, SuperFunction):
        require_same_chart(chart, value.chart, "component")
        return dict(value.terms)
    try:
        e = sympy.sympify(value, strict=False)
    except (sympy.SympifyError, TypeError) as exc:
        raise ExpressionError(f"component {value!r} along {coordinate} is not a sympy expression") from exc
    # a Matrix (MatrixExpr is an Expr) or a Lambda (a function, not a value) is no component
    if not isinstance(e, sympy.Expr) or isinstance(e, (sympy.MatrixBase, sympy.MatrixExpr, sympy.Lambda)):
        raise ExpressionError(f"component {value!r} along {coordinate} is not a scalar expression")
    require_finite(e, f"component along {coordinate}")
    if e.is_commutative:
        return {(): e} if e != 0 else {}
    if not chart.odd:
        raise ExpressionError(
            f"component {e} along {coordinate} contains anticommuting symbols, but {chart!r} is ordinary"
        )
    return read_terms(chart, e)


def _combine(a: Mapping, b: Mapping, sign: int) -> dict:
    out = {i: dict(t) for i, t in a.items()}
    for i, t in b.items():
        acc = Accumulator()
        acc.add_terms(out.get(i, {}))
        acc.add_terms(t, sign)
        out[i] = acc.result()
    return {i: t for i, t in out.items() if t}


def _bracket_homogeneous(X: VectorField, Y: VectorField, px: int, py: int) -> dict:
    sign = -1 if (px & py) else 1
    acc_all = {}
    indices = set(X._comps) | set(Y._comps)
    for i in indices:
        acc = Accumulator()
        if i in Y._comps:
            acc.add_terms(X.apply_terms(Y._comps[i]))
        if i in X._comps:
            acc.add_terms(Y.apply_terms(X._comps[i]), -sign)
        acc_all[i] = acc.result()
    return acc_all


def bracket(X: VectorField, Y: VectorField) -> VectorField:
    """Graded commutator ``[X, Y] = X Y - (-1)^{|X||Y|} Y X`` (the Lie bracket on ordinary charts).

    Fields of mixed parity are split into their even and odd parts and the
    bracket is extended bilinearly.

    >>> import geomcheck as gc
    >>> M = gc.Chart("x y")
    >>> x, y = M.coords
    >>> gc.bracket(gc.VectorField(M, {x: 1}), gc.VectorField(M, {y: x}))
    VectorField({y: 1})
    """
    if not isinstance(X, VectorField) or not isinstance(Y, VectorField):
        raise ExpressionError(f"bracket takes two VectorFields, got {type(X).__name__} and {type(Y).__name__}")
    if X.chart != Y.chart:
        raise ChartMismatchError(f"cannot bracket a field on {X.chart!r} with one on {Y.chart!r}")
    if not X.chart.odd:
        return VectorField._raw(X.chart, _bracket_homogeneous(X, Y, 0, 0))
    result = {}
    for px, Xp in enumerate(X.parity_parts()):
        if not Xp._comps:
            continue
        for py, Yp in enumerate(Y.parity_parts()):
            if Yp._comps:
                result = _combine(result, _bracket_homogeneous(Xp, Yp, px, py), 1)
    return VectorField._raw(X.chart, result)
