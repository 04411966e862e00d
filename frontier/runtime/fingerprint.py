"""Stable fingerprints of what compiled code freezes: the key of a kernel cached on disk.

Numba compiles the values a function reads besides its arguments into its code: the constants
of its bytecode, its closure cells, the module globals it names, and the code of the jitted
functions it calls (linked into the caller). A kernel loaded from disk by a later process is
only right if all of these are what they were when it was compiled, so the file it is kept in
is named by a hash of them. :func:`fingerprint` is that description, the same text in every
process (no ``id``, no hash-ordered container), or None where a value cannot be described
stably (an array, an arbitrary object, a module or class of the user's own): such a kernel is
compiled in memory instead, never loaded from a possibly stale file.

* numbers, strings, bytes, None, ``...``, NumPy scalars and dtypes, Numba types: their type and
  value, floats (complex numbers, NumPy numbers) with their bytes
  (:func:`frontier.runtime.identity.bits`: ``-0.0`` is not ``0.0``, one nan is not another);
* tuples, lists and frozensets: their elements (a frozenset's sorted);
* Python functions (and Numba dispatchers, through ``py_func``, with their compile options): the
  code (name, bytecode, constants, names, variables, argument counts, flags, nested code), the
  closure values, defaults, every module global its code names (:mod:`frontier.runtime.reads`) and,
  for a :func:`frontier.device_function`, the implementation and checks it was registered
  with, recursively (a function that calls itself is named once);
* modules, classes and named objects of this library or of the packages its compiled code is
  versioned by (NumPy, Numba, llvmlite, the standard ``math``, ``cmath``, ``operator``,
  builtins): their module and qualified name. The library's own source and those packages'
  versions are part of every key (:func:`frontier.runtime.kernel_cache.library_fingerprint`), so the
  name is enough; a closure of the library (``<locals>`` in its name) is described by value;
* Numba extensions, whose code Numba compiles in place of a call: a function (or any object)
  with implementations registered by ``numba.extending.overload`` is described with those
  implementations (their code, globals and closures, recursively, and their options); an
  ``intrinsic`` by its definition; and a function whose code names an attribute or method
  registered by ``overload_attribute`` or ``overload_method`` with those implementations. Only
  implementations defined in modules outside the named packages count (Numba's own are
  versioned, the library's hashed). They are found in the typing registries of Numba and, once
  imported, Numba CUDA, as registered when the fingerprint is taken.
"""

from __future__ import annotations

import sys
import threading
import types
from typing import Any

import numpy as np
from numba.core import types as numba_types
from numba.core.extending import _Intrinsic

from frontier.runtime.devicefn import companions
from frontier.runtime.identity import bits
from frontier.runtime.reads import EMPTY, closure_values, library_named, sorted_global_names

__all__ = ["fingerprint"]

_SCALARS = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis))


def fingerprint(value: Any) -> str | None:
    """The stable description of ``value`` as compiled code freezes it (see the module
    docstring), or None where it has none."""
    _index_extensions()
    return _describe(value, {})


#: The typing registries whose extensions are indexed (module names: Numba CUDA's once loaded).
_REGISTRY_MODULES = ("numba.core.typing.templates", "numba.cuda.typing.templates")
#: Per registry (by id): the registry and how many of its function and attribute templates
#: have been indexed.
_INDEXED: dict[int, tuple[Any, int, int]] = {}
#: Templates of user extensions: by the id of the object they implement (overload, intrinsic),
#: and by the attribute name they implement (overload_method, overload_attribute).
_BY_OBJECT: dict[int, list[type]] = {}
_BY_ATTRIBUTE: dict[str, list[type]] = {}
_EXTENSIONS_LOCK = threading.Lock()


def _implementation(template: type) -> Any:
    """The user's function a typing template compiles, or None (not an extension, or one of
    the named packages)."""
    fn = getattr(template, "_overload_func", None) or getattr(template, "_definition_func", None)
    module = getattr(fn, "__module__", None)
    if not isinstance(fn, types.FunctionType) or not isinstance(module, str):
        return None
    return None if library_named(module, "") else fn


def _index_extensions() -> None:
    """Index the user extensions registered since the last call."""
    registries = [sys.modules[m].builtin_registry for m in _REGISTRY_MODULES if m in sys.modules]
    if all(_INDEXED.get(id(r), (None, -1, -1))[1:] == (len(r.functions), len(r.attributes))
           for r in registries):
        return
    with _EXTENSIONS_LOCK:
        for registry in registries:
            _, functions, attributes = _INDEXED.get(id(registry), (registry, 0, 0))
            for template in registry.functions[functions:]:
                if _implementation(template) is not None:
                    _BY_OBJECT.setdefault(id(template.key), []).append(template)
            for template in registry.attributes[attributes:]:
                attr = getattr(template, "_attr", None)
                if isinstance(attr, str) and _implementation(template) is not None:
                    _BY_ATTRIBUTE.setdefault(attr, []).append(template)
            _INDEXED[id(registry)] = (registry, len(registry.functions),
                                      len(registry.attributes))


def _extensions(templates: list[type], active: dict[Any, str | None]) -> str | None:
    """The description of the implementations of extension ``templates`` ("" for none)."""
    parts = []
    for template in templates:
        options = getattr(template, "_jit_options", None) or {}
        parts.append(_describe((_implementation(template),
                                tuple(sorted((str(k), v) for k, v in options.items())),
                                getattr(template, "prefer_literal", False),
                                getattr(template, "_strict", None)), active))
    if any(p is None for p in parts):
        return None
    return "|".join(parts)  # type: ignore[arg-type]


def _describe(value: Any, active: dict[Any, str | None]) -> str | None:
    exact = bits(value)
    if exact is not None:
        prefix = "numpy." if isinstance(value, np.generic) else ""
        return f"{prefix}{type(value).__name__}:{value!r}:{exact.hex()}"
    if isinstance(value, _SCALARS):
        return f"{type(value).__name__}:{value!r}"
    described = _describe_object(value, active)
    templates = [t for t in _BY_OBJECT.get(id(value), ())
                 if t.key is value and _implementation(t) is not value]
    marker = ("extended", id(value))
    if described is None or not templates or marker in active:
        return described  # no extensions, or described further up (recursion)
    active[marker] = None
    try:
        extensions = _extensions(templates, active)
    finally:
        del active[marker]
    return None if extensions is None else f"{described}+extended({extensions})"


def _describe_object(value: Any, active: dict[Any, str | None]) -> str | None:
    if isinstance(value, np.dtype):
        return f"dtype:{value!r}"
    if isinstance(value, numba_types.Type):
        return f"numba-type:{value}"
    if isinstance(value, (tuple, list, frozenset)):
        parts = [_describe(v, active) for v in value]
        if any(p is None for p in parts):
            return None
        ordered = sorted(parts) if isinstance(value, frozenset) else parts  # type: ignore[type-var]
        return f"{type(value).__name__}({'|'.join(ordered)})"  # type: ignore[arg-type]
    if isinstance(value, types.ModuleType):
        return f"module:{value.__name__}" if library_named(value.__name__, "") else None
    if isinstance(value, types.CodeType):
        return _code(value, active)
    py_func = getattr(value, "py_func", None)
    if isinstance(py_func, types.FunctionType) and not isinstance(value, types.FunctionType):
        options = getattr(value, "targetoptions", {})
        described = _describe(tuple(sorted((str(k), v) for k, v in options.items())), active)
        inner = _describe(py_func, active)
        if described is None or inner is None:
            return None
        return f"{type(value).__module__}.{type(value).__qualname__}[{described}]({inner})"
    if isinstance(value, types.FunctionType):
        return _function(value, active)
    if isinstance(value, np.ufunc):
        return f"ufunc:{value.__name__}"
    module = getattr(value, "__module__", None)
    name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if library_named(module, name):
        return f"named:{module}.{name}"
    if isinstance(value, _Intrinsic) and any(t.key is value for t in
                                             _BY_OBJECT.get(id(value), ())):
        return f"intrinsic:{value._name}"  # described by its definition: an extension
    return None


def _function(fn: types.FunctionType, active: dict[Any, str | None]) -> str | None:
    if library_named(fn.__module__, fn.__qualname__):
        return f"named:{fn.__module__}.{fn.__qualname__}"
    if id(fn) in active:  # described already in this call, or being described (recursion)
        return active[id(fn)] or f"recursive:{fn.__qualname__}"
    active[id(fn)] = None
    try:
        closure = closure_values(fn)
        if any(v is EMPTY for v in closure):  # an empty cell
            return None
        names = sorted_global_names(fn.__code__)
        glob = tuple((n, fn.__globals__[n]) for n in names if n in fn.__globals__)
        compiled_with = companions(fn)
        parts = [_code(fn.__code__, active), _describe(closure, active),
                 _describe(fn.__defaults__ or (), active),
                 _describe(tuple(sorted((fn.__kwdefaults__ or {}).items())), active),
                 _describe(glob, active),
                 _extensions([t for n in names for t in _BY_ATTRIBUTE.get(n, ())], active)]
        if compiled_with:  # a device_function's implementation and checks
            parts.append(_describe(compiled_with, active))
    finally:
        del active[id(fn)]
    if any(p is None for p in parts):
        return None
    active[id(fn)] = described = "function(" + "|".join(parts) + ")"  # type: ignore[arg-type]
    return described


def _code(code: types.CodeType, active: dict[Any, str | None]) -> str | None:
    consts = [_describe(c, active) for c in code.co_consts]
    if any(c is None for c in consts):
        return None
    return "code" + repr((code.co_name, code.co_code.hex(), consts, code.co_names,
                          code.co_varnames, code.co_freevars, code.co_cellvars,
                          code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount,
                          code.co_flags))
