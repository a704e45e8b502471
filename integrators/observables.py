"""Values of expressions along a run: :func:`evaluate_along` a :class:`~integrators.Solution`.

An expression in a system's coordinates (a subsystem energy, a constraint, a momentum) is
lowered to the solution's backend once and evaluated at every saved state, with the
constants the run used.
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy

from .lower import lower_expressions

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
    exprs = [sympy.sympify(e) for e in ([exprs] if single_expr else exprs)]
    system = solution.system
    scalars = list(system.parameters)
    values = [solution.parameters[s] for s in scalars]
    kernel = lower_expressions(exprs, system.coords, scalars, backend=solution.backend, what="the expression")
    y = solution.y[:, None, :] if solution.y.ndim == 2 else solution.y
    n_saved, batch, dim = y.shape
    mp = solution.backend == "mpmath"
    outs = [np.empty((n_saved, batch), dtype=object if mp else float) for _ in exprs]
    if not mp:
        S = kernel.scalars(*[float(sympy.N(v)) if isinstance(v, sympy.Basic) else float(v) for v in values])
        res = kernel.kernel(S, *[y[:, :, i].reshape(-1) for i in range(dim)])
        for out, r in zip(outs, res):
            out[...] = np.broadcast_to(r, (n_saved * batch,)).reshape(n_saved, batch)
    else:
        with mpmath.workdps(solution.dps):
            S = kernel.scalars(*[mpmath.mpf(sympy.N(sympy.sympify(v), solution.dps + 5)) for v in values])
            for k in range(n_saved):
                for b in range(batch):
                    res = kernel.kernel(S, *[y[k, b, i] for i in range(dim)])
                    for out, r in zip(outs, res):
                        out[k, b] = mpmath.mpf(r)
    if solution.y.ndim == 2:
        outs = [o[:, 0] for o in outs]
    return outs[0] if single_expr else outs
