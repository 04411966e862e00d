"""``python -m bench networkx``: a function the suite has no call for is listed as not timed,
not a failure; several sizes give each function's crossover with NetworkX; every function has
a call; each is timed after a mutation of the graph too, its result checked, unless NetworkX
takes longer than the limit; ``--first-calls`` times each function's first call in fresh
processes, where ``should_run`` sends it, with the kernel cache warm or (``--cold``) a new empty
one per process, leaves out one NetworkX takes longer than the limit for and notes a backend
call that did not finish."""

from __future__ import annotations

import csv
import os
import subprocess

import networkx as nx

from bench import networkx_first_calls
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
    return suite.Row(edges // 10, edges, function, 1.0, 1.0, 1.0, 1.0, speedup, speedup,
                     speedup, 5, True)


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


def test_each_function_is_timed_after_a_mutation_and_its_result_checked(tmp_path, capsys):
    code = main(["networkx", "--target", "cpu", "--edges", "60", "--nodes", "20",
                 "--functions", "core_number,in_degree_centrality", "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr()
    rows = list(csv.DictReader((tmp_path / "networkx.csv").open()))
    for row in rows:
        assert float(row["mutated_ms"]) > 0 and float(row["mutated_speedup"]) > 0
        assert row["same"] == "True"
    assert "after a mutation" in (tmp_path / "networkx.md").read_text()


def test_the_mutation_clears_networkx_cache_and_leaves_the_graph_as_it_was():
    for G in (nx.gnm_random_graph(20, 60, seed=1), nx.gnm_random_graph(20, 60, seed=1,
                                                                        directed=True)):
        edges = list(G.edges(data=True))
        function = nx.in_degree_centrality if G.is_directed() else nx.core_number
        function(G, backend="frontier")
        assert G.__networkx_cache__
        suite.mutation(G)()
        assert not G.__networkx_cache__ and list(G.edges(data=True)) == edges


def test_cold_is_an_option_of_first_calls_only(tmp_path, capsys):
    code = main(["networkx", "--cold", "--edges", "60", "--out", str(tmp_path)])
    assert code == 2 and "--first-calls" in capsys.readouterr().err


def test_cold_first_calls_say_the_kernel_cache_was_empty(tmp_path, capsys):
    code = main(["networkx", "--first-calls", "--cold", "--edges", "60", "--nodes", "20",
                 "--functions", "core_number", "--processes", "1", "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr()
    row, = csv.DictReader((tmp_path / "networkx_first_calls.csv").open())
    assert float(row["networkx_s"]) >= 0 and row["extra_s"] != ""
    assert "kernel cache empty" in (tmp_path / "networkx_first_calls.md").read_text()


def test_cold_first_calls_run_each_process_with_a_new_empty_kernel_cache(monkeypatch):
    seen = []

    def run_json(code, *args, env=None, timeout=None):
        directory = (env or {}).get("FRONTIER_CACHE_DIR")
        seen.append((directory, directory is not None and os.listdir(directory) == []))
        return [0.5, 0.4, False]

    monkeypatch.setattr(networkx_first_calls, "run_json", run_json)
    rows = networkx_first_calls.first_calls(20, 60, 1, ["core_number"], 2, 60.0, lambda r: None,
                                            cold=True)
    assert len(seen) == 4  # NetworkX's two processes, the backend's two, and no warming one
    assert all(empty for _, empty in seen) and len({d for d, _ in seen}) == 4
    assert not any(os.path.exists(d) for d, _ in seen)  # each removed after its process
    assert rows[0].networkx_s == rows[0].backend_s == 0.5 and rows[0].extra_s == 0


def test_warm_first_calls_keep_the_kernel_cache_of_the_environment(monkeypatch):
    envs = []

    def run_json(code, *args, env=None, timeout=None):
        envs.append(env)
        return [] if code == networkx_first_calls._WARM else [0.5, 0.4, True]

    monkeypatch.setattr(networkx_first_calls, "run_json", run_json)
    networkx_first_calls.first_calls(20, 60, 1, ["core_number"], 1, 60.0, lambda r: None)
    assert envs == [None, None, None]  # NetworkX's process, the warming one, the backend's


def test_a_backend_first_call_past_the_limit_is_noted_not_timed(monkeypatch):
    def run_json(code, name, where, *args, env=None, timeout=None):
        if where == "priority":
            raise subprocess.TimeoutExpired("python", timeout)
        return [0.5, 0.4, False]

    monkeypatch.setattr(networkx_first_calls, "run_json", run_json)
    row, = networkx_first_calls.first_calls(20, 60, 1, ["core_number"], 1, 5.0,
                                            lambda r: None, cold=True)
    assert row.backend_s is None and row.note == "backend over 5 s: not timed"


def test_a_function_networkx_takes_longer_than_the_limit_for_is_not_timed(tmp_path, capsys):
    code = main(["networkx", "--target", "cpu", "--edges", "60", "--nodes", "20",
                 "--functions", "pagerank", "--limit", "0", "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr()
    row, = csv.DictReader((tmp_path / "networkx.csv").open())
    assert float(row["networkx_ms"]) > 0 and row["backend_ms"] == "" and row["runs"] == "0"
