"""Minimum spanning trees through NetworkX's functions: :func:`algorithms.minimum_spanning_forest`
(Borůvka) finds the forest, ties broken by edge id, which on a converted graph is the order of
NetworkX's ``G.edges()`` (an edge's id follows its arc from the node NetworkX iterates first).
NetworkX's default, Kruskal's algorithm, scans the edges sorted by weight, equal weights in that
same order, so the two pick the same forest: ``minimum_spanning_edges`` yields its edges in
Kruskal's order, as ``(u, v, data)`` with ``u`` the node ``G.edges()`` gives first and ``data``
the graph's own attribute dict, and ``minimum_spanning_tree`` builds NetworkX's tree from them
(the graph's class, graph attributes, every node with its attributes, the edges in that order).

Weights are read as NetworkX reads them (``data.get(weight, 1)``). A NaN weight raises
NetworkX's ``ValueError`` (naming the edge it names) unless ``ignore_nan``; weights that are not
plain finite numbers (NaN with ``ignore_nan``, infinities, strings, None, integers beyond int64,
integers and floats mixed where a float cannot hold the integer) run NetworkX's own function.
Declined: ``algorithm`` other than ``"kruskal"`` (Prim's and Borůvka's pick other trees among
equal weights), multigraphs (edge keys), directed graphs (NetworkX raises its own error), and
graph classes that override their views.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx import bulk, registry
from frontier_nx.lazy import LazyModule
from frontier_nx.registry import implements, standard_views

if TYPE_CHECKING:
    from frontier_nx.convert import FrontierGraph

np = LazyModule("numpy")
_spanning = LazyModule("algorithms.minimum_spanning_forest")
_graph = LazyModule("frontier.graph")

#: The largest integer every float64 holds exactly, with all below it.
_EXACT = 2**53


def _kruskal_only(arguments: dict[str, Any]) -> str | None:
    if arguments["algorithm"] != "kruskal":
        return (f"algorithm={arguments['algorithm']!r}: only Kruskal's forest is reproduced "
                "(Prim's and Borůvka's pick other trees among equal weights)")
    G = arguments["G"]
    if G.is_directed():
        return "a directed graph: NetworkX raises its own error"
    if G.is_multigraph():
        return "a multigraph: its edge keys stay in NetworkX"
    return standard_views(arguments)


def _numbers(values: list) -> np.ndarray | None:
    """``values`` as int64 or float64 where that keeps each one and its order, else None."""
    kinds = set(map(type, values))
    if all(issubclass(kind, (int, np.integer)) for kind in kinds):
        try:
            return np.array(values, dtype=np.int64)
        except OverflowError:
            return None
    if not all(issubclass(kind, (int, float, np.integer, np.floating)) for kind in kinds):
        return None
    whole = [v for v in values if isinstance(v, (int, np.integer))]
    if whole and max(abs(int(v)) for v in whole) > _EXACT:
        return None
    return np.array(values, dtype=np.float64)


def _forest(G: FrontierGraph, weight: Any, ignore_nan: bool) -> list[tuple] | None:
    """Kruskal's forest as NetworkX yields it, ``(u, v, data)`` in its order; None where
    NetworkX runs itself (weights that are not plain finite numbers)."""
    n = len(G.nodes)
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(G.offsets))
    weights = _numbers(G.edge_values(weight, 1))
    if weights is None:
        return None
    adjacency, nodes = G.original()._adj, G.nodes
    if weights.dtype.kind == "f" and not np.isfinite(weights).all():
        nan = np.flatnonzero(np.isnan(weights) & (tails <= G.heads))  # in G.edges() order
        if nan.size and not ignore_nan:
            u, v = nodes[tails[nan[0]]], nodes[G.heads[nan[0]]]
            raise ValueError(f"NaN found as an edge weight. Edge {(u, v, adjacency[u][v])}")
        return None
    graph = _graph.Graph.from_csr(G.offsets, G.heads, weights, directed=False)
    arcs = _spanning.minimum_spanning_forest(graph, target=registry.target()).arcs
    arcs = arcs[np.lexsort((arcs, weights[arcs]))]
    pairs = zip(tails[arcs].tolist(), G.heads[arcs].tolist(), strict=True)
    return [(nodes[u], nodes[v], adjacency[nodes[u]][nodes[v]]) for u, v in pairs]


@implements(declines=_kruskal_only)
def minimum_spanning_edges(G: FrontierGraph, algorithm: str = "kruskal", weight: Any = "weight",
                           keys: bool = True, data: bool = True,
                           ignore_nan: bool = False) -> Iterator[tuple]:
    def edges() -> Iterator[tuple]:
        forest = _forest(G, weight, ignore_nan)
        if forest is None:
            yield from nx.minimum_spanning_edges.orig_func(G.original(), algorithm, weight, keys,
                                                           data, ignore_nan)
            return
        for u, v, attributes in forest:
            yield (u, v, attributes) if data else (u, v)

    return edges()


@implements(declines=_kruskal_only)
def minimum_spanning_tree(G: FrontierGraph, weight: Any = "weight", algorithm: str = "kruskal",
                          ignore_nan: bool = False) -> nx.Graph:
    forest = _forest(G, weight, ignore_nan)
    H = G.original()
    if forest is None:
        return nx.minimum_spanning_tree.orig_func(H, weight, algorithm, ignore_nan)
    T = H.__class__()
    T.graph.update(H.graph)
    with bulk.paused():
        T.add_nodes_from(H.nodes.items())
        T.add_edges_from(forest)
    return T
