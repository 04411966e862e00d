"""``louvain_communities`` and ``louvain_partitions`` of the NetworkX backend against NetworkX
itself: for the same seed the same communities in the same order, level by level, on every kind
of graph (directed, multigraphs, self-loops, isolated nodes, int and float weights, missing
weights, string labels), with ``resolution``, ``threshold`` and ``max_level``, and NetworkX's
errors (a graph whose weights sum to zero); weights that are not finite numbers run NetworkX's
own function."""

from __future__ import annotations

import random

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.frontier_nx.test_backend_centrality import networkx_graphs, outcome
from tests.tiers import examples


@settings(max_examples=examples(60), deadline=None)
@given(h=networkx_graphs(max_nodes=16), data=st.data())
def test_louvain_communities_are_networkx_communities_for_the_same_seed(h, data):
    seed = data.draw(st.integers(0, 2**32))
    options = {"weight": data.draw(st.sampled_from(["weight", None])),
               "resolution": data.draw(st.sampled_from([1, 0.5, 2.0])),
               "threshold": data.draw(st.sampled_from([0.0000001, 0.0, 0.05]))}
    got = outcome(nx.community.louvain_communities, h, seed=random.Random(seed),
                  backend="frontier", **options)
    assert got == outcome(nx.community.louvain_communities, h, seed=random.Random(seed),
                          **options)


@pytest.mark.parametrize("directed", [False, True])
def test_every_level_equals_networkx_on_a_clustered_graph(directed):
    h = nx.relabel_nodes(nx.powerlaw_cluster_graph(300, 3, 0.3, seed=4), str)
    h = h.to_directed() if directed else h
    got = list(nx.community.louvain_partitions(h, seed=7, backend="frontier"))
    assert len(got) > 1 and got == list(nx.community.louvain_partitions(h, seed=7))
    for level, expected in enumerate(got, 1):
        assert nx.community.louvain_communities(h, seed=7, max_level=level,
                                                backend="frontier") == expected


def test_a_partition_of_the_graph_with_networkx_modularity():
    h = nx.LFR_benchmark_graph(250, 3, 1.5, 0.009, average_degree=5, min_community=20,
                               seed=10)
    got = nx.community.louvain_communities(h, seed=3, backend="frontier")
    assert nx.community.is_partition(h, got)
    assert nx.community.modularity(h, got) == pytest.approx(
        nx.community.modularity(h, nx.community.louvain_communities(h, seed=3)))


def test_max_level_zero_raises_networkx_error():
    with pytest.raises(ValueError, match="max_level argument must be a positive integer"):
        nx.community.louvain_communities(nx.path_graph(4), max_level=0, backend="frontier")


@pytest.mark.parametrize("value", [float("inf"), float("nan"), None, "heavy"])
def test_weights_that_are_not_finite_numbers_run_networkx_own_function(value):
    h = nx.karate_club_graph()
    h[0][1]["weight"] = value
    assert outcome(nx.community.louvain_communities, h, seed=2, backend="frontier") == \
        outcome(nx.community.louvain_communities, h, seed=2)


def test_the_compiled_moves_are_kept_in_the_library_cache_directory():
    from frontier.runtime.cache_dir import FrontierCacheLocator
    from frontier_nx import louvain_kernels

    for kernel in (louvain_kernels.adjacency, louvain_kernels.degrees,
                   louvain_kernels.neighbour_weights, louvain_kernels.one_level):
        assert isinstance(kernel._cache._impl.locator, FrontierCacheLocator)
