"""Tests of frontier.testing: the strategies draw the awkward graphs they promise, the references
agree with each other and with networkx, and the checks reject wrong output with a useful message.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import frontier.testing as ft
from frontier.graph import Graph
from frontier.testing import (
    assert_same_set,
    check_bfs,
    check_components,
    check_spanning_forest,
    check_sssp,
    graphs,
    graphs_with_source,
    reference_bfs,
    reference_components,
    reference_sssp,
    vertex_subsets,
)

SMALL = {"max_vertices": 16, "max_edges": 48}
quick = settings(max_examples=60, deadline=None, database=None)


def _find(strategy: st.SearchStrategy[Any], condition: Callable[[Any], bool]) -> Any:
    """An example of ``strategy`` meeting ``condition``, found without shrinking."""
    return find(strategy, condition, settings=settings(
        max_examples=2000, phases=[Phase.generate], database=None, derandomize=True))


def _arcs(graph: Graph) -> list[tuple[int, int]]:
    coo = graph.coo()
    return list(zip(coo.src.tolist(), coo.dst.tolist(), strict=True))


def _neighbours(graph: Graph) -> list[set[int]]:
    """Distinct other vertices each vertex has an arc to or from."""
    near: list[set[int]] = [set() for _ in range(graph.num_vertices)]
    for u, v in _arcs(graph):
        if u != v:
            near[u].add(v)
            near[v].add(u)
    return near


def _to_networkx(graph: Graph) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    g.add_nodes_from(range(graph.num_vertices))
    weights = graph.weights.tolist() if graph.weighted else [1] * graph.num_edges
    g.add_weighted_edges_from((u, v, w) for (u, v), w in zip(_arcs(graph), weights, strict=True))
    return g


def _bfs_predecessors(graph: Graph, distances: np.ndarray) -> np.ndarray:
    """For each reached vertex the smallest in-neighbour one level up."""
    pred = np.full(graph.num_vertices, -1, dtype=np.int32)
    for u, v in sorted(_arcs(graph)):
        if distances[u] >= 0 and distances[v] == distances[u] + 1 and pred[v] < 0:
            pred[v] = u
    return pred


def _spanning_forest(graph: Graph) -> np.ndarray:
    """Edge ids chosen by union-find, in edge id order."""
    root = list(range(graph.num_vertices))

    def find_root(x: int) -> int:
        while root[x] != x:
            x = root[x]
        return x

    chosen = []
    for e, (u, v) in enumerate(_arcs(graph)):
        ru, rv = find_root(u), find_root(v)
        if ru != rv:
            root[ru] = rv
            chosen.append(e)
    return np.asarray(chosen, dtype=np.int64)


def _path(n: int, weights: list[int] | None = None) -> Graph:
    return Graph.from_edges(range(n - 1), range(1, n), weights=weights, num_vertices=n)


# strategies: what they can draw ------------------------------------------------------------
def test_graphs_draw_the_empty_graph() -> None:
    assert _find(graphs(), lambda g: g.num_vertices == 0).num_edges == 0


def test_graphs_draw_one_vertex_graphs() -> None:
    _find(graphs(), lambda g: g.num_vertices == 1)


def test_graphs_draw_isolated_vertices_beside_edges() -> None:
    _find(graphs(), lambda g: g.num_vertices >= 3 and g.num_edges > 0
          and any(not near for near in _neighbours(g)))


def test_graphs_draw_self_loops() -> None:
    _find(graphs(), lambda g: any(u == v for u, v in _arcs(g)))


def test_graphs_draw_repeated_edges() -> None:
    _find(graphs(), lambda g: max(Counter(_arcs(g)).values(), default=0) > 1)


def test_graphs_draw_hubs_in_sparse_graphs() -> None:
    def has_hub(g: Graph) -> bool:
        n = g.num_vertices
        return n >= 16 and g.num_edges <= 3 * n and any(
            len(set(g.col_indices[g.row_offsets[u]:g.row_offsets[u + 1]].tolist()) - {u})
            >= n // 2 for u in range(n))

    _find(graphs(directed=True), has_hub)


def test_graphs_draw_several_components_of_several_vertices() -> None:
    def components(g: Graph) -> int:
        return sum(np.bincount(reference_components(g)) >= 3) if g.num_vertices else 0

    _find(graphs(), lambda g: components(g) >= 3)


def test_graphs_draw_long_chains() -> None:
    _find(graphs(), lambda g: any(reference_bfs(g, s).max() >= 15 for s in range(g.num_vertices)))


@pytest.mark.parametrize("directed", [True, False])
def test_graphs_draw_both_kinds_when_directed_is_none(directed: bool) -> None:
    _find(graphs(), lambda g: g.directed == directed)


@pytest.mark.parametrize("kind", ["hub", "isolated"])
def test_graphs_with_source_start_from_hubs_and_isolated_vertices(kind: str) -> None:
    def fits(case: tuple[Graph, int]) -> bool:
        graph, source = case
        if graph.num_vertices < 8:
            return False
        if kind == "hub":
            return graph.out_degrees()[source] >= graph.num_vertices // 2
        return not _neighbours(graph)[source] and graph.num_edges > 0

    _find(graphs_with_source(), fits)


# strategies: what they promise ------------------------------------------------------------
@quick
@given(graphs(min_vertices=3, max_vertices=12, max_edges=20, weighted=True))
def test_graphs_stay_within_their_bounds(graph: Graph) -> None:
    assert 3 <= graph.num_vertices <= 12
    loops = sum(u == v for u, v in _arcs(graph))
    edges = graph.num_edges if graph.directed else (graph.num_edges + loops) // 2
    assert edges <= 20
    assert graph.row_offsets.dtype == np.int64 and graph.col_indices.dtype == np.int32


@quick
@given(graphs(weighted=True, weight_range=(0, 5), directed=False))
def test_undirected_weighted_graphs_give_both_arcs_of_an_edge_one_weight(graph: Graph) -> None:
    assert graph.weighted and np.issubdtype(graph.weights.dtype, np.integer)
    assert graph.weights.min(initial=0) >= 0 and graph.weights.max(initial=5) <= 5
    by_arc: dict[tuple[int, int], list[int]] = {}
    for arc, w in zip(_arcs(graph), graph.weights.tolist(), strict=True):
        by_arc.setdefault(arc, []).append(w)
    for (u, v), ws in by_arc.items():
        assert sorted(ws) == sorted(by_arc[(v, u)])


@quick
@given(graphs(min_vertices=2, max_vertices=12, max_edges=10, self_loops=False,
              multi_edges=False, isolated=False))
def test_graphs_can_be_simple_and_without_isolated_vertices(graph: Graph) -> None:
    arcs = _arcs(graph)
    assert all(u != v for u, v in arcs)
    assert len(set(arcs)) == len(arcs)
    assert all(_neighbours(graph))
    assert (graph.num_edges if graph.directed else graph.num_edges // 2) <= 10


@quick
@given(graphs(hubs=False, weighted=True, directed=True, weight_range=(-3, -1)))
def test_graphs_honour_the_weight_range_and_directedness(graph: Graph) -> None:
    assert graph.directed
    assert np.all((graph.weights >= -3) & (graph.weights <= -1))


def test_graphs_reject_impossible_arguments() -> None:
    for kwargs in ({"min_vertices": 5, "max_vertices": 4}, {"max_edges": -1},
                   {"weight_range": (3, 1)}, {"min_vertices": 1, "max_vertices": 1,
                                              "isolated": False},
                   {"min_vertices": 10, "max_edges": 4, "isolated": False}):
        with pytest.raises(InvalidArgument):
            graphs(**kwargs)


@quick
@given(st.data())
def test_vertex_subsets_are_int32_vertex_ids(data: st.DataObject) -> None:
    graph = data.draw(graphs(**SMALL))
    unique = data.draw(vertex_subsets(graph))
    assert unique.dtype == np.int32 and unique.ndim == 1
    assert len(set(unique.tolist())) == unique.size
    assert np.all((unique >= 0) & (unique < graph.num_vertices))
    repeated = data.draw(vertex_subsets(graph, unique=False))
    assert repeated.dtype == np.int32 and repeated.size <= 2 * graph.num_vertices


def test_vertex_subsets_draw_repeats_when_asked_and_empty_subsets() -> None:
    graph = _path(5)
    _find(vertex_subsets(graph, unique=False), lambda ids: np.unique(ids).size < ids.size)
    _find(vertex_subsets(graph), lambda ids: ids.size == 0)
    empty = _find(vertex_subsets(Graph.from_edges([], [], num_vertices=0)), lambda ids: True)
    assert empty.dtype == np.int32 and empty.size == 0


# references ------------------------------------------------------------------------------
@settings(max_examples=150, deadline=None, database=None)
@given(graphs_with_source())
def test_the_bfs_reference_agrees_with_networkx(case: tuple[Graph, int]) -> None:
    graph, source = case
    expected = np.full(graph.num_vertices, -1, dtype=np.int32)
    for v, d in nx.single_source_shortest_path_length(_to_networkx(graph), source).items():
        expected[v] = d
    ref = reference_bfs(graph, source)
    assert ref.dtype == np.int32
    np.testing.assert_array_equal(ref, expected)
    check_bfs(graph, source, expected, _bfs_predecessors(graph, expected))


def test_bfs_references_handle_one_vertex_and_reject_bad_sources() -> None:
    one = Graph.from_edges([0], [0], num_vertices=1)
    assert reference_bfs(one, 0).tolist() == [0]
    for graph, source in ((one, 1), (one, -1), (Graph.from_edges([], [], num_vertices=0), 0)):
        for fn in (reference_bfs, reference_sssp):
            with pytest.raises(ValueError, match="out of range"):
                fn(graph, source)


def test_bfs_follows_stored_arcs_only() -> None:
    directed = Graph.from_edges([1], [0], num_vertices=2)
    undirected = Graph.from_edges([1], [0], num_vertices=2, directed=False)
    assert reference_bfs(directed, 0).tolist() == [0, -1]
    assert reference_bfs(undirected, 0).tolist() == [0, 1]


@quick
@given(graphs_with_source(weighted=True, weight_range=(0, 9)))
def test_reference_sssp_matches_networkx_dijkstra_on_multigraphs(case: tuple[Graph, int]) -> None:
    graph, source = case
    lengths, paths = nx.single_source_dijkstra(_to_networkx(graph), source)
    expected = np.full(graph.num_vertices, np.inf)
    pred = np.full(graph.num_vertices, -1, dtype=np.int32)
    for v, d in lengths.items():
        expected[v] = d
        pred[v] = paths[v][-2] if v != source else -1
    np.testing.assert_array_equal(reference_sssp(graph, source), expected)
    check_sssp(graph, source, expected, pred)


def test_reference_sssp_takes_the_lightest_repeat_and_counts_zero_weights() -> None:
    graph = Graph.from_edges([0, 0, 1, 2], [1, 1, 2, 2], weights=[5, 2, 0, 1], num_vertices=4)
    assert reference_sssp(graph, 0).tolist() == [0, 2, 2, np.inf]


def test_reference_sssp_counts_hops_on_unweighted_graphs() -> None:
    assert reference_sssp(_path(4), 1).tolist() == [np.inf, 0, 1, 2]


def test_reference_sssp_rejects_negative_weights() -> None:
    with pytest.raises(ValueError, match="negative"):
        reference_sssp(_path(3, weights=[1, -1]), 0)


@quick
@given(graphs())
def test_reference_components_match_networkx_weak_components(graph: Graph) -> None:
    labels = reference_components(graph)
    assert labels.dtype == np.int32 and labels.shape == (graph.num_vertices,)
    expected = {frozenset(c) for c in nx.weakly_connected_components(_to_networkx(graph))}
    got: dict[int, set[int]] = {}
    for v, label in enumerate(labels.tolist()):
        got.setdefault(label, set()).add(v)
    assert {frozenset(c) for c in got.values()} == expected


# checks: BFS -------------------------------------------------------------------------------
def _diamond() -> Graph:
    """0 -> 1 -> 2, 0 -> 2, 0 -> 3; vertex 4 unreachable. Distances 0, 1, 1, 1, -1."""
    return Graph.from_edges([0, 1, 0, 0], [1, 2, 2, 3], num_vertices=5)


def _i32(*values: int) -> np.ndarray:
    return np.asarray(values, dtype=np.int32)


def test_check_bfs_accepts_a_right_answer() -> None:
    check_bfs(_diamond(), 0, _i32(0, 1, 1, 1, -1), _i32(-1, 0, 0, 0, -1))


def test_check_bfs_rejects_a_wrong_distance_naming_the_vertex() -> None:
    with pytest.raises(AssertionError, match="vertex 2: expected 1, got 2"):
        check_bfs(_diamond(), 0, _i32(0, 1, 2, 1, -1))


def test_check_bfs_rejects_a_reached_unreachable_vertex() -> None:
    with pytest.raises(AssertionError, match="vertex 4: expected -1, got 2"):
        check_bfs(_diamond(), 0, _i32(0, 1, 1, 1, 2))


@quick
@given(st.data())
def test_check_bfs_rejects_any_single_changed_distance(data: st.DataObject) -> None:
    graph, source = data.draw(graphs_with_source(**SMALL))
    distances = reference_bfs(graph, source)
    v = data.draw(st.integers(0, graph.num_vertices - 1))
    distances[v] = data.draw(st.integers(-1, graph.num_vertices).filter(
        lambda d: d != distances[v]))
    with pytest.raises(AssertionError, match=f"vertex {v}: "):
        check_bfs(graph, source, distances)


def test_check_bfs_rejects_a_predecessor_that_is_not_an_in_neighbour() -> None:
    with pytest.raises(AssertionError, match="no arc 3 -> 2"):
        check_bfs(_diamond(), 0, _i32(0, 1, 1, 1, -1), _i32(-1, 0, 3, 0, -1))


def test_check_bfs_rejects_a_predecessor_at_the_wrong_level() -> None:
    with pytest.raises(AssertionError, match="vertex 2 at distance 1 has predecessor 1 at "
                                             "distance 1; expected distance 0"):
        check_bfs(_diamond(), 0, _i32(0, 1, 1, 1, -1), _i32(-1, 0, 1, 0, -1))


@pytest.mark.parametrize(("predecessors", "message"), [
    (_i32(0, 0, 0, 0, -1), r"predecessors\[0\] \(the source\) is 0"),
    (_i32(-1, 0, 0, 0, 3), "unreachable vertices have predecessors: vertex 4"),
    (_i32(-1, 0, -1, 0, -1), "vertex 2: got -1"),
    (_i32(-1, 0, 7, 0, -1), "vertex 2: got 7"),
    (np.asarray([-1, 0, 0, 0, -1]), "predecessors has dtype int64; expected int32"),
])
def test_check_bfs_rejects_malformed_predecessors(predecessors: np.ndarray, message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        check_bfs(_diamond(), 0, _i32(0, 1, 1, 1, -1), predecessors)


@pytest.mark.parametrize(("distances", "message"), [
    (np.asarray([0, 1, 1, 1, -1]), "distances has dtype int64; expected int32"),
    (_i32(0, 1, 1, 1), r"distances has shape \(4,\); expected \(5,\)"),
])
def test_check_bfs_rejects_distances_of_the_wrong_type(distances: np.ndarray,
                                                       message: str) -> None:
    with pytest.raises(AssertionError, match=message):
        check_bfs(_diamond(), 0, distances)


# checks: SSSP -------------------------------------------------------------------------------
def _zero_cycle() -> Graph:
    """0 -> 1 (weight 1), then 1 <-> 2 with weight 0 both ways."""
    return Graph.from_edges([0, 1, 2], [1, 2, 1], weights=[1, 0, 0], num_vertices=3)


def test_check_sssp_accepts_a_right_answer() -> None:
    check_sssp(_zero_cycle(), 0, np.array([0.0, 1.0, 1.0]), _i32(-1, 0, 1))


def test_check_sssp_rejects_a_zero_weight_predecessor_cycle() -> None:
    with pytest.raises(AssertionError, match="from vertex 1 never reaches 0"):
        check_sssp(_zero_cycle(), 0, np.array([0.0, 1.0, 1.0]), _i32(-1, 2, 1))


def test_check_sssp_rejects_a_vertex_that_is_its_own_predecessor() -> None:
    graph = Graph.from_edges([0, 1], [1, 1], weights=[1, 0], num_vertices=2)
    with pytest.raises(AssertionError, match="vertices are their own predecessors: vertex 1"):
        check_sssp(graph, 0, np.array([0.0, 1.0]), _i32(-1, 1))


def test_check_sssp_rejects_a_predecessor_off_the_shortest_path() -> None:
    graph = Graph.from_edges([0, 1, 0], [1, 2, 2], weights=[2, 3, 9], num_vertices=3)
    with pytest.raises(AssertionError, match="vertex 2 at distance 5.0 has predecessor 0"):
        check_sssp(graph, 0, np.array([0.0, 2.0, 5.0]), _i32(-1, 0, 0))


def test_check_sssp_compares_exactly_unless_given_a_tolerance() -> None:
    graph = _path(3, weights=[2, 3])
    close = np.array([0.0, 2.0, 5.0 * (1 + 1e-9)])
    with pytest.raises(AssertionError, match="vertex 2: expected 5.0"):
        check_sssp(graph, 0, close)
    check_sssp(graph, 0, close, rtol=1e-6)


def test_check_sssp_wants_infinity_for_unreachable_vertices() -> None:
    graph = _path(3, weights=[2, 3])
    with pytest.raises(AssertionError, match="vertex 0: expected inf, got -1.0"):
        check_sssp(graph, 1, np.array([-1.0, 0.0, 3.0]))
    with pytest.raises(AssertionError, match="expected floating"):
        check_sssp(graph, 1, np.array([-1, 0, 3]))


# checks: components and spanning forests --------------------------------------------------
@quick
@given(st.data())
def test_check_components_accepts_any_relabelling(data: st.DataObject) -> None:
    graph = data.draw(graphs())
    labels = reference_components(graph).astype(np.int64)
    count = int(labels.max(initial=-1)) + 1
    names = np.asarray(data.draw(st.permutations(range(count))), dtype=np.int64) * 7 - 3
    check_components(graph, names[labels] if count else labels)


@quick
@given(graphs())
def test_check_components_rejects_merged_and_split_components(graph: Graph) -> None:
    labels = reference_components(graph)
    if labels.size and labels.max() >= 1:
        merged = np.where(labels == 1, 0, labels)
        with pytest.raises(AssertionError, match="lie in different components but share"):
            check_components(graph, merged)
    sizes = np.bincount(labels) if labels.size else labels
    if np.any(sizes >= 2):
        big = int(np.flatnonzero(sizes >= 2)[0])
        split = labels.copy()
        split[np.flatnonzero(labels == big)[-1]] = labels.max() + 1
        with pytest.raises(AssertionError, match="lie in one component but have labels"):
            check_components(graph, split)


@quick
@given(graphs())
def test_check_spanning_forest_accepts_a_union_find_forest(graph: Graph) -> None:
    check_spanning_forest(graph, _spanning_forest(graph))


def test_check_spanning_forest_rejects_broken_forests() -> None:
    # 0 - 1 - 2 undirected (arcs: 0:0->1, 1:1->0, 2:1->2, 3:2->1), vertex 3 with a self-loop (4).
    graph = Graph.from_edges([0, 1, 3], [1, 2, 3], num_vertices=4, directed=False)
    check_spanning_forest(graph, [0, 2])
    for ids, message in (([0], "1 edges chosen; .* = 4 - 2 = 2"),
                         ([0, 2, 4], "3 edges chosen"),
                         ([0, 1], "edge id 1 .1 -> 0. closes a cycle"),
                         ([2, 4], "edge id 4 .3 -> 3. closes a cycle"),
                         ([0, 0], "edge id 0 chosen 2 times"),
                         ([0, 5], "edge id 5: expected 0 <= id < 5"),
                         (np.array([0.0, 2.0]), "expected a 1-D array of integer edge ids")):
        with pytest.raises(AssertionError, match=message):
            check_spanning_forest(graph, ids)


def test_checks_accept_the_empty_graph() -> None:
    empty = Graph.from_edges([], [], num_vertices=0)
    check_components(empty, np.empty(0, dtype=np.int32))
    check_spanning_forest(empty, [])


# assert_same_set ---------------------------------------------------------------------------
def test_assert_same_set_ignores_order_and_by_default_repeats() -> None:
    assert_same_set([3, 1, 2, 2], np.array([1, 2, 3], dtype=np.int32))
    assert_same_set([], [])


def test_assert_same_set_names_missing_and_unexpected_values() -> None:
    with pytest.raises(AssertionError, match=r"queue differs .*missing 1: \[4\]; unexpected 2: "
                                             r"\[0, 1\]"):
        assert_same_set([0, 1, 2], [2, 4], what="queue")


def test_assert_same_set_counts_repeats_for_multisets() -> None:
    with pytest.raises(AssertionError, match="2 occurs 2 times, expected 1"):
        assert_same_set([1, 2, 2], [2, 1], multiset=True)
    assert_same_set([2, 1, 2], [2, 2, 1], multiset=True)


def test_package_exports_every_public_name() -> None:
    for name in ft.__all__:
        assert callable(getattr(ft, name))
    with pytest.raises(AttributeError):
        ft.no_such_name  # noqa: B018


# dataset_dir -----------------------------------------------------------------------------------
@pytest.fixture
def repo(tmp_path, monkeypatch) -> Any:
    """A repository folder beside a shared folder, neither holding datasets yet."""
    from frontier.testing import datasets

    monkeypatch.delenv("FRONTIER_DATASETS", raising=False)
    monkeypatch.setattr(datasets, "_REPO", tmp_path / "repo")
    (tmp_path / "repo").mkdir()
    return tmp_path / "repo"


def test_dataset_dir_prefers_the_shared_folder_beside_the_repository(repo) -> None:
    (repo / ".data").mkdir()
    (repo.parent / "shared" / "datasets").mkdir(parents=True)
    assert ft.dataset_dir() == repo.parent / "shared" / "datasets"


def test_dataset_dir_falls_back_to_the_repositorys_data_folder(repo) -> None:
    (repo / ".data").mkdir()
    assert ft.dataset_dir() == repo / ".data"


def test_dataset_dir_is_none_when_no_folder_exists(repo) -> None:
    assert ft.dataset_dir() is None


def test_dataset_dir_is_the_environment_variable_when_set(repo, monkeypatch) -> None:
    (repo.parent / "shared" / "datasets").mkdir(parents=True)
    monkeypatch.setenv("FRONTIER_DATASETS", str(repo / "mine"))
    assert ft.dataset_dir() is None
    (repo / "mine").mkdir()
    assert ft.dataset_dir() == repo / "mine"


def test_dataset_dir_of_this_checkout_is_relative_to_the_repository(monkeypatch) -> None:
    monkeypatch.delenv("FRONTIER_DATASETS", raising=False)
    repo = Path(ft.__file__).resolve().parents[2]
    assert ft.dataset_dir() in (repo.parent / "shared" / "datasets", repo / ".data", None)
