r"""Port-Hamiltonian systems ``x' = (J - R) grad H + g u``, ``y = g^T grad H``.

``J`` is skew and ``R`` symmetric (positive semidefinite for a dissipative system); the
system obeys the power balance ``dH/dt = -grad H^T R grad H + y^T u``, which
:meth:`PortHamiltonianSystem.power_balance` proves symbolically.  Its almost-Dirac structure
is the graph ``f = D e`` of flows over efforts, and its Q-structure the degree-1 field of
``D`` (see :mod:`geomcheck.structures.port_hamiltonian`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import sympy

from ..algebra import Chart
from ..calculus import diff
from ..certify.certificate import Certificate
from ..errors import PortHamiltonianError, PortHamiltonianShapeError
from ..latex import Derivation, summarize
from ..qstructures import schouten_bracket, skew_matrix
from ..zero import decide_all_zero, decide_zero
from .bivector_q_structure import PortQStructure, port_q_structure
from .dirac import AlmostDiracStructure, graph_with_ports
from .port_hamiltonian_data import entry_is_zero, input_term, scalar_expression, shaped_matrix, symbol_tuple
from .positive_semidefinite import certify_positive_semidefinite

__all__ = ["PortHamiltonianSystem"]


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
        x = symbol_tuple(self.x, "the state x")
        u = symbol_tuple(self.u, "the inputs u")
        if set(x) & set(u):
            raise PortHamiltonianError(f"the inputs u {u} and the state x {x} share symbols")
        n, m = len(x), len(u)
        if n == 0:
            raise PortHamiltonianShapeError("the state x is empty; expected at least one state variable")
        M = Chart(list(x))
        J = shaped_matrix(self.J, (n, n), "J", f"one row and column per state variable {x}")
        J = sympy.ImmutableMatrix(skew_matrix(J, M, "J"))
        R = shaped_matrix(self.R, (n, n), "R", f"one row and column per state variable {x}")
        for i in range(n):
            for j in range(i + 1, n):
                if R[i, j] != R[j, i]:
                    same = entry_is_zero(R[i, j] - R[j, i])
                    if same is not True:
                        state = "is not symmetric" if same is False else "could not be proved symmetric"
                        raise PortHamiltonianError(
                            f"R {state}: entry [{i}][{j}] is {R[i, j]} but entry [{j}][{i}] is"
                            f" {R[j, i]}; expected R = R^T")
        g = shaped_matrix(self.g, (n, m), "g", f"one row per state variable {x}, one column per input {u}")
        H = scalar_expression(self.H, "the energy H")
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
        F = (self.J - self.R) * e + input_term(self.g, self.u)
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
                  r"J &= " + summarize(self.J) + r", & R &= " + summarize(self.R) + r", \\ g &= " + summarize(self.g)
                  + r", & H &= " + summarize(self.H))
        D = D.add(r"Along the flow, since $\nabla H^{T} J \nabla H = 0$ for a skew $J$,",
                  r"\dot H &= \nabla H^{T}\dot x = \nabla H^{T}(J - R)\nabla H + \nabla H^{T} g\, u"
                  r" = -\nabla H^{T} R \nabla H + y^{T} u.")
        D = D.add(r"In flows and efforts ($f_s = -\dot x$, $e_s = \nabla H$, $e_p = u$, $f_p = y$):"
                  r" $\dot H = -e_s^{T} f_s = -\nabla H^{T} R\nabla H + e_p^{T} f_p$, with",
                  r"\nabla H^{T} R \nabla H &= " + summarize(sympy.expand(dissipation)) + r", \\ y^{T}u &= "
                  + summarize(sympy.expand(supply)))
        D = D.add(r"The residual $\dot H + \nabla H^{T}R\nabla H - y^{T}u$ is",
                  r"&" + summarize(residual))
        D = D.concluding({True: r"It vanishes: the power balance holds.",
                          False: r"It does not vanish: the power balance fails.",
                          None: "Undecided."}[decision.is_zero])
        return Certificate.from_decision("dH/dt = -grad H^T R grad H + y^T u", decision, residual=residual,
                                         derivation=D)

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
        return certify_positive_semidefinite(self.R, samples=samples, seed=seed)

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

    def q_structure(self, port_names: Sequence[str | sympy.Symbol] | None = None, **options: Any) -> PortQStructure:
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
        return (r"\dot x = \left(" + summarize(self.J) + " - " + summarize(self.R) + r"\right)\nabla H + "
                + summarize(self.g) + r" u, \quad H = " + summarize(self.H))

    def latex(self) -> str:
        return self._latex()

    def _repr_latex_(self):
        return f"${self._latex()}$"

    def __repr__(self):
        return f"PortHamiltonianSystem(x={self.x}, u={self.u}, H={self.H})"
