"""neighbor_reduce's mode and histogram: each equals a NumPy count of every vertex's in- or
out-arc values on every target (short rows by a thread, long rows by a block), on graphs with
loops, repeated arcs, empty rows and hubs; ties, empty rows, unsigned and boolean values, the
race detector, calls from several threads and the refusals."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier import Frontier, Graph
from frontier.runtime.racecheck import RaceError
from frontier.testing import check_race_free, graphs
from operators import FunctorError, Levels, OperatorError, neighbor_reduce
from operators.common import EDGE_SETS
from tests.operators.test_segmented_sort import graphs_with_a_long_row, rows

GRAPHS = st.one_of(graphs(max_vertices=20, max_edges=40), graphs_with_a_long_row())
UNSET = -7


def value_of_arc(src, dst, eid, weight, values):
    return values[eid]


def arc_values(graph: Graph, edges: str, values: np.ndarray) -> list[np.ndarray]:
    """Each vertex's values over its ``edges``."""
    offsets, arcs = rows(graph, edges)
    return [values[arcs[offsets[v]:offsets[v + 1]]] for v in range(graph.num_vertices)]


def reference_mode(graph: Graph, edges: str, values: np.ndarray) -> np.ndarray:
    """The smallest of each vertex's most frequent values; :data:`UNSET` for no arcs."""
    want = np.full(graph.num_vertices, UNSET, np.int64)
    for v, got in enumerate(arc_values(graph, edges, values)):
        if got.size:
            seen, counts = np.unique(got, return_counts=True)
            want[v] = seen[counts == counts.max()].min()
    return want


@given(graph=GRAPHS, data=st.data())
def test_mode_is_the_most_frequent_value_and_the_smallest_of_a_tie(target, graph, data):
    edges = data.draw(st.sampled_from(EDGE_SETS))
    m, n = graph.num_edges, graph.num_vertices
    values = np.asarray(data.draw(st.lists(st.integers(-2, 3), min_size=m, max_size=m)),
                        np.int64)
    out = target.full(max(n, 1), UNSET, np.int64)
    neighbor_reduce(graph, "vertices", value_of_arc, target.to_device(values), out=out,
                    op="mode", edges=edges)
    np.testing.assert_array_equal(target.to_host(out)[:n], reference_mode(graph, edges, values))


@given(graph=GRAPHS, data=st.data())
def test_histogram_counts_each_value_of_a_vertex_edges_and_skips_the_others(target, graph,
                                                                           data):
    edges = data.draw(st.sampled_from(EDGE_SETS))
    m, n = graph.num_edges, graph.num_vertices
    bins = data.draw(st.integers(1, 4))
    values = np.asarray(data.draw(st.lists(st.integers(-1, bins), min_size=m, max_size=m)),
                        np.int64)
    out = target.to_device(np.full((max(n, 1), bins), UNSET, np.int32))
    neighbor_reduce(graph, "vertices", value_of_arc, target.to_device(values), out=out,
                    op="histogram", edges=edges)
    want = [np.bincount(got[(got >= 0) & (got < bins)], minlength=bins)
            for got in arc_values(graph, edges, values)]
    np.testing.assert_array_equal(target.to_host(out)[:n], np.reshape(want, (n, bins)))


def neighbour_label(src, dst, eid, weight, labels):
    return labels[src]


def test_mode_of_in_neighbour_labels_over_an_undirected_graph_as_label_propagation(target):
    g = Graph.from_edges([0, 0, 0, 1, 2, 4, 4, 4], [1, 2, 3, 2, 3, 5, 6, 7], num_vertices=9,
                         directed=False)
    labels = target.to_device(np.array([9, 5, 5, 7, 1, 2, 2, 1, 3], np.int64))
    out = target.to_device(np.arange(9, dtype=np.int64))  # a vertex alone keeps its own
    neighbor_reduce(g, "vertices", neighbour_label, labels, out=out, op="mode")
    # 0: 5, 5, 7; 1: 9, 5; 2: 9, 5, 7; 3: 9, 5; 4: 2, 2, 1; 5, 6, 7: 1; 8: alone
    assert target.to_host(out).tolist() == [5, 5, 5, 5, 2, 1, 1, 1, 8]


def test_mode_over_a_frontier_touches_only_its_vertices(target):
    g = Graph.from_edges([0, 1, 2, 2], [3, 3, 3, 0], num_vertices=4)
    labels = target.to_device(np.array([4, 6, 6, 0], np.int64))
    out = target.full(4, UNSET, np.int64)
    neighbor_reduce(g, Frontier.from_vertices(g, [3], target=target), neighbour_label, labels,
                    out=out, op="mode")
    assert target.to_host(out).tolist() == [UNSET, UNSET, UNSET, 6]


def unsigned_value(src, dst, eid, weight, values):
    return values[eid]


def is_even_arc(src, dst, eid, weight):
    return eid % 2 == 0


def test_mode_orders_unsigned_values_as_unsigned_and_takes_booleans(target):
    g = Graph.from_edges(np.zeros(40, np.int64), np.arange(40) % 3, num_vertices=3)
    high = np.uint64(2**63 + 5)
    values = np.where(np.arange(40) < 20, high, np.uint64(3)).astype(np.uint64)
    out = target.zeros(3, np.uint64)
    neighbor_reduce(g, "vertices", unsigned_value, target.to_device(values), out=out,
                    op="mode", edges="out")
    assert target.to_host(out)[0] == np.uint64(3)  # 20 each: the smaller, unsigned
    flags = target.zeros(3, np.bool_)
    neighbor_reduce(g, "vertices", is_even_arc, out=flags, op="mode", edges="out")
    assert not target.to_host(flags)[0]  # 20 of each: False < True


def half_of(src, dst, eid, weight):
    return eid / 2


def test_mode_and_histogram_refuse_float_values_and_levels(target):
    g = Graph.from_edges([0, 1], [1, 0], num_vertices=2)
    for op, out in (("mode", target.zeros(2, np.int64)),
                    ("histogram", target.to_device(np.zeros((2, 2), np.int64)))):
        with pytest.raises(FunctorError, match=f"op='{op}'.*half_of.*returns floats"):
            neighbor_reduce(g, "vertices", half_of, out=out, op=op)
        with pytest.raises(OperatorError, match=f"op='{op}'.* not over Levels"):
            neighbor_reduce(g, Levels(target.zeros(2, np.int32), 0, 0), is_even_arc, out=out,
                            op=op)


def test_mode_and_histogram_refuse_an_output_of_the_wrong_shape_or_dtype(target):
    g = Graph.from_edges([0, 1], [1, 0], num_vertices=2)
    with pytest.raises(OperatorError, match=r"op='mode'\): out= must be a one-dimensional "
                                            r"array of at least \|V\| = 2 integers"):
        neighbor_reduce(g, "vertices", is_even_arc, out=target.zeros(2, np.float64), op="mode")
    with pytest.raises(OperatorError, match=r"op='histogram'\): out= must be a "
                                            r"two-dimensional integer array of at least "
                                            r"\|V\| = 2 rows"):
        neighbor_reduce(g, "vertices", is_even_arc, out=target.zeros(2, np.int64),
                        op="histogram")
    with pytest.raises(OperatorError, match="two-dimensional integer array"):
        neighbor_reduce(g, "vertices", is_even_arc,
                        out=target.to_device(np.zeros((1, 3), np.int64)), op="histogram")


def mark_tail(src, dst, eid, weight, seen):
    seen[src] = eid
    return eid % 3


def test_the_race_detector_takes_each_call_of_a_mode_as_its_own_work_item(race_target):
    g = Graph.from_edges(np.zeros(40, np.int64), np.arange(40) % 5, num_vertices=5)
    labels = race_target.to_device(np.arange(5, dtype=np.int64))
    out = race_target.zeros(5, np.int64)
    check_race_free(neighbor_reduce, g, "vertices", neighbour_label, labels, out=out, op="mode")
    assert race_target.to_host(out).tolist() == [0, 0, 0, 0, 0]
    with pytest.raises(RaceError, match="mark_tail"):  # a long row's calls run at once
        check_race_free(neighbor_reduce, g, "vertices", mark_tail, race_target.zeros(5, np.int64),
                        out=out, op="mode", edges="out")


def test_modes_from_several_host_threads_at_once_each_get_their_own_answer(target):
    g = Graph.from_edges(np.repeat(np.arange(4), 40), np.arange(160) % 4, num_vertices=4)
    tables = [np.random.default_rng(seed).integers(0, 3, g.num_edges) for seed in range(6)]

    def mode_of(values: np.ndarray) -> np.ndarray:
        out = target.full(4, UNSET, np.int64)
        neighbor_reduce(g, "vertices", value_of_arc, target.to_device(values), out=out,
                        op="mode", edges="out")
        return target.to_host(out)

    with ThreadPoolExecutor(3) as pool:
        got = list(pool.map(mode_of, tables))
    for values, answer in zip(tables, got, strict=True):
        np.testing.assert_array_equal(answer, reference_mode(g, "out", values))
