r"""The degree-1 vector field Q of a skew bivector D, on ``T*[1]`` of a chart extended by ports.

In the convention of Salnikov & Hamdouni 2019 (coordinates ``x^i``, odd ``p_i``)

.. math::

    Q = D^{ij} p_j \frac{\partial}{\partial x^i}
        + \tfrac12\,\partial_k D^{ij}\, p_i p_j \frac{\partial}{\partial p_k},

which is :func:`geomcheck.poisson_vector_field` of ``P = D^T`` (``{x^i, x^j} = D^{ji}``), so
``Q o Q = 1/2 [[D, D], .]`` (Schouten bracket): Q is homological iff ``D`` is Poisson.
:func:`port_q_structure` builds Q, reports ``Q o Q`` and the components of ``[D, D]`` that
are not zero, and typesets the steps.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sympy

from ..algebra import Chart
from ..latex import Derivation, latex, summarize
from ..qstructures import cotangent_shift, homological_report, poisson_vector_field, schouten_bracket
from ..zero import decide_all_zero, decide_zero
from .dirac import graph_with_ports

if TYPE_CHECKING:
    import numpy

__all__ = ["PortQStructure", "port_q_structure"]


@dataclass(frozen=True)
class PortQStructure:
    """The degree-1 field on ``T*[1]M`` (M extended by ports) built from a bivector ``D``.

    Attributes
    ----------
    D : sympy.ImmutableMatrix
    chart : Chart
        The extended chart (state coordinates, then port variables).
    field : VectorField
        ``Q = D^{ij} p_j d/dx^i + 1/2 d_k D^{ij} p_i p_j d/dp_k`` on ``cotangent_shift(chart)``.
    report : HomologicalReport
        ``Q o Q`` and its nonzero components.
    schouten : dict
        ``{(i, j, k): [D, D]^{ijk}}`` for ``i < j < k``, the entries not proved zero.
    poisson_decision : ZeroDecision
        Whether ``[D, D] = 0``.
    derivation : Derivation
    state_poisson : bool or None
        For the Q of a :class:`~geomcheck.structures.PortHamiltonianSystem`: whether ``[J, J] = 0`` (the state block
        alone is Poisson); None otherwise or when undecided.
    """

    D: object
    chart: Chart
    field: object
    report: object
    schouten: dict
    poisson_decision: object
    derivation: Derivation
    state_poisson: object = None

    @property
    def holds(self) -> bool | None:
        """Whether Q is homological (True / False / None)."""
        return self.report.holds

    def latex(self) -> str:
        return self.derivation.latex()

    def _latex(self, printer=None):
        return latex(self.field)

    def _repr_latex_(self):
        return f"${self._latex()}$"


def port_q_structure(D: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]], M: Chart,
                     port_names: Sequence[str | sympy.Symbol] = (), *, budget: float = 20.0) -> PortQStructure:
    r"""The Q on ``T*[1]`` of M (extended by ports) from a skew ``D``, with ``Q o Q`` reported.

    In the paper's convention ``Q(x^i) = D^{ij} p_j`` and
    ``Q(p_k) = 1/2 d_k D^{ij} p_i p_j``; this is ``poisson_vector_field(D^T)``, and
    ``Q o Q = 1/2 [[D, D], .]`` (Schouten bracket): ``(Q o Q)(x^i) = 1/2 sum_{j<k}
    [D, D]^{ijk} p_j p_k``.

    Parameters
    ----------
    D : ``(n + k) x (n + k)`` skew matrix.
    M : Chart
        The state chart (n coordinates).
    port_names : k names of the port variables.
    budget : seconds for the report.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> S = port_q_structure([[0, -1, 0], [1, 0, -q], [0, q, 0]], M, ["w"])
    >>> S.field
    VectorField({q: -theta_p, p: -q*theta_w + theta_q, w: q*theta_p, theta_q: -theta_p*theta_w})
    >>> S.holds, S.schouten
    (True, {})
    """
    L = graph_with_ports(D, M, port_names)
    E = L.chart
    P = L.matrix.T
    Q = poisson_vector_field(P, E)
    report = homological_report(Q, budget=budget)
    T = schouten_bracket(P, P, E)
    n = E.dim
    entries = {(i, j, k): T[i, j, k] for i, j, k in itertools.combinations(range(n), 3) if T[i, j, k] != 0}
    decision = decide_all_zero(entries, budget=budget) if entries else None
    kept = {}
    for key, v in entries.items():
        if decide_zero(v, budget=5.0).is_zero is not True:
            kept[key] = sympy.expand(v)
    T_ = cotangent_shift(E)
    xs, ps = E.coords, T_.coords[n:]
    Dv = Derivation(r"The Q-structure of the bivector $D$")
    Dv = Dv.add(r"On $T^{*}[1]\mathcal{M}$ with coordinates $x^i = (" + ", ".join(sympy.latex(x) for x in xs)
                + r")$ of degree 0 and $p_i = (" + ", ".join(sympy.latex(p) for p in ps)
                + r")$ of degree 1, the degree-1 vector field of the bivector",
                r"D &= " + summarize(L.matrix))
    Dv = Dv.add(r"is (Salnikov 2015; this is the Poisson field of $P = D^{T}$, $\{x^i, x^j\} = D^{ji}$)",
                r"Q &= D^{ij} p_j \frac{\partial}{\partial x^i} + \tfrac12\, \partial_k D^{ij}\, p_i p_j"
                r" \frac{\partial}{\partial p_k}.")
    Dv = Dv.add(r"Built from $D$:", r"Q &= " + _field_rows(Q))
    if entries and decision is not None and decision.is_zero is not True:
        rows = [r"[D, D]^{%s} &= %s" % (" ".join(sympy.latex(E.coords[a]) for a in key), summarize(v))
                for key, v in kept.items()]
        Dv = Dv.add(r"The Schouten bracket $[D, D]^{ijk} = 2\oint_{ijk} D^{li}\partial_l D^{kj}$"
                    r" does not vanish; its components $i<j<k$ not proved zero are",
                    r" \\ ".join(rows[:20]))
    else:
        Dv = Dv.add(r"The Schouten bracket $[D, D]$ vanishes: $D$ is Poisson.")
    if report.holds is True:
        Dv = Dv.concluding(r"Hence $Q\circ Q = \tfrac12[[D, D], \cdot\,] = 0$: $Q$ is homological.")
    else:
        Dv = Dv.add(r"$Q \circ Q = \tfrac12 [[D, D], \cdot\,]$; its components that are not zero:",
                    _report_rows(report))
        Dv = Dv.concluding(r"So $Q$ is not homological" + ("" if report.holds is False else " (undecided)")
                           + r": the almost-Dirac structure of $D$ is not integrable.")
    return PortQStructure(L.matrix, E, Q, report, kept, decision, Dv)


def _field_rows(Q) -> str:
    coords = Q.chart.coords
    parts = []
    for i in sorted(Q.component_terms()):
        parts.append(r"\left(" + latex(Q.component(coords[i])) + r"\right)\frac{\partial}{\partial "
                     + sympy.latex(coords[i]) + "}")
    if not parts:
        return "0"
    rows, line = [], []
    for k, p in enumerate(parts):
        line.append(p)
        if len(line) == 2:
            rows.append(" + ".join(line))
            line = []
    if line:
        rows.append(" + ".join(line))
    return r" \\ &\quad + ".join(rows)


def _report_rows(report) -> str:
    rows = []
    for comp in report.components[:20]:
        rows.append(r"(Q \circ Q)\left(" + sympy.latex(comp.coordinate) + r"\right) &= " + comp.value._latex())
    return r" \\ ".join(rows) if rows else r"&\text{(none)}"
