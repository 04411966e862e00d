"""Hypothesis strategies that draw the graphs graph algorithms go wrong on.

:func:`graphs` mixes a few structures into one graph: several weak components (random edges stay
within blocks of vertices), hubs (vertices with arcs to or from at least half of their block), a
chain (a path through vertices of its own, sometimes entered from the rest of the graph, so that
the graph has a long diameter), self-loops, repeated edges and vertices left without edges, then
renames the vertices by a drawn permutation so that none of these structures sits at particular
ids. Every part is drawn from plain integers and lists, so a failing example shrinks to few
vertices, few edges, small weights and the identity numbering.

The defaults stay small (at most 40 vertices and 200 edges) because property tests run the
algorithms in the Numba CUDA simulator, which manages about ten thousand GPU threads a second.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from frontier.graph import Graph

__all__ = ["graphs", "graphs_with_source", "weighted_graphs_with_source", "vertex_subsets",
           "linked_lists", "WEIGHT_KINDS"]

_MAX_COMPONENTS = 4
_MAX_HUBS = 3
_MAX_LOOPS = 4
_MAX_REPEATS = 6
_SOURCE_KINDS = ("any", "hub", "isolated")


def graphs(min_vertices: int = 0, max_vertices: int = 40, max_edges: int = 200,
           directed: bool | None = None, weighted: bool = False,
           weight_range: tuple[int, int] = (1, 63), self_loops: bool = True,
           multi_edges: bool = True, hubs: bool = True,
           isolated: bool = True) -> st.SearchStrategy[Graph]:
    """Graphs with ``min_vertices`` to ``max_vertices`` vertices and at most ``max_edges`` edges.

    An undirected edge counts once towards ``max_edges`` although the graph stores it as two arcs.
    ``directed=None`` draws directed and undirected graphs. Weighted graphs get integer weights in
    ``weight_range`` (both ends included); both arcs of an undirected edge carry the same weight,
    while repeated edges draw their own. ``self_loops``, ``multi_edges`` and ``hubs`` allow those
    structures; ``isolated=False`` gives every vertex an edge to or from another vertex, so such
    graphs never have exactly one vertex.
    """
    lo, hi = weight_range
    if min_vertices < 0 or max_vertices < min_vertices:
        raise InvalidArgument(f"need 0 <= min_vertices <= max_vertices, got min_vertices="
                              f"{min_vertices}, max_vertices={max_vertices}")
    if max_edges < 0:
        raise InvalidArgument(f"max_edges is {max_edges}; expected a count >= 0")
    if lo > hi:
        raise InvalidArgument(f"weight_range {weight_range} is empty; expected (low, high) with "
                              "low <= high")
    top = max_vertices
    if not isolated:
        top = min(max_vertices, 2 * max_edges)
        if top < min_vertices or (min_vertices == top == 1):
            raise InvalidArgument(
                f"isolated=False needs a vertex count other than 1 that {max_edges} edges can "
                f"cover, between min_vertices={min_vertices} and max_vertices={max_vertices}")
    int32 = np.iinfo(np.int32)
    weight_dtype = np.int32 if int32.min <= lo and hi <= int32.max else np.int64
    return _graphs((min_vertices, top), max_edges, directed,
                   (lo, hi, weight_dtype) if weighted else None, self_loops, multi_edges, hubs,
                   isolated)


@st.composite
def _graphs(draw: st.DrawFn, sizes: tuple[int, int], max_edges: int,
            directed: bool | None, weights: tuple[int, int, type] | None, self_loops: bool,
            multi_edges: bool, hubs: bool, isolated: bool) -> Graph:
    is_directed = draw(st.booleans()) if directed is None else directed
    low, high = sizes
    if draw(st.integers(0, 7)) == 7:  # one graph in eight is tiny
        high = min(high, low + 2)
    n = draw(st.integers(low, high).filter(lambda v: isolated or v != 1))
    # Vertices active..n-1 get no edges from the structures below (self-loops aside); a chain
    # runs through rest..active-1, apart from the blocks that hubs and random edges use.
    active = n - (draw(st.integers(0, n // 3)) if isolated else 0)
    chain = _chain_length(draw, active, max_edges, isolated)
    rest = active - chain
    edges = [(rest + i, rest + i + 1) for i in range(chain - 1)]
    bounds = _blocks(draw, rest, max_edges - len(edges), isolated)
    budget = max_edges - (_cover_bound(bounds) if not isolated else 0)  # before cover edges
    if rest:
        block_of = np.repeat(np.arange(len(bounds) - 1), np.diff(bounds))
        if hubs:
            edges += _hub_edges(draw, bounds, block_of, budget - len(edges), is_directed)
        if chain and len(edges) < budget and draw(st.booleans()):
            edges.append((draw(st.integers(0, rest - 1)), rest))  # a way onto the chain
        edges += _random_edges(draw, bounds, block_of, budget - len(edges), self_loops)
    if self_loops and n:
        loops = draw(st.lists(st.integers(0, n - 1), max_size=min(_MAX_LOOPS, budget - len(edges))))
        edges += [(v, v) for v in loops]
    if multi_edges:
        edges += _repeated_edges(draw, edges, budget - len(edges), is_directed)
    else:
        edges = _distinct(edges, is_directed)
    if not isolated:
        edges += _cover_edges(bounds, edges)
    perm = np.asarray(draw(st.permutations(range(n))), dtype=np.int64)
    pairs = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    w = None
    if weights is not None:
        lo, hi, dtype = weights
        w = np.asarray(draw(st.lists(st.integers(lo, hi), min_size=len(edges),
                                     max_size=len(edges))), dtype=dtype)
    return Graph.from_edges(perm[pairs[:, 0]], perm[pairs[:, 1]], weights=w, num_vertices=n,
                            directed=is_directed)


def _blocks(draw: st.DrawFn, active: int, max_edges: int, isolated: bool) -> list[int]:
    """Bounds of the vertex blocks that edges stay within: ``[0, b1, ..., active]``."""
    cuts = sorted(draw(st.lists(st.integers(1, max(active - 1, 1)), unique=True,
                                max_size=_MAX_COMPONENTS - 1 if active >= 2 else 0)))
    bounds = [0, *cuts, active]
    if isolated:
        return bounds
    # Every block needs a second vertex to connect its vertices to, and cover edges to spare.
    kept = [0]
    for cut in cuts:
        if cut - kept[-1] >= 2 and active - cut >= 2:
            kept.append(cut)
    kept.append(active)
    return kept if _cover_bound(kept) <= max_edges else [0, active]


def _cover_bound(bounds: Sequence[int]) -> int:
    """The most edges :func:`_cover_edges` adds: half of each block, rounded up."""
    return sum((bounds[i + 1] - bounds[i] + 1) // 2 for i in range(len(bounds) - 1))


def _hub_edges(draw: st.DrawFn, bounds: list[int], block_of: np.ndarray, budget: int,
               is_directed: bool) -> list[tuple[int, int]]:
    """Up to three hubs, each with arcs to (or from) at least half of the rest of its block."""
    edges: list[tuple[int, int]] = []
    for _ in range(draw(st.integers(0, _MAX_HUBS))):
        hub = draw(st.integers(0, bounds[-1] - 1))
        block = int(block_of[hub])
        start, size = bounds[block], bounds[block + 1] - bounds[block]
        if size < 2:
            continue
        count = min(draw(st.integers(size // 2, size - 1)), budget - len(edges))
        outward = draw(st.booleans()) if is_directed else True
        for i in range(1, count + 1):
            other = start + (hub - start + i) % size
            edges.append((hub, other) if outward else (other, hub))
    return edges


def _chain_length(draw: st.DrawFn, active: int, max_edges: int, isolated: bool) -> int:
    """Vertices on the chain, or 0 for none; with ``isolated=False`` the chain's edges leave
    enough of ``max_edges`` to cover the other vertices, none of which is left alone."""
    if not draw(st.booleans()) or active < 2:
        return 0
    top = min(active, max_edges + 1 - (0 if isolated else (active + 1) // 2))
    if top < 2:
        return 0
    length = draw(st.integers(2, top))
    if not isolated and active - length == 1:
        return length - 1 if length > 2 else 0
    return length


def _random_edges(draw: st.DrawFn, bounds: list[int], block_of: np.ndarray, budget: int,
                  self_loops: bool) -> list[tuple[int, int]]:
    """Edges from any active vertex to a vertex of its own block: up to the whole budget, or in
    half of the graphs (those that keep long chains long) at most one per four vertices."""
    active = bounds[-1]
    sparse = draw(st.booleans())
    count = draw(st.integers(0, min(budget, active // 4) if sparse else budget))
    edges = []
    for code in draw(st.lists(st.integers(0, active * active - 1), min_size=count,
                              max_size=count)):
        u, x = divmod(code, active)
        block = int(block_of[u])
        v = bounds[block] + x % (bounds[block + 1] - bounds[block])
        if self_loops or u != v:
            edges.append((u, v))
    return edges


def _repeated_edges(draw: st.DrawFn, edges: list[tuple[int, int]], budget: int,
                    is_directed: bool) -> list[tuple[int, int]]:
    """Copies of drawn edges; an undirected edge may be repeated in the other orientation."""
    if not edges:
        return []
    picks = draw(st.lists(st.tuples(st.integers(0, len(edges) - 1),
                                    st.booleans() if not is_directed else st.just(False)),
                          max_size=min(_MAX_REPEATS, budget)))
    return [edges[i][::-1] if flip else edges[i] for i, flip in picks]


def _distinct(edges: list[tuple[int, int]], is_directed: bool) -> list[tuple[int, int]]:
    seen: set[tuple[int, int]] = set()
    kept = []
    for u, v in edges:
        key = (u, v) if is_directed else (min(u, v), max(u, v))
        if key not in seen:
            seen.add(key)
            kept.append((u, v))
    return kept


def _cover_edges(bounds: list[int], edges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Edges that give every vertex without one an edge to another vertex of its block: such
    vertices are paired up, and an odd one out is joined to its successor in the block."""
    touched = {x for u, v in edges if u != v for x in (u, v)}
    cover = []
    for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
        lonely = [v for v in range(start, stop) if v not in touched]
        cover += [(lonely[i], lonely[i + 1]) for i in range(0, len(lonely) - 1, 2)]
        if len(lonely) % 2:
            last = lonely[-1]
            cover.append((last, start + (last - start + 1) % (stop - start)))
    return cover


def graphs_with_source(**graph_kwargs: Any) -> st.SearchStrategy[tuple[Graph, int]]:
    """``(graph, source)`` pairs: a graph from :func:`graphs` (called with ``graph_kwargs``, at
    least one vertex) and a vertex to start a traversal from. The source is any vertex, or the
    vertex of most out-arcs (a hub), or the vertex of fewest edges to and from other vertices (an
    isolated one where the graph has one)."""
    graph_kwargs["min_vertices"] = max(1, graph_kwargs.get("min_vertices", 0))
    return _with_source(graphs(**graph_kwargs))


@st.composite
def _with_source(draw: st.DrawFn, graph_strategy: st.SearchStrategy[Graph]) -> tuple[Graph, int]:
    graph = draw(graph_strategy)
    kind = draw(st.sampled_from(_SOURCE_KINDS))
    if kind == "hub":
        return graph, int(np.argmax(graph.out_degrees()))
    if kind == "isolated":
        coo = graph.coo()
        other = coo.src != coo.dst
        degree = (np.bincount(coo.src[other], minlength=graph.num_vertices)
                  + np.bincount(coo.dst[other], minlength=graph.num_vertices))
        return graph, int(np.argmin(degree))
    return graph, draw(st.integers(0, graph.num_vertices - 1))


#: The weight kinds :func:`weighted_graphs_with_source` draws.
WEIGHT_KINDS = ("small", "large", "float", "negative")
_SPECIAL_FLOATS = (0.0, 0.5, 1.0, 1e-3)


def weighted_graphs_with_source(kinds: Sequence[str] = ("small", "large", "float"),
                                **graph_kwargs: Any) -> st.SearchStrategy[tuple[Graph, int]]:
    """``(graph, source)`` pairs for shortest paths: the structure and source of
    :func:`graphs_with_source` (called with ``graph_kwargs``), with every arc weighted by one
    of ``kinds`` (drawn per graph, from :data:`WEIGHT_KINDS`):

    * ``"small"``: integers 0..3, so zero weights and ties between paths are common;
    * ``"large"``: integers up to 2**40 (sums along a path stay exact in float64);
    * ``"float"``: floats in [0, 1e6], often 0.0, 0.5, 1.0 or 0.001;
    * ``"negative"``: integers with negative ones but no negative cycle: ``c(u, v) + p(u) -
      p(v)`` for arc costs ``c`` in 0..9 and vertex potentials ``p`` in -9..9, so every cycle
      weighs what it weighed under ``c`` (>= 0). Self-loops keep ``c`` (>= 0).

    The result is a directed graph: the two arcs of an undirected edge get weights of their
    own. References: :func:`frontier.testing.check_sssp` (``negative_weights=True`` for the
    last kind; a relative tolerance for floats)."""
    unknown = set(kinds) - set(WEIGHT_KINDS)
    if not kinds or unknown:
        raise InvalidArgument(f"kinds={tuple(kinds)}; expected a non-empty selection of "
                              f"{WEIGHT_KINDS}")
    graph_kwargs["weighted"] = False
    return _weighted(graphs_with_source(**graph_kwargs), tuple(kinds))


@st.composite
def _weighted(draw: st.DrawFn, cases: st.SearchStrategy[tuple[Graph, int]],
              kinds: tuple[str, ...]) -> tuple[Graph, int]:
    graph, source = draw(cases)
    kind = draw(st.sampled_from(kinds))
    m, n = graph.num_edges, graph.num_vertices
    coo = graph.coo()

    def each(values: st.SearchStrategy) -> list:
        return draw(st.lists(values, min_size=m, max_size=m))

    if kind == "small":
        w = np.asarray(each(st.integers(0, 3)), dtype=np.int64)
    elif kind == "large":
        w = np.asarray(each(st.integers(0, 1 << 40)), dtype=np.int64)
    elif kind == "float":
        w = np.asarray(each(st.one_of(st.sampled_from(_SPECIAL_FLOATS),
                                      st.floats(0, 1e6, allow_nan=False,
                                                allow_infinity=False, allow_subnormal=False))),
                       dtype=np.float64)
    else:
        cost = np.asarray(each(st.integers(0, 9)), dtype=np.int64)
        potential = np.asarray(draw(st.lists(st.integers(-9, 9), min_size=n, max_size=n)),
                               dtype=np.int64)
        w = cost + potential[coo.src] - potential[coo.dst]
    return Graph.from_edges(coo.src, coo.dst, weights=w, num_vertices=n), source


def vertex_subsets(graph: Graph, *, unique: bool = True, min_size: int = 0,
                   max_size: int | None = None) -> st.SearchStrategy[np.ndarray]:
    """Vertex ids of ``graph`` as an int32 array in drawn order, possibly empty.

    With ``unique=False`` ids may repeat (as in a frontier built without deduplication), and the
    array holds up to ``2 * |V|`` ids unless ``max_size`` says otherwise.
    """
    n = graph.num_vertices
    if max_size is None:
        max_size = n if unique else 2 * n
    if unique:
        max_size = min(max_size, n)
    if min_size < 0 or min_size > max_size:
        raise InvalidArgument(f"cannot draw {min_size} to {max_size} "
                              f"{'distinct ' if unique else ''}vertex ids of a graph with "
                              f"{n} vertices")
    if n == 0:
        return st.just(np.empty(0, dtype=np.int32))
    ids = st.lists(st.integers(0, n - 1), min_size=min_size, max_size=max_size, unique=unique)
    return ids.map(lambda xs: np.asarray(xs, dtype=np.int32))


def linked_lists(min_nodes: int = 0, max_nodes: int = 60) -> st.SearchStrategy[np.ndarray]:
    """Linked lists as successor arrays (int64; ``succ[v]`` the node after ``v``, the tail
    pointing to itself) of ``min_nodes`` to ``max_nodes`` nodes in a drawn order; a failing
    example shrinks to the list ``0 -> 1 -> ... -> n-1``."""
    if min_nodes < 0 or max_nodes < min_nodes:
        raise InvalidArgument(f"need 0 <= min_nodes <= max_nodes, got min_nodes={min_nodes}, "
                              f"max_nodes={max_nodes}")
    return st.integers(min_nodes, max_nodes).flatmap(
        lambda n: st.permutations(range(n))).map(_successors)


def _successors(order: Sequence[int]) -> np.ndarray:
    order_array = np.asarray(order, dtype=np.int64)
    succ = np.empty(order_array.size, np.int64)
    if order_array.size:
        succ[order_array[:-1]] = order_array[1:]
        succ[order_array[-1]] = order_array[-1]
    return succ
