"""What the degrees and reciprocal arcs of the conversion answer, for NetworkX's degree
centralities, isolates and reciprocity: counted with NumPy over the converted arcs
(:meth:`frontier_nx.convert.FrontierGraph.degrees`), no search at all. Degrees count as
NetworkX's ``G.degree`` does (a self-loop twice in an undirected graph, every parallel edge);
the centralities multiply the same integers by the same ``1 / (n - 1)`` and the reciprocities
divide the same integers as NetworkX, so the floats are NetworkX's to the last bit. Declined:
multigraphs' reciprocity (NetworkX counts edge keys there).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx.lazy import LazyModule
from frontier_nx.registry import implements, n_in_graph

if TYPE_CHECKING:
    from frontier_nx.convert import FrontierGraph

np = LazyModule("numpy")


def _centrality(G: FrontierGraph, direction: str) -> dict:
    if len(G) <= 1:
        return dict.fromkeys(G.nodes, 1)
    scale = 1.0 / (len(G) - 1.0)
    return G.labelled(G.degrees(direction) * scale)


@implements()
def degree_centrality(G: FrontierGraph) -> dict:
    return _centrality(G, "both")


@implements()
def in_degree_centrality(G: FrontierGraph) -> dict:
    return _centrality(G, "in")


@implements()
def out_degree_centrality(G: FrontierGraph) -> dict:
    return _centrality(G, "out")


@implements()
def isolates(G: FrontierGraph) -> Iterator:
    nodes = G.nodes
    return (nodes[v] for v in np.flatnonzero(G.degrees() == 0).tolist())


@implements()
def number_of_isolates(G: FrontierGraph) -> int:
    return int(np.count_nonzero(G.degrees() == 0))


@implements(declines=n_in_graph)
def is_isolate(G: FrontierGraph, n: Any) -> bool:
    return bool(G.degrees()[G.index[n]] == 0)


def _reciprocal(G: FrontierGraph) -> tuple[np.ndarray, np.ndarray]:
    """Per vertex: its distinct neighbours both ways (in + out) and its out-arcs whose reverse
    arc exists too (a self-loop is its own reverse), as NetworkX's sets count them."""
    n = len(G)
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(G.offsets))
    heads = G.heads.astype(np.int64)
    reciprocal = np.isin(heads * n + tails, tails * n + heads)
    return G.degrees("both"), np.bincount(tails[reciprocal], minlength=n)


def _directed_simple(arguments: dict[str, Any]) -> str | None:
    """NetworkX refuses undirected multigraphs only; a directed multigraph's reciprocity
    counts edge keys (``to_undirected`` merges (u, v, k) with (v, u, k)) and an undirected
    graph's per-node reciprocity fails in NetworkX (no predecessors): both stay there."""
    G = arguments["G"]
    if G.is_multigraph():
        return "a multigraph's reciprocity counts edge keys: it stays in NetworkX"
    if not G.is_directed() and arguments.get("nodes") is not None:
        return "an undirected graph's per-node reciprocity stays in NetworkX (its error)"
    return None


def _overall(G: FrontierGraph) -> float:
    edges = G.number_of_edges()
    if edges == 0:
        raise nx.NetworkXError("Not defined for empty graphs")
    if not G.directed:  # every edge is its own reverse: none overlaps
        return 0 / edges
    totals, overlap = _reciprocal(G)
    tails = np.repeat(np.arange(len(G)), np.diff(G.offsets))
    loops = int(np.count_nonzero(tails == G.heads))
    return (int(overlap.sum()) - loops) / edges


@implements(declines=_directed_simple)
def overall_reciprocity(G: FrontierGraph) -> float:
    return _overall(G)


@implements(declines=_directed_simple)
def reciprocity(G: FrontierGraph, nodes: Any = None) -> Any:
    if nodes is None:
        return _overall(G)
    totals, overlap = _reciprocal(G)

    def of(v: int) -> float | None:
        total = int(totals[v])
        return None if total == 0 else 2 * int(overlap[v]) / total

    try:
        single = nodes in G.index
    except TypeError:  # a list of nodes, say: not a node
        single = False
    if single:
        value = of(G.index[nodes])
        if value is None:
            raise nx.NetworkXError("Not defined for isolated nodes.")
        return value
    return {v: of(G.index[v]) for v in G.original().nbunch_iter(nodes)}
