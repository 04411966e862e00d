"""The race detector (issue 24, item 1): frontier.testing.check_race_free catches a plain write
racing with another work item of the same step, names the functor, the state array and the
index, accepts atomics and the relaxed atomic_load/atomic_store, and every algorithm of the
catalog passes it, on the cpu target and in the simulator."""

from __future__ import annotations

import os
import threading

import numba
import numpy as np
import pytest

from algorithms import CATALOG
from frontier import Frontier, TargetError, atomic_add, atomic_load, atomic_store, generators
from frontier.runtime import racecheck
from frontier.runtime.cuda_support import cuda_usable
from frontier.runtime.target import CpuTarget
from frontier.target import resolve_target
from frontier.testing import check_race_free
from operators import FunctorError, FunctorIndexError, advance, compute, filter, traverse

STAR = generators.star(12)
PATH = generators.from_spec("path:8")
SMALL = generators.gnm(16, 40, seed=3)


SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
#: The targets the check runs on: cpu, and cuda where it is the simulator.
CHECKABLE = [pytest.param("cpu", id="cpu")] + (
    [pytest.param("cuda", id="cuda-sim", marks=pytest.mark.simulator)] if SIMULATED else [])


@pytest.fixture(params=CHECKABLE)
def target(request):
    """Each target the check runs on, resolved."""
    return resolve_target(request.param)


# functors -------------------------------------------------------------------------------------
def racy_count(src, dst, eid, weight, count):
    count[0] = count[0] + 1
    return False


def atomic_count(src, dst, eid, weight, count):
    atomic_add(count, 0, 1)
    return False


def racy_keep(v, last):
    last[0] = v
    return True


def racy_sum(v, total):
    total[0] += v


def atomic_sum(v, total):
    atomic_add(total, 0, v)


def flag_any(v, flag):
    atomic_store(flag, 0, 1)


def racy_pairs(v, seen, halves):
    halves[v // 2] = v


def watch_and_flag(v, flag, seen):
    seen[v] = atomic_load(flag, 0)
    atomic_store(flag, 0, v)


def unmarked(v, mark):
    return mark[v] == 0


def mark_head(src, dst, eid, weight, mark):
    mark[dst] = 1
    return True


def count_in_edges(src, dst, eid, weight, hits):
    hits[dst] += 1
    return False


def next_level(src, dst, eid, weight, dist):
    if dist[dst] == -1:
        dist[dst] = dist[src] + 1
        return True
    return False


# planted races are caught ---------------------------------------------------------------------
def test_a_racy_counter_in_an_advance_is_caught(target):
    f = Frontier.from_vertices(STAR, [0], target=target)
    count = target.zeros(1, np.int64)
    with pytest.raises(AssertionError, match="racy_count"):
        check_race_free(advance, STAR, f, racy_count, count, balancer="thread")


def test_an_atomic_counter_in_an_advance_passes_and_the_result_comes_back(target):
    f = Frontier.from_vertices(STAR, [0], target=target)
    count = target.zeros(1, np.int64)
    out = check_race_free(advance, STAR, f, atomic_count, count, balancer="thread")
    assert len(out) == 0
    assert int(target.to_host(count)[0]) == STAR.num_edges // 2


def test_a_racy_filter_is_caught(target):
    f = Frontier.all_vertices(SMALL, target=target)
    last = target.zeros(1, np.int64)
    with pytest.raises(AssertionError, match="racy_keep"):
        check_race_free(filter, SMALL, f, racy_keep, last)


def test_a_racy_compute_is_caught_and_an_atomic_one_passes(target):
    total = target.zeros(1, np.int64)
    with pytest.raises(AssertionError, match="racy_sum"):
        check_race_free(compute, SMALL, "vertices", racy_sum, total, target=target)
    total = target.zeros(1, np.int64)
    check_race_free(compute, SMALL, "vertices", atomic_sum, total, target=target)
    assert int(target.to_host(total)[0]) == sum(range(SMALL.num_vertices))


def test_relaxed_atomics_mark_an_intended_race(target):
    flag = target.zeros(1, np.int32)
    check_race_free(compute, SMALL, "vertices", flag_any, flag, target=target)
    assert int(target.to_host(flag)[0]) == 1
    seen = target.zeros(SMALL.num_vertices, np.int32)
    check_race_free(compute, SMALL, "vertices", watch_and_flag, flag, seen, target=target)


def test_the_message_names_the_functor_the_array_and_the_index(target):
    seen = target.zeros(4, np.int64)
    halves = target.zeros(SMALL.num_vertices, np.int32)
    with pytest.raises(AssertionError) as caught:
        check_race_free(compute, SMALL, "vertices", racy_pairs, seen, halves, target=target)
    message = str(caught.value)
    line = racy_pairs.__code__.co_firstlineno
    assert f"racy_pairs ({__file__}:{line})" in message
    assert "state argument 1 (int32 array of shape (16,))" in message
    assert "index 0:" in message  # the smallest index of a race, whatever the thread order
    assert "vertex 0" in message and "vertex 1" in message
    assert "without an atomic" in message


# writes through array methods, NumPy functions and operators ---------------------------------
def fill_half(v, out, aux):
    out[v // 2:v // 2 + 1].fill(v)


def fill_own(v, out, aux):
    out[v:v + 1].fill(v)


def put_half(v, out, aux):
    out.put(v // 2, v)


def put_own(v, out, aux):
    out.put(v, v)


def sort_pair(v, out, aux):
    out[v // 2 * 2:v // 2 * 2 + 2].sort()


def sort_own(v, out, aux):
    out[v:v + 1].sort()


def copy_half(v, out, aux):
    np.copyto(out[v // 2:v // 2 + 1], v)


def copy_own(v, out, aux):
    np.copyto(out[v:v + 1], v)


def add_half(v, out, aux):
    view = out[v // 2:v // 2 + 1]
    view += 1


def add_own(v, out, aux):
    view = out[v:v + 1]
    view += 1


def ufunc_out_half(v, out, aux):
    np.add(out[v // 2:v // 2 + 1], 1, out=out[v // 2:v // 2 + 1])


def ufunc_out_own(v, out, aux):
    np.add(out[v:v + 1], 1, out=out[v:v + 1])


def reshaped_half(v, out, aux):
    out.reshape(2, 8)[v // 2 // 8, v // 2 % 8] = v


def reshaped_own(v, out, aux):
    out.reshape(2, 8)[v // 8, v % 8] = v


def sum_and_store(v, out, aux):
    out[v] = out.sum()  # reads what the other items write


def sum_elsewhere(v, out, aux):
    aux[v] = out.sum()


#: Per way of writing: a functor racing through it, and a race-free one.
THROUGH = {
    "fill on a view": (fill_half, fill_own), "put": (put_half, put_own),
    "sort on a view": (sort_pair, sort_own), "np.copyto into a view": (copy_half, copy_own),
    "+= on a view": (add_half, add_own), "a ufunc's out=": (ufunc_out_half, ufunc_out_own),
    "a reshaped view": (reshaped_half, reshaped_own), "a method's read": (sum_and_store,
                                                                           sum_elsewhere),
}


@pytest.mark.parametrize("way", THROUGH)
def test_writes_through_array_methods_and_numpy_functions_are_seen(target, way):
    racy, safe = THROUGH[way]
    out, aux = (target.zeros(SMALL.num_vertices, np.float64) for _ in range(2))
    with pytest.raises(AssertionError) as caught:
        check_race_free(compute, SMALL, "vertices", racy, out, aux, target=target)
    message = str(caught.value)
    assert f"functor {racy.__name__} (" in message and "state argument 0" in message
    assert "index 0: work item vertex 0 wrote it without an atomic" in message
    check_race_free(compute, SMALL, "vertices", safe, out, aux, target=target)


# 0-d state arrays -----------------------------------------------------------------------------
def store_0d(v, z, aux):
    z[()] = v


def store_0d_through_ellipsis(v, z, aux):
    z[...] = v


def store_once_read_by_all(v, z, aux):
    if v == 3:
        z[()] = v
    aux[v] = z[()]


def store_once(v, z, aux):
    if v == 3:
        z[()] = v


def read_0d(v, z, aux):
    aux[v] = z[()] + z[...]


@pytest.mark.parametrize("racy", [store_0d, store_0d_through_ellipsis, store_once_read_by_all])
def test_a_0d_state_array_written_by_two_items_is_caught(target, racy):
    z, aux = np.zeros((), np.int64), np.zeros(SMALL.num_vertices, np.int64)
    with pytest.raises(AssertionError) as caught:
        check_race_free(compute, SMALL, "vertices", racy, z, aux, target=target)
    message = str(caught.value)
    assert "state argument 0 (int64 array of shape ())" in message and "index ()" in message


def test_a_0d_state_array_written_by_one_item_or_only_read_passes(target):
    z, aux = np.full((), 5, np.int64), np.zeros(SMALL.num_vertices, np.int64)
    check_race_free(compute, SMALL, "vertices", read_0d, z, aux, target=target)
    assert aux.tolist() == [10] * SMALL.num_vertices
    check_race_free(compute, SMALL, "vertices", store_once, z, aux, target=target)
    assert int(z) == 3


# njit helpers ---------------------------------------------------------------------------------
@numba.njit
def store_at(out, i, v):
    out[i] = v


@numba.njit
def store_through_another(out, i, v):
    store_at(out, i, v)


def helper_half(v, out, aux):
    store_at(out, v // 2, v)


def helper_own(v, out, aux):
    store_at(out, v, v)


def nested_helper_half(v, out, aux):
    store_through_another(out, v // 2, v)


def closure_helper(i_of):
    helper = store_through_another

    def through_closure(v, out, aux):
        helper(out, i_of(v), v)
    return through_closure


@pytest.mark.parametrize("racy", [helper_half, nested_helper_half,
                                  closure_helper(numba.njit(lambda v: v // 2))],
                         ids=["global helper", "helper calling a helper", "closure helper"])
def test_a_state_array_written_by_an_njit_helper_is_checked(target, racy):
    out, aux = (target.zeros(SMALL.num_vertices, np.int64) for _ in range(2))
    with pytest.raises(AssertionError) as caught:
        check_race_free(compute, SMALL, "vertices", racy, out, aux, target=target)
    assert "state argument 0" in str(caught.value) and "index 0:" in str(caught.value)
    check_race_free(compute, SMALL, "vertices", helper_own, out, aux, target=target)
    assert target.to_host(out).tolist() == list(range(SMALL.num_vertices))
    if not target.simulated:  # the functors compile as given (the simulator runs no njit)
        compute(SMALL, "vertices", racy, out, aux, target=target)


HELPERS = (store_at,)


def helper_in_a_container(v, out, aux):
    HELPERS[0](out, v, v)


def test_a_helper_the_detector_cannot_reach_is_refused_saying_why_and_what_to_do():
    out, aux = (np.zeros(SMALL.num_vertices, np.int64) for _ in range(2))
    with pytest.raises(FunctorError) as refused:
        check_race_free(compute, SMALL, "vertices", helper_in_a_container, out, aux,
                        target="cpu")
    message = str(refused.value)
    assert "race detector" in message and "state argument 0" in message
    assert "module globals or closure variables" in message


# record fields --------------------------------------------------------------------------------
RECORD = np.dtype([("x", np.int64), ("y", np.float64)])


def record_field_half(v, rec, aux):
    rec[v // 2]["x"] = v


def field_record_half(v, rec, aux):
    rec["x"][v // 2] = v


def whole_record_against_a_field(v, rec, aux):
    if v % 2:
        rec[v // 2]["y"] = v
    else:
        rec[v // 2] = (v, 0.0)


def fields_apart(v, rec, aux):
    if v % 2:
        rec[v // 2]["x"] = v
    else:
        rec["y"][v // 2] = v


def record_own(v, rec, aux):
    rec[v]["x"] = v
    rec["y"][v] = rec[v]["x"] * 0.5


@pytest.mark.parametrize("racy", [record_field_half, field_record_half,
                                  whole_record_against_a_field])
def test_record_fields_written_by_two_items_are_caught(target, racy):
    rec, aux = np.zeros(SMALL.num_vertices, RECORD), np.zeros(SMALL.num_vertices)
    with pytest.raises(AssertionError) as caught:
        check_race_free(compute, SMALL, "vertices", racy, rec, aux, target=target)
    message = str(caught.value)
    assert "state argument 0 ([('x', '<i8'), ('y', '<f8')] array of shape (16,))" in message
    assert ("index (0, 'y'):" if racy is whole_record_against_a_field else "index (0, 'x'):"
            ) in message


def test_fields_of_one_record_written_by_different_items_pass(target):
    rec, aux = np.zeros(SMALL.num_vertices, RECORD), np.zeros(SMALL.num_vertices)
    check_race_free(compute, SMALL, "vertices", fields_apart, rec, aux, target=target)
    check_race_free(compute, SMALL, "vertices", record_own, rec, aux, target=target)
    assert rec["y"].tolist() == [v / 2 for v in range(SMALL.num_vertices)]


# what a work item is --------------------------------------------------------------------------
def test_a_condition_and_the_functor_on_one_edge_are_one_work_item(target):
    f = Frontier.from_vertices(STAR, [0], target=target)
    mark = target.zeros(STAR.num_vertices, np.int32)
    out = check_race_free(advance, STAR, f, mark_head, mark, condition=unmarked)
    assert len(out) == STAR.num_vertices - 1


def test_edges_of_two_sources_into_one_head_race(target):
    f = Frontier.all_vertices(SMALL, target=target).to_sparse()
    mark = target.zeros(SMALL.num_vertices, np.int32)
    with pytest.raises(AssertionError, match="mark_head"):
        check_race_free(advance, SMALL, f, mark_head, mark, condition=unmarked)


def test_a_pull_is_one_work_item_per_vertex(target):
    f = Frontier.all_vertices(SMALL, target=target)
    hits = target.zeros(SMALL.num_vertices, np.int32)
    check_race_free(advance, SMALL, f, count_in_edges, hits, direction="pull", output="none")
    assert target.to_host(hits).sum() == SMALL.num_edges


def test_each_level_of_a_traversal_is_a_step(target):
    """A level writes what the next one reads: a race only if two levels shared a launch
    (a fused traversal), which the check turns into host steps."""
    dist = target.full(PATH.num_vertices, -1, np.int32)
    target.write_scalar(dist, 0, 0)
    f = Frontier.from_vertices(PATH, [0], target=target)
    ran = check_race_free(traverse, PATH, f, next_level, dist)
    assert {c.mode for c in ran.choices} == {"host"}
    assert target.to_host(dist).tolist() == list(range(PATH.num_vertices))


def test_threads_keep_their_own_logs():
    found: dict[str, object] = {}

    def run(name, fn):
        try:
            tgt = resolve_target("cpu")
            count = tgt.zeros(1, np.int64)
            for _ in range(5):
                f = Frontier.from_vertices(STAR, [0], target=tgt)
                check_race_free(advance, STAR, f, fn, count)
            found[name] = "passed"
        except AssertionError as err:
            found[name] = err

    threads = [threading.Thread(target=run, args=(n, fn))
               for n, fn in (("racy", racy_count), ("safe", atomic_count))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert found["safe"] == "passed"
    assert isinstance(found["racy"], AssertionError)
    assert not racecheck.checking()


def test_a_target_that_cannot_check_says_where_the_check_runs(monkeypatch):
    gpu_like = CpuTarget()
    monkeypatch.setattr(gpu_like, "checks_races", False)
    total = gpu_like.zeros(1, np.int64)
    with pytest.raises(TargetError, match="cpu target or in the CUDA simulator"):
        check_race_free(compute, SMALL, "vertices", atomic_sum, total, target=gpu_like)


@pytest.mark.gpu
@pytest.mark.skipif(SIMULATED or not cuda_usable(), reason="needs a real GPU")
def test_a_real_gpu_refuses_the_check():
    total = resolve_target("cuda").zeros(1, np.int64)
    with pytest.raises(TargetError, match="cpu target or in the CUDA simulator"):
        check_race_free(compute, SMALL, "vertices", atomic_sum, total, target="cuda")


# indices checked: out of range, negative included, is FunctorIndexError ----------------------
def past_the_end(v, out):
    out[v + 100] = 1


def before_the_start(v, out):
    out[v - 1] = 1


def reads_before_the_start(v, values, out):
    out[v] = values[v - 1]


def adds_before_the_start(v, out):
    atomic_add(out, v - 1, 1)


def two_d_negative_column(v, table):
    table[v, v - 1] = 1


@pytest.mark.parametrize("functor, state, index", [
    (past_the_end, 1, r"index 10\d is out of bounds"),
    (before_the_start, 1, "index -1 is negative"),
    (reads_before_the_start, 2, "index -1 is negative"),
    (adds_before_the_start, 1, "index -1 is negative"),
], ids=lambda p: getattr(p, "__name__", None))
def test_an_index_out_of_range_is_functor_index_error_naming_the_functor(target, functor, state,
                                                                         index):
    arrays = [target.zeros(PATH.num_vertices, np.int64) for _ in range(state)]
    with pytest.raises(FunctorIndexError, match=rf"functor {functor.__name__} .*{index}") as info:
        check_race_free(compute, PATH, Frontier.all_vertices(PATH, target=target), functor,
                        *arrays)
    assert isinstance(info.value, IndexError)
    assert all(not target.to_host(a)[-1] for a in arrays)  # never written before the start


def test_a_negative_index_in_a_second_dimension_is_refused_too():
    table = np.zeros((8, 8), np.int64)
    with pytest.raises(FunctorIndexError, match="index -1 is negative, into an array of shape "
                                                r"\(8, 8\)"):
        check_race_free(compute, PATH, "vertices", two_d_negative_column, table, target="cpu")


def test_negative_slice_bounds_are_left_alone():
    def last_two(v, values, out):
        out[v] = values[-2:].sum()

    out = np.zeros(8, np.int64)
    check_race_free(compute, PATH, "vertices", last_two, np.arange(8), out, target="cpu")
    assert out.tolist() == [13] * 8


# every library algorithm passes -----------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_catalog_algorithm_is_race_free(name, target):
    entry = CATALOG[name]
    graph = generators.from_spec(entry.example or ("rmat:4" if target.simulated else "rmat:5"))
    source = 0 if entry.source else None
    result = check_race_free(entry.invoke, graph, source, balancer="thread", target=target)
    entry.check(graph, source, result)


@pytest.mark.simulator
@pytest.mark.skipif(not SIMULATED, reason="the balancers spread work only on CUDA")
@pytest.mark.parametrize("name", sorted(n for n in CATALOG if CATALOG[n].balanced))
def test_balanced_catalog_algorithms_are_race_free_with_a_warp_per_vertex(name):
    """Many threads share one vertex's edges: the work items are still the edges."""
    entry = CATALOG[name]
    graph = generators.from_spec(entry.example or "rmat:4")
    source = 0 if entry.source else None
    result = check_race_free(entry.invoke, graph, source, balancer="warp", target="cuda")
    entry.check(graph, source, result)
