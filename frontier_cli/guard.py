"""The ``frontier`` command's entry point (the installed script and ``python -m frontier_cli``):
:func:`frontier_cli.commands.main` behind a guard that imports nothing but the standard library,
so that Ctrl-C at any moment, also while the library (numpy, Numba, the kernels) is being
imported or compiled, exits 130 with the one line ``frontier: interrupted`` and no traceback.

The handler is installed by this module's first statement, through the C module ``_signal``
(loaded with the interpreter; ``signal`` would first import ``enum`` and build its classes):
the installed script's first instruction is ``from frontier_cli.guard import main``, and the
package's ``__init__`` imports nothing, so no Python code of the command runs before it. An
interrupt that comes while this module is still being imported is held, and :func:`main` then
exits 130 without starting the command (so importing this module takes over Ctrl-C: it is the
command's entry point, not a module to import elsewhere). The guard imports the command only
once its handler is installed: importing :mod:`frontier_cli.commands` imports the whole library
(``frontier/__init__.py`` first). Once the command runs, the SIGINT handler records the
interrupt and raises KeyboardInterrupt, so that the command unwinds (a file being written is
removed, see :mod:`frontier.safefile`) and :func:`frontier_cli.commands.main` reports it.
Third-party code does not always let a KeyboardInterrupt through: an import may turn it into
another error (a C extension's ``ImportError``, a ``RuntimeError`` from ``__set_name__``) or
swallow it, and a ctypes callback inside Numba's compiler prints it as "Exception ignored" and
goes on. So, whatever exception reaches the guard, or none, an interrupted command exits 130;
the "Exception ignored" report of an interrupt is not printed; and a command still running
:data:`GRACE_SECONDS` after the first Ctrl-C (the interrupt was swallowed) is ended then, with
the same line and status. Once the command has finished, a late Ctrl-C is ignored.

What comes before the script's first instruction is the interpreter's own start-up, which no
code of the command can reach: a Ctrl-C before Python has installed its own handler ends the
process by the signal, and one while ``site`` runs the ``.pth`` files of the environment (an
editable install's import hook, numba-cuda's redirector) gets Python's traceback and status 1.
"""

import _signal  # first of all: the C module, loaded with the interpreter, imports nothing

_interrupts: list[int] = []  # the signals received; a list, so the handler needs no global
_running: list[bool] = []  # set once the command runs: an interrupt then raises


def _on_interrupt(signum: int, frame: object) -> None:
    """Record the interrupt; once the command runs, also unwind it (KeyboardInterrupt), and
    start the timer that ends it if the interrupt is swallowed. Before, while this module is
    still being imported, the interrupt is held: :func:`main` then starts no command."""
    if _running and not _interrupts:
        _start_grace_timer()
    _interrupts.append(signum)
    if _running:
        raise KeyboardInterrupt


_signal.signal(_signal.SIGINT, _on_interrupt)

import os  # noqa: E402 - the handler comes before every other import, on purpose
import sys  # noqa: E402
import threading  # noqa: E402
from typing import Any  # noqa: E402

EXIT_INTERRUPTED = 130
#: How long the command may take to stop after Ctrl-C before it is ended without unwinding.
GRACE_SECONDS = 2.0
_MESSAGE = "frontier: interrupted"
_finished = threading.Event()


def _start_grace_timer() -> None:
    timer = threading.Timer(GRACE_SECONDS, _end_now)
    timer.daemon = True  # never keeps the process alive
    timer.start()


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
    code = 0
    try:
        _running.append(True)
        # an interrupt held since start-up, or swallowed by an import: start no work then
        if not _interrupts:
            from frontier_cli.commands import main as command  # after the handler, on purpose

            if not _interrupts:
                code = command()
    except BaseException:
        if not _interrupts:
            raise
    finally:
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
        _finished.set()
    if not _interrupts:
        return code
    if code != EXIT_INTERRUPTED:  # commands.main reports the interrupts it sees itself
        print(_MESSAGE, file=sys.stderr)
    return EXIT_INTERRUPTED
