"""Euler-Lagrange one-forms, the canonical one-form and the Lagrangian symplectic form.

Guo, Li & Wu, "A note on symplectic algorithm", Commun. Theor. Phys. 36 (2001) 11-18,
Section 2.  For a Lagrangian ``L(q, q')`` with n degrees of freedom the paper works "in the
function space": the curves q(t) are arbitrary, not solutions.  Here that space is the second jet chart
``(q, q', q'')`` with the total time derivative ``D = q' d/dq + q'' d/dq'`` standing for
d/dt, and

* the EL one-form (eq. (2))  ``E = (dL/dq^i - D(dL/dq'^i)) dq^i``,
* the canonical one-form (eq. (5))  ``theta = dL/dq'^i dq^i``,
* the symplectic form (eq. (8))  ``omega = d theta
  = d^2L/dq^j dq'^i dq^j ^ dq^i + d^2L/dq'^j dq'^i dq'^j ^ dq^i``.

The paper's two identities become certificates on that chart (no equation of motion
is used): ``dL = E + L_D theta`` (eq. (4)) and ``L_D omega = -dE`` (eqs. (6)-(7): omega is
conserved iff the EL condition dE = 0 holds).  On the solution space (q'' solved from
the EL equation) dE vanishes and omega is conserved by the Lagrangian flow; that is a
third certificate.  The Hamiltonian pair of EL one-forms (eqs. (12)-(16))
``E1 = (q' - H_p) dp``, ``E2 = -(p' + H_q) dq`` satisfies ``L_D(dz^T ^ J dz) = -2 d(E1 + E2)``
with ``J = [[0, -I], [I, 0]]`` (so that ``J z' = grad H`` is Hamilton's equation).

Checked and found to hold, no finding (see the case study ``guo-del-schemes``): the identities
of eqs. (2), (4)-(8), (12) and (15)-(16) certified here; eq. (8) agrees with d theta component
by component.  Our converted copy prints no number at
eqs. (7), (13) and (14) and ``(2)`` for eq. (3); the numbers are counted from their neighbours.

>>> import sympy, geomcheck as gc
>>> from geomcheck.structures import euler_lagrange_forms, certify_el_condition
>>> V = sympy.Function("V")
>>> q, qdot = sympy.symbols("q qdot")
>>> F = euler_lagrange_forms(qdot**2 / 2 - V(q), q, qdot)
>>> F.el_form.components
{(0,): -qddot - Derivative(V(q), q)}
>>> certify_el_condition(F).holds
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import sympy

from ..algebra import Chart
from ..calculus import diff
from ..certify.certificate import Certificate
from ..errors import ExpressionError, ShapeError
from ..fields import VectorField
from ..forms import Form, d, lie
from ..latex import Derivation, summarize
from ..maps import submanifold_parametrization, pullback

__all__ = [
    "LagrangianForms",
    "symbol_sequence",
    "HamiltonianELForms",
    "euler_lagrange_forms",
    "hamiltonian_el_forms",
    "certify_el_identity",
    "certify_el_condition",
    "certify_el_conservation",
    "certify_hamiltonian_el_condition",
]


def symbol_sequence(xs: Any, what: str) -> tuple:
    """A tuple of distinct Symbols from one Symbol or a sequence of them (``what`` names it in errors)."""
    if isinstance(xs, sympy.Symbol):
        xs = (xs,)
    try:
        xs = tuple(xs)
    except TypeError:
        raise ExpressionError(f"{what} must be a sympy Symbol or a sequence of Symbols, got {xs!r}") from None
    if not xs or any(not isinstance(x, sympy.Symbol) for x in xs):
        raise ExpressionError(f"{what} must be a nonempty sequence of sympy Symbols, got {xs!r}")
    if len(set(xs)) != len(xs):
        raise ExpressionError(f"{what} has repeated symbols: {xs!r}")
    return xs


def _derived(x: sympy.Symbol, suffix: str) -> sympy.Symbol:
    """``q1 -> qdot1`` style names (sympy typesets them as dotted symbols)."""
    head = x.name.rstrip("0123456789")
    tail = x.name[len(head):]
    if head.endswith("dot"):
        return sympy.Symbol(head[:-3] + "d" + head[-3:] + tail) if suffix == "dot" else sympy.Symbol(x.name + suffix)
    return sympy.Symbol(head + suffix + tail)


def _show(obj) -> str:
    """LaTeX of a form, field or expression; summarized when too large to be read."""
    return summarize(obj, 600)


def _check_function(f, chart: Chart, what: str):
    """The sympified function (constant parameters such as masses are allowed in it)."""
    return chart.check_expression(f, what)


def _vector(n_or_syms, default, what):
    return symbol_sequence(n_or_syms, what) if n_or_syms is not None else default


@dataclass(frozen=True)
class LagrangianForms:
    """The paper's objects for one Lagrangian on the jet chart ``(q, q', q'')``.

    Attributes
    ----------
    chart : Chart
        Coordinates ``q, qdot, qddot`` (n each).
    lagrangian : sympy.Expr
    total_derivative : VectorField
        ``D = qdot d/dq + qddot d/dqdot`` (d/dt on the function space).
    el_form, canonical_form, symplectic_form : Form
        E (eq. (2)), theta (eq. (5)), omega = d theta (eq. (8)).
    derivation : Derivation
    """

    chart: Chart
    q: tuple
    qdot: tuple
    qddot: tuple
    lagrangian: sympy.Expr
    total_derivative: VectorField
    el_form: Form
    canonical_form: Form
    symplectic_form: Form
    derivation: Derivation

    def latex(self) -> str:
        return self.derivation.latex()


def euler_lagrange_forms(L: sympy.Expr | None, q: sympy.Symbol | Sequence[sympy.Symbol],
                         qdot: sympy.Symbol | Sequence[sympy.Symbol] | None = None,
                         qddot: sympy.Symbol | Sequence[sympy.Symbol] | None = None) -> LagrangianForms:
    """E, theta and omega of a Lagrangian ``L(q, qdot)`` (Guo, Li & Wu 2001, eqs. (2), (5), (8)).

    Parameters
    ----------
    L : sympy expression in ``q`` and ``qdot``, or None
        None means a generic Lagrangian ``L(q_1..q_n, qdot_1..qdot_n)`` (an undefined function).
    q : Symbol or sequence of Symbols
        The n configuration coordinates.
    qdot, qddot : Symbol or sequence, optional
        Velocity and acceleration coordinates (default: ``qdot1``/``qddot1`` style names).

    Examples
    --------
    >>> import sympy
    >>> q, v = sympy.symbols("q qdot")
    >>> F = euler_lagrange_forms(None, q, v)          # generic L(q, qdot)
    >>> F.canonical_form.components
    {(0,): Derivative(L(q, qdot), qdot)}
    """
    q = symbol_sequence(q, "q")
    n = len(q)
    qdot = _vector(qdot, tuple(_derived(x, "dot") for x in q), "qdot")
    qddot = _vector(qddot, tuple(_derived(x, "ddot") for x in q), "qddot")
    if len(qdot) != n or len(qddot) != n:
        raise ShapeError(f"euler_lagrange_forms: {n} coordinates q but {len(qdot)} velocities and"
                         f" {len(qddot)} accelerations; expected n of each")
    chart = Chart(list(q) + list(qdot) + list(qddot))
    if L is None:
        L = sympy.Function("L")(*q, *qdot)
    L = _check_function(L, chart, "Lagrangian")
    if L.free_symbols & set(qddot):
        raise ExpressionError(f"the Lagrangian {L} depends on the accelerations {qddot}; L(q, qdot) was expected")
    D = VectorField(chart, {**dict(zip(q, qdot)), **dict(zip(qdot, qddot))})
    L_q = [diff(L, x) for x in q]
    L_v = [diff(L, v) for v in qdot]
    E = Form(chart, {(x,): L_q[i] - D(L_v[i]) for i, x in enumerate(q)})
    theta = Form(chart, {(x,): L_v[i] for i, x in enumerate(q)})
    omega = d(theta)
    Dn = Derivation(r"Euler--Lagrange one-form, canonical one-form and symplectic form (Guo, Li \& Wu 2001, Sec.~2)")
    Dn = Dn.add(r"On the function space (coordinates $q, \dot q, \ddot q$; $\frac{d}{dt}$ is the total derivative"
                r" $D = \dot q\,\partial_q + \ddot q\,\partial_{\dot q}$) the Lagrangian is",
                r"L &= " + _show(L))
    Dn = Dn.add(r"The EL one-form (eq.~2) $E = \left(\frac{\partial L}{\partial q^i} - \frac{d}{dt}"
                r"\frac{\partial L}{\partial \dot q^i}\right)\mathrm{d}q^i$ is", r"E &= " + _show(E))
    Dn = Dn.add(r"the canonical one-form (eq.~5) $\theta = \frac{\partial L}{\partial \dot q^i}\,\mathrm{d}q^i$ is",
                r"\theta &= " + _show(theta))
    Dn = Dn.add(r"and the symplectic form (eq.~8) $\omega = \mathrm{d}\theta$ is", r"\omega &= " + _show(omega))
    Dn = Dn.add(r"Since $\mathrm{d}L = E + \frac{d}{dt}\theta$ (eq.~4) and $\mathrm{d}^2 = 0$, "
                r"$\frac{d}{dt}\omega = -\mathrm{d}E$: $\omega$ is conserved iff $\mathrm{d}E = 0$ (eqs.~6--7).")
    return LagrangianForms(chart, q, qdot, qddot, L, D, E, theta, omega, Dn)


def _identity_certificate(claim, residual: Form, D: Derivation, what: str) -> Certificate:
    decision = residual.zero_decision()
    D = D.add(r"The residual, which must vanish identically on the function space, is",
              r"R &= " + _show(residual))
    return Certificate.from_decision(claim, decision, method=decision.method + f" ({what})", residual=residual,
                                     derivation=D)


def _require(F, cls, who):
    if not isinstance(F, cls):
        raise ExpressionError(f"{who} expects the {cls.__name__} of euler_lagrange_forms/hamiltonian_el_forms,"
                              f" got {type(F).__name__}")


def certify_el_identity(F: LagrangianForms) -> Certificate:
    """Certify ``dL = E + (d/dt) theta`` (eq. (4)) on the whole function space.

    Examples
    --------
    >>> import sympy
    >>> q1, q2 = sympy.symbols("q1 q2")
    >>> certify_el_identity(euler_lagrange_forms(None, [q1, q2])).holds
    True
    """
    _require(F, LagrangianForms, "certify_el_identity")
    dL = d(Form.function(F.chart, F.lagrangian))
    dtheta_dt = lie(F.total_derivative, F.canonical_form)
    D = Derivation(r"$\mathrm{d}L = E + \frac{d}{dt}\theta$ (eq.~4) on the function space")
    D = D.add(r"With $\frac{d}{dt}\theta = L_D\theta$,", r"L_D\theta &= " + _show(dtheta_dt))
    return _identity_certificate("dL == E + d/dt theta", dL - F.el_form - dtheta_dt, D,
                                 "identity on the jet chart, no equation of motion used")


def certify_el_condition(F: LagrangianForms) -> Certificate:
    """Certify ``(d/dt) omega = -dE`` (eqs. (6)-(7)): omega is conserved iff E is closed.

    The identity holds for every curve q(t) (on the jet chart), not only for solutions.
    """
    _require(F, LagrangianForms, "certify_el_condition")
    domega_dt = lie(F.total_derivative, F.symplectic_form)
    dE = d(F.el_form)
    D = Derivation(r"$\frac{d}{dt}\omega = -\mathrm{d}E$ (eqs.~6--7): $\omega$ is conserved iff $\mathrm{d}E = 0$")
    D = D.add(r"The EL condition form is", r"\mathrm{d}E &= " + _show(dE))
    D = D.add(r"and the time derivative of the symplectic form is", r"L_D\omega &= " + _show(domega_dt))
    return _identity_certificate("d/dt omega == -dE", domega_dt + dE, D,
                                 "identity on the jet chart, no equation of motion used")


def certify_el_conservation(F: LagrangianForms) -> Certificate:
    """Certify that the Lagrangian flow conserves omega on the solution space of E = 0.

    The EL equations (linear in the accelerations) are solved for ``qddot``; the EL
    one-form then restricts to zero, so dE = 0 there and ``L_X omega = 0`` for the
    Lagrangian vector field ``X = qdot d/dq + qddot(q, qdot) d/dqdot`` on TM.  The
    Hessian ``d^2L/dqdot^2`` must be invertible (a regular Lagrangian).

    Examples
    --------
    >>> import sympy
    >>> q, v = sympy.symbols("q qdot")
    >>> V = sympy.Function("V")
    >>> certify_el_conservation(euler_lagrange_forms(v**2/2 - V(q), q, v)).holds
    True
    """
    _require(F, LagrangianForms, "certify_el_conservation")
    eqs = [F.el_form.coefficient(x) for x in F.q]
    # constants of L (masses, a field strength b) are parameters, whatever other charts exist
    constants = sorted(set().union(*(e.free_symbols for e in eqs)) - F.chart.coordinate_set, key=str)
    S, param = submanifold_parametrization(F.chart, eqs, solve_for=list(F.qddot), parameters=constants)
    accel = dict(zip(F.chart.coords, param.exprs))
    X = VectorField(S, {**dict(zip(F.q, F.qdot)), **{v: accel[a] for v, a in zip(F.qdot, F.qddot)}})
    omega = pullback(F.symplectic_form, param)
    E_on_solutions = pullback(F.el_form, param)
    residual = lie(X, omega)
    D = Derivation(r"On the solution space $E = 0$ the Lagrangian flow conserves $\omega$")
    D = D.add(r"Solving the EL equations for the accelerations gives the Lagrangian vector field",
              r"X &= " + _show(X))
    D = D.add(r"on which $E$ restricts to", r"E|_{E=0} &= " + _show(E_on_solutions))
    D = D.add(r"so the EL condition $\mathrm{d}E = 0$ holds there, and", r"\omega &= " + _show(omega))
    return _identity_certificate("L_X omega == 0 on solutions", residual, D, "on the solution space")


@dataclass(frozen=True)
class HamiltonianELForms:
    """The pair of EL one-forms of Hamilton's equations (eqs. (12)-(16)) on the chart ``(q, p, qdot, pdot)``."""

    chart: Chart
    q: tuple
    p: tuple
    hamiltonian: sympy.Expr
    total_derivative: VectorField
    E1: Form
    E2: Form
    two_form: Form            # dz^T ^ J dz = 2 sum dp ^ dq
    derivation: Derivation

    def latex(self) -> str:
        return self.derivation.latex()


def hamiltonian_el_forms(H: sympy.Expr | None, q: sympy.Symbol | Sequence[sympy.Symbol],
                         p: sympy.Symbol | Sequence[sympy.Symbol]) -> HamiltonianELForms:
    """``E1 = (qdot - H_p) dp``, ``E2 = -(pdot + H_q) dq`` and ``w = dz^T ^ J dz`` (eqs. (12)-(15)).

    Examples
    --------
    >>> import sympy
    >>> q, p = sympy.symbols("q p")
    >>> F = hamiltonian_el_forms(None, q, p)
    >>> F.two_form.components
    {(0, 1): -2}
    """
    q, p = symbol_sequence(q, "q"), symbol_sequence(p, "p")
    if len(q) != len(p):
        raise ShapeError(f"hamiltonian_el_forms: {len(q)} coordinates q but {len(p)} momenta p; expected as many")
    qd = tuple(_derived(x, "dot") for x in q)
    pd = tuple(_derived(x, "dot") for x in p)
    chart = Chart(list(q) + list(p) + list(qd) + list(pd))
    if H is None:
        H = sympy.Function("H")(*q, *p)
    H = _check_function(H, chart, "Hamiltonian")
    if H.free_symbols & (set(qd) | set(pd)):
        raise ExpressionError(f"the Hamiltonian {H} depends on velocities; H(q, p) was expected")
    D = VectorField(chart, {**dict(zip(q, qd)), **dict(zip(p, pd))})
    E1 = Form(chart, {(y,): qd[i] - diff(H, y) for i, y in enumerate(p)})
    E2 = Form(chart, {(x,): -(pd[i] + diff(H, x)) for i, x in enumerate(q)})
    # dz^T ^ J dz with J = [[0, -I], [I, 0]]: -dq ^ dp + dp ^ dq
    w = Form(chart, {(y, x): 2 for x, y in zip(q, p)})
    Dn = Derivation(r"The pair of EL one-forms of Hamilton's equations (Guo, Li \& Wu 2001, eqs.~12--16)")
    Dn = Dn.add(r"With $J = \begin{pmatrix} 0 & -I \\ I & 0\end{pmatrix}$, $J\dot z = \nabla_z H$ is Hamilton's"
                r" equation and the EL one-form $E = \mathrm{d}z^T(J\dot z - \nabla_z H) = E_1 + E_2$ has",
                r"E_1 &= " + _show(E1) + r"\\ E_2 &= " + _show(E2))
    Dn = Dn.add(r"The symplectic form is", r"\mathrm{d}z^T\wedge J\,\mathrm{d}z &= " + _show(w))
    return HamiltonianELForms(chart, q, p, H, D, E1, E2, w, Dn)


def certify_hamiltonian_el_condition(F: HamiltonianELForms) -> Certificate:
    """Certify ``(d/dt)(dz^T ^ J dz) = -2 dE`` (eqs. (15)-(16)) on the function space.

    Examples
    --------
    >>> import sympy
    >>> q1, q2, p1, p2 = sympy.symbols("q1 q2 p1 p2")
    >>> certify_hamiltonian_el_condition(hamiltonian_el_forms(None, [q1, q2], [p1, p2])).holds
    True
    """
    _require(F, HamiltonianELForms, "certify_hamiltonian_el_condition")
    dw = lie(F.total_derivative, F.two_form)
    dE = d(F.E1 + F.E2)
    D = F.derivation.add(r"Taking $d$ of $E$ gives", r"\mathrm{d}E &= " + _show(dE))
    D = D.add(r"and the time derivative of the symplectic form is",
              r"\frac{d}{dt}\left(\mathrm{d}z^T\wedge J\,\mathrm{d}z\right) &= " + _show(dw))
    D = D.add(r"so $\frac{d}{dt}(\mathrm{d}z^T\wedge J\,\mathrm{d}z) = -2\,\mathrm{d}E$: the symplectic structure"
              r" is preserved iff the EL condition $\mathrm{d}E = 0$ holds.")
    return _identity_certificate("d/dt (dz^T ^ J dz) == -2 dE", dw + 2 * dE, D,
                                 "identity on the function space, no equation of motion used")
