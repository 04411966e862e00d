"""Running a step function on every partition of a :class:`frontier.distributed.DistributedGraph`
at once (SPMD), with Dask: one rank per partition, started on the worker holding that partition
through ``Client.run`` (directly, not as a scheduled task: a scheduled task and its summary cost
10-17 ms of Dask's bookkeeping per call where ``Client.run`` costs about 1 ms), run in the
worker's thread pool, all running the same function on their piece with a communicator joining
them (:mod:`frontier.distributed.comm`: Dask's transport, or NCCL between GPUs). What a rank
leaves for later stays on its worker (:mod:`frontier.distributed.kept`).

Each graph has one :class:`Runner` (``graph.runner``), which keeps what the graph's runs share:
whether the exchange handler is installed on its workers, the NCCL unique id their
communicators join, and the :class:`RunReport` of the last run. The graph itself holds only
where its pieces are.

Runs from one client process take turns (:data:`_RUNS`), also when several threads call at
once: each rank holds its worker's thread until its peers reach the same collective, so two
runs whose ranks share workers, each started on some of them first, would wait for each other
until a rank's timeout (8 threads calling ``bfs`` on one graph of 3 partitions hung so).

The client watches the ranks. When one raises (a ``MemoryError``, a bad kernel) or its worker
dies, the run ends at once with a :class:`~frontier.distributed.WorkerFailedError` naming the
worker, its partition and what it (or, when it died, its peers) was doing; the other ranks,
blocked in a collective, are told to stop (with NCCL, which has no timeout of its own, by
aborting the run's communicators on every worker: the next run joins fresh ones); no partial
result is returned; the client and the surviving workers stay usable (a partition whose worker
died must be partitioned again).
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
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
from frontier.distributed.kept import Kept, keep
from frontier.distributed.nccl import NcclComm, unique_id
from frontier.distributed.nccl import abort as abort_nccl
from frontier.distributed.partition import Piece

if TYPE_CHECKING:
    from frontier.distributed.graph import DistributedGraph

__all__ = ["Runner", "RunReport", "DEFAULT_TIMEOUT"]

#: Held for the whole of a run: one run at a time from this process (see the module docstring).
_RUNS = threading.Lock()
#: Seconds a rank waits for a peer's message before giving up (a hung peer, a lost client).
DEFAULT_TIMEOUT = 600.0
_POLL = 0.25
#: Seconds a run whose call to a worker failed (not the rank: the call) waits for the scheduler
#: to report that worker gone, the failure's cause.
_LOSS_SECONDS = 5.0


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


def _communicator(spec: tuple, rank: int, worker: Any) -> Communicator:
    kind, *args = spec
    if kind == "nccl":
        uid, size = args
        return NcclComm(uid, rank, size)
    run, addresses, timeout = args
    return DaskComm(run, rank, addresses, timeout, worker)


def _vertices(lo: int, hi: int) -> str:
    return f"vertices {lo}..{hi - 1}" if hi > lo else "no vertices"


async def _rank_call(fn: Callable, piece_key: str, spec: tuple, args: tuple, timed: bool,
                     run: str, summarize: Callable[[Any], Any] | None,
                     dask_worker: Any = None) -> Any:
    """What each worker runs (through ``Client.run``): the rank on its piece in the worker's
    thread pool (the event loop stays free for the exchange's messages), its result kept on
    the worker and its summary returned, or, without ``summarize``, the result returned."""
    piece = dask_worker.data[piece_key]
    result = await asyncio.get_running_loop().run_in_executor(
        dask_worker.executors["default"], _rank, fn, piece, spec, args, timed, dask_worker)
    if summarize is None:
        return result
    keep(run, piece.rank, result)
    return summarize(result)


def _rank(fn: Callable, piece: Piece, spec: tuple, args: tuple, timed: bool,
          worker: Any) -> Any:
    """``fn(piece, comm, *args)`` on ``worker``, its failures named; ``timed``: the rank times
    its phases (:attr:`Runner.timed`)."""
    comm = _communicator(spec, piece.rank, worker)
    comm.timed = timed
    try:
        result = fn(piece, comm, *args)
    except ExchangeAbortedError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure of the rank ends the run, named
        raise WorkerFailedError(
            f"partition {piece.rank} of {piece.parts} ({_vertices(piece.lo, piece.hi)}) on worker "
            f"{worker.address} failed while {comm.doing}: {type(e).__name__}: {e}",
            worker.address, piece.rank, comm.doing) from e
    comm.close()  # after a failure the rank's state stays: the client asks what it was doing
    return result


def _answer(call: Future, worker: str) -> Any:
    """What a rank's ``Client.run`` call gave: its value, the exception it returned or raised
    (a worker lost in the call), or None while it runs."""
    if not call.done():
        return None
    if call.exception() is not None:
        return call.exception()
    return call.result()[worker] if worker in call.result() else DistributedError(
        f"worker {worker} gave no answer")


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
            summarize: Callable[[Any], Any] | None = None) -> Any:
        """``fn(piece, comm, *args)`` on every partition at once; the results by rank. ``fn``
        must be importable on the workers (a module-level function); ``what`` names the run in
        errors; ``timeout`` bounds each rank's wait for a peer's message.

        With ``summarize`` (a module-level function) each rank's result stays on its worker:
        the client receives ``summarize(result)`` of every rank and the run returns
        ``(summaries, kept)``, a :class:`~frontier.distributed.kept.Kept` handle on the full
        results (fetched with ``kept.fetch``; dropped on the workers with the handle).

        A call is one client–worker round trip (every rank started through ``Client.run``,
        directly on its worker, not as a scheduled task; their results or summaries received
        together), plus one the first time the graph runs (installing the exchange handler on
        its workers) and, for NCCL, one for the unique id: :attr:`round_trips` says how many
        the last call made. The step loop runs inside the ranks: its collectives are between
        the workers."""
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
        kept = Kept(client, graph.workers, run) if summarize is not None else None
        calls = ThreadPoolExecutor(graph.parts, thread_name_prefix=f"frontier-{run}")
        ranks = [calls.submit(client.run, _rank_call, fn, piece.key, spec, args, self.timed, run,
                              summarize, workers=[worker], on_error="return")
                 for piece, worker in zip(graph.pieces, graph.workers, strict=True)]
        self.round_trips += 1
        try:
            while True:
                polled = not wait([c for c in ranks if not c.done()], timeout=_POLL,
                                  return_when=FIRST_COMPLETED).done
                finished = all(c.done() for c in ranks)
                answers = [_answer(c, w) for c, w in zip(ranks, graph.workers, strict=True)]
                failed = next((r for r, a in enumerate(answers)
                               if isinstance(a, BaseException)), None)
                if failed is not None or polled:
                    # a worker that died is the cause even when a peer failed first talking
                    # to it (the scheduler may learn of the death after the call to it failed)
                    lost = self._lost(graph.workers, patience=0.0 if failed is None or
                                      isinstance(answers[failed], WorkerFailedError)
                                      else _LOSS_SECONDS)
                    if lost:
                        self._died(run, lost[0], what)
                if failed is not None:
                    error = answers[failed]
                    self._end(run)
                    if isinstance(error, WorkerFailedError):
                        raise WorkerFailedError(f"{what}: {error}", error.worker, error.rank,
                                                error.doing) from error
                    raise WorkerFailedError(f"{what}: partition {failed} on worker "
                                            f"{graph.workers[failed]} failed: "
                                            f"{type(error).__name__}: {error}",
                                            graph.workers[failed], failed, "running") from error
                if finished:
                    return answers if kept is None else (answers, kept)
        finally:
            calls.shutdown(wait=False)  # ranks a failure left blocked are not waited for

    def _alive(self) -> set[str]:
        return set(worker_addresses(self._graph.client))

    def _lost(self, workers: list[str], patience: float) -> list[str]:
        """The ``workers`` gone from the cluster, waiting up to ``patience`` seconds for the
        scheduler to notice one."""
        deadline = time.monotonic() + patience
        while True:
            lost = [w for w in workers if w not in self._alive()]
            if lost or time.monotonic() >= deadline:
                return lost
            time.sleep(0.05)

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

    def _died(self, run: str, worker: str, what: str) -> None:
        """End a run whose ``worker`` left the cluster, with an error naming it and where the
        other partitions were."""
        graph = self._graph
        rank = graph.workers.index(worker)
        alive = self._alive()
        peers = [w for w in graph.workers if w != worker and w in alive]
        found = graph.client.run(doing_of, run, workers=peers) if peers else {}
        doing = {graph.workers.index(w): "no step yet (not started)" for w in peers}
        doing.update({r: d for ranks in found.values() for r, d in ranks.items() if r != rank})
        self._end(run, peers)
        at = "; ".join(f"partition {r} was at {d}" for r, d in sorted(doing.items()))
        raise WorkerFailedError(
            f"{what}: worker {worker} holding partition {rank} of {graph.parts} "
            f"({_vertices(graph.bounds[rank], graph.bounds[rank + 1])}) died during the run "
            f"({at or 'no other partitions'}); its partition is lost: partition the graph again",
            worker, rank, next(iter(doing.values()), "running"))

    def _end(self, run: str, workers: list[str] | None = None) -> None:
        """Stop the ranks still running (their collectives raise; with NCCL, the run's
        communicators are aborted and the next run makes a fresh unique id)."""
        graph = self._graph
        alive = self._alive()
        workers = [w for w in (workers or graph.workers) if w in alive]
        if workers:
            graph.client.run(abort_run, run, list(range(graph.parts)),
                             "the run was ended: another partition failed", workers=workers)
        if self._nccl_uid is not None:
            uid, self._nccl_uid = self._nccl_uid, None
            if workers:
                graph.client.run(abort_nccl, uid, workers=workers)
