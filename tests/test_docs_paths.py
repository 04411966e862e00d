"""Every page is current about what it names: each repository path a page of the documentation
(docs/*.md and README.md) names exists, each module or name in inline code (``operators.loop``,
``frontier.kernel_cache.stats``) imports, each ``python -m bench SUITE`` names a registered
suite (and ``python -m bench.MODULE`` a module of the bench), and each ``frontier COMMAND`` a
command of the command line."""

from __future__ import annotations

import argparse
import importlib
import re
from pathlib import Path

import pytest

from bench.suites import SUITES
from frontier_cli.commands import build_parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
#: A path from the repository's root into one of its packages or folders, not inside a longer
#: path or a URL; it ends before characters no path here holds (``*``, ``:``, spaces, quotes).
PATH = re.compile(r"(?<![\w/.$~-])((?:frontier|operators|algorithms|bench|tests|frontier_cli|"
                  r"frontier_nx|docs)/[\w./-]*)")
#: A placeholder segment (``OUT``, ``SUITE``, ``DATE-DEVICE.csv``, ``test_NAME.py``): named in
#: capitals, whole or after a prefix.
PLACEHOLDER = re.compile(r"^(\w*_)?[A-Z][A-Z0-9_-]*(\.\w+)?$")
#: A dotted name of the packages in inline code; not a file name, not an entry-point group.
DOTTED = re.compile(r"`((?:frontier|operators|algorithms|frontier_nx|frontier_cli|bench)"
                    r"(?:\.[A-Za-z_]\w*)+)(?![\w.])(?!` entry point)")
FILE_NAME = re.compile(r"\.(md|py|sh|csv|json|txt|toml|yml)$")
BENCH_SUITE = re.compile(r"python3? -m bench +([a-z]\w*)")
BENCH_MODULE = re.compile(r"python3? -m bench\.([\w.]+)")
#: ``frontier COMMAND`` beginning an inline code span, or a line of a fenced code block.
CLI_SPAN = re.compile(r"`frontier ([a-z][\w-]*)")
CLI_LINE = re.compile(r"^\s*(?:\$ )?frontier ([a-z][\w-]*)", re.MULTILINE)
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)


def named_paths(text: str) -> set[str]:
    found = set()
    for match in PATH.finditer(text):
        if text[match.end():match.end() + 1] == "<":  # a placeholder follows: test_<name>.py
            continue
        path = match.group(1).rstrip(".")
        if any(PLACEHOLDER.match(part) for part in path.split("/")):
            continue
        found.add(path)
    return found


def named_commands(text: str) -> set[str]:
    """The ``frontier`` commands the text runs: in inline code and in fenced code blocks."""
    found = set(CLI_SPAN.findall(text))
    for block in FENCED.findall(text):
        found |= set(CLI_LINE.findall(block))
    return found


def named_modules(text: str) -> set[str]:
    return {name for name in DOTTED.findall(text) if not FILE_NAME.search(name)}


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` is a module, or a name reached from the longest module it begins
    with."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attribute in parts[i:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def cli_commands() -> set[str]:
    parser = build_parser()
    return {name for action in parser._actions
            if isinstance(action, argparse._SubParsersAction) for name in action.choices}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_path_a_page_names_exists(page):
    missing = sorted(p for p in named_paths(page.read_text(encoding="utf-8"))
                     if not (ROOT / p).exists())
    assert not missing, f"{page.name} names paths that do not exist: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_module_and_name_a_page_names_in_code_imports(page):
    missing = sorted(n for n in named_modules(page.read_text(encoding="utf-8"))
                     if not resolves(n))
    assert not missing, f"{page.name} names modules or names that do not import: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_bench_command_a_page_names_is_a_registered_suite_or_module(page):
    text = page.read_text(encoding="utf-8")
    unknown = sorted(set(BENCH_SUITE.findall(text)) - set(SUITES))
    modules = sorted(m for m in set(BENCH_MODULE.findall(text))
                     if not (ROOT / "bench" / (m.replace(".", "/") + ".py")).exists())
    assert not unknown, f"{page.name} names bench suites that are not registered: {unknown}"
    assert not modules, f"{page.name} names bench modules that do not exist: {modules}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_frontier_command_a_page_names_exists(page):
    commands = cli_commands()
    unknown = sorted(named_commands(page.read_text(encoding="utf-8")) - commands)
    assert not unknown, f"{page.name} names frontier commands that do not exist: {unknown}"


def test_the_checks_see_paths_suites_and_commands():
    text = ("see `frontier/graph.py`, bench/device/env.sh. and `OUT/SUITE.csv`, "
            "`bench/results/SUITE/DATE-DEVICE.csv`, https://x.org/frontier/no.py, "
            "`python -m bench catalog --runs 5` `python -m bench --help` `frontier run bfs G`\n"
            "frontier and its operators\n```text\nfrontier warmup\n```\n")
    assert named_paths(text) == {"frontier/graph.py", "bench/device/env.sh"}
    assert BENCH_SUITE.findall(text) == ["catalog"]
    assert named_commands(text) == {"run", "warmup"}
    names = named_modules("`operators.loop` `docs.md` `frontier.algorithms` entry points "
                          "`frontier.algorithms` `operators.md`")
    assert names == {"operators.loop", "frontier.algorithms"}
    assert resolves("operators.loop") and resolves("frontier.graph.Graph")
    assert not resolves("frontier.algorithms") and not resolves("operators.nosuch")
    assert {"run", "explain", "warmup"} <= cli_commands()
