"""Atomic read-modify-write operations usable inside functors on every target.

Each function returns the value held before the operation. On the CUDA target it compiles to the
hardware atomic (``cuda.atomic.*``); on the sequential CPU target to a plain read-modify-write;
called as plain Python (the Numba CUDA simulator runs device code that way, one Python thread per
GPU thread) it takes a lock, so the operation stays atomic there too.
"""

from __future__ import annotations

import threading
from typing import Any

from numba import cuda
from numba.core.extending import overload as cpu_overload

try:
    from numba.cuda.extending import overload as cuda_overload
except ImportError:  # simulator-only installs without the CUDA typing layer
    cuda_overload = None

__all__ = ["atomic_add", "atomic_min", "atomic_max", "atomic_cas", "atomic_exch", "atomic_or"]

_lock = threading.Lock()


def atomic_add(array: Any, index: Any, value: Any) -> Any:
    """``array[index] += value``; returns the old value."""
    with _lock:
        old = array[index]
        array[index] = old + value
        return old


def atomic_min(array: Any, index: Any, value: Any) -> Any:
    """``array[index] = min(array[index], value)``; returns the old value."""
    with _lock:
        old = array[index]
        if value < old:
            array[index] = value
        return old


def atomic_max(array: Any, index: Any, value: Any) -> Any:
    """``array[index] = max(array[index], value)``; returns the old value."""
    with _lock:
        old = array[index]
        if value > old:
            array[index] = value
        return old


def atomic_cas(array: Any, index: Any, expected: Any, value: Any) -> Any:
    """Store ``value`` if ``array[index] == expected``; returns the old value either way."""
    with _lock:
        old = array[index]
        if old == expected:
            array[index] = value
        return old


def atomic_exch(array: Any, index: Any, value: Any) -> Any:
    """Store ``value``; returns the old value."""
    with _lock:
        old = array[index]
        array[index] = value
        return old


def atomic_or(array: Any, index: Any, value: Any) -> Any:
    """``array[index] |= value``; returns the old value."""
    with _lock:
        old = array[index]
        array[index] = old | value
        return old


# Sequential CPU target: plain read-modify-write.
@cpu_overload(atomic_add, target="cpu")
def _cpu_add(array, index, value):
    def impl(array, index, value):
        old = array[index]
        array[index] = old + value
        return old
    return impl


@cpu_overload(atomic_min, target="cpu")
def _cpu_min(array, index, value):
    def impl(array, index, value):
        old = array[index]
        if value < old:
            array[index] = value
        return old
    return impl


@cpu_overload(atomic_max, target="cpu")
def _cpu_max(array, index, value):
    def impl(array, index, value):
        old = array[index]
        if value > old:
            array[index] = value
        return old
    return impl


@cpu_overload(atomic_cas, target="cpu")
def _cpu_cas(array, index, expected, value):
    def impl(array, index, expected, value):
        old = array[index]
        if old == expected:
            array[index] = value
        return old
    return impl


@cpu_overload(atomic_exch, target="cpu")
def _cpu_exch(array, index, value):
    def impl(array, index, value):
        old = array[index]
        array[index] = value
        return old
    return impl


@cpu_overload(atomic_or, target="cpu")
def _cpu_or(array, index, value):
    def impl(array, index, value):
        old = array[index]
        array[index] = old | value
        return old
    return impl


# CUDA target: the hardware atomics.
if cuda_overload is not None:
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
