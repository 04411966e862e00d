"""The graph as a functor sees it: degrees and sizes, without passing arrays as state.

A functor whose last parameter is named ``graph`` receives this view (see
:mod:`operators.functors`); these functions read it on every target (CUDA, the sequential CPU and
the simulator)::

    def share(src, dst, eid, weight, rank, graph):
        return rank[src] / out_degree(graph, src)

The view is the tuple ``(num_vertices, num_edges, row_offsets, col_offsets)``: the CSR offsets
and the incoming-edge (CSC) offsets of the graph on the kernel's target.
"""

from __future__ import annotations

from typing import Any

from frontier.devicefn import device_function

__all__ = ["out_degree", "in_degree", "graph_vertices", "graph_edges", "GRAPH_VIEW_FIELDS"]

#: What the view holds, in order (kernels build it from their parameters of these names).
GRAPH_VIEW_FIELDS = ("num_vertices", "num_edges", "row_offsets", "col_offsets")


def out_degree(graph: Any, v: Any) -> Any:
    """Number of edges leaving ``v``."""
    return graph[2][v + 1] - graph[2][v]


def in_degree(graph: Any, v: Any) -> Any:
    """Number of edges entering ``v``."""
    return graph[3][v + 1] - graph[3][v]


def graph_vertices(graph: Any) -> Any:
    """|V|."""
    return graph[0]


def graph_edges(graph: Any) -> Any:
    """|E| (arcs)."""
    return graph[1]


# Compiled functors call these through Numba's overloads: each function's own Python body is its
# implementation on the CPU and on CUDA (the simulator calls it as Python).
for _fn in (out_degree, in_degree, graph_vertices, graph_edges):
    device_function(_fn)
