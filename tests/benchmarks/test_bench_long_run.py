"""bench_long_trajectory.py still runs (its --quick mode), prints its tables and agrees with itself."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_bench_long_trajectory_quick_mode_runs(tmp_path):
    env = dict(__import__("os").environ, GEOMCHECK_CACHE_DIR=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_long_trajectory.py"), "--quick"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env=env,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout
    assert "compiled path (a)" in out and "matrix propagate (c)" in out and "numpy path (d)" in out
    assert "backend='mpmath'" in out                                   # the second table
    assert "[PASS] compiled path equals the numpy path to 1e-12" in out
    assert "[FAIL]" not in out
    if "hand-written C (b)" in out:                                    # a compiler was there
        assert "[PASS] compiled and hand-written final states agree" in out
