"""The Salnikov & Hamdouni 2019 Section 3 case study (discrete Dirac scheme): quick profile and controls."""

import os

import pytest

import casestudies
import geomcheck as gc
from casestudies import salnikov2019_constrained as cs
from geomcheck.latex import compile_pdf, document, pdflatex_available


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return casestudies.run(cs.NAME, "quick", out=str(tmp_path_factory.mktemp("figs")))


def test_registered_and_parameters():
    assert cs.NAME in casestudies.names()
    quick, paper = cs.Parameters.quick(), cs.Parameters.paper()
    assert paper.pendulum_steps * paper.h_pendulum >= 400 > quick.pendulum_steps * quick.h_pendulum


def test_quick_profile_passes_every_check(result):
    failed = [(c.description, c.measured, c.expected) for c in result.checks if not c.passed]
    assert not failed
    assert all(c.holds is True for _, c in result.certificates)
    assert result.passed and result.profile == "quick"
    assert all(c.source.startswith("Sec. 3") for c in result.checks)


def test_claims_are_all_there(result):
    text = " ".join(c.description for c in result.checks)
    for system in ("pendulum", "knife"):
        for variant in ("printed", "bounded"):
            assert f"{system}, {variant} scheme: discrete constraints" in text
    assert "energy error bounded over long times" in text
    assert "mpmath 50 digits" in text
    # the printed scheme's drift is reported as a finding, not as a passed claim of the paper
    findings = [c for c in result.checks if c.description.startswith("finding")]
    assert len(findings) == 3 and all("printed" in c.description for c in findings)


def test_figures_exist(result):
    assert len(result.figures) == 4
    for path in result.figures:
        assert os.path.getsize(path) > 1000
    assert {os.path.basename(p).split(".")[0] for p in result.figures} == {
        f"{cs.NAME}-energy-constraint", f"{cs.NAME}-knife-trajectory"}


def test_misprints_point_to_existing_tests(result):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert len(result.misprints) == 3
    for _, where in result.misprints:
        path, name = where.split("::")
        assert f"def {name}(" in open(os.path.join(root, path)).read()


def test_negative_control_printed_scheme_fails_the_bounded_energy_claim():
    """The claim 'energy error of size h' that the bounded scheme passes, the printed scheme fails."""
    p = cs.Parameters.quick()
    errors = {}
    for variant, sch in cs.schemes(cs.pendulum()).items():
        r = cs.simulate(sch, cs._pendulum_start(sch, p.h_pendulum, p.angles), p.h_pendulum, 600, 20)
        assert r["constraint"].max() < 1e-12            # both hold their constraints
        errors[variant] = r["energy_error"].max()
    assert errors["bounded"] < p.h_pendulum < errors["printed"]


def test_negative_control_energy_off_the_discrete_constraint_manifold():
    """Energy conservation of the knife edge needs the manifold: on all of T*Q it is refuted."""
    sch = cs.schemes(cs.knife_edge())["bounded"]
    assert cs.knife_energy_on_constraint_manifold(sch).holds is True
    assert gc.certify_conserves(sch.map, sch.energy_on_state()).holds is False
    with pytest.raises(gc.errors.InvalidArgumentError):
        cs.knife_energy_on_constraint_manifold(cs.schemes(cs.knife_edge())["printed"])


def test_high_precision_run_of_the_printed_scheme_does_not_keep_the_radius():
    """The 1e-45 level of x^2 + y^2 is the bounded scheme's property, not an artefact of mpmath."""
    p = cs.Parameters.quick()
    sch = cs.schemes(cs.pendulum())["printed"]
    hp = cs.high_precision(sch, cs._pendulum_start(sch, p.h_pendulum, p.angles), p.h_pendulum, 3, 30)
    assert hp["discrete constraint"] < 1e-25                  # its constraint line holds
    assert hp["x^2 + y^2"] > 1e-8                              # but only to O(h^2) for the radius


@pytest.mark.skipif(not pdflatex_available(), reason="pdflatex is not installed")
def test_derivations_compile(result, tmp_path):
    cert = dict(result.certificates)["knife edge, bounded scheme: energy conserved on the discrete constraint manifold"]
    body = "\n".join([cert.derivation.latex(), result.derivations[-2].latex()])
    compile_pdf(document(body), str(tmp_path / "constrained.pdf"))
    assert (tmp_path / "constrained.pdf").stat().st_size > 1000
