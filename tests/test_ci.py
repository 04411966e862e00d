"""The README works as written (issue 20, item 9): CI runs the README's install-and-test
commands verbatim, and the ``test`` extra holds everything the tests import."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    return [b.strip() for b in re.findall(r"```[a-z]*\n(.*?)```", readme, re.S)
            if "pip install" in b]


def test_ci_runs_every_readme_install_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text()
    commands = readme_commands()
    assert commands, "the README shows no pip install command"
    assert [c for c in commands if c not in ci] == []


def test_ci_runs_the_functor_tests_in_the_checked_mode():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^FRONTIER_BOUNDSCHECK=1 python3 -m pytest .*"
                     r"tests/frontier/test_checked_mode\.py", ci, re.M)


def test_ci_runs_the_cuda_compile_check_tests_without_the_simulator():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^python3 -m pytest .*tests/frontier/test_cudacheck\.py \\\n"
                     r"\s+tests/frontier_cli/test_check_cuda\.py tests/test_functor_subset\.py$",
                     ci, re.M)


def test_the_test_extra_holds_the_cuda_compiler_of_the_compile_check():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    assert {"numba-cuda", "cuda-toolkit[nvrtc,nvvm]"} <= {
        re.split(r"[<>=!~ ]", r, maxsplit=1)[0] for r in extras["test"]}


def test_ci_lints_checks_the_layering_and_builds_the_docs_after_the_readme_commands():
    ci = (ROOT / ".ci" / "run").read_text()
    last_readme = max(ci.index(c) for c in readme_commands())
    for step in ("ruff check .", "lint-imports", "mkdocs build --strict"):
        assert ci.index(step) > last_readme, step


def test_the_test_extra_holds_dask_for_the_distributed_tests():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    names = {re.split(r"[\[<>=!~ ]", r, maxsplit=1)[0] for r in extras["test"]}
    assert {"pytest", "hypothesis", "networkx", "dask"} <= names


def test_the_wheel_holds_every_package_of_the_library_and_the_command_line():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    from fnmatch import fnmatchcase

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = project["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = {".".join(init.parent.relative_to(ROOT).parts)
                for root in ("frontier", "frontier_cli", "frontier_nx", "operators", "algorithms")
                for init in (ROOT / root).rglob("__init__.py")}
    assert {"operators.adaptive", "frontier.distributed", "frontier_cli"} <= packages
    assert [p for p in sorted(packages) if not any(fnmatchcase(p, i) for i in include)] == []
    assert not any(fnmatchcase(p, i) for p in ("tests", "bench", "bench.suites") for i in include)


def test_test_modules_have_unique_names_as_pytest_imports_them_by_basename():
    names = [p.name for p in (ROOT / "tests").rglob("test_*.py")]
    assert sorted({n for n in names if names.count(n) > 1}) == []
