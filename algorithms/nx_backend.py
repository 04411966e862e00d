"""A NetworkX backend: ``networkx.pagerank(G, backend="frontier")`` and the other functions
listed in :data:`FUNCTIONS` run Frontier's algorithms on NetworkX graphs with any node labels
and return what NetworkX returns.

NetworkX's dispatch mechanism (NetworkX >= 3.2, "backends") finds this module through the entry
points ``networkx.backends`` (:class:`BackendInterface`) and ``networkx.backend_info``
(:func:`get_info`) declared in ``pyproject.toml``. For each call, NetworkX converts the graph
with :meth:`BackendInterface.convert_from_nx` into a :class:`FrontierGraph` (the CSR graph plus
the node labels in ``G``'s order; NetworkX caches the conversion on ``G``), then calls the
function of the same name here.

What differs from NetworkX, by design:

* ``bfs_edges`` yields the edges of *a* breadth-first tree, level by level: the same vertices
  at the same depths as NetworkX's, but where a vertex has several parents on the level above,
  the parent may be another one (NetworkX takes the first in adjacency order; a parallel BFS
  takes whichever claims the vertex first);
* float results may differ in the last bits (sums in another order); PageRank stops by
  NetworkX's rule, so agrees with it to the tolerance.

Options without a Frontier equivalent (``sort_neighbors``, a callable or a weighted
``betweenness_centrality``) make :meth:`BackendInterface.can_run` say no, with the reason.
Where the work runs: ``networkx.config.backends.frontier.target`` (default None: the GPU if
usable, else the CPU).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from algorithms.betweenness import betweenness_centrality as _betweenness
from algorithms.bfs import bfs
from algorithms.components import connected_components as _components
from algorithms.kcore import distinct, k_core
from algorithms.pagerank import ConvergenceError
from algorithms.pagerank import pagerank as _pagerank
from algorithms.sssp import sssp
from frontier.graph import Graph

__all__ = ["BackendInterface", "FrontierGraph", "get_info", "FUNCTIONS"]

#: The NetworkX functions this backend implements, with a note for NetworkX's documentation.
FUNCTIONS = {
    "bfs_edges": "Any breadth-first tree: parents may differ from NetworkX's where several are "
                 "possible. ``sort_neighbors`` is not supported.",
    "pagerank": "Power iteration with NetworkX's stopping rule, pull (one thread per vertex).",
    "betweenness_centrality": "Brandes' algorithm, level-synchronous; unweighted only.",
    "core_number": "Peeling with atomics; directed graphs use in + out degree as NetworkX.",
    "connected_components": "Afforest (Sutton et al.) on the undirected graph; each component "
                            "a set of nodes, as NetworkX yields them.",
    "single_source_dijkstra_path_length": "algorithms.sssp (method auto); a callable weight "
                                          "is not supported.",
}


def get_info() -> dict[str, Any]:
    """The ``networkx.backend_info`` entry point: what NetworkX shows about this backend."""
    return {
        "backend_name": "frontier",
        "project": "frontier-graph",
        "package": "frontier-graph",
        "url": "https://github.com/frontier-graph/frontier",
        "short_summary": "GPU graph algorithms written as advance / filter / compute operators",
        "functions": {name: {"additional_docs": note} for name, note in FUNCTIONS.items()},
        "default_config": {"target": None},
    }


@dataclass(frozen=True)
class FrontierGraph:
    """A NetworkX graph converted for Frontier: ``graph`` has vertex ``i`` for ``nodes[i]``;
    ``directed`` and ``multigraph`` describe the NetworkX graph it came from."""

    graph: Graph
    nodes: list
    directed: bool
    multigraph: bool

    __networkx_backend__ = "frontier"

    @property
    def index(self) -> dict:
        return {node: i for i, node in enumerate(self.nodes)}

    def vertex(self, node: Any) -> int:
        try:
            return self.index[node]
        except (KeyError, TypeError):
            raise nx.NetworkXError(f"The node {node} is not in the graph.") from None

    def labelled(self, values: np.ndarray) -> dict:
        return {node: float(x) for node, x in zip(self.nodes, values.tolist(), strict=True)}


def _convert(G: nx.Graph, weight: str | None, default: float) -> FrontierGraph:
    """The same for every function (NetworkX caches one conversion per graph and weight): each
    edge of ``G`` (an undirected edge as two arcs, a repeated edge of a multigraph once per
    repeat)."""
    nodes = list(G)
    index = {node: i for i, node in enumerate(nodes)}
    src, dst, weights = [], [], []
    for u, v, data in G.edges(data=True):
        src.append(index[u])
        dst.append(index[v])
        if weight is not None:
            weights.append(data.get(weight, default))
    graph = Graph.from_edges(src, dst, weights if weight is not None else None,
                             num_vertices=len(nodes), directed=G.is_directed())
    return FrontierGraph(graph, nodes, G.is_directed(), G.is_multigraph())


def _simple(graph: Graph) -> Graph:
    """``graph`` with each repeated arc once (NetworkX's path counts see a pair once)."""
    n = max(graph.num_vertices, 1)
    keys = distinct(graph.coo().src.astype(np.int64) * n + graph.col_indices)
    return Graph.from_edges(keys // n, keys % n, num_vertices=graph.num_vertices)


def _arcs_undirected(graph: Graph) -> Graph:
    """Every arc of a directed graph as an undirected edge: degrees become in + out degrees,
    as NetworkX's ``core_number`` counts them on a directed graph."""
    return Graph.from_edges(graph.coo().src, graph.col_indices, num_vertices=graph.num_vertices,
                            directed=False)


#: (function, parameter, position, refused value): arguments this backend cannot honour.
_UNSUPPORTED = (
    ("bfs_edges", "sort_neighbors", 4, lambda value: value is not None),
    ("betweenness_centrality", "weight", 3, lambda value: value is not None),
    ("pagerank", "weight", 6, callable),
    ("single_source_dijkstra_path_length", "weight", 3, callable),
)


def _target() -> Any:
    return getattr(getattr(nx.config.backends, "frontier", None), "target", None)


class BackendInterface:
    """The object the ``networkx.backends`` entry point names: conversions, ``can_run``, and
    one function per name of :data:`FUNCTIONS`."""

    @staticmethod
    def convert_from_nx(G: nx.Graph, edge_attrs: dict | None = None, node_attrs: Any = None,
                        preserve_edge_attrs: bool = False, preserve_node_attrs: bool = False,
                        preserve_graph_attrs: bool = False, name: str | None = None,
                        graph_name: str | None = None) -> FrontierGraph:
        """``G`` as a :class:`FrontierGraph`, with the one edge attribute ``edge_attrs`` names
        (``{attribute: default}``) as weights."""
        if isinstance(G, FrontierGraph):
            return G
        weight, default = next(iter(edge_attrs.items())) if edge_attrs else (None, 1)
        return _convert(G, weight, default)

    @staticmethod
    def convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
        """Results are NetworkX's own types already (dicts, generators)."""
        return obj

    @staticmethod
    def can_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        """Whether this backend runs ``name`` with these arguments (a string says why not)."""
        if name not in FUNCTIONS:
            return f"{name} is not implemented by the frontier backend"
        for function, parameter, position, refused in _UNSUPPORTED:
            value = kwargs[parameter] if parameter in kwargs else (
                args[position] if len(args) > position else None)
            if function == name and refused(value):
                return f"{parameter}={value!r} is not supported by the frontier backend"
        return True

    @staticmethod
    def bfs_edges(G: FrontierGraph, source: Any, reverse: bool = False,
                  depth_limit: int | None = None, sort_neighbors: Any = None
                  ) -> Iterator[tuple]:
        if sort_neighbors is not None:
            raise NotImplementedError("sort_neighbors is not supported by the frontier backend")
        return _bfs_edges(G, source, reverse, depth_limit)

    @staticmethod
    def pagerank(G: FrontierGraph, alpha: float = 0.85, personalization: dict | None = None,
                 max_iter: int = 100, tol: float = 1e-06, nstart: dict | None = None,
                 weight: str | None = "weight", dangling: dict | None = None) -> dict:
        if not G.nodes:
            return {}

        def per_vertex(values: dict | None) -> np.ndarray | None:
            return None if values is None else np.array(
                [values.get(node, 0) for node in G.nodes], dtype=np.float64)

        try:
            result = _pagerank(G.graph, alpha=alpha, personalization=per_vertex(personalization),
                               max_iter=max_iter, tol=tol, nstart=per_vertex(nstart),
                               dangling=per_vertex(dangling), weighted=weight is not None,
                               target=_target())
        except ConvergenceError:
            raise nx.PowerIterationFailedConvergence(max_iter) from None
        return G.labelled(result.ranks)

    @staticmethod
    def betweenness_centrality(G: FrontierGraph, k: int | None = None,
                               normalized: bool = True, weight: str | None = None,
                               endpoints: bool = False, seed: Any = None) -> dict:
        if weight is not None:
            raise NotImplementedError("weighted betweenness is not supported by the frontier "
                                      "backend")
        sources = None
        if k is not None and k != len(G.nodes):  # NetworkX samples k nodes with the seed
            sources = seed.sample(range(len(G.nodes)), k)
        graph = _simple(G.graph) if G.multigraph else G.graph
        result = _betweenness(graph, sources, normalized=normalized, endpoints=endpoints,
                              target=_target())
        return G.labelled(result.values)

    @staticmethod
    def core_number(G: FrontierGraph) -> dict:
        if np.any(G.graph.coo().src == G.graph.col_indices):
            raise nx.NetworkXNotImplemented(
                "Input graph has self loops which is not permitted; "
                "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")
        graph = _arcs_undirected(G.graph) if G.directed else G.graph
        cores = k_core(graph, target=_target()).core_numbers
        return {node: int(c) for node, c in zip(G.nodes, cores.tolist(), strict=True)}

    @staticmethod
    def connected_components(G: FrontierGraph) -> Iterator[set]:
        if G.directed:
            raise nx.NetworkXNotImplemented("not implemented for directed type")
        labels = _components(G.graph, target=_target()).labels
        return _groups(G.nodes, labels)

    @staticmethod
    def single_source_dijkstra_path_length(G: FrontierGraph, source: Any,
                                           cutoff: float | None = None,
                                           weight: str | None = "weight") -> dict:
        if callable(weight):
            raise NotImplementedError("a callable weight is not supported by the frontier "
                                      "backend")
        result = sssp(G.graph, G.vertex(source), target=_target())
        distances = result.distances
        reached = np.flatnonzero(np.isfinite(distances))
        if cutoff is not None:
            reached = reached[distances[reached] <= cutoff]
        order = reached[np.argsort(distances[reached], kind="stable")]
        weights = G.graph.weights
        exact = weights is None or weights.size == 0 or np.issubdtype(weights.dtype, np.integer)
        values = distances[order].astype(np.int64) if exact else distances[order]
        return {G.nodes[v]: d for v, d in zip(order.tolist(), values.tolist(), strict=True)}


def _groups(nodes: list, labels: np.ndarray) -> Iterator[set]:
    """The nodes of each label, one set per component, in order of each one's first node."""
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    for members in np.split(order, bounds) if order.size else []:
        yield {nodes[i] for i in members.tolist()}


def _bfs_edges(G: FrontierGraph, source: Any, reverse: bool, depth_limit: int | None
               ) -> Iterator[tuple]:
    s = G.vertex(source)
    graph = G.graph
    if reverse and G.directed:
        graph = Graph.from_edges(graph.col_indices, graph.coo().src,
                                 num_vertices=graph.num_vertices)
    result = bfs(graph, s, target=_target())
    depth = result.distances
    limit = graph.num_vertices if depth_limit is None else depth_limit
    reached = np.flatnonzero((depth > 0) & (depth <= limit))
    order = reached[np.argsort(depth[reached], kind="stable")]
    parents = result.predecessors[order]
    nodes = G.nodes
    for parent, child in zip(parents.tolist(), order.tolist(), strict=True):
        yield nodes[parent], nodes[child]
