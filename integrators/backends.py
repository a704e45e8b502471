"""The two arithmetics a run can be carried out in: double precision (numpy) and mpmath.

A backend object holds what differs between them, so the run loop has no branch on a
backend name: how a number is made, how the state is laid out (numpy: one array of shape
``(batch,)`` per coordinate; mpmath: one list of mpf per coordinate), how saved states and
times are stored, and how two states are added (with Kahan's compensation for long runs).

>>> import mpmath, numpy as np
>>> b = backend_for("mpmath", 30)
>>> mpmath.nstr(b.time_at(0, b.value("0.1"), 3), 25)      # t0 + 3 dt at 30 digits
'0.3'
>>> d = backend_for("numpy")
>>> [c.tolist() for c in d.columns(np.array([[1.0, 2.0], [3.0, 4.0]]))]
[[1.0, 3.0], [2.0, 4.0]]
"""

from __future__ import annotations

import mpmath
import numpy as np
import sympy

from .run_options import to_mpf

__all__ = ["DoublePrecision", "Multiprecision", "backend_for"]


class ColumnState:
    """What both arithmetics share: the state as one column (``batch`` values) per coordinate."""

    def store(self, out: np.ndarray, y: list) -> None:
        """Write the column state ``y`` into the ``(batch, dim)`` slice ``out``."""
        if isinstance(y, np.ndarray) and y.ndim == 2 and y.dtype != object:    # one (dim, batch) array
            out[:] = y.T
            return
        for i, column in enumerate(y):
            out[:, i] = column


class DoublePrecision(ColumnState):
    """IEEE double precision on numpy arrays (the numpy and compiled paths)."""

    name = "numpy"
    dps = None
    dtype = float

    def value(self, v) -> float:
        """A scalar (a float, a decimal string, a Fraction, a sympy number) as a double."""
        return float(sympy.N(v)) if isinstance(v, sympy.Basic) else float(v)

    def columns(self, Y: np.ndarray) -> list:
        """The ``(batch, dim)`` state as ``dim`` contiguous arrays of shape ``(batch,)``."""
        return [np.ascontiguousarray(Y[:, i]) for i in range(Y.shape[1])]

    def saved_buffer(self, n_saved: int, batch: int, dim: int) -> np.ndarray:
        return np.empty((n_saved, batch, dim))

    def apply(self, kernel, S, y: list) -> list:
        """The outputs of a generated :class:`~integrators.codegen.Kernel` on the column state, as columns."""
        batch = len(y[0]) if y else 1
        out = kernel.kernel(S, *y)
        return [o if a else np.full(batch, o, dtype=float) for o, a in zip(out, kernel.is_array)]

    def times(self, t0, dt, steps: np.ndarray) -> np.ndarray:
        # the same two IEEE operations as t0 + float(n) * dt for each n (n < 2**53 is exact)
        return self.value(t0) + steps.astype(np.float64) * dt

    def time_at(self, t0, dt, n: int) -> float:
        return self.value(t0) + n * dt

    def zeros(self, batch: int, dim: int) -> list:
        return [np.zeros(batch) for _ in range(dim)]

    def add(self, y: list, d: list) -> list:
        return [a + e for a, e in zip(y, d)]

    def kahan_add(self, y: list, c: list, d: list) -> tuple[list, list]:
        """``y + d`` with the running compensation ``c`` (Kahan): the new ``(y, c)``."""
        new_y, new_c = [], []
        for yi, ci, di in zip(y, c, d):
            z = di - ci
            t = yi + z
            new_c.append((t - yi) - z)
            new_y.append(t)
        return new_y, new_c


class Multiprecision(ColumnState):
    """mpmath numbers at ``dps`` decimal digits, one Python object per value."""

    name = "mpmath"
    dtype = object

    def __init__(self, dps: int):
        self.dps = dps

    def value(self, v) -> mpmath.mpf:
        return to_mpf(v, self.dps)

    def columns(self, Y: np.ndarray) -> list:
        return [[Y[b, i] for b in range(Y.shape[0])] for i in range(Y.shape[1])]

    def saved_buffer(self, n_saved: int, batch: int, dim: int) -> np.ndarray:
        return np.empty((n_saved, batch, dim), dtype=object)

    def apply(self, kernel, S, y: list) -> list:
        """The outputs of a generated mpmath kernel, trajectory by trajectory, as columns of mpf."""
        with mpmath.workdps(self.dps):
            rows = [kernel.kernel(S, *x) for x in zip(*y)]
            return [[mpmath.mpf(r[i]) for r in rows] for i in range(kernel.n_outputs)]

    def times(self, t0, dt, steps: np.ndarray) -> np.ndarray:
        t0 = self.value(t0)
        with mpmath.workdps(self.dps):
            # the trailing None keeps numpy from unpacking the mpf values into a float array
            return np.array([t0 + int(n) * dt for n in steps] + [None], dtype=object)[:-1]

    def time_at(self, t0, dt, n: int) -> mpmath.mpf:
        t0 = self.value(t0)
        with mpmath.workdps(self.dps):
            return t0 + n * dt

    def zeros(self, batch: int, dim: int) -> list:
        return [[mpmath.mpf(0)] * batch for _ in range(dim)]

    def add(self, y: list, d: list) -> list:
        with mpmath.workdps(self.dps):
            return [[a + e for a, e in zip(r, t)] for r, t in zip(y, d)]

    def kahan_add(self, y: list, c: list, d: list) -> tuple[list, list]:
        with mpmath.workdps(self.dps):
            new_y, new_c = [], []
            for yi, ci, di in zip(y, c, d):
                row_y, row_c = [], []
                for a, cc, dd in zip(yi, ci, di):
                    z = dd - cc
                    t = a + z
                    row_c.append((t - a) - z)
                    row_y.append(t)
                new_y.append(row_y)
                new_c.append(row_c)
            return new_y, new_c


def backend_for(name: str, dps: int | None = None):
    """The arithmetic of backend ``name``: Multiprecision(dps) for "mpmath", DoublePrecision otherwise."""
    return Multiprecision(dps) if name == "mpmath" else DoublePrecision()
