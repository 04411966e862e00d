"""BFS variants: unordered BFS (Li & Becchi) and culled queues give the ordered BFS's levels on
every balancer; several sources at once give the least distance over the sources."""

from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import bfs
from frontier import Graph, generators
from frontier.options import Cull
from frontier.testing import check_bfs, graphs, graphs_with_source
from operators import available_balancers, recording

BALANCERS = available_balancers()

#: Few examples in the CUDA simulator (it runs ~10^4 GPU threads a second).
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def examples(n: int) -> int:
    return 3 if SIMULATED else n


@pytest.mark.parametrize("balancer", BALANCERS)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "host-loop"])
@settings(max_examples=examples(30))
@given(case=graphs_with_source(), cull=st.sampled_from(list(Cull)),
       kind=st.sampled_from(["sparse", "dense"]))
def test_unordered_bfs_converges_to_the_same_levels(target, balancer, fused, case, cull, kind):
    if target.simulated and (balancer != "thread" or not fused):
        pytest.skip("one configuration in the simulator")
    graph, source = case
    r = bfs(graph, source, order="unordered", balancer=balancer, fused=fused, cull=cull,
            frontier=kind, target=target)
    check_bfs(graph, source, r.distances, r.predecessors)


@pytest.mark.parametrize("direction", ["pull", "auto"])
@settings(max_examples=examples(60))
@given(case=graphs_with_source())
def test_unordered_bfs_pulls_too(target, direction, case):
    if target.simulated:
        pytest.skip("push only in the simulator")
    graph, source = case
    thresholds = {"alpha": 4, "beta": 8} if direction == "auto" else {}
    r = bfs(graph, source, order="unordered", direction=direction, target=target, **thresholds)
    check_bfs(graph, source, r.distances, r.predecessors)


@pytest.mark.parametrize("cull", ["bitmap", "hash"])
@pytest.mark.parametrize("balancer", BALANCERS)
@settings(max_examples=examples(20))
@given(case=graphs_with_source())
def test_ordered_bfs_with_culling_equals_scipy(target, balancer, cull, case):
    if target.simulated and balancer != "thread":
        pytest.skip("one balancer in the simulator")
    graph, source = case
    r = bfs(graph, source, balancer=balancer, cull=cull, target=target)
    check_bfs(graph, source, r.distances, r.predecessors)


def _multi_source_reference(graph: Graph, sources) -> np.ndarray:
    hops = csgraph.shortest_path(graph.to_scipy(), unweighted=True, indices=sources)
    least = np.atleast_2d(hops).min(axis=0)
    return np.where(np.isinf(least), -1, least).astype(np.int32)


@pytest.mark.parametrize("order", ["ordered", "unordered"])
@settings(max_examples=examples(30))
@given(data=st.data(), graph=graphs(min_vertices=1))
def test_several_sources_give_the_least_distance_over_them(target, order, data, graph):
    if target.simulated and order == "unordered":
        pytest.skip("ordered only in the simulator")
    sources = data.draw(st.lists(st.integers(0, graph.num_vertices - 1), min_size=1,
                                 max_size=4))
    r = bfs(graph, sources=sources, order=order, target=target)
    np.testing.assert_array_equal(r.distances, _multi_source_reference(graph, sources))
    pred = r.predecessors
    assert all(pred[s] == -1 for s in sources)
    reached = np.flatnonzero(r.distances > 0)
    assert np.all(r.distances[pred[reached]] == r.distances[reached] - 1)


def test_one_source_in_a_list_is_the_single_source_bfs():
    g = Graph.from_edges([0, 1, 2], [1, 2, 3])
    a, b = bfs(g, 1, target="cpu"), bfs(g, sources=[1], target="cpu")
    np.testing.assert_array_equal(a.distances, b.distances)
    np.testing.assert_array_equal(a.predecessors, b.predecessors)


@pytest.mark.parametrize("call, error, message", [
    (lambda g: bfs(g), TypeError, "exactly one"),
    (lambda g: bfs(g, 0, sources=[1]), TypeError, "exactly one"),
    (lambda g: bfs(g, sources=[]), ValueError, "empty"),
    (lambda g: bfs(g, sources=[0, 9]), ValueError, "sources holds 9, out of range"),
    (lambda g: bfs(g, sources=[0.5]), TypeError, "expected integer vertex ids"),
    (lambda g: bfs(g, 0, order="random"), ValueError, "unknown BFS order 'random'"),
])
def test_bad_sources_and_orders_raise_clear_errors(call, error, message):
    with pytest.raises(error, match=message):
        call(Graph.from_edges([0], [1]))


PER_SOURCE = [5, 0, 5, 17]


@pytest.mark.parametrize("balancer", available_balancers())
@pytest.mark.parametrize("order", ["ordered", "unordered"])
def test_per_source_rows_equal_single_source_calls(target, balancer, order):
    graph = generators.grid2d(3, 6)
    rows = bfs(graph, sources=PER_SOURCE, per_source=True, balancer=balancer, order=order,
               target=target)
    assert rows.distances.shape == rows.predecessors.shape == (4, graph.num_vertices)
    for i, s in enumerate(PER_SOURCE):
        one = bfs(graph, s, balancer=balancer, order=order, target=target)
        np.testing.assert_array_equal(rows.distances[i], one.distances)
        check_bfs(graph, s, rows.distances[i], rows.predecessors[i])


def test_per_source_sources_run_in_one_traversal(target):
    graph = generators.grid2d(4, 4)
    bfs(graph, sources=range(16), per_source=True, target=target)
    with recording() as log:
        bfs(graph, sources=range(16), per_source=True, target=target)
    assert len(list(log)) <= 4


def test_per_source_needs_sources():
    with pytest.raises(ValueError, match="per_source=True gives one row"):
        bfs(generators.path(3), 0, per_source=True)
