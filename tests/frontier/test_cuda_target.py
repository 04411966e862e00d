"""The cuda target's own transfers (frontier/target.py): single elements read back from their
address, a few numbers written by the put kernel instead of a copy (``upload``); on a GPU and in
the simulator alike."""

from __future__ import annotations

import numpy as np
import pytest

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
