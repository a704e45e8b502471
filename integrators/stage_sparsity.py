r"""The sparsity pattern of the stage Jacobian ``dG/du`` and the linear solver it calls for.

The pattern is read off the symbolic stage equations of the lowered step (the certified
step map): the entry ``(i, j)`` is a *structural zero* when the unknown ``u_j`` does not
occur in the equation ``G_i`` or when ``sympy.diff(G_i, u_j)`` is the exact zero.  Either
way the entry is zero as a function, for every state, unknown and step size, so a solver
that never stores it is exact; no numeric test decides it.  An entry that is zero only
after simplification is kept (stored, evaluated to zero): a harmless over-approximation.

From the pattern (:func:`stage_pattern`) the linear solver of Newton's iteration is chosen
by this rule (:data:`STRUCTURE_MIN_UNKNOWNS`, :data:`BAND_FRACTION`, :data:`SPARSE_FRACTION`):

* fewer than ``STRUCTURE_MIN_UNKNOWNS`` unknowns: ``"dense"`` (the vectorized elimination
  of :mod:`integrators.newton` is faster than any per-matrix call there);
* ``"banded(l,u)"``: the lower and upper bandwidths ``l, u`` in the given order of equations
  and unknowns, or after a reverse Cuthill-McKee permutation (the same permutation of
  equations and unknowns, :func:`scipy.sparse.csgraph.reverse_cuthill_mckee` on the
  symmetrized pattern) when that is narrower, with ``l + u + 1 <= BAND_FRACTION * m``;
  solved by LAPACK's band LU (``dgbtrf``/``dgbtrs``);
* ``"sparse"``: otherwise, when at most ``SPARSE_FRACTION * m^2`` entries are nonzero
  (``scipy.sparse.linalg.splu``);
* ``"dense"`` otherwise.

Only the nonzero entries are lowered (:meth:`StagePattern.kernel`): for the midpoint rule on
a chain of 100 particles that is 598 entries, not 40,000.

>>> import sympy, integrators as ig
>>> from integrators.lower import lower
>>> from integrators.stage_sparsity import stage_pattern
>>> n = 20
>>> q, p = sympy.symbols(f"q0:{n}"), sympy.symbols(f"p0:{n}")
>>> H = sum(x**2 / 2 for x in p) + sum((q[i + 1] - q[i])**4 / 4 for i in range(n - 1))
>>> chain = ig.HamiltonianSystem(H, list(q), list(p))
>>> P = stage_pattern(lower(ig.scheme("implicit-midpoint").step_map(chain)))
>>> P.m, P.nnz, P.kind
(40, 118, 'banded(3,1)')
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy

from geomcheck.caches import Memo

from .codegen import Kernel
from .errors import PatternMismatchError

__all__ = ["PatternMismatchError", "check_pattern", "StagePattern", "stage_pattern", "pattern_of", "bandwidths", "classify", "eliminate_affine_unknowns",
           "STRUCTURE_MIN_UNKNOWNS", "BAND_FRACTION", "SPARSE_FRACTION"]

#: below this many unknowns the dense (vectorized) path is always taken
STRUCTURE_MIN_UNKNOWNS = 24
#: a band is used when l + u + 1 is at most this fraction of the unknowns
BAND_FRACTION = 0.25
#: a general sparse LU is used when at most this fraction of the entries is nonzero
SPARSE_FRACTION = 0.1


def bandwidths(rows, cols) -> tuple:
    """``(l, u)``: the lower and upper bandwidths of the pattern (``max(i - j)``, ``max(j - i)``, at least 0).

    >>> bandwidths([0, 1, 1, 2], [0, 0, 2, 1])
    (1, 1)
    """
    rows, cols = np.asarray(rows), np.asarray(cols)
    if rows.size == 0:
        return 0, 0
    return int(max(0, (rows - cols).max())), int(max(0, (cols - rows).max()))


def pattern_of(equations, unknowns):
    """``(rows, cols, entries)``: the structurally nonzero entries of ``d equations / d unknowns``, row-major.

    An entry is taken only when the unknown occurs in the equation and the derivative is
    not the exact zero; every other entry is zero as a function.

    >>> x, y, z = sympy.symbols("x y z")
    >>> pattern_of([x + y, y * z, z - x * 0], [x, y, z])
    ([0, 0, 1, 1, 2], [0, 1, 1, 2, 2], [1, 1, z, y, 1])
    """
    rows, cols, entries = [], [], []
    for i, e in enumerate(equations):
        e = sympy.sympify(e)
        present = e.free_symbols
        for j, u in enumerate(unknowns):
            if u not in present:
                continue
            d = sympy.diff(e, u)
            if d == 0:          # the exact zero (structural), not a numeric test
                continue
            rows.append(i)
            cols.append(j)
            entries.append(d)
    return rows, cols, entries


@dataclass(frozen=True)
class StagePattern:
    """The structure of the stage Jacobian of one lowered implicit step.

    Attributes
    ----------
    m : int                     the number of unknowns (and equations)
    rows, cols : tuple of int   the structurally nonzero entries, in the ORIGINAL order
    entries : tuple of Expr     ``dG_rows[k] / du_cols[k]``
    kind : str                  ``"banded(l,u)"``, ``"sparse"`` or ``"dense"``
    lower, upper : int          the bandwidths in the order used (after ``perm``)
    perm : tuple of int or None the order of equations and unknowns used (``perm[new] = old``),
                                None for the given order
    """

    m: int
    rows: tuple
    cols: tuple
    entries: tuple
    kind: str
    lower: int
    upper: int
    perm: tuple | None
    _kernels: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def nnz(self) -> int:
        """The number of structurally nonzero entries."""
        return len(self.rows)

    @property
    def banded(self) -> bool:
        return self.kind.startswith("banded")

    def permuted(self):
        """``(rows, cols)`` in the order used (``perm`` applied to equations and unknowns)."""
        if self.perm is None:
            return np.asarray(self.rows, dtype=np.intp), np.asarray(self.cols, dtype=np.intp)
        inverse = np.empty(self.m, dtype=np.intp)
        inverse[np.asarray(self.perm)] = np.arange(self.m)
        return inverse[np.asarray(self.rows, dtype=np.intp)], inverse[np.asarray(self.cols, dtype=np.intp)]

    def kernel(self, L) -> Kernel:
        """The equations and the nonzero Jacobian entries of ``L``, lowered once: ``m + nnz`` outputs."""
        K = self._kernels.get(id(L))
        if K is None or K[0] is not L:
            K = (L, Kernel(list(L.equations) + list(self.entries), L.coords + L.unknowns, L.parameters, L.backend))
            self._kernels[id(L)] = K
        return K[1]


_PATTERNS = Memo("integrators.stage_sparsity.patterns", 256)


def _rcm(m, rows, cols):
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    A = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(m, m))
    S = (A + A.T).tocsr()
    return np.asarray(reverse_cuthill_mckee(S, symmetric_mode=True), dtype=np.intp)


def classify(m, rows, cols):
    """``(kind, l, u, perm)`` for a pattern, by the rule of the module docstring.

    >>> classify(30, range(30), range(30))
    ('banded(0,0)', 0, 0, None)
    >>> classify(4, [0, 1], [1, 0])
    ('dense', 3, 3, None)
    """
    rows, cols = np.asarray(list(rows), dtype=np.intp), np.asarray(list(cols), dtype=np.intp)
    if m < STRUCTURE_MIN_UNKNOWNS:
        return "dense", m - 1, m - 1, None
    lo, up = bandwidths(rows, cols)
    perm = None
    if lo + up + 1 > BAND_FRACTION * m and rows.size:
        order = _rcm(m, rows, cols)
        inverse = np.empty(m, dtype=np.intp)
        inverse[order] = np.arange(m)
        lo2, up2 = bandwidths(inverse[rows], inverse[cols])
        if lo2 + up2 < lo + up:
            lo, up, perm = lo2, up2, tuple(int(k) for k in order)
    if lo + up + 1 <= BAND_FRACTION * m:
        return f"banded({lo},{up})", lo, up, perm
    if rows.size <= SPARSE_FRACTION * m * m:
        return "sparse", m - 1, m - 1, None
    return "dense", m - 1, m - 1, None


def stage_pattern(L) -> StagePattern:
    """The :class:`StagePattern` of the lowered implicit step ``L`` (cached per lowered step)."""
    hit = _PATTERNS.get(id(L))
    if hit is not None and hit[0] is L:
        return hit[1]
    rows, cols, entries = pattern_of(L.equations, L.unknowns)
    kind, lo, up, perm = classify(L.m, rows, cols)
    result = StagePattern(L.m, tuple(rows), tuple(cols), tuple(entries), kind, lo, up, perm)
    _PATTERNS.put(id(L), (L, result))
    return result


def eliminate_affine_unknowns(equations, unknowns):
    """``(kept unknowns, reduced equations, {eliminated unknown: its expression})``.

    An equation ``c u_i + R(x, u_others) = 0`` with ``c`` a nonzero NUMBER (``G`` affine in
    ``u_i`` with a constant coefficient) gives ``u_i = -R / c`` exactly; substituted into the
    other equations it removes one unknown and one equation, and the reduced system has
    exactly the solutions of the original one (``u_i`` recovered from the others).  The
    unknowns are taken greedily, equation by equation, so that no eliminated unknown occurs
    in the expression of another: one substitution suffices.  The midpoint rule of a
    Hamiltonian ``p^2/2 + V(q)``: ``k_q = p + h/2 k_p`` goes, leaving the force equations.

    >>> x, a, b = sympy.symbols("x a b")
    >>> kept, eqs, sol = eliminate_affine_unknowns([a - x - b / 2, b + a**3], [a, b])
    >>> kept, eqs, sol
    ((b,), [b + (b/2 + x)**3], {a: b/2 + x})
    """
    unknowns = tuple(unknowns)
    equations = [sympy.sympify(e) for e in equations]
    eliminated, used = {}, set()
    for i, e in enumerate(equations):
        present = e.free_symbols
        for u in unknowns:
            if u in eliminated or u not in present:
                continue
            c = sympy.diff(e, u)
            if not (c.is_Number and c != 0):
                continue
            value = -e.xreplace({u: 0}) / c
            if u in value.free_symbols:
                continue
            if value.free_symbols & set(eliminated) or any(u in v.free_symbols for v in eliminated.values()):
                continue
            eliminated[u] = value
            used.add(i)
            break
    kept = tuple(u for u in unknowns if u not in eliminated)
    reduced = [e.xreplace(eliminated) for i, e in enumerate(equations) if i not in used]
    return kept, reduced, eliminated


def check_pattern(L, pattern, values, y, u=None, step=1e-6, threshold=1e-5):
    """Check numerically that ``pattern`` holds every nonzero of ``dG/du`` at one point; returns ``pattern``.

    The columns of the Jacobian are estimated by central differences of the stage equations
    at ``(y, u)`` (``u`` default: the starting guess at ``y``) with bound parameter ``values``;
    an entry outside the pattern larger than ``threshold * (1 + max |column|)`` -- far above the
    differences' truncation and rounding errors -- is a nonzero the pattern declares zero.  A
    pattern from :func:`stage_pattern` is exact by construction; this guards a pattern made
    or edited by hand.  Passing proves nothing (the point may be special); failing is a
    genuine counterexample up to the stated threshold.

    Raises
    ------
    PatternMismatchError
        Names the entry, its estimated value and the point.

    Examples
    --------
    >>> import sympy, numpy as np, integrators as ig
    >>> from integrators.lower import lower
    >>> q, p = sympy.symbols("q p")
    >>> L = lower(ig.scheme("implicit-midpoint").step_map(ig.HamiltonianSystem(p**2/2 + q**4/4, q, p)))
    >>> P = stage_pattern(L)
    >>> check_pattern(L, P, [0.1], [0.5, 0.25]) is P
    True
    >>> wrong = StagePattern(P.m, P.rows[:-1], P.cols[:-1], P.entries[:-1], P.kind, P.lower, P.upper, P.perm)
    >>> try:
    ...     check_pattern(L, wrong, [0.1], [0.5, 0.25])
    ... except PatternMismatchError as exc:
    ...     print("caught", exc.entry)
    caught (1, 1)
    """
    K = Kernel(list(L.equations), L.coords + L.unknowns, L.parameters, "numpy")
    S = K.scalars(*[float(v) for v in values])
    x = [np.array([float(v)]) for v in y]
    if u is None:
        G = Kernel([L.phi.guess[w] for w in L.unknowns], L.coords, L.parameters, "numpy")
        u = [float(np.asarray(g).reshape(-1)[0]) for g in G.kernel(G.scalars(*[float(v) for v in values]), *x)]
    u = np.asarray(u, dtype=float)
    declared = set(zip(pattern.rows, pattern.cols))

    def G_at(w):
        return np.array([float(np.asarray(o).reshape(-1)[0]) for o in K.kernel(S, *x, *[np.array([c]) for c in w])])

    for j in range(L.m):
        e = step * (1.0 + abs(u[j]))
        up, down = u.copy(), u.copy()
        up[j] += e
        down[j] -= e
        column = (G_at(up) - G_at(down)) / (2 * e)
        scale = 1.0 + np.abs(column).max()
        for i in range(L.m):
            if (i, j) not in declared and abs(column[i]) > threshold * scale:
                exc = PatternMismatchError(
                    f"the stage Jacobian entry ({i}, {j}) = d({L.equations[i]}) / d{L.unknowns[j]} is about"
                    f" {column[i]:.3g} at the state {list(map(float, y))}, but the pattern declares it zero")
                exc.entry = (i, j)
                raise exc
    return pattern
