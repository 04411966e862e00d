"""The NetworkX functions the backend implements, each with the note NetworkX's documentation
shows for it (what is honoured, what is declined so that NetworkX runs the call itself).

Standard library only: :func:`frontier_nx.get_info` reads this at ``import networkx``. The
implementations live in the family modules (``traversal``, ``shortest_paths``, ``components``,
``cores``, ``centrality``, ``clustering``, ``trees``, ``communities``, ``louvain``,
``coloring``, ``degrees``, ``link_prediction``);
``tests/frontier_nx`` checks that this table and the implementations name the same functions.
"""

from __future__ import annotations

#: family module -> {name: note}: the functions each module of ``frontier_nx`` implements
FAMILIES: dict[str, dict[str, str]] = {
    "traversal": {
        "single_target_shortest_path_length": "As bfs_edges over the reversed arcs; NetworkX's "
                                              "order, ``cutoff`` honoured (a dict, as NetworkX "
                                              ">= 3.5).",
        "single_target_shortest_path": "As bfs_edges over the reversed arcs; NetworkX's paths.",
        "bidirectional_shortest_path": "NetworkX's bidirectional search replayed from two lazy "
                                       "searches, so the same path for the same levels.",
        "generic_bfs_edges": "As bfs_edges; ``neighbors`` declined.",
        "bfs_edges": "NetworkX's breadth-first tree edges in its order (a level-by-level search on "
                     "the host, lazily: a partial read costs the levels read; on NetworkX's "
                     "adjacency as NetworkX searches it until a level is large enough that "
                     "reading the graph pays, then vectorized on the arrays); ``reverse`` and "
                     "``depth_limit`` honoured, ``sort_neighbors`` declined.",
        "bfs_tree": "As bfs_edges; ``sort_neighbors`` declined.",
        "bfs_predecessors": "As bfs_edges; ``sort_neighbors`` declined.",
        "bfs_successors": "As bfs_edges; ``sort_neighbors`` declined.",
        "bfs_layers": "As bfs_edges, from several sources; layers in NetworkX's order, lazily.",
        "descendants_at_distance": "As bfs_edges, to the distance only; a non-numeric "
                                   "``distance`` is declined.",
        "single_source_shortest_path_length": "As bfs_edges; NetworkX's order, ``cutoff`` "
                                              "honoured (no search past it).",
        "single_source_shortest_path": "As bfs_edges; NetworkX's paths (first parent in its queue "
                                       "order).",
        "all_pairs_shortest_path_length": "As bfs_edges, from each node.",
        "all_pairs_shortest_path": "As bfs_edges, from each node; NetworkX's paths.",
        "has_path": "One BFS.",
        "descendants": "One BFS.",
        "ancestors": "One BFS over the reversed arcs.",
        "eccentricity": "One BFS per node; ``weight`` and ``sp`` declined.",
        "shortest_path": "Unweighted only (``weight`` declined); source and target: NetworkX's "
                         "bidirectional search replayed from two lazy searches, so the same path "
                         "for the same levels.",
        "shortest_path_length": "Unweighted only (``weight`` declined).",
    },
    "shortest_paths": {
        "all_pairs_dijkstra": "algorithms.sssp from each node, lazily; NetworkX's paths.",
        "all_pairs_dijkstra_path": "algorithms.sssp from each node, lazily; NetworkX's paths.",
        "all_pairs_bellman_ford_path_length": "algorithms.sssp (Bellman–Ford) from each node, "
                                              "lazily.",
        "all_pairs_bellman_ford_path": "algorithms.sssp (Bellman–Ford) from each node, lazily; "
                                       "paths where unique.",
        "single_source_dijkstra": "algorithms.sssp; paths as NetworkX's heap order picks them.",
        "single_source_dijkstra_path": "algorithms.sssp; paths as NetworkX's heap order picks "
                                       "them.",
        "single_source_dijkstra_path_length": "algorithms.sssp; int distances for int weights. "
                                              "Every shortest-path function: a callable weight "
                                              "is declined; NetworkX itself runs (on the converted "
                                              "graph) where float64 could differ from its sums. "
                                              "A negative cutoff gives nothing, not even the "
                                              "source (NetworkX 3.6.1 returns the source).",
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
    },
    "components": {
        "is_tree": "Afforest (Sutton et al.): one component and its nodes less one edges.",
        "is_forest": "Afforest (Sutton et al.): the nodes less the components as edges.",
        "is_arborescence": "As is_tree, and no in-degree above 1.",
        "is_branching": "As is_forest, and no in-degree above 1.",
        "connected_components": "Afforest (Sutton et al.); one set of nodes per component, in "
                                "NetworkX's order (by each component's first node).",
        "number_connected_components": "Afforest (Sutton et al.); the number of labels.",
        "is_connected": "Afforest (Sutton et al.); NetworkXPointlessConcept on the null graph.",
        "node_connected_component": "Afforest (Sutton et al.); a node not in the graph is "
                                    "declined (NetworkX raises its own error).",
        "weakly_connected_components": "Afforest (Sutton et al.) on the arcs as edges; one set of "
                                       "nodes per component, in NetworkX's order.",
        "number_weakly_connected_components": "Afforest (Sutton et al.) on the arcs as edges.",
        "is_weakly_connected": "Afforest (Sutton et al.) on the arcs as edges; "
                               "NetworkXPointlessConcept on the null graph.",
        "strongly_connected_components": "Forward-backward colouring with trimming (Slota et al.); "
                                         "one set of nodes per SCC, each after the SCCs its arcs "
                                         "lead to, those of each of NetworkX's depth-first "
                                         "searches "
                                         "together and in its order of searches (its printer's "
                                         "roots); within a search, ties by first node.",
        "number_strongly_connected_components": "Forward-backward colouring with trimming; the "
                                                "number of labels.",
        "is_strongly_connected": "Forward-backward colouring with trimming; "
                                 "NetworkXPointlessConcept on the null graph.",
    },
    "cores": {
        "core_number": "Peeling; directed graphs count in + out degree as NetworkX; graph classes "
                       "that override their neighbour views are declined.",
        "k_core": "Peeling for the core numbers, then NetworkX's subgraph of the graph given "
                  "(attributes kept); a given ``core_number`` is declined.",
        "k_shell": "Peeling for the core numbers, then NetworkX's subgraph of the graph given "
                   "(attributes kept); a given ``core_number`` is declined.",
        "k_crust": "Peeling for the core numbers, then NetworkX's subgraph of the graph given "
                   "(attributes kept); a given ``core_number`` is declined.",
        "k_corona": "Peeling for the core numbers, then NetworkX's subgraph of the graph given "
                    "(attributes kept); a given ``core_number`` is declined.",
        "k_truss": "Peeling (Cohen's k-truss, level-synchronous) for the truss's edges, then "
                   "NetworkX's subgraph of a copy of the graph given (order and attributes kept); "
                   "self-loops raise NetworkX's error; a k that is not an integer is declined.",
    },
    "trees": {
        "minimum_spanning_edges": "Borůvka, ties by edge id: the forest of NetworkX's Kruskal, "
                                  "yielded in its order. Declined: algorithm other than "
                                  "'kruskal', multigraphs. Weights that are not plain finite "
                                  "numbers run NetworkX's own function; NaN raises its error.",
        "minimum_spanning_tree": "Borůvka, ties by edge id: NetworkX's Kruskal tree (class, "
                                 "attributes, edge order). Declined: algorithm other than "
                                 "'kruskal', multigraphs, directed graphs. Weights that are not "
                                 "plain finite numbers run NetworkX's own function.",
    },
    "communities": {
        "label_propagation_communities": "NetworkX's semi-synchronous rule exactly: its greedy "
                                         "largest-first colour classes, Prec-Max ties, by "
                                         "operators.neighbor_reduce(op='mode'); the same "
                                         "dict_values of sets. Multigraphs are declined.",
    },
    "louvain": {
        "louvain_communities": "NetworkX's Louvain exactly: its seeded node order, moves, ties and "
                               "levels (a compiled sequential loop on the host), so the same "
                               "communities for the same seed; ``resolution``, ``threshold``, "
                               "``max_level`` honoured. Weights that are not finite numbers run "
                               "NetworkX's own function.",
        "louvain_partitions": "As louvain_communities: NetworkX's levels, one partition each.",
    },
    "coloring": {
        "greedy_color": "Jones & Plassmann with the degree as priority: NetworkX's largest_first "
                        "first fit exactly, the dict in its order. Declined: other strategies, "
                        "interchange, directed graphs, multigraphs.",
    },
    "centrality": {
        "hits": "NetworkX's own method (scipy's svds) on the adjacency matrix built from the "
                "conversion; weights that are not finite numbers run NetworkX's own function.",
        "pagerank": "Power iteration with NetworkX's stopping rule; parallel edges' weights "
                    "summed, "
                    "a missing weight 1. Declined: alpha outside [0, 1], tol <= 0 or infinite, "
                    "non-integer max_iter, negative or non-finite personalization/nstart/dangling "
                    "values, nstart or dangling summing to 0, a callable weight. Negative, "
                    "non-finite or non-numeric weights run NetworkX's own function. Floats may "
                    "differ from "
                    "NetworkX's in the last bits (sums in another order).",
        "betweenness_centrality": "Brandes' algorithm, level-synchronous; parallel edges are one "
                                  "neighbour as in NetworkX's BFS; k sources sampled by "
                                  "seed.sample(list(G), k) as NetworkX does; NetworkX's rescaling. "
                                  "Declined: a weight (weighted betweenness), a non-integer k. "
                                  "Floats may differ in the last bits.",
        "edge_betweenness_centrality": "Brandes' algorithm with each arc's share of the "
                                       "dependencies; NetworkX's edge keys, order and rescaling "
                                       "(that of the NetworkX version running); parallel edges "
                                       "share their pair's value; k sources sampled by "
                                       "seed.sample(list(G), k). Declined: a weight, a "
                                       "non-integer k, k=0. Floats may differ in the last bits.",
        "eigenvector_centrality": "Power iteration on A + I with NetworkX's normalization and "
                                  "stopping rule; A^T x by operators.neighbor_reduce. Declined: "
                                  "a weight other than None or an attribute name, non-integer "
                                  "max_iter, an nstart not naming exactly the graph's nodes. "
                                  "Non-finite or non-numeric weights run NetworkX's own function. "
                                  "Floats may differ in the last bits (neighbour sums in another "
                                  "order).",
        "katz_centrality": "NetworkX's fixed-point iteration x = alpha A^T x + beta; A^T x by "
                           "operators.neighbor_reduce. Declined: non-numeric alpha or beta, "
                           "integer "
                           "alpha with integer beta values, a weight other than None or an "
                           "attribute name, non-integer max_iter, an nstart not naming exactly the "
                           "graph's nodes. Non-finite or non-numeric weights run NetworkX's own "
                           "function. Floats may differ in the last bits.",
    },
    "clustering": {
        "average_clustering": "The clustering values summed in NetworkX's order; ``weight`` and "
                              "directed graphs declined.",
        "transitivity": "From the triangle counts and distinct degrees, NetworkX's integer sums; "
                        "directed graphs declined.",
        "triangles": "Triangle counting by neighbour intersections over the edges; self-loops and "
                     "parallel edges ignored as NetworkX does; a node or a container of nodes "
                     "honoured.",
        "clustering": "From the triangle counts and distinct degrees, NetworkX's arithmetic; "
                      "``weight`` and directed graphs declined.",
    },
    "degrees": {
        "degree_centrality": "The converted degrees times NetworkX's 1 / (n - 1): its floats "
                             "exactly.",
        "in_degree_centrality": "The converted in-degrees times 1 / (n - 1).",
        "out_degree_centrality": "The converted out-degrees times 1 / (n - 1).",
        "isolates": "The nodes of degree 0, in node order.",
        "number_of_isolates": "The nodes of degree 0, counted.",
        "is_isolate": "The node's degree; a node not in the graph is declined (NetworkX's error).",
        "reciprocity": "Reciprocal arcs counted per node (sets of distinct neighbours, as "
                       "NetworkX's); NetworkX's integer ratios.",
        "overall_reciprocity": "Reciprocal arcs counted; NetworkX's integer ratio.",
    },
    "link_prediction": {
        "jaccard_coefficient": "Common neighbours of every pair at once (a sparse row product); "
                               "NetworkX's integer ratios, its pairs in its order.",
        "preferential_attachment": "The converted degrees' products, NetworkX's pairs in its "
                                   "order.",
    },
}

#: name -> note
FUNCTIONS: dict[str, str] = {name: note for notes in FAMILIES.values()
                             for name, note in notes.items()}
#: name -> the family module implementing it
FAMILY: dict[str, str] = {name: family for family, notes in FAMILIES.items()
                          for name in notes}
