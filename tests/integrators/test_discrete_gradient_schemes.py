"""Discrete-gradient schemes (average vector field, Gonzalez, Itoh-Abe): certificates, numbers, guards."""

import warnings

import mpmath
import numpy as np
import pytest
import sympy as sp

import integrators as ig
from geomcheck.latex import compile_pdf, document
from integrators.errors import SchemeNotApplicableError
from integrators.lower import lower, lower_expressions
from integrators.schemes.discrete_gradient import DiscreteGradientScheme, avf_closed_form, discrete_gradient
from integrators.schemes.quotients import divided_difference, gonzalez_quotient

q, p, h, xi = sp.symbols("q p h xi")
q1, q2, p1, p2 = sp.symbols("q1 q2 p1 p2")
V, W = sp.Function("V"), sp.Function("W")
NAMES = ["average-vector-field", "gonzalez", "itoh-abe"]

PENDULUM = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q), q, p)
DOUBLE = ig.HamiltonianSystem((p1**2 + p2**2) / 2 - 2 * sp.cos(q1) - sp.cos(q1 - q2), [q1, q2], [p1, p2])
GENERIC_2DOF = ig.HamiltonianSystem((p1**2 + p2**2) / 2 + V(q1, q2), [q1, q2], [p1, p2])


def energy_drift(system, name, y0, dt, steps, **options):
    sol = ig.integrate(system, name, y0, dt=dt, steps=steps, save_every=steps, **options)
    E = sol.energy()
    return np.abs(E[-1] - E[0]).max()


# ------------------------------------------------------------------ energy, numerically


@pytest.mark.parametrize("name", NAMES)
def test_energy_is_preserved_to_rounding_over_long_numpy_runs(name):
    y0 = [[1.0, 0.0], [2.0, 0.5], [3.0, 0.0], [-1.0, 1.5]]
    # 1500 steps of h = 0.1 (about 20 periods): the error is the rounding of the state and of H
    assert energy_drift(PENDULUM, name, y0, 0.1, 1500, compensated=True) < 1e-14
    if name == "average-vector-field":
        assert energy_drift(PENDULUM, name, y0, 0.1, 1500) < 2e-14
        # the same run with the implicit midpoint rule (symplectic, not energy-preserving) drifts
        assert energy_drift(PENDULUM, "implicit-midpoint", y0, 0.1, 1500) > 1e-4


@pytest.mark.parametrize("name", NAMES)
def test_energy_is_preserved_on_two_degrees_of_freedom(name):
    y0 = [[0.5, 0.0, 0.0, 0.0], [1.0, -1.0, 0.25, 0.0], [0.0, 0.0, 0.0, 0.0]]
    assert energy_drift(DOUBLE, name, y0, 0.05, 400, compensated=True) < 1e-14


@pytest.mark.parametrize("name", NAMES)
def test_energy_is_preserved_to_45_digits_at_50_digits(name):
    sol = ig.integrate(PENDULUM, name, [[1, 0], [2, "0.5"]], dt="0.1", steps=200, save_every=200,
                       backend="mpmath", dps=50)
    E = sol.energy()
    assert max(abs(a - b) for a, b in zip(E[-1], E[0])) < mpmath.mpf(10) ** -45


# ------------------------------------------------------------------ coinciding points


@pytest.mark.parametrize("name", NAMES)
def test_equilibrium_and_turning_points_give_finite_exact_results(name):
    """At (0, 0) every increment is 0 (0/0 in every quotient): the state stays exactly put."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")        # no 0/0 evaluated, not even in an unused branch
        sol = ig.integrate(PENDULUM, name, [[0.0, 0.0], [1.0, 0.0], [1e-9, 0.0]], dt=0.1, steps=50,
                           save_every=50)
        assert np.all(np.isfinite(sol.y))
        assert sol.y[-1, 0].tolist() == [0.0, 0.0]
        assert np.abs(sol.energy()[-1] - sol.energy()[0]).max() < 1e-15
        two = ig.integrate(DOUBLE, name, [[0.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]], dt=0.1, steps=20,
                           save_every=20)
        assert two.y[-1, 0].tolist() == [0.0, 0.0, 0.0, 0.0] and np.all(np.isfinite(two.y))
    mp = ig.integrate(PENDULUM, name, [[0, 0], [1, 0]], dt="0.1", steps=5, save_every=5, backend="mpmath", dps=40)
    assert mp.y[-1, 0, 0] == 0 and mp.y[-1, 0, 1] == 0
    E = mp.energy()
    assert abs(E[-1][1] - E[0][1]) < mpmath.mpf(10) ** -36


def test_the_first_newton_iterate_at_a_turning_point_is_finite():
    # the guess w = X(y) has w_q = p = 0: the q-quotient is 0/0 at the first iterate
    phi = ig.scheme("average-vector-field").step_map(PENDULUM)
    L = lower(phi)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = L.residual.kernel(L.residual.scalars(0.1), np.array([1.0]), np.array([0.0]),
                                np.array([0.0]), np.array([-np.sin(1.0)]))
    assert all(np.all(np.isfinite(r)) for r in res)


# ------------------------------------------------------------------ the evaluation rule


def _relative_errors(Q, f_exact, y0, deltas, backend, dps=60):
    y, w = sp.symbols("y w")
    K = lower_expressions([Q.evaluation()], [y, w], [h], backend=backend)
    errors = []
    for d in deltas:
        if d == 0:
            exact = f_exact(y0, None)
        else:
            exact = f_exact(y0, d)
        if backend == "numpy":
            (val,) = K.kernel(K.scalars(1.0), np.array([float(y0)]), np.array([float(d)]))
            errors.append(abs(float(np.ravel(val)[0]) - float(exact)) / abs(float(exact)))
        else:
            with mpmath.workdps(dps):
                (val,) = K.kernel(K.scalars(mpmath.mpf(1)), mpmath.mpf(y0), mpmath.mpf(d))
                errors.append(abs(val - exact) / abs(exact))
    return errors


DELTAS = [sp.Rational(3, 7) / 10**k for k in (0, 1, 2, 3, 5, 8, 12, 20, 40, 80)] + [0]


@pytest.mark.parametrize("f", [-sp.cos(xi), sp.exp(3 * xi), sp.atan(xi)], ids=["cos", "exp", "atan"])
def test_guarded_divided_difference_equals_the_exact_one_near_coincidence(f):
    """The evaluation rule against (f(y + d) - f(y)) / d at 200 digits (f'(y) at d = 0)."""
    y, w = sp.symbols("y w")
    Q = divided_difference(f.subs(xi, xi), xi, y + h * w, y, h * w)
    fl = sp.lambdify(xi, f, "mpmath")
    dfl = sp.lambdify(xi, sp.diff(f, xi), "mpmath")

    def exact(y0, d):
        with mpmath.workdps(200):
            y0 = mpmath.mpf(sp.Rational(y0).p) / sp.Rational(y0).q
            if d is None:
                return dfl(y0)
            d = mpmath.mpf(d.p) / d.q
            return (fl(y0 + d) - fl(y0)) / d

    y0 = sp.Rational(5, 8)
    assert max(_relative_errors(Q, exact, y0, DELTAS, "mpmath")) < 1e-55
    assert max(_relative_errors(Q, exact, y0, DELTAS, "numpy")) < 1e-15
    # the exact quotient alone loses everything near coincidence, and is 0/0 at d = 0
    d = 1e-12
    naive = (-np.cos(0.625 + d) + np.cos(0.625)) / d if f == -sp.cos(xi) else None
    if naive is not None:
        assert abs(naive - float(exact(y0, sp.Rational(1, 10**12)))) > 1e-6


def test_guarded_gonzalez_correction_equals_the_exact_one_near_coincidence():
    """c = (H(u) - H(v) - H'(m) d) / d^2 for H = -cos, d = u - v: 0/0 at d = 0, O(d) near it.

    What enters the gradient is c d (O(d^2)): its error, against c d at 500 digits, is the
    error of the scheme's gbar.
    """
    y, w = sp.symbols("y w")
    Q = gonzalez_quotient(-sp.cos(xi), [xi], [y], [w], h)
    K = {b: lower_expressions([Q.evaluation()], [y, w], [h], backend=b) for b in ("numpy", "mpmath")}
    with mpmath.workdps(60):
        Km = K["mpmath"]
        assert Km.kernel(Km.scalars(mpmath.mpf(1)), mpmath.mpf("0.625"), mpmath.mpf(0))[0] == 0
    worst = {"numpy": 0, "mpmath": 0}
    for d in DELTAS[:-1]:
        with mpmath.workdps(500):
            y0, dd = mpmath.mpf(5) / 8, mpmath.mpf(d.p) / d.q
            exact = (-mpmath.cos(y0 + dd) + mpmath.cos(y0) - mpmath.sin(y0 + dd / 2) * dd) / dd**2
        with mpmath.workdps(60):
            val = Km.kernel(Km.scalars(mpmath.mpf(1)), mpmath.mpf(5) / 8, dd)[0]
            worst["mpmath"] = max(worst["mpmath"], abs((val - exact) * dd))
        Kn = K["numpy"]
        (val,) = Kn.kernel(Kn.scalars(1.0), np.array([0.625]), np.array([float(d)]))
        worst["numpy"] = max(worst["numpy"], abs((float(np.ravel(val)[0]) - float(exact)) * float(d)))
    assert worst["mpmath"] < 1e-57 and worst["numpy"] < 1e-16, worst


# ------------------------------------------------------------------ certificates


@pytest.mark.parametrize("name", NAMES)
def test_certified_on_the_generic_system_and_one_map_is_lowered(name):
    generic = ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
    s = ig.scheme(name)
    certs = s.certify(generic)
    assert all(c.holds is True for c in certs.values()), {k: c.method for k, c in certs.items()}
    assert "Taylor terms" in certs["order"].method
    # the map that is lowered is the one certified: its equations are the exact quotients
    phi = s.step_map(PENDULUM)
    assert lower(phi).phi is phi
    assert not any(e.has(sp.Piecewise) for e in phi.equations)
    assert any(e.has(sp.Piecewise) for e in phi.evaluation_equations)


def test_symmetric_schemes_are_symmetric_and_itoh_abe_is_not():
    general = ig.HamiltonianSystem(W(q, p), q, p)
    coupled = ig.HamiltonianSystem(p**2 / 2 - sp.cos(q) + q**2 * p / 8, q, p)     # not separable
    assert ig.scheme("average-vector-field").certify(DOUBLE, ["symmetric"])["symmetric"].holds is True
    for name in ("average-vector-field", "gonzalez"):
        assert ig.scheme(name).certify(coupled, ["symmetric"])["symmetric"].holds is True
    assert ig.scheme("itoh-abe").certify(coupled, ["symmetric"])["symmetric"].holds is False
    c = ig.scheme("itoh-abe").certify(general, ["symmetric"])["symmetric"]
    assert c.holds is False and c.counterexample


def test_orders_are_exact():
    general = ig.HamiltonianSystem(W(q, p), q, p)
    generic = ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
    assert ig.scheme("average-vector-field").observed_order(generic) == 2
    assert ig.scheme("itoh-abe").observed_order(general) == 1
    # on a separable H with one degree of freedom Itoh-Abe IS the average vector field
    assert ig.scheme("itoh-abe").observed_order(generic) == 2


def test_energy_certified_on_several_degrees_of_freedom():
    # Gonzalez on the generic V(q1, q2) certifies as well, in 6 to 20 s (the zero test's Newton
    # iteration through the jets of V): left out of the default run
    c = ig.scheme("itoh-abe").certify(GENERIC_2DOF, ["energy-preserving"])["energy-preserving"]
    assert c.holds is True, c.method
    for name in ("average-vector-field", "gonzalez"):
        c = ig.scheme(name).certify(DOUBLE, ["energy-preserving"])["energy-preserving"]
        assert c.holds is True, (name, c.method)


def test_the_gradients_are_geomchecks_discrete_gradients():
    generic = ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
    for name in NAMES:
        assert ig.scheme(name).certify_gradient(generic).holds is True, name
    assert ig.scheme("itoh-abe").certify_gradient(GENERIC_2DOF).holds is True
    # and they are the same functions as geomcheck's own constructions
    from geomcheck.certify.discrete_gradients import gonzalez_gradient, itoh_abe_gradient
    from geomcheck.zero import decide_all_zero

    u, v = sp.symbols("u1:5"), sp.symbols("v1:5")
    for kind, ref, H, x in (("gonzalez", gonzalez_gradient, q**3 * p + sp.sin(q) * p**2, [q, p]),
                            ("itoh-abe", itoh_abe_gradient, GENERIC_2DOF.H, [q1, q2, p1, p2])):
        u_, v_ = u[:len(x)], v[:len(x)]
        mine = discrete_gradient(kind, H, x, v_, [a - b for a, b in zip(u_, v_)], 1).exact()
        theirs = ref(H, x, u_, v_)
        assert decide_all_zero([a - b for a, b in zip(mine, theirs)]).is_zero is True


def test_avf_closed_forms_and_refusals():
    P, groups = avf_closed_form(DOUBLE.H, DOUBLE.coords)
    assert P == (p1**2 + p2**2) / 2 and len(groups) == 2
    with pytest.raises(SchemeNotApplicableError, match=r"V\(q1, q2\).*gonzalez or itoh-abe"):
        ig.scheme("average-vector-field").step_map(GENERIC_2DOF)
    coupled = ig.HamiltonianSystem(p**2 * sp.cos(q) / 2, q, p)
    with pytest.raises(SchemeNotApplicableError, match=r"p\*\*2\*cos\(q\)"):
        ig.scheme("average-vector-field").step_map(coupled)
    # the exact gradients apply to every H
    assert ig.scheme("gonzalez").why_not(coupled) is None and ig.scheme("itoh-abe").why_not(GENERIC_2DOF) is None


def test_polynomial_energies_have_no_guards():
    quartic = ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)
    for name in ("average-vector-field", "itoh-abe"):
        phi = ig.scheme(name).step_map(quartic)
        assert not phi.quotients
    sol = ig.integrate(quartic, "average-vector-field", [[1.0, 0.0], [0.0, 0.0]], dt=0.1, steps=500,
                       save_every=500, compensated=True)
    assert np.abs(sol.energy()[-1] - sol.energy()[0]).max() < 1e-15


def test_bad_input():
    x, z = sp.symbols("x z")
    contact = ig.ContactSystem(p**2 / 2 + x**2 / 2 + z, x, p, z)
    for name in NAMES:
        with pytest.raises(SchemeNotApplicableError, match="contact system"):
            ig.scheme(name).step_map(contact)
    from integrators.forced import ForcedHamiltonianSystem

    forced = ForcedHamiltonianSystem(p**2 / 2 + q**2 / 2, [q], [p], force=[-q**3])
    with pytest.raises(SchemeNotApplicableError, match="not a HamiltonianSystem"):
        ig.scheme("gonzalez").step_map(forced)
    with pytest.raises(ValueError, match="gradient must be one of"):
        DiscreteGradientScheme("midpoint")
    with pytest.raises(ValueError, match="unknown discrete gradient"):
        discrete_gradient("midpoint", q**2, [q], [q], [p], h)
    with pytest.raises(ValueError, match="Taylor terms"):
        divided_difference(sp.cos(xi), xi, q, p, q - p).expansion(99)


def test_piecewise_lowers_on_batched_arrays():
    """integrators.lower hoists scalar parts out of Piecewise branches without breaking them."""
    a = sp.Symbol("a")
    e = sp.Piecewise((h / 3 * a, a > h), (h**2, True)) + sp.Piecewise((1, sp.Ne(h, 0)), (0, True))
    K = lower_expressions([e], [a], [h])
    out = K.kernel(K.scalars(0.5), np.array([0.25, 1.0]))[0]
    assert np.allclose(out, [1.25, 1.0 + 0.5 / 3])
    Km = lower_expressions([e], [a], [h], backend="mpmath")
    with mpmath.workdps(30):
        assert Km.kernel(Km.scalars(mpmath.mpf("0.5")), mpmath.mpf(1))[0] == 1 + mpmath.mpf("0.5") / 3


@pytest.mark.needs_pdflatex
def test_certificates_typeset(tmp_path):
    generic = ig.HamiltonianSystem(p**2 / 2 + V(q), q, p)
    certs = ig.scheme("gonzalez").certify(generic)
    body = "".join(c.latex() for c in certs.values())
    compile_pdf(document(body), str(tmp_path / "dg.pdf"))
