"""Benchmark: geomcheck's exact tableau checks side by side with NodePy (Ketcheson's ``nodepy``).

For every method of a list (geomcheck's families and published tableaux, and NodePy's own
``rk.loadRKM('All')`` set where geomcheck has no entry) one run prints, side by side:

order         geomcheck.certify.tableaux.order (exact tree conditions) | NodePy ``.order()``
              (floating point, tol 1e-14)
R(z)          geomcheck.certify.tableaux.stability_function (exact) | NodePy
              ``.stability_function()`` (sympy for exact entries): equal as rational functions?
A / L         geomcheck.certify.linear_stability.is_A_stable / is_L_stable (exact E-polynomial and
              Routh-Hurwitz) | NodePy has no A-stability test: its plot-free pieces are used,
              ``E_polynomial`` (numerical nonnegativity on the real line, at the real critical
              points) and the poles of its ``q`` (numpy roots, Re > 0); L: A and deg p < deg q
PEN           geomcheck.certify.error_coefficients.principal_error_norm (exact) | NodePy
              ``.principal_error_norm()`` (float): relative difference
alg.stab.     geomcheck.certify.algebraic_stability.is_algebraically_stable (exact) | NodePy
              ``.is_algebraically_stable()`` (eigenvalues, float)

and the time of each side.  Every disagreement is printed with a referee computed here with
plain sympy, independently of both packages: the stability function as a ratio of
determinants; A-stability from the exact E-polynomial (square-free factors of odd multiplicity
must have no real root) and the exact poles (CRootOf); algebraic stability from all principal
minors of ``M = BA + A^T B - b b^T`` and the signs of ``b``; the order from ``sum(b) - 1`` on
the stored weights and NodePy's own ``order(mode='exact')`` (sympy).

Measured (2026-11-26, 2 cores at load average 7-8, so times are provisional; the ratio is from
one run): 52 methods, geomcheck 7.4 s and NodePy 35.9 s in total (largest: PD8 15.8 s against
1.4 s, Crouzeix's cos(pi/18) SDIRK 3.2 s against 0.35 s).  Every method with exact entries
agrees on all six quantities (R(z) of the cos(pi/18) SDIRK: equal at sample points to 1e-12,
not identical by plain expansion, which does not reduce cos(pi/18)).  Differences, all explained:
(1) float entries (SSP22star, Tsit5, CMR6, PD8, SSP53/54/63/75/85/95): geomcheck leaves A-, L-
and algebraic stability undecided (no exact sign for floats) where NodePy answers False;
(2) CMR6: NodePy stores its weights as rationals whose sum is 1 + 4.4e-17 exactly, so the
exact order of the stored numbers is 0 while NodePy's 1e-14 tolerance gives 6 (the intended
method's order); (3) SSP53: both find order 0 (its stored weights sum to 1 + 3.2e-10); at order
0 geomcheck's norm is |sum(b) - 1| = 3.2e-10 and NodePy's principal_error_norm returns 1.80.

Run ``python benchmarks/bench_nodepy.py`` (``--quick``: the first few methods).  Without nodepy
installed the script prints "nodepy not installed" and geomcheck's column only.
"""

from __future__ import annotations

import os
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import _util as U


def _nodepy():
    try:
        from nodepy import rk
    except Exception as exc:          # ImportError, or an incompatible numpy/sympy
        return None, f"{type(exc).__name__}: {exc}"
    return rk, None


# --------------------------------------------------------------------------- the methods


def our_methods():
    """(label, tableau factory, NodePy key or None): geomcheck's families and published tableaux."""
    import sympy
    from sympy import Rational as R

    from geomcheck.certify import families as F
    from geomcheck.certify.tableaux import ButcherTableau

    s3 = sympy.sqrt(3)
    g = (3 + s3) / 6                                     # Crouzeix's SDIRK, order 3 (HW II, IV.6)
    gamma = R(1, 2) + sympy.cos(sympy.pi / 18) / s3      # Crouzeix's SDIRK, 3 stages, order 4
    delta = 1 / (6 * (2 * gamma - 1) ** 2)
    return [
        ("explicit Euler", F.explicit_euler, "FE"),
        ("implicit Euler", F.implicit_euler, "BE"),
        ("implicit midpoint", F.implicit_midpoint, None),
        ("Heun (order 2)", lambda: ButcherTableau([[0, 0], [1, 0]], [R(1, 2), R(1, 2)], name="Heun"), "Heun22"),
        ("Heun (order 3)", lambda: ButcherTableau([[0, 0, 0], [R(1, 3), 0, 0], [0, R(2, 3), 0]],
                                                  [R(1, 4), 0, R(3, 4)], name="Heun 3"), "Heun33"),
        ("RK4", F.classical_rk4, "RK44"),
        ("3/8 rule", lambda: ButcherTableau([[0, 0, 0, 0], [R(1, 3), 0, 0, 0], [R(-1, 3), 1, 0, 0], [1, -1, 1, 0]],
                                            [R(1, 8), R(3, 8), R(3, 8), R(1, 8)], name="3/8 rule"), None),
        ("Gauss s=2", lambda: F.gauss_legendre(2), "GL2"),
        ("Gauss s=3", lambda: F.gauss_legendre(3), "GL3"),
        ("Radau IIA s=2", lambda: F.radau_iia(2), "RadauIIA2"),
        ("Radau IIA s=3", lambda: F.radau_iia(3), "RadauIIA3"),
        ("Lobatto IIIA s=2", lambda: F.lobatto_iiia(2), "LobattoIIIA2"),
        ("Lobatto IIIA s=3", lambda: F.lobatto_iiia(3), "LobattoIIIA3"),
        ("Lobatto IIIC s=2", lambda: F.lobatto_iiic(2), "LobattoIIIC2"),
        ("Lobatto IIIC s=3", lambda: F.lobatto_iiic(3), "LobattoIIIC3"),
        ("Lobatto IIIC s=4", lambda: F.lobatto_iiic(4), "LobattoIIIC4"),
        ("SDIRK 2 stages, order 3", lambda: ButcherTableau([[g, 0], [1 - 2 * g, g]], [R(1, 2), R(1, 2)],
                                                           name="SDIRK2(3)"), "SDIRK23"),
        ("SDIRK 3 stages, order 4", lambda: ButcherTableau(
            [[gamma, 0, 0], [R(1, 2) - gamma, gamma, 0], [2 * gamma, 1 - 4 * gamma, gamma]],
            [delta, 1 - 2 * delta, delta], name="SDIRK3(4)"), "SDIRK34"),
        ("Kahan (RK form)", lambda: ButcherTableau([[0, 0, 0], [R(-1, 4), 1, R(-1, 4)], [R(-1, 2), 2, R(-1, 2)]],
                                                   [R(-1, 2), 2, R(-1, 2)], name="Kahan"), None),
    ]


def _entry(x):
    """A NodePy entry as a sympy number (exact) or a Python float."""
    import numpy
    import sympy

    if isinstance(x, (float, numpy.floating, sympy.Float)):
        return float(x)
    return sympy.sympify(x)


def from_nodepy(m):
    """geomcheck's ButcherTableau with NodePy's entries (exact when NodePy's are sympy numbers)."""
    from geomcheck.certify.tableaux import ButcherTableau

    A = [[_entry(x) for x in row] for row in m.A]
    b = [_entry(x) for x in m.b]
    inexact = any(isinstance(x, float) for x in [y for row in A for y in row] + b)
    return ButcherTableau(A, b, exact=not inexact, name=str(m.shortname)), inexact


def to_nodepy(rk, T):
    """NodePy's method with geomcheck's (exact) entries."""
    import numpy

    A = numpy.array([[x for x in row] for row in T.A], dtype=object)
    b = numpy.array(list(T.b), dtype=object)
    explicit = all(T.A[i][j] == 0 for i in range(len(T.b)) for j in range(i, len(T.b)))
    cls = rk.ExplicitRungeKuttaMethod if explicit else rk.RungeKuttaMethod
    return cls(A=A, b=b, name=T.label)


def same_tableau(T, m) -> bool:
    import sympy

    if len(T.b) != len(m.b):
        return False
    diffs = [T.A[i][j] - _entry(m.A[i, j]) for i in range(len(T.b)) for j in range(len(T.b))]
    diffs += [T.b[i] - _entry(m.b[i]) for i in range(len(T.b))]
    return all(abs(complex(sympy.N(d, 30))) < 1e-25 for d in diffs)


# --------------------------------------------------------------------------- the two sides


def ours(T):
    from geomcheck.certify.algebraic_stability import is_algebraically_stable
    from geomcheck.certify.error_coefficients import principal_error_norm
    from geomcheck.certify.linear_stability import is_A_stable, is_L_stable
    from geomcheck.certify.tableaux import order, stability_function

    out, times = {}, {}
    for key, fn in (("order", lambda: order(T).order), ("R", lambda: stability_function(T)),
                    ("A", lambda: is_A_stable(T).holds), ("L", lambda: is_L_stable(T).holds),
                    ("pen", lambda: principal_error_norm(T)), ("alg", lambda: is_algebraically_stable(T).holds)):
        t0 = time.perf_counter()
        try:
            out[key] = fn()
        except Exception as exc:                    # reported, not hidden
            out[key] = f"error: {type(exc).__name__}"
        times[key] = time.perf_counter() - t0
    return out, times


def _poly1d_expr(poly, z):
    import sympy

    return sympy.Add(*[sympy.sympify(c) * z ** k for k, c in enumerate(list(poly.coeffs)[::-1])])


def nodepy_a_stable(m, p, q):
    """NodePy's plot-free pieces: E_polynomial >= 0 on the real line (float) and poles in Re z > 0."""
    import numpy
    from nodepy import stability_function as nsf

    E = nsf.E_polynomial(p, q)
    coeffs = numpy.array([complex(c).real for c in E.coeffs], dtype=float)
    scale = max(1.0, float(numpy.max(numpy.abs(coeffs))))
    tol = 1e-10 * scale
    Ep = numpy.poly1d(coeffs)
    crit = [r.real for r in numpy.roots(Ep.deriv().coeffs) if abs(r.imag) < 1e-8] if len(coeffs) > 1 else []
    values = [Ep(x) for x in crit] + [Ep(0.0)]
    lead = next((c for c in coeffs if abs(c) > tol), 0.0)
    axis_ok = min(values) >= -tol and lead >= -tol
    qc = numpy.array([complex(c) for c in q.coeffs])
    poles = numpy.roots(qc) if len(qc) > 1 else []
    poles_ok = all(r.real > 1e-12 for r in poles)
    return bool(axis_ok and poles_ok)


def nodepy_l_stable(m, p, q, a_stable):
    import numpy

    def degree(poly):
        c = [abs(complex(x)) for x in poly.coeffs]
        scale = max(c) if c else 1.0
        while c and c[0] < 1e-13 * scale:
            c.pop(0)
        return len(c) - 1

    return bool(a_stable and degree(p) < degree(q)) if numpy is not None else None


def theirs(m):
    out, times = {}, {}

    def timed(key, fn):
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[key] = fn()
        except Exception as exc:
            out[key] = f"error: {type(exc).__name__}"
        times[key] = time.perf_counter() - t0

    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):          # NodePy prints hints about round-off
        timed("order", lambda: m.order())
        timed("R", lambda: m.stability_function())
        if isinstance(out["R"], tuple):
            p, q = out["R"]
            timed("A", lambda: nodepy_a_stable(m, p, q))
            t0 = time.perf_counter()
            out["L"] = nodepy_l_stable(m, p, q, out["A"]) if isinstance(out["A"], bool) else None
            times["L"] = time.perf_counter() - t0 + times["A"]
        else:
            out["A"] = out["L"] = None
            times["A"] = times["L"] = 0.0
        timed("pen", lambda: m.principal_error_norm())
        timed("alg", lambda: bool(m.is_algebraically_stable()))
    return out, times


# --------------------------------------------------------------------------- referees (plain sympy)


def referee_R(T, z):
    import sympy

    A = sympy.Matrix(T.A)
    s = A.shape[0]
    e = sympy.ones(s, 1)
    b = sympy.Matrix([list(T.b)])
    return (sympy.eye(s) - z * A + z * e * b).det() / (sympy.eye(s) - z * A).det()


def referee_A(T):
    """A-stability from the exact E-polynomial and the exact poles (plain sympy)."""
    import sympy

    z, y = sympy.symbols("z y", real=True)
    P, Q = sympy.fraction(sympy.cancel(sympy.together(referee_R(T, z))))
    iy = sympy.I * y
    E = sympy.expand(sympy.expand(Q.subs(z, iy) * Q.subs(z, -iy)) - sympy.expand(P.subs(z, iy) * P.subs(z, -iy)))
    poly = sympy.Poly(E, y)
    if not poly.domain.is_QQ and not poly.domain.is_ZZ:
        return None, "E has irrational coefficients: not refereed"
    lead = poly.LC()
    if lead < 0:
        return False, "E -> -infinity"
    for factor, mult in poly.sqf_list()[1]:
        if mult % 2 == 1 and factor.degree() > 0 and factor.count_roots() > 0:
            return False, f"E changes sign at a real root of {factor.as_expr()}"
    Qp = sympy.Poly(Q, z)
    if Qp.degree() > 0:
        for r in Qp.all_roots():
            if sympy.re(r).evalf(50) <= 0:
                return False, f"pole {sympy.N(r, 15)} in Re z <= 0"
    return True, "E >= 0 on the real line and no pole in Re z <= 0 (exact)"


def referee_alg(T):
    """Algebraic stability: b >= 0 and every principal minor of M >= 0 (plain sympy)."""
    import itertools

    import sympy

    s = len(T.b)
    A = sympy.Matrix(T.A)
    b = sympy.Matrix(list(T.b))
    B = sympy.diag(*list(T.b))
    M = B * A + A.T * B - b * b.T

    def sign(v):
        v = sympy.nsimplify(v) if v.is_Float else v
        if sympy.simplify(v) == 0:
            return 0
        return 1 if sympy.N(v, 50) > 0 else -1

    if any(sign(x) < 0 for x in T.b):
        return False, "a negative weight"
    for k in range(1, s + 1):
        for idx in itertools.combinations(range(s), k):
            if sign(M.extract(list(idx), list(idx)).det()) < 0:
                return False, f"principal minor {idx} < 0"
    return True, "b >= 0 and every principal minor of M >= 0"


# --------------------------------------------------------------------------- main


def o_order(T):
    from geomcheck.certify.tableaux import order

    return order(T).order


def _fmt(v):
    if v is None:
        return "None"
    if isinstance(v, bool):
        return "T" if v else "F"
    return str(v)


def main(argv=None) -> int:
    ap = U.base_parser(__doc__.split("\n")[0])
    args = ap.parse_args(argv)
    import sympy

    info = U.machine_info()
    print("# bench_nodepy: geomcheck's exact tableau checks side by side with NodePy")
    print("# " + ", ".join(f"{k}={v}" for k, v in info.items()))
    print("# times: seconds, one call each in this process (warm tree caches after the first method)")
    rk, why = _nodepy()
    if rk is None:
        print(f"# nodepy not installed ({why}): geomcheck's column only")
    else:
        import nodepy

        print(f"# nodepy {getattr(nodepy, '__version__', '?')}")
    print()

    methods = [(label, factory(), key) for label, factory, key in our_methods()]
    known = {key for _, _, key in methods if key}
    if rk is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            catalog = rk.loadRKM("All")
        for key, m in catalog.items():
            if key in known or key == "Söderlind43":          # the same method as Soderlind43
                continue
            try:
                T, inexact = from_nodepy(m)
            except Exception as exc:
                print(f"# {key}: not read into geomcheck ({type(exc).__name__}: {exc})")
                continue
            methods.append((f"{key} (NodePy{', float' if inexact else ''})", T, key))
    if args.quick:
        methods = methods[:6]

    t = U.Table("order | R(z) | A-stable | L-stable | principal error norm | algebraically stable: "
                "geomcheck / NodePy", ["method", "s", "order", "R(z) equal", "A", "L", "PEN (ours)",
                                        "PEN rel.diff", "alg", "t ours", "t NodePy"])
    disagreements = []
    total_ours = total_theirs = 0.0
    z = sympy.Symbol("z")
    for label, T, key in methods:
        print(f"# {label} ...", file=sys.stderr, flush=True)
        o, to = ours(T)
        total_ours += sum(to.values())
        if rk is None:
            t.add(label, len(T.b), _fmt(o["order"]), "-", _fmt(o["A"]), _fmt(o["L"]),
                  "{:.6g}".format(float(o["pen"])) if not isinstance(o["pen"], str) else o["pen"], "-", _fmt(o["alg"]),
                  U.fmt_s(sum(to.values())), "-")
            continue
        m = catalog[key] if key in (catalog if rk is not None else {}) else to_nodepy(rk, T)
        note = ""
        if key and key in catalog and not same_tableau(T, m):
            note = " [NodePy's tableau differs]"
        n, tn = theirs(m)
        total_theirs += sum(tn.values())
        # R(z): equal as rational functions?
        r_equal = "-"
        if isinstance(n["R"], tuple) and not isinstance(o["R"], str):
            p, q = n["R"]
            diff = o["R"].numerator / o["R"].denominator - _poly1d_expr(p, o["R"].z) / _poly1d_expr(q, o["R"].z)
            zz = o["R"].z
            close = all(abs(complex(diff.subs(zz, v).evalf(30))) < 1e-12 for v in (-1, sympy.I / 2, -3 + 2 * sympy.I))
            if any(isinstance(x, sympy.Float) for x in T.b):
                r_equal = "~" if close else "NO"
            else:
                cross = sympy.expand(o["R"].numerator * _poly1d_expr(q, zz) - _poly1d_expr(p, zz) * o["R"].denominator)
                r_equal = "yes" if cross == 0 else ("~" if close else "NO")
        pen_o = o["pen"]
        pen_n = n["pen"]
        try:
            rel = abs(float(pen_o) - float(pen_n)) / max(abs(float(pen_o)), 1e-300)
            rel_s = f"{rel:.1e}"
        except (TypeError, ValueError):
            rel, rel_s = None, "-"
        t.add(label + note, len(T.b), f"{_fmt(o['order'])}/{_fmt(n['order'])}", r_equal,
              f"{_fmt(o['A'])}/{_fmt(n['A'])}", f"{_fmt(o['L'])}/{_fmt(n['L'])}",
              f"{float(pen_o):.6g}" if not isinstance(pen_o, str) else pen_o, rel_s,
              f"{_fmt(o['alg'])}/{_fmt(n['alg'])}", U.fmt_s(sum(to.values())), U.fmt_s(sum(tn.values())))
        inexact = any(isinstance(x, sympy.Float) for x in list(T.b) + [a for row in T.A for a in row])
        for what in ("order", "A", "L", "alg"):
            if o[what] != n[what]:
                disagreements.append((label, what, o[what], n[what], T, m, inexact))
        if r_equal == "NO":
            disagreements.append((label, "R", "-", "-", T, m, inexact))
        if rel is not None and rel > 1e-8 and o["order"] == n["order"]:
            disagreements.append((label, "pen", float(pen_o), float(pen_n), T, m, inexact))
    t.notes.append("a/b = geomcheck / NodePy; T/F/None = holds True/False/undecided; 'R(z) equal': yes = "
                   "identical rational functions (exact), ~ = equal at sample points to 1e-12 (float entries, or algebraic ones plain expansion does not reduce)")
    t.notes.append("NodePy's A-stability column is built here from its E_polynomial and stability_function "
                   "(NodePy has no A-stability test); PEN of a float method is NodePy's at its own order")
    t.show(args.markdown)
    print(f"total time: geomcheck {total_ours:.2f} s, NodePy {total_theirs:.2f} s "
          f"(load {info.get('loadavg', '?')})")
    if not disagreements:
        print("no disagreements")
        return 0
    print("\ndisagreements, with a referee (plain sympy, independent of both packages):")
    undecided = sorted({label for label, what, a, b, T, m, inexact in disagreements
                        if inexact and a is None and what in ("A", "L", "alg")})
    if undecided:
        print(f"  float entries, geomcheck undecided (no exact sign) on A-/L-/algebraic stability where NodePy "
              f"answers: {', '.join(undecided)}")
    disagreements = [d for d in disagreements if not (d[0] in undecided and d[1] in ("A", "L", "alg") and d[2] is None)]
    for label, what, a, b, T, m, inexact in disagreements:
        if what in ("A", "L"):
            if inexact:
                verdict = "float entries: no exact referee"
            else:
                ok, why = referee_A(T)
                if what == "L" and ok:
                    Rz = referee_R(T, z)
                    ok = sympy.limit(Rz, z, sympy.oo) == 0
                    why += f"; R(infinity) = {sympy.limit(Rz, z, sympy.oo)}"
                verdict = f"referee: {ok} ({why})"
        elif what == "alg":
            verdict = "float entries: no exact referee" if inexact else "referee: {} ({})".format(*referee_alg(T))
        elif what == "order":
            # the first condition, sum(b) = 1, exactly on the stored weights; then NodePy's exact mode
            first = sum(sympy.Rational(x) if isinstance(x, sympy.Float) else x for x in T.b) - 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                exact_np = m.order(mode="exact") if not inexact else "-"
            verdict = (f"referee: sum(b) - 1 = {first} = {sympy.N(first, 3)} exactly on the stored weights; "
                       f"NodePy order(mode='exact'): {exact_np}")
        elif what == "R":
            verdict = f"referee: det(I - zA + z e b^T)/det(I - zA) = {sympy.cancel(referee_R(T, z))}"
        else:
            p_ours = o_order(T)
            verdict = f"geomcheck exact at its order {p_ours}; NodePy float at its order p = {m.p}"
            if p_ours == 0:
                first = sum(sympy.Rational(x) if isinstance(x, sympy.Float) else x for x in T.b) - 1
                verdict += f"; referee: at order 0 the norm is |sum(b) - 1| = {sympy.N(abs(first), 6)}"
        print(f"  {label}: {what}: geomcheck {_fmt(a)}, NodePy {_fmt(b)}; {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
