"""Where Frontier keeps compiled code between processes: one per-user cache directory, never
beside the installed or source files.

:func:`cache_dir` is ``$FRONTIER_CACHE_DIR`` when set, else the platform's per-user cache:
``$XDG_CACHE_HOME/frontier`` or ``~/.cache/frontier`` (Linux and other POSIX systems),
``~/Library/Caches/frontier`` (macOS), ``%LOCALAPPDATA%\\frontier`` (Windows). Each kind of
cached code has its own subdirectory (generated kernels in ``kernels/``, the library's own
compiled functions in ``numba/``: :mod:`frontier.runtime.cache_entries`); the adaptive runtime's
``calibration.json`` is at the top, beside them. :data:`CACHE_DIR_INPUTS` names the environment
variables the answer depends on, for callers that keep it per environment.

Numba's ``cache=True`` writes its index (``*.nbi``) and code (``*.nbc``) beside a function's
source file, in ``__pycache__``: for an installed package, into ``site-packages``, where
``pip uninstall`` (which removes only the files it installed) leaves them, so the directory
survives as an empty namespace package that shadows a later editable install (``import
frontier`` then has no ``load``); for a read-only install, nowhere. :func:`cached_njit` is
``numba.njit(cache=True)`` with the cache in :func:`cache_dir`: it registers
:class:`FrontierCacheLocator` first in Numba's list of cache locators, which serves this
package's files only (those of ``frontier``, ``operators``, ``algorithms`` and
``frontier_nx``), so the user's own ``cache=True`` functions and Numba's global configuration
are left as they are. Their
files are read and written as :func:`frontier.runtime.numba_cache.harden` does it: checksummed,
private, and only where :func:`frontier.runtime.cache_files.cache_directory` accepts the directory
(created mode 0700, owned by the user, writable by nobody else) when the first function is compiled
or loaded. Where it does not (another user could write it, or it cannot be made), nothing is read
or written there, nor anywhere else: the compiled code is kept in memory for the process only,
never beside the sources and never in a temporary directory.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
from numba.core import caching
from numba.core.caching import _CacheLocator, _SourceFileBackedLocatorMixin

from frontier.runtime.cache_entries import LIBRARY
from frontier.runtime.numba_cache import harden

__all__ = ["cache_dir", "cached_njit", "FrontierCacheLocator", "CACHE_DIR_VARIABLE",
           "CACHE_DIR_INPUTS"]

#: The environment variable that overrides the platform's cache directory.
CACHE_DIR_VARIABLE = "FRONTIER_CACHE_DIR"
#: The environment variables :func:`cache_dir` reads on this platform (the home directory's
#: among them): its answer changes only with their values.
if sys.platform == "win32":
    CACHE_DIR_INPUTS: tuple[str, ...] = (CACHE_DIR_VARIABLE, "LOCALAPPDATA", "USERPROFILE")
elif sys.platform == "darwin":
    CACHE_DIR_INPUTS = (CACHE_DIR_VARIABLE, "HOME")
else:
    CACHE_DIR_INPUTS = (CACHE_DIR_VARIABLE, "XDG_CACHE_HOME", "HOME")

#: The packages whose ``cache=True`` functions this module places (siblings in one directory,
#: as installed and as in the repository; ``frontier_nx``, the NetworkX backend, compiles its
#: Louvain moves with :func:`cached_njit`).
PACKAGES = ("frontier", "operators", "algorithms", "frontier_nx")
_SOURCE_ROOT = Path(__file__).resolve().parents[2]  # above frontier/runtime/


def cache_dir() -> Path:
    """The per-user directory for Frontier's compiled code (made when something is cached)."""
    override = os.environ.get(CACHE_DIR_VARIABLE)
    if override:
        return Path(override).expanduser()
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        base = Path(local) if local else Path.home() / "AppData" / "Local"
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "frontier"


def _serves(py_file: str) -> bool:
    """Whether ``py_file`` is a source file of this package's modules."""
    try:
        relative = Path(py_file).resolve().relative_to(_SOURCE_ROOT)
    except (OSError, ValueError):
        return False
    return len(relative.parts) > 1 and relative.parts[0] in PACKAGES


class FrontierCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """Numba cache locator for this package's ``cache=True`` functions: their cache lives in
    ``cache_dir() / "numba"``, never beside the source file; the directory is checked and made
    at the first save or load (:func:`frontier.runtime.numba_cache.harden`), not here. Other files
    are left to Numba's locators."""

    def __init__(self, py_func: Callable, py_file: str, root: Path) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        #: The cache directory this locator's files are under (checked by the hardened cache).
        self.cache_root = root
        self._cache_path = str(root / LIBRARY / self.get_suitable_cache_subpath(py_file))

    def ensure_cache_path(self) -> None:
        """Nothing: the hardened cache makes the directory, private, where it may be used."""

    def get_cache_path(self) -> str:
        return self._cache_path

    @classmethod
    def from_function(cls, py_func: Callable, py_file: str) -> FrontierCacheLocator | None:
        return cls(py_func, py_file, cache_dir()) if _serves(py_file) else None


_register_lock = threading.Lock()
#: Numba's cache machinery, whose ``_locator_classes`` it tries in order (``CacheImpl`` since
#: Numba 0.61, ``_CacheImpl`` before).
CACHE_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl


def _register() -> None:
    """Put :class:`FrontierCacheLocator` first in Numba's cache locators (once)."""
    with _register_lock:
        if FrontierCacheLocator not in CACHE_IMPL._locator_classes:
            CACHE_IMPL._locator_classes.insert(0, FrontierCacheLocator)


def cached_njit(**options: Any) -> Callable[[Callable], Any]:
    """``numba.njit(cache=True, **options)`` with the cache in :func:`cache_dir` (for this
    package's functions only: see the module docstring), where an unreadable cache file is a
    miss, rebuilt (:func:`frontier.runtime.numba_cache.harden`)."""
    _register()

    def decorate(fn: Callable) -> Any:
        return harden(numba.njit(cache=True, **options)(fn))

    return decorate
