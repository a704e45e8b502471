"""Running a step as its stages: compositions lowered factor by factor.

A composition ``base(gamma_1 h) o ... o base(gamma_m h)`` is ONE map in the sense of
geomcheck (:meth:`Scheme.step_map` builds it), but as a single expression it grows
exponentially with the number of stages: each stage uses the previous state several
times, so Yoshida's 27-stage eighth-order composite of Stormer-Verlet cannot even be
printed.  Its definition is the sequence of stages (:meth:`Scheme.stages`), and that is
what is lowered here: each distinct stage map once (:func:`integrators.lower.lower`),
bound to the step ``gamma_i h`` (and, on a time-dependent system, to the time at which
the stage starts), and applied in order.  Evaluating the stages one after the other is
evaluating the composite map; the test-suite holds the two against each other where
the composite is small enough to build.

>>> import sympy, numpy as np, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> osc = ig.HamiltonianSystem((p**2 + q**2) / 2, q, p)
>>> stepper = lower_scheme(ig.scheme("yoshida-4"), osc)
>>> len(stepper.stages), len({id(L) for L in stepper.lowered})      # three stages, one lowered map
(3, 1)
>>> y = stepper.bind({sympy.Symbol("h"): 0.1}).step_array(np.array([[1.0, 0.0]]))
>>> bool(abs(y[0, 0] - np.cos(0.1)) < 1e-6)
True
"""

from __future__ import annotations

from typing import Mapping

import mpmath
import numpy as np
import sympy

from geomcheck.errors import InvalidArgumentError

from .lower import lower
from .systems import STEP_SYMBOL

__all__ = ["StagedStep", "BoundStages", "lower_scheme", "lower_stages", "stage_values"]

#: digits of the products gamma_i * h computed for a double-precision run
_FACTOR_DIGITS = 40


def _scheme_parameters(system):
    return [STEP_SYMBOL, *system.parameters] + ([system.time] if system.time is not None else [])


def lower_scheme(scheme, system, backend="numpy", parameters=None):
    """The lowered step of ``scheme`` on ``system``: a LoweredStep, or a StagedStep for a composition.

    Parameters
    ----------
    scheme : str or Scheme
    system : a system the scheme applies to (concrete)
    backend : "numpy" or "mpmath"
    parameters : sequence of Symbol, optional
        The scalars bound at run time: default ``h``, the system's constants, its time.
    """
    from .catalog import scheme as scheme_by_name

    s = scheme_by_name(scheme)
    params = list(parameters) if parameters is not None else _scheme_parameters(system)
    return lower_stages(s.stages(system), backend=backend, parameters=params, time=system.time)


def lower_stages(stages, backend="numpy", parameters=None, time=None):
    """Lower a sequence of :class:`~integrators.schemes.base.Stage`; one plain stage lowers to a LoweredStep."""
    stages = tuple(stages)
    if not stages:
        raise InvalidArgumentError("a step needs at least one stage")
    one = len(stages) == 1 and sympy.sympify(stages[0].factor) == 1 and sympy.sympify(stages[0].offset) == 0
    if one:
        return lower(stages[0].map, backend=backend, parameters=parameters)
    return StagedStep(stages, parameters, backend=backend, time=time)


def stage_values(values, stage, backend="numpy", time_index=None, dps=None) -> list:
    """The scalars of one stage: ``h -> factor h`` and ``t -> t + offset h`` (``h`` first in ``values``).

    For a double-precision run each product is computed at 40 digits from the exact factor and
    rounded once; for mpmath at the run's precision plus 10 digits.
    """
    vals = list(values)
    k = time_index
    if backend == "numpy":
        with mpmath.workdps(_FACTOR_DIGITS):
            h = mpmath.mpf(float(vals[0]))
            vals[0] = float(mpmath.mpf(sympy.N(stage.factor, _FACTOR_DIGITS)) * h)
            if k is not None:
                vals[k] = float(mpmath.mpf(float(vals[k])) + mpmath.mpf(sympy.N(stage.offset, _FACTOR_DIGITS)) * h)
        return vals
    dps = (dps or mpmath.mp.dps) + 10
    with mpmath.workdps(dps):
        def mp(v):
            if isinstance(v, (mpmath.mpf, str)):      # (sympify would make a decimal string a 15-digit Float)
                return mpmath.mpf(v)
            return mpmath.mpf(sympy.N(sympy.sympify(v), dps))

        h = mp(vals[0])
        vals[0] = mpmath.mpf(sympy.N(stage.factor, dps)) * h
        if k is not None:
            vals[k] = mp(vals[k]) + mpmath.mpf(sympy.N(stage.offset, dps)) * h
    return vals


class StagedStep:
    """The stages of a step, each lowered (distinct maps once); ``bind`` as for a LoweredStep.

    Attributes
    ----------
    stages : tuple of Stage
    lowered : list of LoweredStep (one per stage; equal maps share one object)
    explicit : bool          every stage explicit
    dim : int
    parameters : tuple of Symbol (``h`` first)
    source : str             the generated source of each distinct lowered map
    """

    def __init__(self, stages, parameters, backend="numpy", time=None):
        self.stages = tuple(stages)
        self.backend = backend
        self.lowered = [lower(st.map, backend=backend, parameters=parameters) for st in self.stages]
        # the first parameter is the step size (h for a scheme; a given map may name it otherwise)
        self.parameters = self.lowered[0].parameters
        self.time_index = self.parameters.index(time) if time is not None and time in self.parameters else None
        self.explicit = all(L.explicit for L in self.lowered)
        self.dim = self.lowered[0].dim
        self.coords = self.lowered[0].coords
        distinct = {id(L): L for L in self.lowered}
        self.source = "\n".join(f"# stage map {k}\n{L.source}" for k, L in enumerate(distinct.values()))

    def bind(self, values, **newton_options) -> "BoundStages":
        """Bind the scalars (``{symbol: number}`` or a sequence in ``parameters`` order)."""
        if isinstance(values, Mapping):
            missing = [s for s in self.parameters if s not in values]
            if missing:
                raise InvalidArgumentError(
                    f"no value for the parameter(s) {', '.join(map(str, missing))} of the step;"
                    f" expected values for {', '.join(map(str, self.parameters))}")
            values = [values[s] for s in self.parameters]
        values = list(values)
        if len(values) != len(self.parameters):
            raise InvalidArgumentError(f"expected {len(self.parameters)} parameter values for {self.parameters}")
        return BoundStages(self, values, **newton_options)


class BoundStages:
    """A staged step with its scalars bound: ``step`` applies the stages in order."""

    def __init__(self, staged: StagedStep, values, tol=None, max_iter=50, dps=None, newton="full"):
        self.staged = staged
        self.backend = staged.backend
        self.values = list(values)
        self.dps = dps
        # each stage keeps its own Newton state (a simplified-Newton factorization belongs to one step size)
        self.bound = [L.bind(self._stage_values(st), tol=tol, max_iter=max_iter, dps=dps, newton=newton)
                      for L, st in zip(staged.lowered, staged.stages)]

    def solvers(self) -> list:
        """The stage solvers of the implicit stages."""
        return [solver for b in self.bound for solver in b.solvers()]

    def _stage_values(self, stage):
        return stage_values(self.values, stage, self.backend, self.staged.time_index, self.dps)

    def step(self, components, step_index=None):
        """One step of the state ``components`` (as :meth:`integrators.lower.BoundStep.step`)."""
        y = components
        for b in self.bound:
            y = b.step(y, step_index=step_index)
        return y

    def step_array(self, Y):
        """One step of a ``(batch, dim)`` array (numpy) or nested list/object array (mpmath)."""
        for b in self.bound:
            Y = b.step_array(Y)
        return np.asarray(Y) if self.backend == "numpy" else Y
