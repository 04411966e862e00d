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
  ``2**63 + v``, which Numba computes as a ``uint64``). Integers the
  functor reads from its state arrays keep the array's type, as in compiled code, but their
  arithmetic with literals stays at the array's width in the simulator only.
* **Shared memory.** The simulator's ``cuda.shared.array`` finds a block's array by the calling
  line and creates it on a thread's first call: a thread switch between its lookup and its
  store (rare, but it happened: ``tests/operators/test_balancers.py`` saw ``two_phase`` visit an
  edge twice) hands two threads of one block two different arrays, so one thread's writes never
  reach the others, which read uninitialized memory. The hardware has one array per block.
  :func:`make_faithful` makes the lookup-or-create atomic.
* **Barriers.** The simulator releases a ``cuda.syncthreads()`` once every thread still running
  waits at it, so a thread that exited (a ``return``, or a loop left one turn early) without
  reaching a barrier the others wait at passes unnoticed; on the hardware every thread of a
  block must reach each barrier (CUDA: ``__syncthreads`` in conditional code only where the
  condition is the same in the whole block), or the behaviour is undefined. With
  :func:`make_faithful` every simulated thread counts the barriers it enters
  (:func:`barriers_entered`), and a thread that exits having entered fewer than another
  thread of its block waits at raises :class:`BarrierError` (whichever of the two comes
  first).

Speed: the simulator's block manager polls its threads in a loop that keeps the GIL for a whole
thread switch interval (5 ms by default) each time a thread it released, or one leaving a
shuffle, asks for it; :func:`quick_thread_switches` shortens the interval while a launch runs
(``frontier.target`` runs every simulated launch in it), which about halves a launch's time.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any

import numpy as np

__all__ = ["enabled", "make_faithful", "compiled_integers", "barriers_entered",
           "BarrierError", "quick_thread_switches", "SWITCH_SECONDS"]

_lock = threading.Lock()
_installed = False


def enabled() -> bool:
    """Whether this process runs CUDA kernels in Numba's simulator (``NUMBA_ENABLE_CUDASIM``
    set to anything but empty or ``0``)."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


#: The thread switch interval (seconds) while a simulated launch runs.
SWITCH_SECONDS = 5e-4


@contextmanager
def quick_thread_switches() -> Iterator[None]:
    """Run the body (a simulated launch) with the interpreter's thread switch interval at most
    :data:`SWITCH_SECONDS`, restored afterwards (see the module docstring)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, SWITCH_SECONDS))
    try:
        yield
    finally:
        sys.setswitchinterval(before)


class BarrierError(RuntimeError):
    """A thread of a simulated block exited without reaching a barrier that another thread of
    the block waits at: undefined on the hardware."""


def make_faithful() -> None:
    """Correct the simulator's shared-memory allocation and check its barriers (see the module
    docstring); idempotent, and a no-op where the simulator's layout is not the one corrected
    here."""
    global _installed
    with _lock:
        if _installed:
            return
        from numba.cuda.simulator import kernel, kernelapi

        shared = getattr(kernelapi, "FakeCUDAShared", None)
        original = getattr(shared, "array", None)
        thread = getattr(kernel, "BlockThread", None)
        if original is None or not hasattr(thread, "syncthreads"):
            return
        shared.array = _atomic_shared_array(original)
        thread.syncthreads = _counted_barrier(thread.syncthreads)
        thread.run = _checked_exit(thread.run)
        _installed = True


#: Where a simulated thread counts the barriers it has entered, and where a simulated block
#: keeps its threads and the fewest barriers any of them had entered when it exited.
_ENTERED, _THREADS, _LEFT = ("_frontier_barriers_entered", "_frontier_threads",
                             "_frontier_fewest_at_exit")


def barriers_entered(thread: Any) -> int:
    """How many block barriers the simulated ``thread`` has entered (``syncthreads`` and each of
    the two inside ``syncthreads_count``, ``_and`` and ``_or``)."""
    return getattr(thread, _ENTERED, 0)


def _barrier_error(left: int, left_id: int, waits: int, waiting_id: int) -> BarrierError:
    return BarrierError(
        f"thread {left_id} of a simulated block exited after {left} barrier(s) while thread "
        f"{waiting_id} waits at barrier {waits}: every thread of a block must reach each "
        "cuda.syncthreads() (undefined behaviour on the hardware)")


def _counted_barrier(enter: Callable) -> Callable:
    """``BlockThread.syncthreads`` counting the barrier, and refusing one that a thread of the
    block exited before reaching."""

    def syncthreads(self: Any) -> None:
        entered = barriers_entered(self) + 1
        setattr(self, _ENTERED, entered)
        left = getattr(self._manager, _LEFT, None)
        if left is not None and left[0] < entered:
            raise _barrier_error(*left, entered, self.thread_id)
        enter(self)

    return syncthreads


def _checked_exit(run: Callable) -> Callable:
    """``BlockThread.run`` that registers the thread with its block and, when it ends without an
    error, fails it if a thread of the block waits at a barrier it never reached (the thread's
    error is what the simulator then reports)."""

    def checked(self: Any) -> None:
        manager = self._manager
        with _lock:
            if not hasattr(manager, _THREADS):
                setattr(manager, _THREADS, [])
            getattr(manager, _THREADS).append(self)
        run(self)
        if self.exception is not None or self.abort:
            return
        entered = barriers_entered(self)
        with _lock:
            left = getattr(manager, _LEFT, None)
            if left is None or entered < left[0]:
                setattr(manager, _LEFT, (entered, self.thread_id))
            peers = list(getattr(manager, _THREADS))
        for peer in peers:  # one that entered more barriers waits for this thread at one
            if barriers_entered(peer) > entered:
                error = _barrier_error(entered, self.thread_id, barriers_entered(peer),
                                       peer.thread_id)
                self.exception = (error, None)
                return

    return checked


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


def compiled_integers(device_function: Callable) -> Callable:
    """``device_function`` (a simulated functor) called with each integer argument as a Python
    int (a ``numpy.uint64`` stays): its arithmetic is then exact, as compiled code's is wherever
    it does not overflow 64 bits, where NumPy's fixed-width scalars would wrap at their own width
    or refuse a literal past ``2**63 - 1`` (``2**63 + v``); booleans, floats and arrays pass
    unchanged."""

    @wraps(device_function)
    def call(*args: Any) -> Any:
        return device_function(*[_as_compiled(a) for a in args])

    return call


def _as_compiled(value: Any) -> Any:
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, np.signedinteger) or (
            isinstance(value, np.unsignedinteger) and value.dtype.itemsize < 8):
        return int(value)
    return value
