"""Error coefficients of Runge-Kutta methods and the principal error norm, exactly.

Normalization
-------------
The local error of a Runge-Kutta method is a B-series (Hairer, Lubich, Wanner, III.1):

    y_1 - y(t_0 + h) = sum_t  h^|t| / sigma(t) * (Phi(t) - 1/gamma(t)) * F(t)(y_0),

``Phi`` the elementary weight, ``gamma`` the density, ``sigma`` the symmetry of the rooted
tree ``t`` and ``F(t)`` its elementary differential.  For each tree this module gives

* the *residual* ``tau(t) = Phi(t) - 1/gamma(t)`` -- the coefficient of
  ``h^|t| F(t) / sigma(t)`` (HLW's convention; the order conditions are ``tau(t) = 0``);
* the *error coefficient* ``tau(t) / sigma(t)`` -- the coefficient of ``h^|t| F(t)`` itself,
  which is Butcher's ``alpha(t) (gamma(t) Phi(t) - 1) / |t|!`` with
  ``alpha(t) = |t|! / (sigma(t) gamma(t))`` and NodePy's ``error_coefficient``.

The *principal error norm* of a method of order ``p`` is the 2-norm of the error
coefficients of the trees with ``p + 1`` vertices (NodePy's ``principal_error_norm``, the
``A^(p+1)`` of Kennedy, Carpenter and Lewis 2000): ``sqrt(sum_{|t| = p+1} (tau(t)/sigma(t))^2)``,
returned as an exact sympy number for rational and algebraic tableaux.

Examples
--------
>>> from sympy import Rational as R
>>> from geomcheck.certify.tableaux import ButcherTableau
>>> rk4 = ButcherTableau([[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]],
...                      [R(1, 6), R(1, 3), R(1, 3), R(1, 6)], name="RK4")
>>> principal_error_norm(rk4)
sqrt(1745)/2880
>>> ec = error_coefficients(rk4)
>>> ec.order, ec.tree_order, len(ec.coefficients), ec.max_norm
(4, 5, 9, 1/120)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy

from ..errors import InvalidArgumentError
from .exact_sign import tableau_arithmetic
from .tableaux import ButcherTableau, order
from .trees import MAX_ORDER, ElementaryWeights, trees_of_order

__all__ = ["ErrorCoefficients", "error_coefficients", "principal_error_norm"]


@dataclass(frozen=True)
class ErrorCoefficients:
    """The error terms of a method for the trees with ``tree_order`` vertices.

    Attributes
    ----------
    tableau : ButcherTableau
    order : int
        The order ``p`` the terms were asked for (``tree_order = p + 1``).
    tree_order : int
    residuals : dict
        ``{tree: Phi(t) - 1/gamma(t)}`` (sympy numbers): coefficients of ``h^|t| F(t)/sigma(t)``.
    coefficients : dict
        ``{tree: (Phi(t) - 1/gamma(t)) / sigma(t)}``: coefficients of ``h^|t| F(t)``.
    arithmetic : str
        How they were computed (exact rational, a number field, or numeric for float entries).
    exact : bool
        True for rational and algebraic entries (every number is exact).
    """

    tableau: Any
    order: int
    tree_order: int
    residuals: dict
    coefficients: dict
    arithmetic: str
    exact: bool

    @property
    def norm(self) -> sympy.Expr:
        """The 2-norm of the error coefficients (exact for exact tableaux)."""
        total = sympy.Add(*[c ** 2 for c in self.coefficients.values()])
        return sympy.sqrt(total)

    @property
    def max_norm(self) -> sympy.Expr:
        """The largest absolute value of an error coefficient."""
        return sympy.Max(*[sympy.Abs(c) for c in self.coefficients.values()]) if self.coefficients else sympy.S.Zero

    def _latex(self, printer=None):
        rows = [f"{t._latex()} & {t.gamma} & {t.sigma} & {sympy.latex(self.residuals[t])} & "
                f"{sympy.latex(c)}" for t, c in self.coefficients.items()]
        return (r"\begin{array}{lrrll} t & \gamma(t) & \sigma(t) & \Phi(t) - 1/\gamma(t) & "
                r"(\Phi(t) - 1/\gamma(t))/\sigma(t) \\ \hline " + r" \\ ".join(rows) + r"\end{array}")

    def _repr_latex_(self):
        return "$" + self._latex() + "$"


def error_coefficients(T: ButcherTableau, p: int | None = None) -> ErrorCoefficients:
    """The residuals and error coefficients of the trees with ``p + 1`` vertices.

    Parameters
    ----------
    T : ButcherTableau
    p : int, optional
        The order whose leading error terms are wanted (trees with ``p + 1`` vertices);
        default: the order of ``T`` (:func:`geomcheck.certify.tableaux.order`), so that the
        terms are the principal (leading) ones.

    Returns
    -------
    ErrorCoefficients

    Raises
    ------
    InvalidArgumentError
        ``p`` is not an integer in ``0 .. 13``, the order of ``T`` could not be decided (pass
        ``p``), or ``T`` is not a ButcherTableau.

    Examples
    --------
    >>> from sympy import Rational as R
    >>> midpoint = ButcherTableau([[R(1, 2)]], [1])
    >>> ec = error_coefficients(midpoint)
    >>> {str(t): (ec.residuals[t], c) for t, c in ec.coefficients.items()}
    {'[τ²]': (-1/12, -1/24), '[[τ]]': (1/12, 1/12)}
    """
    ar = tableau_arithmetic(T, "error_coefficients")
    if p is None:
        cert = order(T)
        if cert.holds is not True or cert.failing_tree is None:
            raise InvalidArgumentError(f"the order of {T.label} could not be determined ({cert.method}); "
                                       f"pass p explicitly")
        p = cert.order
    if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < MAX_ORDER[1]:
        raise InvalidArgumentError(f"p must be an integer in 0..{MAX_ORDER[1] - 1} (the trees have p + 1 "
                                   f"vertices), not {p!r}")
    dom = ar.dom
    W = ElementaryWeights([ar.A], [ar.b], dom.one)
    residuals, coefficients = {}, {}
    for t in trees_of_order(p + 1):
        r = W.phi(t) - dom.const(1, t.gamma)
        residuals[t] = dom.to_sympy(r)
        coefficients[t] = dom.to_sympy(r * dom.const(1, t.sigma))
    return ErrorCoefficients(T, p, p + 1, residuals, coefficients, dom.describe(), ar.exact)


def principal_error_norm(T: ButcherTableau) -> sympy.Expr:
    """The 2-norm of the error coefficients of the trees with ``p + 1`` vertices, ``p`` the order.

    Exact (a square root of an exact number) for rational and algebraic tableaux; for
    floating-point entries a Float computed from them.

    >>> from sympy import Rational as R
    >>> principal_error_norm(ButcherTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)]))    # Heun
    sqrt(5)/12
    """
    return error_coefficients(T).norm
