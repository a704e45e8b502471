"""Benchmark: symplecticity of the beam + two-mass system (Terakawa & Yaguchi 2022, Section 6).

The semi-discretized simply supported beam (N_x - 1 nodes, ghost nodes) coupled at node n_b
to a two-mass spring; 2 N_x + 2 coordinates (104 at the paper's N_x = 51).  The claim: L_X w
is NOT zero on the full phase space, but vanishes on the invariant submanifold
{v_nb/(rho A) = p1/m1, u_nb - q1 = C}.

Methods, side by side in the same run:

(a) engine   geomcheck.structures.beam_symplecticity: build the system, L_X w by the
             component formula AND by Cartan's formula, the full-space certificate (with its
             counterexample), invariance of the submanifold, the pullback of L_X w to it, the
             energy identity -- the whole computation, every claim through the zero tester.
(b) plain    sympy matrices for the same system, written directly: X from the gradients,
             DX = X.jacobian(coords) (dense), R = DX^T W + W DX, every entry expanded (full
             space); then P^T R|_S P with P the Jacobian of the submanifold's parametrization,
             expanded (restriction).  Less work than (a): no Cartan check, no invariance, no
             energy.

A second table does Lemma 6 for generic subsystems (undefined H_i, interactions f_i of all
coordinates, blocks of size k): (a) engine coupled_lie_derivative (direct, Cartan, the closed
form and the paper's printed form compared) against (b) plain matrices (R compared entry by
entry with the matrix of sum dq_i ^ df_i).

Run ``python benchmarks/bench_coupled_beam.py --help`` for the options.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Make ``import geomcheck`` work from a source checkout without installing.
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sympy as sp  # noqa: E402

import _util as U  # noqa: E402

NXS = [11, 21, 51, 101, 201]
QUICK_NXS = [11, 21]
KS = [1, 2, 4, 8]
QUICK_KS = [1, 2]
PAPER_NX = 51
GOAL_SECONDS = 2.0          # the whole Section 6 computation at N_x = 51
ENGINE_NAMES = ("Chart", "lie")

R = sp.Rational
RHO, A, E, I, M1, M2, K = sp.Integer(10), sp.Integer(1), sp.Integer(1), sp.Integer(1), R(1, 10), R(1, 10), R(1, 2)


def n_b_for(n_x: int) -> int:
    """The coupling node at x = 0.2 (n_b = 10 at N_x = 51)."""
    return max(1, round((n_x - 1) / 5))


# --------------------------------------------------------------------------- (a) engine


def engine_beam(n_x):
    from geomcheck.structures import beam_symplecticity

    r = beam_symplecticity(n_x, n_b_for(n_x))
    verdict = (r.full_space.holds, r.on_submanifold.holds)
    return verdict, {"all": (r.full_space.holds, r.lemma.cartan_check.holds, r.invariance.holds,
                             r.on_submanifold.holds, r.energy.holds)}


def engine_lemma6(k):
    from geomcheck.structures import coupled_lie_derivative, generic_coupled_system

    r = coupled_lie_derivative(generic_coupled_system((k, k)))
    return (r.cartan_check.holds, r.closed_form_check.holds, r.printed_check.holds), {}


# --------------------------------------------------------------------------- (b) plain matrices


def plain_beam(n_x):
    """The same system written with plain sympy matrices; returns (full zero?, restricted zero?)."""
    n_b = n_b_for(n_x)
    dx = R(1, n_x - 1)
    u = sp.symbols(f"u1:{n_x}")
    v = sp.symbols(f"v1:{n_x}")
    q1, q2, p1, p2, C = sp.symbols("q1 q2 p1 p2 C")

    def U_(i):
        if i in (0, n_x):
            return 0
        if i == -1:
            return -u[0]
        if i == n_x + 1:
            return -u[n_x - 2]
        return u[i - 1]

    d2 = lambda i: (U_(i + 1) - 2 * U_(i) + U_(i - 1)) / dx**2  # noqa: E731
    d4 = lambda i: (U_(i + 2) - 4 * U_(i + 1) + 6 * U_(i) - 4 * U_(i - 1) + U_(i - 2)) / dx**4  # noqa: E731
    H_el = sum((v[i - 1] ** 2 / (RHO * A) + E * I * d2(i) ** 2) * dx / 2 for i in range(1, n_x))
    H_sp = p1**2 / (2 * M1) + p2**2 / (2 * M2) + K / 2 * (q2 - q1) ** 2
    f = RHO * A * dx * M1 / (RHO * A * dx + M1) * (E * I / (RHO * A) * d4(n_b) + K / M1 * (q2 - q1))
    coords = list(u) + list(v) + [q1, q2, p1, p2]
    n = n_x - 1
    N = len(coords)
    X = sp.zeros(N, 1)
    for i in range(n):
        X[i] = H_el.diff(v[i]) / dx
        X[n + i] = -H_el.diff(u[i]) / dx + (f / dx if i == n_b - 1 else 0)
    X[2 * n], X[2 * n + 1] = H_sp.diff(p1), H_sp.diff(p2)
    X[2 * n + 2], X[2 * n + 3] = -H_sp.diff(q1) - f, -H_sp.diff(q2)
    W = sp.zeros(N, N)
    for i in range(n):
        W[i, n + i], W[n + i, i] = dx, -dx
    for a in range(2):
        W[2 * n + a, 2 * n + 2 + a], W[2 * n + 2 + a, 2 * n + a] = 1, -1
    DX = X.jacobian(coords)
    Rm = (DX.T * W + W * DX).applyfunc(sp.expand)
    full_zero = all(e == 0 for e in Rm)
    # the submanifold: v_nb = rho A p1/m1, u_nb = q1 + C, parametrized by the other coordinates
    j = n_b - 1
    free = [c for c in coords if c not in (v[j], u[j])]
    param = {v[j]: RHO * A * p1 / M1, u[j]: q1 + C}
    P = sp.Matrix([[sp.diff(param.get(c, c), y) for y in free] for c in coords])
    RS = (P.T * Rm.subs(param) * P).applyfunc(sp.expand)
    restricted_zero = all(e == 0 for e in RS)
    return (full_zero, restricted_zero), {}


def plain_lemma6(k):
    qs = [sp.symbols(f"q{i}_1:{k + 1}") for i in (1, 2)]
    ps = [sp.symbols(f"p{i}_1:{k + 1}") for i in (1, 2)]
    coords = [x for q, p in zip(qs, ps) for x in q + p]
    N = len(coords)
    X = sp.zeros(N, 1)
    W = sp.zeros(N, N)
    Cm = sp.zeros(N, N)
    pos = 0
    for i, (q, p) in enumerate(zip(qs, ps)):
        H = sp.Function(f"H{i + 1}")(*q, *p)
        for a in range(k):
            f = sp.Function(f"f{i + 1}_{a + 1}")(*coords)
            iq, ip = pos + a, pos + k + a
            X[iq] = H.diff(p[a])
            X[ip] = -H.diff(q[a]) + f
            W[iq, ip], W[ip, iq] = 1, -1
            for jx, x in enumerate(coords):      # the matrix of dq_a ^ df_a
                Cm[iq, jx] += f.diff(x)
                Cm[jx, iq] -= f.diff(x)
        pos += 2 * k
    DX = X.jacobian(coords)
    Rm = DX.T * W + W * DX
    direct_is_closed_form = all(sp.expand(e) == 0 for e in (Rm - Cm))
    printed_matches = all(sp.expand(e) == 0 for e in (Rm + Cm))
    return (None, direct_is_closed_form, printed_matches), {}


# --------------------------------------------------------------------------- driver


def main(argv=None) -> int:
    ap = U.base_parser(__doc__.split("\n")[1])
    ap.add_argument("--nxs", type=U.int_list, default=None,
                    help=f"beam resolutions N_x (default {NXS}; --quick {QUICK_NXS})")
    ap.add_argument("--ks", type=U.int_list, default=None,
                    help=f"generic Lemma 6 block sizes (default {KS}; --quick {QUICK_KS})")
    ap.add_argument("--cap", type=float, default=300.0, help="hard time cap per cell (s)")
    args = ap.parse_args(argv)
    nxs = args.nxs or (QUICK_NXS if args.quick else NXS)
    ks = args.ks or (QUICK_KS if args.quick else KS)
    cap = min(args.cap, 60.0) if args.quick else args.cap

    U.print_header("bench_coupled_beam: L_X w of the beam + two masses, full space and submanifold", args)
    gc = U.load_engine(args, ENGINE_NAMES)

    goals = []
    wrong = []
    t = U.Table("Section 6: L_X w != 0 on the full space, == 0 on the submanifold",
                ["N_x", "coords", "engine s (whole)", "plain-matrix s", "ratio", "peak RSS engine / plain",
                 "verdicts e / p"])
    paper = None
    plain_stopped = None
    for n_x in nxs:
        e = U.run_cell(engine_beam, n_x, cap=cap, repeats=args.repeats) if gc else None
        pm = None
        if plain_stopped is None:
            pm = U.run_cell(plain_beam, n_x, cap=cap, repeats=args.repeats)
            if not pm.ok:
                plain_stopped = n_x
        if n_x == PAPER_NX:
            paper = e
        cells = []
        for name, r in (("engine", e), ("plain", pm)):
            if r is None:
                cells.append("-")
            elif not r.ok:
                cells.append(r.status)
                t.notes.append(f"{name} at N_x = {n_x}: {r.message}")
            elif tuple(r.value) == (False, True):
                cells.append("ok")
            else:
                cells.append(f"WRONG {r.value}")
                wrong.append((name, n_x))
        if e is not None and e.ok and e.extra.get("all") != (False, True, True, True, True):
            wrong.append(("engine (all certificates)", n_x))
        t.add(n_x, 2 * n_x + 2, U.fmt_s(e.seconds, e.status) if e else "n/a",
              U.fmt_s(pm.seconds, pm.status) if pm else "skipped",
              U.fmt_ratio(e.seconds if e and e.ok else None, pm.seconds if pm and pm.ok else None),
              f"{U.fmt_mb(e.peak_rss) if e else '-'} / {U.fmt_mb(pm.peak_rss) if pm else '-'}",
              " / ".join(cells))
    if plain_stopped is not None:
        t.notes.append(f"plain matrices stopped at N_x = {plain_stopped}; larger sizes skipped")
    t.notes.append("engine: build + component formula + Cartan + full-space certificate + invariance + "
                   "pullback to the submanifold + energy identity; plain: full-space R and P^T R P only")
    t.notes.append("'ok' = the expected verdicts (full space: not zero; submanifold: zero)")
    t.show(args.markdown)

    g = U.Table("Lemma 6, generic H_i(q_i, p_i), interactions f_i of all coordinates, two blocks of size k",
                ["k", "coords", "engine s", "plain-matrix s", "ratio", "engine: Cartan / closed / printed",
                 "plain: closed / printed"])
    for k in ks:
        e = U.run_cell(engine_lemma6, k, cap=cap, repeats=args.repeats) if gc else None
        pm = U.run_cell(plain_lemma6, k, cap=cap, repeats=args.repeats)
        if e is not None and e.ok and tuple(e.value) != (True, True, False):
            wrong.append(("engine lemma 6", k))
        if pm.ok and tuple(pm.value)[1:] != (True, False):
            wrong.append(("plain lemma 6", k))
        g.add(k, 4 * k, U.fmt_s(e.seconds, e.status) if e else "n/a", U.fmt_s(pm.seconds, pm.status),
              U.fmt_ratio(e.seconds if e and e.ok else None, pm.seconds if pm.ok else None),
              "/".join(str(x) for x in e.value) if e and e.ok else (e.status if e else "-"),
              "/".join(str(x) for x in pm.value[1:]) if pm.ok else pm.status)
    g.notes.append("expected: closed form sum dq_i ^ df_i agrees (True), the paper's printed "
                   "sum df_i ^ dq_i does not (False): a sign misprint")
    g.show(args.markdown)

    print("goals:", flush=True)
    if gc is not None and PAPER_NX in nxs:
        goals.append(U.goal(f"whole Section 6 computation at N_x = {PAPER_NX} (104 coordinates)",
                            paper.seconds if paper is not None and paper.ok else None, GOAL_SECONDS, " s"))
    goals.append(("PASS" if not wrong else "MISS",
                  f"[{'PASS' if not wrong else 'MISS'}] every completed method gave the expected verdicts"
                  + (f" (not: {wrong})" if wrong else "")))
    for _, line in goals:
        print("  " + line, flush=True)
    print("  timings are noisy: 2 cores shared with other jobs; compare ratios, not absolute times", flush=True)
    if args.profile and gc is not None:
        print(f"\ncProfile of the engine at N_x = {max(nxs)}:", flush=True)
        print(U.run_profile(engine_beam, max(nxs)), flush=True)
    return 1 if any(v == "MISS" for v, _ in goals) else 0


if __name__ == "__main__":
    sys.exit(main())
