"""Systems and references shared by the integrators tests (imported by conftest and tests).

Every catalog scheme is tested on one generic system (for certificates) and one concrete
system (for numbers): the pendulum for Hamiltonian schemes, the damped pendulum as a
contact system (H = p^2/2 - cos x + z/5) for contact schemes.
"""

import mpmath
import sympy as sp

import integrators as ig

q, p, x, z, gamma = sp.symbols("q p x z gamma")
V = sp.Function("V")
T = sp.Function("T")

GENERIC = ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
GENERIC_CONTACT = ig.ContactSystem(T(p) + V(x) + gamma * z, x, p, z)
PENDULUM = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
DAMPED_PENDULUM = ig.ContactSystem(p**2 / 2 - sp.cos(x) + z / 5, x, p, z)


def is_contact_scheme(name):
    return "contact" in ig.scheme(name).requires


def generic_for(name):
    """H = p^2/2 + V(q) (V undefined), or the contact H = T(p) + V(x) + gamma z."""
    return GENERIC_CONTACT if is_contact_scheme(name) else GENERIC


def concrete_for(name):
    return DAMPED_PENDULUM if is_contact_scheme(name) else PENDULUM


def initial_for(name, batch=None):
    """Initial states of the concrete system (dyadic numbers)."""
    base = [[1.0, 0.5], [2.0, -0.25], [-1.0, 1.5]]
    if is_contact_scheme(name):
        base = [row + [0.25 * k] for k, row in enumerate(base)]
    return base if batch is None else base[:batch]


def exact_flow(name, y0, t, dps):
    """The exact flow of the concrete system at time t (mpmath Taylor-series solver)."""
    with mpmath.workdps(dps + 5):
        y0 = [mpmath.mpf(v) for v in y0]
        if is_contact_scheme(name):
            g = mpmath.mpf(1) / 5
            f = lambda s, y: [y[1], -mpmath.sin(y[0]) - g * y[1], y[1] ** 2 / 2 + mpmath.cos(y[0]) - g * y[2]]
        else:
            f = lambda s, y: [y[1], -mpmath.sin(y[0])]
        return mpmath.odefun(f, 0, y0)(t)
