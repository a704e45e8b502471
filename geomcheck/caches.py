"""Every memo of geomcheck and integrators in one registry: each bounded, all cleared together.

A long sweep over systems and parameters must not keep every system, step map and compiled
library it ever met: each memo is a :class:`Memo` (least recently used entries go first) or
a bounded ``functools.lru_cache`` registered here, and :func:`clear_caches` empties them all
(benchmarks use it for cold runs).  ``tests/geomcheck/test_caches.py`` finds every
``functools`` cache of the three packages and checks that it is registered.

Not memos, and so not here: interning tables whose entries must stay the same objects for the
life of the process, and which are bounded by what exists rather than by what was asked --
the jet function classes (``geomcheck.jets``: a jet is one sympy function class, equal only to
itself), the catalog's built schemes and the schemes' fixed test systems, and the compiler's
probes of this machine (``integrators.compiled``).

>>> from geomcheck.caches import Memo, cache_sizes, clear_caches
>>> m = Memo("example.squares", 2)
>>> for k in range(3):
...     m.put(k, k * k)
>>> len(m), m.get(0), m.get(2)          # the oldest entry went first
(2, None, 4)
>>> cache_sizes()["example.squares"]
2
>>> clear_caches(); len(m)
0
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

__all__ = ["Memo", "register", "clear_caches", "cache_sizes"]

#: name -> (clear, size); memos register themselves (weakly: a memo that is gone is forgotten)
_REGISTRY: dict = {}
_LOCK = threading.Lock()


def register(name: str, clear, size=None) -> None:
    """Register a cache under ``name``: ``clear()`` empties it, ``size()`` counts its entries.

    A ``functools.lru_cache`` function ``f`` registers as ``register(name, f.cache_clear,
    lambda: f.cache_info().currsize)``.
    """
    with _LOCK:
        _REGISTRY[name] = (clear, size)


def clear_caches() -> None:
    """Empty every registered cache."""
    with _LOCK:
        entries = list(_REGISTRY.values())
    for clear, _ in entries:
        clear()


def cache_sizes() -> dict:
    """``{name: number of entries}`` of every registered cache (None where it cannot tell)."""
    with _LOCK:
        items = list(_REGISTRY.items())
    return {name: (size() if size is not None else None) for name, (_, size) in items}


class Memo:
    """A thread-safe least-recently-used memo of at most ``size`` entries, registered by name."""

    def __init__(self, name: str, size: int):
        self.name = name
        self.size = size
        self.data: OrderedDict = OrderedDict()
        self.lock = threading.Lock()
        ref = weakref.ref(self)
        register(name, lambda: ref() is not None and ref().clear(), lambda: len(ref()) if ref() is not None else 0)

    def get(self, key, default=None):
        with self.lock:
            if key not in self.data:
                return default
            self.data.move_to_end(key)
            return self.data[key]

    def put(self, key, value):
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)

    def __contains__(self, key):
        with self.lock:
            return key in self.data

    def __len__(self):
        return len(self.data)

    def clear(self):
        with self.lock:
            self.data.clear()

    def __repr__(self):
        return f"Memo({self.name!r}, {len(self)}/{self.size})"
