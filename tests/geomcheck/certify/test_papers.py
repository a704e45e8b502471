"""Claims of the reproduced papers checked by the certificates (and an error in a paper shown)."""

import sympy as sp

import geomcheck as gc

h, t, C = sp.symbols("h t C")


def test_trapezoidal_rule_is_not_symplectic_but_preserves_its_modified_form():
    """Guo, Li & Wu 2001, Section 5 (eqs. 59-73): for H = p^2/2 + V(q) the trapezoidal rule is
    conjugate to the midpoint rule by chi_h = id + (h/2) J grad H, so it preserves
    chi_h^*(dq ^ dp) = (1 + h^2/4 V''(q)) dq ^ dp (the paper writes it with dp ^ dq), not dq ^ dp."""
    M = gc.Chart("q p")
    q, p = M.coords
    V = sp.Function("V")
    Q, P = sp.symbols("Q P")
    dV = V(q).diff(q)
    trap = gc.ImplicitMap(M, M, [Q - q - h / 2 * (p + P), P - p + h / 2 * (dV + gc.substitute(dV, {q: Q}))],
                          new=[Q, P], parameters=[h])
    w = M.d(q) ^ M.d(p)
    assert gc.certify_symplectic(trap, w).holds is False
    chi = gc.Map(M, M, [q + h / 2 * p, p - h / 2 * dV], parameters=[h])
    modified = gc.pullback(w, chi)
    assert (modified - (1 + h**2 / 4 * V(q).diff(q, 2)) * w).is_zero() is True
    assert gc.certify_preserves(trap, modified).holds is True
    assert gc.certify_preserves(trap, (1 - h**2 / 4 * V(q).diff(q, 2)) * w).holds is False


def contact_chart():
    M = gc.Chart("x p z")
    x, p, z = M.coords
    return M, x, p, z, M.d(z) - p * M.d(x)


def test_contact_splitting_flows_are_contact_with_their_factors():
    """Vermeeren, Bravetti & Seri 2019, slide 27 (Hamiltonian integrators), H = A(p) + B(x) + C z:
    the exact flows of the three pieces are contact maps with conformal factors 1, 1 and e^{-Ct}, and each is the
    exact flow of its contact vector field (checked to order 4 of its Lie series)."""
    M, x, p, z, eta = contact_chart()
    A, B = sp.Function("A"), sp.Function("B")
    Ap, Bp = A(p).diff(p), B(x).diff(x)
    flows = {
        "A": (gc.Map(M, M, [x + t * Ap, p, z + t * (p * Ap - A(p))], parameters=[t]), A(p), 1),
        "B": (gc.Map(M, M, [x, p - t * Bp, z - t * B(x)], parameters=[t]), B(x), 1),
        "C": (gc.Map(M, M, [x, p * sp.exp(-C * t), z * sp.exp(-C * t)], parameters=[t, C]), C * z, sp.exp(-C * t)),
    }
    for name, (flow, H, factor) in flows.items():
        cert = gc.certify_contact(flow, eta)
        assert cert.holds is True, name
        assert sp.simplify(cert.factor - factor) == 0, name
        X = gc.contact_vector_field(H, eta)
        assert gc.certify_order(flow, X, t, 4).holds is True, name


def test_the_printed_B_flow_is_a_misprint():
    """Slide 27 (Hamiltonian integrators) prints
    exp(t X_B)(x, p, z) = (x - t(B'(x) + B(x)), p, z + t(p A(p) - A(p))): it is not a contact map (and not the flow of X_B = -B'(x) d_p - B(x) d_z)."""
    M, x, p, z, eta = contact_chart()
    A, B = sp.Function("A"), sp.Function("B")
    printed = gc.Map(M, M, [x - t * (B(x).diff(x) + B(x)), p, z + t * (p * A(p) - A(p))], parameters=[t])
    cert = gc.certify_contact(printed, eta)
    assert cert.holds is False and cert.counterexample
