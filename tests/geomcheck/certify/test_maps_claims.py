"""Map certificates check what they claim (issue 13, class 7).

- a contact factor g must vanish nowhere on the domain (a zero of g refutes the claim);
- a conformal factor k must be a nonzero constant;
- a symplectic form must be non-degenerate (degenerate and zero forms are refused, with
  the point where they degenerate; undecided non-degeneracy never gives True);
- two different charts are compared only through an identification passed explicitly;
- a factor is filled in only when the certificate holds, in the user's notation.

The truths are computed here by hand (the pullbacks are written out in the comments) or
with plain sympy, not with geomcheck.
"""

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import ChartMismatchError, DegenerateFormError, InvalidArgumentError, UnknownCoordinateError
from geomcheck.zero import Jet

h = sp.Symbol("h")
V = sp.Function("V")


def contact_chart(**domain):
    M = gc.Chart("x p z", domain=domain or None)
    x, p, z = M.coords
    return M, (x, p, z), M.d(z) - p * M.d(x)


def scaled_contact_map(M, F):
    """(x, p, z) -> (x, F_x + F_z p, F) with Z = F(x, z): phi^*(dz - p dx) = F_z (dz - p dx).

    dZ - P dX = F_x dx + F_z dz - (F_x + F_z p) dx = F_z (dz - p dx).
    """
    x, p, z = M.coords
    return gc.Map(M, M, [x, sp.diff(F, x) + sp.diff(F, z) * p, F])


# ----------------------------------------------------------------------------- contact factors


def test_a_contact_factor_that_vanishes_in_the_domain_refutes_the_claim():
    mu = sp.Symbol("mu")                         # any real mu: at mu = 0 the map collapses eta
    M, (x, p, z), eta = contact_chart()
    c = gc.certify_contact(gc.Map(M, M, [x, mu * p, mu * z]), eta)
    assert c.holds is False
    assert c.counterexample["mu"] == 0
    assert c.factor is None
    assert "vanishes" in c.method
    assert c.soundness.kind == "counterexample"


@pytest.mark.parametrize("assumption, sign", [({"positive": True}, 1), ({"negative": True}, -1)])
def test_a_contact_factor_of_one_sign_is_proved(assumption, sign):
    mu = sp.Symbol("mu", **assumption)
    M, (x, p, z), eta = contact_chart()
    c = gc.certify_contact(gc.Map(M, M, [x, mu * p, mu * z]), eta)
    assert c.holds is True and c.factor == mu
    assert ("positive" if sign > 0 else "negative") in c.method


def test_a_nonconstant_factor_vanishing_on_a_curve():
    # F = (1 + h x) z: phi^* eta = (1 + h x) eta exactly (the residual is zero), but 1 + h x = 0 at h x = -1
    M, (x, p, z), eta = contact_chart()
    c = gc.certify_contact(scaled_contact_map(M, (1 + h * x) * z), eta)
    assert c.holds is False and c.factor is None
    point = {sp.Symbol(k): v for k, v in c.counterexample.items()}
    assert (1 + h * x).xreplace(point) == 0
    # on x > 0 with h > 0 the same factor is positive: the claim holds there
    hp = sp.Symbol("h", positive=True)
    M2, (x2, p2, z2), eta2 = contact_chart(x=(0, sp.oo))
    c2 = gc.certify_contact(scaled_contact_map(M2, (1 + hp * x2) * z2), eta2)
    assert c2.holds is True
    assert sp.simplify(c2.factor - (1 + hp * x2)) == 0
    assert "x in (0, oo)" in c2.method or "(0, oo)" in c2.method


def test_exponential_factors_and_undefined_functions():
    M, (x, p, z), eta = contact_chart()
    c = gc.certify_contact(scaled_contact_map(M, sp.exp(h * x) * z), eta)
    assert c.holds is True and sp.simplify(c.factor - sp.exp(h * x)) == 0
    c = gc.certify_contact(scaled_contact_map(M, sp.exp(V(x)) * z), eta)
    assert c.holds is True and c.factor == sp.exp(V(x))
    # g = V(x): nowhere zero for some V, not for others -- undecided, never True
    c = gc.certify_contact(scaled_contact_map(M, V(x) * z), eta)
    assert c.holds is None and c.factor is None
    assert "V" in c.method
    assert c.soundness.kind == "undecided"


def test_a_factor_with_poles_is_judged_where_it_is_defined():
    # F = z / x: phi^* eta = (1/x) eta; the map (and g) are undefined on x = 0, and g vanishes nowhere else
    M, (x, p, z), eta = contact_chart()
    c = gc.certify_contact(scaled_contact_map(M, z / x), eta)
    assert c.holds is True and c.factor == 1 / x
    assert "where it is defined" in c.method
    # F = (x - 1) z / x: g = (x - 1)/x vanishes at x = 1
    c = gc.certify_contact(scaled_contact_map(M, (x - 1) * z / x), eta)
    assert c.holds is False and c.counterexample["x"] == 1


def test_the_factor_is_given_only_when_the_certificate_holds():
    M, (x, p, z), eta = contact_chart()
    bad = gc.certify_contact(gc.Map(M, M, [x + z, p, z]), eta)      # phi^* eta = dz - p dx - p dz: not a multiple
    assert bad.holds is False and bad.factor is None
    killed = gc.certify_contact(gc.Map(M, M, [0, 0, 0]), eta)
    assert killed.holds is False and killed.factor is None and killed.counterexample


# ----------------------------------------------------------------------------- conformal factors


def test_a_conformal_factor_must_be_a_nonzero_constant():
    M = gc.Chart("q p")
    q, p = M.coords
    w = M.d(q) ^ M.d(p)
    collapse = gc.certify_conformal_symplectic(gc.Map(M, M, [q, 0]), w)   # phi^* w = dq ^ 0 = 0 = 0 w
    assert collapse.holds is False and collapse.factor is None
    assert collapse.counterexample is not None
    g = sp.Symbol("gamma")
    c = gc.certify_conformal_symplectic(gc.Map(M, M, [q, g * p]), w)      # k = gamma, zero at gamma = 0
    assert c.holds is False and c.counterexample["gamma"] == 0
    gp = sp.Symbol("gamma", positive=True)
    c = gc.certify_conformal_symplectic(gc.Map(M, M, [q, gp * p]), w)
    assert c.holds is True and c.factor == gp
    # k = 1 - h gamma (a damped Euler-like kick) vanishes where h gamma = 1
    c = gc.certify_conformal_symplectic(gc.Map(M, M, [q + h * p, (1 - h * g) * p]), w)
    assert c.holds is False
    point = {sp.Symbol(k): v for k, v in c.counterexample.items()}
    assert (1 - h * g).xreplace(point) == 0


def test_a_factor_is_proved_on_the_region_the_claim_is_stated_on():
    # a kick that damps by (1 - alpha h): conformal with k = 1 - alpha h, zero at alpha h = 1;
    # for 0 < h < 1/10 and 0 < alpha < 1, k > 9/10
    M = gc.Chart("q p")
    q, p = M.coords
    alpha = sp.Symbol("alpha")
    phi = gc.Map(M, M, [q + h * (1 - alpha * h) * p, (1 - alpha * h) * p])
    w = M.d(q) ^ M.d(p)
    assert gc.certify_conformal_symplectic(phi, w).holds is False
    c = gc.certify_conformal_symplectic(phi, w, domain={h: (0, sp.Rational(1, 10)), alpha: (0, 1)})
    assert c.holds is True and c.factor == 1 - alpha * h
    assert "h in (0, 1/10)" in c.method
    # the same for a contact factor
    Mc, (x, pc, z), eta = contact_chart()
    mu = sp.Symbol("mu")
    scale = gc.Map(Mc, Mc, [x, mu * pc, mu * z])
    assert gc.certify_contact(scale, eta, domain={mu: (1, 2)}).holds is True
    assert gc.certify_contact(scale, eta, domain={mu: (-1, 2)}).holds is False


def _damped_verlet(n, form):
    """Damped Stormer-Verlet (kick-drift-kick with exp(-gamma h/2) damping) on n degrees of freedom.

    Its conformal factor is exp(-gamma h): each half kick scales dp by exp(-gamma h/2) on top of
    a symplectic map.  ``form`` says how grad V at the new point is written.
    """
    M = gc.Chart([f"q{i}" for i in range(n)] + [f"p{i}" for i in range(n)])
    q, p = list(M.coords[:n]), list(M.coords[n:])
    g = sp.Symbol("gamma")
    ys = sp.symbols(f"y0:{n}")

    def grad(point):
        if form == "subs":
            return [sp.Subs(sp.Derivative(V(*ys), ys[i]), ys, point) for i in range(n)]
        return [sp.diff(V(*ys), ys[i]).subs(dict(zip(ys, point)), simultaneous=True) for i in range(n)]

    gq = grad(q)
    ph = [sp.exp(-g * h / 2) * (p[i] - h / 2 * gq[i]) for i in range(n)]
    Q = [q[i] + h * ph[i] for i in range(n)]
    gQ = grad(Q)
    P = [sp.exp(-g * h / 2) * (ph[i] - h / 2 * gQ[i]) for i in range(n)]
    w = M.d(q[0]) ^ M.d(p[0])
    for i in range(1, n):
        w = w + (M.d(q[i]) ^ M.d(p[i]))
    return gc.Map(M, M, Q + P), w, g


@pytest.mark.parametrize("n, form", [(1, "subs"), (2, "subs"), (2, "simultaneous")])
def test_the_conformal_factor_is_in_closed_form_and_the_users_notation(n, form):
    phi, w, g = _damped_verlet(n, form)
    c = gc.certify_conformal_symplectic(phi, w)
    assert c.holds is True
    assert c.factor == sp.exp(-g * h)
    assert not c.factor.has(Jet)


def test_many_degrees_of_freedom_still_give_the_closed_form():
    # 8 degrees of freedom: the computed factor is too large to cancel; setting the jets of V to 0
    # gives the candidate exp(-gamma h), which the zero test shows equal to it
    phi, w, g = _damped_verlet(8, "simultaneous")
    c = gc.certify_conformal_symplectic(phi, w)
    assert c.holds is True and c.factor == sp.exp(-g * h)
    assert "closed form" in c.method


def test_a_closed_form_candidate_is_used_only_when_shown_equal(monkeypatch):
    # k = 1 + V(0)**2: constant in (q, p) but not independent of V; with every factor treated as
    # large, the candidate from V = 0 (namely 1) must be rejected by the zero test
    import geomcheck.certify.maps as maps

    monkeypatch.setattr(maps, "_CANCEL_NODES", 3)   # k has 6 nodes, the candidate 1 has one
    M = gc.Chart("q p")
    q, p = M.coords
    k = 1 + V(0) ** 2
    c = gc.certify_conformal_symplectic(gc.Map(M, M, [q, k * p]), M.d(q) ^ M.d(p))
    assert c.holds is True
    assert sp.simplify(c.factor - k) == 0


# ----------------------------------------------------------------------------- degenerate forms


def test_zero_and_degenerate_forms_are_refused():
    M = gc.Chart("q p")
    q, p = M.coords
    ident = gc.Map(M, M, [q, p])
    with pytest.raises(DegenerateFormError, match="zero"):
        gc.certify_symplectic(ident, 0 * (M.d(q) ^ M.d(p)))
    with pytest.raises(DegenerateFormError, match="zero"):
        gc.certify_conformal_symplectic(ident, 0 * (M.d(q) ^ M.d(p)))
    # q dq^dp degenerates on the line q = 0
    with pytest.raises(DegenerateFormError, match="q = 0") as info:
        gc.certify_symplectic(ident, q * (M.d(q) ^ M.d(p)))
    assert "dq^dp" in str(info.value)
    M4 = gc.Chart("q1 q2 p1 p2")
    q1, q2, p1, p2 = M4.coords
    ident4 = gc.Map(M4, M4, [q1, q2, p1, p2])
    with pytest.raises(DegenerateFormError, match="dq2, dp2"):
        gc.certify_symplectic(ident4, M4.d(q1) ^ M4.d(p1))
    # (dq1 + dq2) ^ (dp1 + dp2) is a wedge of two 1-forms: rank 2 in dimension 4
    rank2 = (M4.d(q1) + M4.d(q2)) ^ (M4.d(p1) + M4.d(p2))
    with pytest.raises(DegenerateFormError, match="singular"):
        gc.certify_symplectic(ident4, rank2)
    with pytest.raises(DegenerateFormError, match="identically"):
        gc.certify_conformal_symplectic(ident4, (1 + q1**2) * rank2)
    # a skew matrix of odd size has determinant 0: two blocks of three coupled coordinates
    M6 = gc.Chart("a1 a2 a3 b1 b2 b3")
    a1, a2, a3, b1, b2, b3 = M6.coords
    odd = (M6.d(a1) ^ M6.d(a2)) + (M6.d(a2) ^ M6.d(a3)) + (M6.d(b1) ^ M6.d(b2)) + (M6.d(b2) ^ M6.d(b3))
    with pytest.raises(DegenerateFormError, match="odd"):
        gc.certify_symplectic(gc.Map(M6, M6, list(M6.coords)), odd)


def test_non_degeneracy_on_a_domain_and_undecided_non_degeneracy():
    # on q > 0, q dq^dp is symplectic, and the shear (q, p + f(q)) preserves it:
    # (q, p + f(q))^*(q dq^dp) = q dq ^ (dp + f'(q) dq) = q dq^dp
    H = gc.Chart("q p", domain={"q": (0, sp.oo)})
    q, p = H.coords
    f = sp.Function("f")
    c = gc.certify_symplectic(gc.Map(H, H, [q, p + f(q)]), q * (H.d(q) ^ H.d(p)))
    assert c.holds is True and "non-degenerate" in c.method
    M = gc.Chart("q p")
    q, p = M.coords
    ident = gc.Map(M, M, [q, p])
    assert gc.certify_symplectic(ident, sp.exp(V(q)) * (M.d(q) ^ M.d(p))).holds is True
    # (1/h) dq^dp (a discrete Lagrangian's form) is undefined at h = 0 and non-degenerate where defined
    assert gc.certify_symplectic(ident, (M.d(q) ^ M.d(p)) / h).holds is True
    with pytest.raises(DegenerateFormError, match="q = 1"):
        gc.certify_symplectic(ident, (q - 1) / h * (M.d(q) ^ M.d(p)))
    # V(q) dq^dp: degenerate where V vanishes, for some V -- never True
    c = gc.certify_symplectic(ident, V(q) * (M.d(q) ^ M.d(p)))
    assert c.holds is None and "non-degenerate" in c.method
    # a refuted residual stays refuted whatever the form's status
    c = gc.certify_symplectic(gc.Map(M, M, [q + h * p, p - h * q]), V(q) * (M.d(q) ^ M.d(p)))
    assert c.holds is False


def test_canonical_forms_in_many_dimensions_are_cheap():
    n = 8
    M = gc.Chart([f"q{i}" for i in range(n)] + [f"p{i}" for i in range(n)])
    w = M.d(M.coords[0]) ^ M.d(M.coords[n])
    for i in range(1, n):
        w = w + (M.d(M.coords[i]) ^ M.d(M.coords[n + i]))
    assert gc.certify_symplectic(gc.Map(M, M, list(M.coords)), w).holds is True


# ----------------------------------------------------------------------------- identifications


def _rotation():
    M = gc.Chart("q p")
    N = gc.Chart("Q P")
    q, p = M.coords
    Q, P = N.coords
    return M, N, gc.Map(M, N, [p, -q]), N.d(Q) ^ N.d(P)


def test_different_charts_need_an_explicit_identification():
    M, N, rot, w = _rotation()
    for certify in (gc.certify_symplectic, gc.certify_preserves, gc.certify_conformal_symplectic):
        with pytest.raises(ChartMismatchError) as info:
            certify(rot, w)
        msg = str(info.value)
        assert "Chart('q p')" in msg and "Chart('Q P')" in msg and "identify" in msg
    with pytest.raises(ChartMismatchError, match="identify"):
        gc.certify_conserves(rot, M.coords[0] ** 2)


def test_an_identification_is_used_and_stated():
    M, N, rot, w = _rotation()
    q, p = M.coords
    Q, P = N.coords
    for identify in ("by position", {q: Q, p: P}, {"q": "Q", "p": "P"}):
        c = gc.certify_symplectic(rot, w, identify=identify)
        assert c.holds is True
        assert "identified" in c.method and "Q = q" in c.method
        assert r"\leftrightarrow" in c.latex()
    # identifying Q with p and P with q instead: omega becomes dp^dq = -dq^dp on the source, while
    # rot^*(dQ^dP) = d(p)^d(-q) = dq^dp -- not preserved
    c = gc.certify_symplectic(rot, w, identify={q: P, p: Q})
    assert c.holds is False
    # H = q**2 + p**2 is conserved by the rotation; H = q is not (q o rot = p)
    assert gc.certify_conserves(rot, q**2 + p**2, identify="by position").holds is True
    assert gc.certify_conserves(rot, q, identify="by position").holds is False


def test_the_same_coordinates_in_another_order_are_identified_by_symbol():
    M = gc.Chart("q p")
    q, p = M.coords
    M2 = gc.Chart("p q")
    rot = gc.Map(M, M2, [-q, p])           # new p = -q, new q = p: the rotation (q, p) -> (p, -q)
    w = M.d(q) ^ M.d(p)
    assert gc.certify_symplectic(rot, w).holds is True
    # "by position" pairs q with p: omega becomes dp^dq on the target; rot^*(dp^dq) = -dq^dp != omega
    assert gc.certify_symplectic(rot, w, identify="by position").holds is False


def test_malformed_identifications():
    M, N, rot, w = _rotation()
    q, p = M.coords
    Q, P = N.coords
    with pytest.raises(InvalidArgumentError, match="other way round"):
        gc.certify_symplectic(rot, w, identify={Q: q, P: p})
    with pytest.raises(InvalidArgumentError, match="missing"):
        gc.certify_symplectic(rot, w, identify={q: Q})
    with pytest.raises(InvalidArgumentError, match="distinct"):
        gc.certify_symplectic(rot, w, identify={q: Q, p: Q})
    with pytest.raises(UnknownCoordinateError, match="x"):
        gc.certify_symplectic(rot, w, identify={q: Q, sp.Symbol("x"): P})
    with pytest.raises(InvalidArgumentError, match="by position"):
        gc.certify_symplectic(rot, w, identify="by name")
    ident = gc.Map(M, M, [q, p])
    with pytest.raises(InvalidArgumentError, match="same coordinates"):
        gc.certify_symplectic(ident, M.d(q) ^ M.d(p), identify={q: p, p: q})
    assert gc.certify_symplectic(ident, M.d(q) ^ M.d(p), identify="by position").holds is True


def test_contact_maps_between_charts():
    M = gc.Chart("x p z")
    N = gc.Chart("X P Z")
    x, p, z = M.coords
    X, P, Z = N.coords
    lam = sp.Symbol("lambda", positive=True)
    phi = gc.Map(M, N, [x, lam * p, lam * z])
    eta = N.d(Z) - P * N.d(X)
    with pytest.raises(ChartMismatchError):
        gc.certify_contact(phi, eta)
    c = gc.certify_contact(phi, eta, identify={x: X, p: P, z: Z})
    assert c.holds is True and c.factor == lam


# ----------------------------------------------------------------------------- typesetting decisions


def test_typesetting_decisions_do_not_walk_the_tree(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("sympy.count_ops walks the whole expression tree")

    monkeypatch.setattr(sp, "count_ops", forbidden)
    phi, w, g = _damped_verlet(2, "subs")
    c = gc.certify_conformal_symplectic(phi, w)
    assert c.holds is True
    assert c.latex()
