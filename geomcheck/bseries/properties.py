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
* :func:`~geomcheck.bseries.conjugate.is_conjugate_symplectic` (its own module) -- the method
  is conjugate (by a B-series map) to a method that is symplectic up to order ``p``;
* :func:`~geomcheck.bseries.energy.is_energy_preserving` (its own module) -- ``H(y1) - H(y0) =
  O(h^(p+1))`` for every Hamiltonian system, one condition per free tree.

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
>>> trapezoidal = runge_kutta([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)], order=6)
>>> is_symplectic(trapezoidal, 3).holds, is_symmetric(trapezoidal, 6).holds
(False, True)
"""

from __future__ import annotations



from ..certify.certificate import Certificate
from ..certify.tableaux import OrderCertificate, PartitionedTableau
from ..certify.trees import MAX_ORDER, RootedTree, trees_of_order, trees_up_to
from ..errors import InvalidArgumentError
from ..latex import tex_text
from .laws import adjoint, logarithm
from .series import BSeries
from .tree_ops import butcher_product, tree_from_children

from .certificates import REF_HAMILTONIAN, REF_P_SYMPLECTIC, REF_SYMPLECTIC, add_tables, certificate, check_truncation, element_tex, intro, pair_label, require_field, require_method, series_at, series_label, tree_label

__all__ = [
    "order_of",
    "is_symmetric",
    "is_symplectic",
    "is_hamiltonian",
    "modified_equation_is_hamiltonian",
    "symplecticity_pairs",
]


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
    check_truncation(max_order, "order_of")
    s = series_at(method, max_order, "order_of")
    require_method(s, "order_of")
    dom = s.domain
    kind = "rooted trees" if s.colours == 1 else "bicoloured trees"
    d = intro(s, f"Order of {series_label(s)}")
    d = d.add(r"A method has order $\ge p$ iff $a(t) = 1/\gamma(t)$ for every " + kind + r" $t$ with $|t| \le p$ "
              r"(Butcher; Hairer, Lubich, Wanner III.1, Thm 1.3 and III.2); only trees with at most $p$ "
              r"vertices enter.")
    residuals = {}
    stages = set()
    for n in range(1, max_order + 1):
        items = [(t, s.element(t) - dom.const(1, t.gamma)) for t in trees_of_order(n, s.colours)]
        holds, stage, how, key = dom.decide(items, tree_label)
        stages.add(stage)
        for t, r in items:
            residuals[t] = dom.to_sympy(r)
        rows = [[f"${t._latex()}$", str(t.gamma), f"${element_tex(dom, s.element(t))}$", f"${element_tex(dom, r)}$"]
                for t, r in items]
        d = add_tables(d, rows, r"$t$ & $\gamma(t)$ & $a(t)$ & $a(t) - 1/\gamma(t)$",
                    f"The conditions of the {len(items)} trees with {n} vertices:")
        if holds is True:
            continue
        p = n - 1
        if holds is False:
            r = dict(items)[key]
            d = d.concluding(f"Every condition up to order {p} holds and the condition of ${key._latex()}$ "
                             f"(order {n}) fails with residual ${dom.tex(r)}$: the order is exactly {p}.")
            return OrderCertificate(
                claim=f"the order of {series_label(s)} is {p}", holds=True,
                method=f"{how}; every condition up to order {p} holds", stage=_weakest(stages),
                residual=dom.to_sympy(r),
                derivation=d, order=p, failing_tree=key, residuals=residuals)
        d = d.concluding(f"The conditions of order {n} could not be decided ({tex_text(how)}).")
        return OrderCertificate(
            claim=f"the order of {series_label(s)} is {p}", holds=None,
            method=f"conditions up to order {p} hold; order {n} undecided: {how}", stage="unknown",
            derivation=d, order=p, failing_tree=None, residuals=residuals)
    d = d.concluding(f"All conditions up to order {max_order} hold: the order is at least {max_order}.")
    limit = " (its truncation order)" if isinstance(method, BSeries) and max_order == method.order else ""
    return OrderCertificate(
        claim=f"the order of {series_label(s)} is at least {max_order}{limit}", holds=True,
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
    check_truncation(p, "is_symmetric")
    s = series_at(method, p, "is_symmetric")
    require_method(s, "is_symmetric")
    adj = adjoint(s)
    dom = s.domain
    trees = trees_up_to(p, s.colours)
    items = [(t, adj.element(t) - s.element(t)) for t in trees]
    d = intro(s, f"Symmetry of {series_label(s)} up to order {p}")
    d = d.add(r"The adjoint method $\Phi^*_h = \Phi_{-h}^{-1}$ has the series $a^*(t) = (-1)^{|t|} a^{-1}(t)$, "
              r"$a^{-1}$ the inverse in the Butcher group; the method is symmetric up to order $p$ iff "
              r"$a^*(t) = a(t)$ for all trees with $|t| \le p$ (Hairer, Lubich, Wanner II.3, V.1).")
    rows = [[f"${t._latex()}$", f"${element_tex(dom, s.element(t))}$", f"${element_tex(dom, adj.element(t))}$", f"${element_tex(dom, r)}$"]
            for t, r in items]
    d = add_tables(d, rows, r"$t$ & $a(t)$ & $a^*(t)$ & $a^*(t) - a(t)$", f"The {len(items)} trees with at most {p} "
                f"vertices:")
    residual = {t: dom.to_sympy(r) for t, r in items}
    return certificate(
        s, items, f"{series_label(s)} is symmetric up to order {p} (adjoint(a)(t) = a(t) for every tree with <= {p} "
                  f"vertices)", d, tree_label, residual=residual,
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
    check_truncation(n, "symplecticity_pairs")
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
            rows.append([f"${u._latex()}$", f"${v._latex()}$", r"\text{root colours}", f"${element_tex(dom, r)}$"])
        else:
            rows.append([f"${u._latex()}$", f"${v._latex()}$",
                         f"${butcher_product(u, v)._latex()}$, ${butcher_product(v, u)._latex()}$",
                         f"${element_tex(dom, r)}$"])
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
    check_truncation(p, "is_symplectic")
    s = series_at(method, p, "is_symplectic")
    require_method(s, "is_symplectic")
    return symplectic_certificate(s, p, True)


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
    check_truncation(p, "is_hamiltonian")
    s = series_at(series, p, "is_hamiltonian")
    require_field(s, "is_hamiltonian")
    return symplectic_certificate(s, p, False)


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
    check_truncation(p, "modified_equation_is_hamiltonian")
    s = series_at(method, p, "modified_equation_is_hamiltonian")
    require_method(s, "modified_equation_is_hamiltonian")
    b = logarithm(s).with_name(f"the modified equation of {series_label(s)}")
    return symplectic_certificate(b, p, False)


def symplectic_certificate(s: BSeries, p: int, method: bool) -> Certificate:
    dom = s.domain
    items = _symplectic_items(s, p, method)
    what = "symplectic" if method else "Hamiltonian"
    d = intro(s, f"{what.capitalize()} up to order {p}: {series_label(s)}")
    if s.colours == 1:
        cond = (r"a(u \circ v) + a(v \circ u) = a(u)\, a(v)" if method else r"b(u \circ v) + b(v \circ u) = 0")
        ref = REF_SYMPLECTIC if method else REF_HAMILTONIAN
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
        d = d.add("A P-series is symplectic for every partitioned Hamiltonian system iff (" + tex_text(REF_P_SYMPLECTIC)
                  + "; for a vector field the linearised conditions); up to order $p$ those with at most $p$ "
                  "vertices:", cond)
    d = add_tables(d, _pair_rows(s, items, method), r"$u$ & $v$ & trees & residual",
                f"The {len(items)} conditions up to order {p}:")
    residual = {pair_label(k): dom.to_sympy(r) for k, r in items}
    claim = (f"{series_label(s)} is {what} up to order {p} (all {len(items)} conditions on trees with at most {p} "
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

    return certificate(s, items, claim, d, pair_label, residual=residual,
                        success=f"All {len(items)} conditions hold: {what} up to order {p}.", failure=failure,
                        counterexample=counterexample)


# ============================================================================ Lie algebra of B-series fields
