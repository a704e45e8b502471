"""Certificates of geometric properties of maps and schemes."""

from .certificate import Certificate
from .maps import certify_conformal_symplectic, certify_contact, certify_preserves, certify_symplectic

__all__ = [
    "Certificate",
    "certify_symplectic",
    "certify_conformal_symplectic",
    "certify_contact",
    "certify_preserves",
]
