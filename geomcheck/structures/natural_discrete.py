r"""Discrete-gradient schemes for coupled natural systems and their discrete energy identity.

Komatsu, Terakawa & Yaguchi 2020, Sections 3-4: the schemes (61) (ODE-ODE) and (82) (with
approximate delta vectors ``eps`` and weights ``mu``)

    (u^+ - u)/dt = A v,                       A v = (v^+ + v)/2,
    M1 (v1^+ - v1)/dt = -g1(u1^+, u1) - G1 A v1 + f eps1,
    M2 (v2^+ - v2)/dt = -g2(u2^+, u2) - G2 A v2 - f eps2,

for ANY discrete gradient ``g`` of ``V`` (``V(u) - V(v) = g(u, v).(u - v)``), given as a function
``gradient(V, x, u, v) -> components`` (:func:`geomcheck.certify.discrete_gradients.avf_gradient`,
``gonzalez_gradient``, ``itoh_abe_gradient``, or :func:`generic_discrete_gradient`, whose components
are undefined functions: "every discrete gradient").

The force ``f^{n+1/2}`` is derived as in the continuous case: the contact-velocity mismatch
``c = mu1 eps1.v1 - mu2 eps2.v2`` must not change over a step; substituting the momentum equations
into ``c(v^+) - c(v) = 0`` gives a linear equation for ``f``.

:func:`certify_discrete_energy_balance` proves Theorems 4 and 6,
``(E(n+1) - E(n))/dt = -mu1 G1(d+u1, d+u1) - mu2 G2(d+u2, d+u2)`` on the scheme, the way the paper
does: the scheme's solution set is parametrized by ``(u, u^+)`` (then ``A v = d+ u`` and
``v^+ - v`` are explicit), the difference of the potentials is replaced by ``g.(u^+ - u)``
*through the discrete-gradient identity* (assumed for a generic ``g``, which is the hypothesis of the
theorem; certified for a concrete one), the remaining identity
``(E(n+1) - E(n))/dt + D = f (mu1 eps1.d+u1 - mu2 eps2.d+u2)`` is decided, ``c`` is shown to be
invariant, and on ``c = 0`` (the initial condition (62)/(81)) the balance follows.

[error] Theorem 6, eq. (82) (a misprint of the authors; test ``test_theorem6_printed_force_misprint``):
the printed ``f^{n+1/2}`` has ``G1 A v2`` in its first term; the derivation, the theorem's own proof
and the ODE scheme's eq. (61) have ``G1 A v1``.  With the printed force ``c`` is not invariant and the
energy identity fails (for ``G1 != 0``).

Examples
--------
>>> import sympy
>>> from geomcheck.structures import natural_system, couple
>>> from geomcheck.structures import discrete_gradient_scheme, generic_discrete_gradient
>>> from geomcheck.structures import certify_discrete_energy_balance
>>> g1, g2 = sympy.symbols("gamma1 gamma2", positive=True)
>>> s = couple(natural_system(2, name="1", damping=g1), natural_system(2, name="2", damping=g2), 1, 0)
>>> scheme = discrete_gradient_scheme(s, generic_discrete_gradient)
>>> certify_discrete_energy_balance(scheme).holds
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import sympy
from sympy.core.function import AppliedUndef

from ..calculus import diff
from ..certify.certificate import Certificate
from ..certify.discrete_gradients import avf_gradient, certify_discrete_gradient
from ..errors import DiscreteGradientError, ExpressionError, SubsystemShapeError
from ..latex import Derivation, latex, tex_text
from ..maps import ImplicitMap, substitute
from ..zero import decide_all_zero, decide_zero
from .exact_vectors import dot, exact_entry, matvec
from .natural import CoupledNaturalSystem, required_scalar_mass, single_contact_node
from .typeset import typeset, typeset_sum

__all__ = [
    "generic_discrete_gradient",
    "DiscreteGradientScheme",
    "discrete_gradient_scheme",
    "printed_scheme_force",
    "certify_discrete_energy_balance",
]

#: prefix of the undefined functions of a generic discrete gradient
_GENERIC = r"\bar{\nabla}"


def generic_discrete_gradient(V: sympy.Expr, x: Sequence[sympy.Symbol], u: Sequence[sympy.Symbol],
                              v: Sequence[sympy.Symbol]) -> tuple[sympy.Expr, ...]:
    r"""Every discrete gradient at once: ``g_k(u, v)`` undefined functions (k = 1..n).

    The discrete-gradient identity ``V(u) - V(v) = g(u, v).(u - v)`` is *not* built in: it is the
    hypothesis a proof may use (:func:`certify_discrete_energy_balance` uses it as a substitution).

    Parameters
    ----------
    V : sympy.Expr
        The potential (used for the name of g).
    x, u, v : sequence of Symbol
        V's variables and the two points.

    Examples
    --------
    >>> import sympy
    >>> a, b, c, d = sympy.symbols("a b c d")
    >>> generic_discrete_gradient(sympy.Function("V")(a), [a], [b], [c])
    (\bar{\nabla}_{1}V(b, c),)
    """
    x, u, v = tuple(x), tuple(u), tuple(v)
    if not (len(x) == len(u) == len(v)) or not u:
        raise DiscreteGradientError(
            f"x, u, v must be points of the same dimension n >= 1; got lengths {len(x)}, {len(u)}, {len(v)}")
    if isinstance(V, AppliedUndef):
        label = str(V.func)
    else:
        name = str(x[0])
        label = "V" + (name[name.index("{") + 1: name.index(",")] if name.startswith("u_{") and "," in name else "")
    # \bar{\nabla}_{k}V_1: the k-th component (one subscript only, so that LaTeX accepts it)
    return tuple(sympy.Function(f"{_GENERIC}_{{{k + 1}}}{label}")(*u, *v) for k in range(len(u)))


def _is_generic(g) -> bool:
    return any(str(a.func).startswith(_GENERIC) for gi in g for a in gi.atoms(AppliedUndef))


def _next(sym):
    """u_{1,3} -> u^{+}_{1,3}: the value at the next time level."""
    name = sym.name
    if "_" in name:
        head, tail = name.split("_", 1)
        return sympy.Symbol(f"{head}^{{+}}_{tail}")
    return sympy.Symbol(name + "^{+}")


@dataclass(frozen=True)
class DiscreteGradientScheme:
    r"""The scheme (61)/(82) of a :class:`CoupledNaturalSystem` for one discrete gradient.

    Attributes
    ----------
    system : CoupledNaturalSystem
    step : Symbol
        ``dt`` (default ``h``).
    current, new : tuple of Symbol
        ``(u1, v1, u2, v2)`` and their values at the next level ``(u1^+, v1^+, u2^+, v2^+)``.
    gradients : (tuple, tuple)
        ``g1(u1^+, u1)`` and ``g2(u2^+, u2)``.
    force : sympy.Expr
        ``f^{n+1/2}``.
    equations : tuple of sympy.Expr
        The scheme, each ``== 0``, in the order of ``new``.
    derivation : Derivation
    """

    system: CoupledNaturalSystem
    step: sympy.Symbol
    current: tuple
    new: tuple
    gradients: tuple
    force: sympy.Expr
    equations: tuple
    derivation: Derivation
    force_rule: object = None

    def blocks(
            self, k: int,
    ) -> tuple[tuple[sympy.Symbol, ...], tuple[sympy.Symbol, ...], tuple[sympy.Symbol, ...], tuple[sympy.Symbol, ...]]:
        """(u, v, u^+, v^+) of subsystem k (0 or 1)."""
        A = self.system.systems[k]
        off = 0 if k == 0 else 2 * self.system.first.n
        n = A.n
        return (self.current[off:off + n], self.current[off + n:off + 2 * n],
                self.new[off:off + n], self.new[off + n:off + 2 * n])

    def implicit_map(self) -> ImplicitMap:
        """The one-step map as an :class:`~geomcheck.ImplicitMap` of the chart ``(u1, v1, u2, v2)``."""
        return ImplicitMap(self.system.chart, self.system.chart, self.equations, new=self.new)

    def latex(self) -> str:
        return self.derivation.latex()


def _averages(scheme_like):
    out = []
    for k in range(2):
        u, v, U, W = scheme_like.blocks(k)
        out.append(tuple((a + b) / 2 for a, b in zip(W, v)))
    return out


def _gradient(gradient, system, U, who):
    try:
        g = gradient(system.potential, system.u, U, system.u)
    except DiscreteGradientError:
        raise
    except TypeError as exc:
        raise ExpressionError(f"the discrete gradient must be a function (V, x, u, v) -> components: {exc}") from None
    if isinstance(g, sympy.MatrixBase):
        g = list(g)
    if isinstance(g, (str, bytes)) or not hasattr(g, "__iter__"):
        raise DiscreteGradientError(f"the discrete gradient of system {system.name} returned {g!r}, not a sequence")
    g = tuple(exact_entry(x, f"discrete gradient component of system {system.name}") for x in g)
    if len(g) != system.n:
        raise DiscreteGradientError(
            f"the discrete gradient of system {system.name} has {len(g)} components; {system.n} were expected"
            f" ({who})")
    return g


def discrete_gradient_scheme(
        system: CoupledNaturalSystem, gradient: Callable[..., Sequence[sympy.Expr]] | None = None, *,
        step: sympy.Symbol | None = None, force: Callable[[DiscreteGradientScheme], sympy.Expr] | None = None,
) -> DiscreteGradientScheme:
    r"""Build the scheme (61)/(82) for ``system`` with the discrete gradient ``gradient``.

    Parameters
    ----------
    system : CoupledNaturalSystem
    gradient : callable ``(V, x, u, v) -> components``, optional
        Default :func:`~geomcheck.certify.discrete_gradients.avf_gradient`.
    step : Symbol, optional
        The time step (default ``h``).
    force : callable ``(scheme) -> expression``, optional
        Use another ``f^{n+1/2}`` than the derived one (e.g. :func:`printed_scheme_force`).

    Raises
    ------
    DiscreteGradientError
        The gradient returns the wrong number of components.

    Examples
    --------
    >>> import sympy
    >>> from geomcheck.structures import natural_system, couple
    >>> s = couple(natural_system(1, lambda u: u[0]**2/2, name="1"),
    ...            natural_system(1, lambda u: u[0]**4, name="2"), 0, 0)
    >>> sch = discrete_gradient_scheme(s)
    >>> sch.gradients[1]
    (u^{+}_{2,1}**3 + u^{+}_{2,1}**2*u_{2,1} + u^{+}_{2,1}*u_{2,1}**2 + u_{2,1}**3,)
    """
    if not isinstance(system, CoupledNaturalSystem):
        raise ExpressionError(f"discrete_gradient_scheme expects a CoupledNaturalSystem, got {type(system).__name__}")
    gradient = avf_gradient if gradient is None else gradient
    if not callable(gradient):
        raise ExpressionError(f"gradient must be a function (V, x, u, v) -> components, got {gradient!r}")
    h = sympy.Symbol("h") if step is None else step
    if not isinstance(h, sympy.Symbol):
        raise ExpressionError(f"the step must be a sympy Symbol, got {h!r}")
    A, B = system.first, system.second
    current = tuple(system.chart.coords)
    new = tuple(_next(s) for s in current)
    n1 = A.n
    U1, W1 = new[:n1], new[n1:2 * n1]
    U2, W2 = new[2 * n1:2 * n1 + B.n], new[2 * n1 + B.n:]
    g1 = _gradient(gradient, A, U1, "first system")
    g2 = _gradient(gradient, B, U2, "second system")
    Av1 = tuple((a + b) / 2 for a, b in zip(W1, A.v))
    Av2 = tuple((a + b) / 2 for a, b in zip(W2, B.v))
    e1, e2 = system.eps1, system.eps2
    # derive f: the momentum equations put into c(v^+) - c(v) = 0 (linear in f)
    fs = sympy.Dummy("f")
    dv1 = A.solve_mass([-g - d + fs * e for g, d, e in zip(g1, A.damping_force(Av1), e1)])
    dv2 = B.solve_mass([-g - d - fs * e for g, d, e in zip(g2, B.damping_force(Av2), e2)])
    dc = A.weight * dot(e1, dv1) - B.weight * dot(e2, dv2)       # (c(v^+) - c(v)) / h
    a = sympy.cancel(diff(dc, fs))
    b = dc.xreplace({fs: 0})
    derived = -b / a
    pending = DiscreteGradientScheme(system, h, current, new, (g1, g2), derived, (), Derivation(""))
    f = derived if force is None else exact_entry(force(pending), "force")
    eqs = []
    for sysk, (u, v, U, W), g, Av, sign, e in (
            (A, (A.u, A.v, U1, W1), g1, Av1, 1, e1), (B, (B.u, B.v, U2, W2), g2, Av2, -1, e2)):
        eqs += [(Ui - ui) / h - ai for Ui, ui, ai in zip(U, u, Av)]
        Mdv = matvec(sysk.mass, [(Wi - vi) / h for Wi, vi in zip(W, v)])
        eqs += [m + gi + d - sign * f * ei for m, gi, d, ei in zip(Mdv, g, sysk.damping_force(Av), e)]
    D = Derivation(r"The discrete-gradient scheme (eqs. (61), (82))")
    D = D.add(
        r"With $\delta_t^+ u = (u^{+} - u)/\Delta t$, $A_t^+ v = (v^{+} + v)/2$ and a discrete gradient "
        r"$\bar\nabla V$ of each potential, the scheme is",
        r"\delta_t^+ u_1 &= A_t^+ v_1, & M_1\delta_t^+ v_1 &= -\bar\nabla V_1(u_1^{+}, u_1) - G_1A_t^+v_1 + "
        r"f^{n+\frac12}\varepsilon_1, \\ \delta_t^+ u_2 &= A_t^+ v_2, & M_2\delta_t^+ v_2 &= "
        r"-\bar\nabla V_2(u_2^{+}, u_2) - G_2A_t^+v_2 - f^{n+\frac12}\varepsilon_2.")
    D = D.add(
        r"The force is fixed by requiring that the contact-velocity mismatch "
        r"$c = \mu_1\varepsilon_1\cdot v_1 - \mu_2\varepsilon_2\cdot v_2$ does not change: substituting the "
        r"momentum equations into $\delta_t^+ c = 0$ gives $a f + b = 0$ with",
        r"a &= " + typeset(a) + r", \\ b &= " + typeset_sum(b, expand=True) + r", \\ f^{n+\frac12} &= -b/a"
        + (r"" if force is None else r" \\ \text{(replaced by } f &= " + typeset(f) + r"\text{)}") + ".")
    return DiscreteGradientScheme(system, h, current, new, (g1, g2), f, tuple(eqs), D, force)


def printed_scheme_force(equation: str) -> Callable[[DiscreteGradientScheme], sympy.Expr]:
    r"""``f^{n+1/2}`` as printed, for ``discrete_gradient_scheme(..., force=printed_scheme_force(eq))``.

    ``"61"``: ``m2/(m1+m2)(g1 + G1 A v1)_i - m1/(m1+m2)(g2 + G2 A v2)_j``;
    ``"82"``: ``(mu1 eps1.eps1/rho1 + mu2 eps2.eps2/rho2)^{-1}(mu1/rho1 eps1.(g1 + G1 A v2)
    - mu2/rho2 eps2.(g2 + G2 A v2))`` with the printed ``A v2`` in the first term (needs n1 = n2).
    """
    if equation not in ("61", "82"):
        raise ExpressionError(f"unknown equation {equation!r}; expected '61' or '82'")

    def build(scheme):
        S = scheme.system
        A, B = S.first, S.second
        g1, g2 = scheme.gradients
        Av1, Av2 = _averages(scheme)
        m1, m2 = required_scalar_mass(A, equation), required_scalar_mass(B, equation)
        if equation == "61":
            i, j = single_contact_node(S.eps1, 1), single_contact_node(S.eps2, 2)
            return (m2 / (m1 + m2) * (g1[i] + A.damping_force(Av1)[i])
                    - m1 / (m1 + m2) * (g2[j] + B.damping_force(Av2)[j]))
        if A.n != B.n:
            raise SubsystemShapeError(
                f"eq. (82) as printed applies G1 to A v2, which needs subsystems of equal size ({A.n} != {B.n})")
        e1, e2 = S.eps1, S.eps2
        a = A.weight * dot(e1, e1) / m1 + B.weight * dot(e2, e2) / m2
        G1v2 = matvec(A.damping, Av2) if A.damping is not None else (0,) * A.n
        l1 = dot(e1, [g + d for g, d in zip(g1, G1v2)])
        l2 = dot(e2, [g + d for g, d in zip(g2, B.damping_force(Av2))])
        return (A.weight / m1 * l1 - B.weight / m2 * l2) / a

    return build


# --------------------------------------------------------------------------- the certificate


def _axiom(system, g, U, generic):
    """The discrete-gradient identity ``V(U) - V(u) = g.(U - u)``: (holds, how, point, residual)."""
    residual = (substitute(system.potential, dict(zip(system.u, U))) - system.potential
                - dot(g, [Ui - ui for Ui, ui in zip(U, system.u)]))
    if generic:
        return True, "assumed: it defines a discrete gradient (the hypothesis of the theorem)", None, residual
    if any(gi.has(sympy.Integral) for gi in g):
        c = certify_discrete_gradient(g, system.potential, U, system.u, x=system.u)
        return c.holds, "certified: " + c.method, c.counterexample, residual
    d = decide_zero(residual)
    return d.is_zero, d.method, d.point, residual


def _structure(scheme, energy, dissipation, free_force=True):
    """The expressions whose vanishing proves the balance, given the discrete-gradient identity.

    Built with the scheme's discrete gradients; returns a dict of named expressions and the data
    to typeset.
    """
    S, h = scheme.system, scheme.step
    A, B = S.first, S.second
    (u1, v1, U1, W1), (u2, v2, U2, W2) = scheme.blocks(0), scheme.blocks(1)
    g1, g2 = scheme.gradients
    w1 = tuple((a - b) / h for a, b in zip(U1, u1))
    w2 = tuple((a - b) / h for a, b in zip(U2, u2))
    # the scheme's solution set, parametrized by (u, u^+): A v = w and v^+ - v = d
    d1 = tuple(sympy.Dummy(f"d1_{k}") for k in range(A.n))
    d2 = tuple(sympy.Dummy(f"d2_{k}") for k in range(B.n))
    split = {}
    for v, W, w, d in ((v1, W1, w1, d1), (v2, W2, w2, d2)):
        split.update({vi: wi - di / 2 for vi, wi, di in zip(v, w, d)})
        split.update({Wi: wi + di / 2 for Wi, wi, di in zip(W, w, d)})
    f_w = scheme.force.xreplace(split)
    if f_w.has(*d1, *d2):
        raise ExpressionError("the scheme's force depends on the velocities other than through A v; "
                              "the solution set cannot be parametrized by (u, u+)")
    # the balance holds for every value of f (the force enters as f times the contact mismatch),
    # so v^+ - v is written with a free symbol phi for f: smaller expressions, same conclusion;
    # the scheme check and the invariance of c use the scheme's own force
    phi = sympy.Dummy("phi")
    F1 = A.solve_mass([-g - dd + phi * e for g, dd, e in zip(g1, A.damping_force(w1), S.eps1)])
    F2 = B.solve_mass([-g - dd - phi * e for g, dd, e in zip(g2, B.damping_force(w2), S.eps2)])
    dvals = dict(zip(d1, [h * x for x in F1]))
    dvals.update(zip(d2, [h * x for x in F2]))
    P_phi = {k: val.xreplace(dvals) for k, val in split.items()}
    P = {k: val.xreplace({phi: f_w}) for k, val in P_phi.items()}
    on_graph = [e.xreplace(P) for e in scheme.equations]
    if energy is None:
        E_now = A.energy(u1, v1) + B.energy(u2, v2)
        E_next = A.energy(U1, W1) + B.energy(U2, W2)
    else:
        E_now, E_next = exact_entry(energy(u1, v1, u2, v2), "energy"), exact_entry(energy(U1, W1, U2, W2), "energy")
    Dis = (A.dissipation(w1) + B.dissipation(w2)) if dissipation is None else exact_entry(dissipation(w1, w2),
                                                                                        "dissipation")
    R = ((E_next - E_now) / h + Dis).xreplace(P_phi if free_force else P)
    # V(u+) - V(u) replaced by g.(u+ - u): subtract mu/h times the identity's residual
    ids = [substitute(X.potential, dict(zip(X.u, U))) - X.potential - dot(g, [a - b for a, b in zip(U, X.u)])
           for X, g, U in ((A, g1, U1), (B, g2, U2))]
    R1 = R - (A.weight * ids[0] + B.weight * ids[1]) / h
    c_half = A.weight * dot(S.eps1, w1) - B.weight * dot(S.eps2, w2)
    inv = (A.weight * dot(S.eps1, W1) - B.weight * dot(S.eps2, W2)
           - A.weight * dot(S.eps1, v1) + B.weight * dot(S.eps2, v2)).xreplace(P)
    # restriction to c = 0: solve c_half = 0 for one new position of the first system
    k = next(i for i, e in enumerate(S.eps1) if e != 0)
    sol = sympy.expand(U1[k] - c_half / diff(c_half, U1[k]))
    R_on = substitute(R1, {U1[k]: sol})
    return {"scheme": on_graph, "invariance": inv, "on c = 0": R_on, "identity": R1 - (phi if free_force else f_w) * c_half,
            "balance": R1, "solved": (U1[k], sol), "f": f_w, "phi": phi}


def _decide_parts(parts):
    return (decide_all_zero(parts["scheme"]), decide_zero(parts["invariance"]), decide_zero(parts["on c = 0"]),
            decide_zero(parts["identity"]))


def certify_discrete_energy_balance(scheme: DiscreteGradientScheme, *, energy: Callable[..., sympy.Expr] | None = None,
                                    dissipation: Callable[..., sympy.Expr] | None = None) -> Certificate:
    r"""Certify ``(E(n+1) - E(n))/dt == -(discrete dissipation)`` on the scheme (Theorems 4 and 6).

    The structural part of the proof (the parametrization solves the scheme; ``c`` is invariant;
    after the discrete-gradient identity, the balance on ``c = 0``) holds for *every* value of the
    discrete gradient, so it is decided first with the gradient's components replaced by free
    symbols (sound: an identity for all values holds for the actual ones), and again with the
    actual components only when that is not conclusive.

    Parameters
    ----------
    scheme : DiscreteGradientScheme
    energy : callable ``(u1, v1, u2, v2) -> expression``, optional
        Replace ``E_d = sum mu (1/2 v.M v + V(u))`` (to test printed variants).
    dissipation : callable ``(w1, w2) -> expression``, optional
        Replace ``D = mu1 w1.G1 w1 + mu2 w2.G2 w2`` at ``w = d+ u``.

    Returns
    -------
    Certificate
        ``holds`` True when the discrete-gradient identity holds (assumed for a generic gradient,
        certified for a concrete one), the parametrization solves the scheme, ``c`` is invariant and
        the balance holds on ``c = 0``; ``residual`` holds each part.
    """
    if not isinstance(scheme, DiscreteGradientScheme):
        raise ExpressionError(f"expected a DiscreteGradientScheme, got {type(scheme).__name__}")
    S = scheme.system
    A, B = S.first, S.second
    g1, g2 = scheme.gradients
    generic = _is_generic(g1) or _is_generic(g2)
    ax1, how1, pt1, res1 = _axiom(A, g1, scheme.blocks(0)[2], generic)
    ax2, how2, pt2, res2 = _axiom(B, g2, scheme.blocks(1)[2], generic)
    # the structural part with free values gamma for the discrete gradient
    gam = [tuple(sympy.Dummy(f"gamma{j}_{k}") for k in range(X.n)) for j, X in enumerate((A, B))]
    free = discrete_gradient_scheme(S, _Fixed(gam), step=scheme.step, force=scheme.force_rule)
    parts = _structure(free, energy, dissipation)
    d_graph, d_inv, d_bal, d_id = _decide_parts(parts)
    how_free = "with the discrete gradient's components and the force as free values"
    if any(d.is_zero is not True for d in (d_graph, d_inv, d_bal)):
        actual = dict(zip(gam[0] + gam[1], tuple(g1) + tuple(g2)))
        if not any(gi.has(sympy.Integral) for gi in tuple(g1) + tuple(g2)):
            parts = _structure(scheme, energy, dissipation, free_force=False)
            d_graph, d_inv, d_bal, d_id = _decide_parts(parts)
            how_free = "with the actual discrete gradient and force"
        else:
            parts = {k: v for k, v in parts.items()}
            parts["actual gradient"] = actual
    steps = [("the discrete-gradient identity for g1", ax1, how1, pt1),
             ("the discrete-gradient identity for g2", ax2, how2, pt2),
             ("(u, u+) parametrizes the scheme's solutions", d_graph.is_zero, d_graph.method, d_graph.point),
             ("c is invariant: c(v+) = c(v)", d_inv.is_zero, d_inv.method, d_inv.point),
             ("(E(n+1) - E(n))/dt + D vanishes on c = 0", d_bal.is_zero, d_bal.method, d_bal.point)]
    if all(p[1] is True for p in steps):
        holds = True
    elif any(p[1] is False for p in steps) and (how_free == "with the actual discrete gradient and force"
                                               or ax1 is False or ax2 is False):
        holds = False
    else:
        holds = None
    method = "; ".join(f"{name}: {how}" for name, ok, how, _ in steps) + f" (structure decided {how_free})"
    point = None
    if holds is False:
        bad = next(p for p in steps if p[1] is False)
        method = f"fails: {bad[0]} ({bad[2]})"
        point = bad[3]
    decisions = [d_graph, d_inv, d_bal]
    stage = ("randomized" if any(x.stage == "randomized" for x in decisions) else "exact") if holds is True else (
        "counterexample" if holds is False else "unknown")
    U1k, sol = parts["solved"]
    D = scheme.derivation.add(
        r"\textbf{Discrete energy identity (Theorems 4 and 6).} The discrete energy and dissipation are",
        r"E_d^{(n)} &= \mu_1\Bigl(\tfrac12 v_1\cdot M_1 v_1 + V_1(u_1)\Bigr) + \mu_2\Bigl(\tfrac12 v_2\cdot M_2v_2 + "
        r"V_2(u_2)\Bigr), \\ \mathcal D^{(n)} &= \mu_1 G_1(\delta_t^+u_1, \delta_t^+u_1) + "
        r"\mu_2 G_2(\delta_t^+u_2, \delta_t^+u_2).")
    D = D.add(
        r"On the scheme $A_t^+v = \delta_t^+u$, so its solutions are parametrized by $(u, u^{+})$: "
        r"$v = \delta_t^+u - \tfrac{\Delta t}2\delta_t^+v$, $v^{+} = \delta_t^+u + \tfrac{\Delta t}2\delta_t^+v$ with "
        r"$\delta_t^+ v$ from the momentum equations (" + tex_text(d_graph.method) + ").")
    D = D.add(
        r"By the discrete-gradient property $V(u^{+}) - V(u) = \bar\nabla V(u^{+}, u)\cdot(u^{+} - u)$ ("
        + tex_text(how1) + "; " + tex_text(how2) + r"), as in eq. (85),",
        r"\frac{E_d^{(n+1)} - E_d^{(n)}}{\Delta t} &= \sum_{k=1,2}\mu_k\Bigl(A_t^+v_k\cdot M_k\delta_t^+v_k + "
        r"\bar\nabla V_k(u_k^{+}, u_k)\cdot\delta_t^+u_k\Bigr),")
    D = D.add(
        r"and substituting the scheme (eq. (86); the components of $\bar\nabla V$ written as $\gamma$, the force "
        r"as $f$, since the identity holds for all their values),",
        r"\frac{E_d^{(n+1)} - E_d^{(n)}}{\Delta t} + \mathcal D^{(n)} &= "
        + typeset_sum(parts["balance"].xreplace({parts["phi"]: sympy.Symbol("f")}), expand=True)
        + r" \\ &= f^{n+\frac12}\bigl(\mu_1\varepsilon_1\cdot\delta_t^+u_1 - \mu_2\varepsilon_2\cdot\delta_t^+u_2\bigr)"
        r"\quad(\text{" + tex_text(d_id.method) + "}).")
    D = D.add(
        r"By the choice of $f^{n+\frac12}$ the mismatch $c = \mu_1\varepsilon_1\cdot v_1 - \mu_2\varepsilon_2\cdot v_2$ "
        r"is invariant,",
        r"c(v^{+}) - c(v) &= " + typeset_sum(parts["invariance"], expand=True)
        + r"\quad(\text{" + tex_text(d_inv.method) + r"}),")
    D = D.add(
        r"so $\mu_1\varepsilon_1\cdot\delta_t^+u_1 - \mu_2\varepsilon_2\cdot\delta_t^+u_2 = c = 0$ at every step "
        r"when it holds at the first (eqs. (62), (81)). There, with $" + latex(U1k) + " = " + typeset(sol) + "$,",
        r"\frac{E_d^{(n+1)} - E_d^{(n)}}{\Delta t} + \mathcal D^{(n)} &= " + typeset_sum(parts["on c = 0"], expand=True)
        + r"\quad(\text{" + tex_text(d_bal.method) + "}).")
    D = D.concluding({True: r"Hence $(E_d^{(n+1)} - E_d^{(n)})/\Delta t = -\mathcal D^{(n)} \le 0$.",
                      False: "Hence the discrete energy identity fails.", None: "The claim is undecided."}[holds])
    residual = {k: parts[k] for k in ("scheme", "invariance", "balance", "on c = 0")}
    residual["discrete-gradient identity"] = (res1, res2)
    return Certificate(
        claim="(E(n+1) - E(n))/dt == -(discrete dissipation) on the scheme, for a discrete gradient g of V, "
              "on the invariant set of equal contact velocities",
        holds=holds, method=method, stage=stage, residual=residual, counterexample=point, derivation=D)


class _Fixed:
    """A 'discrete gradient' returning given values (free symbols standing for its components)."""

    def __init__(self, values):
        self.values = list(values)
        self.calls = 0

    def __call__(self, V, x, u, v):
        out = self.values[self.calls % 2]
        self.calls += 1
        return out
