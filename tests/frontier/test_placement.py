"""The rule of ``target="auto"`` (:mod:`frontier.placement`) and where it applies
(:func:`frontier.target.resolve_target`): the GPU for a call with an input on the GPU, else the
cpu target for tiny inputs and for traversals of long thin graphs, the GPU otherwise; the cpu
target without a GPU, the simulated GPU in the simulator; on the CPU, every usable core for a
large call and one core for a small one, unless ``FRONTIER_NUM_THREADS`` says."""

from __future__ import annotations

import numpy as np
import pytest

from frontier import generators
from frontier import target as target_module
from frontier.errors import TargetError
from frontier.placement import (
    PARALLEL_ELEMENTS,
    TINY_ELEMENTS,
    choose,
    cpu_threads,
    target_of,
    thread_count,
)
from frontier.runtime import cpu_threads as threads_setting
from frontier.runtime import cuda_support, simulator
from frontier.runtime.cuda_support import cuda_usable
from frontier.runtime.target import CpuTarget
from frontier.target import resolve_target


def test_a_tiny_graph_runs_on_one_core():
    assert choose(generators.grid2d(6, 6)).target == "cpu"
    assert "tiny" in choose(generators.grid2d(6, 6)).reason


def test_a_long_path_runs_on_one_core_and_its_reason_says_why():
    placement = choose(generators.path(10**6))
    assert placement.target == "cpu"
    assert "long and thin" in placement.reason


def test_wide_graphs_and_graphs_with_hubs_run_on_the_gpu():
    assert choose(generators.grid2d(300, 300)).target == "cuda"  # mean out-degree ~4
    assert choose(generators.star(100_000)).target == "cuda"  # thin on average, one hub
    assert choose(generators.rmat(14)).target == "cuda"


def test_a_call_whose_steps_do_not_follow_the_depth_runs_a_long_path_on_the_gpu():
    assert choose(generators.path(10**6), deep=False).target == "cuda"


def test_a_calls_own_count_of_elements_decides_tininess():
    assert choose(None, elements=TINY_ELEMENTS - 1).target == "cpu"
    assert choose(None, elements=TINY_ELEMENTS).target == "cuda"
    assert choose(generators.path(10), elements=10**9, deep=False).target == "cuda"


def test_with_nothing_to_measure_the_rule_picks_the_gpu():
    assert choose(None).target == "cuda"


class _OnTheGpu:
    """Stands in for a CuPy array or a PyTorch CUDA tensor: the rule only asks where it lives."""

    __cuda_array_interface__ = {"shape": (3,), "typestr": "<i8", "data": (0, False),
                                "version": 3}


class _DLPackOnTheGpu:
    """Stands in for an array that says through DLPack that it lives on a CUDA device."""

    def __dlpack__(self, stream=None):
        raise AssertionError("the rule reads no data")

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA, device 0


@pytest.mark.parametrize("given", [_OnTheGpu, _DLPackOnTheGpu])
def test_an_input_on_the_gpu_runs_the_call_there_whatever_its_size(given):
    placement = choose(None, elements=10, deep=False, inputs=(np.arange(3), given()))
    assert placement.target == "cuda"
    assert "lives on the GPU" in placement.reason
    assert choose(generators.path(10**6), inputs=(given(),)).target == "cuda"


def test_host_inputs_leave_the_rule_to_the_size_and_shape():
    assert choose(None, elements=10, inputs=(np.arange(3), [1, 2], None)).target == "cpu"
    assert choose(generators.path(10**6), inputs=(np.arange(3),)).target == "cpu"
    assert choose(None, elements=TINY_ELEMENTS, inputs=(np.arange(3),)).target == "cuda"


@pytest.mark.parametrize("graph, elements, deep, inputs", [
    (generators.path(5), None, True, ()), (generators.path(10**6), None, True, ()),
    (generators.path(10**6), None, False, ()), (generators.rmat(14), None, True, ()),
    (None, 10, False, ()), (None, 10**9, False, ()), (None, None, True, ()),
    (generators.path(5), None, True, (np.arange(5),)), (None, 10, False, (_OnTheGpu(),))])
def test_the_target_alone_is_the_rules_choice_without_its_reason_in_words(graph, elements, deep,
                                                                         inputs):
    chosen = choose(graph, elements=elements, deep=deep, inputs=inputs)
    assert target_of(graph, elements=elements, deep=deep, inputs=inputs) == chosen.target
    assert chosen.reason  # choose still says why


def test_auto_follows_the_rule_where_a_real_gpu_is_usable(monkeypatch):
    monkeypatch.setattr(cuda_support, "cuda_usable", lambda: True)
    monkeypatch.setattr(simulator, "enabled", lambda: False)
    assert target_module._auto(generators.path(10**6), None, True) == "cpu"
    assert target_module._auto(generators.rmat(14), None, True) == "cuda"
    assert resolve_target(None, generators.path(50)).name == "cpu"  # None means auto
    assert resolve_target("auto", generators.path(50)).name == "cpu"
    assert target_module._auto(None, 10, False, (_OnTheGpu(),)) == "cuda"
    assert target_module._auto(None, 10, False, (np.arange(10),)) == "cpu"


def test_a_target_object_resolves_to_itself_whatever_its_class():
    class Mine(CpuTarget):
        """A target of the user's own: a Target all the same."""

    for given in (CpuTarget(2), Mine()):
        assert resolve_target(given, generators.path(4)) is given
    with pytest.raises(TargetError, match="unknown target 3"):
        resolve_target(3)


def test_auto_without_a_gpu_is_the_cpu_target(monkeypatch):
    monkeypatch.setattr(cuda_support, "cuda_usable", lambda: False)
    assert resolve_target("auto", generators.rmat(14)).name == "cpu"
    assert resolve_target(None).name == "cpu"


def test_a_call_on_the_cpu_takes_every_core_from_its_size_and_one_below():
    assert cpu_threads(None, elements=PARALLEL_ELEMENTS, cores=16)[0] == 16
    assert cpu_threads(None, elements=PARALLEL_ELEMENTS - 1, cores=16)[0] == 1
    assert cpu_threads(None, elements=10**9, cores=1) == (1, "one usable core")
    assert cpu_threads(None, cores=16) == (1, "no graph or count to measure")
    graph = generators.rmat(10)
    threads, reason = cpu_threads(graph, cores=8)
    assert threads == 1 and f"{graph.num_vertices + graph.num_edges:,} elements" in reason


@pytest.mark.parametrize("elements", [None, 0, PARALLEL_ELEMENTS - 1, PARALLEL_ELEMENTS])
@pytest.mark.parametrize("cores", [1, 2, 16])
@pytest.mark.parametrize("graph", [None, "rmat"])
def test_the_thread_count_auto_asks_is_the_rules_without_its_reason(elements, cores, graph):
    graph = generators.rmat(8) if graph else None
    assert thread_count(graph, elements=elements, cores=cores) == cpu_threads(
        graph, elements=elements, cores=cores)[0]


def test_auto_on_the_cpu_takes_the_rules_threads_unless_the_variable_sets_them(monkeypatch):
    monkeypatch.setattr(cuda_support, "cuda_usable", lambda: False)
    monkeypatch.setattr(target_module, "_cores", lambda: 4)
    monkeypatch.delenv(threads_setting.VARIABLE, raising=False)
    large = resolve_target(None, elements=PARALLEL_ELEMENTS)
    assert large.name == "cpu" and large.threads == 4
    assert resolve_target("auto", elements=PARALLEL_ELEMENTS) is large  # one per count
    assert resolve_target(None, elements=10).threads == 1
    assert resolve_target("cpu", elements=PARALLEL_ELEMENTS) is resolve_target("cpu")
    monkeypatch.setenv(threads_setting.VARIABLE, "1")
    assert resolve_target(None, elements=PARALLEL_ELEMENTS) is resolve_target("cpu")


@pytest.mark.skipif(not simulator.enabled(), reason="the simulator's choice")
def test_auto_in_the_simulator_is_the_simulated_gpu_for_every_graph():
    assert resolve_target("auto", generators.path(5)).simulated
    assert resolve_target(None, generators.path(10**6)).simulated


def test_a_named_target_or_a_target_is_taken_as_given():
    cpu = resolve_target("cpu")
    assert resolve_target(cpu, generators.rmat(10)) is cpu
    assert resolve_target("cpu", generators.rmat(14)) is cpu
    assert resolve_target("cpu", elements=10**9, inputs=(_OnTheGpu(),)) is cpu
    if cuda_usable():
        assert resolve_target("cuda", generators.path(5)).name == "cuda"


@pytest.mark.parametrize("bad", ["gpu", "Auto", 3, []])
def test_an_unknown_target_is_refused_naming_the_choices(bad):
    with pytest.raises(TargetError, match=r"unknown target .*'cuda', 'cpu', 'auto'"):
        resolve_target(bad, generators.path(5))


def test_the_largest_degree_is_computed_once_per_graph():
    graph = generators.path(200_000)
    choose(graph)
    assert graph.memo("placement.max_degree", lambda: pytest.fail("built again")) == 2
