"""traverse: advance until the frontier is empty, fused into one kernel.

``traverse(G, f, op, *state)`` means ``while f: f = advance(G, f, op, *state)``. A host loop of
advances pays a kernel launch and a device-to-host read of the frontier length per step, which
dominates on graphs with thousands of thin levels (road networks). Here the code generator wraps
the balancer's advance body in a persistent kernel: every step runs inside one launch, separated
by a grid-wide barrier (seed 004 "inter-block synchronization"; a cooperative launch of only as
many blocks as the GPU holds at once), and the loop ends on the device when the frontier empties.
On the CPU target the same text compiles to one sequential loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from frontier.frontier import DENSE, SPARSE, Frontier
from frontier.graph import Graph
from operators.advance import advance
from operators.balancers import LoadBalancer, get_balancer
from operators.codegen import (
    GRAPH_PARAMS,
    GeneratedKernel,
    KernelSpec,
    build,
    clear_next_slot,
    indent,
)
from operators.common import OperatorError, check_frontier, for_target

TRAVERSE_PARAMS = GRAPH_PARAMS + (
    "num_vertices", "num_words", "ids0", "ids1", "ids2", "words0", "words1", "words2", "lens",
    "start_slot", "max_steps", "stop_above", "steps_out")


@dataclass(frozen=True)
class Traversal:
    """The frontier the traversal ended on (empty unless ``max_steps`` or ``stop_above``
    stopped it) and the
    number of advance steps run."""

    frontier: Frontier
    steps: int


def _slot_select(name: str, arrays: str, slot: str) -> str:
    a, b, c = (f"{arrays}{i}" for i in range(3))
    return f"{name} = {a} if {slot} == 0 else ({b} if {slot} == 1 else {c})\n"


def traverse_kernel(graph: Graph, frontier: Frontier, op: Callable, num_state: int,
                    balancer: LoadBalancer) -> GeneratedKernel:
    target = frontier.target
    kind = frontier.kind
    spec = KernelSpec("traverse", kind, kind, graph.weighted, num_state)
    step = ("if lens[in_slot] == 0 or lens[in_slot] > stop_above:\n    break\n"
            "out_slot = (in_slot + 1) % 3\n"
            "clear_slot = (in_slot + 2) % 3\n"
            + _slot_select("in_ids", "ids", "in_slot") + _slot_select("out_ids", "ids", "out_slot")
            + _slot_select("in_words", "words", "in_slot")
            + _slot_select("out_words", "words", "out_slot")
            + _slot_select("clear_words", "words", "clear_slot")
            + f"clear_num_words = {'num_words' if kind == DENSE else '0'}\n"
            + clear_next_slot() + balancer.advance_body(spec)
            + target.grid_barrier + "\n"
            "in_slot = out_slot\n"
            "step += 1\n")
    body = ("in_slot = start_slot\n"
            "step = 0\n"
            "while step < max_steps:\n" + indent(step)
            + "if tid == 0:\n    steps_out[0] = step\n")
    return build(target, balancer, spec, op, lambda: body,
                 TRAVERSE_PARAMS + balancer.extra_params(spec))


def traverse(graph: Graph, frontier: Frontier, op: Callable, *state: Any,
             balancer: str | LoadBalancer = "thread", max_steps: int | None = None,
             stop_above: int | None = None,
             blocks: int | None = None) -> Traversal:
    """Advance ``frontier`` with ``op`` (as :func:`operators.advance`) step after step until it
    is empty, ``max_steps`` steps have run, or (with ``stop_above``) it holds more than
    ``stop_above`` elements, returned unexpanded: the test runs on the device, so a
    direction-optimizing BFS can push fused until the frontier is large enough to pull. Each
    step's output has the input's form.

    ``blocks`` sets the persistent kernel's grid (default: the target's
    ``persistent_blocks``, at most what the GPU holds at once); fewer blocks make the barrier
    between steps cheaper and each step slower.

    Balancers that launch helper kernels per step (``fusable = False``) run as a host loop.
    """
    check_frontier(graph, frontier)
    unbounded = np.iinfo(np.int64).max
    if max_steps is None:
        max_steps = unbounded
    if stop_above is None:
        stop_above = unbounded
    if max_steps < 0:
        raise OperatorError(f"max_steps={max_steps}; expected >= 0")
    target = frontier.target
    bal = for_target(target, get_balancer(balancer), graph)
    if not bal.fusable:
        steps = 0
        while steps < max_steps and 0 < len(frontier) <= stop_above:
            frontier = advance(graph, frontier, op, *state, balancer=bal, output=frontier.kind)
            steps += 1
        return Traversal(frontier, steps)

    kernel = traverse_kernel(graph, frontier, op, len(state), bal)
    pool, kind = frontier.pool, frontier.kind
    ga = graph.device_arrays(target)
    slots = range(pool.SLOTS)
    ids = [pool.ids(s) if kind == SPARSE else pool.placeholder_ids for s in slots]
    words = [pool.words(s) if kind == DENSE else pool.placeholder for s in slots]
    steps_out = pool.scratch("traverse_steps", 1, np.int64)
    args = ((ga.row_offsets, ga.col_indices, ga.weights, graph.num_vertices, pool.num_words,
             *ids, *words, pool.lengths, frontier.slot, max_steps, stop_above, steps_out)
            + bal.extra_args(KernelSpec("traverse", kind, kind), frontier) + state)
    pool.prepare_traversal(frontier.slot)
    resident = target.resident_blocks(kernel.threads_per_block)
    grid = min(blocks or target.persistent_blocks(kernel.threads_per_block), resident)
    target.launch_cooperative(kernel.function, grid, kernel.threads_per_block, args)
    steps = int(target.read_scalar(steps_out, 0))
    pool.read_lengths()
    final = (frontier.slot + steps) % pool.SLOTS
    return Traversal(Frontier(pool, final, kind, pool.adopt(final, kind)), steps)
