"""Kahan's method: its structure, as B-series statements and as statements about concrete maps.

Source: E. Celledoni, R. I. McLachlan, B. Owren, G. R. W. Quispel, "Geometric properties of
Kahan's method", J. Phys. A 46 (2013) 025201 (arXiv:1209.1164), abstract: Kahan's
discretization of a quadratic field ``f(x) = Q(x) + B x + c``,

    (x' - x)/h = Q(x, x') + B (x + x')/2 + c          (Q(x, x') the polarized quadratic form),

equals the Runge-Kutta method ``x' = x + h(-f(x)/2 + 2 f((x + x')/2) - f(x')/2)``; for a
Hamiltonian field ``f = K grad H`` (``K`` constant, skew; ``H`` cubic) the map conserves the
modified Hamiltonian ``H~ = H + (h/3) grad H^T (I - h/2 f')^{-1} f`` and the measure
``dx / det(I - h/2 f'(x))``.  Celledoni, McLachlan, McLaren, Owren, Quispel, "Discretization of
polynomial vector fields by polarization", Proc. R. Soc. A 471 (2015) (arXiv:1506.03855),
section 1, restates both ("preserves a (modified) measure and energy when applied to quadratic
Hamiltonian vector fields").

Everything asserted here is established independently of geomcheck's engine:

* the map is built with plain sympy from the polarized definition (a linear solve for ``x'``),
  and compared with the RK form and with ``x + h (I - h/2 f')^{-1} f``;
* every map certificate (``certify_conserves``, ``certify_preserves``, ``certify_symplectic``)
  is re-checked with plain sympy on the explicit rational map (``cancel`` to 0, or a nonzero
  value at a rational point);
* the B-series verdicts (``is_symmetric``, ``is_symplectic``, ``is_energy_preserving``) are
  re-derived from the tableau by hand (the failing residual), and their consequence on a
  quadratic field is checked on the concrete map (a Taylor coefficient, a Jacobian).

Quadratic fields see only the trees whose vertices have at most two children (``f''' = 0``).
The conjugate-symplecticity check fails at order 5 through a combination that contains the
tree ``[tau^3]`` (three children): that verdict says nothing about quadratic fields, and no
claim is made about them beyond order 4.

Cost: about 4.5 s CPU single process (measured at load average 7 on 2 cores: 7.1 s user with
the 2.5 s of imports and collection).
"""

from __future__ import annotations

import pytest
import sympy
from sympy import Rational as R

import geomcheck as gc
from geomcheck.bseries import evaluate, kahan
from geomcheck.bseries.conjugate import is_conjugate_symplectic
from geomcheck.bseries.energy import is_energy_preserving
from geomcheck.bseries.properties import is_symmetric, is_symplectic, order_of

H_SYM = sympy.Symbol("h")
KAHAN_COEFFICIENT = R(1, 3)          # H~ = H + (h/3) grad H^T (I - h/2 f')^{-1} f
POINTS_1DOF = [(R(1, 3), R(-2, 5)), (R(-3, 7), R(5, 11)), (R(2, 9), R(1, 4))]
POINTS_2DOF = [(R(1, 3), R(-1, 5), R(2, 7), R(1, 2)), (R(-1, 4), R(2, 9), R(-3, 5), R(1, 6))]


# --------------------------------------------------------------------------- plain sympy helpers


def hamiltonian_field(H, coords):
    """``f = J grad H`` with the canonical ``J`` (coordinates ``q...`` then ``p...``)."""
    n = len(coords) // 2
    grad = [H.diff(v) for v in coords]
    return sympy.Matrix(grad[n:] + [-g for g in grad[:n]])


def polarized_kahan_map(f, x, h):
    """Kahan's map from its definition: solve ``(x'-x)/h = Q(x,x') + B(x+x')/2 + c`` for ``x'``."""
    n = len(x)
    new = sympy.symbols(f"kahan_new0:{n}")
    scale = sympy.Dummy("s")
    # homogeneous parts of each component: f(s x) = c + s B x + s^2 Q(x)
    parts = [sympy.Poly(sympy.expand(fi.subs({v: scale * v for v in x}, simultaneous=True)), scale) for fi in f]
    if any(p.degree() > 2 for p in parts):
        raise ValueError("Kahan's method is defined for quadratic fields")
    c = [p.coeff_monomial(1) for p in parts]
    Bx = [p.coeff_monomial(scale) for p in parts]
    Qx = [p.coeff_monomial(scale**2) for p in parts]

    def at(expr, y):
        return expr.subs(dict(zip(x, y)), simultaneous=True)

    plus = [a + b for a, b in zip(x, new)]
    eqs = []
    for i in range(n):
        Q_pol = (at(Qx[i], plus) - Qx[i] - at(Qx[i], new)) / 2
        eqs.append(sympy.expand((new[i] - x[i]) / h - Q_pol - (Bx[i] + at(Bx[i], new)) / 2 - c[i]))
    (sol,) = sympy.linsolve(eqs, new)
    return [sympy.cancel(s) for s in sol]


def kahan_rk_residual(f, x, y1, h):
    """``y1 - x - h(-f(x)/2 + 2 f((x+y1)/2) - f(y1)/2)``: the Runge-Kutta form."""

    def at(y):
        return f.subs(dict(zip(x, y)), simultaneous=True)

    mid = [(a + b) / 2 for a, b in zip(x, y1)]
    return sympy.Matrix(y1) - sympy.Matrix(x) - h * (-at(x) / 2 + 2 * at(mid) - at(y1) / 2)


def resolvent(f, x, h):
    """``W = I - h/2 f'(x)``."""
    return sympy.eye(len(x)) - h / 2 * f.jacobian(sympy.Matrix(x))


def modified_energy(H, f, x, h, coefficient=KAHAN_COEFFICIENT):
    """``H + coefficient * h grad H^T (I - h/2 f')^{-1} f`` (CMOQ 2013: coefficient 1/3)."""
    grad = sympy.Matrix([H.diff(v) for v in x])
    return H + coefficient * h * sympy.cancel((grad.T * resolvent(f, x, h).LUsolve(f))[0])


def on_map(expr, x, image):
    return expr.subs(dict(zip(x, image)), simultaneous=True)


# --------------------------------------------------------------------------- systems


@pytest.fixture(scope="module")
def one_dof():
    M = gc.Chart("q p")
    q, p = M.coords
    H = p**2 / 2 + q**2 / 2 + q**3 / 3
    x = list(M.coords)
    f = hamiltonian_field(H, x)
    image = polarized_kahan_map(f, x, H_SYM)
    return M, x, H, f, image


def henon_heiles(h):
    """Henon-Heiles: H = (p1^2 + p2^2)/2 + (q1^2 + q2^2)/2 + q1^2 q2 - q2^3/3, and Kahan's map at step h (if given)."""
    M = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M.coords
    H = (p1**2 + p2**2) / 2 + (q1**2 + q2**2) / 2 + q1**2 * q2 - q2**3 / 3
    x = list(M.coords)
    f = hamiltonian_field(H, x)
    return M, x, H, f, None if h is None else polarized_kahan_map(f, x, h)


@pytest.fixture(scope="module")
def hh_fixed_step():
    return henon_heiles(R(1, 5))


# --------------------------------------------------------------------------- the method itself


def test_polarized_definition_equals_the_rk_form_and_the_resolvent_form(one_dof):
    _M, x, _H, f, image = one_dof
    h = H_SYM
    # the RK form of CMOQ 2013, exactly (h symbolic)
    assert all(sympy.cancel(r) == 0 for r in kahan_rk_residual(f, x, image, h))
    # x' = x + h (I - h/2 f'(x))^{-1} f(x)
    step = resolvent(f, x, h).LUsolve(f)
    assert all(sympy.cancel(image[i] - x[i] - h * step[i]) == 0 for i in range(2))


def test_the_package_series_is_the_taylor_expansion_of_the_map(one_dof):
    # geomcheck.bseries.kahan (the RK tableau) against the Taylor expansion of the polarized map
    _M, x, _H, f, image = one_dof
    h = H_SYM
    truncated = evaluate(kahan(4), [sympy.expand(fi) for fi in f], h, x).exprs
    for exact, series in zip(image, truncated):
        diff = sympy.series(exact - series, h, 0, 5).removeO()
        assert sympy.expand(diff) == 0


def test_linearly_implicit_and_only_for_quadratic_fields(one_dof):
    _M, x, _H, f, _image = one_dof
    new = sympy.symbols("Y0 Y1")
    residual = kahan_rk_residual(f, x, list(new), H_SYM)
    # the quadratic terms in the new point cancel: one linear solve per step
    assert [sympy.Poly(r, *new).total_degree() for r in residual] == [1, 1]
    q, p = x
    quartic = hamiltonian_field(p**2 / 2 + q**4 / 4, x)
    residual = kahan_rk_residual(quartic, x, list(new), H_SYM)
    assert max(sympy.Poly(r, *new).total_degree() for r in residual) == 3      # no longer linear
    with pytest.raises(ValueError, match="quadratic"):
        polarized_kahan_map(quartic, x, H_SYM)


# --------------------------------------------------------------------------- B-series statements


def _quadratic_visible(t) -> bool:
    """Every vertex has at most two children: the trees a quadratic field does not annihilate."""
    return len(t.children) <= 2 and all(_quadratic_visible(u) for u in t.children)


A_KAHAN = [[0, 0, 0], [R(-1, 4), 1, R(-1, 4)], [R(-1, 2), 2, R(-1, 2)]]
B_KAHAN = [R(-1, 2), 2, R(-1, 2)]


def test_symmetric_as_b_series_and_as_a_map(one_dof):
    assert is_symmetric(kahan(6), 6).holds is True
    # by hand: the adjoint tableau (e b^T - P A P, P b) of the RK form is the same tableau
    s = 3
    adjoint_A = [[B_KAHAN[j] - A_KAHAN[s - 1 - i][s - 1 - j] for j in range(s)] for i in range(s)]
    assert adjoint_A == A_KAHAN and B_KAHAN[::-1] == B_KAHAN
    # the map: phi_{-h} o phi_h = id, exactly (h symbolic)
    _M, x, _H, _f, image = one_dof
    back = [on_map(e.subs(H_SYM, -H_SYM), x, image) for e in image]
    assert [sympy.cancel(b - v) for b, v in zip(back, x)] == [0, 0]


def test_not_symplectic_on_a_quadratic_visible_pair_and_on_a_concrete_cubic(one_dof):
    c = is_symplectic(kahan(3), 3)
    assert c.holds is False
    u, v = c.counterexample["pair"]
    assert (str(u), str(v)) == ("τ", "[τ]")
    assert all(_quadratic_visible(t) for t in c.counterexample["trees"])
    # by hand: a(tau o [tau]) + a([tau] o tau) - a(tau) a([tau]) = b.Ac + b.c^2 - (b.e)(b.c)
    cc = [sum(row) for row in A_KAHAN]
    Ac = [sum(a * cj for a, cj in zip(row, cc)) for row in A_KAHAN]
    bAc = sum(b * y for b, y in zip(B_KAHAN, Ac))
    bc2 = sum(b * y**2 for b, y in zip(B_KAHAN, cc))
    bc = sum(b * y for b, y in zip(B_KAHAN, cc))
    assert bAc + bc2 - sum(B_KAHAN) * bc == c.counterexample["residual"] == R(-1, 4)
    # the map on H = p^2/2 + q^2/2 + q^3/3: in one degree of freedom symplectic = det(D phi) = 1
    M, x, _H, _f, image = one_dof
    q, p = x
    assert gc.certify_symplectic(gc.Map(M, M, image), M.d(q) ^ M.d(p)).holds is False
    det = sympy.Matrix(image).jacobian(sympy.Matrix(x)).det()
    assert det.subs({q: R(1, 3), p: R(-2, 5), H_SYM: R(1, 2)}) != 1


def test_energy_error_is_h_cubed_on_a_quadratic_visible_tree_and_on_a_concrete_cubic(one_dof):
    k = kahan(4)
    assert is_energy_preserving(k, 2).holds is True
    c = is_energy_preserving(k, 3)
    assert c.holds is False
    assert all(_quadratic_visible(t) for t in c.counterexample["trees"])
    # the map: H(phi(x)) - H(x) = O(h^3) with a nonzero h^3 coefficient (plain Taylor expansion)
    _M, x, H, _f, image = one_dof
    err = sympy.series(on_map(H, x, image) - H, H_SYM, 0, 4).removeO()
    coeffs = [sympy.expand(err.coeff(H_SYM, k)) for k in range(4)]
    assert coeffs[:3] == [0, 0, 0]
    assert coeffs[3].subs(dict(zip(x, POINTS_1DOF[0]))) != 0


def test_conjugate_symplectic_verdict_beyond_order_4_is_not_about_quadratic_fields():
    k = kahan(5)
    assert order_of(k).order == 2
    assert is_conjugate_symplectic(k, 4).holds is True
    c = is_conjugate_symplectic(k, 5)
    assert c.holds is False
    trees = {t for pair in c.counterexample["combination"] for t in pair}
    # the obstruction involves f''' (a vertex with three children), which vanishes on quadratic
    # fields: the False is a statement about general fields only
    assert not all(_quadratic_visible(t) for t in trees)


# --------------------------------------------------------------------------- map statements, one degree of freedom


def test_modified_energy_conserved_exactly_one_dof(one_dof):
    M, x, H, f, image = one_dof
    Ht = modified_energy(H, f, x, H_SYM)
    phi = gc.Map(M, M, image)
    assert gc.certify_conserves(phi, Ht).holds is True
    # plain sympy at rational points: H~(phi(x)) - H~(x) is the zero rational function of h
    for pt in POINTS_1DOF:
        at_pt = dict(zip(x, pt))
        assert sympy.cancel(on_map(Ht, x, [e.subs(at_pt) for e in image]) - Ht.subs(at_pt)) == 0


def test_wrong_modified_energy_and_the_plain_energy_are_refuted(one_dof):
    M, x, H, f, image = one_dof
    phi = gc.Map(M, M, image)
    for wrong in (modified_energy(H, f, x, H_SYM, R(1, 4)), H):
        c = gc.certify_conserves(phi, wrong)
        assert c.holds is False
        pt = {gc_sym: c.counterexample[str(gc_sym)] for gc_sym in (*x, H_SYM)}
        assert (on_map(wrong, x, image) - wrong).subs(pt) != 0       # a genuine counterexample


def test_modified_measure_preserved_one_dof(one_dof):
    M, x, _H, f, image = one_dof
    q, p = x
    m = 1 / resolvent(f, x, H_SYM).det()
    phi = gc.Map(M, M, image)
    assert gc.certify_preserves(phi, m * (M.d(q) ^ M.d(p))).holds is True
    # plain sympy: m(phi(x)) det D phi(x) = m(x), identically in x and h
    jac = sympy.Matrix(image).jacobian(sympy.Matrix(x)).det()
    assert sympy.cancel(on_map(m, x, image) * jac - m) == 0
    # a wrong density (h instead of h/2) and Lebesgue measure are not preserved
    wrong = 1 / (sympy.eye(2) - H_SYM * f.jacobian(sympy.Matrix(x))).det()
    for density in (wrong, sympy.Integer(1)):
        assert gc.certify_preserves(phi, density * (M.d(q) ^ M.d(p))).holds is False
        assert sympy.cancel(on_map(density, x, image) * jac - density) != 0


def test_quartic_hamiltonian_is_not_claimed():
    # H = p^2/2 + q^4/4: f is cubic, Kahan's method is not defined; its RK form is an implicit
    # map that does NOT conserve the formula's H~ (plain Taylor expansion by fixed-point iteration)
    M = gc.Chart("q p")
    q, p = M.coords
    x = [q, p]
    h = H_SYM
    H = p**2 / 2 + q**4 / 4
    f = hamiltonian_field(H, x)
    Ht = modified_energy(H, f, x, h)
    # the drift H~(y1) - H~(x) at x = (1/2, 1/3), as a polynomial in h truncated after h^5
    # ((I - h/2 f')^{-1} by its Neumann series): zero through h^4, p^3 q^3 / 6 at h^5
    order = 6
    pt = {q: R(1, 2), p: R(1, 3)}
    x0 = sympy.Matrix([pt[q], pt[p]])

    def trunc(e):
        return sum((c * h**k for (k,), c in sympy.Poly(sympy.expand(e), h).terms() if k < order), sympy.Integer(0))

    def f_at(y):
        return f.subs(dict(zip(x, y)), simultaneous=True)

    def modified_energy_truncated(y):
        fy = f_at(y)
        fp = f.jacobian(sympy.Matrix(x)).subs(dict(zip(x, y)), simultaneous=True)
        term, total = fy, fy
        for _ in range(order):
            term = (h / 2 * fp * term).applyfunc(trunc)
            total += term
        grad = sympy.Matrix([H.diff(v) for v in x]).subs(dict(zip(x, y)), simultaneous=True)
        return trunc(H.subs(dict(zip(x, y)), simultaneous=True) + h / 3 * (grad.T * total)[0])

    y = x0
    for _ in range(order + 1):      # y1 = x + h Phi(x, y1): each sweep fixes one more power of h
        y = (x0 + h * (-f_at(x0) / 2 + 2 * f_at((x0 + y) / 2) - f_at(y) / 2)).applyfunc(trunc)
    drift = sympy.expand(modified_energy_truncated(y) - modified_energy_truncated(x0))
    assert [drift.coeff(h, k) for k in range(5)] == [0] * 5
    assert drift.coeff(h, 5) == (pt[p] * pt[q]) ** 3 / 6 != 0
    new = sympy.symbols("Q P")
    imp = gc.ImplicitMap(M, M, [sympy.expand(r) for r in kahan_rk_residual(f, x, list(new), h)], new=list(new))
    assert gc.certify_conserves(imp, Ht).holds is not True


# --------------------------------------------------------------------------- map statements, Henon-Heiles


def test_henon_heiles_modified_energy_and_measure(hh_fixed_step):
    M, x, H, f, image = hh_fixed_step
    hv = R(1, 5)
    phi = gc.Map(M, M, image)
    Ht = modified_energy(H, f, x, hv)
    assert gc.certify_conserves(phi, Ht).holds is True
    volume = M.d(x[0]) ^ M.d(x[1]) ^ M.d(x[2]) ^ M.d(x[3])
    m = 1 / resolvent(f, x, hv).det()
    assert gc.certify_preserves(phi, m * volume).holds is True


@pytest.mark.parametrize("hv", [R(-2, 3)])
def test_henon_heiles_plain_sympy_at_rational_points(hv):
    # plain sympy at rational points, for steps other than the certified one: the new point by one
    # rational linear solve of the RK form, D phi by the implicit function theorem on that form
    # (D phi = -G_y^{-1} G_x for G(x, y) = y - x - h Phi(x, y)).  H~ is conserved (H and H~ with h/4
    # are not), m(phi x) det D phi(x) = m(x), and D phi^T J D phi != J (not symplectic).
    _M, x, H, f, _ = henon_heiles(None)
    new = sympy.symbols("Y0:4")
    G = kahan_rk_residual(f, x, list(new), hv)
    Gx, Gy = G.jacobian(sympy.Matrix(x)), G.jacobian(sympy.Matrix(new))
    fprime = f.jacobian(sympy.Matrix(x))
    grad = sympy.Matrix([H.diff(v) for v in x])
    J = sympy.Matrix([[0, 0, 1, 0], [0, 0, 0, 1], [-1, 0, 0, 0], [0, -1, 0, 0]])

    def at(expr, point):
        return expr.subs(dict(zip(x, point)), simultaneous=True)

    def modified(point, coefficient):          # H + c h grad H^T (I - h/2 f')^{-1} f at a point
        W = sympy.eye(4) - hv / 2 * at(fprime, point)
        return at(H, point) + coefficient * hv * (at(grad, point).T * W.LUsolve(at(f, point)))[0]

    def density(point):                        # m = 1 / det(I - h/2 f')
        return 1 / (sympy.eye(4) - hv / 2 * at(fprime, point)).det()

    for pt in POINTS_2DOF:
        (sol,) = sympy.linsolve([sympy.expand(g) for g in at(G, pt)], new)     # linear in the new point
        assert modified(sol, R(1, 3)) == modified(pt, R(1, 3))
        assert modified(sol, R(1, 4)) != modified(pt, R(1, 4))
        assert at(H, sol) != at(H, pt)
        both = {**dict(zip(x, pt)), **dict(zip(new, sol))}
        D = -Gy.subs(both).LUsolve(Gx.subs(both))
        assert density(sol) * D.det() == density(pt)
        assert D.T * J * D != J
