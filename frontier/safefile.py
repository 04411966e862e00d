"""Output files that appear whole or not at all: the one helper every writer of the library and
of the command line uses.

:func:`writing` creates a temporary file beside the output (``.NAME.<random>.partial<ending>``,
in the same directory, so the final rename stays on one file system) and yields its path; when
the block ends, the temporary file is flushed to disk and renamed over the output in one step.
If the block raises (a full disk, a file-size limit, Ctrl-C) the temporary file is removed and
the output, if it existed, is left as it was: a reader never sees a half-written file. An
output that exists and is not a regular file (``/dev/null``, a pipe) is written directly.

:func:`check_output` refuses, before any work, an output that cannot be written (a missing
directory, a directory in its place, no permission, a read-only file system; it creates and
removes a temporary file beside it, the only test that does not guess) and an output that is
one of the inputs, by whatever path it is named (``os.path.samefile``: another spelling, a
symbolic or a hard link), since replacing it would destroy the input. Both raise
:class:`OutputError`, a ValueError whose text names the file, the problem and what was
expected.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress

from frontier import messages

__all__ = ["OutputError", "check_output", "writing"]


class OutputError(ValueError):
    """An output file that cannot or must not be written; ``str()`` reads
    ``"<path>: <problem>; expected <what was expected>"``."""

    def __init__(self, path: str | os.PathLike[str], problem: str, expected: str) -> None:
        super().__init__(os.fspath(path), problem, expected)
        self.path = os.fspath(path)
        self.problem = problem
        self.expected = expected

    def __str__(self) -> str:
        return f"{messages.path(self.path)}: {self.problem}; expected {self.expected}"


def _target(path: str) -> tuple[str, os.stat_result | None]:
    """The file a write to ``path`` replaces (a symbolic link is followed, so that the link
    keeps pointing at the new file) and its status, None when it does not exist."""
    if not path:
        raise OutputError(path, "the output name is empty", "a file name")
    real = os.path.realpath(path)
    try:
        status = os.stat(real)
    except (FileNotFoundError, NotADirectoryError):
        return real, None  # creating the temporary file names the problem
    except OSError as err:
        raise OutputError(path, f"cannot be examined ({err.strerror or err})",
                          "a writable file") from None
    if stat.S_ISDIR(status.st_mode):
        raise OutputError(path, "is a directory", "a file name to write")
    return real, status


def _create_partial(path: str, real: str, status: os.stat_result | None) -> str:
    """A new empty file beside ``real``, with the mode of the file it will replace (else the
    mode a new file gets): its path. OutputError naming ``path`` when it cannot be created."""
    folder, name = os.path.split(real)
    ending = os.path.splitext(name)[1]
    while True:
        partial = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.partial{ending}")
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        except FileNotFoundError:
            raise OutputError(path, f"the directory {messages.path(folder)} does not exist",
                              "an output in an existing directory") from None
        except NotADirectoryError:
            raise OutputError(path, f"{messages.path(folder)} is not a directory",
                              "an output in an existing directory") from None
        except PermissionError:
            raise OutputError(path, f"no permission to create files in {messages.path(folder)}",
                              "a directory this user may write to") from None
        except OSError as err:
            raise OutputError(path, f"cannot be written ({err.strerror or err})",
                              "a writable file") from None
        break
    try:
        if status is not None:
            os.fchmod(fd, stat.S_IMODE(status.st_mode))
    finally:
        os.close(fd)
    return partial


def check_output(path: str | os.PathLike[str],
                 inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Raise :class:`OutputError` now if :func:`writing` to ``path`` would fail to start, or
    if ``path`` names the same file as one of ``inputs`` (those that do not exist are
    ignored)."""
    path = os.fspath(path)
    real, status = _target(path)
    if status is not None:
        for given in inputs:
            given = os.fspath(given)
            try:
                same = os.path.samefile(real, given)
            except OSError:
                same = False
            if same:
                raise OutputError(path, f"is the input {messages.path(given)}" if given != path
                                  else "is also the input", "an output file other than the "
                                  "input (writing it would destroy the input)")
        if not stat.S_ISREG(status.st_mode):
            if not os.access(real, os.W_OK):
                raise OutputError(path, "no permission to write", "a writable file")
            return
    os.unlink(_create_partial(path, real, status))


@contextmanager
def writing(path: str | os.PathLike[str]) -> Iterator[str]:
    """Yield the path to write ``path``'s new content to; see the module docstring. Raises
    :class:`OutputError` before the block runs if the output cannot be created."""
    path = os.fspath(path)
    real, status = _target(path)
    if status is not None and not stat.S_ISREG(status.st_mode):
        yield real
        return
    partial = _create_partial(path, real, status)
    try:
        yield partial
        fd = os.open(partial, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(partial, real)
    except BaseException as err:
        with suppress(OSError):
            os.unlink(partial)
        if isinstance(err, OSError) and err.filename is None:
            err.filename = path  # "File too large: out.txt", not a bare "File too large"
        raise
