"""Recording the kernels that run (:mod:`frontier.runtime.recording`) and ``explain``, which shows
them: every launch is recorded, in order, only in the thread that records; ``operators.explain`` and
``frontier explain`` show exactly the kernels a call runs, for every catalog algorithm, and
modify nothing passed in."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

from algorithms import CATALOG, bfs, connected_components, pagerank
from frontier import Frontier, atomic_cas, generators
from frontier.runtime.recording import RECORDER
from frontier_cli.commands import main
from operators import advance, explain, recording, traverse
from tests.tiers import SIMULATED, TARGETS

#: Per target: a road-like, a scale-free and a tiny graph (small in the simulator).
GRAPHS = {False: {"road-like": "grid:8x8", "scale-free": "rmat:7", "tiny": "path:3"},
          True: {"road-like": "grid:3x4", "scale-free": "rmat:4", "tiny": "path:3"}}


def _cases() -> list:
    """Every catalog algorithm on each graph (an algorithm that takes one kind of input, such as
    list ranking, on its example) on the cpu target and on a GPU; in the simulator one graph
    per algorithm, the kinds taken in turn: every pair of target, algorithm and graph kind. The
    targets are those the command line names (``explain --target``): not the threaded cpu
    level, a target object of its own."""
    rows = []
    for k, name in enumerate(sorted(CATALOG)):
        kinds = ["example"] if CATALOG[name].example else list(GRAPHS[False])
        for target in (t for t in TARGETS if isinstance(t.values[0], str)):
            few = SIMULATED and any(m.name == "simulator" for m in target.marks)
            rows += [pytest.param(target.values[0], name, kind, marks=target.marks,
                                  id=f"{target.id}-{name}-{kind}")
                     for kind in ([kinds[k % len(kinds)]] if few else kinds)]
    return rows


CASES = _cases()


def spec_for(target, name, kind):
    return CATALOG[name].example if kind == "example" else GRAPHS[target.simulated][kind]


def visit(src, dst, eid, weight, depth):
    return atomic_cas(depth, dst, -1, depth[src] + 1) == -1


def unvisited(v, depth):
    return depth[v] == -1


def depths(target, n):
    depth = target.full(n, -1, np.int32)
    target.write_scalar(depth, 0, 0)
    return depth


def names_in(text):
    """The kernel names of an explain text's headings, in order."""
    return [line[len("# --- "):].split(":")[0] for line in text.splitlines()
            if line.startswith("# --- ")]


def summary(kernels):
    return [(k.name, k.source, k.balancer, k.mode, k.launches, k.grids) for k in kernels]


@pytest.mark.parametrize("target, name, kind", CASES, indirect=["target"])
def test_explain_shows_exactly_the_kernels_that_ran(capsys, target, name, kind):
    entry, spec = CATALOG[name], spec_for(target, name, kind)

    def inputs(g):
        return (g, 0) if entry.source else (g,)

    if target.name == "cuda" and not target.simulated:
        # a warm-up on a graph of its own: the process's one-time uploads, which a GPU writes
        # with the target's put kernel, are not part of the call that explain shows
        entry.run(*inputs(generators.from_spec(spec)), target=target)
    graph = generators.from_spec(spec)
    with recording() as log:
        entry.run(*inputs(graph), target=target)
    assert len(log) > 0
    code = main(["explain", name, spec, "--target", target.name, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    shown = [(k["name"], k["source"], k["balancer"], k["mode"], k["launches"], tuple(k["grids"]))
             for k in json.loads(out)["kernels"]]
    ran = summary(log.kernels())
    if not target.simulated and target.name == "cuda":
        # on a GPU the winners of racing hooks (components, forests) vary from run to run, and
        # with them how many pointer-jumping rounds launch: the same kernels, counts aside
        shown, ran = ([k[:4] + k[5:] for k in kernels] for kernels in (shown, ran))
    assert shown == ran


def test_every_launch_is_recorded_in_the_order_the_target_ran_them(target, monkeypatch):
    ran = []
    for method in ("_launch", "_launch_cooperative"):
        original = getattr(type(target), method)

        def witness(self, kernel, *args, original=original):
            ran.append(getattr(kernel, "py_func", kernel).__name__)
            return original(self, kernel, *args)

        monkeypatch.setattr(type(target), method, witness)
    graph = generators.rmat(4, 4)
    with recording() as log:
        bfs(graph, 0, target=target, balancer="auto", direction="auto")
        connected_components(graph, target=target)
        pagerank(graph, target=target, tol=1e-2)
    assert ran and [launch.name for launch in log] == ran


def test_explain_of_an_auto_traverse_shows_the_kernels_it_runs(target):
    """explain once guessed the kernels of ``balancer="auto"``, ``direction="auto"``: a fused
    kernel, a gather and a pull kernel, where the small-frontier block mode ran every level."""
    options = {"condition": unvisited, "balancer": "auto", "direction": "auto"}
    graph = generators.grid2d(4, 4)
    start, depth = Frontier.from_vertices(graph, [0], target=target), depths(target, 16)
    with recording() as log:
        traverse(graph, start, visit, depth, **options)
    graph = generators.grid2d(4, 4)
    start, depth = Frontier.from_vertices(graph, [0], target=target), depths(target, 16)
    text = explain(traverse, graph, start, visit, depth, **options)
    assert names_in(text) == [k.name for k in log.kernels()]
    assert text == log.text()


def test_explain_runs_on_copies_and_modifies_nothing_passed_in(target):
    graph = generators.path(5)
    depth = depths(target, 5)
    host_depth = np.full(5, -1, np.int32)
    host_depth[0] = 0
    f = Frontier.from_vertices(graph, [0], target=target)
    for state in (depth, host_depth):
        text = explain(traverse, graph, f, visit, state, condition=unvisited)
        assert "def traverse_" in text
    assert target.to_host(depth).tolist() == host_depth.tolist() == [0, -1, -1, -1, -1]
    assert f.to_numpy().tolist() == [0]  # still current: its pool took no step
    assert sorted(advance(graph, f, visit, depth).to_numpy().tolist()) == [1]


def test_explain_of_an_algorithm_shows_what_it_runs(target):
    with recording() as log:
        bfs(generators.path(4), 0, target=target)
    assert explain(bfs, generators.path(4), 0, target=target) == log.text()


def test_a_recording_sees_only_the_launches_of_its_own_thread():
    graph = generators.grid2d(4, 4)
    alone = {}
    for name, run in (("bfs", lambda: bfs(graph, 0, target="cpu")),
                      ("cc", lambda: connected_components(graph, target="cpu"))):
        with recording() as log:
            run()
        alone[name] = summary(log.kernels())
    together = threading.Barrier(2)
    seen, errors = {}, []

    def record(name, run):
        try:
            with recording() as log:
                together.wait(timeout=60)
                for _ in range(3):
                    run()
            seen[name] = summary(log.kernels())
        except Exception as err:  # noqa: BLE001 - reported by the assertion below
            errors.append(err)

    threads = [threading.Thread(target=record, args=("bfs", lambda: bfs(graph, 0,
                                                                        target="cpu"))),
               threading.Thread(target=record, args=("cc", lambda: connected_components(
                   graph, target="cpu")))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    for name in ("bfs", "cc"):
        assert [(n, s, b, m, runs // 3, g) for n, s, b, m, runs, g in seen[name]] == alone[name]


def test_recordings_nest_and_each_sees_the_launches_inside_it():
    graph = generators.path(4)
    with recording() as outer:
        bfs(graph, 0, target="cpu")
        first = len(outer)
        with recording() as inner:
            bfs(graph, 0, target="cpu")
    assert first > 0 and len(inner) == first and len(outer) == 2 * first
    assert list(outer[first:]) == list(inner)


def test_a_recording_closes_when_its_body_raises():
    open_before = RECORDER.open
    with pytest.raises(RuntimeError, match="inside"), recording():
        raise RuntimeError("inside the recording")
    assert RECORDER.open == open_before
    with recording() as log:
        pass
    assert len(log) == 0 and log.text() == "" and log.as_json() == {"kernels": []}
