"""One registry of memos: each bounded, all cleared by ``geomcheck.zero.clear_caches()``."""

import sympy as sp

import geomcheck as gc
from geomcheck.caches import Memo, cache_sizes, clear_caches


def test_a_memo_keeps_its_most_recent_entries_only():
    m = Memo("test.recent", 3)
    for k in range(5):
        m.put(k, -k)
    assert len(m) == 3 and m.get(0) is None and m.get(4) == -4
    m.get(2)                      # used: now the newest
    m.put(5, -5)
    assert 2 in m and 3 not in m
    assert m.get("missing", "default") == "default"


def test_a_sweep_leaves_bounded_memos_and_clear_caches_empties_every_one():
    import integrators as ig
    from integrators import lower, stability

    q, p, k = sp.symbols("q p k")
    for j in range(1, 80):          # 79 systems: more than the lowered-step memo keeps
        system = ig.HamiltonianSystem(p**2 / 2 + sp.Rational(j, 7) * q**4 / 4, q, p)
        ig.integrate(system, "stormer-verlet", [0.5, 0.0], dt=0.01, steps=2)
    sizes = cache_sizes()
    assert 0 < sizes["integrators.lower.steps"] <= lower._CACHE.size
    assert 0 < sizes["integrators.stability.jacobians"] <= stability._JACOBIANS.size
    M = gc.Chart("x y")
    x, y = M.coords
    assert gc.lie(gc.VectorField(M, {x: y}), M.d(x) ^ M.d(y)).is_zero() is True
    assert cache_sizes()["geomcheck.zero.decisions"] > 0 or sum(n for name, n in cache_sizes().items() if name.startswith("geomcheck.calculus.")) > 0
    gc.zero.clear_caches()          # the engine's entry point clears the integrators' memos too
    assert all(n in (0, None) for n in cache_sizes().values()), cache_sizes()
    clear_caches()


def test_every_lru_cache_of_the_three_packages_is_in_the_registry():
    """One registry: a functools cache anywhere in geomcheck, integrators or casestudies that clear_caches would
    not reach is found by importing every module and comparing with the registered clear functions."""
    import importlib
    import pkgutil

    import casestudies
    import integrators
    from geomcheck import caches

    modules = [importlib.import_module(info.name)
               for package in (gc, integrators, casestudies)
               for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
               if not info.name.endswith("jax_backend")]    # optional dependency; it holds no functools cache
    registered = {id(getattr(clear, "__self__", None)) for clear, _ in caches._REGISTRY.values()}
    missing = []
    for module in modules:
        for name, obj in vars(module).items():
            if callable(getattr(obj, "cache_clear", None)) and getattr(obj, "__module__", None) == module.__name__:
                if id(obj) not in registered:
                    missing.append(f"{module.__name__}.{name}")
    assert not missing, f"functools caches outside the registry: {missing}"
