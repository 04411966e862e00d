"""Generated kernels kept on disk: a later process loads a kernel's compiled code instead of
compiling it again.

:meth:`frontier.target.Target.compile_source` asks :func:`place` for a file of the kernel's text:
``cache_dir()/kernels/<key>.py`` (:func:`frontier.cache_dir.cache_dir`), where ``<key>`` is a
SHA-256 of everything the compiled code depends on:

* the kernel's name and text;
* the :func:`frontier.fingerprint.fingerprint` of every global the text runs with: the functors
  compiled for it (their code, closure values, defaults and the module globals they read,
  recursively through the functions they call) and the library's helpers and constants;
* the target's :attr:`~frontier.target.Target.disk_key` (the target, its checked mode, on a GPU
  its compute capability);
* :func:`library_fingerprint`: the versions of Python, NumPy, Numba, llvmlite and Numba CUDA,
  Numba's code-generation settings, and the size and modification time of every source file of
  this library (an edited library, installed or not, keys new files).

The target then compiles the function of that file with Numba's ``cache=True``: Numba keeps the
object code (cpu) or cubin (CUDA) beside it (``<key>.<name>-k.py311.nbi`` / ``.nbc``) and loads
it in a later process, after checking the file's content and the function's bytecode, whatever
the argument types. A file that exists with other content (a corrupt entry) is rewritten; an
unreadable index or data file, or a data file holding another signature's code, is a miss and is
rebuilt, and the processes saving versions of one kernel at once take turns on its index
(:func:`frontier.numba_cache.harden`). All files are written to a temporary file and renamed
into place, so processes that write one entry at once leave one whole copy.

Where something cannot be keyed (a functor reading an object with no stable fingerprint), the
kernel is compiled in memory (:func:`place` returns None), as it is where no compiled code is
kept at all: in the simulator, in the race detector's checking mode, when the cache directory
cannot be written. :func:`stats` counts the kernel versions of this process loaded from disk,
compiled and saved, and compiled in memory.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import weakref
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from frontier.cache_dir import cache_dir
from frontier.fingerprint import LIBRARY_PACKAGES, fingerprint
from frontier.safefile import writing

__all__ = ["place", "stats", "KernelCacheStats", "library_fingerprint", "kernels_dir",
           "KernelCacheLocator", "register_locator", "track"]

#: The subdirectory of the cache directory that holds generated kernels.
KERNELS = "kernels"
_SOURCE_ROOT = Path(__file__).resolve().parent.parent


def kernels_dir() -> Path:
    """Where generated kernels are kept (under :func:`frontier.cache_dir.cache_dir`)."""
    return cache_dir() / KERNELS


@lru_cache(maxsize=1)
def library_fingerprint() -> str:
    """What every kernel's compiled code depends on besides its text and globals: versions of
    Python and the compiling packages, Numba's code-generation settings, and the size and
    modification time of each source file of this library (see the module docstring)."""
    import llvmlite
    import numba
    import numpy as np
    from numba.core import config

    try:
        from importlib.metadata import version

        cuda = version("numba-cuda")
    except Exception:  # noqa: BLE001 - not installed: its version is no part of the key
        cuda = "-"
    parts = [sys.version, np.__version__, numba.__version__, llvmlite.__version__, cuda,
             repr((config.OPT, config.BOUNDSCHECK, config.DEBUGINFO_DEFAULT,
                   config.FASTMATH if hasattr(config, "FASTMATH") else None))]
    for package in LIBRARY_PACKAGES:
        for folder, dirs, files in sorted(os.walk(_SOURCE_ROOT / package)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith(".py")):
                status = os.stat(os.path.join(folder, name))
                parts.append(f"{folder}/{name}:{status.st_size}:{status.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def key(name: str, source: str, namespace: dict[str, Any], disk_key: tuple) -> str | None:
    """The hash naming a kernel's file (see the module docstring); None where a global of
    ``namespace`` has no stable fingerprint."""
    target = fingerprint(disk_key)
    if target is None:
        return None
    described = [target]
    for global_name in sorted(namespace):
        value = fingerprint(namespace[global_name])
        if value is None:
            return None
        described.append(f"{global_name}={value}")
    text = "\n".join([library_fingerprint(), name, source, *described])
    return hashlib.sha256(text.encode()).hexdigest()[:40]


#: The kernel files this process placed: the ones :class:`KernelCacheLocator` serves.
_PLACED: set[str] = set()
_PLACED_LOCK = threading.Lock()


def place(name: str, source: str, namespace: dict[str, Any], disk_key: tuple | None
          ) -> Path | None:
    """The file holding kernel ``source`` (defining ``name``, run with ``namespace``) for a
    target of ``disk_key``, written if missing or different; None where the kernel is to be
    compiled in memory (no ``disk_key``, a global that cannot be keyed, a cache directory that
    cannot be written)."""
    if disk_key is None:
        return None
    digest = key(name, source, namespace, disk_key)
    if digest is None:
        return None
    path = kernels_dir() / f"{digest}.py"
    data = source.encode()
    try:
        if not (path.is_file() and path.read_bytes() == data):
            path.parent.mkdir(parents=True, exist_ok=True)
            with writing(path) as partial:
                Path(partial).write_bytes(data)
    except (OSError, ValueError):  # ValueError: frontier.safefile.OutputError
        return None
    with _PLACED_LOCK:
        _PLACED.add(str(path))
    return path


class KernelCacheLocator:
    """Numba cache locator (for Numba's cpu and Numba CUDA's caches alike) serving the kernel
    files :func:`place` wrote: their compiled code is kept beside them."""

    def __init__(self, py_file: str) -> None:
        self._py_file = py_file

    def ensure_cache_path(self) -> None:
        os.makedirs(self.get_cache_path(), exist_ok=True)

    def get_cache_path(self) -> str:
        return os.path.dirname(self._py_file)

    def get_source_stamp(self) -> str:
        with open(self._py_file, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()

    def get_disambiguator(self) -> str:
        return "k"

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> KernelCacheLocator | None:
        return cls(py_file) if py_file in _PLACED else None


_REGISTER_LOCK = threading.Lock()


def register_locator(cache_impl: type) -> None:
    """Put :class:`KernelCacheLocator` first in the locators of a Numba cache implementation
    (``numba.core.caching.CacheImpl``, ``numba.cuda.core.caching.CacheImpl``), once."""
    with _REGISTER_LOCK:
        if KernelCacheLocator not in cache_impl._locator_classes:
            cache_impl._locator_classes.insert(0, KernelCacheLocator)


@dataclass(frozen=True)
class KernelCacheStats:
    """Kernel versions (one per kernel and argument types) of this process: ``loaded`` from the
    disk cache, ``compiled`` (and saved to it), and ``uncached``: compiled in memory only."""

    loaded: int
    compiled: int
    uncached: int


_TRACKED: dict[bool, weakref.WeakSet] = {True: weakref.WeakSet(), False: weakref.WeakSet()}
_TRACKED_LOCK = threading.Lock()


def track(kernel: Any, on_disk: bool) -> None:
    """Count ``kernel``'s compilations and loads in :func:`stats` (a Numba dispatcher; other
    kernels, such as the race detector's Python functions, compile nothing)."""
    if hasattr(kernel, "stats"):
        with _TRACKED_LOCK:
            _TRACKED[on_disk].add(kernel)


def stats() -> KernelCacheStats:
    """How this process got its generated kernels so far (see :class:`KernelCacheStats`)."""
    with _TRACKED_LOCK:
        disk, memory = list(_TRACKED[True]), list(_TRACKED[False])
    return KernelCacheStats(
        loaded=sum(sum(k.stats.cache_hits.values()) for k in disk),
        compiled=sum(sum(k.stats.cache_misses.values()) for k in disk),
        uncached=sum(sum(k.stats.cache_misses.values()) for k in memory))
