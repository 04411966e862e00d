"""The ``frontier`` command's entry point (the installed script and ``python -m frontier_cli``):
:func:`frontier_cli.commands.main` behind a guard that imports nothing but the standard library,
so that Ctrl-C at any moment, also while the library (numpy, Numba, the kernels) is being
imported or compiled, exits 130 with the one line ``frontier: interrupted`` and no traceback.

The guard imports the command only once its handler is installed: importing
:mod:`frontier_cli.commands` imports the whole library (``frontier/__init__.py`` first), so the
package's ``__init__`` imports nothing. The SIGINT handler records the interrupt and raises
KeyboardInterrupt, so that the command unwinds (a file being written is removed, see
:mod:`frontier.safefile`) and :func:`frontier_cli.commands.main` reports it. Third-party
code does not always let a KeyboardInterrupt through: an import may turn it into another error
(a C extension's ``ImportError``, a ``RuntimeError`` from ``__set_name__``) or swallow it, and
a ctypes callback inside Numba's compiler prints it as "Exception ignored" and goes on. So,
whatever exception reaches the guard, or none, an interrupted command exits 130; the
"Exception ignored" report of an interrupt is not printed; and a command still running
:data:`GRACE_SECONDS` after the first Ctrl-C (the interrupt was swallowed) is ended then, with
the same line and status. Once the command has finished, a late Ctrl-C is ignored.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any

EXIT_INTERRUPTED = 130
#: How long the command may take to stop after Ctrl-C before it is ended without unwinding.
GRACE_SECONDS = 2.0
_MESSAGE = "frontier: interrupted"
_interrupts: list[int] = []  # the signals received; a list, so the handler needs no global
_finished = threading.Event()


def _on_interrupt(signum: int, frame: object) -> None:
    if not _interrupts:
        timer = threading.Timer(GRACE_SECONDS, _end_now)
        timer.daemon = True  # never keeps the process alive
        timer.start()
    _interrupts.append(signum)
    raise KeyboardInterrupt


def _end_now() -> None:
    """The interrupt was swallowed: end the process without unwinding it."""
    if not _finished.is_set():
        print(_MESSAGE, file=sys.stderr, flush=True)
        os._exit(EXIT_INTERRUPTED)


def _quiet_interrupts(report: Any) -> None:
    """``sys.unraisablehook``: an interrupt that a callback could not raise is reported by the
    one line at the end, not by a traceback; anything else as Python reports it."""
    if not (_interrupts and isinstance(report.exc_value, KeyboardInterrupt)):
        sys.__unraisablehook__(report)


def main() -> int:
    """Run the ``frontier`` command line on ``sys.argv``; its exit status."""
    sys.unraisablehook = _quiet_interrupts
    signal.signal(signal.SIGINT, _on_interrupt)
    code = 0
    try:
        from frontier_cli.commands import main as command  # after the handler, on purpose

        if not _interrupts:  # an import may have swallowed it: do not start the work then
            code = command()
    except BaseException:
        if not _interrupts:
            raise
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        _finished.set()
    if not _interrupts:
        return code
    if code != EXIT_INTERRUPTED:  # commands.main reports the interrupts it sees itself
        print(_MESSAGE, file=sys.stderr)
    return EXIT_INTERRUPTED
