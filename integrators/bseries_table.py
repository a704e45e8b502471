"""The catalog read as B-series: properties of each B-series scheme for every vector field at once.

A catalog scheme that is a Runge-Kutta or partitioned Runge-Kutta method, Stormer-Verlet or a
composition of these has a B-series (P-series); :mod:`geomcheck.bseries` decides its order,
symmetry, symplecticity, conjugate symplecticity and energy preservation exactly on trees, for
every ``f``.  These are independent of the map certificates of :meth:`Scheme.certify` (which
work on one generic system), so the two must agree: :attr:`BSeriesProperties.agrees` says
whether the trees confirm the scheme's declared order and its declared (or absent) symmetry
and symplecticity.

Every statement is up to a truncation order ``checked_to`` (trees with at most that many
vertices): the declared order plus two, at most :data:`MAX_TREE_ORDER` (rooted trees) or
:data:`MAX_PTREE_ORDER` (bicoloured trees, whose number grows faster).  A symmetric method has
even order, and a non-symmetric method of even order ``p`` agrees with its adjoint up to order
``p + 1``, so two orders beyond ``p`` are needed to see the difference.

>>> row = bseries_properties("rk4")
>>> row.order, row.symmetric, row.symplectic, row.agrees
(4, False, False, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import geomcheck.bseries as bs
from geomcheck.certify.tableau_arithmetic import ExactDomain
from geomcheck.errors import BSeriesError

from .catalog import list_schemes, scheme

__all__ = ["BSeriesProperties", "bseries_properties", "bseries_scheme_names", "MAX_TREE_ORDER",
           "MAX_PTREE_ORDER", "MAX_FIELD_DEGREE"]

#: the largest truncation order for B-series (rooted trees: 286 of order 9 ... 115 of order 8)
MAX_TREE_ORDER = 8
#: the largest truncation order for P-series (bicoloured trees: 916 of order 6)
MAX_PTREE_ORDER = 6
#: coefficients in a larger number field (the 27-stage yoshida-8: degree 105) are not expanded
MAX_FIELD_DEGREE = 15


@dataclass(frozen=True)
class BSeriesProperties:
    """One catalog scheme's properties for every vector field, from its B-series.

    Attributes
    ----------
    scheme : str
    kind : str
        ``"B-series"`` (rooted trees) or ``"P-series"`` (bicoloured trees).
    checked_to : int
        The truncation order: every statement involves the trees with at most this many vertices.
    order : int
        The largest ``p <= checked_to`` with every order condition up to ``p`` (exact).
    symmetric, symplectic : bool or None
        Up to ``checked_to``.
    conjugate_symplectic_to, energy_preserving_to : int or None
        The largest ``p <= checked_to`` up to which the method is conjugate to a symplectic
        method / preserves every Hamiltonian to ``O(h^(p+1))``; the second is None for P-series
        (not decided).
    declared_order : int
    declared : frozenset of str
        The scheme's declared (certified on a system) properties.
    agrees : bool or None
        The trees confirm the declared order, symmetry and symplecticity (None: undecided).
    disagreement : str
        What does not agree (empty when ``agrees``).
    skipped : str
        Why the series was not expanded (then every verdict is None and the row is not a check).
    """

    scheme: str
    kind: str
    checked_to: int
    order: int | None
    symmetric: bool | None
    symplectic: bool | None
    conjugate_symplectic_to: int | None
    energy_preserving_to: int | None
    declared_order: int
    declared: frozenset
    agrees: bool | None
    disagreement: str = ""
    skipped: str = ""


def bseries_scheme_names() -> list:
    """The catalog schemes that are B-series (or P-series) methods, in catalog order."""
    out = []
    for name in list_schemes():
        try:
            scheme(name).bseries(1)
        except BSeriesError:
            continue
        out.append(name)
    return out


def _largest(check, upto: int) -> int:
    """The largest ``p <= upto`` with ``check(p)`` True, checking upwards (0 when none)."""
    best = 0
    for p in range(1, upto + 1):
        if check(p).holds is not True:
            break
        best = p
    return best


def bseries_properties(name: str) -> BSeriesProperties:
    """The properties of the catalog scheme ``name`` for every ``f``, from its B-series (see the module).

    Raises
    ------
    BSeriesError
        The scheme is not a B-series method.
    """
    s = scheme(name)
    probe = s.bseries(1)
    kind = "B-series" if probe.colours == 1 else "P-series"
    cap = MAX_TREE_ORDER if probe.colours == 1 else MAX_PTREE_ORDER
    checked_to = min(s.order + 2, cap)
    declared = frozenset(s.properties)
    dom = probe.domain
    skipped = ""
    if not isinstance(dom, ExactDomain):
        skipped = ("its coefficients are not in a number field that the exact arithmetic builds (degree at most "
                   "64; the factors of the 27-stage triple jumps need degree 105): not expanded")
    elif dom.K.degree > MAX_FIELD_DEGREE:
        skipped = (f"coefficients in a number field of degree {dom.K.degree}: not expanded (the limit is "
                   f"{MAX_FIELD_DEGREE})")
    if skipped:
        return BSeriesProperties(name, kind, checked_to, None, None, None, None, None, s.order, declared, None,
                                 skipped=skipped)
    a = s.bseries(checked_to)
    order_cert = bs.order_of(a)
    symmetric = bs.is_symmetric(a, checked_to).holds
    symplectic = bs.is_symplectic(a, checked_to).holds
    conj = _largest(lambda p: bs.is_conjugate_symplectic(a, p), checked_to)
    energy = None
    if probe.colours == 1:      # energy preservation is decided for B-series only (see bs.is_energy_preserving)
        energy = _largest(lambda p: bs.is_energy_preserving(a, p), checked_to)
    problems, undecided = [], False
    order = order_cert.order
    if order < checked_to and order != s.order:
        problems.append(f"order {order} on trees, {s.order} declared")
    if order >= checked_to and s.order < checked_to:
        problems.append(f"every order condition up to {checked_to} holds, {s.order} declared")
    for prop, verdict in (("symmetric", symmetric), ("symplectic", symplectic)):
        if verdict is None:
            undecided = True
        elif verdict != (prop in declared):
            problems.append(f"{prop} {'holds' if verdict else 'fails'} on trees up to order {checked_to}, "
                            f"{'declared' if prop in declared else 'not declared'}")
    agrees = False if problems else (None if undecided else True)
    return BSeriesProperties(name, kind, checked_to, order, symmetric, symplectic, conj, energy, s.order, declared,
                             agrees, "; ".join(problems))
