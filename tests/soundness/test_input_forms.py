"""Input forms: bad input is a named GeomcheckError, valid input in any accepted spelling is
decided the same way, and never a raw exception (issue 13, classes 7-9; DESIGN principle 6)."""

from __future__ import annotations

import pytest
import sympy as sp

import geomcheck as gc
from geomcheck.errors import GeomcheckError

from .judge import fail, short_trace, verdict_problems

x, y = sp.symbols("x y")
r = sp.Symbol("r", positive=True)
w = sp.Symbol("w", imaginary=True)
BUDGET = 5.0


def _decide(expr, **kw):
    from geomcheck.zero import decide_zero

    return decide_zero(expr, budget=kw.pop("budget", BUDGET), **kw)


def _identity_and(certify, form_of):
    M = gc.Chart("q p")
    return certify(gc.Map(M, M, list(M.coords)), form_of(M))


def _map_wrong_length():
    M = gc.Chart("q p")
    return gc.Map(M, M, [M.coords[0]])


def _tableaux():
    from geomcheck.certify import tableaux

    return tableaux


def _compositions():
    from geomcheck.certify import compositions

    return compositions


BAD_ZERO_INPUTS = [
    ("negative_budget", lambda: _decide(x, budget=-1)),
    ("nan_budget", lambda: _decide(x, budget=float("nan"))),
    ("negative_dps", lambda: _decide(x, dps=-3)),
    ("negative_points", lambda: _decide(x, points=-1)),
    ("not_an_expression", lambda: _decide(object())),
    ("an_equation", lambda: _decide(sp.Eq(x, 1))),
    ("an_inequality", lambda: _decide(x > 1)),
    ("empty_interval", lambda: _decide(x, domain={x: (2, 1)})),
    ("interval_end_not_a_number", lambda: _decide(x, domain={x: (0, "a")})),
    ("interval_end_nan", lambda: _decide(x, domain={x: (sp.nan, 1)})),
    ("interval_three_ends", lambda: _decide(x, domain={x: (0, 1, 2)})),
    ("domain_not_a_mapping", lambda: _decide(x, domain=[0, 1])),
    ("domain_key_not_a_symbol", lambda: _decide(x, domain={3: (0, 1)})),
    ("domain_contradicts_positive", lambda: _decide(r, domain={r: (-1, 1)})),
    ("domain_for_imaginary_symbol", lambda: _decide(w, domain={w: (0, 1)})),
    ("chart_empty_interval", lambda: gc.Chart("r theta", domain={"r": (1, 0)})),
    ("chart_domain_unknown_coordinate", lambda: gc.Chart("r theta", domain={"s": (0, 1)})),
    ("chart_domain_not_a_mapping", lambda: gc.Chart("r theta", domain=[(0, 1)])),
    ("certify_symplectic_not_a_map", lambda: gc.certify_symplectic("phi", gc.Chart("q p").d(sp.Symbol("q")))),
    ("certify_symplectic_1form", lambda: _identity_and(gc.certify_symplectic, lambda M: M.d(M.coords[0]))),
    ("certify_contact_even_dimension", lambda: _identity_and(gc.certify_contact, lambda M: M.d(M.coords[0]))),
    ("map_wrong_length", lambda: _map_wrong_length()),
    ("tableau_not_square", lambda: _tableaux().ButcherTableau([[1, 0]], [1])),
    ("tableau_nan_entry", lambda: _tableaux().ButcherTableau([[sp.nan]], [1])),
    ("composition_nan", lambda: _compositions().composition_order([float("nan"), 1.0])),
]


@pytest.mark.parametrize("name, call", BAD_ZERO_INPUTS, ids=[b[0] for b in BAD_ZERO_INPUTS])
def test_bad_input_is_a_named_error(name, call):
    try:
        call()
    except GeomcheckError:
        return
    except Exception as exc:  # noqa: BLE001
        fail(f"{name}: raw exception {short_trace(exc)}")
    fail(f"{name}: bad input was accepted")


@pytest.mark.parametrize("name, expr", [("nan", sp.nan), ("zoo", sp.zoo), ("oo", sp.oo), ("x_over_0", x / 0),
                                        ("log_0", sp.log(0))])
def test_non_finite_is_never_zero(name, expr):
    """nan, zoo, oo are not the number 0: refused (GeomcheckError) or not True."""
    try:
        d = _decide(expr)
    except GeomcheckError:
        return
    except Exception as exc:  # noqa: BLE001
        fail(f"{name}: raw exception {short_trace(exc)}")
    assert d.is_zero is not True, f"{name}: {expr} declared zero"


MAX = sp.Max(x - sp.Rational(19, 10), 0)

DOMAIN_SPELLINGS = [
    ("symbol_key_tuple", {x: (0, 1)}, "zero"),
    ("name_key_tuple", {"x": (0, 1)}, "zero"),
    ("sympy_interval", {x: sp.Interval(0, 1)}, "zero"),
    ("float_ends", {x: (0.5, 1.5)}, "zero"),
    ("domain_object", "Domain", "zero"),
    ("symbol_key_across_switch", {x: (1, 3)}, "nonzero"),
    ("name_key_across_switch", {"x": (1, 3)}, "nonzero"),
    ("float_ends_across_switch", {x: (1.5, 2.5)}, "nonzero"),
]


@pytest.mark.parametrize("name, domain, truth", DOMAIN_SPELLINGS, ids=[d[0] for d in DOMAIN_SPELLINGS])
def test_domain_spellings(name, domain, truth):
    """Every accepted spelling of the same domain gives a right verdict for Max(x - 19/10, 0).

    On (0, 1), (1/2, 3/2): zero.  On (1, 3), (3/2, 5/2): nonzero (1/10 at x = 2); a False must name
    a point in the domain where x > 19/10."""
    if domain == "Domain":
        domain = gc.Domain({x: (0, 1)})
        plain = {x: (0, 1)}
    else:
        plain = domain if not any(isinstance(v, sp.Interval) for v in domain.values()) else {
            k: (v.start, v.end) for k, v in domain.items()}
    try:
        d = _decide(MAX, domain=domain)
    except Exception as exc:  # noqa: BLE001
        fail(f"{name}: valid domain raised {short_trace(exc)}")
    problems = verdict_problems(truth, truth == "nonzero", d.is_zero, d.point, MAX, plain)
    assert not problems, f"{name}: verdict {d.is_zero}: " + "; ".join(problems)


def test_domain_symbols_not_in_expression_are_fine():
    try:
        d = _decide(sp.sin(x)**2 + sp.cos(x)**2 - 1, domain={y: (0, 1)})
    except Exception as exc:  # noqa: BLE001
        fail(f"raised {short_trace(exc)}")
    assert d.is_zero is not False


def test_nested_undefined_functions_in_a_catalog_scheme():
    """H = p^2/2 + V(W(q)) through integrators: certificates, no RecursionError (issue 13, class 8)."""
    import integrators as ig

    q, p = sp.symbols("q p")
    V, W = sp.Function("V"), sp.Function("W")
    try:
        system = ig.HamiltonianSystem(p**2 / 2 + V(W(q)), q, p)
        certs = ig.scheme("stormer-verlet").certify(system)
    except Exception as exc:  # noqa: BLE001
        fail(f"raised {short_trace(exc)}")
    sym = certs.get("symplectic")
    assert sym is not None and sym.holds is not False, f"Stormer-Verlet is symplectic for every V, W: {sym}"
    order = certs.get("order")
    assert order is None or order.holds is not False, f"Stormer-Verlet has order 2: {order}"
