"""bench_input_forms.py still runs (its --quick mode): one row per input form, every verdict right."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FORMS = ("substitute", "Subs", "subs simultaneous", "Derivative.subs", "chain rule F(t)", "chain rule shift",
         "Subs.doit")


def test_bench_input_forms_quick_mode_runs():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_input_forms.py"), "--quick", "--repeats", "1"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = proc.stdout
    tables = out.split("\n\n")
    for title in ("Stormer-Verlet, n = 2", "wrong variant", "2 composed Verlet steps"):
        (table,) = [t for t in tables if t.startswith(title)]
        rows = {line.split("|")[0].strip() for line in table.splitlines() if "|" in line}
        assert set(FORMS) <= rows, table
    assert "(WRONG)" not in out
    assert "[PASS] every verdict right" in out
