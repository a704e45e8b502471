"""B-series of Rosenbrock methods (linearly implicit, with the exact Jacobian).

A Rosenbrock method for the autonomous system ``y' = f(y)`` (Hairer and Wanner, *Solving
Ordinary Differential Equations II*, IV.7, eq. (7.4)) takes ``s`` stages

    ``(I - h gamma_ii J) k_i = h f(y0 + sum_{j<i} alpha_ij k_j) + h J sum_{j<i} gamma_ij k_j``,
    ``y1 = y0 + sum_i b_i k_i``,   ``J = f'(y0)``,

that is ``k_i = h f(g_i) + h J sum_{j<=i} gamma_ij k_j`` with ``g_i = y0 + sum_{j<i} alpha_ij k_j``:
one linear solve per stage, no Newton iteration.  With the *exact* Jacobian ``J = f'(y0)``
every stage is a B-series ``k_i = B(K_i, y0)`` (``K_i(∅) = 0``), and so is the step.

The recursion
-------------
With the normalisation of :mod:`geomcheck.bseries.series` (``B(a, y) = a(∅) y + sum_t h^|t| /
sigma(t) a(t) F(t)(y)``, HLW III.1):

* ``h f(B(G))`` for ``G(∅) = 1`` is the series ``t = [t_1 ... t_m] -> G(t_1) ... G(t_m)``
  (HLW III, Lemma 1.9); here ``G = G_i``, ``G_i(u) = sum_{j<i} alpha_ij K_j(u)``;
* ``h J B(c)`` for ``c(∅) = 0`` is ``h f'(y0) sum_u h^|u| / sigma(u) c(u) F(u) = sum_u
  h^(|u|+1) / sigma([u]) c(u) F([u])`` (``sigma([u]) = sigma(u)``): it contributes only to the
  trees ``[u]`` whose root has exactly one child, with coefficient ``c(u)``.

Hence ``K_i(τ) = 1`` and, for ``t = [t_1 ... t_m]``,

    ``K_i(t) = prod_{k=1}^m (sum_{j<i} alpha_ij K_j(t_k))  +  [m = 1] sum_{j<=i} gamma_ij K_j(t_1)``,

and the method's series is ``a(∅) = 1``, ``a(t) = sum_i b_i K_i(t)``.  ``K_i(t)`` needs only
``K_j`` of smaller trees (the diagonal ``gamma_ii`` multiplies ``K_i(t_1)``, ``|t_1| < |t|``),
so the recursion is explicit.  On the linear test equation only the tall trees
``[[...[τ]...]]`` survive: ``a(tall_n) = b^T (alpha + gamma)^(n-1) 1``, the coefficients of the
stability function ``R(z) = 1 + z b^T (I - z (alpha + gamma))^(-1) 1``.

W-methods are not B-series methods
----------------------------------
If ``J`` is replaced by an arbitrary matrix ``W`` (a W-method, Steihaug and Wolfbrandt 1979;
HW IV.7), the step depends on ``W`` as well as on ``f``: its expansion needs trees with a
second kind of vertex for ``W`` (W-trees / TW-trees), and the order conditions are more
numerous than the ones checked here.  This module describes only ``W = J = f'(y0)`` exactly;
no function here builds a series for a W-method, and the order :func:`~geomcheck.bseries.order_of`
reports for ``rosenbrock(...)`` is the order *with the exact Jacobian*.

>>> import sympy
>>> from geomcheck.bseries.properties import order_of
>>> g = 1 + 1 / sympy.sqrt(2)                     # ROS2 (Verwer et al. 1999), written as (7.4)
>>> ros2 = rosenbrock([[0, 0], [1, 0]], [[g, 0], [-2 * g, g]], [sympy.Rational(1, 2), sympy.Rational(1, 2)],
...                   order=4, name="ROS2")
>>> order_of(ros2).order
2
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..certify.tableau_arithmetic import parametric_domain_for
from ..certify.trees import trees_up_to
from ..errors import BSeriesError
from .methods import exact_matrix, exact_vector
from .series import BSeries

__all__ = ["rosenbrock"]


def _must_vanish(dom, x, owner: str, where: str, why: str) -> None:
    """Refuse an entry that must be zero unless it is proved zero in the arithmetic ``dom``."""
    verdict = dom.is_zero(x)
    if verdict is True:
        return
    shown = dom.short(x)
    if verdict is None:
        raise BSeriesError(f"{owner}: {where} = {shown} must be 0 ({why}) and could not be proved 0; "
                           f"give it as 0")
    raise BSeriesError(f"{owner}: {where} = {shown} must be 0 ({why})")


def rosenbrock(alpha: Sequence[Sequence[Any]], gamma: Sequence[Sequence[Any]], b: Sequence[Any], order: int, *,
               name: str | None = None) -> BSeries:
    """The B-series of a Rosenbrock method with the exact Jacobian ``J = f'(y0)`` (HW IV.7, eq. (7.4)).

    ``(I - h gamma_ii J) k_i = h f(y0 + sum_{j<i} alpha_ij k_j) + h J sum_{j<i} gamma_ij k_j``,
    ``y1 = y0 + sum_i b_i k_i``; the recursion for the stage series is derived in the module
    docstring.  Not for W-methods (``J`` replaced by an arbitrary ``W``): they are not B-series
    methods (see the module docstring).

    Parameters
    ----------
    alpha : s x s matrix
        Strictly lower triangular (the arguments of ``f``); exact numbers or free symbols.
    gamma : s x s matrix
        Lower triangular (the Jacobian terms), diagonal included; the diagonal need not be
        constant.  ``gamma = 0`` is the explicit Runge-Kutta method with ``A = alpha``.
    b : vector of s weights
    order : int
        The truncation order.
    name : str, optional

    Returns
    -------
    BSeries
        ``a(∅) = 1``, ``a(t) = sum_i b_i K_i(t)``, computed exactly in the arithmetic of all the
        entries (rationals, a number field such as ``Q(sqrt(3))``, rational functions of
        symbols).

    Raises
    ------
    BSeriesError
        ``alpha`` or ``gamma`` not square or of different sizes, ``b`` of the wrong length, a
        float or non-numeric entry, ``alpha`` not strictly lower triangular or ``gamma`` not
        lower triangular (the stages would be implicit in ``f``: not a Rosenbrock method), a bad
        order.

    Examples
    --------
    Shampine's ``ode23s`` (MATLAB; Shampine and Reichelt 1997), ``d = 1/(2 + sqrt(2))``: order 2.

    >>> import sympy
    >>> from geomcheck.bseries.properties import order_of
    >>> d = 1 / (2 + sympy.sqrt(2))
    >>> ode23s = rosenbrock([[0, 0], [sympy.Rational(1, 2), 0]], [[d, 0], [-d, d]], [0, 1], order=3)
    >>> c = order_of(ode23s)
    >>> c.order, str(c.failing_tree)
    (2, '[τ²]')

    The one-stage family ``k = h f(y0) + gamma h J k`` (linearly implicit Euler at
    ``gamma = 1``): the coefficients are polynomials in ``gamma``.

    >>> g = sympy.Symbol("gamma")
    >>> [str(c) for _, c in rosenbrock([[0]], [[g]], [1], order=3).items()]
    ['1', 'gamma', '0', 'gamma**2']
    """
    owner = f"rosenbrock({name})" if name else "rosenbrock"
    if isinstance(order, bool) or not isinstance(order, int) or order < 0:
        raise BSeriesError(f"{owner}: the truncation order must be a nonnegative integer, not {order!r}")
    al = exact_matrix(alpha, owner, "alpha", error=BSeriesError)
    s = len(al)
    ga = exact_matrix(gamma, owner, "gamma", size=("alpha", s), error=BSeriesError)
    bv = exact_vector(b, s, owner, error=BSeriesError)
    entries = [x for r in al for x in r] + [x for r in ga for x in r] + bv
    dom = parametric_domain_for(entries)
    A = [[dom.convert(x) for x in r] for r in al]
    G = [[dom.convert(x) for x in r] for r in ga]
    B = [dom.convert(x) for x in bv]
    for i in range(s):
        for j in range(i, s):
            _must_vanish(dom, A[i][j], owner, f"alpha[{i}][{j}]",
                         "alpha must be strictly lower triangular: f is evaluated only at earlier stages")
            if j > i:
                _must_vanish(dom, G[i][j], owner, f"gamma[{i}][{j}]",
                             "gamma must be lower triangular: stage i uses J k_j only for j <= i")
    # sparse rows: alpha_ij for j < i, gamma_ij for j <= i (only the nonzero entries)
    A_rows = [[(j, A[i][j]) for j in range(i) if not dom.is_zero(A[i][j])] for i in range(s)]
    G_rows = [[(j, G[i][j]) for j in range(i + 1) if not dom.is_zero(G[i][j])] for i in range(s)]
    zero, one = dom.zero, dom.one

    def times(rows, v):
        out = []
        for row in rows:
            acc = zero
            for j, x in row:
                acc = acc + x * v[j]
            out.append(acc)
        return out

    K: dict = {}          # K[t][i] = K_i(t)
    alpha_K: dict = {}    # alpha_K[u][i] = sum_{j<i} alpha_ij K_j(u)  (G_i(u))
    P: dict = {}          # P[t][i] = prod over the children t_k of t of G_i(t_k)
    elements = {}
    for t in trees_up_to(order) if order else []:
        if t.last is None:                      # the leaf
            P[t] = [one] * s
        else:                                   # t = rest + [last]: one more child
            g_last = alpha_K.get(t.last)
            if g_last is None:
                g_last = alpha_K[t.last] = times(A_rows, K[t.last])
            P[t] = [x * y for x, y in zip(P[t.rest], g_last)]
        k = P[t]
        if len(t.children) == 1:                # the Jacobian term: h J B(c) feeds [u] only
            k = [x + y for x, y in zip(k, times(G_rows, K[t.children[0]]))]
        K[t] = k
        acc = zero
        for bi, ki in zip(B, k):
            acc = acc + bi * ki
        elements[t] = acc
    return BSeries.from_elements(dom, elements, order, empty=one, name=name)
