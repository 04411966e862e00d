"""A package's public names, each imported from its module when it is first read.

A call of one algorithm needs the modules of that algorithm, of the operators it runs and of the
graph model; importing every algorithm and every operator with their packages made each process
pay for all of them before its first call. :func:`lazy_exports`
makes a package's ``__init__`` name what it exports without importing it: ``from operators import
advance`` or ``algorithms.bfs`` imports the module that defines the name, on the first read
(PEP 562's module ``__getattr__``), and keeps it in the package, so that later reads cost
nothing. Python's import lock makes a first read from several threads import the module once;
each thread gets the same object.

Python binds an imported submodule to its package's attribute of the same name, which would
replace an exported function named as its module (``algorithms.bfs``, ``operators.advance``,
``frontier.distributed.partition``) by the module once something imported the module itself;
such a package does not take the binding, and the name stays the export's, as it was when the
package imported everything (the module is in ``sys.modules``).
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

__all__ = ["lazy_exports"]


class _LazyPackage(types.ModuleType):
    """A package of :func:`lazy_exports`: one of its submodules is not bound to the attribute
    of a name the package exports (the export is, on its first read)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if (isinstance(value, types.ModuleType) and name in self.__dict__["_lazy_exports"]
                and value.__name__ == f"{self.__name__}.{name}"):
            return
        super().__setattr__(name, value)


def lazy_exports(package: str, exports: dict[str, str]) -> None:
    """Make ``package`` (the calling ``__init__``'s ``__name__``) export each name of
    ``exports``, imported from its module on first read. A value is the module of the package
    that defines the name (``"operators.advance"``), or ``"module:attribute"`` for a name the
    package gives to an object of another name. Only the package's own modules: an import that
    import-linter does not see (a module named in a string) never crosses a layer.
    ValueError for a module outside the package."""
    outside = sorted({w for w in exports.values() if not w.startswith(f"{package}.")})
    if outside:
        raise ValueError(f"{package} may export lazily from its own modules only, not {outside}")
    module = sys.modules[package]
    module.__dict__["_lazy_exports"] = dict(exports)

    def __getattr__(name: str) -> Any:  # noqa: N807 - PEP 562's module hook
        where = exports.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = _resolve(where, name)
        module.__dict__[name] = value
        return value

    def __dir__() -> list[str]:  # noqa: N807 - PEP 562's module hook
        return sorted({*module.__dict__, *exports})

    module.__dict__["__getattr__"] = __getattr__
    module.__dict__["__dir__"] = __dir__
    module.__class__ = _LazyPackage


def _resolve(where: str, name: str) -> Any:
    """The object ``where`` names (``"module"``: its attribute ``name``; ``"module:attribute"``)."""
    path, _, attribute = where.partition(":")
    return getattr(importlib.import_module(path), attribute or name)
