"""Running a step function on every partition of a :class:`frontier.distributed.DistributedGraph`
at once (SPMD), with Dask: one task per partition, pinned to the worker holding that partition,
all running the same function on their piece with a communicator joining them
(:mod:`frontier.distributed.comm`: Dask's transport, or NCCL between GPUs).

The client watches the tasks. When one raises (a ``MemoryError``, a bad kernel) or its worker
dies, the run ends at once with a :class:`~frontier.distributed.WorkerFailedError` naming the
worker, its partition and what it (or, when it died, its peers) was doing; the other ranks,
blocked in a collective, are told to stop; no partial result is returned; the client and the
surviving workers stay usable (a partition whose worker died must be partitioned again).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from frontier.distributed.comm import (
    Communicator,
    DaskComm,
    abort_run,
    doing_of,
    install_handler,
)
from frontier.distributed.errors import (
    DistributedError,
    ExchangeAbortedError,
    WorkerFailedError,
)
from frontier.distributed.graph import DistributedGraph
from frontier.distributed.partition import Piece

__all__ = ["run_partitions", "DEFAULT_TIMEOUT"]

#: Seconds a rank waits for a peer's message before giving up (a hung peer, a lost client).
DEFAULT_TIMEOUT = 600.0
_POLL = 0.25


def _communicator(spec: tuple, rank: int) -> Communicator:
    kind, *args = spec
    if kind == "nccl":
        from frontier.distributed.nccl import NcclComm

        uid, size = args
        return NcclComm(uid, rank, size)
    run, addresses, timeout = args
    return DaskComm(run, rank, addresses, timeout)


def _vertices(lo: int, hi: int) -> str:
    return f"vertices {lo}..{hi - 1}" if hi > lo else "no vertices"


def _rank_task(fn: Callable, piece: Piece, spec: tuple, args: tuple) -> Any:
    """What each worker runs: ``fn(piece, comm, *args)``, its failures named."""
    from distributed import get_worker

    comm = _communicator(spec, piece.rank)
    try:
        result = fn(piece, comm, *args)
    except ExchangeAbortedError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure of the rank ends the run, named
        address = get_worker().address
        raise WorkerFailedError(
            f"partition {piece.rank} of {piece.parts} ({_vertices(piece.lo, piece.hi)}) on worker "
            f"{address} failed while {comm.doing}: {type(e).__name__}: {e}",
            address, piece.rank, comm.doing) from e
    comm.close()  # after a failure the rank's state stays: the client asks what it was doing
    return result


def _alive(graph: DistributedGraph) -> set[str]:
    from frontier.distributed.cluster import worker_addresses

    return set(worker_addresses(graph.client))


def _spec(graph: DistributedGraph, run: str, timeout: float) -> tuple:
    if graph.transport == "nccl":
        from frontier.distributed.nccl import unique_id

        if graph.nccl_uid is None:
            first = graph.workers[0]
            graph.nccl_uid = graph.client.run(unique_id, workers=[first])[first]
        return ("nccl", graph.nccl_uid, graph.parts)
    return ("dask", run, graph.workers, timeout)


def run_partitions(graph: DistributedGraph, fn: Callable, *args: Any, what: str,
                   timeout: float = DEFAULT_TIMEOUT) -> list[Any]:
    """``fn(piece, comm, *args)`` on every partition at once; the results by rank. ``fn`` must
    be importable on the workers (a module-level function); ``what`` names the run in errors."""
    client = graph.client
    gone = [w for w in graph.workers if w not in _alive(graph)]
    if gone:
        raise DistributedError(
            f"{what}: the worker(s) {', '.join(gone)} holding partition(s) "
            f"{', '.join(str(graph.workers.index(w)) for w in gone)} are gone (they died or were "
            "restarted, and the partition with them); partition the graph again")
    run = f"{what.split()[0]}-{uuid.uuid4().hex[:12]}"
    if not graph.handlers_installed:
        client.run(install_handler, workers=graph.workers)
        graph.handlers_installed = True
    spec = _spec(graph, run, timeout)
    futures = [client.submit(_rank_task, fn, piece, spec, args, key=f"frontier-{run}-{rank}",
                             workers=[worker], allow_other_workers=False, pure=False)
               for rank, (piece, worker) in enumerate(zip(graph.pieces, graph.workers,
                                                          strict=True))]
    checked, pause = time.monotonic(), 0.0005
    while True:
        failed = next((f for f in futures if f.status == "error"), None)
        if failed is not None or time.monotonic() - checked >= _POLL:
            # a worker that died is the cause even when a peer failed first talking to it
            lost = [w for w in graph.workers if w not in _alive(graph)]
            if lost:
                _died(graph, run, futures, lost[0], what)
            checked = time.monotonic()
        if failed is not None:
            error = failed.exception()
            _end(graph, run, futures)
            if isinstance(error, WorkerFailedError):
                raise WorkerFailedError(f"{what}: {error}", error.worker, error.rank,
                                        error.doing) from error
            rank = futures.index(failed)
            raise WorkerFailedError(f"{what}: partition {rank} on worker {graph.workers[rank]} "
                                    f"failed: {type(error).__name__}: {error}",
                                    graph.workers[rank], rank, "running") from error
        if all(f.done() for f in futures):
            return client.gather(futures)
        time.sleep(pause)  # Future.result(timeout=) cancels Dask's own wait when it expires
        pause = min(2 * pause, 0.002)


def _died(graph: DistributedGraph, run: str, futures: list[Any], worker: str,
          what: str) -> None:
    """End a run whose ``worker`` left the cluster, with an error naming it and where the
    other partitions were."""
    rank = graph.workers.index(worker)
    alive = _alive(graph)
    peers = [w for w in graph.workers if w != worker and w in alive]
    found = graph.client.run(doing_of, run, workers=peers) if peers else {}
    doing = {graph.workers.index(w): "no step yet (not started)" for w in peers}
    doing.update({r: d for ranks in found.values() for r, d in ranks.items() if r != rank})
    _end(graph, run, futures, peers)
    at = "; ".join(f"partition {r} was at {d}" for r, d in sorted(doing.items()))
    raise WorkerFailedError(
        f"{what}: worker {worker} holding partition {rank} of {graph.parts} "
        f"({_vertices(graph.bounds[rank], graph.bounds[rank + 1])}) died during the run "
        f"({at or 'no other partitions'}); its partition is lost: partition the graph again",
        worker, rank, next(iter(doing.values()), "running"))


def _end(graph: DistributedGraph, run: str, futures: list[Any],
         workers: list[str] | None = None) -> None:
    """Stop the ranks still running (their collectives raise) and drop the run's tasks."""
    alive = _alive(graph)
    workers = [w for w in (workers or graph.workers) if w in alive]
    if workers:
        graph.client.run(abort_run, run, list(range(graph.parts)),
                         "the run was ended: another partition failed", workers=workers)
    graph.client.cancel(futures)
