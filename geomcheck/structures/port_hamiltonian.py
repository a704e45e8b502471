r"""Port-Hamiltonian systems, their Dirac structures and Q-structures (Salnikov & Hamdouni 2019, Sec. 4).

A port-Hamiltonian (pH) system (paper, eq. (1))

.. math::

    \dot x = (J(x) - R(x))\,\nabla H(x) + g(x)\,u, \qquad y = g(x)^{T} \nabla H(x),

has ``J`` skew and ``R`` symmetric (positive semidefinite for a dissipative system), and
obeys the power balance ``dH/dt = -grad H^T R grad H + y^T u``.

* :class:`PortHamiltonianSystem` checks its data and proves the power balance
  symbolically; its almost-Dirac structure is the graph ``f = D e`` of flows over efforts
  with ``f_s = -x'``, ``e_s = grad H``, ``e_p = u`` (inputs), ``f_p = y`` (outputs)
  (van der Schaft 2006, the paper's Section 4):

  .. math::

      D = \begin{pmatrix} -J & -g \\ g^{T} & 0 \end{pmatrix}

  (``R`` enters through resistive ports ``f_R = -grad H``, ``e_R = R grad H`` on the rows
  where ``R`` is not zero, so that ``D`` stays skew).
* The degree-1 vector field on ``T*[1]M`` of the bivector ``D`` is, in the convention of
  the paper (coordinates ``x^i``, odd ``p_i``),

  .. math::

      Q = D^{ij} p_j \frac{\partial}{\partial x^i}
          + \tfrac12\,\partial_k D^{ij}\, p_i p_j \frac{\partial}{\partial p_k},

  which is :func:`geomcheck.poisson_vector_field` of ``P = D^T`` (``{x^i, x^j} = D^{ji}``),
  so ``Q o Q = 1/2 [[D, D], .]``: Q is homological iff ``D`` is Poisson.
* :func:`port_hamiltonian_forms` finds the pH forms of ``x' = F(x, u)`` for a given energy
  by solving the linear conditions on the entries of ``J`` and ``R``;
  :func:`quadratic_energy_forms` does it with an unknown quadratic energy;
  :func:`port_form` is the paper's construction (the remainder of the dynamics becomes a
  port with constant effort ``e_i = 1``).
* :func:`oscillator_van_der_pol` runs the paper's example end to end, from eq. (2).

The printed formulas of Section 4 that disagree with the computation when read literally in
our copy of the paper (each shown by a test in ``test_port_hamiltonian.py``; none is counted
as an error of the authors -- see the findings of ``casestudies/salnikov2019_van_der_pol.py``):

1. First-order system, second line: as read in our copy ``x2' = -x1 + m Omega q``; eq. (2)
   gives ``x2' = -x1 + m Omega^2 q1``, as the paper prints it in ``g`` and ``D`` (the ``q`` for
   ``q1`` is the authors' notation; the lost exponent is taken as damage of our copy)
   (``test_first_order_line_as_read_in_our_copy``).
2. ``Q``, coefficients of ``d/dx^4`` and ``d/dx^5``: printed ``p3 - p5 a(x3) x4 - A x1`` and
   ``p2 m Omega^2 x3 + p4 a(x3) x4 - A x1`` without brackets.  Read literally, ``-A x1`` is of
   degree 0 (``Q`` would not be of degree 1); read with ``p5`` (``p4``) multiplying the whole port
   entry ``a(x3) x4 - A x1`` of D (``D^{45} = -a q2 + A x1``), both are the components built
   from D: that reading holds.
3. ``Q``, coefficient of ``d/dp_1``: as read in our copy ``A p4 p5 p5``, which is zero
   (``p5^2 = 0`` for an odd ``p5``); D gives ``A p4 p5`` (from ``d D^{45} / dx^1 = A``), the
   printed term with ``p5`` once (taken as damage of our copy).

(``test_printed_q_literal_and_bracketed_readings``; the other components of the printed ``Q``
agree with the one built from D.)  The printed ``D``, ``g``, ``H``, ``f_i`` and the power balance
``H' = -e_s^T f_s = e_i f_i`` are reproduced exactly (``test_pH_form_H_g_D_and_f_i_as_printed``,
``test_power_balance_H_dot_is_e_i_f_i``); :attr:`OscillatorVanDerPol.misprints` lists the
literal disagreements found by the computation itself
(``test_literal_disagreements_found_by_the_example``).

What ``Q o Q`` is.  The only non-constant entries of ``D`` are in the port column
(``D^{25} = -m Omega^2 x^3``, ``D^{45} = A x^1 - a(x^3) x^4``) and the block ``-J`` is
constant (Poisson), so the obstruction comes from the port.  The Schouten bracket has
exactly two independent nonzero components,
``[D, D]^{x^2 x^4 x^5} = 2 (A + m Omega^2)`` and ``[D, D]^{x^3 x^4 x^5} = 2 epsilon (1 - (x^3)^2)
= 2 a(x^3)``, and ``Q o Q = 1/2 [[D, D], .]`` has nonzero components along ``x^2, x^3, x^4,
x^5`` and ``p_3``; e.g. ``(Q o Q)(x^2) = (A + m Omega^2) p_4 p_5``.  Q is homological iff
``A = -m Omega^2`` and ``epsilon = 0`` (``test_q_o_q_obstruction``,
``test_q_homological_exactly_when_the_obstruction_vanishes``): the almost-Dirac structure
of the example is not a Dirac structure.

Non-uniqueness (the paper's Section 5 remark), as computed: with the paper's H there is no
pH form with constant ``J``, ``R`` and no port (the Van der Pol damping ``a(q1)`` is not
constant); with entries polynomial of degree ``<= 2`` in ``q1`` there is exactly one, but
its ``R`` is indefinite (``R_23 = -m Omega^2 / (2 Omega_t^2)``, ``R_22 = R_33 = 0``) and its
``J`` is not the canonical one; with a port (the paper's choice) every skew ``J`` works
(``test_non_uniqueness_reported``).

>>> import sympy, geomcheck as gc
>>> from geomcheck.structures import PortHamiltonianSystem
>>> q, p, c, u = sympy.symbols("q p c u")
>>> S = PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, c]], [[0], [1]], (q**2 + p**2) / 2, [q, p], [u])
>>> S.vector_field
(p, -c*p - q + u)
>>> S.power_balance().holds
True
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

import sympy
from sympy.core.function import AppliedUndef

from ..algebra import Chart
from ..calculus import diff
from ..certify.certificate import Certificate
from ..errors import (
    ExpressionError,
    NotSkewError,
    PortHamiltonianError,
    PortHamiltonianShapeError,
)
from ..latex import Derivation, latex
from ..maps import substitute
from ..qstructures import _skew_matrix, cotangent_shift, homological_report, poisson_vector_field, schouten_bracket
from ..zero import Jet, canonical_jets, decide_all_zero, decide_zero
from ..latex import summarize, tex_text
from .dirac import AlmostDiracStructure, graph_with_ports

if TYPE_CHECKING:
    import numpy

    from ..fields import VectorField

__all__ = [
    "PortHamiltonianSystem",
    "PortQStructure",
    "port_q_structure",
    "FirstOrderSystem",
    "first_order_system",
    "PortHamiltonianForms",
    "port_hamiltonian_forms",
    "quadratic_energy_forms",
    "port_form",
    "OscillatorVanDerPol",
    "oscillator_van_der_pol",
    "printed_q_structure",
]


def _show(obj) -> str:
    """LaTeX of an expression or matrix, summarized when too large to be read."""
    return summarize(obj)


def _col(v) -> str:
    return _show(sympy.Matrix(list(v)))




# --------------------------------------------------------------------------- input checking


def _symbols(v, what: str) -> tuple:
    if isinstance(v, Chart):
        return tuple(v.coords)
    if isinstance(v, (str, bytes)):
        v = sympy.symbols(v, seq=True)
    if not isinstance(v, Iterable):
        raise PortHamiltonianError(f"{what} must be a sequence of sympy Symbols, got {v!r}")
    out = tuple(sympy.Symbol(s) if isinstance(s, str) else s for s in v)
    for s in out:
        if not isinstance(s, sympy.Symbol):
            raise PortHamiltonianError(f"{what} must be sympy Symbols; {s!r} is not a Symbol")
    if len(set(out)) != len(out):
        raise PortHamiltonianError(f"{what} has a repeated symbol: {out}")
    return out


def _expr(v, what: str):
    try:
        e = sympy.sympify(v, strict=False)
    except (sympy.SympifyError, TypeError) as exc:
        raise ExpressionError(f"{what} {v!r} is not a sympy expression") from exc
    if not isinstance(e, sympy.Expr) or not e.is_commutative:
        raise ExpressionError(f"{what} {v!r} is not a scalar (commutative) expression")
    return e


def _matrix(A, shape, what: str, hint: str) -> sympy.ImmutableMatrix:
    r, c = shape
    expected = f"a {r} x {c} matrix ({hint})"
    if A is None:
        return sympy.ImmutableMatrix.zeros(r, c)
    if isinstance(A, sympy.MatrixBase):
        rows = A.tolist()
        if A.shape != (r, c) and not (A.shape[0] == r and c == 0):
            raise PortHamiltonianShapeError(f"{what} has shape {A.shape}; expected {expected}")
    else:
        if hasattr(A, "tolist") and not isinstance(A, (str, bytes)):
            A = A.tolist()
        if isinstance(A, (str, bytes, Mapping)) or not isinstance(A, Iterable):
            raise PortHamiltonianShapeError(f"{what} must be {expected}, got {A!r}")
        rows = list(A)
        if len(rows) != r:
            raise PortHamiltonianShapeError(f"{what} has {len(rows)} rows; expected {expected}")
        for i, row in enumerate(rows):
            if isinstance(row, (str, bytes, Mapping)) or not isinstance(row, Iterable):
                raise PortHamiltonianShapeError(f"row {i} of {what} is {row!r}; expected {expected}")
            if len(list(row)) != c:
                raise PortHamiltonianShapeError(
                    f"row {i} of {what} has {len(list(row))} entries; expected {expected}")
    if c == 0:
        return sympy.ImmutableMatrix.zeros(r, 0)
    return sympy.ImmutableMatrix([[_expr(v, f"entry [{i}][{j}] of {what}") for j, v in enumerate(row)]
                                  for i, row in enumerate(rows)])


def _gu(g, u) -> sympy.Matrix:
    """``g u`` (a zero column when there are no inputs)."""
    if not u:
        return sympy.zeros(g.shape[0], 1)
    return g * sympy.Matrix(u)


def _is_zero_entry(e) -> bool | None:
    if e == 0:
        return True
    if e.is_Number:
        return False
    return decide_zero(e, budget=5.0).is_zero


# --------------------------------------------------------------------------- the system


@dataclass(frozen=True)
class PortHamiltonianSystem:
    """``x' = (J - R) grad H + g u``, ``y = g^T grad H``.

    Parameters
    ----------
    J : n x n skew matrix of functions of x (parameters allowed).
    R : n x n symmetric matrix, or None for 0.
    g : n x m matrix (m = len(u)), or None for no inputs.
    H : the energy, a function of x (undefined functions allowed).
    x : sequence of n Symbols (or a Chart).
    u : sequence of m Symbols (the inputs).

    Raises
    ------
    NotSkewError
        J is not skew (the offending entries are named).
    PortHamiltonianError
        R not symmetric, u overlapping x, H or an entry depending on u.
    PortHamiltonianShapeError
        J, R, g of the wrong shape.

    Examples
    --------
    >>> import sympy
    >>> q, p = sympy.symbols("q p")
    >>> PortHamiltonianSystem([[0, 1], [1, 0]], None, None, p**2 / 2, [q, p], [])
    Traceback (most recent call last):
    ...
    geomcheck.errors.NotSkewError: J is not skew: entry [0][1] (the bracket {q, p}) is 1 but entry [1][0] is 1; expected [1][0] = -[0][1]
    """

    J: object
    R: object
    g: object
    H: object
    x: tuple
    u: tuple = ()

    def __post_init__(self):
        x = _symbols(self.x, "the state x")
        u = _symbols(self.u, "the inputs u")
        if set(x) & set(u):
            raise PortHamiltonianError(f"the inputs u {u} and the state x {x} share symbols")
        n, m = len(x), len(u)
        if n == 0:
            raise PortHamiltonianShapeError("the state x is empty; expected at least one state variable")
        M = Chart(list(x))
        J = _matrix(self.J, (n, n), "J", f"one row and column per state variable {x}")
        try:
            J = sympy.ImmutableMatrix(_skew_matrix(J, M, "J"))
        except NotSkewError:
            raise
        R = _matrix(self.R, (n, n), "R", f"one row and column per state variable {x}")
        for i in range(n):
            for j in range(i + 1, n):
                if R[i, j] != R[j, i]:
                    same = _is_zero_entry(R[i, j] - R[j, i])
                    if same is not True:
                        state = "is not symmetric" if same is False else "could not be proved symmetric"
                        raise PortHamiltonianError(
                            f"R {state}: entry [{i}][{j}] is {R[i, j]} but entry [{j}][{i}] is"
                            f" {R[j, i]}; expected R = R^T")
        g = _matrix(self.g, (n, m), "g", f"one row per state variable {x}, one column per input {u}")
        H = _expr(self.H, "the energy H")
        for what, e in [("H", H)] + [(f"an entry of {k}", v) for k, A in (("J", J), ("R", R), ("g", g)) for v in A]:
            if u and e.free_symbols & set(u):
                raise PortHamiltonianError(f"{what} depends on the inputs u {u}; expected a function of the state")
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "u", u)
        object.__setattr__(self, "J", J)
        object.__setattr__(self, "R", R)
        object.__setattr__(self, "g", g)
        object.__setattr__(self, "H", H)

    # -- data
    @property
    def n(self) -> int:
        return len(self.x)

    @property
    def chart(self) -> Chart:
        return Chart(list(self.x))

    @property
    def grad(self) -> tuple:
        """``grad H`` (the efforts ``e_s``)."""
        return tuple(diff(self.H, xi) for xi in self.x)

    @property
    def vector_field(self) -> tuple:
        """``(J - R) grad H + g u``."""
        e = sympy.Matrix(self.grad)
        F = (self.J - self.R) * e + _gu(self.g, self.u)
        return tuple(sympy.expand(v) for v in F)

    @property
    def output(self) -> tuple:
        """``y = g^T grad H`` (the flows ``f_p`` of the ports)."""
        return tuple(sympy.expand(v) for v in self.g.T * sympy.Matrix(self.grad))

    # -- certificates
    def power_balance(self, *, budget: float = 20.0) -> Certificate:
        """Prove ``dH/dt = -grad H^T R grad H + y^T u`` along ``x' = (J - R) grad H + g u``.

        Examples
        --------
        >>> import sympy
        >>> q, p, u = sympy.symbols("q p u"); V = sympy.Function("V")
        >>> S = PortHamiltonianSystem([[0, 1], [-1, 0]], None, [[0], [1]], p**2 / 2 + V(q), [q, p], [u])
        >>> c = S.power_balance(); c.holds, c.stage
        (True, 'exact')
        """
        e = sympy.Matrix(self.grad)
        F = sympy.Matrix(self.vector_field)
        dH = (e.T * F)[0]
        dissipation = (e.T * self.R * e)[0]
        supply = sum((yi * ui for yi, ui in zip(self.output, self.u)), sympy.S.Zero)
        residual = dH - (-dissipation + supply)
        decision = decide_zero(residual, budget=budget)
        D = Derivation("Power balance of the port-Hamiltonian system")
        D = D.add(r"The system $\dot x = (J - R)\nabla H + g u$, $y = g^{T}\nabla H$ has",
                  r"J &= " + _show(self.J) + r", & R &= " + _show(self.R) + r", \\ g &= " + _show(self.g)
                  + r", & H &= " + _show(self.H))
        D = D.add(r"Along the flow, since $\nabla H^{T} J \nabla H = 0$ for a skew $J$,",
                  r"\dot H &= \nabla H^{T}\dot x = \nabla H^{T}(J - R)\nabla H + \nabla H^{T} g\, u"
                  r" = -\nabla H^{T} R \nabla H + y^{T} u.")
        D = D.add(r"In flows and efforts ($f_s = -\dot x$, $e_s = \nabla H$, $e_p = u$, $f_p = y$):"
                  r" $\dot H = -e_s^{T} f_s = -\nabla H^{T} R\nabla H + e_p^{T} f_p$, with",
                  r"\nabla H^{T} R \nabla H &= " + _show(sympy.expand(dissipation)) + r", \\ y^{T}u &= "
                  + _show(sympy.expand(supply)))
        D = D.add(r"The residual $\dot H + \nabla H^{T}R\nabla H - y^{T}u$ is",
                  r"&" + _show(residual))
        claim = "dH/dt = -grad H^T R grad H + y^T u"
        if decision.is_zero is True:
            D = D.concluding(r"It vanishes: the power balance holds.")
            return Certificate(claim, True, decision.method, stage=decision.stage, residual=residual, derivation=D,
            soundness=getattr(decision, "soundness", None))
        if decision.is_zero is False:
            D = D.concluding(r"It does not vanish: the power balance fails.")
            return Certificate(claim, False, decision.method, stage="counterexample", residual=residual,
                               counterexample=decision.point, derivation=D)
        return Certificate(claim, None, decision.method, stage="unknown", residual=residual,
                           derivation=D.concluding("Undecided."))

    def certify_dissipative(self, *, samples: int = 20, seed: int = 0) -> Certificate:
        """``R`` positive semidefinite (every principal minor ``>= 0``).

        Proved when every principal minor is a nonnegative number or is nonnegative by
        sympy's assumptions; False with a point (exact rational evaluation) where a
        principal minor is negative; None otherwise.

        Examples
        --------
        >>> import sympy
        >>> q, p, eps = sympy.symbols("q p epsilon")
        >>> S = PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, -eps * (1 - q**2)]], None,
        ...                           (q**2 + p**2) / 2, [q, p])
        >>> c = S.certify_dissipative(); c.holds, sorted(map(str, c.counterexample))
        (False, ['epsilon', 'q'])
        """
        return _psd_certificate(self.R, samples=samples, seed=seed)

    # -- structures
    def dirac_matrix(self) -> sympy.ImmutableMatrix:
        """``D`` with ``(f_s, f_R, f_p) = D (e_s, e_R, e_p)`` (no resistive block when R = 0)."""
        n, m = self.n, len(self.u)
        support = [i for i in range(n) if any(self.R[i, j] != 0 for j in range(n))]
        k = len(support)
        size = n + k + m
        D = sympy.zeros(size, size)
        D[:n, :n] = -self.J
        for a, i in enumerate(support):
            D[i, n + a] = 1
            D[n + a, i] = -1
        if m:
            D[:n, n + k:] = -self.g
            D[n + k:, :n] = self.g.T
        return sympy.ImmutableMatrix(D)

    def port_names(self) -> tuple:
        """Names of the port variables: ``resistive_<x_i>`` for R, then ``port_<u_j>``."""
        n = self.n
        support = [i for i in range(n) if any(self.R[i, j] != 0 for j in range(n))]
        return tuple(f"resistive_{self.x[i]}" for i in support) + tuple(f"port_{ui}" for ui in self.u)

    def dirac_structure(self, port_names: Sequence[str | sympy.Symbol] | None = None) -> AlmostDiracStructure:
        """The almost-Dirac structure: the graph ``f = D e`` on the state chart extended by the ports."""
        names = self.port_names() if port_names is None else tuple(port_names)
        return graph_with_ports(self.dirac_matrix(), self.chart, names)

    def q_structure(self, port_names: Sequence[str | sympy.Symbol] | None = None, **options: Any) -> "PortQStructure":
        """The degree-1 field on ``T*[1]`` of the extended chart built from ``D``, with ``Q o Q``."""
        names = self.port_names() if port_names is None else tuple(port_names)
        Qs = port_q_structure(self.dirac_matrix(), self.chart, names, **options)
        # where the obstruction lives: the state block -J alone, or the ports
        TJ = schouten_bracket(self.J, self.J, self.chart)
        n = self.n
        jt = {key: TJ[key] for key in itertools.combinations(range(n), 3) if TJ[key] != 0}
        j_poisson = decide_all_zero(jt).is_zero if jt else True
        ports = set(range(n, Qs.chart.dim))
        through_ports = all(set(key) & ports for key in Qs.schouten)
        text = (r"The state block: $[J, J] " + {True: "= 0", False: r"\ne 0", None: r"\overset{?}{=} 0"}[j_poisson]
                + r"$" + (r" ($J$ is Poisson)" if j_poisson is True else "") + ".")
        if Qs.schouten and through_ports:
            text += (r" Every nonzero component of $[D, D]$ has an index among the port variables, so the"
                     r" obstruction to $Q \circ Q = 0$ comes from the ports (the columns $g$"
                     + (r" and the resistive ports of $R$" if n + len(self.u) < Qs.chart.dim else "")
                     + r"), not from $J$: $Q$ is homological iff these components vanish.")
        elif Qs.schouten:
            text += r" $Q$ is homological iff the components of $[D, D]$ above vanish."
        return replace(Qs, derivation=Qs.derivation.add(text), state_poisson=j_poisson)

    def _latex(self, printer=None):
        return (r"\dot x = \left(" + _show(self.J) + " - " + _show(self.R) + r"\right)\nabla H + "
                + _show(self.g) + r" u, \quad H = " + _show(self.H))

    def latex(self) -> str:
        return self._latex()

    def _repr_latex_(self):
        return f"${self._latex()}$"

    def __repr__(self):
        return f"PortHamiltonianSystem(x={self.x}, u={self.u}, H={self.H})"


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


def _psd_certificate(R, *, samples=20, seed=0) -> Certificate:
    n = R.shape[0]
    claim = "R is positive semidefinite"
    D = Derivation("Dissipation matrix")
    D = D.add(r"$R$ is positive semidefinite iff all its principal minors are nonnegative:",
              r"R &= " + _show(R))
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
                              r"\Delta_{" + label + "} &= " + _show(minor))
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
    rows = [r"\Delta_{" + "".join(str(i + 1) for i in idx) + "} &= " + _show(m) for idx, m in unknown[:8]]
    D = D.add("Principal minors whose sign is not decided:", r" \\ ".join(rows))
    return Certificate(claim, None, f"{len(unknown)} principal minor(s) of undecided sign (no negative value at"
                       f" {samples} rational points each)", stage="unknown", residual=R,
                       derivation=D.concluding("Undecided."))


# --------------------------------------------------------------------------- Q-structure


@dataclass(frozen=True)
class PortQStructure:
    """The degree-1 field on ``T*[1]M`` (M extended by ports) built from a bivector ``D``.

    Attributes
    ----------
    D : sympy.ImmutableMatrix
    chart : Chart
        The extended chart (state coordinates, then port variables).
    field : VectorField
        ``Q = D^{ij} p_j d/dx^i + 1/2 d_k D^{ij} p_i p_j d/dp_k`` on ``cotangent_shift(chart)``.
    report : HomologicalReport
        ``Q o Q`` and its nonzero components.
    schouten : dict
        ``{(i, j, k): [D, D]^{ijk}}`` for ``i < j < k``, the entries not proved zero.
    poisson_decision : ZeroDecision
        Whether ``[D, D] = 0``.
    derivation : Derivation
    state_poisson : bool or None
        For the Q of a :class:`PortHamiltonianSystem`: whether ``[J, J] = 0`` (the state block
        alone is Poisson); None otherwise or when undecided.
    """

    D: object
    chart: Chart
    field: object
    report: object
    schouten: dict
    poisson_decision: object
    derivation: Derivation
    state_poisson: object = None

    @property
    def holds(self) -> bool | None:
        """Whether Q is homological (True / False / None)."""
        return self.report.holds

    def latex(self) -> str:
        return self.derivation.latex()

    def _latex(self, printer=None):
        return latex(self.field)

    def _repr_latex_(self):
        return f"${self._latex()}$"


def port_q_structure(D: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]], M: Chart,
                     port_names: Sequence[str | sympy.Symbol] = (), *, budget: float = 20.0) -> PortQStructure:
    r"""The Q on ``T*[1]`` of M (extended by ports) from a skew ``D``, with ``Q o Q`` reported.

    In the paper's convention ``Q(x^i) = D^{ij} p_j`` and
    ``Q(p_k) = 1/2 d_k D^{ij} p_i p_j``; this is ``poisson_vector_field(D^T)``, and
    ``Q o Q = 1/2 [[D, D], .]`` (Schouten bracket): ``(Q o Q)(x^i) = 1/2 sum_{j<k}
    [D, D]^{ijk} p_j p_k``.

    Parameters
    ----------
    D : ``(n + k) x (n + k)`` skew matrix.
    M : Chart
        The state chart (n coordinates).
    port_names : k names of the port variables.
    budget : seconds for the report.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> S = port_q_structure([[0, -1, 0], [1, 0, -q], [0, q, 0]], M, ["w"])
    >>> S.field
    VectorField({q: -theta_p, p: -q*theta_w + theta_q, w: q*theta_p, theta_q: -theta_p*theta_w})
    >>> S.holds, S.schouten
    (True, {})
    """
    L = graph_with_ports(D, M, port_names)
    E = L.chart
    P = L.matrix.T
    Q = poisson_vector_field(P, E)
    report = homological_report(Q, budget=budget)
    T = schouten_bracket(P, P, E)
    n = E.dim
    entries = {(i, j, k): T[i, j, k] for i, j, k in itertools.combinations(range(n), 3) if T[i, j, k] != 0}
    decision = decide_all_zero(entries, budget=budget) if entries else None
    kept = {}
    for key, v in entries.items():
        if decide_zero(v, budget=5.0).is_zero is not True:
            kept[key] = sympy.expand(v)
    T_ = cotangent_shift(E)
    xs, ps = E.coords, T_.coords[n:]
    Dv = Derivation(r"The Q-structure of the bivector $D$")
    Dv = Dv.add(r"On $T^{*}[1]\mathcal{M}$ with coordinates $x^i = (" + ", ".join(sympy.latex(x) for x in xs)
                + r")$ of degree 0 and $p_i = (" + ", ".join(sympy.latex(p) for p in ps)
                + r")$ of degree 1, the degree-1 vector field of the bivector",
                r"D &= " + _show(L.matrix))
    Dv = Dv.add(r"is (Salnikov 2015; this is the Poisson field of $P = D^{T}$, $\{x^i, x^j\} = D^{ji}$)",
                r"Q &= D^{ij} p_j \frac{\partial}{\partial x^i} + \tfrac12\, \partial_k D^{ij}\, p_i p_j"
                r" \frac{\partial}{\partial p_k}.")
    Dv = Dv.add(r"Built from $D$:", r"Q &= " + _field_rows(Q))
    if entries and decision is not None and decision.is_zero is not True:
        rows = [r"[D, D]^{%s} &= %s" % (" ".join(sympy.latex(E.coords[a]) for a in key), _show(v))
                for key, v in kept.items()]
        Dv = Dv.add(r"The Schouten bracket $[D, D]^{ijk} = 2\oint_{ijk} D^{li}\partial_l D^{kj}$"
                    r" does not vanish; its components $i<j<k$ not proved zero are",
                    r" \\ ".join(rows[:20]))
    else:
        Dv = Dv.add(r"The Schouten bracket $[D, D]$ vanishes: $D$ is Poisson.")
    if report.holds is True:
        Dv = Dv.concluding(r"Hence $Q\circ Q = \tfrac12[[D, D], \cdot\,] = 0$: $Q$ is homological.")
    else:
        Dv = Dv.add(r"$Q \circ Q = \tfrac12 [[D, D], \cdot\,]$; its components that are not zero:",
                    _report_rows(report))
        Dv = Dv.concluding(r"So $Q$ is not homological" + ("" if report.holds is False else " (undecided)")
                           + r": the almost-Dirac structure of $D$ is not integrable.")
    return PortQStructure(L.matrix, E, Q, report, kept, decision, Dv)


def _field_rows(Q) -> str:
    coords = Q.chart.coords
    parts = []
    for i in sorted(Q.component_terms()):
        parts.append(r"\left(" + latex(Q.component(coords[i])) + r"\right)\frac{\partial}{\partial "
                     + sympy.latex(coords[i]) + "}")
    if not parts:
        return "0"
    rows, line = [], []
    for k, p in enumerate(parts):
        line.append(p)
        if len(line) == 2:
            rows.append(" + ".join(line))
            line = []
    if line:
        rows.append(" + ".join(line))
    return r" \\ &\quad + ".join(rows)


def _report_rows(report) -> str:
    rows = []
    for comp in report.components[:20]:
        rows.append(r"(Q \circ Q)\left(" + sympy.latex(comp.coordinate) + r"\right) &= " + comp.value._latex())
    return r" \\ ".join(rows) if rows else r"&\text{(none)}"


# --------------------------------------------------------------------------- first-order reduction


@dataclass(frozen=True)
class FirstOrderSystem:
    """``x' = F(x)`` obtained from higher-order equations.

    Attributes
    ----------
    x : tuple of Symbol
        The state: each unknown function and its derivatives below the highest order.
    F : tuple of expressions
    highest : dict
        ``{function: expression of its highest derivative in the state}``.
    derivation : Derivation
    """

    x: tuple
    F: tuple
    highest: dict
    derivation: Derivation

    def latex(self) -> str:
        return self.derivation.latex()

    def _latex(self, printer=None):
        return r" \\ ".join(r"\dot " + sympy.latex(xi) + " = " + sympy.latex(f) for xi, f in zip(self.x, self.F))


def first_order_system(equations: Sequence[sympy.Equality | sympy.Expr], functions: Sequence[sympy.Expr],
                       t: sympy.Symbol,
                       names: Sequence[Sequence[str | sympy.Symbol]] | None = None) -> FirstOrderSystem:
    """Lower the order of ODEs linear in their highest derivatives: ``x' = F(x)``.

    Parameters
    ----------
    equations : sequence of sympy Eq or expressions (``== 0``)
    functions : sequence of applied functions of t, e.g. ``Function("y")(t)``
    t : Symbol
    names : sequence (one per function) of sequences of state names, one per derivative
        order below the highest (default ``y0, y1, ..``).

    Raises
    ------
    PortHamiltonianError
        The equations are not linear in the highest derivatives, or cannot be solved for them.

    Examples
    --------
    >>> import sympy
    >>> t, k = sympy.symbols("t k"); y = sympy.Function("y")(t)
    >>> S = first_order_system([sympy.Eq(y.diff(t, 2), -k * y)], [y], t, [["q", "p"]])
    >>> S.x, S.F
    ((q, p), (p, -k*q))
    """
    eqs = []
    for e in equations:
        if isinstance(e, sympy.Equality):
            e = e.lhs - e.rhs
        eqs.append(_expr(e, "an equation"))
    functions = list(functions)
    if len(eqs) != len(functions):
        raise PortHamiltonianError(f"{len(eqs)} equations for {len(functions)} unknown functions; expected as many")
    orders = []
    for f in functions:
        r = 0
        for e in eqs:
            for dv in e.atoms(sympy.Derivative):
                if dv.expr == f:
                    r = max(r, dv.derivative_count)
        if r == 0:
            raise PortHamiltonianError(f"the equations contain no derivative of {f}")
        orders.append(r)
    if names is None:
        names = [[f"{f.func.__name__}{k}" for k in range(r)] for f, r in zip(functions, orders)]
    names = [list(ns) for ns in names]
    for f, r, ns in zip(functions, orders, names):
        if len(ns) != r:
            raise PortHamiltonianError(f"{f} has order {r}: expected {r} state names, got {ns}")
    state, replace, tops = [], {}, []
    for f, r, ns in zip(functions, orders, names):
        syms = [sympy.Symbol(str(s)) for s in ns]
        state += syms
        # highest derivatives first, so that a lower one is never replaced inside a higher one
        top = sympy.Dummy(f"{f.func.__name__}_top")
        tops.append(top)
        replace[sympy.Derivative(f, (t, r))] = top
        for k in range(r - 1, 0, -1):
            replace[sympy.Derivative(f, (t, k))] = syms[k]
        replace[f] = syms[0]
    reduced = [e.xreplace(replace) for e in eqs]
    for e in reduced:
        if e.has(t) and any(e.has(f) for f in functions):
            raise PortHamiltonianError(f"the equation {e} still contains the unknown functions")
    A = sympy.Matrix([[diff(e, s) for s in tops] for e in reduced])
    for e in reduced:
        for s in tops:
            if diff(diff(e, s), s) != 0:
                raise PortHamiltonianError(f"the equation {e} is not linear in the highest derivatives")
    b = -sympy.Matrix([e.xreplace({s: 0 for s in tops}) for e in reduced])
    det = A.det(method="berkowitz")
    if _is_zero_entry(det) is not False:
        raise PortHamiltonianError("the equations cannot be solved for the highest derivatives (singular)")
    sol = A.adjugate() * b / det
    highest = {f: sympy.expand(sympy.cancel(v)) for f, v in zip(functions, sol)}
    F = []
    pos = 0
    for f, r in zip(functions, orders):
        syms = state[pos:pos + r]
        F += list(syms[1:]) + [highest[f]]
        pos += r
    D = Derivation("Lowering the order")
    D = D.add("The equations", r" \\ ".join(sympy.latex(e) + " &= 0" for e in eqs))
    D = D.add(r"are linear in the highest derivatives; solved for them, in the state $("
              + ", ".join(sympy.latex(s) for s in state) + ")$:",
              r" \\ ".join(sympy.latex(sympy.Derivative(f, (t, r))) + " &= " + _show(highest[f])
                           for f, r in zip(functions, orders)))
    D = D.add("The first-order system:", r" \\ ".join(r"\dot " + sympy.latex(s) + " &= " + _show(v)
                                                     for s, v in zip(state, F)))
    return FirstOrderSystem(tuple(state), tuple(F), highest, D)


# --------------------------------------------------------------------------- from equations to structure


@dataclass(frozen=True)
class PortHamiltonianForms:
    """All port-Hamiltonian forms ``x' = (J - R) grad H + g u`` of a system in an ansatz.

    Attributes
    ----------
    F : tuple             the right-hand side ``x' = F(x, u)``.
    x, u : tuples of Symbol
    H : expression        the energy (with the free parameters, if it was unknown).
    J, R, g : sympy.ImmutableMatrix, in terms of the free parameters (None if inconsistent).
    parameters : tuple of Symbol   the free parameters of the family.
    unknowns : tuple of Symbol     all unknowns of the ansatz.
    conditions : tuple             the linear conditions (expressions == 0) on the unknowns.
    consistent : bool              whether a solution exists.
    check : Certificate or None    ``F - ((J - R) grad H + g u) == 0`` for the family.
    derivation : Derivation
    port_value : dict              constant values of port inputs (``{e: 1}`` for :func:`port_form`).
    """

    F: tuple
    x: tuple
    u: tuple
    H: object
    J: object
    R: object
    g: object
    parameters: tuple
    unknowns: tuple
    conditions: tuple
    consistent: bool
    check: object
    derivation: Derivation
    port_value: dict = field(default_factory=dict)

    def system(self, values: Mapping[Any, sympy.Expr | float] | None = None) -> PortHamiltonianSystem:
        """The pH system with the free parameters set to ``values`` (default: all 0)."""
        if not self.consistent:
            raise PortHamiltonianError("the ansatz has no port-Hamiltonian form (inconsistent conditions)")
        vals = {p: 0 for p in self.parameters}
        vals.update(values or {})
        sub = {sympy.Symbol(str(k)) if isinstance(k, str) else k: sympy.sympify(v) for k, v in vals.items()}
        J, R, g = (A.xreplace(sub) for A in (self.J, self.R, self.g))
        H = self.H.xreplace(sub)
        return PortHamiltonianSystem(J, R, g, H, self.x, self.u)

    def latex(self) -> str:
        return self.derivation.latex()

    def _latex(self, printer=None):
        if not self.consistent:
            return r"\text{no port-Hamiltonian form in this ansatz}"
        return r"J = " + _show(self.J) + r",\ R = " + _show(self.R) + r",\ g = " + _show(self.g)


def _split_inputs(F, x, u):
    n = len(x)
    F = [_expr(f, f"component {i} of F") for i, f in enumerate(F)]
    if len(F) != n:
        raise PortHamiltonianShapeError(f"F has {len(F)} components; expected {n}, one per state variable {x}")
    g = sympy.zeros(n, len(u))
    for i, f in enumerate(F):
        for a, ua in enumerate(u):
            gi = diff(f, ua)
            if any(diff(gi, ub) != 0 for ub in u):
                raise PortHamiltonianError(f"component {i} of F, {f}, is not affine in the inputs {u}")
            g[i, a] = gi
    F0 = [substitute(f, {ua: 0 for ua in u}) for f in F]
    return tuple(F), F0, sympy.ImmutableMatrix(g)


def _monomials(variables, degree):
    out = [sympy.S.One]
    for d in range(1, degree + 1):
        for combo in itertools.combinations_with_replacement(variables, d):
            out.append(sympy.Mul(*combo))
    return out


def _identity_conditions(residuals, x):
    """Coefficient equations of ``residual == 0`` as polynomials in x and the jets of functions.

    Undefined functions (and their derivatives) are algebraically independent jets, so the
    equations are necessary and sufficient for them; other non-polynomial functions of x
    (sin x, ..) are treated as independent too, which makes the equations sufficient only
    (``exact`` is False then).
    """
    xs = set(x)
    atoms, exact = {}, True
    conds = []
    for r in residuals:
        r = canonical_jets(sympy.expand(r))
        for fa in r.atoms(sympy.Function):
            if fa.free_symbols & xs and fa not in atoms:
                atoms[fa] = sympy.Dummy("j")
                if not isinstance(fa, (AppliedUndef, Jet)):
                    exact = False
        rr = sympy.expand(r.xreplace(atoms))
        gens = list(x) + list(atoms.values())
        try:
            poly = sympy.Poly(rr, *gens)
        except sympy.PolynomialError as exc:
            raise PortHamiltonianError(
                f"the conditions are not polynomial in the state {x} and the values of functions: {exc}") from None
        conds += [c for c in poly.coeffs() if c != 0]
    return conds, exact


def _solve_family(conds, unknowns):
    """(consistent, {unknown: value}, free parameters) of a linear system."""
    if not conds:
        return True, {}, tuple(unknowns)
    sol = sympy.linsolve(conds, list(unknowns))
    if not sol:
        return False, {}, ()
    (values,) = tuple(sol)
    mapping = {u: sympy.expand(v) for u, v in zip(unknowns, values)}
    free = tuple(u for u in unknowns if any(mapping[w].has(u) for w in unknowns))
    return True, mapping, free


def _verify(F, x, u, H, J, R, g, budget=20.0, at=None) -> Certificate:
    grad = sympy.Matrix([diff(H, xi) for xi in x])
    model = (J - R) * grad + _gu(g, u)
    if at:
        model = model.xreplace(at)
    res = {i: F[i] - model[i] for i in range(len(x))}
    decision = decide_all_zero(res, budget=budget)
    D = Derivation("Check of the port-Hamiltonian form")
    D = D.add(r"The residual $F - ((J - R)\nabla H + g u)$ must vanish identically.")
    verdict = decision.is_zero
    D = D.concluding({True: "It does.", False: "It does not.", None: "Undecided."}[verdict])
    return Certificate("F == (J - R) grad H + g u", verdict, decision.method,
                       stage=decision.stage if verdict is not False else "counterexample",
                       residual=res, counterexample=decision.point if verdict is False else None, derivation=D,
                       soundness=getattr(decision, "soundness", None))


def _ansatz(n, variables, degree, dissipation=True):
    monos = _monomials(variables, degree)
    unknowns = []
    J = sympy.zeros(n, n)
    R = sympy.zeros(n, n)

    def coeff(name):
        cs = [sympy.Symbol(f"{name}_{k}" if len(monos) > 1 else name) for k in range(len(monos))]
        unknowns.extend(cs)
        return sum((c * mo for c, mo in zip(cs, monos)), sympy.S.Zero)

    for i in range(n):
        for j in range(i + 1, n):
            e = coeff(f"J{i + 1}{j + 1}")
            J[i, j], J[j, i] = e, -e
    if dissipation:
        for i in range(n):
            for j in range(i, n):
                e = coeff(f"R{i + 1}{j + 1}")
                R[i, j] = R[j, i] = e
    return J, R, unknowns


def port_hamiltonian_forms(F: Sequence[sympy.Expr | float], x: Chart | str | Iterable[sympy.Symbol | str],
                           H: sympy.Expr | float, *, u: str | Iterable[sympy.Symbol | str] = (), degree: int = 0,
                           depends_on: str | Iterable[sympy.Symbol | str] | None = None, dissipation: bool = True,
                           budget: float = 20.0) -> PortHamiltonianForms:
    """Every ``(J, R)`` with ``F = (J - R) grad H + g u`` in a polynomial ansatz, for a given H.

    ``g = dF/du`` (F must be affine in the inputs).  The entries of ``J`` (skew) and ``R``
    (symmetric) are polynomials of total degree ``<= degree`` in ``depends_on`` (default:
    the state) with unknown coefficients; ``F_0 - (J - R) grad H = 0`` as an identity in
    the state (and in the jets of undefined functions) gives linear equations for them,
    solved for generic values of the other symbols.  The free parameters of the solution
    are reported: the pH form is not unique.

    Parameters
    ----------
    F : sequence of n expressions in x (and u).
    x : sequence of n Symbols (or a Chart).
    H : the energy.
    u : input Symbols.
    degree : int, the degree of the ansatz.
    depends_on : Symbols the entries may depend on (default x).
    dissipation : bool, False for R = 0.

    Returns
    -------
    PortHamiltonianForms

    Examples
    --------
    >>> import sympy
    >>> q, p, c = sympy.symbols("q p c")
    >>> f = port_hamiltonian_forms([p, -q - c * p], [q, p], (q**2 + p**2) / 2)
    >>> f.J, f.R, f.parameters
    (Matrix([
    [ 0, 1],
    [-1, 0]]), Matrix([
    [0, 0],
    [0, c]]), ())
    """
    x = _symbols(x, "the state x")
    u = _symbols(u, "the inputs u")
    n = len(x)
    H = _expr(H, "the energy H")
    F, F0, g = _split_inputs(F, x, u)
    variables = x if depends_on is None else _symbols(depends_on, "depends_on")
    J, R, unknowns = _ansatz(n, variables, degree, dissipation)
    grad = sympy.Matrix([diff(H, xi) for xi in x])
    residual = sympy.Matrix(F0) - (J - R) * grad
    conds, exact = _identity_conditions(list(residual), x)
    consistent, sol, free = _solve_family(conds, unknowns)
    D = Derivation("Port-Hamiltonian forms of a first-order system")
    D = D.add(r"For $\dot x = F(x, u)$ with",
              r"F &= " + _col(F) + r", & H &= " + _show(H) + r", \\ \nabla H &= " + _col(grad)
              + r", & g &= \frac{\partial F}{\partial u} = " + _show(g))
    D = D.add(r"we look for $J = -J^{T}$ and $R = R^{T}$ with entries polynomials of degree $\le " + str(degree)
              + r"$ in $" + ", ".join(sympy.latex(v) for v in variables) + r"$ (" + str(len(unknowns))
              + r" unknown coefficients) such that $F|_{u=0} = (J - R)\nabla H$. As an identity in the state"
              + ("" if exact else r" (non-polynomial functions of the state treated as independent:"
                 r" sufficient conditions)") + r" this gives " + str(len(conds)) + " linear equations.")
    if not consistent:
        D = D.concluding(r"They are inconsistent: no port-Hamiltonian form of this ansatz exists"
                         r" (for generic values of the parameters).")
        return PortHamiltonianForms(F, x, u, H, None, None, g, (), tuple(unknowns), tuple(conds), False, None, D)
    J = sympy.ImmutableMatrix(J.xreplace(sol))
    R = sympy.ImmutableMatrix(R.xreplace(sol))
    check = _verify(F, x, u, H, J, R, g, budget)
    D = D.add(r"The general solution has " + str(len(free)) + r" free parameter(s)"
              + ((r" $" + ", ".join(sympy.latex(p) for p in free[:30]) + "$") if free else "") + ":",
              r"J &= " + _show(J) + r", & R &= " + _show(R))
    D = D.concluding(r"Substituted back, $F = (J - R)\nabla H + g u$: " + tex_text(check.verdict())
                     + " (" + tex_text(check.method) + ").")
    return PortHamiltonianForms(F, x, u, H, J, R, g, free, tuple(unknowns), tuple(conds), True, check, D)


def quadratic_energy_forms(F: Sequence[sympy.Expr | float], x: Chart | str | Iterable[sympy.Symbol | str], *,
                           u: str | Iterable[sympy.Symbol | str] = (), remainder: Literal["error", "port"] = "error",
                           port: str = "e", budget: float = 20.0) -> PortHamiltonianForms:
    """Every pH form ``A x = (J - R) Q x`` of a linear system with an unknown quadratic energy.

    ``H = 1/2 x^T Q x`` with ``Q`` unknown symmetric and invertible.  The conditions
    ``A = (J - R) Q`` are bilinear in ``(J - R, Q)`` but linear in ``(J - R, P)`` with the
    co-energy matrix ``P = Q^{-1}``: ``J - R = A P``, so ``J = (A P - P A^T)/2``,
    ``R = -(A P + P A^T)/2``.  The free parameters are the entries of ``P``; the family is
    dissipative where ``P > 0`` and ``A P + P A^T <= 0`` (the Lyapunov inequality, reported,
    not solved).

    Parameters
    ----------
    F : sequence of n expressions in x (affine in u).
    x : the state Symbols.
    u : input Symbols.
    remainder : ``"error"`` (F must be linear in x) or ``"port"``: ``A`` is the Jacobian
        of ``F`` at ``x = 0`` and the rest ``F - A x`` becomes a port column with constant
        effort ``e = 1`` (as in :func:`port_form`).
    port : name of that port's effort variable.

    Raises
    ------
    PortHamiltonianError
        F is not linear in x and ``remainder="error"`` (the offending component is named).

    Examples
    --------
    >>> import sympy
    >>> q, v, k, c = sympy.symbols("q v k c", positive=True)
    >>> f = quadratic_energy_forms([v, -k * q - c * v], [q, v])
    >>> f.parameters
    (P11, P12, P22)
    >>> S = f.system({"P11": 1 / k, "P12": 0, "P22": 1})
    >>> S.H, S.J, S.R
    (k*q**2/2 + v**2/2, Matrix([
    [ 0, 1],
    [-1, 0]]), Matrix([
    [0, 0],
    [0, c]]))
    >>> g = quadratic_energy_forms([v, -k * q - c * v - q**3], [q, v], remainder="port")
    >>> g.g.T
    Matrix([[0, -q**3]])
    """
    if remainder not in ("error", "port"):
        raise PortHamiltonianError(f'remainder must be "error" or "port", got {remainder!r}')
    x = _symbols(x, "the state x")
    u = _symbols(u, "the inputs u")
    n = len(x)
    F, F0, g = _split_inputs(F, x, u)
    A = sympy.zeros(n, n)
    origin = {xi: 0 for xi in x}
    rests = []
    for i, f in enumerate(F0):
        for j, xj in enumerate(x):
            A[i, j] = substitute(diff(f, xj), origin)
        rest = sympy.expand(f - sum(A[i, j] * x[j] for j in range(n)))
        if rest != 0 and _is_zero_entry(rest) is True:
            rest = sympy.S.Zero
        if rest != 0 and remainder == "error":
            raise PortHamiltonianError(
                f"quadratic_energy_forms needs a linear system; component {i} of F has the nonlinear part {rest}"
                ' (use remainder="port" to make it a port)')
        rests.append(rest)
    at = None
    if any(r != 0 for r in rests):
        e = sympy.Symbol(str(port))
        if e in x or e in u:
            raise PortHamiltonianError(f"the port variable {e} clashes with the state or the inputs")
        g = sympy.ImmutableMatrix(g.row_join(sympy.Matrix(rests)))
        u = u + (e,)
        at = {e: sympy.S.One}
    P = sympy.zeros(n, n)
    params = []
    for i in range(n):
        for j in range(i, n):
            s = sympy.Symbol(f"P{i + 1}{j + 1}")
            params.append(s)
            P[i, j] = P[j, i] = s
    K = A * P
    J = sympy.ImmutableMatrix((K - K.T) / 2).applyfunc(sympy.expand)
    R = sympy.ImmutableMatrix(-(K + K.T) / 2).applyfunc(sympy.expand)
    det = P.det(method="berkowitz")
    Qm = P.adjugate() / det
    X = sympy.Matrix(x)
    H = ((X.T * Qm * X)[0] / 2)
    check = _verify(F, x, u, H, J, R, g, budget, at=at)
    D = Derivation("Port-Hamiltonian forms with an unknown quadratic energy")
    if at:
        D = D.add(r"The linear part of $F$ at $x = 0$ is $A x$; the rest is a port with effort $e = 1$:",
                  r"A &= " + _show(A) + r", & g &= " + _show(g))
    else:
        D = D.add(r"The system is linear, $\dot x = A x + g u$, with", r"A &= " + _show(A) + r", & g &= " + _show(g))
    D = D.add(r"For $H = \tfrac12 x^{T} Q x$ the conditions $A = (J - R) Q$ are bilinear; with the co-energy"
              r" matrix $P = Q^{-1}$ they are linear, $J - R = A P$:",
              r"J &= \tfrac12 (A P - P A^{T}) = " + _show(J) + r", \\ R &= -\tfrac12 (A P + P A^{T}) = " + _show(R))
    D = D.add(r"The " + str(len(params)) + r" entries of $P$ are free parameters; the form is dissipative where"
              r" $P \succ 0$ and $A P + P A^{T} \preceq 0$.")
    D = D.concluding(r"Check $F = (J - R)\nabla H + g u$: " + tex_text(check.verdict())
                     + " (" + tex_text(check.method) + ").")
    return PortHamiltonianForms(F, x, u, H, J, R, g, tuple(params), tuple(params), (), True, check, D, at or {})


def port_form(F: Sequence[sympy.Expr | float], x: Chart | str | Iterable[sympy.Symbol | str], H: sympy.Expr | float, *,
              J: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]] | None = None,
              R: sympy.MatrixBase | numpy.ndarray | Sequence[Sequence[Any]] | None = None,
              u: str | Iterable[sympy.Symbol | str] = (), port: str = "e",
              budget: float = 20.0) -> PortHamiltonianForms:
    """The paper's construction: what ``(J - R) grad H`` does not produce becomes a port.

    ``F = (J - R) grad H + g u + g_e e`` with the port column ``g_e = F_0 - (J - R) grad H``
    and the constant effort ``e = 1`` (the paper's ``e_i = 1``, ``f_i = g_e^T grad H``).
    Every skew J works: with ``J=None`` J is a general constant skew matrix, all of whose
    entries are free parameters -- the non-uniqueness the paper notes.

    Parameters
    ----------
    F, x, H, u : as for :func:`port_hamiltonian_forms`.
    J, R : the chosen matrices (R default 0; J default: unknown constants).
    port : name of the port effort variable.

    Examples
    --------
    >>> import sympy
    >>> q, p, a = sympy.symbols("q p a")
    >>> f = port_form([p, -q + a * p], [q, p], (q**2 + p**2) / 2, J=[[0, 1], [-1, 0]])
    >>> f.g.T, f.port_value
    (Matrix([[0, a*p]]), {e: 1})
    """
    x = _symbols(x, "the state x")
    u = _symbols(u, "the inputs u")
    n = len(x)
    e = sympy.Symbol(str(port))
    if e in x or e in u:
        raise PortHamiltonianError(f"the port variable {e} clashes with the state or the inputs")
    H = _expr(H, "the energy H")
    F, F0, g = _split_inputs(F, x, u)
    unknowns = []
    if J is None:
        Jm = sympy.zeros(n, n)
        for i in range(n):
            for j in range(i + 1, n):
                s = sympy.Symbol(f"J{i + 1}{j + 1}")
                unknowns.append(s)
                Jm[i, j], Jm[j, i] = s, -s
        J = Jm
    J = sympy.ImmutableMatrix(_skew_matrix(_matrix(J, (n, n), "J", "one row per state variable"), Chart(list(x)), "J"))
    R = _matrix(R, (n, n), "R", "one row per state variable")
    grad = sympy.Matrix([diff(H, xi) for xi in x])
    ge = (sympy.Matrix(F0) - (J - R) * grad).applyfunc(sympy.expand)
    G = sympy.ImmutableMatrix(g.row_join(ge))
    U = u + (e,)
    # the check is made at the port's value e = 1, where the form must reproduce F
    check = _verify(F, x, U, H, J, R, G, budget, at={e: sympy.S.One})
    fi = sympy.expand((ge.T * grad)[0])
    D = Derivation("Port-Hamiltonian form with a port (the paper's construction)")
    D = D.add(r"With $H = " + _show(H) + r"$, $\nabla H = " + _col(grad) + r"$ and the chosen",
              r"J &= " + _show(J) + r", & R &= " + _show(R))
    D = D.add(r"the part of $F$ that $(J - R)\nabla H$ does not produce is the port column, with effort"
              r" $e_i = 1$ and flow $f_i = g_e^{T}\nabla H$:",
              r"g_e &= F|_{u=0} - (J - R)\nabla H = " + _col(ge) + r", & f_i &= " + _show(fi))
    if unknowns:
        D = D.add(r"Every skew $J$ gives such a form: the " + str(len(unknowns)) + r" entries of $J$ are free.")
    D = D.concluding(r"Check $F = (J - R)\nabla H + g u + g_e e_i$ at $e_i = 1$: " + tex_text(check.verdict()) + ".")
    return PortHamiltonianForms(F, x, U, H, J, R, G, tuple(unknowns), tuple(unknowns), (), True, check, D,
                                {e: sympy.S.One})


# --------------------------------------------------------------------------- Section 4 end to end


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
    power_balance: Certificate
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
                r" \\ ".join(r"\dot " + sympy.latex(s) + " &= " + _show(v) for s, v in zip(fo.x, F)))
    for d in [f.derivation for f in (constant, quadratic) if f is not None] + [forms.derivation, pb.derivation]:
        Dv = Dv.add(r"\textbf{" + d.title + "}.")
        for s in d.steps:
            Dv = Dv.add(s.text, s.math)
        if d.conclusion:
            Dv = Dv.add(d.conclusion)
    Dv = Dv.add(r"\textbf{Flows and efforts}: $f_s = -\dot X$, $e_i = 1$, and",
                r"e_s &= " + _col(grad) + r", & f_i &= " + _show(flows["f_i"]))
    Dv = Dv.add(r"\textbf{The almost-Dirac structure} is the graph $(f_s, f_i) = D (e_s, e_i)$ of",
                r"D &= " + _show(L.matrix))
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
    return _show(v)


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
        if c != 0 and _is_zero_entry(c - tilde) is True:
            f = sympy.expand(f - c * q1) - Omt**2 * q1
        out.append(f)
    return tuple(out)


def printed_q_structure(example: OscillatorVanDerPol) -> VectorField:
    """The degree-1 field Q of Section 4 read literally as printed in our copy (no brackets, ``p5 p5``).

    On ``cotangent_shift`` of the extended chart ``(x1, x2, q1, q2, x5)`` (the paper's
    ``x^1..x^5``; ``p_i`` are the odd coordinates ``theta_*``).  Not homogeneous: the
    printed components of ``d/dx^4`` and ``d/dx^5``, read without brackets, contain the degree-0
    term ``-A x^1``; ``A p4 p5 p5`` is zero.  With the brackets and ``p5`` once the printed Q is the
    one built from D (``casestudies.salnikov2019_van_der_pol.q_as_printed_with_brackets``).

    Examples
    --------
    >>> ex = oscillator_van_der_pol(quick=True)
    >>> (ex.q_structure.field - printed_q_structure(ex)).is_zero()
    False
    >>> sorted(ex.misprints)
    ['Q, coefficient of d/dq2', 'Q, coefficient of d/dtheta_x1', 'Q, coefficient of d/dx5', "first-order system, x2'"]
    """
    return _printed_q(example.q_structure.field.chart, example.parameters)


def _printed_q(T: Chart, params):
    from ..fields import VectorField

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
    return VectorField(T, comps)
