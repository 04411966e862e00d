"""Sequential reference results, and checks that compare an algorithm's output with them.

The references read only the graph's CSR arrays and compute with ``scipy.sparse.csgraph`` or
plain Python; nothing here uses Frontier's operators, so they can judge them. Every arc the graph
stores counts, repeated arcs and self-loops included, and traversals always follow the stored arcs
(an undirected graph stores both directions of each edge).

A ``check_*`` function returns ``None`` when the output is right and raises ``AssertionError``
naming the first offending vertices (expected against got) otherwise. Per-vertex results must be
NumPy arrays of one entry per vertex (copy device arrays to the host first); vertex ids and BFS
distances are int32 like the graph's own vertex ids, and -1 stands for "none" (unreachable, no
predecessor).
"""

from __future__ import annotations

import operator
from functools import lru_cache
from typing import Any

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from frontier.graph import Graph

__all__ = [
    "reference_bfs",
    "check_bfs",
    "reference_sssp",
    "check_sssp",
    "reference_components",
    "check_components",
    "check_spanning_forest",
    "reference_scc",
    "check_scc",
    "assert_same_set",
    "reference_list_ranks",
    "check_list_ranks",
    "reference_apsp",
    "check_apsp",
]

_SHOWN = 8  # offenders listed in one failure message


# helpers ------------------------------------------------------------------------------------
def _source(graph: Graph, source: Any) -> int:
    s = operator.index(source)
    if not 0 <= s < graph.num_vertices:
        raise ValueError(f"source {s} is out of range; expected 0 <= source < "
                         f"{graph.num_vertices}")
    return s




def _fail(summary: str, offenders: list[str]) -> None:
    if offenders:
        more = f"; ... and {len(offenders) - _SHOWN} more" if len(offenders) > _SHOWN else ""
        raise AssertionError(f"{summary}: {'; '.join(offenders[:_SHOWN])}{more}")


def _per_vertex(name: str, values: Any, graph: Graph, kind: str) -> np.ndarray:
    """``values`` as an array of one entry per vertex whose dtype is of ``kind``: 'int32',
    'integer' or 'floating'."""
    a = np.asarray(values)
    n = graph.num_vertices
    if a.shape != (n,):
        raise AssertionError(f"{name} has shape {a.shape}; expected ({n},), one entry per vertex")
    ok = {"int32": a.dtype == np.int32,
          "integer": np.issubdtype(a.dtype, np.integer),
          "floating": np.issubdtype(a.dtype, np.floating)}[kind]
    if not ok:
        raise AssertionError(f"{name} has dtype {a.dtype}; expected {kind}")
    return a


def _arc_keys(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray:
    return src.astype(np.int64) * n + dst


def _has_arc(graph: Graph, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Whether each ``src[i] -> dst[i]`` is an arc (sort and binary search: numpy's hash-based
    ``unique`` takes seconds on graphs of millions of arcs)."""
    coo = graph.coo()
    keys = np.sort(_arc_keys(coo.src, coo.dst, graph.num_vertices))
    queries = _arc_keys(src, dst, graph.num_vertices)
    if keys.size == 0:
        return np.zeros(queries.size, dtype=bool)
    at = np.minimum(np.searchsorted(keys, queries), keys.size - 1)
    return keys[at] == queries


def _canonical(labels: np.ndarray) -> np.ndarray:
    """Each vertex's label replaced by the smallest vertex carrying the same label."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    return first[inverse.reshape(-1)]


def _check_predecessors(graph: Graph, source: int, reached: np.ndarray,
                        predecessors: Any) -> tuple[np.ndarray, np.ndarray]:
    """Checks what BFS and SSSP predecessors share: -1 at the source and at unreachable
    vertices, and an arc ``p -> v``, ``p != v``, into every other reached vertex. Returns the
    reached non-source vertices and their predecessors."""
    pred = _per_vertex("predecessors", predecessors, graph, "int32")
    if pred[source] != -1:
        raise AssertionError(f"predecessors[{source}] (the source) is {pred[source]}; expected -1")
    _fail("unreachable vertices have predecessors",
          [f"vertex {v}: expected -1, got {pred[v]}"
           for v in np.flatnonzero(~reached & (pred != -1))])
    vertices = np.flatnonzero(reached)
    vertices = vertices[vertices != source]
    parents = pred[vertices].astype(np.int64)
    invalid = (parents < 0) | (parents >= graph.num_vertices)
    _fail("reached vertices have no valid predecessor",
          [f"vertex {v}: got {p}, expected a vertex id in [0, {graph.num_vertices})"
           for v, p in zip(vertices[invalid], parents[invalid], strict=True)])
    _fail("vertices are their own predecessors",
          [f"vertex {v}" for v in vertices[parents == vertices]])
    missing = ~_has_arc(graph, parents, vertices)
    _fail("predecessors are not in-neighbours",
          [f"vertex {v} has predecessor {p}, but the graph has no arc {p} -> {v}"
           for v, p in zip(vertices[missing], parents[missing], strict=True)])
    return vertices, parents


# BFS ----------------------------------------------------------------------------------------
def reference_bfs(graph: Graph, source: int) -> np.ndarray:
    """Hop distances from ``source`` over the stored arcs (int32, -1 where unreachable), by
    ``scipy.sparse.csgraph``."""
    s = _source(graph, source)
    hops = csgraph.dijkstra(graph.to_scipy(pattern=True), directed=True, indices=s,
                            unweighted=True)
    distances = np.full(graph.num_vertices, -1, dtype=np.int32)
    reached = np.isfinite(hops)
    distances[reached] = hops[reached]
    return distances


def check_bfs(graph: Graph, source: int, distances: Any, predecessors: Any = None) -> None:
    """Check BFS output against :func:`reference_bfs`.

    ``distances`` must equal the reference exactly (int32, -1 where unreachable). If
    ``predecessors`` (int32) is given: -1 at the source and at unreachable vertices, and for every
    other reached vertex ``v`` a ``p`` with an arc ``p -> v`` and ``distances[p] ==
    distances[v] - 1``.
    """
    expected = reference_bfs(graph, source)
    got = _per_vertex("distances", distances, graph, "int32")
    _fail("BFS distances differ from the reference",
          [f"vertex {v}: expected {expected[v]}, got {got[v]}"
           for v in np.flatnonzero(got != expected)])
    if predecessors is None:
        return
    vertices, parents = _check_predecessors(graph, _source(graph, source), expected >= 0,
                                            predecessors)
    wrong = expected[parents] != expected[vertices] - 1
    _fail("predecessors are not one level up",
          [f"vertex {v} at distance {expected[v]} has predecessor {p} at distance "
           f"{expected[p]}; expected distance {expected[v] - 1}"
           for v, p in zip(vertices[wrong], parents[wrong], strict=True)])


# SSSP ---------------------------------------------------------------------------------------
def _lightest_arcs(graph: Graph, negative_weights: bool = False
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One arc per (u, v), u != v, with the least weight among the repeats (weight 1 for an
    unweighted graph), sorted by (u, v). Negative weights raise ValueError unless
    ``negative_weights``; a negative self-loop always does (it is a negative cycle)."""
    coo = graph.coo()
    weights = graph.weights if graph.weights is not None else np.ones(graph.num_edges)
    keep = coo.src != coo.dst
    if negative_weights and np.any(weights[~keep] < 0):
        raise ValueError("the graph has a negative self-loop: a negative cycle")
    src, dst, w = coo.src[keep], coo.dst[keep], weights[keep].astype(np.float64)
    if np.any(w < 0) and not negative_weights:
        raise ValueError(f"the graph has negative weights (least {w.min()}); shortest paths "
                         "are referenced for weights >= 0 only (pass negative_weights=True "
                         "for Bellman-Ford)")
    order = np.lexsort((w, dst, src))
    src, dst, w = src[order], dst[order], w[order]
    first = np.ones(src.size, dtype=bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    return src[first], dst[first], w[first]


def reference_sssp(graph: Graph, source: int, negative_weights: bool = False) -> np.ndarray:
    """Shortest-path distances from ``source`` (float64, ``inf`` where unreachable) by Dijkstra
    in ``scipy.sparse.csgraph``. Of repeated arcs the lightest counts; an unweighted graph has
    weight 1 on every arc; zero weights are arcs too. Raises ``ValueError`` on negative
    weights, unless ``negative_weights``: then by Bellman-Ford, which raises
    ``scipy.sparse.csgraph.NegativeCycleError`` when the graph has a negative cycle."""
    s = _source(graph, source)
    n = graph.num_vertices
    src, dst, w = _lightest_arcs(graph, negative_weights)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    # Built from CSR arrays, so weight-0 arcs stay stored entries, which csgraph takes as arcs.
    matrix = sp.csr_matrix((w, dst, offsets), shape=(n, n))
    if negative_weights:
        return csgraph.bellman_ford(matrix, directed=True, indices=s)
    return csgraph.dijkstra(matrix, directed=True, indices=s)


def check_sssp(graph: Graph, source: int, distances: Any, predecessors: Any = None,
               rtol: float = 0, negative_weights: bool = False) -> None:
    """Check shortest-path output against :func:`reference_sssp` (``negative_weights`` as
    there).

    ``distances`` (a float array, ``inf`` where unreachable) must match within relative tolerance
    ``rtol``; the default 0 asks for exact equality, right for integer weights. If
    ``predecessors`` (int32) is given: -1 at the source and at unreachable vertices; every other
    reached vertex ``v`` has a ``p`` with an arc ``p -> v`` of weight ``w`` such that
    ``distances[p] + w`` equals ``distances[v]`` (within ``rtol``), and following predecessors
    from any reached vertex leads to the source.
    """
    expected = reference_sssp(graph, source, negative_weights)
    got = _per_vertex("distances", distances, graph, "floating")
    close = got == expected
    finite = np.isfinite(got) & np.isfinite(expected)
    close[finite] |= np.abs(got[finite] - expected[finite]) <= rtol * np.abs(expected[finite])
    _fail("shortest-path distances differ from the reference",
          [f"vertex {v}: expected {expected[v]}, got {got[v]}" for v in np.flatnonzero(~close)])
    if predecessors is None:
        return
    s = _source(graph, source)
    reached = np.isfinite(expected)
    vertices, parents = _check_predecessors(graph, s, reached, predecessors)
    src, dst, w = _lightest_arcs(graph, negative_weights)
    n = graph.num_vertices
    arc = np.searchsorted(_arc_keys(src, dst, n), _arc_keys(parents, vertices, n))
    through = expected[parents] + w[arc]
    loose = np.abs(through - expected[vertices]) > rtol * np.abs(expected[vertices])
    _fail("predecessors are not on a shortest path",
          [f"vertex {v} at distance {expected[v]} has predecessor {p} at distance {expected[p]} "
           f"over an arc of weight {wt}; expected {expected[p]} + {wt} == {expected[v]}"
           for v, p, wt in zip(vertices[loose], parents[loose], w[arc][loose], strict=True)])
    # Zero-weight cycles pass the checks above; pointer jumping finds predecessor cycles.
    ancestor = np.arange(n)
    ancestor[vertices] = parents
    for _ in range(n.bit_length()):
        ancestor = ancestor[ancestor]
    _fail(f"predecessors do not lead back to the source {s}",
          [f"following predecessors from vertex {v} never reaches {s} (it cycles)"
           for v in np.flatnonzero(reached & (ancestor != s))])


# components -----------------------------------------------------------------------------------
def reference_components(graph: Graph) -> np.ndarray:
    """Weak-component labels (int32, ``0 .. #components-1``) by ``scipy.sparse.csgraph``."""
    _, labels = csgraph.connected_components(graph.to_scipy(pattern=True), directed=True,
                                             connection="weak")
    return labels.astype(np.int32)


def check_components(graph: Graph, labels: Any) -> None:
    """Check that ``labels`` (integers, one per vertex) partition the vertices into the weak
    components of ``graph``. Label values are free: only which vertices share one matters."""
    got = _per_vertex("labels", labels, graph, "integer")
    expected = reference_components(graph)
    got_rep, expected_rep = _canonical(got), _canonical(expected)
    bad = np.flatnonzero(got_rep != expected_rep)
    if not bad.size:
        return
    v = int(bad[0])
    counts = (f"labels give {np.unique(got).size} components; the graph has "
              f"{np.unique(expected).size} weak components")
    if got_rep[v] < expected_rep[v]:
        u = int(got_rep[v])
        raise AssertionError(f"{counts}: vertices {u} and {v} lie in different components but "
                             f"share label {got[v]}")
    u = int(expected_rep[v])
    raise AssertionError(f"{counts}: vertices {u} and {v} lie in one component but have labels "
                         f"{got[u]} and {got[v]}")


def check_spanning_forest(graph: Graph, edge_ids: Any) -> None:
    """Check that the edges with ids ``edge_ids`` (positions in the graph's CSR arrays, as in
    :meth:`Graph.coo`) form a spanning forest of the weak components: distinct ids, ``|V| -
    #components`` of them, no cycle (arcs taken as undirected, so a self-loop or both arcs of one
    undirected edge make a cycle), and every component connected by them."""
    ids = np.asarray(edge_ids)
    if ids.ndim != 1 or (ids.size and not np.issubdtype(ids.dtype, np.integer)):
        raise AssertionError(f"edge_ids has shape {ids.shape} and dtype {ids.dtype}; expected a "
                             "1-D array of integer edge ids")
    ids = ids.astype(np.int64)
    m = graph.num_edges
    _fail("edge ids out of range",
          [f"edge id {e}: expected 0 <= id < {m}" for e in ids[(ids < 0) | (ids >= m)]])
    values, counts = np.unique(ids, return_counts=True)
    _fail("edge ids repeat",
          [f"edge id {e} chosen {c} times"
           for e, c in zip(values[counts > 1], counts[counts > 1], strict=True)])
    n = graph.num_vertices
    labels = reference_components(graph)
    components = np.unique(labels).size
    if ids.size != n - components:
        raise AssertionError(f"{ids.size} edges chosen; a spanning forest of this graph has "
                             f"|V| - #components = {n} - {components} = {n - components}")
    coo = graph.coo()
    src, dst = coo.src[ids], coo.dst[ids]
    chosen = sp.csr_matrix((np.ones(ids.size), (src, dst)), shape=(n, n))
    _, forest_labels = csgraph.connected_components(chosen, directed=True, connection="weak")
    forest_rep, graph_rep = _canonical(forest_labels), _canonical(labels)
    apart = np.flatnonzero(forest_rep != graph_rep)
    if not apart.size:
        return
    # As many edges as a spanning forest, yet fewer joins: some edge closes a cycle.
    root = list(range(n))

    def find(x: int) -> int:
        while root[x] != x:
            root[x] = root[root[x]]
            x = root[x]
        return x

    for e, u, v in zip(ids.tolist(), src.tolist(), dst.tolist(), strict=True):
        ru, rv = find(u), find(v)
        if ru == rv:
            w = int(apart[0])
            raise AssertionError(f"edge id {e} ({u} -> {v}) closes a cycle, and vertices "
                                 f"{graph_rep[w]} and {w} of one component are not connected "
                                 "by the chosen edges")
        root[ru] = rv


# strongly connected components ----------------------------------------------------------------
def reference_scc(graph: Graph) -> np.ndarray:
    """Each vertex's strongly connected component, labelled by its smallest vertex id (int32),
    by Tarjan's algorithm (*Depth-First Search and Linear Graph Algorithms*, 1972) written with
    an explicit stack (no recursion limit) and compiled by Numba. An undirected graph's SCCs are
    its connected components."""
    return _tarjan()(graph.row_offsets.astype(np.int64), graph.col_indices.astype(np.int64),
                     graph.num_vertices)


@lru_cache(maxsize=1)
def _tarjan() -> Any:
    def tarjan(offsets: np.ndarray, heads: np.ndarray, n: int) -> np.ndarray:
        order = np.full(n, -1, np.int64)  # discovery index
        low = np.zeros(n, np.int64)
        held = np.zeros(n, np.bool_)  # on Tarjan's stack
        stack = np.empty(n, np.int64)
        path = np.empty(n, np.int64)  # the depth-first path, and each vertex's next arc
        next_arc = np.empty(n, np.int64)
        labels = np.full(n, -1, np.int32)
        seen = held_top = 0
        for root in range(n):
            if order[root] != -1:
                continue
            order[root] = low[root] = seen
            seen += 1
            stack[held_top] = root
            held_top += 1
            held[root] = True
            path[0], next_arc[0], depth = root, offsets[root], 1
            while depth:
                v = path[depth - 1]
                e = next_arc[depth - 1]
                if e < offsets[v + 1]:
                    next_arc[depth - 1] = e + 1
                    w = heads[e]
                    if order[w] == -1:
                        order[w] = low[w] = seen
                        seen += 1
                        stack[held_top] = w
                        held_top += 1
                        held[w] = True
                        path[depth], next_arc[depth] = w, offsets[w]
                        depth += 1
                    elif held[w]:
                        low[v] = min(low[v], order[w])
                    continue
                depth -= 1
                if depth:
                    low[path[depth - 1]] = min(low[path[depth - 1]], low[v])
                if low[v] == order[v]:  # v roots an SCC: the stack down to v
                    bottom = held_top - 1
                    while stack[bottom] != v:
                        bottom -= 1
                    members = stack[bottom:held_top]
                    labels[members] = members.min()
                    held[members] = False
                    held_top = bottom
        return labels

    return numba.njit(cache=False)(tarjan)


def check_scc(graph: Graph, labels: Any) -> None:
    """Check that ``labels`` (int32, one per vertex) partition the vertices into the strongly
    connected components of ``graph`` and label each by its smallest vertex id, as
    :func:`reference_scc` does."""
    got = _per_vertex("labels", labels, graph, "int32")
    expected = reference_scc(graph)
    got_rep = _canonical(got)
    bad = np.flatnonzero(got_rep != expected)
    if bad.size:
        v = int(bad[0])
        counts = (f"labels give {np.unique(got).size} components; the graph has "
                  f"{np.unique(expected).size} SCCs")
        if got_rep[v] < expected[v]:
            u = int(got_rep[v])
            raise AssertionError(f"{counts}: vertices {u} and {v} lie in different SCCs but "
                                 f"share label {got[v]}")
        u = int(expected[v])
        raise AssertionError(f"{counts}: vertices {u} and {v} lie in one SCC but have labels "
                             f"{got[u]} and {got[v]}")
    _fail("labels are not each SCC's smallest vertex id",
          [f"vertex {v}: expected {expected[v]}, got {got[v]}"
           for v in np.flatnonzero(got != expected)])


# sets -----------------------------------------------------------------------------------------
def _listing(values: np.ndarray) -> str:
    shown = ", ".join(str(x) for x in values[:_SHOWN].tolist())
    return f"{values.size}: [{shown}{', ...' if values.size > _SHOWN else ''}]"


def assert_same_set(actual: Any, expected: Any, what: str = "frontier", *,
                    multiset: bool = False) -> None:
    """Assert that ``actual`` holds the same values as ``expected``, in any order.

    By default repeats are ignored (set equality); with ``multiset=True`` every value must occur
    as many times in both. The message lists the values missing from ``actual``, the unexpected
    ones and, for multisets, the values whose counts differ.
    """
    a = np.asarray(actual).ravel()
    b = np.asarray(expected).ravel()
    a_values, a_counts = np.unique(a, return_counts=True)
    b_values, b_counts = np.unique(b, return_counts=True)
    problems = []
    missing = np.setdiff1d(b_values, a_values)
    if missing.size:
        problems.append(f"missing {_listing(missing)}")
    extra = np.setdiff1d(a_values, b_values)
    if extra.size:
        problems.append(f"unexpected {_listing(extra)}")
    if multiset:
        common, ia, ib = np.intersect1d(a_values, b_values, return_indices=True)
        off = np.flatnonzero(a_counts[ia] != b_counts[ib])
        problems += [f"{common[i]} occurs {a_counts[ia[i]]} times, expected {b_counts[ib[i]]}"
                     for i in off[:_SHOWN]]
        if off.size > _SHOWN:
            problems.append(f"... and {off.size - _SHOWN} more values with other counts")
    if problems:
        raise AssertionError(f"{what} differs from the expected {what} (got {a.size} entries, "
                             f"expected {b.size}): {'; '.join(problems)}")


# list ranking ---------------------------------------------------------------------------------
def reference_list_ranks(succ: Any) -> np.ndarray:
    """Each node's number of links to the tail (int64) of the linked list ``succ`` (``succ[v]``
    the node after ``v``, the tail pointing to itself), by one sequential walk from the head.
    Raises ``ValueError`` unless ``succ`` is one list of all its nodes."""
    succ = np.asarray(succ).astype(np.int64)
    n = succ.size
    if n == 0:
        return np.zeros(0, np.int64)
    if succ.min() < 0 or succ.max() >= n:
        raise ValueError(f"succ holds ids outside 0..{n - 1}")
    links = succ != np.arange(n)
    heads = np.flatnonzero(np.bincount(succ[links], minlength=n) == 0)
    if heads.size != 1 or np.count_nonzero(~links) != 1:
        raise ValueError(f"succ has {heads.size} heads and {np.count_nonzero(~links)} tails; "
                         "expected one of each")
    ranks = np.full(n, -1, np.int64)
    order = _walk(succ, int(heads[0]))
    if order.size != n:
        raise ValueError(f"the list from the head reaches the tail after {order.size} of {n} "
                         "nodes")
    ranks[order] = np.arange(n - 1, -1, -1)
    return ranks


def _walk(succ: np.ndarray, head: int) -> np.ndarray:
    """The nodes from ``head`` to the tail, in order (a plain loop, compiled by Numba)."""
    return _walker()(succ, head)


@lru_cache(maxsize=1)
def _walker() -> Any:
    def walk(succ: np.ndarray, head: int) -> np.ndarray:
        out = np.empty(succ.size, np.int64)
        v, k = head, 0
        while k < succ.size:
            out[k] = v
            k += 1
            if succ[v] == v:
                break
            v = succ[v]
        return out[:k]

    return numba.njit(cache=False)(walk)


def check_list_ranks(succ: Any, ranks: Any) -> None:
    """Check list ranks against :func:`reference_list_ranks`, and that they are a permutation
    of ``0 .. n-1`` consistent with the successors (``rank[succ[v]] == rank[v] - 1`` off the
    tail)."""
    expected = reference_list_ranks(succ)
    got = np.asarray(ranks)
    if got.shape != expected.shape:
        raise AssertionError(f"ranks has shape {got.shape}; expected {expected.shape}")
    _fail("list ranks differ from the sequential walk",
          [f"node {v}: expected {expected[v]}, got {got[v]}"
           for v in np.flatnonzero(got != expected)])
    s = np.asarray(succ).astype(np.int64)
    off_tail = s != np.arange(s.size)
    if not np.array_equal(np.sort(got), np.arange(s.size)):
        raise AssertionError("ranks are not a permutation of 0..n-1")
    bad = np.flatnonzero(off_tail & (got[s] != got - 1))
    _fail("ranks are not consistent with the successors",
          [f"node {v}: rank {got[v]}, successor {s[v]} has rank {got[s[v]]}" for v in bad])


# all-pairs shortest paths ---------------------------------------------------------------------
def reference_apsp(graph: Graph) -> np.ndarray:
    """All-pairs shortest-path distances (float64 V x V, ``inf`` where unreachable) by
    ``scipy.sparse.csgraph.floyd_warshall``. Of repeated arcs the lightest counts (scipy would
    add them), an unweighted graph has weight 1 on every arc, zero weights are arcs, negative
    weights are allowed. Raises ``ValueError`` on a negative cycle (a negative self-loop
    included)."""
    n = graph.num_vertices
    coo = graph.coo()
    weights = graph.weights if graph.weights is not None else np.ones(graph.num_edges)
    w = weights.astype(np.float64)
    loops = coo.src == coo.dst
    if np.any(w[loops] < 0):
        v = int(coo.src[loops][np.argmax(w[loops] < 0)])
        raise ValueError(f"vertex {v} has a negative self-loop: a negative cycle")
    src, dst, w = coo.src[~loops], coo.dst[~loops], w[~loops]
    order = np.lexsort((w, dst, src))
    src, dst, w = src[order], dst[order], w[order]
    first = np.ones(src.size, dtype=bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    src, dst, w = src[first], dst[first], w[first]
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    matrix = sp.csr_matrix((w, dst, offsets), shape=(n, n))
    if n == 0:
        return np.zeros((0, 0))
    try:
        return csgraph.floyd_warshall(matrix, directed=True)
    except csgraph.NegativeCycleError as err:
        raise ValueError(f"the graph has a negative cycle: {err}") from None


def check_apsp(graph: Graph, distances: Any, sources: Any = None, rtol: float = 0) -> None:
    """Check all-pairs distances (the rows of ``sources`` when given) against
    :func:`reference_apsp`, exactly by default (right for integer weights), else within
    relative tolerance ``rtol``."""
    expected = reference_apsp(graph)
    if sources is not None:
        expected = expected[np.asarray(sources, dtype=np.int64)]
    got = np.asarray(distances, dtype=np.float64)
    if got.shape != expected.shape:
        raise AssertionError(f"distances has shape {got.shape}; expected {expected.shape}")
    close = got == expected
    finite = np.isfinite(got) & np.isfinite(expected)
    close[finite] |= np.abs(got[finite] - expected[finite]) <= rtol * np.abs(expected[finite])
    _fail("all-pairs distances differ from scipy's floyd_warshall",
          [f"({r}, {c}): expected {expected[r, c]}, got {got[r, c]}"
           for r, c in zip(*np.nonzero(~close), strict=True)])
