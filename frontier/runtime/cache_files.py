"""The disk cache's files: kept where only their owner can change them, opened without following
links, each sealed with a checksum of its content.

What the cache holds is run: a kernel loaded from it executes, and Numba's index of a cached
function is a pickle, which runs code as it is read. So the library reads and writes the cache
only where nobody but the current user could have put anything, and never trusts a byte it did
not verify:

* :func:`check_root` decides whether a cache directory may be used. A symbolic link as (or on
  the way to) the directory is resolved once, and the directory it names is the one checked and
  used from then on. That directory must be owned by the current user and writable by nobody
  else (no group or other write permission); every existing directory above it must be owned by
  the user or by root, writable by no other user (a group may write one of the user's own, as
  user-private groups have it) unless it has the sticky bit (as ``/tmp`` has). A missing
  directory is created, with every missing parent, mode 0700. Files are read only where they
  are the user's, so a directory swapped in after the check still gives nothing to load.
  :func:`cache_directory` applies the check once per directory and process: a refused
  directory is neither read nor written, the process says so in one
  :class:`CacheDirectoryWarning`, and compiled code is kept in memory only.
* Under the cache directory, every subdirectory the library uses is created mode 0700 and must
  be a real directory (not a link) of the user that nobody else can write; one made by an older
  version with read permission for others is narrowed to 0700.
* :func:`write_file` writes a new file of mode 0600 (whatever the umask) under a fresh name with
  ``O_CREAT | O_EXCL | O_NOFOLLOW`` and renames it over the old one: a link planted under the
  final name is replaced, never written through, and a reader never sees half a file.
  :func:`read_file` opens with ``O_NOFOLLOW`` and returns only a regular file of the user.
* :func:`seal` prefixes a payload with a format tag and its SHA-256; :func:`unseal` returns the
  payload only where both match, before anything is unpickled or loaded: a flipped bit is a
  miss, never a wrong kernel or a crash.

On Windows, where POSIX owners and modes do not exist, the ownership and mode checks are
skipped; the checksums still apply.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no locks (saves run unlocked, loads still verify)
    fcntl = None  # type: ignore[assignment]

__all__ = ["CacheDirectoryWarning", "check_root", "check_directory", "cache_directory", "forget",
           "write_file", "read_file", "seal", "unseal", "touch", "locked", "TEMPORARY_SUFFIX",
           "SEAL_TAG"]

#: The ending of a file being written (renamed to its final name when complete).
TEMPORARY_SUFFIX = ".tmp"
#: The first bytes of every sealed file: the format, then the payload's SHA-256, then the payload.
SEAL_TAG = b"frontier-cache-1\n"
_DIGEST = hashlib.sha256().digest_size
_POSIX = hasattr(os, "geteuid")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)
#: Group and other write permission: a directory with either may hold another user's files.
_WRITABLE_BY_OTHERS = stat.S_IWGRP | stat.S_IWOTH


class CacheDirectoryWarning(UserWarning):
    """A cache directory is not used (another user could change it, or it cannot be made):
    compiled code is kept in memory for this process only."""


def _expected() -> str:
    who = f"you (uid {os.geteuid()})" if _POSIX else "you"
    return f"a directory owned by {who} and writable only by you (mode 0700)"


def _describe(status: os.stat_result) -> str:
    return f"owned by uid {status.st_uid}, mode {stat.S_IMODE(status.st_mode):04o}"


def _foreign(status: os.stat_result) -> bool:
    """Whether a directory of the cache could hold another user's files."""
    return _POSIX and (status.st_uid != os.geteuid()
                       or bool(status.st_mode & _WRITABLE_BY_OTHERS))


def _unsafe_parent(status: os.stat_result) -> bool:
    """Whether a directory above the cache lets another user replace what is in it."""
    if not _POSIX:
        return False
    mine = status.st_uid == os.geteuid()
    if not mine and status.st_uid != 0:
        return True  # its owner may rename anything in it
    if status.st_mode & stat.S_ISVTX:
        return False  # sticky (as /tmp): only an entry's owner may rename or remove it
    return bool(status.st_mode & stat.S_IWOTH) or (
        not mine and bool(status.st_mode & stat.S_IWGRP))


def check_root(root: Path, create: bool = True) -> tuple[Path | None, str]:
    """``(directory, "")``: the resolved cache directory ``root``, checked, and created if
    missing (with ``create=False`` a missing one is returned as it is); or ``(None, why)``
    where it may not or cannot be used: ``why`` names the directory, the problem and what was
    expected."""
    try:
        resolved = Path(os.path.realpath(root))
    except (OSError, ValueError) as err:
        return None, f"{root}: cannot be resolved ({err}); expected a directory path"
    shown = f"{root}" if resolved == Path(root) else f"{root} (which is {resolved})"
    for parent in reversed(resolved.parents):
        try:
            status = os.lstat(parent)
        except FileNotFoundError:
            break
        except OSError as err:
            return None, f"{shown}: {parent} cannot be examined ({err.strerror or err})"
        if not stat.S_ISDIR(status.st_mode):
            return None, f"{shown}: {parent} is not a directory; expected a directory path"
        if _unsafe_parent(status):
            return None, (f"{shown}: the directory {parent} above it is {_describe(status)}, "
                          "so another user could replace the cache; expected directories "
                          "owned by you or root that others cannot write (or sticky, as /tmp)")
    try:
        status = os.lstat(resolved)
    except FileNotFoundError:
        if not create:
            return resolved, ""
        try:
            _make_private(resolved)
            status = os.lstat(resolved)
        except OSError as err:
            return None, (f"{shown}: cannot be created ({err.strerror or err}); "
                          f"expected {_expected()}")
    except OSError as err:
        return None, f"{shown}: cannot be examined ({err.strerror or err})"
    if not stat.S_ISDIR(status.st_mode):
        kind = "a file, not a directory" if stat.S_ISREG(status.st_mode) else "not a directory"
        return None, f"{shown}: is {kind}; expected {_expected()}"
    if _foreign(status):
        return None, f"{shown}: is {_describe(status)}; expected {_expected()}"
    return resolved, ""


def _make_private(path: Path) -> None:
    """Create ``path`` and its missing parents, each mode 0700 (whatever the umask)."""
    missing = []
    while not os.path.lexists(path):
        missing.append(path)
        if path.parent == path:
            break
        path = path.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            continue  # made by another process meanwhile: checked by the caller
        os.chmod(folder, 0o700)


def _subdirectory(folder: Path) -> str:
    """Create ``folder`` (mode 0700) inside a checked directory, or check the one there: the
    problem, or "" where it is a private directory of this user."""
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    status = os.lstat(folder)
    if not stat.S_ISDIR(status.st_mode):
        return f"{folder} is not a directory (a link or a file)"
    if _foreign(status):
        return f"{folder} is {_describe(status)}; expected {_expected()}"
    if _POSIX and stat.S_IMODE(status.st_mode) != 0o700:
        os.chmod(folder, 0o700)  # an older version's 0755 (a directory, in a private one)
    return ""


#: Per (root, subdirectories): the checked directory, or None where refused.
_CHECKED: dict[tuple[str, tuple[str, ...]], Path | None] = {}
#: The refused directories this process has warned about.
_WARNED: set[str] = set()
_LOCK = threading.Lock()


def check_directory(root: Path, *parts: str) -> tuple[Path | None, str]:
    """``(directory, "")``: ``root / parts``, resolved, checked and created (see the module
    docstring); or ``(None, why)`` where it may not or cannot be used."""
    folder, why = check_root(Path(root))
    for part in parts if folder is not None else ():
        folder = folder / part  # type: ignore[operator]
        try:
            why = _subdirectory(folder)
        except OSError as err:
            why = f"{folder} cannot be created ({err.strerror or err})"
        if why:
            return None, why
    return folder, why


def cache_directory(root: Path, *parts: str) -> Path | None:
    """:func:`check_directory` once per process (:func:`forget` checks again): the directory,
    or None where it may not be used, with one :class:`CacheDirectoryWarning` per refused
    cache directory and process."""
    key = (os.fspath(root), parts)
    found = _CHECKED.get(key, key)
    if found is not key:
        return found  # type: ignore[return-value]
    with _LOCK:
        if key in _CHECKED:
            return _CHECKED[key]
        folder, why = check_directory(root, *parts)
        if folder is None:
            _warn(os.fspath(root), why)
        _CHECKED[key] = folder
        return folder


def _warn(root: str, why: str) -> None:
    if root not in _WARNED:
        _WARNED.add(root)
        warnings.warn(CacheDirectoryWarning(
            f"the cache directory is not used: {why}. Compiled code is kept in memory for this "
            "process only"), stacklevel=4)


def forget(root: Path) -> None:
    """Check ``root``'s directories again at their next use (after one was removed)."""
    with _LOCK:
        for key in [k for k in _CHECKED if k[0] == os.fspath(root)]:
            del _CHECKED[key]


def seal(payload: bytes) -> bytes:
    """``payload`` as it is stored: :data:`SEAL_TAG`, its SHA-256, then the payload."""
    return SEAL_TAG + hashlib.sha256(payload).digest() + payload


def unseal(stored: bytes) -> bytes | None:
    """The payload :func:`seal` stored, or None where the tag or the checksum does not match
    (a corrupt, truncated or foreign file)."""
    start = len(SEAL_TAG) + _DIGEST
    if len(stored) < start or not stored.startswith(SEAL_TAG):
        return None
    payload = stored[start:]
    if hashlib.sha256(payload).digest() != stored[len(SEAL_TAG):start]:
        return None
    return payload


def write_file(path: Path, data: bytes) -> None:
    """Make ``path`` hold ``data``: a new file of mode 0600 under a fresh name (never through a
    link), renamed over ``path`` when complete. Raises OSError (nothing is left behind)."""
    partial = f"{path}.{secrets.token_hex(8)}{TEMPORARY_SUFFIX}"
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY,
                 0o600)
    try:
        try:
            if _POSIX:
                os.fchmod(fd, 0o600)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(partial, path)
    except BaseException:
        try:
            os.unlink(partial)
        except OSError:
            pass
        raise


def read_file(path: Path) -> bytes | None:
    """The content of ``path``; None where it is missing, a link, not a regular file or not
    this user's. Raises OSError where it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK | _BINARY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as err:
        if _NOFOLLOW and err.errno in (getattr(os, "ELOOP", 40), getattr(os, "EMLINK", 31)):
            return None  # a symbolic link
        raise
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode) or (_POSIX and status.st_uid != os.geteuid()):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def touch(path: Path) -> None:
    """Mark ``path`` used now (its modification time: the cache evicts the least recently used
    entries first); nothing where it is gone."""
    try:
        if os.utime in os.supports_follow_symlinks:
            os.utime(path, follow_symlinks=False)
        else:
            os.utime(path)
    except OSError:
        pass


@contextmanager
def locked(path: Path, wait: bool = True) -> Iterator[bool]:
    """Hold an exclusive ``flock`` of ``path`` (created mode 0600 if missing, never through a
    link) for the block, which gets True; False where no lock can be had (Windows, a read-only
    directory, or, with ``wait=False``, another process holding it)."""
    fd = None
    if fcntl is not None:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o600)
        except OSError:
            fd = None
    if fd is None:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # releases the lock
