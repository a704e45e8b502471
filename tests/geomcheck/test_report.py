"""``geomcheck report``: what it writes, atomically, and how it refuses bad input."""

import json
import os

import pytest

import geomcheck.report as report
import geomcheck.report_jobs as report_jobs
import integrators as ig
from geomcheck.cli import main
from geomcheck.latex import pdflatex_available


@pytest.fixture
def small(monkeypatch):
    """A report over two catalog schemes, two showcase items and no case study (fast), in this
    process (the jobs are patched here, and fresh worker processes would not see the patches)."""
    from geomcheck.structures.showcase import showcase

    monkeypatch.setattr(report_jobs, "default_workers", lambda: 1)
    # the PDF (three pdflatex passes, about 1 s) only where a test asks for it: ``with_pdf``
    monkeypatch.setattr(report, "pdflatex_available", lambda: False)
    keep = {"stormer-verlet", "implicit-midpoint"}
    full = report_jobs.catalog_jobs
    monkeypatch.setattr(report_jobs, "catalog_jobs", lambda: [j for j in full() if j.args[0] in keep])
    monkeypatch.setattr(report_jobs, "bseries_jobs", lambda: [report_jobs.Job(f"B-series of {n}", report_jobs.bseries_row,
                                                                              (n,)) for n in sorted(keep)])
    items = [k for k, it in enumerate(showcase()) if "Lemma 6" in it[0] or "trapezoidal" in it[0]]
    every = report_jobs.structure_jobs
    monkeypatch.setattr(report_jobs, "structure_jobs", lambda: [j for j in every() if j.args[0] in items])
    monkeypatch.setattr(report_jobs, "case_jobs", lambda profile: [])


@pytest.fixture
def with_pdf(small, monkeypatch):
    """``small``, typeset to PDF as well (where pdflatex is installed)."""
    monkeypatch.setattr(report, "pdflatex_available", pdflatex_available)


def test_report_writes_tex_json_and_pdf(with_pdf, tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([report.REPORT_MARKER, "figures", "report.html", "report.tex", "summary.json"] + (["report.pdf"] if pdflatex_available() else []))
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


def test_existing_non_empty_directory_is_refused_and_force_does_not_delete_it(small, tmp_path, capsys):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert main(["report", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not empty" in err and "--force" in err and len(err.strip().splitlines()) == 1
    # --force replaces only an earlier report: this directory is the user's
    assert main(["report", "--out", str(out), "--force"]) == 2
    err = capsys.readouterr().err
    assert "only an earlier geomcheck report" in err and ".geomcheck-report.json" in err
    assert (out / "keep.txt").read_text() == "mine" and sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_force_replaces_an_earlier_report_and_nothing_else(small, tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 0
    marker = json.loads((out / report.REPORT_MARKER).read_text())
    assert "summary.json" in marker["files"] and "report.tex" in marker["files"]
    assert main(["report", "--out", str(out), "--force"]) == 0
    # a file the user put into the old report is not ours to delete
    (out / "figures" / "my-notes.txt").write_text("mine")
    assert main(["report", "--out", str(out), "--force"]) == 2
    assert "figures/my-notes.txt, which the earlier report did not write" in capsys.readouterr().err
    assert (out / "figures" / "my-notes.txt").read_text() == "mine"


def test_a_forged_or_damaged_marker_is_not_trusted(small, tmp_path, capsys):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "thesis.tex").write_text("mine")
    for text in ("not json", '{"files": ["thesis.tex"]}', '{"written_by": "geomcheck report"}'):
        (out / report.REPORT_MARKER).write_text(text)
        assert main(["report", "--out", str(out), "--force"]) == 2
        assert "no valid .geomcheck-report.json" in capsys.readouterr().err
    assert (out / "thesis.tex").read_text() == "mine"


@pytest.mark.parametrize("where", [".", "", "..", "~", "/"])
def test_force_never_touches_the_cwd_its_parents_home_or_root(where, small, tmp_path, monkeypatch, capsys):
    # the user's working directory, even one that holds an earlier report (marker and all)
    home = tmp_path / "home"
    cwd = home / "thesis"
    home.mkdir()
    assert main(["report", "--out", str(cwd)]) == 0
    (cwd / report.REPORT_MARKER).write_text(json.dumps(
        {"written_by": "geomcheck report", "files": sorted(
            os.path.relpath(os.path.join(d, f), cwd) for d, _, fs in os.walk(cwd) for f in fs)}))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    before = sorted(p.name for p in cwd.iterdir())
    assert main(["report", "--out", os.path.expanduser(where) if where == "~" else where, "--force"]) == 2
    err = capsys.readouterr().err
    expected = {".": "current directory", "": "empty directory name", "..": "one of its parents",
                "~": "one of its parents", "/": "filesystem root"}[where]
    assert expected in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in cwd.iterdir()) == before
    assert sorted(p.name for p in home.iterdir()) == ["thesis"]


def test_the_home_directory_is_never_replaced(small, tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    assert main(["report", "--out", str(home)]) == 0
    monkeypatch.setenv("HOME", str(home))
    assert main(["report", "--out", str(home), "--force"]) == 2
    assert "home directory" in capsys.readouterr().err
    assert (home / "summary.json").exists()


def test_a_symbolic_link_is_not_replaced(small, tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 0
    link = tmp_path / "link"
    link.symlink_to(out)
    assert main(["report", "--out", str(link), "--force"]) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert link.is_symlink() and (out / "summary.json").exists()


def test_run_report_refuses_bad_output_itself(tmp_path):
    from geomcheck.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="empty directory name"):
        report.run_report("", force=True)
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(InvalidArgumentError, match="only an earlier geomcheck report"):
        report.run_report(str(tmp_path), force=True)
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_the_report_directory_gets_the_users_umask(small, tmp_path):
    old = os.umask(0o027)
    try:
        assert main(["report", "--out", str(tmp_path / "rep")]) == 0
    finally:
        os.umask(old)
    assert (tmp_path / "rep").stat().st_mode & 0o777 == 0o750


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
    monkeypatch.setattr(report_jobs, "catalog_jobs", lambda: [report_jobs.Job(
        "certify explicit-euler", report_jobs.certify_scheme, ("explicit-euler", "generic-1dof"))])
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["passed"] is False
    assert any(r["property"] == "symplectic" and r["holds"] is False for r in summary["catalog"])


def test_findings_are_listed_by_kind_with_their_tests_and_do_not_fail_the_report(small, tmp_path, monkeypatch):
    """What we say about a paper is classified; only an error in the paper counts as a misprint."""
    import casestudies
    from casestudies._core import CaseResult, Finding, check_below

    def fake_run(name, profile, out=None):
        r = CaseResult(name, "A fake case", "nobody 2020", profile, None)
        r.checks.append(check_below("error", 1e-9, 1e-8, "Fig. 1"))
        r.findings += [Finding("critique", "Sec. 2", "the method offered for instance drifts (ratio 2.5)",
                               "tests/x.py::test_y"),
                       Finding("error", "eq. (3)", "the sign of the second term is wrong", "tests/x.py::test_z"),
                       Finding("convention", "eq. (4)", "the energy summed over which nodes", "tests/x.py::test_w",
                               readings=("all nodes: conserved", "interior nodes: not conserved"))]
        return r

    monkeypatch.setattr(report_jobs, "case_jobs", lambda profile: [report_jobs.Job("fake", report_jobs.run_case,
                                                                                      ("fake", profile))])
    monkeypatch.setattr(casestudies, "run", fake_run)
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert [(f["kind"], f["where"], f["test"]) for f in summary["findings"]] == [
        ("critique", "Sec. 2", "tests/x.py::test_y"), ("error", "eq. (3)", "tests/x.py::test_z"),
        ("convention", "eq. (4)", "tests/x.py::test_w")]
    assert summary["misprints"] == [{"case": "fake", "where": "eq. (3)", "misprint": "the sign of the second term is"
                                     " wrong", "test": "tests/x.py::test_z"}]
    assert summary["cases"][0]["findings"][2]["readings"] == ["all nodes: conserved", "interior nodes: not conserved"]
    tex = (out / "report.tex").read_text()
    assert "How we classify findings" in tex and "Findings: critique (1)" in tex
    assert "Findings: error in the paper (1)" in tex and "tests/x.py::test_y" in tex
    assert "interior nodes: not conserved" in tex


# --------------------------------------------------------------------------- the page 1 verdict, PDF and HTML


@pytest.mark.needs_pdflatex
def test_the_pdf_opens_with_the_verdict_and_fits_its_margins(with_pdf, tmp_path):
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 0
    tex = (out / "report.tex").read_text()
    # the verdict and the summary come before the table of contents, the catalog is an appendix
    verdict, contents = tex.index(r"\section*{Verdict}"), tex.index(r"\tableofcontents")
    assert verdict < contents < tex.index(r"\section{The papers' claims") < tex.index(r"\appendix") \
        < tex.index(r"\section{The integrators catalog, certified}")
    # 6 catalog, 2 B-series rows, 2 theorems
    assert "Every one of the 10 results holds." in tex[verdict:contents]
    assert tex.index(r"\section{The integrators catalog, certified}") \
        < tex.index(r"\section{The catalog for every vector field (B-series)}")
    summary = json.loads((out / "summary.json").read_text())
    # the catalog derivations (implicit midpoint's wide residual among them) fit the page
    assert summary["layout"]["worst_overfull_pt"] <= 20, summary["layout"]
    assert summary["verdict"] == "Every one of the 10 results holds."
    rows = {r["scheme"]: r for r in summary["bseries"]}
    assert rows["implicit-midpoint"]["agrees"] is True and rows["implicit-midpoint"]["conjugate_symplectic_to"] == 4
    assert rows["stormer-verlet"]["kind"] == "P-series" and rows["stormer-verlet"]["symplectic"] is True
    # symplectic, so conjugate-symplectic (chi = id) to every order checked; energy: not decided for P-series
    assert rows["stormer-verlet"]["conjugate_symplectic_to"] == rows["stormer-verlet"]["checked_to"] == 4
    assert rows["stormer-verlet"]["energy_preserving_to"] is None


_SMALL_REPORT = """
import sys
import geomcheck.report as report
import geomcheck.report_jobs as jobs
from geomcheck.structures.showcase import showcase
full, every = jobs.catalog_jobs, jobs.structure_jobs
jobs.catalog_jobs = lambda: [j for j in full() if j.args[0] in ("stormer-verlet", "implicit-midpoint")]
jobs.bseries_jobs = lambda: [jobs.Job(n, jobs.bseries_row, (n,)) for n in ("implicit-midpoint", "stormer-verlet")]
items = [k for k, it in enumerate(showcase()) if "Lemma 6" in it[0] or "trapezoidal" in it[0]]
jobs.structure_jobs = lambda: [j for j in every() if j.args[0] in items]
jobs.case_jobs = lambda profile: []
report.pdflatex_available = lambda: False      # the test compares report.tex and report.html
sys.exit(report.run_report(sys.argv[1], workers=int(sys.argv[2]) if len(sys.argv) > 2 else None))
"""


def test_the_report_text_is_the_same_on_every_run_and_in_worker_processes(tmp_path):
    """Two processes with different hash seeds (set iteration order), the second running the units
    of work in a pool of two worker processes, write the same report."""
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for run, seed, workers in (("a", "1", []), ("b", "2", ["2"])):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": root}
        done = subprocess.run([sys.executable, "-c", _SMALL_REPORT, str(tmp_path / run), *workers], env=env,
                              capture_output=True, text=True, timeout=300)
        assert ("on a worker" in done.stderr) == bool(workers), done.stderr[-2000:]
        assert done.returncode == 0, done.stderr[-2000:]
    for name in ("report.tex", "report.html"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def _fake_case(passed):
    from casestudies._core import CaseResult, Finding, check_below

    def run(name, profile, out=None):
        import matplotlib

        matplotlib.use("Agg", force=True)
        import matplotlib.pyplot as plt

        r = CaseResult(name, "A fake case", "nobody 2020", profile, None)
        r.checks.append(check_below("error", 1e-9 if passed else 1.0, 1e-8, "Fig. 1"))
        r.findings.append(Finding("damage", "eq. (3)", "as read in our copy the sign is lost",
                                  "tests/geomcheck/test_report.py::test_the_html_report_is_self_contained"))
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1])
        path = os.path.join(out, "fake.png")
        fig.savefig(path)
        plt.close(fig)
        r.figures.append(path)
        return r

    return run


def test_the_html_report_is_self_contained(small, tmp_path, monkeypatch):
    import re

    import casestudies

    monkeypatch.setattr(report_jobs, "case_jobs", lambda profile: [report_jobs.Job("fake", report_jobs.run_case,
                                                                                      ("fake", profile))])
    monkeypatch.setattr(casestudies, "run", _fake_case(True))
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert page.index('id="verdict"') < page.index("<h2>Contents</h2>") < page.index('id="claims"') \
        < page.index('id="findings"') < page.index('id="catalog"')
    # nothing fetched from anywhere: every image is embedded, no script, no stylesheet link
    assert not re.search(r"""(src|href)=["'](?!#|data:)""", page), "an external resource"
    assert "<script" not in page and "<link" not in page and 'src="data:image/png;base64,' in page
    assert "as read in our copy the sign is lost" in page and "damage in our converted copy: 1" in page


@pytest.mark.parametrize("passed", [True, False])
def test_the_verdict_is_on_screen_without_scrolling_in_a_real_browser(passed, small, tmp_path, monkeypatch):
    """Rendered by headless Chromium at 1280 x 800: the verdict box (its colour) is in that first screen."""
    import shutil
    import subprocess

    import casestudies
    from matplotlib.image import imread

    from geomcheck.report_html import VERDICT_COLOURS

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    monkeypatch.setattr(report_jobs, "case_jobs", lambda profile: [report_jobs.Job("fake", report_jobs.run_case,
                                                                                      ("fake", profile))])
    monkeypatch.setattr(casestudies, "run", _fake_case(passed))
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == (0 if passed else 1)
    shot = tmp_path / "shot.png"
    subprocess.run([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,800", f"--screenshot={shot}",
                    (out / "report.html").as_uri()], capture_output=True, timeout=120, check=True)
    pixels = (imread(shot)[:, :, :3] * 255).round().astype(int)
    assert pixels.shape[:2] == (800, 1280)

    def count(colour):
        rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
        return int((abs(pixels - rgb).sum(axis=2) <= 6).sum())

    shown, other = count(VERDICT_COLOURS[passed]), count(VERDICT_COLOURS[not passed])
    assert shown > 20_000 and other == 0, (shown, other)   # a box of ~1000 x 60 pixels, in the right colour


# --------------------------------------------------------------------------- faults: kills, races, full disks


def test_a_second_run_into_the_same_directory_is_refused_while_the_first_writes(small, tmp_path, capsys):
    import fcntl

    out = tmp_path / "rep"
    lock = tmp_path / ".rep.lock"
    with open(lock, "w") as held:               # the first run, holding the lock
        held.write("4242")
        held.flush()
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert main(["report", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "another geomcheck report (pid 4242) is being written" in err and not out.exists()
    assert main(["report", "--out", str(out)]) == 0   # once it is done, the next run goes ahead
    assert not lock.exists()


def test_what_a_killed_run_left_is_cleaned_up_by_the_next(small, tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    killed = tmp_path / ".rep.partial-abc123"           # a staging directory of a killed run
    killed.mkdir()
    (killed / ".geomcheck-staging").write_text(dead)
    (killed / "report.tex").write_text("half")
    foreign = tmp_path / ".rep.partial-notours"         # the same name pattern, not tagged by us
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine")
    assert main(["report", "--out", str(tmp_path / "rep")]) == 0
    assert not killed.exists() and (foreign / "keep.txt").read_text() == "mine"


def test_an_earlier_report_moved_aside_by_a_killed_run_is_put_back(small, tmp_path, monkeypatch):
    out = tmp_path / "rep"
    assert main(["report", "--out", str(out)]) == 0
    before = (out / "summary.json").read_text()
    aside = tmp_path / ".rep.old-xyz"
    os.replace(out, aside)                               # killed between the two renames of --force
    # without --force the report put back is not replaced
    assert main(["report", "--out", str(out)]) == 2
    assert (out / "summary.json").read_text() == before and not aside.exists()


def test_a_full_disk_is_a_named_error_and_leaves_nothing(small, tmp_path, monkeypatch, capsys):
    import errno

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(report.json, "dump", full)
    assert main(["report", "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err
    assert "could not be written (No space left on device); nothing was written" in err
    assert "Traceback" not in err and list(tmp_path.iterdir()) == []


def test_a_case_study_refuses_an_unusable_figure_directory_before_running(tmp_path, monkeypatch):
    import casestudies
    from geomcheck.errors import InvalidArgumentError

    (tmp_path / "file").write_text("x")
    ran = []
    monkeypatch.setattr(casestudies, "_module", lambda name: ran.append(name))
    for bad in (str(tmp_path / "file"), "", str(tmp_path / "file" / "sub")):
        with pytest.raises(InvalidArgumentError, match="figures"):
            casestudies.run("guo-del-schemes", out=bad)
    assert ran == []


@pytest.mark.needs_pdflatex
def test_every_theorem_derivation_fits_the_page(tmp_path):
    """The papers' theorems as the report typesets them (the catalog's are checked in
    tests/integrators/test_catalog.py): within the margins."""
    from geomcheck.latex import compile_pdf, fit_to_width, tex_text
    from geomcheck.report_tex import PREAMBLE
    from geomcheck.structures.showcase import showcase

    body = "\n".join(r"\subsection*{" + tex_text(title) + "}\n" + fit_to_width(build().latex())
                     for title, build in showcase())
    log = tmp_path / "doc.log"
    compile_pdf(PREAMBLE + "\\begin{document}\n" + body + "\n\\end{document}\n", tmp_path / "doc.pdf", log=log)
    widths = report.overfull_widths(log.read_text(encoding="latin-1"))
    assert max(widths, default=0.0) <= 20, sorted(widths)[-5:]


def test_a_user_file_under_the_lock_name_is_left_alone(small, tmp_path, capsys):
    lock = tmp_path / ".rep.lock"
    lock.write_text("my notes")
    assert main(["report", "--out", str(tmp_path / "rep")]) == 2
    assert "is not a geomcheck lock" in capsys.readouterr().err
    assert lock.read_text() == "my notes" and not (tmp_path / "rep").exists()


def test_units_of_work_on_dask_come_back_in_order_with_their_figures(small, tmp_path, monkeypatch):
    """Figures are written on the worker and travel back as bytes (no shared file system needed)."""
    import io

    import casestudies

    dd = pytest.importorskip("dask.distributed")
    monkeypatch.setattr(casestudies, "run", _fake_case(True))
    jobs = [report_jobs.Job("fake", report_jobs.run_case, ("fake", "quick"))] + report_jobs.structure_jobs()
    stream = io.StringIO()
    # a thread cluster shares this process, so the fake case study above is what runs
    with dd.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            dd.Client(cluster) as client:
        remote = report_jobs.run_jobs(jobs, stream, client)
    here = report_jobs.run_jobs(jobs, io.StringIO())
    (case, figures), *structures = remote
    assert list(figures) == ["fake.png"] and figures["fake.png"].startswith(b"\x89PNG")
    installed = report_jobs.install_figures(case, figures, str(tmp_path))
    assert installed.figures == [str(tmp_path / "fake.png")] and (tmp_path / "fake.png").read_bytes() == figures["fake.png"]
    assert structures == here[1:]                      # the same entries, in the order of the jobs
    assert stream.getvalue().count("on a worker") == len(jobs)


def test_bad_distributed_options_are_refused_before_any_work(tmp_path, monkeypatch, capsys):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "rep"
    for argv in (["--workers", "0"], ["--workers", "x"], ["--workers", "2", "--scheduler", "tcp://a:1"]):
        with pytest.raises(SystemExit) as exc:
            main(["report", "--out", str(out), *argv])
        assert exc.value.code == 2
    with pytest.raises(report.InvalidArgumentError, match="workers"):
        report.run_report(str(out), workers=True)
    monkeypatch.setattr(report_jobs, "SCHEDULER_TIMEOUT", "1s")
    assert main(["report", "--out", str(out), "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "no Dask scheduler answered at tcp://127.0.0.1:9" in capsys.readouterr().err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["../escape.png", "..", "", "sub/f.png", "/abs.png"])
def test_a_figure_name_from_a_worker_cannot_leave_the_figures_directory(name, tmp_path):
    from casestudies._core import CaseResult

    case = CaseResult("fake", "A fake case", "nobody 2020", "quick", None)
    (tmp_path / "figures").mkdir()
    with pytest.raises(report.InvalidArgumentError, match="plain file name"):
        report_jobs.install_figures(case, {name: b"x"}, str(tmp_path / "figures"))
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["figures"]


def test_the_commands_use_one_worker_per_core_unless_told(tmp_path, monkeypatch):
    """``geomcheck report`` and ``certify --all`` run on every usable core by default; ``--workers``
    and ``--scheduler`` override that, and the Python function stays serial unless asked."""
    import inspect

    import geomcheck.cli_certify as cli_certify

    assert inspect.signature(report.run_report).parameters["workers"].default is None
    seen = []
    monkeypatch.setattr(report_jobs, "default_workers", lambda: 7)
    monkeypatch.setattr(report, "run_report", lambda out, profile, force, workers, scheduler: seen.append(
        (workers, scheduler)) or 0)
    monkeypatch.setattr(cli_certify, "run_certify_all", lambda latex, workers, scheduler: seen.append(
        (workers, scheduler)) or 0)
    out = str(tmp_path / "rep")
    for argv in (["report", "--out", out], ["report", "--out", out, "--workers", "1"],
                 ["report", "--out", out, "--scheduler", "tcp://a:1"], ["certify", "--all"],
                 ["certify", "--all", "--workers", "3"]):
        assert main(argv) == 0, argv
    assert seen == [(7, None), (1, None), (None, "tcp://a:1"), (7, None), (3, None)]
    assert report_jobs.usable_cores() >= 1 and report_jobs.default_workers() == 7


def test_a_worker_process_that_dies_is_a_named_error():
    """A unit whose process dies (here it exits at once) ends the run with WorkerProcessError
    naming the unit, not with the pool's own exception."""
    import io

    from geomcheck.errors import WorkerProcessError

    jobs = [report_jobs.Job("a unit that exits", os._exit, (3,))]
    with pytest.raises(WorkerProcessError, match="a unit that exits"):
        with report_jobs.job_runner(workers=2) as pool:
            report_jobs.run_jobs(jobs, io.StringIO(), pool)
    with report_jobs.job_runner(workers=1) as here:
        assert here is None
    with pytest.raises(report.InvalidArgumentError, match="not both"):
        with report_jobs.job_runner(workers=2, scheduler="tcp://a:1"):
            pass
