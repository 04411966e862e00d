"""Warp-level intrinsics that generated kernels call by plain names, on CUDA and in the simulator.

Load balancers that cooperate within a warp (Busato & Bombieri, *Graph Algorithms on GPUs*:
§5.1.2 virtual warps, §5.2.1 dynamic virtual warps, §5.2.2 CTA+warp+scan, §5.5 coalesced
expansion) exchange values between lanes with shuffles and votes. Generated source calls them by
the names below; :func:`intrinsics` is the one place that decides what those names mean: Numba
CUDA's ``*_sync`` intrinsics on a GPU, or the faithful Python versions of
:mod:`frontier.runtime.simulated_warp` in Numba's CUDA simulator, which has none.

The names and their semantics (a warp is 32 consecutive ``threadIdx.x`` of a block; ``mask`` is a
32-bit lane mask; every lane named in ``mask`` must make the same call, and the calling lane must
be in ``mask``):

* ``shfl_idx(mask, value, src_lane, width)``: the ``value`` of lane ``src_lane % width`` of the
  caller's ``width``-lane segment (CUDA's ``__shfl_sync``);
* ``shfl_up(mask, value, delta, width)``: the ``value`` of the lane ``delta`` below the caller, or
  the caller's own ``value`` where that lane lies below its segment (``__shfl_up_sync``);
* ``ballot(mask, predicate)``: a uint32 whose bit ``i`` is set when lane ``i`` is in ``mask`` and
  its predicate is true (``__ballot_sync``);
* ``syncwarp(mask)``: a barrier among the lanes of ``mask`` (``__syncwarp``);
* ``ffs(x)``: one plus the index of the least significant set bit of the 32-bit ``x``, 0 if none.

``value`` is a 32- or 64-bit integer or float (as for Numba's ``shfl_sync``); ``width`` is a power
of two from 1 to 32.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from numba import uint32

from frontier.runtime import cuda_support, simulated_warp

__all__ = ["intrinsics", "NAMES", "FULL_MASK"]

#: The names generated source may call.
NAMES = ("shfl_idx", "shfl_up", "ballot", "syncwarp", "ffs")

#: All 32 lanes.
FULL_MASK = 0xFFFFFFFF


def intrinsics(simulated: bool) -> dict[str, Any]:
    """Name -> implementation of every warp intrinsic: the simulator's Python versions when
    ``simulated``, else CUDA device functions over Numba's intrinsics."""
    if simulated:
        return {name: getattr(simulated_warp, name) for name in NAMES}
    return dict(_cuda_intrinsics())


@lru_cache(maxsize=1)
def _cuda_intrinsics() -> tuple[tuple[str, Any], ...]:
    cuda = cuda_support.cuda_module()

    @cuda.jit(device=True)
    def shfl_idx(mask, value, src_lane, width):
        lane = cuda.laneid
        return cuda.shfl_sync(mask, value, (lane & ~(width - 1)) | (src_lane & (width - 1)))

    @cuda.jit(device=True)
    def shfl_up(mask, value, delta, width):
        lane = cuda.laneid
        src = lane - delta if (lane & (width - 1)) >= delta else lane
        return cuda.shfl_sync(mask, value, src)

    @cuda.jit(device=True)
    def ballot(mask, predicate):
        return uint32(cuda.ballot_sync(mask, predicate))

    @cuda.jit(device=True)
    def syncwarp(mask):
        cuda.syncwarp(mask)

    @cuda.jit(device=True)
    def ffs(x):
        return cuda.ffs(uint32(x))

    found = {"shfl_idx": shfl_idx, "shfl_up": shfl_up, "ballot": ballot, "syncwarp": syncwarp,
             "ffs": ffs}
    return tuple((name, found[name]) for name in NAMES)
