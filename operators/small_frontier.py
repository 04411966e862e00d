"""The small-frontier mode of a fused traversal: levels inside one thread block.

A grid-wide fused level costs a grid barrier plus a chain of dependent global reads (the
frontier's length and ids among them; docs/performance.md gives the figures), which is what a
road network's ~1,000 levels or a path's 10^6 pay. While the frontier is small, one block of
threads runs the levels instead (Luo, Wong & Hwu, *An Effective GPU Implementation of Breadth-First
Search*, DAC 2010: hierarchical queues, the block-level queue in shared memory): the frontier
lives in two queues in shared memory used in turn, its length in a shared counter, the levels
are separated by block barriers (tens of times cheaper), and the only global traffic is the
graph and the functor's own state.

Each level's edges are spread over the block's threads, one edge per thread: the level's
vertices are ranked by a prefix sum of their degrees, and each thread finds its edge's vertex
by a binary search over the ranks in shared memory (Merrill, Garland & Grimshaw's scan-based
gather, in one block). A level of at most :data:`WARP_LEVEL` vertices (a path's, many of a
road network's) is ranked by the block's first warp with a shuffle prefix sum; a wider one in
chunks of one vertex per thread with a block-wide prefix sum. Either way a level costs about one
chain of dependent global reads per edge whatever its vertices' degrees, instead of a thread
walking its vertex's edges one after another. Each edge calls the user's functor (and
condition) exactly as the other balancers do, and an accepted head is pushed onto the other
shared queue with a shared int32 atomic counter (a 64-bit shared atomic is a compare-and-swap
loop: measured 2-3x slower per level on luxembourg_osm, ``bench/block_floor.py``). With the
traversal's ``cull`` (:mod:`operators.cull`) a level pushes each head once, as a grid-wide step
does: level ``k`` of the kernel marks its heads with the stamp ``cull_base + k``.

The kernel stops on the device when the frontier is empty, when ``max_steps`` ran, when a level
produced more than ``stop_above`` vertices (at most the shared capacity), or before running a
level of more than ``stop_edges`` out-edges (``Thresholds.block_edges``: hubs and wide levels
are the grid-wide balancers' work). It then leaves the frontier in the pool's next slot (heads
past the shared capacity were written there directly) with its length and the steps it ran,
and the traversal goes on in the grid-wide mode. The decision maker (:mod:`operators.adaptive`)
chooses this mode for a push level over a queue of at most ``Thresholds.block_frontier``
vertices (and never more than :data:`CAPACITY`) and ``Thresholds.block_edges`` out-edges.
"""

from __future__ import annotations

from collections.abc import Callable

from frontier.frontier import SPARSE, Frontier
from frontier.graph import Graph
from frontier.options import Cull, Mode
from frontier.ring import STEPS_RAN
from frontier.runtime.target import Target
from operators.balancers import snippets
from operators.codegen import GeneratedKernel, KernelSpec, build, edge_test, indent, slot_select
from operators.convention import kernel_arguments, scalar_arguments
from operators.cull import CULL_PARAMS, cull_buffers, culled
from operators.shape import LaunchShape

__all__ = ["BLOCK_LOCAL", "CAPACITY", "block_shape", "block_kernel", "block_push"]

#: The name the mode's decisions and kernels carry where a balancer's would be.
BLOCK_LOCAL = "block_local"

#: Vertices each shared queue holds (two int32 queues, 16 KB of the block's shared memory; the
#: chunk of a level being gathered takes 20 bytes per thread more): the decision maker caps
#: ``Thresholds.block_frontier`` at it.
CAPACITY = 2048


def block_shape(target: Target) -> LaunchShape:
    """The mode's launch shape: one block, as large as the target runs."""
    return LaunchShape(BLOCK_LOCAL, target.max_threads_per_block)


#: A level of at most this many vertices is ranked by the block's first warp alone (a shuffle
#: prefix sum instead of the block-wide scan's three barriers), and one of at most this many
#: edges visited by it too: one block barrier a level.
WARP_LEVEL = 32

#: The largest ``stop_edges`` the kernel takes (its shared counters are int32: a 64-bit
#: shared-memory atomic is a compare-and-swap loop, measured 2-3x slower per level).
MAX_STOP_EDGES = 1 << 20


#: Statements binding ``src`` and ``e`` to the ``k``-th edge of the ranked vertices
#: ``0..last`` (the last vertex whose rank is at most ``k``: a binary search in shared memory).
_FIND = ("lo = 0\n"
         "hi = last\n"
         "while lo < hi:\n"
         "    mid = (lo + hi + 1) >> 1\n"
         "    if chunk_rank[mid] <= k:\n"
         "        lo = mid\n"
         "    else:\n"
         "        hi = mid - 1\n"
         "src = chunk_src[lo]\n"
         "e = chunk_beg[lo] + (k - chunk_rank[lo])\n")


def _push(spec: KernelSpec, src: str = "src") -> str:
    """Statements for edge ``e`` of ``src``: call the functor and push an accepted head onto the
    next shared queue (past the capacity: straight into the pool's out slot), unless the spec's
    culling finds it pushed already in this level (:mod:`operators.cull`)."""
    push = ("pos = atomic_add(queue_len, 1 - cur, 1)\n"
            f"if pos < {CAPACITY}:\n"
            "    if cur == 0:\n"
            "        queue1[pos] = dst\n"
            "    else:\n"
            "        queue0[pos] = dst\n"
            "elif pos < out_ids.shape[0]:\n"
            "    out_ids[pos] = dst\n"
            "else:\n"
            "    lens[OVERFLOW] = 1\n")
    push = culled(spec.cull, "dst", push)
    return f"dst = col_indices[e]\nif {edge_test(spec, src, 'e')}:\n" + indent(push)


def _queued(index: str) -> str:
    """Expression: entry ``index`` of the level's shared queue (``cur`` says which)."""
    return f"queue0[{index}] if cur == 0 else queue1[{index}]"


def _load_vertex(index: str, count: str) -> str:
    """Statements binding ``src``, ``beg``, ``deg`` to queue entry ``index`` and its edge range
    where ``index < count``; to 0 (no edges) elsewhere."""
    return ("src = 0\n"
            "beg = int64(0)\n"
            "deg = int64(0)\n"
            f"if {index} < {count}:\n"
            f"    src = {_queued(index)}\n"
            "    beg = row_offsets[src]\n"
            "    deg = row_offsets[src + 1] - beg\n")


def _warp_level(spec: KernelSpec) -> str:
    """A level of at most :data:`WARP_LEVEL` vertices, ranked by the first warp: lane i loads
    vertex i's edge range and a shuffle prefix sum ranks the level's edges. At most 32 edges:
    the warp visits them itself, lane k finding edge k's vertex by a five-step shuffle search,
    and the level costs one block barrier. More: the ranks go to shared memory and the whole
    block takes the edges after a barrier. A level of more than ``stop_edges`` edges is left
    unvisited and ends the mode. ``level_total`` alternates between two entries: a thread may
    still read one level's while the warp writes the next's."""
    search = "".join(f"cand = owner + {b}\n"
                     "cand_rank = shfl_idx(FULL, rank, min(cand, 31), 32)\n"
                     "if cand < n and cand_rank <= lane:\n"
                     "    owner = cand\n" for b in (16, 8, 4, 2, 1))
    in_warp = ("owner = 0\n"
               + search
               + "src_k = shfl_idx(FULL, src, owner, 32)\n"
               "e = shfl_idx(FULL, beg, owner, 32) + (lane - shfl_idx(FULL, rank, owner, 32))\n"
               "if lane < total:\n"
               + indent(_push(spec, "src_k")))
    return ("if warp_id == 0:\n"
            + indent("syncwarp(FULL)\n"  # every lane sees the out queue's reset above
                     + _load_vertex("lane", "n")
                     + "rank = deg\n"
                     + snippets.warp_inclusive_scan("rank")
                     + "total = shfl_idx(FULL, rank, 31, 32)\n"
                     "rank -= deg\n"
                     "if lane == 0:\n"
                     "    level_total[cur] = total\n"
                     "if total <= stop_edges:\n"
                     f"    if total <= {WARP_LEVEL}:\n"
                     + indent(in_warp, 2)
                     + "    else:\n"
                     "        chunk_rank[lane] = rank\n"
                     "        chunk_beg[lane] = beg\n"
                     "        chunk_src[lane] = src\n")
            + "cuda.syncthreads()\n"
            # every thread decides after the barrier: a stop written before it could reach a
            # thread still testing the level before, which would leave the loop a level early
            "total_edges = level_total[cur]\n"
            "if total_edges > stop_edges:\n"
            "    stopped[0] = 1\n"
            f"elif total_edges > {WARP_LEVEL}:\n"
            + indent("last = n - 1\n"
                     "for k in range(t, total_edges, threads):\n"
                     + indent(_FIND + _push(spec))
                     + "cuda.syncthreads()\n"))


def _block_level(spec: KernelSpec) -> str:
    """A wider level in chunks of one vertex per thread: each thread loads its vertex's edge
    range, a block-wide prefix sum of the degrees ranks the chunk's edges, and the block takes
    them one edge per thread, finding each edge's vertex by a binary search over the ranks in
    shared memory (the scan-based gather of Merrill, Garland & Grimshaw, inside one block). A
    level of more than ``stop_edges`` edges is left unvisited and ends the mode (a level of
    several chunks sums its degrees in a first pass)."""
    chunk = ("i = base + t\n"
             + _load_vertex("i", "n")
             + snippets.block_exclusive_scan("deg", "rank", "chunk_edges", "scan_sums")
             + "if chunk_edges > stop_edges:\n"  # one chunk: the level's edges
             "    stopped[0] = 1\n"  # every thread writes the same value
             "    break\n"
             "chunk_rank[t] = rank\n"
             "chunk_beg[t] = beg\n"
             "chunk_src[t] = src\n"
             "cuda.syncthreads()\n"
             "last = min(n - base, threads) - 1\n"
             "for k in range(t, chunk_edges, threads):\n"
             + indent(_FIND + _push(spec))
             + "cuda.syncthreads()\n")
    # a level of several chunks sums its edges first: it runs whole or not at all
    total = ("level_edges = int64(0)\n"
             "if n > threads:\n"
             "    for i in range(t, n, threads):\n"
             f"        v = {_queued('i')}\n"
             "        level_edges += row_offsets[v + 1] - row_offsets[v]\n"
             + indent(snippets.block_exclusive_scan("level_edges", "level_rank", "level_sum",
                                                    "scan_sums"))
             + "    if level_sum > stop_edges:\n"
             "        stopped[0] = 1\n")
    return (total + "if stopped[0] == 0:\n"
            + indent("for base in range(0, n, threads):\n" + indent(chunk)))


def _body(spec: KernelSpec, threads: int) -> str:
    level = ("n = queue_len[cur]\n"
             "if n == 0 or n > stop_above:\n"
             "    break\n"
             "if t == 0:\n"
             "    queue_len[1 - cur] = 0\n"
             + ("cull_stamp = cull_base + step\n" if spec.cull != Cull.NONE else "")
             + f"if n <= {WARP_LEVEL}:\n"
             + indent(_warp_level(spec))
             + "else:\n"
             + indent(_block_level(spec))
             + "if stopped[0] != 0:\n"
             "    break\n"
             "cur = 1 - cur\n"
             "step += 1\n")
    slot_of = (slot_select("in_ids", "ids", "start_slot")
               + "out_slot = (start_slot + 1) % 3\n"
               + slot_select("out_ids", "ids", "out_slot"))
    return (f"queue0 = cuda.shared.array({CAPACITY}, int32)\n"
            f"queue1 = cuda.shared.array({CAPACITY}, int32)\n"
            "queue_len = cuda.shared.array(2, int32)\n"
            "stopped = cuda.shared.array(1, int32)\n"
            "level_total = cuda.shared.array(2, int64)\n"
            f"chunk_rank = cuda.shared.array({threads}, int64)\n"
            f"chunk_beg = cuda.shared.array({threads}, int64)\n"
            f"chunk_src = cuda.shared.array({threads}, int32)\n"
            f"scan_sums = cuda.shared.array({max(threads // 32, 1)}, int64)\n"
            + snippets.warp_ids()
            + "t = cuda.threadIdx.x\n"
            "threads = cuda.blockDim.x\n"
            + slot_of
            + "first = lens[start_slot]\n"
            "for i in range(t, first, threads):\n"
            "    queue0[i] = in_ids[i]\n"
            "if t == 0:\n"
            "    queue_len[0] = first\n"
            "    stopped[0] = 0\n"
            "cuda.syncthreads()\n"
            "cur = 0\n"
            "step = 0\n"
            "while step < max_steps:\n" + indent(level)
            # the frontier it ended on: shared entries to the out slot (those past the
            # capacity are there already), its length, the steps
            + "n = queue_len[cur]\n"
            f"for i in range(t, min(n, {CAPACITY}), threads):\n"
            f"    out_ids[i] = {_queued('i')}\n"
            "if t == 0:\n"
            "    lens[out_slot] = n\n"
            "    lens[STEPS_RAN] = step\n")


def block_kernel(graph: Graph, frontier: Frontier, functors: dict[str, Callable],
                 spec: KernelSpec) -> GeneratedKernel:
    """The small-frontier kernel for a sparse push traversal with these functors; with the
    spec's culling, level ``k`` culls repeats with the stamp ``cull_base + k``."""
    shape = block_shape(frontier.target)
    return build(frontier.target, shape, spec, functors,
                 lambda: _body(spec, shape.threads_per_block),
                 ("stop_edges",) + (CULL_PARAMS if spec.cull != Cull.NONE else ()))


def block_push(graph: Graph, frontier: Frontier, functors: dict[str, Callable],
               spec: KernelSpec, state: tuple, max_steps: int, stop_above: int,
               stop_edges: int | None) -> tuple[Frontier, int, int]:
    """Run levels in one block from the sparse ``frontier`` (at most :data:`CAPACITY` long)
    until it is empty, ``max_steps`` ran, a level produced more than ``stop_above`` vertices
    (capped at :data:`CAPACITY`), or the next level has more than ``stop_edges`` out-edges
    (capped at :data:`MAX_STOP_EDGES`, which None means); returns the frontier it ended on,
    the steps and its length. The spec's ``cull`` removes repeated heads from every level
    (:mod:`operators.cull`), as a grid-wide step's."""
    target, pool = frontier.target, frontier.pool
    kernel = block_kernel(graph, frontier, functors, spec)
    io = {"universe": frontier.universe, "lens": pool.lengths, "start_slot": frontier.slot,
          "max_steps": max_steps, "stop_above": min(stop_above, CAPACITY),
          "stop_edges": MAX_STOP_EDGES if stop_edges is None else min(stop_edges,
                                                                      MAX_STOP_EDGES),
          "ids0": pool.ids(0), "ids1": pool.ids(1), "ids2": pool.ids(2),
          **cull_buffers(pool, spec.cull),
          **scalar_arguments(functors)}
    args = kernel_arguments(kernel.params, graph, target, io, state)
    out = (frontier.slot + 1) % pool.SLOTS
    lengths = pool.run_traversal(
        frontier.slot, lambda: kernel.launch(target, 1, args, mode=Mode.BLOCK),
        "a small-frontier traverse on its pool failed part-way (its levels wrote the next slot)")
    steps = int(lengths[STEPS_RAN])
    if spec.cull != Cull.NONE:
        pool.use_stamps(steps)  # level k used the stamp cull_base + k
    return Frontier(pool, out, SPARSE, pool.adopt(out, SPARSE)), steps, int(lengths[out])
