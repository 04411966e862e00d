"""The cuda target's own transfers (frontier/target.py): single elements read back from their
address, a few numbers written by the put kernel instead of a copy (``upload``), large arrays
copied back into the pinned pool's blocks and working arrays from the device pool (on a GPU; the
simulator copies and allocates as Numba does); on a GPU and in the simulator alike."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from frontier.pinned import BLOCKS_PER_CLASS, MIN_BYTES
from frontier.target import cuda_usable, resolve_target

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
def test_a_few_numbers_uploaded_arrive_as_they_were(values, dtype):
    cuda = resolve_target("cuda")
    host = np.array(values).astype(dtype)
    device = cuda.to_device(np.zeros(9, dtype))
    cuda.upload(device, host)  # at most eight: written by the put kernel
    assert np.array_equal(cuda.to_host(device)[:host.size], host)
    big = np.arange(9, dtype=dtype)  # past what the put kernel writes: a copy
    cuda.upload(device, big)
    assert np.array_equal(cuda.to_host(device), big)


@pytest.mark.parametrize("values", [[7], [1, 2, 3, 4, 5, 6, 7, 8], [0.5, -2.25], [2**40, -3],
                                    list(range(9))])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint8, np.float32,
                                   np.float64])
def test_a_small_array_sent_to_the_device_arrives_as_it_was_and_its_host_copy_may_change(
        values, dtype):
    from frontier.recording import recording

    cuda = resolve_target("cuda")
    host = np.array(values).astype(dtype)
    with recording() as log:
        device = cuda.to_device(host)
    expected = host.copy()
    host[:] = 0  # the values travel with the launch: changing the host array later is harmless
    assert device.dtype == expected.dtype and device.shape == expected.shape
    assert np.array_equal(cuda.to_host(device), expected)
    put = not cuda.simulated and host.size <= 8 and host.dtype != np.uint8 \
        and host.dtype != np.float32
    assert [launch.name for launch in log] == (["_put"] if put else [])


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
