"""iterate: a loop of per-vertex phases run to convergence inside one persistent kernel.

Power iterations (PageRank, label propagation by sums, Jacobi sweeps) repeat the same few
operator calls over every vertex until a reduced value (an L1 change) drops below a bound.
Called from the host, each iteration costs a launch per phase and a device read for the test.
:func:`iterate` runs every iteration in one cooperative launch instead: the phases of an
iteration are separated by grid barriers (Busato & Bombieri, *Graph Algorithms on GPUs*,
inter-block synchronization; as :func:`operators.traverse` fuses its steps), the stop test runs
on the device, and the host reads one small buffer when the loop ends. The launch has no more
blocks than give each vertex (and each hub chunk's lanes) a thread; a loop that fits one block
waits at block barriers instead (a cheaper barrier for a small graph). On the cpu target the
same text compiles to one sequential loop.

The phases (each over ``range(|V|)``):

* :class:`Each`: ``fn(v, *state, totals)`` for every vertex (``compute``);
* :class:`Gather`: ``state[into][v] = op`` of ``fn(src, dst, eid, weight, *state, totals)``
  over the edges entering (``edges="in"``) or leaving ``v`` (``neighbor_reduce``: one thread
  per vertex, folding its edges in order, no atomics; a hub of more than :data:`HUB_DEGREE`
  edges in chunks spread over the grid's warps, then its chunks' values, each over
  :data:`LANES` lanes and a fixed tree, the same on every target);
* :class:`Total`: the float64 sum of ``fn(v, *state, totals)`` over the vertices (``reduce``),
  published as ``totals[k]`` for the phases after it in the same iteration, ``k`` its rank
  among the call's Total phases.

Every functor receives, after the state, ``totals``: a float64 array of this iteration's
totals (entry ``k`` is valid once Total phase ``k`` has run). The loop stops after the first
iteration whose last total is below ``stop_below``, or after ``max_iter`` iterations.

Each per-vertex computation is the one its host operator makes, in the same order (on the cpu
target a Total starts from 0.0 and adds the elements in order, as :func:`operators.reduce`
does; on several threads they write the values and thread 0 adds them in that order, so it
is the same whatever their number), so a loop of operator calls rewritten as one
:func:`iterate` gives the same numbers there on a graph without hubs. The totals live in
three rotating rows, one per iteration (thread 0 clears the next iteration's row while the
phases of this one run, so no extra barrier is needed). Under the race detector every phase is
its own launch (a launch is the detector's step).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from frontier import validate
from frontier.graph import Graph
from frontier.options import Mode
from frontier.runtime import racecheck
from frontier.runtime.racecheck import WorkItems
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators.codegen import (
    RANGE,
    GeneratedKernel,
    KernelIO,
    KernelSpec,
    barrier,
    build,
    declare_work_items,
    fold_items,
    id_at,
    indent,
    one_block,
)
from operators.common import EDGE_SETS, OperatorError, thread_buffer
from operators.convention import kernel_arguments, scalar_arguments
from operators.functors import Functor, as_functor
from operators.lanes import CHUNK, HUB_DEGREE, LANES, TREE, Hubs, hubs_of, over_lanes
from operators.reduce import combine, identity_of
from operators.shape import grid_blocks, per_element
from operators.tracing import hands_over

__all__ = ["iterate", "Each", "Gather", "Total", "Iterated"]

#: The folds a :class:`Gather` takes (over float64 values).
GATHER_FOLDS = ("sum", "min", "max")


@dataclass(frozen=True)
class Each:
    """A phase calling ``fn(v, *state, totals)`` for every vertex."""

    fn: Callable


@dataclass(frozen=True)
class Gather:
    """A phase setting ``state[into][v]`` (a float64 array) to ``op`` (sum, min or max) of
    ``fn(src, dst, eid, weight, *state, totals)`` over the edges entering ``v``
    (``edges="in"``) or leaving it (``"out"``)."""

    fn: Callable
    into: int
    op: str = "sum"
    edges: str = "in"


@dataclass(frozen=True)
class Total:
    """A phase summing ``fn(v, *state, totals)`` (a float) over the vertices into the
    iteration's next total."""

    fn: Callable


Phase = Each | Gather | Total


class Iterated(NamedTuple):
    """What an :func:`iterate` loop ran: its iterations, the totals of the last one, and the
    last total of every iteration (``history[i]``: iteration ``i + 1``'s)."""

    iterations: int
    totals: tuple[float, ...]
    history: np.ndarray


def _role(phase: Phase, i: int) -> str:
    """The name kernels call phase ``i``'s functor by (the race detector reads its kind from
    it: :func:`_items`)."""
    if isinstance(phase, Gather):
        return f"gather_{phase.edges}{i}"
    return f"{'each' if isinstance(phase, Each) else 'total'}{i}"


def _items(spec: KernelSpec, name: str) -> WorkItems:
    """An iterate kernel's work items, by the kind of the functor's phase (its name,
    :func:`_role`): a Gather's, a vertex's fold over its edges (the head of its in-edges or the
    tail of its out-edges); an Each's or a Total's, one per vertex."""
    if name.startswith("gather_"):
        return fold_items(1 if name.startswith("gather_in") else 0)
    return WorkItems(1, "vertex {0}", (0,))


declare_work_items("iterate", _items)


def _check(graph: Graph, phases: Any, state: tuple) -> tuple[Phase, ...]:
    """The phases, checked: a non-empty sequence of Each, Gather and Total holding at least
    one Total, each Gather writing a float64 state array of at least |V| entries."""
    validate.graph(graph)
    if isinstance(phases, (str, bytes)) or not isinstance(phases, Sequence) or not phases:
        raise OperatorError(f"iterate: phases={phases!r:.80}; expected a non-empty sequence of "
                            "Each, Gather and Total")
    for i, phase in enumerate(phases):
        if not isinstance(phase, (Each, Gather, Total)):
            raise OperatorError(f"iterate: phase {i} is {phase!r:.80}; expected Each, Gather or "
                                "Total")
        if isinstance(phase, Gather):
            _check_gather(graph, phase, i, state)
    if not any(isinstance(p, Total) for p in phases):
        raise OperatorError("iterate: no Total phase; the stop test reads the last Total")
    return tuple(phases)


def _check_gather(graph: Graph, phase: Gather, i: int, state: tuple) -> None:
    if phase.op not in GATHER_FOLDS:
        raise OperatorError(f"iterate: phase {i} folds with op={phase.op!r}; expected one of "
                            f"{GATHER_FOLDS}")
    if phase.edges not in EDGE_SETS:
        raise OperatorError(f"iterate: phase {i} has edges={phase.edges!r}; expected one of "
                            f"{EDGE_SETS}")
    into = phase.into
    if not isinstance(into, int) or isinstance(into, bool) or not 0 <= into < len(state):
        raise OperatorError(f"iterate: phase {i} gathers into state[{into!r}]; expected the "
                            f"index of a state argument (0..{len(state) - 1})")
    out = state[into]
    if (getattr(out, "dtype", None) != np.float64 or getattr(out, "ndim", 0) != 1
            or out.shape[0] < graph.num_vertices):
        raise OperatorError(f"iterate: phase {i} gathers into state[{into}], which must be a "
                            f"float64 array of at least |V| = {graph.num_vertices} entries")


def _call(spec: KernelSpec, name: str, args: str) -> str:
    """Expression calling functor ``name`` with ``args``, the state, the totals and the graph
    view."""
    return f"{name}({args}{spec.state}, totals{', graph' if spec.graph_view else ''})"


def _edge_fold(spec: KernelSpec, name: str, phase: Gather) -> str:
    """Statements folding edge ``k`` of vertex ``v`` (its functor value ``x``) into ``acc``."""
    weight = spec.weight_of("e")
    if phase.edges == "in":
        tail = id_at("row_indices", "k")
        edge = f"e = edge_ids[k]\nx = {_call(spec, name, f'{tail}, v, e, {weight}')}\n"
    else:
        head = id_at("col_indices", "k")
        edge = f"e = k\nx = {_call(spec, name, f'v, {head}, e, {weight}')}\n"
    return edge + combine(phase.op, "acc", "x")


def _gather(spec: KernelSpec, name: str, phase: Gather, i: int, runs_balancers: bool,
            hubbed: bool) -> tuple[str, ...]:
    """The steps of a Gather. On a graph without hubs in its direction, one: every vertex
    folded in order by one thread (as neighbor_reduce). With hubs (``hubbed``), two, a grid
    barrier between them: every vertex of at most :data:`HUB_DEGREE` edges folded so, and each
    chunk of :data:`CHUNK` edges of a hub (listed in ``chunk_vertex{i}`` and ``chunk_first{i}``)
    folded over the lanes into ``partials{i}``; then each hub's chunks' values
    (``hub_chunks{i}``) folded over the lanes into ``state[into]``."""
    offsets = "col_offsets" if phase.edges == "in" else "row_offsets"
    fold = _edge_fold(spec, name, phase)
    each = (f"acc = identity{i}\n"
            "for k in range(first, last):\n"
            + indent(fold)
            + f"s{phase.into}[v] = acc\n")
    light = ("for v in range(tid, count, nthreads):\n"
             f"    first = {offsets}[v]\n"
             f"    last = {offsets}[v + 1]\n"
             + (f"    if last - first <= {HUB_DEGREE}:\n" + indent(each, 2) if hubbed
                else indent(each)))
    if not hubbed:
        return (light,)
    if runs_balancers:  # a warp per chunk, per hub
        preamble = (f"lane = cuda.threadIdx.x & {LANES - 1}\nwarp = tid // {LANES}\n"
                    f"warps = nthreads // {LANES}\n")
        per_chunk, per_hub = (f"for c in range(warp, chunk_count{i}, warps):\n",
                              f"for h in range(warp, hub_count{i}, warps):\n")
    else:  # the same lanes, one after the other, in the kernel's ``lanes`` (:func:`_kernel`)
        preamble = ""
        per_chunk, per_hub = (f"for c in range(tid, chunk_count{i}, nthreads):\n",
                              f"for h in range(tid, hub_count{i}, nthreads):\n")
    chunks = (preamble + per_chunk
              + indent(f"v = chunk_vertex{i}[c]\n"
                       f"first = chunk_first{i}[c]\n"
                       f"last = min(first + {CHUNK}, {offsets}[v + 1])\n"
                       + over_lanes(phase.op, f"identity{i}",
                                    f"for k in range(first + lane, last, {LANES}):\n", fold,
                                    runs_balancers, f"partials{i}[c] = acc\n")))
    hubs = (preamble + per_hub
            + indent(f"v = hubs{i}[h]\n"
                     + over_lanes(phase.op, f"identity{i}",
                                  f"for c in range(hub_chunks{i}[h] + lane, "
                                  f"hub_chunks{i}[h + 1], {LANES}):\n",
                                  f"x = partials{i}[c]\n" + combine(phase.op, "acc", "x"),
                                  runs_balancers, f"s{phase.into}[v] = acc\n")))
    return light + chunks, hubs




def _total(spec: KernelSpec, name: str, k: int, runs_balancers: bool,
           ordered: str | None) -> str:
    """Statements adding ``name``'s values into ``sums[row * K + k]``: each thread's sum, on a
    GPU folded over its warp first (one atomic per warp). ``ordered`` (on several threads of a
    target of :attr:`~frontier.runtime.target.Target.ordered_sums`: the barrier between the
    kernel's steps): every thread writes the values of its vertices into ``scratch``, then
    thread 0 adds them in vertex order, the sum one thread makes."""
    if ordered is not None:
        return ("for v in range(tid, count, nthreads):\n"
                f"    scratch[v] = {_call(spec, name, 'v')}\n"
                + ordered
                + "if tid == 0:\n"
                  "    acc = 0.0\n"
                  "    for v in range(count):\n"
                  "        acc += scratch[v]\n"
                  f"    atomic_add(sums, row * K + {k}, acc)\n")
    text = ("acc = 0.0\n"
            "for v in range(tid, count, nthreads):\n"
            f"    acc += {_call(spec, name, 'v')}\n")
    if runs_balancers:
        text += f"lane = cuda.threadIdx.x & {LANES - 1}\n"
        for d in TREE:
            text += f"acc += shfl_idx(FULL, acc, lane + {d}, {LANES})\n"
        return text + f"if lane == 0:\n    atomic_add(sums, row * K + {k}, acc)\n"
    return text + f"atomic_add(sums, row * K + {k}, acc)\n"


def _steps(spec: KernelSpec, phases: tuple[Phase, ...], runs_balancers: bool,
           hubbed: tuple[bool, ...], ordered: str | None) -> list[str]:
    """The steps of one iteration, a grid barrier after each (a Gather whose graph has hubs in
    its direction, ``hubbed[i]``, is two steps)."""
    steps: list[str] = []
    for i, phase in enumerate(phases):
        name = _role(phase, i)
        if isinstance(phase, Each):
            steps.append("for v in range(tid, count, nthreads):\n"
                         + indent(_call(spec, name, "v") + "\n"))
        elif isinstance(phase, Gather):
            steps += _gather(spec, name, phase, i, runs_balancers, hubbed[i])
        else:
            k = sum(isinstance(p, Total) for p in phases[:i])
            steps.append(_total(spec, name, k, runs_balancers, ordered))
    return steps


def _step_roles(phases: tuple[Phase, ...], hubbed: tuple[bool, ...]) -> list[tuple[str, ...]]:
    """Per step of an iteration (:func:`_steps`), the functors it calls: its phase's, none in
    the second step of a Gather with hubs (it folds the chunks' values)."""
    roles: list[tuple[str, ...]] = []
    for i, phase in enumerate(phases):
        roles.append((_role(phase, i),))
        if isinstance(phase, Gather) and hubbed[i]:
            roles.append(())
    return roles


def _open(clear: bool = True) -> str:
    """Statements opening an iteration: its row of totals, and (``clear``) thread 0 clearing
    the next iteration's."""
    return ("row = it % 3\n"
            "totals = sums[row * K:(row + 1) * K]\n"
            + ("if tid == 0:\n"
               "    nxt = ((it + 1) % 3) * K\n"
               "    for k in range(K):\n"
               "        sums[nxt + k] = 0.0\n" if clear else ""))


def _fused_body(spec: KernelSpec, phases: tuple[Phase, ...], barrier: str,
                runs_balancers: bool, hubbed: tuple[bool, ...], ordered: str | None) -> str:
    """Every iteration in one launch: the steps between grid barriers, the stop test on the
    device, then the last totals, the count and the history written by thread 0."""
    steps = "".join(text + barrier
                    for text in _steps(spec, phases, runs_balancers, hubbed, ordered))
    return ("for i in range(tid, 3 * K, nthreads):\n"
            "    sums[i] = 0.0\n"
            + barrier
            + "it = 0\n"
            "totals = sums[0:K]\n"
            "while it < max_iter:\n"
            + indent(_open() + steps
                     + "if tid == 0:\n"
                       "    sums[HISTORY + it] = totals[K - 1]\n"
                       "it += 1\n"
                       "if totals[K - 1] < stop_below:\n"
                       "    break\n")
            + "if tid == 0:\n"
              "    for k in range(K):\n"
              "        sums[3 * K + k] = totals[k]\n"
              "    sums[4 * K] = it\n")


def _single_body(spec: KernelSpec, phases: tuple[Phase, ...], i: int, runs_balancers: bool,
                 hubbed: tuple[bool, ...], ordered: str | None) -> str:
    """Step ``i`` of iteration ``it`` alone (the race detector's launches; the first step of
    the first iteration clears every row)."""
    first = ("if it == 0:\n"
             "    for i in range(tid, 3 * K, nthreads):\n"
             "        sums[i] = 0.0\n") if i == 0 else ""
    return first + _open(i == 0) + _steps(spec, phases, runs_balancers, hubbed, ordered)[i]


_PARAMS = ("sums", "max_iter", "stop_below", "it", "scratch")


def _ordered(tgt: Target) -> bool:
    """Whether the Totals are summed in vertex order by thread 0 (:func:`_total`): on several
    threads of a target of ordered sums."""
    return tgt.ordered_sums and not tgt.sequential
#: A Gather phase ``i``'s parameters, each named with ``i`` after it.
_GATHER_PARAMS = ("identity", *Hubs._fields, "partials")


#: The loops' kernels by everything their text depends on (:func:`_kernel`): a repeated
#: loop builds no spec and looks its kernel up once.
_KERNELS: SharedCache[GeneratedKernel] = SharedCache("iterate kernels")


def _kernel(graph: Graph, tgt: Target, phases: tuple[Phase, ...],
            functors: dict[str, Functor], num_state: int, only: int | None,
            hubbed: tuple[bool, ...], block: bool = False) -> GeneratedKernel:
    """The fused loop's kernel, or (``only``) the kernel of one step; ``hubbed[i]``: whether
    Gather phase ``i`` has hubs to fold apart (a kernel without the hub steps otherwise);
    ``block``: the loop's steps separated by block barriers, for a launch of one block.
    Kept per target compile mode, the graph's weights, the phases' kinds and options (not
    their functions: ``functors``, resolved, stand for them) and the rest of the arguments."""
    forms = tuple((type(p), getattr(p, "into", None), getattr(p, "op", None),
                   getattr(p, "edges", None)) for p in phases)
    key = (tgt.compile_key, graph.weighted, forms, tuple(functors.items()), num_state, only,
           hubbed, block)
    return _KERNELS.get(key, lambda: _built(graph, tgt, phases, functors, num_state, only,
                                            hubbed, block))


def _built(graph: Graph, tgt: Target, phases: tuple[Phase, ...],
           functors: dict[str, Functor], num_state: int, only: int | None,
           hubbed: tuple[bool, ...], block: bool) -> GeneratedKernel:
    """:func:`_kernel`'s kernel, generated (or found by :func:`operators.codegen.build`)."""
    variant = "_" + "_".join(
        f"{_role(p, i)}_into{p.into}_{p.op}{'_hubs' if hubbed[i] else ''}"
        if isinstance(p, Gather) else _role(p, i)
        for i, p in enumerate(phases)) + ("" if only is None else f"_only{only}") + (
        "_block" if block else "")
    spec = KernelSpec("iterate", RANGE, "none", graph.weighted, num_state,
                      graph_view=any(f.wants_graph for f in functors.values()),
                      csc=any(isinstance(p, Gather) and p.edges == "in" for p in phases),
                      variant=variant, io=KernelIO.RANGE)
    totals = sum(isinstance(p, Total) for p in phases)
    identities = tuple(f"{param}{i}" for i, p in enumerate(phases) if isinstance(p, Gather)
                       for param in _GATHER_PARAMS)

    def body() -> str:
        consts = f"K = {totals}\nHISTORY = {4 * totals + 1}\n"
        if any(hubbed) and not tgt.runs_balancers:  # the hub steps' lanes, made once
            consts += f"lanes = np.empty({LANES}, np.float64)\n"
        between = barrier(tgt, block)
        ordered = between if _ordered(tgt) else None
        if only is not None:
            return consts + _single_body(spec, phases, only, tgt.runs_balancers, hubbed, ordered)
        return consts + _fused_body(spec, phases, between, tgt.runs_balancers, hubbed, ordered)

    if only is not None:  # the one step's functor (a kernel calls every functor it takes)
        called = _step_roles(phases, hubbed)[only]
        functors = {name: f for name, f in functors.items() if name in called}
    return build(tgt, per_element(tgt), spec, functors, body, _PARAMS + identities,
                 name=f"iterate{variant}")


def _grid(tgt: Target, threads: int, vertices: int, chunk_counts: list[int]) -> int:
    """Blocks of the persistent launch: as many as run at once, but no more than give each
    vertex, and each hub chunk's lanes, a thread of their own (a small graph's barriers then
    wait for a few blocks, not for a full device's)."""
    wanted = max([vertices, *(LANES * c for c in chunk_counts)])
    return min(tgt.persistent_blocks(threads), grid_blocks(tgt, threads, wanted))


@hands_over
def iterate(graph: Graph, phases: Sequence[Phase], *state: Any, stop_below: float,
            max_iter: int, target: str | Target | None = None) -> Iterated:
    """Run ``phases`` (:class:`Each`, :class:`Gather`, :class:`Total`; see the module
    docstring) over every vertex of ``graph``, iteration after iteration, until the last
    Total of an iteration is below ``stop_below`` or ``max_iter`` iterations ran: one
    cooperative launch and one device read (a launch per step under the race detector).
    ``state`` are the functors' state arguments (arrays on the target); ``totals`` comes after
    them. Returns the iterations run, the last iteration's totals and the history of the
    stop value."""
    phases = _check(graph, phases, state)
    max_iter = validate.count("max_iter", max_iter, 1)
    stop_below = float(stop_below)
    tgt = resolve_target(target, graph)
    functors = {}
    for i, phase in enumerate(phases):
        lead = ("src", "dst", "eid", "weight") if isinstance(phase, Gather) else ("v",)
        functors[_role(phase, i)] = as_functor(phase.fn, f"iterate phase {i}", lead,
                                               len(state) + 1)
    count = sum(isinstance(p, Total) for p in phases)
    sums = thread_buffer("iterate totals", tgt, 4 * count + 1 + max_iter, np.float64)
    io: dict[str, Any] = {"count": graph.num_vertices, "sums": sums, "max_iter": max_iter,
                          "stop_below": stop_below, "it": 0, **scalar_arguments(functors)}
    if _ordered(tgt):
        io["scratch"] = thread_buffer("iterate values", tgt, graph.num_vertices, np.float64)
    hubbed = [False] * len(phases)
    for i, phase in enumerate(phases):
        if not isinstance(phase, Gather):
            continue
        io[f"identity{i}"] = identity_of(phase.op, np.float64)
        hubs = hubs_of(graph, phase.edges, tgt)
        if hubs.hub_count:
            hubbed[i] = True
            io.update({f"{field}{i}": value for field, value in hubs._asdict().items()})
            io[f"partials{i}"] = tgt.empty(hubs.chunk_count, np.float64)
    if racecheck.checking():
        return _phase_by_phase(graph, tgt, phases, functors, state, io, count, tuple(hubbed))
    threads = per_element(tgt).threads_per_block
    grid = _grid(tgt, threads, graph.num_vertices,
                 [io[f"chunk_count{i}"] for i in range(len(phases)) if hubbed[i]])
    # one block waits at block barriers (a separate kernel only where they differ)
    kernel = _kernel(graph, tgt, phases, functors, len(state), None, tuple(hubbed),
                     one_block(tgt, grid))
    args = kernel_arguments(kernel.params, graph, tgt, io, state)
    kernel.launch(tgt, grid, args, cooperative=grid > 1, mode=Mode.FUSED)
    held = tgt.to_host(sums[:4 * count + 1 + max_iter])
    values = held[:4 * count + 1].tolist()  # the totals and the iterations as Python floats
    ran = int(values[4 * count])
    return Iterated(ran, tuple(values[3 * count:4 * count]),
                    held[4 * count + 1:4 * count + 1 + ran])


def _phase_by_phase(graph: Graph, tgt: Target, phases: tuple[Phase, ...],
                    functors: dict[str, Functor], state: tuple, io: dict[str, Any],
                    count: int, hubbed: tuple[bool, ...]) -> Iterated:
    """:func:`iterate` with a launch per step (a phase, or half a Gather) and the stop test on
    the host (the race detector's step is a launch: steps of one launch would race with each
    other)."""
    steps = len(phases) + sum(hubbed)  # a Gather with hubs is two
    kernels = [_kernel(graph, tgt, phases, functors, len(state), i, hubbed)
               for i in range(steps)]
    history: list[float] = []
    totals = np.zeros(count)
    for it in range(io["max_iter"]):
        io["it"] = it
        for kernel in kernels:
            args = kernel_arguments(kernel.params, graph, tgt, io, state)
            kernel.launch(tgt, kernel.shape.blocks(tgt, graph.num_vertices), args)
        row = it % 3
        totals = tgt.to_host(io["sums"][row * count:(row + 1) * count])
        history.append(float(totals[-1]))
        if totals[-1] < io["stop_below"]:
            break
    return Iterated(len(history), tuple(float(x) for x in totals), np.array(history))
