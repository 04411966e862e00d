"""exchange: hand the elements of a frontier that other partitions own to their owners, with a
value each, and receive the elements this partition owns from the others (the frontier exchange
of a 1D-partitioned traversal: Buluç & Madduri, SC 2011, §3, "fold"; Pan et al., *Multi-GPU
Graph Analytics*, IPDPS 2017, §III-B).

On a partition (:class:`frontier.distributed.Piece`) an advance reaches vertices of every
partition. ``exchange(piece, comm, F, values, inbox)`` sends each vertex of ``F`` owned elsewhere
once, with ``values[v]``, to its owner (one bucket per owner, all-to-all through ``comm``); on
the receiving side a vertex several partitions sent keeps the smallest value, which is written
to ``inbox[v]``, and the received vertices come back as a new frontier on ``F``'s target. What the
algorithm does with them (claim, relax, lower a label) is a ``filter`` it runs next: the exchange
moves data, it decides nothing.

:func:`gather` is the other direction's exchange: a pull step asks "is any in-neighbour in the
frontier?", and the in-neighbours live anywhere, so every rank's frontier bitmap is all-gathered
and or-ed (Buluç & Madduri's 1D "expand"; the bottom-up steps of Beamer et al., SC 2012, over
partitions).

Only these buckets cross workers. Their bytes are counted by the communicator
(``comm.sent_bytes``). The arrays are handled with the communicator's array module (numpy on
cpu workers, CuPy on GPUs, sharing the operators' device memory).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frontier import kernels
from frontier.distributed.comm import Communicator
from frontier.distributed.errors import DistributedError
from frontier.distributed.partition import Piece
from frontier.frontier import DENSE, SPARSE, Frontier, FrontierError, FrontierPool
from frontier.graph import Graph
from frontier.runtime.device_arrays import on_host

__all__ = ["exchange", "refresh", "gather", "any_left", "moved", "DENSE_SHARE"]


def _address(array: Any) -> int | None:
    if isinstance(array, np.ndarray):
        return array.__array_interface__["data"][0]
    face = getattr(array, "__cuda_array_interface__", None)
    return None if face is None else face["data"][0]


def _view(xp: Any, array: Any) -> Any:
    """``array`` (on the target) as an array of ``xp`` sharing its memory; an error where the
    communicator's arrays cannot address the target's (host arrays for GPU memory)."""
    try:
        view = xp.asarray(array)
    except (TypeError, ValueError) as e:
        view, cause = None, e
    else:
        cause = None
    if view is None or _address(view) != _address(array):
        raise DistributedError(f"the communicator moves {xp.__name__} arrays, which cannot "
                               f"address the target's {type(array).__name__}: GPU workers "
                               "exchange through NCCL (partition(..., transport='nccl'))"
                               ) from cause
    return view


def _check_current(frontier: Any) -> None:
    """``frontier`` is a frontier that is still valid (see :meth:`Frontier.check_current`)."""
    if not isinstance(frontier, Frontier):
        raise FrontierError(f"expected a Frontier, got {type(frontier).__name__}")
    frontier.check_current()


def _frontier_ids(frontier: Frontier, xp: Any) -> Any:
    """The frontier's elements as an array of ``xp``, in the target's memory: a sparse
    frontier's queue without a copy, a dense one's set bits in ascending order."""
    if frontier.kind == SPARSE:
        return _view(xp, frontier.device_ids())[: len(frontier)]
    words = _view(xp, frontier.device_words())
    bits = xp.unpackbits(words.view(xp.uint8), bitorder="little")[: frontier.universe]
    return xp.flatnonzero(bits).astype(np.int32)


def _smallest_first(ids: Any, values: Any, xp: Any) -> Any:
    """Positions picking each distinct id once, the one with the smallest value, in id order:
    a stable sort by value, then a stable sort by id (two radix sorts on the GPU, where CuPy's
    ``lexsort`` is a comparison sort)."""
    order = xp.argsort(values, kind="stable")
    order = order[xp.argsort(ids[order], kind="stable")]
    first = xp.ones(order.size, dtype=bool)
    first[1:] = ids[order][1:] != ids[order][:-1]
    return order[first]


def exchange(piece: Piece, comm: Communicator, frontier: Frontier, values: Any | tuple,
             inbox: Any | tuple) -> Frontier:
    """Send every element ``v`` of ``frontier`` owned by another partition, with ``values[v]``
    (an array, or a tuple of arrays sent side by side), to its owner; write the values received
    for this partition's vertices into ``inbox`` (the same shape: arrays on the target) and
    return the frontier of those vertices (ordered by id, in buffers this rank's thread reuses
    at its next exchange on the graph, on ``frontier``'s target). Where several partitions sent
    the same vertex, the one with the smallest first value wins (the lowest rank on a tie).
    Every rank of ``comm`` must call it in the same step. ``frontier`` stays valid: this is not
    a step of its pool.

    The ranks first agree (an all-reduce) on the number of remote elements of their frontiers,
    repeats counted. At least |V| / :data:`DENSE_SHARE` of them make the step dense: each owner
    gets a flag and the values for every vertex of its range, and takes the smallest sent value
    per vertex elementwise (no sort). Fewer make it sparse: each owner gets the ids sent, once
    each, and their values, and sorts what it received."""
    _check_current(frontier)
    if frontier.domain != "vertices":
        raise FrontierError("exchange moves vertex frontiers; got a frontier of edges")
    if frontier.graph.num_vertices != piece.num_vertices:
        raise FrontierError(f"exchange of a frontier over {frontier.graph.num_vertices} vertices "
                            f"on a partition of a graph of {piece.num_vertices}")
    values = values if isinstance(values, tuple) else (values,)
    inbox = inbox if isinstance(inbox, tuple) else (inbox,)
    if len(values) != len(inbox):
        raise FrontierError(f"exchange of {len(values)} value arrays into {len(inbox)} inboxes")
    xp = comm.xp
    if comm.size == 1:  # every vertex is this partition's: nothing to send or receive
        return _received(piece, frontier, xp.zeros(0, np.int32), xp)
    comm.phase("exchange: buckets by owner")
    ids = _frontier_ids(frontier, xp)
    remote = (ids < piece.lo) | (ids >= piece.hi)
    values = tuple(_view(xp, a) for a in values)
    comm.phase("exchange: dense or sparse (all-reduce)")
    dense = (comm.allreduce(int(xp.count_nonzero(remote)), "sum") * DENSE_SHARE
             >= piece.num_vertices)
    comm.phase("exchange: buckets by owner")
    buckets = (_dense_buckets(piece, ids, values, xp) if dense
               else _sparse_buckets(piece, ids[remote], values, frontier.kind, xp))
    comm.phase("exchange: all-to-all")
    got = comm.alltoallv(buckets)
    comm.phase("exchange: the smallest value of each received vertex")
    mine, columns = (_dense_smallest if dense else _sparse_smallest)(piece, got, xp)
    for column, box in zip(columns, inbox, strict=True):
        _view(xp, box)[mine] = column
    comm.phase("exchange: the frontier of received vertices")
    return _received(piece, frontier, mine, xp)


#: The share of |V| at which a step's exchange goes dense: there, sending a flag and a value
#: for every vertex and taking elementwise minima costs less than sorting the ids sent.
DENSE_SHARE = 32


def _sparse_buckets(piece: Piece, ids: Any, values: tuple, kind: str, xp: Any) -> list:
    """Per owner: the remote ids it owns, once each and sorted, and their values."""
    # a dense frontier's ids are sorted and distinct; a sparse one's may repeat
    ids = ids if kind == DENSE else xp.unique(ids)
    cuts = on_host(xp.searchsorted(ids, xp.asarray(piece.bounds))).tolist()
    sent = [a[ids] for a in values]
    return [(ids[cuts[r]:cuts[r + 1]], *(a[cuts[r]:cuts[r + 1]] for a in sent))
            if r != piece.rank else (ids[:0], *(a[:0] for a in sent))
            for r in range(piece.parts)]


def _sparse_smallest(piece: Piece, got: list, xp: Any) -> tuple[Any, list]:
    """The received ids, once each in ascending order, and their smallest-first values."""
    columns = [xp.concatenate([b[i] for b in got]) for i in range(len(got[0]))]
    received = columns[0].astype(np.int32)
    order = _smallest_first(received, columns[1], xp)
    return received[order], [c[order] for c in columns[1:]]


def _dense_buckets(piece: Piece, ids: Any, values: tuple, xp: Any) -> list:
    """Per owner: a flag for each vertex of its range (uint8: 1 where sent) and the values of
    the whole range (read by the owner only where flagged). ``ids`` may hold owned vertices:
    this rank's own range is not sent."""
    flags = xp.zeros(piece.num_vertices, np.uint8)
    flags[ids] = 1
    bounds = piece.bounds.tolist()
    return [(flags[bounds[r]:bounds[r + 1]], *(a[bounds[r]:bounds[r + 1]] for a in values))
            if r != piece.rank else (flags[:0], *(a[:0] for a in values))
            for r in range(piece.parts)]


def _dense_smallest(piece: Piece, got: list, xp: Any) -> tuple[Any, list]:
    """The vertices some rank flagged, in ascending order, and the values of the rank that sent
    the smallest first value for each (the lowest such rank)."""
    sent: Any = None
    best: list[Any] = []
    for r, bucket in enumerate(got):
        if r == piece.rank:
            continue
        flags = bucket[0].view(bool)
        if sent is None:
            sent, best = flags, list(bucket[1:])
            continue
        better = flags & (~sent | (bucket[1] < best[0]))
        best = [xp.where(better, theirs, kept) for kept, theirs in zip(best, bucket[1:],
                                                                       strict=True)]
        sent = sent | flags
    local = xp.flatnonzero(sent)
    return (local + piece.lo).astype(np.int32), [a[local] for a in best]


def _received(piece: Piece, frontier: Frontier, ids: Any, xp: Any) -> Frontier:
    """A frontier of the received ``ids`` (int32, an array of ``xp`` on the target, at most
    the piece's range), of ``frontier``'s kind, copied on the device into the calling thread's
    pooled buffers of the graph kept for received vertices (no host round trip, no allocation
    per step); the previous received frontier of the thread becomes stale."""
    graph, target = frontier.graph, frontier.target
    pool = FrontierPool.shared(graph, target, max(piece.hi - piece.lo, 1), purpose="received")
    pool.restart(int(ids.size))
    if ids.size:
        _view(xp, pool.ids(0))[: ids.size] = ids
    received = Frontier(pool, 0, SPARSE, pool.claim(0, SPARSE))
    return received if frontier.kind == SPARSE else received.to_dense()


def moved(frontier: Frontier, graph: Graph, kind: str | None = None) -> Frontier:
    """``frontier``'s elements as a frontier of ``graph``, another graph over the same vertices
    (a partition's in-arc graph and its out-arc graph), of ``kind`` (default: the frontier's),
    copied on the device into a new pool of |V| ids: enough for a traversal that takes each
    vertex once. ``frontier`` stays valid."""
    _check_current(frontier)
    if graph.num_vertices != frontier.graph.num_vertices:
        raise FrontierError(f"a frontier over {frontier.graph.num_vertices} vertices moved to a "
                            f"graph of {graph.num_vertices}")
    pool = FrontierPool(graph, frontier.target, graph.num_vertices, frontier.domain)
    kind = frontier.kind if kind is None else kind
    slot, token = kernels.gather(pool, None, frontier, kind)
    return Frontier(pool, slot, kind, token)


def refresh(piece: Piece, comm: Communicator, values: Any) -> None:
    """Overwrite this partition's copies of ``values`` at the remote heads of its arcs with
    their owners' values (a request and a reply, all-to-all). Every rank must call it."""
    xp = comm.xp
    heads = xp.asarray(piece.remote_heads)
    cuts = on_host(xp.searchsorted(heads, xp.asarray(piece.bounds))).tolist()
    wanted = comm.alltoallv([(heads[cuts[r]:cuts[r + 1]],) for r in range(piece.parts)])
    mine = _view(xp, values)
    replies = comm.alltoallv([(mine[ids],) if r != piece.rank else (mine[:0],)
                              for r, (ids,) in enumerate(wanted)])
    for r in range(piece.parts):
        if r != piece.rank:
            mine[heads[cuts[r]:cuts[r + 1]]] = replies[r][0]


def gather(comm: Communicator, frontier: Frontier, graph: Graph) -> Frontier:
    """The union of every rank's ``frontier`` as a dense frontier of ``graph`` (over the same
    vertices): each rank's bitmap, all-gathered and or-ed (what a pull step reads: whether a
    vertex of any partition is in the frontier). Every rank must call it."""
    _check_current(frontier)
    if graph.num_vertices != frontier.graph.num_vertices:
        raise FrontierError(f"gather of a frontier over {frontier.graph.num_vertices} vertices "
                            f"into a graph of {graph.num_vertices}")
    xp = comm.xp
    dense = frontier if frontier.kind == DENSE else frontier.to_dense()
    parts = comm.allgather(_view(xp, dense.device_words()))
    pool = FrontierPool(graph, frontier.target, graph.num_vertices)
    words = _view(xp, pool.words(0))
    for part in parts:
        words |= part
    # bits past |V| are clear in every rank's bitmap, so the count is the frontier's length
    count = int(np.unpackbits(on_host(words).view(np.uint8)).sum(dtype=np.int64))
    frontier.target.write_scalar(pool.lengths, 0, count)
    return Frontier(pool, 0, DENSE, pool.claim(0, DENSE))


def any_left(comm: Communicator, frontier: Frontier) -> int:
    """The number of elements of every rank's ``frontier`` together (an all-reduce): zero ends
    a traversal on every rank at the same step."""
    return int(comm.allreduce(len(frontier), "sum"))
