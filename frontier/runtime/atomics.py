"""Atomic read-modify-write operations usable inside functors on every target.

Each function returns the value held before the operation. On the CUDA target it compiles to the
hardware atomic (``cuda.atomic.*``); on the CPU target to the processor's atomic instruction
(:mod:`frontier.runtime.cpu_atomics`), and to a plain read-modify-write in the code of the cpu
target of one thread (which runs nothing at once; a lock-prefixed instruction there would cost
the loop its overlapped memory reads); called as plain Python (the Numba CUDA simulator runs
device code that way, one Python thread per GPU thread) it takes a lock, so the operation stays
atomic there too.

:func:`atomic_load` and :func:`atomic_store` are *relaxed* atomics: a plain load and store on
every target (on a GPU an aligned load or store of a word is atomic; compiled for the CPU, a
monotonic atomic load or store), which mark an intended
race, such as "any writer's value is right" or reading a value that others may be replacing
(in the C++ memory model, relaxed atomics are no data race). The race detector
(:func:`frontier.testing.check_race_free`) accepts them where it reports plain reads and writes;
on an array it checks (:mod:`frontier.runtime.racecheck`), every atomic here logs an atomic access.

:func:`atomic_claim` hands out consecutive slots of a counter (a queue's length): on a GPU the
lanes of a warp that claim together share one hardware atomic, each taking its place by the
number of claiming lanes below it. A queue made with one atomic per element serializes on its
length (Li & Becchi, §V.C: "the creation of the queue requires a number of atomic operations
equal to the queue length"; Merrill, Garland & Grimshaw allocate queue slots by prefix sums
instead); this is the warp-wide prefix sum of that idea, 32 times fewer atomics on one address
where a warp's lanes push together.
"""

from __future__ import annotations

import threading
from types import ModuleType
from typing import Any

from numba import uint32
from numba.core.extending import overload as cpu_overload

from frontier.runtime import cpu_atomics, cuda_support
from frontier.runtime.racecheck import atomic_access

__all__ = ["atomic_add", "atomic_min", "atomic_max", "atomic_cas", "atomic_exch", "atomic_or",
           "atomic_load", "atomic_store", "atomic_claim"]

_lock = threading.Lock()


def atomic_add(array: Any, index: Any, value: Any) -> Any:
    """``array[index] += value``; returns the old value."""
    array = atomic_access(array, index)
    with _lock:
        old = array[index]
        array[index] = old + value
        return old


def atomic_min(array: Any, index: Any, value: Any) -> Any:
    """``array[index] = min(array[index], value)``; returns the old value."""
    array = atomic_access(array, index)
    with _lock:
        old = array[index]
        if value < old:
            array[index] = value
        return old


def atomic_max(array: Any, index: Any, value: Any) -> Any:
    """``array[index] = max(array[index], value)``; returns the old value."""
    array = atomic_access(array, index)
    with _lock:
        old = array[index]
        if value > old:
            array[index] = value
        return old


def atomic_cas(array: Any, index: Any, expected: Any, value: Any) -> Any:
    """Store ``value`` if ``array[index] == expected``; returns the old value either way."""
    array = atomic_access(array, index)
    with _lock:
        old = array[index]
        if old == expected:
            array[index] = value
        return old


def atomic_exch(array: Any, index: Any, value: Any) -> Any:
    """Store ``value``; returns the old value."""
    array = atomic_access(array, index)
    with _lock:
        old = array[index]
        array[index] = value
        return old


def atomic_or(array: Any, index: Any, value: Any) -> Any:
    """``array[index] |= value``; returns the old value."""
    array = atomic_access(array, index)
    with _lock:
        old = array[index]
        array[index] = old | value
        return old


def atomic_load(array: Any, index: Any) -> Any:
    """``array[index]``, a relaxed atomic load: a read that may race with writes (see the
    module docstring)."""
    return atomic_access(array, index)[index]


def atomic_store(array: Any, index: Any, value: Any) -> None:
    """``array[index] = value``, a relaxed atomic store: a write that may race with other
    writes and reads, any of the values written being right (see the module docstring)."""
    atomic_access(array, index)[index] = value


def atomic_claim(array: Any, index: Any) -> Any:
    """``array[index] += 1``; returns the old value: a slot of its own for each caller. On a GPU
    the lanes of a warp that call it together (CUDA's active mask) add their count with one
    atomic, made by the lowest of them, and take consecutive slots in lane order; lanes that call
    it apart (a lane alone, as the simulator's threads always are) take one atomic each. Either
    way every caller gets a distinct slot and the counter ends up increased by the number of
    calls."""
    return atomic_add(array, index, 1)


# CPU target: the processor's atomic instructions (:mod:`frontier.runtime.cpu_atomics`), or a
# plain read-modify-write where the calling code runs on one thread (the sequential cpu
# target's code, compiled with :data:`frontier.runtime.cpu_atomics.ONE_THREAD`).
def _cpu(plain, atomic):
    """The implementation for the function being compiled now: ``plain`` for one thread's code,
    else ``atomic``."""
    return plain if cpu_atomics.one_thread_caller() else atomic


@cpu_overload(atomic_add, target="cpu")
def _cpu_add(array, index, value):
    def plain(array, index, value):
        old = array[index]
        array[index] = old + value
        return old

    def atomic(array, index, value):
        return cpu_atomics.fetch_add(array, index, value)
    return _cpu(plain, atomic)


@cpu_overload(atomic_min, target="cpu")
def _cpu_min(array, index, value):
    def plain(array, index, value):
        old = array[index]
        if value < old:
            array[index] = value
        return old

    def atomic(array, index, value):
        return cpu_atomics.fetch_min(array, index, value)
    return _cpu(plain, atomic)


@cpu_overload(atomic_max, target="cpu")
def _cpu_max(array, index, value):
    def plain(array, index, value):
        old = array[index]
        if value > old:
            array[index] = value
        return old

    def atomic(array, index, value):
        return cpu_atomics.fetch_max(array, index, value)
    return _cpu(plain, atomic)


@cpu_overload(atomic_cas, target="cpu")
def _cpu_cas(array, index, expected, value):
    def plain(array, index, expected, value):
        old = array[index]
        if old == expected:
            array[index] = value
        return old

    def atomic(array, index, expected, value):
        return cpu_atomics.compare_exchange(array, index, expected, value)
    return _cpu(plain, atomic)


@cpu_overload(atomic_exch, target="cpu")
def _cpu_exch(array, index, value):
    def plain(array, index, value):
        old = array[index]
        array[index] = value
        return old

    def atomic(array, index, value):
        return cpu_atomics.exchange(array, index, value)
    return _cpu(plain, atomic)


@cpu_overload(atomic_or, target="cpu")
def _cpu_or(array, index, value):
    def plain(array, index, value):
        old = array[index]
        array[index] = old | value
        return old

    def atomic(array, index, value):
        return cpu_atomics.fetch_or(array, index, value)
    return _cpu(plain, atomic)


@cpu_overload(atomic_claim, target="cpu")
def _cpu_claim(array, index):
    def plain(array, index):
        old = array[index]
        array[index] = old + 1
        return old

    def atomic(array, index):
        return cpu_atomics.fetch_add(array, index, 1)
    return _cpu(plain, atomic)


@cpu_overload(atomic_load, target="cpu")
def _cpu_load(array, index):
    def plain(array, index):
        return array[index]

    def atomic(array, index):
        return cpu_atomics.load(array, index)
    return _cpu(plain, atomic)


@cpu_overload(atomic_store, target="cpu")
def _cpu_store(array, index, value):
    def plain(array, index, value):
        array[index] = value

    def atomic(array, index, value):
        cpu_atomics.store(array, index, value)
    return _cpu(plain, atomic)


# CUDA target: the hardware atomics; an aligned word load or store is atomic.
def _register_cuda(cuda: ModuleType) -> None:
    """The CUDA versions, registered when the library loads numba.cuda
    (:func:`frontier.runtime.cuda_support.on_load`)."""
    cuda_overload = cuda_support.cuda_overload()
    if cuda_overload is None:  # a numba.cuda without the CUDA typing layer
        return

    @cuda_overload(atomic_add, target="cuda")
    def _cuda_add(array, index, value):
        def impl(array, index, value):
            return cuda.atomic.add(array, index, value)
        return impl

    @cuda_overload(atomic_min, target="cuda")
    def _cuda_min(array, index, value):
        def impl(array, index, value):
            return cuda.atomic.min(array, index, value)
        return impl

    @cuda_overload(atomic_max, target="cuda")
    def _cuda_max(array, index, value):
        def impl(array, index, value):
            return cuda.atomic.max(array, index, value)
        return impl

    @cuda_overload(atomic_cas, target="cuda")
    def _cuda_cas(array, index, expected, value):
        def impl(array, index, expected, value):
            return cuda.atomic.cas(array, index, expected, value)
        return impl

    @cuda_overload(atomic_exch, target="cuda")
    def _cuda_exch(array, index, value):
        def impl(array, index, value):
            return cuda.atomic.exch(array, index, value)
        return impl

    @cuda_overload(atomic_or, target="cuda")
    def _cuda_or(array, index, value):
        def impl(array, index, value):
            return cuda.atomic.or_(array, index, value)
        return impl

    @cuda_overload(atomic_claim, target="cuda")
    def _cuda_claim(array, index):
        kind = array.dtype

        def impl(array, index):
            lanes = cuda.activemask()  # the warp's lanes calling together, this one among them
            lane = cuda.laneid
            leader = cuda.ffs(lanes) - 1
            base = kind(0)
            if lane == leader:
                base = cuda.atomic.add(array, index, kind(cuda.popc(lanes)))
            base = cuda.shfl_sync(lanes, base, leader)
            below = lanes & ((uint32(1) << uint32(lane)) - uint32(1))
            return base + kind(cuda.popc(below))
        return impl

    @cuda_overload(atomic_load, target="cuda")
    def _cuda_load(array, index):
        def impl(array, index):
            return array[index]
        return impl

    @cuda_overload(atomic_store, target="cuda")
    def _cuda_store(array, index, value):
        def impl(array, index, value):
            array[index] = value
        return impl


cuda_support.on_load(_register_cuda)
