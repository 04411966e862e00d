"""The library's own fused BFS with its grid barrier replaced by a thread-block cluster's: what
a cluster mode of ``operators.traverse`` would give on a many-level graph (a probe, not a mode:
the library has no cluster launch).

In ``cluster`` runs the CUDA target's ``grid_barrier`` text becomes the cluster barrier of
:mod:`bench.device.cluster_probe` and every cooperative launch runs as one cluster of ``SIZE``
blocks of 1,024 threads; in ``grid`` runs nothing is changed. One configuration per process
(the library keeps generated kernels per target for the process). Each run: the median of 7
BFS calls from the bench's source with ``direction="push"`` and the ``warp`` balancer of
``WIDTH`` lanes per vertex (the default ``auto`` call too in ``grid`` runs), distances checked
against the cpu target's.

Usage on a CUDA machine, from the repository root (bench/device/env.sh sourced):
``python3 bench/device/cluster_library.py GRAPH grid|cluster SIZE WIDTH [WIDTH...]``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from cluster_probe import cluster_sync, launch  # noqa: E402

from algorithms import bfs  # noqa: E402
from bench.graphs import build, source_of  # noqa: E402
from frontier.runtime.target import CudaTarget  # noqa: E402
from frontier.target import resolve_target  # noqa: E402
from operators.balancers.warp import VirtualWarp  # noqa: E402


def use_clusters(target: CudaTarget, size: int) -> None:
    """Generated kernels barrier with the cluster barrier; cooperative launches run as one
    cluster of ``size`` blocks of 1,024 threads."""
    compile_source = CudaTarget.compile_source
    target.grid_barrier = "cluster_sync()"
    target.compile_source = lambda name, source, namespace: compile_source(
        target, name, source, {**namespace, "cluster_sync": cluster_sync})
    target._launch_cooperative = lambda kernel, blocks, threads, args: launch(
        kernel, args, size, 1024, size, False)


def timed(call) -> float:
    call()
    seconds = []
    for _ in range(7):
        start = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - start)
    return 1e3 * statistics.median(seconds)


def main(graph_name: str, mode: str, size: int, widths: list[int]) -> None:
    target = resolve_target("cuda")
    if mode == "cluster":
        use_clusters(target, size)
    graph = build(graph_name)
    source = source_of(graph)
    expected = bfs(graph, source, target="cpu").distances
    calls = {f"warp width {w}, push": (lambda w=w: bfs(graph, source, target="cuda",
                                                       balancer=VirtualWarp(width=w, threads=1024),
                                                       direction="push"))
             for w in widths}
    if mode == "grid":
        calls["default call"] = lambda: bfs(graph, source)
    for name, call in calls.items():
        ms = timed(call)
        result = call()
        ok = bool(np.array_equal(result.distances, expected))
        label = f"{mode} {size}" if mode == "cluster" else mode
        print(f"{graph_name} {label:10s} {name:24s} {ms:8.2f} ms wall  "
              f"{1e3 * result.seconds:8.2f} ms traversal  levels {len(result.stats)}  "
              f"correct {ok}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), [int(w) for w in sys.argv[4:]])
