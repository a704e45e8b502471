"""Building a scheme's stage maps (integrators.schemes.stages.stage_step) and checking them (Map's finiteness).

The build shares work -- one stage value Y_{i,c} per stage and coordinate, one substitution per
stage, the dependency graph skipped for an explicit tableau, zero coefficients dropped once -- and
Map checks all its components in one walk over their shared subexpressions.  Here: the maps are the
Runge-Kutta formulas written out by hand in plain sympy (expression for expression), and nothing
non-finite gets through the shared walk, however deep and however shared.
"""

import numpy as np
import pytest
import sympy

import geomcheck as gc
import integrators as ig
from geomcheck.algebra import find_node, require_finite
from geomcheck.errors import ExpressionError
from integrators.kernels import kernel_step, with_kernel
from integrators.schemes.stages import StageMap, stage_step

h = sympy.Symbol("h")
q, p, x, y, t = sympy.symbols("q p x y t")
G = sympy.Function("G")
R = sympy.Rational


def shared_tower(bottom, levels=40):
    """``e_{k+1} = sin(e_k) + y e_k`` from ``bottom``: a tree of about 2^levels nodes on a DAG of ~4 levels."""
    e = bottom
    for _ in range(levels):
        e = sympy.sin(e) + y * e
    return e


# ------------------------------------------------------------------------ finiteness, shared walk

@pytest.mark.parametrize("bad", [sympy.zoo, sympy.nan, sympy.oo, -sympy.oo])
def test_a_non_finite_number_at_the_bottom_of_a_huge_shared_tree_is_refused(bad):
    e = shared_tower(x + G(x, bad))       # G keeps the number as it is (x + nan would collapse to nan)
    with pytest.raises(ExpressionError, match="finite expression was expected"):
        require_finite(e)
    with pytest.raises(ExpressionError, match="Map expression for p"):
        gc.Map(gc.Chart(["x", "p"]), gc.Chart(["x", "p"]), [shared_tower(x), e])


def test_the_finite_memo_never_hides_a_non_finite_node_next_to_known_finite_subtrees():
    finite = {}
    clean = shared_tower(x)
    assert require_finite(clean, finite=finite) is clean and id(clean) in finite
    # the known-finite tower as a part, zoo beside it, deep below a fresh node, or in a fresh tower
    # whose bottom is the known-finite one
    zoo = sympy.zoo
    for dirty in [clean + G(zoo), sympy.cos(clean * G(x, zoo) + clean),
                  shared_tower(clean + G(clean, zoo), levels=10)]:
        before = dict(finite)
        with pytest.raises(ExpressionError, match="zoo"):
            require_finite(dirty, finite=finite)
        assert finite == before                  # a walk that stopped part way adds nothing
    assert require_finite(sympy.sin(clean) + clean, finite=finite) is not None


def test_a_map_refuses_zoo_in_a_later_component_built_on_the_earlier_components():
    chart = gc.Chart(["q", "p"])
    first = shared_tower(q, levels=30)
    second = shared_tower(first + p * G(first, sympy.zoo), levels=5)
    for exprs in ([first, second], [second, first]):
        with pytest.raises(ExpressionError, match="zoo"):
            gc.Map(chart, chart, exprs)
    assert gc.Map(chart, chart, [first, shared_tower(first + p, levels=5)]).exprs[0] is first


def test_find_node_with_a_shared_memo_looks_at_each_distinct_node_once():
    phi = ig.scheme("rk4").step_map(ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p))
    distinct = {}
    stack = list(phi.exprs)
    while stack:
        e = stack.pop()
        if id(e) not in distinct:
            distinct[id(e)] = e
            stack.extend(e.args)
    looked, cleared = [], {}
    for e in phi.exprs:
        assert find_node(e, lambda n: looked.append(n) or False, cleared) is None
    assert len(looked) == len(distinct) == len({id(n) for n in looked})


# ------------------------------------------------------------------------ the maps, written out by hand

def runge_kutta_by_hand(f, coords, A, b, c, time=None):
    """The explicit RK step of y' = f(y) (f: list of expressions in coords): every term, zero or not."""
    s = len(b)
    k = []
    for i in range(s):
        Y = {y_: y_ + h * sum((A[i][j] * k[j][n] for j in range(i)), sympy.S.Zero) for n, y_ in enumerate(coords)}
        if time is not None:
            Y[time] = time + c[i] * h
        k.append([fc.xreplace(Y) for fc in f])
    return [y_ + h * sum((b[i] * k[i][n] for i in range(s)), sympy.S.Zero) for n, y_ in enumerate(coords)]


RK4 = ([[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]], [R(1, 6), R(1, 3), R(1, 3), R(1, 6)],
       [0, R(1, 2), R(1, 2), 1])
#: Heun's third-order method: zeros inside A and a zero weight (HLW Table II.1.1)
HEUN3 = ([[0, 0, 0], [R(1, 3), 0, 0], [0, R(2, 3), 0]], [R(1, 4), 0, R(3, 4)], [0, R(1, 3), R(2, 3)])


def _systems():
    q1, q2, p1, p2 = sympy.symbols("q1 q2 p1 p2")
    return {
        "pendulum-like, 2 dim": ig.HamiltonianSystem(p**2 / 2 * (1 + q**2) - sympy.cos(q), q, p),
        "coupled, 4 dim": ig.HamiltonianSystem((p1**2 + p2**2) / 2 + q1**2 * q2 + sympy.exp(q2) * p1,
                                               [q1, q2], [p1, p2]),
        "driven, time-dependent": ig.PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, R(1, 8)]],
                                                            p**2 / 2 - sympy.cos(q), [q, p], g=[[0], [1]], u=[t / 4]),
    }


@pytest.mark.parametrize("tableau", [RK4, HEUN3], ids=["rk4", "heun3"])
@pytest.mark.parametrize("name", list(_systems()))
def test_an_explicit_stage_map_is_the_runge_kutta_formula_written_out(name, tableau):
    system = _systems()[name]
    A, b, c = tableau
    phi = stage_step(system, [(A, b)], nodes=c)
    assert type(phi) is gc.Map
    f = [system.vector_field.component(y_) for y_ in system.coords]
    expected = runge_kutta_by_hand(f, system.coords, A, b, c, system.time)
    assert list(phi.exprs) == expected                                   # the same expressions (==)
    assert ig.RungeKutta(A, b).step_map(system) == phi


def test_a_cyclic_tableau_still_goes_through_the_dependency_graph():
    pend = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
    # Lobatto IIIA-IIIB on a separable H: no cycle, the explicit Stormer-Verlet formulas
    half = R(1, 2)
    verlet = stage_step(pend, [([[0, 0], [half, half]], [half, half]), ([[half, 0], [half, 0]], [half, half])],
                        part=[0, 1])
    p_half = p - h / 2 * sympy.sin(q)
    Q = q + h * p_half
    assert type(verlet) is gc.Map
    assert [sympy.expand(e - v) for e, v in zip(verlet.exprs, [Q, p_half - h / 2 * sympy.sin(Q)])] == [0, 0]
    # the implicit midpoint rule: one cyclic stage, its two slopes the unknowns
    mid = stage_step(pend, [([[half]], [1])])
    assert isinstance(mid, StageMap) and len(mid.auxiliary) == 2
    k_q, k_p = sorted(mid.auxiliary, key=lambda k: k.name.endswith("p}"))      # k_{1,q}, k_{1,p}
    assert set(mid.equations[2:]) == {k_q - (p + h / 2 * k_p), k_p + sympy.sin(q + h / 2 * k_q)}


# ------------------------------------------------------------------------ on a kernel

@pytest.mark.filterwarnings("ignore:explicit-euler has no stability interval")
@pytest.mark.parametrize("name", ["rk4", "explicit-euler", "stormer-verlet", "yoshida-4"])
def test_the_kernel_step_of_a_two_dim_system_follows_the_symbolic_run(name):
    osc = ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)
    fast = with_kernel(osc, lambda Y, params: np.stack([Y[:, 1], -Y[:, 0] ** 3], axis=1))
    step = kernel_step(name, fast)
    assert len({id(L) for L in step.lowered}) == 1           # one lowered map per distinct stage map
    a = ig.integrate(fast, name, [0.7, -0.2], dt=0.05, steps=20, use_kernel=True).y
    b = ig.integrate(osc, name, [0.7, -0.2], dt=0.05, steps=20).y
    assert np.abs(a - b).max() <= 1e-13
