"""The launch shape of a generated kernel: how many threads a block has, how many blocks a
launch takes for its work, the globals its text refers to beyond the standard ones, and the
label its name carries (Gunrock keeps the same apart: ``launch_box_t`` beside
``load_balance_t``).

Every kernel has a shape, a load balancer's or not: :func:`operators.codegen.build` takes one.
A balancer's advance kernels take :meth:`operators.balancers.LoadBalancer.shape`; the kernels
that map one element to one thread (filter, compute, reduce, neighbour reductions, pull steps,
edge advances) take :func:`per_element`, and the small-frontier mode its own one-block shape
(:mod:`operators.small_frontier`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from frontier.runtime.shared_cache import SharedCache
from frontier.runtime.target import Target

__all__ = ["LaunchShape", "per_element", "grid_blocks", "persistent_grid", "PER_ELEMENT_THREADS"]

#: Threads per block of a kernel that gives each element one thread (at most the target's).
PER_ELEMENT_THREADS = 256


@dataclass(frozen=True)
class LaunchShape:
    """How one kernel is launched and named.

    ``slug``: the label in the kernel's name; ``threads_per_block``: the block size, within what
    the target runs; ``items_per_block``: input elements a block takes at once (None: one per
    thread; 1: a block per element), which sets the grid for a given amount of work;
    ``namespace``: globals the text refers to beyond the code generator's standard ones (name,
    value pairs); ``technique``: what else the text depends on (the load balancer that wrote
    it, with its parameters), so that two kernels of one name and different text are two
    kernels."""

    slug: str
    threads_per_block: int
    items_per_block: int | None = None
    namespace: tuple[tuple[str, Any], ...] = ()
    technique: Hashable = None
    _hash: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:  # kernels are looked up by their shape on every call
        object.__setattr__(self, "_hash", hash((self.slug, self.threads_per_block,
                                                self.items_per_block, self.namespace,
                                                self.technique)))

    def __hash__(self) -> int:
        return self._hash

    def blocks(self, target: Target, work: int) -> int:
        """Blocks to launch for ``work`` input elements (an upper bound when the length lives
        on the device): enough to cover them, at most what the device runs at once."""
        per_block = self.items_per_block or self.threads_per_block  # None: one per thread
        need = max(1, -(-max(work, 1) // per_block))
        return min(need, target.resident_blocks(self.threads_per_block))


def per_element(target: Target, threads: int = PER_ELEMENT_THREADS) -> LaunchShape:
    """The shape of a kernel whose threads take one element each in a grid-stride loop:
    ``threads`` per block (at most the target's); where no balancer applies its technique is
    that note (:attr:`Target.no_balancer`), which recordings show as its balancer."""
    if threads < 1 or threads > 1024:
        raise ValueError(f"threads per block {threads}; expected 1..1024")
    return _PER_ELEMENT.get((target, target.simulated, threads), lambda: LaunchShape(
        "thread", min(threads, target.max_threads_per_block), technique=target.no_balancer))


#: The per-element shapes, per target (and whether it is simulated) and block size: looked up
#: on every operator call, made once.
_PER_ELEMENT: SharedCache[LaunchShape] = SharedCache("per-element shapes")


def persistent_grid(target: Target, threads_per_block: int, blocks: int | None) -> int:
    """Blocks of a persistent kernel's launch: ``blocks`` (None: the target's
    ``persistent_blocks``), at most what the device holds at once (a grid barrier waits for
    every block)."""
    return min(blocks or target.persistent_blocks(threads_per_block),
               target.resident_blocks(threads_per_block))


def grid_blocks(target: Target, threads_per_block: int, work: int) -> int:
    """Blocks for a grid-stride loop over ``work`` items: enough to cover them, at most what
    the device runs at once."""
    need = max(1, -(-max(work, 1) // threads_per_block))
    return min(need, target.resident_blocks(threads_per_block))
