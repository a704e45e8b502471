"""Modified equations: the vector field whose exact flow a one-step map follows.

With ``phi_h(x) = x + sum_k h^k d_k(x)`` and the modified field
``X~ = F_1 + h F_2 + h^2 F_3 + ...``, equating ``exp(h X~) x`` with ``phi_h(x)`` order
by order gives (Hairer, Lubich & Wanner, GNI IX.1)::

    F_k(x) = d_k(x) - sum_{m >= 2} 1/m! sum_{j_1 + .. + j_m = k} F_j1 F_j2 ... F_jm (x)

(the compositions of derivations applied to the coordinate functions).  For a
symplectic map every F_k is Hamiltonian, ``i_{F_k} omega = dH_k``, and
``H~ = H_1 + h H_2 + h^2 H_3 + ...`` is conserved by the map to one order more
than it was built to; :func:`modified_hamiltonian` certifies exactly that.

>>> import geomcheck as gc, sympy
>>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
>>> verlet = gc.Map(M, M, [q + h * p - h**2 * q / 2, (1 - h**2 / 2) * p - h * q + h**3 * q / 4])
>>> [F(q) for F in gc.modified_vector_field(verlet, h, 3)]   # F_2 = 0: the method is symmetric
[p, 0, p/6]
"""

from __future__ import annotations

from functools import lru_cache
from math import factorial

import sympy

from ..caches import register
from ..errors import ChartMismatchError, ExpressionError, InvalidArgumentError, NotClosedError
from ..fields import VectorField
from ..forms import Form, interior, is_closed, primitive
from ..latex import Derivation, latex
from ..maps import ImplicitMap, Map, substitute
from ..zero import decide_all_zero
from .certificate import Certificate
from .order import taylor_coefficients

__all__ = ["modified_vector_field", "modified_hamiltonian"]


#: one entry per (order, number of parts): an expansion to order k needs k**2 / 2 of them
@lru_cache(maxsize=1024)
def _compositions(k: int, m: int) -> tuple:
    """Ordered tuples of m positive integers summing to k."""
    if m == 1:
        return ((k,),)
    return tuple((j,) + rest for j in range(1, k - m + 2) for rest in _compositions(k - j, m - 1))


def modified_vector_field(phi: Map | ImplicitMap, h: sympy.Symbol, order: int) -> list[VectorField]:
    """``[F_1, ..., F_order]``: the modified field ``sum_k h^(k-1) F_k`` of the map, truncated.

    Parameters
    ----------
    phi : Map or ImplicitMap
        A one-step map of a chart to itself, ``phi_0 = id``.
    h : Symbol
        The step size.
    order : int
        How many terms (the modified field is then exact to ``O(h^order)``).
    """
    if not isinstance(phi, (Map, ImplicitMap)):
        raise ExpressionError(f"modified_vector_field expects a Map or ImplicitMap, got {type(phi).__name__}")
    if phi.source != phi.target:
        raise ChartMismatchError(f"modified equations need a self-map, got {phi.source!r} -> {phi.target!r}")
    if not isinstance(order, int) or order < 1:
        raise InvalidArgumentError(f"order must be an integer >= 1, got {order!r}")
    chart = phi.source
    coeffs = taylor_coefficients(phi, h, order)
    start = decide_all_zero([c[0] - x for c, x in zip(coeffs, chart.coords)])
    if start.is_zero is not True:
        raise InvalidArgumentError(f"the map is not the identity at h = 0 ({start.method}); a one-step map was expected")
    fields = {}
    applied = {}  # (j1, .., jm, i) -> F_j1(F_j2(... F_jm(x_i)))

    def chain(js, i):
        key = js + (i,)
        if key not in applied:
            inner = fields[js[-1]].component(chart.coords[i]) if len(js) == 1 else chain(js[1:], i)
            applied[key] = inner if len(js) == 1 else fields[js[0]].apply_expr(inner)
        return applied[key]

    for k in range(1, order + 1):
        comps = []
        for i in range(chart.dim):
            parts = [coeffs[i][k]]
            for m in range(2, k + 1):
                for js in _compositions(k, m):
                    parts.append(-chain(js, i) / factorial(m))
            comps.append(sympy.expand(sympy.Add(*parts)) if not any(p.has(sympy.Function) for p in parts)
                         else sympy.Add(*parts))
        fields[k] = VectorField(chart, comps)
    return [fields[k] for k in range(1, order + 1)]


def modified_hamiltonian(phi: Map | ImplicitMap, omega: Form, h: sympy.Symbol,
                         order: int) -> tuple[sympy.Expr, Certificate]:
    """The modified Hamiltonian ``H~ = sum_k h^(k-1) H_k`` of a symplectic map, and a certificate.

    Each ``H_k`` is a primitive of the closed 1-form ``i_{F_k} omega`` (homotopy
    operator on a star-shaped chart); the certificate states that the map conserves
    ``H~`` up to ``O(h^(order+1))``: the h^1 .. h^order Taylor coefficients of
    ``H~(phi_h(x)) - H~(x)`` vanish.

    Returns
    -------
    (H~, Certificate)

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> ph = p - h / 2 * q**3
    >>> Q = q + h * ph
    >>> verlet = gc.Map(M, M, [Q, ph - h / 2 * Q**3])
    >>> Ht, cert = gc.modified_hamiltonian(verlet, M.d(q) ^ M.d(p), h, 3)
    >>> sympy.expand(Ht.coeff(h, 0)), cert.holds
    (p**2/2 + q**4/4, True)
    """
    if not isinstance(omega, Form) or omega.degree != 2:
        raise ExpressionError(f"modified_hamiltonian expects the symplectic 2-form, got {omega!r}")
    fields = modified_vector_field(phi, h, order)
    terms = []
    D = Derivation(r"The modified Hamiltonian $\tilde H = \sum_k h^{k-1} H_k$")
    for k, F in enumerate(fields, start=1):
        alpha = interior(F, omega)
        if alpha.terms and is_closed(alpha) is False:
            raise NotClosedError(
                f"i_F{k} omega = {alpha} is not closed: the map is not symplectic, so it has no modified Hamiltonian"
            )
        Hk = primitive(alpha, check=False).terms.get((), sympy.S.Zero)
        if Hk.has(sympy.Integral):
            raise ExpressionError(f"H_{k} has no closed form here (the radial integral of {alpha} stays unevaluated)")
        terms.append(h ** (k - 1) * Hk)
        D = D.add(rf"$F_{{{k}}}$ is Hamiltonian with", rf"H_{{{k}}} &= " + latex(Hk))
    Ht = sympy.Add(*terms)
    # conservation to the next order: Taylor coefficients of H~(phi_h) - H~ in h vanish to h^order
    chart = phi.source
    after = substitute(Ht, phi.substitution() if isinstance(phi, Map) else {})
    if isinstance(phi, ImplicitMap):
        series = taylor_coefficients(phi, h, order)
        after = substitute(Ht, {x: sum((c[j] * h**j for j in range(order + 1)), sympy.S.Zero)
                                for x, c in zip(chart.coords, series)})
    residual = sympy.expand(after - Ht) if not after.has(sympy.Function) else after - Ht
    checks = {}
    e = residual
    for k in range(order + 1):
        checks[k] = substitute(e, {h: sympy.S.Zero}) / factorial(k)
        from ..calculus import diff

        e = diff(e, h)
    decision = decide_all_zero(checks)
    D = D.add(r"and the map conserves it: the coefficients of $h^0, \dots, h^{%d}$ in"
              r" $\tilde H\circ\varphi_h - \tilde H$ vanish." % order)
    cert = Certificate.from_decision(f"H~ o phi_h - H~ = O(h^{order + 1})", decision, residual=checks, factor=Ht,
                                     derivation=D)
    return Ht, cert


register("geomcheck.certify.modified", _compositions.cache_clear, lambda: _compositions.cache_info().currsize)
