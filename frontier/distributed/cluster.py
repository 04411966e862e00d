"""The Dask cluster a partition lives on: the caller's ``Client``, the default client of the
process, or a local cluster started on first use (cpu workers, or one worker per GPU with
dask-cuda), one single-threaded worker per partition.

A local cluster is one process per worker, each taking about :data:`WORKER_BYTES` once it has
imported the library; more workers than :func:`max_local_workers` (the host memory available
for them, and half the per-user process limit) are refused with a ValueError before Dask is
imported or any process started. A cluster the caller passes (``client=``) is not limited.
"""

from __future__ import annotations

import atexit
import logging
import numbers
import os
import resource
import sys
import warnings
from typing import Any

from frontier import environ
from frontier.distributed.errors import DistributedError
from frontier.limits import host_limit_bytes
from frontier.runtime import cpu_threads

__all__ = ["start_cluster", "client_for", "worker_addresses", "max_local_workers",
           "WORKER_BYTES"]

#: Memory one local worker process takes with the library imported (a cpu worker measured
#: 272 to 275 MiB resident after a distributed BFS, dask 2025, numba 0.68), with some room.
WORKER_BYTES = 320 << 20

_STARTED: list[Any] = []  # (client, cluster) pairs this process started, closed at exit


def _dask() -> Any:
    try:
        import distributed
    except ImportError as e:
        raise DistributedError("frontier.distributed needs Dask: pip install "
                               "'frontier-graph[distributed]'") from e
    return distributed


def _spawnable_main() -> None:
    """Dask starts worker processes with ``spawn``, which re-runs the client's main script from
    its path; a main read from standard input (``python - <<EOF``) has the path ``<stdin>``,
    which the workers cannot open, and they fail to start. Such a main holds nothing the workers
    need (Dask sends its functions by value), so its ``__file__`` is dropped."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is not None and getattr(main, "__spec__", None) is None \
            and not os.path.exists(path):
        del main.__file__  # type: ignore[union-attr]


def max_local_workers() -> int:
    """The most worker processes a local cluster may start on this machine: as many as
    :data:`WORKER_BYTES` each fit in the host memory available now
    (:func:`frontier.limits.host_limit_bytes`), and at most half the per-user process limit;
    at least 1."""
    fit = host_limit_bytes() // WORKER_BYTES
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    if soft != resource.RLIM_INFINITY:
        fit = min(fit, soft // 2)
    return max(int(fit), 1)


def _check_local_workers(workers: int) -> None:
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1:
        raise ValueError(f"workers={workers!r}; expected a number of workers >= 1")
    most = max_local_workers()
    if workers > most:
        raise ValueError(f"{workers:,} local workers asked for; this machine can start "
                         f"{most:,} (about {WORKER_BYTES >> 20} MiB of memory each); expected "
                         f"at most {most:,}, or a client= of a larger cluster")


def worker_threads(workers: int) -> dict[str, str]:
    """The environment that shares this machine's cores between ``workers`` local worker
    processes: ``FRONTIER_NUM_THREADS`` of each worker's cpu target the usable cores divided
    among them (at least 1), where this process does not set it (then they inherit it)."""
    if environ.get(cpu_threads.VARIABLE):
        return {}
    return {cpu_threads.VARIABLE: str(max(1, cpu_threads.usable_cores() // workers))}


def start_cluster(workers: int, *, gpus: bool = False) -> Any:
    """A ``Client`` of a new local cluster of ``workers`` processes with one thread each: cpu
    workers, or (``gpus=True``) dask-cuda's ``LocalCUDACluster``, one worker per GPU. Every worker
    starts with ``NCCL_NVLS_ENABLE=0``, a cpu worker with its share of the cores
    (:func:`worker_threads`). The cluster is closed when the process exits. A script
    that starts one must guard its top level with ``if __name__ == "__main__":``; a main read
    from standard input loses its ``__file__`` (see :func:`_spawnable_main`).
    More workers than :func:`max_local_workers` are refused (ValueError) before Dask is
    imported."""
    _check_local_workers(workers)
    distributed = _dask()
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # inherited by the worker processes
    _spawnable_main()
    if gpus:
        cluster = _gpu_cluster(distributed, workers)
    else:
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                           processes=True, dashboard_address=":0",
                                           env={"NCCL_NVLS_ENABLE": "0",
                                                **worker_threads(workers)})
    client = distributed.Client(cluster)
    if not _STARTED:  # registered after Dask's own exit hook, so that it runs before it
        atexit.register(_close_started)
    _STARTED.append((client, cluster))
    return client


def _gpu_cluster(distributed: Any, workers: int) -> Any:
    """dask-cuda's LocalCUDACluster (which sets each worker's CUDA_VISIBLE_DEVICES itself; the
    NCCL setting comes from this process's environment); where dask-cuda does not import, the
    same layout as a plain Dask cluster: worker ``i`` sees GPU ``i`` first."""
    try:
        from dask_cuda import LocalCUDACluster
    except Exception as e:  # noqa: BLE001 - missing, or broken against this Dask: fall back
        warnings.warn(f"dask-cuda does not import ({e}); starting one Dask worker per GPU "
                      "without it", stacklevel=3)
    else:
        return LocalCUDACluster(n_workers=workers, threads_per_worker=1, dashboard_address=":0")
    from numba import cuda

    count = len(cuda.gpus)
    if count < workers:
        raise DistributedError(f"{workers} GPU workers asked for; {count} GPUs are visible")
    order = list(range(count))
    spec = {i: {"cls": distributed.Nanny,
                "options": {"nthreads": 1, "env": {
                    "CUDA_VISIBLE_DEVICES": ",".join(map(str, order[i:] + order[:i])),
                    "NCCL_NVLS_ENABLE": "0"}}}
            for i in range(workers)}
    return distributed.SpecCluster(workers=spec, scheduler={
        "cls": distributed.Scheduler, "options": {"dashboard_address": ":0"}})


def client_for(workers: int, client: Any = None) -> Any:
    """``client``, else the process's default Dask client, else a local cpu cluster of
    ``workers`` workers started now (grown to ``workers`` when one started earlier is
    smaller)."""
    if client is not None:
        return client
    distributed = sys.modules.get("distributed")  # no default client before Dask is imported
    try:
        found = distributed.default_client() if distributed is not None else None
    except ValueError:
        found = None
    if found is None:
        return start_cluster(workers)
    for started, cluster in _STARTED:
        if started is found and len(worker_addresses(found)) < workers:
            _check_local_workers(workers)
            cluster.scale(workers)
            found.wait_for_workers(workers, timeout=120)
    return found


def worker_addresses(client: Any) -> list[str]:
    """The addresses of the client's workers, sorted."""
    try:  # asked directly: the client's cached scheduler_info is refreshed in the background
        info = client.sync(client.scheduler.identity, n_workers=-1)
    except TypeError:  # Dask before the n_workers argument lists every worker
        info = client.sync(client.scheduler.identity)
    return sorted(info["workers"])


def _close_started() -> None:
    # the pieces die with the workers: not worth the scheduler's "lost data" errors at exit
    logging.getLogger("distributed.scheduler").setLevel(logging.CRITICAL)
    while _STARTED:
        client, cluster = _STARTED.pop()
        try:
            client.close()
            cluster.close()
        except Exception:  # noqa: BLE001, S110 - the interpreter is exiting
            pass
