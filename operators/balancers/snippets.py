"""Source snippets the cooperative load balancers share (Busato & Bombieri, *Graph Algorithms on
GPUs*, §5).

Balancers in which a group of threads (a virtual warp, a warp, a block) works on one frontier
element need block- or warp-uniform loops over the input, the element's edge range, and block-wide
prefix sums. All snippets
are text for the code generator, valid both as Numba CUDA and in the CUDA simulator.

Names the snippets define and expect: ``lane``, ``warp_id``, ``nwarps`` (from :func:`warp_ids`),
``FULL`` (the all-lanes mask), the warp intrinsics of :mod:`frontier.runtime.warp_intrinsics`, and
the dtypes ``int32``/``int64`` (all in :func:`namespace`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frontier.runtime.target import Target
from frontier.runtime.warp_intrinsics import FULL_MASK
from operators.codegen import DENSE, SPARSE, KernelSpec, indent, is_active

WARP_SIZE = 32


def namespace() -> dict[str, Any]:
    """Globals the snippets refer to beyond the code generator's standard ones."""
    return {"FULL": FULL_MASK, "int32": np.int32, "int64": np.int64}


def check_threads(threads: int) -> int:
    """``threads`` if it is a valid block size for a cooperative balancer: a multiple of the warp
    size (warp-level code needs whole warps) from 32 to 1024."""
    if threads < WARP_SIZE or threads > 1024 or threads % WARP_SIZE:
        raise ValueError(f"threads per block {threads}; expected a multiple of 32 in 32..1024")
    return threads


def block_size(requested: int, target: Target) -> int:
    """Threads per block for a cooperative balancer: ``requested`` capped by the target, still a
    multiple of the warp size."""
    capped = min(check_threads(requested), target.max_threads_per_block)
    return max(WARP_SIZE, capped // WARP_SIZE * WARP_SIZE)


def warp_ids() -> str:
    """Statements defining ``lane``, ``warp_id`` (in the block) and ``nwarps`` (in the block)."""
    return ("lane = cuda.threadIdx.x & 31\n"
            "warp_id = cuda.threadIdx.x >> 5\n"
            "nwarps = cuda.blockDim.x >> 5\n")


def input_count(spec: KernelSpec) -> str:
    """Expression: how many input elements the loops range over (a sparse queue's length, read
    on the device; every vertex for a bitmap)."""
    if spec.input == SPARSE:
        return "min(lens[in_slot], in_ids.shape[0])"
    if spec.input == DENSE:
        return "universe"
    raise ValueError(f"advance input {spec.input!r}")


def load_element(spec: KernelSpec, index: str, count: str, condition: str = "True") -> str:
    """Statements binding ``src``, ``beg``, ``end`` to input element ``index`` (its vertex and
    edge range) where ``index < count`` and ``condition`` hold and the element is active; to
    ``0, 0, 0`` (no edges) elsewhere."""
    text = "src = 0\nbeg = 0\nend = 0\n"
    if spec.input == SPARSE:
        return (text + f"if {condition} and {index} < {count}:\n"
                f"    src = in_ids[{index}]\n"
                "    beg = row_offsets[src]\n"
                "    end = row_offsets[src + 1]\n")
    return (text + f"if {condition} and {index} < {count}:\n"
            f"    if {is_active('in_words', index)}:\n"
            f"        src = {index}\n"
            "        beg = row_offsets[src]\n"
            "        end = row_offsets[src + 1]\n")


def degree_of(spec: KernelSpec, index: str, out: str) -> str:
    """Statements setting ``out`` to the out-degree of input element ``index`` (0 where a bitmap
    does not hold it), for ``index`` known to be in range."""
    if spec.input == SPARSE:
        return (f"deg_v = in_ids[{index}]\n"
                f"{out} = row_offsets[deg_v + 1] - row_offsets[deg_v]\n")
    return (f"{out} = 0\n"
            f"if {is_active('in_words', index)}:\n"
            f"    {out} = row_offsets[{index} + 1] - row_offsets[{index}]\n")


def warp_inclusive_scan(var: str) -> str:
    """Statements replacing ``var`` (an int64 in every lane of a full warp) by its inclusive
    prefix sum over the warp (Kogge-Stone with ``shfl_up``)."""
    text = ""
    for delta in (1, 2, 4, 8, 16):
        text += (f"scan_up = shfl_up(FULL, {var}, {delta}, 32)\n"
                 f"if lane >= {delta}:\n"
                 f"    {var} += scan_up\n")
    return text


def block_exclusive_scan(value: str, out: str, total: str, sums: str) -> str:
    """Statements setting ``out`` to the exclusive prefix sum of ``value`` over the block (in
    thread order) and ``total`` to the block's sum. Every thread of the block must run them;
    ``sums`` is a shared int64 array of at least ``blockDim.x / 32`` entries. Three barriers:
    the last keeps ``sums`` intact until every thread has read it."""
    return (f"scan_x = int64({value})\n"
            + warp_inclusive_scan("scan_x")
            + f"if lane == 31:\n    {sums}[warp_id] = scan_x\n"
            "cuda.syncthreads()\n"
            "if warp_id == 0:\n"
            f"    scan_w = {sums}[lane] if lane < nwarps else int64(0)\n"
            + indent(warp_inclusive_scan("scan_w"))
            + f"    if lane < nwarps:\n        {sums}[lane] = scan_w\n"
            "cuda.syncthreads()\n"
            f"{out} = scan_x - int64({value})\n"
            f"if warp_id > 0:\n    {out} += {sums}[warp_id - 1]\n"
            f"{total} = {sums}[nwarps - 1]\n"
            "cuda.syncthreads()\n")
