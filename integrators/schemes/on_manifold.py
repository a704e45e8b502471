r"""Certificates of a constrained scheme's step *on the constraint manifold* ``M``.

A step ``phi`` of a constrained scheme is an implicit map of the whole chart ``(q, p)``,
but what it is claimed to do concerns ``M = {g = 0, G H_p = 0}`` only (off ``M`` RATTLE
projects, so neither ``phi^* omega = omega`` nor ``phi_h o phi_{-h} = id`` holds on the
whole chart).  With ``iota: S -> (q, p)`` a parametrization of ``M``
(:meth:`integrators.ConstrainedHamiltonianSystem.manifold`):

* **order** ``p``: ``phi_h(iota(s)) - exp(hX)(iota(s)) = O(h^(p+1))`` with ``X`` the
  index-reduced field (tangent to ``M``, so its Lie series at ``iota(s)`` is the constrained
  flow).  The Taylor coefficients of ``phi o iota`` are computed by geomcheck's implicit
  expansion, which needs equations that are regular at ``h = 0`` (see
  :func:`certify_order_on_manifold`);
* **symplectic on M**: ``(phi o iota)^* omega == iota^* omega``.  Together with
  ``phi(M) ⊂ M`` (the "constraint-preserving" certificate) this says that the restricted
  step ``phi_M`` (``phi o iota = iota o phi_M``) preserves the symplectic form
  ``iota^* omega`` of ``M`` -- the sense in which RATTLE is symplectic (Hairer, Lubich &
  Wanner, Thm. VII.1.3); it says nothing about ``phi`` off ``M``;
* **symmetric on M**: ``phi_h(phi_{-h}(iota(s))) == iota(s)``, decided on the solution
  manifold of the two steps' equations (a :class:`geomcheck.zero.Relation`);
* **constraint-preserving**: each of ``g(Q)`` and ``G(Q) H_p(Q, P)`` is, exactly, one of the
  step's defining equations, so it vanishes after every step (from any state).

>>> import sympy, integrators as ig
>>> from integrators.schemes.on_manifold import certify_constraints_are_equations
>>> x, y, px, py = sympy.symbols("x y p_x p_y")
>>> s = ig.ConstrainedHamiltonianSystem((px**2 + py**2) / 2 + y, [x, y], [px, py], [x**2 + y**2 - 1])
>>> certify_constraints_are_equations(ig.scheme("rattle").step_map(s), s).holds
True
"""

from __future__ import annotations

import sympy

import geomcheck as gc
from geomcheck.certify.certificate import Certificate
from geomcheck.certify.order import flow_coefficients, taylor_coefficients
from geomcheck.latex import Derivation, tex_text
from geomcheck.maps import pullback, substitute
from geomcheck.structures.symplectic import counterexample_of, show
from geomcheck.zero import Relation, decide_all_zero

from .stages import StageMap

__all__ = ["certify_order_on_manifold", "certify_symplectic_on_manifold", "certify_symmetric_on_manifold",
           "certify_constraints_are_equations", "on_manifold"]


def on_manifold(phi, iota):
    """``phi o iota``: the step started on the manifold, an implicit map ``S -> (q, p)``.

    Built as a StageMap (implicit-function data on first use); when ``iota`` is itself
    implicit its unknowns become auxiliary unknowns of the composite.
    """
    h = phi.step
    if isinstance(iota, gc.Map):
        sub = iota.substitution()
        return StageMap(iota.source, phi.target, [substitute(e, sub) for e in phi.equations], new=phi.new,
                        auxiliary=phi.auxiliary, parameters=_params(phi, iota),
                        guess={u: substitute(g, sub) for u, g in phi.guess.items()}, step=h)
    comp = gc.compose(phi, iota)
    return StageMap(comp.source, comp.target, comp.equations, new=comp.new, auxiliary=comp.auxiliary,
                    parameters=comp.parameters, guess=comp.guess, step=h)


def _params(phi, iota):
    if phi.parameters is None or iota.parameters is None:
        return None
    return tuple(dict.fromkeys(tuple(phi.parameters) + tuple(iota.parameters)))


def _points(iota):
    """The coordinates of ``iota(s)`` in the chart (expressions, or iota's unknowns when implicit)."""
    return list(iota.exprs) if isinstance(iota, gc.Map) else list(iota.new)


def certify_order_on_manifold(phi_regular, X, iota, h, order, equivalence=None) -> Certificate:
    r"""``phi_h(iota(s)) = exp(hX)(iota(s)) + O(h^(order+1))``.

    Parameters
    ----------
    phi_regular : ImplicitMap of the chart ``(q, p)``
        The step, or an equivalent form of it on ``M`` whose equations are regular at
        ``h = 0`` (the map's guess solves them exactly at ``h = 0`` on ``M`` and their Jacobian
        in the unknowns is invertible there).  RATTLE's position constraint ``g(Q) = 0`` is
        not: ``h`` times its regular form is ``g(Q) - g(q)``; ``equivalence`` then carries the
        certificate of that identity, and the result holds only if it does.
    X : VectorField (the index-reduced field, tangent to ``M``)
    iota : explicit geomcheck.Map ``S -> (q, p)`` (the expansion needs exact values at h = 0)
    equivalence : Certificate, optional
    """
    D = Derivation(rf"Order {order} on the constraint manifold: $\varphi_h(\iota(s)) - \exp(hX)(\iota(s)) ="
                   rf" O(h^{{{order + 1}}})$")
    claim = f"order >= {order} on the constraint manifold"
    if equivalence is not None:
        D = D.add(r"The step is expanded in the equivalent form regular at $h = 0$: "
                  + tex_text(equivalence.method) + ".")
        if equivalence.holds is not True:
            return Certificate(claim, None, "the regular form of the step could not be shown equivalent on M: "
                               + equivalence.method, "unknown", derivation=D)
    if not isinstance(iota, gc.Map):
        return Certificate(claim, None, "the order on the manifold needs an explicit parametrization of it (pass"
                           " parametrization= to the system); the implicit one has no exact value at h = 0",
                           "unknown", derivation=D)
    comp = on_manifold(phi_regular, iota)
    try:
        got = taylor_coefficients(comp, h, order)
    except gc.errors.InvalidArgumentError as exc:
        return Certificate(claim, None, f"no Taylor expansion of the step on the manifold: {exc}", "unknown",
                           derivation=D)
    sub = iota.substitution()
    want = [[substitute(c, sub) for c in row] for row in flow_coefficients(X, order)]
    residuals = {}
    for i, x in enumerate(X.chart.coords):
        for k in range(1, order + 1):
            residuals[(str(x), k)] = got[i][k] - want[i][k]
    decision = decide_all_zero(residuals)
    D = D.add(r"With $\iota$ the parametrization of the constraint manifold and $X$ the index-reduced field",
              r"\iota(s) &= " + show(sympy.Matrix(iota.exprs).T) + r" \\ X &= " + show(X))
    D = D.concluding(r"The Taylor coefficients in $h$ of $\varphi_h\circ\iota$ up to $h^{%d}$ equal those of the Lie"
                     r" series $\sum_k \frac{h^k}{k!} X^k$ at $\iota(s)$: %s." % (order, _verdict(decision)))
    method = decision.method
    if decision.is_zero is False:
        method = f"the coefficient {decision.index} differs from the exact flow's: " + method
    return Certificate.from_decision(claim, decision, method=method, residual=residuals, derivation=D)


def _verdict(decision) -> str:
    return {True: "they agree (" + decision.stage + ")", False: "they differ", None: "undecided"}[decision.is_zero]


def certify_symplectic_on_manifold(phi, omega, iota) -> Certificate:
    r"""``(phi o iota)^* omega == iota^* omega``: the step restricted to ``M`` preserves ``iota^* omega``.

    Valid as "phi_M is symplectic on M" together with ``phi(M) ⊂ M`` (certified separately).
    """
    comp = on_manifold(phi, iota)
    R = pullback(omega, comp) - pullback(omega, iota)
    dec = R.zero_decision()
    D = Derivation(r"The step restricted to the constraint manifold $M$ preserves $\iota^*\omega$")
    D = D.add(r"On the chart and on $M$ (parametrized by $\iota$)",
              r"\omega &= " + show(omega) + r" \\ \iota^*\omega &= " + show(pullback(omega, iota)))
    D = D.add(r"Since the step maps $M$ into itself, $\varphi\circ\iota = \iota\circ\varphi_M$ and "
              r"$\varphi_M^*\iota^*\omega = (\varphi\circ\iota)^*\omega$; the residual, which must vanish, is",
              r"(\varphi\circ\iota)^*\omega - \iota^*\omega &= " + show(R))
    D = D.concluding(r"Decided: %s." % {True: "it vanishes (" + dec.stage + ")", False: "it does not vanish",
                                        None: "undecided"}[dec.is_zero])
    return Certificate.from_decision("(phi o iota)^* omega == iota^* omega (symplectic on the constraint manifold)",
                                     dec, residual=R, counterexample=counterexample_of(R, dec), derivation=D)


def certify_symmetric_on_manifold(phi, iota) -> Certificate:
    r"""``phi_h(phi_{-h}(iota(s))) == iota(s)`` on the solution manifold of both steps' equations."""
    from .base import scaled

    h = phi.step
    back = on_manifold(scaled(phi, -1), iota)
    fresh = {u: sympy.Dummy(u.name) for u in phi.unknowns}
    into = dict(zip(phi.source.coords, back.new))
    fwd_eqs = [substitute(e, {**into, **fresh}) for e in phi.equations]
    start = dict(zip(phi.source.coords, [back.guess[u] for u in back.new]))
    fwd_guess = {fresh[u]: substitute(g, start) for u, g in phi.guess.items()}
    relation = Relation(list(back.equations) + fwd_eqs, list(back.unknowns) + [fresh[u] for u in phi.unknowns],
                        guess={**back.guess, **fwd_guess}, small=(h,))
    target = _points(iota)
    residual = {str(x): fresh[u] - y for x, u, y in zip(phi.source.coords, phi.new, target)}
    dec = decide_all_zero(residual, relations=(relation,))
    D = Derivation(r"The step is symmetric on the constraint manifold: $\varphi_h\circ\varphi_{-h}\circ\iota ="
                   r" \iota$")
    D = D.add(r"Both steps' equations (%d unknowns) are solved from $\iota(s)$; the residual $\varphi_h(\varphi_{-h}"
              r"(\iota(s))) - \iota(s)$ %s." % (len(relation.unknowns), {True: "vanishes (" + dec.stage + ")",
                                                                         False: "does not vanish",
                                                                         None: "is undecided"}[dec.is_zero]))
    return Certificate.from_decision("phi_h o phi_{-h} == id on the constraint manifold", dec, residual=residual,
                                     derivation=D)


def certify_constraints_are_equations(phi, system) -> Certificate:
    r"""``g(Q) = 0`` and ``G(Q) H_p(Q, P) = 0`` after the step: each is, exactly, one of its equations.

    The new state ``(Q, P)`` is any solution of the step's equations, so an expression that
    *is* one of them (checked by the exact zero test of the difference) vanishes there.
    """
    new = dict(zip(system.chart.coords, phi.new))
    after = {name: substitute(e, new) for name, e in system.constraint_residuals.items()}
    # new coordinates given explicitly by an equation ``Y - value`` are replaced by their value
    explicit = {}
    for Y in phi.new:
        for eq in phi.equations:
            if eq.has(Y) and gc.calculus.diff(eq, Y) == 1 and not ((eq - Y).free_symbols & set(phi.new)):
                explicit[Y] = Y - eq
                break
    reduced = {name: substitute(e, explicit) for name, e in after.items()}
    found, missing = {}, []
    rest = {}
    for name, e in reduced.items():
        # the same expression as an equation (structurally: built the same way), else an identity
        same = [k for k, eq in enumerate(phi.equations) if (e - eq) == 0 or (e + eq) == 0]
        if same:
            found[name] = f"is equation {same[0] + 1} of the step"
        else:
            rest[name] = e
    stage = "exact"
    if rest:
        dec = decide_all_zero(rest)
        if dec.is_zero is True:
            found.update({name: "vanishes identically" for name in rest})
            stage = dec.stage
        else:
            missing.extend(rest)
    D = Derivation(r"The step keeps the constraints and the hidden constraints")
    D = D.add(r"After the step, with $(Q, P)$ the new state,",
              r" \\ ".join(f"{sympy.latex(sympy.Symbol(n))}(Q, P) &= " + show(e) for n, e in after.items()))
    if missing:
        D = D.concluding(r"Not among the step's equations: " + tex_text(", ".join(missing)) + ".")
        return Certificate("g(Q) == 0 and G(Q) H_p(Q, P) == 0 after the step", None,
                           f"{', '.join(missing)} after the step are not equations of the step (not decided otherwise)",
                           "unknown", residual=after, derivation=D)
    D = D.concluding(r"With the new coordinates that the step gives explicitly replaced by their values, each"
                     r" is one of the step's defining equations or vanishes identically, so it vanishes at every"
                     r" solution.")
    method = (f"{stage}: after the step (explicit new coordinates substituted) " + ", ".join(
        f"{n} {why}" for n, why in found.items()) + "; so each vanishes at every solution"
              + (f" (the identities by {dec.method})" if rest else ""))
    return Certificate("g(Q) == 0 and G(Q) H_p(Q, P) == 0 after the step", True, method, stage, residual=after,
                       derivation=D)
