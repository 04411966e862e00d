"""The operators suffice: Bellman–Ford SSSP, pull PageRank and label-propagation connected
components written with the public operators only (no kernels, no one-element atomic arrays),
equal to scipy references on hypothesis graphs, on every target and every balancer.

These are fixtures proving the operator layer, not the library's algorithms."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier import Frontier, Graph, atomic_min, in_degree, out_degree
from frontier.testing import (
    check_components,
    check_sssp,
    graphs,
    graphs_with_source,
    reference_components,
)
from operators import advance, available_balancers, compute, filter, neighbor_reduce, reduce
from tests.pairs import covering, simulated_rows
from tests.tiers import FIXTURE_TARGETS, TINY_VERTICES, most_vertices

BALANCERS = available_balancers()


# Bellman–Ford: only improved vertices enter the next frontier, without repeats ----------------
def relax(src, dst, eid, weight, dist):
    new = dist[src] + weight
    return atomic_min(dist, dst, new) > new


def keep(v, dist):
    return True


def bellman_ford(graph: Graph, source: int, target, balancer: str) -> np.ndarray:
    dist = target.full(graph.num_vertices, np.inf, np.float64)
    target.write_scalar(dist, source, 0.0)
    f = Frontier.from_vertices(graph, [source], target=target)
    while not f.is_empty():
        f = filter(graph, advance(graph, f, relax, dist, balancer=balancer), keep, dist,
                   unique=True)
    return target.to_host(dist)


@pytest.mark.parametrize("balancer", BALANCERS)
@given(data=st.data())
def test_bellman_ford_from_the_operators_equals_dijkstra(target, balancer, data):
    graph, source = data.draw(graphs_with_source(
        max_vertices=most_vertices(target, 24), max_edges=60, weighted=True,
        weight_range=(0, 9)))
    check_sssp(graph, source, bellman_ford(graph, source, target, balancer))


# PageRank, pull: a neighbour sum over in-edges, a dangling-mass reduction, a compute -------------
ALPHA, ITERATIONS = 0.85, 30

#: Iterations in the simulator, whose every launch costs the same whatever the graph: each
#: iteration runs the same three operators, so a few pin them as well as thirty.
SIMULATED_ITERATIONS = 3


def share(src, dst, eid, weight, rank, graph):
    return rank[src] / out_degree(graph, src)


def dangling(v, rank, graph):
    return rank[v] if out_degree(graph, v) == 0 else 0.0


def update(v, rank, incoming, base):
    rank[v] = base + ALPHA * incoming[v]


def pagerank_pull(graph: Graph, target, iterations: int) -> np.ndarray:
    n = graph.num_vertices
    rank = target.full(n, 1.0 / n, np.float64)
    incoming = target.zeros(n, np.float64)
    for _ in range(iterations):
        lost = reduce(graph, "vertices", dangling, rank, target=target)
        neighbor_reduce(graph, "vertices", share, rank, out=incoming, edges="in")
        compute(graph, "vertices", update, rank, incoming, (1 - ALPHA + ALPHA * lost) / n,
                target=target)
    return target.to_host(rank)


def reference_pagerank(graph: Graph, iterations: int) -> np.ndarray:
    n = graph.num_vertices
    a = sp.csr_matrix((np.ones(graph.num_edges), graph.col_indices, graph.row_offsets),
                      shape=(n, n))
    out = np.asarray(a.sum(axis=1)).ravel()
    rank = np.full(n, 1.0 / n)
    for _ in range(iterations):
        spread = np.divide(rank, out, out=np.zeros(n), where=out > 0)
        lost = rank[out == 0].sum()
        rank = (1 - ALPHA + ALPHA * lost) / n + ALPHA * (a.T @ spread)
    return rank


@given(graph=graphs(min_vertices=1, max_vertices=24, max_edges=60))
def test_pull_pagerank_from_the_operators_equals_power_iteration(target, graph):
    iterations = SIMULATED_ITERATIONS if target.simulated else ITERATIONS
    np.testing.assert_allclose(pagerank_pull(graph, target, iterations),
                               reference_pagerank(graph, iterations), rtol=1e-12, atol=1e-15)


# Label propagation: push the smaller label both ways along every edge until nothing changes ----
def lower_both_ends(src, dst, eid, weight, labels):
    a, b = labels[src], labels[dst]
    if a < b:
        atomic_min(labels, dst, a)
    elif b < a:
        atomic_min(labels, src, b)
    return False


def remember(v, labels, before):
    before[v] = labels[v]


def changed(v, labels, before):
    return labels[v] != before[v]


def label_propagation(graph: Graph, target, balancer: str) -> np.ndarray:
    labels = target.to_device(np.arange(graph.num_vertices, dtype=np.int32))
    before = target.zeros(graph.num_vertices, np.int32)
    everyone = Frontier.all_vertices(graph, target=target)
    while True:
        compute(graph, "vertices", remember, labels, before, target=target)
        advance(graph, everyone, lower_both_ends, labels, balancer=balancer, output="none")
        if reduce(graph, "vertices", changed, labels, before, op="count", target=target) == 0:
            return target.to_host(labels)


def adopt_smaller(src, dst, eid, weight, labels):
    return atomic_min(labels, dst, labels[src]) > labels[src]


def label_propagation_symmetric(graph: Graph, target, balancer: str) -> np.ndarray:
    """On an undirected graph: only vertices whose label dropped propagate, and the operator
    chooses push or pull per step."""
    labels = target.to_device(np.arange(graph.num_vertices, dtype=np.int32))
    f = Frontier.all_vertices(graph, target=target)
    while not f.is_empty():
        f = advance(graph, f, adopt_smaller, labels, balancer=balancer, direction="auto",
                    output="dense")
    return target.to_host(labels)


def smallest_id_of_component(graph: Graph) -> np.ndarray:
    component = reference_components(graph)
    smallest = np.full(component.max(initial=-1) + 1, graph.num_vertices)
    np.minimum.at(smallest, component, np.arange(graph.num_vertices))
    return smallest[component]


def check_label_propagation(target, balancer: str, graph: Graph) -> None:
    labels = label_propagation(graph, target, balancer)
    check_components(graph, labels)
    np.testing.assert_array_equal(labels, smallest_id_of_component(graph))


#: Every target of the target fixture with every balancer; the simulator's rows (every round
#: three launches of a Python thread per GPU thread) draw fewer graphs.
LABEL_PROPAGATION = covering(target=FIXTURE_TARGETS, balancer=BALANCERS)


@pytest.mark.parametrize("target, balancer", simulated_rows(LABEL_PROPAGATION, False),
                         indirect=["target"])
@given(data=st.data())
def test_label_propagation_from_the_operators_finds_weak_components(target, balancer, data):
    check_label_propagation(target, balancer, data.draw(graphs(max_vertices=24, max_edges=60)))


@pytest.mark.parametrize("target, balancer", simulated_rows(LABEL_PROPAGATION, True),
                         indirect=["target"])
@settings(max_examples=3)
@given(data=st.data())
def test_label_propagation_in_the_simulator_finds_weak_components(target, balancer, data):
    check_label_propagation(target, balancer, data.draw(graphs(max_vertices=TINY_VERTICES,
                                                               max_edges=60)))


@pytest.mark.parametrize("balancer", BALANCERS)
@given(data=st.data())
def test_frontier_label_propagation_with_auto_direction_finds_components(target, balancer,
                                                                         data):
    graph = data.draw(graphs(max_vertices=most_vertices(target, 24), max_edges=60, directed=False))
    labels = label_propagation_symmetric(graph, target, balancer)
    np.testing.assert_array_equal(labels, smallest_id_of_component(graph))


def test_in_degree_is_visible_to_functors(target):
    g = Graph.from_edges([0, 1, 2, 2], [2, 2, 0, 1], num_vertices=4)
    assert reduce(g, "vertices", lambda v, graph: in_degree(graph, v) * 10 + out_degree(graph, v),
                  target=target) == 10 * 4 + 4
