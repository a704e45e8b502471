"""Benchmark: the first build of a kernel step (the scheme's stage maps on a generic field, lowered).

``integrate(..., use_kernel=True)`` runs a scheme through its own step map built on a generic
field of the system's chart (every component an undefined function ``F_y`` of all coordinates;
``integrators.kernels``) and lowered with each component a call of the kernel.  That build
happens once per process, scheme and chart (then it is cached); on the 104-coordinate coupled
beam it is the start-up cost of a kernel run.  Each cell runs in a FRESH Python process (a first
build cannot be repeated in one process), so the figures include sympy's cold caches:

* kernel build      ``integrators.kernels.kernel_step(scheme, system)`` the first time: generic
                    field, stage maps (``integrators.schemes.stages.stage_step``, Map's checks),
                    lowering (``integrators.codegen.VectorCallKernel``); CPU seconds and wall
* cached            the same call again (the lowered stages come from the cache)
* general build     ``scheme.step_map(system)`` on the concrete system (the non-kernel path),
                    built afterwards in the same process -- the peer figure of the same run
* stages / maps / calls   stages of the step, distinct stage maps, kernel calls per step

``--ref PATH`` runs the same cells against another checkout too (e.g. a copy of the code before a
change) and prints its kernel build beside this one's: before / after in one run, under one load.

Run ``python benchmarks/bench_kernel_build.py --help`` for the options.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import _util as U  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTEMS = ("beam", "two-dim")
SCHEMES = ("rk4", "heun", "explicit-euler", "stormer-verlet", "yoshida-4")


def _child(root, system_name, scheme_name):
    """Runs in a fresh process: the figures of one cell, as JSON on stdout."""
    sys.path.insert(0, root)
    import numpy as np
    import sympy

    import integrators as ig
    from integrators.kernels import kernel_step

    if system_name == "beam":
        from geomcheck.structures import beam_two_mass
        from integrators.forced import ForcedHamiltonianSystem
        from integrators.stencils import beam_two_mass_stencil

        model = beam_two_mass()
        system = ForcedHamiltonianSystem.from_coupled(model.system)
        kernel = beam_two_mass_stencil(model)
    else:
        q, p = sympy.symbols("q p")
        system = ig.HamiltonianSystem(p**2 / 2 + q**4 / 4, q, p)
        kernel = lambda Y, params: np.stack([Y[:, 1], -Y[:, 0] ** 3], axis=1)  # noqa: E731
    fast = ig.with_kernel(system, kernel)
    half = sympy.Rational(1, 2)
    scheme = (ig.RungeKutta([[0, 0], [1, 0]], [half, half], name="heun") if scheme_name == "heun"
              else ig.scheme(scheme_name))
    c0, w0 = time.process_time(), time.perf_counter()
    step = kernel_step(scheme, fast)
    c1, w1 = time.process_time(), time.perf_counter()
    kernel_step(scheme, fast)
    c2 = time.process_time()
    scheme.step_map(system)
    c3 = time.process_time()
    print(json.dumps({"cpu": c1 - c0, "wall": w1 - w0, "cached": c2 - c1, "general": c3 - c2,
                      "stages": len(step.stages), "maps": len({id(L) for L in step.lowered}),
                      "calls": sum(len(L.points) for L in step.lowered)}))


def _cell(root, system_name, scheme_name):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", root, system_name, scheme_name],
                         capture_output=True, text=True, timeout=600, check=False)
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        _child(*argv[1:4])
        return 0
    parser = U.base_parser(__doc__.split("\n")[0])
    parser.add_argument("--ref", default=None, metavar="PATH",
                        help="another checkout whose kernel build is printed beside this one's (before/after)")
    args = parser.parse_args(argv)
    schemes = ("rk4", "stormer-verlet") if args.quick else SCHEMES
    info = U.machine_info()
    print("# bench_kernel_build: first build of a kernel step, each cell in a fresh process", flush=True)
    print("# " + ", ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    print("# times: seconds (CPU of the process unless marked wall), one first build per cell", flush=True)
    print(flush=True)
    columns = ["system", "scheme", "stages", "maps", "calls per step", "kernel build (cpu)", "kernel build (wall)",
               "cached", "general build (cpu)"]
    if args.ref:
        columns += ["ref kernel build (cpu)", "ref / this"]
    table = U.Table("First build of kernel_step(scheme, system)", columns)
    for system_name in SYSTEMS:
        for scheme_name in schemes:
            r = _cell(ROOT, system_name, scheme_name)
            if "error" in r:
                table.add(system_name, scheme_name, *(["-"] * (len(columns) - 3)), r["error"][:60])
                continue
            row = [system_name, scheme_name, r["stages"], r["maps"], r["calls"], f"{r['cpu']:.3f}",
                   f"{r['wall']:.3f}", f"{r['cached']:.4f}", f"{r['general']:.3f}"]
            if args.ref:
                ref = _cell(os.path.abspath(args.ref), system_name, scheme_name)
                row += ([f"{ref['cpu']:.3f}", U.fmt_ratio(ref["cpu"], r["cpu"])] if "error" not in ref
                        else [ref["error"][:40], "-"])
            table.add(*row)
    table.notes.append("beam: geomcheck.structures.beam_two_mass (104 coordinates) with the stencil"
                       " integrators.stencils.beam_two_mass_stencil; two-dim: q'' = -q^3 with a numpy kernel")
    table.notes.append("general build: the concrete system's step map (the non-kernel path), after the kernel"
                       " build in the same process (sympy's caches warm)")
    table.show(markdown=args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
