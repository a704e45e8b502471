"""Bad command lines for ``geomcheck`` (``geomcheck.cli.main`` in process).

Every bad command line must end with exit status 2 and a one-line ``geomcheck: ...`` (or
argparse usage) message on stderr naming the problem: never a traceback, never a 0.
Only refusals are generated here (a valid ``certify``/``report``/``cases run`` does real work
for seconds to minutes and has its own tests); ``cases list`` and ``--version`` are the valid
controls.
"""

import contextlib
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from geomcheck.cli import main

from ._harness import guarded

WORDS = ["", " ", "nope", "\x00", "-", "--", "--x", "stormer_verlet!", "ü", "a" * 300, "../../etc", "--latex"]


def run_cli(argv):
    """``(exit status, stdout, stderr)`` of ``main(argv)``; argparse's SystemExit is an exit status."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


bad_argv = st.one_of(
    st.tuples(st.sampled_from(WORDS)).map(list),                                          # an unknown command
    st.tuples(st.just("certify"), st.sampled_from(WORDS[2:])).map(list),                  # an unknown scheme
    st.tuples(st.just("certify"), st.just("stormer-verlet"), st.just("--system"),
              st.sampled_from(WORDS[:3] + ["generic-contact", "pendulum-3"])).map(list),  # unknown/unfit system
    st.tuples(st.just("certify"), st.just("stormer-verlet"), st.just("--latex"),
              st.sampled_from(["", "/", "/proc/nope/x.tex", "/nonexistent/dir/x.tex"])).map(list),
    st.tuples(st.just("demo"), st.just("--latex"), st.sampled_from(["", "/", "/nonexistent/d/x.tex"])).map(list),
    st.tuples(st.just("report"), st.sampled_from([[], ["--out", ""], ["--out", "/proc/x"], ["--profile", "slow"],
                                                 ["--out", "/proc/x", "--profile", "quick", "--force"]])).map(
        lambda t: [t[0], *t[1]]),
    st.tuples(st.just("cases"), st.just("run"), st.sampled_from(WORDS[:4] + ["terakawa"])).map(list),
    st.tuples(st.just("cases"), st.sampled_from(["go", "list2", "--profile"])).map(list),
    st.tuples(st.just("certify"), st.sampled_from(["--system", "--latex"])).map(list),   # a missing SCHEME
)


@settings(max_examples=70, deadline=None)
@given(bad_argv)
def test_bad_command_lines_exit_2_with_a_message(argv):
    out = guarded(run_cli, argv, seconds=30)
    assert not out.refused, f"a GeomcheckError escaped main({argv!r}): {out.error}"
    rc, stdout, stderr = out.value
    assert rc == 2, (argv, rc, stdout[-300:], stderr[-300:])
    assert "Traceback" not in stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert lines, f"main({argv!r}) exited 2 without saying why"
    assert "geomcheck" in stderr or "usage" in stderr


def test_valid_controls():
    rc, stdout, _ = guarded(run_cli, ["cases", "list"]).value
    assert rc == 0 and stdout.count("\n") >= 3
    rc, stdout, _ = guarded(run_cli, ["--version"]).value
    assert rc == 0 and "geomcheck" in stdout
