"""Certificates for one-step maps: symplectic, conformally symplectic, contact, any form.

Each certificate pulls the form back by the map (explicit or implicit), forms the
residual that must vanish, and decides it with the staged zero test; implicit maps
are decided on their solution manifold.  A map between two different charts of the
same dimension is compared with the form transplanted by coordinate position (the
k-th coordinate of the target is identified with the k-th of the source).

>>> import geomcheck as gc, sympy
>>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
>>> V = sympy.Function("V")
>>> p_half = p - h / 2 * V(q).diff(q)
>>> Q = q + h * p_half
>>> P = p_half - h / 2 * gc.substitute(V(q).diff(q), {q: Q})   # Stormer-Verlet, any V
>>> gc.certify_symplectic(gc.Map(M, M, [Q, P]), M.d(q) ^ M.d(p)).holds
True
"""

from __future__ import annotations

import sympy

from ..errors import ChartMismatchError, ExpressionError, ImplicitDerivativeError, MixedDegreeError
from ..forms import Form, d
from ..latex import Derivation, latex
from ..maps import ImplicitMap, Map, pullback, substitute
from .certificate import Certificate

__all__ = ["certify_symplectic", "certify_conformal_symplectic", "certify_contact", "certify_preserves", "certify_conserves"]

# expressions larger than this are summarized, not typeset, in derivations
_TYPESET_OPS = 400


def _check_map(phi, who):
    if not isinstance(phi, (Map, ImplicitMap)):
        raise ExpressionError(f"{who} expects a Map or ImplicitMap, got {type(phi).__name__} {phi!r}")
    if phi.source.dim != phi.target.dim:
        raise ChartMismatchError(
            f"{who}: the map goes from dimension {phi.source.dim} ({phi.source!r}) to dimension"
            f" {phi.target.dim} ({phi.target!r}); a map of a space to itself was expected"
        )


def _check_form(form, phi, degree, who, what):
    if not isinstance(form, Form):
        raise ExpressionError(f"{who} expects a {what}, got {type(form).__name__} {form!r}")
    if form.chart not in (phi.target, phi.source):
        raise ChartMismatchError(f"{who}: the form lives on {form.chart!r}, the map goes {phi.source!r} -> {phi.target!r}")
    if degree is not None:
        try:
            k = form.degree
        except MixedDegreeError:
            raise MixedDegreeError(f"{who} expects a {what} (degree {degree}); {form} has mixed degree") from None
        if k != degree:
            raise MixedDegreeError(f"{who} expects a {what} (degree {degree}), got a {k}-form {form}")


def _on(form: Form, chart) -> Form:
    """The form on ``chart``: itself, or transplanted by coordinate position."""
    if form.chart == chart:
        return form
    rename = dict(zip(form.chart.coords, chart.coords))
    return Form._raw(chart, {k: v.xreplace(rename) for k, v in form.terms.items()}, form._deg)


def _show(obj) -> str:
    """LaTeX of a form or expression, summarized when too large to be read."""
    if isinstance(obj, Form):
        ops = sum(sympy.count_ops(v) for v in obj.terms.values())
        if ops > _TYPESET_OPS:
            return r"\text{(a form with %d components, %d operations)}" % (len(obj.terms), ops)
        return latex(obj)
    if sympy.count_ops(obj) > _TYPESET_OPS:
        return r"\text{(an expression of %d operations)}" % sympy.count_ops(obj)
    return latex(obj)


def _map_step(D: Derivation, phi) -> Derivation:
    if isinstance(phi, Map):
        ops = sum(sympy.count_ops(e) for e in phi.exprs)
        body = latex(phi) if ops <= _TYPESET_OPS else r"\text{(explicit, %d operations)}" % ops
        return D.add(r"The map $\varphi$ is", body)
    return D.add(r"The map $\varphi$ is defined implicitly by", latex(phi))


def _certificate(claim, residual: Form, D: Derivation, factor=None, extra=None) -> Certificate:
    decision = residual.zero_decision()
    holds, method, stage, point = decision.is_zero, decision.method, decision.stage, decision.point
    if extra is not None and holds is True:
        # a second condition (a constant factor, a nonzero factor) must hold too
        holds, more, extra_decision = extra
        method = method + "; " + more
        if holds is not True and extra_decision is not None:
            stage, point = extra_decision.stage, extra_decision.point
    D = D.add(r"The residual, which must vanish, is", r"R &= " + _show(residual))
    return Certificate(
        claim=claim,
        holds=holds,
        method=method,
        stage=stage,
        residual=residual,
        factor=factor,
        counterexample=point if holds is False else None,
        derivation=D,
    )


def certify_preserves(phi, form: Form) -> Certificate:
    """Certify ``phi^* form == form`` for a form of any degree (e.g. a modified 2-form).

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> rotation = gc.Map(M, M, [p, -q])
    >>> gc.certify_preserves(rotation, M.d(q) ^ M.d(p)).holds
    True
    """
    _check_map(phi, "certify_preserves")
    _check_form(form, phi, None, "certify_preserves", "form")
    target = _on(form, phi.target)
    source = _on(form, phi.source)
    pulled = pullback(target, phi)
    D = _map_step(Derivation(r"$\varphi^*\alpha = \alpha$"), phi)
    D = D.add(r"The form is", r"\alpha &= " + _show(source))
    D = D.add(r"Its pullback is", r"\varphi^*\alpha &= " + _show(pulled))
    return _certificate("phi^* alpha == alpha", pulled - source, D)


def _require_even(phi, who):
    if phi.source.dim % 2:
        raise ChartMismatchError(
            f"{who}: {phi.source!r} has odd dimension {phi.source.dim}; symplectic forms live in even dimension"
        )


def certify_symplectic(phi, omega: Form) -> Certificate:
    """Certify ``phi^* omega == omega`` for a 2-form omega on an even-dimensional chart.

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> euler = gc.Map(M, M, [q + h * p, p - h * q])     # explicit Euler, harmonic oscillator
    >>> c = gc.certify_symplectic(euler, M.d(q) ^ M.d(p))
    >>> c.holds, c.stage
    (False, 'counterexample')
    """
    _check_map(phi, "certify_symplectic")
    _check_form(omega, phi, 2, "certify_symplectic", "2-form")
    _require_even(phi, "certify_symplectic")
    target = _on(omega, phi.target)
    source = _on(omega, phi.source)
    pulled = pullback(target, phi)
    D = _map_step(Derivation(r"$\varphi$ is symplectic: $\varphi^*\omega = \omega$"), phi)
    D = D.add(r"The symplectic form is", r"\omega &= " + _show(source))
    D = D.add(r"Its pullback is", r"\varphi^*\omega &= " + _show(pulled))
    return _certificate("phi^* omega == omega", pulled - source, D)


def _factor(pulled: Form, base: Form):
    """The function f with pulled == f * base, read off the simplest nonzero component of base."""
    key = min(base.terms, key=lambda k: (not base.terms[k].is_Number, sympy.count_ops(base.terms[k]), k))
    f = pulled.terms.get(key, sympy.S.Zero) / base.terms[key]
    if sympy.count_ops(f) <= _TYPESET_OPS and not f.has(sympy.Derivative, sympy.Subs):
        f = sympy.cancel(f)
    return f


def certify_conformal_symplectic(phi, omega: Form) -> Certificate:
    """Certify ``phi^* omega == k omega`` with k a constant (returned as ``factor``).

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h, g = sympy.symbols("h gamma")
    >>> damped = gc.Map(M, M, [q + h * p, sympy.exp(-g * h) * p])   # a damped shear
    >>> c = gc.certify_conformal_symplectic(damped, M.d(q) ^ M.d(p))
    >>> c.holds, c.factor
    (True, exp(-gamma*h))
    """
    _check_map(phi, "certify_conformal_symplectic")
    _check_form(omega, phi, 2, "certify_conformal_symplectic", "2-form")
    _require_even(phi, "certify_conformal_symplectic")
    if not omega.terms:
        raise ExpressionError("certify_conformal_symplectic: the 2-form is zero; a symplectic form was expected")
    target = _on(omega, phi.target)
    source = _on(omega, phi.source)
    pulled = pullback(target, phi)
    k = _factor(pulled, source)
    D = _map_step(Derivation(r"$\varphi$ is conformally symplectic: $\varphi^*\omega = k\,\omega$"), phi)
    D = D.add(r"The symplectic form is", r"\omega &= " + _show(source))
    D = D.add(r"Its pullback is", r"\varphi^*\omega &= " + _show(pulled))
    D = D.add(r"Comparing one component gives the factor", r"k &= " + _show(k))
    # k must be a constant: its differential vanishes (on the solution manifold for implicit maps)
    try:
        dk = d(Form._raw(phi.source, {(): k} if k != 0 else {}, 0, pulled.dependence))
    except ImplicitDerivativeError:
        # implicit derivatives have no derivative: compare k at two independent points instead
        constant, k2 = _constant_by_two_points(k, phi.source, pulled.dependence)
        extra = (constant.is_zero, f"the factor takes the same value at two independent points, so it is constant"
                 f" ({constant.method})" if constant.is_zero else
                 f"the factor is not shown constant: k(x) - k(y) at two independent points ({constant.method})", constant)
        D = D.add(r"and $k$ must be constant; its differential would need second derivatives of the implicit map,"
                  r" so $k$ is compared at two independent points $x$, $y$:",
                  r"k(x) - k(y) &= " + _show(k - k2))
    else:
        constant = dk.zero_decision()
        extra = (constant.is_zero, f"the factor is constant ({constant.method})"
                 if constant.is_zero else f"the factor is not shown constant: d k = {dk} ({constant.method})", constant)
        D = D.add(r"and $k$ must be constant:", r"\mathrm{d}k &= " + _show(dk))
    return _certificate("phi^* omega == k omega, k constant", pulled - k * source, D, factor=k, extra=extra)


def _constant_by_two_points(k, chart, dependence):
    """Decide ``k(x) == k(y)`` for independent points x, y (on the solution manifold).

    A copy of k and of its relations with every coordinate, unknown and derived symbol
    renamed is a function of the second point; the difference vanishes identically iff k
    is constant (on a connected domain).  Returns the decision and the copy of k.
    """
    from ..zero import decide_zero

    rename = {x: sympy.Dummy(x.name + "'") for x in chart.coords}
    for dep in dependence:
        for u in dep.relation.unknowns + dep.relation.derived_symbols:
            rename[u] = sympy.Dummy(u.name)
    copies = [dep.renamed(rename) for dep in dependence]
    k2 = k.xreplace(rename)
    relations = tuple(dep.relation for dep in dependence) + tuple(dep.relation for dep in copies)
    return decide_zero(k - k2, relations=relations), k2


def certify_contact(phi, eta: Form) -> Certificate:
    """Certify ``phi^* eta == g eta`` for a nowhere-zero function g (returned as ``factor``).

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("x p z"); x, p, z = M.coords; lam = sympy.Symbol("lambda")
    >>> eta = M.d(z) - p * M.d(x)
    >>> c = gc.certify_contact(gc.Map(M, M, [x, lam * p, lam * z]), eta)
    >>> c.holds, c.factor
    (True, lambda)
    """
    _check_map(phi, "certify_contact")
    _check_form(eta, phi, 1, "certify_contact", "contact 1-form")
    if phi.source.dim % 2 == 0:
        raise ChartMismatchError(
            f"certify_contact: {phi.source!r} has even dimension {phi.source.dim}; contact forms live in odd dimension"
        )
    if not eta.terms:
        raise ExpressionError("certify_contact: the 1-form is zero; a contact form was expected")
    target = _on(eta, phi.target)
    source = _on(eta, phi.source)
    pulled = pullback(target, phi)
    g = _factor(pulled, source)
    from ..zero import decide_zero

    relations = tuple(dep.relation for dep in pulled.dependence)
    nonzero = decide_zero(g, relations=relations) if g != 0 else None
    if g == 0 or (nonzero is not None and nonzero.is_zero is True):
        # phi^* eta = 0: every point is a counterexample, none needs naming
        extra = (False, "the factor g vanishes identically: phi^* eta = 0 is not a contact transformation", None)
    elif nonzero.is_zero is False:
        extra = (True, "the factor g is not identically zero (" + nonzero.method + ")", nonzero)
    else:
        extra = (None, "whether the factor g vanishes is undecided (" + nonzero.method + ")", nonzero)
    D = _map_step(Derivation(r"$\varphi$ is a contact map: $\varphi^*\eta = g\,\eta$"), phi)
    D = D.add(r"The contact form is", r"\eta &= " + _show(source))
    D = D.add(r"Its pullback is", r"\varphi^*\eta &= " + _show(pulled))
    D = D.add(r"Comparing one component gives the conformal factor", r"g &= " + _show(g))
    return _certificate("phi^* eta == g eta", pulled - g * source, D, factor=g, extra=extra)


def certify_conserves(phi, H) -> Certificate:
    """Certify ``H o phi == H``: the map conserves the function H (an energy, a momentum).

    Examples
    --------
    >>> import geomcheck as gc, sympy
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> Q, P = sympy.symbols("Q P")
    >>> mid = gc.ImplicitMap(M, M, [Q - q - h*(p + P)/2, P - p + h*(q + Q)/2], new=[Q, P])
    >>> gc.certify_conserves(mid, (q**2 + p**2) / 2).holds     # midpoint conserves quadratic invariants
    True
    """
    if not isinstance(phi, (Map, ImplicitMap)):
        raise ExpressionError(f"certify_conserves expects a Map or ImplicitMap, got {type(phi).__name__}")
    if phi.source.dim != phi.target.dim:
        raise ChartMismatchError(f"certify_conserves: {phi.source!r} -> {phi.target!r} is not a self-map")
    e = phi.source.check_expression(H, "conserved quantity")
    on_target = substitute(e, dict(zip(phi.source.coords, phi.target.coords)))
    after = substitute(on_target, phi.substitution())
    relations = (phi.dependence.relation,) if isinstance(phi, ImplicitMap) else ()
    from ..zero import decide_zero

    residual = after - e
    decision = decide_zero(residual, relations=relations)
    D = _map_step(Derivation(r"$\varphi$ conserves $H$: $H\circ\varphi = H$"), phi)
    D = D.add(r"The quantity is", r"H &= " + _show(e))
    D = D.add(r"The residual, which must vanish, is", r"H\circ\varphi - H &= " + _show(residual))
    return Certificate(
        claim="H o phi == H", holds=decision.is_zero, method=decision.method, stage=decision.stage,
        residual=residual, counterexample=decision.point if decision.is_zero is False else None, derivation=D,
    )
