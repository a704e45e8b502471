"""Budgets: seconds that hold in a thread, a subprocess and a Dask worker; work units that give
the same verdict wherever the decision runs."""

import json
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import InvalidArgumentError
from geomcheck.zero import decide_all_zero, decide_jacobian_singular, decide_zero, work_budget, Relation
from geomcheck.zero import decision

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

# Built the same way here and in the subprocess: a true identity far too large for 0.25 s.
BIG = textwrap.dedent("""
    import sympy as sp
    ys = sp.symbols("y0:3001")
    A = sp.Add(*[sp.Rational(i + 1, 7) * sp.sin(ys[i]) * ys[i + 1] ** 2 for i in range(3000)])
    big = sp.sin(A, evaluate=False) ** 2 + sp.cos(A, evaluate=False) ** 2 - 1
""")
# A true identity the modular stage cannot take (sin), decided in a few thousand work units.
MEDIUM = textwrap.dedent("""
    import sympy as sp
    xs = sp.symbols("x0:40")
    S = sp.Add(*[sp.Rational(k + 1, 3) * xs[k] * sp.sin(xs[(k + 1) % 40]) for k in range(40)])
    medium = sp.sin(S) ** 2 + sp.cos(S) ** 2 - 1 + (S + 1) ** 2 - S ** 2 - 2 * S - 1
""")


_BUILT = {}


def _namespace(source):
    """The expressions of ``source``, built once per test process (the big one takes a second)."""
    if source not in _BUILT:
        ns = {}
        exec(source, ns)
        _BUILT[source] = ns
    return _BUILT[source]


def _verdict(d):
    return (d.is_zero, d.stage, d.method)


def _in_thread(fn):
    out = {}

    def work():
        out["value"] = fn()

    t = threading.Thread(target=work)
    t.start()
    t.join(120)
    assert not t.is_alive()
    return out["value"]


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def _in_subprocess(code):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- seconds


def test_the_time_budget_holds_within_twice_in_a_subprocess():
    code = BIG + textwrap.dedent("""
        import json, time
        from geomcheck.zero import decide_zero
        t = time.perf_counter()
        d = decide_zero(big, budget=0.25)
        print(json.dumps([d.is_zero, d.stage, time.perf_counter() - t]))
    """)
    is_zero, stage, seconds = _in_subprocess(code)
    assert (is_zero, stage) == (None, "unknown")
    assert seconds < 2 * 0.25 + 1.0   # within 2x (and the clock checks' granularity)


@pytest.fixture(scope="module")
def client():
    dd = pytest.importorskip("dask.distributed")
    with dd.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            dd.Client(cluster) as c:
        yield c


def _timed_on_worker(source, budget, work=None):
    # the expression is built on the worker: unpickling a 3000-term sympy sum takes seconds

    def task():
        ns = _namespace(source)
        expr = next(v for k, v in ns.items() if k in ("big", "medium"))
        start = time.perf_counter()
        d = decide_zero(expr, budget=budget, work=work)
        return _verdict(d), time.perf_counter() - start, threading.current_thread() is threading.main_thread()

    return task


def test_the_time_budget_holds_within_twice_in_a_dask_worker(client):
    verdict, seconds, on_main = client.submit(_timed_on_worker(BIG, 0.25), pure=False).result(timeout=120)
    assert not on_main                      # a worker thread: no SIGALRM there
    assert verdict[:2] == (None, "unknown")
    assert seconds < 2 * 0.25 + 1.0


def test_form_is_zero_keeps_its_budget_in_a_dask_worker(client):
    M = gc.Chart("q p")
    q, p = M.coords

    def task():
        w = (_namespace(BIG)["big"] * M.d(q)) ^ M.d(p)
        start = time.perf_counter()
        return w.is_zero(budget=0.25), time.perf_counter() - start

    value, seconds = client.submit(task, pure=False).result(timeout=120)
    assert value is None and seconds < 2 * 0.25 + 1.0


# ----------------------------------------------------------------------------- work units


def test_a_work_budget_gives_the_same_verdict_in_a_thread_a_subprocess_and_a_dask_worker(client):
    ns = _namespace(MEDIUM)
    medium = ns["medium"]
    # enough work: decided, the same way everywhere
    full = decide_zero(medium, budget=120, work=10**8)
    assert full.is_zero is True
    # too little work: undecided, at the same place everywhere (a generous clock never binds)
    decision.clear_caches()
    cut = decide_zero(medium, budget=120, work=3_000)
    assert cut.is_zero is None and "work budget of 3000 units ran out" in cut.method
    for work, expected in ((10**8, full), (3_000, cut)):
        decision.clear_caches()
        assert _verdict(_in_thread(lambda: decide_zero(medium, budget=120, work=work))) == _verdict(expected)
        decision.clear_caches()
        assert tuple(client.submit(_timed_on_worker(MEDIUM, 120, work), pure=False).result(timeout=120)[0]) \
            == _verdict(expected)
        code = MEDIUM + textwrap.dedent(f"""
            import json
            from geomcheck.zero import decide_zero
            d = decide_zero(medium, budget=120, work={work})
            print(json.dumps([d.is_zero, d.stage, d.method]))
        """)
        assert tuple(_in_subprocess(code)) == _verdict(expected)


def test_work_budget_as_a_block_bounds_every_decision_inside_it():
    M = gc.Chart("q p")
    q, p = M.coords
    h = sp.Symbol("h")
    V = sp.Function("V")
    w = M.d(q) ^ M.d(p)
    ph = p - h / 2 * V(q).diff(q)
    Q = q + h * ph
    P = ph - h / 2 * gc.substitute(V(q).diff(q), {q: Q})
    verlet = gc.Map(M, M, [Q, P])
    decision.clear_caches()
    with work_budget(50):
        starved = gc.certify_symplectic(verlet, w)
    assert starved.holds is None                      # never a wrong answer, only "unknown"
    decision.clear_caches()
    with work_budget(10**8):
        assert gc.certify_symplectic(verlet, w).holds is True


def test_work_budgets_nest_and_the_inner_limit_binds_first():
    x = sp.Symbol("x")
    e = sp.sin(x) ** 2 + sp.cos(x) ** 2 - 1
    with work_budget(10**9) as outer:
        with work_budget(10**8) as inner:
            decision.clear_caches()
            assert decide_zero(e).is_zero is True
        assert outer.used == inner.used > 0


@pytest.mark.parametrize("work", [0, -1, 1.5, True, "100", float("inf")])
def test_a_bad_work_budget_is_refused(work):
    x = sp.Symbol("x")
    with pytest.raises(InvalidArgumentError, match="work"):
        decide_zero(x - x, work=work)
    with pytest.raises(InvalidArgumentError, match="work"):
        with work_budget(work):
            pass


def test_work_reaches_decide_all_zero_and_the_jacobian_check():
    ns = _namespace(MEDIUM)
    decision.clear_caches()
    d = decide_all_zero({"a": ns["medium"], "b": ns["medium"] * 2}, budget=120, work=2_000)
    assert d.is_zero is None and "work budget of 2000 units" in d.method
    x, u, v, h = sp.symbols("x u v h")
    rel = Relation([u - x - h * v**2, v - h * u], [u, v], small=[h])
    assert decide_jacobian_singular(rel, work=10**8).is_zero is False
    starved = decide_jacobian_singular(rel, work=1)
    assert starved.is_zero is None and "work budget of 1 units" in starved.method


def test_the_exact_stage_stops_at_its_work_limit_not_at_the_clock(monkeypatch):
    xs = sp.symbols("x0:6")
    s = sp.Add(*xs) + 1
    e = sp.Mul(*[s] * 10, evaluate=False) - s**10      # zero; the exact stage needs ~2e5 units
    decision.clear_caches()
    assert decide_zero(e).stage == "exact"
    monkeypatch.setattr(decision, "EXACT_MAX_WORK", 10_000)
    monkeypatch.setattr(decision, "EXACT_MAX_WORK_MODULAR", 10_000)
    decision.clear_caches()
    d = decide_zero(e, budget=120)
    assert d.is_zero is True and d.stage == "modular"  # the next stage proves it, probabilistically
