"""The functors' atomics compiled for the CPU are the processor's atomic instructions
(frontier/runtime/cpu_atomics.py): under contention, several threads hammering one element,
every operation of :data:`frontier.runtime.atomics.__all__` keeps its promise exactly (counts add
up, every claimed slot is distinct, a minimum is the least value offered, ...), for every
element type it takes. Each kernel runs its threads through the cpu target's team
(frontier/runtime/cpu_threads.py), as generated kernels do. The one-thread target's code keeps
plain read-modify-writes."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from frontier.runtime import atomics, cpu_threads
from frontier.runtime.atomics import (
    atomic_add,
    atomic_cas,
    atomic_claim,
    atomic_exch,
    atomic_load,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_store,
)
from frontier.runtime.target import CpuTarget

#: Threads hammering one element, and operations each makes.
THREADS = 4
CALLS = 20_000

INTEGERS = (np.int32, np.int64, np.uint32, np.uint64)
FLOATS = (np.float32, np.float64)


def hammer(kernel, *arrays) -> None:
    """``kernel(tid, nthreads, team, *arrays)`` on :data:`THREADS` threads at once."""
    cpu_threads.run(numba.njit(nogil=True)(kernel), THREADS, arrays)


def _add(tid, nthreads, team, a):
    for _ in range(CALLS):
        atomic_add(a, 0, 1)


def _claim(tid, nthreads, team, counter, slots):
    for k in range(CALLS):
        slots[tid * CALLS + k] = atomic_claim(counter, 0)


def _min(tid, nthreads, team, a, offered, seen):
    for k in range(CALLS):
        seen[tid * CALLS + k] = atomic_min(a, 0, offered[tid * CALLS + k])


def _max(tid, nthreads, team, a, offered, seen):
    for k in range(CALLS):
        seen[tid * CALLS + k] = atomic_max(a, 0, offered[tid * CALLS + k])


def _cas_counter(tid, nthreads, team, a):
    for _ in range(CALLS):
        old = atomic_load(a, 0)
        while True:
            seen = atomic_cas(a, 0, old, old + 1)
            if seen == old:
                break
            old = seen


def _exch(tid, nthreads, team, a, seen):
    for k in range(CALLS):
        seen[tid * CALLS + k] = atomic_exch(a, 0, tid * CALLS + k + 1)


def _or(tid, nthreads, team, words, firsts):
    for k in range(CALLS):
        bit = (tid * CALLS + k) % 64
        if (atomic_or(words, 0, np.uint64(1) << np.uint64(bit)) >> np.uint64(bit)) & 1 == 0:
            atomic_add(firsts, 0, 1)


def _store_load(tid, nthreads, team, a, seen):
    for k in range(CALLS):
        atomic_store(a, 0, tid + 1)
        seen[tid * CALLS + k] = atomic_load(a, 0)


def test_the_stress_tests_cover_every_atomic():
    covered = {"atomic_add", "atomic_claim", "atomic_min", "atomic_max", "atomic_cas",
               "atomic_exch", "atomic_or", "atomic_load", "atomic_store"}
    assert covered == set(atomics.__all__)


@pytest.mark.parametrize("dtype", INTEGERS + FLOATS)
def test_concurrent_atomic_adds_all_count(dtype):
    a = np.zeros(1, dtype)
    hammer(_add, a)
    assert a[0] == THREADS * CALLS


@pytest.mark.parametrize("dtype", (np.int32, np.int64))
def test_concurrent_claims_hand_out_every_slot_once(dtype):
    counter = np.zeros(1, dtype)
    slots = np.full(THREADS * CALLS, -1, np.int64)
    hammer(_claim, counter, slots)
    assert counter[0] == THREADS * CALLS
    assert np.array_equal(np.sort(slots), np.arange(THREADS * CALLS))


@pytest.mark.parametrize("dtype", INTEGERS + FLOATS)
@pytest.mark.parametrize("kernel", [_min, _max])
def test_concurrent_extremes_keep_the_extreme_offered_and_return_values_held(kernel, dtype):
    rng = np.random.default_rng(7)
    offered = rng.integers(1, 10_000_000, THREADS * CALLS).astype(dtype)
    start = dtype(20_000_000) if kernel is _min else dtype(0)
    a = np.array([start], dtype)
    seen = np.zeros(THREADS * CALLS, dtype)
    hammer(kernel, a, offered, seen)
    want = offered.min() if kernel is _min else offered.max()
    assert a[0] == want
    held = np.concatenate([[start], offered])
    assert np.isin(seen, held).all()  # every old value is one that was held
    # the values a thread saw only improve: the held value moved one way
    per_thread = seen.reshape(THREADS, CALLS)
    steps = np.diff(per_thread.astype(np.float64), axis=1)
    assert (steps <= 0).all() if kernel is _min else (steps >= 0).all()


@pytest.mark.parametrize("dtype", INTEGERS + FLOATS)
def test_a_counter_made_of_compare_and_swap_loses_no_increment(dtype):
    a = np.zeros(1, dtype)
    hammer(_cas_counter, a)
    assert a[0] == THREADS * CALLS


@pytest.mark.parametrize("dtype", (np.int64, np.float64))
def test_concurrent_exchanges_hand_every_value_on_once(dtype):
    a = np.zeros(1, dtype)
    seen = np.zeros(THREADS * CALLS, dtype)
    hammer(_exch, a, seen)
    everything = np.sort(np.concatenate([seen, a]))
    assert np.array_equal(everything, np.arange(THREADS * CALLS + 1, dtype=dtype))


def test_concurrent_ors_set_every_bit_and_each_bit_is_new_to_one_caller():
    words = np.zeros(1, np.uint64)
    firsts = np.zeros(1, np.int64)
    hammer(_or, words, firsts)
    assert words[0] == np.uint64(2**64 - 1)
    assert firsts[0] == 64


def test_relaxed_loads_see_only_values_stored():
    a = np.zeros(1, np.int64)
    seen = np.zeros(THREADS * CALLS, np.int64)
    hammer(_store_load, a, seen)
    assert 1 <= a[0] <= THREADS
    assert ((seen >= 1) & (seen <= THREADS)).all()


@numba.njit
def _one_of_each(a, f, u):
    return (atomic_add(a, 0, 5), atomic_min(a, 1, -3), atomic_max(a, 2, 9),
            atomic_cas(a, 3, 7, 8), atomic_cas(a, 4, 1, 2), atomic_exch(a, 5, 11),
            atomic_claim(a, 6), atomic_load(a, -1), atomic_or(u, 0, 6),
            atomic_min(f, 0, -2.0), atomic_max(f, 1, 3.0), atomic_min(f, 2, 5.0),
            atomic_cas(f, 3, 0.0, 7.0), atomic_add(f, 4, 1.5))


def test_each_atomic_returns_the_old_value_and_stores_what_the_plain_code_would():
    a = np.array([1, 2, 3, 7, 4, 6, 0, 99], np.int64)
    f = np.array([0.0, 0.0, 1.0, 0.0, 0.5])
    u = np.array([1], np.uint32)
    assert _one_of_each(a, f, u) == (1, 2, 3, 7, 4, 6, 0, 99, 1, 0.0, 0.0, 1.0, 0.0, 0.5)
    assert a.tolist() == [6, -3, 9, 8, 4, 11, 1, 99]
    assert f.tolist() == [-2.0, 3.0, 1.0, 7.0, 2.0]
    assert u[0] == 7


@numba.njit
def _exchanges(a, f):
    return atomic_exch(a, 0, 5), atomic_exch(f, 0, -0.0), atomic_exch(f, 1, 2.5)


def test_an_exchange_for_the_value_held_keeps_it_and_one_for_another_bit_pattern_stores_it():
    """An exchange that would store the value held makes no locked instruction; -0.0 is not
    0.0's bit pattern, so it is stored."""
    a, f = np.array([5], np.int64), np.array([0.0, 2.5])
    assert _exchanges(a, f) == (5, 0.0, 2.5)
    assert a[0] == 5 and np.signbit(f[0]) and f[1] == 2.5
    assert "atomicrmw xchg" in "".join(_exchanges.inspect_llvm().values())


@numba.njit
def _unsigned_extremes(w):
    return atomic_max(w, 0, np.uint32(7)), atomic_min(w, 1, np.uint32(1))


def test_unsigned_extremes_compare_as_unsigned():
    w = np.array([0xFFFFFFF0, 5], np.uint32)
    assert _unsigned_extremes(w) == (0xFFFFFFF0, 5)
    assert w.tolist() == [0xFFFFFFF0, 1]


def _add_one(a):
    return atomic_add(a, 0, 1)


def test_one_threads_code_makes_plain_updates_and_parallel_code_atomic_instructions():
    for threads, atomic in ((1, False), (2, True)):
        kernel = CpuTarget(threads).compile_kernel(_add_one)
        a = np.zeros(1, np.int64)
        assert kernel(a) == 0 and a[0] == 1
        assert ("atomicrmw" in "".join(kernel.inspect_llvm().values())) == atomic, threads
    helper = numba.njit(_add_one)  # any other caller: the atomic instruction
    helper(np.zeros(1, np.int64))
    assert "atomicrmw" in "".join(helper.inspect_llvm().values())
