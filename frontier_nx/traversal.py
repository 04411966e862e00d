"""Breadth-first search through NetworkX's traversal functions: one :func:`algorithms.bfs`
call (Beamer et al.'s direction-optimizing BFS where the policy picks it) gives the depths and a
breadth-first tree; the functions here turn them into what NetworkX returns."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np

from algorithms.bfs import bfs
from frontier_nx import registry
from frontier_nx.convert import FrontierGraph
from frontier_nx.registry import implements


def _sorted_neighbours(arguments: dict[str, Any]) -> str | None:
    value = arguments.get("sort_neighbors")
    return None if value is None else "sort_neighbors is declined"


@implements(declines=_sorted_neighbours)
def bfs_edges(G: FrontierGraph, source: Any, reverse: bool = False,
              depth_limit: int | None = None, sort_neighbors: Any = None) -> Iterator[tuple]:
    s = G.vertex(source, error=nx.NetworkXError)
    graph = G.graph(reverse=reverse and G.directed)
    result = bfs(graph, s, target=registry.target())
    depth = result.distances
    limit = graph.num_vertices if depth_limit is None else depth_limit
    reached = np.flatnonzero((depth > 0) & (depth <= limit))
    order = reached[np.argsort(depth[reached], kind="stable")]
    parents = result.predecessors[order]
    nodes = G.nodes
    return ((nodes[p], nodes[c]) for p, c in zip(parents.tolist(), order.tolist(), strict=True))
