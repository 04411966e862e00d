"""Caches that several Python threads share: each value is built once, whoever asks first.

The operators keep what they derive once per process (compiled kernels and functors, kernel
plans, inferred result types, device thresholds) in module-level caches. Calls from several
threads at once look them up together; a plain dict would let two threads build the same entry
side by side (two compilations, two kernel objects for one key) or, where building reads the
table itself, hand out an inconsistent entry. A :class:`SharedCache` looks a key up without a
lock (a hit, the common case, costs one dictionary read) and builds a missing value under one
process-wide re-entrant lock, after looking again: every thread gets the same value, built once.

One lock for every cache keeps the order of locks trivial: a build that needs another cache's
entry (a kernel plan compiling its kernels, a kernel compiling its functors) takes the lock it
already holds. Builds are rare (the first call of each kernel) and Numba serializes its
compilations under a lock of its own anyway, so builds lose nothing by waiting for each other.
A build that raises stores nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["SharedCache", "BUILD_LOCK"]

#: The lock under which every :class:`SharedCache` builds a missing value.
BUILD_LOCK = threading.RLock()

_V = TypeVar("_V")
_MISSING = object()


class SharedCache(Generic[_V]):
    """A mapping from hashable keys to values built once on first use (see the module
    docstring)."""

    __slots__ = ("name", "_values")

    def __init__(self, name: str) -> None:
        self.name = name
        self._values: dict[Hashable, _V] = {}

    def get(self, key: Hashable, build: Callable[[], _V]) -> _V:
        """The value for ``key``, built by ``build()`` if no thread has built it yet."""
        value = self._values.get(key, _MISSING)
        if value is _MISSING:
            with BUILD_LOCK:
                value = self._values.get(key, _MISSING)
                if value is _MISSING:
                    value = build()
                    self._values[key] = value
        return value  # type: ignore[return-value]

    def find(self, key: Hashable) -> _V | None:
        """The value for ``key`` if a thread has built it, else None (a lookup that, unlike
        :meth:`get`, takes no function to build with: a caller that finds its value makes
        none)."""
        return self._values.get(key)

    def __len__(self) -> int:
        return len(self._values)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._values

    def __repr__(self) -> str:
        return f"<SharedCache {self.name}: {len(self._values)} entries>"
