"""The hand-off by which the operators called inside a loop's body reach the loop.

:func:`operators.loop` calls its body once to learn the round's steps (fused), or once per
round (the host loop). While the body runs, the loop is *active* in the calling thread, and
every operator (``advance``, ``filter``, ``compute``, ``reduce``, ``neighbor_reduce``) hands
its call to it with :func:`handed_over` instead of launching: the fused loop records the step,
the host loop runs it for real with the round number in place of :data:`ROUND`. Outside a
loop's body :func:`handed_over` returns None and the operator runs as it always does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

__all__ = ["ROUND", "Round", "Receiver", "active", "handed_over", "receiving"]


class Round:
    """The round number of the loop whose body passes it as a state argument: ``advance(G, F,
    fn, dist, ROUND)`` calls ``fn(src, dst, eid, weight, dist, r)`` with ``r`` the round
    (an int64, 0 for the first round). Only inside the body of :func:`operators.loop`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "operators.ROUND"


#: The one :class:`Round`: a loop body's operators receive the round number for it.
ROUND = Round()


class Receiver(Protocol):
    """What an active loop does with an operator call made in its body."""

    def call(self, operator: Callable, args: tuple, options: dict[str, Any]) -> Any: ...


_ACTIVE = threading.local()


def active() -> Receiver | None:
    """The loop whose body the calling thread is running, or None."""
    return getattr(_ACTIVE, "receiver", None)


@contextmanager
def receiving(receiver: Receiver | None) -> Iterator[None]:
    """Run the block with ``receiver`` receiving the operators' calls of this thread (None:
    the operators run as they always do, e.g. while the host loop runs a step for real)."""
    before = active()
    _ACTIVE.receiver = receiver
    try:
        yield
    finally:
        _ACTIVE.receiver = before


def handed_over(operator: Callable, *args: Any, **options: Any) -> tuple[bool, Any]:
    """``(True, result)`` when a loop's body is running in this thread: the call
    ``operator(*args, **options)`` went to the loop, which returned ``result``; ``(False,
    None)`` otherwise (the operator runs itself)."""
    receiver = active()
    if receiver is None:
        return False, None
    return True, receiver.call(operator, args, options)
