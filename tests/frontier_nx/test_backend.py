"""The NetworkX backend: with ``backend="frontier"`` NetworkX's functions return what NetworkX
returns, on graphs with arbitrary node labels, following NetworkX's conventions (errors,
dangling vertices, multigraphs, directed degrees). The backend is registered on the cpu target
by the ``frontier_backend`` fixture of ``conftest.py``."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.testing import graphs
from frontier_nx import registry


def labelled(graph, cls):
    """A frontier test graph as a NetworkX graph whose nodes are strings."""
    h = cls()
    h.add_nodes_from(f"v{i}" for i in range(graph.num_vertices))
    h.add_edges_from((f"v{u}", f"v{v}") for u, v in zip(graph.coo().src.tolist(),
                                                        graph.col_indices.tolist(), strict=True))
    return h


def kind(graph):
    return nx.DiGraph if graph.directed else nx.Graph


@given(graph=graphs(max_vertices=30, max_edges=80, self_loops=False, multi_edges=False))
def test_core_number_equals_networkx_on_directed_and_undirected_graphs(graph):
    h = labelled(graph, kind(graph))
    assert nx.core_number(h, backend="frontier") == nx.core_number(h)


def test_one_cached_conversion_serves_every_function():
    h = nx.relabel_nodes(nx.gnm_random_graph(40, 120, seed=3, directed=True), str)
    pagerank = nx.pagerank(h, backend="frontier")
    assert nx.core_number(h, backend="frontier") == nx.core_number(h)
    assert nx.betweenness_centrality(h, backend="frontier") == pytest.approx(
        nx.betweenness_centrality(h), rel=1e-9, abs=1e-12)
    assert nx.pagerank(h, backend="frontier") == pagerank


def test_calls_from_four_threads_on_one_graph_give_the_serial_results():
    import sys
    from concurrent.futures import ThreadPoolExecutor

    g = nx.relabel_nodes(nx.grid_2d_graph(12, 12), {(i, j): f"n{i}.{j}" for i in range(12)
                                                    for j in range(12)})
    calls = {
        "bfs_edges": lambda s: list(nx.bfs_edges(g, s, backend="frontier")),
        "pagerank": lambda s: nx.pagerank(g, backend="frontier"),
        "components": lambda s: sorted(map(sorted, nx.connected_components(
            g, backend="frontier"))),
        "core_number": lambda s: nx.core_number(g, backend="frontier"),
        "dijkstra": lambda s: nx.single_source_dijkstra_path_length(g, s, backend="frontier"),
    }
    sources = [f"n{k % 12}.{(5 * k) % 12}" for k in range(24)]
    serial = {(name, s): call(s) for name, call in calls.items() for s in sources}
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads interleave between almost every bytecode
    try:
        with ThreadPoolExecutor(4) as pool:
            got = list(pool.map(lambda key: (key, calls[key[0]](key[1])), list(serial) * 2))
    finally:
        sys.setswitchinterval(before)
    assert [key for key, result in got if result != serial[key]] == []


def test_core_number_refuses_self_loops_as_networkx_does():
    h = nx.Graph([("a", "b"), ("b", "b")])
    with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
        nx.core_number(h, backend="frontier")


@given(graph=graphs(min_vertices=1, max_vertices=24, max_edges=60), data=st.data())
def test_bfs_edges_equal_networkx_edges_in_order(graph, data):
    h = labelled(graph, kind(graph))
    source = f"v{data.draw(st.integers(0, graph.num_vertices - 1))}"
    reverse = data.draw(st.booleans())
    limit = data.draw(st.none() | st.integers(0, 4))
    expected = list(nx.bfs_edges(h, source, reverse=reverse, depth_limit=limit))
    got = list(nx.bfs_edges(h, source, reverse=reverse, depth_limit=limit, backend="frontier"))
    assert got == expected


def test_bfs_edges_from_a_missing_node_raises_networkx_error():
    with pytest.raises(nx.NetworkXError, match="not in the graph"):
        list(nx.bfs_edges(nx.path_graph(3), "nowhere", backend="frontier"))


def test_unsupported_options_are_refused_with_the_reason():
    assert "sort_neighbors" in registry.declined(
        "bfs_edges", (nx.Graph(), 0), {"sort_neighbors": sorted})
    assert "weight" in registry.declined(
        "betweenness_centrality", (nx.Graph(),), {"weight": "w"})
    assert registry.declined("pagerank", (nx.Graph(),), {}) is None



@given(graph=graphs(max_vertices=30, max_edges=60))
def test_connected_components_are_networkx_node_sets(graph):
    h = labelled(graph, nx.Graph)
    got = list(nx.connected_components(h, backend="frontier"))
    assert sorted(map(sorted, got)) == sorted(map(sorted, nx.connected_components(h)))


def test_connected_components_of_a_directed_graph_is_refused_as_networkx_does():
    with pytest.raises(nx.NetworkXNotImplemented, match="directed"):
        list(nx.connected_components(nx.DiGraph([("a", "b")]), backend="frontier"))


def test_filtered_views_convert_what_the_filter_shows():
    G = nx.MultiGraph([(0, 1), (1, 2), (1, 2), (2, 3), (3, 0)])
    view = nx.subgraph_view(G, filter_edge=lambda u, v, k: {u, v} != {3, 0} and k == 0)
    got = nx.single_source_dijkstra_path_length(view, 0, backend="frontier")
    assert got == nx.single_source_dijkstra_path_length(view, 0) == {0: 0, 1: 1, 2: 2, 3: 3}
    D = nx.DiGraph([(0, 1), (1, 2), (2, 0)])
    hidden = nx.restricted_view(D, [], [(2, 0)])
    assert (nx.single_source_shortest_path_length(hidden, 2, backend="frontier")
            == nx.single_source_shortest_path_length(hidden, 2) == {2: 0})


def _weighted_path(directed):
    G = nx.path_graph(6, create_using=nx.DiGraph if directed else nx.Graph)
    for u, v in G.edges:
        G[u][v]["weight"] = 1.0
    return G


#: Every kind of NetworkX view: a function of the base graph returning a view of it.
VIEWS = {
    "subgraph": lambda G: G.subgraph([0, 1, 2, 3]),
    "subgraph_view": lambda G: nx.subgraph_view(G, filter_node=lambda n: n < 4),
    "restricted_view": lambda G: nx.restricted_view(G, [4, 5], []),
    "edge_subgraph": lambda G: G.edge_subgraph(list(G.edges)),
    "reverse_view": lambda G: nx.reverse_view(G) if G.is_directed() else G.copy(as_view=True),
    "to_directed view": lambda G: G.to_directed(as_view=True),
    "view of a view": lambda G: nx.restricted_view(G.subgraph([0, 1, 2, 3, 4]), [4], []),
}


@pytest.mark.parametrize("directed", [False, True], ids=["undirected", "directed"])
@pytest.mark.parametrize("view", VIEWS)
def test_a_view_answers_for_what_it_shows_after_its_base_graph_changes(view, directed):
    G = _weighted_path(directed)
    H = VIEWS[view](G)
    source = 3 if view == "reverse_view" and directed else 0
    before = nx.single_source_dijkstra_path_length(H, source, backend="frontier")
    assert before == nx.single_source_dijkstra_path_length(H, source)
    G.add_edge(0, 3, weight=0.5)  # a new edge (which an edge subgraph does not show)
    G.add_edge(3, 0, weight=0.25)
    G.add_edge(1, 2, weight=0.125)  # a new weight
    G.add_edge(2, 1, weight=0.125)
    got = nx.single_source_dijkstra_path_length(H, source, backend="frontier")
    assert got == nx.single_source_dijkstra_path_length(H, source) != before
    G.remove_edge(0, 3)
    options = {"tol": 1e-10, "max_iter": 1000}
    assert (nx.pagerank(H, backend="frontier", **options)
            == pytest.approx(nx.pagerank(H, **options), rel=1e-8))


def test_a_graph_that_is_no_view_keeps_its_cached_conversion():
    G = _weighted_path(directed=False)
    nx.single_source_dijkstra_path_length(G, 0, backend="frontier")
    assert G.__networkx_cache__["backends"]["frontier"]
    H = G.subgraph([0, 1, 2])
    nx.single_source_dijkstra_path_length(H, 0, backend="frontier")
    assert H.__networkx_cache__ is None  # a view: converted anew by every call
    assert G.__networkx_cache__["backends"]["frontier"]
