"""A small thread-safe least-recently-used memo."""

from __future__ import annotations

import threading
from collections import OrderedDict

__all__ = ["LRU"]


class LRU:
    """A small thread-safe least-recently-used memo."""

    def __init__(self, size):
        self.size = size
        self.data: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key):
        with self.lock:
            hit = self.data.get(key)
            if hit is not None:
                self.data.move_to_end(key)
            return hit

    def put(self, key, value):
        with self.lock:
            self.data[key] = value
            if len(self.data) > self.size:
                self.data.popitem(last=False)

    def clear(self):
        with self.lock:
            self.data.clear()
