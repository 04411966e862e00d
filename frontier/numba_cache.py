"""Numba's on-disk cache made to treat an unreadable entry as a miss.

Numba (and Numba CUDA) trust their cache files: an index (``*.nbi``) or data file (``*.nbc``)
that was truncated, overwritten or written by a broken process makes the next load raise (e.g.
``_pickle.UnpicklingError: invalid load key``), in every later process, until someone deletes
the cache by hand. :func:`harden` wraps the cache of one ``cache=True`` dispatcher so that:

* an index or data file that cannot be read or unpickled, or whose code cannot be rebuilt, is a
  miss: the index is deleted, the function compiled and saved again (rebuilt, never trusted);
* an entry rebuilt for another signature than the one asked for (two processes that saved
  different signatures of one function at once can leave the index naming the other's data
  file) is a miss too;
* a save whose index cannot be read starts a new index; a save that still fails (a full or
  read-only disk) is given up with a :class:`CacheWriteWarning`: the compiled code is used, only
  not kept.

Files are written as Numba writes them: to a temporary file renamed into place, so a reader
never sees half a file, and concurrent writers of one entry leave one of their complete files.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

__all__ = ["harden", "CacheWriteWarning"]


class CacheWriteWarning(UserWarning):
    """Compiled code could not be written to the cache directory (it is used all the same)."""


class _SafeCacheFile:
    """One cache's index and data files, where a file that cannot be read is a miss."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def discard(self) -> None:
        """Delete the index (its data files are overwritten as entries are saved again)."""
        try:
            os.remove(self._inner._index_path)
        except OSError:
            pass

    def load(self, key: Any) -> Any:
        try:
            return self._inner.load(key)
        except Exception:  # noqa: BLE001 - any unreadable entry is a miss
            self.discard()
            return None

    def save(self, key: Any, data: Any) -> None:
        try:
            self._inner.save(key, data)
            return
        except Exception:  # noqa: BLE001 - an unreadable index: start a new one below
            self.discard()
        try:
            self._inner.save(key, data)
        except Exception as err:  # noqa: BLE001 - the code still runs, only is not kept
            warnings.warn(CacheWriteWarning(
                f"compiled code could not be saved in {self._inner._index_path}: "
                f"{type(err).__name__}: {err}"), stacklevel=3)

    def flush(self) -> None:
        self._inner.flush()


def _signature_args(sig: Any) -> tuple:
    from numba.core import sigutils

    return tuple(sigutils.normalize_signature(sig)[0])


def harden(dispatcher: Any) -> Any:
    """Make the disk cache of a ``cache=True`` Numba dispatcher (cpu or CUDA) treat unreadable
    entries as misses (see the module docstring); returns the dispatcher."""
    cache = dispatcher._cache
    inner = getattr(cache, "_cache_file", None)
    if inner is None or isinstance(inner, _SafeCacheFile):
        return dispatcher  # no disk cache (NullCache), or hardened already
    safe = _SafeCacheFile(inner)
    cache._cache_file = safe
    load = cache.load_overload

    def load_overload(sig: Any, target_context: Any) -> Any:
        try:
            found = load(sig, target_context)
        except Exception:  # noqa: BLE001 - e.g. object code that cannot be rebuilt
            safe.discard()
            return None
        if found is not None and tuple(found.signature.args) != _signature_args(sig):
            safe.discard()
            return None
        return found

    cache.load_overload = load_overload
    return dispatcher
