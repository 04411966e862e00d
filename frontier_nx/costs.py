"""What a call costs in NetworkX and here, for ``should_run`` and for the ordered searches'
hand-over from NetworkX's adjacency to the converted arrays.

Each function the backend implements has one rule. Most have a :class:`Cost`
(:data:`COSTS`): the work its call does, by the complexity of its family (:data:`WORK`: the
graph's arcs, its nodes, sources times arcs, arcs times the mean degree for the triangles, ...)
and the seconds per unit of that work NetworkX's function and the backend's take, the backend
on a graph a call has read with its kernels loaded. A first call here pays more before its
work: reading NetworkX's adjacency into arrays (unless a call read them before), more for the
values of an edge attribute, and loading what it needs (:data:`LOADS`: numpy, scipy's sparse
matrices, the library and its compiled kernels), where no call has yet; NetworkX's own calls
load numpy or scipy for a few functions. :func:`estimate` puts these together: the backend's
first call less NetworkX's, in seconds, as a function of the graph's arcs, so that a caller
counts them only as far as the answer needs (:meth:`Estimate.settled`). The ordered
breadth-first searches (:data:`LAZY`: the generators, ``bfs_tree``, the single-source and
single-target BFS lengths and paths) have no estimate: they search NetworkX's adjacency as
NetworkX does and read the graph only where :func:`hand_over` says it pays. The searches to
a target (:data:`STOPS_EARLY`) stay in NetworkX, whose search stops there (the registry's
``stays_in_networkx`` rules).

Every figure is measured by ``python -m bench networkx_costs``, which prints the lines of
:data:`COSTS` as measured; docs/networkx.md ("What a first call costs") has the run behind
them. They are CPU seconds of one machine: their ratios carry over to faster or slower machines
better than the times.

Standard library only: ``should_run`` asks before anything heavy is imported.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

__all__ = ["COSTS", "LAZY", "LOADS", "STOPS_EARLY", "WORK", "Cost", "Estimate", "estimate",
           "hand_over", "loaded", "pending"]

#: NetworkX's breadth-first search in order, seconds per arc (for :func:`hand_over`)
NETWORKX_SEARCH = 65e-9
#: the backend's ordered search on the arrays with NetworkX's result built, per arc
SEARCH = 17e-9
#: reading NetworkX's adjacency into arrays, per arc
READ = 61e-9
#: reading the values of an edge attribute as well, per arc
READ_VALUES = 250e-9
#: importing numpy, seconds
NUMPY_IMPORT = 0.090
#: importing scipy's sparse matrices after numpy, seconds
SCIPY_IMPORT = 0.12
#: importing the library after numpy and a call's first loading of its kernels from a warm
#: cache, beside a large graph (Python's collector walks it while the library imports; the cpu
#: target starts its threads), seconds
LIBRARY_LOAD = 1.37

#: importing Numba and the library's runtime for the ordered searches' compiled level scan
#: (:mod:`frontier_nx.search_kernels`) after numpy, its code loaded from the cache, seconds
SEARCH_LOAD = 0.65

#: what a first call may load: name -> (the modules whose presence says it is loaded, seconds)
LOADS: dict[str, tuple[tuple[str, ...], float]] = {
    "numpy": (("numpy",), NUMPY_IMPORT),
    "scipy": (("scipy.sparse",), SCIPY_IMPORT),
    "library": (("frontier", "numba"), LIBRARY_LOAD),
    "search": (("numba", "frontier.runtime.cache_dir"), SEARCH_LOAD),
}
NUMPY = frozenset({"numpy"})
SCIPY = frozenset({"numpy", "scipy"})
LIBRARY = frozenset({"numpy", "library"})
NOTHING: frozenset[str] = frozenset()
#: what an ordered search on the arrays loads (:func:`hand_over`)
SEARCHING = frozenset({"numpy", "search"})

#: a search on NetworkX's adjacency hands over to the arrays before a level that alone costs
#: NetworkX at least this share of what reading the arrays costs: a reader that stops after
#: that level pays at most about 1 / HAND_OVER_SHARE times what NetworkX pays for it
HAND_OVER_SHARE = 0.25
#: ... and never before a level of fewer arcs than this (NetworkX scans it in a fraction of a
#: millisecond), so a search that stays small never counts the graph's arcs
HAND_OVER_FLOOR = 1024


Units = tuple[float, float, float]


def _share(nodes: int, arguments: Mapping[str, Any], key: str = "nodes") -> float:
    """The share of the graph's nodes that the argument ``key`` names: all of them (None), one
    node, or a container's."""
    chosen = arguments.get(key)
    if chosen is None:
        return 1.0
    try:
        if chosen in arguments["G"]:
            return 1.0 / max(nodes, 1)
    except TypeError:  # unhashable: a container
        pass
    try:
        return min(len(chosen), nodes) / max(nodes, 1)
    except TypeError:  # an iterator
        return 1.0


def _pairs(nodes: int, arguments: Mapping[str, Any]) -> float:
    """The node pairs a link prediction scores: ``ebunch``'s, every pair where it is None; an
    iterator counts none (a reader may take a few of NetworkX's)."""
    ebunch = arguments.get("ebunch")
    if ebunch is None:
        return nodes * (nodes - 1) / 2
    try:
        return float(len(ebunch))
    except TypeError:
        return 0.0


def _sources(nodes: int, arguments: Mapping[str, Any]) -> float:
    """Eccentricity's sources: every node (``v`` None), one node or a container's."""
    return _share(nodes, arguments, "v") * nodes


#: how NetworkX's time and the backend's grow, by family: (nodes, bound arguments) -> the
#: coefficients (c0, c1, c2) of the work's units c0 + c1 * arcs + c2 * arcs ** 2
WORK: dict[str, Callable[[int, Mapping[str, Any]], Units]] = {
    "arcs": lambda n, a: (0.0, 1.0, 0.0),
    "nodes": lambda n, a: (float(n), 0.0, 0.0),
    "call": lambda n, a: (1.0, 0.0, 0.0),
    #: a search from each node
    "every source": lambda n, a: (0.0, float(n), 0.0),
    #: betweenness: a search from each of ``k`` sources (every node where None)
    "k sources": lambda n, a: (0.0, float(n if a.get("k") is None else min(a["k"], n)), 0.0),
    "v sources": lambda n, a: (0.0, _sources(n, a), 0.0),
    #: ``shortest_path``: one search from the source or to the target, else from each node
    "one or every source": lambda n, a: (
        0.0, 1.0 if a.get("source") is not None or a.get("target") is not None else float(n),
        0.0),
    #: the arcs of the nodes ``nodes`` names
    "arcs of the nodes": lambda n, a: (0.0, _share(n, a), 0.0),
    #: triangles: each arc's two rows intersected, arcs times the mean degree (the sum of the
    #: squared degrees is at least that), for the nodes ``nodes`` names
    "triangles": lambda n, a: (0.0, 0.0, _share(n, a) / max(n, 1)),
    "pairs": lambda n, a: (_pairs(n, a), 0.0, 0.0),
    #: pairs times the mean degree: each pair's two rows intersected
    "pairs x degree": lambda n, a: (0.0, _pairs(n, a) / max(n, 1), 0.0),
    "cubed nodes": lambda n, a: (float(n) ** 3, 0.0, 0.0),
}


class Cost(NamedTuple):
    """One function's costs: its family's work (a key of :data:`WORK`), NetworkX's seconds per
    unit of it and the backend's (on a graph a call has read, its kernels loaded), what the
    backend's first call loads and what NetworkX's does (keys of :data:`LOADS`)."""

    work: str
    networkx: float
    here: float
    needs: frozenset[str] = NUMPY
    networkx_needs: frozenset[str] = NOTHING


#: name -> its costs, measured by ``python -m bench networkx_costs``; what a call needs is what it
#: may load (``is_tree`` and ``is_arborescence`` load the library only for a graph of n - 1
#: edges, ``negative_edge_cycle`` only for a negative weight; the ordered searches load numpy
#: only where they read the graph)
COSTS: dict[str, Cost] = {
    "shortest_path": Cost("one or every source", 9.68e-08, 3.11e-08, NUMPY),
    "shortest_path_length": Cost("one or every source", 1.04e-07, 2.49e-08, NUMPY),
    "all_pairs_shortest_path_length": Cost("every source", 2.27e-08, 1.54e-08, NUMPY),
    "all_pairs_shortest_path": Cost("every source", 1.11e-07, 1.09e-07, NUMPY),
    "descendants": Cost("arcs", 3.24e-07, 3.61e-09, LIBRARY),
    "ancestors": Cost("arcs", 5e-07, 3.78e-09, LIBRARY),
    "eccentricity": Cost("v sources", 2.36e-08, 9.48e-09, LIBRARY),
    "single_source_dijkstra": Cost("arcs", 2.31e-06, 2.79e-07, LIBRARY),
    "single_source_dijkstra_path": Cost("arcs", 2.11e-06, 2.88e-07, LIBRARY),
    "single_source_dijkstra_path_length": Cost("arcs", 1.17e-06, 6.23e-08, LIBRARY),
    "multi_source_dijkstra": Cost("arcs", 2.15e-06, 3.39e-07, LIBRARY),
    "multi_source_dijkstra_path": Cost("arcs", 2.03e-06, 3.41e-07, LIBRARY),
    "multi_source_dijkstra_path_length": Cost("arcs", 1.27e-06, 1.12e-07, LIBRARY),
    "single_source_bellman_ford": Cost("arcs", 4.43e-06, 7.31e-06, LIBRARY),
    "single_source_bellman_ford_path": Cost("arcs", 4.28e-06, 7.56e-06, LIBRARY),
    "single_source_bellman_ford_path_length": Cost("arcs", 3.88e-06, 5.15e-08, LIBRARY),
    "bellman_ford_path": Cost("arcs", 4.11e-06, 7.12e-06, LIBRARY),
    "bellman_ford_path_length": Cost("arcs", 4.09e-06, 5.71e-08, LIBRARY),
    "negative_edge_cycle": Cost("arcs", 1.27e-06, 4.22e-10, LIBRARY),
    "all_pairs_dijkstra": Cost("every source", 4.83e-07, 2.26e-07, LIBRARY),
    "all_pairs_dijkstra_path": Cost("every source", 4.62e-07, 2.23e-07, LIBRARY),
    "all_pairs_dijkstra_path_length": Cost("every source", 2.83e-07, 3.5e-08, LIBRARY),
    "all_pairs_bellman_ford_path": Cost("every source", 1.13e-06, 3.24e-06, LIBRARY),
    "all_pairs_bellman_ford_path_length": Cost("every source", 8.6e-07, 3.25e-08, LIBRARY),
    "floyd_warshall": Cost("cubed nodes", 9.38e-08, 7.15e-09, LIBRARY),
    "floyd_warshall_numpy": Cost("cubed nodes", 1.21e-09, 3.62e-09, LIBRARY, NUMPY),
    "connected_components": Cost("arcs", 1.06e-07, 4.96e-09, LIBRARY),
    "number_connected_components": Cost("arcs", 8.19e-08, 2.56e-09, LIBRARY),
    "is_connected": Cost("arcs", 7.52e-08, 2.11e-09, LIBRARY),
    "node_connected_component": Cost("arcs", 7.19e-08, 1.02e-08, LIBRARY),
    "weakly_connected_components": Cost("arcs", 2.52e-07, 1.3e-08, LIBRARY),
    "number_weakly_connected_components": Cost("arcs", 2.34e-07, 7.28e-09, LIBRARY),
    "is_weakly_connected": Cost("arcs", 1.92e-07, 6.04e-09, LIBRARY),
    "strongly_connected_components": Cost("arcs", 1.9e-06, 5.32e-08, LIBRARY),
    "number_strongly_connected_components": Cost("arcs", 2.1e-06, 4.34e-08, LIBRARY),
    "is_strongly_connected": Cost("arcs", 3.67e-08, 3.81e-08, LIBRARY),
    "is_tree": Cost("nodes", 4.03e-07, 5.05e-08, LIBRARY),
    "is_arborescence": Cost("nodes", 2.17e-07, 2.95e-09, LIBRARY),
    "is_forest": Cost("arcs", 6.1e-07, 7.64e-09, LIBRARY),
    "is_branching": Cost("arcs", 1.61e-06, 8.05e-09, LIBRARY),
    "core_number": Cost("arcs", 1.13e-06, 1.35e-08, LIBRARY),
    "k_core": Cost("arcs", 5.26e-06, 3.54e-06, LIBRARY),
    "k_shell": Cost("arcs", 5.18e-06, 3.45e-06, LIBRARY),
    "k_crust": Cost("arcs", 1.53e-06, 1.08e-07, LIBRARY),
    "k_corona": Cost("arcs", 1.38e-06, 1.9e-08, LIBRARY),
    "k_truss": Cost("triangles", 3.05e-07, 1.94e-07, LIBRARY),
    "minimum_spanning_edges": Cost("arcs", 3.88e-06, 1.78e-06, LIBRARY),
    "minimum_spanning_tree": Cost("arcs", 3.59e-06, 2.26e-06, LIBRARY),
    "label_propagation_communities": Cost("arcs", 3.21e-06, 1.25e-07, LIBRARY),
    "louvain_communities": Cost("arcs", 2.07e-05, 1.05e-06, LIBRARY),
    "louvain_partitions": Cost("arcs", 2.33e-05, 9.67e-07, LIBRARY),
    "greedy_color": Cost("arcs", 2.98e-07, 2.38e-08, LIBRARY),
    "pagerank": Cost("arcs", 3.11e-06, 3.04e-08, LIBRARY, SCIPY),
    "hits": Cost("arcs", 3.22e-06, 3.11e-07, SCIPY, SCIPY),
    "betweenness_centrality": Cost("k sources", 1.03e-06, 1.43e-08, LIBRARY),
    "edge_betweenness_centrality": Cost("k sources", 1.61e-06, 1.15e-07, LIBRARY),
    "eigenvector_centrality": Cost("arcs", 3.18e-06, 2.6e-08, LIBRARY),
    "katz_centrality": Cost("arcs", 1.04e-05, 1.7e-08, LIBRARY),
    "triangles": Cost("triangles", 8.46e-08, 3.09e-09, LIBRARY),
    "clustering": Cost("triangles", 2.45e-07, 3.37e-09, LIBRARY),
    "average_clustering": Cost("triangles", 2.33e-07, 3.44e-09, LIBRARY),
    "transitivity": Cost("triangles", 2.48e-07, 2.97e-09, LIBRARY),
    "degree_centrality": Cost("nodes", 4.44e-07, 5.47e-08, NUMPY),
    "in_degree_centrality": Cost("nodes", 2.89e-07, 6.29e-08, NUMPY),
    "out_degree_centrality": Cost("nodes", 2.67e-07, 5.87e-08, NUMPY),
    "isolates": Cost("nodes", 3.83e-07, 6.84e-10, NUMPY),
    "number_of_isolates": Cost("nodes", 3.67e-07, 6.29e-10, NUMPY),
    "is_isolate": Cost("call", 3.47e-06, 4.42e-05, NUMPY),
    "reciprocity": Cost("arcs of the nodes", 4e-06, 8.22e-07, NUMPY),
    "overall_reciprocity": Cost("arcs", 5.49e-06, 7.97e-07, NUMPY),
    "jaccard_coefficient": Cost("pairs x degree", 2.83e-07, 2.25e-07, SCIPY),
    "preferential_attachment": Cost("pairs", 7.6e-07, 1.29e-06, NUMPY),
}

#: the ordered breadth-first searches (generators a reader may stop after a few items,
#: ``bfs_tree``, the single-source and single-target BFS lengths and paths): each runs on
#: NetworkX's adjacency as NetworkX's does (no slower: the adjacency's dicts directly, no
#: generator per node), reading the graph where :func:`hand_over` says it pays
LAZY = frozenset({"bfs_edges", "bfs_tree", "bfs_predecessors", "bfs_successors", "bfs_layers",
                  "generic_bfs_edges", "single_source_shortest_path_length",
                  "single_source_shortest_path", "single_target_shortest_path_length",
                  "single_target_shortest_path"})
#: searches to a target or a distance: NetworkX's stops there, so every call stays in NetworkX
STOPS_EARLY = frozenset({"has_path", "bidirectional_shortest_path", "descendants_at_distance",
                         "dijkstra_path", "dijkstra_path_length"})


def loaded(module: str) -> bool:
    """Whether this process has imported ``module``."""
    return module in sys.modules


def pending(needs: frozenset[str]) -> list[str]:
    """What of ``needs`` (keys of :data:`LOADS`) this process has not loaded yet."""
    return [need for need in sorted(needs) if not all(map(loaded, LOADS[need][0]))]


def _loading(needs: frozenset[str]) -> float:
    """Seconds to load what of ``needs`` this process has not loaded yet."""
    return sum(LOADS[need][1] for need in pending(needs))


class Estimate(NamedTuple):
    """The backend's first call less NetworkX's, in seconds, on a graph of ``a`` arcs:
    ``fixed + per_arc * a + per_square * a ** 2`` (negative where the backend is faster)."""

    fixed: float
    per_arc: float
    per_square: float

    def margin(self, arcs: int) -> float:
        return self.fixed + arcs * (self.per_arc + arcs * self.per_square)

    def settled(self, arcs: int) -> bool | None:
        """On a graph of at least ``arcs`` arcs: True where the backend is faster whatever the
        rest, False where NetworkX is, None where it takes counting more of them."""
        margin = self.margin(arcs)
        slope = self.per_arc + 2 * self.per_square * arcs
        if margin < 0 and slope <= 0 and self.per_square <= 0:
            return True
        if margin >= 0 and slope >= 0 and self.per_square >= 0:
            return False
        return None


def estimate(name: str, nodes: int, arguments: Mapping[str, Any], read: bool,
             values: bool) -> Estimate | None:
    """How much the backend's call of ``name`` (``arguments`` bound to its parameters) on a
    graph of ``nodes`` nodes costs more than NetworkX's, the graph's arrays read before
    (``read``) or not, an edge attribute's values read with them (``values``); None for a
    function without a :class:`Cost`."""
    cost = COSTS.get(name)
    if cost is None:
        return None
    c0, c1, c2 = WORK[cost.work](nodes, arguments)
    gain = cost.here - cost.networkx
    reading = 0.0 if read else READ + (READ_VALUES if values else 0.0)
    fixed = _loading(cost.needs) - _loading(cost.networkx_needs) + gain * c0
    return Estimate(fixed, reading + gain * c1, gain * c2)


def _reading(arcs: int) -> float:
    """Reading the arrays of a graph of ``arcs`` arcs for an ordered search, the imports of
    numpy and of the compiled level scan included where no module has imported them yet."""
    return arcs * READ + _loading(SEARCHING)


def hand_over(level_arcs: int, arcs: Callable[[], int], searched: int = 0) -> bool:
    """Whether a search on NetworkX's adjacency of a graph of ``arcs()`` arcs (counted only for
    a level of at least ``HAND_OVER_FLOOR`` arcs) reads the arrays before a level that scans
    ``level_arcs`` of them: where a search read to its end pays for reading them and that level
    alone costs NetworkX at least ``HAND_OVER_SHARE`` of it, or where the searches of this graph
    on NetworkX's adjacency have scanned ``searched`` arcs, as many as reading the arrays costs
    (rent or buy: a graph searched again and again is read once its searches have cost what
    reading it costs, so that they cost at most about twice what reading it first would have,
    and each search after costs what one on the arrays costs)."""
    if level_arcs < HAND_OVER_FLOOR:
        return False
    arcs = arcs()
    reading = _reading(arcs)
    if searched * NETWORKX_SEARCH >= reading:
        return True
    return (reading + arcs * SEARCH < arcs * NETWORKX_SEARCH
            and level_arcs * NETWORKX_SEARCH >= HAND_OVER_SHARE * reading)
