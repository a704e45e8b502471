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


def test_bench_implicit_step_quick_mode_runs():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_implicit_step.py"), "--quick",
                           "--newton-intervals", "4", "--steps", "20"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "linear implicit path" in proc.stdout and "conserve the energy" in proc.stdout


def test_bench_work_precision_quick_mode_runs(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_work_precision.py"), "--quick",
                           "--T", "50", "--methods", "yoshida-4", "--figures", str(tmp_path)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "DOP853 (scipy)" in proc.stdout and "yoshida-4" in proc.stdout and "energy error stays bounded" in proc.stdout
    assert (tmp_path / "work_precision.png").stat().st_size > 0 and (tmp_path / "work_precision.pdf").exists()


def test_bench_kernels_quick_mode_runs():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_kernels.py"), "--quick", "--steps", "5"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "(b) stencil" in proc.stdout and "[PASS] stencil runs equal the generated runs" in proc.stdout
