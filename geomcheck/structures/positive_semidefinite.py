r"""Whether a symmetric matrix of expressions (a dissipation matrix ``R``) is positive semidefinite.

Sylvester's criterion for semidefiniteness: ``R >= 0`` iff every principal minor (not only
the leading ones) is ``>= 0``.  A minor that is a number, or nonnegative by sympy's
assumptions, is decided exactly; a minor in symbols is evaluated at random rational points
allowed by the symbols' assumptions, and a negative value there is a counterexample.  What
neither decides is reported as undecided, never as a proof.

>>> import sympy
>>> c = sympy.Symbol("c", positive=True)
>>> certify_positive_semidefinite(sympy.Matrix([[0, 0], [0, c]])).holds
True
>>> certify_positive_semidefinite(sympy.Matrix([[1, 2], [2, 1]])).method
'the principal minor (0, 1) is -3 < 0'
"""

from __future__ import annotations

import itertools
import random

import sympy
from sympy.core.function import AppliedUndef

from ..certify.certificate import Certificate
from ..latex import Derivation, latex, summarize

__all__ = ["certify_positive_semidefinite"]


def _sample(s, rng) -> sympy.Rational:
    """A random rational value allowed by the symbol's assumptions (sign, integrality)."""
    v = sympy.Rational(rng.randint(-40, 40), 1 if s.is_integer else rng.randint(1, 10))
    if s.is_positive:
        v = abs(v) + 1
    elif s.is_nonnegative:
        v = abs(v)
    elif s.is_negative:
        v = -abs(v) - 1
    elif s.is_nonpositive:
        v = -abs(v)
    return v


def certify_positive_semidefinite(R: sympy.MatrixBase, *, samples: int = 20, seed: int = 0) -> Certificate:
    """Certify ``R`` positive semidefinite (every principal minor ``>= 0``).

    Parameters
    ----------
    R : sympy.MatrixBase
        A symmetric square matrix of expressions.
    samples : int
        Random rational points at which each minor of undecided sign is evaluated.
    seed : int
        The seed of those points (the certificate is reproducible).

    Returns
    -------
    Certificate
        True when every principal minor is a nonnegative number or nonnegative by sympy's
        assumptions; False with a point (exact rational evaluation) where one is negative
        (``{}`` for a negative number); None otherwise.
    """
    n = R.shape[0]
    claim = "R is positive semidefinite"
    D = Derivation("Dissipation matrix")
    D = D.add(r"$R$ is positive semidefinite iff all its principal minors are nonnegative:",
              r"R &= " + summarize(R))
    unknown = []
    rng = random.Random(seed)
    for size in range(1, n + 1):
        for idx in itertools.combinations(range(n), size):
            minor = sympy.expand(R.extract(list(idx), list(idx)).det(method="berkowitz"))
            label = "".join(str(i + 1) for i in idx)
            if minor.is_Number:
                if minor < 0:
                    D = D.concluding(r"The principal minor $\Delta_{" + label + "} = " + latex(minor)
                                     + "$ is negative.")
                    return Certificate(claim, False, f"the principal minor {idx} is {minor} < 0", stage="exact",
                                       residual=minor, counterexample={}, derivation=D)
                continue
            if minor.is_nonnegative:
                continue
            if minor.atoms(AppliedUndef) or minor.has(sympy.Derivative):
                unknown.append((idx, minor))
                continue
            syms = sorted(minor.free_symbols, key=str)
            for _ in range(samples):
                point = {s: _sample(s, rng) for s in syms}
                value = minor.xreplace(point)
                if value.is_Number and value < 0:
                    D = D.add(r"The principal minor on rows $" + label + "$ is",
                              r"\Delta_{" + label + "} &= " + summarize(minor))
                    D = D.concluding(r"It is negative at $" + ", ".join(
                        sympy.latex(s) + " = " + sympy.latex(v) for s, v in point.items()) + "$.")
                    return Certificate(claim, False, f"the principal minor {idx} is {value} < 0 at a rational point"
                                       " (exact evaluation)", stage="counterexample", residual=minor,
                                       counterexample=point, derivation=D)
            unknown.append((idx, minor))
    if not unknown:
        D = D.concluding("Every principal minor is nonnegative: $R$ is positive semidefinite.")
        return Certificate(claim, True, "every principal minor is a nonnegative number or nonnegative"
                           " by assumptions (exact)", stage="exact", residual=R, derivation=D)
    rows = [r"\Delta_{" + "".join(str(i + 1) for i in idx) + "} &= " + summarize(m) for idx, m in unknown[:8]]
    D = D.add("Principal minors whose sign is not decided:", r" \\ ".join(rows))
    return Certificate(claim, None, f"{len(unknown)} principal minor(s) of undecided sign (no negative value at"
                       f" {samples} rational points each)", stage="unknown", residual=R,
                       derivation=D.concluding("Undecided."))
