"""Every bad input raises a subclass of GeomcheckError whose message names the offending
object and says what was expected (geomcheck.errors and its users)."""

import contextlib

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck import errors
from geomcheck.errors import GeomcheckError

M = gc.Chart("q p")
q, p = M.coords
N = gc.Chart("x y")
x, y = N.coords
Qn, Pn = sp.symbols("Q P")


@contextlib.contextmanager
def raises(exc_type, *fragments):
    """pytest.raises that also checks the class is a GeomcheckError and the message fragments."""
    assert issubclass(exc_type, GeomcheckError)
    with pytest.raises(exc_type) as info:
        yield info
    msg = str(info.value)
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in message {msg!r}"


def test_hierarchy():
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, GeomcheckError), name
    assert issubclass(errors.MixedDegreeError, ValueError)
    assert issubclass(errors.ChartMismatchError, ValueError)
    assert issubclass(errors.ImplicitMapError, errors.MapError)
    assert issubclass(errors.DuplicateCoordinateError, errors.ChartError)
    assert issubclass(errors.DegreeListError, errors.ChartError)


# --------------------------------------------------------------------------- charts


def test_duplicate_coordinate_names():
    with raises(errors.DuplicateCoordinateError, "'q'", "twice", "distinct"):
        gc.Chart("q p q")


def test_degree_list_of_the_wrong_length():
    with raises(errors.DegreeListError, "1 degrees", "2 coordinates", "one integer degree per coordinate"):
        gc.Chart("x xi", degrees=[1])


def test_coordinate_not_in_the_chart():
    z = sp.Symbol("z")
    with raises(errors.UnknownCoordinateError, "z", "Chart('q p')", "q, p"):
        M.index(z)
    with raises(errors.UnknownCoordinateError, "z", "Chart('q p')"):
        M.index("z")
    with raises(errors.UnknownCoordinateError, "x", "Chart('q p')", "q, p"):
        gc.VectorField(M, {x: 1})


# --------------------------------------------------------------------------- different charts


def test_forms_from_different_charts():
    with raises(errors.ChartMismatchError, "Chart('q p')", "Chart('x y')"):
        M.d(q) + N.d(x)
    with raises(errors.ChartMismatchError, "Chart('q p')", "Chart('x y')"):
        M.d(q) ^ N.d(x)


def test_fields_from_different_charts():
    X = gc.VectorField(M, {q: 1})
    Y = gc.VectorField(N, {x: 1})
    with raises(errors.ChartMismatchError, "Chart('q p')", "Chart('x y')"):
        X + Y
    with raises(errors.ChartMismatchError, "Chart('q p')", "Chart('x y')"):
        gc.bracket(X, Y)
    with raises(errors.ChartMismatchError, "Chart('q p')", "Chart('x y')"):
        gc.interior(X, N.d(x))
    with raises(errors.ChartMismatchError, "Chart('q p')", "Chart('x y')"):
        gc.lie(X, N.d(x))


# --------------------------------------------------------------------------- degrees


def test_degree_of_a_mixed_degree_form():
    a = M.d(q) + (M.d(q) ^ M.d(p))
    with raises(errors.MixedDegreeError, "dq", "[1, 2]"):
        a.degree
    with pytest.raises(ValueError):
        a.degree


def test_degree_of_an_inhomogeneous_vector_field():
    G = gc.Chart("x xi", degrees=[0, 1])
    xg, xi = G.coords
    with raises(errors.NotHomogeneousError, "not homogeneous", "[0, 1]"):
        gc.VectorField(G, {xg: xi, xi: xi}).degree


# --------------------------------------------------------------------------- maps


def test_map_with_the_wrong_number_of_expressions():
    with raises(errors.MapError, "Chart('q p')", "got 1 expressions", "expected 2"):
        gc.Map(M, M, [q])


def test_map_with_foreign_symbols():
    # a coordinate of the target chart in the expressions of a map into another chart
    with raises(errors.MapError, "x", "q + x", "expected expressions in p, q"):
        gc.Map(M, N, [x + q, p])
    # an undeclared symbol when parameters are declared
    h = sp.Symbol("h")
    with raises(errors.MapError, "h", "declared parameters"):
        gc.Map(M, M, [q + h * p, p], parameters=[])


def test_implicit_map_with_singular_jacobian():
    with raises(errors.ImplicitMapError, "do not determine", "singular", "[Q, P]"):
        gc.ImplicitMap(M, M, [Qn + Pn - q, 2 * Qn + 2 * Pn - p], new=[Qn, Pn])


def test_implicit_map_with_the_wrong_number_of_equations():
    with raises(errors.ImplicitMapError, "1 equations", "2 unknowns", "one equation per unknown"):
        gc.ImplicitMap(M, M, [Qn - q], new=[Qn, Pn])


def test_implicit_map_sharing_coordinates_without_new():
    with raises(errors.ImplicitMapError, "Chart('q p')", "new="):
        gc.ImplicitMap(M, M, [Qn - q, Pn - p])


# --------------------------------------------------------------------------- structures


def test_degenerate_two_form():
    M4 = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M4.coords
    with raises(errors.DegenerateFormError, "dq1^dq2", "degenerate", "non-degenerate 2-form was expected"):
        gc.hamiltonian_vector_field(p1, M4.d(q1) ^ M4.d(q2))


def test_hamiltonian_field_of_a_one_form():
    with raises(errors.MixedDegreeError, "2-form", "1-form", "dq"):
        gc.hamiltonian_vector_field(p, M.d(q))


def test_non_contact_form():
    C = gc.Chart("x p z")
    xc, pc, zc = C.coords
    with raises(errors.NotContactError, "dz", "not a contact form"):
        gc.contact_vector_field(pc, C.d(zc))
    with raises(errors.NotContactError, "even-dimensional", "Chart('q p')", "odd dimension"):
        gc.contact_vector_field(p, M.d(p) - q * M.d(q))


def test_not_closed_form_to_primitive():
    with raises(errors.NotClosedError, "not closed", "dq^dp"):
        gc.primitive(p * M.d(q))


def test_form_times_form():
    with raises(errors.ExpressionError, "^"):
        M.d(q) * M.d(p)


# --------------------------------------------------------------------------- raised elsewhere, defined here


def test_exceptions_raised_by_other_modules_live_in_errors_and_stay_importable_where_they_were():
    import casestudies
    from geomcheck import linalg, report
    from geomcheck.certify import number_field

    moved = {linalg: ["SingularSystem", "EliminationTooCostly", "InconsistentSystem"],
             report: ["ReportWriteError"], casestudies: ["UnknownCaseError"], number_field: ["NotAlgebraic"]}
    builtin = {"SingularSystem": ValueError, "EliminationTooCostly": TimeoutError, "InconsistentSystem": ValueError,
               "ReportWriteError": OSError, "UnknownCaseError": ValueError, "NotAlgebraic": ValueError}
    for module, names in moved.items():
        for name in names:
            cls = getattr(errors, name)
            assert getattr(module, name) is cls and name in module.__all__ and name in errors.__all__
            assert cls.__module__ == "geomcheck.errors"
            assert issubclass(cls, builtin[name]) and issubclass(cls, GeomcheckError)


def test_the_moved_exceptions_keep_their_messages_and_attributes():
    singular = errors.SingularSystem(3)
    assert str(singular) == "no nonzero pivot for unknown 3" and singular.column == 3 and not singular.undecided
    assert str(errors.SingularSystem(1, undecided=True)) == "no pivot decided nonzero for unknown 1"
    costly = errors.EliminationTooCostly(2, 5)
    assert str(costly) == "symbolic elimination passed its deadline at unknown 2 of 5" and costly.column == 2
    inconsistent = errors.InconsistentSystem(x + 1)
    assert str(inconsistent) == "inconsistent equation: 0 = x + 1" and inconsistent.residual == x + 1
    with raises(errors.SingularSystem, "no nonzero pivot for unknown 0"):
        from geomcheck.linalg import solve_sparse

        solve_sparse([{0: x - x}, {0: 0}], [[1, 1]], 1)


def test_an_unknown_case_study():
    import casestudies

    with raises(errors.UnknownCaseError, "unknown case study 'no-such-case'", "known case studies"):
        casestudies.describe("no-such-case")
