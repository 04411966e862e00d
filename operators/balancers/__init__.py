"""The load balancers an advance can use, by name (``"thread"``, ``"warp:8"``) or as objects.

Each technique of Busato & Bombieri, *Graph Algorithms on GPUs*, §5, is one module behind
:class:`LoadBalancer`. ``"auto"`` is no technique but the adaptive runtime's choice
(:class:`AutoBalancer`), which a policy resolves per step (:mod:`operators.policy`).
"""

from __future__ import annotations

from frontier.options import BalancerName
from operators.balancers.auto import AutoBalancer
from operators.balancers.base import LoadBalancer
from operators.balancers.block import BlockMapped
from operators.balancers.cta_warp_scan import CtaWarpScan
from operators.balancers.dynamic_warp import DynamicWarp
from operators.balancers.multi_phase import MultiPhase
from operators.balancers.thread import ThreadMapped
from operators.balancers.two_phase import TwoPhase
from operators.balancers.warp import VirtualWarp

__all__ = ["LoadBalancer", "AutoBalancer", "AUTO", "ThreadMapped", "BlockMapped", "VirtualWarp",
           "DynamicWarp", "CtaWarpScan", "TwoPhase", "MultiPhase", "BALANCERS", "get_balancer",
           "available_balancers", "BalancerError"]

BALANCERS: dict[str, type[LoadBalancer]] = {
    cls.name: cls
    for cls in (ThreadMapped, BlockMapped, VirtualWarp, DynamicWarp, CtaWarpScan, TwoPhase,
                MultiPhase)
}


#: The adaptive choice (:mod:`operators.adaptive`): accepted by ``balancer=...`` and the default
#: of the algorithms, but not a static technique, so not listed by :func:`available_balancers`.
AUTO = BalancerName.AUTO


class BalancerError(ValueError):
    """An unknown balancer name or bad balancer parameter."""


def available_balancers(include_auto: bool = False) -> list[str]:
    """Names of the static balancers accepted by ``balancer=...`` (each one kernel technique;
    tests iterate over them), with ``"auto"`` first when ``include_auto``."""
    return ([AUTO] if include_auto else []) + sorted(BALANCERS)


def get_balancer(balancer: str | LoadBalancer | AutoBalancer) -> LoadBalancer | AutoBalancer:
    """A balancer object from a name like ``"thread"`` or ``"warp:8"`` (the part after ``:`` is
    the balancer's first parameter), or the object itself; ``"auto"`` gives an
    :class:`AutoBalancer`."""
    if isinstance(balancer, (LoadBalancer, AutoBalancer)):
        return balancer
    if not isinstance(balancer, str):
        raise BalancerError(f"balancer {balancer!r}; expected a name or a LoadBalancer")
    if balancer == AUTO:
        return AutoBalancer()
    name, _, param = balancer.partition(":")
    cls = BALANCERS.get(name)
    if cls is None:
        raise BalancerError(f"unknown balancer {name!r}; expected one of "
                            f"{available_balancers(include_auto=True)}")
    if not param:
        return cls()
    try:
        return cls(int(param))
    except ValueError as err:
        raise BalancerError(f"balancer {balancer!r}: {err}") from None
