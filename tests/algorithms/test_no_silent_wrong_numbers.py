"""No silent wrong number (issue 20, item 2): weights are checked after their conversion to the
stored dtype, path sums that could overflow are refused before any work, distribution vectors
are normalized without overflow, an undirected edge has one weight, and path counts that
overflow raise instead of giving NaN or 0."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import frontier
from algorithms import apsp, betweenness_centrality, pagerank, sssp
from algorithms.sssp import SSSPMethod
from frontier import Graph, GraphError, generators, validate
from frontier.graph import path_bound, unequal_arc_weights
from frontier.testing import graphs

LONG_DOUBLE_IS_WIDER = np.finfo(np.longdouble).max > np.finfo(np.float64).max


# weights checked after conversion -------------------------------------------------------------

@pytest.mark.skipif(not LONG_DOUBLE_IS_WIDER, reason="longdouble is float64 on this platform")
@pytest.mark.parametrize("value, becomes", [("1e4000", "inf"), ("-1e4000", "-inf"),
                                            ("1e-4000", "0.0")])
def test_a_longdouble_weight_that_float64_cannot_hold_is_refused(value, becomes):
    weights = np.array([1.0, np.longdouble(value)])
    with pytest.raises(GraphError, match=rf"weights\[1\] = .* becomes {becomes} .*float64"):
        Graph.from_edges([0, 1], [1, 2], weights)


@pytest.mark.parametrize("weights", [np.array([1, 2**63], np.uint64),
                                     np.array([1, 2**64 - 1], np.uint64)])
def test_a_uint64_weight_beyond_int64_is_refused_not_wrapped(weights):
    with pytest.raises(GraphError, match=r"weights\[1\] = \d+ becomes -\d+ .*int64"):
        Graph.from_edges([0, 1], [1, 2], weights)


@pytest.mark.parametrize("weights, dtype", [
    (np.array([1, 2**63 - 1], np.uint64), np.int64), (np.array([3, 2**32 - 1], np.uint32),
                                                      np.int64),
    (np.array([1.5, -2.25], np.float16), np.float64), (np.array([-5, 7], np.int8), np.int32),
    (np.array([1e38, 2.5], np.float32), np.float32),
])
def test_weights_that_survive_the_conversion_are_kept_exactly(weights, dtype):
    g = Graph.from_edges([0, 1], [1, 2], weights)
    assert g.weights.dtype == dtype
    assert g.weights.tolist() == weights.astype(object).tolist()


def test_a_nan_or_infinite_weight_is_named():
    with pytest.raises(GraphError, match=r"weights\[2\] is inf; expected finite numbers"):
        Graph.from_edges([0, 1, 2], [1, 2, 0], [1.0, 2.0, np.inf])


# path sums that could overflow ----------------------------------------------------------------

TWO_HUGE = Graph.from_edges([0, 1], [1, 2], np.array([1e308, 1e308]))


@pytest.mark.parametrize("method", list(SSSPMethod))
def test_sssp_refuses_weights_whose_path_sum_overflows_before_any_work(method, monkeypatch):
    module = importlib.import_module("algorithms.sssp")
    monkeypatch.setattr(module, "resolve_target", lambda *a: pytest.fail("work started"))
    with pytest.raises(ValueError, match="more than 1.798e\\+308 .*overflow to inf"):
        sssp(TWO_HUGE, 0, method=method, target="cpu")


def test_sssp_never_reports_a_vertex_unreachable_with_a_predecessor(target):
    # the largest weights whose every path fits: each distance is finite, each tree edge tight
    big = float(np.finfo(np.float64).max) / 2.5
    g = Graph.from_edges([0, 1], [1, 2], np.array([big, big]))
    r = sssp(g, 0, target=target)
    assert np.isfinite(r.distances).all()
    assert r.predecessors.tolist() == [-1, 0, 1]


def test_one_huge_weight_that_no_path_repeats_is_accepted():
    r = sssp(Graph.from_edges([0, 1], [1, 2], np.array([1e308, 1.0])), 0, target="cpu")
    assert r.distances.tolist() == [0.0, 1e308, 1e308 + 1.0]


def test_apsp_refuses_weights_whose_path_sum_overflows():
    with pytest.raises(ValueError, match="apsp on a graph of 3 vertices.*overflow"):
        apsp(TWO_HUGE, target="cpu")


def test_integer_weights_near_int64_give_exact_float_distances():
    g = Graph.from_edges([0, 1, 2], [1, 2, 3], np.array([2**62] * 3, np.int64))
    r = sssp(g, 0, target="cpu")
    assert r.distances.tolist() == [0.0, 2.0**62, 2.0**63, 3 * 2.0**62]
    assert r.predecessors.tolist() == [-1, 0, 1, 2]


def test_path_bound_is_the_smaller_of_hops_times_largest_and_the_total():
    assert path_bound(None, 5) == 4
    assert path_bound(np.array([-3, 2], np.int64), 10) == 27
    assert path_bound(np.array([1e308, 1.0]), 3) == 1e308 + 1.0
    assert path_bound(np.array([1e308, 1e308]), 3) == np.inf
    validate.path_sums("x", 2**63 - 1, np.int64)
    with pytest.raises(ValueError, match="past what int64 distances hold"):
        validate.path_sums("x", 2**63, np.int64)


# distribution vectors -------------------------------------------------------------------------

R = generators.gnm(30, 80, seed=3)


@pytest.mark.parametrize("name", ["personalization", "nstart", "dangling"])
def test_pagerank_normalizes_huge_distribution_values_without_overflow(name):
    expected = pagerank(R, **{name: np.full(30, 1.0)}, target="cpu").ranks
    got = pagerank(R, **{name: np.full(30, 1e308)}, target="cpu").ranks
    assert abs(got.sum() - 1) < 1e-12
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_pagerank_normalizes_subnormal_distribution_values():
    got = pagerank(R, personalization=np.full(30, 5e-324), target="cpu").ranks
    np.testing.assert_allclose(got, pagerank(R, target="cpu").ranks, rtol=1e-12)


# an undirected edge has one weight ------------------------------------------------------------

UNEQUAL = sp.csr_matrix((np.array([1.0, 100.0]), ([0, 1], [1, 0])), shape=(2, 2))
MESSAGE = (r"undirected edge 0 - 1 has weight 1(\.0)? on arc 0 -> 1 but 100(\.0)? on arc 1 -> 0"
           r".*directed=True.*M\.minimum\(M\.T\)")


def test_from_scipy_refuses_an_undirected_edge_with_two_weights():
    with pytest.raises(GraphError, match=MESSAGE):
        Graph.from_scipy(UNEQUAL, directed=False)


def test_from_csr_refuses_an_undirected_edge_with_two_weights():
    with pytest.raises(GraphError, match=MESSAGE):
        Graph.from_csr([0, 1, 2], [1, 0], [1, 100], directed=False)


@pytest.mark.parametrize("text, name", [("0 1 1\n1 0 100\n", "g.txt"),
                                        ("%%MatrixMarket matrix coordinate real general\n"
                                         "2 2 2\n1 2 1\n2 1 100\n", "g.mtx")])
def test_loading_as_undirected_refuses_an_edge_with_two_weights(tmp_path, text, name):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(GraphError, match="undirected edge 0 - 1 has weight 1"):
        frontier.load(path, directed=False)
    assert frontier.load(path).directed  # as a directed graph both arcs are fine


def test_repeated_edges_pair_their_weights_as_multisets():
    # two parallel edges 0 - 1 of weights 1 and 2, listed in different orders on each side
    g = Graph.from_csr([0, 2, 4], [1, 1, 0, 0], [1, 2, 2, 1], directed=False)
    assert sorted(g.weights.tolist()) == [1, 1, 2, 2]
    with pytest.raises(GraphError, match="undirected edge 0 - 1"):
        Graph.from_csr([0, 2, 4], [1, 1, 0, 0], [1, 2, 2, 3], directed=False)


def test_graphs_built_undirected_by_the_library_keep_one_weight_per_edge():
    for g in (Graph.from_scipy(UNEQUAL.minimum(UNEQUAL.T), directed=False),
              Graph.from_scipy(UNEQUAL, symmetrize=True, directed=False),
              Graph.from_edges([0, 1], [1, 2], [5, 7], directed=False),
              generators.rmat(6, weights=(1, 9)), generators.grid2d(4, 4, weights=(1, 9))):
        assert not g.directed
        assert unequal_arc_weights(g.row_offsets, g.col_indices, g.weights) is None


def test_undirected_sssp_distances_are_symmetric_on_an_accepted_graph():
    g = Graph.from_scipy(UNEQUAL.minimum(UNEQUAL.T), directed=False)
    assert sssp(g, 0, target="cpu").distances[1] == sssp(g, 1, target="cpu").distances[0] == 1


# path counts ----------------------------------------------------------------------------------

def diamonds(k: int) -> Graph:
    """A chain of ``k`` diamonds: 2^k shortest paths from vertex 0 to the last vertex."""
    a = 3 * np.arange(k)
    src = np.stack([a, a, a + 1, a + 2], axis=1).reshape(-1)
    dst = np.stack([a + 1, a + 2, a + 3, a + 3], axis=1).reshape(-1)
    return Graph.from_edges(src, dst)


def test_betweenness_raises_when_path_counts_overflow_float64():
    assert np.isfinite(betweenness_centrality(diamonds(1023), [0], target="cpu").values).all()
    with pytest.raises(OverflowError, match="more shortest paths .* than float64 can count"):
        betweenness_centrality(diamonds(1024), [0], target="cpu")
    with pytest.raises(ValueError):  # a limit of the input: the CLI exits 2
        betweenness_centrality(diamonds(1024), [0], target="cpu")


@given(graph=graphs(max_vertices=20, max_edges=60, directed=False, weighted=True),
       data=st.data())
def test_changing_one_arc_of_an_undirected_edge_is_caught(graph, data):
    assert unequal_arc_weights(graph.row_offsets, graph.col_indices, graph.weights) is None
    loops = graph.coo().src == graph.col_indices
    arcs = np.flatnonzero(~loops)
    if arcs.size == 0:
        return
    e = int(data.draw(st.sampled_from(arcs.tolist())))
    weights = graph.weights.copy()
    weights[e] += 1000
    with pytest.raises(GraphError, match="undirected edge"):
        Graph.from_csr(graph.row_offsets, graph.col_indices, weights, directed=False)
