"""check_race_free: run an operator, an algorithm or a host loop with every functor's accesses to
its state arrays recorded, and fail on a data race (the machinery:
:mod:`frontier.runtime.racecheck`).

Two work items of one step (one kernel launch) that touch the same element of a state array,
at least one of them writing it without an atomic, race on a GPU: the result depends on the
order of their threads. A work item is one functor call (an edge of an advance, an element of a
filter, compute or reduce; a condition and the functor on one edge are one item; a pull or a
neighbour reduction is one item per vertex, the loop of its thread). Reads beside atomic writes
and atomics beside atomics are fine; :func:`frontier.atomic_load` and
:func:`frontier.atomic_store` mark an intended race (any writer's value right).

The check runs on the cpu target (functors and kernels run as Python there while it runs) and
in the CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``); a launch on a real GPU raises
:class:`frontier.TargetError`. Traversals run as host steps (no fused or small-frontier
kernels), so that every level is a step. Only the calling thread's launches are checked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from frontier.runtime import racecheck

__all__ = ["check_race_free"]

R = TypeVar("R")


def check_race_free(fn: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """``fn(*args, **kwargs)`` (an operator, an algorithm, a host loop of operators) run with
    the race detector on, on the cpu target or in the simulator; returns its result. Raises
    ``AssertionError`` (:class:`frontier.runtime.racecheck.RaceError`) for the first step with a
    data race, naming the functor (name and file:line), the state argument (position, dtype and
    shape), the index and the two work items (e.g. ``edge 0->3 (eid 2)``, ``vertex 5``) with
    what each did. Raises :class:`frontier.TargetError` for a launch on a real GPU."""
    with racecheck.session() as session:
        try:
            result = fn(*args, **kwargs)
        except Exception as err:
            if session.race is not None:
                raise racecheck.RaceError(session.race) from err
            raise
    if session.race is not None:
        raise racecheck.RaceError(session.race)
    return result
