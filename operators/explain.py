"""explain: the source of the kernels an operator call runs, found by running it under a
recording (:mod:`frontier.runtime.recording`) on copies of its frontiers and arrays."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from frontier.frontier import Frontier
from frontier.graph import Graph
from frontier.runtime.recording import recording
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators.common import OperatorError
from operators.tiles import tile_update


def explain(operator: Callable, *args: Any, **options: Any) -> str:
    """The source of the kernels ``operator(*args, **options)`` launches, each distinct kernel
    once, in the order of its first launch, under a ``# ---`` heading with its balancer, mode
    and launch shape (:meth:`frontier.runtime.recording.Recording.text`).

    ``operator`` is any call that launches kernels: an operator (``explain(advance, G, f, fn,
    *state, balancer="auto")``), ``tile_update`` (``explain(tile_update, D, fn, pivot=0,
    tiles="rest")``; the earlier form with ``None`` before the matrix works too) or a whole
    algorithm (``explain(bfs, G, 0)``). It runs, for real, on the graph and frontiers given, so
    what it shows is what such a call runs, ``balancer="auto"`` and ``direction="auto"``
    included; it runs on copies of the frontiers and arrays passed (made before the recording
    starts), so nothing passed in is modified, and a frontier passed in stays current."""
    if not callable(operator):
        raise OperatorError(f"explain takes an operator or another call that launches kernels, "
                            f"not {operator!r}")
    if operator is tile_update and args and args[0] is None:
        args = args[1:]  # explain(tile_update, None, matrix, ...), as earlier versions took it
    target = _target(args, options)
    copies: dict[int, Any] = {}
    args = tuple(_copy(a, target, copies) for a in args)
    options = {k: _copy(v, target, copies) for k, v in options.items()}
    with recording() as log:
        operator(*args, **options)
    return log.text()


def _target(args: tuple, options: dict[str, Any]) -> Target | None:
    """The target of the call: its first frontier's, else its ``target`` option resolved for
    its first graph (None: no array to copy needs one)."""
    for value in (*args, *options.values()):
        if isinstance(value, Frontier):
            return value.target
    try:
        graph = next((a for a in (*args, *options.values()) if isinstance(a, Graph)), None)
        return resolve_target(options.get("target"), graph)
    except (TypeError, ValueError):
        return None  # the call itself reports the bad target


def _copy(value: Any, target: Target | None, copies: dict[int, Any]) -> Any:
    """An independent copy of a frontier or an array (the same copy for the same object, so
    arguments that alias stay aliased); anything else as it is."""
    if id(value) in copies:
        return copies[id(value)]
    if isinstance(value, Frontier):
        copied = value.copy()
    elif isinstance(value, np.ndarray):
        copied = value.copy()
    elif hasattr(value, "copy_to_host") and target is not None:  # a device array
        copied = target.to_device(target.to_host(value))
    else:
        return value
    copies[id(value)] = copied
    return copied
