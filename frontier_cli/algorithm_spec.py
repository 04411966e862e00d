"""Which algorithm an ``ALGO`` argument of the command line names, the one place that decides
it for every command that takes one (``run``, ``explain``):

* a name of the catalog (:data:`algorithms.CATALOG`): ``bfs``;
* the name of an installed algorithm: a package declares its algorithms in the entry-point group
  :data:`GROUP`, ``[project.entry-points."frontier.algorithms"]`` in its pyproject.toml, as
  ``name = "package.module:function"``; a catalog name is the catalog's (the installed one of
  that name is still run as ``package.module:function``);
* ``module:function``: a function (or an :class:`algorithms.Entry`) of an importable module, a
  dotted path after the colon reaching into it (``module:Class.method``). The module is
  imported as ``python -m`` would import it: from the current directory first, then
  ``$PYTHONPATH`` and the installed packages (the installed ``frontier`` script does not have
  the current directory on its path otherwise, so it is put first, for the rest of the command).

:func:`load` returns what the argument names (the catalog's :class:`~algorithms.entry.Entry`,
or the imported object), :func:`resolve` the entry of it (:func:`algorithms.user.entry_of`).
Every failure is an :class:`AlgorithmSpecError` (a ValueError: exit status 2, one line) naming
the argument, what went wrong and where — a module that is not found, an error raised while it
is imported (with the file and line that raised it), a missing attribute (listing the functions
the module has), an object that is not a function — before any work is done.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import os
import sys
import traceback
from importlib import metadata
from typing import Any

from algorithms import CATALOG
from algorithms.entry import Entry
from algorithms.user import entry_of

__all__ = ["GROUP", "AlgorithmSpecError", "installed", "is_spec", "load", "resolve",
           "where_raised"]

#: The entry-point group of installed algorithms.
GROUP = "frontier.algorithms"


class AlgorithmSpecError(ValueError):
    """An ``ALGO`` argument that names no algorithm that can run (one line)."""


def is_spec(text: str) -> bool:
    """Whether ``text`` is a ``module:function`` argument (rather than a name)."""
    return ":" in text


def installed() -> dict[str, list[metadata.EntryPoint]]:
    """The installed algorithms by name (more than one where packages clash), not loaded."""
    found: dict[str, list[metadata.EntryPoint]] = {}
    for point in metadata.entry_points(group=GROUP):
        found.setdefault(point.name, []).append(point)
    return dict(sorted(found.items()))


def load(text: str) -> Any:
    """What the ``ALGO`` argument ``text`` names (see the module docstring): a catalog entry or
    the object an installed name or ``module:function`` reaches, imported."""
    if text in CATALOG:
        return CATALOG[text]
    if is_spec(text):
        return _attribute(text, text)
    points = installed().get(text)
    if not points:
        names = installed()
        extra = f"; installed: {', '.join(names)}" if names else ""
        raise AlgorithmSpecError(
            f"unknown algorithm {text!r}{_module_hint(text)}; expected one of the catalog "
            f"({', '.join(CATALOG)}){extra}; or module:function, a function of your own "
            "(frontier run mymodule:my_bfs GRAPH)")
    if len(points) > 1:
        raise AlgorithmSpecError(
            f"algorithm {text!r} is installed by more than one package: "
            + ", ".join(f"{p.value} ({_distribution(p)})" for p in points)
            + "; run the one you mean as module:function")
    point = points[0]
    return _attribute(point.value.split("[")[0].strip(),
                      f"installed algorithm {text!r} ({point.value}, from {_distribution(point)})")


def resolve(text: str) -> Entry:
    """The catalog entry of the ``ALGO`` argument ``text``: the catalog's own, or the entry of
    a user's function (:func:`algorithms.user.entry_of`)."""
    found = load(text)
    if isinstance(found, Entry):  # the catalog's, or a user's declared whole: named as given
        return found if CATALOG.get(text) is found else dataclasses.replace(found, name=text)
    try:
        return entry_of(found, text)
    except TypeError as err:
        raise AlgorithmSpecError(str(err)) from None


def _module_hint(name: str) -> str:
    """`` (a module: name its function, NAME:FUNCTION)`` where ``name`` is a module of the
    current directory (looked for, not imported), else nothing."""
    if not name.isidentifier():
        return ""
    here = os.getcwd()
    found = os.path.isfile(os.path.join(here, f"{name}.py")) or os.path.isfile(
        os.path.join(here, name, "__init__.py"))
    return f" ({name} is a module here: name its function, {name}:FUNCTION)" if found else ""


def _attribute(spec: str, what: str) -> Any:
    """The object ``module:dotted.path`` names; ``what`` names it in messages."""
    module_name, _, path = spec.partition(":")
    module_name, path = module_name.strip(), path.strip()
    if not module_name or not path or ":" in path:
        raise AlgorithmSpecError(f"{what}: expected module:function (such as myalgo:my_bfs), "
                                 f"got {spec!r}")
    module = _import(module_name, what)
    found: Any = module
    for i, part in enumerate(path.split(".")):
        if not hasattr(found, part):
            reached = ".".join([module_name, *path.split(".")[:i]])
            raise AlgorithmSpecError(f"{what}: {reached} ({_file(module)}) has no attribute "
                                     f"{part!r}{_listing(found) if i == 0 else ''}")
        found = getattr(found, part)
    if not callable(found) and not isinstance(found, Entry):
        raise AlgorithmSpecError(f"{what}: {module_name}.{path} is "
                                 f"{type(found).__name__!r}, not a function (expected a "
                                 "function taking the graph first, or an algorithms.Entry)")
    return found


def _import(name: str, what: str) -> Any:
    """The module ``name``, imported from the current directory first (as ``python -m``)."""
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.insert(0, here)
    try:
        found = importlib.util.find_spec(name)  # imports the parent packages of a dotted name
    except Exception as err:  # noqa: BLE001 - a parent that fails to import or is no package
        raise AlgorithmSpecError(f"{what}: cannot import module {name!r}{where_raised(err)}: "
                                 f"{_error(err)}") from None
    if found is None:
        raise AlgorithmSpecError(f"{what}: no module named {name!r} (looked in the current "
                                 f"directory {here}, $PYTHONPATH and the installed packages)")
    try:
        return importlib.import_module(name)
    except Exception as err:  # noqa: BLE001 - the user's module: anything it raises is reported
        raise AlgorithmSpecError(f"{what}: importing module {name!r} failed{where_raised(err)}: "
                                 f"{_error(err)}") from None


def where_raised(err: BaseException) -> str:
    """`` at FILE:LINE``: where an error came from (the line of a syntax error; else the
    innermost frame outside the import machinery and this module), empty where unknown."""
    if isinstance(err, SyntaxError) and err.filename:
        return f" at {err.filename}:{err.lineno}"
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if "importlib" not in f.filename and f.filename != __file__]
    return f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""


def _error(err: BaseException) -> str:
    if isinstance(err, SyntaxError):
        return f"SyntaxError: {err.msg}"
    first = str(err).splitlines()[0] if str(err) else ""
    return f"{type(err).__name__}: {first}" if first else type(err).__name__


def _file(module: Any) -> str:
    return getattr(module, "__file__", None) or "built in"


def _listing(module: Any) -> str:
    """``; it defines f, g``: the functions a module defines itself, for a missing name."""
    own = sorted(n for n, v in vars(module).items()
                 if not n.startswith("_") and inspect.isfunction(v)
                 and v.__module__ == module.__name__)
    return f"; it defines {', '.join(own[:12])}{', ...' if len(own) > 12 else ''}" if own else ""


def _distribution(point: metadata.EntryPoint) -> str:
    dist = getattr(point, "dist", None)
    return f"package {dist.name}" if dist is not None else "an unknown package"
