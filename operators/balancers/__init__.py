"""The load balancers an advance can use, by name (``"thread"``, ``"warp:8"``) or as objects.

Each technique of seed 004 §5 is one module behind :class:`LoadBalancer`.
"""

from __future__ import annotations

from operators.balancers.base import LoadBalancer
from operators.balancers.thread import ThreadMapped

__all__ = ["LoadBalancer", "ThreadMapped", "BALANCERS", "get_balancer", "available_balancers",
           "BalancerError"]

BALANCERS: dict[str, type[LoadBalancer]] = {
    ThreadMapped.name: ThreadMapped,
}


class BalancerError(ValueError):
    """An unknown balancer name or bad balancer parameter."""


def available_balancers() -> list[str]:
    """Names accepted by ``balancer=...``."""
    return sorted(BALANCERS)


def get_balancer(balancer: str | LoadBalancer) -> LoadBalancer:
    """A balancer object from a name like ``"thread"`` or ``"warp:8"`` (the part after ``:`` is
    the balancer's first parameter), or the object itself."""
    if isinstance(balancer, LoadBalancer):
        return balancer
    if not isinstance(balancer, str):
        raise BalancerError(f"balancer {balancer!r}; expected a name or a LoadBalancer")
    name, _, param = balancer.partition(":")
    cls = BALANCERS.get(name)
    if cls is None:
        raise BalancerError(f"unknown balancer {name!r}; expected one of {available_balancers()}")
    if not param:
        return cls()
    try:
        return cls(int(param))
    except ValueError as err:
        raise BalancerError(f"balancer {balancer!r}: {err}") from None
