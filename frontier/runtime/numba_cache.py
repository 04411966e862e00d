"""Numba's on-disk cache made safe: entries checksummed and checked before they are loaded, kept
only in a private directory, saved one process at a time, and an unreadable or mismatched entry
treated as a miss.

Numba (and Numba CUDA) keep one index per function (``*.nbi``: a pickled dictionary from each
compiled version's key, its signature and the machine's code-generation settings, to a numbered
data file ``*.<n>.nbc``) and trust what they read:

* a save reads the index, adds its key, naming the first data file number the index does not
  name, and writes the index back, unlocked: processes that compile different signatures of one
  function at once lose each other's index entries and pick the same data file number, so the
  index can name a data file that another process filled with another key's code;
* the index is unpickled as it is read (a pickle runs code), and the object code or cubin of a
  data file is loaded as it is: one flipped bit of a constant makes every later process compute
  with the wrong constant, others make LLVM abort or the process crash, until someone deletes
  the cache by hand.

:func:`harden` replaces the files of one ``cache=True`` dispatcher's cache with its own
(:class:`_SafeCacheFile`; the index and data names stay Numba's), so that:

* every file is written by :func:`frontier.runtime.cache_files.write_file` (mode 0600, never through
a
  link, renamed into place whole) and sealed with a SHA-256 of its content
  (:func:`frontier.runtime.cache_files.seal`), checked before anything is unpickled: a corrupt,
  foreign or truncated file is a miss; its index is deleted and the function compiled and saved
  again;
* the cache's directory is used only where :func:`frontier.runtime.cache_files.cache_directory`
accepts
  it (this user's, writable by nobody else): elsewhere nothing is read or written;
* a save runs under an exclusive lock of the function's index (``*.nbi.lock``, ``flock``,
  opened without following links; where it cannot be taken, as on Windows, the save runs
  unlocked), so the index's read, update and write and the data file's write are one step for
  every process; the data file is written before the index names it;
* each data file holds its key beside the compiled code, and a load returns it only where that
  key is the one asked for: an entry the index names for another key is a miss, never another
  signature's or machine's code; a data file removed meanwhile (evicted by another process:
  :mod:`frontier.runtime.cache_entries`) is a plain miss;
* a load marks its entry used (:func:`frontier.runtime.cache_files.touch`), and a save reports its
  bytes to the size limit (:func:`frontier.runtime.cache_entries.note_saved`);
* a save that fails (a full or read-only disk, code that cannot be serialized) is given up
  with a :class:`CacheWriteWarning`:
  the compiled code is used, only not kept;
* Numba CUDA's marker of a kernel that depends on its launch configuration (``*.lcs``) is
  written the same way, in the same checked directory.
"""

from __future__ import annotations

import itertools
import os
import pickle
import warnings
from pathlib import Path
from typing import Any

from frontier.runtime.cache_entries import note_saved
from frontier.runtime.cache_files import (
    cache_directory,
    locked,
    read_file,
    seal,
    touch,
    unseal,
    write_file,
)

__all__ = ["harden", "CacheWriteWarning"]


class CacheWriteWarning(UserWarning):
    """Compiled code could not be written to the cache directory (it is used all the same)."""


class _Corrupt(Exception):
    """A cache file whose seal does not match its content."""


class _SafeCacheFile:
    """One cache's index and data files (see the module docstring), in the directory ``inner``
    (Numba's ``IndexDataCacheFile``) names, checked under the cache directory ``root`` (its
    parent directories below ``root`` are created private as well)."""

    def __init__(self, inner: Any, root: Path | None = None) -> None:
        self._inner = inner
        folder = Path(inner._cache_path)
        if root is not None and folder.is_relative_to(root):
            self._root, self._parts = root, folder.relative_to(root).parts
        else:
            self._root, self._parts = folder, ()
        self._index_name = inner._index_name
        self._base = self._index_name[:-len(".nbi")]

    def _folder(self) -> Path | None:
        """The checked directory of the files; None where it may not be used."""
        return cache_directory(self._root, *self._parts)

    def _read(self, path: Path) -> Any:
        """The unpickled content of a sealed file; None where it is missing. Raises _Corrupt
        where the seal does not match (before anything is unpickled)."""
        stored = read_file(path)
        if stored is None:
            return None
        payload = unseal(stored)
        if payload is None:
            raise _Corrupt(path)
        return pickle.loads(payload)  # noqa: S301 - sealed by this user, in a private directory

    def _load_index(self, folder: Path) -> dict:
        """The index's entries: empty where there is none or it is another version's or
        another source's. Raises where it is corrupt."""
        found = self._read(folder / self._index_name)
        if found is None:
            return {}
        version, stamp, overloads = found
        if version != self._inner._version or stamp != self._inner._source_stamp:
            return {}
        if not isinstance(overloads, dict):
            raise _Corrupt(folder / self._index_name)
        return overloads

    def _save_index(self, folder: Path, overloads: dict) -> int:
        data = seal(self._inner._dump((self._inner._version, self._inner._source_stamp,
                                       overloads)))
        write_file(folder / self._index_name, data)
        return len(data)

    def discard(self) -> None:
        """Delete the index (its data files are overwritten as entries are saved again)."""
        folder = self._folder()
        if folder is None:
            return
        with locked(folder / f"{self._index_name}.lock"):
            try:
                os.remove(folder / self._index_name)
            except OSError:
                pass

    def load(self, key: Any) -> Any:
        folder = self._folder()
        if folder is None:
            return None
        try:
            name = self._load_index(folder).get(key)
            if name is None:
                return None
            if not isinstance(name, str) or os.path.basename(name) != name:
                raise _Corrupt(folder / self._index_name)
            found = self._read(folder / name)
            if found is None:
                return None  # removed since the index was written: a miss
            if isinstance(found, tuple) and len(found) == 2 and found[0] == key:
                touch(folder / self._index_name)
                return found[1]
        except Exception:  # noqa: BLE001 - any unreadable or mismatched entry is a miss
            pass
        self.discard()
        return None

    def save(self, key: Any, data: Any) -> None:
        folder = self._folder()
        if folder is None:
            return
        try:
            payload = seal(self._inner._dump((key, data)))
            with locked(folder / f"{self._index_name}.lock"):
                try:
                    overloads = self._load_index(folder)
                except Exception:  # noqa: BLE001 - an unreadable index: start a new one
                    overloads = {}
                name = overloads.get(key)
                if name is None:
                    used = set(overloads.values())
                    name = next(n for n in (f"{self._base}.{i}.nbc" for i in itertools.count(1))
                                if n not in used)
                write_file(folder / name, payload)
                overloads[key] = name
                size = len(payload) + self._save_index(folder, overloads)
        except Exception as err:  # noqa: BLE001 - the code still runs, only is not kept
            warnings.warn(CacheWriteWarning(
                f"compiled code could not be saved in {folder}: {type(err).__name__}: {err}"),
                stacklevel=3)
            return
        root = folder
        for _ in self._parts:
            root = root.parent
        note_saved(root, folder / self._index_name, size)

    def flush(self) -> None:
        folder = self._folder()
        if folder is None:
            return
        with locked(folder / f"{self._index_name}.lock"):
            try:
                self._save_index(folder, {})
            except OSError:
                pass


def harden(dispatcher: Any) -> Any:
    """Make the disk cache of a ``cache=True`` Numba dispatcher (cpu or CUDA) checksummed,
    private, safe for several processes, and treat unreadable or mismatched entries as misses
    (see the module docstring); returns the dispatcher. The cache's directory is checked under
    its locator's ``cache_root`` where it has one."""
    cache = dispatcher._cache
    inner = getattr(cache, "_cache_file", None)
    if inner is None or isinstance(inner, _SafeCacheFile):
        return dispatcher  # no disk cache (NullCache), or hardened already
    root = getattr(cache._impl.locator, "cache_root", None)
    safe = _SafeCacheFile(inner, Path(root) if root is not None else None)
    cache._cache_file = safe
    load = cache.load_overload

    def load_overload(sig: Any, target_context: Any) -> Any:
        try:
            return load(sig, target_context)
        except Exception:  # noqa: BLE001 - e.g. object code that cannot be rebuilt
            safe.discard()
            return None

    cache.load_overload = load_overload
    if hasattr(cache, "mark_launch_config_sensitive"):
        _harden_marker(cache, safe)
    return dispatcher


def _harden_marker(cache: Any, safe: _SafeCacheFile) -> None:
    """Numba CUDA's marker of a kernel whose code depends on its launch configuration
    (``*.lcs``), written as every cache file is (private, never through a link), in the checked
    directory, or not at all where it may not be used."""
    name = os.path.basename(cache._launch_config_marker_path)

    def mark_launch_config_sensitive() -> bool:
        if cache._launch_config_sensitive_flag is True:
            return True
        folder = safe._folder()
        try:
            if folder is None:
                raise PermissionError(f"{safe._root}: refused")
            cache._launch_config_marker_path = str(folder / name)
            write_file(folder / name, b"")
        except OSError:
            cache._launch_config_sensitive_flag = False
            return False
        cache._launch_config_sensitive_flag = True
        return True

    cache.mark_launch_config_sensitive = mark_launch_config_sensitive
