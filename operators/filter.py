"""filter: keep the frontier elements a predicate accepts, optionally without repeats
(Gunrock's filter; Busato & Bombieri, *Graph Algorithms on GPUs*, §2.2 on duplicate removal)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from frontier import validate
from frontier.frontier import SPARSE, Frontier
from frontier.graph import Graph
from frontier.ring import clear_next_slot, push
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from operators.codegen import (
    NONE,
    GeneratedKernel,
    KernelIO,
    KernelSpec,
    build,
    declare_work_items,
    element_items,
    for_each_input,
    indent,
)
from operators.common import Plan, check_frontier, run_step, work_bound
from operators.convention import scalar_arguments
from operators.functors import Functor, as_functor
from operators.shape import per_element
from operators.tracing import hands_over

UNIQUE_PARAMS = ("stamps", "stamp")

declare_work_items("filter", element_items)
#: The filter kernels, by everything they depend on (looked up once per call).
_KERNELS: SharedCache[GeneratedKernel] = SharedCache("filter kernels")


def filter_plan(graph: Graph, frontier: Frontier, pred: Callable, num_state: int,
                output: str | None, unique: bool) -> Plan:
    check_frontier(graph, frontier, output)
    out = output or frontier.kind
    if validate.flag("unique", unique) and out == NONE:
        validate.unused("output='none' (no frontier is built to drop repeats from)",
                        {"unique": True})
    functor = as_functor(pred, "filter predicate", ("v",), num_state)
    target, kind = frontier.target, frontier.kind
    dropping = bool(unique) and out == SPARSE and kind == SPARSE
    key = (target.compile_key, kind, out, graph.weighted, num_state, dropping, frontier.domain,
           functor)
    kernel = _KERNELS.find(key) or _KERNELS.get(key, partial(_generated, target, *key[1:]))
    pool = frontier.pool
    stamps, stamp = pool.next_stamp() if dropping else (pool.placeholder, 0)
    return Plan([(kernel, kernel.shape.blocks(frontier.target, work_bound(frontier)))],
                {"stamps": stamps, "stamp": stamp, **scalar_arguments({"functor": functor})})


def _generated(target: Target, kind: str, out: str, weighted: bool, num_state: int,
               dropping: bool, domain: str, functor: Functor) -> GeneratedKernel:
    """The kernel of :func:`filter_plan` (made once per key; a module function, so that a call
    that finds it makes no closure)."""
    spec = KernelSpec("filter", kind, out, weighted, num_state, dropping, domain=domain,
                      graph_view=functor.wants_graph, io=KernelIO.STEP)
    return build(target, per_element(target), spec, {"functor": functor},
                 lambda: _filter_body(spec), UNIQUE_PARAMS)


def _filter_body(spec: KernelSpec) -> str:
    return clear_next_slot() + keep_body(spec)


def keep_body(spec: KernelSpec) -> str:
    """The statements pushing the input elements ``v`` the predicate accepts (with
    ``spec.unique``, those whose stamp is not ``stamp`` yet)."""
    keep = f"if {spec.call('functor', 'v')}:\n"
    if spec.unique:
        keep += ("    if atomic_exch(stamps, v, stamp) != stamp:\n"
                 + indent(push(spec.output, "v"), 2))
    else:
        keep += indent(push(spec.output, "v"))
    return for_each_input(spec, "v", keep)


@hands_over
def filter(graph: Graph, frontier: Frontier, pred: Callable, *state: Any,  # noqa: A001
           unique: bool = False, output: str | None = None) -> Frontier | None:
    """Keep the elements ``v`` of ``frontier`` (vertex or edge ids) for which
    ``pred(v, *state)`` is True.

    ``unique=True`` also drops repeated elements (the first occurrence found stays). ``output``
    picks the result's form: ``"sparse"``, ``"dense"`` (never repeats an element), ``"none"``
    (``pred`` runs on every element for its side effects and filter returns None) or None (the
    input's form). The result is the next step of the input's frontier pool (see
    :class:`frontier.Frontier`).
    """
    plan = filter_plan(graph, frontier, pred, len(state), output, unique)
    return run_step(graph, frontier, plan, state, output or frontier.kind, "filter")
