"""The one in-memory cache type: a bounded map, least recently used dropped first.

Every cache of a process (folded states, seats' token hashes, rendered
views, entry times) is an :class:`LRU` owned by the object that uses it and
built by the process's wiring (:class:`service.runtime.Runtime`): none is a
module global, so two services in one process (tests build many) never see
each other's entries.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """Up to ``maxsize`` entries; thread-safe. A read moves its entry to the
    newest end; a write past ``maxsize`` drops the oldest."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("an LRU holds at least one entry")
        self.maxsize = maxsize
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V, keep: Callable[[V], bool] | None = None) -> None:
        """Keep ``value`` for ``key``, unless ``keep(old)`` says the entry kept
        should stay (it is still made the newest)."""
        with self._lock:
            old = self._entries.get(key)
            if old is None or keep is None or not keep(old):
                self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)

    def drop(self, key: K) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
