"""Several sources in one launch: independent traversals from many sources run as one.

A traversal from each of ``k`` sources (``k`` BFSs, SSSPs, Brandes forward passes) pays each
traversal's fixed costs ``k`` times when the sources run one after the other: its launches, its
reads of the host, its argument preparation, and, on a graph whose frontiers stay small, a grid
that is mostly idle. Here the ``k`` traversals are one traversal of ``k`` disjoint copies of the
graph (:meth:`frontier.Graph.copies`): copy ``i`` holds source ``i``, its vertices are ``i * |V|
.. (i + 1) * |V| - 1``, and every state array has ``k`` rows of |V| entries, row ``i`` for
source ``i``. The operators run over the copies as over any graph, so :func:`operators.stepping`
or :func:`operators.traverse` launch once for the batch, their balancer spreads every row's
frontier over the grid together (the threads of a launch take the rows' vertices side by side,
where one small frontier alone would leave them idle), and one read ends the batch. The copies
share no arc, so each row ends as a traversal from its source alone ends: same distances, same
levels (a direction-optimizing traversal pulls only where each row's frontier alone would be
pulled, :meth:`Batch.direction`); a vertex id a functor records (a predecessor) is the copy's,
``i * |V| + v``, and :func:`in_row` turns it back into ``v``.

A batch's copies hold at most :data:`BATCH_CELLS` vertices and arcs together (``k * (|V| +
|E|)``), :data:`SEQUENTIAL_BATCH_CELLS` on a target that runs one thread (the cpu target, where
a batch saves only the host's costs per traversal, and copies past the processor's caches would
slow the traversal itself): :func:`batches` cuts a longer list of sources into batches of that
size, the last shorter. The copies are built on the host once per batch size and kept with the graph
(:meth:`frontier.Graph.copies`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from frontier.graph import Graph
from frontier.options import Way
from frontier.runtime.target import Target
from operators.adaptive.thresholds import thresholds_for
from operators.balancers import LoadBalancer
from operators.compute import compute
from operators.direction import Direction
from operators.policy import AdaptivePolicy, Policy, resolve_policy

__all__ = ["Batch", "batches", "sources_per_batch", "in_row", "BATCH_CELLS",
           "SEQUENTIAL_BATCH_CELLS"]

#: The most vertices and arcs (together) the copies of one batch hold.
BATCH_CELLS = 1 << 24
#: The same on a target that runs one thread: a batch of a graph's copies that stay in the
#: processor's caches (a traversal of more cells costs more than the host's work per call).
SEQUENTIAL_BATCH_CELLS = 1 << 16


@dataclass(frozen=True)
class Batch:
    """Sources ``first .. first + len(sources) - 1`` of a call, as one traversal: ``graph``
    is the copies (one per source), ``starts`` each source's vertex in its copy (``i * |V| +
    sources[i]``), ``row`` the number of vertices of one copy (|V| of the graph)."""

    graph: Graph
    sources: np.ndarray
    starts: np.ndarray
    first: int
    row: int

    @property
    def size(self) -> int:
        """The sources of the batch, one row each."""
        return int(self.sources.size)

    def policy(self, balancer: str | LoadBalancer | Policy, target: Target) -> Policy:
        """The policy of the batch's traversal for ``balancer``: a static one as it is; for
        the adaptive runtime (``"auto"``), one fused push with the balancer of a fused loop
        (:meth:`operators.policy.AdaptivePolicy.loop_balancer`), not decided level by level
        from the batch's frontier, which is every row's frontier side by side (its one-block
        mode would hold one row's frontier, not all of them); a batch of one source, whose
        frontier is its own, as a call from that source alone."""
        chosen = resolve_policy(balancer, self.graph, target)
        if isinstance(chosen, AdaptivePolicy) and self.size > 1:
            return chosen.loop_policy()
        return chosen

    def direction(self, direction: Direction, target: Target) -> Direction:
        """The batch's direction: ``direction`` whose pull floor (the adaptive runtime's
        ``t2``, the frontier from which one thread per vertex fills the GPU) counts for each
        row, so the batch pulls only where each source's frontier alone would fill the GPU (a
        pull step scans every vertex of every copy)."""
        if direction.mode != Way.AUTO:
            return direction
        return direction.with_min_pull(int(thresholds_for(target).t2) * self.size)

    def rows(self, flat: Any) -> Any:
        """The batch's rows of ``flat`` (an array of one row of |V| entries per source of the
        whole call, row after row): the state array of the batch's traversal."""
        return flat[self.first * self.row:(self.first + self.size) * self.row]


def sources_per_batch(graph: Graph, cells: int | None = None,
                      target: Target | None = None) -> int:
    """How many sources one batch holds: copies of at most ``cells`` vertices and arcs
    (default, read at the call: :data:`SEQUENTIAL_BATCH_CELLS` on a ``target`` that runs one
    thread, else :data:`BATCH_CELLS`), at least one source."""
    if cells is None:
        sequential = target is not None and not target.runs_balancers
        cells = SEQUENTIAL_BATCH_CELLS if sequential else BATCH_CELLS
    return max(1, cells // max(graph.num_vertices + graph.num_edges, 1))


def batches(graph: Graph, sources: np.ndarray, cells: int | None = None,
            target: Target | None = None) -> Iterator[Batch]:
    """``sources`` (vertex ids of ``graph``, repeats allowed) in order, as batches of at most
    :func:`sources_per_batch` sources (for ``target``)."""
    n = graph.num_vertices
    each = sources_per_batch(graph, cells, target)
    for first in range(0, sources.size, each):
        chunk = np.asarray(sources[first:first + each], dtype=np.int64)
        starts = chunk + np.arange(chunk.size, dtype=np.int64) * n
        yield Batch(graph.copies(chunk.size), chunk, starts, first, n)


def _to_row(c: int, ids: Any, row: int) -> None:
    if ids[c] >= 0:
        ids[c] = ids[c] % row


def in_row(ids: Any, row: int, target: Target) -> Any:
    """Vertex ids of the copies (``i * row + v``; negative: none) as ids within their row
    (``v``), in place: with NumPy on a host array, one ``compute`` on a device array. Returns
    ``ids``."""
    if isinstance(ids, np.ndarray):
        np.remainder(ids, row, out=ids, where=ids >= 0)
    elif ids.shape[0]:
        compute(None, ids.shape[0], _to_row, ids, row, target=target)
    return ids
