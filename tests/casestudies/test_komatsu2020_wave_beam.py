"""Komatsu, Terakawa & Yaguchi 2020, wave + beam: quick profile, the lowered step, negative controls."""

import dataclasses
import os
import random

import mpmath
import numpy as np
import pytest
import sympy

import casestudies
from casestudies import komatsu2020_wave_beam as wb
from geomcheck.errors import ExpressionError, InvalidArgumentError
from geomcheck.latex import compile_pdf, document, pdflatex_available
from geomcheck.structures import printed_scheme_force, printed_wave_potential

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return casestudies.run(wb.NAME, "quick", out=str(tmp_path_factory.mktemp("figs")))


def _small(**kw):
    return dataclasses.replace(wb.Parameters.quick(), **{"intervals": 16, "dt": 4e-3, "t_end": 0.4, **kw})


def test_quick_profile_passes_every_check(result):
    failed = [(c.description, c.measured, c.expected) for c in result.checks if not c.passed]
    assert not failed
    assert result.passed and all(c.holds is True for _, c in result.certificates)
    labels = " | ".join(label for label, _ in result.certificates)
    for what in ("Theorem 5", "Theorem 6", "undamped", "damped", "D2", "D4"):
        assert what in labels
    # every claim of CASESTUDIES.md section 2 (wave + beam) is a check
    text = " | ".join(c.description for c in result.checks)
    for what in ("energy conserved to rounding", "decreases at every step", "dissipation identity",
                 "contact-point velocities stay equal", "50 digits"):
        assert what in text


def test_figures_and_misprints(result):
    assert len(result.figures) == 4 and all(os.path.getsize(p) > 1000 for p in result.figures)
    assert all(os.path.basename(p).startswith(wb.NAME) for p in result.figures)
    assert len(result.misprints) == len(wb.MISPRINTS) >= 7
    for _, where in result.misprints:
        path, name = where.split("::")
        assert f"def {name}(" in open(os.path.join(ROOT, path)).read()


def test_lowered_step_solves_the_symbolic_equations():
    # the numeric step against the scheme's own symbolic equations, at random points, damped
    p = _small(intervals=8)
    sch = wb.wave_beam_scheme(p, 10)
    h = wb._q(p.dt)
    eqs = [e.xreplace({sch.step: h}) for e in sch.equations]
    L = wb.lower_linear_scheme(sch.equations, sch.current, sch.new, {sch.step: h})
    rng = random.Random(7)
    # exact: A z+ + B z is the equations at exact rational points
    z = [sympy.Rational(rng.randint(-99, 99), 37) for _ in sch.current]
    Z = [sympy.Rational(rng.randint(-99, 99), 41) for _ in sch.new]
    vals = dict(zip(sch.current, z)) | dict(zip(sch.new, Z))
    for i, e in enumerate(eqs):
        lhs = sum(a * Z[j] for (r, j), a in L.A.items() if r == i) + sum(b * z[j] for (r, j), b in L.B.items() if r == i)
        assert e.xreplace(vals) == lhs
    # double precision: the step's residual in the symbolic equations is at rounding level
    step = L.float_stepper()
    for _ in range(3):
        z = np.array([rng.uniform(-1, 1) for _ in sch.current])
        Zn = step(z)
        vals = dict(zip(sch.current, z)) | dict(zip(sch.new, Zn))
        scale = max(float(wb.rounding_scale(e).xreplace(vals)) for e in eqs)
        res = max(abs(float(e.xreplace(vals))) for e in eqs)
        assert res <= 100 * wb.EPS * scale and scale > 0
    # 50 digits: the same equations hold to ~1e-48
    mstep = L.mp_stepper(50)
    with mpmath.workdps(50):
        z = mpmath.matrix([mpmath.mpf(rng.uniform(-1, 1)) for _ in sch.current])
        Zn = mstep(z)
        f = wb._vectorized(sympy.Matrix(eqs), tuple(sch.current) + tuple(sch.new), "mpmath")
        r = f(*(list(z) + list(Zn)))
        assert max(abs(x) for x in r) < mpmath.mpf(10) ** -40


def test_printed_eq91_energy_is_not_conserved():
    # the energy as eq. (91) prints it drifts far above rounding once the wave reaches the walls
    p = _small(t_end=0.8)
    sch = wb.wave_beam_scheme(p, 0)
    tr = wb.simulate(sch, wb.initial_state(sch, p), p.dt, p.steps)
    W = sch.system.first
    printed = W.weight * (W.kinetic(W.v) + printed_wave_potential(W)) + sch.system.second.energy()
    E91 = wb._columns(wb._vectorized(printed, sch.system.chart.coords), tr.states)
    budget = np.cumsum(wb.ROUNDINGS * wb.EPS * (tr.scale[:-1] + tr.scale[1:]))
    identity, drift, _ = wb.rounding_ratios(tr)
    assert drift <= 1                                              # the scheme's energy: conserved
    assert np.max(np.abs(E91[1:] - E91[0]) / budget) > 1e3          # eq. (91): not
    assert np.max(np.abs(E91 - E91[0])) / E91[0] > 1e-6


def test_printed_theorem6_force_breaks_the_damped_run():
    # at the paper's x1 = x2 the slip G1 A v2 for G1 A v1 is harmless: the contact nodes have the same
    # index, and on c = 0 (v1 = v2 there) the two agree, so the run is unchanged
    p = _small()
    same = wb.wave_beam_scheme(p, 10, force=printed_scheme_force("82"))
    assert all(r <= 1 for r in wb.rounding_ratios(wb.simulate(same, wb.initial_state(same, p), p.dt, p.steps)))
    # with x1 != x2 the printed force lets the contact velocities part and breaks the energy identity
    p = _small(contact=(0.2, 0.3))
    sch = wb.wave_beam_scheme(p, 10, force=printed_scheme_force("82"))
    tr = wb.simulate(sch, wb.initial_state(sch, p), p.dt, p.steps)
    identity, drift, mismatch = wb.rounding_ratios(tr)
    assert mismatch > 1e3 and identity > 1e3                      # both checks would fail
    ok = wb.wave_beam_scheme(p, 10)
    assert all(r <= 1 for r in wb.rounding_ratios(wb.simulate(ok, wb.initial_state(ok, p), p.dt, p.steps)))


def test_nodal_force_as_delta_coefficient_breaks_conservation():
    # Theorem 2 prints the nodal force f/dx; used as the coefficient of the delta vector, the
    # undamped energy is not conserved and the contact velocities part
    p = _small()
    sch = wb.wave_beam_scheme(p, 0, force=lambda s: s.force / s.system.first.spacing)
    tr = wb.simulate(sch, wb.initial_state(sch, p), p.dt, p.steps)
    identity, drift, mismatch = wb.rounding_ratios(tr)
    assert drift > 1e3 and mismatch > 1e3


def test_energy_decrease_check_detects_an_increase():
    # the monotonicity check is not vacuous: the damped energy differences are all negative, the
    # undamped ones are rounding noise of both signs
    p = _small()
    sch = wb.wave_beam_scheme(p, 0)
    tr = wb.simulate(sch, wb.initial_state(sch, p), p.dt, p.steps)
    assert np.any(np.diff(tr.energy) >= 0)


def test_high_precision_identity_is_not_vacuous():
    # with the printed force (82) and x1 != x2 the 50-digit identity fails far above 1e-50
    p = _small(intervals=6, contact=(0.2, 0.3))
    bad = wb.wave_beam_scheme(p, 10, force=printed_scheme_force("82"))
    good = wb.wave_beam_scheme(p, 10)
    r_bad = wb.high_precision_identity(bad, lambda d: wb.initial_state(bad, p, d), p.dt, 3)
    r_good = wb.high_precision_identity(good, lambda d: wb.initial_state(good, p, d), p.dt, 3)
    assert r_good < 1e-45 and r_bad > 1e-12


def test_bad_input():
    with pytest.raises(InvalidArgumentError):
        wb.run(parameters=dataclasses.replace(wb.Parameters.quick(), intervals=2))
    with pytest.raises(InvalidArgumentError):
        wb.run(parameters=dataclasses.replace(wb.Parameters.quick(), dt=-1.0))
    x, X = sympy.symbols("x X")
    with pytest.raises(ExpressionError, match="not linear"):
        wb.lower_linear_scheme([X - x**2], [x], [X])
    with pytest.raises(ExpressionError, match="not linear"):
        wb.lower_linear_scheme([X - x + 1], [x], [X])
    with pytest.raises(ExpressionError, match="as many equations"):
        wb.lower_linear_scheme([X - x, X], [x], [X])


@pytest.mark.skipif(not pdflatex_available(), reason="pdflatex is not installed")
def test_derivations_compile(result, tmp_path):
    body = "\n".join([d.latex() for d in result.derivations]
                     + [c.derivation.latex() for _, c in result.certificates])
    compile_pdf(document(body), tmp_path / "komatsu-wave-beam.pdf")
    assert (tmp_path / "komatsu-wave-beam.pdf").stat().st_size > 1000
