"""Conjugate symplecticity of B-series and P-series methods, decided constructively.

A method is conjugate-symplectic up to order ``p`` when a B-series map ``chi`` makes
``chi^-1 o Phi_h o chi`` symplectic up to order ``p`` (Hairer, Lubich, Wanner VI.8; Chartier,
Faou, Murua 2006; Hairer, Zbinden 2013): :func:`is_conjugate_symplectic` solves for ``chi``
degree by degree on the modified field (see the function), in exact rational linear algebra
whose tables depend only on the degree and are computed once.

>>> import sympy
>>> from geomcheck.bseries.methods import runge_kutta
>>> R = sympy.Rational
>>> trapezoidal = runge_kutta([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)], order=6)
>>> is_conjugate_symplectic(trapezoidal, 6).holds
True
"""


from __future__ import annotations

import math
from fractions import Fraction

import sympy

from ..caches import register
from ..certify.certificate import Certificate
from ..certify.trees import RootedTree, trees_of_order, trees_up_to
from ..latex import tex_text
from .laws import logarithm
from .series import BSeries
from .tree_ops import butcher_product, single_cuts

from .certificates import REF_HAMILTONIAN, REF_P_SYMPLECTIC, REF_SYMPLECTIC, add_tables, check_truncation, element_tex, intro, require_method, series_at, series_label
from .properties import symplectic_certificate, symplecticity_pairs

__all__ = ["is_conjugate_symplectic"]


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

_CONJUGATION_TABLES: dict = {}     # (colours, degree) -> table (bounded by the tree orders)
register("geomcheck.bseries.conjugate.tables", _CONJUGATION_TABLES.clear, lambda: len(_CONJUGATION_TABLES))


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


def _condition_trees(key) -> list:
    """``[(tree, sign)]``: a Hamiltonian condition of a field as a signed sum of its coefficients
    (``b(u∘v) + b(v∘u)`` for a pair, ``b(t) - b(t')`` for a P-series root-colour condition)."""
    kind, u, v = key
    if kind == "root colour":
        return [(u, 1), (v, -1)]
    return [(butcher_product(u, v), 1), (butcher_product(v, u), 1)]


def _condition_value(dom, b: dict, key):
    """The residual of one Hamiltonian condition of the field ``b`` (a dict tree -> element)."""
    acc = dom.zero
    for t, sign in _condition_trees(key):
        x = b.get(t)
        if x:
            acc = acc + x if sign > 0 else acc - x
    return acc


def _conjugation_table(n: int, colours: int = 1):
    """The linear algebra of step ``n`` (method independent, cached).

    Conjugating by ``exp(c)``, ``c`` of degree ``n - 1``, adds ``lam [c, T]`` to the degree-``n``
    part of the modified field and changes nothing below (``T = τ``; for P-series, ``colours = 2``,
    ``T = τ_q + τ_p``, the one-vertex trees of both colours).  Returns ``(conditions, cols, pivots,
    null, kernel_hamiltonian)``: the Hamiltonian conditions of degree ``n`` (pairs, and for P-series
    root colours), the trees of degree ``n - 1`` (unknowns), the elimination of the map ``c ->
    (conditions of [c, T])``, and whether every ``c`` in its kernel is itself a Hamiltonian field
    (what makes a failure a proof).  For B-series the degree-one field ``c = τ`` commutes with
    ``T``, so the unknowns start at degree 2 (``n >= 3``); for P-series at degree 1.
    """
    got = _CONJUGATION_TABLES.get((colours, n))
    if got is not None:
        return got
    conditions = symplecticity_pairs(n, colours)
    cols = list(trees_of_order(n - 1, colours)) if n >= (3 if colours == 1 else 2) else []
    index = {t: j for j, t in enumerate(cols)}
    rows = []
    for key in conditions:
        row: dict = {}
        if cols:
            for t, sign in _condition_trees(key):
                for s, m in _ad_tau_matrix_row(t).items():   # T has coefficient 1 on each one-vertex tree
                    j = index[s]
                    row[j] = row.get(j, 0) + Fraction(sign * m)
        rows.append({j: x for j, x in row.items() if x})
    pivots, null = _eliminate(rows, len(cols))
    # the kernel: one vector per free column; is each a Hamiltonian field of degree n - 1?
    pivot_cols = {pcol for pcol, _r, _c in pivots}
    kernel_hamiltonian = True
    lower = symplecticity_pairs(n - 1, colours) if cols else []
    for f in range(len(cols)):
        if f in pivot_cols:
            continue
        k = {cols[f]: Fraction(1)}
        for pcol, r, _cmb in pivots:
            x = r.get(f)
            if x:
                k[cols[pcol]] = -x
        if any(sum(sign * k.get(t, 0) for t, sign in _condition_trees(key)) != 0 for key in lower):
            kernel_hamiltonian = False
            break
    got = (conditions, cols, pivots, null, kernel_hamiltonian)
    _CONJUGATION_TABLES[(colours, n)] = got
    return got


def _key_tex(key) -> str:
    kind, u, v = key
    if kind == "root colour":
        return f"\\rho({u._latex()}, {v._latex()})"
    return f"\\omega({u._latex()}, {v._latex()})"


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

    **P-series** (partitioned methods, bicoloured trees; the claim is then about P-series maps
    ``chi`` and every partitioned Hamiltonian system ``q' = H_p``, ``p' = -H_q``): the same
    construction with the P-series Hamiltonian conditions of
    :func:`~geomcheck.bseries.properties.is_hamiltonian` (pairs ``u∘v, v∘u`` with ``u`` of root
    colour ``q`` and ``v`` of root colour ``p``, and ``b(t) = b(t')`` for trees differing only in
    the root colour).  The degree-one part of the modified field is ``a(τ_q) τ_q + a(τ_p) τ_p``,
    which no conjugation ``chi = id + O(h)`` changes: ``a(τ_q) != a(τ_p)`` is a proof of False at
    degree 1; otherwise, with ``lam = a(τ_q) = a(τ_p)``, a field ``c`` of degree ``n - 1`` adds
    ``lam [c, τ_q + τ_p]`` at degree ``n`` -- already ``c`` of degree 1 (``[τ_q - τ_p, τ_q + τ_p] !=
    0``), so the witness is ``c_1, ..., c_(p-1)``, ``chi = exp(c_1) o exp(c_2) o ...`` (``exp(c_(p-1))``
    applied first).  A False is a proof for the reason above; the kernels are checked
    Hamiltonian (they are at every degree up to 6, tested).  Tested: symplectic Euler, Stormer-Verlet and
    Lobatto IIIA-IIIB (2 and 3 stages) with ``chi = id``; a symplectic pair conjugated by a
    non-symplectic partitioned map is found again; explicit Euler in both parts is not
    conjugate-symplectic up to order 2 (``b([τ_p]_q) + b([τ_q]_p) = -1`` is invariant).

    Parameters
    ----------
    method : BSeries, ButcherTableau, PartitionedTableau, or an object with ``.bseries(order)``
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

    Partitioned methods (P-series):

    >>> from geomcheck.bseries.methods import partitioned_runge_kutta
    >>> h = R(1, 2)
    >>> verlet = partitioned_runge_kutta(([[0, 0], [h, h]], [h, h], [[h, 0], [h, 0]], [h, h]), 5)
    >>> c = is_conjugate_symplectic(verlet, 5)
    >>> c.holds, len(c.witness), all(w[t] == 0 for w in c.witness for t in w.trees())   # chi = id
    (True, 4, True)
    >>> both_explicit = partitioned_runge_kutta(([[0]], [1], [[0]], [1]), 3, name="explicit Euler (q and p)")
    >>> c = is_conjugate_symplectic(both_explicit, 3)
    >>> c.holds, c.counterexample["degree"], c.counterexample["residual"]
    (False, 2, -1)
    """
    check_truncation(p, "is_conjugate_symplectic")
    s = series_at(method, p, "is_conjugate_symplectic")
    require_method(s, "is_conjugate_symplectic")
    if s.colours == 2:
        return _p_series_conjugate_symplectic(s, p)
    dom = s.domain
    tau = trees_of_order(1)[0]
    lam = s.element(tau)
    claim = (f"{series_label(s)} is conjugate (by a B-series map) to a method symplectic up to order {p} (conditions "
             f"on trees with at most {p} vertices)")
    d = intro(s, f"Conjugate symplecticity of {series_label(s)} up to order {p}")
    d = d.add(r"Claim: there is a B-series map $\chi = \mathrm{id} + O(h)$ such that $\chi^{-1} \circ \Phi_h \circ "
              r"\chi$ is symplectic up to order $p$, i.e. its symplecticity conditions $a(u \circ v) + a(v \circ u) "
              r"= a(u) a(v)$ (" + tex_text(REF_SYMPLECTIC) + r") hold for $|u| + |v| \le p$; equivalently its "
              r"modified field is Hamiltonian up to order $p$: $b(u \circ v) + b(v \circ u) = 0$ ("
              + tex_text(REF_HAMILTONIAN) + ").")
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
    return _construct(s, p, lam, d, claim, colours=1)


def _construct(s: BSeries, p: int, lam, d, claim: str, colours: int) -> Certificate:
    """The degree-by-degree construction of :func:`is_conjugate_symplectic` once the degree-one part
    ``lam T`` of the modified field is known, ``lam`` nonzero (``T = τ``, or ``τ_q + τ_p`` for
    P-series, ``colours = 2``): True with the conjugating fields as the witness, False with an
    invariant obstruction, or None."""
    dom = s.domain
    word, annihilated = ("B", r"[c, \tau]") if colours == 1 else ("P", r"[c, \tau_q + \tau_p]")
    first = 2 if colours == 1 else 1            # the degree of the first conjugating field
    inv_lam = dom.one / lam
    b = dict(logarithm(s).nonzero_elements())
    trees = trees_up_to(p, colours)
    witness = []
    kernels_hamiltonian = True
    rows_tex = []
    for n in range(2, p + 1):
        conditions, cols, pivots, null, kernel_h = _conjugation_table(n, colours)
        defect = [_condition_value(dom, b, key) for key in conditions]
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
            # a B-series condition is named by its pair (u, v); a P-series one by (kind, u, v)
            combo = {(conditions[i][1:] if colours == 1 else conditions[i]): sympy.Rational(x.numerator, x.denominator)
                     for i, x in sorted(cmb.items())}
            cx = {"degree": n, "combination": combo, "residual": dom.to_sympy(r)}
            if not kernels_hamiltonian:
                d = d.concluding(f"At degree {n} the conditions cannot be met by the conjugation constructed, but an "
                                 f"earlier choice was not unique up to Hamiltonian fields: undecided.")
                return Certificate(claim=claim, holds=None, stage="unknown", derivation=d, counterexample=cx,
                                   method=(f"degree {n}: the constructed conjugation leaves a nonzero obstruction, "
                                           f"but earlier choices were not unique up to symplectic maps"))
            terms = " + ".join(f"({sympy.latex(sympy.Rational(x.numerator, x.denominator))})\\,"
                               f"{_key_tex(conditions[i])}" for i, x in sorted(cmb.items()))
            if colours == 1:
                rows = [[f"${u._latex()}$", f"${v._latex()}$", f"${element_tex(dom, w)}$"]
                        for (_k, u, v), w in zip(conditions, defect)]
                d = add_tables(d, rows, r"$u$ & $v$ & $\omega(u, v)$",
                               f"Degree {n}, after the conjugations of lower degree: the Hamiltonian conditions "
                               r"$\omega(u, v) = b(u \circ v) + b(v \circ u)$ of the conjugated modified field $b$:")
            else:
                rows = [[f"${_key_tex(k)}$", f"${element_tex(dom, w)}$"] for k, w in zip(conditions, defect)]
                d = add_tables(d, rows, r"condition & value",
                               f"Degree {n}, after the conjugations of lower degree: the Hamiltonian conditions of the "
                               f"conjugated modified field:")
            d = d.add(f"Degree {n}: the combination", terms + f" = {dom.tex(r)}")
            d = d.concluding(
                f"The combination above of the conditions of degree {n} is unchanged by every conjugation of degree "
                f"{n - 1} (it annihilates $c \\mapsto {annihilated}$) and is ${dom.tex(r)} \\neq 0$. At every earlier "
                f"degree the conjugating field was unique up to Hamiltonian fields (checked), whose flows are "
                f"symplectic and change no condition; conjugations of degree $\\ge {n}$ do not reach degree {n}. "
                f"So no {word}-series conjugation makes the method symplectic up to order {n}.")
            return Certificate(
                claim=claim, holds=False, stage=stage, residual=dom.to_sympy(r),
                counterexample=cx, derivation=d,
                method=(f"{dom.describe()}: at degree {n} a combination of the Hamiltonian conditions that no "
                        f"conjugation changes is {dom.short(r)} != 0"))
        kernels_hamiltonian = kernels_hamiltonian and kernel_h
        if not cols:        # B-series, degree 2: no field of degree 1 but tau itself, which commutes with tau
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
            rows_tex.append([str(n - 1), str(len(c))])
        witness.append(BSeries.from_elements(dom, dict(c), p, empty=dom.zero, colours=colours,
                                             name=f"conjugating field of degree {n - 1}"))
    final = BSeries.from_elements(dom, b, p, empty=dom.zero, colours=colours, name="the conjugated modified field")
    check = symplectic_certificate(final, p, False)
    if check.holds is not True:  # pragma: no cover - the construction makes every degree Hamiltonian
        d = d.concluding("The conjugated field could not be confirmed Hamiltonian: undecided.")
        return Certificate(claim=claim, holds=None, method="internal check of the conjugated field failed: "
                                                           + check.method, stage="unknown", derivation=d)
    for step in check.derivation.steps[2:]:     # the Hamiltonian conditions of the conjugated field, by tree
        d = d.add(step.text, step.math)
    if rows_tex:
        d = add_tables(d, rows_tex, r"degree of $c$ & nonzero coefficients",
                       "The conjugating fields $c_k$ (the witness):")
    d = d.add(r"The conjugated modified field $\exp(\mathrm{ad}_{c_{p-1}}) \cdots "
              rf"\exp(\mathrm{{ad}}_{{c_{first}}}) b$ satisfies all {len(check.residual)} Hamiltonian conditions "
              f"up to order {p} (exactly).")
    d = d.concluding(rf"So $\chi^{{-1}} \circ \Phi_h \circ \chi$ with $\chi = \exp(c_{first}) \circ "
                     rf"\exp(c_{first + 1}) \circ \cdots$ (the last applied first) is symplectic up to order {p}: "
                     f"the method is conjugate-symplectic up to order {p}.")
    return Certificate(claim=claim, holds=True, stage=check.stage, derivation=d, witness=tuple(witness),
                       method=(f"{dom.describe()}: a {word}-series conjugating map was constructed degree by degree "
                               f"and the conjugated modified field satisfies all Hamiltonian conditions up to "
                               f"order {p}"))


# ============================================================================ P-series (partitioned methods)


def _p_series_conjugate_symplectic(s: BSeries, p: int) -> Certificate:
    """:func:`is_conjugate_symplectic` for a P-series (bicoloured trees, partitioned methods).

    The construction of the B-series case with the P-series Hamiltonian conditions of
    :func:`~geomcheck.bseries.properties.is_hamiltonian` (pairs ``b(u∘v) + b(v∘u) = 0``, ``u`` of
    root colour ``q``, ``v`` of root colour ``p``, and root colours ``b(t) = b(t')``) and conjugating
    fields ``c`` on bicoloured trees; the degree-one part of the modified field is
    ``lam (τ_q + τ_p)`` when its root-colour condition holds, and ``c`` of degree ``n - 1`` adds
    ``lam [c, τ_q + τ_p]`` at degree ``n``.  The witness starts at ``c_1`` (degree one: unlike
    for B-series, ``[c_1, τ_q + τ_p]`` need not vanish).  A failure is a proof for the reasons
    given in :func:`is_conjugate_symplectic`, the kernels (fields ``c`` with ``[c, τ_q + τ_p]``
    Hamiltonian at degree ``n``) being checked Hamiltonian; the degree-one condition
    ``a(τ_q) = a(τ_p)`` is unchanged by every conjugation (``exp(ad_c) b = b + O(h^2)``).
    """
    dom = s.domain
    tq, tp = trees_of_order(1, 2)
    claim = (f"{series_label(s)} is conjugate (by a P-series map) to a method symplectic up to order {p} "
             f"(conditions on bicoloured trees with at most {p} vertices)")
    d = intro(s, f"Conjugate symplecticity of {series_label(s)} up to order {p}")
    d = d.add(r"Claim: there is a P-series map $\chi = \mathrm{id} + O(h)$ such that $\chi^{-1} \circ \Phi_h \circ "
              r"\chi$ is symplectic up to order $p$ for every partitioned Hamiltonian system (" + tex_text(REF_P_SYMPLECTIC)
              + r"); equivalently its modified field $b$ is Hamiltonian up to order $p$: $\omega(u, v) = b(u \circ v) + "
              r"b(v \circ u) = 0$ ($u$ of root colour $q$, $v$ of root colour $p$) and $\rho(t, t') = b(t) - b(t') = 0$ "
              r"($t, t'$ differing only in the root colour).")
    d = d.add(r"Conjugating by the flow $\chi = \exp(c)$ of a P-series field $c$ of degree $n - 1$ turns $b$ into "
              r"$\exp(\mathrm{ad}_c) b$, which adds $\lambda\,[c, \tau_q + \tau_p]$ at degree $n$ ($\lambda = a(\tau_q) "
              r"= a(\tau_p)$) and changes nothing below; degree by degree a linear system for $c$, solved exactly.")
    rho1 = s.element(tq) - s.element(tp)
    holds, stage, how, _key = dom.decide([("rho", rho1)], lambda _k: "the root-colour condition of degree 1")
    if holds is None:
        d = d.concluding("Undecided at degree 1: " + tex_text(how) + ".")
        return Certificate(claim=claim, holds=None, method=how, stage=stage, derivation=d)
    if holds is False:
        key = ("root colour", tq, tp)
        d = d.concluding(f"The degree-one part of the modified field is $a(\\tau_q) F(\\tau_q) + a(\\tau_p) F(\\tau_p)$ "
                         f"with $a(\\tau_q) - a(\\tau_p) = {dom.tex(rho1)} \\neq 0$; no conjugation $\\chi = \\mathrm{{id}} "
                         f"+ O(h)$ changes it, so the method is not conjugate-symplectic even up to order 1.")
        return Certificate(claim=claim, holds=False, stage=stage, residual=dom.to_sympy(rho1), derivation=d,
                           counterexample={"degree": 1, "combination": {key[1:]: sympy.S.One},
                                           "residual": dom.to_sympy(rho1)},
                           method=f"{dom.describe()}: a(τ_q) - a(τ_p) = {dom.short(rho1)} != 0, unchanged by "
                                  f"every conjugation")
    lam = s.element(tq)
    lam_zero = dom.is_zero(lam)
    if lam_zero is False and sympy.sympify(dom.to_sympy(lam)).free_symbols:
        d = d.concluding(r"Undecided: $a(\tau_q)$ depends on the parameters, and the conjugating fields would be "
                         r"divided by it.")
        return Certificate(claim=claim, holds=None, stage="unknown", derivation=d,
                           method="a(τ_q) depends on the parameters of the family (the construction divides by it)")
    if lam_zero is not False:
        d = d.concluding(r"Undecided: $a(\tau_q)$ is not known to be nonzero, so conjugation cannot be used.")
        return Certificate(claim=claim, holds=None, method="a(τ_q) is not known to be nonzero (an inconsistent "
                                                           "method)", stage="unknown", derivation=d)
    return _construct(s, p, lam, d, claim, colours=2)


# ============================================================================ energy preservation
