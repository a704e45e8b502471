"""The recorded reference runs: named, short runs of every path a refactor of the engine could change.

Each :class:`Case` is a function of no arguments returning a dict ``{key: value}`` of numbers (arrays of
doubles, arrays of mpf, exact rationals, Newton's work counts).  :func:`encode` turns such a value into
JSON data that holds it EXACTLY (a double as ``float.hex()``, an mpf as its integer mantissa and
exponent, a rational as ``"p/q"``); ``tests/reference_runs/record.py`` writes the encoded results of
the pristine code to ``reference_runs.json`` and ``test_reference_runs.py`` recomputes them with the
code under test and compares them bit for bit.

What the runs use, so that their bits are a property of the code and not of the library versions:

- numpy and compiled runs: only ``+``, ``-``, ``*``, ``/`` and ``sqrt`` (IEEE operations, correctly
  rounded in every numpy release and in C with ``-ffp-contract=off``) on polynomial systems (harmonic
  oscillator, Henon-Heiles, a quartic oscillator, a damped contact oscillator) and one with a square
  root (``H = p**2/2 + sqrt(1 + q**2)``); no sin/cos/exp/pow, whose SIMD versions change between
  numpy releases (Kepler's ``r**(3/2)`` is a ``pow``: not used; the one ``pow`` left is in the Jacobian
  of the square-root force that the explicit runs' stability check evaluates at y0, a yes/no decision,
  not a number of the run).  Newton's linear solves up to 12
  unknowns are a vectorized elimination in elementwise numpy operations; the cases marked
  ``"scipy"`` go through BLAS/LAPACK (the linear implicit step, formed or factored once).
- mpmath runs may use any function (pendulum ``cos``, Kepler, an ``exp`` in the conformal step):
  mpmath's arithmetic is exact-then-rounded at the working precision and depends on mpmath's version.
- the zero test's numbers (counterexample points, values at them) are exact rationals or mpf.

>>> sorted({c.name for c in CASES}) == sorted(c.name for c in CASES)      # names are unique
True
>>> encode(0.1)["entries"]
[{'float': '0x1.999999999999ap-4'}]
>>> encode(mpmath.mpf(3) / 4)["entries"]         # 3 * 2**-2
[{'mpf': [3, -2]}]
>>> encode(np.array([[0.5], [-0.25]]))        # doctest: +NORMALIZE_WHITESPACE
{'shape': [2, 1], 'dtype': 'float64',
 'entries': [{'float': '0x1.0000000000000p-1'}, {'float': '-0x1.0000000000000p-2'}]}
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy

import geomcheck as gc
import integrators as ig
from geomcheck.zero import decide_zero

__all__ = ["CASES", "Case", "compiler_available", "encode"]


@dataclass(frozen=True)
class Case:
    """One reference run.

    name : str       unique, says what runs (scheme, system, path, options)
    run : callable   ``run() -> {key: value}``
    libraries : the libraries whose version the recorded bits depend on (checked by the test)
    needs : None or "c-compiler" (the case is skipped, with that reason, where there is none)
    """

    name: str
    run: Callable[[], dict] = field(repr=False)
    libraries: tuple = ("numpy", "sympy")
    needs: str | None = None


def compiler_available() -> bool:
    """Whether the compiled path can build here (a C compiler on the PATH)."""
    from integrators.compiled import find_compiler

    return find_compiler() is not None


# ----------------------------------------------------------------------------- encoding


def _encode_scalar(v: Any) -> Any:
    if isinstance(v, (bool, np.bool_)):
        return {"bool": bool(v)}
    if isinstance(v, (int, np.integer)):
        return {"int": int(v)}
    if isinstance(v, (float, np.floating)):
        return {"float": float(v).hex()}
    if type(v).__name__ == "mpf" and hasattr(v, "man_exp"):      # of any mpmath context (the zero test has its own)
        if not mpmath.isfinite(v):
            return {"mpf": str(v)}
        man, exp = v.man_exp        # exact: v == man * 2**exp
        return {"mpf": [int(man), int(exp)]}
    if type(v).__name__ == "mpc" and hasattr(v, "imag"):
        return {"mpc": [_encode_scalar(v.real), _encode_scalar(v.imag)]}
    if isinstance(v, Fraction):
        return {"rational": f"{v.numerator}/{v.denominator}"}
    if isinstance(v, sympy.Rational):
        return {"rational": f"{v.p}/{v.q}"}
    if isinstance(v, sympy.Float):
        r = sympy.Rational(v)           # a Float is a binary rational: exact
        return {"sympy-float": f"{r.p}/{r.q}", "prec": v._prec}
    if isinstance(v, str):
        return {"str": v}
    raise TypeError(f"reference runs: cannot encode {type(v).__name__} {v!r} exactly")


def encode(value: Any) -> dict:
    """JSON data holding ``value`` exactly: an array as its shape and flat list of encoded entries."""
    if isinstance(value, np.ndarray):
        flat = value.reshape(-1)
        if value.dtype == object:
            entries = [_encode_scalar(v) for v in flat]
        elif value.dtype.kind == "f":
            entries = [{"float": float(v).hex()} for v in flat]
        elif value.dtype.kind in "iub":
            entries = [_encode_scalar(v) for v in flat]
        else:
            raise TypeError(f"reference runs: cannot encode an array of dtype {value.dtype}")
        return {"shape": list(value.shape), "dtype": str(value.dtype), "entries": entries}
    if isinstance(value, (list, tuple)):
        return {"shape": [len(value)], "dtype": "list", "entries": [_encode_scalar(v) for v in value]}
    return {"shape": [], "dtype": type(value).__name__, "entries": [_encode_scalar(value)]}


# ----------------------------------------------------------------------------- systems (polynomial or sqrt)

q, p = sympy.symbols("q p")


def harmonic():
    return ig.example_system("harmonic")


def henon_heiles():
    return ig.example_system("henon-heiles")


def quartic():
    """``H = p**2/2 + q**4/4``: a nonlinear 1-dof system, force ``-q**3`` (products only)."""
    return ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)


def sqrt_potential():
    """``H = p**2/2 + sqrt(1 + q**2)``: force ``-q / sqrt(1 + q**2)`` (a square root and a division)."""
    return ig.HamiltonianSystem(p**2 / 2 + sympy.sqrt(1 + q**2), q, p)


def damped_harmonic():
    """``H = (p**2 + q**2)/2`` with linear damping ``p' = -q - p/10`` (its conformal step has ``exp(-h/10)``)."""
    from integrators.systems import DampedHamiltonianSystem

    return DampedHamiltonianSystem((p**2 + q**2) / 2, q, p, damping=sympy.Rational(1, 10))


def damped_contact():
    """The damped oscillator as a contact system, ``H = p**2/2 + x**2/2 + alpha z`` (no exp in its Herglotz step)."""
    return ig.example_system("damped-oscillator")


HH0 = np.array([[0.1, 0.0, 0.0, 0.3], [0.0, 0.2, 0.25, 0.1], [0.05, -0.1, 0.3, 0.0], [-0.1, 0.1, 0.0, -0.2],
                [0.2, 0.05, -0.1, 0.1]])          # 5 bounded Henon-Heiles states (energy < 1/6)
ONE0 = np.array([[1.0, 0.0], [0.5, 0.5], [-0.3, 1.2], [2.0, -0.25], [0.1, 0.0]])   # 5 states of a 1-dof system


def henon_heiles_energy_error(t, y):
    """An ``observe`` hook: H(y) - H(y0) of Henon-Heiles at every state, in products (no ``pow``)."""
    x, yy, px, py = np.moveaxis(y, -1, 0)
    H = (px * px + py * py) / 2 + (x * x + yy * yy) / 2 + x * x * yy - yy * yy * yy / 3
    return H - H[0]


def _solution(sol, evaluate=None) -> dict:
    """The numbers of a Solution: saved times and states, what observe saw, energy, Newton's counts."""
    out = {"t": np.asarray(sol.t), "y": np.asarray(sol.y)}
    if sol.observed is not None:
        out["observed"] = np.asarray(sol.observed)
    if sol.system is not None:
        out["energy"] = np.asarray(sol.energy())
    if evaluate is not None:
        for k, v in enumerate(sol.evaluate(evaluate)):
            out[f"evaluate[{k}]"] = np.asarray(v)
    if sol.newton is not None:
        out["newton"] = [sol.newton.solves, sol.newton.iterations, sol.newton.jacobians, sol.newton.factorizations,
                         sol.newton.refreshes, sol.newton.fallbacks]
    out["path"] = sol.path
    return out


def _integrate(system, scheme, y0, *, evaluate=None, expect_path=None, **options):
    def run():
        sol = ig.integrate(system(), scheme, y0, progress=False, **options)
        if expect_path is not None and sol.path != expect_path:
            raise AssertionError(f"{scheme}: expected the {expect_path} path, ran {sol.path} ({sol.path_note})")
        return _solution(sol, evaluate)
    return run


# ----------------------------------------------------------------------------- run_map on given maps

M = gc.Chart("q p")
_q, _p = M.coords
h, k = sympy.symbols("h k")


def euler_b_map():
    """Symplectic Euler of ``V = k q**2 / 2`` written as a ``gc.Map`` (HLW I.1, Sec. 1.2)."""
    return gc.Map(M, M, [_q + h * (_p - h * k * _q), _p - h * k * _q])


def midpoint_quartic_map():
    """The implicit midpoint rule of ``H = p**2/2 + q**4/4`` as a ``gc.ImplicitMap`` in the new state."""
    Q, P = sympy.symbols("Q P")
    qm, pm = (_q + Q) / 2, (_p + P) / 2
    return gc.ImplicitMap(M, M, [Q - _q - h * pm, P - _p + h * qm**3], new=[Q, P])


def _run_map(step_map, y0, **options):
    def run():
        from integrators.run_map import run_map

        return _solution(run_map(step_map(), y0, progress=False, **options))
    return run


# ----------------------------------------------------------------------------- the zero test's numbers

def _certificate_numbers(cert, form_coefficient_at) -> dict:
    point = cert.counterexample
    out = {"holds": str(cert.holds), "stage": cert.stage,
           "point": [f"{name}={sympy.Rational(v).p}/{sympy.Rational(v).q}" for name, v in sorted(point.items())]}
    out["residual_at_point"] = form_coefficient_at(cert.residual, point)
    return out


def _dq_dp_coefficient(exact):
    def at(residual, point):
        coefficient = residual.coefficient(_q, _p)          # the dq^dp component
        values = {sympy.Symbol(name): sympy.Rational(v) for name, v in point.items()}
        value = sympy.sympify(coefficient).subs(values)
        return sympy.Rational(value) if exact else sympy.N(value, 50)
    return at


def symplectic_euler_explicit_refuted():
    """Explicit Euler of the harmonic oscillator is not symplectic: residual ``h**2 dq^dp`` (HLW VI.2)."""
    F = gc.Map(M, M, [_q + h * _p, _p - h * _q])
    cert = gc.certify_symplectic(F, M.d(_q) ^ M.d(_p))
    return _certificate_numbers(cert, _dq_dp_coefficient(exact=True))


def symplectic_sqrt_sin_refuted():
    """A non-symplectic map with sqrt and sin: the point is found by the zero test, the residual valued in mpmath."""
    G = gc.Map(M, M, [_q + h * _p * sympy.sqrt(1 + _q**2), _p - h * sympy.sin(_q)])
    cert = gc.certify_symplectic(G, M.d(_q) ^ M.d(_p))
    return _certificate_numbers(cert, _dq_dp_coefficient(exact=False))


def zero_test_values():
    """The values ``decide_zero`` reports for nonzero expressions: mpf (randomized) and exact (modular)."""
    x, a = sympy.symbols("x a")
    tiny = decide_zero(sympy.sin(x)**2 + sympy.cos(x)**2 - 1 + sympy.exp(-40) * x)
    modular = decide_zero(x**2 * a - a * x * x + a**3 * q - sympy.Rational(1, 10**30) * q)
    out = {}
    for key, d in (("randomized", tiny), ("modular", modular)):
        out[f"{key}.is_zero"] = str(d.is_zero)
        out[f"{key}.point"] = [f"{name}={sympy.Rational(v).p}/{sympy.Rational(v).q}"
                               for name, v in sorted((str(s), v) for s, v in d.point.items())]
        out[f"{key}.value"] = d.value
    return out


def refined_compositions():
    """Coefficients refined by the chord Newton iteration on composition order conditions: square
    (Yoshida's eighth order from its 15 published digits), underdetermined (minimum-norm steps:
    a five-stage order-4 start, Kahan-Li's order 6) and not palindromic."""
    from geomcheck.certify.compositions import refine_composition

    w = [sympy.Float(x, 40) for x in ("0.102799849391985", "-1.96061023297549", "1.93813913762276",
                                      "-0.158240635368243", "-1.44485223686048", "0.253693336566229",
                                      "0.914844246229740")]
    starts = {"yoshida8": (w[::-1] + [1 - 2 * sum(w)] + w, 8, {}),
              "five-stage-4": ([0.4, 0.4, -0.6, 0.4, 0.4], 4, {}),
              "kahan-li-6": ([0.392161444007314, 0.332599136789359, -0.706246172557639, 0.0822135962935508,
                              0.798543990934830, 0.0822135962935508, -0.706246172557639, 0.332599136789359,
                              0.392161444007314], 6, {}),
              "not-palindromic-3": ([1.36, -1.70, 1.34], 3, {})}
    return {name: list(refine_composition(g, order, dps=50, **kw)) for name, (g, order, kw) in starts.items()}


def refined_splittings():
    """Coefficients refined by Gauss-Newton (minimum-norm chord steps) on splitting order
    conditions: Forest-Ruth from four digits, symmetric and not, and Blanes-Moan SRKN11b to order 6."""
    from geomcheck.certify.splitting import refine_splitting
    from integrators.schemes.splitting import blanes_moan

    fr = (["0.6756", "-0.1756", "-0.1756", "0.6756"], ["1.3512", "-1.7024", "1.3512", 0])
    out = {}
    for name, (a, b, class_, order, kw) in {"forest-ruth": (*fr, "separable", 4, {}),
                                            "forest-ruth-not-symmetric": (*fr, "separable", 4, {"symmetric": False}),
                                            "srkn11b-rkn-6": (*blanes_moan("srkn11b", refined=False), "rkn", 6, {})
                                            }.items():
        ra, rb = refine_splitting(a, b, class_, order, dps=40, **kw)
        out[f"{name}.a"], out[f"{name}.b"] = list(ra), list(rb)
    return out


# ----------------------------------------------------------------------------- the cases

_NP = ("numpy", "sympy")
_LA = ("numpy", "scipy", "sympy")
_MP = ("mpmath", "sympy")

CASES = [
    # explicit schemes, numpy
    Case("explicit-euler/harmonic/single", _integrate(harmonic, "explicit-euler", [1.0, 0.0], dt=0.01, steps=100,
                                                      save_every=10, backend="numpy", check_stability=False)),
    Case("rk4/henon-heiles/batch5/observe", _integrate(henon_heiles, "rk4", HH0, dt=0.05, steps=100, save_every=25,
                                                       backend="numpy", observe=henon_heiles_energy_error)),
    Case("stormer-verlet/sqrt-potential/batch5", _integrate(sqrt_potential, "stormer-verlet", ONE0, dt=0.05, steps=200,
                                                            save_every=50, backend="numpy",
                                                            evaluate=[q * p, sympy.sqrt(1 + q**2)])),
    Case("yoshida-4/henon-heiles/single", _integrate(henon_heiles, "yoshida-4", HH0[1], dt=0.05, steps=100,
                                                     save_every=20, backend="numpy")),
    Case("blanes-moan-s6/quartic/batch5", _integrate(quartic, "blanes-moan-s6", ONE0, dt=0.05, steps=60,
                                                     save_every=20, backend="numpy")),
    Case("stormer-verlet/henon-heiles/compensated", _integrate(henon_heiles, "stormer-verlet", HH0, dt=0.05, steps=200,
                                                               save_every=50, backend="numpy", compensated=True)),
    # implicit schemes, numpy Newton
    Case("implicit-midpoint/henon-heiles/newton-full", _integrate(henon_heiles, "implicit-midpoint", HH0, dt=0.05,
                                                                  steps=50, save_every=10, backend="numpy",
                                                                  newton="full")),
    Case("implicit-midpoint/henon-heiles/newton-simplified", _integrate(henon_heiles, "implicit-midpoint", HH0, dt=0.05,
                                                                        steps=50, save_every=10, backend="numpy",
                                                                        newton="simplified")),
    Case("implicit-midpoint/quartic/newton-auto/compensated", _integrate(quartic, "implicit-midpoint", ONE0, dt=0.05,
                                                                         steps=50, save_every=10, backend="numpy",
                                                                         compensated=True)),
    Case("gauss-legendre-4/henon-heiles/newton-full", _integrate(henon_heiles, "gauss-legendre-4", HH0[:2], dt=0.1,
                                                                 steps=30, save_every=10, backend="numpy",
                                                                 newton="full")),
    Case("gauss-legendre-4/henon-heiles/newton-simplified", _integrate(henon_heiles, "gauss-legendre-4", HH0[:2],
                                                                       dt=0.1, steps=30, save_every=10,
                                                                       backend="numpy", newton="simplified")),
    Case("gauss-legendre-4/quartic/newton-auto", _integrate(quartic, "gauss-legendre-4", ONE0, dt=0.1,
                                                                   steps=30, save_every=10, backend="numpy",
                                                                   newton="auto")),
    # a step linear in the state: no Newton (BLAS/LAPACK)
    Case("implicit-midpoint/harmonic/linear-matrix", _integrate(harmonic, "implicit-midpoint", ONE0, dt=0.1, steps=100,
                                                                save_every=25, backend="numpy", linear_solve="matrix"),
         libraries=_LA),
    Case("gauss-legendre-4/harmonic/linear-solve", _integrate(harmonic, "gauss-legendre-4", ONE0, dt=0.1, steps=100,
                                                              save_every=25, backend="numpy", linear_solve="solve"),
         libraries=_LA),
    # a contact scheme (Herglotz variational: polynomial, no exp)
    Case("contact-herglotz-1/damped-oscillator/batch3",
         _integrate(damped_contact, "contact-herglotz-1", [[1.0, 0.0, 0.0], [0.5, 0.5, 0.1], [0.0, 1.0, -0.2]],
                    dt=0.05, steps=100, save_every=25, backend="numpy", params={"alpha": 0.25}),
         libraries=_LA),
    # run_map on given maps
    Case("run_map/Map/euler-b", _run_map(euler_b_map, ONE0, dt=0.1, steps=100, save_every=20, params={k: 1.5},
                                         backend="numpy")),
    Case("run_map/ImplicitMap/midpoint-quartic", _run_map(midpoint_quartic_map, ONE0, dt=0.05, steps=50,
                                                          save_every=10, backend="numpy", newton="full")),
    # mpmath (Newton inside; any function)
    Case("gauss-legendre-4/pendulum/mpmath40", _integrate(lambda: ig.example_system("pendulum"), "gauss-legendre-4",
                                                          [1.0, 0.5], dt="0.1", steps=10, save_every=5,
                                                          backend="mpmath", dps=40), libraries=_MP),
    Case("implicit-midpoint/kepler/mpmath30", _integrate(lambda: ig.example_system("kepler"), "implicit-midpoint",
                                                         ["0.6", "0", "0", "1.5"], dt="0.05", steps=10, save_every=5,
                                                         backend="mpmath", dps=30), libraries=_MP),
    Case("stormer-verlet/kepler/mpmath50", _integrate(lambda: ig.example_system("kepler"), "stormer-verlet",
                                                      ["0.6", "0", "0", "1.5"], dt="0.05", steps=20, save_every=10,
                                                      backend="mpmath", dps=50), libraries=_MP),
    Case("conformal-symplectic-euler/damped-harmonic/mpmath30",
         _integrate(damped_harmonic, "conformal-symplectic-euler", ["1", "0.5"], dt="0.1", steps=20, save_every=10,
                    backend="mpmath", dps=30), libraries=_MP),
    Case("run_map/ImplicitMap/midpoint-quartic/mpmath35", _run_map(midpoint_quartic_map, ["1", "0.5"], dt="0.05",
                                                                   steps=10, save_every=5, backend="mpmath", dps=35,
                                                                   newton="simplified"),
         libraries=_MP),
    # compiled C (explicit, and Newton in C): their own cases, skipped without a C compiler
    Case("stormer-verlet/henon-heiles/compiled", _integrate(henon_heiles, "stormer-verlet", HH0, dt=0.05, steps=200,
                                                            save_every=50, backend="compiled",
                                                            expect_path="compiled"), needs="c-compiler"),
    Case("rk4/sqrt-potential/compiled", _integrate(sqrt_potential, "rk4", ONE0, dt=0.05, steps=200, save_every=50,
                                                   backend="compiled", expect_path="compiled"), needs="c-compiler"),
    Case("gauss-legendre-4/henon-heiles/compiled-newton", _integrate(henon_heiles, "gauss-legendre-4", HH0[:2], dt=0.1,
                                                                     steps=30, save_every=10, backend="compiled",
                                                                     expect_path="compiled"), needs="c-compiler"),
    # the zero test's numbers
    Case("zero/certify_symplectic/explicit-euler-counterexample", symplectic_euler_explicit_refuted,
         libraries=("sympy",)),
    Case("zero/certify_symplectic/sqrt-sin-counterexample", symplectic_sqrt_sin_refuted, libraries=_MP),
    Case("zero/decide_zero/values", zero_test_values, libraries=_MP),
    # coefficients solved from order conditions (the chord Newton iteration of newton_iteration)
    Case("refine/compositions", refined_compositions, libraries=_MP),
    Case("refine/splittings", refined_splittings, libraries=_MP),
]
