"""The library's layout (issue 50): few imports inside functions in frontier, operators and
algorithms, so that a function-level import cannot hide an import circle, and growth is seen in
the change that causes it. Counted as the acceptance check counts them: every ``import`` inside a
function, once per enclosing function (a nested function's import counts for each ``def``
around it)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("frontier", "operators", "algorithms")

#: The most function-level imports the three packages may hold: the lazy imports of optional
#: dependencies (numba-cuda's GPU-only pieces, Dask, CuPy, SciPy's sparse matrices, Hypothesis)
#: and a few that break a cycle on purpose (the Ctrl-C-guarded registries of
#: :mod:`frontier.runtime.interrupts`, the catalog's one lazy import of frontier.testing). Lower
#: it as they go, never raise it.
CEILING = 28


def function_level_imports() -> dict[str, int]:
    """File -> imports inside its functions, for every file of :data:`PACKAGES` that has any."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            count = 0
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    count += sum(isinstance(s, (ast.Import, ast.ImportFrom))
                                 for s in ast.walk(node))
            if count:
                found[str(path.relative_to(ROOT))] = count
    return found


def test_function_level_imports_stay_under_the_ceiling():
    found = function_level_imports()
    total = sum(found.values())
    worst = ", ".join(f"{p} {n}" for p, n in sorted(found.items(), key=lambda x: -x[1])[:5])
    assert total <= CEILING, (f"{total} imports inside functions in {PACKAGES} (at most "
                              f"{CEILING}); most in {worst}: import at the module's top, or "
                              "keep only lazy imports of optional dependencies")

