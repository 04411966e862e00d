"""The traversal family of the NetworkX backend: breadth-first searches and unweighted shortest
paths equal NetworkX's own results, in NetworkX's order, on small graphs of every kind (directed
or not, parallel edges, self-loops, isolated nodes, string labels, nodes and edges inserted in
any order so that successor and predecessor orders differ; nodes that are the ints 0 .. n-1 in
order, each its own vertex id), however far each search goes on NetworkX's adjacency before it
hands over to the converted arrays (never, at once, or at the first level of so many arcs)."""

from __future__ import annotations

from contextlib import contextmanager
from unittest import mock

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier_nx import costs, registry
from tests.tiers import examples

KINDS = {(False, False): nx.Graph, (True, False): nx.DiGraph, (False, True): nx.MultiGraph,
         (True, True): nx.MultiDiGraph}


@st.composite
def graphs(draw: st.DrawFn, directed: bool | None = None) -> nx.Graph:
    directed = draw(st.booleans()) if directed is None else directed
    n = draw(st.integers(1, 12))
    names = draw(st.sampled_from([[f"n{i}" for i in range(n)], list(range(n))]))
    h = KINDS[directed, draw(st.booleans())]()
    in_order = isinstance(names[0], int) and draw(st.booleans())  # the nodes their own ids
    h.add_nodes_from(names if in_order else draw(st.permutations(names)))
    node = st.sampled_from(names)
    h.add_edges_from(draw(st.lists(st.tuples(node, node), max_size=30)))
    return h


#: how many arcs a level scans at least where a search hands over to the arrays (None: never)
HAND_OVER = st.sampled_from([None, 0, 1, 3, 8])


@contextmanager
def handing_over(threshold: int | None):
    """The ordered searches hand over from NetworkX's adjacency to the arrays before the first
    level that scans at least ``threshold`` arcs (None: never; 0: before the first level)."""
    def rule(level_arcs, arcs, searched=0):
        return threshold is not None and level_arcs >= threshold

    with mock.patch.object(costs, "hand_over", rule):
        yield


def a_node(data: st.DataObject, h: nx.Graph):
    return data.draw(st.sampled_from(sorted(h)))


def outcome(call, *args, **kwargs):
    """What a call gives: its result (generators listed), or the class of its exception."""
    try:
        result = call(*args, **kwargs)
        return list(result) if hasattr(result, "__next__") else result
    except nx.NetworkXException as error:
        return type(error)


def same(call, *args, **kwargs):
    """NetworkX's result and the backend's, compared with their order; the backend's on a
    conversion no call has read yet."""
    expected = outcome(call, *args, **kwargs)
    args[0].__networkx_cache__.clear()
    got = outcome(call, *args, backend="frontier", **kwargs)
    if isinstance(expected, dict):
        assert list(got.items()) == list(expected.items())
    else:
        assert got == expected


@settings(max_examples=examples(60))
@given(h=graphs(), data=st.data())
def test_breadth_first_trees_equal_networkx_in_order(h, data):
    source = a_node(data, h)
    limit = data.draw(st.none() | st.integers(-1, 4))
    reverse = data.draw(st.booleans())
    with handing_over(data.draw(HAND_OVER)):
        same(nx.bfs_edges, h, source, reverse=reverse, depth_limit=limit)
        same(nx.bfs_predecessors, h, source, depth_limit=limit)
        same(nx.bfs_successors, h, source, depth_limit=limit)
        same(nx.generic_bfs_edges, h, source, depth_limit=limit)
        tree = nx.bfs_tree(h, source, reverse=reverse, depth_limit=limit, backend="frontier")
    expected = nx.bfs_tree(h, source, reverse=reverse, depth_limit=limit)
    assert list(tree.edges) == list(expected.edges) and list(tree) == list(expected)


@settings(max_examples=examples(60))
@given(h=graphs(), data=st.data())
def test_layers_from_several_sources_equal_networkx_in_order(h, data):
    sources = data.draw(st.lists(st.sampled_from(sorted(h)), max_size=4))
    with handing_over(data.draw(HAND_OVER)):
        same(nx.bfs_layers, h, sources)
        same(nx.bfs_layers, h, sources[0] if sources else a_node(data, h))
        same(nx.descendants_at_distance, h, a_node(data, h), data.draw(st.integers(-1, 5)))


@settings(max_examples=examples(60))
@given(h=graphs(), data=st.data())
def test_single_source_lengths_and_paths_equal_networkx_in_order(h, data):
    source = a_node(data, h)
    cutoff = data.draw(st.none() | st.integers(-1, 4) | st.sampled_from([1.5, 0.0]))
    with handing_over(data.draw(HAND_OVER)):
        same(nx.single_source_shortest_path_length, h, source, cutoff=cutoff)
        same(nx.single_source_shortest_path, h, source, cutoff=cutoff)
        same(nx.single_target_shortest_path_length, h, source, cutoff=cutoff)
        same(nx.single_target_shortest_path, h, source, cutoff=cutoff)
    same(nx.descendants, h, source)
    same(nx.ancestors, h, source)


@settings(max_examples=examples(60))
@given(h=graphs(), data=st.data())
def test_shortest_path_of_a_pair_is_networkx_bidirectional_path(h, data):
    source, target = a_node(data, h), a_node(data, h)
    same(nx.shortest_path, h, source, target)
    same(nx.shortest_path_length, h, source, target)
    same(nx.has_path, h, source, target)


@settings(max_examples=examples(40))
@given(h=graphs(), data=st.data())
def test_shortest_paths_with_one_or_no_end_equal_networkx_in_order(h, data):
    node = a_node(data, h)
    with handing_over(data.draw(HAND_OVER)):
        same(nx.shortest_path, h, source=node)
        same(nx.shortest_path, h, target=node)
        same(nx.shortest_path_length, h, source=node)
        same(nx.shortest_path_length, h, target=node)
        same(nx.shortest_path, h)
        same(nx.shortest_path_length, h)
        same(nx.all_pairs_shortest_path_length, h, cutoff=2)
        same(nx.all_pairs_shortest_path, h, cutoff=1)


@settings(max_examples=examples(40))
@given(h=graphs(), data=st.data())
def test_eccentricity_equals_networkx_or_raises_its_error(h, data):
    same(nx.eccentricity, h)
    same(nx.eccentricity, h, v=a_node(data, h))
    same(nx.eccentricity, h, v=[a_node(data, h), "absent"])


def test_eccentricity_of_a_disconnected_graph_raises_networkx_error():
    with pytest.raises(nx.NetworkXError, match="not connected"):
        nx.eccentricity(nx.Graph([("a", "b"), ("c", "d")]), backend="frontier")
    with pytest.raises(nx.NetworkXError, match="not strongly connected"):
        nx.eccentricity(nx.DiGraph([("a", "b")]), backend="frontier")


def test_missing_nodes_raise_networkx_errors():
    h = nx.DiGraph([("a", "b")])
    with pytest.raises(nx.NetworkXError, match="not in the digraph"):
        list(nx.bfs_edges(h, "z", reverse=True, backend="frontier"))
    with pytest.raises(nx.NodeNotFound, match="Source z is not in G"):
        nx.single_source_shortest_path_length(h, "z", backend="frontier")
    with pytest.raises(nx.NodeNotFound, match="Target z is not in G"):
        nx.shortest_path(h, "a", "z", backend="frontier")
    with pytest.raises(nx.NetworkXNoPath, match="No path between b and a"):
        nx.shortest_path_length(h, "b", "a", backend="frontier")
    with pytest.raises(nx.NetworkXError, match="not in the graph"):
        nx.descendants_at_distance(h, "z", 1, backend="frontier")
    with pytest.raises(nx.NetworkXError, match="The node z is not in the graph"):
        list(nx.bfs_layers(h, ["a", "z"], backend="frontier"))


@pytest.mark.parametrize(("name", "args", "kwargs", "reason"), [
    ("bfs_tree", (0,), {"sort_neighbors": sorted}, "sort_neighbors"),
    ("shortest_path", (), {"weight": "weight"}, "weight"),
    ("shortest_path_length", (0, 1), {"method": "unknown"}, "method"),
    ("eccentricity", (), {"sp": {}}, "sp"),
    ("eccentricity", (), {"weight": "w"}, "weight"),
    ("single_source_shortest_path", (0,), {"cutoff": "2"}, "cutoff"),
])
def test_arguments_without_an_exact_equivalent_are_declined(name, args, kwargs, reason):
    assert reason in registry.declined(name, (nx.path_graph(2), *args), kwargs)
