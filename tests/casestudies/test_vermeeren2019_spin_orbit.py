"""The spin-orbit case study: capture into the 1:1 resonance, certificates, controls, figures."""

import math
import os
from dataclasses import replace

import numpy as np
import pytest

import casestudies
from geomcheck.latex import compile_pdf, document, pdflatex_available
from casestudies import vermeeren2019_spin_orbit as m


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return casestudies.run(m.NAME, "quick", out=str(tmp_path_factory.mktemp("figs")))


def test_quick_profile_passes(result):
    assert [c.description for c in result.checks if not c.passed] == []
    assert result.passed
    assert len(result.certificates) >= 4 and len(result.checks) >= 6


def test_figures_exist(result):
    assert len(result.figures) == 2
    assert all(os.path.getsize(f) > 1000 for f in result.figures)


def test_without_tidal_torque_nothing_is_captured():
    """Negative control: C'/C alone has zero mean (Hamiltonian in s = int dt/C): no capture."""
    P = replace(m.Parameters.quick(), eta=0.0, orbits=60, q0=(0.0, 1.0))
    Q, W, T = m.stroboscopic_section(P)
    assert np.abs(W[-10:] - 1).min() > math.sqrt(2 * P.eps)


def test_with_tidal_torque_the_same_short_run_is_captured():
    P = replace(m.Parameters.quick(), orbits=60, q0=(0.0, 1.0))
    Q, W, T = m.stroboscopic_section(P)
    assert np.abs(W[-10:] - 1).max() < math.sqrt(2 * P.eps)


def test_equation_of_motion_is_the_damped_newton_equation():
    import sympy as sp
    from geomcheck.zero import decide_all_zero

    S = m.spin_orbit_system()
    X = S.vector_field
    c, W = m._potential(m.t)
    f = (sp.diff(c, m.t) + m.eta_) / c
    # q'' = p' = -f q' - V_q with V = (W - eta q)/c
    expected = -f * m.p - sp.diff((W - m.eta_ * m.q) / c, m.q)
    assert decide_all_zero([X.component(m.p) - expected, X.component(m.q) - m.p]).is_zero is True


@pytest.mark.skipif(not pdflatex_available(), reason="pdflatex not installed")
def test_certificates_compile(result, tmp_path):
    parts = [c.latex() for _, c in result.certificates] + [d.latex() for d in result.derivations]
    pdf = compile_pdf(document("\n".join(parts)), str(tmp_path / "so.pdf"))
    assert open(pdf, "rb").read(4) == b"%PDF"
