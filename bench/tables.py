"""A suite's rows, written as ``OUT/NAME.csv`` and ``OUT/NAME.md``.

Rows are dataclass instances or dicts (the CSV's columns are the first row's fields, in order).
The Markdown is the suite's own table where it formats one (a header of readable labels), else
one made from the columns. Both files are replaced whole (written beside, then renamed), so a
suite may write after every row and a run cut short keeps what it measured, never half a file.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any


def as_dict(row: Any) -> dict[str, Any]:
    """A row's columns and values."""
    if is_dataclass(row) and not isinstance(row, type):
        return asdict(row)
    if isinstance(row, Mapping):
        return dict(row)
    raise TypeError(f"a row is a dataclass instance or a mapping, not {type(row).__name__}")


def csv_text(rows: Sequence[Any]) -> str:
    """The rows as CSV, with a header line (empty without rows)."""
    if not rows:
        return ""
    dicts = [as_dict(r) for r in rows]
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(dicts[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(dicts)
    return text.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.3f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value).replace("|", "\\|")


def markdown(rows: Sequence[Any]) -> str:
    """A Markdown table of the rows, one column per field."""
    if not rows:
        return "(no rows)\n"
    dicts = [as_dict(r) for r in rows]
    columns = list(dicts[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(d.get(c)) for c in columns) + " |" for d in dicts]
    return "\n".join(lines) + "\n"


def replace_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole: to a file beside it, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(text)
    os.replace(partial, path)


def write(rows: Sequence[Any], out: Path, name: str, table: str | None = None
          ) -> tuple[Path, Path]:
    """``OUT/NAME.csv`` and ``OUT/NAME.md`` (``table``, or :func:`markdown` of the rows);
    returns their paths."""
    paths = out / f"{name}.csv", out / f"{name}.md"
    replace_text(paths[0], csv_text(rows))
    replace_text(paths[1], markdown(rows) if table is None else table)
    return paths
