"""operators.loop: a user's round of operator calls run as one persistent kernel equals the host
loop of the same calls round for round (the same frontiers, the same state) on every target and
balancer, a traverse inside the round (over out- or in-edges, culled or not) included; a body
that needs the host is refused naming the step."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse.csgraph as csg
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier import (
    Frontier,
    FrontierOverflowError,
    Graph,
    atomic_add,
    atomic_cas,
    atomic_min,
    generators,
)
from frontier.options import Cull, values
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
    sort_neighbors,
    traverse,
)
from tests.pairs import covering, simulated_rows
from tests.tiers import FIXTURE_TARGETS, TARGETS, examples

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
        # the host loop stopped after all its rounds is the whole host loop
        host = whole if rounds == whole[0] else run(graph, target, balancer, False, rounds)
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


@pytest.mark.parametrize("fused", [True, False])
def test_an_overflowing_traverse_in_the_body_raises_as_the_host_loop_does(target, fused):
    def body(front):
        traverse(GRID, front, everything)
        return filter(GRID, front, never)

    f = Frontier.from_vertices(GRID, [0, 13, 50], capacity=8, target=target)
    with pytest.raises(FrontierOverflowError):
        loop(GRID, f, body, fused=fused)


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


def bounded_traverse(front):
    traverse(GRID, front, everything, max_steps=3)
    return advance(GRID, front, everything)


def traversed_frontier(front):
    return traverse(GRID, front, everything).frontier


def neighbours_sorted(front):
    sort_neighbors(GRID, front, everything, out=np.empty(GRID.num_edges, np.int32))
    return advance(GRID, front, everything)


def culled_two_ways(front):
    traverse(GRID, front, everything, cull="bitmap")
    return advance(GRID, front, everything, cull="hash")


@pytest.mark.parametrize(("body", "says"), [
    (length_on_host, "reads the length of <the loop round's input frontier>"),
    (bounded_traverse, "step 0 (traverse) has max_steps=3"),
    (traversed_frontier, "reads .frontier of a traverse's result"),
    (culled_two_ways, "step 1 (advance) has cull='hash' where an earlier step has "
                      "cull='bitmap'"),
    (neighbours_sorted, "step 0 (sort_neighbors) is not an operator a fused loop runs"),
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


# a traverse in the body ------------------------------------------------------------------------
def note(i, steps, r, walked):
    steps[r] = walked


def searches(graph: Graph, target, balancer: str, edges: str, fused: bool):
    """Round after round, a search (a traverse over ``edges``) from the smallest unlabelled
    vertex labels what it reaches by that vertex; each round's traverse steps noted."""
    n = graph.num_vertices
    label = target.full(n, -1, np.int64)
    target.write_scalar(label, 0, 0)
    steps = target.zeros(n, np.int64)

    def body(front, label, steps):
        walk = traverse(graph, front, spread, label, balancer=balancer, edges=edges)
        compute(graph, 1, note, steps, ROUND, walk.steps)
        first = reduce(graph, "vertices", first_unlabelled, label, op="min")
        return filter(graph, "vertices", claim_first, label, first)

    done = loop(graph, Frontier.from_vertices(graph, [0], target=target), body, label, steps,
                fused=fused)
    return target.to_host(label), target.to_host(steps)[:done.rounds], done.rounds


def searched(graph: Graph, edges: str) -> tuple[np.ndarray, list[int]]:
    """The labels and the levels of each search, sequentially."""
    g = graph.transpose() if edges == "in" else graph
    label = np.full(graph.num_vertices, -1)
    levels = []
    for s in range(graph.num_vertices):
        if label[s] != -1:
            continue
        label[s], level, depth = s, [s], 0
        while level:
            depth += 1
            reached = []
            for v in level:
                for w in g.col_indices[g.row_offsets[v]:g.row_offsets[v + 1]].tolist():
                    if label[w] == -1:
                        label[w] = s
                        reached.append(w)
            level = reached
        levels.append(depth)
    return label, levels


TRAVERSALS = covering(target=TARGETS, balancer=available_balancers(include_auto=True),
                      edges=["out", "in"])


@pytest.mark.parametrize("target, balancer, edges", TRAVERSALS, indirect=["target"])
@settings(max_examples=examples(15))
@given(data=st.data())
def test_a_traverse_in_a_body_equals_the_host_loop_and_a_sequential_search(target, balancer,
                                                                             edges, data):
    graph = data.draw(graphs(min_vertices=1, max_vertices=10 if target.simulated else 30,
                             max_edges=60, directed=True))
    fused = searches(graph, target, balancer, edges, True)
    host = searches(graph, target, balancer, edges, False)
    np.testing.assert_array_equal(fused[0], host[0])
    np.testing.assert_array_equal(fused[1], host[1])
    label, levels = searched(graph, edges)
    np.testing.assert_array_equal(fused[0], label)
    assert fused[1].tolist() == levels and fused[2] == host[2] == len(levels)


def relax(src, dst, eid, weight, dist):
    d = dist[src] + weight
    return atomic_min(dist, dst, d) > d


def never(v):
    return False


FAR = 10**6


#: Every pair of the target fixture's targets, cull and edges in some row.
CULLED_TRAVERSALS = covering(target=FIXTURE_TARGETS, cull=values(Cull), edges=["out", "in"])


@pytest.mark.parametrize("target, cull, edges", CULLED_TRAVERSALS, indirect=["target"])
def test_a_culling_traverse_over_either_edges_equals_the_host_loop_and_scipy(target, cull,
                                                                             edges):
    """Weighted relaxations from two sources (a vertex's distance can drop several times in
    a step: what culling is for), over the arcs leaving or entering the frontier (the
    transpose's weights bound for the step); fused twice on one pool, whose culling stamps
    the first run reserved for the steps it culled."""
    graph = generators.gnm(12 if target.simulated else 40, 60 if target.simulated else 200,
                           seed=5, directed=True, weights=(1, 9))
    sources = [0, 3]
    got = []
    for fused in (True, False, True):
        dist = np.full(graph.num_vertices, FAR, np.int64)
        dist[sources] = 0
        dist = target.to_device(dist)

        def body(front, dist):
            traverse(graph, front, relax, dist, edges=edges, cull=cull)
            return filter(graph, front, never)

        start = Frontier.from_vertices(graph, sources, target=target, shared=True)
        assert loop(graph, start, body, dist, fused=fused).rounds == 1
        got.append(target.to_host(dist))
    np.testing.assert_array_equal(got[0], got[1])
    np.testing.assert_array_equal(got[0], got[2])
    walked = graph.transpose() if edges == "in" else graph
    nearest = csg.shortest_path(walked.to_scipy(), indices=sources).min(axis=0)
    np.testing.assert_array_equal(got[0], np.where(np.isinf(nearest), FAR, nearest))


def test_a_fused_loop_reserves_the_culling_stamps_it_used(target):
    """A culled advance on a clique pushes every vertex once a round; a second fused loop on
    the same pool culls with fresh stamps (reusing the first's would drop every head its
    second round had marked), so every run counts the same arrivals as the host loop."""
    clique = Graph.from_edges(*np.array([(u, v) for u in range(4) for v in range(4) if u != v]).T)

    def body(front, hits):
        heads = advance(clique, front, everything, cull="bitmap")
        compute(clique, heads, arrived, hits)
        return heads

    counts = []
    for fused in (True, True, False):
        hits = target.zeros(4, np.int32)
        start = Frontier.from_vertices(clique, [0], target=target, shared=True)
        loop(clique, start, body, hits, max_rounds=3, fused=fused)
        counts.append(target.to_host(hits).tolist())
    assert counts == [[2, 3, 3, 3]] * 3


def thin_wide_thin(width: int = 40, length: int = 12) -> Graph:
    """A path of ``length`` arcs into a vertex with ``width`` out-arcs, all ``width`` heads into
    one vertex, then another path: a search's frontier is thin, wide, thin again."""
    hub, join = length, length + width + 1
    arcs = [(i, i + 1) for i in range(length)] + [(hub, hub + 1 + j) for j in range(width)]
    arcs += [(hub + 1 + j, join) for j in range(width)]
    arcs += [(join + i, join + i + 1) for i in range(length)]
    return Graph.from_edges(*np.array(arcs).T, num_vertices=join + length + 1)


@pytest.mark.parametrize("edges", ["out", "in"])
def test_a_thread_mapped_traverse_goes_to_one_block_and_back_as_its_frontier_changes(target,
                                                                                      edges):
    """Blocks of 32 threads: the thin levels (at most a block's threads) run in block 0 alone,
    the wide one over the grid, and the searches equal the host loop's and a sequential
    search's (on the cpu target, one thread, there is no such mode). Over in-edges the search
    walks the transpose, whose in-edges from vertex 0 are the thin, wide, thin levels (the
    graph's own would give every vertex a search of its own, none of them wide)."""
    graph = thin_wide_thin() if edges == "out" else thin_wide_thin().transpose()
    fused = searches(graph, target, "thread:32", edges, True)
    host = searches(graph, target, "thread:32", edges, False)
    label, levels = searched(graph, edges)
    for got in (fused, host):
        np.testing.assert_array_equal(got[0], label)
        assert got[1].tolist() == levels


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
