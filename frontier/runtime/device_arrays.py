"""Arrays the caller already holds on the GPU, used there: recognized, viewed without a copy, and
checked on the device, so an input that lives on the GPU never crosses PCIe to be validated.

A *device array* is an object with ``__cuda_array_interface__`` (CuPy, PyTorch CUDA tensors,
Numba device arrays), a Numba device array of the CUDA simulator, or an object whose DLPack
device (``__dlpack_device__()``) is a CUDA one (kDLCUDA = 2, kDLCUDAManaged = 13).
:func:`view` turns it into a Numba device array over the same memory (the CUDA Array Interface,
else a DLPack capsule read by ``cuda.core``'s ``StridedMemoryView``: numba-cuda 0.30 has no
``from_dlpack`` of its own); nothing is copied, and nothing Frontier does writes into it.

The checks return only scalars, from one grid-stride launch each on the cuda target
(:func:`extremes`, :func:`flaws`, :func:`descents`, :func:`arc_hash_sums`); :func:`cast` makes a
device copy in another dtype (what a graph keeps: its own arrays, which the caller's later
writes cannot change). A check that fails says only that something is wrong: callers then
produce their message from a host copy (:func:`to_host`), by the same code that checks a host
input, so a device input gets the very error a host input gets; the copy is made only on that
error path. The kernels are compiled through :meth:`Target.compile_source` with the target's
prologue and cached per target (:class:`frontier.runtime.shared_cache.SharedCache`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from frontier.runtime import cuda_support
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target, named

__all__ = ["is_device_array", "view", "to_host", "on_host", "extremes", "flaws", "descents", "cast",
           "arc_hash_sums", "cuda_target"]

#: DLPack device types of memory a CUDA kernel reads: kDLCUDA, kDLCUDAManaged.
CUDA_DLPACK_DEVICES = (2, 13)
_THREADS = 256

_KERNELS: SharedCache[Any] = SharedCache("device array checks")


def is_device_array(value: Any) -> bool:
    """Whether ``value`` lives on a CUDA device (see the module docstring); a NumPy array, a
    list or a number does not."""
    if isinstance(value, np.ndarray):
        return False
    if getattr(value, "__cuda_ndarray__", False) or hasattr(value, "__cuda_array_interface__"):
        return True
    where = getattr(value, "__dlpack_device__", None)
    if where is None or not hasattr(value, "__dlpack__"):
        return False
    try:
        return int(where()[0]) in CUDA_DLPACK_DEVICES
    except Exception:  # noqa: BLE001 - an object that cannot say where it lives is not ours
        return False


def view(value: Any) -> Any:
    """A Numba device array over ``value``'s memory (no copy; see the module docstring).
    TypeError if ``value`` is not a device array."""
    cuda = cuda_support.cuda_module()
    if getattr(value, "__cuda_ndarray__", False):
        return value
    if hasattr(value, "__cuda_array_interface__"):
        return cuda.as_cuda_array(value)
    if not is_device_array(value):
        raise TypeError(f"expected an array on a CUDA device, got {type(value).__name__}")
    from cuda.core.utils import StridedMemoryView

    memory = StridedMemoryView.from_dlpack(value, stream_ptr=-1)
    dtype = np.dtype(memory.dtype)
    strides = (None if memory.strides is None
               else tuple(s * dtype.itemsize for s in memory.strides))
    interface = {"shape": tuple(memory.shape), "strides": strides, "typestr": dtype.str,
                 "data": (int(memory.ptr), memory.readonly), "version": 3}
    return cuda.from_cuda_array_interface(interface, owner=memory)


def to_host(array: Any) -> np.ndarray:
    """A host copy of a device array (for the cpu target, host-side consumers and the messages
    of failed checks)."""
    return np.asarray(view(array).copy_to_host())


def on_host(value: Any) -> Any:
    """``value`` in host memory: a device array copied (:func:`to_host`), anything else (a
    numpy array, a scalar) as it is."""
    return to_host(value) if is_device_array(value) else value


def cuda_target() -> Target:
    """The target that reads device arrays in place."""
    return named("cuda")


def _compiled(target: Target, name: str, text: str) -> Any:
    params, body = text.split("\n", 1)
    source = f"def {name}({params}):\n" + _indent(target.prologue) + _indent(body)
    return _KERNELS.get((target.compile_key, name),
                        lambda: target.compile_source(name, source, {"math": math}))


def _indent(text: str) -> str:
    return "".join("    " + line + "\n" for line in text.splitlines())


def _launch(target: Target, name: str, text: str, work: int, args: tuple) -> None:
    threads = min(_THREADS, target.max_threads_per_block)
    blocks = max(1, min(-(-max(work, 1) // threads), target.resident_blocks(threads)))
    target.launch(_compiled(target, name, text), blocks, threads, args)


def _accumulator(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float64 if dtype.kind == "f" else np.uint64 if dtype.kind == "u"
                    else np.int64)


_EXTREMES = """a, out, lowest, highest
lo = highest
hi = lowest
for i in range(tid, a.shape[0], nthreads):
    x = a[i]
    if x < lo:
        lo = x
    if x > hi:
        hi = x
cuda.atomic.min(out, 0, lo)
cuda.atomic.max(out, 1, hi)
"""


def extremes(array: Any) -> tuple[Any, Any]:
    """The smallest and largest element of a non-empty 1-D integer or float device array, as
    Python numbers (NaN ignored: :func:`flaws` counts it)."""
    a, target = view(array), cuda_target()
    acc = _accumulator(a.dtype)
    if acc.kind == "f":
        lowest, highest = acc.type(-math.inf), acc.type(math.inf)
    else:
        info = np.iinfo(acc)
        lowest, highest = acc.type(info.min), acc.type(info.max)
    out = target.to_device(np.array([highest, lowest], dtype=acc))
    _launch(target, f"extremes_{acc.name}", _EXTREMES, a.shape[0], (a, out, lowest, highest))
    lo, hi = target.to_host(out).tolist()
    return lo, hi


_FLAWS = """a, out
bad = 0
negative = 0
broken = 0
for i in range(tid, a.shape[0], nthreads):
    x = a[i] * 1.0
    if math.isinf(x) or math.isnan(x):
        bad += 1
    else:
        if x < 0.0:
            negative += 1
        if abs(x) >= 9007199254740992.0 or x != math.floor(x):
            broken += 1
cuda.atomic.add(out, 0, bad)
cuda.atomic.add(out, 1, negative)
cuda.atomic.add(out, 2, broken)
"""


def flaws(array: Any) -> tuple[int, int, int]:
    """Of a 1-D float device array: how many elements are not finite, how many (finite ones)
    are negative, and how many finite ones are not whole numbers below 2**53."""
    a, target = view(array), cuda_target()
    out = target.zeros(3, np.int64)
    _launch(target, "flaws", _FLAWS, a.shape[0], (a, out))
    bad, negative, broken = target.to_host(out).tolist()
    return bad, negative, broken


_DESCENTS = """a, out
count = 0
for i in range(tid, a.shape[0] - 1, nthreads):
    if a[i + 1] < a[i]:
        count += 1
cuda.atomic.add(out, 0, count)
"""


def descents(array: Any) -> int:
    """How many elements of a 1-D device array are smaller than the one before (0: the array
    never falls)."""
    a, target = view(array), cuda_target()
    out = target.zeros(1, np.int64)
    _launch(target, "descents", _DESCENTS, a.shape[0], (a, out))
    return int(target.to_host(out)[0])


_CAST = """a, out
for i in range(tid, a.shape[0], nthreads):
    out[i] = a[i]
"""


def cast(array: Any, dtype: Any) -> Any:
    """A new contiguous device array of ``dtype`` holding ``array``'s values (converted as
    C converts; check first that they survive). Always a copy, made on the device."""
    a, target = view(array), cuda_target()
    out = target.empty(a.shape[0], np.dtype(dtype))
    if a.shape[0]:
        _launch(target, "cast", _CAST, a.shape[0], (a, out))
    return out


# a 31-bit mix of two ids below 2**31; every product stays below 2**63
_ARC_HASHES = """offsets, cols, out, seed
f = 0
b = 0
for r in range(tid, offsets.shape[0] - 1, nthreads):
    u = np.int64(r)
    for e in range(offsets[r], offsets[r + 1]):
        v = np.int64(cols[e])
        for k in range(2):
            x = v if k == 0 else u
            y = u if k == 0 else v
            h = (x * 2654435761 + seed * 40503 + 12345) & 0x7FFFFFFF
            h ^= h >> 15
            h = ((h ^ y) * 2246822519) & 0x7FFFFFFF
            h ^= h >> 13
            h = (h * 3266489917) & 0x7FFFFFFF
            h ^= h >> 16
            if k == 0:
                f += h
            else:
                b += h
cuda.atomic.add(out, 0, f)
cuda.atomic.add(out, 1, b)
"""


def arc_hash_sums(row_offsets: Any, col_indices: Any, seed: int) -> tuple[int, int]:
    """For the CSR arrays on the device (int64 offsets, int32 ids): the sum over arcs
    ``u -> v`` of a 31-bit hash of ``(u, v)`` and the sum of the same hash of ``(v, u)``. The
    arcs pair up (every arc has its reverse, as often) exactly when the multisets of ``(u, v)``
    and ``(v, u)`` are equal, and then the sums are equal; unequal multisets give equal sums
    with probability about 2**-31 per seed."""
    target = cuda_target()
    out = target.zeros(2, np.int64)
    _launch(target, "arc_hashes", _ARC_HASHES, view(row_offsets).shape[0],
            (view(row_offsets), view(col_indices), out, np.int64(seed)))
    forward, backward = target.to_host(out).tolist()
    return forward, backward
