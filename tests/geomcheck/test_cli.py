"""The command line (geomcheck.cli): exit status 0 when every claim holds, 1 when a check
fails, 2 for bad input with a one-line message naming what was wrong."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args):
    """``geomcheck ARGS`` in this process (an uncaught exception fails the test): its exit status and output.

    The entry point itself runs in a subprocess in test_version_and_help_name_the_schemes_and_systems;
    the rest need no interpreter of their own (about 2 s of imports each)."""
    import contextlib
    import io

    from geomcheck.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:        # argparse's own exits (bad usage: 2)
            code = exc.code
    return subprocess.CompletedProcess(["geomcheck", *args], code, out.getvalue(), err.getvalue())


def run_entry_point(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "geomcheck", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def one_line(text):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return len(lines) == 1 and "Traceback" not in text


def test_demo_succeeds_and_prints_latex():
    r = run_cli("demo")
    assert r.returncode == 0, r.stderr
    assert "RESULT: every claim holds" in r.stdout
    assert r"\wedge" in r.stdout
    assert r"\mathrm{d}q" in r.stdout
    assert "Traceback" not in r.stderr


def test_demo_writes_a_latex_file(tmp_path):
    out = tmp_path / "demo.tex"
    r = run_cli("demo", "--latex", str(out))
    assert r.returncode == 0, r.stderr
    assert "RESULT: every claim holds" in r.stdout
    text = out.read_text()
    assert text.startswith(r"\documentclass")
    assert r"\begin{document}" in text
    assert text.rstrip().endswith(r"\end{document}")
    assert r"\wedge" in text
    # nothing else (no temporary file) is left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.tex"]


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_a_latex_file_gets_the_mode_of_the_users_umask(tmp_path, umask):
    from geomcheck.cli import main

    old = os.umask(umask)
    try:
        assert main(["demo", "--latex", str(tmp_path / "demo.tex")]) == 0
    finally:
        os.umask(old)
    assert (tmp_path / "demo.tex").stat().st_mode & 0o777 == 0o666 & ~umask


def test_version_and_help_name_the_schemes_and_systems():
    import integrators as ig

    r = run_entry_point("--version")
    assert r.returncode == 0 and r.stdout.strip() == "geomcheck 0.1.0"
    r = run_entry_point("--help")
    words = set(r.stdout.replace(",", " ").split())
    assert r.returncode == 0 and set(ig.list_schemes()) <= words and set(ig.list_example_systems()) <= words


def test_cases_run_prints_verdicts_in_words_and_numbers_rounded(tmp_path, monkeypatch, capsys):
    import casestudies
    from casestudies._core import CaseResult, Finding, check_below, check_true
    from geomcheck.cli import main

    def fake_run(name, profile, out=None):
        r = CaseResult(name, "A fake case", "nobody 2020", profile, None)
        r.checks += [check_below("error", 1.23456789e-9, 1e-8, "Fig. 1"),
                     check_true("a property", False, "holds", False, "Thm. 1")]
        r.findings.append(Finding("damage", "eq. (3)", "as read in our copy the sign is lost", "tests/x.py::test_z"))
        return r

    monkeypatch.setattr(casestudies, "run", fake_run)
    assert main(["cases", "run", "guo-del-schemes"]) == 1
    out = capsys.readouterr().out
    assert "measured 1.235e-09, expected <= 1e-08" in out and "measured fails, expected holds" in out
    assert "False" not in out and "[damage in our converted copy] eq. (3): as read in our copy" in out


def test_an_empty_latex_name_is_bad_input(capsys):
    from geomcheck.cli import main

    assert main(["demo", "--latex", ""]) == 2
    assert "an empty file name" in capsys.readouterr().err


def test_cases_run_writes_figures_into_out(tmp_path, monkeypatch, capsys):
    import casestudies
    from casestudies._core import CaseResult, check_below
    from geomcheck.cli import main

    def fake_run(name, profile, out=None):
        r = CaseResult(name, "A fake case", "nobody 2020", profile, None)
        r.checks.append(check_below("error", 1e-9, 1e-8, "Fig. 1"))
        r.figures.append(os.path.join(out, "fig.png"))
        return r

    monkeypatch.setattr(casestudies, "run", fake_run)
    assert main(["cases", "run", "guo-del-schemes", "--out", str(tmp_path / "figs")]) == 0
    assert str(tmp_path / "figs" / "fig.png") in capsys.readouterr().out
    (tmp_path / "file").write_text("x")
    for bad, why in ((str(tmp_path / "file"), "is not a directory"), ("", "an empty path")):
        assert main(["cases", "run", "guo-del-schemes", "--out", bad]) == 2
        assert why in capsys.readouterr().err


def test_demo_latex_into_a_missing_directory(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "demo.tex"
    r = run_cli("demo", "--latex", str(target))
    assert r.returncode == 2
    assert one_line(r.stderr), r.stderr
    assert str(target) in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_demo_latex_below_a_regular_file(tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a directory")
    r = run_cli("demo", "--latex", str(blocker / "demo.tex"))
    assert r.returncode == 2
    assert one_line(r.stderr), r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]
    assert blocker.read_text() == "not a directory"


def test_demo_latex_onto_an_existing_directory(tmp_path):
    """FILE names a directory: bad input (exit 2, one line), not a traceback, nothing written."""
    target = tmp_path / "adir"
    target.mkdir()
    r = run_cli("demo", "--latex", str(target))
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert one_line(r.stderr), r.stderr[-500:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"]
    assert list(target.iterdir()) == []


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_demo_latex_into_a_directory_where_files_cannot_be_created():
    """/proc passes an os.access(W_OK) check for root but refuses new files: the CLI must still
    answer with exit status 2 and one line, not a traceback."""
    target = "/proc/geomcheck-demo.tex"
    r = run_cli("demo", "--latex", target)
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert one_line(r.stderr), r.stderr[-500:]
    assert not os.path.exists(target)


def test_unknown_command():
    r = run_cli("frobnicate")
    assert r.returncode == 2
    assert "frobnicate" in r.stderr
    assert one_line(r.stderr), r.stderr


def test_no_command():
    r = run_cli()
    assert r.returncode == 2
    assert r.stdout == ""


def test_unknown_option():
    r = run_cli("demo", "--no-such-option")
    assert r.returncode == 2
    assert "--no-such-option" in r.stderr
    assert one_line(r.stderr), r.stderr


def test_main_in_process_returns_2_without_command(capsys):
    from geomcheck.cli import main

    assert main([]) == 2
