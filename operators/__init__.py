"""The operators graph algorithms are written with.

* :func:`advance` visits every edge leaving a frontier and builds the next frontier from the
  destinations the functor accepts (seed 004 §2.1; Gunrock's advance);
* :func:`filter` keeps the frontier elements a predicate accepts, optionally without repeats;
* :func:`compute` runs a function on every element of a frontier or of a range;
* :func:`traverse` advances until the frontier is empty, fused into one persistent kernel.

User functors are plain Python functions; the code generator (:mod:`operators.codegen`)
composes each with a load balancer (:mod:`operators.balancers`) into a kernel for the frontier's
target. :func:`explain` returns that kernel's source.
"""

from __future__ import annotations

from operators.advance import advance
from operators.balancers import BalancerError, LoadBalancer, available_balancers, get_balancer
from operators.codegen import FunctorError
from operators.common import OperatorError
from operators.compute import compute
from operators.explain import explain
from operators.filter import filter  # noqa: A004
from operators.traverse import Traversal, traverse

__all__ = ["advance", "filter", "compute", "traverse", "Traversal", "explain",
           "available_balancers", "get_balancer", "LoadBalancer", "FunctorError",
           "BalancerError", "OperatorError"]
