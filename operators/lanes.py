"""A hub's edges folded over lanes in a fixed order, the same on every target.

One thread folding a vertex's edges in order leaves a hub's tens of thousands of edges to one
thread: the tail of its step. Folded apart instead, a hub's edges come in chunks of
:data:`CHUNK` edges, each folded over :data:`LANES` lanes (lane ``l`` folds the chunk's edges
``l, l + 32, ...`` in order), the lanes combined by a fixed tree (lane ``l`` takes in lane ``l +
d`` for ``d`` = 16, 8, 4, 2, 1), then the chunks' values the same way. A GPU folds each chunk and
each hub with a warp and its shuffles; the cpu target runs the same lanes and tree in a loop, so
every target computes the same sums (a warp per chunk is Busato & Bombieri's warp-level
mapping of a vertex's edges, §5, without its order-dependent sums). Used by
:func:`operators.iterate.iterate`'s Gather and by :func:`operators.neighbor_reduce` over
:class:`operators.levels.Levels`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from operators.codegen import indent
from operators.reduce import combine

if TYPE_CHECKING:
    from frontier.graph import Graph
    from frontier.runtime.target import Target

__all__ = ["HUB_DEGREE", "LANES", "CHUNK", "TREE", "LaneNames", "over_lanes", "Hubs", "hubs_of"]

#: A hub fold (a Gather of :func:`operators.iterate.iterate`, a level's hub in
#: :func:`operators.neighbor_reduce` over Levels) takes a vertex of more than this many (in- or
#: out-) edges apart from the others: in chunks of :data:`CHUNK` edges, each folded over
#: :data:`LANES` lanes (lane ``l`` folds the chunk's edges ``l, l + 32, ...`` in order, then
#: lane ``l`` takes in lane ``l + d`` for ``d`` = 16, 8, 4, 2, 1 and lane 0 holds the chunk's
#: value), then the chunks' values over the lanes and the same tree. A GPU folds each chunk and
#: each hub with a warp, so a hub's edges are spread over the grid instead of one thread's or
#: one warp's loop (docs/performance.md); the cpu target runs the same lanes and tree in a
#: loop, so every target computes the same sums.
HUB_DEGREE = 1024
LANES = 32
CHUNK = 1024
TREE = (16, 8, 4, 2, 1)


class LaneNames(NamedTuple):
    """The names a lane fold's text binds: the accumulator, the value shuffled in from another
    lane, the sequential target's array of the lanes' values, and the lane."""

    acc: str = "acc"
    other: str = "other"
    lanes: str = "lanes"
    lane: str = "lane"


#: The names of :func:`over_lanes` where a kernel folds over lanes in one place.
PLAIN = LaneNames()


def over_lanes(op: str, identity: str, loop: str, fold: str, runs_balancers: bool,
               result: str, names: LaneNames = PLAIN) -> str:
    """Statements folding ``loop`` (a ``for`` header over ``names.lane``'s share, stepping by
    :data:`LANES`) over the lanes from ``identity``, combining the lanes by the fixed tree, and
    storing lane 0's value with ``result`` (a statement taking ``names.acc``): a warp's lanes
    and shuffles on a GPU (the calling loop is the same for the warp's lanes), the lanes one
    after the other on a sequential target (in ``names.lanes``, an array of :data:`LANES`
    accumulators the kernel makes)."""
    acc, other, lanes, lane = names
    lane_fold = f"{acc} = {identity}\n" + loop + indent(fold)
    if runs_balancers:
        tree = "".join(f"{other} = shfl_idx(FULL, {acc}, {lane} + {d}, {LANES})\n"
                       + combine(op, acc, other) for d in TREE)
        return lane_fold + tree + f"if {lane} == 0:\n" + indent(result)
    tree = (f"for d in {TREE}:\n"
            "    for low in range(d):\n"
            + indent(combine(op, f"{lanes}[low]", f"{lanes}[low + d]"), 2))
    return (f"for {lane} in range({LANES}):\n" + indent(lane_fold + f"{lanes}[{lane}] = {acc}\n")
            + tree + f"{acc} = {lanes}[0]\n" + result)


class Hubs(NamedTuple):
    """A graph's hubs in one direction, on a target: the hubs (ascending), each hub's first
    chunk (``hub_chunks[h]`` to ``hub_chunks[h + 1]``), and each chunk's vertex and first edge
    (no arrays where there are no hubs)."""

    hubs: Any
    hub_count: int
    hub_chunks: Any
    chunk_vertex: Any
    chunk_first: Any
    chunk_count: int


def hubs_of(graph: Graph, edges: str, tgt: Target, degree: int = HUB_DEGREE,
            chunk: int = CHUNK) -> Hubs:
    """The vertices of more than ``degree`` (:data:`HUB_DEGREE`) edges of ``edges`` (``"in"``
    or ``"out"``) and their chunks of ``chunk`` (:data:`CHUNK`) edges, on ``tgt``; found once
    per graph, direction, target and sizes."""

    def find() -> Hubs:
        offsets = np.asarray(graph.csc().col_offsets if edges == "in" else graph.row_offsets,
                             dtype=np.int64)
        degrees = np.diff(offsets)
        hubs = np.flatnonzero(degrees > degree)
        if not hubs.size:
            return Hubs(None, 0, None, None, None, 0)
        per_hub = -(-degrees[hubs] // chunk)
        hub_chunks = np.zeros(hubs.size + 1, np.int64)
        np.cumsum(per_hub, out=hub_chunks[1:])
        chunk_vertex = np.repeat(hubs, per_hub)
        within = np.arange(int(hub_chunks[-1])) - np.repeat(hub_chunks[:-1], per_hub)
        chunk_first = offsets[chunk_vertex] + within * chunk

        return Hubs(tgt.to_device(hubs.astype(np.int32)), int(hubs.size),
                     tgt.to_device(hub_chunks), tgt.to_device(chunk_vertex.astype(np.int32)),
                     tgt.to_device(chunk_first), int(hub_chunks[-1]))

    return graph.memo(f"iterate.hubs.{edges}.{tgt.name}.{degree}.{chunk}", find)
