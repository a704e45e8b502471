"""The papers' theorems as computations on generic and concrete systems.

Each function works for undefined functions (any smooth H, V, L) and vectors of any
length, returns sympy/geomcheck objects or Certificates, and carries a
:class:`~geomcheck.Derivation` that typesets the steps the way the papers print them.

Modules: ``symplectic`` (canonical forms, Poisson brackets, symplectic and Hamiltonian
vector fields), ``coupled`` (coupled Hamiltonian systems, Terakawa & Yaguchi 2022),
``natural`` (coupled natural systems, Komatsu, Terakawa & Yaguchi 2020), ``contact`` and
``herglotz`` (contact geometry and Herglotz's principle, Vermeeren, Bravetti & Seri 2019),
``lagrangian`` and ``del_forms`` (Euler-Lagrange and discrete Euler-Lagrange one-forms,
Guo, Li & Wu 2001), ``dirac`` and ``port_hamiltonian`` (Salnikov & Hamdouni 2019),
``port_hamiltonian_search`` and ``polynomial_feasibility`` (searching the pH forms of a system
for an integrable, dissipative member, or proving there is none), ``variational``
(variational integrators of a Lagrangian by quadrature, with discrete Noether).
"""

from .symplectic import *  # noqa: F401,F403
from .coupled import *  # noqa: F401,F403
from .natural import *  # noqa: F401,F403
from .natural_discrete import *  # noqa: F401,F403
from .contact import *  # noqa: F401,F403
from .herglotz import *  # noqa: F401,F403
from .lagrangian import *  # noqa: F401,F403
from .del_forms import *  # noqa: F401,F403
from .dirac import *  # noqa: F401,F403
from .port_hamiltonian import *  # noqa: F401,F403
from .implicit_lagrangian import *  # noqa: F401,F403
from .port_hamiltonian_search import *  # noqa: F401,F403
from .polynomial_feasibility import *  # noqa: F401,F403
from .variational import *  # noqa: F401,F403

# The union of the modules' public names.  (No `from . import <module>` here: a module
# whose public function shares its name, e.g. ``del_forms``, would be shadowed by it.)
from importlib import import_module as _import_module

_MODULES = (
    "symplectic", "coupled", "natural", "natural_discrete", "contact", "herglotz",
    "lagrangian", "del_forms", "dirac", "port_hamiltonian", "implicit_lagrangian", "port_hamiltonian_search",
    "polynomial_feasibility", "variational",
)
__all__ = sorted({name for m in _MODULES for name in _import_module(f"{__name__}.{m}").__all__})
del _import_module
