"""Plain Python helpers that compiled functors may call, on every target.

A functor is compiled for its target (:mod:`operators.functors`), and so is everything it calls:
a plain Python function named inside a functor is not something Numba can call from a kernel.
:func:`device_function` registers one so that it is: its own Python body becomes its
implementation on the sequential CPU target and on CUDA (through Numba's ``overload``, the
mechanism :mod:`frontier.atomics` uses), and the Numba CUDA simulator calls it as plain Python.
The helper is then shared by several functors instead of being pasted into each::

    @device_function
    def root(parent, v):
        while parent[v] != v:
            v = parent[v]
        return v

    def same_tree(src, dst, eid, weight, parent):
        return root(parent, src) == root(parent, dst)

The helper is returned unchanged (callable from Python too). It may call atomics, the graph view
functions and other registered helpers; like a functor, it must not read global arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from numba.core.extending import overload as cpu_overload

try:
    from numba.cuda.extending import overload as cuda_overload
except ImportError:  # simulator-only installs without the CUDA typing layer
    cuda_overload = None

__all__ = ["device_function"]

F = TypeVar("F", bound=Callable[..., Any])


def device_function(fn: F, *, inline: bool = False) -> F:
    """Make ``fn`` callable from compiled functors on every target; returns ``fn``.

    ``inline=True`` compiles its body into each caller instead of calling it: what a helper
    that returns a view of an array it was given (a row of the graph) needs on CUDA, where a
    device function may return only an array passed to it whole."""

    def typer(*args: Any) -> Callable:
        return fn

    how = "always" if inline else "never"
    cpu_overload(fn, target="cpu", strict=False, inline=how)(typer)
    if cuda_overload is not None:
        cuda_overload(fn, target="cuda", strict=False, inline=how)(typer)
    return fn
