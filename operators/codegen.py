"""The code generator: composes user functors with a load balancer into kernels.

Each kernel an operator runs is described by a :class:`KernelSpec` (which operator, input and
output frontier forms, its I/O kind, weighted or not, how many state arguments, ...). The
balancer writes the part of an advance that maps work to threads; this module supplies the
shared pieces (the loop over a frontier's elements, calling the functor on an edge, pushing into
the output frontier: the ring protocol of :mod:`frontier.ring`), and :func:`build` is the one
path by which every generated kernel, balancer helper kernels and the fused traversal included,
becomes compiled code: source text with the parameters of the calling convention
(:mod:`operators.convention`), compiled by the target and cached per (target, launch shape,
spec, functors). Every kernel has a launch shape (:mod:`operators.shape`), whether a load
balancer wrote it or not. :func:`build` checks every text against one naming contract before
it is compiled (:mod:`operators.naming`), and compiles each functor with the work items its
operator declared beside its generator (:func:`declare_work_items`) for the race detector. The
persistent kernels (a fused traversal, the small-frontier mode, stepping, iterate, loop, levels)
share the pieces of their loop here: a ring slot's array, the ring's next slots, the barrier
between steps. The source text is what a recording of its launches
(:mod:`frontier.runtime.recording`) and :func:`operators.explain` show.

Busato & Bombieri, *Graph Algorithms on GPUs*, §5, separate exactly these concerns: the per-edge
work of an operator and the mapping of that work onto threads (the load balancer).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any

import numpy as np
from numba.core.errors import NumbaError

from frontier import graphview, ring
from frontier.errors import TargetError
from frontier.frontier import EDGES, VERTICES, FrontierError
from frontier.ring import DENSE, SPARSE, clear_next_slot, is_active, push
from frontier.runtime.indices import as_index
from frontier.runtime.racecheck import RaceError, WorkItems
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from frontier.runtime.warp_intrinsics import FULL_MASK, intrinsics
from operators.convention import KernelIO, kernel_params, scalar_params
from operators.cull import culled
from operators.functors import Functor, FunctorError, as_functor, check_raises, compile_functor
from operators.naming import GeneratorError, assigned, check_names
from operators.shape import LaunchShape

__all__ = ["KernelSpec", "KernelIO", "GeneratedKernel", "build", "FunctorError",
           "FunctorIndexError", "SPARSE", "DENSE", "NONE", "RANGE", "clear_next_slot",
           "is_active", "push", "indent", "id_at", "visit_edge", "for_each_input", "arc_value",
           "VERTICES", "EDGES", "GeneratorError", "ItemsRule", "declare_work_items",
           "items_rule", "edge_items", "element_items", "fold_items", "slot_pick", "slot_select",
           "ring_slots", "blocks_apart", "one_block", "barrier"]

NONE, RANGE = "none", "range"


@dataclass(frozen=True)
class KernelSpec:
    """What one generated kernel does, apart from the functors and the balancer.

    ``operator`` names the kernel's job (advance, pull, filter, compute, reduce, neighbors,
    traverse, or a balancer helper); ``input`` is the input's form (SPARSE, DENSE or RANGE) over
    ``domain`` (vertex or edge ids); ``output`` the output frontier's form or NONE; ``io`` how
    the kernel meets the frontier ring, which the operator sets and the calling convention
    turns into the kernel's parameters (:class:`operators.convention.KernelIO`). ``condition``
    says a condition functor gates each edge (Ligra's ``cond``); ``graph_view`` that a functor
    receives the graph (:mod:`frontier.graphview`), which needs the incoming-edge offsets;
    ``cull`` how a push removes repeated heads from a sparse output (:mod:`operators.cull`)."""

    operator: str
    input: str
    output: str
    weighted: bool = False
    num_state: int = 0
    unique: bool = False
    domain: str = VERTICES
    condition: bool = False
    graph_view: bool = False
    csc: bool = False
    variant: str = ""
    cull: str = "none"
    io: KernelIO = field(kw_only=True)
    #: A step of a composed kernel (:func:`operators.loop`) names its functors with this
    #: prefix (``step2_functor``) and its state arguments ``state_names`` (the composed
    #: kernel's parameters); a composed kernel lists its steps' specs in ``steps``.
    prefix: str = field(default="", kw_only=True)
    state_names: tuple[str, ...] = field(default=(), kw_only=True)
    steps: tuple[KernelSpec, ...] = field(default=(), kw_only=True)
    _hash: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:  # kernels are looked up by their spec
        object.__setattr__(self, "_hash", hash(_compared(self)))

    def __hash__(self) -> int:
        return self._hash

    @property
    def state(self) -> str:
        if self.state_names:
            return "".join(f", {name}" for name in self.state_names)
        return "".join(f", s{i}" for i in range(self.num_state))

    def weight_of(self, e: str) -> str:
        """Expression for the weight of edge ``e`` (1 on an unweighted graph)."""
        return f"weights[{e}]" if self.weighted else "1"

    def call(self, name: str, args: str) -> str:
        """Expression calling functor ``name`` with ``args``, the state and the graph view."""
        tail = ", graph" if self.graph_view else ""
        return f"{self.prefix}{name}({args}{self.state}{tail})"

    @property
    def needs_csc(self) -> bool:
        return self.csc or self.graph_view

    def work_items(self, name: str) -> WorkItems:
        """How the calls of functor ``name`` in this kernel form work items for the race
        detector (:mod:`frontier.runtime.racecheck`), as the rule its operator declared says
        (:func:`declare_work_items`): e.g. one per edge of an advance, one per element of a
        filter, one per vertex of a neighbour reduction's sequential fold."""
        return items_rule(self)(self, name)


#: The fields of a :class:`KernelSpec` that its equality compares, read in one call.
_compared = attrgetter(*(f.name for f in fields(KernelSpec) if f.compare))


def indent(text: str, levels: int = 1) -> str:
    return textwrap.indent(text, "    " * levels)


def slot_pick(arrays: str, slot: str) -> str:
    """Expression: the array of a pool's ring slot ``slot`` among ``{arrays}0``..``{arrays}2``
    (the three slots of :class:`frontier.FrontierPool`, passed to a kernel one by one)."""
    a, b, c = (f"{arrays}{i}" for i in range(3))
    return f"{a} if {slot} == 0 else ({b} if {slot} == 1 else {c})"


def slot_select(name: str, arrays: str, slot: str) -> str:
    """Statement binding ``name`` to the array of ring slot ``slot`` among ``{arrays}0``..
    ``{arrays}2`` (:func:`slot_pick`)."""
    return f"{name} = {slot_pick(arrays, slot)}\n"


def ring_slots() -> str:
    """Statements naming the ring's slots around ``in_slot``: the step's output ``out_slot``,
    and ``clear_slot``, the next step's output, which this step clears."""
    return "out_slot = (in_slot + 1) % 3\nclear_slot = (in_slot + 2) % 3\n"


def blocks_apart(target: Target) -> bool:
    """Whether ``target``'s block barrier is another than its grid barrier (a cheaper one, and a
    kernel text of its own): where a persistent kernel's part run by one block waits at block
    barriers (:func:`one_block`, a fused loop's small frontiers)."""
    return target.block_barrier != target.grid_barrier


def one_block(target: Target, grid: int) -> bool:
    """Whether a persistent kernel launched on ``grid`` blocks waits at block barriers instead
    of grid barriers: a grid of one block, on a target whose blocks wait apart
    (:func:`blocks_apart`)."""
    return grid == 1 and blocks_apart(target)


def barrier(target: Target, block: bool = False) -> str:
    """The line between two steps of a persistent kernel on ``target``: the grid barrier, or
    with ``block`` (a launch of one block: :func:`one_block`) the block barrier."""
    return (target.block_barrier if block else target.grid_barrier) + "\n"


def id_at(array: str, index: str) -> str:
    """Expression: the id held at ``array[index]`` (a vertex id of the graph or of a queue, an
    edge id of an edge queue), read as an index known not to be negative where the target
    compiles that (:mod:`frontier.runtime.indices`)."""
    return f"as_index({array}[{index}])"


def edge_test(spec: KernelSpec, src: str, e: str) -> str:
    """Expression: the condition holds for the head ``dst`` of edge ``e`` leaving ``src`` and
    the functor accepts the edge."""
    test = spec.call("functor", f"{src}, dst, {e}, {spec.weight_of(e)}")
    if spec.condition:
        test = f"{spec.call('condition', 'dst')} and {test}"
    return test


def visit_edge(spec: KernelSpec, src: str, e: str) -> str:
    """Statements for one edge ``e`` leaving ``src``: when the condition holds for its head,
    call the functor and push the head on True."""
    add = push(spec.output, "dst")
    if spec.output == SPARSE:
        add = culled(spec.cull, "dst", add)
    return f"dst = {id_at('col_indices', e)}\nif {edge_test(spec, src, e)}:\n" + indent(add)


def for_each_input(spec: KernelSpec, v: str, body: str, index: str = "i", first: str = "tid",
                   stride: str = "nthreads") -> str:
    """A grid-stride loop over the input elements, binding each to ``v``: thread ``tid`` of
    ``nthreads`` takes every ``nthreads``-th; with ``first="block", stride="blocks"``, every
    thread of block ``block`` takes the block's elements (a block per element)."""
    if spec.input == SPARSE:
        return (f"for {index} in range({first}, min(lens[in_slot], in_ids.shape[0]), "
                f"{stride}):\n"
                f"    {v} = {id_at('in_ids', index)}\n" + indent(body))
    if spec.input == DENSE:
        return (f"for {v} in range({first}, universe, {stride}):\n"
                f"    if {is_active('in_words', v)}:\n" + indent(body, 2))
    return f"for {v} in range({first}, count, {stride}):\n" + indent(body)


def arc_value(spec: KernelSpec, edges: str, k: str) -> str:
    """Statements setting ``e`` to the arc id and ``x`` to the functor's value on the ``k``-th
    arc of vertex ``v``'s ``edges`` (``"in"``: ``k`` a position in ``col_offsets``' rows, the
    functor called ``(tail, v, e, weight)``; ``"out"``: ``k`` the arc id, ``(v, head, e,
    weight)``): a neighbour reduction's or a neighbour sort's value of one arc."""
    weight = spec.weight_of("e")
    if edges == "in":
        tail = id_at("row_indices", k)
        return f"e = edge_ids[{k}]\nx = {spec.call('functor', f'{tail}, v, e, {weight}')}\n"
    head = id_at("col_indices", k)
    return f"e = {k}\nx = {spec.call('functor', f'v, {head}, e, {weight}')}\n"


@dataclass(frozen=True)
class GeneratedKernel:
    """A compiled kernel with its source text, parameters, launch shape and the balancer it was
    generated for (as users name it: ``warp:32``)."""

    name: str
    source: str
    function: Callable
    shape: LaunchShape
    params: tuple[str, ...]
    functors: tuple[Functor, ...]
    spec: KernelSpec
    balancer: str | None = None

    @property
    def threads_per_block(self) -> int:
        return self.shape.threads_per_block

    def launch(self, target: Target, blocks: int, args: tuple, cooperative: bool = False,
               mode: str | None = None) -> None:
        """Run the kernel (through :meth:`Target.launch`, which records it with its balancer
        and ``mode``); a functor that fails to compile or raises becomes FunctorError."""
        try:
            target.launch(self.function, blocks, self.threads_per_block, args,
                          cooperative=cooperative, balancer=self.balancer, mode=mode)
        except FunctorError:
            raise
        except Exception as err:  # noqa: BLE001 - classified below
            _raise_functor_error(self, err)


class FunctorIndexError(FunctorError, IndexError):
    """An index out of range in a kernel's functor: an ``IndexError`` naming the functor. Seen
    where indices are checked: on the cpu target in the checked mode
    (``FRONTIER_BOUNDSCHECK=1``), in the simulator, and under the checks of
    :mod:`frontier.testing` (``check_race_free``, ``check_cuda``), which refuse a negative index
    too (:class:`frontier.runtime.racecheck.Recorded`). Compiled code without checks (the cpu target
    outside the checked mode, a GPU) reads or writes past the array instead."""


def _raise_functor_error(kernel: GeneratedKernel, err: Exception) -> None:
    passes = (FrontierError, MemoryError, RaceError, TargetError)
    if isinstance(err, passes) or type(err).__module__.startswith("numba.cuda.cudadrv"):
        raise err
    who = ", ".join(f"{f.name} ({f.location})" for f in kernel.functors) or "no functor"
    if isinstance(err, NumbaError):
        what = f"failed to compile: functor {who}.\nNumba says:\n{err}"
    else:
        what = f"raised while running functor {who}: {type(err).__name__}: {err}"
    raise (FunctorIndexError if isinstance(err, IndexError) else FunctorError)(
        f"kernel {kernel.name} {what}\n"
        "Functors are plain functions Numba can compile, taking (src, dst, eid, weight, *state) "
        "for advance and neighbour reductions, (v, *state) for filter, compute, reduce and "
        "conditions, plus a last parameter named `graph` to receive the graph view; arrays come "
        "in as state arguments.\nGenerated source (operators.explain shows it too):\n"
        + kernel.source
    ) from err


def edge_items(spec: KernelSpec, name: str) -> WorkItems:
    """The work items of an edge visit (:func:`visit_edge`: an advance's, a traversal's): one
    per edge, a condition's call joining the call on its edge."""
    if name == "condition":
        return WorkItems(1, "condition on vertex {0}", (0,), leaves=0)
    return WorkItems(4, "edge {0}->{1} (eid {2})", (0, 1, 2), joins=1)


def element_items(spec: KernelSpec, name: str) -> WorkItems:
    """The work items of a loop over elements (:func:`for_each_input`: a filter's, compute's,
    reduce's): one per element."""
    return WorkItems(1, ("edge" if spec.domain == EDGES else "vertex") + " {0}", (0,))


def fold_items(owner: int) -> WorkItems:
    """The work items of a fold over a vertex's edges (:func:`arc_value`'s calls, one thread's
    sequential loop): one per vertex, the one at argument ``owner`` of its calls."""
    return WorkItems(4, "vertex {0} (folding its edges)", (owner,), owner, owner)


#: How the calls of one functor (by the name the kernel calls it) in a kernel of a spec form
#: work items for the race detector (:mod:`frontier.runtime.racecheck`).
ItemsRule = Callable[[KernelSpec, str], WorkItems]

#: Per operator (a spec's ``operator``): its kernels' rule, declared by the module generating
#: them (:func:`declare_work_items`).
_RULES: dict[str, ItemsRule] = {}


def declare_work_items(operator: str, rule: ItemsRule) -> None:
    """Declare how the functor calls of ``operator``'s kernels form work items: called by the
    module that generates them, beside its generator. :meth:`KernelSpec.work_items` looks it
    up; :func:`build` refuses a kernel whose operator declared none."""
    if _RULES.setdefault(operator, rule) is not rule:
        raise GeneratorError(f"two rules declare the work items of {operator} kernels "
                             f"({_RULES[operator].__qualname__} and {rule.__qualname__})")


def items_rule(spec: KernelSpec) -> ItemsRule:
    """The work items rule ``spec``'s operator declared (and its steps', for a composed
    kernel)."""
    rule = _RULES.get(spec.operator)
    if rule is None:
        raise GeneratorError(
            f"the {spec.operator} generator declares no work items for the race detector: "
            "its module calls operators.codegen.declare_work_items beside the generator "
            f"(declared: {', '.join(sorted(_RULES))})")
    for step in spec.steps:
        items_rule(step)
    return rule


_KERNELS: SharedCache[GeneratedKernel] = SharedCache("generated kernels")


def build(target: Target, shape: LaunchShape, spec: KernelSpec,
          functors: dict[str, Callable | Functor], body: Callable[[], str],
          extra_params: tuple[str, ...] = (), name: str | None = None) -> GeneratedKernel:
    """Kernel ``def name(<convention params>)``: the target's thread prologue, the graph view
    where a functor wants it, then ``body()``, calling each of ``functors`` by its key; compiled
    for ``target`` and launched with ``shape``. The parameters are those of
    :func:`operators.convention.kernel_params` of ``spec`` and ``extra_params`` that the
    kernel's text uses (a launch costs per argument); launch with the arguments
    :func:`operators.convention.kernel_arguments` builds for them.

    Cached per (target and its compile mode, shape, spec, functors, extra params, name):
    everything the text and its compilation depend on (the checked mode of
    :func:`frontier.runtime.target.bounds_checked` included), so a repeated operator call costs a
    dictionary lookup. Built once when several threads ask for it at once
    (:class:`frontier.runtime.shared_cache.SharedCache`)."""
    resolved = {n: as_functor(fn, n) for n, fn in functors.items()}
    key = (target.compile_key, shape, spec, extra_params, name,
           tuple(sorted(resolved.items())))
    return _KERNELS.get(key, lambda: _generate(target, shape, spec, resolved, body,
                                               extra_params, name))


def _generate(target: Target, shape: LaunchShape, spec: KernelSpec,
              resolved: dict[str, Functor], body: Callable[[], str],
              extra_params: tuple[str, ...], name: str | None) -> GeneratedKernel:
    """The kernel :func:`build` describes, generated, checked against the naming contract
    (:mod:`operators.naming`) and compiled."""
    items_rule(spec)  # an operator without work items is refused before its text is built
    check_raises(target, resolved.values())
    main = resolved.get("functor")
    name = name or (f"{spec.operator}{spec.variant}_{shape.slug}_{spec.domain}_"
                    f"{spec.input}_to_{spec.output}__{main.name if main else 'helper'}")
    view = (f"graph = ({', '.join(graphview.GRAPH_VIEW_FIELDS)})\n" if spec.graph_view
            else "")
    code = view + body()
    lifted = scalar_params(resolved)
    for called, names in lifted.items():  # closure numbers: the functor's leading arguments
        code = re.sub(rf"\b{called}\(", f"{called}({', '.join(names)}, ", code)
    namespace: dict[str, Any] = {
        "int32": np.int32, "int64": np.int64, "uint64": np.uint64, "float64": np.float64,
        "FULL": FULL_MASK, "as_index": as_index,
        **ring.namespace(),
        **{n: compile_functor(target, f, spec.work_items(n)) for n, f in resolved.items()},
        **(intrinsics(target.simulated) if target.runs_balancers else {}),  # warps: a GPU's
        **dict(shape.namespace),
    }
    candidates = kernel_params(spec, extra_params) + sum(lifted.values(), ())
    used = check_names(code, name, spec.operator,
                       {*candidates, *target.thread_params, *assigned(target.prologue),
                        *namespace, *target.text_names()}, resolved)
    params = tuple(p for p in candidates if p in used)  # launches cost per argument
    text = target.index_reads(f"def {name}({', '.join(params)}):\n"
                              + indent(target.kernel_entry(params)) + indent(code))
    technique = shape.technique
    return GeneratedKernel(name, text, target.compile_source(name, text, namespace), shape,
                           params, tuple(resolved.values()), spec,
                           shape.slug if technique is None else str(technique))
