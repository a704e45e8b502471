"""Exact structure checks of B-series and P-series, for every vector field at once.

Each function takes a :class:`~geomcheck.bseries.series.BSeries` (or anything
:func:`~geomcheck.bseries.methods.series_of` accepts) and an order ``p`` and returns a
:class:`~geomcheck.certify.certificate.Certificate`: ``holds`` True when the conditions
are proved in the exact arithmetic of the coefficients (``series.domain``), False with the
first violating tree, pair of trees or combination of conditions and its nonzero residual,
None when the arithmetic cannot decide.  An order-``p`` statement involves only trees with
at most ``p`` vertices ("up to order ``p``": the defect is ``O(h^(p+1))``).

* :func:`order_of` -- the largest ``p`` with ``a(t) = 1/gamma(t)`` for ``|t| <= p``
  (Butcher; HLW III.1);
* :func:`is_symmetric` -- ``adjoint(a) == a`` up to order ``p`` (HLW II.3, V.1);
* :func:`is_symplectic` -- ``a(u∘v) + a(v∘u) = a(u) a(v)`` for ``|u| + |v| <= p`` (HLW
  Thm VI.7.6); for P-series the bicoloured conditions of HLW VI.7 (see the function);
* :func:`is_hamiltonian` -- a vector-field series ``b``: ``b(u∘v) + b(v∘u) = 0`` (HLW IX.9:
  the field is Hamiltonian for every Hamiltonian ``f``);
  :func:`modified_equation_is_hamiltonian` -- the same for a method's modified equation;
* :func:`is_conjugate_symplectic` -- the method is conjugate (by a B-series map) to a method
  that is symplectic up to order ``p``; decided constructively (True comes with the
  conjugating vector fields), False with an obstruction no conjugation can remove;
* :func:`is_energy_preserving` -- ``H(y1) - H(y0) = O(h^(p+1))`` for every Hamiltonian
  system (Faou, Hairer, Pham 2004; Celledoni, McLachlan, Owren, Quispel 2010): conditions on
  the modified field, one per free tree.

A family with a free parameter (``alpha``) is decided identically in the parameter (the
coefficients are rational functions): True means "for every alpha", and False means that a
residual is a nonzero rational function -- the property fails for all but finitely many
values of ``alpha`` (on one parameter), and the certificate shows that residual, whose zeros
are the only candidates.

>>> import sympy
>>> from geomcheck.bseries.methods import runge_kutta
>>> R = sympy.Rational
>>> midpoint = runge_kutta([[R(1, 2)]], [1], order=6, name="implicit midpoint")
>>> is_symplectic(midpoint, 6).holds, is_symmetric(midpoint, 6).holds
(True, True)
>>> c = is_energy_preserving(midpoint, 3)
>>> c.holds, str(c.counterexample["trees"][0])
(False, '[τ²]')
>>> trapezoidal = runge_kutta([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)], order=6)
>>> is_symplectic(trapezoidal, 3).holds, is_conjugate_symplectic(trapezoidal, 6).holds
(False, True)
"""

from __future__ import annotations

import math
from fractions import Fraction

import sympy

from ..certify.certificate import Certificate
from ..certify.tableaux import OrderCertificate, PartitionedTableau
from ..certify.trees import MAX_ORDER, RootedTree, trees_of_order, trees_up_to
from ..errors import BSeriesError, InvalidArgumentError
from ..latex import Derivation, tex_text
from .laws import adjoint, logarithm
from .methods import series_of
from .series import BSeries
from .tree_ops import butcher_product, single_cuts, tree_from_children

__all__ = [
    "order_of",
    "is_symmetric",
    "is_symplectic",
    "is_hamiltonian",
    "modified_equation_is_hamiltonian",
    "is_conjugate_symplectic",
    "is_energy_preserving",
    "symplecticity_pairs",
    "energy_classes",
]

_REF_SYMPLECTIC = ("Hairer, Lubich, Wanner, Geometric Numerical Integration, Thm VI.7.6 (Calvo, Sanz-Serna "
                   "1994)")
_REF_P_SYMPLECTIC = "Hairer, Lubich, Wanner, Geometric Numerical Integration, VI.7 (symplectic P-series)"
_REF_HAMILTONIAN = "Hairer, Lubich, Wanner, Geometric Numerical Integration, IX.9 (Hamiltonian B-series fields)"
_REF_ENERGY = ("Faou, Hairer, Pham, BIT 44 (2004); Celledoni, McLachlan, Owren, Quispel, Found. Comput. Math. "
               "10 (2010); elementary Hamiltonians of free trees: Hairer, Lubich, Wanner IX.9")

#: rows per typeset table (a table does not break across pages)
_ROWS_PER_TABLE = 36


# ============================================================================ inputs


def _check_p(p, what: str, lowest: int = 1) -> int:
    if isinstance(p, bool) or not isinstance(p, int) or p < lowest:
        raise InvalidArgumentError(f"{what}: the order p must be an integer >= {lowest}, not {p!r}")
    return p


def _series_at(method, p: int, what: str) -> BSeries:
    """The series of ``method`` up to order ``p`` (a BSeries known to a lower order is refused)."""
    if isinstance(method, BSeries) and p > method.order:
        raise BSeriesError(f"{what}: {method.name or 'the series'} is known only up to order {method.order} (its "
                           f"truncation); a statement up to order {p} needs the coefficients of every tree with "
                           f"at most {p} vertices")
    if p > MAX_ORDER[method.colours if isinstance(method, BSeries) else 1]:
        raise InvalidArgumentError(f"{what}: order {p} is beyond the largest generated tree order")
    return series_of(method, p)


def _label(s: BSeries) -> str:
    return s.name or "the series"


def _require_method(s: BSeries, what: str):
    if s.domain.is_zero(s.empty_element - s.domain.one) is not True:
        raise BSeriesError(f"{what} needs a method or flow (coefficient 1 of the empty tree); "
                           f"{_label(s)} has a(∅) = {s.empty}"
                           + (" -- a vector field: use is_hamiltonian" if s.is_vector_field else ""))


def _require_field(s: BSeries, what: str):
    if not s.is_vector_field:
        raise BSeriesError(f"{what} needs a vector-field series (coefficient 0 of the empty tree); "
                           f"{_label(s)} has a(∅) = {s.empty} -- a method: use modified_equation_is_hamiltonian")


def _tree_label(t) -> str:
    return "the tree " + t.ascii()


def _pair_label(key) -> str:
    if isinstance(key, tuple) and len(key) == 3:
        kind, u, v = key
        if kind == "root colour":
            return f"the root-colour condition of {u.ascii()} and {v.ascii()}"
        return f"the pair u = {u.ascii()}, v = {v.ascii()}"
    return str(key)


def _tex(dom, x) -> str:
    return dom.tex(x) if x else "0"


def _tables(d: Derivation, rows: list, head: str, heading: str) -> Derivation:
    """Tables of already typeset rows (``rows`` are lists of LaTeX cells)."""
    cols = len(head.split("&"))
    start = r"\begin{tabular}{" + "l" * cols + "} " + head + r" \\ \hline "
    for k in range(0, len(rows), _ROWS_PER_TABLE):
        body = "\n".join(" & ".join(r) + r" \\" for r in rows[k:k + _ROWS_PER_TABLE])
        d = d.add((heading if k == 0 else "(continued)") + "\n\n" + start + body + r"\end{tabular}")
    return d


def _intro(s: BSeries, title: str) -> Derivation:
    kind = "B-series (rooted trees)" if s.colours == 1 else "P-series (bicoloured trees)"
    d = Derivation(tex_text(title))
    d = d.add(f"The {kind} of {tex_text(_label(s))}, " + r"$B(a, y) = a(\emptyset) y + \sum_t "
              r"\frac{h^{|t|}}{\sigma(t)} a(t) F(t)(y)$, truncated at order " + str(s.order) + ".")
    return d.add("Arithmetic: " + tex_text(s.domain.describe()) + ".")


def _certificate(s, items, claim, d, label, *, residual, success, failure, counterexample):
    """Decide ``items`` [(key, residual element)] in the series' arithmetic."""
    dom = s.domain
    holds, stage, method, key = dom.decide(items, label)
    cx = None
    if holds is False:
        r = dict(items)[key]
        cx = counterexample(key, dom.to_sympy(r))
        d = d.concluding(failure(key, r))
    elif holds:
        d = d.concluding(success)
    else:
        d = d.concluding("Undecided: " + tex_text(method) + ".")
    return Certificate(claim=claim, holds=holds, method=method, stage=stage, residual=residual,
                       counterexample=cx, derivation=d)


# ============================================================================ order


def order_of(method: object, max_order: int | None = None) -> OrderCertificate:
    """The order of a method: the largest ``p <= max_order`` with ``a(t) = 1/gamma(t)`` for ``|t| <= p``.

    Parameters
    ----------
    method : BSeries, tableau, or an object with ``.bseries(order)``
        A method (``a(∅) = 1``).
    max_order : int, optional
        The highest order examined; for a BSeries its truncation order (the default), for
        other methods 8 (rooted trees) or 5 (P-trees) by default.  When every condition up to
        it holds, the claim is "order at least max_order".

    Returns
    -------
    OrderCertificate
        ``order``, ``failing_tree`` (the first tree of order ``order + 1`` whose condition
        fails, None when none does within ``max_order``), ``residual`` its ``a(t) - 1/gamma(t)``.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.bseries.methods import runge_kutta, exact_flow
    >>> c = order_of(runge_kutta([[0, 0], [1, 0]], [sympy.Rational(1, 2), sympy.Rational(1, 2)], order=4))
    >>> c.order, str(c.failing_tree), c.residual, c.claim
    (2, '[τ²]', 1/6, 'the order of the series is 2')
    >>> c = order_of(exact_flow(5))
    >>> c.order, c.failing_tree, c.claim
    (5, None, 'the order of exact flow is at least 5 (its truncation order)')
    """
    if max_order is None:
        if isinstance(method, BSeries):
            max_order = method.order
        else:
            max_order = 5 if isinstance(method, PartitionedTableau) else 8
    _check_p(max_order, "order_of")
    s = _series_at(method, max_order, "order_of")
    _require_method(s, "order_of")
    dom = s.domain
    kind = "rooted trees" if s.colours == 1 else "bicoloured trees"
    d = _intro(s, f"Order of {_label(s)}")
    d = d.add(r"A method has order $\ge p$ iff $a(t) = 1/\gamma(t)$ for every " + kind + r" $t$ with $|t| \le p$ "
              r"(Butcher; Hairer, Lubich, Wanner III.1, Thm 1.3 and III.2); only trees with at most $p$ "
              r"vertices enter.")
    residuals = {}
    stages = set()
    for n in range(1, max_order + 1):
        items = [(t, s.element(t) - dom.const(1, t.gamma)) for t in trees_of_order(n, s.colours)]
        holds, stage, how, key = dom.decide(items, _tree_label)
        stages.add(stage)
        for t, r in items:
            residuals[t] = dom.to_sympy(r)
        rows = [[f"${t._latex()}$", str(t.gamma), f"${_tex(dom, s.element(t))}$", f"${_tex(dom, r)}$"]
                for t, r in items]
        d = _tables(d, rows, r"$t$ & $\gamma(t)$ & $a(t)$ & $a(t) - 1/\gamma(t)$",
                    f"The conditions of the {len(items)} trees with {n} vertices:")
        if holds is True:
            continue
        p = n - 1
        if holds is False:
            r = dict(items)[key]
            d = d.concluding(f"Every condition up to order {p} holds and the condition of ${key._latex()}$ "
                             f"(order {n}) fails with residual ${dom.tex(r)}$: the order is exactly {p}.")
            return OrderCertificate(
                claim=f"the order of {_label(s)} is {p}", holds=True,
                method=f"{how}; every condition up to order {p} holds", stage=_weakest(stages),
                residual=dom.to_sympy(r),
                derivation=d, order=p, failing_tree=key, residuals=residuals)
        d = d.concluding(f"The conditions of order {n} could not be decided ({tex_text(how)}).")
        return OrderCertificate(
            claim=f"the order of {_label(s)} is {p}", holds=None,
            method=f"conditions up to order {p} hold; order {n} undecided: {how}", stage="unknown",
            derivation=d, order=p, failing_tree=None, residuals=residuals)
    d = d.concluding(f"All conditions up to order {max_order} hold: the order is at least {max_order}.")
    limit = " (its truncation order)" if isinstance(method, BSeries) and max_order == method.order else ""
    return OrderCertificate(
        claim=f"the order of {_label(s)} is at least {max_order}{limit}", holds=True,
        method=f"{dom.describe()}: all {len(residuals)} conditions up to order {max_order} hold",
        stage=_weakest(stages), derivation=d, order=max_order, failing_tree=None, residuals=residuals)


_STAGE_RANK = {"structural": 0, "exact": 1, "counterexample": 1, "randomized": 2, "numeric": 2, "unknown": 3}


def _weakest(stages) -> str:
    """The stage of several decisions together: the weakest of them."""
    return max(stages, key=lambda st: _STAGE_RANK.get(st, 3)) if stages else "structural"


# ============================================================================ symmetry


def is_symmetric(method: object, p: int) -> Certificate:
    """Whether the method equals its adjoint up to order ``p``: ``adjoint(a)(t) = a(t)`` for ``|t| <= p``.

    The adjoint ``Phi*_h = Phi_{-h}^{-1}`` has ``a*(t) = (-1)^|t| a^{-1}(t)`` (the Butcher-group
    inverse); a method is symmetric iff ``a* = a`` (HLW II.3 and V.1).

    >>> import sympy
    >>> from geomcheck.bseries.methods import runge_kutta
    >>> euler = runge_kutta([[0]], [1], order=3, name="explicit Euler")
    >>> c = is_symmetric(euler, 3)
    >>> c.holds, str(c.counterexample["tree"]), c.counterexample["residual"]
    (False, '[τ]', 1)
    """
    _check_p(p, "is_symmetric")
    s = _series_at(method, p, "is_symmetric")
    _require_method(s, "is_symmetric")
    adj = adjoint(s)
    dom = s.domain
    trees = trees_up_to(p, s.colours)
    items = [(t, adj.element(t) - s.element(t)) for t in trees]
    d = _intro(s, f"Symmetry of {_label(s)} up to order {p}")
    d = d.add(r"The adjoint method $\Phi^*_h = \Phi_{-h}^{-1}$ has the series $a^*(t) = (-1)^{|t|} a^{-1}(t)$, "
              r"$a^{-1}$ the inverse in the Butcher group; the method is symmetric up to order $p$ iff "
              r"$a^*(t) = a(t)$ for all trees with $|t| \le p$ (Hairer, Lubich, Wanner II.3, V.1).")
    rows = [[f"${t._latex()}$", f"${_tex(dom, s.element(t))}$", f"${_tex(dom, adj.element(t))}$", f"${_tex(dom, r)}$"]
            for t, r in items]
    d = _tables(d, rows, r"$t$ & $a(t)$ & $a^*(t)$ & $a^*(t) - a(t)$", f"The {len(items)} trees with at most {p} "
                f"vertices:")
    residual = {t: dom.to_sympy(r) for t, r in items}
    return _certificate(
        s, items, f"{_label(s)} is symmetric up to order {p} (adjoint(a)(t) = a(t) for every tree with <= {p} "
                  f"vertices)", d, _tree_label, residual=residual,
        success=f"All {len(items)} conditions hold: the method is symmetric up to order {p}.",
        failure=lambda t, r: f"The condition of ${t._latex()}$ fails: $a^*(t) - a(t) = {dom.tex(r)} \\neq 0$.",
        counterexample=lambda t, r: {"tree": t, "residual": r})


# ============================================================================ symplecticity


def _flip_root(t: RootedTree) -> RootedTree:
    return tree_from_children(1 - t.colour, t.children, t.colours)


def symplecticity_pairs(n: int, colours: int = 1) -> list:
    """The conditions of degree ``n`` of symplecticity, as keys ``(kind, u, v)``.

    Rooted trees: ``("pair", u, v)`` for ``|u| + |v| = n``, each unordered pair once (``u``
    not after ``v``).  Bicoloured trees: ``("pair", u, v)`` with ``u`` of root colour 0 and
    ``v`` of root colour 1, and ``("root colour", t, t')`` for ``|t| = n`` of root colour 0,
    ``t'`` the same tree with root colour 1.

    >>> [(k, str(u), str(v)) for k, u, v in symplecticity_pairs(3)]
    [('pair', 'τ', '[τ]')]
    >>> len(symplecticity_pairs(2, colours=2))
    3
    """
    _check_p(n, "symplecticity_pairs")
    if colours not in (1, 2) or isinstance(colours, bool):
        raise InvalidArgumentError(f"symplecticity_pairs: colours must be 1 or 2, not {colours!r}")
    if n > MAX_ORDER[colours]:
        raise InvalidArgumentError(f"symplecticity_pairs: degree {n} is beyond the largest generated tree order")
    out = []
    if colours == 1:
        for m in range(1, n // 2 + 1):
            for u in trees_of_order(m):
                for v in trees_of_order(n - m):
                    if m < n - m or u.index <= v.index:
                        out.append(("pair", u, v))
        return out
    for t in trees_of_order(n, 2):
        if t.colour == 0:
            out.append(("root colour", t, _flip_root(t)))
    for m in range(1, n):
        for u in trees_of_order(m, 2):
            if u.colour != 0:
                continue
            for v in trees_of_order(n - m, 2):
                if v.colour == 1:
                    out.append(("pair", u, v))
    return out


def _omega(s: BSeries, key, with_product: bool):
    """The residual of one condition: ``a(u∘v) + a(v∘u) - a(u) a(v)`` (``with_product``) or
    ``b(u∘v) + b(v∘u)``; ``a(t) - a(t')`` for a root-colour condition."""
    kind, u, v = key
    if kind == "root colour":
        return s.element(u) - s.element(v)
    r = s.element(butcher_product(u, v)) + s.element(butcher_product(v, u))
    if with_product:
        r = r - s.element(u) * s.element(v)
    return r


def _pair_rows(s, items, with_product):
    dom = s.domain
    rows = []
    for key, r in items:
        kind, u, v = key
        if kind == "root colour":
            rows.append([f"${u._latex()}$", f"${v._latex()}$", r"\text{root colours}", f"${_tex(dom, r)}$"])
        else:
            rows.append([f"${u._latex()}$", f"${v._latex()}$",
                         f"${butcher_product(u, v)._latex()}$, ${butcher_product(v, u)._latex()}$",
                         f"${_tex(dom, r)}$"])
    return rows


def _symplectic_items(s: BSeries, p: int, with_product: bool) -> list:
    return [(key, _omega(s, key, with_product)) for n in range(1, p + 1) for key in symplecticity_pairs(n, s.colours)]


def is_symplectic(method: object, p: int) -> Certificate:
    """Whether a method (``a(∅) = 1``) is symplectic up to order ``p``, for every Hamiltonian system.

    B-series (HLW Thm VI.7.6): ``a(u∘v) + a(v∘u) = a(u) a(v)`` for all trees ``u, v`` with
    ``|u| + |v| <= p``, ``u∘v`` the Butcher product (``v`` grafted onto the root of ``u``).

    P-series (partitioned Hamiltonian systems ``q' = H_p``, ``p' = -H_q``; colour 0 is the
    ``q`` part; HLW VI.7): ``a(u∘v) + a(v∘u) = a(u) a(v)`` for ``u`` of root colour 0 and ``v``
    of root colour 1, and ``a(t) = a(t')`` for trees differing only in the colour of the root,
    all with at most ``p`` vertices.

    The conditions are necessary and sufficient for the series, so they hold on a reducible
    tableau exactly when they hold on its reduction.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.bseries.methods import runge_kutta
    >>> R = sympy.Rational
    >>> c = is_symplectic(runge_kutta([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)], order=4), 4)
    >>> c.holds, [str(t) for t in c.counterexample["pair"]], c.counterexample["residual"]
    (False, ['τ', '[τ]'], 1/4)
    """
    _check_p(p, "is_symplectic")
    s = _series_at(method, p, "is_symplectic")
    _require_method(s, "is_symplectic")
    return _symplectic_certificate(s, p, True)


def is_hamiltonian(series: object, p: int) -> Certificate:
    """Whether a vector-field series ``h f~ = B(b)`` (``b(∅) = 0``) is Hamiltonian up to order ``p``.

    ``b(u∘v) + b(v∘u) = 0`` for all ``|u| + |v| <= p`` (HLW IX.9): then ``f~`` is Hamiltonian for
    every Hamiltonian ``f``, with a modified Hamiltonian that is a series of elementary
    Hamiltonians.  P-series: the pairs ``u`` of root colour 0, ``v`` of root colour 1, and
    ``b(t) = b(t')`` for trees differing only in the root colour (the linearisation of
    :func:`is_symplectic`).

    >>> import sympy
    >>> from geomcheck.bseries.methods import runge_kutta
    >>> from geomcheck.bseries.laws import logarithm
    >>> midpoint = runge_kutta([[sympy.Rational(1, 2)]], [1], order=6)
    >>> is_hamiltonian(logarithm(midpoint), 6).holds
    True
    """
    _check_p(p, "is_hamiltonian")
    s = _series_at(series, p, "is_hamiltonian")
    _require_field(s, "is_hamiltonian")
    return _symplectic_certificate(s, p, False)


def modified_equation_is_hamiltonian(method: object, p: int) -> Certificate:
    """Whether the modified equation of ``method`` (its logarithm) is Hamiltonian up to order ``p``.

    For a method this is equivalent to :func:`is_symplectic` up to the same order (the
    modified field of a symplectic B-series method is Hamiltonian, HLW IX.9).

    >>> import sympy
    >>> from geomcheck.bseries.methods import runge_kutta
    >>> c = modified_equation_is_hamiltonian(runge_kutta([[0]], [1], order=3), 3)
    >>> c.holds, [str(t) for t in c.counterexample["pair"]]
    (False, ['τ', 'τ'])
    """
    _check_p(p, "modified_equation_is_hamiltonian")
    s = _series_at(method, p, "modified_equation_is_hamiltonian")
    _require_method(s, "modified_equation_is_hamiltonian")
    b = logarithm(s).with_name(f"the modified equation of {_label(s)}")
    return _symplectic_certificate(b, p, False)


def _symplectic_certificate(s: BSeries, p: int, method: bool) -> Certificate:
    dom = s.domain
    items = _symplectic_items(s, p, method)
    what = "symplectic" if method else "Hamiltonian"
    d = _intro(s, f"{what.capitalize()} up to order {p}: {_label(s)}")
    if s.colours == 1:
        cond = (r"a(u \circ v) + a(v \circ u) = a(u)\, a(v)" if method else r"b(u \circ v) + b(v \circ u) = 0")
        ref = _REF_SYMPLECTIC if method else _REF_HAMILTONIAN
        d = d.add(("A B-series method is symplectic (for every Hamiltonian system) iff, for all trees $u, v$ "
                   if method else "A B-series vector field is Hamiltonian for every Hamiltonian $f$ iff, for all "
                                  "trees $u, v$ ")
                  + r"($u \circ v$: $v$ grafted onto the root of $u$), (" + tex_text(ref) + r"); up to order $p$ "
                  r"the conditions with $|u| + |v| \le p$:", cond)
    else:
        cond = (r"a(u \circ v) + a(v \circ u) = a(u)\, a(v) \ (u \text{ of root } \bullet,\ v \text{ of root } "
                r"\circ), \quad a(t) = a(t') \ (t, t' \text{ differing in the root colour only})" if method else
                r"b(u \circ v) + b(v \circ u) = 0 \ (u \text{ of root } \bullet,\ v \text{ of root } \circ), \quad "
                r"b(t) = b(t') \ (t, t' \text{ differing in the root colour only})")
        d = d.add("A P-series is symplectic for every partitioned Hamiltonian system iff (" + tex_text(_REF_P_SYMPLECTIC)
                  + "; for a vector field the linearised conditions); up to order $p$ those with at most $p$ "
                  "vertices:", cond)
    d = _tables(d, _pair_rows(s, items, method), r"$u$ & $v$ & trees & residual",
                f"The {len(items)} conditions up to order {p}:")
    residual = {_pair_label(k): dom.to_sympy(r) for k, r in items}
    claim = (f"{_label(s)} is {what} up to order {p} (all {len(items)} conditions on trees with at most {p} "
             f"vertices)")

    def counterexample(key, r):
        kind, u, v = key
        if kind == "root colour":
            return {"root colour": (u, v), "residual": r}
        return {"pair": (u, v), "trees": (butcher_product(u, v), butcher_product(v, u)), "residual": r}

    def failure(key, r):
        kind, u, v = key
        if kind == "root colour":
            return (f"The coefficients of ${u._latex()}$ and ${v._latex()}$ differ by ${dom.tex(r)}$: the method "
                    f"is not {what}.")
        return (f"The condition of $u = {u._latex()}$, $v = {v._latex()}$ (order {u.order + v.order}) fails "
                f"with residual ${dom.tex(r)} \\neq 0$: not {what} up to order {u.order + v.order}.")

    return _certificate(s, items, claim, d, _pair_label, residual=residual,
                        success=f"All {len(items)} conditions hold: {what} up to order {p}.", failure=failure,
                        counterexample=counterexample)


# ============================================================================ Lie algebra of B-series fields


def _prelie(dom, y: dict, c: dict, trees) -> dict:
    """``y ◁ c``: the series of ``f_y' f_c`` (``c`` grafted onto ``y``): sum over single cuts."""
    out = {}
    for t in trees:
        acc = None
        for s, u, m in single_cuts(t):
            ys = y.get(s)
            if not ys:
                continue
            cu = c.get(u)
            if not cu:
                continue
            term = dom.const(m) * ys * cu
            acc = term if acc is None else acc + term
        if acc is not None and acc:
            out[t] = acc
    return out


def _ad(dom, c: dict, y: dict, trees) -> dict:
    """``[c, y] = y' c - c' y`` (the Lie derivative of the field ``y`` along ``c``)."""
    a = _prelie(dom, y, c, trees)
    b = _prelie(dom, c, y, trees)
    out = dict(a)
    for t, x in b.items():
        v = out.get(t, dom.zero) - x
        if v:
            out[t] = v
        else:
            out.pop(t, None)
    return out


def _exp_ad(dom, c: dict, b: dict, trees) -> dict:
    """``exp(ad_c) b`` truncated to ``trees``: the modified field of ``chi^-1 o Phi o chi`` for
    ``chi = exp(c)`` when ``b`` is that of ``Phi`` (the pull-back of a field by a flow)."""
    out = dict(b)
    term = b
    k = 0
    while term:
        k += 1
        term = _ad(dom, c, term, trees)
        if not term:
            break
        f = dom.const(1, math.factorial(k))
        for t, x in term.items():
            v = out.get(t, dom.zero) + f * x
            if v:
                out[t] = v
            else:
                out.pop(t, None)
    return out


def _ad_tau_matrix_row(t: RootedTree) -> dict:
    """``{s: m}``: the coefficient of ``c(s)`` in ``[c, τ](t)`` (``c`` of degree ``|t| - 1``)."""
    row: dict = {}
    for s, u, m in single_cuts(t):
        if s.order == 1:        # t = [u]: tau' c, the root alone is tau
            row[u] = row.get(u, 0) + m
        if u.order == 1:        # a leaf cut off: c' tau
            row[s] = row.get(s, 0) - m
    return {k: v for k, v in row.items() if v}


# ---------------------------------------------------------------- exact elimination over Q (cached)

_CONJUGATION_TABLES: dict = {}


def _axpy(target: dict, f, source: dict) -> dict:
    """``target - f * source`` for sparse vectors (dicts), dropping the zeros."""
    out = dict(target)
    for j, x in source.items():
        v = out.get(j, 0) - f * x
        if v:
            out[j] = v
        else:
            out.pop(j, None)
    return out


def _subtract_multiple(r: dict, cmb: dict, f, pr: dict, pc: dict) -> tuple:
    """The row ``r`` (with its combination ``cmb``) minus ``f`` times the pivot row ``(pr, pc)``."""
    if not f:
        return r, cmb
    return _axpy(r, f, pr), _axpy(cmb, f, pc)


def _eliminate(rows: list, ncols: int):
    """Reduced row echelon form of a sparse rational matrix, with the row operations.

    ``rows``: list of dicts col -> Fraction.  Returns ``(pivots, null)``: ``pivots`` a list
    of ``(col, reduced row, combination)`` (``combination`` a dict original-row -> Fraction
    with ``combination . rows = reduced row``), ``null`` the combinations of the rows that
    reduce to zero (a basis of the left null space).
    """
    work = [(dict(r), {i: Fraction(1)}) for i, r in enumerate(rows)]
    pivots = []
    remaining = work
    for col in range(ncols):
        best = None
        for k, (r, _cmb) in enumerate(remaining):
            if col in r and (best is None or len(r) < len(remaining[best][0])):
                best = k
        if best is None:
            continue
        pr, pc = remaining.pop(best)
        inv = 1 / pr[col]
        pr = {j: x * inv for j, x in pr.items()}
        pc = {j: x * inv for j, x in pc.items()}
        # eliminate the column from the other rows, and back-substitute into earlier pivot rows
        remaining = [_subtract_multiple(r, cmb, r.get(col), pr, pc) for r, cmb in remaining]
        done = [(pcol, *_subtract_multiple(r, cmb, r.get(col), pr, pc)) for pcol, r, cmb in pivots]
        pivots = done + [(col, pr, pc)]
    null = [cmb for r, cmb in remaining]
    return pivots, null


def _conjugation_table(n: int):
    """The linear algebra of step ``n`` (method independent, cached).

    Conjugating by ``exp(c)``, ``c`` of degree ``n - 1``, adds ``a(τ) [c, τ]`` to the degree-``n``
    part of the modified field and changes nothing below.  Returns ``(pairs, cols, pivots, null,
    kernel_hamiltonian)``: the Hamiltonian conditions of degree ``n``, the trees of degree
    ``n - 1`` (unknowns), the elimination of the map ``c -> (conditions of [c, τ])``, and whether
    every ``c`` in its kernel is itself a Hamiltonian field (what makes a failure a proof).
    """
    got = _CONJUGATION_TABLES.get(n)
    if got is not None:
        return got
    pairs = symplecticity_pairs(n)
    cols = list(trees_of_order(n - 1)) if n >= 3 else []
    index = {t: j for j, t in enumerate(cols)}
    rows = []
    for _kind, u, v in pairs:
        row: dict = {}
        if cols:
            for t in (butcher_product(u, v), butcher_product(v, u)):
                for s, m in _ad_tau_matrix_row(t).items():
                    j = index[s]
                    row[j] = row.get(j, 0) + Fraction(m)
        rows.append({j: x for j, x in row.items() if x})
    pivots, null = _eliminate(rows, len(cols))
    # the kernel: one vector per free column; is each a Hamiltonian field of degree n - 1?
    pivot_cols = {pcol for pcol, _r, _c in pivots}
    kernel_hamiltonian = True
    if cols:
        lower = symplecticity_pairs(n - 1) if n - 1 >= 2 else []
        for f in range(len(cols)):
            if f in pivot_cols:
                continue
            k = {cols[f]: Fraction(1)}
            for pcol, r, _cmb in pivots:
                x = r.get(f)
                if x:
                    k[cols[pcol]] = -x
            for _kind, u, v in lower:
                if k.get(butcher_product(u, v), 0) + k.get(butcher_product(v, u), 0) != 0:
                    kernel_hamiltonian = False
                    break
            if not kernel_hamiltonian:
                break
    got = (pairs, cols, pivots, null, kernel_hamiltonian)
    _CONJUGATION_TABLES[n] = got
    return got


def _frac(dom, x: Fraction):
    return dom.const(x.numerator, x.denominator)


def is_conjugate_symplectic(method: object, p: int) -> Certificate:
    """Whether the method is conjugate to a method that is symplectic up to order ``p``.

    Claim: there is a B-series map ``chi = id + O(h)`` such that ``chi^-1 o Phi_h o chi`` is
    symplectic up to order ``p`` (its symplecticity conditions with ``|u| + |v| <= p`` hold),
    i.e. ``Phi_h`` is conjugate-symplectic up to order ``p`` (Hairer, Zbinden 2013; Chartier,
    Faou, Murua 2006; HLW VI.8).  Only trees with at most ``p`` vertices enter.

    Decided constructively on the modified field ``b = log a`` (HLW IX.9), degree by degree:
    conjugating by the flow ``exp(c)`` of a field ``c`` of degree ``n - 1`` turns ``b`` into
    ``exp(ad_c) b`` (the pull-back), which changes the degree-``n`` part by ``a(τ) [c, τ]`` and
    nothing below.  At each degree the Hamiltonian conditions ``b(u∘v) + b(v∘u) = 0`` of that
    degree are a linear system for ``c``, solved exactly:

    * solvable at every degree up to ``p``: **True**; the witness is the list of fields
      ``c_2, ..., c_(p-1)`` (BSeries of one degree each), the conjugation being
      ``chi = exp(c_2) o exp(c_3) o ...`` (``exp(c_(p-1))`` applied first), and the final field is
      checked Hamiltonian up to order ``p`` -- so the conjugated method is symplectic up to
      order ``p`` (a field Hamiltonian to order ``p`` has a flow symplectic to order ``p``);
    * not solvable at degree ``n``: a combination of the degree-``n`` conditions that no
      conjugation of degree ``n - 1`` changes is nonzero.  This is a proof (**False**) when the
      kernel of ``c -> [c, τ]`` (modulo Hamiltonian conditions) consists of Hamiltonian fields
      at every degree used -- then every other choice of the earlier ``c`` differs by a
      symplectic conjugation, which changes nothing, and an arbitrary conjugation differs
      from ours by such choices and by terms of degree ``>= n`` (which do not reach degree
      ``n``).  The tables are checked; if a kernel were not Hamiltonian the answer is None.

    Results (tested): the trapezoidal rule is conjugate-symplectic to every order checked (10
    in about 2 s); Lobatto IIIA with 3 stages up to order 6 but not 7; Lobatto IIIB with 3
    stages up to order 4 but not 5; the average vector field method up to order 4 but not 5;
    explicit and implicit Euler not up to order 2, the explicit midpoint rule not up to
    order 4.  The linear algebra of each degree is independent of the method and cached
    (degree 11: about 3 s once; degree 12: about a minute).

    Parameters
    ----------
    method : BSeries (rooted trees), ButcherTableau, or an object with ``.bseries(order)``
        A consistent method (``a(∅) = 1``, ``a(τ) != 0``; ``a(τ)`` must not depend on a
        family's parameters, else the answer is None).
    p : int

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.bseries.methods import runge_kutta
    >>> R = sympy.Rational
    >>> trap = runge_kutta([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)], order=8, name="trapezoidal rule")
    >>> c = is_conjugate_symplectic(trap, 8)
    >>> c.holds, len(c.witness)
    (True, 6)
    >>> euler = runge_kutta([[0]], [1], order=3, name="explicit Euler")
    >>> c = is_conjugate_symplectic(euler, 3)
    >>> c.holds, c.counterexample["degree"], c.counterexample["residual"]
    (False, 2, -1)
    """
    _check_p(p, "is_conjugate_symplectic")
    s = _series_at(method, p, "is_conjugate_symplectic")
    if s.colours != 1:
        raise BSeriesError("is_conjugate_symplectic is implemented for B-series (rooted trees), not P-series")
    _require_method(s, "is_conjugate_symplectic")
    dom = s.domain
    tau = trees_of_order(1)[0]
    lam = s.element(tau)
    claim = (f"{_label(s)} is conjugate (by a B-series map) to a method symplectic up to order {p} (conditions "
             f"on trees with at most {p} vertices)")
    d = _intro(s, f"Conjugate symplecticity of {_label(s)} up to order {p}")
    d = d.add(r"Claim: there is a B-series map $\chi = \mathrm{id} + O(h)$ such that $\chi^{-1} \circ \Phi_h \circ "
              r"\chi$ is symplectic up to order $p$, i.e. its symplecticity conditions $a(u \circ v) + a(v \circ u) "
              r"= a(u) a(v)$ (" + tex_text(_REF_SYMPLECTIC) + r") hold for $|u| + |v| \le p$; equivalently its "
              r"modified field is Hamiltonian up to order $p$: $b(u \circ v) + b(v \circ u) = 0$ ("
              + tex_text(_REF_HAMILTONIAN) + ").")
    d = d.add(r"Conjugating by the flow $\chi = \exp(c)$ of a B-series field $c$ of degree $n - 1$ turns the "
              r"modified field $b$ into $\exp(\mathrm{ad}_c) b$, which adds $a(\tau)\,[c, \tau]$ at degree $n$ "
              r"and changes nothing below; degree by degree this is a linear system for $c$, solved exactly.")
    lam_zero = dom.is_zero(lam)
    if lam_zero is False and sympy.sympify(dom.to_sympy(lam)).free_symbols:
        d = d.concluding(r"Undecided: $a(\tau)$ depends on the parameters, and the conjugating fields would be "
                         r"divided by it.")
        return Certificate(claim=claim, holds=None, stage="unknown", derivation=d,
                           method="a(τ) depends on the parameters of the family (the construction divides by it)")
    if lam_zero is not False:
        d = d.concluding(r"Undecided: $a(\tau)$ is not known to be nonzero, so conjugation cannot be used.")
        return Certificate(claim=claim, holds=None, method="a(τ) is not known to be nonzero (an inconsistent method)",
                           stage="unknown", derivation=d)
    inv_lam = dom.one / lam
    b = dict(logarithm(s).nonzero_elements())
    trees = trees_up_to(p)
    witness = []
    kernels_hamiltonian = True
    rows_tex = []
    for n in range(2, p + 1):
        pairs, cols, pivots, null, kernel_h = _conjugation_table(n)
        defect = [b.get(butcher_product(u, v), dom.zero) + b.get(butcher_product(v, u), dom.zero)
                  for _k, u, v in pairs]
        obstructions = []
        for cmb in null:
            r = dom.zero
            for i, x in cmb.items():
                if defect[i]:
                    r = r + _frac(dom, x) * defect[i]
            obstructions.append((cmb, r))
        items = [(k, r) for k, (_c, r) in enumerate(obstructions)]
        holds, stage, how, key = dom.decide(items, lambda k, n=n: f"obstruction {k + 1} of degree {n}")
        if holds is None:
            d = d.concluding(f"Undecided at degree {n}: " + tex_text(how) + ".")
            return Certificate(claim=claim, holds=None, method=how, stage=stage, derivation=d)
        if holds is False:
            cmb, r = obstructions[key]
            combo = {(pairs[i][1], pairs[i][2]): sympy.Rational(x.numerator, x.denominator)
                     for i, x in sorted(cmb.items())}
            terms = " + ".join(f"({sympy.latex(sympy.Rational(x.numerator, x.denominator))})\\,"
                               f"\\omega({pairs[i][1]._latex()}, {pairs[i][2]._latex()})" for i, x in sorted(cmb.items()))
            cx = {"degree": n, "combination": combo, "residual": dom.to_sympy(r)}
            if not kernels_hamiltonian:
                d = d.concluding(f"At degree {n} the conditions cannot be met by the conjugation constructed, but an "
                                 f"earlier choice was not unique up to Hamiltonian fields: undecided.")
                return Certificate(claim=claim, holds=None, stage="unknown", derivation=d,
                                   method=(f"degree {n}: the constructed conjugation leaves a nonzero obstruction, "
                                           f"but earlier choices were not unique up to symplectic maps"))
            rows = [[f"${u._latex()}$", f"${v._latex()}$", f"${_tex(dom, w)}$"] for (_k, u, v), w in zip(pairs, defect)]
            d = _tables(d, rows, r"$u$ & $v$ & $\omega(u, v)$",
                        f"Degree {n}, after the conjugations of lower degree: the Hamiltonian conditions "
                        r"$\omega(u, v) = b(u \circ v) + b(v \circ u)$ of the conjugated modified field $b$:")
            d = d.add(f"Degree {n}: the combination", terms + f" = {dom.tex(r)}")
            d = d.concluding(
                f"The combination above of the conditions of degree {n} is unchanged by every conjugation of degree "
                f"{n - 1} (it annihilates $c \\mapsto [c, \\tau]$) and is ${dom.tex(r)} \\neq 0$. At every earlier "
                f"degree the conjugating field was unique up to Hamiltonian fields (checked), whose flows are "
                f"symplectic and change no condition; conjugations of degree $\\ge {n}$ do not reach degree {n}. "
                f"So no B-series conjugation makes the method symplectic up to order {n}.")
            return Certificate(
                claim=claim, holds=False, stage=stage, residual=dom.to_sympy(r),
                counterexample=cx, derivation=d,
                method=(f"{dom.describe()}: at degree {n} a combination of the Hamiltonian conditions that no "
                        f"conjugation changes is {dom.short(r)} != 0"))
        kernels_hamiltonian = kernels_hamiltonian and kernel_h
        if not cols:
            continue
        c = {}
        for pcol, _r, cmb in pivots:
            acc = dom.zero
            for i, x in cmb.items():
                if defect[i]:
                    acc = acc + _frac(dom, x) * defect[i]
            if acc:
                c[cols[pcol]] = -(acc * inv_lam)
        if c:
            b = _exp_ad(dom, c, b, trees)
            witness.append(BSeries.from_elements(dom, dict(c), p, empty=dom.zero,
                                                 name=f"conjugating field of degree {n - 1}"))
            rows_tex.append([str(n - 1), str(len(c))])
        else:
            witness.append(BSeries.from_elements(dom, {}, p, empty=dom.zero,
                                                 name=f"conjugating field of degree {n - 1}"))
    final = BSeries.from_elements(dom, b, p, empty=dom.zero, name="the conjugated modified field")
    check = _symplectic_certificate(final, p, False)
    if check.holds is not True:  # pragma: no cover - the construction makes every degree Hamiltonian
        d = d.concluding("The conjugated field could not be confirmed Hamiltonian: undecided.")
        return Certificate(claim=claim, holds=None, method="internal check of the conjugated field failed: "
                                                           + check.method, stage="unknown", derivation=d)
    for step in check.derivation.steps[2:]:     # the Hamiltonian conditions of the conjugated field, by tree
        d = d.add(step.text, step.math)
    if rows_tex:
        d = _tables(d, rows_tex, r"degree of $c$ & nonzero coefficients",
                    "The conjugating fields $c_k$ (the witness):")
    d = d.add(r"The conjugated modified field $\exp(\mathrm{ad}_{c_{p-1}}) \cdots \exp(\mathrm{ad}_{c_2}) b$ "
              f"satisfies all {len(check.residual)} Hamiltonian conditions up to order {p} (exactly).")
    d = d.concluding(r"So $\chi^{-1} \circ \Phi_h \circ \chi$ with $\chi = \exp(c_2) \circ \exp(c_3) \circ \cdots$ is "
                     f"symplectic up to order {p}: the method is conjugate-symplectic up to order {p}.")
    return Certificate(claim=claim, holds=True, stage=check.stage, derivation=d, witness=tuple(witness),
                       method=(f"{dom.describe()}: a conjugating map was constructed degree by degree and the "
                               f"conjugated modified field satisfies all Hamiltonian conditions up to order {p}"))


# ============================================================================ energy preservation


def _adjacency(t: RootedTree, extra_leaf: bool) -> tuple:
    """``(neighbours, leaf)``: the vertices of ``t`` (root 0) as adjacency lists; with
    ``extra_leaf`` a new vertex joined to the root, whose number is ``leaf``."""
    nbrs: list = [[]]

    def grow(u, at):
        for child in u.children:
            k = len(nbrs)
            nbrs.append([at])
            nbrs[at].append(k)
            grow(child, k)

    grow(t, 0)
    leaf = None
    if extra_leaf:
        leaf = len(nbrs)
        nbrs.append([0])
        nbrs[0].append(leaf)
    return nbrs, leaf


def _encode(nbrs, v, parent):
    return tuple(sorted(_encode(nbrs, w, v) for w in nbrs[v] if w != parent))


def _free_tree(nbrs):
    """``(key, centre)`` of a free tree: a canonical key, and the canonical centre vertex
    (None for a superfluous tree: two centres whose halves are isomorphic)."""
    n = len(nbrs)
    degree = [len(x) for x in nbrs]
    layer = [v for v in range(n) if degree[v] <= 1]
    left = n
    removed = [False] * n
    while left > 2:
        nxt = []
        for v in layer:
            removed[v] = True
            left -= 1
            for w in nbrs[v]:
                if not removed[w]:
                    degree[w] -= 1
                    if degree[w] == 1:
                        nxt.append(w)
        layer = nxt
    centres = [v for v in range(n) if not removed[v]]
    if len(centres) == 1:
        c = centres[0]
        return ("vertex", _encode(nbrs, c, None)), c
    c1, c2 = centres
    e1, e2 = _encode(nbrs, c1, c2), _encode(nbrs, c2, c1)
    if e1 == e2:
        return ("superfluous", e1), None
    return (("edge", e1, e2), c1) if e1 < e2 else (("edge", e2, e1), c2)


def _distance(nbrs, a, b) -> int:
    seen = {a: 0}
    frontier = [a]
    while frontier:
        nxt = []
        for v in frontier:
            for w in nbrs[v]:
                if w not in seen:
                    seen[w] = seen[v] + 1
                    nxt.append(w)
        frontier = nxt
    return seen[b]


_ENERGY_CLASSES: dict = {}


def energy_classes(p: int) -> list:
    """The free trees with at most ``p + 1`` vertices that carry a condition, as lists of ``(t, sign)``.

    ``H'(y) F(t)(y)`` (``f = J^-1 grad H``) is the elementary Hamiltonian of the free tree of
    ``[t]`` (``t`` with a new vertex joined to its root), oriented from that vertex; the
    orientations from two vertices differ by ``(-1)^distance``.  ``sign`` is relative to the
    canonical centre.  Superfluous free trees (an automorphism reversing the central edge)
    have a vanishing elementary Hamiltonian and are left out.

    >>> [[(str(t), s) for t, s in cls] for cls in energy_classes(4)]   # doctest: +NORMALIZE_WHITESPACE
    [[('[τ]', 1)], [('[τ²]', 1)], [('[τ³]', 1)], [('[τ[τ]]', 1), ('[[τ²]]', -1)], [('[[[τ]]]', 1)]]
    """
    _check_p(p, "energy_classes")
    if p > MAX_ORDER[1]:
        raise InvalidArgumentError(f"energy_classes: order {p} is beyond the largest generated tree order")
    got = _ENERGY_CLASSES.get(p)
    if got is None:
        classes: dict = {}
        for t in trees_up_to(p):
            nbrs, leaf = _adjacency(t, True)
            key, centre = _free_tree(nbrs)
            if centre is None:
                continue
            sign = -1 if _distance(nbrs, leaf, centre) % 2 else 1
            classes.setdefault(key, []).append((t, sign))
        got = sorted(classes.values(), key=lambda cls: (cls[0][0].order, cls[0][0].index))
        # the first tree of a class decides its sign convention: make it +1 (an overall sign)
        got = [[(t, s * cls[0][1]) for t, s in cls] for cls in got]
        _ENERGY_CLASSES[p] = got
    return got


def is_energy_preserving(method: object, p: int) -> Certificate:
    """Whether ``H(Phi_h(y)) - H(y) = O(h^(p+1))`` for every Hamiltonian system ``y' = J^-1 grad H(y)``.

    With ``h f~ = B(b)`` the modified field (``b = log a``, HLW IX.9; a vector-field series is
    taken as it is), ``H(Phi_h(y)) - H(y) = exp(L_f~) H - H`` has the leading term
    ``H' f~ = sum_t h^|t| b(t)/sigma(t) H'F(t)``, and ``H'F(t)`` is ``+-`` the elementary
    Hamiltonian of the free tree of ``[t]``.  Elementary Hamiltonians of distinct
    non-superfluous free trees are independent (HLW IX.9), so the energy error is
    ``O(h^(p+1))`` iff for every such free tree ``theta`` with at most ``p + 1`` vertices

        sum over the trees t with [t] = theta of  sign(t) b(t) / sigma(t)  = 0

    (Faou, Hairer, Pham 2004; Celledoni, McLachlan, Owren, Quispel 2010).  Only trees with at
    most ``p`` vertices enter.  Every method of order ``r`` satisfies this for ``p = r``.

    >>> from geomcheck.bseries.methods import average_vector_field
    >>> is_energy_preserving(average_vector_field(8), 8).holds
    True
    """
    _check_p(p, "is_energy_preserving")
    s = _series_at(method, p, "is_energy_preserving")
    if s.colours != 1:
        raise BSeriesError("is_energy_preserving is implemented for B-series (rooted trees), not P-series")
    if s.is_vector_field:
        b = s
        what = f"the vector field {_label(s)}"
    else:
        _require_method(s, "is_energy_preserving")
        b = logarithm(s)
        what = _label(s)
    dom = s.domain
    classes = energy_classes(p)
    items = []
    for cls in classes:
        acc = dom.zero
        for t, sign in cls:
            x = b.element(t)
            if x:
                acc = acc + dom.const(sign, t.sigma) * x
        items.append((tuple(t for t, _s in cls), acc))
    d = _intro(s, f"Energy preservation of {what} up to order {p}")
    d = d.add(r"With $h \tilde f = B(b)$ the modified field (" + ("the series itself" if s.is_vector_field else
              r"$b = \log a$") + r"), $H(\Phi_h(y)) - H(y)$ starts with $H'(y) \tilde f(y) = \sum_t "
              r"\frac{h^{|t|} b(t)}{\sigma(t)} H'F(t)$, and $H'F(t)$ is $\pm$ the elementary Hamiltonian of the free "
              r"tree of $[t]$ (signs $(-1)^{\text{distance}}$ between orientations). The elementary Hamiltonians of "
              r"non-superfluous free trees are independent, so the energy error is $O(h^{p+1})$ for every "
              r"Hamiltonian iff for each such free tree $\theta$ with at most $p + 1$ vertices (" + tex_text(_REF_ENERGY)
              + "):", r"\sum_{[t] = \theta} \pm \frac{b(t)}{\sigma(t)} = 0")
    rows = []
    for (cls, (_key, r)) in zip(classes, items):
        terms = " ".join(("+" if sg > 0 else "-") + f" b({t._latex()})/{t.sigma}" for t, sg in cls)
        rows.append([str(cls[0][0].order + 1), f"${terms}$", f"${_tex(dom, r)}$"])
    d = _tables(d, rows, r"vertices of $\theta$ & condition & value", f"The {len(items)} free trees:")
    residual = {", ".join(t.ascii() for t in key): dom.to_sympy(r) for key, r in items}
    return _certificate(
        b, items, f"{what} preserves the Hamiltonian of every Hamiltonian system up to order {p} (energy error "
                  f"O(h^{p + 1}); trees with at most {p} vertices)", d,
        lambda key: "the free tree of " + ", ".join("[" + t.ascii() + "]" for t in key), residual=residual,
        success=f"All {len(items)} conditions hold: the energy error is $O(h^{{{p + 1}}})$.",
        failure=lambda key, r: (f"The condition of the free tree of $[{key[0]._latex()}]$ ({key[0].order + 1} "
                                f"vertices) is ${dom.tex(r)} \\neq 0$: the energy error has a nonzero term of order "
                                f"$h^{{{key[0].order}}}$."),
        counterexample=lambda key, r: {"trees": key, "residual": r})
