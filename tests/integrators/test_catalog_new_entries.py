"""The catalog entries beyond Runge-Kutta: compositions, Feng Kang, the contact variational schemes.

The catalog-wide tests (test_catalog.py) certify every declared property and the order of each
entry on its generic system; here: the map-level order where the composition order conditions
are what the catalog uses, exactness of the orders, the contact factors, what the schemes refuse.
"""

import pytest
import sympy as sp

import geomcheck as gc
import integrators as ig
from geomcheck.certify import compositions
from geomcheck.errors import CompositionCoefficientError
from geomcheck.latex import compile_pdf, document
from integrators.errors import SchemeNotApplicableError
from integrators.schemes.refined_composition import RefinedComposition
from ig_cases import GENERIC, GENERIC_CONTACT, GENERIC_CONTACT_QUADRATIC, GENERIC_CONTACT_TIME

h, gamma = sp.Symbol("h"), sp.Symbol("gamma")


SV = ig.scheme("stormer-verlet")
# the many-stage compositions of the catalog (run stage by stage: integrators.staged)
HIGHER = {
    "yoshida-6": (ig.Composition, compositions.yoshida_composition(6), 6),
    "yoshida-8": (ig.Composition, compositions.yoshida_composition(8), 8),
    "suzuki-4": (ig.Composition, compositions.suzuki_fractal(4), 4),
    "kahan-li-6": (RefinedComposition, compositions.kahan_li(6), 6),
    "kahan-li-8": (RefinedComposition, compositions.kahan_li(8), 8),
}


def test_composition_order_is_certified_by_the_order_conditions():
    for name, order in [("yoshida-4", 4), ("contact-yoshida-4", 4)]:
        s = ig.scheme(name)
        assert s.order_certificate().holds is True and s.order == order
        assert "condition" in s.order_certificate().method
    # ig.Composition rejects floats; Kahan-Li's refined coefficients: up to their 60-digit precision, and said so
    c = RefinedComposition(SV, compositions.kahan_li(6)).order_certificate()
    assert c.holds is True and c.stage == "numeric" and "precision of the coefficients" in c.claim
    assert "60 to 62 significant digits" in c.method


@pytest.mark.parametrize("name", sorted(HIGHER))
def test_higher_compositions_of_verlet_certify_their_order_and_structure(name):
    kind, gammas, order = HIGHER[name]
    s = kind(SV, gammas, name=name)
    registered = ig.scheme(name)
    assert type(registered) is kind and list(registered.gammas) == list(gammas)
    assert s.order == order and s.order_certificate().holds is True
    certs = s.property_certificates()
    assert certs["symplectic"].holds is True and certs["symmetric"].holds is True


def test_map_level_order_of_yoshida_4_on_the_generic_system():
    """The Taylor expansion of the composed step itself (not the order conditions): order 4."""
    s = ig.scheme("yoshida-4")
    assert gc.certify_order(s.step_map(GENERIC), GENERIC.vector_field, h, 4).holds is True
    assert gc.certify_order(s.step_map(GENERIC), GENERIC.vector_field, h, 5).holds is False


@pytest.mark.parametrize("name, system", [("feng-kang-4", GENERIC), ("contact-herglotz-1", GENERIC_CONTACT_QUADRATIC),
                                          ("contact-herglotz-2", GENERIC_CONTACT_QUADRATIC)])
def test_declared_order_is_exact(name, system):
    s = ig.scheme(name)
    assert s.observed_order(system) == s.order


def test_a_non_palindromic_composition_is_not_declared_symmetric():
    g = compositions.triple_jump(2)
    s = ig.Composition(ig.scheme("stormer-verlet"), [g[0], g[1] + g[2] / 2, g[2] / 2])
    assert "symmetric" not in s.properties and "symplectic" in s.properties


def test_contact_factor_of_the_contact_yoshida_composition():
    c = ig.scheme("contact-yoshida-4").certify(GENERIC_CONTACT, properties=["contact"])["contact"]
    assert c.holds is True
    assert gc.zero.decide_zero(c.factor - sp.exp(-gamma * h)).is_zero is True


def test_time_dependent_splitting_is_contact_on_the_extended_space():
    s = ig.scheme("contact-splitting-2-t")
    certs = s.certify(GENERIC_CONTACT_TIME)
    assert {k: c.holds for k, c in certs.items()} == {"order": True, "contact": True, "symmetric": True}
    with pytest.raises(SchemeNotApplicableError, match="autonomous"):
        s.step_map(GENERIC_CONTACT_QUADRATIC)


def test_herglotz_schemes_need_a_quadratic_kinetic_energy():
    with pytest.raises(SchemeNotApplicableError, match="quadratic form"):
        ig.scheme("contact-herglotz-2").step_map(GENERIC_CONTACT)
    with pytest.raises(SchemeNotApplicableError, match="no coordinate z"):
        ig.scheme("contact-herglotz-1").step_map(GENERIC)


def test_feng_kang_refuses_contact_and_forced_systems():
    with pytest.raises(SchemeNotApplicableError, match="contact system"):
        ig.scheme("feng-kang-4").step_map(GENERIC_CONTACT)
    assert isinstance(ig.scheme("feng-kang-4").step_map(GENERIC), gc.ImplicitMap)


def test_flipped_feng_kang_correction_is_only_second_order():
    """The sign of the h^2/24 correction matters (feng_kang_map(sign=+1) is order 2 only)."""
    from geomcheck.structures import feng_kang_map

    q, p = GENERIC.q[0], GENERIC.p[0]
    wrong = feng_kang_map(GENERIC.H, [q], [p], h, sign=1)
    assert gc.certify_order(wrong, GENERIC.vector_field, h, 4).holds is False


def test_refined_composition_refuses_floats_and_short_floats():
    sv = ig.scheme("stormer-verlet")
    with pytest.raises(CompositionCoefficientError, match="not a sympy Float"):
        RefinedComposition(sv, [0.5, 0.5])
    with pytest.raises(CompositionCoefficientError, match="digits"):
        RefinedComposition(sv, [sp.Float("0.5", 15), sp.Float("0.5", 15)])
    with pytest.raises(CompositionCoefficientError, match="zero"):
        RefinedComposition(sv, [sp.Float(1, 60), sp.Float(0, 60)])


@pytest.mark.needs_pdflatex
def test_certificates_of_the_new_entries_compile(tmp_path):
    parts = []
    for name, system in [("feng-kang-4", GENERIC), ("contact-herglotz-2", GENERIC_CONTACT_QUADRATIC),
                         ("yoshida-4", GENERIC)]:
        for prop, cert in ig.scheme(name).certify(system).items():
            parts.append(r"\section*{" + name + ": " + prop + "}\n" + cert.latex())
    pdf = compile_pdf(document("\n".join(parts)), tmp_path / "new.pdf")
    assert pdf.read_bytes().startswith(b"%PDF")
