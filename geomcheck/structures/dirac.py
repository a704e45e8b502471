r"""Almost-Dirac structures in the generalized tangent bundle TM + T*M.

An almost-Dirac structure (Courant 1990; Salnikov & Hamdouni 2019, Section 2) is a
subbundle ``L`` of ``TM + T*M`` of rank ``n = dim M`` that is *isotropic* for the
symmetric pairing

.. math::

    \langle (X, \alpha), (Y, \beta) \rangle = \alpha(Y) + \beta(X);

it is a *Dirac structure* (integrable) when its sections are also closed under the
Courant-Dorfman bracket

.. math::

    [\![ (X, \alpha), (Y, \beta) ]\!] = \bigl([X, Y],\; L_X \beta - i_Y \mathrm{d}\alpha\bigr).

Conventions and how each property is decided:

* ``L`` is given by ``n`` spanning sections ``s_a = (X_a, alpha_a)`` whose components are
  functions on the chart.  The ``2n x n`` matrix ``S`` with the components of ``X_a``
  (rows ``0..n-1``) over those of ``alpha_a`` (rows ``n..2n-1``) in column ``a`` spans
  ``L`` pointwise.
* *Isotropy*: ``<s_a, s_b> = 0`` for all ``a <= b``, decided by the zero test.
* *Maximal rank*: rank ``S = n`` at generic points.  It is proved by a maximal minor of
  ``S`` that the zero test shows is not identically zero (it is then nonzero on an open
  set, the generic points for analytic data); it fails when every maximal minor is
  proved identically zero; otherwise it is undecided.
* *Integrability*: for ``L`` isotropic of rank ``n`` (Lagrangian), ``L`` is its own
  orthogonal, so ``[[s_a, s_b]]`` lies in ``L`` iff the *Courant tensor*
  ``T_abc = <[[s_a, s_b]], s_c>`` vanishes; this is C-infinity-linear on ``L`` (on
  Lagrangian ``L`` the Dorfman and Courant brackets agree and ``T`` is totally skew),
  so it suffices to check it on the spanning sections.  ``T`` is computed with the
  engine's bracket, Lie derivative, interior product and ``d``.

Graphs.  With ``P^{ij} = {x^i, x^j}`` (the convention of
:func:`geomcheck.poisson_vector_field`) the graph of the bivector is spanned by
``(P^{ij} d_j, dx^i)``, and ``T_ijk = 1/2 [P, P]^{ijk}``
(:func:`geomcheck.schouten_bracket`): integrable iff P is Poisson.  The graph of a two-form
``omega`` is spanned by ``(d_i, i_{d_i} omega)`` and ``T_ijk = d omega(d_i, d_j, d_k)``:
integrable iff ``d omega = 0``.  A port-Hamiltonian structure (van der Schaft 2006, used
in Section 4 of the paper) is the graph ``f = D e`` of a matrix acting on efforts
``e`` (one-form components) with values in flows ``f`` (vector components), on the
chart extended by the port variables (the fibre coordinate of the trivial port bundle
``F``, ``x^5`` in the paper): it is spanned by ``(D^{ji} d_j, dx^i)``, so for a skew D it
is the graph of the bivector ``P = D^T = -D``.

>>> import geomcheck as gc
>>> from geomcheck.structures import graph_of_bivector
>>> M = gc.Chart("x y z")
>>> x, y, z = M.coords
>>> L = graph_of_bivector([[0, z, -y], [-z, 0, x], [y, -x, 0]], M)    # so(3)*
>>> L.certify_isotropic().holds, L.certify_maximal_rank().holds, L.certify_integrable().holds
(True, True, True)
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from dataclasses import dataclass

import sympy

from ..algebra import Chart
from ..certify.certificate import Certificate
from ..errors import (
    ChartMismatchError,
    ExpressionError,
    SectionShapeError,
)
from ..fields import VectorField, bracket
from ..forms import Form, d, interior, lie
from ..latex import Derivation, latex
from ..qstructures import matrix_rows, skew_matrix
from ..zero import decide_all_zero, decide_zero
from ..latex import summarize, tex_text

if TYPE_CHECKING:
    import numpy

__all__ = [
    "AlmostDiracStructure",
    "almost_dirac_structure",
    "graph_of_bivector",
    "graph_of_two_form",
    "graph_with_ports",
    "dirac_pairing",
    "dorfman_bracket",
]


def _show(expr) -> str:
    return summarize(expr)




def _ordinary_chart(M, who) -> Chart:
    if not isinstance(M, Chart):
        raise ExpressionError(f"{who} needs an ordinary Chart, got {M!r}")
    if M.is_graded:
        raise ChartMismatchError(f"{who} needs an ordinary chart (all degrees 0), not the graded {M!r}")
    return M


# --------------------------------------------------------------------------- sections


def _vector_part(M: Chart, X, a: int) -> VectorField:
    if isinstance(X, VectorField):
        if X.chart != M:
            raise ChartMismatchError(f"the vector part of section {a} lives on {X.chart!r}; expected {M!r}")
        return X
    if isinstance(X, Form):
        raise SectionShapeError(
            f"section {a} has a form {X} where its vector part was expected; a section is a pair"
            " (vector field, one-form)"
        )
    comps = _components(X, M, f"the vector part of section {a}")
    return VectorField(M, comps)


def _form_part(M: Chart, alpha, a: int) -> Form:
    if isinstance(alpha, Form):
        if alpha.chart != M:
            raise ChartMismatchError(f"the one-form of section {a} lives on {alpha.chart!r}; expected {M!r}")
        if alpha.terms and alpha.degrees != {1}:
            raise SectionShapeError(
                f"the form part of section {a} has degree(s) {sorted(alpha.degrees)}; expected a one-form"
            )
        return alpha
    if isinstance(alpha, VectorField):
        raise SectionShapeError(
            f"section {a} has a vector field where its one-form was expected; a section is a pair"
            " (vector field, one-form)"
        )
    comps = _components(alpha, M, f"the one-form of section {a}")
    return Form(M, {(i,): c for i, c in enumerate(comps) if c != 0})


def _components(v, M: Chart, what: str) -> list:
    names = ", ".join(c.name for c in M.coords)
    if isinstance(v, sympy.MatrixBase):
        v = list(v)
    elif hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        v = v.tolist()
    if isinstance(v, (str, bytes, Mapping, sympy.Basic)) or not isinstance(v, Iterable):
        raise SectionShapeError(f"{what} must be a sequence of {M.dim} components (one per {names}), got {v!r}")
    v = list(v)
    if len(v) != M.dim:
        raise SectionShapeError(
            f"{what} has {len(v)} components; expected {M.dim}, one per coordinate of the chart ({names})"
        )
    return [M.check_expression(c, f"{what}, component {i}") for i, c in enumerate(v)]


def _section_pair(s, a: int):
    if isinstance(s, (str, bytes, Mapping)) or not isinstance(s, Iterable):
        raise SectionShapeError(f"section {a} must be a pair (vector field, one-form), got {s!r}")
    s = tuple(s)
    if len(s) != 2:
        raise SectionShapeError(
            f"section {a} has {len(s)} parts; expected a pair (vector field X_a, one-form alpha_a)"
        )
    return s


def dirac_pairing(s: tuple[VectorField, Form], t: tuple[VectorField, Form]) -> sympy.Expr:
    """The symmetric pairing ``<(X, alpha), (Y, beta)> = alpha(Y) + beta(X)`` of two sections.

    Parameters
    ----------
    s, t : pairs (VectorField, one-Form) on the same chart.

    Returns
    -------
    sympy expression

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("x y"); x, y = M.coords
    >>> X = gc.VectorField(M, {x: 1}); Y = gc.VectorField(M, {y: x})
    >>> dirac_pairing((X, M.d(y)), (Y, M.d(x)))      # dy(Y) + dx(X)
    x + 1
    """
    (X, alpha), (Y, beta) = s, t
    return alpha(Y) + beta(X)


def dorfman_bracket(s: tuple[VectorField, Form], t: tuple[VectorField, Form]) -> tuple[VectorField, Form]:
    """The Courant-Dorfman bracket ``([X, Y], L_X beta - i_Y d alpha)``.

    Parameters
    ----------
    s, t : pairs (VectorField, one-Form) on the same ordinary chart.

    Returns
    -------
    tuple (VectorField, Form)

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("x y"); x, y = M.coords
    >>> s = (gc.VectorField(M, {x: 1}), M.d(y))
    >>> t = (gc.VectorField(M, {y: x}), x * M.d(x))
    >>> dorfman_bracket(s, t)
    (VectorField({y: 1}), Form(dx))
    """
    (X, alpha), (Y, beta) = s, t
    return bracket(X, Y), lie(X, beta) - interior(Y, d(alpha))


# --------------------------------------------------------------------------- the structure


@dataclass(frozen=True)
class AlmostDiracStructure:
    """A candidate almost-Dirac structure: n spanning sections of TM + T*M.

    Build it with :func:`almost_dirac_structure`, :func:`graph_of_bivector`,
    :func:`graph_of_two_form` or :func:`graph_with_ports`.

    Attributes
    ----------
    chart : Chart
        The (ordinary) chart of M (extended by the port variables for a graph with ports).
    fields : tuple of VectorField
        The vector parts ``X_a``.
    forms : tuple of Form
        The one-form parts ``alpha_a``.
    kind : str
        ``"sections"``, ``"bivector"``, ``"two-form"`` or ``"ports"``.
    matrix : sympy.ImmutableMatrix or None
        The bivector ``P``, the two-form matrix ``omega_ij`` or ``D`` of a graph.
    ports : tuple of Symbol
        The port variables (the last coordinates of ``chart``) of a graph with ports.
    """

    chart: Chart
    fields: tuple
    forms: tuple
    kind: str = "sections"
    matrix: object = None
    ports: tuple = ()

    # -- data
    @property
    def rank(self) -> int:
        """The number of spanning sections (= dim M)."""
        return len(self.fields)

    @property
    def sections(self) -> tuple:
        """``((X_a, alpha_a), ...)``."""
        return tuple(zip(self.fields, self.forms))

    def spanning_matrix(self) -> sympy.ImmutableMatrix:
        """The ``2n x n`` matrix ``S``: column a is ``(X_a^1..X_a^n, alpha_a1..alpha_an)``."""
        n, xs = self.chart.dim, self.chart.coords
        cols = []
        for X, alpha in self.sections:
            cols.append([X.component(x) for x in xs] + [alpha.coefficient(x) for x in xs])
        return sympy.ImmutableMatrix(2 * n, len(cols), lambda i, j: cols[j][i])

    def pairing_matrix(self) -> sympy.ImmutableMatrix:
        """``<s_a, s_b>`` for all a, b (symmetric)."""
        s = self.sections
        k = len(s)
        vals = {}
        for a in range(k):
            for b in range(a, k):
                vals[(a, b)] = vals[(b, a)] = dirac_pairing(s[a], s[b])
        return sympy.ImmutableMatrix(k, k, lambda a, b: vals[(a, b)])

    def courant_tensor(self) -> dict:
        """``{(a, b, c): <[[s_a, s_b]], s_c>}`` for ``a < b`` and every ``c`` (zero entries omitted)."""
        s = self.sections
        out = {}
        for a, b in itertools.combinations(range(len(s)), 2):
            Z, gamma = dorfman_bracket(s[a], s[b])
            for c, (Xc, alpha_c) in enumerate(s):
                value = alpha_c(Z) + gamma(Xc)
                if value != 0:
                    out[(a, b, c)] = value
        return out

    # -- certificates
    def certify_isotropic(self, *, budget: float = 20.0) -> Certificate:
        """``<s_a, s_b> = 0`` for all pairs of spanning sections.

        Examples
        --------
        >>> import geomcheck as gc
        >>> M = gc.Chart("x y"); x, y = M.coords
        >>> L = graph_with_ports([[0, x], [x, 0]], M)          # D not skew
        >>> c = L.certify_isotropic()
        >>> c.holds, c.residual[(0, 1)]
        (False, 2*x)
        """
        S = self.pairing_matrix()
        k = S.shape[0]
        entries = {(a, b): S[a, b] for a in range(k) for b in range(a, k)}
        decision = decide_all_zero(entries, budget=budget)
        D = self._intro(Derivation("Isotropy of the almost-Dirac structure"))
        D = D.add(
            r"The pairing $\langle (X,\alpha),(Y,\beta)\rangle = \alpha(Y) + \beta(X)$ of the"
            r" spanning sections, $G_{ab} = \langle s_a, s_b\rangle$, must vanish:",
            r"G &= " + _show(S),
        )
        if self.kind == "bivector":
            D = D.add(r"For the graph of $P$, $G_{ij} = P^{ij} + P^{ji}$, zero for a skew $P$.")
        elif self.kind == "two-form":
            D = D.add(r"For the graph of $\omega$, $G_{ij} = \omega_{ij} + \omega_{ji}$, zero for a skew $\omega$.")
        elif self.kind == "ports":
            D = D.add(r"For the graph $f = D e$, $G_{ij} = D^{ij} + D^{ji}$: it vanishes iff $D$ is skew"
                      r" (power conservation $e^{T} f = e^{T} D e = 0$).")
        nonzero = {key: v for key, v in entries.items() if v != 0}
        return _certificate("<s_a, s_b> = 0 for all spanning sections", decision, nonzero, D,
                            "isotropic", "not isotropic")

    def certify_maximal_rank(self, *, budget: float = 30.0) -> Certificate:
        """The spanning sections have rank ``n = dim M`` at generic points.

        Proved by a maximal minor of :meth:`spanning_matrix` that the zero test shows is
        nonzero (``witness``: its row indices); False when every maximal minor is proved
        identically zero; None otherwise.

        Examples
        --------
        >>> import geomcheck as gc
        >>> M = gc.Chart("x y"); x, y = M.coords
        >>> X = gc.VectorField(M, {x: 1})
        >>> almost_dirac_structure(M, [(X, M.d(y)), (X, M.d(y))]).certify_maximal_rank().holds
        False
        >>> almost_dirac_structure(M, [(X, M.d(y)), (x * X, M.d(x))]).certify_maximal_rank().witness
        (2, 3)
        """
        start = time.monotonic()
        S = self.spanning_matrix()
        n = self.chart.dim
        D = self._intro(Derivation("Maximal rank of the almost-Dirac structure"))
        D = D.add(r"The sections span the columns of (vector components over one-form components)",
                  r"S &= " + _show(S))
        undecided = None
        forms_first = tuple(range(n, 2 * n))
        fields_first = tuple(range(n))
        order = [forms_first, fields_first] + [r for r in itertools.combinations(range(2 * n), n)
                                               if r not in (forms_first, fields_first)]
        for rows in order:
            left = budget - (time.monotonic() - start)
            if left <= 0:
                undecided = "the budget ran out before a nonzero maximal minor was found"
                break
            minor = S.extract(list(rows), list(range(S.shape[1])))
            det = minor.det(method="berkowitz")
            decision = decide_zero(det, budget=min(left, 10.0))
            if decision.is_zero is False:
                names = [self._row_name(r) for r in rows]
                D = D.add(r"The maximal minor on the rows $" + ", ".join(names) + r"$ is not identically zero:",
                          r"\det S_{\mathrm{minor}} &= " + _show(det))
                D = D.concluding(r"Hence $\operatorname{rank} S = " + str(n) + r"$ on an open dense set.")
                return Certificate(
                    "rank of the spanning sections = dim M at generic points", True,
                    f"a maximal minor is nonzero ({decision.method})", stage="exact" if decision.stage in (
                        "structural", "exact") else "randomized",
                    residual=det, derivation=D, witness=tuple(rows),
                )
            if decision.is_zero is None:
                undecided = f"the minor on rows {rows} is undecided ({decision.method})"
        if undecided is None:
            D = D.concluding(r"Every maximal minor of $S$ vanishes identically: the rank is below "
                             + str(n) + " everywhere.")
            return Certificate("rank of the spanning sections = dim M at generic points", False,
                               "every maximal minor is identically zero", stage="exact",
                               residual=S, derivation=D)
        D = D.concluding("Undecided: " + tex_text(undecided) + ".")
        return Certificate("rank of the spanning sections = dim M at generic points", None, undecided,
                           stage="unknown", residual=S, derivation=D)

    def certify_integrable(self, *, budget: float = 30.0) -> Certificate:
        """Closure under the Courant-Dorfman bracket: ``<[[s_a, s_b]], s_c> = 0``.

        The test is valid for an almost-Dirac structure (isotropic, maximal rank), which is
        checked first; if either is not established the answer is None.

        Examples
        --------
        >>> import geomcheck as gc
        >>> M = gc.Chart("x y z"); x, y, z = M.coords
        >>> c = graph_of_two_form(z * (M.d(x) ^ M.d(y)), M).certify_integrable()
        >>> c.holds, c.residual[(0, 1, 2)]          # d omega = dz ^ dx ^ dy
        (False, 1)
        """
        start = time.monotonic()
        iso = self.certify_isotropic(budget=budget / 3)
        rank = self.certify_maximal_rank(budget=budget / 3)
        D = self._intro(Derivation("Integrability of the almost-Dirac structure"))
        if iso.holds is not True or rank.holds is not True:
            why = "isotropy" if iso.holds is not True else "maximal rank"
            D = D.concluding("The structure is not (proved) almost-Dirac: " + why
                             + " is not established, so closure is not tested through the pairing.")
            return Certificate("sections closed under the Courant-Dorfman bracket", None,
                               f"not an almost-Dirac structure: {why} is not established",
                               stage="unknown", derivation=D)
        T = self.courant_tensor()
        left = max(budget - (time.monotonic() - start), 1.0)
        decision = decide_all_zero(T, budget=left) if T else None
        D = D.add(
            r"The structure $L$ is isotropic of maximal rank, so $L = L^{\perp}$ and $L$ is closed under"
            r" $[\![ (X,\alpha),(Y,\beta) ]\!] = ([X,Y],\, L_X\beta - i_Y \mathrm{d}\alpha)$ iff the"
            r" Courant tensor $T_{abc} = \langle [\![ s_a, s_b ]\!], s_c\rangle$ vanishes"
            r" ($T$ is tensorial and totally skew on $L$).")
        D = D.add(self._tensor_meaning())
        rows = [r"T_{%d%d%d} &= %s" % (a + 1, b + 1, c + 1, _show(v)) for (a, b, c), v in T.items() if a < b < c]
        if rows:
            D = D.add(r"The components $a < b < c$ that are not structurally zero:", r" \\ ".join(rows[:20]))
        else:
            D = D.add(r"Every component $T_{abc}$ is structurally zero.")
        if decision is None:
            from ..zero import ZeroDecision

            decision = ZeroDecision(True, "structural", "every component is structurally zero", None, None, None)
        return _certificate("sections closed under the Courant-Dorfman bracket", decision, T, D,
                            "integrable (a Dirac structure)", "not integrable")

    def is_almost_dirac(self, **budget: Any) -> bool | None:
        """True / False / None: isotropic and of maximal rank."""
        iso = self.certify_isotropic(**budget).holds
        if iso is False:
            return False
        rank = self.certify_maximal_rank(**budget).holds
        if rank is False:
            return False
        return True if (iso and rank) else None

    # -- printing
    def _row_name(self, r: int) -> str:
        n, xs = self.chart.dim, self.chart.coords
        if r < n:
            return r"X^{" + sympy.latex(xs[r]) + "}"
        return r"\alpha_{" + sympy.latex(xs[r - n]) + "}"

    def _intro(self, D: Derivation) -> Derivation:
        if self.kind == "bivector":
            return D.add(r"$L$ is the graph of the bivector $P^{ij} = \{x^i, x^j\}$, spanned by"
                         r" $s_i = (P^{ij}\partial_j, \mathrm{d}x^i)$, with",
                         r"P &= " + _show(self.matrix))
        if self.kind == "two-form":
            return D.add(r"$L$ is the graph of the two-form $\omega = \tfrac12\omega_{ij}\,\mathrm{d}x^i"
                         r"\wedge\mathrm{d}x^j$, spanned by $s_i = (\partial_i, i_{\partial_i}\omega)$, with",
                         r"\omega &= " + _show(self.matrix))
        if self.kind == "ports":
            ports = ", ".join(sympy.latex(p) for p in self.ports) or r"\text{none}"
            return D.add(r"$L$ is the graph $f = D\,e$ of flows over efforts on the chart extended by the"
                         r" port variables $" + ports + r"$, spanned by $s_i = (D^{ji}\partial_j, \mathrm{d}x^i)$:",
                         r"\begin{pmatrix} f \end{pmatrix} &= D \begin{pmatrix} e \end{pmatrix}, & D &= "
                         + _show(self.matrix))
        return D.add(r"$L$ is spanned by the sections $s_a = (X_a, \alpha_a)$, $a = 1..%d$." % self.rank)

    def _tensor_meaning(self) -> str:
        if self.kind == "bivector":
            return (r"For the graph of $P$: $T_{ijk} = \oint_{ijk} P^{il}\partial_l P^{jk}"
                    r" = \tfrac12 [P, P]^{ijk}$ (Schouten bracket), so $L$ is Dirac iff $P$ is Poisson.")
        if self.kind == "two-form":
            return (r"For the graph of $\omega$: $T_{ijk} = \partial_i\omega_{jk} + \partial_j\omega_{ki}"
                    r" + \partial_k\omega_{ij} = \mathrm{d}\omega(\partial_i,\partial_j,\partial_k)$,"
                    r" so $L$ is Dirac iff $\mathrm{d}\omega = 0$.")
        if self.kind == "ports":
            return (r"For the graph $f = D e$ of a skew $D$: it is the graph of the bivector $P = D^{T}$,"
                    r" and $T_{ijk} = \tfrac12 [D, D]^{ijk}$ (Schouten bracket).")
        return r"The Courant tensor is computed from the brackets of the spanning sections."

    def _latex(self, printer=None):
        n = self.chart.dim
        cols = []
        for X, alpha in self.sections:
            cols.append(r"\left(" + latex(X) + r",\ " + latex(alpha) + r"\right)")
        return r"\operatorname{span}\left\{" + r",\ ".join(cols) + r"\right\}" if n <= 6 else \
            r"\text{an almost-Dirac structure of rank %d}" % n

    def latex(self) -> str:
        """LaTeX of the spanning sections."""
        return self._latex()

    def _repr_latex_(self):
        return f"${self._latex()}$"

    def __repr__(self):
        return f"AlmostDiracStructure(kind={self.kind!r}, chart={self.chart!r}, rank={self.rank})"


def _certificate(claim, decision, residual, D, good, bad) -> Certificate:
    if decision.is_zero is True:
        D = D.concluding(f"All components vanish: {good}.")
    elif decision.is_zero is False:
        D = D.concluding(r"The component $" + tex_text(str(decision.index)) + r"$ is not zero: " + bad + ".")
    else:
        D = D.concluding("Undecided: " + tex_text(decision.method) + ".")
    return Certificate.from_decision(claim, decision, residual=residual, derivation=D)


# --------------------------------------------------------------------------- constructors


def almost_dirac_structure(
        M: Chart, sections: Sequence[tuple[VectorField | Sequence[Any], Form | Sequence[Any]]],
) -> AlmostDiracStructure:
    """The subbundle of TM + T*M spanned by ``n = dim M`` sections ``(X_a, alpha_a)``.

    Parameters
    ----------
    M : Chart
        An ordinary chart.
    sections : sequence of n pairs
        ``(X_a, alpha_a)``: ``X_a`` a VectorField on M or a sequence of n components,
        ``alpha_a`` a one-Form on M or a sequence of n components.

    Returns
    -------
    AlmostDiracStructure
        Not yet checked: see its ``certify_*`` methods.

    Raises
    ------
    SectionShapeError
        Not n sections, a section that is not a pair, components of the wrong length, a
        form of degree other than one.
    ChartMismatchError
        A field or form lives on another chart.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> L = almost_dirac_structure(M, [([0, 0], [1, 0]), ([0, 0], [0, 1])])   # T*M itself
    >>> L.certify_isotropic().holds, L.certify_integrable().holds
    (True, True)
    >>> almost_dirac_structure(M, [([0, 0], [1, 0])])
    Traceback (most recent call last):
    ...
    geomcheck.errors.SectionShapeError: got 1 spanning section(s) on a chart of dimension 2 (q, p); an almost-Dirac structure has rank 2: expected 2 pairs (X_a, alpha_a)
    """
    M = _ordinary_chart(M, "almost_dirac_structure")
    if isinstance(sections, (str, bytes, Mapping)) or not isinstance(sections, Iterable):
        raise SectionShapeError(f"sections must be a sequence of pairs (X_a, alpha_a), got {sections!r}")
    sections = list(sections)
    if len(sections) != M.dim:
        names = ", ".join(c.name for c in M.coords)
        raise SectionShapeError(
            f"got {len(sections)} spanning section(s) on a chart of dimension {M.dim} ({names}); an"
            f" almost-Dirac structure has rank {M.dim}: expected {M.dim} pairs (X_a, alpha_a)"
        )
    fields, forms = [], []
    for a, s in enumerate(sections):
        X, alpha = _section_pair(s, a)
        fields.append(_vector_part(M, X, a))
        forms.append(_form_part(M, alpha, a))
    return AlmostDiracStructure(M, tuple(fields), tuple(forms))


def graph_of_bivector(P: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]], M: Chart) -> AlmostDiracStructure:
    """The graph ``{(P(alpha, .), alpha)}`` of a bivector ``P^{ij} = {x^i, x^j}``.

    Spanned by ``(P^{ij} d_j, dx^i)``; integrable iff P is Poisson (``[P, P] = 0``).

    Parameters
    ----------
    P : skew ``dim M x dim M`` matrix of functions on M.
    M : Chart

    Raises
    ------
    ShapeError, NotSkewError
        As for :func:`geomcheck.poisson_vector_field`.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("x y z"); x, y, z = M.coords
    >>> L = graph_of_bivector([[0, z, 0], [-z, 0, y], [0, -y, 0]], M)
    >>> L.certify_integrable().holds     # [P, P]^{xyz} = 2 z
    False
    """
    M = _ordinary_chart(M, "graph_of_bivector")
    rows = skew_matrix(P, M, "the bivector P")
    n = M.dim
    fields = tuple(VectorField(M, rows[i]) for i in range(n))
    forms = tuple(M.d(x) for x in M.coords)
    return AlmostDiracStructure(M, fields, forms, "bivector", sympy.ImmutableMatrix(rows))


def graph_of_two_form(omega: Form | sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]],
                      M: Chart) -> AlmostDiracStructure:
    """The graph ``{(X, i_X omega)}`` of a two-form; integrable iff ``d omega = 0``.

    Parameters
    ----------
    omega : a two-Form on M, or a skew matrix ``omega_ij = omega(d_i, d_j)``.
    M : Chart

    Raises
    ------
    SectionShapeError
        A form of degree other than two.
    ShapeError, NotSkewError
        A matrix of the wrong shape or not skew.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> L = graph_of_two_form(M.d(q) ^ M.d(p), M)
    >>> L.fields[0], L.forms[0]
    (VectorField({q: 1}), Form(dp))
    """
    M = _ordinary_chart(M, "graph_of_two_form")
    n = M.dim
    basis = [VectorField(M, {x: 1}) for x in M.coords]
    if isinstance(omega, Form):
        if omega.chart != M:
            raise ChartMismatchError(f"graph_of_two_form: omega lives on {omega.chart!r}; expected {M!r}")
        if omega.terms and omega.degrees != {2}:
            raise SectionShapeError(f"graph_of_two_form needs a two-form; omega has degree(s) {sorted(omega.degrees)}")
        forms = tuple(interior(E, omega) for E in basis)
        matrix = sympy.ImmutableMatrix(n, n, lambda i, j: forms[i].coefficient(M.coords[j]))
    else:
        rows = skew_matrix(omega, M, "the two-form matrix omega")
        matrix = sympy.ImmutableMatrix(rows)
        forms = tuple(Form(M, {(j,): rows[i][j] for j in range(n) if rows[i][j] != 0}) for i in range(n))
    return AlmostDiracStructure(M, tuple(basis), forms, "two-form", matrix)


def graph_with_ports(D: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]], M: Chart,
                     port_names: Sequence[str | sympy.Symbol] = ()) -> AlmostDiracStructure:
    """The graph ``f = D e`` of flows over efforts, with port variables, as in Section 4.

    The chart is M extended by the port variables (coordinates of the fibre of the
    trivial port bundle F); efforts are one-form components, flows vector components,
    and the graph is spanned by ``(D^{ji} d_j, dx^i)``.  D need not be skew: isotropy
    is then what :meth:`AlmostDiracStructure.certify_isotropic` decides.

    Parameters
    ----------
    D : ``(n + k) x (n + k)`` matrix of functions, ``n = dim M``, ``k`` ports.
    M : Chart
        The state chart.
    port_names : sequence of str or Symbol
        Names of the k port variables (appended to M's coordinates).

    Raises
    ------
    SectionShapeError
        D is not ``(n + k) x (n + k)``.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> L = graph_with_ports([[0, 1, 0], [-1, 0, -q], [0, q, 0]], M, ["w"])
    >>> L.chart, L.ports
    (Chart('q p w'), (w,))
    >>> L.certify_isotropic().holds
    True
    """
    M = _ordinary_chart(M, "graph_with_ports")
    names = [str(p) for p in port_names]
    # M's own Symbols are kept for the state part, so expressions on M live on E as they are
    E = Chart(list(M.coords) + names) if names else M
    k = E.dim
    coords = ", ".join(c.name for c in E.coords)
    rows = matrix_rows(D, "the matrix D", SectionShapeError, (k, k), f"one row per flow ({coords})",
                 f"one column per effort ({coords})")
    rows = [[E.check_expression(v, f"entry [{i}][{j}] of D") for j, v in enumerate(r)] for i, r in enumerate(rows)]
    fields = tuple(VectorField(E, [rows[j][i] for j in range(k)]) for i in range(k))
    forms = tuple(E.d(x) for x in E.coords)
    ports = tuple(E.coords[M.dim:])
    return AlmostDiracStructure(E, fields, forms, "ports", sympy.ImmutableMatrix(rows), ports)
