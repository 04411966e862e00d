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

A helper called from a functor is compiled with the options of the functor's code that Numba
does not pass on to what it calls (it passes on ``forceinline``, not these; :func:`_for_caller`):

* in the checked mode (``FRONTIER_BOUNDSCHECK=1``, the cpu target; :mod:`frontier.target`),
  with bounds checks, after the ``checks`` given with it: an index past an array in the helper
  raises ``IndexError`` instead of reading garbage, and the ``IndexError`` names the functor
  (:class:`operators.codegen.FunctorIndexError`);
* on the cpu target of several threads, without the GIL, as the functor is: that is how the
  atomics it calls know they run on several threads at once
  (:func:`frontier.runtime.cpu_atomics.one_thread_caller`) and make the processor's atomic
  instructions (compiled as one thread's code, a compare-and-swap in a helper would be a plain
  load and store that two threads could both win).

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
        return _for_caller(body, checks, *_caller_options())

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


def _caller_options() -> tuple[bool, bool]:
    """The options of the function being compiled now, the helper's caller, that Numba does not
    pass on to the functions it compiles for it: whether it checks bounds, and whether it runs
    without the GIL (the code of the cpu target of several threads). Numba keys an overload's
    implementation by its caller's options, so each kind of caller gets its own."""
    flags = targetconfig.ConfigStack.top_or_none()
    if flags is None:
        return False, False
    return bool(flags.boundscheck), bool(flags.release_gil)


@cache
def _for_caller(body: Callable, checks: Callable | None, bounds: bool, nogil: bool
                ) -> Callable:
    """The implementation of ``body`` for a caller with bounds checks (``bounds``) or without
    the GIL (``nogil``): ``body`` itself for a caller with neither; else a trampoline calling
    ``checks`` of its arguments (with ``bounds``), then ``body`` compiled with the caller's
    options, so that its code is of the caller's kind: bounds-checked, and with the atomic
    instructions of code that several threads run at once (the helper's own options would make
    it one thread's code: :func:`frontier.runtime.cpu_atomics.one_thread_caller`). The compiled
    copy is of a clone of ``body``, not registered with Numba, so that its call is not routed
    back here. A trampoline of a helper taking ``*args`` or keyword-only arguments takes
    ``*args`` (called with positional arguments only)."""
    if not (bounds or nogil):
        return body
    parameters = inspect.signature(body).parameters.values()
    fixed = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)
    names = ", ".join(p.name for p in parameters) if fixed else "*args"
    scope = {"compiled_body": numba.njit(boundscheck=bounds, nogil=nogil)(copied(body)),
             "check": (numba.njit(boundscheck=True, nogil=nogil)(checks)
                       if bounds and checks is not None else None)}
    exec(f"def {body.__name__}({names}):\n"  # noqa: S102 - a trampoline of fixed shape
         + (f"    check({names})\n" if scope["check"] is not None else "")
         + f"    return compiled_body({names})\n", scope)
    trampoline = scope[body.__name__]
    if fixed:
        trampoline.__defaults__ = body.__defaults__
    return trampoline
