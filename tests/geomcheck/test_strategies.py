"""The shipped hypothesis strategies draw what they promise, and every part can be
overridden."""

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from sympy.core.function import AppliedUndef

import geomcheck as gc
from geomcheck import strategies as gst

M3 = gc.Chart("x y z")
TRIG = (sp.sin, sp.cos, sp.exp)


def draw_one(strategy):
    """One value of a strategy, drawn inside @given (``.example()`` is for the REPL)."""
    out = []

    @settings(max_examples=1, database=None, derandomize=True)
    @given(strategy)
    def draw(value):
        out.append(value)

    draw()
    return out[0]


def is_polynomial_in(expr, symbols, max_degree):
    if not symbols:
        return expr.is_number
    if not expr.is_polynomial(*symbols):
        return False
    return sp.Poly(expr, *symbols).total_degree() <= max_degree if expr != 0 else True


# ---------------------------------------------------------------- charts


@given(gst.charts())
def test_charts_default(M):
    assert isinstance(M, gc.Chart)
    assert 1 <= M.dim <= 4
    assert not M.is_graded
    assert all(isinstance(c, sp.Symbol) and c.is_commutative for c in M.coords)
    assert len({c.name for c in M.coords}) == M.dim


@given(gst.charts(min_dim=2, max_dim=3, prefix="y"))
def test_charts_prefix_and_dims(M):
    assert 2 <= M.dim <= 3
    assert [c.name for c in M.coords] == [f"y{i}" for i in range(1, M.dim + 1)]


@given(gst.charts(names="q1 q2 p1 p2"))
def test_charts_fixed_names(M):
    assert [c.name for c in M.coords] == ["q1", "q2", "p1", "p2"]


@given(gst.charts(names=st.sampled_from([["a"], ["u", "v"]])))
def test_charts_names_strategy(M):
    assert [c.name for c in M.coords] in (["a"], ["u", "v"])


def test_charts_bad_bounds():
    with pytest.raises(InvalidArgument):
        gst.charts(min_dim=3, max_dim=2)


@given(gst.graded_charts())
def test_graded_charts_default(G):
    assert G.is_graded
    assert len(G.odd) >= 1
    assert 1 <= G.dim <= 4
    for c, k in zip(G.coords, G.degrees):
        assert c.is_commutative == (k % 2 == 0)


@given(gst.graded_charts(names="x xi", degrees=[0, 1]))
def test_graded_charts_fixed(G):
    assert G.degrees == (0, 1) and [c.name for c in G.coords] == ["x", "xi"]


@given(gst.graded_charts(min_dim=3, max_dim=3, min_odd=2, even_degrees=st.just(2), odd_degrees=st.just(-1)))
def test_graded_charts_degree_overrides(G):
    assert G.dim == 3 and len(G.odd) >= 2
    assert set(G.degrees) <= {2, -1}


# ---------------------------------------------------------------- coefficients


@given(gst.coefficients(M3))
def test_polynomial_coefficients(f):
    assert is_polynomial_in(f, M3.coords, 2)
    assert f.free_symbols <= set(M3.coords)


@given(gst.coefficients(M3, max_degree=1, max_terms=1))
def test_coefficient_size_overrides(f):
    assert is_polynomial_in(f, M3.coords, 1)
    assert len(sp.Add.make_args(f)) == 1


@given(gst.coefficients(M3, kind="transcendental"))
def test_transcendental_coefficients(f):
    assert f.atoms(*TRIG)
    assert not f.atoms(AppliedUndef)


@given(gst.coefficients(M3, kind="generic"))
def test_generic_coefficients(f):
    undef = f.atoms(AppliedUndef)
    assert undef
    for u in undef:
        assert set(u.args) <= set(M3.coords)
        assert u.func.__name__.endswith(str(len(u.args)))  # one arity per name


@given(gst.coefficients(M3, kind="generic", function_names=["V"]))
def test_function_names_override(f):
    assert {u.func.__name__ for u in f.atoms(AppliedUndef)} == {"V"}


@given(gst.functions(M3, numbers=st.just(sp.Rational(1, 7)), variables=[M3.coords[0]]))
def test_numbers_and_variables_override(f):
    x = M3.coords[0]
    assert f.free_symbols <= {x}
    assert sp.Poly(f, x).coeffs() and all(c.q == 7 for c in sp.Poly(f, x).coeffs())


def test_unknown_kind():
    with pytest.raises(InvalidArgument):
        draw_one(gst.coefficients(M3, kind="rational"))


@given(gst.numbers())
def test_numbers(c):
    assert c.is_Rational and c != 0 and abs(c.p) <= 3 and c.q <= 3


# ---------------------------------------------------------------- forms, fields, maps


@given(gst.forms(M3))
def test_forms_default(a):
    assert isinstance(a, gc.Form) and a.chart == M3
    assert 1 <= len(a.components) <= 3
    assert 0 <= a.degree <= 3
    assert all(is_polynomial_in(v, M3.coords, 2) for v in a.components.values())


@given(st.data())
def test_forms_requested_degree(data):
    M = data.draw(gst.charts())
    k = data.draw(st.integers(0, M.dim))
    a = data.draw(gst.forms(M, degree=k))
    assert a.degree == k
    assert all(len(key) == k for key in a.components)


@given(gst.forms(gst.charts(min_dim=4, max_dim=4), degree=2, max_terms=6, min_terms=6))
def test_forms_chart_strategy_and_term_counts(a):
    assert a.chart.dim == 4 and len(a.components) == 6  # all 6 index pairs


@given(gst.forms(M3, degree=1, coefficients=st.just(sp.Integer(5))))
def test_forms_coefficients_strategy_override(a):
    assert set(a.components.values()) == {5}


@given(gst.forms(gst.charts(), degree=1, coefficients=lambda M: st.just(M.coords[0])))
def test_forms_coefficients_callable_override(a):
    assert set(a.components.values()) == {a.chart.coords[0]}


@given(gst.forms(M3, coefficients=gst.coefficients(M3, kind="generic")))
def test_forms_generic_coefficients(a):
    assert all(v.atoms(AppliedUndef) for v in a.components.values())


@given(gst.vector_fields(M3))
def test_vector_fields_default(X):
    assert isinstance(X, gc.VectorField) and X.chart == M3
    assert 1 <= len(X.components) <= 3
    assert all(is_polynomial_in(v, M3.coords, 2) for v in X.components.values())


@given(gst.vector_fields(M3, max_terms=1, coefficients=st.just(sp.Integer(1))))
def test_vector_fields_overrides(X):
    assert list(X.components.values()) == [1]


@given(gst.maps(gc.Chart("x1 x2"), gc.Chart("y1 y2 y3")))
def test_maps_default(phi):
    assert isinstance(phi, gc.Map)


@given(st.data())
def test_maps_override(data):
    M, N = gc.Chart("x1 x2"), gc.Chart("y1 y2")
    phi = data.draw(gst.maps(M, N, coefficients=st.just(M.coords[0] ** 2)))
    y1 = N.coords[0]
    pulled = gc.pullback(gc.Form(N, {(): y1}), phi)
    assert (pulled - gc.Form(M, {(): M.coords[0] ** 2})).is_zero() is True


@given(st.data())
def test_constant_symplectic_forms(data):
    M = data.draw(gst.charts(min_dim=2, max_dim=2) | gst.charts(min_dim=4, max_dim=4))
    w = data.draw(gst.constant_symplectic_forms(M))
    assert w.degree == 2
    W = sp.zeros(M.dim, M.dim)
    for (i, j), v in w.components.items():
        assert v.is_number
        W[i, j], W[j, i] = v, -v
    assert W.det() != 0


def test_constant_symplectic_forms_odd_dimension():
    with pytest.raises(InvalidArgument):
        draw_one(gst.constant_symplectic_forms(M3))


# ---------------------------------------------------------------- graded


@given(st.data())
def test_superfunctions_requested_degree(data):
    G = data.draw(gst.graded_charts())
    k = data.draw(st.sampled_from(gst.superfunction_degrees(G)))
    f = data.draw(gst.superfunctions(G, degree=k))
    assert isinstance(f, gc.SuperFunction)
    assert f.is_zero() is False
    assert f.degree == k
    assert 1 <= len(f.terms) <= 3


@given(st.data())
def test_superfunctions_default_homogeneous(data):
    G = data.draw(gst.graded_charts())
    f = data.draw(gst.superfunctions(G))
    f.degree  # raises if inhomogeneous


@given(gst.superfunctions(gc.Chart("x xi eta", degrees=[0, 1, 1]), degree=2, coefficients=st.just(sp.Integer(3))))
def test_superfunctions_override(f):
    G = f.chart
    x, xi, eta = G.coords
    assert f.terms == {(0, 1): 3} or f.terms == {(0, 1): -3}  # xi*eta or eta*xi
    assert f == G.function(3 * xi * eta) or f == G.function(3 * eta * xi)


def test_superfunction_unreachable_degree_is_zero():
    G = gc.Chart("x xi", degrees=[0, 1])
    assert draw_one(gst.superfunctions(G, degree=5)).is_zero() is True


@given(st.data())
def test_vector_fields_graded_requested_degree(data):
    G = data.draw(gst.graded_charts())
    k = data.draw(st.sampled_from(gst.vector_field_degrees(G)))
    X = data.draw(gst.vector_fields_graded(G, degree=k))
    assert isinstance(X, gc.VectorField)
    assert X.is_zero() is False
    assert X.degree == k


@given(st.data())
def test_odd_vector_fields(data):
    G = data.draw(gst.graded_charts())
    Q = data.draw(gst.odd_vector_fields(G))
    assert Q.degree % 2 == 1


@given(gst.vector_fields(gc.Chart("x xi", degrees=[0, 1])))
def test_vector_fields_dispatch_to_graded(X):
    X.degree  # homogeneous


def test_odd_vector_fields_rejects_even_degree():
    with pytest.raises(InvalidArgument):
        gst.odd_vector_fields(gc.Chart("x xi", degrees=[0, 1]), degree=2)


def test_types_have_registered_strategies():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    import geomcheck as gc
    import geomcheck.strategies  # noqa: F401  (registers them)

    @settings(max_examples=5, deadline=None, database=None)
    @given(st.from_type(gc.Chart), st.from_type(gc.Form), st.from_type(gc.VectorField))
    def check(chart, form, field):
        assert isinstance(chart, gc.Chart) and isinstance(form, gc.Form) and isinstance(field, gc.VectorField)
        assert gc.d(gc.d(form)).is_zero() is True

    check()


def test_without_hypothesis_the_import_says_which_extra_to_install():
    import subprocess
    import sys

    code = "\n".join(["import sys", "sys.modules['hypothesis'] = None", "try:", "    import geomcheck.strategies",
                      "except Exception as e:", "    print(type(e).__name__, e)"])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         cwd=str(__import__('pathlib').Path(__file__).resolve().parents[2])).stdout
    assert out.startswith("MissingDependencyError") and "pip install 'geomcheck[test]'" in out
