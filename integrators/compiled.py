"""A compiled path for long single trajectories of explicit step maps (C through ctypes).

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

__all__ = ["compile_step", "compile_stages", "compiled_run", "CompiledStep", "CompiledStages",
           "CompiledRun", "c_source_stages", "CompiledPathWarning", "CompiledCacheWarning", "CompilerUnavailableError",
           "find_compiler", "cache_dir", "c_source", "ship_library", "install_library"]

CFLAGS = ("-O2", "-ffp-contract=off", "-shared", "-fPIC")
ENTRY = "gc_run"


# ------------------------------------------------------------------------ C code


def _step_body(phi, parameters):
    """``(scalar lines, step lines)``: C statements of one step of ``phi`` from ``yc`` into ``yn``.

    The scalar lines define the hoisted state-free subexpressions from ``a0, a1, ...`` (the
    parameters); the step lines read ``yc``, share subexpressions and write ``yn``.
    """
    coords = phi.source.coords
    dim = len(coords)
    exprs = [sympy.sympify(e) for e in phi.exprs]
    refuse_generic(exprs, "the step map")
    parameters = tuple(parameters)
    extra = set().union(*(e.free_symbols for e in exprs)) - set(coords) - set(parameters)
    if extra:
        raise NotLowerableError(
            f"cannot compile: the step map contains {sorted(map(str, extra))}, which are neither state"
            f" coordinates nor the bound parameters {[str(s) for s in parameters]}")
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
    maps, index = [], []
    for st in stages:
        if not isinstance(st.map, gc.Map):
            raise NotLowerableError(
                f"the compiled path runs explicit step maps (gc.Map); a stage is {type(st.map).__name__}")
        for k, m in enumerate(maps):
            if m is st.map:
                index.append(k)
                break
        else:
            maps.append(st.map)
            index.append(len(maps) - 1)
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


def _compile_into(cc, source, directory, key, target):
    fd, c_file = tempfile.mkstemp(suffix=".c", prefix=f"gc_step_{key}_", dir=directory)
    so_tmp = c_file[:-2] + ".so.tmp"
    sum_tmp = c_file[:-2] + ".sha256.tmp"
    try:
        with os.fdopen(fd, "w") as fh:
            fh.write(source)
        proc = subprocess.run([cc, *CFLAGS, "-o", so_tmp, c_file, "-lm"], capture_output=True, text=True)
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


def _build(source: str):
    """Compile ``source`` (once per user, source, compiler and flags): ``(path, verified bytes)``.

    A cached library is used only when the checksum stored beside it matches its bytes; a
    truncated, damaged or foreign file under the same name is rebuilt, with a warning.
    """
    cc = find_compiler()
    if cc is None:
        raise CompilerUnavailableError(
            f"no C compiler found (looked for {os.environ.get('CC') or 'cc'!r} on PATH; set $CC to one)")
    # the machine's architecture too: `cc --version` does not always name the target, and a
    # library may be shipped to another node (see ship_library)
    key = _digest("\0".join([source, cc, _compiler_identity(cc), platform.machine(), os.name, *CFLAGS]
                            ).encode())[:24]
    directory = _writable_cache()
    target = os.path.join(directory, f"gc_step_{key}.so")
    data = _verified(target)
    if data is not None:
        return target, data
    if os.path.exists(target):
        warnings.warn(f"the cached library {target} does not match its checksum (damaged or replaced); rebuilt",
                      CompiledCacheWarning, stacklevel=4)
    try:
        return target, _compile_into(cc, source, directory, key, target)
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
    name = os.path.basename(str(path))
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


def _load_library(target: str, data: bytes):
    """dlopen a private copy of the verified bytes (nobody can truncate or swap it while mapped)."""
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
    fn = getattr(lib, ENTRY)
    dp = ctypes.POINTER(ctypes.c_double)
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
        self.library, data = _build(self.source)
        self._fn = getattr(_load_library(self.library, data), ENTRY)

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
        values = [float(v) for v in values]
        if len(values) != self.n_values:
            raise InvalidArgumentError(f"expected {self.n_values} parameter values for {self.parameters}")
        flat = []
        for st in self.stages:
            vals = stage_values(values, st, "numpy", None)
            if self.time_index is not None:
                # the loop adds t0 + n h; this slot holds the stage's offset times h
                vals[self.time_index] = float(sympy.N(st.offset * sympy.Float(values[0], 30), 20))
            flat += vals
        flat.append(values[0])
        saved_n_values, self.n_values = self.n_values, len(flat)
        try:
            return super().run(flat, y0, steps, save_every, t0, out, out_stride, first)
        finally:
            self.n_values = saved_n_values


_STEPS = Memo("integrators.compiled.steps", 128)


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


def compiled_run(stages, parameters, time, values, t0) -> "CompiledRun":
    """The compiled loop of ``stages`` bound to ``values`` (``h`` and the constants), for the run pipeline.

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
    if len(stages) == 1 and stages[0].factor == 1:
        compiled = compile_step(stages[0].map, parameters, time)
    else:
        compiled = compile_stages(stages, parameters, time)
    return CompiledRun(compiled, values, t0, time is not None)


class CompiledRun:
    """A compiled step loop bound to its scalars: ``run`` as :class:`integrators.stepping.Stepper`'s, in C.

    Each trajectory runs its whole stretch in one call of the C loop; with ``observe`` the loop
    runs in blocks of consecutive steps, every state saved to a block buffer and shown to the
    observer (the same doubles as one uninterrupted run: the time of a step is computed from its
    index in the whole run).
    """

    def __init__(self, compiled: CompiledStep, values, t0, time_dependent: bool):
        self.compiled = compiled
        self.values = [float(v) for v in values] + ([0.0] if time_dependent else [])  # the loop sets the time
        self.t0 = float(sympy.N(t0)) if isinstance(t0, sympy.Basic) else float(t0)
        self.library = compiled.library

    def newton_record(self):
        """None: the compiled loop runs explicit steps only."""
        return None

    def run(self, Y, saved_steps, out, watch, bar=None, observer=None) -> None:
        batch, dim = Y.shape
        steps = int(saved_steps[-1])
        save_every = int(saved_steps[1]) if len(saved_steps) > 1 else 1
        if observer is None:
            for b in range(batch):
                self.compiled.run(self.values, Y[b], steps, save_every, self.t0, out=out[:, b, :],
                                  out_stride=batch * dim)
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
            for b in range(batch):
                self.compiled.run(self.values, state[b], taken, 1, self.t0, out=block[:, b, :],
                                  out_stride=batch * dim, first=first)
            observer.add_rows(block[:m], first)
            for j in range(m):
                k = position.get(first + j)
                if k is not None:
                    out[k] = block[j]
            state = block[taken]
            first += m
