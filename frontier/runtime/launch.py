"""Kernel launches on the GPU without Numba's per-call argument conversion.

A launch through Numba's dispatcher (``kernel[grid, block](*args)``) types every argument, then
converts each array into the flat fields the kernel takes (size, item size, pointer, shape,
strides) through a strided memory view: 25-40 µs for a small kernel, ~100 µs and more for the
persistent traversal kernel with its twenty arguments (``bench call_profile``), which is most
of a call on a small graph and of every host-loop step. The operators launch the same kernels
again and again with the same arrays (the graph's arrays, a pool's buffers, the state), so
:class:`Launcher` keeps, per kernel and launch shape, the compiled kernel and each array
argument's converted fields, with a weak reference to the array: an argument that is the same
(still living) array object reuses its fields; any other is converted again (a Numba device
array read directly, :func:`device_array_fields`; anything else by Numba's own code). A new
one-dimensional array of adjacent elements, of the class and dtype last seen at its position,
has the same Numba type: it takes the same compiled kernel without its arguments being typed
(a call's arrays are new at every call). Scalars
(and host arrays, copied in and back as Numba does) are converted at every launch, a scalar by
the ctypes type Numba's conversion picks for its type, looked up once per kernel. The kernel is
then launched with ``cuda.core``'s ``launch`` on the default stream,
exactly as Numba's dispatcher does after its conversion.

Where Numba's internals differ from what this module expects (another numba-cuda version),
:func:`make_launcher` returns None and the target launches through the dispatcher.

One launcher serves every thread of the process. A launch that finds everything converted
(the common case) only reads the caches; what changes them (a new entry, a newly converted
array, the list of recent entries) runs under the launcher's lock, so launches from several
threads never see a cache half-updated. The converted fields of an array are the same whichever
thread converts it.
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["Launcher", "compiled_for", "device_array_fields", "make_launcher"]


class _Slot:
    """One argument position: the arrays last seen there (a few: an operator passes one of its
    buffers or another) with their converted fields, or, for a scalar, its Python type."""

    __slots__ = ("known", "scalar", "kind")

    def __init__(self) -> None:
        self.known: dict[int, tuple[Any, list]] = {}
        self.scalar: type | None = None
        self.kind: tuple | None = None  # the _kind of the arrays seen here

    def fields(self, value: Any) -> list | None:
        """The converted fields of ``value`` if it is an array seen here and still alive."""
        found = self.known.get(id(value))
        if found is not None and found[0]() is value:
            return found[1]
        return None

    def keep(self, value: Any, fields: list) -> None:
        """Remember ``value``'s fields (the caller holds the launcher's lock)."""
        if len(self.known) >= _KNOWN:
            self.known.pop(next(iter(self.known)), None)  # the oldest
        self.known[id(value)] = (weakref.ref(value), fields)
        self.scalar = None
        self.kind = _kind(value)

    def takes(self, value: Any) -> bool:
        """Whether the array ``value`` has the type of the arrays seen here: one of them, or a
        new array of their :func:`_kind`."""
        return self.fields(value) is not None or (self.kind is not None
                                                  and _kind(value) == self.kind)


def _kind(value: Any) -> tuple | None:
    """``(class, dtype)`` of a one-dimensional array whose elements are adjacent (the stride is
    the item size), else None: such arrays of one class and dtype have one Numba type
    (``Array(dtype, 1, "C")``), told without Numba's typing."""
    try:
        shape, strides, dtype = value.shape, value.strides, value.dtype
        adjacent = len(shape) == 1 and len(strides) == 1 and strides[0] == dtype.itemsize
    except (AttributeError, TypeError):
        return None
    return (type(value), dtype) if adjacent else None


#: Arrays remembered per argument position.
_KNOWN = 8


class _Entry:
    """A kernel compiled for one list of argument types and one block size: the compiled kernel,
    its function handle, its argument types and the per-position cache."""

    __slots__ = ("compiled", "function", "types", "slots", "converters", "most_blocks")

    def __init__(self, compiled: Any, threads: int, cooperative: bool) -> None:
        self.compiled = compiled
        self.function = compiled._codelibrary.get_cufunc().kernel
        self.types = tuple(compiled.argument_types)
        self.slots = [_Slot() for _ in self.types]
        self.converters = tuple(None if compiled.extensions else _scalar_converter(ty)
                                for ty in self.types)
        self.most_blocks = (compiled.max_cooperative_grid_blocks(threads) if cooperative
                            else None)

    def takes(self, args: tuple) -> bool:
        """Whether ``args`` have the types this entry was compiled for, known without typing
        them: each array argument one launched at its position or of the same kind
        (:meth:`_Slot.takes`), each scalar of the same Python type."""
        for value, slot in zip(args, self.slots, strict=True):
            if slot.scalar is not None:
                if type(value) is not slot.scalar:
                    return False
            elif not slot.takes(value):
                return False
        return True


class Launcher:
    """Launches kernels (Numba CUDA dispatchers) reusing converted array arguments."""

    def __init__(self, launch: Callable, config: Callable, stream: Any,
                 argument_type: Callable[[Any], Any], device_array: type | None = None
                 ) -> None:
        self._launch = launch
        self._device_array = device_array
        self._config_type = config
        self._stream = stream
        self._argument_type = argument_type
        self._entries: dict[tuple, _Entry] = {}
        self._last: dict[tuple, list[_Entry]] = {}  # per kernel and shape, the recent ones
        # (replaced, never changed in place: readers iterate without the lock)
        self._configs: dict[tuple, Any] = {}
        self._lock = threading.Lock()  # guards every change to the caches

    def __call__(self, kernel: Any, blocks: int, threads: int, args: tuple,
                 cooperative: bool = False) -> None:
        entry = self.entry(kernel, threads, args, cooperative)
        if cooperative:
            blocks = min(blocks, entry.most_blocks)
        compiled = entry.compiled
        flat: list = []
        written_back: list = []  # a host array argument is copied back after the kernel
        for ty, value, slot, convert in zip(entry.types, args, entry.slots, entry.converters,
                                            strict=True):
            fields = slot.fields(value)
            if fields is not None:
                flat.extend(fields)
            elif hasattr(value, "__cuda_array_interface__"):
                if type(value) is self._device_array and not compiled.extensions:
                    fields = device_array_fields(value)
                else:
                    fields = []
                    compiled._prepare_args(ty, value, self._stream, [], fields)
                with self._lock:
                    slot.keep(value, fields)
                flat.extend(fields)
            elif isinstance(value, np.ndarray):
                # a host array is typed again at every launch (its dtype is not its type)
                slot.scalar = None
                compiled._prepare_args(ty, value, self._stream, written_back, flat)
            else:
                slot.scalar = type(value)
                if convert is None:
                    compiled._prepare_args(ty, value, self._stream, written_back, flat)
                else:
                    flat.append(convert(value))
        key = (blocks, threads, compiled.cooperative)
        config = self._configs.get(key)
        if config is None:
            config = self._config_type(grid=blocks, block=threads, shmem_size=0,
                                       is_cooperative=compiled.cooperative)
            self._configs[key] = config
        self._launch(self._stream, config, entry.function, *flat)
        for copy_back in written_back:
            copy_back()

    def entry(self, kernel: Any, threads: int, args: tuple, cooperative: bool) -> _Entry:
        """The compiled kernel for these arguments: a recently launched one for ``kernel`` and
        ``threads`` that takes them, else the one for their types (compiled on first use)."""
        shape = (kernel, threads, cooperative)
        recent = self._last.get(shape, ())
        for entry in recent:
            if entry.takes(args):
                return entry
        key = (shape, tuple(self._argument_type(a) for a in args))
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                entry = _Entry(compiled_for(kernel, args), threads, cooperative)
                self._entries[key] = entry
            mine = list(self._last.get(shape, ()))
            if entry not in mine:  # a new list, so that readers iterate a list nobody changes
                self._last[shape] = [entry, *mine][:_KNOWN]
        return entry


def device_array_fields(array: Any) -> list:
    """The flat fields Numba's ``_prepare_args`` makes of a Numba device array passed for an
    array parameter (a null memory-info and parent, the size, the item size, the data pointer,
    the shape, the strides in bytes), read from the array itself instead of through a strided
    memory view made for the launch."""
    return [0, 0, array.size, array.dtype.itemsize, array.device_ctypes_pointer.value,
            *array.shape, *array.strides]


def _scalar_converter(ty: Any) -> Callable[[Any], Any] | None:
    """How Numba's ``_prepare_args`` converts a scalar of Numba type ``ty`` (a ctypes value of
    the type's width, a bool as it is), taken once per kernel instead of found again at every
    launch; None for any other type (converted by Numba's own code). Known by the type's name
    (``int32``, ``float64``, ``bool``), which is a Numba CUDA type's: its types module is not
    imported here."""
    return _SCALAR_CONVERTERS.get(str(ty))


def _as_is(value: Any) -> Any:
    return value


#: Numba's scalar type names and how :func:`_scalar_converter` converts each.
_SCALAR_CONVERTERS: dict[str, Callable[[Any], Any]] = {
    **{f"{sign}int{bits}": getattr(ctypes, f"c_{sign}int{bits}")
       for sign in ("", "u") for bits in (8, 16, 32, 64)},
    "float64": ctypes.c_double, "float32": ctypes.c_float, "bool": _as_is}


def compiled_for(kernel: Any, args: tuple) -> Any:
    """The compiled version of a ``cuda.jit`` dispatcher for the types of ``args``: compiled
    on first use, or loaded from the dispatcher's disk cache (:mod:`frontier.runtime.kernel_cache`;
    ``kernel.specialize``, which made a new dispatcher without that cache, compiled anew in
    every process)."""
    return kernel.compile(tuple(kernel.typeof_pyval(a) for a in args))


def make_launcher(argument_type: Callable[[Any], Any], gpu: ModuleType) -> Launcher | None:
    """A :class:`Launcher` for this numba-cuda (``gpu``: its pieces, :mod:`frontier.runtime.gpu`),
    or None where its internals are not the ones this module was written against (then launches
    go through the dispatcher)."""
    if gpu.launch is None or not gpu.CUDA_CORE_GE_1_0 or not all(
            hasattr(gpu._Kernel, name) for name in (
                "_prepare_args", "argument_types", "max_cooperative_grid_blocks")):
        return None
    return Launcher(gpu.launch, gpu.LaunchConfig, gpu.driver_module._to_core_stream(0),
                    argument_type, gpu.DeviceNDArray)
