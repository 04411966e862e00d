"""The command-line options the suites share, each defined once: ``--out``, ``--runs``,
``--target``, ``--graphs``, ``--balancers``. A suite's ``add_arguments`` adds those it takes."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.graphs import GraphNameError, expand
from bench.timing import MIN_RUNS


class UsageError(ValueError):
    """Options a suite refuses together (said in one line, exit status 2)."""


def runs_count(text: str) -> int:
    """A count of timed calls (an argparse type): at least :data:`MIN_RUNS`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < MIN_RUNS:
        raise argparse.ArgumentTypeError(
            f"{value}: a median is taken of at least {MIN_RUNS} timed calls")
    return value


def graph_name(text: str) -> str:
    """One graph name (an argparse type), refused before anything is built."""
    _graph_list(text)
    return text


def _graph_list(text: str) -> list[str]:
    try:
        return expand(text)
    except GraphNameError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _names(choices: Sequence[str] | None) -> Callable[[str], list[str]]:
    def parse(text: str) -> list[str]:
        names = [name for name in (n.strip() for n in text.split(",")) if name]
        unknown = [n for n in names if choices is not None and n.partition(":")[0] not in choices]
        if unknown:
            raise argparse.ArgumentTypeError(f"unknown {unknown}; expected some of "
                                             f"{', '.join(choices or ())}")
        return names
    return parse


def add_out(parser: argparse.ArgumentParser, default: str = "results") -> None:
    parser.add_argument("--out", type=Path, default=Path(default),
                        help=f"folder of the CSV and Markdown files (default {default})")


def add_runs(parser: argparse.ArgumentParser, default: int = MIN_RUNS) -> None:
    parser.add_argument("--runs", type=runs_count, default=default,
                        help=f"timed calls after the warm-up, median reported (>= {MIN_RUNS}; "
                             f"default {default})")


def add_target(parser: argparse.ArgumentParser, default: str | None = None,
               auto: bool = False) -> None:
    """``--target``: ``cuda`` or ``cpu``, and ``auto`` (chosen per graph) where the suite passes
    the name on to every call (``auto``)."""
    parser.add_argument("--target", default=default,
                        choices=["cuda", "cpu", "auto"] if auto else ["cuda", "cpu"],
                        help="default: " + (default or "cuda where usable, else cpu"))


def add_graphs(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("--graphs", type=_graph_list, default=default,
                        help=f"comma-separated graph names and sets (default {default}); "
                             "see bench/graphs.py")


def add_names(parser: argparse.ArgumentParser, flag: str, default: str, what: str,
              choices: Sequence[str] | None = None) -> None:
    """A comma-separated list option (``--balancers thread,warp``), parsed into a list, each
    name (up to a ``:`` parameter, as in ``warp:8``) one of ``choices`` where given."""
    parser.add_argument(flag, type=_names(choices), default=default,
                        help=f"comma-separated {what} (default {default})")
