"""Order and symmetry of one-step maps, explicit or implicit.

Order: the Taylor coefficients in h of ``phi_h(x)`` are compared with those of the
exact flow ``exp(h X) x = sum_k h^k/k! X^k(x)`` (the Lie series).  For an implicit
map the solution ``u(h)`` of ``F(x, u, h) = 0`` is expanded order by order: the
h^k coefficient of F is linear in the k-th coefficient of u, with the matrix
``F_u`` at h = 0, solved by one sparse linear solve per order.

Symmetry: ``phi_h o phi_{-h} = id``, decided exactly for explicit maps and on the
solution manifold of the composite for implicit ones.

>>> import geomcheck as gc, sympy
>>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
>>> X = gc.VectorField(M, {q: p, p: -q})
>>> euler = gc.Map(M, M, [q + h * p, p - h * q])
>>> gc.map_order(euler, X, h)
1
>>> gc.certify_symmetric(euler, h).holds
False
"""

from __future__ import annotations

from math import factorial

import sympy

from ..calculus import diff
from ..errors import ChartMismatchError, ExpressionError, InvalidArgumentError
from ..fields import VectorField
from ..latex import Derivation, latex
from ..maps import ImplicitMap, Map, compose, substitute
from ..zero import decide_all_zero
from .certificate import Certificate

__all__ = ["taylor_coefficients", "flow_coefficients", "certify_order", "map_order", "certify_symmetric"]


def _check(phi, X, h):
    if not isinstance(phi, (Map, ImplicitMap)):
        raise ExpressionError(f"expected a Map or ImplicitMap, got {type(phi).__name__}")
    if not isinstance(h, sympy.Symbol):
        raise ExpressionError(f"the step must be a sympy Symbol, got {h!r}")
    if X is not None:
        if not isinstance(X, VectorField):
            raise ExpressionError(f"expected the system's VectorField, got {type(X).__name__}")
        if X.chart != phi.source or phi.source.dim != phi.target.dim:
            raise ChartMismatchError(
                f"the field lives on {X.chart!r}; the map goes {phi.source!r} -> {phi.target!r}:"
                " a map of the field's chart to itself was expected"
            )


def _at_zero(expr, h):
    return substitute(expr, {h: sympy.S.Zero})


def taylor_coefficients(phi, h, order: int) -> list:
    """``[c_0, ..., c_order]`` with ``phi_h(x) = sum_k h^k c_k(x)``, one list per target coordinate."""
    if isinstance(phi, Map):
        out = []
        for e in phi.exprs:
            coeffs, de = [], e
            for k in range(order + 1):
                coeffs.append(_at_zero(de, h) / factorial(k))
                de = diff(de, h)
            out.append(coeffs)
        return out
    return _implicit_taylor(phi, h, order)


def _implicit_taylor(psi: ImplicitMap, h, order: int) -> list:
    """Order-by-order solution of F(x, u(h), h) = 0 around u(0) = the map's guess."""
    from ..linalg import SingularSystem, solve_sparse

    unknowns = psi.unknowns
    u0 = [psi.guess[u] for u in unknowns]
    at0 = {**dict(zip(unknowns, u0)), h: sympy.S.Zero}
    start = decide_all_zero([substitute(F, at0) for F in psi.equations])
    if start.is_zero is not True:
        raise InvalidArgumentError(
            "the implicit map's guess does not solve its equations at h = 0, so its expansion in h has"
            f" no starting point ({start.method}); pass guess= with the h = 0 solution"
        )
    rows = []
    for F in psi.equations:
        row = {}
        for j, u in enumerate(unknowns):
            v = substitute(diff(F, u), at0)
            if v != 0:
                row[j] = v
        rows.append(row)
    z = [sympy.Dummy("z%d" % j) for j in range(len(unknowns))]
    coeffs = [[c] for c in u0]
    for k in range(1, order + 1):
        series = {u: sum((coeffs[j][i] * h**i for i in range(k)), sympy.S.Zero) + z[j] * h**k
                  for j, u in enumerate(unknowns)}
        rhs = []
        for F in psi.equations:
            Fk = substitute(F, series)
            for _ in range(k):
                Fk = diff(Fk, h)
            Rk = substitute(Fk, {h: sympy.S.Zero, **{zj: sympy.S.Zero for zj in z}}) / factorial(k)
            rhs.append(-Rk)
        try:
            (sol,) = solve_sparse(rows, [rhs], len(unknowns))
        except SingularSystem:
            raise InvalidArgumentError("F_u is singular at h = 0: the implicit map has no expansion in h") from None
        for j in range(len(unknowns)):
            coeffs[j].append(sol[j])
    return [coeffs[unknowns.index(u)] for u in psi.new]


def flow_coefficients(X: VectorField, order: int) -> list:
    """``[x_i, X(x_i), X^2(x_i)/2!, ...]``: the Lie series of the exact flow, per coordinate."""
    out = []
    for x in X.chart.coords:
        coeffs, term = [x], x
        for k in range(1, order + 1):
            term = X.apply_expr(term)
            coeffs.append(term / factorial(k))
        out.append(coeffs)
    return out


def certify_order(phi, X: VectorField, h, order: int) -> Certificate:
    """Certify that ``phi_h`` agrees with the flow of X to order ``order``: local error O(h^(order+1)).

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> X = gc.VectorField(M, {q: p, p: -sympy.sin(q)})
    >>> Q, P = sympy.symbols("Q P")
    >>> mid = gc.ImplicitMap(M, M, [Q - q - h*(p + P)/2, P - p + h*sympy.sin((q + Q)/2)], new=[Q, P])
    >>> gc.certify_order(mid, X, h, 2).holds, gc.certify_order(mid, X, h, 3).holds
    (True, False)
    """
    _check(phi, X, h)
    if not isinstance(order, int) or order < 1:
        raise InvalidArgumentError(f"order must be an integer >= 1, got {order!r}")
    got = taylor_coefficients(phi, h, order)
    want = flow_coefficients(X, order)
    residuals = {}
    for i, x in enumerate(phi.source.coords):
        for k in range(1, order + 1):
            residuals[(str(x), k)] = got[i][k] - want[i][k]
    # the Taylor coefficients of an implicit map are explicit in x: no relation needed
    decision = decide_all_zero(residuals)
    D = Derivation(rf"The map has order {order}: $\varphi_h(x) - \exp(hX)(x) = O(h^{{{order + 1}}})$")
    D = D.add(r"The exact flow's Lie series is $\exp(hX)x = \sum_k \frac{h^k}{k!} X^k(x)$ with", r"X &= " + latex(X))
    rows = []
    for i, x in enumerate(phi.source.coords):
        for k in range(1, order + 1):
            if sympy.count_ops(got[i][k]) < 200:
                rows.append(rf"[h^{{{k}}}]\,\varphi_h({latex(x)}) &= {latex(got[i][k])}")
    if rows:
        D = D.add("The Taylor coefficients of the map are", r"\\ ".join(rows))
    point = decision.point if decision.is_zero is False else None
    method = decision.method
    if decision.is_zero is False:
        method = f"the coefficient {decision.index} differs from the exact flow's: " + method
    return Certificate(
        claim=f"order >= {order}", holds=decision.is_zero, method=method, stage=decision.stage,
        residual=residuals, counterexample=point, derivation=D,
    )


def map_order(phi, X: VectorField, h, max_order: int = 6):
    """The order of ``phi_h`` as an approximation of the flow of X (None if undecided).

    The largest p <= max_order whose coefficients all agree, confirmed by a nonzero
    h^(p+1) coefficient; ``max_order`` if all agree up to it.
    """
    _check(phi, X, h)
    for p in range(1, max_order + 1):
        c = certify_order(phi, X, h, p)
        if c.holds is False:
            return p - 1
        if c.holds is None:
            return None
    return max_order


def certify_symmetric(phi, h) -> Certificate:
    """Certify ``phi_h o phi_{-h} = id`` (the map is its own adjoint).

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> V = sympy.Function("V")
    >>> ph = p - h / 2 * V(q).diff(q)
    >>> Q = q + h * ph
    >>> verlet = gc.Map(M, M, [Q, ph - h / 2 * gc.substitute(V(q).diff(q), {q: Q})])
    >>> gc.certify_symmetric(verlet, h).holds
    True
    """
    _check(phi, None, h)
    if phi.source != phi.target:
        raise ChartMismatchError(f"symmetry compares a map with its inverse: {phi.source!r} -> {phi.target!r} is not a self-map")
    if isinstance(phi, Map):
        backward = Map(phi.source, phi.target, [substitute(e, {h: -h}) for e in phi.exprs], parameters=phi.parameters)
    else:
        fresh = {u: sympy.Dummy(u.name) for u in phi.unknowns}
        eqs = [substitute(e, {h: -h, **fresh}) for e in phi.equations]
        backward = ImplicitMap(phi.source, phi.target, eqs, new=[fresh[u] for u in phi.new],
                               auxiliary=[fresh[u] for u in phi.auxiliary], parameters=phi.parameters,
                               guess={fresh[u]: g for u, g in phi.guess.items()}, step=phi.step)
    both = compose(phi, backward)
    D = Derivation(r"The map is symmetric: $\varphi_h \circ \varphi_{-h} = \mathrm{id}$")
    D = D.add(r"The map $\varphi_h$ is", latex(phi))
    if isinstance(both, Map):
        residual = {str(x): e - x for x, e in zip(phi.source.coords, both.exprs)}
        decision = decide_all_zero(residual)
    else:
        residual = {str(x): u - x for x, u in zip(phi.source.coords, both.new)}
        decision = decide_all_zero(residual, relations=(both.dependence.relation,))
    return Certificate(
        claim="phi_h o phi_{-h} == id", holds=decision.is_zero, method=decision.method, stage=decision.stage,
        residual=residual, counterexample=decision.point if decision.is_zero is False else None, derivation=D,
    )
