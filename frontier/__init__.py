"""Frontier: graph algorithms as advance / filter / compute operators over a frontier.

The graph (:class:`Graph`), the frontier (:class:`Frontier`), loaders (:func:`load`),
generators (:mod:`frontier.generators`), targets (:func:`resolve_target`), and the atomics, the
graph view (:func:`neighbors`, :func:`intersection_count`, :func:`common_neighbors`, ...) and
random numbers (:func:`random`, :func:`random_bits`) usable inside functors. The operators live
in :mod:`operators` (the load balancers' names in ``operators.available_balancers()``), the
algorithms in :mod:`algorithms`, the command line in :mod:`frontier_cli`; this package imports
none of them.
"""

from __future__ import annotations

from frontier import generators
from frontier.errors import (
    GraphError,
    GraphTooLargeError,
    NegativeCycleError,
    NegativeWeightsError,
    TargetError,
)
from frontier.frontier import (
    Frontier,
    FrontierError,
    FrontierOverflowError,
    StaleFrontierError,
)
from frontier.graph import Graph
from frontier.graphview import (
    common_neighbors,
    graph_edges,
    graph_vertices,
    in_degree,
    in_neighbors,
    intersection_count,
    neighbors,
    out_degree,
    tally_common_neighbors,
)
from frontier.lazy_exports import lazy_exports
from frontier.runtime import early_context
from frontier.runtime.atomics import (
    atomic_add,
    atomic_cas,
    atomic_claim,
    atomic_exch,
    atomic_load,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_store,
)
from frontier.runtime.devicefn import device_function
from frontier.runtime.interrupts import prepare_numba
from frontier.runtime.rng import random, random_bits
from frontier.runtime.target import Target
from frontier.target import resolve_target

__all__ = [
    "Graph", "GraphError", "Frontier", "FrontierError", "StaleFrontierError",
    "FrontierOverflowError", "NegativeCycleError", "NegativeWeightsError",
    "Target", "TargetError", "resolve_target",
    "load", "load_with_labels", "save", "GraphFormatError", "GraphTooLargeError", "generators",
    "atomic_add", "atomic_min", "atomic_max", "atomic_cas", "atomic_exch", "atomic_or",
    "atomic_load", "atomic_store", "atomic_claim",
    "out_degree", "in_degree", "graph_vertices", "graph_edges", "neighbors", "in_neighbors",
    "intersection_count", "tally_common_neighbors", "common_neighbors", "device_function",
    "random", "random_bits",
]

__version__ = "0.1.0"

# the loaders, imported on first use (frontier.lazy_exports): a call on a graph built in memory
# (a generator, NetworkX's) reads no file
lazy_exports(__name__, {name: "frontier.io" for name in (
    "GraphFormatError", "load", "load_with_labels", "save")})

early_context.start()

# Numba's lazy loading of its CPU target, done now with Ctrl-C held back: cut half-way by an
# interrupt, it would break every later compilation (frontier.runtime.interrupts).
prepare_numba("cpu")

