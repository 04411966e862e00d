"""The progress of a suite on stderr: ``[k/N] what`` with the seconds since the start, as a bar
redrawn in place on a terminal and one line per step otherwise (a log keeps every step).
Nothing here reaches stdout, where the suites print their tables."""

from __future__ import annotations

import sys
import time
from typing import TextIO

_WIDTH = 24


class Progress:
    """Steps done out of ``total`` (0: unknown), shown as they finish."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.total = max(0, total)
        self.label = label
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.perf_counter()
        self._live = bool(getattr(self.stream, "isatty", lambda: False)())

    def line(self, what: str) -> str:
        """What a step shows: the count, a bar where the total is known, the elapsed time."""
        elapsed = time.perf_counter() - self.started
        if self.total:
            filled = _WIDTH * min(self.done, self.total) // self.total
            bar = f"[{'#' * filled}{'.' * (_WIDTH - filled)}] {self.done}/{self.total}"
        else:
            bar = f"[{self.done}]"
        return f"{self.label} {bar} {elapsed:6.1f} s  {what}"

    def step(self, what: str) -> None:
        """One step finished: ``what`` it was."""
        self.done += 1
        text = self.line(what)
        if self._live:
            end = "\n" if self.total and self.done >= self.total else ""
            self.stream.write("\r\x1b[K" + text + end)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def say(self, text: str) -> None:
        """A line of its own (a graph built, a note), above the bar on a terminal."""
        self.stream.write(("\r\x1b[K" if self._live else "") + text + "\n")
        self.stream.flush()
