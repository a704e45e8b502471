"""Shared helpers of the benchmark scripts: isolation, timing, memory, tables.

Every measured cell runs in a forked child process (``run_cell``):

* the parent never does heavy symbolic work, so its caches and memory stay small
  and every cell starts from the same state;
* a hard time cap is enforced by killing the child, so a method that hangs gives
  "timeout" in the table instead of a hung benchmark;
* the child's peak resident set size is read from ``/proc/self/status``
  (``VmHWM``, reset at the start of the child through ``/proc/self/clear_refs``
  where the kernel allows it), so every cell also reports its peak memory.
  The figure includes the interpreter, sympy and geomcheck themselves (see
  ``baseline_rss`` in the result).

Inside the child a measurement is repeated (best of a few) while it is cheap;
every repetition starts with cold caches (``clear_caches``): sympy's global
cache, every ``functools`` cache and every module-level cache dict of the loaded
``geomcheck`` modules.

Only the standard library and sympy are used here; geomcheck is imported lazily.
"""

from __future__ import annotations

import argparse
import datetime
import math
import multiprocessing
import os
import platform
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

__all__ = [
    "CellResult",
    "Table",
    "base_parser",
    "clear_caches",
    "engine",
    "fmt_mb",
    "fmt_s",
    "goal",
    "machine_info",
    "print_header",
    "run_cell",
    "wait_for_engine",
]


# --------------------------------------------------------------------------- caches


def clear_caches() -> list[str]:
    """Clear sympy's cache and every memo of the engine (``geomcheck.clear_caches``).

    Returns what was cleared (for the notes), so no repetition is answered from a
    cache warmed by an earlier one.
    """
    from sympy.core.cache import clear_cache

    clear_cache()
    gc_mod = sys.modules.get("geomcheck")
    if gc_mod is None:
        return ["sympy"]
    gc_mod.clear_caches()
    return ["sympy", "geomcheck.clear_caches()"]


# --------------------------------------------------------------------------- memory


def _status_kb(key: str) -> int | None:
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    """Reset this process's peak RSS (Linux >= 4.0); False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak_rss_bytes() -> int | None:
    kb = _status_kb("VmHWM")
    if kb is None:
        import resource

        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return kb * 1024


# --------------------------------------------------------------------------- cells


@dataclass
class CellResult:
    """Outcome of one measured cell."""

    status: str                      # "ok" | "timeout" | "error"
    seconds: float | None = None     # best of the repetitions
    times: list[float] = field(default_factory=list)
    value: Any = None                # what the measured function returned (last repetition)
    extra: dict = field(default_factory=dict)  # anything the function reported besides
    peak_rss: int | None = None      # bytes, whole child process
    baseline_rss: int | None = None  # bytes, child at start (interpreter + imports)
    message: str = ""                # error text or timeout note
    caches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _child(conn, fn, args, repeats, min_total, cap):
    try:
        _reset_peak()
        baseline = (_status_kb("VmRSS") or 0) * 1024
        times: list[float] = []
        value = None
        extra: dict = {}
        caches: list[str] = []
        start_all = time.perf_counter()
        for k in range(max(1, repeats)):
            caches = clear_caches()
            t0 = time.perf_counter()
            out = fn(*args)
            times.append(time.perf_counter() - t0)
            if isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], dict):
                out_value, out_extra = out
            else:
                out_value, out_extra = out, {}
            if "seconds" in out_extra:  # the function timed the part that counts itself
                times[-1] = out_extra["seconds"]
            if times[-1] == min(times):  # keep what the best repetition reported
                value, extra = out_value, out_extra
            spent = time.perf_counter() - start_all
            # repeat only while cheap: stop once enough time has been spent or
            # another repetition would likely cross the cap
            if spent >= min_total or spent + times[-1] > 0.5 * cap:
                break
        conn.send(CellResult("ok", min(times), times, value, extra,
                             _peak_rss_bytes(), baseline, "", caches))
    except BaseException as exc:  # report every failure, including TypeError of a method
        msg = f"{type(exc).__name__}: {exc}"
        tb = traceback.format_exc(limit=6)
        conn.send(CellResult("error", message=msg, extra={"traceback": tb},
                             peak_rss=_peak_rss_bytes()))
    finally:
        conn.close()


def best_of(fn: Callable, repeats: int):
    """``(best wall seconds, last result)`` of ``fn()`` run ``repeats`` times in this process."""
    times, out = [], None
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def run_cell(fn: Callable, *args, cap: float = 120.0, repeats: int = 3,
             min_total: float = 1.0) -> CellResult:
    """Run ``fn(*args)`` in a forked child with a hard time cap of ``cap`` seconds.

    ``fn`` may return a value, or ``(value, extra_dict)``; an ``extra_dict["seconds"]``
    replaces the wall time of that call (for functions that time only part of
    themselves, leaving setup out).  It is called up to
    ``repeats`` times (cold caches each time) while the total stays under
    ``min_total`` seconds; the best time is reported.
    """
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, args, repeats, min_total, cap))
    proc.start()
    send.close()
    result: CellResult
    if recv.poll(cap):
        try:
            result = recv.recv()
        except EOFError:
            result = CellResult("error", message=f"child died (exit code {proc.exitcode})")
    else:
        result = CellResult("timeout", message=f"exceeded the cap of {cap:g} s")
    if proc.is_alive():
        proc.kill()  # our own child, by its handle
    proc.join()
    if result.status == "error" and proc.exitcode not in (0, None) and not result.message:
        result.message = f"child died (exit code {proc.exitcode})"
    recv.close()
    return result


# --------------------------------------------------------------------------- engine


def engine(require: Sequence[str] = ()) -> tuple[Any, str]:
    """Import geomcheck; return (module or None, reason when unavailable)."""
    try:
        import geomcheck as gc
    except Exception as exc:
        return None, f"import geomcheck failed: {type(exc).__name__}: {exc}"
    # Import every submodule now, in the parent: a lazily imported module would
    # otherwise be imported inside the first timed repetition of every cell, and
    # its caches would escape clear_caches() in that repetition.
    import importlib
    import pkgutil

    for info in pkgutil.walk_packages(gc.__path__, "geomcheck."):
        try:
            importlib.import_module(info.name)
        except Exception:  # a broken optional module is not what is measured
            pass
    missing = [name for name in require if not hasattr(gc, name)]
    if missing:
        return None, "geomcheck lacks " + ", ".join(missing)
    return gc, ""


def wait_for_engine(require: Sequence[str], timeout: float, poll: float = 30.0):
    """Poll (in fresh interpreters) until geomcheck provides ``require``."""
    import subprocess

    probe = "import geomcheck as gc; " + "; ".join(f"gc.{n}" for n in require)
    deadline = time.monotonic() + timeout
    while True:
        r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
        if r.returncode == 0:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(poll)


def load_engine(args: argparse.Namespace, require: Sequence[str]):
    """geomcheck (or None, with the reason printed) as the benchmarks' --no-engine /
    --wait-engine options ask."""
    if args.no_engine:
        return None
    if args.wait_engine > 0:
        wait_for_engine(require, args.wait_engine)
    gc, why = engine(require)
    if gc is None:
        print(f"# engine unavailable ({why}); baselines only\n", flush=True)
    return gc


# --------------------------------------------------------------------------- formatting


def fmt_s(x: float | None, status: str = "ok") -> str:
    if status == "timeout":
        return "timeout"
    if status == "error":
        return "error"
    if status == "skipped" or x is None:
        return "-"
    if x < 0.01:
        return f"{x * 1000:.2f} ms"
    if x < 10:
        return f"{x:.3f}"
    return f"{x:.1f}"


def fmt_mb(b: int | None) -> str:
    return "-" if b is None else f"{b / 2**20:.0f} MB"


def fmt_ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.3f}"


def goal(name: str, measured: float | None, limit: float, unit: str = "") -> tuple[str, str]:
    """A goal ``measured <= limit``; returns (verdict, one printed line)."""
    if measured is None or (isinstance(measured, float) and math.isnan(measured)):
        verdict = "MISS"
        shown = "not measured"
    else:
        verdict = "PASS" if measured <= limit else "MISS"
        shown = f"{measured:.3g}{unit}"
    return verdict, f"[{verdict}] {name}: measured {shown}, goal <= {limit:g}{unit}"


class Table:
    """A small text / Markdown table."""

    def __init__(self, title: str, headers: Sequence[str]):
        self.title = title
        self.headers = list(headers)
        self.rows: list[list[str]] = []
        self.notes: list[str] = []

    def add(self, *cells: Any) -> None:
        self.rows.append(["-" if c is None else str(c) for c in cells])

    def text(self) -> str:
        widths = [len(h) for h in self.headers]
        for row in self.rows:
            widths = [max(w, len(c)) for w, c in zip(widths, row)]
        line = lambda cells: " | ".join(c.rjust(w) for c, w in zip(cells, widths))
        out = [self.title, line(self.headers), "-+-".join("-" * w for w in widths)]
        out += [line(r) for r in self.rows]
        out += [f"  note: {n}" for n in self.notes]
        return "\n".join(out)

    def markdown(self) -> str:
        out = [f"**{self.title}**", "", "| " + " | ".join(self.headers) + " |",
               "|" + "|".join("---:" for _ in self.headers) + "|"]
        out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in self.rows]
        if self.notes:
            out.append("")
            out += [f"- {n}" for n in self.notes]
        return "\n".join(out)

    def show(self, markdown: bool = False) -> None:
        print(self.markdown() if markdown else self.text(), flush=True)
        print(flush=True)


# --------------------------------------------------------------------------- run info


def machine_info() -> dict[str, str]:
    import sympy

    try:
        import mpmath

        mp = mpmath.__version__
    except Exception:  # pragma: no cover
        mp = "?"
    try:
        load = "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:  # pragma: no cover
        load = "?"
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "nproc": str(os.cpu_count()),
        "cpu": cpu,
        "python": platform.python_version(),
        "sympy": sympy.__version__,
        "mpmath": mp,
        "loadavg": load,
    }


def print_header(name: str, args: argparse.Namespace) -> None:
    info = machine_info()
    print(f"# {name}", flush=True)
    print("# " + ", ".join(f"{k}={v}" for k, v in info.items()), flush=True)
    print("# times: seconds (best of repeats, cold caches each repeat; each cell in a "
          "forked child with a hard cap); memory: peak RSS of that child", flush=True)
    if getattr(args, "quick", False):
        print("# --quick: small sizes only", flush=True)
    print(flush=True)


def int_list(text: str) -> list[int]:
    return [int(x) for x in text.replace(",", " ").split()]


def base_parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true",
                   help="small sizes only (smoke test, well under 30 s)")
    p.add_argument("--repeats", type=int, default=3,
                   help="best of at most this many repetitions per cell (default 3; "
                        "a cell is repeated only while its total stays under ~1 s)")
    p.add_argument("--markdown", action="store_true", help="print tables as Markdown")
    p.add_argument("--no-engine", action="store_true",
                   help="baselines only (do not import geomcheck)")
    p.add_argument("--wait-engine", type=float, default=0.0, metavar="SECONDS",
                   help="poll up to this long for geomcheck to become importable")
    p.add_argument("--profile", action="store_true",
                   help="after the tables, cProfile the engine at the largest size "
                        "(top 25 by cumulative time)")
    return p


def profile_call(fn: Callable, *args, top: int = 25) -> str:
    """cProfile ``fn(*args)`` (cold caches) and return the top entries by cumtime."""
    import cProfile
    import io
    import pstats

    clear_caches()
    prof = cProfile.Profile()
    prof.enable()
    try:
        fn(*args)
    finally:
        prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def run_profile(fn: Callable, *args, cap: float = 600.0, top: int = 25) -> str:
    """``profile_call`` in a forked child with a cap; returns the report text."""
    res = run_cell(lambda *a: (None, {"report": profile_call(fn, *a, top=top)}), *args,
                   cap=cap, repeats=1)
    if res.ok:
        return res.extra["report"]
    return f"profile failed: {res.status} {res.message}"
