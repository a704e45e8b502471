"""Record the reference runs of ``cases.py`` into ``reference_runs.json`` (bit for bit).

Run it with the code to record on the path (the current directory or ``PYTHONPATH``), NOT the work
tree the script lives in: the recording is of the pristine code, before a refactor::

    cd /path/to/pristine && PYTHONPATH=. python3 /path/to/tests/reference_runs/record.py \\
        --out /path/to/tests/reference_runs/reference_runs.json [--expect-root /path/to/pristine] [--force]

Doubles are written as ``float.hex()``, mpf as their exact integer mantissa and exponent, rationals as
``p/q`` (:func:`cases.encode`); the header holds the python, numpy, scipy, mpmath and sympy versions,
the date, the directory the code was imported from and the C compiler (for the compiled cases).  An
existing recording is kept unless ``--force`` is given; the file is written to a temporary name in
the same directory and renamed (atomic: a reader never sees half a file).  Re-recording over a
recording that a refactor is meant to keep is legitimate only with a note (in the change that does
it) saying why the bits changed.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "reference_runs.json")
FORMAT = 1


def load_cases():
    """``cases.py`` beside this file, as a module (the package it imports comes from ``sys.path``)."""
    spec = importlib.util.spec_from_file_location("reference_runs_cases", os.path.join(HERE, "cases.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def code_root() -> str:
    """The directory the ``integrators`` and ``geomcheck`` packages were imported from (they must agree)."""
    import geomcheck
    import integrators

    roots = {os.path.dirname(os.path.dirname(os.path.abspath(m.__file__))) for m in (geomcheck, integrators)}
    if len(roots) != 1:
        raise SystemExit(f"record.py: geomcheck and integrators come from different trees: {sorted(roots)}")
    return roots.pop()


def library_versions() -> dict:
    import mpmath
    import numpy
    import scipy
    import sympy

    return {"python": platform.python_version(), "numpy": numpy.__version__, "scipy": scipy.__version__,
            "mpmath": mpmath.__version__, "sympy": sympy.__version__}


def compiler_identity() -> str | None:
    from integrators.compiled import find_compiler

    cc = find_compiler()
    if cc is None:
        return None
    try:
        version = subprocess.run([cc, "--version"], check=False, capture_output=True, text=True, timeout=30)
        return version.stdout.splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return cc


def record(cases_module) -> dict:
    """``{case name: {key: encoded value}}`` for every case that can run here (compiled ones need a compiler)."""
    have_compiler = cases_module.compiler_available()
    results, skipped = {}, []
    for case in cases_module.CASES:
        if case.needs == "c-compiler" and not have_compiler:
            skipped.append(case.name)
            continue
        results[case.name] = {"libraries": list(case.libraries), "needs": case.needs,
                              "values": {key: cases_module.encode(v) for key, v in case.run().items()}}
    return {"results": results, "skipped": skipped}


def dumps(data: dict) -> str:
    """JSON with one line per recorded value (readable, and a changed value is a one-line diff)."""
    def line(value):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))

    out = ["{", f' "format": {line(data["format"])},', f' "header": {line(data["header"])},',
           f' "skipped": {line(data["skipped"])},', ' "results": {']
    names = sorted(data["results"])
    for i, name in enumerate(names):
        case = data["results"][name]
        out.append(f"  {line(name)}: {{\"libraries\": {line(case['libraries'])}, \"needs\": {line(case['needs'])},"
                   ' "values": {')
        keys = sorted(case["values"])
        for j, key in enumerate(keys):
            out.append(f"   {line(key)}: {line(case['values'][key])}" + ("," if j < len(keys) - 1 else ""))
        out.append("  }}" + ("," if i < len(names) - 1 else ""))
    out += [" }", "}", ""]
    text = "\n".join(out)
    if json.loads(text) != data:        # the layout must not change a value
        raise AssertionError("record.py: the written JSON does not read back as the recording")
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="the recording to write (default: beside this script)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing recording")
    parser.add_argument("--expect-root", default=None,
                        help="refuse to record unless the package is imported from this directory")
    args = parser.parse_args(argv)

    # the code to record is the one on PYTHONPATH or in the current directory, not this script's tree
    if os.getcwd() not in sys.path:
        sys.path.insert(1, os.getcwd())
    if os.path.exists(args.out) and not args.force:
        print(f"record.py: {args.out} exists; it is kept (give --force to re-record, with a note saying why the"
              " bits changed)", file=sys.stderr)
        return 2
    cases_module = load_cases()
    root = code_root()
    if args.expect_root is not None and os.path.realpath(root) != os.path.realpath(args.expect_root):
        print(f"record.py: the package was imported from {root}, not {args.expect_root}", file=sys.stderr)
        return 3
    print(f"recording the code of {root}", file=sys.stderr)
    recorded = record(cases_module)
    data = {"format": FORMAT,
            "header": {"recorded": datetime.date.today().isoformat(), "code_root": root,
                       "versions": library_versions(), "compiler": compiler_identity(),
                       "machine": platform.machine()},
            **recorded}
    directory = os.path.dirname(os.path.abspath(args.out))
    fd, tmp = tempfile.mkstemp(prefix=".reference_runs.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(dumps(data))
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)          # mkstemp's 0600 would hide the recording from other users
        os.replace(tmp, args.out)
    except BaseException:
        os.unlink(tmp)
        raise
    print(f"recorded {len(recorded['results'])} cases into {args.out}"
          + (f" (skipped, no C compiler: {', '.join(recorded['skipped'])})" if recorded["skipped"] else ""),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
