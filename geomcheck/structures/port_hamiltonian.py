r"""Port-Hamiltonian systems, their Dirac structures and Q-structures (Salnikov & Hamdouni 2019, Sec. 4).

A port-Hamiltonian (pH) system (the paper's eq. (1))

.. math::

    \dot x = (J(x) - R(x))\,\nabla H(x) + g(x)\,u, \qquad y = g(x)^{T} \nabla H(x),

has ``J`` skew and ``R`` symmetric (positive semidefinite for a dissipative system), and
obeys the power balance ``dH/dt = -grad H^T R grad H + y^T u``.

* :class:`PortHamiltonianSystem` (:mod:`~geomcheck.structures.port_hamiltonian_system`)
  checks its data and proves the power balance symbolically; its almost-Dirac structure is
  the graph ``f = D e`` of flows over efforts with ``f_s = -x'``, ``e_s = grad H``,
  ``e_p = u`` (inputs), ``f_p = y`` (outputs) (van der Schaft 2006, the paper's Section 4):

  .. math::

      D = \begin{pmatrix} -J & -g \\ g^{T} & 0 \end{pmatrix}

  (``R`` enters through resistive ports ``f_R = -grad H``, ``e_R = R grad H`` on the rows
  where ``R`` is not zero, so that ``D`` stays skew).  Whether ``R`` is positive
  semidefinite is :mod:`~geomcheck.structures.positive_semidefinite`'s certificate.
* The degree-1 vector field on ``T*[1]M`` of the bivector ``D``
  (:mod:`~geomcheck.structures.bivector_q_structure`), in the convention of the paper
  (coordinates ``x^i``, odd ``p_i``),

  .. math::

      Q = D^{ij} p_j \frac{\partial}{\partial x^i}
          + \tfrac12\,\partial_k D^{ij}\, p_i p_j \frac{\partial}{\partial p_k},

  is :func:`geomcheck.poisson_vector_field` of ``P = D^T`` (``{x^i, x^j} = D^{ji}``), so
  ``Q o Q = 1/2 [[D, D], .]``: Q is homological iff ``D`` is Poisson.
* From equations to structure: :func:`first_order_system` lowers higher-order equations to
  ``x' = F(x)`` (:mod:`~geomcheck.structures.first_order`); the ansatz solver
  (:mod:`~geomcheck.structures.port_hamiltonian_ansatz`) finds the pH forms of ``x' = F(x, u)``:
  :func:`port_hamiltonian_forms` for a given energy, :func:`quadratic_energy_forms` with an
  unknown quadratic energy, :func:`port_form` by the paper's construction (the remainder of
  the dynamics becomes a port with constant effort ``e_i = 1``).

The paper's Section 4 example (an oscillator coupled to a Van der Pol circuit) is taken
through all of these, and compared with the printed formulas, in the case study
``casestudies/salnikov2019_van_der_pol.py``.

>>> import sympy, geomcheck as gc
>>> from geomcheck.structures import PortHamiltonianSystem
>>> q, p, c, u = sympy.symbols("q p c u")
>>> S = PortHamiltonianSystem([[0, 1], [-1, 0]], [[0, 0], [0, c]], [[0], [1]], (q**2 + p**2) / 2, [q, p], [u])
>>> S.vector_field
(p, -c*p - q + u)
>>> S.power_balance().holds
True
"""

from __future__ import annotations

from .bivector_q_structure import PortQStructure, port_q_structure
from .first_order import FirstOrderSystem, first_order_system
from .port_hamiltonian_ansatz import PortHamiltonianForms, port_form, port_hamiltonian_forms, quadratic_energy_forms
from .port_hamiltonian_system import PortHamiltonianSystem

__all__ = [
    "PortHamiltonianSystem",
    "PortQStructure",
    "port_q_structure",
    "FirstOrderSystem",
    "first_order_system",
    "PortHamiltonianForms",
    "port_hamiltonian_forms",
    "quadratic_energy_forms",
    "port_form",
]
