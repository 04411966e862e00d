"""neighbor_reduce: for every vertex of a frontier (or every vertex), combine a function of its
in- or out-edges into one value per vertex, without atomics; or take their most frequent value,
or count them (``op="mode"``, ``op="histogram"``: :mod:`operators.frequencies`).

This is the pull half of Ligra's ``edgeMap`` (Shun & Blelloch, PPoPP 2013) as a reduction, the
gather of Gunrock's and PowerGraph's gather-apply-scatter: pull PageRank sums ``rank[src] /
out_degree(src)`` over in-edges, k-core counts live neighbours, label propagation takes the
minimum label over neighbours. One thread owns each vertex and folds its edges in order, so the
result is written once per vertex and needs no atomics (and a float sum is deterministic); where
the order cannot show (the ors, integer minima, maxima and sums), a hub's edges are folded apart
over the warps' lanes instead, in one launch with grid barriers (:mod:`operators.folds`).

Over :class:`operators.levels.Levels` the fold runs level after level in one launch: the
vertices grouped by level on the target (counting each level's vertices, a prefix sum of the
counts by one thread, each vertex placed at its level's next free slot), then every level's
vertices folded in turn, a grid barrier after each (a block barrier where the launch is one
block; Brandes' backward sweep, :mod:`algorithms.betweenness`). With a float64 ``out`` and a
sum, min or max, a level's hubs are folded in chunks over the warps' lanes
(:mod:`operators.lanes`), every target computing the same sums. Under the race detector the
grouping is made on the host and each level is its own launch of one block (the detector's
step).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from frontier import validate
from frontier.frontier import Frontier
from frontier.graph import VERTEX_DTYPE, Graph
from frontier.options import Mode
from frontier.runtime import racecheck
from frontier.runtime.racecheck import WorkItems
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators.codegen import (
    NONE,
    RANGE,
    GeneratedKernel,
    KernelIO,
    KernelSpec,
    arc_value,
    barrier,
    build,
    declare_work_items,
    fold_items,
    for_each_input,
    id_at,
    indent,
    one_block,
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
from operators.convention import kernel_arguments, scalar_arguments
from operators.folds import (
    MARKS,
    HubFold,
    fold_body,
    fresh_marks,
    hub_arguments,
    hub_fold,
    hub_params,
    hub_text,
)
from operators.frequencies import NEIGHBOR_COUNTS, counts_plan
from operators.functors import Functor, as_functor
from operators.lanes import CHUNK, HUB_DEGREE, LANES, Hubs, hubs_of, over_lanes
from operators.levels import Levels
from operators.reduce import FOLDS, combine, identity_of, op_named
from operators.shape import grid_blocks, per_element
from operators.tracing import hands_over

__all__ = ["neighbor_reduce", "NEIGHBOR_REDUCTIONS", "EDGE_SETS"]

#: The neighbour-reduction kernels, by everything they depend on (looked up once per call).
_KERNELS: SharedCache[GeneratedKernel] = SharedCache("neighbour reduction kernels")
#: The folds ``op=`` takes (:data:`operators.reduce.FOLDS`; the former ``"or"`` is
#: ``"logical_or"``).
NEIGHBOR_REDUCTIONS = ("sum", "min", "max", "logical_or", "bit_or")
#: The folds over Levels whose hubs are folded apart, in chunks over lanes (float64 ``out``).
HUB_FOLDS = ("sum", "min", "max")


def _fold_items(spec: KernelSpec, name: str) -> WorkItems:
    """A neighbour reduction's work items: a vertex's fold (the calls of one thread's
    sequential loop over its edges), the vertex the head of its in-edges or the tail of its
    out-edges; where its hubs are folded apart (a ``_hubs`` variant: :mod:`operators.folds`, a
    Levels sweep's hub folds) an arc each, as a hub's calls run on several threads."""
    if "_hubs" in spec.variant:
        return WorkItems(4, "arc {0}->{1} (eid {2})", (0, 1, 2))
    return fold_items(1 if spec.csc else 0)


declare_work_items("neighbors", _fold_items)


def _check_edges(edges: str) -> None:
    if edges not in EDGE_SETS:
        raise OperatorError(f"edges={edges!r}; expected one of {EDGE_SETS}")


def check_out_dtype(op: str, out: Any) -> None:
    if out.dtype.kind not in FOLDS[op].kinds:
        raise OperatorError(f"neighbor_reduce: op={op!r} folds integers or booleans; out= has "
                            f"dtype {out.dtype}")


def neighbor_plan(graph: Graph, where: Frontier | str, fn: Callable, state: tuple, op: str,
                  edges: str, out: Any) -> tuple[Plan, Any, dict[str, Any]]:
    op = op_named(op, NEIGHBOR_REDUCTIONS + NEIGHBOR_COUNTS,  # warns the caller's caller
                  "neighbor_reduce")
    _check_edges(edges)
    if isinstance(where, Frontier) and where.domain != "vertices":
        raise OperatorError("neighbor_reduce runs over vertices: pass a vertex frontier or "
                            "'vertices'")
    if not isinstance(where, Frontier) and not (isinstance(where, str) and where == "vertices"):
        raise OperatorError(f"neighbor_reduce over {where!r:.80}; expected a vertex Frontier, "
                            "'vertices' or Levels")
    validate.graph(graph)
    if op in NEIGHBOR_COUNTS:
        return counts_plan(graph, where, fn, state, op, edges, out)
    home = target_of(out, graph.num_vertices)
    check_out_dtype(op, out)
    num_state = len(state)
    tgt, kind, domain, io, work = elements(
        graph, where, None if isinstance(where, Frontier) else home, "neighbor_reduce")
    functor = as_functor(fn, "neighbour function", ("src", "dst", "eid", "weight"), num_state)
    buffers = {"out": out, "identity": identity_of(op, out.dtype),
               **scalar_arguments({"functor": functor})}
    fold = hub_fold(graph, tgt, functor, state, op, edges, out.dtype)
    if fold is not None:
        return _hub_plan(graph, where, tgt, kind, domain, work, functor, num_state, op, edges,
                         fold, buffers), tgt, io
    key = (tgt.compile_key, kind, domain, graph.weighted, num_state, edges, op, functor)
    kernel = _KERNELS.find(key) or _KERNELS.get(key, partial(_generated, tgt, *key[1:]))
    return Plan([(kernel, kernel.shape.blocks(tgt, work))], buffers), tgt, io


def _generated(tgt: Target, kind: str, domain: str, weighted: bool, num_state: int, edges: str,
               op: str, functor: Functor) -> GeneratedKernel:
    """The kernel of :func:`neighbor_plan` (made once per key; a module function, so that a
    call that finds it makes no closure)."""
    spec = KernelSpec("neighbors", kind, NONE, weighted, num_state, domain=domain,
                      graph_view=functor.wants_graph, csc=edges == "in",
                      variant=f"_{edges}_{op}", io=reads(kind))
    return build(tgt, per_element(tgt), spec, {"functor": functor},
                 lambda: for_each_input(spec, "v", fold_body(spec, edges, op)),
                 ("out", "identity"))


def _hub_plan(graph: Graph, where: Frontier | str, tgt: Target, kind: str, domain: str,
              work: int, functor: Functor, num_state: int, op: str, edges: str, fold: HubFold,
              buffers: dict[str, Any]) -> Plan:
    """A fold whose hubs are folded apart (:mod:`operators.folds`): one launch, its parts
    separated by grid barriers (block barriers where it is one block), on enough blocks for
    every input vertex and every hub chunk's lanes; a frontier's hubs marked with a fresh
    stamp of the calling thread's marks."""
    marked = kind != RANGE
    shape = per_element(tgt)
    blocks = grid_blocks(tgt, shape.threads_per_block,
                         max(work, LANES * fold.hubs.chunk_count))
    block = one_block(tgt, blocks)
    weighted = graph.weighted

    def generate() -> GeneratedKernel:
        spec = KernelSpec("neighbors", kind, NONE, weighted, num_state, domain=domain,
                          graph_view=functor.wants_graph, csc=edges == "in",
                          variant=f"_{edges}_{op}_hubs{'_block' if block else ''}",
                          io=reads(kind))
        return build(tgt, shape, spec, {"functor": functor},
                     lambda: hub_text(spec, edges, op, tgt.runs_balancers,
                                      barrier(tgt, block), marked),
                     ("out", "identity", *hub_params(), *(MARKS if marked else ())))

    kernel = _KERNELS.get((tgt.compile_key, kind, domain, weighted, num_state, edges, op,
                           functor, "hubs", block), generate)
    buffers.update(hub_arguments(fold, tgt, op, buffers["out"].dtype))
    if marked:
        buffers.update(zip(MARKS, fresh_marks(tgt, graph.num_vertices), strict=True))
    return Plan([(kernel, blocks)], buffers, cooperative=True)


def target_of(out: Any, num_vertices: int) -> str:
    """The target ``out`` lives on (a NumPy array: cpu; a device array: cuda), after checking
    that it is a one-dimensional array of at least ``num_vertices`` numbers."""
    got = vector_flaw(out, num_vertices, "biuf")
    if got is not None:
        raise OperatorError(f"neighbor_reduce: out= must be a one-dimensional array of at least "
                            f"|V| = {num_vertices} numbers (a NumPy array for the cpu target, a "
                            f"device array for cuda); got {got}")
    return "cpu" if isinstance(out, np.ndarray) else "cuda"


@hands_over
def neighbor_reduce(graph: Graph, where: Frontier | str | Levels, fn: Callable, *state: Any,
                    out: Any, op: str = "sum", edges: str = "in") -> None:
    """For every vertex ``v`` of ``where`` (a vertex Frontier, ``"vertices"``, or
    :class:`operators.levels.Levels`: the vertices of a range of levels, level after level,
    each level seeing what the levels before it wrote, in one launch) set ``out[v]``
    to ``op`` of ``fn(src, dst, eid, weight, *state)`` over the edges entering ``v``
    (``edges="in"``: ``dst`` is ``v``, through the incoming-edge view) or leaving it
    (``edges="out"``: ``src`` is ``v``). ``op`` is ``"sum"``, ``"min"``, ``"max"``,
    ``"logical_or"`` (1, or True, when any value is true) or ``"bit_or"`` (the values' bits
    or-ed; integer or boolean ``out`` only); the former ``"or"`` still means ``"logical_or"``,
    with a DeprecationWarning. A vertex without such edges gets the identity (0, +inf / the
    dtype's maximum for min, -inf / its minimum for max, 0 for the ors). ``out`` is an array of
    at least |V| elements on the target (a NumPy array runs on the cpu target, a device array
    on cuda); its dtype is the accumulator's. Other entries of ``out`` are not touched. A
    frontier stays valid: this is not a step of its pool.

    One thread folds each vertex's edges in order; a ``logical_or`` stops at the first true
    value (``fn`` is not called on the rest). Where the order cannot show (the ors; ``min``,
    ``max`` or ``sum`` of integer or boolean values into an integer or boolean ``out``), a
    vertex of more than :data:`operators.lanes.HUB_DEGREE` edges is folded apart, its calls on
    several threads at once (:mod:`operators.folds`), with the same values on every target. So
    ``fn`` must not write what another call reads or writes.

    ``op="mode"`` sets ``out[v]`` to the most frequent value of ``fn`` over ``v``'s edges, the
    smallest of the most frequent where several tie; a vertex without such edges keeps
    ``out[v]``. ``op="histogram"`` takes a two-dimensional ``out`` of at least |V| rows and
    sets ``out[v, b]`` to the number of ``v``'s edges whose value is ``b``, for ``b`` from 0 to
    ``out.shape[1] - 1`` (other values are not counted). Both take ``fn`` returning integers or
    booleans (a float is refused), an integer ``out``, a vertex Frontier or ``"vertices"``
    (not Levels), and call ``fn`` once per edge, a long row's calls on several threads at once:
    ``fn`` must not write what another call reads or writes. They count from each vertex's
    edges sorted by value (:mod:`operators.frequencies`), the same on every target."""
    if isinstance(where, Levels):
        _by_levels(graph, where, fn, state, op, edges, out)
        return
    plan, tgt, io = neighbor_plan(graph, where, fn, state, op, edges, out)
    launch_plan(plan, graph, tgt, io, state)


# over Levels ----------------------------------------------------------------------------------
def _grouping(barrier: str, hubbed: bool) -> str:
    """Statements placing every vertex whose level is in the range into ``order``, grouped by
    sweep index ``k`` (0 for ``first``): level ``k``'s vertices at ``order[starts[k]:starts[k +
    1]]`` (``starts[F + k]`` is level ``k``'s next free slot while they are placed). With
    ``hubbed``, ``starts[H + k]`` counts level ``k``'s hubs."""
    inside = ("k = (int64(level[v]) - first) * step\n"
              "if k >= 0 and k < nlev:\n")
    count = "    atomic_add(starts, k + 1, 1)\n"
    if hubbed:
        count += ("    if offsets[v + 1] - offsets[v] > HUB_DEGREE:\n"
                  "        atomic_add(starts, H + k, 1)\n")
    return ("for i in range(tid, SIZE, nthreads):\n"
            "    starts[i] = 0\n"
            + barrier
            + "for v in range(tid, num_vertices, nthreads):\n"
            + indent(inside + count)
            + barrier
            + "if tid == 0:\n"
              "    for k in range(nlev):\n"
              "        starts[F + k] = starts[k]\n"
              "        starts[k + 1] += starts[k]\n"
            + barrier
            + "for v in range(tid, num_vertices, nthreads):\n"
            + indent(inside + "    order[atomic_add(starts, F + k, 1)] = v\n")
            + barrier)


def _level_fold(spec: KernelSpec, edges: str, op: str, hubbed: bool, stride: str = "nthreads",
                first: str = "tid") -> str:
    """Statements folding the vertices of sweep level ``k``, a thread per vertex (thread
    ``first`` of ``stride`` threads); with ``hubbed``, all but its hubs."""
    body = fold_body(spec, edges, op)
    if hubbed:
        body = "if offsets[v + 1] - offsets[v] <= HUB_DEGREE:\n" + indent(body)
    return (f"for i in range(starts[k] + {first}, starts[k + 1], {stride}):\n"
            + indent(f"v = {id_at('order', 'i')}\n" + body))


def _hub_folds(spec: KernelSpec, edges: str, op: str, barrier: str,
               runs_balancers: bool) -> str:
    """Statements folding level ``k``'s hubs as :func:`operators.iterate.iterate`'s Gather
    folds hubs (:mod:`operators.lanes`: the same sums on every target): every chunk of
    :data:`CHUNK` edges of the graph's hubs (:func:`operators.lanes.hubs_of`) whose hub is on
    level ``k`` folded over a warp's lanes into ``partials``, ``barrier``, then each such hub's
    chunks' values over a warp's lanes into ``out``."""
    on_level = "if (int64(level[v]) - first) * step == k:\n"
    edge = arc_value(spec, edges, "q") + combine(op, "acc", "x")
    chunk = over_lanes(op, "identity", "for q in range(lo_e + lane, hi_e, LANES):\n", edge,
                       runs_balancers, "partials[c] = acc\n")
    hub = over_lanes(op, "identity", "for c in range(hub_chunks[h] + lane, hub_chunks[h + 1], "
                     "LANES):\n", "x = partials[c]\n" + combine(op, "acc", "x"),
                     runs_balancers, "out[v] = acc\n")
    return ("if nh > 0:\n"
            + indent("for c in range(warp, chunk_count, warps):\n"
                     + indent("v = chunk_vertex[c]\n" + on_level
                              + indent("lo_e = chunk_first[c]\n"
                                       "hi_e = min(lo_e + CHUNK, offsets[v + 1])\n" + chunk))
                     + barrier
                     + "for h in range(warp, hub_count, warps):\n"
                     + indent("v = hubs[h]\n" + on_level + indent(hub))))


def _sweep(spec: KernelSpec, edges: str, op: str, grid_barrier: str, block_barrier: str,
           hubbed: bool, hubs: str) -> str:
    """Statements folding every level in turn. A level of at most a block's threads and no
    hubs is folded by block 0 alone, a block barrier after it (a road network's thousands of
    thin levels then cost a block barrier each, not a grid barrier: as the small-frontier mode
    of :mod:`operators.small_frontier`); another level by the whole grid (its hubs by
    ``hubs``), a grid barrier after it and, where the level before was block 0's, one before
    it."""
    return ("for k in range(nlev):\n"
            "    nh = starts[H + k]\n"
            "    if starts[k + 1] - starts[k] <= threads and nh == 0:\n"
            "        if block == 0:\n"
            + indent(_level_fold(spec, edges, op, hubbed, "threads", "thread") + block_barrier,
                     3)
            + "    else:\n"
              "        if k > 0 and starts[k] - starts[k - 1] <= threads and "
              "starts[H + k - 1] == 0:\n"
            + indent(grid_barrier, 3)
            + indent(_level_fold(spec, edges, op, hubbed) + hubs + grid_barrier, 2))


_LEVEL_PARAMS = ("level", "first", "step", "nlev", "order", "starts", "at", "out", "identity",
                 *Hubs._fields, "partials")


#: The level sweeps' kernels by everything their text depends on (:func:`_level_kernel`).
_LEVEL_KERNELS: SharedCache[GeneratedKernel] = SharedCache("level sweep kernels")


def _level_kernel(graph: Graph, tgt: Target, functor: Functor, num_state: int, op: str,
                  edges: str, barrier: str | None, hubbed: bool) -> GeneratedKernel:
    """The kernel grouping the vertices and folding every level, ``barrier`` between its
    steps; or (``barrier`` None) the kernel folding sweep level ``at`` alone, in one block.
    ``hubbed``: the levels' hubs are folded apart (:func:`_hub_folds`). Kept per target
    compile mode, the graph's weights and the arguments: a repeated sweep builds no spec."""
    key = (tgt.compile_key, graph.weighted, functor, num_state, op, edges, barrier, hubbed)
    return _LEVEL_KERNELS.get(key, lambda: _level_built(graph, tgt, functor, num_state, op,
                                                        edges, barrier, hubbed))


def _level_built(graph: Graph, tgt: Target, functor: Functor, num_state: int, op: str,
                 edges: str, barrier: str | None, hubbed: bool) -> GeneratedKernel:
    alone = "_one" if barrier is None else ("" if barrier == tgt.grid_barrier else "_block")
    spec = KernelSpec("neighbors", RANGE, NONE, graph.weighted, num_state,
                      graph_view=functor.wants_graph, csc=edges == "in",
                      variant=f"_levels{alone}_{edges}_{op}{'_hubs' if hubbed else ''}",
                      io=KernelIO.RANGE)

    def body() -> str:
        offsets = "col_offsets" if edges == "in" else "row_offsets"
        head = (f"F = nlev + 1\nH = 2 * nlev + 1\nSIZE = 3 * nlev + 2\n"
                f"offsets = {offsets}\nHUB_DEGREE = {HUB_DEGREE}\nCHUNK = {CHUNK}\n"
                f"LANES = {LANES}\n")
        if tgt.runs_balancers:
            head += (f"lane = cuda.threadIdx.x & {LANES - 1}\nwarp = tid // {LANES}\n"
                     f"warps = nthreads // {LANES}\n")
        else:
            head += f"warp = tid\nwarps = nthreads\nlanes = np.empty({LANES}, np.float64)\n"
        own = barrier if barrier is not None else tgt.block_barrier
        hubs = _hub_folds(spec, edges, op, own + "\n", tgt.runs_balancers) if hubbed else ""
        if barrier is None:
            return (head + "k = at\nnh = starts[H + k]\n"
                    + _level_fold(spec, edges, op, hubbed) + hubs)
        return (head + tgt.block_prologue + _grouping(barrier + "\n", hubbed)
                + _sweep(spec, edges, op, barrier + "\n", tgt.block_barrier + "\n", hubbed,
                         hubs))

    return build(tgt, per_element(tgt), spec, {"functor": functor}, body, _LEVEL_PARAMS,
                 name=f"neighbors{spec.variant}__{functor.name}")


def _by_levels(graph: Graph, levels: Levels, fn: Callable, state: tuple, op: str, edges: str,
               out: Any) -> None:
    """:func:`neighbor_reduce` over ``levels`` (see the module docstring)."""
    if isinstance(op, str) and op in NEIGHBOR_COUNTS:
        raise OperatorError(f"neighbor_reduce(op={op!r}) runs over a vertex Frontier or "
                            "'vertices', not over Levels; expected one of "
                            f"{NEIGHBOR_REDUCTIONS} over Levels")
    op = op_named(op, NEIGHBOR_REDUCTIONS, "neighbor_reduce")  # warns the caller's caller
    _check_edges(edges)
    validate.graph(graph)
    n = graph.num_vertices
    home = target_of(out, n)
    check_out_dtype(op, out)
    levels = levels.checked(graph, home != "cpu")
    functor = as_functor(fn, "neighbour function", ("src", "dst", "eid", "weight"), len(state))
    tgt = resolve_target(home, graph)
    if n == 0:
        return
    nlev = levels.count
    io = {"level": levels.level, "first": levels.first, "step": levels.step, "nlev": nlev,
          "out": out, "identity": identity_of(op, out.dtype), "at": 0,
          **scalar_arguments({"functor": functor})}
    hubbed = False
    if out.dtype == np.float64 and op in HUB_FOLDS:
        hubs = hubs_of(graph, edges, tgt)
        hubbed = hubs.hub_count > 0
        if hubbed:
            io.update(hubs._asdict(), partials=thread_buffer("level hub partials", tgt,
                                                              hubs.chunk_count, np.float64))
    if racecheck.checking():
        _level_by_level(graph, tgt, levels, functor, state, op, edges, io, hubbed)
        return
    io["order"] = thread_buffer("level order", tgt, n, VERTEX_DTYPE)
    io["starts"] = thread_buffer("level starts", tgt, 3 * nlev + 2, np.int64)
    threads = per_element(tgt).threads_per_block
    grid = min(tgt.persistent_blocks(threads), grid_blocks(tgt, threads, n))
    kernel = _level_kernel(graph, tgt, functor, len(state), op, edges,
                           tgt.block_barrier if one_block(tgt, grid) else tgt.grid_barrier,
                           hubbed)
    kernel.launch(tgt, grid, kernel_arguments(kernel.params, graph, tgt, io, state),
                  cooperative=grid > 1, mode=Mode.FUSED)


def _level_by_level(graph: Graph, tgt: Target, levels: Levels, functor: Functor,
                    state: tuple, op: str, edges: str, io: dict[str, Any],
                    hubbed: bool) -> None:
    """The race detector's sweep: the vertices grouped by level on the host, then a launch of
    one block per level (a launch is the detector's step; levels of one launch would race)."""
    n, nlev = graph.num_vertices, levels.count
    k = (tgt.to_host(levels.level)[:n].astype(np.int64) - levels.first) * levels.step
    inside = np.flatnonzero((k >= 0) & (k < nlev))
    degrees = graph.in_degrees() if edges == "in" else graph.out_degrees()
    hub = (degrees[inside] > HUB_DEGREE) if hubbed else np.zeros(inside.size, bool)
    order = inside[np.argsort(k[inside], kind="stable")].astype(VERTEX_DTYPE)
    starts = np.zeros(3 * nlev + 2, np.int64)
    np.cumsum(np.bincount(k[inside], minlength=nlev), out=starts[1:nlev + 1])
    starts[2 * nlev + 1:3 * nlev + 1] = np.bincount(k[inside][hub], minlength=nlev)
    io.update(order=tgt.to_device(order), starts=tgt.to_device(starts))
    kernel = _level_kernel(graph, tgt, functor, len(state), op, edges, None, hubbed)
    for at in range(nlev):
        io["at"] = at
        if starts[at + 1] > starts[at]:
            kernel.launch(tgt, 1, kernel_arguments(kernel.params, graph, tgt, io, state))
