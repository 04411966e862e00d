"""User functors: what identifies one, what it may read, how it is compiled and cached.

A functor is a plain Python function (a ``def``, a lambda, a nested function) that the code
generator calls from a kernel. Numba compiles it for the target, and in doing so *freezes* what it
reads besides its arguments: the values of its closure cells, of its default arguments and of
the module globals it names become constants of the compiled code. The Numba CUDA simulator, by
contrast, runs the function as Python, which would read them live (it reads them as they were
when it was built for the key below, as compiled code holds them:
:mod:`frontier.runtime.simulator`). So that every target computes the same thing, a functor is
identified (and its compiled code cached) by:

* what its code does: name, bytecode, constants, names (the same lambda written on another
  line, or created anew in every iteration of a loop, is the same functor);
* the *types* of the numbers in its closure (bools, ints that fit int64, floats, NumPy
  numbers): kernels take them as arguments (:mod:`operators.lifting` rewrites the code to read
  them from leading parameters), so a functor made anew each round around a changing round
  number or threshold compiles once, not once per value;
* its other closure values and its default arguments;
* the current values of the module globals it reads: a functor reading a global ``K`` is compiled
  again when ``K`` changes. Only values Numba can freeze and Python can hash are allowed there
  (numbers, strings, tuples of them, functions); a functor reading a global *array* is refused
  with :class:`FunctorError` naming the global: pass the array as a state argument;
* what the helpers it calls read, by the same rules: the plain Python functions (registered with
  :func:`frontier.device_function`, or not) it reaches through its globals, closure and
  defaults, recursively (:func:`frontier.runtime.reads.helpers`), their closure values, defaults and
  module globals. Numba compiles a registered helper once per argument types and keeps that
  code, the values it read included, for every later caller; so the compiled functor calls, in
  place of each, a registration of it for the values it reads now
  (:func:`frontier.runtime.devicefn.registered_again`, one per set of values, shared by the functors
  calling it). A Numba dispatcher (``njit``, ``cuda.jit(device=True)``) is not followed: Numba
  compiles it, and freezes its globals at its first compilation, whoever calls it.

The check on each call is cheap: a resolved functor is reused while it and its helpers read the
same objects (:class:`frontier.runtime.reads.Watch`).

Values are compared by type and exact value (:func:`frontier.runtime.identity.identity`), never by
``==``: ``-0.0`` and ``0.0``, or ``False`` and ``0``, compile apart (whichever comes first), and a
nan is one value. A NumPy number no target compiles (``float16``, ``longdouble``,
``clongdouble``) is refused with :class:`FunctorError` naming where it is read.

So a lambda written inside a loop compiles once per distinct closure, not once per call. When
one functor's code is compiled more than :data:`RECOMPILE_WARNING_AFTER` times in a process, a
:class:`RecompileWarning` names what changed between the last two compilations (a module
global, a default argument, a closure value that is not a number) and says how to pass it
instead.

A generator function or an ``async def`` is refused with :class:`FunctorError` before anything
runs: calling one only creates a generator or coroutine, so the kernel would do nothing.

The graph inside a functor: a functor whose last parameter is named ``graph`` receives a view of
the graph there, for :func:`frontier.out_degree`, :func:`frontier.in_degree`,
:func:`frontier.graph_vertices` and :func:`frontier.graph_edges`.
"""

from __future__ import annotations

import dis
import inspect
import operator
import threading
import types
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frontier.runtime import cudacheck, racecheck
from frontier.runtime.devicefn import companions, registered, registered_again
from frontier.runtime.identity import identity
from frontier.runtime.reads import (
    Watch,
    closure_values,
    helpers,
    is_helper,
    rebuilt,
    sorted_global_names,
)
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from operators.lifting import is_runtime_scalar, lift

__all__ = ["Functor", "FunctorError", "RecompileWarning", "as_functor", "check_raises",
           "compile_functor", "RECOMPILE_WARNING_AFTER"]

#: The parameter name through which a functor asks for the graph view.
GRAPH_PARAMETER = "graph"


class FunctorError(TypeError):
    """A user functor could not be compiled, called or run for the operator it was given to."""


class RecompileWarning(UserWarning):
    """One functor's code was compiled again and again in this process: something compiled
    code freezes changed between calls (see :mod:`operators.functors`)."""


#: Compilations of one functor's code (per target) after which :class:`RecompileWarning` comes.
RECOMPILE_WARNING_AFTER = 3


@dataclass(frozen=True, eq=False)
class Functor:
    """A user function with its identity resolved (see the module docstring). Functors are
    equal when their keys are; the hash is computed once, since kernel lookups hash them on
    every operator call. ``lifted`` names the closure variables that kernels pass as leading
    arguments, ``scalars`` their values at this call."""

    fn: Callable
    key: tuple
    name: str
    location: str
    wants_graph: bool
    raises: bool = False
    lifted: tuple[str, ...] = ()
    scalars: tuple = ()
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash(self.key))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Functor) and (self is other or self.key == other.key)

    def __hash__(self) -> int:
        return self._hash

    def compiled_form(self) -> Callable:
        """The function a target compiles: ``fn``, with its ``lifted`` closure variables read
        from leading parameters (:func:`operators.lifting.lift`), calling in place of each
        :func:`frontier.device_function` helper it reaches the registration of that helper for
        what it reads now (:func:`_current_helper`)."""
        fn = self.fn
        if self.lifted:
            fn = lift(self.fn, self.lifted)
            if fn is None:
                raise AssertionError(f"functor {self.name}: lifting {self.lifted} failed after "
                                     "it was found possible")
        return rebuilt(fn, self._current_helper)

    def _current_helper(self, value: Any, again: Callable) -> Any:
        """What the compiled functor calls in place of ``value``, which it reads: for a
        registered helper, its registration for what it, and the helpers it reaches, read now
        (:func:`frontier.runtime.devicefn.registered_again`: Numba keeps a helper's code, the values
        it read included, for every later caller), one per set of values, shared by the functors
        calling it; anything else is ``value`` itself."""
        if not (is_helper(value) and registered(value)):
            return value
        resolved = _resolved_helper(value, self.name, self.location)
        return _CURRENT_HELPERS.get(resolved.parts, lambda: (
            resolved.functions, registered_again(value, again)))[1]


def as_functor(fn: Any, role: str = "functor", arguments: tuple[str, ...] | None = None,
               num_state: int = 0) -> Functor:
    """``fn`` as a :class:`Functor`; raises :class:`FunctorError` for what cannot be one.

    With ``arguments`` (the names of what the operator passes before the state, e.g. ``("src",
    "dst", "eid", "weight")``) and ``num_state``, also checks that ``fn`` can be called with
    them (and the graph view, if its last parameter is named ``graph``), before anything is
    compiled. A ``numba.njit`` or ``cuda.jit(device=True)`` function is accepted: its Python
    function is compiled for the target like any other."""
    if isinstance(fn, Functor):
        return fn
    if type(fn) is not types.FunctionType:
        py_func = getattr(fn, "py_func", None)  # a numba.njit / cuda.jit dispatcher: its code
        if py_func is not None and inspect.isfunction(py_func):
            fn = py_func
        if not inspect.isfunction(fn):
            raise FunctorError(f"{role} {fn!r} is not a plain Python function: {_HOW}")
    found = _RESOLVED.get(id(fn))
    if found is not None and found[0] is fn:  # resolved before: reused while it, and its
        watch, reads, functor, shape, checked = found[1]  # helpers, read the same
        now = watch.now()
        if len(now) == len(reads) and all(map(operator.is_, now, reads)):
            if arguments is not None and (arguments, num_state) not in checked:
                _check_arity(fn, shape, role, arguments, num_state)
                checked.add((arguments, num_state))
            return functor
    code = fn.__code__
    if code.co_flags & _SUSPENDING:
        kind = ("an async def" if code.co_flags & (inspect.CO_COROUTINE
                                                   | inspect.CO_ASYNC_GENERATOR)
                else "a generator function (it has yield)")
        raise FunctorError(
            f"{role} {code.co_name} ({code.co_filename}:{code.co_firstlineno}) is {kind}: "
            "calling it only creates a suspended object and runs none of its body, so a kernel "
            "would silently do nothing; expected a plain def (or lambda) that returns its "
            "result")
    shape = _SHAPES.get(code, lambda: _shape(code))
    if arguments is not None:
        _check_arity(fn, shape, role, arguments, num_state)
    code_id, name, location, names, wants_graph, raises = shape
    watch = Watch((fn,), names)
    reads = watch.now()
    values = [c.cell_contents for c in fn.__closure__ or ()]
    for n, v in zip(code.co_freevars, values, strict=True):
        _check_number(f"closure variable {n!r}", v, name, location)
    lifted = tuple(n for n, v in zip(code.co_freevars, values, strict=True)
                   if is_runtime_scalar(v))
    if lifted and not _LIFTABLE.get((code, lifted), lambda: lift(fn, lifted) is not None):
        lifted = ()
    closure = tuple(_Argument(type(v)) if n in lifted
                    else _frozen(f"closure variable {n!r}", v, name, location)
                    for n, v in zip(code.co_freevars, values, strict=True))
    scalars = tuple(v for n, v in zip(code.co_freevars, values, strict=True) if n in lifted)
    defaults = tuple(_frozen("default argument", d, name, location)
                     for d in (fn.__defaults__ or ()))
    glob = tuple((n, _frozen(f"module global {n!r}", fn.__globals__[n], name, location))
                 for n in names if n in fn.__globals__)
    called = _called(fn, (*reads, *(fn.__defaults__ or ())), name, location)
    if called:  # watched with its helpers
        for helper in called:
            watch += helper.watch
        reads = watch.now()
    key = (code_id, closure, defaults, glob, _helper_parts(called) if called else ())
    functor = Functor(fn, key, name, location, wants_graph, raises, lifted, scalars)
    checked = set() if arguments is None else {(arguments, num_state)}
    _RESOLVED[id(fn)] = (fn, (watch, reads, functor, shape, checked))
    return functor


@dataclass(frozen=True, eq=False)
class _Helper:
    """A helper (:func:`frontier.runtime.reads.is_helper`) resolved: how to look at what it and the
    helpers it reaches read (:class:`frontier.runtime.reads.Watch`), what they read then, those
    functions (the helper first) and their parts of a functor's key (:func:`_helper_reads`)."""

    watch: Watch
    reads: list
    functions: tuple[types.FunctionType, ...]
    parts: tuple


def _unchanged(helper: _Helper) -> bool:
    return helper.watch.unchanged(helper.reads)


#: Per helper function (by id; the entry holds the function): the :class:`_Helper` it was
#: last resolved to.
_HELPERS: dict[int, _Helper] = {}


def _resolved_helper(helper: types.FunctionType, name: str, location: str) -> _Helper:
    """``helper`` resolved (the last resolution while it and its helpers read the same objects),
    for functor ``name``, which the errors name."""
    known = _HELPERS.get(id(helper))
    if known is not None and known.functions[0] is helper and _unchanged(known):
        return known
    functions = (helper, *helpers(helper, companions))
    watch = Watch(functions)
    reads = watch.now()
    resolved = _Helper(watch, reads, functions,
                       tuple(_helper_reads(h, name, location) for h in functions))
    _HELPERS[id(helper)] = resolved
    return resolved


def _called(fn: types.FunctionType, values: tuple, name: str, location: str
            ) -> tuple[_Helper, ...]:
    """The helpers functor ``fn`` reads among ``values`` (what it reads: its closure values,
    defaults and globals), resolved."""
    seen: set[int] = {id(fn)}
    found = []
    for value in values:
        if id(value) not in seen and is_helper(value):
            seen.add(id(value))
            found.append(_resolved_helper(value, name, location))
    return tuple(found)


def _helper_parts(called: tuple[_Helper, ...]) -> tuple:
    """The part of a functor's key that the helpers it calls read: each helper's part once, in
    the order they are reached."""
    if len(called) == 1:
        return called[0].parts
    seen: set[tuple] = set()
    parts = []
    for helper in called:
        for part in helper.parts:
            if part[0] not in seen:
                seen.add(part[0])
                parts.append(part)
    return tuple(parts)


def _helper_reads(helper: types.FunctionType, name: str, location: str) -> tuple:
    """The part of the key of functor ``name`` that helper ``helper``
    (:mod:`frontier.runtime.reads`) reads: its identity and name, then the identities of its closure
    values, defaults and module globals (:func:`_frozen`), all frozen into compiled code (a helper's
    closure numbers too: only a functor's own are kernel arguments)."""
    code = helper.__code__
    where = f"of helper {code.co_name} ({code.co_filename}:{code.co_firstlineno})"
    closure = tuple(_frozen(f"closure variable {n!r} {where}", v, name, location)
                    for n, v in zip(code.co_freevars, closure_values(helper), strict=True))
    defaults = tuple(_frozen(f"default argument {where}", d, name, location)
                     for d in (*(helper.__defaults__ or ()),
                               *(helper.__kwdefaults__ or {}).values()))
    glob = tuple((n, _frozen(f"module global {n!r} {where}", helper.__globals__[n], name,
                             location))
                 for n in sorted_global_names(code) if n in helper.__globals__)
    return ((helper.__qualname__, id(helper)), closure, defaults, glob)


#: Code flags of functions whose call runs none of their body (generators, coroutines).
_SUSPENDING = (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
               | inspect.CO_ITERABLE_COROUTINE)

_HOW = ("pass a def or a lambda (a numba.njit or cuda.jit(device=True) function works too); a "
        "bound method, a callable object, a functools.partial or a builtin cannot be compiled "
        "into a kernel: wrap the call in a def and pass data as state arguments")


def _check_arity(fn: Callable, shape: tuple, role: str, arguments: tuple[str, ...],
                 num_state: int) -> None:
    """Raise unless ``fn`` accepts the operator's ``arguments``, ``num_state`` state values and,
    if it asks for it, the graph view."""
    code = fn.__code__
    given = len(arguments) + num_state + (1 if shape[4] else 0)
    most = code.co_argcount
    least = most - len(fn.__defaults__ or ())
    varargs = bool(code.co_flags & inspect.CO_VARARGS)
    if least <= given and (varargs or given <= most):
        return
    params = ", ".join(code.co_varnames[:most]) + (", *..." if varargs else "")
    passed = ", ".join(arguments) + "".join(f", s{i}" for i in range(num_state))
    passed += ", graph" if shape[4] else ""
    raise FunctorError(
        f"{role} {shape[1]} ({shape[2]}) takes ({params}) but the operator calls it with "
        f"{given} arguments ({passed.lstrip(', ')}): {', '.join(arguments)}, then one per "
        f"state argument ({num_state} given){', then the graph view' if shape[4] else ''}")


#: Per function object: how to look at what it and its helpers read, what they read when it
#: was last resolved (:class:`frontier.runtime.reads.Watch`: a resolved functor is reused while each
#: of them is the same object), the functor it resolved to, its code's shape and the (arguments,
#: state count) pairs its arity was checked for. Keyed by the function's id (found without
#: hashing or weakly referencing it), the entry holding the function itself, as its functor
#: and watch do: an id is never another function's while its entry lasts.
_RESOLVED: dict[int, tuple[types.FunctionType, tuple]] = {}


#: Per code object: what does not change between calls (the code's identity, name, location,
#: the globals it may read, whether it takes the graph view), so a call costs a few lookups.
_SHAPES: SharedCache[tuple] = SharedCache("functor shapes")
#: Per helper and what it and the helpers it reaches read (parts of :class:`Functor` keys),
#: those functions (kept alive: the key holds their ids) and the helper's registration for
#: those values.
_CURRENT_HELPERS: SharedCache[tuple] = SharedCache("helpers for what they read")
#: Per code key, its number (assigned under the cache's build lock: two threads never give
#: two codes one number).
_CODE_IDS: dict[tuple, int] = {}
#: Per (code, closure names): whether :func:`operators.lifting.lift` can rewrite the code.
_LIFTABLE: SharedCache[bool] = SharedCache("liftable functors")


def _shape(code: types.CodeType) -> tuple:
    code_id = _CODE_IDS.setdefault(_code_key(code), len(_CODE_IDS))
    name = code.co_name.replace("<", "").replace(">", "")
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    wants_graph = bool(params) and params[-1] == GRAPH_PARAMETER
    return (code_id, name, f"{code.co_filename}:{code.co_firstlineno}",
            sorted_global_names(code), wants_graph, _raises(code))


def _raises(code: types.CodeType) -> bool:
    """Whether the code has a ``raise`` statement (see :func:`check_raises`)."""
    return any(ins.opname == "RAISE_VARARGS" for ins in dis.get_instructions(code)) or any(
        _raises(c) for c in code.co_consts if isinstance(c, types.CodeType))


def check_raises(target: Target, functors: Any) -> None:
    """Refuse, before anything is compiled, a functor with a ``raise`` statement on a target
    whose kernels cannot report it: on a GPU, Numba compiles ``raise`` away (the thread goes
    on), and its exception checks, which would report it, stop the raising thread while the
    others wait for it at the next barrier of a persistent kernel. On the CPU and in the
    simulator a raise becomes :class:`FunctorError` (and the operators leave their frontiers as
    they were)."""
    if target.reports_raises:
        return
    for f in functors:
        if f.raises:
            raise FunctorError(
                f"functor {f.name} ({f.location}) has a raise statement, which a kernel on "
                f"{target.name} cannot report (Numba compiles it away on the device, so the "
                "answer could be silently wrong); signal a failure through a state array "
                "instead, or run the functor on target='cpu' or in the simulator")


def _code_key(code: types.CodeType) -> tuple:
    """What a function's code does, without where it was written: the same lambda text on
    another line (or in a loop) is the same functor."""
    consts = tuple(_code_key(c) if isinstance(c, types.CodeType) else identity(c)
                   for c in code.co_consts)
    return (code.co_name, code.co_code, consts, code.co_names, code.co_varnames,
            code.co_freevars, code.co_cellvars, code.co_argcount, code.co_posonlyargcount,
            code.co_kwonlyargcount, code.co_flags)


def _frozen(what: str, value: Any, name: str, location: str) -> Any:
    """The part of ``value`` that identifies compiled code: its identity (a function's, a
    module's), or its type and value (:func:`frontier.runtime.identity.identity`: ``-0.0`` is not
    ``0.0``, ``False`` is not ``0``)."""
    if isinstance(value, types.ModuleType) or callable(value):
        return ("object", id(value)) if not isinstance(value, type) else value
    if isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__"):
        raise FunctorError(
            f"functor {name} ({location}) reads the {what}, an array: compiled code would keep a "
            "frozen copy of it while the simulator reads it live. Pass the array as a state "
            "argument of the operator instead")
    try:
        hash(value)
    except TypeError:
        raise FunctorError(
            f"functor {name} ({location}) reads the {what} of type {type(value).__name__}, which "
            "compiled code cannot freeze; pass it as a state argument") from None
    _check_number(what, value, name, location)
    return identity(value)


#: NumPy scalar kinds no target compiles (Numba has no float16 arithmetic on the CPU and no
#: extended precision anywhere), by dtype character.
_UNSUPPORTED_NUMBERS = {"e": "float16", "g": "longdouble", "G": "clongdouble"}


def _check_number(what: str, value: Any, name: str, location: str) -> None:
    """Refuse a NumPy number (alone or in a tuple) that no target compiles, naming it."""
    if isinstance(value, tuple):
        for item in value:
            _check_number(what, item, name, location)
    elif isinstance(value, np.generic) and value.dtype.char in _UNSUPPORTED_NUMBERS:
        raise FunctorError(
            f"functor {name} ({location}) reads the {what}, a numpy."
            f"{_UNSUPPORTED_NUMBERS[value.dtype.char]} ({value!r}), which compiled code cannot "
            "hold: functors take bool, int, float and complex numbers and NumPy's bool_, "
            "int8-int64, uint8-uint64, float32, float64, complex64 and complex128; convert it "
            "(e.g. float(x) or np.float32(x)) before the functor reads it")


_COMPILED: SharedCache[Callable] = SharedCache("compiled functors")


def compile_functor(target: Target, functor: Functor, items: racecheck.WorkItems) -> Callable:
    """The functor compiled for calling from ``target``'s kernels (cached by its identity and
    the target's compile mode, built once when several threads ask at once; see
    :class:`RecompileWarning`). In the race detector's checking mode
    (:mod:`frontier.runtime.racecheck`), wrapped so that its calls record what they do to the state
    arrays, each call a work item as ``items`` says (after the closure numbers it takes
    first), and noted by the CUDA compile check (:func:`frontier.runtime.cudacheck.noted`)."""
    checking = racecheck.checking()
    if checking:
        target.check_races_here()

    def build() -> Callable:
        _count_compilation(target, functor)
        return target.compile_device_function(functor.compiled_form(), len(functor.lifted))

    compiled = _COMPILED.get((target.compile_key, functor.key), build)
    if not checking:
        return compiled
    return cudacheck.noted(racecheck.recorded(compiled, f"{functor.name} ({functor.location})",
                                              items.after(len(functor.lifted))),
                           functor.compiled_form, functor.name, functor.location)


#: Per (target's compile mode, code number): the keys compiled, in order.
_COMPILATIONS: dict[tuple, list[tuple]] = {}
_COMPILATIONS_LOCK = threading.Lock()


def _count_compilation(target: Target, functor: Functor) -> None:
    """Note a compilation of ``functor``; warn when its code has been compiled more than
    :data:`RECOMPILE_WARNING_AFTER` times on this target, naming what changed."""
    with _COMPILATIONS_LOCK:
        keys = _COMPILATIONS.setdefault((target.compile_key, functor.key[0]), [])
        keys.append(functor.key)
        count, previous = len(keys), keys[-2] if len(keys) > 1 else None
    if count <= RECOMPILE_WARNING_AFTER or previous is None:
        return
    warnings.warn(RecompileWarning(
        f"functor {functor.name} ({functor.location}) is being compiled for the {count}th time "
        f"in this process on {target.name}: {_changed(functor, previous)} changed since the "
        "last compilation, and compiled code freezes it (each compilation takes 0.2-2 s). Pass "
        "an array as a state argument, and a changing number as a state argument or a closure "
        "variable (kernels take those as arguments)"), stacklevel=2)


def _changed(functor: Functor, previous: tuple) -> str:
    """What differs between ``functor``'s key and ``previous``, another key of its code."""
    _, closure, defaults, glob, called = functor.key
    _, closure_before, defaults_before, glob_before, called_before = previous
    names = functor.fn.__code__.co_freevars
    what = [_closure_change(n, a, b) for n, a, b in zip(names, closure, closure_before,
                                                         strict=True) if a != b]
    what += [f"module global {n!r}" for (n, a), (_, b) in zip(glob, glob_before, strict=False)
             if a != b]
    if defaults != defaults_before:
        what.append("a default argument")
    before = {reads[0]: reads for reads in called_before}
    for reads in called:
        if reads != before.get(reads[0], reads):  # a helper called before too, reading anew
            what.append(_helper_change(reads, before[reads[0]]))
    return ", ".join(what)


def _helper_change(now: tuple, before: tuple) -> str:
    """What a helper read differently between two keys of a functor (:func:`_helper_reads`)."""
    (helper, _), closure, defaults, glob = now
    _, closure_before, defaults_before, glob_before = before
    what = [f"module global {n!r}" for (n, a), (_, b) in zip(glob, glob_before, strict=False)
            if a != b]
    if closure != closure_before:
        what.append("a closure variable")
    if defaults != defaults_before:
        what.append("a default argument")
    return f"{' and '.join(what) or 'what it reads'} of helper {helper}"


def _closure_change(name: str, now: Any, before: Any) -> str:
    """How closure variable ``name`` changed between two keys of its functor."""
    if isinstance(now, _Argument) and isinstance(before, _Argument):
        return (f"the type of closure number {name!r} ({before.type.__name__} -> "
                f"{now.type.__name__})")
    return f"closure variable {name!r}"


@dataclass(frozen=True)
class _Argument:
    """In a functor's key, a closure number that kernels take as an argument: only its type
    identifies the compiled code."""

    type: type
