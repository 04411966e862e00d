"""``balancer="auto"``: the adaptive runtime picks a static balancer at every step (Li & Becchi,
*Deploying Graph Algorithms on GPUs: an Adaptive Solution*, §VI).

This object is not a load balancer: it only names the choice and carries the thresholds it is
made with. An operator or an algorithm resolves it once per call into an
:class:`operators.policy.AdaptivePolicy` (:func:`operators.policy.resolve_policy`), whose
decision maker (:mod:`operators.adaptive`) picks a static balancer per step or fused phase.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["AutoBalancer"]


@dataclass(frozen=True)
class AutoBalancer:
    """Choose the balancer per step. ``thresholds`` (an
    :class:`operators.adaptive.Thresholds`) overrides those of the target (device properties
    and the ``frontier calibrate`` cache)."""

    thresholds: Any = None

    name = "auto"

    def __str__(self) -> str:
        return self.name
