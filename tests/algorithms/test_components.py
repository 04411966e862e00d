"""Connected components and spanning forests equal scipy and networkx on hypothesis graphs and
real datasets, for every method, every load balancer of the methods that advance, and every
target (a small subset in the CUDA simulator, the full set on a GPU)."""

from __future__ import annotations

import os

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import CATALOG, connected_components, spanning_forest
from algorithms.components import DEFAULT_METHOD, SAMPLES, ComponentsMethod, _most_frequent
from frontier import Graph, generators
from frontier.io import load
from frontier.runtime.cuda_support import cuda_usable
from frontier.testing import (
    check_components,
    check_spanning_forest,
    dataset_dir,
    graphs,
    reference_components,
)
from operators import BalancerError, available_balancers, recording
from tests.pairs import pairwise
from tests.tiers import TARGETS

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
#: The methods whose steps include an advance, which the balancer maps onto threads.
BALANCED = ("label_propagation", "afforest")
BALANCERS = available_balancers()
#: Simulator runs: a few tiny graphs per case (the simulator runs ~10^4 GPU threads a second).
tiny = settings(max_examples=3) if SIMULATED else settings()
TINY_GRAPHS = graphs(max_vertices=10, max_edges=16) if SIMULATED else graphs()


def smallest_member(graph: Graph) -> np.ndarray:
    """Each vertex's smallest component member, from scipy's weak components."""
    component = reference_components(graph)
    smallest = np.full(component.max(initial=-1) + 1, graph.num_vertices)
    np.minimum.at(smallest, component, np.arange(graph.num_vertices))
    return smallest[component].astype(np.int32)


def networkx_smallest_member(graph: Graph) -> np.ndarray:
    g = nx.Graph()  # the weak view: arcs as undirected edges
    g.add_nodes_from(range(graph.num_vertices))
    coo = graph.coo()
    g.add_edges_from(zip(coo.src.tolist(), coo.dst.tolist(), strict=True))
    labels = np.empty(graph.num_vertices, np.int32)
    for members in nx.connected_components(g):
        labels[list(members)] = min(members)
    return labels


def assert_components(graph: Graph, result) -> None:
    check_components(graph, result.labels)
    np.testing.assert_array_equal(result.labels, smallest_member(graph))
    assert result.labels.dtype == np.int32
    assert result.num_components == len(np.unique(result.labels))
    assert len(result.stats) >= min(result.iterations, 1) * (graph.num_edges > 0)


@pytest.mark.parametrize("method", ComponentsMethod)
@given(graph=graphs())
def test_every_method_labels_vertices_by_the_smallest_member_of_their_weak_component(method,
                                                                                     graph):
    result = connected_components(graph, method=method, target="cpu")
    assert_components(graph, result)
    np.testing.assert_array_equal(result.labels, networkx_smallest_member(graph))


@pytest.mark.parametrize("method", BALANCED)
@pytest.mark.parametrize("balancer", BALANCERS)
@given(graph=graphs(max_vertices=30, max_edges=80))
def test_advancing_methods_agree_with_scipy_under_every_balancer(method, balancer, graph):
    assert_components(graph, connected_components(graph, method=method, balancer=balancer,
                                                  target="cpu"))


@pytest.mark.parametrize("method", ComponentsMethod)
@tiny
@given(graph=TINY_GRAPHS)
def test_every_method_agrees_with_scipy_on_every_target(target, method, graph):
    assert_components(graph, connected_components(graph, method=method, target=target))


@pairwise(target=TARGETS, method=BALANCED, balancer=BALANCERS)
@settings(max_examples=2) if SIMULATED else settings()
@given(graph=TINY_GRAPHS)
def test_advancing_methods_agree_with_scipy_under_every_balancer_on_every_target(
        target, method, balancer, graph):
    assert_components(graph, connected_components(graph, method=method, balancer=balancer,
                                                  target=target))


@given(graph=graphs())
def test_spanning_forest_has_one_edge_per_merge_no_cycle_and_spans_each_component(graph):
    result = spanning_forest(graph, target="cpu")
    check_spanning_forest(graph, result.edges)
    assert result.edges.dtype == np.int64 and np.all(np.diff(result.edges) > 0)
    assert len(result.edges) == graph.num_vertices - result.num_components
    np.testing.assert_array_equal(result.labels, smallest_member(graph))


@tiny
@given(graph=TINY_GRAPHS)
def test_spanning_forest_on_every_target(target, graph):
    check_spanning_forest(graph, spanning_forest(graph, target=target).edges)


def test_weak_components_of_a_directed_graph_join_arcs_of_either_direction(target):
    g = Graph.from_edges([4, 2, 5, 6], [3, 3, 1, 1], num_vertices=8)  # arcs into 3 and into 1
    for method in ComponentsMethod:
        r = connected_components(g, method=method, target=target)
        assert r.labels.tolist() == [0, 1, 2, 2, 2, 1, 1, 7], method
        assert r.num_components == 4


def test_a_path_numbered_against_the_hooking_order_still_ends_in_one_component():
    n = 200  # ids zig-zag, so hooks in one orientation only form long chains
    order = np.concatenate([np.arange(0, n, 2), np.arange(n - 1, 0, -2)])
    g = Graph.from_edges(order[:-1], order[1:], num_vertices=n, directed=False)
    for method in ComponentsMethod:
        r = connected_components(g, method=method, target="cpu")
        assert r.num_components == 1 and not r.labels.any(), method
    check_spanning_forest(g, spanning_forest(g, target="cpu").edges)


def test_stats_record_each_iteration_and_the_edges_it_hooked_over():
    g = Graph.from_edges([0, 1, 2, 5], [1, 2, 3, 6], num_vertices=7, directed=False)
    r = connected_components(g, method="soman", target="cpu")
    assert [s.iteration for s in r.stats] == list(range(1, r.iterations + 1))
    assert r.stats[0].active == g.num_edges and all(s.seconds >= 0 for s in r.stats)
    assert r.edges_traversed == g.num_edges and r.seconds > 0


def test_the_default_method_is_documented_and_used():
    g = Graph.from_edges([0], [1], num_vertices=3)
    assert connected_components(g, target="cpu").method == DEFAULT_METHOD == "afforest"


def test_bad_arguments_are_refused_before_any_work():
    g = Graph.from_edges([0], [1])
    with pytest.raises(ValueError, match="method='dfs'; expected one of"):
        connected_components(g, method="dfs")
    with pytest.raises(TypeError, match="expected a frontier.Graph"):
        connected_components([[0, 1]])
    with pytest.raises(TypeError, match="expected a frontier.Graph"):
        spanning_forest(np.zeros((2, 2)))
    with pytest.raises(BalancerError):
        connected_components(g, balancer="nosuch")


def test_components_do_not_modify_the_graph():
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], directed=False)
    before = (g.row_offsets.copy(), g.col_indices.copy())
    for method in ComponentsMethod:
        connected_components(g, method=method, target="cpu")
    spanning_forest(g, target="cpu")
    np.testing.assert_array_equal(g.row_offsets, before[0])
    np.testing.assert_array_equal(g.col_indices, before[1])


def test_catalog_entries_validate_against_scipy():
    g = Graph.from_edges([0, 1, 4, 6], [1, 2, 5, 6], num_vertices=8)
    for name in ("cc", "forest"):
        entry = CATALOG[name]
        entry.check(g, None, entry.invoke(g, None, balancer="thread", target="cpu"))


DATASETS = dataset_dir()
DATASET_FILES = sorted(p.name for p in DATASETS.glob("*.gz")) if DATASETS else []


@pytest.mark.skipif(not DATASET_FILES, reason="shared/datasets not found")
@pytest.mark.parametrize("name", DATASET_FILES)
def test_every_method_and_the_forest_agree_with_scipy_on_real_datasets_on_cpu(name):
    graph = load(DATASETS / name)
    expected = smallest_member(graph)
    for method in ComponentsMethod:
        got = connected_components(graph, method=method, target="cpu").labels
        np.testing.assert_array_equal(got, expected, err_msg=method)
    check_spanning_forest(graph, spanning_forest(graph, target="cpu").edges)


@pytest.mark.gpu
@pytest.mark.skipif(not DATASET_FILES, reason="shared/datasets not found")
@pytest.mark.skipif(SIMULATED or not cuda_usable(), reason="needs a real CUDA GPU")
@pytest.mark.parametrize("name", DATASET_FILES)
def test_every_method_and_balancer_and_the_forest_agree_with_scipy_on_real_datasets_on_gpu(
        name):
    graph = load(DATASETS / name)
    expected = smallest_member(graph)
    for method in ComponentsMethod:
        for balancer in BALANCERS if method in BALANCED else ["thread"]:
            got = connected_components(graph, method=method, balancer=balancer,
                                       target="cuda").labels
            np.testing.assert_array_equal(got, expected, err_msg=f"{method}, {balancer}")
    check_spanning_forest(graph, spanning_forest(graph, target="cuda").edges)


@settings(max_examples=60, deadline=None)
@given(labels=st.lists(st.integers(0, 40), min_size=1, max_size=60), spread=st.booleans())
def test_the_most_frequent_sampled_label_is_the_smallest_of_the_most_counted(labels, spread):
    """Afforest's largest component: counted by bincount (small labels) or by sorting (labels
    far larger than the sample), the same label, the smallest of a tie."""
    held = np.array(labels, np.int32) * (10**6 if spread else 1)
    values, counts = np.unique(held, return_counts=True)
    assert _most_frequent(held, int(held.max()) + 1) == values[counts == counts.max()].min()


def test_afforest_reads_every_label_of_a_small_graph_and_samples_a_large_ones():
    """The largest intermediate component of a graph of at most SAMPLES vertices comes from
    every vertex's label (no launch gathers samples); a larger graph's from its samples (the
    same on every target: the cpu target's launches show it)."""
    target = "cpu"

    def gathers(graph: Graph) -> int:
        connected_components(graph, target=target)
        with recording() as log:
            labels = connected_components(graph, target=target).labels
        np.testing.assert_array_equal(labels, smallest_member(graph))
        return sum("gather" in launch.name for launch in log)

    assert gathers(generators.path(SAMPLES)) == 0
    assert gathers(generators.path(SAMPLES + 1)) == 1
