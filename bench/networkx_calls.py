"""How the NetworkX benchmarks call each function of the backend (:data:`CALLS`), shared by
``python -m bench networkx`` (in this process and, for first calls, in fresh ones) and
``python -m bench networkx_costs``.

NetworkX and the standard library only: a fresh process that imports it to time a first call
imports nothing of the backend before the call.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

__all__ = ["CALLS", "PAIRS", "Call", "dispatchable", "graph", "nodes_and_edges"]


@dataclass(frozen=True)
class Call:
    """How the suite calls one function: keyword arguments after the graph (``source`` is
    node 0), and what turns its result into a value (a generator is listed)."""

    arguments: dict[str, Any] = field(default_factory=dict)
    consume: Callable[[Any], Any] = lambda result: result
    #: on the directed graph of the same nodes and edges (NetworkX's function is for those)
    directed: bool = False
    #: timed in a suite's own process on a graph of at most this many nodes and the same mean
    #: degree (NetworkX's time grows with the nodes times the arcs, or their cube)
    nodes: int | None = None

    def size(self, nodes: int, edges: int) -> tuple[int, int]:
        """The nodes and edges of the graph it is timed on in a suite's process, for a suite's
        graph of ``nodes`` and ``edges``."""
        if self.nodes is None or self.nodes >= nodes:
            return nodes, edges
        return self.nodes, round(edges * self.nodes / nodes)


def nodes_and_edges(graph: nx.Graph) -> tuple[list, list]:
    """A returned graph as what is compared: its nodes and edges in order."""
    return list(graph), list(graph.edges)


#: the node pairs the link predictions score (every graph of the suite has nodes 0..99)
PAIRS = [(i % 100, (7 * i + 3) % 100) for i in range(1000)]

#: the nodes of the graph a search from every node is timed on in a suite's process
EVERY_SOURCE = 1000
#: ... and Floyd–Warshall's
CUBED = 200
#: ... and Louvain's (NetworkX takes tens of microseconds per arc)
SLOW = 20_000

#: function -> how to call it; one entry per function (a function without one is "not timed")
CALLS: dict[str, Call] = {
    "bfs_edges": Call({"source": 0}, list),
    "single_source_dijkstra_path_length": Call({"source": 0}),
    "connected_components": Call({}, list),
    "core_number": Call(),
    "pagerank": Call(),
    "betweenness_centrality": Call({"k": 4, "seed": 1}),  # NetworkX takes seconds per source
    "edge_betweenness_centrality": Call({"k": 4, "seed": 1}),
    "bfs_tree": Call({"source": 0}, nodes_and_edges),
    "bfs_predecessors": Call({"source": 0}, list),
    "bfs_successors": Call({"source": 0}, list),
    "bfs_layers": Call({"sources": [0]}, list),
    "descendants_at_distance": Call({"source": 0, "distance": 3}),
    "single_source_shortest_path_length": Call({"source": 0}),
    "single_source_shortest_path": Call({"source": 0}),
    "shortest_path": Call({"source": 0}),
    "shortest_path_length": Call({"source": 0}),
    "has_path": Call({"source": 0, "target": 7}),
    "descendants": Call({"source": 0}),
    "number_connected_components": Call(),
    "is_connected": Call(),
    "node_connected_component": Call({"n": 0}),
    "k_core": Call({}, nodes_and_edges),
    "k_shell": Call({}, nodes_and_edges),
    "k_crust": Call({}, nodes_and_edges),
    "k_corona": Call({"k": 3}, nodes_and_edges),
    "single_source_dijkstra": Call({"source": 0}),
    "single_source_dijkstra_path": Call({"source": 0}),
    "dijkstra_path": Call({"source": 0, "target": 7}),
    "dijkstra_path_length": Call({"source": 0, "target": 7}),
    "multi_source_dijkstra_path_length": Call({"sources": {0, 1, 2}}),
    "single_source_bellman_ford_path_length": Call({"source": 0}),
    "negative_edge_cycle": Call(),
    "eigenvector_centrality": Call({"max_iter": 1000}),
    "katz_centrality": Call({"alpha": 0.005, "max_iter": 1000}),
    "hits": Call(),
    "degree_centrality": Call(),
    "isolates": Call({}, list),
    "number_of_isolates": Call(),
    "is_tree": Call(),
    "is_forest": Call(),
    "transitivity": Call(),
    "average_clustering": Call(),
    "triangles": Call(),
    "clustering": Call(),
    "jaccard_coefficient": Call({"ebunch": PAIRS}, list),
    "preferential_attachment": Call({"ebunch": PAIRS}, list),
    "single_target_shortest_path_length": Call({"target": 0}),
    "single_target_shortest_path": Call({"target": 0}),
    "bidirectional_shortest_path": Call({"source": 0, "target": 7}),
    "generic_bfs_edges": Call({"source": 0}, list),
    "louvain_communities": Call({"seed": 1}, nodes=SLOW),
    "louvain_partitions": Call({"seed": 1}, list, nodes=SLOW),
    "label_propagation_communities": Call({}, list),
    "greedy_color": Call(),
    "k_truss": Call({"k": 3}, nodes_and_edges),
    "minimum_spanning_edges": Call({}, list),
    "minimum_spanning_tree": Call({}, nodes_and_edges),
    "ancestors": Call({"source": 0}),
    "eccentricity": Call(nodes=EVERY_SOURCE),
    "is_isolate": Call({"n": 0}),
    "multi_source_dijkstra": Call({"sources": {0, 1, 2}}),
    "multi_source_dijkstra_path": Call({"sources": {0, 1, 2}}),
    "single_source_bellman_ford": Call({"source": 0}),
    "single_source_bellman_ford_path": Call({"source": 0}),
    "bellman_ford_path": Call({"source": 0, "target": 7}),
    "bellman_ford_path_length": Call({"source": 0, "target": 7}),
    "all_pairs_shortest_path_length": Call({}, list, nodes=EVERY_SOURCE),
    "all_pairs_shortest_path": Call({}, list, nodes=EVERY_SOURCE),
    "all_pairs_dijkstra": Call({}, list, nodes=EVERY_SOURCE),
    "all_pairs_dijkstra_path": Call({}, list, nodes=EVERY_SOURCE),
    "all_pairs_dijkstra_path_length": Call({}, list, nodes=EVERY_SOURCE),
    "all_pairs_bellman_ford_path": Call({}, list, nodes=EVERY_SOURCE),
    "all_pairs_bellman_ford_path_length": Call({}, list, nodes=EVERY_SOURCE),
    "floyd_warshall": Call(nodes=CUBED),
    "floyd_warshall_numpy": Call({}, lambda matrix: matrix.tolist(), nodes=CUBED),
    "in_degree_centrality": Call(directed=True),
    "out_degree_centrality": Call(directed=True),
    "reciprocity": Call(directed=True),
    "overall_reciprocity": Call(directed=True),
    "is_arborescence": Call(directed=True),
    "is_branching": Call(directed=True),
    "strongly_connected_components": Call({}, list, directed=True),
    "number_strongly_connected_components": Call(directed=True),
    "is_strongly_connected": Call(directed=True),
    "weakly_connected_components": Call({}, list, directed=True),
    "number_weakly_connected_components": Call(directed=True),
    "is_weakly_connected": Call(directed=True),
}



def dispatchable(name: str) -> Callable[..., Any]:
    """NetworkX's public function ``name`` (``backend=`` chooses where it runs), with its
    decorators (``seed``, the graph kinds it refuses), wherever NetworkX's namespace keeps it
    (``louvain_communities`` is under ``nx.community``)."""
    function = getattr(nx, name, None)
    return function if function is not None else getattr(nx.community, name)


def graph(nodes: int, edges: int, seed: int, directed: bool = False) -> nx.Graph:
    """The random graph of one size, every edge weighted 1..100."""
    G = nx.gnm_random_graph(nodes, edges, seed=seed, directed=directed)
    draw = random.Random(seed)
    for _, _, data in G.edges(data=True):
        data["weight"] = draw.randint(1, 100)
    return G
