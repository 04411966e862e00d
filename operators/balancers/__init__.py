"""The load balancers an advance can use, by name (``"thread"``, ``"warp:8"``) or as objects.

Each technique of Busato & Bombieri, *Graph Algorithms on GPUs*, §5, is one module behind
:class:`LoadBalancer`, registered here in :data:`BALANCERS` by its ``name``: this registry is
the one list of balancers (``balancer=`` names, :func:`available_balancers`, the command line,
the tests). ``"auto"`` is no technique but the adaptive runtime's choice
(:class:`AutoBalancer`), which a policy resolves per step (:mod:`operators.policy`) with the
balancer each registered class declares it serves (:class:`Regime`, :func:`serving`).
"""

from __future__ import annotations

from operators.balancers.auto import AutoBalancer
from operators.balancers.base import LoadBalancer, Regime
from operators.balancers.block import BlockMapped
from operators.balancers.cta_warp_scan import CtaWarpScan
from operators.balancers.dynamic_warp import DynamicWarp
from operators.balancers.multi_phase import MultiPhase
from operators.balancers.thread import ThreadMapped
from operators.balancers.two_phase import TwoPhase
from operators.balancers.warp import VirtualWarp

__all__ = ["LoadBalancer", "AutoBalancer", "Regime", "ThreadMapped", "BlockMapped", "VirtualWarp",
           "DynamicWarp", "CtaWarpScan", "TwoPhase", "MultiPhase", "BALANCERS", "get_balancer",
           "available_balancers", "serving", "BalancerError"]

#: The registry: every static balancer by its name (a new balancer: its module, and its class
#: here). ``"auto"`` (:class:`AutoBalancer`), the adaptive choice, is accepted by
#: ``balancer=...`` and the default of the algorithms, but is no technique, so not listed.
BALANCERS: dict[str, type[LoadBalancer]] = {
    cls.name: cls
    for cls in (ThreadMapped, BlockMapped, VirtualWarp, DynamicWarp, CtaWarpScan, TwoPhase,
                MultiPhase)
}


class BalancerError(ValueError):
    """An unknown balancer name or bad balancer parameter."""


def available_balancers(include_auto: bool = False) -> list[str]:
    """Names of the static balancers accepted by ``balancer=...`` (each one kernel technique;
    tests iterate over them), with ``"auto"`` first when ``include_auto``."""
    return ([AutoBalancer.name] if include_auto else []) + sorted(BALANCERS)


def serving(regime: Regime) -> LoadBalancer:
    """The registered balancer serving ``regime`` of ``"auto"`` (its class lists it in
    :attr:`LoadBalancer.serves`), with its default parameters; ``BalancerError`` unless
    exactly one does."""
    found = [cls for cls in BALANCERS.values() if regime in cls.serves]
    if len(found) != 1:
        raise BalancerError(f"{len(found)} registered balancers serve the {regime!r} steps of "
                            f"balancer='auto' ({', '.join(c.name for c in found) or 'none'}); "
                            "expected exactly one (LoadBalancer.serves)")
    return found[0]()


#: ``"auto"`` without thresholds (frozen: one object serves every call).
_AUTO = AutoBalancer()


def get_balancer(balancer: str | LoadBalancer | AutoBalancer) -> LoadBalancer | AutoBalancer:
    """A balancer object from a name like ``"thread"`` or ``"warp:8"`` (the part after ``:`` is
    the balancer's first parameter), or the object itself; ``"auto"`` gives an
    :class:`AutoBalancer` (the one without thresholds: it holds nothing else)."""
    if not isinstance(balancer, str):
        if isinstance(balancer, (LoadBalancer, AutoBalancer)):
            return balancer
        raise BalancerError(f"balancer {balancer!r}; expected a name or a LoadBalancer")
    if balancer == AutoBalancer.name:
        return _AUTO
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
