"""``frontier cache info|clear`` (issue 47 item 1): ``info`` prints the cache directory, whether it
is used (or refused, and why), its entries, their size and the limit, changing nothing;
``clear`` deletes the entries (exit 0) and refuses a directory another user could write (exit 2,
one line); a bad ``$FRONTIER_CACHE_MAX_BYTES`` is exit 2."""

from __future__ import annotations

import json
import os

from frontier.runtime.cache_dir import CACHE_DIR_VARIABLE
from frontier.runtime.cache_entries import KERNELS, LIMIT_VARIABLE
from tests.frontier_cli.cli import run_cli


def fill(root, entries=2):
    (root / KERNELS).mkdir(parents=True, mode=0o700)
    for k in range(entries):
        for suffix in (".py", ".f-k.py311.nbi", ".f-k.py311.1.nbc"):
            (root / KERNELS / f"{k:040x}{suffix}").write_bytes(b"x" * 100)


def test_cache_info_describes_the_directory_its_entries_and_the_limit(capsys, monkeypatch,
                                                                     tmp_path):
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    monkeypatch.setenv(LIMIT_VARIABLE, "2G")
    fill(tmp_path)
    code, out, _ = run_cli(capsys, "cache", "info")
    assert code == 0
    assert out.splitlines() == [
        f"directory   {tmp_path}", "state       used", "entries     2",
        "size        600 bytes (0.6 KiB)",
        f"limit       2,147,483,648 bytes (2.0 GiB) (${LIMIT_VARIABLE})"]
    code, out, _ = run_cli(capsys, "cache", "info", "--json")
    assert json.loads(out) == {"command": "cache", "action": "info", "directory": str(tmp_path),
                               "resolved": str(tmp_path), "usable": True, "problem": None,
                               "entries": 2, "bytes": 600, "limit_bytes": 2 << 30}


def test_cache_info_creates_nothing_and_reports_a_refused_directory(capsys, monkeypatch,
                                                                   tmp_path):
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path / "new"))
    code, out, _ = run_cli(capsys, "cache", "info")
    assert code == 0 and "usable (not created yet)" in out and not (tmp_path / "new").exists()
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(shared))
    code, out, _ = run_cli(capsys, "cache", "info")
    assert code == 0 and f"state       refused: {shared}: is owned by uid {os.geteuid()}, " \
                         "mode 0777; expected a directory owned by you" in out


def test_cache_clear_removes_the_entries(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    fill(tmp_path, 3)
    code, out, _ = run_cli(capsys, "cache", "clear")
    assert code == 0 and out == f"removed 3 entries (900 bytes (0.9 KiB)) from {tmp_path}\n"
    assert list((tmp_path / KERNELS).iterdir()) == []


def test_cache_clear_refuses_a_directory_others_can_write_with_exit_2(capsys, monkeypatch,
                                                                    tmp_path):
    shared = tmp_path / "shared"
    fill(shared)
    shared.chmod(0o777)
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(shared))
    code, _, err = run_cli(capsys, "cache", "clear")
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"frontier: error: {shared}: is owned by uid {os.geteuid()}, mode 0777")
    assert len(list((shared / KERNELS).iterdir())) == 6


def test_a_bad_size_limit_is_exit_2(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv(CACHE_DIR_VARIABLE, str(tmp_path))
    monkeypatch.setenv(LIMIT_VARIABLE, "-5")
    code, _, err = run_cli(capsys, "cache", "info")
    assert code == 2 and err == (f"frontier: error: {LIMIT_VARIABLE}='-5'; expected a size in "
                                 "bytes > 0, optionally with K, M, G or T (powers of 1024), "
                                 "e.g. 2G\n")
