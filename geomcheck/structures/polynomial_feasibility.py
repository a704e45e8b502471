r"""Certificates that a system of polynomial conditions on parameters has no solution.

Two kinds, each checkable by hand and re-checked here by exact expansion:

* :func:`groebner_infeasibility`: equations ``f_i = 0`` (and ``s_j != 0``, by the
  Rabinowitsch trick ``1 - t_j s_j = 0``) have no common complex solution iff their reduced
  Groebner basis over ``Q`` is ``{1}`` (Hilbert's Nullstellensatz).  The certificate also
  gives polynomial cofactors with ``sum_i c_i f_i = 1`` (found by linear algebra on an
  ansatz of bounded degree), so the conclusion does not rest on the Groebner solver alone:
  the identity is expanded and compared with 1.
* :func:`sign_infeasibility`: a diagonal entry of a parametric symmetric matrix that, at
  an exact point of the state, is a negative constant for every value of the parameters
  (a positive semidefinite matrix has nonnegative diagonal entries).

>>> import sympy
>>> a, b = sympy.symbols("a b")
>>> c = groebner_infeasibility([a + b - 1, a + b], [a, b])
>>> c.holds, c.basis, c.cofactors
(True, (1,), (-1, 1))
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import sympy
from sympy.polys.matrices import DomainMatrix

from ..errors import InvalidArgumentError
from ..latex import Derivation, summarize

__all__ = [
    "InfeasibilityCertificate",
    "groebner_infeasibility",
    "nullstellensatz_cofactors",
    "sign_infeasibility",
    "tracked_buchberger_cofactors",
]


@dataclass(frozen=True)
class InfeasibilityCertificate:
    """A proof (``holds`` True) that no parameter value satisfies the conditions, or its failure.

    Attributes
    ----------
    kind : str            ``"groebner"`` or ``"sign"``.
    holds : bool or None  True: infeasibility proved; False: a solution exists (Groebner basis
                          not ``{1}``); None: not decided (e.g. no sign obstruction found).
    equations : tuple     the polynomials ``f_i`` (conditions ``f_i = 0``), incl. the Rabinowitsch ones.
    generators : tuple    the variables of the ring.
    basis : tuple         the reduced Groebner basis (``(1,)`` when infeasible).
    cofactors : tuple or None  ``c_i`` with ``sum c_i f_i = 1`` (expanded and checked), if found.
    point : dict or None  for ``kind="sign"``: the state point.
    entry : object        for ``kind="sign"``: ``(i, value)``, the diagonal entry and its value there.
    method : str
    derivation : Derivation
    """

    kind: str
    holds: object
    equations: tuple
    generators: tuple
    basis: tuple = ()
    cofactors: object = None
    point: object = None
    entry: object = None
    method: str = ""
    derivation: Derivation = field(default_factory=lambda: Derivation("Infeasibility"))

    def latex(self) -> str:
        return self.derivation.latex()

    def __bool__(self):
        return self.holds is True


def _monomials(gens, degree):
    out = [sympy.S.One]
    for d in range(1, degree + 1):
        out += [sympy.Mul(*c) for c in itertools.combinations_with_replacement(gens, d)]
    return out


def nullstellensatz_cofactors(polys: Sequence[sympy.Expr], gens: Sequence[sympy.Symbol], *,
                              max_degree: int = 2, max_unknowns: int = 600) -> tuple | None:
    """Cofactors ``c_i`` of total degree ``<= max_degree`` with ``sum_i c_i f_i = 1``, or None.

    The coefficients of the ``c_i`` are unknowns; matching the coefficients of
    ``sum c_i f_i - 1`` gives a linear system over ``Q``, solved exactly (one particular
    solution).  The identity is then expanded and checked.

    Examples
    --------
    >>> import sympy
    >>> x, t = sympy.symbols("x t")
    >>> nullstellensatz_cofactors([x, 1 - t * x], [x, t])
    (t, 1)
    """
    gens = list(gens)
    polys = [sympy.expand(f) for f in polys]
    for d in range(max_degree + 1):
        monos = _monomials(gens, d)
        if len(monos) * len(polys) > max_unknowns:
            return None
        unknowns = [[sympy.Dummy("c") for _ in monos] for _ in polys]
        total = sympy.expand(sum((sum((u * m for u, m in zip(us, monos)), sympy.S.Zero) * f
                                  for us, f in zip(unknowns, polys)), sympy.S.Zero) - 1)
        flat = [u for us in unknowns for u in us]
        rows = sympy.Poly(total, *gens).coeffs() if total.free_symbols & set(gens) else [total]
        # rows are linear in the unknowns: A u = b
        A, b = sympy.linear_eq_to_matrix(rows, flat)
        M = DomainMatrix.from_Matrix(A.row_join(b)).convert_to(sympy.QQ)
        rref, pivots = M.rref()
        ncols = len(flat)
        if ncols in pivots:
            continue
        values = {u: 0 for u in flat}
        R = rref.to_Matrix()
        for r, c in enumerate(pivots):
            values[flat[c]] = R[r, ncols]
        cof = tuple(sympy.expand(sum((u * m for u, m in zip(us, monos)), sympy.S.Zero).xreplace(values))
                    for us in unknowns)
        if sympy.expand(sum((c * f for c, f in zip(cof, polys)), sympy.S.Zero)) == 1:
            return cof
    return None


def tracked_buchberger_cofactors(polys: Sequence[sympy.Expr], gens: Sequence[sympy.Symbol], *,
                                 budget: float = 2.0, max_basis: int = 400) -> tuple | None:
    """Cofactors ``c_i`` with ``sum_i c_i f_i = 1`` from a Buchberger run that tracks them, or None.

    Every polynomial the algorithm makes (S-polynomials, top-reductions) carries its
    representation in the ``f_i``; when a nonzero constant appears, its representation,
    divided by the constant, gives the cofactors.  They are checked by expansion before they
    are returned.  None when no constant appears within ``budget`` seconds or ``max_basis``
    polynomials (in particular when the ideal is proper).

    Examples
    --------
    >>> import sympy
    >>> a, b, e, t = sympy.symbols("a b e t")
    >>> cof = tracked_buchberger_cofactors([e * a, a * b - 1, 1 - t * e], [a, b, e, t])
    >>> sympy.expand(cof[0] * e * a + cof[1] * (a * b - 1) + cof[2] * (1 - t * e))
    1
    """
    import time

    from sympy.polys.monomials import monomial_div, monomial_lcm
    from sympy.polys.orderings import grevlex
    from sympy.polys.rings import ring

    gens = list(gens)
    if not gens:
        return None
    R, *_ = ring(gens, sympy.QQ, grevlex)
    F = [R.from_expr(sympy.expand(f)) if sympy.expand(f).free_symbols else R(sympy.expand(f)) for f in polys]
    k = len(F)
    basis = []
    for i, f in enumerate(F):
        if f:
            basis.append((f, [R.one if j == i else R.zero for j in range(k)]))
    start = time.monotonic()

    def constant(p):
        return p and p.LM == (0,) * len(gens)

    def finish(p, cof):
        c = p.LC
        inv = 1 / c
        out = tuple(sympy.expand((ci * inv).as_expr()) if ci else sympy.S.Zero for ci in cof)
        total = sympy.expand(sum((ci * sympy.expand(f) for ci, f in zip(out, polys)), sympy.S.Zero))
        return out if total == 1 else None

    for p, cof in basis:
        if constant(p):
            return finish(p, cof)

    def reduce(p, cof):
        cof = list(cof)
        changed = True
        while p and changed:
            changed = False
            for g, gc in basis:
                m = monomial_div(p.LM, g.LM)
                if m is not None:
                    term = (m, p.LC / g.LC)
                    p = p - g.mul_term(term)
                    cof = [a - b.mul_term(term) for a, b in zip(cof, gc)]
                    changed = True
                    break
        return p, cof

    pairs = [(i, j) for i in range(len(basis)) for j in range(i)]
    while pairs:
        if time.monotonic() - start > budget or len(basis) > max_basis:
            return None
        pairs.sort(key=lambda ij: sum(monomial_lcm(basis[ij[0]][0].LM, basis[ij[1]][0].LM)), reverse=True)
        i, j = pairs.pop()
        (f, fc), (g, gc) = basis[i], basis[j]
        lcm = monomial_lcm(f.LM, g.LM)
        if sum(lcm) == sum(f.LM) + sum(g.LM):
            continue  # coprime leading monomials: the S-polynomial reduces to zero (Buchberger's criterion)
        tf = (monomial_div(lcm, f.LM), 1 / f.LC)
        tg = (monomial_div(lcm, g.LM), 1 / g.LC)
        sp = f.mul_term(tf) - g.mul_term(tg)
        scof = [a.mul_term(tf) - b.mul_term(tg) for a, b in zip(fc, gc)]
        sp, scof = reduce(sp, scof)
        if not sp:
            continue
        if constant(sp):
            return finish(sp, scof)
        basis.append((sp, scof))
        n = len(basis) - 1
        pairs += [(n, m) for m in range(n)]
    return None


def groebner_infeasibility(equations: Iterable[sympy.Expr], unknowns: Sequence[sympy.Symbol], *,
                           constants: Sequence[sympy.Symbol] = (), nonzero: Iterable[sympy.Expr] = (),
                           max_degree: int = 2, what: str = "conditions") -> InfeasibilityCertificate:
    """Whether ``f_i = 0`` (with ``s != 0`` for ``s`` in ``nonzero``) has no solution, by a Groebner basis.

    The ring is ``Q[unknowns, constants, t_j]``: the constants (symbols of the system) are
    variables too, so an infeasibility proved here holds for every value of them with the
    ``nonzero`` expressions nonzero.

    Parameters
    ----------
    equations : polynomials in ``unknowns`` and ``constants`` with rational coefficients.
    unknowns : the parameters.
    constants : the other symbols (default: every other free symbol).
    nonzero : expressions assumed nonzero (each adds ``1 - t s = 0``).
    max_degree : degree bound of the cofactor search.

    Returns
    -------
    InfeasibilityCertificate
        ``holds`` True with the basis ``(1,)`` and cofactors (checked by expansion) when no
        solution exists; False with the basis otherwise.

    Raises
    ------
    InvalidArgumentError
        An equation is not a polynomial with rational coefficients in those variables.

    Examples
    --------
    >>> import sympy
    >>> p, eps = sympy.symbols("p epsilon")
    >>> groebner_infeasibility([eps * p, p - 1], [p]).holds          # eps = 0 solves it
    False
    >>> c = groebner_infeasibility([eps * p, p - 1], [p], nonzero=[eps]); c.holds
    True
    """
    # e = 0 implies numerator(e) = 0: no common zero of the numerators proves that there is none of the e
    eqs = [sympy.expand(sympy.fraction(sympy.together(sympy.sympify(e)))[0]) for e in equations]
    eqs = [e for e in eqs if e != 0]
    unknowns = list(unknowns)
    nonzero = [sympy.expand(s) for s in nonzero]
    if not constants:
        extra = set().union(*[e.free_symbols for e in eqs + nonzero]) if eqs or nonzero else set()
        constants = sorted(extra - set(unknowns), key=str)
    constants = list(constants)
    tags = [sympy.Symbol(f"t_{k + 1}") for k in range(len(nonzero))]
    eqs = eqs + [sympy.expand(1 - t * s) for t, s in zip(tags, nonzero)]
    gens = unknowns + constants + tags
    for e in eqs:
        try:
            P = sympy.Poly(e, *gens) if gens else sympy.Poly(e, sympy.Dummy())
        except sympy.PolynomialError:
            raise InvalidArgumentError(f"the condition {e} is not a polynomial in {gens}") from None
        if not all(c.is_Rational for c in P.coeffs()):
            raise InvalidArgumentError(f"the condition {e} has non-rational coefficients; expected a polynomial over Q"
                                       f" in {gens}")
    D = Derivation("Infeasibility by a Groebner basis")
    shown = r" \\ ".join(r"0 &= " + sympy.latex(e) for e in eqs[:30])
    D = D.add(r"The " + what + r" are the polynomial equations (in $\mathbf{Q}[" + ", ".join(
        sympy.latex(g) for g in gens) + r"]$" + (r"; a factor $s \neq 0$ enters as $1 - t\,s = 0$" if tags else "")
        + "):", shown if eqs else r"&\text{(none)}")
    if not eqs:
        return InfeasibilityCertificate("groebner", False, (), tuple(gens), (0,), None, method="no conditions",
                                        derivation=D.concluding("There are no conditions: every value solves them."))
    if not gens:
        bad = any(e != 0 for e in eqs)
        basis = (sympy.S.One,) if bad else (sympy.S.Zero,)
        cof = tuple(sympy.S.One / e if k == 0 else sympy.S.Zero for k, e in enumerate(eqs)) if bad else None
        return InfeasibilityCertificate("groebner", bad, tuple(eqs), (), basis, cof,
                                        method="a nonzero constant condition",
                                        derivation=D.concluding("A condition is a nonzero constant."))
    G = sympy.groebner(eqs, *gens, order="grevlex")
    basis = tuple(G.exprs)
    if basis != (1,):
        D = D.add(r"Their reduced Groebner basis (grevlex) is", r" \\ ".join(
            r"&" + summarize(b) for b in basis[:30]))
        return InfeasibilityCertificate("groebner", False, tuple(eqs), tuple(gens), basis, None,
                                        method="the Groebner basis is not {1}: the conditions are consistent",
                                        derivation=D.concluding(r"The basis is not $\{1\}$: the conditions have"
                                                                r" complex solutions."))
    # a second, independent algorithm (Faugere's F5B instead of Buchberger's) and another order must agree
    second = tuple(sympy.groebner(eqs, *gens, order="lex", method="f5b").exprs)
    cof = tracked_buchberger_cofactors(eqs, gens) or nullstellensatz_cofactors(eqs, gens, max_degree=max_degree)
    D = D.add(r"Their reduced Groebner basis is $\{1\}$ (Buchberger, grevlex; confirmed by F5B, lex), so"
              r" (Nullstellensatz) they have no common solution.")
    if second != (1,):
        return InfeasibilityCertificate("groebner", None, tuple(eqs), tuple(gens), basis, None,
                                        method="the two Groebner algorithms disagree", derivation=D.concluding(
                                            "The two Groebner computations disagree: undecided."))
    if cof is not None:
        rows = r" + ".join(r"\left(" + sympy.latex(c) + r"\right)\left(" + sympy.latex(e) + r"\right)"
                           for c, e in zip(cof, eqs) if c != 0)
        D = D.add(r"Independently of the Groebner computation, the combination (expanded, it is $1$)",
                  r"1 &= " + rows)
        method = "Groebner basis {1}; cofactors with sum c_i f_i = 1 checked by expansion"
    else:
        method = ("Groebner basis {1} by Buchberger (grevlex) and F5B (lex); no cofactors found (Macaulay ansatz of"
                  f" degree <= {max_degree}, tracked Buchberger within its budget) to re-check it by expansion")
    D = D.concluding(r"No parameter value satisfies the " + what + ".")
    return InfeasibilityCertificate("groebner", True, tuple(eqs), tuple(gens), basis, cof, method=method,
                                    derivation=D)


_GRID_VALUES = (0, 1, -1, 2, -2, sympy.Rational(1, 2))


def _allowed(s, v) -> bool:
    """Whether the value ``v`` is allowed by the assumptions of the symbol ``s``."""
    checks = [(s.is_positive, v > 0), (s.is_nonnegative, v >= 0), (s.is_negative, v < 0),
              (s.is_nonpositive, v <= 0), (s.is_nonzero, v != 0), (s.is_integer, v.is_integer)]
    return all(bool(ok) for assumed, ok in checks if assumed)


def _grid(xs, values=_GRID_VALUES):
    xs = list(xs)
    for combo in itertools.product(values, repeat=len(xs)):
        point = {s: sympy.sympify(v) for s, v in zip(xs, combo)}
        if all(_allowed(s, v) for s, v in point.items()):
            yield point


def sign_infeasibility(R: sympy.MatrixBase, x: Sequence[sympy.Symbol], unknowns: Sequence[sympy.Symbol], *,
                       points: Iterable[dict] | None = None, max_points: int = 400) -> InfeasibilityCertificate:
    """A diagonal entry of ``R`` negative at a state point for every value of the unknowns.

    A positive semidefinite matrix has nonnegative diagonal entries at every point; if
    ``R_ii(x0)`` does not depend on the unknowns and is negative (a negative number, or
    negative by the symbols' assumptions), no member of the family is positive semidefinite.
    Points are tried from ``points`` or a small rational grid (only values the state
    symbols' assumptions allow: ``x > 0`` is never tried at 0).

    Examples
    --------
    >>> import sympy
    >>> v, a = sympy.symbols("v a")
    >>> c = sign_infeasibility(sympy.Matrix([[v**2 - 1, a * v], [a * v, 1]]), [v], [a])
    >>> c.holds, c.point, c.entry
    (True, {v: 0}, (0, -1))
    """
    unknowns = set(unknowns)
    n = R.shape[0]
    D = Derivation("Infeasibility by a sign argument")
    diag = [sympy.expand(R[i, i]) for i in range(n)]
    pts = points if points is not None else _grid(x)
    for k, pt in enumerate(pts):
        if k >= max_points:
            break
        for i, d in enumerate(diag):
            v = sympy.expand(d.xreplace(pt))
            if v.free_symbols & unknowns:
                continue
            if v.is_negative is True:
                at = ", ".join(sympy.latex(s) + " = " + sympy.latex(val) for s, val in pt.items())
                D = D.add(r"A positive semidefinite $R$ has $R_{ii} \ge 0$ at every point. Here",
                          f"R_{{{i + 1}{i + 1}}} &= {summarize(d)}, & R_{{{i + 1}{i + 1}}}\\big|_{{{at}}} &= "
                          f"{sympy.latex(v)} < 0")
                D = D.concluding(r"The value does not depend on the parameters: no member of the family has"
                                 r" $R \succeq 0$.")
                return InfeasibilityCertificate("sign", True, (), tuple(x), point=dict(pt), entry=(i, v),
                                                method=f"R[{i}][{i}] = {v} < 0 at {pt} for every parameter value",
                                                derivation=D)
    D = D.concluding("No diagonal entry is negative independently of the parameters at the points tried.")
    return InfeasibilityCertificate("sign", None, (), tuple(x), method="no sign obstruction found", derivation=D)
