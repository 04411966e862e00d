"""The graph inspector: what the adaptive runtime knows of a graph (its profile: |V|, |E| and the
out-degrees' mean, maximum and variance, computed once per graph) and of a frontier (its degree
sum, the work of a push step).

Li & Becchi, *Deploying Graph Algorithms on GPUs: an Adaptive Solution*, §VI.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from frontier.frontier import DENSE, SPARSE, VERTICES, Frontier
from frontier.graph import Graph
from operators.reduce import reduce  # noqa: A004

__all__ = ["GraphProfile", "inspect", "measure_degree_sum"]

#: Sparse frontiers up to this size are read back to measure their degree sum on the host (one
#: small read) instead of reduced on the device (a write, a launch and a read).
_HOST_SAMPLE = 4096


@dataclass(frozen=True)
class GraphProfile:
    """What the graph inspector knows of a graph: sizes and out-degree statistics."""

    num_vertices: int
    num_edges: int
    mean_degree: float
    max_degree: int
    degree_variance: float


def inspect(graph: Graph) -> GraphProfile:
    """The graph's profile, computed once and kept with the graph."""
    return graph.memo("adaptive.profile", lambda: _profile(graph))


def _profile(graph: Graph) -> GraphProfile:
    degrees = graph.out_degrees()
    if degrees.size == 0:
        return GraphProfile(0, graph.num_edges, 0.0, 0, 0.0)
    return GraphProfile(graph.num_vertices, graph.num_edges, float(degrees.mean()),
                        int(degrees.max()), float(degrees.var()))


def _degree(v: int, row_offsets: Any) -> int:
    """Out-degree from the CSR offsets alone (a graph view would build the CSC: an argsort
    of every arc and its device copy, only to read the offsets)."""
    return row_offsets[v + 1] - row_offsets[v]


def measure_degree_sum(graph: Graph, frontier: Frontier, size: int) -> int:
    """The out-degree sum of ``frontier``'s elements: |E| for a bitmap of every vertex, summed
    on the host when it knows the ids (a frontier made from host ids) or can read them cheaply
    (a small queue), else reduced on the device."""
    if frontier.kind == DENSE and size == frontier.universe and frontier.domain == VERTICES:
        return graph.num_edges  # every vertex: nothing to measure
    ids = frontier.known_ids()
    if ids is None and frontier.kind == SPARSE and size <= _HOST_SAMPLE:
        ids = frontier.target.to_host(frontier.device_ids()[:size])
    if ids is not None:
        offsets = graph.row_offsets
        return int((offsets[ids.astype(np.int64) + 1] - offsets[ids]).sum())
    offsets = graph.device_arrays(frontier.target).row_offsets
    return int(reduce(graph, frontier, _degree, offsets, op="sum"))
