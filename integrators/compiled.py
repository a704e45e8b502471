"""A compiled path for long runs of explicit step maps, single trajectories and ensembles (C through ctypes).

The run pipeline uses the batched loop (:func:`c_source_batch`, :class:`CompiledBatch`): ONE C call
runs the whole ensemble, cut into cache-sized chunks whose states are structures of arrays (one
contiguous array per coordinate), every step an inner loop over the chunk's trajectories that the
compiler vectorizes (``-O3 -ffp-contract=off -fno-math-errno``, ``-march=native`` with the resolved
target in the cache key, never ``-ffast-math``; ``-O2`` for a very large step, whose ``-O3`` build
is slow), the chunks in parallel (Python threads over ranges of chunks, the GIL released in each C call;
OpenMP with ``$GEOMCHECK_OPENMP=1``, not by default: libgomp hangs in a forked child; the number of
threads: ``$GEOMCHECK_THREADS``, default the usable processors).  A value
the step evaluates at its end and the next step needs at its start -- the force of Stormer-Verlet
and of its compositions -- is found in the step map itself (:func:`fsal_links`) and evaluated once
(FSAL).  Without a carried value the batched loop performs numpy's IEEE operations and gives its
doubles bit for bit (with only +, -, *, /, sqrt: libm's and numpy's sin may differ in the last bit);
a carried value is computed from the stored new state, so the results then equal numpy's to rounding
(bit for bit again where that is numpy's order of operations, as for a force ``-q**3``).

The single-trajectory loop below (:func:`c_source`, :class:`CompiledStep`) is the first form:

The step that runs is the scheme's symbolic step map for the system (the very
``gc.Map`` that ``scheme.certify`` is about), printed as C: the subexpressions free
of the state are hoisted out of the loop (as in :mod:`integrators.lower`, evaluated
once per run, or once per step for a time-dependent system), the rest shares its
common subexpressions through ``sympy.cse``, and the whole loop of ``steps`` steps,
saving every ``save_every`` steps into a numpy buffer, runs in C.  The source is
compiled with the system C compiler (``$CC``, default ``cc``) as
``cc -O2 -ffp-contract=off -shared -fPIC`` into a per-user cache directory
(``$GEOMCHECK_CACHE_DIR`` or ``$XDG_CACHE_HOME/geomcheck/compiled`` or
``~/.cache/geomcheck/compiled``), the file named by a hash of the source and the
command and the compiler's ``--version``, written to a temporary name and renamed atomically
(so concurrent processes never load half a library) with its SHA-256 beside it, and loaded
with ``ctypes`` from a private copy of the verified bytes: a truncated, damaged or foreign file
under the same name is rebuilt (:class:`CompiledCacheWarning`), an unwritable cache gives way to
a private temporary directory (with the same warning), and the cache is trimmed, oldest first,
beyond ``$GEOMCHECK_CACHE_MAX_MB`` (200 MB).

Why C and not numba: measured on the 104-coordinate beam of Terakawa & Yaguchi (2022),
the numpy path pays the interpreter per operation (about 1 ms per step for ~500
scalar-array operations on arrays of length 1), whereas the generated C runs the same
operations on registers; numba is not installed here, a C compiler is on every Linux
machine, and ctypes is in the standard library.  ``-ffp-contract=off`` keeps every
operation an IEEE double operation as in numpy (no fused multiply-add), so the
results equal the numpy path's to rounding.

``integrators.integrate(..., backend="compiled")`` runs it (:class:`CompiledRun`).  When the
compiled path cannot run (no compiler, a function the C printer does not know, an implicit
step map, a compile error) the run falls back to the numpy path, warns with
:class:`~integrators.errors.CompiledPathWarning` saying why, and the solution says which path
ran (``sol.path``, ``sol.path_note``): never silently.

>>> import sympy, numpy as np, integrators as ig
>>> q, p = sympy.symbols("q p")
>>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
>>> sol = ig.integrate(pendulum, "stormer-verlet", [1.0, 0.0], dt=0.01, steps=1000, save_every=500,
...                    backend="compiled")
>>> sol.y.shape, sol.path in ("compiled", "numpy")
((3, 2), True)
>>> ref = ig.integrate(pendulum, "stormer-verlet", [1.0, 0.0], dt=0.01, steps=1000, save_every=500)
>>> bool(np.abs(sol.y - ref.y).max() < 1e-12)
True
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import re
import shutil
import subprocess
import tempfile
import warnings

import numpy as np
import sympy

from geomcheck.caches import Memo
import geomcheck as gc
from geomcheck.errors import InvalidArgumentError

from .codegen import CPrinter, hoist_scalars, refuse_generic
from .errors import CompiledCacheWarning, CompiledPathWarning, CompilerUnavailableError, NotLowerableError
from .run_options import C_LONG_LIMIT, check_count
from .staged import stage_values

__all__ = ["compile_step", "compile_stages", "compile_batch", "compiled_run", "CompiledStep", "CompiledStages",
           "CompiledBatch", "c_source_batch", "fsal_links", "chunk_size", "batch_flags", "default_threads",
           "CompiledRun", "c_source_stages", "CompiledPathWarning", "CompiledCacheWarning", "CompilerUnavailableError",
           "find_compiler", "cache_dir", "c_source", "ship_library", "install_library"]

CFLAGS = ("-O2", "-ffp-contract=off", "-shared", "-fPIC")
ENTRY = "gc_run"


# ------------------------------------------------------------------------ C code


def _distinct_maps(stages, hint: str = "") -> tuple:
    """``(maps, index)``: the distinct step maps of the stages (by identity) and each stage's map
    in that list; NotLowerableError (with ``hint``) for a stage that is not an explicit map."""
    maps, index = [], []
    for st in stages:
        if not isinstance(st.map, gc.Map):
            raise NotLowerableError(
                f"the compiled path runs explicit step maps (gc.Map); a stage is {type(st.map).__name__}{hint}")
        for k, m in enumerate(maps):
            if m is st.map:
                index.append(k)
                break
        else:
            maps.append(st.map)
            index.append(len(maps) - 1)
    return maps, index


def _compilable(phi, parameters) -> tuple:
    """``(coordinates, expressions, parameters)`` of the step map ``phi``, checked: no generic
    function, and no symbol but the state coordinates and the bound parameters."""
    coords = phi.source.coords
    exprs = [sympy.sympify(e) for e in phi.exprs]
    refuse_generic(exprs, "the step map")
    parameters = tuple(parameters)
    extra = set().union(*(e.free_symbols for e in exprs)) - set(coords) - set(parameters)
    if extra:
        raise NotLowerableError(
            f"cannot compile: the step map contains {sorted(map(str, extra))}, which are neither state"
            f" coordinates nor the bound parameters {[str(s) for s in parameters]}")
    return coords, exprs, parameters


def _step_body(phi, parameters):
    """``(scalar lines, step lines)``: C statements of one step of ``phi`` from ``yc`` into ``yn``.

    The scalar lines define the hoisted state-free subexpressions from ``a0, a1, ...`` (the
    parameters); the step lines read ``yc``, share subexpressions and write ``yn``.
    """
    coords, exprs, parameters = _compilable(phi, parameters)
    dim = len(coords)
    names = {s: sympy.Symbol(f"y{k}") for k, s in enumerate(coords)}
    names.update({s: sympy.Symbol(f"a{k}") for k, s in enumerate(parameters)})
    exprs = [e.xreplace(names) for e in exprs]
    hoisted, body = hoist_scalars(exprs, {names[c] for c in coords})
    printer = CPrinter()
    p = printer.doprint
    try:
        scal = []
        if hoisted:
            reps, reduced = sympy.cse([e for _, e in hoisted], symbols=sympy.numbered_symbols("_t"), order="none")
            scal += [f"const double {s} = {p(e)};" for s, e in reps]
            scal += [f"const double {s} = {p(e)};" for (s, _), e in zip(hoisted, reduced)]
        reps, reduced = sympy.cse(body, symbols=sympy.numbered_symbols("_x"), order="none")
        step = [f"const double y{k} = yc[{k}];" for k in range(dim)]
        step += [f"const double {s} = {p(e)};" for s, e in reps]
        step += [f"yn[{k}] = {p(e)};" for k, e in enumerate(reduced)]
    except Exception as exc:  # a function the C printer does not know
        raise NotLowerableError(f"cannot print the step map as C: {exc}") from None
    return scal, step


_PREAMBLE = [
    "/* generated by integrators.compiled from the symbolic step map (the one certified) */",
    "#include <math.h>",
    "#include <stdlib.h>",
    "#include <string.h>",
    "#ifndef M_PI",  # the C printer writes pi and E as M_PI, M_E (POSIX, not ISO C)
    "#define M_PI 3.14159265358979323846264338327950288",
    "#endif",
    "#ifndef M_E",
    "#define M_E 2.71828182845904523536028747135266250",
    "#endif",
]


#: the entry point's signature and its two state buffers (yc current, yn next)
_ENTRY_OPEN = (
    f"int {ENTRY}(const double *a, double t0, long first, const double *y_init, long steps, long save_every,",
    "           double *out, long out_stride)",
    "{",
    "    double *buf = malloc(2 * DIM * sizeof(double));",
    "    if (!buf) return 1;",
    "    double *yc = buf, *yn = buf + DIM, *swap;",
)
#: the step loop up to the step itself: save every save_every steps and the last
_LOOP_OPEN = (
    "    long k = 0;",
    "    for (long n = 0; ; n++) {",
    "        if (n % save_every == 0 || n == steps) {",
    "            memcpy(out + k * out_stride, yc, DIM * sizeof(double));",
    "            k++;",
    "        }",
    "        if (n == steps) break;",
)


def c_source_stages(stages, parameters, time=None) -> str:
    """The C run loop of a step made of several explicit stages (see :mod:`integrators.staged`).

    Each distinct stage map becomes one C function; the loop calls them in order with each
    stage's parameters.  ``gc_run`` has the signature of :func:`c_source`'s, but ``a`` holds
    ``len(stages)`` blocks of ``len(parameters)`` values (each stage's ``h_i`` and constants;
    at the time's index the stage's time offset ``offset_i h``), then the whole step ``h``.
    """
    parameters = tuple(parameters)
    n_par = len(parameters)
    maps, index = _distinct_maps(stages)
    dim = len(maps[0].source.coords)
    time_index = parameters.index(time) if time is not None else None
    lines = list(_PREAMBLE) + [f"#define DIM {dim}", f"#define NPAR {n_par}"]
    for k, m in enumerate(maps):
        scal, step = _step_body(m, parameters)
        lines += [f"static void gc_stage{k}(const double *a, const double *yc, double *yn)", "{"]
        lines += [f"    const double a{j} = a[{j}];" for j in range(n_par)]
        lines += ["    " + x for x in scal + step]
        lines += ["}"]
    lines += [
        *_ENTRY_OPEN,
        "    double sa[NPAR];",
        f"    const double h = a[{len(stages) * n_par}];",
        "    memcpy(yc, y_init, DIM * sizeof(double));",
        *_LOOP_OPEN,
    ]
    for i, k in enumerate(index):
        lines.append(f"        memcpy(sa, a + {i * n_par}, NPAR * sizeof(double));")
        if time_index is not None:
            lines.append(f"        sa[{time_index}] = (t0 + (double)(first + n) * h) + a[{i * n_par + time_index}];")
        lines.append(f"        gc_stage{k}(sa, yc, yn); swap = yc; yc = yn; yn = swap;")
    lines += ["    }", "    free(buf);", "    return 0;", "}", ""]
    return "\n".join(lines)


def c_source(phi, parameters, time=None) -> str:
    """The C source of the whole run loop for the explicit step map ``phi``.

    Parameters
    ----------
    phi : gc.Map
        An explicit step map of a chart to itself.
    parameters : sequence of Symbol
        The scalars bound at run time (``h`` first), passed as the array ``a``.
    time : Symbol, optional
        The time symbol (one of ``parameters``) of a time-dependent system: its value at
        step ``n`` of the call is ``t0 + (first + n) * h``, computed in the loop (``first``: the
        index, in the whole run, of the call's first step).

    Returns
    -------
    str
        Defines ``int gc_run(const double *a, double t0, long first, const double *y0, long steps,
        long save_every, double *out, long out_stride)``: the states at steps 0,
        save_every, ... and ``steps`` go to ``out + k * out_stride``.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> src = c_source(gc.Map(M, M, [q + h * p, p - h * q**3]), [h])
    >>> "yn[1] = " in src and "y0*y0*y0" in src
    True
    """
    if not isinstance(phi, gc.Map):
        raise NotLowerableError(
            f"the compiled path runs explicit step maps (gc.Map); got {type(phi).__name__}"
            " (an implicit step needs Newton's method: use the numpy path)")
    dim = len(phi.source.coords)
    parameters = tuple(parameters)
    scal, step = _step_body(phi, parameters)
    time_index = parameters.index(time) if time is not None else None
    lines = list(_PREAMBLE) + [
        f"#define DIM {dim}",
        *_ENTRY_OPEN,
        "    memcpy(yc, y_init, DIM * sizeof(double));",
    ]
    scalar_names = [f"a{k}" for k in range(len(parameters))]
    for k, s in enumerate(scalar_names):
        if k != time_index:
            lines.append(f"    const double {s} = a[{k}];")
    if time_index is None:
        lines += ["    " + x for x in scal]
    lines += [*_LOOP_OPEN, "        {"]
    if time_index is not None:
        lines.append(f"            const double a{time_index} = t0 + (double)(first + n) * a0;")
        lines += ["            " + x for x in scal]
    lines += ["            " + x for x in step]
    lines += [
        "        }",
        "        swap = yc; yc = yn; yn = swap;",
        "    }",
        "    free(buf);",
        "    return 0;",
        "}",
        "",
    ]
    return "\n".join(lines)


# ------------------------------------------------------------------------ batched C (ensembles, FSAL)


#: doubles of a chunk (its states and carried values): 16 KiB, in the first-level cache
CHUNK_DOUBLES = 2048


def chunk_size(dim: int, carried: int = 0) -> int:
    """Trajectories per chunk for ``dim`` coordinates and ``carried`` values each (a multiple of 8, 8 to 512).

    >>> chunk_size(4), chunk_size(4, 2), chunk_size(104)
    (512, 336, 16)
    """
    return int(max(8, min(512, (CHUNK_DOUBLES // max(1, dim + carried)) // 8 * 8)))


def _subtrees(exprs):
    """Every distinct subexpression of ``exprs`` (each node once, however often it is shared)."""
    seen = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        stack.extend(e.args)
    return seen


def fsal_links(phi, constants=()):
    """``[(S, E), ...]``: the values a step computes at its end and the next step needs at its start.

    ``S`` is a maximal subexpression of the step map ``phi`` that depends on the state and on
    ``constants`` only (not on the step size or the time: a force ``-V'(q)``), and ``E`` is a
    subexpression of ``phi`` that IS ``S`` at the new state: ``E == S.xreplace(coords -> phi)``
    structurally, hence exactly.  At step ``n`` the loop evaluates ``S`` at the new state (from
    the stored new coordinates, in place of ``E``) and hands the value to step ``n + 1``, where
    it stands for ``S``: one evaluation instead of two (first same as last, FSAL).  Found from
    the map itself, whatever the scheme is called; a link whose new coordinates would need
    ``E`` itself is dropped.

    Examples
    --------
    >>> import sympy, integrators as ig
    >>> q, p = sympy.symbols("q p")
    >>> pendulum = ig.HamiltonianSystem(p**2 / 2 - sympy.cos(q), q, p)
    >>> [S for S, E in fsal_links(ig.scheme("stormer-verlet").step_map(pendulum))]
    [sin(q)]
    >>> fsal_links(ig.scheme("rk4").step_map(pendulum))
    []
    """
    coords = tuple(phi.source.coords)
    exprs = [sympy.sympify(e) for e in phi.exprs]
    allowed = set(coords) | set(constants)
    state = set(coords)
    candidates = []
    seen = set()
    stack = list(exprs)
    while stack:
        e = stack.pop()
        if e in seen or e.is_Atom:
            continue
        seen.add(e)
        free = e.free_symbols
        if isinstance(e, sympy.Expr) and free <= allowed and free & state and not e.is_Number:
            candidates.append(e)         # maximal: not descended into
        else:
            stack.extend(e.args)
    if not candidates:
        return []
    nodes = _subtrees(exprs)
    new_state = dict(zip(coords, exprs))
    links = []
    for S in sorted(candidates, key=sympy.default_sort_key):
        E = S.xreplace(new_state)
        if E != S and E in nodes and all(E != e for _, e in links):
            links.append((S, E))
    # the new coordinates S reads are computed before S(new state): they must not need any E
    ends = [E for _, E in links]
    keep = []
    for S, E in links:
        needed = [exprs[k] for k, c in enumerate(coords) if c in S.free_symbols]
        if not any(x.has(e) for x in needed for e in ends):
            keep.append((S, E))
    return keep


def _depends(expr, symbols, dependent):
    return bool(expr.free_symbols & (symbols | dependent))


def _batch_stage_body(phi, parameters, links):
    """C functions of one stage map on a chunk: ``(scalar function, stage function, init function, n_scalars)``.

    The chunk's state is a structure of arrays, updated in place: coordinate ``k`` of trajectory
    ``i`` at ``y[k * CHUNK + i]``, carried value ``j`` at ``cc[j * CHUNK + i]``; the loop over ``i``
    is the inner loop, so the compiler vectorizes it.
    """
    coords, exprs, parameters = _compilable(phi, parameters)
    dim = len(coords)
    cin = [sympy.Symbol(f"c{j}") for j in range(len(links))]
    cout = [sympy.Symbol(f"cn{j}") for j in range(len(links))]
    swap = {E: c for (_, E), c in zip(links, cout)}
    swap.update({S: c for (S, _), c in zip(links, cin)})
    exprs = [e.xreplace(swap) for e in exprs]      # top-down: an end value E before the S inside it
    names = {s: sympy.Symbol(f"y{k}") for k, s in enumerate(coords)}
    names.update({s: sympy.Symbol(f"a{k}") for k, s in enumerate(parameters)})
    znames = {s: sympy.Symbol(f"z{k}") for k, s in enumerate(coords)}
    znames.update({s: sympy.Symbol(f"a{k}") for k, s in enumerate(parameters)})
    starts = [S.xreplace(names) for S, _ in links]            # S at the chunk's first state
    ends = [S.xreplace(znames) for S, _ in links]             # S at the new state (the same text)
    exprs = [e.xreplace(names) for e in exprs]
    arrays = {names[c] for c in coords} | {znames[c] for c in coords} | set(cin) | set(cout)
    # one table of hoisted scalars: S is hoisted alike at the start and at the end
    hoisted, lowered = hoist_scalars(exprs + starts + ends, arrays)
    body, starts, ends = lowered[:dim], lowered[dim:dim + len(links)], lowered[dim + len(links):]
    printer = CPrinter()
    p = printer.doprint
    n_par = len(parameters)
    try:
        scal = [f"    const double a{k} = s[{k}];" for k in range(n_par)]
        if hoisted:
            reps, reduced = sympy.cse([e for _, e in hoisted], symbols=sympy.numbered_symbols("_t"), order="none")
            scal += [f"    const double {t} = {p(e)};" for t, e in reps]
            scal += [f"    s[{n_par + j}] = {p(e)};" for j, ((_, _), e) in enumerate(zip(hoisted, reduced))]
        read = [f"    const double a{k} = s[{k}];" for k in range(n_par)]
        read += [f"    const double {sym} = s[{n_par + j}];" for j, (sym, _) in enumerate(hoisted)]
        reps, reduced = sympy.cse(body, symbols=sympy.numbered_symbols("_x"), order="none")
        # in place: every load of trajectory i before any store of it
        loads = [f"        const double y{k} = y[{k} * CHUNK + i];" for k in range(dim)]
        loads += [f"        const double {c} = cc[{j} * CHUNK + i];" for j, c in enumerate(cin)]
        # statements free of the new end values first, then the new coordinates S reads, then
        # S at the new state, then the rest
        late = set(cout)
        first_reps, late_reps = [], []
        for t, e in reps:
            if e.free_symbols & late:
                late.add(t)
                late_reps.append((t, e))
            else:
                first_reps.append((t, e))
        lines = loads + [f"        const double {t} = {p(e)};" for t, e in first_reps]
        needed = sorted({k for k, c in enumerate(coords) for S, _ in links if c in S.free_symbols})
        for k in needed:
            if reduced[k].free_symbols & late:
                raise NotLowerableError("internal: a carried value needs itself")   # fsal_links drops these
            lines.append(f"        const double z{k} = {p(reduced[k])};")
        if links:
            reps_end, reduced_end = sympy.cse(ends, symbols=sympy.numbered_symbols("_e"), order="none")
            lines += [f"        const double {t} = {p(e)};" for t, e in reps_end]
            lines += [f"        const double {c} = {p(e)};" for c, e in zip(cout, reduced_end)]
            lines += [f"        cc[{j} * CHUNK + i] = {c};" for j, c in enumerate(cout)]
        lines += [f"        const double {t} = {p(e)};" for t, e in late_reps]
        lines += [f"        y[{k} * CHUNK + i] = {'z%d' % k if k in needed else p(e)};" for k, e in enumerate(reduced)]
        init = []
        if links:
            reps_start, reduced_start = sympy.cse(starts, symbols=sympy.numbered_symbols("_e"), order="none")
            init += [f"        const double y{k} = y[{k} * CHUNK + i];" for k in range(dim)]
            init += [f"        const double {t} = {p(e)};" for t, e in reps_start]
            init += [f"        cc[{j} * CHUNK + i] = {p(e)};" for j, e in enumerate(reduced_start)]
    except NotLowerableError:
        raise
    except Exception as exc:  # a function the C printer does not know
        raise NotLowerableError(f"cannot print the step map as C: {exc}") from None
    return scal, read, lines, init, n_par + len(hoisted)


#: the batched entry point
BATCH_ENTRY = "gc_run_batch"
#: the batched loop's flags: -O3 (vectorized inner loops), never -ffast-math, no fused multiply-add
BATCH_CFLAGS = ("-O3", "-ffp-contract=off", "-fno-math-errno", "-shared", "-fPIC")
_FLAG_PROBES: dict = {}


def _probe(cc: str, flags: tuple, source: str = "int main(void) { return 0; }\n"):
    """Whether ``cc`` compiles a small program with ``flags`` (once per compiler and flags)."""
    key = (cc, flags)
    if key not in _FLAG_PROBES:
        directory = tempfile.mkdtemp(prefix="gc_probe_")
        try:
            c_file = os.path.join(directory, "probe.c")
            with open(c_file, "w") as fh:
                fh.write(source)
            proc = subprocess.run([cc, *flags, "-o", os.path.join(directory, "probe.so"), c_file],
                                  capture_output=True, text=True, timeout=60)
            _FLAG_PROBES[key] = proc.returncode == 0
        except (OSError, subprocess.SubprocessError):
            _FLAG_PROBES[key] = False
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    return _FLAG_PROBES[key]


def _native_target(cc: str):
    """What ``-march=native`` resolves to here (the target and its instruction sets), or None.

    A library built for this CPU must not be loaded on another: the key of such a library
    holds this text, so another node (another CPU) computes another key and compiles its own.
    """
    key = (cc, "native-target")
    if key not in _FLAG_PROBES:
        text = None
        try:
            proc = subprocess.run([cc, "-march=native", "-Q", "--help=target"], capture_output=True, text=True,
                                  timeout=60)
            if proc.returncode == 0:
                chosen = [" ".join(line.split()) for line in proc.stdout.splitlines()
                          if "[enabled]" in line or "-march=" in line or "-mtune=" in line]
                text = _digest("\n".join(chosen).encode()) if chosen else None
        except (OSError, subprocess.SubprocessError):
            text = None
        _FLAG_PROBES[key] = text
    return _FLAG_PROBES[key]


#: a generated source longer than this is compiled with -O2 (gcc's cheap vectorizer): -O3's loop
#: vectorizer takes 3x longer on a large step (6.5 s against 2.2 s for the 104-coordinate beam)
LARGE_SOURCE = 20_000


def batch_flags(cc: str, large: bool = False):
    """``(flags, identity)`` of the batched loop: :data:`BATCH_CFLAGS` (``-O2`` for a ``large`` source),
    ``-march=native`` where it resolves to a known target (unless ``$GEOMCHECK_NATIVE=0``), and
    ``-fopenmp`` only with ``$GEOMCHECK_OPENMP=1`` (the chunks otherwise run on Python threads, each
    in a ctypes call that releases the GIL: the same speed, and safe across ``fork()``)."""
    flags = BATCH_CFLAGS if not large else ("-O2",) + BATCH_CFLAGS[1:]
    identity = []
    if os.environ.get("GEOMCHECK_OPENMP", "0") == "1" and _probe(
            cc, ("-fopenmp", "-shared", "-fPIC"), "#include <omp.h>\nint f(void) { return omp_get_max_threads(); }\n"):
        # opt-in only: libgomp's thread pool does not survive fork(), a forked child (multiprocessing,
        # a Dask nanny) hangs in its next parallel region (measured); Python threads do not
        flags += ("-fopenmp",)
    if os.environ.get("GEOMCHECK_NATIVE", "1") != "0":
        target = _native_target(cc)
        if target is not None:
            flags += ("-march=native",)
            identity.append("native:" + target)
    return flags, "\n".join(identity)


#: a batched run of fewer (trajectories x steps x coordinates) runs on one thread
THREADS_MIN_WORK = 2_000_000


def default_threads() -> int:
    """Threads of a batched run: ``$GEOMCHECK_THREADS``, else the processors this process may use."""
    env = os.environ.get("GEOMCHECK_THREADS")
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise InvalidArgumentError(f"GEOMCHECK_THREADS must be a positive integer, got {env!r}") from None
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def c_source_batch(stages, parameters, time=None, fsal=True, chunk=None, links=None) -> str:
    """The C source of the batched run loop of ``stages`` (one call for a whole ensemble).

    The batch is cut into chunks of ``CHUNK`` trajectories (:func:`chunk_size`); each chunk
    holds its states as a structure of arrays (one contiguous array per coordinate) and runs
    every step as an inner loop over its trajectories, which the compiler vectorizes; the
    chunks are independent and run in parallel (OpenMP where the compiler has it).  The
    arithmetic of each trajectory is that of :func:`c_source`: the same printed operations,
    so the results do not depend on the chunking or the number of threads.

    With ``fsal`` and a step made of one map (or of stages of one map, as a composition of
    Stormer-Verlet), the values :func:`fsal_links` finds (or ``links``, found before) are
    evaluated once per stage and carried to the next in the chunk's arrays ``cc``.

    Defines ``int gc_run_batch(const double *a, double t0, long first, const double *Y0,
    long batch, long steps, long save_every, double *out, long out_stride, int threads)``:
    ``a`` as for :func:`c_source_stages`, ``Y0`` of shape ``(batch, dim)``, the state of
    trajectory ``b`` at the ``k``-th saved step to ``out + k * out_stride + b * dim``.

    Examples
    --------
    >>> import sympy, geomcheck as gc
    >>> from integrators.schemes.base import Stage
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> src = c_source_batch([Stage(gc.Map(M, M, [q + h * p, p - h * q**3]))], [h])
    >>> "gc_run_batch" in src and "y[1 * CHUNK + i] = " in src
    True
    """
    parameters = tuple(parameters)
    n_par = len(parameters)
    maps, index = _distinct_maps(stages, " (an implicit step needs Newton's method: use the numpy path)")
    dim = len(maps[0].source.coords)
    time_index = parameters.index(time) if time is not None else None
    constants = [s for k, s in enumerate(parameters) if k != 0 and k != time_index]
    if links is None:
        links = fsal_links(maps[0], constants) if fsal and len(maps) == 1 else []
    links = list(links) if fsal and len(maps) == 1 else []
    n_links = len(links)
    chunk = chunk or chunk_size(dim, n_links)
    lines = list(_PREAMBLE) + ["#include <stdint.h>", f"#define DIM {dim}", f"#define NPAR {n_par}",
                               f"#define CHUNK {chunk}", f"#define NC {n_links}", f"#define NSTAGE {len(stages)}"]
    if links:
        lines.append("/* carried from each step's end to the next step's start (FSAL): "
                     + "; ".join(f"c{j} = {S}" for j, (S, _) in enumerate(links)) + " */")
    n_scalars = []
    for k, m in enumerate(maps):
        scal, read, body, init, ns = _batch_stage_body(m, parameters, links)
        n_scalars.append(ns)
        lines += [f"#define NS{k} {max(ns, 1)}",
                  f"static void gc_scalars{k}(double *restrict s)", "{", *scal, "}",
                  f"static void gc_stage{k}(const double *restrict s, double *restrict y, double *restrict cc, long m)",
                  "{", *read, "    for (long i = 0; i < m; i++) {", *body, "    }", "}"]
        if init:
            lines += [f"static void gc_init{k}(const double *restrict s, const double *restrict y,"
                      " double *restrict cc, long m)", "{", *read, "    for (long i = 0; i < m; i++) {", *init,
                      "    }", "}"]
    ns_max = max(max(n_scalars), 1)
    lines += [
        f"#define NSMAX {ns_max}",
        "static int gc_chunk(const double *a, double t0, long first, const double *Y0, long m, long steps,",
        "                    long save_every, double *out, long out_stride)",
        "{",
        "    /* 64-byte aligned (whole vectors, one cache line), the size a multiple of 64 as C11 asks */",
        "    double *buf = aligned_alloc(64, ((DIM + (NC > 0 ? NC : 1)) * CHUNK * sizeof(double) + 63) / 64 * 64);",
        "    if (!buf) return 1;",
        "    double *yc = buf, *cc = buf + DIM * CHUNK;",
        "    double sa[NSTAGE][NSMAX + NPAR];",
        f"    const double h = a[{len(stages) * n_par}];",
        "    for (long i = 0; i < m; i++)",
        "        for (long j = 0; j < DIM; j++) yc[j * CHUNK + i] = Y0[i * DIM + j];",
        "    for (int st = 0; st < NSTAGE; st++) {",
        "        memcpy(sa[st], a + st * NPAR, NPAR * sizeof(double));",
    ]
    if time_index is not None:
        lines.append(f"        sa[st][{time_index}] = (t0 + (double)first * h) + a[st * NPAR + {time_index}];")
    lines.append("    }")
    for i, k in enumerate(index):
        lines.append(f"    gc_scalars{k}(sa[{i}]);")
    if links:
        lines.append("    gc_init0(sa[0], yc, cc, m);")
    lines += [
        "    long k = 0;",
        "    for (long n = 0; ; n++) {",
        "        if (n % save_every == 0 || n == steps) {",
        "            double *o = out + k * out_stride;",
        "            for (long i = 0; i < m; i++)",
        "                for (long j = 0; j < DIM; j++) o[i * DIM + j] = yc[j * CHUNK + i];",
        "            k++;",
        "        }",
        "        if (n == steps) break;",
    ]
    for i, k in enumerate(index):
        if time_index is not None:
            lines.append(f"        sa[{i}][{time_index}] = (t0 + (double)(first + n) * h) + a[{i * n_par + time_index}];")
            lines.append(f"        gc_scalars{k}(sa[{i}]);")
        lines.append(f"        gc_stage{k}(sa[{i}], yc, cc, m);")
    lines += [
        "    }",
        "    free(buf);",
        "    return 0;",
        "}",
        f"int {BATCH_ENTRY}(const double *a, double t0, long first, const double *Y0, long batch, long steps,",
        "                 long save_every, double *out, long out_stride, int threads)",
        "{",
        "    long nchunks = (batch + CHUNK - 1) / CHUNK;",
        "    int failed = 0;",
        "#ifdef _OPENMP",
        "    #pragma omp parallel for schedule(dynamic, 1) num_threads(threads > 0 ? threads : 1)"
        " if (threads > 1 && nchunks > 1) reduction(|: failed)",
        "#endif",
        "    for (long c = 0; c < nchunks; c++) {",
        "        long b0 = c * CHUNK;",
        "        long m = batch - b0 < CHUNK ? batch - b0 : CHUNK;",
        "        failed |= gc_chunk(a, t0, first, Y0 + b0 * DIM, m, steps, save_every, out + b0 * DIM, out_stride);",
        "    }",
        "    (void)threads;",
        "    return failed;",
        "}",
        "",
    ]
    return "\n".join(lines)


# ------------------------------------------------------------------------ compiling


def find_compiler():
    """The C compiler to use (``$CC`` or ``cc``) as an absolute path, or None when there is none.

    >>> find_compiler() is None or os.path.isabs(find_compiler())
    True
    """
    return shutil.which(os.environ.get("CC") or "cc")


def cache_dir() -> str:
    """The per-user directory of compiled step loops (created on demand).

    ``$GEOMCHECK_CACHE_DIR``, else ``$XDG_CACHE_HOME/geomcheck/compiled``, else
    ``~/.cache/geomcheck/compiled``.

    >>> os.path.isdir(cache_dir())
    True
    """
    root = os.environ.get("GEOMCHECK_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "geomcheck", "compiled")
    os.makedirs(root, exist_ok=True)
    return root


#: the on-disk cache is trimmed (oldest first) to 80 % of this when a build makes it larger
CACHE_LIMIT_BYTES = int(float(os.environ.get("GEOMCHECK_CACHE_MAX_MB", "200")) * 2**20)

_LIBRARIES = Memo("integrators.compiled.libraries", 256)
_COMPILER_IDS: dict = {}
_PRIVATE_DIR: list = []


def _compiler_identity(cc: str) -> str:
    """What the compiler says it is (``cc --version``): a new compiler means a new cache key."""
    if cc not in _COMPILER_IDS:
        try:
            proc = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30)
            _COMPILER_IDS[cc] = (proc.stdout or proc.stderr).strip().splitlines()[0] if proc.returncode == 0 else cc
        except (OSError, subprocess.SubprocessError, IndexError):
            _COMPILER_IDS[cc] = cc
    return _COMPILER_IDS[cc]


def _writable_cache() -> str:
    """The cache directory, or (with a :class:`CompiledCacheWarning`) a private one of this process."""
    try:
        directory = cache_dir()
        with tempfile.TemporaryFile(dir=directory):
            pass
        return directory
    except OSError as exc:
        reason = f"{exc.strerror or exc} ({getattr(exc, 'filename', None) or 'the cache directory'})"
    if not _PRIVATE_DIR:
        import atexit

        try:
            _PRIVATE_DIR.append(tempfile.mkdtemp(prefix="geomcheck-compiled-"))
        except OSError as exc:
            raise CompilerUnavailableError(f"the compiled-step cache cannot be written ({reason}) and no temporary"
                                           f" directory can be made ({exc.strerror or exc})") from None
        atexit.register(shutil.rmtree, _PRIVATE_DIR[0], True)
        warnings.warn(f"the compiled-step cache cannot be written: {reason}; compiling into {_PRIVATE_DIR[0]}"
                      " for this process (set GEOMCHECK_CACHE_DIR to a writable directory)",
                      CompiledCacheWarning, stacklevel=4)
    return _PRIVATE_DIR[0]


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _verified(target: str):
    """The bytes of the cached library when its stored checksum matches them, else None."""
    try:
        with open(target, "rb") as f:
            data = f.read()
        with open(target + ".sha256", encoding="ascii") as f:
            stored = f.read().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return data if stored == _digest(data) else None


def _compile_into(cc, source, directory, key, target, cflags=CFLAGS):
    fd, c_file = tempfile.mkstemp(suffix=".c", prefix=f"gc_step_{key}_", dir=directory)
    so_tmp = c_file[:-2] + ".so.tmp"
    sum_tmp = c_file[:-2] + ".sha256.tmp"
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(source)
        proc = subprocess.run([cc, *cflags, "-o", so_tmp, c_file, "-lm"], capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompilerUnavailableError(
                f"{cc} failed to compile the generated step loop (exit {proc.returncode}): {proc.stderr[-2000:]}")
        with open(so_tmp, "rb") as f:
            data = f.read()
        with open(sum_tmp, "w", encoding="ascii") as f:
            f.write(_digest(data) + "\n")
        # atomic each: another process sees a whole library or none, and a checksum that matches it or not
        os.replace(so_tmp, target)
        os.replace(sum_tmp, target + ".sha256")
    finally:
        for f in (c_file, so_tmp, sum_tmp):
            if os.path.exists(f):
                os.remove(f)
    _trim(directory, keep=(target, target + ".sha256"))
    return data


def _trim(directory, keep=()):
    try:
        entries = [os.path.join(directory, n) for n in os.listdir(directory) if n.startswith("gc_step_")]
        entries = [e for e in entries if e not in keep]
        sizes = {e: os.stat(e) for e in entries}
    except OSError:
        return
    total = sum(st.st_size for st in sizes.values()) + sum(os.path.getsize(k) for k in keep if os.path.exists(k))
    if total <= CACHE_LIMIT_BYTES:
        return
    for e in sorted(sizes, key=lambda e: sizes[e].st_mtime):
        if total <= 0.8 * CACHE_LIMIT_BYTES:
            break
        try:
            os.remove(e)
            total -= sizes[e].st_size
        except OSError:
            pass


def build_library(source: str, flags=None):
    """Compile ``source`` (once per user, source, compiler and flags): ``(path, verified bytes)``.

    A cached library is used only when the checksum stored beside it matches its bytes; a
    truncated, damaged or foreign file under the same name is rebuilt, with a warning.
    ``flags``: a callable ``flags(cc) -> (flags, identity)`` (default :data:`CFLAGS`), the
    identity naming whatever the flags resolve to on this machine (``-march=native``'s target).
    """
    cc = find_compiler()
    if cc is None:
        raise CompilerUnavailableError(
            f"no C compiler found (looked for {os.environ.get('CC') or 'cc'!r} on PATH; set $CC to one)")
    cflags, identity = (CFLAGS, "") if flags is None else flags(cc)
    # the machine's architecture too: `cc --version` does not always name the target, and a
    # library may be shipped to another node (see ship_library)
    parts = [source, cc, _compiler_identity(cc), platform.machine(), os.name, *cflags] + ([identity] if identity else [])
    key = _digest("\0".join(parts).encode())[:24]
    directory = _writable_cache()
    target = os.path.join(directory, f"gc_step_{key}.so")
    data = _verified(target)
    if data is not None:
        return target, data
    if os.path.exists(target):
        warnings.warn(f"the cached library {target} does not match its checksum (damaged or replaced); rebuilt",
                      CompiledCacheWarning, stacklevel=4)
    try:
        return target, _compile_into(cc, source, directory, key, target, cflags)
    except OSError as exc:
        raise CompilerUnavailableError(f"the step loop could not be built in {directory}: {exc.strerror or exc}"
                                       ) from None


LIBRARY_NAME = re.compile(r"gc_step_[0-9a-f]{24}\.so")


def ship_library(path: str):
    """``(name, bytes, sha256)`` of a library this process built or verified, to install elsewhere.

    For a cluster: the library is compiled once, on the client, and installed into each
    worker's cache with :func:`install_library`; a worker then finds it under the name its own
    key gives (the same source, compiler, flags and architecture), and compiles nothing.
    Returns None when ``path`` is not a verified library of the cache.
    """
    found = re.search(r"\S*gc_step_[0-9a-f]{24}\.so", str(path))   # a path, or a note naming one ("auto: ...")
    if found is None:
        return None
    path = found.group(0)
    name = os.path.basename(path)
    if not LIBRARY_NAME.fullmatch(name):
        return None
    data = _verified(str(path))
    return None if data is None else (name, data, _digest(data))


def install_library(name: str, data: bytes, sha256: str) -> str:
    """Put a library from :func:`ship_library` into this process's cache; returns its path.

    The bytes must match the checksum and the name must be a cache name; a library already
    there with the same bytes is kept.  A worker loads it only under the key it computes
    itself, so a library built by another compiler or for another architecture is never used.

    Raises
    ------
    InvalidArgumentError
        Not a cache name, or bytes that do not match the checksum.
    """
    if not isinstance(name, str) or not LIBRARY_NAME.fullmatch(name):
        raise InvalidArgumentError(f"{name!r} is not the name of a compiled-step library (gc_step_<24 hex>.so)")
    if not isinstance(data, (bytes, bytearray)) or _digest(bytes(data)) != sha256:
        raise InvalidArgumentError(f"the bytes shipped for {name} do not match their SHA-256; not installed")
    directory = _writable_cache()
    target = os.path.join(directory, name)
    if _verified(target) == data:
        return target
    fd, so_tmp = tempfile.mkstemp(suffix=".so.tmp", prefix="gc_step_ship_", dir=directory)
    sum_tmp = so_tmp[:-len(".so.tmp")] + ".sha256.tmp"
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        with open(sum_tmp, "w", encoding="ascii") as f:
            f.write(sha256 + "\n")
        os.replace(so_tmp, target)
        os.replace(sum_tmp, target + ".sha256")
    finally:
        for f in (so_tmp, sum_tmp):
            if os.path.exists(f):
                os.remove(f)
    _trim(directory, keep=(target, target + ".sha256"))
    return target


def load_library(target: str, data: bytes):
    """dlopen a private copy of the verified bytes (nobody can truncate or swap it while mapped).

    The step loops' entry points get their argument types here; another library (the compiled
    Newton's) sets its own."""
    lib = _LIBRARIES.get(target)
    if lib is not None:
        return lib
    fd, private = tempfile.mkstemp(suffix=".so", prefix="gc_loaded_")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        lib = ctypes.CDLL(private)
    except OSError as exc:
        raise CompilerUnavailableError(f"the compiled step loop could not be loaded: {exc}") from None
    finally:
        os.remove(private)  # the mapping stays valid; the name goes
    dp = ctypes.POINTER(ctypes.c_double)
    if hasattr(lib, BATCH_ENTRY):
        fn = getattr(lib, BATCH_ENTRY)
        fn.argtypes = [dp, ctypes.c_double, ctypes.c_long, dp, ctypes.c_long, ctypes.c_long, ctypes.c_long, dp,
                       ctypes.c_long, ctypes.c_int]
        fn.restype = ctypes.c_int
    elif hasattr(lib, ENTRY):
        fn = getattr(lib, ENTRY)
        fn.argtypes = [dp, ctypes.c_double, ctypes.c_long, dp, ctypes.c_long, ctypes.c_long, dp, ctypes.c_long]
        fn.restype = ctypes.c_int
    _LIBRARIES.put(target, lib)
    return lib


class CompiledStep:
    """An explicit step map compiled to a C run loop.

    Parameters
    ----------
    phi : gc.Map
    parameters : sequence of Symbol (``h`` first)
    time : Symbol, optional (see :func:`c_source`)

    Attributes
    ----------
    source : str    the generated C
    library : str   the path of the shared library
    dim : int

    Examples
    --------
    >>> import sympy, numpy as np, geomcheck as gc
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> euler = gc.Map(M, M, [q + h * p, p - h * sympy.sin(q)])
    >>> if find_compiler():
    ...     out = CompiledStep(euler, [h]).run([0.1], [1.0, 0.0], steps=1)
    ...     print(out.round(6))
    ... else:
    ...     print([[1.0, 0.0], [1.0, -0.084147]])
    [[ 1.        0.      ]
     [ 1.       -0.084147]]
    """

    def __init__(self, phi, parameters, time=None):
        self.phi = phi
        self.parameters = tuple(parameters)
        self.n_values = len(self.parameters)
        self.dim = len(phi.source.coords)
        self.source = c_source(phi, self.parameters, time)
        self._load()

    def _load(self):
        self.library, data = build_library(self.source)
        self._fn = getattr(load_library(self.library, data), ENTRY)

    def run(self, values, y0, steps, save_every=1, t0=0.0, out=None, out_stride=None, first=0):
        """Run one trajectory; returns the saved states ``(n_saved, dim)`` (or fills ``out``).

        ``first``: the index in the whole run of the first step taken (a time-dependent step map
        is evaluated at ``t0 + (first + n) h``, the same double as in one uninterrupted run).
        """
        a = np.ascontiguousarray(values, dtype=float)
        if a.shape != (self.n_values,):
            raise InvalidArgumentError(f"expected {self.n_values} parameter values for {self.parameters}")
        y = np.ascontiguousarray(y0, dtype=float)
        if y.shape != (self.dim,):
            raise InvalidArgumentError(f"y0 must have shape ({self.dim},), got {y.shape}")
        steps = check_count(steps, "steps", 0)
        save_every = check_count(save_every, "save_every", 1)
        for name, count in (("steps", first + steps), ("save_every", save_every)):
            if count >= C_LONG_LIMIT:   # a C long: beyond it the loop's counters wrap around
                raise InvalidArgumentError(f"{name}={count} is beyond the compiled loop's range (< 2**62)")
        n_saved = steps // save_every + 1 + (1 if steps % save_every else 0)
        if out is None:
            out, out_stride = np.empty((n_saved, self.dim)), self.dim
        elif out.dtype != np.float64 or out.shape != (n_saved, self.dim) or out.strides[1] != 8 \
                or out.strides[0] != 8 * out_stride:
            raise InvalidArgumentError(f"out must be a float64 view of shape ({n_saved}, {self.dim}) whose rows"
                                       f" are out_stride = {out_stride} doubles apart")
        dp = ctypes.POINTER(ctypes.c_double)
        # out may be a strided view (one trajectory of an ensemble buffer): pass its first element
        code = self._fn(a.ctypes.data_as(dp), float(t0), int(first), y.ctypes.data_as(dp), steps, save_every,
                        ctypes.cast(out.ctypes.data, dp), int(out_stride))
        if code != 0:
            raise MemoryError("the compiled step loop could not allocate its state buffers")
        return out


def _flat_stage_values(stages, values, parameters, time_index) -> list:
    """Each stage's scalars (from one step's ``values``, ``h`` first), then ``h``: the staged loops' ``a``."""
    values = [float(v) for v in values]
    if len(values) != len(parameters):
        raise InvalidArgumentError(f"expected {len(parameters)} parameter values for {tuple(parameters)}")
    flat = []
    for st in stages:
        vals = stage_values(values, st, "numpy", None)
        if time_index is not None:
            # the loop adds t0 + n h; this slot holds the stage's offset times h
            vals[time_index] = float(sympy.N(st.offset * sympy.Float(values[0], 30), 20))
        flat += vals
    flat.append(values[0])
    return flat


class CompiledStages(CompiledStep):
    """The explicit stages of a composition compiled to one C run loop (:func:`c_source_stages`).

    ``run(values, ...)`` takes the scalars of one step (``h`` first, as for
    :class:`CompiledStep`); each stage's are derived from them by
    :func:`integrators.staged.stage_values`, exactly as on the numpy path.
    """

    def __init__(self, stages, parameters, time=None):
        self.stages = tuple(stages)
        self.phi = self.stages[0].map
        self.parameters = tuple(parameters)
        self.time_index = self.parameters.index(time) if time is not None else None
        self.n_values = len(self.parameters)
        self.dim = len(self.phi.source.coords)
        self.source = c_source_stages(self.stages, self.parameters, time)
        self._load()

    def run(self, values, y0, steps, save_every=1, t0=0.0, out=None, out_stride=None, first=0):
        flat = _flat_stage_values(self.stages, values, self.parameters, self.time_index)
        saved_n_values, self.n_values = self.n_values, len(flat)
        try:
            return super().run(flat, y0, steps, save_every, t0, out, out_stride, first)
        finally:
            self.n_values = saved_n_values


class CompiledBatch:
    """The stages of an explicit step compiled to the batched C loop (:func:`c_source_batch`).

    One call per thread runs a whole ensemble: chunks of trajectories as structures of arrays,
    Python threads over ranges of whole chunks (ctypes releases the GIL during each call; OpenMP
    inside one call with ``$GEOMCHECK_OPENMP=1``).  Each trajectory's
    doubles do not depend on the chunking or the threads.

    Parameters
    ----------
    stages : sequence of Stage (explicit maps)
    parameters : sequence of Symbol (``h`` first)
    time : Symbol, optional
    fsal : bool
        Carry the values :func:`fsal_links` finds from each step's end to the next step's start.

    Attributes
    ----------
    source, library, dim, links (the FSAL pairs ``(S, E)``), openmp (bool)

    Examples
    --------
    >>> import sympy, numpy as np, geomcheck as gc
    >>> from integrators.schemes.base import Stage
    >>> M = gc.Chart("q p"); q, p = M.coords; h = sympy.Symbol("h")
    >>> euler = gc.Map(M, M, [q + h * p, p - h * q])
    >>> if find_compiler():
    ...     out = CompiledBatch([Stage(euler)], [h]).run([0.5], np.array([[1.0, 0.0], [2.0, 0.0]]), steps=2)
    ...     print(out.tolist())
    ... else:
    ...     print([[[1.0, 0.0], [2.0, 0.0]], [[1.0, -0.5], [2.0, -1.0]], [[0.75, -1.0], [1.5, -2.0]]])
    [[[1.0, 0.0], [2.0, 0.0]], [[1.0, -0.5], [2.0, -1.0]], [[0.75, -1.0], [1.5, -2.0]]]
    """

    def __init__(self, stages, parameters, time=None, fsal=True):
        self.stages = tuple(stages)
        self.parameters = tuple(parameters)
        self.time_index = self.parameters.index(time) if time is not None else None
        self.n_values = len(self.parameters)
        self.phi = self.stages[0].map
        self.dim = len(self.phi.source.coords)
        if not all(isinstance(st.map, gc.Map) for st in self.stages):
            raise NotLowerableError("the compiled path runs explicit step maps (gc.Map); a stage is implicit")
        maps = {id(st.map) for st in self.stages}
        constants = [s for k, s in enumerate(self.parameters) if k != 0 and k != self.time_index]
        self.links = fsal_links(self.phi, constants) if fsal and len(maps) == 1 else []
        self.source = c_source_batch(self.stages, self.parameters, time, fsal, links=self.links)
        large = len(self.source) > LARGE_SOURCE
        self.flags = batch_flags(find_compiler() or "cc", large)[0]
        self.library, data = build_library(self.source, lambda cc: batch_flags(cc, large))
        self.openmp = "-fopenmp" in self.flags
        self._fn = getattr(load_library(self.library, data), BATCH_ENTRY)

    def flat_values(self, values) -> list:
        """Each stage's scalars (from one step's, ``h`` first), then ``h``: the loop's ``a``."""
        return _flat_stage_values(self.stages, values, self.parameters, self.time_index)

    def run(self, values, Y0, steps, save_every=1, t0=0.0, out=None, first=0, threads=None):
        """Run the ensemble ``Y0`` ``(batch, dim)``; returns (or fills) ``out`` ``(n_saved, batch, dim)``."""
        a = np.ascontiguousarray(self.flat_values(values), dtype=float)
        Y = np.ascontiguousarray(Y0, dtype=float)
        if Y.ndim != 2 or Y.shape[1] != self.dim:
            raise InvalidArgumentError(f"Y0 must have shape (batch, {self.dim}), got {Y.shape}")
        steps = check_count(steps, "steps", 0)
        save_every = check_count(save_every, "save_every", 1)
        for name, count in (("steps", first + steps), ("save_every", save_every)):
            if count >= C_LONG_LIMIT:   # a C long: beyond it the loop's counters wrap around
                raise InvalidArgumentError(f"{name}={count} is beyond the compiled loop's range (< 2**62)")
        batch = Y.shape[0]
        n_saved = steps // save_every + 1 + (1 if steps % save_every else 0)
        if out is None:
            out = np.empty((n_saved, batch, self.dim))
        elif out.dtype != np.float64 or out.shape != (n_saved, batch, self.dim) or not out.flags.c_contiguous:
            raise InvalidArgumentError(f"out must be a C-contiguous float64 array of shape ({n_saved}, {batch},"
                                       f" {self.dim})")
        threads = default_threads() if threads is None else check_count(threads, "threads", 1)
        dp = ctypes.POINTER(ctypes.c_double)
        stride = batch * self.dim
        chunk = chunk_size(self.dim, len(self.links))
        if batch * max(steps, 1) * self.dim < THREADS_MIN_WORK:
            threads = 1      # waking threads would cost more than the run

        def call(b0, b1, n_threads):
            return self._fn(a.ctypes.data_as(dp), float(t0), int(first),
                            ctypes.cast(Y.ctypes.data + 8 * b0 * self.dim, dp), b1 - b0, steps, save_every,
                            ctypes.cast(out.ctypes.data + 8 * b0 * self.dim, dp), stride, n_threads)

        if self.openmp or threads == 1 or batch <= chunk:
            codes = [call(0, batch, threads)]
        else:
            # Python threads over ranges of whole chunks (ctypes releases the GIL during each call)
            from concurrent.futures import ThreadPoolExecutor

            n_chunks = -(-batch // chunk)
            per = -(-n_chunks // threads) * chunk
            ranges = [(b, min(batch, b + per)) for b in range(0, batch, per)]
            with ThreadPoolExecutor(len(ranges)) as pool:
                codes = list(pool.map(lambda r: call(r[0], r[1], 1), ranges))
        if any(codes):
            raise MemoryError("the compiled step loop could not allocate its state buffers")
        return out


_STEPS = Memo("integrators.compiled.steps", 128)


def compile_batch(stages, parameters, time=None, fsal=True) -> CompiledBatch:
    """The batched compiled loop of ``stages`` (cached per stages, parameters and ``fsal`` in this process)."""
    stages = tuple(stages)
    key = ("batch", tuple((id(st.map), st.factor, st.offset) for st in stages), tuple(parameters), time, bool(fsal))
    hit = _STEPS.get(key)
    if hit is not None and all(a.map is b.map for a, b in zip(hit.stages, stages)):
        return hit
    step = CompiledBatch(stages, parameters, time, fsal)
    _STEPS.put(key, step)
    return step


def compile_step(phi, parameters, time=None) -> CompiledStep:
    """The compiled run loop of ``phi`` (cached per map and parameters in this process).

    Raises
    ------
    NotLowerableError
        An implicit or generic map, or a function the C printer does not know.
    CompilerUnavailableError
        No C compiler, or the compilation failed.
    """
    key = (id(phi), tuple(parameters), time)
    hit = _STEPS.get(key)
    if hit is not None and hit.phi is phi:
        return hit
    step = CompiledStep(phi, parameters, time)
    _STEPS.put(key, step)
    return step


def compile_stages(stages, parameters, time=None) -> CompiledStages:
    """The compiled run loop of a staged step (cached per stages and parameters in this process)."""
    key = (tuple((id(st.map), st.factor, st.offset) for st in stages), tuple(parameters), time)
    hit = _STEPS.get(key)
    if hit is not None and all(a.map is b.map for a, b in zip(hit.stages, stages)):
        return hit
    step = CompiledStages(stages, parameters, time)
    _STEPS.put(key, step)
    return step


# ------------------------------------------------------------------------ the run


def compiled_run(stages, parameters, time, values, t0, fsal=True, threads=None) -> "CompiledRun":
    """The compiled loop of ``stages`` bound to ``values`` (``h`` and the constants), for the run pipeline.

    The batched loop (:class:`CompiledBatch`): one C call per run (per observed block) for the
    whole ensemble; ``fsal`` carries the values :func:`fsal_links` finds across steps;
    ``threads`` (default :func:`default_threads`) run the chunks of a large ensemble.

    Raises
    ------
    NotLowerableError
        An implicit stage (Newton's method runs in numpy), a generic map, a function C does not know.
    CompilerUnavailableError
        No C compiler, or the generated C did not compile.
    """
    if not all(isinstance(st.map, gc.Map) for st in stages):
        raise NotLowerableError("the step map is implicit (Newton's method runs in numpy); the compiled path runs"
                                " explicit maps only")
    compiled = compile_batch(stages, parameters, time, fsal)
    return CompiledRun(compiled, values, t0, time is not None, threads)


class CompiledRun:
    """A compiled step loop bound to its scalars: ``run`` as :class:`integrators.stepping.Stepper`'s, in C.

    The whole ensemble runs its whole stretch in one call of the batched C loop; with
    ``observe`` the loop runs in blocks of consecutive steps, every state saved to a block
    buffer and shown to the observer (the same doubles as one uninterrupted run: the time of a
    step is computed from its index in the whole run, and a value carried across steps (FSAL)
    is recomputed at a block's start by the very operations that computed it at the end of
    the step before).
    """

    def __init__(self, compiled: CompiledBatch, values, t0, time_dependent: bool, threads=None):
        self.compiled = compiled
        self.values = [float(v) for v in values] + ([0.0] if time_dependent else [])  # the loop sets the time
        self.t0 = float(sympy.N(t0)) if isinstance(t0, sympy.Basic) else float(t0)
        self.library = compiled.library
        self.threads = threads

    def newton_record(self):
        """None: the compiled loop runs explicit steps only."""
        return None

    def run(self, Y, saved_steps, out, watch, bar=None, observer=None) -> None:
        steps = int(saved_steps[-1])
        save_every = int(saved_steps[1]) if len(saved_steps) > 1 else 1
        if observer is None:
            self.compiled.run(self.values, Y, steps, save_every, self.t0, out=out, threads=self.threads)
        else:
            self._run_observed(Y, saved_steps, out, observer)
        for k, n in enumerate(saved_steps):
            watch.saved(out[k], int(n))
        if bar is not None:
            bar.update(steps)

    def _run_observed(self, Y, saved_steps, out, observer):
        batch, dim = Y.shape
        steps = int(saved_steps[-1])
        position = {int(n): k for k, n in enumerate(saved_steps)}
        state = np.array(Y, dtype=float)
        first = 0
        while first <= steps:
            m = min(observer.size, steps + 1 - first)
            taken = min(m, steps - first)          # the block's states, and the first of the next block
            block = np.empty((taken + 1, batch, dim))
            self.compiled.run(self.values, state, taken, 1, self.t0, out=block, first=first, threads=self.threads)
            observer.add_rows(block[:m], first)
            for j in range(m):
                k = position.get(first + j)
                if k is not None:
                    out[k] = block[j]
            state = block[taken]
            first += m
