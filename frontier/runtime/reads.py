"""What a function reads besides its arguments, and the helpers it calls through what it reads.

Numba compiles into a function's code what the function reads besides its arguments (the module
globals its code names, its closure cells, its default arguments) and compiles with it the
functions it calls through them. Three parts of the library follow that, with what is defined
here: the identity of a functor (:mod:`operators.functors`: its compiled code is
reused while nothing it or its helpers read has changed), the description of a kernel cached on
disk (:mod:`frontier.runtime.fingerprint`), and the copy of a functor that the simulator and the
race detector run, reading what compiled code freezes as compiled code holds it
(:func:`frontier.runtime.simulator.as_compiled`).

* :func:`global_names`: the names a code object, and the code nested in it, may read as module
  globals.
* :func:`library_named`: whether an object belongs to this library or to a package compiled code
  is versioned by (NumPy, Numba, ...): their source fixes what its functions read, so a walk
  names it and goes no further.
* :func:`is_helper`: whether a value a function reads is a *helper*, a function compiled
  together with its caller: a plain Python function of the user's own (a
  :func:`frontier.device_function` helper, or an unregistered one, which the simulator runs and
  the cpu target refuses). A Numba dispatcher (``njit``, ``cuda.jit(device=True)``) is not one:
  Numba compiles it itself, once per argument types for every caller, and freezes what it reads
  then (Numba's rule: a global changed afterwards is not seen).
* :func:`read_values`: what a function reads now; :func:`helpers`: the helpers it reaches,
  recursively; :class:`Watch`: what some functions read, looked at again quickly (the check
  that reuses a resolved functor on every operator call).
* :func:`rebuilt`: a copy of a function that reads other values in place of some of those it
  reads; :func:`copied`: a new function object of the same code and reads.
"""

from __future__ import annotations

import operator
import types
from collections.abc import Callable
from functools import lru_cache
from operator import attrgetter
from typing import Any

__all__ = ["global_names", "sorted_global_names", "library_named", "is_helper", "helpers",
           "closure_values", "read_values", "Watch", "rebuilt", "copied", "EMPTY",
           "LIBRARY_PACKAGES", "VERSIONED_PACKAGES"]

#: This library's packages, whose source is part of every kernel key.
LIBRARY_PACKAGES = ("frontier", "operators", "algorithms")
#: Packages whose objects are named, not described: their version is part of every kernel key.
VERSIONED_PACKAGES = ("numpy", "numba", "llvmlite", "math", "cmath", "operator", "builtins")

_NAMED = LIBRARY_PACKAGES + VERSIONED_PACKAGES

#: What a walk reads from a closure cell that holds nothing (a name not bound yet), or for a
#: global name its code names that the module does not define.
EMPTY = object()


def global_names(code: types.CodeType) -> set[str]:
    """The global names ``code`` and the code objects nested in it read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= global_names(const)
    return names


@lru_cache(maxsize=4096)
def sorted_global_names(code: types.CodeType) -> tuple[str, ...]:
    """:func:`global_names` of ``code``, sorted (computed once per code)."""
    return tuple(sorted(global_names(code)))


def library_named(module: Any, name: Any) -> bool:
    """Whether an object of ``module`` with the qualified ``name`` belongs to this library or a
    versioned package (and is not a closure made inside one of their functions: ``<locals>`` in
    its name), so that its name identifies it."""
    return (isinstance(module, str) and isinstance(name, str) and "<locals>" not in name
            and module.split(".")[0] in _NAMED)


def is_helper(value: Any) -> bool:
    """Whether ``value``, read by a function, is a helper compiled (or, in the simulator, run)
    with it: see the module docstring."""
    return type(value) is types.FunctionType and not library_named(value.__module__,
                                                                     value.__qualname__)


def closure_values(fn: types.FunctionType) -> tuple:
    """The values of ``fn``'s closure cells, :data:`EMPTY` for a cell that holds nothing."""
    try:
        return tuple(c.cell_contents for c in fn.__closure__ or ())
    except ValueError:
        return tuple(_contents(c) for c in fn.__closure__ or ())


def _contents(cell: types.CellType) -> Any:
    try:
        return cell.cell_contents
    except ValueError:
        return EMPTY


def read_values(fn: types.FunctionType, names: tuple[str, ...] | None = None) -> tuple:
    """What ``fn`` reads now: its closure values, default arguments (positional, then
    keyword-only) and the module globals ``names`` (by default :func:`sorted_global_names` of
    its code), in that order, :data:`EMPTY` where a cell or a global holds nothing."""
    namespace = fn.__globals__
    if names is None:
        names = sorted_global_names(fn.__code__)
    kwdefaults = fn.__kwdefaults__
    return (closure_values(fn) + (fn.__defaults__ or ())
            + (tuple(kwdefaults.values()) if kwdefaults else ())
            + tuple(namespace.get(n, EMPTY) for n in names))


_CELL = attrgetter("cell_contents")
_DEFAULTS = attrgetter("__defaults__")
_KWDEFAULTS = attrgetter("__kwdefaults__")


class Watch:
    """What some functions (a functor and its helpers) read, looked at again quickly: each
    :meth:`now` holds, object for object, the same objects as an earlier one exactly while each
    function reads the objects it read then (what :func:`read_values` gives, its default
    arguments as the tuple and the dict holding them). What to look at is worked out once:
    the closure cells, and per module the names its functions' code may read."""

    __slots__ = ("_cells", "_functions", "_keywords", "_spaces", "_plain")

    def __init__(self, functions: tuple[types.FunctionType, ...],
                 names: tuple[str, ...] | None = None) -> None:
        """``names``: :func:`sorted_global_names` of the code of the one function given, where
        the caller has them."""
        self._functions = functions
        self._keywords = tuple(f for f in functions if f.__kwdefaults__)
        #: One function without closure cells or keyword-only defaults (the common functor):
        #: itself, its module's namespace and the names it reads there; else None.
        self._plain: tuple[types.FunctionType, dict, tuple[str, ...]] | None = None
        if len(functions) == 1:
            fn = functions[0]
            self._cells = fn.__closure__ or ()
            self._spaces = ((fn.__globals__, names if names is not None
                             else sorted_global_names(fn.__code__)),)
            if not self._cells and not self._keywords:
                self._plain = (fn, *self._spaces[0])
            return
        self._cells = tuple(c for f in functions for c in f.__closure__ or ())
        spaces: dict[int, tuple[dict, set[str]]] = {}
        for f in functions:
            spaces.setdefault(id(f.__globals__), (f.__globals__, set()))[1].update(
                sorted_global_names(f.__code__))
        self._spaces = tuple((g, tuple(sorted(found))) for g, found in spaces.values())

    def __add__(self, other: Watch) -> Watch:
        """One watch over what both look at (a module's names looked at by each in turn)."""
        joined = Watch.__new__(Watch)
        joined._functions = self._functions + other._functions
        joined._keywords = self._keywords + other._keywords
        joined._cells = self._cells + other._cells
        joined._spaces = self._spaces + other._spaces
        joined._plain = None
        return joined

    def unchanged(self, before: list) -> bool:
        """Whether the functions read, object for object, what :meth:`now` gave ``before``."""
        now = self.now()
        return len(now) == len(before) and all(map(operator.is_, now, before))

    def now(self) -> list:
        """The objects the functions read now (a module global not defined as None)."""
        plain = self._plain
        if plain is not None:  # the same list as below, in one expression
            fn, namespace, names = plain
            return [fn.__defaults__, fn.__kwdefaults__, *map(namespace.get, names)]
        values = list(map(_DEFAULTS, self._functions))
        values += map(_KWDEFAULTS, self._functions)
        if self._cells:
            try:
                values += tuple(map(_CELL, self._cells))
            except ValueError:  # an empty cell
                values += map(_contents, self._cells)
        for namespace, names in self._spaces:
            values += map(namespace.get, names)
        for f in self._keywords:
            values += (f.__kwdefaults__ or {}).values()
        return values


def _none(fn: types.FunctionType) -> tuple:
    return ()


def helpers(fn: types.FunctionType,
            also: Callable[[types.FunctionType], tuple] = _none) -> tuple[types.FunctionType, ...]:
    """The helpers (:func:`is_helper`) ``fn`` reads, and those they read, recursively: each
    once, ``fn`` excluded, depth first in the order :func:`read_values` gives them (the same
    order while each function reads the same objects). ``also(f)`` names functions compiled
    with ``f`` that it does not read (a :func:`frontier.device_function`'s implementation and
    checks): they are walked as its helpers are."""
    seen = {id(fn)}
    found: list[types.FunctionType] = []

    def walk(f: types.FunctionType) -> None:
        for value in (*read_values(f), *also(f)):
            if is_helper(value) and id(value) not in seen:
                seen.add(id(value))
                found.append(value)
                walk(value)

    walk(fn)
    return tuple(found)


def copied(fn: types.FunctionType) -> types.FunctionType:
    """A new function object of ``fn``'s code, module globals, defaults and closure cells."""
    made = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                              fn.__closure__)
    made.__kwdefaults__ = None if fn.__kwdefaults__ is None else dict(fn.__kwdefaults__)
    made.__qualname__ = fn.__qualname__
    return made


#: How :func:`rebuilt` replaces a value read: ``replace(value, again)``, ``again`` rebuilding a
#: helper with the same ``replace``.
Replace = Callable[[Any, Callable[[types.FunctionType], types.FunctionType]], Any]


def rebuilt(fn: types.FunctionType, replace: Replace) -> types.FunctionType:
    """``fn`` reading ``replace(value, again)`` in place of each value it reads (a module global
    its code names, a closure cell's value, a default argument), or ``fn`` itself where every
    replacement is the value itself. ``again(helper)`` is the helper so rebuilt, a function
    reached twice (or calling itself) being rebuilt once. The copy reads a copy of ``fn``'s
    module globals taken now, and new closure cells."""
    done: dict[int, types.FunctionType] = {}

    def again(f: types.FunctionType) -> types.FunctionType:
        if id(f) in done:
            return done[id(f)]
        namespace = dict(f.__globals__)
        cells = f.__closure__ or ()
        closure = tuple(cell if _contents(cell) is EMPTY else types.CellType() for cell in cells)
        made = types.FunctionType(f.__code__, namespace, f.__name__, None, closure or None)
        made.__qualname__ = f.__qualname__
        done[id(f)] = made
        defaults = None if f.__defaults__ is None else tuple(
            replace(d, again) for d in f.__defaults__)
        kwdefaults = None if f.__kwdefaults__ is None else {
            name: replace(value, again) for name, value in f.__kwdefaults__.items()}
        changed = (defaults is not None and any(
            a is not b for a, b in zip(defaults, f.__defaults__, strict=True))) or (
            kwdefaults is not None and any(
                value is not f.__kwdefaults__[name] for name, value in kwdefaults.items()))
        for name in global_names(f.__code__) & namespace.keys():
            value = namespace[name]
            namespace[name] = replace(value, again)
            changed = changed or namespace[name] is not value
        for cell, new in zip(cells, closure, strict=True):
            if new is not cell:
                new.cell_contents = replace(cell.cell_contents, again)
                changed = changed or new.cell_contents is not cell.cell_contents
        if not changed:  # no helper was rebuilt either, so none reads ``made``
            done[id(f)] = f
            return f
        made.__defaults__ = defaults
        made.__kwdefaults__ = kwdefaults
        return made

    return again(fn)
