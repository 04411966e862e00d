"""Device arrays as inputs (frontier.runtime.device_arrays, frontier.device_graph): graphs built
from arrays on the GPU equal graphs built from the same arrays on the host, and bad device arrays
raise the host arrays' errors. Numba device arrays run in the simulator; CuPy and PyTorch
arrays need a real GPU (marked ``gpu``)."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

from frontier import Graph
from frontier.errors import GraphError
from frontier.runtime.cuda_support import cuda_usable
from frontier.runtime.device_arrays import descents, extremes, flaws, is_device_array, view

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
GPU = cuda_usable() and not SIMULATED

pytestmark = pytest.mark.skipif(not cuda_usable(), reason="needs a GPU or the CUDA simulator")


def _numba(a: np.ndarray):
    from numba import cuda

    return cuda.to_device(a)


def _cupy(a: np.ndarray):
    cupy = pytest.importorskip("cupy")
    return cupy.asarray(a)


def _torch(a: np.ndarray):
    torch = pytest.importorskip("torch")
    return torch.as_tensor(a, device="cuda")


def _dlpack_only(a: np.ndarray):
    """A CuPy array seen only through DLPack (no ``__cuda_array_interface__``)."""
    inner = _cupy(a)

    class OnlyDLPack:
        def __dlpack__(self, **kwargs):
            return inner.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return inner.__dlpack_device__()

    return OnlyDLPack()


_GPU_ONLY = pytest.mark.skipif(not GPU, reason="needs a real GPU")
DEVICE_KINDS = [
    pytest.param(_numba, id="numba", marks=pytest.mark.simulator),
    pytest.param(_cupy, id="cupy", marks=[pytest.mark.gpu, _GPU_ONLY]),
    pytest.param(_torch, id="torch", marks=[pytest.mark.gpu, _GPU_ONLY]),
    pytest.param(_dlpack_only, id="dlpack", marks=[pytest.mark.gpu, _GPU_ONLY]),
]


@pytest.fixture(params=DEVICE_KINDS)
def device(request):
    """Puts a host array on the GPU as one library or protocol holds it."""
    return request.param


def test_device_arrays_are_recognized_and_host_ones_are_not(device):
    assert is_device_array(device(np.arange(3)))
    assert not any(is_device_array(x) for x in (np.arange(3), [1, 2], 3, None))


def test_checks_on_the_device_return_what_numpy_finds(device):
    ids = np.array([3, -1, 7, 2], np.int32)
    assert extremes(device(ids)) == (-1, 7)
    assert descents(device(ids)) == 2
    assert extremes(device(np.array([2**63 + 5, 3], np.uint64))) == (3, 2**63 + 5)
    assert flaws(device(np.array([1.5, np.nan, -2.0, np.inf, 4.0]))) == (2, 1, 1)


def test_a_view_reads_the_callers_memory_without_a_copy(device):
    a = device(np.arange(4, dtype=np.int64))
    seen = view(a)
    assert np.array_equal(seen.copy_to_host(), np.arange(4))
    if hasattr(a, "__cuda_array_interface__"):
        assert (seen.__cuda_array_interface__["data"][0]
                == a.__cuda_array_interface__["data"][0])


def _same(a: Graph, b: Graph) -> None:
    assert (a.num_vertices, a.num_edges, a.directed, a.weighted) == (
        b.num_vertices, b.num_edges, b.directed, b.weighted)
    assert np.array_equal(a.row_offsets, b.row_offsets)
    assert np.array_equal(a.col_indices, b.col_indices)
    assert a.col_indices.dtype == b.col_indices.dtype
    if a.weighted:
        assert np.array_equal(a.weights, b.weights) and a.weights.dtype == b.weights.dtype


CSR = (np.array([0, 2, 3, 4, 4]), np.array([1, 2, 0, 0], np.int64))


@pytest.mark.parametrize("weights", [None, np.array([1.5, 2, 3, 4], np.float32),
                                     np.array([1, 2, 3, 4], np.uint64)])
def test_from_csr_of_device_arrays_equals_from_csr_of_host_arrays(device, weights):
    offs, cols = CSR
    host = Graph.from_csr(offs, cols, weights)
    on_gpu = Graph.from_csr(device(offs), device(cols),
                            None if weights is None else device(weights))
    assert on_gpu.on_device and not host.on_device
    _same(on_gpu, host)


def test_a_device_graph_keeps_its_own_copies_and_uploads_nothing(device):
    from frontier.target import resolve_target

    offs, cols = CSR
    d_offs, d_cols = device(offs), device(cols.astype(np.int32))
    graph = Graph.from_csr(d_offs, d_cols)
    arrays = graph.device_arrays(resolve_target("cuda"))
    assert graph._host_csr is None  # nothing copied to the host yet
    assert np.array_equal(view(arrays.col_indices).copy_to_host(), cols)
    assert np.array_equal(graph.out_degrees(), np.diff(offs))  # a host consumer: copied now
    _same(pickle.loads(pickle.dumps(graph)), Graph.from_csr(offs, cols))


def test_undirected_device_csr_is_checked_for_paired_arcs(device):
    offs, cols = np.array([0, 1, 2]), np.array([1, 0])
    _same(Graph.from_csr(device(offs), device(cols), directed=False),
          Graph.from_csr(offs, cols, directed=False))
    with pytest.raises(GraphError, match="no matching reverse arc"):
        Graph.from_csr(device(offs), device(np.array([1, 1])), directed=False)


def test_symmetrize_and_undirected_weights_from_device_arrays_equal_the_host_graph(device):
    offs, cols = CSR
    _same(Graph.from_csr(device(offs), device(cols), directed=False, symmetrize=True),
          Graph.from_csr(offs, cols, directed=False, symmetrize=True))
    u_offs, u_cols, w = np.array([0, 1, 2]), np.array([1, 0]), np.array([2.0, 2.0])
    _same(Graph.from_csr(device(u_offs), device(u_cols), device(w), directed=False),
          Graph.from_csr(u_offs, u_cols, w, directed=False))


def test_from_edges_of_device_arrays_equals_from_edges_of_host_arrays(device):
    src, dst, w = np.array([2, 0, 1, 0]), np.array([0, 1, 2, 2]), np.array([1.0, 2, 3, 4])
    _same(Graph.from_edges(device(src), device(dst), device(w), directed=False),
          Graph.from_edges(src, dst, w, directed=False))


BAD_CSR = [
    ("wrong dtype of ids", CSR[0], np.array([1.5, 2, 0, 0]), None),
    ("id out of range", CSR[0], np.array([1, 2, 0, 9]), None),
    ("negative id", CSR[0], np.array([1, -2, 0, 0]), None),
    ("offsets fall", np.array([0, 3, 2, 4, 4]), CSR[1], None),
    ("offsets end short", np.array([0, 2, 3, 3, 3]), CSR[1], None),
    ("offsets of floats", CSR[0].astype(float), CSR[1], None),
    ("weights of the wrong length", *CSR, np.array([1.0, 2.0])),
    ("weights not finite", *CSR, np.array([1.0, np.inf, 2.0, 3.0])),
    ("weights of bools", *CSR, np.array([True, False, True, True])),
    ("weights past int64", *CSR, np.array([1, 2**63, 3, 4], np.uint64)),
]


@pytest.mark.parametrize("case, offs, cols, weights", BAD_CSR, ids=[c[0] for c in BAD_CSR])
def test_bad_device_csr_raises_the_host_error(device, case, offs, cols, weights):
    with pytest.raises(GraphError) as host:
        Graph.from_csr(offs, cols, weights)
    with pytest.raises(GraphError) as on_gpu:
        Graph.from_csr(device(offs), device(cols), None if weights is None else device(weights))
    assert str(on_gpu.value) == str(host.value)
