r"""Certificates for Poisson structures, Poisson maps, Casimirs and volume preservation.

A Poisson tensor on a chart with coordinates ``x`` is a matrix ``P(x)`` that is
skew-symmetric and satisfies the Jacobi identity

.. math::  \sum_l \left(P_{il}\,\partial_l P_{jk} + P_{jl}\,\partial_l P_{ki} + P_{kl}\,\partial_l P_{ij}\right) = 0
           \quad (i < j < k);

its bracket is ``{F, G} = grad F^T P grad G`` and the vector field of a function H is
``x' = P grad H``.  A map ``phi`` of the chart to itself is a *Poisson map* when
``D phi(x) P(x) D phi(x)^T == P(phi(x))`` (it carries brackets to brackets); a *Casimir* is a
function C with ``P grad C == 0`` (it Poisson-commutes with everything, so every Poisson flow
preserves it).  Volume preservation of a density ``rho`` is ``rho(phi(x)) det D phi(x) ==
rho(x)``; a vector field X preserves ``rho dx`` exactly when ``div(rho X) == 0``.

Every check runs on geomcheck's zero test (:func:`geomcheck.zero.decide_all_zero`), with the
map's Jacobian from the engine: :meth:`geomcheck.Map.jacobian_matrix` for explicit maps, the
implicit function theorem of :attr:`geomcheck.ImplicitMap.dependence` for implicit ones (whose
residuals are then decided on the solution manifold of the map's equations).  True means
proved (or zero by the randomized stage: ``method`` and ``soundness`` say which), False comes
with a confirmed counterexample, None means undecided.

A failed Poisson-structure certificate names what failed inside ``counterexample``: the key
``"triple"`` (the coordinates ``(x_i, x_j, x_k)`` of a failing Jacobi identity) or ``"pair"``
(``(x_i, x_j)`` with ``P_ij + P_ji != 0``), beside the point (coordinate names to values); a
failed Poisson-map certificate gives the ``"entry"`` ``(x_i, x_j)`` of the residual.

>>> import geomcheck as gc, sympy
>>> from geomcheck.certify.poisson import certify_poisson, certify_poisson_structure
>>> M = gc.Chart("u v"); u, v = M.coords
>>> P = sympy.Matrix([[0, u * v], [-u * v, 0]])       # Lotka-Volterra (HLW, Example VII.2.4)
>>> certify_poisson_structure(P, M).holds
True
>>> h = sympy.Symbol("h")
>>> flow_u = gc.Map(M, M, [u, v * sympy.exp(h * u)])   # the exact flow of H = u: v' = u v
>>> certify_poisson(flow_u, P).holds
True
"""

from __future__ import annotations

import dataclasses

from typing import Any

import sympy

from ..algebra import Chart
from ..calculus import diff
from ..errors import (
    ChartMismatchError,
    ExpressionError,
    InvalidArgumentError,
    NotACasimirError,
    NotAPoissonStructureError,
)
from ..fields import VectorField
from ..forms import require_ordinary
from ..latex import Derivation, latex, summarize, tex_text
from ..maps import ImplicitMap, Map, substitute
from ..zero import decide_all_zero
from .certificate import Certificate, point_by_name

__all__ = ["certify_poisson_structure", "certify_poisson", "certify_casimir", "certify_preserves_casimir",
           "certify_volume_preserving", "certify_divergence_free"]

#: expressions with more nodes than this are summarized, not typeset, in derivations
_TYPESET_NODES = 300


# ------------------------------------------------------------------------------------ input checks


def _exact(e: sympy.Expr, what: str, who: str) -> sympy.Expr:
    """Refuse binary floats: the claims are exact identities, which a rounded coefficient breaks."""
    if e.has(sympy.Float):
        raise InvalidArgumentError(
            f"{who}: {what} {e} contains a floating-point number; exact values were expected"
            " (sympy.Rational(1, 2), not 0.5)")
    return e


def _check_chart(chart, who) -> Chart:
    if not isinstance(chart, Chart):
        raise ExpressionError(f"{who} expects a geomcheck Chart, got {type(chart).__name__} {chart!r}")
    require_ordinary(chart)
    return chart


def _tensor(P, chart: Chart, who: str) -> sympy.ImmutableMatrix:
    """``P`` as an exact square matrix of the chart's dimension, its entries functions on the chart."""
    if isinstance(P, (str, bytes)) or isinstance(P, sympy.Expr) and not isinstance(P, sympy.MatrixBase):
        raise ExpressionError(f"{who}: the Poisson tensor must be a square matrix, got {type(P).__name__} {P!r}")
    try:
        M = sympy.ImmutableMatrix(P)
    except (ValueError, TypeError, sympy.SympifyError) as exc:
        raise ExpressionError(f"{who}: the Poisson tensor {P!r} is not a matrix ({exc})") from None
    n = chart.dim
    if M.shape != (n, n):
        raise InvalidArgumentError(
            f"{who}: the Poisson tensor has shape {M.shape[0]} x {M.shape[1]}; a square {n} x {n} matrix was"
            f" expected (the dimension of {chart!r})")
    entries = [_exact(chart.check_expression(e, f"{who}: the entry P[{k // n}, {k % n}]"),
                      f"the entry P[{k // n}, {k % n}] =", who) for k, e in enumerate(M)]
    return sympy.ImmutableMatrix(n, n, entries)


def _function(C, chart: Chart, who: str, what: str) -> sympy.Expr:
    return _exact(chart.check_expression(C, f"{who}: {what}"), what, who)


def _check_self_map(phi, who):
    if not isinstance(phi, (Map, ImplicitMap)):
        raise ExpressionError(f"{who} expects a geomcheck Map or ImplicitMap, got {type(phi).__name__} {phi!r}")
    if phi.source.coords != phi.target.coords:
        raise ChartMismatchError(
            f"{who}: the map goes from {phi.source!r} to {phi.target!r}; a map of a chart to itself (the same"
            " coordinates in the same order) was expected")


# ---------------------------------------------------------------------------------- the map's data


def _jacobian(phi) -> tuple[sympy.Matrix, tuple]:
    """``D phi`` (target by source) and the relations it holds on (the implicit map's equations)."""
    n = phi.source.dim
    if isinstance(phi, Map):
        return phi.jacobian_matrix(), ()
    dep = phi.dependence
    J = sympy.zeros(n, n)
    for i, u in enumerate(phi.new):
        for j, v in dep.derivatives[u].items():
            J[i, j] = v
    return J, (dep.relation,)


def _after(phi, e: sympy.Expr) -> sympy.Expr:
    """``e o phi``: for an implicit map, in its unknowns (the new values)."""
    if isinstance(phi, Map):
        return phi(e)
    return substitute(e, phi.substitution())


def _name(coords, index) -> tuple:
    return tuple(coords[i].name for i in index)


def _show(e) -> str:
    return summarize(e, _TYPESET_NODES)


def _map_step(D: Derivation, phi) -> Derivation:
    if isinstance(phi, ImplicitMap):
        return D.add(r"The map $\varphi$ is defined implicitly by", _show(sympy.Matrix(phi.equations)) + r" = 0")
    return D.add(r"The map $\varphi$ is", r"\varphi(x) &= " + _show(sympy.Matrix(phi.exprs)))


def _undecided(claim, reason, D, residual=None) -> Certificate:
    return Certificate(claim, None, reason, stage="unknown", residual=residual, derivation=D.add(tex_text(reason)))


def _verdict_text(decision) -> str:
    method = tex_text(decision.method)
    if decision.is_zero is True:
        return "It vanishes identically (" + method + ")."
    if decision.is_zero is False:
        return "It does not vanish: " + method + "."
    return "Whether it vanishes was not decided: " + method + "."


# ---------------------------------------------------------------------------------- certificates


def _structure_residuals(P, chart) -> dict:
    """``{("pair", i, j): P_ij + P_ji}`` (i <= j) and ``{("triple", i, j, k): Jacobi}`` (i < j < k)."""
    n, x = chart.dim, chart.coords
    out = {}
    for i in range(n):
        for j in range(i, n):
            out[("pair", i, j)] = P[i, j] + P[j, i]
    dP = {(a, b, l): diff(P[a, b], x[l]) for a in range(n) for b in range(n) for l in range(n)}
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                out[("triple", i, j, k)] = sympy.Add(*[P[i, l] * dP[j, k, l] + P[j, l] * dP[k, i, l]
                                                      + P[k, l] * dP[i, j, l] for l in range(n)])
    return out


def _structure(P, chart, who):
    """The decision of "P is skew and satisfies Jacobi", and a phrase naming what failed."""
    residuals = {k: v for k, v in _structure_residuals(P, chart).items() if v != 0}
    decision = decide_all_zero(residuals, domain=chart.domain)
    failing = None
    if decision.is_zero is not True and decision.index is not None:
        kind, *index = decision.index
        names = _name(chart.coords, index)
        failing = (kind, names, residuals[decision.index])
    return decision, failing, residuals


def _failing_phrase(failing) -> str:
    kind, names, value = failing
    if kind == "pair":
        i, j = names
        return f"P is not skew-symmetric: P[{i},{j}] + P[{j},{i}] = {value}" if i != j else \
            f"P is not skew-symmetric: its diagonal entry for {i} is {value / 2}, not 0"
    return f"the Jacobi identity fails for the triple ({', '.join(names)}): its residual is {value}"


def certify_poisson_structure(P: Any, chart: Chart) -> Certificate:
    r"""Certify that the matrix ``P`` is a Poisson tensor on ``chart``: skew and Jacobi.

    Parameters
    ----------
    P : sympy Matrix (or nested lists)
        ``chart.dim`` x ``chart.dim``, exact entries in the chart's coordinates and constant
        parameters (undefined functions allowed: a family of tensors).
    chart : Chart

    Returns
    -------
    Certificate
        True when every ``P_ij + P_ji`` and every Jacobi sum (``i < j < k``) is proved zero;
        False with ``counterexample`` naming the failing ``"pair"`` or ``"triple"`` and a point
        where its residual is nonzero; None when undecided.

    Raises
    ------
    InvalidArgumentError
        ``P`` is not square of the chart's dimension, or has floating-point entries.
    ExpressionError
        ``P`` is not a matrix, or an entry is not a scalar expression.

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("m1 m2 m3"); m1, m2, m3 = M.coords
    >>> hat = sympy.Matrix([[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]])   # so(3)*
    >>> certify_poisson_structure(hat, M).holds
    True
    >>> c = certify_poisson_structure(sympy.Matrix([[0, m2, 0], [-m2, 0, 1], [0, -1, 0]]), M)
    >>> c.holds, c.counterexample["triple"]                  # Jacobi: P_32 d_2 P_12 = -1
    (False, ('m1', 'm2', 'm3'))
    """
    who = "certify_poisson_structure"
    chart = _check_chart(chart, who)
    P = _tensor(P, chart, who)
    decision, failing, residuals = _structure(P, chart, who)
    D = Derivation(r"$P$ is a Poisson tensor: skew-symmetric, with the Jacobi identity")
    D = D.add(r"The tensor is", r"P &= " + _show(P))
    D = D.add(r"It must be skew, $P_{ij} + P_{ji} = 0$, and satisfy "
              r"$\sum_l P_{il}\partial_l P_{jk} + P_{jl}\partial_l P_{ki} + P_{kl}\partial_l P_{ij} = 0$"
              r" for $i<j<k$; the nonzero residuals as written are",
              r" \\ ".join(("P_{%s%s}+P_{%s%s}" % (latex(chart.coords[k[1]]), latex(chart.coords[k[2]]),
                                                    latex(chart.coords[k[2]]), latex(chart.coords[k[1]]))
                            if k[0] == "pair" else
                            r"J_{%s}" % "".join(latex(chart.coords[i]) for i in k[1:])) + " &= " + _show(v)
                           for k, v in residuals.items()) or r"\text{none: every residual is } 0")
    D = D.add(_verdict_text(decision))
    method = decision.method
    counterexample = None
    if failing is not None:
        method = _failing_phrase(failing) + "; " + decision.method
        if decision.is_zero is False:
            counterexample = {failing[0]: failing[1], **(point_by_name(decision.point) or {})}
            D = D.add("It fails: " + tex_text(_failing_phrase(failing)) + ".")
    return Certificate.from_decision("P is a Poisson tensor (skew, Jacobi)", decision, method=method,
                                     residual=residuals, counterexample=counterexample, derivation=D)


def _require_structure(P, chart, who):
    """None when P is proved Poisson; the reason when undecided; raise when it is provably not."""
    decision, failing, _ = _structure(P, chart, who)
    if decision.is_zero is True:
        return None, decision
    if decision.is_zero is False:
        raise NotAPoissonStructureError(
            f"{who}: the matrix {list(P.tolist())} is not a Poisson tensor: {_failing_phrase(failing)}"
            f" (nonzero at {point_by_name(decision.point)}); a skew matrix satisfying the Jacobi identity was"
            " expected")
    return (f"whether P is a Poisson tensor was not decided ({decision.method})", decision)


def certify_poisson(phi: Map | ImplicitMap, P: Any) -> Certificate:
    r"""Certify that ``phi`` is a Poisson map of ``P``: ``D phi P D phi^T == P o phi``.

    Parameters
    ----------
    phi : Map or ImplicitMap
        From a chart to itself.  For an implicit map the derivative comes from the implicit
        function theorem and the residual is decided on the solution manifold.
    P : sympy Matrix
        A Poisson tensor on the chart (checked first with :func:`certify_poisson_structure`).

    Returns
    -------
    Certificate
        False with ``counterexample`` giving the residual's ``"entry"`` (coordinate names) and
        the point; None when undecided (also when P is not shown to be a Poisson tensor).

    Raises
    ------
    NotAPoissonStructureError
        P is provably not a Poisson tensor (the message names the failing pair or triple).
    ChartMismatchError
        phi is not a map of a chart to itself.

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("m1 m2 m3"); m1, m2, m3 = M.coords; h = sympy.Symbol("h")
    >>> hat = sympy.Matrix([[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]])
    >>> c, s = sympy.cos(h * m1), sympy.sin(h * m1)
    >>> rotation = gc.Map(M, M, [m1, c * m2 + s * m3, c * m3 - s * m2])   # exact flow of m1^2/2
    >>> certify_poisson(rotation, hat).holds
    True
    >>> euler = gc.Map(M, M, [m1, m2 + h * m1 * m3, m3 - h * m1 * m2])     # explicit Euler of the same
    >>> r = certify_poisson(euler, hat)
    >>> r.holds, "entry" in r.counterexample
    (False, True)
    """
    who = "certify_poisson"
    _check_self_map(phi, who)
    chart = phi.source
    P = _tensor(P, chart, who)
    claim = "D phi P D phi^T == P o phi"
    D = _map_step(Derivation(r"$\varphi$ is a Poisson map: $D\varphi\,P\,D\varphi^T = P\circ\varphi$"), phi)
    D = D.add(r"The Poisson tensor is", r"P &= " + _show(P))
    reason, structure = _require_structure(P, chart, who)
    if reason is not None:
        return _undecided(claim, reason, D)
    D = D.add(r"It is a Poisson tensor (skew, Jacobi identity: " + tex_text(structure.method) + ").")
    J, relations = _jacobian(phi)
    n = chart.dim
    left = J * P * J.T
    # both sides are skew (P is), so the entries above the diagonal say everything
    residual = {(i, j): left[i, j] - _after(phi, P[i, j]) for i in range(n) for j in range(i + 1, n)}
    D = D.add(r"The Jacobian of the map is" + (" (implicit function theorem)" if relations else ""),
              r"D\varphi &= " + _show(J))
    D = D.add(r"The residual $R = D\varphi\,P\,D\varphi^T - P\circ\varphi$ above the diagonal must vanish"
              r" (both terms are skew):",
              r" \\ ".join(r"R_{%s%s} &= %s" % (latex(chart.coords[i]), latex(chart.coords[j]), _show(v))
                           for (i, j), v in residual.items()) or r"R &= 0")
    decision = decide_all_zero(residual, relations=relations, domain=chart.domain)
    D = D.add(_verdict_text(decision))
    counterexample = None
    method = decision.method + "; P is a Poisson tensor (" + structure.method + ")"
    if decision.is_zero is False and decision.index is not None:
        counterexample = {"entry": _name(chart.coords, decision.index), **(point_by_name(decision.point) or {})}
    return Certificate.from_decision(claim, decision, method=method, residual=residual,
                                     counterexample=counterexample, derivation=D)


def _casimir_residual(C, P, chart):
    grad = [diff(C, x) for x in chart.coords]
    n = chart.dim
    return {chart.coords[i]: sympy.Add(*[P[i, l] * grad[l] for l in range(n)]) for i in range(n)}


def certify_casimir(C: Any, P: Any, chart: Chart) -> Certificate:
    r"""Certify that ``C`` is a Casimir of ``P``: every component of ``P grad C`` vanishes.

    Parameters
    ----------
    C : sympy expression on the chart
    P : sympy Matrix (square, the chart's dimension)
    chart : Chart

    Returns
    -------
    Certificate
        False names the component in ``counterexample["component"]``.

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("m1 m2 m3"); m1, m2, m3 = M.coords
    >>> hat = sympy.Matrix([[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]])
    >>> certify_casimir(m1**2 + m2**2 + m3**2, hat, M).holds
    True
    >>> certify_casimir(m1**2, hat, M).counterexample["component"] in ("m2", "m3")
    True
    """
    who = "certify_casimir"
    chart = _check_chart(chart, who)
    P = _tensor(P, chart, who)
    C = _function(C, chart, who, "the Casimir")
    residual = _casimir_residual(C, P, chart)
    decision = decide_all_zero(residual, domain=chart.domain)
    D = Derivation(r"$C$ is a Casimir of $P$: $P\,\nabla C = 0$")
    D = D.add(r"The function and the tensor are", r"C &= " + _show(C) + r" \\ P &= " + _show(P))
    D = D.add(r"The components of $P\,\nabla C$ are",
              r" \\ ".join(r"(P\nabla C)_{%s} &= %s" % (latex(x), _show(v)) for x, v in residual.items()))
    D = D.add(_verdict_text(decision))
    counterexample = None
    if decision.is_zero is False and decision.index is not None:
        counterexample = {"component": decision.index.name, **(point_by_name(decision.point) or {})}
    return Certificate.from_decision("P grad C == 0", decision, residual=residual, counterexample=counterexample,
                                     derivation=D)


def certify_preserves_casimir(phi: Map | ImplicitMap, C: Any, P: Any) -> Certificate:
    r"""Certify that ``phi`` preserves the Casimir ``C`` of ``P``: ``C o phi == C``.

    ``C`` is first checked to be a Casimir (:func:`certify_casimir`): provably not one raises,
    undecided gives an undecided certificate.

    Raises
    ------
    NotACasimirError
        ``P grad C`` is provably not zero (the message names the component and a point).

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("m1 m2 m3"); m1, m2, m3 = M.coords; h = sympy.Symbol("h")
    >>> hat = sympy.Matrix([[0, -m3, m2], [m3, 0, -m1], [-m2, m1, 0]])
    >>> euler = gc.Map(M, M, [m1, m2 + h * m1 * m3, m3 - h * m1 * m2])
    >>> c = certify_preserves_casimir(euler, m1**2 + m2**2 + m3**2, hat)
    >>> c.holds                        # explicit Euler lets |m|^2 grow by h^2 m1^2 (m2^2 + m3^2)
    False
    """
    who = "certify_preserves_casimir"
    _check_self_map(phi, who)
    chart = phi.source
    P = _tensor(P, chart, who)
    C = _function(C, chart, who, "the Casimir")
    claim = "C o phi == C"
    D = _map_step(Derivation(r"$\varphi$ preserves the Casimir $C$: $C\circ\varphi = C$"), phi)
    D = D.add(r"The Casimir is", r"C &= " + _show(C))
    casimir = decide_all_zero(_casimir_residual(C, P, chart), domain=chart.domain)
    if casimir.is_zero is False:
        raise NotACasimirError(
            f"{who}: {C} is not a Casimir of P: the component {casimir.index} of P grad C is not zero (at"
            f" {point_by_name(casimir.point)}); a function with P grad C == 0 was expected")
    if casimir.is_zero is None:
        return _undecided(claim, f"whether C is a Casimir of P was not decided ({casimir.method})", D)
    D = D.add(r"It is a Casimir of $P$ ($P\,\nabla C = 0$: " + tex_text(casimir.method) + ").")
    relations = (phi.dependence.relation,) if isinstance(phi, ImplicitMap) else ()
    residual = _after(phi, C) - C
    D = D.add(r"The residual, which must vanish, is", r"C\circ\varphi - C &= " + _show(residual))
    decision = decide_all_zero([residual], relations=relations, domain=chart.domain)
    D = D.add(_verdict_text(decision))
    return Certificate.from_decision(claim, decision, method=decision.method + "; C is a Casimir of P (" +
                                     casimir.method + ")", residual=residual, derivation=D)


#: up to this dimension the determinant is expanded by minors (sympy's methods expand or
#: simplify the entries, which hangs on the large entries of an implicit map's Jacobian)
_LAPLACE_MAX = 6


def _determinant(J: sympy.Matrix) -> sympy.Expr:
    """``det J`` as an unsimplified sum of products (Laplace expansion along the first row)."""
    n = J.rows
    if n > _LAPLACE_MAX:
        return J.det(method="berkowitz")

    def minor(rows, cols):
        if len(rows) == 1:
            return J[rows[0], cols[0]]
        terms = []
        for k, c in enumerate(cols):
            a = J[rows[0], c]
            if a != 0:
                sub = minor(rows[1:], cols[:k] + cols[k + 1:])
                if sub != 0:
                    terms.append((-1) ** k * a * sub)
        return sympy.Add(*terms)

    return minor(tuple(range(n)), tuple(range(n)))


def _density(density, chart, who) -> tuple:
    """``(rho, undecided)``: the density, and why it is not known to be nonzero somewhere (or None).

    A density proved identically zero on the domain is refused; one that may be (the zero
    test could not tell) leaves every identity about it vacuous, so no True verdict rests on it.
    """
    rho = _function(density, chart, who, "the density")
    decision = None if rho == 0 else decide_all_zero([rho], domain=chart.domain)
    if rho == 0 or decision.is_zero is True:
        raise InvalidArgumentError(f"{who}: the density {rho} is identically zero; a density that is not"
                                   " identically zero was expected (default 1: the volume dx)")
    if decision.is_zero is None:
        return rho, (f"the density {rho} could not be shown to be nonzero anywhere on the domain"
                     f" ({decision.method}): an identity about it could hold vacuously")
    return rho, None


def _unless_vacuous(certificate: Certificate, undecided: str | None) -> Certificate:
    """The certificate, with a True verdict withdrawn (None) when the density may vanish identically."""
    if undecided is None or certificate.holds is not True:
        return certificate
    return dataclasses.replace(certificate, holds=None, stage="unknown", witness=None, soundness=None,
                               method=f"{certificate.method}; but {undecided}")


def certify_volume_preserving(phi: Map | ImplicitMap, density: Any = 1) -> Certificate:
    r"""Certify ``rho(phi(x)) det D phi(x) == rho(x)``: phi preserves the volume ``rho dx``.

    Parameters
    ----------
    phi : Map or ImplicitMap
        From a chart to itself.
    density : sympy expression, optional
        ``rho`` on the chart (default 1: ``det D phi == 1``); not identically zero.

    Raises
    ------
    InvalidArgumentError
        The density is identically zero, or has floating-point numbers.

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("u v"); u, v = M.coords; h = sympy.Symbol("h")
    >>> shear = gc.Map(M, M, [u, v * sympy.exp(h * u)])        # a Lotka-Volterra sub-flow
    >>> certify_volume_preserving(shear).holds                 # det = exp(h u): not for dx
    False
    >>> certify_volume_preserving(shear, 1 / (u * v)).holds    # but for du dv / (u v)
    True
    """
    who = "certify_volume_preserving"
    _check_self_map(phi, who)
    chart = phi.source
    rho, undecided = _density(density, chart, who)
    J, relations = _jacobian(phi)
    det = _determinant(J)
    residual = _after(phi, rho) * det - rho
    D = _map_step(Derivation(r"$\varphi$ preserves the volume $\rho\,dx$: $\rho(\varphi(x))\det D\varphi = \rho(x)$"),
                  phi)
    D = D.add(r"The density is", r"\rho &= " + _show(rho))
    D = D.add(r"The Jacobian determinant is", r"\det D\varphi &= " + _show(det))
    D = D.add(r"The residual, which must vanish, is", r"(\rho\circ\varphi)\det D\varphi - \rho &= " + _show(residual))
    decision = decide_all_zero([residual], relations=relations, domain=chart.domain)
    D = D.add(_verdict_text(decision))
    return _unless_vacuous(Certificate.from_decision("rho(phi) det D phi == rho", decision, residual=residual,
                                                     derivation=D), undecided)


def certify_divergence_free(X: VectorField, density: Any = 1) -> Certificate:
    r"""Certify ``div(rho X) == sum_i d_i(rho X^i) == 0``: the flow of X preserves ``rho dx``.

    Parameters
    ----------
    X : VectorField
    density : sympy expression, optional
        ``rho`` on X's chart (default 1); not identically zero.

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("u v"); u, v = M.coords
    >>> lv = gc.VectorField(M, [u * (v - 2), v * (1 - u)])     # HLW's Lotka-Volterra system
    >>> certify_divergence_free(lv).holds
    False
    >>> certify_divergence_free(lv, 1 / (u * v)).holds
    True
    """
    who = "certify_divergence_free"
    if not isinstance(X, VectorField):
        raise ExpressionError(f"{who} expects a geomcheck VectorField, got {type(X).__name__} {X!r}")
    chart = _check_chart(X.chart, who)
    rho, undecided = _density(density, chart, who)
    for x in chart.coords:
        _exact(sympy.sympify(X.component(x)), f"the component X^{x} =", who)
    residual = sympy.Add(*[diff(rho * X.component(x), x) for x in chart.coords])
    D = Derivation(r"The flow of $X$ preserves $\rho\,dx$: $\operatorname{div}(\rho X) = 0$")
    D = D.add(r"The field and the density are", r"X &= " + _show(X) + r" \\ \rho &= " + _show(rho))
    D = D.add(r"The divergence, which must vanish, is", r"\sum_i \partial_i(\rho X^i) &= " + _show(residual))
    decision = decide_all_zero([residual], domain=chart.domain)
    D = D.add(_verdict_text(decision))
    return _unless_vacuous(Certificate.from_decision("div(rho X) == 0", decision, residual=residual, derivation=D),
                           undecided)
