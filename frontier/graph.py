"""The immutable graph every operator runs on: CSR with lazily built CSC and COO views.

Vertex ids are int32, row offsets int64 (Busato & Bombieri, *Graph Algorithms on GPUs*, §1: the CSR
representation). The CSC view serves pull-style traversal, and its arrays are the CSR of the
transpose (every arc reversed; Ligra's ``transpose()``), which backward steps run on; the COO view
serves edge-parallel work. Device copies are made once per target, on first use, and reused by
every later operator call.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from frontier import arc_pairs, device_graph, parallel, simple_graph, validate
from frontier.dtypes import OFFSET_DTYPE, VERTEX_DTYPE, stored_dtype
from frontier.errors import GraphError
from frontier.limits import check_graph
from frontier.runtime.cache_dir import cached_njit
from frontier.runtime.device_arrays import cuda_target, is_device_array, on_host, to_host
from frontier.target import GraphArrays, csc_arrays, graph_arrays, resolve_target

if TYPE_CHECKING:
    import scipy.sparse

    from frontier.runtime.target import Target



@dataclass(frozen=True)
class CSC:
    """Incoming edges: ``col_offsets`` (int64, |V|+1), ``row_indices`` (int32 sources) and
    ``edge_ids`` (int64 positions of each incoming edge in the CSR arrays)."""

    col_offsets: np.ndarray
    row_indices: np.ndarray
    edge_ids: np.ndarray


@dataclass(frozen=True)
class COO:
    """One (src, dst) pair per arc, in CSR order, so arc id ``e`` is ``(src[e], dst[e])``: the
    ``eid`` an advance functor receives, the index of :attr:`Graph.weights`,
    :meth:`Graph.reverse_arcs` and :meth:`Graph.edge_ids`. An undirected graph holds both arcs
    of each edge (a self-loop once). Both fields are read-only NumPy arrays of ``num_edges``
    entries on the host; pass one to a functor as state with ``T.to_device(G.coo().src)``.

    ``src``: the tail of each arc (int32). ``dst``: the head of each arc (int32; the graph's
    ``col_indices`` itself)."""

    src: np.ndarray
    dst: np.ndarray


def _weights_array(weights: Any, num_edges: int) -> np.ndarray | None:
    """``weights`` converted to the stored dtype (a copy), checked *after* the conversion: a
    ``np.longdouble("1e4000")`` is finite before and ``inf`` after, a uint64 above 2**63 wraps
    negative in int64, a longdouble ``1e-5000`` becomes 0. GraphError naming the first weight
    that does not survive the conversion."""
    if weights is None:
        return None
    w = np.asarray(weights)
    if w.shape != (num_edges,):
        raise GraphError(f"weights has shape {w.shape}; expected ({num_edges},), one per edge")
    if w.dtype == np.bool_ or not (np.issubdtype(w.dtype, np.integer)
                                   or np.issubdtype(w.dtype, np.floating)):
        raise GraphError(f"weights has dtype {w.dtype}; expected integers or floats")
    stored = stored_dtype(w.dtype)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        converted = w.astype(stored)
        if stored.kind == "f":
            lost = ~np.isfinite(converted) | ((converted == 0) & (w != 0))
        else:
            lost = (converted.astype(w.dtype) != w) | ((converted < 0) != (w < 0))
    if lost.any():
        i = int(np.flatnonzero(lost)[0])
        shown = (np.format_float_scientific(w[i], precision=6) if w.dtype == np.longdouble
                 else repr(w[i].item()))
        if stored.kind == "f" and not np.isfinite(w[i]):
            raise GraphError(f"weights[{i}] is {shown}; expected finite numbers")
        expected = ("finite and nonzero" if stored.kind == "f"
                    else f"within {np.iinfo(stored).min} .. {np.iinfo(stored).max}")
        raise GraphError(f"weights[{i}] = {shown} becomes {converted[i].item()!r} as the "
                         f"{stored.name} weights graphs store; expected weights that stay "
                         f"{expected} as {stored.name}")
    return converted


def path_bound(weights: np.ndarray | None, num_vertices: int) -> float:
    """The largest absolute total weight a simple path can have: at most |V| - 1 arcs each of
    the largest |weight| (weight 1 when unweighted), and never more than the sum of all
    |weights|. :func:`frontier.validate.path_sums` compares it with a distance dtype."""
    hops = max(num_vertices - 1, 0)
    if weights is None or weights.size == 0:
        return float(hops)
    if weights.dtype.kind != "f":
        return float(max(-int(weights.min()), int(weights.max())) * hops)
    with np.errstate(over="ignore"):
        magnitudes = np.abs(weights.astype(np.float64))
        return min(float(magnitudes.max()) * hops, float(magnitudes.sum()))


def _vertex_array(name: str, ids: Any) -> np.ndarray:
    """``ids`` as int64, converted from another integer or a float dtype when that is lossless
    (uint64 below 2**63, floats that are whole numbers); GraphError otherwise."""
    a = np.asarray(ids)
    if a.ndim != 1:
        raise GraphError(f"{name} has {a.ndim} dimensions; expected a 1-D array of vertex ids")
    if a.size == 0 or a.dtype == np.int64:
        return a.astype(np.int64, copy=False)
    if a.dtype.kind == "u":
        top = int(a.max())
        if top > np.iinfo(np.int64).max:
            raise GraphError(f"{name} holds {top}, which no int32 vertex id can hold; expected "
                             "vertex ids 0 <= id < num_vertices")
        return a.astype(np.int64)
    if a.dtype.kind == "i":
        return a.astype(np.int64)
    if a.dtype.kind == "f":
        whole = np.isfinite(a) & (np.abs(a) < 2.0 ** 53)
        whole[whole] = a[whole] == np.floor(a[whole])
        if not whole.all():
            bad = a[np.flatnonzero(~whole)[0]]
            raise GraphError(f"{name} holds {bad.item()!r}, not a whole number; expected integer "
                             "vertex ids (float ids are accepted only when they are whole)")
        return a.astype(np.int64)
    raise GraphError(f"{name} has dtype {a.dtype}; expected integer vertex ids")


def unpaired_arc(row_offsets: np.ndarray, col_indices: np.ndarray) -> tuple[int, int] | None:
    """An arc ``(u, v)`` of the CSR arrays with fewer reverse arcs ``(v, u)`` than copies of
    itself, or None when every arc is paired (the arrays describe an undirected graph)."""
    n = row_offsets.size - 1
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(row_offsets))
    dst = col_indices.astype(np.int64)
    forward = np.sort(src * n + dst)
    backward = np.sort(dst * n + src)
    differ = np.flatnonzero(forward != backward)
    if differ.size == 0:
        return None
    i = differ[0]
    if forward[i] < backward[i]:
        u, v = divmod(int(forward[i]), n)
        return u, v
    v, u = divmod(int(backward[i]), n)
    return u, v


def unpaired_arc_error(arc: tuple[int, int], shown: tuple[int, int] | None = None) -> str:
    """The message for an undirected graph whose arc ``arc`` (shown as ``shown``) has no
    reverse arc."""
    u, v = shown or arc
    return (f"arc {u} -> {v} has no matching reverse arc {v} -> {u}, so the input is not "
            "undirected; expected every arc in both directions for directed=False "
            "(symmetrize=True adds the reverse arcs)")


def unequal_arc_weights(row_offsets: np.ndarray, col_indices: np.ndarray, weights: np.ndarray
                        ) -> tuple[int, int, Any, Any] | None:
    """For CSR arrays whose arcs pair up (:func:`unpaired_arc` is None): an edge ``(u, v,
    weight of u -> v, weight of v -> u)`` whose two arcs carry different weights (for repeated
    edges, different multisets of weights), or None when every edge has one weight (or the arcs
    do not pair up, which :func:`unpaired_arc` reports). Two sorts of the arcs, by (u, v) and by
    (v, u); only the keys of repeated arcs whose weights come in another order are sorted again
    with their weights."""
    n = row_offsets.size - 1
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(row_offsets))
    dst = col_indices.astype(np.int64)
    forward, backward = src * n + dst, dst * n + src
    f, b = np.argsort(forward), np.argsort(backward)
    keys = forward[f]
    if not np.array_equal(keys, backward[b]):
        return None
    differ = np.flatnonzero(weights[f] != weights[b])
    if differ.size == 0:
        return None
    # the arcs of the keys that differ, each side sorted by weight within a key
    rows = np.flatnonzero(np.isin(keys, keys[differ]))
    f, b = f[rows], b[rows]
    f = f[np.lexsort((weights[f], keys[rows]))]
    b = b[np.lexsort((weights[b], keys[rows]))]
    differ = np.flatnonzero(weights[f] != weights[b])
    if differ.size == 0:
        return None
    i = int(differ[0])
    return (int(src[f[i]]), int(dst[f[i]]), weights[f[i]].item(), weights[b[i]].item())


def unequal_arc_weights_error(edge: tuple[int, int, Any, Any]) -> str:
    """The message for an undirected graph whose edge's two arcs carry different weights."""
    u, v, there, back = edge
    return (f"undirected edge {u} - {v} has weight {there!r} on arc {u} -> {v} but {back!r} on "
            f"arc {v} -> {u}, so shortest paths would differ by direction; expected both arcs "
            "of an undirected edge to carry one weight: pass directed=True to keep two arcs of "
            "different weights, or make the weights equal first (for a scipy matrix, "
            "M.minimum(M.T) keeps the lighter one, as scipy.sparse.csgraph does with "
            "directed=False)")


_RUN = 32  # rows are insertion-sorted in runs of this many arcs, then merged


@cached_njit(nogil=True)
def _sort_row(cols, arcs, lo, hi, spare_cols, spare_arcs, track):  # pragma: no cover - compiled
    """Stable sort of ``cols[lo:hi]`` (and ``arcs[lo:hi]`` alongside if ``track``): insertion
    sort of runs of ``_RUN``, then bottom-up merges through the spare arrays."""
    for start in range(lo, hi, _RUN):
        end = min(start + _RUN, hi)
        for i in range(start + 1, end):
            c = cols[i]
            a = arcs[i] if track else 0
            j = i - 1
            while j >= start and cols[j] > c:
                cols[j + 1] = cols[j]
                if track:
                    arcs[j + 1] = arcs[j]
                j -= 1
            cols[j + 1] = c
            if track:
                arcs[j + 1] = a
    width = _RUN
    while width < hi - lo:
        for left in range(lo, hi, 2 * width):
            mid = min(left + width, hi)
            right = min(left + 2 * width, hi)
            if mid >= right or cols[mid - 1] <= cols[mid]:
                continue  # already in order
            count = mid - left
            # element loops, not slice assignments: the same copy, compiled ~1.4 s sooner
            for q in range(count):
                spare_cols[q] = cols[left + q]
                if track:
                    spare_arcs[q] = arcs[left + q]
            i, j, k = 0, mid, left
            while i < count and j < right:
                if cols[j] < spare_cols[i]:
                    cols[k] = cols[j]
                    if track:
                        arcs[k] = arcs[j]
                    j += 1
                else:
                    cols[k] = spare_cols[i]
                    if track:
                        arcs[k] = spare_arcs[i]
                    i += 1
                k += 1
            while i < count:
                cols[k] = spare_cols[i]
                if track:
                    arcs[k] = spare_arcs[i]
                i += 1
                k += 1
        width *= 2


@cached_njit(nogil=True)
def _count_heads(heads, tails, skip_loops, out):  # pragma: no cover - compiled
    """``out[v] +=`` the number of arcs with head ``v`` (loops left out if ``skip_loops``)."""
    for k in range(heads.size):
        if not (skip_loops and heads[k] == tails[k]):
            out[heads[k]] += 1


@cached_njit(nogil=True)
def _scatter(heads, tails, first_arc, skip_loops, cursor, cols, arcs, track):  # pragma: no cover
    """Each arc ``heads[k] -> tails[k]`` to position ``cursor[head]`` (then advanced), in
    order; its arc id ``first_arc + k`` alongside if ``track``."""
    for k in range(heads.size):
        h = heads[k]
        if skip_loops and h == tails[k]:
            continue
        at = cursor[h]
        cursor[h] += 1
        cols[at] = tails[k]
        if track:
            arcs[at] = first_arc + k


@cached_njit(nogil=True)
def _sort_rows(offsets, first, last, cols, arcs, track):  # pragma: no cover - compiled
    """Rows ``first .. last-1`` sorted by destination, stably."""
    widest = 0
    for v in range(first, last):
        widest = max(widest, offsets[v + 1] - offsets[v])
    spare_cols = np.empty(widest, dtype=np.int32)
    spare_arcs = np.empty(widest if track else 0, dtype=np.int64)
    for v in range(first, last):
        _sort_row(cols, arcs, offsets[v], offsets[v + 1], spare_cols, spare_arcs, track)


_PARALLEL_ARCS = 1 << 18  # the CSR is built by several threads only above this many arcs each


def _counting_csr(src: np.ndarray, dst: np.ndarray, n: int, mirror: bool, track: bool
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR of the arcs ``src[k] -> dst[k]`` (and, if ``mirror``, ``dst[k] -> src[k]`` for
    ``src[k] != dst[k]``): a stable counting sort by source, then each row sorted by
    destination (a stable insertion and merge sort, :func:`_sort_row`), so equal arcs keep
    input order with the mirrored ones after the originals. Returns (row offsets, column
    indices, arc of each position: ``k``, or ``m + k`` for the mirror of ``k``; empty unless
    ``track``, for weights). Linear in |V| + |E| for bounded degrees.

    A large input is cut into one piece per core: each piece counts and places its own arcs
    in parallel threads (the compiled loops release the GIL), into disjoint slots of each row
    laid out in piece order, so the result is the sequential one.

    An input of at most :data:`_SMALL_ARCS` arcs is sorted by NumPy instead
    (:func:`_sorted_csr`, the same arrays): no compiled loop to compile or load, which on a
    fresh machine is most of a small graph's construction."""
    m = src.size
    if m * (2 if mirror else 1) <= _SMALL_ARCS:
        return _sorted_csr(src, dst, n, mirror, track)
    spans = parallel.spans(m, _PARALLEL_ARCS)
    pieces = len(spans)
    kinds = [(src, dst, 0, False)] + ([(dst, src, m, True)] if mirror else [])
    jobs = [(heads[a:b], tails[a:b], first + a, skip) for heads, tails, first, skip in kinds
            for a, b in spans]
    counts = [np.zeros(n, dtype=np.int64) for _ in jobs]
    run = _parallel if pieces > 1 else _sequential
    run([(_count_heads, (h, t, skip, c)) for (h, t, _, skip), c in zip(jobs, counts,
                                                                      strict=True)])
    offsets = np.zeros(n + 1, dtype=OFFSET_DTYPE)
    before = np.zeros(n, dtype=np.int64)
    cursors = []
    for c in counts:
        cursors.append(before.copy())
        before += c
    np.cumsum(before, out=offsets[1:])
    for cursor in cursors:
        cursor += offsets[:-1]
    total = int(offsets[-1])
    cols = np.empty(total, dtype=VERTEX_DTYPE)
    arcs = np.empty(total if track else 0, dtype=np.int64)
    run([(_scatter, (h, t, first, skip, cursor, cols, arcs, track))
         for (h, t, first, skip), cursor in zip(jobs, cursors, strict=True)])
    _sort_each_row(offsets, cols, arcs, track, pieces)
    return offsets, cols, arcs


def _sort_each_row(offsets: np.ndarray, cols: np.ndarray, arcs: np.ndarray, track: bool,
                   pieces: int) -> None:
    """Each row of ``cols`` under ``offsets`` sorted stably in place (:func:`_sort_rows`;
    ``arcs`` alongside if ``track``), in ``pieces`` ranges of rows of about equal arcs, one
    thread each."""
    n = offsets.size - 1
    rows = [int(np.searchsorted(offsets, cols.size * i // pieces)) for i in range(pieces)] + [n]
    (_parallel if pieces > 1 else _sequential)(
        [(_sort_rows, (offsets, rows[i], rows[i + 1], cols, arcs, track))
         for i in range(pieces)])


#: Arcs (mirrors included) up to which :func:`_counting_csr` sorts with NumPy.
_SMALL_ARCS = 1 << 12


def _sorted_csr(src: np.ndarray, dst: np.ndarray, n: int, mirror: bool, track: bool
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_counting_csr`'s arrays by a stable NumPy sort of the arcs (the originals, then
    the mirrors of the non-loops) by source and destination."""
    m = src.size
    heads, tails = src.astype(np.int64), dst.astype(np.int64)
    ids = np.arange(m, dtype=np.int64)
    if mirror:
        moved = heads != tails
        heads, tails, ids = (np.concatenate((heads, tails[moved])),
                             np.concatenate((tails, heads[moved])),
                             np.concatenate((ids, m + ids[moved])))
    order = np.argsort(heads * n + tails, kind="stable")  # < 2**62: n fits VERTEX_DTYPE
    offsets = np.zeros(n + 1, dtype=OFFSET_DTYPE)
    np.cumsum(np.bincount(heads, minlength=n), out=offsets[1:])
    cols = tails[order].astype(VERTEX_DTYPE)
    return offsets, cols, ids[order] if track else np.empty(0, dtype=np.int64)


def _sequential(calls: list[tuple[Any, tuple]]) -> None:
    for fn, args in calls:
        fn(*args)


def _parallel(calls: list[tuple[Any, tuple]]) -> None:
    with ThreadPoolExecutor(len(calls)) as pool:
        for future in [pool.submit(fn, *args) for fn, args in calls]:
            future.result()


def build_graph(src: np.ndarray, dst: np.ndarray, weights: Any, num_vertices: int,
                directed: bool) -> Graph:
    """The graph of arcs ``src[k] -> dst[k]`` (int64 ids already checked to lie in
    ``0 .. num_vertices-1``; each stored both ways, a self-loop once, unless ``directed``) with
    ``weights`` in the same order: the CSR builder that :meth:`Graph.from_edges` and the
    loaders share (rows ordered by destination, equal arcs in input order)."""
    directed = validate.flag("directed", directed)
    w = _weights_array(weights, src.size)
    offsets, cols, arcs = _counting_csr(src, dst, num_vertices, not directed, w is not None)
    if w is not None:
        arcs[arcs >= src.size] -= src.size
        w = w[arcs]
    return Graph._trusted(offsets, cols, w, directed, weights_checked=not directed)


def from_sorted_keys(keys: np.ndarray, weights: np.ndarray | None, num_vertices: int,
                     directed: bool) -> Graph:
    """The graph whose arcs are ``keys = src * num_vertices + dst`` (int64, sorted ascending,
    ids already checked), with ``weights`` in the same order: the one CSR builder that
    :meth:`Graph.from_edges`, the loaders and the generators share. An undirected graph's keys
    hold both arcs of every edge, with one weight (the caller mirrored them)."""
    directed = validate.flag("directed", directed)
    n = num_vertices
    offsets = np.empty(n + 1, dtype=OFFSET_DTYPE)
    cols = np.empty(keys.size, dtype=VERTEX_DTYPE)

    def rows(a: int, b: int) -> None:
        offsets[a:b] = np.searchsorted(keys, np.arange(a, b, dtype=np.int64) * n)

    def columns(a: int, b: int) -> None:
        for c, d in parallel.chunks(a, b):
            np.remainder(keys[c:d], max(n, 1), out=cols[c:d], casting="unsafe")

    parallel.each(rows, parallel.spans(n + 1))
    parallel.each(columns, parallel.spans(keys.size))
    return Graph._trusted(offsets, cols, _weights_array(weights, keys.size), directed,
                          weights_checked=not directed)


def _csr_arrays(row_offsets: Any, col_indices: Any) -> tuple[np.ndarray, np.ndarray]:
    """The CSR arrays as fresh int64 offsets and int64 ids, checked: 1-D integer offsets
    rising from 0 to ``len(col_indices)``, ids ``0 <= id < |V|`` (converted losslessly, as
    :func:`_vertex_array` does), |V| within int32. GraphError naming what is wrong otherwise,
    before anything is built."""
    offs = np.asarray(row_offsets)
    if offs.ndim != 1 or offs.size == 0 or not np.issubdtype(offs.dtype, np.integer):
        raise GraphError(f"row_offsets has shape {offs.shape} and dtype {offs.dtype}; expected a "
                         "non-empty 1-D integer array of |V|+1 offsets")
    if offs.dtype.kind == "u" and int(offs.max()) > np.iinfo(OFFSET_DTYPE).max:
        raise GraphError(f"row_offsets holds {int(offs.max())}; expected offsets < 2**63")
    offs = offs.astype(OFFSET_DTYPE)
    cols = _vertex_array("col_indices", col_indices)
    n = offs.size - 1
    if offs[0] != 0 or offs[-1] != cols.size or np.any(np.diff(offs) < 0):
        falls = np.flatnonzero(np.diff(offs) < 0)
        got = (f"row_offsets[{falls[0] + 1}] = {int(offs[falls[0] + 1])} is below "
               f"row_offsets[{falls[0]}]" if falls.size else
               f"they run from {int(offs[0])} to {int(offs[-1])}")
        raise GraphError(f"row_offsets must rise from 0 to len(col_indices) = {cols.size}; "
                         f"{got}")
    if cols.size and (cols.min() < 0 or cols.max() >= n):
        bad = int(cols.min() if cols.min() < 0 else cols.max())
        raise GraphError(f"col_indices holds vertex {bad}; expected 0 <= id < {n}")
    if n > np.iinfo(VERTEX_DTYPE).max:
        raise GraphError(f"{n} vertices do not fit int32 vertex ids")
    return offs, cols


def _checked_csr(what: str, row_offsets: Any, col_indices: Any, weights: Any, directed: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Host CSR arrays as a graph stores them (fresh copies: int64 offsets, int32 ids, weights
    in their stored dtype), checked as :func:`_csr_arrays` and :func:`_weights_array` do, the
    size against the memory (:func:`_check_size`, naming ``what``) and, for an undirected
    graph, every arc paired with a reverse arc."""
    offs, cols = _csr_arrays(row_offsets, col_indices)
    _check_size(what, offs.size - 1, cols.size, weights is not None)
    w = _weights_array(weights, cols.size)
    if not directed:
        arc = unpaired_arc(offs, cols)
        if arc is not None:
            raise GraphError(unpaired_arc_error(arc))
    return offs, cols.astype(VERTEX_DTYPE), w


def _check_size(what: str, num_vertices: int, num_arcs: int, weighted: bool) -> None:
    check_graph(what, num_vertices, num_arcs, weighted)


class _Copies:
    """The graph's unions of copies (:meth:`Graph.copies`), the two latest counts."""

    KEPT = 2

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made: dict[int, Graph] = {}

    def get(self, count: int, build: Any) -> Graph:
        with self._lock:
            found = self._made.pop(count, None)
            if found is None:
                found = build()
            self._made[count] = found  # the latest last
            while len(self._made) > self.KEPT:
                del self._made[next(iter(self._made))]
            return found


def _copies(graph: Graph, count: int) -> Graph:
    """``count`` copies of ``graph`` side by side (see :meth:`Graph.copies`)."""
    offsets, cols, weights = graph._host()
    n, m = graph.num_vertices, graph.num_edges
    check_graph(f"{count} copies of a graph", n * count, m * count, graph.weighted)
    rows = np.empty(n * count + 1, OFFSET_DTYPE)
    rows[:-1] = (offsets[:-1][None, :] + (np.arange(count, dtype=OFFSET_DTYPE) * m)[:, None]
                 ).reshape(-1)
    rows[-1] = m * count
    heads = (cols[None, :].astype(np.int64) + (np.arange(count, dtype=np.int64) * n)[:, None])
    heads = heads.reshape(-1).astype(VERTEX_DTYPE)
    tiled = None if weights is None else np.tile(weights, count)
    return Graph._trusted(rows, heads, tiled, graph.directed, weights_checked=True)


class Graph:
    """A directed or undirected graph in CSR form; immutable once built.

    An undirected graph stores each edge in both directions (a self-loop once), so ``num_edges``
    counts arcs. Build one with :meth:`from_edges`, :meth:`from_csr` or :meth:`from_scipy`, or load
    one with :func:`frontier.load`.

    ``Graph(row_offsets, col_indices, weights=None, directed=True)`` is :meth:`from_csr`
    without ``symmetrize``: the arrays are copied and checked the same way (offsets rising from
    0 to ``len(col_indices)``, ids in range, dtypes, one weight per arc, an undirected graph's
    arcs paired with one weight each), GraphError before anything else is done. Device arrays
    go through :meth:`from_csr`, which keeps them on the GPU.
    """

    def __init__(self, row_offsets: Any, col_indices: Any, weights: Any = None,
                 directed: bool = True) -> None:
        directed = validate.flag("directed", directed)
        if any(is_device_array(a) for a in (row_offsets, col_indices, weights)):
            raise GraphError("Graph(...) takes host arrays; expected Graph.from_csr(row_offsets, "
                             "col_indices, weights, directed) for device arrays, which keeps "
                             "them on the GPU")
        self._adopt(*_checked_csr("Graph", row_offsets, col_indices, weights, directed),
                    directed, weights_checked=False)

    @classmethod
    def _trusted(cls, row_offsets: np.ndarray, col_indices: np.ndarray,
                 weights: np.ndarray | None, directed: bool, *,
                 weights_checked: bool = False) -> Graph:
        """A graph of CSR arrays the library built and knows to be valid (int64 offsets
        rising from 0 to ``col_indices.size``, int32 ids in range, weights of a stored dtype or
        None), taken as they are (made read-only, not copied): what the builders, loaders,
        generators and views use instead of the checking constructor. An undirected weighted
        graph's arcs are still checked for one weight per edge unless ``weights_checked`` (the
        caller copied each weight to the reverse arc, or cut the arrays from a graph already
        checked)."""
        graph = cls.__new__(cls)
        graph._adopt(row_offsets, col_indices, weights, validate.flag("directed", directed),
                     weights_checked=weights_checked)
        return graph

    def _adopt(self, row_offsets: np.ndarray, col_indices: np.ndarray,
               weights: np.ndarray | None, directed: bool, *, weights_checked: bool) -> None:
        """Take valid host CSR arrays as this graph's (see :meth:`_trusted`)."""
        if not directed and weights is not None and not weights_checked:
            edge = unequal_arc_weights(row_offsets, col_indices, weights)
            if edge is not None:
                raise GraphError(unequal_arc_weights_error(edge))
        for a in (row_offsets, col_indices) + ((weights,) if weights is not None else ()):
            a.setflags(write=False)
        self._start(row_offsets.size - 1, col_indices.size, weights is not None, directed)
        self._host_csr: tuple[np.ndarray, np.ndarray, np.ndarray | None] | None = (
            row_offsets, col_indices, weights)

    def _start(self, num_vertices: int, num_edges: int, weighted: bool, directed: bool) -> None:
        """The fields every graph has, whichever memory holds its arrays."""
        self._num_vertices = num_vertices
        self._num_edges = num_edges
        self._weighted = weighted
        self._directed = directed
        self._on_gpu: tuple[Any, Any, Any] | None = None
        self._csc: CSC | None = None
        self._coo: COO | None = None
        self._transpose: Graph | None = None
        self._device: dict[tuple[str, str], Any] = {}
        self._memo: dict[Hashable, Any] = {}
        # builds each derived view once when several threads ask at once (see memo)
        self._building = threading.RLock()

    @classmethod
    def _resident(cls, row_offsets: Any, col_indices: Any, weights: Any, directed: bool
                  ) -> Graph:
        """A graph whose CSR arrays (int64 offsets, int32 ids, stored-dtype weights or None:
        device arrays the graph owns, checked already) stay on the GPU: the cuda target uses
        them as they are; a host copy is made on first use by anything that reads the arrays on
        the host (:meth:`_host`)."""
        graph = cls.__new__(cls)
        graph._start(row_offsets.shape[0] - 1, col_indices.shape[0], weights is not None,
                     directed)
        graph._host_csr = None
        graph._on_gpu = (row_offsets, col_indices, weights)
        target = cuda_target()
        placeholder = weights if weights is not None else target.zeros(1, np.int32)
        target.synchronize()  # the copies that made the arrays are complete for every stream
        graph._device[(target.name, "csr")] = GraphArrays(
            graph._num_vertices, graph._num_edges, row_offsets, col_indices, placeholder,
            weights is not None)
        return graph

    def _host(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The CSR arrays on the host: a graph built from device arrays copies them once, on
        first use (whichever thread asks first)."""
        found = self._host_csr
        if found is None:
            with self._building:
                found = self._host_csr
                if found is None:
                    assert self._on_gpu is not None
                    copies = tuple(None if a is None else a.copy_to_host()
                                   for a in self._on_gpu)
                    for a in copies:
                        if a is not None:
                            a.setflags(write=False)
                    found = self._host_csr = copies  # type: ignore[assignment]
        return found  # type: ignore[return-value]

    @property
    def _row_offsets(self) -> np.ndarray:
        return self._host()[0]

    @property
    def _col_indices(self) -> np.ndarray:
        return self._host()[1]

    @property
    def _weights(self) -> np.ndarray | None:
        return self._host()[2]

    @property
    def on_device(self) -> bool:
        """Whether the graph was built from device arrays and keeps them on the GPU
        (:meth:`from_csr`)."""
        return self._on_gpu is not None

    # construction -------------------------------------------------------------------------
    @classmethod
    def from_edges(cls, src: Any, dst: Any, weights: Any = None, num_vertices: int | None = None,
                   directed: bool = True) -> Graph:
        """Build from parallel arrays of edge endpoints (and optional weights).

        Self-loops and repeated edges are kept. With ``directed=False`` the arrays list
        undirected edges: every edge (u, v), u != v, is stored in both directions (an edge list
        is symmetric by construction; :meth:`from_csr` and :meth:`from_scipy` take arcs and
        refuse unpaired ones). Vertices are ``0 .. num_vertices-1``; ``num_vertices`` (an
        integer; a float such as 3.7 raises TypeError) defaults to the largest id plus one. Ids
        of any integer dtype, or whole-number floats, are converted to int64 when that is
        lossless, else GraphError. Within a row, edges are ordered by destination (repeated
        edges keep their input order). ``weights`` are converted to float64 or float32 (float32
        input), int32 or int64, and refused (GraphError) where the conversion loses them. The
        inputs are not modified. GraphTooLargeError (before anything is allocated) when the
        graph cannot fit in memory; TypeError for a ``directed`` that is not a bool. Device
        arrays (see :meth:`from_csr`) are copied to the host, where the CSR is built (a sort of
        the arcs); the graph's arrays are then uploaded on first use, as a host graph's are.
        """
        directed = validate.flag("directed", directed)
        src, dst, weights = (to_host(a) if is_device_array(a) else a for a in (src, dst, weights))
        s = _vertex_array("src", src)
        d = _vertex_array("dst", dst)
        if s.shape != d.shape:
            raise GraphError(f"src has {s.size} entries and dst {d.size}; expected the same count")
        top = int(max(s.max(initial=-1), d.max(initial=-1))) + 1
        num_vertices = top if num_vertices is None else validate.count("num_vertices",
                                                                        num_vertices)
        if s.size and (min(s.min(), d.min()) < 0 or top > num_vertices):
            bad = int(s.min() if s.min() < 0 else d.min() if d.min() < 0 else top - 1)
            raise GraphError(f"vertex id {bad} is out of range; expected 0 <= id < {num_vertices}")
        if num_vertices > np.iinfo(VERTEX_DTYPE).max:
            raise GraphError(f"{num_vertices} vertices do not fit int32 vertex ids")
        _check_size("Graph.from_edges", num_vertices, s.size * (1 if directed else 2),
                    weights is not None)
        return build_graph(s, d, weights, num_vertices, directed)

    @classmethod
    def from_csr(cls, row_offsets: Any, col_indices: Any, weights: Any = None,
                 directed: bool = True, symmetrize: bool = False) -> Graph:
        """Build from CSR arrays, copied and checked (offsets monotone, ids in range).

        ``directed=False`` needs arrays that already hold both directions of every edge (as
        many arcs ``v -> u`` as ``u -> v``): otherwise GraphError naming an unpaired arc.
        ``symmetrize=True`` (which implies an undirected graph) instead treats every arc as an
        undirected edge and stores it both ways, a self-loop once, as :func:`frontier.load`
        does; rows are then ordered by destination. An undirected graph's two arcs of each edge
        must carry one weight (GraphError naming the edge otherwise). The caller's arrays are
        not modified.

        Device arrays (CuPy, PyTorch CUDA tensors, Numba device arrays: anything with
        ``__cuda_array_interface__`` or a CUDA DLPack capsule) are checked on the GPU, and the
        graph keeps device copies of them in its own dtypes, which the cuda target uses without
        an upload (:mod:`frontier.device_graph`); reading the arrays on the host (the cpu
        target, the CSC and COO views, ``out_degrees``, ``save``, ``to_scipy``, NetworkX
        conversion, pickling) copies them to the host once. ``symmetrize=True`` and an
        undirected weighted graph are built on the host from a copy of device arrays.
        """
        directed = validate.flag("directed", directed)
        symmetrize = validate.flag("symmetrize", symmetrize)
        if any(is_device_array(a) for a in (row_offsets, col_indices, weights)):
            checked = device_graph.checked_csr(row_offsets, col_indices, weights, directed,
                                               symmetrize)
            if checked is None:  # built on the host, from a copy (see frontier.device_graph)
                return cls.from_csr(on_host(row_offsets), on_host(col_indices),
                                    on_host(weights), directed=directed, symmetrize=symmetrize)
            return cls._resident(*checked, directed)
        if not symmetrize:
            return cls._trusted(*_checked_csr("Graph.from_csr", row_offsets, col_indices,
                                              weights, directed), directed)
        if directed:
            raise GraphError("symmetrize=True builds an undirected graph; expected "
                             "directed=False with it")
        offs, cols = _csr_arrays(row_offsets, col_indices)
        n = offs.size - 1
        src = np.repeat(np.arange(n, dtype=np.int64), np.diff(offs))
        return cls.from_edges(src, cols, weights, n, directed=False)

    @classmethod
    def from_scipy(cls, matrix: scipy.sparse.spmatrix | scipy.sparse.sparray,
                   directed: bool = True, weighted: bool = True,
                   symmetrize: bool = False) -> Graph:
        """Build from a square scipy sparse matrix: entry (i, j) is an edge i -> j.

        Stored entries become edges (explicit zeros included); their values become weights
        unless ``weighted=False``. ``directed=False`` needs a structurally symmetric matrix
        (every stored (i, j) matched by a stored (j, i)): otherwise GraphError naming an
        unpaired entry, or, when weighted, naming an entry whose transpose holds another value
        (``M[0, 1] = 1`` with ``M[1, 0] = 100`` would give 0 -> 1 and 1 -> 0 different
        distances; ``M.minimum(M.T)`` keeps the lighter, as scipy.sparse.csgraph does).
        ``symmetrize=True`` (undirected) stores every entry both ways instead, a diagonal entry
        once, as :meth:`from_csr` does. The matrix is not modified.
        """
        import scipy.sparse as sp

        directed = validate.flag("directed", directed)
        weighted = validate.flag("weighted", weighted)
        symmetrize = validate.flag("symmetrize", symmetrize)
        if not sp.issparse(matrix):
            raise GraphError(f"expected a scipy sparse matrix, got {type(matrix).__name__}")
        if matrix.shape[0] != matrix.shape[1]:
            raise GraphError(f"matrix has shape {matrix.shape}; expected a square adjacency matrix")
        if symmetrize and directed:
            raise GraphError("symmetrize=True builds an undirected graph; expected "
                             "directed=False with it")
        coo = sp.coo_matrix(matrix)  # keeps repeated entries apart; never sorts the caller's data
        graph = cls.from_edges(coo.row, coo.col, coo.data if weighted else None,
                               num_vertices=matrix.shape[0], directed=not symmetrize)
        if directed or symmetrize:
            return graph
        arc = unpaired_arc(graph.row_offsets, graph.col_indices)
        if arc is not None:
            raise GraphError(unpaired_arc_error(arc))
        return cls._trusted(graph.row_offsets, graph.col_indices, graph.weights,
                            directed=False)

    # views ------------------------------------------------------------------------------
    @property
    def num_vertices(self) -> int:
        return self._num_vertices

    @property
    def num_edges(self) -> int:
        """Stored arcs: an undirected edge counts twice, a self-loop once."""
        return self._num_edges

    @property
    def directed(self) -> bool:
        return self._directed

    @property
    def weighted(self) -> bool:
        return self._weighted

    @property
    def row_offsets(self) -> np.ndarray:
        return self._row_offsets

    @property
    def col_indices(self) -> np.ndarray:
        return self._col_indices

    @property
    def weights(self) -> np.ndarray | None:
        return self._weights

    def out_degrees(self) -> np.ndarray:
        return np.diff(self._row_offsets)

    def in_degrees(self) -> np.ndarray:
        return np.diff(self.csc().col_offsets)

    def csc(self) -> CSC:
        """Incoming-edge view, built on first use (once, whichever thread asks first)."""
        if self._csc is None:
            with self._building:
                if self._csc is None:
                    # the CSR builder over the reversed arcs: linear (a counting sort by head,
                    # in parallel pieces), each column's sources in arc order, i.e. ascending
                    offsets, rows, order = _counting_csr(self._col_indices, self.coo().src,
                                                         self.num_vertices, False, True)
                    for a in (offsets, rows, order):
                        a.setflags(write=False)
                    self._csc = CSC(offsets, rows, order)
        return self._csc

    def coo(self) -> COO:
        """The edge list (:class:`COO`: ``src`` and ``dst``, the tail and head of each arc in
        CSR order), built on first use (once, whichever thread asks first)."""
        if self._coo is None:
            with self._building:
                if self._coo is None:
                    src = np.repeat(np.arange(self.num_vertices, dtype=VERTEX_DTYPE),
                                    self.out_degrees())
                    src.setflags(write=False)
                    self._coo = COO(src, self._col_indices)
        return self._coo

    def sorted_neighbors(self) -> np.ndarray:
        """Each vertex's out-neighbours in ascending order, row by row under ``row_offsets``:
        ``col_indices`` itself where every row is sorted already (as :meth:`from_edges` and
        :func:`frontier.load` build them), else a sorted copy, built once. What a functor's
        :func:`frontier.neighbors` iterates and :func:`frontier.intersection_count` merges;
        ``transpose().sorted_neighbors()`` gives the in-neighbours (under the CSC offsets)."""
        return self._sorted_rows()[0]

    def _sorted_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`sorted_neighbors` and the arc id of each of its entries (repeated arcs in
        arc-id order), int64; the arc ids are an empty array where :meth:`sorted_neighbors` is
        ``col_indices`` itself (the position is the arc id). Built once."""
        return self.memo("sorted_rows", self._sort_rows)

    def _sort_rows(self) -> tuple[np.ndarray, np.ndarray]:
        cols, offsets = self._col_indices, self._row_offsets
        in_place = np.empty(0, dtype=np.int64)
        in_place.setflags(write=False)
        if cols.size < 2:
            return cols, in_place
        falls = cols[1:] < cols[:-1]
        starts = offsets[1:-1]
        falls[starts[(starts > 0) & (starts < cols.size)] - 1] = False  # a new row may fall
        if not falls.any():
            return cols, in_place
        if cols.size <= _SMALL_ARCS:  # NumPy's sort: no compiled loop to load
            order = np.lexsort((cols, self.coo().src))  # stable: repeated arcs in arc-id order
            ordered = cols[order]
        else:  # the compiled row sort, stable, rows spread over the cores: linear for bounded
            # degrees, where lexsort sorts every arc again
            ordered, order = cols.copy(), np.arange(cols.size, dtype=np.int64)
            _sort_each_row(offsets, ordered, order, True,
                           len(parallel.spans(cols.size, _PARALLEL_ARCS)))
        for a in (ordered, order):
            a.setflags(write=False)
        return ordered, order

    def transpose(self) -> Graph:
        """The graph with every arc reversed (Ligra's ``transpose()``): arc ``u -> v`` of
        weight ``w`` becomes ``v -> u`` of weight ``w``, self-loops and repeated arcs kept, on
        the same vertex ids, so a vertex frontier of either graph is valid on the other
        (:meth:`same_vertices`) and an advance over the transpose visits the in-neighbours of
        the frontier's vertices. Built once, from the CSC view (whose arrays are its CSR), and
        kept: every call returns the same object, ``g.transpose().transpose() is g``, and an
        undirected graph is its own transpose. The transpose's arc ``p`` is this graph's arc
        ``csc().edge_ids[p]`` (edge ids, and so edge frontiers, differ between the two)."""
        if not self._directed:
            return self
        if self._transpose is None:
            with self._building:
                if self._transpose is None:
                    csc = self.csc()
                    weights = None if self._weights is None else self._weights[csc.edge_ids]
                    reverse = Graph._trusted(csc.col_offsets, csc.row_indices, weights, True)
                    # the transpose's CSC is this graph's CSR: column u lists u's heads in arc
                    # order, each the transpose's arc that is this graph's arc at that position
                    positions = np.empty_like(csc.edge_ids)
                    positions[csc.edge_ids] = np.arange(csc.edge_ids.size, dtype=np.int64)
                    positions.setflags(write=False)
                    reverse._csc = CSC(self._row_offsets, self._col_indices, positions)
                    reverse._transpose = self
                    self._transpose = reverse
        return self._transpose

    def copies(self, count: int) -> Graph:
        """The disjoint union of ``count`` copies of this graph: vertex ``i * |V| + v`` is
        vertex ``v`` of copy ``i``, arc ``i * |E| + a`` its arc ``a``, with the same weights
        and direction (``count == 1``: this graph). Several independent traversals run as one
        over it, each in its own copy, with state arrays of ``count`` rows of |V| entries
        (:mod:`operators.sources`). Built on the host and kept with the graph, the two latest
        counts asked for."""
        count = validate.count("count", count, low=1)
        if count == 1:
            return self
        kept = self.memo("copies", _Copies)
        return kept.get(count, lambda: _copies(self, count))

    def reverse_arcs(self, target: str | Target | None = None) -> Any:
        """For each arc ``u -> v``, the id of an arc ``v -> u``, or -1 where there is none:
        int64, one per arc, read-only. With repeated arcs, the ``k``-th arc ``u -> v`` (by arc
        id) pairs with the ``k``-th arc ``v -> u``, so the pairing is one to one and
        ``rev[rev[a]] == a`` wherever ``rev[a] != -1``; every arc of an undirected graph has
        its reverse, and a self-loop is its own (:mod:`frontier.arc_pairs`). Built once
        (vectorized, O(|E| log |E|)) and kept with the graph.

        ``target`` (a name or a :class:`frontier.Target`) gives the array on that target
        instead, copied there once, to pass to functors as state (``rev[eid]`` in an advance
        functor is the reverse of the edge it is called on)."""
        host = self.memo("reverse_arcs", lambda: arc_pairs.reverse_arcs(self))
        return host if target is None else self._state_copy(target, "reverse_arcs", host)

    def edge_ids(self, target: str | Target | None = None) -> Any:
        """For each arc, its undirected edge id: an arc and its reverse (:meth:`reverse_arcs`)
        share one, an arc without a reverse has its own, and the ids run ``0 .. k-1`` in the
        order of each edge's lower arc id (``k = ids.max() + 1`` edges; 0 without arcs). On an
        undirected graph these number its edges (both arcs of an edge share an id, a repeated
        edge is two edges, a self-loop one); on a directed graph, the edges of the undirected
        multigraph in which an arc and the reverse paired with it are one edge (an arc's own
        id, ``eid``, numbers the directed edges). int64, read-only, built once; ``target`` as
        :meth:`reverse_arcs`'s."""
        host = self.memo("edge_ids", lambda: arc_pairs.edge_ids(self))
        return host if target is None else self._state_copy(target, "edge_ids", host)

    def _state_copy(self, target: str | Target, view: str, host: np.ndarray) -> Any:
        """``host`` (an array derived from this graph) on ``target``, copied once."""
        where = resolve_target(target, self)
        return self._on_device(where, view, lambda g: where.to_device(host))

    def simple(self, *, directed: bool | None = None) -> Graph:
        """This graph without self-loops and repeated arcs, on the same vertices: an undirected
        graph stays undirected and symmetric, a directed one directed. The weight of arcs that
        merge is the smallest of theirs (what minimum-spanning and shortest-path methods keep
        of a repeated edge).

        ``directed=False`` gives the undirected simple graph underlying this one instead: one
        edge between each pair of distinct vertices joined by an arc either way, weighing the
        least of those arcs (what k-core, triangles, independent sets and colourings count on);
        ``directed=True`` the directed simple graph (an undirected edge as two arcs). This
        graph itself where it is simple and of that kind already. Built once per kind and kept
        with the graph (:meth:`memo`), so a repeated call makes no pass over the arcs."""
        directed = self._directed if directed is None else validate.flag("directed", directed)
        return self.memo(f"simple directed={directed}",
                         lambda: simple_graph.simple(self, directed, from_sorted_keys))

    def same_vertices(self, other: object) -> bool:
        """Whether ``other`` is this graph or its transpose (:meth:`transpose`): the graphs on
        which a vertex frontier of this graph is valid."""
        return other is self or (other is not None and other is self._transpose)

    def to_scipy(self, *, pattern: bool = False) -> scipy.sparse.csr_matrix:
        """The adjacency matrix; values are the weights, or ones for an unweighted graph.
        Repeated edges stay separate stored entries. The matrix's arrays are fresh copies the
        caller owns (writable: ``A.sum_duplicates()`` and in-place edits leave the graph as it
        was).

        ``pattern=True`` gives the adjacency pattern instead: one entry of 1.0 per distinct arc
        (repeats merged), in scipy's canonical form (sorted, no duplicates). That is what
        ``scipy.sparse.csgraph``'s traversals and components need: its
        ``connected_components(connection="strong")`` never returns on a matrix with repeated
        entries."""
        import scipy.sparse as sp

        n = self.num_vertices
        if pattern:
            matrix = sp.csr_matrix((np.ones(self.num_edges), self._col_indices.copy(),
                                    self._row_offsets.copy()), shape=(n, n), copy=False)
            matrix.sum_duplicates()
            matrix.data[:] = 1.0
            return matrix
        data = (self._weights.copy() if self._weights is not None
                else np.ones(self.num_edges))
        return sp.csr_matrix((data, self._col_indices.copy(), self._row_offsets.copy()),
                             shape=(n, n), copy=False)

    def device_arrays(self, target: Any) -> Any:
        """The CSR arrays on ``target`` (a :class:`frontier.runtime.target.Target`), copied once."""
        return self._on_device(target, "csr", lambda graph: graph_arrays(target, graph))

    def device_csc(self, target: Any) -> Any:
        """The CSC arrays on ``target`` (for pull traversal), built and copied once."""
        return self._on_device(target, "csc", lambda graph: csc_arrays(target, graph))

    def device_neighbors(self, target: Any) -> tuple[Any, Any, Any]:
        """The sorted out-neighbours and in-neighbours (:meth:`sorted_neighbors`) and the arc
        id of each sorted out-neighbour (empty where the rows are sorted already, the position
        being the arc id) on ``target``, for the functor graph view: the device CSR's and CSC's
        own arrays where the rows are sorted already, else copies made once."""
        def copy(graph: Graph) -> tuple[Any, Any, Any]:
            (heads, arcs), tails = graph._sorted_rows(), graph.transpose().sorted_neighbors()
            on_device = graph._device_copy(target, heads)
            return (on_device, (on_device if tails is heads
                                else graph._device_copy(target, tails)),
                    target.to_device(arcs))

        return self._on_device(target, "neighbors", copy)

    def _device_copy(self, target: Any, heads: np.ndarray) -> Any:
        """``heads`` on ``target``: the array already there where it is this graph's own
        ``col_indices`` or its incoming view's sources."""
        if heads is self._col_indices:
            return self.device_arrays(target).col_indices
        if heads is self.csc().row_indices:
            return self.device_csc(target).row_indices
        return target.to_device(heads)

    def device_edge_sources(self, target: Any) -> Any:
        """The tail of every edge (the COO view's ``src``) on ``target``, for edge frontiers."""
        return self._on_device(target, "coo", lambda g: target.to_device(g.coo().src))

    def memo(self, key: Hashable, build: Any) -> Any:
        """A value derived from this (immutable) graph, built by ``build()`` on first use and
        kept with the graph under ``key`` (the adaptive runtime's degree profile, the pooled
        frontier buffers of each thread). Safe from several threads: a value is built once,
        under the graph's lock, and every thread gets that one; a hit takes no lock. A value
        that must not be shared between threads is kept per thread inside the memo'd value
        (a ``threading.local``, as :meth:`frontier.FrontierPool.shared` does)."""
        value = self._memo.get(key)
        if value is None:
            with self._building:
                value = self._memo.get(key)
                if value is None:
                    value = build()
                    self._memo[key] = value
        return value

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its device copies, its memo (per-process, per-thread buffers), its
        transpose and its lock; the copy rebuilds them on use. A graph built from device arrays
        is pickled from its host copy (made then, if not before)."""
        self._host()
        state = self.__dict__.copy()
        state.update(_device={}, _memo={}, _transpose=None, _on_gpu=None)
        del state["_building"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._building = threading.RLock()

    def _on_device(self, target: Any, view: str, copy: Any) -> Any:
        """The ``view`` arrays on ``target``, copied once (whichever thread asks first) and
        complete on the device before any thread gets them: the copy is followed by a
        synchronization, so another thread's kernels, on another stream, read them whole."""
        key = (target.name, view)
        arrays = self._device.get(key)
        if arrays is None:
            with self._building:
                arrays = self._device.get(key)
                if arrays is None:
                    arrays = copy(self)
                    target.synchronize()
                    self._device[key] = arrays
        return arrays

    def __repr__(self) -> str:
        kind = "directed" if self._directed else "undirected"
        w = ", weighted" if self.weighted else ""
        return f"Graph({self.num_vertices} vertices, {self.num_edges} arcs, {kind}{w})"
