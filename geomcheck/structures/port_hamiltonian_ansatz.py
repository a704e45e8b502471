r"""The port-Hamiltonian forms of a first-order system ``x' = F(x, u)``: an ansatz solver.

A system has many pH forms ``F = (J - R) grad H + g u`` (the non-uniqueness Salnikov &
Hamdouni 2019 note in their Section 5).  Three ways to find them:

* :func:`port_hamiltonian_forms`: for a given energy ``H``, the entries of ``J`` (skew) and
  ``R`` (symmetric) are polynomials of a chosen degree with unknown coefficients; the
  identity ``F_0 = (J - R) grad H`` in the state gives linear equations for them, whose
  general solution (with its free parameters) is the family of forms.
* :func:`quadratic_energy_forms`: for a linear system and an unknown quadratic energy
  ``H = 1/2 x^T Q x``, linear in the co-energy matrix ``P = Q^{-1}``.
* :func:`port_form`: the paper's construction, where what ``(J - R) grad H`` does not
  produce becomes a port with constant effort ``e = 1``.

Each result is a :class:`PortHamiltonianForms` with a certificate that the form reproduces
``F`` and a derivation.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import sympy
from sympy.core.function import AppliedUndef

from ..algebra import Chart
from ..calculus import diff
from ..certify.certificate import Certificate
from ..errors import PortHamiltonianError, PortHamiltonianShapeError
from ..latex import Derivation, summarize, tex_text
from ..maps import substitute
from ..qstructures import skew_matrix
from ..zero import Jet, canonical_jets, decide_all_zero
from .port_hamiltonian_data import entry_is_zero, input_term, scalar_expression, shaped_matrix, symbol_tuple
from .port_hamiltonian_system import PortHamiltonianSystem

if TYPE_CHECKING:
    import numpy

__all__ = ["PortHamiltonianForms", "port_hamiltonian_forms", "quadratic_energy_forms", "port_form", "ansatz_matrices",
           "identity_conditions"]


def _col(v) -> str:
    """LaTeX of a vector as a column (summarized when too large to be read)."""
    return summarize(sympy.Matrix(list(v)))


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
        return r"J = " + summarize(self.J) + r",\ R = " + summarize(self.R) + r",\ g = " + summarize(self.g)


def _split_inputs(F, x, u):
    n = len(x)
    F = [scalar_expression(f, f"component {i} of F") for i, f in enumerate(F)]
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


def identity_conditions(residuals: Iterable[sympy.Expr], x: Sequence[sympy.Symbol], *,
                        jets_independent: bool = True, what: str = "the conditions") -> tuple[list, bool]:
    """``(conditions, exact)``: the coefficient equations of ``residual == 0`` identically in the state.

    Each residual is expanded, undefined functions and their derivatives are written as jets
    (:func:`~geomcheck.zero.canonical_jets`), every function of the state ``x`` (a jet, ``sin x``,
    ..) is replaced by a new variable, and the result, a polynomial in ``x`` and those
    variables, gives the equations ``coefficient == 0`` (the nonzero coefficients, in sympy's
    order of the monomials, residual after residual).  They are sufficient for the residuals to
    vanish.  ``exact`` says whether they are necessary too: the values of jets are independent
    of the state and of each other (the zero test's jet model), so they are when
    ``jets_independent`` and no other function of the state occurs; a function such as
    ``sin x`` is not independent of ``x`` (``sin(x)**2 + cos(x)**2 - 1`` vanishes, its
    coefficients do not), so with one ``exact`` is False.

    Parameters
    ----------
    residuals : expressions that must vanish identically.
    x : the state Symbols.
    jets_independent : bool
        True (the ansatz of :func:`port_hamiltonian_forms`: an identity for every function
        ``V``): jets count as independent variables.  False: jets count like ``sin x``, so a
        conclusion drawn from the equations' having no solution must not be trusted
        (``exact`` False); the structure search
        (:func:`~geomcheck.structures.port_hamiltonian_search.find_port_hamiltonian`) asks for
        this, its infeasibility proofs being about the system's own functions.
    what : str
        What the residuals are, for the error message.

    Returns
    -------
    tuple
        ``(conditions, exact)``: a list of expressions in the other symbols (not expanded), a bool.

    Raises
    ------
    PortHamiltonianError
        A residual is not polynomial in the state and the values of functions of it
        (``1/x``, ``sqrt(x)``, ``2**x``).

    Examples
    --------
    >>> import sympy
    >>> q, a, b = sympy.symbols("q a b")
    >>> V = sympy.Function("V")
    >>> identity_conditions([(a - 1) * q**2 + b * V(q).diff(q)], [q])
    ([a - 1, b], True)
    >>> identity_conditions([(a - 1) * q**2 + b * V(q).diff(q)], [q], jets_independent=False)
    ([a - 1, b], False)
    >>> identity_conditions([a * sympy.sin(q) + b * q], [q])
    ([b, a], False)
    >>> identity_conditions([sympy.sin(q)**2 + sympy.cos(q)**2 - 1], [q])   # sufficient, not necessary
    ([1, 1, -1], False)
    >>> identity_conditions([a / q], [q])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    geomcheck.errors.PortHamiltonianError: the conditions are not polynomial in the state [q] and the values ...
    """
    xs = set(x)
    atoms, exact = {}, True
    # one variable per function of the state, shared by all residuals (the same value everywhere)
    independent = (AppliedUndef, Jet) if jets_independent else ()
    conds = []
    for r in residuals:
        r = canonical_jets(sympy.expand(r))
        for fa in r.atoms(sympy.Function):
            if fa.free_symbols & xs and fa not in atoms:
                atoms[fa] = sympy.Dummy("j")
                if not isinstance(fa, independent):
                    exact = False
        rr = sympy.expand(r.xreplace(atoms))
        gens = list(x) + list(atoms.values())
        try:
            poly = sympy.Poly(rr, *gens)
        except sympy.PolynomialError as exc:
            raise PortHamiltonianError(
                f"{what} are not polynomial in the state {x} and the values of functions: {exc}") from None
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
    model = (J - R) * grad + input_term(g, u)
    if at:
        model = model.xreplace(at)
    res = {i: F[i] - model[i] for i in range(len(x))}
    decision = decide_all_zero(res, budget=budget)
    D = Derivation("Check of the port-Hamiltonian form")
    D = D.add(r"The residual $F - ((J - R)\nabla H + g u)$ must vanish identically.")
    D = D.concluding({True: "It does.", False: "It does not.", None: "Undecided."}[decision.is_zero])
    return Certificate.from_decision("F == (J - R) grad H + g u", decision, residual=res, derivation=D)


def ansatz_matrices(n: int, variables: Sequence[sympy.Symbol], degree: int, dissipation: bool = True) -> tuple:
    """``(J, R, unknowns)``: a skew ``J`` and a symmetric ``R`` (zero without ``dissipation``) of size ``n``
    whose entries are polynomials of total degree ``<= degree`` in ``variables`` with unknown coefficients
    ``J12_0, J12_1, ...`` (``J12`` alone at degree 0).

    >>> import sympy
    >>> q, p = sympy.symbols("q p")
    >>> J, R, unknowns = ansatz_matrices(2, [q, p], 0)
    >>> J[0, 1], R[1, 1], unknowns
    (J12, R22, [J12, R11, R12, R22])
    """
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
    x = symbol_tuple(x, "the state x")
    u = symbol_tuple(u, "the inputs u")
    n = len(x)
    H = scalar_expression(H, "the energy H")
    F, F0, g = _split_inputs(F, x, u)
    variables = x if depends_on is None else symbol_tuple(depends_on, "depends_on")
    J, R, unknowns = ansatz_matrices(n, variables, degree, dissipation)
    grad = sympy.Matrix([diff(H, xi) for xi in x])
    residual = sympy.Matrix(F0) - (J - R) * grad
    conds, exact = identity_conditions(list(residual), x)
    consistent, sol, free = _solve_family(conds, unknowns)
    D = Derivation("Port-Hamiltonian forms of a first-order system")
    D = D.add(r"For $\dot x = F(x, u)$ with",
              r"F &= " + _col(F) + r", & H &= " + summarize(H) + r", \\ \nabla H &= " + _col(grad)
              + r", & g &= \frac{\partial F}{\partial u} = " + summarize(g))
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
              r"J &= " + summarize(J) + r", & R &= " + summarize(R))
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
    x = symbol_tuple(x, "the state x")
    u = symbol_tuple(u, "the inputs u")
    n = len(x)
    F, F0, g = _split_inputs(F, x, u)
    A = sympy.zeros(n, n)
    origin = {xi: 0 for xi in x}
    rests = []
    for i, f in enumerate(F0):
        for j, xj in enumerate(x):
            A[i, j] = substitute(diff(f, xj), origin)
        rest = sympy.expand(f - sum(A[i, j] * x[j] for j in range(n)))
        if rest != 0 and entry_is_zero(rest) is True:
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
                  r"A &= " + summarize(A) + r", & g &= " + summarize(g))
    else:
        D = D.add(r"The system is linear, $\dot x = A x + g u$, with", r"A &= " + summarize(A) + r", & g &= " + summarize(g))
    D = D.add(r"For $H = \tfrac12 x^{T} Q x$ the conditions $A = (J - R) Q$ are bilinear; with the co-energy"
              r" matrix $P = Q^{-1}$ they are linear, $J - R = A P$:",
              r"J &= \tfrac12 (A P - P A^{T}) = " + summarize(J) + r", \\ R &= -\tfrac12 (A P + P A^{T}) = " + summarize(R))
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
    x = symbol_tuple(x, "the state x")
    u = symbol_tuple(u, "the inputs u")
    n = len(x)
    e = sympy.Symbol(str(port))
    if e in x or e in u:
        raise PortHamiltonianError(f"the port variable {e} clashes with the state or the inputs")
    H = scalar_expression(H, "the energy H")
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
    J = sympy.ImmutableMatrix(skew_matrix(shaped_matrix(J, (n, n), "J", "one row per state variable"), Chart(list(x)), "J"))
    R = shaped_matrix(R, (n, n), "R", "one row per state variable")
    grad = sympy.Matrix([diff(H, xi) for xi in x])
    ge = (sympy.Matrix(F0) - (J - R) * grad).applyfunc(sympy.expand)
    G = sympy.ImmutableMatrix(g.row_join(ge))
    U = u + (e,)
    # the check is made at the port's value e = 1, where the form must reproduce F
    check = _verify(F, x, U, H, J, R, G, budget, at={e: sympy.S.One})
    fi = sympy.expand((ge.T * grad)[0])
    D = Derivation("Port-Hamiltonian form with a port (the paper's construction)")
    D = D.add(r"With $H = " + summarize(H) + r"$, $\nabla H = " + _col(grad) + r"$ and the chosen",
              r"J &= " + summarize(J) + r", & R &= " + summarize(R))
    D = D.add(r"the part of $F$ that $(J - R)\nabla H$ does not produce is the port column, with effort"
              r" $e_i = 1$ and flow $f_i = g_e^{T}\nabla H$:",
              r"g_e &= F|_{u=0} - (J - R)\nabla H = " + _col(ge) + r", & f_i &= " + summarize(fi))
    if unknowns:
        D = D.add(r"Every skew $J$ gives such a form: the " + str(len(unknowns)) + r" entries of $J$ are free.")
    D = D.concluding(r"Check $F = (J - R)\nabla H + g u + g_e e_i$ at $e_i = 1$: " + tex_text(check.verdict()) + ".")
    return PortHamiltonianForms(F, x, U, H, J, R, G, tuple(unknowns), tuple(unknowns), (), True, check, D,
                                {e: sympy.S.One})
