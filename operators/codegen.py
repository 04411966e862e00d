"""The code generator: composes a user functor with a load balancer into a kernel.

Each operator call is described by a :class:`KernelSpec` (which operator, input and output
frontier forms, weighted or not, how many state arguments). The balancer writes the part of the
kernel that maps work to threads; this module supplies the shared pieces (the thread prologue of
the target, clearing the ring slot for the next step, calling the functor, pushing into the output
frontier), assembles the source text, compiles it for the target and caches the result per
(target, source, functor). The source text is what :func:`operators.explain` shows.

Seed 004 §5 separates exactly these concerns: the per-edge work of an operator and the mapping of
that work onto threads (the load balancer).
"""

from __future__ import annotations

import inspect
import linecache
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numba import cuda

from frontier import atomics
from frontier.frontier import OVERFLOW_FLAG
from frontier.target import Target
from frontier.warp_intrinsics import intrinsics

if TYPE_CHECKING:
    from operators.balancers.base import LoadBalancer

SPARSE, DENSE, NONE, RANGE = "sparse", "dense", "none", "range"

#: Parameters every frontier-producing kernel takes (operators.common.launch_step passes them).
STEP_PARAMS = ("num_vertices", "in_ids", "in_words", "lens", "in_slot", "out_slot", "clear_slot",
               "out_ids", "out_words", "clear_words", "clear_num_words")
#: The graph's arrays, first parameters of every kernel that reads edges.
GRAPH_PARAMS = ("row_offsets", "col_indices", "weights")
#: Parameters of compute kernels, by input form.
COMPUTE_PARAMS = {RANGE: ("count",), SPARSE: ("in_ids", "lens", "in_slot"),
                  DENSE: ("num_vertices", "in_words")}


class FunctorError(TypeError):
    """A user functor could not be compiled or called for the operator it was given to."""


@dataclass(frozen=True)
class KernelSpec:
    """What one generated kernel does, apart from the functor and the balancer."""

    operator: str          # "advance", "filter" or "compute"
    input: str             # SPARSE, DENSE or RANGE
    output: str            # SPARSE, DENSE or NONE
    weighted: bool = False
    num_state: int = 0
    unique: bool = False

    @property
    def state(self) -> str:
        return "".join(f", s{i}" for i in range(self.num_state))

    def weight_of(self, e: str) -> str:
        """Expression for the weight of edge ``e`` (1 on an unweighted graph)."""
        return f"weights[{e}]" if self.weighted else "1"


def indent(text: str, levels: int = 1) -> str:
    return textwrap.indent(text, "    " * levels)


def clear_next_slot() -> str:
    """Reset the ring slot the *next* operator call will write (see frontier.FrontierPool)."""
    return ("if tid == 0:\n"
            "    lens[clear_slot] = 0\n"
            "for w in range(tid, clear_num_words, nthreads):\n"
            "    clear_words[w] = 0\n")


def is_active(words: str, v: str) -> str:
    """Expression: is vertex ``v`` set in bitmap ``words``."""
    return f"((({words}[{v} >> 5]) >> ({v} & 31)) & 1) != 0"


def push(output: str, v: str) -> str:
    """Statements adding vertex ``v`` to the output frontier."""
    if output == SPARSE:
        return (f"pos = atomic_add(lens, out_slot, 1)\n"
                f"if pos < out_ids.shape[0]:\n    out_ids[pos] = {v}\n"
                f"else:\n    lens[OVERFLOW] = 1\n")
    if output == DENSE:
        return (f"word = {v} >> 5\n"
                f"bit = uint32(1) << uint32({v} & 31)\n"
                "if (out_words[word] & bit) == 0:\n"
                "    if (atomic_or(out_words, word, bit) & bit) == 0:\n"
                "        atomic_add(lens, out_slot, 1)\n")
    return "pass\n"


def visit_edge(spec: KernelSpec, src: str, e: str) -> str:
    """Statements for one edge ``e`` leaving ``src``: call the functor, push on True."""
    return (f"dst = col_indices[{e}]\n"
            f"if functor({src}, dst, {e}, {spec.weight_of(e)}{spec.state}):\n"
            + indent(push(spec.output, "dst")))


def for_each_input(spec: KernelSpec, v: str, body: str, index: str = "i") -> str:
    """A grid-stride loop over the input elements, binding each to ``v``."""
    if spec.input == SPARSE:
        return (f"for {index} in range(tid, min(lens[in_slot], in_ids.shape[0]), nthreads):\n"
                f"    {v} = in_ids[{index}]\n" + indent(body))
    if spec.input == DENSE:
        return (f"for {v} in range(tid, num_vertices, nthreads):\n"
                f"    if {is_active('in_words', v)}:\n" + indent(body, 2))
    return f"for {v} in range(tid, count, nthreads):\n" + indent(body)


@dataclass(frozen=True)
class GeneratedKernel:
    """A compiled kernel with its source text and launch shape."""

    name: str
    source: str
    function: Callable
    threads_per_block: int

    def launch(self, target: Target, blocks: int, args: tuple) -> None:
        try:
            target.launch(self.function, blocks, self.threads_per_block, args)
        except Exception as err:  # Numba raises typing errors at first launch
            _raise_functor_error(self, err)


def _raise_functor_error(kernel: GeneratedKernel, err: Exception) -> None:
    from numba.core.errors import NumbaError

    if not isinstance(err, NumbaError):
        raise err
    first = next((ln for ln in str(err).splitlines() if ln.strip()), str(err))
    raise FunctorError(
        f"kernel {kernel.name} failed to compile: {first.strip()}\n"
        "Functors must be plain functions Numba can compile, take (src, dst, eid, weight, *state) "
        "for advance or (v, *state) for filter/compute, and receive their arrays as state "
        "arguments.\nGenerated source (operators.explain shows it too):\n" + kernel.source
    ) from err


_KERNELS: dict[tuple, GeneratedKernel] = {}
_FUNCTORS: dict[tuple, Callable] = {}


def functor_name(fn: Callable) -> str:
    return getattr(fn, "__name__", "functor").replace("<", "").replace(">", "")


def build(target: Target, balancer: LoadBalancer, spec: KernelSpec, functor: Callable,
          body: Callable[[], str], params: tuple[str, ...],
          helpers: dict[str, Callable] | None = None) -> GeneratedKernel:
    """Kernel ``def name(*params, *state)``: the target's thread prologue, then ``body()``;
    compiled for ``target``. The body calls the user functor as ``functor`` and each of
    ``helpers`` (more user functions) by its key.

    Cached per (target, balancer, spec, functors, params): everything the text depends on, so a
    repeated operator call costs a dictionary lookup, not a regeneration of the source."""
    helpers = helpers or {}
    key = (target.name, target.simulated, balancer, spec, functor, params,
           tuple(sorted(helpers.items())))
    kernel = _KERNELS.get(key)
    if kernel is None:
        name = (f"{spec.operator}_{balancer.slug}_{spec.input}_to_{spec.output}"
                f"__{functor_name(functor)}")
        params = params + tuple(f"s{i}" for i in range(spec.num_state))
        text = f"def {name}({', '.join(params)}):\n" + indent(target.prologue) + indent(body())
        filename = f"<frontier-generated {name}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        namespace: dict[str, Any] = {
            "cuda": cuda, "uint32": np.uint32, "OVERFLOW": OVERFLOW_FLAG,
            "functor": _compile_functor(target, functor),
            **{n: _compile_functor(target, fn) for n, fn in helpers.items()},
            **{n: getattr(atomics, n) for n in atomics.__all__},
            **intrinsics(target.simulated),
            **balancer.namespace(),
        }
        exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - our own template
        kernel = GeneratedKernel(name, text, target.compile_kernel(namespace[name]),
                                 balancer.threads_per_block(target))
        _KERNELS[key] = kernel
    return kernel


def _compile_functor(target: Target, functor: Callable) -> Callable:
    if not callable(functor) or not inspect.isfunction(inspect.unwrap(functor)):
        raise FunctorError(f"functor {functor!r} is not a plain Python function")
    key = (target.name, target.simulated, functor)
    compiled = _FUNCTORS.get(key)
    if compiled is None:
        compiled = target.compile_device_function(functor)
        _FUNCTORS[key] = compiled
    return compiled


def grid_blocks(target: Target, threads_per_block: int, work: int) -> int:
    """Blocks for a grid-stride loop over ``work`` items: enough to cover them, at most what
    the device runs at once."""
    need = max(1, -(-max(work, 1) // threads_per_block))
    return min(need, target.resident_blocks(threads_per_block))
