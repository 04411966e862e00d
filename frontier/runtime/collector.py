"""Python's cyclic garbage collector held back while the library imports.

Importing the library (Numba, its CPU target's registries, the graph model) makes a few hundred
thousand objects that all live as long as the process: none of them is garbage. Python's
collector counts them anyway, and where the process already holds a large heap (a NetworkX
graph of a million edges, say) the new objects trigger full collections, each of which walks
every object of that heap, to free nothing (in a process holding such a graph, most of the
import's time). ``import frontier`` therefore runs
:func:`paused`; the collector runs again as soon as the import ends, and collects then whatever
the process (any of its threads) left meanwhile.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused"]

_lock = threading.Lock()
#: Blocks inside :func:`paused` now, and whether the outermost found the collector enabled.
_depth = 0
_resume = False


@contextmanager
def paused() -> Iterator[None]:
    """Run the block with the collector disabled (in every thread: the collector is the
    process's), then enabled again where it was enabled when the outermost of the blocks
    running at once began; a collector the process had disabled stays disabled."""
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()
