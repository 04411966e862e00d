"""The GPU's context, made while the process is still starting.

A process's first call on the GPU waits for the CUDA driver to start and for the device's
context to be made (``cuInit`` and the primary context), a fixed cost of every new process that
is larger than the whole call once the kernels come from the disk cache
(:mod:`frontier.runtime.kernel_cache`). ``import frontier`` therefore starts a background thread
that makes the context and then loads Numba CUDA's registries (:func:`start`), while the rest of
the import and the user's own preparation (loading or generating the graph) run; the first call
then finds both done, or waits only for what is left. The driver's calls release the
interpreter's lock and run beside the import; the registries are Python, run under Numba's
compiler lock (no compilation in another thread sees them half loaded) and, outside the main
thread, cannot be cut by Ctrl-C (:mod:`frontier.runtime.interrupts`).

Where it does not start: under the CUDA simulator; in a process started by ``multiprocessing``
or a Dask worker's nanny (``multiprocessing.parent_process()`` is not None: a pool of CPU
workers on a GPU machine must not make a context each); in a process with a limit on its address
space (``ulimit -v``: the driver reserves far more address space than it uses, which would
leave the process's own allocations none, :mod:`frontier.limits`); and when the environment variable
``FRONTIER_EARLY_CONTEXT`` is ``0``. Without a usable GPU the thread finds none and ends; where
the NVIDIA driver's library is found (:func:`~frontier.runtime.cuda_support.driver_found`),
:func:`start` imports ``numba.cuda`` itself first, in the importing thread (the thread then
imports nothing that the rest of the library's import could be importing at the same time), and
where it is not, nothing imports ``numba.cuda``.

A process forked from one whose driver was started cannot use the GPU (the CUDA driver refuses
it). A fork waits for the thread to end (:func:`wait`), and
:func:`~frontier.runtime.cuda_support.forked_after_start` tells such a process apart, so that
``target="auto"`` runs it on the cpu target and ``target="cuda"`` refuses it with a clear error.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import resource
import threading

from frontier.runtime import simulator
from frontier.runtime.cuda_support import cuda_module, cuda_usable, driver_found, numba_cuda
from frontier.runtime.interrupts import prepare_numba

#: The environment variable that turns the early context off (value ``0``).
ENVIRONMENT = "FRONTIER_EARLY_CONTEXT"

_THREAD: threading.Thread | None = None
_LOCK = threading.Lock()


def wanted() -> bool:
    """Whether this process makes its GPU context early (see the module's text)."""
    if os.environ.get(ENVIRONMENT, "1").strip() == "0":
        return False
    if simulator.enabled():
        return False
    if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
        return False  # the driver's address-space reservations would eat a process's limit
    return multiprocessing.parent_process() is None


def start() -> threading.Thread | None:
    """Start making the GPU's context in a background thread, once per process, where
    :func:`wanted`; the thread (or None where not wanted)."""
    global _THREAD
    with _LOCK:
        if _THREAD is None and wanted():
            if driver_found():
                cuda_module()
            _THREAD = threading.Thread(target=_make, name="frontier-early-context",
                                       daemon=True)
            _THREAD.start()
        return _THREAD


def wait(timeout: float | None = 60.0) -> None:
    """Wait until the thread of :func:`start` (if any) has ended. Run before the process forks
    (a child forked in the middle of the driver's start would find it half made) and at exit
    (the driver's own teardown must not run beside it)."""
    thread = _THREAD
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout)


os.register_at_fork(before=wait)
atexit.register(wait)


def _make() -> None:
    """Make the context of the current device if a GPU is usable, then load Numba CUDA's typing
    and lowering registries (:func:`frontier.runtime.interrupts.prepare_numba`, which the first GPU
    target would otherwise do in the first call); any failure is left for the first call on
    the GPU to report, where the user asked for it."""
    try:
        if cuda_usable():
            numba_cuda().current_context()
            prepare_numba("cuda")
    except Exception:  # noqa: BLE001 - reported by the first call that needs the GPU
        return
