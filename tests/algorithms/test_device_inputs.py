"""Algorithm inputs given as device arrays (list_ranking's successors, bfs ``sources``,
pagerank's vectors, graphs from device CSR arrays) give the results of the same inputs given as
host arrays, on either target, and bad ones raise the host inputs' errors; ``target="auto"`` runs
a call with a device input (list_ranking, pagerank) on the GPU, however small. The device kinds
(Numba in the simulator; CuPy, PyTorch and DLPack on a real GPU) come from
tests/frontier/test_device_arrays.py."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms import bfs, list_ranking, pagerank
from algorithms.list_ranking import ListError
from frontier import Graph
from frontier import target as target_module
from frontier.placement import choose
from frontier.runtime.cuda_support import cuda_usable
from frontier.runtime.device_arrays import to_host
from tests.frontier.test_device_arrays import DEVICE_KINDS
from tests.pairs import pairwise
from tests.tiers import TARGETS

pytestmark = pytest.mark.skipif(not cuda_usable(), reason="needs a GPU or the CUDA simulator")


@pytest.fixture(params=DEVICE_KINDS)
def device(request):
    return request.param


SUCC = np.array([3, 4, 0, 1, 4])  # 2 -> 0 -> 3 -> 1 -> 4


@pairwise(target=TARGETS, method=["wylie", "random_splitter"],
          dtype=[pytest.param(t, id=t.__name__) for t in (np.int32, np.int64, np.uint32)])
def test_list_ranking_of_device_successors_equals_host_successors(device, target, method,
                                                                  dtype):
    succ = SUCC.astype(dtype)
    given = device(succ)
    ranks = list_ranking(given, method=method, target=target).ranks
    assert np.array_equal(ranks, list_ranking(succ, method=method, target=target).ranks)
    assert np.array_equal(to_host(given), succ)  # not written


@pytest.fixture
def auto_as_on_a_gpu(monkeypatch):
    """``"auto"`` decided by the rule, as on a real GPU (the simulator's ``"auto"`` is the
    simulated GPU for every call)."""
    monkeypatch.setattr(target_module, "_auto", lambda graph, elements, deep, inputs=(): choose(
        graph, elements=elements, deep=deep, inputs=inputs).target)


@pytest.mark.usefixtures("auto_as_on_a_gpu")
def test_auto_ranks_a_device_list_on_the_gpu_and_a_tiny_host_list_on_one_core(device):
    on_gpu, on_host = list_ranking(device(SUCC)), list_ranking(SUCC)
    assert (on_gpu.target.name, on_host.target.name) == ("cuda", "cpu")
    assert np.array_equal(on_gpu.ranks, on_host.ranks)
    assert list_ranking(device(SUCC), target="cpu").target.name == "cpu"  # copied, as named


BAD_LISTS = [("out of range", np.array([3, 0, 9, 1, 4])), ("two tails", np.array([1, 1, 4, 1, 4])),
             ("shared node", np.array([4, 4, 0, 1, 4])), ("floats", np.array([1.0, 2, 2])),
             ("unsigned out of range", np.array([1, 7, 2], np.uint16)),
             ("two dimensions", np.zeros((2, 2), np.int64))]


@pytest.mark.parametrize("case, succ", BAD_LISTS, ids=[c[0] for c in BAD_LISTS])
def test_bad_device_successors_raise_the_host_error(device, target, case, succ):
    with pytest.raises(ListError) as host:
        list_ranking(succ, target=target)
    with pytest.raises(ListError) as on_gpu:
        list_ranking(device(succ), target=target)
    assert str(on_gpu.value) == str(host.value)


GRAPH = Graph.from_edges(np.array([0, 1, 2, 2, 3]), np.array([1, 2, 0, 3, 0]))


def test_bfs_from_device_sources_equals_host_sources(device, target):
    sources = np.array([3, 0])
    a = bfs(GRAPH, sources=device(sources), target=target)
    b = bfs(GRAPH, sources=sources, target=target)
    assert np.array_equal(a.distances, b.distances)
    with pytest.raises(ValueError, match="sources holds 7, out of range"):
        bfs(GRAPH, sources=device(np.array([0, 7])), target=target)


def test_bfs_on_a_graph_from_device_csr_equals_the_host_graph(device, target):
    offs, cols = GRAPH.row_offsets, GRAPH.col_indices
    a = bfs(Graph.from_csr(device(offs), device(cols)), 0, target=target)
    assert np.array_equal(a.distances, bfs(GRAPH, 0, target=target).distances)


def test_pagerank_with_device_vectors_equals_host_vectors(device, target):
    p, start = np.array([1.0, 2, 0, 1]), np.array([4, 1, 1, 1])
    given = device(p)
    a = pagerank(GRAPH, personalization=given, nstart=device(start), dangling=device(p),
                 target=target).ranks
    b = pagerank(GRAPH, personalization=p, nstart=start, dangling=p, target=target).ranks
    assert np.allclose(a, b, rtol=1e-12, atol=1e-15)
    assert np.array_equal(to_host(given), p)  # not written


BAD_VECTORS = [("negative", np.array([1.0, -2, 0, 1])), ("short", np.array([1.0, 2, 0])),
               ("all zero", np.zeros(4)), ("not finite", np.array([1.0, np.nan, 0, 1]))]


@pytest.mark.parametrize("case, values", BAD_VECTORS, ids=[c[0] for c in BAD_VECTORS])
def test_bad_device_vectors_raise_the_host_error(device, target, case, values):
    with pytest.raises(ValueError) as host:
        pagerank(GRAPH, personalization=values, target=target)
    with pytest.raises(ValueError) as on_gpu:
        pagerank(GRAPH, personalization=device(values), target=target)
    assert str(on_gpu.value) == str(host.value)


@pytest.mark.usefixtures("auto_as_on_a_gpu")
def test_auto_runs_pagerank_with_a_device_vector_on_the_gpu_whatever_the_graph(device):
    p = np.array([1.0, 2, 0, 1])
    on_gpu, on_host = pagerank(GRAPH, personalization=device(p)), pagerank(GRAPH, personalization=p)
    assert (on_gpu.target.name, on_host.target.name) == ("cuda", "cpu")
    assert np.allclose(on_gpu.ranks, on_host.ranks, rtol=1e-12, atol=1e-15)
