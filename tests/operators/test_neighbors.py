"""operators.neighbor_reduce over a frontier or the vertices with hubs: where the fold does not
depend on the order (the ors; a min, max or sum of integers), a vertex of more than
lanes.HUB_DEGREE edges is folded apart (operators.folds: its chunks over a warp's lanes, a loop
on the cpu target), and every fold equals the per-vertex fold in order, bit for bit, on every
target, on its own and inside a fused loop; a float sum stays in order; a logical or stops at a
vertex's first true value; the race detector takes each call of a hub fold as its own work item.

The graphs are tiny (the simulator runs a Python thread per GPU thread): the hub sizes are
lowered so that a vertex of more than 3 arcs is a hub, in chunks of 2 arcs."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from frontier import Frontier, Graph, atomic_add, atomic_store
from frontier.runtime.racecheck import RaceError
from frontier.testing import check_race_free
from operators import advance, filter, lanes, loop, neighbor_reduce, recording
from operators.folds import splits_hubs
from operators.neighbors import NEIGHBOR_REDUCTIONS
from operators.reduce import identity_of

#: Values of the vertices of :func:`star_and_paths`.
X = np.array([5, -3, 9, 2, -8, 7, 0, 4, -6, 1], np.int64)
#: The frontier the folds run over: the hub, light vertices, one without out-arcs.
LIVE = [0, 3, 4, 7, 9]
UNTOUCHED = -77


@pytest.fixture
def small_hubs(monkeypatch):
    """Hubs of more than 3 arcs, in chunks of 2 (read by each call: kernels and hub lists are
    kept per size)."""
    monkeypatch.setattr(lanes, "HUB_DEGREE", 3)
    monkeypatch.setattr(lanes, "CHUNK", 2)


def star_and_paths() -> Graph:
    """Ten vertices: hub 0 with 7 out-arcs (to 1..6 and to 1 again: 4 chunks) and 5 in-arcs
    (from 3, 5, 7, 8, 9: 3 chunks), the paths 1->2->3 and 7->8->9; every other vertex has at
    most 3 arcs either way."""
    src = [0, 0, 0, 0, 0, 0, 0, 3, 5, 7, 8, 9, 1, 2, 7, 8]
    dst = [1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 0, 0, 2, 3, 8, 9]
    return Graph.from_edges(src, dst, num_vertices=10, directed=True)


def spread(src, dst, eid, weight, x):
    return x[src] * 3 - x[dst] + eid


def divisible(src, dst, eid, weight, x):
    return (x[src] + x[dst] + eid) % 4 == 0


def in_order(graph: Graph, fn, x: np.ndarray, op: str, dtype, edges: str,
             vertices) -> dict[int, object]:
    """Each vertex's fold, edge after edge, in the graph's order of its edges."""
    if edges == "out":
        offsets, ends, eids = graph.row_offsets, graph.col_indices, np.arange(graph.num_edges)
    else:
        csc = graph.csc()
        offsets, ends, eids = csc.col_offsets, csc.row_indices, csc.edge_ids
    folded = {}
    for v in vertices:
        acc = identity_of(op, dtype).item()
        for p in range(offsets[v], offsets[v + 1]):
            u, e = int(ends[p]), int(eids[p])
            value = fn(v, u, e, 1, x) if edges == "out" else fn(u, v, e, 1, x)
            if op == "sum":
                acc = acc + value
            elif op == "min":
                acc = min(acc, value)
            elif op == "max":
                acc = max(acc, value)
            elif op == "bit_or":
                acc = int(acc) | int(value)
            else:
                acc = acc or bool(value)
        folded[v] = np.array(acc).astype(dtype)
    return folded


@pytest.mark.parametrize("op, where, edges", [(op, "frontier", "out") for op in NEIGHBOR_REDUCTIONS]
                         + [("sum", "vertices", "in")])  # the loop's test: a min over "vertices"
def test_every_fold_with_hubs_folded_apart_equals_the_fold_in_order(target, small_hubs, op,
                                                                    where, edges):
    graph = star_and_paths()
    fn = divisible if op == "logical_or" else spread
    dtype = np.bool_ if op == "logical_or" else np.int32
    over = (Frontier.from_vertices(graph, LIVE, target=target) if where == "frontier"
            else "vertices")
    vertices = LIVE if where == "frontier" else range(graph.num_vertices)
    out = target.to_device(np.full(graph.num_vertices, UNTOUCHED, dtype))
    with recording() as log:
        neighbor_reduce(graph, over, fn, target.to_device(X), out=out, op=op, edges=edges)
    (folding,) = [k.name for k in log.kernels() if k.name.startswith("neighbors")]
    assert "_hubs" in folding
    got = target.to_host(out)
    want = np.full(graph.num_vertices, UNTOUCHED, dtype)
    for v, value in in_order(graph, fn, X, op, dtype, edges, vertices).items():
        want[v] = value
    np.testing.assert_array_equal(got, want)
    if where == "frontier":  # the hub the call before marked is not this call's (one pool)
        out = target.to_device(np.full(graph.num_vertices, UNTOUCHED, dtype))
        light = filter(graph, over, not_the_hub)
        neighbor_reduce(graph, light, fn, target.to_device(X), out=out, op=op, edges=edges)
        want[0] = UNTOUCHED
        np.testing.assert_array_equal(target.to_host(out), want)


def not_the_hub(v):
    return v != 0


def test_hub_folds_over_one_frontier_from_several_threads_get_their_own_values(target,
                                                                            small_hubs):
    graph = star_and_paths()
    live = Frontier.from_vertices(graph, LIVE, target=target)
    tables = [np.random.default_rng(seed).integers(-9, 9, 10) for seed in range(6)]

    def folded(x: np.ndarray) -> list[int]:
        out = target.zeros(graph.num_vertices, np.int64)
        neighbor_reduce(graph, live, spread, target.to_device(x), out=out, op="max",
                        edges="out")
        return target.to_host(out)[LIVE].tolist()

    with ThreadPoolExecutor(3) as pool:
        got = list(pool.map(folded, tables))
    for x, values in zip(tables, got, strict=True):
        want = in_order(graph, spread, x, "max", np.int64, "out", LIVE)
        assert values == [want[v] for v in LIVE]


def exactly(src, dst, eid, weight, x):
    return x[dst]


def test_a_float_sum_folds_every_vertex_in_order(target, small_hubs):
    graph = star_and_paths()
    x = np.array([0.0, 1e16, 1.0, -1e16, 1.0, 3.0, 1e-3, 0.0, 0.0, 0.0])
    out = target.zeros(graph.num_vertices, np.float64)
    with recording() as log:
        neighbor_reduce(graph, "vertices", exactly, target.to_device(x), out=out, edges="out")
    (folding,) = [k.name for k in log.kernels() if k.name.startswith("neighbors")]
    assert "_hubs" not in folding
    want = in_order(graph, exactly, x, "sum", np.float64, "out", range(graph.num_vertices))
    assert target.to_host(out).tolist() == [float(want[v]) for v in range(graph.num_vertices)]


@pytest.mark.parametrize("op, out_dtype, values, splits", [
    ("logical_or", np.float32, np.float64, True), ("bit_or", np.uint64, np.int64, True),
    ("min", np.int32, np.int64, True), ("max", np.bool_, np.int64, True),
    ("sum", np.uint32, np.int64, True), ("sum", np.float64, np.int64, False),
    ("sum", np.int64, np.float64, False), ("min", np.float64, np.float64, False),
    ("max", np.uint64, np.int64, False), ("min", np.int64, np.uint64, False)])
def test_hubs_are_folded_apart_only_where_the_order_cannot_show(op, out_dtype, values, splits):
    assert splits_hubs(op, np.dtype(out_dtype), np.dtype(values)) is splits


def counted_flag(src, dst, eid, weight, flags, calls):
    atomic_add(calls, src, 1)
    return flags[eid]


def test_a_logical_or_stops_at_a_vertexs_first_true_value(target):
    graph = Graph.from_edges([0] * 5 + [1] * 3, [1, 2, 3, 4, 5, 0, 2, 3], num_vertices=6)
    flags = target.to_device(np.array([0, 0, 1, 0, 1, 0, 0, 0], np.bool_))
    calls = target.zeros(6, np.int64)
    out = target.zeros(6, np.bool_)
    neighbor_reduce(graph, "vertices", counted_flag, flags, calls, out=out, op="logical_or",
                    edges="out")
    assert target.to_host(out).tolist() == [True, False, False, False, False, False]
    assert target.to_host(calls).tolist() == [3, 3, 0, 0, 0, 0]


def beaten_by(src, dst, eid, weight, state, prio):
    return dst != src and state[dst] == 0 and prio[dst] > prio[src]


def knock_out(src, dst, eid, weight, beaten, state):
    if not beaten[src] and dst != src:
        atomic_store(state, dst, 2)
    return False


def smallest_label(src, dst, eid, weight, label):
    return label[src]


def settle(v, beaten, state, lowest, label):
    if state[v] == 0 and not beaten[v]:
        state[v] = 1
    label[v] = min(label[v], lowest[v])
    return state[v] == 0


def independent_and_labelled(live, graph, state, beaten, prio, lowest, label):
    """A round of an independent set over ``live`` (a logical or over a frontier) beside each
    vertex taking the smallest label of its tails (a minimum over the vertices)."""
    neighbor_reduce(graph, live, beaten_by, state, prio, out=beaten, op="logical_or",
                    edges="out")
    neighbor_reduce(graph, "vertices", smallest_label, label, out=lowest, op="min", edges="in")
    advance(graph, live, knock_out, beaten, state, output="none")
    return filter(graph, live, settle, beaten, state, lowest, label)


def test_a_fused_loop_folds_hubs_apart_as_the_host_loop_does(target, small_hubs):
    graph = star_and_paths()
    prio = target.to_device(np.array([6, 0, 3, 4, 9, 5, 1, 7, 2, 8], np.int64))
    runs = {}
    for fused in (True, False):
        state, beaten = target.zeros(10, np.int8), target.zeros(10, np.bool_)
        lowest = target.zeros(10, np.int64)
        label = target.to_device(np.array([9, 7, 8, 6, 5, 4, 3, 2, 1, 0], np.int64))
        live = Frontier.all_vertices(graph, target=target)
        with recording() as log:
            ran = loop(graph, live, independent_and_labelled, graph, state, beaten, prio, lowest,
                       label, fused=fused)
        if fused:
            (kernel,) = [k for k in log.kernels() if k.name.startswith("loop")]
            assert kernel.source.count("hub_warps = ") == 2  # both folds' hubs apart
        runs[fused] = (ran.rounds, target.to_host(state).tolist(),
                       target.to_host(label).tolist())
    assert runs[True] == runs[False]
    rounds, state, label = runs[True]
    assert rounds == 4 and 0 not in state and label[0] == 0


def test_hub_folds_over_a_grid_of_several_blocks_wait_at_grid_barriers(target, small_hubs):
    """A star of 3,000 leaves (1,500 chunks: a grid of many blocks on a GPU, a cooperative
    launch whose parts wait at grid barriers; in the simulator, which runs one block, 6 leaves)
    and its leaves' arcs back: a fold on its own and the fused loop equal the fold in order and
    the host loop."""
    leaves = 6 if target.simulated else 3000
    n = leaves + 1
    src = np.r_[np.zeros(leaves, np.int64), np.arange(1, n)]
    dst = np.r_[np.arange(1, n), np.zeros(leaves, np.int64)]
    graph = Graph.from_edges(src, dst, num_vertices=n, directed=True)
    x = np.random.default_rng(5).integers(-50, 50, n)
    out = target.zeros(n, np.bool_)
    with recording() as log:
        neighbor_reduce(graph, Frontier.all_vertices(graph, target=target), divisible,
                        target.to_device(x), out=out, op="logical_or", edges="out")
    (folding,) = [k.name for k in log.kernels() if k.name.startswith("neighbors")]
    assert "_hubs" in folding and "_block" not in folding
    want = in_order(graph, divisible, x, "logical_or", np.bool_, "out", range(n))
    assert target.to_host(out).tolist() == [bool(want[v]) for v in range(n)]
    prio = target.to_device(np.random.default_rng(6).permutation(n).astype(np.int64))
    runs = {}
    for fused in (True, False):
        state, beaten = target.zeros(n, np.int8), target.zeros(n, np.bool_)
        label = target.to_device(np.arange(n, dtype=np.int64)[::-1].copy())
        ran = loop(graph, Frontier.all_vertices(graph, target=target), independent_and_labelled,
                   graph, state, beaten, prio, target.zeros(n, np.int64), label, fused=fused)
        runs[fused] = (ran.rounds, target.to_host(state).tolist(),
                       target.to_host(label).tolist())
    assert runs[True] == runs[False] and 0 not in runs[True][1]


def mark_tail(src, dst, eid, weight, x, seen):
    seen[src] = eid
    return x[dst]


def test_the_race_detector_takes_each_call_of_a_hub_fold_as_its_own_work_item(race_target,
                                                                            small_hubs):
    graph = star_and_paths()
    x = race_target.to_device(X)
    out = race_target.zeros(10, np.int64)
    live = Frontier.from_vertices(graph, LIVE, target=race_target)
    check_race_free(neighbor_reduce, graph, live, spread, x, out=out, op="max", edges="out")
    want = in_order(graph, spread, X, "max", np.int64, "out", LIVE)
    assert [race_target.to_host(out)[v] for v in LIVE] == [want[v] for v in LIVE]
    with pytest.raises(RaceError, match="mark_tail"):  # the hub's calls run at once
        check_race_free(neighbor_reduce, graph, live, mark_tail, x,
                        race_target.zeros(10, np.int64), out=out, op="max", edges="out")
