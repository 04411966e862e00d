"""The catalog of algorithms, :data:`CATALOG` (name -> :class:`algorithms.entry.Entry`): the
command line (``frontier run ALGO``, ``frontier explain ALGO``), the benchmark suite and the
tests pick up every algorithm from it without knowing one by name.

This module only collects: every module of the ``algorithms`` package declares its own entries
beside the algorithm, in a module-level ``ENTRIES`` tuple of :class:`~algorithms.entry.Entry`
(see that module for what an entry holds), and :func:`collect` gathers them, sorted by name.
A new algorithm is a new module declaring ``ENTRIES``: nothing here changes."""

from __future__ import annotations

import importlib
import pkgutil

import algorithms
from algorithms.entry import Entry

__all__ = ["CATALOG", "collect"]

#: Modules of the package that declare no entries and are not imported to look: this one, the
#: NetworkX backend (it needs networkx, a test dependency, and sits on top of the algorithms),
#: and the scale-out routines (imported only for a partitioned graph).
_NOT_SCANNED = frozenset({"catalog", "distributed"})


def collect() -> dict[str, Entry]:
    """Every entry declared by a module of the ``algorithms`` package, by name, sorted."""
    entries: dict[str, Entry] = {}
    for module in pkgutil.iter_modules(algorithms.__path__):
        if module.name in _NOT_SCANNED:
            continue
        for entry in getattr(importlib.import_module(f"algorithms.{module.name}"), "ENTRIES", ()):
            if entry.name in entries:
                raise ValueError(f"two catalog entries are named {entry.name!r}")
            entries[entry.name] = entry
    return {name: entries[name] for name in sorted(entries)}


CATALOG: dict[str, Entry] = collect()
