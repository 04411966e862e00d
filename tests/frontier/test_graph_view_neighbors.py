"""Neighbours inside functors (``frontier.neighbors``, ``in_neighbors``, ``intersection_count``)
read the graph's rows in ascending order on every target, equal to NetworkX on hypothesis graphs
(self-loops, repeated arcs, hubs, unsorted CSR rows), and cost no copy where rows are sorted; a
view function called from Python on a Graph says it is for functors and what to call instead."""

from __future__ import annotations

from inspect import signature

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

from frontier import (
    Frontier,
    Graph,
    generators,
    graphview,
    in_neighbors,
    intersection_count,
    neighbors,
)
from frontier.testing import graphs
from operators import advance, compute

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


@settings(max_examples=25)
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


def test_sorted_rows_are_the_graphs_own_arrays_on_the_device(target):
    g = generators.gnm(20, 50, seed=1, directed=True)
    assert g.sorted_neighbors() is g.col_indices
    heads, tails = g.device_neighbors(target)
    assert heads is g.device_arrays(target).col_indices
    assert tails is g.device_csc(target).row_indices
    u = generators.gnm(20, 50, seed=1)
    heads, tails = u.device_neighbors(target)
    assert heads is tails is u.device_arrays(target).col_indices


def common(src, dst, eid, weight, out, graph):
    out[eid] = intersection_count(graph, src, dst)
    return False


@settings(max_examples=25)
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
