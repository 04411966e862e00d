"""The cuda target's working arrays, from a stream-ordered memory pool of its own.

Every call of an algorithm makes a few working arrays on the device and drops them when it
returns. Through Numba each is a ``cuMemAlloc`` and, later, a ``cuMemFree``, which waits for the
device: on an H100 PageRank's six arrays of rmat21 cost about a millisecond of host time a call
(``python -m bench call_profile --graph rmat21``). As CuPy's and PyTorch's caching allocators do,
:class:`DevicePool` keeps freed memory for the next call instead, using the driver's own
stream-ordered allocator (``cuMemPoolCreate``, ``cuMemAllocFromPoolAsync``, ``cuMemFreeAsync``)
in a pool of the target's, so no other library's allocations are affected:

* an array is allocated and freed in the order of the legacy default stream, where the target
  launches its kernels and copies, so memory freed after a kernel is reused only after it ran;
* the pool keeps up to ``keep`` bytes of freed memory across synchronizations (an eighth of
  the device's memory) and gives the rest back to the driver;
* an array whose last view is collected is freed by the next allocation (as Numba defers its
  own frees), from a thread with the context current;
* the memory the pool keeps unused counts as free in :meth:`idle_bytes` (the size checks
  before copying a graph read it), and :meth:`trim` gives it all back before an allocation
  elsewhere is retried for lack of memory.

Where the device or driver has no memory pools, :func:`make_pool` returns None and the target
allocates through Numba.
"""

from __future__ import annotations

import weakref
from collections import deque
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["DevicePool", "make_pool"]


class DevicePool:
    """Device arrays (Numba ``DeviceNDArray``) from a stream-ordered pool on ``device``."""

    def __init__(self, gpu: ModuleType, device: int, keep: int) -> None:
        driver, binding = gpu.driver, gpu.binding
        self._driver = driver
        self._array, self._pointer = gpu.DeviceNDArray, gpu.AutoFreePointer
        props = binding.CUmemPoolProps()
        props.allocType = binding.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
        props.location.type = binding.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
        props.location.id = device
        self._pool = driver.cuMemPoolCreate(props)
        attribute = binding.CUmemPool_attribute
        driver.cuMemPoolSetAttribute(self._pool, attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                     binding.cuuint64_t(keep))
        self._reserved = attribute.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT
        self._used = attribute.CU_MEMPOOL_ATTR_USED_MEM_CURRENT
        self._stream = binding.CUstream(0)
        self._live: dict[int, Any] = {}
        self._pending: deque = deque()

    def empty(self, context: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        """An uninitialized C-contiguous array of ``shape`` and ``dtype`` (at least one
        element) in the current ``context``."""
        self._drain()
        strides, step = [], dtype.itemsize
        for extent in reversed(shape):
            strides.append(step)
            step *= extent
        nbytes = step
        pointer = self._driver.cuMemAllocFromPoolAsync(nbytes, self._pool, self._stream)
        key, live, pending = int(pointer), self._live, self._pending

        def release() -> None:  # any thread, any time: the free waits for the next allocation
            live.pop(key, None)
            pending.append(pointer)

        memory = self._pointer(weakref.proxy(context), pointer, nbytes, finalizer=release)
        memory._finalizer.atexit = False  # the context's teardown frees it
        live[key] = memory
        return self._array(shape, tuple(reversed(strides)), dtype, gpu_data=memory.own())

    def _drain(self) -> None:
        """Free, in stream order, the arrays collected since the last allocation."""
        pending = self._pending
        while pending:
            try:
                pointer = pending.popleft()
            except IndexError:  # another thread took the last one
                return
            self._driver.cuMemFreeAsync(pointer, self._stream)

    def idle_bytes(self) -> int:
        """Bytes the pool holds that no array uses (free for its next allocations)."""
        self._drain()
        reserved = self._driver.cuMemPoolGetAttribute(self._pool, self._reserved)
        used = self._driver.cuMemPoolGetAttribute(self._pool, self._used)
        return max(0, int(reserved) - int(used))

    def trim(self) -> None:
        """Give every unused byte back to the driver (after the device finished the frees)."""
        self._drain()
        self._driver.cuCtxSynchronize()
        self._driver.cuMemPoolTrimTo(self._pool, 0)


def make_pool(gpu: ModuleType, device: int, total_bytes: int) -> DevicePool | None:
    """A pool keeping up to an eighth of ``total_bytes`` on ``device`` (``gpu``: numba-cuda's
    pieces, :mod:`frontier.runtime.gpu`), or None where the device has no memory pools."""
    supported = gpu.binding.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
    try:
        if not gpu.driver.cuDeviceGetAttribute(supported, device):
            return None
        return DevicePool(gpu, device, total_bytes // 8)
    except Exception:  # noqa: BLE001 - a driver without pools: Numba's allocations instead
        return None
