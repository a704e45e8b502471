"""Contact geometry of Vermeeren, Bravetti & Seri 2019: forms, fields, energy law, exact flows."""

import pytest
import sympy

import geomcheck as gc
from geomcheck.errors import (
    ExpressionError,
    MixedDegreeError,
    NotContactError,
    ShapeError,
    SubsystemShapeError,
    UnknownCoordinateError,
)
from geomcheck.structures import (
    autonomize,
    certify_contact_energy_law,
    certify_contact_factor,
    certify_contact_form,
    certify_contact_hamiltonian_field,
    certify_exact_flow,
    certify_reeb_field,
    certify_time_dependent_energy_law,
    contact_coordinates,
    contact_hamiltonian_field,
    darboux_coordinates,
    kinetic_flow,
    linear_damping_flow,
    potential_flow,
    require_contact_form,
    separable_contact_flows,
    standard_contact_form,
)
from geomcheck.zero import decide_all_zero, decide_zero

t, C, h, alpha = sympy.symbols("t C h alpha")


def generic(name, args):
    return sympy.Function(name)(*args)


# --------------------------------------------------------------------------- contact forms


@pytest.mark.parametrize("n", [1, 2, 3])
def test_standard_form_any_length(n):
    D = darboux_coordinates(n)
    assert D.chart.dim == 2 * n + 1
    expected = D.chart.d(D.z) - sum((pi * D.chart.d(xi) for xi, pi in zip(D.x, D.p)), gc.Form(D.chart))
    assert D.eta == expected
    c = certify_contact_form(D.eta)
    assert c.holds is True and c.stage == "exact"
    # eta ^ (d eta)^n = +-n! times the volume form
    (coefficient,) = c.witness.terms.values()
    assert abs(coefficient) == sympy.factorial(n)


def test_block_shapes_are_checked():
    M = gc.Chart("x1 x2 p1 z")
    x1, x2, p1, z = M.coords
    with pytest.raises(SubsystemShapeError, match="same positive length"):
        standard_contact_form(M, [x1, x2], [p1], z)
    with pytest.raises(ShapeError, match="twice"):
        # (unusual names: a chart registers its coordinates for the whole session)
        standard_contact_form(gc.Chart("ka kb kc"), "ka", *sympy.symbols("ka kb"))
    with pytest.raises(SubsystemShapeError, match="dimension 5"):
        contact_coordinates(gc.Chart("ka kb kc kd ke"), *sympy.symbols("ka kb kc"))
    with pytest.raises(UnknownCoordinateError):
        standard_contact_form(M, [x1], [sympy.Symbol("not_here")], z)


def test_non_contact_forms_are_refused():
    M = gc.Chart("x p z")
    x, p, z = M.coords
    closed = M.d(z) - x * M.d(x)
    c = certify_contact_form(closed)
    assert c.holds is False and c.counterexample is not None
    with pytest.raises(NotContactError, match=r"not one: eta \^ \(d eta\)\^1 vanishes identically"):
        require_contact_form(closed, "the Reeb field")
    with pytest.raises(NotContactError, match="needs a contact form"):
        contact_hamiltonian_field(p**2 / 2, closed)
    with pytest.raises(NotContactError, match="needs a contact form"):
        certify_contact_factor(gc.Map(M, M, [x, p, z]), closed, 1)
    # even dimension: no contact form can exist
    E = gc.Chart("kq1 kq2 kq3 kq4")
    with pytest.raises(NotContactError, match="odd dimension"):
        certify_contact_form(E.d(E.coords[0]))
    with pytest.raises(MixedDegreeError):
        certify_contact_form(M.d(x) ^ M.d(p))
    with pytest.raises(ExpressionError):
        certify_contact_form(x)


def test_contact_form_that_degenerates_somewhere():
    M = gc.Chart("x p z")
    x, p, z = M.coords
    # d eta = -p^2 dp ^ dx, eta ^ d eta = p^2 dx^dp^dz: zero on p = 0
    eta = M.d(z) - p**3 / 3 * M.d(x)
    c = certify_contact_form(eta)
    assert c.holds is False and c.stage == "counterexample"
    (coefficient,) = c.witness.terms.values()
    assert coefficient.xreplace(c.counterexample) == 0
    # but it is a contact form on p != 0: the contact field exists
    assert contact_hamiltonian_field(p, eta).field is not None


def test_nowhere_zero_non_constant_and_undecided():
    M = gc.Chart("x p z")
    x, p, z = M.coords
    assert certify_contact_form(sympy.exp(x) * (M.d(z) - p * M.d(x))).holds is True
    assert certify_contact_form(M.d(z) - (p + p**3) * M.d(x)).holds is True          # 1 + 3 p^2 > 0
    undecided = certify_contact_form(M.d(z) - sympy.Function("f")(p) * M.d(x))
    assert undecided.holds is None and "not proved" in undecided.method
    # a constant parameter: contact exactly when a != 0, which is not decided for a symbol
    assert certify_contact_form(M.d(z) - sympy.Symbol("a") * p * M.d(x)).holds is None


def test_reeb_field():
    D = darboux_coordinates(2)
    c = certify_reeb_field(D.eta)
    assert c.holds is True and c.witness == gc.VectorField(D.chart, {D.z: 1})
    # a conformally rescaled form has a different Reeb field
    x, p, z = darboux_coordinates(1).chart.coords
    M = darboux_coordinates(1)
    eta = sympy.exp(x) * M.eta
    c = certify_reeb_field(eta)
    assert c.holds is True
    assert decide_zero(c.witness.component(z) - sympy.exp(-x) - p * c.witness.component(x)).is_zero is True
    wrong = certify_reeb_field(eta, gc.VectorField(M.chart, {z: 1}))
    assert wrong.holds is False


# --------------------------------------------------------------------------- contact Hamiltonian fields


@pytest.mark.parametrize("n", [1, 2])
def test_contact_equations_in_darboux_coordinates(n):
    D = darboux_coordinates(n)
    H = generic("H", D.chart.coords)
    X = contact_hamiltonian_field(H, D.eta).field
    Hz = sympy.diff(H, D.z)
    expected = {}
    for xi, pi in zip(D.x, D.p):
        expected[xi] = sympy.diff(H, pi)
        expected[pi] = -sympy.diff(H, xi) - pi * Hz
    expected[D.z] = sum(pi * sympy.diff(H, pi) for pi in D.p) - H
    assert decide_all_zero({c: X.component(c) - e for c, e in expected.items()}).is_zero is True
    c = certify_contact_hamiltonian_field(H, D.eta)
    assert c.holds is True
    assert decide_zero(c.factor + Hz).is_zero is True                 # f_H = -R(H) = -H_z


def test_contact_field_of_a_non_darboux_form():
    M = gc.Chart("x p z")
    x, p, z = M.coords
    eta = M.d(z) + x * M.d(p)          # another contact form (dz - p dx + d(xp))
    H = generic("H", M.coords)
    assert certify_contact_hamiltonian_field(H, eta).holds is True
    assert certify_contact_energy_law(H, eta).holds is True


def test_printed_X_A_is_not_the_contact_field():
    """Slide 27 prints X_A = A'(p) d_x + (p A(p) - A(p)) d_z; the z component is p A'(p) - A(p)."""
    D = darboux_coordinates(1)
    x, p, z = D.chart.coords
    A = generic("A", [p])
    printed = gc.VectorField(D.chart, {x: A.diff(p), z: p * A - A})
    assert certify_contact_hamiltonian_field(A, D.eta, printed).holds is False
    right = gc.VectorField(D.chart, {x: A.diff(p), z: p * A.diff(p) - A})
    assert certify_contact_hamiltonian_field(A, D.eta, right).holds is True
    # X_B and X_Cz as printed are right
    B = generic("B", [x])
    assert certify_contact_hamiltonian_field(B, D.eta, gc.VectorField(D.chart, {p: -B.diff(x), z: -B})).holds is True
    XC = gc.VectorField(D.chart, {p: -p * C, z: -C * z})
    assert certify_contact_hamiltonian_field(C * z, D.eta, XC).holds is True


@pytest.mark.parametrize("n", [1, 2])
def test_energy_law_dH_dt_is_minus_H_Hz(n):
    D = darboux_coordinates(n)
    c = certify_contact_energy_law(generic("H", D.chart.coords), D.eta)
    assert c.holds is True
    # the damped oscillator of slide 14: dH/dt = -alpha H
    x, p, z = darboux_coordinates(1).chart.coords
    U = generic("U", [x])
    H = p**2 / 2 + U + alpha * z
    F = contact_hamiltonian_field(H, darboux_coordinates(1).eta)
    assert decide_zero(F.field(H) + alpha * H).is_zero is True
    assert decide_zero(F.field.component(p) + U.diff(x) + alpha * p).is_zero is True


def test_wrong_energy_law_fails():
    D = darboux_coordinates(1)
    x, p, z = D.chart.coords
    H = generic("H", D.chart.coords)
    X = contact_hamiltonian_field(H, D.eta).field
    assert decide_zero(X(H) - H * H.diff(z)).is_zero is False          # the sign matters


@pytest.mark.parametrize("n", [1, 2])
def test_time_dependent_energy_law(n):
    D = darboux_coordinates(n)
    H = generic("H", D.chart.coords + (t,))
    c = certify_time_dependent_energy_law(H, D, t)
    assert c.holds is True
    S = autonomize(H, D, t)
    assert S.coordinates.chart.dim == 2 * n + 3
    assert S.field().component(S.time) == 1


def test_spin_orbit_style_time_dependent_damping():
    D = darboux_coordinates(1)
    x, p, z = D.chart.coords
    Cf, N = sympy.Function("C")(t), sympy.Function("N")(x, t)
    H = p**2 / 2 - N / Cf + Cf.diff(t) / Cf * z
    assert certify_time_dependent_energy_law(H, D, t).holds is True


def test_autonomize_bad_input():
    D = darboux_coordinates(1)
    x, p, z = D.chart.coords
    with pytest.raises(ExpressionError, match="not a coordinate"):
        autonomize(p**2, D, x)
    with pytest.raises(ExpressionError, match="taken"):
        autonomize(p**2 + sympy.Symbol("E"), D, t)


# --------------------------------------------------------------------------- exact flows


def _pieces(D):
    A = generic("A", D.p)
    B = generic("B", D.x)
    return [
        (kinetic_flow(A, D, t), A, sympy.S.One),
        (potential_flow(B, D, t), B, sympy.S.One),
        (linear_damping_flow(C, D, t), C * D.z, sympy.exp(-C * t)),
    ]


@pytest.mark.parametrize("n", [1, 2])
def test_exact_flows_are_contact_with_their_factors(n):
    D = darboux_coordinates(n)
    for phi, H, g in _pieces(D):
        c = certify_contact_factor(phi, D.eta, g)
        assert c.holds is True, (H, c.method)
        assert c.factor == g
        assert certify_exact_flow(phi, H, D.eta, t).holds is True
        # slide 20: phi_t^* eta = exp(int_0^t f_H) eta; here f_H = -R(H) is constant along each flow
        f_H = contact_hamiltonian_field(H, D.eta).factor
        assert decide_zero(c.factor - sympy.exp(f_H * t)).is_zero is True


def test_slide_27_in_one_piece():
    D = darboux_coordinates(2)
    S = separable_contact_flows(generic("A", D.p), generic("B", D.x), C, D, t)
    assert S.holds is True
    assert S.factors == {"A": 1, "B": 1, "Cz": sympy.exp(-C * t)}
    assert S.fields["Cz"] == gc.VectorField(D.chart, {**{pi: -C * pi for pi in D.p}, D.z: -C * D.z})


def test_exact_flow_formulas():
    D = darboux_coordinates(1)
    x, p, z = D.chart.coords
    A, B = generic("A", [p]), generic("B", [x])
    assert kinetic_flow(A, D, t).exprs == (x + t * A.diff(p), p, z + t * (p * A.diff(p) - A))
    assert potential_flow(B, D, t).exprs == (x, p - t * B.diff(x), z - t * B)
    assert linear_damping_flow(C, D, t).exprs == (x, p * sympy.exp(-C * t), z * sympy.exp(-C * t))


def test_wrong_factor_is_refuted():
    D = darboux_coordinates(1)
    c = certify_contact_factor(linear_damping_flow(C, D, t), D.eta, sympy.exp(C * t))
    assert c.holds is False


def test_flow_pieces_must_depend_on_their_variables():
    D = darboux_coordinates(1)
    x, p, z = D.chart.coords
    with pytest.raises(ExpressionError, match="A\\(p\\) may depend on p only"):
        kinetic_flow(p**2 + x, D, t)
    with pytest.raises(ExpressionError, match="B\\(x\\) may depend on x only"):
        potential_flow(x * z, D, t)
    with pytest.raises(ExpressionError, match="no coordinate"):
        linear_damping_flow(p, D, t)


def test_printed_A_flow_fails():
    """Slide 27: exp(t X_A)(x, p, z) = (x + t A'(p), p, z + t (p A(p) - A(p)))."""
    D = darboux_coordinates(1)
    x, p, z = D.chart.coords
    A = generic("A", [p])
    printed = gc.Map(D.chart, D.chart, [x + t * A.diff(p), p, z + t * (p * A - A)], parameters=[t])
    assert gc.certify_contact(printed, D.eta).holds is False
    assert certify_exact_flow(printed, A, D.eta, t).holds is False


def test_printed_B_flow_fails():
    """Slide 27: exp(t X_B)(x, p, z) = (x - t (B'(x) + B(x)), p, z + t (p A(p) - A(p)))."""
    D = darboux_coordinates(1)
    x, p, z = D.chart.coords
    A, B = generic("A", [p]), generic("B", [x])
    printed = gc.Map(D.chart, D.chart, [x - t * (B.diff(x) + B), p, z + t * (p * A - A)], parameters=[t])
    # its z component is, verbatim, the printed exp(t X_A)'s (the A line copied, prime missing)
    printed_A = [x + t * A.diff(p), p, z + t * (p * A - A)]
    assert printed.exprs[2] == printed_A[2]
    c = gc.certify_contact(printed, D.eta)
    assert c.holds is False and c.counterexample
    assert certify_exact_flow(printed, B, D.eta, t).holds is False
    assert certify_contact_factor(potential_flow(B, D, t), D.eta, 1).holds is True


def test_printed_C_flow_fails():
    """Slide 27: exp(t X_C)(x, p, z) = (x, p - t p C, exp(Ct) z)."""
    D = darboux_coordinates(1)
    x, p, z = D.chart.coords
    printed = gc.Map(D.chart, D.chart, [x, p - t * p * C, sympy.exp(C * t) * z], parameters=[t, C])
    assert gc.certify_contact(printed, D.eta).holds is False
    assert certify_exact_flow(printed, C * z, D.eta, t).holds is False
    # the p component is the first-order truncation of the flow's p e^{-Ct}
    assert sympy.expand(sympy.series(p * sympy.exp(-C * t), t, 0, 2).removeO() - (p - t * p * C)) == 0
    # with the z exponent's sign repaired (a minus our copy might have lost) the map is still wrong
    repaired = gc.Map(D.chart, D.chart, [x, p - t * p * C, sympy.exp(-C * t) * z], parameters=[t, C])
    assert gc.certify_contact(repaired, D.eta).holds is False
    assert certify_exact_flow(repaired, C * z, D.eta, t).holds is False


def test_splitting_S2_is_contact_with_factor_exp_minus_Ch():
    """S2 = C/2 B/2 A B/2 C/2 (slide 27) composes contact maps; its factor is e^{-Ch}."""
    D = darboux_coordinates(1)
    x, p, z = D.chart.coords
    A, B = p**2 / 2, generic("B", [x])
    half = h / 2
    steps = [linear_damping_flow(C, D, half), potential_flow(B, D, half), kinetic_flow(A, D, h),
             potential_flow(B, D, half), linear_damping_flow(C, D, half)]
    S2 = steps[0]
    for phi in steps[1:]:
        S2 = gc.compose(phi, S2)
    assert certify_contact_factor(S2, D.eta, sympy.exp(-C * h)).holds is True


# --------------------------------------------------------------------------- derivations


@pytest.mark.needs_pdflatex
def test_contact_derivations_compile(tmp_path):
    from geomcheck.latex import compile_pdf, document

    D = darboux_coordinates(2)
    H = generic("H", D.chart.coords + (t,))
    B = generic("B", D.x)
    parts = [
        certify_contact_form(D.eta).latex(),
        certify_reeb_field(D.eta).latex(),
        contact_hamiltonian_field(generic("H", D.chart.coords), D.eta).latex(),
        certify_contact_hamiltonian_field(generic("H", D.chart.coords), D.eta).latex(),
        certify_contact_energy_law(generic("H", D.chart.coords), D.eta).latex(),
        certify_time_dependent_energy_law(H, D, t).latex(),
        certify_exact_flow(potential_flow(B, D, t), B, D.eta, t).latex(),
        certify_contact_factor(linear_damping_flow(C, D, t), D.eta, sympy.exp(-C * t)).latex(),
        certify_contact_form(D.chart.d(D.z) - D.x[0] * D.chart.d(D.x[1])).latex(),   # fails: a counterexample
        separable_contact_flows(generic("A", D.p), generic("B", D.x), C, D, t).latex(),
    ]
    pdf = compile_pdf(document("\n".join(parts)), tmp_path / "contact.pdf")
    assert pdf.exists() and pdf.stat().st_size > 0
