"""Every load balancer visits each frontier edge exactly once and builds the thread balancer's
output; BFS with each equals scipy; the warp intrinsics behave as on the hardware.

The ``cuda`` tests run the generated kernels on a GPU, or in Numba's CUDA simulator with
``NUMBA_ENABLE_CUDASIM=1`` (CI), where the warp intrinsics are
:mod:`frontier.runtime.simulated_warp`. The simulator runs every GPU thread as a Python thread, so
graphs stay tiny and examples few.
"""

from __future__ import annotations

import os
import pickle
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import cuda

from algorithms import bfs
from frontier import Frontier, Graph, atomic_add
from frontier.runtime.cuda_support import cuda_usable
from frontier.runtime.warp_intrinsics import FULL_MASK, intrinsics
from frontier.target import resolve_target
from frontier.testing import assert_same_set, check_bfs, graphs, graphs_with_source, vertex_subsets
from operators import BalancerError, advance, available_balancers, explain, get_balancer
from operators.balancers import (
    BlockMapped,
    CtaWarpScan,
    DynamicWarp,
    MultiPhase,
    TwoPhase,
    VirtualWarp,
)
from operators.balancers.block import block_size_for_degree
from tests.tiers import examples

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
simulator_only = pytest.mark.skipif(not SIMULATED, reason="checks the simulator's intrinsics")


def on_cuda(test):
    """Mark a test that runs kernels on the cuda target (a GPU, or the simulator in CI)."""
    skip = pytest.mark.skipif(not cuda_usable(), reason="no GPU and no CUDA simulator")
    return pytest.mark.simulator(skip(test))


#: Every registered balancer: a new one is tested without editing this module.
BALANCERS = available_balancers()
#: Parameters the property test runs besides each balancer's defaults: narrow virtual warps, a
#: hub threshold every graph passes, and chunks small enough to need several blocks.
VARIANTS = [pytest.param(name, id=name) for name in BALANCERS] + [
    pytest.param("warp:2", id="warp2"),
    pytest.param("warp:8", id="warp8"),
    pytest.param(DynamicWarp(min_width=2, threshold=3), id="dynamic_warp-hubs3"),
    pytest.param("two_phase:1", id="two_phase1"),
    pytest.param(MultiPhase(items_per_thread=1, iterations=3), id="multi_phase1x3"),
]
KINDS = ("sparse", "dense")
OUTPUTS = ("sparse", "dense", "none")


def count_and_filter(src, dst, eid, weight, calls):
    atomic_add(calls, eid, 1)
    return (dst + eid) % 3 != 0


def run_advance(graph: Graph, ids: np.ndarray, kind: str, output: str,
                balancer) -> tuple[np.ndarray, np.ndarray | None]:
    """Calls per edge id and the output frontier's vertices (None for no output)."""
    reach = int(expected_calls(graph, ids, kind).sum())  # a sparse output holds at most this
    f = Frontier.from_vertices(graph, ids, kind=kind, target="cuda",
                               capacity=max(reach, graph.num_edges, graph.num_vertices, ids.size))
    calls = f.target.zeros(max(graph.num_edges, 1), np.int32)
    out = advance(graph, f, count_and_filter, calls, balancer=balancer, output=output)
    got = f.target.to_host(calls)[: graph.num_edges]
    return got, None if out is None else out.to_numpy()


def expected_calls(graph: Graph, ids: np.ndarray, kind: str) -> np.ndarray:
    sources = np.unique(ids) if kind == "dense" else ids
    calls = np.zeros(graph.num_edges, dtype=np.int64)
    for v in sources:
        calls[graph.row_offsets[v]:graph.row_offsets[v + 1]] += 1
    return calls


def check_balancer(graph: Graph, ids: np.ndarray, kind: str, output: str, balancer) -> None:
    calls, out = run_advance(graph, ids, kind, output, balancer)
    expected = expected_calls(graph, ids, kind)
    wrong = np.flatnonzero(calls != expected)
    got = dict(zip(wrong.tolist(), calls[wrong].tolist(), strict=True))
    want = dict(zip(wrong.tolist(), expected[wrong].tolist(), strict=True))
    assert not got, f"{balancer} {kind}->{output}: calls per edge id {got}, expected {want}"
    _, reference = run_advance(graph, ids, kind, output, "thread")
    if output == "none":
        assert out is None and reference is None
    else:
        assert_same_set(out, reference, f"{balancer} {kind}->{output} output",
                        multiset=output == "sparse")


def skewed_graph() -> Graph:
    """A hub above the CTA threshold (the simulator's 64-thread blocks), vertices above the warp
    threshold, thin ones, an isolated one, a self-loop and a repeated edge."""
    rng = np.random.default_rng(7)
    src = np.concatenate([np.zeros(70, int), np.full(40, 1), np.full(33, 2),
                          rng.integers(3, 20, 25), [5, 5, 6]])
    dst = np.concatenate([rng.integers(0, 21, 70), rng.integers(0, 21, 40),
                          rng.integers(0, 21, 33), rng.integers(0, 21, 25), [5, 9, 9]])
    return Graph.from_edges(src, dst, num_vertices=22)


# registry and parameters (no kernels) ---------------------------------------------------------
@pytest.mark.parametrize("name", BALANCERS)
def test_every_registered_name_gives_that_balancer(name):
    assert get_balancer(name).name == name


def test_balancer_parameters_are_parsed():
    assert get_balancer("warp:8") == VirtualWarp(8)
    assert get_balancer("block:128") == BlockMapped(128)
    assert get_balancer("two_phase:3") == TwoPhase(3)
    assert isinstance(get_balancer("cta_warp_scan"), CtaWarpScan)
    instance = MultiPhase(2, 3)
    assert get_balancer(instance) is instance


@pytest.mark.parametrize("name", BALANCERS)
def test_a_balancers_hash_is_kept_after_its_first_use_and_equal_ones_stay_equal(name,
                                                                              monkeypatch):
    kept, fresh = get_balancer(name), get_balancer(name)
    first = hash(kept)  # kernel lookups hash a balancer on every call: computed once
    monkeypatch.setattr(type(kept), "_fields", lambda self: pytest.fail("hashed again"))
    assert hash(kept) == first
    monkeypatch.undo()
    assert kept == fresh and fresh == kept and hash(fresh) == first  # the kept hash is no field
    assert kept._fields() == fresh._fields()


@pytest.mark.parametrize("name", BALANCERS)
def test_a_pickled_balancer_leaves_its_kept_hash_behind(name):
    kept = get_balancer(name)
    hash(kept)
    copied = pickle.loads(pickle.dumps(kept))  # another process hashes its classes anew
    assert "_hash" not in vars(copied) and copied == kept and hash(copied) == hash(kept)


def test_balancers_of_other_parameters_differ_and_the_auto_choice_is_one_object():
    assert get_balancer("warp:8") != get_balancer("warp:16")
    assert hash(get_balancer("warp:8")) != hash(get_balancer("warp:16"))
    assert get_balancer("auto") is get_balancer("auto")  # frozen, holding no thresholds


@pytest.mark.parametrize("spec", ["warp:3", "warp:64", "block:100", "dynamic_warp:5",
                                  "two_phase:0", "multi_phase:-1"])
def test_bad_balancer_parameters_are_rejected(spec):
    with pytest.raises(BalancerError):
        get_balancer(spec)


def test_block_size_is_the_multiple_of_32_nearest_the_average_degree():
    assert [block_size_for_degree(d) for d in (0, 2.1, 47.9, 48, 100, 5000)] == \
        [32, 32, 32, 64, 96, 1024]
    cpu = resolve_target("cpu")
    dense = Graph.from_edges(np.repeat(np.arange(10), 100), np.tile(np.arange(10), 100))
    assert BlockMapped().bind(dense, cpu).threads == 96
    assert BlockMapped(512).bind(dense, cpu).threads == 512


def test_shared_memory_beyond_the_static_limit_is_refused():
    g = Graph.from_edges([0], [1])
    with pytest.raises(ValueError, match="shared memory"):
        TwoPhase(items_per_thread=64, threads=1024).bind(g, resolve_target("cpu"))


@pytest.mark.parametrize("name", BALANCERS)
def test_balancers_run_as_the_sequential_loop_on_the_cpu(name):
    g = skewed_graph()
    f = Frontier.from_vertices(g, [0, 1, 4, 0], target="cpu")
    calls = np.zeros(g.num_edges, np.int32)
    advance(g, f, count_and_filter, calls, balancer=name, output="none")
    np.testing.assert_array_equal(calls, expected_calls(g, np.array([0, 1, 4, 0]), "sparse"))


# every balancer's kernels ---------------------------------------------------------------------
@on_cuda
@pytest.mark.parametrize("balancer", VARIANTS)
@settings(max_examples=examples(40))
@given(graph=graphs(max_vertices=24, max_edges=60), data=st.data())
def test_each_frontier_edge_is_visited_once_and_the_output_matches_thread(balancer, graph,
                                                                         data):
    ids = data.draw(vertex_subsets(graph, unique=False), label="frontier")
    kind = data.draw(st.sampled_from(KINDS), label="input")
    output = data.draw(st.sampled_from(OUTPUTS), label="output")
    check_balancer(graph, ids, kind, output, balancer)


@on_cuda
@pytest.mark.parametrize("name", BALANCERS)
def test_hubs_medium_and_thin_vertices_in_every_input_and_output_form(name):
    g = skewed_graph()
    ids = np.array([0, 3, 1, 21, 2, 5, 0, 7, 6])
    for kind in KINDS:
        for output in OUTPUTS:
            check_balancer(g, ids, kind, output, name)


@on_cuda
@pytest.mark.parametrize("name", BALANCERS)
def test_empty_frontiers_visit_nothing(name):
    g = skewed_graph()
    for kind in KINDS:
        calls, out = run_advance(g, np.empty(0, np.int32), kind, kind, name)
        assert not calls.any() and out.size == 0


@on_cuda
@pytest.mark.parametrize("name", BALANCERS)
@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=examples(25))
@given(case=graphs_with_source(max_vertices=16, max_edges=40))
def test_bfs_with_each_balancer_equals_scipy(name, kind, case):
    graph, source = case
    result = bfs(graph, source, balancer=name, target="cuda", frontier=kind)
    check_bfs(graph, source, result.distances, result.predecessors)


#: The loops of the traversal below: the fused kernel, and on a real GPU the host loop too. In
#: the simulator the host loop's kernels are each balancer's advance, whose lanes are checked at
#: every intrinsic by the tests above on hubs, medium and thin vertices in every form.
LOOPS = [pytest.param(True, id="fused")] + ([] if SIMULATED else
                                            [pytest.param(False, id="host-loop")])


@on_cuda
@pytest.mark.parametrize("name", BALANCERS)
@pytest.mark.parametrize("fused", LOOPS)
def test_lanes_leaving_early_meet_at_every_warp_intrinsic_of_a_traversal(name, fused,
                                                                         lanes_leave_early,
                                                                         colouring):
    """Issue 47: every lane a warp intrinsic names must reach it. Paths with back arcs, a hub
    whose leaves have no edges, a medium vertex and isolated ones give the lanes of a warp
    different amounts of work and levels of every size; the simulator raises WarpError where
    a lane named by a shuffle, vote or syncwarp has left, and BarrierError where a thread left
    before a block barrier."""
    want, _ = colouring(lanes_leave_early, "cpu")
    got, _ = colouring(lanes_leave_early, "cuda", balancer=name, fused=fused)
    np.testing.assert_array_equal(got, want)


#: What each balancer's kernel must show (keyed by balancer spec).
TECHNIQUE_MARKS = {
    "thread": ["range(tid, universe, nthreads)",
               "range(row_offsets[src], row_offsets[src + 1])"],
    "block": ["cuda.blockIdx.x, universe, cuda.gridDim.x"],
    "warp:8": ["shfl_idx(FULL, src, 0, 8)"],
    "dynamic_warp": ["dw_ratio", "hub_list", "shfl_idx(FULL, src, 0, vw)"],
    "cta_warp_scan": ["syncthreads_or", "ballot(FULL", "shfl_up(FULL"],
    "two_phase": ["def degree_sums_dense", "def degree_offsets_dense", "chunk_starts"],
    "multi_phase": ["def degree_offsets_dense", "cuda.local.array", "syncwarp(FULL)"],
}


def test_technique_marks_cover_every_registered_balancer():
    assert {spec.partition(":")[0] for spec in TECHNIQUE_MARKS} == set(BALANCERS)


@on_cuda
@pytest.mark.parametrize("name,marks", TECHNIQUE_MARKS.items())
def test_explain_shows_each_technique(name, marks):
    g = skewed_graph()
    f = Frontier.from_vertices(g, [0], kind="dense", target="cuda")
    calls = f.target.zeros(g.num_edges, np.int32)
    source = explain(advance, g, f, count_and_filter, calls, balancer=name)
    for mark in marks:
        assert mark in source, f"{mark!r} not in the {name} kernel:\n{source}"


# warp intrinsics ------------------------------------------------------------------------------
_W = intrinsics(SIMULATED)
shfl_idx, shfl_up, ballot, syncwarp, ffs = (_W[n] for n in
                                           ("shfl_idx", "shfl_up", "ballot", "syncwarp", "ffs"))


@cuda.jit
def shfl_idx_kernel(out, src_lane, width):
    t = cuda.threadIdx.x
    out[t] = shfl_idx(FULL_MASK, t * 10 + 1, src_lane, width)


@cuda.jit
def shfl_up_kernel(out, delta, width):
    t = cuda.threadIdx.x
    out[t] = shfl_up(FULL_MASK, t * 10 + 1, delta, width)


@cuda.jit
def half_warp_kernel(out):
    t = cuda.threadIdx.x
    if (t & 31) < 16:
        out[t] = shfl_idx(0x0000FFFF, t, 15, 16)
    else:
        out[t] = shfl_up(0xFFFF0000, t, 1, 16)


@cuda.jit
def ballot_kernel(out):
    t = cuda.threadIdx.x
    lane = t & 31
    if lane % 2 == 0:
        out[t] = ballot(0x55555555, lane % 4 == 0)
    else:
        out[t] = ballot(0xAAAAAAAA, lane < 8)


@cuda.jit
def syncwarp_kernel(out):
    buf = cuda.shared.array(64, np.int64)
    t = cuda.threadIdx.x
    buf[t] = t * 3
    syncwarp(FULL_MASK)
    out[t] = buf[(t & ~31) | ((t + 1) & 31)]


@cuda.jit
def ffs_kernel(out, values):
    t = cuda.threadIdx.x
    out[t] = ffs(values[t])


def launch(kernel, *args, threads=64):
    out = np.zeros(threads, np.int64)
    kernel[1, threads](out, *args)
    return out


def lanes(threads: int = 64) -> np.ndarray:
    return np.arange(threads)


@on_cuda
@pytest.mark.parametrize("width", [1, 2, 4, 8, 16, 32])
@pytest.mark.parametrize("src_lane", [0, 3, 37])
def test_shfl_idx_reads_the_source_lane_of_each_segment(width, src_lane):
    t = lanes()
    expected = ((t & ~(width - 1)) | (src_lane & (width - 1))) * 10 + 1
    np.testing.assert_array_equal(launch(shfl_idx_kernel, src_lane, width), expected)


@on_cuda
@pytest.mark.parametrize("width", [2, 8, 32])
@pytest.mark.parametrize("delta", [1, 3])
def test_shfl_up_keeps_its_own_value_below_the_segment_start(width, delta):
    t = lanes()
    source = np.where((t % width) >= delta, t - delta, t)
    np.testing.assert_array_equal(launch(shfl_up_kernel, delta, width), source * 10 + 1)


@on_cuda
def test_shuffles_within_disjoint_masks_of_one_warp():
    t = lanes()
    low = (t & 31) < 16
    expected = np.where(low, (t & ~31) + 15, np.where((t & 15) >= 1, t - 1, t))
    np.testing.assert_array_equal(launch(half_warp_kernel), expected)


@on_cuda
def test_ballot_sets_the_bits_of_true_lanes_in_the_mask_only():
    lane = lanes() & 31
    expected = np.where(lane % 2 == 0, 0x11111111, 0xAA)
    np.testing.assert_array_equal(launch(ballot_kernel), expected)


@on_cuda
def test_syncwarp_orders_shared_memory_within_the_warp():
    t = lanes()
    np.testing.assert_array_equal(launch(syncwarp_kernel), ((t & ~31) | ((t + 1) & 31)) * 3)


@on_cuda
def test_ffs_numbers_the_lowest_set_bit_from_one():
    values = np.array([0, 1, 2, 0x80000000, 0xFFFFFFFF, 12] + [8] * 26, dtype=np.int64)
    np.testing.assert_array_equal(launch(ffs_kernel, values, threads=32)[:6], [0, 1, 2, 32, 1, 3])


@cuda.jit
def lane_outside_its_mask(out):
    out[cuda.threadIdx.x] = shfl_idx(0x0000FFFF, 1, 0, 32)


@cuda.jit
def read_outside_the_mask(out):
    t = cuda.threadIdx.x
    if t < 16:
        out[t] = shfl_idx(0x0000FFFF, 1, 20, 32)


@cuda.jit
def lane_exits_early(out):
    t = cuda.threadIdx.x
    if t == 5:
        return
    out[t] = shfl_idx(FULL_MASK, 1, 0, 32)


@cuda.jit
def lane_waits_at_a_barrier(out):
    t = cuda.threadIdx.x
    if t == 0:
        cuda.syncthreads()
    else:
        out[t] = shfl_idx(FULL_MASK, 1, 0, 32)
        cuda.syncthreads()


@cuda.jit
def lanes_make_different_calls(out):
    t = cuda.threadIdx.x
    if t < 16:
        out[t] = ballot(FULL_MASK, True)
    else:
        out[t] = shfl_idx(FULL_MASK, 1, 0, 32)


@cuda.jit
def shuffle_a_bool(out):
    out[cuda.threadIdx.x] = shfl_idx(FULL_MASK, cuda.threadIdx.x > 3, 0, 32)


@cuda.jit
def warp_larger_than_the_block(out):
    out[cuda.threadIdx.x] = shfl_idx(FULL_MASK, 1, 0, 32)


@on_cuda
@simulator_only
@pytest.mark.parametrize("kernel,threads,message", [
    (lane_outside_its_mask, 32, "does not include it"),
    (read_outside_the_mask, 32, "not in mask"),
    (lane_exits_early, 32, "has exited"),
    (lane_waits_at_a_barrier, 32, "waits at syncthreads"),
    (lanes_make_different_calls, 32, "make different calls|waits in"),
    (shuffle_a_bool, 32, "32- or 64-bit"),
    (warp_larger_than_the_block, 16, "does not exist"),
])
def test_what_the_hardware_leaves_undefined_raises_in_the_simulator(kernel, threads, message):
    from frontier.runtime.simulated_warp import WarpError

    with pytest.raises(WarpError, match=message):
        kernel[1, threads](np.zeros(threads, np.int64))



@on_cuda
@simulator_only
def test_lanes_making_different_calls_are_reported_so_whichever_lane_the_launch_reports():
    """The lane that finds the other call raises, and its exchange partners then see it gone:
    whichever thread's error the simulator reports, it names the calls (one launch in about
    25 reported "has exited" before the partners passed the failed lane's error on)."""
    from frontier.runtime.simulated_warp import WarpError

    for _ in range(60):
        with pytest.raises(WarpError, match="make different calls"):
            lanes_make_different_calls[1, 32](np.zeros(32, np.int64))


@cuda.jit
def shuffle_after_each_barrier(out, rounds):
    lane = cuda.threadIdx.x & 31
    acc = 0
    for _ in range(rounds):
        cuda.syncthreads()
        acc += shfl_up(FULL_MASK, lane, 1, 32)
    out[cuda.threadIdx.x] = acc


@on_cuda
@simulator_only
def test_a_lane_still_being_released_from_a_barrier_is_no_deadlock(monkeypatch):
    """The simulator's block manager releases a barrier's threads one after another; slowed
    here (as a loaded machine slows it), the lanes released first reach their shuffle and look
    for partners still marked as waiting at the barrier they all passed. Issue 47: SCC's
    small-frontier kernel failed so ("lane 0 ... in shfl_up stopped")."""
    release = threading.Event.set

    def slow_release(event):
        time.sleep(0.002)
        release(event)

    monkeypatch.setattr(threading.Event, "set", slow_release)
    lane = lanes() & 31
    np.testing.assert_array_equal(launch(shuffle_after_each_barrier, 3),
                                  3 * np.maximum(lane - 1, 0))
