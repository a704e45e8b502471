"""Shared pytest configuration of the geomcheck test-suite.

Hypothesis profiles
-------------------
Property-based tests (``tests/properties``, the galgebra oracle, the strategies'
own tests) run under a hypothesis *profile*:

* ``ci`` (the default, loaded below): 15 examples per test, no deadline (symbolic
  work has very uneven run times), the ``too_slow`` health check suppressed,
  ``derandomize=True`` so that every run draws the same examples (reproducible CI:
  a failure on CI fails the same way on your machine) and no example database.
* ``thorough``: 300 random (not derandomized) examples per test, and the long runs
  that are skipped by default (1e5 RATTLE steps), for a long local or nightly run; a
  failure prints a ``@reproduce_failure`` blob to replay it.  One spelling selects it
  for everything::

      GEOMCHECK_HYPOTHESIS_PROFILE=thorough python -m pytest
* ``dev``: 5 examples, for a quick edit-run loop.

Markers
-------
``@pytest.mark.needs_pdflatex``: the test compiles LaTeX; it is skipped (with the reason
shown by ``-ra``) where no ``pdflatex`` is on the PATH, the same test the report uses
(:func:`geomcheck.latex.pdflatex_available`) to decide whether to write a PDF.
"""

import fcntl
import os
import pickle

import mpmath
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=False,
)
settings.register_profile(
    "thorough",
    max_examples=300,
    deadline=None,
    database=None,  # keep the work tree clean; print_blob gives @reproduce_failure instead
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    print_blob=True,
)
settings.register_profile(
    "dev",
    max_examples=5,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

settings.load_profile(os.environ.get("GEOMCHECK_HYPOTHESIS_PROFILE", "ci"))


#: the test files that take longest (measured: the benchmarks' quick runs 87 s, the doc pages 71 s,
#: the catalog 44 s, then 20-30 s each); with ``--no-loadscope-reorder`` (pyproject.toml)
#: pytest-xdist's ``--dist loadfile`` hands files to the workers in collection order, so these go
#: first: otherwise the longest came last and one worker ran it alone while the other stood idle
LONGEST_FIRST = ("tests/test_docs_papers.py", "tests/benchmarks/test_benchmarks_run.py", "tests/integrators/test_catalog.py",
                 "tests/geomcheck/test_report.py", "tests/integrators/test_spark.py",
                 "tests/geomcheck/test_maps_implicit_scale.py", "tests/geomcheck/structures/test_natural.py",
                 "tests/integrators/test_lower.py")
#: the case studies' test files go last: the doc pages (first, on one worker) have run the quick
#: profiles they share by then (the ``case_study_run`` fixture), where a case-study file taken early
#: by the other worker made one of the two wait, idle, for the same run (about 30 s measured)
LAST = "tests/casestudies/"


def _longest_first(items):
    rank = {name: k for k, name in enumerate(LONGEST_FIRST)}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def key(item):
        path = os.path.relpath(str(item.path), root).replace(os.sep, "/")
        return rank.get(path, len(rank) + (1 if path.startswith(LAST) else 0))

    items.sort(key=key)     # stable: every other file keeps its place and its tests their order


def pytest_collection_modifyitems(config, items):
    """Order the longest files first and the case studies last; skip the tests marked ``needs_pdflatex`` when pdflatex is not installed."""
    _longest_first(items)
    marked = [item for item in items if item.get_closest_marker("needs_pdflatex")]
    if not marked:
        return
    from geomcheck.latex import pdflatex_available

    if pdflatex_available():
        return
    skip = pytest.mark.skip(reason="pdflatex is not installed (Debian: texlive-latex-base texlive-latex-recommended)")
    for item in marked:
        item.add_marker(skip)


#: mpmath's working precision when the session started (its default, 53 bits)
SESSION_PRECISION = mpmath.mp.prec


@pytest.fixture(autouse=True)
def _mpmath_precision_kept():
    """A test that leaves mpmath's global working precision changed fails, and the precision is put
    back: the tests after it in the same worker would otherwise run at another precision (a doc
    page's ``mpmath.mp.dps = 50`` once made a Newton rule test fail three files later).  A change
    left by something this fixture does not wrap (a doctest of the packages) fails the next test."""
    before = mpmath.mp.prec
    if before != SESSION_PRECISION:
        mpmath.mp.prec = SESSION_PRECISION
        pytest.fail(f"mpmath's working precision was {before} bits before this test, not {SESSION_PRECISION}: "
                    "something run before it in this worker (a doctest?) changed it and did not put it back")
    yield
    after = mpmath.mp.prec
    if after != before:
        mpmath.mp.prec = before
        pytest.fail(f"the test left mpmath's working precision at {after} bits (it was {before}): "
                    "use mpmath.workdps / workprec")


def _wait_for(lock, what, seconds=900):
    """Take the lock on the open file ``lock``; fail (never hang) after ``seconds``."""
    import time

    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                pytest.fail(f"waited {seconds} s for {what}")
            time.sleep(0.05)


@pytest.fixture(scope="session")
def case_study_run(tmp_path_factory):
    """``run(name)``: a case study's quick profile, run once for the whole test session.

    The case-study tests and the executed doc pages need the same quick runs (about 35 s of
    CPU were spent twice).  The first worker of pytest-xdist to ask runs it, under a lock, and
    leaves the pickled :class:`~casestudies.CaseResult` and its figures in the session's common
    temporary directory; the others wait for it and read it.  A test must not modify the result.
    """
    base = tmp_path_factory.getbasetemp()
    # under xdist each worker has its own directory in the session's: share the session's
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "case-study-runs"
    root.mkdir(exist_ok=True)
    memo = {}
    # the function itself, taken before any test replaces casestudies.run by a call to this fixture
    from casestudies import run as run_case_study

    def run(name, profile="quick"):
        if (name, profile) not in memo:
            where = root / f"{name}-{profile}"
            with open(root / f"{name}-{profile}.lock", "w") as lock:
                _wait_for(lock, f"the {name} run of another worker")
                if (where / "result.pickle").exists():
                    result = pickle.loads((where / "result.pickle").read_bytes())
                else:
                    (where / "figures").mkdir(parents=True, exist_ok=True)
                    result = run_case_study(name, profile, out=str(where / "figures"))
                    (where / "result.pickle").write_bytes(pickle.dumps(result))
            memo[name, profile] = result
        return memo[name, profile]

    return run
