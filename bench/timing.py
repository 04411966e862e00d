"""The one timer of the benchmarks: a warm-up call (it compiles), then the median of at least
:data:`MIN_RUNS` timed calls, each between two synchronizations of the target, so that the clock
starts on an idle device and stops only once the call's work is done.

``budget_s`` and ``slow_s`` let a suite bound a slow configuration (the count of timed calls is
part of the :class:`Timing`, and every suite reports it): after ``budget_s`` seconds of timed
calls the timer stops once it has ``at_least`` of them; a first timed call slower than
``slow_s`` is the only one.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

#: The fewest timed calls a median is taken of (unless a budget or ``slow_s`` cuts it short).
MIN_RUNS = 5


class Synchronized(Protocol):
    """What the timer needs of a target: a way to wait for its work."""

    def synchronize(self) -> None: ...


@dataclass(frozen=True)
class Timing:
    """The warm-up and timed calls of one configuration."""

    first_s: float  #: the warm-up call (or the first of them), compilation included
    walls: tuple[float, ...]  #: wall seconds of each timed call
    own: tuple[float, ...]  #: what each timed call's result reported (``own``), if asked
    first: Any  #: the warm-up call's result
    result: Any  #: the last timed call's result

    @property
    def runs(self) -> int:
        return len(self.walls)

    @property
    def wall_s(self) -> float:
        """Median wall seconds of the timed calls."""
        return statistics.median(self.walls)

    @property
    def min_s(self) -> float:
        return min(self.walls)

    @property
    def own_s(self) -> float:
        """Median of what the results reported (e.g. ``result.seconds``: device time)."""
        return statistics.median(self.own)


def time_calls(call: Callable[[], Any], *, runs: int = MIN_RUNS, warmups: int = 1,
               target: Synchronized | None = None, own: Callable[[Any], float] | None = None,
               prepare: Callable[[], object] | None = None, budget_s: float | None = None,
               at_least: int = MIN_RUNS, slow_s: float | None = None) -> Timing:
    """Time ``call()``: ``warmups`` untimed calls, then ``runs`` (>= :data:`MIN_RUNS`) timed
    ones, ``target.synchronize()`` before and after each (none for host-only work, ``target``
    None). ``prepare()`` runs before each call, off the clock (e.g. resetting device state);
    ``own(result)`` is recorded for each timed call. Stops early after ``budget_s`` seconds of
    timed calls once ``at_least`` are in, or after a first timed call slower than ``slow_s``."""
    if runs < MIN_RUNS:
        raise ValueError(f"runs={runs}: a median is taken of at least {MIN_RUNS} timed calls")
    if warmups < 1:
        raise ValueError(f"warmups={warmups}: at least one warm-up call (it compiles)")
    first_s, first = 0.0, None
    for k in range(warmups):
        seconds, result = _one(call, target, prepare)
        if k == 0:
            first_s, first = seconds, result
    walls: list[float] = []
    reported: list[float] = []
    result = first
    started = time.perf_counter()
    while len(walls) < runs:
        seconds, result = _one(call, target, prepare)
        walls.append(seconds)
        if own is not None:
            reported.append(own(result))
        if slow_s is not None and len(walls) == 1 and seconds > slow_s:
            break
        if (budget_s is not None and len(walls) >= at_least
                and time.perf_counter() - started > budget_s):
            break
    return Timing(first_s, tuple(walls), tuple(reported), first, result)


def _one(call: Callable[[], Any], target: Synchronized | None,
         prepare: Callable[[], object] | None) -> tuple[float, Any]:
    if prepare is not None:
        prepare()
    if target is not None:
        target.synchronize()
    start = time.perf_counter()
    result = call()
    if target is not None:
        target.synchronize()
    return time.perf_counter() - start, result
