"""Sparse exact linear solves with symbolic entries.

Gauss-Jordan elimination on rows stored as ``{column: entry}``.  Pivots are
chosen among entries known to be nonzero: plain numbers first (the common case
of constant forms, which then never leaves exact rational arithmetic), then the
smallest symbolic entries that the zero test decides are not identically zero.
Used for ``i_X w = dH``, the contact equations and the implicit function
theorem, so that no large symbolic matrix is ever inverted.

A pivot is *decided* zero only when the zero test proves it; a pivot the test cannot
decide within its budget is *undecided*.  When no usable pivot is left,
:class:`SingularSystem` says which of the two happened (``undecided``): a decided
singularity is a fact about the equations, an undecided one only says that symbolic
elimination gave up.  Fill-in can make later pivots huge, so a ``deadline`` (a
``time.monotonic()`` value) stops the elimination early with :class:`EliminationTooCostly`.

>>> import sympy
>>> x = sympy.Symbol("x")
>>> solve_sparse([{0: 2, 1: x}, {1: 1}], [[1, 3]], 2)
[[1/2 - 3*x/2, 3]]
>>> try:
...     solve_sparse([{0: x - x}, {0: 0}], [[1, 1]], 1)
... except SingularSystem as exc:
...     print(exc.column, exc.undecided)
0 False
"""

from __future__ import annotations

import time
from typing import Sequence

import sympy
from sympy.combinatorics import Permutation

from .errors import EliminationTooCostly, InconsistentSystem, SingularSystem
from .latex import expression_size

# the exceptions belong to the one hierarchy in geomcheck.errors; they stay importable from here, where they
# are raised
__all__ = ["SingularSystem", "InconsistentSystem", "EliminationTooCostly", "solve_sparse", "solve_affine"]

#: seconds the zero test may spend on one candidate pivot
PIVOT_BUDGET = 5.0

#: candidate pivots are ranked by their tree size up to this many nodes (larger ones tie)
_PIVOT_SIZE = 10_000


def _pivot_budget(deadline):
    if deadline is None:
        return PIVOT_BUDGET
    return max(0.05, min(PIVOT_BUDGET, deadline - time.monotonic()))


def _zero_status(entry, deadline=None):
    """True (proved zero), False (proved nonzero) or None (undecided)."""
    if entry.is_Number:
        return entry == 0
    from .zero import decide_zero

    return decide_zero(entry, budget=_pivot_budget(deadline)).is_zero


def _is_zero_or_unknown(entry) -> bool:
    return _zero_status(entry) is not False


def _eliminate(A, B, chosen, col, before_row=None):
    """Clear column ``col`` from every other sparse row (dicts ``A``, right-hand sides ``B``) with
    the pivot row ``chosen``; ``before_row`` runs before each row (a deadline check)."""
    prow, pb, piv = A[chosen], B[chosen], A[chosen][col]
    for r in range(len(A)):
        if r == chosen or col not in A[r]:
            continue
        if before_row is not None:
            before_row()
        factor = A[r][col] / piv
        row = A[r]
        for c, v in prow.items():
            # no cancel/together here: on the nested quotients of an implicit scheme's
            # Jacobian they cost seconds, and the zero test decides the resulting rational
            # expressions exactly anyway
            nv = row.get(c, 0) - factor * v
            if nv == 0:
                row.pop(c, None)
            else:
                row[c] = nv
        row.pop(col, None)
        B[r] = [b - factor * p for b, p in zip(B[r], pb)]


def _check_deadline(deadline, col, ncols):
    if deadline is not None and time.monotonic() > deadline:
        raise EliminationTooCostly(col, ncols)


def solve_sparse(rows: Sequence[dict], rhs: Sequence[Sequence], ncols: int, deadline=None):
    """Solve ``A x = b_k`` for every right-hand side ``b_k``.

    Parameters
    ----------
    rows : list of dict {column: entry}
        The rows of A (at least ``ncols`` of them; extra rows must be consistent).
    rhs : list of right-hand sides, each a list with one entry per row.
    ncols : number of unknowns.
    deadline : float, optional
        A ``time.monotonic()`` value after which the elimination stops.

    Returns
    -------
    list of solutions, one per right-hand side, each a list of ``ncols`` expressions.

    Raises
    ------
    SingularSystem
        No pivot for some unknown (``undecided`` says whether the zero test gave up).
    InconsistentSystem
    EliminationTooCostly
        The deadline passed.
    """
    A = [{c: sympy.sympify(v) for c, v in r.items() if v != 0} for r in rows]
    B = [[sympy.sympify(b[i]) for b in rhs] for i in range(len(A))]
    free = set(range(len(A)))
    pivots = {}
    for col in range(ncols):
        _check_deadline(deadline, col, ncols)
        candidates = [r for r in free if col in A[r]]
        numeric = [r for r in candidates if A[r][col].is_Number]
        chosen = None
        undecided = False
        if numeric:
            # prefer sparse rows: less fill-in
            chosen = min(numeric, key=lambda r: len(A[r]))
        else:
            # simplest entries first (cheapest to decide); the size is bounded, so ranking
            # a huge entry costs no more than ranking a small one
            for r in sorted(candidates, key=lambda r: expression_size(A[r][col], _PIVOT_SIZE)):
                status = _zero_status(A[r][col], deadline)
                if status is False:
                    chosen = r
                    break
                if status is None:
                    undecided = True
                _check_deadline(deadline, col, ncols)
        if chosen is None:
            raise SingularSystem(col, undecided=undecided)
        free.discard(chosen)
        pivots[col] = chosen
        _eliminate(A, B, chosen, col, lambda: _check_deadline(deadline, col, ncols))
    for r in free:
        for b in B[r]:
            if b != 0 and not _is_zero_or_unknown(b):
                raise InconsistentSystem(b)
    solutions = []
    for k in range(len(rhs)):
        sol = []
        for col in range(ncols):
            r = pivots[col]
            sol.append(B[r][k] / A[r][col])
        solutions.append(sol)
    return solutions


#: the largest block left after the constant pivots that :func:`solve_by_determinant` solves by
#: Cramer's rule (its determinant has up to n! terms)
CRAMER_MAX_BLOCK = 5


class CramerSolution:
    """What :func:`solve_by_determinant` found: every unknown as ``numerator / determinant``.

    Attributes
    ----------
    numerators : list
        One list per right-hand side, one numerator per unknown (no symbolic denominator).
    determinant : expression
        ``det A``, expanded: the one symbolic denominator of the solution.
    eliminated : tuple of int
        The unknowns eliminated with constant pivots (their equations are explicit in them).
    block : tuple of int
        The remaining unknowns, solved by Cramer's rule.
    schur : sympy.Matrix
        The matrix of the remaining unknowns once the others are eliminated
        (``det A = scale * det schur``).
    schur_rhs : sympy.Matrix
        The right-hand sides of that reduced system (one column per right-hand side).
    scale : Rational
        The product of the constant pivots and the sign of their order.
    """

    __slots__ = ("numerators", "determinant", "eliminated", "block", "schur", "schur_rhs", "scale")

    def __init__(self, numerators, determinant, eliminated, block, schur, schur_rhs, scale):
        self.numerators = numerators
        self.determinant = determinant
        self.eliminated = tuple(eliminated)
        self.block = tuple(block)
        self.schur = schur
        self.schur_rhs = schur_rhs
        self.scale = scale

    def solutions(self) -> list:
        """``[[numerator / determinant, ...], ...]`` (the form :func:`solve_sparse` returns)."""
        inv = sympy.Pow(self.determinant, -1) if self.determinant != 1 else sympy.S.One
        return [[n * inv if n != 0 else sympy.S.Zero for n in sol] for sol in self.numerators]


#: expressions up to this many nodes are expanded (a polynomial in the entries is then collected);
#: larger ones are kept as built (expanding nested quotients can take minutes)
_EXPAND_NODES = 300


def _tidy(e):
    """``e`` expanded when small, the arguments of its functions left as they are (so that
    ``V'(q + h k/2)`` stays the very object the equations hold)."""
    e = sympy.sympify(e)
    if expression_size(e, _EXPAND_NODES) > _EXPAND_NODES:
        return e
    calls = {f: sympy.Dummy() for f in e.atoms(sympy.Function)}
    if not calls:
        return sympy.expand(e)
    return sympy.expand(e.xreplace(calls)).xreplace({d: f for f, d in calls.items()})


def solve_by_determinant(rows: Sequence[dict], rhs: Sequence[Sequence], ncols: int, deadline=None,
                         max_block: int = CRAMER_MAX_BLOCK):
    """Solve the square system ``A x = b_k`` with ``det A`` as the only symbolic denominator.

    The unknowns with constant pivots are eliminated first (Gauss-Jordan: no symbolic
    division); the block left is solved by Cramer's rule.  Unlike :func:`solve_sparse`, whose
    symbolic pivots become denominators (an entry such as ``h V''(q)`` divides the solution
    although ``A`` is regular where it vanishes), every unknown comes out as a numerator over
    ``det A``: the solution is defined exactly where ``A`` is invertible.

    Returns
    -------
    CramerSolution, or None when the block left has more than ``max_block`` unknowns (use
    :func:`solve_sparse`).

    Raises
    ------
    SingularSystem
        ``det A`` is zero (``undecided`` False) or could not be decided nonzero (True).
    EliminationTooCostly
        The deadline passed.

    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> s = solve_by_determinant([{0: x, 1: 1}, {0: 1, 1: x}], [[1, 0]], 2)
    >>> s.determinant, s.numerators
    (x**2 - 1, [[x, -1]])
    """
    n = len(rows)
    if n != ncols:
        return None
    A = [{c: sympy.sympify(v) for c, v in r.items() if v != 0} for r in rows]
    B = [[sympy.sympify(b[i]) for b in rhs] for i in range(n)]
    free = set(range(n))
    pivots = {}
    progress = True
    while progress:
        progress = False
        for col in range(ncols):
            if col in pivots:
                continue
            _check_deadline(deadline, col, ncols)
            numeric = [r for r in free if col in A[r] and A[r][col].is_Number]
            if not numeric:
                continue
            chosen = min(numeric, key=lambda r: (len(A[r]), r))
            free.discard(chosen)
            pivots[col] = chosen
            _eliminate(A, B, chosen, col)
            progress = True
    block = [c for c in range(ncols) if c not in pivots]
    block_rows = sorted(free)
    if len(block) > max_block:
        return None
    # det A = sign(rows in pivot order) * prod(pivots) * det S (row operations keep the determinant)
    order = [pivots[c] if c in pivots else None for c in range(ncols)]
    it = iter(block_rows)
    order = [r if r is not None else next(it) for r in order]
    sign = Permutation(order).signature() if ncols > 1 else 1
    scale = sympy.Integer(sign) * sympy.Mul(*[A[pivots[c]][c] for c in pivots])
    if block:
        S = sympy.Matrix([[A[r].get(c, sympy.S.Zero) for c in block] for r in block_rows])
        det_s = _tidy(S[0, 0] if len(block) == 1 else S.det(method="berkowitz"))
        status = _zero_status(det_s, deadline)
        if status is not False:
            raise SingularSystem(block[0], undecided=status is None)
        adj = S.adjugate(method="berkowitz") if len(block) > 1 else sympy.Matrix([[1]])
    else:
        S, det_s, adj = sympy.zeros(0, 0), sympy.S.One, None
    determinant = _tidy(scale * det_s)
    numerators = []
    for k in range(len(rhs)):
        x_block = {}
        if block:
            b_block = sympy.Matrix([B[r][k] for r in block_rows])
            for i, c in enumerate(block):
                # x_c = (adj S b)_i / det S = scale (adj S b)_i / det A
                x_block[c] = _tidy(scale * (adj[i, :] * b_block)[0, 0])
        sol = []
        for col in range(ncols):
            if col in x_block:
                sol.append(x_block[col])
                continue
            r = pivots[col]
            # the pivot row: piv x_col + sum_c A[r][c] x_c = b, with x_c = N_c / det A
            rest = sympy.Add(*[A[r][c] * x_block[c] for c in A[r] if c != col])
            sol.append(_tidy((B[r][k] * determinant - rest) / A[r][col]))
        numerators.append(sol)
    rhs_block = sympy.Matrix([[B[r][k] for k in range(len(rhs))] for r in block_rows]) if block \
        else sympy.zeros(0, len(rhs))
    return CramerSolution(numerators, determinant, sorted(pivots), block, S, rhs_block, scale)


def solve_affine(exprs: Sequence, unknowns: Sequence, targets: Sequence):
    """The ``unknowns`` solving ``exprs == targets`` when every expression is affine in them, else None.

    None also when the linear part is singular (no unique solution).  One sparse solve: this is
    how a Legendre transform affine in the velocities (or momenta) is inverted.

    >>> import sympy
    >>> v, w, p, q = sympy.symbols("v w p q")
    >>> solve_affine([2 * v + w, w], [v, w], [p, q])
    [p/2 - q/2, q]
    >>> solve_affine([v**2], [v], [p]) is None
    True
    """
    from .calculus import diff

    rows = []
    for f in exprs:
        row = {}
        for j, u in enumerate(unknowns):
            c = diff(f, u)
            if any(diff(c, x) != 0 for x in unknowns):
                return None
            if c != 0:
                row[j] = c
        rows.append(row)
    at_zero = {u: 0 for u in unknowns}
    rhs = [t - f.xreplace(at_zero) for t, f in zip(targets, exprs)]
    try:
        (sol,) = solve_sparse(rows, [rhs], len(unknowns))
    except SingularSystem:
        return None
    return sol
