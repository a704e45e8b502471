"""The one-step map of a (partitioned) Runge-Kutta method, built symbolically.

For ``y' = f(y)`` and tableaux ``(A^k, b^k)`` (one per colour; coordinate ``c``
has colour ``part[c]``) the stage slopes are

    k_{i,c} = f_c(Y_i),   Y_{i,c'} = y_{c'} + h sum_j A^{part[c']}_{ij} k_{j,c'},

and the new state is ``y_c + h sum_i b^{part[c]}_i k_{i,c}``.

The slope ``k_{i,c}`` depends on ``k_{j,c'}`` only when ``f_c`` contains the
coordinate ``y_{c'}`` and ``A^{part[c']}_{ij} != 0``.  The strongly connected
components of that dependency graph are taken in dependency order: a component
without a cycle is an explicit formula (substituted), a cyclic one becomes
unknowns with their stage equations.  So an explicit tableau gives a
:class:`geomcheck.Map`, Lobatto IIIA-IIIB on a separable H gives the explicit
Stormer-Verlet formulas, and Gauss-Legendre gives a :class:`geomcheck.ImplicitMap`
with the stage slopes as auxiliary unknowns (guess ``k = f(y)``, exact at h = 0).

>>> import sympy, integrators as ig
>>> from integrators.schemes.stages import stage_step
>>> q, p = sympy.symbols("q p")
>>> s = ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)
>>> h = sympy.Symbol("h")
>>> half = sympy.Rational(1, 2)
>>> phi = stage_step(s, [([[0, 0], [half, half]], [half, half]),      # Lobatto IIIA (q)
...                      ([[half, 0], [half, 0]], [half, half])],     # Lobatto IIIB (p)
...                  part=[0, 1])
>>> type(phi).__name__                                               # explicit: Stormer-Verlet
'Map'
"""

from __future__ import annotations

import sympy
from sympy.utilities.iterables import strongly_connected_components

import geomcheck as gc

from ..systems import STEP_SYMBOL

__all__ = ["stage_step", "stage_parameters", "StageMap", "fresh_symbol_factory", "guess_at_zero"]


class StageMap(gc.ImplicitMap):
    """A gc.ImplicitMap whose implicit-function-theorem data is computed on first use.

    ``gc.ImplicitMap`` validates its Jacobian at construction: a symbolic sparse solve
    for small systems, else a numeric check of ``det J`` on the solution manifold (see
    the "Implicit derivatives" section of :mod:`geomcheck.maps`).  Integration never
    needs either (before implicit derivatives, the symbolic solve took seconds for
    many-stage methods and, for the 4-stage Gauss method on two degrees of freedom,
    wrongly reported the Jacobian singular after 90 s), so here the same data is
    computed when a certificate first asks for it.  The stage equations of a Runge-Kutta
    method have the identity as Jacobian at h = 0, so they are well posed for small h;
    a singular Jacobian is still reported (as ImplicitMapError) by the first certificate.
    """

    def __init__(self, *args, **kwargs):
        self._constructing = True
        try:
            super().__init__(*args, **kwargs)
        finally:
            self._constructing = False

    @property
    def dependence(self):
        if getattr(self, "_constructing", False):
            return None
        return gc.ImplicitMap.dependence.fget(self)


def stage_parameters(system) -> list:
    """The constant symbols a step map of ``system`` may contain: h, the system's constants, t."""
    out = [STEP_SYMBOL, *system.parameters]
    if system.time is not None:
        out.append(system.time)
    return out


def _nonzero(a) -> bool:
    return sympy.sympify(a) != 0


def stage_step(system, tableaux, part=None, nodes=None):
    """The step map of the partitioned RK method ``tableaux`` applied to ``system``.

    Parameters
    ----------
    system : HamiltonianSystem or ContactSystem (anything with ``chart``, ``vector_field``,
        ``parameters``, ``time``)
    tableaux : sequence of (A, b)
        Exact coefficients, one pair per colour, all with the same number of stages.
    part : sequence of int, optional
        The colour of each coordinate (default: all 0).
    nodes : sequence, optional
        Stage times ``c_i`` (default: row sums of the first A); used for a time-dependent
        system, whose stage i is evaluated at ``t + c_i h``.

    Returns
    -------
    geomcheck.Map when every stage is explicit, else geomcheck.ImplicitMap.
    """
    h = STEP_SYMBOL
    chart = system.chart
    coords = chart.coords
    n = chart.dim
    if part is None:
        part = [0] * n
    A = [[[sympy.sympify(a) for a in row] for row in Ak] for Ak, _ in tableaux]
    b = [[sympy.sympify(x) for x in bk] for _, bk in tableaux]
    s = len(b[0])
    if nodes is None:
        nodes = [sympy.Add(*row) for row in A[0]]
    t = system.time
    X = system.vector_field
    f = [X.component(y) for y in coords]
    index = {y: c for c, y in enumerate(coords)}
    uses = [sorted(index[x] for x in fc.free_symbols if x in index) for fc in f]

    vertices = [(i, c) for i in range(s) for c in range(n)]
    edges = []
    for i, c in vertices:
        for c2 in uses[c]:
            row = A[part[c2]][i]
            for j in range(s):
                if _nonzero(row[j]):
                    edges.append(((i, c), (j, c2)))
    components = strongly_connected_components((vertices, edges))
    cyclic_self = {u for u, v in edges if u == v}

    K = {}
    equations, unknowns, guess = [], [], {}

    def stage_value(i, c2):
        row = A[part[c2]][i]
        return coords[c2] + h * sympy.Add(*[row[j] * K[(j, c2)] for j in range(s) if _nonzero(row[j])])

    def slope(i, c):
        sub = {coords[c2]: stage_value(i, c2) for c2 in uses[c]}
        if t is not None:
            sub[t] = t + nodes[i] * h
        return gc.substitute(f[c], sub)

    for comp in components:
        if len(comp) == 1 and comp[0] not in cyclic_self:
            i, c = comp[0]
            K[(i, c)] = slope(i, c)
            continue
        for i, c in comp:
            k = sympy.Dummy(f"k_{{{i + 1},{coords[c].name}}}")
            K[(i, c)] = k
            unknowns.append(k)
            guess[k] = f[c]
        for i, c in comp:
            equations.append(K[(i, c)] - slope(i, c))

    new_values = [coords[c] + h * sympy.Add(*[b[part[c]][i] * K[(i, c)] for i in range(s) if _nonzero(b[part[c]][i])])
                  for c in range(n)]
    params = stage_parameters(system)
    if not unknowns:
        return gc.Map(chart, chart, new_values, parameters=params)
    new = [sympy.Dummy(f"{y.name}'") for y in coords]
    eqs = [Y - v for Y, v in zip(new, new_values)] + equations
    guess.update(zip(new, coords))
    return StageMap(chart, chart, eqs, new=new, auxiliary=unknowns, parameters=params, guess=guess, step=h)


def fresh_symbol_factory(system):
    """``fresh(name)``: a new Symbol named ``name`` (primed with ``_`` until it clashes with none of the
    system's coordinates and parameters, ``h``, or a name it gave before), for a step's unknowns."""
    taken = {x.name for x in system.chart.coords} | {x.name for x in system.parameters} | {"h"}

    def fresh(name):
        while name in taken:
            name += "_"
        taken.add(name)
        return sympy.Symbol(name)

    return fresh


def guess_at_zero(phi):
    """The same equations with Newton's guess taken at ``h = 0`` (where geomcheck's expansion in h starts).

    Only the starting point differs: the map certified is the map that runs.
    """
    at0 = {STEP_SYMBOL: sympy.S.Zero}
    return StageMap(phi.source, phi.target, list(phi.equations), new=list(phi.new), auxiliary=list(phi.auxiliary),
                    parameters=phi.parameters, guess={u: gc.substitute(g, at0) for u, g in phi.guess.items()},
                    step=STEP_SYMBOL)
