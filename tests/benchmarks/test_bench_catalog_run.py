"""bench_catalog_certify.py --quick runs, prints its table and meets its goal on the subset."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_bench_catalog_certify_quick_runs():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_catalog_certify.py"), "--quick"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "gauss-legendre-4 |   2dof" in proc.stdout and "TOTAL" in proc.stdout
    assert "[WRONG]" not in proc.stdout
