"""What an algorithm declares about itself for the catalog: an :class:`Entry` (how to run it,
its reference, how to check and report a result) and the :class:`Option` s its command offers.

Each algorithm module declares its entries beside the algorithm, in a module-level ``ENTRIES``
tuple, and :mod:`algorithms.catalog` collects them; the command line (``frontier run ALGO``),
the benchmark suite and the tests then pick up every algorithm without knowing it by name::

    ENTRIES = (Entry(name="bfs", description="breadth-first search: ...", run=bfs,
                     reference=_reference, check=_check, checks="distances equal ...",
                     report=_report, options=(...)),)

An entry's reference and check call :mod:`frontier.testing` through :data:`testing`, which
imports it (and scipy) at the first call, not when the catalog is built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from algorithms.result import Result
from frontier.graph import Graph
from frontier.options import StrEnum, values

__all__ = ["Entry", "Option", "testing"]


@dataclass(frozen=True)
class Option:
    """A keyword argument of an entry's ``run`` that the command line offers as ``--NAME``
    (underscores written as dashes): one of ``choices`` (given as names or as the
    :class:`frontier.options.Option` enumerating them), or any text ``kind`` turns into a value
    where ``choices`` is empty (an option derived from a user's function,
    :mod:`algorithms.user`); ``default`` unless given. ``shown`` formats the chosen value in the
    command's summary."""

    name: str
    choices: tuple[str, ...] | type[StrEnum]
    default: Any
    help: str
    shown: str = "{}"
    kind: Callable[[str], Any] = str

    def __post_init__(self) -> None:
        if isinstance(self.choices, type):  # an enumeration: its members' names
            object.__setattr__(self, "choices", values(self.choices))


@dataclass(frozen=True, kw_only=True)
class Entry:
    """One algorithm, declared with keywords.

    * ``run(graph, source, balancer=..., target=..., **options)``: the algorithm; it returns a
      :class:`algorithms.result.Result` (``seconds``, ``iterations``, ``edges_traversed``,
      ``stats``). :meth:`invoke` calls it with the source and balancer when the entry takes
      them;
    * ``reference(graph, source)``: the same computation by the algorithm's reference in
      :mod:`frontier.testing` (what ``--validate`` compares with, what the benchmark suite times
      as the CPU baseline); ``check(graph, source, result)`` raises AssertionError unless the
      result agrees with it, which ``checks`` states in one line. Both take the source, None
      for an entry with ``source=False`` (it ignores the source). Every catalog entry has both;
      a user's function may declare none (:func:`algorithms.user.declare`), and then
      ``--validate`` is refused; ``reference_name`` is what a disagreeing result is said to
      disagree with;
    * ``report(result)``: the algorithm's own summary lines, as (label, value) pairs;
    * ``source=False``: the algorithm takes no source vertex (connected components, PageRank):
      :meth:`invoke` passes none, and the command line offers no ``--source``;
      ``balanced=False``: it takes no ``balancer`` (list ranking, dense APSP);
      ``targeted=False``: it takes no ``target`` (a user's function without one): the command
      line offers no ``--target``;
    * ``options``: the keyword arguments of ``run`` beyond ``balancer`` and ``target`` that the
      command line offers; ``description`` its one-line help;
    * ``example``: a generator spec of a graph the algorithm takes, where it does not take any
      graph (list ranking takes a list: ``list:N``); tests run the entry on it. None: any;
    * ``suite``: whether the benchmark suite (``python -m bench all``) runs it on its standard
      graphs; False for list ranking (it takes lists) and APSP (V x V memory), which have
      benchmarks of their own;
    * ``traced``: whether ``stats`` are the traversal's levels (:class:`algorithms.LevelStats`),
      what ``frontier run ... --trace`` prints; the command refuses ``--trace`` for the others
      before it reads the graph (a user's function: not traced).
    """

    name: str
    description: str
    run: Callable[..., Result]
    reference: Callable[[Graph, int | None], Any] | None
    check: Callable[[Graph, int | None, Any], None] | None
    checks: str
    report: Callable[[Any], list[tuple[str, str]]]
    reference_name: str = "scipy"
    options: tuple[Option, ...] = ()
    source: bool = True
    balanced: bool = True
    targeted: bool = True
    example: str | None = None
    suite: bool = True
    traced: bool = False

    def invoke(self, graph: Graph, source: int | None, *, balancer: Any, target: Any,
               **options: Any) -> Result:
        """``run`` with the source, balancer and target when the entry takes them."""
        if self.balanced:
            options["balancer"] = balancer
        if self.targeted:
            options["target"] = target
        inputs = (graph, source) if self.source else (graph,)
        return self.run(*inputs, **options)


class _Testing:
    """:mod:`frontier.testing`'s functions by name (``testing.check_bfs``), each importing the
    module at its first call: the references need scipy, which running an algorithm does not,
    so ``import algorithms`` leaves it out."""

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):  # no function of frontier.testing; tools probe dunders
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> Any:
            return getattr(_frontier_testing(), name)(*args, **kwargs)

        call.__name__ = call.__qualname__ = name
        return call


def _frontier_testing() -> ModuleType:
    from frontier import testing as module  # the one lazy import of the references and checks

    return module


#: The references and checks of :mod:`frontier.testing`, for the catalog entries.
testing = _Testing()
