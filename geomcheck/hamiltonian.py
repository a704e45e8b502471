"""Hamiltonian and contact vector fields of arbitrary (non-degenerate / contact) forms.

Conventions (the public contract, docs/contract.md): ``i_X w = dH``, so for ``w = dq ^ dp``
Hamilton's equations read ``q' = H_p, p' = -H_q``; for a contact form ``eta``, ``eta(X) = -H``
and ``L_X eta = -R(H) eta`` with R the Reeb field, equivalently
``i_X d(eta) = dH - R(H) eta``; for ``eta = dz - p dx``:
``x' = H_p, p' = -H_x - p H_z, z' = p H_p - H``.

>>> import geomcheck as gc
>>> M = gc.Chart("x p z")
>>> x, p, z = M.coords
>>> eta = M.d(z) - p * M.d(x)
>>> gc.contact_vector_field(p**2/2 + x**2/2 + z, eta)
VectorField({x: p, p: -p - x, z: p**2/2 - x**2/2 - z})
"""

from __future__ import annotations

import sympy

from .errors import DegenerateFormError, ExpressionError, MixedDegreeError, NotContactError
from .fields import VectorField
from .forms import Form, d
from .linalg import InconsistentSystem, SingularSystem, solve_sparse

__all__ = ["hamiltonian_vector_field", "contact_vector_field", "reeb_vector_field"]


def _check_form(form, degree, what):
    if not isinstance(form, Form):
        raise ExpressionError(f"{what} expects a Form, got {type(form).__name__} {form!r}")
    try:
        k = form.degree
    except MixedDegreeError as exc:
        raise MixedDegreeError(f"{what} expects a {degree}-form; {form} has mixed degree") from exc
    if k != degree:
        raise MixedDegreeError(f"{what} expects a {degree}-form, got a {k}-form {form}")


def _interior_rows(w: Form):
    """Rows j of the linear map X -> i_X w for a 2-form: (i_X w)_j = sum_i X^i w_ij."""
    rows = [dict() for _ in range(w.chart.dim)]
    for (i, j), c in w.terms.items():
        rows[j][i] = rows[j].get(i, 0) + c
        rows[i][j] = rows[i].get(j, 0) - c
    return rows


def _gradient(H, chart):
    e = chart.check_expression(H, "Hamiltonian")
    dH = d(Form.function(chart, e))
    return [dH.terms.get((j,), sympy.S.Zero) for j in range(chart.dim)], e


def hamiltonian_vector_field(H: sympy.Expr | float, w: Form) -> VectorField:
    """The vector field X with ``i_X w = dH`` for a non-degenerate 2-form ``w``.

    Examples
    --------
    >>> import geomcheck as gc
    >>> M = gc.Chart("q p")
    >>> q, p = M.coords
    >>> gc.hamiltonian_vector_field(p**2/2 - sympy.cos(q), M.d(q) ^ M.d(p))
    VectorField({q: p, p: -sin(q)})
    """
    _check_form(w, 2, "hamiltonian_vector_field")
    chart = w.chart
    grad, _ = _gradient(H, chart)
    try:
        (X,) = solve_sparse(_interior_rows(w), [grad], chart.dim)
    except SingularSystem as exc:
        raise DegenerateFormError(
            f"2-form {w} is degenerate on {chart!r} (no pivot for the {chart.coords[exc.column]} component);"
            " a non-degenerate 2-form was expected"
        ) from None
    return VectorField(chart, X)


def _contact_rows(eta: Form):
    chart = eta.chart
    n = chart.dim
    if n % 2 == 0:
        raise NotContactError(f"{eta} is on the even-dimensional {chart!r}; contact forms live in odd dimension")
    de = d(eta)
    top = eta
    for _ in range(n // 2):
        top = top ^ de
    if top.is_zero() is True:
        raise NotContactError(
            f"{eta} is not a contact form: eta ^ (d eta)^{n // 2} vanishes identically on {chart!r}"
        )
    eta_row = {j: c for (j,), c in eta.terms.items()}
    return [eta_row] + _interior_rows(de)


def reeb_vector_field(eta: Form) -> VectorField:
    """The Reeb field R of a contact form: ``eta(R) = 1`` and ``i_R d(eta) = 0``."""
    _check_form(eta, 1, "reeb_vector_field")
    rows = _contact_rows(eta)
    try:
        (R,) = solve_sparse(rows, [[1] + [0] * eta.chart.dim], eta.chart.dim)
    except (SingularSystem, InconsistentSystem):
        raise NotContactError(f"{eta} is not a contact form: it has no Reeb field") from None
    return VectorField(eta.chart, R)


def contact_vector_field(H: sympy.Expr | float, eta: Form) -> VectorField:
    """The contact Hamiltonian vector field: ``eta(X) = -H``, ``i_X d(eta) = dH - R(H) eta``.

    Raises ``NotContactError`` when ``eta ^ (d eta)^n`` vanishes identically.
    """
    _check_form(eta, 1, "contact_vector_field")
    chart = eta.chart
    rows = _contact_rows(eta)
    grad, h = _gradient(H, chart)
    try:
        R, = solve_sparse(rows, [[1] + [0] * chart.dim], chart.dim)
        RH = sympy.Add(*[r * g for r, g in zip(R, grad)])
        rhs = [-h] + [g - RH * eta.terms.get((j,), 0) for j, g in enumerate(grad)]
        (X,) = solve_sparse(rows, [rhs], chart.dim)
    except (SingularSystem, InconsistentSystem):
        raise NotContactError(f"{eta} is not a contact form on {chart!r}") from None
    return VectorField(chart, X)
