"""Two-phase search (Busato & Bombieri, *Graph Algorithms on GPUs*, §5.3.4; Davidson et al., Green
et al., Baxter's load balancing).

Before the advance kernel, two helper kernels compute on the device the exclusive prefix sum of
the input elements' out-degrees (``offsets``, |F| + 1 entries in a scratch buffer of the frontier
pool; reduce-then-scan: per-block sums, then each block rescans its segment from its carry). The
advance then balances *work*, not vertices:

* partition: the work of a step is the merge of the element starts (``offsets``) with the edge
  indices 0..units-1 (merge path: an element's start comes before the edges it owns). Each block
  takes chunks of ``threads * items_per_thread`` consecutive merge steps; two of its threads find
  the chunk's ends by binary search over the prefix sum in global memory. A chunk thus holds an
  equal number of steps (edges plus the elements they start), which also bounds how many elements
  it touches, however many of them have no edges (inactive bitmap bits, leaves);
* expansion: the block loads its chunk of the prefix sum into shared memory; each thread
  binary-searches there the start of its ``items_per_thread`` steps and walks them in order,
  visiting one edge per unit step.

All threads, warps and blocks get the same amount of work whatever the degree distribution; the
cost is the two searches and the scattered edge reads each thread makes on its own (what
``"multi_phase"`` fixes).

In a fused traversal (:func:`operators.traverse`) the helper kernels' bodies run inside the
persistent kernel, each over the persistent grid and followed by a grid barrier (two barriers
more per step, each far cheaper than a launch, instead of two launches and a host read per step).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from frontier.frontier import SPARSE, Frontier
from frontier.graph import Graph
from frontier.runtime.target import Target
from operators.balancers import snippets
from operators.balancers.base import Regime, SizedBalancer
from operators.codegen import NONE, KernelIO, KernelSpec, indent, visit_edge
from operators.shape import grid_blocks

#: Static shared memory a block may use (the CUDA limit without opting in to more).
SHARED_LIMIT = 48 * 1024

#: The buffers the helper kernels write and the advance reads.
BUFFERS = ("offsets", "block_sums")


def _segment(spec: KernelSpec) -> str:
    """Helper-kernel statements: this block's contiguous segment ``[first, last)`` of the input
    elements (one segment per block of the launch)."""
    return (f"n_in = {snippets.input_count(spec)}\n"
            "per_block = (n_in + cuda.gridDim.x - 1) // cuda.gridDim.x\n"
            "first = min(cuda.blockIdx.x * per_block, n_in)\n"
            "last = min(first + per_block, n_in)\n")


def reduce_source(spec: KernelSpec, threads: int) -> tuple[str, str]:
    """Helper kernel 1: the out-degree sum of each block's segment, into ``block_sums``."""
    name = f"degree_sums_{spec.input}_{threads}"
    body = (snippets.warp_ids()
            + f"scan_sums = cuda.shared.array({threads // 32}, int64)\n"
            + _segment(spec)
            + "acc = int64(0)\n"
            "for i in range(first + cuda.threadIdx.x, last, cuda.blockDim.x):\n"
            + indent(snippets.degree_of(spec, "i", "deg") + "acc += deg\n")
            + snippets.block_exclusive_scan("acc", "unused", "block_total", "scan_sums")
            + "if cuda.threadIdx.x == 0:\n"
            "    block_sums[cuda.blockIdx.x] = block_total\n")
    return name, body


def scan_source(spec: KernelSpec, threads: int) -> tuple[str, str]:
    """Helper kernel 2: ``offsets[i]`` = out-degrees of the elements before ``i``, for ``i`` in
    ``0..|F|``; each block scans its segment in tiles, starting from the sums of the blocks
    before it."""
    name = f"degree_offsets_{spec.input}_{threads}"
    body = (snippets.warp_ids()
            + f"scan_sums = cuda.shared.array({threads // 32}, int64)\n"
            + _segment(spec)
            + "before = int64(0)\n"
            "for b in range(cuda.threadIdx.x, cuda.blockIdx.x, cuda.blockDim.x):\n"
            "    before += block_sums[b]\n"
            + snippets.block_exclusive_scan("before", "unused", "carry", "scan_sums")
            + "for tile in range(first, last, cuda.blockDim.x):\n"
            + indent("i = tile + cuda.threadIdx.x\n"
                     "deg = int64(0)\n"
                     "if i < last:\n" + indent(snippets.degree_of(spec, "i", "deg"))
                     + snippets.block_exclusive_scan("deg", "rank", "tile_total", "scan_sums")
                     + "if i < last:\n"
                     "    offsets[i] = carry + rank\n"
                     "carry += tile_total\n")
            + "if cuda.blockIdx.x == cuda.gridDim.x - 1 and cuda.threadIdx.x == 0:\n"
            "    offsets[n_in] = carry\n")
    return name, body


@cache
def helpers(kind: str, threads: int) -> tuple[tuple[str, str], ...]:
    """Name and body of the helper kernels for a ``kind`` input, in launch order."""
    spec = KernelSpec("advance", kind, NONE, io=KernelIO.STEP)
    return reduce_source(spec, threads), scan_source(spec, threads)


def merge_path_search(diagonal: str, starts: str, offset: str, items: str, units: str,
                      unit0: str, out: str) -> str:
    """Statements setting ``out`` to how many element starts come before merge step
    ``diagonal`` in the merge of starts ``{starts}[{offset} + k]`` (k < ``items``) with units
    ``unit0 ..`` (``units`` of them); a start goes before a unit it does not exceed."""
    return (f"{out} = max(int64(0), {diagonal} - {units})\n"
            f"search_hi = min({diagonal}, {items})\n"
            f"while {out} < search_hi:\n"
            f"    search_mid = ({out} + search_hi) >> 1\n"
            f"    if {starts}[{offset} + search_mid] <= {unit0} + {diagonal} - search_mid - 1:\n"
            f"        {out} = search_mid + 1\n"
            "    else:\n"
            "        search_hi = search_mid\n")


def vertex_of(spec: KernelSpec, item: str) -> str:
    """Expression: the vertex of input element ``item``."""
    return f"in_ids[{item}]" if spec.input == SPARSE else item


def walk(spec: KernelSpec, steps: int, on_edge: str, before: str = "") -> str:
    """Statements for one thread's share of a chunk: find where local merge step ``diag`` falls
    in the chunk held by ``chunk_starts`` (``chunk_starts[k]`` = offsets[i0 - 1 + k]), run
    ``before`` (with ``unit`` the thread's first unit), and walk ``steps`` merge steps from there,
    running ``on_edge`` with ``src`` and ``e`` bound for each unit step."""
    return (merge_path_search("diag", "chunk_starts", "1", "i1 - i0", "u1 - u0", "u0", "taken")
            + "item = i0 + taken\n"
            "unit = u0 + diag - taken\n"
            "src = 0\n"
            "row = int64(0)\n"
            "unit_base = int64(0)\n"
            "if item > 0:\n"
            f"    src = {vertex_of(spec, 'item - 1')}\n"
            "    row = row_offsets[src]\n"
            "    unit_base = chunk_starts[item - i0]\n"
            + before
            + f"for _ in range({steps}):\n"
            "    if item < i1 and (unit >= u1 or chunk_starts[item - i0 + 1] <= unit):\n"
            f"        src = {vertex_of(spec, 'item')}\n"
            "        row = row_offsets[src]\n"
            "        unit_base = chunk_starts[item - i0 + 1]\n"
            "        item += 1\n"
            "    elif unit < u1:\n"
            "        e = row + (unit - unit_base)\n"
            + indent(on_edge, 2)
            + "        unit += 1\n")


class TwoPhase(SizedBalancer):
    """Merge-path partition of a device-side degree prefix sum, then per-thread expansion of an
    equal number of merge steps."""

    name = "two_phase"
    serves = (Regime.HUBS,)
    parameter = "items_per_thread"

    def __init__(self, items_per_thread: int = 8, threads: int = 256) -> None:
        if items_per_thread < 1:
            raise ValueError(f"items per thread {items_per_thread}; expected >= 1")
        self.items_per_thread = items_per_thread
        self.threads = snippets.check_threads(threads)

    @property
    def chunk(self) -> int:
        """Merge steps a block takes at once."""
        return self.threads * self.items_per_thread

    def shared_bytes(self) -> int:
        """Static shared memory of the advance kernel."""
        return 8 * (self.chunk + 1 + 4)

    def rebound(self, threads: int) -> TwoPhase:
        """The same balancer with ``threads`` threads per block."""
        return TwoPhase(self.items_per_thread, threads)

    def bind(self, graph: Graph, target: Target) -> TwoPhase:
        bound = self.rebound(snippets.block_size(self.threads, target))
        if bound.shared_bytes() > SHARED_LIMIT:
            raise ValueError(f"balancer {self}: {bound.shared_bytes()} bytes of shared memory "
                             f"per block; at most {SHARED_LIMIT}: take fewer items per thread")
        return bound

    def extra_params(self, spec: KernelSpec) -> tuple[str, ...]:
        return BUFFERS

    def phases(self, spec: KernelSpec) -> tuple[tuple[str, str], ...]:
        """The degree prefix sum over the input frontier: per-block sums, then the scan."""
        return helpers(spec.input, self.threads)

    def phase_blocks(self, target: Target, frontier: Frontier) -> int:
        return grid_blocks(target, self.threads, max(frontier.pool.capacity, frontier.universe))

    def buffers(self, spec: KernelSpec, frontier: Frontier) -> dict[str, Any]:
        """``offsets`` (|F| + 1 entries) and the per-block sums, in the pool's scratch: one per
        block of the helper kernels' grid or of the largest persistent grid, whichever is more."""
        pool, target = frontier.pool, frontier.target
        most = max(pool.capacity, frontier.universe)
        blocks = max(self.phase_blocks(target, frontier), target.resident_blocks(self.threads))
        return {"offsets": pool.scratch("two_phase_offsets", most + 1, np.int64),
                "block_sums": pool.scratch("two_phase_block_sums", blocks, np.int64)}

    def _chunk_loop(self, spec: KernelSpec, expansion: str) -> str:
        """The grid-stride loop over chunks: partition by merge-path search in global memory,
        the chunk's prefix sum into shared memory, then ``expansion``."""
        chunk = self.chunk
        partition = ("if cuda.threadIdx.x < 2:\n"
                     f"    corner = min(chunk_d0 + cuda.threadIdx.x * {chunk}, total)\n"
                     + indent(merge_path_search("corner", "offsets", "0", "n_in", "units",
                                                "int64(0)", "corner_items"))
                     + "    chunk_split[2 * cuda.threadIdx.x] = corner_items\n"
                     "    chunk_split[2 * cuda.threadIdx.x + 1] = corner - corner_items\n"
                     "cuda.syncthreads()\n"
                     "i0 = chunk_split[0]\n"
                     "u0 = chunk_split[1]\n"
                     "i1 = chunk_split[2]\n"
                     "u1 = chunk_split[3]\n"
                     "for j in range(cuda.threadIdx.x, i1 - i0 + 1, cuda.blockDim.x):\n"
                     "    chunk_starts[j] = offsets[i0 - 1 + j] if i0 - 1 + j >= 0 else 0\n"
                     "cuda.syncthreads()\n")
        return (f"n_in = {snippets.input_count(spec)}\n"
                "units = offsets[n_in]\n"
                "total = n_in + units\n"
                "chunk_split = cuda.shared.array(4, int64)\n"
                f"chunk_starts = cuda.shared.array({chunk + 1}, int64)\n"
                f"for chunk_d0 in range(cuda.blockIdx.x * {chunk}, total, "
                f"cuda.gridDim.x * {chunk}):\n"
                + indent(partition + expansion + "cuda.syncthreads()\n"))

    def advance_body(self, spec: KernelSpec) -> str:
        k = self.items_per_thread
        expansion = (f"diag = min(cuda.threadIdx.x * {k}, (i1 - i0) + (u1 - u0))\n"
                     + walk(spec, k, visit_edge(spec, "src", "e")))
        return self._chunk_loop(spec, expansion)
