"""geomcheck's exact tableau checks agree with NodePy (Ketcheson's ``nodepy``) where both apply.

NodePy is a peer used only here and in benchmarks/bench_nodepy.py (skipped when absent).  For a
handful of methods of NodePy's own catalog (``rk.loadRKM``), read into geomcheck with NodePy's
exact sympy entries and compared with geomcheck's own families:

* the tableaux are the same (geomcheck's families against NodePy's catalog);
* the order (geomcheck: exact tree conditions; NodePy: ``order()``);
* the stability function (identical rational functions) and the E-polynomial
  ``E(y) = |Q(iy)|^2 - |P(iy)|^2`` (identical polynomials), whose nonnegativity is the
  A-stability criterion both use (Hairer, Wanner II, IV.3);
* the principal error norm (geomcheck exact, NodePy float: to 1e-12 relative);
* algebraic stability (geomcheck exact, NodePy eigenvalues).

Published values pin the answers independently of both packages (Hairer, Wanner, *Solving
ODEs II*: Gauss methods are A-stable, not L-stable, algebraically stable, of order 2s; Radau
IIA and Lobatto IIIC are L-stable and algebraically stable, of orders 2s - 1 and 2s - 2;
Crouzeix's 2-stage SDIRK with gamma = (3 + sqrt 3)/6 has order 3 and is A-stable, not
L-stable and (by hand, below) algebraically stable; RK4's principal error norm is sqrt(1745)/2880, the 2-norm of its nine
order-5 error coefficients).

Cost: about 1.5 s CPU single process (4.0 s user with imports and collection, of which importing
nodepy, which imports matplotlib, is about 0.6 s).
"""

from __future__ import annotations

import warnings

import pytest
import sympy

nodepy = pytest.importorskip("nodepy")
rk = nodepy.rk                                   # nodepy.runge_kutta_method, as NodePy names it
nsf = pytest.importorskip("nodepy.stability_function")

from geomcheck.certify import families
from geomcheck.certify.algebraic_stability import is_algebraically_stable
from geomcheck.certify.error_coefficients import principal_error_norm
from geomcheck.certify.linear_stability import e_polynomial, is_A_stable, is_L_stable
from geomcheck.certify.tableaux import ButcherTableau, order, stability_function

S3 = sympy.sqrt(3)
G = (3 + S3) / 6

# NodePy key, geomcheck's tableau, published (order, A-stable, L-stable, algebraically stable)
CASES = {
    "RK44": (families.classical_rk4, (4, False, False, False)),
    "GL2": (lambda: families.gauss_legendre(2), (4, True, False, True)),
    "RadauIIA2": (lambda: families.radau_iia(2), (3, True, True, True)),
    "LobattoIIIC2": (lambda: families.lobatto_iiic(2), (2, True, True, True)),
    "SDIRK23": (lambda: ButcherTableau([[G, 0], [1 - 2 * G, G]], [sympy.Rational(1, 2)] * 2), (3, True, False, True)),
    "BE": (families.implicit_euler, (1, True, True, True)),
}


@pytest.fixture(scope="module")
def catalog():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {key: rk.loadRKM(key) for key in CASES}


def _expr(poly1d, var):
    return sympy.Add(*[sympy.sympify(c) * var ** k for k, c in enumerate(list(poly1d.coeffs)[::-1])])


@pytest.mark.parametrize("key", list(CASES))
def test_same_method_same_answers(key, catalog):
    m = catalog[key]
    factory, (p_ref, a_ref, l_ref, alg_ref) = CASES[key]
    T = factory()
    s = len(T.b)
    # the same tableau, exactly
    assert len(m.b) == s
    assert all(sympy.expand(T.A[i][j] - sympy.sympify(m.A[i, j])) == 0 for i in range(s) for j in range(s))
    assert all(sympy.expand(T.b[i] - sympy.sympify(m.b[i])) == 0 for i in range(s))
    # order
    assert order(T).order == m.order() == p_ref
    # stability function: the same rational function
    z = sympy.Symbol("z")
    st = stability_function(T, z)
    P, Q = m.stability_function()
    assert sympy.expand(st.numerator * _expr(Q, z) - _expr(P, z) * st.denominator) == 0
    # the E-polynomial both A-stability criteria read
    y = sympy.Symbol("y", real=True)
    ours_E = sympy.expand(e_polynomial(T, y))
    theirs_E = sympy.expand(_expr(nsf.E_polynomial(P, Q), y))
    assert sympy.expand(ours_E - theirs_E) == 0
    assert is_A_stable(T).holds is a_ref
    assert is_L_stable(T).holds is l_ref
    # principal error norm: exact against NodePy's float
    pen = principal_error_norm(T)
    assert abs(float(pen) - m.principal_error_norm()) <= 1e-12 * float(pen)
    # algebraic stability
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs_alg = bool(m.is_algebraically_stable())
    assert is_algebraically_stable(T).holds is theirs_alg
    assert theirs_alg is alg_ref


def test_rk4_principal_error_norm_published_value(catalog):
    pen = principal_error_norm(families.classical_rk4())
    assert pen == sympy.sqrt(1745) / 2880
    assert abs(catalog["RK44"].principal_error_norm() - float(pen)) < 1e-15


def test_sdirk23_algebraic_stability_by_hand(catalog):
    # M = BA + A^T B - b b^T for b = (1/2, 1/2), A = [[g, 0], [1 - 2g, g]]:
    # M11 = M22 = g - 1/4, M12 = (1 - 2g)/2 - 1/4 = 1/4 - g, so M = (g - 1/4) [[1, -1], [-1, 1]],
    # positive semidefinite since g = (3 + sqrt 3)/6 > 1/4; b > 0: algebraically stable
    T = CASES["SDIRK23"][0]()
    A = sympy.Matrix(T.A)
    b = sympy.Matrix(list(T.b))
    M = sympy.diag(*list(T.b)) * A + A.T * sympy.diag(*list(T.b)) - b * b.T
    assert (M - (G - sympy.Rational(1, 4)) * sympy.Matrix([[1, -1], [-1, 1]])).applyfunc(sympy.simplify) == sympy.zeros(2)
    assert G - sympy.Rational(1, 4) > 0
    assert is_algebraically_stable(T).holds is True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert bool(catalog["SDIRK23"].is_algebraically_stable()) is True
