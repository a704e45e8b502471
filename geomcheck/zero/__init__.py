"""Deciding whether an expression is identically zero on a domain, without hanging or lying.

Every proof in geomcheck ends in a question ``expr == 0?``.  :func:`decide_zero` and
:func:`decide_all_zero` answer True (zero on the domain), False (a genuine counterexample:
a point of the domain where the value is not zero) or None (undecided, with the reason),
in stages, cheapest first, all inside one time budget (and, with ``work=`` or
:func:`work_budget`, a budget in machine-independent work units).  Every answer carries its
``soundness``: what it rests on, as data (stage, kind of evidence, domain, points,
digits, jet model, error bound).

The domain
----------
Symbols range over a :class:`~geomcheck.domain.Domain` (``domain=`` or a chart's
domain): open intervals given explicitly, or those of their sympy assumptions
(``positive``: (0, oo); ``integer``: the integers; ``imaginary``, ``complex``), and the
whole real line for a plain symbol.  Points are drawn inside it, verdicts are about it.

The stages
----------
1. **structural** -- the expression is a number.
2. **exact** -- undefined functions and their derivatives are rewritten as *jets* (see
   below) and the expression is brought to a sparse rational-function normal form with
   integer coefficients in its atoms.  A zero numerator proves zero.
3. **modular** (:mod:`~geomcheck.zero.modular`) -- an expression built from rational
   numbers, symbols, jets, sums, products, integer powers and square roots of rationals
   is evaluated *exactly* modulo a random 61-bit prime at random rational points of the
   domain.  A nonzero residue proves the value at that point nonzero, however small
   (``x / 10**200``).  Zero residues at ``k`` points mean zero up to a probability
   ``(D/s)**k`` below ``2**-60`` (Schwartz-Zippel: ``D`` a bound on the degree, ``s >=
   2**40`` values per coordinate; a fresh prime per point).  This is a *probabilistic
   proof*: no rounding, no threshold.
4. **randomized** (:mod:`~geomcheck.zero.numeric`) -- anything else is evaluated in mpmath
   at random points of the domain, with a bound on the rounding error of every node.
   It is used only for expressions that are *one analytic function on the domain*:
   every branch point and non-analytic piece (``sqrt``, ``log``, ``asin``, ``atan``
   through a pole, ``Abs``, ``Max``, ``Piecewise``, ``floor`` ...) is shown by interval
   arithmetic over the whole domain not to switch there, or is a square root whose
   sign cannot matter (:mod:`~geomcheck.zero.analyticity`).  A point counts as zero
   when every value is within its error bound of 0 at two precisions, the bound falling
   with the digits, and nothing genuine was rounded away: a sum that absorbed a resolved
   term (``1 + exp(-400)``) or holds one smaller than the rounding error of its other
   terms (``sin(x)**2 + cos(x)**2 - 1 + exp(-231)``), a rational whose numerator is longer
   than the precision (``-1 + 10**-100`` as one number), a saturated function
   (``tanh(1300)``) or an argument too rough for its function (``sin(10**150 x)`` at 50
   digits) raises the digits, up to 8 times, or makes the answer None.  There is no absolute floor: ``exp(-400) * x`` is a
   resolved nonzero value at any precision.  "Zero by randomized evaluation" therefore
   means: analytic on the domain, and zero to within rounding at every sampled point
   -- a nonzero analytic function vanishes only on a thin set, so this is numerical
   evidence of an identity on the whole domain (not a proof; the stage says so).
5. **pieces** (:mod:`~geomcheck.zero.pieces`) -- an expression that may switch branch
   inside the domain is first explored at points spread over many scales (a confirmed
   nonzero value is a counterexample); if none is found, ``Abs``, ``sign``,
   ``Heaviside``, ``Max``, ``Min`` and ``Piecewise`` are split at their switch functions
   and each analytic piece is decided on the whole domain.  Zero on every piece is zero
   on the domain except on the null set where the pieces meet (the method says so).
   Anything else (``log`` or ``asin`` across their cuts, ``floor``) that vanishes at
   every explored point is None: the pieces not visited could be nonzero.

A counterexample is re-evaluated at twice the digits at the same point, with the same jet
values, and reported with the point (symbol values, and the jet values it used).

The jet model
-------------
An undefined function ``V`` of k arguments, applied anywhere in an expression, enters
only through its derivatives at finitely many points.  :func:`canonical_jets` rewrites
``V(a1, ..., ak)``, every ``Derivative`` of it and sympy's chain-rule output
``Subs(Derivative(V(_xi_1, q2), _xi_1), _xi_1, q1 + h*p1)`` as an application
``V_alpha(a1, ..., ak)`` of a *jet function* identified by the name ``"V"`` and the
multi-index ``alpha`` of derivative counts per argument slot.  Mixed partials taken in
different orders become the same object, and sympy's chain rule applied to a jet gives
jets again.

At a point, every jet gets an independent random value, keyed by its name, multi-index
and *argument point*: exactly (equal rationals, or equal residues modulo the prime) in the
modular stage, within the arguments' error bounds in the randomized one (arguments 1e-30
apart are different points).  This is sound: for any finite set of distinct points and
any prescribed values of all derivatives at them there is a smooth function with exactly
those derivatives, so a nonzero value is a real counterexample, and a nonzero identity
between jets vanishes at random values only with tiny probability.

Implicit relations
------------------
With ``relations`` the expression is a function on the manifold ``{equations == 0}``
whose unknowns are implicit functions of the other symbols (:mod:`~geomcheck.zero.implicit`).
The exact stage is still valid (zero with the unknowns free is zero on the manifold).
The randomized stage draws the other symbols (``small`` ones such as the step size in
(1/100, 1/20)), solves the equations for the unknowns by Newton's method in mpmath, and
evaluates there.  Inside Newton the arguments of the jets move, so jet values must come
from one smooth function: each undefined function ``V`` occurring in the equations is
replaced by a random polynomial ``P_V`` of total degree ``r + 3`` (``r`` the highest
derivative order of ``V`` in the equations; lowered to keep at most 2000 coefficients),
and *its jets of the orders used by the equations* are the derivatives of ``P_V``
everywhere.  All other jets stay independent random values keyed by point.

A relation may also carry *derived linear unknowns* (``Relation(..., derived=...)``):
columns ``D`` fixed by ``J D + rhs = 0`` with ``J`` the Jacobian of the equations, e.g.
the derivatives ``du/dx`` of the unknowns by the implicit function theorem, computed at
each point by one LU factorization of ``J``.

Examples
--------
>>> import sympy
>>> from geomcheck.zero import decide_zero
>>> x = sympy.Symbol("x")
>>> decide_zero(sympy.sin(x)**2 + sympy.cos(x)**2 - 1).is_zero
True
>>> d = decide_zero(sympy.exp(x) - 1 - x)
>>> d.is_zero, d.stage
(False, 'counterexample')
>>> decide_zero(x / 10**200).is_zero          # tiny, but exactly nonzero
False
>>> decide_zero(sympy.Max(x - sympy.Rational(19, 10), 0)).is_zero   # nonzero for x > 19/10
False
"""

from ..calculus import canonical_jets
from ..jets import Jet, from_jets, jet_function
from .budget import work_budget
from .decision import Soundness, ZeroDecision, clear_caches, decide_all_zero, decide_jacobian_singular, decide_zero
from .relations import Relation

__all__ = [
    "ZeroDecision",
    "Soundness",
    "decide_zero",
    "decide_all_zero",
    "canonical_jets",
    "from_jets",
    "Relation",
    "decide_jacobian_singular",
    "Jet",
    "jet_function",
    "clear_caches",
    "work_budget",
]
