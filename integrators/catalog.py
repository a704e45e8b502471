"""The catalog of named schemes: ``list_schemes()`` and ``scheme(name)``.

Each entry is built on first use and then shared (schemes are immutable).  Next to
each entry the catalog *declares* the order and properties the literature gives; for
schemes that are data (tableaux) the scheme itself *computes* them from its
coefficients, and the test-suite holds the two against each other (``declared(name)``).

>>> import integrators as ig
>>> "gauss-legendre-4" in ig.list_schemes()
True
>>> s = ig.scheme("gauss-legendre-4")
>>> s.order, sorted(s.properties)
(4, ['symmetric', 'symplectic'])
"""

from __future__ import annotations

import sympy

from geomcheck.certify import compositions, families

from .errors import UnknownSchemeError
from .schemes.base import Scheme
from .schemes.composition import Composition
from .schemes.conformal_splitting import ConformalSplitting, ConformalSymplecticEuler
from .schemes.contact_splitting import ContactSplitting
from .schemes.contact_time_splitting import TimeDependentContactSplitting
from .schemes.contact_variational import HerglotzVariational, contact_yoshida
from .schemes.coupled_discrete_gradient import CoupledDiscreteGradient
from .schemes.discrete_dirac import DiscreteDirac
from .schemes.discrete_gradient import DiscreteGradientScheme
from .schemes.feng_kang import FengKang
from .schemes.lie_poisson import LotkaVolterraSplitting, RigidBodySplitting
from .schemes.partitioned import PartitionedRungeKutta, symplectic_euler_b
from .schemes.port_hamiltonian import PortHamiltonianDiscreteGradient
from .schemes.nonholonomic import NonholonomicRattle
from .schemes.rattle import Rattle
from .schemes.refined_composition import RefinedComposition
from .schemes.runge_kutta import RungeKutta
from .schemes.spark import SparkLobatto
from .schemes.splitting import Splitting, blanes_moan, yoshida8
from .schemes.variational import VariationalScheme
from .schemes.verlet import StormerVerlet

__all__ = ["list_schemes", "scheme", "declared"]

_half = sympy.Rational(1, 2)
_SP = frozenset({"symplectic", "symmetric"})


def _gauss(s):
    def make():
        return RungeKutta.from_tableau(families.gauss_legendre(s), name=f"gauss-legendre-{2 * s}",
                                       description=f"{s}-stage Gauss-Legendre collocation (implicit)")
    return make


def _lobatto(s):
    def make():
        return PartitionedRungeKutta.from_tableau(families.lobatto_iiia_iiib(s), name=f"lobatto-iiia-iiib-{s}",
                                                  description=f"{s}-stage Lobatto IIIA (q) - IIIB (p) pair")
    return make


def _verlet_composition(name, gammas, description):
    def make():
        return Composition(StormerVerlet("velocity"), gammas(), name=name, description=description)
    return make


def _refined_composition(name, order):
    def make():
        stages = {6: 9, 8: 17}[order]
        return RefinedComposition(StormerVerlet("velocity"), compositions.kahan_li(order), name=name,
                                  description=f"Kahan and Li's {stages}-stage symmetric composition of"
                                              f" Stormer-Verlet (order {order}; coefficients refined to 60 digits)")
    return make


def _blanes_moan(name, method, class_, description):
    def make():
        a, b = blanes_moan(method)
        return Splitting(a, b, class_, name=name, description=description)
    return make


def _yoshida8(solution):
    def make():
        return RefinedComposition(StormerVerlet("velocity"), yoshida8(solution), name=f"yoshida-8-15{solution.lower()}",
                                  description=f"Yoshida's 15-stage symmetric composition of Stormer-Verlet of order 8,"
                                              f" solution {solution} (coefficients refined to 60 digits)")
    return make


# name: (factory, declared order, declared properties)
#
# Compositions (yoshida-*, suzuki-4, kahan-li-*, contact-yoshida-*): the order is certified by
# the composition order conditions of the coefficients (geomcheck.certify.compositions: BCH in
# the free Lie algebra, valid for every system on which the base is symmetric of order 2),
# the structure by the base's certificate.  The map-level Taylor expansion is certified in the
# test-suite where it fits in seconds (yoshida-4; contact-yoshida-4 takes ~30 s).
# Many-stage compositions (27 stages for yoshida-8) are run stage by stage
# (Scheme.stages, integrators.staged): their composite step is never built as one expression
# to run them.
_ENTRIES = {
    "explicit-euler": (lambda: RungeKutta.from_tableau(families.explicit_euler(), name="explicit-euler",
                                                       description="explicit Euler (baseline, not structure-preserving)"),
                       1, frozenset()),
    "rk4": (lambda: RungeKutta.from_tableau(families.classical_rk4(), name="rk4",
                                            description="classical Runge-Kutta (baseline, not structure-preserving)"),
            4, frozenset()),
    "symplectic-euler-a": (lambda: PartitionedRungeKutta.from_tableau(families.symplectic_euler(),
                                                                      name="symplectic-euler-a",
                                                         description="P = p - h H_q(q, P), Q = q + h H_p(q, P)"
                                                                     " (kick then drift when separable)"),
                           1, frozenset({"symplectic"})),
    "symplectic-euler-b": (symplectic_euler_b, 1, frozenset({"symplectic"})),
    "stormer-verlet": (lambda: StormerVerlet("velocity"), 2, _SP),
    "stormer-verlet-position": (lambda: StormerVerlet("position"), 2, _SP),
    "implicit-midpoint": (lambda: RungeKutta.from_tableau(families.implicit_midpoint(), name="implicit-midpoint",
                                                          description="implicit midpoint rule"), 2, _SP),
    "trapezoidal": (lambda: RungeKutta.from_tableau(families.lobatto_iiia(2), name="trapezoidal",
                                                    description="trapezoidal rule (Lobatto IIIA, s = 2)"),
                    2, frozenset({"symmetric"})),
    **{f"gauss-legendre-{2 * s}": (_gauss(s), 2 * s, _SP) for s in (1, 2, 3, 4)},
    **{f"lobatto-iiia-iiib-{s}": (_lobatto(s), 2 * s - 2, _SP) for s in (2, 3)},
    "contact-splitting-2": (ContactSplitting, 2, frozenset({"contact", "symmetric"})),
    "contact-yoshida-4": (lambda: contact_yoshida(4), 4, frozenset({"contact", "symmetric"})),
    "contact-herglotz-1": (lambda: HerglotzVariational(1), 1, frozenset({"contact"})),
    "contact-herglotz-2": (lambda: HerglotzVariational(2), 2, frozenset({"contact"})),
    # the "Contact (1st)" of Vermeeren-Bravetti-Seri's figures: potential averaged over both ends, z_j
    "contact-herglotz-1-averaged": (lambda: HerglotzVariational(1, averaged=True), 1, frozenset({"contact"})),
    "contact-splitting-2-t": (TimeDependentContactSplitting, 2, frozenset({"contact", "symmetric"})),
    **{f"yoshida-{k}": (_verlet_composition(f"yoshida-{k}", lambda k=k: compositions.yoshida_composition(k),
                                            f"Yoshida's triple jumps of Stormer-Verlet to order {k}"
                                            f" ({3 ** (k // 2 - 1)} stages, exact coefficients)"), k, _SP)
       for k in (4, 6, 8)},
    "suzuki-4": (_verlet_composition("suzuki-4", lambda: compositions.suzuki_fractal(4),
                                     "Suzuki's fractal five-stage composition of Stormer-Verlet (order 4)"), 4, _SP),
    **{f"kahan-li-{k}": (_refined_composition(f"kahan-li-{k}", k), k, _SP) for k in (6, 8)},
    "contact-yoshida-6": (lambda: contact_yoshida(6), 6, frozenset({"contact", "symmetric"})),
    "feng-kang-4": (FengKang, 4, _SP),
    # discrete-gradient schemes y' = y + h J gbar(y', y) (HamiltonianSystem, any H; energy-preserving)
    "average-vector-field": (lambda: DiscreteGradientScheme("average-vector-field"), 2,
                             frozenset({"energy-preserving", "symmetric"})),
    "gonzalez": (lambda: DiscreteGradientScheme("gonzalez"), 2, frozenset({"energy-preserving", "symmetric"})),
    "itoh-abe": (lambda: DiscreteGradientScheme("itoh-abe"), 1, frozenset({"energy-preserving"})),
    # port-Hamiltonian systems x' = (J - R) grad H + g u (PortHamiltonianSystem): the discrete power balance
    "port-hamiltonian-avf": (lambda: PortHamiltonianDiscreteGradient("average-vector-field"), 2,
                             frozenset({"energy-balance", "symmetric"})),
    # Komatsu-Terakawa-Yaguchi 2020: discrete-gradient schemes of coupled natural systems (CoupledNaturalSystem)
    "coupled-avf": (lambda: CoupledDiscreteGradient("avf"), 2, frozenset({"energy-balance", "symmetric"})),
    "coupled-itoh-abe": (lambda: CoupledDiscreteGradient("itoh-abe"), 1, frozenset({"energy-balance"})),
    # conformally symplectic splittings for linear damping (DampedHamiltonianSystem), around the
    # catalog's own Hamiltonian steps
    "conformal-splitting-2": (lambda: ConformalSplitting(scheme("stormer-verlet")), 2,
                              frozenset({"conformal-symplectic", "symmetric"})),
    "conformal-symplectic-euler": (lambda: ConformalSymplecticEuler(scheme("symplectic-euler-b")), 1,
                                   frozenset({"conformal-symplectic"})),
    # holonomic constraints (ConstrainedHamiltonianSystem): properties on the constraint manifold
    "rattle": (Rattle, 2, frozenset({"symplectic", "symmetric", "constraint-preserving"})),
    "discrete-dirac": (DiscreteDirac, 1, frozenset()),
    # Lobatto IIIA-IIIB for constrained systems (SPARK; Jay 1996, HLW VII.1.4): s = 2 is RATTLE
    "spark-lobatto-3": (lambda: SparkLobatto(3), 4, frozenset({"symplectic", "symmetric", "constraint-preserving"})),
    "spark-lobatto-4": (lambda: SparkLobatto(4), 6, frozenset({"symplectic", "symmetric", "constraint-preserving"})),
    # linear velocity constraints A(q) qdot = 0 (NonholonomicSystem): constraint at the midpoint and on the new
    # momenta; not symplectic (nonholonomic flows are not)
    "nonholonomic-rattle": (NonholonomicRattle, 2, frozenset({"symmetric", "constraint-preserving"})),
    # splitting methods (exact drifts and kicks of H = T(p) + V(q)); order by the splitting order conditions
    # of their problem class (geomcheck.certify.splitting), coefficients of Blanes and Moan, J. Comput. Appl.
    # Math. 142 (2002), Tables 2 and 3, refined to 60 digits
    "blanes-moan-s6": (_blanes_moan("blanes-moan-s6", "s6", "separable",
                                    "Blanes and Moan's S6: 6 drifts, order 4 for every separable H"), 4, _SP),
    "blanes-moan-srkn6b": (_blanes_moan("blanes-moan-srkn6b", "srkn6b", "rkn",
                                        "Blanes and Moan's SRKN6b: 6 drifts, order 4 for T quadratic in p"), 4, _SP),
    "blanes-moan-srkn11b": (_blanes_moan("blanes-moan-srkn11b", "srkn11b", "rkn",
                                         "Blanes and Moan's SRKN11b: 11 drifts, order 6 for T quadratic in p"
                                         " (order 4 for general separable H)"), 6, _SP),
    # Yoshida's 15-stage compositions of order 8 (Phys. Lett. A 150 (1990), Table 2), not the triple jumps
    "yoshida-8-15a": (_yoshida8("A"), 8, _SP),
    "yoshida-8-15d": (_yoshida8("D"), 8, _SP),
    # variational integrators of a Lagrangian L(q, v) (LagrangianSystem): the discrete Lagrangian by
    # quadrature, run in its position-momentum form (geomcheck.structures.variational)
    "variational-midpoint": (lambda: VariationalScheme("midpoint"), 2, _SP),
    "variational-trapezoidal": (lambda: VariationalScheme("trapezoidal"), 2, _SP),
    "galerkin-lobatto-3": (lambda: VariationalScheme(("lobatto", 3)), 4, _SP),
    "galerkin-gauss-2": (lambda: VariationalScheme(("gauss", 2)), 4, _SP),
    # Poisson systems x' = P(x) grad H (PoissonSystem): splittings into exactly solved Poisson flows
    "rigid-body-splitting": (RigidBodySplitting, 2,
                             frozenset({"poisson", "casimir-preserving", "volume-preserving", "symmetric"})),
    "lotka-volterra-splitting": (LotkaVolterraSplitting, 2, frozenset({"poisson", "volume-preserving", "symmetric"})),
}

_BUILT: dict = {}


def list_schemes() -> list:
    """The names of every scheme in the catalog, in catalog order."""
    return list(_ENTRIES)


def scheme(name: str | Scheme) -> Scheme:
    """The catalog scheme called ``name`` (a Scheme instance is returned unchanged).

    Raises
    ------
    UnknownSchemeError
        For a name not in the catalog; the message lists the known names.
    """
    if isinstance(name, Scheme):
        return name
    if not isinstance(name, str):
        raise UnknownSchemeError(f"a scheme is named by a string or given as a Scheme object, got {name!r}")
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    if key not in _ENTRIES:
        import difflib

        close = difflib.get_close_matches(key, list(_ENTRIES), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise UnknownSchemeError(
            f"unknown scheme {name!r}{hint}; known schemes: {', '.join(_ENTRIES)}"
        )
    if key not in _BUILT:
        _BUILT[key] = _ENTRIES[key][0]()
    return _BUILT[key]


def declared(name) -> tuple:
    """``(order, properties)`` the literature gives for a catalog scheme."""
    scheme(name)  # validates the name
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    _, order, props = _ENTRIES[key]
    return order, props
