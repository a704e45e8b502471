"""``geomcheck certify SCHEME [--system NAME] [--latex FILE]`` and ``geomcheck certify --all``."""

import os

import pytest

import integrators as ig
from geomcheck.cli import main
from geomcheck.latex import compile_pdf, pdflatex_available


def test_certify_a_scheme_on_its_default_generic_system(capsys):
    assert main(["certify", "stormer-verlet"]) == 0
    out = capsys.readouterr().out
    assert "generic-1dof" in out and "any smooth V" in out
    for prop in ("order 2", "symmetric", "symplectic"):
        assert any(line.strip().startswith(prop) and "holds" in line for line in out.splitlines())
    assert "RESULT: every claim holds" in out


def test_contact_schemes_default_to_a_generic_contact_system(capsys):
    assert main(["certify", "contact-splitting-2"]) == 0
    out = capsys.readouterr().out
    assert "generic-contact" in out and "contact " in out


def test_certify_writes_a_latex_document_that_compiles(tmp_path, capsys):
    tex = tmp_path / "sv.tex"
    assert main(["certify", "implicit-midpoint", "--system", "pendulum", "--latex", str(tex)]) == 0
    source = tex.read_text()
    assert source.startswith("\\documentclass") and "symplectic" in source
    assert [p.name for p in tmp_path.iterdir()] == ["sv.tex"]  # no temporary file left behind
    if pdflatex_available():
        assert compile_pdf(source, tmp_path / "sv.pdf").stat().st_size > 0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["certify", "leapfrog-17"], "unknown scheme 'leapfrog-17'; known schemes: explicit-euler"),
        (["certify", "rk4", "--system", "nope"], "unknown system 'nope'; expected one of: generic-1dof"),
        (["certify", "stormer-verlet", "--system", "damped-oscillator"], "does not apply"),
        (["certify"], "certify takes a SCHEME or --all"),
    ],
)
def test_bad_names_exit_2_with_one_line_listing_the_valid_ones(argv, message, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors exit through our parser with status 2
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_unwritable_latex_target_is_refused_before_any_work(tmp_path, capsys):
    target = tmp_path / "missing-dir" / "x.tex"
    assert main(["certify", "rk4", "--latex", str(target)]) == 2
    assert "cannot write --latex" in capsys.readouterr().err
    assert not os.path.exists(target)


def test_a_failing_claim_exits_1(monkeypatch, capsys):
    # explicit Euler declared symplectic (the bug integrator libraries have shipped):
    # the certificate must refuse it, and the command must say so with status 1
    s = ig.scheme("explicit-euler")
    monkeypatch.setattr(type(s), "properties", frozenset({"symplectic"}), raising=False)
    monkeypatch.setattr(ig, "scheme", lambda name: s)
    assert main(["certify", "explicit-euler"]) == 1
    out = capsys.readouterr().out
    assert any(line.strip().startswith("symplectic") and "fails" in line for line in out.splitlines())
    assert "NOT every claim holds" in out


@pytest.fixture
def two_schemes(monkeypatch):
    import geomcheck.report_jobs as report_jobs

    full = report_jobs.catalog_jobs
    monkeypatch.setattr(report_jobs, "catalog_jobs",
                        lambda: [j for j in full() if j.args[0] in ("symplectic-euler-a", "rk4")])
    # in this process: fresh worker processes would not see the tests' patches
    monkeypatch.setattr(report_jobs, "default_workers", lambda: 1)


def test_certify_all_prints_every_claim_and_writes_one_document(two_schemes, tmp_path, capsys):
    tex = tmp_path / "all.tex"
    assert main(["certify", "--all", "--latex", str(tex)]) == 0
    captured = capsys.readouterr()
    assert "[1/2] certify" in captured.err and "[2/2] certify" in captured.err
    lines = captured.out.splitlines()
    assert any(line.strip().startswith("symplectic-euler-a: symplectic") and "holds" in line for line in lines)
    assert any(line.strip().startswith("rk4: order 4") and "holds" in line for line in lines)
    assert "RESULT: 3 of 3 claims of 2 schemes hold" in captured.out     # order 1 + symplectic; order 4
    assert tex.read_text().count(r"\section*{") == 3


def test_certify_all_fails_with_exit_1_when_a_claim_does_not_hold(two_schemes, monkeypatch, capsys):
    s = ig.scheme("rk4")
    monkeypatch.setattr(type(s), "properties", frozenset({"symplectic"}), raising=False)
    assert main(["certify", "--all"]) == 1
    assert "NOT: rk4 symplectic" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["certify"], ["certify", "rk4", "--all"], ["certify", "--all", "--system", "pendulum"],
                                  ["certify", "rk4", "--workers", "2"], ["certify", "--all", "--workers", "0"],
                                  ["certify", "--all", "--workers", "2", "--scheduler", "tcp://a:1"]])
def test_certify_arguments_that_do_not_go_together_are_refused(argv, capsys):
    try:
        status = main(argv)
    except SystemExit as exc:   # argparse's own refusals
        status = exc.code
    assert status == 2 and "geomcheck:" in capsys.readouterr().err
