"""The disk cache's entries and its size limit: the least recently used entries are evicted when
saves push the cache past the limit; :func:`describe` and :func:`clear` serve ``frontier cache
info`` and ``frontier cache clear``.

The cache directory (:func:`frontier.runtime.cache_dir.cache_dir`) holds compiled code in
:data:`CODE_DIRECTORIES`: generated kernels in ``kernels/`` (:mod:`frontier.runtime.kernel_cache`)
and the library's own compiled functions in ``numba/`` (:mod:`frontier.runtime.cache_dir`). An
*entry* is the files of one directory whose names share their first dot-separated component: a
kernel's text ``<key>.py`` with its index ``<key>.<name>-k.py311.nbi``, the index's lock and its
compiled code ``<key>.<name>-k.py311.<n>.nbc``; or the compiled functions of one library module
(``numba/<folder>/<module>.*``). Its size is the sum of its files' sizes and its last use the
newest modification time among them: a load from the cache touches the entry's index
(:func:`frontier.runtime.cache_files.touch`).

The limit is ``$FRONTIER_CACHE_MAX_BYTES`` (:data:`LIMIT_VARIABLE`): a whole number of bytes,
optionally followed by ``K``, ``M``, ``G`` or ``T`` (powers of 1024), e.g. ``2G``; default
:data:`DEFAULT_LIMIT` (1 GiB). A value that is not one is refused with a
:class:`CacheLimitWarning` by the library (which then applies the default) and with exit
status 2 by ``frontier cache``. Each save reports its bytes (:func:`note_saved`); the process
keeps an estimate of the total from one scan of the cache, and when the estimate passes the
limit it scans again and deletes whole entries, least recently used first, down to
:data:`EVICT_TO` of the limit (never the entry just saved). Entries are deleted index first, so
that a process loading one at that moment finds a missing index or a missing data file, both
plain misses; an entry with a file being written (a temporary file younger than
:data:`BUSY_SECONDS`) is left alone.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from frontier.runtime.cache_files import TEMPORARY_SUFFIX, check_root

__all__ = ["KERNELS", "LIBRARY", "CODE_DIRECTORIES", "LIMIT_VARIABLE", "DEFAULT_LIMIT",
           "CacheLimitWarning", "Entry", "CacheInfo", "limit_bytes", "entries", "note_saved",
           "evict", "clear", "describe"]

#: The subdirectory of generated kernels.
KERNELS = "kernels"
#: The subdirectory of the library's own ``cache=True`` functions.
LIBRARY = "numba"
#: The subdirectories whose files are entries (the calibration file beside them is not one).
CODE_DIRECTORIES = (KERNELS, LIBRARY)
#: The environment variable that sets the size limit.
LIMIT_VARIABLE = "FRONTIER_CACHE_MAX_BYTES"
#: The size limit where :data:`LIMIT_VARIABLE` is not set.
DEFAULT_LIMIT = 1 << 30
#: The fraction of the limit an eviction brings the cache down to.
EVICT_TO = 0.9
#: A temporary file younger than this (seconds) belongs to a save in progress.
BUSY_SECONDS = 600.0
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_LIMIT = re.compile(r"\s*(\d{1,20})\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE)


class CacheLimitWarning(UserWarning):
    """``$FRONTIER_CACHE_MAX_BYTES`` is not a size: the default limit applies."""


def limit_bytes() -> int:
    """The cache's size limit in bytes (see the module docstring); ValueError naming the
    variable, its value and what was expected where it is not a size."""
    text = os.environ.get(LIMIT_VARIABLE, "")
    if not text.strip():
        return DEFAULT_LIMIT
    match = _LIMIT.fullmatch(text)
    if match is None or int(match[1]) == 0:
        raise ValueError(f"{LIMIT_VARIABLE}={text!r}; expected a size in bytes > 0, optionally "
                         "with K, M, G or T (powers of 1024), e.g. 2G")
    return int(match[1]) * _UNITS[match[2].upper()]


@dataclass(frozen=True)
class Entry:
    """One entry of the cache (see the module docstring): its ``directory``, the ``name`` its
    files share, the ``files``, their total ``size`` in bytes, its ``last_used`` time (seconds
    since the epoch) and whether a save of it is in progress (``busy``)."""

    directory: Path
    name: str
    files: tuple[Path, ...]
    size: int
    last_used: float
    busy: bool


def _entry_name(file_name: str) -> str:
    return file_name.split(".", 1)[0]


def entries(root: Path) -> list[Entry]:
    """The entries under the (checked) cache directory ``root``."""
    now = time.time()
    grouped: dict[tuple[str, str], list[tuple[Path, os.stat_result]]] = {}
    for sub in CODE_DIRECTORIES:
        for folder, dirs, files in os.walk(root / sub):  # never into linked directories
            dirs.sort()
            links = [d for d in dirs if os.path.islink(os.path.join(folder, d))]
            for name in sorted(files + links):
                path = Path(folder, name)
                try:
                    status = os.lstat(path)
                except OSError:
                    continue  # removed meanwhile
                grouped.setdefault((folder, _entry_name(name)), []).append((path, status))
    found = []
    for (folder, name), files in grouped.items():
        busy = any(p.name.endswith(TEMPORARY_SUFFIX) and now - s.st_mtime < BUSY_SECONDS
                   for p, s in files)
        found.append(Entry(Path(folder), name, tuple(p for p, _ in files),
                           sum(s.st_size for _, s in files if not stat.S_ISDIR(s.st_mode)),
                           max(s.st_mtime for _, s in files), busy))
    return found


def _remove(entry: Entry, keep_busy: bool = True) -> None:
    """Delete an entry's files, its indexes first (a file being written stays)."""
    now = time.time()
    for path in sorted(entry.files, key=lambda p: not p.name.endswith(".nbi")):
        try:
            if keep_busy and path.name.endswith(TEMPORARY_SUFFIX):
                if now - os.lstat(path).st_mtime < BUSY_SECONDS:
                    continue
            os.unlink(path)
        except OSError:
            pass  # removed by another process meanwhile, or a directory planted in its place


def evict(root: Path, limit: int, keep: tuple[Path, str] | None = None) -> int:
    """Delete the least recently used entries under ``root`` while the cache holds more than
    ``limit`` bytes, down to :data:`EVICT_TO` of it, never the entry ``keep`` (its directory
    and name) or a busy one; returns the bytes left."""
    found = entries(root)
    total = sum(e.size for e in found)
    if total <= limit:
        return total
    for entry in sorted(found, key=lambda e: e.last_used):
        if total <= limit * EVICT_TO:
            break
        if entry.busy or (entry.directory, entry.name) == keep:
            continue
        _remove(entry)
        total -= entry.size
    return total


#: Per cache directory: this process's estimate of the bytes it holds.
_TOTALS: dict[str, int] = {}
_TOTALS_LOCK = threading.Lock()
_WARNED: list[str] = []


def _limit_or_default() -> int:
    try:
        return limit_bytes()
    except ValueError as err:
        if str(err) not in _WARNED:
            _WARNED.append(str(err))
            warnings.warn(CacheLimitWarning(
                f"{err}; the default limit of {DEFAULT_LIMIT >> 30} GiB applies"), stacklevel=4)
        return DEFAULT_LIMIT


def note_saved(root: Path, saved: Path, size: int) -> None:
    """Count ``size`` bytes just saved as ``saved`` under the cache directory ``root`` and
    evict the least recently used entries if the cache is now over its limit."""
    limit = _limit_or_default()
    with _TOTALS_LOCK:
        known = _TOTALS.get(os.fspath(root))
        if known is None:
            total = sum(e.size for e in entries(root))
        else:
            total = known + size
        if total > limit:
            total = evict(root, limit, (saved.parent, _entry_name(saved.name)))
        _TOTALS[os.fspath(root)] = total


@dataclass(frozen=True)
class CacheInfo:
    """What ``frontier cache info`` prints: the cache ``directory`` (as configured), the one it
    resolves to, whether it is ``usable`` and why not (``problem``), its number of
    ``entries``, their total ``size`` in bytes and the ``limit``."""

    directory: Path
    resolved: Path | None
    usable: bool
    problem: str
    entries: int
    size: int
    limit: int


def describe(root: Path) -> CacheInfo:
    """The state of the cache directory ``root``, changing nothing (a missing directory is
    usable and empty); ValueError where the limit is set wrong."""
    limit = limit_bytes()
    resolved, problem = check_root(root, create=False)
    found = entries(resolved) if resolved is not None else []
    return CacheInfo(Path(root), resolved, resolved is not None, problem, len(found),
                     sum(e.size for e in found), limit)


def clear(root: Path) -> tuple[int, int]:
    """Delete every entry under the cache directory ``root`` (not the calibration file, and not
    a file being written this moment): the number of entries and bytes removed. ValueError
    naming the problem where the directory may not be used."""
    resolved, problem = check_root(root, create=False)
    if resolved is None:
        raise ValueError(problem)
    found = entries(resolved)
    for entry in found:
        _remove(entry)
    with _TOTALS_LOCK:
        _TOTALS.pop(os.fspath(resolved), None)
    return len(found), sum(e.size for e in found)
