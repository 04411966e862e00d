"""Plain Python helpers that compiled functors may call, on every target.

A functor is compiled for its target (:mod:`operators.functors`), and so is everything it calls:
a plain Python function named inside a functor is not something Numba can call from a kernel.
:func:`device_function` registers one so that it is: its own Python body becomes its
implementation on the sequential CPU target and on CUDA (through Numba's ``overload``, the
mechanism :mod:`frontier.runtime.atomics` uses), and the Numba CUDA simulator calls it as plain
Python. The helper is then shared by several functors instead of being pasted into each::

    @device_function
    def root(parent, v):
        while parent[v] != v:
            v = parent[v]
        return v

    def same_tree(src, dst, eid, weight, parent):
        return root(parent, src) == root(parent, dst)

The helper is returned unchanged (callable from Python too). It may call atomics, the graph view
functions and other registered helpers; like a functor, it must not read global arrays.

In the checked mode (``FRONTIER_BOUNDSCHECK=1``, the cpu target; :mod:`frontier.target`) a
helper called from a functor is compiled with bounds checks too, as the functor is (Numba
compiles an overload's body with its own options, not its caller's), after the ``checks`` given
with it: an index past an array in the helper raises ``IndexError`` instead of reading
garbage, and the ``IndexError`` names the functor (:class:`operators.codegen.FunctorIndexError`).

What a helper reads (its module globals, closure values and defaults, and those of the helpers
it calls) is part of the identity of every functor calling it (:mod:`operators.functors`).
Numba compiles a registered helper once per argument types and keeps that code, with the values
it read then, for every later caller; so a functor compiled again because a helper's global
changed calls :func:`registered_again`, a new registration of a copy of the helper, which Numba
compiles afresh (one per set of values read: :func:`operators.functors.compile_functor` shares
them between functors).
"""

from __future__ import annotations

import inspect
import types
import weakref
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

import numba
from numba.core import targetconfig
from numba.core.extending import overload as cpu_overload

from frontier.runtime import cuda_support
from frontier.runtime.reads import copied

__all__ = ["device_function", "companions", "registered", "registered_again"]

F = TypeVar("F", bound=Callable[..., Any])


def device_function(fn: F, *, inline: bool = False, checks: Callable | None = None,
                    implementation: Callable | None = None) -> F:
    """Make ``fn`` callable from compiled functors on every target; returns ``fn``.

    ``inline=True`` compiles its body into each caller instead of calling it: what a helper
    that returns a view of an array it was given (a row of the graph) needs on CUDA, where a
    device function may return only an array passed to it whole.

    ``checks``, a function of the same arguments that raises ``IndexError`` for arguments out
    of range (compiled as the helper is), runs before the helper in the checked mode.
    ``implementation``, a function of the same arguments, is what compiled code runs in place
    of ``fn``'s own body (``fn`` then being what Python runs: a wrapper that checks what Python
    callers pass, say)."""
    body = implementation or fn

    def typer(*args: Any) -> Callable:
        return body

    def cpu_typer(*args: Any) -> Callable:
        return _bounds_checked(body, checks) if _caller_checks_bounds() else body

    def register_cuda(cuda: types.ModuleType) -> None:
        cuda_overload = cuda_support.cuda_overload()
        if cuda_overload is not None:  # None: a numba.cuda without the CUDA typing layer
            cuda_overload(fn, target="cuda", strict=False, inline=how)(typer)

    how = "always" if inline else "never"
    cpu_overload(fn, target="cpu", strict=False, inline=how)(cpu_typer)
    cuda_support.on_load(register_cuda)  # when the library loads numba.cuda, or now
    _REGISTERED[fn] = (inline, checks, implementation)
    return fn


#: Per registered helper: what it was registered with (``inline``, ``checks``,
#: ``implementation``).
_REGISTERED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def registered(fn: Any) -> bool:
    """Whether ``fn`` was registered by :func:`device_function`."""
    try:
        return fn in _REGISTERED
    except TypeError:  # unhashable: no function
        return False


def companions(fn: Callable) -> tuple[Callable, ...]:
    """What compiled code compiles with helper ``fn`` besides (or instead of) its own body: the
    ``implementation`` and ``checks`` it was registered with; none for a function registered
    without them, or not registered."""
    how = _REGISTERED.get(fn)
    return () if how is None else tuple(f for f in how[1:] if f is not None)


def registered_again(fn: types.FunctionType,
                     again: Callable[[types.FunctionType], types.FunctionType]) -> Callable:
    """A new function registered as helper ``fn`` was (``inline``, ``checks``,
    ``implementation``), which Numba compiles afresh (see the module docstring): a copy of
    ``again(fn)``, and of ``again`` of its implementation and checks (``again`` gives a function
    as compiled code is to read it now: :func:`frontier.runtime.reads.rebuilt`)."""
    inline, checks, implementation = _REGISTERED[fn]
    return device_function(
        copied(again(fn)), inline=inline,
        checks=None if checks is None else copied(again(checks)),
        implementation=None if implementation is None else copied(again(implementation)))


def _caller_checks_bounds() -> bool:
    """Whether the function being compiled now, the helper's caller, has bounds checks (Numba
    keys an overload's implementation by its caller's options, so each mode gets its own)."""
    flags = targetconfig.ConfigStack.top_or_none()
    return flags is not None and bool(flags.boundscheck)


@cache
def _bounds_checked(body: Callable, checks: Callable | None) -> Callable:
    """An implementation of ``body`` for a caller compiled with bounds checks: ``checks`` of its
    arguments, then ``body`` compiled with bounds checks. The compiled copy is of a clone of
    ``body``, not registered with Numba, so that its call is not routed back here. A helper
    taking ``*args`` or keyword-only arguments is left as it is."""
    parameters = inspect.signature(body).parameters.values()
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters):
        return body  # no trampoline of fixed shape passes *args on: left unchecked
    clone = copied(body)
    names = ", ".join(p.name for p in parameters)
    scope = {"checked_body": numba.njit(boundscheck=True)(clone),
             "check": numba.njit(boundscheck=True)(checks) if checks is not None else None}
    exec(f"def {body.__name__}({names}):\n"  # noqa: S102 - a trampoline of fixed shape
         + (f"    check({names})\n" if checks is not None else "")
         + f"    return checked_body({names})\n", scope)
    trampoline = scope[body.__name__]
    trampoline.__defaults__ = body.__defaults__
    return trampoline
