"""Scale-out: BFS, SSSP and connected components over a graph partitioned over P = 1..4 Dask
workers equal the single-device results and the scipy references; partitions are vertex ranges
balanced by arcs; a worker that raises or dies ends the run with an error naming it, and the
client stays usable.

The equality tests share one cluster of four workers in this process (threads: the kernels
compile once); the failure tests and one equality test run on worker processes, over Dask's
TCP transport."""

from __future__ import annotations

import importlib
import os
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings

distributed = pytest.importorskip("distributed")
algorithms_distributed = importlib.import_module("algorithms.distributed")

from algorithms import bfs, connected_components, sssp  # noqa: E402
from algorithms.distributed import components_arrays, sssp_arrays  # noqa: E402
from frontier import Graph, generators  # noqa: E402
from frontier.distributed import (  # noqa: E402
    DistributedError,
    Runner,
    WorkerFailedError,
    partition,
)
from frontier.distributed.dispatch import VERSIONS, scales_out  # noqa: E402
from frontier.distributed.partition import PARTITIONERS, boundaries, cut_pieces  # noqa: E402
from frontier.testing import (  # noqa: E402
    check_bfs,
    check_components,
    check_sssp,
    graphs,
    graphs_with_source,
    reference_components,
)

PARTS = (1, 2, 3, 4)


def parts_for(graph: Graph) -> list[int]:
    """The partition counts of PARTS that ``graph`` has vertices for (partition refuses more
    parts than vertices)."""
    return [p for p in PARTS if p <= max(graph.num_vertices, 1)]
FEW = settings(max_examples=6, deadline=None)


@pytest.fixture(scope="module")
def threads():
    """Four workers in this process."""
    cluster = distributed.LocalCluster(n_workers=4, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def processes():
    """Two worker processes (restarted by their nannies when they die)."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    client = distributed.Client(cluster, set_as_default=False)
    yield client
    client.close()
    cluster.close()


def smallest_member_labels(graph: Graph) -> np.ndarray:
    component = reference_components(graph)
    smallest = np.full(component.max(initial=-1) + 1, graph.num_vertices)
    np.minimum.at(smallest, component, np.arange(graph.num_vertices))
    return smallest[component]


# partitions -----------------------------------------------------------------------------------
@pytest.mark.parametrize("by", sorted(PARTITIONERS))
@FEW
@given(graph=graphs(max_vertices=30, max_edges=80))
def test_pieces_hold_each_vertex_out_arcs_once_with_global_ids(by, graph):
    for parts in parts_for(graph):
        cuts = boundaries(graph, parts, by)
        pieces = cut_pieces(graph, cuts, reverse=True)
        assert [p.lo for p in pieces] == list(cuts[:-1])
        rebuilt = Graph.from_csr(
            np.concatenate([[0], np.cumsum(np.concatenate([np.diff(p.row_offsets)
                                                           for p in pieces]))]),
            np.concatenate([p.col_indices for p in pieces]))
        np.testing.assert_array_equal(rebuilt.row_offsets, graph.row_offsets)
        np.testing.assert_array_equal(rebuilt.col_indices, graph.col_indices)
        for p in pieces:
            local = p.graph
            assert local.num_vertices == graph.num_vertices
            assert local.num_edges == p.num_arcs
            assert local.out_degrees()[:p.lo].sum() + local.out_degrees()[p.hi:].sum() == 0


def test_arc_balanced_ranges_share_the_arcs_evenly():
    graph = generators.rmat(12, edge_factor=8, seed=3)
    cuts = boundaries(graph, 4, "arcs")
    arcs = np.diff(graph.row_offsets[cuts])
    assert arcs.max() - arcs.min() <= graph.out_degrees().max()


def test_a_partitioner_that_breaks_the_contract_is_refused():
    graph = generators.rmat(6, seed=1)
    with pytest.raises(ValueError, match="rising integer boundaries"):
        boundaries(graph, 2, lambda g, p: np.array([0, g.num_vertices + 1, 3]))
    with pytest.raises(ValueError, match="by='hash'"):
        boundaries(graph, 2, "hash")


# equal results ---------------------------------------------------------------------------------
@FEW
@given(case=graphs_with_source(max_vertices=30, max_edges=80))
def test_bfs_over_partitions_equals_one_device_and_scipy(threads, case):
    graph, source = case
    one = bfs(graph, source, target="cpu", direction="push")
    for parts in parts_for(graph):
        dg = partition(graph, parts, client=threads, reverse=True)
        for direction in ("push", "pull", "auto"):
            got = bfs(dg, source, target="cpu", direction=direction)
            check_bfs(graph, source, got.distances, got.predecessors)
            np.testing.assert_array_equal(got.distances, one.distances)
            assert got.iterations == one.iterations
            assert len(dg.last_run.exchanged_bytes) == got.iterations
            assert dg.last_run.frontier_sizes == [s.frontier_size for s in one.stats]
            if parts == 1:
                assert dg.last_run.total_bytes == 0


def test_bfs_from_several_sources_over_partitions(threads):
    graph = generators.rmat(8, edge_factor=4, seed=2)
    starts = [3, 100, 200]
    one = bfs(graph, sources=starts, target="cpu", direction="push")
    got = bfs(partition(graph, 3, client=threads), sources=starts, target="cpu")
    np.testing.assert_array_equal(got.distances, one.distances)


def test_pull_levels_all_gather_the_frontier_bitmaps(threads):
    graph = generators.rmat(10, edge_factor=8, seed=7)
    source = int(np.argmax(graph.out_degrees()))
    dg = partition(graph, 2, client=threads)
    push = bfs(dg, source, target="cpu", direction="push")
    pushed = dg.last_run.exchanged_bytes
    auto = bfs(dg, source, target="cpu", direction="auto")
    np.testing.assert_array_equal(auto.distances, push.distances)
    words = 4 * ((graph.num_vertices + 31) // 32)
    assert any(b >= words for b in dg.last_run.exchanged_bytes)  # a bitmap crossed
    assert dg.last_run.exchanged_bytes != pushed


@FEW
@given(case=graphs_with_source(max_vertices=30, max_edges=80, weighted=True,
                               weight_range=(0, 9)))
def test_sssp_over_partitions_equals_dijkstra(threads, case):
    graph, source = case
    for parts in parts_for(graph):
        distances, predecessors, _ = sssp_arrays(partition(graph, parts, client=threads), source,
                                                 target="cpu")
        check_sssp(graph, source, distances, predecessors)


@FEW
@given(graph=graphs(max_vertices=30, max_edges=80))
def test_components_over_partitions_label_by_smallest_member(threads, graph):
    expected = smallest_member_labels(graph)
    for parts in parts_for(graph):
        labels, _ = components_arrays(partition(graph, parts, client=threads, reverse=True),
                                      target="cpu")
        check_components(graph, labels)
        np.testing.assert_array_equal(labels, expected)


def test_components_of_a_directed_graph_need_its_in_arcs(threads):
    graph = Graph.from_edges([0, 2], [1, 1], num_vertices=3)
    with pytest.raises(ValueError, match="reverse=True"):
        components_arrays(partition(graph, 2, client=threads), target="cpu")


def test_bad_calls_are_refused_before_any_work(threads):
    graph = generators.rmat(6, seed=1)
    with pytest.raises(DistributedError, match="5 partitions need 5 workers"):
        partition(graph, 5, client=threads)
    with pytest.raises(ValueError, match="parts=0"):
        partition(graph, 0, client=threads)
    dg = partition(graph, 2, client=threads)
    with pytest.raises(ValueError, match="out of range"):
        bfs(dg, graph.num_vertices, target="cpu")
    with pytest.raises(ValueError, match="fused=True"):
        bfs(dg, 0, target="cpu", fused=True)
    with pytest.raises(ValueError, match="alpha has no effect"):
        bfs(dg, 0, target="cpu", direction="push", alpha=3.0)
    with pytest.raises(ValueError, match="gathered on the client"):
        bfs(dg, 0, target="cpu", out="device")
    directed = partition(Graph.from_edges([0, 1], [1, 2]), 2, client=threads)
    with pytest.raises(ValueError, match="reverse=True"):
        bfs(directed, 0, target="cpu", direction="auto")
    np.testing.assert_array_equal(bfs(directed, 0, target="cpu").distances, [0, 1, 2])
    negative = Graph.from_edges([0], [1], weights=[-1.0])
    with pytest.raises(ValueError, match="negative weight"):
        sssp_arrays(partition(negative, 2, client=threads), 0, target="cpu")


@pytest.mark.parametrize("call, error, words", [
    (lambda dg: bfs(dg, 0, balancer="bogus", target="cpu"), ValueError,
     "unknown balancer 'bogus'"),
    (lambda dg: bfs(dg, 0, balancer=[], target="cpu"), ValueError, r"balancer \[\]"),
    (lambda dg: bfs(dg, 0, target="tpu"), ValueError, "unknown target 'tpu'"),
    (lambda dg: bfs(dg, 0, fused="no", target="cpu"), TypeError, "fused='no'"),
    (lambda dg: sssp(dg, 0, balancer="bogus", target="cpu"), ValueError, "unknown balancer"),
    (lambda dg: sssp(dg, 0, target="tpu"), ValueError, "unknown target 'tpu'"),
    (lambda dg: sssp(dg, 9**9, target="cpu"), ValueError, "out of range"),
    (lambda dg: components_arrays(dg, balancer="bogus", target="cpu"), ValueError,
     "unknown balancer"),
    (lambda dg: connected_components(dg, target="tpu"), ValueError, "unknown target 'tpu'"),
], ids=["bfs balancer", "bfs balancer list", "bfs target", "bfs fused", "sssp balancer",
        "sssp target", "sssp source", "components balancer", "components target"])
def test_distributed_entry_points_validate_like_one_device_before_any_work(
        threads, monkeypatch, call, error, words):
    dg = partition(generators.rmat(5, seed=1), 2, client=threads)
    monkeypatch.setattr(Runner, "run", lambda *a, **k: pytest.fail("work started"))
    with pytest.raises(error, match=words):
        call(dg)


def test_distributed_sssp_refuses_path_sums_that_overflow(threads):
    huge = partition(Graph.from_edges([0, 1], [1, 2], [1e308, 1e308]), 2, client=threads)
    with pytest.raises(ValueError, match="sssp over partitions .*overflow to inf"):
        sssp(huge, 0, target="cpu")


def test_partition_takes_a_bool_for_reverse(threads):
    with pytest.raises(TypeError, match="reverse='no'; expected True or False"):
        partition(generators.path(4), 2, client=threads, reverse="no")


# the dispatch and the runner ------------------------------------------------------------------
def test_algorithms_distributed_registers_the_versions_over_partitions():
    assert VERSIONS == {"bfs": algorithms_distributed.bfs, "sssp": algorithms_distributed.sssp,
                        "connected_components": algorithms_distributed.connected_components}


def test_the_first_call_on_a_distributed_graph_imports_the_versions_over_partitions():
    """A process imports the versions over partitions at its first call on a DistributedGraph,
    not before (issue 52: a call imports what it needs)."""
    import subprocess

    code = textwrap.dedent("""
        import sys
        import distributed
        from algorithms import bfs
        from frontier import generators
        from frontier.distributed import partition
        before = "algorithms.distributed" in sys.modules
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                      dashboard_address=":0") as cluster, \\
                distributed.Client(cluster, set_as_default=False) as client:
            result = bfs(partition(generators.path(6), 2, client=client), 0, target="cpu")
            print(before, "algorithms.distributed" in sys.modules, result.iterations)
    """)
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": "."},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split()[:3] == ["False", "True", "6"]


def test_an_algorithm_without_a_version_over_partitions_refuses_a_distributed_graph(threads):
    single_device_only = scales_out("no_such_algorithm")(lambda graph: "ran on one device")
    assert single_device_only(generators.path(3)) == "ran on one device"
    with pytest.raises(TypeError, match="no_such_algorithm does not run over partitions"):
        single_device_only(partition(generators.path(4), 2, client=threads))


def test_runs_from_several_threads_take_turns_and_keep_their_state_on_the_runner(threads):
    """Before runs took turns, ranks of different runs held the same single-threaded workers,
    each waiting for its peers queued behind the other run: this call hung (over 4 minutes,
    until stopped)."""
    from concurrent.futures import ThreadPoolExecutor

    graph = generators.rmat(7, seed=4)
    one = bfs(graph, 0, target="cpu", direction="push")
    dg = partition(graph, 3, client=threads)
    assert dg.last_run is None
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: bfs(dg, 0, target="cpu", direction="push"), range(8)))
    for result in got:
        np.testing.assert_array_equal(result.distances, one.distances)
    assert dg.last_run is dg.runner.last_run and dg.last_run.algorithm == "bfs"
    assert not {"handlers_installed", "nccl_uid"} & set(vars(dg))


# failures ---------------------------------------------------------------------------------------
def test_a_worker_raising_ends_the_run_with_its_name_and_step(threads, monkeypatch):
    import algorithms.distributed as steps

    graph = generators.rmat(8, edge_factor=8, seed=5)
    dg = partition(graph, 2, client=threads)
    original = steps.exchange

    def out_of_memory_on_partition_1(piece, *args):
        if piece.rank == 1:
            raise MemoryError("out of memory (injected)")
        return original(piece, *args)

    monkeypatch.setattr(steps, "exchange", out_of_memory_on_partition_1)
    with pytest.raises(WorkerFailedError) as failure:
        bfs(dg, 0, target="cpu")
    message = str(failure.value)
    assert dg.workers[1] in message and "partition 1 of 2" in message
    assert "bfs step 0: exchange" in message and "MemoryError" in message
    assert failure.value.rank == 1 and failure.value.worker == dg.workers[1]
    monkeypatch.undo()
    got = bfs(dg, 0, target="cpu")  # the same client and partition still work
    check_bfs(graph, 0, got.distances, got.predecessors)


# worker processes: Dask's TCP transport, a worker that dies --------------------------------------
def collectives(piece, comm, die_at):
    """Every collective once, on numpy arrays; rank 1 exits in step ``die_at`` after its first
    all-reduce, which rank 0 can only have joined from step 1: the step rank 0 is in when rank 1
    dies does not depend on scheduling (exiting before it let rank 0 still be in step 0)."""
    comm.doing = "step 0: all-to-all"
    got = comm.alltoallv([(np.full(r + 1, piece.rank, np.int32), np.arange(r + 1) * 0.5)
                          for r in range(comm.size)])
    comm.doing = "step 1: all-reduce"
    total = comm.allreduce(piece.rank + 1, "sum")
    if die_at == 1 and piece.rank == 1:
        os._exit(1)
    largest = comm.allreduce(float(piece.rank), "max")
    comm.doing = "step 2: all-gather"
    gathered = comm.allgather(np.array([piece.lo, piece.hi]))
    return got, total, largest, gathered, comm.sent_bytes


def _by_value():
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def test_collectives_cross_worker_processes_over_dask(processes):
    _by_value()
    graph = generators.rmat(6, seed=1)
    dg = partition(graph, 2, client=processes)
    ranks = dg.runner.run(collectives, -1, what="collectives")
    for rank, (got, total, largest, gathered, sent) in enumerate(ranks):
        assert [b[0].tolist() for b in got] == [[r] * (rank + 1) for r in range(2)]
        np.testing.assert_array_equal(got[1 - rank][1], np.arange(rank + 1) * 0.5)
        assert total == 3 and largest == 1.0
        assert [g.tolist() for g in gathered] == [[int(dg.bounds[r]), int(dg.bounds[r + 1])]
                                                  for r in range(2)]
        assert sent > 0


def test_a_worker_dying_ends_the_run_and_the_client_stays_usable(processes):
    _by_value()
    graph = generators.rmat(6, seed=1)
    dg = partition(graph, 2, client=processes)
    dead = dg.workers[1]
    with pytest.raises(WorkerFailedError) as failure:
        dg.runner.run(collectives, 1, what="collectives")
    message = str(failure.value)
    assert f"worker {dead} holding partition 1 of 2" in message and "died" in message
    assert "partition 0 was at step 1: all-reduce" in message
    with pytest.raises(DistributedError, match="partition the graph again"):
        dg.runner.run(collectives, -1, what="collectives")
    processes.wait_for_workers(2, timeout=120)  # the nanny restarted the dead worker
    again = partition(graph, 2, client=processes)
    assert again.runner.run(collectives, -1, what="collectives")[0][1] == 3


def test_the_single_device_library_does_not_import_dask():
    import subprocess

    code = ("import sys, algorithms, operators, frontier.distributed; "
            "from algorithms.bfs import bfs; "
            "sys.exit('distributed' in sys.modules or 'dask' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": "."},
                          check=False).returncode == 0


# GPUs: one dask-cuda worker per GPU, exchange through NCCL (run by bench/scale_out.sh) ----------
def _gpus() -> int:
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        return 0
    try:
        from numba import cuda

        return len(cuda.gpus) if cuda.is_available() else 0
    except Exception:  # noqa: BLE001 - no driver, no GPU
        return 0


@pytest.mark.gpu
@pytest.mark.parametrize("gpus", [2, 4], ids=["two_gpus", "four_gpus"])
def test_gpus_through_nccl_equal_scipy_and_keep_results_on_the_workers(gpus):
    if _gpus() < gpus:
        pytest.skip(f"needs {gpus} CUDA GPUs")
    pytest.importorskip("dask_cuda")
    pytest.importorskip("cupy")
    from frontier.distributed import start_cluster

    client = start_cluster(gpus, gpus=True)
    try:
        graph = generators.rmat(14, edge_factor=8, seed=21, weights=(0, 9))
        source = int(np.argmax(graph.out_degrees()))
        dg = partition(graph, gpus, client=client, transport="nccl")
        got = bfs(dg, source, target="cuda")
        assert not got.gathered and dg.last_run.total_bytes > 0
        check_bfs(graph, source, got.distances, got.predecessors)
        np.testing.assert_array_equal(got.distances, bfs(graph, source, target="cpu").distances)
        again = bfs(dg, source, target="cuda")
        assert dg.last_run.round_trips == 1 and not again.gathered
        for method in ("near_far", "delta_stepping", "bellman_ford"):
            distances, predecessors, _ = sssp_arrays(dg, source, target="cuda", method=method)
            check_sssp(graph, source, distances, predecessors)
        for method in ("afforest", "label_propagation"):
            labels, _ = components_arrays(dg, target="cuda", method=method)
            np.testing.assert_array_equal(labels, smallest_member_labels(graph))
    finally:
        client.close()



def fails_on_partition_1_while_0_waits(piece, comm):
    """Rank 1 raises before the all-reduce that rank 0 enters (and waits in: with NCCL, for
    ever unless the run aborts it)."""
    comm.doing = "step 0: all-reduce"
    if piece.rank == 1:
        raise RuntimeError("injected failure of partition 1")
    return comm.allreduce(1, "sum")


@pytest.mark.gpu
@pytest.mark.parametrize("gpus", [2], ids=["two_gpus"])
def test_a_partition_failing_in_an_nccl_run_leaves_no_peer_waiting(gpus):
    if _gpus() < gpus:
        pytest.skip(f"needs {gpus} CUDA GPUs")
    pytest.importorskip("dask_cuda")
    pytest.importorskip("cupy")
    from frontier.distributed import start_cluster

    _by_value()
    client = start_cluster(gpus, gpus=True)
    try:
        graph = generators.rmat(10, edge_factor=8, seed=3)
        dg = partition(graph, gpus, client=client, transport="nccl")
        with pytest.raises(WorkerFailedError, match="injected failure of partition 1") as failed:
            dg.runner.run(fails_on_partition_1_while_0_waits, what="a failing run")
        assert failed.value.rank == 1
        got = bfs(dg, 0, target="cuda")  # rank 0's worker is free again: a fresh communicator
        np.testing.assert_array_equal(got.distances, bfs(graph, 0, target="cpu").distances)
    finally:
        client.close()

# the entry points of sssp and connected_components (their modules land with their own branches)
@settings(max_examples=4, deadline=None)
@given(case=graphs_with_source(max_vertices=30, max_edges=80, weighted=True,
                               weight_range=(0, 9)))
def test_sssp_entry_point_takes_a_distributed_graph(threads, case):
    sssp = pytest.importorskip("algorithms.sssp").sssp
    graph, source = case
    one = sssp(graph, source, target="cpu")
    for parts in parts_for(graph):
        got = sssp(partition(graph, parts, client=threads), source, target="cpu")
        assert type(got.gather()) is type(one) and got.method == "near_far"
        np.testing.assert_array_equal(got.distances, one.distances)
        check_sssp(graph, source, got.distances, got.predecessors)


@settings(max_examples=4, deadline=None)
@given(graph=graphs(max_vertices=30, max_edges=80))
def test_connected_components_entry_point_takes_a_distributed_graph(threads, graph):
    connected_components = pytest.importorskip("algorithms.components").connected_components
    one = connected_components(graph, target="cpu")
    for parts in parts_for(graph):
        got = connected_components(partition(graph, parts, client=threads, reverse=True),
                                   target="cpu")
        assert type(got.gather()) is type(one) and got.num_components == one.num_components
        assert got.method == "afforest"
        np.testing.assert_array_equal(got.labels, one.labels)


def test_a_graph_one_device_refuses_runs_partitioned_over_two(threads, monkeypatch):
    """FRONTIER_MAX_DEVICE_BYTES makes a smaller device: between the size of the whole graph's
    arrays and that of the larger half, one device (in this process, or one worker) refuses the
    graph with GraphTooLargeError, and two workers run it."""
    from frontier.errors import GraphTooLargeError

    graph = generators.rmat(10, seed=3)
    expected = bfs(graph, 0, target="cpu", direction="push").distances
    pieces = cut_pieces(graph, boundaries(graph, 2, "arcs"), False)
    half = 8 * (graph.num_vertices + 1) + 4 * max(p.num_arcs for p in pieces) + 4
    whole = 8 * (graph.num_vertices + 1) + 4 * graph.num_edges + 4
    monkeypatch.setenv("FRONTIER_MAX_DEVICE_BYTES", str((half + whole) // 2))
    fresh = Graph(graph.row_offsets, graph.col_indices, None, graph.directed)  # no device copy
    with pytest.raises(GraphTooLargeError, match="FRONTIER_MAX_DEVICE_BYTES"):
        bfs(fresh, 0, target="cpu", direction="push")
    with pytest.raises(WorkerFailedError, match="GraphTooLargeError"):
        bfs(partition(graph, 1, client=threads), 0, target="cpu", direction="push")
    got = bfs(partition(graph, 2, client=threads), 0, target="cpu", direction="push")
    np.testing.assert_array_equal(got.distances, expected)


# scale-out II: the loop on the workers, results gathered on demand, the communication model ---
def test_a_69_level_bfs_is_one_round_trip_and_its_arrays_stay_on_the_workers(threads):
    graph = generators.grid2d(30, 40)
    dg = partition(graph, 2, client=threads)
    bfs(dg, 0, target="cpu")  # the first call also installs the exchange handler
    got = bfs(dg, 0, target="cpu", direction="push")
    assert dg.last_run.steps == 69 and dg.last_run.round_trips == 1
    assert not got.gathered and got.iterations == 69 and got.gather_seconds is None
    one = bfs(graph, 0, target="cpu")
    np.testing.assert_array_equal(got.gather().distances, one.distances)
    assert got.gathered and got.gather_seconds > 0
    assert got.gather() is got.gather()


@pytest.mark.parametrize("method", ["near_far", "delta_stepping", "bellman_ford"])
def test_stepping_sssp_over_partitions_equals_dijkstra(threads, method):
    graph = generators.grid2d(12, 12, weights=(0, 50), seed=3)
    for parts in (2, 3):
        got = sssp(partition(graph, parts, client=threads), 0, target="cpu", method=method)
        assert got.method == method
        check_sssp(graph, 0, got.distances, got.predecessors)


def test_afforest_over_partitions_exchanges_the_remote_arcs_once(threads):
    graph = generators.rmat(8, seed=2)
    dg = partition(graph, 3, client=threads)
    got = connected_components(dg, target="cpu")
    np.testing.assert_array_equal(got.labels, smallest_member_labels(graph))
    assert got.method == "afforest" and dg.last_run.steps == 3
    assert dg.last_run.round_trips == 2  # the first run on a graph installs the handler
    connected_components(dg, target="cpu")
    assert dg.last_run.round_trips == 1


def test_afforest_joins_local_components_that_meet_only_at_a_remote_vertex(threads):
    # partition 0 holds 0, 1, 2 and partition 1 holds 3, 4, 5: 0 and 1 are apart on
    # partition 0 and meet at 4; 2 meets 5; 3 is alone
    graph = Graph.from_edges([0, 1, 2], [4, 4, 5], num_vertices=6, directed=False)
    dg = partition(graph, 2, client=threads, by="vertices")
    assert dg.bounds.tolist() == [0, 3, 6]
    got = connected_components(dg, target="cpu")
    np.testing.assert_array_equal(got.labels, [0, 0, 2, 3, 0, 2])


@pytest.mark.parametrize("parts", [2, 4])
def test_bytes_per_level_and_rank_of_a_push_bfs_equal_the_model(threads, parts):
    from frontier.distributed.model import push_bfs_bytes

    graph = generators.rmat(9, edge_factor=8, seed=11)
    dg = partition(graph, parts, client=threads)
    got = bfs(dg, 0, target="cpu", direction="push")
    expected = push_bfs_bytes(graph, dg.bounds, got.distances)
    np.testing.assert_array_equal(np.asarray(dg.last_run.rank_bytes), expected)


def test_a_timed_run_reports_each_ranks_seconds_per_phase_and_an_untimed_one_none(threads):
    graph = generators.grid2d(12, 12, weights=(1, 9), seed=4)
    dg = partition(graph, 2, client=threads)
    sssp(dg, 0, target="cpu")
    assert dg.last_run.phase_seconds == [{}, {}]
    dg.runner.timed = True
    got = sssp(dg, 0, target="cpu").gather()
    check_sssp(graph, 0, got.distances, got.predecessors)
    for phases in dg.last_run.phase_seconds:
        assert {"setup", "relaxation", "exchange of the lowered remote vertices",
                "choosing predecessors"} <= set(phases)
        assert all(seconds >= 0 for seconds in phases.values()) and sum(phases.values()) > 0
    bfs(dg, 0, target="cpu")
    assert all("pull" in p or "advance" in p for p in dg.last_run.phase_seconds)
    connected_components(dg, target="cpu")
    assert all("final compress" in p for p in dg.last_run.phase_seconds)


@pytest.mark.parametrize("method", ["afforest", "label_propagation"])
def test_results_stay_where_the_ranks_computed_them_until_gathered(threads, method):
    graph = generators.rmat(7, seed=5, weights=(1, 9))
    dg = partition(graph, 3, client=threads)
    on_workers = [connected_components(dg, method=method, target="cpu"),
                  bfs(dg, 0, target="cpu"), sssp(dg, 0, target="cpu")]
    assert not any(result.gathered for result in on_workers)
    np.testing.assert_array_equal(on_workers[0].labels, smallest_member_labels(graph))
    check_bfs(graph, 0, on_workers[1].distances, on_workers[1].predecessors)
    check_sssp(graph, 0, on_workers[2].distances, on_workers[2].predecessors)
    assert on_workers[0].num_components == len(np.unique(on_workers[0].labels))


def test_results_kept_on_the_workers_are_dropped_with_the_result(threads):
    import gc
    import time

    from frontier.distributed.kept import kept_count

    dg = partition(generators.rmat(6, seed=1), 2, client=threads)
    got = bfs(dg, 0, target="cpu")
    run = got.kept.run
    assert kept_count(run) == 2  # the workers run in this process: their registry
    got.gather()
    assert kept_count(run) == 2  # gathered, still held by the result
    del got
    gc.collect()
    deadline = time.monotonic() + 10
    while kept_count(run) and time.monotonic() < deadline:
        time.sleep(0.02)  # dropped from a thread of their own
    assert kept_count(run) == 0
