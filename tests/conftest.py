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

import os

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


#: the test files that take longest (measured, CPU seconds on the 2-core machine: 85, 49, 40,
#: 38, 36, 24, 22, 21); pytest-xdist's ``--dist loadfile`` hands files to the workers in
#: collection order, so these go first: otherwise the longest came last and one worker ran it
#: alone while the other stood idle (about 40 s of the suite's wall time)
LONGEST_FIRST = ("tests/test_docs_papers.py", "tests/geomcheck/test_report.py", "tests/benchmarks/test_benchmarks_run.py",
                 "tests/integrators/test_catalog_latex.py", "tests/integrators/test_catalog.py",
                 "tests/integrators/test_bench_quick.py", "tests/integrators/test_discrete_gradient_schemes.py",
                 "tests/integrators/test_rattle.py")


def _longest_first(items):
    rank = {name: k for k, name in enumerate(LONGEST_FIRST)}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def key(item):
        path = os.path.relpath(str(item.path), root).replace(os.sep, "/")
        return rank.get(path, len(rank))

    items.sort(key=key)     # stable: every other file keeps its place and its tests their order


def pytest_collection_modifyitems(config, items):
    """Order the longest files first; skip the tests marked ``needs_pdflatex`` when pdflatex is not installed."""
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
