"""One table of the backend's implementations and of the arguments each declines.

Each family module registers its functions with :func:`implements`, naming the rule that
declines arguments the function cannot honour exactly; :func:`declined` binds a call's arguments
to the implementation's signature (NetworkX's own) and asks that rule, so ``can_run`` says no
with the reason and NetworkX runs the call itself. A family module is imported when one of its
functions is first asked about (:func:`implementation`, by
:data:`frontier_nx.functions.FAMILY`), so a call loads its own family alone.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from itertools import takewhile
from typing import Any

import networkx as nx

from frontier_nx.functions import FAMILIES, FAMILY

#: The oldest NetworkX the backend runs under, the oldest its tests pass on (3.3's
#: configuration and cache of conversions differ, 3.2 has neither); it declines every call
#: under an older one
OLDEST_NETWORKX = (3, 4)

#: name -> implementation (its signature is NetworkX's)
IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {}
Rule = Callable[[dict[str, Any]], str | None]
_DECLINES: dict[str, Rule] = {}
_STAYS: dict[str, Rule] = {}


def implements(declines: Rule | None = None, stays_in_networkx: Rule | None = None
               ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function under its name. ``declines(arguments)`` (arguments by
    parameter name, defaults applied) returns why the backend cannot honour them, or None;
    ``stays_in_networkx(arguments)`` returns why NetworkX answers such a call faster (a search
    that stops early), which ``should_run`` reports, or None."""
    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        IMPLEMENTATIONS[function.__name__] = function
        if declines is not None:
            _DECLINES[function.__name__] = declines
        if stays_in_networkx is not None:
            _STAYS[function.__name__] = stays_in_networkx
        return function
    return register


def implementation(name: str) -> Callable[..., Any] | None:
    """The backend's ``name`` (its family module imported on first use), or None where the
    backend has none."""
    if name not in IMPLEMENTATIONS and name in FAMILY:
        importlib.import_module(f"frontier_nx.{FAMILY[name]}")
    return IMPLEMENTATIONS.get(name)


def implementations() -> dict[str, Callable[..., Any]]:
    """Every implementation, by name (every family module imported)."""
    for family in FAMILIES:
        importlib.import_module(f"frontier_nx.{family}")
    return dict(IMPLEMENTATIONS)


def declined(name: str, args: tuple, kwargs: dict) -> str | None:
    """Why the backend does not run ``name(*args, **kwargs)``, or None when it does.
    TypeError, as NetworkX's own function raises it, where the arguments do not fit NetworkX's
    signature (an unknown keyword, a missing argument)."""
    if networkx_version() < OLDEST_NETWORKX:
        return (f"the frontier backend needs NetworkX {'.'.join(map(str, OLDEST_NETWORKX))} or "
                f"later (this is {nx.__version__})")
    if implementation(name) is None:
        return f"{name} is not implemented by the frontier backend"
    function = getattr(nx.utils.backends, "_registered_algorithms", {}).get(name)
    if function is not None:
        try:
            inspect.signature(function.orig_func).bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{name}() {error}") from None
    try:
        bound = arguments(name, args, kwargs)
    except TypeError as error:  # a parameter of another NetworkX version
        return f"the arguments do not fit the backend's {name}: {error}"
    rule = _DECLINES.get(name)
    return None if rule is None else rule(bound)


def reason_raised() -> bool:
    """Whether ``can_run`` raises its reason as NotImplementedError rather than returning it:
    NetworkX (3.4 and later) then shows the reason to a ``backend="frontier"`` call and catches
    it where it picks backends itself (``backend_priority``) and moves on to the next one; it
    shows no reason a ``can_run`` returns. Not under NetworkX's test mode
    (``NETWORKX_TEST_BACKEND``), which does not catch it, nor on NetworkX 3.3, whose automatic
    dispatch does not either."""
    if networkx_version() < (3, 4):
        return False
    return not getattr(nx.utils.backends._dispatchable, "_is_testing", False)


def networkx_version() -> tuple[int, int]:
    """NetworkX's (major, minor) version, for behaviour that changed between its releases."""
    major, minor = nx.__version__.split(".")[:2]
    return int(major), int("".join(takewhile(str.isdigit, minor)) or 0)


def stays_in_networkx(name: str, args: tuple, kwargs: dict) -> str | None:
    """Why NetworkX answers ``name(*args, **kwargs)`` faster than the backend, or None."""
    if implementation(name) is None:
        return None
    rule = _STAYS.get(name)
    if rule is None:
        return None
    try:
        return rule(arguments(name, args, kwargs))
    except TypeError:
        return None


def arguments(name: str, args: tuple, kwargs: dict) -> dict[str, Any]:
    """A call's arguments by the parameter names of the backend's ``name`` (NetworkX's own),
    defaults applied; TypeError where they do not fit."""
    bound = inspect.signature(implementation(name)).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


def stops_at_the_target(arguments: dict[str, Any]) -> str | None:
    """The rule of the source-to-target searches: NetworkX stops where it reaches the target
    (a bidirectional search meets), the backend searches the whole graph."""
    if arguments.get("target") is None or (arguments.get("source") is None
                                            and arguments.get("sources") is None):
        return None
    return "NetworkX's search stops at the target; the backend would search the whole graph"


def n_in_graph(arguments: dict[str, Any]) -> str | None:
    """The rule of functions of a node ``n``: one not in the graph is declined (NetworkX raises
    its own error)."""
    try:
        present = arguments["n"] in arguments["G"]
    except TypeError:
        present = False
    if not present:
        return f"n={arguments['n']!r} is not in the graph: NetworkX raises its own error"
    return None


def setting(name: str) -> Any:
    """The backend's setting ``name`` (``networkx.config.backends.frontier.<name>``); None
    where it is unset or NetworkX has no ``config`` (before 3.3)."""
    backends = getattr(getattr(nx, "config", None), "backends", None)
    return getattr(getattr(backends, "frontier", None), name, None)


def target() -> Any:
    """Where the work runs: the ``target`` setting (None: the GPU if usable, else the cpu
    target)."""
    return setting("target")


def callable_weight(arguments: dict[str, Any]) -> str | None:
    """The rule of every function whose ``weight`` may be a callable: declined."""
    weight = arguments.get("weight")
    return f"weight={weight!r}: a callable weight is declined" if callable(weight) else None


#: the attributes through which NetworkX's functions read a graph's neighbours and degrees
_VIEWS = ("adj", "succ", "pred", "degree", "neighbors", "successors", "predecessors",
          "__getitem__", "__iter__", "__len__")


def standard_views(arguments: dict[str, Any]) -> str | None:
    """The rule of functions that read a graph through its views: declines a NetworkX graph
    whose class overrides a view the conversion does not read (such as
    ``approximation.k_components``'s ``_AntiGraph``, a complement graph whose ``_adj`` holds
    the edges it lacks)."""
    G = arguments["G"]
    if not isinstance(G, nx.Graph):
        return None
    base = {(False, False): nx.Graph, (True, False): nx.DiGraph,
            (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[
        G.is_directed(), G.is_multigraph()]
    changed = [name for name in _VIEWS
               if getattr(type(G), name, None) is not getattr(base, name, None)]
    if changed:
        return (f"{type(G).__name__} overrides {', '.join(changed)}: its neighbours are not "
                "those of its adjacency")
    return None
