"""The backend's functions answered from degrees, components, triangles, pairs of neighbours
and repeated searches against NetworkX itself on random graphs of every class (int or string
nodes, isolated nodes, self-loops, parallel edges): the same values to the last bit where
NetworkX's are exact (integer ratios), the same order, the same errors."""

from __future__ import annotations

import math

import networkx as nx
import pytest
from hypothesis import given, settings

from frontier_nx import registry
from tests.frontier_nx.test_backend_components import networkx_graphs

ALL = [nx.Graph, nx.MultiGraph, nx.DiGraph, nx.MultiDiGraph]


def outcome(call):
    """A call's value, or its exception's type and message."""
    try:
        value = call()
        return list(value) if not isinstance(value, dict | tuple | int | float | bool) else value
    except Exception as error:  # noqa: BLE001 - compared with NetworkX's
        return type(error), str(error)


def same(name, h, *args, **kwargs):
    function = getattr(nx, name)
    assert outcome(lambda: function(h, *args, backend="frontier", **kwargs)) == \
        outcome(lambda: function(h, *args, **kwargs)), name


@given(h=networkx_graphs(ALL))
def test_degree_functions_equal_networkx(h):
    same("degree_centrality", h)
    same("isolates", h)
    same("number_of_isolates", h)
    for node in list(h)[:3]:
        same("is_isolate", h, node)
    if h.is_directed():
        same("in_degree_centrality", h)
        same("out_degree_centrality", h)


@given(h=networkx_graphs([nx.Graph, nx.DiGraph]))
def test_reciprocity_equals_networkx(h):
    same("overall_reciprocity", h)
    same("reciprocity", h)
    if h.is_directed():
        same("reciprocity", h, list(h)[:4])
        for node in list(h)[:2]:
            same("reciprocity", h, node)


def test_multigraph_reciprocity_is_declined():
    assert "edge keys" in registry.declined("reciprocity", (nx.MultiDiGraph([(0, 1)]),), {})


@given(h=networkx_graphs(ALL))
def test_tree_recognition_equals_networkx(h):
    for name in ("is_tree", "is_forest"):
        same(name, h)
    if h.is_directed():
        same("is_arborescence", h)
        same("is_branching", h)


@given(h=networkx_graphs([nx.Graph]))
def test_link_prediction_equals_networkx(h):
    pairs = [(u, v) for u in list(h)[:4] for v in list(h)[:4]]
    for name in ("jaccard_coefficient", "preferential_attachment"):
        same(name, h)
        same(name, h, pairs)
    if len(h):
        same("jaccard_coefficient", h, [(next(iter(h)), "nowhere")])


@given(h=networkx_graphs([nx.Graph]))
def test_transitivity_and_average_clustering_equal_networkx(h):
    same("transitivity", h)
    same("average_clustering", h)
    same("average_clustering", h, count_zeros=False)
    same("average_clustering", h, list(h)[:3])


@given(h=networkx_graphs(ALL))
@settings(max_examples=30)
def test_searches_equal_networkx(h):
    for node in list(h)[:2] + ["nowhere"]:
        same("single_target_shortest_path_length", h, node)
        same("single_target_shortest_path", h, node, cutoff=2)
        same("generic_bfs_edges", h, node, depth_limit=2)
        for other in list(h)[-2:]:
            same("bidirectional_shortest_path", h, node, other)
    for name in ("all_pairs_dijkstra", "all_pairs_dijkstra_path",
                 "all_pairs_bellman_ford_path_length", "all_pairs_bellman_ford_path"):
        same(name, h)


@pytest.mark.parametrize("directed", [False, True])
def test_hits_equals_networkx(directed):
    h = nx.gnm_random_graph(30, 90, seed=2, directed=directed)
    for i, (u, v) in enumerate(h.edges):
        h[u][v]["weight"] = 1 + i % 3
    for hubs, theirs in zip(nx.hits(h, backend="frontier"), nx.hits(h), strict=True):
        assert hubs.keys() == theirs.keys()
        assert all(math.isclose(hubs[k], theirs[k], abs_tol=1e-9) for k in hubs)


def test_hits_with_an_infinite_weight_is_networkx_own():
    h = nx.DiGraph([(0, 1, {"weight": math.inf}), (1, 2, {}), (2, 0, {})])
    assert outcome(lambda: nx.hits(h, backend="frontier")) == outcome(lambda: nx.hits(h))
