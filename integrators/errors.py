"""Errors of the integrators package.

Every class derives from :class:`geomcheck.errors.GeomcheckError` (the one
hierarchy of the project) and from the builtin a Python user would catch
(``ValueError``), so ``except ValueError`` keeps working.  Where geomcheck
already has the right class (``InvalidArgumentError`` for an option out of
range, ``ShapeError`` for an array of the wrong shape, ``ExpressionError`` for
something that is not a sympy expression, ``TableauError`` and its subclasses for
a malformed tableau, ``CompositionError`` for a malformed composition) the
integrators raise that one.

>>> import integrators as ig
>>> try:
...     ig.scheme("leapfrog-17")
... except ValueError as exc:
...     print(type(exc).__name__)
UnknownSchemeError
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from geomcheck.errors import GeomcheckError, InvalidArgumentError

if TYPE_CHECKING:
    import numpy
    import sympy

__all__ = [
    "UnknownNameError",
    "UnknownSchemeError",
    "UnknownSystemError",
    "SchemeNotApplicableError",
    "SystemDefinitionError",
    "NotLowerableError",
    "NewtonConvergenceError",
]


class UnknownNameError(GeomcheckError, ValueError):
    """A name that is not in a registry (the message lists the known names)."""


class UnknownSchemeError(UnknownNameError):
    """A scheme name that is not in the catalog (the message lists the known names)."""


class UnknownSystemError(UnknownNameError):
    """An example-system name that is not known (the message lists the known names)."""


class SchemeNotApplicableError(GeomcheckError, ValueError):
    """A scheme was applied to a system it does not apply to (the message says why)."""


class SystemDefinitionError(GeomcheckError, ValueError):
    """A system (Hamiltonian, contact) was specified wrongly."""


class NotLowerableError(GeomcheckError, ValueError):
    """A symbolic step cannot be lowered to numbers (e.g. it contains an undefined function)."""


class NewtonConvergenceError(GeomcheckError, ValueError):
    """Newton's method did not converge for some trajectories of an implicit step.

    Attributes
    ----------
    trajectories : list of int
        The indices (in the batch) that did not converge.
    residuals : list of float
        Their residual norms (max-norm of the stage equations) at the last iterate.
    step : int or None
        The step number at which it happened (when known).
    """

    def __init__(self, message: str, trajectories: Iterable[int] = (), residuals: Iterable[float] = (),
                 step: int | None = None):
        super().__init__(message)
        self.trajectories = list(trajectories)
        self.residuals = list(residuals)
        self.step = step


# -- damped systems (integrators.damped)
__all__ += ["DampingError"]


class DampingError(SystemDefinitionError):
    """A damping coefficient that is not a positive finite number or a constant Symbol."""


__all__ += ["InconsistentStateError"]


class InconsistentStateError(GeomcheckError, ValueError):
    """An initial state off the constraint manifold of a constrained system (the message names the constraint).

    Attributes
    ----------
    name : str          the violated constraint (``g_a``, ``c_a`` for a hidden one, ``rank``)
    value : float       its absolute value at the state
    trajectory : int    the index of the state in the batch
    """

    def __init__(self, message: str, name: str | None = None, value: float | None = None,
                 trajectory: int | None = None):
        super().__init__(message)
        self.name = name
        self.value = value
        self.trajectory = trajectory


# -- hand-written fast kernels (integrators.kernels)
__all__ += ["KernelError", "KernelMismatchError"]


class KernelError(SystemDefinitionError):
    """A hand-written kernel that cannot stand for a system's vector field (it raised, returned the
    wrong shape or dtype, changed its input, or the system cannot carry one)."""


class KernelMismatchError(KernelError):
    """A hand-written kernel that disagrees with the lowered symbolic vector field.

    Attributes
    ----------
    component : sympy.Symbol      the coordinate whose derivative disagrees
    point : numpy.ndarray         the state where it disagrees
    kernel_value, symbolic_value : float
    deviation : float             relative deviation of that component (see ``integrators.kernels``)
    """

    def __init__(self, message: str, component: sympy.Symbol | None = None, point: numpy.ndarray | None = None,
                 kernel_value: float | None = None, symbolic_value: float | None = None,
                 deviation: float | None = None):
        super().__init__(message)
        self.component = component
        self.point = point
        self.kernel_value = kernel_value
        self.symbolic_value = symbolic_value
        self.deviation = deviation


__all__ += ["StepSizeError", "StabilityWarning", "CompiledPathWarning", "CompiledCacheWarning",
            "CompilerUnavailableError"]


class StepSizeError(InvalidArgumentError):
    """A step size beyond the stability limit of an explicit scheme (the message gives the limit)."""


class StabilityWarning(UserWarning):
    """An explicit scheme without a stability interval on the imaginary axis (explicit Euler) on a system
    with oscillatory modes: every step amplifies them (the message gives the factor)."""


class CompiledPathWarning(UserWarning):
    """The compiled path could not run; the numpy path ran instead (the message says why)."""


class CompiledCacheWarning(UserWarning):
    """The on-disk cache of compiled step loops could not be used as is (unwritable, or a damaged file rebuilt)."""


class CompilerUnavailableError(NotLowerableError):
    """No working C compiler, or the generated C did not compile (the message says which)."""


__all__ += ["PatternMismatchError"]


class PatternMismatchError(GeomcheckError, ValueError):
    """A stage Jacobian entry declared structurally zero is not zero
    (:func:`integrators.stage_sparsity.check_pattern`)."""
