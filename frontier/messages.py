"""How text a user gave appears inside an error message: on one line, every character visible,
and bounded in length.

An error is one line (the command line prints the first line of an error and exits 2), so what
the user typed must neither cut it (a file name holding a newline) nor flood it (a generator
spec of 5,000 digits). :func:`path` shows a file name as it is when every character of it is
printable (``data/road.mtx``, so ``data/road.mtx:3: ...`` reads as before), else as Python's
``repr`` with the unprintable characters escaped (``'a\\nb.txt'``; an empty name and one with
spaces at either end too); bytes are decoded as the file system does. :func:`text` shows any
other given text (a spec, an option) as its ``repr``, cut to :data:`SHOWN_CHARS` characters
with its full length said.

Every message that names a file goes through :func:`path`: :class:`frontier.io.GraphFormatError`,
:class:`frontier.safefile.OutputError`, the size checks of :mod:`frontier.io`, the traces of the
command line and the command line's own reports of missing or unreadable files.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["path", "text", "SHOWN_CHARS"]

#: The most characters of a given text a message shows.
SHOWN_CHARS = 60


def path(value: Any) -> str:
    """``value`` (a str, bytes or os.PathLike file name) as a message shows it: as it is when
    printable, else (an unprintable character, an empty name, spaces at either end) its
    ``repr``."""
    try:
        name = os.fsdecode(value)
    except TypeError:
        return text(value)
    return name if name.isprintable() and name and name == name.strip() else repr(name)


def text(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``repr(value)``, cut to ``limit`` characters (then followed by ``...`` and the length of
    ``value`` where it has one)."""
    shown = repr(value)
    if len(shown) <= limit:
        return shown
    size = len(value) if isinstance(value, (str, bytes)) else None
    return shown[:limit] + "..." + (f" ({size:,} characters)" if size is not None else "")
