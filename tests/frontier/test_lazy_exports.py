"""A package's exported names imported on first read (frontier.lazy_exports): nothing before,
each name the object its module defines, the same object for every thread, and a function
named as its module (``algorithms.bfs``, ``operators.advance``,
``frontier.distributed.partition``) stays the function once the module itself is imported."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import algorithms
import frontier
import frontier.distributed
import operators
from frontier.lazy_exports import lazy_exports

ROOT = Path(__file__).resolve().parents[2]
#: Every package of the library whose names are imported on first read.
PACKAGES = (frontier, frontier.distributed, operators, algorithms)


def _fresh(code: str) -> dict:
    """What ``code`` prints (JSON, its last line) in a fresh interpreter on this checkout."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.__name__)
def test_every_exported_name_is_the_object_its_module_defines(package):
    exports = package._lazy_exports
    assert exports and set(exports) <= set(package.__all__) | {"IterationStats"}
    for name, where in exports.items():
        path, _, attribute = where.partition(":")
        assert getattr(package, name) is getattr(importlib.import_module(path),
                                                 attribute or name)
        assert name in dir(package)


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.__name__)
def test_an_unknown_name_is_an_attribute_error_naming_the_package(package):
    with pytest.raises(AttributeError, match=f"module '{package.__name__}' has no attribute"):
        package.no_such_name  # noqa: B018


def test_a_name_is_imported_on_its_first_read_once_for_every_thread():
    got = _fresh("""
        import json, sys, threading
        import operators
        before = "operators.tiles" in sys.modules
        seen, start = [], threading.Barrier(8)

        def read():
            start.wait()
            seen.append(operators.tile_update)

        threads = [threading.Thread(target=read) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(json.dumps({"before": before, "after": "operators.tiles" in sys.modules,
                          "one": len({id(f) for f in seen}) == 1 and len(seen) == 8,
                          "module": seen[0].__module__}))
    """)
    assert got == {"before": False, "after": True, "one": True, "module": "operators.tiles"}


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.__name__)
def test_a_function_named_as_its_module_stays_the_function_after_the_module_is_imported(
        package):
    submodules = {m.name for m in pkgutil.iter_modules(package.__path__)}
    named = sorted(set(package._lazy_exports) & submodules)
    if not named:
        pytest.skip(f"{package.__name__} exports no name of one of its modules")
    got = _fresh(f"""
        import importlib, json
        package = importlib.import_module({package.__name__!r})
        for name in {named!r}:
            importlib.import_module(f"{{package.__name__}}.{{name}}")
        print(json.dumps([[getattr(package, n).__module__, getattr(package, n).__name__]
                          for n in {named!r}]))
    """)
    exports = package._lazy_exports
    assert got == [[exports[n].partition(":")[0], n] for n in named]


def test_a_package_exports_lazily_from_its_own_modules_only():
    """A module named in a string is an import import-linter does not see: one outside the
    package could cross a layer unseen, so it is refused."""
    with pytest.raises(ValueError, match=r"operators may export lazily from its own modules "
                                         r"only, not \['algorithms.bfs'\]"):
        lazy_exports("operators", {"bfs": "algorithms.bfs"})
