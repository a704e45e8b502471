"""Compositions run stage by stage (integrators.staged) are their composite step map.

The composite is built as one map where it is small (three stages); the staged run must give
the same numbers (numpy 1e-13, mpmath 60 digits to 1e-50), on autonomous and time-dependent
systems (where each stage starts at its own time), for non-palindromic compositions (the
order of the stages matters), on the compiled path, with compensated summation, and for the
stability intervals and step matrices read off the stages.
"""

import warnings

import mpmath
import numpy as np
import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from geomcheck.certify import compositions
from integrators.compiled import find_compiler
from integrators.integrate import integrate_compiled
from integrators.linear import step_matrix
from integrators.lower import lower
from integrators.schemes.contact_time_splitting import TimeDependentContactSplitting
from integrators.schemes.contact_variational import ContactComposition
from integrators.stability import stability_interval
from integrators.staged import StagedStep, lower_scheme
from ig_cases import DAMPED_PENDULUM, FORCED_DAMPED_PENDULUM, PENDULUM

h, t = sp.Symbol("h"), sp.Symbol("t")
third = sp.Rational(1, 3)

#: a non-palindromic composition: which stage acts first matters
LOPSIDED = ig.Composition(ig.scheme("symplectic-euler-a"), [third, 2 * third], name="lopsided")
#: the triple jump of the time-dependent contact splitting: each stage must start at its own time
TIME_JUMP = ContactComposition(TimeDependentContactSplitting(), compositions.yoshida_composition(4),
                               name="time-triple-jump")

CASES = [("yoshida-4", PENDULUM), ("contact-yoshida-4", DAMPED_PENDULUM), (LOPSIDED, PENDULUM),
         (TIME_JUMP, FORCED_DAMPED_PENDULUM)]
IDS = ["yoshida-4", "contact-yoshida-4", "lopsided", "time-triple-jump"]


def _values(system, h0, t0):
    vals = {h: h0}
    if system.time is not None:
        vals[system.time] = t0
    return vals


@pytest.mark.parametrize("scheme, system", CASES, ids=IDS)
def test_staged_numpy_step_equals_the_composite_map(scheme, system):
    s = ig.scheme(scheme)
    staged = lower_scheme(s, system)
    assert isinstance(staged, StagedStep) and len(staged.stages) == len(s.gammas)
    composite = lower(s.step_map(system), parameters=staged.parameters)
    Y = np.random.default_rng(3).uniform(-1, 1, size=(5, system.dim))
    vals = _values(system, 0.125, 0.375)
    a = staged.bind(vals).step_array(Y)
    b = composite.bind(vals).step_array(Y)
    assert np.abs(a - b).max() <= 1e-13


@pytest.mark.parametrize("scheme, system", CASES, ids=IDS)
def test_staged_mpmath_step_equals_the_composite_map_to_50_digits(scheme, system):
    s = ig.scheme(scheme)
    staged = lower_scheme(s, system, backend="mpmath")
    composite = lower(s.step_map(system), backend="mpmath", parameters=staged.parameters)
    Y = [[sp.Rational(3, 4), sp.Rational(-1, 2), sp.Rational(1, 8)][:system.dim]]
    vals = _values(system, sp.Rational(1, 8), sp.Rational(3, 8))
    a = staged.bind(vals, dps=60).step_array(Y)
    b = composite.bind(vals, dps=60).step_array(Y)
    assert max(abs(x - y) for x, y in zip(a[0], b[0])) <= mpmath.mpf(10) ** -50


def test_stage_order_and_time_offsets_matter():
    """Negative controls: reversing the stages, or starting every stage at t, changes the step."""
    s = LOPSIDED
    stages = s.stages(PENDULUM)
    assert [st.factor for st in stages] == [2 * third, third]        # gamma_m acts first
    reverse = ig.Composition(ig.scheme("symplectic-euler-a"), [2 * third, third])
    Y = np.array([[1.0, 0.5]])
    a = lower_scheme(s, PENDULUM).bind({h: 0.25}).step_array(Y)
    b = lower_scheme(reverse, PENDULUM).bind({h: 0.25}).step_array(Y)
    assert np.abs(a - b).max() > 1e-4
    offsets = [st.offset for st in TIME_JUMP.stages(FORCED_DAMPED_PENDULUM)]
    g = compositions.yoshida_composition(4)
    assert offsets == [0, g[2], g[2] + g[1]]
    # the composite built WITHOUT the offsets (every stage at time t) is a different step
    from integrators.schemes.base import scaled
    naive = None
    for st in TIME_JUMP.stages(FORCED_DAMPED_PENDULUM):
        m = scaled(st.map, st.factor)
        naive = m if naive is None else gc.compose(m, naive)
    staged = lower_scheme(TIME_JUMP, FORCED_DAMPED_PENDULUM)
    vals = {h: 0.5, t: 1 / 3}
    Y = np.array([[0.5, 0.25, 0.0]])
    right = staged.bind(vals).step_array(Y)
    assert np.abs(right - lower(naive, parameters=staged.parameters).bind(vals).step_array(Y)).max() > 1e-6
    assert np.abs(right - lower(TIME_JUMP.step_map(FORCED_DAMPED_PENDULUM),
                                parameters=staged.parameters).bind(vals).step_array(Y)).max() <= 1e-13


@pytest.mark.skipif(find_compiler() is None, reason="no C compiler")
@pytest.mark.parametrize("scheme, system", [("yoshida-8", PENDULUM), ("kahan-li-6", PENDULUM),
                                            (TIME_JUMP, FORCED_DAMPED_PENDULUM)], ids=["yoshida-8", "kahan-li-6",
                                                                                         "time-triple-jump"])
def test_compiled_stages_equal_the_numpy_stages(scheme, system):
    y0 = [[1.0, 0.5, 0.25][:system.dim], [-0.5, 1.0, 0.0][:system.dim]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = integrate_compiled(system, scheme, y0, dt=0.05, steps=300, save_every=100)
    b = ig.integrate(system, scheme, y0, dt=0.05, steps=300, save_every=100)
    assert a.path == "compiled"
    assert np.abs(a.y - b.y).max() <= 1e-12


def test_compensated_staged_run_agrees_and_reduces_rounding():
    osc = ig.HamiltonianSystem((sp.Symbol("p")**2 + sp.Symbol("q")**2) / 2, sp.Symbol("q"), sp.Symbol("p"))
    y0 = [1.0, 0.0]
    plain = ig.integrate(osc, "yoshida-6", y0, dt=1e-3, steps=20000, save_every=20000)
    comp = ig.integrate(osc, "yoshida-6", y0, dt=1e-3, steps=20000, save_every=20000, compensated=True)
    # the method's own error at dt = 1e-3 is ~1e-18 * t: what remains is rounding
    exact = np.array([np.cos(20.0), -np.sin(20.0)])
    err_plain, err_comp = np.abs(plain.y[-1] - exact).max(), np.abs(comp.y[-1] - exact).max()
    assert err_comp < 1e-13 and err_comp < err_plain / 3, (err_plain, err_comp)


def test_stability_intervals_of_compositions():
    """The staged product of the stage matrices: Yoshida's triple jump as before, and the edge is real."""
    assert abs(float(stability_interval("yoshida-4")) - 1.5734019474345) < 1e-9
    osc = ig.HamiltonianSystem((sp.Symbol("p")**2 + sp.Symbol("q")**2) / 2, sp.Symbol("q"), sp.Symbol("p"))
    for name in ("yoshida-8", "kahan-li-8", "suzuki-4"):
        x = float(stability_interval(name))
        inside = np.abs(np.linalg.eigvals(step_matrix(name, osc, x * (1 - 1e-6)))).max()
        outside = np.abs(np.linalg.eigvals(step_matrix(name, osc, x * (1 + 1e-3)))).max()
        assert abs(inside - 1) < 1e-6 and outside > 1 + 1e-4, (name, x, inside, outside)


def test_certifying_a_long_composition_never_builds_its_composite():
    s = ig.scheme("yoshida-8")
    from ig_cases import GENERIC

    certs = s.certify(GENERIC)
    assert all(c.holds is True for c in certs.values()) and set(certs) == {"order", "symplectic", "symmetric"}
    assert "_step_maps" not in s.__dict__ or GENERIC not in s.__dict__["_step_maps"]
