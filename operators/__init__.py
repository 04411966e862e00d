"""The operators graph algorithms are written with.

* :func:`advance` visits the edges leaving a frontier, pushing, pulling or choosing per step
  (``direction``; Ligra's ``edgeMap``), and builds the next frontier from the heads the functor
  accepts;
* :func:`filter` keeps the frontier elements a predicate accepts, optionally without repeats;
* :func:`compute` runs a function on every element of a frontier or of a range;
* :func:`reduce` folds a function over a frontier or a range into one scalar;
* :func:`neighbor_reduce` folds a function over each vertex's in- or out-edges into a value per
  vertex (or takes its most frequent value, ``op="mode"``, or counts its values,
  ``op="histogram"``); over :class:`Levels`, level after level in one launch (a backward
  sweep);
* :func:`sort_neighbors` sorts each vertex's in- or out-arcs by a key (a segmented sort);
* :func:`iterate` runs per-vertex phases (:class:`Each`, :class:`Gather`, :class:`Total`)
  iteration after iteration until a total drops below a bound, fused into one persistent
  kernel (power iterations: PageRank);
* :func:`traverse` advances until the frontier is empty, fused into one persistent kernel;
* :func:`loop` runs a round of operator calls, written as a Python function, until the frontier
  it returns is empty, every round inside one persistent kernel (:data:`ROUND` gives a functor
  the round's number);
* :func:`tile_update` updates the tiles of a dense matrix around a pivot tile, tiles in shared
  memory (the phases of blocked Floyd–Warshall; :mod:`operators.tiles`).

Frontiers may hold vertex or edge ids (:class:`frontier.Frontier`). User functors are plain
Python functions (:mod:`operators.functors` says what they may read); the code generator
(:mod:`operators.codegen`) composes them with a load balancer (:mod:`operators.balancers`) into
kernels for the frontier's target. ``balancer=`` is resolved once per call into a policy
(:func:`resolve_policy`: one balancer, or the adaptive runtime's choice per step), which an
algorithm may resolve itself and pass to every operator it calls. :func:`recording` logs the
kernels launched inside it, in order (:mod:`frontier.runtime.recording`); :func:`explain` runs a
call under one and returns the
kernels' source.

Errors and warnings: :class:`FunctorError` (a functor that cannot be compiled, called or run;
:class:`FunctorIndexError`, also an ``IndexError``, for an index out of range in one, seen where
indices are checked: the checked mode, the simulator, :mod:`frontier.testing`'s checks),
:class:`OperatorError`, :class:`BalancerError`; :class:`RecompileWarning` when one functor's
code keeps being compiled (:mod:`operators.functors`).

Lifetime: ``advance``, ``filter``, a conversion or a union is one step of the input frontier's
pool, and a frontier stays valid until two more steps have run on its pool (the rule in full is
in :mod:`frontier.frontier`); ``compute``, ``reduce``, ``neighbor_reduce`` and
``sort_neighbors`` are not steps.
Keep a frontier longer with ``Frontier.copy()``; a stale one raises ``StaleFrontierError``.

The names here are imported on first use (:mod:`frontier.lazy_exports`): an algorithm imports
the operators it runs, not the others.
"""

from __future__ import annotations

from frontier.lazy_exports import lazy_exports
from frontier.runtime.recording import recording

__all__ = ["advance", "filter", "compute", "reduce", "neighbor_reduce", "sort_neighbors",
           "traverse", "iterate", "loop", "Looped", "LoopError", "ROUND",
           "Each", "Gather", "Total", "Iterated", "Levels",
           "Traversal", "Direction", "explain", "recording", "available_balancers", "get_balancer",
           "resolve_policy", "StaticPolicy", "AdaptivePolicy", "tile_update", "LoadBalancer",
           "FunctorError", "FunctorIndexError", "RecompileWarning", "BalancerError",
           "OperatorError"]

lazy_exports(__name__, {
    "advance": "operators.advance",
    "BalancerError": "operators.balancers", "LoadBalancer": "operators.balancers",
    "available_balancers": "operators.balancers", "get_balancer": "operators.balancers",
    "FunctorIndexError": "operators.codegen",
    "OperatorError": "operators.common",
    "compute": "operators.compute",
    "Direction": "operators.direction",
    "explain": "operators.explain",
    "filter": "operators.filter",
    "FunctorError": "operators.functors", "RecompileWarning": "operators.functors",
    "Each": "operators.iterate", "Gather": "operators.iterate", "Iterated": "operators.iterate",
    "Total": "operators.iterate", "iterate": "operators.iterate",
    "Levels": "operators.levels",
    "ROUND": "operators.loop", "Looped": "operators.loop", "LoopError": "operators.loop",
    "loop": "operators.loop",
    "neighbor_reduce": "operators.neighbors",
    "AdaptivePolicy": "operators.policy", "StaticPolicy": "operators.policy",
    "resolve_policy": "operators.policy",
    "reduce": "operators.reduce",
    "sort_neighbors": "operators.segmented_sort",
    "tile_update": "operators.tiles",
    "Traversal": "operators.traverse", "traverse": "operators.traverse",
})
