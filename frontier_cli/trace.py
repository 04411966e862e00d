"""Per-step traces of a traversal: what ``frontier run ... --trace`` prints and ``frontier plot``
draws (Li & Becchi, *Deploying Graph Algorithms on GPUs: an Adaptive Solution*, Fig. 2: the
working set's size per step, here coloured by the adaptive runtime's choice).

A trace is CSV with the columns of :data:`COLUMNS`, one row per step; the time is empty for the
steps of a fused phase (the host does not see them one by one). In ``frontier run`` output the
CSV follows a line ``# trace``; :func:`read_trace` skips everything up to the header, so a
saved run output can be plotted as it is. matplotlib is needed only for :func:`plot_trace`
(the ``plot`` extra).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from frontier import messages

__all__ = ["COLUMNS", "TraceError", "trace_rows", "write_trace", "read_trace", "plot_trace"]

COLUMNS = ("step", "frontier_size", "edges", "balancer", "representation", "direction", "mode",
           "ms")
MARKER = "# trace"


class TraceError(ValueError):
    """A file that is not a trace, or a plot that cannot be drawn here."""


def trace_rows(stats: Iterable[Any]) -> list[dict[str, Any]]:
    """Rows of a trace from per-step statistics (objects with ``level``, ``frontier_size``,
    ``edges``, ``seconds``, ``balancer``, ``representation``, ``direction`` and ``mode``, as
    :class:`algorithms.LevelStats`)."""
    return [{"step": s.level, "frontier_size": s.frontier_size, "edges": s.edges,
             "balancer": s.balancer, "representation": s.representation,
             "direction": s.direction, "mode": s.mode,
             "ms": "" if s.seconds is None else f"{s.seconds * 1e3:.4f}"} for s in stats]


def write_trace(rows: list[dict[str, Any]], stream: TextIO) -> None:
    """The rows as CSV, after the ``# trace`` marker line."""
    stream.write(MARKER + "\n")
    writer = csv.DictWriter(stream, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)


def read_trace(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a trace file (or of saved ``frontier run --trace`` output), with the numeric
    columns as numbers (``ms`` None for fused steps)."""
    try:
        text = Path(path).read_text()
    except UnicodeDecodeError as err:
        raise TraceError(f"{messages.path(path)}: not text (byte {err.start} is not UTF-8); "
                         "expected the output of frontier run ... --trace") from None
    header = ",".join(COLUMNS)
    lines = text.splitlines()
    try:
        first = next(i for i, line in enumerate(lines) if line.strip() == header)
    except StopIteration:
        raise TraceError(f"{messages.path(path)}: no trace header {header!r} found; expected "
                         "the output of frontier run ... --trace") from None
    rows = []
    for number, row in enumerate(csv.DictReader(io.StringIO("\n".join(lines[first:]))), 2):
        if row.get("step") in (None, "") or not row["step"].strip().isdigit():
            break  # the end of the trace block
        try:
            rows.append({**row, "step": int(row["step"]),
                         "frontier_size": int(row["frontier_size"]), "edges": int(row["edges"]),
                         "ms": float(row["ms"]) if row["ms"] else None})
        except (TypeError, ValueError):
            raise TraceError(f"{messages.path(path)}: trace line {first + number - 1} is "
                             f"malformed: {row}") from None
    return rows


def plot_trace(rows: list[dict[str, Any]], out: str | Path, title: str = "") -> Path:
    """Draw the frontier size per step, each point coloured by the step's balancer and shaped by
    its direction, into ``out`` (PNG, SVG or PDF by its suffix)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise TraceError("frontier plot needs matplotlib: pip install 'frontier-graph[plot]'"
                         ) from None
    fig, ax = plt.subplots(figsize=(8, 4))
    choices = sorted({(r["balancer"], r["direction"], r["mode"]) for r in rows})
    markers = {"push": "o", "pull": "s"}
    for balancer, direction, mode in choices:
        mine = [r for r in rows if (r["balancer"], r["direction"], r["mode"])
                == (balancer, direction, mode)]
        ax.scatter([r["step"] for r in mine], [max(r["frontier_size"], 1) for r in mine],
                   s=14, marker=markers.get(direction, "o"),
                   label=f"{balancer}, {direction}, {mode}")
    ax.set_yscale("log")
    ax.set_xlabel("step")
    ax.set_ylabel("frontier size (vertices)")
    ax.set_title(title or "frontier size per step, by the runtime's choice")
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
