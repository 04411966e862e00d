"""The disk cache's size limit (frontier.runtime.cache_entries, issue 47 item 1): the limit comes
from ``$FRONTIER_CACHE_MAX_BYTES`` (a bad value is refused, by the library with a warning and the
default); a save that pushes the cache over it deletes whole entries, least recently used first,
never the one just saved nor one being written; a load marks its entry used; ``clear`` deletes
every entry and leaves the calibration."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from numba.core.caching import IndexDataCacheFile

from frontier.runtime import cache_entries
from frontier.runtime.cache_entries import (
    DEFAULT_LIMIT,
    KERNELS,
    LIMIT_VARIABLE,
    CacheLimitWarning,
    clear,
    describe,
    entries,
    evict,
    limit_bytes,
    note_saved,
)
from frontier.runtime.numba_cache import _SafeCacheFile


@pytest.mark.parametrize("value, expected", [
    ("", DEFAULT_LIMIT), ("4096", 4096), ("2G", 2 << 30), ("512 MiB", 512 << 20), ("3k", 3072),
    (" 1T ", 1 << 40),
])
def test_the_limit_comes_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv(LIMIT_VARIABLE, value)
    assert limit_bytes() == expected


@pytest.mark.parametrize("value", ["-5", "0", "1.5G", "lots", "12x", "9" * 5000])
def test_a_limit_that_is_not_a_size_is_refused(monkeypatch, value):
    monkeypatch.setenv(LIMIT_VARIABLE, value)
    with pytest.raises(ValueError, match=f"^{LIMIT_VARIABLE}=.*; expected a size in bytes > 0"):
        limit_bytes()


def make_entry(root: Path, name: str, size: int, age: float, suffixes=(".py", ".k.nbi",
                                                                        ".k.1.nbc")) -> None:
    """A kernel entry of ``size`` bytes per file, last used ``age`` seconds ago."""
    folder = root / KERNELS
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in suffixes:
        path = folder / f"{name}{suffix}"
        path.write_bytes(b"x" * size)
        when = time.time() - age
        os.utime(path, (when, when))


def names(root: Path) -> set[str]:
    return {e.name for e in entries(root)}


def test_files_sharing_a_name_are_one_entry_with_their_size_and_last_use(tmp_path):
    make_entry(tmp_path, "a", 10, 100)
    os.utime(tmp_path / KERNELS / "a.k.nbi")  # a load touches the index
    (entry,) = entries(tmp_path)
    assert entry.name == "a" and len(entry.files) == 3 and entry.size == 30
    assert time.time() - entry.last_used < 10 and not entry.busy


def test_eviction_removes_whole_entries_least_recently_used_first(tmp_path):
    for k, name in enumerate("abcde"):
        make_entry(tmp_path, name, 100, age=1000 - 100 * k)  # a is the oldest
    left = evict(tmp_path, limit=1000, keep=(tmp_path / KERNELS, "a"))
    assert names(tmp_path) == {"a", "d", "e"} and left == 900  # down to 90% of the limit
    assert sorted(p.name for p in (tmp_path / KERNELS).iterdir() if p.name[0] in "bc") == []


def test_eviction_leaves_an_entry_being_written(tmp_path):
    make_entry(tmp_path, "old", 100, 1000, suffixes=(".py", ".k.nbi", ".k.nbi.abc.tmp"))
    (tmp_path / KERNELS / "old.k.nbi.abc.tmp").touch()  # a save in progress
    make_entry(tmp_path, "new", 100, 10)
    evict(tmp_path, limit=300)
    assert names(tmp_path) == {"old"}


def test_a_save_over_the_limit_evicts_and_a_load_marks_its_entry_used(tmp_path, monkeypatch):
    monkeypatch.setenv(LIMIT_VARIABLE, "2000")
    monkeypatch.setattr(cache_entries, "_TOTALS", {})
    make_entry(tmp_path, "a", 500, 1000)
    make_entry(tmp_path, "b", 500, 900)
    cache = _SafeCacheFile(IndexDataCacheFile(str(tmp_path / KERNELS), "c.k", "stamp"),
                           tmp_path)
    cache.save("key", "code")  # about 0.2 KB: the cache holds 3.2 KB of 2 KB
    assert names(tmp_path) == {"b", "c"}
    make_entry(tmp_path, "d", 300, 800)
    for path in (tmp_path / KERNELS).glob("c.*"):
        os.utime(path, (time.time() - 2000,) * 2)  # c: the oldest ...
    assert cache.load("key") == "code"  # ... until a load uses it
    note_saved(tmp_path, tmp_path / KERNELS / "d.py", 900)
    assert names(tmp_path) == {"c", "d"}


def test_a_bad_limit_warns_once_and_the_default_applies(tmp_path, monkeypatch):
    monkeypatch.setenv(LIMIT_VARIABLE, "lots")
    monkeypatch.setattr(cache_entries, "_WARNED", [])
    make_entry(tmp_path, "a", 10, 10)
    with pytest.warns(CacheLimitWarning, match="default limit of 1 GiB applies"):
        note_saved(tmp_path, tmp_path / KERNELS / "a.py", 10)
    assert names(tmp_path) == {"a"}


def test_clear_deletes_every_entry_and_keeps_the_calibration(tmp_path):
    make_entry(tmp_path, "a", 10, 10)
    lib = tmp_path / "numba" / "frontier_0123"
    lib.mkdir(parents=True)
    (lib / "graph._sort-1.py311.nbi").write_bytes(b"x" * 5)
    (tmp_path / "calibration.json").write_text("{}")
    info = describe(tmp_path)
    assert (info.usable, info.entries, info.size) == (True, 2, 35)
    assert clear(tmp_path) == (2, 35)
    assert describe(tmp_path).entries == 0 and (tmp_path / "calibration.json").exists()


def test_clear_refuses_a_directory_others_can_write(tmp_path):
    make_entry(tmp_path, "a", 10, 10)
    tmp_path.chmod(0o777)
    try:
        with pytest.raises(ValueError, match="mode 0777; expected a directory owned by you"):
            clear(tmp_path)
        assert not describe(tmp_path).usable and names(tmp_path) == {"a"}
    finally:
        tmp_path.chmod(0o700)
