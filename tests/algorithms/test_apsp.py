"""All-pairs shortest paths: every method equals scipy.sparse.csgraph.floyd_warshall (and
networkx) on hypothesis graphs with isolated vertices, self-loops, repeated arcs, zero, negative
and float weights; negative cycles and results that do not fit are refused; on the cpu target
and a small simulator subset."""

from __future__ import annotations

import os
import sys

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

from algorithms import APSPError, apsp
from algorithms.apsp import APSPMethod
from frontier import Graph, generators
from frontier.runtime.cuda_support import cuda_usable
from frontier.runtime.device_arrays import on_host
from frontier.testing import check_apsp, graphs, reference_apsp
from operators import recording

#: A real GPU (not the simulator, far too slow for the large cases).
GPU = cuda_usable() and os.environ.get("NUMBA_ENABLE_CUDASIM", "0") in ("", "0")

METHODS = list(APSPMethod)


def apsp_or_error(graph: Graph, method: str, **options):
    """Our distances and scipy's, or both refusals of a negative cycle."""
    try:
        expected = reference_apsp(graph)
    except ValueError:
        with pytest.raises(APSPError, match="negative cycle"):
            apsp(graph, method=method, **options)
        return None, None
    return apsp(graph, method=method, **options), expected


@pytest.mark.parametrize("method", METHODS)
@given(graph=graphs(max_vertices=16, max_edges=50, weighted=True, weight_range=(0, 9)))
def test_distances_equal_floyd_warshall_with_zero_weights(method, graph):
    result, expected = apsp_or_error(graph, method, target="cpu")
    assert np.array_equal(result.distances, expected)


@pytest.mark.parametrize("method", METHODS)
@given(graph=graphs(max_vertices=14, max_edges=40, weighted=True, weight_range=(-4, 12)))
def test_negative_weights_give_distances_or_a_negative_cycle_error(method, graph):
    result, expected = apsp_or_error(graph, method, target="cpu")
    if result is not None:
        assert np.array_equal(result.distances, expected)


@pytest.mark.parametrize("method", METHODS)
@given(graph=graphs(max_vertices=16, max_edges=50))
def test_unweighted_graphs_count_arcs(method, graph):
    check_apsp(graph, apsp(graph, method=method, target="cpu").distances)


@pytest.mark.parametrize("method", METHODS)
@given(graph=graphs(max_vertices=14, max_edges=40, weighted=True, weight_range=(0, 40)))
def test_float_weights_equal_floyd_warshall(method, graph):
    # quarters add exactly, so the sums are equal whatever the order; thirds within rounding
    for scale, rtol in ((0.25, 0), (1 / 3, 1e-12)):
        floats = Graph(graph.row_offsets, graph.col_indices, graph.weights * scale,
                       graph.directed)
        check_apsp(floats, apsp(floats, method=method, target="cpu").distances, rtol=rtol)


@pytest.mark.parametrize("method", METHODS)
def test_distances_equal_networkx_on_a_weighted_random_graph(method):
    graph = generators.gnm(60, 200, seed=4, directed=True, weights=(0, 30))
    coo = graph.coo()
    nxg = nx.DiGraph()
    nxg.add_nodes_from(range(graph.num_vertices))
    for u, v, w in zip(coo.src, coo.dst, graph.weights, strict=True):
        if not nxg.has_edge(u, v) or nxg[u][v]["weight"] > w:
            nxg.add_edge(int(u), int(v), weight=int(w))
    lengths = dict(nx.floyd_warshall(nxg))
    expected = np.array([[lengths[u][v] for v in range(60)] for u in range(60)])
    assert np.array_equal(apsp(graph, method=method, target="cpu").distances, expected)


@pytest.mark.parametrize("method", METHODS)
def test_sources_give_their_rows_in_order(method):
    graph = generators.gnm(30, 90, seed=1, directed=True, weights=(1, 9))
    sources = [7, 0, 7, 29]
    result = apsp(graph, method=method, sources=sources, target="cpu")
    assert result.distances.shape == (4, 30)
    check_apsp(graph, result.distances, sources=sources)
    assert result.sources.tolist() == sources


@pytest.mark.parametrize("tile", [1, 3, 8, 32])
def test_blocked_floyd_warshall_is_right_for_any_tile_side(tile):
    graph = generators.gnm(45, 150, seed=2, directed=True, weights=(0, 20))
    check_apsp(graph, apsp(graph, method="blocked_floyd_warshall", tile=tile,
                           target="cpu").distances)


@pytest.mark.parametrize("method", METHODS)
def test_the_empty_graph_and_one_vertex(method):
    for n in (0, 1):
        graph = Graph.from_edges([], [], num_vertices=n)
        assert apsp(graph, method=method, target="cpu").distances.shape == (n, n)


@pytest.mark.parametrize("method", METHODS)
def test_a_negative_self_loop_is_a_negative_cycle(method):
    graph = Graph.from_edges([0, 1, 2], [1, 1, 0], weights=[3, -1, 2], num_vertices=3)
    with pytest.raises(APSPError, match="negative cycle"):
        apsp(graph, method=method, target="cpu")


def test_repeated_sssp_refuses_only_a_negative_cycle_its_sources_reach():
    # 0 -> 1, and a negative cycle 2 <-> 3 that vertex 0 does not reach
    graph = Graph.from_edges([0, 2, 3], [1, 3, 2], weights=[5, -3, 1], num_vertices=4)
    result = apsp(graph, method="repeated_sssp", sources=[0, 1], target="cpu")
    assert result.distances.tolist() == [[0, 5, np.inf, np.inf], [np.inf, 0, np.inf, np.inf]]
    with pytest.raises(APSPError, match="reachable from vertex 2"):
        apsp(graph, method="repeated_sssp", sources=[2], target="cpu")
    with pytest.raises(APSPError, match="negative cycle"):
        apsp(graph, method="floyd_warshall", sources=[0], target="cpu")


@pytest.mark.parametrize("method", METHODS)
def test_a_result_that_does_not_fit_in_memory_is_refused_up_front(method, monkeypatch):
    # algorithms.apsp is the function; its module is in sys.modules
    monkeypatch.setattr(sys.modules["algorithms.apsp"], "_host_free_bytes", lambda: 1000)
    graph = generators.path(20)
    with pytest.raises(APSPError, match="GiB"):
        apsp(graph, method=method, target="cpu")


@pytest.mark.parametrize("options, error, message", [
    ({"method": "nosuch"}, ValueError, "unknown method 'nosuch'"),
    ({"sources": [0, 5]}, ValueError, "sources holds 5, out of range"),
    ({"sources": [0.5]}, TypeError, "expected integer vertex ids"),
    ({"method": "floyd_warshall", "tile": 8}, ValueError, "tile has no effect with"),
    ({"tile": 0}, ValueError, "tile=0"),
])
def test_bad_arguments_are_refused(options, error, message):
    with pytest.raises(error, match=message):
        apsp(generators.path(5), target="cpu", **options)


def test_the_graph_is_not_modified_and_must_be_a_graph():
    graph = generators.gnm(10, 20, seed=3, directed=True, weights=(1, 5))
    weights = graph.weights.copy()
    apsp(graph, target="cpu")
    assert np.array_equal(graph.weights, weights)
    with pytest.raises(TypeError, match="frontier.Graph"):
        apsp(np.zeros((3, 3)), target="cpu")


# every target (the simulator runs the GPU kernels): tiny graphs, few examples -------------------
SMALL = Graph.from_edges([0, 0, 0, 1, 2, 3, 3, 5, 6, 8], [1, 1, 2, 3, 3, 3, 4, 6, 5, 0],
                         weights=[4, 2, 7, -1, 3, 0, 5, 1, 2, 6], num_vertices=10)


@pytest.mark.parametrize("method", METHODS)
def test_a_small_graph_with_every_awkward_arc_on_every_target(method, target):
    check_apsp(SMALL, apsp(SMALL, method=method, target=target).distances)


@pytest.mark.parametrize("method", ["floyd_warshall", "blocked_floyd_warshall"])
@settings(max_examples=3)
@given(graph=graphs(max_vertices=9, max_edges=20, weighted=True, weight_range=(-2, 9)))
def test_floyd_warshall_on_every_target(method, graph, target):
    result, expected = apsp_or_error(graph, method, target=target)
    if result is not None:
        assert np.array_equal(result.distances, expected)


@pytest.mark.gpu
@pytest.mark.skipif(not GPU, reason="large graphs run on a real GPU only")
@pytest.mark.parametrize("method", METHODS)
def test_hundreds_of_vertices_with_partial_tiles_on_the_gpu(method):
    graph = generators.gnm(333, 3000, seed=9, directed=True, weights=(-1, 50))
    result, expected = apsp_or_error(graph, method, target="cuda")
    if result is not None:
        assert np.array_equal(result.distances, expected)
    graph = generators.gnm(517, 4000, seed=10, directed=True, weights=(0, 99))
    check_apsp(graph, apsp(graph, method=method, target="cuda").distances)


def test_repeated_sssp_runs_its_rows_in_one_traversal(target):
    graph = generators.grid2d(4, 4, weights=(1, 9))
    apsp(graph, method="repeated_sssp", target=target)
    with recording() as log:
        result = apsp(graph, method="repeated_sssp", target=target)
    assert len(list(log)) <= 4
    check_apsp(graph, on_host(result.distances))
