"""Scheme families, one small module each.

- :mod:`.base`          the Scheme interface (name, order, properties, step_map, certify)
- :mod:`.stages`        the symbolic step of a (partitioned) Runge-Kutta method
- :mod:`.runge_kutta`   RungeKutta (data: a geomcheck ButcherTableau; order and properties
                        from geomcheck.certify.tableaux)
- :mod:`.partitioned`   PartitionedRungeKutta (data: a geomcheck PartitionedTableau)
- :mod:`.composition`   Composition (data: a base scheme and coefficients)
- :mod:`.verlet`        Stormer-Verlet for separable H (a symbolic step)
- :mod:`.contact_splitting`  the contact splitting S2 for H = T(p) + V(x) + gamma z (a symbolic step)
- :mod:`.feng_kang`     Feng Kang's fourth-order generating-function scheme (a symbolic step)
- :mod:`.refined_composition`  compositions with high-precision Float coefficients (Kahan-Li)
"""

from .base import PROPERTIES, Scheme
from .composition import Composition
from .contact_splitting import ContactSplitting
from .partitioned import PartitionedRungeKutta
from .runge_kutta import RungeKutta
from .verlet import StormerVerlet

__all__ = ["Scheme", "PROPERTIES", "RungeKutta", "PartitionedRungeKutta", "Composition", "StormerVerlet", "ContactSplitting"]
