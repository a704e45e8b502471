"""The benchmark scripts still run (their --quick mode); speed goals live in the scripts."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("script", ["bench_lie_derivative.py", "bench_pullback_verlet.py", "bench_qstructures.py", "bench_order_conditions.py",
                                    "bench_composed_verlet.py", "bench_bseries.py",
                                    "bench_structure_search.py"])
def test_benchmark_quick_mode_runs(script):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), "--quick"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "|" in proc.stdout  # a table was printed


def test_bench_distributed_quick_mode_runs_and_matches_the_serial_results():
    pytest.importorskip("dask.distributed")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_distributed.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ensemble") or line.startswith("| sweep")]
    assert len(rows) == 4 and all(row.rstrip(" |").endswith("True") for row in rows)
