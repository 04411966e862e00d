"""The pool of page-locked blocks results are copied into (frontier/runtime/pinned.py): which copies
get a block, that a block comes back only when no view of its result is alive, the bounds on what
it pins, and the same from several threads. The pool is tested with NumPy memory standing in
for pinned memory; the cuda target's copies through it are tested in test_cuda_target.py."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

from frontier.runtime.pinned import BLOCKS_PER_CLASS, MIN_BYTES, PinnedPool, size_class

N = MIN_BYTES // 4  # int32 elements of the smallest copy a block takes


def pool(limit: int | None = None) -> tuple[PinnedPool, list[int]]:
    made: list[int] = []

    def allocate(nbytes: int) -> np.ndarray:
        made.append(nbytes)
        return np.empty(nbytes, np.uint8)

    return PinnedPool(allocate, limit), made


def address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def test_a_size_class_rounds_up_by_at_most_an_eighth():
    for nbytes in (MIN_BYTES, MIN_BYTES + 1, 3 * MIN_BYTES + 5, 16 << 20, (16 << 20) + 1,
                   123_456_789):
        cls = size_class(nbytes)
        assert nbytes <= cls <= nbytes + nbytes / 8 + 1
        assert size_class(cls) == cls


def test_a_copy_below_the_smallest_block_is_never_lent_one():
    p, made = pool()
    for _ in range(3):
        assert p.borrow((N - 1,), np.int32) is None
    assert made == []


def test_the_first_copy_of_a_size_is_pageable_and_the_second_pins_a_block():
    p, made = pool()
    assert p.borrow((N,), np.int32) is None
    host = p.borrow((N,), np.int32)
    assert host is not None and host.shape == (N,) and host.dtype == np.int32
    assert host.flags.c_contiguous and host.flags.writeable
    assert made == [size_class(MIN_BYTES)]


def test_a_block_comes_back_when_its_last_view_is_collected_and_not_before():
    p, made = pool()
    p.borrow((N,), np.int32)
    first = p.borrow((N,), np.int32)
    half = first[N // 2:]
    del first
    gc.collect()
    second = p.borrow((N,), np.int32)  # the first block is still viewed by half: a new one
    assert len(made) == 2 and not np.shares_memory(half, second)
    blocks = {address(half) - MIN_BYTES // 2, address(second)}
    del half, second
    gc.collect()
    again = [p.borrow((N,), np.float32) for _ in range(2)]  # the same class: both come back
    assert len(made) == 2 and {address(a) for a in again} == blocks


def test_a_kept_result_is_never_lent_again():
    p, _ = pool()
    p.borrow((N,), np.int64)
    kept = [p.borrow((N,), np.int64) for _ in range(BLOCKS_PER_CLASS)]
    for i, array in enumerate(kept):
        array[:] = i
    for _ in range(3):
        assert p.borrow((N,), np.int64) is None  # every block of the class is leased
    for i, array in enumerate(kept):
        assert np.all(array == i)


def test_the_pool_pins_at_most_its_limit():
    cls = size_class(MIN_BYTES)
    p, made = pool(limit=2 * cls)
    p.borrow((N,), np.int32)
    kept = [p.borrow((N,), np.int32) for _ in range(3)]
    assert kept[2] is None and sum(made) == 2 * cls == p.pinned_bytes


def test_a_refused_pinning_means_pageable_copies_of_that_size_from_then_on():
    calls = []

    def refuse(nbytes: int) -> np.ndarray:
        calls.append(nbytes)
        raise MemoryError("no pinned memory")

    p = PinnedPool(refuse)
    for _ in range(4):
        assert p.borrow((N,), np.int32) is None
    assert len(calls) == 1 and p.pinned_bytes == 0


def test_threads_borrowing_at_once_never_share_a_block():
    p, _ = pool()
    p.borrow((N,), np.int32)
    errors: list[str] = []
    barrier = threading.Barrier(8)

    def work(k: int) -> None:
        barrier.wait()
        for round_ in range(50):
            host = p.borrow((N,), np.int32)
            if host is None:
                continue
            host[:] = k * 1000 + round_
            if not np.all(host == k * 1000 + round_):
                errors.append(f"thread {k} round {round_}: its block was written by another")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.uint8])
def test_a_lent_array_has_the_shape_and_dtype_asked_for(dtype):
    p, _ = pool()
    shape = (MIN_BYTES // np.dtype(dtype).itemsize // 4, 4)
    p.borrow(shape, dtype)
    host = p.borrow(shape, dtype)
    assert host.shape == shape and host.dtype == dtype and host.flags.c_contiguous
