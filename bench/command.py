"""``python -m bench SUITE [options]``: run one suite of :data:`bench.suites.SUITES`;
``python -m bench --help`` lists them, ``python -m bench SUITE --help`` tells a suite's options.
Bad input (an unknown graph or target, a bad option) is said in one line, with exit status 2,
before any measurement."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bench.graphs import GraphNameError
from bench.options import UsageError
from bench.suites import SUITES, summary
from frontier.errors import TargetError


def parser() -> argparse.ArgumentParser:
    """The parser of every suite's options."""
    top = argparse.ArgumentParser(
        prog="python -m bench", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="The benchmarks, one suite a command. Each writes OUT/SUITE.csv and "
                    "OUT/SUITE.md (--out, default results/) and prints its table.",
        epilog="GPU machine wrappers: bench/device/*.sh (bench/device/env.sh sets them up).")
    suites = top.add_subparsers(dest="suite", metavar="SUITE", required=True,
                                title="suites")
    for name, suite in SUITES.items():
        command = suites.add_parser(name, help=summary(suite), description=suite.__doc__,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
        suite.add_arguments(command)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return SUITES[args.suite].run(args)
    except (GraphNameError, TargetError, UsageError) as err:
        print(f"python -m bench {args.suite}: {err}", file=sys.stderr)
        return 2
