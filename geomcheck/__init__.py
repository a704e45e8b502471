"""geomcheck: prove that a scheme is symplectic, contact or energy-preserving.

Public names only (see the public contract, docs/contract.md); everything else is internal.

>>> import geomcheck as gc
>>> M = gc.Chart("q p")
>>> q, p = M.coords
>>> w = M.d(q) ^ M.d(p)
>>> X = gc.hamiltonian_vector_field(p**2 / 2 + q**4 / 4, w)
>>> gc.lie(X, w).is_zero()
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import errors
from .algebra import Chart, SuperFunction
from .domain import Domain
from .certify import (
    Certificate,
    certify_casimir,
    certify_conformal_symplectic,
    certify_conserves,
    certify_contact,
    certify_divergence_free,
    certify_order,
    certify_poisson,
    certify_poisson_structure,
    certify_preserves,
    certify_preserves_casimir,
    certify_symmetric,
    certify_symplectic,
    certify_volume_preserving,
    map_order,
    modified_hamiltonian,
    modified_vector_field,
)
from .fields import VectorField, bracket
from .forms import Form, d, interior, is_closed, lie, lie_cartan, primitive
from .hamiltonian import contact_vector_field, hamiltonian_vector_field, reeb_vector_field
if TYPE_CHECKING:  # a type checker cannot call a module: it is shown the function the module calls
    from .latex import latex
else:
    from . import latex  # the module, callable as the function latex(obj)
from .latex import Derivation
from .maps import ImplicitMap, Map, compose, pullback, restrict, submanifold_parametrization, substitute
from .qstructures import (
    ComponentReport,
    HomologicalReport,
    action_algebroid,
    chevalley_eilenberg_vector_field,
    cotangent_shift,
    de_rham_vector_field,
    homological_report,
    lie_algebra_shift,
    lie_algebroid_vector_field,
    lie_poisson_matrix,
    poisson_vector_field,
    schouten_bracket,
    so_structure_constants,
    structure_constants,
)
from .version import __version__
from .zero import clear_caches

__all__ = [
    "errors",
    "Chart",
    "Domain",
    "SuperFunction",
    "VectorField",
    "bracket",
    "Form",
    "d",
    "interior",
    "is_closed",
    "lie",
    "lie_cartan",
    "primitive",
    "hamiltonian_vector_field",
    "contact_vector_field",
    "reeb_vector_field",
    "Derivation",
    "latex",
    "Map",
    "ImplicitMap",
    "compose",
    "pullback",
    "restrict",
    "submanifold_parametrization",
    "substitute",
    "de_rham_vector_field",
    "cotangent_shift",
    "lie_algebra_shift",
    "poisson_vector_field",
    "schouten_bracket",
    "lie_poisson_matrix",
    "chevalley_eilenberg_vector_field",
    "lie_algebroid_vector_field",
    "action_algebroid",
    "structure_constants",
    "so_structure_constants",
    "homological_report",
    "HomologicalReport",
    "ComponentReport",
    "clear_caches",
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
    "modified_vector_field",
    "modified_hamiltonian",
]
