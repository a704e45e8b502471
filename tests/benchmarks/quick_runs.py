"""Run several benchmark scripts' quick modes in one fresh interpreter.

Each script runs as ``python benchmarks/SCRIPT ARGS`` would run it (``__name__ == "__main__"``,
its own ``sys.argv``, the benchmarks directory first on the path), its output captured, its
exit status kept: a ``SystemExit`` code, or 1 with the traceback when it raised.  One
interpreter for all of them pays the imports (sympy, numpy, geomcheck, integrators: about
1.5 s of CPU each time) once instead of once per script.  The scripts share the process's
memos, so a script may run faster here than alone; the smoke tests check that the scripts run
and what they print, never their speed.

Usage: ``python quick_runs.py SPECS.json RESULTS.json`` where SPECS is a list of
``[script, [args...]]``; RESULTS maps each script to ``{"code", "stdout", "stderr", "seconds"}``.
"""

import contextlib
import io
import json
import os
import runpy
import sys
import time
import traceback

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          "benchmarks")


def run_script(script: str, args: list) -> dict:
    path = os.path.join(BENCHMARKS, script)
    out, err = io.StringIO(), io.StringIO()
    saved_argv = sys.argv
    sys.argv = [path, *args]
    start = time.perf_counter()
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                runpy.run_path(path, run_name="__main__")
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException:      # the traceback is the test's failure message
                traceback.print_exc()
                code = 1
    finally:
        sys.argv = saved_argv
    return {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue(),
            "seconds": time.perf_counter() - start}


def main(specs_path: str, results_path: str) -> None:
    with open(specs_path, encoding="utf-8") as f:
        specs = json.load(f)
    sys.path.insert(0, BENCHMARKS)
    results = {script: run_script(script, args) for script, args in specs}
    with open(results_path, "w", encoding="utf-8") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
