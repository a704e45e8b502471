"""Discrete Euler-Lagrange (DEL) one-forms and the two-forms that schemes preserve.

Guo, Li & Wu, "A note on symplectic algorithm", Commun. Theor. Phys. 36 (2001) 11-18, Sections 3-5.  "Function space"
means: the values at the lattice points are independent coordinates, no scheme
equation is imposed; every identity below is certified there, and the scheme's
equations are the null DEL one-form.

Discrete Lagrangians (Section 3)
    The action is the lattice sum ``S = sum_k L_d(q_k, q_{k+1})``; on the chart
    ``(q_{k-1}, q_k, q_{k+1})`` (n coordinates each)

    * DEL one-form (eq. (21))  ``E^(k) = [D1 L_d(q_k, q_{k+1}) + D2 L_d(q_{k-1}, q_k)] dq_k``,
    * canonical one-form (eq. (23))  ``theta^(k) = h D2 L_d(q_{k-1}, q_k) dq_k``,
    * symplectic form (eq. (24))  ``omega^(k) = d theta^(k)``,

    with ``Delta_t X^(k) = (X^(k+1) - X^(k))/h``.  The paper writes ``L_D(q, q_t)`` with the
    forward difference ``q_t = (q_{k+1} - q_k)/h``; ``difference=True`` reads a Lagrangian
    that way (``L_d(x, y) = L_D(x, (y - x)/h)``, the same function).  Certified:
    ``dL^(k) = E^(k) + Delta_t theta^(k)`` (eq. (22)) and ``Delta_t omega^(k) = -dE^(k)``
    (eqs. (26)-(27): omega is preserved iff the DEL condition dE = 0 holds), both on function
    space; and, on the solution space, that the DEL map ``(q_{k-1}, q_k) -> (q_k, q_{k+1})``
    defined by ``E^(k) = 0`` preserves omega (a pullback certificate).

Hamiltonian schemes (Section 4, 5)
    For a Runge-Kutta scheme ``Z = z + h sum_i b_i K_i``, ``Y_i = z + h sum_j a_ij K_j``,
    ``K_i = J^{-1} grad H(Y_i)`` (``J = [[0, -I], [I, 0]]``), with residuals
    ``r = (r_q, r_p)`` of the step and ``s_i`` of the stages, the pair of DEL one-forms is

    ``E(q) = (d pbar)^T r_q``,  ``E(p) = -(d qbar)^T r_p``,  ``zbar = (z + Z)/2``,

    plus a stage one-form ``S = (h/2) sum_i b_i [(r - 2 s_i)_q . d(K_i)_p - (r - 2 s_i)_p . d(K_i)_q]``.
    For ANY stage values (free coordinates, or expressions in z, Z) one has the identity

    ``d(E(q) + E(p) + S) = Omega(Z) - Omega(z) - h^2 sum_ij M_ij Omega(K_i, K_j)``,

    ``M_ij = b_i b_j - b_i a_ij - b_j a_ji``, ``Omega(a, b) = (da_q ^ db_p + db_q ^ da_p)/2``,
    ``Omega(z) = sum dq ^ dp``.  Hence:

    * midpoint rule (eqs. (40)-(47)): one stage ``Y = zbar`` (eliminated), S = 0, M = 0:
      ``d(E(q) + E(p)) = Omega(Z) - Omega(z)``; ``(E(q) + E(p))/h`` is eq. (47)'s one-form;
    * Feng Kang's fourth-order scheme (eqs. (48)-(52)) is the midpoint rule for
      ``Htilde = H - h^2/24 (grad H)^T J H_zz J grad H`` (eq. (49)); its DEL one-form differs
      from the midpoint one by the exact form ``h^3/24 d(alpha(zbar))`` (eq. (52) with eq. (47)'s
      normalization 1/h), so it preserves the same form; it has order 4 (certified);
    * two-stage Gauss (eqs. (53)-(58)): free stages, M = 0: preserves ``sum dq ^ dp``;
    * trapezoidal rule (eqs. (59)-(73)): stages ``Y_1 = z``, ``Y_2 = Z``, ``M = diag(1/4, -1/4)``:
      ``dE = w_h(Z) - w_h(z)`` with ``w_h = Omega + h^2/4 Omega(K, K) = chi_h^* Omega``,
      ``chi_h = id + (h/2) J^{-1} grad H`` (eqs. (72)-(73)); for ``H = p^2/2 + V(q)``,
      ``w_h = (1 + h^2/4 V''(q)) dq ^ dp``.  The rule does NOT preserve ``dq ^ dp``.

    Each scheme is also given as a one-step map (an :class:`~geomcheck.ImplicitMap`) and
    certified by pullback (``gc.certify_symplectic`` / ``gc.certify_preserves``).

What we say about the paper (the case study ``guo-del-schemes`` lists these as findings)
    Our copy of the paper is a converted (OCR) text; several displays are garbled there.  Where
    a formula can be read it was checked; none of the following is an error of the authors:

    * [damage] eq. (39): as read in our copy, ``dp^(n+1) ^ dq^(n+1) = (1 + h^2/4 V_qq)
      dq^(n+1) ^ dq^(n)`` lacks the factor 1/h that the scheme (32) gives
      (``test_eq39_needs_the_factor_one_over_h``); the display is too garbled in our copy to
      tell whether the printed paper has it.
    * [convention] eq. (41): read with differentials at t_n and a + sign (as in our copy; eqs.
      (56), (61), (69) read alike), ``d(E1 + E2)`` is not ``Omega(Z) - Omega(z)`` on the function
      space (``test_pair_41_as_read_with_differentials_at_tn_is_no_identity``); with the mid-point
      differentials of eq. (47) and the sign of eq. (12) (``E_2 = -(pdot + H_q) dq``) it is an
      identity, and that is the pair built here.  The paper claims the function-space identity
      only for eq. (47), which holds.
    * [critique] eq. (56): the two-stage Gauss pair alone is not closed correctly on the
      function space with free stages (``test_gauss_pair_without_stage_form_is_not_closed_correctly``):
      the stage one-form S is needed (or stages written about the mid-point); eq. (58) holds.

    The sign of the h^3/24 term of eq. (48) is right as printed: it is the mid-point rule for
    eq. (49)'s Htilde and has order 4, while the other sign gives order 2 only
    (``test_feng_kang_sign_of_the_correction``).

    Checked and found to hold: eqs. (35), (36), (38) (the mid-point DEL form of
    ``L_D = q_t^2/2 - V(q + h q_t/2)``, up to the factor -h^2), (28)-(30), (31) (the
    backward-difference Lagrangian ``L_d(x, y) = L_D(y, (y - x)/h)``: DEL identity, DEL condition
    and the pullback certificate, in the case study), (45) (one degree of freedom; the order of
    the matrix factors for n > 1 is not readable), (47), (49), (52) (with eq. (47)'s normalization),
    (65) and (67) (the paper's ``dp ^ (1 + h^2/4 V_qq) dq`` is ``-(1 + h^2/4 V_qq) dq ^ dp``:
    the same preserved form up to orientation), (71) for one degree of freedom
    (``1 + h^2/4 (H_pp H_qq - H_pq^2)``), (72)-(73) (``w_h = chi_h^* (dq ^ dp)``).
    Not checked (unreadable in our copy): eqs. (37), (42)-(44), (62)-(63), and the coefficients
    of eq. (55) (the two-stage Gauss tableau is taken from
    :func:`geomcheck.certify.families.gauss_legendre` instead).

Timings (this machine): the DEL identities take well under a second each, generic H; the
pullback certificates of the implicit maps (generic H, one degree of freedom) 4-5 s each;
Feng Kang's order 4 for a generic H 10 s (for a cubic non-separable H 1.3 s), and the
refutation of order 5 for ``p^2/2 + q^4/4`` 0.2 s.

>>> import sympy, geomcheck as gc
>>> from geomcheck.structures import discrete_lagrangian_forms, certify_del_condition
>>> V = sympy.Function("V"); h = sympy.Symbol("h")
>>> F = discrete_lagrangian_forms(lambda x, v: v**2 / 2 - V(x), step=h, difference=True)   # eqs. (28)-(30)
>>> F.symplectic_form.components
{(0, 1): -1/h}
>>> certify_del_condition(F).holds
True
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from dataclasses import dataclass

import sympy
from sympy.core.function import UndefinedFunction

from ..algebra import Chart
from ..calculus import diff
from ..certify.certificate import Certificate
from ..certify.maps import certify_preserves
from ..errors import ArityError, ExpressionError, ShapeError
from ..forms import Form, d
from ..latex import Derivation, expression_size, latex
from ..maps import ImplicitMap, Map, pullback, substitute
from ..latex import summarize

if TYPE_CHECKING:
    from ..certify.tableaux import ButcherTableau

__all__ = [
    "DELForms",
    "discrete_lagrangian_forms",
    "certify_del_identity",
    "certify_del_condition",
    "del_map",
    "certify_del_symplectic",
    "SchemeDEL",
    "runge_kutta_map",
    "midpoint_map",
    "feng_kang_map",
    "feng_kang_hamiltonian",
    "gauss2_map",
    "trapezoidal_map",
    "trapezoidal_conjugacy",
    "trapezoidal_two_form",
    "runge_kutta_del",
    "midpoint_del",
    "feng_kang_del",
    "gauss2_del",
    "trapezoidal_del",
    "certify_scheme_del",
    "certify_scheme_map",
    "certify_feng_kang_coboundary",
]

_SHOW_OPS = 150


def _show(obj) -> str:
    """LaTeX of a form or expression; summarized when too large to be read."""
    return summarize(obj)


def _show_map(phi) -> str:
    """The implicit map's equations, or a summary when they are too large to be read."""
    limit = 4 * _SHOW_OPS
    if expression_size(phi.equations, limit) > limit:
        return r"\text{(%d implicit equations, more than %d nodes)}" % (len(phi.equations), limit)
    return latex(phi)


def _identity(claim, residual: Form, D: Derivation, where: str) -> Certificate:
    decision = residual.zero_decision()
    D = D.add(r"The residual, which must vanish " + where + ", is", r"R &= " + _show(residual))
    return Certificate.from_decision(claim, decision, method=f"{decision.method} ({where})", residual=residual,
                                     derivation=D)


# =========================================================================== discrete Lagrangians


def _lattice_symbols(name: str, n: int, label: str) -> tuple:
    if n == 1:
        return (sympy.Symbol(f"{name}^{{({label})}}"),)
    return tuple(sympy.Symbol(f"{name}_{{{i}}}^{{({label})}}") for i in range(1, n + 1))


def _arity_error(L_d, got, n):
    flat = f" or {2 * n} scalar arguments" if n > 1 else ""
    return ArityError(
        f"a discrete Lagrangian L_d(q_k, q_(k+1)) takes 2 arguments (the two lattice values){flat};"
        f" {L_d!r} takes {got}"
    )


def _apply(L_d, x: tuple, y: tuple, n: int):
    """``L_d(x, y)`` for a callable, a sympy Lambda or an undefined function (arity checked)."""
    if isinstance(L_d, UndefinedFunction):
        nargs = L_d.nargs
        if isinstance(nargs, sympy.FiniteSet) and 2 * n not in nargs:
            raise _arity_error(L_d, f"{sorted(nargs)} arguments", n)
        return L_d(*x, *y)
    if isinstance(L_d, sympy.Lambda):
        k = len(L_d.variables)
        if k == 2 * n:
            return L_d(*x, *y)
        raise _arity_error(L_d, f"{k} arguments", n)
    if isinstance(L_d, sympy.Basic) or not callable(L_d):
        raise ExpressionError(
            f"a discrete Lagrangian must be a callable L_d(q_k, q_(k+1)), a sympy Lambda or an undefined"
            f" sympy Function (or None for a generic one), got {type(L_d).__name__} {L_d!r}"
        )
    try:
        params = inspect.signature(L_d).parameters.values()
    except (TypeError, ValueError):
        params = None
    if params is not None:
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        required = [p for p in positional if p.default is p.empty]
        varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
        if not varargs and not (len(required) <= 2 <= len(positional)):
            if n > 1 and len(required) <= 2 * n <= len(positional):
                return L_d(*x, *y)
            raise _arity_error(L_d, f"{len(required)} required positional arguments", n)
    if n == 1:
        return L_d(x[0], y[0])
    return L_d(sympy.Matrix(x), sympy.Matrix(y))


@dataclass(frozen=True)
class DELForms:
    """The DEL one-form of a discrete Lagrangian and the forms derived from it (eqs. (21)-(27)).

    All forms live on ``chart = (q_{k-1}, q_k, q_{k+1})``; ``step`` is h (1 when not given).
    ``lagrangian`` is ``L^(k) = L_d(q_k, q_{k+1})`` and ``lagrangian_before`` ``L^(k-1)``;
    ``canonical_form``/``symplectic_form`` are theta^(k), omega^(k) (in q_{k-1}, q_k) and the
    ``_next`` ones theta^(k+1), omega^(k+1) (in q_k, q_{k+1}).
    """

    chart: Chart
    previous: tuple
    current: tuple
    next: tuple
    step: sympy.Expr
    lagrangian: sympy.Expr
    lagrangian_before: sympy.Expr
    del_form: Form
    canonical_form: Form
    canonical_form_next: Form
    symplectic_form: Form
    symplectic_form_next: Form
    derivation: Derivation

    def latex(self) -> str:
        return self.derivation.latex()


def discrete_lagrangian_forms(L_d: Callable[..., sympy.Expr] | None = None, n: int = 1, *,
                              step: sympy.Expr | None = None, difference: bool = False, name: str = "q") -> DELForms:
    """The DEL one-form, canonical one-form and symplectic form of a discrete Lagrangian.

    Parameters
    ----------
    L_d : callable, sympy Lambda, undefined sympy Function, or None
        ``L_d(q_k, q_{k+1})`` (each argument a Symbol for n = 1, an n x 1 Matrix otherwise;
        a sympy Lambda or undefined Function takes the 2n scalars).  None: a generic
        ``L_d`` (an undefined function).  With ``difference=True`` it is the paper's
        ``L_D(q^(k), q_t^(k))`` and ``step`` is required.
    n : int
        Degrees of freedom.
    step : sympy expression, optional
        The time step h (default 1).
    name : str
        Base name of the lattice coordinates (``q^{(k-1)}``, ``q_{1}^{(k)}``, ...).

    Raises
    ------
    ArityError
        ``L_d`` does not take two lattice values.

    Examples
    --------
    >>> F = discrete_lagrangian_forms()                        # generic L_d, one degree of freedom
    >>> certify_del_identity(F).holds, certify_del_condition(F).holds
    (True, True)
    >>> discrete_lagrangian_forms(lambda x, y, z: x * y * z)
    Traceback (most recent call last):
    ...
    geomcheck.errors.ArityError: a discrete Lagrangian L_d(q_k, q_(k+1)) takes 2 arguments (the two lattice values); <function <lambda> at ...> takes 3 required positional arguments
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ShapeError(f"discrete_lagrangian_forms: the number of degrees of freedom must be a positive integer, got {n!r}")
    if difference and step is None:
        raise ExpressionError("discrete_lagrangian_forms(difference=True) reads L_D(q, q_t) with q_t = (q_(k+1) - q_k)/h: pass step=h")
    h = sympy.S.One if step is None else sympy.sympify(step)
    prev, now, nxt = (_lattice_symbols(name, n, lab) for lab in ("k-1", "k", "k+1"))
    chart = Chart(list(prev) + list(now) + list(nxt))
    if L_d is None:
        L_d = sympy.Function("L_d")
    if difference:
        L_D = L_d

        def evaluate(x, y):
            return _apply(L_D, x, tuple((yi - xi) / h for xi, yi in zip(x, y)), n)
    else:
        def evaluate(x, y):
            return _apply(L_d, x, y, n)
    Lk = chart.check_expression(evaluate(now, nxt), "discrete Lagrangian L_d(q_k, q_(k+1))")
    Lkm1 = chart.check_expression(evaluate(prev, now), "discrete Lagrangian L_d(q_(k-1), q_k)")
    E = Form(chart, {(x,): diff(Lk, x) + diff(Lkm1, x) for x in now})
    theta = Form(chart, {(x,): h * diff(Lkm1, x) for x in now})
    theta_next = Form(chart, {(y,): h * diff(Lk, y) for y in nxt})
    omega, omega_next = d(theta), d(theta_next)
    paper = r"L_D^{(k)}\left(q^{(k)}, q_t^{(k)}\right)" if difference else r"L_d\left(q^{(k)}, q^{(k+1)}\right)"
    D = Derivation(r"DEL one-form and discrete symplectic form (Guo, Li \& Wu 2001, Sec.~3)")
    D = D.add(r"On the function space $\left(q^{(k-1)}, q^{(k)}, q^{(k+1)}\right)$ the discrete Lagrangian is",
              r"L^{(k)} = " + paper + r" &= " + _show(Lk))
    D = D.add(r"The DEL one-form (eq.~21) $E^{(k)} = \left(\frac{\partial L^{(k)}}{\partial q^{(k)}} + "
              r"\frac{\partial L^{(k-1)}}{\partial q^{(k)}}\right)\mathrm{d}q^{(k)}$ is", r"E^{(k)} &= " + _show(E))
    D = D.add(r"The discrete canonical one-form (eq.~23) is",
              r"\theta^{(k)} &= " + _show(theta) + r"\\ \theta^{(k+1)} &= " + _show(theta_next))
    D = D.add(r"so that $\mathrm{d}L^{(k)} = E^{(k)} + \Delta_t\theta^{(k)}$ (eq.~22) with "
              r"$\Delta_t X^{(k)} = (X^{(k+1)} - X^{(k)})/h$"
              + ("." if h == sympy.Symbol("h") else r", $h = " + latex(h) + "$."))
    D = D.add(r"The discrete symplectic form (eq.~24) $\omega^{(k)} = \mathrm{d}\theta^{(k)}$ is",
              r"\omega^{(k)} &= " + _show(omega) + r"\\ \omega^{(k+1)} &= " + _show(omega_next))
    D = D.add(r"Since $\mathrm{d}^2 L^{(k)} = 0$, $\Delta_t\omega^{(k)} = -\mathrm{d}E^{(k)}$ on the function space:"
              r" the discrete symplectic form is preserved iff the DEL condition $\mathrm{d}E^{(k)} = 0$ (eqs.~26--27)"
              r" holds, and it holds on the solution space $E^{(k)} = 0$.")
    return DELForms(chart, prev, now, nxt, h, Lk, Lkm1, E, theta, theta_next, omega, omega_next, D)


def _require_del(F, who):
    if not isinstance(F, DELForms):
        raise ExpressionError(f"{who} expects the DELForms of discrete_lagrangian_forms(...), got {type(F).__name__}")


def certify_del_identity(F: DELForms) -> Certificate:
    """Certify ``dL^(k) = E^(k) + Delta_t theta^(k)`` (eq. (22)) on the function space."""
    _require_del(F, "certify_del_identity")
    dL = d(Form.function(F.chart, F.lagrangian))
    residual = dL - F.del_form - (F.canonical_form_next - F.canonical_form) / F.step
    D = F.derivation.add(r"Check of eq.~22:", r"\mathrm{d}L^{(k)} &= " + _show(dL))
    return _identity("dL^(k) == E^(k) + Delta_t theta^(k)", residual, D, "identically on the function space")


def certify_del_condition(F: DELForms) -> Certificate:
    """Certify ``Delta_t omega^(k) = -dE^(k)`` (eqs. (26)-(27)) on the function space.

    So omega^(k+1) = omega^(k) exactly where the DEL condition dE^(k) = 0 holds.
    """
    _require_del(F, "certify_del_condition")
    dE = d(F.del_form)
    residual = (F.symplectic_form_next - F.symplectic_form) / F.step + dE
    D = F.derivation.add(r"The DEL condition form is", r"\mathrm{d}E^{(k)} &= " + _show(dE))
    return _identity("Delta_t omega^(k) == -dE^(k)", residual, D, "identically on the function space")


def del_map(F: DELForms, guess: Mapping[sympy.Symbol, sympy.Expr | float] | None = None) -> ImplicitMap:
    """The DEL map ``(q_{k-1}, q_k) -> (q_k, q_{k+1})`` defined by ``E^(k) = 0``.

    ``guess`` maps each ``q_{k+1}`` symbol to a starting value (default ``2 q_k - q_{k-1}``).
    """
    _require_del(F, "del_map")
    two = Chart(list(F.previous) + list(F.current))
    copies = tuple(sympy.Symbol("{" + x.name + "}'") for x in F.current)   # braces: one superscript
    eqs = [c - x for c, x in zip(copies, F.current)] + [F.del_form.coefficient(x) for x in F.current]
    start = {c: x for c, x in zip(copies, F.current)}
    start.update({y: 2 * x - w for y, x, w in zip(F.next, F.current, F.previous)})
    start.update(guess or {})
    return ImplicitMap(two, two, eqs, new=list(copies) + list(F.next), guess=start)


def certify_del_symplectic(F: DELForms, guess: Mapping[sympy.Symbol, sympy.Expr | float] | None = None) -> Certificate:
    """Certify that the DEL map preserves omega (pullback, on the solution space of E = 0).

    The claim is preservation (``phi^* omega == omega``, :func:`geomcheck.certify_preserves`):
    for a generic discrete Lagrangian omega^(k) = D12 L_d dq^(k-1) ^ dq^(k) is degenerate
    where D12 L_d vanishes, so "symplectic" would need a regular L_d as well.

    Examples
    --------
    >>> import sympy
    >>> h = sympy.Symbol("h")
    >>> F = discrete_lagrangian_forms(lambda x, v: v**2 / 2 - sympy.cos(x), step=h, difference=True)
    >>> certify_del_symplectic(F).holds
    True
    """
    _require_del(F, "certify_del_symplectic")
    phi = del_map(F, guess)
    omega = Form(phi.source, {tuple(F.chart.coords[i] for i in key): v for key, v in F.symplectic_form.terms.items()})
    c = certify_preserves(phi, omega)
    D = F.derivation.add(r"On the solution space the DEL map $\left(q^{(k-1)}, q^{(k)}\right) \mapsto"
                         r" \left(q^{(k)}, q^{(k+1)}\right)$ is defined by $E^{(k)} = 0$; pulling $\omega$ back by it:")
    D = Derivation(D.title, D.steps + c.derivation.steps, D.conclusion)
    return Certificate(claim="DEL map preserves omega^(k)", holds=c.holds, method=c.method, stage=c.stage,
                       residual=c.residual, counterexample=c.counterexample, derivation=D, soundness=c.soundness)


# =========================================================================== Hamiltonian schemes


def _phase(H, q, p):
    """Validated (H, q, p, chart) with q, p tuples of Symbols of the same length."""
    def syms(xs, what):
        if isinstance(xs, sympy.Symbol):
            xs = (xs,)
        try:
            xs = tuple(xs)
        except TypeError:
            raise ExpressionError(f"{what} must be a Symbol or a sequence of Symbols, got {xs!r}") from None
        if not xs or any(not isinstance(x, sympy.Symbol) for x in xs):
            raise ExpressionError(f"{what} must be a nonempty sequence of sympy Symbols, got {xs!r}")
        return xs

    q, p = syms(q, "q"), syms(p, "p")
    if len(q) != len(p):
        raise ShapeError(f"{len(q)} coordinates q but {len(p)} momenta p; expected as many")
    chart = Chart(list(q) + list(p))
    if H is None:
        H = sympy.Function("H")(*q, *p)
    H = chart.check_expression(H, "Hamiltonian")
    return H, q, p, chart


def _step_symbol(h):
    if not isinstance(h, sympy.Symbol):
        raise ExpressionError(f"the step must be a sympy Symbol, got {h!r}")
    return h


def _fresh(base: sympy.Symbol, label: str, taken: set) -> sympy.Symbol:
    s = sympy.Symbol(f"{latex(base)}^{{({label})}}")
    while s in taken:
        s = sympy.Symbol("{" + s.name + "}'")
    taken.add(s)
    return s


def _stage_symbol(x: sympy.Symbol, i: int, taken: set) -> sympy.Symbol:
    """The paper's stage names: q -> Q_{i}, q1 -> Q_{1,i}."""
    head = x.name.rstrip("0123456789")
    tail = x.name[len(head):]
    s = sympy.Symbol(f"{head.upper()}_{{{tail + ',' if tail else ''}{i}}}")
    while s in taken:
        s = sympy.Symbol("{" + s.name + "}'")
    taken.add(s)
    return s


def _stage_symbols(q, p, s, taken):
    return [(tuple(_stage_symbol(x, i, taken) for x in q), tuple(_stage_symbol(y, i, taken) for y in p))
            for i in range(1, s + 1)]


def _grad_at(H, q, p, at_q, at_p):
    """``(H_q, H_p)`` evaluated at (at_q, at_p) (derivatives of undefined H stay exact)."""
    where = {**dict(zip(q, at_q)), **dict(zip(p, at_p))}
    return ([substitute(diff(H, x), where) for x in q], [substitute(diff(H, y), where) for y in p])


def _tableau(tableau):
    A = getattr(tableau, "A", None)
    b = getattr(tableau, "b", None)
    if A is None or b is None:
        try:
            A, b = tableau
        except (TypeError, ValueError):
            raise ExpressionError(f"expected a ButcherTableau or a pair (A, b), got {tableau!r}") from None
    A = [[sympy.sympify(a) for a in row] for row in A]
    b = [sympy.sympify(x) for x in b]
    if len(A) != len(b) or any(len(row) != len(b) for row in A):
        raise ShapeError(f"a Runge-Kutta tableau needs an s x s matrix A and s weights b; got {A} and {b}")
    return A, b


def _rk_equations(H, q, p, h, A, b, Z, stages):
    """Residuals r (step) and s_i (stages) and slopes K_i = (H_p, -H_q)(Y_i)."""
    Q, P = Z
    K = []
    for Yq, Yp in stages:
        Hq, Hp = _grad_at(H, q, p, Yq, Yp)
        K.append((Hp, [-v for v in Hq]))
    n, s = len(q), len(b)
    r_q = [Q[j] - q[j] - h * sum((b[i] * K[i][0][j] for i in range(s)), sympy.S.Zero) for j in range(n)]
    r_p = [P[j] - p[j] - h * sum((b[i] * K[i][1][j] for i in range(s)), sympy.S.Zero) for j in range(n)]
    s_res = []
    for i, (Yq, Yp) in enumerate(stages):
        sq = [Yq[j] - q[j] - h * sum((A[i][l] * K[l][0][j] for l in range(s)), sympy.S.Zero) for j in range(n)]
        sp_ = [Yp[j] - p[j] - h * sum((A[i][l] * K[l][1][j] for l in range(s)), sympy.S.Zero) for j in range(n)]
        s_res.append((sq, sp_))
    return (r_q, r_p), s_res, K


def runge_kutta_map(tableau: ButcherTableau | tuple[Sequence[Sequence[Any]], Sequence[Any]], H: sympy.Expr | None,
                    q: sympy.Symbol | Iterable[sympy.Symbol], p: sympy.Symbol | Iterable[sympy.Symbol],
                    h: sympy.Symbol) -> ImplicitMap:
    """The one-step map of a Runge-Kutta method for ``q' = H_p, p' = -H_q`` (stage values auxiliary).

    Parameters
    ----------
    tableau : ButcherTableau or (A, b)
    H : sympy expression in q, p, or None for a generic H(q, p)
    q, p : Symbol or sequences of Symbols (n each)
    h : Symbol, the step
    """
    A, b = _tableau(tableau)
    H, q, p, chart = _phase(H, q, p)
    h = _step_symbol(h)
    taken = set(chart.coords)
    Q = tuple(_fresh(x, "n+1", taken) for x in q)
    P = tuple(_fresh(y, "n+1", taken) for y in p)
    stages = _stage_symbols(q, p, len(b), taken)
    (r_q, r_p), s_res, _ = _rk_equations(H, q, p, h, A, b, (Q, P), stages)
    eqs = r_q + r_p + [e for sq, sp_ in s_res for e in sq + sp_]
    aux = [u for Yq, Yp in stages for u in Yq + Yp]
    guess = {**dict(zip(Q + P, q + p))}
    for Yq, Yp in stages:
        guess.update(dict(zip(Yq + Yp, q + p)))
    return ImplicitMap(chart, chart, eqs, new=list(Q + P), auxiliary=aux, guess=guess, step=h)


def _midpoint_equations(H, q, p, h, Q, P):
    mq = [(x + X) / 2 for x, X in zip(q, Q)]
    mp = [(y + Y) / 2 for y, Y in zip(p, P)]
    Hq, Hp = _grad_at(H, q, p, mq, mp)
    return [X - x - h * v for X, x, v in zip(Q, q, Hp)] + [Y - y + h * v for Y, y, v in zip(P, p, Hq)]


def _new_values(q, p, chart):
    taken = set(chart.coords)
    return tuple(_fresh(x, "n+1", taken) for x in q), tuple(_fresh(y, "n+1", taken) for y in p)


def midpoint_map(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol],
                 p: sympy.Symbol | Iterable[sympy.Symbol], h: sympy.Symbol) -> ImplicitMap:
    """The implicit midpoint rule (eq. (40)) as an ImplicitMap (new values ``q^{(n+1)}``, ``p^{(n+1)}``).

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> q, p, h = sympy.symbols("q p h")
    >>> phi = midpoint_map(None, q, p, h)
    >>> gc.certify_symplectic(phi, phi.source.d(q) ^ phi.source.d(p)).holds
    True
    """
    H, q, p, chart = _phase(H, q, p)
    h = _step_symbol(h)
    Q, P = _new_values(q, p, chart)
    return ImplicitMap(chart, chart, _midpoint_equations(H, q, p, h, Q, P), new=list(Q + P), step=h)


def feng_kang_hamiltonian(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol],
                          p: sympy.Symbol | Iterable[sympy.Symbol], h: sympy.Symbol) -> tuple[sympy.Expr, sympy.Expr]:
    """``(Htilde, alpha)``: ``Htilde = H - h^2/24 alpha``, ``alpha = (grad H)^T J H_zz J grad H`` (eq. (49)).

    Examples
    --------
    >>> import sympy
    >>> q, p, h = sympy.symbols("q p h")
    >>> Ht, alpha = feng_kang_hamiltonian(p**2 / 2 + q**2 / 2, q, p, h)
    >>> sympy.expand(alpha)
    -p**2 - q**2
    """
    H, q, p, chart = _phase(H, q, p)
    z = q + p
    n = len(q)
    g = [diff(H, x) for x in z]
    Hzz = [[diff(g[i], z[j]) for j in range(2 * n)] for i in range(2 * n)]

    def J(v):  # J = [[0, -I], [I, 0]] applied to a vector
        return [-v[n + i] for i in range(n)] + [v[i] for i in range(n)]

    Jg = J(g)
    HJg = [sum((Hzz[i][j] * Jg[j] for j in range(2 * n)), sympy.S.Zero) for i in range(2 * n)]
    JHJg = J(HJg)
    alpha = sum((g[i] * JHJg[i] for i in range(2 * n)), sympy.S.Zero)
    return H - h**2 / 24 * alpha, alpha


def feng_kang_map(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol],
                  p: sympy.Symbol | Iterable[sympy.Symbol], h: sympy.Symbol, sign: int = -1) -> ImplicitMap:
    """Feng Kang's fourth-order generating-function scheme (eqs. (48)-(50)) as an ImplicitMap.

    ``Z = z + h J^{-1} grad Htilde(zbar)``, the midpoint rule for Htilde (eq. (49)), i.e.
    ``Z = z + h J^{-1} grad H(zbar) - h^3/24 J^{-1} grad alpha(zbar)``.  ``sign=+1`` flips the
    correction (the other sign, not the printed one; it is then only of order 2).

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> q, p, h = sympy.symbols("q p h")
    >>> H = p**2 / 2 + q**4 / 4
    >>> phi = feng_kang_map(H, q, p, h)
    >>> X = gc.hamiltonian_vector_field(H, phi.source.d(q) ^ phi.source.d(p))
    >>> gc.certify_order(phi, X, h, 4).holds
    True
    """
    if sign not in (1, -1):
        raise ExpressionError(f"feng_kang_map: sign must be -1 (the scheme) or +1, got {sign!r}")
    H, q, p, chart = _phase(H, q, p)
    h = _step_symbol(h)
    Ht, alpha = feng_kang_hamiltonian(H, q, p, h)
    if sign == 1:
        Ht = H + h**2 / 24 * alpha
    Q, P = _new_values(q, p, chart)
    return ImplicitMap(chart, chart, _midpoint_equations(Ht, q, p, h, Q, P), new=list(Q + P), step=h)


def gauss2_map(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol], p: sympy.Symbol | Iterable[sympy.Symbol],
               h: sympy.Symbol) -> ImplicitMap:
    """The two-stage Gauss Runge-Kutta method (eqs. (53)-(55)), stage values as auxiliary unknowns.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> q, p, h = sympy.symbols("q p h")
    >>> phi = gauss2_map(None, q, p, h)
    >>> len(phi.auxiliary)
    4
    """
    from ..certify.families import gauss_legendre

    return runge_kutta_map(gauss_legendre(2), H, q, p, h)


def trapezoidal_map(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol],
                    p: sympy.Symbol | Iterable[sympy.Symbol], h: sympy.Symbol) -> ImplicitMap:
    """The trapezoidal rule (eqs. (59), (68)) as an ImplicitMap."""
    H, q, p, chart = _phase(H, q, p)
    h = _step_symbol(h)
    Q, P = _new_values(q, p, chart)
    Hq0, Hp0 = _grad_at(H, q, p, q, p)
    Hq1, Hp1 = _grad_at(H, q, p, Q, P)
    eqs = [X - x - h / 2 * (a + b) for X, x, a, b in zip(Q, q, Hp0, Hp1)]
    eqs += [Y - y + h / 2 * (a + b) for Y, y, a, b in zip(P, p, Hq0, Hq1)]
    return ImplicitMap(chart, chart, eqs, new=list(Q + P), step=h)


def trapezoidal_conjugacy(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol],
                          p: sympy.Symbol | Iterable[sympy.Symbol], h: sympy.Symbol) -> Map:
    """``chi_h = id + (h/2) J^{-1} grad H``: ``chi_h o trapezoidal = midpoint o chi_h`` (eq. (72))."""
    H, q, p, chart = _phase(H, q, p)
    h = _step_symbol(h)
    return Map(chart, chart, [x + h / 2 * diff(H, y) for x, y in zip(q, p)]
               + [y - h / 2 * diff(H, x) for x, y in zip(q, p)])


def _canonical(chart, q, p):
    return Form(chart, {(x, y): 1 for x, y in zip(q, p)})


def trapezoidal_two_form(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol],
                         p: sympy.Symbol | Iterable[sympy.Symbol], h: sympy.Symbol) -> Form:
    """The form the trapezoidal rule preserves: ``w_h = chi_h^*(sum dq ^ dp)`` (eqs. (64)-(73)).

    Examples
    --------
    >>> import sympy
    >>> q, p, h = sympy.symbols("q p h")
    >>> V = sympy.Function("V")
    >>> trapezoidal_two_form(p**2 / 2 + V(q), q, p, h).components
    {(0, 1): h**2*Derivative(V(q), (q, 2))/4 + 1}
    """
    H, q, p, chart = _phase(H, q, p)
    return pullback(_canonical(chart, q, p), trapezoidal_conjugacy(H, q, p, h))


@dataclass(frozen=True)
class SchemeDEL:
    """The pair of DEL one-forms of a Hamiltonian scheme on its function space, and the scheme.

    Attributes
    ----------
    name : str
    chart : Chart
        The function space: ``q, p`` (time n), ``q^{(n+1)}, p^{(n+1)}`` and free stage values.
    E_q, E_p : Form
        The pair ``(d pbar)^T r_q`` and ``-(d qbar)^T r_p``.
    stage_form : Form
        The stage one-form S (zero when the stages are eliminated and r = 2 s_i).
    del_form : Form
        ``E_q + E_p + stage_form``.
    before, after : Form
        The two-form at t_n and at t_{n+1} (on ``chart``): ``dE = after - before``.
    step_map : ImplicitMap
        The one-step map on the phase chart.
    preserved_form : Form
        The two-form on the phase chart the map preserves.
    derivation : Derivation
    """

    name: str
    chart: Chart
    q: tuple
    p: tuple
    new_q: tuple
    new_p: tuple
    step: sympy.Symbol
    E_q: Form
    E_p: Form
    stage_form: Form
    del_form: Form
    before: Form
    after: Form
    step_map: ImplicitMap
    preserved_form: Form
    derivation: Derivation

    def latex(self) -> str:
        return self.derivation.latex()


def _pairing(chart, a_q, a_p, b_q, b_p):
    """``Omega(a, b) = (da_q ^ db_p + db_q ^ da_p)/2`` summed over the n components."""
    w = Form(chart, {})
    for aq, ap, bq, bp in zip(a_q, a_p, b_q, b_p):
        w = w + (chart.d(aq) ^ chart.d(bp)) / 2 + (chart.d(bq) ^ chart.d(ap)) / 2
    return w


def _build(name, A, b, H, q, p, h, chart, Q, P, stages, phi, preserved, modified, D):
    """The pair, the stage form and the identity's two sides (see the module docstring)."""
    (r_q, r_p), s_res, K = _rk_equations(H, q, p, h, A, b, (Q, P), stages)
    n, s = len(q), len(b)
    pbar = [(y + Y) / 2 for y, Y in zip(p, P)]
    qbar = [(x + X) / 2 for x, X in zip(q, Q)]
    E_q = Form(chart, {})
    E_p = Form(chart, {})
    for j in range(n):
        E_q = E_q + r_q[j] * chart.d(pbar[j])
        E_p = E_p - r_p[j] * chart.d(qbar[j])
    S = Form(chart, {})
    for i in range(s):
        for j in range(n):
            S = S + (h * b[i] / 2) * ((r_q[j] - 2 * s_res[i][0][j]) * chart.d(K[i][1][j])
                                      - (r_p[j] - 2 * s_res[i][1][j]) * chart.d(K[i][0][j]))
    before = _pairing(chart, q, p, q, p)
    after = _pairing(chart, Q, P, Q, P)
    M = [[b[i] * b[j] - b[i] * A[i][j] - b[j] * A[j][i] for j in range(s)] for i in range(s)]
    defect = Form(chart, {})
    for i in range(s):
        for j in range(s):
            if M[i][j] != 0:
                defect = defect + (h**2 * M[i][j]) * _pairing(chart, *K[i], *K[j])
    if modified:
        # the trapezoidal defect splits into a difference: fold it into the two-forms
        before = before + (h**2 / 4) * _pairing(chart, *K[0], *K[0])
        after = after + (h**2 / 4) * _pairing(chart, *K[-1], *K[-1])
    elif any(m != 0 for row in M for m in row):
        after = after - defect
    E = E_q + E_p + S
    D = D.add(r"With $\bar z = \frac12\left(z^{(n)} + z^{(n+1)}\right)$ the pair of DEL one-forms is",
              r"E^{(n)}(q) &= \left(\mathrm{d}\bar p\right)^T r_q = " + _show(E_q)
              + r"\\ E^{(n)}(p) &= -\left(\mathrm{d}\bar q\right)^T r_p = " + _show(E_p))
    if S.terms:
        D = D.add(r"On the function space the stage values need the one-form "
                  r"$S = \frac h2\sum_i b_i\left[(r - 2s_i)_q\cdot \mathrm{d}(K_i)_p - (r - 2s_i)_p\cdot\mathrm{d}(K_i)_q\right]$"
                  r" ($s_i$: stage residuals, $K_i = J^{-1}\nabla H(Y_i)$):", r"S &= " + _show(S))
    D = D.add(r"The DEL condition $\mathrm{d}E = 0$ is equivalent to the preservation of the two-form, since "
              r"$\mathrm{d}E = \omega^{(n+1)} - \omega^{(n)}$ identically on the function space, with",
              r"\omega^{(n)} &= " + _show(before) + r"\\ \omega^{(n+1)} &= " + _show(after))
    D = D.concluding(r"On the solution space ($E$'s coefficients are the scheme's equations) $\mathrm{d}E = 0$,"
                     r" so the scheme preserves $" + _show(preserved) + "$.")
    return SchemeDEL(name, chart, q, p, Q, P, h, E_q, E_p, S, E, before, after, phi, preserved, D)


def _scheme_setup(H, q, p, h):
    H, q, p, phase = _phase(H, q, p)
    h = _step_symbol(h)
    Q, P = _new_values(q, p, phase)
    return H, q, p, h, phase, Q, P


def runge_kutta_del(tableau: ButcherTableau | tuple[Sequence[Sequence[Any]], Sequence[Any]], H: sympy.Expr | None,
                    q: sympy.Symbol | Iterable[sympy.Symbol], p: sympy.Symbol | Iterable[sympy.Symbol], h: sympy.Symbol,
                    name: str = "Runge-Kutta") -> SchemeDEL:
    """The DEL one-forms of a Runge-Kutta scheme with free stage values (function space z, Z, Y_i).

    ``after`` includes the defect ``-h^2 sum M_ij Omega(K_i, K_j)``; it vanishes for
    symplectic tableaux (``M = 0``).
    """
    A, b = _tableau(tableau)
    H, q, p, h, phase, _, _ = _scheme_setup(H, q, p, h)
    phi = runge_kutta_map((A, b), H, q, p, h)
    Q, P = phi.new[:len(q)], phi.new[len(q):]
    aux = phi.auxiliary
    m = len(q)
    stages = [(tuple(aux[2 * m * i:2 * m * i + m]), tuple(aux[2 * m * i + m:2 * m * (i + 1)])) for i in range(len(b))]
    chart = Chart(list(q + p) + list(Q + P) + list(aux))
    D = Derivation(rf"DEL one-forms of the {name} scheme (Guo, Li \& Wu 2001, Sec.~4)")
    D = D.add(r"The scheme ($J z' = \nabla H$, $J = \begin{pmatrix}0 & -I\\ I & 0\end{pmatrix}$) is", _show_map(phi))
    return _build(name, A, b, H, q, p, h, chart, Q, P, stages, phi, _canonical(phase, q, p), False, D)


def gauss2_del(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol], p: sympy.Symbol | Iterable[sympy.Symbol],
               h: sympy.Symbol) -> SchemeDEL:
    """The two-stage Gauss method (eqs. (53)-(58)): DEL one-forms and preserved ``sum dq ^ dp``.

    Examples
    --------
    >>> import sympy
    >>> q, p, h = sympy.symbols("q p h")
    >>> certify_scheme_del(gauss2_del(None, q, p, h)).holds
    True
    """
    from ..certify.families import gauss_legendre

    return runge_kutta_del(gauss_legendre(2), H, q, p, h, name="two-stage Gauss")


def _midpoint_like(H, q, p, h, name, D, Hscheme=None):
    H, q, p, h, phase, Q, P = _scheme_setup(H, q, p, h)
    Hs = H if Hscheme is None else Hscheme
    chart = Chart(list(q + p) + list(Q + P))
    stage = (tuple((x + X) / 2 for x, X in zip(q, Q)), tuple((y + Y) / 2 for y, Y in zip(p, P)))
    phi = ImplicitMap(phase, phase, _midpoint_equations(Hs, q, p, h, Q, P), new=list(Q + P), step=h)
    D = D.add(r"The scheme is", _show_map(phi))
    return _build(name, [[sympy.Rational(1, 2)]], [sympy.S.One], Hs, q, p, h, chart, Q, P, [stage], phi,
                  _canonical(phase, q, p), False, D)


def midpoint_del(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol],
                 p: sympy.Symbol | Iterable[sympy.Symbol], h: sympy.Symbol) -> SchemeDEL:
    """The midpoint scheme (eqs. (40)-(47)): DEL pair, ``dE = Omega(Z) - Omega(z)`` on function space.

    Examples
    --------
    >>> import sympy
    >>> q1, q2, p1, p2, h = sympy.symbols("q1 q2 p1 p2 h")
    >>> S = midpoint_del(None, [q1, q2], [p1, p2], h)
    >>> certify_scheme_del(S).holds, S.stage_form.components
    (True, {})
    """
    D = Derivation(r"DEL one-forms of the mid-point scheme (Guo, Li \& Wu 2001, eqs.~40--47)")
    return _midpoint_like(H, q, p, h, "mid-point", D)


def feng_kang_del(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol],
                  p: sympy.Symbol | Iterable[sympy.Symbol], h: sympy.Symbol) -> SchemeDEL:
    """Feng Kang's fourth-order scheme (eqs. (48)-(52)): the midpoint DEL forms of Htilde (eq. (49))."""
    Hf, qq, pp, _ = _phase(H, q, p)
    Ht, alpha = feng_kang_hamiltonian(Hf, qq, pp, h)
    D = Derivation(r"DEL one-forms of Feng Kang's fourth-order scheme (Guo, Li \& Wu 2001, eqs.~48--52)")
    D = D.add(r"The scheme is the mid-point rule for (eq.~49)",
              r"\tilde H &= H - \frac{h^2}{24}\alpha,\quad \alpha = (\nabla_z H)^T J H_{zz} J \nabla_z H = " + _show(alpha))
    return _midpoint_like(Hf, qq, pp, h, "Feng Kang fourth-order", D, Hscheme=Ht)


def trapezoidal_del(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol],
                    p: sympy.Symbol | Iterable[sympy.Symbol], h: sympy.Symbol) -> SchemeDEL:
    """The trapezoidal rule (eqs. (59)-(73)): ``dE = w_h(Z) - w_h(z)``, ``w_h = chi_h^* Omega``.

    Examples
    --------
    >>> import sympy
    >>> q, p, h = sympy.symbols("q p h")
    >>> V = sympy.Function("V")
    >>> S = trapezoidal_del(p**2 / 2 + V(q), q, p, h)
    >>> certify_scheme_del(S).holds, certify_scheme_map(S).holds
    (True, True)
    """
    H, q, p, h, phase, _, _ = _scheme_setup(H, q, p, h)
    half = sympy.Rational(1, 2)
    A = [[0, 0], [half, half]]
    b = [half, half]
    phi = trapezoidal_map(H, q, p, h)
    Q, P = phi.new[:len(q)], phi.new[len(q):]
    chart = Chart(list(q + p) + list(Q + P))
    w_h = trapezoidal_two_form(H, q, p, h)
    D = Derivation(r"DEL one-forms of the trapezoidal scheme (Guo, Li \& Wu 2001, Sec.~5)")
    D = D.add(r"The scheme (eqs.~59, 68) is", _show_map(phi))
    D = D.add(r"It is conjugate to the mid-point rule by $\chi_h = \mathrm{id} + \frac h2 J^{-1}\nabla H$"
              r" (eq.~72), so the candidate preserved form is $w_h = \chi_h^*(\mathrm{d}q\wedge\mathrm{d}p)$:",
              r"w_h &= " + _show(w_h))
    return _build("trapezoidal", A, b, H, q, p, h, chart, Q, P, [(q, p), (Q, P)], phi, w_h, True, D)


def certify_scheme_del(S: SchemeDEL) -> Certificate:
    """Certify ``dE = after - before`` identically on the scheme's function space."""
    if not isinstance(S, SchemeDEL):
        raise ExpressionError(f"certify_scheme_del expects a SchemeDEL, got {type(S).__name__}")
    dE = d(S.del_form)
    D = S.derivation.add(r"Taking $\mathrm{d}$ of the DEL one-form gives", r"\mathrm{d}E &= " + _show(dE))
    return _identity(f"dE == omega^(n+1) - omega^(n) ({S.name})", dE - (S.after - S.before), D,
                     "identically on the function space")


def certify_scheme_map(S: SchemeDEL) -> Certificate:
    """Certify by pullback that the scheme's one-step map preserves ``S.preserved_form``."""
    if not isinstance(S, SchemeDEL):
        raise ExpressionError(f"certify_scheme_map expects a SchemeDEL, got {type(S).__name__}")
    return certify_preserves(S.step_map, S.preserved_form)


def certify_feng_kang_coboundary(H: sympy.Expr | None, q: sympy.Symbol | Iterable[sympy.Symbol],
                                 p: sympy.Symbol | Iterable[sympy.Symbol], h: sympy.Symbol) -> Certificate:
    """Certify eq. (52): Feng Kang's DEL one-form minus the midpoint one is ``h^3/24 d alpha(zbar)``.

    (Eq. (52) prints ``h^2/24 d alpha`` for eq. (47)'s one-form, which is 1/h times ours.)
    """
    F = feng_kang_del(H, q, p, h)
    Hm, qq, pp, _ = _phase(H, q, p)
    Mid = _midpoint_like(Hm, qq, pp, h, "mid-point", Derivation("mid-point"))
    if Mid.chart != F.chart:
        raise ExpressionError("internal: the two schemes' function spaces differ")
    _, alpha = feng_kang_hamiltonian(Hm, qq, pp, h)
    at_mid = {**{x: (x + X) / 2 for x, X in zip(F.q, F.new_q)}, **{y: (y + Y) / 2 for y, Y in zip(F.p, F.new_p)}}
    d_alpha = F.chart.d(substitute(alpha, at_mid))
    residual = F.del_form - Mid.del_form - (h**3 / 24) * d_alpha
    D = Derivation(r"Feng Kang's DEL one-form differs from the mid-point one by an exact form (eq.~52)")
    D = D.add(r"With $\alpha = (\nabla_z H)^T J H_{zz} J\nabla_z H$ at $\bar z$,",
              r"E_{\mathrm{FK}} - E_{\mathrm{mid}} &= \frac{h^3}{24}\,\mathrm{d}\alpha(\bar z)")
    D = D.add(r"so both have the same $\mathrm{d}E$ and preserve the same two-form.")
    return _identity("E_FK - E_mid == h^3/24 d alpha", residual, D, "identically on the function space")
