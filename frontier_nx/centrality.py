"""Centrality and link analysis through NetworkX's functions: PageRank (power iteration with
NetworkX's stopping rule; Page et al.) and betweenness (Brandes, level-synchronous as in
Sariyüce et al.) from :mod:`algorithms`."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from algorithms.betweenness import betweenness_centrality as _betweenness
from algorithms.pagerank import ConvergenceError
from algorithms.pagerank import pagerank as _pagerank
from frontier_nx import registry
from frontier_nx.convert import FrontierGraph
from frontier_nx.registry import callable_weight, implements


@implements(declines=callable_weight)
def pagerank(G: FrontierGraph, alpha: float = 0.85, personalization: dict | None = None,
             max_iter: int = 100, tol: float = 1e-06, nstart: dict | None = None,
             weight: str | None = "weight", dangling: dict | None = None) -> dict:
    if not G.nodes:
        return {}

    def per_vertex(values: dict | None) -> np.ndarray | None:
        return None if values is None else np.array(
            [values.get(node, 0) for node in G.nodes], dtype=np.float64)

    graph = G.graph(weight if weight in G.values else None, combine="sum")
    try:
        result = _pagerank(graph, alpha=alpha, personalization=per_vertex(personalization),
                           max_iter=max_iter, tol=tol, nstart=per_vertex(nstart),
                           dangling=per_vertex(dangling), weighted=graph.weights is not None,
                           target=registry.target())
    except ConvergenceError:
        raise nx.PowerIterationFailedConvergence(max_iter) from None
    return G.labelled(result.ranks)


def _weighted(arguments: dict[str, Any]) -> str | None:
    weight = arguments.get("weight")
    return None if weight is None else f"weight={weight!r}: weighted betweenness is declined"


@implements(declines=_weighted)
def betweenness_centrality(G: FrontierGraph, k: int | None = None, normalized: bool = True,
                           weight: str | None = None, endpoints: bool = False,
                           seed: Any = None) -> dict:
    sources = None
    if k is not None and k != len(G.nodes):  # NetworkX samples k nodes with the seed
        sources = seed.sample(range(len(G.nodes)), k)
    result = _betweenness(G.graph(), sources, normalized=normalized, endpoints=endpoints,
                          target=registry.target())
    return G.labelled(result.values)
