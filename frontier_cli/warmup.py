"""``frontier warmup``: compile the default kernels of every algorithm once, into the disk cache.

Generated kernels are kept in the per-user cache directory (:mod:`frontier.runtime.kernel_cache`),
so only the first process that needs a kernel compiles it. :func:`warm_up` makes that first time
now instead of in a user's first call: it runs each algorithm of :data:`algorithms.CATALOG` with
its default options on small graphs (a grid, unweighted and weighted, or the entry's example
graph), from vertex 0 where it takes a source, on the given target, and reports, per
algorithm, how many kernel versions it compiled and how many it loaded from the cache. A call
the algorithm refuses (a graph it does not take) is reported as skipped, with its reason.

:func:`unkept` says, before any work, why a warm-up would keep nothing: a target that keeps no
compiled code (the CUDA simulator compiles none), or a cache directory that is refused or
cannot be made (:func:`frontier.runtime.cache_files.check_directory`: another user could write it,
it is a file, it cannot be created); :func:`stored` says afterwards whether anything went through
the disk cache. ``frontier warmup`` fails (exit 2, one line saying why) in either case rather
than report kernels compiled for nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from algorithms import CATALOG
from frontier import generators
from frontier.graph import Graph
from frontier.runtime import kernel_cache
from frontier.runtime.cache_dir import cache_dir
from frontier.runtime.cache_entries import KERNELS
from frontier.runtime.cache_files import check_directory
from frontier.runtime.target import Target

__all__ = ["Warmed", "warm_up", "GRAPHS", "unkept", "stored"]

#: The graphs every algorithm runs on (an entry with an example graph runs on that instead).
GRAPHS: dict[str, Callable[[], Graph]] = {
    "grid:32x32": lambda: generators.grid2d(32, 32),
    "grid:32x32 weighted": lambda: generators.grid2d(32, 32, weights=(1, 9)),
}


@dataclass(frozen=True)
class Warmed:
    """One algorithm's warm-up: kernel versions ``compiled`` and ``loaded`` from the disk
    cache, the seconds it took, and why a graph was ``skipped`` (empty: none)."""

    algorithm: str
    compiled: int
    loaded: int
    seconds: float
    skipped: tuple[str, ...] = ()


def cases() -> list[tuple[str, list[str]]]:
    """Each algorithm of the catalog with the names of the graphs it runs on."""
    return [(name, [entry.example] if entry.example else list(GRAPHS))
            for name, entry in CATALOG.items()]


def warm_up(target: Target, advance: Callable[[], None] = lambda: None) -> list[Warmed]:
    """Run every algorithm's default call on the small graphs on ``target`` (see the module
    docstring), calling ``advance`` after each algorithm."""
    built: dict[str, Graph] = {}
    found = []
    for name, graph_names in cases():
        entry = CATALOG[name]
        before, start, skipped = kernel_cache.stats(), time.perf_counter(), []
        for graph_name in graph_names:
            if graph_name not in built:
                built[graph_name] = (GRAPHS[graph_name]() if graph_name in GRAPHS
                                     else generators.from_spec(graph_name))
            try:
                entry.invoke(built[graph_name], 0 if entry.source else None,
                             balancer="auto", target=target)
            except (ValueError, TypeError) as err:  # a graph the algorithm does not take
                skipped.append(f"{graph_name}: {str(err).splitlines()[0][:120]}")
        after = kernel_cache.stats()
        found.append(Warmed(name, after.compiled + after.uncached - before.compiled
                            - before.uncached, after.loaded - before.loaded,
                            time.perf_counter() - start, tuple(skipped)))
        advance()
    return found


def unkept(target: Target) -> str | None:
    """Why warming ``target`` up would keep nothing on disk (see the module docstring), or None
    where its kernels can be kept."""
    if target.disk_key is None:
        return (f"the {target.name} target{' in the simulator' if target.simulated else ''} "
                "compiles no code to keep; expected the cpu target or a GPU")
    folder, why = check_directory(cache_dir(), KERNELS)
    return None if folder is not None else why


def stored(before: kernel_cache.KernelCacheStats, after: kernel_cache.KernelCacheStats) -> bool:
    """Whether the kernels compiled between two :func:`frontier.runtime.kernel_cache.stats` went
    through the disk cache (saved or loaded), or none needed compiling."""
    through_disk = after.compiled + after.loaded - before.compiled - before.loaded
    return through_disk > 0 or after.uncached == before.uncached
