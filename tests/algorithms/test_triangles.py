"""Triangle counting equals NetworkX's ``triangles`` and the sequential reference of
frontier.testing on hypothesis graphs and on R-MAT hubs, for every balancer on the cpu target
and on a GPU, and in the CUDA simulator on tiny graphs; the degree-ordered graph it counts on
holds each edge once, from its end of lower (degree, id) to the higher, kept with the graph."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

from algorithms import triangle_count
from algorithms.triangles import degree_dag
from frontier import Graph, generators
from frontier.target import cuda_usable
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
def test_triangles_among_rmat_hubs_equal_networkx(target, balancer):
    g = generators.rmat(8, seed=4)  # low ids are hubs: the degree order reverses the ids
    result = triangle_count(g, balancer=balancer, target=target)
    assert result.per_vertex.tolist() == networkx_triangles(g)
    assert result.total == sum(networkx_triangles(g)) // 3
    assert result.edges_traversed == g.num_edges // 2 == degree_dag(g).num_edges


@given(graph=graphs(max_vertices=30, max_edges=120, directed=False))
def test_the_degree_dag_holds_each_edge_once_from_its_lower_to_its_higher_rank(graph):
    dag = degree_dag(graph)
    simple = graph.simple()
    degree = simple.out_degrees()

    def rank(v):
        return (int(degree[v]), v)

    edges = {(min(a, b), max(a, b)) for a, b in zip(graph.coo().src.tolist(),
                                                     graph.col_indices.tolist(), strict=True)
             if a != b}
    arcs = list(zip(dag.coo().src.tolist(), dag.col_indices.tolist(), strict=True))
    assert dag.directed and dag.num_vertices == graph.num_vertices
    assert sorted(arcs) == sorted((a, b) if rank(a) < rank(b) else (b, a) for a, b in edges)
    assert arcs == sorted(arcs)  # rows ascending: the view reads them with no sorted copy
    assert dag.out_degrees().max(initial=0) ** 2 <= simple.num_edges  # rows of <= sqrt(2 |E|)
    assert degree_dag(graph) is dag and degree_dag(simple) is dag  # built once per graph


def test_the_degree_dag_breaks_degree_ties_by_id_and_points_at_hubs():
    # a triangle 0 1 2 with a pendant 3 at 0: 0 has degree 3, 1 and 2 degree 2, 3 degree 1
    g = Graph.from_edges([0, 0, 1, 0], [1, 2, 2, 3], directed=False)
    dag = degree_dag(g)
    assert list(zip(dag.coo().src.tolist(), dag.col_indices.tolist(), strict=True)) == [
        (1, 0), (1, 2), (2, 0), (3, 0)]
    assert triangle_count(g, target="cpu").per_vertex.tolist() == [1, 1, 1, 0]


def test_the_degree_dag_of_a_directed_graph_is_refused():
    with pytest.raises(ValueError, match="degree_dag needs an undirected graph"):
        degree_dag(generators.gnm(10, 20, seed=1, directed=True))


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
    assert triangle_count(g, balancer=balancer, target="cuda").per_vertex.tolist() == \
        networkx_triangles(g)


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
              Graph.from_edges([], [], num_vertices=3, directed=False)):
        result = triangle_count(g, target=target)
        assert result.total == 0 and result.per_vertex.tolist() == [0] * g.num_vertices
