"""What every operator shares: argument checks, the launch of one ring step, work bounds."""

from __future__ import annotations

from typing import Any

from frontier.frontier import DENSE, SPARSE, Frontier
from frontier.graph import Graph
from frontier.target import Target
from operators.balancers import LoadBalancer, ThreadMapped
from operators.codegen import NONE, GeneratedKernel

OUTPUTS = (SPARSE, DENSE, NONE)


class OperatorError(ValueError):
    """An operator was called with arguments that do not fit together."""


def check_graph(graph: Any) -> None:
    if not isinstance(graph, Graph):
        raise OperatorError(f"expected a frontier.Graph, got {type(graph).__name__}")


def check_frontier(graph: Graph, frontier: Any, output: str | None = None) -> None:
    check_graph(graph)
    if not isinstance(frontier, Frontier):
        raise OperatorError(f"expected a Frontier, got {type(frontier).__name__}")
    if frontier.graph is not graph:
        raise OperatorError("the frontier belongs to another graph")
    if output is not None and output not in OUTPUTS:
        raise OperatorError(f"output={output!r}; expected one of {OUTPUTS}")
    frontier.check_current()


def for_target(target: Target, balancer: LoadBalancer, graph: Graph) -> LoadBalancer:
    """The balancer bound to ``graph`` and ``target`` (:meth:`LoadBalancer.bind`); on a target
    that does not spread work over threads every balancer is the plain loop."""
    return balancer.bind(graph, target) if target.runs_balancers else ThreadMapped(1)


def work_bound(frontier: Frontier) -> int:
    """Upper bound on the frontier's length known without a device read."""
    return frontier.graph.num_vertices if frontier.kind == DENSE else frontier.pool.capacity


def launch_step(frontier: Frontier, kernel: GeneratedKernel, blocks: int, head: tuple,
                tail: tuple, output: str) -> Frontier | None:
    """Launch a frontier-producing kernel on the pool's ring and wrap its output."""
    pool = frontier.pool
    out_kind = None if output == NONE else output
    step = pool.begin_step(frontier.slot, out_kind)
    args = head + (
        frontier.graph.num_vertices,
        pool.ids(frontier.slot) if frontier.kind == SPARSE else pool.placeholder_ids,
        pool.words(frontier.slot) if frontier.kind == DENSE else pool.placeholder,
        pool.lengths, step.in_slot, step.out_slot, step.clear_slot,
        pool.ids(step.out_slot) if out_kind == SPARSE else pool.placeholder_ids,
        pool.words(step.out_slot) if out_kind == DENSE else pool.placeholder,
        step.clear_words, step.clear_num_words,
    ) + tail
    kernel.launch(pool.target, blocks, args)
    token = pool.end_step(step, out_kind)
    return None if out_kind is None else Frontier(pool, step.out_slot, out_kind, token)
