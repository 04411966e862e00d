"""Per-vertex segmented sort: each vertex's arcs ordered by a key a functor gives, on every
target (:func:`sort_neighbors`), and the engine :func:`operators.neighbor_reduce`'s ``"mode"``
and ``"histogram"`` run on (:mod:`operators.frequencies`).

A vertex's row is one segment: its out-arcs at positions ``row_offsets[v]`` to
``row_offsets[v + 1]`` of the CSR (``edges="out"``: the position is the arc id), or its in-arcs
at positions ``col_offsets[v]`` to ``col_offsets[v + 1]`` of the incoming-edge view,
``graph.csc()`` (``edges="in"``). Every row is sorted on its own, all in one launch, as
Gunrock sorts segments (Wang et al., *Gunrock: GPU Graph Analytics*, ACM TOPC 2017, with
ModernGPU's segmented sort: Baxter, *moderngpu*, "Segmented Sort and Locality Sort": tiles
sorted first, then merge passes that stop at the segments' ends). How a row is spread over
threads is Merrill et al.'s split of work by its size, as Busato & Bombieri, *Graph Algorithms
on GPUs*, §5.2.2 (CTA+Warp+Scan), describe it: a row longer than a threshold is taken by a whole
block.

* A row of at most :data:`ROW_THREAD_MOST` arcs: one thread gathers its keys and sorts them by
  insertion.
* A longer row: a block. Its threads gather the keys (a thread per arc), sort tiles of
  :data:`TILE` positions by insertion (a thread per tile), then merge pairs of sorted runs of
  ``TILE``, ``2 * TILE``, ... positions until one run is left, a block barrier after each
  pass. In a pass each thread writes a tile of the merged pairs at a time: a binary search on
  the merge path (Green, McColl & Bader, *GPU Merge Path*, ICS 2012, as ModernGPU merges)
  finds how many of the pair's outputs before the tile come from each run, then the tile is
  merged in order. No atomics; on the one-thread cpu target a pass is a plain sequential
  merge. The passes alternate between two buffers, starting from the one that leaves the
  sorted row in the first.

The order is a function of the keys alone: ascending and stable (equal keys keep the row's
order, ascending arc id, as both views hold their arcs); float keys order every NaN after every
number (NaNs equal to one another) and -0.0 equal to 0.0. So every target, block size and grid
gives the same order, and what is computed from it (a mode, a histogram) the same values. The
functor is called once per arc, a long row's calls on several threads at once: it must not
write what another call reads or writes (the race detector takes each call as its own work
item).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from frontier import validate
from frontier.frontier import Frontier
from frontier.graph import Graph
from frontier.runtime.device_arrays import is_device_array
from frontier.runtime.racecheck import WorkItems
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from operators.codegen import (
    NONE,
    GeneratedKernel,
    KernelSpec,
    arc_value,
    build,
    declare_work_items,
    for_each_input,
    indent,
)
from operators.common import (
    EDGE_SETS,
    OperatorError,
    Plan,
    launch_plan,
    thread_buffer,
    vector_flaw,
)
from operators.compute import elements, reads
from operators.convention import scalar_arguments
from operators.functors import Functor, as_functor
from operators.reduce import result_dtype
from operators.shape import per_element
from operators.tracing import hands_over

__all__ = ["sort_neighbors", "ROW_THREAD_MOST", "TILE", "RowWork", "sorted_rows_plan",
           "key_dtype", "before", "run_ends", "run_start", "array_home"]

#: A row of at most this many arcs is sorted by one thread; a longer one by a block.
ROW_THREAD_MOST = 32
#: Positions a thread of a long row's block sorts by insertion before the merge passes.
TILE = 32

#: The sort's buffers: each row position's key and arc id, twice (the merge passes alternate
#: between the two).
_BUFFERS = ("keys", "spare_keys", "ids", "spare_ids")


def _sort_items(spec: KernelSpec, name: str) -> WorkItems:
    """A neighbour sort's work items: one per arc (a long row's calls run on several threads
    of a block)."""
    return WorkItems(4, "arc {0}->{1} (eid {2})", (0, 1, 2))


declare_work_items("neighbor_sort", _sort_items)
#: The sort kernels, by everything they depend on (looked up once per call).
_KERNELS: SharedCache[GeneratedKernel] = SharedCache("segmented sort kernels")


@dataclass(frozen=True)
class RowWork:
    """What a kernel does with each vertex ``v``'s row once it is sorted: ``keys[lo:hi]`` (and
    ``ids[lo:hi]``, the arcs' ids, where ``ids``). ``by_thread``: the statements of the row's one
    thread; ``by_block``: those of each thread ``thread`` of the ``threads`` of the row's block
    (with the target's block barriers where they wait for each other, and one at the end where
    they share block memory); ``head``: statements opening the kernel (block memory);
    ``short``: what a row of at most :data:`ROW_THREAD_MOST` arcs runs instead of being
    gathered, sorted and given to ``by_thread`` (None: it is); ``params``: the call's buffers
    the text reads."""

    by_thread: str
    by_block: str
    params: tuple[str, ...]
    ids: bool = False
    head: str = ""
    short: str | None = None


def before(x: str, y: str, floats: bool) -> str:
    """Expression: key ``x`` goes before key ``y`` (floats: NaN after every number)."""
    if floats:
        return f"({x} < {y} or ({y} != {y} and {x} == {x}))"
    return f"{x} < {y}"


def run_ends(floats: bool) -> str:
    """Expression: position ``p`` of the sorted row ``keys[lo:hi]`` ends a run of equal keys."""
    return f"p + 1 == hi or {before('keys[p]', 'keys[p + 1]', floats)}"


def run_start(floats: bool) -> str:
    """Statements setting ``a`` to the first position of the sorted row ``keys[lo:p + 1]``
    whose key equals ``keys[p]`` (the start of ``p``'s run), by binary search."""
    return ("key = keys[p]\na = lo\nb = p\nwhile a < b:\n    m = (a + b) // 2\n"
            f"    if {before('keys[m]', 'key', floats)}:\n"
            "        a = m + 1\n    else:\n        b = m\n")


def _insertion(keys: str, ids: str | None, first: str, last: str, floats: bool) -> str:
    """Statements sorting ``keys[first:last]`` (and ``ids`` along) in place, stably."""
    take = f"item = {ids}[p]\n" if ids else ""
    move = f"{keys}[q] = {keys}[q - 1]\n" + (f"{ids}[q] = {ids}[q - 1]\n" if ids else "")
    put = f"{keys}[q] = key\n" + (f"{ids}[q] = item\n" if ids else "")
    return (f"for p in range({first} + 1, {last}):\n"
            + indent(f"key = {keys}[p]\n" + take + "q = p\n"
                     f"while q > {first} and {before('key', f'{keys}[q - 1]', floats)}:\n"
                     + indent(move + "q -= 1\n") + put))


def _gather(spec: KernelSpec, edges: str, keys: str, ids: str | None, first: str,
            stride: str) -> str:
    """Statements storing the key (and arc id) of every position of the row ``lo:hi`` that
    this thread takes (``first``, then every ``stride``-th)."""
    store = f"{keys}[p] = x\n" + (f"{ids}[p] = e\n" if ids else "")
    return f"for p in range({first}, hi, {stride}):\n" + indent(arc_value(spec, edges, "p")
                                                                  + store)


def _merge_pass(floats: bool, ids: bool) -> str:
    """Statements of one merge pass of a block: the row ``lo:hi`` in ``keys_from`` holds pairs
    of sorted runs of ``w`` positions; each thread takes :data:`TILE` positions of a merged
    pair at a time (a pair is a whole number of tiles) and writes them to ``keys_to``. A binary
    search along the merge path finds how many of the pair's first ``k`` outputs come from the
    left run (``a``: the smallest count whose next left element goes after the right element
    it faces), then the tile is merged in order, a left element first where two keys are
    equal, so the sort is stable."""
    faces = before("keys_from[mid + k - m - 1]", "keys_from[base + m]", floats)
    take = ("keys_to[at] = keys_from[{0}]\n"
            + ("ids_to[at] = ids_from[{0}]\n" if ids else "") + "{0} += 1\n")
    return (f"for s in range(lo + thread * {TILE}, hi, threads * {TILE}):\n"
            + indent("base = lo + (s - lo) // (2 * w) * (2 * w)\n"
                     "mid = min(base + w, hi)\nend = min(base + 2 * w, hi)\nk = s - base\n"
                     "a = max(0, k - (end - mid))\nb = min(k, mid - base)\n"
                     "while a < b:\n    m = (a + b) // 2\n"
                     f"    if {faces}:\n"
                     "        b = m\n    else:\n        a = m + 1\n"
                     "i = base + a\nj = mid + k - a\n"
                     f"for at in range(s, min(s + {TILE}, end)):\n"
                     + indent("if j >= end or (i < mid and not "
                              f"{before('keys_from[j]', 'keys_from[i]', floats)}):\n"
                              + indent(take.format("i")) + "else:\n"
                              + indent(take.format("j")))))


def _block_sort(spec: KernelSpec, edges: str, floats: bool, ids: bool, barrier: str) -> str:
    """Statements by which the threads of a block sort the row ``lo:hi`` into ``keys`` (and
    ``ids``): gathered, tiles sorted, merge passes (the module docstring)."""
    pick = ("keys_from = {0}keys\nkeys_to = {1}keys\n"
            + ("ids_from = {0}ids\nids_to = {1}ids\n" if ids else ""))
    swap = ("keys_from, keys_to = keys_to, keys_from\n"
            + ("ids_from, ids_to = ids_to, ids_from\n" if ids else ""))
    return (f"passes = 0\nw = {TILE}\nwhile w < hi - lo:\n    w *= 2\n    passes += 1\n"
            "if passes % 2 == 1:  # the last pass then writes keys\n"
            + indent(pick.format("spare_", "")) + "else:\n" + indent(pick.format("", "spare_"))
            + _gather(spec, edges, "keys_from", "ids_from" if ids else None, "lo + thread",
                      "threads")
            + barrier
            + f"for t in range(lo + thread * {TILE}, hi, threads * {TILE}):\n"
            + indent(f"tile_end = min(t + {TILE}, hi)\n"
                     + _insertion("keys_from", "ids_from" if ids else None, "t", "tile_end",
                                  floats))
            + barrier
            + f"w = {TILE}\nwhile w < hi - lo:\n"
            + indent(_merge_pass(floats, ids) + barrier + swap + "w *= 2\n"))


def _body(spec: KernelSpec, edges: str, floats: bool, work: RowWork, tgt: Target) -> str:
    """The kernel: every short row of the input's vertices by a thread, then every long one
    by a block (a row is one or the other, so the two loops touch different positions)."""
    ids = "ids" if work.ids else None
    offsets = "col_offsets" if edges == "in" else "row_offsets"
    row = "lo = offsets[v]\nhi = offsets[v + 1]\n"
    short = work.short
    if short is None:
        short = (_gather(spec, edges, "keys", ids, "lo", "1")
                 + _insertion("keys", ids, "lo", "hi", floats) + work.by_thread)
    barrier = tgt.block_barrier + "\n"
    long = _block_sort(spec, edges, floats, work.ids, barrier) + work.by_block
    return (tgt.block_prologue + f"offsets = {offsets}\n" + work.head
            + for_each_input(spec, "v", row + f"if hi - lo <= {ROW_THREAD_MOST}:\n"
                             + indent(short))
            + for_each_input(spec, "v", row + f"if hi - lo > {ROW_THREAD_MOST}:\n"
                             + indent(long), "iv", "block", "blocks"))


def key_dtype(functor: Functor, graph: Graph, state: tuple) -> np.dtype:
    """The dtype a sort holds ``functor``'s keys in: int64 (booleans and signed integers),
    uint64 or float64, from its return type."""
    return result_dtype(functor, graph, state, arcs=True)


def array_home(value: Any) -> str:
    """The target an array argument lives on: cuda for a device array, else cpu."""
    return "cuda" if is_device_array(value) else "cpu"


#: What a kernel does with sorted rows, given the target and the statements setting ``e`` and
#: ``x`` to the arc id and the functor's value at row position ``p``.
WorkOnRows = Callable[[Target, str], RowWork]


def sorted_rows_plan(graph: Graph, where: Frontier | str, functor: Functor, state: tuple,
                     edges: str, keys: np.dtype, name: str, work: WorkOnRows, home: str,
                     operator: str) -> tuple[Plan, Target, dict[str, Any]]:
    """The launch sorting the row of every vertex of ``where`` by ``functor``'s keys (held as
    ``keys``) and running ``work`` on each (``name``: its name, which tells the kernels apart:
    equal names, equal text); ``home``: the target the call's output arrays live on (a
    frontier must be on it too)."""
    tgt, kind, domain, io, count = elements(
        graph, where, None if isinstance(where, Frontier) else home, operator)
    if tgt.name != home:
        raise OperatorError(f"{operator}: the frontier is on the {tgt.name} target and the "
                            f"output on {home}; expected both on one target")
    floats = keys.kind == "f"

    def generate() -> GeneratedKernel:
        spec = KernelSpec("neighbor_sort", kind, NONE, graph.weighted, len(state),
                          domain=domain, graph_view=functor.wants_graph, csc=edges == "in",
                          variant=f"_{edges}_{name}{'_floats' if floats else ''}",
                          io=reads(kind))
        rows = work(tgt, arc_value(spec, edges, "p"))
        return build(tgt, per_element(tgt), spec, {"functor": functor},
                     lambda: _body(spec, edges, floats, rows, tgt), _BUFFERS + rows.params)

    kernel = _KERNELS.get((tgt.compile_key, kind, domain, graph.weighted, len(state), edges,
                           floats, name, functor), generate)
    buffers = {b: thread_buffer(f"neighbour sort {b}", tgt, graph.num_edges,
                                keys if b.endswith("keys") else np.int64)
               for b in _BUFFERS if b in kernel.params}
    plan = Plan([(kernel, kernel.shape.blocks(tgt, count))],
                {**buffers, **scalar_arguments({"functor": functor})})
    return plan, tgt, io


def _order_work(with_keys: bool) -> WorkOnRows:
    """The sort's own work on a sorted row: its arc ids into ``order`` (and its keys into
    ``sorted_keys``)."""
    copy = "order[p] = ids[p]\n" + ("sorted_keys[p] = keys[p]\n" if with_keys else "")
    params = ("order", "sorted_keys") if with_keys else ("order",)
    return lambda tgt, value: RowWork("for p in range(lo, hi):\n" + indent(copy),
                               "for p in range(lo + thread, hi, threads):\n" + indent(copy),
                               params, ids=True)


def _check_where(where: Any, operator: str) -> None:
    if isinstance(where, Frontier):
        if where.domain != "vertices":
            raise OperatorError(f"{operator} runs over vertices: pass a vertex frontier or "
                                "'vertices'")
    elif not (isinstance(where, str) and where == "vertices"):
        raise OperatorError(f"{operator} over {where!r:.80}; expected a vertex Frontier or "
                            "'vertices'")


def _check_arc_array(name: str, value: Any, graph: Graph, kinds: str, home: str | None) -> str:
    """The target ``value``, an array of one number per arc, lives on, after checking it."""
    got = vector_flaw(value, graph.num_edges, kinds)
    if got is not None:
        what = "integers" if kinds == "iu" else "numbers"
        raise OperatorError(f"sort_neighbors: {name}= must be a one-dimensional array of at "
                            f"least |E| = {graph.num_edges} {what} (a NumPy array for the cpu "
                            f"target, a device array for cuda); got {got}")
    where = array_home(value)
    if home is not None and where != home:
        raise OperatorError(f"sort_neighbors: {name}= is on the {where} target and out= on "
                            f"{home}; expected both on one target")
    return where


@hands_over
def sort_neighbors(graph: Graph, where: Frontier | str, fn: Callable, *state: Any, out: Any,
                   edges: str = "out", keys: Any = None) -> None:
    """Sort the arcs of every vertex ``v`` of ``where`` (a vertex Frontier or ``"vertices"``)
    by the key ``fn(src, dst, eid, weight, *state)``: ascending, stable (equal keys keep
    ascending arc id order), float keys with NaNs last. ``edges="out"`` sorts the arcs leaving
    ``v``: ``out[p]`` for ``p`` from ``graph.row_offsets[v]`` to ``graph.row_offsets[v + 1]``
    receives their arc ids in key order; ``edges="in"`` sorts the arcs entering ``v``, at
    positions ``graph.csc().col_offsets[v]`` to ``col_offsets[v + 1]``. ``out`` is an integer
    array of at least |E| entries on the target (a NumPy array runs on the cpu target, a
    device array on cuda) whose dtype holds every arc id; ``keys``, if given, an array of at
    least |E| numbers there, receives the keys in the same order. ``fn`` returns a number or
    a boolean, and is called once per arc, on several threads at once for a long row: it must
    not write what another call reads or writes. Other entries of ``out`` and ``keys`` are
    not touched. On a GPU a row of at most 32 arcs is sorted by one thread, a longer one by a
    block of threads (tiles, then merge passes: :mod:`operators.segmented_sort`). A frontier
    stays valid: this is not a step of its pool."""
    if not isinstance(edges, str) or edges not in EDGE_SETS:
        raise OperatorError(f"sort_neighbors: edges={edges!r}; expected one of {EDGE_SETS}")
    _check_where(where, "sort_neighbors")
    validate.graph(graph)
    home = _check_arc_array("out", out, graph, "iu", None)
    if graph.num_edges and np.iinfo(out.dtype).max < graph.num_edges - 1:
        raise OperatorError(f"sort_neighbors: out= has dtype {out.dtype}, which cannot hold "
                            f"arc ids up to {graph.num_edges - 1}; expected a wider integer "
                            "dtype (int64)")
    if keys is not None:
        _check_arc_array("keys", keys, graph, "biuf", home)
    functor = as_functor(fn, "sort key function", ("src", "dst", "eid", "weight"), len(state))
    plan, tgt, io = sorted_rows_plan(graph, where, functor, state, edges,
                                     key_dtype(functor, graph, state),
                                     "order_keys" if keys is not None else "order",
                                     _order_work(keys is not None), home, "sort_neighbors")
    plan.buffers["order"] = out
    if keys is not None:
        plan.buffers["sorted_keys"] = keys
    launch_plan(plan, graph, tgt, io, state)
