"""A user's script for a type checker: the README's examples, and more of the public API.

Nothing runs at import (pytest imports this module to collect doctests; it has none): the
examples are functions.  Check that the public signatures type-check a typical use with

    mypy --ignore-missing-imports --follow-imports=silent tests/typing_example.py

(``silent``: errors inside the libraries' own bodies are not reported, their signatures are
used), or run it: ``python tests/typing_example.py``.
"""

from __future__ import annotations

import numpy as np
import sympy

import geomcheck as gc
import integrators as ig
from geomcheck.certify import Certificate
from geomcheck.structures import beam_symplecticity, trapezoidal_map, trapezoidal_two_form
from geomcheck.testing import assert_order, assert_symplectic
from geomcheck.zero import ZeroDecision, decide_all_zero, decide_zero
from integrators.stability import StepSizeError


def flow_is_symplectic() -> bool | None:
    """README: the Hamiltonian flow of any potential preserves dq ^ dp."""
    M = gc.Chart("q p")
    q, p = M.coords
    w: gc.Form = M.d(q) ^ M.d(p)
    X: gc.VectorField = gc.hamiltonian_vector_field(p**2 / 2 + sympy.Function("V")(q), w)
    tex: str = gc.latex(X)
    assert tex
    return gc.lie(X, w).is_zero()


def verlet_certificate() -> tuple[bool | None, str, str]:
    """README: Stormer-Verlet is symplectic for every potential, with the derivation."""
    M = gc.Chart("q p")
    q, p = M.coords
    w = M.d(q) ^ M.d(p)
    h = sympy.Symbol("h")
    V = sympy.Function("V")
    p_half = p - h / 2 * V(q).diff(q)
    Q = q + h * p_half
    P = p_half - h / 2 * gc.substitute(V(q).diff(q), {q: Q})
    cert: Certificate = gc.certify_symplectic(gc.Map(M, M, [Q, P]), w)
    tex: str = cert.latex()
    return cert.holds, cert.method, tex


def papers() -> tuple[bool | None, ...]:
    """README: the papers' theorems (Terakawa & Yaguchi; Guo, Li & Wu)."""
    r = beam_symplecticity(n_x=11, n_b=5)
    M = gc.Chart("q p")
    q, p = M.coords
    w = M.d(q) ^ M.d(p)
    h = sympy.Symbol("h")
    V = sympy.Function("V")
    phi: gc.ImplicitMap = trapezoidal_map(p**2 / 2 + V(q), [q], [p], h)
    w_h: gc.Form = trapezoidal_two_form(p**2 / 2 + V(q), [q], [p], h)
    return (r.full_space.holds, r.on_submanifold.holds,
            gc.certify_symplectic(phi, w).holds, gc.certify_preserves(phi, w_h).holds)


def engine() -> list[object]:
    """Zero tests, domains, implicit maps, orders, modified equations, assertions."""
    x = sympy.Symbol("x")
    d: ZeroDecision = decide_zero(sympy.sin(x)**2 + sympy.cos(x)**2 - 1, budget=5.0)
    both = decide_all_zero({"a": x - x, "b": sympy.sqrt(x**2) - x}, domain={x: (0, sympy.oo)})
    polar = gc.Chart("r theta", domain={"r": (0, sympy.oo)})
    where: str = polar.domain.describe(polar.coords)
    M = gc.Chart("q p")
    q, p = M.coords
    h = sympy.Symbol("h")
    Qn, Pn = sympy.symbols("Q P")
    mid = gc.ImplicitMap(M, M, [Qn - q - h * (p + Pn) / 2, Pn - p + h * (q + Qn) / 2], new=[Qn, Pn])
    X = gc.VectorField(M, {q: p, p: -q})
    order: int | None = gc.map_order(mid, X, h, 3)
    conserved = gc.certify_conserves(mid, (q**2 + p**2) / 2)
    verlet = gc.Map(M, M, [q + h * (p - h / 2 * q), p - h / 2 * q - h / 2 * (q + h * (p - h / 2 * q))])
    Ht, cert = gc.modified_hamiltonian(verlet, M.d(q) ^ M.d(p), h, 2)
    assert_symplectic(verlet, M.d(q) ^ M.d(p))
    assert_order(verlet, X, h, 2)
    w: gc.Form = M.d(q) ^ M.d(p)
    pulled: gc.Form = gc.pullback(gc.lie(X, w), mid)         # lie of a Form is a Form
    twice: gc.Map = gc.compose(verlet, verlet)                # two explicit maps compose to a Map
    theta: gc.Form = gc.primitive(M.d(q) ^ M.d(p), center={q: 0, p: 0})
    G = gc.Chart("x xi", degrees=[0, 1])
    homological: bool | None = gc.VectorField(G, {G.coords[0]: G.coords[1]}).is_homological()
    return [d.is_zero, both.index, where, order, conserved.holds, Ht, cert.holds, pulled, twice, theta, homological]


def pendulum_ensemble(n: int = 100, steps: int = 1_000) -> tuple[bool, bool]:
    """README: an ensemble of pendulums; an unstable step size is refused."""
    x, v = sympy.symbols("x v")
    pendulum = ig.HamiltonianSystem(v**2 / 2 - sympy.cos(x), x, v)
    y0 = np.column_stack([np.linspace(0.1, 3.0, n), np.zeros(n)])
    sol: ig.Solution = ig.integrate(pendulum, "stormer-verlet", y0, dt=0.1, steps=steps, compensated=True)
    energy: np.ndarray = sol.energy()
    bounded = bool(np.abs(energy - energy[0]).max() < 5e-3)
    try:
        ig.integrate(pendulum, "stormer-verlet", y0, dt=2.1, steps=10)
        refused = False
    except StepSizeError:
        refused = True
    return bounded, refused


def schemes() -> list[object]:
    """Catalog schemes, their certificates, high precision, a composition."""
    q, p = sympy.symbols("q p")
    system = ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, [q], [p])
    verlet = ig.scheme("stormer-verlet")
    certificates: dict[str, Certificate] = verlet.certify(system)
    yoshida = ig.Composition(verlet, [1 / (2 - 2 ** sympy.Rational(1, 3)), -2 ** sympy.Rational(1, 3)
                                      / (2 - 2 ** sympy.Rational(1, 3)), 1 / (2 - 2 ** sympy.Rational(1, 3))])
    sol = ig.integrate(system, yoshida, [1.0, 0.0], dt="0.01", steps=100, backend="mpmath", dps=30)
    rk = ig.RungeKutta([[0, 0], [sympy.Rational(1, 2), 0]], [0, 1])
    return [certificates["order"].holds, sol.y[-1], rk.order_certificate().holds, ig.example_system(
        ig.list_example_systems()[0])]


def main() -> None:
    print(flow_is_symplectic())
    print(verlet_certificate()[:2])
    print(papers())
    print(engine()[:5])
    print(pendulum_ensemble())
    print(schemes()[:2])


if __name__ == "__main__":
    main()
