"""``python -m bench networkx``: a function the suite has no call for is listed as not timed,
not a failure; several sizes give each function's crossover with NetworkX."""

from __future__ import annotations

import csv

from bench.command import main
from bench.suites import networkx as suite


def test_a_function_without_a_call_is_listed_as_not_timed(tmp_path, monkeypatch, capsys):
    monkeypatch.delitem(suite.CALLS, "pagerank")
    code = main(["networkx", "--target", "cpu", "--edges", "30", "--nodes", "10",
                 "--functions", "pagerank,core_number", "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr()
    rows = {r["function"]: r for r in csv.DictReader((tmp_path / "networkx.csv").open())}
    assert rows["pagerank"]["runs"] == "0" and rows["pagerank"]["networkx_ms"] == ""
    assert rows["core_number"]["same"] == "True"
    assert "| pagerank | not timed |" in (tmp_path / "networkx.md").read_text()


def row(edges: int, function: str, speedup: float | None) -> suite.Row:
    return suite.Row(edges // 10, edges, function, 1.0, 1.0, 1.0, speedup, speedup, 5, True)


def test_the_crossover_is_the_fewest_edges_where_the_backend_beat_networkx():
    rows = [row(1000, "pagerank", 0.5), row(10_000, "pagerank", 1.5),
            row(100_000, "pagerank", 3.0), row(1000, "connected_components", 0.1),
            row(10_000, "connected_components", 0.2), row(1000, "core_number", None)]
    assert suite.crossovers(rows) == {"pagerank": 10_000, "connected_components": None}
