"""advance: visit the edges leaving a frontier (Busato & Bombieri, *Graph Algorithms on GPUs*,
§2.1; Gunrock's advance; Ligra's ``edgeMap``, Shun & Blelloch, PPoPP 2013).

``advance(G, F, op, *state, condition=cond, direction=...)`` calls ``op(src, dst, eid, weight,
*state)`` on edges ``src -> dst`` with ``src`` in ``F`` and ``cond(dst, *state)`` true, and returns
the frontier of the ``dst`` for which ``op`` returned True. Direction is the operator's business:

* *push* (top-down) expands the frontier's out-edges, mapped onto threads by a load balancer;
* *pull* (bottom-up; Beamer et al., SC 2012) gives one thread to every vertex whose condition
  holds; it scans the vertex's in-edges (the CSC view) for sources in the frontier (a bitmap;
  a queue is converted first) and calls ``op`` on those, stopping as soon as the condition no
  longer holds (Ligra's early exit: a BFS vertex stops at its first parent). Without a
  condition every vertex scans all its in-edges. A vertex enters the output once however many
  of its edges ``op`` accepts;
* *auto* picks push or pull for each call from the frontier's size (:mod:`operators.direction`).

On an edge frontier (elements are edge ids), advance calls ``op`` once per edge and returns the
edge frontier of the edges it accepts.

``edges="in"`` steps backward: it visits the edges *entering* the frontier's vertices, i.e.
advances over the graph's transpose (Ligra's ``transpose()``; :meth:`frontier.Graph.transpose`),
on which the frontier is valid too. Pull is no backward step: it computes the same forward step
from the heads' side.

``cull="bitmap"`` or ``"hash"`` drops repeated heads from a push's queue as they are pushed
(:mod:`operators.cull`).

``balancer=`` is resolved once per call into a policy (:mod:`operators.policy`), which gives a
push its bound balancer; a policy passed in is used as it is. :func:`advance_step` is one
advance with the direction and the balancer already chosen: what a host step of
:func:`operators.traverse` runs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from frontier.frontier import DENSE, EDGES, SPARSE, Frontier
from frontier.graph import Graph
from frontier.options import Cull, Way
from frontier.ring import clear_next_slot, is_active
from frontier.runtime.racecheck import WorkItems
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from operators.balancers import LoadBalancer
from operators.codegen import (
    GeneratedKernel,
    KernelIO,
    KernelSpec,
    build,
    declare_work_items,
    edge_items,
    for_each_input,
    id_at,
    indent,
    push,
)
from operators.common import (
    OperatorError,
    Plan,
    check_frontier,
    oriented,
    run_step,
    work_bound,
)
from operators.convention import scalar_arguments
from operators.cull import CULL_PARAMS, check_cull, cull_buffers
from operators.direction import Direction
from operators.functors import as_functor
from operators.policy import Policy, resolve_policy
from operators.shape import per_element
from operators.tracing import hands_over

__all__ = ["advance", "advance_step", "push_plan", "pull_plan", "edge_plan"]


EDGE_ARGUMENTS = ("src", "dst", "eid", "weight")


def edge_functors(op: Callable, condition: Callable | None, num_state: int | None = None
                  ) -> dict[str, Any]:
    """The functors of an edge operator by the names kernels call them: ``functor`` and, if
    given, ``condition`` (their arity checked against ``num_state`` state arguments unless it
    is None)."""
    edge, vertex = (None, None) if num_state is None else (EDGE_ARGUMENTS, ("v",))
    found = {"functor": as_functor(op, "advance functor", edge, num_state or 0)}
    if condition is not None:
        found["condition"] = as_functor(condition, "condition", vertex, num_state or 0)
    return found


def edge_spec(operator: str, graph: Graph, frontier: Frontier, output: str, num_state: int,
              functors: dict[str, Any], **more: Any) -> KernelSpec:
    """The spec of a kernel visiting edges from ``frontier`` with ``functors`` (``more``: the
    I/O kind and the other fields of :class:`KernelSpec`)."""
    return KernelSpec(operator, frontier.kind, output, graph.weighted, num_state,
                      domain=frontier.domain, condition="condition" in functors,
                      graph_view=any(f.wants_graph for f in functors.values()), **more)


_PUSH_KERNELS: SharedCache[tuple[list, Any]] = SharedCache("push plans")


def push_plan(graph: Graph, frontier: Frontier, op: Callable, condition: Callable | None,
              num_state: int, balancer: LoadBalancer, output: str,
              cull: str = Cull.NONE) -> Plan:
    """The kernels of a push advance with ``balancer`` (bound to the graph and the target: a
    policy's, :mod:`operators.policy`): the balancer's helper kernels, then the advance. The
    kernels are looked up per call by everything they depend on. ``cull`` removes repeats from
    a sparse output (:mod:`operators.cull`)."""
    check_frontier(graph, frontier, output)
    functors = edge_functors(op, condition, num_state)
    target = frontier.target
    key = (target.compile_key, frontier.kind, frontier.domain, output, balancer,
           graph.weighted, num_state, tuple(functors.items()), cull)
    kernels, spec = _PUSH_KERNELS.find(key) or _PUSH_KERNELS.get(key, partial(
        _push_kernels, graph, frontier, functors, num_state, balancer, output, cull))
    grids = [balancer.phase_blocks(target, frontier)] * (len(kernels) - 1)
    grids.append(kernels[-1].shape.blocks(target, work_bound(frontier)))
    buffers = balancer.buffers(spec, frontier) | scalar_arguments(functors)
    if cull != Cull.NONE and output == SPARSE:
        buffers.update(cull_buffers(frontier.pool, cull))
    return Plan(list(zip(kernels, grids, strict=True)), buffers)


def _push_kernels(graph: Graph, frontier: Frontier, functors: dict[str, Any], num_state: int,
                  balancer: LoadBalancer, output: str, cull: str) -> tuple[list, Any]:
    """The kernels of :func:`push_plan` and their spec (made once per key; a module function,
    so that a call that finds them makes no closure)."""
    target = frontier.target
    shape = balancer.shape(target)
    spec = edge_spec("advance", graph, frontier, output, num_state, functors, cull=cull,
                     io=KernelIO.STEP)
    extra = balancer.extra_params(spec) + (CULL_PARAMS if cull != Cull.NONE else ())
    helpers = [build(target, shape, spec, {}, lambda body=body: body, extra, name=name)
               for name, body in balancer.phases(spec)]
    main = build(target, shape, spec, functors,
                 lambda: clear_next_slot() + balancer.advance_body(spec), extra)
    return helpers + [main], spec


def pull_plan(graph: Graph, frontier: Frontier, op: Callable, condition: Callable | None,
              num_state: int, output: str) -> Plan:
    """The kernel of a pull advance over a dense frontier: one thread per candidate vertex."""
    check_frontier(graph, frontier, output)
    if frontier.kind != DENSE:
        raise OperatorError("a pull step tests frontier membership: it reads a dense frontier")
    return pull_kernel_plan(graph, frontier.target, op, condition, num_state, output)


_PULL_KERNELS: SharedCache[GeneratedKernel] = SharedCache("pull kernels")


def pull_kernel_plan(graph: Graph, target: Target, op: Callable, condition: Callable | None,
                     num_state: int, output: str) -> Plan:
    """The pull kernel for a dense vertex frontier on ``target`` (what :func:`pull_plan` runs),
    looked up per call by what it depends on."""
    functors = edge_functors(op, condition, num_state)
    key = (target.compile_key, output, graph.weighted, num_state,
           tuple(functors.items()))

    def generate() -> GeneratedKernel:
        spec = KernelSpec("pull", DENSE, output, graph.weighted, num_state,
                          condition="condition" in functors,
                          graph_view=any(f.wants_graph for f in functors.values()), csc=True,
                          io=KernelIO.STEP)
        return build(target, per_element(target), spec, functors, lambda: _pull_body(spec))

    kernel = _PULL_KERNELS.get(key, generate)
    return Plan([(kernel, kernel.shape.blocks(target, graph.num_vertices))],
                scalar_arguments(functors))


def _pull_items(spec: KernelSpec, name: str) -> WorkItems:
    """A pull's work items: the calls one thread makes for one vertex (the head ``dst`` of
    the in-edges it scans) are one item, its condition's call opening it."""
    dst = 0 if name == "condition" else 1
    return WorkItems(1 if name == "condition" else 4, "vertex {0} (pulling its in-edges)",
                     (dst,), dst, dst)


declare_work_items("advance", edge_items)
declare_work_items("pull", _pull_items)


def _pull_body(spec: KernelSpec) -> str:
    cond = spec.call("condition", "dst")
    accept = "accepted = True\n"
    if spec.condition:
        accept += f"if not {cond}:\n    break\n"
    scan = ("accepted = False\n"
            "for k in range(col_offsets[dst], col_offsets[dst + 1]):\n"
            f"    src = {id_at('row_indices', 'k')}\n"
            f"    if {is_active('in_words', 'src')}:\n"
            "        e = edge_ids[k]\n"
            f"        if {spec.call('functor', 'src, dst, e, ' + spec.weight_of('e'))}:\n"
            + indent(accept, 3)
            + "if accepted:\n" + indent(push(spec.output, "dst")))
    body = f"if {cond}:\n" + indent(scan) if spec.condition else scan
    return (clear_next_slot()
            + "for dst in range(tid, num_vertices, nthreads):\n" + indent(body))


def edge_plan(graph: Graph, frontier: Frontier, op: Callable, condition: Callable | None,
              num_state: int, output: str) -> Plan:
    """The kernel of an advance over an edge frontier: ``op`` once per edge, keep accepted."""
    check_frontier(graph, frontier, output)
    functors = edge_functors(op, condition, num_state)
    spec = edge_spec("advance", graph, frontier, output, num_state, functors, io=KernelIO.STEP)
    call = spec.call("functor", f"edge_src[e], dst, e, {spec.weight_of('e')}")
    if spec.condition:
        call = f"{spec.call('condition', 'dst')} and {call}"
    body = f"dst = {id_at('col_indices', 'e')}\nif {call}:\n" + indent(push(spec.output, "e"))
    kernel = build(frontier.target, per_element(frontier.target), spec, functors,
                   lambda: clear_next_slot() + for_each_input(spec, "e", body))
    return Plan([(kernel, kernel.shape.blocks(frontier.target, work_bound(frontier)))],
                scalar_arguments(functors))


@hands_over
def advance(graph: Graph, frontier: Frontier, op: Callable, *state: Any,
            direction: str | Direction = Way.PUSH, condition: Callable | None = None,
            balancer: str | LoadBalancer | Policy = "thread", output: str | None = None,
            cull: str = Cull.NONE, edges: str = "out") -> Frontier | None:
    """Call ``op(src, dst, eid, weight, *state) -> bool`` on the edges leaving ``frontier`` whose
    head satisfies ``condition(dst, *state)`` (every edge without a condition) and return the
    frontier of the heads ``op`` accepted (see the module docstring for push, pull and auto).

    ``direction`` is ``"push"``, ``"pull"``, ``"auto"``, or a :class:`Direction` carried from
    step to step (its switching state is updated). ``balancer`` maps a push onto threads: a
    name, a balancer or a policy (:mod:`operators.policy`); ``"auto"`` picks one for this call
    from the frontier's size and degree sum (:mod:`operators.adaptive`; one read of the
    frontier's length).
    ``output`` is ``"sparse"`` (a queue: after a push a vertex appears once per accepting edge),
    ``"dense"`` (a bitmap), ``"none"`` (side effects only; returns None) or None: sparse after a
    push, dense after a pull. ``cull`` (``"none"``, ``"bitmap"`` or ``"hash"``) removes repeated
    heads from a push's sparse output (:mod:`operators.cull`). ``weight`` is 1 on an unweighted
    graph; ``state`` are arrays on the frontier's target (or scalars), passed through to ``op``
    and ``condition``.

    ``edges="in"`` steps backward, over the edges entering the frontier's vertices: the step
    runs on ``graph.transpose()`` (:meth:`frontier.Graph.transpose`, built once and kept), so
    ``op`` sees each arc ``u -> v`` with ``u`` in the frontier as ``src=v``, ``dst=u``, with
    its weight, and ``eid`` is the transpose's arc id. The same as ``advance(graph.transpose(),
    frontier, ...)``: a vertex frontier is valid on a graph and on its transpose.

    Lifetime: the result lives in the next slot of the input's frontier pool (see
    :class:`frontier.Frontier`); a pull from a queue converts it first, which is one more step.
    """
    check_frontier(graph, frontier, output)
    graph = oriented(graph, frontier, edges)
    check_cull(cull)
    plan = Direction.of(direction)
    policy = resolve_policy(balancer, graph, frontier.target)
    if frontier.domain == EDGES:
        if plan.mode == Way.PULL:
            raise OperatorError("an edge frontier has no pull direction: advance it with push")
        out = output or SPARSE
        return run_step(graph, frontier, edge_plan(graph, frontier, op, condition, len(state), out),
                        state, out, "advance")
    way = plan.choose(len(frontier), graph.num_vertices) if plan.mode == Way.AUTO else plan.mode
    bound = policy.push_balancer(frontier) if way == Way.PUSH else None
    return advance_step(graph, frontier, op, state, condition, way, bound, output, cull)


def advance_step(graph: Graph, frontier: Frontier, op: Callable, state: tuple,
                 condition: Callable | None, way: str, balancer: LoadBalancer | None,
                 output: str | None, cull: str = Cull.NONE) -> Frontier | None:
    """One advance of a vertex frontier going ``way`` (``"push"`` or ``"pull"``), a push with
    ``balancer`` (bound to the graph and the target; None for a pull); ``output`` and ``cull``
    as in :func:`advance`."""
    if way == Way.PULL:
        dense = frontier if frontier.kind == DENSE else frontier.to_dense()
        out = output or DENSE
        return run_step(graph, dense, pull_plan(graph, dense, op, condition, len(state), out),
                        state, out, "advance (pull)")
    out = output or SPARSE
    return run_step(graph, frontier, push_plan(graph, frontier, op, condition, len(state), balancer,
                                               out, cull), state, out, "advance")
