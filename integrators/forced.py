"""The former module of the forced Hamiltonian systems, kept as an import path.

The documentation (``docs/papers/terakawa2022_beam.md``) imports from here.  The systems are
defined in :mod:`integrators.systems.forced`; :func:`evaluate_along`, which evaluates
expressions along any run, in :mod:`integrators.observables`.
"""

from .observables import evaluate_along
from .systems.forced import ForcedHamiltonianSystem, StepOnSubmanifold, certify_step_on_submanifold

__all__ = ["ForcedHamiltonianSystem", "evaluate_along", "StepOnSubmanifold", "certify_step_on_submanifold"]
