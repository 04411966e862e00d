"""The race detector's machinery: shadow memory of what each work item of a step did to the
state arrays, and the rule that finds data races in it. :func:`frontier.testing.check_race_free`
is the public face; this module is what the targets, the atomics and the functor compiler call.

While a thread runs a :func:`session`, the operators it calls compile their kernels in a
*checking mode* (part of :attr:`frontier.Target.compile_key`, so checked and normal code never
share a cache entry): each functor is wrapped by :func:`recorded`, which hands it every state
array as a :class:`Recorded` proxy. Indexing a proxy logs ``(element, read or write, work
item)``; an atomic of :mod:`frontier.atomics` called on one logs an atomic access and works on
the array itself. On the cpu target the kernels then run as plain Python (Numba cannot compile
a call into Python), in the simulator as they always do.

A *step* is one kernel launch (:meth:`frontier.Target.launch` opens one with
:meth:`Session.step`). A *work item* is one functor call: one edge of an advance, one vertex of a
filter or compute; how a kernel's calls form work items (a condition and the functor on the same
edge are one; the calls of a pull or a neighbour reduction for one vertex, one thread's
sequential loop, are one) is the operator's to say, as a :class:`WorkItems`. At the end of a
step, an element touched by two work items, at least one of which wrote it without an atomic,
is a data race (reads beside atomic writes, and atomics beside atomics, are not). Relaxed atomics
(:func:`frontier.atomic_load`, :func:`frontier.atomic_store`) mark intended races, as the C++
memory model has it.

Threads: each thread's session is its own (a thread-local); the launches of a session on the
cpu target log in the launching thread; a simulated launch runs its GPU threads as Python
threads, so the step of a simulated launch is published to them (one simulated checked launch
at a time, as the simulator runs one launch at a time anyway), and work items are kept per
simulated thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from itertools import count
from typing import Any

import numpy as np

__all__ = ["WorkItems", "Session", "session", "checking", "recorded", "atomic_access",
           "Recorded", "RaceError"]

READ, WRITE, ATOMIC = "read", "write", "atomic"
_DID = {READ: "read it", WRITE: "wrote it without an atomic", ATOMIC: "updated it atomically"}


class RaceError(AssertionError):
    """Two work items of one step touched one element of a state array, at least one of them
    writing it without an atomic."""


@dataclass(frozen=True)
class WorkItems:
    """How the calls of one functor in one kernel form work items. ``lead``: the operator's
    arguments before the state (``src, dst, eid, weight``: 4); ``label``: the item's name,
    formatted with the arguments at positions ``names``; ``joins``: the position of the
    argument by which a call joins the item its thread left open (None: every call starts an
    item); ``leaves``: the position of the argument under which the call leaves its item open
    for the thread's next call (None: closed)."""

    lead: int
    label: str
    names: tuple[int, ...]
    joins: int | None = None
    leaves: int | None = None

    def after(self, first: int) -> WorkItems:
        """The same items of a functor that takes ``first`` more arguments before the others
        (the closure numbers of :mod:`operators.lifting`)."""
        if not first:
            return self
        return WorkItems(self.lead + first, self.label, tuple(p + first for p in self.names),
                         None if self.joins is None else self.joins + first,
                         None if self.leaves is None else self.leaves + first)


class _Work:
    """One work item: its name and sort key (renamed when a later call joins it)."""

    __slots__ = ("label", "key")

    def __init__(self, label: str, key: tuple) -> None:
        self.label = label
        self.key = key


@dataclass(frozen=True)
class _Site:
    """Where an access was made: the functor, and the state argument as it saw it."""

    functor: str
    position: int
    array: str


class _Step:
    """The accesses of one launch."""

    def __init__(self, number: int, kernel: str) -> None:
        self.number = number
        self.kernel = kernel
        self.log: list[tuple] = []  # (address, kind, work, site, index); list.append is atomic
        self.open: dict[Any, tuple[Any, _Work]] = {}  # per thread: (join value, its open item)
        self.serial = count()

    def work(self, items: WorkItems, args: tuple) -> _Work:
        """The work item of a call with ``args`` in the calling thread."""
        thread = threading.current_thread()
        named = tuple(args[p] for p in items.names)
        label = items.label.format(*named) if named else f"{items.label} #{next(self.serial)}"
        key = tuple(_sortable(a) for a in named)
        left = self.open.get(thread)
        if items.joins is not None and left is not None and left[0] is not None and bool(
                left[0] == args[items.joins]):
            work = left[1]
            work.label, work.key = label, key
        else:
            work = _Work(label, key)
        self.open[thread] = (None if items.leaves is None else args[items.leaves], work)
        return work

    def first_race(self) -> str | None:
        """The message of the race at the smallest (state argument, index) of this step, if
        any."""
        touched: dict[int, list[tuple]] = {}
        for access in self.log:
            touched.setdefault(access[0], []).append(access)
        races = []
        for accesses in touched.values():
            writes = [a for a in accesses if a[1] == WRITE]
            if not writes or len({id(a[2]) for a in accesses}) < 2:
                continue
            writer = min(writes, key=_order)
            other = min((a for a in accesses if a[2] is not writer[2]), key=_order)
            races.append((writer[3].position, _sortable(writer[4]), writer, other))
        if not races:
            return None
        _, _, writer, other = min(races, key=lambda r: (r[0], r[1]))
        site = writer[3]
        same = " (another call on the same element)" if writer[2].label == other[2].label else ""
        return (f"data race in launch {self.number} (kernel {self.kernel}): functor "
                f"{site.functor}, state argument {site.position} ({site.array}), index "
                f"{writer[4]}: work item {writer[2].label} wrote it without an atomic, and work "
                f"item {other[2].label}{same} {_DID[other[1]]} in the same step"
                + ("" if other[3].functor == site.functor else
                   f" (in functor {other[3].functor})")
                + ". Use an atomic (frontier.atomic_add, atomic_min, atomic_max, atomic_cas, "
                "atomic_exch, atomic_or) for a read-modify-write, or frontier.atomic_store / "
                "atomic_load where any writer's value is right (an intended race)")


def _order(access: tuple) -> tuple:
    return (access[2].key, access[2].label, access[1])


def _sortable(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_sortable(v) for v in value)
    try:
        return int(value)
    except (TypeError, ValueError):
        return str(value)


class Session:
    """One :func:`session`: its launches counted, and the first race found."""

    def __init__(self) -> None:
        self.launches = 0
        self.race: str | None = None

    @contextmanager
    def step(self, kernel: str, simulated: bool) -> Iterator[None]:
        """One launch of ``kernel`` (``simulated``: in the simulator, whose GPU threads are
        other Python threads): its accesses logged, and checked at its end."""
        global _SIMULATED
        self.launches += 1
        current = _Step(self.launches, kernel)
        if simulated:
            with _SIMULATED_LOCK:
                _SIMULATED = current
                try:
                    yield
                finally:
                    _SIMULATED = None
        else:
            _LOCAL.step = current
            try:
                yield
            finally:
                _LOCAL.step = None
        if self.race is None:
            self.race = current.first_race()


_LOCAL = threading.local()
#: The step of the checked simulated launch running now (its threads are not the launcher).
_SIMULATED: _Step | None = None
_SIMULATED_LOCK = threading.Lock()


def current() -> Session | None:
    """The calling thread's session, if it runs one."""
    return getattr(_LOCAL, "session", None)


def checking() -> bool:
    """Whether the calling thread runs a :func:`session` (the checking mode)."""
    return current() is not None


@contextmanager
def session() -> Iterator[Session]:
    """Run the calling thread's launches in the checking mode (nested: a new session)."""
    outer = current()
    found = _LOCAL.session = Session()
    try:
        yield found
    finally:
        _LOCAL.session = outer


def _step() -> _Step | None:
    return getattr(_LOCAL, "step", None) or _SIMULATED


def recorded(fn: Callable, functor: str, items: WorkItems) -> Callable:
    """``fn`` (a compiled functor, callable from Python) called with each state array as a
    :class:`Recorded` proxy logging into the running step, as one call of work items
    ``items``; ``functor`` names it in reports (name and file:line)."""

    @wraps(fn)
    def call(*args: Any) -> Any:
        step = _step()
        if step is None:
            return fn(*args)
        work = step.work(items, args)
        return fn(*args[:items.lead], *(
            _record(a, step, work, functor, i) for i, a in enumerate(args[items.lead:])))

    return call


def _record(value: Any, step: _Step, work: _Work, functor: str, position: int) -> Any:
    host = _host(value)
    if host is None:
        return value
    return Recorded(value, host, step, work,
                    _Site(functor, position, f"{host.dtype} array of shape {host.shape}"))


def _host(value: Any) -> np.ndarray | None:
    """The NumPy array holding ``value``'s elements: itself, or the simulator's array behind a
    simulated device array; None for what is no array."""
    host = value if isinstance(value, np.ndarray) else getattr(value, "_ary", None)
    return host if isinstance(host, np.ndarray) and host.ndim else None


class Recorded:
    """A state array as a checked functor sees it: indexing logs the access in the step,
    anything else is the array's."""

    __slots__ = ("_array", "_host", "_step", "_work", "_site")

    def __init__(self, array: Any, host: np.ndarray, step: _Step, work: _Work,
                 site: _Site) -> None:
        self._array = array
        self._host = host
        self._step = step
        self._work = work
        self._site = site

    def _log(self, index: Any, kind: str) -> None:
        for address, where in _elements(self._host, index):
            self._step.log.append((address, kind, self._work, self._site, where))

    def __getitem__(self, index: Any) -> Any:
        value = self._array[index]
        view = _host(value)
        if view is not None and np.shares_memory(view, self._host):
            return Recorded(value, view, self._step, self._work, self._site)
        self._log(index, READ)
        return value

    def __setitem__(self, index: Any, value: Any) -> None:
        self._log(index, WRITE)
        self._array[index] = value

    def __len__(self) -> int:
        return len(self._array)

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self._array)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._array, name)

    def atomic(self, index: Any) -> Any:
        """Log an atomic access at ``index``; the array itself, for the atomic to work on."""
        self._log(index, ATOMIC)
        return self._array


def atomic_access(array: Any, index: Any) -> Any:
    """What an atomic of :mod:`frontier.atomics` works on: ``array``, or, for a
    :class:`Recorded` proxy, its array, after logging an atomic access at ``index``."""
    return array.atomic(index) if isinstance(array, Recorded) else array


def _elements(host: np.ndarray, index: Any) -> list[tuple[int, Any]]:
    """(address, index) of each element ``host[index]`` selects; none for an index out of
    range (the access itself raises)."""
    base = host.__array_interface__["data"][0]
    if isinstance(index, (int, np.integer)) and host.ndim == 1:
        i = int(index)
        i = i + host.shape[0] if i < 0 else i
        return [(base + i * host.strides[0], i)] if 0 <= i < host.shape[0] else []
    try:
        flat = np.atleast_1d(np.arange(host.size).reshape(host.shape)[index]).ravel()
    except (IndexError, TypeError, ValueError):
        return []
    where = np.unravel_index(flat, host.shape)
    offsets = sum(w * s for w, s in zip(where, host.strides, strict=True))
    names = (where[0] if host.ndim == 1 else zip(*where, strict=True))
    return [(base + int(o), _sortable(n)) for o, n in zip(offsets, names, strict=True)]
