"""Assertions for users' own test suites: a failure shows the residual or counterexample.

Each assertion passes only when the property is certified (proved, or zero by
randomized high-precision evaluation); it fails with the certificate's method and
counterexample when the property is refuted, and also when it is undecided, since a
test must not pass on "unknown".

Testing your own scheme against every potential, with the shipped strategies (each
example is a proof, which takes longer than hypothesis' default 200 ms deadline: switch the
deadline off; a few examples suffice because each one covers every point):

>>> import geomcheck as gc, sympy
>>> from hypothesis import given, settings
>>> from geomcheck import strategies as gst
>>> from geomcheck.testing import assert_symplectic
>>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
>>> @settings(max_examples=5, deadline=None)
... @given(V=gst.coefficients(gc.Chart("q"), kind="transcendental"))
... def test_my_scheme_is_symplectic(V):
...     dV = sympy.diff(V, q)
...     p_half = p - h / 2 * dV
...     Q = q + h * p_half
...     P = p_half - h / 2 * gc.substitute(dV, {q: Q})
...     assert_symplectic(gc.Map(M, M, [Q, P]), M.d(q) ^ M.d(p))
>>> test_my_scheme_is_symplectic()   # hypothesis draws the potentials; silence means every one passed

>>> import geomcheck as gc, sympy
>>> from geomcheck.testing import assert_symplectic
>>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
>>> cert = assert_symplectic(gc.Map(M, M, [q + h * p, p]), M.d(q) ^ M.d(p))
>>> assert_symplectic(gc.Map(M, M, [q + h * p, p - h * q]), M.d(q) ^ M.d(p))
Traceback (most recent call last):
...
AssertionError: the map is not symplectic: ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .certify import (
    certify_conserves,
    certify_contact,
    certify_order,
    certify_preserves,
    certify_symplectic,
)

if TYPE_CHECKING:
    import sympy

    from .certify import Certificate
    from .fields import VectorField
    from .forms import Form
    from .maps import ImplicitMap, Map

__all__ = ["assert_symplectic", "assert_contact", "assert_preserves", "assert_conserves", "assert_order",
           "assert_bseries_order", "assert_conjugate_symplectic", "assert_energy_preserving"]


def _require(cert, what: str, subject: str = "the map"):
    if cert.holds is True:
        return cert
    if cert.holds is False:
        point = ""
        if cert.counterexample:
            point = "; counterexample: " + ", ".join(f"{k} = {v}" for k, v in list(cert.counterexample.items())[:8])
        raise AssertionError(f"{subject} is not {what}: {cert.method}{point}\nresidual: {cert.residual}")
    raise AssertionError(f"could not decide whether {subject} is {what}: {cert.method}")


def assert_symplectic(phi: Map | ImplicitMap, omega: Form) -> Certificate:
    """Assert ``phi^* omega == omega``; returns the certificate."""
    return _require(certify_symplectic(phi, omega), "symplectic")


def assert_contact(phi: Map | ImplicitMap, eta: Form) -> Certificate:
    """Assert ``phi^* eta == g eta`` (g nowhere zero); returns the certificate (g is ``.factor``)."""
    return _require(certify_contact(phi, eta), "a contact map")


def assert_preserves(phi: Map | ImplicitMap, form: Form) -> Certificate:
    """Assert ``phi^* form == form``; returns the certificate."""
    return _require(certify_preserves(phi, form), "form-preserving")


def assert_conserves(phi: Map | ImplicitMap, H: sympy.Expr | float) -> Certificate:
    """Assert ``H o phi == H``; returns the certificate."""
    return _require(certify_conserves(phi, H), "conservative")


def assert_order(phi: Map | ImplicitMap, field: VectorField, h: sympy.Symbol, order: int) -> Certificate:
    """Assert that phi has order at least ``order`` for the flow of ``field``; returns the certificate."""
    return _require(certify_order(phi, field, h, order), f"of order {order}")


# ----------------------------------------------------------------------------- methods, for every vector field
# (B-series: a tableau, a geomcheck.bseries.BSeries, or a scheme with .bseries(order), e.g. ig.RungeKutta)


def assert_bseries_order(method: object, order: int) -> Certificate:
    """Assert that a B-series method has order at least ``order`` for every vector field; returns the certificate.

    >>> import sympy
    >>> from geomcheck.testing import assert_bseries_order
    >>> from geomcheck.certify.tableaux import ButcherTableau
    >>> heun = ButcherTableau([[0, 0], [1, 0]], [sympy.Rational(1, 2), sympy.Rational(1, 2)])
    >>> assert_bseries_order(heun, 3)
    Traceback (most recent call last):
    ...
    AssertionError: the method is not of order 3: ...
    """
    from .bseries import order_of, series_of

    cert = order_of(series_of(method, order))
    if cert.order >= order:
        return cert
    raise AssertionError(f"the method is not of order {order}: its order is {cert.order} ({cert.method})")


def assert_conjugate_symplectic(method: object, order: int) -> Certificate:
    """Assert that a B-series method is conjugate to a symplectic method up to ``order``; returns the certificate.

    >>> import sympy
    >>> from geomcheck.testing import assert_conjugate_symplectic
    >>> from geomcheck.certify.tableaux import ButcherTableau
    >>> half = sympy.Rational(1, 2)
    >>> cert = assert_conjugate_symplectic(ButcherTableau([[0, 0], [half, half]], [half, half]), 6)  # trapezoidal
    """
    from .bseries import is_conjugate_symplectic

    return _require(is_conjugate_symplectic(method, order), f"conjugate symplectic up to order {order}", "the method")


def assert_energy_preserving(method: object, order: int) -> Certificate:
    """Assert that a B-series method preserves every Hamiltonian up to ``O(h^(order+1))``; returns the certificate.

    >>> from geomcheck.testing import assert_energy_preserving
    >>> from geomcheck.bseries import average_vector_field
    >>> cert = assert_energy_preserving(average_vector_field(6), 6)
    """
    from .bseries import is_energy_preserving

    return _require(is_energy_preserving(method, order), f"energy-preserving up to order {order}", "the method")
