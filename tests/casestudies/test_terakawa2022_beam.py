"""Terakawa & Yaguchi 2022, Section 6 (beam + two-mass spring): the quick profile and its controls."""

import dataclasses
import json
import pathlib
import re

import numpy as np
import pytest
import sympy

import casestudies
from casestudies import terakawa2022_beam as case
from geomcheck.latex import compile_pdf, document
from integrators.errors import StabilityWarning
from integrators.stability import StepSizeError

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def result(case_study_run):
    return case_study_run(case.NAME)


@pytest.fixture(scope="module")
def built():
    params = case.Parameters.quick()
    model, system = case.build(params)
    return params, model.model, system


def test_registered_and_described():
    assert case.NAME in casestudies.names()
    assert "Terakawa" in casestudies.describe(case.NAME)


def test_quick_profile_passes_every_check_and_certificate(result):
    failed = [c for c in result.checks if not c.passed]
    assert not failed, failed
    assert all(c.holds is True for _, c in result.certificates)
    assert result.passed and result.seconds > 0


def test_every_claim_of_the_paper_is_a_check(result):
    text = " ".join(c.description for c in result.checks)
    for claim in ("exchange energy", "complementary", "no drift", "quarters", "stay on S", "starts on S",
                  "stability limit", "refused", "NOT symplectic on the whole phase space", "50 digits"):
        assert claim in text, claim
    assert all(c.source for c in result.checks)
    sources = {c.source for c in result.checks}
    assert any("Fig. 3" in s for s in sources) and any("Fig. 4" in s for s in sources)


def test_the_measured_values_are_those_of_the_paper(result):
    by = {c.description.split(":")[0]: c for c in result.checks}
    ratio = next(c for c in result.checks if "quarters" in c.description).measured
    assert 3.6 <= ratio <= 4.4
    drift = next(c for c in result.checks if "stay on S" in c.description).measured
    assert drift < 1e-10
    assert by["the paper's dt is inside Stormer-Verlet's stability limit"].measured == pytest.approx(1.5789, rel=1e-3)


def test_figures_exist(result):
    assert len(result.figures) == 6
    for path in result.figures:
        p = pathlib.Path(path)
        assert p.exists() and p.stat().st_size > 1000 and p.name.startswith(case.NAME)
    assert {pathlib.Path(f).suffix for f in result.figures} == {".png", ".pdf"}


def test_findings_are_the_module_findings(result):
    assert tuple(result.findings) == case.FINDINGS
    assert [(f.kind, f.where) for f in case.FINDINGS] == [
        ("error", "Lemma 6"), ("convention", "Sec. 6, the condition of Theorem 7"), ("error", "eq. (6)"),
        ("convention", "Sec. 6 (L = 1, N_x = 51, Delta x = 0.02)")]
    assert len(result.misprints) == 2                 # the two errors of the paper: Lemma 6's sign, eq. (6)
    for what, test in result.misprints:
        path, name = test.split("::")
        assert re.search(rf"^def {name}\(", (ROOT / path).read_text(), flags=re.M), test
    assert "S. Terakawa" in case.SOURCE


def test_the_grid_we_run_and_the_printed_numbers(built):
    """Finding [convention] Sec. 6: N_x = 51 and dx = 0.02 as printed make a beam of length 1.02, not L = 1."""
    from fractions import Fraction

    params, B, system = built
    dx = Fraction(str(B.values["dx"]))
    assert (B.n_x, dx) == (51, Fraction(2, 100))                  # the printed N_x and Delta x
    assert len(B.u) == 50 and system.dim == 104                    # unknowns u_1 .. u_50 (eq. (4))
    # the right boundary is node N_x = 51 (eq. (5): u_51 = 0, ghost u_52 = -u_50): delta_4 at the last node
    u = B.u
    assert sympy.expand(B.delta4(50) - (5 * u[49] - 4 * u[48] + u[47]) / B.values["dx"]**4) == 0
    length = B.n_x * dx                                            # N_x intervals between x_0 and x_51
    assert length == Fraction(102, 100) != 1
    assert B.n_b * dx == Fraction(1, 5)                            # b = 0.2 as printed
    # the other readings: L = 1 with N_x = 51 changes dx and b; L = 1 with dx = 0.02 changes N_x
    assert Fraction(1, 51) != dx and B.n_b * Fraction(1, 51) != Fraction(1, 5)
    assert 1 / dx == 50 != B.n_x
    assert "length 1.02" in case.__doc__ and "51 intervals" in case.__doc__


def test_summary_is_json(result):
    d = result.to_dict()
    json.dumps(d)
    assert d["passed"] is True and d["name"] == case.NAME


@pytest.mark.needs_pdflatex
def test_derivations_compile(result, tmp_path):
    body = "\n".join(D.latex() for D in result.derivations)
    body += "\n".join(c.derivation.latex() for _, c in result.certificates[:8])
    compile_pdf(document(body), str(tmp_path / "terakawa.pdf"))


# ------------------------------------------------------------------ negative controls


def test_a_step_beyond_the_stability_limit_is_refused(tmp_path):
    params = dataclasses.replace(case.Parameters.quick(), dt=6.4e-4)     # dt_max = 6.333e-4
    with pytest.raises(StepSizeError, match="dt_max = 2/omega_max = 0.000633"):
        case.run("quick", out=str(tmp_path), params=params)


@pytest.mark.parametrize("scheme, ratio", [("symplectic-euler-a", 2.0), ("rk4", 2.5)])
def test_the_dt2_law_check_fails_for_schemes_of_other_orders(built, scheme, ratio):
    params, B, system = built
    errs = []
    for dt in (5e-4, 2.5e-4):
        _, _, ob = case.simulate(system, B, params, dt, 2.0, 10**9, scheme=scheme)
        errs.append((ob[:, 0] + ob[:, 1]) - (ob[0, 0] + ob[0, 1]))
    check = case.dt_law_check(errs[0], errs[1], 2.0)
    assert not check.passed and check.measured == pytest.approx(ratio, abs=0.3)


def test_the_energy_checks_fail_for_a_growing_scheme(built):
    params, B, system = built
    with pytest.warns(StabilityWarning, match="no stability interval on the imaginary axis"):
        steps, states, ob = case.simulate(system, B, params, 5e-4, 0.05, 10, scheme="explicit-euler")
    checks = {c.description.split(":")[0]: c.passed for c in case.energy_checks(ob, states, steps)}
    assert not checks["the total energy error is bounded, no drift"]
    assert not checks["Delta H_el and Delta H_sp are complementary"]


def test_a_run_started_off_the_submanifold_is_caught(built):
    params, B, system = built
    y0 = case.initial_state(B, system, params)
    y0[system.chart.index(B.v[B.n_b - 1])] = 1e-3           # v_nb/(rho A) != p1/m1
    steps, states, ob = case.simulate(system, B, params, 5e-4, 0.5, 100, y0=y0)
    checks = {c.description.split(" (")[0].split(":")[0]: c for c in case.energy_checks(ob, states, steps)}
    assert not checks["the run starts on S"].passed
    stay = next(c for c in case.energy_checks(ob, states, steps) if "stay on S" in c.description)
    assert not stay.passed and stay.measured > 1e-6
    assert np.isfinite(ob).all()
