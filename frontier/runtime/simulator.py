"""Where Numba's CUDA simulator computes something else than compiled code, and the corrections
that make it compute the same.

The simulator (``NUMBA_ENABLE_CUDASIM=1``) runs a kernel's Python text, one Python thread per GPU
thread, so CI without a GPU tests the generated kernels. Four of its differences would let CI
fail correct code or pass wrong code; :func:`make_faithful` (applied when the library loads
``numba.cuda`` with the simulator enabled), :func:`compiled_numbers` and :func:`as_compiled` remove
them. The race detector (:mod:`frontier.runtime.racecheck`), which runs functors as Python on the
cpu target too, applies the last two as well:

* **Numbers reaching functors.** Compiled code (``numba.njit`` on the cpu target, ``cuda.jit``
  on a GPU) does integer arithmetic at 64 bits: an ``int32`` frontier id ``v`` is promoted by
  ``v * 2**30`` or ``v + 2654435761`` to ``int64`` (an unsigned one of fewer than 64 bits too).
  The simulator hands a functor what the kernel's Python holds: ``numpy.int32`` array elements
  and Python ints, and NumPy keeps ``int32`` arithmetic at 32 bits (wrapping ``3 * 2**30`` to
  ``-1073741824``) and refuses a Python int above ``2**31 - 1`` with ``OverflowError``.
  :func:`compiled_numbers` wraps a simulated functor so that every integer argument arrives as
  a Python int (``numpy.uint64`` stays): exact arithmetic, which is what compiled code's 64-bit
  arithmetic gives wherever it does not overflow (NumPy's ``int64`` scalars would still refuse
  ``2**63 + v``, which Numba computes as a ``uint64``). A float, a complex number or a bool
  argument arrives as compiled code holds it (:func:`held`: ``numpy.float64``, where a division
  by zero gives inf or nan as on a GPU, whose Numba CUDA uses NumPy's error model, instead of
  raising; NumPy's bool, whose ``~`` is a logical not as in compiled code, where Python's
  ``~True`` is -2, though NumPy's ``True + True`` is True, not 2, and it refuses ``-True``).
  A functor's closure numbers (:mod:`operators.lifting`), its leading
  arguments, arrive as :func:`held` gives them, integers included: an ``int64``, which wraps
  around at 64 bits as compiled code does, where a Python int would grow past what an
  ``int64`` array can store. Integers the functor reads from its state arrays keep the array's
  type, as in compiled code, but their arithmetic with literals stays at the array's width in
  the simulator only. The calls run with NumPy's overflow and floating-point warnings off:
  compiled code gives none.
* **Numbers compiled code freezes.** Numba compiles the numbers a function reads besides its
  arguments (the module globals it names, its default arguments, the closure values that are
  not lifted) into its code as typed constants: an int as an ``int64``, a float as a
  ``float64``, a bool as a boolean, a tuple element by element. The simulator reads them live,
  as Python numbers, which compute something else (``BIG * 4 + v`` grows past 64 bits, and
  then does not fit the ``int64`` array it is stored in, where compiled code wraps around).
  :func:`as_compiled` rebuilds a functor, and each helper it calls by a module-global or
  closure name (recursively: :func:`frontier.runtime.reads.rebuilt`), with each such number as
  :func:`held` gives it, taken when it is built (the functor's key covers those values, its
  helpers' included: :mod:`operators.functors`, so it is built again when one changes).
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

import copy
import sys
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial, wraps
from typing import Any

import numpy as np
from numba.core import types as numba_types
from numba.np import numpy_support

from frontier import environ
from frontier.runtime.reads import is_helper, rebuilt

__all__ = ["enabled", "make_faithful", "compiled_numbers", "held", "as_compiled",
           "barriers_entered", "BarrierError", "quick_thread_switches", "SWITCH_SECONDS",
           "SIMULATOR_VARIABLE"]

#: The environment variable with which Numba runs CUDA kernels in its simulator.
SIMULATOR_VARIABLE = "NUMBA_ENABLE_CUDASIM"

_lock = threading.Lock()
_installed = False


def enabled() -> bool:
    """Whether this process runs CUDA kernels in Numba's simulator (``NUMBA_ENABLE_CUDASIM``
    set to anything but empty or ``0``)."""
    return environ.get(SIMULATOR_VARIABLE, "0") not in ("", "0")


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


#: The simulator's modules of kernels and block threads, and of what kernels call (loaded with
#: ``numba.cuda`` where the simulator is enabled).
_SIMULATED_KERNELS = "numba.cuda.simulator.kernel"
_SIMULATED_API = "numba.cuda.simulator.kernelapi"


def make_faithful() -> None:
    """Correct the simulator's shared-memory allocation and check its barriers (see the module
    docstring), once the simulator is loaded (:func:`frontier.runtime.cuda_support.cuda_module`
    does it when it loads ``numba.cuda`` in the simulator); idempotent, and a no-op before that
    or where the simulator's layout is not the one corrected here."""
    global _installed
    with _lock:
        if _installed:
            return
        shared = getattr(sys.modules.get(_SIMULATED_API), "FakeCUDAShared", None)
        original = getattr(shared, "array", None)
        thread = getattr(sys.modules.get(_SIMULATED_KERNELS), "BlockThread", None)
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
    allocation = threading.Lock()

    def array(self: Any, shape: Any, dtype: Any, alignment: Any = None) -> Any:
        if alignment is not None or shape == 0 or not hasattr(self, "_allocations"):
            return original(self, shape, dtype, alignment)  # refusals and dynamic shared memory
        if isinstance(dtype, numba_types.Type):
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


def compiled_numbers(device_function: Callable, lifted: int = 0) -> Callable:
    """``device_function`` (a functor run as Python) called with each integer argument as a
    Python int (a ``numpy.uint64`` stays): its arithmetic is then exact, as compiled code's is
    wherever it does not overflow 64 bits, where NumPy's fixed-width scalars would wrap at their
    own width or refuse a literal past ``2**63 - 1`` (``2**63 + v``); a float, complex or bool
    argument as compiled code holds it (:func:`held`), arrays and the rest unchanged. The first
    ``lifted`` arguments (closure numbers) arrive as :func:`held` gives them: an integer wraps
    around at 64 bits, as in compiled code. NumPy's warnings of overflow, division by zero and
    invalid operations are off during the call, as compiled code gives none."""

    @wraps(device_function)
    def call(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return device_function(*[held(a) for a in args[:lifted]],
                                   *[_argument(a) for a in args[lifted:]])

    return call


def _argument(value: Any) -> Any:
    """An argument of a functor run as Python, as :func:`compiled_numbers` hands it."""
    if _promoted(value):
        return int(value)
    if isinstance(value, (bool, float, complex)):
        return held(value)
    return value


def _promoted(value: Any) -> bool:
    """Whether ``value`` is an integer compiled code computes with at 64 bits, signed (a NumPy
    signed integer, or an unsigned one narrower than 64 bits)."""
    return isinstance(value, np.signedinteger) or (
        isinstance(value, np.unsignedinteger) and value.dtype.itemsize < 8)


_INT64 = (-(2 ** 63), 2 ** 63)


def held(value: Any) -> Any:
    """A number as compiled code holds it: an int (of ``int64``'s range) or a NumPy integer it
    computes with at 64 bits (:func:`_promoted`) as an ``int64`` (a ``uint64`` stays), a float
    as a ``float64``, a complex number as a ``complex128``, a bool as NumPy's (``~`` is a
    logical not there, as in compiled code), a tuple element by element; anything else (and a
    tuple of nothing that changes) is ``value`` itself."""
    kind = type(value)
    if kind is bool:
        return np.bool_(value)
    if kind is int:
        return np.int64(value) if _INT64[0] <= value < _INT64[1] else value
    if kind is float:
        return np.float64(value)
    if kind is complex:
        return np.complex128(value)
    if kind is tuple:
        items = tuple(held(v) for v in value)
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    if _promoted(value) and kind is not np.int64:
        return np.int64(value)
    return value


def as_compiled(fn: types.FunctionType, python_helpers: bool = False) -> types.FunctionType:
    """``fn``, to run as Python, reading what compiled code freezes into it as compiled code
    holds it: each number among the module globals it names, its default arguments and its
    closure values as :func:`held` gives it, and each helper it calls by a module-global or
    closure name (:func:`frontier.runtime.reads.is_helper`) made so in turn, recursively
    (:func:`frontier.runtime.reads.rebuilt`); a simulated ``cuda.jit`` device function too, and,
    with ``python_helpers``, a Numba-compiled one (an ``njit`` or ``cuda.jit`` dispatcher), which is
    replaced by its Python function (the race detector hands functors recording proxies that
    compiled code cannot take: :mod:`frontier.runtime.racecheck`). ``fn`` itself where nothing
    changes. The values are those of now: compiled code freezes them when it is compiled."""
    return rebuilt(fn, partial(_replacement, python_helpers=python_helpers))


def _replacement(value: Any, again: Callable[[types.FunctionType], types.FunctionType],
                 python_helpers: bool) -> Any:
    """What a function rebuilt by :func:`as_compiled` reads instead of ``value`` (a module
    global's, a closure cell's or a default argument's): ``value`` itself where that does not
    change."""
    number = held(value)
    if number is not value:
        return number
    if is_helper(value):
        return again(value)
    inner = getattr(value, "py_func", None)  # a Numba dispatcher's Python function
    if (python_helpers and isinstance(inner, types.FunctionType)
            and not isinstance(value, types.FunctionType)):
        return again(inner)
    if _simulated_device_function(value):
        inner = again(value.fn)
        if inner is not value.fn:
            value = copy.copy(value)
            value.fn = inner
    return value


def _simulated_device_function(value: Any) -> bool:
    """Whether ``value`` is a ``cuda.jit`` function of the simulator (which runs its Python
    function when called)."""
    kernels = _simulated_kernels()
    return (kernels is not None and isinstance(value, kernels.FakeCUDAKernel)
            and isinstance(value.fn, types.FunctionType))


def block_threads() -> list[threading.Thread]:
    """The simulator's threads of the blocks it runs now (none where there is no simulator)."""
    kind = getattr(_simulated_kernels(), "BlockThread", None)
    return [] if kind is None else [t for t in threading.enumerate() if isinstance(t, kind)]


def _simulated_kernels() -> types.ModuleType | None:
    """The simulator's module of kernels and block threads where the simulator is enabled and
    has been loaded (a simulated kernel or thread exists only then), else None."""
    return sys.modules.get(_SIMULATED_KERNELS) if enabled() else None
