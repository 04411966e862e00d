"""Where Numba's CUDA simulator computes something else than compiled code, and the corrections
that make it compute the same.

The simulator (``NUMBA_ENABLE_CUDASIM=1``) runs a kernel's Python text, one Python thread per GPU
thread, so CI without a GPU tests the generated kernels. Two of its differences would let CI fail
correct code or pass wrong code; :func:`make_faithful` (applied when :mod:`frontier.target` is
imported with the simulator enabled) and :func:`compiled_integers` remove them:

* **Integers reaching functors.** Compiled code (``numba.njit`` on the cpu target, ``cuda.jit``
  on a GPU) does integer arithmetic at 64 bits: an ``int32`` frontier id ``v`` is promoted by
  ``v * 2**30`` or ``v + 2654435761`` to ``int64`` (an unsigned one of fewer than 64 bits too).
  The simulator hands a functor what the kernel's Python holds: ``numpy.int32`` array elements
  and Python ints, and NumPy keeps ``int32`` arithmetic at 32 bits (wrapping ``3 * 2**30`` to
  ``-1073741824``) and refuses a Python int above ``2**31 - 1`` with ``OverflowError``.
  :func:`compiled_integers` wraps a simulated functor so that every integer argument arrives as
  a Python int (``numpy.uint64`` stays): exact arithmetic, which is what compiled code's 64-bit
  arithmetic gives wherever it does not overflow (NumPy's ``int64`` scalars would still refuse
  ``2**63 + v``, which Numba computes as a ``uint64``). A functor's closure numbers
  (:mod:`operators.lifting`), its leading arguments, arrive as ``numpy.int64`` instead (a
  ``numpy.uint64`` stays, a bool arrives as NumPy's): they wrap around at 64 bits as compiled
  code does, where a Python int would grow past what an ``int64`` array can store. Integers
  the functor reads from its state arrays keep the array's type, as in compiled code, but their
  arithmetic with literals stays at the array's width in the simulator only.
* **Shared memory.** The simulator's ``cuda.shared.array`` finds a block's array by the calling
  line and creates it on a thread's first call: a thread switch between its lookup and its
  store (rare, but it happened: ``tests/operators/test_balancers.py`` saw ``two_phase`` visit an
  edge twice) hands two threads of one block two different arrays, so one thread's writes never
  reach the others, which read uninitialized memory. The hardware has one array per block.
  :func:`make_faithful` makes the lookup-or-create atomic.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from functools import wraps
from typing import Any

import numpy as np

__all__ = ["enabled", "make_faithful", "compiled_integers"]

_lock = threading.Lock()
_installed = False


def enabled() -> bool:
    """Whether this process runs CUDA kernels in Numba's simulator (``NUMBA_ENABLE_CUDASIM``
    set to anything but empty or ``0``)."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def make_faithful() -> None:
    """Correct the simulator's shared-memory allocation (see the module docstring); idempotent,
    and a no-op where the simulator's layout is not the one corrected here."""
    global _installed
    with _lock:
        if _installed:
            return
        from numba.cuda.simulator import kernelapi

        shared = getattr(kernelapi, "FakeCUDAShared", None)
        original = getattr(shared, "array", None)
        if original is None:
            return
        shared.array = _atomic_shared_array(original)
        _installed = True


def _atomic_shared_array(original: Callable) -> Callable:
    """``FakeCUDAShared.array`` whose static arrays are looked up and created under one lock,
    keyed as the simulator keys them (the caller's file and line)."""
    from numba.core import types
    from numba.np import numpy_support

    allocation = threading.Lock()

    def array(self: Any, shape: Any, dtype: Any, alignment: Any = None) -> Any:
        if alignment is not None or shape == 0 or not hasattr(self, "_allocations"):
            return original(self, shape, dtype, alignment)  # refusals and dynamic shared memory
        if isinstance(dtype, types.Type):
            dtype = numpy_support.as_dtype(dtype)
        caller = sys._getframe(1)
        key = (caller.f_code.co_filename, caller.f_lineno)
        with allocation:
            found = self._allocations.get(key)
            if found is None:
                found = self._allocations[key] = np.empty(shape, dtype)
        return found

    array.__doc__ = original.__doc__
    return array


def compiled_integers(device_function: Callable, lifted: int = 0) -> Callable:
    """``device_function`` (a simulated functor) called with each integer argument as a Python
    int (a ``numpy.uint64`` stays): its arithmetic is then exact, as compiled code's is wherever
    it does not overflow 64 bits, where NumPy's fixed-width scalars would wrap at their own width
    or refuse a literal past ``2**63 - 1`` (``2**63 + v``); booleans, floats and arrays pass
    unchanged. The first ``lifted`` arguments (closure numbers) arrive as compiled code holds
    them instead (:func:`_held`): an integer wraps around at 64 bits, as in compiled code."""

    @wraps(device_function)
    def call(*args: Any) -> Any:
        return device_function(*[_held(a) for a in args[:lifted]],
                               *[int(a) if _promoted(a) else a for a in args[lifted:]])

    return call


def _promoted(value: Any) -> bool:
    """Whether ``value`` is an integer compiled code computes with at 64 bits, signed (a NumPy
    signed integer, or an unsigned one narrower than 64 bits)."""
    return isinstance(value, np.signedinteger) or (
        isinstance(value, np.unsignedinteger) and value.dtype.itemsize < 8)


def _held(value: Any) -> Any:
    """A closure number as compiled code holds it: an integer as an ``int64`` (a ``uint64``
    stays), a bool as NumPy's (``~`` is a logical not there)."""
    if isinstance(value, bool):
        return np.bool_(value)
    if type(value) is int or _promoted(value):
        return np.int64(value)
    return value
