r"""Coupled Hamiltonian systems (S. Terakawa & T. Yaguchi, JSIAM Letters 14 (2022) 37-40).

Several Hamiltonian subsystems, each with blocks ``q_i, p_i`` (any sizes), a Hamiltonian
``H_i(q_i, p_i)`` and an interaction ``f_i`` added to its momentum equations:

    q_i' = (1/c_i) dH_i/dp_i,    p_i' = -(1/c_i) dH_i/dq_i + f_i,

on the chart ``(q_1, p_1, q_2, p_2, ...)`` with ``omega = sum_i c_i dq_i ^ dp_i``.  The
weight ``c_i`` is 1 for the paper's system (3); a semi-discretized PDE whose Hamiltonian
carries the grid factor ``dx`` (``H = sum_j (...) dx``) has ``c = dx``: its equations use the
discrete variational derivative ``dH/dp_j / dx`` (Furihata-Matsuo), as the paper's beam does.

Lemma 6, computed here for any system (generic or concrete), directly by the component
formula and through Cartan's formula ``L_X omega = d(i_X omega) + i_X d omega``:

    i_X omega = dH - sum_i c_i f_i . dq_i,      L_X omega = sum_i c_i dq_i ^ df_i.

**Sign error in the printed Lemma 6 (an error of the paper).**  The paper prints
``L_X omega = df_1 ^ dq_1 + df_2 ^ dq_2``, the NEGATIVE of the above.  ``L_X omega`` is fixed by
``omega := dq_1 ^ dp_1 + dq_2 ^ dp_2`` (the lemma's own) and the field of eq. (3) (``q' = H_p``,
``p' = -H_q + f``), whatever the convention for ``i_X``: it is ``dq_1 ^ df_1 + dq_2 ^ df_2`` (by
the component formula, by Cartan's formula, and from the flow).  The sign enters in the
paper's first line of the proof, ``i_X omega = (dp_1/dt) dq_1 - (dq_1/dt) dp_1 + ...``, which is
``-i_X omega`` for ``(i_X omega)(Y) = omega(X, Y)`` -- the convention under which the paper's
Definition 2 (``i_X omega = dH``) gives eq. (3).  The sign is carried through the proof,
Theorem 7 and Section 6 alike, so it is not damage of the converted text.  Theorem 7's
condition (the sum vanishes) is unaffected.  Tests: ``test_printed_lemma6_has_the_wrong_sign``,
``test_lemma6_sign_from_the_flow_plain_sympy`` (tests/geomcheck/structures/test_coupled.py).

**The beam + two-mass example (Section 6).**  Variables: ``u_i`` (deflection at
``x_i = i dx``, ``i = 1 .. N_x - 1``; ``u_0 = u_{N_x} = 0``, eq. (5)) and ``v_i = rho A u_t(x_i)``,
the momentum per unit length, exactly as the paper's ``H_el = sum_i (v_i^2/(rho A) + EI (delta_2
u_i)^2) dx / 2`` and ``u_i' = v_i/(rho A)`` (eq. (4)) imply; masses ``q_1, q_2`` with momenta
``p_j = m_j q_j'``.  The paper does not state the beam's symplectic form (a convention, two
readings).  With the canonical momenta ``dx v_i`` that its dx-weighted ``H_el`` and its discrete
variational derivatives ``(1/dx) dH_el/du_i`` imply, the form is ``dx sum_i du_i ^ dv_i``
(weight ``c = dx``) and ``omega = dx sum_i du_i ^ dv_i + dq_1 ^ dp_1 + dq_2 ^ dp_2``; with it
``L_X omega = (du_{n_b} - dq_1) ^ df``, exactly the paper's condition ``df ^ du_{n_b} - df ^ dq_1``
up to Lemma 6's sign, and it vanishes on the invariant submanifold
``{v_{n_b}/(rho A) = p_1/m_1, u_{n_b} - q_1 = C}``.  This reading holds.  With the plain form
``sum du_i ^ dv_i`` (and ``H_el/dx`` as the beam's Hamiltonian, which gives the same equations)
one gets ``(du_{n_b}/dx - dq_1) ^ df`` instead, which does not vanish on that submanifold (tests
``test_unweighted_beam_form_is_not_symplectic_on_submanifold``,
``test_section6_beam_form_readings_plain_sympy``).
Ghost nodes: ``u_{-1} = -u_1`` and ``u_{N_x+1} = -u_{N_x-1}`` (from ``u_xx = 0``: eq. (7) and its
analogue at ``x = L``, with eq. (5)).  The paper's eq. (6) prints the second as
``u_{N_x-1} = -u_{N_x}``, an index error of the paper (with ``u_{N_x} = 0`` it would force
``u_{N_x-1} = 0`` and it leaves ``u_{N_x+1}`` undefined); with the corrected ghosts
``EI delta_4 u_i`` is exactly the discrete variational derivative of ``H_el``
(tests ``test_delta4_is_variational_derivative``, ``test_ghost_node_of_eq6_plain_sympy``).
The grid: by eqs. (4)-(5) the unknowns are ``u_1 .. u_{N_x-1}`` and the boundary nodes
``x_0 = 0`` and ``x_{N_x} = N_x dx``, so the beam has ``N_x`` intervals.  :func:`beam_two_mass`
takes ``dx = 1/(N_x - 1)`` by default, which is the paper's ``dx = 0.02`` at ``N_x = 51``: 50
unknowns, 51 intervals, a beam of length ``51 dx = 1.02`` (the paper's ``L = 1`` is not matched
by its own ``N_x`` and ``dx``; see the findings of ``casestudies/terakawa2022_beam.py``), the
coupling point ``b = n_b dx = 0.2`` as printed, and 104 coordinates.

>>> import sympy
>>> from geomcheck.structures import generic_coupled_system, coupled_lie_derivative
>>> S = generic_coupled_system((1, 1))
>>> r = coupled_lie_derivative(S)
>>> r.cartan_check.holds, r.closed_form_check.holds, r.printed_check.holds
(True, True, False)
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Mapping, Sequence

import sympy
from sympy.core.function import AppliedUndef

from ..algebra import Chart
from ..certify.certificate import Certificate
from ..errors import (
    ContactPointError,
    ExpressionError,
    InteractionError,
    InvalidArgumentError,
    SubsystemShapeError,
    UnknownCoordinateError,
)
from ..fields import VectorField
from ..forms import Form, d, interior, lie
from ..latex import Derivation, distinct_nodes, tex_text
from ..maps import pullback, submanifold_parametrization
from ..zero import decide_all_zero
from .symplectic import certify_symplectic_vector_field, counterexample_of as _counterexample, show

__all__ = [
    "Subsystem",
    "CoupledSystem",
    "CoupledLieDerivative",
    "generic_coupled_system",
    "coupled_lie_derivative",
    "certify_interaction_condition",
    "certify_invariant_submanifold",
    "certify_symplectic_on_submanifold",
    "BeamTwoMass",
    "BeamSymplecticity",
    "beam_two_mass",
    "beam_symplecticity",
]


# --------------------------------------------------------------------------- the builder


@dataclass(frozen=True)
class Subsystem:
    """One Hamiltonian subsystem: blocks q, p, Hamiltonian H(q, p), interaction f.

    Parameters
    ----------
    q, p : sequences of Symbol (same length)
    hamiltonian : sympy expression in q, p (and constant parameters)
    interaction : sequence (one entry per momentum) or dict {momentum: expression}, optional
        The force f added to ``p'``; missing entries are 0.
    weight : expression, optional
        The factor c of this subsystem's form ``c sum dq ^ dp`` (default 1).
    name : str, optional
        The index used in derivations (default: the subsystem's position, from 1).

    Raises
    ------
    SubsystemShapeError
        ``len(q) != len(p)``, empty blocks, or an interaction of the wrong length.
    InteractionError
        An interaction dict names a coordinate that is not one of this subsystem's momenta.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.structures import Subsystem
    >>> q, p = sympy.symbols("q p")
    >>> Subsystem([q], [p], p**2/2 + q**2/2).interaction
    (0,)
    """

    q: tuple
    p: tuple
    hamiltonian: Any
    interaction: Any = None
    weight: Any = 1
    name: str = ""

    def __post_init__(self):
        q, p = tuple(self.q), tuple(self.p)
        if len(q) != len(p) or not q:
            raise SubsystemShapeError(
                f"subsystem {self.name or ''}: q has {len(q)} entries {list(q)} and p has {len(p)}"
                f" {list(p)}; two non-empty blocks of the same length were expected"
            )
        for x in q + p:
            if not isinstance(x, sympy.Symbol):
                raise ExpressionError(f"subsystem block entry {x!r} is not a sympy Symbol")
        f = self.interaction
        if f is None:
            f = (sympy.S.Zero,) * len(p)
        elif isinstance(f, Mapping):
            unknown = [k for k in f if k not in p]
            if unknown:
                raise InteractionError(
                    f"subsystem {self.name or ''}: the interaction targets {unknown}, which"
                    f" {'are' if len(unknown) > 1 else 'is'} not among its momenta {list(p)};"
                    " interactions act on momentum equations"
                )
            f = tuple(f.get(pi, sympy.S.Zero) for pi in p)
        else:
            f = tuple(f)
            if len(f) != len(p):
                raise SubsystemShapeError(
                    f"subsystem {self.name or ''}: the interaction has {len(f)} entries for"
                    f" {len(p)} momenta {list(p)}; one force per momentum was expected"
                )
        object.__setattr__(self, "q", q)
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "hamiltonian", sympy.sympify(self.hamiltonian))
        object.__setattr__(self, "interaction", tuple(sympy.sympify(e) for e in f))
        weight = sympy.sympify(self.weight)
        if weight == 0:
            raise InvalidArgumentError(f"subsystem {self.name or ''}: the weight of its form is 0")
        object.__setattr__(self, "weight", weight)


def _foreign(expr, chart_coords, parameters):
    """Symbols of expr that are neither coordinates of the system nor allowed constants."""
    syms = expr.free_symbols - chart_coords
    if parameters is None:
        return []
    return sorted(syms - set(parameters), key=str)


class CoupledSystem:
    """A coupled Hamiltonian system on the chart ``(q_1, p_1, q_2, p_2, ...)``.

    Parameters
    ----------
    subsystems : sequence of Subsystem
    parameters : sequence of Symbol, optional
        The constant symbols allowed in Hamiltonians and interactions; any other symbol that
        is not a coordinate of the system is refused.  When omitted, every symbol that is not
        a coordinate of the system counts as a constant (as for :class:`geomcheck.Map`: the
        meaning of a system never depends on charts created elsewhere in the process).
    expand : bool
        Expand the vector field's components (default True; cheap and exact, and it lets
        cancellations in ``L_X omega`` happen structurally).

    Attributes
    ----------
    chart, omega, vector_field, energy : the chart, ``sum_i c_i dq_i ^ dp_i``, X, ``sum_i H_i``.

    Raises
    ------
    InteractionError
        An interaction names a coordinate outside the system, or a Hamiltonian
        depends on another subsystem's coordinates (couple through interactions).
    UnknownCoordinateError
        A Hamiltonian names a coordinate outside the system.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.structures import Subsystem, CoupledSystem
    >>> q1, p1, q2, p2, k = sympy.symbols("q1 p1 q2 p2 k")
    >>> S = CoupledSystem([Subsystem([q1], [p1], p1**2/2, [k*(q2 - q1)]),
    ...                    Subsystem([q2], [p2], p2**2/2, [-k*(q2 - q1)])], parameters=[k])
    >>> S.omega
    Form(dq1^dp1 + dq2^dp2)
    >>> S.vector_field
    VectorField({q1: p1, p1: -k*q1 + k*q2, q2: p2, p2: k*q1 - k*q2})
    """

    __slots__ = ("subsystems", "parameters", "chart", "omega", "vector_field", "energy")

    def __setattr__(self, name, value):
        raise AttributeError(f"CoupledSystem is immutable; cannot set {name!r} (build a new system)")

    def __init__(self, subsystems: Iterable[Subsystem], parameters: Iterable[sympy.Symbol] | None = None,
                 expand: bool = True):
        set_ = lambda name, value: object.__setattr__(self, name, value)  # noqa: E731
        subs = []
        for i, s in enumerate(subsystems):
            if not isinstance(s, Subsystem):
                raise ExpressionError(f"CoupledSystem expects Subsystem objects, got {type(s).__name__} {s!r}")
            subs.append(s if s.name else Subsystem(s.q, s.p, s.hamiltonian, s.interaction, s.weight, str(i + 1)))
        if not subs:
            raise SubsystemShapeError("a coupled system needs at least one subsystem")
        set_("subsystems", tuple(subs))
        set_("parameters", None if parameters is None else tuple(parameters))
        coords = [x for s in subs for x in s.q + s.p]
        chart = Chart(coords)
        set_("chart", chart)
        allowed = chart.coordinate_set
        for s in subs:
            own = frozenset(s.q + s.p)
            h = chart.check_expression(s.hamiltonian, f"Hamiltonian of subsystem {s.name}")
            bad = _foreign(h, allowed, self.parameters)
            if bad:
                raise UnknownCoordinateError(
                    f"the Hamiltonian of subsystem {s.name} ({h}) contains {', '.join(map(str, bad))},"
                    f" not coordinates of the system {chart!r} or declared parameters"
                )
            others = sorted(h.free_symbols & (allowed - own), key=str)
            if others:
                raise InteractionError(
                    f"the Hamiltonian of subsystem {s.name} depends on {', '.join(map(str, others))} of"
                    f" another subsystem; H_{s.name} must be a function of {', '.join(map(str, s.q + s.p))}"
                    " only (couple subsystems through interaction terms)"
                )
            for pi, f in zip(s.p, s.interaction):
                f = chart.check_expression(f, f"interaction on {pi}")
                bad = _foreign(f, allowed, self.parameters)
                if bad:
                    raise InteractionError(
                        f"the interaction on {pi} ({f}) names {', '.join(map(str, bad))}, which"
                        f" {'are' if len(bad) > 1 else 'is'} not coordinates of the system"
                        f" ({', '.join(c.name for c in chart.coords)}) or declared parameters"
                    )
        set_("omega", self._omega())
        set_("vector_field", self._field(expand))
        set_("energy", sympy.Add(*[s.hamiltonian for s in subs]))

    def _omega(self) -> Form:
        chart = self.chart
        terms = {}
        for s in self.subsystems:
            for qi, pi in zip(s.q, s.p):
                terms[(chart.index(qi), chart.index(pi))] = s.weight
        return Form(chart, terms)

    def _field(self, expand) -> VectorField:
        chart = self.chart
        comps = {}
        tidy = sympy.expand if expand else (lambda e: e)
        for s in self.subsystems:
            # one gradient pass (term by term, each term by the coordinates it contains)
            grad = d(Form.function(chart, s.hamiltonian)).terms
            for qi, pi, f in zip(s.q, s.p, s.interaction):
                Hq = grad.get((chart.index(qi),), sympy.S.Zero)
                Hp = grad.get((chart.index(pi),), sympy.S.Zero)
                comps[qi] = tidy(Hp / s.weight)
                comps[pi] = tidy(-Hq / s.weight + f)
        return VectorField(chart, comps)

    @property
    def interactions(self) -> dict:
        """``{momentum: interaction force}`` for the nonzero interactions."""
        return {pi: f for s in self.subsystems for pi, f in zip(s.p, s.interaction) if f != 0}

    def closed_form(self) -> Form:
        """Lemma 6's right-hand side as computed here: ``sum_i c_i dq_i ^ df_i``."""
        chart = self.chart
        out = Form(chart, {})
        for s in self.subsystems:
            for qi, f in zip(s.q, s.interaction):
                if f != 0:
                    out = out + s.weight * (chart.d(qi) ^ chart.d(f))
        return out

    def printed_closed_form(self) -> Form:
        """Lemma 6's right-hand side as printed in the paper: ``sum_i c_i df_i ^ dq_i``."""
        chart = self.chart
        out = Form(chart, {})
        for s in self.subsystems:
            for qi, f in zip(s.q, s.interaction):
                if f != 0:
                    out = out + s.weight * (chart.d(f) ^ chart.d(qi))
        return out

    def __repr__(self):
        sizes = ", ".join(str(len(s.q)) for s in self.subsystems)
        return f"CoupledSystem({len(self.subsystems)} subsystems of sizes {sizes} on {self.chart!r})"

    def _latex(self, printer=None):
        return show(self.vector_field)

    def _repr_latex_(self):
        return f"${self._latex()}$"


def generic_coupled_system(sizes: Sequence[int] = (1, 1),
                           interaction_depends_on: Literal["all", "positions"] = "all") -> CoupledSystem:
    """Subsystems with undefined ``H_i(q_i, p_i)`` and undefined interactions ``f_i``.

    Parameters
    ----------
    sizes : sequence of int
        The block size k_i of each subsystem (any lengths).
    interaction_depends_on : "all" or "positions"
        Whether each ``f_{ij}`` is an undefined function of every coordinate or of the
        positions only.

    Examples
    --------
    >>> from geomcheck.structures import generic_coupled_system
    >>> generic_coupled_system((2, 1)).chart.coords
    (q_{1,1}, q_{1,2}, p_{1,1}, p_{1,2}, q_2, p_2)
    >>> generic_coupled_system((1, 1)).subsystems[0].hamiltonian
    H_1(q_1, p_1)
    """
    sizes = list(sizes)
    if not sizes or any(not isinstance(k, int) or k < 1 for k in sizes):
        raise SubsystemShapeError(f"block sizes must be positive integers, got {sizes}")
    # the names a paper uses: q_1, p_1, H_1, f_1 for blocks of one coordinate, q_{1,2} and f_{1,2}
    # for the second coordinate of the first block
    def block(letter, i, k):
        if k == 1:
            return (sympy.Symbol(f"{letter}_{i + 1}"),)
        return tuple(sympy.Symbol(f"{letter}_{{{i + 1},{j + 1}}}") for j in range(k))

    qs = [block("q", i, k) for i, k in enumerate(sizes)]
    ps = [block("p", i, k) for i, k in enumerate(sizes)]
    if interaction_depends_on == "all":
        args = [x for q, p in zip(qs, ps) for x in q + p]
    elif interaction_depends_on == "positions":
        args = [x for q in qs for x in q]
    else:
        raise InvalidArgumentError(f"interaction_depends_on must be 'all' or 'positions', got {interaction_depends_on!r}")
    subs = []
    for i, (q, p) in enumerate(zip(qs, ps)):
        H = sympy.Function(f"H_{i + 1}")(*q, *p)
        f = [sympy.Function(f"f_{i + 1}" if len(q) == 1 else f"f_{{{i + 1},{j + 1}}}")(*args) for j in range(len(q))]
        subs.append(Subsystem(q, p, H, f, name=str(i + 1)))
    return CoupledSystem(subs)


# --------------------------------------------------------------------------- Lemma 6


def _own_functions(obj) -> dict:
    """``{name: arguments}`` of the undefined functions applied to distinct symbols in ``obj`` (a form,
    an expression): the functions a derivation may write without their arguments."""
    exprs = list(obj.terms.values()) if isinstance(obj, Form) else [sympy.sympify(obj)]
    out = {}
    for e in exprs:
        for f in e.atoms(AppliedUndef):
            if all(isinstance(a, sympy.Symbol) for a in f.args) and len(set(f.args)) == len(f.args):
                out.setdefault(f.func.__name__, f.args)
    return out


def _compact(obj):
    """``obj`` with every undefined function at its own arguments, and every derivative of one, replaced
    by a symbol printed as a paper writes it: ``H_1`` and ``\\partial H_1/\\partial q_1`` (the arguments are
    said once, by :func:`_arguments_phrase`)."""
    def rename(e):
        table = {}
        for node in distinct_nodes(e):
            if isinstance(node, sympy.Derivative) and isinstance(node.expr, AppliedUndef):
                f = node.expr
                if not (all(isinstance(a, sympy.Symbol) for a in f.args) and len(set(f.args)) == len(f.args)):
                    continue
                if not all(v in f.args and isinstance(n, (int, sympy.Integer)) for v, n in node.variable_count):
                    continue
                order = sum(int(n) for _, n in node.variable_count)
                below = r"\,".join(r"\partial " + sympy.latex(v) + ("^{%d}" % n if n > 1 else "")
                                    for v, n in node.variable_count)
                top = r"\partial" + ("^{%d}" % order if order > 1 else "") + " " + sympy.latex(sympy.Symbol(f.func.__name__))
                table[node] = sympy.Dummy(r"\frac{" + top + "}{" + below + "}")
        for f in e.atoms(AppliedUndef):
            if all(isinstance(a, sympy.Symbol) for a in f.args) and len(set(f.args)) == len(f.args):
                table.setdefault(f, sympy.Dummy(sympy.latex(sympy.Symbol(f.func.__name__))))
        return e.xreplace(table) if table else e

    if isinstance(obj, Form):
        return Form._raw(obj.chart, {k: rename(v) for k, v in obj.terms.items()}, obj._deg)
    return rename(sympy.sympify(obj))


def _arguments_phrase(functions: Mapping) -> str:
    """``where $H_1 = H_1(q_1, p_1)$ and ...``: what the compact names stand for."""
    if not functions:
        return ""
    parts = []
    for name, args in sorted(functions.items(), key=lambda t: (len(t[1]), t[0])):
        n = sympy.latex(sympy.Symbol(name))
        parts.append("$" + n + " = " + n + "(" + ", ".join(sympy.latex(a) for a in args) + ")$")
    return "where " + (", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0])


_SLOTS_JET = re.compile(r"d\^(\d+)([^/\s(]+)/((?:dx\d+(?:\^\d+)?)+)\(")


def _user_jets(text: str, functions: Mapping) -> str:
    """The zero test's names of jets, ``d^1f_1/dx2(...)``, in the user's notation: ``df_1/dp_1(...)``
    (the slots named after the arguments the function was applied to)."""
    def named(m):
        order, name, slots = int(m.group(1)), m.group(2), m.group(3)
        args = functions.get(name)
        if args is None:
            return m.group(0)
        below = []
        for k, n in re.findall(r"dx(\d+)(?:\^(\d+))?", slots):
            k = int(k) - 1
            if k >= len(args):
                return m.group(0)
            below.append("d" + str(args[k]) + (f"^{n}" if n else ""))
        return ("d" if order == 1 else f"d^{order}") + name + "/" + "".join(below) + "("
    return _SLOTS_JET.sub(named, str(text))


def _equality_certificate(claim, residual: Form, D: Derivation, method_prefix="", functions=None) -> Certificate:
    decision = residual.zero_decision()
    point = _counterexample(residual, decision)
    method = method_prefix + decision.method
    if functions:
        method = _user_jets(method, functions)
        point = {_user_jets(k, functions) if isinstance(k, str) else k: v for k, v in point.items()} \
            if point else point
    return Certificate.from_decision(claim, decision, method=method, residual=residual, counterexample=point,
                                     derivation=D)


@dataclass(frozen=True)
class CoupledLieDerivative:
    """Lemma 6 computed: ``L_X omega`` directly and by Cartan's formula, and compared.

    Attributes
    ----------
    interior : Form
        ``i_X omega``.
    cartan : Form
        ``d(i_X omega) + i_X d omega`` (Cartan's formula).
    direct : Form
        ``L_X omega`` by the component formula (:func:`geomcheck.lie`).
    closed_form, printed : Form
        ``sum_i c_i dq_i ^ df_i`` (what this module derives) and the paper's printed
        ``sum_i c_i df_i ^ dq_i``.
    cartan_check, closed_form_check, printed_check : Certificate
        ``direct == cartan``, ``direct == closed_form``, ``direct == printed``.
    derivation : Derivation
    """

    system: CoupledSystem
    interior: Form
    cartan: Form
    direct: Form
    closed_form: Form
    printed: Form
    cartan_check: Certificate
    closed_form_check: Certificate
    printed_check: Certificate
    derivation: Derivation = field(repr=False)

    def latex(self) -> str:
        return self.derivation.latex()


def coupled_lie_derivative(system: CoupledSystem) -> CoupledLieDerivative:
    """Lemma 6: ``L_X omega`` of a coupled system, directly and through Cartan's formula.

    The derivation typesets the paper's steps in block notation (Cartan's formula,
    ``i_X omega``, ``d(i_X omega)`` with the cancelling second derivatives, the result) and
    the forms the engine computed for this system (summarized when large).

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.structures import Subsystem, CoupledSystem, coupled_lie_derivative
    >>> q1, p1, q2, p2 = sympy.symbols("q1 p1 q2 p2")
    >>> S = CoupledSystem([Subsystem([q1], [p1], p1**2/2, [q2]), Subsystem([q2], [p2], p2**2/2)])
    >>> coupled_lie_derivative(S).direct          # = dq1 ^ d(q2)
    Form(dq1^dq2)
    """
    if not isinstance(system, CoupledSystem):
        raise ExpressionError(f"coupled_lie_derivative expects a CoupledSystem, got {type(system).__name__}")
    X, w = system.vector_field, system.omega
    dw = d(w)
    i_w = interior(X, w)
    cartan = d(i_w) + interior(X, dw)
    direct = lie(X, w)
    closed = system.closed_form()
    printed = system.printed_closed_form()

    D = Derivation(r"Lemma 6: $\mathcal{L}_X\omega$ for the coupled system")
    # the computed forms in the user's notation: H_1 and its derivatives, without arguments
    functions = _own_functions(direct)
    for extra in (i_w, cartan):
        functions.update({k: v for k, v in _own_functions(extra).items() if k not in functions})

    def user(obj):
        return show(_compact(obj))

    subs = system.subsystems
    qn = {s.name: sympy.latex(sympy.Symbol(f"q_{s.name}")) for s in subs}
    pn = {s.name: sympy.latex(sympy.Symbol(f"p_{s.name}")) for s in subs}
    fn = {s.name: sympy.latex(sympy.Symbol(f"f_{s.name}")) for s in subs}
    Hn = {s.name: sympy.latex(sympy.Symbol(f"H_{s.name}")) for s in subs}
    cw = {s.name: ("" if s.weight == 1 else sympy.latex(s.weight) + r"\,") for s in subs}
    omega_sym = " + ".join(cw[n] + r"\mathrm{d}" + qn[n] + r"\wedge\mathrm{d}" + pn[n] for n in qn)
    D = D.add(r"The system is $\dot q_i = c_i^{-1}\partial H_i/\partial p_i$, "
              r"$\dot p_i = -c_i^{-1}\partial H_i/\partial q_i + f_i$ with the form",
              r"\omega &= " + omega_sym + r" = " + user(w))
    if functions:
        D = D.add(_arguments_phrase(functions) + ".")
    D = D.add(r"By Cartan's formula", r"\mathcal{L}_X\omega &= \mathrm{d}(i_X\omega) + i_X(\mathrm{d}\omega),"
              r" \qquad \mathrm{d}\omega = " + user(dw))
    ix = r" \\ &\quad + ".join(
        r"\frac{\partial " + Hn[n] + r"}{\partial " + pn[n] + r"}\cdot\mathrm{d}" + pn[n]
        + r" + \left(\frac{\partial " + Hn[n] + r"}{\partial " + qn[n] + r"} - " + cw[n] + fn[n]
        + r"\right)\cdot\mathrm{d}" + qn[n] for n in qn)
    D = D.add(r"The interior product is ($i_X(\mathrm{d}q\wedge\mathrm{d}p) = \dot q\,\mathrm{d}p - \dot p\,\mathrm{d}q$)",
              r"i_X\omega &= " + ix + r" \\ &= " + user(i_w))
    dix = r" \\ &\quad + ".join(
        r"\left(\frac{\partial^2 " + Hn[n] + r"}{\partial " + pn[n] + r"\partial " + qn[n] + r"}\mathrm{d}" + qn[n]
        + r" + \frac{\partial^2 " + Hn[n] + r"}{\partial " + pn[n] + r"^2}\mathrm{d}" + pn[n] + r"\right)\wedge\mathrm{d}"
        + pn[n] + r" \\ &\quad + \left(\frac{\partial^2 " + Hn[n] + r"}{\partial " + qn[n] + r"^2}\mathrm{d}" + qn[n]
        + r" + \frac{\partial^2 " + Hn[n] + r"}{\partial " + qn[n] + r"\partial " + pn[n] + r"}\mathrm{d}" + pn[n]
        + r" - " + cw[n] + r"\mathrm{d}" + fn[n] + r"\right)\wedge\mathrm{d}" + qn[n] for n in qn)
    D = D.add(r"and its exterior derivative", r"\mathrm{d}(i_X\omega) &= " + dix + r" \\ &= " + user(cartan))
    result = " + ".join(cw[n] + r"\mathrm{d}" + qn[n] + r"\wedge\mathrm{d}" + fn[n] for n in qn)
    D = D.add(r"The mixed second derivatives cancel (symmetric Hessians), leaving",
              r"\mathcal{L}_X\omega &= " + result + r" \\ &= " + user(closed))
    D = D.add(r"The component formula gives, independently,", r"\mathcal{L}_X\omega &= " + user(direct))

    cartan_check = _equality_certificate(
        "L_X omega (component formula) == d(i_X omega) + i_X d omega", direct - cartan,
        Derivation("Cartan's formula").add("The difference", r"R &= " + user(direct - cartan)), functions=functions)
    closed_check = _equality_certificate(
        "L_X omega == sum_i c_i dq_i ^ df_i", direct - closed,
        Derivation("Lemma 6 (as derived here)").add("The difference", r"R &= " + user(direct - closed)),
        functions=functions)
    printed_sym = " + ".join(cw[n] + r"\mathrm{d}" + fn[n] + r"\wedge\mathrm{d}" + qn[n] for n in qn)
    printed_check = _equality_certificate(
        "L_X omega == sum_i c_i df_i ^ dq_i (as printed)", direct - printed,
        Derivation("Lemma 6 (as printed)").add("The difference", r"R &= " + user(direct - printed)),
        functions=functions)
    verdict = {True: "agrees", False: "disagrees", None: "is undecided"}
    D = D.add(r"Cartan's formula and the component formula: the difference vanishes ("
              + tex_text(cartan_check.method) + ").")
    D = D.concluding(
        r"The paper prints $\mathcal{L}_X\omega = " + printed_sym + r"$; the computation "
        + verdict[printed_check.holds] + r" with it (" + tex_text(printed_check.method) + r"). "
        r"The sign comes from the paper's $i_X\omega = \dot p\,\mathrm{d}q - \dot q\,\mathrm{d}p$, "
        r"the negative of $i_X(\mathrm{d}q\wedge\mathrm{d}p)$."
        if printed_check.holds is False else
        r"The paper's printed form $" + printed_sym + r"$ " + verdict[printed_check.holds]
        + r" here (" + tex_text(printed_check.method) + ").")
    return CoupledLieDerivative(system, i_w, cartan, direct, closed, printed,
                                cartan_check, closed_check, printed_check, D)


# --------------------------------------------------------------------------- Theorem 7


def certify_interaction_condition(system: CoupledSystem) -> Certificate:
    """Theorem 7: ``sum_i c_i dq_i ^ df_i == 0`` implies ``L_X omega == 0``.

    The residual is the interaction two-form; the certificate holds only when it
    vanishes AND equals ``L_X omega`` (Lemma 6, checked by the component formula).

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.structures import Subsystem, CoupledSystem, certify_interaction_condition
    >>> q1, p1, q2, p2 = sympy.symbols("q1 p1 q2 p2")
    >>> V = sympy.Function("V")(q1, q2)          # forces from a potential: Hamiltonian
    >>> S = CoupledSystem([Subsystem([q1], [p1], p1**2/2, [-V.diff(q1)]),
    ...                    Subsystem([q2], [p2], p2**2/2, [-V.diff(q2)])])
    >>> certify_interaction_condition(S).holds
    True
    """
    if not isinstance(system, CoupledSystem):
        raise ExpressionError(f"certify_interaction_condition expects a CoupledSystem, got {type(system).__name__}")
    closed = system.closed_form()
    direct = lie(system.vector_field, system.omega)
    lemma = decide_all_zero((direct - closed).terms)
    decision = closed.zero_decision()
    holds, method = decision.is_zero, decision.method
    if holds is True and lemma.is_zero is not True:
        holds, method = lemma.is_zero, method + "; but L_X omega - sum c dq ^ df is not shown zero: " + lemma.method
    elif holds is True:
        method = method + "; and L_X omega equals it (" + lemma.method + ")"
    D = Derivation(r"Theorem 7: the coupled system is symplectic if $\sum_i c_i\,\mathrm{d}q_i\wedge\mathrm{d}f_i = 0$")
    D = D.add(r"By Lemma 6, $\mathcal{L}_X\omega$ is the interaction two-form", r"\mathcal{L}_X\omega &= "
              r"\sum_i c_i\,\mathrm{d}q_i\wedge\mathrm{d}f_i = " + show(closed))
    D = D.add(r"The residual, which must vanish, is", r"R &= " + show(closed))
    return Certificate(
        claim="sum_i c_i dq_i ^ df_i == 0 (Theorem 7), so L_X omega == 0",
        holds=holds, method=method, stage=decision.stage, residual=closed,
        counterexample=_counterexample(closed, decision), derivation=D, soundness=getattr(decision, "soundness", None),
    )


# --------------------------------------------------------------------------- submanifolds


def _field_of(X):
    if isinstance(X, CoupledSystem):
        return X.vector_field
    if isinstance(X, VectorField):
        return X
    raise ExpressionError(f"expected a VectorField or CoupledSystem, got {type(X).__name__} {X!r}")


def _equations_tex(equations):
    return r" \\ ".join(sympy.latex(e) + r" &= 0" for e in equations)


def certify_invariant_submanifold(X: VectorField | CoupledSystem, equations: Sequence[sympy.Expr],
                                  solve_for: Sequence[sympy.Symbol | str] | None = None,
                                  parameters: Iterable[sympy.Symbol] | None = None,
                                  guess: Mapping[sympy.Symbol, sympy.Expr | float] | None = None) -> Certificate:
    """Certify that ``{equations == 0}`` is invariant under the flow of X: ``X(g) == 0`` on it.

    Each ``X(g_a)`` is pulled back through a parametrization of the submanifold
    (:func:`geomcheck.submanifold_parametrization`) and must vanish there.

    Examples
    --------
    >>> import geomcheck as gc
    >>> from geomcheck.structures import certify_invariant_submanifold
    >>> M = gc.Chart("x y"); x, y = M.coords
    >>> rotation = gc.VectorField(M, {x: -y, y: x})
    >>> certify_invariant_submanifold(rotation, [x**2 + y**2 - 1], solve_for=[y]).holds
    True
    >>> certify_invariant_submanifold(rotation, [y - 1]).holds
    False
    """
    X = _field_of(X)
    chart = X.chart
    eqs = [chart.check_expression(e, "submanifold equation") for e in equations]
    S, param = submanifold_parametrization(chart, eqs, solve_for, parameters, guess)
    rates = [X(g) for g in eqs]
    pulled = [pullback(Form.function(chart, r), param) for r in rates]
    relations = tuple(dep.relation for f in pulled for dep in f.dependence)
    values = {a: f.terms.get((), sympy.S.Zero) for a, f in enumerate(pulled)}
    decision = decide_all_zero(values, relations=relations) if relations else decide_all_zero(values)
    D = Derivation(r"The submanifold is invariant under the flow of $X$")
    D = D.add(r"The submanifold is", _equations_tex(eqs))
    D = D.add(r"Along $X$ the defining functions change at the rates",
              r" \\ ".join(r"X(g_{%d}) &= " % (a + 1) + show(r) for a, r in enumerate(rates)))
    D = D.add(r"On the submanifold (parametrized by " + ", ".join("$" + sympy.latex(c) + "$" for c in S.coords[:6])
              + (r", \dots" if S.dim > 6 else "") + r") these are, and must vanish,",
              r" \\ ".join(r"X(g_{%d})|_S &= " % (a + 1) + show(v) for a, v in values.items()))
    point = dict(decision.point or {}) if decision.is_zero is False else None
    if point is not None and decision.index is not None:
        point["equation"] = eqs[decision.index]
    return Certificate.from_decision("X(g) == 0 on {g == 0}", decision, residual=values, counterexample=point,
                                     derivation=D)


def certify_symplectic_on_submanifold(system: CoupledSystem | tuple[VectorField, Form], equations: Sequence[sympy.Expr],
                                      solve_for: Sequence[sympy.Symbol | str] | None = None,
                                      parameters: Iterable[sympy.Symbol] | None = None,
                                      guess: Mapping[sympy.Symbol, sympy.Expr | float] | None = None,
                                      method: Literal["pullback", "restrict"] = "pullback") -> Certificate:
    """Certify that ``L_X omega`` restricts to zero on ``{equations == 0}``.

    Parameters
    ----------
    system : CoupledSystem or (VectorField, Form)
    equations : sequence of expressions, each ``== 0`` on the submanifold
    solve_for, parameters, guess : see :func:`geomcheck.submanifold_parametrization`
    method : "pullback" or "restrict"
        Pull back through the parametrization (:func:`geomcheck.pullback`) or restrict by
        the defining equations (:func:`geomcheck.restrict`); the results are the same form.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.structures import Subsystem, CoupledSystem, certify_symplectic_on_submanifold
    >>> q1, p1, q2, p2 = sympy.symbols("q1 p1 q2 p2")
    >>> S = CoupledSystem([Subsystem([q1], [p1], p1**2/2, [q2]), Subsystem([q2], [p2], p2**2/2)])
    >>> certify_symplectic_on_submanifold(S, [q2 - 1]).holds     # dq1 ^ dq2 = 0 where q2 = 1
    True
    """
    if isinstance(system, CoupledSystem):
        X, w = system.vector_field, system.omega
    else:
        X, w = system
    if method not in ("pullback", "restrict"):
        raise InvalidArgumentError(f"method must be 'pullback' or 'restrict', got {method!r}")
    L = lie(X, w)
    eqs = [w.chart.check_expression(e, "submanifold equation") for e in equations]
    S, param = submanifold_parametrization(w.chart, eqs, solve_for, parameters, guess)
    if method == "pullback":
        restricted = pullback(L, param)
    else:
        from ..maps import restrict

        restricted = restrict(L, eqs, solve_for, parameters, guess)
    decision = restricted.zero_decision()
    D = Derivation(r"$\mathcal{L}_X\omega$ vanishes on the submanifold $S$")
    D = D.add(r"On the whole phase space", r"\mathcal{L}_X\omega &= " + show(L))
    D = D.add(r"The submanifold $S$ is", _equations_tex(eqs))
    how = "pulled back through the parametrization" if method == "pullback" else "restricted by the defining equations"
    D = D.add(r"With $\iota: S \to M$ its inclusion (" + how + r"), the residual, which must vanish, is",
              r"\iota^*\mathcal{L}_X\omega &= " + show(restricted))
    return Certificate.from_decision("iota^* L_X omega == 0", decision, residual=restricted,
                                     counterexample=_counterexample(restricted, decision), derivation=D)


# --------------------------------------------------------------------------- Section 6: beam + masses


@dataclass(frozen=True)
class BeamTwoMass:
    """The semi-discretized beam coupled to a two-mass spring (Section 6).

    Attributes
    ----------
    system : CoupledSystem
        Beam (weight dx) and spring subsystems; ``system.chart`` is
        ``(u_1..u_{N_x-1}, v_1..v_{N_x-1}, q_1, q_2, p_1, p_2)``.
    u, v : tuples of Symbol
        Beam deflections and momenta per unit length (``v = rho A u_t``).
    q, p : tuples (q1, q2), (p1, p2)
    force : expression
        The interaction magnitude f (on ``v_{n_b}`` as ``f/dx``, on ``p_1`` as ``-f``).
    n_x, n_b : int
    values : dict
        ``{"rho", "A", "E", "I", "m1", "m2", "k", "dx"}``: numbers or symbols.
    C : Symbol
        The constant of the submanifold ``u_{n_b} - q_1 = C``.
    """

    system: CoupledSystem
    u: tuple
    v: tuple
    q: tuple
    p: tuple
    force: Any
    n_x: int
    n_b: int
    values: dict
    C: Any

    @property
    def submanifold(self) -> tuple:
        """``(v_{n_b}/(rho A) - p_1/m_1, u_{n_b} - q_1 - C)``: both vanish on the submanifold."""
        val = self.values
        j = self.n_b - 1
        return (self.v[j] / (val["rho"] * val["A"]) - self.p[0] / val["m1"], self.u[j] - self.q[0] - self.C)

    @property
    def parameters(self) -> tuple:
        """The constant symbols of the submanifold equations (symbolic parameters and C)."""
        return tuple(self.system.parameters or ()) + (self.C,)

    @property
    def solve_for(self) -> tuple:
        return (self.v[self.n_b - 1], self.u[self.n_b - 1])

    def delta4(self, i: int) -> sympy.Expr:
        """``delta_4 u_i`` with the boundary values and ghost nodes."""
        return _delta4(self.u, self.n_x, self.values["dx"], i)


def _node(u, n_x, i):
    """u_i with u_0 = u_{N_x} = 0 and the ghosts u_{-1} = -u_1, u_{N_x+1} = -u_{N_x-1}."""
    if i in (0, n_x):
        return sympy.S.Zero
    if i == -1:
        return -u[0]
    if i == n_x + 1:
        return -u[n_x - 2]
    return u[i - 1]


def _delta2(u, n_x, dx, i):
    U = lambda j: _node(u, n_x, j)  # noqa: E731
    return (U(i + 1) - 2 * U(i) + U(i - 1)) / dx**2


def _delta4(u, n_x, dx, i):
    U = lambda j: _node(u, n_x, j)  # noqa: E731
    return (U(i + 2) - 4 * U(i + 1) + 6 * U(i) - 4 * U(i - 1) + U(i - 2)) / dx**4


_PAPER = {"rho": 10, "A": 1, "E": 1, "I": 1, "m1": sympy.Rational(1, 10), "m2": sympy.Rational(1, 10),
          "k": sympy.Rational(1, 2)}
_SYMBOL_NAMES = {"rho": "rho", "A": "A", "E": "E", "I": "I", "m1": "m_1", "m2": "m_2", "k": "k", "dx": "Delta_x"}


def beam_two_mass(n_x: int = 51, n_b: int = 10, *, dx: sympy.Expr | float | None = None, symbolic: bool = False,
                  **values: sympy.Expr | float) -> BeamTwoMass:
    """Build the beam + two-mass system of Section 6 at any resolution.

    Parameters
    ----------
    n_x : int
        The paper's N_x: unknowns ``u_1 .. u_{N_x-1}`` (``2 N_x + 2`` coordinates).
    n_b : int
        The coupling node, ``1 <= n_b <= N_x - 1``.
    dx : number, optional
        Grid spacing (default ``1/(N_x - 1)``: the paper's 0.02 at N_x = 51).  The boundary nodes are
        ``x_0 = 0`` and ``x_{N_x} = N_x dx`` (eq. (5)), so the beam's length is ``N_x dx`` (1.02 at the
        default ``N_x = 51``).
    symbolic : bool
        Use symbols ``rho, A, E, I, m_1, m_2, k, Delta_x`` for every parameter not
        given in ``values``.
    **values
        ``rho, A, E, I, m1, m2, k``: default the paper's 10, 1, 1, 1, 1/10, 1/10, 1/2.

    Raises
    ------
    ContactPointError
        ``n_b`` is not a node of the grid's interior.
    InvalidArgumentError
        ``n_x < 3`` or an unknown parameter name.

    Examples
    --------
    >>> from geomcheck.structures import beam_two_mass
    >>> B = beam_two_mass()
    >>> B.system.chart.dim, B.values["dx"]
    (104, 1/50)
    """
    if isinstance(n_x, bool) or not isinstance(n_x, int) or n_x < 3:
        raise InvalidArgumentError(f"n_x must be an integer >= 3 (unknowns u_1..u_(n_x - 1)), got {n_x!r}")
    if isinstance(n_b, bool) or not isinstance(n_b, (int, sympy.Integer)) or not 1 <= int(n_b) <= n_x - 1:
        raise ContactPointError(
            f"the coupling node n_b = {n_b!r} is outside the grid: an integer 1 <= n_b <= {n_x - 1}"
            f" (an interior node of u_0 .. u_{n_x}) was expected"
        )
    n_b = int(n_b)
    unknown = set(values) - set(_PAPER)
    if unknown:
        raise InvalidArgumentError(f"unknown parameters {sorted(unknown)}; expected some of {sorted(_PAPER)}")
    val = {}
    for key, default in _PAPER.items():
        if key in values:
            val[key] = sympy.sympify(values[key])
        else:
            val[key] = sympy.Symbol(_SYMBOL_NAMES[key], positive=True) if symbolic else sympy.sympify(default)
    if dx is None:
        dx = sympy.Symbol("Delta_x", positive=True) if symbolic else sympy.Rational(1, n_x - 1)
    val["dx"] = sympy.sympify(dx)
    rho, A, E, I, m1, m2, k, h = (val[n] for n in ("rho", "A", "E", "I", "m1", "m2", "k", "dx"))
    u = sympy.symbols(f"u1:{n_x}")
    v = sympy.symbols(f"v1:{n_x}")
    q1, q2, p1, p2 = sympy.symbols("q1 q2 p1 p2")
    H_el = sympy.Add(*[(v[i - 1] ** 2 / (rho * A) + E * I * _delta2(u, n_x, h, i) ** 2) * h / 2
                       for i in range(1, n_x)])
    H_sp = p1**2 / (2 * m1) + p2**2 / (2 * m2) + k / 2 * (q2 - q1) ** 2
    f = sympy.expand(rho * A * h * m1 / (rho * A * h + m1)
                     * (E * I / (rho * A) * _delta4(u, n_x, h, n_b) + k / m1 * (q2 - q1)))
    F = [sympy.S.Zero] * (n_x - 1)
    F[n_b - 1] = f / h
    beam = Subsystem(u, v, H_el, F, weight=h, name="el")
    spring = Subsystem((q1, q2), (p1, p2), H_sp, (-f, sympy.S.Zero), name="sp")
    params = [s for s in (rho, A, E, I, m1, m2, k, h) if isinstance(s, sympy.Symbol)]
    system = CoupledSystem([beam, spring], parameters=params)
    return BeamTwoMass(system, tuple(u), tuple(v), (q1, q2), (p1, p2), f, n_x, n_b, val, sympy.Symbol("C"))


@dataclass(frozen=True)
class BeamSymplecticity:
    """Section 6's symplecticity claims for the beam + two masses, certified.

    Attributes
    ----------
    model : BeamTwoMass
    full_space : Certificate
        ``L_X omega == 0`` on the whole phase space: fails (holds False, with a counterexample).
    lemma : CoupledLieDerivative
        Lemma 6 for this system (direct, Cartan, closed form ``(du_{n_b} - dq_1) ^ df``).
    invariance : Certificate
        The flow keeps the submanifold ``{v_{n_b}/(rho A) = p_1/m_1, u_{n_b} - q_1 = C}``.
    on_submanifold : Certificate
        ``iota^* L_X omega == 0`` on it.
    energy : Certificate
        ``X(H_el + H_sp) = (v_{n_b}/(rho A) - p_1/m_1) f``, so 0 on the submanifold (the choice of f).
    seconds : float
        Wall time of the whole computation (building included).
    derivation : Derivation
    """

    model: BeamTwoMass
    full_space: Certificate
    lemma: CoupledLieDerivative
    invariance: Certificate
    on_submanifold: Certificate
    energy: Certificate
    seconds: float
    derivation: Derivation = field(repr=False)

    def latex(self) -> str:
        return self.derivation.latex()


def _energy_certificate(model: BeamTwoMass, param) -> Certificate:
    """dH/dt = (v_nb/(rho A) - p_1/m_1) f (the paper's formula), hence 0 on the submanifold."""
    system = model.system
    # i_X dH: the gradient term by term (each term by the coordinates it contains)
    rate = interior(system.vector_field, d(Form.function(system.chart, system.energy))).terms.get((), sympy.S.Zero)
    val = model.values
    printed = (model.v[model.n_b - 1] / (val["rho"] * val["A"]) - model.p[0] / val["m1"]) * model.force
    formula = decide_all_zero([sympy.expand(rate - printed)])
    on_s = pullback(Form.function(system.chart, rate), param).terms.get((), sympy.S.Zero)
    decision = decide_all_zero([on_s])
    holds, method = decision.is_zero, decision.method
    if formula.is_zero is not True:
        holds = None if holds is True else holds
        method += "; the paper's formula for dH/dt is not confirmed: " + formula.method
    else:
        method = "dH/dt = (v_nb/(rho A) - p1/m1) f (" + formula.method + "); on the submanifold: " + method
    j = model.n_b
    D = Derivation(r"The total energy is conserved on the submanifold")
    D = D.add(r"Along $X$ (" + tex_text(formula.method) + ")",
              r"\dot H &= X(H_{el} + H_{sp}) = \left(\frac{v_{%d}}{\rho A} - \frac{p_1}{m_1}\right) f" % j)
    D = D.add(r"which on the submanifold is", r"\dot H|_S &= " + show(on_s))
    return Certificate("X(H) == 0 on the submanifold", holds, method, decision.stage, residual=on_s,
                       counterexample=decision.point if decision.is_zero is False else None, derivation=D)


def beam_symplecticity(n_x: int = 51, n_b: int = 10, *, method: Literal["pullback", "restrict"] = "pullback",
                       **kwargs: Any) -> BeamSymplecticity:
    """Build the Section 6 system and certify: not symplectic on the full space, symplectic on
    the invariant submanifold, the submanifold invariant, the energy conserved on it.

    Takes well under 2 s at N_x = 51 (104 coordinates): every form is sparse (11
    components of ``L_X omega``), the Lie derivative is computed twice (component formula and
    Cartan) and every claim goes through the zero tester.

    Examples
    --------
    >>> from geomcheck.structures import beam_symplecticity
    >>> r = beam_symplecticity(n_x=11, n_b=3)
    >>> r.full_space.holds, r.invariance.holds, r.on_submanifold.holds, r.energy.holds
    (False, True, True, True)
    """
    t0 = time.perf_counter()
    model = beam_two_mass(n_x, n_b, **kwargs)
    S = model.system
    full = certify_symplectic_vector_field(S.vector_field, S.omega)
    lemma = coupled_lie_derivative(S)
    eqs, solve, params = model.submanifold, model.solve_for, model.parameters
    invariance = certify_invariant_submanifold(S, eqs, solve_for=solve, parameters=params)
    on_sub = certify_symplectic_on_submanifold(S, eqs, solve_for=solve, parameters=params, method=method)
    energy = _energy_certificate(model, submanifold_parametrization(S.chart, eqs, solve, params)[1])
    seconds = time.perf_counter() - t0
    j = model.n_b
    D = Derivation(r"Section 6: the beam coupled to two masses, $N_x = %d$, $n_b = %d$ (%d coordinates)"
                   % (model.n_x, j, S.chart.dim))
    D = D.add(r"The symplectic form is $\omega = \Delta x\sum_i \mathrm{d}u_i\wedge\mathrm{d}v_i"
              r" + \mathrm{d}q_1\wedge\mathrm{d}p_1 + \mathrm{d}q_2\wedge\mathrm{d}p_2$ and the interaction is",
              r"f &= " + show(model.force))
    D = D.add(r"On the full phase space (" + tex_text(full.method) + r"):",
              r"\mathcal{L}_X\omega &= (\mathrm{d}u_{%d} - \mathrm{d}q_1)\wedge\mathrm{d}f = " % j
              + show(full.residual))
    D = D.add(r"Lemma 6 for this system: " + tex_text(lemma.closed_form_check.method) + ".")
    D = D.add(r"The submanifold $\frac{v_{%d}}{\rho A} - \frac{p_1}{m_1} = 0$, $u_{%d} - q_1 = C$ is invariant ("
              % (j, j) + tex_text(invariance.method) + r") and on it",
              r"\iota^*\mathcal{L}_X\omega &= " + show(on_sub.residual))
    D = D.add(r"The energy $H_{el} + H_{sp}$ is conserved on the submanifold (" + tex_text(energy.method) + ").")
    # (the run time is the result's ``seconds``, not part of the derivation: a derivation is the
    # same text on every run)
    return BeamSymplecticity(model, full, lemma, invariance, on_sub, energy, seconds, D)
