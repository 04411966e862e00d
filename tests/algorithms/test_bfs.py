"""BFS equals independent references on hypothesis graphs and real datasets, on every target."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

from algorithms import bfs
from frontier import Graph
from frontier.io import load
from frontier.testing import check_bfs, dataset_dir, graphs_with_source

DATASETS = dataset_dir()


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "host-loop"])
@pytest.mark.parametrize("kind", ["sparse", "dense"])
@given(case=graphs_with_source())
def test_bfs_distances_and_tree_match_scipy(target, kind, fused, case):
    graph, source = case
    result = bfs(graph, source, target=target, frontier=kind, fused=fused)
    check_bfs(graph, source, result.distances, result.predecessors)
    assert result.iterations == result.distances.max() + 1


@pytest.mark.parametrize("direction", ["pull", "auto"])
@given(case=graphs_with_source())
def test_bottom_up_and_direction_optimizing_bfs_match_scipy(target, direction, case):
    graph, source = case
    thresholds = {"alpha": 4, "beta": 8} if direction == "auto" else {}
    result = bfs(graph, source, target=target, direction=direction, **thresholds)
    check_bfs(graph, source, result.distances, result.predecessors)


def test_bfs_rejects_unknown_direction(target):
    with pytest.raises(ValueError, match="direction="):
        bfs(Graph.from_edges([0], [1]), 0, target=target, direction="sideways")


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "host-loop"])
def test_bfs_stats_count_each_level_and_its_edges(target, fused):
    g = Graph.from_edges([0, 0, 1, 2, 3], [1, 2, 3, 3, 4], directed=False)
    r = bfs(g, 0, target=target, fused=fused)
    assert r.iterations == 4
    assert [s.frontier_size for s in r.stats] == [1, 2, 1, 1]
    assert [s.edges for s in r.stats] == [2, 4, 3, 1]
    assert r.edges_traversed == g.num_edges
    assert all((s.seconds is None) == (s.mode in ("fused", "block")) for s in r.stats)
    assert fused or all(s.mode == "host" for s in r.stats)


def test_bfs_rejects_out_of_range_and_non_integer_sources(target):
    g = Graph.from_edges([0], [1])
    with pytest.raises(ValueError, match="source 2 is out of range"):
        bfs(g, 2, target=target)
    with pytest.raises(TypeError, match="expected a vertex id"):
        bfs(g, 0.5, target=target)


def test_bfs_does_not_modify_the_graph(target):
    g = Graph.from_edges([0, 1, 2], [1, 2, 0])
    before = (g.row_offsets.copy(), g.col_indices.copy())
    bfs(g, 0, target=target)
    np.testing.assert_array_equal(g.row_offsets, before[0])
    np.testing.assert_array_equal(g.col_indices, before[1])


DATASET_FILES = sorted(p.name for p in DATASETS.glob("*.gz")) if DATASETS else []


@pytest.mark.skipif(not DATASET_FILES, reason="shared/datasets not found")
@pytest.mark.parametrize("name", DATASET_FILES)
def test_bfs_equals_scipy_on_real_dataset_on_cpu(name):
    graph = load(DATASETS / name)
    source = int(np.argmax(graph.out_degrees()))
    result = bfs(graph, source, target="cpu")
    check_bfs(graph, source, result.distances, result.predecessors)


@pytest.mark.simulator
@pytest.mark.skipif("rome99.gr.gz" not in DATASET_FILES, reason="shared/datasets not found")
def test_bfs_equals_scipy_on_rome99_with_cuda_kernels():
    from frontier.runtime.cuda_support import cuda_usable

    if not cuda_usable():
        pytest.skip("no GPU and no simulator")
    graph = load(DATASETS / "rome99.gr.gz")
    result = bfs(graph, 0, target="cuda")
    check_bfs(graph, 0, result.distances, result.predecessors)
