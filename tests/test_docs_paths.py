"""Every page is current about what it names: each repository path a page of the documentation
(docs/*.md and README.md) names exists, each ``python -m bench SUITE`` names a registered suite
(and ``python -m bench.MODULE`` a module of the bench), and each ``frontier COMMAND`` a command
of the command line."""

from __future__ import annotations

import argparse
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
#: A placeholder segment (``OUT``, ``SUITE``, ``DATE-DEVICE.csv``): named in capitals.
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9_-]*(\.\w+)?$")
BENCH_SUITE = re.compile(r"python3? -m bench +([a-z]\w*)")
BENCH_MODULE = re.compile(r"python3? -m bench\.([\w.]+)")
#: ``frontier COMMAND`` beginning an inline code span, or a line of a fenced code block.
CLI_SPAN = re.compile(r"`frontier ([a-z][\w-]*)")
CLI_LINE = re.compile(r"^\s*(?:\$ )?frontier ([a-z][\w-]*)", re.MULTILINE)
FENCED = re.compile(r"^```[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)


def named_paths(text: str) -> set[str]:
    found = set()
    for match in PATH.finditer(text):
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
    assert {"run", "explain", "warmup"} <= cli_commands()
