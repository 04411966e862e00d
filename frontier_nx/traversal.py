"""Breadth-first search through NetworkX's traversal and unweighted shortest-path functions.

Where NetworkX reports an order (``bfs_edges``, ``bfs_layers``, paths and lengths from one
node, the bidirectional search) the search runs on the host, level by level and lazily
(:func:`_levels`): NetworkX's queue at depth ``d + 1`` lists, in the order they are first met,
the unseen neighbours of the depth-``d`` queue scanned in queue order and each in adjacency
order, and a vertex's parent is the vertex whose scan met it first. Each level is one
compiled scan of the arcs leaving the previous level (O(|V| + |E|) in all), and a reader
that stops early (the first few edges of ``bfs_edges``, ``descendants_at_distance``, a
``depth_limit`` or ``cutoff``, a bidirectional search that meets) pays only for the levels it
read. The parallel search of :func:`algorithms.bfs` (Beamer et al.'s direction-optimizing BFS,
SC 2012, where the policy picks it) claims vertices in no fixed order, so it serves the
functions that need depths alone (``has_path``, ``descendants``, ``ancestors``,
``eccentricity``, a length between two nodes).

The bidirectional search of ``shortest_path(G, source, target)`` is replayed the same way from
a forward and a backward search: the side with the smaller fringe expands, and the first arc
(in NetworkX's scan order) reaching a vertex the other side has seen gives the meeting vertex
and with it NetworkX's path."""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx import bulk, registry
from frontier_nx import costs as _costs
from frontier_nx.lazy import LazyModule
from frontier_nx.registry import implements, stops_at_the_target

if TYPE_CHECKING:
    from frontier_nx.convert import FrontierGraph

np = LazyModule("numpy")
_bfs = LazyModule("algorithms.bfs")
_search_kernels = LazyModule("frontier_nx.search_kernels")


# declined arguments -------------------------------------------------------------------------

def _number(value: Any) -> bool:
    return value is None or isinstance(value, numbers.Real)


def _tree_options(arguments: dict[str, Any]) -> str | None:
    if arguments.get("sort_neighbors") is not None:
        return "sort_neighbors is declined"
    if not _number(arguments.get("depth_limit")):
        return f"depth_limit={arguments['depth_limit']!r} is not a number"
    return None


def _cutoff(arguments: dict[str, Any]) -> str | None:
    cutoff = arguments.get("cutoff")
    return None if _number(cutoff) else f"cutoff={cutoff!r} is not a number"


def _distance(arguments: dict[str, Any]) -> str | None:
    distance = arguments["distance"]
    return None if isinstance(distance, numbers.Real) else f"distance={distance!r} is declined"


def _unweighted(arguments: dict[str, Any]) -> str | None:
    if arguments.get("weight") is not None:
        return "weighted shortest paths are declined (weight=None only)"
    if arguments.get("method") not in ("dijkstra", "bellman-ford"):
        return f"method={arguments.get('method')!r}: NetworkX reports the error"
    return None


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _contains(G: Any, node: Any) -> bool:
    """``node in G`` for a NetworkX graph or a :class:`FrontierGraph` (False if unhashable)."""
    if not _hashable(node):
        return False
    return node in G if isinstance(G, nx.Graph) else G.has(node)


def _eccentricity_options(arguments: dict[str, Any]) -> str | None:
    if arguments.get("weight") is not None:
        return "weighted eccentricity is declined (weight=None only)"
    if arguments.get("sp") is not None:
        return "sp is declined"
    v = arguments.get("v")
    if v is None or _contains(arguments["G"], v):
        return None
    if isinstance(v, (list, tuple, set, frozenset)) and all(map(_hashable, v)):
        return None
    return f"v={v!r} is neither a node nor a list of nodes: NetworkX reports it"


# the search and NetworkX's order -------------------------------------------------------------

def _vertex(G: FrontierGraph, node: Any, error: type[Exception], message: str) -> int:
    try:
        return G.find(node)
    except (KeyError, TypeError):
        raise error(message) from None


def _check(G: FrontierGraph, node: Any, error: type[Exception], message: str) -> None:
    """``error(message)`` where ``node`` is not a node (the arrays not read for it)."""
    if not _contains(G, node):
        raise error(message)


def _arcs(G: FrontierGraph, backward: bool) -> tuple[np.ndarray, np.ndarray]:
    """The arcs a search follows, in NetworkX's order: successors, or a directed graph's
    predecessors (``backward``)."""
    if backward and G.in_arcs is not None:
        return G.in_arcs
    return G.offsets, G.heads


def _depths(G: FrontierGraph, starts: list[int], backward: bool) -> np.ndarray:
    """Every vertex's depth from the vertices ``starts`` (-1 unreached)."""
    graph = G.graph(reverse=backward and G.directed)
    if len(starts) == 1:
        result = _bfs.bfs(graph, starts[0], target=registry.target())
    else:
        result = _bfs.bfs(graph, sources=starts, target=registry.target())
    return np.asarray(result.distances, dtype=np.int64)


def _levels(offsets: np.ndarray, heads: np.ndarray, first: np.ndarray,
            seen: np.ndarray | None = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(queue, parents)`` of the depths after ``first`` (the queue at some depth; ``seen``
    the vertices met up to it, default ``first``) in NetworkX's queue order, lazily: each level
    one compiled scan of the arcs leaving the previous one
    (:func:`frontier_nx.search_kernels.next_level`), so a reader that stops early pays only for
    the levels it read."""
    n = offsets.size - 1
    if seen is None:
        seen = np.zeros(n, np.bool_)
        seen[first] = True
    order = np.empty(n + first.size, np.int64)  # every level after the other, each met once
    parents = np.empty_like(order)
    order[:first.size] = first
    start, end = 0, first.size
    while True:
        following = _search_kernels.next_level(offsets, heads, order, parents, seen, start, end)
        if following == end:
            return
        yield order[end:following], parents[end:following]
        start, end = end, following


def _expand(adjacency: dict, queue: list, visited: set) -> tuple[list, None]:
    """The next level of NetworkX's search on its adjacency, as NetworkX's loop builds it."""
    following = []
    for v in queue:
        for w in adjacency[v]:
            if w not in visited:
                visited.add(w)
                following.append(w)
    return following, None


def _expand_with_parents(adjacency: dict, queue: list, visited: set) -> tuple[list, list]:
    """:func:`_expand` with the node whose neighbours met each."""
    following, met_by = [], []
    for v in queue:
        for w in adjacency[v]:
            if w not in visited:
                visited.add(w)
                following.append(w)
                met_by.append(v)
    return following, met_by


#: a queue of fewer nodes counts the arcs its level scans; a larger one estimates them from the
#: graph's mean degree (its rows, met in random order, cost a hash lookup and cache misses each,
#: a sizeable share of NetworkX's own scan of them; counting every row in order costs far less)
_COUNTED = 1024


def _search(G: FrontierGraph, sources: list, backward: bool = False, parents: bool = True
            ) -> Iterator[tuple[list, list | None]]:
    """NetworkX's breadth-first levels from the nodes ``sources`` (as the caller named them),
    lazily: each level's queue in NetworkX's order and, where ``parents``, the node whose
    neighbours met each (else None). On a graph whose arrays are not read yet the levels are
    searched on NetworkX's adjacency as NetworkX searches them, until the next level would
    scan enough arcs that reading the arrays pays, or the graph's searches so far have scanned
    enough (:func:`frontier_nx.costs.hand_over`); the rest compiled (:func:`_levels`)."""
    queue = list(sources)
    adjacency = G.adjacency(backward)
    named = parents  # the parents of the first compiled level are nodes as the caller named
    if adjacency is not None:
        visited = set(queue)
        while True:
            if len(queue) < _COUNTED:
                scanned = sum(map(len, map(adjacency.__getitem__, queue)))
                if not scanned:
                    return
            else:
                scanned = len(queue) * G.num_arcs // max(len(adjacency), 1)
            if _costs.hand_over(scanned, lambda: G.num_arcs, G.searched):
                break
            following, met_by = (_expand_with_parents if parents else _expand)(
                adjacency, queue, visited)
            G.count_search(scanned)
            if not following:
                return
            yield following, met_by
            queue, named = following, False
    offsets, heads = _arcs(G, backward)  # the arrays read here, if not before
    seen = None
    if adjacency is not None:
        seen = np.zeros(len(G), np.bool_)
        seen[G.ids(visited)] = True
    first = G.ids(queue)
    names = dict(zip(first.tolist(), queue, strict=True)) if named else None
    for ids, met_by in _levels(offsets, heads, first, seen):
        if not parents:
            yield G.labels(ids), None
        elif names is not None:
            yield G.labels(ids), list(map(names.__getitem__, met_by.tolist()))
            names = None
        else:
            yield G.labels(ids), G.labels(met_by)


def _tree(G: FrontierGraph, source: Any, backward: bool, depth_limit: Any
          ) -> Iterator[tuple[Any, Any]]:
    """NetworkX's ``bfs_edges``: the tree edges in its order, to depth ``depth_limit``."""
    where = "digraph" if backward and G.directed else "graph"
    _check(G, source, nx.NetworkXError, f"The node {source} is not in the {where}.")
    limit = len(G) if depth_limit is None else depth_limit
    levels = _search(G, [source], backward)
    level = 0
    while level < limit:
        step = next(levels, None)
        if step is None:
            return
        queue, parents = step
        yield from zip(parents, queue, strict=True)
        level += 1


def _reached(G: FrontierGraph, source: Any, backward: bool) -> set:
    where = "digraph" if backward and G.directed else "graph"
    start = _vertex(G, source, nx.NetworkXError, f"The node {source} is not in the {where}.")
    depth = _depths(G, [start], backward)
    return set(G.labels(np.flatnonzero(depth > 0)))


def _within(G: FrontierGraph, source: Any, cutoff: Any, backward: bool, parents: bool = True
            ) -> Iterator[tuple]:
    """``(level, (queue, parents))`` of each BFS level from ``source`` below ``cutoff`` (None:
    every level), level 0 being the one that leaves the source."""
    cutoff = float("inf") if cutoff is None else cutoff
    levels = _search(G, [source], backward, parents)
    level = 0
    while level < cutoff:  # no search past the cutoff (cutoff 0: none at all)
        step = next(levels, None)
        if step is None:
            return
        yield level, step
        level += 1


def _lengths(G: FrontierGraph, source: Any, cutoff: Any, backward: bool = False,
             missing: str = "Source {} is not in G") -> dict:
    """``single_source_shortest_path_length``: depths in NetworkX's order, to ``cutoff``."""
    _check(G, source, nx.NodeNotFound, missing.format(source))
    lengths = {source: 0}
    for level, (queue, _) in _within(G, source, cutoff, backward, parents=False):
        lengths.update(dict.fromkeys(queue, level + 1))
    return lengths


def _paths(G: FrontierGraph, source: Any, cutoff: Any, backward: bool = False,
           missing: str = "Source {} not in G") -> dict:
    """``single_source_shortest_path``: NetworkX's tree paths, in its order, to ``cutoff``."""
    _check(G, source, nx.NodeNotFound, missing.format(source))
    paths = {source: [source]}
    for _, (queue, parents) in _within(G, source, cutoff, backward):
        with bulk.paused():
            for parent, child in zip(parents, queue, strict=True):
                paths[child] = paths[parent] + [child]
    return paths


def _meeting(G: FrontierGraph, fringe: np.ndarray, backward: bool, seen: np.ndarray
             ) -> tuple[int, int] | None:
    """The first arc ``(v, w)`` of NetworkX's scan of ``fringe`` whose head the other side has
    ``seen``, or None."""
    offsets, heads = _arcs(G, backward)
    starts = offsets[fringe]
    counts = offsets[fringe + 1] - starts
    ends = np.cumsum(counts)
    met = heads[np.repeat(starts - ends + counts, counts) + np.arange(ends[-1])]
    hits = np.flatnonzero(seen[met])
    if not hits.size:
        return None
    return int(fringe[np.searchsorted(ends, hits[0], side="right")]), int(met[hits[0]])


def _bidirectional(G: FrontierGraph, source: Any, target: Any) -> list:
    """``bidirectional_shortest_path``: the path NetworkX's meet-in-the-middle search finds."""
    s = _vertex(G, source, nx.NodeNotFound, f"Source {source} is not in G")
    t = _vertex(G, target, nx.NodeNotFound, f"Target {target} is not in G")
    if s == t:
        return [source]
    n = len(G)
    sides = []
    for start, backward in ((s, False), (t, True)):
        depth = np.full(n, -1, np.int64)  # filled as the side's levels are read
        depth[start] = 0
        offsets, heads = _arcs(G, backward)
        sides.append({"depth": depth, "fringe": np.array([start]), "level": 0,
                      "backward": backward, "parent": np.full(n, -1, np.int64),
                      "levels": _levels(offsets, heads, np.array([start]))})
    forward, reverse = sides
    while forward["fringe"].size and reverse["fringe"].size:
        this, other = ((forward, reverse) if forward["fringe"].size <= reverse["fringe"].size
                       else (reverse, forward))
        seen = (other["depth"] >= 0) & (other["depth"] <= other["level"])
        meeting = _meeting(G, this["fringe"], this["backward"], seen)
        if meeting is not None:
            v, w = meeting
            if this["parent"][w] < 0 and w != (s if this is forward else t):
                this["parent"][w] = v
            return _joined(G, forward["parent"], reverse["parent"], w, (s, source),
                           (t, target))
        queue, parents = next(this["levels"], (np.zeros(0, np.int64),) * 2)
        this["parent"][queue] = parents
        this["fringe"] = queue
        this["level"] += 1
        this["depth"][queue] = this["level"]
    raise nx.NetworkXNoPath(f"No path between {source} and {target}.")


def _joined(G: FrontierGraph, before: np.ndarray, after: np.ndarray, w: int,
            first: tuple[int, Any], last: tuple[int, Any]) -> list:
    """The path source .. w .. target along the two search trees' parents."""
    names = {first[0]: first[1], last[0]: last[1]}
    head = [w]
    while head[-1] != first[0]:
        head.append(int(before[head[-1]]))
    path = head[::-1]
    while path[-1] != last[0]:
        path.append(int(after[path[-1]]))
    nodes = G.nodes
    return [names.get(v, nodes[v]) for v in path]


# NetworkX's functions ------------------------------------------------------------------------

@implements(declines=_tree_options)
def bfs_edges(G: FrontierGraph, source: Any, reverse: bool = False,
              depth_limit: Any = None, sort_neighbors: Any = None) -> Iterator[tuple]:
    yield from _tree(G, source, bool(reverse), depth_limit)


@implements(declines=_tree_options)
def bfs_tree(G: FrontierGraph, source: Any, reverse: bool = False, depth_limit: Any = None,
             sort_neighbors: Any = None) -> nx.DiGraph:
    T = nx.DiGraph()
    T.add_node(source)
    with bulk.paused():
        T.add_edges_from(_tree(G, source, bool(reverse), depth_limit))
    return T


@implements(declines=_tree_options)
def bfs_predecessors(G: FrontierGraph, source: Any, depth_limit: Any = None,
                     sort_neighbors: Any = None) -> Iterator[tuple]:
    for s, t in _tree(G, source, False, depth_limit):
        yield (t, s)


@implements(declines=_tree_options)
def bfs_successors(G: FrontierGraph, source: Any, depth_limit: Any = None,
                   sort_neighbors: Any = None) -> Iterator[tuple]:
    parent = source
    children = []
    for p, c in _tree(G, source, False, depth_limit):
        if p == parent:
            children.append(c)
            continue
        yield (parent, children)
        children = [c]
        parent = p
    yield (parent, children)


@implements()
def bfs_layers(G: FrontierGraph, sources: Any) -> Iterator[list]:
    if _contains(G, sources):
        sources = [sources]
    # NetworkX 3.5 made the first layer list(set(sources)); before, list(sources)
    current = list(set(sources)) if registry.networkx_version() >= (3, 5) else list(sources)
    for source in current:
        if not _contains(G, source):
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if not current:
        return
    yield current
    for queue, _ in _search(G, current, parents=False):
        yield queue


@implements(declines=_distance, stays_in_networkx=lambda arguments: "NetworkX's search stops "
            "at the distance; the backend would search the whole graph")
def descendants_at_distance(G: FrontierGraph, source: Any, distance: Any) -> set:
    _check(G, source, nx.NetworkXError, f"The node {source} is not in the graph.")
    if distance == 0:
        return {source}
    for level, (queue, _) in enumerate(_search(G, [source], parents=False), start=1):
        if level == distance:
            return set(queue)
        if level > distance:
            break
    return set()


@implements(declines=_cutoff)
def single_source_shortest_path_length(G: FrontierGraph, source: Any, cutoff: Any = None
                                       ) -> dict:
    return _lengths(G, source, cutoff)


@implements(declines=_cutoff)
def single_source_shortest_path(G: FrontierGraph, source: Any, cutoff: Any = None) -> dict:
    return _paths(G, source, cutoff)


@implements(declines=_cutoff)
def single_target_shortest_path_length(G: FrontierGraph, target: Any, cutoff: Any = None
                                       ) -> Any:
    lengths = _lengths(G, target, cutoff, backward=True, missing="Target {} is not in G")
    # NetworkX 3.5 made it a dict; before, it yielded (node, length) pairs
    return lengths if registry.networkx_version() >= (3, 5) else iter(lengths.items())


@implements(declines=_cutoff)
def single_target_shortest_path(G: FrontierGraph, target: Any, cutoff: Any = None) -> dict:
    paths = _paths(G, target, cutoff, backward=True, missing="Target {} not in G")
    return {node: path[::-1] for node, path in paths.items()}


@implements(stays_in_networkx=stops_at_the_target)
def bidirectional_shortest_path(G: FrontierGraph, source: Any, target: Any) -> list:
    return _bidirectional(G, source, target)


def _plain_neighbors(arguments: dict[str, Any]) -> str | None:
    if arguments.get("neighbors") is not None:
        return "neighbors is given: a search over another neighbour function stays in NetworkX"
    return _tree_options(arguments)


@implements(declines=_plain_neighbors)
def generic_bfs_edges(G: FrontierGraph, source: Any, neighbors: Any = None,
                      depth_limit: Any = None) -> Iterator[tuple]:
    where = "digraph" if G.directed else "graph"  # the error of G.neighbors(source)
    _check(G, source, nx.NetworkXError, f"The node {source} is not in the {where}.")
    yield from _tree(G, source, False, depth_limit)


@implements(declines=_cutoff)
def all_pairs_shortest_path_length(G: FrontierGraph, cutoff: Any = None) -> Iterator[tuple]:
    for n in list(G.nodes):
        yield (n, _lengths(G, n, cutoff))


@implements(declines=_cutoff)
def all_pairs_shortest_path(G: FrontierGraph, cutoff: Any = None) -> Iterator[tuple]:
    for n in list(G.nodes):
        yield (n, _paths(G, n, cutoff))


@implements(stays_in_networkx=stops_at_the_target)
def has_path(G: FrontierGraph, source: Any, target: Any) -> bool:
    s = _vertex(G, source, nx.NodeNotFound, f"Source {source} is not in G")
    t = _vertex(G, target, nx.NodeNotFound, f"Target {target} is not in G")
    return bool(_depths(G, [s], False)[t] >= 0)


@implements()
def descendants(G: FrontierGraph, source: Any) -> set:
    return _reached(G, source, False)


@implements()
def ancestors(G: FrontierGraph, source: Any) -> set:
    return _reached(G, source, True)


@implements(declines=_unweighted, stays_in_networkx=stops_at_the_target)
def shortest_path(G: FrontierGraph, source: Any = None, target: Any = None, weight: Any = None,
                  method: str = "dijkstra") -> Any:
    if source is None and target is None:  # a dict before NetworkX 3.5, then an iterator
        paths = all_pairs_shortest_path(G)
        return paths if registry.networkx_version() >= (3, 5) else dict(paths)
    if source is None:
        paths = _paths(G, target, None, backward=True)
        return {node: path[::-1] for node, path in paths.items()}
    if target is None:
        return _paths(G, source, None)
    return _bidirectional(G, source, target)


@implements(declines=_unweighted, stays_in_networkx=stops_at_the_target)
def shortest_path_length(G: FrontierGraph, source: Any = None, target: Any = None,
                         weight: Any = None, method: str = "dijkstra") -> Any:
    if source is None and target is None:
        return all_pairs_shortest_path_length(G)
    if source is None:
        return _lengths(G, target, None, backward=True)
    if target is None:
        return _lengths(G, source, None)
    s = _vertex(G, source, nx.NodeNotFound, f"Source {source} is not in G")
    t = _vertex(G, target, nx.NodeNotFound, f"Target {target} is not in G")
    length = int(_depths(G, [s], False)[t])
    if length < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return length


@implements(declines=_eccentricity_options)
def eccentricity(G: FrontierGraph, v: Any = None, sp: Any = None, weight: Any = None) -> Any:
    if v is None:
        bunch = G.nodes
    elif _contains(G, v):
        bunch = [v]
    else:
        bunch = [node for node in v if node in G.index]
    order = len(G)
    e = {}
    for n in bunch:
        depth = _depths(G, [G.index[n]], False)
        if np.count_nonzero(depth >= 0) != order:
            kind = "digraph is not strongly" if G.directed else "graph is not"
            raise nx.NetworkXError(f"Found infinite path length because the {kind} connected")
        e[n] = int(depth.max())
    return e[v] if _contains(G, v) else e

