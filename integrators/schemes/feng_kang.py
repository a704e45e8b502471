"""Feng Kang's fourth-order generating-function scheme (a symbolic step).

The midpoint rule applied to the modified Hamiltonian
``Htilde = H - h^2/24 alpha`` (Feng Kang et al., eqs. 48-50 of the DEL-forms paper),
built by :func:`geomcheck.structures.del_forms.feng_kang_map` and re-stated on the
system's chart (the same equations, the system's parameters, guess ``Z = z``).  It is
symplectic (the midpoint rule of a Hamiltonian) and symmetric (``alpha`` is even in h,
so the equations are invariant under ``h -> -h`` with old and new exchanged); both are
certified in the test-suite, not assumed.

>>> import sympy, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> s = FengKang()
>>> {k: c.holds for k, c in s.certify(ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)).items()}
{'order': True, 'symmetric': True, 'symplectic': True}
"""

from __future__ import annotations

from geomcheck.structures import feng_kang_map

from ..systems import STEP_SYMBOL, HamiltonianSystem
from .base import NamedScheme
from .stages import StageMap, stage_parameters

__all__ = ["FengKang"]


class FengKang(NamedScheme):
    """Feng Kang's fourth-order symplectic, symmetric scheme (implicit; see the module docstring)."""

    name = "feng-kang-4"
    requires = frozenset({"hamiltonian"})
    order = 4
    properties = frozenset({"symplectic", "symmetric"})
    description = "midpoint rule for the modified Hamiltonian H - h^2/24 alpha (generating function)"

    def why_not(self, system):
        reason = super().why_not(system)
        if reason is None and not isinstance(system, HamiltonianSystem):
            reason = (f"{self.name} is built from a Hamiltonian H; {system!r} is not a HamiltonianSystem"
                      " (its vector field is not Hamiltonian)")
        return reason

    def _build(self, system):
        phi = feng_kang_map(system.H, list(system.q), list(system.p), STEP_SYMBOL)
        guess = dict(zip(phi.new, system.coords))
        return StageMap(system.chart, system.chart, list(phi.equations), new=list(phi.new),
                        auxiliary=list(phi.auxiliary), parameters=stage_parameters(system), guess=guess,
                        step=STEP_SYMBOL)
