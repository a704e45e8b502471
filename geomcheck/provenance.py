"""Which code computed a result: a digest of the installed geomcheck, integrators and casestudies.

A verdict is only as good as the code that reached it.  When work is spread over Dask workers,
every worker must run the very code the client runs (the same version is not enough: a
development checkout keeps its version number while its code changes), or the report would
mix verdicts of two programs.  :func:`check_workers` compares the digest of every worker with
the client's before anything is sent.
"""

from __future__ import annotations

import functools
import hashlib
import os
from typing import Any

from .caches import register
from .errors import InvalidArgumentError

__all__ = ["code_digest", "check_workers", "PACKAGES"]

#: the packages whose source makes up the digest
PACKAGES = ("geomcheck", "integrators", "casestudies")


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """SHA-256 over the path and bytes of every ``.py`` file of :data:`PACKAGES`, in sorted order.

    >>> len(code_digest())
    64
    """
    import importlib

    h = hashlib.sha256()
    for name in PACKAGES:
        root = os.path.dirname(importlib.import_module(name).__file__)
        files = []
        for directory, subdirs, names in os.walk(root):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            files += [os.path.join(directory, n) for n in names if n.endswith(".py")]
        for path in sorted(files):
            h.update(f"{name}/{os.path.relpath(path, root)}".replace(os.sep, "/").encode() + b"\0")
            with open(path, "rb") as f:
                h.update(f.read() + b"\0")
    return h.hexdigest()


register("geomcheck.provenance.code_digest", code_digest.cache_clear, lambda: code_digest.cache_info().currsize)


def check_workers(client: Any) -> None:
    """Refuse a Dask cluster whose workers run other code than this process.

    Raises
    ------
    InvalidArgumentError
        A worker's :func:`code_digest` differs (or geomcheck cannot be imported there), naming
        the workers.
    """
    mine = code_digest()
    try:
        theirs = client.run(code_digest)
    except Exception as exc:  # noqa: BLE001 -- a worker that cannot even import us is the same refusal
        raise InvalidArgumentError(f"the Dask workers could not report which geomcheck they run ({exc}); install"
                                   " this very geomcheck on every worker") from None
    other = sorted(worker for worker, digest in theirs.items() if digest != mine)
    if other:
        raise InvalidArgumentError(
            f"{len(other)} of {len(theirs)} Dask worker(s) run other geomcheck code than this process ({', '.join(other)}):"
            " their verdicts could differ from this program's; install the same geomcheck on every worker")
