"""advance / filter / compute semantics, frontier conversions and the buffer ring, per target."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier import Frontier, Graph, StaleFrontierError, atomic_add, atomic_claim
from frontier.frontier import FrontierError
from frontier.testing import assert_same_set, graphs
from operators import (
    BalancerError,
    FunctorError,
    OperatorError,
    advance,
    compute,
    explain,
    filter,
)


def count_and_accept_even(src, dst, eid, weight, calls):
    atomic_add(calls, eid, 1)
    return dst % 2 == 0


def record_weight(src, dst, eid, weight, seen):
    seen[eid] = weight
    return True


def accept_all(src, dst, eid, weight):
    return True


def is_odd(v):
    return v % 2 == 1


def keep(v):
    return True


def add_one(i, out):
    atomic_add(out, i, 1)


def claim_unless_multiple_of_three(i, counter, slots):
    if i % 3 != 0:
        slots[i] = atomic_claim(counter, 1)


def small_graph():
    return Graph.from_edges([0, 0, 1, 1, 2, 3, 3, 3], [1, 2, 2, 3, 0, 3, 4, 4], num_vertices=6)


def expected_advance(graph, sources, accept):
    offs, cols = graph.row_offsets, graph.col_indices
    return [int(cols[e]) for s in sources for e in range(offs[s], offs[s + 1])
            if accept(int(cols[e]))]


@given(graphs(max_vertices=24, max_edges=80), st.data())
def test_advance_calls_functor_once_per_frontier_edge_and_pushes_accepted(target, graph, data):
    if graph.num_vertices == 0:
        return
    sources = data.draw(st.lists(st.integers(0, graph.num_vertices - 1), max_size=8))
    for kind in ("sparse", "dense"):
        capacity = max(len(sources), 1) * max(graph.num_edges, 1)
        f = Frontier.from_vertices(graph, sources, kind=kind, target=target, capacity=capacity)
        active = sources if kind == "sparse" else sorted(set(sources))
        calls = target.zeros(max(graph.num_edges, 1), np.int32)
        out = advance(graph, f, count_and_accept_even, calls)
        want_calls = np.zeros(max(graph.num_edges, 1), np.int32)
        for s in active:
            want_calls[graph.row_offsets[s]:graph.row_offsets[s + 1]] += 1
        np.testing.assert_array_equal(target.to_host(calls), want_calls)
        assert_same_set(out.to_numpy(), expected_advance(graph, active, lambda d: d % 2 == 0))


def test_advance_dense_output_holds_each_accepted_vertex_once(target):
    g = small_graph()
    f = Frontier.from_vertices(g, [0, 1, 3], target=target)
    out = advance(g, f, accept_all, output="dense")
    assert out.kind == "dense"
    assert list(out.to_numpy()) == [1, 2, 3, 4]
    assert len(out) == 4


def test_advance_with_output_none_runs_side_effects_only(target):
    g = small_graph()
    f = Frontier.from_vertices(g, [3], target=target)
    calls = target.zeros(g.num_edges, np.int32)
    assert advance(g, f, count_and_accept_even, calls, output="none") is None
    assert target.to_host(calls).sum() == 3


def test_advance_passes_edge_weights_and_one_when_unweighted(target):
    g = Graph.from_edges([0, 0, 1], [1, 2, 2], weights=[7, 8, 9])
    seen = target.zeros(3, np.int64)
    advance(g, Frontier.from_vertices(g, [0, 1], target=target), record_weight, seen)
    assert list(target.to_host(seen)) == [7, 8, 9]
    u = Graph.from_edges([0, 0, 1], [1, 2, 2])
    seen = target.zeros(3, np.int64)
    advance(u, Frontier.from_vertices(u, [0, 1], target=target), record_weight, seen)
    assert list(target.to_host(seen)) == [1, 1, 1]


def test_empty_frontier_advances_to_empty_frontier(target):
    g = small_graph()
    out = advance(g, Frontier.from_vertices(g, [], target=target), accept_all)
    assert out.is_empty() and len(out.to_numpy()) == 0


def test_filter_keeps_accepted_and_unique_drops_repeats(target):
    g = small_graph()
    f = Frontier.from_vertices(g, [1, 3, 3, 2, 5, 1], target=target)
    kept = filter(g, f, is_odd)
    assert sorted(kept.to_numpy()) == [1, 1, 3, 3, 5]
    f = Frontier.from_vertices(g, [1, 3, 3, 2, 5, 1], target=target)
    assert sorted(filter(g, f, is_odd, unique=True).to_numpy()) == [1, 3, 5]


def test_conversions_round_trip_between_sparse_and_dense(target):
    g = small_graph()
    f = Frontier.from_vertices(g, [4, 0, 4, 2], target=target)
    dense = f.to_dense()
    assert dense.kind == "dense" and list(dense.to_numpy()) == [0, 2, 4] and len(dense) == 3
    back = dense.to_sparse()
    assert back.kind == "sparse" and sorted(back.to_numpy()) == [0, 2, 4]


def test_compute_runs_once_per_element_of_frontier_vertices_edges_and_range(target):
    g = small_graph()
    out = target.zeros(g.num_edges, np.int32)
    compute(g, "edges", add_one, out, target=target)
    assert list(target.to_host(out)) == [1] * g.num_edges
    out = target.zeros(g.num_vertices, np.int32)
    compute(g, "vertices", add_one, out, target=target)
    compute(g, 3, add_one, out, target=target)
    compute(g, Frontier.from_vertices(g, [5, 5], target=target), add_one, out)
    compute(g, Frontier.from_vertices(g, [4, 4], kind="dense", target=target), add_one, out)
    assert list(target.to_host(out)) == [2, 2, 2, 1, 2, 3]


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_atomic_claim_gives_every_caller_a_slot_of_its_own(target, dtype):
    n = 300  # several warps, each with some lanes not claiming
    counter = target.to_device(np.array([7, 5], dtype))
    slots = target.full(n, -1, np.int64)
    compute(None, n, claim_unless_multiple_of_three, counter, slots, target=target)
    claimers = [i for i in range(n) if i % 3 != 0]
    got = target.to_host(slots)
    assert sorted(got[claimers]) == list(range(5, 5 + len(claimers)))
    assert (got[::3] == -1).all()
    assert list(target.to_host(counter)) == [7, 5 + len(claimers)]


def test_chained_operators_reuse_three_buffers_and_mark_old_frontiers_stale(target):
    g = Graph.from_edges(np.arange(9), np.arange(1, 10))
    f0 = Frontier.from_vertices(g, [0], target=target)
    f, buffers = f0, set()
    for step in range(9):
        f = advance(g, f, accept_all)
        buffers.add(id(f.device_ids()))
        assert list(f.to_numpy()) == [step + 1]
    assert len(buffers) == 3
    with pytest.raises(StaleFrontierError):
        len(f0)


def test_advancing_an_older_frontier_again_gives_a_correct_result(target):
    g = small_graph()
    f0 = Frontier.from_vertices(g, [0], target=target)
    f1 = advance(g, f0, accept_all)
    again = advance(g, f0, accept_all, output="dense")
    assert list(again.to_numpy()) == [1, 2]
    with pytest.raises(StaleFrontierError):
        f1.to_numpy()
    assert sorted(advance(g, again, accept_all).to_numpy()) == [0, 2, 3]


def test_explain_shows_the_generated_kernel_source(target):
    g = small_graph()
    f = Frontier.from_vertices(g, [0], target=target)
    src = explain(advance, g, f, accept_all)
    assert "def advance_thread_vertices_sparse_to_sparse__accept_all(" in src
    # a thread of the parallel cpu target pushes into a buffer of its own, added at once
    push = "flush_pushes(" if getattr(f.target, "parallel", False) else "atomic_claim(lens,"
    assert "functor(src, dst, e, 1)" in src and push in src
    assert "def filter_" in explain(filter, g, f, keep, unique=True)
    assert "def compute_" in explain(compute, g, "vertices", keep, target=target)


def test_bad_arguments_raise_clear_errors(target):
    g, other = small_graph(), small_graph()
    f = Frontier.from_vertices(g, [0], target=target)
    with pytest.raises(OperatorError, match="another graph"):
        advance(other, f, accept_all)
    with pytest.raises(OperatorError, match="output="):
        advance(g, f, accept_all, output="list")
    with pytest.raises(BalancerError, match="unknown balancer"):
        advance(g, f, accept_all, balancer="magic")
    with pytest.raises(FrontierError, match="out of range"):
        Frontier.from_vertices(g, [6], target=target)
    with pytest.raises(OperatorError, match="compute over"):
        compute(g, "faces", keep, target=target)
    with pytest.raises(FunctorError, match="not a plain Python function"):
        advance(g, f, 42)


def not_compilable(src, dst, eid, weight):
    return {"a": object()}


def test_functor_that_numba_cannot_compile_raises_functor_error_with_source(target):
    g = small_graph()
    f = Frontier.from_vertices(g, [0], target=target)
    if target.simulated:
        pytest.skip("the simulator runs functors as Python and never compiles them")
    with pytest.raises(FunctorError, match="failed to compile"):
        advance(g, f, not_compilable)


def test_advance_beyond_capacity_raises_overflow_instead_of_writing_past_the_buffer(target):
    from frontier import FrontierOverflowError

    g = Graph.from_edges([0, 0, 0], [1, 2, 3])
    f = Frontier.from_vertices(g, [0, 0, 0], target=target)
    out = advance(g, f, accept_all)
    with pytest.raises(FrontierOverflowError, match="capacity"):
        len(out)
    big = Frontier.from_vertices(g, [0, 0, 0], target=target, capacity=9)
    assert sorted(advance(g, big, accept_all).to_numpy()) == [1, 1, 1, 2, 2, 2, 3, 3, 3]


def claim_first(src, dst, eid, weight, parent, calls):
    atomic_add(calls, dst, 1)
    parent[dst] = src
    return True


def unclaimed_below_five(v, parent, calls):
    return v < 5 and parent[v] == -1


@given(graphs(max_vertices=24, max_edges=80), st.data())
def test_pull_advance_accepts_one_frontier_in_neighbour_per_candidate(target, graph, data):
    if graph.num_vertices == 0:
        return
    sources = data.draw(st.lists(st.integers(0, graph.num_vertices - 1), max_size=8))
    f = Frontier.from_vertices(graph, sources, kind="dense", target=target)
    parent = target.full(graph.num_vertices, -1, np.int32)
    calls = target.zeros(graph.num_vertices, np.int32)
    out = advance(graph, f, claim_first, parent, calls, direction="pull",
                  condition=unclaimed_below_five)
    active = set(sources)
    coo = graph.coo()
    reachable = {int(d) for s, d in zip(coo.src, coo.dst, strict=True) if s in active and d < 5}
    assert_same_set(out.to_numpy(), sorted(reachable))
    parent, calls = target.to_host(parent), target.to_host(calls)
    for v in range(graph.num_vertices):
        assert calls[v] == (1 if v in reachable else 0)
        if v in reachable:
            assert parent[v] in active and ((coo.src == parent[v]) & (coo.dst == v)).any()


def test_pull_from_a_queue_converts_it_and_an_unknown_direction_is_refused(target):
    g = small_graph()
    f = Frontier.from_vertices(g, [0], target=target)
    out = advance(g, f, accept_all, direction="pull")
    assert out.kind == "dense" and list(out.to_numpy()) == [1, 2]
    with pytest.raises(ValueError, match="direction="):
        advance(g, Frontier.from_vertices(g, [0], target=target), accept_all, direction="up")


def mark_unseen(src, dst, eid, weight, seen):
    return atomic_add(seen, dst, 1) == 0


@pytest.mark.parametrize("balancer", ["thread", "two_phase"], ids=["fused", "host-loop"])
def test_traverse_stops_when_empty_after_max_steps_or_once_the_frontier_outgrows_a_bound(
        target, balancer):
    from frontier import generators
    from operators import traverse

    star = generators.star(40)  # hub 0, leaves 1..39
    for bound, steps, size in ((None, 2, 0), (10, 1, 39), (39, 2, 0)):
        seen = target.zeros(star.num_vertices, np.int32)
        target.write_scalar(seen, 0, 1)
        run = traverse(star, Frontier.from_vertices(star, [0], target=target), mark_unseen, seen,
                       stop_above=bound, balancer=balancer)
        assert (run.steps, len(run.frontier)) == (steps, size)
    path = generators.path(10)
    seen = target.zeros(10, np.int32)
    target.write_scalar(seen, 0, 1)
    run = traverse(path, Frontier.from_vertices(path, [0], target=target), mark_unseen, seen,
                   max_steps=4, balancer=balancer)
    assert run.steps == 4 and list(run.frontier.to_numpy()) == [4]
