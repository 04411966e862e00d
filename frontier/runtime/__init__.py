"""The device runtime: where kernels run and how they get there, below the graph model.

Targets (:mod:`~frontier.runtime.target`: memory, compilation and launching on the GPU or the
sequential cpu target), launches (:mod:`~frontier.runtime.launch`), device memory
(:mod:`~frontier.runtime.device_pool`, :mod:`~frontier.runtime.pinned`,
:mod:`~frontier.runtime.device_arrays`), compiled code kept between processes
(:mod:`~frontier.runtime.kernel_cache`, :mod:`~frontier.runtime.numba_cache`,
:mod:`~frontier.runtime.cache_dir`), the GPU's start (:mod:`~frontier.runtime.cuda_support`,
:mod:`~frontier.runtime.early_context`, :mod:`~frontier.runtime.interrupts`), the simulator's
corrections, recordings, the race detector's machinery, and what functors call inside kernels
(atomics, random numbers, warp intrinsics, device functions). Nothing here imports the graph
model (``frontier.graph``, its loaders, frontiers or the rule of ``target="auto"``, which live
in :mod:`frontier` above it): an import-linter contract keeps it so.
"""
