"""The hand-off by which the operators called inside a loop's body reach the loop.

:func:`operators.loop` calls its body once to learn the round's steps (fused), or once per
round (the host loop). While the body runs, the loop is *active* in the calling thread, and
every operator (``advance``, ``traverse``, ``filter``, ``compute``, ``reduce``,
``neighbor_reduce``) hands its call to it with :func:`handed_over` instead of launching: the
fused loop records the step, the host loop runs it for real with the round number in place
of :data:`ROUND`. Outside a loop's body the operator runs as it always does. Every public
operator is wrapped in :func:`hands_over`, so one the fused loop cannot run (``iterate``,
``stepping``, ...) is refused there by name instead of running once while the body is learned.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import wraps
from inspect import Parameter, Signature, signature
from typing import Any, Protocol, TypeVar

__all__ = ["ROUND", "Round", "Receiver", "active", "hands_over", "receiving"]

F = TypeVar("F", bound=Callable[..., Any])


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


class _Active(threading.local):
    """The calling thread's receiver (None, the class's value, until a loop's body runs: read
    on every operator call, where ``getattr`` with a default of a missing thread-local
    attribute would raise and catch an AttributeError)."""

    receiver: Receiver | None = None


_ACTIVE = _Active()


def active() -> Receiver | None:
    """The loop whose body the calling thread is running, or None."""
    return _ACTIVE.receiver


def receiving(receiver: Receiver | None) -> AbstractContextManager[None]:
    """Run the block with ``receiver`` receiving the operators' calls of this thread (None:
    the operators run as they always do, e.g. while the host loop runs a step for real)."""
    return _Receiving(receiver)


class _Receiving:
    """:func:`receiving`'s context (a class: a loop enters one per body it learns and per host
    round, where a generator's context costs several times more)."""

    __slots__ = ("_receiver", "_before")

    def __init__(self, receiver: Receiver | None) -> None:
        self._receiver = receiver
        self._before: Receiver | None = None

    def __enter__(self) -> None:
        self._before = _ACTIVE.receiver
        _ACTIVE.receiver = self._receiver

    def __exit__(self, *exc: object) -> None:
        _ACTIVE.receiver = self._before


def hands_over(operator: F) -> F:
    """``operator`` that, called while a loop's body runs in this thread, hands the call
    ``operator(*args, **options)`` to the loop and returns what the loop returns; otherwise
    runs itself."""

    binding = _Binding(signature(operator))

    @wraps(operator)
    def handing(*args: Any, **options: Any) -> Any:
        receiver = _ACTIVE.receiver  # active(), without a call: every operator call reads it
        if receiver is None:
            return operator(*args, **options)
        try:  # every argument, the defaults included, as the operator would see them
            bound, keywords = binding.bind(args, options)
        except TypeError as err:
            raise TypeError(f"{operator.__name__}(): {err}") from None
        return receiver.call(handing, bound, keywords)

    return handing  # type: ignore[return-value]


class _Binding:
    """An operator's arguments as :meth:`inspect.Signature.bind` and ``apply_defaults`` give
    them (the positional ones, then the keyword-only ones with their defaults), for a call
    handed to a loop: worked out from the signature once, so that the common call (every
    parameter before ``*state`` given by position, keyword-only options) costs a dictionary
    copy, not a binding; any other call is bound by :mod:`inspect`."""

    __slots__ = ("_signature", "_positional", "_variadic", "_defaults", "_required")

    def __init__(self, parameters: Signature) -> None:
        self._signature = parameters
        kinds = [p.kind for p in parameters.parameters.values()]
        simple = (Parameter.VAR_KEYWORD not in kinds and Parameter.POSITIONAL_ONLY not in kinds)
        #: Parameters before ``*state`` (None: no quick binding for this signature).
        self._positional = (sum(k == Parameter.POSITIONAL_OR_KEYWORD for k in kinds)
                            if simple else None)
        self._variadic = Parameter.VAR_POSITIONAL in kinds
        keyword_only = [p for p in parameters.parameters.values()
                        if p.kind == Parameter.KEYWORD_ONLY]
        self._defaults = {p.name: p.default for p in keyword_only if p.default is not p.empty}
        self._required = frozenset(p.name for p in keyword_only if p.default is p.empty)

    def bind(self, args: tuple, options: dict[str, Any]) -> tuple[tuple, dict[str, Any]]:
        """``(args, keyword arguments)`` of the call, defaults applied; TypeError where the
        call does not fit the signature."""
        positional = self._positional
        if (positional is not None
                and (len(args) == positional or (self._variadic and len(args) > positional))
                and self._required <= options.keys()
                and all(name in self._defaults or name in self._required
                        for name in options)):
            return args, {**self._defaults, **options}
        call = self._signature.bind(*args, **options)
        call.apply_defaults()
        return call.args, call.kwargs
