"""Collectives between the workers of a run: the one interface the exchange operator talks
to, with one implementation per transport.

A :class:`Communicator` is one rank's end of a run over ``size`` ranks (one per partition). Every
rank calls the same collectives in the same order (SPMD), and each call returns once this rank
has what it needs:

* :meth:`~Communicator.alltoallv`: bucket ``r`` goes to rank ``r``, and the bucket each rank
  addressed to this one comes back (the frontier exchange: per-owner buckets of vertex ids and
  their values);
* :meth:`~Communicator.allreduce`: one scalar from every rank, combined ("is any frontier
  left?");
* :meth:`~Communicator.allgather`: one array from every rank, in rank order (the frontier
  bitmaps of a pull step, the per-rank statistics).

:class:`DaskComm` moves numpy arrays over Dask's own transport (its TCP comms, worker to worker:
each worker serves a ``frontier_exchange`` handler that drops messages into a mailbox the
computing thread waits on), so cpu workers, and CI, run the same exchange logic as GPUs.
:mod:`frontier.distributed.nccl` moves CuPy arrays between GPUs through NCCL.
"""

from __future__ import annotations

import asyncio
import threading
import time
from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from frontier.distributed.errors import ExchangeAbortedError, ExchangeTimeoutError

__all__ = ["Communicator", "DaskComm", "Mailbox", "mailbox", "install_handler", "abort_run",
           "doing_of", "HANDLER", "REDUCE_OPS"]

HANDLER = "frontier_exchange"
REDUCE_OPS = ("sum", "max", "min")

Bucket = tuple[Any, ...]


class Communicator(ABC):
    """One rank's end of the collectives of a run (see the module docstring). ``xp`` is the
    array module of the arrays it moves (numpy, or cupy on GPUs); ``sent_bytes`` counts the bytes
    this rank has sent to other ranks; ``doing`` says what the rank is doing, for error reports.
    """

    rank: int
    size: int
    xp: Any = np

    def __init__(self) -> None:
        self.sent_bytes = 0
        self.doing = "starting"
        #: Whether the run times its phases (:attr:`Runner.timed`), synchronizing the device
        #: between them.
        self.timed = False
        #: In a timed run, the seconds of each phase so far (see :meth:`phase`).
        self.phases: dict[str, float] = {}
        self._phase, self._where, self._since = "setup", "", time.perf_counter()

    def phase(self, what: str, where: str | None = None) -> None:
        """Say what this rank does from now on: ``what``, after ``where`` (the step; the last
        one given when None) in error reports. In a timed run the phase that ends is timed:
        the device is synchronized and the phase's seconds are added to :attr:`phases`, under
        its ``what``."""
        if where is not None:
            self._where = where
        if self.timed:
            self.synchronize()
            now = time.perf_counter()
            self.phases[self._phase] = self.phases.get(self._phase, 0.0) + now - self._since
            self._phase, self._since = what, now
        self.doing = f"{self._where}{what}"

    def synchronize(self) -> None:  # noqa: B027 - host arrays: nothing is queued
        """Wait for the work this rank queued on its device."""

    @abstractmethod
    def alltoallv(self, buckets: list[Bucket]) -> list[Bucket]:
        """Send ``buckets[r]`` (a tuple of arrays) to rank ``r``; return the buckets every rank
        sent here, by rank (this rank's own bucket is returned as it is)."""

    @abstractmethod
    def allreduce(self, value: int | float, op: str = "sum") -> int | float:
        """``op`` ("sum", "max" or "min") of every rank's ``value``."""

    @abstractmethod
    def allgather(self, array: Any) -> list[Any]:
        """Every rank's ``array``, in rank order."""

    def close(self) -> None:  # noqa: B027 - most transports leave nothing behind
        """Forget what the run left behind on this worker."""


class Mailbox:
    """Messages for one run on one worker, by key; the computing thread waits on them."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._messages: dict[tuple, Any] = {}
        self._aborted: str | None = None
        self.doing = "starting"

    def put(self, key: tuple, payload: Any) -> None:
        with self._cond:
            self._messages[key] = payload
            self._cond.notify_all()

    def take(self, key: tuple, timeout: float, waiting_for: str) -> Any:
        deadline = time.monotonic() + timeout
        with self._cond:
            while key not in self._messages:
                if self._aborted is not None:
                    raise ExchangeAbortedError(self._aborted)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ExchangeTimeoutError(f"waited {timeout:g} s for {waiting_for}")
                self._cond.wait(min(left, 1.0))
            return self._messages.pop(key)

    def abort(self, reason: str) -> None:
        with self._cond:
            self._aborted = reason
            self._cond.notify_all()


_MAILBOXES: dict[tuple[str, int], Mailbox] = {}
_MAILBOXES_LOCK = threading.Lock()


def mailbox(run: str, rank: int) -> Mailbox:
    """The mailbox of rank ``rank`` of ``run`` in this process (made on first use: a peer's
    message may arrive before the rank's task starts). Keyed by rank too, so that workers
    sharing a process (a cluster of threads) keep their messages apart."""
    with _MAILBOXES_LOCK:
        box = _MAILBOXES.get((run, rank))
        if box is None:
            box = _MAILBOXES[run, rank] = Mailbox()
        return box


def forget(run: str, rank: int) -> None:
    with _MAILBOXES_LOCK:
        _MAILBOXES.pop((run, rank), None)


async def _deliver(run: str, rank: int, key: list, payload: Any) -> None:
    mailbox(run, rank).put(tuple(key), payload)


def install_handler(dask_worker: Any) -> None:
    """Serve ``frontier_exchange`` on this worker (run through ``Client.run``; idempotent)."""
    dask_worker.handlers[HANDLER] = _deliver


def abort_run(run: str, ranks: list[int], reason: str) -> None:
    """End ``run`` for ``ranks`` in this process: their waiting collectives raise
    :class:`ExchangeAbortedError` (run through ``Client.run``)."""
    for rank in ranks:
        mailbox(run, rank).abort(reason)


def doing_of(run: str) -> dict[int, str]:
    """What each rank of ``run`` in this process was last doing (through ``Client.run``)."""
    with _MAILBOXES_LOCK:
        return {rank: box.doing for (r, rank), box in _MAILBOXES.items() if r == run}


class DaskComm(Communicator):
    """Collectives over Dask's worker-to-worker transport, for numpy arrays: each message is
    one RPC to the peer's ``frontier_exchange`` handler. ``addresses[r]`` is the worker of rank
    ``r``; ``timeout`` bounds every wait for a peer's message."""

    def __init__(self, run: str, rank: int, addresses: list[str], timeout: float,
                 worker: Any) -> None:
        super().__init__()
        self.run, self.rank, self.size = run, rank, len(addresses)
        self.addresses = addresses
        self.timeout = timeout
        self._worker = worker
        self._box = mailbox(run, rank)
        self._sequence = 0

    @property  # type: ignore[override]
    def doing(self) -> str:
        return self._box.doing if hasattr(self, "_box") else "starting"

    @doing.setter
    def doing(self, value: str) -> None:
        if hasattr(self, "_box"):
            self._box.doing = value

    def _exchange(self, payloads: list[Any]) -> list[Any]:
        """Send ``payloads[r]`` to every other rank ``r``; return what each rank sent here."""
        from distributed.protocol import to_serialize
        from distributed.utils import sync

        if self.size == 1:
            return list(payloads)
        self._sequence += 1
        seq = self._sequence
        worker = self._worker

        async def send_all() -> None:
            await asyncio.gather(*[
                worker.rpc(self.addresses[r]).frontier_exchange(
                    run=self.run, rank=r, key=[seq, self.rank],
                    payload=to_serialize(payloads[r]))
                for r in range(self.size) if r != self.rank])

        sync(worker.loop, send_all)
        self.sent_bytes += sum(_nbytes(p) for r, p in enumerate(payloads) if r != self.rank)
        return [payloads[r] if r == self.rank else
                self._box.take((seq, r), self.timeout,
                               f"rank {r} ({self.addresses[r]}) during {self.doing}")
                for r in range(self.size)]

    def alltoallv(self, buckets: list[Bucket]) -> list[Bucket]:
        if len(buckets) != self.size:
            raise ValueError(f"{len(buckets)} buckets for {self.size} ranks")
        return self._exchange([tuple(b) for b in buckets])

    def allreduce(self, value: int | float, op: str = "sum") -> int | float:
        if op not in REDUCE_OPS:
            raise ValueError(f"op={op!r}; expected one of {REDUCE_OPS}")
        values = self._exchange([value] * self.size)
        return {"sum": sum, "max": max, "min": min}[op](values)

    def allgather(self, array: Any) -> list[Any]:
        return self._exchange([array] * self.size)

    def close(self) -> None:
        forget(self.run, self.rank)


def _nbytes(payload: Any) -> int:
    if isinstance(payload, tuple):
        return sum(_nbytes(p) for p in payload)
    return int(getattr(payload, "nbytes", 8))
