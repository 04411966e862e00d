"""The benchmark page for users, generated from the suites' recorded CSVs.

A recorded result is ``RESULTS/SUITE/DATE-DEVICE.csv`` (a suite's own CSV, ``DATE`` as
``YYYY-MM-DD``, ``DEVICE`` a slug of the machine) beside ``DATE-DEVICE.json``, which names the
``device`` in words and the ``command`` that measured it (and may add a ``note``). The page
keeps, for each suite and device, the latest result only (users' figures are current ones), one
table each under the suite's name, naming device, command and date.

``python -m bench report [--results bench/results] [--page docs/benchmarks.md]`` writes the
page and ``OUT/report.csv`` / ``OUT/report.md`` (the index of the tables it took);
``python -m bench report --record OUT/SUITE.csv --device "NVIDIA H100 80GB HBM3" --command
"python -m bench SUITE ..."`` first records a suite's CSV under today's date (``--date``
overrides it), then writes the page. A result without its JSON, a file name without a date,
a folder that is not a suite or an empty CSV is refused (exit status 2) before the page is
written.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bench.suites as registry
from bench import options, tables

#: The repository's root: the default results folder and page are found from it.
ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"
PAGE = ROOT / "docs" / "benchmarks.md"
#: A recorded result's file name: its date, then its device's slug.
_NAME = re.compile(r"^(?P<date>\d{4}-\d{2}-\d{2})-(?P<device>[a-z0-9][a-z0-9-]*)$")
#: Folders of the results folder that hold no suite's results.
ARCHIVE = "archive"


@dataclass(frozen=True)
class Result:
    """One recorded CSV of a suite and what the page says of it."""

    suite: str
    date: str
    device_slug: str
    device: str
    command: str
    note: str
    csv_path: Path
    rows: tuple[dict[str, Any], ...]


@dataclass
class Row:
    suite: str
    device: str
    date: str
    command: str
    rows: int
    csv: str


def slug(device: str) -> str:
    """A device's name as a file name: lower case, runs of other characters as one ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")


def shown(path: Path) -> str:
    """``path`` as the page names it: from the repository's root where it lies inside."""
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def _value(text: str) -> Any:
    """A CSV cell as the table shows it: a number where it reads as one, nothing where empty."""
    if text == "":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def read(path: Path, suites: set[str]) -> Result:
    """The recorded result at ``path`` (a CSV beside its JSON); UsageError saying what is wrong."""
    suite = path.parent.name
    if suite not in suites:
        raise options.UsageError(f"{shown(path)}: {suite!r} is not a suite (expected a folder "
                                 f"named after one of {', '.join(sorted(suites))})")
    name = _NAME.match(path.stem)
    if name is None:
        raise options.UsageError(f"{shown(path)}: expected a name DATE-DEVICE.csv "
                                 "(DATE as YYYY-MM-DD, DEVICE in lower case)")
    try:
        datetime.date.fromisoformat(name["date"])
    except ValueError:
        raise options.UsageError(f"{shown(path)}: {name['date']} is not a date") from None
    meta_path = path.with_suffix(".json")
    try:
        meta = json.loads(meta_path.read_text())
    except FileNotFoundError:
        raise options.UsageError(f"{shown(path)}: no {meta_path.name} beside it naming the "
                                 "device and the command") from None
    except json.JSONDecodeError as err:
        raise options.UsageError(f"{shown(meta_path)}: not JSON ({err})") from None
    missing = [key for key in ("device", "command") if not str(meta.get(key, "")).strip()]
    if missing:
        raise options.UsageError(f"{shown(meta_path)}: no {' and no '.join(missing)}")
    with path.open(newline="") as stream:
        rows = tuple({key: _value(value or "") for key, value in row.items()}
                     for row in csv.DictReader(stream))
    if not rows:
        raise options.UsageError(f"{shown(path)}: no rows")
    return Result(suite, name["date"], name["device"], str(meta["device"]),
                  str(meta["command"]), str(meta.get("note", "")), path, rows)


def latest(results: Path, suites: set[str]) -> list[Result]:
    """The latest recorded result of each suite on each device, in the suites' order then by
    device."""
    if not results.is_dir():
        raise options.UsageError(f"{results}: no such folder of results")
    found: dict[tuple[str, str], Result] = {}
    for path in sorted(results.glob("*/*.csv")):
        if path.parent.name == ARCHIVE:
            continue
        result = read(path, suites)
        key = (result.suite, result.device_slug)
        if key not in found or found[key].date < result.date:
            found[key] = result
    order = {name: i for i, name in enumerate(registry.SUITES)}
    return sorted(found.values(), key=lambda r: (order[r.suite], r.device_slug))


def page(results: list[Result], source: str) -> str:
    """The benchmark page: one table a suite and device."""
    lines = ["# Benchmarks", "",
             f"Generated by `python -m bench report` from the suites' CSVs in `{source}`: the",
             "latest result of each suite on each device, nothing older. Do not edit it by hand:",
             "record a run with `python -m bench report --record OUT/SUITE.csv --device NAME",
             "--command TEXT`. What the figures mean, how to choose options and how to measure on",
             "your own machine: [Performance](performance.md).", ""]
    suite = None
    for result in results:
        if result.suite != suite:
            suite = result.suite
            lines += [f"## {suite}", "", registry.summary(registry.SUITES[suite]), ""]
        lines += [f"### {result.device}, {result.date}", "",
                  f"- Command: `{result.command}`", f"- CSV: `{shown(result.csv_path)}`"]
        if result.note:
            lines.append(f"- {result.note}")
        lines += ["", tables.markdown(list(result.rows)).rstrip("\n"), ""]
    if not results:
        lines += ["No results recorded yet.", ""]
    return "\n".join(lines)


def record(csv_path: Path, results: Path, device: str, command: str, date: str, note: str,
           suites: set[str]) -> Path:
    """Copy a suite's ``OUT/SUITE.csv`` to ``RESULTS/SUITE/DATE-DEVICE.csv`` with its JSON,
    everything checked before anything is written; returns the recorded CSV's path."""
    suite = csv_path.stem
    if suite not in suites:
        raise options.UsageError(f"{csv_path}: {suite!r} is not a suite's CSV (expected "
                                 "OUT/SUITE.csv as a suite writes it)")
    if not csv_path.is_file():
        raise options.UsageError(f"{csv_path}: no such file")
    if not slug(device) or not command.strip():
        raise options.UsageError("--record needs --device (the machine, in words) and "
                                 "--command (what ran)")
    text = csv_path.read_text()
    if not list(csv.DictReader(io.StringIO(text))):
        raise options.UsageError(f"{csv_path}: no rows")
    target = results / suite / f"{date}-{slug(device)}.csv"
    meta = {"device": device, "command": command, **({"note": note} if note else {})}
    tables.replace_text(target.with_suffix(".json"), json.dumps(meta, indent=2) + "\n")
    tables.replace_text(target, text)
    return target


def _date(text: str) -> str:
    try:
        return datetime.date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date YYYY-MM-DD") from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help=f"folder of the recorded results (default {shown(RESULTS)})")
    parser.add_argument("--page", type=Path, default=PAGE,
                        help=f"the page written (default {shown(PAGE)})")
    parser.add_argument("--record", type=Path, metavar="OUT/SUITE.csv",
                        help="first record this CSV of a suite's run")
    parser.add_argument("--device", default="", help="with --record: the machine, in words")
    parser.add_argument("--command", default="", help="with --record: the command that ran")
    parser.add_argument("--note", default="", help="with --record: a line the page adds")
    parser.add_argument("--date", type=_date, default=datetime.date.today().isoformat(),
                        help="with --record: the run's date (default today)")


def run(args: argparse.Namespace) -> int:
    suites = set(registry.SUITES) - {"report"}
    if args.record is not None:
        record(args.record, args.results, args.device, args.command, args.date, args.note,
               suites)
    found = latest(args.results, suites)
    tables.replace_text(args.page, page(found, shown(args.results)))
    rows = [Row(r.suite, r.device, r.date, r.command, len(r.rows), shown(r.csv_path))
            for r in found]
    tables.write(rows, args.out, "report")
    print(tables.markdown(rows))
    print(f"wrote {args.page}")
    return 0
