"""A traversal's per-step record kept as runs of equal entries.

A traversal records, for every step, the decision that ran it and the host time it took
(:class:`operators.Traversal`). A fused phase or a small-frontier phase runs thousands to
millions of steps under one decision, with no host time of its own (a path of 10^6 vertices is
10^6 levels in one kernel); a list of one entry per step would cost the call more than the
steps' kernel does. :class:`Runs` stores each run of equal entries once, with its length, and
reads as the full sequence: ``len``, indexing, slicing, iteration and equality with any
sequence of the same entries.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, repeat
from typing import Any, Generic, TypeVar, overload

__all__ = ["Runs"]

T = TypeVar("T")


class Runs(Sequence[T], Generic[T]):
    """A sequence of entries stored as ``(entry, count)`` runs; grows with :meth:`add`."""

    __slots__ = ("_entries", "_counts", "_ends")

    def __init__(self, entries: Iterable[T] = ()) -> None:
        self._entries: list[T] = []
        self._counts: list[int] = []
        self._ends: list[int] | None = []
        for entry in entries:
            self.add(entry)

    def add(self, entry: T, count: int = 1) -> None:
        """Append ``count`` copies of ``entry`` (one run, or the last run made longer)."""
        if count <= 0:
            return
        if self._entries and self._entries[-1] is entry:
            self._counts[-1] += count
        else:
            self._entries.append(entry)
            self._counts.append(count)
        self._ends = None

    def runs(self) -> Iterator[tuple[T, int]]:
        """Each run's entry and its length, in order."""
        return zip(self._entries, self._counts, strict=True)

    def _run_ends(self) -> list[int]:
        if self._ends is None:
            self._ends = list(accumulate(self._counts))
        return self._ends

    def __len__(self) -> int:
        ends = self._run_ends()
        return ends[-1] if ends else 0

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        size = len(self)
        if not -size <= index < size:
            raise IndexError(f"step {index} of a record of {size} steps")
        return self._entries[bisect_right(self._run_ends(), index % size)]

    def __iter__(self) -> Iterator[T]:
        for entry, count in self.runs():
            yield from repeat(entry, count)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{entry!r} x{count}" for entry, count in self.runs())
        return f"Runs([{shown}])"

    @classmethod
    def of(cls, entry: Any, count: int) -> Runs:
        """``count`` copies of ``entry``."""
        runs: Runs = cls()
        runs.add(entry, count)
        return runs
