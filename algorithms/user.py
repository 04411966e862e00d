"""A user's own algorithm as a catalog entry (:class:`algorithms.entry.Entry`), so that the
command line runs, explains and validates it as it does the library's (``frontier run
mymodule:my_bfs GRAPH``; :mod:`frontier_cli.algorithm_spec` finds the function).

:func:`entry_of` reads the entry from the function's signature:

* the first parameter is the graph;
* ``source``, ``target`` and ``balancer``, where the function has them, take the command's
  ``--source``, ``--target`` and ``--balancer`` (the command offers each only where the function
  takes it; ``--target`` and ``--balancer`` are passed only where given, so that the function's
  own defaults apply otherwise);
* every other parameter with a default that is a bool, an int, a float, a str or None becomes an
  option ``--NAME VALUE`` (underscores written as dashes) whose text is read as the default's type
  (``true``/``false``, ``yes``/``no``, ``1``/``0`` for a bool; for a None default, the annotation's
  bool, int or float where it names one, else the text itself); a parameter with another default
  keeps it (as does a positional-only one), and one without a default (the command line could
  not give it) is refused; ``*args`` and ``**kwargs`` are left empty.

How ``--validate`` checks a result and how it is reported, the function declares with
:func:`declare`::

    from algorithms import bfs, declare
    from frontier.testing import reference_bfs

    @declare(reference=reference_bfs)
    def hops(graph, source=0, target=None):
        return bfs(graph, source, target=target).distances

``reference(graph, source)`` (source None for a function without one) computes the expected
value, and :func:`agree` compares the result with it: arrays and numbers exactly where both
are integers or booleans, with ``numpy.isclose``'s tolerances where either is a float; dicts key
by key, lists and tuples item by item. ``check(graph, source, result)``, raising
AssertionError where the result is wrong, replaces that comparison (for a result that is none of
those, such as a library result object). A function that declares neither has no reference,
and ``--validate`` is refused before any work.

A result is reported (the lines ``frontier run`` prints after the timing) by :func:`describe`,
unless the function declares ``report``: a library result by the report of the catalog entry
whose ``run`` returns its type, an array by its type, shape and range, a dict, list or tuple
item by item, anything else by its type. An :class:`~algorithms.entry.Entry` itself
(``mymodule:ENTRY``) is taken as it is: everything is declared there, and its options may have
choices.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, TypeVar

import numpy as np

from algorithms.entry import Entry, Option
from frontier.graph import Graph

__all__ = ["declare", "Declaration", "entry_of", "agree", "describe", "boolean"]

F = TypeVar("F", bound=Callable[..., Any])

#: The attribute :func:`declare` sets on a function.
_DECLARATION = "__frontier_declaration__"
#: Parameters that take the command's own flags rather than an option.
_FLAGS = ("source", "target", "balancer")
#: Default types an option reads its text as.
_KINDS = (bool, int, float, str)
#: The most items :func:`describe` lists of a dict, list or tuple.
_MOST_ITEMS = 20


@dataclasses.dataclass(frozen=True)
class Declaration:
    """What a function declares for the command line (see :func:`declare`)."""

    reference: Callable[[Graph, int | None], Any] | None = None
    check: Callable[[Graph, int | None, Any], None] | None = None
    checks: str | None = None
    report: Callable[[Any], list[tuple[str, str]]] | None = None
    description: str | None = None


def declare(*, reference: Callable[[Graph, int | None], Any] | None = None,
            check: Callable[[Graph, int | None, Any], None] | None = None,
            checks: str | None = None,
            report: Callable[[Any], list[tuple[str, str]]] | None = None,
            description: str | None = None) -> Callable[[F], F]:
    """A decorator declaring, for the command line, what a user's algorithm function is
    checked and reported by (see the module docstring): ``reference(graph, source)``, the
    expected value :func:`agree` compares the result with; or ``check(graph, source,
    result)``, raising AssertionError for a wrong result; ``checks``, one line saying what
    ``--validate`` checked; ``report(result)``, the summary lines as (label, value) pairs;
    ``description``, the command's one-line help (default: the docstring's first line). The
    function is returned unchanged, with the declaration attached."""
    for what, given in (("reference", reference), ("check", check), ("report", report)):
        if given is not None and not callable(given):
            raise TypeError(f"declare({what}=...) takes a function, got "
                            f"{type(given).__name__}")
    declaration = Declaration(reference, check, checks, report, description)

    def mark(fn: F) -> F:
        setattr(fn, _DECLARATION, declaration)
        return fn

    return mark


def boolean(text: str) -> bool:
    """A bool option's value: true/yes/on/1 or false/no/off/0, any case."""
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise ValueError(f"expected true or false, got {text!r}")


def entry_of(obj: Any, name: str) -> Entry:
    """The catalog entry of a user's algorithm ``obj`` named ``name`` (how the command line
    names it: ``module:function``): ``obj`` itself if it is an :class:`Entry`, else the entry
    of the function, read from its signature and :func:`declare` (see the module docstring).
    TypeError, naming the function and its file and line, for anything else."""
    if isinstance(obj, Entry):
        return obj
    if not callable(obj):
        raise TypeError(f"{name} is {_a(type(obj).__name__)}, not a function (expected a "
                        "function taking the graph first, or an algorithms.Entry)")
    where = _where(obj)
    try:
        parameters = list(inspect.signature(obj).parameters.values())
    except (TypeError, ValueError):
        raise TypeError(f"{name}{where}: its parameters cannot be read, so the command line "
                        "cannot call it; wrap it in a function of your own") from None
    if not parameters or parameters[0].kind not in (inspect.Parameter.POSITIONAL_ONLY,
                                                    inspect.Parameter.POSITIONAL_OR_KEYWORD):
        raise TypeError(f"{name}{where} takes no graph: its first parameter must be the graph, "
                        "as in my_bfs(graph, source=0, target=None)")
    taken = {p.name: p for p in parameters[1:]
             if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)}
    hints = _hints(obj)
    options = []
    for parameter in taken.values():
        positional = parameter.kind is inspect.Parameter.POSITIONAL_ONLY
        if parameter.name in _FLAGS:
            if positional and not (parameter.name == "source" and parameter is parameters[1]):
                raise TypeError(f"{name}{where}: {parameter.name} is positional-only; the "
                                "command line passes it by name (or a source second)")
            continue
        if parameter.default is inspect.Parameter.empty:
            raise TypeError(f"{name}{where}: parameter {parameter.name!r} has no default, and "
                            "the command line gives only the graph, source, target, balancer "
                            "and parameters with defaults; give it a default")
        option = None if positional else _option(parameter, hints.get(parameter.name), name)
        if option is not None:
            options.append(option)
    declared = getattr(obj, _DECLARATION, None) or Declaration()
    reference, check = declared.reference, declared.check
    if check is None and reference is not None:
        check = _comparing(reference)
    named = _named(check if declared.check is not None else reference)
    return Entry(
        name=name, description=declared.description or _first_line(obj) or f"{name}{where}",
        run=_runner(obj, taken), reference=reference, check=check,
        checks=declared.checks or (f"passes the check {named}" if declared.check is not None
                                   else f"equal to the reference {named}" if reference
                                   else ""),
        reference_name=(f"the check {named}" if declared.check is not None
                        else f"the reference {named}"),
        report=declared.report or describe, options=tuple(options),
        source="source" in taken, balanced="balancer" in taken, targeted="target" in taken,
        suite=False)


def _runner(fn: Callable[..., Any], taken: Mapping[str, inspect.Parameter]
            ) -> Callable[..., Any]:
    """``run(graph, [source], target=..., balancer=..., **options)`` calling ``fn`` with what
    it takes: ``target`` and ``balancer`` only where given (not None)."""
    positional_source = ("source" in taken
                         and taken["source"].kind is inspect.Parameter.POSITIONAL_ONLY)

    def run(graph: Graph, *source: int, target: Any = None, balancer: Any = None,
            **options: Any) -> Any:
        given = dict(options)
        for flag, value in (("target", target), ("balancer", balancer)):
            if flag in taken and value is not None:
                given[flag] = value
        if source and not positional_source:
            given["source"] = source[0]
        return fn(graph, *(source if positional_source else ()), **given)

    return run


def _option(parameter: inspect.Parameter, hint: Any, name: str) -> Option | None:
    """The option of a parameter with a default, None where the default is no bool, int,
    float, str or None (the function's default then applies)."""
    default = parameter.default
    if default is None:
        kind = next((k for k in _KINDS if k in _hinted(hint)), str)
    else:
        kind = next((k for k in _KINDS if type(default) is k), None)
        if kind is None:
            return None
    return Option(parameter.name, (), default, f"{name}'s parameter {parameter.name}",
                  shown=f"{parameter.name} {{}}", kind=boolean if kind is bool else kind)


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """The function's annotations, resolved where they can be (a string that names nothing
    stays a string)."""
    try:
        return typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - annotations naming what is not importable here
        return dict(getattr(fn, "__annotations__", {}) or {})


def _hinted(hint: Any) -> tuple[Any, ...]:
    """The types an annotation names: itself, or the members of a union (``int | None``)."""
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return typing.get_args(hint)
    return (hint,)


def _comparing(reference: Callable[[Graph, int | None], Any]
               ) -> Callable[[Graph, int | None, Any], None]:
    """The check of a declared reference: the result :func:`agree` s with its value."""
    def check(graph: Graph, source: int | None, result: Any) -> None:
        agree(result, reference(graph, source))

    return check


def agree(result: Any, expected: Any, where: str = "result") -> None:
    """AssertionError, naming the first difference, unless ``result`` equals ``expected`` (see
    the module docstring); TypeError where the two cannot be compared this way."""
    result, expected = _on_host(result), _on_host(expected)
    if isinstance(expected, Mapping):
        if not isinstance(result, Mapping):
            raise AssertionError(f"{where}: {_a(type(result).__name__)}, expected a dict")
        if set(result) != set(expected):
            raise AssertionError(f"{where}: keys {sorted(map(str, result))}, expected "
                                 f"{sorted(map(str, expected))}")
        for key in expected:
            agree(result[key], expected[key], f"{where}[{key!r}]")
        return
    if isinstance(expected, (list, tuple)) and not _numbers(expected):
        if not isinstance(result, (list, tuple)) or len(result) != len(expected):
            raise AssertionError(f"{where}: {_shown(result)}, expected {len(expected)} items")
        for i, (got, want) in enumerate(zip(result, expected, strict=True)):
            agree(got, want, f"{where}[{i}]")
        return
    got, want = np.asarray(result), np.asarray(expected)
    if got.dtype.kind not in "biufc" or want.dtype.kind not in "biufc":
        raise TypeError(f"cannot compare {_a(type(result).__name__)} with the reference's "
                        f"{type(expected).__name__}: declare check=... (a function raising "
                        "AssertionError) instead of reference=...")
    if got.shape != want.shape:
        raise AssertionError(f"{where}: shape {got.shape}, expected {want.shape}")
    if "f" in got.dtype.kind + want.dtype.kind or "c" in got.dtype.kind + want.dtype.kind:
        wrong = ~np.isclose(got, want, equal_nan=True)
    else:
        wrong = got != want
    if wrong.any():
        index = tuple(int(i) for i in np.argwhere(wrong)[0])
        at = "".join(f"[{i}]" for i in index)
        raise AssertionError(f"{where}{at}: {got[index]}, expected {want[index]} "
                             f"({int(wrong.sum()):,} of {wrong.size:,} differ)")


def describe(result: Any) -> list[tuple[str, str]]:
    """The summary lines of a result, as (label, value) pairs (see the module docstring)."""
    report = _catalog_report(type(result))
    if report is not None:
        return report(result)
    return _items("result", result)


def _items(label: str, value: Any) -> list[tuple[str, str]]:
    """``value`` as lines: a dict, list, tuple or dataclass item by item, else one line."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        pairs = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, (list, tuple)) and not _numbers(value):
        pairs = [(f"{label}[{i}]", v) for i, v in enumerate(value)]
    else:
        return [(label, _shown(value))]
    lines = [(k, _shown(v)) for k, v in pairs[:_MOST_ITEMS]]
    if len(pairs) > _MOST_ITEMS:
        lines.append(("...", f"{len(pairs) - _MOST_ITEMS} more"))
    return lines or [(label, f"empty {type(value).__name__}")]


def _shown(value: Any) -> str:
    """One line about ``value``."""
    report = _catalog_report(type(value))
    if report is not None:
        return f"{type(value).__name__}: " + "; ".join(f"{k} {v}" for k, v in report(value))
    if isinstance(value, Graph):
        return f"graph of {value.num_vertices:,} vertices, {value.num_edges:,} arcs"
    if value is None or isinstance(value, (bool, int, float, complex, str, np.generic)):
        text = repr(value.item() if isinstance(value, np.generic) else value)
        return text if len(text) <= 80 else text[:77] + "..."
    values = _on_host(value)
    if isinstance(values, (list, tuple)) and _numbers(values):
        values = np.asarray(values)
    if isinstance(values, np.ndarray):
        return _array(values)
    text = repr(value)
    return f"{type(value).__name__}" + (f": {text}" if len(text) <= 60 else "")


def _array(values: np.ndarray) -> str:
    """An array's dtype, shape and range, in one line."""
    shape = "x".join(map(str, values.shape)) if values.ndim != 1 else f"of {values.size:,}"
    head = f"{values.dtype} array {shape}"
    if values.size == 0 or values.dtype.kind not in "biuf":
        return head if values.size else f"empty {head}"
    if values.dtype.kind == "b":
        return f"{head}: {int(np.count_nonzero(values)):,} true"
    if values.dtype.kind == "f":
        finite = values[np.isfinite(values)]
        others = values.size - finite.size
        tail = f", {others:,} not finite" if others else ""
        if finite.size == 0:
            return f"{head}: none finite"
        return (f"{head}: min {finite.min():.6g}, max {finite.max():.6g}, "
                f"mean {finite.mean():.6g}{tail}")
    return (f"{head}: min {values.min()}, max {values.max()}, "
            f"{np.unique(values).size:,} distinct")


def _numbers(items: list | tuple) -> bool:
    """Whether a list or tuple holds only numbers (so it is shown and compared as an array)."""
    return bool(items) and all(isinstance(i, (bool, int, float, np.number, np.bool_))
                               for i in items)


def _on_host(value: Any) -> Any:
    """A device array's values on the host; anything else itself."""
    return value.copy_to_host() if hasattr(value, "copy_to_host") else value


@cache
def _reports() -> tuple[tuple[type, Callable[[Any], list[tuple[str, str]]]], ...]:
    """(result type, report) of every catalog entry, from the return annotation of its
    ``run``."""
    from algorithms.catalog import CATALOG

    found = []
    for entry in CATALOG.values():
        returned = _hints(entry.run).get("return")
        if isinstance(returned, type):
            found.append((returned, entry.report))
    return tuple(found)


def _catalog_report(kind: type) -> Callable[[Any], list[tuple[str, str]]] | None:
    """The catalog's report of a library result type, None for any other type."""
    return next((report for returned, report in _reports() if issubclass(kind, returned)), None)


def _where(fn: Any) -> str:
    """`` (file:line)`` of a function's definition, empty where unknown."""
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""


def _first_line(fn: Any) -> str:
    doc = inspect.getdoc(fn) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def _named(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def _a(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"
