"""The catalog: names, declared vs computed order and properties, certificates on generic systems."""

import pytest
import sympy as sp

import integrators as ig
from integrators.catalog import declared

from ig_cases import GENERIC_CONTACT, generic_for
from integrators.errors import SchemeNotApplicableError, UnknownSchemeError

NAMES = ig.list_schemes()


def test_catalog_lists_the_required_schemes():
    required = {"explicit-euler", "rk4", "symplectic-euler-a", "symplectic-euler-b", "stormer-verlet",
                "stormer-verlet-position", "implicit-midpoint", "trapezoidal", "gauss-legendre-2",
                "gauss-legendre-4", "gauss-legendre-6", "gauss-legendre-8", "lobatto-iiia-iiib-2",
                "lobatto-iiia-iiib-3", "contact-splitting-2", "contact-yoshida-4",
                "contact-herglotz-1", "contact-herglotz-2", "contact-splitting-2-t", "yoshida-4", "feng-kang-4",
                "yoshida-6", "yoshida-8", "suzuki-4", "kahan-li-6", "kahan-li-8", "contact-yoshida-6"}
    required |= {"conformal-splitting-2", "conformal-symplectic-euler"}     # linear damping
    required |= {"coupled-avf", "coupled-itoh-abe"}     # Komatsu-Terakawa-Yaguchi 2020 (coupled natural systems)
    required |= {"rattle", "discrete-dirac", "spark-lobatto-3", "spark-lobatto-4"}     # holonomic constraints
    required |= {"average-vector-field", "gonzalez", "itoh-abe", "port-hamiltonian-avf"}     # discrete gradients
    required |= {"variational-midpoint", "variational-trapezoidal", "galerkin-lobatto-3", "galerkin-gauss-2"}
    required |= {"rigid-body-splitting", "lotka-volterra-splitting"}     # Poisson systems
    assert required <= set(NAMES)
    assert len(NAMES) == len(set(NAMES))


def test_unknown_name_lists_the_known_ones():
    with pytest.raises(UnknownSchemeError) as info:
        ig.scheme("stormer-verlett")
    msg = str(info.value)
    assert "stormer-verlett" in msg and "did you mean stormer-verlet" in msg
    assert all(name in msg for name in NAMES)
    with pytest.raises(UnknownSchemeError):
        ig.scheme(42)


def test_scheme_lookup_is_forgiving_about_spelling_and_shared():
    assert ig.scheme("Stormer_Verlet") is ig.scheme("stormer-verlet")
    s = ig.scheme("rk4")
    assert ig.scheme(s) is s


@pytest.mark.parametrize("name", NAMES)
def test_declared_order_and_properties_are_computed(name):
    s = ig.scheme(name)
    order, props = declared(name)
    assert s.name == name
    assert s.order == order
    assert set(s.properties) == set(props)
    assert s.h == sp.Symbol("h")


@pytest.mark.parametrize("name", ["explicit-euler", "rk4"])
def test_baselines_are_not_structure_preserving(name, generic):
    s = ig.scheme(name)
    assert s.properties == frozenset()
    c = s.certify(generic, properties=["symplectic", "symmetric"])
    assert c["symplectic"].holds is False and c["symmetric"].holds is False


CASES = [(name, prop) for name in NAMES for prop in ["order", *sorted(declared(name)[1])]]


#: the certificates of CASES, kept for the typesetting test at the end of this file (certifying
#: the whole catalog takes about 30 s: once is enough)
CERTIFICATES = {}


def certificate(name, prop):
    if (name, prop) not in CERTIFICATES:
        CERTIFICATES[name, prop] = ig.scheme(name).certify(generic_for(name), properties=[prop])[prop]
    return CERTIFICATES[name, prop]


@pytest.mark.parametrize("name, prop", CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_declared_property_is_certified_on_a_generic_system(name, prop):
    cert = certificate(name, prop)
    assert cert.holds is True, (name, prop, cert.method)


@pytest.mark.parametrize("name", ["explicit-euler", "symplectic-euler-a", "stormer-verlet", "implicit-midpoint",
                                  "trapezoidal", "lobatto-iiia-iiib-2", "contact-splitting-2"])
def test_order_is_exact_on_the_generic_system(name):
    """The declared order is the order: the next Taylor coefficient differs from the flow's."""
    s = ig.scheme(name)
    assert s.observed_order(generic_for(name)) == s.order


def test_step_maps_are_explicit_exactly_when_they_can_be(generic):
    import geomcheck as gc

    explicit = {"explicit-euler", "rk4", "symplectic-euler-a", "symplectic-euler-b", "stormer-verlet",
                "stormer-verlet-position", "lobatto-iiia-iiib-2"}
    explicit |= {"contact-splitting-2", "contact-splitting-2-t", "contact-yoshida-4"}
    explicit |= {"yoshida-4", "yoshida-6", "yoshida-8", "suzuki-4", "kahan-li-6", "kahan-li-8"}   # of Verlet
    explicit |= {"contact-yoshida-6"}
    explicit |= {"conformal-splitting-2", "conformal-symplectic-euler"}   # damping flow and Verlet/Euler
    explicit |= {"blanes-moan-s6", "blanes-moan-srkn6b", "blanes-moan-srkn11b", "yoshida-8-15a",
                 "yoshida-8-15d"}   # splittings: exact drifts and kicks
    explicit |= {"rigid-body-splitting", "lotka-volterra-splitting"}   # exact Poisson flows
    for name in NAMES:
        # a composition's stages (its composite is built from them; 27 of them for yoshida-8)
        stages = ig.scheme(name).stages(generic_for(name))
        assert all(isinstance(st.map, gc.Map) for st in stages) == (name in explicit), name
    # the same partitioned schemes on a non-separable H are implicit
    q, p = sp.symbols("q p")
    coupled = ig.HamiltonianSystem(p**2 * (1 + q**2) / 2, q, p)
    assert isinstance(ig.scheme("symplectic-euler-a").step_map(coupled), gc.ImplicitMap)


def test_lobatto_pair_is_stormer_verlet_on_separable_systems(generic):
    a = ig.scheme("lobatto-iiia-iiib-2").step_map(generic)
    b = ig.scheme("stormer-verlet").step_map(generic)
    from geomcheck.zero import decide_all_zero

    assert decide_all_zero([e1 - e2 for e1, e2 in zip(a.exprs, b.exprs)]).is_zero is True


def test_separable_only_scheme_refuses_a_coupled_hamiltonian():
    q, p = sp.symbols("q p")
    coupled = ig.HamiltonianSystem(p**2 * (1 + q**2) / 2, q, p)
    with pytest.raises(SchemeNotApplicableError, match="separable") as info:
        ig.scheme("stormer-verlet").step_map(coupled)
    assert "gauss-legendre-4" in str(info.value)          # says what to use instead
    assert ig.scheme("stormer-verlet").why_not(coupled) is not None


def test_hamiltonian_scheme_refuses_a_contact_system():
    x, p, z = sp.symbols("x p z")
    c = ig.ContactSystem(p**2 / 2 + x**2 / 2 + z, x, p, z)
    for name in ["stormer-verlet", "symplectic-euler-a", "lobatto-iiia-iiib-3"]:
        with pytest.raises(SchemeNotApplicableError, match="contact system"):
            ig.scheme(name).step_map(c)
    # Runge-Kutta methods apply to any vector field
    assert ig.scheme("rk4").certify(c)["order"].holds is True


def test_contact_scheme_refuses_systems_without_z_or_of_the_wrong_form(generic):
    s = ig.scheme("contact-splitting-2")
    with pytest.raises(SchemeNotApplicableError, match="no coordinate z"):
        s.step_map(generic)
    x, p, z, t = sp.symbols("x p z t")
    for H, why in [(p**2 * x + z, "couples positions and momenta"), (p**2 / 2 + z**2, "not linear in z")]:
        with pytest.raises(SchemeNotApplicableError, match=why):
            s.step_map(ig.ContactSystem(H, x, p, z))
    with pytest.raises(SchemeNotApplicableError, match="autonomous"):
        s.step_map(ig.ContactSystem(p**2 / 2 + sp.cos(t) * x + z, x, p, z, t=t))


def test_contact_factor_of_the_splitting_is_the_damping(generic):
    c = ig.scheme("contact-splitting-2").certify(GENERIC_CONTACT, properties=["contact"])["contact"]
    gamma, h = sp.Symbol("gamma"), sp.Symbol("h")
    assert c.holds is True and sp.simplify(c.factor - sp.exp(-gamma * h)) == 0


@pytest.mark.needs_pdflatex
def test_all_catalog_certificates_compile_in_one_document(tmp_path):
    """Every certificate of every catalog scheme typesets to LaTeX that pdflatex compiles, and fits the
    report's page."""
    from geomcheck.latex import compile_pdf, document, fit_to_width
    from geomcheck.report import overfull_widths
    from geomcheck.report_tex import PREAMBLE

    parts = []
    for name, prop in CASES:
        cert = certificate(name, prop)
        assert cert.holds is True, (name, prop, cert)
        parts.append(r"\section*{" + name + ": " + prop + "}\n" + cert.latex())
    assert len(parts) >= 30
    pdf = compile_pdf(document("\n".join(parts)), tmp_path / "catalog.pdf")
    assert pdf.read_bytes().startswith(b"%PDF")
    # the report's page: every derivation fitted to the line, balanced, and within the margins
    log = tmp_path / "fitted.log"
    source = PREAMBLE + "\\begin{document}\n" + "\n".join(fit_to_width(p) for p in parts) + "\n\\end{document}\n"
    compile_pdf(source, tmp_path / "fitted.pdf", log=log)
    widths = overfull_widths(log.read_text(encoding="latin-1"))
    assert max(widths, default=0.0) <= 20, sorted(widths)[-5:]
