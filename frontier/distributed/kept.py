"""Rank results kept on the workers: what a run leaves where it computed it, until the client
asks for it.

A run over partitions (:meth:`frontier.distributed.Runner.run` with ``summarize``) sends the
client only each rank's summary; the full rank results (the result arrays, in the device's
memory on GPU workers) stay in the worker process, in a registry keyed by the run and the rank
(:func:`keep`). The client holds a :class:`Kept` handle: :meth:`Kept.fetch` brings the results
(each converted on its worker first, e.g. copied to host memory), and the registry entries are
dropped when the handle is released (garbage collected, or :meth:`Kept.release`). Every call
goes through ``Client.run``, worker to client, without the scheduler's task machinery.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["Kept", "keep", "kept_count"]

_KEPT: dict[tuple[str, int], Any] = {}
_LOCK = threading.Lock()


def keep(run: str, rank: int, result: Any) -> None:
    """Keep rank ``rank``'s ``result`` of ``run`` in this worker process."""
    with _LOCK:
        _KEPT[run, rank] = result


def kept_count(run: str | None = None) -> int:
    """The rank results of ``run`` (of every run when None) kept in this process (for tests and
    diagnostics)."""
    with _LOCK:
        return sum(1 for key in _KEPT if run is None or key[0] == run)


def _fetch(run: str, rank: int, convert: Callable[[Any], Any]) -> Any:
    with _LOCK:
        result = _KEPT[run, rank]
    return convert(result)


def _forget(run: str) -> None:
    with _LOCK:
        for key in [k for k in _KEPT if k[0] == run]:
            del _KEPT[key]


def _release(client: Any, workers: list[str], run: str) -> None:
    """Drop ``run``'s kept results on ``workers``, from a thread of its own: the finalizer
    that calls this may run on any thread, the client's event loop included, where a
    blocking ``Client.run`` cannot."""
    _RELEASES.submit(_forget_on, client, workers, run)


def _forget_on(client: Any, workers: list[str], run: str) -> None:
    try:
        client.run(_forget, run, workers=workers, on_error="ignore")
    except Exception:  # noqa: BLE001 - a closed client's workers are gone with the results
        return


_RELEASES = ThreadPoolExecutor(1, thread_name_prefix="frontier-kept-release")


class Kept:
    """The rank results of run ``run``, rank ``r`` on worker ``workers[r]``. Released (the
    workers drop them) when this handle is garbage collected or :meth:`release` d."""

    def __init__(self, client: Any, workers: list[str], run: str) -> None:
        self._client = client
        self.workers = list(workers)
        self.run = run
        self._finalizer = weakref.finalize(self, _release, client, self.workers, run)
        self._finalizer.atexit = False

    def fetch(self, convert: Callable[[Any], Any]) -> list[Any]:
        """Every rank's result, in rank order, after ``convert`` (a module-level function)
        ran on it on its worker."""
        return [self._client.run(_fetch, self.run, rank, convert, workers=[worker])[worker]
                for rank, worker in enumerate(self.workers)]

    def release(self) -> None:
        """Drop the results on the workers now."""
        self._finalizer()
