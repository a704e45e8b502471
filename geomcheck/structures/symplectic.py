"""Canonical symplectic forms, Poisson brackets, symplectic and Hamiltonian vector fields.

Conventions (the public contract, docs/contract.md): the canonical form on blocks ``q, p`` is
``sum_i dq_i ^ dp_i``; a Hamiltonian vector field satisfies ``i_X w = dH`` (so
``q' = H_p, p' = -H_q``); the Poisson bracket is ``{f, g} = w(X_f, X_g) = X_g(f)``, so that
``{f, H} = X_H(f)`` is the time derivative of ``f`` along the flow of ``H``; for the canonical form
``{f, g} = sum_i f_{q_i} g_{p_i} - f_{p_i} g_{q_i}``.

A vector field is *symplectic* when ``L_X w = 0`` (Definition 3 of Terakawa & Yaguchi
2022); on a chart (a star-shaped domain) it is then Hamiltonian: ``i_X w`` is closed and
its primitive (:func:`geomcheck.primitive`, or term-by-term integration for undefined
functions) is a Hamiltonian.

>>> import sympy, geomcheck as gc
>>> from geomcheck.structures import canonical_symplectic_form, is_hamiltonian
>>> M = gc.Chart("q p"); q, p = M.coords
>>> w = canonical_symplectic_form([q], [p], M)
>>> c = is_hamiltonian(gc.VectorField(M, {q: p, p: -sympy.sin(q)}), w)
>>> c.holds, c.witness
(True, p**2/2 - cos(q) + 1)
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import sympy

from ..algebra import Chart
from ..certify.certificate import Certificate
from ..errors import (
    BudgetExceeded,
    ExpressionError,
    GeomcheckError,
    NotSymplecticError,
    SubsystemShapeError,
)
from ..fields import VectorField
from ..forms import Form, d, interior, lie, primitive, require_form
from ..hamiltonian import hamiltonian_vector_field
from ..latex import Derivation, expression_size, latex
from ..zero import decide_zero

__all__ = [
    "canonical_symplectic_form",
    "poisson_bracket",
    "certify_symplectic_vector_field",
    "local_hamiltonian",
    "is_hamiltonian",
]

# forms and fields with more than twice this many expression nodes are summarized, not typeset
_TYPESET_OPS = 400


def _size_exceeds(exprs, limit) -> bool:
    """Whether the expressions have more than ``limit`` tree nodes (stops counting early)."""
    return expression_size(list(exprs), limit) > limit


def _broken_lines(form: Form, per_line: int = 3) -> str:
    """LaTeX of a form, a few components per line of an align* (long sums overflow the page)."""
    keys = sorted(form.terms, key=lambda k: (len(k), k))
    if len(keys) <= per_line:
        return latex(form)
    out = []
    for start in range(0, len(keys), per_line):
        chunk = Form._raw(form.chart, {k: form.terms[k] for k in keys[start:start + per_line]})
        body = latex(chunk)
        if start:
            body = (r" \\ &\quad " + body) if body.startswith("-") else (r" \\ &\quad + " + body)
        out.append(body)
    return "".join(out)


def show(obj) -> str:
    """LaTeX of a form, field or expression; a one-line summary when too large to read."""
    if isinstance(obj, Form):
        if _size_exceeds(obj.terms.values(), 2 * _TYPESET_OPS):
            return r"\text{(a form with %d components)}" % len(obj.terms)
        return _broken_lines(obj)
    if isinstance(obj, VectorField):
        comps = obj.components
        if _size_exceeds(comps.values(), 2 * _TYPESET_OPS):
            return r"\text{(a vector field with %d components)}" % len(comps)
        return latex(obj)
    e = sympy.sympify(obj)
    if _size_exceeds([e], 2 * _TYPESET_OPS):
        return r"\text{(an expression too large to typeset)}"
    return latex(e)


def canonical_symplectic_form(q: Sequence[sympy.Symbol], p: Sequence[sympy.Symbol], chart: Chart | None = None) -> Form:
    """The canonical symplectic form ``sum_i dq_i ^ dp_i``.

    Parameters
    ----------
    q, p : sequences of Symbol
        The position and momentum blocks (same length).
    chart : Chart, optional
        The chart the form lives on (default ``Chart(q + p)``); it must contain every
        ``q_i`` and ``p_i``.

    Raises
    ------
    SubsystemShapeError
        ``len(q) != len(p)`` or the blocks are empty.
    UnknownCoordinateError
        A block entry is not a coordinate of ``chart``.

    Examples
    --------
    >>> import geomcheck as gc
    >>> from geomcheck.structures import canonical_symplectic_form
    >>> M = gc.Chart("q1 q2 p1 p2")
    >>> canonical_symplectic_form(M.coords[:2], M.coords[2:], M)
    Form(dq1^dp1 + dq2^dp2)
    """
    q, p = tuple(q), tuple(p)
    if len(q) != len(p) or not q:
        raise SubsystemShapeError(
            f"canonical_symplectic_form: q has {len(q)} entries {list(q)} and p has {len(p)}"
            f" {list(p)}; two non-empty blocks of the same length were expected"
        )
    if chart is None:
        chart = Chart(list(q) + list(p))
    form = Form(chart, {})
    for qi, pi in zip(q, p):
        form = form + (chart.d(chart.coords[chart.index(qi)]) ^ chart.d(chart.coords[chart.index(pi)]))
    return form


def _check_two_form(w, who):
    require_form(w, 2, who)


def _check_field(X, w, who):
    if not isinstance(X, VectorField):
        raise ExpressionError(f"{who} expects a VectorField, got {type(X).__name__} {X!r}")
    if X.chart != w.chart:
        from ..errors import ChartMismatchError

        raise ChartMismatchError(f"{who}: the vector field lives on {X.chart!r}, the form on {w.chart!r}")


def poisson_bracket(f: sympy.Expr | float, g: sympy.Expr | float, omega: Form | None = None, *,
                    q: Sequence[sympy.Symbol] | None = None, p: Sequence[sympy.Symbol] | None = None) -> sympy.Expr:
    """The Poisson bracket ``{f, g} = omega(X_f, X_g) = X_g(f)`` of two functions.

    Parameters
    ----------
    f, g : sympy expressions
    omega : Form, optional
        A non-degenerate 2-form; default the canonical form of the blocks ``q, p``.
    q, p : sequences of Symbol
        The blocks of the canonical form, when ``omega`` is not given.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> from geomcheck.structures import poisson_bracket
    >>> q, p = sympy.symbols("q p")
    >>> poisson_bracket(q, p, q=[q], p=[p])
    1
    >>> H = sympy.Function("H")(q, p)
    >>> poisson_bracket(q, H, q=[q], p=[p])      # {q, H} = q' = H_p
    Derivative(H(q, p), p)
    """
    if omega is None:
        if q is None or p is None:
            raise ExpressionError("poisson_bracket needs a 2-form omega or the blocks q=..., p=...")
        omega = canonical_symplectic_form(q, p)
    _check_two_form(omega, "poisson_bracket")
    chart = omega.chart
    f = chart.check_expression(f, "first argument of the Poisson bracket")
    Xg = hamiltonian_vector_field(g, omega)
    return Xg(f)


def counterexample_of(form: Form, decision):
    """The point of a failed zero test of a form, with the component it was found in.

    ``{..point..., "component": (x_i, x_j), "value": v}`` means the coefficient of
    ``dx_i ^ dx_j`` is v at the point (a constant coefficient needs no point).
    """
    if decision.is_zero is not False:
        return None
    out = dict(decision.point or {})
    if isinstance(decision.index, tuple):
        out["component"] = tuple(form.chart.coords[i] for i in decision.index)
    if decision.value is not None:
        out["value"] = decision.value
    return out


def _lie_residual(X, w):
    L = lie(X, w)
    return L, L.zero_decision()


def certify_symplectic_vector_field(X: VectorField, w: Form) -> Certificate:
    """Certify ``L_X w == 0`` (the flow of X preserves w; Definition 3 of the paper).

    ``L_X w`` is computed by the component formula (:func:`geomcheck.lie`); the
    derivation also shows Cartan's form ``d(i_X w) + i_X dw``.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> from geomcheck.structures import certify_symplectic_vector_field
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> w = M.d(q) ^ M.d(p)
    >>> certify_symplectic_vector_field(gc.VectorField(M, {q: p, p: -q}), w).holds
    True
    >>> c = certify_symplectic_vector_field(gc.VectorField(M, {q: p, p: -p}), w)   # damped
    >>> c.holds, c.residual
    (False, Form((-1)*dq^dp))
    """
    _check_two_form(w, "certify_symplectic_vector_field")
    _check_field(X, w, "certify_symplectic_vector_field")
    L, decision = _lie_residual(X, w)
    D = Derivation(r"$X$ is symplectic: $\mathcal{L}_X\omega = 0$")
    D = D.add(r"The vector field and the 2-form are",
              r"X &= " + show(X) + r" \\ \omega &= " + show(w))
    D = D.add(r"By Cartan's formula $\mathcal{L}_X\omega = \mathrm{d}(i_X\omega) + i_X\mathrm{d}\omega$, with",
              r"i_X\omega &= " + show(interior(X, w)))
    D = D.add(r"The component formula gives the residual, which must vanish,",
              r"\mathcal{L}_X\omega &= " + show(L))
    return Certificate.from_decision("L_X omega == 0", decision, residual=L,
                                     counterexample=counterexample_of(L, decision), derivation=D)


def _integrate_term(term, x):
    """An antiderivative of one term in x, or None when sympy leaves an integral."""
    if not term.has(x):
        return term * x
    out = sympy.integrate(term, x)
    return None if out.has(sympy.Integral) else out


def _successive_potential(alpha: Form):
    """A function F with dF == alpha, integrating coordinate after coordinate.

    For closed alpha = sum_j a_j dx_j: F_1 = int a_1 dx_1, then for each j the part of
    a_j not yet accounted for, a_j - dF/dx_j (a function of x_j, ..., x_n only), is
    integrated in x_j.  Unlike the radial homotopy formula this never evaluates an
    undefined function at scaled arguments, so sympy integrates derivatives of
    undefined functions (``int H_p dp = H``).  Returns None if an integral is left.
    """
    from ..calculus import diff

    chart = alpha.chart
    F = sympy.S.Zero
    for j, x in enumerate(chart.coords):
        a = alpha.terms.get((j,), sympy.S.Zero)
        rest = a - diff(F, x) if F != 0 else a
        if rest == 0 or decide_zero(rest).is_zero is True:
            continue
        rest = sympy.expand(rest)
        parts = []
        for term in sympy.Add.make_args(rest):
            got = _integrate_term(term, x)
            if got is None:
                return None
            parts.append(got)
        F = F + sympy.Add(*parts)
    return F


def _potential(alpha: Form, center=None):
    """A primitive of a closed 1-form: the homotopy formula, else successive integration."""
    from sympy.core.function import AppliedUndef

    if any(c.has(AppliedUndef) for c in alpha.terms.values()):
        # the radial formula evaluates undefined functions at t*x: sympy cannot integrate that
        return _successive_potential(alpha)
    try:
        H = primitive(alpha, center=center, check=False).terms.get((), sympy.S.Zero)
    except (NotImplementedError, ValueError, TypeError, GeomcheckError):
        H = None
    if H is not None and not H.has(sympy.Integral):
        # the radial formula leaves q*(1/q - cos(q)/q); expanding reads better and is exact
        return H if _size_exceeds([H], 2 * _TYPESET_OPS) else sympy.expand(H)
    return _successive_potential(alpha)


def _hamiltonian(X, w, center, who):
    """(H, L_X w, its decision, the check that i_X w == dH): the shared work."""
    _check_two_form(w, who)
    _check_field(X, w, who)
    L, decision = _lie_residual(X, w)
    if decision.is_zero is False:
        return None, L, decision, None
    alpha = interior(X, w)
    H = _potential(alpha, center)
    check = None
    if H is not None:
        check = (alpha - d(Form.function(w.chart, H))).zero_decision()
    return H, L, decision, check


def local_hamiltonian(X: VectorField, w: Form, center: Mapping[Any, Any] | Sequence[Any] | None = None) -> sympy.Expr:
    """A Hamiltonian H of a symplectic vector field on the chart: ``i_X w == dH``.

    H is the primitive of the closed 1-form ``i_X w`` (:func:`geomcheck.primitive`;
    for undefined functions, integration coordinate by coordinate), normalized to
    vanish at ``center`` (default the origin) when the homotopy formula is used.

    Raises
    ------
    NotSymplecticError
        ``L_X w`` is not zero; the message shows it, ``.residual`` holds it and
        ``.decision`` the zero test that found the counterexample.
    BudgetExceeded
        Whether ``L_X w`` vanishes, or whether the primitive found satisfies
        ``dH == i_X w``, could not be decided.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> from geomcheck.structures import local_hamiltonian
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> V = sympy.Function("V")(q)
    >>> local_hamiltonian(gc.VectorField(M, {q: p, p: -V.diff(q)}), M.d(q) ^ M.d(p))
    p**2/2 + V(q)
    """
    H, L, decision, check = _hamiltonian(X, w, center, "local_hamiltonian")
    if decision.is_zero is False:
        raise NotSymplecticError(
            f"the vector field {X} is not symplectic for {w}: L_X w = {L} is not zero"
            f" ({decision.method}); only a symplectic field (L_X w == 0) has a Hamiltonian",
            residual=L, decision=decision,
        )
    if decision.is_zero is None:
        raise BudgetExceeded(f"whether L_X w = {L} vanishes is undecided ({decision.method});"
                             " no Hamiltonian is returned for a field not shown symplectic")
    if H is None:
        raise BudgetExceeded(f"no closed-form primitive of i_X w = {interior(X, w)} was found")
    if check.is_zero is not True:
        raise BudgetExceeded(f"the primitive {H} could not be shown to satisfy dH == i_X w ({check.method})")
    return H


def is_hamiltonian(X: VectorField, w: Form, center: Mapping[Any, Any] | Sequence[Any] | None = None) -> Certificate:
    """Certify that X is Hamiltonian on the chart; the Hamiltonian is the ``witness``.

    The proof: ``L_X w == 0`` (so ``i_X w`` is closed, ``w`` being closed), H a primitive
    of ``i_X w``, and the check ``i_X w - dH == 0``, which is the residual.  When
    ``L_X w`` is not zero the certificate fails with the Lie derivative as residual
    and its counterexample.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> from geomcheck.structures import is_hamiltonian
    >>> M = gc.Chart("q p"); q, p = M.coords
    >>> w = M.d(q) ^ M.d(p)
    >>> is_hamiltonian(gc.VectorField(M, {q: q, p: -p}), w).witness
    p*q
    >>> is_hamiltonian(gc.VectorField(M, {q: q, p: p}), w).holds
    False
    """
    H, L, decision, check = _hamiltonian(X, w, center, "is_hamiltonian")
    D = Derivation(r"$X$ is Hamiltonian: $i_X\omega = \mathrm{d}H$")
    D = D.add(r"The vector field and the 2-form are",
              r"X &= " + show(X) + r" \\ \omega &= " + show(w))
    D = D.add(r"The Lie derivative (component formula) is",
              r"\mathcal{L}_X\omega &= " + show(L))
    if decision.is_zero is not True:
        D = D.concluding(r"Since $\mathcal{L}_X\omega \neq 0$, $X$ is not symplectic, hence not Hamiltonian."
                         if decision.is_zero is False else "")
        return Certificate.from_decision("i_X omega == dH for some H", decision, residual=L,
                                         counterexample=counterexample_of(L, decision), derivation=D)
    alpha = interior(X, w)
    D = D.add(r"so $i_X\omega$ is closed; it is", r"i_X\omega &= " + show(alpha))
    if H is None:
        return Certificate(
            claim="i_X omega == dH for some H", holds=None,
            method=f"L_X omega == 0 ({decision.method}) but no closed-form primitive of i_X omega was found",
            stage="unknown", residual=alpha, derivation=D,
        )
    residual = alpha - d(Form.function(w.chart, H))
    D = D.add(r"A primitive is", r"H &= " + show(H))
    D = D.add(r"and the residual, which must vanish, is", r"i_X\omega - \mathrm{d}H &= " + show(residual))
    holds, method, stage = check.is_zero, f"L_X omega == 0 ({decision.method}); i_X omega - dH == 0 ({check.method})", check.stage
    if check.is_zero is False:
        # a failed candidate proves nothing unless i_X w itself is not closed (w not closed)
        dalpha = d(alpha)
        closed = dalpha.zero_decision()
        if closed.is_zero is False:
            D = D.add(r"$\omega$ is not closed and $i_X\omega$ is not closed either:",
                      r"\mathrm{d}(i_X\omega) &= " + show(dalpha))
            return Certificate.from_decision(
                "i_X omega == dH for some H", closed,
                method=f"d(i_X omega) != 0 ({closed.method}): i_X omega has no primitive",
                residual=dalpha, counterexample=counterexample_of(dalpha, closed), derivation=D)
        holds, stage = None, "unknown"
        method = f"L_X omega == 0 ({decision.method}) but the primitive found fails its check ({check.method})"
    return Certificate(
        claim="i_X omega == dH for some H",
        holds=holds,
        method=method,
        stage=stage,
        residual=residual,
        derivation=D,
        witness=H if holds is True else None,
    )
