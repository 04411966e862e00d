"""Calls from several Python threads at once give what the serial calls give (issue 20, item 1):
every algorithm of the catalog on one shared graph and on separate graphs, reductions, a Dask
threaded-scheduler map, the shared caches and pools they use.

The interpreter's switch interval is lowered while these tests run, so threads interleave between
almost every bytecode instead of every 5 ms: a race on shared state shows up within a few calls
(each test failed within its first repetitions before the fix) instead of one call in thousands.
"""

from __future__ import annotations

import dataclasses
import gc
import os
import sys
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from algorithms import CATALOG, bfs
from frontier import Frontier, generators, resolve_target
from frontier.frontier import FrontierPool
from frontier.runtime.cuda_support import cuda_usable
from frontier.runtime.shared_cache import SharedCache
from operators import compute, reduce

THREADS = 4
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


@pytest.fixture(autouse=True)
def _switch_often():
    """Threads switch every few microseconds while the test runs."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def graph_for(name: str, seed: int = 0, n: int = 60, m: int = 240):
    """A graph the catalog entry ``name`` takes: its example, else a weighted random graph."""
    example = CATALOG[name].example
    if example is not None:
        return generators.from_spec(example.replace("42", str(30 + seed)))
    return generators.gnm(n + 7 * seed, m, seed=seed, weights=(1, 9))


def answer(result: Any) -> dict[str, Any]:
    """What a result says: its array, number and string fields (its timings left out)."""
    said = {}
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        if "seconds" in f.name or f.name == "error":
            continue
        if isinstance(value, np.ndarray):
            said[f.name] = np.asarray(value).copy()
        elif isinstance(value, (int, float, str, np.integer, np.floating)):
            said[f.name] = value
    return said


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(
        np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else a[k] == b[k] for k in a)


def run(name: str, graph, source: int, target: str) -> Any:
    entry = CATALOG[name]
    return entry.invoke(graph, source if entry.source else None, balancer="auto",
                        target=target)


def sources_of(name: str, graph, count: int) -> list[int]:
    if not CATALOG[name].source:
        return [0] * count
    return [(7 * k) % graph.num_vertices for k in range(count)]


def threaded(calls: list, work) -> list:
    """``work(*call)`` for every call, from THREADS threads at once, in the calls' order."""
    with ThreadPoolExecutor(THREADS) as pool:
        return list(pool.map(lambda call: work(*call), calls))


def check_against_serial(target: str, name: str, graphs: list, calls_per_graph: int) -> None:
    """Every call from the threads gives the serial call's answer."""
    calls = [(g, s) for g in graphs for s in sources_of(name, g, calls_per_graph)]
    serial = {(id(g), s): answer(run(name, g, s, target)) for g, s in calls}
    got = threaded(calls * 3, lambda g, s: (id(g), s, answer(run(name, g, s, target))))
    wrong = [(s, k) for k, (gid, s, said) in enumerate(got) if not same(said, serial[gid, s])]
    assert not wrong, f"{name}: {len(wrong)} of {len(got)} threaded calls differ from serial"


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_algorithm_from_four_threads_on_one_graph_gives_the_serial_answers(name):
    check_against_serial("cpu", name, [graph_for(name)], 12)


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_algorithm_from_four_threads_on_separate_graphs_gives_the_serial_answers(name):
    check_against_serial("cpu", name, [graph_for(name, seed) for seed in range(THREADS)], 3)


#: Result fields that a GPU run may set differently from run to run, alone as under threads:
#: which thread claims a vertex or hooks a tree first (predecessors, a forest's edges), and how
#: many rounds an asynchronous method needs when a round sees writes of the same round
#: (iterations, and the edges those rounds traverse, the vertices a stepping traversal
#: extracts and the edges it relaxes). Float fields differ with the order of
#: their atomic additions. Everything else is the algorithm's answer and must be equal.
SCHEDULE_DEPENDENT = frozenset({"predecessors", "edges", "iterations", "edges_traversed",
                                "extracted", "relaxed"})


def exact_fields(result: dict[str, Any]) -> set[str]:
    """The fields of an answer a GPU must reproduce exactly, whatever the scheduling."""
    def exact(value: Any) -> bool:
        return not (isinstance(value, (float, np.floating))
                    or isinstance(value, np.ndarray) and value.dtype.kind == "f")

    return {k for k in result if k not in SCHEDULE_DEPENDENT and exact(result[k])}


def check_parallel_target(name: str, graphs: list, calls_per_graph: int, threads: int,
                          repeats: int) -> None:
    """On ``cuda``: each threaded result passes the entry's reference check and equals the
    serial result in every field the scheduling cannot change."""
    entry = CATALOG[name]
    calls = [(g, s) for g in graphs for s in sources_of(name, g, calls_per_graph)]
    serial = {(id(g), s): answer(run(name, g, s, "cuda")) for g, s in calls}
    with ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(lambda call: (*call, run(name, *call, "cuda")), calls * repeats))
    for g, s, result in results:
        entry.check(g, s if entry.source else None, result)
        said, want = answer(result), serial[id(g), s]
        fields = exact_fields(want)
        assert same({k: said[k] for k in fields}, {k: want[k] for k in fields}), (name, s)


@pytest.mark.simulator
@pytest.mark.skipif(not SIMULATED, reason="the simulator's variant (a GPU runs the gpu one)")
@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_algorithm_from_two_threads_in_the_simulator_passes_its_reference_check(name):
    """Simulated launches run one at a time (the simulator cannot run two): two threads on one
    tiny graph, each result checked against the entry's reference."""
    entry = CATALOG[name]
    graph = graph_for(name, n=6, m=8)
    source = sources_of(name, graph, 1)[0]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda _: run(name, graph, source, "cuda"), range(2)))
    for result in results:
        entry.check(graph, source if entry.source else None, result)


@pytest.mark.gpu
@pytest.mark.skipif(SIMULATED or not cuda_usable(), reason="needs a real CUDA GPU")
@pytest.mark.parametrize("name", sorted(CATALOG))
@pytest.mark.parametrize("shared", [True, False], ids=["one graph", "separate graphs"])
def test_every_algorithm_from_four_threads_on_the_gpu_gives_the_serial_answers(name, shared):
    if CATALOG[name].example is not None or name == "apsp":
        graphs = [graph_for(name, 0 if shared else k, n=200, m=1500) for k in range(THREADS)]
    elif shared:
        graphs = [generators.gnm(3000, 20000, seed=1, weights=(1, 9))] * THREADS
    else:
        graphs = [generators.gnm(2000 + 500 * k, 15000, seed=k, weights=(1, 9))
                  for k in range(THREADS)]
    check_parallel_target(name, list({id(g): g for g in graphs}.values()), 4, THREADS, 3)


def value(v: int, k: int) -> int:
    return k


def test_reductions_from_four_threads_on_separate_graphs_each_get_their_own_sum():
    graphs = [generators.gnm(300 + 50 * i, 2000, seed=i) for i in range(THREADS)]
    calls = [(i % THREADS,) for i in range(8000)]
    got = threaded(calls, lambda i: (i, reduce(graphs[i], "vertices", value, i + 1,
                                               op="sum", target="cpu")))
    wrong = [(i, s) for i, s in got if s != (i + 1) * graphs[i].num_vertices]
    assert not wrong, f"{len(wrong)} of {len(got)} sums are another graph's"


def test_two_reductions_whose_launches_interleave_each_get_their_own_sum(monkeypatch):
    """Both threads have set up their reductions before either launches (the interleaving that
    made one read the other's sum)."""
    module = sys.modules["operators.reduce"]
    graphs = [generators.path(10), generators.path(30)]
    together = threading.Barrier(2)
    launch = module.launch_plan

    def launch_together(*args: Any) -> None:
        together.wait(timeout=30)
        launch(*args)

    monkeypatch.setattr(module, "launch_plan", launch_together)
    got = threaded([(0,), (1,)], lambda i: reduce(graphs[i], "vertices", value, 1,
                                                  target="cpu"))
    assert got == [10, 30]


def test_a_dask_threaded_map_of_bfs_over_sources_gives_the_serial_distances():
    dask = pytest.importorskip("dask")
    graph = generators.grid2d(30, 30)
    sources = list(range(0, 900, 5))
    serial = [bfs(graph, s, target="cpu").distances for s in sources]
    tasks = [dask.delayed(lambda s: bfs(graph, s, target="cpu").distances)(s) for s in sources]
    got = dask.compute(*tasks, scheduler="threads", num_workers=THREADS)
    assert all(np.array_equal(a, b) for a, b in zip(got, serial, strict=True))


def test_each_thread_gets_its_own_shared_pool_and_keeps_it():
    graph = generators.path(10)
    cpu = resolve_target("cpu")
    mine = FrontierPool.shared(graph, cpu, 10)
    assert FrontierPool.shared(graph, cpu, 10) is mine
    theirs = threaded([()] * 2, lambda: FrontierPool.shared(graph, cpu, 10))
    assert all(p is not mine for p in theirs)


def test_a_finished_threads_shared_pool_is_freed():
    graph = generators.path(10)
    kept = []
    worker = threading.Thread(target=lambda: kept.append(weakref.ref(
        FrontierPool.shared(graph, resolve_target("cpu"), 10))))
    worker.start()
    worker.join()
    gc.collect()
    assert kept[0]() is None


def test_a_frontier_made_in_another_thread_on_a_shared_pool_stays_valid():
    graph = generators.path(10)
    f = Frontier.from_vertices(graph, [1, 2], target="cpu", capacity=graph.num_vertices,
                               shared=True)
    threaded([(k,) for k in range(8)], lambda k: bfs(graph, k, target="cpu"))
    assert f.to_numpy().tolist() == [1, 2]


def test_a_shared_cache_builds_each_value_once_for_threads_asking_together():
    cache: SharedCache[object] = SharedCache("test")
    built = []

    def build() -> object:
        built.append(1)
        return object()

    got = threaded([(k % 3,) for k in range(60)], lambda k: (k, cache.get(k, build)))
    assert len(built) == 3 and len({id(v) for k, v in got if k == 0}) == 1


def test_a_shared_cache_finds_what_it_built_and_nothing_else():
    cache: SharedCache[object] = SharedCache("test")
    assert cache.find("a") is None
    built = cache.get("a", object)
    assert cache.find("a") is built and cache.find("b") is None


def test_threads_compiling_one_new_kernel_together_compile_it_once(monkeypatch):
    graph = generators.path(6)

    def marked(v: int, out: np.ndarray) -> None:
        out[v] = v + 41

    cpu = resolve_target("cpu")
    compiled = []
    compile_source = cpu.compile_source

    def counted(name: str, *args: Any) -> Any:
        compiled.append(name)
        return compile_source(name, *args)

    monkeypatch.setattr(cpu, "compile_source", counted)
    outs = [np.zeros(6, np.int64) for _ in range(THREADS)]
    together = threading.Barrier(THREADS)

    def call(out: np.ndarray) -> None:
        together.wait(timeout=30)
        compute(graph, "vertices", marked, out, target=cpu)

    threaded([(o,) for o in outs], call)
    assert len(compiled) == 1, compiled
    assert all(o.tolist() == list(range(41, 47)) for o in outs)


@pytest.mark.simulator
@pytest.mark.skipif(not SIMULATED, reason="the simulator swaps module globals during a launch")
def test_a_kernel_compiled_while_another_thread_simulates_a_fill_gets_the_real_cuda_module():
    from numba import cuda
    from numba.cuda.simulator.kernelapi import FakeCUDAModule, swapped_cuda_module


    target = resolve_target("cuda")
    text = "def probe(out):\n    out[0] = cuda.gridsize(1)\n"
    fill = target.helper("_fill").fn
    with swapped_cuda_module(fill, FakeCUDAModule((1, 1, 1), (1, 1, 1), 0)):
        kernel = target.compile_source("probe", text, {})
    assert kernel.fn.__globals__["cuda"] is cuda
    out = np.zeros(1, np.int64)
    target.launch(kernel, 2, 4, (out,))
    assert out[0] == 8


def test_loaders_and_generators_from_four_threads_give_the_serial_graphs(tmp_path):
    from frontier import load, save

    def said(graph) -> tuple:
        w = graph.weights.tolist() if graph.weights is not None else None
        return (graph.num_vertices, graph.directed, graph.row_offsets.tolist(),
                graph.col_indices.tolist(), w)

    paths = []
    for k, ext in enumerate((".txt", ".mtx", ".npz")):
        paths.append(tmp_path / f"g{k}{ext}")
        save(generators.gnm(200 + k, 900, seed=k, weights=(1, 9)), paths[-1])
    jobs = [("load", str(p)) for p in paths] + [("spec", s) for s in ("rmat:7", "grid:9x11")]

    def make(kind: str, what: str) -> tuple:
        return said(load(what) if kind == "load" else generators.from_spec(what))

    serial = {job: make(*job) for job in jobs}
    got = threaded(jobs * 6, lambda kind, what: ((kind, what), make(kind, what)))
    assert [job for job, graph in got if graph != serial[job]] == []


def test_a_graph_used_from_threads_pickles_without_its_buffers_and_locks():
    import pickle

    graph = generators.grid2d(6, 6)
    threaded([(k,) for k in range(8)], lambda k: bfs(graph, k, target="cpu"))
    copy = pickle.loads(pickle.dumps(graph))
    assert copy._memo == {} and copy._device == {}
    assert np.array_equal(bfs(copy, 5, target="cpu").distances,
                          bfs(graph, 5, target="cpu").distances)
