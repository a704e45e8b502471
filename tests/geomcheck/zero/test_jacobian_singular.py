"""decide_jacobian_singular on Jacobians that are large, badly scaled or ill-conditioned.

The truth of each case is established in plain sympy (an exact determinant over Q).  The
earlier rule (|det| small relative to Hadamard's product of the row norms) called the first
three cases singular: a determinant can lie many orders below that product while the matrix
is perfectly well conditioned.
"""

import sympy

from geomcheck.zero import Relation, decide_jacobian_singular


def _laplacian_relation(n, row_scale=1, col_scale=1):
    """T u = x with T the n x n second-difference matrix (det n + 1, condition about n**2/2)."""
    u = sympy.symbols(f"u1:{n + 1}")
    x = sympy.Symbol("x")
    w = [col_scale * ui for ui in u]
    eqs = []
    for i in range(n):
        e = 2 * w[i] - (w[i - 1] if i else 0) - (w[i + 1] if i < n - 1 else 0) - x
        eqs.append(row_scale * e if i == 0 else e)
    return Relation(eqs, list(u)), u, eqs


def _exact_det(eqs, u):
    return sympy.Matrix([[sympy.diff(e, v) for v in u] for e in eqs]).det(method="bareiss")


def test_a_large_well_conditioned_jacobian_is_nonsingular():
    rel, u, eqs = _laplacian_relation(50)
    assert _exact_det(eqs, u) == 51
    d = decide_jacobian_singular(rel, dps=20)
    assert d.is_zero is False, d.method


def test_a_tiny_equation_or_a_tiny_unknown_does_not_make_it_singular():
    for scale in (dict(row_scale=sympy.Rational(1, 10**40)), dict(col_scale=sympy.Rational(1, 10**40))):
        rel, u, eqs = _laplacian_relation(6, **scale)
        assert _exact_det(eqs, u) != 0
        d = decide_jacobian_singular(rel)
        assert d.is_zero is False, (scale, d.method)


def test_an_ill_conditioned_jacobian_is_never_called_singular():
    u, v, x = sympy.symbols("u v x")
    eps = sympy.Rational(1, 10**40)           # condition about 4e40: beyond 50 digits' reach of the rule
    eqs = [u + v - x, u + (1 + eps) * v - 2 * x]
    assert _exact_det(eqs, [u, v]) == eps
    d = decide_jacobian_singular(Relation(eqs, [u, v]))
    assert d.is_zero is not True, d.method
    # condition 4e3: within reach of Newton's method at 50 digits (it stops at 0.9 dps), so nonsingular
    milder = [u + v - x, u + (1 + sympy.Rational(1, 10**3)) * v - 2 * x]
    assert decide_jacobian_singular(Relation(milder, [u, v])).is_zero is False


def test_singular_jacobians_are_still_found():
    rel, u, eqs = _laplacian_relation(8)
    # the last equation replaced by the sum of the first two: det 0, the relations still solvable
    eqs = eqs[:-1] + [sympy.expand(eqs[0] + eqs[1])]
    assert _exact_det(eqs, u) == 0
    assert decide_jacobian_singular(Relation(eqs, list(u))).is_zero is True
    a, b, x = sympy.symbols("a b x")
    tiny = sympy.Rational(1, 10**30)        # a scaled copy of an equation is still a copy
    d = decide_jacobian_singular(Relation([a + b - x, tiny * (a + b - x)], [a, b]))
    assert d.is_zero is True, d.method
