"""integrators: structure-preserving schemes, certified symbolically, run on ensembles.

One definition, three uses: a scheme's step is one symbolic geomcheck map; the same
map is certified (``scheme.certify(system)``), lowered to batched numpy and lowered
to mpmath (``integrate``).

>>> import sympy, numpy as np, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
>>> y0 = np.array([[0.5, 0.0], [1.0, 0.0], [2.0, 0.0]])     # an ensemble of 3
>>> sol = ig.integrate(pendulum, "stormer-verlet", y0, dt=0.05, steps=200, save_every=50)
>>> sol.y.shape, sol.t.shape, sol.energy().shape
((5, 3, 2), (5,), (5, 3))
>>> bool(np.abs(sol.energy() - sol.energy()[0]).max() < 1e-3)
True
"""

from .bseries_table import BSeriesProperties, bseries_properties
from .catalog import list_schemes, scheme
from .examples import example_system, list_example_systems
from .integrate import Solution, integrate
from .kernels import with_kernel
from .run_map import run_map
from .schemes import Composition, NonholonomicRattle, PartitionedRungeKutta, RungeKutta, SparkLobatto
from .schemes.lie_poisson import LotkaVolterraSplitting, RigidBodySplitting
from .schemes.variational import VariationalScheme
from .systems import (ConstrainedHamiltonianSystem, ContactSystem, CoupledNaturalSystem, DampedHamiltonianSystem,
                      HamiltonianSystem, LagrangianSystem, NonholonomicSystem, PoissonSystem, PortHamiltonianSystem,
                      knife_edge, lotka_volterra, rigid_body)

__all__ = [
    "HamiltonianSystem",
    "ContactSystem",
    "ConstrainedHamiltonianSystem",
    "CoupledNaturalSystem",
    "DampedHamiltonianSystem",
    "PortHamiltonianSystem",
    "LagrangianSystem",
    "NonholonomicSystem",
    "knife_edge",
    "PoissonSystem",
    "rigid_body",
    "lotka_volterra",
    "list_schemes",
    "example_system",
    "list_example_systems",
    "scheme",
    "RungeKutta",
    "PartitionedRungeKutta",
    "Composition",
    "VariationalScheme",
    "SparkLobatto",
    "NonholonomicRattle",
    "RigidBodySplitting",
    "LotkaVolterraSplitting",
    "integrate",
    "run_map",
    "Solution",
    "with_kernel",
    "bseries_properties",
    "BSeriesProperties",
]
