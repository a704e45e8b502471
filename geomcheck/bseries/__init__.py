"""B-series and P-series of numerical methods, and backward error analysis, exactly.

A B-series ``B(a, y) = a(∅) y + sum_t h^|t| / sigma(t) a(t) F(t)(y)`` describes a method
for every vector field ``f`` at once (Hairer, Lubich, Wanner, *Geometric Numerical
Integration*, III and IX).  This package computes with them exactly:

* :class:`BSeries` -- a truncated series with exact coefficients (rationals, algebraic
  numbers, rational functions of a family's parameters);
* methods: :func:`exact_flow`, :func:`runge_kutta`, :func:`partitioned_runge_kutta`,
  :func:`average_vector_field`, :func:`kahan`, :func:`rosenbrock` (with the exact Jacobian;
  W-methods are not B-series methods), :func:`composition_method`, :func:`series_of`;
* laws: :func:`compose`, :func:`inverse`, :func:`adjoint`, :func:`substitute`,
  :func:`exponential`, :func:`logarithm`;
* backward error analysis: :func:`modified_equation`, :func:`modifying_integrator`;
* structure, exactly, with certificates: :func:`order_of`, :func:`is_symmetric`,
  :func:`is_symplectic`, :func:`is_hamiltonian`, :func:`modified_equation_is_hamiltonian`,
  :func:`is_conjugate_symplectic`, :func:`is_energy_preserving`; :func:`effective_order`
  (Butcher's processors: found and verified, or proved impossible by a Groebner basis);
* for a given vector field: :func:`elementary_differential`, :func:`evaluate` (a modified
  equation as a geomcheck VectorField), :func:`terms_by_order`;
* typesetting: :func:`series_latex`, :func:`tree_tikz`, :func:`tree_picture`,
  :func:`elementary_differential_latex`.

>>> import geomcheck.bseries as bs, sympy
>>> euler = bs.runge_kutta([[0]], [1], order=3, name="explicit Euler")
>>> f = bs.modified_equation(euler, 3)
>>> [(str(t), str(c)) for t, c in f.items()]
[('τ', '1'), ('[τ]', '-1/2'), ('[τ²]', '1/6'), ('[[τ]]', '1/3')]
"""

from .backward import modified_equation, modifying_integrator
from .laws import adjoint, compose, exponential, identity, inverse, logarithm, solve_substitution, substitute
from .methods import (
    average_vector_field,
    composition_method,
    exact_flow,
    kahan,
    partitioned_runge_kutta,
    runge_kutta,
    scaled,
    series_of,
)
from .differentials import ElementaryDifferentials, elementary_differential, evaluate, terms_by_order
from .drawing import elementary_differential_latex, series_latex, tree_layout, tree_picture, tree_tikz
from .conjugate import is_conjugate_symplectic
from .effective_order import effective_order
from .energy import energy_classes, is_energy_preserving
from .properties import (
    is_hamiltonian,
    is_symmetric,
    is_symplectic,
    modified_equation_is_hamiltonian,
    order_of,
    symplecticity_pairs,
)
from .rosenbrock import rosenbrock
from .series import BSeries, provide_latex_printer
from .tree_ops import butcher_product, tree_from_children

provide_latex_printer(series_latex)

__all__ = [
    "BSeries",
    "exact_flow",
    "runge_kutta",
    "partitioned_runge_kutta",
    "average_vector_field",
    "kahan",
    "rosenbrock",
    "composition_method",
    "scaled",
    "series_of",
    "identity",
    "compose",
    "inverse",
    "adjoint",
    "substitute",
    "exponential",
    "logarithm",
    "solve_substitution",
    "modified_equation",
    "modifying_integrator",
    "butcher_product",
    "tree_from_children",
    "order_of",
    "is_symmetric",
    "is_symplectic",
    "is_hamiltonian",
    "modified_equation_is_hamiltonian",
    "is_conjugate_symplectic",
    "is_energy_preserving",
    "effective_order",
    "symplecticity_pairs",
    "energy_classes",
    "ElementaryDifferentials",
    "elementary_differential",
    "evaluate",
    "terms_by_order",
    "series_latex",
    "tree_tikz",
    "tree_picture",
    "tree_layout",
    "elementary_differential_latex",
]
