"""Whether this environment can run CUDA kernels, and if not, what is missing: the Numba CUDA
package (``numba-cuda``, an extra of this library: ``pip install 'frontier-graph[cuda12]'``),
an NVIDIA driver with a GPU, or both.

The base install holds no CUDA package, so that a machine without a GPU downloads none; the
library then runs on the cpu target. Numba up to 0.68 still ships a deprecated ``numba.cuda`` of
its own (``numba.cuda.implementation == "Built-in"``), which the library does not use for the GPU:
only numba-cuda's (``"NVIDIA"``: any that does not say ``"Built-in"``) counts. Where numba-cuda
is missing, the NVIDIA driver is asked directly (``cuInit``, ``cuDeviceGetCount`` through
ctypes) whether the machine has a GPU, so that a GPU machine installed without the extra is told
how to use its GPU, and a machine without one is not told anything.

:func:`cuda_usable` decides with :func:`cuda_problem` (which adds the one refusal of a process
forked after its parent started the driver, :func:`forked_after_start`); nothing else here is
called on the way of a kernel.

``numba.cuda`` is imported when the library first needs it (:func:`cuda_module`), not with the
library: its import costs more than Numba's own, and a machine without a GPU runs every call on
the cpu target. Outside the simulator, :func:`cuda_usable` first looks for the
NVIDIA driver's library where numba-cuda looks for it (:func:`driver_found`, a ``dlopen`` that
fails at once where there is none): without it no GPU is usable, whatever is installed, and
``numba.cuda`` stays unimported. What functors call on every target registers its CUDA version
with :func:`on_load` (the atomics, random numbers, device functions), run when ``numba.cuda``
is loaded, before anything is compiled for CUDA.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import sys
import threading
from collections.abc import Callable
from functools import lru_cache
from types import ModuleType
from typing import Any

from frontier.runtime import simulator

__all__ = ["INSTALL_HINT", "cuda_module", "on_load", "cuda_overload", "numba_cuda",
           "driver_found", "driver_gpus", "unused_gpus", "problem", "cuda_problem",
           "cuda_usable", "forked_after_start"]

#: How to get the GPU support, in the words of a message.
INSTALL_HINT = ("pip install 'frontier-graph[cuda12]' (or [cuda13]; [cuda] with a system CUDA "
                "toolkit) to run on it")
#: The NVIDIA driver's library, by platform (none on macOS).
_DRIVER_LIBRARY = {"win32": "nvcuda.dll", "darwin": None}.get(sys.platform, "libcuda.so.1")
#: Where numba-cuda looks for the driver's library (its ``locate_driver_and_loader``): the
#: names in the loader's search path, then the same names in common directories.
_DRIVER_NAMES, _DRIVER_DIRECTORIES = {
    "win32": (("nvcuda.dll",), ("\\windows\\system32",)),
    "darwin": (("libcuda.dylib",), ("/usr/local/cuda/lib",)),
}.get(sys.platform, (("libcuda.so", "libcuda.so.1"), ("/usr/lib", "/usr/lib64")))

#: numba.cuda once the library loaded it and ran the registrations: ``[module]`` (``[None]``
#: where there is none), empty before; the module while they run (read by the loading thread
#: alone: the others wait for the lock); the registrations of :func:`on_load` waiting for it;
#: the lock of all three (reentrant: a registration reads the module, and may register another).
_LOADED: list[ModuleType | None] = []
_LOADING: list[ModuleType] = []
_ON_LOAD: list[Callable[[ModuleType], None]] = []
_LOAD_LOCK = threading.RLock()


def cuda_module() -> ModuleType | None:
    """``numba.cuda`` (numba-cuda's, Numba's own deprecated one, or the simulator's), imported
    on the first call, whichever thread makes it, with every registration of :func:`on_load`
    run before any other thread gets it; None where Numba has no ``numba.cuda``."""
    if _LOADED:
        return _LOADED[0]
    with _LOAD_LOCK:
        if _LOADED:
            return _LOADED[0]
        if _LOADING:  # asked by a registration running below
            return _LOADING[0]
        try:  # the optional dependency: numba-cuda, Numba's own deprecated one, or none
            module: ModuleType | None = importlib.import_module("numba.cuda")
        except ImportError:
            module = None
        if module is not None:
            _LOADING.append(module)
            try:
                while _ON_LOAD:
                    _ON_LOAD.pop(0)(module)
            finally:
                _LOADING.clear()
        _ON_LOAD.clear()
        _LOADED.append(module)
        return module


def on_load(register: Callable[[ModuleType], None]) -> None:
    """Run ``register(numba.cuda)`` when :func:`cuda_module` loads it, or now where it has (or
    is loading it in this thread); never where there is no numba.cuda."""
    with _LOAD_LOCK:
        module = _LOADED[0] if _LOADED else (_LOADING[0] if _LOADING else None)
        if module is not None:
            register(module)
        elif not _LOADED:
            _ON_LOAD.append(register)


def cuda_overload() -> Callable[..., Any] | None:
    """numba.cuda's ``overload`` (:func:`cuda_module` loaded), for the registrations of
    :func:`on_load`; None where it has none."""
    if cuda_module() is None:
        return None
    try:
        extending = importlib.import_module("numba.cuda.extending")
    except ImportError:  # a numba.cuda without the CUDA typing layer
        return None
    return getattr(extending, "overload", None)  # none in Numba's own deprecated numba.cuda


def numba_cuda() -> ModuleType | None:
    """numba-cuda's ``numba.cuda`` module (:func:`cuda_module`), or None where numba-cuda is not
    installed (Numba's own deprecated ``numba.cuda``, or none at all)."""
    cuda = cuda_module()
    return None if getattr(cuda, "implementation", None) == "Built-in" else cuda


def _simulator_made_faithful(cuda: ModuleType) -> None:
    """In the simulator, its corrections (:func:`frontier.runtime.simulator.make_faithful`),
    made as it is loaded."""
    if simulator.enabled():
        simulator.make_faithful()


on_load(_simulator_made_faithful)


@lru_cache(maxsize=1)
def driver_found() -> bool:
    """Whether the NVIDIA driver's library loads from where numba-cuda looks for it: where it
    does not, no GPU is usable here (asked without Numba; the driver is not started)."""
    candidates = (*_DRIVER_NAMES,
                  *(os.path.join(d, n) for d in _DRIVER_DIRECTORIES for n in _DRIVER_NAMES))
    for candidate in candidates:
        try:
            ctypes.CDLL(candidate)
        except OSError:
            continue
        return True
    return False


def driver_gpus() -> int:
    """The number of GPUs the NVIDIA driver reports, 0 where there is no driver or it reports
    none (asked through ctypes, without Numba)."""
    if _DRIVER_LIBRARY is None:
        return 0
    try:
        driver = ctypes.CDLL(_DRIVER_LIBRARY)
        if driver.cuInit(0) != 0:
            return 0
        count = ctypes.c_int(0)
        return count.value if driver.cuDeviceGetCount(ctypes.byref(count)) == 0 else 0
    except (OSError, AttributeError):  # no driver library, or not the one expected
        return 0


def unused_gpus() -> int:
    """The GPUs the NVIDIA driver reports where numba-cuda is not installed (so the library
    cannot use them), 0 where it is or there are none."""
    if not driver_found():
        return 0
    return driver_gpus() if numba_cuda() is None else 0


def problem(simulated: bool) -> str | None:
    """None where kernels can run (a GPU with numba-cuda, or the simulator, ``simulated``),
    else why not, one sentence ending in what to do."""
    if simulated:
        if cuda_module() is None:  # the simulator is a part of numba.cuda
            return ("NUMBA_ENABLE_CUDASIM=1 is set, but Numba has no CUDA simulator here: "
                    "pip install numba-cuda")
        return None
    cuda = numba_cuda()
    if cuda is None:
        gpus = unused_gpus()
        if gpus:
            return (f"this machine has {gpus} NVIDIA GPU{'s' if gpus > 1 else ''}, but "
                    f"numba-cuda is not installed: {INSTALL_HINT}")
        return ("no CUDA GPU is usable here: no NVIDIA GPU found, and numba-cuda is not "
                "installed (set NUMBA_ENABLE_CUDASIM=1 with numba-cuda installed to run the "
                "kernels in the simulator)")
    try:
        available = bool(cuda.is_available())
    except Exception:  # noqa: BLE001 - any driver/toolkit failure means "not usable"
        available = False
    if not available:
        return ("no CUDA GPU is usable here: numba.cuda.is_available() is False (no NVIDIA "
                "driver, no GPU or no CUDA toolkit; set NUMBA_ENABLE_CUDASIM=1 to run the "
                "kernels in the simulator)")
    return None


def cuda_problem() -> str | None:
    """None when a GPU (or the simulator) can run kernels, else why not, in one sentence that
    says what to do (:func:`problem`: numba-cuda missing, with or without a GPU; no usable GPU;
    or a process forked after its parent started the driver)."""
    if not simulator.enabled() and forked_after_start():
        return ("this process was forked after its parent started the CUDA driver, which "
                "refuses such a process; start worker processes with the 'spawn' or "
                "'forkserver' method")
    return problem(simulator.enabled())


@lru_cache(maxsize=1)
def cuda_usable() -> bool:
    """True when a GPU (or the simulator) can run kernels; :func:`cuda_problem` says why not.
    Outside the simulator, False without importing numba.cuda where the driver's library is
    not found (:func:`driver_found`)."""
    if not simulator.enabled() and not driver_found():
        return False
    return cuda_problem() is None


# a forked process asks again: its parent's answer does not hold if the driver was started
os.register_at_fork(after_in_child=cuda_usable.cache_clear)


def forked_after_start() -> bool:
    """Whether this process was forked from one that had started the CUDA driver (which then
    refuses every call of this process; a fork keeps its parent's modules: one that never
    imported numba-cuda's driver never started it)."""
    module = sys.modules.get("numba.cuda.cudadrv.driver")
    started = getattr(getattr(module, "driver", None), "pid", None)
    return started is not None and started != os.getpid()
