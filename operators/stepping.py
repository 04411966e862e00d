"""stepping: an ordered traversal over a lazy-batched priority queue, fused into one kernel.

Dong, Gu, Sun & Zhang, *Efficient Stepping Algorithms and Implementations for Parallel Shortest
Paths* (SPAA 2021), §3: Bellman–Ford, Δ-stepping and ρ-stepping are one program over a priority
queue that supports *extract every vertex whose priority is below θ* and a batched
*decrease-key*; the algorithms differ only in the rule that picks θ each round. This module is
that program as an operator. A vertex's priority is its entry in the first state array (a
tentative distance); the functor relaxes an edge, lowers the head's priority with an atomic min
(the decrease-key) and returns True when it did. A round:

1. looks at the queue — the vertices whose priority dropped since they were last extracted
   (pushed by the last round's relaxations, or left over from earlier rounds) — for the
   smallest and largest live priority and how many are live, and asks the rule for θ
   (:class:`Rule`); the rules that keep θ while a queued vertex is below it (Bellman–Ford,
   near–far, Δ) skip this survey until a round extracts nothing;
2. extracts every live vertex below θ (the vertex of the smallest priority surveyed last,
   always: each surveyed round makes progress) and keeps the rest queued; a round that
   extracts nothing relaxes nothing, and the next one surveys;
3. relaxes the out-edges of the extracted vertices with the call's load balancer; heads whose
   priority dropped join the queue.

The traversal ends when the queue is empty. A vertex is *in the queue* when its priority is
below the priority it was last extracted at (kept per vertex): a repeated entry or one whose
vertex was extracted since is dropped on sight, as Dong et al.'s lazy batching does.

The rules (:data:`RULES`):

* ``"bellman_ford"``: θ = ∞, every queued vertex each round (frontier Bellman–Ford; Busato &
  Bombieri's H-BF, *Graph Algorithms on GPUs*, §3.2); negative weights are fine, and a queue
  still live after |V| + 2 rounds (the first and last survey the queue) proves a negative cycle;
* ``"near_far"``: Davidson, Baxter, Garland & Owens' near–far pile (IPDPS 2014): θ stays until
  no queued vertex is below it (the near pile is empty), then moves to the smallest queued
  priority plus Δ;
* ``"delta"``: Δ-stepping's buckets (Meyer & Sanders; Dong et al.'s Δ*-stepping relaxes every
  edge of an extracted vertex, as here): θ is the end of the Δ-wide bucket holding the smallest
  queued priority, kept until no queued vertex is below it;
* ``"rho"``: ρ-stepping (Dong et al., §4): θ is (about) the ρ-th smallest queued priority, found
  with a 64-bin histogram of the queue between its smallest and largest priority;
* ``"ordered"``: θ is the smallest queued priority: Dijkstra's order, every vertex at that
  priority at once (Li & Becchi's ordered SSSP).

Everything runs on the device: the rounds, their reductions and histograms, the extraction and
the relaxations are phases of one persistent kernel separated by grid barriers (a cooperative
launch, as :func:`operators.traverse` fuses its steps), and the host reads one small array when
it ends. A graph whose queue stays small (road networks, meshes: :func:`block_mode`) runs the
rounds in one thread block instead, where a barrier is a block barrier, far cheaper than a grid
barrier (docs/performance.md gives the figures), as the small-frontier mode of
:mod:`operators.small_frontier` does for a BFS. Under the race detector each round is its own
launch.

Memory: the priority each vertex was extracted at (8 bytes a vertex), two queue buffers and the
three frontier slots of the traversal's pool (4 bytes a vertex each), and the pool's per-vertex
stamps (4 bytes) that drop repeated entries.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from frontier import validate
from frontier.frontier import SPARSE, Frontier, FrontierPool
from frontier.graph import Graph
from frontier.options import Cull, Mode
from frontier.ring import STEPS_RAN, push
from frontier.runtime import racecheck
from frontier.runtime.shared_cache import SharedCache
from operators.adaptive.profile import inspect
from operators.advance import edge_functors, edge_spec
from operators.balancers import LoadBalancer
from operators.codegen import (
    GeneratedKernel,
    barrier,
    build,
    declare_work_items,
    edge_items,
    id_at,
    indent,
    ring_slots,
    slot_select,
    visit_edge,
)
from operators.common import OperatorError, check_frontier
from operators.convention import KernelIO, kernel_arguments, scalar_arguments
from operators.cull import CULL_PARAMS
from operators.policy import Policy, bind, resolve_policy
from operators.shape import LaunchShape, persistent_grid
from operators.tracing import hands_over

__all__ = ["stepping", "Rule", "Stepped", "RULES", "MODES", "block_mode"]

#: The rules that pick θ, by name (see the module docstring).
RULES = ("bellman_ford", "near_far", "delta", "rho", "ordered")
_RULE_CODE = {name: i for i, name in enumerate(RULES)}

#: Bins of ρ-stepping's histogram of the queue.
BINS = 64
#: Per round, in the ``counts`` buffer: the live count, then the histogram's bins.
_ROUND_INTS = 1 + BINS
#: After the three rounds' counts: the two queue lengths, then the resumable state (the round,
#: the current queue, the slot of the candidates, whether the queue emptied) and the profile
#: (vertices extracted, out-edges relaxed).
_FAR_LENS = 3 * _ROUND_INTS
_CTL = _FAR_LENS + 2
_ROUND, _FCUR, _SLOT, _DONE, _EXTRACTED, _RELAXED = range(_CTL, _CTL + 6)
_INTS = _CTL + 6
#: In the ``bounds`` buffer (the priority's type): each rotating round's smallest and largest
#: live priority, then θ.
_THETA = 6

#: A graph runs its rounds in one block (:func:`block_mode`) when it has at most this many
#: vertices and at most :data:`BLOCK_MAX_DEGREE` out-edges on any vertex.
BLOCK_VERTICES = 1 << 18
BLOCK_MAX_DEGREE = 64
#: What ``mode=`` takes: the rounds over the persistent grid, or in one block.
MODES = ("grid", "block")
#: Threads of the one block (the kernel's registers allow no more than 256 on an H100).
BLOCK_THREADS = 256

#: The relaxations' functor calls: an edge visit's items.
declare_work_items("stepping", edge_items)

_PARAMS = ("expanded", "far0", "far1", "counts", "bounds", "top", "bottom", "rule",
           "rule_delta", "rule_rho", "fresh", "relax_marks") + CULL_PARAMS


@dataclass(frozen=True)
class Rule:
    """How θ is picked each round: ``name`` one of :data:`RULES`, with the bucket width
    ``delta`` (``"near_far"`` and ``"delta"``; in the priority's type) or the batch size
    ``rho`` (``"rho"``)."""

    name: str
    delta: float = 0.0
    rho: int = 0

    def __post_init__(self) -> None:
        validate.one_of("rule", self.name, RULES, "stepping rule")
        if self.name in ("near_far", "delta"):
            validate.positive("delta", self.delta)
        if self.name == "rho":
            validate.count("rho", self.rho, low=1)


@dataclass(frozen=True)
class Stepped:
    """What a stepping traversal ran: its rounds, the vertices it extracted and the out-edges
    it relaxed (summed over the rounds), whether its queue emptied (False only when
    ``max_rounds`` stopped it), and its mode (:class:`frontier.options.Mode`: fused over the
    grid or in one block)."""

    rounds: int
    extracted: int
    relaxed: int
    finished: bool
    mode: str


def block_mode(graph: Graph, target: Any) -> bool:
    """Whether the rounds run in one thread block: on a target that spreads work over threads,
    for graphs of at most :data:`BLOCK_VERTICES` vertices and no vertex of more than
    :data:`BLOCK_MAX_DEGREE` out-edges (road networks, meshes, small graphs), whose rounds
    extract few vertices each, so the barrier between phases is what a round costs."""
    if not target.runs_balancers or target.simulated:
        return False

    profile = inspect(graph)
    return graph.num_vertices <= BLOCK_VERTICES and profile.max_degree <= BLOCK_MAX_DEGREE


def _fold(name: str, combine: str, runs_balancers: bool) -> str:
    """Statements folding this thread's ``name`` over its warp into lane 0 (a GPU)."""
    if not runs_balancers:
        return ""
    text = ""
    for d in (16, 8, 4, 2, 1):
        text += f"other = shfl_idx(FULL, {name}, lane + {d}, 32)\n"
        text += f"{name} = {combine.format(a=name, b='other')}\n"
    return text


def _candidates(body: str) -> str:
    """A loop binding ``v`` to each queued entry: the last relaxations' pushes, then the queue
    kept from earlier rounds."""
    return ("pushed = min(lens[in_slot], in_ids.shape[0])\n"
            "queued = pushed + counts[FAR_LENS + fcur]\n"
            "for i in range(tid, queued, nthreads):\n"
            "    if i < pushed:\n"
            f"        v = {id_at('in_ids', 'i')}\n"
            "    elif fcur == 0:\n"
            f"        v = {id_at('far0', 'i - pushed')}\n"
            "    else:\n"
            f"        v = {id_at('far1', 'i - pushed')}\n"
            + indent(body))


def _round(barrier: str, advance: str, phases: str, runs_balancers: bool, integer: bool,
           edges: str | None) -> str:
    """One round: survey the queue, pick θ, extract, relax."""
    survey = ("lo = top\n"
              "hi = bottom\n"
              "live = int64(0)\n"
              + _candidates("d = s0[v]\n"
                            "if d < expanded[v]:\n"
                            "    live += 1\n"
                            "    lo = min(lo, d)\n"
                            "    hi = max(hi, d)\n")
              + ("lane = cuda.threadIdx.x & 31\n" if runs_balancers else "lane = 0\n")
              + _fold("live", "{a} + {b}", runs_balancers)
              + _fold("lo", "min({a}, {b})", runs_balancers)
              + _fold("hi", "max({a}, {b})", runs_balancers)
              + "if lane == 0 and live > 0:\n"
              "    atomic_add(counts, r3 * ROUND_INTS, live)\n"
              "    atomic_min(bounds, 2 * r3, lo)\n"
              "    atomic_max(bounds, 2 * r3 + 1, hi)\n"
              + barrier)
    histogram = (_candidates("d = s0[v]\n"
                             "if d < expanded[v]:\n"
                             "    b = min(int64((d - lo) / width), BINS - 1)\n"
                             "    atomic_add(counts, r3 * ROUND_INTS + 1 + b, 1)\n")
                 + barrier
                 + "acc = int64(0)\n"
                 "b = 0\n"
                 "while b < BINS - 1 and acc + counts[r3 * ROUND_INTS + 1 + b] < rule_rho:\n"
                 "    acc += counts[r3 * ROUND_INTS + 1 + b]\n"
                 "    b += 1\n"
                 + ("cut = width * (b + 1)\n"
                    "step_up = int64(cut)\n"
                    "if step_up < cut:\n"
                    "    step_up += 1\n"
                    "theta = lo + step_up\n" if integer else "theta = lo + width * (b + 1)\n"))
    theta = ("lo = bounds[2 * r3]\n"
             "hi = bounds[2 * r3 + 1]\n"
             "if rule == 0:\n"
             "    theta = top\n"
             "elif rule == 1:\n"
             "    if lo >= theta:\n"
             "        theta = lo + rule_delta\n"
             "elif rule == 2:\n"
             "    theta = lo - lo % rule_delta + rule_delta\n"
             "elif rule == 4:\n"
             "    theta = lo\n"
             "elif total <= rule_rho or hi == lo:\n"
             "    theta = top\n"
             "else:\n"
             "    width = (hi - lo) / BINS\n"
             + indent(histogram))
    split = (ring_slots()
             + slot_select("out_ids", "ids", "out_slot")
             + "if tid == 0:\n"
             "    lens[clear_slot] = 0\n"
             "cull_stamp = cull_base + 2 * (rnd - first_round) + 1\n"
             + _candidates("d = s0[v]\n"
                           "if d < expanded[v] and atomic_exch(cull_marks, v, cull_stamp) != "
                           "cull_stamp:\n"
                           "    if d < theta or d == lo:\n"
                           "        expanded[v] = d\n"
                           "        extracted += 1\n"
                           "        relaxed += row_offsets[v + 1] - row_offsets[v]\n"
                           + indent(push(SPARSE, "v"), 2)
                           + "    else:\n" + indent(_KEEP_QUEUED, 2))
             + barrier
             + "in_slot = out_slot\n"
             "fcur = 1 - fcur\n"
             # the queue the next split writes (read by this one): empty it; a barrier (the
             # relaxations' or the next survey's) comes before that split
             "if tid == 0:\n"
             "    counts[FAR_LENS + 1 - fcur] = 0\n")
    relax = (ring_slots()
             + slot_select("in_ids", "ids", "in_slot")
             + slot_select("out_ids", "ids", "out_slot")
             + "if tid == 0:\n"
             "    lens[clear_slot] = 0\n"
             "cull_stamp = cull_base + 2 * (rnd - first_round)\n"
             + phases + advance + barrier
             + "in_slot = out_slot\n")
    # Bellman-Ford, near-far and Δ-stepping keep θ until nothing queued is below it: a round
    # surveys the queue only then (and at the start); ρ-stepping and the ordered rule every round
    surveyed = (survey
                + "total = counts[r3 * ROUND_INTS]\n"
                  "if total == 0:\n"
                  "    done = 1\n"
                  "    break\n"
                + theta
                + "force = 0\n")
    starts = (slot_select("in_ids", "ids", "in_slot")
              + "r3 = rnd % 3\n"
                "if tid == 0:\n"
                "    nx = (rnd + 1) % 3\n"
                "    for b in range(ROUND_INTS):\n"
                "        counts[nx * ROUND_INTS + b] = 0\n"
                "    bounds[2 * nx] = top\n"
                "    bounds[2 * nx + 1] = bottom\n"
              + ("    took_now[nx] = 0\n" if edges is not None else "")
              + "if force != 0 or rule >= 3:\n" + indent(surveyed))
    if edges is not None:  # one block: each extracted vertex's edges relaxed where it is taken
        return ("force = 1\n"
                "while rnd - first_round < max_steps:\n"
                + indent(starts + _taken(barrier, edges) + "rnd += 1\n"))
    return ("force = 1\n"
            "while rnd - first_round < max_steps:\n"
            + indent(starts + split
                     + "if rule <= 2 and lens[in_slot] == 0:\n"
                       "    force = 1\n"
                       "else:\n"
                     + indent(relax) + "rnd += 1\n"))


def _taken(barrier: str, edges: str) -> str:
    """The one-block round after the survey: extract and relax in one pass (a thread relaxes
    the out-edges of each vertex it extracts at once, pushing improved heads for the next
    round, deduplicated by ``relax_marks``), one block barrier, then the next θ's test."""
    return (ring_slots()
            + slot_select("out_ids", "ids", "out_slot")
            + "if tid == 0:\n"
              "    lens[clear_slot] = 0\n"
              "cull_stamp = cull_base + 2 * (rnd - first_round)\n"
              "pick = cull_stamp + 1\n"
              "took = int64(0)\n"
            + _candidates("d = s0[v]\n"
                          "if d < expanded[v] and atomic_exch(cull_marks, v, pick) != pick:\n"
                          "    if d < theta or d == lo:\n"
                          "        expanded[v] = d\n"
                          "        took += 1\n"
                          "        extracted += 1\n"
                          "        relaxed += row_offsets[v + 1] - row_offsets[v]\n"
                          + indent(edges, 2)
                          + "    else:\n" + indent(_KEEP_QUEUED, 2))
            + "if took > 0:\n"
              "    atomic_add(took_now, r3, took)\n"
            + barrier
            + "in_slot = out_slot\n"
              "fcur = 1 - fcur\n"
              "if tid == 0:\n"
              "    counts[FAR_LENS + 1 - fcur] = 0\n"
              "if rule <= 2 and took_now[r3] == 0:\n"
              "    force = 1\n")


#: Statements keeping queued vertex ``v`` (not extracted this round) for the next round's queue.
_KEEP_QUEUED = ("pos = atomic_add(counts, FAR_LENS + 1 - fcur, 1)\n"
                "if fcur == 0:\n"
                "    far1[pos] = v\n"
                "else:\n"
                "    far0[pos] = v\n")


def _body(barrier: str, advance: str, phases: str, runs_balancers: bool, block: bool,
          integer: bool, edges: str | None) -> str:
    threads = ("tid = cuda.threadIdx.x\nnthreads = cuda.blockDim.x\n"
               "took_now = cuda.shared.array(3, int64)\n"
               "if tid < 3:\n"
               "    took_now[tid] = 0\n" if block else "")
    # a fresh traversal clears its own buffers: no launches before it
    fresh = ("if fresh != 0:\n"
             "    for v in range(tid, num_vertices, nthreads):\n"
             "        expanded[v] = top\n"
             "    for i in range(tid, INTS, nthreads):\n"
             "        counts[i] = 0\n"
             "    for i in range(tid, 6, nthreads):\n"
             "        bounds[i] = top if i % 2 == 0 else bottom\n"
             "    if tid == 0:\n"
             "        bounds[THETA] = bottom\n"
             "        counts[SLOT] = start_slot\n"
             + indent(barrier))
    placeholders = ("in_words = words0\nout_words = words0\nclear_words = words0\n"
                    "clear_num_words = 0\n")
    return (threads + placeholders + fresh
            + "rnd = counts[ROUND]\n"
            "first_round = rnd\n"
            "fcur = counts[FCUR]\n"
            "in_slot = counts[SLOT]\n"
            "theta = bounds[THETA]\n"
            "lo = top\n"
            "done = 0\n"
            "extracted = int64(0)\n"
            "relaxed = int64(0)\n"
            + _round(barrier, advance, phases, runs_balancers, integer, edges)
            + ("lane = cuda.threadIdx.x & 31\n" if runs_balancers else "lane = 0\n")
            + _fold("extracted", "{a} + {b}", runs_balancers)
            + _fold("relaxed", "{a} + {b}", runs_balancers)
            + "if lane == 0:\n"
            "    atomic_add(counts, EXTRACTED, extracted)\n"
            "    atomic_add(counts, RELAXED, relaxed)\n"
            + barrier
            + "if tid == 0:\n"
            "    counts[ROUND] = rnd\n"
            "    counts[FCUR] = fcur\n"
            "    counts[SLOT] = in_slot\n"
            "    counts[DONE] = done\n"
            "    bounds[THETA] = theta\n"
            "    lens[STEPS_RAN] = rnd - first_round\n")


#: The stepping kernels by everything their text depends on (:func:`_kernel`): a repeated
#: traversal builds no spec and looks its kernel up once.
_KERNELS: SharedCache[GeneratedKernel] = SharedCache("stepping kernels")


def _kernel(graph: Graph, frontier: Frontier, functors: dict[str, Any], num_state: int,
            balancer: LoadBalancer, block: bool, priority: np.dtype) -> GeneratedKernel:
    """The traversal's kernel, kept per target compile mode, the graph's weights, the
    frontier's form, the functors, the state's count, the balancer, the mode and the
    priority's kind."""
    key = (frontier.target.compile_key, graph.weighted, frontier.kind, frontier.domain,
           tuple(functors.items()), num_state, balancer, block, priority.kind)
    return _KERNELS.get(key, lambda: _built(graph, frontier, functors, num_state, balancer,
                                            block, priority))


def _built(graph: Graph, frontier: Frontier, functors: dict[str, Any], num_state: int,
           balancer: LoadBalancer, block: bool, priority: np.dtype) -> GeneratedKernel:
    target = frontier.target
    spec = edge_spec("stepping", graph, frontier, SPARSE, num_state, functors, cull=Cull.BITMAP,
                     io=KernelIO.RING, variant=f"_{priority.kind}" + ("_block" if block else ""))
    shape = (LaunchShape("stepping_block", min(BLOCK_THREADS, target.max_threads_per_block))
             if block else balancer.shape(target))
    consts = {"ROUND_INTS": _ROUND_INTS, "FAR_LENS": _FAR_LENS, "ROUND": _ROUND, "FCUR": _FCUR,
              "SLOT": _SLOT, "DONE": _DONE, "EXTRACTED": _EXTRACTED, "RELAXED": _RELAXED,
              "INTS": _INTS, "THETA": _THETA, "BINS": BINS}

    def body() -> str:
        between = barrier(target, block)
        phases = balancer.fused_phases(spec, between)
        edges = None
        if block:
            visit = visit_edge(spec, "v", "e").replace("cull_marks", "relax_marks")
            edges = "for e in range(row_offsets[v], row_offsets[v + 1]):\n" + indent(visit)
        text = _body(between, balancer.advance_body(spec), phases, target.runs_balancers,
                     block, priority.kind == "i", edges)
        return "".join(f"{k} = {v}\n" for k, v in consts.items()) + text

    return build(target, shape, spec, functors, body,
                 balancer.extra_params(spec) + _PARAMS)


@hands_over
def stepping(graph: Graph, frontier: Frontier, op: Callable, priority: Any, *state: Any,
             rule: Rule, balancer: str | LoadBalancer | Policy = "auto",
             max_rounds: int | None = None, blocks: int | None = None,
             mode: str | None = None) -> Stepped:
    """Run the stepping traversal from the vertices of ``frontier`` (a sparse frontier of
    ``graph`` whose pool holds |V| entries, e.g. ``Frontier.from_vertices(G, sources,
    capacity=G.num_vertices)``; their priorities set by the caller) with the relaxation ``op``
    (``(src, dst, eid, weight, priority, *state) -> bool``: True when it lowered ``dst``'s
    priority) under ``rule``, until the queue is empty or ``max_rounds`` rounds ran.

    ``priority`` (a device array of |V| int64 or float64) is read and lowered in place;
    ``balancer`` maps each round's relaxations onto threads (a static balancer, or ``"auto"``:
    the adaptive runtime's choice for the whole graph). ``blocks`` sets the persistent grid;
    ``mode`` (``"grid"`` or ``"block"``, on a target that spreads work over threads) overrides
    :func:`block_mode`."""
    check_frontier(graph, frontier)
    if frontier.kind != SPARSE or frontier.pool.capacity < graph.num_vertices:
        raise OperatorError("stepping starts from a sparse frontier whose pool holds every "
                            f"vertex (capacity >= {graph.num_vertices})")
    if not isinstance(rule, Rule):
        raise OperatorError(f"rule={rule!r}; expected an operators.stepping.Rule")
    dtype = np.dtype(priority.dtype)
    if dtype not in (np.dtype(np.int64), np.dtype(np.float64)) or priority.shape != (
            graph.num_vertices,):
        raise OperatorError(f"the priority is a {dtype} array of shape {priority.shape}; "
                            f"expected int64 or float64 of shape ({graph.num_vertices},)")
    max_rounds = _UNBOUNDED if max_rounds is None else validate.count("max_rounds", max_rounds)
    target = frontier.target
    functors = edge_functors(op, None, 1 + len(state))
    policy = resolve_policy(balancer, graph, target)
    if mode is None:
        block = block_mode(graph, target)
    else:
        validate.one_of("mode", mode, MODES, "stepping mode")
        if mode == "block" and not target.runs_balancers:
            raise OperatorError(f"mode='block' runs on a GPU target, not {target.name}")
        block = mode == "block"
    chosen = bind("thread", graph, target) if block else _balancer(policy)
    kernel = _kernel(graph, frontier, functors, 1 + len(state), chosen, block, dtype)
    pool = frontier.pool
    ints = pool.scratch("stepping_counts", _INTS, np.int64)
    # the rounds of one launch: every round under the race detector (a launch is its step)
    per_launch = 1 if racecheck.checking() else max_rounds
    rounds, fresh, slot = 0, 1, frontier.slot
    while True:
        ran = _launch(kernel, graph, frontier, pool, functors, (priority, *state), chosen,
                      block, min(per_launch, max_rounds - rounds), fresh, slot, ints, rule,
                      dtype, blocks)
        rounds, fresh = rounds + ran, 0
        ctl = target.to_host(ints[_ROUND:])
        done, slot = bool(ctl[_DONE - _ROUND]), int(ctl[_SLOT - _ROUND])
        if done or rounds >= max_rounds or ran == 0:
            break
    pool.adopt(slot, SPARSE, "a stepping traversal")
    return Stepped(rounds, int(ctl[_EXTRACTED - _ROUND]), int(ctl[_RELAXED - _ROUND]), done,
                   Mode.BLOCK if block else Mode.FUSED)


_RELAX_MARKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: No bound on the rounds: the most a kernel's int64 holds.
_UNBOUNDED = int(np.iinfo(np.int64).max)
#: Per priority dtype (int64, float64): its largest and smallest values and, for integers,
#: the dtype's limits (``np.iinfo``; None for floats), worked out once.
_EXTREMES: dict[np.dtype, tuple[Any, Any, Any]] = {}


def _extremes(dtype: np.dtype) -> tuple[Any, Any, Any]:
    """The priority dtype's top and bottom (its limits, or +-inf) and its ``np.iinfo`` (None
    for a float dtype)."""
    found = _EXTREMES.get(dtype)
    if found is None:
        info = np.iinfo(dtype) if dtype.kind == "i" else None
        found = _EXTREMES.setdefault(dtype, (dtype.type(info.max if info else np.inf),
                                             dtype.type(info.min if info else -np.inf), info))
    return found


def _relax_marks(pool: FrontierPool) -> Any:
    """The one-block mode's marks of heads pushed in a round (stamped with the pool's stamps,
    so made zero once per pool: no stamp is 0)."""
    marks = _RELAX_MARKS.get(pool)
    if marks is None:
        marks = pool.target.zeros(max(pool.universe, 1), np.int32)
        _RELAX_MARKS[pool] = marks
    return marks


def _balancer(policy: Policy) -> LoadBalancer:
    """The policy's balancer for relaxing a whole graph's edges (a fusable one)."""
    decide = getattr(policy, "decide", None)
    if decide is None:
        chosen = policy.push_balancer(None)  # type: ignore[arg-type]
    else:
        g = policy.graph
        chosen = decide(max(g.num_vertices, 1), g.num_edges, False, True).balancer
    return chosen if chosen.fusable else bind("thread", policy.graph, policy.target)


def _launch(kernel: GeneratedKernel, graph: Graph, frontier: Frontier, pool: FrontierPool,
            functors: dict[str, Any], state: tuple, balancer: LoadBalancer, block: bool,
            rounds: int, fresh: int, slot: int, ints: Any, rule: Rule, dtype: np.dtype,
            blocks: int | None) -> int:
    """One launch of at most ``rounds`` rounds (``fresh``: the first, which clears the
    traversal's buffers) from the candidates in ``slot``; returns the rounds it ran."""
    target = frontier.target
    far = pool.scratch_parts("stepping_far", pool.capacity, 2, np.int32)
    marks, base = pool.next_stamp()
    top, bottom, info = _extremes(dtype)
    width = rule.delta if rule.name in ("near_far", "delta") else 1
    delta = dtype.type(min(max(np.ceil(width), 1), info.max) if info else width)
    words = pool.placeholder
    io: dict[str, Any] = {
        "universe": pool.universe, "num_words": pool.num_words,
        "ids0": pool.ids(0), "ids1": pool.ids(1), "ids2": pool.ids(2),
        "words0": words, "words1": words, "words2": words,
        "lens": pool.lengths, "start_slot": slot, "max_steps": rounds,
        "stop_above": 0, "stop_below": 0,
        "expanded": pool.scratch("stepping_expanded", graph.num_vertices, dtype),
        "far0": far[1], "far1": far[2], "counts": ints,
        "bounds": pool.scratch("stepping_bounds", _THETA + 1, dtype), "top": top,
        "bottom": bottom, "rule": _RULE_CODE[rule.name], "rule_delta": delta,
        "rule_rho": np.int64(rule.rho), "fresh": fresh, "cull_marks": marks,
        "relax_marks": _relax_marks(pool) if block else pool.placeholder_ids,
        "cull_stamp": base, "cull_base": base, "cull_mask": 0,
        **balancer.buffers(kernel.spec, frontier), **scalar_arguments(functors)}
    args = kernel_arguments(kernel.params, graph, target, io, state)
    if block:
        def launch() -> None:
            kernel.launch(target, 1, args, mode=Mode.BLOCK)
    else:
        grid = persistent_grid(target, kernel.threads_per_block, blocks)

        def launch() -> None:
            kernel.launch(target, grid, args, cooperative=True)
    lengths = pool.run_traversal(slot, launch, "a stepping traversal on its pool failed "
                                 "part-way (its rounds reuse every slot)")
    ran = int(lengths[STEPS_RAN])
    pool.use_stamps(2 * ran + 1)  # round k used the stamps base + 2k and base + 2k + 1
    return ran

