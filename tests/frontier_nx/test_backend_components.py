"""The components functions of the NetworkX backend against NetworkX itself, on the cpu
target: the same sets in the same order (each component at its first node in ``G``'s order;
strongly connected components in a reverse topological order, as NetworkX's), the same counts,
the same errors."""

from __future__ import annotations

import inspect

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from networkx.algorithms.approximation.kcomponents import _AntiGraph

from frontier_nx import registry


@st.composite
def networkx_graphs(draw, classes):
    """Graphs of ``classes`` with int or string nodes added in any order, isolated nodes,
    self-loops and repeated edges."""
    n = draw(st.integers(0, 12))
    name = draw(st.sampled_from([lambda i: i, lambda i: f"n{i}"]))
    nodes = draw(st.permutations([name(i) for i in range(n)]))
    ends = st.integers(0, max(n - 1, 0))
    h = draw(st.sampled_from(classes))()
    h.add_nodes_from(nodes)
    h.add_edges_from((name(u), name(v)) for u, v in draw(
        st.lists(st.tuples(ends, ends), max_size=24 if n else 0)))
    return h


@given(h=networkx_graphs([nx.Graph, nx.MultiGraph]))
def test_connected_components_are_networkx_sets_in_networkx_order(h):
    got = nx.connected_components(h, backend="frontier")
    assert inspect.isgenerator(got)
    assert list(got) == list(nx.connected_components(h))
    assert nx.number_connected_components(h, backend="frontier") == \
        nx.number_connected_components(h)
    if len(h):
        assert nx.is_connected(h, backend="frontier") is nx.is_connected(h)
        for node in h:
            assert nx.node_connected_component(h, node, backend="frontier") == \
                nx.node_connected_component(h, node)


def assert_sinks_first(h, components: list[set]) -> None:
    """Each SCC comes after every SCC its arcs lead to, as NetworkX's search yields them."""
    at = {v: i for i, members in enumerate(components) for v in members}
    assert all(at[v] <= at[u] for u, v in h.edges())


@given(h=networkx_graphs([nx.DiGraph, nx.MultiDiGraph]))
def test_strongly_connected_components_are_networkx_sets_sinks_first(h):
    got = nx.strongly_connected_components(h, backend="frontier")
    assert inspect.isgenerator(got)
    got = list(got)
    expected = list(nx.strongly_connected_components(h))
    assert sorted(map(sorted, map(list, got)), key=str) == \
        sorted(map(sorted, map(list, expected)), key=str)
    assert_sinks_first(h, got)
    assert nx.number_strongly_connected_components(h, backend="frontier") == len(expected)
    if len(h):
        assert nx.is_strongly_connected(h, backend="frontier") is nx.is_strongly_connected(h)


def searches(h, components: list[set]) -> list[tuple[int, list[frozenset]]]:
    """The SCCs grouped by NetworkX's depth-first search that yields them: the search of the
    first node (in ``h``'s order) that reaches the SCC."""
    at = {v: i for i, v in enumerate(h)}
    grouped: list[tuple[int, list[frozenset]]] = []
    for members in components:
        root = min(at[u] for u in nx.ancestors(h, next(iter(members))) | members)
        if not grouped or grouped[-1][0] != root:
            grouped.append((root, []))
        grouped[-1][1].append(frozenset(members))
    return grouped


@given(h=networkx_graphs([nx.DiGraph, nx.MultiDiGraph]))
def test_strongly_connected_components_come_search_by_search_as_networkx_yields_them(h):
    got = searches(h, list(nx.strongly_connected_components(h, backend="frontier")))
    expected = searches(h, list(nx.strongly_connected_components(h)))
    assert [root for root, _ in got] == [root for root, _ in expected]
    for (_, ours), (_, theirs) in zip(got, expected, strict=True):
        assert set(ours) == set(theirs) and ours[-1] == theirs[-1]


def test_write_network_text_prints_as_networkx_does():
    h = nx.DiGraph([(5, 1), (1, 2), (2, 1), (3, 4), (0, 3), (6, 6)])
    h.add_node(7)
    ours, theirs = [], []
    with nx.config.backends.frontier(min_edges=0), nx.config(backend_priority=["frontier"]):
        nx.write_network_text(h, path=ours.append)
    nx.write_network_text(h, path=theirs.append)
    assert ours == theirs


def test_strongly_connected_components_in_a_long_chain_come_sinks_first():
    h = nx.DiGraph([(i, i + 1) for i in range(500)] + [(10, 9), (400, 300)])
    got = list(nx.strongly_connected_components(h, backend="frontier"))
    assert got == list(nx.strongly_connected_components(h))
    assert_sinks_first(h, got)


def test_strongly_connected_components_of_a_long_cycle_with_a_tail():
    h = nx.cycle_graph(300, create_using=nx.DiGraph)
    h.add_edges_from([(299, "tail"), ("tail", "end")])
    got = list(nx.strongly_connected_components(h, backend="frontier"))
    assert got == [{"end"}, {"tail"}, set(range(300))]
    assert not nx.is_strongly_connected(h, backend="frontier")
    assert nx.is_strongly_connected(nx.cycle_graph(300, create_using=nx.DiGraph),
                                    backend="frontier")


@pytest.mark.parametrize("function, graph", [(nx.is_connected, nx.Graph),
                                             (nx.is_weakly_connected, nx.DiGraph),
                                             (nx.is_strongly_connected, nx.DiGraph)])
def test_connectivity_of_the_null_graph_raises_pointless_concept(function, graph):
    with pytest.raises(nx.NetworkXPointlessConcept, match="null graph"):
        function(graph(), backend="frontier")


@pytest.mark.parametrize("function, graph", [
    (nx.connected_components, nx.DiGraph), (nx.number_connected_components, nx.DiGraph),
    (nx.is_connected, nx.DiGraph), (nx.weakly_connected_components, nx.Graph),
    (nx.number_weakly_connected_components, nx.Graph), (nx.is_weakly_connected, nx.Graph),
    (nx.strongly_connected_components, nx.Graph),
    (nx.number_strongly_connected_components, nx.Graph),
    (nx.is_strongly_connected, nx.Graph)])
def test_the_wrong_kind_of_graph_is_refused_as_networkx_does(function, graph):
    with pytest.raises(nx.NetworkXNotImplemented):
        result = function(graph([("a", "b")]), backend="frontier")
        list(result) if inspect.isgenerator(result) else result


def test_node_connected_component_of_a_missing_node_is_declined_to_networkx_error():
    h = nx.path_graph(["a", "b", "c"])
    assert "not in the graph" in registry.declined("node_connected_component",
                                                          (h, "z"), {})
    with pytest.raises(KeyError):
        nx.node_connected_component(h, "z")


def test_components_of_an_antigraph_read_the_adjacency_networkx_reads():
    h = _AntiGraph()
    h.add_nodes_from(range(6))
    h.add_edges_from([(0, 1), (2, 3), (3, 4)])
    assert list(nx.connected_components(h, backend="frontier")) == \
        list(nx.connected_components(h))
