"""Systems and references shared by the integrators tests (imported by conftest and tests).

Every catalog scheme is tested on one generic system (for certificates) and one concrete
system (for numbers): the pendulum for Hamiltonian schemes, the damped pendulum as a
contact system (H = p^2/2 - cos x + z/5) for contact schemes, and a forced pendulum with
time-dependent damping for schemes of time-dependent contact systems.  The generic system
of a scheme is the most general one it applies to (:func:`generic_for`): ``T(p)`` undefined
when the scheme allows it, ``p^2/2`` when it needs a Legendre transform (Herglotz).

A scheme that needs a special kind of system (a requirement ``r`` such as "damped",
"constrained", "port-hamiltonian") takes its cases from the module ``ig_cases_<r>.py``
(dashes as underscores) beside this one, which defines ``GENERIC`` (a generic system),
``CONCRETE`` (a concrete one), ``INITIAL`` (three initial states, dyadic numbers) and
``exact_flow(y0, t, dps)`` (the concrete system's exact flow at time t).
"""

import importlib

import mpmath
import sympy as sp

import integrators as ig

q, p, x, z, gamma = sp.symbols("q p x z gamma")
V = sp.Function("V")
T = sp.Function("T")
U, G = sp.Function("U"), sp.Function("G")
t = sp.Symbol("t")

GENERIC = ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
GENERIC_CONTACT = ig.ContactSystem(T(p) + V(x) + gamma * z, x, p, z)
PENDULUM = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
DAMPED_PENDULUM = ig.ContactSystem(p**2 / 2 - sp.cos(x) + z / 5, x, p, z)
#: the generic contact system with kinetic energy p^2/2 (the Herglotz schemes need its Legendre transform)
GENERIC_CONTACT_QUADRATIC = ig.ContactSystem(p**2 / 2 + V(x) + gamma * z, x, p, z)
#: the generic time-dependent contact system T(p) + U(x, t) + G(t) z
GENERIC_CONTACT_TIME = ig.ContactSystem(T(p) + U(x, t) + G(t) * z, x, p, z, t=t)
#: a forced pendulum with time-dependent damping gamma(t) = (2 + cos t)/10
FORCED_DAMPED_PENDULUM = ig.ContactSystem(p**2 / 2 - sp.cos(x) + x * sp.sin(t) / 4 + (2 + sp.cos(t)) * z / 10,
                                          x, p, z, t=t)


def is_contact_scheme(name):
    return "contact" in ig.scheme(name).requires


def is_time_dependent_scheme(name):
    """A contact scheme that applies only to time-dependent systems (it refuses the autonomous ones)."""
    s = ig.scheme(name)
    return is_contact_scheme(name) and s.why_not(DAMPED_PENDULUM) is not None and s.why_not(
        FORCED_DAMPED_PENDULUM) is None


def kind_cases(name):
    """The cases module of a scheme needing a special kind of system, or None (see the module docstring).

    A module named after the scheme itself (``ig_cases_<name>.py``) comes first: for a scheme
    whose declared order is reached only on some systems (Itoh-Abe is the average vector field,
    of order 2, on every separable one-degree-of-freedom H such as the pendulum).
    """
    for req in [ig.scheme(name).name] + sorted(ig.scheme(name).requires):
        module = "ig_cases_" + req.replace("-", "_")
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as error:
            if error.name != module:
                raise
    return None


def generic_for(name):
    """The most general generic system the scheme applies to.

    Hamiltonian schemes: H = p^2/2 + V(q) (V undefined).  Contact schemes, the first that
    applies of: T(p) + V(x) + gamma z (T, V undefined); p^2/2 + V(x) + gamma z;
    T(p) + U(x, t) + G(t) z (time-dependent).
    """
    cases = kind_cases(name)
    if cases is not None:
        return cases.GENERIC
    if not is_contact_scheme(name):
        return GENERIC
    s = ig.scheme(name)
    for system in (GENERIC_CONTACT, GENERIC_CONTACT_QUADRATIC, GENERIC_CONTACT_TIME):
        if s.why_not(system) is None:
            return system
    raise AssertionError(f"no generic contact system for {name}")


def concrete_for(name):
    cases = kind_cases(name)
    if cases is not None:
        return cases.CONCRETE
    if not is_contact_scheme(name):
        return PENDULUM
    return FORCED_DAMPED_PENDULUM if is_time_dependent_scheme(name) else DAMPED_PENDULUM


def initial_for(name, batch=None):
    """Initial states of the concrete system (dyadic numbers)."""
    cases = kind_cases(name)
    if cases is not None:
        base = [list(row) for row in cases.INITIAL]
        return base if batch is None else base[:batch]
    base = [[1.0, 0.5], [2.0, -0.25], [-1.0, 1.5]]
    if is_contact_scheme(name):
        base = [row + [0.25 * k] for k, row in enumerate(base)]
    return base if batch is None else base[:batch]


def exact_flow(name, y0, t, dps):
    """The exact flow of the concrete system at time t (mpmath Taylor-series solver)."""
    cases = kind_cases(name)
    if cases is not None:
        return cases.exact_flow(y0, t, dps)
    with mpmath.workdps(dps + 5):
        y0 = [mpmath.mpf(v) for v in y0]
        if is_time_dependent_scheme(name):
            def f(s, y):
                g = (2 + mpmath.cos(s)) / 10
                return [y[1], -mpmath.sin(y[0]) - mpmath.sin(s) / 4 - g * y[1],
                        y[1] ** 2 / 2 + mpmath.cos(y[0]) - y[0] * mpmath.sin(s) / 4 - g * y[2]]
        elif is_contact_scheme(name):
            g = mpmath.mpf(1) / 5
            f = lambda s, y: [y[1], -mpmath.sin(y[0]) - g * y[1], y[1] ** 2 / 2 + mpmath.cos(y[0]) - g * y[2]]
        else:
            f = lambda s, y: [y[1], -mpmath.sin(y[0])]
        return mpmath.odefun(f, 0, y0)(t)
