"""Names the upper layers register with the core, so that ``frontier`` can list them without
importing those layers (the layering: ``frontier`` imports neither ``operators`` nor
``algorithms``; see pyproject.toml).

``operators.balancers`` registers the static load balancers' names when it is imported (and
``algorithms`` imports it); :func:`available_balancers` is then the same list as
``operators.available_balancers()``, the registry itself.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["register_balancers", "available_balancers"]

_BALANCERS: list[str] = []


def register_balancers(names: Iterable[str]) -> None:
    """Record the static balancers' names (called by ``operators.balancers`` on import)."""
    _BALANCERS[:] = list(names)


def available_balancers() -> list[str]:
    """The static load balancers' names, as ``operators.available_balancers()`` lists them;
    raises LookupError before ``operators`` has been imported (nothing is registered yet)."""
    if not _BALANCERS:
        raise LookupError("no load balancers are registered yet: operators registers them "
                          "when imported (import operators or algorithms first)")
    return list(_BALANCERS)
