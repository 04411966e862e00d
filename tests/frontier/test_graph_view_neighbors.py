"""Neighbours inside functors (``frontier.neighbors``, ``in_neighbors``, ``intersection_count``,
``tally_common_neighbors``, ``common_neighbors``) read the graph's rows in ascending order on
every target, equal to NetworkX on hypothesis graphs (self-loops, repeated arcs, hubs, unsorted
CSR rows), and cost no copy where rows are sorted; ``common_neighbors`` gives the arc ids of
both sides, the lowest of repeated arcs, written from any start into buffers of any size; a view
function called from Python on a Graph says it is for functors and what to call instead."""

from __future__ import annotations

from inspect import signature

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier import (
    Frontier,
    Graph,
    common_neighbors,
    generators,
    graphview,
    in_neighbors,
    intersection_count,
    neighbors,
    tally_common_neighbors,
)
from frontier.testing import graphs
from operators import advance, compute
from tests.tiers import examples

small = {"max_vertices": 12, "max_edges": 30}


def listed(v, first, last, out, graph):
    """Write v's out-neighbours at first[v].., its in-neighbours at last[v].."""
    k = first[v]
    for u in neighbors(graph, v):
        out[k] = u
        k += 1
    k = last[v]
    for u in in_neighbors(graph, v):
        out[k] = u
        k += 1


def rows(graph: Graph, target) -> tuple[list, list]:
    n, m = graph.num_vertices, graph.num_edges
    first = np.asarray(graph.row_offsets[:-1], dtype=np.int64)
    last = m + np.asarray(graph.csc().col_offsets[:-1], dtype=np.int64)
    out = target.zeros(2 * m, np.int32)
    compute(graph, "vertices", listed, target.to_device(first), target.to_device(last), out,
            target=target)
    got = target.to_host(out)
    offs, coffs = graph.row_offsets, graph.csc().col_offsets
    return ([got[offs[v]:offs[v + 1]].tolist() for v in range(n)],
            [got[m + coffs[v]:m + coffs[v + 1]].tolist() for v in range(n)])


@settings(max_examples=examples(25))
@given(graph=graphs(**small))
def test_neighbors_and_in_neighbors_list_each_row_in_ascending_order(target, graph):
    outs, ins = rows(graph, target)
    src, dst = graph.coo().src, graph.col_indices
    for v in range(graph.num_vertices):
        assert outs[v] == sorted(dst[src == v].tolist())
        assert ins[v] == sorted(src[dst == v].tolist())


def test_rows_given_unsorted_are_read_sorted_from_a_copy_made_once(target):
    g = Graph.from_csr([0, 3, 4, 4], [2, 0, 1, 0])
    assert g.sorted_neighbors().tolist() == [0, 1, 2, 0]
    assert g.sorted_neighbors() is g.sorted_neighbors()
    outs, ins = rows(g, target)
    assert outs == [[0, 1, 2], [0], []] and ins == [[0, 1], [0], [0]]


@pytest.mark.parametrize("arcs", [600, 60_000], ids=["numpy-sort", "compiled-row-sort"])
def test_unsorted_rows_sort_stably_whatever_the_size(arcs):
    """A graph of more than a few thousand arcs sorts its rows with the compiled row sort
    (NetworkX's graphs arrive so: rows in insertion order); both sorts give NumPy's stable
    order, repeated arcs in arc-id order."""
    rng = np.random.default_rng(arcs)
    n = arcs // 20
    src, dst = rng.integers(0, n, arcs), rng.integers(0, n // 4, arcs)  # many repeated arcs
    order = np.argsort(src, kind="stable")
    offsets = np.concatenate(([0], np.cumsum(np.bincount(src, minlength=n))))
    g = Graph.from_csr(offsets, dst[order])
    expected = np.lexsort((g.col_indices, g.coo().src))
    heads, arc_ids = g._sorted_rows()
    assert np.array_equal(arc_ids, expected)
    assert np.array_equal(heads, g.col_indices[expected])


def test_sorted_rows_are_the_graphs_own_arrays_on_the_device(target):
    g = generators.gnm(20, 50, seed=1, directed=True)
    assert g.sorted_neighbors() is g.col_indices
    heads, tails, arcs = g.device_neighbors(target)
    assert heads is g.device_arrays(target).col_indices
    assert tails is g.device_csc(target).row_indices
    assert target.to_host(arcs).size == 0  # a position is its arc id: no array of arc ids
    u = generators.gnm(20, 50, seed=1)
    heads, tails, arcs = u.device_neighbors(target)
    assert heads is tails is u.device_arrays(target).col_indices


def common(src, dst, eid, weight, out, graph):
    out[eid] = intersection_count(graph, src, dst)
    return False


@settings(max_examples=examples(25))
@given(graph=graphs(**small))
def test_intersection_count_is_networkx_common_neighbors_count(target, graph):
    out = target.zeros(graph.num_edges, np.int64)
    advance(graph, Frontier.all_vertices(graph, target=target), common, out, output="none")
    got = target.to_host(out)
    succ = [set() for _ in range(graph.num_vertices)]
    for a, b in zip(graph.coo().src.tolist(), graph.col_indices.tolist(), strict=True):
        succ[a].add(b)
    for e, (a, b) in enumerate(zip(graph.coo().src.tolist(), graph.col_indices.tolist(),
                                   strict=True)):
        assert got[e] == len((succ[a] & succ[b]) - {a, b}), (a, b)


def test_intersection_count_searches_a_much_longer_row(target):
    # vertex 0 joins every vertex, vertex 1 only three: 40 > 16 * 3, the binary-search path
    hub = np.arange(1, 41)
    g = Graph.from_edges(np.r_[np.zeros(40, int), [1, 1]], np.r_[hub, [5, 39]],
                         num_vertices=41, directed=False)
    out = target.zeros(g.num_edges, np.int64)
    advance(g, Frontier.from_vertices(g, [1], target=target), common, out, output="none")
    got = target.to_host(out)
    h = nx.Graph(zip(g.coo().src.tolist(), g.col_indices.tolist(), strict=True))
    for e in range(g.row_offsets[1], g.row_offsets[2]):
        w = int(g.col_indices[e])
        assert got[e] == len(list(nx.common_neighbors(h, 1, w)))


def tallied(src, dst, eid, weight, out, tally, graph):
    out[eid] = tally_common_neighbors(graph, src, dst, tally)
    return False


def expected_tallies(graph: Graph, tails) -> tuple[list, list]:
    """For each arc out of ``tails``, its ends' common neighbours, and for each arc the number of
    those common neighbours ``w`` of an arc ``u -> v`` for which it is the lowest arc ``u -> w``."""
    src, dst = graph.coo().src.tolist(), graph.col_indices.tolist()
    succ = [set() for _ in range(graph.num_vertices)]
    first: dict = {}  # (u, w) -> the lowest id of the arcs u -> w
    for e, (a, b) in enumerate(zip(src, dst, strict=True)):
        succ[a].add(b)
        first.setdefault((a, b), e)
    counts, tally = [0] * graph.num_edges, [0] * graph.num_edges
    for e, (a, b) in enumerate(zip(src, dst, strict=True)):
        if a in tails:
            common = (succ[a] & succ[b]) - {a, b}
            counts[e] = len(common)
            for w in common:
                tally[first[(a, w)]] += 1
    return counts, tally


def tally_from(graph: Graph, tails, target) -> tuple[list, list]:
    out = target.zeros(graph.num_edges, np.int64)
    tally = target.zeros(graph.num_edges, np.int64)
    advance(graph, Frontier.from_vertices(graph, tails, target=target), tallied, out, tally,
            output="none")
    return target.to_host(out).tolist(), target.to_host(tally).tolist()


@settings(max_examples=25)
@given(graph=graphs(**small))
def test_tally_common_neighbors_counts_each_common_neighbour_at_the_lowest_arc_to_it(target,
                                                                                     graph):
    everyone = list(range(graph.num_vertices))
    assert tally_from(graph, everyone, target) == expected_tallies(graph, set(everyone))


def test_tally_common_neighbors_searching_a_much_longer_row_tallies_the_first_ends_arcs(target):
    # vertex 0 joins 1..40, vertex 1 joins 0, 5 and 39: 40 > 16 * 3, the binary-search path,
    # the searched row the first end's (from 0) or the second's (from 1)
    hub = np.arange(1, 41)
    g = Graph.from_edges(np.r_[np.zeros(40, int), [1, 1]], np.r_[hub, [5, 39]],
                         num_vertices=41, directed=False)
    for first in (0, 1):
        assert tally_from(g, [first], target) == expected_tallies(g, {first})


def enumerate_common(src, dst, eid, weight, start, width, count, ws, arcs_u, arcs_v, graph):
    """Common neighbours of each edge's ends from ``start`` on, into the edge's ``width``
    slots of the buffers (a shorter ``arcs_v`` slice where ``width`` is odd)."""
    at = eid * width
    count[eid] = common_neighbors(graph, src, dst, ws[at:at + width], arcs_u[at:at + width],
                                  arcs_v[at:at + width - width % 2], start)
    return False


def common_by_arc(graph: Graph, target, start: int = 0, width: int | None = None):
    """Per arc ``u -> v``: the count and the written ``(w, arc u -> w, arc v -> w)``."""
    m = graph.num_edges
    width = width or max(graph.num_vertices, 1)
    count = target.zeros(m, np.int64)
    bufs = [target.full(m * width, -7, np.int64) for _ in range(3)]
    advance(graph, Frontier.all_vertices(graph, target=target), enumerate_common, start, width,
            count, *bufs, output="none")
    got = [target.to_host(b).reshape(m, width) for b in bufs]
    return target.to_host(count), got


def reference_common(graph: Graph) -> list[list[tuple[int, int, int]]]:
    """Per arc ``u -> v``: ``(w, lowest arc u -> w, lowest arc v -> w)`` for the common
    neighbours ``w`` (NetworkX's ``common_neighbors`` of the arcs' graph), ascending."""
    src, dst = graph.coo().src.tolist(), graph.col_indices.tolist()
    first: dict[tuple[int, int], int] = {}
    for e, (a, b) in enumerate(zip(src, dst, strict=True)):
        first.setdefault((a, b), e)
    h = nx.DiGraph() if graph.directed else nx.Graph()
    h.add_nodes_from(range(graph.num_vertices))
    h.add_edges_from(zip(src, dst, strict=True))
    out = []
    for a, b in zip(src, dst, strict=True):
        if graph.directed:
            common = (set(h.successors(a)) & set(h.successors(b))) - {a, b}
        else:
            common = set(nx.common_neighbors(h, a, b)) if a != b else set(h[a]) - {a}
        out.append([(w, first[a, w], first[b, w]) for w in sorted(common)])
    return out


def with_rows_shuffled(graph: Graph, seed: int) -> Graph:
    """The same arcs with each CSR row in another order (rows no longer sorted)."""
    offs, cols = graph.row_offsets, graph.col_indices.copy()
    rng = np.random.default_rng(seed)
    for v in range(graph.num_vertices):
        rng.shuffle(cols[offs[v]:offs[v + 1]])
    return Graph.from_csr(offs, cols, directed=graph.directed)


@settings(max_examples=examples(25))
@given(graph=graphs(**small), shuffle=st.integers(0, 3))
def test_common_neighbors_are_networkx_common_neighbors_with_their_lowest_arc_ids(
        target, graph, shuffle):
    if shuffle:  # unsorted rows: arc ids through the sorted copy's
        graph = with_rows_shuffled(graph, shuffle)
    count, (ws, arcs_u, arcs_v) = common_by_arc(graph, target)
    for e, expected in enumerate(reference_common(graph)):
        k = len(expected)
        assert count[e] == k
        assert list(zip(ws[e, :k].tolist(), arcs_u[e, :k].tolist(), arcs_v[e, :k].tolist(),
                        strict=True)) == expected, e
        assert (ws[e, k:] == -7).all()  # nothing written past the common neighbours


def pair_of(v, other, start, out, ws, arcs_u, arcs_v, graph):
    out[0] = common_neighbors(graph, v, other, ws, arcs_u, arcs_v, start)


def common_of_pair(graph: Graph, target, u: int, v: int, start: int):
    """``common_neighbors(graph, u, v, ...)`` from ``start`` into buffers of 3, 3 and 2
    slots: the count returned and the entries written."""
    out = target.zeros(1, np.int64)
    bufs = [target.full(k, -7, np.int64) for k in (3, 3, 2)]
    compute(graph, Frontier.from_vertices(graph, [u], target=target), pair_of, v, start, out,
            *bufs)
    ws, arcs_u, arcs_v = (target.to_host(b).tolist() for b in bufs)
    assert ws[2] == arcs_u[2] == -7  # the shortest buffer bounds what is written
    return int(target.to_host(out)[0]), list(zip(ws, arcs_u, arcs_v, strict=False))


@pytest.mark.parametrize("start", [0, 1, 5, 9])
def test_common_neighbors_write_from_start_into_the_shortest_buffer(target, start):
    # 0 and 1 share 2 .. 7; 0 -> 5 and 1 -> 3 are repeated, each has a self-loop
    heads = list(range(2, 8))
    g = Graph.from_edges([0] * 8 + [1] * 8, heads + [5, 0] + heads + [3, 1], num_vertices=8)
    coo = g.coo()

    def lowest_arc(u, w):
        return int(np.flatnonzero((coo.src == u) & (coo.dst == w))[0])

    expected = [(w, lowest_arc(0, w), lowest_arc(1, w)) for w in heads]
    count, written = common_of_pair(g, target, 0, 1, start)
    assert count == 6
    assert [e for e in written if e[0] != -7] == expected[start:start + 2]


def test_common_neighbors_searches_a_much_longer_row_with_arc_ids(target):
    # vertex 0 joins every vertex, vertex 1 only three: 40 > 16 * 3, the binary-search path;
    # rows shuffled, so the arc ids come through the sorted copy's
    hub = np.arange(1, 41)
    g = with_rows_shuffled(Graph.from_edges(np.r_[np.zeros(40, int), [1, 1, 1]],
                                            np.r_[hub, [5, 39, 39]], num_vertices=41,
                                            directed=False), seed=5)
    count, (ws, arcs_u, arcs_v) = common_by_arc(g, target)
    expected = reference_common(g)
    for e in range(g.row_offsets[1], g.row_offsets[2]):
        k = len(expected[e])
        assert count[e] == k
        assert list(zip(ws[e, :k].tolist(), arcs_u[e, :k].tolist(), arcs_v[e, :k].tolist(),
                        strict=True)) == expected[e]


VIEW_FUNCTIONS = sorted(name for name in graphview.__all__
                        if callable(getattr(graphview, name)) and name != "view_type")


@pytest.mark.parametrize("name", VIEW_FUNCTIONS)
def test_a_view_function_called_from_python_on_a_graph_says_it_is_for_functors(name):
    G = generators.path(3)
    fn = getattr(graphview, name)
    with pytest.raises(TypeError, match=rf"frontier\.{name}\(graph, \.\.\.\) is for functors: .*"
                                        r"last parameter named `graph`.* not a Graph; from "
                                        r"Python, use .*G\.") as info:
        fn(G, *[0] * (len(signature(fn).parameters) - 1))
    shown = str(info.value).split("use ")[1].split(" of a frontier.Graph")[0]
    eval(shown, {"G": G, "u": 0, "v": 1})  # the Python equivalent it names runs
