"""Scheme families, one small module each.

- :mod:`.base`          the Scheme interface (name, order, properties, step_map, certify)
- :mod:`.stages`        the symbolic step of a (partitioned) Runge-Kutta method
- :mod:`.tableau`       TableauScheme, the base of the schemes that are tableaux (order and
                        properties computed by geomcheck.certify.tableaux)
- :mod:`.runge_kutta`   RungeKutta (data: a geomcheck ButcherTableau; order and properties
                        from geomcheck.certify.tableaux)
- :mod:`.partitioned`   PartitionedRungeKutta (data: a geomcheck PartitionedTableau)
- :mod:`.composition`   Composition (data: a base scheme and coefficients)
- :mod:`.verlet`        Stormer-Verlet for separable H (a symbolic step)
- :mod:`.contact_splitting`  the contact splitting S2 for H = T(p) + V(x) + gamma z (a symbolic step)
- :mod:`.feng_kang`     Feng Kang's fourth-order generating-function scheme (a symbolic step)
- :mod:`.coupled_discrete_gradient`  the coupled natural systems' discrete-gradient schemes (Komatsu et al. 2020)
- :mod:`.conformal_splitting`  conformally symplectic splittings for linear damping (symbolic steps)
- :mod:`.rattle`        RATTLE for holonomically constrained systems (a symbolic step)
- :mod:`.discrete_dirac` the discrete Dirac scheme of Salnikov & Hamdouni 2019 (from geomcheck.structures)
- :mod:`.on_manifold`   certificates of a constrained step on the constraint manifold
- :mod:`.refined_composition`  compositions with high-precision Float coefficients (Kahan-Li)
- :mod:`.discrete_gradient`  average vector field, Gonzalez and Itoh-Abe schemes (energy-preserving, any H)
- :mod:`.port_hamiltonian`   the discrete-gradient scheme of port-Hamiltonian systems (discrete power balance)
- :mod:`.splitting`     splitting methods exp(a_1 h A) exp(b_1 h B) ... (Blanes-Moan, Yoshida's order 8)
- :mod:`.quotients`     removable-singularity quotients: exact form, evaluation rule, Taylor expansion
- :mod:`.spark`         Lobatto IIIA-IIIB (SPARK) for holonomic constraints, orders 2s - 2 (s = 2 is RATTLE)
- :mod:`.nonholonomic`  nonholonomic RATTLE (order 2, symmetric) for linear velocity constraints
- :mod:`.variational`   variational integrators of a Lagrangian (geomcheck.structures.variational)
- :mod:`.lie_poisson`   splittings of Poisson systems into exact flows (rigid body, Lotka-Volterra)
"""

from .base import PROPERTIES, Scheme
from .composition import Composition
from .contact_splitting import ContactSplitting
from .discrete_dirac import DiscreteDirac
from .discrete_gradient import DiscreteGradientScheme
from .partitioned import PartitionedRungeKutta
from .nonholonomic import NonholonomicDiscreteDirac, NonholonomicRattle, NonholonomicRattleStart
from .rattle import Rattle
from .spark import SparkLobatto
from .runge_kutta import RungeKutta
from .splitting import Splitting
from .verlet import StormerVerlet

__all__ = ["Scheme", "PROPERTIES", "RungeKutta", "PartitionedRungeKutta", "Composition", "StormerVerlet", "ContactSplitting",
           "Rattle", "SparkLobatto", "NonholonomicRattle", "NonholonomicRattleStart", "NonholonomicDiscreteDirac", "DiscreteDirac", "DiscreteGradientScheme", "Splitting"]
