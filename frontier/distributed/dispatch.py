"""The one place a call hands a partitioned graph to the algorithm's version over partitions.

``@scales_out("bfs")`` on an algorithm's entry point makes a call whose graph is a
:class:`~frontier.distributed.graph.DistributedGraph` run the version registered under that name
(:func:`register_version`) with the same arguments; every other call runs the algorithm itself.
The versions run operators, so they live above them, in :mod:`algorithms.distributed`, which
registers them when it is imported; the ``algorithms`` package names it to this module
(:func:`versions_from`), and the first call on a DistributedGraph imports it, so a process that
never partitions a graph never imports them. Both directions are plain imports
that import-linter checks: the algorithms import this module, :mod:`algorithms.distributed`
imports it and them.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["scales_out", "register_version", "versions_from", "VERSIONS"]

F = TypeVar("F", bound=Callable[..., Any])

#: The versions over partitions, by the name their algorithm's entry point is decorated with.
VERSIONS: dict[str, Callable[..., Any]] = {}
#: The modules whose import registers versions (:func:`versions_from`).
_MODULES: list[str] = []


def register_version(name: str, version: Callable[..., Any]) -> None:
    """Make calls of the algorithm decorated ``@scales_out(name)`` on a DistributedGraph run
    ``version(graph, *args, **kwargs)``."""
    VERSIONS[name] = version


def versions_from(module: str) -> None:
    """Have the first call on a DistributedGraph whose version is not registered yet import
    ``module``, which registers versions (Python's import lock makes calls from several threads
    import it once, each waiting for it)."""
    _MODULES.append(module)


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
                    for module in _MODULES:
                        importlib.import_module(module)
                    version = VERSIONS.get(name)
                if version is None:
                    raise TypeError(f"{name} does not run over partitions (no version is "
                                    "registered for it); pass a frontier.Graph")
                return version(graph, *args, **kwargs)
            return algorithm(graph, *args, **kwargs)

        return call  # type: ignore[return-value]

    return wrap
