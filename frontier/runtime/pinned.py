"""Page-locked host memory for results copied back from a GPU, lent out and recycled.

A device-to-host copy into pageable memory (a fresh NumPy array) goes through the driver's
staging buffers and faults in the new pages as it writes them; into page-locked ("pinned")
memory the copy engine writes at the link's speed, several times faster for a result of
megabytes (``bench/device/host_copy.py`` measures both on the machine at hand). Pinning memory
costs more than either copy, so it pays only when the memory is used again. As PyTorch's caching
host allocator does, a :class:`PinnedPool` keeps page-locked blocks and lends them: a result is
a NumPy array over a block, and the block goes back to the pool when the last array viewing it
is garbage collected (never while any view of it is alive). Like any NumPy view, such an array
does not own its memory (``flags.owndata`` is False; ``ndarray.resize`` refuses it).

The rules that bound what pinning costs a caller who never reuses anything:

* a copy of fewer than :data:`MIN_BYTES` takes the pageable path;
* blocks come in size classes (a size rounded up to an eighth of its power of two), and a class
  is pinned only after a copy of it went the pageable way once: a one-off call never pays for
  pinning, a repeated one pays once;
* at most :data:`BLOCKS_PER_CLASS` blocks of a class exist, leased or free, and at most
  ``limit`` bytes in all: a caller keeping every result gets pageable copies past them;
* a class whose pinning the driver refused is copied the pageable way from then on.

Blocks are never given back to the driver before the process ends (at most ``limit`` bytes).
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["PinnedPool", "MIN_BYTES", "BLOCKS_PER_CLASS", "size_class", "default_limit"]

#: Copies smaller than this take the pageable path (the time pinning saves them is below a
#: kernel launch's).
MIN_BYTES = 1 << 20

#: The most blocks of one size class the pool makes. A loop ``result = algo(G)`` holds two
#: results of a size while a call runs (the last one and the new one), and a caller often keeps
#: a few more (one per algorithm of a comparison): with fewer blocks, copies would alternate
#: between pinned and pageable memory.
BLOCKS_PER_CLASS = 8


def size_class(nbytes: int) -> int:
    """``nbytes`` rounded up to a multiple of an eighth of its power of two (at least
    :data:`MIN_BYTES`'s eighth): a block of the class wastes at most an eighth."""
    step = max(MIN_BYTES >> 3, 1 << max(0, nbytes.bit_length() - 4))
    return -(-nbytes // step) * step


def default_limit() -> int:
    """The pool's bytes in all: a sixteenth of the machine's memory, at most 4 GiB."""
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        memory = 8 << 30
    return min(4 << 30, memory // 16)


class _Lease:
    """One block lent out: the NumPy array of a result is made over it (``np.asarray`` of its
    ``__array_interface__``) and keeps it as its base, so the lease ends when the last view
    of the result is collected; the block then goes back to its class's free blocks."""

    __slots__ = ("block", "free", "__array_interface__")

    def __init__(self, block: np.ndarray, free: deque, shape: tuple[int, ...],
                 dtype: np.dtype) -> None:
        self.block, self.free = block, free
        self.__array_interface__ = {"data": (block.ctypes.data, False), "shape": shape,
                                    "typestr": dtype.str, "version": 3}

    def __del__(self) -> None:
        self.free.append(self.block)  # deque.append is atomic: no lock inside a collection


class PinnedPool:
    """Page-locked blocks made by ``allocate(nbytes)`` (a NumPy uint8 array over pinned memory
    that frees it when collected), lent as result arrays. Safe from several threads."""

    def __init__(self, allocate: Callable[[int], np.ndarray], limit: int | None = None) -> None:
        self._allocate = allocate
        self.limit = default_limit() if limit is None else limit
        self._free: dict[int, deque] = {}
        self._made: dict[int, int] = {}
        self._missed: set[int] = set()
        self._lock = threading.Lock()
        self.pinned_bytes = 0

    def borrow(self, shape: tuple[int, ...], dtype: Any) -> np.ndarray | None:
        """A C-contiguous array of ``shape`` and ``dtype`` over a pinned block, or None where the
        rules (module docstring) say to copy into pageable memory."""
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if nbytes < MIN_BYTES:
            return None
        cls = size_class(nbytes)
        free = self._free.get(cls)
        if free is None:
            free = self._free.setdefault(cls, deque())
        try:
            block = free.pop()
        except IndexError:
            block = self._make(cls)
            if block is None:
                return None
        return np.asarray(_Lease(block, free, tuple(shape), dtype))

    def _make(self, cls: int) -> np.ndarray | None:
        """A new block of class ``cls``, where the rules allow one."""
        with self._lock:
            if cls not in self._missed:
                self._missed.add(cls)
                return None
            if (self._made.get(cls, 0) >= BLOCKS_PER_CLASS
                    or self.pinned_bytes + cls > self.limit):
                return None
            self._made[cls] = self._made.get(cls, 0) + 1
            self.pinned_bytes += cls
        try:
            return self._allocate(cls)
        except Exception:  # noqa: BLE001 - a refused pinning means pageable copies, not a failure
            with self._lock:
                self._made[cls] = BLOCKS_PER_CLASS  # not tried again for this class
                self.pinned_bytes -= cls
            return None
