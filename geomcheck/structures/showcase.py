"""The papers' symbolic results as one list of typeset, checked items (for the report).

Each item is ``(title, build)``; ``build()`` returns an object with ``latex()`` and
``holds`` (True when every claim of the item came out as the paper's theorem says —
including the claims that something FAILS, such as "the coupled beam field is not
symplectic on the full space" or "the trapezoidal rule does not preserve dq ^ dp").
Examples that belong to a case study (Salnikov & Hamdouni's Section 4 oscillator and Van der
Pol circuit) are typeset in the report with their case study, not here: the engine does not
import the case studies.

>>> titles = [t for t, _ in showcase()]
>>> len(titles) >= 8
True
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

__all__: list = []  # internal: used by geomcheck.report and the compile test


@dataclass(frozen=True)
class Item:
    """A titled group of certificates and derivations with the outcome each must have."""

    parts: tuple  # of (object with latex(), expected verdict or None for a plain derivation)

    @property
    def holds(self):
        verdicts = []
        for obj, expected in self.parts:
            if expected is None:
                continue
            got = getattr(obj, "holds", None)
            verdicts.append(None if got is None else got is expected)
        if any(v is False for v in verdicts):
            return False
        return None if any(v is None for v in verdicts) else True

    def latex(self) -> str:
        out = []
        for obj, expected in self.parts:
            if expected is False:
                out.append(r"\noindent\emph{Expected outcome: the claim below fails.}\par")
            out.append(obj.latex())
        return "\n".join(out)


def _lemma6():
    from .coupled import coupled_lie_derivative, generic_coupled_system

    r = coupled_lie_derivative(generic_coupled_system((1, 1)))
    return Item(((r.derivation, None), (r.cartan_check, True), (r.closed_form_check, True),
                 (r.printed_check, False)))


def _beam():
    from .coupled import beam_symplecticity

    r = beam_symplecticity(51, 10)
    lemma = r.lemma
    return Item(((r.full_space, False), (lemma.derivation, None), (lemma.cartan_check, True),
                 (lemma.closed_form_check, True), (r.invariance, True), (r.on_submanifold, True),
                 (r.energy, True)))


def _contact_flows():
    from .contact import darboux_coordinates, separable_contact_flows

    c = darboux_coordinates(1)
    x, p, z = c.chart.coords
    t, C = sympy.symbols("t C")
    r = separable_contact_flows(sympy.Function("A")(p), sympy.Function("B")(x), C, c, t)
    certs = [c for pair in r.certificates.values() for c in pair]  # contact, and exact flow
    return Item(tuple((cert, True) for cert in certs) + ((r.derivation, None),))


def _contact_energy():
    from .contact import certify_contact_energy_law, darboux_coordinates

    c = darboux_coordinates(1)
    H = sympy.Function("H")(*c.chart.coords)
    return Item(((certify_contact_energy_law(H, c.eta), True),))


def _herglotz():
    from .herglotz import discrete_herglotz, generic_discrete_lagrangian

    D = discrete_herglotz(generic_discrete_lagrangian("L", 1))
    return Item(((D.certify_variational_principle(), True), (D.certify_momentum_form(), True),
                 (D.certify_contact_generating(), True)))


def _el():
    from .lagrangian import certify_el_condition, certify_el_identity, euler_lagrange_forms

    F = euler_lagrange_forms(None, sympy.Symbol("q"))
    return Item(((F.derivation, None), (certify_el_identity(F), True), (certify_el_condition(F), True)))


def _schemes_del():
    from .del_forms import (certify_scheme_del, feng_kang_del, gauss2_del, midpoint_del,
                            trapezoidal_del)

    q, p, h = sympy.symbols("q p h")
    H = sympy.Function("H")(q, p)
    V = sympy.Function("V")(q)
    parts = []
    for build, ham in ((midpoint_del, H), (feng_kang_del, p**2 / 2 + V), (gauss2_del, p**2 / 2 + V),
                       (trapezoidal_del, p**2 / 2 + V)):
        S = build(ham, [q], [p], h)
        parts.append((S.derivation, None))
        parts.append((certify_scheme_del(S), True))
    return Item(tuple(parts))


def _trapezoidal_forms():
    from ..certify.maps import certify_preserves, certify_symplectic
    from .del_forms import trapezoidal_map, trapezoidal_two_form

    q, p, h = sympy.symbols("q p h")
    H = p**2 / 2 + sympy.Function("V")(q)
    phi = trapezoidal_map(H, [q], [p], h)
    M = phi.source
    return Item(((certify_symplectic(phi, M.d(q) ^ M.d(p)), False),
                 (certify_preserves(phi, trapezoidal_two_form(H, [q], [p], h)), True)))


def _pendulum_dirac():
    from .implicit_lagrangian import implicit_lagrangian_system

    x, y, vx, vy = sympy.symbols("x y v_x v_y")
    g = sympy.Symbol("g")
    L = (vx**2 + vy**2) / 2 - g * y
    sys_ = implicit_lagrangian_system(L, [x, y], velocities=[vx, vy], constraints=[[x, y]])
    eqs = sys_.equations()
    D = sys_.dirac_structure()
    return Item(((D.derivation, None), (eqs.derivation, None)))


def _natural():
    from .natural import certify_energy_balance, couple, natural_system

    m1, m2, g1, g2 = sympy.symbols("m_1 m_2 gamma_1 gamma_2", positive=True)
    s = couple(natural_system(1, name="1", mass=m1, damping=g1),
               natural_system(1, name="2", mass=m2, damping=g2), 0, 0)
    return Item(((s.force.derivation, None), (certify_energy_balance(s), True)))


def showcase() -> list:
    """``[(title, build)]`` in the order of the report."""
    return [
        ("Terakawa and Yaguchi 2022, Lemma 6 (generic subsystems)", _lemma6),
        ("Terakawa and Yaguchi 2022, Section 6: beam and two masses at N_x = 51", _beam),
        ("Komatsu, Terakawa and Yaguchi 2020: coupled natural systems", _natural),
        ("Vermeeren, Bravetti and Seri 2019: exact flows of H = A(p) + B(x) + Cz", _contact_flows),
        ("Contact energy law dH/dt = -H H_z", _contact_energy),
        ("Herglotz: the discrete position-momentum map is contact", _herglotz),
        ("Guo, Li and Wu 2001: the Euler-Lagrange one-form", _el),
        ("Guo, Li and Wu 2001: DEL one-forms of four Hamiltonian schemes", _schemes_del),
        ("Guo, Li and Wu 2001: the trapezoidal rule preserves w_h, not dq ^ dp", _trapezoidal_forms),
        ("Salnikov and Hamdouni 2019, Section 3: the pendulum's Dirac structure", _pendulum_dirac),
    ]
