"""Shortest paths through NetworkX's functions: :func:`algorithms.sssp` (the method its policy
picks: Δ-stepping, near–far, Bellman–Ford; Davidson et al., Meyer and Sanders) on the weights
the call names, parallel edges combined by their minimum as NetworkX does."""

from __future__ import annotations

from typing import Any

import numpy as np

from algorithms.sssp import sssp
from frontier_nx import registry
from frontier_nx.convert import FrontierGraph
from frontier_nx.registry import callable_weight, implements


@implements(declines=callable_weight)
def single_source_dijkstra_path_length(G: FrontierGraph, source: Any,
                                       cutoff: float | None = None,
                                       weight: str | None = "weight") -> dict:
    s = G.vertex(source)
    graph = G.graph(weight)
    distances = sssp(graph, s, target=registry.target()).distances
    reached = np.flatnonzero(np.isfinite(distances))
    if cutoff is not None:
        reached = reached[distances[reached] <= cutoff]
    order = reached[np.argsort(distances[reached], kind="stable")]
    exact = graph.weights is None or np.issubdtype(graph.weights.dtype, np.integer)
    values = distances[order].astype(np.int64) if exact else distances[order]
    return {G.nodes[v]: d for v, d in zip(order.tolist(), values.tolist(), strict=True)}
