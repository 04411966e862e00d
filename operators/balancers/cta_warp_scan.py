"""CTA+warp+scan (Busato & Bombieri, *Graph Algorithms on GPUs*, §5.2.2, Algorithm 9; Merrill,
Garland and Grimshaw's BFS gather).

Blocks take the frontier in tiles of one element per thread; each thread loads its element's
vertex and edge range, then the tile's edges are gathered in three phases:

1. CTA: while any thread of the block holds more edges than the block has threads (the CTA
   threshold), the holders race to write their id to shared memory; the winner publishes its edge
   range and all threads of the block stride over it (strip-mined gathering, Algorithm 9, with
   ``syncthreads_or`` as the ``any``).
2. Warp: while any lane of a warp holds more than 32 edges, the warp elects the lowest such lane
   (``ballot`` + ``ffs``), broadcasts its range with shuffles, and the 32 lanes stride over it; no
   block barrier is needed.
3. Scan: the remaining small ranges are ranked by a block-wide prefix sum (warp shuffles, then the
   warp totals in shared memory); threads scatter their edge offsets into a shared buffer of one
   entry per thread at their ranks, and the block reads the buffer back one edge per thread, so
   consecutive threads process consecutive work, iterating until the tile's edges are done.
"""

from __future__ import annotations

from frontier.graph import Graph
from frontier.runtime.target import Target
from operators.balancers import snippets
from operators.balancers.base import SizedBalancer
from operators.codegen import KernelSpec, indent, visit_edge

WARP_THRESHOLD = 32


class CtaWarpScan(SizedBalancer):
    """Merrill et al.'s three-phase gather: CTA for hubs, warps for medium, scan for the rest."""

    name = "cta_warp_scan"

    def __init__(self, threads: int = 256) -> None:
        self.threads = snippets.check_threads(threads)

    def bind(self, graph: Graph, target: Target) -> CtaWarpScan:
        return CtaWarpScan(snippets.block_size(self.threads, target))

    def advance_body(self, spec: KernelSpec) -> str:
        block = self.threads
        cta = ("while cuda.syncthreads_or(int32(end - beg > cta_threshold)):\n"
               "    if end - beg > cta_threshold:\n"
               "        cta_winner[0] = cuda.threadIdx.x\n"
               "    cuda.syncthreads()\n"
               "    if cta_winner[0] == cuda.threadIdx.x:\n"
               "        cta_range[0] = src\n"
               "        cta_range[1] = beg\n"
               "        cta_range[2] = end\n"
               "        beg = end\n"
               "    cuda.syncthreads()\n"
               "    cta_v = cta_range[0]\n"
               "    for e in range(cta_range[1] + cuda.threadIdx.x, cta_range[2], "
               "cuda.blockDim.x):\n" + indent(visit_edge(spec, "cta_v", "e"), 2))
        warp = (f"votes = ballot(FULL, end - beg > {WARP_THRESHOLD})\n"
                "while votes != 0:\n"
                "    winner = ffs(votes) - 1\n"
                "    warp_v = shfl_idx(FULL, src, winner, 32)\n"
                "    warp_beg = shfl_idx(FULL, beg, winner, 32)\n"
                "    warp_end = shfl_idx(FULL, end, winner, 32)\n"
                "    if lane == winner:\n"
                "        beg = end\n"
                "    for e in range(warp_beg + lane, warp_end, 32):\n"
                + indent(visit_edge(spec, "warp_v", "e"), 2)
                + f"    votes = ballot(FULL, end - beg > {WARP_THRESHOLD})\n")
        scan = (snippets.block_exclusive_scan("end - beg", "rank", "scan_total", "scan_sums")
                + "scan_done = int64(0)\n"
                "while scan_done < scan_total:\n"
                "    while beg < end and rank < scan_done + cuda.blockDim.x:\n"
                "        gather_e[rank - scan_done] = beg\n"
                "        gather_src[rank - scan_done] = src\n"
                "        rank += 1\n"
                "        beg += 1\n"
                "    cuda.syncthreads()\n"
                "    if scan_done + cuda.threadIdx.x < scan_total:\n"
                "        gather_v = gather_src[cuda.threadIdx.x]\n"
                "        gathered = gather_e[cuda.threadIdx.x]\n"
                + indent(visit_edge(spec, "gather_v", "gathered"), 2)
                + "    scan_done += cuda.blockDim.x\n"
                "    cuda.syncthreads()\n")
        tile = ("cws_i = cws_base + cuda.threadIdx.x\n"
                + snippets.load_element(spec, "cws_i", "n_in") + cta + warp + scan)
        return (snippets.warp_ids()
                + f"cta_threshold = {block}\n"
                "cta_winner = cuda.shared.array(1, int32)\n"
                "cta_range = cuda.shared.array(3, int64)\n"
                f"scan_sums = cuda.shared.array({block // 32}, int64)\n"
                f"gather_e = cuda.shared.array({block}, int64)\n"
                f"gather_src = cuda.shared.array({block}, int32)\n"
                f"n_in = {snippets.input_count(spec)}\n"
                "for cws_base in range(cuda.blockIdx.x * cuda.blockDim.x, n_in, "
                "cuda.gridDim.x * cuda.blockDim.x):\n" + indent(tile))
