"""Graph.transpose(): every arc reversed with its weight, built once and kept, on the same vertex
ids, so that a vertex frontier of a graph is valid on its transpose."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest
from hypothesis import given

from frontier import Frontier, Graph
from frontier.frontier import FrontierError
from frontier.testing import graphs


def arcs(graph: Graph) -> list[tuple]:
    """The graph's arcs (tail, head, weight) in CSR order."""
    coo = graph.coo()
    w = graph.weights if graph.weighted else np.ones(graph.num_edges)
    return list(zip(coo.src.tolist(), coo.dst.tolist(), w.tolist(), strict=True))


@given(graph=graphs(max_vertices=30, max_edges=120, weighted=True, weight_range=(-9, 9)))
def test_the_transpose_is_scipys_transposed_matrix_weights_repeats_and_loops_kept(graph):
    t = graph.transpose()
    assert (t.num_vertices, t.num_edges, t.weighted) == (graph.num_vertices, graph.num_edges,
                                                         graph.weighted)
    expected = graph.to_scipy().T.tocsr()
    got = t.to_scipy()
    assert got.shape == expected.shape
    assert (got != expected).nnz == 0  # repeated arcs summed on both sides
    assert sorted(arcs(t)) == sorted((v, u, w) for u, v, w in arcs(graph))  # each arc once
    assert t.weights.dtype == graph.weights.dtype


@given(graph=graphs(max_vertices=30, max_edges=120, directed=True, weighted=True))
def test_a_directed_transpose_is_what_from_edges_builds_from_the_reversed_arcs(graph):
    coo = graph.coo()
    built = Graph.from_edges(coo.dst, coo.src, graph.weights, graph.num_vertices)
    t = graph.transpose()
    for mine, theirs in ((t.row_offsets, built.row_offsets), (t.col_indices, built.col_indices),
                         (t.weights, built.weights)):
        assert np.array_equal(mine, theirs)
    # the transpose's CSC (taken from the graph's CSR) is the one it would build itself
    fresh = Graph(t.row_offsets, t.col_indices, t.weights, True).csc()
    for mine, theirs in ((t.csc().col_offsets, fresh.col_offsets),
                         (t.csc().row_indices, fresh.row_indices),
                         (t.csc().edge_ids, fresh.edge_ids)):
        assert np.array_equal(mine, theirs)


@given(graph=graphs(max_vertices=20, max_edges=60))
def test_the_transpose_of_an_unweighted_graph_is_unweighted(graph):
    assert not graph.transpose().weighted
    assert sorted(arcs(graph.transpose())) == sorted((v, u, w) for u, v, w in arcs(graph))


@pytest.mark.parametrize("n", [0, 3])
def test_the_transpose_of_a_graph_without_arcs_has_none(n):
    g = Graph.from_edges([], [], num_vertices=n)
    t = g.transpose()
    assert (t.num_vertices, t.num_edges) == (n, 0)
    assert t.transpose() is g


def test_the_transpose_is_built_once_and_its_transpose_is_the_graph():
    g = Graph.from_edges([0, 0, 1], [1, 2, 2])
    t = g.transpose()
    assert g.transpose() is t
    assert t.transpose() is g
    assert t.same_vertices(g) and g.same_vertices(t) and g.same_vertices(g)
    assert not g.same_vertices(Graph.from_edges([1, 2, 2], [0, 0, 1]))  # equal, but not built
    assert not g.same_vertices(None)


def test_an_undirected_graph_is_its_own_transpose():
    g = Graph.from_edges([0, 1, 2], [1, 2, 2], [1.0, 2.0, 3.0], directed=False)
    assert g.transpose() is g


def test_threads_asking_at_once_get_one_transpose():
    g = Graph.from_edges(np.arange(999) % 37, np.arange(999) % 41)
    start = threading.Barrier(8)
    got = []

    def ask():
        start.wait()
        got.append(g.transpose())

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8 and all(t is got[0] for t in got)


def test_a_pickled_graph_rebuilds_its_transpose():
    g = Graph.from_edges([0, 0, 1], [1, 2, 2], [4, 5, 6])
    g.transpose()
    copy = pickle.loads(pickle.dumps(g))
    assert copy.transpose() is not g.transpose()
    assert sorted(arcs(copy.transpose())) == sorted(arcs(g.transpose()))
    assert copy.transpose().transpose() is copy


def test_a_vertex_frontier_unites_with_one_of_the_transpose(target):
    g = Graph.from_edges([0, 1, 2], [1, 2, 3])
    t = g.transpose()
    mine = Frontier.from_vertices(g, [0, 1], target=target)
    theirs = Frontier.from_vertices(t, [3], target=target)
    assert sorted(mine.union(theirs).to_numpy().tolist()) == [0, 1, 3]
    assert sorted(theirs.union(Frontier.from_vertices(g, [2], target=target)
                               ).to_numpy().tolist()) == [2, 3]


def test_frontiers_of_unrelated_graphs_or_edge_frontiers_of_a_transpose_do_not_unite(target):
    g = Graph.from_edges([0, 1, 2], [1, 2, 3])
    other = Graph.from_edges([0, 1, 2], [1, 2, 3])
    with pytest.raises(FrontierError, match="different graphs.*or its transpose"):
        Frontier.from_vertices(g, [0], target=target).union(
            Frontier.from_vertices(other, [1], target=target))
    with pytest.raises(FrontierError, match="edges on different graphs"):
        Frontier.from_edges(g, [0], target=target).union(
            Frontier.from_edges(g.transpose(), [1], target=target))
