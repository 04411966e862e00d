"""Levels: the vertices grouped by an integer level (a BFS depth), taken level after level.

Level-synchronous algorithms walk back over the levels a traversal made: Brandes' dependency
accumulation gathers, from the deepest level up, each vertex's dependency from its successors
one level deeper (Brandes 2001, §4; Ligra's BC keeps every level's frontier and edge-maps them
in reverse, Shun & Blelloch, PPoPP 2013, §5; Gunrock's BC runs its backward phase per stored
frontier, Wang et al., §5.3). A host loop of one operator call per level pays a launch (or, on
the cpu target, a Python call) per level: thousands on a road network.

``Levels(level, first, last)`` names the vertices ``v`` whose ``level[v]`` lies between
``first`` and ``last`` (inclusive), taken level by level from ``first`` towards ``last``
(``first > last`` walks down). :func:`operators.neighbor_reduce` over a ``Levels`` groups the
vertices by level on the target (a counting sort: a histogram, a prefix sum, a scatter) and
folds every level's vertices in turn inside one launch, a grid barrier between levels, so a
level reads what the levels before it wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from frontier import validate
from frontier.graph import Graph
from frontier.runtime.device_arrays import is_device_array
from operators.common import OperatorError, vector_flaw

__all__ = ["Levels", "MOST_LEVEL"]

#: The largest level a :class:`Levels` takes (levels are int32 numbers, as BFS depths are).
MOST_LEVEL = 2**31 - 1


@dataclass(frozen=True)
class Levels:
    """The vertices ``v`` with ``level[v]`` from ``first`` to ``last`` (both included), level
    after level in that direction. ``level`` is an integer array of at least |V| entries on the
    target the operator runs on (a NumPy array for the cpu target, a device array for cuda);
    vertices whose level lies outside the range are not visited. Levels are integers from 0 to
    :data:`MOST_LEVEL`."""

    level: Any
    first: int
    last: int

    @property
    def count(self) -> int:
        """How many levels the range spans."""
        return abs(self.last - self.first) + 1

    @property
    def step(self) -> int:
        """+1 when the levels are taken upwards, -1 when downwards."""
        return 1 if self.last >= self.first else -1

    def checked(self, graph: Graph, on_device: bool) -> Levels:
        """These levels, checked for ``graph`` and a call whose arrays are device arrays
        (``on_device``) or NumPy arrays: ``level`` an integer array of at least |V| entries
        on the same side, ``first`` and ``last`` levels of at most |V| levels' span."""
        first = validate.count("Levels.first", self.first, 0, MOST_LEVEL)
        last = validate.count("Levels.last", self.last, 0, MOST_LEVEL)
        n = graph.num_vertices
        level = self.level
        got = vector_flaw(level, n, "iu")
        if got is not None:
            raise OperatorError(f"Levels.level must be a one-dimensional integer array of at "
                                f"least |V| = {n} entries; got {got}")
        if is_device_array(level) != on_device:
            raise OperatorError("Levels.level must live where the call's other arrays do: "
                                + ("a device array (out= is one)" if on_device
                                   else "a NumPy array (out= is one)"))
        span = abs(last - first) + 1
        if span > max(n, 1):
            raise OperatorError(f"Levels from {first} to {last} span {span} levels, more than "
                                f"the graph's {n} vertices can fill; expected a range of at "
                                f"most {max(n, 1)} levels")
        if type(self.first) is int and type(self.last) is int:  # already as checked
            return self
        return Levels(level, first, last)
