"""The load-balancer interface: how an advance maps a frontier's edges onto GPU threads.

A balancer is a technique: it writes the body of an advance kernel from a
:class:`operators.codegen.KernelSpec`, using the code generator's shared pieces
(``for_each_input``, ``visit_edge``, ``push``), with the helper kernels and buffers it needs, and
gives its kernels' launch shape (:class:`operators.shape.LaunchShape`). Which balancer a step
runs is a policy's business (:mod:`operators.policy`), and kernels that no balancer writes have
a launch shape of their own. Busato & Bombieri, *Graph Algorithms on GPUs*, §5, survey the
techniques; each lives in its own module.

A balancer class also says which steps the adaptive runtime gives it (:class:`Regime`, its
``serves``): the decision maker (:mod:`operators.adaptive.rule`) runs, in each regime, the one
registered balancer serving it, so a balancer joins ``"auto"`` by declaring a regime.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from frontier.graph import Graph
from frontier.options import Option
from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target
from operators.codegen import KernelSpec
from operators.shape import LaunchShape

_SHAPES: SharedCache[LaunchShape] = SharedCache("launch shapes")
#: Where a balancer keeps its hash once computed (not one of its fields).
_HASH = "_hash"


class Regime(Option):
    """The steps ``balancer="auto"`` tells apart (:func:`operators.adaptive.decide`), each run
    by the registered balancer that serves it (:attr:`LoadBalancer.serves`)."""

    #: a step with enough edges for every thread of the GPU, or a frontier of hubs
    HUBS = "hubs"
    #: a frontier whose mean degree reaches ``t1`` (a warp)
    HEAVY = "heavy"
    #: a frontier of thin vertices smaller than ``t2``, which one thread each leaves idle
    SMALL = "small"
    #: a larger frontier of thin vertices
    THIN = "thin"
    #: the first steps over a queue whose length the host does not know
    BLIND = "blind"
    #: every step on a target that runs each balancer as one sequential loop (the CPU)
    SEQUENTIAL = "sequential"


class LoadBalancer(ABC):
    """One way of assigning an advance's work (frontier vertices and their edges) to threads."""

    #: The name users pass as ``balancer=...``.
    name: str = ""

    #: True when :func:`operators.traverse` can run many steps of this balancer inside one
    #: persistent kernel (its helper kernels' bodies, if any, run there between grid barriers).
    fusable: bool = True

    #: Input elements a block of its advance kernel takes at once (None: one per thread).
    items_per_block: int | None = None

    #: The steps of ``balancer="auto"`` it runs, made with its default parameters (none: only
    #: when named).
    serves: tuple[Regime, ...] = ()

    @property
    def slug(self) -> str:
        """Identifier-safe label used in generated kernel names."""
        return self.name

    @abstractmethod
    def advance_body(self, spec: KernelSpec) -> str:
        """The advance kernel's body (after the thread prologue): visit every edge leaving the
        input frontier, calling the functor once per edge, pushing on True."""

    @abstractmethod
    def threads_per_block(self, target: Target) -> int: ...

    def shape(self, target: Target) -> LaunchShape:
        """How this balancer's kernels (its advance and helper kernels) are launched on
        ``target`` (made once per balancer and target)."""
        return _SHAPES.get((self, target), lambda: LaunchShape(
            self.slug, self.threads_per_block(target), self.items_per_block,
            tuple(sorted(self.namespace().items())), self))

    def bind(self, graph: Graph, target: Target) -> LoadBalancer:
        """This balancer with what depends on the graph and the target resolved (block size,
        shared-memory sizes baked into the source); operators call it before generating code.
        The default has nothing to resolve."""
        return self

    def extra_params(self, spec: KernelSpec) -> tuple[str, ...]:
        """Names of the buffers this balancer's kernels take beyond the calling convention's
        (:mod:`operators.convention`), declared once for its advance and helper kernels."""
        return ()

    def buffers(self, spec: KernelSpec, frontier: Any) -> dict[str, Any]:
        """Values of :meth:`extra_params` for one call over ``frontier`` (scratch buffers of its
        pool); assembling them launches nothing."""
        return {}

    def phases(self, spec: KernelSpec) -> tuple[tuple[str, str], ...]:
        """Helper kernels (name, body) that run before the advance kernel in every step, in
        launch order; in a fused traversal their bodies run inside the persistent kernel, over
        its grid, so a body must work for any grid size."""
        return ()

    def fused_phases(self, spec: KernelSpec, barrier: str) -> str:
        """The bodies of :meth:`phases` inside a persistent kernel: each over its grid,
        followed by ``barrier`` (the kernel's grid or block barrier)."""
        return "".join(text + barrier for _, text in self.phases(spec))

    def phase_blocks(self, target: Target, frontier: Any) -> int:
        """Grid of the helper kernels of :meth:`phases`."""
        return 1

    def namespace(self) -> dict[str, Any]:
        """Globals the generated source refers to besides the standard ones."""
        return {}

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"<balancer {self}>"

    def __eq__(self, other: object) -> bool:
        return self is other or (type(self) is type(other) and self._fields() == other._fields())

    def __hash__(self) -> int:
        """The hash of the class and the fields (its parameters, set once when it is made),
        computed on first use and kept (kernel lookups hash a balancer on every call)."""
        found = self.__dict__.get(_HASH)
        if found is None:
            found = self.__dict__[_HASH] = hash((type(self), self._fields()))
        return found

    def _fields(self) -> tuple:
        """The balancer's fields (its instance attributes but the kept hash), by name."""
        return tuple(sorted((k, v) for k, v in vars(self).items() if k != _HASH))

    def __getstate__(self) -> dict[str, Any]:
        """The fields without the kept hash (a copy in another process hashes anew: a class's
        and a string's hashes differ between processes)."""
        state = self.__dict__.copy()
        state.pop(_HASH, None)
        return state


class SizedBalancer(LoadBalancer):
    """A balancer whose kernels use a fixed block size (``self.threads``, clamped to what the
    target runs) and the warp intrinsics. ``parameter`` names the attribute shown after the
    ``:`` of its name (``warp:8``), if any."""

    threads: int
    parameter: str | None = None

    @property
    def slug(self) -> str:
        return self.name + ("" if self.parameter is None else str(getattr(self, self.parameter)))

    def __str__(self) -> str:
        if self.parameter is None:
            return self.name
        return f"{self.name}:{getattr(self, self.parameter)}"

    def threads_per_block(self, target: Target) -> int:
        from operators.balancers import snippets

        return snippets.block_size(self.threads, target)

    def namespace(self) -> dict[str, Any]:
        from operators.balancers import snippets

        return snippets.namespace()
