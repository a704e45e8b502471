"""Systems a scheme is applied to, one kind a module.

- :mod:`.base`              what every system is (:class:`System`, :class:`CanonicalSystem`),
                            the step symbol ``h``, and the checks of a system's definition
- :mod:`.hamiltonian`       canonical Hamiltonian systems ``q' = H_p, p' = -H_q``
- :mod:`.contact`           contact Hamiltonian systems on ``(x, p, z)``
- :mod:`.forced`            Hamiltonian subsystems with interaction forces (Terakawa & Yaguchi 2022),
                            and the certificate of a step on an invariant submanifold
- :mod:`.damped`            linear damping ``p' = -H_q - gamma p`` (a forced system, conformally symplectic)
- :mod:`.constrained`       holonomic constraints ``g(q) = 0``
- :mod:`.coupled_natural`   coupled natural systems (Komatsu, Terakawa & Yaguchi 2020)
- :mod:`.port_hamiltonian`  port-Hamiltonian systems with given inputs
- :mod:`.poisson`           Poisson systems ``x' = P grad H`` (free rigid body, Lotka-Volterra)
- :mod:`.lagrangian`        Lagrangian systems L(q, qdot) (optionally forced) on (q, p), p = dL/dqdot
- :mod:`.nonholonomic`      linear velocity constraints ``A(q) qdot = 0`` (the knife edge)

A system is written once, symbolically; its chart, form, vector field and energy are the
geomcheck objects that certificates and lowered steps are built from.  Where geomcheck has
the structure itself (``geomcheck.structures.CoupledSystem``, ``CoupledNaturalSystem``,
``PortHamiltonianSystem``), the system here is built from it and holds it: the runnable
system on the chart every scheme expects, not a second definition.

>>> import sympy
>>> from integrators.systems import HamiltonianSystem
>>> q, p = sympy.symbols("q p")
>>> HamiltonianSystem(p**2 / 2 - sympy.cos(q), q=[q], p=[p]).vector_field
VectorField({q: p, p: -sin(q)})
"""

from .base import STEP_SYMBOL, CanonicalSystem, System, checked_expression, checked_symbols, constant_parameters
from .constrained import ConstrainedHamiltonianSystem, planar_pendulum
from .contact import ContactSystem
from .coupled_natural import CoupledNaturalSystem, certify_forced_form, oscillator_touching_chain
from .damped import DampedHamiltonianSystem
from .forced import ForcedHamiltonianSystem, StepOnSubmanifold, certify_step_on_submanifold
from .hamiltonian import HamiltonianSystem
from .lagrangian import LagrangianSystem
from .poisson import PoissonSystem, lotka_volterra, rigid_body
from .nonholonomic import NonholonomicSystem, knife_edge, knife_edge_exact_flow
from .port_hamiltonian import PortHamiltonianSystem

__all__ = [
    "STEP_SYMBOL",
    "System",
    "CanonicalSystem",
    "HamiltonianSystem",
    "ContactSystem",
    "ForcedHamiltonianSystem",
    "DampedHamiltonianSystem",
    "ConstrainedHamiltonianSystem",
    "CoupledNaturalSystem",
    "PortHamiltonianSystem",
    "PoissonSystem",
    "rigid_body",
    "lotka_volterra",
    "LagrangianSystem",
    "NonholonomicSystem",
    "knife_edge",
    "knife_edge_exact_flow",
    "StepOnSubmanifold",
    "certify_step_on_submanifold",
    "certify_forced_form",
    "planar_pendulum",
    "oscillator_touching_chain",
    "checked_symbols",
    "checked_expression",
    "constant_parameters",
]
