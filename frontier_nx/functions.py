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
    "bfs_edges": "NetworkX's breadth-first tree edges in its order (one BFS; the order rebuilt "
                 "from the depths); ``reverse`` and ``depth_limit`` honoured, ``sort_neighbors`` "
                 "declined.",
    "bfs_tree": "As bfs_edges; ``sort_neighbors`` declined.",
    "bfs_predecessors": "As bfs_edges; ``sort_neighbors`` declined.",
    "bfs_successors": "As bfs_edges; ``sort_neighbors`` declined.",
    "bfs_layers": "One multi-source BFS; layers in NetworkX's order.",
    "descendants_at_distance": "One BFS; a non-numeric ``distance`` is declined.",
    "single_source_shortest_path_length": "One BFS; NetworkX's order, ``cutoff`` honoured.",
    "single_source_shortest_path": "One BFS; NetworkX's paths (first parent in its queue order).",
    "all_pairs_shortest_path_length": "One BFS per node.",
    "all_pairs_shortest_path": "One BFS per node; NetworkX's paths.",
    "has_path": "One BFS.",
    "descendants": "One BFS.",
    "ancestors": "One BFS over the reversed arcs.",
    "eccentricity": "One BFS per node; ``weight`` and ``sp`` declined.",
    "shortest_path": "Unweighted only (``weight`` declined); source and target: NetworkX's "
                     "bidirectional search replayed from two BFSs, so the same path.",
    "shortest_path_length": "Unweighted only (``weight`` declined).",
    # shortest_paths
    "single_source_dijkstra_path_length": "algorithms.sssp; a callable weight is declined.",
    # components
    "connected_components": "Afforest (Sutton et al.); one set of nodes per component.",
    # cores
    "core_number": "Peeling; directed graphs count in + out degree as NetworkX.",
    # centrality
    "pagerank": "Power iteration with NetworkX's stopping rule.",
    "betweenness_centrality": "Brandes' algorithm, level-synchronous; unweighted only.",
}
