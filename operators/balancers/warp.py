"""Virtual warps (Busato & Bombieri, *Graph Algorithms on GPUs*, §5.1.2, Algorithm 8;
Hong et al.'s warp-centric mapping).

The threads of each warp are split into virtual warps of ``width`` lanes (2, 4, 8, 16 or 32); each
virtual warp takes one frontier element and its lanes stride over the element's edges, ``width``
apart, so neighbouring lanes read neighbouring edges (coalesced) and lanes of one virtual warp get
almost equal work. The virtual warp's first lane reads the element's vertex and edge range and
broadcasts them to the others with a sub-warp shuffle. Whole warps walk the frontier together
(``32 / width`` elements per warp and turn), so every lane of a warp takes part in every shuffle.

The width is fixed when the balancer is made (``"warp:8"``); Busato & Bombieri (§5.1.2 and their
measurements) note that the best width follows the average degree of the frontier, and that a
width too small for the hubs or too large for thin vertices costs a lot (see ``"dynamic_warp"``
for a width chosen at each step).
"""

from __future__ import annotations

from frontier.graph import Graph
from frontier.runtime.target import Target
from operators.balancers import snippets
from operators.balancers.base import Regime, SizedBalancer
from operators.codegen import KernelSpec, indent, visit_edge

WIDTHS = (2, 4, 8, 16, 32)


def virtual_warp_edges(spec: KernelSpec, width: str) -> str:
    """Statements run by all lanes of a virtual warp of ``width`` lanes (``vlane`` the lane in
    it) whose first lane holds ``src``, ``beg``, ``end``: broadcast them, then visit the edges
    with the lanes ``width`` apart."""
    return (f"src = shfl_idx(FULL, src, 0, {width})\n"
            f"beg = shfl_idx(FULL, beg, 0, {width})\n"
            f"end = shfl_idx(FULL, end, 0, {width})\n"
            f"for e in range(beg + vlane, end, {width}):\n" + indent(visit_edge(spec, "src", "e")))


class VirtualWarp(SizedBalancer):
    """Virtual warps of ``width`` lanes, one frontier element each (Algorithm 8)."""

    name = "warp"
    serves = (Regime.SMALL,)
    parameter = "width"

    def __init__(self, width: int = 32, threads: int = 256) -> None:
        if width not in WIDTHS:
            raise ValueError(f"virtual warp width {width}; expected one of {WIDTHS}")
        self.width = width
        self.threads = snippets.check_threads(threads)

    def bind(self, graph: Graph, target: Target) -> VirtualWarp:
        return VirtualWarp(self.width, snippets.block_size(self.threads, target))

    def advance_body(self, spec: KernelSpec) -> str:
        width = self.width
        per_warp = 32 // width
        element = ("vw_i = vw_base + group\n"
                   + snippets.load_element(spec, "vw_i", "n_in", "vlane == 0")
                   + virtual_warp_edges(spec, str(width)))
        return ("lane = cuda.threadIdx.x & 31\n"
                f"vlane = lane & {width - 1}\n"
                f"group = lane // {width}\n"
                f"n_in = {snippets.input_count(spec)}\n"
                f"for vw_base in range((tid >> 5) * {per_warp}, n_in, "
                f"(nthreads >> 5) * {per_warp}):\n" + indent(element))
