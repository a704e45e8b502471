"""Exterior calculus on a flat chart through galgebra (an independent oracle).

Convention (checked by ``tests/geomcheck/test_galgebra_oracle.py`` on hand examples):
on R^n with coordinates x^1..x^n and the orthonormal Euclidean metric, the basis
vector e_i is identified with dx^i and the blade e_{i1}^...^e_{ik} (i1 < ... < ik, which
is galgebra's own blade order) with dx^{i1}^...^dx^{ik}.  Then

* the left contraction ``X < A`` of a vector ``X = sum X^i e_i`` onto A is the
  interior product i_X A (orthonormal basis: e_i < (e_i ^ e_J) = e_J, the metric only
  pairs the vector d/dx^i with dx^i), and 0 on scalars;
* the outer product ``A ^ B`` of multivectors is the wedge product of forms (the outer
  product does not use the metric at all);
* ``grad ^ A`` with ``grad = sum_i e^i d/dx^i`` and reciprocal frame e^i = e_i (flat,
  orthonormal, Cartesian coordinates: no connection terms) is
  ``sum_i dx^i ^ d/dx^i A = dA``, the exterior derivative (differentiation acts on the
  coefficients only; the left factor is the basis covector, the standard convention
  d(f dx^J) = sum_i f_i dx^i ^ dx^J).

Forms are passed as plain dictionaries ``{increasing index tuple: sympy expr}`` (what
``geomcheck.Form.components`` holds) with the chart's coordinates, so nothing of
geomcheck is used to compute the oracle's answer.
"""

from __future__ import annotations

import builtins
from functools import lru_cache

import sympy as sp
from galgebra import metric
from galgebra import printer as _galgebra_printer
from galgebra.ga import Ga
from galgebra.mv import Mv


def _undo_galgebra_printing_patches() -> None:
    """Undo what importing galgebra does to the whole process.

    ``galgebra.printer`` replaces ``repr`` of *every* sympy object (undefined functions
    then print without their arguments, ``F`` for ``F(x, y)``, derivatives as ``D{x}F``)
    and ``builtins.print``.  In a test process that would change doctest outputs and
    hypothesis' falsifying-example reports of unrelated tests, so restore sympy's own
    printing; galgebra's computations do not depend on it.
    """
    from sympy.core._print_helpers import Printable

    if Printable.__dict__.get("__repr__") is not Printable.__dict__["__str__"]:
        Printable.__repr__ = Printable.__str__
    if "__ga_print_str__" in Printable.__dict__:
        del Printable.__ga_print_str__
    if builtins.print is getattr(_galgebra_printer, "_print", None):
        builtins.print = _galgebra_printer._old_print


_undo_galgebra_printing_patches()

MAX_DIM = 8

__all__ = [
    "MAX_DIM",
    "algebra",
    "to_multivector",
    "vector",
    "from_multivector",
    "d",
    "wedge",
    "interior",
    "lie",
    "canonical",
    "difference",
]


@lru_cache(maxsize=None)
def algebra(coords: tuple) -> Ga:
    """The geometric algebra of flat R^n with orthonormal basis and these coordinates."""
    n = len(coords)
    if not 1 <= n <= MAX_DIM:
        raise ValueError(f"galgebra oracle: dimension {n} of coordinates {coords} is not in 1..{MAX_DIM}")
    for c in coords:
        if not (isinstance(c, sp.Symbol) and c.is_commutative):
            raise ValueError(f"galgebra oracle: coordinate {c!r} is not a commutative sympy Symbol")
    basis = "e*" + "|".join(str(i) for i in range(1, n + 1))
    ga = Ga.build(basis, g=[1] * n, coords=tuple(coords))[0]
    return ga


def to_multivector(components: dict, coords) -> Mv:
    """The multivector sum_I c_I e_I of a dict {increasing index tuple: coefficient}."""
    ga = algebra(tuple(coords))
    blades = ga.indexes_to_blades_dict
    expr = sp.S.Zero
    for idx, c in components.items():
        idx = tuple(idx)
        if list(idx) != sorted(set(idx)):
            raise ValueError(f"galgebra oracle: index tuple {idx} is not strictly increasing")
        expr += sp.sympify(c) * blades[idx]
    return Mv(expr, ga=ga)


def from_multivector(A: Mv) -> dict:
    """The dict {increasing index tuple: coefficient} of a multivector (zeros dropped)."""
    index_of = A.Ga.indexes_to_blades_dict.inverse
    out: dict = {}
    for coef, blade in metric.linear_expand_terms(A.obj):
        if coef == 0:
            continue
        key = tuple(index_of[blade])
        if list(key) != sorted(set(key)):  # galgebra's blades are e_i ^ e_j ^ ... with i < j < ...
            raise AssertionError(f"galgebra oracle: blade {blade} has a non-increasing index {key}")
        out[key] = out.get(key, sp.S.Zero) + coef
    return {k: v for k, v in out.items() if v != 0}


def d(components: dict, coords) -> dict:
    """Exterior derivative through galgebra: grad ^ A."""
    ga = algebra(tuple(coords))
    return from_multivector(ga.grad ^ to_multivector(components, coords))


def wedge(a: dict, b: dict, coords) -> dict:
    """Wedge product through galgebra: the outer product A ^ B."""
    return from_multivector(to_multivector(a, coords) ^ to_multivector(b, coords))


def vector(components: dict, coords) -> Mv:
    """The vector sum_i X^i e_i of a vector field given as {coordinate index: X^i}."""
    ga = algebra(tuple(coords))
    blades = ga.indexes_to_blades_dict
    expr = sp.S.Zero
    for i, c in components.items():
        expr += sp.sympify(c) * blades[(int(i),)]
    return Mv(expr, ga=ga)


def interior(field: dict, components: dict, coords) -> dict:
    """Interior product i_X a through galgebra: the left contraction X < A.

    ``field`` is {coordinate index: component}."""
    if not components or not field:
        return {}
    return from_multivector(vector(field, coords) < to_multivector(components, coords))


def lie(field: dict, components: dict, coords) -> dict:
    """Lie derivative through galgebra, by Cartan's formula d i_X + i_X d."""
    a = d(interior(field, components, coords), coords)
    b = interior(field, d(components, coords), coords)
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out


def canonical(expr) -> sp.Expr:
    """A normal form good enough to compare coefficients: derivatives re-evaluated (sympy
    orders the variables of an evaluated Derivative canonically) and expanded."""
    return sp.expand(sp.sympify(expr).doit())


def difference(a: dict, b: dict) -> dict:
    """{index: canonical(a_I - b_I)} for the indices where that is not zero."""
    out = {}
    for k in set(a) | set(b):
        r = canonical(a.get(k, 0) - b.get(k, 0))
        if r != 0:
            out[k] = r
    return out
