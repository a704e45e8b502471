r"""Komatsu, Terakawa & Yaguchi 2020, Section 5, first example: a wave equation coupled to a beam.

``u1_tt = u1_xx - g1 u1_t + f delta(x - x1)`` on (0, 1), ``u1 = 0`` at both ends (eqs. (87), (90));
``u2_tt = -u2_xxxx - g2 u2_t - f delta(x - x2)``, simply supported (eqs. (88), (90)); ``x1 = x2 = 0.2``,
``dx = 1/100``, ``dt = 1e-3``, ``T = 1``, ``u1(0, x) = exp(-200 (x - 1/2)^2)``, all velocities 0 (eq. (95));
undamped (``g1 = g2 = 0``, Figs. 2-4) and damped (``g1 = g2 = 10``, Figs. 5-7).

One definition, three uses
--------------------------
The system is :func:`geomcheck.structures.wave_beam_system` (``D2`` and ``D4`` as printed in
eq. (93), point deltas ``e_k/dx``, weights ``dx``, the force derived from equal contact velocities),
the scheme is :func:`geomcheck.structures.discrete_gradient_scheme` with the average-vector-field
gradient (the paper's scheme (61)/(82), written out for this example as eq. (92)).  The *same*
objects are

1. certified: :func:`~geomcheck.structures.certify_energy_balance` (Theorem 5) and
   :func:`~geomcheck.structures.certify_discrete_energy_balance` (Theorem 6) on the very system and
   scheme that run, at the grid that runs;
2. run: the AVF gradient of a quadratic potential is linear, so the scheme's symbolic equations
   are linear in the new level; :func:`integrators.run_map` runs the scheme's map at the exact
   step (:func:`exact_step_map`) and its linear implicit step (:mod:`integrators.linear_implicit`)
   reads the exact rational coefficients, ``A z^+ + B z = 0``, off it once, factors ``A`` once and
   solves ``A d = -(A + B) z`` at every step (the solve form: backward stable per step)
   (``tests/casestudies/test_komatsu2020_wave_beam.py::test_lowered_step_solves_the_symbolic_equations``
   holds the numeric step against the symbolic equations at random points);
3. run at 50 digits: the same map through ``run_map`` in ``mpmath`` (the exact coefficients
   rounded once at 50 digits, ``A`` factored by :mod:`geomcheck.dense_lu`).

Energies, the dissipation and the contact mismatch are the system's own expressions, lowered as the
steps are (:func:`casestudies.observing.expressions_on_states`).

What the paper says and what the run checks
-------------------------------------------
* Fig. 4 ("preserved up to the accumulation of the rounding errors") and Fig. 7 ("monotonically
  dissipated"): every step's discrete energy identity ``(E^{n+1} - E^n)/dt = -mu1 g1 |d+ u1|^2 -
  mu2 g2 |d+ u2|^2`` is checked to rounding, the damped energy to decrease at every step, and the
  contact velocities to stay equal.
* Fig. 2 ("the waves are partly reflected at the connecting point") and the text ("the wave packet
  splits and propagates towards the connecting point and the right boundary"): at the time
  ``t* = (center - x1) + 3 sigma`` (``sigma = 1/sqrt(2 width)``; ``t* = 0.45``), when the left-going
  half of the packet has passed ``x1`` and no reflection from a wall has come back, the wave's
  energy is split by position (:func:`energy_partition`): the right-going half keeps ``E^0/2``; of
  the incident ``E^0/2``, the part between ``x1`` and the right-going half is the reflected part
  ``R``; the rest went past ``x1`` along the string or into the beam.  "Partly": ``R >= 0.1`` and
  the rest ``>= 0.1``; and the parts add up to ``E^0/2`` within 1%.
* Fig. 3 ("although there exist no wave in the initial state, some waves are excited"): the beam
  starts with ``E2 = 0`` and reaches ``max E2 >= 0.01 E^0``.  (The text's "slow" wave is not quantified.)
* Fig. 6 ("the excitation ... is smaller than that in the case without the damping terms"):
  ``max |u2|`` damped < undamped.
* The remark after Fig. 4, bounded energy gives bounded solutions (the discrete Poincare
  inequality): with ``u = 0`` at both ends, ``max_k |u_k| <= sqrt(L)/2 |d+ u|`` (sharp: a tent) and
  ``|d+ u| <= L/2 |d2 u|`` (summation by parts), so ``max |u1| <= sqrt(L E / 2)`` and
  ``max |u2| <= L^{3/2}/4 sqrt(2 E)`` (:func:`max_norm_ratios`); checked on both runs with ``E = E^0``
  (the energy never exceeds it).

Findings
--------
Each with its kind (``casestudies._core.FINDING_KINDS``) and the test that shows it (``FINDINGS``).

* [error] eqs. (26)-(27): the second subsystem is damped with ``G1`` (``G1 du2/dt``); the
  derivation gives ``G2``, as eq. (34) prints it.
* [error] eq. (21): the second kinetic energy is written with ``du1/dt``.
* [error] Theorem 5 (its energy E): the kinetic energy lacks the factor 1/2.
* [convention] Theorem 5, eq. (78): the dissipation without the weights ``mu1, mu2``: right if
  ``G(w, w)`` carries the ``dx`` of eq. (9), wrong with eq. (8)'s form, which the proof uses.
* [convention] Theorem 2, eq. (44): the printed force is the nodal force (the naive ``delta(0)``
  step the paper announces), not the coefficient of ``delta(x - x1)``, which is ``dx`` times it.
* [convention] eq. (94): the wave energy summed over all nodes (the differences leaving the grid
  omitted) is the conserved energy of ``D2``; over the interior nodes only it is not.
* [error] Theorem 6, eq. (82): ``G1 A v2`` for ``G1 A v1`` in the force; harmless at the paper's
  ``x1 = x2``, it breaks the damped energy identity for ``x1 != x2``.
* [damage] eq. (92): as read in our copy the nodal force ``f_d`` has lost two minus signs; the
  derived force restores them, keeping every sign our copy shows.

Measured
--------
(paper profile: N = 100, dt = 1e-3, 1000 steps; about 60 s on this loaded 2-core machine, most of
it the four N = 100 certificates; the 396 unknowns are solved by a sparse LU at every step):
undamped ``max |E^n - E^0|/E^0 = 4.5e-13`` (0.005 of the rounding budget; per step 0.10 of it),
``|c^n| <= 7.3e-16``; damped energy 8.818 -> 0.0128, decreasing at every step, identity within 0.06
of the per-step budget, ``|c^n| <= 1.4e-17``; the contact velocities within 1e-4 of their budget;
the beam's excitation 0.028 damped vs 0.111 undamped; the 50-digit identity (N = 20, 5 steps)
``5e-51 - 6e-51``.  Quick profile: the contact velocities use 0.0064 (undamped) and 0.0061 (damped)
of their rounding budget (the increment matrix ``-A^-1 (A + B)`` rounded once, stepped by
products, used 0.73 and 1.48 of it).  At ``t* = 0.45``:
reflected ``R = 0.839`` of the incident half, 0.012 past ``x1``, 0.149 in the beam, the right-going
half 1.000; ``max E2 / E^0 = 0.084``; the bounds used at most 0.48 (wave) and 0.11 (beam).
The quick profile (N = 30, dt = 2e-3, T = 0.45) takes about 12 s.

The rounding budget (:func:`rounding_ratios`): ``10 eps`` times the first-order rounding scale of
the energy (:func:`rounding_scale`), per step for the identity, summed over the steps for the energy
deviation; 10 allows for a step's few roundings (the solve, the update, two evaluations of the
energy).  A check passes when the run uses at most the whole budget (ratio <= 1).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import sympy

from geomcheck.certify.discrete_gradients import avf_gradient
from geomcheck.errors import ExpressionError, InvalidArgumentError, NonFiniteStateWarning
from geomcheck.latex import Derivation
from geomcheck.structures import (
    certify_discrete_energy_balance,
    certify_energy_balance,
    certify_gradient_operator,
    discrete_gradient_scheme,
    fourth_difference_matrix,
    second_difference_matrix,
    wave_beam_system,
)


from integrators.linear import LinearStep, lower_linear_scheme  # noqa: F401  (re-exported for the tests)

from ._core import CaseResult, Finding, check_below, check_close, check_true
from .observing import expressions_on_states

__all__ = [
    "NAME", "TITLE", "SOURCE", "Parameters", "run", "simulations", "certify", "checks", "LinearStep",
    "lower_linear_scheme", "Trajectory",
    "rounding_scale", "rounding_ratios", "initial_state", "gaussian_state", "high_precision_identity",
    "simulate", "wave_beam_scheme", "energy_partition", "max_norm_ratios", "FINDINGS", "EQUATIONS", "EPS",
    "exact_rational", "exact_step_map", "linear_lowering_derivation",
]

NAME = "komatsu-wave-beam"
TITLE = "Wave equation coupled to a beam: energy conserved and dissipated by a discrete-gradient scheme"
SOURCE = ("M. Komatsu, S. Terakawa, T. Yaguchi, Energetic-property-preserving numerical schemes for coupled "
          "natural systems, Mathematics 8 (2020) 249, Section 5 (first example), eqs. (87)-(95), Figs. 2-7")

#: double-precision unit roundoff (2^-53): the scale of "to rounding"
EPS = 2.0 ** -53

_TEST = "tests/geomcheck/structures/test_natural.py::"
_OWN = "tests/casestudies/test_komatsu2020_wave_beam.py::"

#: equation number -> an excerpt of our copy's text at that display (whitespace aside).  Our copy
#: prints no equation numbers at the displays; the numbers are fixed by the paper's own references:
#: (8)-(9) are the two displays between (7) ("the form in Equation (7)") and (10) ("the partial
#: differential Equation (10)"); "Equation (21) =" opens display (22); (25) is the display whose "first equality" the text uses;
#: (26)-(27) are the two displays between (25) and the model (28) ("Equation (28) without the
#: dissipation terms"); (33)/(34) are Theorem 1's system and force ("ith and jth elements of Equation
#: (33)", "Substitution of Equation (34)"); (40) and (47) are the two models semi-discretized in
#: Section 4, and the six displays between them are (41)-(46), Theorem 2's system with its force the
#: fourth; (56) is the average-vector-field formula (Remark 5), so (48)-(55) are the eight displays
#: before it; (61), (62), (74)-(76), (80)-(82), (85), (86) are named in the text; Theorem 5's
#: force and dissipation balance are the two displays after (76); (87)-(91) are fixed by the figure
#: captions ((87)-(89) the model, (91) the continuous energy) and the text ((90) the boundary
#: conditions); the four displays between (91) and (96) (Fig. 8) are (92)-(95).
EQUATIONS = {
    7: "m d 2 u d t 2 = V ( u ) 𝒢 d u d t , in which 𝒢 is a positive semidefinite operator.",
    8: "𝒢 ( w 1 , w 2 ) = w 1 𝒢 w 2 or",
    9: "𝒢 ( w 1 , w 2 ) = w 1 𝒢 w 2 d x . These are nonnegative if w 1 = w 2 .",
    10: "ρ 2 u t 2 = δ H δ u , where ρ is typically the density",
    21: "d d t m 1 2 d u 1 d t · d u 1 d t + V 1 ( u 1 ) + m 2 2 d u 1 d t · d u 1 d t + V 2 ( u 2 )",
    22: "E q u a t i o n ( 21 ) = d u 1 d t · V 1 ( u 1 ) 𝒢 1 d u 1 d t + f e i",
    24: "Thus, for conservation of the energy d u 1 d t i = d u 2 d t j is sufficient.",
    25: "d 2 u 1 d t 2 i = d 2 u 2 d t 2 j , d u 1 d t i t = 0 = d u 2 d t j t = 0",
    26: "1 m 1 V 1 ( u 1 ) i 𝒢 1 d u 1 d t i + f = 1 m 2 V 2 ( u 2 ) j 𝒢 1 d u 2 d t j f",
    27: "f = m 2 m 1 + m 2 ( V 1 ( u 1 ) 𝒢 1 d u 1 d t ) i m 1 m 1 + m 2 ( V 2 ( u 2 ) 𝒢 1 d u 2 d t ) j",
    28: "As a result, the coupled model equation is m 1 d 2 u 1 d t 2 = V 1 ( u 1 ) 𝒢 1 d u 1 d t + f e i",
    32: "Theorem 1. Provided that d u 1 d t i t = 0 = d u 2 d t j t = 0 ,",
    33: "for any solutions to the equations of the interconnected systems m 1 d 2 u 1 d t 2 = V 1 ( u 1 ) 𝒢 1 d u 1"
        " d t + f e i",
    34: "𝒢 2 d u 2 d t f e j , f = m 2 m 1 + m 2 ( V 1 ( u 1 ) + 𝒢 1 d u 1 d t ) i m 1 m 1 + m 2 ( V 2 ( u 2 ) + 𝒢 2"
        " d u 2 d t ) j",
    40: "Firstly, we consider ρ 1 2 u 1 t 2 = δ V 1 δ u 1 𝒢 1 u 1 t + f δ ( x x 1 ) x 1 ( 0 , L 1 )",
    41: "For this coupled system, the total energy is defined by E = E 1 + E 2 , E 1 = 0 L 1 ρ 1 2 u 1 t 2 + V 1 ( u ) d x",
    44: "f = ρ 2 ρ 1 + ρ 2 δ V 1 δ u 1 + 𝒢 1 u 1 t x = x 1 ρ 1 ρ 1 + ρ 2 δ V 2 δ u 2 + 𝒢 2 u 2 t x = x 2",
    46: "In particular, in the absence of the dissipation terms, the energy is preserved: d E d t = 0 . Secondly, we"
        " consider",
    47: "Secondly, we consider m d 2 u 1 d t 2 = V 1 ( u 1 ) 𝒢 1 d u 1 d t + f e i , ρ 2 u 2 t 2",
    48: "of which the total energy is E = E 1 + E 2 , E 1 = m 2 d u 1 d t · d u 1 d t + V 1 ( u 1 )",
    55: "The first condition is a discrete counterpart of the chain rule d V d t = V · d u d t .",
    56: "¯ V ( u , v ) = 0 1 V ( ( 1 s ) u + s v ) d s",
    61: "δ t + u 1 ( n ) = A t + v 1 ( n ) , m 1 δ t + v 1 ( n ) = ¯ V 1 ( u 1 ( n + 1 ) , u 1 ( n ) )",
    62: "Theorem 4. Provided that ( u 1 ( 1 ) ) i ( u 1 ( 0 ) ) i Δ t = ( u 2 ( 1 ) ) j ( u 2 ( 0 ) ) j Δ t ,",
    74: "ρ 1 d 2 u ^ 1 d t 2 = V ^ 1 ( u ^ 1 ) G ^ 1 d u ^ 1 d t + f ^ ε 1 , ρ 2 d 2 u ^ 2 d t 2 = V ^ 2 ( u ^ 2 )"
        " G ^ 2 d u ^ 2 d t f ^ ε 2 , and Equation (47) into",
    75: "m d 2 u ^ 1 d t 2 = V ^ 1 ( u ^ 1 ) G ^ 1 d u ^ 1 d t + f ^ e i , ρ d 2 u ^ 2 d t 2 = V ^ 2 ( u ^ 2 )"
        " G ^ 2 d u ^ 2 d t f ^ ε ,",
    76: "Theorem 5. Provided that μ 1 ε 1 · d u ^ 1 d t t = 0 = μ 2 ε 2 · d u ^ 2 d t t = 0 ,",
    77: "f ^ = μ 1 ε 1 · ε 1 ρ 1 + μ 2 ε 2 · ε 2 ρ 2 1 μ 1 ρ 1 ε 1 · ( V ^ 1 ( u ^ 1 ) + G ^ 1 d u ^ 1 d t )",
    78: "the energy is not increasing: d E d t = G ^ 1 ( d u ^ 1 d t , d u ^ 1 d t ) G ^ 2 ( d u ^ 2 d t ,"
        " d u ^ 2 d t ) 0 ,",
    80: "μ 1 d 2 u ^ 1 d t 2 · ε 1 μ 2 d 2 u ^ 2 d t 2 · ε 2 = 0 . We show this equality in what follows.",
    81: "Theorem 6. Provided that μ 1 ε 1 · u ^ 1 ( 1 ) μ 1 ε 1 · u ^ 1 ( 0 ) Δ t = μ 2 ε 2 · u ^ 2 ( 1 )",
    82: "f ^ ( n + 1 2 ) = μ 1 ε 1 · ε 1 ρ 1 + μ 2 ε 2 · ε 2 ρ 2 1 μ 1 ρ 1 ε 1 · ( ¯ V 1 ( u ^ 1 ( n + 1 ) ,"
        " u ^ 1 ( n ) ) + G ^ 1 A t + v ^ 2 ( n ) )",
    85: "E q u a t i o n ( 85 ) = δ t + u ^ 1 ( n ) ·",
    86: "μ 1 ε 1 · ( δ t 2 u ^ 1 ( n ) ) μ 2 ε 2 · ( δ t 2 u ^ 2 ( n ) ) = 0 under the assumption in Equation (81)",
    87: "2 u 1 t 2 = 2 u 1 x 2 γ 1 u 1 t + f δ ( x x 1 ) ( x ( 0 , L 1 ) ) ,",
    88: "2 u 2 t 2 = 4 u 2 x 4 γ 2 u 2 t f δ ( x x 2 ) ( x ( 0 , L 2 ) ) ,",
    89: "f = 1 2 2 u 1 x 2 x = x 1 + 4 u 2 x 4 x = x 2 γ 1 u 1 t x = x 1 + γ 2 u 2 t x = x 2",
    90: "u 1 ( t , 0 ) = u 1 ( t , L 1 ) = 0 , u 2 ( t , 0 ) = u 2 ( t , L 2 ) = 2 u 2 x 2 ( t , 0 ) = 2 u 2 x 2"
        " ( t , L 2 ) = 0 .",
    91: "E ( t ) = E 1 ( t ) + E 2 ( t ) , E 1 ( t ) = 0 L 1 1 2 u 1 t 2 + 1 2 u 1 x 2 d x",
    92: "f d = 1 2 ( δ x 2 A t + u 1 ( n ) ) k 1 + ( δ x 4 A t + u 2 ( n ) ) k 2 γ 1 A t + ( v 1 ) k 1 ( n ) +"
        " γ 2 A t + ( v 2 ) k 2 ( n ) .",
    93: "D 2 = 1 Δ x 2 2 1 1 2 1 1 2 1 1 2 , D 4 = 1 Δ x 4 5 4 1 4 6 4 1",
    94: "E 1 ( n ) = i 1 = 1 N 1 1 2 ( v 1 ) i 1 ( n ) 2 + 1 4 δ x + ( u 1 ) i 1 ( n ) 2 + δ x ( u 1 ) i 1 ( n ) 2"
        " Δ x",
    95: "u 1 ( 0 , x ) = exp ( 200 ( x L 1 2 ) 2 ) , u 1 t ( 0 , x ) = 0 , u 2 ( 0 , x ) = 0 , u 2 t ( 0 , x ) = 0 .",
}

#: what we say about the paper (the error, damage, convention and critique kinds), each with its test
FINDINGS = (
    Finding("error", "eqs. (26)-(27)",
            "Eqs. (26)-(27) damp the second subsystem with G1 (G1 du2/dt); the derivation from eq. (25) gives "
            "G2 du2/dt, as Theorem 1's eq. (34) prints it. The conversion of our copy loses signs and operator "
            "symbols, not subscripts, and the slip is in both displays, so it is the authors'; the printed force "
            "differs from the derived one whenever G1 != G2",
            _TEST + "test_eq27_misprint_G1_for_G2"),
    Finding("error", "eq. (21)",
            "Eq. (21) writes the second subsystem's kinetic energy as m2/2 du1/dt . du1/dt; it is "
            "m2/2 du2/dt . du2/dt (the right-hand side of eq. (21) has du2/dt); with du1/dt the energy balance fails",
            _TEST + "test_eq21_misprint_kinetic_energy"),
    Finding("error", "Theorem 5 (its energy E)",
            "Theorem 5's energy E = mu1 (rho1 du1.du1 + V1) + mu2 (rho2 du2.du2 + V2) lacks the factor 1/2 "
            "of the kinetic energies (its proof differentiates rho1/2 du1.du1, and Theorem 6's E_d has it; our "
            "copy keeps the 1/2 there); without it the energy is not conserved",
            _TEST + "test_theorem5_energy_misprint_missing_half"),
    Finding("convention", "Theorem 5, eq. (78)",
            "Eq. (78) writes the dissipation as G1(du1, du1) + G2(du2, du2), without the weights mu1, mu2 "
            "that its proof and Theorem 6 write; whether it holds depends on what G(w, w) means for a "
            "semi-discretized PDE",
            _TEST + "test_theorem5_dissipation_readings",
            readings=(("G(w, w) = w.G w, the form of eq. (8) for vectors, as the proof and Theorem 6 read it: "
                       "eq. (78) is then wrong for mu = dx (it holds only for mu1 = mu2 = 1)"),
                      ("G(w, w) = sum_j w_j (G w)_j dx, the discrete form of eq. (9) for functions (dx built in): "
                       "eq. (78) then holds"))),
    Finding("convention", "Theorem 2, eq. (44)",
            "Eq. (44)'s force f = rho2/(rho1 + rho2)(dV1/du1 + G1 u1_t)(x1) - rho1/(rho1 + rho2)(...)(x2) is what "
            "the 'naive' computation the paper announces gives, delta(x - x1) at x1 read like the unit vector's 1",
            _TEST + "test_theorem2_force_readings",
            readings=(("f the coefficient of delta(x - x1), i.e. of the delta vector e_k/dx of the "
                       "semi-discretization: does not hold, the derived coefficient is dx times eq. (44)"),
                      ("f the nodal force (the coefficient of e_k), the force acting on the contact node: holds "
                       "exactly, and it is the f_d of the paper's own scheme, eq. (92)"))),
    Finding("convention", "eq. (94)",
            "Eq. (94) sums the wave energy 1/2 v_i^2 + 1/4((d+ u_i)^2 + (d- u_i)^2) over i1 = 1..N1, 'N1 the number "
            "of the nodes', without saying which nodes; the differences at the end nodes need a node outside the grid",
            _OWN + "test_eq94_wave_energy_readings",
            readings=(("over the interior nodes 1..N-1 (the unknowns, the rows of D2): not the energy of D2 (the "
                       "two boundary edges count half), and not conserved by the run"),
                      ("over all nodes 0..N with the differences that would leave the grid omitted: equals "
                       "1/2 sum (d+ u_i)^2 dx + 1/2 sum v_i^2 dx, the energy of D2, conserved by the run to rounding; "
                       "this holds and is the energy we use"))),
    Finding("error", "Theorem 6, eq. (82)",
            "Eq. (82)'s force f^(n+1/2) has G1 A v2 in its first term; the derivation, the theorem's own proof "
            "and eq. (61) have G1 A v1. At the paper's x1 = x2 on equal grids the slip is harmless (the contact "
            "nodes share their index, and on c = 0 the two agree); with x1 != x2 the contact velocities drift "
            "apart and the damped energy identity fails",
            _OWN + "test_printed_theorem6_force_breaks_the_damped_run"),
    Finding("damage", "eq. (92)",
            "As read in our copy, eq. (92) gives f_d = 1/2((d2 A u1)_k1 + (d4 A u2)_k2 g1 A (v1)_k1 + g2 A (v2)_k2): "
            "the leading minus sign and the one before g1 are lost (our copy drops minus signs throughout). "
            "Of the four ways to restore them only -1/2((d2 A u1)_k1 + (d4 A u2)_k2 - g1 A v1 + g2 A v2) is the "
            "derived nodal force, and it keeps both '+' signs our copy shows",
            _TEST + "test_eq92_nodal_force_signs"),
)


# --------------------------------------------------------------------------- parameters


@dataclass(frozen=True)
class Parameters:
    """Everything of the experiment (Section 5, first example)."""

    intervals: int = 100            # N: dx = L/N, N - 1 interior nodes per PDE
    length: float = 1.0             # L1 = L2
    dt: float = 1e-3
    t_end: float = 1.0
    contact: tuple = (0.2, 0.2)     # x1, x2
    damping: float = 10.0           # g1 = g2 of the damped run (the undamped run has 0)
    width: float = 200.0            # u1(0, x) = exp(-width (x - center)^2)
    center: float = 0.5
    hp_intervals: int = 10          # the 50-digit run (a few steps on a coarser grid)
    hp_steps: int = 5
    hp_digits: int = 50

    @classmethod
    def quick(cls):
        """Seconds: dx = 1/30, dt = 2e-3, T = 0.45 (to the time of the energy partition)."""
        return cls(intervals=30, dt=2e-3, t_end=0.45)

    @classmethod
    def paper(cls):
        """The paper's values: dx = 1/100, dt = 1e-3, T = 1."""
        return cls(hp_intervals=20)

    @property
    def steps(self) -> int:
        return int(round(self.t_end / self.dt))

    @property
    def partition_time(self) -> float:
        """``t* = (center - x1) + 3 sigma``, ``sigma = 1/sqrt(2 width)``: the left-going half of the initial
        packet (speed 1) has passed the contact point ``x1`` to within 3 sigma (0.45 at the paper's values)."""
        return (self.center - self.contact[0]) + 3 / math.sqrt(2 * self.width)

    def validate(self):
        if not (isinstance(self.intervals, int) and self.intervals >= 5):
            raise InvalidArgumentError(f"intervals = {self.intervals!r}: an integer >= 5 was expected")
        if not (self.dt > 0 and self.t_end > 0 and self.steps >= 1):
            raise InvalidArgumentError(f"dt = {self.dt!r}, t_end = {self.t_end!r}: positive, with t_end >= dt")
        if not (0 < self.contact[0] < self.center < self.length and self.width > 0):
            raise InvalidArgumentError(
                f"contact = {self.contact!r}, center = {self.center!r}: 0 < x1 < center < L and width > 0 were expected")
        if self.damping < 0:
            raise InvalidArgumentError(f"damping = {self.damping!r}: a damping coefficient >= 0 was expected")


def exact_rational(x):
    """A float parameter as the exact rational it prints as (0.2 -> 1/5).

    >>> exact_rational(0.2), exact_rational(3)
    (1/5, 3)
    """
    return sympy.Rational(repr(float(x))) if not isinstance(x, (int, sympy.Rational)) else sympy.Rational(x)


# --------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class Trajectory:
    """A run: the states ``z^n`` (rows) and the system's energies, dissipation and contact mismatch."""

    system: object = field(repr=False)
    times: np.ndarray = field(repr=False)
    states: np.ndarray = field(repr=False)
    energy: np.ndarray = field(repr=False)          # E^n = E_1 + E_2
    energies: tuple = field(repr=False)             # (E_1^n, E_2^n)
    dissipation: np.ndarray = field(repr=False)     # D^n = mu1 G1(d+u1, d+u1) + mu2 G2(d+u2, d+u2)
    mismatch: np.ndarray = field(repr=False)        # c^n = mu1 eps1.v1 - mu2 eps2.v2
    dt: float = 0.0
    scale: np.ndarray = field(default=None, repr=False)  # S^n: the energy's rounding scale (rounding_scale)

    def block(self, k, what="u"):
        """Positions (``"u"``) or velocities (``"v"``) of subsystem k over time."""
        s = self.system
        n1 = s.first.n
        off = 0 if k == 0 else 2 * n1
        n = s.systems[k].n
        lo = off + (0 if what == "u" else n)
        return self.states[:, lo:lo + n]

    def identity_residual(self):
        """``(E^{n+1} - E^n) + dt D^n`` at every step (Theorem 6: zero)."""
        with np.errstate(all="ignore"):
            return np.diff(self.energy) + self.dt * self.dissipation


def _energy_functions(system):
    """``E_1``, ``E_2``, the contact mismatch ``c`` and the energy's rounding scale ``S`` on states ``(..., dim)``."""
    return expressions_on_states([system.first.energy(), system.second.energy(), system.constraint,
                                  rounding_scale(system.energy())], system.chart.coords,
                                 what="the energies, the contact mismatch and the rounding scale")


def _dissipation_function(scheme, dt, backend="numpy", dps=None):
    """``D^n`` of a step from its two ends: ``f(before, after)`` on states ``(..., dim)``."""
    on_pairs = expressions_on_states([_dissipation_expr(scheme, dt)], tuple(scheme.current) + tuple(scheme.new),
                                     backend=backend, dps=dps, what="the dissipation")
    return lambda before, after: on_pairs(np.concatenate([before, after], axis=-1))[0]


def exact_step_map(scheme, dt):
    """The scheme's step as an implicit map of its chart at the exact step ``dt`` (0.002 -> 1/500).

    The runs take the step the certificates and the dissipation take (:func:`exact_rational`), not the
    double nearest to it: the map has no step symbol left, and its coefficients are exact rationals,
    each rounded once when a run binds them (:mod:`integrators.linear_implicit`).
    """
    from integrators.schemes.stages import StageMap

    at = {scheme.step: exact_rational(dt)}
    # a StageMap: the implicit-function data (a Jacobian check of seconds for N = 30) only when a certificate asks
    return StageMap(scheme.system.chart, scheme.system.chart, [e.xreplace(at) for e in scheme.equations],
                    new=scheme.new)


def simulate(scheme, z0, dt, steps) -> Trajectory:
    """Run the scheme's linear step from ``z0`` for ``steps`` steps of ``dt`` (double precision).

    :func:`integrators.run_map` on :func:`exact_step_map`: the step is linear, so the run reads
    ``A z^+ + B z = 0`` off the map, factors ``A`` once and solves ``A d = -(A + B) z`` at every step
    (``linear_solve`` "auto" takes the solve form for this one-level scheme: backward stable per step,
    the contact velocities stay within about 0.01 of their rounding budget; the increment matrix
    ``-A^-1 (A + B)``, rounded once, would part them by up to 1.5 of it).
    """
    from integrators.run_map import run_map

    with warnings.catch_warnings():
        # a blow-up (a printed force that breaks the scheme) runs on to inf/nan: the checks fail it
        warnings.simplefilter("ignore", NonFiniteStateWarning)
        sol = run_map(exact_step_map(scheme, dt), np.asarray(z0, dtype=float), dt=dt, steps=steps, save_every=1,
                      step=scheme.step, progress=False)
    Z = sol.y
    with np.errstate(all="ignore"):
        E1, E2, c, S = _energy_functions(scheme.system)(Z)
        Dn = _dissipation_function(scheme, exact_rational(dt))(Z[:-1], Z[1:]) if steps else np.zeros(0)
    return Trajectory(scheme.system, dt * np.arange(steps + 1), Z, E1 + E2, (E1, E2), Dn, c, dt, S)


def wave_beam_scheme(p: Parameters, damping, force=None):
    """The coupled system of eqs. (87)-(90) and its AVF scheme (eq. (92)), with ``g1 = g2 = damping``."""
    g = exact_rational(damping)
    s = wave_beam_system(p.intervals, damping=(g, g), contact=tuple(exact_rational(x) for x in p.contact),
                         length=(exact_rational(p.length), exact_rational(p.length)))
    return discrete_gradient_scheme(s, avf_gradient, step=sympy.Symbol("h"), force=force)


def gaussian_state(scheme, k, width, center, dps=None):
    """Subsystem ``k`` displaced to ``exp(-width (x_j - center)^2)`` at its nodes ``x_j``, all else at rest.

    Floats, or ``mpmath`` numbers at ``dps`` digits when ``dps`` is given (call inside ``workdps``).
    """
    S = scheme.system
    X = S.systems[k]
    off = 0 if k == 0 else 2 * S.first.n
    dx = X.spacing
    if dps is None:
        z = [0.0] * len(scheme.current)
        for j in range(X.n):
            z[off + j] = math.exp(-width * (float((j + 1) * dx) - center) ** 2)
        return z
    import mpmath

    def mp(q):
        q = sympy.Rational(q)
        return mpmath.mpf(int(q.p)) / int(q.q)

    z = [mpmath.mpf(0)] * len(scheme.current)
    for j in range(X.n):
        z[off + j] = mpmath.exp(-mp(exact_rational(width)) * (mp((j + 1) * dx) - mp(exact_rational(center))) ** 2)
    return z


def initial_state(scheme, p: Parameters, dps=None):
    """``u1(0, x) = exp(-width (x - center)^2)`` at the wave's interior nodes, everything else 0."""
    return gaussian_state(scheme, 0, p.width, p.center, dps)


# --------------------------------------------------------------------------- what the figures show


def wave_energy_density(traj, n):
    r"""The wave's discrete energy at step ``n`` by position: ``(x_nodes, kinetic, x_edges, potential)``.

    ``kinetic_k = 1/2 v_k^2 dx`` at the interior nodes ``x_k = k dx`` and ``potential_i = 1/2 (d+ u_i)^2 dx``
    on the edges ``x = (i + 1/2) dx``, i = 0..N-1 (``u_0 = u_N = 0``): they add up to ``E_1^n``.
    """
    W = traj.system.first
    dx = float(W.spacing)
    u = np.concatenate([[0.0], traj.block(0, "u")[n], [0.0]])
    v = traj.block(0, "v")[n]
    kinetic = float(W.weight) * 0.5 * v**2 * float(W.mass[0, 0])
    potential = float(W.weight) * 0.5 * (np.diff(u) / dx) ** 2
    return dx * np.arange(1, W.n + 1), kinetic, dx * (np.arange(W.n + 1) + 0.5), potential


def energy_partition(traj, p: Parameters, t=None) -> dict:
    r"""Where the energy of the initial wave packet is at the time ``t`` (default ``p.partition_time``).

    The packet ``exp(-width (x - center)^2)`` at rest splits into two halves of energy ``E^0/2``; the
    left-going one meets the contact point ``x1`` at ``t = center - x1``.  At ``t``, the wave's energy
    is split by position (:func:`wave_energy_density`): ``past`` (``x < x1``: gone past the contact
    along the string), ``reflected`` (``x1 <= x < x_s``) and ``right`` (``x >= x_s``, the right-going
    half), with ``x_s`` midway between the centres of the reflected packet, ``x1 + t - (center - x1)``,
    and of the right-going half, ``center + t`` (folded at the wall); ``beam`` is ``E_2``.  Fractions of
    ``E^0/2``: ``reflected + past + beam`` is the incident half, ``right`` the other.
    """
    t = p.partition_time if t is None else t
    n = round(t / traj.dt)
    if not 0 <= n < len(traj.times):
        raise InvalidArgumentError(f"t = {t:g} is outside the run (T = {traj.times[-1]:g}); run at least to it")
    x1 = float(p.contact[0])
    right_center = p.center + traj.times[n]
    if right_center > p.length:
        right_center = 2 * p.length - right_center
    xs = (x1 + traj.times[n] - (p.center - x1) + right_center) / 2
    xn, kin, xe, pot = wave_energy_density(traj, n)
    half = traj.energy[0] / 2
    tol = 1e-9 * float(traj.system.first.spacing)

    def part(lo, hi):
        return float(np.sum(kin[(xn >= lo - tol) & (xn < hi - tol)]) + np.sum(pot[(xe >= lo - tol) & (xe < hi - tol)]))

    return {"time": float(traj.times[n]), "split": xs, "incident": half,
            "past": part(-np.inf, x1) / half, "reflected": part(x1, xs) / half, "right": part(xs, np.inf) / half,
            "beam": float(traj.energies[1][n]) / half}


def max_norm_ratios(traj, length, energy=None):
    r"""How much of the energy's bound on ``max |u|`` the run uses: ``(wave, beam)``, each ``<= 1``.

    With ``u = 0`` at both ends of ``(0, L)`` and ``|w|^2 = sum w_i^2 dx``:
    ``u_k = sum_{i<k} d+ u_i dx = -sum_{i>=k} d+ u_i dx`` gives ``u_k^2 <= x_k A^2`` and
    ``u_k^2 <= (L - x_k) B^2`` with ``A^2 + B^2 = |d+ u|^2``, hence
    ``max |u| <= sqrt(L)/2 |d+ u|`` (equality for a tent); summation by parts,
    ``|d+ u|^2 = -sum u_i d2 u_i dx <= |u| |d2 u| <= (L/2) |d+ u| |d2 u|``, gives ``|d+ u| <= L/2 |d2 u|``.
    The wave's energy has ``1/2 |d+ u1|^2`` and the beam's ``1/2 |d2 u2|^2``, so

    ``max |u1| <= sqrt(L E / 2)``,  ``max |u2| <= L^{3/2}/4 sqrt(2 E)``,

    ``E`` the total energy (both parts are nonnegative).  Returns ``max_n max_k |u^n_k|`` over these
    bounds with ``E = energy`` (default ``E^0``: bounded for all time when the energy never exceeds it).
    """
    E = traj.energy[0] if energy is None else energy
    L = float(length)
    with np.errstate(all="ignore"):
        u1 = float(np.max(np.abs(traj.block(0, "u"))))
        u2 = float(np.max(np.abs(traj.block(1, "u"))))
        wave = u1 / math.sqrt(L * E / 2)
        beam = u2 / (L**1.5 / 4 * math.sqrt(2 * E))
    return (wave if math.isfinite(wave) else float("inf")), (beam if math.isfinite(beam) else float("inf"))


def _dissipation_expr(scheme, dt):
    """``D^n``: the system's dissipation at ``w = d+ u = (u^{n+1} - u^n)/dt``."""
    S = scheme.system
    (u1, _, U1, _), (u2, _, U2, _) = scheme.blocks(0), scheme.blocks(1)
    return (S.first.dissipation([(a - b) / dt for a, b in zip(U1, u1)])
            + S.second.dissipation([(a - b) / dt for a, b in zip(U2, u2)]))


def high_precision_identity(scheme, z0, dt, steps, dps=50):
    """The discrete energy identity over ``steps`` steps at ``dps`` digits.

    Returns ``max_n |E^{n+1} - E^n + dt D^n| / E^0`` (Theorem 6: zero; at 50 digits about 1e-48).
    ``z0`` is a function of ``dps`` giving the initial state (see :func:`initial_state`).
    """
    import mpmath

    from integrators.run_map import run_map

    h = exact_rational(dt)
    with mpmath.workdps(dps):
        y0 = list(z0(dps))
    # the same exact map as the double run, in mpmath: A's exact rationals rounded once at dps, factored once
    # (geomcheck.dense_lu), one solve per step
    Z = run_map(exact_step_map(scheme, dt), y0, dt=h, steps=steps, save_every=1, step=scheme.step,
                backend="mpmath", dps=dps, progress=False).y
    E = expressions_on_states([scheme.system.energy()], scheme.system.chart.coords, backend="mpmath", dps=dps,
                              what="the energy")(Z)[0]
    D = _dissipation_function(scheme, h, backend="mpmath", dps=dps)(Z[:-1], Z[1:])
    with mpmath.workdps(dps):
        dtm = mpmath.mpf(int(h.p)) / int(h.q)
        worst = max([mpmath.mpf(0)] + [abs(E[n + 1] - E[n] + dtm * D[n]) for n in range(steps)])
        return float(worst / abs(E[0]))


# --------------------------------------------------------------------------- rounding scales


def rounding_scale(expr):
    r"""The first-order rounding scale of evaluating ``expr`` in floating point.

    The model of floating-point arithmetic: every input and every operation's result is rounded
    once, relative to its own size (``fl(x) = x (1 + d)``, ``|d| <= eps``).  To first order in
    ``eps`` the error of ``expr`` is then at most ``eps`` times this scale, built bottom up:

    * a symbol, or a number that is not an integer: its absolute value; an integer: 0 (exact), and so is
      a negation;
    * a sum: the scales of its terms plus the absolute values of its terms (the partial sums'
      roundings, each bounded by the sum of the absolute values, counted once);
    * a product: ``sum_i scale(f_i) prod_{j != i} |f_j| + |prod f|``;
    * an integer power ``b^n``: ``|n| |b|^(n-1) scale(b) + |b^n|``.

    For an energy ``sum w (a.z)^2`` the scale is about ``sum 2|w| |a.z| (|a|.|z|)``: where the second
    differences of a smooth beam profile cancel, ``|a|.|z|`` is much larger than ``|a.z|``, and so is
    the error of the energy.  (The worst-case bound would multiply each sum's term by its number of
    terms; the budget below uses the first-order scale.)

    >>> x, y = sympy.symbols("x y")
    >>> rounding_scale(x - y)
    2*Abs(x) + 2*Abs(y)
    >>> rounding_scale((x - y)**2)
    2*(2*Abs(x) + 2*Abs(y))*Abs(x - y) + Abs((x - y)**2)
    """
    if expr.is_Symbol:
        return sympy.Abs(expr)
    if expr.is_Number:
        return sympy.S.Zero if expr.is_Integer else abs(expr)
    if isinstance(expr, sympy.Add):
        return sympy.Add(*[rounding_scale(t) + sympy.Abs(t) for t in expr.args])
    if isinstance(expr, sympy.Mul):
        c, rest = expr.as_coeff_Mul()
        if c == -1:                                  # negation is exact
            return rounding_scale(rest)
        f = expr.args
        return sympy.Add(*[rounding_scale(fi) * sympy.Mul(*[sympy.Abs(fj) for j, fj in enumerate(f) if j != i])
                           for i, fi in enumerate(f)]) + sympy.Abs(expr)
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer and expr.exp > 0:
        n = int(expr.exp)
        return n * sympy.Abs(expr.base) ** (n - 1) * rounding_scale(expr.base) + sympy.Abs(expr)
    raise ExpressionError(f"rounding_scale handles polynomials in symbols; got the subexpression {expr}")


#: the rounding budget: this many units of eps times the rounding scale per evaluation
ROUNDINGS = 10


def _worst(ratios) -> float:
    """The largest ratio; infinite when the run left the floating-point numbers (a blow-up fails)."""
    ratios = np.asarray(ratios, dtype=float)
    return float(np.max(ratios)) if ratios.size and np.all(np.isfinite(ratios)) else float("inf")


def rounding_ratios(traj):
    r"""How much of the rounding budget the run used (1 = all of it).

    Returns ``(identity, drift, mismatch)``:

    * ``identity``: ``max_n |E^{n+1} - E^n + dt D^n| / (4 eps (S^n + S^{n+1}))``, with ``S`` the
      rounding scale of the energy (:func:`rounding_scale`): the discrete energy identity per step;
    * ``drift``: ``max_n |E^n - E^0 + dt sum_{k<n} D^k| / (4 eps sum_{k<n} (S^k + S^{k+1}))``:
      the identity telescoped, i.e. the energy deviation of Fig. 4 (without damping) against the
      rounding accumulated over n steps;
    * ``mismatch``: ``max_n |c^n - c^0| / (4 eps sum_{k<=n} (|mu1 eps1|_1 + |mu2 eps2|_1) |v^k|_inf)``, the
      contact velocities against the rounding of the velocities accumulated over n steps (the linear
      solve errs normwise, so the scale is the largest velocity, not the contact velocity).
    """
    S = traj.scale
    pair = ROUNDINGS * EPS * (S[:-1] + S[1:])
    step_res = traj.identity_residual()
    with np.errstate(all="ignore"):
        identity = _worst(np.abs(step_res) / pair)
        drift = _worst(np.abs(np.cumsum(step_res)) / np.cumsum(pair))
        # the solve errs normwise: the contact mismatch's rounding scale is |mu eps|_1 times the largest velocity
        weights = sum(abs(float(a)) for a in sympy.expand(traj.system.constraint).as_coefficients_dict().values())
        S_c = weights * np.max(np.abs(np.hstack([traj.block(0, "v"), traj.block(1, "v")])), axis=1)
        mismatch = _worst(np.abs(traj.mismatch - traj.mismatch[0])[1:] / (ROUNDINGS * EPS * np.cumsum(S_c)[1:]))
    return identity, drift, mismatch


# --------------------------------------------------------------------------- the case study


def _figures(p, runs, out):
    from ._plotting import figure, save

    paths = []
    fig, axes = figure(2, 2, figsize=(10, 7), sharex="col", layout="constrained")
    for row, (label, (sch, tr)) in enumerate(runs.items()):
        for col in range(2):
            ax = axes[row][col]
            X = sch.system.systems[col]
            x = np.arange(1, X.n + 1) * float(X.spacing)
            U = tr.block(col, "u")
            lim = float(np.max(np.abs(U))) or 1.0
            im = ax.imshow(U, origin="lower", aspect="auto", cmap="RdBu_r", vmin=-lim, vmax=lim,
                           extent=(x[0], x[-1], tr.times[0], tr.times[-1]), interpolation="nearest")
            ax.axvline(float(p.contact[col]), color="k", lw=0.6, ls=":")
            ax.set_title(f"{'wave u1' if col == 0 else 'beam u2'}, {label} "
                         f"(Fig. {(2 if col == 0 else 3) if row == 0 else (5 if col == 0 else 6)})", fontsize=9)
            ax.set_ylabel("t")
            fig.colorbar(im, ax=ax)
    for ax in axes[1]:
        ax.set_xlabel("x")
    paths += save(fig, out, f"{NAME}-displacements")

    fig, axes = figure(2, 2, figsize=(10, 6.5), sharex=True, layout="constrained")
    for col, (label, (sch, tr)) in enumerate(runs.items()):
        ax = axes[0][col]
        ax.plot(tr.times, tr.energies[0], label="wave E1")
        ax.plot(tr.times, tr.energies[1], label="beam E2")
        ax.plot(tr.times, tr.energy, "k", lw=1.5, label="total E")
        if label == "undamped" and p.partition_time <= p.t_end:
            ax.axvline(p.partition_time, color="gray", lw=0.8, ls=":", label="t* (energy partition, Fig. 2)")
        ax.set_title(f"energy exchange, {label}" + ("" if label == "undamped" else " (Fig. 7)"), fontsize=9)
        ax.legend(fontsize=8)
        ax = axes[1][col]
        res = np.abs(np.cumsum(tr.identity_residual())) / tr.energy[0]
        budget = np.cumsum(ROUNDINGS * EPS * (tr.scale[:-1] + tr.scale[1:])) / tr.energy[0]
        ax.semilogy(tr.times[1:], np.maximum(res, 1e-18), ".", ms=2,
                    label="|E^n - E^0| / E^0 (Fig. 4)" if label == "undamped" else "|E^n - E^0 + dt sum D^k| / E^0")
        ax.semilogy(tr.times[1:], budget, "r-", lw=1, label=f"rounding budget ({ROUNDINGS} eps x scale, summed)")
        ax.semilogy(tr.times[1:], EPS * np.arange(1, len(tr.times)), "k:", lw=1, label="eps x n")
        ax.set_xlabel("t")
        ax.set_title(f"energy {'error' if label == 'undamped' else 'identity'} at rounding level, {label}", fontsize=9)
        ax.legend(fontsize=7)
    paths += save(fig, out, f"{NAME}-energy")
    return paths


def linear_lowering_derivation(sch, dt, lowered, state="(u_1, v_1, u_2, v_2)", equation="(92)"):
    """The derivation of the lowering of ``sch`` (equation ``equation`` of the paper, the state ``state``)
    to one linear solve per step at ``dt`` (``lowered``: :func:`lower_linear_scheme`'s LinearStep)."""
    D = Derivation(r"Lowering the scheme to one linear solve per step")
    D = D.add(r"The average-vector-field gradient of a quadratic potential is linear, so the scheme's "
              r"equations (eq. " + equation + r") are linear and homogeneous in the new and the current level. Their exact "
              r"coefficients, at $\Delta t = " + sympy.latex(exact_rational(dt)) + r"$, are read off once:",
              r"A\,z^{n+1} + B\,z^{n} &= 0,\qquad z = " + state + r" \in \mathbb{R}^{" + str(lowered.dim)
              + r"},\quad \#\{A_{ij} \ne 0\} = " + str(len(lowered.A)) + r",\ \#\{B_{ij} \ne 0\} = "
              + str(len(lowered.B)) + ".")
    D = D.add(r"A step solves $A\,\Delta = -(A + B)\,z^{n}$ and sets $z^{n+1} = z^n + \Delta$ (the same equation "
              r"without cancelling the $1/\Delta t$ terms in floating point), with $A$ LU-factored once.")
    return D.concluding(r"The run, the 50-digit run and the certificates use the same equations.")


def simulations(p: Parameters) -> dict:
    """The runs, undamped and damped: ``"runs"`` ``{label: (scheme, Trajectory)}`` on the grid of ``p`` and
    ``"high precision"`` ``{label: 50-digit identity}`` (:func:`high_precision_identity`, ``p.hp_intervals``)."""
    import dataclasses

    runs, exact = {}, {}
    for label, g in (("undamped", 0), ("damped", p.damping)):
        sch = wave_beam_scheme(p, g)
        runs[label] = (sch, simulate(sch, initial_state(sch, p), p.dt, p.steps))
        q = dataclasses.replace(p, intervals=p.hp_intervals)
        sh = wave_beam_scheme(q, g)
        exact[label] = high_precision_identity(sh, lambda d, sh=sh, q=q: initial_state(sh, q, d), p.dt, p.hp_steps,
                                               p.hp_digits)
    return {"runs": runs, "high precision": exact}


def certify(p: Parameters, sims: dict) -> tuple:
    """Theorems 5 and 6 and the printed difference operators on the schemes that ran:
    ``(certificates, derivations)``."""
    certificates = []
    N = p.intervals
    for label, (sch, _) in sims["runs"].items():
        certificates.append((f"Theorem 5 (semi-discrete energy balance), wave + beam, {label}, N = {N}",
                             certify_energy_balance(sch.system)))
        certificates.append((f"Theorem 6 (discrete energy identity of the AVF scheme), {label}, N = {N}",
                             certify_discrete_energy_balance(sch)))
    sch0 = sims["runs"]["undamped"][0]
    W, B = sch0.system.first, sch0.system.second
    certificates.append((f"grad V1 = -D2 u1 with D2 as printed (eq. (93)), N = {p.intervals}",
                         certify_gradient_operator(W, second_difference_matrix(W.n, W.spacing), -1)))
    certificates.append((f"grad V2 = D4 u2 with D4 as printed (eq. (93), corner 5), N = {p.intervals}",
                         certify_gradient_operator(B, fourth_difference_matrix(B.n, B.spacing), 1)))
    lowered = lower_linear_scheme(sch0.equations, sch0.current, sch0.new, {sch0.step: exact_rational(p.dt)})
    return certificates, [sch0.system.force.derivation, linear_lowering_derivation(sch0, p.dt, lowered)]


def checks(p: Parameters, sims: dict) -> list:
    """The verdicts on the runs of :func:`simulations`."""
    out = []
    src = "Section 5, first example"
    for label, (sch, tr) in sims["runs"].items():
        identity, drift, mismatch = rounding_ratios(tr)
        fig = "Fig. 4" if label == "undamped" else "Fig. 7"
        if label == "undamped":
            out.append(check_below(
                "undamped: energy conserved to rounding: max_n |E^n - E^0| in units of the rounding budget "
                f"({ROUNDINGS} eps x the energy's rounding scale, summed over the steps)", drift, 1.0, f"{src}, {fig}"))
        else:
            out.append(check_true(
                "damped: the energy decreases at every step", int(np.sum(np.diff(tr.energy) >= 0)),
                "0 steps with E^{n+1} >= E^n", bool(np.all(np.diff(tr.energy) < 0)), f"{src}, Fig. 7"))
            out.append(check_below(
                "damped: E^n - E^0 equals -dt sum D^k (the dissipation identity telescoped), in units of the "
                "rounding budget", drift, 1.0, f"{src}, Fig. 7; Theorem 6"))
        out.append(check_below(
            f"{label}: per step, (E^(n+1) - E^n)/dt = -D^n (Theorem 6) in units of the rounding budget "
            f"({ROUNDINGS} eps x (S^n + S^(n+1)))", identity, 1.0, f"Theorem 6, eq. (85); {fig}"))
        out.append(check_below(
            f"{label}: the contact-point velocities stay equal: max |c^n - c^0| in units of the rounding budget",
            mismatch, 1.0, "Theorem 6, eq. (81); Section 5"))
        r_wave, r_beam = max_norm_ratios(tr, p.length)
        out.append(check_below(
            f"{label}: bounded energy bounds the wave: max_n max_k |u1| / sqrt(L E^0 / 2) (discrete Poincare-Sobolev: "
            "max |u| <= sqrt(L)/2 |d+ u|)", r_wave, 1.0, f"{src}, remark after Fig. 4"))
        out.append(check_below(
            f"{label}: bounded energy bounds the beam: max_n max_k |u2| / (L^(3/2)/4 sqrt(2 E^0)) "
            "(|d+ u| <= L/2 |d2 u|)", r_beam, 1.0, f"{src}, remark after Fig. 4"))
    # Figs. 2 and 3: where the energy of the packet goes (undamped)
    und = sims["runs"]["undamped"][1]
    if p.partition_time <= p.t_end:
        part = energy_partition(und, p)
        rest = part["past"] + part["beam"]
        out.append(check_true(
            f"Fig. 2: the left-going half is partly reflected at x1: at t = {part['time']:.3g}, reflected R and "
            "the rest (past x1 along the string + into the beam), fractions of E^0/2",
            f"R = {part['reflected']:.3f}, past x1 {part['past']:.3f}, beam {part['beam']:.3f}",
            "R >= 0.1 and rest >= 0.1", part["reflected"] >= 0.1 and rest >= 0.1, f"{src}, Fig. 2 caption"))
        out.append(check_close(
            "the packet splits: the right-going half keeps E^0/2 (fraction of E^0/2 right of the reflected part)",
            part["right"], 1.0, 0.01, f"{src}, text on Figs. 2-3"))
        out.append(check_close(
            "the partition accounts for the incident half: (reflected + past x1 + beam) / (E^0/2)",
            part["reflected"] + rest, 1.0, 0.01, f"{src}, Figs. 2-4"))
    E2max = float(np.max(und.energies[1])) / und.energy[0]
    out.append(check_true(
        "Fig. 3: the beam, at rest at t = 0 (E2^0 = 0), is excited: max_n E2^n / E^0",
        f"E2^0 = {und.energies[1][0]:.3g}, max E2/E^0 = {E2max:.4f}", ">= 0.01",
        und.energies[1][0] == 0 and E2max >= 0.01, f"{src}, Fig. 3 caption"))
    u2_und = float(np.max(np.abs(sims["runs"]["undamped"][1].block(1, "u"))))
    u2_dam = float(np.max(np.abs(sims["runs"]["damped"][1].block(1, "u"))))
    out.append(check_true(
        "the beam's excitation is smaller with damping than without: max |u2| damped < undamped",
        f"{u2_dam:.4g} < {u2_und:.4g}", "damped < undamped", u2_dam < u2_und, "Fig. 6 caption"))
    # the same equations at 50 digits, a few steps on a coarser grid
    for label, hp in sims["high precision"].items():
        out.append(check_below(
            f"{label}, {p.hp_digits} digits (mpmath), N = {p.hp_intervals}, {p.hp_steps} steps: "
            "max |E^(n+1) - E^n + dt D^n| / E^0", hp, 1e-45, "Theorem 6 (exact identity)"))
    return out


def _notes(p: Parameters, sims: dict) -> list:
    notes = []
    for label, (_, tr) in sims["runs"].items():
        g = 0 if label == "undamped" else p.damping
        notes.append(
            f"{label} (g1 = g2 = {g}): E^0 = {tr.energy[0]:.12g}, E^end = {tr.energy[-1]:.12g}; "
            f"max |E^n - E^0|/E^0 = {np.max(np.abs(tr.energy - tr.energy[0])) / tr.energy[0]:.3g}; "
            f"max |E^(n+1) - E^n + dt D^n|/E^0 = {np.max(np.abs(tr.identity_residual())) / tr.energy[0]:.3g}; "
            f"max |c^n| = {np.max(np.abs(tr.mismatch)):.3g}; beam energy max {np.max(tr.energies[1]):.4g}.")
    if p.partition_time <= p.t_end:
        part = energy_partition(sims["runs"]["undamped"][1], p)
        notes.append(
            f"Energy partition at t = {part['time']:.4g} (split at x = {part['split']:.3g}), fractions of E^0/2: "
            f"reflected {part['reflected']:.4f}, past x1 {part['past']:.4f}, beam {part['beam']:.4f}, "
            f"right-going half {part['right']:.4f}.")
    else:
        notes.append(f"T = {p.t_end:g} < t* = {p.partition_time:g}: the energy partition of Fig. 2 is not checked.")
    notes.append(
        f"Grid N = {p.intervals} (dx = {p.length / p.intervals:g}), dt = {p.dt:g}, T = {p.t_end:g} ({p.steps} steps); "
        f"AVF discrete gradient (linear for these quadratic potentials); point deltas e_k/dx at x1 = {p.contact[0]}, "
        f"x2 = {p.contact[1]}. Energies are Theorem 6's, with the wave potential whose gradient is -D2 u (eq. (94) "
        "summed over all nodes).")
    return notes


def run(profile="quick", out=".", parameters=None) -> CaseResult:
    """Reproduce the first example of Section 5 (undamped and damped); see the module docstring."""
    t0 = time.perf_counter()
    p = parameters if parameters is not None else (Parameters.paper() if profile == "paper" else Parameters.quick())
    p.validate()
    res = CaseResult(NAME, TITLE, SOURCE, profile, p)
    sims = simulations(p)
    res.certificates, res.derivations = certify(p, sims)
    res.checks = checks(p, sims)
    res.findings = list(FINDINGS)
    res.notes = _notes(p, sims)
    res.figures.extend(_figures(p, sims["runs"], out))
    res.seconds = time.perf_counter() - t0
    return res
