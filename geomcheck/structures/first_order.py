"""Ordinary differential equations lowered to a first-order system ``x' = F(x)``.

Each unknown function and its derivatives below the highest order become state variables;
the equations, linear in the highest derivatives, are solved for them (Cramer's rule on the
symbolic coefficient matrix, so a parameter-dependent system stays exact).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from ..calculus import diff
from ..errors import PortHamiltonianError
from ..latex import Derivation, summarize
from .port_hamiltonian_data import entry_is_zero, scalar_expression

__all__ = ["FirstOrderSystem", "first_order_system"]


@dataclass(frozen=True)
class FirstOrderSystem:
    """``x' = F(x)`` obtained from higher-order equations.

    Attributes
    ----------
    x : tuple of Symbol
        The state: each unknown function and its derivatives below the highest order.
    F : tuple of expressions
    highest : dict
        ``{function: expression of its highest derivative in the state}``.
    derivation : Derivation
    """

    x: tuple
    F: tuple
    highest: dict
    derivation: Derivation

    def latex(self) -> str:
        return self.derivation.latex()

    def _latex(self, printer=None):
        return r" \\ ".join(r"\dot " + sympy.latex(xi) + " = " + sympy.latex(f) for xi, f in zip(self.x, self.F))


def first_order_system(equations: Sequence[sympy.Equality | sympy.Expr], functions: Sequence[sympy.Expr],
                       t: sympy.Symbol,
                       names: Sequence[Sequence[str | sympy.Symbol]] | None = None) -> FirstOrderSystem:
    """Lower the order of ODEs linear in their highest derivatives: ``x' = F(x)``.

    Parameters
    ----------
    equations : sequence of sympy Eq or expressions (``== 0``)
    functions : sequence of applied functions of t, e.g. ``Function("y")(t)``
    t : Symbol
    names : sequence (one per function) of sequences of state names, one per derivative
        order below the highest (default ``y0, y1, ..``).

    Raises
    ------
    PortHamiltonianError
        The equations are not linear in the highest derivatives, or cannot be solved for them.

    Examples
    --------
    >>> import sympy
    >>> t, k = sympy.symbols("t k"); y = sympy.Function("y")(t)
    >>> S = first_order_system([sympy.Eq(y.diff(t, 2), -k * y)], [y], t, [["q", "p"]])
    >>> S.x, S.F
    ((q, p), (p, -k*q))
    """
    eqs = []
    for e in equations:
        if isinstance(e, sympy.Equality):
            e = e.lhs - e.rhs
        eqs.append(scalar_expression(e, "an equation"))
    functions = list(functions)
    if len(eqs) != len(functions):
        raise PortHamiltonianError(f"{len(eqs)} equations for {len(functions)} unknown functions; expected as many")
    orders = []
    for f in functions:
        r = 0
        for e in eqs:
            for dv in e.atoms(sympy.Derivative):
                if dv.expr == f:
                    r = max(r, dv.derivative_count)
        if r == 0:
            raise PortHamiltonianError(f"the equations contain no derivative of {f}")
        orders.append(r)
    if names is None:
        names = [[f"{f.func.__name__}{k}" for k in range(r)] for f, r in zip(functions, orders)]
    names = [list(ns) for ns in names]
    for f, r, ns in zip(functions, orders, names):
        if len(ns) != r:
            raise PortHamiltonianError(f"{f} has order {r}: expected {r} state names, got {ns}")
    state, replace, tops = [], {}, []
    for f, r, ns in zip(functions, orders, names):
        syms = [sympy.Symbol(str(s)) for s in ns]
        state += syms
        # highest derivatives first, so that a lower one is never replaced inside a higher one
        top = sympy.Dummy(f"{f.func.__name__}_top")
        tops.append(top)
        replace[sympy.Derivative(f, (t, r))] = top
        for k in range(r - 1, 0, -1):
            replace[sympy.Derivative(f, (t, k))] = syms[k]
        replace[f] = syms[0]
    reduced = [e.xreplace(replace) for e in eqs]
    for e in reduced:
        if e.has(t) and any(e.has(f) for f in functions):
            raise PortHamiltonianError(f"the equation {e} still contains the unknown functions")
    A = sympy.Matrix([[diff(e, s) for s in tops] for e in reduced])
    for e in reduced:
        for s in tops:
            if diff(diff(e, s), s) != 0:
                raise PortHamiltonianError(f"the equation {e} is not linear in the highest derivatives")
    b = -sympy.Matrix([e.xreplace({s: 0 for s in tops}) for e in reduced])
    det = A.det(method="berkowitz")
    if entry_is_zero(det) is not False:
        raise PortHamiltonianError("the equations cannot be solved for the highest derivatives (singular)")
    sol = A.adjugate() * b / det
    highest = {f: sympy.expand(sympy.cancel(v)) for f, v in zip(functions, sol)}
    F = []
    pos = 0
    for f, r in zip(functions, orders):
        syms = state[pos:pos + r]
        F += list(syms[1:]) + [highest[f]]
        pos += r
    D = Derivation("Lowering the order")
    D = D.add("The equations", r" \\ ".join(sympy.latex(e) + " &= 0" for e in eqs))
    D = D.add(r"are linear in the highest derivatives; solved for them, in the state $("
              + ", ".join(sympy.latex(s) for s in state) + ")$:",
              r" \\ ".join(sympy.latex(sympy.Derivative(f, (t, r))) + " &= " + summarize(highest[f])
                           for f, r in zip(functions, orders)))
    D = D.add("The first-order system:", r" \\ ".join(r"\dot " + sympy.latex(s) + " &= " + summarize(v)
                                                     for s, v in zip(state, F)))
    return FirstOrderSystem(tuple(state), tuple(F), highest, D)
