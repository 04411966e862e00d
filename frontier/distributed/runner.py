"""Running a step function on every partition of a :class:`frontier.distributed.DistributedGraph`
at once (SPMD), with Dask: one task per partition, pinned to the worker holding that partition,
all running the same function on their piece with a communicator joining them
(:mod:`frontier.distributed.comm`: Dask's transport, or NCCL between GPUs).

Each graph has one :class:`Runner` (``graph.runner``), which keeps what the graph's runs share:
whether the exchange handler is installed on its workers, the NCCL unique id their
communicators join, and the :class:`RunReport` of the last run. The graph itself holds only
where its pieces are.

Runs from one client process take turns (:data:`_RUNS`), also when several threads call at
once: each rank holds its worker's thread until its peers reach the same collective, so two
runs whose ranks share workers, each started on some of them first, would wait for each other
until a rank's timeout (8 threads calling ``bfs`` on one graph of 3 partitions hung so).

The client watches the tasks. When one raises (a ``MemoryError``, a bad kernel) or its worker
dies, the run ends at once with a :class:`~frontier.distributed.WorkerFailedError` naming the
worker, its partition and what it (or, when it died, its peers) was doing; the other ranks,
blocked in a collective, are told to stop; no partial result is returned; the client and the
surviving workers stay usable (a partition whose worker died must be partitioned again).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from frontier.distributed.cluster import worker_addresses
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
from frontier.distributed.nccl import NcclComm, unique_id
from frontier.distributed.partition import Piece

if TYPE_CHECKING:
    from frontier.distributed.graph import DistributedGraph

__all__ = ["Runner", "RunReport", "DEFAULT_TIMEOUT"]

#: Held for the whole of a run: one run at a time from this process (see the module docstring).
_RUNS = threading.Lock()
#: Seconds a rank waits for a peer's message before giving up (a hung peer, a lost client).
DEFAULT_TIMEOUT = 600.0
_POLL = 0.25


@dataclass
class RunReport:
    """What the last run over a distributed graph did: the algorithm, its steps, the bytes all
    ranks together sent to other ranks in each step, each rank's wall time, the size of each
    step's frontier over all ranks, the bytes each rank sent in each step (``rank_bytes[r][i]``:
    rank ``r``, step ``i``), the client–worker round trips of the call (``round_trips``: a
    constant, whatever the number of steps; see :meth:`Runner.run`) and, for a run with
    :attr:`Runner.timed` set, each rank's seconds per phase of its steps (``phase_seconds[r]``:
    phase name to seconds, summed over the steps; empty otherwise)."""

    algorithm: str
    steps: int
    exchanged_bytes: list[int] = field(default_factory=list)
    rank_seconds: list[float] = field(default_factory=list)
    frontier_sizes: list[int] = field(default_factory=list)
    rank_bytes: list[list[int]] = field(default_factory=list)
    round_trips: int = 0
    phase_seconds: list[dict[str, float]] = field(default_factory=list)

    @property
    def total_bytes(self) -> int:
        return int(sum(self.exchanged_bytes))


def _communicator(spec: tuple, rank: int) -> Communicator:
    kind, *args = spec
    if kind == "nccl":
        uid, size = args
        return NcclComm(uid, rank, size)
    run, addresses, timeout = args
    return DaskComm(run, rank, addresses, timeout)


def _vertices(lo: int, hi: int) -> str:
    return f"vertices {lo}..{hi - 1}" if hi > lo else "no vertices"


def _rank_task(fn: Callable, piece: Piece, spec: tuple, args: tuple, timed: bool) -> Any:
    """What each worker runs: ``fn(piece, comm, *args)``, its failures named; ``timed``: the
    rank times its phases (:attr:`Runner.timed`)."""
    from distributed import get_worker  # on a worker: Dask is there

    comm = _communicator(spec, piece.rank)
    comm.timed = timed
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


class Runner:
    """Runs step functions on every partition of one :class:`DistributedGraph` (made with the
    graph, as ``graph.runner``) and keeps what its runs share (see the module docstring). Safe
    to call from several threads: runs take turns."""

    def __init__(self, graph: DistributedGraph) -> None:
        self._graph = graph
        self._handlers_installed = False
        self._nccl_uid: tuple | None = None
        #: The :class:`RunReport` of the last run (``graph.last_run``), set by the algorithm
        #: that ran.
        self.last_run: RunReport | None = None
        #: Client–worker round trips of the last call (see :meth:`run`).
        self.round_trips = 0
        #: Whether runs time their phases: each rank synchronizes its device at every change
        #: of phase and reports the seconds per phase (``last_run.phase_seconds``). A
        #: profile, slower than an untimed run: off by default.
        self.timed = False

    def run(self, fn: Callable, *args: Any, what: str, timeout: float = DEFAULT_TIMEOUT,
            summarize: Callable[[Any], Any] | None = None) -> list[Any]:
        """``fn(piece, comm, *args)`` on every partition at once; the results by rank. ``fn``
        must be importable on the workers (a module-level function); ``what`` names the run in
        errors; ``timeout`` bounds each rank's wait for a peer's message.

        With ``summarize`` (a module-level function) each rank's result stays on its worker:
        the client receives ``summarize(result)`` of every rank and the run returns
        ``(summaries, futures)``, the futures of the full results (fetched later with
        ``client.gather``; released with the futures).

        A call is one client–worker round trip (the tasks submitted together, their results
        or summaries received together), plus one the first time the graph runs (installing
        the exchange handler on its workers) and, for NCCL, one for the unique id:
        :attr:`round_trips` says how many the last call made. The step loop runs inside the
        tasks: its collectives are between the workers."""
        with _RUNS:
            self.round_trips = 0
            return self._run(fn, args, what, timeout, summarize)

    def _run(self, fn: Callable, args: tuple, what: str, timeout: float,
             summarize: Callable[[Any], Any] | None) -> Any:
        graph = self._graph
        client = graph.client
        alive = self._alive()
        gone = [w for w in graph.workers if w not in alive]
        if gone:
            raise DistributedError(
                f"{what}: the worker(s) {', '.join(gone)} holding partition(s) "
                f"{', '.join(str(graph.workers.index(w)) for w in gone)} are gone (they died or "
                "were restarted, and the partition with them); partition the graph again")
        run = f"{what.split()[0]}-{uuid.uuid4().hex[:12]}"
        spec = self._spec(run, timeout)
        futures = [client.submit(_rank_task, fn, piece, spec, args, self.timed,
                                 key=f"frontier-{run}-{rank}",
                                 workers=[worker], allow_other_workers=False, pure=False)
                   for rank, (piece, worker) in enumerate(zip(graph.pieces, graph.workers,
                                                              strict=True))]
        kept = futures
        if summarize is not None:
            futures = [client.submit(summarize, future, key=f"frontier-{run}-summary-{rank}",
                                     workers=[worker], allow_other_workers=False, pure=False)
                       for rank, (future, worker) in enumerate(zip(kept, graph.workers,
                                                                   strict=True))]
        self.round_trips += 1
        checked, pause = time.monotonic(), 0.0005
        while True:
            failed = next((f for f in kept + futures if f.status == "error"), None)
            if failed is not None or time.monotonic() - checked >= _POLL:
                # a worker that died is the cause even when a peer failed first talking to it
                lost = [w for w in graph.workers if w not in self._alive()]
                if lost:
                    self._died(run, kept + futures, lost[0], what)
                checked = time.monotonic()
            if failed is not None:
                error = failed.exception()
                self._end(run, kept + futures)
                if isinstance(error, WorkerFailedError):
                    raise WorkerFailedError(f"{what}: {error}", error.worker, error.rank,
                                            error.doing) from error
                rank = (kept + futures).index(failed) % graph.parts
                raise WorkerFailedError(f"{what}: partition {rank} on worker "
                                        f"{graph.workers[rank]} failed: {type(error).__name__}: "
                                        f"{error}", graph.workers[rank], rank,
                                        "running") from error
            if all(f.done() for f in futures):
                done = client.gather(futures)
                return done if summarize is None else (done, kept)
            time.sleep(pause)  # Future.result(timeout=) cancels Dask's own wait when it expires
            pause = min(2 * pause, 0.002)

    def _alive(self) -> set[str]:
        return set(worker_addresses(self._graph.client))

    def _spec(self, run: str, timeout: float) -> tuple:
        """How the ranks of ``run`` reach each other; the first run installs the exchange
        handler on the workers and, for NCCL, makes the unique id every later run joins."""
        graph = self._graph
        if not self._handlers_installed:
            graph.client.run(install_handler, workers=graph.workers)
            self._handlers_installed = True
            self.round_trips += 1
        if graph.transport == "nccl" and self._nccl_uid is None:
            first = graph.workers[0]
            self._nccl_uid = graph.client.run(unique_id, workers=[first])[first]
            self.round_trips += 1
        if graph.transport == "nccl":
            return ("nccl", self._nccl_uid, graph.parts)
        return ("dask", run, graph.workers, timeout)

    def _died(self, run: str, futures: list[Any], worker: str, what: str) -> None:
        """End a run whose ``worker`` left the cluster, with an error naming it and where the
        other partitions were."""
        graph = self._graph
        rank = graph.workers.index(worker)
        alive = self._alive()
        peers = [w for w in graph.workers if w != worker and w in alive]
        found = graph.client.run(doing_of, run, workers=peers) if peers else {}
        doing = {graph.workers.index(w): "no step yet (not started)" for w in peers}
        doing.update({r: d for ranks in found.values() for r, d in ranks.items() if r != rank})
        self._end(run, futures, peers)
        at = "; ".join(f"partition {r} was at {d}" for r, d in sorted(doing.items()))
        raise WorkerFailedError(
            f"{what}: worker {worker} holding partition {rank} of {graph.parts} "
            f"({_vertices(graph.bounds[rank], graph.bounds[rank + 1])}) died during the run "
            f"({at or 'no other partitions'}); its partition is lost: partition the graph again",
            worker, rank, next(iter(doing.values()), "running"))

    def _end(self, run: str, futures: list[Any], workers: list[str] | None = None) -> None:
        """Stop the ranks still running (their collectives raise) and drop the run's tasks."""
        graph = self._graph
        alive = self._alive()
        workers = [w for w in (workers or graph.workers) if w in alive]
        if workers:
            graph.client.run(abort_run, run, list(range(graph.parts)),
                             "the run was ended: another partition failed", workers=workers)
        graph.client.cancel(futures)
