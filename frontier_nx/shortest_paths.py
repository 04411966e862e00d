"""Weighted shortest paths through NetworkX's functions: the distances come from
:func:`algorithms.sssp` (the method its policy picks: near–far, Δ-stepping, Bellman–Ford;
Davidson et al., Meyer and Sanders, Busato & Bombieri §3) and :func:`algorithms.apsp`
(Floyd–Warshall, Harish & Narayanan §3.4), parallel edges combined by their minimum as NetworkX
does; the paths are rebuilt on the host from those exact distances.

NetworkX's Dijkstra (``_dijkstra_multisource``) keeps, for each node, the path through the first
popped neighbour that reached its final distance, and pops by (distance, push count); with
positive weights that order is a fixed point computed here over the tight arcs (each node's key:
its distance, the pop rank of its parent, the parent's arc), so the paths and the order of the
distances are NetworkX's own. Bellman–Ford's paths (its SPFA queue order) are reproduced where
they are unique: every reached node has one tight in-arc.

Exact fallback: where a float64 result could differ from NetworkX's Python sums (integer path
sums past 2**53, weights mixing int and float or of other types, non-finite weights), where
Dijkstra meets a negative weight (NetworkX raises or not depending on its visit order), where
Dijkstra's paths meet a zero weight or their pop order needs more than 64 rounds, where
Bellman–Ford's paths are not unique, and where Floyd–Warshall meets a negative cycle (or the
numpy form a reordered ``nodelist`` with float weights, its pivots' order), the call runs
NetworkX's own pure-Python function on a NetworkX graph rebuilt from the conversion (the same
nodes, arcs in the same adjacency order, the same edge values), which returns exactly what
NetworkX returns. Distances of dicts without paths are ordered by distance, not NetworkX's pop
order among equal distances (dict equality ignores the order).
"""

from __future__ import annotations

import functools
import inspect
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx import bulk, registry
from frontier_nx.lazy import LazyModule
from frontier_nx.registry import callable_weight, implements, stops_at_the_target

if TYPE_CHECKING:
    from frontier.graph import Graph
    from frontier_nx.convert import FrontierGraph

np = LazyModule("numpy")
_apsp = LazyModule("algorithms.apsp")
_sssp = LazyModule("algorithms.sssp")
_errors = LazyModule("frontier.errors")
_graph = LazyModule("frontier.graph")

#: Integer sums up to this size are exact in the float64 distances the library returns.
_EXACT_FLOAT = 2 ** 53
#: Rounds of the pop-order fixed point before NetworkX's own heap takes over (each is O(E)).
_ORDER_ROUNDS = 64
_FLOAT_TOP = sys.float_info.max * (1 - 2.0 ** -20)


class _Fallback(Exception):
    """The call's weights need NetworkX's own arithmetic (see the module docstring)."""


# the weights ------------------------------------------------------------------------------------

def _arc_weights(G: FrontierGraph, weight: str | None, mixed: bool = False
                 ) -> np.ndarray | None:
    """One weight per arc (the minimum of parallel edges), None where unweighted; raises
    :class:`_Fallback` where float64 arithmetic could differ from NetworkX's Python sums:
    values other than ints and floats (bools, None, numpy scalars), ints mixed with floats
    unless ``mixed`` (whose sums are float64's while the ints stay below 2**53), non-finite
    values, paths whose sums could pass 2**53 (ints) or float64's range."""
    if weight is None:
        return None
    kinds = G.weight_kinds(weight)
    if not (kinds <= {int} or kinds == {float} or (mixed and kinds <= {int, float})):
        raise _Fallback
    w = G.weights(weight, "min")
    if w.dtype.kind == "f" and not np.isfinite(w).all():
        raise _Fallback
    exact_ints = int in kinds
    if _graph.path_bound(w, len(G)) >= (_EXACT_FLOAT if exact_ints else _FLOAT_TOP):
        raise _Fallback
    return w


def _integral(w: np.ndarray | None) -> bool:
    return w is None or w.dtype.kind == "i"


def _python(values: np.ndarray, integral: bool) -> list:
    return values.astype(np.int64).tolist() if integral else values.tolist()


def _exact(fallback: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run the decorated implementation; where it raises :class:`_Fallback`, ``fallback`` (a
    NetworkX function that dispatches no further) with the call's arguments by name, ``G``
    rebuilt as a NetworkX graph."""
    def wrap(function: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(function)

        @functools.wraps(function)
        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except _Fallback:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                arguments = dict(bound.arguments)
                G = arguments.pop("G")
                return fallback(G.rebuilt(arguments["weight"]), **arguments)
        return call
    return wrap


def _original(name: str) -> Callable[..., Any]:
    """NetworkX's own pure-Python ``name``."""
    return getattr(nx, name).orig_func


# the distances ----------------------------------------------------------------------------------

def _sources(G: FrontierGraph, sources: Any) -> list[int]:
    """Vertices of ``sources`` in their order, first occurrences (NetworkX's errors)."""
    if not sources:
        raise ValueError("sources must not be empty")
    vertices: dict[int, None] = {}
    for s in sources:
        if not _has(G, s):
            raise nx.NodeNotFound(f"Node {s} not found in graph")
        vertices.setdefault(G.vertex(s))
    return list(vertices)


def _has(G: FrontierGraph, node: Any) -> bool:
    try:
        return node in G.index
    except TypeError:
        return False


def _distances(G: FrontierGraph, sources: list[int], weight: str | None, negative: bool
               ) -> tuple[np.ndarray, np.ndarray | None]:
    """float64 distances from the nearest source (inf: unreachable) and the arc weights;
    negative weights only where ``negative`` (Bellman–Ford), else :class:`_Fallback`."""
    w = _arc_weights(G, weight)
    if w is not None and w.size and w.min() < 0 and not negative:
        raise _Fallback
    graph, root = (G.graph(weight), sources[0]) if len(sources) == 1 else (
        _rooted(G, w, sources), len(G))
    try:
        run = _sssp.sssp(graph, root, target=registry.target())
    except _errors.NegativeCycleError:
        raise nx.NetworkXUnbounded("Negative cycle detected.") from None
    return run.distances[:len(G)], w


def _rooted(G: FrontierGraph, w: np.ndarray | None, roots: Any) -> Graph:
    """The conversion's arcs (weights ``w``, 1 where None) and one more vertex, ``len(G)``,
    with an arc of weight 0 to each of ``roots``: one search from it reaches each vertex at its
    distance from the nearest root."""
    n = len(G)
    roots = np.asarray(roots, np.int64)
    w = np.ones(G.num_arcs, np.int64) if w is None else w
    tails = np.concatenate((_tails(G), np.full(roots.size, n, np.int64)))
    heads = np.concatenate((G.heads, roots))
    weights = np.concatenate((w, np.zeros(roots.size, w.dtype)))
    return _graph.Graph.from_edges(tails, heads, weights, num_vertices=n + 1, directed=True)


def _tails(G: FrontierGraph) -> np.ndarray:
    return np.repeat(np.arange(len(G), dtype=np.int64), np.diff(G.offsets))


def _tight(G: FrontierGraph, distances: np.ndarray, w: np.ndarray | None,
           sources: list[int]) -> np.ndarray:
    """The arcs on shortest paths: ``dist[tail] + weight == dist[head]``, head not a source."""
    tails = _tails(G)
    step = np.ones(G.num_arcs) if w is None else w.astype(np.float64)
    with np.errstate(invalid="ignore"):
        tight = np.isfinite(distances[tails]) & (distances[tails] + step == distances[G.heads])
    tight[np.isin(G.heads, sources)] = False
    return np.flatnonzero(tight)


def _source_key(n: int, sources: list[int]) -> np.ndarray:
    """Each source's place in ``sources``, ``n`` for the other vertices."""
    key = np.full(n, n, np.int64)
    key[sources] = np.arange(len(sources))
    return key


def _dijkstra_order(G: FrontierGraph, distances: np.ndarray, w: np.ndarray | None,
                    sources: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """NetworkX's pop order of the reached vertices and each one's parent arc (-1 at the
    sources), weights positive: a vertex's key is (distance, pop rank of the first popped
    tight neighbour, that neighbour's arc), the sources first in their order. Each round fixes
    at least the next distance; after :data:`_ORDER_ROUNDS` rounds, :class:`_Fallback`."""
    n = len(G)
    tight = _tight(G, distances, w, sources)
    tails, heads = _tails(G)[tight], G.heads[tight]
    reached = np.flatnonzero(np.isfinite(distances))
    source_key = _source_key(n, sources)
    rank = np.empty(n, np.int64)
    rank[reached[np.lexsort((source_key[reached], distances[reached]))]] = np.arange(reached.size)
    parent = np.full(n, -1, np.int64)
    for _ in range(_ORDER_ROUNDS):
        by_head = np.lexsort((rank[tails], heads))
        first = by_head[np.r_[True, heads[by_head][1:] != heads[by_head][:-1]]] if (
            by_head.size) else by_head
        parent[heads[first]] = tight[first]
        parent_rank = np.full(n, -1, np.int64)
        parent_rank[heads[first]] = rank[tails[first]]
        second = np.where(parent >= 0, parent, source_key)
        order = reached[np.lexsort((second[reached], parent_rank[reached],
                                    distances[reached]))]
        new = np.empty(n, np.int64)
        new[order] = np.arange(order.size)
        if np.array_equal(new[reached], rank[reached]):
            return order, parent
        rank = new
    raise _Fallback


def _paths(G: FrontierGraph, order: np.ndarray, parent: np.ndarray) -> dict:
    """``{node: path}`` in ``order``, each path its parent's plus the node."""
    tails = _tails(G)
    nodes = G.nodes
    paths: dict = {}
    by_vertex: dict[int, list] = {}
    with bulk.paused():
        for v, arc in zip(order.tolist(), parent[order].tolist(), strict=True):
            path = [nodes[v]] if arc < 0 else by_vertex[int(tails[arc])] + [nodes[v]]
            by_vertex[v] = path
            paths[nodes[v]] = path
    return paths


def _labelled(G: FrontierGraph, order: np.ndarray, distances: np.ndarray, integral: bool,
              sources: list[int]) -> dict:
    """``{node: distance}`` in ``order``: Python ints where every weight is an int, floats
    otherwise, the sources' 0 an int as NetworkX starts them."""
    values = _python(distances[order], integral)
    result = dict(zip(G.labels(order), values, strict=True))
    nodes = G.nodes
    for s in sources:
        result[nodes[s]] = 0
    return result


def _within(distances: np.ndarray, cutoff: Any, sources: list[int]) -> np.ndarray:
    """The reached vertices NetworkX keeps under ``cutoff`` (the sources always)."""
    keep = np.isfinite(distances)
    if cutoff is not None:
        with np.errstate(invalid="ignore"):
            keep &= ~(distances > cutoff)
        keep[sources] = True
    return keep


def _dijkstra(G: FrontierGraph, sources: Any, cutoff: Any, weight: str | None, paths: bool
              ) -> tuple[dict, dict | None]:
    vertices = _sources(G, sources)
    if cutoff is not None and cutoff < 0:
        # nothing lies within a negative distance, the sources neither (issue 25), where
        # NetworkX 3.6.1 still returns them ({source: 0}); its own tests pass no such cutoff
        return {}, {} if paths else None
    distances, w = _distances(G, vertices, weight, negative=False)
    if paths and w is not None and w.size and w.min() == 0:
        raise _Fallback
    distances[~_within(distances, cutoff, vertices)] = np.inf
    if paths:
        order, parent = _dijkstra_order(G, distances, w, vertices)
    else:
        reached = np.flatnonzero(np.isfinite(distances))
        order = reached[np.lexsort((_source_key(len(G), vertices)[reached],
                                    distances[reached]))]
        parent = None
    lengths = _labelled(G, order, distances, _integral(w), vertices)
    if parent is None:
        return lengths, None
    found = _paths(G, order, parent)
    if registry.networkx_version() < (3, 6):  # its paths in the order it first reached them
        names = G.nodes
        found = {names[v]: found[names[v]] for v in _discovered(G, order, distances, w,
                                                                  cutoff, vertices).tolist()}
    return lengths, found


def _discovered(G: FrontierGraph, order: np.ndarray, distances: np.ndarray,
                w: np.ndarray | None, cutoff: Any, sources: list[int]) -> np.ndarray:
    """The vertices of ``order`` (NetworkX's pop order) in the order NetworkX's Dijkstra
    first reaches them, which orders its paths before NetworkX 3.6: the sources in their order,
    then each vertex by the first popped vertex with an arc to it within ``cutoff`` (its pop
    rank, then the arc's place in its row)."""
    n = len(G)
    rank = np.full(n, n, np.int64)
    rank[order] = np.arange(order.size)
    tails, heads = _tails(G), G.heads
    step = np.ones(G.num_arcs) if w is None else w.astype(np.float64)
    reach = distances[tails] + step
    valid = (rank[tails] < rank[heads]) & (rank[heads] < n)
    if cutoff is not None:
        valid &= ~(reach > cutoff)
    arcs = np.flatnonzero(valid)
    first = np.full(n, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(first, heads[arcs], rank[tails[arcs]] * G.num_arcs + arcs)
    first[sources] = np.arange(len(sources)) - len(sources)
    return order[np.argsort(first[order], kind="stable")]


# Dijkstra -----------------------------------------------------------------------------------

@implements(declines=callable_weight, stays_in_networkx=stops_at_the_target)
@_exact(_original("multi_source_dijkstra"))
def multi_source_dijkstra(G: FrontierGraph, sources: Any, target: Any = None,
                          cutoff: Any = None, weight: str | None = "weight") -> Any:
    _sources(G, sources)
    if target in sources:
        return (0, [target])
    lengths, paths = _dijkstra(G, sources, cutoff, weight, paths=True)
    if target is None:
        return (lengths, paths)
    if target not in lengths:
        raise nx.NetworkXNoPath(f"No path to {target}.")
    return (lengths[target], paths[target])


@implements(declines=callable_weight)
@_exact(lambda H, **a: _original("multi_source_dijkstra")(H, **a)[1])
def multi_source_dijkstra_path(G: FrontierGraph, sources: Any, cutoff: Any = None,
                               weight: str | None = "weight") -> dict:
    return _dijkstra(G, sources, cutoff, weight, paths=True)[1]


@implements(declines=callable_weight)
@_exact(_original("multi_source_dijkstra_path_length"))
def multi_source_dijkstra_path_length(G: FrontierGraph, sources: Any, cutoff: Any = None,
                                      weight: str | None = "weight") -> dict:
    return _dijkstra(G, sources, cutoff, weight, paths=False)[0]


@implements(declines=callable_weight, stays_in_networkx=stops_at_the_target)
@_exact(lambda H, source, **a: _original("multi_source_dijkstra")(H, {source}, **a))
def single_source_dijkstra(G: FrontierGraph, source: Any, target: Any = None,
                           cutoff: Any = None, weight: str | None = "weight") -> Any:
    return multi_source_dijkstra(G, {source}, target=target, cutoff=cutoff, weight=weight)


@implements(declines=callable_weight)
@_exact(lambda H, source, **a: _original("multi_source_dijkstra")(H, {source}, **a)[1])
def single_source_dijkstra_path(G: FrontierGraph, source: Any, cutoff: Any = None,
                                weight: str | None = "weight") -> dict:
    return _dijkstra(G, {source}, cutoff, weight, paths=True)[1]


@implements(declines=callable_weight)
@_exact(lambda H, source, **a: _original("multi_source_dijkstra_path_length")(
    H, {source}, **a))
def single_source_dijkstra_path_length(G: FrontierGraph, source: Any, cutoff: Any = None,
                                       weight: str | None = "weight") -> dict:
    return _dijkstra(G, {source}, cutoff, weight, paths=False)[0]


@implements(declines=callable_weight, stays_in_networkx=stops_at_the_target)
@_exact(lambda H, source, **a: _original("multi_source_dijkstra")(H, {source}, **a)[1])
def dijkstra_path(G: FrontierGraph, source: Any, target: Any,
                  weight: str | None = "weight") -> list:
    return multi_source_dijkstra(G, {source}, target=target, weight=weight)[1]


@implements(declines=callable_weight, stays_in_networkx=stops_at_the_target)
@_exact(_original("dijkstra_path_length"))
def dijkstra_path_length(G: FrontierGraph, source: Any, target: Any,
                         weight: str | None = "weight") -> Any:
    if not _has(G, source):
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if source == target:
        return 0
    lengths = _dijkstra(G, [source], None, weight, paths=False)[0]
    if target not in lengths:
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return lengths[target]


@implements(declines=callable_weight)
def all_pairs_dijkstra_path_length(G: FrontierGraph, cutoff: Any = None,
                                   weight: str | None = "weight") -> Iterator[tuple[Any, dict]]:
    for node in G.nodes:
        yield (node, single_source_dijkstra_path_length(G, node, cutoff=cutoff, weight=weight))


@implements(declines=callable_weight)
def all_pairs_dijkstra(G: FrontierGraph, cutoff: Any = None, weight: str | None = "weight"
                       ) -> Iterator[tuple[Any, tuple[dict, dict]]]:
    for node in G.nodes:
        yield (node, single_source_dijkstra(G, node, cutoff=cutoff, weight=weight))


@implements(declines=callable_weight)
def all_pairs_dijkstra_path(G: FrontierGraph, cutoff: Any = None,
                            weight: str | None = "weight") -> Iterator[tuple[Any, dict]]:
    for node in G.nodes:
        yield (node, single_source_dijkstra_path(G, node, cutoff=cutoff, weight=weight))


# Bellman–Ford -------------------------------------------------------------------------------

def _bellman_ford(G: FrontierGraph, source: Any, weight: str | None
                  ) -> tuple[np.ndarray, np.ndarray | None, int]:
    if not _has(G, source):
        raise nx.NodeNotFound(f"Source {source} not in G")
    s = G.vertex(source)
    distances, w = _distances(G, [s], weight, negative=True)
    return distances, w, s


def _bellman_ford_lengths(G: FrontierGraph, distances: np.ndarray, w: np.ndarray | None,
                          s: int) -> dict:
    reached = np.flatnonzero(np.isfinite(distances))
    return _labelled(G, reached, distances, _integral(w), [s])


def _bellman_ford_paths(G: FrontierGraph, distances: np.ndarray, w: np.ndarray | None,
                        s: int) -> dict:
    """The shortest paths where each is the only one (one tight in-arc per reached vertex),
    which NetworkX's SPFA finds whatever its queue order; else :class:`_Fallback`."""
    tight = _tight(G, distances, w, [s])
    heads = G.heads[tight]
    reached = np.isfinite(distances)
    counts = np.bincount(heads, minlength=len(G))
    if np.any(counts[reached] != np.where(np.arange(len(G)) == s, 0, 1)[reached]):
        raise _Fallback
    parent = np.full(len(G), -1, np.int64)
    parent[heads] = tight
    tails = _tails(G)[tight]
    order, frontier = [np.array([s], np.int64)], np.array([s], np.int64)
    while frontier.size:
        frontier = heads[np.isin(tails, frontier)]
        order.append(frontier)
    return _paths(G, np.concatenate(order), parent)


@implements(declines=callable_weight)
@_exact(_original("single_source_bellman_ford_path_length"))
def single_source_bellman_ford_path_length(G: FrontierGraph, source: Any,
                                           weight: str | None = "weight") -> dict:
    return _bellman_ford_lengths(G, *_bellman_ford(G, source, weight))


@implements(declines=callable_weight)
@_exact(_original("single_source_bellman_ford"))
def single_source_bellman_ford(G: FrontierGraph, source: Any, target: Any = None,
                               weight: str | None = "weight") -> Any:
    if source == target:
        if not _has(G, source):
            raise nx.NodeNotFound(f"Node {source} is not found in the graph")
        return (0, [source])
    distances, w, s = _bellman_ford(G, source, weight)
    lengths = _bellman_ford_lengths(G, distances, w, s)
    if target is not None and target not in lengths:
        raise nx.NetworkXNoPath(f"Target {target} cannot be reached from given sources")
    paths = _bellman_ford_paths(G, distances, w, s)
    if target is None:
        return (lengths, paths)
    return (lengths[target], paths[target])


@implements(declines=callable_weight)
@_exact(lambda H, **a: _original("single_source_bellman_ford")(H, **a)[1])
def single_source_bellman_ford_path(G: FrontierGraph, source: Any,
                                    weight: str | None = "weight") -> dict:
    return single_source_bellman_ford(G, source, weight=weight)[1]


@implements(declines=callable_weight)
@_exact(lambda H, **a: _original("single_source_bellman_ford")(H, **a)[1])
def bellman_ford_path(G: FrontierGraph, source: Any, target: Any,
                      weight: str | None = "weight") -> list:
    return single_source_bellman_ford(G, source, target=target, weight=weight)[1]


@implements(declines=callable_weight)
@_exact(_original("bellman_ford_path_length"))
def bellman_ford_path_length(G: FrontierGraph, source: Any, target: Any,
                             weight: str | None = "weight") -> Any:
    if source == target:
        if not _has(G, source):
            raise nx.NodeNotFound(f"Node {source} not found in graph")
        return 0
    lengths = _bellman_ford_lengths(G, *_bellman_ford(G, source, weight))
    if target not in lengths:
        raise nx.NetworkXNoPath(f"node {target} not reachable from {source}")
    return lengths[target]


def _negative_edge_cycle_in_networkx(H: nx.Graph, weight: Any, heuristic: bool) -> bool:
    """NetworkX's ``negative_edge_cycle`` on ``H``, its Bellman–Ford undispatched."""
    newnode = -1
    while newnode in H:
        newnode -= 1
    H.add_edges_from([(newnode, n) for n in list(H)])
    try:
        _original("bellman_ford_predecessor_and_distance")(H, newnode, weight=weight,
                                                            heuristic=heuristic)
    except nx.NetworkXUnbounded:
        return True
    return False


@implements(declines=callable_weight)
@_exact(_negative_edge_cycle_in_networkx)
def negative_edge_cycle(G: FrontierGraph, weight: str | None = "weight",
                        heuristic: bool = True) -> bool:
    if G.num_arcs == 0:
        return False
    w = _arc_weights(G, weight, mixed=True)
    if w is None or w.min() >= 0:
        return False
    try:
        _sssp.sssp(_rooted(G, w, np.arange(len(G))), len(G), method="bellman_ford",
             target=registry.target())
    except _errors.NegativeCycleError:
        return True
    return False


# Floyd–Warshall ----------------------------------------------------------------------------------

def _floyd_warshall_rule(arguments: dict[str, Any]) -> str | None:
    """NetworkX's dict Floyd–Warshall gives an edge without the attribute the float 1.0, which
    the conversion (default 1) cannot tell from an int 1: declined where an edge lacks it."""
    reason = callable_weight(arguments)
    weight, G = arguments.get("weight"), arguments.get("G")
    if reason is None and isinstance(G, nx.Graph):
        if weight is None or not all(weight in data for *_, data in G.edges(data=True)):
            return f"weight={weight!r}: an edge without it weighs 1.0 in NetworkX: declined"
    return reason


def _all_pairs(G: FrontierGraph, weight: str | None) -> tuple[np.ndarray, np.ndarray | None]:
    w = _arc_weights(G, weight)
    try:
        result = _apsp.apsp(G.graph(weight), method="floyd_warshall", target=registry.target())
    except _apsp.APSPError:
        raise _Fallback from None
    return result.distances, w


@implements(declines=_floyd_warshall_rule)
@_exact(lambda H, **a: _original("floyd_warshall_predecessor_and_distance")(H, **a)[1])
def floyd_warshall(G: FrontierGraph, weight: str | None = "weight") -> dict:
    distances, w = _all_pairs(G, weight)
    integral = _integral(w)
    if not integral and G.num_arcs and np.any((w == 0) & (G.heads == _tails(G))):
        raise _Fallback  # min(0.0, 0) keeps the float of a zero self-loop
    nodes = G.nodes
    result: dict = {}
    for i, row in enumerate(distances):
        values = [x if x == np.inf else (int(x) if integral else x) for x in row.tolist()]
        values[i] = 0
        inner: defaultdict = defaultdict(lambda: float("inf"))
        inner[nodes[i]] = 0
        inner.update(zip(nodes, values, strict=True))
        result[nodes[i]] = inner
    return result


@implements(declines=callable_weight)
@_exact(_original("floyd_warshall_numpy"))
def floyd_warshall_numpy(G: FrontierGraph, nodelist: Any = None,
                         weight: str | None = "weight") -> np.ndarray:
    order = np.arange(len(G))
    if nodelist is not None:
        if not len(nodelist) == len(G) == len(set(nodelist)):
            raise nx.NetworkXError("nodelist must contain every node in G with no repeats."
                                   "If you wanted a subgraph of G use G.subgraph(nodelist)")
        if not all(_has(G, node) for node in nodelist):
            raise _Fallback
        order = np.array([G.vertex(node) for node in nodelist], np.int64)
    distances, w = _all_pairs(G, weight)
    if w is not None and w.dtype.kind == "f" and not np.array_equal(order, np.arange(len(G))):
        raise _Fallback  # the pivots' order rounds the float sums
    return distances[np.ix_(order, order)].astype(np.float64)


@implements(declines=callable_weight)
def all_pairs_bellman_ford_path_length(G: FrontierGraph, weight: str | None = "weight"
                                       ) -> Iterator[tuple[Any, dict]]:
    for node in G.nodes:
        yield (node, dict(single_source_bellman_ford_path_length(G, node, weight=weight)))


@implements(declines=callable_weight)
def all_pairs_bellman_ford_path(G: FrontierGraph, weight: str | None = "weight"
                                ) -> Iterator[tuple[Any, dict]]:
    for node in G.nodes:
        yield (node, single_source_bellman_ford_path(G, node, weight=weight))
