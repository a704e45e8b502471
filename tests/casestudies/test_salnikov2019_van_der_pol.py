"""The Salnikov & Hamdouni 2019 Section 4 case study (oscillator + Van der Pol): quick profile and controls."""

import os

import numpy as np
import pytest
import sympy

import geomcheck as gc
from casestudies import salnikov2019_van_der_pol as cs
from geomcheck.latex import compile_pdf, document
from casestudies.salnikov2019_van_der_pol import oscillator_van_der_pol


@pytest.fixture(scope="module")
def result(case_study_run):
    """The session's one quick run of the case study (shared with the doc pages)."""
    return case_study_run(cs.NAME)


@pytest.fixture(scope="module")
def example():
    return oscillator_van_der_pol(quick=True)


def test_quick_profile_passes_every_check(result):
    failed = [(c.description, c.measured, c.expected) for c in result.checks if not c.passed]
    assert not failed
    assert result.passed
    labels = [label for label, _ in result.certificates]
    assert any("power balance" in s for s in labels) and any("isotropic" in s for s in labels)
    assert any("maximal rank" in s for s in labels) and any("discrete power balance" in s for s in labels)


def test_checks_cover_the_claims(result):
    text = " ".join(c.description for c in result.checks)
    for phrase in ("NOT integrable", "not homological", "Schouten bracket", "Q o Q", "non-uniqueness",
                   "read with the brackets", "read literally", "limit cycle", "to the scheme's order 2", "mpmath 50 digits"):
        assert phrase in text, phrase
    assert all(c.source.startswith("Sec. 4") for c in result.checks)


def test_figures_and_findings(result):
    assert len(result.figures) == 4 and all(os.path.getsize(p) > 1000 for p in result.figures)
    assert tuple(result.findings) == cs.FINDINGS
    assert [f.kind for f in cs.FINDINGS] == ["damage", "convention", "damage"]
    assert result.misprints == []           # nothing in Section 4 is counted as an error of the authors
    assert sorted(cs.EQUATIONS) == [1, 2]   # the only numbered displays of the paper


def test_printed_q_read_with_brackets_is_the_q_of_d(result, example):
    by = {c.description.split(",")[0]: c for c in result.checks}
    assert by["the printed Q"].passed and by["the printed Q"].measured == "True"
    # negative control: the literal reading is not the Q of D
    from casestudies.salnikov2019_van_der_pol import printed_q_structure

    assert not (example.q_structure.field - printed_q_structure(example)).is_zero()
    assert (example.q_structure.field - cs.q_as_printed_with_brackets(example)).is_zero()


def test_run_step_is_the_symbolic_midpoint_rule(example):
    """One step of the run solves the symbolic mid-point equations (the map that runs is the certified one)."""
    from integrators.run_map import run_map

    p = cs.Parameters.quick()
    phi = cs.midpoint_map(example)
    values = p.values(example)
    num = {k: float(sympy.N(v)) for k, v in values.items()}
    rng = np.random.default_rng(1)
    Y = rng.uniform(-1, 1, size=(5, 4))
    constants = set().union(*(e.free_symbols for e in phi.equations))
    Yn = run_map(phi, Y, dt=0.05, steps=1, save_every=1, params={k: v for k, v in num.items() if k in constants}).y[-1]
    res = sympy.lambdify(list(phi.source.coords) + list(phi.new) + [phi.step] + list(num),
                         list(phi.equations))
    r = np.array(res(*Y.T, *Yn.T, 0.05, *num.values()))
    assert np.abs(r).max() < 1e-12


def test_negative_control_trapezoidal_has_no_exact_discrete_power_balance(example):
    """The function-space identity is the mid-point rule's: the trapezoidal rule's residual is not zero."""
    S = example.system
    phi = cs.midpoint_map(example)
    assert cs.discrete_power_balance(example, phi).holds is True
    x, X, h = S.x, phi.new, phi.step
    F = cs.first_order_rhs(example)
    trap = [Xi - xi - h / 2 * (f + gc.substitute(f, dict(zip(x, X)))) for xi, Xi, f in zip(x, X, F)]
    psi = gc.ImplicitMap(phi.source, phi.target, trap, new=X, step=h)
    assert cs.discrete_power_balance(example, psi).holds is False


def test_negative_control_first_order_line_as_read_breaks_eq2(example):
    """With x2' = -x1 + m Omega q, as read in our copy, the pH form does not reproduce eq. (2)."""
    from geomcheck.zero import decide_zero

    P = example.parameters
    x1, x2, q1, q2 = example.system.x
    printed = -x1 + P["m"] * P["Omega"] * q1
    assert decide_zero(cs.first_order_rhs(example)[1] - printed).is_zero is False


@pytest.mark.needs_pdflatex
def test_derivations_compile(result, example, tmp_path):
    cert = dict(result.certificates)[next(k for k, _ in result.certificates if "discrete power balance" in k)]
    compile_pdf(document(cert.derivation.latex()), str(tmp_path / "vdp.pdf"))
    assert (tmp_path / "vdp.pdf").stat().st_size > 1000
