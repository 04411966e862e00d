"""The CUDA compile check without a GPU (issue 49, item 3): frontier.testing.check_cuda compiles
every functor a call runs for a CUDA architecture and names each one CUDA cannot build, with the
file and line of the statement refused; what the cpu target runs but a GPU does not build
(sorting, allocation, lists, dicts, sets, strings) is caught, and functors that build pass."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from frontier import Frontier, atomic_add, device_function, generators, out_degree
from frontier.runtime import cudacheck
from frontier.runtime.cudacheck import CudaCheckUnavailable
from frontier.testing import CudaCompileError, check_cuda, cuda_check_problem
from operators import FunctorIndexError, advance, compute
from tests.cuda_compiler import IN_PROCESS

pytestmark = IN_PROCESS

G = generators.path(5)


def _all() -> Frontier:
    return Frontier.all_vertices(G, target="cpu")


def sorts(v, out):
    out[v] = np.sort(out)[0]


def allocates(v, out):
    out[v] = np.zeros(3)[0]


def copies(v, out):
    out[v] = out.copy()[0]


def builds_a_list(v, out):
    out[v] = [v, v + 1][1]


def builds_a_dict(v, out):
    out[v] = {v: 1.0}[v]


def builds_a_set(v, out):
    out[v] = len({v})


def formats_a_string(v, out):
    out[v] = len(str(v))


def adds(v, out):
    atomic_add(out, v, 1.0)


#: Each feature the docs list as built by the cpu target but not by CUDA, with a functor using it.
UNSUPPORTED = [sorts, allocates, copies, builds_a_list, builds_a_dict, builds_a_set,
               formats_a_string]


def _refused_line(fn) -> int:
    """The line of ``fn``'s statement that uses the unsupported feature (its only one)."""
    return fn.__code__.co_firstlineno + 1


@pytest.mark.parametrize("functor", UNSUPPORTED, ids=lambda f: f.__name__)
def test_a_functor_using_what_cuda_cannot_build_is_named_with_its_file_and_line(functor):
    assert compute(G, _all(), functor, np.zeros(5)) is None  # the cpu target runs it
    with pytest.raises(CudaCompileError) as info:
        check_cuda(compute, G, _all(), functor, np.zeros(5))
    message = str(info.value)
    assert f"functor {functor.__name__} ({inspect.getsourcefile(functor)}:" in message
    assert f" line {_refused_line(functor)}: " in message
    assert isinstance(info.value, AssertionError)


@device_function
def doubled(values, v):
    return values[v] * 2


def builds_on_a_gpu(src, dst, eid, weight, counts, values, graph):
    atomic_add(counts, dst, 1)
    values[dst] = doubled(values, src) + out_degree(graph, src) + weight
    return True


def test_functors_that_build_pass_and_are_reported_with_their_argument_types():
    counts, values = np.zeros(5, np.int64), np.arange(5, dtype=np.float64)
    report = check_cuda(advance, G, _all(), builds_on_a_gpu, counts, values, output="none")
    assert report.ok and report.launches >= 1
    (checked,) = report.checked
    assert checked.name == "builds_on_a_gpu"
    assert checked.types.startswith("int64, int32, int64, int64, array(int64, 1d, C), "
                                    "array(float64, 1d, C), Tuple(")
    assert counts.tolist() == [1, 2, 2, 2, 1]  # the call ran, on the cpu target: in-degrees


def test_every_failing_functor_of_a_call_is_reported_and_the_others_compile():
    def two_calls():
        compute(G, _all(), sorts, np.zeros(5))
        compute(G, _all(), formats_a_string, np.zeros(5))
        compute(G, _all(), adds, np.zeros(5))

    report = cudacheck.check(two_calls)
    assert [f.name for f in report.failures] == ["sorts", "formats_a_string"]
    assert [c.name for c in report.checked] == ["adds"]
    assert "2 do not compile for CUDA sm_80" in report.text()


def test_a_closure_number_is_compiled_as_the_argument_kernels_pass_it():
    limit = 3

    def below(v, out):
        out[v] = v < limit

    report = check_cuda(compute, G, _all(), below, np.zeros(5, np.bool_))
    assert report.checked[0].types == "int64, int64, array(bool, 1d, C)"


def test_an_index_out_of_range_under_the_check_raises_functor_index_error():
    def before_the_start(v, out):
        out[v - 1] = 1

    with pytest.raises(FunctorIndexError, match="before_the_start"):
        check_cuda(compute, G, _all(), before_the_start, np.zeros(5))


@pytest.mark.parametrize("arch", ["sm_90", "9.0", "90", (9, 0)])
def test_the_architecture_may_be_named_in_several_forms(arch):
    assert check_cuda(compute, G, _all(), adds, np.zeros(5), arch=arch).arch == (9, 0)


@pytest.mark.parametrize("arch", ["sm_8", "volta", "sm_800", (8,)])
def test_a_malformed_architecture_is_refused_naming_it(arch):
    with pytest.raises(ValueError, match="CUDA architecture .*expected one like sm_80"):
        check_cuda(compute, G, _all(), sorts, np.zeros(5), arch=arch)


def test_an_architecture_the_compiler_does_not_build_is_refused_before_the_call_runs():
    ran = []
    with pytest.raises(CudaCheckUnavailable, match="sm_10 is not one this CUDA compiler builds"):
        check_cuda(ran.append, 1, arch="sm_10")
    assert ran == []
    assert "sm_10" in cuda_check_problem("sm_10")


def test_a_process_running_the_simulator_is_told_to_run_the_check_without_it(monkeypatch):
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    with pytest.raises(CudaCheckUnavailable, match="without the variable"):
        check_cuda(compute, G, _all(), sorts, np.zeros(5))
