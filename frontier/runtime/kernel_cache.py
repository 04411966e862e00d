"""Generated kernels kept on disk: a later process loads a kernel's compiled code instead of
compiling it again.

:meth:`frontier.runtime.target.Target.compile_source` asks :func:`place` for a file of the kernel's
text: ``cache_dir()/kernels/<key>.py`` (:func:`frontier.runtime.cache_dir.cache_dir`), where
``<key>`` is a SHA-256 of everything the compiled code depends on:

* the kernel's name and text;
* the :func:`frontier.runtime.fingerprint.fingerprint` of every global the text runs with: the
functors
  compiled for it (their code, closure values, defaults and the module globals they read,
  recursively through the functions they call, and the implementations registered for those
  functions with ``numba.extending.overload`` or ``overload_method``) and the library's helpers
  and constants;
* the target's :attr:`~frontier.runtime.target.Target.disk_key` (the target, its checked mode, on a
GPU
  its compute capability; Numba's own index adds the CPU's name and features);
* :func:`library_fingerprint`: the versions of Python, NumPy, Numba, llvmlite and Numba CUDA,
  Numba's code-generation settings, and a SHA-256 of the content of every source file of this
  library (an edited library, installed or not, keys new files).

The target then compiles the function of that file with Numba's ``cache=True``: the object code
(cpu) or cubin (CUDA) is kept beside it (``<key>.<name>-k.py311.nbi`` / ``.nbc``) and loaded by
a later process whatever the argument types, through :func:`frontier.runtime.numba_cache.harden`:
checksummed and verified before it is loaded, saved one process at a time, a corrupt or
mismatched entry a miss that is compiled and saved again. The kernel's text is written as every
cache file is (:func:`frontier.runtime.cache_files.write_file`: mode 0600, never through a link,
renamed into place whole) and read back without following links; a file with other content (a
corrupt entry) is rewritten.

Where something cannot be keyed (a functor reading an object with no stable fingerprint), the
kernel is compiled in memory (:func:`place` returns None), as it is where no compiled code is
kept at all: in the simulator, in the race detector's checking mode, and where the cache
directory is refused or cannot be made (:func:`frontier.runtime.cache_files.cache_directory`).
:func:`stats` counts the kernel versions of this process loaded from disk, compiled and saved,
and compiled in memory.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import weakref
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import llvmlite
import numba
import numpy as np
from numba.core import config

from frontier.runtime.cache_dir import cache_dir
from frontier.runtime.cache_entries import KERNELS, note_saved
from frontier.runtime.cache_files import cache_directory, forget, read_file, write_file
from frontier.runtime.fingerprint import fingerprint
from frontier.runtime.reads import LIBRARY_PACKAGES

__all__ = ["place", "stats", "KernelCacheStats", "library_fingerprint", "source_digest",
           "kernels_dir", "KernelCacheLocator", "register_locator", "track"]

_SOURCE_ROOT = Path(__file__).resolve().parents[2]  # above frontier/runtime/


def kernels_dir() -> Path:
    """Where generated kernels are kept (under :func:`frontier.runtime.cache_dir.cache_dir`)."""
    return cache_dir() / KERNELS


def source_digest(top: Path, packages: tuple[str, ...]) -> str:
    """A SHA-256 of the names and contents of the ``.py`` files of ``packages`` under ``top``."""
    digest = hashlib.sha256()
    for package in packages:
        for folder, dirs, files in sorted(os.walk(top / package)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith(".py")):
                path = os.path.join(folder, name)
                with open(path, "rb") as f:
                    content = f.read()
                digest.update(f"{os.path.relpath(path, top)}\0{len(content)}\0".encode())
                digest.update(content)
    return digest.hexdigest()


@lru_cache(maxsize=1)
def library_fingerprint() -> str:
    """What every kernel's compiled code depends on besides its text and globals: versions of
    Python and the compiling packages, Numba's code-generation settings, and the content of
    each source file of this library (see the module docstring)."""
    try:
        cuda = version("numba-cuda")
    except Exception:  # noqa: BLE001 - not installed: its version is no part of the key
        cuda = "-"
    parts = [sys.version, np.__version__, numba.__version__, llvmlite.__version__, cuda,
             repr((config.OPT, config.BOUNDSCHECK, config.DEBUGINFO_DEFAULT,
                   config.FASTMATH if hasattr(config, "FASTMATH") else None)),
             source_digest(_SOURCE_ROOT, LIBRARY_PACKAGES)]
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


#: The kernel files this process placed (the ones :class:`KernelCacheLocator` serves), each with
#: the SHA-256 of its text.
_PLACED: dict[str, str] = {}
_PLACED_LOCK = threading.Lock()


def place(name: str, source: str, namespace: dict[str, Any], disk_key: tuple | None
          ) -> Path | None:
    """The file holding kernel ``source`` (defining ``name``, run with ``namespace``) for a
    target of ``disk_key``, written if missing or different; None where the kernel is to be
    compiled in memory (no ``disk_key``, a global that cannot be keyed, a cache directory that
    is refused or cannot be written)."""
    if disk_key is None:
        return None
    digest = key(name, source, namespace, disk_key)
    if digest is None:
        return None
    data = source.encode()
    path = _store(cache_dir(), f"{digest}.py", data)
    if path is None:
        return None
    with _PLACED_LOCK:
        _PLACED[str(path)] = hashlib.sha256(data).hexdigest()
    return path


def _store(root: Path, file_name: str, data: bytes) -> Path | None:
    """The file ``file_name`` of the kernels' directory under the cache directory ``root``,
    holding ``data`` (written where it holds anything else); None where it cannot be."""
    for _ in range(2):
        folder = cache_directory(root, KERNELS)
        if folder is None:
            return None
        path = folder / file_name
        try:
            if read_file(path) != data:
                write_file(path, data)
                note_saved(folder.parent, path, len(data))
            return path
        except FileNotFoundError:  # the directory was removed meanwhile: make it again
            forget(root)
        except OSError:
            return None
    return None


class KernelCacheLocator:
    """Numba cache locator (for Numba's cpu and Numba CUDA's caches alike) serving the kernel
    files :func:`place` wrote: their compiled code is kept beside them, in the cache directory
    ``cache_root`` (checked by :func:`frontier.runtime.numba_cache.harden`)."""

    def __init__(self, py_file: str, stamp: str) -> None:
        self._py_file = py_file
        self._stamp = stamp
        self.cache_root = Path(py_file).parent.parent

    def ensure_cache_path(self) -> None:
        """Nothing: :func:`place` made the directory, and the hardened cache checks it."""

    def get_cache_path(self) -> str:
        return os.path.dirname(self._py_file)

    def get_source_stamp(self) -> str:
        """The SHA-256 of the kernel's text (as placed: the file may be evicted meanwhile)."""
        return self._stamp

    def get_disambiguator(self) -> str:
        return "k"

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> KernelCacheLocator | None:
        stamp = _PLACED.get(py_file)
        return cls(py_file, stamp) if stamp is not None else None


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
