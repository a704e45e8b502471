"""Certificates of geometric properties of maps and schemes."""

from . import compositions, discrete_gradients, families, number_field, tableaux, trees
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
from .maps import (
    certify_conformal_symplectic,
    certify_conserves,
    certify_contact,
    certify_preserves,
    certify_symplectic,
)
from .modified import modified_hamiltonian, modified_vector_field
from .order import certify_order, certify_symmetric, flow_coefficients, map_order, taylor_coefficients

__all__ = [
    "Certificate",
    "certify_symplectic",
    "certify_conformal_symplectic",
    "certify_contact",
    "certify_preserves",
    "certify_conserves",
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
]
