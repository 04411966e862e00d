"""One table of the backend's implementations and of the arguments each declines.

Each family module registers its functions with :func:`implements`, naming the rule that
declines arguments the function cannot honour exactly; :func:`declined` binds a call's arguments
to the implementation's signature (NetworkX's own) and asks that rule, so ``can_run`` says no
with the reason and NetworkX runs the call itself.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import networkx as nx

#: name -> implementation (its signature is NetworkX's)
IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {}
_DECLINES: dict[str, Callable[[dict[str, Any]], str | None]] = {}


def implements(declines: Callable[[dict[str, Any]], str | None] | None = None
               ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function under its name; ``declines(arguments)`` (arguments by
    parameter name, defaults applied) returns why the backend cannot honour them, or None."""
    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        IMPLEMENTATIONS[function.__name__] = function
        if declines is not None:
            _DECLINES[function.__name__] = declines
        return function
    return register


def declined(name: str, args: tuple, kwargs: dict) -> str | None:
    """Why the backend does not run ``name(*args, **kwargs)``, or None when it does."""
    function = IMPLEMENTATIONS.get(name)
    if function is None:
        return f"{name} is not implemented by the frontier backend"
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except TypeError as error:  # NetworkX's own function reports the mistake
        return f"the arguments do not fit {name}: {error}"
    bound.apply_defaults()
    rule = _DECLINES.get(name)
    return None if rule is None else rule(bound.arguments)


def target() -> Any:
    """Where the work runs: ``networkx.config.backends.frontier.target`` (None: the GPU if
    usable, else the cpu target)."""
    return getattr(getattr(nx.config.backends, "frontier", None), "target", None)


def callable_weight(arguments: dict[str, Any]) -> str | None:
    """The rule of every function whose ``weight`` may be a callable: declined."""
    weight = arguments.get("weight")
    return f"weight={weight!r}: a callable weight is declined" if callable(weight) else None
