"""Named example systems: what ``geomcheck certify SCHEME --system NAME`` certifies on.

Generic systems (an undefined potential V: "any smooth V") make a certificate a
statement about every system of that shape; concrete ones are the classics.

>>> import integrators as ig
>>> "generic-1dof" in ig.list_example_systems()
True
>>> ig.example_system("pendulum").energy
p**2/2 - cos(q)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sympy

from .errors import UnknownSystemError
from .systems import ContactSystem, HamiltonianSystem

if TYPE_CHECKING:
    from .systems import System

__all__ = ["example_system", "list_example_systems", "default_example_for"]


def _generic(n):
    q = sympy.symbols(f"q1:{n + 1}")
    p = sympy.symbols(f"p1:{n + 1}")
    V = sympy.Function("V")(*q)
    return HamiltonianSystem(sum(pi**2 for pi in p) / 2 + V, q=list(q), p=list(p))


def _generic_nonseparable():
    q, p = sympy.symbols("q p")
    return HamiltonianSystem(sympy.Function("H")(q, p), q=[q], p=[p])


def _pendulum():
    q, p = sympy.symbols("q p")
    return HamiltonianSystem(p**2 / 2 - sympy.cos(q), q=[q], p=[p])


def _harmonic():
    q, p = sympy.symbols("q p")
    return HamiltonianSystem((p**2 + q**2) / 2, q=[q], p=[p])


def _henon_heiles():
    x, y, px, py = sympy.symbols("x y p_x p_y")
    H = (px**2 + py**2) / 2 + (x**2 + y**2) / 2 + x**2 * y - y**3 / 3
    return HamiltonianSystem(H, q=[x, y], p=[px, py])


def _kepler():
    x, y, px, py = sympy.symbols("x y p_x p_y")
    return HamiltonianSystem((px**2 + py**2) / 2 - 1 / sympy.sqrt(x**2 + y**2), q=[x, y], p=[px, py])


def _damped_oscillator():
    x, p, z = sympy.symbols("x p z")
    alpha = sympy.Symbol("alpha", positive=True)
    return ContactSystem(p**2 / 2 + x**2 / 2 + alpha * z, x=[x], p=[p], z=z)


def _generic_contact():
    x, p, z = sympy.symbols("x p z")
    A, B = sympy.Function("A"), sympy.Function("B")
    C = sympy.Symbol("C")
    return ContactSystem(A(p) + B(x) + C * z, x=[x], p=[p], z=z)


def _generic_contact_quadratic():
    x, p, z = sympy.symbols("x p z")
    B = sympy.Function("B")
    C = sympy.Symbol("C")
    return ContactSystem(p**2 / 2 + B(x) + C * z, x=[x], p=[p], z=z)


def _generic_contact_time():
    x, p, z, t = sympy.symbols("x p z t")
    A, B, C = sympy.Function("A"), sympy.Function("B"), sympy.Function("C")
    return ContactSystem(A(p) + B(x, t) + C(t) * z, x=[x], p=[p], z=z, t=t)


_EXAMPLES = {
    "generic-1dof": (_generic, (1,), "H = p^2/2 + V(q), any smooth V"),
    "generic-2dof": (_generic, (2,), "H = |p|^2/2 + V(q1, q2), any smooth V"),
    "generic-nonseparable": (_generic_nonseparable, (), "H(q, p), any smooth H"),
    "pendulum": (_pendulum, (), "H = p^2/2 - cos q"),
    "harmonic": (_harmonic, (), "H = (p^2 + q^2)/2"),
    "henon-heiles": (_henon_heiles, (), "the Henon-Heiles Hamiltonian"),
    "kepler": (_kepler, (), "H = |p|^2/2 - 1/|q| in the plane"),
    "damped-oscillator": (_damped_oscillator, (), "contact H = p^2/2 + x^2/2 + alpha z"),
    "generic-contact": (_generic_contact, (), "contact H = A(p) + B(x) + C z, any smooth A, B"),
    "generic-contact-quadratic": (_generic_contact_quadratic, (), "contact H = p^2/2 + B(x) + C z, any smooth B"),
    "generic-contact-time": (_generic_contact_time, (), "contact H = A(p) + B(x, t) + C(t) z, any smooth A, B, C"),
    "generic-damped": (lambda: _generic_damped(), (), "H = p^2/2 + V(q) with linear damping p' = -V'(q) - gamma p"),
    "generic-coupled-natural": (lambda: _coupled_natural(True), (),
                                "a damped quartic oscillator touching a two-mass chain, every coefficient a symbol"),
    "generic-port-hamiltonian": (lambda: _generic_port_hamiltonian(), (),
                                 "pH: H = p^2/2 + V(q), canonical J, R = diag(0, gamma), input U(q) on p'"),
    "generic-constrained": (lambda: _generic_constrained(), (),
                            "a particle on the circle x^2 + y^2 = l^2 in any potential V(x, y) (holonomic constraint)"),
    "generic-lagrangian": (lambda: _generic_lagrangian(), (), "L = v^2/2 - V(q), any smooth V"),
    "knife-edge": (lambda: _knife_edge(), (), "the free knife edge: q = (x, y, phi), blade along phi,"
                   " sin(phi) x' - cos(phi) y' = 0, unit mass and inertia"),
    "generic-knife-edge": (lambda: _knife_edge(generic=True), (),
                           "the knife edge with mass m, inertia J and any smooth potential V(x, y, phi)"),
    "rigid-body": (lambda: _rigid_body(), (), "the free rigid body on so(3)*: Euler's equations, moments I1, I2, I3"),
    "generic-lotka-volterra": (lambda: _generic_lotka_volterra(), (),
                               "Poisson P = [[0, u v], [-u v, 0]], H = F(u) + G(v), any smooth F, G, u, v > 0"),
}


def _rigid_body():
    from .systems import rigid_body

    return rigid_body()


def _generic_lotka_volterra():
    from .systems import PoissonSystem

    u, v = sympy.symbols("u v", positive=True)
    F, G = sympy.Function("F"), sympy.Function("G")
    return PoissonSystem(F(u) + G(v), [u, v], [[0, u * v], [-u * v, 0]], domain={u: (0, sympy.oo), v: (0, sympy.oo)},
                         density=1 / (u * v))


def _knife_edge(generic=False):
    from .systems import knife_edge

    if not generic:
        return knife_edge()
    x, y, phi, m, J = sympy.symbols("x y phi m J")
    return knife_edge(m, J, sympy.Function("V")(x, y, phi))


def _generic_lagrangian():
    from .systems import LagrangianSystem

    q, v = sympy.symbols("q v")
    return LagrangianSystem(v**2 / 2 - sympy.Function("V")(q), q, v)


def _generic_constrained():
    from .systems import planar_pendulum

    x, y, l = sympy.symbols("x y l")
    return planar_pendulum(sympy.Function("V")(x, y), l)


def _generic_port_hamiltonian():
    from .systems import PortHamiltonianSystem

    q, p, gamma = sympy.symbols("q p gamma")
    return PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, gamma]], p**2 / 2 + sympy.Function("V")(q), [q, p],
                                 g=[[0], [1]], u=[sympy.Function("U")(q)])


def _coupled_natural(generic):
    from .systems import oscillator_touching_chain

    return oscillator_touching_chain(generic=generic)


def _generic_damped():
    from .systems import DampedHamiltonianSystem

    q, p, gamma = sympy.symbols("q p gamma")
    return DampedHamiltonianSystem(p**2 / 2 + sympy.Function("V")(q), q, p, damping=gamma)


def list_example_systems() -> list:
    """Names of the example systems."""
    return list(_EXAMPLES)


def describe_example(name: str) -> str:
    """One line saying what the example system is."""
    return _EXAMPLES[_checked(name)][2]


def _checked(name):
    # a non-string (a list, a dict: unhashable) is no name either; ``in`` would raise TypeError on it
    if not isinstance(name, str) or name not in _EXAMPLES:
        raise UnknownSystemError(
            f"unknown system {name!r}; expected one of: {', '.join(_EXAMPLES)}"
        )
    return name


def example_system(name: str) -> System:
    """The example system called ``name`` (a fresh HamiltonianSystem or ContactSystem).

    Raises
    ------
    UnknownSystemError
        ``name`` is not one of :func:`list_example_systems` (the message lists them).
    """
    build, args, _ = _EXAMPLES[_checked(name)]
    return build(*args)


def default_example_for(scheme) -> str:
    """The example a scheme is certified on by default: generic, of the kind it needs."""
    if "contact" in scheme.requires:
        # the most general generic contact system the scheme applies to (the Herglotz
        # schemes need the kinetic energy p^2/2 for their Legendre transform)
        for name in ("generic-contact", "generic-contact-quadratic", "generic-contact-time"):
            if scheme.why_not(example_system(name)) is None:
                return name
        return "generic-contact"
    if "damped" in scheme.requires:
        return "generic-damped"
    if "coupled-natural" in scheme.requires:
        return "generic-coupled-natural"
    if "port-hamiltonian" in scheme.requires:
        return "generic-port-hamiltonian"
    if "constrained" in scheme.requires:
        return "generic-constrained"
    if "lagrangian" in scheme.requires:
        return "generic-lagrangian"
    if "nonholonomic" in scheme.requires:
        return "generic-knife-edge"
    if "poisson" in scheme.requires:
        for name in ("rigid-body", "generic-lotka-volterra"):
            if scheme.why_not(example_system(name)) is None:
                return name
        return "rigid-body"
    return "generic-1dof"
