"""The NetworkX functions the backend implements, each with the note NetworkX's documentation
shows for it (what is honoured, what is declined so that NetworkX runs the call itself).

Standard library only: :func:`frontier_nx.get_info` reads this at ``import networkx``. The
implementations live in the family modules (``traversal``, ``shortest_paths``, ``components``,
``cores``, ``centrality``); ``tests/frontier_nx`` checks that this table and the implementations
name the same functions.
"""

from __future__ import annotations

#: name -> note, one section per family module
FUNCTIONS: dict[str, str] = {
    # traversal
    "bfs_edges": "The edges of a breadth-first tree, level by level; ``sort_neighbors`` is "
                 "declined.",
    # shortest_paths
    "single_source_dijkstra": "algorithms.sssp; paths as NetworkX's heap order picks them.",
    "single_source_dijkstra_path": "algorithms.sssp; paths as NetworkX's heap order picks them.",
    "single_source_dijkstra_path_length": "algorithms.sssp; int distances for int weights. "
                                          "Every shortest-path function: a callable weight "
                                          "is declined; NetworkX itself runs (on the converted "
                                          "graph) where float64 could differ from its sums.",
    "multi_source_dijkstra": "algorithms.sssp from each source; NetworkX's paths.",
    "multi_source_dijkstra_path": "algorithms.sssp from each source; NetworkX's paths.",
    "multi_source_dijkstra_path_length": "algorithms.sssp from each source.",
    "dijkstra_path": "algorithms.sssp; the path NetworkX's heap order picks.",
    "dijkstra_path_length": "algorithms.sssp.",
    "all_pairs_dijkstra_path_length": "algorithms.sssp from each node, lazily.",
    "single_source_bellman_ford": "algorithms.sssp (Bellman–Ford); paths where unique.",
    "single_source_bellman_ford_path": "algorithms.sssp (Bellman–Ford); paths where unique.",
    "single_source_bellman_ford_path_length": "algorithms.sssp (Bellman–Ford); "
                                              "NetworkXUnbounded on a negative cycle.",
    "bellman_ford_path": "algorithms.sssp (Bellman–Ford); the path where unique.",
    "bellman_ford_path_length": "algorithms.sssp (Bellman–Ford).",
    "negative_edge_cycle": "algorithms.sssp (Bellman–Ford) from a root joined to every node.",
    "floyd_warshall": "algorithms.apsp (Floyd–Warshall); declined where an edge lacks the "
                      "weight (NetworkX's 1.0).",
    "floyd_warshall_numpy": "algorithms.apsp (Floyd–Warshall).",
    # components
    "connected_components": "Afforest (Sutton et al.); one set of nodes per component.",
    # cores
    "core_number": "Peeling; directed graphs count in + out degree as NetworkX.",
    # centrality
    "pagerank": "Power iteration with NetworkX's stopping rule.",
    "betweenness_centrality": "Brandes' algorithm, level-synchronous; unweighted only.",
}
