"""``balancer="auto"``: the adaptive runtime picks a static balancer at every step (Li & Becchi,
*Deploying Graph Algorithms on GPUs: an Adaptive Solution*, §VI).

This object only names the choice and carries the thresholds it is made with; the decision maker
and the graph inspector are :mod:`operators.adaptive`. Operators resolve it to one of the static
balancers before generating any code (``advance`` and ``explain`` per call, ``traverse`` per
step or fused phase), so it has no kernel text of its own.
"""

from __future__ import annotations

from typing import Any

from frontier.target import Target
from operators.balancers.base import LoadBalancer
from operators.codegen import KernelSpec


class AutoBalancer(LoadBalancer):
    """Choose the balancer per step. ``thresholds`` (an :class:`operators.adaptive.Thresholds`)
    overrides those of the target (device properties and the ``frontier calibrate`` cache)."""

    name = "auto"
    adaptive = True
    fusable = False

    def __init__(self, thresholds: Any = None) -> None:
        self.thresholds = thresholds

    def advance_body(self, spec: KernelSpec) -> str:
        from operators.balancers import BalancerError

        raise BalancerError("balancer 'auto' is resolved to a static balancer before code is "
                            "generated (operators.adaptive); it has no kernel of its own")

    def threads_per_block(self, target: Target) -> int:
        return min(256, target.max_threads_per_block)
