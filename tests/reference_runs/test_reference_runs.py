"""The recorded reference runs, recomputed with the code under test and compared bit for bit.

``reference_runs.json`` holds the results of every case of ``cases.py`` as computed by the code
before the issue-17 refactor (recorded by ``record.py`` from the pristine tree): saved states, times,
energies, ``observe`` results, Newton's work counts, the zero test's counterexample points and values.
Each case is recomputed here and compared exactly (a double by its ``float.hex()``, an mpf by its
mantissa and exponent, a rational by ``p/q``); a failure names the case, the key and the first
differing index.

Why a library version is checked: the numbers of a case depend on the code AND on the libraries it
calls (numpy's and scipy's BLAS/LAPACK for the linear implicit step, mpmath's arithmetic, sympy's
expression order that the generated code follows).  The cases use only IEEE ``+ - * /`` and ``sqrt``
in double precision (correctly rounded in every numpy release), but the order of operations comes
from sympy and the linear algebra from the BLAS shipped with numpy/scipy.  So a case whose
declared libraries have other versions than the recorded ones is skipped, saying so: its bits would
tell nothing about the code (an undecided comparison, not a pass); re-record with the pristine code
then (``record.py --force``, see its docstring).  On 2026-11-26 a fresh ``pip install numpy`` gave
numpy 2.4.6, the version of the recording, so CI checks the same bits.

The compiled cases need a C compiler (skipped, with that reason, where there is none); they are
recorded separately because the C build, not numpy, produces them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDING = os.path.join(HERE, "reference_runs.json")


def _load_cases():
    name = "reference_runs_cases"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "cases.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


cases = _load_cases()


def _recording() -> dict:
    if not os.path.exists(RECORDING):       # every test below then fails saying so (no silent pass)
        return {"header": {}, "results": {}, "skipped": [], "missing": True}
    with open(RECORDING) as f:
        return json.load(f)


RECORDED = _recording()
CASE_BY_NAME = {c.name: c for c in cases.CASES}


def _installed_versions() -> dict:
    import mpmath
    import numpy
    import scipy
    import sympy

    return {"numpy": numpy.__version__, "scipy": scipy.__version__, "mpmath": mpmath.__version__,
            "sympy": sympy.__version__}


def _describe(entry) -> str:
    return json.dumps(entry, sort_keys=True)[:200]


def first_difference(expected: dict, actual: dict) -> str | None:
    """None when ``actual`` equals ``expected`` exactly, else where (key, index) and how they first differ."""
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    if missing or extra:
        return f"the keys differ: recorded but not computed {missing}, computed but not recorded {extra}"
    first = [k for k in ("y", "t", "observed") if k in expected]      # the states first, then what derives from them
    for key in first + sorted(set(expected) - set(first)):
        e, a = expected[key], actual[key]
        if e["shape"] != a["shape"] or e["dtype"] != a["dtype"]:
            return f"{key!r}: shape/dtype {a['shape']} {a['dtype']}, recorded {e['shape']} {e['dtype']}"
        for flat, (x, y) in enumerate(zip(e["entries"], a["entries"])):
            if x != y:
                index, rest = [], flat
                for n in reversed(e["shape"]):
                    index.append(rest % n)
                    rest //= n
                return (f"{key!r} first differs at index {tuple(reversed(index))} (flat {flat}):"
                        f" computed {_describe(y)}, recorded {_describe(x)}")
    return None


def coverage_problems(recording: dict, names: list) -> list:
    """What is wrong with the recording's coverage of the cases ``names`` (empty: every case, nothing else)."""
    recorded = set(recording["results"]) | set(recording.get("skipped", ()))
    defined = set(names)
    problems = []
    if defined - recorded:
        problems.append(f"cases without a recording: {sorted(defined - recorded)}; record them from the pristine"
                        " code (tests/reference_runs/record.py)")
    if recorded - defined:
        problems.append(f"recorded cases no longer defined in cases.py: {sorted(recorded - defined)}")
    if len(names) != len(defined):
        problems.append("two cases share a name")
    return problems


def version_changes(libraries, recorded: dict, installed: dict) -> list:
    """The libraries among ``libraries`` whose installed version is not the recorded one."""
    return [f"{lib} {recorded[lib]} recorded, {installed[lib]} installed" for lib in libraries
            if recorded[lib] != installed[lib]]


def test_the_recording_covers_every_case():
    assert not RECORDED.get("missing"), f"no recording at {RECORDING}: run tests/reference_runs/record.py"
    assert coverage_problems(RECORDED, [c.name for c in cases.CASES]) == []


def test_a_missing_or_stale_case_and_a_changed_version_are_reported():
    recording = {"results": {"a": {}, "old": {}}, "skipped": ["c"]}
    problems = coverage_problems(recording, ["a", "b", "c", "c"])
    assert len(problems) == 3 and "['b']" in problems[0] and "['old']" in problems[1]
    assert coverage_problems({"results": {"a": {}}}, ["a"]) == []
    recorded, installed = {"numpy": "2.4.6", "mpmath": "1.3.0"}, {"numpy": "2.5.0", "mpmath": "1.3.0"}
    assert version_changes(("numpy", "mpmath"), recorded, installed) == ["numpy 2.4.6 recorded, 2.5.0 installed"]
    assert version_changes(("mpmath",), recorded, installed) == []


def test_the_recording_states_its_code_and_versions():
    header = RECORDED["header"]
    assert set(header["versions"]) >= {"python", "numpy", "scipy", "mpmath", "sympy"}
    assert header["recorded"] and header["code_root"]


@pytest.mark.parametrize("name", [c.name for c in cases.CASES])
def test_reference_run_is_bit_identical(name):
    case = CASE_BY_NAME[name]
    if case.needs == "c-compiler" and not cases.compiler_available():
        pytest.skip(f"{name}: needs a C compiler (none found: $CC or cc); the compiled path is not run here")
    if name in RECORDED.get("skipped", ()):
        pytest.fail(f"{name} was not recorded (no C compiler where it was recorded) but can run here: re-record"
                    " with the pristine code on a machine with a C compiler")
    recorded = RECORDED["results"][name]
    changed = version_changes(case.libraries, RECORDED["header"]["versions"], _installed_versions())
    if changed:
        # the recording was made with other libraries: equal or different bits would say nothing about the code
        pytest.skip(f"{name}: cannot compare, its numbers depend on library versions that changed"
                    f" ({'; '.join(changed)}); re-record the reference runs with the PRISTINE code (the code before"
                    " the change under test) and these versions: tests/reference_runs/record.py --force")
    assert list(case.libraries) == recorded["libraries"], f"{name}: the case's declared libraries changed"
    actual = {key: cases.encode(v) for key, v in case.run().items()}
    difference = first_difference(recorded["values"], actual)
    assert difference is None, f"{name}: not bit-identical to the recorded reference run: {difference}"


def test_a_one_ulp_change_is_caught():
    """The comparison itself: a double one ulp off, an mpf one unit off, are differences (and where)."""
    import math

    import mpmath
    import numpy as np

    y = np.array([[0.1, 0.2], [0.3, 0.4]])
    z = y.copy()
    z[1, 0] = math.nextafter(z[1, 0], 1.0)
    assert first_difference({"y": cases.encode(y)}, {"y": cases.encode(y.copy())}) is None
    assert "(1, 0)" in first_difference({"y": cases.encode(y)}, {"y": cases.encode(z)})
    with mpmath.workdps(40):
        a = mpmath.mpf(1) / 3
        b = a + mpmath.mpf(2)**(a.man_exp[1])         # one unit in the last place of a
    assert first_difference({"v": cases.encode(a)}, {"v": cases.encode(b)}) is not None
