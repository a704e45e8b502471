r"""Guo, Li & Wu 2001: the DEL analysis of four symplectic(-like) schemes, certified and run on a pendulum.

The paper: H.-Y. Guo, Y.-Q. Li, K. Wu, "A note on symplectic algorithm", Commun. Theor. Phys.
(Beijing) 36 (2001) 11-18.  Our converted copy prints no title, byline or journal line (it
begins at the abstract and calls the paper "this note"); the title, authors and venue are those
of the journal header of the arXiv version (physics/0104030), where the title reads "A Note on
Symplectic Algorithm" (singular); it is also cited as "A note on symplectic algorithms".  It is
NOT the authors' Ref. [5], "On symplectic and multisymplectic structures and their discrete
versions in Lagrangian formalism" (Commun. Theor. Phys. 35 (2001) 703-710), whose title this
module used to give.

For a one-step scheme ``z -> Z`` on ``(q, p)`` the paper pairs the scheme's equations with
differentials into discrete Euler-Lagrange (DEL) one-forms ``E`` on the *function space* (the
values at t_n, t_{n+1} and the stages are independent coordinates) and shows

.. math::  \mathrm d E = \omega^{(n+1)} - \omega^{(n)},

so the DEL condition ``dE = 0`` (true on solutions, where the coefficients of E vanish) is the
preservation of ``omega``.  :mod:`geomcheck.structures.del_forms` builds E and the two-forms; here,
for ``H = p^2/2 - cos q`` (and for a generic ``H(q, p)``), each identity and each preserved two-form
is certified, and the very step maps that are certified run through :func:`integrators.run_map`:

=============================================  ======  =========================================
scheme (the paper's equations)                 order   preserved two-form
=============================================  ======  =========================================
mid-point, eqs. (40)-(47) (separable: (32))    2       ``dq ^ dp``
Feng Kang fourth order, eqs. (48)-(52)         4       ``dq ^ dp``
two-stage Gauss, eqs. (53)-(58)                4       ``dq ^ dp``
trapezoidal, eqs. (59)-(73)                    2       ``w_h = (1 + h^2/4 V''(q)) dq ^ dp``, NOT ``dq ^ dp``
=============================================  ======  =========================================

(The paper writes ``dp ^ (1 + h^2/4 V_qq) dq``, eq. (65): the same form up to orientation.)

The trapezoidal result stated the other way, for every vector field at once
(:mod:`geomcheck.bseries`): the trapezoidal rule (explicit Euler half step, then implicit Euler
half step) is ``psi o midpoint o psi^-1`` with ``psi`` the implicit Euler half step, an identity of
B-series checked exactly up to order 10 (8 in the quick profile); hence it is conjugate to a
symplectic method (certified up to that order as a B-series), and the form it preserves is ``(psi^-1)^* (dq ^ dp)``, with
``psi^-1(y) = y - h/2 f(y)``: exactly Guo's ``w_h`` (a pullback certificate).  Also
certified: the discrete Lagrangian formalism of Sec. 3 (eqs. (22), (26)-(27)) for the separable
mid-point scheme (eqs. (35), (36), (38)) and for the backward-difference scheme of eq. (31), which the
paper states "is also symplectic": its DEL map preserves the discrete symplectic form (pullback
certificate, a generic ``L(q, q_tbar)`` and the pendulum), a check.  The printed sign of the
``h^3/24`` term of eq. (48) (the mid-point rule for eq. (49)'s ``Htilde = H - h^2/24 alpha``) is
checked too: order 4 as printed, order 2 with the other sign.

Numerically: the symplecticity defect of each step's exact Jacobian (implicit function theorem,
evaluated in mpmath at 50 digits) for ``dq ^ dp`` and ``w_h``; the observed orders against a
Gauss-Legendre-8 reference; the energy error over a long run.  The catalog's ``implicit-midpoint``,
``trapezoidal`` and ``gauss-legendre-4`` are checked to be the same maps as the paper's (random
states, 50 digits).

Findings
--------
What we say about the paper (:data:`FINDINGS`; none is an error of the authors):

* [damage] eq. (39): as read in our copy the relation lacks a factor 1/h, which the scheme (32)
  requires; the display is garbled there, so the printed paper cannot be judged from it.
* [convention] eq. (41): the pair of DEL one-forms, read with differentials at t_n and a + sign,
  is no identity on the function space; with eq. (47)'s mid-point differentials and eq. (12)'s
  sign it is.  The paper claims the identity only for eq. (47), which holds.
* [critique] eq. (56): the two-stage Gauss pair alone does not make "DEL condition iff
  preservation" hold on the function space (free stages, or stages from eq. (55)); a stage
  one-form, or stages written about the mid-point, do.  Eq. (58) itself holds.

Checked and found to hold (checks and certificates, not findings): eqs. (22), (26)-(27), (31),
(35), (36), (38), (47)-(49), (52), (58), (65), (67), (72)-(73); see
:mod:`geomcheck.structures.del_forms` for what each check covers.

Measured (this shared 2-core machine): quick profile 5 s (11 s with the first imports); paper
profile (h = 0.1 to t = 5000, 5 x 10^4 steps per scheme, five step sizes for the orders) 97 s.  Observed orders 2.000, 2.000,
4.000, 4.000 (mid-point, trapezoidal, Feng Kang, Gauss); step-Jacobian defects 3e-51 to 1e-50 for
the preserved forms, 1.2e-3 (10 steps of h = 0.1) for the trapezoidal rule and ``dq ^ dp``; energy
errors bounded (no growth up to t = 5000): 8.4e-4 (mid-point), 1.7e-3 (trapezoidal), 9.1e-7
(Feng Kang), 2.4e-7 (Gauss) from q = 2, p = 0.

>>> from casestudies.guo2001_del_schemes import Parameters
>>> Parameters.quick().orders
(2, 2, 4, 4)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy

import geomcheck as gc
import geomcheck.bseries as bs
import integrators as ig
from geomcheck.structures import (certify_del_condition, certify_del_identity, certify_del_symplectic,
                                  certify_feng_kang_coboundary, certify_scheme_del, certify_scheme_map,
                                  discrete_lagrangian_forms, feng_kang_del, feng_kang_map, gauss2_del, midpoint_del,
                                  trapezoidal_del)

from integrators.run_map import run_map

from ._core import CaseResult, Finding, check_below, check_close, check_true
from .observing import expressions_on_states
from .tangent import identity_rows, jacobians, tangent_lift

__all__ = ["NAME", "TITLE", "SOURCE", "Parameters", "run", "certify", "simulations", "checks", "pendulum_hamiltonian",
           "scheme_dels", "step_jacobian_defects", "observed_orders", "same_map", "SCHEMES"]

NAME = "guo-del-schemes"
TITLE = "DEL one-forms of the mid-point, Feng Kang, Gauss and trapezoidal schemes"
SOURCE = ("Guo H.-Y., Li Y.-Q., Wu K., A note on symplectic algorithm, Commun. Theor. Phys. (Beijing) 36 (2001)"
          " 11-18 (title and venue from the arXiv version physics/0104030; our copy prints neither);"
          " Sections 2-5, eqs. (1)-(73)")

#: scheme name -> (builder in del_forms, the paper's equations, the catalog scheme that is the same map)
SCHEMES = {
    "mid-point": (midpoint_del, "eqs. (40)-(47)", "implicit-midpoint"),
    "trapezoidal": (trapezoidal_del, "eqs. (59)-(73)", "trapezoidal"),
    "Feng Kang": (feng_kang_del, "eqs. (48)-(52)", None),
    "Gauss (2 stages)": (gauss2_del, "eqs. (53)-(58)", "gauss-legendre-4"),
}

_OWN = "tests/casestudies/test_guo2001_del_schemes.py"

#: what we say about the paper, each shown by a test that re-derives it with plain sympy/mpmath (the same
#: readings with geomcheck: tests/geomcheck/structures/test_del_forms.py)
FINDINGS = (
    Finding(
        "damage", "eq. (39)",
        "As read in our copy, eq. (39) is dp^(n+1)T ^ dq^(n+1) = (1 + h^2/4 V_qq(q^(n+1/2))) dq^(n+1) ^ dq^(n),"
        " without a factor 1/h. From the scheme, eq. (32), p^(n+1) = (q^(n+1) - q^(n))/h - h/2 V_q(q^(n+1/2)),"
        " so dp^(n+1) ^ dq^(n+1) = (1/h)(1 + h^2/4 V_qq(q^(n+1/2))) dq^(n+1) ^ dq^(n): with the factor the"
        " relation holds (generic V and V = q^4/4), without it it fails. The display is garbled in our copy"
        " (its left side reads 'ApT e+ A qgn+h)'), so whether the printed paper has the factor cannot be told"
        " from it; the paper's conclusion (the scheme is symplectic) holds.",
        f"{_OWN}::test_eq39_as_read_in_our_copy_lacks_the_factor_one_over_h"),
    Finding(
        "convention", "eq. (41)",
        "Eq. (41) pairs the mid-point equations (40) with differentials. As read in our copy (superscripts"
        " garbled) the pair is E_1 = dp^(n)T{q^(n+1) - q^(n) - h H_p(zbar)}, E_2 = dq^(n)T{p^(n+1) - p^(n) +"
        " h H_q(zbar)}, zbar = (z^(n) + z^(n+1))/2; eqs. (56), (61) and (69) read the same way. The paper"
        " states no identity on the function space for this pair: from its DEL conditions, eq. (42), it derives"
        " eqs. (43)-(45) for the scheme. It states one for eq. (47), whose one-form uses the mid-point"
        " differentials; geomcheck's pair is h times that one-form.",
        f"{_OWN}::test_eq41_readings_of_the_pair_on_the_function_space",
        readings=(
            "as read (differentials dp^(n), dq^(n) at t_n, + h H_q in E_2): d(E_1 + E_2) differs from"
            " dq^(n+1) ^ dp^(n+1) - dq^(n) ^ dp^(n) off the scheme's solutions, and so it does with only one of"
            " the two changes below: does not hold as an identity on the function space",
            "mid-point differentials d(p^(n) + p^(n+1))/2, d(q^(n) + q^(n+1))/2 and E_2 with the minus sign of"
            " eq. (12) (h times eq. (47)'s one-form): d(E_1 + E_2) = dq^(n+1) ^ dp^(n+1) - dq^(n) ^ dp^(n)"
            " identically on the function space: holds (the reading geomcheck implements)",
        )),
    Finding(
        "critique", "eq. (56)",
        "Eqs. (56)-(57) pair only the step equations (54) of the two-stage Gauss method, as for the mid-point"
        " rule. Eq. (58) holds (the method preserves dp ^ dq: certified). But the equivalence 'DEL condition"
        " iff preservation' on the function space, the paper's point in Secs. 2-3, fails for the pair alone,"
        " even with the mid-point differentials of eq. (47): with the stage values free, and with the stages"
        " solved from eq. (55) for given z^(n) (harmonic oscillator: a defect of order h), d(E(q) + E(p)) is"
        " not dq^(n+1) ^ dp^(n+1) - dq^(n) ^ dp^(n). It is once a stage one-form is added (geomcheck's S), or"
        " with the stages written about the mid-point, Y_1 = zbar - (sqrt(3)/6) h K_2, Y_2 = zbar +"
        " (sqrt(3)/6) h K_1 (equivalent to eq. (55) on the solutions), for which the pair alone is exact.",
        f"{_OWN}::test_eq56_gauss_pair_alone_is_not_closed_on_the_function_space"),
)

#: equation number -> a short verbatim excerpt of our copy at that equation (whitespace-insensitive).
#: Where our copy prints no number or a wrong one (conversion), the number is counted from its
#: neighbours and from the in-text references, as said at each entry.
EQUATIONS = {
    1: "- — ——=0. 1 oq¢* dt 9¢* (1)",
    2: "B(g i) =422 - S22 Lqg 2 (¢, ¢\") {3(]1 dtaql} q (2)",
    # (3): our copy prints "(2)": the coboundary EL one-forms, between (2) and (4)
    3: "special case of the coboundary EL one-forms (At TN — At 5T (2)",
    4: "dL(q\",¢\") = B(¢\",¢\") + 9, (4)",
    5: "0=—dq¢\". 5 a5 0 (5)",
    6: "dE(q',¢’) =0, (6)",
    # (7): the display "d/dt omega = 0" is lost but for its "d"; between (6) and (8)
    7: "the symplectic conser- vation law with respect to ¢ holds, d where the symplectic structure w is given by",
    8: "d¢' Andd?. (8)",
    12: "E>(q',pj) = — (pj + @> d¢’ . (12)",
    # (13)-(14): no numbers in our copy; (13) the canonical equations z' = J^-1 grad H, (14) E(z) = dz^T(J z' - grad H)
    13: "(=J1V.H,",
    14: "noa2E(z) = dz*(Jz — V. H).",
    15: "w=dzI'AJdz = O 5 (15)",
    16: "dE(z) =0. (16)",
    # (18): no number in our copy; the symplectic structure at t_k, between (17) and (19)
    18: "are denoted by ¢*), the symplectic structure by T o = g p 2y,",
    19: "Ayg™ ;= 9,q™ = qt(k) = (gD — ¢k, (19)",
    20: "Br O W IC)) (20)",
    21: "B¢, ql\") = 4 b A [ =B ) bag®, (21)",
    22: "aLt® = BW 4+ Al (22)",
    23: "o) = ZZD__ (23)",
    # (24): no number in our copy; the discrete symplectic two-form, between (23) and (25)
    24: "discrete symplectic two-form on T*(M7,)), k 1) 27, k 1) K k 0?L (k—1) i (k) 0°L ; 5 (k) og (?qﬂ oq; 3qg",
    26: "de® =0, (26)",
    27: "A =0. (27)",
    28: "(q**). (28)",
    29: "Introducing the DEL one-form!®! 0L 3o} (29)",
    30: "A = Sdg; \" A dg® ) — dg M A dg®) =0. (30)",
    31: "(backward-)difference of ¢(™, 1 A, gF) — R — 2 (B) _ (k1) (31)",
    32: "gD — g — §(p< D 4y pth ) _Wq(f), (32)",
    35: "gt —9g) 4 gD — {Vq(u) i n(%)} , (35)",
    # (36): no number in our copy; the DEL one-form of the separable mid-point scheme, between (35) and (37)
    36: "we first introduce the DEL one-form as follows: n h2 (n+1) (n) (n) (n—1) R e I e",
    37: "dqgm=Y A dg\"™ | (37)",
    38: "(1 n Z%(‘;l_ / ))dq ) A dgn=1 . (38)",
    39: "ApT e+ A qgn+h) — (1 n Iv;}((;z-i—l/Z))qu(n-i-l) Adg™ (39)",
    40: "(D _ g ):_th( , ) (40)",
    41: "Egz) (p) = dpT™ {p(n-l-l) —p™ + hH, (p 2+p 7 q 2+ q )} ' (41)",
    # (42): our copy prints "(19)": between (41) and (43)
    42: "The DEL conditions for the pair of the DEL one-forms now read () N ()N 0 (19)",
    43: "(1— ShHS; 1/2))}dq( ). (43)",
    44: "(RH=1/2) =1 (1 — ShH; UQ))} dg™ . (44)",
    45: "(1 - EhHISZ“/Q))} dg™+) . (45)",
    46: "Apz® = J7v, Hp® (5(,2(’““) +20)). (46)",
    47: "z(k))T{JAtz(k) —v.Hp® (%(z“““) + z(k))) } . (47)",
    # (48): our copy prints "(8)": between (47) and (49)
    48: "—J’lvz((VZH)TJHZZJVzH)(—(z(\"“) + z<\">)) L (8)",
    49: "H=H-— ﬂ(vzztl)TJHquZH. (49)",
    50: "(D) = () 4 hJ_lvzH(§(z(\"+1) + z(\"))) . (50)",
    # (51): the number reads "o)" in our copy; the associated DEL form, between (50) and (52)
    51: "Introducing an associated DEL form, 1 1 Bn® = a0 4 ) (52— v (Lt ), o)",
    52: "Epi® = Bpy® = Zda, o= (V.H)TJH..JV.H. (52)",
    53: "Vo =y 4 h[( = 55) 100 + 1/ 09)]. (53)",
    54: ":p(n)_E[Hq(Pl,Ql)‘i‘Hq(PQ;QQ)]? (54)",
    55: "Po = = [ ( = 55 HalProQu) + TP, Q)] (55)",
    56: "B (p) - = g {p\" 0 — ™) 4 L (H, (P, Q) + Hy(P2, @)} (56)",
    57: "(B (0) + B (1)) = 0, (57)",
    58: "dp™tY A dgm ) = dp™ A dg™ . (58)",
    59: "P () _§[H(§n+l)(p(n+1)7 ¢ 4 B (p) g (59)",
    61: "B (p) : = dg™{p) — p\") + SV () — v (]} (61)",
    # (64): no number at the display in our copy; between (63) and (65), and "the same as Eq. (64)"
    62: "V=D 4. (62)",
    63: ">) dg™ . (63)",
    64: "This means that the following symplectic structure is preserved h2 (dgm T (1 I o",
    65: "Vq(;z)) dg™ . (65)",
    67: "w™D = (dp™+D)T A (1 + - Tp(;”rl)Vq(;“))dq(\"“). (67)",
    68: "gt — 4l )=§(H;£ +1)+H1(J ), p( D _ pl ):_i(H‘g +1)+H(§ )y, (68)",
    69: "B (p) : = dg™{pt) = p™ + Z(HD + H{) ) (69)",
    # (71): our copy prints "(T1)": between (70) and (72)
    71: "Adg™ . (T1)",
    72: "¢ =q\" + S H\"Y, (72)",
    73: "Wi = dpt™ A dg™. (73)",
}


@dataclass(frozen=True)
class Parameters:
    """The runs (the paper has no numerical experiment: these are ours).

    Attributes
    ----------
    q0, p0 : the pendulum's initial state
    h, steps : step and number of steps of the long (energy) run
    orders : the orders claimed (mid-point, trapezoidal, Feng Kang, Gauss: the order of :data:`SCHEMES`)
    order_steps : step sizes of the order measurement (halving)
    order_time : final time of the order measurement
    mp_steps, dps : the high-precision run (Jacobian defects)
    catalog_points : random states at which the catalog maps are compared
    bseries_order : the order up to which the trapezoidal rule's conjugacy is checked as a B-series
        (10 in the paper profile, 8 in the quick one)
    """

    q0: float = 2.0
    p0: float = 0.0
    h: float = 0.1
    steps: int = 1000
    save_every: int = 2
    orders: tuple = (2, 2, 4, 4)
    order_steps: tuple = (0.2, 0.1, 0.05, 0.025)
    order_time: float = 4.0
    mp_steps: int = 5
    dps: int = 50
    catalog_points: int = 3
    bseries_order: int = 10

    @classmethod
    def quick(cls) -> "Parameters":
        """Seconds: 1000 steps of h = 0.1 (t = 100); the B-series conjugacy up to order 8."""
        return cls(bseries_order=8)

    @classmethod
    def paper(cls) -> "Parameters":
        """Long runs: 5 x 10^4 steps (t = 5000), one more halving in the order plot."""
        return cls(steps=50_000, save_every=20, order_steps=(0.2, 0.1, 0.05, 0.025, 0.0125), mp_steps=10)


def pendulum_hamiltonian():
    """``(H, q, p, h)`` with ``H = p^2/2 - cos q`` (so ``V'' = cos q``)."""
    q, p, h = sympy.symbols("q p h")
    return p**2 / 2 - sympy.cos(q), q, p, h


def scheme_dels(H=None) -> dict:
    """``{name: SchemeDEL}`` for the four schemes (``H=None``: a generic ``H(q, p)``)."""
    _, q, p, h = pendulum_hamiltonian()
    return {name: build(H, q, p, h) for name, (build, _, _) in SCHEMES.items()}


# --------------------------------------------------------------------------- numerics


def _mpf_rows(Y, dps):
    with mpmath.workdps(dps):
        return [[c if isinstance(c, mpmath.mpf) else mpmath.mpf(repr(float(c))) for c in row] for row in Y]


def _form_matrix(form, coords):
    """The antisymmetric matrix W of a two-form on ``coords`` (``w = sum_{i<j} W_ij dz_i ^ dz_j``)."""
    n = len(coords)
    W = [[sympy.S.Zero] * n for _ in range(n)]
    for (i, j), c in form.components.items():
        W[i][j], W[j][i] = c, -c
    return W


def step_jacobian_defects(S, h, z0, steps, forms, dps=50):
    r"""Run ``S.step_map`` in mpmath and measure ``|(D Phi)^T W(Z) D Phi - W(z)|`` for each form.

    ``D Phi`` is the exact Jacobian of ``steps`` steps: the step's tangent lift
    (:func:`casestudies.tangent.tangent_lift`: per step, the derivatives of the new values by the
    implicit function theorem, ``ImplicitMap.dependence``, symbolic, at the solved step) runs from
    the unit vectors through :func:`integrators.run_map` at ``dps`` digits.

    Returns ``{label: worst max-norm defect}`` over the states of a batch ``z0`` (rows ``(q, p)``).
    """
    phi = S.step_map
    coords = list(phi.source.coords)
    n = len(coords)
    hq = sympy.nsimplify(h)
    sol = run_map(tangent_lift(phi, n), identity_rows(_mpf_rows(z0, dps)), dt=hq, steps=steps, save_every=steps,
                  backend="mpmath", dps=dps)
    start, end = sol.y[0], sol.y[-1]
    totals = jacobians(end, n)
    entries = {label: [c for row in _form_matrix(w, coords) for c in row] for label, w in forms.items()}
    W = {label: expressions_on_states(e, coords, [phi.step], [hq], backend="mpmath", dps=dps,
                                      what=f"the matrix of {label}")
         for label, e in entries.items()}
    worst = {label: mpmath.mpf(0) for label in forms}
    with mpmath.workdps(dps):
        for b in range(len(start)):
            total = mpmath.matrix(totals[b].tolist())
            for label in forms:
                before = mpmath.matrix(W[label](start[b, :n]).reshape(n, n).tolist())
                after = mpmath.matrix(W[label](end[b, :n]).reshape(n, n).tolist())
                defect = total.T * after * total - before
                worst[label] = max(worst[label], max(abs(defect[i, j]) for i in range(n) for j in range(n)))
    return worst


def same_map(phi, psi, h, points, dps=50, seed=0):
    """Max difference of two step maps (on the same chart) at random states, in mpmath at ``dps`` digits."""
    rng = np.random.default_rng(seed)
    Y = _mpf_rows(rng.uniform(-1.5, 1.5, size=(points, phi.source.dim)), dps)
    hq = sympy.nsimplify(h)
    # one step of each map from the same states: a comparison of two maps, not a run of either
    a, b = (run_map(m, Y, dt=hq, steps=1, save_every=1, backend="mpmath", dps=dps).y[-1] for m in (phi, psi))
    with mpmath.workdps(dps):
        return max(abs(a[i, j] - b[i, j]) for i in range(points) for j in range(phi.source.dim))


def _run_numpy(phi, y0, h, steps, save_every=1):
    return run_map(phi, y0, dt=h, steps=steps, save_every=save_every).y


def _reference(H, q, p, y0, T, h):
    steps = int(round(T / h))
    sol = ig.integrate(ig.HamiltonianSystem(H, q, p), "gauss-legendre-8", np.array(y0, dtype=float), dt=h,
                       steps=steps, save_every=steps)
    return sol.y[-1]


def observed_orders(S, y0, T, hs, reference):
    """Errors at time T for each step in ``hs`` and the observed orders ``log2(e(h)/e(h/2))``."""
    errors = []
    for h in hs:
        steps = int(round(T / h))
        Y = _run_numpy(S.step_map, y0, h, steps, save_every=steps)[-1]
        errors.append(float(np.abs(Y - reference).max()))
    errors = np.array(errors)
    ratios = np.array(hs[:-1]) / np.array(hs[1:])
    return errors, np.log(errors[:-1] / errors[1:]) / np.log(ratios)


# --------------------------------------------------------------------------- figures


def _figures(p, energy, order_data, out):
    from ._plotting import figure, save

    paths = []
    fig, ax = figure(figsize=(7.5, 4.5))
    for name, (t, err) in energy.items():
        ax.semilogy(t[1:], np.maximum(err[1:], 1e-17), label=name, lw=0.8)
    ax.set_xlabel("t")
    ax.set_ylabel(r"$|H(z_n) - H(z_0)|$")
    ax.set_title(rf"pendulum $H = p^2/2 - \cos q$, $h = {p.h:g}$, $(q_0, p_0) = ({p.q0:g}, {p.p0:g})$")
    ax.legend(fontsize=8)
    paths += save(fig, out, f"{NAME}-energy")

    fig, ax = figure(figsize=(6, 4.5))
    hs = np.array(p.order_steps)
    for (name, errors), k in zip(order_data.items(), p.orders):
        line, = ax.loglog(hs, errors, "o-", label=f"{name} (order {k})")
        ax.loglog(hs, errors[-1] * (hs / hs[-1]) ** k, ":", color=line.get_color(), lw=0.8)
    ax.set_xticks(hs, [f"{v:g}" for v in hs])
    ax.minorticks_off()
    ax.set_xlabel("h")
    ax.set_ylabel(f"error at t = {p.order_time:g}")
    ax.set_title("observed orders (dotted: slopes 2 and 4)")
    ax.legend(fontsize=8)
    paths += save(fig, out, f"{NAME}-orders")
    return paths


# --------------------------------------------------------------------------- the run


def certify(prm: Parameters, dels: dict) -> tuple:
    """The symbolic results: ``(certificates, derivations, checks)``.

    The discrete Lagrangian formalism of Section 3 (eqs. (22), (26)-(27), (31), (35), (36), (38)),
    each scheme's DEL condition, preserved form and order (``dels``: :func:`scheme_dels` of the
    pendulum), Feng Kang's coboundary and the printed sign of eq. (48), the trapezoidal rule's form.
    """
    H, q, p, h = pendulum_hamiltonian()
    generic = scheme_dels(None)
    certificates, derivations, checks = [], [], []

    # Section 3: the discrete Lagrangian of the separable mid-point scheme (eqs. (35), (36), (38))
    V = sympy.Function("V")
    F = discrete_lagrangian_forms(lambda x, v: v**2 / 2 - V(x + h * v / 2), step=h, difference=True)
    certificates.append(("separable mid-point, L_D = q_t^2/2 - V(q + h q_t/2): dL = E + Delta_t theta"
                         " (eq. (22))", certify_del_identity(F)))
    certificates.append(("separable mid-point: Delta_t omega = -dE on function space (eqs. (26)-(27),"
                         " (35), (36), (38))", certify_del_condition(F)))

    # Section 3, eq. (31): the scheme of the backward difference q_tbar = (q^(k) - q^(k-1))/h "is also
    # symplectic": L_D(q^(k), q_tbar^(k)) summed over k is the discrete Lagrangian L_d(x, y) = L_D(y, (y - x)/h)
    L_D = sympy.Function("L")
    backward = {"generic L(q, q_tbar)": discrete_lagrangian_forms(lambda x, y: L_D(y, (y - x) / h), step=h),
                "pendulum, L = q_tbar^2/2 + cos q": discrete_lagrangian_forms(
                    lambda x, y: ((y - x) / h)**2 / 2 + sympy.cos(y), step=h)}
    preserved = []
    for label, B in backward.items():
        certificates.append((f"backward difference (eq. (31)), {label}: dL = E + Delta_t theta (eq. (22))",
                             certify_del_identity(B)))
        certificates.append((f"backward difference (eq. (31)), {label}: Delta_t omega = -dE on function space"
                             " (eqs. (26)-(27))", certify_del_condition(B)))
        preserved.append(certify_del_symplectic(B))
        derivations.append(preserved[-1].derivation)
    checks.append(check_true(
        "eq. (31): the backward-difference scheme is symplectic: its DEL map (q^(k-1), q^(k)) -> (q^(k), q^(k+1))"
        " preserves the discrete symplectic form omega^(k) (pullback certificates, generic L and the pendulum)",
        "; ".join(f"{label}: {c.verdict()}" for label, c in zip(backward, preserved)), "holds True (both)",
        all(c.holds is True for c in preserved),
        "Sec. 3, eq. (31)"))

    # Sections 4-5: each scheme's DEL condition and preserved form
    chart = gc.Chart([q, p])
    dqdp = chart.d(q) ^ chart.d(p)
    X = gc.hamiltonian_vector_field(H, dqdp)
    for (name, (_, eqs, _)), k in zip(SCHEMES.items(), prm.orders):
        S, G = dels[name], generic[name]
        certificates.append((f"{name} ({eqs}), generic H(q, p): dE = omega^(n+1) - omega^(n) on function space",
                             certify_scheme_del(G)))
        certificates.append((f"{name}, pendulum: dE = omega^(n+1) - omega^(n) on function space",
                             certify_scheme_del(S)))
        certificates.append((f"{name}, pendulum: the step map preserves {S.preserved_form}",
                             certify_scheme_map(S)))
        certificates.append((f"{name}, pendulum: order {k}", gc.certify_order(S.step_map, X, h, k)))
        derivations.append(G.derivation)
    certificates.append(("Feng Kang: E_FK - E_mid = h^3/24 d alpha(zbar), generic H (eq. (52), with eq. (47)'s"
                         " factor 1/h: h^2/24)", certify_feng_kang_coboundary(None, q, p, h)))
    # eq. (48) as printed: Z = z + h J^-1 grad H(zbar) - h^3/24 J^-1 grad alpha(zbar), the mid-point rule for
    # eq. (49)'s Htilde; the sign of the h^3/24 term decides the order
    fk_orders = tuple(gc.map_order(feng_kang_map(H, q, p, h, sign=s), X, h) for s in (-1, 1))
    checks.append(check_true(
        "eq. (48) as printed (- h^3/24 J^-1 grad alpha, as eq. (49)'s Htilde = H - h^2/24 alpha): order 4 on the"
        " pendulum; with + h^3/24 the order would be 2 (orders: printed, other sign)", fk_orders, "(4, 2)",
        fk_orders == (4, 2), "Sec. 4.3, eqs. (48)-(49)"))
    trap = dels["trapezoidal"]
    not_symplectic = gc.certify_symplectic(trap.step_map, dqdp)
    derivations.append(not_symplectic.derivation)
    checks.append(check_true(
        "trapezoidal rule does NOT preserve dq ^ dp (eqs. (59)-(73)): the certificate phi^* (dq ^ dp) == dq ^ dp"
        " is refuted by a counterexample -- holds False is the expected outcome", not_symplectic.verdict(),
        "holds False", not_symplectic.holds is False, "Sec. 5: 'not simply w = dp^T ^ dq'"))
    w_h = trap.preserved_form
    expected_w = (1 + h**2 / 4 * sympy.cos(q)) * dqdp
    checks.append(check_true(
        "trapezoidal: the preserved form is w_h = (1 + h^2/4 V''(q)) dq ^ dp, i.e. the paper's"
        " -dp ^ (1 + h^2/4 V_qq) dq (eqs. (64)-(65), V = -cos q)",
        str(w_h), str(expected_w), (w_h - expected_w).is_zero(), "Sec. 5.1, eqs. (64)-(65), (72)-(73)"))
    conjugacy_checks, conjugacy_certificates = trapezoidal_conjugacy(prm.bseries_order, dqdp, w_h)
    checks += conjugacy_checks
    certificates += conjugacy_certificates
    return certificates, derivations, checks


def trapezoidal_conjugacy(order: int, dqdp, w_h) -> tuple:
    """The trapezoidal rule as ``psi o midpoint o psi^-1`` (``psi``: implicit Euler half step), for every f.

    Returns ``(checks, certificates)``: the B-series identity up to ``order``; the certificate that
    the trapezoidal rule is conjugate to a symplectic method up to ``order``; and the check that
    ``(psi^-1)^* (dq ^ dp)`` is Guo's ``w_h`` on the pendulum (``psi^-1(q, p) = (q - h/2 H_p,
    p + h/2 H_q)``).
    """
    half = sympy.Rational(1, 2)
    implicit_euler = bs.scaled(bs.runge_kutta([[1]], [1], order=order), half)
    midpoint = bs.runge_kutta([[half]], [1], order=order, name="implicit midpoint")
    trapezoidal = bs.runge_kutta([[0, 0], [half, half]], [half, half], order=order, name="trapezoidal rule")
    conjugated = bs.compose(bs.compose(bs.inverse(implicit_euler), midpoint), implicit_euler)
    checks = [check_true(
        f"trapezoidal rule = psi o midpoint o psi^-1 with psi the implicit Euler half step: equal B-series up to"
        f" order {order} (every tree with at most {order} vertices, exact)", conjugated == trapezoidal, True,
        conjugated == trapezoidal, "Sec. 5 (the trapezoidal rule's preserved form, read for every f)")]
    certificates = [(f"trapezoidal rule: conjugate to a symplectic method up to order {order} (B-series, every f)",
                     bs.is_conjugate_symplectic(trapezoidal, order))]
    H, q, p, h = pendulum_hamiltonian()
    chart = w_h.chart
    back = gc.Map(chart, chart, [q - h / 2 * sympy.diff(H, p), p + h / 2 * sympy.diff(H, q)])
    pulled = gc.pullback(dqdp, back)
    checks.append(check_true(
        "the preserved form is the conjugacy's: (psi^-1)^* (dq ^ dp) = w_h with psi^-1(y) = y - h/2 f(y) (pendulum)",
        str(pulled), str(w_h), (pulled - w_h).is_zero(), "Sec. 5.1, eqs. (64)-(65)"))
    return checks, certificates


def simulations(prm: Parameters, dels: dict) -> dict:
    """The runs of the four schemes (``dels``: :func:`scheme_dels` of the pendulum) on the pendulum.

    Returns ``{"catalog": {name: max difference of one step from the catalog's map},
    "defects": {name: {form: Jacobian defect}}, "orders": {name: (errors, orders)},
    "energy": {name: (saved times, |H(z_n) - H(z_0)|)}}``.
    """
    H, q, p, h = pendulum_hamiltonian()
    system = ig.HamiltonianSystem(H, q, p)
    catalog = {name: same_map(dels[name].step_map, ig.scheme(cat).step_map(system), prm.h, prm.catalog_points,
                              prm.dps)
               for name, (_, _, cat) in SCHEMES.items() if cat is not None}

    # the high-precision run: symplecticity defects of the exact step Jacobians
    chart = dels["mid-point"].step_map.source
    forms = {"dq^dp": chart.d(q) ^ chart.d(p), "w_h": dels["trapezoidal"].preserved_form}
    z0 = [[prm.q0, prm.p0], [0.5, 1.0]]
    defects = {name: step_jacobian_defects(S, prm.h, z0, prm.mp_steps, forms, prm.dps) for name, S in dels.items()}

    y0 = np.array([[prm.q0, prm.p0]])
    ref = _reference(H, q, p, y0, prm.order_time, prm.order_steps[-1])   # Gauss-Legendre-8: error ~1e-14
    orders = {name: observed_orders(S, y0, prm.order_time, prm.order_steps, ref) for name, S in dels.items()}

    # long run: energy errors at the saved states
    energy_at = expressions_on_states([H], [q, p], what="the energy")
    energy = {}
    for name, S in dels.items():
        Y = _run_numpy(S.step_map, y0, prm.h, prm.steps, prm.save_every)[:, 0, :]
        E = energy_at(Y)[0]
        t = np.arange(len(E)) * prm.save_every * prm.h
        t[-1] = prm.steps * prm.h
        energy[name] = (t, np.abs(E - E[0]))
    return {"catalog": catalog, "defects": defects, "orders": orders, "energy": energy}


def checks(prm: Parameters, sims: dict) -> list:
    """The verdicts on the runs of :func:`simulations`."""
    out = []
    for name, diff in sims["catalog"].items():
        out.append(check_below(
            f"the catalog's {SCHEMES[name][2]} is the paper's {name} map (max difference of one step at"
            f" {prm.catalog_points} random states, {prm.dps} digits)", diff, 10.0 ** (8 - prm.dps),
            SCHEMES[name][1]))
    tol = 10.0 ** (10 - prm.dps)
    for name, defect in sims["defects"].items():
        preserved = "w_h" if name == "trapezoidal" else "dq^dp"
        out.append(check_below(
            f"{name}: defect |(D Phi)^T W D Phi - W| of {prm.mp_steps} steps for the preserved {preserved}"
            f" (exact Jacobian, mpmath {prm.dps} digits)", defect[preserved], tol, SCHEMES[name][1]))
    trap_defect = sims["defects"]["trapezoidal"]["dq^dp"]
    out.append(check_true(
        f"trapezoidal: the defect for dq ^ dp is of size h^2 (not rounding): > h^2/100 = {prm.h**2 / 100:g}",
        float(trap_defect), f"> {prm.h**2 / 100:g}", float(trap_defect) > prm.h**2 / 100, "Sec. 5"))
    for (name, (_, orders)), k in zip(sims["orders"].items(), prm.orders):
        out.append(check_close(
            f"{name}: observed order at the two smallest steps (errors at t = {prm.order_time:g})", orders[-1], k,
            0.1, SCHEMES[name][1]))
    for name, (_, err) in sims["energy"].items():
        half = len(err) // 2
        out.append(check_below(
            f"{name}: energy error bounded over t <= {prm.steps * prm.h:g} (max over the second half / max over"
            " the first half)", err[half:].max() / err[1:half].max(), 1.5, SCHEMES[name][1]))
    return out


def run(profile="quick", out=".") -> CaseResult:
    """Certify the DEL identities and the preserved forms; run the four schemes; see the module docstring."""
    t_start = time.perf_counter()
    prm = Parameters.paper() if profile == "paper" else Parameters.quick()
    res = CaseResult(NAME, TITLE, SOURCE, profile, prm)
    H, _, _, _ = pendulum_hamiltonian()
    dels = scheme_dels(H)
    res.certificates, res.derivations, symbolic_checks = certify(prm, dels)
    sims = simulations(prm, dels)
    res.checks = symbolic_checks + checks(prm, sims)
    order_errors = {name: errors for name, (errors, _) in sims["orders"].items()}
    res.figures = _figures(prm, sims["energy"], order_errors, out)
    res.findings = list(FINDINGS)
    res.notes = [
        "The paper has no numerical experiment; the pendulum runs and their parameters are ours.",
        "Our text of the paper is a converted (OCR) copy without title, byline or journal line; the reference is"
        " that of the arXiv version's journal header. Unreadable in our copy: eqs. (37), (42)-(44), (62)-(63)"
        " and the coefficients of eq. (55) (the two-stage Gauss tableau is"
        " geomcheck.certify.families.gauss_legendre(2)); our copy misnumbers eqs. (3), (42), (48), (71) as"
        " (2), (19), (8), (T1) and prints no number at eqs. (7), (13), (14), (18), (24), (36), (51), (64).",
        "Trapezoidal: the paper's w_h = dp ^ (1 + h^2/4 V_qq) dq equals -(1 + h^2/4 V_qq) dq ^ dp: the same"
        " preserved form up to orientation.",
        "Observed orders: " + "; ".join(f"{n}: errors {', '.join(f'{e:.2e}' for e in v)}"
                                        for n, v in order_errors.items()),
        "Energy errors (max): " + ", ".join(f"{n} {e.max():.2e}" for n, (_, e) in sims["energy"].items()),
        "Jacobian defects (mpmath): " + "; ".join(
            f"{n}: dq^dp {float(d['dq^dp']):.1e}, w_h {float(d['w_h']):.1e}" for n, d in sims["defects"].items()),
    ]
    res.seconds = time.perf_counter() - t_start
    return res
