"""Implicit relations: equations that define unknowns as functions of the other symbols."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import sympy

from ..errors import ExpressionError, ImplicitMapError
from .inputs import as_expr

__all__ = ["Relation", "as_relations"]


class Relation:
    """Equations ``== 0`` that define ``unknowns`` implicitly as functions of the other symbols.

    Parameters
    ----------
    equations : sequence of sympy expressions
        As many as unknowns.
    unknowns : sequence of sympy.Symbol
        Distinct symbols fixed by the equations.
    guess : dict, optional
        ``{unknown: expression in the other symbols}``: where Newton's method starts
        (default 0 for every unknown).
    small : sequence of sympy.Symbol
        Symbols to draw small, e.g. the step size ``h`` of an implicit scheme, so that
        the solution near ``guess`` exists and Newton converges.
    derived : sequence of (symbols, rhs), optional
        *Derived linear unknowns*.  Each pair defines a column of new symbols (one per
        unknown, in the order of ``unknowns``) by the linear equations
        ``J . symbols + rhs == 0``, where ``J`` is the Jacobian of ``equations`` with
        respect to ``unknowns`` and ``rhs`` has one expression per equation (in the
        other symbols, the unknowns and the symbols of *earlier* columns).  With
        ``rhs = dF/dx`` the column is ``du/dx`` (implicit function theorem): the
        derivatives of the unknowns without any symbolic elimination.  At every point
        of the randomized stage they are computed numerically, after Newton's method,
        from one LU factorization of ``J`` shared by all columns.

    Raises
    ------
    ImplicitMapError
        Unknowns that are not distinct symbols, or a count of equations that differs
        from the count of unknowns, or a guess that refers to the unknowns.
    ExpressionError
        An equation that is not a scalar commutative sympy expression.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.zero import decide_zero
    >>> q, p, h, Q, P = sympy.symbols("q p h Q P")
    >>> R = Relation([Q - q - h*(p + P)/2, P - p + h*sympy.sin((q + Q)/2)], [Q, P],
    ...              guess={Q: q, P: p}, small=[h])
    >>> decide_zero(Q - q - h*(p + P)/2, relations=[R]).is_zero
    True

    The derivatives of Q, P by q as derived unknowns ``dQ, dP`` (``J (dQ, dP) + F_q = 0``):

    >>> dQ, dP = sympy.symbols("dQ dP")
    >>> F = [Q - q - h*(p + P)/2, P - p + h*sympy.sin((q + Q)/2)]
    >>> R2 = Relation(F, [Q, P], guess={Q: q, P: p}, small=[h], derived=[([dQ, dP], [f.diff(q) for f in F])])
    >>> decide_zero(dP + h*sympy.cos((q + Q)/2)*(1 + dQ)/2, relations=[R2]).is_zero
    True
    """

    def __init__(self, equations: sympy.Expr | Iterable[sympy.Expr | float],
                 unknowns: sympy.Symbol | Iterable[sympy.Symbol],
                 guess: Mapping[sympy.Symbol, sympy.Expr | float] | None = None,
                 small: sympy.Symbol | Iterable[sympy.Symbol] = (),
                 derived: Iterable[tuple[Sequence[sympy.Symbol], Sequence[sympy.Expr | float]]] = ()):
        if isinstance(equations, sympy.Basic) or not hasattr(equations, "__iter__"):
            equations = [equations]
        self.equations = tuple(as_expr(e, "Relation equation") for e in equations)
        if isinstance(unknowns, sympy.Basic) or not hasattr(unknowns, "__iter__"):
            unknowns = [unknowns]
        self.unknowns = tuple(unknowns)
        if not all(isinstance(u, sympy.Symbol) for u in self.unknowns) or len(set(self.unknowns)) != len(self.unknowns):
            raise ImplicitMapError(f"Relation: unknowns {self.unknowns!r} must be distinct sympy Symbols")
        if len(self.equations) != len(self.unknowns):
            raise ImplicitMapError(
                f"Relation: {len(self.equations)} equations for {len(self.unknowns)} unknowns "
                f"{list(self.unknowns)}; expected one equation per unknown"
            )
        guess = dict(guess or {})
        unknown_set = set(self.unknowns)
        for k in guess:
            if k not in unknown_set:
                raise ImplicitMapError(
                    f"Relation: guess given for {k!r}, which is not one of the unknowns {list(self.unknowns)}"
                )
        self.guess = {}
        for u in self.unknowns:
            g = as_expr(guess.get(u, 0), f"Relation guess for {u}")
            if g.free_symbols & unknown_set:
                raise ImplicitMapError(f"Relation: the guess {g} for {u} refers to the unknowns {list(self.unknowns)}")
            self.guess[u] = g
        if isinstance(small, sympy.Basic):
            small = [small]
        self.small = tuple(small)
        if not all(isinstance(s, sympy.Symbol) for s in self.small) or unknown_set & set(self.small):
            raise ImplicitMapError(f"Relation: small={self.small!r} must be symbols that are not unknowns")
        self.derived = self._check_derived(derived, unknown_set)

    def _check_derived(self, derived, unknown_set):
        columns = []
        seen = set()
        for n, pair in enumerate(derived or ()):
            try:
                symbols, rhs = pair
            except (TypeError, ValueError):
                raise ImplicitMapError(f"Relation: derived entry {n} must be a pair (symbols, rhs), got {pair!r}") from None
            symbols = tuple(symbols)
            rhs = tuple(as_expr(r, f"Relation derived right-hand side {n}") for r in rhs)
            if len(symbols) != len(self.unknowns) or len(rhs) != len(self.equations):
                raise ImplicitMapError(
                    f"Relation: derived column {n} has {len(symbols)} symbols and {len(rhs)} right-hand sides; "
                    f"expected one symbol per unknown ({len(self.unknowns)}) and one entry per equation"
                )
            bad = [x for x in symbols if not isinstance(x, sympy.Symbol) or x in seen or x in unknown_set
                   or x in self.small]
            if bad or len(set(symbols)) != len(symbols):
                raise ImplicitMapError(
                    f"Relation: derived symbols {list(symbols)} must be distinct Symbols that are not unknowns, "
                    "small symbols or symbols of another column"
                )
            if any(set(symbols) & r.free_symbols for r in rhs):
                raise ImplicitMapError(f"Relation: the right-hand side of derived column {n} refers to its own symbols")
            seen.update(symbols)
            columns.append((symbols, rhs))
        all_derived = set(seen)
        earlier = set()
        for n, (symbols, rhs) in enumerate(columns):
            ahead = all_derived - earlier - set(symbols)
            if any(ahead & r.free_symbols for r in rhs):
                raise ImplicitMapError(f"Relation: derived column {n} refers to symbols of a later column")
            earlier.update(symbols)
        if any(all_derived & e.free_symbols for e in self.equations) or any(
                all_derived & g.free_symbols for g in self.guess.values()):
            raise ImplicitMapError("Relation: the equations and guesses may not refer to derived symbols")
        return tuple(columns)

    @property
    def derived_symbols(self) -> tuple:
        """Every derived symbol, column by column."""
        return tuple(x for symbols, _ in self.derived for x in symbols)

    def _key(self):
        return (self.equations, self.unknowns, tuple(self.guess[u] for u in self.unknowns), self.small, self.derived)

    def __eq__(self, other):
        return isinstance(other, Relation) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        eqs = ", ".join(f"{e} = 0" for e in self.equations)
        return f"Relation([{eqs}], unknowns={list(self.unknowns)})"


def as_relations(relations) -> tuple:
    """``relations`` (a Relation or a sequence of them, or None) as a tuple of distinct Relations."""
    if relations is None:
        return ()
    if isinstance(relations, Relation):
        relations = (relations,)
    try:
        if isinstance(relations, (str, bytes)):
            raise TypeError
        relations = list(relations)
    except TypeError:  # a number, None-like object or string where a sequence of relations was expected
        raise ExpressionError(f"relations must be a Relation or a sequence of Relation objects, got"
                              f" {type(relations).__name__} {relations!r}") from None
    out = []
    for r in relations:
        if not isinstance(r, Relation):
            raise ExpressionError(f"relations must be Relation objects, got {type(r).__name__} {r!r}")
        if r not in out:
            out.append(r)
    return tuple(out)


