"""Dynamic virtual warps with a block-level gather for hubs (Busato & Bombieri, *Graph Algorithms on
GPUs*, §5.2.1; BFS-4K).

At every advance the kernel picks the virtual-warp width from the frontier's size, on the device:
the power of two nearest to (threads in the launch) / |F|, clamped to ``[min_width, 32]``, so a
small frontier gets wide virtual warps (coalesced, many lanes per vertex) and a large one narrow
ones (every vertex gets lanes at all). |F| is the frontier length in device memory, so the choice
costs no host read. Virtual warps then work as in ``"warp"`` (Busato & Bombieri, Algorithm 8).

BFS-4K hands vertices whose degree passes a threshold to dynamic parallelism (a child kernel per
hub). Numba has no device-side launches, so here a virtual warp that meets such a vertex defers it
to its block: the block collects the hubs of each turn in shared memory and then gathers each hub's
edges with all of its threads (the strip-mined block gather of Busato & Bombieri, Algorithm 9). The
default threshold is the block size: a vertex with more edges than the block has threads.
"""

from __future__ import annotations

from frontier.graph import Graph
from frontier.runtime.target import Target
from operators.balancers import snippets
from operators.balancers.base import Regime, SizedBalancer
from operators.balancers.warp import WIDTHS, virtual_warp_edges
from operators.codegen import KernelSpec, indent, visit_edge


class DynamicWarp(SizedBalancer):
    """Virtual warps whose width follows |F| at each advance; hubs gathered by whole blocks."""

    name = "dynamic_warp"
    serves = (Regime.HEAVY, Regime.BLIND)
    parameter = "min_width"

    def __init__(self, min_width: int = 4, threads: int = 256,
                 threshold: int | None = None) -> None:
        if min_width not in WIDTHS:
            raise ValueError(f"smallest virtual warp width {min_width}; expected one of {WIDTHS}")
        if threshold is not None and threshold < 1:
            raise ValueError(f"hub threshold {threshold}; expected a degree >= 1")
        self.min_width = min_width
        self.threads = snippets.check_threads(threads)
        self.threshold = threshold

    def bind(self, graph: Graph, target: Target) -> DynamicWarp:
        threads = snippets.block_size(self.threads, target)
        return DynamicWarp(self.min_width, threads, self.threshold or threads)

    def advance_body(self, spec: KernelSpec) -> str:
        threshold = self.threshold or self.threads
        hubs = self.threads // self.min_width  # most elements a block takes in one turn
        turn = ("dw_i = dw_base + group\n"
                + snippets.load_element(spec, "dw_i", "n_in", "vlane == 0")
                + f"if end - beg > {threshold}:\n"
                "    hub_list[cuda.atomic.add(hub_count, parity, 1)] = src\n"
                "    end = beg\n"
                + virtual_warp_edges(spec, "vw")
                + "cuda.syncthreads()\n"
                "for j in range(hub_count[parity]):\n"
                "    hub = hub_list[j]\n"
                "    for e in range(row_offsets[hub] + cuda.threadIdx.x, row_offsets[hub + 1], "
                "cuda.blockDim.x):\n" + indent(visit_edge(spec, "hub", "e"), 2)
                + "cuda.syncthreads()\n"
                "if cuda.threadIdx.x == 0:\n"
                "    hub_count[parity] = 0\n"
                "parity ^= 1\n")
        return ("lane = cuda.threadIdx.x & 31\n"
                "dw_ratio = nthreads // max(lens[in_slot], 1)\n"
                f"vw = {self.min_width}\n"
                "while vw < 32 and dw_ratio * dw_ratio >= 2 * vw * vw:\n"
                "    vw *= 2\n"
                "vlane = lane & (vw - 1)\n"
                "group = cuda.threadIdx.x // vw\n"
                "per_block = cuda.blockDim.x // vw\n"
                f"hub_list = cuda.shared.array({hubs}, int32)\n"
                "hub_count = cuda.shared.array(2, int32)\n"
                "if cuda.threadIdx.x == 0:\n"
                "    hub_count[0] = 0\n"
                "    hub_count[1] = 0\n"
                "cuda.syncthreads()\n"
                "parity = 0\n"
                f"n_in = {snippets.input_count(spec)}\n"
                "for dw_base in range(cuda.blockIdx.x * per_block, n_in, "
                "cuda.gridDim.x * per_block):\n" + indent(turn))
