"""``frontier.runtime.indices.as_index``: the identity from Python; compiled, an id of 32 or 64 bits
as the int64 of the same value, which the cpu target's kernels index with (no wrap-around test);
other targets read ids plainly. ``index_after(first, k)``: a chunk's elements after such an
index."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from frontier.runtime.indices import as_index, index_after
from frontier.runtime.target import CpuTarget, CudaTarget


def test_as_index_is_the_identity_from_python():
    assert as_index(7) == 7 and as_index(np.int32(5)) == 5


@numba.njit
def _read(ids, i):
    return as_index(ids[i])


@pytest.mark.parametrize("dtype, values", [
    (np.int32, [0, 1, 2**31 - 1]),
    (np.uint32, [0, 7, 2**32 - 1]),
    (np.int64, [0, 3, 2**40 + 5, 2**63 - 1]),
])
def test_every_valid_id_keeps_its_value_as_an_int64(dtype, values):
    ids = np.array(values, dtype=dtype)
    got = [_read(ids, i) for i in range(ids.size)]
    assert got == values
    assert _read.nopython_signatures[-1].return_type == numba.int64


@numba.njit
def _index_with(ids, data):
    total = 0
    for i in range(ids.size):
        total += data[as_index(ids[i])]
    return total


def test_an_id_read_through_it_indexes_the_element_it_names():
    data = np.arange(10, dtype=np.int64) * 10
    assert _index_with(np.array([9, 0, 4], dtype=np.int32), data) == 130


def test_only_the_cpu_target_compiles_the_reads_the_others_read_ids_plainly():
    text = "v = as_index(in_ids[i])\nw = has_index(v)\n"
    assert CpuTarget().index_reads(text) == text
    assert CudaTarget().index_reads(text) == "v = (in_ids[i])\nw = has_index(v)\n"


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_a_traversal_reads_its_heads_as_its_target_compiles_them(target):
    from algorithms import bfs
    from frontier import generators
    from operators import explain

    text = explain(bfs, generators.path(5), 0, target=target)
    assert ("dst = as_index(col_indices[e])" in text) == (target == "cpu")
    assert ("as_index" in text) == (target == "cpu")


@numba.njit
def _fill_chunk(out, first, count):
    start = as_index(first)
    for k in range(count):
        out[index_after(start, k)] = k


def test_a_chunks_elements_after_a_known_index_are_indices_without_wrap_around():
    """``index_after(first, k)`` is ``first + k``, an addition LLVM knows not to overflow: a
    chunk's loop then stores consecutive elements, no wrap-around test (no ``select``) and no
    scatter."""
    assert index_after(3, 4) == 7
    out = np.full(8, -1, np.int64)
    _fill_chunk(out, 2, 5)
    assert out.tolist() == [-1, -1, 0, 1, 2, 3, 4, -1]
    ir = "".join(_fill_chunk.inspect_llvm().values())
    assert "add nuw nsw" in ir or "add nsw nuw" in ir
    assert "scatter" not in "".join(_fill_chunk.inspect_asm().values())
