"""Values of expressions along a run: :func:`evaluate_along` a :class:`~integrators.Solution`.

An expression in a system's coordinates (a subsystem energy, a constraint, a momentum) is
lowered to the solution's backend once and evaluated at every saved state, with the
constants (and times) the run used: :meth:`integrators.solution.Solution.evaluate`.
"""

from __future__ import annotations

import sympy

__all__ = ["evaluate_along"]


def evaluate_along(solution, exprs):
    """Values of expressions in the system's coordinates at every saved state of a Solution.

    Parameters
    ----------
    solution : integrators.Solution
    exprs : sympy expression or sequence of them (e.g. the subsystem energies)

    Returns
    -------
    ndarray of shape ``(n_saved,)`` (one trajectory) or ``(n_saved, batch)`` per expression
    (a list when ``exprs`` is a sequence); dtype object of mpf for the mpmath backend.

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> from integrators.systems import ForcedHamiltonianSystem
    >>> q, p = sympy.symbols("q p")
    >>> s = ForcedHamiltonianSystem(p**2 / 2, [q], [p], force=[-q])
    >>> sol = ig.integrate(s, "stormer-verlet", [1.0, 0.0], dt=0.1, steps=2, save_every=1)
    >>> evaluate_along(sol, q).round(4)
    array([1.   , 0.995, 0.98 ])
    """
    single_expr = not isinstance(exprs, (list, tuple))
    values = solution.evaluate([sympy.sympify(e) for e in ([exprs] if single_expr else exprs)],
                               what="the expression")
    return values[0] if single_expr else values
