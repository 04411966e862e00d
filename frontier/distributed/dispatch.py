"""The one place a call hands a partitioned graph to the algorithm's version over partitions.

``@scales_out("bfs")`` on an algorithm's entry point makes a call whose graph is a
:class:`~frontier.distributed.graph.DistributedGraph` run the version registered under that name
(:func:`register_version`) with the same arguments; every other call runs the algorithm itself.
The versions run operators, so they live above them, in :mod:`algorithms.distributed`, which
registers them when it is imported; the ``algorithms`` package hands this module the function
that imports it (:func:`versions_from`), which the first call on a DistributedGraph runs, so a
process that never partitions a graph never imports them. Both directions are plain imports
that import-linter checks: the algorithms import this module, :mod:`algorithms.distributed`
imports it and them.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["scales_out", "register_version", "versions_from", "VERSIONS"]

F = TypeVar("F", bound=Callable[..., Any])

#: The versions over partitions, by the name their algorithm's entry point is decorated with.
VERSIONS: dict[str, Callable[..., Any]] = {}
#: The functions that register versions (:func:`versions_from`).
_LOADERS: list[Callable[[], Any]] = []


def register_version(name: str, version: Callable[..., Any]) -> None:
    """Make calls of the algorithm decorated ``@scales_out(name)`` on a DistributedGraph run
    ``version(graph, *args, **kwargs)``."""
    VERSIONS[name] = version


def versions_from(load: Callable[[], Any]) -> None:
    """Have the first call on a DistributedGraph whose version is not registered yet run
    ``load()``, which registers versions by importing their module (Python's import lock makes
    calls from several threads import it once, each waiting for it)."""
    _LOADERS.append(load)


def _distributed(graph: Any) -> bool:
    """Whether ``graph`` is a DistributedGraph (whose module is imported where one exists:
    asked without importing it)."""
    module = sys.modules.get("frontier.distributed.graph")
    return module is not None and isinstance(graph, module.DistributedGraph)


def scales_out(name: str) -> Callable[[F], F]:
    """Route calls on a DistributedGraph to the version registered as ``name``."""

    def wrap(algorithm: F) -> F:
        @functools.wraps(algorithm)
        def call(graph: Any, *args: Any, **kwargs: Any) -> Any:
            if _distributed(graph):
                version = VERSIONS.get(name)
                if version is None:
                    for load in _LOADERS:
                        load()
                    version = VERSIONS.get(name)
                if version is None:
                    raise TypeError(f"{name} does not run over partitions (no version is "
                                    "registered for it); pass a frontier.Graph")
                return version(graph, *args, **kwargs)
            return algorithm(graph, *args, **kwargs)

        return call  # type: ignore[return-value]

    return wrap
