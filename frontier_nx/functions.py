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
    "single_source_dijkstra_path_length": "algorithms.sssp; a callable weight is declined.",
    # components
    "connected_components": "Afforest (Sutton et al.); one set of nodes per component.",
    # cores
    "core_number": "Peeling; directed graphs count in + out degree as NetworkX.",
    # centrality
    "pagerank": "Power iteration with NetworkX's stopping rule.",
    "betweenness_centrality": "Brandes' algorithm, level-synchronous; unweighted only.",
}
