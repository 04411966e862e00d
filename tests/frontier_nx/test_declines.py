"""Declined calls through NetworkX's own dispatcher: the reason in the exception of a
``backend="frontier"`` call, NetworkX's own answer where NetworkX picks the backend itself,
NetworkX's TypeError for arguments its signature refuses, and a converted graph handed back
to NetworkX for a function the backend lacks."""

from __future__ import annotations

import networkx as nx
import pytest

from frontier_nx import registry
from frontier_nx.interface import BackendInterface

RAISED = pytest.mark.skipif(not registry.reason_raised(),
                            reason="NetworkX's test mode shows no reason for a declined call")


@RAISED
def test_a_declined_call_with_backend_raises_the_reason():
    G = nx.path_graph(5)
    with pytest.raises(NotImplementedError, match="weight"):
        nx.single_source_dijkstra_path_length(G, 0, weight=lambda u, v, d: 1,
                                              backend="frontier")
    with pytest.raises(NotImplementedError, match="sort_neighbors"):
        list(nx.bfs_edges(G, 0, sort_neighbors=sorted, backend="frontier"))


@pytest.fixture
def priority(monkeypatch):
    """NetworkX picks the backend itself, on any graph."""
    monkeypatch.setattr(nx.config.backends.frontier, "min_edges", 0)
    monkeypatch.setattr(nx.config, "backend_priority", ["frontier"])


@RAISED
def test_fallback_to_nx_does_not_rescue_a_declined_call_with_backend(monkeypatch):
    monkeypatch.setattr(nx.config, "fallback_to_nx", True)
    with pytest.raises(NotImplementedError, match="weight"):
        nx.single_source_dijkstra_path_length(nx.path_graph(5), 0, weight=lambda u, v, d: 1,
                                              backend="frontier")


def test_a_declined_call_under_backend_priority_gives_networkx_answer(priority):
    got = nx.single_source_dijkstra_path_length(nx.path_graph(5), 0, weight=lambda u, v, d: 2)
    assert got == {0: 0, 1: 2, 2: 4, 3: 6, 4: 8}


@pytest.mark.parametrize("backend", ["frontier", None])
def test_an_unknown_keyword_raises_networkx_type_error(priority, backend):
    with pytest.raises(TypeError, match="pagerank.*bogus"):
        nx.pagerank(nx.path_graph(4), backend=backend, bogus=1)


def test_networkx_test_mode_gets_the_reason_returned(monkeypatch):
    monkeypatch.setattr(nx.utils.backends._dispatchable, "_is_testing", True)
    reason = BackendInterface.can_run("bfs_edges", (nx.path_graph(3), 0),
                                      {"sort_neighbors": sorted})
    assert isinstance(reason, str) and "sort_neighbors" in reason


@pytest.mark.parametrize("alive", [True, False])
def test_a_converted_graph_goes_back_to_networkx_for_a_function_the_backend_lacks(
        monkeypatch, alive):
    G = nx.MultiDiGraph([(0, 1, {"w": 2}), (0, 1, {"w": 3}), (1, 2, {"w": 1}), (2, 0, {})])
    G.add_node("lonely")
    converted = BackendInterface.convert_from_nx(G, edge_attrs={"w": None})
    if not alive:
        del G
        G = nx.MultiDiGraph([(0, 1, {"w": 2}), (0, 1, {"w": 3}), (1, 2, {"w": 1}),
                             (2, 0, {"w": None})])
        G.add_node("lonely")
    back = BackendInterface.convert_to_nx(converted)
    assert type(back) is nx.MultiDiGraph and list(back) == list(G)
    assert sorted(back.edges(data=True), key=repr) == sorted(G.edges(data=True), key=repr)
    if hasattr(nx.config, "fallback_to_nx"):  # NetworkX >= 3.4
        monkeypatch.setattr(nx.config, "fallback_to_nx", True)
        assert nx.is_directed_acyclic_graph(converted) is False


def test_under_a_networkx_older_than_the_oldest_supported_every_call_is_declined(monkeypatch):
    monkeypatch.setattr(nx, "__version__", "3.3")
    reason = registry.declined("pagerank", (nx.path_graph(3),), {})
    assert "needs NetworkX 3.4 or later (this is 3.3)" in reason
    assert BackendInterface.can_run("pagerank", (nx.path_graph(3),), {}) is False


def test_settings_are_none_where_networkx_has_no_config(monkeypatch):
    monkeypatch.delattr(nx, "config")
    assert registry.setting("min_edges") is None and registry.target() is None
