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
  manifold of the two steps' equations (a :class:`geomcheck.zero.Relation`), or, for a scheme
  that knows its stages backwards, by the adjoint argument (:func:`certify_symmetric_by_reversal`:
  an identity, no equations solved); an even order then follows from the odd order below it
  (:func:`certify_order_by_symmetry`);
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
from geomcheck.calculus import canonical_jets
from geomcheck.certify.certificate import Certificate
from geomcheck.certify.order import flow_coefficients, taylor_coefficients
from geomcheck.latex import Derivation, tex_text
from geomcheck.maps import pullback, substitute
from geomcheck.structures.symplectic import counterexample_of, show
from geomcheck.zero import Relation, decide_all_zero

from ..errors import InvalidArgumentError
from .stages import StageMap

__all__ = ["certify_order_on_manifold", "certify_symplectic_on_manifold", "certify_symmetric_on_manifold",
           "certify_symmetric_by_reversal", "certify_order_by_symmetry", "certify_constraints_are_equations",
           "on_manifold", "substitute_shared"]


def on_manifold(phi, iota):
    """``phi o iota``: the step started on the manifold, an implicit map ``S -> (q, p)``.

    Built as a StageMap (implicit-function data on first use, in ``phi``'s ``derivatives`` mode:
    a step that asks for implicit derivatives keeps them on the manifold); when ``iota`` is itself
    implicit its unknowns become auxiliary unknowns of the composite.
    """
    h = phi.step
    if isinstance(iota, gc.Map):
        sub = iota.substitution()
        return StageMap(iota.source, phi.target, [substitute(e, sub) for e in phi.equations], new=phi.new,
                        auxiliary=phi.auxiliary, parameters=_params(phi, iota),
                        guess={u: substitute(g, sub) for u, g in phi.guess.items()}, step=h,
                        derivatives=getattr(phi, "derivatives", "auto"))
    comp = gc.compose(phi, iota)
    return StageMap(comp.source, comp.target, comp.equations, new=comp.new, auxiliary=comp.auxiliary,
                    parameters=comp.parameters, guess=comp.guess, step=h, derivatives=comp.derivatives)


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
    memo = {}
    want = [[substitute_shared(c, sub, memo) for c in row] for row in flow_coefficients(X, order)]
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


def substitute_shared(expr, mapping, memo=None):
    """:func:`geomcheck.maps.substitute` visiting each distinct subexpression once (``memo``: shared between calls).

    ``xreplace`` walks the expression as a tree: the Lie-series coefficients of an
    index-reduced field repeat their subexpressions (order 6 on the generic pendulum: 5e3
    distinct nodes, 4e6 visits), so a walk of the DAG is several times faster.  The result is
    the same expression (derivatives of undefined functions first brought to canonical jets,
    as there).

    >>> import sympy
    >>> x, y, u = sympy.symbols("x y u")
    >>> V = sympy.Function("V")
    >>> substitute_shared(V(x, y).diff(x) + (x + y)**2 * (x + y), {x: u**2, y: 1 - u})
    (u**2 - u + 1)**3 + V_{1}(u**2, 1 - u)
    """
    expr = sympy.sympify(expr)
    if not mapping:
        return expr
    if expr.has(sympy.Derivative, sympy.Subs):
        expr = canonical_jets(expr)
    memo = {} if memo is None else memo

    def walk(e):
        done = memo.get(e)
        if done is not None:
            return done
        if e in mapping:
            out = mapping[e]
        elif not e.args:
            out = e
        else:
            args = [walk(a) for a in e.args]
            out = e if all(a is b for a, b in zip(args, e.args)) else e.func(*args)
        memo[e] = out
        return out

    return walk(expr)


def certify_order_by_symmetry(phi_regular, X, iota, h, order, symmetric, equivalence=None) -> Certificate:
    r"""Order ``order`` (even) on ``M`` from order ``order - 1`` and the symmetry of the step (HLW Thm. II.3.2).

    If ``phi_h`` is symmetric (``phi_h o phi_{-h} = id``) and ``phi_h = exp(hX) + C h^{p+1} +
    O(h^{p+2})``, its adjoint ``phi_{-h}^{-1}`` has the error ``(-1)^p C h^{p+1}`` and is
    ``phi_h``, so ``C = 0`` when ``p`` is odd: a symmetric method's order is even.  On the
    manifold the same holds for the restricted step ``phi_M`` and the flow of ``X`` on ``M``
    (tangent).  So "order >= 2k" is certified by "order >= 2k - 1"
    (:func:`certify_order_on_manifold`: the largest Taylor coefficient, ``h^{2k}``, is never
    expanded) and ``symmetric``, the certificate of "phi_h o phi_{-h} = id on M"; the stage is
    the weaker of the two.  Odd ``order``, or a symmetry not certified: the plain certificate.
    """
    if order % 2 or order < 2 or symmetric.holds is not True:
        return certify_order_on_manifold(phi_regular, X, iota, h, order, equivalence)
    lower = certify_order_on_manifold(phi_regular, X, iota, h, order - 1, equivalence)
    claim = f"order >= {order} on the constraint manifold"
    D = Derivation(rf"Order {order} on the constraint manifold from order {order - 1} and symmetry")
    D = D.add(tex_text("A symmetric method's order is even (Hairer, Lubich & Wanner, Thm. II.3.2: the adjoint"
                       f" of a method of order p has the error (-1)^p C h^(p+1)); order {order - 1}: "
                       + lower.method + "; symmetric: " + symmetric.method + "."))
    if lower.holds is False:       # not even of order order - 1: a fortiori not of order `order`
        return Certificate(claim, False, f"not of order {order - 1}: " + lower.method, lower.stage,
                           residual=lower.residual, counterexample=lower.counterexample, derivation=D)
    if lower.holds is not True:
        return Certificate(claim, None, f"order {order - 1} is undecided ({lower.method})", "unknown",
                           derivation=D)
    ranks = ["structural", "exact", "modular", "randomized"]
    stage = max(lower.stage, symmetric.stage, key=lambda st: ranks.index(st) if st in ranks else len(ranks))
    method = (f"order {order - 1} ({lower.method}) and symmetric on the manifold ({symmetric.method}): a symmetric"
              f" method's order is even (HLW Thm. II.3.2), so the order is >= {order}")
    return Certificate(claim, True, method, stage, residual=lower.residual, derivation=D.concluding(
        rf"Order $\geq {order}$."))


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


def certify_symmetric_by_reversal(phi, iota, reversal, pairing=None) -> Certificate:
    r"""``phi_h o phi_{-h} == id`` on ``M``, from the step's equations at the reversed stages (the adjoint argument).

    ``reversal`` gives the unknowns of the step ``phi_{-h}`` started at ``(Q, P) = phi_h(iota(s))``
    as expressions in the unknowns ``U`` of ``phi_h`` from ``iota(s)`` (a symmetric method's
    stages taken backwards: for Lobatto IIIA-IIIB ``Q'_k = Q_{s+1-k}``, ``h Lambda'_j =
    -h Lambda_{s+1-j}``); its new state is ``iota(s)`` itself.  Decided:

    * every equation of ``phi_{-h}`` from ``(Q, P)`` vanishes at those values, on the solution
      manifold of ``phi_h``'s equations from ``iota(s)`` (one step's unknowns, not two: the
      zero test solves half the system of :func:`certify_symmetric_on_manifold`);
    * at ``h = 0`` the reversed values are ``phi_{-h}``'s guess (the forward unknowns at their
      guess), so they are the solution on the branch the step map follows from its guess.

    Then ``phi_{-h}(phi_h(y)) = y`` for ``y`` on ``M`` and every ``h`` near 0, which is
    ``phi_h o phi_{-h} = id`` on ``M`` (``h -> -h``): the claim of
    :func:`certify_symmetric_on_manifold`.  ``iota`` must be explicit; otherwise that function
    is used.

    Parameters
    ----------
    phi : ImplicitMap (the step), iota : geomcheck.Map ``S -> (q, p)``
    reversal : dict
        ``{auxiliary unknown of phi: expression}``: the value of the corresponding auxiliary
        unknown of ``phi_{-h}`` (the same symbol stands for it), for every auxiliary unknown.
    pairing : dict, optional
        ``{k: j}``: equation ``k`` of ``phi_{-h}`` at the reversed values is equation ``j`` of
        ``phi_h`` (an unpaired one is 0), identically once ``phi_h``'s explicit new state is
        substituted.  Decided zero (an identity: no relation to solve), it proves the first
        point; decided nonzero, the certificate is undecided (the reversal or the pairing is not
        the step's); undecided, the equations are decided on the solution manifold.
    """
    from .base import scaled

    missing = [str(u) for u in phi.auxiliary if u not in reversal]
    if missing:
        raise InvalidArgumentError(f"certify_symmetric_by_reversal: the reversal gives no value for {missing}; expected"
                                   " one expression per auxiliary unknown of the step")
    if not isinstance(iota, gc.Map):
        return certify_symmetric_on_manifold(phi, iota)
    claim = "phi_h o phi_{-h} == id on the constraint manifold"
    h = phi.step
    back = scaled(phi, -1)                          # its unknowns: fresh symbols, in phi's order
    at = iota.substitution()
    start = dict(zip(phi.source.coords, phi.new))   # phi_{-h} starts at phi_h's new state
    values = dict(zip(back.new, _points(iota)))
    values.update({b: substitute(reversal[u], at) for b, u in zip(back.auxiliary, phi.auxiliary)})
    residual = {f"equation {k + 1} of phi_-h": substitute(substitute(e, values), start)
                for k, e in enumerate(back.equations)}
    relation = Relation([substitute(e, at) for e in phi.equations], list(phi.unknowns),
                        guess={u: substitute(g, at) for u, g in phi.guess.items()}, small=(h,))
    # the branch: at h = 0 the reversed values equal phi_{-h}'s guess there (forward unknowns at their guess)
    rest = {u: substitute(g, {**at, h: 0}) for u, g in phi.guess.items()}
    start0 = {x: rest[Y] for x, Y in zip(phi.source.coords, phi.new)}
    branch = {str(b): substitute(substitute(v, start), {**rest, h: 0}) - substitute(substitute(back.guess[b],
                                                                                                 start0), {h: 0})
              for b, v in values.items()}
    branch_dec = decide_all_zero(branch)
    D = Derivation(r"The step is symmetric on the constraint manifold: $\varphi_h\circ\varphi_{-h}\circ\iota ="
                   r" \iota$ (the stages taken backwards solve $\varphi_{-h}$ from $\varphi_h(\iota(s))$)")
    if branch_dec.is_zero is not True:
        D = D.concluding(r"The reversed values are not $\varphi_{-h}$'s guess at $h = 0$: undecided.")
        return Certificate(claim, None, "the reversed stages are not the guess of phi_-h at h = 0 ("
                           + branch_dec.method + "): they need not be the branch the step follows", "unknown",
                           residual=branch, derivation=D)
    identity = None
    if pairing is not None:
        # equation k of phi_-h minus the paired equation of phi_h, with phi_h's explicit new state substituted:
        # an identity (no relation to solve) proves that equation k vanishes at every solution of phi_h
        fwd = [substitute(e, at) for e in phi.equations]
        explicit = {Y: v for Y, (k, v) in _explicit_values(fwd, list(phi.new)).items()}
        reduced = {}
        for k, e in enumerate(back.equations):
            name = f"equation {k + 1} of phi_-h"
            paired = fwd[pairing[k]] if k in pairing else sympy.S.Zero
            reduced[name] = substitute(residual[name] - paired, explicit)
        identity = decide_all_zero(reduced)
    if identity is not None and identity.is_zero is True:
        dec = identity
        how = ("equals the paired equation of phi_h (or 0) identically, phi_h's explicit new state substituted ("
               + identity.method + ")")
    elif identity is not None and identity.is_zero is False:
        # a pairing that fails says nothing about phi_h o phi_-h (a reversal, not the step, may be wrong)
        D = D.concluding(r"An equation of $\varphi_{-h}$ at the reversed values differs from its pair: undecided.")
        return Certificate(claim, None, f"{identity.index} at the reversed stages is not the paired equation of"
                           f" phi_h ({identity.method}): this reversal proves nothing either way", "unknown",
                           residual=reduced, derivation=D)
    else:
        dec = decide_all_zero(residual, relations=(relation,))
        how = "vanishes on the solution manifold of phi_h's equations (" + dec.method + ")"
    D = D.add(r"With $\varphi_{-h}$'s new state $\iota(s)$ and its stages those of $\varphi_h$ reversed, its %d"
              r" equations from $\varphi_h(\iota(s))$ %s on the solution manifold of $\varphi_h$'s equations"
              r" (%d unknowns); at $h = 0$ these values are $\varphi_{-h}$'s guess (%s), so"
              r" $\varphi_{-h}(\varphi_h(y)) = y$ on $M$." % (
                  len(residual), {True: "vanish (" + dec.stage + ")", False: "do not all vanish",
                                  None: "are undecided"}[dec.is_zero], len(relation.unknowns), branch_dec.stage))
    method = dec.method
    if dec.is_zero is True:
        method = ("the stages of phi_h reversed solve phi_-h from phi_h(iota(s)) with new state iota(s): each of"
                  " its equations " + how + "; and they are phi_-h's guess at h = 0 (" + branch_dec.method + ")")
    elif dec.is_zero is False:
        # a reversed stage that does not solve phi_-h says nothing about phi_h o phi_-h: undecided, not False
        return Certificate(claim, None, "the reversed stages do not solve phi_-h (" + dec.method + "): this"
                           " reversal is no proof either way", "unknown", residual=residual, derivation=D)
    return Certificate.from_decision(claim, dec, method=method, residual=residual, derivation=D)


def _explicit_values(equations, candidates) -> dict:
    """``{Y: (k, value)}`` for the candidates given by equation ``k``, ``Y - value``, ``value`` free of every candidate.

    The values are then free of each other, so one substitution eliminates them all; each
    equation gives one candidate at most (it is dropped with it from the system).

    >>> import sympy
    >>> a, b, u, v = sympy.symbols("a b u v")
    >>> _explicit_values([a - u**2, b - a - v, u - v], [a, b])
    {a: (0, u**2)}
    """
    out, used = {}, set()
    wanted = set(candidates)
    for Y in candidates:
        for k, e in enumerate(equations):
            if k in used or not e.has(Y):
                continue
            value = Y - e
            if not (value.free_symbols & wanted):
                out[Y] = (k, value)
                used.add(k)
                break
    return out


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
