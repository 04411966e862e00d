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
"""

from __future__ import annotations

import ctypes
import os
import sys
from functools import lru_cache
from types import ModuleType

from frontier.runtime import simulator

try:  # the optional dependency: numba-cuda's numba.cuda, Numba's own deprecated one, or none
    from numba import cuda as _cuda
except ImportError:
    _cuda = None

__all__ = ["INSTALL_HINT", "numba_cuda", "driver_gpus", "unused_gpus", "problem", "cuda_problem",
           "cuda_usable", "forked_after_start"]

#: How to get the GPU support, in the words of a message.
INSTALL_HINT = ("pip install 'frontier-graph[cuda12]' (or [cuda13]; [cuda] with a system CUDA "
                "toolkit) to run on it")
#: The NVIDIA driver's library, by platform (none on macOS).
_DRIVER_LIBRARY = {"win32": "nvcuda.dll", "darwin": None}.get(sys.platform, "libcuda.so.1")


def numba_cuda() -> ModuleType | None:
    """numba-cuda's ``numba.cuda`` module, or None where numba-cuda is not installed (Numba's
    own deprecated ``numba.cuda``, or none at all)."""
    return None if getattr(_cuda, "implementation", None) == "Built-in" else _cuda


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
    return driver_gpus() if numba_cuda() is None else 0


def problem(simulated: bool) -> str | None:
    """None where kernels can run (a GPU with numba-cuda, or the simulator, ``simulated``),
    else why not, one sentence ending in what to do."""
    if simulated:
        if _cuda is None:  # the simulator is a part of numba.cuda
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
    """True when a GPU (or the simulator) can run kernels; :func:`cuda_problem` says why not."""
    return cuda_problem() is None


# a forked process asks again: its parent's answer does not hold if the driver was started
os.register_at_fork(after_in_child=cuda_usable.cache_clear)


def forked_after_start() -> bool:
    """Whether this process was forked from one that had started the CUDA driver (which then
    refuses every call of this process)."""
    try:
        from numba.cuda.cudadrv.driver import driver
    except Exception:  # noqa: BLE001 - no CUDA support at all: nothing was started
        return False
    started = getattr(driver, "pid", None)
    return started is not None and started != os.getpid()
