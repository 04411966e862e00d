"""Block-based mapping (Li & Becchi, *Deploying Graph Algorithms on GPUs: an Adaptive Solution*,
§IV.B "coarse-grained mapping"; block size from Li & Becchi, §VII.A).

Each frontier element is mapped to one thread block (blocks stride over the frontier), and the
block's threads stride over that vertex's neighbours: two levels of parallelism, coalesced reads
of the vertex's edge list, no divergence inside a high-degree vertex. Vertices of small out-degree
leave most of the block idle, so the mapping suits graphs of high average degree and small
frontiers. Li & Becchi found the best block size to be the multiple of 32 closest to the graph's
average out-degree, which is the default here (within 32..1024, and what the target allows).
"""

from __future__ import annotations

from frontier.graph import Graph
from frontier.runtime.target import Target
from operators.balancers import snippets
from operators.balancers.base import LoadBalancer
from operators.codegen import DENSE, KernelSpec, indent, is_active, visit_edge


def block_size_for_degree(average_degree: float) -> int:
    """The multiple of 32 closest to ``average_degree``, within 32..1024 (Li & Becchi, §VII.A)."""
    return min(1024, max(32, int(average_degree / 32 + 0.5) * 32))


class BlockMapped(LoadBalancer):
    """One block per frontier element, its threads striding over the element's edges."""

    name = "block"
    items_per_block = 1

    def __init__(self, threads: int | None = None) -> None:
        self.threads = None if threads is None else snippets.check_threads(threads)

    def bind(self, graph: Graph, target: Target) -> BlockMapped:
        threads = self.threads
        if threads is None:
            threads = block_size_for_degree(graph.num_edges / max(graph.num_vertices, 1))
        return BlockMapped(snippets.block_size(threads, target))

    def threads_per_block(self, target: Target) -> int:
        if self.threads is None:
            raise ValueError("the block balancer's size depends on the graph: bind it first")
        return snippets.block_size(self.threads, target)

    def advance_body(self, spec: KernelSpec) -> str:
        edges = ("for e in range(row_offsets[src] + cuda.threadIdx.x, row_offsets[src + 1], "
                 "cuda.blockDim.x):\n" + indent(visit_edge(spec, "src", "e")))
        if spec.input == DENSE:
            return ("for src in range(cuda.blockIdx.x, universe, cuda.gridDim.x):\n"
                    f"    if {is_active('in_words', 'src')}:\n" + indent(edges, 2))
        return (f"for i in range(cuda.blockIdx.x, {snippets.input_count(spec)}, cuda.gridDim.x):\n"
                "    src = in_ids[i]\n" + indent(edges))
