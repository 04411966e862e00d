"""The errors of the graph model and the device runtime, in one module below both: what a graph,
a graph's size or a target refuses. The runtime (:mod:`frontier.runtime`) raises
:class:`GraphTooLargeError` and :class:`TargetError` without knowing the graph model; the graph
model, the loaders and the algorithms raise the rest.
"""

from __future__ import annotations

__all__ = ["GraphError", "GraphTooLargeError", "NegativeCycleError", "NegativeWeightsError",
           "TargetError"]


class GraphError(ValueError):
    """A graph could not be built from what was passed in."""


class NegativeCycleError(ValueError):
    """A cycle of negative total weight is reachable from the source of a shortest-path search:
    no shortest path exists to the vertices it reaches."""


class NegativeWeightsError(ValueError):
    """A method that needs non-negative edge weights was given a graph with a negative one."""


class GraphTooLargeError(GraphError):
    """A graph would not fit in memory; raised before anything is read or allocated.

    ``what`` names what was asked (a file, a generator call), ``estimate`` and ``limit`` are
    bytes, ``where`` is ``"host"`` or the device's target name.
    """

    def __init__(self, what: str, estimate: int, limit: int, where: str = "host") -> None:
        super().__init__(what, estimate, limit, where)
        self.what = what
        self.estimate = int(estimate)
        self.limit = int(limit)
        self.where = where

    def __str__(self) -> str:
        memory = "available host memory" if self.where == "host" else f"free memory on {self.where}"
        return (f"{self.what} needs about {_human(self.estimate)}, more than the "
                f"{_human(self.limit)} of {memory}; expected a smaller graph")


def _human(n: int) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


class TargetError(ValueError):
    """A target was asked for that cannot be used here."""
