"""The Dask cluster a partition lives on: the caller's ``Client``, the default client of the
process, or a local cluster started on first use (cpu workers, or one worker per GPU with
dask-cuda), one single-threaded worker per partition."""

from __future__ import annotations

import atexit
import os
import warnings
from typing import Any

from frontier.distributed.errors import DistributedError

__all__ = ["start_cluster", "client_for", "worker_addresses"]

_STARTED: list[Any] = []  # (client, cluster) pairs this process started, closed at exit


def _dask() -> Any:
    try:
        import distributed
    except ImportError as e:
        raise DistributedError("frontier.distributed needs Dask: pip install "
                               "'frontier-graph[distributed]'") from e
    return distributed


def start_cluster(workers: int, *, gpus: bool = False) -> Any:
    """A ``Client`` of a new local cluster of ``workers`` processes with one thread each: cpu
    workers, or (``gpus=True``) dask-cuda's ``LocalCUDACluster``, one worker per GPU. Every worker
    starts with ``NCCL_NVLS_ENABLE=0``. The cluster is closed when the process exits."""
    distributed = _dask()
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # inherited by the worker processes
    if gpus:
        cluster = _gpu_cluster(distributed, workers)
    else:
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                           processes=True, dashboard_address=":0",
                                           env={"NCCL_NVLS_ENABLE": "0"})
    client = distributed.Client(cluster)
    _STARTED.append((client, cluster))
    return client


def _gpu_cluster(distributed: Any, workers: int) -> Any:
    """dask-cuda's LocalCUDACluster (which sets each worker's CUDA_VISIBLE_DEVICES itself; the
    NCCL setting comes from this process's environment); where dask-cuda does not import, the
    same layout as a plain Dask cluster: worker ``i`` sees GPU ``i`` first."""
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError as e:
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
    distributed = _dask()
    if client is not None:
        return client
    try:
        found = distributed.default_client()
    except ValueError:
        return start_cluster(workers)
    for started, cluster in _STARTED:
        if started is found and len(worker_addresses(found)) < workers:
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


@atexit.register
def _close_started() -> None:
    while _STARTED:
        client, cluster = _STARTED.pop()
        try:
            client.close()
            cluster.close()
        except Exception:  # noqa: BLE001, S110 - the interpreter is exiting
            pass
