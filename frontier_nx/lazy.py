"""Modules the backend imports when a call first reads them, not when NetworkX loads it.

NetworkX imports :mod:`frontier_nx.interface` on the first call that may dispatch to the
backend and asks ``can_run`` and ``should_run`` before anything runs. A call that stays in
NetworkX (declined, or faster there) must not pay for numpy, scipy, Numba and the library
(together over a second in a fresh process, and the library's import starts a thread that loads
Numba's CUDA registries beside NetworkX's own work): the family modules name them through
:class:`LazyModule`, which imports its module on the first attribute read.

The import makes a few hundred thousand objects (Numba, its CPU target's registries, the graph
model) that live as long as the process, none of them garbage; counted by Python's collector,
they would trigger full collections, each walking the caller's NetworkX graph (a dictionary per
node and per edge) to free nothing: the import runs with the collector paused
(:func:`frontier_nx.bulk.paused`).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from frontier_nx import bulk

__all__ = ["LazyModule"]


class LazyModule:
    """Module ``name``, imported on the first attribute read (Python's import lock makes a
    first read from several threads import it once); every read is the module's attribute."""

    __slots__ = ("_module", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        module = self._module
        if module is None:
            with bulk.paused():  # the import's objects live as long as the process
                module = self._module = importlib.import_module(self._name)
        return getattr(module, attribute)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<LazyModule {self._name!r}, {state}>"
