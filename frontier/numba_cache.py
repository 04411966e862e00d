"""Numba's on-disk cache made safe for several processes at once, and to treat an unreadable or
mismatched entry as a miss.

Numba (and Numba CUDA) keep one index per function (``*.nbi``: a pickled dictionary from each
compiled version's key, its signature and the machine's code-generation settings, to a numbered
data file ``*.<n>.nbc``) and trust what they read:

* a save reads the index, adds its key, naming the first data file number the index does not
  name, and writes the index back, unlocked: processes that compile different signatures of one
  function at once (the xdist workers of a test run sharing a fresh cache directory) lose each
  other's index entries and pick the same data file number, so the index can name a data file
  that another process filled with another key's code (six processes saving 20 entries each at
  once lose about half of them and leave a few naming another key's data);
* an index or data file that was truncated, overwritten or written by a broken process makes
  the next load raise (e.g. ``_pickle.UnpicklingError: invalid load key``), in every later
  process, until someone deletes the cache by hand.

:func:`harden` wraps the cache of one ``cache=True`` dispatcher so that:

* a save runs under an exclusive lock of the function's index (``*.nbi.lock``, ``flock``; where
  it cannot be taken, as on Windows or in a read-only directory, the save runs unlocked), so
  the index's read, update and write and the data file's write are one step for every process;
* each data file holds its key beside the compiled code, and a load returns it only where that
  key is the one asked for: an entry the index names for another key (written before the lock,
  by an older version of this module, or by a process that does not lock) is a miss, never
  another signature's or machine's code;
* an index or data file that cannot be read or unpickled, or whose code cannot be rebuilt, is a
  miss: the index is deleted, the function compiled and saved again (rebuilt, never trusted);
* a save whose index cannot be read starts a new index; a save that still fails (a full or
  read-only disk) is given up with a :class:`CacheWriteWarning`: the compiled code is used, only
  not kept.

Files are written as Numba writes them: to a temporary file renamed into place, so a reader
(which takes no lock) never sees half a file.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: saves run unlocked, loads still check their keys
    fcntl = None  # type: ignore[assignment]

__all__ = ["harden", "CacheWriteWarning"]


class CacheWriteWarning(UserWarning):
    """Compiled code could not be written to the cache directory (it is used all the same)."""


@contextmanager
def _locked(path: str) -> Iterator[None]:
    """Hold an exclusive ``flock`` of ``path`` (created if missing) for the block; the block
    runs unlocked where no lock can be taken."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666) if fcntl is not None else None
    except OSError:
        fd = None
    if fd is None:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


class _SafeCacheFile:
    """One cache's index and data files, where saves are locked, every data file names its key,
    and a file that cannot be read or holds another key is a miss."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._lock_path = inner._index_path + ".lock"

    def discard(self) -> None:
        """Delete the index (its data files are overwritten as entries are saved again)."""
        with _locked(self._lock_path):
            self._remove_index()

    def _remove_index(self) -> None:
        try:
            os.remove(self._inner._index_path)
        except OSError:
            pass

    def load(self, key: Any) -> Any:
        try:
            found = self._inner.load(key)
            if found is None:
                return None
            if isinstance(found, tuple) and len(found) == 2 and found[0] == key:
                return found[1]
        except Exception:  # noqa: BLE001 - any unreadable entry is a miss
            pass
        self.discard()
        return None

    def save(self, key: Any, data: Any) -> None:
        with _locked(self._lock_path):
            try:
                self._inner.save(key, (key, data))
                return
            except Exception:  # noqa: BLE001 - an unreadable index: start a new one below
                self._remove_index()
            try:
                self._inner.save(key, (key, data))
            except Exception as err:  # noqa: BLE001 - the code still runs, only is not kept
                warnings.warn(CacheWriteWarning(
                    f"compiled code could not be saved in {self._inner._index_path}: "
                    f"{type(err).__name__}: {err}"), stacklevel=3)

    def flush(self) -> None:
        with _locked(self._lock_path):
            self._inner.flush()


def harden(dispatcher: Any) -> Any:
    """Make the disk cache of a ``cache=True`` Numba dispatcher (cpu or CUDA) safe for several
    processes and treat unreadable or mismatched entries as misses (see the module docstring);
    returns the dispatcher."""
    cache = dispatcher._cache
    inner = getattr(cache, "_cache_file", None)
    if inner is None or isinstance(inner, _SafeCacheFile):
        return dispatcher  # no disk cache (NullCache), or hardened already
    safe = _SafeCacheFile(inner)
    cache._cache_file = safe
    load = cache.load_overload

    def load_overload(sig: Any, target_context: Any) -> Any:
        try:
            return load(sig, target_context)
        except Exception:  # noqa: BLE001 - e.g. object code that cannot be rebuilt
            safe.discard()
            return None

    cache.load_overload = load_overload
    return dispatcher
