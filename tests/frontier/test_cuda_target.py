"""The cuda target's own transfers (frontier/target.py): single elements read back from their
address, small arrays written by the driver's asynchronous copy and fills by its memsets (no
launch) in stream order with the kernels around them, large arrays copied back into the pinned
pool's blocks, small ones into new arrays (both by the driver's copy), and working arrays from
the device pool (on a GPU; the simulator copies and allocates as Numba does); on a GPU and in
the simulator alike."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from frontier.runtime.cuda_support import cuda_usable
from frontier.runtime.pinned import BLOCKS_PER_CLASS, MIN_BYTES
from frontier.runtime.target import ASYNC_BYTES
from frontier.target import resolve_target

pytestmark = pytest.mark.skipif(not cuda_usable(), reason="needs a GPU or the CUDA simulator")


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint8, np.float64])
def test_a_scalar_read_gives_the_element_of_the_array_and_of_its_views(dtype):
    cuda = resolve_target("cuda")
    host = (np.arange(40) * 3 + 1).astype(dtype)
    device = cuda.to_device(host)
    for array, values in ((device, host), (device[5:17], host[5:17]), (device[::3], host[::3])):
        for index in (0, 1, values.size // 2, values.size - 1):
            assert cuda.read_scalar(array, index) == values[index].item()


def test_a_scalar_read_past_either_end_raises_index_error():
    cuda = resolve_target("cuda")
    device = cuda.to_device(np.arange(6, dtype=np.int32))
    for index in (6, 100, -1):
        with pytest.raises(IndexError):
            cuda.read_scalar(device, index)


@pytest.mark.parametrize("values", [[7], [1, 2, 3, 4, 5, 6, 7, 8], [0.5, -2.25], [2**40, -3]])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.float32, np.float64])
def test_numbers_uploaded_arrive_as_they_were_small_or_large(values, dtype):
    cuda = resolve_target("cuda")
    host = np.array(values).astype(dtype)
    device = cuda.to_device(np.zeros(9, dtype))
    cuda.upload(device, host)  # small: the asynchronous copy
    assert np.array_equal(cuda.to_host(device)[:host.size], host)
    big = np.arange(ASYNC_BYTES // np.dtype(dtype).itemsize + 1, dtype=dtype)  # a copy
    large = cuda.to_device(np.zeros(big.size + 3, dtype))
    cuda.upload(large, big)
    assert np.array_equal(cuda.to_host(large)[:big.size], big)
    with pytest.raises(IndexError):
        cuda.upload(device, np.arange(10, dtype=dtype))


def test_a_scalar_written_lands_at_its_index_and_one_past_either_end_raises_index_error():
    cuda = resolve_target("cuda")
    device = cuda.to_device(np.zeros(6, dtype=np.int64))
    cuda.write_scalar(device, 4, 2**40 + 3)
    cuda.write_scalar(device[2:], 0, -7)  # a view: its own first element
    assert cuda.to_host(device).tolist() == [0, 0, -7, 0, 2**40 + 3, 0]
    cuda.write_scalar(device[1::2], 2, 9)  # a strided view: its element 2 is element 5
    assert cuda.to_host(device).tolist() == [0, 0, -7, 0, 2**40 + 3, 9]
    for index in (6, 100, -1):
        with pytest.raises(IndexError):
            cuda.write_scalar(device, index, 1)


_COPY_FIRST = """
def _copy_first(src, dst, k):
    if cuda.grid(1) == 0:
        dst[k] = src[0]
"""


def test_writes_keep_their_order_with_the_kernels_around_them_and_take_values_at_the_call():
    cuda = resolve_target("cuda")
    copy_first = cuda.compile_source("_copy_first", _COPY_FIRST, {})
    # the simulator runs every call in order as it comes: a few rounds behind a small fill
    # take each path there (on a GPU, many behind a large one give a write room to overtake)
    rounds = 3 if cuda.simulated else 40
    src = cuda.zeros(1, np.int64)
    dst = cuda.full(2 * rounds, -1, np.int64)
    slow = cuda.empty(1 << 8 if cuda.simulated else 1 << 20, np.float64)
    for k in range(rounds):
        cuda.fill(slow, k + 0.5)  # queued work the writes must wait behind, not overtake
        cuda.write_scalar(src, 0, k)
        cuda.launch(copy_first, 1, 32, (src, dst, np.int64(2 * k)))
        values = np.array([1000 + k], np.int64)
        cuda.upload(src, values)
        values[0] = -5  # the caller's array changed at once: the write took it already
        cuda.launch(copy_first, 1, 32, (src, dst, np.int64(2 * k + 1)))
    expected = [v for k in range(rounds) for v in (k, 1000 + k)]
    assert cuda.to_host(dst).tolist() == expected


@pytest.mark.parametrize(("dtype", "value"), [
    (np.int8, -3), (np.uint8, 200), (np.int16, -2), (np.int32, -1), (np.int32, 123456),
    (np.uint32, 2**32 - 2), (np.int64, -1), (np.int64, 0), (np.int64, 2**33 + 5),
    (np.float32, 1.5), (np.float64, 0.0), (np.float64, -0.0), (np.float64, 2.75)])
def test_a_fill_sets_every_element_and_nothing_else_whether_memset_or_kernel(dtype, value):
    from frontier.runtime.recording import recording

    cuda = resolve_target("cuda")
    whole = cuda.to_device(np.arange(37).astype(dtype))
    with recording() as log:
        cuda.fill(whole, value)
    expected = np.full(37, value, dtype=dtype)
    assert cuda.to_host(whole).tobytes() == expected.tobytes()
    raw = expected[:1].tobytes()
    repeats = len(raw) < 8 or raw[:4] == raw[4:]  # a pattern the driver's memsets set
    assert [launch.name for launch in log] == ([] if repeats and not cuda.simulated
                                               else ["_fill"])
    host = np.arange(37).astype(dtype)
    strided = cuda.to_device(host)
    cuda.fill(strided[1::3], value)  # not contiguous: the kernel, every third element
    host[1::3] = value
    assert cuda.to_host(strided).tobytes() == host.tobytes()
    part = cuda.to_device(np.arange(37).astype(dtype))
    cuda.fill(part[5:11], value)
    host = np.arange(37).astype(dtype)
    host[5:11] = value
    assert cuda.to_host(part).tobytes() == host.tobytes()


@pytest.mark.parametrize("value", [0, 7])
def test_a_fill_of_a_two_dimensional_array_sets_every_element(value):
    cuda = resolve_target("cuda")
    square = cuda.full((5, 3), value, np.int64)
    assert cuda.to_host(square).tolist() == [[value] * 3] * 5
    host = np.arange(48, dtype=np.float64).reshape(6, 8)
    whole = cuda.to_device(host)
    cuda.fill(whole[1::2, 2:5], value + 0.5)  # a strided view: only its elements
    host[1::2, 2:5] = value + 0.5
    assert cuda.to_host(whole).tobytes() == host.tobytes()


def test_small_two_dimensional_and_strided_arrays_sent_to_the_device_arrive_as_they_were():
    cuda = resolve_target("cuda")
    square = np.arange(35, dtype=np.float32).reshape(5, 7)
    for host in (square, square.T, square[:, ::2], np.arange(40, dtype=np.int64)[::3],
                 np.float64(2.5)):
        device = cuda.to_device(host)
        expected = np.ascontiguousarray(host).reshape(np.shape(host) or (1,))
        assert device.shape == expected.shape
        assert np.array_equal(cuda.to_host(device), expected)


@pytest.mark.parametrize("values", [[7], [1, 2, 3, 4, 5, 6, 7, 8], [0.5, -2.25], [2**40, -3],
                                    list(range(9)), list(range(2000))])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint8, np.float32,
                                   np.float64])
def test_a_small_array_sent_to_the_device_arrives_as_it_was_and_its_host_copy_may_change(
        values, dtype):
    from frontier.runtime.recording import recording

    cuda = resolve_target("cuda")
    host = np.array(values).astype(dtype)
    with recording() as log:
        device = cuda.to_device(host)
    expected = host.copy()
    host[:] = 0  # the values were taken at the call: changing the host array later is harmless
    assert device.dtype == expected.dtype and device.shape == expected.shape
    assert np.array_equal(cuda.to_host(device), expected)
    assert [launch.name for launch in log] == []


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_large_copies_back_are_exact_and_a_kept_copy_is_never_overwritten(dtype):
    cuda = resolve_target("cuda")
    n = (3 * MIN_BYTES) // np.dtype(dtype).itemsize  # copied into pinned blocks on a GPU
    kept = []
    for k in range(2 * BLOCKS_PER_CLASS + 2):
        device = cuda.to_device(np.arange(n, dtype=dtype) + k)
        copy = cuda.to_host(device)
        assert np.array_equal(copy, np.arange(n, dtype=dtype) + k)
        if k % 2:  # half the copies kept, half dropped (their blocks lent again)
            kept.append((k, copy))
    for k, copy in kept:
        assert np.array_equal(copy, np.arange(n, dtype=dtype) + k)


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.float32])
def test_small_copies_back_are_fresh_exact_arrays_of_any_shape(dtype):
    cuda = resolve_target("cuda")
    for host in (np.arange(0), np.arange(1), np.arange(7), np.arange(24).reshape(4, 6)):
        host = host.astype(dtype)
        device = cuda.to_device(host)
        first = cuda.to_host(device)
        assert first.dtype == host.dtype and np.array_equal(first, host)
        if host.size:
            cuda.write_scalar(device.reshape(-1), 0, 9)  # the device array changes after the read
            second = cuda.to_host(device)
            assert np.array_equal(first, host) and second.reshape(-1)[0] == 9
            assert not np.shares_memory(first, second)
            assert np.array_equal(cuda.to_host(cuda.to_device(host)[1:]), host[1:])


def test_large_copies_of_views_and_of_two_dimensional_arrays_are_exact():
    cuda = resolve_target("cuda")
    host = np.arange(3 * MIN_BYTES // 4, dtype=np.int32)
    device = cuda.to_device(host)
    for _ in range(3):
        assert np.array_equal(cuda.to_host(device[1000:]), host[1000:])
        assert np.array_equal(cuda.to_host(device[::2]), host[::2])
        square = host[: 1024 * 700].reshape(1024, 700)
        assert np.array_equal(cuda.to_host(cuda.to_device(square)), square)


def test_working_arrays_alive_at_once_never_share_memory_and_keep_their_values():
    cuda = resolve_target("cuda")
    kept = []
    for round_ in range(3):
        made = []
        for k in range(6):
            array = cuda.empty(1000 + 37 * k, np.int64)  # sizes the pool can hand out again
            cuda.fill(array, 100 * round_ + k)
            made.append((100 * round_ + k, array))
        kept.extend(made[::2])  # the others are collected, their memory reused by the next
        del made
        gc.collect()
    for value, array in kept:
        assert np.all(cuda.to_host(array) == value)
    shape = cuda.empty((3, 5), np.float32)
    assert shape.shape == (3, 5) and shape.strides == (20, 4)
    assert cuda.empty(0, np.int32).size == 0


@pytest.mark.skipif(resolve_target("cuda").simulated if cuda_usable() else True,
                    reason="the simulator has no device pool")
def test_memory_a_dropped_working_array_held_is_the_pools_to_reuse_and_counts_as_free():
    cuda = resolve_target("cuda")
    pool = cuda._device_pool()
    if pool is None:
        pytest.skip("this device has no memory pools")
    array = cuda.empty(64 << 20, np.uint8)
    cuda.fill(array, 1)
    del array
    gc.collect()
    cuda.empty(1, np.uint8)  # frees what was collected
    cuda.synchronize()
    idle = pool.idle_bytes()  # this process's own pool: other processes cannot change it
    assert idle >= 62 << 20  # the one byte made since may have taken a 2 MB page of it
    assert cuda.free_bytes() >= idle
