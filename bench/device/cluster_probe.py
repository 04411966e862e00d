"""Whether a Hopper thread-block cluster is a cheaper barrier than the grid's for BFS levels
too wide for one block and too narrow to fill the GPU (issue "Fast calls": BFS on the
2000x2000 grid, 3,997 levels of at most a few thousand vertices).

Plain Numba kernels, outside the library: (1) the cost of one barrier, looped in a kernel:
a cooperative grid barrier over the whole GPU and over a few blocks, and the cluster barrier
(``barrier.cluster.arrive`` / ``barrier.cluster.wait``, inline PTX) over one cluster of 8 and of
16 blocks; (2) a level-synchronous BFS of the grid graph in one kernel (a thread per frontier
vertex, two global queues, one barrier a level) with each barrier, its distances checked
against the grid's (Manhattan distances).

Usage on a CUDA machine, from the repository root (bench/device/env.sh sourced):
``python3 bench/device/cluster_probe.py [SIDE [corner]]`` (default 2000, from the centre;
``corner``: from vertex (1, 1), the bench's source, the first of degree 4).
"""

from __future__ import annotations

import statistics
import sys
import time
from functools import partial
from itertools import product

import numpy as np
import scipy.sparse as sp
from llvmlite import ir
from numba import cuda, types
from numba.cuda.extending import intrinsic


@intrinsic
def cluster_sync(typingctx):
    def codegen(context, builder, signature, args):
        asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), []),
                           "barrier.cluster.arrive;\n\tbarrier.cluster.wait;", "~{memory}",
                           side_effect=True)
        builder.call(asm, [])
        return context.get_dummy_value()
    return types.void(), codegen


@cuda.jit(device=True)
def grid_sync():
    cuda.cg.this_grid().sync()


def looped(barrier):
    @cuda.jit
    def kernel(times, out):
        acc = 0
        for _ in range(times):
            barrier()
            acc += 1
        if cuda.grid(1) == 0:
            out[0] = acc
            out[1] = cuda.gridsize(1)
    return kernel


def bfs_kernel(barrier):
    @cuda.jit
    def kernel(offsets, heads, dist, queues, lens, out):
        tid = cuda.grid(1)
        nth = cuda.gridsize(1)
        level = 0
        while True:
            n = lens[level]
            if n == 0:
                break
            cur = level & 1
            for i in range(tid, n, nth):
                v = queues[cur, i]
                for e in range(offsets[v], offsets[v + 1]):
                    u = heads[e]
                    if dist[u] == -1:
                        if cuda.atomic.cas(dist, u, -1, level + 1) == -1:
                            pos = cuda.atomic.add(lens, level + 1, 1)
                            queues[1 - cur, pos] = u
            barrier()
            level += 1
        if tid == 0:
            out[0] = level
            out[1] = nth
    return kernel


def lanes_kernel(barrier):
    """The level of :func:`bfs_kernel` with four lanes per frontier vertex (one arc each: the
    grid's degree is at most 4), a read before the compare-and-swap, and one queue atomic per
    warp (a ballot of the claims): the shortest chain of dependent reads a level can have."""
    @cuda.jit
    def kernel(offsets, heads, dist, queues, lens, out):
        tid = cuda.grid(1)
        nth = cuda.gridsize(1)
        lane = cuda.laneid
        slots = nth >> 2
        level = 0
        while True:
            n = lens[level]
            if n == 0:
                break
            cur = level & 1
            for base in range(0, n, slots):
                i = base + (tid >> 2)
                u = -1
                if i < n:
                    v = queues[cur, i]
                    e = offsets[v] + (tid & 3)
                    if e < offsets[v + 1]:
                        u = heads[e]
                        if dist[u] != -1 or cuda.atomic.cas(dist, u, -1, level + 1) != -1:
                            u = -1
                claims = cuda.ballot_sync(0xFFFFFFFF, u != -1)
                start = 0
                if lane == 0 and claims != 0:
                    start = cuda.atomic.add(lens, level + 1, cuda.popc(claims))
                start = cuda.shfl_sync(0xFFFFFFFF, start, 0)
                if u != -1:
                    queues[1 - cur, start + cuda.popc(claims & ((1 << lane) - 1))] = u
            barrier()
            level += 1
        if tid == 0:
            out[0] = level
            out[1] = nth
    return kernel


def config(blocks: int, threads: int, cluster: int | None, cooperative: bool):
    from cuda.core import LaunchConfig

    if cluster is None:
        return LaunchConfig(grid=blocks, block=threads, is_cooperative=cooperative)
    return LaunchConfig(grid=blocks // cluster, cluster=cluster, block=threads)


def launch(kernel, args, blocks, threads, cluster=None, cooperative=False):
    from cuda.core import launch as core_launch
    from numba.cuda.cudadrv import driver

    compiled = kernel.compile(tuple(kernel.typeof_pyval(a) for a in args))
    fn = compiled._codelibrary.get_cufunc().kernel
    if cluster is not None and cluster > 8:
        allow_non_portable(fn)
    flat, back = [], []
    for ty, value in zip(compiled.argument_types, args, strict=True):
        compiled._prepare_args(ty, value, driver._to_core_stream(0), back, flat)
    core_launch(driver._to_core_stream(0), config(blocks, threads, cluster, cooperative), fn,
                *flat)


def allow_non_portable(fn) -> None:
    from cuda.bindings import driver as cu

    handle = getattr(fn, "handle", None) or fn._handle
    if not isinstance(handle, cu.CUfunction):  # a CUkernel of a library: its function
        err, handle = cu.cuKernelGetFunction(handle)
        if err != cu.CUresult.CUDA_SUCCESS:
            raise RuntimeError(f"cuKernelGetFunction: {err}")
    attr = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    err, = cu.cuFuncSetAttribute(handle, attr, 1)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuFuncSetAttribute: {err}")


def timed(fn, runs: int = 7) -> float:
    fn()
    cuda.synchronize()
    seconds = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        cuda.synchronize()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def grid_graph(side: int) -> sp.csr_matrix:
    idx = np.arange(side * side).reshape(side, side)
    a, b = idx[:, :-1].ravel(), idx[:, 1:].ravel()
    c, d = idx[:-1, :].ravel(), idx[1:, :].ravel()
    src = np.concatenate([a, b, c, d])
    dst = np.concatenate([b, a, d, c])
    m = sp.csr_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(side * side,) * 2)
    m.sort_indices()
    return m


SHAPES = [  # name, blocks, threads, cluster, barrier
    ("grid barrier, whole GPU", None, 1024, None, "grid"),
    ("grid barrier, 16 blocks", 16, 1024, None, "grid"),
    ("grid barrier, 8 blocks", 8, 1024, None, "grid"),
    ("cluster barrier, 1 cluster of 8", 8, 1024, 8, "cluster"),
    ("cluster barrier, 1 cluster of 16", 16, 1024, 16, "cluster"),
    ("cluster barrier, 1 cluster of 16 x 512", 16, 512, 16, "cluster"),
]


def main(side: int, corner: bool) -> None:
    barriers = {"grid": grid_sync, "cluster": cluster_sync}
    out = cuda.to_device(np.zeros(2, np.int64))
    print("barrier cost (us per barrier, 10,000 in one kernel):")
    for name, blocks, threads, cluster, which in SHAPES:
        kernel = looped(barriers[which])
        if blocks is None:
            compiled = kernel.compile((types.int64, types.int64[::1]))
            blocks = compiled.max_cooperative_grid_blocks(threads)
        try:
            t0, t1 = (timed(partial(launch, kernel, (times, out), blocks, threads, cluster,
                                    which == "grid")) for times in (10, 10010))
        except Exception as err:  # a shape this device refuses: say so, go on
            print(f"  {name:42s} refused: {type(err).__name__}: {err}")
            continue
        got = out.copy_to_host()
        print(f"  {name:42s} {1e6 * (t1 - t0) / 10000:6.3f}  (blocks {blocks}, "
              f"gridsize {got[1]}, count {got[0]})")

    m = grid_graph(side)
    n = m.shape[0]
    r0 = c0 = 1 if corner else side // 2  # (1, 1): the bench's source, the first of degree 4
    source = r0 * side + c0
    rows, cols = np.divmod(np.arange(n), side)
    ref = (np.abs(rows - r0) + np.abs(cols - c0)).astype(np.int32)  # the grid's BFS levels
    offsets = cuda.to_device(m.indptr.astype(np.int64))
    heads = cuda.to_device(m.indices.astype(np.int32))
    dist = cuda.device_array(n, np.int32)
    queues = cuda.device_array((2, n), np.int32)
    lens = cuda.device_array(4 * side + 8, np.int32)
    print(f"BFS of the {side}x{side} grid from ({r0}, {c0}) ({n:,} vertices, {m.nnz:,} arcs):")
    for (name, blocks, threads, cluster, which), (form, make) in product(
            SHAPES, (("thread per vertex", bfs_kernel), ("4 lanes per vertex", lanes_kernel))):
        kernel = make(barriers[which])
        name = f"{form}, {name}"

        def reset():
            d = np.full(n, -1, np.int32)
            d[source] = 0
            dist.copy_to_device(d)
            ln = np.zeros(4 * side + 8, np.int32)
            ln[0] = 1
            lens.copy_to_device(ln)
            queues[0, 0:1].copy_to_device(np.array([source], np.int32))

        args = (offsets, heads, dist, queues, lens, out)
        nblocks = blocks
        if blocks is None:
            compiled = kernel.compile(tuple(kernel.typeof_pyval(a) for a in args))
            nblocks = compiled.max_cooperative_grid_blocks(threads)
        seconds = []
        try:
            for _ in range(6):
                reset()
                cuda.synchronize()
                start = time.perf_counter()
                launch(kernel, args, nblocks, threads, cluster, which == "grid")
                cuda.synchronize()
                seconds.append(time.perf_counter() - start)
        except Exception as err:
            print(f"  {name:62s} refused: {type(err).__name__}: {err}")
            continue
        got = out.copy_to_host()
        d = dist.copy_to_host()
        ok = bool(np.array_equal(d, ref))
        ms = 1e3 * statistics.median(seconds[1:])
        print(f"  {name:62s} {ms:8.2f} ms  {1e3 * ms / max(got[0], 1):6.2f} us/level  "
              f"(levels {got[0]}, threads {got[1]}, correct {ok})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000, sys.argv[2:] == ["corner"])
