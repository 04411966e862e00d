"""The k-truss by peeling equals NetworkX's ``k_truss`` and the sequential reference of
frontier.testing on hypothesis graphs (repeated edges, hubs, several components, isolated
vertices), for every k that matters, every balancer on the cpu target and in the CUDA simulator
on tiny graphs; race-free; bad input refused before any work."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import k_truss
from frontier import Graph, generators
from frontier.target import resolve_target
from frontier.testing import check_k_truss, check_race_free, graphs, reference_k_truss
from operators import available_balancers

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
#: (balancer, k) pairs: every balancer once, the ks cycling through those that peel
PAIRS = [pytest.param(b, 3 + i % 4, id=f"{b}-k{3 + i % 4}")
         for i, b in enumerate(available_balancers(include_auto=True))]
LOOPLESS = graphs(max_vertices=25, max_edges=120, directed=False, self_loops=False)
TINY = (graphs(max_vertices=8, max_edges=18, directed=False, self_loops=False) if SIMULATED
        else LOOPLESS)
tiny = settings(max_examples=3) if SIMULATED else settings(max_examples=20)


def networkx_truss(graph: Graph, k: int) -> list[tuple[int, int]]:
    h = nx.Graph()
    h.add_nodes_from(range(graph.num_vertices))
    h.add_edges_from(zip(graph.coo().src.tolist(), graph.col_indices.tolist(), strict=True))
    return sorted(tuple(sorted(e)) for e in nx.k_truss(h, k).edges())


def clique(n: int) -> Graph:
    u, v = np.triu_indices(n, 1)
    return Graph.from_edges(u, v, num_vertices=n, directed=False)


@given(graph=LOOPLESS, k=st.integers(0, 7))
def test_the_truss_equals_networkx(graph, k):
    result = k_truss(graph, k, target="cpu")
    assert [tuple(e) for e in result.edges.tolist()] == networkx_truss(graph, k)
    assert result.edges.dtype == np.int32 and result.k == k
    check_k_truss(graph, k, result.edges)


@given(graph=LOOPLESS, k=st.integers(2, 7))
def test_the_reference_equals_networkx(graph, k):
    assert [tuple(e) for e in reference_k_truss(graph, k).tolist()] == networkx_truss(graph, k)


@pytest.mark.parametrize("balancer, k", PAIRS)
@tiny
@given(graph=TINY)
def test_every_balancer_on_every_target(target, balancer, k, graph):
    result = k_truss(graph, k, balancer=balancer, target=target)
    check_k_truss(graph, k, result.edges)
    assert result.iterations == k_truss(graph, k, target="cpu").iterations


def test_a_scale_free_graph_with_hubs_against_the_reference():
    g = generators.rmat(9, seed=2)
    for k in (4, 6, 9):
        result = k_truss(g, k, target="cpu")
        check_k_truss(g, k, result.edges)
        assert sum(r.peeled for r in result.stats) == g.num_edges // 2 - result.num_edges


def test_triangles_that_lose_two_edges_in_one_round_are_counted_once():
    # K5 (each edge in 3 triangles) with a fan of triangles hanging off vertex 0
    base = clique(5)
    fan = [(0, 5), (5, 6), (0, 6), (6, 7), (0, 7)]
    src = np.r_[base.coo().src[base.coo().src < base.col_indices], [a for a, _ in fan]]
    dst = np.r_[base.col_indices[base.coo().src < base.col_indices], [b for _, b in fan]]
    g = Graph.from_edges(src, dst, directed=False)
    for k in (3, 4, 5, 6):
        assert [tuple(e) for e in k_truss(g, k, target="cpu").edges.tolist()] == \
            networkx_truss(g, k)


def test_cliques_are_their_own_trusses_up_to_their_size():
    g = clique(6)
    assert k_truss(g, 6, target="cpu").num_edges == 15
    assert k_truss(g, 7, target="cpu").num_edges == 0


def test_repeated_edges_count_once():
    g = Graph.from_edges([0, 0, 1, 2, 0], [1, 1, 2, 0, 2], directed=False)
    assert k_truss(g, 3, target="cpu").edges.tolist() == [[0, 1], [0, 2], [1, 2]]


def test_empty_and_edgeless_graphs():
    for n in (0, 3):
        result = k_truss(Graph.from_edges([], [], num_vertices=n, directed=False), 3,
                         target="cpu")
        assert result.edges.shape == (0, 2) and result.iterations == 0


def test_stats_record_each_round():
    g = generators.gnm(200, 1500, seed=3)
    result = k_truss(g, 4, target="cpu")
    assert len(result.stats) == result.iterations > 1
    assert result.stats[-1].listed == 0 and all(r.listed > 0 for r in result.stats[:-1])
    assert sum(r.peeled for r in result.stats) + result.num_edges == g.num_edges // 2


def test_race_free_on_every_target_it_can_be_checked_on(target):
    if target.name == "cuda" and not target.simulated:
        pytest.skip("the race detector runs on the cpu target and in the simulator")
    g = generators.gnm(9, 24, seed=1)
    for k in (3, 4):
        result = check_race_free(k_truss, g, k, balancer="thread", target=target)
        check_k_truss(g, k, result.edges)


@pytest.mark.parametrize("call, error, words", [
    (lambda: k_truss([[0, 1]], 3), TypeError, "expected a frontier.Graph, got list"),
    (lambda: k_truss(Graph.from_edges([0], [1]), 3), ValueError,
     "k_truss needs an undirected graph"),
    (lambda: k_truss(Graph.from_edges([0, 1], [0, 2], directed=False), 3), ValueError,
     r"k_truss: the graph has 1 self-loop\(s\) \(vertex 0 first\)"),
    (lambda: k_truss(generators.path(3), 2.5), TypeError, "k=2.5; expected an integer"),
    (lambda: k_truss(generators.path(3), True), TypeError, "k=True; expected an integer"),
    (lambda: k_truss(generators.path(3), 3, balancer="nosuch"), ValueError,
     "unknown balancer 'nosuch'"),
    (lambda: k_truss(generators.path(3), 3, out="gpu"), ValueError,
     "unknown place for the results 'gpu'"),
])
def test_bad_arguments_are_refused_before_any_work(call, error, words):
    cpu = resolve_target("cpu")
    launches = cpu.launches
    with pytest.raises(error, match=words):
        call()
    assert cpu.launches == launches


def test_the_check_names_a_wrong_edge():
    g = clique(4)
    with pytest.raises(AssertionError, match=r"edge \(0, 3\) of the 4-truss is missing"):
        check_k_truss(g, 4, [[0, 1], [0, 2], [1, 2], [1, 3], [2, 3]])
    with pytest.raises(AssertionError, match=r"edge \(0, 1\) is not in the 5-truss"):
        check_k_truss(g, 5, [[0, 1]])
    with pytest.raises(AssertionError, match="not as"):
        check_k_truss(g, 3, [[0, 2], [0, 1], [0, 3], [1, 2], [1, 3], [2, 3]])
