"""The race detector's machinery: shadow memory of what each work item of a step did to the
state arrays, and the rule that finds data races in it. :func:`frontier.testing.check_race_free`
is the public face; this module is what the targets, the atomics and the functor compiler call.

While a thread runs a :func:`session`, the operators it calls compile their kernels in a
*checking mode* (part of :attr:`frontier.Target.compile_key`, so checked and normal code never
share a cache entry): each functor is wrapped by :func:`recorded`, which hands it every state
array as a :class:`Recorded` proxy. Indexing a proxy logs ``(element, read or write, work
item)``, an element being an address (a record's fields each their own); a view of it (a
slice, a record, a field, ``reshape``) is a proxy too, and its methods, the NumPy functions and
the operators given it log what they read and write (``fill``, ``np.copyto``, ``+=``, ...); an
atomic of :mod:`frontier.runtime.atomics` called on one logs an atomic access and works on the array
itself. On the cpu target the kernels then run as plain Python (Numba cannot compile a call
into Python), in the simulator as they always do; the ``njit`` helpers a functor calls run as
Python too, and the numbers compiled code would freeze into them are read as compiled code holds
them (:func:`frontier.runtime.simulator.as_compiled`). A helper reached otherwise (an attribute, a
container, an argument) refuses the proxy with a TypeError saying so (:func:`session`).

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
from functools import cache, lru_cache, wraps
from itertools import count
from typing import Any

import numpy as np
from numba.core.typing.typeof import typeof_impl

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
        # (address, kind, work, site, the state argument's array: what names the element at
        # the address, found only for a race); list.append is atomic
        self.log: list[tuple] = []
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
            index = _index_of(writer[4], writer[0])
            races.append((writer[3].position, _sortable(index), index, writer, other))
        if not races:
            return None
        _, _, index, writer, other = min(races, key=lambda r: (r[0], r[1]))
        site = writer[3]
        same = " (another call on the same element)" if writer[2].label == other[2].label else ""
        return (f"data race in launch {self.number} (kernel {self.kernel}): functor "
                f"{site.functor}, state argument {site.position} ({site.array}), index "
                f"{index}: work item {writer[2].label} wrote it without an atomic, and work "
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


class _Local(threading.local):
    """The calling thread's session and checked step (None, the class's values, until set:
    read on every launch and kernel lookup, where ``getattr`` with a default of a missing
    thread-local attribute would raise and catch an AttributeError)."""

    session: Session | None = None
    step: _Step | None = None


_LOCAL = _Local()
#: The step of the checked simulated launch running now (its threads are not the launcher).
_SIMULATED: _Step | None = None
_SIMULATED_LOCK = threading.Lock()


def current() -> Session | None:
    """The calling thread's session, if it runs one."""
    return _LOCAL.session


def checking() -> bool:
    """Whether the calling thread runs a :func:`session` (the checking mode)."""
    return current() is not None


@contextmanager
def session() -> Iterator[Session]:
    """Run the calling thread's launches in the checking mode (nested: a new session)."""
    _register_refusal()
    outer = current()
    found = _LOCAL.session = Session()
    try:
        yield found
    finally:
        _LOCAL.session = outer


def _step() -> _Step | None:
    return _LOCAL.step or _SIMULATED


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


def _refuse_in_compiled_code(value: Recorded, context: Any) -> None:
    """Numba's typing of a :class:`Recorded` proxy: a clear refusal (see
    :func:`frontier.runtime.simulator.as_compiled`)."""
    raise TypeError(
        f"a state array under the race detector ({value._site.array}, state argument "
        f"{value._site.position} of functor {value._site.functor}) was passed to a "
        "Numba-compiled function, which cannot take the recording proxy the detector hands "
        "functors: it runs functors as Python and replaces the njit helpers they read from "
        "module globals or closure variables by their Python functions, so call the helper "
        "by such a name (not through an attribute, a container or an argument)")


@cache
def _register_refusal() -> None:
    """Make Numba refuse a :class:`Recorded` proxy with :func:`_refuse_in_compiled_code`."""
    typeof_impl.register(Recorded)(_refuse_in_compiled_code)


def _record(value: Any, step: _Step, work: _Work, functor: str, position: int) -> Any:
    host = _host(value)
    if host is None:
        return value
    return Recorded(value, host, host, step, work, _site(functor, position, host.dtype,
                                                        host.shape))


@lru_cache(maxsize=1024)
def _site(functor: str, position: int, dtype: np.dtype, shape: tuple[int, ...]) -> _Site:
    """The site of state argument ``position`` of ``functor`` (made once: a functor's calls
    are many, and a dtype's name is slow to format)."""
    return _Site(functor, position, f"{dtype} array of shape {shape}")


def _host(value: Any) -> np.ndarray | None:
    """The NumPy array holding ``value``'s elements: itself, or the simulator's array behind a
    simulated device array; None for what is no array."""
    host = value if isinstance(value, np.ndarray) else getattr(value, "_ary", None)
    return host if isinstance(host, np.ndarray) else None


#: ndarray methods that write the array they are called on (``byteswap`` with ``inplace``).
_WRITING_METHODS = frozenset({"fill", "sort", "partition", "put", "setfield", "resize"})
#: NumPy functions that write their first argument (at the indices or mask that follow, for
#: ``put``, ``putmask`` and ``place``).
_WRITING_FUNCTIONS = frozenset({"copyto", "put", "putmask", "place", "fill_diagonal",
                                "put_along_axis"})


class Recorded(np.lib.mixins.NDArrayOperatorsMixin):
    """A state array as a checked functor sees it: every access to its elements is logged in
    the step. Indexing logs the elements it reads or writes (a record's fields one by one); a
    view (a slice, a field, a record, ``reshape``, ``T``, ...) is a :class:`Recorded` too;
    a method of the array, a NumPy function or an operator given one logs a read of each
    element it is given, a write of each it writes (``fill``, ``sort``, ``put``, ``np.copyto``,
    ``out=``, ``+=``, ``ufunc.at``, ...)."""

    __slots__ = ("_array", "_host", "_root", "_step", "_work", "_site")

    def __init__(self, array: Any, host: np.ndarray, root: np.ndarray, step: _Step,
                 work: _Work, site: _Site) -> None:
        self._array = array
        self._host = host
        self._root = root  # the state argument's array, which names the elements
        self._step = step
        self._work = work
        self._site = site

    def _log(self, index: Any, kind: str) -> None:
        self._log_at(_elements(self._host, index), kind)

    def _log_at(self, addresses: list[int], kind: str) -> None:
        for address in addresses:
            self._step.log.append((address, kind, self._work, self._site, self._root))

    def _view(self, value: Any) -> Recorded | None:
        """``value`` as a :class:`Recorded` where it is a view of this array's memory."""
        view = _host(value)
        if view is None or not np.shares_memory(view, self._host):
            return None
        return Recorded(value, view, self._root, self._step, self._work, self._site)

    def __getitem__(self, index: Any) -> Any:
        _refuse_negative(index, self._host)
        value = self._array[index]
        if isinstance(getattr(value, "_ary", value), np.void):  # a record: a view of its memory
            value = self._host[(*index, ...) if isinstance(index, tuple) else (index, ...)]
        if not (isinstance(index, str) and self._host.ndim == 0):  # a record's field: a number
            view = self._view(value)
            if view is not None:
                return view
        self._log(index, READ)
        return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value

    def __setitem__(self, index: Any, value: Any) -> None:
        _refuse_negative(index, self._host)
        value = _plain(value, READ)
        self._log(index, WRITE)
        self._array[index] = value

    def __len__(self) -> int:
        return len(self._host)

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self._host)))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """The elements, read (a NumPy function that does not dispatch to
        :meth:`__array_function__`, such as ``np.asarray``)."""
        self._log(..., READ)
        return self._host if dtype is None else self._host.astype(dtype)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the array protocols: NumPy then asks __array__
            raise AttributeError(name)
        value = getattr(self._host, name)
        if name == "flat":
            flat = self._host.reshape(-1)
            return self._view(flat) or value
        if not callable(value):
            return self._view(value) or value  # T, real, imag, base: views
        return _Method(self, name, value)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method == "at":  # ufunc.at(a, indices, b): a read and written at the indices
            target, indices, *rest = inputs
            plain = [_plain(a, READ) for a in rest]
            if isinstance(target, Recorded):
                _refuse_negative(indices, target._host)
                target._log(indices, WRITE)
                return ufunc.at(target._host, indices, *plain)
            return ufunc.at(target, indices, *plain)
        return _numpy_call(getattr(ufunc, method), inputs, kwargs)

    def __array_function__(self, func: Callable, types: Any, args: tuple, kwargs: dict) -> Any:
        name = func.__name__
        if name in _WRITING_FUNCTIONS and args and isinstance(args[0], Recorded):
            target, rest = args[0], args[1:]
            if name in ("put", "putmask", "place") and rest:
                where = rest[0] if name == "put" else np.flatnonzero(_plain(rest[0], READ))
                target._log_at(_flat_elements(target._host, where), WRITE)
            else:
                target._log(..., WRITE)
            return _numpy_call(func, (target._host, *rest), kwargs)
        return _numpy_call(func, args, kwargs)

    def atomic(self, index: Any) -> Any:
        """Log an atomic access at ``index``; the array itself, for the atomic to work on."""
        _refuse_negative(index, self._host)
        self._log(index, ATOMIC)
        return self._array


def _refuse_negative(index: Any, host: np.ndarray) -> None:
    """IndexError for a negative integer in ``index`` (alone, in a tuple, in an integer
    array; slices and fields are left alone): compiled code takes it from the end of the
    array (Python's rule, on the cpu target and on a GPU alike), where a functor almost always
    meant an element before the start (``out[v - 1]`` at vertex 0), so the checks of
    :mod:`frontier.testing` take it as out of range, as an index past the end is."""
    parts = index if isinstance(index, tuple) else (index,)
    for part in parts:
        if isinstance(part, (bool, np.bool_, str, slice)) or part is None or part is Ellipsis:
            continue
        if isinstance(part, (int, np.integer)):
            lowest = int(part)
        else:
            values = np.asarray(part)
            if not np.issubdtype(values.dtype, np.integer) or not values.size:
                continue
            lowest = int(values.min())
        if lowest < 0:
            raise IndexError(
                f"index {lowest} is negative, into an array of shape {host.shape}: compiled "
                "code would take it from the end of the array (Python's rule), which a functor "
                "almost never means (an off-by-one such as out[v - 1] at v = 0), so the checks "
                "of frontier.testing refuse it; write a[a.shape[0] - 1] for the last element")


class _Method:
    """A method of a recorded array: logs what it reads or writes, and keeps a view it returns
    recorded."""

    __slots__ = ("_owner", "_name", "_method")

    def __init__(self, owner: Recorded, name: str, method: Callable) -> None:
        self._owner = owner
        self._name = name
        self._method = method

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        owner, name = self._owner, self._name
        writes = name in _WRITING_METHODS or (name == "byteswap" and (
            kwargs.get("inplace") or (args and args[0])))
        if name == "put" and args:
            owner._log_at(_flat_elements(owner._host, _plain(args[0], READ)), WRITE)
        elif writes:
            owner._log(..., WRITE)
        args = tuple(_plain(a, READ) for a in args)
        out = kwargs.get("out")
        if out is not None:
            kwargs = {**kwargs, "out": _plain(out, WRITE)}
        result = self._method(*args, **kwargs)
        if out is not None and result is _plain(out, None):
            return out
        view = owner._view(result)
        if view is not None:
            return view
        if not writes:
            owner._log(..., READ)
        return result


def _plain(value: Any, kind: str | None) -> Any:
    """``value`` with every :class:`Recorded` in it (in lists and tuples too) replaced by its
    array, each logged as ``kind`` (a read or a write of all its elements; None: not logged)."""
    if isinstance(value, Recorded):
        if kind is not None:
            value._log(..., kind)
        return value._host
    if isinstance(value, (tuple, list)) and any(isinstance(v, (Recorded, tuple, list))
                                                for v in value):
        return type(value)(_plain(v, kind) for v in value)
    return value


def _numpy_call(func: Callable, args: tuple, kwargs: dict) -> Any:
    """``func(*args, **kwargs)`` (a ufunc or a NumPy function) with recorded arrays: each read,
    those given as ``out`` written; a result that is a view of a recorded argument stays
    recorded, and one that is the given ``out`` is returned as given."""
    out = kwargs.get("out")
    given = list(_recorded_in(args))
    if out is not None:
        kwargs = {**kwargs, "out": _plain(out, WRITE)}
    result = func(*_plain(args, None), **kwargs)
    if out is not None:
        outs = out if isinstance(out, tuple) else (out,)
        plain = [_plain(o, None) for o in outs]
        if isinstance(result, tuple):
            return tuple(o if r is p else r for r, o, p in zip(result, outs, plain,
                                                               strict=False))
        if len(outs) == 1 and result is plain[0]:
            for a in given:
                a._log(..., READ)
            return outs[0]
    for a in given:
        view = a._view(result)
        if view is not None:
            return view
    for a in given:
        a._log(..., READ)
    return result


def _recorded_in(value: Any) -> Iterator[Recorded]:
    """The :class:`Recorded` arrays in ``value`` (in lists and tuples too)."""
    if isinstance(value, Recorded):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _recorded_in(v)


def atomic_access(array: Any, index: Any) -> Any:
    """What an atomic of :mod:`frontier.runtime.atomics` works on: ``array``, or, for a
    :class:`Recorded` proxy, its array, after logging an atomic access at ``index``."""
    return array.atomic(index) if isinstance(array, Recorded) else array


def _elements(host: np.ndarray, index: Any) -> list[int]:
    """The address of each element ``host[index]`` selects (of each field of a record); none
    for an index out of range (the access itself raises)."""
    if isinstance(index, str) or (isinstance(index, list) and index
                                  and all(isinstance(i, str) for i in index)):
        try:  # fields: their own views of the records' memory
            return _elements(host[index], ...)
        except (IndexError, KeyError, ValueError):
            return []
    if isinstance(index, (int, np.integer)) and host.ndim == 1 and host.dtype.names is None:
        i = int(index)
        i = i + host.shape[0] if i < 0 else i
        base = host.__array_interface__["data"][0]
        return [base + i * host.strides[0]] if 0 <= i < host.shape[0] else []
    try:
        flat = np.atleast_1d(np.arange(host.size).reshape(host.shape)[index]).ravel()
    except (IndexError, TypeError, ValueError):
        return []
    return _flat_elements(host, flat)


def _flat_elements(host: np.ndarray, flat: Any) -> list[int]:
    """The address of each element of ``host`` at flat (C-order) positions ``flat`` (of each
    field of a record); none where one is out of range."""
    flat = np.atleast_1d(np.asarray(flat)).ravel()
    if not np.issubdtype(flat.dtype, np.integer) or flat.size and not (
            -host.size <= flat.min() and flat.max() < host.size):
        return []
    base = host.__array_interface__["data"][0]
    if host.ndim == 0:
        positions = [0] * flat.size
    else:
        where = np.unravel_index(flat % host.size, host.shape)
        positions = sum(w * s for w, s in zip(where, host.strides, strict=True))
    fields = [0] if host.dtype.names is None else sorted(
        {f[1] for f in host.dtype.fields.values()})
    return [base + int(p) + f for p in np.atleast_1d(positions) for f in fields]


def _index_of(root: np.ndarray, address: int) -> Any:
    """The index in ``root`` (a state argument's array) of the element at ``address``: an int
    in one dimension, a tuple in several, ``()`` in none, with the field's name for a record's
    field; the byte offset where ``root``'s layout does not say (negative strides)."""
    offset = address - root.__array_interface__["data"][0]
    index = []
    for axis in sorted(range(root.ndim), key=lambda a: -root.strides[a]):
        stride = root.strides[axis]
        if stride <= 0:
            return f"byte {offset}"
        index.append((axis, offset // stride))
        offset %= stride
    position = tuple(i for _, i in sorted(index))
    if offset >= root.itemsize or any(not 0 <= i < n for i, n in zip(position, root.shape,
                                                                        strict=True)):
        return f"byte {address - root.__array_interface__['data'][0]}"
    if root.dtype.names is not None:
        field = next((n for n, f in root.dtype.fields.items() if f[1] == offset), None)
        return (*position, field)
    return position[0] if len(position) == 1 else position
