"""Results of many Python containers, and the library's import, without the cyclic garbage
collector's passes.

A result such as ``single_source_shortest_path``'s (a list per reached node) allocates one
container per node. CPython starts a collection every few hundred allocations and a full one
whenever the long-lived containers have grown by a quarter, and each full collection walks
every tracked container of the process: the caller's NetworkX graph too, three dictionaries per
node and one per edge. Building 100,000 paths next to a 1,000,000-edge graph spent five sixths
of its time in those walks. The containers a builder makes hold only nodes, numbers and each
other, without cycles, so nothing a pause leaves uncollected is garbage; :func:`paused`
suspends the collector while one is built (and while the library is imported:
:mod:`frontier_nx.lazy`) and restores it after.

The collector is the process's: one pause may overlap another's in a second thread, so the
pauses are counted, and the collector is enabled again when the last one ends, only if it was
enabled when the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused"]

_LOCK = threading.Lock()
_state = {"depth": 0, "was_enabled": False}


@contextmanager
def paused() -> Iterator[None]:
    """The garbage collector suspended inside the block (see the module's docstring)."""
    with _LOCK:
        if _state["depth"] == 0:
            _state["was_enabled"] = gc.isenabled()
            gc.disable()
        _state["depth"] += 1
    try:
        yield
    finally:
        with _LOCK:
            _state["depth"] -= 1
            if _state["depth"] == 0 and _state["was_enabled"]:
                gc.enable()
