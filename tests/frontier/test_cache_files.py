"""The disk cache's files (frontier.runtime.cache_files, issue 47 item 1): a cache directory another
user could write is refused with one warning naming the directory, the problem and what is expected;
a missing one is made 0700 with its parents; a link to the directory is resolved and the
directory it names checked; files are written 0600 without following links and read only when
they are this user's regular files; a seal detects every flipped bit."""

from __future__ import annotations

import os
import stat
import sys
import threading
import warnings
from pathlib import Path

import pytest

from frontier.runtime.cache_files import (
    SEAL_TAG,
    CacheDirectoryWarning,
    cache_directory,
    check_directory,
    check_root,
    read_file,
    seal,
    unseal,
    write_file,
)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX owners and modes")
NOBODY = 65534


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_a_missing_cache_dir_is_made_owner_only_with_its_missing_parents(tmp_path):
    old = os.umask(0)
    try:
        found, why = check_root(tmp_path / "home" / ".cache" / "frontier")
    finally:
        os.umask(old)
    assert why == "" and found == tmp_path / "home" / ".cache" / "frontier"
    assert [_mode(p) for p in (found, found.parent, found.parent.parent)] == [0o700] * 3


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722, 0o702])
def test_a_cache_dir_writable_by_group_or_others_is_refused(tmp_path, mode):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(mode)
    found, why = check_root(shared)
    assert found is None
    assert why == (f"{shared}: is owned by uid {os.geteuid()}, mode {mode:04o}; expected a "
                   f"directory owned by you (uid {os.geteuid()}) and writable only by you "
                   "(mode 0700)")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_a_cache_dir_owned_by_another_user_is_refused_even_if_private(tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, NOBODY, -1)
    found, why = check_root(theirs)
    assert found is None and f"owned by uid {NOBODY}" in why


def test_a_cache_path_that_is_a_file_is_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert check_root(blocker) == (None, f"{blocker}: is a file, not a directory; expected a "
                                         f"directory owned by you (uid {os.geteuid()}) and "
                                         "writable only by you (mode 0700)")


def test_a_parent_others_can_write_without_the_sticky_bit_is_refused(tmp_path):
    open_parent = tmp_path / "open"
    open_parent.mkdir()
    open_parent.chmod(0o777)
    found, why = check_root(open_parent / "frontier")
    assert found is None and "another user could replace the cache" in why
    open_parent.chmod(0o1777)  # sticky, as /tmp
    assert check_root(open_parent / "frontier")[0] == open_parent / "frontier"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs chown")
def test_a_parent_another_user_owns_is_refused(tmp_path):
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, NOBODY, -1)
    found, why = check_root(theirs / "frontier")
    assert found is None and f"{theirs} above it is owned by uid {NOBODY}" in why



def test_a_parent_of_the_users_own_that_its_group_can_write_is_accepted(tmp_path):
    group = tmp_path / "group"
    group.mkdir()
    group.chmod(0o775)  # a user-private group's usual mode
    assert check_root(group / "frontier") == (group / "frontier", "")


def test_a_link_to_the_cache_dir_is_resolved_and_the_directory_it_names_checked(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    assert check_root(link) == (real, "")
    real.chmod(0o777)
    found, why = check_root(link)
    assert found is None and why.startswith(f"{link} (which is {real}): ")


def test_a_subdirectory_an_older_version_made_readable_by_others_is_narrowed(tmp_path):
    root = tmp_path / "cache"
    (root / "kernels").mkdir(parents=True)
    root.chmod(0o755)
    (root / "kernels").chmod(0o755)
    assert check_directory(root, "kernels") == (root / "kernels", "")
    assert _mode(root / "kernels") == 0o700 and _mode(root) == 0o755  # the root is the user's


def test_a_sticky_parent_of_another_user_is_refused(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs chown")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    theirs.chmod(0o1777)
    os.chown(theirs, NOBODY, -1)  # its owner may rename anything in it, sticky or not
    assert check_root(theirs / "frontier")[0] is None


def test_a_link_planted_as_a_subdirectory_is_refused(tmp_path):
    root = tmp_path / "cache"
    root.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (root / "kernels").symlink_to(elsewhere)
    found, why = check_directory(root, "kernels")
    assert found is None and "is not a directory (a link or a file)" in why


def test_a_refused_directory_warns_once_per_process(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.warns(CacheDirectoryWarning) as caught:
        assert cache_directory(shared, "kernels") is None
    assert len(caught) == 1 and str(shared) in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache_directory(shared, "kernels") is None
        assert cache_directory(shared, "numba") is None
    assert list(shared.iterdir()) == []


def test_threads_asking_at_once_get_one_check_and_one_warning(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    start = threading.Barrier(8)
    found = []

    def ask() -> None:
        start.wait()
        found.append(cache_directory(shared, "kernels"))

    with pytest.warns(CacheDirectoryWarning) as caught:
        threads = [threading.Thread(target=ask) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert found == [None] * 8 and len(caught) == 1


def test_files_are_written_0600_and_a_planted_link_is_replaced_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    victim.chmod(0o600)
    target = tmp_path / "entry"
    target.symlink_to(victim)
    old = os.umask(0)
    try:
        write_file(target, b"new")
    finally:
        os.umask(old)
    assert victim.read_text() == "precious"
    assert not target.is_symlink() and target.read_bytes() == b"new" and _mode(target) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["entry", "victim"]  # no leftovers


def test_only_this_users_regular_files_are_read(tmp_path):
    (tmp_path / "file").write_bytes(b"data")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    os.mkfifo(tmp_path / "fifo")
    assert read_file(tmp_path / "file") == b"data"
    assert read_file(tmp_path / "link") is None  # never through a link
    assert read_file(tmp_path / "fifo") is None  # and no hang on a FIFO
    assert read_file(tmp_path / "missing") is None
    if os.geteuid() == 0:
        os.chown(tmp_path / "file", NOBODY, -1)
        assert read_file(tmp_path / "file") is None


def test_a_seal_detects_every_flipped_bit_and_truncation():
    payload = b"compiled code \x00\x01\x02" * 3
    stored = seal(payload)
    assert stored.startswith(SEAL_TAG) and unseal(stored) == payload
    for at in range(len(stored)):
        for bit in range(8):
            flipped = bytearray(stored)
            flipped[at] ^= 1 << bit
            assert unseal(bytes(flipped)) is None
    assert all(unseal(stored[:n]) is None for n in range(len(stored)))
    assert unseal(payload) is None  # an unsealed file (another version's)
