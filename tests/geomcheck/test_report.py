"""``geomcheck report``: what it writes, atomically, and how it refuses bad input."""

import json
import os

import pytest

import geomcheck.report as report
import integrators as ig
from geomcheck.cli import main
from geomcheck.latex import pdflatex_available


@pytest.fixture
def small(monkeypatch):
    """A report over two catalog schemes, two showcase items and no case study (fast)."""
    from geomcheck.structures.showcase import showcase

    keep = {"stormer-verlet", "implicit-midpoint"}
    full = report._catalog_jobs
    monkeypatch.setattr(report, "_catalog_jobs", lambda: [j for j in full() if j[0] in keep])
    items = [it for it in showcase() if "Lemma 6" in it[0] or "trapezoidal" in it[0]]
    monkeypatch.setattr(report, "_structure_jobs", lambda: items)
    monkeypatch.setattr(report, "_case_jobs", lambda: [])


def test_report_writes_tex_json_and_pdf(small, tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(["figures", "report.tex", "summary.json"] + (["report.pdf"] if pdflatex_available() else []))
    summary = json.loads((out / "summary.json").read_text())
    assert summary["passed"] is True and summary["profile"] == "quick"
    assert {(r["scheme"], r["property"]) for r in summary["catalog"]} >= {("stormer-verlet", "symplectic"),
                                                                           ("implicit-midpoint", "order 2")}
    tex = (out / "report.tex").read_text()
    assert "stormer-verlet" in tex and "Lemma 6" in tex
    err = capsys.readouterr().err
    assert "[1/" in err and "RESULT: every certificate holds" in err
    # nothing but the report beside it: the staging directory is gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_existing_non_empty_directory_is_refused_unless_forced(small, tmp_path, capsys):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert main(["report", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not empty" in err and "--force" in err and len(err.strip().splitlines()) == 1
    assert (out / "keep.txt").read_text() == "mine"
    assert main(["report", "--out", str(out), "--force"]) == 0
    assert not (out / "keep.txt").exists() and (out / "summary.json").exists()


def test_unwritable_location_is_refused(tmp_path, capsys):
    assert main(["report", "--out", str(tmp_path / "no" / "such" / "dir")]) == 2
    assert "is not a directory" in capsys.readouterr().err
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["report", "--out", str(f)]) == 2
    assert "not a directory" in capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_read_only_parent_is_refused(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        assert main(["report", "--out", str(ro / "rep")]) == 2
        assert "not writable" in capsys.readouterr().err
    finally:
        ro.chmod(0o700)


def test_bad_profile_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["report", "--out", str(tmp_path / "r"), "--profile", "fast"])
    assert exc.value.code == 2
    assert "invalid choice: 'fast'" in capsys.readouterr().err


def test_an_interrupted_run_leaves_nothing(small, tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ig, "example_system", interrupted)
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 130
    assert "interrupted; nothing was written" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_forced_run_keeps_the_old_report(small, tmp_path, monkeypatch):
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 0
    before = (out / "summary.json").read_text()
    monkeypatch.setattr(ig, "example_system", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert main(["report", "--out", str(out), "--force"]) == 130
    assert (out / "summary.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_a_failing_claim_gives_exit_1_and_is_in_the_summary(small, tmp_path, monkeypatch):
    s = ig.scheme("explicit-euler")
    monkeypatch.setattr(type(s), "properties", frozenset({"symplectic"}), raising=False)
    monkeypatch.setattr(report, "_catalog_jobs", lambda: [("explicit-euler", s, "generic-1dof")])
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["passed"] is False
    assert any(r["property"] == "symplectic" and r["holds"] is False for r in summary["catalog"])


def test_disagreements_are_listed_with_their_tests_and_do_not_fail_the_report(small, tmp_path, monkeypatch):
    """A claim that does not hold as stated is documented (with its test), not a failed check."""
    import casestudies
    from casestudies._core import CaseResult, check_below

    def fake_run(name, profile, out=None):
        r = CaseResult(name, "A fake case", "nobody 2020", profile, None)
        r.checks.append(check_below("error", 1e-9, 1e-8, "Fig. 1"))
        r.disagreements.append(("the paper says X; X holds only for Y (ratio 2.5)", "tests/x.py::test_y"))
        return r

    monkeypatch.setattr(report, "_case_jobs", lambda: ["fake"])
    monkeypatch.setattr(casestudies, "run", fake_run)
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["disagreements"] == [{"case": "fake", "disagreement": "the paper says X; X holds only for Y (ratio 2.5)",
                                         "test": "tests/x.py::test_y"}]
    assert summary["cases"][0]["disagreements"][0]["test"] == "tests/x.py::test_y"
    tex = (out / "report.tex").read_text()
    assert "Claims that do not hold as stated" in tex and "tests/x.py::test_y" in tex
