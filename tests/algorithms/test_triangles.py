"""Triangle counting equals NetworkX's ``triangles`` and the sequential reference of
frontier.testing on hypothesis graphs, for every balancer on the cpu target and on a GPU, and
in the CUDA simulator on tiny graphs."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

from algorithms import triangle_count
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
