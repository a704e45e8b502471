"""Tests of geomcheck.zero: deciding expr == 0 without hanging or lying."""

import pickle
import signal
import threading
import time

import mpmath
import pytest
import sympy as sp

from geomcheck.calculus import diff
from geomcheck.errors import ExpressionError, ImplicitMapError
from geomcheck.zero import (
    Jet,
    Relation,
    ZeroDecision,
    canonical_jets,
    decide_all_zero,
    decide_zero,
    from_jets,
    jet_function,
)

x, y, z, h, p, q, Q, P = sp.symbols("x y z h p q Q P")
q1, q2, p1, p2 = sp.symbols("q1 q2 p1 p2")
V = sp.Function("V")


# --------------------------------------------------------------------------- decisions


def test_decision_refuses_truth_value():
    d = decide_zero(x - x)
    with pytest.raises(TypeError):
        bool(d)
    with pytest.raises(TypeError):
        if d:
            pass
    assert d.is_zero is True


def test_structural_zero_and_constants():
    d = decide_zero(sp.S.Zero)
    assert (d.is_zero, d.stage) == (True, "structural")
    d = decide_zero(0)
    assert d.is_zero is True
    d = decide_zero(sp.Rational(3, 7))
    assert (d.is_zero, d.stage) == (False, "structural")
    assert abs(d.value - mpmath.mpf(3) / 7) < 1e-15


def test_exact_zero():
    d = decide_zero((x + 1) ** 2 - x**2 - 2 * x - 1)
    assert (d.is_zero, d.stage) == (True, "exact")
    assert "exact expansion" in d.method
    d = decide_zero(1 / (x + 1) + 1 / (x - 1) - 2 * x / (x**2 - 1))
    assert (d.is_zero, d.stage) == (True, "exact")
    d = decide_zero(sp.sqrt(x) ** 3 * sp.sqrt(x) - x**2)
    assert d.is_zero is True


def test_pythagoras_needs_randomized_evaluation():
    d = decide_zero(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1)
    assert (d.is_zero, d.stage) == (True, "randomized")
    assert "3 points with 50 digits" in d.method


def test_transcendental_identities():
    assert decide_zero(sp.exp(sp.log(x)) - x).is_zero is True
    assert decide_zero(sp.log(sp.exp(x)) - x).is_zero is True
    assert decide_zero(sp.tan(x) - sp.sin(x) / sp.cos(x)).is_zero is True
    assert decide_zero(sp.exp(sp.I * x) - sp.cos(x) - sp.I * sp.sin(x)).is_zero is True
    assert decide_zero(sp.cosh(x) ** 2 - sp.sinh(x) ** 2 - 1).is_zero is True
    assert decide_zero(sp.exp(x + y) - sp.exp(x) * sp.exp(y)).is_zero is True


def test_nonzero_gives_a_counterexample():
    d = decide_zero(sp.exp(x) - 1 - x)
    assert (d.is_zero, d.stage) == (False, "counterexample")
    assert set(d.point) == {"x"}
    xv = d.point["x"]
    assert isinstance(xv, sp.Rational)
    with mpmath.workdps(60):
        xm = mpmath.mpf(xv.p) / xv.q
        assert abs(d.value - (mpmath.exp(xm) - 1 - xm)) < 1e-45


def test_floats_are_taken_at_their_value():
    # 1 + 1e-30 is the Python float 1.0: the expression is 0
    assert decide_zero(x * y - y * x * (1 + 1e-30)).is_zero is True
    # a 40-digit Float 1 + 1e-30 is not 1: a genuine (tiny) nonzero
    d = decide_zero(x * y - y * x * (1 + sp.Float("1e-30", 40)))
    assert d.is_zero is False
    xv, yv = d.point["x"], d.point["y"]
    assert abs(d.value + mpmath.mpf("1e-30") * float(xv * yv)) < 1e-40


def test_tiny_nonzero_is_confirmed():
    d = decide_zero((x - sp.Rational(1, 3)) ** 2 * sp.Rational(1, 10**20))
    assert (d.is_zero, d.stage) == (False, "counterexample")
    assert "exact modular evaluation" in d.method
    # the value is exact, and it is the expression's value at the point
    assert d.value == ((d.point["x"] - sp.Rational(1, 3)) ** 2 / 10**20) and d.value != 0


def test_tiny_nonzero_below_the_threshold_is_still_found():
    d = decide_zero((x - sp.Rational(1, 3)) ** 2 * sp.Rational(1, 10**60))
    assert d.is_zero is False
    assert abs(d.value) < 1e-59
    # tiny relative to a huge scale
    s = sp.Add(*sp.symbols("s1:11"))
    d = decide_zero(s**12 - sp.expand(s**2) ** 6 + sp.Rational(1, 10**25) * sp.Symbol("s1"))
    assert d.is_zero is False


def test_non_analytic_functions_are_sampled_with_both_signs():
    assert decide_zero(sp.Abs(x) - x).is_zero is False
    assert decide_zero(sp.Abs(x) ** 2 - x**2).is_zero is True
    assert decide_zero(sp.Max(x, y) + sp.Min(x, y) - x - y).is_zero is True


def test_piecewise_and_indexed_coordinates():
    assert decide_zero(sp.Piecewise((x, x > 0), (-x, True)) - sp.Abs(x)).is_zero is True
    assert decide_zero(sp.Piecewise((x, x > 0), (x, True)) - sp.Abs(x)).is_zero is False
    u = sp.IndexedBase("u")
    assert decide_zero((u[1] + u[2]) ** 2 - u[1] ** 2 - 2 * u[1] * u[2] - u[2] ** 2).is_zero is True
    d = decide_zero(sp.sin(u[1]) - u[2])
    assert d.is_zero is False and {"u[1]", "u[2]"} <= set(d.point)


def test_assumptions_are_respected():
    n = sp.Symbol("n", integer=True)
    assert decide_zero(sp.sin(sp.pi * n)).is_zero is True
    r = sp.Symbol("r", negative=True)
    assert decide_zero(sp.sqrt(r**2) + r).is_zero is True


def test_unevaluable_is_unknown():
    d = decide_zero(sp.Integral(sp.exp(-x * y**2), (y, 0, 1)) - x)
    assert (d.is_zero, d.stage) == (None, "unknown")
    assert "Integral" in d.method


def test_functions_without_a_table_entry_use_evalf():
    assert decide_zero(sp.besselj(1, x) ** 2 - sp.besselj(1, x) * sp.besselj(1, x)).is_zero is True
    d = decide_zero(sp.besselj(0, x) + sp.besselj(2, x) - 2 * sp.besselj(1, x) / x)
    assert d.is_zero is True


def test_seed_determinism():
    e = sp.exp(x) * y - x
    d1, d2 = decide_zero(e, seed=3), decide_zero(e, seed=3)
    assert d1.point == d2.point
    assert decide_zero(e, seed=4).point != d1.point
    for seed in range(4):
        assert decide_zero(sp.sin(2 * x) - 2 * sp.sin(x) * sp.cos(x), seed=seed).is_zero is True


# --------------------------------------------------------------------------- jets


def test_mixed_partials_cancel():
    e = sp.Derivative(V(p, q), p, q) - sp.Derivative(V(p, q), q, p)
    assert e != 0  # sympy does not identify them
    assert canonical_jets(e) == 0
    d = decide_zero(e)
    assert (d.is_zero, d.stage) == (True, "exact")
    # through calculus.diff they cancel structurally
    assert diff(diff(V(p, q), p), q) - diff(diff(V(p, q), q), p) == 0


def test_jets_of_chain_rule_output():
    e = V(q + h * p, q)
    j = canonical_jets(diff(diff(e, q), p) - diff(diff(e, p), q))
    assert sp.expand(j) == 0
    assert not canonical_jets(diff(e, q)).has(sp.Subs, sp.Derivative)


def test_jets_are_keyed_by_numeric_point():
    # symbolically different, numerically equal arguments: one jet value
    e = V((q + h) ** 2) - V(q**2 + 2 * q * h + h**2)
    d = decide_zero(e)
    assert (d.is_zero, d.stage) == (True, "modular")
    # transcendental arguments are compared numerically within their error bounds
    d = decide_zero(V(sp.sin(q + h) ** 2) - V(1 - sp.cos(q + h) ** 2))
    assert (d.is_zero, d.stage) == (True, "randomized")
    d = decide_zero(diff(V((q + h) ** 2), q) - 2 * (q + h) * diff(V(q**2 + 2 * q * h + h**2), h) / (2 * (q + h)))
    assert d.is_zero is True


def test_jet_counterexample_names_jets():
    e = sp.Derivative(V(q1, q2), q1, q1) - sp.Derivative(V(q1, q2), q2, q2)
    d = decide_zero(e)
    assert d.is_zero is False
    keys = set(d.point)
    v11 = next(k for k in keys if k.startswith("d^2V/dx1^2("))
    v22 = next(k for k in keys if k.startswith("d^2V/dx2^2("))
    assert {"q1", "q2"} <= keys
    assert f"({d.point['q1']}, {d.point['q2']})" in v11
    assert abs(d.value - (d.point[v11] - d.point[v22])) < 1e-40


def test_jet_printing_and_pickling():
    J = jet_function("V", (1, 1))
    assert issubclass(J, Jet)
    assert str(J(q1, q2)) == "V_{q1q2}(q1, q2)"
    assert str(jet_function("V", (2, 0))(q1 + h, q2)) == "V_{11}(h + q1, q2)"
    assert str(jet_function("V", (0, 0))(q1, q2)) == "V(q1, q2)"
    assert r"\partial" in sp.latex(J(q1, q2))
    e = 3 * J(q1 + h, q2) + jet_function("W", (0,))(p)
    assert pickle.loads(pickle.dumps(e)) == e
    assert J(q1, q2).order == 2


def test_jet_chain_rule():
    J = jet_function("V", (0, 0))
    e = J(q1 + h * p1, q2 * q1)
    d = e.diff(q1)
    assert d == jet_function("V", (1, 0))(q1 + h * p1, q1 * q2) + q2 * jet_function("V", (0, 1))(q1 + h * p1, q1 * q2)


def test_from_jets_round_trip():
    J11 = jet_function("V", (1, 1))(q1, q2)
    assert from_jets(J11) == sp.Derivative(V(q1, q2), q1, q2)
    assert from_jets(jet_function("V", (0, 0))(q1, q2)) == V(q1, q2)
    j = canonical_jets(diff(diff(V(q1 + h * p1, q2), q1), q2))
    back = from_jets(j)
    assert back.has(sp.Subs)
    assert canonical_jets(back) == j
    assert from_jets(x + 1) == x + 1


# --------------------------------------------------------------------------- the key test


def _stormer_verlet_residual(n, perturbed=False):
    """J^T Omega J - Omega for Stormer-Verlet with a generic potential V(q1..qn)."""
    qs = sp.symbols(f"q1:{n + 1}")
    ps = sp.symbols(f"p1:{n + 1}")
    X = sp.symbols(f"x1:{n + 1}")
    grad = [diff(V(*qs), qi) for qi in qs]
    p_half = [ps[i] - h / 2 * grad[i] for i in range(n)]
    Qn = [qs[i] + h * p_half[i] for i in range(n)]
    # the second kick at the new position; the perturbation evaluates it at the
    # predictor q + h p instead (P = p_half - h/2 grad V(q + h p)), which is not symplectic
    # (a kick with any other factor, e.g. h/3, is still symplectic: kicks and drifts are)
    where = [qs[i] + h * ps[i] for i in range(n)] if perturbed else Qn
    grad_new = [diff(V(*X), X[i]).subs(dict(zip(X, where)), simultaneous=True) for i in range(n)]
    Pn = [p_half[i] - h / 2 * grad_new[i] for i in range(n)]
    old, new = list(qs) + list(ps), Qn + Pn
    J = sp.Matrix(2 * n, 2 * n, lambda i, j: diff(new[i], old[j]))
    Omega = sp.zeros(2 * n)
    for i in range(n):
        Omega[i, n + i], Omega[n + i, i] = 1, -1
    return J.T * Omega * J - Omega


def test_stormer_verlet_is_symplectic():
    R = _stormer_verlet_residual(2)
    assert any(e != 0 for e in R)  # not structurally zero
    d = decide_all_zero(R)
    assert d.is_zero is True, d.method
    assert d.stage in ("exact", "randomized")
    # the same entries by randomized evaluation alone agree
    d = decide_all_zero({k: R[k] for k in [(0, 1), (0, 2), (1, 3)]}, seed=1)
    assert d.is_zero is True


def test_stormer_verlet_with_raw_sympy_diff_is_wrong_in_sympy_1_14():
    """Why calculus.diff exists: sympy's own Jacobian of the same map leaks placeholders."""
    n = 2
    qs, ps, X = (q1, q2), (p1, p2), sp.symbols("x1:3")
    grad = [sp.diff(V(*qs), qi) for qi in qs]
    p_half = [ps[i] - h / 2 * grad[i] for i in range(n)]
    Qn = [qs[i] + h * p_half[i] for i in range(n)]
    grad_new = [sp.diff(V(*X), X[i]).subs(dict(zip(X, Qn)), simultaneous=True) for i in range(n)]
    Pn = [p_half[i] - h / 2 * grad_new[i] for i in range(n)]
    J = sp.Matrix(4, 4, lambda i, j: sp.diff((Qn + Pn)[i], (qs + ps)[j]))
    Omega = sp.Matrix([[0, 0, 1, 0], [0, 0, 0, 1], [-1, 0, 0, 0], [0, -1, 0, 0]])
    R = J.T * Omega * J - Omega
    stray = set().union(*(e.free_symbols for e in R)) - {q1, q2, p1, p2, h}
    if not stray:
        pytest.skip("this sympy differentiates Subs correctly")
    assert any(sp.expand(e) != 0 for e in R)
    # the zero test reports the (wrong) expression as nonzero, naming an entry
    d = decide_all_zero(R)
    assert d.is_zero is False and d.index is not None


def test_perturbed_stormer_verlet_is_not_symplectic():
    R = _stormer_verlet_residual(2, perturbed=True)
    d = decide_all_zero(R)
    assert (d.is_zero, d.stage) == (False, "counterexample")
    i, j = d.index
    assert R[i, j] != 0
    assert {"h", "q1", "q2", "p1", "p2"} <= set(d.point)
    assert any(k.startswith("d^2V/dx") for k in d.point)
    assert "exact modular evaluation" in d.method


def test_decide_all_zero_indices():
    d = decide_all_zero({"a": x - x, "b": sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, "c": x + 1})
    assert (d.is_zero, d.index) == (False, "c")
    d = decide_all_zero([0, x - x, (x + 1) ** 2 - x**2 - 2 * x - 1, sp.cos(x) - 1])
    assert (d.is_zero, d.index) == (False, 3)
    d = decide_all_zero(sp.Matrix([[0, x - x], [y * 0, sp.sin(y)]]))
    assert (d.is_zero, d.index) == (False, (1, 1))
    d = decide_all_zero([])
    assert (d.is_zero, d.stage) == (True, "structural")
    assert "no nonzero component" in decide_all_zero({}).method
    d = decide_all_zero([(x + 1) ** 2 - x**2 - 2 * x - 1, sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, 0])
    assert (d.is_zero, d.stage) == (True, "randomized")
    assert d.method.startswith("all 3 entries are zero")


# --------------------------------------------------------------------------- relations


def _pendulum_midpoint():
    return Relation(
        [Q - q - h * (p + P) / 2, P - p + h * sp.sin((q + Q) / 2)],
        [Q, P],
        guess={Q: q, P: p},
        small=[h],
    )


def test_relation_equations_vanish_on_the_manifold():
    R = _pendulum_midpoint()
    d = decide_zero(Q - q - h * (p + P) / 2, relations=[R])
    assert d.is_zero is True
    assert "solution manifold" in d.method
    eq2 = P - p + h * sp.sin((q + Q) / 2)
    d = decide_zero(eq2**2 + 3 * (Q - q - h * (p + P) / 2) * sp.cos(Q), relations=R)
    assert d.is_zero is True


def test_relation_nonzero_on_the_manifold():
    R = _pendulum_midpoint()
    d = decide_zero(Q - q - h * p, relations=[R])
    assert (d.is_zero, d.stage) == (False, "counterexample")
    assert {"Q", "P", "q", "p", "h"} <= set(d.point)
    hv = d.point["h"]
    assert sp.Rational(1, 100) < hv < sp.Rational(1, 20)
    # the midpoint rule does not preserve the pendulum's energy
    d = decide_zero(P**2 / 2 - sp.cos(Q) - p**2 / 2 + sp.cos(q), relations=[R])
    assert d.is_zero is False


def test_relation_with_generic_potential():
    # the discrete-gradient (AVF) scheme preserves H = p^2/2 + V(q) for every V
    R = Relation(
        [Q - q - h * (p + P) / 2, P - p + h * (V(Q) - V(q)) / (Q - q)],
        [Q, P],
        guess={Q: q + h * p, P: p},
        small=[h],
    )
    energy = P**2 / 2 + V(Q) - p**2 / 2 - V(q)
    d = decide_zero(energy, relations=[R])
    assert (d.is_zero, d.stage) == (True, "randomized")
    assert "random polynomial" in d.method
    assert decide_zero(energy + h**3 * Q, relations=[R]).is_zero is False
    # with the unknowns free the energy is not zero
    assert decide_zero(energy).is_zero is False


def test_relations_sharing_unknowns_are_merged():
    # a composite map's relation repeats the equations of its factors
    a, b = sp.symbols("a b")
    R1 = _pendulum_midpoint()
    R2 = Relation(list(R1.equations) + [a - P * h - Q, b - P], [a, b, Q, P], guess={Q: q, P: p}, small=[h])
    assert decide_zero(a - P * h - Q, relations=[R1, R2]).is_zero is True
    assert decide_zero(a - Q, relations=[R1, R2]).is_zero is False
    # a repeated equation in another form: Gauss-Newton on the consistent system
    R3 = Relation([2 * R1.equations[0], R1.equations[1]], [Q, P], guess={Q: q, P: p}, small=[h])
    assert decide_zero(R1.equations[0] * sp.exp(Q), relations=[R1, R3]).is_zero is True


def test_relation_with_a_singular_guess():
    # y = 0 is a fold of the circle: Newton restarts from a moved guess
    R = Relation([x**2 + y**2 - 1], [y])
    assert decide_zero(x**2 + y**2 - 1 + (y**2 - 1 + x**2) * z, relations=[R]).is_zero is True
    d = decide_zero(x / y, relations=[R])
    assert d.is_zero is False
    xv, yv = d.point["x"], mpmath.mpf(d.point["y"])
    assert abs(float(xv) ** 2 + float(yv) ** 2 - 1) < 1e-12


def test_relation_validation():
    with pytest.raises(ImplicitMapError):
        Relation([Q - q], [Q, P])
    with pytest.raises(ImplicitMapError):
        Relation([Q - q], [Q + 1])
    with pytest.raises(ImplicitMapError):
        Relation([Q - q], [Q], guess={P: 1})
    with pytest.raises(ImplicitMapError):
        Relation([Q - q], [Q], guess={Q: Q + 1})
    with pytest.raises(ExpressionError):
        decide_zero(x, relations=["Q - q"])
    assert _pendulum_midpoint() == _pendulum_midpoint()


# --------------------------------------------------------------------------- budget


def test_huge_power_returns_within_budget():
    xs = sp.symbols("x1:31")
    s = sp.Add(*xs)
    e = s**40 - sp.expand(s**2) ** 20
    start = time.perf_counter()
    d = decide_zero(e, budget=0.5)
    assert time.perf_counter() - start < 5
    assert d.is_zero in (True, None)
    start = time.perf_counter()
    d = decide_zero(e + xs[0] * sp.Rational(1, 10**30), budget=0.5)
    assert time.perf_counter() - start < 5
    assert d.is_zero in (False, None)


def test_tiny_budget_gives_unknown_quickly():
    ys = sp.symbols("y0:3001")
    A = sp.Add(*[sp.Rational(i + 1, 7) * sp.sin(ys[i]) * ys[i + 1] ** 2 for i in range(3000)])
    # evaluate=False: sympy's own simplification attempts on sin(A) are slow
    big = sp.sin(A, evaluate=False) ** 2 + sp.cos(A, evaluate=False) ** 2 - 1
    start = time.perf_counter()
    d = decide_zero(big, budget=0.01)
    elapsed = time.perf_counter() - start
    assert elapsed < 2
    assert (d.is_zero, d.stage) == (None, "unknown")
    assert "budget" in d.method
    # with time it is decided
    assert decide_zero(big, budget=30).is_zero is True


def test_the_budget_holds_in_a_thread_and_gives_the_same_verdict():
    ys = sp.symbols("y0:3001")
    A = sp.Add(*[sp.Rational(i + 1, 7) * sp.sin(ys[i]) * ys[i + 1] ** 2 for i in range(3000)])
    big = sp.sin(A, evaluate=False) ** 2 + sp.cos(A, evaluate=False) ** 2 - 1
    out = {}

    def work():
        start = time.perf_counter()
        out["d"] = decide_zero(big, budget=0.25)
        out["seconds"] = time.perf_counter() - start

    t = threading.Thread(target=work)
    t.start()
    t.join(60)
    assert out["seconds"] < 2 * 0.25 + 1.0   # within 2x (and the clock checks' granularity)
    assert (out["d"].is_zero, out["d"].stage) == (None, "unknown") == (decide_zero(big, budget=0.25).is_zero, "unknown")


def test_a_deadline_between_the_stages_is_an_unknown_not_an_escape(monkeypatch):
    from geomcheck.zero import program
    from geomcheck.zero.budget import Interrupted

    def out_of_time(self, roots):
        raise Interrupted

    monkeypatch.setattr(program.Program, "reachable", out_of_time)
    d = decide_zero(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1 + x * sp.Symbol("fresh_between_stages"), budget=5)
    assert (d.is_zero, d.stage) == (None, "unknown") and "budget" in d.method


def test_unknowns_are_not_cached():
    e = sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1 + sp.Mul(*[(z + i) for i in range(3)]) * 0
    d = decide_zero(e, budget=10)
    assert d is decide_zero(e, budget=10)  # definite answers are memoized


def test_works_off_the_main_thread():
    out = {}

    def work():
        out["d"] = decide_zero(sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1, seed=7)
        out["e"] = decide_all_zero(_stormer_verlet_residual(1))

    t = threading.Thread(target=work)
    t.start()
    t.join(60)
    assert out["d"].is_zero is True
    assert out["e"].is_zero is True


def test_a_foreign_alarm_handler_is_left_alone():
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        pytest.skip("needs SIGALRM in the main thread")
    calls = []

    def handler(signum, frame):
        calls.append(signum)

    old = signal.signal(signal.SIGALRM, handler)
    try:
        d = decide_zero(sp.cos(x) ** 2 + sp.sin(x) ** 2 - 1, seed=11)
        assert d.is_zero is True
        assert signal.getsignal(signal.SIGALRM) is handler
    finally:
        signal.signal(signal.SIGALRM, old)
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "bad",
    [
        sp.Matrix([[x]]),
        sp.Symbol("a", commutative=False) * x,
        "x - x",
        object(),
        sp.Eq(x, 1),
        sp.zoo,
        sp.nan,
        x + sp.oo,
        True,
    ],
)
def test_bad_input_raises_expression_error(bad):
    with pytest.raises(ExpressionError):
        decide_zero(bad)


def test_bad_collections_and_parameters():
    with pytest.raises(ExpressionError):
        decide_all_zero(x - x)
    with pytest.raises(ExpressionError):
        decide_all_zero([x, sp.Matrix([x])])
    with pytest.raises(TypeError):  # ExpressionError is a TypeError
        decide_all_zero("x")
    with pytest.raises(ValueError):
        decide_zero(x, budget=0)
    with pytest.raises(ValueError):
        decide_zero(x, dps=5)
    with pytest.raises(ValueError):
        decide_zero(x, points=0)


def test_zero_decision_fields():
    d = ZeroDecision(None, "unknown", "unknown: test")
    assert d.point is None and d.value is None and d.index is None
    assert str(d) == "unknown: test"


def test_the_alarm_is_not_lost_in_a_garbage_collection_callback():
    """An exception raised in a gc callback is printed and dropped by Python; the alarm waits it out."""
    import gc

    from geomcheck.zero.budget import Alarm, Interrupted

    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, signal.SIG_IGN, None):
        pytest.skip("needs SIGALRM in the main thread, unclaimed")
    seen = []

    def slow_callback(phase, info):
        if phase == "start":
            deadline = time.monotonic() + 0.05
            while time.monotonic() < deadline:   # the alarm fires in here
                pass
            seen.append(phase)

    gc.callbacks.append(slow_callback)
    try:
        with pytest.raises(Interrupted):
            with Alarm(time.monotonic() + 0.01):
                gc.collect()                      # the alarm meets the callback ...
                end = time.monotonic() + 5
                while time.monotonic() < end:     # ... and interrupts here instead of being lost
                    pass
    finally:
        gc.callbacks.remove(slow_callback)
    assert seen


def test_the_points_do_not_depend_on_the_order_of_the_entries():
    """A form's components can arrive in a process-dependent order (set iteration): the drawn
    points, and so the counterexample reported, must not follow it."""
    y = sp.Symbol("y")
    a = sp.sin(x) * y + x**3 - sp.Rational(1, 3)
    b = sp.cos(x + y) ** 2 + sp.sin(x + y) ** 2 - 1 + y / 7
    first, second = decide_all_zero([a, b]), decide_all_zero([b, a])
    assert first.is_zero is False and second.is_zero is False
    assert first.point == second.point and first.value == second.value
