"""Runge-Kutta and partitioned Runge-Kutta tableaux, and certificates of their properties.

A :class:`ButcherTableau` (or :class:`PartitionedTableau`) is an immutable object with
exact entries (sympy Rationals and algebraic numbers such as ``sqrt(3)`` or a
``CRootOf``), validated when it is built.  Its properties are *functions* returning a
:class:`~geomcheck.certify.certificate.Certificate` (``holds`` True / False / None) whose
derivation lists every condition checked, so ``cert.latex()`` typesets the proof:

* :func:`order` -- the largest p such that every tree condition up to p holds (rooted
  trees for RK, bicoloured P-trees for PRK), with the first failing tree and its residual;
* :func:`order_conditions` -- the conditions ``Phi(t) = 1/gamma(t)`` up to p, per tree;
* :func:`condition_B`, :func:`condition_C`, :func:`condition_D` -- the simplifying
  assumptions B(p), C(q), D(r); :func:`stage_order` -- the largest q with B(q) and C(q);
* :func:`is_symmetric` -- the method equals its adjoint up to a renumbering of stages;
* :func:`is_symplectic` -- ``b_i a_ij + b_j a_ji - b_i b_j = 0`` (PRK: see the function);
* :func:`reduce_tableau` -- the equivalent irreducible method (coinciding stages merged,
  unneeded ones removed);
* :func:`is_explicit`, :func:`is_diagonally_implicit` -- the structure of A;
* :func:`stability_function` -- ``R(z) = det(I - zA + z e b^T) / det(I - zA)``, exactly.

Properties of the method, decided on the reduced method
-------------------------------------------------------
Symplecticity and symmetry conditions are sufficient for every tableau but necessary
only for *irreducible* ones: ``A = [[1/4, 1/4], [1/4, 1/4]], b = [1/4, 3/4]`` is the
implicit midpoint rule (both stages solve the same equation), symplectic and symmetric,
although its own ``M`` does not vanish.  :func:`is_symplectic`, :func:`is_symmetric` and
:func:`order` therefore work on :func:`reduce_tableau` and say so in the certificate
("decided on the reduced method: stages 1 and 2 coincide ..."); a failure on a tableau
whose reduction could not be decided is reported as undecided, never as False.  The
tree conditions hold or fail alike on both.  :func:`condition_B`, :func:`condition_C`,
:func:`condition_D`, :func:`stage_order`, :func:`is_explicit` and
:func:`is_diagonally_implicit` are statements about the tableau as written.

How zero is decided (exactly)
-----------------------------
Every condition is a polynomial in the entries.  The entries are read into one exact
arithmetic before anything is computed:

* rational entries: exact rational arithmetic (stage ``"exact"``);
* algebraic entries (radicals, ``I``, ``CRootOf``, ``AlgebraicNumber``, and ``cos``,
  ``sin``, ``tan`` of rational multiples of ``pi`` such as the ``cos(pi/18)`` of the
  3-stage SDIRK of order 4): the number field ``Q(theta)`` they generate, ``theta`` a
  primitive element with monic integral minimal polynomial ``g``; an element is a vector
  of ``deg g`` rationals, and it is zero iff the vector is (``g`` is irreducible).  Stage
  ``"exact"``, and the method names the field;
* floating-point entries (only with ``exact=False``, see below): judged against the
  precision the entries themselves carry (the shortest decimals that reproduce them, see
  :mod:`geomcheck.certify.precision`), not their container; each residual is computed in
  mpmath with a rigorous bound on how far entries within that precision can move it and
  is nonzero only above twice that bound.  Stage ``"numeric"``; the claims say "up to the
  1e-15 precision of the entries" -- evidence about the given numbers, not a proof for
  exact coefficients;
* other constants (``pi``, ``cos(1)`` ...): sympy arithmetic and
  :func:`geomcheck.zero.decide_all_zero`, whose stage and method are reported.

Floats
------
Python floats and sympy Floats are refused by default
(:class:`~geomcheck.errors.TableauFloatError`): ``0.1`` is not one tenth, and an order or symplecticity claim about
a float tableau cannot be proved.  Use ``sympy.Rational(1, 10)``, ``sympy.nsimplify(x)``,
or a decimal *string* (``"0.1"`` is read exactly as 1/10).  ``exact=False`` accepts
floats; decisions are then numeric (stage ``"numeric"``), e.g. for the high-stage-number
Gauss tableaux of :mod:`geomcheck.certify.families`, whose entries are 60-digit Floats.

Examples
--------
>>> import sympy
>>> from geomcheck.certify.tableaux import ButcherTableau, order, is_symplectic
>>> r3 = sympy.sqrt(3)
>>> gauss2 = ButcherTableau([[sympy.Rational(1, 4), sympy.Rational(1, 4) - r3 / 6],
...                          [sympy.Rational(1, 4) + r3 / 6, sympy.Rational(1, 4)]],
...                         [sympy.Rational(1, 2), sympy.Rational(1, 2)], name="Gauss s=2")
>>> cert = order(gauss2)
>>> cert.order, cert.holds, cert.stage, str(cert.failing_tree)
(4, True, 'exact', '[τ⁴]')
>>> is_symplectic(gauss2).holds
True
"""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

import sympy
from sympy.core.function import AppliedUndef

from ..errors import (
    InconsistentNodesError,
    InvalidArgumentError,
    TableauEntryError,
    TableauError,
    TableauFloatError,
    TableauShapeError,
)
from ..latex import Derivation, Step, tex_text
from .certificate import Certificate
# MAX_FIELD_DEGREE and gauss_jordan stay importable from here, where they were defined first
from .tableau_arithmetic import MAX_FIELD_DEGREE, InexactDomain, domain_for, gauss_jordan  # noqa: F401
from .tableau_arithmetic import characteristic_coefficients
from .tableau_arithmetic import clear_caches as clear_fields
from .trees import MAX_ORDER, ElementaryWeights, trees_of_order
from .trees import clear_caches as clear_trees

if TYPE_CHECKING:
    import numpy

__all__ = [
    "ButcherTableau",
    "PartitionedTableau",
    "OrderCertificate",
    "StabilityFunction",
    "order",
    "order_conditions",
    "condition_B",
    "condition_C",
    "condition_D",
    "stage_order",
    "is_symmetric",
    "is_symplectic",
    "is_explicit",
    "is_diagonally_implicit",
    "stability_function",
    "reduce_tableau",
    "Reduction",
    "clear_caches",
]


def clear_caches() -> None:
    """Forget the memoized number fields and generated trees (for cold benchmarks)."""
    clear_fields()
    clear_trees()


# =====================================================================================
# Validation of entries and shapes



def _entry(x, where: str, owner: str, exact: bool):
    """One validated entry: a finite real sympy number (see the module docstring)."""
    if isinstance(x, bool):
        raise TableauEntryError(f"{owner}: {where} = {x!r} is a bool; expected a number")
    if isinstance(x, str):
        try:
            e = sympy.sympify(x, rational=True)
        except (sympy.SympifyError, SyntaxError, TypeError, ValueError) as exc:
            raise TableauEntryError(f"{owner}: {where} = {x!r} is not a number ({exc})") from None
    elif isinstance(x, numbers.Integral):
        e = sympy.Integer(int(x))
    elif isinstance(x, Fraction):
        e = sympy.Rational(x.numerator, x.denominator)
    elif isinstance(x, numbers.Real) and not isinstance(x, sympy.Basic):
        v = float(x)
        if math.isnan(v) or math.isinf(v):
            raise TableauEntryError(f"{owner}: {where} = {v!r}; entries must be finite numbers")
        if exact:
            guess = sympy.nsimplify(v)
            raise TableauFloatError(
                f"{owner}: {where} = {v!r} is a float, which is not exact; give exact entries "
                f"(sympy.Rational, sympy.sqrt(...), a decimal string such as '0.1', or "
                f"sympy.nsimplify({v!r}) = {guess}), or pass exact=False to accept floats "
                f"(decisions are then numeric, not proofs)")
        e = sympy.Float(v)
    else:
        try:
            e = sympy.sympify(x, strict=True)
        except (sympy.SympifyError, TypeError, ValueError):
            raise TableauEntryError(
                f"{owner}: {where} = {x!r} ({type(x).__name__}) is not a number") from None
    if not isinstance(e, sympy.Expr):
        raise TableauEntryError(f"{owner}: {where} = {e!r} is not a number")
    if e.has(sympy.S.NaN) or e.has(sympy.S.ComplexInfinity) or e.has(sympy.S.Infinity) \
            or e.has(sympy.S.NegativeInfinity):
        raise TableauEntryError(f"{owner}: {where} = {e}; entries must be finite numbers (not NaN or infinite)")
    if e.free_symbols or e.atoms(AppliedUndef):
        names = sorted(map(str, e.free_symbols | e.atoms(AppliedUndef)))
        raise TableauEntryError(
            f"{owner}: {where} = {e} is not numeric (it contains {', '.join(names)}); "
            f"a tableau needs numbers: substitute values for the parameters first")
    if exact and e.has(sympy.Float):
        raise TableauFloatError(
            f"{owner}: {where} = {e} contains a floating-point number, which is not exact; use "
            f"sympy.Rational or sympy.nsimplify, or pass exact=False (decisions are then numeric)")
    if not e.is_number:
        raise TableauEntryError(f"{owner}: {where} = {e} is not a number")
    if e.is_real is False or e.is_finite is False:
        raise TableauEntryError(f"{owner}: {where} = {e} is not a finite real number")
    return e


def _rows(A, owner):
    if isinstance(A, (str, bytes)) or isinstance(A, sympy.Basic) and not isinstance(A, sympy.MatrixBase):
        raise TableauShapeError(f"{owner}: A = {A!r} is not a matrix; give a square list of rows")
    if hasattr(A, "tolist"):
        A = A.tolist()
    try:
        rows = list(A)
        out = []
        for r in rows:
            if isinstance(r, (str, bytes)):
                raise TypeError
            out.append(list(r.tolist() if hasattr(r, "tolist") and not isinstance(r, sympy.Basic) else r))
    except TypeError:
        raise TableauShapeError(
            f"{owner}: A must be a square matrix given as a list of rows (or a sympy/numpy matrix), "
            f"not {A!r}") from None
    s = len(out)
    if s == 0:
        raise TableauShapeError(f"{owner}: A is empty; a tableau needs at least one stage")
    for i, r in enumerate(out):
        if len(r) != s:
            raise TableauShapeError(
                f"{owner}: A has {s} rows but row {i} has {len(r)} entries; A must be square (s x s)")
    return out


def _vector(v, name, s, owner):
    if isinstance(v, sympy.MatrixBase):
        if 1 not in v.shape:
            raise TableauShapeError(f"{owner}: {name} is a {v.shape[0]} x {v.shape[1]} matrix; expected a vector")
        v = list(v)
    elif hasattr(v, "tolist") and not isinstance(v, sympy.Basic):
        v = v.tolist()
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise TableauShapeError(f"{owner}: {name} = {v!r} is not a vector; expected {s} entries (one per stage)")
    v = list(v)
    if v and all(isinstance(x, (list, tuple)) and len(x) == 1 for x in v):
        v = [x[0] for x in v]
    if len(v) != s:
        raise TableauShapeError(
            f"{owner}: {name} has {len(v)} entries but A is {s} x {s}; {name} needs one entry per stage")
    return v


@dataclass
class _Arith:
    """A tableau's entries in its exact (or numeric) arithmetic."""

    dom: Any
    A: list
    b: list
    c: list
    r: list  # row sums of A

    @property
    def s(self):
        return len(self.b)


def _in_domain(dom, A, b, c):
    Ad = [[dom.convert(x) for x in row] for row in A]
    bd = [dom.convert(x) for x in b]
    cd = [dom.convert(x) for x in c] if c is not None else None
    r = []
    for row in Ad:
        acc = dom.zero
        for x in row:
            acc = acc + x
        r.append(acc)
    return _Arith(dom, Ad, bd, cd if cd is not None else list(r), r)


def _owner(kind, name):
    return f"{kind} {name!r}" if name else kind


class ButcherTableau:
    """An immutable Runge-Kutta tableau ``(A, b, c)`` with exact entries.

    Parameters
    ----------
    A : s x s matrix
        List of rows, sympy Matrix or numpy array of numbers.
    b : length-s vector
        The weights.
    c : length-s vector, optional
        The nodes; by default the row sums of A.  When given they must equal the row
        sums (decided exactly) unless ``allow_inconsistent_c=True``.
    allow_inconsistent_c : bool
        Keep nodes that differ from the row sums (order conditions by trees use the
        row sums, the autonomous form; B, C, D and stage order use ``c``).
    exact : bool
        True (default): floats are refused (:class:`~geomcheck.errors.TableauFloatError`).
        False: floats are accepted and every decision is numeric (stage ``"numeric"``).
    name, provenance : str
        What the tableau is and where its entries come from (how they were computed).

    Attributes
    ----------
    A, b, c : tuples of sympy numbers
        The validated entries (``c`` the row sums when not given).
    s : int
        Number of stages.
    exact : bool
        True when no entry is a floating-point number (decisions are then proofs).

    Raises
    ------
    TableauShapeError
        A not square, b or c of the wrong length.
    TableauEntryError
        An entry that is not a finite real number (free symbols, NaN, infinity, complex).
    TableauFloatError
        A float entry with ``exact=True``.
    InconsistentNodesError
        ``c`` differs from the row sums of A (and ``allow_inconsistent_c`` is False).

    Examples
    --------
    >>> from sympy import Rational as R
    >>> rk4 = ButcherTableau([[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]],
    ...                      [R(1, 6), R(1, 3), R(1, 3), R(1, 6)], name="RK4")
    >>> rk4.s, rk4.c
    (4, (0, 1/2, 1/2, 1))
    >>> ButcherTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)], c=[0, R(1, 2)])
    Traceback (most recent call last):
    ...
    geomcheck.errors.InconsistentNodesError: ButcherTableau: c[1] = 1/2 but row 1 of A sums to 1; ...
    """

    def __init__(self, A: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]],
                 b: sympy.MatrixBase | numpy.ndarray | Sequence[Any],
                 c: sympy.MatrixBase | numpy.ndarray | Sequence[Any] | None = None, *,
                 allow_inconsistent_c: bool = False, exact: bool = True, name: str = "", provenance: str = ""):
        owner = _owner("ButcherTableau", name)
        rows = _rows(A, owner)
        s = len(rows)
        A_ = tuple(tuple(_entry(x, f"A[{i}][{j}]", owner, exact) for j, x in enumerate(row))
                   for i, row in enumerate(rows))
        b_ = tuple(_entry(x, f"b[{i}]", owner, exact) for i, x in enumerate(_vector(b, "b", s, owner)))
        c_given = None
        if c is not None:
            c_given = tuple(_entry(x, f"c[{i}]", owner, exact) for i, x in enumerate(_vector(c, "c", s, owner)))
        entries = [x for row in A_ for x in row] + list(b_) + list(c_given or ())
        dom = domain_for(entries)
        ar = _in_domain(dom, A_, b_, c_given)
        if c_given is None:
            if dom.kind == "exact":
                c_ = tuple(dom.to_sympy(x) for x in ar.r)
            else:
                c_ = tuple(sympy.Add(*row) for row in A_)
        else:
            c_ = c_given
            if not allow_inconsistent_c:
                for i in range(s):
                    z = dom.is_zero(ar.c[i] - ar.r[i])
                    if z is not True:
                        how = "differs from" if z is False else "could not be shown to equal"
                        raise InconsistentNodesError(
                            f"{owner}: c[{i}] = {c_[i]} but row {i} of A sums to "
                            f"{dom.to_sympy(ar.r[i]) if dom.kind != 'numeric' else sympy.Add(*A_[i])}; "
                            f"c {how} the row sums of A (c_i = sum_j a_ij); pass "
                            f"allow_inconsistent_c=True to keep these nodes")
        d = self.__dict__
        d["A"], d["b"], d["c"], d["s"] = A_, b_, c_, s
        d["name"], d["provenance"] = str(name), str(provenance)
        d["exact"] = not any(e.has(sympy.Float) for e in entries)
        d["_arith"] = ar

    @classmethod
    def _from_arith(cls, ar, *, name, provenance, exact):
        """A tableau whose entries are already in an arithmetic (a reduced method keeps the
        original's, so inexact entries keep their precision)."""
        self = cls.__new__(cls)
        to = ar.dom.to_sympy
        d = self.__dict__
        d["A"] = tuple(tuple(to(x) for x in row) for row in ar.A)
        d["b"] = tuple(to(x) for x in ar.b)
        d["c"] = tuple(to(x) for x in ar.c)
        d["s"] = len(ar.b)
        d["name"], d["provenance"], d["exact"] = str(name), str(provenance), bool(exact)
        d["_arith"] = ar
        return self

    @functools.cached_property
    def _reduction(self):
        return _make_reduction(self)

    def __setattr__(self, key, value):
        raise AttributeError(f"ButcherTableau is immutable (cannot set {key!r})")

    def __delattr__(self, key):
        raise AttributeError(f"ButcherTableau is immutable (cannot delete {key!r})")

    @property
    def matrix(self) -> sympy.ImmutableMatrix:
        """A as an immutable sympy matrix."""
        return sympy.ImmutableMatrix(self.A)

    @property
    def label(self) -> str:
        return self.name or f"the {self.s}-stage tableau"

    @functools.cached_property
    def _weights(self):
        ar = self._arith
        return ElementaryWeights([ar.A], [ar.b], ar.dom.one)

    def _key(self):
        return (self.A, self.b, self.c)

    def __eq__(self, other):
        if not isinstance(other, ButcherTableau):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(("ButcherTableau",) + self._key())

    def __repr__(self):
        nm = f"{self.name!r}, " if self.name else ""
        return f"ButcherTableau({nm}s={self.s})"

    def __reduce__(self):
        return (_rebuild_tableau, (self.A, self.b, self.c, not self.exact, self.name, self.provenance))

    def _latex(self, printer=None):
        return _array_tex(self.A, self.b, self.c)

    def _repr_latex_(self):
        return "$" + self._latex() + "$"


def _rebuild_tableau(A, b, c, inexact, name, provenance):
    return ButcherTableau(A, b, c, allow_inconsistent_c=True, exact=not inexact, name=name,
                          provenance=provenance)


def _array_tex(A, b, c):
    s = len(b)
    rows = [sympy.latex(c[i]) + " & " + " & ".join(sympy.latex(x) for x in A[i]) for i in range(s)]
    return (r"\begin{array}{c|" + "c" * s + "}" + r" \\ ".join(rows) + r" \\ \hline & "
            + " & ".join(sympy.latex(x) for x in b) + r"\end{array}")


class PartitionedTableau:
    """An immutable partitioned Runge-Kutta pair: ``(A1, b1)`` for q, ``(A2, b2)`` for p.

    Convention (the one of ``integrators.PartitionedRungeKutta(A1, b1, A2, b2)``): for a
    Hamiltonian system ``q' = H_p``, ``p' = -H_q``,

        Q_i = q0 + h sum_j A1_ij H_p(Q_j, P_j),   q1 = q0 + h sum_i b1_i H_p(Q_i, P_i),
        P_i = p0 - h sum_j A2_ij H_q(Q_j, P_j),   p1 = p0 - h sum_i b2_i H_q(Q_i, P_i),

    i.e. the first tableau integrates the positions (P-tree colour 0, ``\\bullet``) and
    the second the momenta (colour 1, ``\\circ``).  The Lobatto IIIA-IIIB pair with s = 2
    in this order is the Stormer-Verlet method.  (Order and symplecticity conditions are
    invariant under swapping the two parts, so the certificates do not depend on the
    convention; the integrator does.)

    Parameters
    ----------
    A1, b1, A2, b2, c1, c2
        As for :class:`ButcherTableau`; both parts must have the same number of stages.
    allow_inconsistent_c, exact, name, provenance
        As for :class:`ButcherTableau`.

    Examples
    --------
    >>> from sympy import Rational as R
    >>> verlet = PartitionedTableau([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)],
    ...                             [[R(1, 2), 0], [R(1, 2), 0]], [R(1, 2), R(1, 2)], name="Stormer-Verlet")
    >>> order(verlet).order, is_symplectic(verlet).holds
    (2, True)
    """

    def __init__(self, A1: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]],
                 b1: sympy.MatrixBase | numpy.ndarray | Sequence[Any],
                 A2: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]],
                 b2: sympy.MatrixBase | numpy.ndarray | Sequence[Any],
                 c1: sympy.MatrixBase | numpy.ndarray | Sequence[Any] | None = None,
                 c2: sympy.MatrixBase | numpy.ndarray | Sequence[Any] | None = None, *,
                 allow_inconsistent_c: bool = False, exact: bool = True, name: str = "", provenance: str = ""):
        owner = _owner("PartitionedTableau", name)
        if isinstance(A1, ButcherTableau) and isinstance(b1, ButcherTableau):
            raise TableauError(f"{owner}: use PartitionedTableau.from_parts(q_tableau, p_tableau)")
        q = ButcherTableau(A1, b1, c1, allow_inconsistent_c=allow_inconsistent_c, exact=exact,
                           name=f"{name} (q part)" if name else "q part")
        p = ButcherTableau(A2, b2, c2, allow_inconsistent_c=allow_inconsistent_c, exact=exact,
                           name=f"{name} (p part)" if name else "p part")
        self._init(q, p, name, provenance, owner)

    @classmethod
    def from_parts(cls, q_part: ButcherTableau, p_part: ButcherTableau, *, name: str = "",
                   provenance: str = "") -> PartitionedTableau:
        """The pair of two existing tableaux (``q_part`` for positions, ``p_part`` for momenta)."""
        owner = _owner("PartitionedTableau", name)
        for nm, t in (("q_part", q_part), ("p_part", p_part)):
            if not isinstance(t, ButcherTableau):
                raise TableauError(f"{owner}: {nm} must be a ButcherTableau, not {type(t).__name__}")
        self = cls.__new__(cls)
        self._init(q_part, p_part, name, provenance, owner)
        return self

    def _init(self, q, p, name, provenance, owner):
        if q.s != p.s:
            raise TableauShapeError(
                f"{owner}: the q part has {q.s} stages and the p part {p.s}; a partitioned pair "
                f"needs the same number of stages in both")
        entries = [x for T in (q, p) for row in T.A for x in row] + list(q.b) + list(p.b) + list(q.c) + list(p.c)
        dom = domain_for(entries)
        d = self.__dict__
        d["q"], d["p"], d["s"] = q, p, q.s
        d["name"], d["provenance"] = str(name), str(provenance)
        d["exact"] = q.exact and p.exact
        d["_arith"] = (_in_domain(dom, q.A, q.b, q.c), _in_domain(dom, p.A, p.b, p.c))

    @classmethod
    def _from_ariths(cls, ars, *, name, provenance, exact):
        """A pair whose two parts are already in one arithmetic (see ButcherTableau._from_arith)."""
        self = cls.__new__(cls)
        q = ButcherTableau._from_arith(ars[0], name=f"{name} (q part)", provenance=provenance, exact=exact)
        p = ButcherTableau._from_arith(ars[1], name=f"{name} (p part)", provenance=provenance, exact=exact)
        d = self.__dict__
        d["q"], d["p"], d["s"] = q, p, q.s
        d["name"], d["provenance"], d["exact"] = str(name), str(provenance), bool(exact)
        d["_arith"] = (ars[0], ars[1])
        return self

    @functools.cached_property
    def _reduction(self):
        return _make_reduction(self)

    def __setattr__(self, key, value):
        raise AttributeError(f"PartitionedTableau is immutable (cannot set {key!r})")

    @property
    def label(self) -> str:
        return self.name or f"the {self.s}-stage partitioned pair"

    @functools.cached_property
    def _weights(self):
        aq, ap = self._arith
        return ElementaryWeights([aq.A, ap.A], [aq.b, ap.b], aq.dom.one)

    def __eq__(self, other):
        if not isinstance(other, PartitionedTableau):
            return NotImplemented
        return (self.q, self.p) == (other.q, other.p)

    def __hash__(self):
        return hash(("PartitionedTableau", self.q, self.p))

    def __repr__(self):
        nm = f"{self.name!r}, " if self.name else ""
        return f"PartitionedTableau({nm}s={self.s})"

    def _latex(self, printer=None):
        return (r"q:\ " + _array_tex(self.q.A, self.q.b, self.q.c) + r"\qquad p:\ "
                + _array_tex(self.p.A, self.p.b, self.p.c))

    def _repr_latex_(self):
        return "$" + self._latex() + "$"


# =====================================================================================
# Certificates


@dataclass(frozen=True, repr=False)
class OrderCertificate(Certificate):
    """A :class:`Certificate` that also carries a number: the order (or stage order).

    Attributes
    ----------
    order : int or None
        The certified order p: every condition up to p holds.  When ``failing_tree`` is
        None and ``holds`` is True, p is only a lower bound (``max_order`` was reached).
    failing_tree : RootedTree or None
        The first tree (in generation order) of order p + 1 whose condition fails.
    residuals : dict
        ``{tree: Phi(t) - 1/gamma(t)}`` (sympy numbers) for every tree checked.
    """

    order: Any = None
    failing_tree: Any = None
    residuals: Any = None

    def to_dict(self) -> dict:
        d = super().to_dict()
        d["order"] = self.order
        d["failing_tree"] = None if self.failing_tree is None else str(self.failing_tree)
        return d


def _parts(T, what):
    if isinstance(T, ButcherTableau):
        return [T._arith], 1
    if isinstance(T, PartitionedTableau):
        return list(T._arith), 2
    raise InvalidArgumentError(f"{what} needs a ButcherTableau or PartitionedTableau, not {type(T).__name__}")


def _only_rk(T, what):
    if not isinstance(T, ButcherTableau):
        raise InvalidArgumentError(
            f"{what} needs a ButcherTableau, not {type(T).__name__}"
            + ("; apply it to the parts T.q and T.p" if isinstance(T, PartitionedTableau) else ""))
    return T._arith


def _check_int(name, v, lo, hi=None):
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
        rng = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise InvalidArgumentError(f"{name} must be an integer {rng}, not {v!r}")


def _tree_label(t):
    return "the tree " + t.ascii()


def _plural(n, kind):
    """'1 rooted tree', '4 rooted trees' (kind given in the plural)."""
    return f"{n} {kind[:-1] if n == 1 else kind}"


_NAMES_RK = (("A", "b", "c"),)
_NAMES_PRK = (("A", "b", "c"), (r"\hat A", r"\hat b", r"\hat c"))


def _intro(T, title):
    """The derivation's first steps: the tableau and the arithmetic."""
    dom = (T._arith[0] if isinstance(T, PartitionedTableau) else T._arith).dom
    d = Derivation(tex_text(title))
    if isinstance(T, PartitionedTableau):
        d = d.add(r"The partitioned pair: the first tableau $(A, b, c)$ integrates $q$, the second "
                  r"$(\hat A, \hat b, \hat c)$ integrates $p$.", _pair_tex(T))
    else:
        d = d.add("The tableau:", _array_tex(T.A, T.b, T.c) if T.s <= 8 else r"\text{(" + str(T.s) + r" stages)}")
    if T.provenance:
        d = d.add("Provenance: " + tex_text(T.provenance) + ".")
    return d.add("Arithmetic: " + tex_text(dom.describe()) + "."), dom


def _pair_tex(T):
    return (_array_tex(T.q.A, T.q.b, T.q.c) + r"\qquad " + _array_tex(T.p.A, T.p.b, T.p.c))


#: rows per typeset table (a table does not break across pages)
_ROWS_PER_TABLE = 36


def _tree_table_steps(d, rows, dom, names, heading):
    """Add tables of (tree, |t|, gamma, sigma, Phi, residual) rows to a derivation."""
    head = (r"\begin{tabular}{llrrll} $t$ & $|t|$ & $\gamma(t)$ & $\sigma(t)$ & $\Phi(t)$ & "
            r"$\Phi(t) - 1/\gamma(t)$ \\ \hline ")
    for k in range(0, len(rows), _ROWS_PER_TABLE):
        body = []
        for t, r in rows[k:k + _ROWS_PER_TABLE]:
            body.append(f"${t._latex()}$ & {t.order} & {t.gamma} & {t.sigma} & "
                        f"${t.weight_latex(names)}$ & ${dom.tex(r) if r else '0'}$ \\\\")
        text = (heading if k == 0 else "(continued)") + "\n\n" + head + "\n".join(body) + r"\end{tabular}"
        d = d.add(text)
    return d


def _tree_items(T, trees):
    W = T._weights
    dom = (T._arith[0] if isinstance(T, PartitionedTableau) else T._arith).dom
    return [(t, W.phi(t) - dom.const(1, t.gamma)) for t in trees]


def _theorem_text(colours):
    if colours == 1:
        return (r"Butcher's theorem: a Runge-Kutta method has order $\ge p$ iff "
                r"$\Phi(t) = 1/\gamma(t)$ for every rooted tree $t$ with $|t| \le p$, where "
                r"$\Phi(t)$ is the elementary weight (products of vectors componentwise, "
                r"$e$ the vector of ones, $c = Ae$).")
    return (r"A partitioned Runge-Kutta method has order $\ge p$ iff $\Phi(t) = 1/\gamma(t)$ for "
            r"every bicoloured tree (P-tree) $t$ with $|t| \le p$ (Hairer, Lubich, Wanner, III.2): a "
            r"vertex $\bullet$ takes its coefficients from $(A, b)$ (the $q$ part), a vertex $\circ$ "
            r"from $(\hat A, \hat b)$ (the $p$ part).")


# ------------------------------------------------------------------ reduction


class _Undecided:
    """Zero tests for a reduction: records whether one could not be decided (symbolic
    entries) and remembers each entry's answer (the same entries are asked repeatedly)."""

    __slots__ = ("flag", "memo")

    def __init__(self):
        self.flag = False
        self.memo = {}

    def zero(self, dom, x):
        got = self.memo.get(id(x))
        if got is not None and got[0] is x:
            z = got[1]
        else:
            z = dom.is_zero(x)
            self.memo[id(x)] = (x, z)   # x kept alive, so its id is not reused
        if z is None:
            self.flag = True
        return z is True


def _sum(dom, xs):
    acc = dom.zero
    for x in xs:
        acc = acc + x
    return acc


def _reduce_sorts(dom, sizes, mats, weights):
    """Reduce a method given as stage *sorts* (Dahlquist-Jeltsch, then Hundsdorfer-Spijker).

    ``sizes[k]``: the number of stages of sort k.  ``mats``: ``(row_sort, col_sort, M)``,
    ``M[x][y]`` the coefficient with which stage ``x`` uses stage ``y``.  ``weights``:
    ``(sort, w)``, the output's coefficients.  (A Runge-Kutta method has one sort, one
    matrix and one weight vector; a partitioned pair on a general Hamiltonian one sort and
    two of each; on a separable one two sorts, the Q and the P stages.)

    Repeats, until nothing changes: drop the stages the output does not need (zero weight,
    used by no needed stage), then merge the stages that coincide for every problem -- the
    coarsest partition whose classes have equal row sums over every class (partition
    refinement from one class per sort).  Returns ``(groups, removed, mats, weights, undecided)``:
    ``groups[k]`` the original stages (tuples) behind each remaining stage of sort k,
    ``removed[k]`` the original stages dropped.
    """
    und = _Undecided()
    groups = [[(i,) for i in range(n)] for n in sizes]
    removed = [[] for _ in sizes]
    while True:
        # Dahlquist-Jeltsch: the needed stages, from the weights back through the matrices
        needed = [set() for _ in sizes]
        for k, w in weights:
            needed[k].update(i for i, x in enumerate(w) if not und.zero(dom, x))
        grew = True
        while grew:
            grew = False
            for rk, ck, M in mats:
                for x in list(needed[rk]):
                    for y, a in enumerate(M[x]):
                        if y not in needed[ck] and not und.zero(dom, a):
                            needed[ck].add(y)
                            grew = True
        keep = [sorted(nd) for nd in needed]
        dropped = any(len(kp) < len(g) for kp, g in zip(keep, groups))
        if dropped:
            for k, kp in enumerate(keep):
                gone = set(range(len(groups[k]))) - set(kp)
                removed[k].extend(i for j in gone for i in groups[k][j])
            mats = [(rk, ck, [[M[x][y] for y in keep[ck]] for x in keep[rk]]) for rk, ck, M in mats]
            weights = [(k, [w[i] for i in keep[k]]) for k, w in weights]
            groups = [[g[i] for i in kp] for g, kp in zip(groups, keep)]
        # Hundsdorfer-Spijker: the coarsest partitions with equal sums over classes
        parts = [[list(range(len(g)))] if g else [] for g in groups]
        split = True
        while split:
            split = False
            for k in range(len(sizes)):
                rows = [(ck, M) for rk, ck, M in mats if rk == k]
                new = []
                for cls in parts[k]:
                    found = []       # (signature of the representative, members)
                    for x in cls:
                        sig = [_sum(dom, (M[x][y] for y in L)) for ck, M in rows for L in parts[ck]]
                        for rep_sig, members in found:
                            if all(und.zero(dom, a - b) for a, b in zip(sig, rep_sig)):
                                members.append(x)
                                break
                        else:
                            found.append((sig, [x]))
                    new.extend(members for _sig, members in found)
                if len(new) != len(parts[k]):
                    split = True
                parts[k] = new
        merged = any(len(c) > 1 for pk in parts for c in pk)
        if merged:
            for k in range(len(sizes)):
                parts[k].sort(key=min)
            mats = [(rk, ck, [[_sum(dom, (M[cls[0]][y] for y in L)) for L in parts[ck]] for cls in parts[rk]])
                    for rk, ck, M in mats]
            weights = [(k, [_sum(dom, (w[i] for i in cls)) for cls in parts[k]]) for k, w in weights]
            groups = [[tuple(sorted(i for j in cls for i in g[j])) for cls in pk] for g, pk in zip(groups, parts)]
        if not dropped and not merged:
            return groups, [tuple(sorted(r)) for r in removed], mats, weights, und.flag


@dataclass(frozen=True)
class Reduction:
    """How a tableau (or pair) reduces to an equivalent irreducible method.

    Two stages whose values coincide for every autonomous problem are merged, their
    weights added (Hundsdorfer-Spijker S-/H-reducibility: the rows of A agree after
    summing over classes of coinciding stages; for a pair, in both parts); stages the
    output does not need are removed (Dahlquist-Jeltsch: zero weight, used by no needed
    stage).  The reduced method defines the same step map on autonomous problems (the
    nodes ``c`` play no role, as in the tree conditions), so every property of the method
    for such problems can be decided on it; the classical algebraic conditions
    (symplecticity, symmetry up to a permutation of the stages) are necessary only for
    irreducible methods.

    Attributes
    ----------
    original : ButcherTableau or PartitionedTableau
    tableau : ButcherTableau or PartitionedTableau
        The reduced method (``original`` itself when nothing reduces); its nodes are the
        row sums of its A.
    classes : tuple of tuple of int
        For each stage of ``tableau``, the stages of ``original`` (0-based) merged into it.
    removed : tuple of int
        The stages of ``original`` that the output does not need (0-based, sorted).
    decided : bool
        False when some comparison of entries could not be decided (entries that are not
        recognizably algebraic): the method might reduce further.
    numeric : bool
        Entries are inexact: "coincide" and "zero" mean up to their precision.
    """

    original: Any
    tableau: Any
    classes: tuple
    removed: tuple
    decided: bool
    numeric: bool

    @property
    def reduced(self) -> bool:
        """True when some stage was merged or removed."""
        return bool(self.removed) or any(len(c) > 1 for c in self.classes)

    def describe(self) -> str:
        """What was merged and removed, in words (stages numbered from 1)."""
        how = " up to the precision of the entries" if self.numeric else ""
        if not self.reduced:
            out = (f"the method is irreducible{how}: no two stages coincide for every autonomous problem and "
                   f"the output needs every stage")
            return out + ("" if self.decided else " (as far as the entries could be compared)")
        parts = []
        for cls in self.classes:
            if len(cls) > 1:
                names = _stage_list(cls)
                parts.append(f"stages {names} coincide for every autonomous problem{how} (equal row sums of A "
                             f"over the classes of coinciding stages) and are merged, their weights added")
        if self.removed:
            one = len(self.removed) == 1
            parts.append(f"stage{'' if one else 's'} {_stage_list(self.removed)} {'is' if one else 'are'} not "
                         f"needed by the output (zero weight{how}, used by no needed stage) and "
                         f"{'is' if one else 'are'} removed")
        n = len(self.classes)
        out = "; ".join(parts) + f"; the reduced method has {n} stage{'s' if n != 1 else ''}"
        if n == 0:
            out += " (its step is the identity map)"
        return out + ("" if self.decided else " (some entries could not be compared: it may reduce further)")


def _stage_list(idx):
    names = [str(i + 1) for i in idx]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def reduce_tableau(T: ButcherTableau | PartitionedTableau) -> Reduction:
    """The irreducible method equivalent to a tableau or pair (see :class:`Reduction`).

    Decided in the tableau's arithmetic: exactly for rational and algebraic entries, up to
    the entries' precision for inexact ones, by :func:`geomcheck.zero.decide_zero` for other
    constants (``decided`` is False when that could not decide).

    Examples
    --------
    >>> from sympy import Rational as R
    >>> red = reduce_tableau(ButcherTableau([[R(1, 4), R(1, 4)], [R(1, 4), R(1, 4)]], [R(1, 4), R(3, 4)]))
    >>> red.tableau.A, red.tableau.b, red.classes                # the implicit midpoint rule
    (((1/2,),), (1,), ((0, 1),))
    >>> red.describe()
    'stages 1 and 2 coincide for every autonomous problem (equal row sums of A over the classes of coinciding stages) and are merged, their weights added; the reduced method has 1 stage'
    >>> reduce_tableau(ButcherTableau([[0, 0], [1, 0]], [1, 0])).removed       # explicit Euler, padded
    (1,)
    """
    if not isinstance(T, (ButcherTableau, PartitionedTableau)):
        raise InvalidArgumentError(f"reduce_tableau needs a ButcherTableau or PartitionedTableau, not "
                                   f"{type(T).__name__}")
    return T._reduction


def _make_reduction(T):
    ars, colours = _parts(T, "reduce_tableau")
    dom = ars[0].dom
    s = ars[0].s
    mats = [(0, 0, ar.A) for ar in ars]
    weights = [(0, ar.b) for ar in ars]
    groups, removed, mats, weights, undecided = _reduce_sorts(dom, [s], mats, weights)
    classes = tuple(groups[0])
    red = Reduction(T, T, classes, removed[0], not undecided, dom.kind == "numeric")
    if not red.reduced:
        return red
    new_ars = [_arith_of(dom, M, w) for (_r, _c, M), (_k, w) in zip(mats, weights)]
    prov = f"reduced from {T.label}: {red.describe()}"
    if colours == 1:
        R = ButcherTableau._from_arith(new_ars[0], name=T.label, provenance=prov, exact=T.exact)
    else:
        R = PartitionedTableau._from_ariths(new_ars, name=T.label, provenance=prov, exact=T.exact)
    return Reduction(T, R, classes, removed[0], not undecided, dom.kind == "numeric")


def _arith_of(dom, A, b):
    return _Arith(dom, [list(row) for row in A], list(b), [_sum(dom, row) for row in A],
                  [_sum(dom, row) for row in A])


def _on_reduced(T, red, inner, title):
    """A certificate about ``T`` from one about its reduced method ``red.tableau``."""
    d, _ = _intro(T, title)
    d = d.add("Reduction: " + tex_text(red.describe()) + ". The reduced method defines the same step map, "
              "so the claim is decided on it (stage indices below refer to it):",
              _array_tex(red.tableau.A, red.tableau.b, red.tableau.c) if isinstance(red.tableau, ButcherTableau)
              else _pair_tex(red.tableau))
    for step in inner.derivation.steps[3:]:   # after its intro: tableau, provenance, arithmetic
        d = d.add(step.text, step.math)
    d = d.concluding(inner.derivation.conclusion)
    return dataclasses.replace(inner, method=f"decided on the reduced method ({red.describe()}): {inner.method}",
                               derivation=d)


def _irreducible_note(red, cert):
    """Say, on a certificate about an unreduced tableau, that it is irreducible (or could not be reduced)."""
    d = cert.derivation
    steps = list(d.steps)
    steps.insert(min(2, len(steps)), Step("Reduction: " + tex_text(red.describe()) + "."))
    d = Derivation(d.title, tuple(steps), d.conclusion)
    if cert.holds is False and not red.decided:
        return dataclasses.replace(
            cert, holds=None, stage="unknown", counterexample=None,
            method=(f"the condition fails on the tableau as given, but that is conclusive only for an irreducible "
                    f"method and some entries could not be compared to reduce it ({cert.method})"),
            derivation=d.concluding("Undecided: the condition is necessary only for irreducible methods, and "
                                    "irreducibility could not be decided."))
    if cert.holds is False:
        return dataclasses.replace(cert, derivation=d, method=f"{cert.method}; the method is irreducible, so the "
                                                              f"condition is also necessary")
    return dataclasses.replace(cert, derivation=d)


def order_conditions(T, p: int) -> Certificate:
    """Certificate of the tree order conditions ``Phi(t) = 1/gamma(t)`` for all ``|t| <= p``.

    For a :class:`ButcherTableau` the rooted trees, for a :class:`PartitionedTableau`
    the bicoloured P-trees.  ``residual`` is ``{tree: Phi(t) - 1/gamma(t)}`` (sympy
    numbers); when the claim fails, ``counterexample`` names the first failing tree.

    >>> from sympy import Rational as R
    >>> heun = ButcherTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)], name="Heun")
    >>> c = order_conditions(heun, 3)
    >>> c.holds, str(c.counterexample["tree"]), c.counterexample["residual"]
    (False, '[τ²]', 1/6)
    >>> {str(t): r for t, r in c.residual.items()}
    {'τ': 0, '[τ]': 0, '[τ²]': 1/6, '[[τ]]': -1/6}
    """
    ars, colours = _parts(T, "order_conditions")
    _check_int("p", p, 1, MAX_ORDER[colours])
    trees = [t for n in range(1, p + 1) for t in trees_of_order(n, colours)]
    items = _tree_items(T, trees)
    dom = ars[0].dom
    holds, stage, method, key = dom.decide(items, _tree_label)
    residual = {t: dom.to_sympy(r) for t, r in items}
    names = _NAMES_RK if colours == 1 else _NAMES_PRK
    kind = "rooted trees" if colours == 1 else "P-trees"
    d, _ = _intro(T, f"Order conditions of {T.label} up to order {p}")
    d = d.add(_theorem_text(colours))
    d = _tree_table_steps(d, items, dom, names, f"The {_plural(len(trees), kind)} with at most {p} vertices:")
    cx = None
    if holds is False:
        cx = {"tree": key, "residual": residual[key]}
        d = d.concluding(f"The condition of the tree ${key._latex()}$ fails: "
                         f"$\\Phi(t) - 1/\\gamma(t) = {dom.tex(dict(items)[key])} \\neq 0$.")
    elif holds:
        d = d.concluding(f"All {len(trees)} conditions hold, so the order is at least {p}.")
    return Certificate(
        claim=_up_to(dom, f"{T.label} satisfies the order conditions of all {len(trees)} {kind} with at most {p} "
                          f"vertices (order >= {p})"),
        holds=holds, method=method, stage=stage, residual=residual, counterexample=cx, derivation=d)


def order(T, max_order: int | None = None) -> OrderCertificate:
    """The order of a tableau (or pair): the largest p <= ``max_order`` such that every
    tree condition up to p holds.

    Parameters
    ----------
    T : ButcherTableau or PartitionedTableau
    max_order : int, optional
        Highest order examined (default 10 for RK, 6 for partitioned pairs).  When all
        conditions up to it hold the claim is "order >= max_order".

    Returns
    -------
    OrderCertificate
        ``order`` the certified order; ``failing_tree`` and ``residual`` the first tree of
        order ``order + 1`` whose condition fails (None when none was found);
        ``holds`` None only when a condition could not be decided.

    Notes
    -----
    The tree conditions are necessary and sufficient for every method, reducible or not,
    and they take the same values on the reduced method (:func:`reduce_tableau`), on which
    they are computed when the reduction is exact.

    Examples
    --------
    >>> from sympy import Rational as R
    >>> rk4 = ButcherTableau([[0, 0, 0, 0], [R(1, 2), 0, 0, 0], [0, R(1, 2), 0, 0], [0, 0, 1, 0]],
    ...                      [R(1, 6), R(1, 3), R(1, 3), R(1, 6)], name="RK4")
    >>> c = order(rk4)
    >>> c.order, c.holds, str(c.failing_tree), c.residual
    (4, True, '[τ⁴]', 1/120)
    >>> c.claim
    'the order of RK4 is 4'
    """
    ars, colours = _parts(T, "order")
    if max_order is None:
        max_order = 10 if colours == 1 else 6
    _check_int("max_order", max_order, 1, MAX_ORDER[colours])
    if ars[0].dom.kind == "exact":   # elsewhere the reduction costs zero tests and changes nothing
        red = reduce_tableau(T)
        if red.reduced:
            return _on_reduced(T, red, _order_core(red.tableau, max_order), f"Order of {T.label}")
    return _order_core(T, max_order)


def _order_core(T, max_order):
    ars, colours = _parts(T, "order")
    if max_order is None:
        max_order = 10 if colours == 1 else 6
    _check_int("max_order", max_order, 1, MAX_ORDER[colours])
    dom = ars[0].dom
    names = _NAMES_RK if colours == 1 else _NAMES_PRK
    kind = "rooted trees" if colours == 1 else "P-trees"
    d, _ = _intro(T, f"Order of {T.label}")
    d = d.add(_theorem_text(colours))
    residuals = {}
    methods = []
    stages = set()
    for n in range(1, max_order + 1):
        items = _tree_items(T, trees_of_order(n, colours))
        holds, stage, method, key = dom.decide(items, _tree_label)
        stages.add(stage)
        methods.append(method)
        for t, r in items:
            residuals[t] = dom.to_sympy(r)
        d = _tree_table_steps(d, items, dom, names, f"The {_plural(len(items), kind)} with {n} vertices:")
        if holds is True:
            continue
        p = n - 1
        if holds is False:
            d = d.concluding(
                f"Every condition up to order {p} holds and the condition of ${key._latex()}$ (order {n}) "
                f"fails, with residual ${dom.tex(dict(items)[key])}$: the order is exactly {p}.")
            how = dom.describe() if dom.kind != "symbolic" else method
            return OrderCertificate(
                claim=_up_to(dom, f"the order of {T.label} is {p}"), holds=True,
                method=f"{how}: every condition up to order {p} holds; the condition of the tree "
                       f"{key.ascii()} (order {n}) has the nonzero residual {dom.short(dict(items)[key])}",
                stage=_weakest(stages), residual=residuals[key], derivation=d, order=p, failing_tree=key,
                residuals=residuals)
        d = d.concluding(f"The conditions of order {n} could not be decided ({tex_text(method)}).")
        return OrderCertificate(
            claim=f"the order of {T.label} is {p}", holds=None,
            method=f"conditions up to order {p} hold; order {n} undecided: {method}", stage="unknown",
            residual=None, derivation=d, order=p, failing_tree=None, residuals=residuals)
    d = d.concluding(f"All conditions up to order {max_order} hold: the order is at least {max_order} "
                     f"(higher orders were not examined).")
    how = methods[-1] if dom.kind == "symbolic" else dom.describe()
    return OrderCertificate(
        claim=_up_to(dom, f"the order of {T.label} is at least {max_order}"), holds=True,
        method=f"{how}: all {len(residuals)} conditions up to order {max_order} hold", stage=_weakest(stages),
        residual=None, derivation=d, order=max_order, failing_tree=None, residuals=residuals)


_STAGE_RANK = {"structural": 0, "exact": 1, "randomized": 2, "numeric": 2, "counterexample": 1, "unknown": 3}


def _weakest(stages):
    return max(stages, key=lambda st: _STAGE_RANK.get(st, 3)) if stages else "structural"


# ------------------------------------------------------------------ decisions on a set of items


class _Label:
    """A plain-text name of a condition in a counterexample (equal to its string; typeset as text)."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = str(text)

    def __eq__(self, other):
        return self.text == (other.text if isinstance(other, _Label) else other)

    def __hash__(self):
        return hash(self.text)

    def __str__(self):
        return self.text

    def __repr__(self):
        return repr(self.text)

    def _latex(self, printer=None):
        return r"\text{" + tex_text(self.text) + "}"


def _up_to(dom, claim):
    """The claim, qualified for inexact entries (their decisions hold up to the data's precision)."""
    if isinstance(dom, InexactDomain) and dom.precision.relative:
        return f"{claim}, up to the {dom.precision.label} precision of the entries"
    return claim


def _decide_items(dom, items, claim, d, residual, success, failure, label=str):
    """A Certificate from ``items`` [(key, value that must vanish)] in arithmetic ``dom``."""
    claim = _up_to(dom, claim)
    holds, stage, method, key = dom.decide(items, label)
    cx = None
    if holds is False:
        cx = {"entry": _Label(label(key)), "residual": dom.to_sympy(dict(items)[key])}
        d = d.concluding(failure(key, dict(items)[key]))
    elif holds:
        d = d.concluding(success)
    return Certificate(claim=claim, holds=holds, method=method, stage=stage, residual=residual,
                       counterexample=cx, derivation=d)


def _pow(dom, x, k):
    return dom.one if k == 0 else x ** k


def _dot(dom, u, v):
    acc = dom.zero
    for x, y in zip(u, v):
        if x and y:
            acc = acc + x * y
    return acc


def condition_B(T, p: int) -> Certificate:
    """Simplifying assumption B(p): ``sum_i b_i c_i^(k-1) = 1/k`` for ``k = 1..p``.

    (The quadrature formula (b, c) integrates polynomials of degree < p exactly.)

    >>> from sympy import Rational as R
    >>> mid = ButcherTableau([[R(1, 2)]], [1])
    >>> condition_B(mid, 2).holds, condition_B(mid, 3).holds
    (True, False)
    """
    ar = _only_rk(T, "condition_B")
    _check_int("p", p, 1)
    dom = ar.dom
    items = [(f"B k={k}", _dot(dom, ar.b, [_pow(dom, ci, k - 1) for ci in ar.c]) - dom.const(1, k))
             for k in range(1, p + 1)]
    d, _ = _intro(T, f"Simplifying assumption B({p}) for {T.label}")
    d = d.add(r"$B(p)$: $\sum_i b_i c_i^{k-1} = 1/k$ for $k = 1, \dots, " + str(p) + "$. Residuals:",
              r" \\ ".join(f"k = {k}: &\\quad {dom.tex(r)}" for k, (_, r) in enumerate(items, 1)))
    residual = {k: dom.to_sympy(r) for k, r in items}
    return _decide_items(dom, items, f"{T.label} satisfies B({p})", d, residual,
                         f"B({p}) holds.", lambda k, r: f"B({p}) fails at {k}.")


def condition_C(T, q: int) -> Certificate:
    """Simplifying assumption C(q): ``sum_j a_ij c_j^(k-1) = c_i^k / k`` for all i, ``k = 1..q``.

    >>> from sympy import Rational as R
    >>> mid = ButcherTableau([[R(1, 2)]], [1])
    >>> condition_C(mid, 1).holds, condition_C(mid, 2).holds
    (True, False)
    """
    ar = _only_rk(T, "condition_C")
    _check_int("q", q, 1)
    dom = ar.dom
    s = ar.s
    items = []
    for k in range(1, q + 1):
        ck = [_pow(dom, cj, k - 1) for cj in ar.c]
        for i in range(s):
            items.append((f"C k={k} i={i}", _dot(dom, ar.A[i], ck) - _pow(dom, ar.c[i], k) / k))
    d, _ = _intro(T, f"Simplifying assumption C({q}) for {T.label}")
    d = d.add(r"$C(q)$: $\sum_j a_{ij} c_j^{k-1} = c_i^k/k$ for all $i$ and $k = 1, \dots, " + str(q)
              + "$ (stage order conditions).")
    d = _residual_list_step(d, dom, items)
    residual = {k: dom.to_sympy(r) for k, r in items}
    return _decide_items(dom, items, f"{T.label} satisfies C({q})", d, residual,
                         f"C({q}) holds.", lambda k, r: f"C({q}) fails at {k}.")


def condition_D(T, r: int) -> Certificate:
    """Simplifying assumption D(r): ``sum_i b_i c_i^(k-1) a_ij = b_j (1 - c_j^k) / k`` for
    all j, ``k = 1..r``.

    >>> from sympy import Rational as R
    >>> mid = ButcherTableau([[R(1, 2)]], [1])
    >>> condition_D(mid, 1).holds, condition_D(mid, 2).holds
    (True, False)
    """
    ar = _only_rk(T, "condition_D")
    _check_int("r", r, 1)
    dom = ar.dom
    s = ar.s
    items = []
    for k in range(1, r + 1):
        w = [bi * _pow(dom, ci, k - 1) for bi, ci in zip(ar.b, ar.c)]
        for j in range(s):
            col = [ar.A[i][j] for i in range(s)]
            items.append((f"D k={k} j={j}", _dot(dom, w, col) - ar.b[j] * (dom.one - _pow(dom, ar.c[j], k)) / k))
    d, _ = _intro(T, f"Simplifying assumption D({r}) for {T.label}")
    d = d.add(r"$D(r)$: $\sum_i b_i c_i^{k-1} a_{ij} = b_j (1 - c_j^k)/k$ for all $j$ and $k = 1, \dots, "
              + str(r) + "$.")
    d = _residual_list_step(d, dom, items)
    residual = {k: dom.to_sympy(x) for k, x in items}
    return _decide_items(dom, items, f"{T.label} satisfies D({r})", d, residual,
                         f"D({r}) holds.", lambda k, x: f"D({r}) fails at {k}.")


def _residual_list_step(d, dom, items, limit=60):
    shown = items[:limit]
    math_ = r" \\ ".join(f"\\text{{{k}}}: &\\quad {dom.tex(x) if x else '0'}" for k, x in shown)
    more = f" (first {limit} of {len(items)})" if len(items) > limit else ""
    return d.add("Residuals" + more + ":", math_)


def stage_order(T) -> OrderCertificate:
    """The stage order: the largest q such that B(q) and C(q) hold.

    >>> from sympy import Rational as R
    >>> stage_order(ButcherTableau([[R(1, 2)]], [1])).order        # implicit midpoint
    1
    >>> stage_order(ButcherTableau([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)])).order  # trapezoid
    2
    """
    ar = _only_rk(T, "stage_order")
    dom = ar.dom
    q = 0
    d, _ = _intro(T, f"Stage order of {T.label}")
    d = d.add(r"The stage order is the largest $q$ such that $B(q)$ ($\sum_i b_i c_i^{k-1} = 1/k$) and "
              r"$C(q)$ ($\sum_j a_{ij} c_j^{k-1} = c_i^k/k$ for all $i$) hold for $k \le q$.")
    stages = set()
    for k in range(1, 2 * ar.s + 2):   # B(2s + 1) is impossible for s nodes
        items = [(f"B k={k}", _dot(dom, ar.b, [_pow(dom, ci, k - 1) for ci in ar.c]) - dom.const(1, k))]
        ck = [_pow(dom, cj, k - 1) for cj in ar.c]
        items += [(f"C k={k} i={i}", _dot(dom, ar.A[i], ck) - _pow(dom, ar.c[i], k) / k) for i in range(ar.s)]
        holds, stage, method, key = dom.decide(items)
        stages.add(stage)
        if holds is True:
            q = k
            d = d.add(f"$k = {k}$: all residuals vanish.")
            continue
        if holds is None:
            d = d.concluding(f"Undecided at k = {k}.")
            return OrderCertificate(claim=f"the stage order of {T.label} is {q}", holds=None, method=method,
                                    stage="unknown", derivation=d, order=q)
        r = dict(items)[key]
        d = d.concluding(f"At $k = {k}$ the residual {tex_text(key)} is ${dom.tex(r)} \\neq 0$: the stage "
                         f"order is {q}.")
        return OrderCertificate(claim=f"the stage order of {T.label} is {q}", holds=True, method=method,
                                stage=_weakest(stages), residual=dom.to_sympy(r), derivation=d, order=q)
    raise AssertionError("unreachable: B(2s+1) cannot hold")  # pragma: no cover


# ------------------------------------------------------------------ symplecticity


def is_symplectic(T, *, separable: bool = False) -> Certificate:
    """Whether the method is symplectic, decided on the reduced method.

    Runge-Kutta (Lasagni, Sanz-Serna, Suris 1988):
    ``M_ij = b_i a_ij + b_j a_ji - b_i b_j = 0`` for all i, j.  It implies that the method
    is symplectic; for irreducible methods it is also necessary.

    Partitioned pair, ``(A1, b1)`` on q and ``(A2, b2)`` on p (see
    :class:`PartitionedTableau`; Hairer-Lubich-Wanner, Thm VI.4.6):
    ``b1_i A2_ij + b2_j A1_ji - b1_i b2_j = 0`` for all i, j, and ``b1 = b2``; for
    irreducible pairs also necessary.  Both conditions are symmetric in the two parts when
    ``b1 = b2``.

    The conditions are therefore checked on the irreducible method of
    :func:`reduce_tableau` (merged coinciding stages, removed unneeded ones): a tableau such
    as ``A = [[1/4, 1/4], [1/4, 1/4]], b = [1/4, 3/4]``, which is the implicit midpoint rule,
    is symplectic although its own ``M`` is not zero.  If the reduction cannot be decided
    (entries that are not recognizably algebraic), a failing condition gives None.

    With ``separable=True`` (only ``H = T(p) + U(q)`` is claimed) the q and p stages are
    reduced separately (on such problems a Q stage and a P stage can coincide on their
    own) and the first condition, between P stages and Q stages, is checked; it is
    sufficient, and only "almost" necessary (Abia and Sanz-Serna, Math. Comp. 60 (1993)),
    so a failure is reported as False only with a counterexample: the step on
    ``H = p^2/2 + q^2/2`` at a rational step size, whose Jacobian determinant is not 1.
    Otherwise the answer is None.

    >>> from sympy import Rational as R
    >>> is_symplectic(ButcherTableau([[R(1, 2)]], [1])).holds           # implicit midpoint
    True
    >>> c = is_symplectic(ButcherTableau([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)]))
    >>> c.holds, c.counterexample
    (False, {'entry': 'M[0][0]', 'residual': -1/4})
    >>> c = is_symplectic(ButcherTableau([[R(1, 4), R(1, 4)], [R(1, 4), R(1, 4)]], [R(1, 4), R(3, 4)]))
    >>> c.holds, c.method.startswith("decided on the reduced method (stages 1 and 2 coincide")
    (True, True)
    """
    _ars, colours = _parts(T, "is_symplectic")
    if colours == 2 and separable:
        return _is_symplectic_separable(T)
    red = reduce_tableau(T)
    if red.reduced:
        return _on_reduced(T, red, _is_symplectic_core(red.tableau, False), f"Symplecticity of {T.label}")
    return _irreducible_note(red, _is_symplectic_core(T, False))


def _is_symplectic_core(T, separable):
    ars, colours = _parts(T, "is_symplectic")
    dom = ars[0].dom
    s = ars[0].s
    if colours == 1:
        ar = ars[0]
        A, b = ar.A, ar.b
        M = [[b[i] * A[i][j] + b[j] * A[j][i] - b[i] * b[j] for j in range(s)] for i in range(s)]
        items = [((i, j), M[i][j]) for i in range(s) for j in range(i, s)]
        cond = r"M_{ij} = b_i a_{ij} + b_j a_{ji} - b_i b_j = 0"
        claim = f"{T.label} is symplectic (b_i a_ij + b_j a_ji - b_i b_j = 0 for all i, j)"
    else:
        A1, b1, A2, b2 = ars[0].A, ars[0].b, ars[1].A, ars[1].b
        M = [[b1[i] * A2[i][j] + b2[j] * A1[j][i] - b1[i] * b2[j] for j in range(s)] for i in range(s)]
        items = [((i, j), M[i][j]) for i in range(s) for j in range(s)]
        cond = r"M_{ij} = b_i \hat a_{ij} + \hat b_j a_{ji} - b_i \hat b_j = 0"
        claim = f"{T.label} is symplectic (b1_i A2_ij + b2_j A1_ji = b1_i b2_j"
        if not separable:
            items += [(f"b1[{i}] - b2[{i}]", b1[i] - b2[i]) for i in range(s)]
            cond += r", \quad b_i = \hat b_i"
            claim += " and b1 = b2)"
        else:
            claim += "; separable Hamiltonians)"
    d, _ = _intro(T, f"Symplecticity of {T.label}")
    if colours == 1:
        d = d.add("A Runge-Kutta method whose coefficients satisfy the following condition for all "
                  "$i, j$ is symplectic (Lasagni; Sanz-Serna; Suris, 1988); for an irreducible method "
                  "the condition is also necessary:", cond)
    else:
        d = d.add("A partitioned Runge-Kutta method ($a$, $b$ for $q$; $\\hat a$, $\\hat b$ for $p$) "
                  "whose coefficients satisfy the following is symplectic (Hairer, Lubich, Wanner, "
                  "Thm VI.4.6" + ("; for separable $H = T(p) + U(q)$ the first condition suffices" if separable
                                  else "") + "):", cond)
    Ms = sympy.ImmutableMatrix([[dom.to_sympy(x) for x in row] for row in M])
    d = d.add("The matrix $M$:", sympy.latex(Ms))
    residual = Ms if colours == 1 or separable else {"M": Ms, "b1 - b2": [dom.to_sympy(x - y) for x, y in
                                                                          zip(ars[0].b, ars[1].b)]}
    def label(k):
        return f"M[{k[0]}][{k[1]}]" if isinstance(k, tuple) else k

    return _decide_items(dom, items, claim, d, residual, "Every entry vanishes: the method is symplectic.",
                         lambda k, r: (f"$M_{{{k[0] + 1},{k[1] + 1}}} = {dom.tex(r)} \\neq 0$" if isinstance(k, tuple)
                                       else f"{tex_text(k)} is ${dom.tex(r)} \\neq 0$")
                         + ": the symplecticity condition fails.", label)


def _is_symplectic_separable(T):
    """``is_symplectic(pair, separable=True)``: Q and P stages reduced separately (see there)."""
    aq, ap = T._arith
    dom = aq.dom
    s = T.s
    # sort 0: the Q stages, which use the P stages through A1; sort 1: the P stages (A2)
    # (an undecided comparison only leaves the pair less reduced: True stays sufficient, and
    # False needs a counterexample below)
    groups, removed, mats, weights, _undecided = _reduce_sorts(
        dom, [s, s], [(0, 1, aq.A), (1, 0, ap.A)], [(1, aq.b), (0, ap.b)])
    trivial = not any(removed) and all(len(g) == 1 for gs in groups for g in gs) \
        and len(groups[0]) == s and len(groups[1]) == s
    claim = f"{T.label} is symplectic for separable Hamiltonians H = T(p) + U(q)"
    if trivial:
        how = "the pair is irreducible for separable problems"
        cert = _is_symplectic_core(T, True)
        cert = dataclasses.replace(cert, method=f"{how}: {cert.method}")
    else:
        alpha, beta = mats[0][2], mats[1][2]
        B1, B2 = weights[0][1], weights[1][1]
        items = [((J, I), B1[J] * beta[J][I] + B2[I] * alpha[I][J] - B1[J] * B2[I])
                 for J in range(len(groups[1])) for I in range(len(groups[0]))]
        how = "reduced for separable problems: " + _separable_description(groups, removed, dom.kind == "numeric")
        d, _ = _intro(T, f"Symplecticity of {T.label} for separable Hamiltonians")
        d = d.add("On $H = T(p) + U(q)$ the stages $Q_i$ use only the $P_j$ (through $A$) and the $P_i$ only "
                  "the $Q_j$ (through $\\hat A$), so Q stages and P stages are reduced separately: "
                  + tex_text(how) + ". With $\\alpha$ ($\\beta$) the reduced $A$ ($\\hat A$) and $B$ ($\\hat B$) "
                  "the summed weights of the P (Q) classes, the method is symplectic if (Abia, Sanz-Serna 1993)",
                  r"B_J \beta_{JI} + \hat B_I \alpha_{IJ} - B_J \hat B_I = 0 \quad \text{for all P classes } J "
                  r"\text{ and Q classes } I")
        cert = _decide_items(dom, items, claim + " (reduced condition)", d, None,
                             "Every entry vanishes: the method is symplectic for separable Hamiltonians.",
                             lambda k, r: f"The entry for P class {k[0] + 1} and Q class {k[1] + 1} is "
                                          f"${dom.tex(r)} \\neq 0$.",
                             lambda k: f"M[P{k[0] + 1}][Q{k[1] + 1}]")
        cert = dataclasses.replace(cert, method=f"{how}: {cert.method}")
    if cert.holds is not False:
        return cert   # True: the condition is sufficient on any (partly) reduced form
    # the condition is only "almost" necessary here: False needs a counterexample
    cx = _oscillator_counterexample(T)
    if cx is not None:
        return dataclasses.replace(
            cert, stage="counterexample" if dom.kind != "numeric" else "numeric",
            counterexample={**(cert.counterexample or {}), **cx},
            method=(f"{cert.method}; and the step on H = p**2/2 + q**2/2 with h = {cx['h']} has Jacobian "
                    f"determinant {cx['det']} != 1, so the method is not symplectic ({how})"))
    return dataclasses.replace(
        cert, holds=None, stage="unknown", counterexample=None,
        method=(f"the separable symplecticity condition fails ({cert.method}), but for separable problems it is "
                f"only 'almost' necessary (Abia, Sanz-Serna 1993) and the harmonic oscillator gave no "
                f"counterexample"),
        derivation=cert.derivation.concluding("Undecided: the sufficient condition fails, and no counterexample "
                                              "was found."))


def _separable_description(groups, removed, numeric):
    how = " up to the precision of the entries" if numeric else ""
    out = []
    for name, gs, rm in (("Q", groups[0], removed[0]), ("P", groups[1], removed[1])):
        merged = [g for g in gs if len(g) > 1]
        if merged:
            out.append(f"{name} stages " + "; ".join(_stage_list(g) for g in merged) + f" coincide{how}")
        if rm:
            out.append(f"{name} stage{'s' if len(rm) > 1 else ''} {_stage_list(rm)} not needed")
        out.append(f"{len(gs)} {name} stage{'s remain' if len(gs) != 1 else ' remains'}")
    return ", ".join(out)


def _oscillator_counterexample(T):
    """``{"H", "h", "det"}`` when one step on ``H = p^2/2 + q^2/2`` (1 degree of freedom) at a
    rational step size has Jacobian determinant != 1 (exact arithmetic only), else None.

    The step is linear: ``Q = q0 + h A1 P``, ``P = p0 - h A2 Q``, ``q1 = q0 + h b1.P``,
    ``p1 = p0 - h b2.Q``; on one degree of freedom a linear map is symplectic iff its
    determinant is 1, and a determinant (a rational function of h) that differs from 1 at
    one h is not identically 1.
    """
    aq, ap = T._arith
    dom = aq.dom
    if dom.kind != "exact":
        return None
    s = T.s
    for hq in (Fraction(1, 3), Fraction(1, 7), Fraction(2, 5), Fraction(1, 11)):
        h = dom.const(hq.numerator, hq.denominator)
        aug = []
        for i in range(s):   # Q_i - h sum_j A1_ij P_j = q0
            aug.append([dom.one if j == i else dom.zero for j in range(s)]
                       + [-h * aq.A[i][j] for j in range(s)] + [dom.one, dom.zero])
        for i in range(s):   # P_i + h sum_j A2_ij Q_j = p0
            aug.append([h * ap.A[i][j] for j in range(s)]
                       + [dom.one if j == i else dom.zero for j in range(s)] + [dom.zero, dom.one])
        try:
            gauss_jordan(aug, 2 * s)
        except (StopIteration, ZeroDivisionError):
            continue   # the stage equations are singular at this h
        cols = []
        for k in (0, 1):
            Q = [aug[i][2 * s + k] for i in range(s)]
            P = [aug[s + i][2 * s + k] for i in range(s)]
            q0, p0 = (dom.one, dom.zero) if k == 0 else (dom.zero, dom.one)
            cols.append((q0 + h * _dot(dom, aq.b, P), p0 - h * _dot(dom, ap.b, Q)))
        det = cols[0][0] * cols[1][1] - cols[1][0] * cols[0][1]
        if dom.is_zero(det - dom.one) is False:
            return {"H": "p**2/2 + q**2/2", "h": sympy.Rational(hq.numerator, hq.denominator),
                    "det": dom.to_sympy(det)}
    return None


# ------------------------------------------------------------------ symmetry

#: a symmetry search visits at most this many partial stage permutations
SYMMETRY_SEARCH_LIMIT = 200_000


def is_symmetric(T) -> Certificate:
    """Whether the method equals its adjoint up to a renumbering of the stages.

    The adjoint of ``(A, b)`` is, up to renumbering, ``(e b^T - A, b)``, so the method is
    symmetric when there is a permutation ``sigma`` of the stages with

        a_{sigma(i) sigma(j)} + a_ij = b_j   and   b_{sigma(i)} = b_i     for all i, j

    (Hairer, Lubich, Wanner, Thm V.2.3, where ``sigma(i) = s + 1 - i``).  For a pair the
    same ``sigma`` must work for both parts.  The search only tries ``sigma`` with
    ``r_sigma(i) = sum(b) - r_i`` (r the row sums), which the condition implies.

    The condition is sufficient, and necessary for irreducible methods (two irreducible
    methods give the same step map for every problem only if they agree up to a
    renumbering of the stages, Butcher), so it is checked on the method reduced by
    :func:`reduce_tableau`; False then means the method is not symmetric.  If the
    reduction cannot be decided, a failure gives None.

    >>> from sympy import Rational as R
    >>> c = is_symmetric(ButcherTableau([[0, 0], [R(1, 2), R(1, 2)]], [R(1, 2), R(1, 2)]))
    >>> c.holds, c.residual["sigma"]
    (True, (1, 0))
    >>> is_symmetric(ButcherTableau([[1]], [1])).holds                  # implicit Euler
    False
    >>> is_symmetric(ButcherTableau([[R(1, 4), R(1, 4)], [R(1, 4), R(1, 4)]], [R(1, 4), R(3, 4)])).holds
    True
    """
    _parts(T, "is_symmetric")
    red = reduce_tableau(T)
    if red.reduced:
        return _on_reduced(T, red, _is_symmetric_core(red.tableau), f"Symmetry of {T.label}")
    return _irreducible_note(red, _is_symmetric_core(T))


def _is_symmetric_core(T):
    ars, colours = _parts(T, "is_symmetric")
    dom = ars[0].dom
    s = ars[0].s
    sums = []
    for ar in ars:
        acc = dom.zero
        for x in ar.b:
            acc = acc + x
        sums.append(acc)
    undecided = False

    def eq0(x):
        nonlocal undecided
        z = dom.is_zero(x)
        if z is None:
            undecided = True
            return True   # keep it possible
        return z

    cand = []
    for i in range(s):
        cand.append([k for k in range(s)
                     if all(eq0(ar.b[k] - ar.b[i]) and eq0(ar.r[k] + ar.r[i] - tot) for ar, tot in zip(ars, sums))])
    sigma = [None] * s
    used = [False] * s
    visited = 0
    found = None
    exhausted = False

    def ok(i, k):
        for j in range(i + 1):
            kj = k if j == i else sigma[j]
            for ar in ars:
                if not eq0(ar.A[k][kj] + ar.A[i][j] - ar.b[j]):
                    return False
                if not eq0(ar.A[kj][k] + ar.A[j][i] - ar.b[i]):
                    return False
        return True

    def search(i):
        nonlocal visited, found, exhausted
        if found is not None or exhausted:
            return
        if i == s:
            found = tuple(sigma)
            return
        for k in cand[i]:
            if used[k]:
                continue
            visited += 1
            if visited > SYMMETRY_SEARCH_LIMIT:
                exhausted = True
                return
            if ok(i, k):
                sigma[i], used[k] = k, True
                search(i + 1)
                if found is not None or exhausted:
                    return
                sigma[i], used[k] = None, False

    search(0)
    d, _ = _intro(T, f"Symmetry of {T.label}")
    d = d.add(r"The adjoint of $(A, b)$ is $(e b^T - A, b)$ up to a renumbering of the stages, so the method "
              r"is symmetric if for some permutation $\sigma$ of the stages (Hairer, Lubich, Wanner, V.2.3):",
              r"a_{\sigma(i)\sigma(j)} + a_{ij} = b_j, \qquad b_{\sigma(i)} = b_i \qquad \text{for all } i, j"
              + (r" \text{ (both parts)}" if colours == 2 else ""))
    how = dom.describe()
    if found is not None and not undecided:
        perm = ", ".join(f"{i + 1} \\mapsto {k + 1}" for i, k in enumerate(found))
        d = d.add(f"The permutation $\\sigma = ({perm})$ satisfies every condition (all residuals are 0).")
        d = d.concluding("The method equals its adjoint: it is symmetric.")
        return Certificate(claim=f"{T.label} is symmetric (equals its adjoint up to a stage permutation)",
                           holds=True, method=f"{how}: sigma = {tuple(k + 1 for k in found)} satisfies "
                                              f"a_sigma(i)sigma(j) + a_ij = b_j, b_sigma(i) = b_i",
                           stage=dom.kind if dom.kind != "symbolic" else "randomized",
                           residual={"sigma": found}, derivation=d)
    if exhausted or undecided:
        why = "the search limit was reached" if exhausted else "some entries could not be compared"
        d = d.concluding(f"Undecided: {why}.")
        return Certificate(claim=f"{T.label} is symmetric", holds=None, method=f"{how}: {why}",
                           stage="unknown", derivation=d)
    # no permutation: report the residual of the reversal permutation (the usual candidate)
    rev = list(range(s - 1, -1, -1))
    R = [[ars[0].A[rev[i]][rev[j]] + ars[0].A[i][j] - ars[0].b[j] for j in range(s)] for i in range(s)]
    Rs = sympy.ImmutableMatrix([[dom.to_sympy(x) for x in row] for row in R])
    d = d.add(f"No permutation satisfies the conditions (candidates per stage: "
              f"{', '.join(str(len(cc)) for cc in cand)}). For the reversal $\\sigma(i) = s + 1 - i$ "
              r"the residual $a_{\sigma(i)\sigma(j)} + a_{ij} - b_j$ is", sympy.latex(Rs))
    d = d.concluding("The method is not equal to its adjoint up to renumbering.")
    cx = None
    for i in range(s):
        for j in range(s):
            if cx is None and not dom.is_zero(R[i][j]):
                cx = {"entry": _Label(f"R[{i}][{j}]"), "residual": dom.to_sympy(R[i][j])}
    return Certificate(claim=f"{T.label} is symmetric (equals its adjoint up to a stage permutation)",
                       holds=False, method=f"{how}: no stage permutation satisfies "
                                           f"a_sigma(i)sigma(j) + a_ij = b_j, b_sigma(i) = b_i",
                       stage=dom.kind if dom.kind != "symbolic" else "randomized", residual=Rs,
                       counterexample=cx, derivation=d)


# ------------------------------------------------------------------ structure of A


def is_explicit(T) -> Certificate:
    """Whether A is strictly lower triangular (``a_ij = 0`` for ``j >= i``), as numbered.

    A statement about the tableau as written (the integrators evaluate explicit stages in
    this order), not about the method: ``A = [[1/2, -1/2], [1/2, -1/2]], b = [1/2, 1/2]`` is
    not explicit, yet :func:`reduce_tableau` turns it into explicit Euler.

    >>> from sympy import Rational as R
    >>> is_explicit(ButcherTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)])).holds
    True
    >>> is_explicit(ButcherTableau([[R(1, 2)]], [1])).holds
    False
    """
    ar = _only_rk(T, "is_explicit")
    items = [((i, j), ar.A[i][j]) for i in range(ar.s) for j in range(i, ar.s)]
    d, _ = _intro(T, f"Explicitness of {T.label}")
    d = d.add(r"Explicit: $a_{ij} = 0$ for all $j \ge i$.")
    return _decide_items(ar.dom, items, f"{T.label} is explicit as numbered (A strictly lower triangular)", d, None,
                         "A is strictly lower triangular: the method is explicit.",
                         lambda k, r: f"$a_{{{k[0] + 1},{k[1] + 1}}} = {ar.dom.tex(r)} \\neq 0$.", _entry_label)


def _entry_label(k):
    return f"A[{k[0]}][{k[1]}]"


def is_diagonally_implicit(T) -> Certificate:
    """Whether A is lower triangular with a nonzero diagonal entry (a DIRK method), as numbered.

    Like :func:`is_explicit`, a statement about the tableau as written.

    >>> from sympy import Rational as R
    >>> is_diagonally_implicit(ButcherTableau([[R(1, 2)]], [1])).holds
    True
    >>> is_diagonally_implicit(ButcherTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)])).holds
    False
    """
    ar = _only_rk(T, "is_diagonally_implicit")
    dom = ar.dom
    items = [((i, j), ar.A[i][j]) for i in range(ar.s) for j in range(i + 1, ar.s)]
    d, _ = _intro(T, f"Diagonal implicitness of {T.label}")
    d = d.add(r"Diagonally implicit: $a_{ij} = 0$ for $j > i$, and some $a_{ii} \neq 0$.")
    cert = _decide_items(dom, items, f"{T.label} is diagonally implicit as numbered", d, None,
                         "A is lower triangular.",
                         lambda k, r: f"$a_{{{k[0] + 1},{k[1] + 1}}} = {dom.tex(r)} \\neq 0$.", _entry_label)
    if cert.holds is not True:
        return cert
    diag = [dom.is_zero(ar.A[i][i]) for i in range(ar.s)]
    if any(z is False for z in diag):
        return cert
    holds = None if any(z is None for z in diag) else False
    return Certificate(claim=cert.claim, holds=holds,
                       method=f"{dom.describe()}: A is lower triangular but its diagonal is zero (explicit)",
                       stage=cert.stage if holds is False else "unknown",
                       derivation=d.concluding("The diagonal of A vanishes: the method is explicit."),
                       soundness=getattr(cert, "soundness", None))


# ------------------------------------------------------------------ stability function


@dataclass(frozen=True)
class StabilityFunction:
    """``R(z) = P(z)/Q(z)`` with ``P(z) = det(I - zA + z e b^T)`` and ``Q(z) = det(I - zA)``.

    ``numerator`` and ``denominator`` are sympy polynomials in ``z`` (expressions,
    ``Q(0) = P(0) = 1``), not reduced to lowest terms; ``expr`` is the quotient.
    """

    numerator: Any
    denominator: Any
    z: Any

    @property
    def expr(self):
        return self.numerator / self.denominator

    def __call__(self, value):
        return (self.numerator / self.denominator).subs(self.z, value)

    def _latex(self, printer=None):
        return r"\frac{" + sympy.latex(self.numerator) + "}{" + sympy.latex(self.denominator) + "}"

    def _repr_latex_(self):
        return "$" + self._latex() + "$"


def stability_function(T: ButcherTableau, z: sympy.Symbol | None = None) -> StabilityFunction:
    """The stability function ``R(z) = det(I - zA + z e b^T) / det(I - zA)``, exactly.

    Both determinants are ``sum_k c_k z^k`` with ``c_k`` the coefficients of the
    characteristic polynomial of ``A`` (resp. ``A - e b^T``), computed by the
    Faddeev-LeVerrier recurrence in the tableau's exact arithmetic.

    >>> from sympy import Rational as R
    >>> st = stability_function(ButcherTableau([[R(1, 2)]], [1]))       # implicit midpoint
    >>> st.numerator, st.denominator
    (z/2 + 1, 1 - z/2)
    """
    ar = _only_rk(T, "stability_function")
    dom = ar.dom
    z = sympy.Symbol("z") if z is None else z
    s = ar.s
    Amb = [[ar.A[i][j] - ar.b[j] for j in range(s)] for i in range(s)]

    def det_poly(M):
        coeffs = characteristic_coefficients(dom, M)   # det(I - zM) = sum_k coeffs[k] z^k
        return sympy.Add(*[dom.to_sympy(c) * z ** k for k, c in enumerate(coeffs)])

    return StabilityFunction(det_poly(Amb), det_poly(ar.A), z)

