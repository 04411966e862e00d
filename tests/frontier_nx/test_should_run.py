"""``should_run``: graphs of fewer than ``MIN_EDGES`` edges stay in NetworkX (a reason string),
and ``networkx.config.backends.frontier.min_edges`` overrides the threshold (see ``python -m
bench networkx`` for the crossover it comes from); on larger ones a function runs here where
:func:`frontier_nx.costs.estimate` says its first call is faster than NetworkX's (the library
loaded or not, the graph read or not, for the attribute the call reads), the arcs counted only
as far as that takes; the breadth-first generators run here and read only the levels their
reader asks for, on NetworkX's adjacency until a level is large enough that reading the graph
pays."""

from __future__ import annotations

import inspect

import networkx as nx
import pytest

from frontier_nx import costs, get_info, interface, registry, traversal
from frontier_nx.interface import MIN_EDGES, BackendInterface

should_run = BackendInterface.should_run


@pytest.fixture
def config():
    """The backend's config section, restored after the test."""
    section = getattr(nx.config.backends, "frontier", None)
    if section is None:
        pytest.skip("the frontier backend is not registered with NetworkX here")
    before = section.min_edges
    yield section
    section.min_edges = before


@pytest.fixture
def paying(monkeypatch):
    """Every estimate says the backend is faster: what ``min_edges`` decides alone."""
    monkeypatch.setattr(costs, "estimate", lambda *args: costs.Estimate(-1.0, 0.0, 0.0))


def test_the_default_config_declares_min_edges():
    assert "min_edges" in get_info()["default_config"]


def test_a_graph_below_min_edges_stays_in_networkx_with_a_reason(config):
    config.min_edges = None
    small = nx.path_graph(10)
    reason = should_run("pagerank", (small,), {})
    assert isinstance(reason, str) and f"fewer than {MIN_EDGES} edges" in reason
    assert isinstance(should_run("pagerank", (), {"alpha": 0.9, "G": small}), str)


def test_a_graph_of_min_edges_runs_on_the_backend(config, paying):
    config.min_edges = None
    assert should_run("core_number", (nx.path_graph(MIN_EDGES + 1),), {}) is True


def test_the_config_overrides_the_threshold(config, paying):
    small = nx.path_graph(10)
    config.min_edges = 9
    assert should_run("pagerank", (small,), {}) is True
    config.min_edges = 10
    assert "fewer than 10 edges" in should_run("pagerank", (small,), {})
    with nx.config.backends.frontier(min_edges=0):
        assert should_run("pagerank", (nx.empty_graph(3),), {}) is True


def test_networkx_picking_the_backend_itself_runs_small_graphs_in_networkx(config):
    config.min_edges = None
    with nx.config(backend_priority=["frontier"]):
        small = nx.path_graph(5)
        assert nx.pagerank(small) == nx.pagerank(small, backend="networkx")
        assert "backends" not in small.__networkx_cache__  # never converted


def test_searches_networkx_stops_early_stay_in_networkx_on_any_graph(config, paying):
    config.min_edges = 0
    G = nx.path_graph(50)
    for name, kwargs in [("has_path", {"source": 0, "target": 3}),
                         ("shortest_path", {"source": 0, "target": 3}),
                         ("shortest_path_length", {"source": 0, "target": 3}),
                         ("dijkstra_path", {"source": 0, "target": 3}),
                         ("dijkstra_path_length", {"source": 0, "target": 3}),
                         ("single_source_dijkstra", {"source": 0, "target": 3}),
                         ("multi_source_dijkstra", {"sources": {0, 1}, "target": 3}),
                         ("descendants_at_distance", {"source": 0, "distance": 2})]:
        assert "stops" in should_run(name, (G,), kwargs), name
    assert should_run("shortest_path_length", (G,), {"source": 0}) is True
    assert should_run("single_source_dijkstra_path_length", (G, 0), {}) is True
    assert should_run("single_source_dijkstra", (G, 0), {}) is True
    assert should_run("multi_source_dijkstra", (G, {0, 1}), {}) is True


def test_dijkstra_path_under_backend_priority_never_converts_the_graph(config):
    """NetworkX's dijkstra_path calls single_source_dijkstra with the target: both stay."""
    config.min_edges = 0
    G = nx.path_graph(50)
    with nx.config.backend_priority(algos=["frontier"]):
        assert nx.dijkstra_path(G, 0, 3) == [0, 1, 2, 3]
    assert "backends" not in G.__networkx_cache__


def _conversions(G: nx.Graph) -> list:
    return list(G.__networkx_cache__.get("backends", {}).get("frontier", {}).values())


@pytest.mark.parametrize("name", sorted(costs.COSTS))
def test_a_function_runs_here_where_its_estimate_says_it_pays(config, monkeypatch, name):
    config.min_edges = 0
    G = nx.path_graph(50, create_using=nx.DiGraph)
    asked = []
    answer = [1.0]

    def estimate(function, nodes, arguments, read, values):
        asked.append((function, nodes, read))
        return costs.Estimate(answer[0], 0.0, 0.0)

    monkeypatch.setattr(costs, "estimate", estimate)
    arguments = {p: v for p, v in {"source": 0, "target": 1, "sources": {0}, "n": 0,
                                   "k": 3}.items()
                 if p in inspect.signature(registry.implementation(name)).parameters
                 and inspect.signature(registry.implementation(name)).parameters[p].default
                 is inspect.Parameter.empty}
    reason = should_run(name, (G,), arguments)
    assert isinstance(reason, str) and "frontier_nx.costs" in reason
    assert asked == [(name, 50, False)]
    answer[0] = -1.0
    assert should_run(name, (G,), arguments) is True


def test_a_call_runs_here_once_the_library_is_loaded_and_the_graph_read(config, monkeypatch):
    config.min_edges = 0
    G = nx.gnm_random_graph(300, 3000, seed=1)
    monkeypatch.setattr(costs, "loaded", lambda module: False)
    reason = should_run("core_number", (G,), {})
    assert "loading library and numpy" in reason and "reading the graph" in reason
    nx.core_number(G, backend="frontier")  # reads the graph
    assert "reading the graph" not in should_run("core_number", (G,), {})
    monkeypatch.setattr(costs, "loaded", lambda module: True)
    assert should_run("core_number", (G,), {}) is True


def test_a_weighted_call_counts_reading_the_weights_where_no_call_read_them(config,
                                                                             monkeypatch):
    config.min_edges = 0
    G = nx.gnm_random_graph(300, 3000, seed=1)
    seen = []
    monkeypatch.setattr(costs, "estimate", lambda name, nodes, arguments, read, values: (
        seen.append((name, read, values)) or costs.Estimate(1.0, 0.0, 0.0)))
    nx.connected_components(G, backend="frontier")  # a conversion without the weights
    list(nx.connected_components(G, backend="frontier"))
    should_run("pagerank", (G,), {})
    should_run("pagerank", (G,), {"weight": None})
    should_run("minimum_spanning_tree", (G,), {})
    nx.pagerank(G, backend="frontier")  # one with them, read
    should_run("pagerank", (G,), {})
    should_run("minimum_spanning_tree", (G,), {})
    assert seen == [("pagerank", False, True), ("pagerank", True, False),
                    ("minimum_spanning_tree", False, True), ("pagerank", True, True),
                    ("minimum_spanning_tree", False, True)]


def test_the_arcs_are_counted_only_until_the_estimate_is_settled():
    G = nx.path_graph(100_000)
    arcs = interface._Arcs(G)
    assert arcs.pays(costs.Estimate(-1.0, -1e-9, 0.0))
    assert arcs.counted < 2 * 99_999  # settled after the first rows
    arcs = interface._Arcs(G)
    assert not arcs.pays(costs.Estimate(1.0, 1e-9, 0.0))
    assert arcs.counted == 0
    arcs = interface._Arcs(G)  # negative past 150,000 arcs: counted that far
    assert arcs.pays(costs.Estimate(0.15, -1e-6, 0.0))
    assert 150_000 <= arcs.counted < 2 * 99_999
    arcs = interface._Arcs(G)  # past 250,000 arcs: more than there are
    assert not arcs.pays(costs.Estimate(0.25, -1e-6, 0.0)) and arcs.counted == 2 * 99_999


@pytest.mark.parametrize("name", sorted(costs.LAZY))
def test_breadth_first_generators_run_here_without_an_estimate(config, monkeypatch, name):
    config.min_edges = 0
    monkeypatch.setattr(costs, "estimate", lambda *args: pytest.fail("estimated"))
    assert should_run(name, (nx.path_graph(50), 0), {}) is True


def test_descendants_at_distance_under_backend_priority_never_reads_the_graph(config):
    config.min_edges = 0
    G = nx.path_graph(200)
    with nx.config(backend_priority=["frontier"]):
        assert nx.descendants_at_distance(G, 0, 2) == {2}
    assert not any(graph.read for graph in _conversions(G))


def test_a_partial_read_searches_only_the_levels_read(monkeypatch):
    G = nx.path_graph(1000)
    levels = traversal._levels
    read = []

    def counted(*args):
        for level in levels(*args):
            read.append(level)
            yield level

    monkeypatch.setattr(traversal, "_levels", counted)
    edges = nx.bfs_edges(G, 0, backend="frontier")
    assert [next(edges) for _ in range(3)] == [(0, 1), (1, 2), (2, 3)]
    assert not any(graph.read for graph in _conversions(G)) and not read  # on the adjacency
    monkeypatch.setattr(costs, "hand_over", lambda level_arcs, arcs, searched=0: True)
    G.__networkx_cache__.clear()
    edges = nx.bfs_edges(G, 0, backend="frontier")
    assert [next(edges) for _ in range(3)] == [(0, 1), (1, 2), (2, 3)]
    assert nx.descendants_at_distance(G, 0, 4, backend="frontier") == {4}
    assert nx.shortest_path(G, 10, 13, backend="frontier") == [10, 11, 12, 13]
    assert len(read) <= 3 + 4 + 4


def test_a_search_on_the_adjacency_hands_over_before_a_large_level(monkeypatch):
    G = nx.complete_graph(60)  # level 1 scans node 0's arcs, level 2 all the others'
    seen = []

    def hand_over(level_arcs, arcs, searched=0):
        seen.append((level_arcs, arcs()))
        return level_arcs > 100

    monkeypatch.setattr(costs, "hand_over", hand_over)
    assert list(nx.bfs_layers(G, 0, backend="frontier")) == list(nx.bfs_layers(G, 0))
    assert seen == [(59, 3540), (59 * 59, 3540)]
    assert all(graph.read for graph in _conversions(G))


def test_min_edges_counts_what_a_view_shows(config, paying):
    G = nx.path_graph(20)
    view = nx.subgraph_view(G, filter_node=lambda v: v < 10)
    config.min_edges = 9
    assert should_run("pagerank", (view,), {}) is True
    config.min_edges = 10
    assert "fewer than 10 edges" in should_run("pagerank", (view,), {})


@pytest.mark.parametrize("directed", [False, True])
def test_min_edges_counts_every_row_past_isolated_nodes(config, paying, directed):
    G = nx.empty_graph(10_000, create_using=nx.DiGraph if directed else nx.Graph)
    G.add_edges_from((10_000 + i, 10_001 + i) for i in range(100))  # past 4096-row chunks
    config.min_edges = 100
    assert should_run("pagerank", (G,), {}) is True
    config.min_edges = 101
    assert "fewer than 101 edges" in should_run("pagerank", (G,), {})


@pytest.mark.parametrize("hands_over", [False, True])
def test_a_large_queue_estimates_its_level_from_the_mean_degree(monkeypatch, hands_over):
    G = nx.star_graph(1500)  # level 1: 1500 leaves, each with the hub and two more neighbours
    nx.add_path(G, range(1, 1501))
    seen = []

    def hand_over(level_arcs, arcs, searched=0):
        seen.append(level_arcs)
        return hands_over and level_arcs > 2000

    monkeypatch.setattr(costs, "hand_over", hand_over)
    expected = list(nx.bfs_layers(G, 0))
    assert list(nx.bfs_layers(G, 0, backend="frontier")) == expected
    arcs = sum(map(len, G._adj.values()))
    assert seen[:2] == [1500, 1500 * arcs // len(G)]


def test_a_graph_searched_again_and_again_is_read_once_its_searches_cost_what_reading_does():
    G = nx.star_graph(3000)  # one search scans the hub's 3000 arcs and the leaves' 3000
    nx.add_path(G, range(1, 3001))
    conversions = []
    for search in range(4):
        assert list(nx.bfs_layers(G, 0, backend="frontier")) == list(nx.bfs_layers(G, 0))
        conversions = _conversions(G)
        assert len(conversions) == 1
        if search == 0:
            assert not conversions[0].read and conversions[0].searched > 0
    assert conversions[0].read
