"""The result of a run over partitions whose arrays stay on the workers.

A call over a :class:`~frontier.distributed.DistributedGraph` returns a :class:`Distributed`:
the call's small summary (levels or rounds, the ranks' time, the method, the number of
components: whatever the algorithm put in ``summary``) on the client, and each rank's slice of
the result arrays on its worker (:class:`~frontier.distributed.kept.Kept`): in the device's
memory on GPU workers, where the run left them. :meth:`Distributed.gather` copies each slice to
its worker's host memory (on the worker, ``to_host``, given by the algorithm), brings the slices
to the client once and builds the single-device result from them (``build``, given by the
algorithm); the time it took is :attr:`Distributed.gather_seconds`, apart from the call's own
time. Reading an attribute that is not in the summary (``distances``, ``labels``,
``predecessors``, ``path_to``) is asking for the arrays: it gathers, then reads the
single-device result's attribute.

The slices live as long as the result: the workers drop them when it is garbage collected.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from frontier.distributed.kept import Kept

__all__ = ["Distributed"]


class Distributed:
    """A result over partitions (see the module docstring): ``summary`` (a dict of the call's
    small facts, also readable as attributes), ``kept`` (each rank's full result on its worker;
    None for a run of no ranks), ``build(ranks)`` (the single-device result from the fetched
    rank results) and ``to_host`` (a module-level function run on each worker: its rank result
    with the arrays in host memory). Safe to gather from several threads: the arrays are
    fetched once."""

    def __init__(self, kept: Kept | None, summary: dict[str, Any],
                 build: Callable[[list[Any]], Any], to_host: Callable[[Any], Any]) -> None:
        self.kept = kept
        self.summary = dict(summary)
        self._build = build
        self._to_host = to_host
        self._lock = threading.Lock()
        self._gathered: Any = None
        #: Seconds the one gather took (None until :meth:`gather` ran).
        self.gather_seconds: float | None = None

    def gather(self) -> Any:
        """The single-device result, its arrays brought from the workers (once)."""
        with self._lock:
            if self._gathered is None:
                start = time.perf_counter()
                ranks = [] if self.kept is None else self.kept.fetch(self._to_host)
                self._gathered = self._build(ranks)
                self.gather_seconds = time.perf_counter() - start
            return self._gathered

    @property
    def gathered(self) -> bool:
        """Whether the arrays are on the client already."""
        return self._gathered is not None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in ("kept", "summary", "gather_seconds"):
            raise AttributeError(name)
        summary = self.__dict__.get("summary", {})
        if name in summary:
            return summary[name]
        return getattr(self.gather(), name)

    def __repr__(self) -> str:
        facts = ", ".join(f"{k}={v!r}" for k, v in self.summary.items()
                          if not isinstance(v, list))
        parts = 0 if self.kept is None else len(self.kept.workers)
        return f"Distributed({facts}, {parts} partitions, gathered={self.gathered})"
