"""PageRank, betweenness centrality and core numbers equal NetworkX and the sequential references
of frontier.testing on hypothesis graphs, for every balancer on the cpu target and on a GPU, and
for a small subset in the CUDA simulator (tiny graphs, few examples: it runs ~10,000 GPU threads
a second)."""

from __future__ import annotations

import os
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import ConvergenceError, betweenness_centrality, k_core, pagerank
from frontier import Graph, generators
from frontier.runtime.cuda_support import cuda_usable
from frontier.testing import (
    check_betweenness,
    check_core_numbers,
    check_pagerank,
    graphs,
    reference_betweenness,
    reference_core_numbers,
    reference_pagerank,
)
from operators import available_balancers, recording, sources

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
GPU = cuda_usable() and not SIMULATED


def _cases() -> list:
    """(target, balancer): every balancer, auto first, on the cpu target and on a real GPU."""
    cases = [pytest.param("cpu", b, id=f"cpu-{b}") for b in available_balancers(include_auto=True)]
    if GPU:
        cases += [pytest.param("cuda", b, id=f"cuda-{b}", marks=pytest.mark.simulator)
                  for b in available_balancers(include_auto=True)]
    return cases


CASES = _cases()
simulator_only = pytest.mark.skipif(not (SIMULATED and cuda_usable()),
                                    reason="runs in the CUDA simulator (NUMBA_ENABLE_CUDASIM=1)")
few = settings(max_examples=3, deadline=None)
tiny = {"max_vertices": 8, "max_edges": 14}


def arcs_as_networkx(graph: Graph, cls: type = nx.MultiDiGraph, weighted: bool = False
                     ) -> nx.Graph:
    """The graph's stored arcs as a NetworkX graph on vertices 0..n-1."""
    h = cls()
    h.add_nodes_from(range(graph.num_vertices))
    src, dst = graph.coo().src.tolist(), graph.col_indices.tolist()
    if weighted and graph.weights is not None:
        h.add_weighted_edges_from(zip(src, dst, graph.weights.tolist(), strict=True))
    else:
        h.add_edges_from(zip(src, dst, strict=True))
    return h


def by_vertex(values: dict, n: int) -> np.ndarray:
    return np.array([values[v] for v in range(n)], dtype=np.float64)


# PageRank ------------------------------------------------------------------------------------
def _pagerank_cases() -> list:
    """Push with every balancer; pull (one thread per vertex, no balancer) once per target."""
    pull = [pytest.param(*c.values, "pull", id=f"{c.values[0]}-pull", marks=c.marks)
            for c in CASES if c.values[1] == "auto"]
    return [pytest.param(*c.values, "push", id=f"{c.id}-push", marks=c.marks)
            for c in CASES] + pull


@pytest.mark.parametrize("target, balancer, direction", _pagerank_cases())
@given(graph=graphs(max_vertices=24, max_edges=60, weighted=True, weight_range=(0, 5)))
def test_pagerank_equals_networkx_with_dangling_vertices_and_weights(target, balancer,
                                                                     direction, graph):
    h = arcs_as_networkx(graph, weighted=True)  # a multigraph: repeated arcs add their weights
    expected = by_vertex(nx.pagerank(h, tol=1e-12, max_iter=500), graph.num_vertices)
    result = pagerank(graph, tol=1e-12, max_iter=500, direction=direction, balancer=balancer,
                      target=target)
    np.testing.assert_allclose(result.ranks, expected, rtol=0, atol=1e-9)
    check_pagerank(graph, result.ranks, atol=1e-9)


@given(graph=graphs(min_vertices=1, max_vertices=16, max_edges=40), data=st.data())
def test_pagerank_personalization_nstart_and_dangling_equal_networkx(graph, data):
    n = graph.num_vertices
    weights = st.lists(st.integers(0, 4), min_size=n, max_size=n).filter(lambda w: sum(w) > 0)
    p, start, spread = (data.draw(weights) for _ in range(3))
    h = arcs_as_networkx(graph)
    expected = nx.pagerank(h, alpha=0.7, personalization=dict(enumerate(p)), tol=1e-10,
                           nstart=dict(enumerate(start)), dangling=dict(enumerate(spread)),
                           max_iter=300)
    result = pagerank(graph, alpha=0.7, personalization=p, nstart=start, dangling=spread,
                      tol=1e-10, max_iter=300, target="cpu")
    np.testing.assert_allclose(result.ranks, by_vertex(expected, n), rtol=0, atol=1e-9)


@given(graph=graphs(max_vertices=24, max_edges=60, weighted=True, weight_range=(0, 5)))
def test_reference_pagerank_equals_networkx(graph):
    expected = nx.pagerank(arcs_as_networkx(graph, weighted=True), tol=1e-12, max_iter=500)
    np.testing.assert_allclose(reference_pagerank(graph, tol=1e-12, max_iter=500),
                               by_vertex(expected, graph.num_vertices), rtol=0, atol=1e-9)


@simulator_only
@pytest.mark.simulator
@pytest.mark.parametrize("direction", ["pull", "push"])
@few
@given(graph=graphs(**tiny))
def test_pagerank_in_the_simulator_equals_the_reference(direction, graph):
    result = pagerank(graph, alpha=0.5, tol=1e-12, direction=direction, target="cuda")
    check_pagerank(graph, result.ranks, 0.5, atol=1e-9)


def test_pagerank_raises_when_it_does_not_converge():
    g = generators.gnm(50, 200, seed=1, directed=True)
    with pytest.raises(ConvergenceError, match="did not converge in 2 iterations"):
        pagerank(g, max_iter=2, target="cpu")


def test_pagerank_of_the_empty_graph_is_empty():
    result = pagerank(Graph.from_edges([], [], num_vertices=0), target="cpu")
    assert result.ranks.shape == (0,)


@pytest.mark.parametrize("options, message", [
    ({"alpha": 1.5}, "alpha="), ({"max_iter": 0}, "max_iter="), ({"tol": 0}, "tol="),
    ({"personalization": [1, 1]}, "personalization has shape"),
    ({"nstart": [0, 0, 0]}, "positive sum"), ({"dangling": [1, -1, 1]}, "non-negative"),
    ({"direction": "sideways"}, "direction="),
])
def test_pagerank_rejects_bad_arguments_before_running(options, message):
    with pytest.raises(ValueError, match=message):
        pagerank(Graph.from_edges([0, 1], [1, 2]), target="cpu", **options)


def test_pagerank_rejects_negative_weights_unless_told_to_ignore_them():
    g = Graph.from_edges([0, 1], [1, 0], weights=[1.0, -1.0])
    with pytest.raises(ValueError, match="non-negative edge weights"):
        pagerank(g, target="cpu")
    np.testing.assert_allclose(pagerank(g, weighted=False, target="cpu").ranks, [0.5, 0.5])


# betweenness ----------------------------------------------------------------------------------
@pytest.mark.parametrize("target, balancer", CASES)
@given(graph=graphs(max_vertices=20, max_edges=50))
def test_betweenness_equals_the_reference_with_repeated_arcs(target, balancer, graph):
    result = betweenness_centrality(graph, balancer=balancer, target=target)
    check_betweenness(graph, result.values)


@pytest.mark.parametrize("endpoints", [False, True])
@pytest.mark.parametrize("normalized", [False, True])
@given(graph=graphs(max_vertices=20, max_edges=50, multi_edges=False))
def test_betweenness_rescaled_equals_networkx(normalized, endpoints, graph):
    h = arcs_as_networkx(graph, nx.DiGraph if graph.directed else nx.Graph)
    expected = nx.betweenness_centrality(h, normalized=normalized, endpoints=endpoints)
    result = betweenness_centrality(graph, normalized=normalized, endpoints=endpoints,
                                    target="cpu")
    np.testing.assert_allclose(result.values, by_vertex(expected, graph.num_vertices),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("normalized", [False, True])
@given(graph=graphs(min_vertices=1, max_vertices=20, max_edges=50, multi_edges=False),
       data=st.data())
def test_betweenness_of_sampled_sources_equals_networkx_k(normalized, graph, data):
    n = graph.num_vertices
    k, seed = data.draw(st.integers(1, n)), data.draw(st.integers(0, 99))
    h = arcs_as_networkx(graph, nx.DiGraph if graph.directed else nx.Graph)
    expected = nx.betweenness_centrality(h, k=k, normalized=normalized, seed=seed)
    sources = random.Random(seed).sample(range(n), k)  # how networkx draws its k sources
    result = betweenness_centrality(graph, sources, normalized=normalized, target="cpu")
    np.testing.assert_allclose(result.values, by_vertex(expected, n), rtol=1e-9, atol=1e-12,
                               equal_nan=True)


@given(graph=graphs(max_vertices=20, max_edges=50, multi_edges=False))
def test_reference_betweenness_equals_networkx_on_ordered_pairs(graph):
    h = arcs_as_networkx(graph, nx.DiGraph)
    expected = nx.betweenness_centrality(h, normalized=False)
    np.testing.assert_allclose(reference_betweenness(graph),
                               by_vertex(expected, graph.num_vertices), rtol=1e-9, atol=1e-12)


@simulator_only
@pytest.mark.simulator
@few
@given(graph=graphs(**tiny))
def test_betweenness_in_the_simulator_equals_the_reference(graph):
    check_betweenness(graph, betweenness_centrality(graph, target="cuda").values)


def test_betweenness_through_hubs_equals_the_reference(target):
    """Hubs of more than a thousand arcs on the backward sweep's levels: their dependencies
    are folded in chunks over lanes (operators.lanes), and still equal the reference's."""
    hubs, leaves = 3, 1100
    src = [0, 0, 0] + [1 + h for h in range(hubs) for _ in range(leaves)]
    dst = [1, 2, 3] + [4 + i for _ in range(hubs) for i in range(leaves)]
    graph = Graph.from_edges(src + dst, dst + src, num_vertices=4 + leaves)
    for source in (0, 5):
        check_betweenness(graph, betweenness_centrality(graph, source, target=target).values,
                          [source])


def test_betweenness_from_one_source_counts_its_paths_only():
    path = Graph.from_edges([0, 1, 2], [1, 2, 3])
    np.testing.assert_array_equal(betweenness_centrality(path, 0, target="cpu").values,
                                  [0, 2, 1, 0])


@pytest.mark.parametrize("sources, error, message", [
    (4, ValueError, "out of range"), ([0, 0], ValueError, "repeat"),
    (0.5, TypeError, "vertex id"), ([True], TypeError, "vertex id"),
])
def test_betweenness_rejects_bad_sources(sources, error, message):
    with pytest.raises(error, match=message):
        betweenness_centrality(Graph.from_edges([0, 1], [1, 2]), sources, target="cpu")


@pytest.mark.parametrize("cells", [None, 60])  # one batch; batches of a few sources
@settings(max_examples=20, deadline=None)
@given(graph=graphs(min_vertices=1, max_vertices=12, max_edges=24), endpoints=st.booleans(),
       data=st.data())
def test_betweenness_of_batched_sources_equals_each_source_alone(cells, graph, endpoints, data):
    """The sources run together, a batch as one pass over the graph's copies: the values (of
    the vertices and of the arcs) are bit for bit the sum of each source's call in the order
    given, the stats each source's."""
    n = graph.num_vertices
    chosen = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True))
    with pytest.MonkeyPatch.context() as patch:
        for name in ("BATCH_CELLS", "SEQUENTIAL_BATCH_CELLS"):
            patch.setattr(sources, name, cells or getattr(sources, name))
        together = betweenness_centrality(graph, chosen, endpoints=endpoints, edges=True,
                                          target="cpu")
    alone = [betweenness_centrality(graph, s, endpoints=endpoints, edges=True, target="cpu")
             for s in chosen]
    total, arcs = np.zeros(n), np.zeros(graph.num_edges)
    for one in alone:
        total += one.values
        arcs += one.edge_values
    np.testing.assert_array_equal(together.values, total)
    np.testing.assert_array_equal(together.edge_values, arcs)
    assert [(s.source, s.levels, s.edges) for s in together.stats] == [
        (s, one.stats[0].levels, one.stats[0].edges)
        for s, one in zip(chosen, alone, strict=True)]
    assert together.iterations == sum(one.iterations for one in alone)
    assert together.edges_traversed == sum(one.edges_traversed for one in alone)


def test_per_source_and_per_iteration_stats_are_made_once_on_first_use(target):
    """A call records its passes (betweenness: per batch) or iterations (PageRank) as they
    ran; the per-source or per-iteration stats objects are made when first read, once."""
    g = generators.path(7)
    bc = betweenness_centrality(g, target=target)
    assert "stats" not in vars(bc)
    stats = bc.stats
    assert bc.stats is stats
    assert [s.source for s in stats] == list(range(7))
    assert sum(s.levels for s in stats) == bc.iterations
    assert sum(s.edges for s in stats) == bc.edges_traversed
    ranks = pagerank(g, target=target)
    assert "stats" not in vars(ranks)
    per_iteration = ranks.stats
    assert ranks.stats is per_iteration
    assert [s.iteration for s in per_iteration] == list(range(1, ranks.iterations + 1))
    assert per_iteration[-1].error == ranks.error
    assert all(s.seconds >= 0 for s in per_iteration)


def test_betweenness_of_a_batch_of_sources_costs_the_launches_of_one(target):
    """Every source of a batch runs in the same launches: a call from many sources makes no
    more than a call from one (which tallies its one row by reductions)."""
    graph = generators.grid2d(4, 4)

    def launches(sources):
        betweenness_centrality(graph, sources, target=target)
        with recording() as log:
            betweenness_centrality(graph, sources, target=target)
        return len(list(log))

    assert launches(list(range(16))) <= launches([5])


def test_betweenness_rejects_an_unknown_normalization():
    with pytest.raises(TypeError, match="normalized='yes'; expected True, False or None"):
        betweenness_centrality(Graph.from_edges([0], [1]), normalized="yes", target="cpu")



def _edge_sums(graph: Graph, edge_values: np.ndarray, h: nx.Graph) -> dict:
    """The arcs' values summed per NetworkX edge of ``h`` (an undirected edge's two arcs)."""
    keys = dict.fromkeys(h.edges(), 0.0)
    for u, v, value in zip(graph.coo().src.tolist(), graph.col_indices.tolist(),
                           edge_values.tolist(), strict=True):
        keys[(u, v) if (u, v) in keys else (v, u)] += value
    return keys


@pytest.mark.parametrize("normalized", [False, True])
@given(graph=graphs(min_vertices=1, max_vertices=20, max_edges=50, multi_edges=False),
       data=st.data())
def test_edge_betweenness_equals_networkx_edge_betweenness(normalized, graph, data):
    n = graph.num_vertices
    k = data.draw(st.one_of(st.none(), st.integers(1, n)))
    seed = data.draw(st.integers(0, 99))
    h = arcs_as_networkx(graph, nx.DiGraph if graph.directed else nx.Graph)
    expected = nx.edge_betweenness_centrality(h, k=k, normalized=normalized, seed=seed)
    sources = None if k is None else random.Random(seed).sample(range(n), k)
    result = betweenness_centrality(graph, sources, normalized=normalized, edges=True,
                                    target="cpu")
    got = _edge_sums(graph, result.edge_values, h)
    np.testing.assert_allclose(list(got.values()), list(expected.values()), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("target, balancer", CASES)
@given(graph=graphs(max_vertices=12, max_edges=30))
def test_edge_betweenness_sums_to_the_paths_lengths(target, balancer, graph):
    """Unscaled, the arcs' values sum to the lengths of the shortest paths of every reached
    pair (s, t): the vertices' values (the paths' inner vertices) plus one per pair, on every
    target and balancer, repeated arcs included."""
    result = betweenness_centrality(graph, balancer=balancer, edges=True, target=target)
    ends = betweenness_centrality(graph, endpoints=True, target="cpu").values
    pairs = (ends - result.values).sum() / 2  # each reached (s, t), s != t: once at s, at t
    np.testing.assert_allclose(result.edge_values.sum(), result.values.sum() + pairs,
                               rtol=1e-9, atol=1e-9)
    assert result.edge_values.shape == (graph.num_edges,) and (result.edge_values >= 0).all()


@simulator_only
@pytest.mark.simulator
@few
@given(graph=graphs(**tiny))
def test_edge_betweenness_in_the_simulator_equals_the_cpu_target(graph):
    result = betweenness_centrality(graph, normalized=True, edges=True, target="cuda")
    np.testing.assert_allclose(result.edge_values, betweenness_centrality(
        graph, normalized=True, edges=True, target="cpu").edge_values, rtol=1e-12, atol=1e-15)


def test_edge_betweenness_is_not_computed_unless_asked_for():
    assert betweenness_centrality(Graph.from_edges([0], [1]), target="cpu").edge_values is None

# core numbers ---------------------------------------------------------------------------------
@pytest.mark.parametrize("target, balancer", CASES)
@given(graph=graphs(max_vertices=30, max_edges=80, directed=False, self_loops=False,
                    multi_edges=False))
def test_core_numbers_equal_networkx(target, balancer, graph):
    expected = nx.core_number(arcs_as_networkx(graph, nx.Graph))
    result = k_core(graph, balancer=balancer, target=target)
    np.testing.assert_array_equal(result.core_numbers,
                                  by_vertex(expected, graph.num_vertices).astype(np.int32))


@pytest.mark.parametrize("target, balancer", CASES)
@given(graph=graphs(max_vertices=30, max_edges=80, directed=False, self_loops=False))
def test_core_numbers_count_repeated_edges_as_the_reference_does(target, balancer, graph):
    check_core_numbers(graph, k_core(graph, balancer=balancer, target=target).core_numbers)


@given(graph=graphs(max_vertices=30, max_edges=80, directed=False, self_loops=False,
                    multi_edges=False))
def test_reference_core_numbers_equal_networkx(graph):
    expected = nx.core_number(arcs_as_networkx(graph, nx.Graph))
    np.testing.assert_array_equal(reference_core_numbers(graph),
                                  by_vertex(expected, graph.num_vertices))


@simulator_only
@pytest.mark.simulator
@few
@given(graph=graphs(directed=False, self_loops=False, **tiny))
def test_core_numbers_in_the_simulator_equal_the_reference(graph):
    check_core_numbers(graph, k_core(graph, target="cuda").core_numbers)


def test_k_core_raises_on_self_loops_and_directed_graphs():
    with pytest.raises(ValueError, match="self-loop"):
        k_core(Graph.from_edges([0, 1], [1, 1], directed=False), target="cpu")
    with pytest.raises(ValueError, match="undirected"):
        k_core(Graph.from_edges([0], [1]), target="cpu")


def test_k_core_of_a_clique_with_a_tail():
    g = Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], directed=False)
    result = k_core(g, target="cpu")
    np.testing.assert_array_equal(result.core_numbers, [2, 2, 2, 1])
    assert result.degeneracy == 2


def test_k_core_rounds_report_each_k_and_the_vertices_it_peeled():
    # a triangle with a tail, an isolated vertex and a separate edge: k = 0, 1, 2
    g = Graph.from_edges([0, 0, 1, 2, 5], [1, 2, 2, 3, 6], num_vertices=7, directed=False)
    result = k_core(g, target="cpu")
    np.testing.assert_array_equal(result.core_numbers, [2, 2, 2, 1, 0, 1, 1])
    assert [(s.k, s.peeled) for s in result.stats] == [(0, 1), (1, 3), (2, 3)]
    assert sum(s.steps for s in result.stats) == result.iterations
