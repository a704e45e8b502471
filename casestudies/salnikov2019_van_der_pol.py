r"""Salnikov & Hamdouni 2019, Section 4: oscillator + Van der Pol, its port-Hamiltonian form, D and Q.

The fluid-structure toy model (paper, eq. (2))

.. math::

    \ddot y + y = m\Omega^2 q, \qquad \ddot q - \varepsilon(1 - q^2)\dot q + \Omega^2 q = A \ddot y,

is taken through every step of the paper by :func:`oscillator_van_der_pol`:
the first-order system ``X' = F(X)`` on ``X = (x1, x2, q1, q2) = (y, y', q, q')``; the
port-Hamiltonian form with canonical ``J``, ``R = 0``, the energy
``H = (x1^2 + x2^2)/2 + (Omega_t^2 q1^2 + q2^2)/2`` (``Omega_t^2 = Omega^2 - A m Omega^2``) and
one port of constant effort ``e_i = 1`` whose flow ``f_i = g^T grad H`` carries the power exchanged
with the flow; the power balance ``H' = e_i f_i``; the almost-Dirac structure (the graph of the
5 x 5 bivector D); the degree-1 vector field Q on ``T*[1]M`` built from D and ``Q o Q``.

Here the same symbolic ``F`` is also discretized: the implicit mid-point rule
``X_{n+1} = X_n + h F((X_n + X_{n+1})/2)`` is an :class:`~geomcheck.ImplicitMap` run by
:func:`integrators.run_map`.  Because H is quadratic and J skew, it satisfies the *discrete*
power balance ``H(X_{n+1}) - H(X_n) = h f_i((X_n + X_{n+1})/2)`` exactly (a certificate on the function
space); numerically it holds to rounding (numpy) and to 1e-45 (mpmath, 50 digits), and the
continuous balance ``H(t_n) - H(0) = int_0^{t_n} e_i f_i dt`` (trapezoidal quadrature on the grid)
to the scheme's second order.  The Van der Pol part settles on its limit cycle (amplitude of q
near 2) from inside and from outside.

What the computation says about the printed formulas: the first-order system, ``H``, ``J``,
``g``, ``f_i``, the power balance ``H' = -e_s^T f_s = e_i f_i``, ``D`` and the components of Q
built from ``D`` are reproduced (certificates and checks of :func:`run`), with the readings
and the damage in our copy listed below.  ``Q o Q`` is not zero: the Schouten bracket has
exactly the two components ``[D, D]^{x2 q2 x5} = 2(A + m Omega^2)`` and
``[D, D]^{q1 q2 x5} = 2 epsilon (1 - q1^2)``; Q is homological iff ``A = -m Omega^2`` and
``epsilon = 0``.  Non-uniqueness (the paper's closing remark, Sec. 5), computed: no pH form
with constant J, R and no port; exactly one with entries quadratic in q1 and no port, with an
indefinite R; with the port, every skew J (6 free parameters).

Findings
--------

* [damage] Sec. 4, first-order system (second line): as read in our copy it is
  ``x2' = -x1 + m Omega q``.  ``q`` for ``q1`` is the authors' notation (the fourth line writes
  ``-A y`` for ``-A x1`` likewise), but the coefficient must be ``m Omega^2``, as eq. (2) gives
  and as the paper prints it in ``g``, ``D`` and ``Q``; the lost exponent is taken as damage of
  the conversion (our copy alone cannot tell).  The system here is derived from eq. (2).
* [convention] Sec. 4, Q (coefficients of d/dx^4 and d/dx^5): printed ``p3 - p5 a(x3) x4 - A x1``
  and ``p2 m Omega^2 x3 + p4 a(x3) x4 - A x1`` without brackets.  Read literally, ``-A x1`` is a
  term of degree 0 (Q would not be of degree 1); read with ``p5`` (``p4``) multiplying the whole
  port entry ``a(x3) x4 - A x1`` of D, both are exactly the components of the Q built from D.
  The second reading holds.
* [damage] Sec. 4, Q (coefficient of d/dp_1): as read in our copy it is ``A p4 p5 p5``, which is
  zero (``p5`` is odd); the Q built from D gives ``A p4 p5`` (``dD^{45}/dx^1 = A``), the printed
  term with ``p5`` once.  A doubled factor is taken as damage of the conversion (our copy alone
  cannot tell).

The paper gives no parameter values; ours are in :class:`Parameters`.  Measured (this shared
2-core machine): quick profile 8 s; paper profile (t = 200, h = 0.01, 2 x 10^4 steps) 27 s.
Discrete power balance to 1e-13 (quick) and 8e-12 (paper, 2 x 10^4 steps) in numpy, 2e-49 in
mpmath; the quadrature balance converges with order 2.000; amplitude of q on the limit cycle
2.002 (from q = 0.1) and 2.008 (from q = 3).

>>> from casestudies.salnikov2019_van_der_pol import Parameters
>>> Parameters.quick().A
0.2
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy

import geomcheck as gc
from geomcheck.latex import Derivation, summarize, tex_text
from geomcheck.structures import (
    AlmostDiracStructure,
    FirstOrderSystem,
    PortHamiltonianForms,
    PortHamiltonianSystem,
    PortQStructure,
    first_order_system,
    port_form,
    port_hamiltonian_forms,
    port_q_structure,
)
from geomcheck.structures.port_hamiltonian_data import entry_is_zero
from geomcheck.zero import decide_all_zero, decide_zero
from integrators.pipeline import saved_steps_of
from integrators.run_map import run_map
from integrators.run_options import to_mpf

from ._core import CaseResult, Finding, check_below, check_close, check_true
from .observing import expressions_on_states, observe_steps

__all__ = ["NAME", "TITLE", "SOURCE", "FINDINGS", "EQUATIONS", "OscillatorVanDerPol", "oscillator_van_der_pol",
           "printed_q_structure", "Parameters", "run", "certify", "simulations", "checks", "midpoint_map",
           "discrete_power_balance", "first_order_rhs", "simulate", "q_as_printed_with_brackets"]

NAME = "salnikov-van-der-pol"
TITLE = "Harmonic oscillator + Van der Pol: port-Hamiltonian form, Dirac structure, Q-structure"
SOURCE = ("V. Salnikov, A. Hamdouni, Geometric integrators in mechanics - the need for computer algebra tools,"
          " 3rd International Conference \"Computer Algebra\", Moscow, June 2019 (HAL hal-02403757);"
          " Section 4, eq. (2) and the formulas after it")

_S4 = "Sec. 4"
_TESTS = "tests/geomcheck/structures/test_port_hamiltonian.py"

#: What we say about Section 4 (see the module docstring); each shown by a test.
FINDINGS = (
    Finding(
        "damage", "Sec. 4, first-order system (second line)",
        "As read in our copy the second line is x2' = -x1 + m Omega q. The q for q1 is the authors' notation (the"
        " fourth line writes -A y for -A x1 likewise), but the coefficient must be m Omega^2: eq. (2) gives"
        " x2' = -x1 + m Omega^2 q1, and the paper itself prints m Omega^2 q1 in g and D and m Omega^2 x^3 in Q."
        " We take the lost exponent for damage of the conversion (our copy alone cannot tell); the system that"
        " runs is derived from eq. (2).",
        f"{_TESTS}::test_first_order_line_as_read_in_our_copy"),
    Finding(
        "convention", "Sec. 4, Q (coefficients of d/dx^4 and d/dx^5)",
        "The printed coefficients p3 - p5 a(x^3) x^4 - A x^1 and p2 m Omega^2 x^3 + p4 a(x^3) x^4 - A x^1 have no"
        " brackets around the port entry a(x^3) x^4 - A x^1 of D. Read with p5 (p4) multiplying that whole entry"
        " they are exactly the components of the Q built from D; read literally, -A x^1 is a term of degree 0 and"
        " Q would not be of degree 1.",
        f"{_TESTS}::test_printed_q_literal_and_bracketed_readings",
        readings=(
            "literal precedence, -A x^1 not multiplied by p5 (p4): a degree-0 term, Q not of degree 1 and not the Q"
            " of D -- does not hold",
            "p5 (p4) multiplies the whole port entry: p3 - p5 (a(x^3) x^4 - A x^1) and p2 m Omega^2 x^3"
            " + p4 (a(x^3) x^4 - A x^1), the components of the Q built from D -- holds",
        )),
    Finding(
        "damage", "Sec. 4, Q (coefficient of d/dp_1)",
        "As read in our copy the coefficient is A p4 p5 p5, which is zero (p5 is odd). The Q built from D gives"
        " A p4 p5 (from dD^{45}/dx^1 = A): the printed term with p5 once. We take the doubled factor for damage of"
        " the conversion (our copy alone cannot tell).",
        f"{_TESTS}::test_printed_q_literal_and_bracketed_readings"),
)

#: Equation numbers cited in this module and in geomcheck/structures/port_hamiltonian.py -> our copy's text.
EQUATIONS = {
    1: r"\dot{\mathbf{x}} = (J(\mathbf{x}) - R(\mathbf{x}))\frac{\partial H}{\partial \mathbf{x}} + g(\mathbf{x})\mathbf{f}, \quad (1)",
    2: r"\ddot{q} - \varepsilon(1 - q^2)\dot{q} + \Omega^2 q &= A\ddot{y} \end{aligned} \quad (2)",
}


# --------------------------------------------------------------------------- Section 4, symbolically


def _column(v) -> str:
    """LaTeX of a vector as a column (summarized when too large to be read)."""
    return summarize(sympy.Matrix(list(v)))


@dataclass(frozen=True)
class OscillatorVanDerPol:
    """The paper's Section 4 example, every stage computed (not transcribed).

    Attributes
    ----------
    parameters : dict   ``{"m", "Omega", "A", "epsilon", "Omega_t"}`` Symbols.
    equations : tuple   eq. (2) as expressions ``== 0``.
    first_order : FirstOrderSystem  from eq. (2), state ``(x1, x2, q1, q2)``.
    H : expression      the paper's energy (``Omega_t^2 = Omega^2 - A m Omega^2``).
    constant_forms : PortHamiltonianForms  pH forms with constant J, R and no port.
    quadratic_forms : PortHamiltonianForms pH forms with entries of degree <= 2 in q1, no port
                      (None for ``quick=True``).
    misprints : dict     the printed formulas that, read literally in our copy, disagree with the
                         computation, by name (damage and readings, not errors of the authors).
    system : PortHamiltonianSystem  the paper's choice: canonical J, R = 0, one port e_i = 1.
    forms : PortHamiltonianForms    how ``system`` is found (:func:`port_form`).
    power_balance : Certificate     ``H' = -e_s^T f_s = e_i f_i``.
    flows_efforts : dict            ``f_s, e_s, e_i, f_i`` as the paper defines them.
    dirac : AlmostDiracStructure    the graph of the 5 x 5 ``D``.
    certificates : dict             isotropy, maximal rank, integrability of ``dirac``.
    q_structure : PortQStructure    Q on ``T*[1]M`` from ``D``, ``Q o Q`` and ``[D, D]``.
    derivation : Derivation         the whole example, typeset.
    """

    parameters: dict
    equations: tuple
    first_order: FirstOrderSystem
    H: object
    constant_forms: PortHamiltonianForms
    quadratic_forms: PortHamiltonianForms
    forms: PortHamiltonianForms
    system: PortHamiltonianSystem
    power_balance: gc.Certificate
    flows_efforts: dict
    dirac: AlmostDiracStructure
    certificates: dict
    q_structure: PortQStructure
    misprints: dict
    derivation: Derivation

    def latex(self) -> str:
        return self.derivation.latex()

    def _latex(self, printer=None):
        return self.system.latex()

    def _repr_latex_(self):
        return f"${self._latex()}$"


def oscillator_van_der_pol(*, quick: bool = False) -> OscillatorVanDerPol:
    """Section 4 end to end: eq. (2) -> first-order system -> pH form -> D -> Q -> Q o Q.

    Parameters
    ----------
    quick : bool
        Skip the degree-2 ansatz search (the slowest step, ~1 s).

    Examples
    --------
    >>> ex = oscillator_van_der_pol(quick=True)
    >>> ex.first_order.F[1]
    Omega**2*m*q1 - x1
    >>> ex.power_balance.holds, ex.certificates["isotropic"].holds, ex.q_structure.holds
    (True, True, False)
    """
    t = sympy.Symbol("t")
    m, Om, A, eps = sympy.symbols("m Omega A epsilon")
    Omt = sympy.Symbol(r"Omega_t")
    y, qf = sympy.Function("y")(t), sympy.Function("q")(t)
    eq1 = y.diff(t, 2) + y - m * Om**2 * qf
    eq2 = qf.diff(t, 2) - eps * (1 - qf**2) * qf.diff(t) + Om**2 * qf - A * y.diff(t, 2)
    fo = first_order_system([eq1, eq2], [y, qf], t, [["x1", "x2"], ["q1", "q2"]])
    x1, x2, q1, q2 = fo.x
    # Omega_t^2 := Omega^2 - A m Omega^2, as in the paper: F written with it
    F = _with_tilde(fo.F, q1, Om, A, m, Omt)
    H = (x1**2 + x2**2) / 2 + (Omt**2 * q1**2 + q2**2) / 2
    constant = port_hamiltonian_forms(F, fo.x, H, degree=0)
    quadratic = None if quick else port_hamiltonian_forms(F, fo.x, H, degree=2, depends_on=[q1])
    Jc = [[0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 1], [0, 0, -1, 0]]
    forms = port_form(F, fo.x, H, J=Jc, port="e_i")
    S = forms.system()
    pb = S.power_balance()
    grad = S.grad
    f_s = tuple(-f for f in S.vector_field)
    flows = {"f_s": tuple(sympy.expand(v.xreplace({S.u[0]: 1})) for v in f_s), "e_s": grad,
             "e_i": sympy.S.One, "f_i": S.output[0]}
    L = S.dirac_structure(port_names=["x5"])
    certs = {"isotropic": L.certify_isotropic(), "maximal_rank": L.certify_maximal_rank(),
             "integrable": L.certify_integrable()}
    Qs = S.q_structure(port_names=["x5"])
    Dv = Derivation(r"Salnikov \& Hamdouni 2019, Section 4: oscillator coupled to Van der Pol")
    for d in (fo.derivation,):
        Dv = Dv.add(r"\textbf{" + d.title + "}.")
        for s in d.steps:
            Dv = Dv.add(s.text, s.math)
    Dv = Dv.add(r"With $\tilde\Omega^2 := \Omega^2 - A m \Omega^2$ (written $\Omega_t$) and"
                r" $a := \varepsilon(1 - q_1^2)$:",
                r" \\ ".join(r"\dot " + sympy.latex(s) + " &= " + summarize(v) for s, v in zip(fo.x, F)))
    for d in [f.derivation for f in (constant, quadratic) if f is not None] + [forms.derivation, pb.derivation]:
        Dv = Dv.add(r"\textbf{" + d.title + "}.")
        for s in d.steps:
            Dv = Dv.add(s.text, s.math)
        if d.conclusion:
            Dv = Dv.add(d.conclusion)
    Dv = Dv.add(r"\textbf{Flows and efforts}: $f_s = -\dot X$, $e_i = 1$, and",
                r"e_s &= " + _column(grad) + r", & f_i &= " + summarize(flows["f_i"]))
    Dv = Dv.add(r"\textbf{The almost-Dirac structure} is the graph $(f_s, f_i) = D (e_s, e_i)$ of",
                r"D &= " + summarize(L.matrix))
    for key, c in certs.items():
        Dv = Dv.add(tex_text(key.replace("_", " ")) + ": " + tex_text(c.verdict()) + " (" + tex_text(c.method) + ").")
    for s in Qs.derivation.steps:
        Dv = Dv.add(s.text, s.math)
    params = {"m": m, "Omega": Om, "A": A, "epsilon": eps, "Omega_t": Omt}
    misprints = _misprints(fo, Qs.field, params)
    rows = [r"\text{%s:}\quad & \text{printed } %s, & &\text{computed } %s" % (
        tex_text(name), _show_super(pr), _show_super(co)) for name, (pr, co) in misprints.items()]
    Dv = Dv.add(r"\textbf{Comparison with the printed formulas.} Where the printed expressions, read literally in"
                r" our copy, differ from the ones computed from eq. (2) and from $D$ (a lost exponent, brackets, a"
                r" doubled factor: damage and readings, not errors of the authors):", r" \\ ".join(rows))
    Dv = Dv.concluding(Qs.derivation.conclusion)
    return OscillatorVanDerPol(params, (eq1, eq2), fo, H, constant, quadratic, forms, S, pb, flows, L,
                               certs, Qs, misprints, Dv)


def _show_super(v) -> str:
    if hasattr(v, "_latex") and not isinstance(v, sympy.Basic):
        return v._latex()
    return summarize(v)


def _misprints(fo, Q, params) -> dict:
    """The printed formulas of Section 4 that, read literally in our copy, are not what the computation gives."""
    out = {}
    x1, x2, q1, q2 = fo.x
    printed = -x1 + params["m"] * params["Omega"] * q1
    if decide_zero(fo.F[1] - printed).is_zero is False:
        out["first-order system, x2'"] = (printed, fo.F[1])
    P = _printed_q(Q.chart, params)
    T = Q.chart
    for i in range(T.dim):
        c = T.coords[i]
        if (Q.component(c) - P.component(c)).is_zero() is not True:
            out[f"Q, coefficient of d/d{c}"] = (P.component(c), Q.component(c))
    return out


def _with_tilde(F, q1, Om, A, m, Omt):
    """F with the coefficient ``-(Omega^2 - A m Omega^2)`` of q1 written ``-Omega_t^2``."""
    out = []
    tilde = -(Om**2 - A * m * Om**2)
    for f in F:
        f = sympy.expand(f)
        c = f.coeff(q1, 1)
        if c != 0 and entry_is_zero(c - tilde) is True:
            f = sympy.expand(f - c * q1) - Omt**2 * q1
        out.append(f)
    return tuple(out)


def printed_q_structure(example: OscillatorVanDerPol) -> gc.VectorField:
    """The degree-1 field Q of Section 4 read literally as printed in our copy (no brackets, ``p5 p5``).

    On ``cotangent_shift`` of the extended chart ``(x1, x2, q1, q2, x5)`` (the paper's
    ``x^1..x^5``; ``p_i`` are the odd coordinates ``theta_*``).  Not homogeneous: the
    printed components of ``d/dx^4`` and ``d/dx^5``, read without brackets, contain the degree-0
    term ``-A x^1``; ``A p4 p5 p5`` is zero.  With the brackets and ``p5`` once the printed Q is the
    one built from D (:func:`q_as_printed_with_brackets`).

    Examples
    --------
    >>> ex = oscillator_van_der_pol(quick=True)
    >>> (ex.q_structure.field - printed_q_structure(ex)).is_zero()
    False
    >>> sorted(ex.misprints)
    ['Q, coefficient of d/dq2', 'Q, coefficient of d/dtheta_x1', 'Q, coefficient of d/dx5', "first-order system, x2'"]
    """
    return _printed_q(example.q_structure.field.chart, example.parameters)


def _printed_q(T: gc.Chart, params):
    X1, X2, X3, X4, X5 = T.coords[:5]
    p1, p2, p3, p4, p5 = T.coords[5:]
    m, Om, A, eps = params["m"], params["Omega"], params["A"], params["epsilon"]
    a = eps * (1 - X3**2)
    comps = {
        X1: -p2,
        X2: p1 - p5 * m * Om**2 * X3,
        X3: -p4,
        X4: p3 - p5 * a * X4 - A * X1,
        X5: p2 * m * Om**2 * X3 + p4 * a * X4 - A * X1,
        p1: A * p4 * p5 * p5,
        p3: -m * Om**2 * p2 * p5 + 2 * eps * X3 * X4 * p4 * p5,
        p4: -a * p4 * p5,
    }
    return gc.VectorField(T, comps)


# --------------------------------------------------------------------------- the model's constants


@dataclass(frozen=True)
class Parameters:
    """The model's constants and the runs (the paper gives no values: these are ours).

    Attributes
    ----------
    m, Omega, A, epsilon : the constants of eq. (2) (``A m < 1`` so that ``Omega_t`` is real)
    q_inside, q_outside : initial q (y = y' = q' = 0) inside and outside the limit cycle
    h, steps : the mid-point run
    save_every : steps between saved states
    mp_steps, dps : the short high-precision run
    """

    m: float = 0.05
    Omega: float = 3.0
    A: float = 0.2
    epsilon: float = 1.0
    q_inside: float = 0.1
    q_outside: float = 3.0
    h: float = 0.02
    steps: int = 2500
    save_every: int = 1
    mp_steps: int = 10
    dps: int = 50

    @classmethod
    def quick(cls) -> "Parameters":
        """Seconds: t = 50 (about 24 periods of the Van der Pol part) at h = 0.02."""
        return cls()

    @classmethod
    def paper(cls) -> "Parameters":
        """t = 200 at h = 0.01."""
        return cls(h=0.01, steps=20_000, save_every=5)

    def values(self, example) -> dict:
        """``{Symbol: exact value}`` for the example's parameters (``Omega_t`` from the others)."""
        P = example.parameters
        exact = {k: sympy.nsimplify(getattr(self, k)) for k in ("m", "Omega", "A", "epsilon")}
        out = {P[k]: v for k, v in exact.items()}
        out[P["Omega_t"]] = sympy.sqrt(exact["Omega"]**2 * (1 - exact["A"] * exact["m"]))
        return out


# --------------------------------------------------------------------------- the scheme


def first_order_rhs(example):
    """``F(X)`` of the pH form with the port's effort set to ``e_i = 1`` (the system that runs)."""
    S = example.system
    return tuple(f.xreplace(example.forms.port_value) for f in S.vector_field)


def midpoint_map(example):
    """The implicit mid-point rule for ``X' = F(X)`` as an ImplicitMap (new values ``X^{n+1}``).

    >>> phi = midpoint_map(oscillator_van_der_pol(quick=True))
    >>> phi.new
    (x1^{n+1}, x2^{n+1}, q1^{n+1}, q2^{n+1})
    """
    x = example.system.x
    M = gc.Chart(list(x))
    h = sympy.Symbol("h")
    X = tuple(sympy.Symbol(f"{xi}^{{n+1}}") for xi in x)
    mid = {xi: (xi + Xi) / 2 for xi, Xi in zip(x, X)}
    F = first_order_rhs(example)
    eqs = [Xi - xi - h * gc.substitute(f, mid) for xi, Xi, f in zip(x, X, F)]
    return gc.ImplicitMap(M, M, eqs, new=X, step=h)


def discrete_power_balance(example, phi) -> gc.Certificate:
    r"""Certify ``H(X) - H(x) - h f_i(xbar) = grad H(xbar) . r(x, X)`` on the function space.

    ``r = X - x - h F(xbar)`` are the mid-point equations; the identity holds for all ``x, X``
    (H quadratic: ``H(X) - H(x) = grad H(xbar) . (X - x)``; J skew: ``grad H . F = f_i``), so on
    the scheme's solutions ``H(X_{n+1}) - H(X_n) = h f_i(xbar)``: the discrete power balance.
    """
    S = example.system
    x, X, h = S.x, phi.new, phi.step
    mid = {xi: (xi + Xi) / 2 for xi, Xi in zip(x, X)}
    H = S.H
    H_new = gc.substitute(H, dict(zip(x, X)))
    f_i = S.output[0]
    grad_mid = [gc.substitute(g, mid) for g in S.grad]
    residual = sympy.expand(H_new - H - h * gc.substitute(f_i, mid)
                            - sum((g * r for g, r in zip(grad_mid, phi.equations)), sympy.S.Zero))
    decision = decide_zero(residual)
    D = Derivation("Discrete power balance of the mid-point rule for the pH form")
    D = D.add(r"The scheme $X^{n+1} = X^n + h F(\bar X)$, $\bar X = \tfrac12(X^n + X^{n+1})$, with"
              r" $F = J\nabla H + g\, e_i$ and $e_i = 1$. Since $H$ is quadratic and $J$ skew,",
              r"H(X^{n+1}) - H(X^n) &= \nabla H(\bar X)^{T}(X^{n+1} - X^n) \\ &= h\,\nabla H(\bar X)^{T}"
              r" \bigl(J\nabla H(\bar X) + g(\bar X) e_i\bigr) + \nabla H(\bar X)^{T} r = h\, f_i(\bar X)\, e_i"
              r" + \nabla H(\bar X)^{T} r")
    D = D.add(r"with $r$ the scheme's residual and $f_i = g^{T}\nabla H = " + sympy.latex(f_i) + "$. The difference"
              r" of the two sides, on the function space (any $X^n, X^{n+1}$), is decided zero: "
              + tex_text(decision.method) + ".")
    D = D.concluding(r"On the scheme's solutions ($r = 0$): $H(X^{n+1}) - H(X^n) = h\, e_i f_i(\bar X)$, the"
                     r" discrete power balance, exactly.")
    return gc.Certificate("H(X) - H(x) == h f_i(xbar) + grad H(xbar) . r (function space)", decision.is_zero,
                          decision.method, stage=decision.stage, residual=residual,
                          counterexample=decision.point if decision.is_zero is False else None, derivation=D,
                          soundness=getattr(decision, "soundness", None))


def q_as_printed_with_brackets(example):
    """The printed Q of Section 4 read with the brackets of the port entries and ``p5`` written once.

    The printed coefficients of ``d/dx^4`` and ``d/dx^5`` read as ``p3 - p5 (a(x^3) x^4 - A x^1)``
    and ``p2 m Omega^2 x^3 + p4 (a(x^3) x^4 - A x^1)``, the coefficient of ``d/dp_1`` as
    ``A p4 p5``; every other component exactly as printed.  On the chart of the Q built from D
    (the paper's ``p_i`` are the odd coordinates ``theta_*``).  Compare
    :func:`printed_q_structure`, the literal reading.

    >>> ex = oscillator_van_der_pol(quick=True)
    >>> (ex.q_structure.field - q_as_printed_with_brackets(ex)).is_zero()
    True
    """
    T = example.q_structure.field.chart
    X1, X2, X3, X4, X5 = T.coords[:5]
    p1, p2, p3, p4, p5 = T.coords[5:]
    P = example.parameters
    m, Om, A, eps = P["m"], P["Omega"], P["A"], P["epsilon"]
    a = eps * (1 - X3**2)
    return gc.VectorField(T, {
        X1: -p2,
        X2: p1 - p5 * m * Om**2 * X3,
        X3: -p4,
        X4: p3 - p5 * (a * X4 - A * X1),
        X5: p2 * m * Om**2 * X3 + p4 * (a * X4 - A * X1),
        p1: A * p4 * p5,
        p3: -m * Om**2 * p2 * p5 + 2 * eps * X3 * X4 * p4 * p5,
        p4: -a * p4 * p5,
    })


# --------------------------------------------------------------------------- numerics


def _constants(phi, values) -> dict:
    """The values of the constants the map has (``values`` may name more: ``Omega_t`` and the others)."""
    symbols = set().union(*(e.free_symbols for e in phi.equations))
    return {s: v for s, v in values.items() if s in symbols}


def _energy_and_power(example, values, backend="numpy", dps=None):
    """``H`` and ``f_i`` on states (one lowering of both): a function of states ``(..., 4)`` -> ``(2, ...)``."""
    params = sorted(values, key=lambda s: s.name)
    S = example.system
    return expressions_on_states([S.H, S.output[0]], list(S.x), params, [values[s] for s in params], backend=backend,
                                 dps=dps, what="H and f_i")


def _supplied_power(H_f, h, dps=None):
    """``f(before, after)``: per step, ``h f_i(xbar)`` and the trapezoid ``h/2 (f_i(X_n) + f_i(X_{n+1}))``."""
    def supplied(before, after):
        with mpmath.workdps(dps or mpmath.mp.dps):     # arithmetic on mpf states at the run's digits
            return np.stack([h * H_f((before + after) / 2)[1], h / 2 * (H_f(before)[1] + H_f(after)[1])], axis=1)

    return supplied


def simulate(example, phi, values, y0, h, steps, save_every=1) -> dict:
    """Run the mid-point map (numpy, :func:`integrators.run_map`); the discrete and the quadrature power balances.

    Returns ``t``, ``Y`` (saved states), ``H`` (energy), ``supplied`` (the discrete sum of
    ``h f_i(xbar)`` up to each saved step) and ``trapezoid`` (trapezoidal quadrature of
    ``f_i(X_n)``), ``seconds``.
    """
    num = {k: float(sympy.N(v)) for k, v in values.items()}
    H_f = _energy_and_power(example, num)
    start = time.perf_counter()
    sol = run_map(phi, y0, dt=h, steps=steps, save_every=save_every, params=_constants(phi, num),
                  observe=observe_steps(_supplied_power(H_f, h), first=0.0))
    seconds = time.perf_counter() - start
    # the sums over the steps up to each state (one addition per step, as the balance has them)
    sums = np.cumsum(sol.observed, axis=0)[saved_steps_of(steps, save_every)]
    return {"t": sol.t, "Y": sol.y, "H": H_f(sol.y)[0], "supplied": sums[:, 0], "trapezoid": sums[:, 1],
            "seconds": seconds}


def _high_precision(example, phi, values, y0, h, steps, dps):
    """Worst ``|H(X_n) - H(X_0) - sum h f_i(xbar)|`` of a run at ``dps`` digits (mpmath, :func:`integrators.run_map`)."""
    hq = sympy.nsimplify(h)
    # a few steps: every state is saved, and the balance is read off them
    Y = run_map(phi, [[repr(float(c)) for c in row] for row in y0], dt=hq, steps=steps, save_every=1,
                params=_constants(phi, values), backend="mpmath", dps=dps).y
    H_f = _energy_and_power(example, values, backend="mpmath", dps=dps)
    H = H_f(Y)[0]
    supplied = _supplied_power(H_f, to_mpf(hq, dps), dps)(Y[:-1], Y[1:])[:, 0]
    with mpmath.workdps(dps):
        mismatch = H[1:] - H[0] - np.cumsum(supplied, axis=0)
        return max([mpmath.mpf(0)] + [abs(v) for v in mismatch.reshape(-1)])


# --------------------------------------------------------------------------- figures


def _figures(p, r, labels, out):
    from ._plotting import figure, save

    paths = []
    fig, axes = figure(1, 2, figsize=(10, 4.5))
    for b, label in enumerate(labels):
        Y = r["Y"]
        axes[0].plot(Y[:, b, 2], Y[:, b, 3], lw=0.6, label=f"q(0) = {label}")
        axes[1].plot(Y[:, b, 0], Y[:, b, 1], lw=0.6, label=f"q(0) = {label}")
    axes[0].set_xlabel("$q$")
    axes[0].set_ylabel(r"$\dot q$")
    axes[0].set_title("Van der Pol part: the limit cycle")
    axes[1].set_xlabel("$y$")
    axes[1].set_ylabel(r"$\dot y$")
    axes[1].set_title("oscillator")
    axes[0].legend(fontsize=8)
    paths += save(fig, out, f"{NAME}-phase-portrait")

    fig, axes = figure(2, 1, figsize=(8, 6), sharex=True)
    Y = r["Y"][:, 0, :]
    Om_t2 = p.Omega**2 * (1 - p.A * p.m)
    H_osc = (Y[:, 0] ** 2 + Y[:, 1] ** 2) / 2
    H_vdp = (Om_t2 * Y[:, 2] ** 2 + Y[:, 3] ** 2) / 2
    axes[0].plot(r["t"], H_vdp, "C1", label=r"Van der Pol $(\tilde\Omega^2 q_1^2 + q_2^2)/2$")
    axes[0].plot(r["t"], r["H"][:, 0], "k", lw=0.8, label="total H")
    axes[0].plot(r["t"], r["H"][0, 0] + r["supplied"][:, 0], "C3--", lw=0.8, label=r"$H(0) + \sum h\, e_i f_i$")
    twin = axes[0].twinx()   # the oscillator's energy is much smaller: its own scale
    twin.plot(r["t"], H_osc, "C0", lw=0.8, label="oscillator $(x_1^2 + x_2^2)/2$ (right axis)")
    twin.set_ylabel("oscillator energy")
    lines = axes[0].get_lines() + twin.get_lines()
    axes[0].legend(lines, [ln.get_label() for ln in lines], fontsize=8, loc="lower right")
    axes[0].set_title(f"energy exchange (q(0) = {p.q_inside:g})")
    axes[1].semilogy(r["t"][1:], np.maximum(np.abs(r["H"][1:, 0] - r["H"][0, 0] - r["supplied"][1:, 0]), 1e-17),
                     label="discrete balance (mid-point sum)")
    axes[1].semilogy(r["t"][1:], np.maximum(np.abs(r["H"][1:, 0] - r["H"][0, 0] - r["trapezoid"][1:, 0]), 1e-17),
                     label="trapezoidal quadrature of $e_i f_i$")
    axes[1].set_xlabel("t")
    axes[1].set_ylabel(r"$|H(t_n) - H(0) - \int e_i f_i|$")
    axes[1].legend(fontsize=8)
    paths += save(fig, out, f"{NAME}-energy-exchange")
    return paths


# --------------------------------------------------------------------------- the run


def certify(ex: OscillatorVanDerPol) -> tuple:
    """Every symbolic stage of Section 4, and the discrete power balance: ``(certificates, checks)``."""
    certificates, checks = [], []
    S = ex.system
    P = ex.parameters
    m, Om, A, eps, Omt = P["m"], P["Omega"], P["A"], P["epsilon"], P["Omega_t"]
    x1, x2, q1, q2 = S.x

    # eq. (2) -> first-order system -> pH form
    F = first_order_rhs(ex)
    tilde = {Omt: sympy.sqrt(Om**2 - A * m * Om**2)}
    fo = [sympy.expand(f) for f in ex.first_order.F]
    dec = decide_all_zero([sympy.expand(a.xreplace(tilde)) - b for a, b in zip(F, fo)])
    D1 = Derivation("The port-Hamiltonian form reproduces the first-order system of eq. (2)")
    D1 = D1.add(r"With $e_i = 1$, $(J - R)\nabla H + g\, e_i$ is",
                r" \\ ".join(r"\dot " + sympy.latex(xi) + " &= " + sympy.latex(f) for xi, f in zip(S.x, F)))
    D1 = D1.add(r"and with $\tilde\Omega^2 = \Omega^2 - A m \Omega^2$ each component equals the first-order system"
                r" derived from eq. (2): " + tex_text(dec.method) + ".")
    certificates.append(("the pH form (J canonical, R = 0, port e_i = 1) reproduces the first-order system of"
                         " eq. (2)", gc.Certificate("(J - R) grad H + g e_i == F(X), e_i = 1", dec.is_zero,
                                                    dec.method, stage=dec.stage, derivation=D1,
                                                    soundness=getattr(dec, "soundness", None))))
    t = sympy.Symbol("t")
    y, qf = sympy.Function("y")(t), sympy.Function("q")(t)
    on_curve = {x1: y, x2: y.diff(t), q1: qf, q2: qf.diff(t)}
    eq2 = [e.subs({y.diff(t, 2): F[1].xreplace(on_curve).xreplace(tilde),
                   qf.diff(t, 2): F[3].xreplace(on_curve).xreplace(tilde)}) for e in ex.equations]
    dec2 = decide_all_zero([sympy.expand(e) for e in eq2])
    D2 = Derivation("Eq. (2) along the port-Hamiltonian flow")
    D2 = D2.add(r"Substituting $x_1 = y$, $x_2 = \dot y$, $q_1 = q$, $q_2 = \dot q$, $\ddot y = F_2$, $\ddot q = F_4$ in"
                r" eq. (2), the residuals", r" \\ ".join(sympy.latex(e) + " &= 0" for e in ex.equations))
    D2 = D2.concluding("vanish: " + tex_text(dec2.method) + ".")
    certificates.append(("eq. (2) holds with y'' = F_2, q'' = F_4 of the pH form",
                         gc.Certificate("eq. (2) residual == 0 along X' = F(X)", dec2.is_zero, dec2.method,
                                        stage=dec2.stage, derivation=D2,
                                        soundness=getattr(dec2, "soundness", None))))
    certificates.append(("power balance H' = -e_s^T f_s = e_i f_i", ex.power_balance))
    certificates.append(("almost-Dirac structure (graph of the 5 x 5 D): isotropic", ex.certificates["isotropic"]))
    certificates.append(("almost-Dirac structure: maximal rank", ex.certificates["maximal_rank"]))
    integ = ex.certificates["integrable"]
    checks.append(check_true(
        "the almost-Dirac structure is NOT integrable (not closed under the Courant bracket): certificate refuted,"
        " as computed", integ.verdict(), "holds False", integ.holds is False, _S4))

    # Q and Q o Q
    Qs = ex.q_structure
    checks.append(check_true("Q built from D is not homological (Q o Q != 0)", str(Qs.holds), "False",
                             Qs.holds is False, _S4))
    E = Qs.chart
    names = {tuple(E.coords[i].name for i in key): v for key, v in Qs.schouten.items()}
    want = {("x2", "q2", "x5"): 2 * (A + m * Om**2), ("q1", "q2", "x5"): 2 * eps * (1 - q1**2)}
    ok = set(names) == set(want) and all(decide_zero(names[k] - v).is_zero is True for k, v in want.items())
    checks.append(check_true(
        "the Schouten bracket [D, D] has exactly the components 2(A + m Omega^2) (x2 q2 x5) and"
        " 2 epsilon (1 - q1^2) (q1 q2 x5)", "; ".join(f"{' '.join(k)}: {v}" for k, v in names.items()),
        "those two", ok, _S4))
    T = Qs.field.chart
    th = {c.name: c for c in T.coords}
    QQ = {c.coordinate.name: c.value for c in Qs.report.components}
    expected_QQ = {"x2": (A + m * Om**2) * th["theta_q2"] * th["theta_x5"]}
    ok = (set(QQ) == {"x2", "q1", "q2", "x5", "theta_q1"}
          and (QQ["x2"] - T.function(expected_QQ["x2"])).is_zero())
    checks.append(check_true(
        "Q o Q = 1/2 [[D, D], .] is nonzero exactly along x2, q1, q2, x5, p_q1, with (Q o Q)(x2) = (A + m Omega^2)"
        " p_q2 p_x5", "; ".join(f"{k}: {v.expr}" for k, v in QQ.items()), "those components", ok, _S4))
    Dm = ex.dirac.matrix.xreplace({A: -m * Om**2, eps: 0})
    hom = port_q_structure(Dm, gc.Chart(list(S.x)), ["x5"]).holds
    checks.append(check_true("Q is homological when the obstruction vanishes (A = -m Omega^2, epsilon = 0)",
                             str(hom), "True", hom is True, _S4))
    bracketed = q_as_printed_with_brackets(ex)
    same = (Qs.field - bracketed).is_zero()
    checks.append(check_true(
        "the printed Q, read with the brackets of the port entries and p5 once (see the findings), is the degree-1"
        " field built from D", str(same), "True", same is True, _S4 + ", Q"))
    printed = printed_q_structure(ex)
    diff = Qs.field - printed
    wrong = {T.coords[i].name for i, terms in diff.component_terms().items()
             if not gc.VectorField._raw(T, {i: terms}).is_zero()}
    checks.append(check_true(
        "read literally as in our copy, the printed Q differs from the Q built from D in exactly the components of"
        " the findings", str(sorted(wrong)), "['q2', 'theta_x1', 'x5'] (the paper's x^4, x^5, p_1)",
        wrong == {"q2", "x5", "theta_x1"}, _S4 + ", Q"))

    # non-uniqueness
    checks.append(check_true("non-uniqueness: no pH form with constant J, R and no port (the damping a(q1) is not"
                             " constant)", str(ex.constant_forms.consistent), "False",
                             ex.constant_forms.consistent is False, "Sec. 4-5"))
    qf_ = ex.quadratic_forms
    R_indef = qf_.system().certify_dissipative().holds if qf_.consistent else None
    checks.append(check_true(
        "non-uniqueness: with entries quadratic in q1 and no port there is exactly one pH form, and its R is"
        " indefinite", f"consistent {qf_.consistent}, free parameters {len(qf_.parameters)}, R >= 0: {R_indef}",
        "consistent, 0 free parameters, R >= 0 refuted", qf_.consistent and qf_.parameters == () and R_indef is False,
        "Sec. 4-5"))
    free = port_form(ex.forms.F, S.x, ex.H).parameters
    checks.append(check_true("non-uniqueness: with the port (the paper's choice) every skew J works", len(free),
                             "6 free parameters (the entries of a 4 x 4 skew J)", len(free) == 6, "Sec. 4-5"))

    # the discrete scheme from the same F
    certificates.append(("mid-point rule on X' = F(X): discrete power balance H(X_{n+1}) - H(X_n) ="
                         " h e_i f_i(Xbar) (function-space identity)", discrete_power_balance(ex, midpoint_map(ex))))
    return certificates, checks


def simulations(p: Parameters, ex: OscillatorVanDerPol) -> dict:
    """The mid-point runs from inside and outside the limit cycle (one batch of two): ``"long"``
    (:func:`simulate` over ``p.steps``), ``"short"`` (h and h/2 over 150 steps of h, for the order of the
    quadrature mismatch) and ``"high precision"`` (the worst discrete balance mismatch at ``p.dps`` digits)."""
    phi = midpoint_map(ex)
    values = p.values(ex)
    y0 = [[0.0, 0.0, p.q_inside, 0.0], [0.0, 0.0, p.q_outside, 0.0]]
    short = 150
    return {"long": simulate(ex, phi, values, y0, p.h, p.steps, p.save_every),
            "short": [simulate(ex, phi, values, y0, hh, n, n) for hh, n in ((p.h, short), (p.h / 2, 2 * short))],
            "short steps": short,
            "high precision": _high_precision(ex, phi, values, y0, p.h, p.mp_steps, p.dps)}


def _labels(p: Parameters) -> tuple:
    return f"{p.q_inside:g}", f"{p.q_outside:g}"


def _amplitudes(run_) -> np.ndarray:
    """The late amplitudes of q (the last fifth of the run), per trajectory."""
    late = slice(int(0.8 * len(run_["t"])), None)
    return np.abs(run_["Y"][late, :, 2]).max(axis=0)


def _quadrature_mismatches(sims) -> list:
    return [np.abs(r["H"][-1] - r["H"][0] - r["trapezoid"][-1]).max() for r in sims["short"]]


def checks(p: Parameters, sims: dict) -> list:
    """The verdicts on the runs of :func:`simulations`: the power balances and the limit cycle."""
    out = []
    run_ = sims["long"]
    eps_m = np.finfo(float).eps
    for b, label in enumerate(_labels(p)):
        mismatch = np.abs(run_["H"][:, b] - run_["H"][0, b] - run_["supplied"][:, b]).max()
        scale = max(1.0, float(np.abs(run_["H"][:, b]).max()))
        out.append(check_below(
            f"q(0) = {label}: discrete power balance |H(X_n) - H(X_0) - sum h e_i f_i(Xbar)| over {p.steps} steps"
            " (rounding: bound 10 eps steps max|H|)", mismatch, 10 * eps_m * p.steps * scale, _S4 + ", power balance"))
    # the continuous balance to second order: halve h over a short window
    errs = _quadrature_mismatches(sims)
    order = np.log2(errs[0] / errs[1])
    out.append(check_close(
        f"H(t_n) - H(0) = int e_i f_i dt along the discrete trajectory (trapezoidal quadrature) to the scheme's"
        f" order 2: observed order of the mismatch at t = {sims['short steps'] * p.h:g} (h, h/2)", order, 2.0, 0.2,
        _S4 + ", power balance"))
    amp_in, amp_out = _amplitudes(run_)
    out.append(check_close(
        "Van der Pol limit cycle: late amplitudes of q from inside (q(0) = %g) and outside (q(0) = %g) agree"
        " (relative difference)" % (p.q_inside, p.q_outside), abs(amp_in - amp_out) / amp_out, 0.0, 0.05, _S4))
    out.append(check_close("Van der Pol limit cycle: amplitude of q near 2 (the uncoupled Van der Pol value)",
                           amp_in, 2.0, 0.1, _S4))
    out.append(check_below(
        f"mpmath {p.dps} digits, {p.mp_steps} steps: discrete power balance mismatch", sims["high precision"],
        10.0 ** (6 - p.dps) * p.mp_steps, _S4 + " (high precision)"))
    return out


def run(profile="quick", out=".") -> CaseResult:
    """Every symbolic stage of Section 4 as certificates and checks, plus the mid-point run."""
    t_start = time.perf_counter()
    p = Parameters.paper() if profile == "paper" else Parameters.quick()
    res = CaseResult(NAME, TITLE, SOURCE, profile, p)
    ex = oscillator_van_der_pol()
    res.certificates, symbolic_checks = certify(ex)
    sims = simulations(p, ex)
    res.checks = symbolic_checks + checks(p, sims)
    run_ = sims["long"]
    amp_in, amp_out = _amplitudes(run_)
    QQ = {c.coordinate.name: c.value for c in ex.q_structure.report.components}
    res.derivations.append(ex.derivation)
    res.derivations.append(ex.q_structure.derivation)
    res.figures = _figures(p, run_, _labels(p), out)
    res.findings = list(FINDINGS)
    res.notes = [
        "The paper gives no parameter values; ours: m = %g, Omega = %g, A = %g, epsilon = %g." % (p.m, p.Omega, p.A,
                                                                                                 p.epsilon),
        "Q o Q components: " + "; ".join(f"({k}) {v.expr}" for k, v in QQ.items()),
        "The oscillator y is undamped: its free oscillation excited by the transient persists; the limit cycle is"
        " that of the Van der Pol part (amplitude of q: %.4f from inside, %.4f from outside)." % (amp_in, amp_out),
        "Power-balance mismatch with the trapezoidal quadrature: %.2e (h), %.2e (h/2)." % tuple(
            _quadrature_mismatches(sims)),
    ]
    res.timings = {f"mid-point run (both initial states, {p.steps} steps)": run_["seconds"]}
    res.seconds = time.perf_counter() - t_start
    return res
