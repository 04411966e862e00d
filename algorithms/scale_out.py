"""The one place an algorithm hands a partitioned graph to its distributed version.

``@scales_out("algorithms.distributed:bfs")`` on an algorithm's entry point makes a call whose
graph is a :class:`frontier.distributed.DistributedGraph` run the named routine (imported on
first use, so the single-device library never imports Dask) with the same arguments; every
other call runs the algorithm itself."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any, TypeVar

from frontier.distributed.graph import DistributedGraph

__all__ = ["scales_out"]

F = TypeVar("F", bound=Callable[..., Any])


def scales_out(routine: str) -> Callable[[F], F]:
    """Route calls on a DistributedGraph to ``routine`` (``"module:function"``)."""
    module, name = routine.split(":")

    def wrap(algorithm: F) -> F:
        @functools.wraps(algorithm)
        def call(graph: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(graph, DistributedGraph):
                return getattr(importlib.import_module(module), name)(graph, *args, **kwargs)
            return algorithm(graph, *args, **kwargs)

        return call  # type: ignore[return-value]

    return wrap
