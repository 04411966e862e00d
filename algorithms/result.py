"""What every algorithm's result offers, whatever else it holds: the :class:`Result` protocol.

The command line's summary, the benchmark suite's rows and the tests read these four attributes
from any algorithm of :data:`algorithms.CATALOG` without knowing which one ran:

* ``seconds``: host wall time of the computation on its target (each result type's docstring
  says from where to where);
* ``iterations``: the steps the algorithm counts (BFS levels, relaxation steps, power
  iterations, ...);
* ``edges_traversed``: the edges the computation inspects, what MTEPS counts;
* ``stats``: one record per step, of the algorithm's own stats type (named for what it records:
  :class:`algorithms.LevelStats` per BFS level, :class:`algorithms.SSSPStepStats` per SSSP
  step, ...), or empty where the algorithm reads nothing back per step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["Result"]


@runtime_checkable
class Result(Protocol):
    """The attributes every algorithm's result has (see the module docstring)."""

    @property
    def seconds(self) -> float: ...

    @property
    def iterations(self) -> int: ...

    @property
    def edges_traversed(self) -> int: ...

    @property
    def stats(self) -> Sequence[Any]: ...
