"""The algebraic laws of B-series: composition, inverse, adjoint, substitution, exp and log.

All exact (in the common arithmetic of the series' coefficients, see
:func:`geomcheck.bseries.series.aligned`), and truncated at the smallest order of the inputs.
Each is a sum over the cuts of labelled trees of :mod:`geomcheck.bseries.tree_ops`:

* :func:`compose` -- the Butcher group: ``B(b, B(a, y)) = B(compose(a, b), y)``, i.e. the
  method ``a`` followed by ``b`` (Hairer, Lubich, Wanner III.1.4, Theorem 1.10):
  ``(a b)(t) = sum over root subtrees s of t of b(s) prod a(pieces of t \\ s)``;
* :func:`inverse`, :func:`adjoint` -- in that group; ``adjoint(a)(t) = (-1)^|t| inverse(a)(t)``
  is the series of the adjoint method ``Phi*_h = Phi_{-h}^{-1}`` (HLW II.3);
* :func:`substitute` -- ``B(a, .)`` applied to the vector field ``h f~ = B(b)`` instead of
  ``h f``: ``(b * a)(t) = sum over edge sets of t of a(skeleton) prod b(pieces)`` (Chartier,
  Hairer, Vilmart, *Algebraic structures of B-series*, FoCM 2010);
* :func:`exponential` -- the exact time-``h`` flow of a vector-field series ``B(b)``;
  :func:`logarithm` -- its inverse, the modified vector field of a method (HLW IX.9):
  both through the Lie derivative ``(D_b a)(t) = a(∅) b(t) + sum over edges of t of
  a(root part) b(cut part)``, since the flow is ``exp(D_b) 1``.

Examples
--------
>>> from geomcheck.bseries.methods import exact_flow, runge_kutta
>>> import sympy
>>> midpoint = runge_kutta([[sympy.Rational(1, 2)]], [1], order=5)   # implicit midpoint rule
>>> adjoint(midpoint) == midpoint                                      # symmetric
True
>>> compose(midpoint, inverse(midpoint)) == identity(5)
True
>>> euler = runge_kutta([[0]], [1], order=4)
>>> f = logarithm(euler)                                     # its modified equation
>>> [str(c) for _, c in f.items()][:4]
['1', '-1/2', '1/6', '1/3']
>>> exponential(f) == euler
True
"""

from __future__ import annotations

import math

from ..certify.trees import trees_of_order, trees_up_to
from ..errors import BSeriesError
from .series import BSeries, aligned
from .tree_ops import leaf, partitions, root_subtrees, single_cuts

__all__ = ["identity", "compose", "inverse", "adjoint", "substitute", "exponential", "logarithm",
           "solve_substitution"]


def _series(x, what: str) -> BSeries:
    if not isinstance(x, BSeries):
        raise BSeriesError(f"{what} must be a BSeries, not {type(x).__name__} "
                           f"(geomcheck.bseries.series_of converts methods)")
    return x


def _require_method(a: BSeries, what: str):
    if a.domain.is_zero(a.empty_element - a.domain.one):
        return
    raise BSeriesError(f"{what} must be a method or a flow (coefficient 1 of the empty tree), but "
                       f"{a.name or 'the series'} has a(∅) = {a.empty}")


def _require_field(b: BSeries, what: str):
    if not b.is_vector_field:
        raise BSeriesError(f"{what} must be a vector field series (coefficient 0 of the empty tree), but "
                           f"{b.name or 'the series'} has a(∅) = {b.empty}")


def _product(get, trees, one):
    acc = one
    for u in trees:
        x = get(u)
        if not x:
            return None
        acc = acc * x
    return acc


def _table_sum(rows, outer, inner, dom):
    """``sum m * outer(key) * prod inner(pieces)`` over a table of tree cuts ``[(key, pieces, m)]``."""
    acc = dom.zero
    for key, pieces, m in rows:
        x = outer(key)
        if not x:
            continue
        prod = _product(inner, pieces, dom.one)
        if prod is not None:
            acc = acc + m * x * prod
    return acc


def identity(order: int, colours: int = 1) -> BSeries:
    """The identity map: ``a(∅) = 1`` and ``a(t) = 0`` for every tree.

    >>> identity(3).items()[0][1]
    0
    """
    return BSeries({}, order, empty=1, colours=colours, name="identity")


def compose(a: BSeries, b: BSeries) -> BSeries:
    """The method ``a`` followed by ``b``: ``B(b, B(a, y)) = B(compose(a, b), y)``.

    Parameters
    ----------
    a : BSeries
        A method or flow (``a(∅) = 1``).
    b : BSeries
        Any series (a method, or a vector field evaluated at ``B(a, y)``).

    Examples
    --------
    >>> from geomcheck.bseries.methods import exact_flow
    >>> two_steps = compose(exact_flow(4), exact_flow(4))    # the flow over 2h
    >>> [str(c) for _, c in two_steps.items()]
    ['2', '2', '8/3', '4/3', '4', '2', '4/3', '2/3']
    """
    a, b = _series(a, "the first method"), _series(b, "the second series")
    _require_method(a, "the first series of a composition")
    dom, (A, B) = aligned([a, b])
    p = min(a.order, b.order)
    outer = lambda s: B.empty if s is None else B.get(s)  # noqa: E731 - the empty subtree is b(∅)
    out = {t: _table_sum(root_subtrees(t), outer, A.get, dom) for t in trees_up_to(p, a.colours)}
    return BSeries.from_elements(dom, out, p, empty=B.empty, colours=a.colours)


def inverse(a: BSeries) -> BSeries:
    """The inverse in the Butcher group: ``compose(a, inverse(a))`` is the identity.

    >>> from geomcheck.bseries.methods import exact_flow
    >>> back = inverse(exact_flow(3))                       # the flow over -h
    >>> [str(c) for _, c in back.items()]
    ['-1', '1/2', '-1/3', '-1/6']
    """
    a = _series(a, "the method")
    _require_method(a, "a method to invert")
    dom = a.domain
    one, zero = dom.one, dom.zero
    get = a.element
    x: dict = {}
    for t in trees_up_to(a.order, a.colours):
        acc = get(t)                 # the term of the empty subtree: x(∅) a(t)
        for s, forest, m in root_subtrees(t):
            if s is None or (s is t and not forest):
                continue             # the empty subtree (above) and x(t) itself (solved for)
            xs = x.get(s)
            if not xs:
                continue
            pa = _product(get, forest, one)
            if pa is not None:
                acc = acc + m * xs * pa
        x[t] = zero - acc
    return BSeries.from_elements(dom, x, a.order, empty=one, colours=a.colours,
                                 name=None if a.name is None else f"inverse of {a.name}")


def adjoint(a: BSeries) -> BSeries:
    """The series of the adjoint method ``Phi*_h = (Phi_{-h})^{-1}``: ``(-1)^|t| inverse(a)(t)``.

    A method is symmetric exactly when it equals its adjoint.

    >>> from geomcheck.bseries.methods import runge_kutta
    >>> adjoint(runge_kutta([[0]], [1], order=4)) == runge_kutta([[1]], [1], order=4)  # Euler's adjoint
    True
    """
    inv = inverse(a)
    dom = inv.domain
    out = {t: (x if t.order % 2 == 0 else dom.zero - x) for t, x in inv.nonzero_elements().items()}
    return BSeries.from_elements(dom, out, inv.order, empty=dom.one, colours=a.colours,
                                 name=None if a.name is None else f"adjoint of {a.name}")


def substitute(b: BSeries, a: BSeries) -> BSeries:
    """The method ``a`` applied to the vector field ``h f~ = B(b)`` (the substitution law ``b * a``).

    Parameters
    ----------
    b : BSeries
        A vector field series (``b(∅) = 0``), e.g. a modified equation.
    a : BSeries
        Any series (a method, a flow, or a vector field).

    Examples
    --------
    >>> from geomcheck.bseries.methods import exact_flow
    >>> f = logarithm(exact_flow(4))                         # the vector field itself: b(τ) = 1
    >>> substitute(f, exact_flow(4)) == exact_flow(4)
    True
    """
    b, a = _series(b, "the substituted field"), _series(a, "the series substituted into")
    _require_field(b, "the substituted series")
    dom, (B, A) = aligned([b, a])
    p = min(a.order, b.order)
    out = {t: _table_sum(partitions(t), A.get, B.get, dom) for t in trees_up_to(p, a.colours)}
    return BSeries.from_elements(dom, out, p, empty=A.empty, colours=a.colours)


def _lie_power_term(prev: dict, b_get, t):
    """``(D_b^k 1)(t) = sum over edges of t of (D_b^{k-1} 1)(root part) b(cut part)``, for k >= 2."""
    acc = None
    for s, u, m in single_cuts(t):
        ps = prev.get(s)
        if not ps:
            continue
        bu = b_get(u)
        if not bu:
            continue
        term = m * ps * bu
        acc = term if acc is None else acc + term
    return acc


def exponential(b: BSeries) -> BSeries:
    """The exact time-``h`` flow of the vector field ``B(b)`` (``b(∅) = 0``).

    >>> from geomcheck.certify.trees import trees_of_order
    >>> tau, = trees_of_order(1)
    >>> flow = exponential(BSeries({tau: 1}, 4, empty=0))
    >>> [str(c) for _, c in flow.items()]                    # 1/gamma(t)
    ['1', '1/2', '1/3', '1/6', '1/4', '1/8', '1/12', '1/24']
    """
    b = _series(b, "the vector field")
    _require_field(b, "the series to exponentiate")
    dom = b.domain
    get = b.element
    powers: list = [None, {t: x for t, x in b.nonzero_elements().items()}]   # D_b^k 1, k = 1, 2, ...
    out = dict(powers[1])
    for n in range(2, b.order + 1):
        while len(powers) <= n:
            powers.append({})
        for t in trees_of_order(n, b.colours):
            acc = out.get(t, dom.zero)
            for k in range(2, n + 1):
                v = _lie_power_term(powers[k - 1], get, t)
                if v is not None:
                    powers[k][t] = v
                    acc = acc + dom.const(1, math.factorial(k)) * v
            out[t] = acc
    return BSeries.from_elements(dom, out, b.order, empty=dom.one, colours=b.colours,
                                 name=None if b.name is None else f"flow of {b.name}")


def logarithm(a: BSeries) -> BSeries:
    """The vector field series whose exact time-``h`` flow is ``a`` (``a(∅) = 1``).

    For a method this is its modified equation (backward error analysis, HLW IX.9): the
    method is the exact flow of ``h f~ = B(logarithm(a))`` up to the truncation order.

    >>> from geomcheck.bseries.methods import exact_flow
    >>> [str(c) for _, c in logarithm(exact_flow(3)).items()]
    ['1', '0', '0', '0']
    """
    a = _series(a, "the method")
    _require_method(a, "a method whose logarithm is taken")
    dom = a.domain
    b: dict = {}
    get = a.element
    powers: list = [None, b]
    for n in range(1, a.order + 1):
        while len(powers) <= n:
            powers.append({})
        for t in trees_of_order(n, a.colours):
            acc = get(t)
            for k in range(2, n + 1):
                v = _lie_power_term(powers[k - 1], b.get, t)
                if v is not None:
                    powers[k][t] = v
                    acc = acc - dom.const(1, math.factorial(k)) * v
            if acc:
                b[t] = acc
    return BSeries.from_elements(dom, dict(b), a.order, empty=dom.zero, colours=a.colours,
                                 name=None if a.name is None else f"modified equation of {a.name}")


def solve_substitution(a: BSeries, target: BSeries) -> BSeries:
    """The vector field ``b`` with ``substitute(b, a) == target`` (both ``a(∅) = target(∅) = 1``).

    ``a`` must be consistent: ``a(τ) = 1`` for the one-vertex trees (of each colour).  With
    ``target`` the exact flow this is the modifying integrator of ``a`` (Chartier, Hairer,
    Vilmart 2007).
    """
    a, target = _series(a, "the method"), _series(target, "the target series")
    _require_method(a, "the method of a modifying integrator")
    dom, (A, T) = aligned([a, target])
    p = min(a.order, target.order)
    one, zero = dom.one, dom.zero
    leaves = {}
    for c in range(a.colours):
        if p >= 1:
            lv = A.get(leaf(c, a.colours))
            if not lv:
                raise BSeriesError(f"{a.name or 'the method'} is not consistent: its coefficient of the one-vertex "
                                   f"tree{'' if a.colours == 1 else f' of colour {c}'} is 0, so no vector field "
                                   f"substituted into it reaches the target")
            leaves[c] = one / lv
    x: dict = {}
    for t in trees_up_to(p, a.colours):
        acc = T.get(t)
        for skeleton, pieces, m in partitions(t):
            if skeleton.order == 1:
                continue                 # the single piece t itself: a(leaf) x(t), solved for
            ak = A.get(skeleton)
            if not ak:
                continue
            pb = _product(lambda u: x.get(u, zero), pieces, one)
            if pb is not None:
                acc = acc - m * ak * pb
        if acc:
            x[t] = acc * leaves[t.colour]
    return BSeries.from_elements(dom, x, p, empty=zero, colours=a.colours)
