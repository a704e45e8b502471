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
    uses = [tuple(sorted(index[x] for x in fc.free_symbols if x in index)) for fc in f]

    # the nonzero entries of each row of each A (and of each b), found once: the stage values
    # below are sums over them only
    a_support = [[[j for j in range(s) if _nonzero(row[j])] for row in Ak] for Ak in A]
    b_support = [[i for i in range(s) if _nonzero(bk[i])] for bk in b]

    vertices = [(i, c) for i in range(s) for c in range(n)]
    if all(j < i for Ak in a_support for i, row in enumerate(Ak) for j in row):
        # an explicit tableau (every A strictly lower triangular): k_{i,c} depends on slopes of
        # earlier stages only, so stage order is a dependency order and every slope is an
        # explicit formula -- the graph below (dim^2 s edges for a dense field) is not needed
        components, cyclic_self = [[v] for v in vertices], set()
    else:
        edges = []
        for i, c in vertices:
            for c2 in uses[c]:
                for j in a_support[part[c2]][i]:
                    edges.append(((i, c), (j, c2)))
        components = strongly_connected_components((vertices, edges))
        cyclic_self = {u for u, v in edges if u == v}

    K = {}
    equations, unknowns, guess = [], [], {}

    # Y_{i,c2} is the same expression in every slope whose f_c contains y_{c2}: built once per
    # (i, c2) (for a dense field that is dim times fewer builds, and the slopes then share the
    # object, so a later walk over the map's expressions meets it once).  The K it reads are set
    # before any slope needs them (dependency order) and never change afterwards.
    stage_values = {}

    def stage_value(i, c2):
        value = stage_values.get((i, c2))
        if value is None:
            row = A[part[c2]][i]
            value = coords[c2] + h * sympy.Add(*[row[j] * K[(j, c2)] for j in a_support[part[c2]][i]])
            stage_values[(i, c2)] = value
        return value

    # the substitution Y_i for the coordinates f_c contains: one dict per stage and set of
    # coordinates (for a dense field, one per stage).  A coordinate whose stage value is itself
    # (a row of A without nonzero entries: the first stage of an explicit method) is left out:
    # replacing it by itself would rebuild f_c as an equal copy.
    substitutions = {}

    def slope(i, c):
        key = (i, uses[c])
        sub = substitutions.get(key)
        if sub is None:
            sub = {}
            for c2 in uses[c]:
                value = stage_value(i, c2)
                if value is not coords[c2]:
                    sub[coords[c2]] = value
            if t is not None:
                sub[t] = t + nodes[i] * h
            substitutions[key] = sub
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

    new_values = [coords[c] + h * sympy.Add(*[b[part[c]][i] * K[(i, c)] for i in b_support[part[c]]])
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
