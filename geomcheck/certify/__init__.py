"""Certificates of geometric properties of maps and schemes."""

from .certificate import Certificate
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
]
