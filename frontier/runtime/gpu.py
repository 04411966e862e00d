"""The pieces of numba-cuda that only a real GPU has: the driver and its bindings, Numba's device
array and pointer classes, the CUDA target's descriptor, compiler lock and disk-cache
implementation, and what the fast launcher (:mod:`frontier.runtime.launch`) reads.

Imported where a real GPU starts: the cuda target made on a GPU
(:class:`frontier.runtime.target.CudaTarget`, which hands the pieces to its launcher and device
pool) and the loading of the CUDA target's registries
(:func:`frontier.runtime.interrupts.prepare_numba`). The CUDA simulator and a machine without
numba-cuda never import it: numba-cuda's simulator has none of these.
"""

from __future__ import annotations

from numba.cuda import types
from numba.cuda.core.caching import CacheImpl
from numba.cuda.core.compiler_lock import global_compiler_lock
from numba.cuda.cudadrv import driver as driver_module
from numba.cuda.cudadrv.devicearray import DeviceNDArray
from numba.cuda.cudadrv.driver import AutoFreePointer, binding, driver
from numba.cuda.descriptor import cuda_target

try:  # the fast launcher's pieces: not in every numba-cuda (then launches go through Numba)
    from cuda.core import LaunchConfig, launch
    from numba.cuda._compat import CUDA_CORE_GE_1_0
    from numba.cuda.dispatcher import _Kernel
except ImportError:
    LaunchConfig = launch = _Kernel = None
    CUDA_CORE_GE_1_0 = False

__all__ = ["types", "CacheImpl", "global_compiler_lock", "driver_module", "DeviceNDArray",
           "AutoFreePointer", "binding", "driver", "cuda_target", "LaunchConfig", "launch",
           "CUDA_CORE_GE_1_0", "_Kernel"]
