"""All-pairs shortest paths written with the operators.

* ``method="floyd_warshall"`` — Harish & Narayanan, *Accelerating Large Graph Algorithms on the
  GPU Using CUDA*, §3.4, Algorithm 6: for each ``k``, one ``compute`` over all ``V x V`` cells
  (one thread per cell) relaxing ``D[i, j]`` through ``k``. V launches, O(V^3) work, every one
  of them a pass over the whole matrix in device memory.
* ``method="blocked_floyd_warshall"`` (the default) — Busato & Bombieri, *Graph Algorithms on
  GPUs*, §4.1 (after Venkataraman et al. and Katz & Kider): the matrix in ``t x t`` tiles; round
  ``K`` updates the diagonal tile, then the tiles of its row and column, then all the others,
  each phase one :func:`operators.tile_update` with the tiles in shared memory. V / t rounds of
  three launches; each cell is read from device memory about 3V / t times instead of V.
* ``method="repeated_sssp"`` — Harish & Narayanan §3.4, Algorithm 7: one single-source shortest
  path run per source, by :func:`algorithms.sssp.sssp` with ``sources=`` in batches of rows
  (:data:`BATCH_CELLS` distances on the device at once), each batch copied to the host when it
  is done. Each run is a frontier Bellman–Ford (Busato & Bombieri §3.1) as one stepping
  traversal (:mod:`operators.stepping`), launched after the last with no host read between.

``distances`` is float64 ``V x V`` (``inf`` where unreachable; the rows of ``sources`` only,
in their order, when given). Parallel arcs count with their smallest weight, self-loops of
weight >= 0 change nothing, an unweighted graph has weight 1 on every arc.

Negative weights are allowed. A negative cycle has no shortest paths: the Floyd–Warshall
methods refuse a graph holding one anywhere (a negative diagonal entry once they finish, as
scipy does); repeated_sssp refuses one that a requested source reaches (a frontier still
non-empty after V + 2 rounds). :class:`APSPError` then, naming a vertex on the cycle.

Weights whose simple paths could sum past float64's largest value (largest |weight| x (|V| - 1),
or the sum of all |weights| if smaller) are refused with ``ValueError`` before any work: an
overflowing sum would read as ``inf``, unreachable.

The V x V result is refused up front, with :class:`APSPError`, when it does not fit: the
Floyd–Warshall methods need the whole matrix in the target's memory (host memory for the cpu
target and the simulator) and the requested rows on the host; repeated_sssp only the rows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from algorithms.entry import Entry, Option, testing
from algorithms.output import check_out, on_host
from algorithms.sssp import sssp
from frontier import Frontier, Graph, NegativeCycleError, atomic_min, options, validate
from frontier.graph import path_bound
from frontier.limits import host_limit_bytes
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import advance, compute, reduce, tile_update
from operators.tiles import MAX_TILE, default_tile

__all__ = ["apsp", "APSPResult", "APSPError", "APSPMethod", "ENTRIES"]


class APSPMethod(options.Option):
    """``method=``: Floyd–Warshall, plain or blocked in tiles, or one SSSP per source."""

    FLOYD_WARSHALL = "floyd_warshall"
    BLOCKED_FLOYD_WARSHALL = "blocked_floyd_warshall"
    REPEATED_SSSP = "repeated_sssp"


class APSPError(ValueError):
    """All-pairs shortest paths cannot be computed for this input (a negative cycle, a result
    too large for memory)."""


@dataclass(frozen=True)
class APSPResult:
    """``distances`` (float64, rows x V, inf unreachable), the rows' ``sources``, the rounds run
    (``iterations``: pivots for floyd_warshall, pivot tiles for the blocked method, Bellman–Ford
    rounds summed over the sources for repeated_sssp), host wall time from the first launch to
    the last read (``seconds``), and ``edges_traversed``: every arc once per row (what a
    single-source run per row would at least look at), so that MTEPS compares the methods.
    ``stats`` is empty: the rounds run without a read back. ``target``: the target that ran
    it. With ``out="device"`` ``distances`` stay on the target (:mod:`algorithms.output`)."""

    distances: Any
    sources: np.ndarray
    iterations: int
    seconds: float
    edges_traversed: int
    stats: tuple[Any, ...] = ()
    target: Target | None = field(repr=False, default=None)


# the matrix: 0 on the diagonal, the lightest arc elsewhere --------------------------------------

def _zero_diagonal(v: int, flat: Any, n: int) -> None:
    flat[v * n + v] = 0.0


def _place_arc(src: int, dst: int, eid: int, weight: Any, flat: Any, n: int) -> bool:
    atomic_min(flat, src * n + dst, weight + 0.0)
    return False


def _adjacency(graph: Graph, tgt: Target) -> tuple[Any, Any]:
    n = graph.num_vertices
    flat = tgt.full(n * n, np.inf, np.float64)
    compute(None, n, _zero_diagonal, flat, n, target=tgt)
    if graph.num_edges:
        everyone = Frontier.all_vertices(graph, target=tgt)
        advance(graph, everyone, _place_arc, flat, n, output="none")
    return flat, flat.reshape(n, n)


def _negative_diagonal(v: int, flat: Any, n: int) -> int:
    return v if flat[v * n + v] < 0 else -1


# Floyd–Warshall (Harish & Narayanan, Algorithm 6) ----------------------------------------------

def _relax_cell(c: int, flat: Any, k: int, n: int) -> None:
    """Cell ``c`` = (i, j): the path through ``k`` if shorter. Row and column ``k`` do not
    change in round ``k`` (without a negative cycle), so the cells update in place."""
    i = c // n
    via = flat[i * n + k] + flat[k * n + (c - i * n)]
    if via < flat[c]:
        flat[c] = via


def _floyd_warshall(graph: Graph, flat: Any, matrix: Any, tgt: Target, tile: int | None) -> int:
    n = graph.num_vertices
    for k in range(n):
        compute(None, n * n, _relax_cell, flat, k, n, target=tgt)
    return n


# blocked Floyd–Warshall (Busato & Bombieri §4.1) -----------------------------------------------

def _through(c: Any, a: Any, b: Any) -> Any:
    """The min-plus step of every phase: the path through the pivot if shorter."""
    return min(c, a + b)


def _blocked_floyd_warshall(graph: Graph, flat: Any, matrix: Any, tgt: Target,
                            tile: int | None) -> int:
    n = graph.num_vertices
    tile = default_tile(tgt) if tile is None else tile
    rounds = -(-n // tile)
    for k in range(rounds):
        for phase in ("pivot", "cross", "rest"):
            tile_update(matrix, _through, pivot=k, tiles=phase, tile=tile, target=tgt)
    return rounds


# repeated SSSP (Harish & Narayanan, Algorithm 7) ------------------------------------------------

#: Rows of one batch of repeated_sssp: at most this many distances on the device at once.
BATCH_CELLS = 1 << 25


def _copy_cell(c: int, source: Any, flat: Any, start: int) -> None:
    flat[start + c] = source[c]


def _gather_rows(c: int, flat: Any, rows: Any, picked: Any, n: int) -> None:
    picked[c] = flat[rows[c // n] * n + c % n]


def _sssp_rows(graph: Graph, rows: np.ndarray, tgt: Target, out: str) -> tuple[Any, int]:
    """The rows' distances (as the caller gets them: on the host or the target) by SSSP from
    each source (:func:`algorithms.sssp.sssp` with ``sources=``: Bellman–Ford's stepping
    traversal per source, no host read between them), in batches of at most
    :data:`BATCH_CELLS` distances, and the rounds summed over them."""
    n = graph.num_vertices
    batch = max(1, BATCH_CELLS // max(n, 1))
    flat = (np.empty(rows.size * n, np.float64) if out == "host"
            else tgt.empty(rows.size * n, np.float64))
    rounds = 0
    for first in range(0, rows.size, batch):
        chunk = rows[first:first + batch]
        try:
            found = sssp(graph, sources=chunk, method="bellman_ford", target=tgt,
                         predecessors=False, out=out)
        except NegativeCycleError as err:
            raise APSPError(f"the graph has a negative cycle: {err}; shortest paths are "
                            "undefined") from None
        cells = chunk.size * n
        if out == "host":
            flat[first * n:first * n + cells] = found.distances.ravel()
        elif cells:
            compute(None, cells, _copy_cell, found.distances.reshape(cells), flat, first * n,
                    target=tgt)
        rounds += found.iterations
    return flat.reshape(rows.size, n), rounds


# the call ---------------------------------------------------------------------------------------

_FLOYD = {"floyd_warshall": _floyd_warshall, "blocked_floyd_warshall": _blocked_floyd_warshall}


def _rows(graph: Graph, sources: Any) -> np.ndarray:
    if sources is None:
        return np.arange(graph.num_vertices, dtype=np.int64)
    return validate.sources(graph, sources)


def _host_free_bytes() -> int:
    return host_limit_bytes()


def _check_room(n: int, rows: int, whole: bool, tgt: Target, out: str) -> None:
    """Refuse a result that would not fit: the rows where ``out`` puts them, and for the
    Floyd–Warshall methods the whole matrix on the target (on the host where the target cannot
    tell its free memory: the cpu target and the simulator keep arrays there)."""
    host_need, device_need = rows * n * 8, (n * n * 8 if whole else 0)
    if out == "device":
        host_need, device_need = 0, device_need + host_need
    device_free = tgt.free_bytes()
    if device_free is None:
        host_need, device_need = host_need + device_need, 0
    elif device_need > device_free:
        raise APSPError(f"the {n:,} x {n:,} distance matrix needs {device_need / 2**30:.2f} GiB "
                        f"on {tgt.name} but only {device_free / 2**30:.2f} GiB is free; "
                        "method='repeated_sssp' keeps only O(V + E) there")
    host_free = _host_free_bytes()
    if host_need > host_free:
        raise APSPError(f"{rows:,} rows of {n:,} distances need {host_need / 2**30:.2f} GiB of "
                        f"host memory but only {host_free / 2**30:.2f} GiB is available; ask "
                        "for fewer rows with sources=")


def apsp(graph: Graph, *, method: str = "blocked_floyd_warshall", sources: Any = None,
         target: str | Target | None = None, tile: int | None = None, out: str = "host"
         ) -> APSPResult:
    """Shortest-path distances between all pairs of vertices of ``graph`` (the rows of
    ``sources`` only, when given): float64, ``inf`` where unreachable.

    ``method`` is ``"blocked_floyd_warshall"`` (the default), ``"floyd_warshall"`` or
    ``"repeated_sssp"`` (see the module docstring); ``tile`` is the blocked method's tile side
    (default :func:`operators.tiles.default_tile`); ``target`` and ``out`` as
    :func:`algorithms.bfs`'s (``"auto"`` weighs the V^3 relaxations of the Floyd–Warshall
    methods, the traversals of repeated_sssp). :class:`APSPError` on a negative cycle or a
    result that does not fit in memory."""
    validate.graph(graph)
    method = validate.one_of("method", method, APSPMethod)
    check_out(out)
    if method != "blocked_floyd_warshall":
        validate.unused(f"method={method!r} (tiles are the blocked method's)", {"tile": tile})
    elif tile is not None:
        validate.count("tile", tile, 1, MAX_TILE)
    rows = _rows(graph, sources)
    n = graph.num_vertices
    validate.path_sums(f"apsp on a graph of {n} vertices", path_bound(graph.weights, n),
                       np.float64)
    if method in _FLOYD:
        tgt = resolve_target(target, graph, elements=n ** 3, deep=False)
    else:
        tgt = resolve_target(target, graph, elements=rows.size * (n + graph.num_edges))
    _check_room(n, rows.size, method in _FLOYD, tgt, out)
    start = time.perf_counter()
    if method in _FLOYD:
        flat, matrix = _adjacency(graph, tgt)
        rounds = _FLOYD[method](graph, flat, matrix, tgt, tile)
        cycle = reduce(None, n, _negative_diagonal, flat, n, op="max", target=tgt) if n else -1
        if cycle >= 0:
            raise APSPError(f"the graph has a negative cycle through vertex {cycle}: shortest "
                            "paths are undefined")
        distances = _requested_rows(flat, matrix, rows, sources is None, tgt, out)
    else:
        distances, rounds = _sssp_rows(graph, rows, tgt, out)
    return APSPResult(distances, rows, rounds, time.perf_counter() - start,
                      rows.size * graph.num_edges, target=tgt)


def _requested_rows(flat: Any, matrix: Any, rows: np.ndarray, every: bool, tgt: Target,
                    out: str) -> Any:
    """The rows of the matrix the caller asked for (``every``: all of them), where ``out``
    puts them."""
    n = matrix.shape[0]
    if out == "host":
        whole = tgt.to_host(flat).reshape(n, n)
        return whole if every else whole[rows]
    if every:
        return matrix
    picked = tgt.empty(rows.size * n, np.float64)
    compute(None, rows.size * n, _gather_rows, flat, tgt.to_device(rows), picked, n,
            target=tgt)
    return picked.reshape(rows.size, n)


# the catalog entry --------------------------------------------------------------------------
def _reference(graph: Graph, source: None) -> np.ndarray:
    return testing.reference_apsp(graph)


def _check(graph: Graph, source: None, result: APSPResult) -> None:
    integral = graph.weights is None or graph.weights.dtype.kind == "i"
    testing.check_apsp(graph, on_host(result.distances), rtol=0 if integral else 1e-12)


def _report(result: APSPResult) -> list[tuple[str, str]]:
    reached = int(np.count_nonzero(np.isfinite(result.distances)))
    return [("reachable", f"{reached:,} of {result.distances.size:,} pairs")]


ENTRIES = (
    Entry(name="apsp", description="all-pairs shortest paths: Floyd–Warshall, blocked, or "
          "repeated SSSP", run=apsp, reference=_reference, check=_check,
          checks="distances equal scipy.sparse.csgraph.floyd_warshall", report=_report,
          options=(Option("method", APSPMethod, APSPMethod.BLOCKED_FLOYD_WARSHALL,
                          "Floyd–Warshall, plain or blocked in tiles, or one SSSP per source"),),
          source=False, balanced=False, suite=False),
)
