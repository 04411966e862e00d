"""Triangles and clustering through NetworkX's functions: :func:`algorithms.triangle_count`
(an advance over the edges with neighbour intersections) counts the triangles at every vertex of
the undirected simple graph, which is what NetworkX counts (self-loops ignored, parallel edges of
a multigraph one neighbour; as in NetworkX, a multigraph's clustering and its triangles at given
nodes raise ``NetworkXNotImplemented``).

``triangles`` returns NetworkX's forms: a dict in node order, an int for a single node, a dict
in ``nbunch_iter`` order for a container of nodes. ``clustering`` of an undirected graph without
weights is ``t / (d (d - 1))`` with ``t`` twice the triangles and ``d`` the distinct neighbours
other than the node itself, computed from integers exactly as NetworkX does (its int 0 where
``t`` is 0). Declined: ``weight`` (Onnela's geometric means) and directed graphs' clustering
(Fagiolo's directed triangles). NetworkX's ``not_implemented_for("directed")`` keeps directed
graphs from ``triangles`` before dispatch. ``average_clustering`` sums the same values in the
same order; ``transitivity`` divides the same integer sums (twice the triangles, ``d (d - 1)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx import registry
from frontier_nx.lazy import LazyModule
from frontier_nx.registry import implements

if TYPE_CHECKING:
    from frontier_nx.convert import FrontierGraph

np = LazyModule("numpy")
_triangles = LazyModule("algorithms.triangles")


def _counts(G: FrontierGraph) -> tuple[np.ndarray, np.ndarray]:
    """Triangles at each vertex and distinct neighbours other than itself, in node order."""
    simple = G.graph().simple(directed=False)
    result = _triangles.triangle_count(simple, target=registry.target())
    return result.per_vertex, simple.out_degrees()


def _by_nodes(G: FrontierGraph, nodes: Any, values: list) -> Any:
    """NetworkX's form of per-node ``values``: all of them, one node's, or a container's (in
    the order of NetworkX's ``nbunch_iter`` over the graph the call was given)."""
    if nodes is None:
        return G.labelled(values)
    try:
        single = nodes in G.index
    except TypeError:  # a list of nodes, say: not a node
        single = False
    if single:
        return values[G.index[nodes]]
    return {v: values[G.index[v]] for v in G.original().nbunch_iter(nodes)}


def _plain_undirected(arguments: dict[str, Any]) -> str | None:
    if arguments["weight"] is not None:
        return "weight is given: weighted clustering (geometric means of weights) stays in NetworkX"
    if arguments["G"].is_directed():
        return "a directed graph's clustering (Fagiolo's directed triangles) stays in NetworkX"
    return None


def _not_for_multigraphs(G: FrontierGraph) -> None:
    """NetworkX's per-node triangle iterator refuses multigraphs; so do its callers here."""
    if G.is_multigraph():
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")


@implements()
def triangles(G: FrontierGraph, nodes: Any = None) -> Any:
    if nodes is not None:
        _not_for_multigraphs(G)
    per_vertex, _ = _counts(G)
    return _by_nodes(G, nodes, per_vertex.tolist())


@implements(declines=_plain_undirected)
def clustering(G: FrontierGraph, nodes: Any = None, weight: str | None = None) -> Any:
    _not_for_multigraphs(G)
    per_vertex, degrees = _counts(G)
    values = [0 if t == 0 else 2 * t / (d * (d - 1))
              for t, d in zip(per_vertex.tolist(), degrees.tolist(), strict=True)]
    return _by_nodes(G, nodes, values)



@implements(declines=_plain_undirected)
def average_clustering(G: FrontierGraph, nodes: Any = None, weight: str | None = None,
                       count_zeros: bool = True) -> float:
    c = clustering(G, nodes, weight=weight).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


def _undirected(arguments: dict[str, Any]) -> str | None:
    if arguments["G"].is_directed():
        return "a directed graph's transitivity (NetworkX counts its successors) stays in NetworkX"
    return None


@implements(declines=_undirected)
def transitivity(G: FrontierGraph) -> float:
    _not_for_multigraphs(G)
    if not G.nodes:
        return 0
    per_vertex, degrees = _counts(G)
    triangles = 2 * int(per_vertex.sum())
    contri = int((degrees.astype(np.int64) * (degrees.astype(np.int64) - 1)).sum())
    return 0 if triangles == 0 else triangles / contri
