"""The integrators benchmark still runs (--quick); its speed goal lives in the script."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_bench_integrators_quick_mode_runs():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_integrators.py"), "--quick"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "trajectory-steps/s" in proc.stdout and "|" in proc.stdout
