r"""Guo, Li & Wu 2001: the DEL analysis of four symplectic(-like) schemes, certified and run on a pendulum.

For a one-step scheme ``z -> Z`` on ``(q, p)`` the paper pairs the scheme's equations with
differentials into discrete Euler-Lagrange (DEL) one-forms ``E`` on the *function space* (the
values at t_n, t_{n+1} and the stages are independent coordinates) and shows

.. math::  \mathrm d E = \omega^{(n+1)} - \omega^{(n)},

so the DEL condition ``dE = 0`` (true on solutions, where the coefficients of E vanish) is the
preservation of ``omega``.  :mod:`geomcheck.structures.del_forms` builds E and the two-forms; here,
for ``H = p^2/2 - cos q`` (and for a generic ``H(q, p)``), each identity and each preserved two-form
is certified, and the very step maps that are certified are lowered by :func:`integrators.lower.lower`
and run:

=============================  ==========  =========================================
scheme (paper's equations)     order       preserved two-form
=============================  ==========  =========================================
mid-point (32-47)              2           ``dq ^ dp``
Feng Kang fourth order (48-52) 4           ``dq ^ dp``
two-stage Gauss (53-58)        4           ``dq ^ dp``
trapezoidal (59-73)            2           ``w_h = (1 + h^2/4 V''(q)) dq ^ dp``, NOT ``dq ^ dp``
=============================  ==========  =========================================

(The paper writes ``w_h = dp ^ (1 + h^2/4 V_qq) dq``: the same form up to orientation.)  Numerically:
the symplecticity defect of each step's exact Jacobian (implicit function theorem, evaluated in mpmath
at 50 digits) for ``dq ^ dp`` and ``w_h``; the observed orders against a Gauss-Legendre-8 reference;
the energy error over a long run.  The catalog's ``implicit-midpoint``, ``trapezoidal`` and
``gauss-legendre-4`` are checked to be the same maps as the paper's (random states, 50 digits).

The misprints of the OCR'd text we have are documented (with their tests) in
:mod:`geomcheck.structures.del_forms`; :func:`run` lists them.

Measured (this shared 2-core machine): quick profile 9 s; paper profile (h = 0.1 to t = 5000,
5 x 10^4 steps per scheme, five step sizes for the orders) 127 s.  Observed orders 2.000, 2.000,
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
from geomcheck.structures import (certify_del_condition, certify_del_identity, certify_feng_kang_coboundary,
                                  certify_scheme_del, certify_scheme_map, discrete_lagrangian_forms, feng_kang_del,
                                  gauss2_del, midpoint_del, trapezoidal_del)

from ._core import CaseResult, check_below, check_close, check_true

__all__ = ["NAME", "TITLE", "SOURCE", "Parameters", "run", "pendulum_hamiltonian", "scheme_dels",
           "step_jacobian_defects", "observed_orders", "same_map", "SCHEMES"]

NAME = "guo-del-schemes"
TITLE = "DEL one-forms of the mid-point, Feng Kang, Gauss and trapezoidal schemes"
SOURCE = ("Guo H.-Y., Li Y.-Q., Wu K., On symplectic and multisymplectic structures and their discrete versions"
          " in Lagrangian formalism, Commun. Theor. Phys. 36 (2001) 11-18; Sections 3-5, eqs. 21-73")

#: scheme name -> (builder in del_forms, the paper's equations, the catalog scheme that is the same map)
SCHEMES = {
    "mid-point": (midpoint_del, "eqs. 32-47", "implicit-midpoint"),
    "trapezoidal": (trapezoidal_del, "eqs. 59-73", "trapezoidal"),
    "Feng Kang": (feng_kang_del, "eqs. 48-52", None),
    "Gauss (2 stages)": (gauss2_del, "eqs. 53-58", "gauss-legendre-4"),
}

_TESTS = "tests/geomcheck/structures/test_del_forms.py"


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

    @classmethod
    def quick(cls) -> "Parameters":
        """Seconds: 1000 steps of h = 0.1 (t = 100)."""
        return cls()

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

    ``D Phi`` is the exact Jacobian of ``steps`` steps: per step, the derivatives of the new values
    by the implicit function theorem (``ImplicitMap.dependence``, symbolic) evaluated at the solved
    step (new values and stages by the lowered map's own Newton solve, at ``dps`` digits).

    Returns ``{label: worst max-norm defect}`` over the states of a batch ``z0`` (rows ``(q, p)``).
    """
    from integrators.lower import lower
    from integrators.newton import newton_mpmath

    phi = S.step_map
    coords = list(phi.source.coords)
    n = len(coords)
    hq = sympy.nsimplify(h)
    L = lower(phi, backend="mpmath")
    bound = L.bind({phi.step: hq}, dps=dps)
    deps = phi.dependence.derivatives
    exprs = [deps[u].get(j, sympy.S.Zero) for u in phi.new for j in range(n)]
    # sympy's own mpmath printer here: integrators.lower prints x / (a*b)**2 wrongly (see the report)
    jac = sympy.lambdify(coords + list(phi.unknowns) + [phi.step], exprs, modules="mpmath")
    mats = {label: sympy.lambdify(coords + [phi.step], [c for row in _form_matrix(w, coords) for c in row],
                                  modules="mpmath")
            for label, w in forms.items()}
    worst = {label: mpmath.mpf(0) for label in forms}
    with mpmath.workdps(dps):
        hv = mpmath.mpf(hq.p) / hq.q

        def matrix(label, z):
            vals = mats[label](*z, hv)
            return mpmath.matrix([[mpmath.mpf(vals[i * n + j]) for j in range(n)] for i in range(n)])

        for z in _mpf_rows(z0, dps):
            start = list(z)
            total = mpmath.eye(n)
            for _ in range(steps):
                u = newton_mpmath(L, bound.S, z, dps=dps)
                new = L.update.kernel(bound.S["update"], *z, *u)
                values = dict(zip(L.unknowns, u))
                values.update(zip(phi.new, new))
                d = jac(*z, *[values[v] for v in phi.unknowns], hv)
                step_jac = mpmath.matrix([[mpmath.mpf(d[i * n + j]) for j in range(n)] for i in range(n)])
                total = step_jac * total
                z = [mpmath.mpf(c) for c in new]
            for label in forms:
                defect = total.T * matrix(label, z) * total - matrix(label, start)
                worst[label] = max(worst[label], max(abs(defect[i, j]) for i in range(n) for j in range(n)))
    return worst


def same_map(phi, psi, h, points, dps=50, seed=0):
    """Max difference of two step maps (on the same chart) at random states, in mpmath at ``dps`` digits."""
    from integrators.lower import lower

    rng = np.random.default_rng(seed)
    Y = _mpf_rows(rng.uniform(-1.5, 1.5, size=(points, phi.source.dim)), dps)
    hq = sympy.nsimplify(h)
    with mpmath.workdps(dps):
        a = lower(phi, backend="mpmath").bind({phi.step: hq}, dps=dps).step_array(Y)
        b = lower(psi, backend="mpmath").bind({psi.step: hq}, dps=dps).step_array(Y)
        return max(abs(a[i, j] - b[i, j]) for i in range(points) for j in range(phi.source.dim))


def _run_numpy(phi, y0, h, steps, save_every=1):
    from integrators.lower import lower

    step = lower(phi).bind({phi.step: h})
    Y = np.array(y0, dtype=float)
    out = [Y.copy()]
    for k in range(1, steps + 1):
        Y = step.step_array(Y)
        if k % save_every == 0 or k == steps:
            out.append(Y.copy())
    return np.array(out)


def _reference(H, q, p, y0, T, h):
    import integrators as ig

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


def run(profile="quick", out=".") -> CaseResult:
    """Certify the DEL identities and the preserved forms; run the four schemes; see the module docstring."""
    t_start = time.perf_counter()
    prm = Parameters.paper() if profile == "paper" else Parameters.quick()
    res = CaseResult(NAME, TITLE, SOURCE, profile, prm)
    H, q, p, h = pendulum_hamiltonian()
    dels = scheme_dels(H)
    generic = scheme_dels(None)

    # Section 3: the discrete Lagrangian of the separable mid-point scheme (eqs. 35-38)
    V = sympy.Function("V")
    F = discrete_lagrangian_forms(lambda x, v: v**2 / 2 - V(x + h * v / 2), step=h, difference=True)
    res.certificates.append(("separable mid-point, L_D = q_t^2/2 - V(q + h q_t/2): dL = E + Delta_t theta"
                             " (eq. 22)", certify_del_identity(F)))
    res.certificates.append(("separable mid-point: Delta_t omega = -dE on function space (eqs. 26-27, 35-38)",
                             certify_del_condition(F)))

    # Sections 4-5: each scheme's DEL condition and preserved form
    chart = gc.Chart([q, p])
    dqdp = chart.d(q) ^ chart.d(p)
    X = gc.hamiltonian_vector_field(H, dqdp)
    for (name, (_, eqs, _)), k in zip(SCHEMES.items(), prm.orders):
        S, G = dels[name], generic[name]
        res.certificates.append((f"{name} ({eqs}), generic H(q, p): dE = omega^(n+1) - omega^(n) on function space",
                                 certify_scheme_del(G)))
        res.certificates.append((f"{name}, pendulum: dE = omega^(n+1) - omega^(n) on function space",
                                 certify_scheme_del(S)))
        res.certificates.append((f"{name}, pendulum: the step map preserves {S.preserved_form}",
                                 certify_scheme_map(S)))
        res.certificates.append((f"{name}, pendulum: order {k}", gc.certify_order(S.step_map, X, h, k)))
        res.derivations.append(G.derivation)
    res.certificates.append(("Feng Kang: E_FK - E_mid = h^3/24 d alpha(zbar), generic H (eq. 52)",
                             certify_feng_kang_coboundary(None, q, p, h)))
    trap = dels["trapezoidal"]
    not_symplectic = gc.certify_symplectic(trap.step_map, dqdp)
    res.derivations.append(not_symplectic.derivation)
    res.checks.append(check_true(
        "trapezoidal rule does NOT preserve dq ^ dp (eqs. 59-73): the certificate phi^* (dq ^ dp) == dq ^ dp is"
        " refuted by a counterexample -- holds False is the expected outcome", not_symplectic.verdict(),
        "holds False", not_symplectic.holds is False, "Sec. 5, eqs. 64-67"))
    w_h = trap.preserved_form
    expected_w = (1 + h**2 / 4 * sympy.cos(q)) * dqdp
    res.checks.append(check_true(
        "trapezoidal: the preserved form is w_h = (1 + h^2/4 V''(q)) dq ^ dp (eq. 67, V = -cos q)",
        str(w_h), str(expected_w), (w_h - expected_w).is_zero(), "Sec. 5, eqs. 67, 71-73"))

    # the catalog's maps are the paper's maps
    import integrators as ig

    system = ig.HamiltonianSystem(H, q, p)
    for name, (_, _, cat) in SCHEMES.items():
        if cat is None:
            continue
        diff = same_map(dels[name].step_map, ig.scheme(cat).step_map(system), prm.h, prm.catalog_points, prm.dps)
        res.checks.append(check_below(
            f"the catalog's {cat} is the paper's {name} map (max difference of one step at"
            f" {prm.catalog_points} random states, {prm.dps} digits)", diff, 10.0 ** (8 - prm.dps),
            SCHEMES[name][1]))

    # the high-precision run: symplecticity defects of the exact step Jacobians
    z0 = [[prm.q0, prm.p0], [0.5, 1.0]]
    forms = {"dq^dp": dqdp, "w_h": w_h}
    tol = 10.0 ** (10 - prm.dps)
    defects = {}
    for name, S in dels.items():
        defects[name] = step_jacobian_defects(S, prm.h, z0, prm.mp_steps, forms, prm.dps)
        preserved = "w_h" if name == "trapezoidal" else "dq^dp"
        res.checks.append(check_below(
            f"{name}: defect |(D Phi)^T W D Phi - W| of {prm.mp_steps} steps for the preserved {preserved}"
            f" (exact Jacobian, mpmath {prm.dps} digits)", defects[name][preserved], tol, SCHEMES[name][1]))
    trap_defect = defects["trapezoidal"]["dq^dp"]
    res.checks.append(check_true(
        f"trapezoidal: the defect for dq ^ dp is of size h^2 (not rounding): > h^2/100 = {prm.h**2 / 100:g}",
        float(trap_defect), f"> {prm.h**2 / 100:g}", float(trap_defect) > prm.h**2 / 100, "Sec. 5"))

    # orders
    y0 = np.array([[prm.q0, prm.p0]])
    ref = _reference(H, q, p, y0, prm.order_time, prm.order_steps[-1])   # Gauss-Legendre-8: error ~1e-14
    order_data = {}
    for (name, S), k in zip(dels.items(), prm.orders):
        errors, orders = observed_orders(S, y0, prm.order_time, prm.order_steps, ref)
        order_data[name] = errors
        res.checks.append(check_close(
            f"{name}: observed order at the two smallest steps (errors at t = {prm.order_time:g})", orders[-1], k,
            0.1, SCHEMES[name][1]))

    # long run: energy errors
    energy = {}
    Hf = sympy.lambdify([q, p], H, "numpy")
    for name, S in dels.items():
        Y = _run_numpy(S.step_map, y0, prm.h, prm.steps, prm.save_every)[:, 0, :]
        err = np.abs(Hf(Y[:, 0], Y[:, 1]) - Hf(prm.q0, prm.p0))
        t = np.arange(len(err)) * prm.save_every * prm.h
        t[-1] = prm.steps * prm.h
        energy[name] = (t, err)
        half = len(err) // 2
        res.checks.append(check_below(
            f"{name}: energy error bounded over t <= {prm.steps * prm.h:g} (max over the second half / max over"
            " the first half)", err[half:].max() / err[1:half].max(), 1.5, SCHEMES[name][1]))

    res.figures = _figures(prm, energy, order_data, out)
    res.misprints = [
        ("eq. 41 (and 56, 69) as read: the pair dp^(n)T{...}, dq^(n)T{p^(n+1) - p^(n) + h H_q} with differentials"
         " at t_n and a + sign is not an identity d(E1 + E2) = Omega(Z) - Omega(z); the mid-point differentials"
         " of eq. 47 and the sign of eq. 12 make it one",
         f"{_TESTS}::test_printed_pair_41_with_differentials_at_tn_fails"),
        ("eq. 56 (Gauss) uses only the pair: on function space with free stages a stage one-form S is needed too",
         f"{_TESTS}::test_gauss_pair_without_stage_form_is_not_closed_correctly"),
        ("eq. 39 as read, dp^(n+1) ^ dq^(n+1) = (1 + h^2/4 V_qq) dq^(n+1) ^ dq^(n), lacks a factor 1/h",
         f"{_TESTS}::test_eq39_needs_the_factor_one_over_h"),
        ("eq. 48: the h^3/24 correction needs the minus sign of eq. 49 for order 4 (the other sign gives order 2)",
         f"{_TESTS}::test_feng_kang_sign_of_the_correction"),
    ]
    res.notes = [
        "The paper has no numerical experiment; the pendulum runs and their parameters are ours.",
        "Our text of the paper is an OCR copy: eqs. 37, 43-44, 62-63 and the coefficients of eq. 55 are unreadable"
        " (the two-stage Gauss tableau is geomcheck.certify.families.gauss_legendre(2)).",
        "Trapezoidal: the paper's w_h = dp ^ (1 + h^2/4 V_qq) dq equals -(1 + h^2/4 V_qq) dq ^ dp: the same"
        " preserved form up to orientation.",
        "Observed orders: " + "; ".join(f"{n}: errors {', '.join(f'{e:.2e}' for e in v)}"
                                        for n, v in order_data.items()),
        "Energy errors (max): " + ", ".join(f"{n} {e.max():.2e}" for n, (_, e) in energy.items()),
        "Jacobian defects (mpmath): " + "; ".join(
            f"{n}: dq^dp {float(d['dq^dp']):.1e}, w_h {float(d['w_h']):.1e}" for n, d in defects.items()),
    ]
    res.seconds = time.perf_counter() - t_start
    return res

