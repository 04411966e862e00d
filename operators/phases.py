"""The phases of a traversal: each decision of a policy (:mod:`operators.policy`) made
runnable, with one method, ``run``.

* :class:`FusedPhase`: push steps of one balancer inside one persistent kernel, a grid-wide
  barrier between steps (Busato & Bombieri, *Graph Algorithms on GPUs*, inter-block
  synchronization; a cooperative launch of only as many blocks as the GPU holds at once), until
  the frontier is empty or leaves the phase's range, tested on the device. A balancer's helper
  kernels (two_phase's degree prefix sum) run inside it between grid barriers. On the CPU
  target the same text compiles to one sequential loop;
* :class:`BlockPhase`: levels of the small-frontier mode inside one thread block
  (:mod:`operators.small_frontier`);
* :class:`HostStep`: one advance launched from the host (a pull step, a push step of a
  balancer that cannot fuse or of a host decision), one launch sequence and one read of the
  frontier's length.

:func:`phase_for` turns a decision into its phase by the decision's mode. Each ``run`` returns
what it ran (:class:`Ran`); the loop, the direction and the stop rules stay in
:func:`operators.traverse`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple

from frontier.frontier import DENSE, SPARSE, Frontier
from frontier.graph import Graph
from frontier.options import Cull, Mode, Way
from frontier.ring import STEPS_RAN, clear_next_slot
from operators.adaptive.rule import Decision, HandBack
from operators.advance import advance_step, edge_functors, edge_spec
from operators.balancers import LoadBalancer
from operators.codegen import (
    GeneratedKernel,
    KernelIO,
    barrier,
    build,
    declare_work_items,
    edge_items,
    indent,
    ring_slots,
    slot_select,
)
from operators.convention import kernel_arguments, scalar_arguments
from operators.cull import CULL_PARAMS, cull_buffers
from operators.shape import persistent_grid
from operators.small_frontier import block_push

__all__ = ["Walk", "Ran", "FusedPhase", "BlockPhase", "HostStep", "phase_for", "fused_kernel"]


#: A fused traversal's and the small-frontier mode's functor calls: an edge visit's items.
declare_work_items("traverse", edge_items)


class Walk(NamedTuple):
    """What every phase of one traversal runs with: the graph, the functor, its condition and
    state, the culling, the persistent grid (None: the target's default), and the functors by
    the names kernels call them (:func:`operators.advance.edge_functors`)."""

    graph: Graph
    op: Callable
    condition: Callable | None
    state: tuple
    cull: str
    blocks: int | None
    functors: dict[str, Any]


class Ran(NamedTuple):
    """What a phase ran: the frontier it ended on, its steps, the frontier's length, and the
    host wall time of each of its steps (one host step's; None for the steps of a phase on the
    device, which the host does not see)."""

    frontier: Frontier
    steps: int
    size: int
    seconds: float | None


class HostStep(NamedTuple):
    """One advance going the decision's direction, with its balancer and output form."""

    decision: Decision

    def run(self, walk: Walk, frontier: Frontier) -> Ran:
        decision = self.decision
        push = decision.direction == Way.PUSH
        start = time.perf_counter()
        out = advance_step(walk.graph, frontier, walk.op, walk.state, walk.condition,
                           decision.direction, decision.balancer if push else None,
                           decision.representation if push else DENSE, walk.cull)
        seconds = time.perf_counter() - start
        return Ran(out, 1, len(out), seconds)


class FusedPhase(NamedTuple):
    """Push steps of the decision's balancer in one persistent kernel, over the decision's
    representation, at most ``budget`` of them, stopping before expanding a frontier of more
    than ``stop_above`` elements or one that has been as small as ``hand_back`` says for as
    many steps as it says. A phase whose first frontier is already out of range runs it as a
    host step instead, unless the phase is ``blind`` (decided without the frontier's length,
    :func:`operators.adaptive.blind`): it then ends with no step, having read that length, and
    the traversal decides again."""

    decision: Decision
    budget: int
    stop_above: int
    hand_back: HandBack
    blind: bool = False

    def run(self, walk: Walk, frontier: Frontier) -> Ran:
        frontier = _in_form(frontier, self.decision.representation)
        frontier, ran, size = _fused_push(walk, frontier, self.decision.balancer, self.budget,
                                          self.stop_above, self.hand_back)
        if ran == 0 and size != 0 and not self.blind:
            return HostStep(self.decision).run(walk, frontier)
        return Ran(frontier, ran, size, None)


class BlockPhase(NamedTuple):
    """Levels of the small-frontier mode from a queue, at most ``budget`` of them, until a
    level produces more than ``stop_above`` vertices or the next one has more out-edges than
    the decision's ``until_edges``."""

    decision: Decision
    budget: int
    stop_above: int

    def run(self, walk: Walk, frontier: Frontier) -> Ran:
        frontier = _in_form(frontier, SPARSE)
        spec = edge_spec("traverse", walk.graph, frontier, SPARSE, len(walk.state),
                         walk.functors, cull=walk.cull, io=KernelIO.RING)
        frontier, ran, size = block_push(walk.graph, frontier, walk.functors, spec, walk.state,
                                         self.budget, self.stop_above,
                                         self.decision.until_edges)
        return Ran(frontier, ran, size, None)


Phase = FusedPhase | BlockPhase | HostStep


def phase_for(decision: Decision, budget: int, stop_above: int, hand_back: HandBack,
              blind: bool = False) -> Phase:
    """The phase that runs ``decision`` (by its mode), with the traversal's remaining step
    budget (at most the decision's own ``steps``), the frontier size it stops above and when it
    hands back to the small-frontier mode; ``blind``: decided without the frontier's length."""
    if decision.steps is not None:
        budget = min(budget, decision.steps)
    if decision.mode == Mode.BLOCK:
        return BlockPhase(decision, budget, stop_above)
    if decision.mode == Mode.FUSED:
        return FusedPhase(decision, budget, stop_above, hand_back, blind)
    return HostStep(decision)


def _in_form(frontier: Frontier, form: str) -> Frontier:
    """``frontier`` as a queue or a bitmap (converted where it is the other)."""
    if frontier.kind == form:
        return frontier
    return frontier.to_dense() if form == DENSE else frontier.to_sparse()


def fused_kernel(graph: Graph, frontier: Frontier, op: Callable, condition: Callable | None,
                 num_state: int, balancer: LoadBalancer, cull: str = Cull.NONE
                 ) -> GeneratedKernel:
    """The persistent kernel running push steps of ``balancer`` (bound) until the frontier is
    empty, ``max_steps`` ran or it holds more than ``stop_above`` elements; with ``cull``,
    step ``k`` culls repeats with the stamp ``cull_base + k`` (:mod:`operators.cull`)."""
    functors = edge_functors(op, condition, num_state)
    return _fused_kernel(graph, frontier, functors, num_state, balancer, cull)


def _fused_kernel(graph: Graph, frontier: Frontier, functors: dict[str, Any], num_state: int,
                  balancer: LoadBalancer, cull: str) -> GeneratedKernel:
    """:func:`fused_kernel` of the functors by the names kernels call them: looked up by what
    it depends on, the balancer by identity (a bound balancer is one object per graph and
    target; hashing one hashes all its fields)."""
    key = (frontier.target.compile_key, frontier.kind, frontier.domain, graph.weighted,
           num_state, id(balancer), cull, *functors.items())
    found = _FUSED.get(key)
    if found is not None and found[0] is balancer:
        return found[1]
    kernel = _generate_fused(graph, frontier, functors, num_state, balancer, cull)
    if len(_FUSED) >= _FUSED_SIZE:
        _FUSED.clear()  # balancers bound for graph after graph: start over
    _FUSED[key] = (balancer, kernel)
    return kernel


#: Per :func:`_fused_kernel` key: the balancer (held, so that its id stays its own) and the
#: kernel.
_FUSED: dict[tuple, tuple[LoadBalancer, GeneratedKernel]] = {}
_FUSED_SIZE = 4096


def _generate_fused(graph: Graph, frontier: Frontier, functors: dict[str, Any],
                    num_state: int, balancer: LoadBalancer, cull: str) -> GeneratedKernel:
    """The kernel of :func:`_fused_kernel`, from the cache of generated kernels
    (:func:`operators.codegen.build`)."""
    kind = frontier.kind
    spec = edge_spec("traverse", graph, frontier, kind, num_state, functors, cull=cull,
                     io=KernelIO.RING)

    def body() -> str:  # built only when the kernel is not cached yet
        grid_barrier = barrier(frontier.target)
        # a balancer's helper kernels (two_phase's degree prefix sum) run in the step, each
        # over the persistent grid and followed by a grid barrier
        phases = balancer.fused_phases(spec, grid_barrier)
        # Stop on an overflowed input (a queue longer than its buffer): every thread tests the
        # same length, which no thread changes during the step, so all leave the loop together.
        overflowed = " or lens[in_slot] > ids0.shape[0]" if kind == SPARSE else ""
        # hand a frontier that stayed at stop_below or fewer for below_steps steps in a row
        # back to the small-frontier mode
        step = ("if step > 0 and lens[in_slot] <= stop_below:\n"
                "    below += 1\n"
                "else:\n"
                "    below = 0\n"
                f"if lens[in_slot] == 0 or lens[in_slot] > stop_above{overflowed}"
                " or below >= below_steps:\n"
                "    break\n"
                + ring_slots()
                + slot_select("in_ids", "ids", "in_slot")
                + slot_select("out_ids", "ids", "out_slot")
                + slot_select("in_words", "words", "in_slot")
                + slot_select("out_words", "words", "out_slot")
                + slot_select("clear_words", "words", "clear_slot")
                + f"clear_num_words = {'num_words' if kind == DENSE else '0'}\n"
                + ("cull_stamp = cull_base + step\n" if cull != Cull.NONE else "")
                + clear_next_slot() + phases + balancer.advance_body(spec)
                + grid_barrier
                + "in_slot = out_slot\n"
                "step += 1\n")
        return ("in_slot = start_slot\n"
                "step = 0\n"
                "below = 0\n"
                "while step < max_steps:\n" + indent(step)
                + "if tid == 0:\n    lens[STEPS_RAN] = step\n")
    return build(frontier.target, balancer.shape(frontier.target), spec, functors, body,
                 balancer.extra_params(spec) + (CULL_PARAMS if cull != Cull.NONE else ()))


def _fused_push(walk: Walk, frontier: Frontier, balancer: LoadBalancer, max_steps: int,
                stop_above: int, hand_back: HandBack) -> tuple[Frontier, int, int]:
    """One fused push phase; returns the frontier it ended on, the steps it ran and the
    frontier's length (read with the step count: one host read in all)."""
    graph, state = walk.graph, walk.state
    target, pool, kind = frontier.target, frontier.pool, frontier.kind
    cull = walk.cull if kind == SPARSE else Cull.NONE
    kernel = _fused_kernel(graph, frontier, walk.functors, len(state), balancer, cull)
    if kind == SPARSE:  # every slot's queue (the bitmaps' stand-ins), or every slot's bitmap
        ids, words = (pool.ids(0), pool.ids(1), pool.ids(2)), (pool.placeholder,) * 3
    else:
        ids, words = (pool.placeholder_ids,) * 3, (pool.words(0), pool.words(1), pool.words(2))
    io: dict[str, Any] = {
        "universe": pool.universe, "num_words": pool.num_words,
        "ids0": ids[0], "ids1": ids[1], "ids2": ids[2],
        "words0": words[0], "words1": words[1], "words2": words[2],
        "lens": pool.lengths, "start_slot": frontier.slot, "max_steps": max_steps,
        "stop_above": stop_above, "stop_below": hand_back.below,
        "below_steps": hand_back.steps}
    for extra in (cull_buffers(pool, cull), balancer.buffers(kernel.spec, frontier),
                  scalar_arguments(walk.functors)):
        if extra:
            io.update(extra)
    args = kernel_arguments(kernel.params, graph, target, io, state)
    grid = persistent_grid(target, kernel.threads_per_block, walk.blocks)
    lengths = pool.run_traversal(
        frontier.slot, lambda: kernel.launch(target, grid, args, cooperative=True),
        "a fused traverse on its pool failed part-way (its steps reuse every slot, so the "
        "frontiers it started from are lost)")
    held = lengths.tolist()
    steps = held[STEPS_RAN]
    if cull != Cull.NONE:
        pool.use_stamps(steps)  # step k used the stamp cull_base + k
    final = (frontier.slot + steps) % pool.SLOTS
    return Frontier(pool, final, kind, pool.adopt(final, kind)), steps, held[final]
