"""The one exception hierarchy of geomcheck.

Every error names the offending object and what was expected.  Each class also
derives from the builtin exception a Python user would reach for (``ValueError``,
``TypeError``) so that ``except ValueError`` keeps working.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from .forms import Form
    from .zero import ZeroDecision

__all__ = [
    "GeomcheckError",
    "ChartError",
    "DuplicateCoordinateError",
    "DegreeListError",
    "UnknownCoordinateError",
    "ChartMismatchError",
    "MixedDegreeError",
    "NotHomogeneousError",
    "ExpressionError",
    "MapError",
    "ImplicitMapError",
    "DegenerateFormError",
    "NotContactError",
    "NotClosedError",
    "BudgetExceeded",
    "InvalidArgumentError",
    "BSeriesError",
    "DomainError",
]


class GeomcheckError(Exception):
    """Base class of every error raised by geomcheck."""


class ChartError(GeomcheckError, ValueError):
    """A chart was specified wrongly."""


class DuplicateCoordinateError(ChartError):
    """Two coordinates of a chart have the same name."""


class DegreeListError(ChartError):
    """The degrees given for a graded chart do not match its coordinates."""


class UnknownCoordinateError(GeomcheckError, ValueError):
    """A symbol was used as a coordinate of a chart it does not belong to."""


class ChartMismatchError(GeomcheckError, ValueError):
    """Objects living on different charts were combined."""


class MixedDegreeError(GeomcheckError, ValueError):
    """A degree was asked of a form or function that is not homogeneous."""


class NotHomogeneousError(MixedDegreeError):
    """A vector field or superfunction is not homogeneous in degree."""


class ExpressionError(GeomcheckError, TypeError):
    """An expression cannot be read as a function of the required kind."""


class MapError(GeomcheckError, ValueError):
    """A map between charts was specified wrongly."""


class ImplicitMapError(MapError):
    """Equations do not determine the new coordinates of an implicit map."""


class DegenerateFormError(GeomcheckError, ValueError):
    """A 2-form that had to be non-degenerate is degenerate."""


class NotContactError(GeomcheckError, ValueError):
    """A 1-form that had to be a contact form is not one."""


class NotClosedError(GeomcheckError, ValueError):
    """A form that had to be closed is not closed."""


class BudgetExceeded(GeomcheckError, TimeoutError):
    """A computation ran out of its time budget (internal: callers turn it into 'unknown')."""


class InvalidArgumentError(GeomcheckError, ValueError):
    """An option (a budget, a precision, a count) is out of its range."""


class BSeriesError(InvalidArgumentError):
    """A B-series operation got series it cannot combine (colours, the empty-tree coefficient, a
    tree beyond the truncation order, an inexact coefficient)."""


class DomainError(GeomcheckError, ValueError):
    """A domain (the intervals where a chart's coordinates or a claim's symbols range) is malformed."""


# --------------------------------------------------------------------------- Q-structures
# (graded geometry: Poisson bivectors, Lie algebras and Lie algebroids)

__all__ += [
    "ShapeError",
    "NotSkewError",
    "StructureConstantsError",
    "StructureConstantsShapeError",
    "StructureConstantsNotSkewError",
    "AnchorShapeError",
]


class ShapeError(GeomcheckError, ValueError):
    """An array (matrix, structure constants, anchor) has the wrong shape for its chart."""


class NotSkewError(GeomcheckError, ValueError):
    """A matrix or array that must be skew-symmetric is not (a bivector, a Lie bracket)."""


class StructureConstantsError(GeomcheckError, ValueError):
    """Structure constants of a Lie algebra (or structure functions of an algebroid) are malformed."""


class StructureConstantsShapeError(StructureConstantsError, ShapeError):
    """Structure constants of inconsistent size, or an index out of range."""


class StructureConstantsNotSkewError(StructureConstantsError, NotSkewError):
    """Structure constants with ``c[i][j][k] != -c[j][i][k]`` for some i, j, k."""


class AnchorShapeError(ShapeError):
    """The anchor of a Lie algebroid is not a (fibre rank) x (dim M) matrix."""


# --------------------------------------------------------------------------- tableaux
# (Runge-Kutta and partitioned Runge-Kutta tableaux: geomcheck.certify.tableaux)

__all__ += [
    "TableauError",
    "TableauShapeError",
    "TableauEntryError",
    "TableauFloatError",
    "InconsistentNodesError",
]


class TableauError(GeomcheckError, ValueError):
    """A Butcher tableau (or a partitioned pair) was specified wrongly."""


class TableauShapeError(TableauError):
    """A is not square, b or c has the wrong length, or the two parts of a pair differ in size."""


class TableauEntryError(TableauError):
    """An entry is not a finite real number (free symbols, NaN, infinity, complex, not a number)."""


class TableauFloatError(TableauEntryError):
    """A floating-point entry in a tableau that must be exact (use Rational, nsimplify or exact=False)."""


class InconsistentNodesError(TableauError):
    """The nodes c differ from the row sums of A (allow with allow_inconsistent_c=True)."""


# --------------------------------------------------------------------------- compositions, discrete gradients
# (geomcheck.certify.compositions and geomcheck.certify.discrete_gradients)

__all__ += [
    "CompositionError",
    "CompositionCoefficientError",
    "RefinementError",
    "DiscreteGradientError",
]


class CompositionError(GeomcheckError, ValueError):
    """A composition method was specified wrongly (no coefficients, a bad base order)."""


class CompositionCoefficientError(CompositionError, TypeError):
    """A composition coefficient is not a finite number (a string, None, NaN, infinity, a list ...)."""


class RefinementError(CompositionError):
    """Newton's method on the order conditions did not converge from the given coefficients."""


class DiscreteGradientError(GeomcheckError, ValueError):
    """A discrete gradient was specified wrongly (lengths of g, u, v, x differ; u, v not distinct symbols)."""


# --------------------------------------------------------------------------- number fields
# (geomcheck.certify.number_field: exact arithmetic for algebraic coefficients)

__all__ += ["NotAlgebraic"]


class NotAlgebraic(GeomcheckError, ValueError):
    """An expression is not (recognizably) an algebraic number, so no number field holds it.

    The tableau and composition certificates catch it and fall back to sympy arithmetic
    decided by the zero test.  ``expression`` is the offending (sub)expression.
    """

    def __init__(self, expression: Any, why: str | None = None):
        super().__init__(f"{expression} " + (why or "is not recognizably an algebraic number (a radical, I, a "
                                               "CRootOf, an AlgebraicNumber, or cos, sin, tan of a rational "
                                               "multiple of pi)"))
        self.expression = expression


# --------------------------------------------------------------------------- structures
# (geomcheck.structures: symplectic, coupled, natural, contact, Herglotz, DEL, Dirac, pH)

__all__ += [
    "NotSymplecticError",
    "SubsystemShapeError",
    "InteractionError",
    "ContactPointError",
    "ArityError",
    "DiracStructureError",
    "SectionShapeError",
    "PortHamiltonianError",
    "ConstraintError",
    "LatexCompileError",
]


class NotSymplecticError(GeomcheckError, ValueError):
    """A vector field asked for its Hamiltonian is not symplectic (L_X w != 0).

    ``residual`` holds the nonzero Lie derivative, ``decision`` the zero test that showed it.
    """

    def __init__(self, message: str, residual: Form | None = None, decision: ZeroDecision | None = None):
        super().__init__(message)
        self.residual = residual
        self.decision = decision


class SubsystemShapeError(ShapeError):
    """The blocks of a (sub)system have mismatched sizes (e.g. len(q_i) != len(p_i))."""


class InteractionError(UnknownCoordinateError):
    """An interaction term names coordinates outside the system, or targets a missing block."""


class ContactPointError(GeomcheckError, ValueError):
    """A contact (coupling) point lies outside the spatial grid or the interval."""


class ArityError(GeomcheckError, TypeError):
    """A function (e.g. a discrete Lagrangian) was given with the wrong number of arguments."""


class DiracStructureError(GeomcheckError, ValueError):
    """An almost-Dirac structure was specified wrongly."""


class SectionShapeError(DiracStructureError, ShapeError):
    """Spanning sections of the wrong count or dimension for a Dirac structure on TM + T*M."""


class PortHamiltonianError(GeomcheckError, ValueError):
    """A port-Hamiltonian system was specified wrongly (J not skew, R not symmetric, shapes)."""


class ConstraintError(GeomcheckError, ValueError):
    """Constraint one-forms were specified wrongly (another chart than the Lagrangian's, bad degree)."""


class LatexCompileError(GeomcheckError, RuntimeError):
    """pdflatex failed on a generated document (the message quotes the first LaTeX error)."""


# --------------------------------------------------------------------------- port-Hamiltonian shapes
# (geomcheck.structures.port_hamiltonian)

__all__ += ["PortHamiltonianShapeError"]


class PortHamiltonianShapeError(PortHamiltonianError, ShapeError):
    """J, R or g of a port-Hamiltonian system has the wrong shape for the state x and inputs u."""


# ---------------------------------------------------------------------------
# implicit derivatives (maps.py, forms.py)

__all__ += ["ImplicitDerivativeError"]


class ImplicitDerivativeError(ExpressionError):
    """A form whose coefficients hold numerically computed implicit derivatives was differentiated.

    Such derivatives (``du/dx`` of an implicit map's unknowns, computed by the implicit
    function theorem at evaluation points only) have no symbolic derivative of their own.
    """


# ---------------------------------------------------------------------------
# primitives of closed forms (forms.py)

__all__ += ["SingularFormError"]


class SingularFormError(GeomcheckError, ValueError):
    """A form is singular (undefined or infinite) where it had to be smooth: at the centre of a
    primitive, or on the segments from the centre that the homotopy formula integrates along."""


# ---------------------------------------------------------------------------
# numerical runs leaving the real or finite domain (integrators.integrate)

__all__ += ["NonRealValueError", "NonFiniteStateWarning"]


class NonRealValueError(GeomcheckError, ArithmeticError):
    """A numerical run left the real domain: a value of a step became complex (mpmath backend).

    ``sqrt``, ``log`` or a fractional power of a negative number has no real value, and
    mpmath would go on with complex numbers; the run stops instead, naming where.

    Attributes
    ----------
    step : int or None
        The step being taken (1 is the first step), when known.
    trajectory : int or None
        The trajectory's index in the batch.
    coordinate : str or None
        The coordinate (or stage unknown of an implicit step) whose value became complex.
    value : object
        The complex value, when one was computed.
    time : object
        The time at the start of the step, when known.
    """

    def __init__(self, message: str, *, step: int | None = None, trajectory: int | None = None,
                 coordinate: str | None = None, value: Any = None, time: Any = None):
        super().__init__(message)
        self.step = step
        self.trajectory = trajectory
        self.coordinate = coordinate
        self.value = value
        self.time = time


class NonFiniteStateWarning(GeomcheckError, RuntimeWarning):
    """Trajectories of a numerical run became nan or infinite (numpy backend; they stay nan/inf).

    A warning (issued with ``warnings.warn``), in the hierarchy so that a run under
    ``-W error`` raises a GeomcheckError.

    Attributes
    ----------
    trajectories : list of int
        The indices (in the batch) of the trajectories that became non-finite.
    first_seen : list of int
        For each of them, the first saved step at which its state was not finite.
    last_finite : list of int
        For each of them, the last saved step at which it was still finite (it left the
        finite domain in between).
    coordinates : list of list of str
        For each of them, the coordinates that were not finite when first seen.
    """

    def __init__(self, message: str, trajectories: Iterable[int] = (), first_seen: Iterable[int] = (),
                 last_finite: Iterable[int] = (), coordinates: Iterable[Iterable[str]] = ()):
        super().__init__(message)
        self.trajectories = list(trajectories)
        self.first_seen = list(first_seen)
        self.last_finite = list(last_finite)
        self.coordinates = [list(c) for c in coordinates]


__all__ += ["MissingDependencyError", "WorkerProcessError"]   # import_optional is a helper, not an error


class WorkerProcessError(GeomcheckError, RuntimeError):
    """A worker process running a unit of ``geomcheck report`` / ``certify --all`` died."""


class MissingDependencyError(GeomcheckError, ImportError):
    """An optional dependency is not installed (the message names the package and the extra)."""


def import_optional(module: str, extra: str, purpose: str):
    """Import an optional dependency, or raise :class:`MissingDependencyError` naming the extra.

    >>> import_optional("math", "none", "arithmetic").sqrt(4.0)
    2.0
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(f"{purpose} needs {module}, which is optional: install it with"
                                     f" pip install 'geomcheck[{extra}]'") from exc


# ---------------------------------------------------------------------------
# sparse exact elimination (geomcheck.linalg; internal: its callers rephrase them)

__all__ += ["SingularSystem", "EliminationTooCostly", "InconsistentSystem"]


class SingularSystem(GeomcheckError, ValueError):
    """No usable pivot for some unknown (internal; callers rephrase it).

    ``undecided`` is False when every candidate pivot was proved zero (the system is
    singular) and True when some candidate could not be decided within the budget.
    """

    def __init__(self, column: Any, undecided: bool = False):
        what = "no pivot decided nonzero" if undecided else "no nonzero pivot"
        super().__init__(f"{what} for unknown {column}")
        self.column = column
        self.undecided = undecided


class EliminationTooCostly(GeomcheckError, TimeoutError):
    """The symbolic elimination passed its deadline (internal: callers take another route)."""

    def __init__(self, column: Any, ncols: int):
        super().__init__(f"symbolic elimination passed its deadline at unknown {column} of {ncols}")
        self.column = column


class InconsistentSystem(GeomcheckError, ValueError):
    """An overdetermined system has a row that reduces to 0 = nonzero (internal)."""

    def __init__(self, residual: Any):
        super().__init__(f"inconsistent equation: 0 = {residual}")
        self.residual = residual


# ---------------------------------------------------------------------------
# the report and the case studies (geomcheck.report, casestudies)

__all__ += ["ReportWriteError", "UnknownCaseError"]


class ReportWriteError(GeomcheckError, OSError):
    """The report could not be written (a full disk, say); nothing half-written was left."""


class UnknownCaseError(GeomcheckError, ValueError):
    """A case-study name that is not in the registry (the message lists the known ones)."""


__all__ += ["SingularMatrixError"]


class SingularMatrixError(GeomcheckError, ArithmeticError):
    """A matrix singular to working precision, met by a numerical factorization (:mod:`geomcheck.dense_lu`)."""


# ---------------------------------------------------------------------------
# Poisson structures (geomcheck.certify.poisson)

__all__ += ["NotAPoissonStructureError", "NotACasimirError"]


class NotAPoissonStructureError(InvalidArgumentError):
    """A matrix given as a Poisson tensor is provably not one: not skew-symmetric, or the Jacobi
    identity fails (the message names the failing pair or triple of coordinates)."""


class NotACasimirError(InvalidArgumentError):
    """A function given as a Casimir of a Poisson tensor P provably is not one: P grad C is not zero
    (the message names the component)."""
