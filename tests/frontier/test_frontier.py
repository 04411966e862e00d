"""The frontier layer: kernel compilation, the ring protocol, edge frontiers, the frontier's own
device kernels (fill, conversions, copy, union) and the lifetime rule."""

from __future__ import annotations

import linecache
import sys
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier import GraphTooLargeError, generators, ring
from frontier import frontier as frontier_module
from frontier.frontier import (
    Frontier,
    FrontierError,
    FrontierOverflowError,
    StaleFrontierError,
)
from frontier.graph import Graph
from frontier.runtime.cuda_support import cuda_usable
from frontier.target import resolve_target
from operators import advance, compute, filter, traverse

KINDS = ("sparse", "dense")
DOMAINS = ("vertices", "edges")


def small_graph() -> Graph:
    """Eight vertices, thirteen edges (edge ids 0..12)."""
    src = np.array([0, 0, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7])
    dst = np.array([1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 0, 1, 6])
    return Graph.from_edges(src, dst, num_vertices=8)


# Target.compile_source --------------------------------------------------------------------------
def test_compile_source_registers_the_text_for_tracebacks(target):
    text = "def add_one(xs):\n" + "    " + target.prologue.replace("\n", "\n    ") + (
        "for i in range(tid, xs.shape[0], nthreads):\n        xs[i] += one\n")
    kernel = target.compile_source("add_one", text, {"one": 1})
    filename = "<frontier-generated add_one>"
    first = linecache.getline(filename, 1)  # the text compiled: a target may add parameters
    assert first.startswith("def add_one(") and first.endswith("xs):\n")
    assert any("xs[i] += one" in line for line in linecache.getlines(filename))
    xs = target.to_device(np.arange(5, dtype=np.int64))
    target.launch(kernel, 1, 8, (xs,))
    np.testing.assert_array_equal(target.to_host(xs), np.arange(1, 6))


def test_compile_source_does_not_change_the_callers_namespace(target):
    namespace = {"one": 1}
    target.compile_source("noop", "def noop(xs):\n    pass\n", namespace)
    assert namespace == {"one": 1}


# FrontierPool.ring_arguments ---------------------------------------------------------------------
def test_results_are_fresh_host_arrays_where_the_target_hands_them_over(target):
    graph = generators.path(5)
    pool = Frontier.from_vertices(graph, [0], target=target, shared=True).pool
    whole, first, second = pool.results("test.results", 5, 2, np.int32)
    target.fill(whole, 7)
    mine = target.hand_over(whole)
    np.testing.assert_array_equal(mine, np.full(10, 7, np.int32))
    again = pool.results("test.results", 5, 2, np.int32)[0]
    if target.host_arrays:  # the array itself, and the next call's buffer is another one
        assert mine is whole and not np.shares_memory(again, whole)
        assert np.shares_memory(first, whole) and np.shares_memory(second, whole)
    else:  # a host copy of the pool's reused scratch
        assert isinstance(mine, np.ndarray) and again is whole


def test_ring_arguments_are_what_an_operator_launch_passes(target):
    graph = small_graph()
    f = Frontier.from_vertices(graph, [1, 3], kind="dense", target=target)
    pool = f.pool
    step = pool.begin_step(f.slot, "sparse")
    args = pool.ring_arguments(f, step, "sparse")
    assert tuple(args) == ring.RING_PARAMS
    expected = (graph.num_vertices, pool.placeholder_ids, pool.words(f.slot), pool.lengths,
                step.in_slot, step.out_slot, step.clear_slot, pool.ids(step.out_slot),
                pool.placeholder, step.clear_words, step.clear_num_words)
    for name, got, want in zip(ring.RING_PARAMS, args.values(), expected, strict=True):
        assert got is want or (isinstance(want, int) and got == want), name


def test_a_kernel_written_from_the_ring_snippets_is_a_ring_step(target):
    graph = small_graph()
    f = Frontier.from_vertices(graph, [5, 1, 5, 7], target=target)
    body = (ring.clear_next_slot()
            + "for i in range(tid, lens[in_slot], nthreads):\n    v = in_ids[i]\n"
            + "    " + ring.push("dense", "v").replace("\n", "\n    "))
    text = (f"def to_bits({', '.join(ring.RING_PARAMS)}):\n"
            + "".join(f"    {line}\n" for line in (target.prologue + body).splitlines()))
    kernel = target.compile_source("to_bits", text, ring.namespace())
    pool = f.pool
    step = pool.begin_step(f.slot, "dense")
    target.launch(kernel, 1, 8, tuple(pool.ring_arguments(f, step, "dense").values()))
    out = Frontier(pool, step.out_slot, "dense", pool.end_step(step, "dense"))
    assert out.to_numpy().tolist() == [1, 5, 7]
    assert len(out) == 3


def test_ring_arguments_refuse_a_frontier_of_another_pool(target):
    graph = small_graph()
    f = Frontier.from_vertices(graph, [1], target=target)
    g = Frontier.from_vertices(graph, [2], target=target)
    step = g.pool.begin_step(g.slot, "sparse")
    with pytest.raises(ValueError, match="another pool"):
        g.pool.ring_arguments(f, step, "sparse")


def build(graph: Graph, domain: str, ids, kind: str, target, capacity=None) -> Frontier:
    make = Frontier.from_vertices if domain == "vertices" else Frontier.from_edges
    return make(graph, ids, kind=kind, target=target, capacity=capacity)


def as_set(frontier: Frontier) -> list[int]:
    return sorted(set(frontier.to_numpy().tolist()))


def accept_all(src, dst, eid, weight):
    return True


def keep(v):
    return True


def touch(v, out):
    out[v] = 1


# edge frontiers and full frontiers -------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("n", [1, 31, 32, 33, 70])
def test_all_vertices_holds_every_vertex_with_the_last_word_masked(target, kind, n):
    graph = Graph.from_edges([0], [0], num_vertices=n)
    f = Frontier.all_vertices(graph, kind=kind, target=target)
    assert (f.kind, f.domain, f.universe, len(f)) == (kind, "vertices", n, n)
    assert f.to_numpy().tolist() == list(range(n))
    if kind == "dense":
        words = target.to_host(f.device_words())
        assert words.size == (n + 31) // 32
        assert int(words[-1]).bit_count() == n - 32 * (words.size - 1)


@pytest.mark.parametrize("kind", KINDS)
def test_all_edges_holds_every_csr_edge_id(target, kind):
    graph = small_graph()
    f = Frontier.all_edges(graph, kind=kind, target=target)
    assert (f.domain, f.universe, len(f)) == ("edges", 13, 13)
    assert f.to_numpy().tolist() == list(range(13))


@pytest.mark.parametrize("kind", KINDS)
def test_full_frontiers_of_a_graph_without_edges_are_empty_edge_frontiers(target, kind):
    graph = Graph.from_edges([], [], num_vertices=3)
    assert len(Frontier.all_edges(graph, kind=kind, target=target)) == 0
    assert len(Frontier.all_vertices(graph, kind=kind, target=target)) == 3


def test_all_vertices_is_a_device_fill_without_host_unique(monkeypatch):
    graph = generators.grid2d(2000, 2000)
    Frontier.all_vertices(graph, target="cpu")

    def no_host_unique(*args, **kwargs):
        raise AssertionError("all_vertices called np.unique")

    monkeypatch.setattr(np, "unique", no_host_unique)
    start = time.perf_counter()
    f = Frontier.all_vertices(graph, target="cpu")
    assert time.perf_counter() - start < 0.3
    assert len(f) == 4_000_000


@pytest.mark.parametrize("kind", KINDS)
def test_edge_frontier_holds_edge_ids_in_a_bitmap_sized_by_the_edge_count(target, kind):
    graph = Graph.from_edges(np.zeros(40, int), np.arange(40) % 3, num_vertices=3)
    f = Frontier.from_edges(graph, [39, 0, 35, 35], kind=kind, target=target)
    assert f.domain == "edges" and f.universe == 40
    expected = [39, 0, 35, 35] if kind == "sparse" else [0, 35, 39]
    assert f.to_numpy().tolist() == expected
    assert f.pool.num_words == 2
    assert "edges" in repr(f) and kind in repr(f)


def test_from_edges_checks_ids_against_the_edge_count(target):
    graph = small_graph()
    with pytest.raises(FrontierError, match=r"edge 13 is out of range; expected 0 <= id < 13"):
        Frontier.from_edges(graph, [13], target=target)
    with pytest.raises(FrontierError, match="vertex 8 is out of range"):
        Frontier.from_vertices(graph, [8], target=target)
    with pytest.raises(FrontierError, match="frontier kind 'bitmap'"):
        Frontier.all_edges(graph, kind="bitmap", target=target)


# conversions -----------------------------------------------------------------------------------
@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("source_kind", KINDS)
@pytest.mark.parametrize("ids", [[], [3], [7, 2, 7, 0, 12, 2]])
def test_conversions_keep_the_elements_and_dense_collapses_repeats(target, domain, source_kind,
                                                                    ids):
    graph = small_graph()
    ids = [i for i in ids if i < (8 if domain == "vertices" else 13)]
    f = build(graph, domain, ids, source_kind, target)
    dense = f.to_dense()
    assert (dense.kind, dense.domain) == ("dense", domain)
    assert dense.to_numpy().tolist() == sorted(set(ids)) and len(dense) == len(set(ids))
    sparse = f.to_sparse()
    assert (sparse.kind, sparse.domain) == ("sparse", domain)
    if source_kind == "sparse":
        assert sparse.to_numpy().tolist() == ids          # a queue copied keeps its order
    else:
        assert sorted(sparse.to_numpy().tolist()) == sorted(set(ids))


def test_to_sparse_beyond_the_capacity_raises_overflow(target):
    graph = small_graph()
    low = Frontier.from_vertices(graph, range(5), kind="dense", target=target, capacity=5)
    high = Frontier.from_vertices(graph, [5, 6, 7], kind="dense", target=target)
    every = low.union(high)
    assert len(every) == 8
    with pytest.raises(FrontierOverflowError):
        len(every.to_sparse())


def test_a_capacity_beyond_memory_is_refused_before_anything_is_allocated(target, monkeypatch):
    monkeypatch.setenv("FRONTIER_MAX_HOST_BYTES", str(1 << 20))
    monkeypatch.setenv("FRONTIER_MAX_DEVICE_BYTES", str(1 << 20))
    with pytest.raises(GraphTooLargeError, match="capacity 10,000,000"):
        Frontier.from_vertices(small_graph(), [1], target=target, capacity=10**7)
    with pytest.raises(GraphTooLargeError):
        Frontier.from_vertices(small_graph(), [1], target=target, capacity=10**30)
    assert len(Frontier.from_vertices(small_graph(), [1], target=target, capacity=10**4)) == 1


# copy ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ids", [[], [5, 1, 5, 6]])
def test_copy_is_an_equal_frontier_in_a_new_pool(target, domain, kind, ids):
    f = build(small_graph(), domain, ids, kind, target, capacity=20)
    c = f.copy()
    assert c.pool is not f.pool
    assert (c.kind, c.domain, c.graph, c.target, c.pool.capacity) == (
        kind, domain, f.graph, f.target, 20)
    assert c.to_numpy().tolist() == f.to_numpy().tolist()


def test_copy_survives_any_number_of_operator_calls_on_the_original_pool(target):
    graph = small_graph()
    f = Frontier.from_vertices(graph, [0, 3], target=target)
    kept = f.copy()
    x = f
    for _ in range(5):
        x = advance(graph, x, accept_all)
        x = filter(graph, x, keep, unique=True)
    assert not f.is_current()
    assert kept.to_numpy().tolist() == [0, 3]
    assert as_set(advance(graph, kept, accept_all)) == [1, 2, 4, 5]


# union -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("kinds", [(a, b) for a in KINDS for b in KINDS])
def test_union_holds_self_then_other_in_selfs_kind(target, domain, kinds):
    graph = small_graph()
    a = build(graph, domain, [6, 1, 6], kinds[0], target)
    b = build(graph, domain, [2, 6, 0], kinds[1], target)
    u = a.union(b)
    assert (u.kind, u.domain, u.pool) == (kinds[0], domain, a.pool)
    if kinds == ("sparse", "sparse"):
        assert u.to_numpy().tolist() == [6, 1, 6, 2, 6, 0]
    elif kinds == ("sparse", "dense"):
        got = u.to_numpy().tolist()
        assert got[:3] == [6, 1, 6] and sorted(got[3:]) == [0, 2, 6]
    else:
        assert u.to_numpy().tolist() == [0, 1, 2, 6]


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("other_kind", KINDS)
def test_union_unique_drops_every_repeat_of_a_sparse_result(target, domain, other_kind):
    graph = small_graph()
    a = build(graph, domain, [6, 1, 6], "sparse", target)
    b = build(graph, domain, [2, 6, 0, 2], other_kind, target)
    got = a.union(b, unique=True).to_numpy().tolist()
    assert sorted(got[:2]) == [1, 6] and sorted(got[2:]) == [0, 2]


@pytest.mark.parametrize("kinds", [(a, b) for a in KINDS for b in KINDS])
def test_union_with_empty_frontiers(target, kinds):
    graph = small_graph()
    empty = Frontier.from_vertices(graph, [], kind=kinds[0], target=target)
    full = Frontier.from_vertices(graph, [4, 3], kind=kinds[1], target=target)
    assert as_set(empty.union(full)) == [3, 4]
    empty2 = Frontier.from_vertices(graph, [], kind=kinds[1], target=target)
    assert len(empty.union(empty2, unique=True)) == 0


def test_union_is_one_ring_step_on_selfs_pool(target):
    graph = small_graph()
    f = Frontier.from_vertices(graph, [0], target=target)
    g = Frontier.from_vertices(graph, [7], target=target)
    u = f.union(g)
    assert f.is_current() and g.is_current()
    u.to_dense()
    assert not f.is_current() and g.is_current() and u.is_current()


def test_union_with_another_slot_of_the_same_pool_reads_it_before_the_step_reuses_it(target):
    graph = small_graph()
    x0 = Frontier.from_vertices(graph, [0], target=target)
    x1 = advance(graph, x0, accept_all)              # slot 1: the slot x0.union writes
    assert x0.union(x1).to_numpy().tolist() == [0, 1, 2]
    y0 = Frontier.from_vertices(graph, [3], target=target)
    y1 = advance(graph, y0, accept_all)              # slot 1
    y2 = advance(graph, y1, accept_all)              # slot 2: the slot y1.union clears
    assert sorted(y1.union(y2).to_numpy().tolist()) == [4, 5, 6, 6, 7]
    assert x0.union(x0).to_numpy().tolist() == [0, 0]


@given(a=st.lists(st.integers(0, 12), max_size=12), b=st.lists(st.integers(0, 12), max_size=12),
       kinds=st.tuples(st.sampled_from(KINDS), st.sampled_from(KINDS)), unique=st.booleans())
def test_union_matches_a_host_reference(target, a, b, kinds, unique):
    graph = small_graph()
    fa = build(graph, "edges", a, kinds[0], target, capacity=len(a) + len(b) + 1)
    fb = build(graph, "edges", b, kinds[1], target)
    got = fa.union(fb, unique=unique).to_numpy().tolist()
    if kinds[0] == "dense":
        assert got == sorted(set(a) | set(b))
    elif unique:
        assert sorted(got) == sorted(set(a) | set(b))
        assert set(got[: len(set(a))]) == set(a)
    elif kinds[1] == "sparse":
        assert got == a + b
    else:
        assert got[: len(a)] == a and sorted(got[len(a):]) == sorted(set(b))


def test_union_beyond_the_capacity_raises_overflow(target):
    graph = small_graph()
    for unique in (False, True):
        a = Frontier.from_vertices(graph, [1, 2, 3], target=target, capacity=4)
        b = Frontier.from_vertices(graph, [4, 5], target=target)
        with pytest.raises(FrontierOverflowError):
            len(a.union(b, unique=unique))


def test_union_refuses_frontiers_of_another_graph_domain_or_target(target):
    graph = small_graph()
    f = Frontier.from_vertices(graph, [1], target=target)
    with pytest.raises(FrontierError, match="different graphs"):
        f.union(Frontier.from_vertices(small_graph(), [1], target=target))
    with pytest.raises(FrontierError, match="frontier of vertices with one of edges"):
        f.union(Frontier.from_edges(graph, [1], target=target))
    with pytest.raises(FrontierError, match="expected a Frontier"):
        f.union(np.array([1]))
    if cuda_usable():
        other = "cpu" if target.name == "cuda" else "cuda"
        with pytest.raises(FrontierError, match="different targets"):
            f.union(Frontier.from_vertices(graph, [1], target=resolve_target(other)))


# the lifetime rule -----------------------------------------------------------------------------
def test_a_frontier_stays_valid_for_two_more_ring_steps_the_second_reusing_its_slot(target):
    graph = small_graph()
    x0 = Frontier.from_vertices(graph, [0], target=target)
    x1 = advance(graph, x0, accept_all)
    assert x0.is_current() and x0.to_numpy().tolist() == [0]
    x2 = filter(graph, x1, keep)
    assert not x0.is_current() and x1.is_current() and x2.is_current()
    x3 = x2.to_dense()
    assert not x1.is_current() and x2.is_current() and x3.is_current()


def test_advancing_the_same_frontier_twice_makes_the_first_output_stale(target):
    graph = small_graph()
    x0 = Frontier.from_vertices(graph, [0], target=target)
    first = advance(graph, x0, accept_all)
    second = advance(graph, x0, accept_all)
    assert not first.is_current() and x0.is_current()
    assert second.to_numpy().tolist() == [1, 2]


def _other(graph: Graph, f: Frontier) -> Frontier:
    return Frontier.from_vertices(graph, [2], target=f.target)


STALE_USES = {
    "len": lambda graph, f: len(f),
    "to_numpy": lambda graph, f: f.to_numpy(),
    "device_ids": lambda graph, f: f.device_ids(),
    "device_words": lambda graph, f: f.device_words(),
    "to_dense": lambda graph, f: f.to_dense(),
    "to_sparse": lambda graph, f: f.to_sparse(),
    "copy": lambda graph, f: f.copy(),
    "union": lambda graph, f: f.union(_other(graph, f)),
    "union as other": lambda graph, f: _other(graph, f).union(f),
    "advance": lambda graph, f: advance(graph, f, accept_all),
    "filter": lambda graph, f: filter(graph, f, keep),
    "compute": lambda graph, f: compute(graph, f, touch, f.target.zeros(8, np.int32)),
    "ring_arguments": lambda graph, f: f.pool.ring_arguments(
        f, f.pool.begin_step(f.slot, None), None),
}


@pytest.mark.parametrize("use", sorted(STALE_USES))
def test_every_use_of_a_stale_frontier_raises_naming_the_lifetime_rule(target, use):
    graph = small_graph()
    x0 = Frontier.from_vertices(graph, [0], target=target)
    x1 = advance(graph, x0, accept_all)
    advance(graph, x1, accept_all)
    with pytest.raises(StaleFrontierError, match=r"is stale: advance\(output='sparse'\) at "
                                                 r".* cleared its slot for the step after it"):
        STALE_USES[use](graph, x0)


def test_a_frontier_retired_long_ago_still_names_the_lifetime_rule(target):
    graph = small_graph()
    x0 = Frontier.from_vertices(graph, [0], target=target)
    held = [advance(graph, x0, accept_all)]
    for _ in range(4):  # x0's slot is written and cleared again, by frontiers still held: its
        held.append(advance(graph, held[-1], accept_all))  # retirement is forgotten
    with pytest.raises(StaleFrontierError, match="Lifetime rule: a frontier stays valid until"):
        len(x0)


def reach_new(src, dst, eid, weight, dist):
    if dist[dst] < 0:
        dist[dst] = dist[src] + 1
        return True
    return False


def test_a_fused_traverses_start_frontier_is_stale_naming_the_traverse_call(target):
    graph = small_graph()
    start = Frontier.from_vertices(graph, [0], target=target)
    dist = target.full(graph.num_vertices, -1, np.int64)
    target.write_scalar(dist, 0, 0)
    line = sys._getframe().f_lineno + 1
    traverse(graph, start, reach_new, dist)  # leaves only its result valid
    with pytest.raises(StaleFrontierError, match=rf"a fused traverse at {__file__}:{line} may "
                                                 "have written its slot"):
        len(start)


def test_a_frontier_nobody_holds_is_retired_without_a_note_or_a_walk_up_the_stack(
        target, monkeypatch):
    """Retiring a frontier that no code holds any more notes nothing (nobody can use it), so
    the step looks no call site up: an older frontier's note survives, and a shared pool
    reused call after call walks no stack."""
    graph = small_graph()
    x0 = Frontier.from_vertices(graph, [0], target=target)
    x = advance(graph, x0, accept_all)
    line = sys._getframe().f_lineno + 2
    for _ in range(4):  # later frontiers in x0's slot are dropped as soon as they are made
        x = advance(graph, x, accept_all)
    with pytest.raises(StaleFrontierError, match=rf"at {__file__}:{line} cleared its slot"):
        len(x0)  # named by the step that retired it: no later note took its place
    walks = []
    real = frontier_module._call_site
    monkeypatch.setattr(frontier_module, "_call_site",
                        lambda known=0: walks.append(1) or real(known))
    for _ in range(3):  # the previous call's frontiers are gone: nothing to note
        Frontier.from_vertices(graph, [0], target=target, shared=True)
    assert walks == []
    pool = Frontier.from_vertices(graph, [0], target=target, shared=True).pool
    pool.adopt(1, "sparse")  # a traversal's end (as stepping's): a token no frontier holds
    Frontier.from_vertices(graph, [0], target=target, shared=True)
    assert walks == []
    kept = Frontier.from_vertices(graph, [0], target=target, shared=True)
    line = sys._getframe().f_lineno + 1
    Frontier.from_vertices(graph, [1], target=target, shared=True)
    assert walks == [1]  # one held: its retirement names this line
    with pytest.raises(StaleFrontierError, match=rf"reused this pool \(FrontierPool.restart\) "
                                                 rf"at {__file__}:{line} reset its slot"):
        len(kept)


def mark(src, dst, eid, weight, marks):
    marks[dst] = 1
    return False


def test_a_stale_frontier_names_the_step_that_retired_it_and_to_copy_it_before(target):
    # issue 24 item 6: a side-effect-only advance retires the frontier two steps back; the
    # error comes where that frontier is next used and must point at the step that retired it
    graph = small_graph()
    start = Frontier.from_vertices(graph, [0], target=target)
    reached = advance(graph, start, accept_all)
    joined = reached.union(Frontier.from_vertices(graph, [3], target=target))
    marks = target.zeros(graph.num_vertices, np.int32)
    kept = reached.copy()
    line = sys._getframe().f_lineno + 1
    advance(graph, joined, mark, marks, output="none")  # clears reached's slot
    with pytest.raises(StaleFrontierError) as raised:
        reached.to_numpy()
    message = str(raised.value)
    assert f"advance(output='none') at {__file__}:{line} cleared its slot" in message
    assert "keep a copy of it made before that step (kept = this_frontier.copy())" in message
    with pytest.raises(StaleFrontierError, match=r"is stale: union\(\) at "):
        len(start)
    assert sorted(kept.to_numpy().tolist()) == [1, 2]  # the copy outlives the step
