"""The initial-state check shared by the constrained systems (integrators.systems.base.check_states_on_manifold).

The messages of ConstrainedHamiltonianSystem.check_state and NonholonomicSystem.check_state are
compared in full with the ones the code gave before the check was shared (the lambdify version);
the tolerance boundary, the rank test, the accuracy of the residuals and the states outside the
real domain of the constraints are checked against values computed here independently (exact
rationals, mpmath at 60 digits).
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

import integrators as ig
from geomcheck.errors import GeomcheckError, ShapeError
from integrators.errors import InconsistentStateError
from integrators.stability import stability_interval
from integrators.systems import planar_pendulum
from integrators.systems.base import check_states_on_manifold
from integrators.systems.nonholonomic import NonholonomicSystem, knife_edge

x, y, z, px, py, pz, l = sp.symbols("x y z p_x p_y p_z l")
PLANE = (px**2 + py**2) / 2
SPACE = (px**2 + py**2 + pz**2) / 2
PENDULUM = planar_pendulum()
KNIFE = knife_edge()


def refused(system, Y, **kw):
    with pytest.raises(InconsistentStateError) as info:
        system.check_state(np.array(Y, dtype=object if any(isinstance(v, mpmath.mpf) for r in Y for v in r) else float),
                           **kw)
    return info.value


# -- the messages, exactly as before ---------------------------------------------------------------

def test_messages_of_the_holonomic_check_are_unchanged():
    e = refused(PENDULUM, [[0.0, -1.1, 1.0, 0.0]])
    assert str(e) == ("the initial state of trajectory 0 is not on the constraint manifold: the constraint g_1 ="
                      " x**2 + y**2 - 1 is 0.21 (tolerance 1e-10)")
    assert (e.name, e.trajectory) == ("g_1", 0) and e.value == pytest.approx(0.21, abs=1e-15)
    e = refused(PENDULUM, [[0.0, -1.0, 1.5, 0.0], [0.0, -1.0, 0.0, 0.5]])
    assert str(e) == ("the initial state of trajectory 1 is not on the constraint manifold: the hidden constraint"
                      " c_1 = 2*p_x*x + 2*p_y*y (d/dt of g_1) is 1 (tolerance 1e-10)")
    assert (e.name, e.value, e.trajectory) == ("c_1", 1.0, 1)
    lines = ig.ConstrainedHamiltonianSystem(PLANE, [x, y], [px, py], [x**2 - y**2])
    e = refused(lines, [[1.0, 1.0, 0.5, 0.5], [0.0, 0.0, 1.0, 0.0]])
    assert str(e) == ("at the initial state of trajectory 1 the constraints are dependent: G H_pp G^T = [[0.0]] is"
                      " singular (the constraint gradients are not independent there)")
    assert (e.name, e.value, e.trajectory) == ("rank", 0.0, 1)


def test_messages_of_the_nonholonomic_check_are_unchanged():
    e = refused(KNIFE, [[0.0, 0.0, 0.0, 1.5, 0.0, 0.5], [0.0, 0.0, 0.3, 1.0, 1.0, 0.0]])
    assert str(e) == ("the initial state of trajectory 1 is not on the constraint manifold: the constraint c_1 ="
                      " p_x*sin(phi) - p_y*cos(phi) (A(q) H_p = 0) is 0.66 (tolerance 1e-10)")
    # |sin(0.3) - cos(0.3)|, computed here
    assert (e.name, e.trajectory) == ("c_1", 1) and e.value == pytest.approx(abs(np.sin(0.3) - np.cos(0.3)), rel=1e-15)
    z_axis = NonholonomicSystem(SPACE, [x, y, z], [px, py, pz], [[x, y, 0]])
    e = refused(z_axis, [[0.0, 0.0, 1.0, 0.3, 0.2, 1.0]])
    assert str(e) == ("at the initial state of trajectory 0 the constraint rows are dependent: A H_pp A^T = [[0.0]]"
                      " is singular (A(q) has not full rank there)")
    z_axis.check_state(np.array([1.0, 0.0, 1.0, 0.0, 0.2, 1.0]))     # A = (1, 0, 0): full rank, p_x = 0


# -- what the shared check decides ---------------------------------------------------------------------

def test_the_tolerance_is_inclusive():
    """g = x at x = 2^-40: accepted with tol = 2^-40, refused with the next float below."""
    line = ig.ConstrainedHamiltonianSystem(PLANE, [x, y], [px, py], [x])
    state = np.array([[2.0**-40, 0.0, 0.0, 1.0]])
    line.check_state(state, tol=2.0**-40)
    with pytest.raises(InconsistentStateError) as info:
        line.check_state(state, tol=np.nextafter(2.0**-40, 0))
    assert info.value.name == "g_1" and info.value.value == 2.0**-40
    knife = knife_edge()
    exact = np.array([[0.0, 0.0, 0.0, 0.0, 2.0**-40, 0.0]])       # c_1 = -p_y: |c_1| = 2^-40
    knife.check_state(exact, tol=2.0**-40)
    with pytest.raises(InconsistentStateError):
        knife.check_state(exact, tol=np.nextafter(2.0**-40, 0))


def test_a_dependent_point_on_the_manifold_is_refused_even_with_a_loose_tolerance():
    """x^2 + y^2 - l^2 with l = 0: the origin satisfies g = 0 and G H_p = 0, but G = 0 there."""
    point = planar_pendulum(length=l)
    with pytest.raises(InconsistentStateError, match="dependent") as info:
        point.check_state(np.array([[0.0, 0.0, 0.0, 0.0]]), values={l: 0}, tol=1.0)
    assert info.value.name == "rank"
    # the sphere and the plane z = 1 touch at the pole: both constraints hold there, their gradients
    # (0, 0, 2) and (0, 0, 1) are parallel
    touching = ig.ConstrainedHamiltonianSystem(SPACE, [x, y, z], [px, py, pz], [x**2 + y**2 + z**2 - 1, z - 1])
    with pytest.raises(InconsistentStateError, match=r"G H_pp G\^T = \[\[4\.0, 2\.0\], \[2\.0, 1\.0\]\] is singular"):
        touching.check_state(np.array([[0.0, 0.0, 1.0, 0.5, 0.0, 0.0]]))
    crossing = ig.ConstrainedHamiltonianSystem(SPACE, [x, y, z], [px, py, pz], [x**2 + y**2 + z**2 - 1, z])
    crossing.check_state(np.array([[1.0, 0.0, 0.0, 0.0, 0.5, 0.0]]))


def test_residuals_are_computed_beyond_double_precision():
    """l = sqrt(2), y = -float(sqrt(2)): g = y^2 - 2, computed here exactly from the float and 60-digit sqrt(2)."""
    pendulum = planar_pendulum(length=l)
    yf = -float(sp.sqrt(2))
    with mpmath.workdps(60):
        truth = float(abs(mpmath.mpf(Fraction(yf).numerator) / Fraction(yf).denominator) ** 2 - 2)
    assert truth == pytest.approx(2.7343234630647693e-16, rel=1e-12)
    assert yf * yf - 2.0 == pytest.approx(4.44e-16, rel=1e-2)                # what double arithmetic gives
    with pytest.raises(InconsistentStateError) as info:
        pendulum.check_state(np.array([[0.0, yf, 1.0, 0.0]]), values={l: sp.sqrt(2)}, tol=1e-16)
    assert info.value.value == pytest.approx(truth, rel=1e-12)
    pendulum.check_state(np.array([[0.0, yf, 1.0, 0.0]]), values={l: sp.sqrt(2)}, tol=3e-16)
    # a 50-digit state of an mpmath run: g = (1 + 1e-10)^2 - 1 = 2.0000000001e-10 exactly
    with pytest.raises(InconsistentStateError) as info:
        ig.integrate(PENDULUM, "rattle", ["0", "-1.0000000001", "1", "0"], dt="0.1", steps=1, backend="mpmath", dps=50)
    assert info.value.value == pytest.approx(float(Fraction("2.0000000001e-10")), rel=1e-14)


def test_constants_enter_with_their_exact_values():
    """l = 1/3 on the state y = -1/3 at 40 digits: |g| ~ 1e-40, accepted at tol 1e-30 (a double l would give 1e-17)."""
    pendulum = planar_pendulum(length=l)
    with mpmath.workdps(40):
        minus_third = -mpmath.mpf(1) / 3       # negated inside: outside, -x rounds to 15 digits
    state = np.array([[mpmath.mpf(0), minus_third, mpmath.mpf(1), mpmath.mpf(0)]], dtype=object)
    pendulum.check_state(state, values={l: sp.Rational(1, 3)}, tol=1e-30)
    with pytest.raises(InconsistentStateError):
        pendulum.check_state(state, values={l: 1 / 3}, tol=1e-30)     # the double 1/3 is 1.9e-17 off


def test_missing_constants_check_nothing_and_bad_shapes_are_named():
    planar_pendulum(length=l).check_state(np.array([[5.0, 5.0, 5.0, 5.0]]), values={})
    with pytest.raises(ShapeError, match=r"\(batch, 4\)"):
        PENDULUM.check_state(np.array([[1.0, 0.0, 0.0]]))


# -- states outside the real domain: named errors, never a foreign exception ------------------------

def test_a_complex_residual_within_the_tolerance_is_refused():
    """g = y - sqrt(x) at x = -1e-24: |g| = 1e-12 <= tol, but g is imaginary (the state is off the real manifold)."""
    root = ig.ConstrainedHamiltonianSystem(PLANE, [x, y], [px, py], [y - sp.sqrt(x)])
    e = refused(root, [[-1e-24, 0.0, 0.0, 0.0]])
    assert e.name == "g_1" and "is complex there" in str(e) and e.value == pytest.approx(1e-12)
    e = refused(root, [[-1.0, 0.0, 0.0, 0.0]])                     # |g| = 1: the message as before
    assert str(e).endswith("the constraint g_1 = -sqrt(x) + y is 1 (tolerance 1e-10)")
    root.check_state(np.array([[4.0, 2.0, 0.5, 0.125]]))           # y = sqrt(x), p along (1, 1/(2 sqrt x))


def test_a_complex_reduction_matrix_is_refused():
    """H_pp = sqrt(1 + x) is imaginary at x = -2: A H_pp A^T is complex there (the old check kept its real part)."""
    s = NonholonomicSystem(px**2 * sp.sqrt(1 + x) / 2 + py**2 / 2, [x, y], [px, py], [[1, 1]])
    e = refused(s, [[-2.0, 0.0, 0.0, 0.0]])
    assert e.name == "rank" and "A H_pp A^T is complex" in str(e)
    s.check_state(np.array([[3.0, 0.0, 0.5, -1.0]]))                # A H_p = 2*0.5 - 1 = 0


def test_an_overflowing_reduction_matrix_is_refused_by_name():
    """H_pp = e^x: A H_pp A^T = e^800 + 1 is finite in mpmath but not in float64, where the rank is taken."""
    s = NonholonomicSystem(px**2 * sp.exp(x) / 2 + py**2 / 2, [x, y], [px, py], [[1, 1]])
    e = refused(s, [[800.0, 0.0, 0.0, 0.0]])
    assert e.name == "rank" and str(e).startswith("at the initial state of trajectory 0 A H_pp A^T = [[inf]] is not finite")
    s.check_state(np.array([[1.0, 0.0, 0.0, 0.0]]))


@pytest.mark.parametrize("constraint, state", [(y - 1 / x, [0.0, 0.0, 0.0, 0.0]),
                                               (y - sp.log(x), [0.0, 0.0, 0.0, 0.0]),
                                               (y - sp.Max(sp.sqrt(x), 0), [-1.0, 0.0, 0.0, 0.0])])
def test_undefined_values_are_named_errors(constraint, state):
    s = ig.ConstrainedHamiltonianSystem(PLANE, [x, y], [px, py], [constraint])
    with pytest.raises(GeomcheckError) as info:
        s.check_state(np.array([state]))
    assert isinstance(info.value, InconsistentStateError) and info.value.trajectory == 0


def test_the_shared_check_directly():
    """Residuals and messages of the caller's choosing; the system gives the coordinates and constants."""
    s = planar_pendulum(length=l)
    circle = {"g_1": (x**2 + y**2 - l**2, "the circle")}
    G = sp.Matrix([[2 * x, 2 * y]])
    singular = "trajectory {trajectory}: {matrix} is singular"
    states = [[0.6, 0.8, 5, 5], [-1.0, 0.0, 5, 5]]
    check_states_on_manifold(s, states, {l: 1}, 1e-10, circle, G * G.T, "G G^T", singular)
    with pytest.raises(InconsistentStateError, match=r"^trajectory 0: \[\[0\.0\]\] is singular$"):
        check_states_on_manifold(s, [0.0, 0.0, 5, 5], {l: 0}, 1e-10, circle, G * G.T, "G G^T", singular)
    with pytest.raises(InconsistentStateError, match=r"the circle is 0\.438 \(tolerance 1e-10\)") as info:
        check_states_on_manifold(s, [0.6, 0.8, 5, 5], {l: sp.Rational(3, 4)}, 1e-10, circle, G * G.T, "G G^T", singular)
    assert info.value.value == pytest.approx(7 / 16, rel=1e-15)         # 1 - (3/4)^2
    check_states_on_manifold(s, [5.0, 5.0, 5, 5], None, 1e-10, circle, G * G.T, "G G^T", singular)   # l unknown


# -- the stability interval lowered by codegen -------------------------------------------------------------

def test_scaled_verlet_interval():
    """Verlet at the step sqrt(2) h is stable iff sqrt(2) h omega < 2: x_max = sqrt(2) (grid + 40-digit bisection)."""
    scaled = ig.Composition(ig.scheme("stormer-verlet"), [sp.sqrt(2)], name="verlet-sqrt2-test")
    assert abs(float(stability_interval(scaled)) - np.sqrt(2)) < 2e-14


def test_irrational_one_stage_interval():
    """A 3-stage explicit RK of order 3 with c2 = sqrt(2)/2 (irrational: the grid + bisection path).

    Every such method has R(z) = 1 + z + z^2/2 + z^3/6 (checked here from the tableau), and
    |R(iy)|^2 = 1 - y^4/12 + y^6/36 <= 1 iff y <= sqrt(3): x_max = sqrt(3).
    """
    c2 = sp.sqrt(2) / 2
    b2, b3, a32 = sp.symbols("b2 b3 a32")
    order3 = [b2 * c2 + b3 - sp.Rational(1, 2), b2 * c2**2 + b3 - sp.Rational(1, 3), b3 * a32 * c2 - sp.Rational(1, 6)]
    sol = sp.solve(order3, [b2, b3, a32], dict=True)[0]
    B2, B3, A32 = [sp.radsimp(sol[v]) for v in (b2, b3, a32)]
    A = sp.Matrix([[0, 0, 0], [c2, 0, 0], [1 - A32, A32, 0]])
    b = sp.Matrix([1 - B2 - B3, B2, B3])
    zz, yy = sp.symbols("z y", real=True)
    R = sp.simplify(1 + zz * (b.T * (sp.eye(3) - zz * A).inv() * sp.ones(3, 1))[0])
    assert sp.expand(R - (1 + zz + zz**2 / 2 + zz**3 / 6)) == 0
    assert sp.expand(sp.Abs(R.subs(zz, sp.I * yy))**2 - (1 - yy**4 / 12 + yy**6 / 36)) == 0
    rk = ig.RungeKutta(A.tolist(), list(b), name="rk3-sqrt2-test")
    x_max = stability_interval(rk)
    assert x_max <= sp.sqrt(3) and float(sp.sqrt(3) - x_max) < 2e-14
