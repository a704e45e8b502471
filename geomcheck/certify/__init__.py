"""Certificates of geometric properties of maps and schemes."""

from . import (
    algebraic_stability,
    compositions,
    discrete_gradients,
    error_coefficients,
    exact_sign,
    families,
    linear_stability,
    number_field,
    splitting,
    tableaux,
    trees,
)
from .algebraic_stability import is_algebraically_stable
from .error_coefficients import error_coefficients as tableau_error_coefficients
from .error_coefficients import principal_error_norm
from .linear_stability import is_A_stable, is_L_stable, stability_region_plot
from .certificate import Certificate
from .compositions import (
    certify_composition_order,
    composition_order,
    kahan_li,
    suzuki_fractal,
    triple_jump,
    yoshida6,
    yoshida_composition,
)
from .families import (
    gauss_legendre,
    lobatto_iiia,
    lobatto_iiia_iiib,
    lobatto_iiib,
    lobatto_iiic,
    lobatto_iiic_star,
    radau_iia,
)
from .tableaux import ButcherTableau, PartitionedTableau, reduce_tableau, stability_function
from .discrete_gradients import avf_gradient, certify_discrete_gradient, gonzalez_gradient, itoh_abe_gradient
from .splitting import refine_splitting, splitting_order
from .maps import (
    certify_conformal_symplectic,
    certify_conserves,
    certify_contact,
    certify_preserves,
    certify_symplectic,
)
from .modified import modified_hamiltonian, modified_vector_field
from .poisson import (
    certify_casimir,
    certify_divergence_free,
    certify_poisson,
    certify_poisson_structure,
    certify_preserves_casimir,
    certify_volume_preserving,
)
from .order import certify_order, certify_symmetric, flow_coefficients, map_order, taylor_coefficients

__all__ = [
    "Certificate",
    "certify_symplectic",
    "certify_conformal_symplectic",
    "certify_contact",
    "certify_preserves",
    "certify_conserves",
    "certify_poisson_structure",
    "certify_poisson",
    "certify_casimir",
    "certify_preserves_casimir",
    "certify_volume_preserving",
    "certify_divergence_free",
    "certify_order",
    "certify_symmetric",
    "map_order",
    "taylor_coefficients",
    "flow_coefficients",
    "modified_vector_field",
    "modified_hamiltonian",
    "compositions",
    "discrete_gradients",
    "composition_order",
    "certify_composition_order",
    "triple_jump",
    "yoshida_composition",
    "suzuki_fractal",
    "yoshida6",
    "kahan_li",
    "avf_gradient",
    "gonzalez_gradient",
    "itoh_abe_gradient",
    "certify_discrete_gradient",
    "families",
    "number_field",
    "tableaux",
    "trees",
    "ButcherTableau",
    "PartitionedTableau",
    "stability_function",
    "reduce_tableau",
    "gauss_legendre",
    "radau_iia",
    "lobatto_iiia",
    "lobatto_iiib",
    "lobatto_iiic",
    "lobatto_iiic_star",
    "lobatto_iiia_iiib",
    "splitting",
    "splitting_order",
    "refine_splitting",
    "linear_stability",
    "algebraic_stability",
    "error_coefficients",
    "exact_sign",
    "is_A_stable",
    "is_L_stable",
    "stability_region_plot",
    "is_algebraically_stable",
    "principal_error_norm",
    "tableau_error_coefficients",
]
