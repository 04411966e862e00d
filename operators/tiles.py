"""tile_update: the blocked update of a dense square matrix around a pivot tile, the operator
behind blocked Floyd–Warshall (Busato & Bombieri, *Graph Algorithms on GPUs*, §4.1, after
Venkataraman et al. and Katz & Kider) and any algorithm of the same shape (transitive closure,
widest paths: other semirings).

The ``n x n`` matrix ``M`` is cut into ``t x t`` tiles (the last row and column of tiles may be
partial). For pivot tile ``K``, ``tile_update(M, fn, *state, pivot=K, tiles=WHICH)`` updates
each tile ``C = M[I, J]`` of the set ``WHICH`` in ``t`` steps, in order::

    for kk in range(rows of tile K):
        C[i, j] = fn(C[i, j], A[i, kk], B[kk, j], *state)     for every cell (i, j) of C

with ``A = M[I, K]`` and ``B = M[K, J]``; each step reads the tiles as the previous step left
them. The sets are the three phases of a blocked Floyd–Warshall round:

* ``"pivot"``: the tile ``(K, K)`` alone (``A``, ``B`` and ``C`` are one tile);
* ``"cross"``: the other tiles of tile row ``K`` and tile column ``K`` (``C`` is ``B`` or ``A``
  itself, the other one the pivot tile, which the first phase finished);
* ``"rest"``: every tile outside row and column ``K`` (``A`` and ``B`` lie in the cross, which
  the second phase finished: they are only read).

On CUDA one block updates a tile at a time (a block-stride loop over the set), with ``C``, ``A``
and ``B`` in shared memory; the block's threads (:data:`BLOCK_THREADS` at most, each taking
every ``threads``-th cell of the tile: 4 cells of a 32 x 32 tile) stride over the cells. Where
``C`` is ``A`` or ``B``, a step first copies column ``kk`` of ``A`` and row ``kk`` of ``B`` into
shared vectors and a block barrier separates that copy from the update and the update from the
next step, so each step reads the tile as the previous one left it, whatever ``fn`` is. In
``"rest"`` a thread keeps a cell in a register through all the steps, with no barrier between
them. On the CPU target the same text runs as one block of one thread; in the simulator, blocks
of ``t * t`` threads as on a GPU, with ``t`` at most 8 there.
:func:`operators.explain` shows the generated kernel.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from frontier.runtime.racecheck import WorkItems
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators.codegen import (
    NONE,
    RANGE,
    GeneratedKernel,
    KernelIO,
    KernelSpec,
    build,
    declare_work_items,
    indent,
)
from operators.common import NO_GRAPH, OperatorError, Plan, launch_plan
from operators.convention import scalar_arguments
from operators.functors import as_functor
from operators.shape import per_element
from operators.tracing import hands_over

__all__ = ["tile_update", "tile_plan", "TILE_SETS", "default_tile", "MAX_TILE",
           "BLOCK_THREADS"]

#: The tile sets of one pivot, in the order a blocked Floyd–Warshall round runs them.
TILE_SETS = ("pivot", "cross", "rest")
#: The largest tile side: the tiles of a block, 8-byte cells, stay within 48 KiB of shared
#: memory.
MAX_TILE = 32
#: Most threads a tile's block runs: 256 leaves any kernel up to 255 registers a thread (a block
#: of 1024 would allow 64, and fail to launch past that) and several blocks to each
#: multiprocessor.
BLOCK_THREADS = 256
_DTYPES = {np.dtype(np.float64): "float64", np.dtype(np.int64): "int64",
           np.dtype(np.int32): "int32"}


def _tile_items(spec: KernelSpec, name: str) -> WorkItems:
    """A tile update's work items: each call of the tile function is one."""
    return WorkItems(3, "tile update call", ())


declare_work_items("tiles", _tile_items)


def default_tile(target: str | Target | None = None) -> int:
    """The default tile side on ``target``: :data:`MAX_TILE` (32), or where the target's blocks
    are small (the simulator's 64 threads) the side of the largest square block (8)."""
    tgt = resolve_target(target)
    return min(MAX_TILE, math.isqrt(tgt.max_threads_per_block))


def _locate(which: str) -> str:
    """Statements binding the tile ``(I, J)`` number ``t`` of the set, with ``nt`` tiles a side
    and pivot ``K``; ``row_tile`` says a cross tile lies in the pivot's row."""
    if which == "pivot":
        return "I = K\nJ = K\n"
    if which == "cross":
        return ("row_tile = t < nt - 1\n"
                "u = t if row_tile else t - (nt - 1)\n"
                "other = u + 1 if u >= K else u\n"
                "I = K if row_tile else other\n"
                "J = other if row_tile else K\n")
    return ("I = t // (nt - 1)\nJ = t - I * (nt - 1)\n"
            "I = I + 1 if I >= K else I\nJ = J + 1 if J >= K else J\n")


def _cells(body: str, rows: str = "rows", cols: str = "cols") -> str:
    """A loop of the block's threads over the cells ``(i, j)`` of a tile, those inside the
    matrix only."""
    return ("for x in range(thread, TT, threads):\n"
            "    i = x // T\n    j = x - i * T\n"
            f"    if i < {rows} and j < {cols}:\n" + indent(body, 2))


def _body(which: str, tile: int, dtype: str, tgt: Target, num_state: int) -> str:
    state = "".join(f", s{i}" for i in range(num_state))
    shape = f"({tile}, {tile})"
    head = (tgt.block_prologue + f"T = {tile}\nTT = {tile * tile}\nK = pivot\n"
            "nt = (n + T - 1) // T\nk0 = K * T\ndepth = min(T, n - k0)\n")
    loop = ("for t in range(block, count, blocks):\n"
            + indent(_locate(which) + "r0 = I * T\nc0 = J * T\n"
                     "rows = min(T, n - r0)\ncols = min(T, n - c0)\n"))
    barrier = tgt.block_barrier + "\n"
    if which == "rest":
        shared = tgt.shared_array("A", shape, dtype) + tgt.shared_array("B", shape, dtype)
        load = (_cells("A[i, j] = matrix[r0 + i, k0 + j]\n", cols="depth")
                + _cells("B[i, j] = matrix[k0 + i, c0 + j]\n", rows="depth"))
        update = _cells("c = matrix[r0 + i, c0 + j]\n"
                        "for kk in range(depth):\n"
                        f"    c = functor(c, A[i, kk], B[kk, j]{state})\n"
                        "matrix[r0 + i, c0 + j] = c\n")
        return head + shared + loop + indent(load + barrier + update + barrier)
    shared = (tgt.shared_array("C", shape, dtype) + tgt.shared_array("P", shape, dtype)
              + tgt.shared_array("column", f"({tile},)", dtype)
              + tgt.shared_array("row", f"({tile},)", dtype))
    if which == "pivot":
        gather = ("if x < rows:\n    column[x] = C[x, kk]\n"
                  "if x < cols:\n    row[x] = C[kk, x]\n")
        load = _cells("C[i, j] = matrix[r0 + i, c0 + j]\n")
    else:
        gather = ("if x < rows:\n    column[x] = P[x, kk] if row_tile else C[x, kk]\n"
                  "if x < cols:\n    row[x] = C[kk, x] if row_tile else P[kk, x]\n")
        load = (_cells("C[i, j] = matrix[r0 + i, c0 + j]\n")
                + _cells("P[i, j] = matrix[k0 + i, k0 + j]\n", "depth", "depth"))
    step = ("for kk in range(depth):\n"
            + indent("for x in range(thread, T, threads):\n" + indent(gather) + barrier
                     + _cells(f"C[i, j] = functor(C[i, j], column[i], row[j]{state})\n")
                     + barrier))
    store = _cells("matrix[r0 + i, c0 + j] = C[i, j]\n")
    return head + shared + loop + indent(load + barrier + step + store + barrier)


def _tile_count(which: str, nt: int) -> int:
    return {"pivot": 1, "cross": 2 * (nt - 1), "rest": (nt - 1) ** 2}[which]


def _check(matrix: Any, pivot: int, tiles: str, tile: int) -> tuple[int, str]:
    shape = getattr(matrix, "shape", None)
    if shape is None or len(shape) != 2 or shape[0] != shape[1]:
        raise OperatorError(f"tile_update over an array of shape {shape}; expected a square "
                            "2-D array on the target")
    dtype = _DTYPES.get(np.dtype(matrix.dtype))
    if dtype is None:
        raise OperatorError(f"tile_update over a {matrix.dtype} matrix; expected one of "
                            f"{', '.join(_DTYPES.values())}")
    if tiles not in TILE_SETS:
        raise OperatorError(f"tiles={tiles!r}; expected one of {TILE_SETS}")
    if isinstance(tile, bool) or not isinstance(tile, (int, np.integer)) or not (
            1 <= tile <= MAX_TILE):
        raise OperatorError(f"tile={tile!r}; expected a tile side 1 .. {MAX_TILE}")
    n = int(shape[0])
    nt = -(-n // tile)
    if isinstance(pivot, bool) or not isinstance(pivot, (int, np.integer)) or not (
            0 <= pivot < max(nt, 1)):
        raise OperatorError(f"pivot={pivot!r}; expected a tile index 0 .. {max(nt - 1, 0)} "
                            f"({nt} tiles of {tile} a side)")
    return n, dtype


def tile_plan(matrix: Any, fn: Callable, num_state: int, pivot: int, tiles: str,
              tile: int | None, target: str | Target | None
              ) -> tuple[Plan, Target, dict[str, Any]]:
    """The kernel of one :func:`tile_update` call, its grid and its arguments."""
    tgt = resolve_target(target)
    tile = default_tile(tgt) if tile is None else tile
    n, dtype = _check(matrix, pivot, tiles, tile)
    functor = as_functor(fn, "tile function", ("c", "a", "b"), num_state)
    spec = KernelSpec("tiles", RANGE, NONE, False, num_state, variant=f"_{tiles}_{tile}_{dtype}",
                      io=KernelIO.RANGE)
    kernel: GeneratedKernel = build(
        tgt, per_element(tgt, min(tile * tile, BLOCK_THREADS)), spec, {"functor": functor},
        lambda: _body(tiles, tile, dtype, tgt, num_state), ("matrix", "n", "pivot"),
        name=f"tiles_{tiles}_{tile}_{dtype}__{functor.name}")
    count = _tile_count(tiles, -(-n // tile)) if n else 0
    blocks = max(1, min(count, tgt.resident_blocks(kernel.threads_per_block)))
    return (Plan([(kernel, blocks)], scalar_arguments({"functor": functor})), tgt,
            {"count": count, "matrix": matrix, "n": n, "pivot": int(pivot)})


@hands_over
def tile_update(matrix: Any, fn: Callable, *state: Any, pivot: int, tiles: str,
                tile: int | None = None, target: str | Target | None = None) -> None:
    """Update the tiles ``tiles`` (``"pivot"``, ``"cross"`` or ``"rest"``) of the square
    ``matrix`` (on ``target``; float64, int64 or int32) around pivot tile ``pivot``:
    ``C[i, j] = fn(C[i, j], A[i, kk], B[kk, j], *state)`` for ``kk`` in order (see the module
    docstring). ``tile`` is the tile side (default :func:`default_tile`); a blocked round calls
    the three sets in order with the same tile side."""
    plan, tgt, io = tile_plan(matrix, fn, len(state), pivot, tiles, tile, target)
    if io["count"]:
        launch_plan(plan, NO_GRAPH, tgt, io, state)
