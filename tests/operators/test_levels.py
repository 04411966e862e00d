"""neighbor_reduce over Levels: the vertices of a range of levels folded level after level in one
launch, each level reading what the levels before it wrote, equal to a sequential sweep on every
target, under the race detector, and on a grid of several blocks in the simulator."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier import Graph, generators
from frontier.testing import check_race_free, graphs
from operators import Levels, OperatorError, neighbor_reduce
from operators.lanes import CHUNK, HUB_DEGREE
from operators.neighbors import NEIGHBOR_REDUCTIONS
from tests.operators.test_iterate import lanes_and_tree
from tests.pairs import pairwise
from tests.tiers import TARGETS


def carried_out(src, dst, eid, weight, level, out):
    if level[src] == level[dst]:
        return dst
    return out[dst] % 1000 + 1


def carried_in(src, dst, eid, weight, level, out):
    if level[src] == level[dst]:
        return src
    return out[src] % 1000 + 1


def sequential(graph: Graph, level: np.ndarray, first: int, last: int, start: np.ndarray,
               op: str, edges: str) -> np.ndarray:
    """The sweep, one vertex after another, level after level from ``first`` to ``last``."""
    out = start.copy()
    coo = graph.coo()
    folds = {"sum": (0, lambda a, b: a + b), "min": (np.iinfo(np.int64).max, min),
             "max": (np.iinfo(np.int64).min, max),
             "logical_or": (0, lambda a, b: int(bool(a) or bool(b))),
             "bit_or": (0, lambda a, b: a | b)}
    identity, fold = folds[op]
    step = 1 if last >= first else -1
    for d in range(first, last + step, step):
        for v in np.flatnonzero(level[:graph.num_vertices] == d):
            acc = identity
            for src, dst in zip(coo.src.tolist(), coo.dst.tolist(), strict=True):
                if edges == "out" and src == v:
                    x = dst if level[src] == level[dst] else out[dst] % 1000 + 1
                elif edges == "in" and dst == v:
                    x = src if level[src] == level[dst] else out[src] % 1000 + 1
                else:
                    continue
                acc = fold(acc, int(x))
            out[v] = acc
    return out


@st.composite
def leveled(draw, max_vertices: int = 16):
    """A graph, a level per vertex (-1: none), and a range of levels in either direction."""
    graph = draw(graphs(min_vertices=1, max_vertices=max_vertices, max_edges=40))
    n = graph.num_vertices
    top = draw(st.integers(0, n - 1))
    level = np.array(draw(st.lists(st.integers(-1, top), min_size=n, max_size=n)), np.int32)
    ends = draw(st.lists(st.integers(0, top), min_size=2, max_size=2))
    first, last = ends if draw(st.booleans()) else ends[::-1]
    return graph, level, first, last


@pairwise(target=TARGETS, op=NEIGHBOR_REDUCTIONS, edges=["in", "out"])
@given(case=leveled())
def test_levels_are_folded_in_order_as_a_sequential_sweep(target, op, edges, case):
    graph, level, first, last = case
    n = graph.num_vertices
    start = (np.arange(n, dtype=np.int64) * 7) % 5 - 1
    out = target.to_device(start)
    fn = carried_out if edges == "out" else carried_in
    lv = target.to_device(level)
    neighbor_reduce(graph, Levels(lv, first, last), fn, lv, out, out=out, op=op, edges=edges)
    np.testing.assert_array_equal(target.to_host(out),
                                  sequential(graph, level, first, last, start, op, edges))


def test_vertices_outside_the_range_keep_their_values(target):
    path = Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4])
    level = target.to_device(np.array([0, 1, 2, 3, 4], np.int32))
    out = target.full(5, 100, np.int64)
    neighbor_reduce(path, Levels(level, 3, 1), carried_out, level, out, out=out, edges="out")
    # vertex 3 reads vertex 4's 100, vertex 2 then reads 3's new value, vertex 1 reads 2's
    assert target.to_host(out).tolist() == [100, 103, 102, 101, 100]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64])
def test_levels_of_every_integer_dtype(target, dtype):
    path = Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4])
    level = target.to_device(np.arange(5).astype(dtype))
    out = target.zeros(5, np.int64)
    neighbor_reduce(path, Levels(level, 4, 0), carried_out, level, out, out=out, edges="out")
    assert target.to_host(out).tolist() == [4, 3, 2, 1, 0]


def test_a_deep_path_swept_upwards_counts_the_vertices_below(target):
    n = 300
    path = Graph.from_edges(np.arange(n - 1), np.arange(1, n), num_vertices=n)
    depth = np.arange(n, dtype=np.int32)
    level = target.to_device(depth)
    out = target.zeros(n, np.int64)
    neighbor_reduce(path, Levels(level, n - 1, 0), carried_out, level, out, out=out, edges="out")
    assert target.to_host(out).tolist() == [(n - 1 - v) % 1000 for v in range(n)]


def test_wide_and_thin_levels_alternating_on_a_grid_of_several_blocks(target):
    """Levels of one vertex (block 0's alone, a block barrier after each) between levels wider
    than a block (the whole grid's): each reads what the one before it wrote."""
    sizes = [1, 300, 1, 300, 97]
    level = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
    first = np.concatenate([[0], np.cumsum(sizes)])
    rng = np.random.default_rng(5)
    src, dst = [], []
    for d in range(len(sizes) - 1):
        below = np.arange(first[d + 1], first[d + 2])
        for v in range(first[d], first[d + 1]):
            heads = rng.choice(below, size=min(3, below.size), replace=False)
            src += [v] * heads.size
            dst += heads.tolist()
    graph = Graph.from_edges(src, dst, num_vertices=int(first[-1]))
    start = np.arange(graph.num_vertices, dtype=np.int64) % 7
    out, lv = target.to_device(start), target.to_device(level)
    neighbor_reduce(graph, Levels(lv, 4, 0), carried_out, lv, out, out=out, edges="out")
    np.testing.assert_array_equal(target.to_host(out),
                                  sequential(graph, level, 4, 0, start, "sum", "out"))


def fused_and_race_checked(target, graph, level, start, levels, fn):
    """``neighbor_reduce`` over ``Levels(level, *levels)`` with ``fn``, as it runs and under the
    race detector (which raises on a race): both results, from ``start``."""
    results = []
    for run in (neighbor_reduce, lambda *a, **k: check_race_free(neighbor_reduce, *a, **k)):
        out, lv = target.to_device(start), target.to_device(level)
        run(graph, Levels(lv, *levels), fn, lv, out, out=out, edges="out")
        results.append(target.to_host(out))
    return results


def test_the_race_detector_sees_no_race_and_the_same_sums(target):
    if not target.checks_races:
        pytest.skip("the race detector runs on the cpu target and in the CUDA simulator")
    graph = generators.from_spec("rmat:5")
    n = graph.num_vertices
    level = np.random.default_rng(3).integers(-1, 6, n).astype(np.int32)
    start = np.arange(n, dtype=np.int64)
    results = fused_and_race_checked(target, graph, level, start, (5, 0), carried_out)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], sequential(graph, level, 5, 0, start, "sum",
                                                         "out"))


@pytest.mark.parametrize("levels, error, message", [
    (lambda t: Levels(t.zeros(3, np.int32), 0, 1), OperatorError, "at least |V| = 5"),
    (lambda t: Levels(t.zeros(5, np.float64), 0, 1), OperatorError, "integer array"),
    (lambda t: Levels(t.zeros(5, np.int32), -1, 1), ValueError, "Levels.first=-1"),
    (lambda t: Levels(t.zeros(5, np.int32), 0, True), TypeError, "Levels.last=True"),
    (lambda t: Levels(t.zeros(5, np.int32), 0, 5), OperatorError, "span 6 levels"),
])
def test_bad_levels_are_refused_before_any_work(target, levels, error, message):
    path = Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4])
    out = target.full(5, 9, np.int64)
    with pytest.raises(error, match=message.replace("|", r"\|")):
        neighbor_reduce(path, levels(target), carried_out, target.zeros(5, np.int32), out,
                        out=out, edges="out")
    assert target.to_host(out).tolist() == [9] * 5


def test_checked_levels_keep_python_ints_and_take_numpy_ones_as_ints():
    path = Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4])
    level = np.zeros(5, np.int32)
    plain = Levels(level, 3, 1)
    assert plain.checked(path, False) is plain  # nothing to convert: no new object per call
    numpy = Levels(level, np.int64(3), np.int32(1)).checked(path, False)
    assert (numpy.first, numpy.last) == (3, 1)
    assert type(numpy.first) is int and type(numpy.last) is int


def test_an_empty_graph_is_a_no_op(target):
    empty = Graph.from_edges([], [], num_vertices=0)
    out = target.zeros(1, np.int64)
    neighbor_reduce(empty, Levels(target.zeros(1, np.int32), 0, 0), carried_out,
                    target.zeros(1, np.int32), out, out=out, edges="out")
    assert target.to_host(out).tolist() == [0]


def test_the_former_or_over_levels_warns_at_the_caller(target):
    path = Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4])
    level = target.to_device(np.arange(5, dtype=np.int32))
    out = target.zeros(5, np.int64)
    with pytest.warns(DeprecationWarning, match="write op='logical_or'") as caught:
        neighbor_reduce(path, Levels(level, 4, 0), carried_out, level, out, out=out, op="or",
                        edges="out")
    assert caught[0].filename == __file__
    assert target.to_host(out).tolist() == [1, 1, 1, 1, 0]


def from_head(src, dst, eid, weight, level, out):
    return out[dst] * 0.5 + 1.0 / (dst + 1.0)


def from_tail(src, dst, eid, weight, level, out):
    return out[src] * 0.5 + 1.0 / (src + 1.0)


@pytest.mark.parametrize("edges", ["out", "in"])
@pytest.mark.parametrize("leaves", [HUB_DEGREE + 1, 3 * CHUNK + 7])
def test_a_hubs_edges_are_summed_in_chunks_over_lanes_on_every_target(target, edges, leaves):
    """Two hubs on one level (their chunks' values in alternating halves), a hub alone, light
    vertices beside them: each hub's sum is its chunks' sums over the lanes and the tree, then
    theirs; light vertices fold in order."""
    n = leaves + 4
    hubs, light = [0, 1, 2], n - 1
    src = [h for h in hubs for _ in range(leaves)] + [light] * 3
    dst = [3 + i for _ in hubs for i in range(leaves)] + [3, 4, 5]
    if edges == "in":
        src, dst = dst, src
    graph = Graph.from_edges(src, dst, num_vertices=n)
    level = np.zeros(n, np.int32)
    level[[0, 1, light]] = 0
    level[2] = 1
    level[3:light] = 2
    start = np.linspace(0.0, 1.0, n)
    out, lv = target.to_device(start), target.to_device(level)
    fn = from_head if edges == "out" else from_tail
    neighbor_reduce(graph, Levels(lv, 2, 0), fn, lv, out, out=out, edges=edges)
    got = target.to_host(out)
    # the leaves (level 2, first) have no such edges: they hold 0 when the hubs read them
    leaf_values = 1.0 / (np.arange(3, 3 + leaves) + 1.0)
    chunks = [lanes_and_tree(leaf_values[i:i + CHUNK]) for i in range(0, leaves, CHUNK)]
    want = lanes_and_tree(np.array(chunks))
    assert got[0] == got[1] == got[2] == want
    assert (got[3:light] == 0).all()
    light_want = 0.0
    for other in (3, 4, 5):
        light_want += 1.0 / (other + 1.0)
    assert got[light] == light_want


def test_hubs_under_the_race_detector_give_the_same_sums(target):
    if not target.checks_races:
        pytest.skip("the race detector runs on the cpu target and in the CUDA simulator")
    leaves = CHUNK + 9
    graph = Graph.from_edges([0] * leaves + [1] * leaves, list(range(2, leaves + 2)) * 2,
                             num_vertices=leaves + 2)
    level = np.full(leaves + 2, 1, np.int32)
    level[:2] = 0
    start = np.linspace(0.0, 1.0, leaves + 2)
    results = fused_and_race_checked(target, graph, level, start, (1, 0), from_head)
    np.testing.assert_array_equal(results[0], results[1])
    assert results[0][0] == results[0][1] != start[0]
