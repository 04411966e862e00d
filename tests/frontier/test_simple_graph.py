"""``Graph.simple()`` (frontier/simple_graph.py): self-loops dropped and repeated arcs merged with
the least of their weights, an undirected graph kept undirected and symmetric, a directed one
directed, or (``directed=False``) the undirected simple graph underlying a directed one; equal
to NetworkX's simple graphs on hypothesis graphs; the graph itself where it is simple already;
built once per graph; and what the algorithms that need a simple graph use
(``algorithms.kcore.undirected_simple`` is the same)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from algorithms.kcore import undirected_simple
from frontier import Graph, generators
from frontier.testing import graphs


def arcs_of(graph: Graph) -> list[tuple[int, int, int]]:
    """The arcs ``(u, v, weight)`` in CSR order (weight 1 unweighted)."""
    w = graph.weights if graph.weights is not None else np.ones(graph.num_edges, np.int64)
    return list(zip(graph.coo().src.tolist(), graph.col_indices.tolist(), w.tolist(),
                    strict=True))


def reference_simple(graph: Graph, directed: bool) -> list[tuple[int, int, int]]:
    """NetworkX's simple graph of the arcs (least weight of merged arcs), as sorted arcs."""
    h = nx.DiGraph() if directed else nx.Graph()
    for u, v, w in arcs_of(graph):
        if u != v and (not h.has_edge(u, v) or w < h[u][v]["weight"]):
            h.add_edge(u, v, weight=w)
    arcs = [(u, v, d["weight"]) for u, v, d in h.edges(data=True)]
    if not directed:
        arcs += [(v, u, w) for u, v, w in arcs]
    return sorted(arcs)


@given(graph=graphs(max_vertices=14, max_edges=40, weighted=True) | graphs(max_vertices=14,
                                                                           max_edges=40),
       kind=st.sampled_from([None, False, True]))
def test_simple_is_networkx_simple_graph_with_the_least_weight_of_merged_arcs(graph, kind):
    simple = graph.simple(directed=kind)
    directed = graph.directed if kind is None else kind
    assert simple.directed is directed and simple.num_vertices == graph.num_vertices
    assert simple.weighted is graph.weighted
    got = arcs_of(simple)
    expected = reference_simple(graph, directed)
    assert sorted(got) == ([(u, v, 1) for u, v, _ in expected] if not graph.weighted
                           else expected)
    assert len(set((u, v) for u, v, _ in got)) == len(got)  # no repeats, no loops
    if not directed:  # symmetric, one weight per edge: the checking constructor agrees
        Graph.from_csr(simple.row_offsets, simple.col_indices, simple.weights, directed=False)


def test_the_issue_example_drops_the_loop_and_the_repeat():
    u = Graph.from_edges([0, 0, 1, 2], [1, 1, 1, 0], num_vertices=3, directed=False).simple()
    assert not u.directed
    assert sorted((a, b) for a, b, _ in arcs_of(u)) == [(0, 1), (0, 2), (1, 0), (2, 0)]


def test_repeated_arcs_keep_their_least_weight_both_ways():
    d = Graph.from_edges([0, 1, 1, 2, 2, 2], [1, 0, 0, 2, 0, 0], [5, 3, 1, 7, 2, 9])
    assert arcs_of(d.simple()) == [(0, 1, 5), (1, 0, 1), (2, 0, 2)]
    assert arcs_of(d.simple(directed=False)) == [(0, 1, 1), (0, 2, 2), (1, 0, 1), (2, 0, 2)]


def test_a_simple_graph_is_its_own_simple_graph_and_the_result_is_kept():
    g = generators.gnm(30, 80, seed=2)
    assert g.simple() is g and g.simple(directed=False) is g
    d = generators.rmat(6, seed=1, directed=True)
    assert d.simple(directed=False) is d.simple(directed=False)
    assert d.simple(directed=False) is undirected_simple(d)  # the catalog's, one definition


def test_a_directed_flag_that_is_not_a_bool_is_refused():
    with pytest.raises(TypeError, match="directed"):
        generators.path(3).simple(directed="no")


def test_a_graph_without_arcs_is_simple():
    for g in (Graph.from_edges([], [], num_vertices=0), Graph.from_edges([0], [0],
                                                                        num_vertices=2)):
        s = g.simple(directed=False)
        assert s.num_edges == 0 and s.num_vertices == g.num_vertices and not s.directed

