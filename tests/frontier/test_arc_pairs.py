"""``Graph.reverse_arcs()`` and ``Graph.edge_ids()`` (frontier/arc_pairs.py): the k-th arc
``u -> v`` pairs with the k-th ``v -> u`` (-1 where there is none), one to one; an arc and its
reverse share an undirected edge id, numbered by the lower arc; equal to a per-arc reference on
hypothesis graphs (directed, undirected, loops, repeated arcs, empty rows, hubs, unsorted rows),
built once per graph whichever threads ask, and usable from functors on every target."""

from __future__ import annotations

from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier import Frontier, Graph, generators
from frontier.testing import graphs
from operators import advance


def with_rows_shuffled(graph: Graph, seed: int) -> Graph:
    """The same arcs with each CSR row in another order (rows no longer sorted)."""
    offs, cols = graph.row_offsets, graph.col_indices.copy()
    rng = np.random.default_rng(seed)
    for v in range(graph.num_vertices):
        rng.shuffle(cols[offs[v]:offs[v + 1]])
    return Graph.from_csr(offs, cols, directed=graph.directed)


def reference_reverse(graph: Graph) -> list[int]:
    """The pairing rule, arc by arc: the k-th arc u -> v (by id) with the k-th v -> u."""
    src, dst = graph.coo().src.tolist(), graph.col_indices.tolist()
    arcs: dict[tuple[int, int], list[int]] = defaultdict(list)
    for e, pair in enumerate(zip(src, dst, strict=True)):
        arcs[pair].append(e)
    out = []
    for e, (u, v) in enumerate(zip(src, dst, strict=True)):
        k = arcs[u, v].index(e)
        back = arcs.get((v, u), [])
        out.append(back[k] if k < len(back) else -1)
    return out


@given(graph=graphs(max_vertices=14, max_edges=40), shuffle=st.integers(0, 3))
def test_reverse_arcs_pair_the_kth_arc_each_way_one_to_one(graph, shuffle):
    if shuffle:
        graph = with_rows_shuffled(graph, shuffle)
    rev = graph.reverse_arcs()
    assert rev.dtype == np.int64 and rev.shape == (graph.num_edges,)
    assert rev.tolist() == reference_reverse(graph)
    paired = np.flatnonzero(rev != -1)
    assert (rev[rev[paired]] == paired).all()
    if not graph.directed:
        assert (rev != -1).all()  # every arc of an undirected graph has its reverse
    loops = np.flatnonzero(graph.coo().src == graph.col_indices)
    assert (rev[loops] == loops).all()


@given(graph=graphs(max_vertices=14, max_edges=40), shuffle=st.integers(0, 3))
def test_edge_ids_are_shared_by_an_arc_and_its_reverse_and_numbered_by_the_lower(graph,
                                                                                 shuffle):
    if shuffle:
        graph = with_rows_shuffled(graph, shuffle)
    rev, ids = graph.reverse_arcs(), graph.edge_ids()
    arcs = np.arange(graph.num_edges)
    lower = arcs[(rev == -1) | (arcs <= rev)]
    assert ids.dtype == np.int64
    assert ids[lower].tolist() == list(range(lower.size))  # 0 .. k-1 by the lower arc
    paired = rev != -1
    assert (ids[paired] == ids[rev[paired]]).all()
    assert np.unique(ids).size == lower.size  # unpaired arcs and pairs: one id each
    if not graph.directed:  # an edge stored twice, a self-loop once
        loops = int((graph.coo().src == graph.col_indices).sum())
        assert lower.size == (graph.num_edges + loops) // 2


def test_the_arcs_of_the_issue_example_pair_up():
    g = Graph.from_edges([0, 1, 1, 2, 2, 3, 3], [1, 0, 2, 1, 2, 0, 0], num_vertices=4)
    assert g.reverse_arcs().tolist() == [1, 0, 3, 2, 4, -1, -1]
    assert g.edge_ids().tolist() == [0, 0, 1, 1, 2, 3, 4]


def test_a_graph_without_arcs_has_empty_reverse_arcs_and_edge_ids():
    for g in (Graph.from_edges([], [], num_vertices=0), Graph.from_edges([], [], num_vertices=3,
                                                                        directed=False)):
        assert g.reverse_arcs().tolist() == [] and g.edge_ids().tolist() == []


def test_reverse_arcs_and_edge_ids_are_read_only_and_built_once_whichever_threads_ask():
    g = generators.rmat(8, seed=3, directed=True)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: (g.reverse_arcs(), g.edge_ids()), range(8)))
    assert all(r is got[0][0] and i is got[0][1] for r, i in got)
    for a in got[0]:
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 1


def pair_check(src, dst, eid, weight, rev, ids, tails, heads, ok):
    r = rev[eid]
    if r == -1 or (tails[r] == dst and heads[r] == src and ids[r] == ids[eid]):
        ok[eid] = 1
    return False


@settings(max_examples=10)
@given(graph=graphs(max_vertices=10, max_edges=20))
def test_reverse_arcs_and_edge_ids_on_a_target_are_state_functors_read(target, graph):
    rev, ids = graph.reverse_arcs(target), graph.edge_ids(target=target)
    assert rev is graph.reverse_arcs(target)  # copied once per target
    assert target.to_host(rev).tolist() == graph.reverse_arcs().tolist()
    ok = target.zeros(graph.num_edges, np.int64)
    coo = graph.coo()
    advance(graph, Frontier.all_vertices(graph, target=target), pair_check, rev, ids,
            target.to_device(coo.src), target.to_device(coo.dst), ok, output="none")
    assert target.to_host(ok).tolist() == [1] * graph.num_edges
