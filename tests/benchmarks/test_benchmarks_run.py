"""The benchmark scripts still run (their --quick mode) and print what they promise; their speed
goals live in the scripts, not here.

The scripts run in one fresh interpreter (``quick_runs.py``: the imports paid once, not once per
script); each test below checks one script's exit status and output.  ``bench_distributed``
starts Dask worker processes and runs alone.  Not run here: ``bench_variational`` (no quick mode;
the orders it prints are measured in the tests of the variational schemes).
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: script -> its arguments (the smallest runs that still print every table)
QUICK = {
    "bench_lie_derivative.py": ["--quick", "--dims", "2,4,8"],
    "bench_pullback_verlet.py": ["--quick"],
    "bench_qstructures.py": ["--quick"],
    "bench_order_conditions.py": ["--quick"],
    "bench_composed_verlet.py": ["--quick"],
    "bench_bseries.py": ["--quick"],
    "bench_structure_search.py": ["--quick"],
    "bench_catalog_certify.py": ["--quick", "--schemes", "stormer-verlet,gauss-legendre-4"],
    "bench_coupled_beam.py": ["--quick"],
    "bench_input_forms.py": ["--quick", "--repeats", "1"],
    "bench_long_trajectory.py": ["--quick"],
    "bench_integrators.py": ["--quick"],
    "bench_implicit_step.py": ["--quick", "--newton-intervals", "4", "--steps", "20"],
    "bench_kernels.py": ["--quick", "--steps", "5"],
    "bench_compiled_ensemble.py": ["--quick", "--batch", "2000", "--steps", "50", "--beam-steps", "2000"],
    "bench_mpmath.py": ["--quick", "--steps", "10", "--digits", "50"],
    "bench_nonholonomic.py": ["--quick", "--steps", "500"],
    "bench_newton_structure.py": ["--quick", "--particles", "8"],
    "bench_certify_scaling.py": ["--quick", "--ns", "2", "--cap", "20"],
    "bench_jax.py": ["--quick"],
    "bench_nodepy.py": ["--quick"],
    "bench_constrained.py": ["--quick"],
}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """``quick(script)``: its ``{"code", "stdout", "stderr", "seconds"}`` from the one shared run."""
    tmp = tmp_path_factory.mktemp("bench-quick")
    specs, results = tmp / "specs.json", tmp / "results.json"
    figures = tmp / "work-precision"
    work_precision = ["--quick", "--T", "50", "--methods", "yoshida-4", "--figures", str(figures)]
    specs.write_text(json.dumps(sorted(QUICK.items()) + [["bench_work_precision.py", work_precision]]),
                     encoding="utf-8")
    # bench_long_trajectory compiles C: a private cache keeps the user's cache out of the tests
    env = dict(os.environ, GEOMCHECK_CACHE_DIR=str(tmp / "cache"))
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "benchmarks" / "quick_runs.py"), str(specs),
                           str(results)], capture_output=True, text=True, timeout=900, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    runs = json.loads(results.read_text(encoding="utf-8"))

    def of(script):
        run = runs[script]
        assert run["code"] == 0, f"{script} exited with {run['code']}:\n" + run["stdout"][-2000:] + run["stderr"][-3000:]
        return run

    of.figures = figures
    return of


def test_the_driver_reports_a_failing_script(tmp_path):
    """A script that raises is reported with exit status 1 and its traceback (the tests below rely on it)."""
    sys.path.insert(0, str(ROOT / "tests" / "benchmarks"))
    try:
        import quick_runs
    finally:
        sys.path.pop(0)
    bad = ROOT / "benchmarks" / "_util.py"       # runs as a script: defines, prints nothing, exits 0
    assert quick_runs.run_script(bad.name, [])["code"] == 0
    missing = quick_runs.run_script("no_such_benchmark.py", [])
    assert missing["code"] == 1 and "no_such_benchmark.py" in missing["stderr"]


@pytest.mark.parametrize("script", ["bench_lie_derivative.py", "bench_pullback_verlet.py", "bench_qstructures.py",
                                    "bench_order_conditions.py", "bench_composed_verlet.py", "bench_bseries.py",
                                    "bench_structure_search.py", "bench_compiled_ensemble.py", "bench_mpmath.py",
                                    "bench_nonholonomic.py", "bench_newton_structure.py", "bench_certify_scaling.py",
                                    "bench_jax.py", "bench_nodepy.py", "bench_constrained.py"])
def test_benchmark_quick_mode_prints_a_table(quick, script):
    assert "|" in quick(script)["stdout"]


def test_bench_catalog_certify(quick):
    out = quick("bench_catalog_certify.py")["stdout"]
    assert "gauss-legendre-4 |   2dof" in out and "TOTAL" in out
    assert "[WRONG]" not in out


def test_bench_coupled_beam(quick):
    out = quick("bench_coupled_beam.py")["stdout"]
    assert "|" in out and "plain-matrix s" in out         # the baseline side by side
    assert "WRONG" not in out
    assert "[PASS] every completed method gave the expected verdicts" in out


#: the input forms bench_input_forms.py covers
FORMS = ("substitute", "Subs", "subs simultaneous", "Derivative.subs", "chain rule F(t)", "chain rule shift",
         "Subs.doit")


def test_bench_input_forms(quick):
    out = quick("bench_input_forms.py")["stdout"]
    tables = out.split("\n\n")
    for title in ("Stormer-Verlet, n = 2", "wrong variant", "2 composed Verlet steps"):
        (table,) = [t for t in tables if t.startswith(title)]
        rows = {line.split("|")[0].strip() for line in table.splitlines() if "|" in line}
        assert set(FORMS) <= rows, table
    assert "(WRONG)" not in out
    assert "[PASS] every verdict right" in out


def test_bench_long_trajectory(quick):
    out = quick("bench_long_trajectory.py")["stdout"]
    assert "compiled path (a)" in out and "matrix propagate (c)" in out and "numpy path (d)" in out
    assert "backend='mpmath'" in out                                   # the second table
    assert "[PASS] compiled path equals the numpy path to 1e-12" in out
    assert "[FAIL]" not in out
    if "hand-written C (b)" in out:                                    # a compiler was there
        assert "[PASS] compiled and hand-written final states agree" in out


def test_bench_integrators(quick):
    out = quick("bench_integrators.py")["stdout"]
    assert "trajectory-steps/s" in out and "|" in out


def test_bench_implicit_step(quick):
    out = quick("bench_implicit_step.py")["stdout"]
    assert "linear implicit path" in out and "conserve the energy" in out


def test_bench_kernels(quick):
    out = quick("bench_kernels.py")["stdout"]
    assert "(b) stencil" in out and "[PASS] stencil runs equal the generated runs" in out


def test_bench_work_precision(quick):
    out = quick("bench_work_precision.py")["stdout"]
    assert "DOP853 (scipy)" in out and "yoshida-4" in out and "energy error stays bounded" in out
    assert (quick.figures / "work_precision.png").stat().st_size > 0 and (quick.figures / "work_precision.pdf").exists()


def test_bench_distributed_quick_mode_runs_and_matches_the_serial_results():
    pytest.importorskip("dask.distributed")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_distributed.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ensemble") or line.startswith("| sweep")]
    assert len(rows) == 4 and all(row.rstrip(" |").endswith("True") for row in rows)


def _load_benchmark(name):
    """A benchmark script as a module (its path insertions undone afterwards)."""
    import importlib.util

    saved = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module


def test_bench_integrators_overhead_against_another_checkout(monkeypatch, capsys):
    """``--ref``: the child measures (a), (b), (c) with the given checkout's packages; the table compares
    the mean overhead (b)/(a) and passes within 5 % (planted timings: 4 % passes, 6 % does not)."""
    bench = _load_benchmark("bench_integrators")
    saved = list(sys.path)
    try:
        bench._overhead_child(str(ROOT), 1, [[200, 5], [1, 30]])
    finally:
        sys.path[:] = saved
    cells = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(cells) == {"200x5", "1x30"} and all(set(c) == {"a", "b", "c"} for c in cells.values())

    here = os.path.dirname(os.path.dirname(os.path.abspath(bench.__file__)))
    for above, verdict, code in ((1.04, "[PASS]", 0), (1.06, "[MISS]", 1)):
        def cell(root, repeats, cases, above=above):
            b = above if root == here else 1.0
            return {f"{n}x{s}": {"a": 1.0, "b": b, "c": 0.9} for n, s in cases}

        monkeypatch.setattr(bench, "_overhead_cell", cell)
        assert bench.overhead_against("/elsewhere", 2, 1, False, cases=[[10, 2]]) == code
        out = capsys.readouterr().out
        assert verdict in out and f"10x2: mean overhead (b)/(a) {100 * (above - 1):+.1f} %" in out
