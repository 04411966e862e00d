"""Semi-synchronous label propagation equals NetworkX's ``label_propagation_communities`` and
the sequential reference of frontier.testing on hypothesis graphs (self-loops, repeated edges,
hubs, several components, isolated vertices), on every target under every balancer (tiny graphs
in the CUDA simulator); race-free; bad input refused before any work."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings

from algorithms import label_propagation_communities
from frontier import Graph, generators
from frontier.target import resolve_target
from frontier.testing import (
    check_label_propagation,
    check_race_free,
    graphs,
    reference_label_propagation,
)
from operators import available_balancers

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
BALANCERS = available_balancers(include_auto=True)
UNDIRECTED = graphs(max_vertices=30, max_edges=90, directed=False)
TINY = graphs(max_vertices=9, max_edges=16, directed=False) if SIMULATED else UNDIRECTED
tiny = settings(max_examples=2) if SIMULATED else settings(max_examples=10)


def networkx_labels(graph: Graph) -> np.ndarray:
    """NetworkX's communities of the graph (repeated edges once, self-loops kept), each vertex
    labelled by its community's smallest vertex."""
    h = nx.Graph()
    h.add_nodes_from(range(graph.num_vertices))
    h.add_edges_from(zip(graph.coo().src.tolist(), graph.col_indices.tolist(), strict=True))
    labels = np.empty(graph.num_vertices, np.int64)
    for community in nx.community.label_propagation_communities(h):
        labels[list(community)] = min(community)
    return labels


@given(graph=UNDIRECTED)
def test_the_communities_equal_networkx(graph):
    result = label_propagation_communities(graph, target="cpu")
    assert result.labels.dtype == np.int32
    np.testing.assert_array_equal(result.labels, networkx_labels(graph))
    assert result.num_communities == len(set(result.labels.tolist()))
    check_label_propagation(graph, result.labels)


@given(graph=UNDIRECTED)
def test_the_reference_equals_networkx(graph):
    np.testing.assert_array_equal(reference_label_propagation(graph), networkx_labels(graph))


@pytest.mark.parametrize("balancer", BALANCERS)
@tiny
@given(graph=TINY)
def test_every_balancer_on_every_target(target, balancer, graph):
    got = label_propagation_communities(graph, balancer=balancer, target=target)
    on_cpu = label_propagation_communities(graph, target="cpu")
    np.testing.assert_array_equal(got.labels, on_cpu.labels)
    assert got.iterations == on_cpu.iterations and got.num_colors == on_cpu.num_colors


def test_a_scale_free_graph_with_hubs():
    g = generators.rmat(10, seed=1)
    result = label_propagation_communities(g, target="cpu")
    np.testing.assert_array_equal(result.labels, networkx_labels(g))
    assert result.num_colors > 10 and result.iterations > 1


def test_every_label_is_among_its_vertex_neighbours_most_frequent():
    g = generators.gnm(400, 900, seed=7)
    labels = label_propagation_communities(g, target="cpu").labels
    for v in range(g.num_vertices):
        row = labels[g.col_indices[g.row_offsets[v]:g.row_offsets[v + 1]]]
        if row.size:
            values, counts = np.unique(row, return_counts=True)
            assert labels[v] in values[counts == counts.max()]


def test_a_self_loop_counts_its_vertex_once_and_repeats_count_once():
    # 0's neighbours: itself (label 0) and 1; 1's: 0, and 2 three times over
    g = Graph.from_edges([0, 0, 1, 1, 1], [0, 1, 2, 2, 2], directed=False)
    np.testing.assert_array_equal(label_propagation_communities(g, target="cpu").labels,
                                  networkx_labels(g))


def test_isolated_vertices_and_empty_graphs_keep_their_own_label():
    result = label_propagation_communities(Graph.from_edges([0], [1], num_vertices=4,
                                                            directed=False), target="cpu")
    assert result.labels.tolist() == [0, 0, 2, 3] and result.num_communities == 3
    empty = label_propagation_communities(Graph.from_edges([], [], num_vertices=0,
                                                           directed=False), target="cpu")
    assert empty.labels.size == 0 and empty.iterations == 0 and empty.num_communities == 0


def test_stats_record_each_sweep():
    g = generators.gnm(300, 700, seed=2)
    result = label_propagation_communities(g, target="cpu")
    assert len(result.stats) == result.iterations > 1
    assert result.stats[-1].changed == 0 and all(s.changed for s in result.stats[:-1])
    assert result.edges_traversed == 2 * g.num_edges * result.iterations


def test_race_free_on_every_target_it_can_be_checked_on(target):
    if target.name == "cuda" and not target.simulated:
        pytest.skip("the race detector runs on the cpu target and in the simulator")
    g = Graph.from_edges([0, 0, 1, 2, 3, 3, 4, 5], [1, 2, 2, 3, 4, 5, 5, 5], directed=False)
    result = check_race_free(label_propagation_communities, g, balancer="thread",
                             target=target)
    check_label_propagation(g, result.labels)


@pytest.mark.parametrize("call, error, words", [
    (lambda: label_propagation_communities([[0, 1]]), TypeError,
     "expected a frontier.Graph, got list"),
    (lambda: label_propagation_communities(Graph.from_edges([0], [1])), ValueError,
     "label_propagation_communities needs an undirected graph"),
    (lambda: label_propagation_communities(generators.path(3), balancer="nosuch"), ValueError,
     "unknown balancer 'nosuch'"),
    (lambda: label_propagation_communities(generators.path(3), out="gpu"), ValueError,
     "unknown place for the results 'gpu'"),
])
def test_bad_arguments_are_refused_before_any_work(call, error, words):
    cpu = resolve_target("cpu")
    launches = cpu.launches
    with pytest.raises(error, match=words):
        call()
    assert cpu.launches == launches


def test_the_check_names_the_vertices_that_differ():
    g = generators.path(4)
    with pytest.raises(AssertionError, match="at 2 vertices: vertex 2: expected 0, got 2"):
        check_label_propagation(g, [0, 0, 2, 2])
    with pytest.raises(AssertionError, match="one label per vertex"):
        check_label_propagation(g, [0, 0])
