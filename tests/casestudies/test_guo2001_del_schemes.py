"""The Guo, Li & Wu 2001 case study (DEL one-forms of four schemes): quick profile and controls."""

import os
from types import SimpleNamespace

import numpy as np
import pytest

import casestudies
from casestudies import guo2001_del_schemes as cs
from geomcheck.latex import compile_pdf, document, pdflatex_available
from geomcheck.structures import feng_kang_map, runge_kutta_del


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    return casestudies.run(cs.NAME, "quick", out=str(tmp_path_factory.mktemp("figs")))


def test_quick_profile_passes_every_check(result):
    failed = [(c.description, c.measured, c.expected) for c in result.checks if not c.passed]
    assert not failed
    assert result.passed
    # a DEL certificate (generic H and pendulum), a preserved-form certificate and an order per scheme
    labels = [label for label, _ in result.certificates]
    for name in cs.SCHEMES:
        assert sum(label.startswith((f"{name} (", f"{name}, ")) for label in labels) == 4
    assert len(result.derivations) >= 5


def test_trapezoidal_not_preserving_dq_dp_is_an_expected_failure(result):
    (c,) = [c for c in result.checks if c.description.startswith("trapezoidal rule does NOT preserve")]
    assert c.passed and c.expected == "holds False"
    # and it is not among the certificates (which must all hold)
    assert all(c.holds is True for _, c in result.certificates)


def test_orders_measured(result):
    orders = {c.description.split(":")[0]: c.measured for c in result.checks if "observed order" in c.description}
    assert orders.keys() == set(cs.SCHEMES)
    for name, k in zip(cs.SCHEMES, cs.Parameters.quick().orders):
        assert abs(orders[name] - k) < 0.1


def test_figures_and_misprints(result):
    assert len(result.figures) == 4 and all(os.path.getsize(p) > 1000 for p in result.figures)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert len(result.misprints) == 4
    for _, where in result.misprints:
        path, name = where.split("::")
        assert f"def {name}(" in open(os.path.join(root, path)).read()


def test_negative_control_different_maps_are_told_apart():
    H, q, p, h = cs.pendulum_hamiltonian()
    dels = cs.scheme_dels(H)
    assert cs.same_map(dels["mid-point"].step_map, dels["Feng Kang"].step_map, 0.1, 2, 30) > 1e-6


def test_negative_control_explicit_euler_jacobian_defect():
    """A non-symplectic scheme shows a defect of size h at the same precision."""
    H, q, p, h = cs.pendulum_hamiltonian()
    euler = runge_kutta_del(([[0]], [1]), H, q, p, h, name="explicit Euler")
    chart = euler.step_map.source
    d = cs.step_jacobian_defects(euler, 0.1, [[1.0, 0.3]], 2, {"dq^dp": chart.d(q) ^ chart.d(p)}, dps=30)
    assert d["dq^dp"] > 1e-3


def test_negative_control_misprinted_feng_kang_sign_is_order_two():
    """eq. 48 with the other sign: the observed order drops to 2 (the order check would fail)."""
    H, q, p, h = cs.pendulum_hamiltonian()
    prm = cs.Parameters.quick()
    y0 = np.array([[prm.q0, prm.p0]])
    hs = prm.order_steps[:3]
    ref = cs._reference(H, q, p, y0, 2.0, hs[-1])
    wrong = SimpleNamespace(step_map=feng_kang_map(H, q, p, h, sign=1))
    _, orders = cs.observed_orders(wrong, y0, 2.0, hs, ref)
    assert abs(orders[-1] - 2) < 0.2


@pytest.mark.skipif(not pdflatex_available(), reason="pdflatex is not installed")
def test_derivations_compile(result, tmp_path):
    trap = [c for label, c in result.certificates if label.startswith("trapezoidal, pendulum: the step map")][0]
    body = "\n".join([result.derivations[0].latex(), trap.derivation.latex()])
    compile_pdf(document(body), str(tmp_path / "guo.pdf"))
    assert (tmp_path / "guo.pdf").stat().st_size > 1000
