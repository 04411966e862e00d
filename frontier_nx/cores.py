"""Core numbers through NetworkX's functions: :func:`algorithms.k_core` (peeling, Batagelj and
Zaversnik's order, level-synchronous) on the graph NetworkX counts degrees on (a directed
graph's in + out degree)."""

from __future__ import annotations

import networkx as nx
import numpy as np

from algorithms.kcore import k_core
from frontier_nx import registry
from frontier_nx.convert import FrontierGraph
from frontier_nx.registry import implements


@implements()
def core_number(G: FrontierGraph) -> dict:
    tails = np.repeat(np.arange(len(G.nodes)), np.diff(G.offsets))
    if np.any(tails == G.heads):
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")
    graph = G.graph(undirected=True) if G.directed else G.graph()
    return G.labelled(k_core(graph, target=registry.target()).core_numbers)
