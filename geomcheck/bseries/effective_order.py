"""Effective order (Butcher 1969): the order a method reaches with a processor.

A method ``Phi_h`` has *effective order* ``q`` when a B-series map ``chi`` (the processor, a
starting method; a P-series map for a partitioned method) makes ``chi^-1 o Phi_h o chi`` of order ``q``; ``n`` steps of the processed
method cost ``n`` steps of ``Phi_h`` and one application of ``chi`` and ``chi^-1``.  In the
Butcher group the condition is ``chi then Phi = exact flow then chi`` up to order ``q``:

    compose(chi, a)(t) = compose(e, chi)(t)     for every tree with |t| <= q,

polynomial equations in the coefficients of ``chi`` on the trees with fewer than ``q`` vertices
(``chi(t)`` itself cancels from the condition of ``t``).  :func:`effective_order` decides them
exactly, order by order:

* a **Groebner basis** of the equations (over the rationals) equal to ``{1}`` proves that no
  processor exists, not even a complex one: the effective order is below ``q`` (False);
* otherwise a solution with rational (or real algebraic) values, with every free coefficient
  set to 0, is the **witness**: the processed method is recomputed with those exact numbers and
  checked to have order ``q`` (True);
* a consistent system without a real solution found that way is undecided (None).

>>> import sympy
>>> from geomcheck.bseries.methods import runge_kutta
>>> euler = runge_kutta([[0]], [1], order=3, name="explicit Euler")
>>> effective_order(euler, 3).order          # b([τ]) = -1/2 is invariant under conjugation
1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy

from ..certify.certificate import Certificate
from ..certify.trees import trees_up_to
from ..errors import BSeriesError
from ..latex import Derivation, tex_text
from .certificates import check_truncation, series_label
from .laws import compose, inverse
from .methods import exact_flow, series_of
from .series import BSeries

__all__ = ["EffectiveOrderCertificate", "effective_order"]

#: processors are sought up to this order (trees below it: 17 unknowns at order 6)
MAX_EFFECTIVE_ORDER = 6
#: the same for P-series (bicoloured trees below it: 20 unknowns at order 4, 72 at order 5)
MAX_EFFECTIVE_ORDER_P = 4


@dataclass(frozen=True, repr=False)
class EffectiveOrderCertificate(Certificate):
    """A :class:`Certificate` with the effective order reached (``order``) and the processor
    (``witness``, a BSeries ``chi``) that reaches it."""

    order: Any = None


def _processor_symbols(q: int, colours: int = 1) -> dict:
    return {t: sympy.Symbol(f"chi_{t.index}") for t in trees_up_to(q - 1, colours)} if q > 1 else {}


def _conditions(a: BSeries, q: int, unknowns: dict) -> list:
    """The numerators of ``compose(chi, a)(t) - compose(e, chi)(t)`` for ``|t| <= q``, as sympy polynomials."""
    chi = BSeries(dict(unknowns), q, colours=a.colours)
    out = []
    if a.colours == 2:
        # P-series (many more trees): every series in the arithmetic of chi from the start, and the
        # numerators read off it directly, without converting coefficients to sympy and back
        dom = chi.domain

        def into(s):
            return BSeries.from_elements(dom, {t: dom.convert(c) for t, c in s.items() if c != 0}, q,
                                         empty=dom.one, colours=2)

        lhs = compose(chi, into(a.truncate(q)))
        rhs = compose(into(exact_flow(q, 2)), chi)
        for t in trees_up_to(q, a.colours):
            x = lhs.element(t) - rhs.element(t)
            if not x:
                continue
            num = x.numer.as_expr() if hasattr(x, "numer") else sympy.numer(sympy.together(dom.to_sympy(x)))
            out.append(sympy.expand(num))
        return out
    lhs = compose(chi, a.truncate(q))
    rhs = compose(exact_flow(q, a.colours), chi)
    for t in trees_up_to(q, a.colours):
        r = sympy.together(lhs[t] - rhs[t])
        num = sympy.numer(r)
        if num != 0:
            out.append(sympy.expand(num))
    return out


def _processed_order(a: BSeries, chi: BSeries, q: int) -> bool:
    """Whether ``chi^-1 o Phi_h o chi`` (``chi`` applied first) agrees with the exact flow up to ``q``."""
    processed = compose(compose(chi, a.truncate(q)), inverse(chi))
    return processed == exact_flow(q, a.colours)


def _solve(equations: list, symbols: list):
    """``("none", basis)`` when the Groebner basis is {1}; ``("found", values)``; or ``("open", basis)``."""
    if not equations:
        return "found", {s: sympy.S.Zero for s in symbols}
    basis = sympy.groebner(equations, *symbols, order="lex")
    if list(basis.exprs) == [1]:
        return "none", basis
    try:
        solutions = sympy.solve(list(basis.exprs), symbols, dict=True)
    except NotImplementedError:
        return "open", basis
    for sol in solutions:
        free_to_zero = {x: 0 for x in symbols}
        values = {s: sympy.sympify(sol.get(s, s)).subs(free_to_zero) for s in symbols}
        if all(v.is_real for v in values.values()):
            return "found", values
    return "open", basis


def _solve_some(equations: list, symbols: list):
    """:func:`_solve`, also when no unknown is left (the equations are then nonzero constants, or none)."""
    if symbols:
        return _solve(equations, symbols)
    return ("none", [sympy.S.One]) if equations else ("found", {})


def _solve_top_linear(equations: list, lower: list, top: list):
    """:func:`_solve` with the unknowns ``top`` (the processor on the trees of order ``q - 1``) eliminated first.

    For a consistent method (``a(τ) = 1`` on every one-vertex tree) ``chi`` on a tree of order
    ``q - 1`` enters only the conditions of order ``q``, and linearly with constant coefficients
    (through ``a(τ) chi(s)`` and ``chi(s) e(τ)``): those conditions are ``M x = g(lower)``.  They
    are solvable in ``x`` iff ``n . g = 0`` for every ``n`` with ``n M = 0`` -- polynomial equations
    in the lower unknowns alone, which go to the Groebner basis with the other conditions (the same
    decision on a smaller system: 6 unknowns instead of 20 for bicoloured trees at order 4).  When
    ``M`` is not constant the whole system goes to :func:`_solve` unchanged.
    """
    top_set = set(top)
    linear = [e for e in equations if e.free_symbols & top_set]
    plain = [e for e in equations if not e.free_symbols & top_set]
    if not linear:
        status, result = _solve_some(plain, lower)
        if status == "found":
            result = {**result, **{x: sympy.S.Zero for x in top}}
        return status, result
    try:
        M, g = sympy.linear_eq_to_matrix(linear, top)
    except (ValueError, sympy.PolynomialError):        # not linear in the top unknowns
        return _solve(equations, lower + top)
    if M.free_symbols:
        return _solve(equations, lower + top)
    reduced = []
    for n in M.T.nullspace():
        r = sympy.numer(sympy.together(sympy.expand((n.T * g)[0])))
        if r != 0:
            reduced.append(sympy.expand(r))
    status, result = _solve_some(plain + reduced, lower)
    if status != "found":
        return status, result
    rhs = g.subs(result)
    solution, params = M.gauss_jordan_solve(rhs)
    solution = solution.subs({x: 0 for x in params})
    return "found", {**result, **dict(zip(top, solution))}


def effective_order(method: Any, max_order: int | None = None) -> EffectiveOrderCertificate:
    """The effective order of a B-series method, with its processor (see the module).

    P-series (partitioned methods, bicoloured trees): the processor is a P-series and the
    conditions are those of every bicoloured tree, decided the same way; the processor's
    coefficients on the trees of order ``q - 1`` enter linearly with constant coefficients and
    are eliminated exactly before the Groebner basis (the same decision on 6 unknowns instead of
    20 at order 4).  Orders up
    to :data:`MAX_EFFECTIVE_ORDER_P` (20 unknowns at order 4).

    Parameters
    ----------
    method : BSeries, ButcherTableau, PartitionedTableau, or an object with ``.bseries(order)``
        A consistent method with rational coefficients (rooted or bicoloured trees).
    max_order : int, optional
        The largest effective order examined (default: the order plus two, at most
        :data:`MAX_EFFECTIVE_ORDER`, or :data:`MAX_EFFECTIVE_ORDER_P` for P-series).

    Returns
    -------
    EffectiveOrderCertificate
        ``order`` the effective order found; ``holds`` True when a processor of order
        ``max_order`` was found (``order == max_order``: "at least"), False when the equations of
        order ``order + 1`` are proved inconsistent, None when they could not be decided.
        ``witness`` the processor ``chi`` reaching ``order`` (a BSeries).

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.bseries.methods import runge_kutta
    >>> R = sympy.Rational
    >>> A = [[0] * 5, [R(1, 5), 0, 0, 0, 0], [0, R(2, 5), 0, 0, 0], [R(3, 16), 0, R(5, 16), 0, 0],
    ...      [R(1, 4), 0, R(-5, 4), 2, 0]]                    # Butcher's method: order 4, effective order 5
    >>> c = effective_order(runge_kutta(A, [R(1, 6), 0, 0, R(2, 3), R(1, 6)], order=5), 5)
    >>> c.order, c.holds
    (5, True)

    The Stormer-Verlet pair (a P-series): no processor reaches order 3.

    >>> from geomcheck.bseries.methods import partitioned_runge_kutta
    >>> h = R(1, 2)
    >>> c = effective_order(partitioned_runge_kutta(([[0, 0], [h, h]], [h, h], [[h, 0], [h, 0]], [h, h]), 3), 3)
    >>> c.order, c.holds, "Groebner basis {1}" in c.method
    (2, False, True)
    """
    if max_order is not None:
        check_truncation(max_order, "effective_order")
    from .properties import order_of   # the classical order: the processor chi = id reaches it

    probe = series_of(method, 1)
    colours = probe.colours
    cap = MAX_EFFECTIVE_ORDER if colours == 1 else MAX_EFFECTIVE_ORDER_P
    classical = order_of(series_of(method, min(cap, (max_order or cap))))
    top = max_order if max_order is not None else min(classical.order + 2, cap)
    if top > cap:
        raise BSeriesError(f"effective_order examines orders up to {cap}"
                           f"{'' if colours == 1 else ' for P-series (bicoloured trees)'}, not {top}")
    a = series_of(method, top)
    if not all(c.is_Rational for _, c in a.items()):
        raise BSeriesError("effective_order needs rational coefficients (no algebraic numbers or parameters)")
    name = series_label(a)
    d = Derivation(f"Effective order of {name}")
    d = d.add(tex_text(f"Claim: a {'B' if colours == 1 else 'P'}-series processor chi makes chi^-1 o Phi_h o chi of order q, i.e. "
                       "compose(chi, a)(t) = compose(e, chi)(t) for every tree with |t| <= q (Butcher 1969); "
                       "polynomial equations in the coefficients of chi, decided by a Groebner basis over Q."))
    reached, processor = min(classical.order, top), BSeries({}, top, colours=colours)
    holds, method_text = True, ""
    for q in range(reached + 1, top + 1):
        unknowns = _processor_symbols(q, colours)
        symbols = list(unknowns.values())
        equations = _conditions(a, q, unknowns)
        if colours == 1:
            status, result = _solve(equations, symbols)
        else:
            last = [x for t, x in unknowns.items() if t.order == q - 1]
            status, result = _solve_top_linear(equations, [x for x in symbols if x not in last], last)
        if status == "none":
            holds = False
            method_text = (f"exact: the {len(equations)} equations of order {q} have the Groebner basis {{1}} over Q: "
                           f"no processor reaches order {q} (not even a complex one)")
            d = d.add(tex_text(f"Order {q}: {len(equations)} equations in {len(symbols)} unknowns; their Groebner "
                               f"basis is {{1}}: inconsistent."))
            break
        if status == "open":
            holds = None
            method_text = (f"undecided at order {q}: the equations are consistent (Groebner basis not {{1}}) but no "
                           f"real solution was found with the free coefficients set to 0")
            d = d.add(tex_text(f"Order {q}: consistent, no real solution found: undecided."))
            break
        chi = BSeries({t: result[s] for t, s in unknowns.items()}, q, colours=colours)
        if not _processed_order(a, chi, q):  # pragma: no cover - the solution solves the equations
            holds = None
            method_text = f"undecided at order {q}: the processor found does not verify"
            break
        reached, processor = q, chi.with_name(f"processor of {name}")
        d = d.add(tex_text(f"Order {q}: the processor with " + ", ".join(
            f"chi({t.ascii()}) = {result[s]}" for t, s in unknowns.items() if result[s] != 0)
            + " makes chi^-1 o Phi_h o chi agree with the exact flow on every tree with at most "
              f"{q} vertices (recomputed exactly)."))
    if holds is True:
        method_text = (f"exact: a processor with rational coefficients reaches order {reached} (recomputed exactly); "
                       f"orders above {top} were not examined")
        claim = f"{name} has effective order at least {reached} (processor found)"
    elif holds is False:
        claim = f"{name} has effective order {reached + 1} or more"
    else:
        claim = f"{name} has effective order {reached + 1} or more (undecided)"
    return EffectiveOrderCertificate(claim=claim, holds=holds, method=method_text,
                                     stage="exact" if holds is not None else "unknown", derivation=d,
                                     witness=processor, order=reached)
