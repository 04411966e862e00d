"""The errors of a run over several workers."""

from __future__ import annotations

__all__ = ["DistributedError", "WorkerFailedError", "ExchangeAbortedError",
           "ExchangeTimeoutError"]


class DistributedError(RuntimeError):
    """A run over several workers could not be set up or did not finish."""


class WorkerFailedError(DistributedError):
    """A worker raised or died during a run; ``worker`` is its address, ``rank`` the partition
    it held and ``doing`` what it (or, for a worker that died, its peers) was doing. The run's
    partial results are discarded."""

    def __init__(self, message: str, worker: str, rank: int, doing: str) -> None:
        super().__init__(message)
        self.worker = worker
        self.rank = rank
        self.doing = doing

    def __reduce__(self):  # noqa: ANN204 - pickled from worker to client
        return (type(self), (str(self), self.worker, self.rank, self.doing))


class ExchangeAbortedError(DistributedError):
    """The client ended the run (another worker failed) while this worker was exchanging."""


class ExchangeTimeoutError(DistributedError):
    """A peer's message did not arrive in time."""
