"""Triangle counting equals NetworkX's ``triangles`` and the sequential reference of
frontier.testing on hypothesis graphs and on graphs with hubs, for every balancer on the cpu
target and on a GPU, and in the CUDA simulator on tiny graphs; the degree-ordered graph it
intersects holds each edge once, from its lower-ranked end."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

from algorithms import triangle_count
from algorithms.triangles import degree_ordered
from frontier import Graph, generators
from frontier.runtime.cuda_support import cuda_usable
from frontier.testing import check_triangles, graphs, reference_triangles
from operators import available_balancers

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
GPU = cuda_usable() and not SIMULATED
#: (target, balancer): every balancer, auto first, on the cpu target and on a real GPU
CASES = [pytest.param("cpu", b, id=f"cpu-{b}") for b in available_balancers(include_auto=True)]
CASES += [pytest.param("cuda", b, id=f"cuda-{b}", marks=pytest.mark.simulator)
          for b in available_balancers(include_auto=True) if GPU]
simulator_only = pytest.mark.skipif(not (SIMULATED and cuda_usable()),
                                    reason="runs in the CUDA simulator (NUMBA_ENABLE_CUDASIM=1)")


def simple_networkx(graph: Graph) -> nx.Graph:
    h = nx.Graph()
    h.add_nodes_from(range(graph.num_vertices))
    h.add_edges_from(zip(graph.coo().src.tolist(), graph.col_indices.tolist(), strict=True))
    return h


def networkx_triangles(graph: Graph) -> list[int]:
    counted = nx.triangles(simple_networkx(graph))
    return [counted[v] for v in range(graph.num_vertices)]


@pytest.mark.parametrize("target, balancer", CASES)
@given(graph=graphs(max_vertices=30, max_edges=120, directed=False))
def test_triangles_equal_networkx(target, balancer, graph):
    result = triangle_count(graph, balancer=balancer, target=target)
    assert result.per_vertex.tolist() == networkx_triangles(graph)
    assert result.total == sum(networkx_triangles(graph)) // 3
    assert result.per_vertex.dtype == np.int64


@pytest.mark.parametrize("target, balancer", CASES)
def test_triangles_among_hubs_equal_networkx(target, balancer):
    # R-MAT: a few hubs closing most triangles, each hub the top corner of many
    g = generators.rmat(9, seed=4)
    result = triangle_count(g, balancer=balancer, target=target)
    want = networkx_triangles(g)
    assert result.per_vertex.tolist() == want and result.total == sum(want) // 3


@pytest.mark.parametrize("target, balancer", CASES)
def test_triangles_of_a_hub_over_triangles_equal_networkx(target, balancer):
    # a hub joined to the corners of 30 disjoint triangles (30 K4s) and to 20 leaves: its count
    # is the 90 edges among its neighbours, every one of them below it by rank
    src = [0] * 110 + [1 + 3 * k + i for k in range(30) for i in (0, 0, 1)]
    dst = list(range(1, 111)) + [1 + 3 * k + j for k in range(30) for j in (1, 2, 2)]
    g = Graph.from_edges(src, dst, directed=False)
    result = triangle_count(g, balancer=balancer, target=target)
    assert result.per_vertex.tolist() == networkx_triangles(g)
    assert result.per_vertex[0] == 90 and result.total == 120


def test_triangles_on_the_device_total_with_a_reduction(target):
    g = generators.rmat(6, seed=2)
    result = triangle_count(g, target=target, out="device")
    assert result.total == sum(networkx_triangles(g)) // 3


@given(graph=graphs(max_vertices=30, max_edges=120, directed=False))
def test_degree_ordered_graph_holds_each_edge_once_from_lower_to_higher_rank(graph):
    simple = graph.simple()
    n, degree = simple.num_vertices, simple.out_degrees()
    ordered = degree_ordered(graph)
    assert ordered.directed and ordered.num_vertices == n
    assert 2 * ordered.num_edges == simple.num_edges
    rank = sorted(range(n), key=lambda v: (degree[v], v))
    place = {v: i for i, v in enumerate(rank)}
    for v in range(n):
        row = set(simple.col_indices[simple.row_offsets[v]:simple.row_offsets[v + 1]].tolist())
        up = ordered.col_indices[ordered.row_offsets[v]:ordered.row_offsets[v + 1]].tolist()
        assert up == sorted(w for w in row if place[w] > place[v])
        assert len(up) ** 2 <= simple.num_edges  # no up-row longer than sqrt(2 |E|)


def test_degree_ordered_graph_is_built_once_and_breaks_ties_by_id():
    path = Graph.from_edges([0, 1], [1, 2], directed=False)  # degrees 1, 2, 1
    ordered = degree_ordered(path)
    assert degree_ordered(path) is ordered
    # ranks 0 < 2 < 1: both edges lead to 1
    assert ordered.row_offsets.tolist() == [0, 1, 1, 2]
    assert ordered.col_indices.tolist() == [1, 1]


def test_degree_ordered_rows_of_a_directed_graph_are_refused():
    with pytest.raises(ValueError, match="degree_ordered needs an undirected graph"):
        degree_ordered(generators.gnm(10, 20, seed=1, directed=True))


@given(graph=graphs(max_vertices=30, max_edges=120, directed=False))
def test_reference_triangles_equal_networkx(graph):
    assert reference_triangles(graph).tolist() == networkx_triangles(graph)


@simulator_only
@pytest.mark.simulator
@settings(max_examples=3, deadline=None)
@given(graph=graphs(directed=False, max_vertices=8, max_edges=14))
def test_triangles_in_the_simulator_equal_the_reference(graph):
    result = triangle_count(graph, target="cuda")
    check_triangles(graph, result.per_vertex, result.total)


@simulator_only
@pytest.mark.simulator
@pytest.mark.parametrize("balancer", available_balancers(include_auto=True))
def test_triangles_among_hubs_in_the_simulator_equal_networkx_for_every_balancer(balancer):
    g = generators.rmat(5, seed=4)
    result = triangle_count(g, balancer=balancer, target="cuda")
    assert result.per_vertex.tolist() == networkx_triangles(g)


def test_a_clique_of_five_has_ten_triangles_six_at_each_vertex():
    src, dst = np.triu_indices(5, 1)
    result = triangle_count(Graph.from_edges(src, dst, directed=False), target="cpu")
    assert result.total == 10 and result.per_vertex.tolist() == [6] * 5


def test_a_directed_graph_is_refused_and_the_catalog_counts_its_undirected_graph():
    d = generators.gnm(20, 60, seed=3, directed=True)
    with pytest.raises(ValueError, match="undirected graph"):
        triangle_count(d, target="cpu")
    from algorithms import CATALOG

    entry = CATALOG["triangles"]
    entry.check(d, None, entry.invoke(d, None, balancer="auto", target="cpu"))
    assert d.simple(directed=False).directed is False


def test_a_graph_without_edges_has_no_triangles(target):
    for g in (Graph.from_edges([], [], num_vertices=0, directed=False),
              Graph.from_edges([], [], num_vertices=1, directed=False),
              Graph.from_edges([0], [0], num_vertices=1, directed=False),
              Graph.from_edges([], [], num_vertices=3, directed=False)):
        result = triangle_count(g, target=target)
        assert result.total == 0 and result.per_vertex.tolist() == [0] * g.num_vertices
