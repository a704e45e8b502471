"""bench_coupled_beam.py still runs (its --quick mode) and gives the expected verdicts."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_bench_coupled_beam_quick_mode_runs():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_coupled_beam.py"), "--quick"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "|" in proc.stdout                    # a table was printed
    assert "plain-matrix s" in proc.stdout        # with the baseline side by side
    assert "WRONG" not in proc.stdout
    assert "[PASS] every completed method gave the expected verdicts" in proc.stdout
