"""The cores functions of the NetworkX backend against NetworkX itself, on the cpu target: the
same core numbers in the same order, and the same subgraphs (class, graph, node and edge
attributes, node and edge order) from ``k_core``, ``k_shell``, ``k_crust`` and ``k_corona``."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from networkx.algorithms.approximation.kcomponents import _AntiGraph

from frontier_nx import registry
from frontier_nx.interface import BackendInterface


@st.composite
def networkx_graphs(draw, classes=(nx.Graph, nx.DiGraph)):
    """Loop-free graphs of ``classes`` with int or string nodes added in any order, isolated
    nodes, opposite arcs, and graph, node and edge attributes (some edges without any)."""
    n = draw(st.integers(0, 12))
    name = draw(st.sampled_from([lambda i: i, lambda i: f"n{i}"]))
    nodes = draw(st.permutations([name(i) for i in range(n)]))
    ends = st.integers(0, max(n - 1, 0))
    pairs = draw(st.lists(st.tuples(ends, ends).filter(lambda e: e[0] != e[1]),
                          max_size=30 if n > 1 else 0))
    values = st.one_of(st.integers(-3, 3), st.floats(0, 2), st.just(0))
    h = draw(st.sampled_from(classes))(title="drawn")
    h.add_nodes_from((node, {"colour": i % 3}) for i, node in enumerate(nodes))
    for u, v in pairs:
        data = draw(st.dictionaries(st.just("weight"), values, max_size=1))
        h.add_edge(name(u), name(v), **data)
    return h


def same_graph(got, expected):
    assert type(got) is type(expected)
    assert got.graph == expected.graph
    assert list(got.nodes(data=True)) == list(expected.nodes(data=True))
    assert list(got.edges(data=True)) == list(expected.edges(data=True))


@given(h=networkx_graphs())
def test_core_numbers_equal_networkx_in_node_order(h):
    assert list(nx.core_number(h, backend="frontier").items()) == \
        list(nx.core_number(h).items())


@pytest.mark.parametrize("name", ["k_core", "k_shell", "k_crust"])
@given(h=networkx_graphs().filter(len), k=st.none() | st.integers(0, 5))
def test_core_subgraphs_are_networkx_subgraphs_with_attributes(name, h, k):
    function = getattr(nx, name)
    same_graph(function(h, k, backend="frontier"), function(h, k))


@given(h=networkx_graphs(), k=st.integers(0, 5))
def test_k_corona_is_networkx_subgraph_with_attributes(h, k):
    same_graph(nx.k_corona(h, k, backend="frontier"), nx.k_corona(h, k))


def test_core_subgraphs_are_copies_not_views():
    h = nx.complete_graph(["a", "b", "c", "d"])
    got = nx.k_core(h, 3, backend="frontier")
    got.add_edge("a", "z")
    assert "z" not in h


@pytest.mark.parametrize("function", [nx.core_number, nx.k_core, nx.k_shell, nx.k_crust])
def test_self_loops_raise_as_networkx_does(function):
    h = nx.Graph([("a", "b"), ("b", "b")])
    with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
        function(h, backend="frontier")


@pytest.mark.parametrize("function", [nx.core_number, nx.k_core, nx.k_shell, nx.k_crust])
def test_multigraphs_are_refused_as_networkx_does(function):
    with pytest.raises(nx.NetworkXNotImplemented, match="multigraph"):
        function(nx.MultiGraph([("a", "b"), ("a", "b")]), backend="frontier")


@pytest.mark.parametrize("name", ["k_core", "k_shell", "k_crust", "k_corona"])
def test_given_core_numbers_are_declined(name):
    h = nx.path_graph(4)
    reason = registry.declined(name, (h, 1), {"core_number": nx.core_number(h)})
    assert "core_number is given" in reason
    assert registry.declined(name, (h, 1), {}) is None


def test_antigraph_cores_are_declined_as_its_neighbours_are_the_complement():
    h = _AntiGraph()
    h.add_nodes_from(range(5))
    h.add_edges_from([(0, 1), (1, 2)])
    assert "overrides" in registry.declined("core_number", (h,), {})
    assert "overrides" in registry.declined("k_core", (h, 2), {})


def test_approximate_k_components_with_the_backend_first_equals_networkx(monkeypatch):
    h = nx.relabel_nodes(nx.karate_club_graph(), str)
    expected = nx.approximation.k_components(h)
    monkeypatch.setattr(nx.config.backend_priority, "algos", ["frontier"])
    monkeypatch.setattr(BackendInterface, "should_run", staticmethod(lambda *_: True))
    assert nx.approximation.k_components(h) == expected


@given(h=networkx_graphs(classes=(nx.Graph,)), k=st.integers(0, 6))
def test_k_truss_is_networkx_truss_with_attributes(h, k):
    same_graph(nx.k_truss(h, k, backend="frontier"), nx.k_truss(h, k))


def test_k_truss_of_a_graph_with_hubs_equals_networkx():
    h = nx.relabel_nodes(nx.powerlaw_cluster_graph(300, 6, 0.6, seed=2), str)
    for k in (3, 4, 5, 7):
        same_graph(nx.k_truss(h, k, backend="frontier"), nx.k_truss(h, k))


def test_k_truss_is_a_copy_not_a_view():
    h = nx.complete_graph(4)
    got = nx.k_truss(h, 4, backend="frontier")
    got.add_edge(0, 9)
    assert 9 not in h


def test_k_truss_raises_on_self_loops_as_networkx_does():
    with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
        nx.k_truss(nx.Graph([("a", "b"), ("b", "b")]), 3, backend="frontier")


def test_k_truss_declines_a_k_that_is_not_an_integer():
    h = nx.complete_graph(4)
    assert "not an integer" in registry.declined("k_truss", (h, 3.5), {})
    assert "not an integer" in registry.declined("k_truss", (h, True), {})
    assert registry.declined("k_truss", (h, 3), {}) is None
