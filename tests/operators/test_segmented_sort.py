"""sort_neighbors, the per-vertex segmented sort: each row equals NumPy's stable sort of its keys
on every target, short rows (a thread) and long ones (a block: tiles, then merge passes) alike,
over in- and out-arcs, on graphs with loops, repeated arcs, empty rows and hubs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier import Frontier, Graph
from frontier.testing import check_race_free, graphs
from operators import Levels, OperatorError, sort_neighbors
from operators.common import EDGE_SETS
from operators.segmented_sort import ROW_THREAD_MOST, TILE


@st.composite
def graphs_with_a_long_row(draw: st.DrawFn) -> Graph:
    """A graph of :func:`frontier.testing.graphs` (directed or not, loops, repeated arcs, empty
    rows, hubs) with a fan of more than :data:`ROW_THREAD_MOST` arcs added at one vertex (out
    of it or into it, to repeated ends): a row a block sorts, with one to three merge passes."""
    graph = draw(graphs(max_vertices=20, max_edges=40))
    n = max(graph.num_vertices, 1)
    coo = graph.coo()
    src, dst = coo.src.astype(np.int64), coo.dst.astype(np.int64)
    if not graph.directed:  # each edge once: from_edges stores both arcs
        src, dst = src[src <= dst], dst[src <= dst]
    hub = draw(st.integers(0, n - 1))
    ends = np.asarray(draw(st.lists(st.integers(0, n - 1), min_size=ROW_THREAD_MOST + 1,
                                    max_size=4 * TILE + 5)), np.int64)
    fan = np.full(ends.size, hub)
    if draw(st.booleans()):
        fan, ends = ends, fan
    return Graph.from_edges(np.concatenate([src, fan]), np.concatenate([dst, ends]),
                            num_vertices=n, directed=graph.directed)


def rows(graph: Graph, edges: str) -> tuple[np.ndarray, np.ndarray]:
    """The row offsets of ``edges`` and the arc id at each row position."""
    if edges == "out":
        return np.asarray(graph.row_offsets), np.arange(graph.num_edges)
    csc = graph.csc()
    return np.asarray(csc.col_offsets), np.asarray(csc.edge_ids)


def reference_order(graph: Graph, edges: str, keys: np.ndarray) -> np.ndarray:
    """Each row's arc ids sorted by ``keys[arc]`` with NumPy's stable sort, row by row."""
    offsets, arcs = rows(graph, edges)
    order = np.empty(graph.num_edges, np.int64)
    for v in range(graph.num_vertices):
        lo, hi = offsets[v], offsets[v + 1]
        order[lo:hi] = arcs[lo:hi][np.argsort(keys[arcs[lo:hi]], kind="stable")]
    return order


def key_of_arc(src, dst, eid, weight, keys):
    return keys[eid]


@given(graph=st.one_of(graphs(max_vertices=20, max_edges=40), graphs_with_a_long_row()),
       data=st.data())
def test_each_row_is_sorted_stably_by_its_keys(target, graph, data):
    edges = data.draw(st.sampled_from(EDGE_SETS))
    m = graph.num_edges
    keys = np.asarray(data.draw(st.lists(st.integers(-3, 3), min_size=m, max_size=m)), np.int64)
    order = target.full(max(m, 1), -1, np.int64)
    sorted_keys = target.full(max(m, 1), 99, np.int64)
    sort_neighbors(graph, "vertices", key_of_arc, target.to_device(keys), out=order,
                   edges=edges, keys=sorted_keys)
    want = reference_order(graph, edges, keys)
    np.testing.assert_array_equal(target.to_host(order)[:m], want)
    np.testing.assert_array_equal(target.to_host(sorted_keys)[:m], keys[want])


FLOATS = st.one_of(st.sampled_from([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5]),
                   st.floats(-2, 2, width=16))


@given(graph=graphs_with_a_long_row(), data=st.data())
def test_float_keys_put_nans_last_and_keep_zeros_of_either_sign_in_arc_order(target, graph,
                                                                              data):
    m = graph.num_edges
    keys = np.asarray(data.draw(st.lists(FLOATS, min_size=m, max_size=m)), np.float64)
    order = target.zeros(m, np.int64)
    sort_neighbors(graph, "vertices", key_of_arc, target.to_device(keys), out=order)
    np.testing.assert_array_equal(target.to_host(order), reference_order(graph, "out", keys))


def test_unsigned_keys_above_2_to_the_63_keep_their_order(target):
    g = Graph.from_edges(np.zeros(40, np.int64), np.arange(40) % 5, num_vertices=5)
    keys = (np.arange(40, dtype=np.uint64) * np.uint64(7919) % np.uint64(40)) << np.uint64(58)
    order = target.zeros(40, np.int64)
    sort_neighbors(g, "vertices", key_of_arc, target.to_device(keys), out=order)
    np.testing.assert_array_equal(target.to_host(order), np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("kind", ["sparse", "dense"])
def test_a_frontier_sorts_only_its_vertices_rows(target, kind):
    g = Graph.from_edges([0, 0, 0, 1, 1, 2], [2, 1, 0, 2, 0, 1], num_vertices=3)
    keys = target.to_device(np.array([5, 3, 4, 2, 1, 0], np.int64))
    order = target.full(6, -1, np.int64)
    sort_neighbors(g, Frontier.from_vertices(g, [1], kind=kind, target=target), key_of_arc,
                   keys, out=order)
    assert target.to_host(order).tolist() == [-1, -1, -1, 4, 3, -1]


def test_the_race_detector_passes_a_sort_whose_key_only_reads(race_target):
    g = Graph.from_edges(np.zeros(40, np.int64), np.arange(40) % 7, num_vertices=7)
    keys = race_target.to_device(np.arange(40, dtype=np.int64)[::-1].copy())
    order = race_target.zeros(40, np.int64)
    check_race_free(sort_neighbors, g, "vertices", key_of_arc, keys, out=order)
    assert race_target.to_host(order).tolist() == list(range(39, -1, -1))


def test_bad_arguments_are_refused_before_anything_runs(target):
    g = Graph.from_edges(np.zeros(200, np.int64), np.arange(200) % 3, num_vertices=3)
    keys = target.to_device(np.arange(200, dtype=np.int64))
    good = target.zeros(200, np.int64)
    with pytest.raises(OperatorError, match=r"out= must be a one-dimensional array of at least "
                                            r"\|E\| = 200 integers"):
        sort_neighbors(g, "vertices", key_of_arc, keys, out=target.zeros(199, np.int64))
    with pytest.raises(OperatorError, match="out= must be .* integers"):
        sort_neighbors(g, "vertices", key_of_arc, keys, out=target.zeros(200, np.float64))
    with pytest.raises(OperatorError, match="out= has dtype int8, which cannot hold arc ids "
                                            "up to 199"):
        sort_neighbors(g, "vertices", key_of_arc, keys, out=target.zeros(200, np.int8))
    with pytest.raises(OperatorError, match=r"keys= must be a one-dimensional array of at "
                                            r"least \|E\| = 200 numbers"):
        sort_neighbors(g, "vertices", key_of_arc, keys, out=good, keys=target.zeros(3, np.int64))
    with pytest.raises(OperatorError, match="edges='both'; expected one of"):
        sort_neighbors(g, "vertices", key_of_arc, keys, out=good, edges="both")
    with pytest.raises(OperatorError, match="expected a vertex Frontier or 'vertices'"):
        sort_neighbors(g, "edges", key_of_arc, keys, out=good)
    with pytest.raises(OperatorError, match="expected a vertex Frontier or 'vertices'"):
        sort_neighbors(g, Levels(target.zeros(3, np.int32), 0, 0), key_of_arc, keys, out=good)
    with pytest.raises(OperatorError, match="runs over vertices"):
        sort_neighbors(g, Frontier.from_edges(g, [0], target=target), key_of_arc, keys,
                       out=good)


@given(graph=graphs_with_a_long_row(), shift=st.integers(-3, 3))
def test_a_key_may_read_the_arc_weight_and_a_number_of_its_closure(target, graph, shift):
    weights = (np.arange(graph.num_edges) * 7919 % 13).astype(np.float64)
    coo = graph.coo()
    g = Graph.from_csr(graph.row_offsets, coo.dst, weights=weights)
    order = target.zeros(g.num_edges, np.int64)
    sort_neighbors(g, "vertices", lambda src, dst, eid, weight: weight * shift, out=order,
                   edges="in")
    np.testing.assert_array_equal(target.to_host(order),
                                  reference_order(g, "in", weights * shift))
