"""Ctrl-C at any moment leaves the process usable.

A ``KeyboardInterrupt`` is raised wherever the main thread is when SIGINT arrives. Most places
can be left half-done: Frontier's caches of compiled kernels and functors store an entry only
after its build completed (an interrupted build leaves no entry, and the next call builds again),
a step whose kernel is interrupted leaves its frontier ring as it was. One place cannot: Numba
loads most of a target's typing and lowering registries lazily, by importing modules on the
first compilation, and those modules register types in process-wide tables as they run. An
interrupt in the middle of such an import leaves half the registrations made and the module out
of :data:`sys.modules`; importing it again then fails (``KeyError: duplicate registration for
UnicodeType``), and so does every later compilation in the process (about 3% of Ctrl-C presses
in the first call of an algorithm used to do this).

:func:`prepare_numba` therefore finishes that lazy loading once, with SIGINT held back by
:func:`deferred_interrupts` and delivered when it is done (a ``KeyboardInterrupt`` right after
it, never in the middle): for the CPU target when :mod:`frontier` is imported (about 0.25 s that
the first compilation would otherwise spend), for CUDA when a GPU target is made.

A second place is LLVM, which Numba drives through llvmlite while it compiles a function or
loads one from its cache: llvmlite's Python wrappers hand native objects over in two steps, a
call into LLVM and then the Python bookkeeping of who owns what (``link_modules`` destroys the
module it linked in, then marks its wrapper closed; ``ExecutionEngine.add_module`` gives the
module to the engine, then marks it owned). A ``KeyboardInterrupt`` between the two leaves a
wrapper that still believes it owns a module LLVM already freed, and the wrapper's ``__del__``
frees it again: ``free(): double free detected`` (SIGABRT) or a segmentation fault, later and
elsewhere (seen in a run of ``tests/frontier/test_interrupts.py``, reproduced every time by
raising SIGINT right after LLVM linked a module in). LLVM's JIT also calls back into Python
while it emits or loads machine code (llvmlite's object-cache hooks, through ctypes), and a
``KeyboardInterrupt`` raised inside such a callback returns to LLVM with the callback half done
(a null buffer handed to LLVM: a segmentation fault). :func:`prepare_numba` for the CPU therefore
also makes each of :data:`HELD` run with SIGINT held back: Numba's ``Dispatcher.compile`` (the
whole of a compilation or cache load, however it nests) and the methods of its JIT engine that
run LLVM's code emission outside it. A Ctrl-C pressed during a compilation lands when that
compilation ends (at most the few seconds a large kernel takes the first time).
"""

from __future__ import annotations

import functools
import importlib
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["deferred_interrupts", "prepare_numba"]


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Hold back SIGINT (Ctrl-C, :func:`_thread.interrupt_main`) while the block runs and
    deliver it when the block ends, to whatever handler was in place before. Outside the main
    thread (where Python delivers no signal) it holds nothing back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    if signal.getsignal(signal.SIGINT) is None:  # a handler not set from Python: leave it be
        yield
        return
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    except ValueError:  # not the main interpreter: signals go elsewhere
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held:
            signal.raise_signal(signal.SIGINT)


def _load_cpu() -> None:
    import numba.core.boxing  # noqa: F401 - loaded lazily by the first compilation
    import numba.core.runtime.context  # noqa: F401 - idem
    from numba.core.registry import cpu_target

    cpu_target.target_context.refresh()
    _hold_interrupts()


#: Where Numba's CPU target runs LLVM through llvmlite, by module, class and method names: a
#: dispatcher's compilation (or cache load), and the JIT engine's code emission.
HELD = (("numba.core.dispatcher", "Dispatcher", "compile"),
        ("numba.core.codegen", "JitEngine", "finalize_object"),
        ("numba.core.codegen", "JitEngine", "get_function_address"),
        ("numba.core.codegen", "JitEngine", "get_global_value_address"))


def _hold_interrupts() -> None:
    """Make each method of :data:`HELD` run under :func:`deferred_interrupts` (where this
    Numba has it; once)."""
    for module_name, class_name, name in HELD:
        owner = getattr(importlib.import_module(module_name), class_name, None)
        method = getattr(owner, name, None)
        if method is not None and not getattr(method, "holds_interrupts", False):
            setattr(owner, name, _holding_interrupts(method))


def _holding_interrupts(method: Callable) -> Callable:
    @functools.wraps(method)
    def holding(*args: Any, **kwargs: Any) -> Any:
        with deferred_interrupts():
            return method(*args, **kwargs)

    holding.holds_interrupts = True  # type: ignore[attr-defined]
    return holding


def _load_cuda() -> None:
    from frontier.runtime import gpu

    with gpu.global_compiler_lock:  # no compilation in another thread sees the registries half
        gpu.cuda_target.target_context.refresh()  # made


_LOADERS: dict[str, Callable[[], Any]] = {"cpu": _load_cpu, "cuda": _load_cuda}
_prepared: set[str] = set()
_lock = threading.Lock()


def prepare_numba(target: str) -> None:
    """Finish Numba's lazy loading of ``target``'s registries (``"cpu"`` or ``"cuda"``, a GPU
    one; the simulator compiles nothing) with interrupts deferred; once per process."""
    if target in _prepared:
        return
    with _lock, deferred_interrupts():
        if target not in _prepared:
            _LOADERS[target]()
            _prepared.add(target)
