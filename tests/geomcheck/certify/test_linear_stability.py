"""A- and L-stability, decided exactly, against independent knowledge and computations.

Truths from the literature (Hairer, Wanner, *Solving ODEs II*, IV.3-IV.6): Gauss, Radau IA/IIA,
Lobatto IIIA/IIIB/IIIC are A-stable; Radau IIA and Lobatto IIIC are L-stable; Gauss and
Lobatto IIIA/IIIB are not (|R(infinity)| = 1); explicit methods and the theta-method with
theta < 1/2 are not A-stable; the 2-stage SDIRK of order 3 is A-stable for
gamma = (3 + sqrt 3)/6 and not for gamma = (3 - sqrt 3)/6.  Every counterexample is rechecked
here with R computed by plain sympy (``R(z) = 1 + z b^T (I - zA)^{-1} e``), and verdicts on
the imaginary axis are compared with an mpmath scan.
"""

import matplotlib

matplotlib.use("Agg")

import mpmath
import pytest
import sympy as sp
from sympy import Rational as R

from geomcheck.certify.families import (
    gauss_legendre,
    lobatto_iiia,
    lobatto_iiib,
    lobatto_iiic,
    radau_iia,
)
from geomcheck.certify.linear_stability import (
    e_polynomial,
    is_A_stable,
    is_L_stable,
    reduced_stability_function,
    stability_region_plot,
)
from geomcheck.certify.exact_sign import real_sign
from geomcheck.certify.tableau_arithmetic import domain_for
from geomcheck.certify.tableaux import (
    ButcherTableau,
    PartitionedTableau,
    reduce_tableau,
    stability_function,
)
from geomcheck.errors import InvalidArgumentError

Z = sp.Symbol("z")
S3 = sp.sqrt(3)


def reference_R(A, b):
    """R(z) = 1 + z b^T (I - zA)^{-1} e, by plain sympy (no geomcheck)."""
    A = sp.Matrix(A)
    s = A.shape[0]
    e = sp.ones(s, 1)
    return sp.cancel(sp.simplify(1 + Z * (sp.Matrix([b]) * (sp.eye(s) - Z * A).LUsolve(e))[0]))


def abs2(expr, point):
    v = sp.expand(expr.subs(Z, point))
    return sp.simplify(sp.re(v) ** 2 + sp.im(v) ** 2)


def axis_max(A, b, ys):
    """max |R(iy)| over the sample ys, at 40 digits (mpmath)."""
    Rz = sp.lambdify(Z, reference_R(A, b), "mpmath")
    with mpmath.workdps(40):
        return max(abs(Rz(mpmath.mpc(0, y))) for y in ys)


def tab(A, b, name=""):
    return ButcherTableau(A, b, name=name)


def sdirk3(g):
    return [[g, 0], [1 - 2 * g, g]], [R(1, 2), R(1, 2)]


def theta_method(theta):
    return [[0, 0], [1 - theta, theta]], [1 - theta, theta]


RADAU_IA_2 = ([[R(1, 4), R(-1, 4)], [R(1, 4), R(5, 12)]], [R(1, 4), R(3, 4)])
TRAPEZOIDAL = ([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)])
RK4 = ([[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]], [R(1, 6), R(1, 3), R(1, 3), R(1, 6)])


# ------------------------------------------------------------------ the literature


@pytest.mark.parametrize("s", [1, 2, 3])
def test_gauss_is_A_stable_not_L_stable(s):
    T = gauss_legendre(s)
    a, l = is_A_stable(T), is_L_stable(T)
    assert a.holds is True and a.stage == "exact"
    assert l.holds is False
    assert l.counterexample == {"R(infinity)": (-1) ** s}     # the diagonal Pade approximant


@pytest.mark.parametrize("family, s", [(radau_iia, 1), (radau_iia, 2), (radau_iia, 3), (radau_iia, 4), (lobatto_iiic, 2),
                                       (lobatto_iiic, 3)])
def test_radau_iia_and_lobatto_iiic_are_L_stable(family, s):
    assert is_A_stable(family(s)).holds is True
    assert is_L_stable(family(s)).holds is True


@pytest.mark.parametrize("family, s", [(lobatto_iiia, 2), (lobatto_iiia, 3), (lobatto_iiib, 2), (lobatto_iiib, 3)])
def test_lobatto_iiia_iiib_are_A_stable_not_L_stable(family, s):
    assert is_A_stable(family(s)).holds is True
    assert is_L_stable(family(s)).counterexample == {"R(infinity)": (-1) ** (s - 1)}


def test_radau_ia_and_trapezoidal_rule():
    assert is_L_stable(tab(*RADAU_IA_2)).holds is True
    c = is_L_stable(tab(*TRAPEZOIDAL, name="trapezoidal"))
    assert c.holds is False and c.counterexample == {"R(infinity)": -1}
    assert is_A_stable(tab(*TRAPEZOIDAL)).holds is True


def test_implicit_euler_is_L_stable():
    c = is_L_stable(tab([[1]], [1]))
    assert c.holds is True
    assert c.residual["R"] == 1 / (1 - Z) or sp.simplify(c.residual["R"] - 1 / (1 - Z)) == 0


@pytest.mark.parametrize("A, b", [([[0]], [1]), ([[0, 0], [1, 0]], [R(1, 2), R(1, 2)]), RK4])
def test_explicit_methods_are_not_A_stable_with_a_checked_counterexample(A, b):
    c = is_A_stable(tab(A, b))
    assert c.holds is False and c.stage == "exact"
    z = c.counterexample["z"]
    assert sp.re(z) <= 0
    value = abs2(reference_R(A, b), z)
    assert value == c.counterexample["|R(z)|^2"] and value > 1


@pytest.mark.parametrize("theta, stable", [(0, False), (R(1, 4), False), (R(49, 100), False), (R(1, 2), True),
                                           (R(3, 4), True), (1, True)])
def test_theta_method(theta, stable):
    A, b = theta_method(theta)
    c = is_A_stable(tab(A, b))
    assert c.holds is stable
    if not stable:
        assert abs2(reference_R(A, b), c.counterexample["z"]) > 1
    assert is_L_stable(tab(A, b)).holds is (theta == 1)


def test_sdirk_order_3_depends_on_gamma_and_an_mpmath_scan_agrees():
    ys = [mpmath.mpf(k) / 20 for k in range(1, 400)]
    good, bad = sdirk3((3 + S3) / 6), sdirk3((3 - S3) / 6)
    assert is_A_stable(tab(*good)).holds is True
    assert axis_max(*good, ys) <= 1
    c = is_A_stable(tab(*bad))
    assert c.holds is False
    assert axis_max(*bad, ys) > 1
    value = abs2(reference_R(*bad), c.counterexample["z"])
    assert sp.simplify(value - c.counterexample["|R(z)|^2"]) == 0
    assert float(value) > 1.01


# ------------------------------------------------------------------ attacker cases


def diagonal_tableau(lams, P):
    """A = diag(lams), b from the partial fractions of R = P / prod(1 - lam z) (deg P < s), so that
    R(z) = 1 + sum b_i z / (1 - lam_i z) (plain sympy)."""
    b = []
    for i, lam in enumerate(lams):
        others = sp.prod([1 - sp.Rational(mu, lam) for j, mu in enumerate(lams) if j != i])
        b.append(sp.Rational(P.subs(Z, sp.Rational(1, lam)) / others * lam))
    A = [[lam if i == j else 0 for j in range(len(lams))] for i, lam in enumerate(lams)]
    assert sp.simplify(reference_R(A, b) - P / sp.prod([1 - lam * Z for lam in lams])) == 0
    return A, b


def test_E_with_double_roots_touching_zero_is_still_A_stable():
    # R = (1 + 11 z^2) / ((1 - z)(1 - 2z)(1 - 3z)): E(y) = 36 y^2 (1 - y^2)^2 >= 0, zero at y = 0, +-1
    A, b = diagonal_tableau([1, 2, 3], 1 + 11 * Z ** 2)
    T = tab(A, b)
    y = sp.Symbol("y", real=True)
    assert sp.expand(e_polynomial(T, y) - 36 * y ** 2 * (1 - y ** 2) ** 2) == 0
    assert is_A_stable(T).holds is True
    assert is_L_stable(T).holds is True
    # lift the numerator a hair: E(1) = 100 - (10 + eps)^2 < 0
    A2, b2 = diagonal_tableau([1, 2, 3], 1 + (11 + R(1, 10 ** 9)) * Z ** 2)
    c = is_A_stable(tab(A2, b2))
    assert c.holds is False
    assert abs2(reference_R(A2, b2), c.counterexample["z"]) > 1


def test_pole_on_the_imaginary_axis():
    A, b = [[0, 1], [-1, 0]], [R(1, 2), R(1, 2)]          # Q(z) = 1 + z^2: poles +-i
    c = is_A_stable(tab(A, b))
    assert c.holds is False
    z = c.counterexample["z"]
    assert sp.re(z) <= 0 and abs2(reference_R(A, b), z) > 1
    assert abs(complex(c.counterexample["pole (approx.)"]) ** 2 + 1) < 1e-12


def test_pole_in_the_left_half_plane_with_E_identically_zero():
    # R = (1 - z)/(1 + z): |R(iy)| = 1 on the whole axis, yet |R(-2)| = 3
    A, b = [[-1]], [-2]
    assert sp.simplify(reference_R(A, b) - (1 - Z) / (1 + Z)) == 0
    T = tab(A, b)
    assert e_polynomial(T) == 0
    c = is_A_stable(T)
    assert c.holds is False
    assert sp.re(c.counterexample["z"]) <= 0 and abs2(reference_R(A, b), c.counterexample["z"]) > 1


def test_a_cancelling_pole_is_no_pole():
    # stage 2 (b_2 = 0, used by nobody) adds the factor 1 + 5z to P and Q: R is the midpoint rule's
    T = tab([[R(1, 2), 0], [0, -5]], [1, 0])
    red = reduced_stability_function(T)
    assert red.cancelled == 1
    assert sp.simplify(red.numerator(Z) / red.denominator(Z) - (1 + Z / 2) / (1 - Z / 2)) == 0
    assert is_A_stable(T).holds is True


def test_two_equal_stages_give_the_same_verdict_as_the_merged_method():
    assert is_A_stable(tab([[R(1, 4), R(1, 4)], [R(1, 4), R(1, 4)]], [R(1, 4), R(3, 4)])).holds is True


def test_real_sign_of_close_algebraic_numbers():
    dom = domain_for([S3])
    r3 = dom.convert(S3)
    # 1351/780 is a continued-fraction convergent of sqrt(3), about 2.5e-7 above it
    from fractions import Fraction
    assert real_sign(dom, r3 - Fraction(1351, 780)) == -1
    assert real_sign(dom, r3 - Fraction(989, 571)) == 1
    assert real_sign(dom, r3 * r3 - 3) == 0


def test_real_sign_in_a_cubic_field():
    from fractions import Fraction

    x = sp.Symbol("x")
    # the roots of x^3 - 3x + 1 are -1.879..., 0.347..., 1.532...
    for k, (below, above) in enumerate([(R(-19, 10), R(-18, 10)), (R(3, 10), R(4, 10)), (R(15, 10), R(16, 10))]):
        r = sp.CRootOf(x ** 3 - 3 * x + 1, k)
        dom = domain_for([r])
        v = dom.convert(r)
        assert real_sign(dom, v - Fraction(below.p, below.q)) == 1
        assert real_sign(dom, v - Fraction(above.p, above.q)) == -1


# ------------------------------------------------------------------ reducibility (audit of reduce_tableau)


def same_R(T1, T2):
    a, b = stability_function(T1), stability_function(T2, z=stability_function(T1).z)
    return sp.simplify(sp.cancel(a.expr - b.expr)) == 0


def test_dj_reducible_chain_of_unneeded_stages():
    # b = (1, 0, 0); stage 1 uses no other stage; stages 2 and 3 use each other: Dahlquist-Jeltsch
    # reducible.  Their block [[-3, 7], [3, 1]] has eigenvalues 4 and -6, so P and Q share the factor
    # (1 - 4z)(1 + 6z): uncancelled, 1 + 6z would be a pole in the left half plane
    T = tab([[R(1, 2), 0, 0], [R(1, 5), -3, 7], [0, 3, 1]], [1, 0, 0])
    red = reduce_tableau(T)
    assert red.removed == (1, 2) and red.tableau.A == ((R(1, 2),),) and red.tableau.b == (1,)
    assert same_R(T, red.tableau)
    assert reduced_stability_function(T).cancelled == 2
    assert is_A_stable(T).holds is True and is_L_stable(T).holds is False


def test_s_reducible_stages_coinciding_by_class_row_sums():
    # classes {1, 2}, {3}: rows 1 and 2 have equal sums over each class (1/2, 0), so Y_1 = Y_2 for
    # every problem (Hundsdorfer-Spijker); merged: A' = [[1/2, 0], [1/2, 1/2]], b' = (1/2, 1/2)
    T = tab([[R(1, 4), R(1, 4), 0], [R(1, 2), 0, 0], [R(1, 3), R(1, 6), R(1, 2)]], [R(1, 6), R(1, 3), R(1, 2)])
    red = reduce_tableau(T)
    assert red.classes == ((0, 1), (2,)) and red.removed == ()
    assert red.tableau.A == ((R(1, 2), 0), (R(1, 2), R(1, 2))) and red.tableau.b == (R(1, 2), R(1, 2))
    assert same_R(T, red.tableau)
    assert is_A_stable(T).holds is is_A_stable(red.tableau).holds is True


# ------------------------------------------------------------------ inputs, output


def test_inexact_and_non_algebraic_entries_are_undecided():
    assert is_A_stable(ButcherTableau([[0.5]], [1.0], exact=False)).holds is None
    assert is_L_stable(ButcherTableau([[sp.pi / 8]], [1])).holds is None


def test_wrong_inputs_raise_geomcheck_errors():
    pair = PartitionedTableau([[R(1, 2)]], [1], [[R(1, 2)]], [1])
    with pytest.raises(InvalidArgumentError, match="parts T.q and T.p"):
        is_A_stable(pair)
    with pytest.raises(InvalidArgumentError, match="ButcherTableau"):
        is_L_stable("RK4")
    with pytest.raises(InvalidArgumentError, match="resolution"):
        stability_region_plot(tab([[0]], [1]), resolution=3)
    with pytest.raises(InvalidArgumentError, match="bounds"):
        stability_region_plot(tab([[0]], [1]), bounds=(1, 0, 0, 1))


def test_certificates_typeset_and_serialize():
    for c in (is_A_stable(gauss_legendre(2)), is_L_stable(tab(*RK4))):
        assert "A-stab" in c.latex() or "not A-stable" in c.latex()
        assert c.to_dict()["holds"] == c.holds


def inside(path, point):
    """Whether a point lies in a filled contour path, holes included (even-odd rule)."""
    from matplotlib.path import Path

    return sum(Path(poly).contains_point(point) for poly in path.to_polygons()) % 2 == 1


def test_stability_region_plot(tmp_path):
    import matplotlib.pyplot as plt

    ax = stability_region_plot(tab([[0]], [1], name="explicit Euler"))
    region = ax.collections[0].get_paths()[0]
    assert region.contains_point((-1, 0)) and region.contains_point((-1.9, 0))
    assert not region.contains_point((1, 0)) and not region.contains_point((-2.1, 0))
    out = tmp_path / "euler.png"
    ax.figure.savefig(out)
    assert out.stat().st_size > 1000
    plt.close(ax.figure)
    # implicit Euler: the outside of the disc |z - 1| < 1, drawn into given axes
    fig, ax2 = plt.subplots()
    assert stability_region_plot(tab([[1]], [1]), ax=ax2, bounds=(-4, 4, -4, 4)) is ax2
    region = ax2.collections[0].get_paths()[0]
    assert inside(region, (-1, 0)) and inside(region, (3, 0)) and inside(region, (1, 1.5))
    assert not inside(region, (1, 0.2)) and not inside(region, (0.5, 0))
    plt.close(fig)
