"""Work-item-per-thread mapping (Busato & Bombieri, *Graph Algorithms on GPUs*, §5.1.1; Li & Becchi,
*Deploying Graph Algorithms on GPUs: an Adaptive Solution*, §IV.B "thread-based mapping").

Each thread takes one frontier vertex and loops over all of its edges. Cheap and coalesced on
low-degree graphs such as road networks; a hub leaves one thread with all its edges while the
rest of its warp idles.
"""

from __future__ import annotations

from frontier.runtime.target import Target
from operators.balancers.base import LoadBalancer, Regime
from operators.codegen import KernelSpec, for_each_input, indent, visit_edge


class ThreadMapped(LoadBalancer):
    """One thread per frontier element, looping over its edges."""

    name = "thread"
    serves = (Regime.THIN, Regime.SEQUENTIAL)

    def __init__(self, threads: int = 256) -> None:
        if threads < 1 or threads > 1024:
            raise ValueError(f"threads per block {threads}; expected 1..1024")
        self.threads = threads

    def threads_per_block(self, target: Target) -> int:
        return min(self.threads, target.max_threads_per_block)

    def advance_body(self, spec: KernelSpec) -> str:
        edges = ("for e in range(row_offsets[src], row_offsets[src + 1]):\n"
                 + indent(visit_edge(spec, "src", "e")))
        return for_each_input(spec, "src", edges)
