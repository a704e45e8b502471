r"""Finite-difference stencils: hand-written numpy kernels of semi-discretized systems.

Each stencil evaluates the vector field of one symbolic system with array slices instead of
the generated per-coordinate code; :func:`integrators.with_kernel` holds it against the
lowered symbolic field before it may be used (see :mod:`integrators.kernels`).

The beam coupled to a two-mass spring (Terakawa & Yaguchi, Section 6;
:func:`geomcheck.structures.beam_two_mass`, seen by the integrators as
:meth:`integrators.forced.ForcedHamiltonianSystem.from_coupled`), with ``n = N_x - 1``
unknowns ``u_1..u_n`` of the beam, its momenta per unit length ``v``, and the spring's
``q_1, q_2, p_1, p_2`` (chart ``u, q_1, q_2, v, p_1, p_2``), read off the symbolic field:

.. math::

    u' = v / (\rho A),\quad v_j' = -EI\,\delta_4 u_j + [j = n_b]\, f/\Delta x,\quad
    q_i' = p_i/m_i,\quad p_1' = k (q_2 - q_1) - f,\quad p_2' = -k (q_2 - q_1),

with ``delta_4`` the fourth difference on the nodes ``u_0 = u_{N_x} = 0`` and the ghost nodes
``u_{-1} = -u_1``, ``u_{N_x+1} = -u_{N_x-1}`` (simply supported ends: the boundary rows are
``(5, -4, 1)/dx^4``), and the interaction ``f = rho A dx m_1/(rho A dx + m_1) (EI/(rho A)
delta_4 u_{n_b} + k/m_1 (q_2 - q_1))``.

>>> import numpy as np, integrators as ig
>>> from geomcheck.structures import beam_two_mass
>>> from integrators.forced import ForcedHamiltonianSystem
>>> model = beam_two_mass(n_x=8, n_b=3)
>>> system = ig.with_kernel(ForcedHamiltonianSystem.from_coupled(model.system), beam_two_mass_stencil(model))
>>> system.kernel.name, system.kernel.report.passed(1e-12)
('beam_two_mass_stencil', True)
"""

from __future__ import annotations

import numpy as np
import sympy

from .errors import KernelError

__all__ = ["beam_two_mass_stencil"]


def _value(model, key):
    """The number for ``model.values[key]``, or a reader of the constant from ``params`` by name."""
    v = sympy.sympify(model.values[key])
    if isinstance(v, sympy.Symbol):
        return lambda params: params[v.name]
    if not v.is_number:
        raise KernelError(f"the beam parameter {key} = {v} is neither a number nor a single symbol")
    x = float(sympy.N(v, 20))
    return lambda params: x


def beam_two_mass_stencil(model):
    """The stencil kernel ``kernel(Y, params)`` of the beam + two-mass system ``model``.

    Parameters
    ----------
    model : geomcheck.structures.BeamTwoMass
        From :func:`~geomcheck.structures.beam_two_mass` (any ``n_x``, ``n_b``; numeric or
        symbolic constants: a symbolic one is read from ``params`` by its name).

    Returns
    -------
    callable
        ``kernel(Y, params) -> dY`` on ``(batch, 2 n_x + 2)`` arrays in the chart order of
        ``ForcedHamiltonianSystem.from_coupled(model.system)``.
    """
    n = model.n_x - 1
    nb = model.n_b - 1                              # 0-based index of the coupling node
    get = {key: _value(model, key) for key in ("rho", "A", "E", "I", "m1", "m2", "k", "dx")}

    def beam_two_mass_stencil(Y, params):
        rho, A, E, I, m1, m2, k, dx = (get[key](params) for key in ("rho", "A", "E", "I", "m1", "m2", "k", "dx"))
        # work on the transpose: rows are coordinates (contiguous when Y is in Fortran order, as
        # integrate(..., use_kernel=True) passes it)
        T = Y.T
        u, q1, q2 = T[:n], T[n], T[n + 1]
        v, p1, p2 = T[n + 2:2 * n + 2], T[2 * n + 2], T[2 * n + 3]
        # nodes u_{-1} .. u_{N_x + 1}: the zero ends and the antisymmetric ghosts
        U = np.empty((n + 4,) + T.shape[1:])
        U[2:n + 2] = u
        U[1] = U[n + 2] = 0.0
        U[0] = -u[0]
        U[n + 3] = -u[n - 1]
        # node j (1..n) sits at row j + 1 of U: delta_4 reaches the rows j - 1 .. j + 3
        d4 = (U[4:n + 4] - 4 * U[3:n + 3] + 6 * U[2:n + 2] - 4 * U[1:n + 1] + U[0:n]) / dx**4
        rA = rho * A
        spring = q2 - q1
        f = rA * dx * m1 / (rA * dx + m1) * (E * I / rA * d4[nb] + k / m1 * spring)
        out = np.empty((T.shape[0], T.shape[1]))  # (dim, batch), returned transposed
        out[:n] = v / rA
        out[n] = p1 / m1
        out[n + 1] = p2 / m2
        out[n + 2:2 * n + 2] = -E * I * d4
        out[n + 2 + nb] += f / dx
        out[2 * n + 2] = k * spring - f
        out[2 * n + 3] = -k * spring
        return out.T

    return beam_two_mass_stencil
