r"""Contact Hamiltonian systems (Vermeeren, Bravetti & Seri 2019, slides 11-12 and 14).

Conventions (the public contract, docs/contract.md): Darboux coordinates
``(x_1..x_n, p_1..p_n, z)`` in this order, contact form ``eta = dz - sum_i p_i dx_i``; the
contact Hamiltonian vector field X of H has ``eta(X) = -H`` and ``L_X eta = -R(H) eta`` (R the
Reeb field; the slides' ``f_H = -R_eta(H)``), so ``x' = H_p, p' = -H_x - p H_z,
z' = p H_p - H`` and ``dH/dt = X(H) = -H R(H)`` (``= -H H_z`` in Darboux coordinates).

Time-dependent Hamiltonians ``H(x, p, z, t)`` are handled by *autonomization*
(:func:`autonomize`): t becomes a coordinate with a conjugate momentum E on the
extended contact manifold ``(x, t, p, E, z)`` with ``eta = dz - p dx - E dt`` and
Hamiltonian ``H + E``.  Its flow has ``t' = 1`` and projects to the time-dependent
equations ``x' = H_p, p' = -H_x - p H_z, z' = p H_p - H`` (t frozen in the partial
derivatives), and along it ``dH/dt = -H H_z + dH/dt|_partial``
(:func:`certify_time_dependent_energy_law`).

The exact flows of the pieces of ``H = A(p) + B(x) + C z`` are (with their contact
factors ``phi_t^* eta = g eta``)::

    A : (x + t A'(p), p, z + t (p A'(p) - A(p)))      g = 1
    B : (x, p - t B'(x), z - t B(x))                   g = 1
    Cz: (x, p e^{-Ct}, z e^{-Ct})                      g = e^{-Ct}

Slides are numbered as the frames of our copy of the talk: title frame = 1, the "Contents" frame
and the five section "Table of Contents" frames counted, block headings inside a frame
("Splitting integrator", "Theorem") not.  So slide 14 is "Damped mechanical systems", slide 20
the third "Herglotz' variational principle" (``phi_T^*(dz - p dx) = e^{B(T)} (dz - p dx)``),
slide 25 "All contact maps are variational", slide 26 "Backward error analysis", slide 27 the
first "Hamiltonian integrators".

What slide 27 prints against the flows above: three errors in the authors' text (misprints),
each shown to fail by a test in ``tests/geomcheck/structures/test_contact.py``; the fields
``X_B`` and ``X_Cz`` are printed right.

* One slip, printed twice: the z component of ``X_A = A'(p) d_x + (p A(p) - A(p)) d_z`` and
  of ``exp(t X_A)`` (``z + t (p A(p) - A(p))``) lacks the prime; it is ``p A'(p) - A(p)``
  (``test_printed_X_A_is_not_the_contact_field``, ``test_printed_A_flow_fails``).  It is in the
  authors' text, not a conversion loss: the same primeless expression reappears verbatim as the
  z component of the printed ``exp(t X_B)``, a copy of the A line that no conversion produces,
  while ``A'(p)`` elsewhere on those lines is intact.
* ``exp(t X_B)(x, p, z) = (x - t (B'(x) + B(x)), p, z + t (p A(p) - A(p)))`` moves x instead
  of p and carries the A line's z component: not the flow of X_B and not even a contact map;
  the flow is ``(x, p - t B'(x), z - t B(x))`` (``test_printed_B_flow_fails``).
* ``exp(t X_C)(x, p, z) = (x, p - t p C, exp(Ct) z)``: the p component is the first-order
  truncation of ``p e^{-Ct}``, so the map is not the flow (the slide calls the flows explicit)
  and not contact (``test_printed_C_flow_fails``).  The sign of the z exponent may be the
  authors' or a minus lost in our copy; the p component alone makes the printed map wrong.
  The flow is ``(x, p e^{-Ct}, z e^{-Ct})``.

Modified equations (slide 26, "Backward error analysis"): :func:`modified_contact_hamiltonian`
certifies, to a stated order in h, that every term of the modified vector field of a map is a
contact Hamiltonian field (so the truncated modified equations are a contact system);
:func:`modified_herglotz_lagrangian` builds the modified Lagrangian by the Legendre transform and
certifies that the modified equations are its Herglotz equations (``z' = L~`` and the
generalized Euler-Lagrange equation); :func:`contact_generating_lagrangian` builds the discrete
Lagrangian ``L(x_j, x_{j+1}, z_j)`` of a contact step (slide 25) and certifies that the step is
its position-momentum map.

>>> import sympy
>>> from geomcheck.structures import darboux_coordinates, certify_contact_form
>>> D = darboux_coordinates(2)
>>> D.eta
Form((-p1)*dx1 + (-p2)*dx2 + dz)
>>> certify_contact_form(D.eta).holds
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING
from dataclasses import dataclass, replace

import sympy

from ..algebra import Chart
from ..calculus import diff
from ..certify.certificate import Certificate
from ..certify.maps import certify_contact
from ..errors import (
    ExpressionError,
    InvalidArgumentError,
    NotContactError,
    ShapeError,
    SubsystemShapeError,
)
from ..fields import VectorField
from ..forms import Form, d, interior, lie, require_form
from ..hamiltonian import contact_vector_field, reeb_vector_field
from ..latex import Derivation, latex
from ..maps import Map, substitute
from ..zero import decide_all_zero, decide_zero
from ..latex import summarize

if TYPE_CHECKING:
    from ..maps import ImplicitMap

__all__ = [
    "ContactCoordinates",
    "darboux_coordinates",
    "contact_coordinates",
    "standard_contact_form",
    "certify_contact_form",
    "require_contact_form",
    "certify_reeb_field",
    "ContactHamiltonianField",
    "contact_hamiltonian_field",
    "certify_contact_hamiltonian_field",
    "certify_contact_energy_law",
    "AutonomizedContactSystem",
    "autonomize",
    "certify_time_dependent_energy_law",
    "kinetic_flow",
    "potential_flow",
    "linear_damping_flow",
    "certify_exact_flow",
    "certify_contact_factor",
    "SeparableContactFlows",
    "separable_contact_flows",
    "modified_contact_hamiltonian",
    "modified_herglotz_lagrangian",
    "contact_generating_lagrangian",
]


def _show(e) -> str:
    return summarize(e)


def _as_tuple(v, what) -> tuple:
    if isinstance(v, sympy.Symbol):
        return (v,)
    if isinstance(v, str):               # one coordinate name, not a sequence of letters
        return (sympy.Symbol(v),)
    try:
        return tuple(v)
    except TypeError:
        raise ExpressionError(f"{what} must be a Symbol or a sequence of Symbols, got {v!r}") from None


# --------------------------------------------------------------------------- Darboux coordinates


@dataclass(frozen=True)
class ContactCoordinates:
    """Darboux coordinates ``(x, p, z)`` of a chart, with ``eta = dz - sum p_i dx_i``.

    Attributes
    ----------
    chart : Chart
    x, p : tuple of Symbol
        Blocks of equal length n.
    z : Symbol
    """

    chart: Chart
    x: tuple
    p: tuple
    z: sympy.Symbol

    @property
    def n(self) -> int:
        """The number of degrees of freedom."""
        return len(self.x)

    @property
    def eta(self) -> Form:
        """The standard contact form ``dz - sum_i p_i dx_i``."""
        return standard_contact_form(self.chart, self.x, self.p, self.z)

    def latex(self) -> str:
        return latex(self.eta)


def contact_coordinates(chart: Chart, x: sympy.Symbol | str | Sequence[sympy.Symbol],
                        p: sympy.Symbol | str | Sequence[sympy.Symbol], z: sympy.Symbol) -> ContactCoordinates:
    """Check that ``x, p, z`` are Darboux blocks of ``chart`` and bundle them.

    Raises
    ------
    SubsystemShapeError
        ``len(x) != len(p)``, an empty block, or a chart whose dimension is not ``2n + 1``.
    ShapeError
        A coordinate named twice.
    UnknownCoordinateError
        A symbol that is not a coordinate of ``chart``.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("qc pc zc")
    >>> contact_coordinates(M, *M.coords).eta
    Form((-pc)*dqc + dzc)
    """
    if not isinstance(chart, Chart):
        raise ExpressionError(f"contact_coordinates expects a Chart first, got {chart!r}")
    xs, ps = _as_tuple(x, "x"), _as_tuple(p, "p")
    if len(xs) != len(ps) or not xs:
        raise SubsystemShapeError(
            f"the contact form dz - sum p_i dx_i needs blocks x and p of the same positive length;"
            f" got {len(xs)} x's {list(xs)} and {len(ps)} p's {list(ps)}"
        )
    if isinstance(z, (list, tuple)):
        raise ExpressionError(f"z must be one coordinate, got {z!r}")
    all_coords = xs + ps + (z,)
    idx = [chart.index(c) for c in all_coords]
    if len(set(idx)) != len(idx):
        raise ShapeError(f"the Darboux coordinates {list(map(str, all_coords))} name a coordinate twice")
    if chart.dim != 2 * len(xs) + 1:
        raise SubsystemShapeError(
            f"{chart!r} has dimension {chart.dim}; Darboux coordinates with n = {len(xs)} need a chart"
            f" of dimension {2 * len(xs) + 1}"
        )
    coords = chart.coords
    return ContactCoordinates(chart, tuple(coords[i] for i in idx[: len(xs)]),
                              tuple(coords[i] for i in idx[len(xs): 2 * len(xs)]), coords[idx[-1]])


def darboux_coordinates(n: int = 1, x: str = "x", p: str = "p", z: str = "z") -> ContactCoordinates:
    """A fresh chart ``(x_1..x_n, p_1..p_n, z)`` (``(x, p, z)`` for n = 1).

    Examples
    --------
    >>> darboux_coordinates(3).chart.coords
    (x1, x2, x3, p1, p2, p3, z)
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidArgumentError(f"darboux_coordinates: n must be a positive integer, got {n!r}")
    if n == 1:
        names = [x, p, z]
    else:
        names = [f"{x}{i}" for i in range(1, n + 1)] + [f"{p}{i}" for i in range(1, n + 1)] + [z]
    chart = Chart(names)
    c = chart.coords
    return ContactCoordinates(chart, c[:n], c[n: 2 * n], c[2 * n])


def standard_contact_form(chart: Chart, x: sympy.Symbol | str | Sequence[sympy.Symbol],
                          p: sympy.Symbol | str | Sequence[sympy.Symbol], z: sympy.Symbol) -> Form:
    """``dz - sum_i p_i dx_i`` for blocks x, p of any (equal) length.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("x p z")
    >>> standard_contact_form(M, *M.coords)
    Form((-p)*dx + dz)
    """
    D = contact_coordinates(chart, x, p, z)
    comps = {(D.z,): sympy.S.One}
    for xi, pi in zip(D.x, D.p):
        comps[(xi,)] = -pi
    return Form(chart, comps)


def _darboux_split(eta: Form):
    """ContactCoordinates when eta is literally ``dz - sum p_i dx_i`` on its chart, else None."""
    chart = eta.chart
    if chart.dim % 2 == 0:
        return None
    ones = [k[0] for k, v in eta.terms.items() if len(k) == 1 and v == 1]
    for zi in ones:
        xs, ps = [], []
        for (j,), v in ((k, v) for k, v in eta.terms.items() if k != (zi,)):
            if not (isinstance(-v, sympy.Symbol) and -v in chart.coordinate_set):
                break
            xs.append(chart.coords[j])
            ps.append(-v)
        else:
            used = set(xs) | set(ps) | {chart.coords[zi]}
            if 2 * len(xs) + 1 == chart.dim and len(used) == chart.dim:
                return ContactCoordinates(chart, tuple(xs), tuple(ps), chart.coords[zi])
    return None


# --------------------------------------------------------------------------- contact forms


def _check_one_form(eta, who):
    require_form(eta, 1, who, "contact 1-form")
    if eta.chart.dim % 2 == 0:
        raise NotContactError(
            f"{who}: {eta} lives on the even-dimensional {eta.chart!r}; a contact form needs a chart of"
            " odd dimension 2n + 1"
        )


def _volume_coefficient(eta: Form):
    n = eta.chart.dim // 2
    de = d(eta)
    top = eta
    for _ in range(n):
        top = top ^ de
    return de, top, top.terms.get(tuple(range(eta.chart.dim)), sympy.S.Zero)


def _nowhere_zero_factors(c, coords) -> bool:
    """True when every factor of c is a nonzero number, an exponential or positive for real arguments."""
    real = {x: sympy.Dummy(x.name, real=True) for x in coords}
    for f in sympy.Mul.make_args(sympy.factor_terms(c)):
        base = f.base if f.is_Pow and f.exp.is_number else f
        if base.is_number and base != 0:
            continue
        if isinstance(base, sympy.exp):
            continue
        if base.has(sympy.core.function.AppliedUndef, sympy.Derivative):
            return False
        if base.xreplace(real).is_positive or base.xreplace(real).is_negative:
            continue
        return False
    return True


def _polynomial_zero(c, coords, seed=0):
    """A real point where the polynomial c (rational coefficients) vanishes, or None."""
    xs = [x for x in coords if c.has(x)]
    if not xs or c.free_symbols - set(coords):
        return None
    try:
        poly = sympy.Poly(c, *xs, domain="QQ")
    except (sympy.PolynomialError, sympy.CoercionFailed):
        return None
    rng = random.Random(seed)
    for attempt in range(8):
        for v in xs:
            if poly.degree(v) < 1:
                continue
            values = {w: sympy.Integer(rng.randint(-3, 3)) for w in xs if w != v}
            uni = sympy.Poly(poly.as_expr().xreplace(values), v)
            if uni.degree() < 1:
                continue
            roots = sympy.real_roots(uni)
            if roots:
                point = {x: sympy.S.Zero for x in coords}
                point.update(values)
                point[v] = roots[0]
                return point
    return None


def certify_contact_form(eta: Form) -> Certificate:
    """Certify that ``eta ^ (d eta)^n`` vanishes nowhere (eta is a contact form).

    ``holds`` is True when the coefficient of the volume form is a nonzero constant or a
    product of factors that cannot vanish (exponentials, positive expressions); False when
    it vanishes identically or at an exhibited point (the counterexample); None when it is
    not identically zero but its zeros are not decided (eta is then a contact form on the
    open set where the coefficient is nonzero).  The volume form is the ``witness``.

    Raises
    ------
    MixedDegreeError
        eta is not a 1-form.
    NotContactError
        The chart has even dimension (no contact form can exist there).

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("x p z"); x, p, z = M.coords
    >>> certify_contact_form(M.d(z) - p * M.d(x)).holds
    True
    >>> c = certify_contact_form(M.d(z) - x * M.d(p))      # d eta = dp ^ dx, eta ^ d eta = dz^dp^dx
    >>> c.holds
    True
    >>> certify_contact_form(M.d(z) - x * M.d(x)).holds    # closed: eta ^ d eta = 0
    False
    >>> certify_contact_form(M.d(z) - p**3 / 3 * M.d(x)).counterexample
    {x: 0, p: 0, z: 0}
    """
    _check_one_form(eta, "certify_contact_form")
    chart = eta.chart
    n = chart.dim // 2
    de, top, c = _volume_coefficient(eta)
    vol = r" \wedge ".join(r"\mathrm{d}" + sympy.latex(x) for x in chart.coords)
    power = "" if n == 1 else "^{%d}" % n
    D = Derivation(r"$\eta$ is a contact form: $\eta\wedge(\mathrm{d}\eta)" + power + r" \neq 0$")
    D = D.add("The 1-form and its exterior derivative are",
              r"\eta &= " + latex(eta) + r" \\ \mathrm{d}\eta &= " + latex(de))
    D = D.add(r"so the top form is", r"\eta\wedge(\mathrm{d}\eta)" + power + r" &= \left(" + _show(c) + r"\right)\, " + vol)
    coords = chart.coords
    decision = decide_zero(c) if c != 0 else None
    counterexample = None
    if c == 0 or decision.is_zero is True:
        holds, stage = False, (decision.stage if decision else "structural")
        method = (f"eta ^ (d eta)^{n} vanishes identically"
                  + (f" ({decision.method})" if decision else "") + ": eta is a contact form nowhere")
        counterexample = {x: sympy.S.Zero for x in coords}
    elif decision.is_zero is None:
        holds, stage, method = None, "unknown", f"whether eta ^ (d eta)^{n} vanishes is undecided ({decision.method})"
    elif not (c.free_symbols & set(coords)) and c.is_number:
        holds, stage, method = True, "exact", f"eta ^ (d eta)^{n} = {c} times the coordinate volume form, a nonzero constant"
    elif _nowhere_zero_factors(c, coords):
        holds, stage = True, "exact"
        method = f"eta ^ (d eta)^{n} = c dV with c a product of nowhere-vanishing factors (numbers, exponentials, positive terms)"
    else:
        point = _polynomial_zero(c, coords)
        if point is not None:
            holds, stage, counterexample = False, "counterexample", point
            method = f"eta ^ (d eta)^{n} = c dV with c = {c}, which vanishes at the point shown"
        else:
            holds, stage = None, "unknown"
            method = (f"eta ^ (d eta)^{n} = c dV with c = {c} not identically zero ({decision.method}), so eta is"
                      " a contact form where c != 0; that c vanishes nowhere is not proved")
    return Certificate(
        claim="eta ^ (d eta)^n != 0 everywhere", holds=holds, method=method, stage=stage,
        residual=None, factor=None, counterexample=counterexample, derivation=D, witness=top,
    )


def require_contact_form(eta: Form, who: str = "this operation") -> Form:
    """Return eta, or raise ``NotContactError`` when ``eta ^ (d eta)^n`` vanishes identically.

    A form whose top power vanishes only on a hypersurface is accepted: it is a contact
    form on the open set where it does not vanish (``certify_contact_form`` says more).

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("x p z"); x, p, z = M.coords
    >>> require_contact_form(M.d(z) + x * M.d(x), "the Reeb field")
    Traceback (most recent call last):
    ...
    geomcheck.errors.NotContactError: the Reeb field needs a contact form, but eta = (x)*dx + dz is not one: eta ^ (d eta)^1 vanishes identically (eta ^ d eta = 0); a contact form such as dz - sum_i p_i dx_i was expected
    """
    _check_one_form(eta, who)
    n = eta.chart.dim // 2
    _, top, c = _volume_coefficient(eta)
    if c == 0 or top.is_zero() is True:
        raise NotContactError(
            f"{who} needs a contact form, but eta = {eta} is not one: eta ^ (d eta)^{n} vanishes identically"
            f" (eta ^ d eta{'' if n == 1 else ' ^ ...'} = 0); a contact form such as dz - sum_i p_i dx_i was expected"
        )
    return eta


def _decided(claim, residuals: dict, D: Derivation, factor=None, witness=None, relations=()) -> Certificate:
    """A certificate from a dict of scalar residuals that must all vanish."""
    decision = decide_all_zero(residuals, relations=relations)
    return Certificate.from_decision(claim, decision, residual=residuals, factor=factor, derivation=D,
                                     witness=witness)


def certify_reeb_field(eta: Form, R: VectorField | None = None) -> Certificate:
    """Certify ``eta(R) = 1`` and ``i_R d(eta) = 0`` (R defaults to ``gc.reeb_vector_field(eta)``).

    The Reeb field is the certificate's ``witness``.

    Examples
    --------
    >>> D = darboux_coordinates(2)
    >>> c = certify_reeb_field(D.eta)
    >>> c.holds, c.witness
    (True, VectorField({z: 1}))
    """
    require_contact_form(eta, "certify_reeb_field")
    if R is None:
        R = reeb_vector_field(eta)
    if not isinstance(R, VectorField) or R.chart != eta.chart:
        raise ExpressionError(f"certify_reeb_field: R must be a VectorField on {eta.chart!r}, got {R!r}")
    de = d(eta)
    eR = eta(R)
    iR = interior(R, de)
    residuals = {"eta(R) - 1": eR - 1}
    residuals.update({f"(i_R d eta)_{eta.chart.coords[k[0]]}": v for k, v in sorted(iR.terms.items())})
    D = Derivation(r"The Reeb field: $\eta(R) = 1$, $\iota_R\,\mathrm{d}\eta = 0$")
    D = D.add("For", r"\eta &= " + latex(eta) + r",\quad R = " + latex(R))
    D = D.add("we find", r"\eta(R) &= " + _show(eR) + r" \\ \iota_R\,\mathrm{d}\eta &= " + latex(iR))
    return _decided("eta(R) == 1 and i_R d eta == 0", residuals, D, witness=R)


# --------------------------------------------------------------------------- contact Hamiltonian fields


@dataclass(frozen=True)
class ContactHamiltonianField:
    """The contact Hamiltonian vector field of H, with its Reeb field and conformal factor.

    Attributes
    ----------
    hamiltonian : sympy.Expr
    eta : Form
    field : VectorField
        X with ``eta(X) = -H`` and ``L_X eta = factor * eta``.
    reeb : VectorField
    factor : sympy.Expr
        ``-R(H)`` (the slides' ``f_H``).
    derivation : Derivation
    """

    hamiltonian: sympy.Expr
    eta: Form
    field: VectorField
    reeb: VectorField
    factor: sympy.Expr
    derivation: Derivation

    def latex(self) -> str:
        return self.derivation.latex()


def _partial(f, x):
    return r"\frac{\partial " + f + r"}{\partial " + sympy.latex(x) + "}"


def contact_hamiltonian_field(H: sympy.Expr | float, eta: Form) -> ContactHamiltonianField:
    r"""The contact Hamiltonian vector field of H (``gc.contact_vector_field``), typeset.

    In Darboux coordinates the derivation prints, as the slides do,
    ``\dot x = H_p, \dot p = -H_x - p H_z, \dot z = p H_p - H`` and the computed right-hand sides.

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); x, p, z = D.chart.coords
    >>> a = sympy.Symbol("alpha"); U = sympy.Function("U")
    >>> F = contact_hamiltonian_field(p**2/2 + U(x) + a*z, D.eta)
    >>> F.field
    VectorField({x: p, p: -alpha*p - Derivative(U(x), x), z: -alpha*z + p**2/2 - U(x)})
    >>> F.factor
    -alpha
    """
    eta = require_contact_form(eta, "contact_hamiltonian_field")
    Hx = eta.chart.check_expression(H, "contact Hamiltonian")
    X = contact_vector_field(Hx, eta)
    R = reeb_vector_field(eta)
    factor = -R(Hx)
    D = Derivation(r"The contact Hamiltonian vector field: $\eta(X_H) = -H$, $\mathcal{L}_{X_H}\eta = f_H\,\eta$")
    D = D.add("For the Hamiltonian and contact form", r"H &= " + _show(Hx) + r" \\ \eta &= " + latex(eta))
    D = D.add(r"the Reeb field and the factor $f_H = -R_\eta(H)$ are",
              r"R_\eta &= " + latex(R) + r" \\ f_H &= " + _show(factor))
    split = _darboux_split(eta)
    rows = []
    if split is not None:
        for xi, pi in zip(split.x, split.p):
            rows.append(r"\dot{%s} &= %s = %s" % (sympy.latex(xi), _partial("H", pi), _show(X.component(xi))))
        for xi, pi in zip(split.x, split.p):
            rows.append(r"\dot{%s} &= -%s - %s %s = %s" % (sympy.latex(pi), _partial("H", xi), sympy.latex(pi),
                                                          _partial("H", split.z), _show(X.component(pi))))
        pHp = " + ".join(sympy.latex(pi) + _partial("H", pi) for pi in split.p)
        rows.append(r"\dot{%s} &= %s - H = %s" % (sympy.latex(split.z), pHp, _show(X.component(split.z))))
        D = D.add("In Darboux coordinates the contact Hamiltonian equations are", r" \\ ".join(rows))
    else:
        rows = [r"\dot{%s} &= %s" % (sympy.latex(c), _show(X.component(c))) for c in eta.chart.coords]
        D = D.add("The equations of motion are", r" \\ ".join(rows))
    return ContactHamiltonianField(Hx, eta, X, R, factor, D)


def certify_contact_hamiltonian_field(H: sympy.Expr | float, eta: Form, X: VectorField | None = None) -> Certificate:
    """Certify ``eta(X) = -H`` and ``L_X eta = -R(H) eta``; the certificate's factor is ``-R(H)``.

    ``L_X eta`` is computed by the classical component formula (``gc.lie``), not by
    Cartan's formula through which ``gc.contact_vector_field`` solves for X, so the check
    is independent.  X defaults to the contact vector field of H; pass a printed field to
    check it.

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(2)
    >>> H = sympy.Function("H")(*D.chart.coords)                 # any H(x1, x2, p1, p2, z)
    >>> c = certify_contact_hamiltonian_field(H, D.eta)
    >>> c.holds, c.factor
    (True, -Derivative(H(x1, x2, p1, p2, z), z))
    """
    eta = require_contact_form(eta, "certify_contact_hamiltonian_field")
    Hx = eta.chart.check_expression(H, "contact Hamiltonian")
    if X is None:
        X = contact_vector_field(Hx, eta)
    if not isinstance(X, VectorField) or X.chart != eta.chart:
        raise ExpressionError(f"certify_contact_hamiltonian_field: X must be a VectorField on {eta.chart!r}, got {X!r}")
    R = reeb_vector_field(eta)
    factor = -R(Hx)
    LX = lie(X, eta)
    conformal = LX - factor * eta
    residuals = {"eta(X) + H": eta(X) + Hx}
    residuals.update({f"(L_X eta + R(H) eta)_{eta.chart.coords[k[0]]}": v for k, v in sorted(conformal.terms.items())})
    D = Derivation(r"$X$ is the contact Hamiltonian field of $H$: $\eta(X) = -H$, $\mathcal{L}_X\eta = -R(H)\,\eta$")
    D = D.add("For", r"H &= " + _show(Hx) + r" \\ \eta &= " + latex(eta) + r" \\ X &= " + latex(X))
    D = D.add(r"the Reeb field gives the factor", r"R &= " + latex(R) + r" \\ -R(H) &= " + _show(factor))
    D = D.add(r"The component formula for the Lie derivative gives", r"\mathcal{L}_X\eta &= " + latex(LX))
    D = D.add("The residuals, which must vanish, are",
              r"\eta(X) + H &= " + _show(residuals["eta(X) + H"]) + r" \\ \mathcal{L}_X\eta + R(H)\,\eta &= "
              + latex(conformal))
    return _decided("eta(X) == -H and L_X eta == -R(H) eta", residuals, D, factor=factor, witness=X)


def certify_contact_energy_law(H: sympy.Expr | float, eta: Form) -> Certificate:
    """Certify ``dH/dt = X_H(H) = -H R(H)`` (``-H H_z`` in Darboux coordinates): slide 14.

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); x, p, z = D.chart.coords
    >>> c = certify_contact_energy_law(sympy.Function("H")(x, p, z), D.eta)
    >>> c.holds
    True
    """
    F = contact_hamiltonian_field(H, eta)
    dH = F.field(F.hamiltonian)
    law = F.factor * F.hamiltonian          # -R(H) H
    D = Derivation(r"Contact Hamiltonian systems dissipate: $\frac{\mathrm{d}H}{\mathrm{d}t} = -H\,R(H)$")
    D = D.add("Along the contact Hamiltonian field", r"X_H &= " + latex(F.field))
    D = D.add("the Hamiltonian changes as",
              r"\frac{\mathrm{d}H}{\mathrm{d}t} = X_H(H) &= " + _show(dH) + r" \\ -H\,R(H) &= " + _show(law))
    return _decided("dH/dt == -H R(H)", {"X_H(H) + H R(H)": dH - law}, D, factor=F.factor)


# --------------------------------------------------------------------------- time-dependent Hamiltonians


@dataclass(frozen=True)
class AutonomizedContactSystem:
    """A time-dependent contact Hamiltonian made autonomous on ``(x, t, p, E, z)``.

    Attributes
    ----------
    base : ContactCoordinates
        The original Darboux coordinates ``(x, p, z)``.
    time, energy : Symbol
        t (now a coordinate) and its conjugate momentum E, as ``sympy.Dummy`` symbols named
        ``t`` and ``E`` (so that the user's t stays a plain parameter elsewhere).
    coordinates : ContactCoordinates
        The extended chart, x-block ``(x, t)``, p-block ``(p, E)``: ``eta = dz - p dx - E dt``.
    hamiltonian : sympy.Expr
        ``H(x, p, z, t) + E``.
    """

    base: ContactCoordinates
    time: sympy.Symbol
    energy: sympy.Symbol
    coordinates: ContactCoordinates
    hamiltonian: sympy.Expr

    @property
    def eta(self) -> Form:
        return self.coordinates.eta

    def field(self) -> VectorField:
        return contact_vector_field(self.hamiltonian, self.eta)


def autonomize(H: sympy.Expr, coords: ContactCoordinates, t: sympy.Symbol,
               energy: str = "E") -> AutonomizedContactSystem:
    """Autonomize ``H(x, p, z, t)``: t becomes a coordinate, E its momentum, H + E the Hamiltonian.

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); x, p, z = D.chart.coords; t = sympy.Symbol("t")
    >>> S = autonomize(p**2/2 + sympy.cos(t) * z, D, t)
    >>> [str(c) for c in S.coordinates.chart.coords]
    ['x', '_t', 'p', '_E', 'z']
    >>> S.field().component(S.energy) == -S.energy * sympy.cos(S.time) + z * sympy.sin(S.time)
    True
    """
    if not isinstance(coords, ContactCoordinates):
        raise ExpressionError(f"autonomize expects ContactCoordinates (see darboux_coordinates), got {coords!r}")
    if not isinstance(t, sympy.Symbol) or t in coords.chart.coordinate_set:
        raise ExpressionError(f"autonomize: the time {t!r} must be a Symbol that is not a coordinate of {coords.chart!r}")
    Hx = sympy.sympify(H)
    foreign = {s for s in Hx.free_symbols if s.name == energy}
    if foreign or energy in {c.name for c in coords.chart.coords} or energy == t.name:
        raise ExpressionError(f"autonomize: the name {energy!r} for the momentum of t is taken; pass energy=...")
    # t and E become coordinates through Dummies: charts register their coordinates
    # globally, and the plain Symbol t must stay usable as a parameter (a step, a flow time)
    T, E = sympy.Dummy(t.name), sympy.Dummy(energy)
    names = list(coords.x) + [T] + list(coords.p) + [E, coords.z]
    chart = Chart(names)
    c = chart.coords
    n = coords.n
    ext = ContactCoordinates(chart, c[: n + 1], c[n + 1: 2 * n + 2], c[-1])
    HT = substitute(Hx, {t: T})
    return AutonomizedContactSystem(coords, T, E, ext, chart.check_expression(HT + E, "contact Hamiltonian"))


def certify_time_dependent_energy_law(H: sympy.Expr, coords: ContactCoordinates, t: sympy.Symbol) -> Certificate:
    """Certify, for ``H(x, p, z, t)``, the time-dependent contact equations and the energy law.

    On the autonomized system (:func:`autonomize`) the contact field of ``H + E`` must give
    ``t' = 1``, ``x' = H_p``, ``p' = -H_x - p H_z``, ``z' = p H_p - H`` and
    ``dH/dt = -H H_z + dH/dt|_partial``.

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(2); t = sympy.Symbol("t")
    >>> H = sympy.Function("H")(*D.chart.coords, t)
    >>> certify_time_dependent_energy_law(H, D, t).holds
    True
    """
    S = autonomize(H, coords, t)
    X = S.field()
    t = S.time                          # the coordinate standing for the user's t
    Hx = S.hamiltonian - S.energy       # H(x, p, z, t) written in it
    Hz = diff(Hx, coords.z)
    expected = {S.time: sympy.S.One}
    for xi, pi in zip(coords.x, coords.p):
        expected[xi] = diff(Hx, pi)
        expected[pi] = -diff(Hx, xi) - pi * Hz
    expected[coords.z] = sympy.Add(*[pi * diff(Hx, pi) for pi in coords.p]) - Hx
    residuals = {f"{c}' - expected": X.component(c) - v for c, v in expected.items()}
    dH = X(Hx)
    law = -Hx * Hz + diff(Hx, t)
    residuals["dH/dt + H H_z - H_t"] = dH - law
    D = Derivation(r"Time-dependent contact Hamiltonians: $\frac{\mathrm{d}H}{\mathrm{d}t} = -H\,\frac{\partial H}{\partial z}"
                   r" + \frac{\partial H}{\partial t}$")
    D = D.add(r"Make $t$ a coordinate with conjugate momentum $E$:",
              r"\tilde\eta &= " + latex(S.eta) + r" \\ \tilde H &= " + _show(S.hamiltonian))
    D = D.add(r"The contact field of $\tilde H$ is", r"X_{\tilde H} &= " + latex(X))
    D = D.add(r"so $\dot t = 1$, the other components are the time-dependent contact equations, and",
              r"\frac{\mathrm{d}H}{\mathrm{d}t} = X_{\tilde H}(H) &= " + _show(dH)
              + r" \\ -H\,\frac{\partial H}{\partial z} + \frac{\partial H}{\partial t} &= " + _show(law))
    return _decided("time-dependent contact equations and dH/dt == -H H_z + H_t", residuals, D)


# --------------------------------------------------------------------------- exact flows of A(p) + B(x) + C z


def _check_depends_only(f, allowed, coords: ContactCoordinates, what):
    e = coords.chart.check_expression(f, what)
    bad = (e.free_symbols & coords.chart.coordinate_set) - set(allowed)
    if bad:
        raise ExpressionError(
            f"{what} may depend on {', '.join(map(str, allowed)) or 'no coordinate'} only; {e} contains"
            f" {', '.join(sorted(map(str, bad)))}"
        )
    return e


def _self_map(coords: ContactCoordinates, exprs: dict) -> Map:
    # the parameters (t, C, ...) are named explicitly: a symbol that is a coordinate of
    # some other chart (t of an autonomized system) would otherwise be refused
    chart = coords.chart
    params = set().union(*(sympy.sympify(e).free_symbols for e in exprs.values())) - chart.coordinate_set
    return Map(chart, chart, exprs, parameters=sorted(params, key=str))


def kinetic_flow(A: sympy.Expr, coords: ContactCoordinates, t: sympy.Expr) -> Map:
    """The exact flow ``(x + t A'(p), p, z + t (p A'(p) - A(p)))`` of the contact field of A(p).

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); x, p, z = D.chart.coords; t = sympy.Symbol("t")
    >>> kinetic_flow(p**2 / 2, D, t)
    Map(x -> p*t + x, p -> p, z -> p**2*t/2 + z)
    """
    a = _check_depends_only(A, coords.p, coords, "A(p)")
    grad = [diff(a, pi) for pi in coords.p]
    exprs = {xi: xi + t * g for xi, g in zip(coords.x, grad)}
    exprs.update({pi: pi for pi in coords.p})
    exprs[coords.z] = coords.z + t * (sympy.Add(*[pi * g for pi, g in zip(coords.p, grad)]) - a)
    return _self_map(coords, exprs)


def potential_flow(B: sympy.Expr, coords: ContactCoordinates, t: sympy.Expr) -> Map:
    """The exact flow ``(x, p - t B'(x), z - t B(x))`` of the contact field of B(x).

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); x, p, z = D.chart.coords; t = sympy.Symbol("t")
    >>> potential_flow(x**2 / 2, D, t)
    Map(x -> x, p -> p - t*x, z -> -t*x**2/2 + z)
    """
    b = _check_depends_only(B, coords.x, coords, "B(x)")
    exprs = {xi: xi for xi in coords.x}
    exprs.update({pi: pi - t * diff(b, xi) for xi, pi in zip(coords.x, coords.p)})
    exprs[coords.z] = coords.z - t * b
    return _self_map(coords, exprs)


def linear_damping_flow(C: sympy.Expr | float, coords: ContactCoordinates, t: sympy.Expr) -> Map:
    """The exact flow ``(x, p e^{-Ct}, z e^{-Ct})`` of the contact field of ``C z`` (C constant).

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); x, p, z = D.chart.coords; t, C = sympy.symbols("t C")
    >>> linear_damping_flow(C, D, t)
    Map(x -> x, p -> p*exp(-C*t), z -> z*exp(-C*t))
    """
    c = _check_depends_only(C, (), coords, "C")
    decay = sympy.exp(-c * t)
    exprs = {xi: xi for xi in coords.x}
    exprs.update({pi: pi * decay for pi in coords.p})
    exprs[coords.z] = coords.z * decay
    return _self_map(coords, exprs)


def certify_exact_flow(phi: Map, H: sympy.Expr | float, eta: Form, t: sympy.Symbol) -> Certificate:
    """Certify that ``phi`` (depending on t) is the flow of the contact field of H.

    Claims ``phi|_{t=0} = id`` and ``d/dt phi = X_H o phi``.

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); x, p, z = D.chart.coords; t = sympy.Symbol("t")
    >>> B = sympy.Function("B")(x)
    >>> certify_exact_flow(potential_flow(B, D, t), B, D.eta, t).holds
    True
    """
    if not isinstance(phi, Map) or phi.source != eta.chart or phi.target != eta.chart:
        raise ExpressionError(f"certify_exact_flow expects an explicit Map of {eta.chart!r} to itself, got {phi!r}")
    X = contact_hamiltonian_field(H, eta).field
    at = phi.substitution()
    residuals = {}
    rows = []
    for c, e in zip(eta.chart.coords, phi.exprs):
        residuals[f"{c}(t=0) - {c}"] = substitute(e, {t: 0}) - c
        residuals[f"d{c}/dt - X^{c} o phi"] = diff(e, t) - substitute(X.component(c), at)
        rows.append(r"\frac{\mathrm{d}}{\mathrm{d}t}\varphi_t^{%s} &= %s" % (sympy.latex(c), _show(diff(e, t))))
    D = Derivation(r"$\varphi_t$ is the flow of $X_H$: $\varphi_0 = \mathrm{id}$, $\partial_t\varphi_t = X_H\circ\varphi_t$")
    D = D.add("For", r"H &= " + _show(H) + r" \\ X_H &= " + latex(X))
    D = D.add(r"and the map", r"\varphi_t &: " + latex(phi))
    D = D.add("we have", r" \\ ".join(rows))
    return _decided("phi_0 == id and d/dt phi_t == X_H o phi_t", residuals, D)


def certify_contact_factor(phi: Map | ImplicitMap, eta: Form, factor: sympy.Expr | float, *,
                           small_step: sympy.Symbol | None = None) -> Certificate:
    """``gc.certify_contact(phi, eta)`` and, in addition, that its factor g equals ``factor``.

    For implicit maps the comparison is made on the solution manifold.  The result
    holds only when the map is contact AND the factor is the expected one; it fails when
    either is refuted.  ``small_step``: the claim is for all sufficiently small values of
    this symbol (see :func:`geomcheck.certify_contact`).

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); t, C = sympy.symbols("t C")
    >>> c = certify_contact_factor(linear_damping_flow(C, D, t), D.eta, sympy.exp(-C * t))
    >>> c.holds, c.factor
    (True, exp(-C*t))
    """
    require_contact_form(eta, "certify_contact_factor")
    cert = certify_contact(phi, eta, small_step=small_step, factor_hint=factor)
    expected = sympy.sympify(factor)
    if cert.factor is None:
        # not contact (or not shown to be): there is no factor to compare
        return replace(cert, claim=f"phi^* eta == g eta with g == {expected}")
    relations = tuple(dep.relation for dep in cert.residual.dependence)
    g = cert.factor
    difference = g - expected
    same = decide_zero(difference, relations=relations)
    D = cert.derivation.add(r"The expected factor is", r"g_{\mathrm{expected}} &= " + _show(expected)
                            + r" \\ g - g_{\mathrm{expected}} &= " + _show(difference))
    method = cert.method + "; factor " + ("equals" if same.is_zero else "compared with") + " the expected one: " + same.method
    if cert.holds is False or same.is_zero is False:
        holds = False
        point = cert.counterexample if cert.holds is False else same.point
        stage = cert.stage if cert.holds is False else same.stage
    elif cert.holds is True and same.is_zero is True:
        # the weaker of the two decisions names the stage
        holds, point = True, None
        stage = "randomized" if "randomized" in (cert.stage, same.stage) else cert.stage
    else:
        holds, point, stage = None, None, "unknown"
    return replace(cert, claim=f"phi^* eta == g eta with g == {expected}", holds=holds, method=method,
                   stage=stage, counterexample=point, derivation=D, factor=g if holds is not True else expected)


# --------------------------------------------------------------------------- slide 27 in one piece


@dataclass(frozen=True)
class SeparableContactFlows:
    """The three exact flows of ``H = A(p) + B(x) + C z`` with their fields and certificates.

    Attributes
    ----------
    flows : dict
        ``{"A": Map, "B": Map, "Cz": Map}`` (the time symbol is ``time``).
    fields : dict
        The contact Hamiltonian vector fields ``X_A, X_B, X_Cz``.
    factors : dict
        The contact factors ``1, 1, e^{-Ct}``.
    certificates : dict
        For each piece, ``(contact with that factor, exact flow)`` certificates.
    derivation : Derivation
    """

    time: sympy.Symbol
    flows: dict
    fields: dict
    factors: dict
    certificates: dict
    derivation: Derivation

    @property
    def holds(self) -> bool | None:
        """True when every certificate holds, False when one fails, else None."""
        verdicts = [c.holds for pair in self.certificates.values() for c in pair]
        if all(v is True for v in verdicts):
            return True
        return False if any(v is False for v in verdicts) else None

    def latex(self) -> str:
        return self.derivation.latex()


def separable_contact_flows(A: sympy.Expr, B: sympy.Expr, C: sympy.Expr | float, coords: ContactCoordinates,
                            t: sympy.Symbol) -> SeparableContactFlows:
    """Slide 27: the fields X_A, X_B, X_Cz and their exact flows, each certified contact and exact.

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); x, p, z = D.chart.coords; t, C = sympy.symbols("t C")
    >>> S = separable_contact_flows(p**2 / 2, sympy.Function("B")(x), C, D, t)
    >>> S.holds, S.factors["Cz"]
    (True, exp(-C*t))
    """
    pieces = {
        "A": (A, kinetic_flow(A, coords, t), sympy.S.One),
        "B": (B, potential_flow(B, coords, t), sympy.S.One),
        "Cz": (sympy.sympify(C) * coords.z, linear_damping_flow(C, coords, t), sympy.exp(-sympy.sympify(C) * t)),
    }
    eta = coords.eta
    flows, fields, factors, certs = {}, {}, {}, {}
    D = Derivation(r"Exact flows of $H = A(p) + B(x) + C z$")
    field_rows, flow_rows = [], []
    for name, (H, phi, g) in pieces.items():
        X = contact_hamiltonian_field(H, eta).field
        flows[name], fields[name], factors[name] = phi, X, g
        certs[name] = (certify_contact_factor(phi, eta, g), certify_exact_flow(phi, H, eta, t))
        label = "X_{%s}" % name
        field_rows.append(label + " &= " + latex(X))
        args = ", ".join(_show(e) for e in phi.exprs)
        flow_rows.append(r"\exp(t %s)(%s) &= \left(%s\right), & g &= %s" % (
            label, ", ".join(sympy.latex(c) for c in coords.chart.coords), args, _show(g)))
    D = D.add("The contact Hamiltonian vector fields of the three pieces are", r" \\ ".join(field_rows))
    D = D.add(r"and their exact flows, with the factors $g$ of $\exp(tX)^*\eta = g\,\eta$, are",
              r" \\ ".join(flow_rows))
    verdicts = ", ".join(f"{name}: contact {c[0].verdict()}, exact flow {c[1].verdict()}" for name, c in certs.items())
    D = D.concluding(r"Certificates (" + verdicts + ").")
    return SeparableContactFlows(t, flows, fields, factors, certs, D)


# --------------------------------------------------------------------------- modified equations, generating Lagrangians


def _h_taylor(expr, h, n) -> list:
    """``[c_0, ..., c_{n-1}]`` with ``expr = sum_j c_j h^j + O(h^n)``.

    A polynomial in h (the truncated series built here) is read off coefficient by coefficient;
    anything else is differentiated at h = 0.
    """
    expr = sympy.sympify(expr)
    if not expr.has(sympy.Subs) and not any(h in a.free_symbols for f in expr.atoms(sympy.Function)
                                            for a in f.args):
        e = sympy.expand(expr)
        if e.is_polynomial(h):
            return [e.coeff(h, j) for j in range(n)]
    out, cur = [], expr
    for j in range(n):
        out.append(substitute(cur, {h: sympy.S.Zero}) / sympy.factorial(j))
        if j + 1 < n:
            cur = diff(cur, h)
    return out


def _h_truncate(expr, h, n):
    return sympy.Add(*[c * h**j for j, c in enumerate(_h_taylor(expr, h, n))])


def modified_contact_hamiltonian(phi: Map | ImplicitMap, eta: Form, h: sympy.Symbol,
                                 order: int) -> tuple[sympy.Expr, Certificate]:
    r"""The modified field of a map, certified to be a contact Hamiltonian field to ``O(h^order)``.

    With the modified field ``X~ = F_1 + h F_2 + ... + h^(order-1) F_order`` of ``phi``
    (:func:`geomcheck.modified_vector_field`), each ``F_k`` is checked to be the contact
    Hamiltonian vector field of ``H_k = -eta(F_k)``: ``L_{F_k} eta = -R(H_k) eta`` (the
    Lie derivative by the component formula).  Then ``X~`` is the contact field of
    ``H~ = H_1 + h H_2 + ... + h^(order-1) H_order``: the modified equations, truncated
    after ``order`` terms, are a contact system (the slides' "Backward error analysis").

    Returns
    -------
    (H~, Certificate)
        The certificate fails, with a counterexample, when some ``F_k`` is not a contact
        vector field (the map is then not contact to that order).

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); x, p, z = D.chart.coords
    >>> h, a = sympy.symbols("h alpha")
    >>> k = p * sympy.exp(-a * h)                         # damping, then the free flight (both exact flows)
    >>> S = Map(D.chart, D.chart, [x + h * k, k, z * sympy.exp(-a * h) + h * k**2 / 2])
    >>> Ht, cert = modified_contact_hamiltonian(S, D.eta, h, 2)
    >>> cert.holds, sympy.expand(Ht.coeff(h, 0)), sympy.expand(Ht.coeff(h, 1))
    (True, alpha*z + p**2/2, -alpha*p**2/4)
    """
    from ..certify.modified import modified_vector_field

    eta = require_contact_form(eta, "modified_contact_hamiltonian")
    if not isinstance(phi, Map) or phi.source != eta.chart or phi.target != eta.chart:
        raise ExpressionError(f"modified_contact_hamiltonian expects a Map of {eta.chart!r} to itself, got {phi!r}")
    fields = modified_vector_field(phi, h, order)
    R = reeb_vector_field(eta)
    residuals, terms = {}, []
    D = Derivation(r"The modified equations are contact: $\tilde X = \sum_k h^{k-1} F_k$ with"
                   r" $\mathcal{L}_{F_k}\eta = -R(H_k)\,\eta$, $H_k = -\eta(F_k)$")
    for k, F in enumerate(fields, start=1):
        Hk = -eta(F)
        conformal = lie(F, eta) - (-R(Hk)) * eta
        residuals.update({f"(L_F{k} eta + R(H_{k}) eta)_{eta.chart.coords[i[0]]}": v
                          for i, v in sorted(conformal.terms.items())})
        terms.append(h ** (k - 1) * Hk)
        rows = [rf"H_{{{k}}} = -\eta(F_{{{k}}}) &= " + _show(Hk)]
        rows += [rf"(\mathcal{{L}}_{{F_{{{k}}}}}\eta + R(H_{{{k}}})\,\eta)_{{{sympy.latex(eta.chart.coords[i[0]])}}} &= "
                 + _show(v) for i, v in sorted(conformal.terms.items())]   # an order that is not the memo's
        D = D.add(rf"The term $F_{{{k}}}$ of the modified field gives", r" \\ ".join(rows))
    Ht = sympy.Add(*terms)
    cert = _decided(f"the modified field, to O(h^{order}), is the contact field of H~ = sum_k h^(k-1) H_k",
                    residuals, D, factor=Ht)
    return Ht, cert


def modified_herglotz_lagrangian(
        Ht: sympy.Expr, coords: ContactCoordinates, h: sympy.Symbol, order: int, *, time: sympy.Symbol | None = None,
        energy: sympy.Symbol | None = None, lagrangian: sympy.Expr | None = None,
) -> tuple[sympy.Expr, tuple[sympy.Symbol, ...], Certificate]:
    r"""The modified Lagrangian of a modified contact Hamiltonian, certified to ``O(h^order)``.

    ``Ht`` is a truncated series ``H_1 + h H_2 + ...`` in h (from
    :func:`modified_contact_hamiltonian`) on ``coords``; for a time-dependent system, on the
    autonomized chart with ``time`` and its momentum ``energy``, where ``Ht = E + K(x, p, z, t)``
    is required (``t' = 1`` exactly).  The Legendre transform ``v = K_p`` is inverted as a
    series in h (H_1 must be regular in p: ``v = H_1p`` solvable in closed form) and
    ``L~(x, v, z, t) = p v - K`` truncated.  The certificate claims, along the modified
    field ``x' = K_p, p' = -K_x - p K_z, z' = p K_p - K``, up to ``O(h^order)``:

    * ``z' = L~(x, x', z, t)`` (the action equation of Herglotz's principle), and
    * ``L~_x - d/dt L~_{x'} + L~_z L~_{x'} = 0`` (the generalized Euler-Lagrange equations,
      ``d/dt`` the total derivative with ``x''`` the modified acceleration).

    That is what "the modified equation ``x'' = f_mod`` is the generalized Euler-Lagrange
    equation of ``L_mod`` and ``z' = L_mod``" means (slides, "Backward error analysis").
    Pass ``lagrangian`` (in x, the velocities ``<x>dot``, z, t and h) to certify a given
    Lagrangian instead of the Legendre transform (a published one, or a wrong one that fails).

    Returns
    -------
    (L~, velocities, Certificate)

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); x, p, z = D.chart.coords; h, a = sympy.symbols("h alpha")
    >>> L, (xdot,), cert = modified_herglotz_lagrangian(p**2/2 + x**2/2 + a*z + h*p*x, D, h, 2)
    >>> cert.holds, sympy.expand(L)
    (True, -alpha*z - h*x*xdot - x**2/2 + xdot**2/2)
    """
    if not isinstance(coords, ContactCoordinates):
        raise ExpressionError(f"modified_herglotz_lagrangian expects ContactCoordinates, got {coords!r}")
    if not isinstance(order, int) or order < 1:
        raise InvalidArgumentError(f"order must be an integer >= 1, got {order!r}")
    Ht = sympy.sympify(Ht)
    xs, ps, z = tuple(coords.x), tuple(coords.p), coords.z
    if (time is None) != (energy is None):
        raise InvalidArgumentError("modified_herglotz_lagrangian: pass both time and energy, or neither")
    if energy is not None:
        dE = decide_zero(diff(Ht, energy) - 1)
        if dE.is_zero is not True:
            raise ExpressionError(f"modified_herglotz_lagrangian: H~ must be E + K(x, p, z, t) (t' = 1 exactly);"
                                  f" dH~/dE - 1 = {diff(Ht, energy) - 1} is not shown to vanish ({dE.method})")
        K = sympy.expand(Ht - energy) if not Ht.has(sympy.Function) else Ht - energy
        if K.has(energy):
            K = substitute(K, {energy: sympy.S.Zero})
    else:
        K = Ht
    vs = tuple(sympy.Symbol(f"{xi.name}dot") for xi in xs)
    n = len(xs)
    K0 = substitute(K, {h: sympy.S.Zero})
    K0p = [diff(K0, pi) for pi in ps]
    sols = sympy.solve([kp - vi for kp, vi in zip(K0p, vs)], list(ps), dict=True)
    if len(sols) != 1 or set(sols[0]) != set(ps):
        raise ExpressionError(f"modified_herglotz_lagrangian: v = dH_1/dp has no unique closed-form solution for"
                              f" {list(ps)} (H_1 = {K0}); a Hamiltonian regular in p was expected")
    P0 = [sols[0][pi] for pi in ps]
    at0 = dict(zip(ps, P0))
    M = sympy.Matrix(n, n, lambda i, j: substitute(diff(K0p[i], ps[j]), at0))
    Minv = M.inv()
    P = list(P0)
    for _ in range(order - 1):       # each sweep gains one power of h (a fixed-Jacobian Newton step)
        at = dict(zip(ps, P))
        resid = sympy.Matrix([substitute(diff(K, pi), at) - vi for pi, vi in zip(ps, vs)])
        P = [_h_truncate(Pi - c, h, order) for Pi, c in zip(P, Minv * resid)]
    at = dict(zip(ps, P))
    if lagrangian is None:
        L = _h_truncate(sympy.Add(*[Pi * vi for Pi, vi in zip(P, vs)]) - substitute(K, at), h, order)
    else:
        L = sympy.sympify(lagrangian)

    # along the modified field (in x, p, z, t): x' = K_p, p' = -K_x - p K_z, z' = p K_p - K
    Kz = diff(K, z)
    xdot = [diff(K, pi) for pi in ps]
    pdot = [-diff(K, xi) - pi * Kz for xi, pi in zip(xs, ps)]
    zdot = sympy.Add(*[pi * xd for pi, xd in zip(ps, xdot)]) - K

    def total(f):                    # d/dt of a function of (x, p, z, t) along the field
        out = sympy.Add(*[xd * diff(f, xi) for xi, xd in zip(xs, xdot)], *[pd * diff(f, pi) for pi, pd in
                                                                          zip(ps, pdot)], zdot * diff(f, z))
        return out + (diff(f, time) if time is not None else 0)

    acc = [total(xd) for xd in xdot]
    accs = tuple(sympy.Symbol(f"{xi.name}ddot") for xi in xs)
    Lv = [diff(L, vi) for vi in vs]
    Lz = diff(L, z)
    onfield = dict(zip(vs, xdot))
    residuals = {}
    action = substitute(L, onfield) - zdot
    for j, c in enumerate(_h_taylor(action, h, order)):
        residuals[f"h^{j}: L~(x, x', z) - z'"] = c
    for i, xi in enumerate(xs):
        dLv = (sympy.Add(*[vj * diff(Lv[i], xj) for xj, vj in zip(xs, vs)])
               + sympy.Add(*[aj * diff(Lv[i], vj) for vj, aj in zip(vs, accs)])
               + zdot * diff(Lv[i], z) + (diff(Lv[i], time) if time is not None else 0))
        EL = diff(L, xi) - dLv + Lz * Lv[i]
        EL = substitute(EL, {**onfield, **dict(zip(accs, acc))})
        for j, c in enumerate(_h_taylor(EL, h, order)):
            residuals[f"h^{j}: generalized Euler-Lagrange ({xi})"] = c
    D = Derivation(r"The modified equations are variational: $\dot z = \tilde L(x, \dot x, z)$ and"
                   r" $\tilde L_x - \frac{\mathrm{d}}{\mathrm{d}t}\tilde L_{\dot x} + \tilde L_z \tilde L_{\dot x} = 0$"
                   rf" along the modified field, to $O(h^{{{order}}})$")
    D = D.add(r"For the modified contact Hamiltonian", r"\tilde K &= " + _show(K))
    D = D.add(r"the Legendre transform $\dot x = \tilde K_p$, inverted as a series in $h$, gives",
              r"\tilde L &= " + _show(L))
    D = D.concluding("The coefficients of the residuals at each power of h below the order vanish.")
    cert = _decided(f"z' = L~ and the generalized Euler-Lagrange equations of L~ hold along the modified field,"
                    f" to O(h^{order})", residuals, D, factor=L)
    return L, vs, cert


def contact_generating_lagrangian(phi: Map, coords: ContactCoordinates,
                                  h: sympy.Symbol) -> tuple[sympy.Expr, tuple[sympy.Symbol, ...], Certificate]:
    r"""The discrete Lagrangian ``L(x_j, x_{j+1}, z_j)`` that generates a contact step, certified.

    For a step ``(x, p, z) -> (X, P, Z)`` whose ``X`` can be solved for p in closed form
    (the twist condition), ``L(x, x_next, z) = (Z - z)/h`` at that p, so that
    ``z_{j+1} - z_j = h L(x_j, x_{j+1}, z_j)``.  The certificate claims that the step is the
    position-momentum map of L (slides, "Contact structure" and "All contact maps are
    variational"): ``p_j^+ = -h D1 L/(1 + h D3 L) = p`` and ``p_{j+1}^- = h D2 L = P``
    (``D4 L = 0``), so the iterates solve the discrete Herglotz principle.  It fails for a
    step that is not contact.  Parameters of the step (a time ``t_j``) stay parameters of L.

    Returns
    -------
    (L, next positions, Certificate)

    Examples
    --------
    >>> import sympy
    >>> D = darboux_coordinates(1); x, p, z = D.chart.coords; h, a = sympy.symbols("h alpha")
    >>> k = p * sympy.exp(-a * h)                         # damping, then the free flight (both exact flows)
    >>> S = Map(D.chart, D.chart, [x + h * k, k, z * sympy.exp(-a * h) + h * k**2 / 2])
    >>> L, (X,), cert = contact_generating_lagrangian(S, D, h)
    >>> cert.holds, sympy.simplify(L - (X - x)**2 / (2 * h**2) - z * (sympy.exp(-a * h) - 1) / h)
    (True, 0)
    """
    if not isinstance(coords, ContactCoordinates):
        raise ExpressionError(f"contact_generating_lagrangian expects ContactCoordinates, got {coords!r}")
    if not isinstance(phi, Map) or phi.source != coords.chart or phi.target != coords.chart:
        raise ExpressionError(f"contact_generating_lagrangian expects a Map of {coords.chart!r} to itself, got {phi!r}")
    xs, ps, z = tuple(coords.x), tuple(coords.p), coords.z
    image = dict(zip(coords.chart.coords, phi.exprs))
    nxt = tuple(sympy.Symbol(f"{xi.name}_next") for xi in xs)
    sols = sympy.solve([image[xi] - Xi for xi, Xi in zip(xs, nxt)], list(ps), dict=True)
    if len(sols) != 1 or set(sols[0]) != set(ps):
        raise ExpressionError(f"contact_generating_lagrangian: the new positions {[image[xi] for xi in xs]} cannot be"
                              f" solved for {list(ps)} in closed form (twist condition); no L(x_j, x_j+1, z_j)")
    p_of = sols[0]
    L = (substitute(image[z], p_of) - z) / h
    D1 = [diff(L, xi) for xi in xs]
    D2 = [diff(L, Xi) for Xi in nxt]
    D3 = diff(L, z)
    back = dict(zip(nxt, [image[xi] for xi in xs]))       # express everything in (x, p, z)
    residuals, rows = {}, []
    for i, (xi, pi) in enumerate(zip(xs, ps)):
        residuals[f"p_j^+ - p ({xi})"] = substitute(-h * D1[i] / (1 + h * D3), back) - pi
        residuals[f"p_(j+1)^- - P ({xi})"] = substitute(h * D2[i], back) - image[pi]
        tp = sympy.latex(pi)
        rows += [rf"p^+_{{j}} - {tp} &= " + _show(residuals[f"p_j^+ - p ({xi})"]),
                 rf"p^-_{{j+1}} - {tp}_{{j+1}} &= " + _show(residuals[f"p_(j+1)^- - P ({xi})"])]
    D = Derivation(r"A contact step is variational: its generating function is a discrete Lagrangian"
                   r" $L(x_j, x_{j+1}, z_j)$")
    D = D.add(r"Solving the new positions for the momenta and $z_{j+1} - z_j = h L$ gives",
              r"L &= " + _show(L))
    D = D.add(r"The step is the position-momentum map of $L$ when $p_j = -hD_1L/(1 + hD_3L)$ and"
              r" $p_{j+1} = hD_2L$; the residuals (in $x_j, p_j, z_j$) are", r" \\ ".join(rows))
    cert = _decided("the step is the position-momentum map of its generating Lagrangian L(x_j, x_j+1, z_j)",
                    residuals, D, factor=L)
    return L, nxt, cert
