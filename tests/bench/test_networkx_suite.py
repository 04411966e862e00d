"""``python -m bench networkx``: a function the suite has no call for is listed as not timed,
not a failure; several sizes give each function's crossover with NetworkX; every function has
a call; ``--first-calls`` times each function's first call in fresh processes, where
``should_run`` sends it, and leaves out one NetworkX takes longer than the limit for."""

from __future__ import annotations

import csv

from bench.command import main
from bench.suites import networkx as suite
from frontier_nx.functions import FUNCTIONS


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


def test_the_suite_calls_every_function_of_the_backend():
    assert set(suite.CALLS) == set(FUNCTIONS)


def test_first_calls_run_in_fresh_processes_where_should_run_sends_them(tmp_path, capsys):
    code = main(["networkx", "--first-calls", "--edges", "60", "--nodes", "20", "--functions",
                 "core_number,in_degree_centrality", "--processes", "1", "--out",
                 str(tmp_path)])
    assert code == 0, capsys.readouterr()
    rows = {r["function"]: r for r in csv.DictReader(
        (tmp_path / "networkx_first_calls.csv").open())}
    assert set(rows) == {"core_number", "in_degree_centrality"}
    for row in rows.values():  # 60 edges: fewer than min_edges, NetworkX runs them
        assert row["ran_here"] == "False" and float(row["networkx_s"]) >= 0
        assert row["runs"] == "1"


def test_first_calls_leave_out_a_function_networkx_takes_longer_than_the_limit_for(tmp_path,
                                                                                   capsys):
    code = main(["networkx", "--first-calls", "--edges", "60", "--nodes", "20", "--functions",
                 "pagerank", "--processes", "1", "--limit", "0", "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr()
    row, = csv.DictReader((tmp_path / "networkx_first_calls.csv").open())
    assert row["networkx_s"] == "" and "not timed" in row["note"]
