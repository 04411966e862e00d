"""operators.loop: a user's round of operator calls run as one persistent kernel equals the host
loop of the same calls round for round (the same frontiers, the same state) on every target and
balancer; a body that needs the host is refused naming the step."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse.csgraph as csg
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier import Frontier, FrontierOverflowError, Graph, atomic_add, atomic_cas, generators
from frontier.testing.strategies import graphs
from operators import (
    ROUND,
    LoopError,
    advance,
    available_balancers,
    compute,
    filter,
    loop,
    neighbor_reduce,
    recording,
    reduce,
)
from tests.pairs import covering, simulated_rows
from tests.tiers import TARGETS, examples

GRID = generators.grid2d(12, 12)


def visit(src, dst, eid, weight, dist, r):
    return dist[dst] == -1 and atomic_cas(dist, dst, -1, r + 1) == -1


def arrived(v, hits):
    atomic_add(hits, v, 1)


def reached(src, dst, eid, weight, dist):
    return 1 if dist[dst] >= 0 else 0


def keep_odd_rounds(v, dist):
    return dist[v] % 2 == 1 or dist[v] < 8


def everything(src, dst, eid, weight):
    return True


def start(graph: Graph, target, source: int = 0):
    f = Frontier.from_vertices(graph, [source], target=target)
    tgt = f.target
    dist = tgt.full(graph.num_vertices, -1, np.int32)
    tgt.write_scalar(dist, source, 0)
    hits = tgt.zeros(graph.num_vertices, np.int32)
    seen = tgt.zeros(graph.num_vertices, np.int64)
    return f, dist, hits, seen


def every_step_kind(graph: Graph, balancer: str):
    """A round with an advance into a frontier of the body's own, a compute over it, a
    neighbour reduction over the vertices and a filter making the next round's frontier."""

    def body(front, dist, hits, seen):
        reached_now = advance(graph, front, visit, dist, ROUND, balancer=balancer)
        compute(graph, reached_now, arrived, hits)
        neighbor_reduce(graph, "vertices", reached, dist, out=seen, op="sum", edges="out")
        return filter(graph, reached_now, keep_odd_rounds, dist)

    return body


def run(graph: Graph, target, balancer: str, fused: bool, rounds: int | None):
    f, dist, hits, seen = start(graph, target)
    done = loop(graph, f, every_step_kind(graph, balancer), dist, hits, seen,
                max_rounds=rounds, fused=fused)
    tgt = f.target
    return (done.rounds, sorted(done.frontier.to_numpy().tolist()), tgt.to_host(dist),
            tgt.to_host(hits), tgt.to_host(seen))


def check_fused_equals_host(graph: Graph, target, balancer: str) -> None:
    whole = run(graph, target, balancer, False, None)
    for rounds in sorted({1, (whole[0] + 1) // 2, whole[0]} - {0}):
        fused = run(graph, target, balancer, True, rounds)
        host = run(graph, target, balancer, False, rounds)
        assert fused[:2] == host[:2]
        for a, b in zip(fused[2:], host[2:], strict=True):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(run(graph, target, balancer, True, None)[2], whole[2])


#: Every pair of target and balancer; the simulator runs a GPU thread per Python thread, so its
#: rows take tiny graphs and two examples.
EVERY_PAIR = covering(target=TARGETS, balancer=available_balancers(include_auto=True))


@pytest.mark.parametrize("target, balancer", simulated_rows(EVERY_PAIR, False),
                         indirect=["target"])
@settings(max_examples=examples(30))
@given(graph=graphs(min_vertices=1, max_vertices=30, max_edges=90))
def test_a_fused_loop_equals_the_host_loop_round_for_round(target, balancer, graph):
    check_fused_equals_host(graph, target, balancer)


@pytest.mark.parametrize("target, balancer", simulated_rows(EVERY_PAIR, True),
                         indirect=["target"])
@settings(max_examples=2)
@given(graph=graphs(min_vertices=1, max_vertices=12, max_edges=30))
def test_a_fused_loop_equals_the_host_loop_in_the_simulator(target, balancer, graph):
    check_fused_equals_host(graph, target, balancer)


def test_a_bfs_written_with_loop_is_one_launch_and_equals_scipy(target):
    f, dist, _, _ = start(GRID, target)
    with recording() as log:
        done = loop(GRID, f, lambda front, d: advance(GRID, front, visit, d, ROUND), dist)
    want = csg.shortest_path(GRID.to_scipy(), unweighted=True, indices=0).astype(np.int64)
    np.testing.assert_array_equal(f.target.to_host(dist), want)
    assert done.rounds == int(want.max()) + 1 and len(done.frontier) == 0
    assert len(list(log)) == 1


def test_max_rounds_stops_the_loop_on_the_frontier_of_the_next_round(target):
    f, dist, _, _ = start(GRID, target)
    done = loop(GRID, f, lambda front, d: advance(GRID, front, visit, d, ROUND), dist,
                max_rounds=3)
    assert done.rounds == 3
    assert sorted(done.frontier.to_numpy().tolist()) == sorted(
        np.flatnonzero(f.target.to_host(dist) == 3).tolist())


@pytest.mark.parametrize("fused", [True, False])
def test_an_overflowing_queue_raises_as_the_host_loop_does(target, fused):
    f = Frontier.from_vertices(GRID, [0, 13, 50], capacity=8, target=target)
    with pytest.raises(FrontierOverflowError):
        loop(GRID, f, lambda front: advance(GRID, front, everything), max_rounds=5,
             fused=fused)


def test_an_empty_frontier_runs_no_round(target):
    f, dist, _, _ = start(GRID, target)
    empty = Frontier.from_vertices(GRID, [], target=target)
    done = loop(GRID, empty, lambda front, d: advance(GRID, front, visit, d, ROUND), dist)
    assert done.rounds == 0


def length_on_host(front):
    if len(front) > 3:
        return front
    return advance(GRID, front, everything)


def one(v):
    return 1


def reduced_on_host(front):
    if reduce(GRID, front, one, op="min") > 3:
        return front
    return advance(GRID, front, everything)


def pulled(front):
    return advance(GRID, front, everything, direction="pull")


def same_frontier(front):
    return front


@pytest.mark.parametrize(("body", "says"), [
    (length_on_host, "reads the length of <the loop round's input frontier>"),
    (reduced_on_host, "reads a reduce's value on the host"),
    (pulled, "step 0 (advance) has direction='pull'"),
    (same_frontier, "expected the next round's frontier"),
])
def test_a_body_that_needs_the_host_is_refused_naming_the_step(body, says):
    f = Frontier.from_vertices(GRID, [0], target="cpu")
    with pytest.raises(LoopError, match=says.replace("(", r"\(").replace(")", r"\)")):
        loop(GRID, f, body)


def test_the_host_loop_runs_a_body_that_reads_the_host():
    f = Frontier.from_vertices(GRID, [0], target="cpu")
    dist = np.full(GRID.num_vertices, -1, np.int32)
    dist[0] = 0
    lengths = []

    def body(front, d):
        lengths.append(len(front))
        return advance(GRID, front, visit, d, ROUND)

    done = loop(GRID, f, body, dist, fused=False)
    assert lengths[0] == 1 and len(lengths) == done.rounds == 23


@given(st.integers(0, 3))
def test_round_is_the_round_number_in_every_functor(first):
    g = generators.path(6)
    f = Frontier.from_vertices(g, [first], target="cpu")
    dist = np.full(6, -1, np.int32)
    dist[first] = 0
    loop(g, f, lambda front, d: advance(g, front, visit, d, ROUND), dist)
    assert dist[first:].tolist() == list(range(6 - first))


UNLABELLED = 2**31 - 1


def first_unlabelled(v, label):
    return v if label[v] == -1 else UNLABELLED


def claim_first(v, label, first):
    if v == first:
        label[v] = v
        return True
    return False


def spread(src, dst, eid, weight, label):
    return label[dst] == -1 and atomic_cas(label, dst, -1, label[src]) == -1


def components_by_search(graph: Graph, target, fused: bool):
    """Each vertex labelled by the smallest vertex of its component: a search from the
    smallest unlabelled vertex (a refill: a reduce's value passed to a filter over the
    vertices), run until no vertex is left."""
    label = target.full(graph.num_vertices, -1, np.int64)

    def refill(label):
        first = reduce(graph, "vertices", first_unlabelled, label, op="min")
        return filter(graph, "vertices", claim_first, label, first)

    empty = Frontier.from_vertices(graph, [], target=target)
    done = loop(graph, empty, lambda front, label: advance(graph, front, spread, label), label,
                refill=refill, fused=fused)
    return target.to_host(label), done


@settings(max_examples=examples(30))
@given(data=st.data())
def test_a_refill_restarts_the_loop_from_a_reduced_value_as_the_host_loop_does(target, data):
    graph = data.draw(graphs(max_vertices=12 if target.simulated else 30, max_edges=60,
                             directed=False))
    fused, ran = components_by_search(graph, target, True)
    host, host_ran = components_by_search(graph, target, False)
    np.testing.assert_array_equal(fused, host)
    assert (ran.rounds, ran.refills) == (host_ran.rounds, host_ran.refills)
    count, parts = csg.connected_components(graph.to_scipy(pattern=True), directed=False)
    smallest = np.full(count, graph.num_vertices)
    np.minimum.at(smallest, parts, np.arange(graph.num_vertices))
    np.testing.assert_array_equal(fused, smallest[parts])
    assert ran.refills == count + 1


def test_a_fused_integer_sum_is_refused_for_the_host_loop():
    f = Frontier.from_vertices(GRID, [0], target="cpu")

    def body(front):
        reduce(GRID, front, one)
        return advance(GRID, front, everything)

    with pytest.raises(LoopError, match="op='sum'.*fused=False"):
        loop(GRID, f, body)


def mark_one(v, out):
    out[v] = 1


def mark_two(v, out):
    out[v] = 2


def one_more(v, before, after):
    after[v] = before[v] + 1


def marking(graph: Graph, fn, *arrays):
    """A BFS round that also calls ``fn`` on its frontier with ``arrays``."""

    def body(front, dist):
        compute(graph, front, fn, *arrays)
        return advance(graph, front, visit, dist, ROUND)

    return body


def test_fused_loops_that_differ_in_a_functor_or_their_state_never_share_a_kernel(target):
    """A fused loop's kernel is kept for the next loop of the same steps: one with another
    functor, or whose steps share state arrays another way, gets a kernel of its own."""
    graph = generators.path(6)
    runs = {}
    for name, fn, shared in (("one", mark_one, False), ("two", mark_two, False),
                             ("apart", one_more, False), ("same", one_more, True)):
        f, dist, _, _ = start(graph, target)
        tgt = f.target
        a, b = tgt.zeros(6, np.int32), tgt.zeros(6, np.int32)
        arrays = (a,) if fn is not one_more else ((a, a) if shared else (a, b))
        for _ in range(2):  # the second run takes the kept kernel
            f, dist, _, _ = start(graph, target)
            with recording() as log:
                loop(graph, f, marking(graph, fn, *arrays), dist)
        runs[name] = (list(log)[-1].source, tgt.to_host(a), tgt.to_host(b))
    np.testing.assert_array_equal(runs["one"][1], [1] * 6)
    np.testing.assert_array_equal(runs["two"][1], [2] * 6)
    np.testing.assert_array_equal(runs["apart"][1:], [[0] * 6, [1] * 6])
    np.testing.assert_array_equal(runs["same"][1:], [[2] * 6, [0] * 6])  # twice into a
    assert len({source for source, _, _ in runs.values()}) == 4


def test_fused_loops_of_several_threads_each_run_their_own_steps():
    graph = generators.path(6)
    got: dict[int, np.ndarray] = {}

    def run_one(k: int) -> None:
        fn = (mark_one, mark_two)[k % 2]
        for _ in range(20):
            f, dist, _, _ = start(graph, "cpu")
            out = np.zeros(6, np.int32)
            loop(graph, f, marking(graph, fn, out), dist)
            got.setdefault(k, out)
            np.testing.assert_array_equal(out, got[k])

    threads = [threading.Thread(target=run_one, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {k: v.tolist() for k, v in got.items()} == {
        k: [1 + k % 2] * 6 for k in range(4)}
