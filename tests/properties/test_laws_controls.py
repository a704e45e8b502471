"""Negative controls: the laws of the other files, with a sign or factor deliberately
wrong, must be refuted (``is_zero() is False``) on small hand examples.  This shows
the property tests have teeth -- they would notice a wrong Koszul sign, a wrong
factor, or a zero test that says "zero" too easily.
"""

import sympy as sp

import geomcheck as gc


def test_leibniz_with_wrong_sign_is_refuted():
    M = gc.Chart("x y z")
    x, y, z = M.coords
    a = y * M.d(x)  # odd degree: the sign matters
    b = z * M.d(y)
    wrong = gc.d(a ^ b) - ((gc.d(a) ^ b) + (a ^ gc.d(b)))
    assert wrong.is_zero() is False


def test_lie_with_undefined_function_and_wrong_term_is_refuted():
    M = gc.Chart("q p")
    q, p = M.coords
    V = sp.Function("V")(q, p)
    X = gc.VectorField(M, {q: p, p: V})
    a = V * M.d(q)
    # dropping the w_I d(X^i) term of the component formula must be noticed
    wrong = gc.lie(X, a) - gc.Form(M, {(0,): X(V)})
    assert wrong.is_zero() is False


def test_supercommutativity_with_wrong_sign_is_refuted():
    G = gc.Chart("x xi eta", degrees=[0, 1, 1])
    x, xi, eta = G.coords
    f, g = G.function(x * xi), G.function(eta)
    assert (f * g + g * f).is_zero() is True
    assert (f * g - g * f).is_zero() is False


def test_graded_jacobi_with_wrong_koszul_sign_is_refuted():
    G = gc.Chart("x xi", degrees=[0, 1])
    x, xi = G.coords
    X = gc.VectorField(G, {x: xi})  # odd
    Y = gc.VectorField(G, {xi: x})  # odd
    Z = gc.VectorField(G, {x: x})  # even
    b = gc.bracket
    right = b(X, b(Y, Z)) - b(b(X, Y), Z) - (-1) * b(Y, b(X, Z))
    wrong = b(X, b(Y, Z)) - b(b(X, Y), Z) - b(Y, b(X, Z))
    assert right.is_zero() is True
    assert wrong.is_zero() is False


def test_q_bracket_without_factor_two_is_refuted():
    G = gc.Chart("x y xi eta", degrees=[0, 0, 1, 1])
    x, y, xi, eta = G.coords
    Q = gc.VectorField(G, {x: xi, y: x * eta})
    square = gc.VectorField(G, {c: Q(G.function(v)) for c, v in Q.components.items()})
    assert (gc.bracket(Q, Q) - 2 * square).is_zero() is True
    assert (gc.bracket(Q, Q) - square).is_zero() is False


def test_hamiltonian_sign_convention_is_checked():
    M = gc.Chart("q p")
    q, p = M.coords
    H = p**2 / 2 + sp.cos(q)
    X = gc.hamiltonian_vector_field(H, M.d(q) ^ M.d(p))
    flipped = gc.VectorField(M, {q: -sp.diff(H, p), p: sp.diff(H, q)})
    assert (X - flipped).is_zero() is False
