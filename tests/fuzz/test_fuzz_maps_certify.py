"""Bad and edge input for maps, certificates and the zero test (gc.Map, gc.ImplicitMap, certify_*, decide_zero).

Nonsense must never certify True; valid input must give the independently known answer.
Regression tests of bugs this suite found:

* ``Map(M, M, nan)`` / ``ImplicitMap(M, M, None)`` raised TypeError ("not iterable"), and a set of
  expressions was accepted in arbitrary order: MapError / ImplicitMapError now (maps.py).
* ``decide_zero(e, relations=nan)`` raised TypeError (zero/inputs.py); ``budget=10**400`` and
  ``points=10**400`` raised OverflowError, ``budget=inf`` was taken, ``dps=10**400`` was taken (one
  mpmath operation at that precision cannot be interrupted) and ``seed`` took any object (its
  repr, with a memory address, seeded the "deterministic" points): InvalidArgumentError now
  (zero/decision.py).
"""

import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import geomcheck as gc
from geomcheck.errors import GeomcheckError, InvalidArgumentError, MapError
from geomcheck.zero import decide_zero

from ._harness import NON_FINITE, error_or, expect_error, guarded

M = gc.Chart("q p")
q, p = M.coords
N = gc.Chart("a b")
w = M.d(q) ^ M.d(p)
h = sympy.Symbol("h")
identity = gc.Map(M, M, [q, p])
X = gc.VectorField(M, [p, -q])

coeffs = st.integers(-3, 3)
potentials = st.lists(st.tuples(st.integers(-2, 2).filter(bool), st.integers(1, 4)), min_size=1, max_size=3).map(
    lambda ts: sympy.Add(*[c * q**k for c, k in ts]))


# ------------------------------------------------------------------------- maps

BAD_EXPRS = [None, sympy.nan, 3, 1.5, "qp", b"qp", {q, p}, [q], [q, p, p], [[q, p]], [q, sympy.nan],
             [q, sympy.Matrix([p])], [q, sympy.Eq(p, 1)], [q, sympy.Lambda(q, q)], [q, N.coords[0]],
             {q: p}, {sympy.Symbol("zz"): 1, p: q}, np.array(1.0), [q, sympy.true], [q, sympy.zoo * p]]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(BAD_EXPRS), st.sampled_from(["explicit", "implicit"]))
def test_maps_refuse_bad_expressions(exprs, kind):
    if kind == "explicit":
        # into another chart N: its coordinates a, b may not appear (they would be parameters in a map M -> M)
        if isinstance(exprs, dict):
            exprs = {({q: N.coords[0], p: N.coords[1]}).get(k, k): v for k, v in exprs.items()}
            if set(exprs) == set(N.coords):
                return  # {a: p} lost its missing key: relabelled, it is not the bad input any more
        expect_error(gc.Map, M, N, exprs,
                     names=("expression", "expected", "Map", "finite", "scalar"))
    else:
        Q, P = sympy.symbols("Q P")
        T = gc.Chart("Q P")
        if isinstance(exprs, list) and len(exprs) == 2:
            # the same bad entries as implicit equations in the unknowns Q, P
            exprs = [exprs[0] - Q if isinstance(exprs[0], sympy.Expr) else exprs[0],
                     exprs[1] if not isinstance(exprs[1], sympy.Expr) or exprs[1].has(sympy.nan, sympy.zoo)
                     or exprs[1] == p else exprs[1]]
            if exprs[1] == p:
                return  # [q - Q, p] is a (degenerate but well-formed) system; not bad input
        expect_error(gc.ImplicitMap, M, T, exprs,
                     names=("equation", "expected", "ImplicitMap", "finite", "scalar", "unknown", "expression"))


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([None, "Q P", 5, [sympy.Symbol("Q")], [1, 2], [sympy.Symbol("Q"), sympy.Symbol("Q")],
                        [q, p], {sympy.Symbol("Q"), sympy.Symbol("P")}]))
def test_implicit_map_refuses_bad_unknowns(new):
    Q, P = sympy.symbols("Q P")
    T = gc.Chart("Q P")
    if new is None:
        new = 7  # None means "the target's coordinates": replaced by a bad non-sequence
    expect_error(gc.ImplicitMap, M, T, [Q - q, P - p], new=new,
                 kinds=(gc.errors.ImplicitMapError,), names=("unknown", "new", "symbol"))


# ------------------------------------------------------------------------- certificates

def verlet(V):
    """Stormer-Verlet for H = p^2/2 + V(q), written out by hand."""
    dV = sympy.diff(V, q)
    p_half = p - h / 2 * dV
    Q = q + h * p_half
    P = p_half - h / 2 * dV.subs(q, Q)
    return gc.Map(M, M, [Q, P])


@settings(max_examples=20, deadline=None)
@given(potentials, st.integers(-3, 3).filter(lambda c: c not in (0, -1)))
def test_certify_symplectic_on_random_polynomial_potentials(V, c):
    # correct results: Verlet is symplectic for every V (a composition of shears); scaling p by
    # (1 + c) multiplies dq^dp by (1 + c) != 1, so it is not symplectic, but conformally so
    cert = guarded(gc.certify_symplectic, verlet(V), w).value
    assert cert.holds is True, cert
    scaled = gc.Map(M, M, [q, (1 + c) * p])
    assert guarded(gc.certify_symplectic, scaled, w).value.holds is False
    assert guarded(gc.certify_conformal_symplectic, scaled, w).value.holds is True
    H = p**2 / 2 + V
    # the exact flow of dq/dt = 1 (a translation in q) conserves H only when V is constant (never here)
    shift = gc.Map(M, M, [q + h, p])
    assert guarded(gc.certify_conserves, shift, H).value.holds is False
    assert guarded(gc.certify_conserves, identity, H).value.holds is True


BAD_FORMS = [None, 0, 1, q, "w", [w], sympy.Matrix([[0, 1], [-1, 0]]), X, M, object(),
             M.d(q), N.d(N.coords[0]) ^ N.d(N.coords[1]), 0 * w, w + M.d(q), np.eye(2)]
BAD_MAPS = [None, 0, q, [q, p], "identity", w, X, M, lambda y: y, sympy.Matrix([q, p])]
CERTIFIERS = {
    "symplectic": lambda phi, f: gc.certify_symplectic(phi, f),
    "conformal": lambda phi, f: gc.certify_conformal_symplectic(phi, f),
    "contact": lambda phi, f: gc.certify_contact(phi, f),
    "preserves": lambda phi, f: gc.certify_preserves(phi, f),
}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(BAD_FORMS), st.sampled_from(sorted(CERTIFIERS)))
def test_certificates_refuse_bad_forms(form, which):
    out = error_or(CERTIFIERS[which], identity, form,
                   names=("form", "expected", "expects", "degenerate", "contact", "chart", "closed"))
    if not out.refused:
        # an answer is allowed only where the claim makes sense: "preserves" holds for any form
        # on the chart (identity preserves everything), and a symplectic/conformal claim needs a
        # non-degenerate closed 2-form; nonsense must never come back True
        assert which == "preserves" and isinstance(form, gc.Form) and form.chart == M, (which, form, out)
        assert out.value.holds is True


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(BAD_MAPS), st.sampled_from(sorted(CERTIFIERS) + ["conserves", "order", "symmetric"]))
def test_certificates_refuse_bad_maps(phi, which):
    if which == "conserves":
        call = lambda: gc.certify_conserves(phi, p**2 + q**2)  # noqa: E731
    elif which == "order":
        call = lambda: gc.certify_order(phi, X, h, 1)  # noqa: E731
    elif which == "symmetric":
        call = lambda: gc.certify_symmetric(phi, h)  # noqa: E731
    else:
        form = M.d(q) if which == "contact" else w
        call = lambda: CERTIFIERS[which](phi, form)  # noqa: E731
    expect_error(call, names=("map", "expected", "expects"))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([None, 0, -1, 1.5, "1", True, 10**400, sympy.nan, q, [1]]),
       st.sampled_from([None, 1, q, "h", sympy.Integer(2), 0.1, [h], sympy.Symbol("k") ** 2]))
def test_certify_order_refuses_bad_order_and_step(order, step):
    phi = gc.Map(M, M, [q + h * p, p - h * q])          # explicit Euler for the oscillator: order 1
    if isinstance(step, sympy.Symbol) and step == h and isinstance(order, int) and not isinstance(order, bool) \
            and 1 <= order <= 10:
        return
    if step is None:
        step = h
    expect_error(gc.certify_order, phi, X, step, order, names=("order", "step", "symbol", "expected", "int"))


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 3))
def test_certify_order_exact_answer(order):
    # correct results: explicit Euler has order 1, so the claim holds for 1 and fails above
    phi = gc.Map(M, M, [q + h * p, p - h * q])
    assert guarded(gc.certify_order, phi, X, h, order).value.holds is (order == 1)


# ------------------------------------------------------------------------- the zero test

BAD_OPTIONS = {
    "budget": [0, -1, float("nan"), float("inf"), 10**400, "1", None, True, 1j, [1.0]],
    "dps": [0, 14, 1.5, "50", None, True, 10**400, 10**15, -50],
    "points": [0, -1, 1.5, None, True, 10**400, "3"],
    "seed": [1.5, "x", None, object(), [1], True, sympy.nan],
    "relations": [sympy.nan, 3, "r", [q], [sympy.Eq(q, 1)], object()],
    "domain": [[(0, 1)], "q", 5, {"q": (1, 0)}, {"q": "x"}, {q: (sympy.nan, 1)}],
}


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(sorted(BAD_OPTIONS)).flatmap(lambda k: st.tuples(st.just(k), st.sampled_from(BAD_OPTIONS[k]))))
def test_decide_zero_refuses_bad_options(option):
    key, value = option
    expect_error(decide_zero, q - q, names=(key,), **{key: value})


BAD_EXPRESSIONS = [None, "x y", [q], sympy.Matrix([q]), sympy.Eq(q, 1), q > 0, sympy.true, object(), w, X,
                   sympy.Symbol("nc", commutative=False), sympy.Lambda(q, q), sympy.Function("V")]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(BAD_EXPRESSIONS))
def test_decide_zero_refuses_non_expressions(expr):
    out = error_or(decide_zero, expr, budget=2.0, names=("expression", "expected", "scalar", "matrix"))
    # "x y" is a sympy-parsable string... but it is not: a refusal; anything else must never be "zero"
    assert out.refused or out.value.is_zero is not True, out


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(coeffs, st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=3),
       st.lists(st.tuples(coeffs, st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=3),
       st.integers(-5, 5).filter(bool))
def test_decide_zero_on_random_polynomial_identities(fs, gs, c):
    f = sympy.Add(*[a * q**i * p**j for a, i, j in fs])
    g = sympy.Add(*[a * q**i * p**j for a, i, j in gs])
    # correct results: (f + g)^2 - f^2 - 2 f g - g^2 is zero; adding a nonzero constant is not
    ident = (f + g) ** 2 - f**2 - 2 * f * g - g**2
    assert guarded(decide_zero, ident, budget=3.0).value.is_zero is True
    assert guarded(decide_zero, ident + c, budget=3.0).value.is_zero is False


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(NON_FINITE[:4] + [sympy.I, 1j, sympy.I * q, sympy.Integer(10) ** 400]))
def test_decide_zero_never_calls_non_finite_or_complex_zero(value):
    out = error_or(decide_zero, value, budget=2.0, names=("finite", "expression", "nan", "oo", "zoo"))
    assert out.refused or out.value.is_zero is False, out


def test_errors_of_this_file_are_in_the_hierarchy():
    assert issubclass(MapError, GeomcheckError) and issubclass(InvalidArgumentError, GeomcheckError)
