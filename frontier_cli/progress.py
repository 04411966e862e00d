"""Progress display for long command-line work (loading a large file, many timed runs, BFS
sweeps): silent for the first two seconds, then a live line on stderr.

With the optional ``rich`` package installed (``pip install 'frontier-graph[cli]'``) the display
is a rich progress bar; otherwise plain lines on stderr, one every few seconds. Nothing is shown
when stderr is not a terminal unless asked for (``frontier ... --progress``), so logs and pipes
stay clean; stdout is never touched, so ``--json`` output stays one document.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import TextIO

__all__ = ["Progress"]

#: Seconds of silence before anything is shown.
DELAY = 2.0
#: Seconds between two plain lines.
PLAIN_EVERY = 5.0


class Progress:
    """``with Progress("loading g.mtx", enabled=...) as p: ...; p.advance()``: ``total`` steps
    (None: unknown, elapsed time only). Shows nothing unless the work outlasts :data:`DELAY`."""

    def __init__(self, description: str, total: int | None = None, *, enabled: bool = True,
                 stream: TextIO | None = None, delay: float = DELAY) -> None:
        self.description = description
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.delay = delay
        self._start = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._shown = False
        self._rich = None

    def advance(self, steps: int = 1) -> None:
        self.done += steps
        if self._rich is not None:
            self._rich[0].update(self._rich[1], completed=self.done)

    def __enter__(self) -> Progress:
        self._start = time.perf_counter()
        if self.enabled:
            self._thread = threading.Thread(target=self._watch, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._rich is not None:
            self._rich[0].stop()
        elif self._shown and kind is None:
            self._line("done")

    def _watch(self) -> None:
        if self._stop.wait(self.delay):
            return
        self._shown = True
        self._rich = _rich_bar(self.description, self.total, self.done, self.stream)
        if self._rich is not None:
            return
        self._line()
        while not self._stop.wait(PLAIN_EVERY):
            self._line()

    def _line(self, state: str = "") -> None:
        elapsed = time.perf_counter() - self._start
        count = f" {self.done}/{self.total}" if self.total is not None else ""
        tail = f" {state}" if state else ""
        print(f"frontier: {self.description}{count} ({elapsed:.0f} s){tail}", file=self.stream,
              flush=True)


def _rich_bar(description: str, total: int | None, done: int, stream: TextIO) -> tuple | None:
    """A started rich progress bar and its task, or None without rich."""
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as RichProgress
    except ImportError:
        return None
    columns = [SpinnerColumn(), TextColumn(description)]
    if total is not None:
        columns += [BarColumn(), MofNCompleteColumn()]
    bar = RichProgress(*columns, TimeElapsedColumn(), console=Console(file=stream),
                       transient=True)
    task = bar.add_task(description, total=total, completed=done)
    bar.start()
    return bar, task
