"""The adaptive runtime: the inspector's profile, deterministic decisions, ``balancer="auto"``
equal to every static balancer, choices recorded per step, the calibration cache, traces,
pooled buffers and device results."""

from __future__ import annotations

import json
import os
import stat
import sys
import warnings
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings

from algorithms import bfs
from frontier import Frontier, Graph, generators
from frontier.options import Mode, values
from frontier.runtime.cache_files import CacheDirectoryWarning
from frontier.testing import check_bfs, graphs_with_source
from frontier_cli.commands import main
from frontier_cli.trace import read_trace
from operators import advance, available_balancers, get_balancer
from operators.adaptive import (
    CACHE_ENV,
    Decision,
    Thresholds,
    decide,
    inspect,
    load_calibration,
    save_calibration,
    thresholds_for,
)
from operators.balancers import (
    BALANCERS,
    AutoBalancer,
    BalancerError,
    BlockMapped,
    DynamicWarp,
    Regime,
    ThreadMapped,
    TwoPhase,
    VirtualWarp,
    serving,
)
from operators.small_frontier import BLOCK_LOCAL
from tests.tiers import examples

FUSED, HOST, MODES = Mode.FUSED, Mode.HOST, values(Mode)

#: Few examples in the simulator (each one runs BFS with every balancer).
EXAMPLES = examples(15)

#: Thresholds so low that graphs of a few dozen vertices meet every branch of the decision
#: maker (two_phase on hubs, dynamic_warp, warp, thread, bitmaps, one block), measured at every
#: step.
EVERY_BRANCH = AutoBalancer(Thresholds(t1=3.0, t2=6, t3=0.2, hub_edges=40, hub_degree=10,
                                        host_edges=40, sample_every=1, block_frontier=3,
                                        block_edges=6))


def test_inspector_profiles_degrees_once_per_graph():
    g = Graph.from_edges([0, 0, 0, 1], [1, 2, 3, 2], num_vertices=5)
    profile = inspect(g)
    assert (profile.num_vertices, profile.num_edges, profile.max_degree) == (5, 4, 3)
    assert profile.mean_degree == pytest.approx(0.8)
    assert profile.degree_variance == pytest.approx(np.var([3, 1, 0, 0, 0]))
    assert inspect(g) is profile


def test_inspector_handles_the_empty_graph():
    assert inspect(Graph.from_edges([], [], num_vertices=0)).max_degree == 0


PROFILE = inspect(generators.grid2d(100, 100))
#: (the one-block mode off here: test_small_frontier tests it)
LIMITS = Thresholds(t1=32, t2=500, t3=0.06, hub_edges=100_000, hub_degree=2_000,
                    host_edges=150_000, block_frontier=1, block_edges=1)


@pytest.mark.parametrize("size, degree_sum, expected", [
    (1, 200_000, Decision(TwoPhase(), "sparse", "push", HOST)),
    (1, 2_000, Decision(TwoPhase(), "sparse", "push", FUSED, 75)),
    (5_000, 100_000, Decision(TwoPhase(), "dense", "push", FUSED, 7_500)),
    (5_000, 150_000, Decision(TwoPhase(), "dense", "push", HOST)),
    (10, 5_000, Decision(DynamicWarp(), "sparse", "push", FUSED, 200)),
    (10, 40, Decision(VirtualWarp(), "sparse", "push", FUSED, 499)),
    (499, 1_996, Decision(VirtualWarp(), "sparse", "push", FUSED, 499)),
    (500, 2_000, Decision(ThreadMapped(), "sparse", "push", FUSED, 600)),
    (999, 3_996, Decision(ThreadMapped(), "dense", "push", FUSED)),
])
def test_decisions_follow_the_thresholds(size, degree_sum, expected):
    assert decide(PROFILE, size, degree_sum, LIMITS) == expected


def test_small_graphs_keep_queues_below_t2():
    tiny = inspect(generators.path(7))
    assert decide(tiny, 1, 2, LIMITS).representation == "sparse"


def test_decisions_are_deterministic():
    cases = [(s, d) for s in (1, 7, 100, 5000, 9000) for d in (0, 3, 50_000, 10**6)]
    first = [decide(PROFILE, s, d, LIMITS) for s, d in cases]
    assert first == [decide(PROFILE, s, d, LIMITS) for s, d in cases]


def test_a_sequential_target_runs_every_step_as_its_one_loop():
    d = decide(PROFILE, 1, 10**6, LIMITS, spreads=False)
    assert (d.label, d.mode) == ("thread", FUSED)


def test_auto_is_accepted_but_not_listed_with_the_static_balancers():
    assert isinstance(get_balancer("auto"), AutoBalancer)
    assert "auto" not in available_balancers()
    assert available_balancers(include_auto=True)[0] == "auto"


def test_each_regime_of_auto_runs_the_one_registered_balancer_declaring_it():
    for regime in Regime:
        chosen = serving(regime)
        assert [c for c in BALANCERS.values() if regime in c.serves] == [type(chosen)]
        assert BALANCERS[chosen.name] is type(chosen)


def test_a_balancer_joins_auto_by_declaring_a_regime(monkeypatch):
    class Wider(VirtualWarp):
        name = "wider"
        serves = (Regime.SMALL,)

    monkeypatch.setattr(VirtualWarp, "serves", ())
    monkeypatch.setitem(BALANCERS, Wider.name, Wider)
    assert type(serving(Regime.SMALL)) is Wider


def test_two_balancers_declaring_one_regime_are_refused(monkeypatch):
    monkeypatch.setattr(BlockMapped, "serves", (Regime.THIN,))
    with pytest.raises(BalancerError, match="2 registered balancers serve the 'thin' steps of "
                                            "balancer='auto' \\(thread, block\\)"):
        serving(Regime.THIN)


@pytest.mark.parametrize("name", ["t2", "host_edges", "hand_back_steps"])
def test_thresholds_reject_non_positive_values(name):
    with pytest.raises(ValueError, match=f"{name}=0"):
        Thresholds(**{name: 0})


def test_a_host_step_needs_host_edges_and_a_fused_two_phase_runs_until_it():
    limits = replace(LIMITS, host_edges=10**8)
    assert decide(PROFILE, 1, 200_000, limits) == Decision(TwoPhase(), "sparse", "push", FUSED,
                                                            500)  # 10**8 / 200,000 per vertex
    assert decide(PROFILE, 1, 10**8, limits).mode == HOST


@settings(max_examples=EXAMPLES)
@given(case=graphs_with_source())
def test_auto_bfs_equals_every_static_balancer(target, case):
    graph, source = case
    auto = bfs(graph, source, target=target, balancer=EVERY_BRANCH)
    check_bfs(graph, source, auto.distances, auto.predecessors)
    for balancer in available_balancers():
        static = bfs(graph, source, target=target, balancer=balancer)
        np.testing.assert_array_equal(auto.distances, static.distances)


@pytest.mark.parametrize("direction", ["push", "auto"])
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "host-loop"])
def test_auto_takes_every_branch_and_records_it_per_level(target, direction, fused):
    g = generators.rmat(6, edge_factor=4, seed=3)
    s = int(np.argmax(g.out_degrees()))
    r = bfs(g, s, target=target, balancer=EVERY_BRANCH, direction=direction, fused=fused)
    check_bfs(g, s, r.distances, r.predecessors)
    assert len(r.stats) == r.iterations
    static = set(available_balancers()) | {BLOCK_LOCAL}
    if not target.runs_balancers:  # one loop, whatever the decision: no balancer applies
        static = {f"n/a on {target.name}"}
    assert all(level.balancer in static for level in r.stats)
    assert all(level.mode in MODES and level.representation in ("sparse", "dense")
               for level in r.stats)
    if target.runs_balancers and direction == "push":
        # a hub step: host-loop from host_edges (40) edges on, else fused
        big = g.out_degrees()[s] >= EVERY_BRANCH.thresholds.host_edges
        assert r.stats[0].balancer == "two_phase"
        assert r.stats[0].mode == (HOST if big or not fused else FUSED)
    if not fused:
        assert all(level.mode == HOST for level in r.stats)


def test_bfs_defaults_to_auto_and_names_the_choice_in_its_stats(target):
    g = generators.grid2d(5, 4)
    r = bfs(g, 0, target=target)
    text = repr(r.stats)
    shown = [*available_balancers(), BLOCK_LOCAL] if target.runs_balancers else [
        f"n/a on {target.name}"]  # no balancer applies on a target of one loop
    assert any(f"balancer='{b}'" in text for b in shown)
    check_bfs(g, 0, r.distances, r.predecessors)


def test_advance_with_auto_equals_a_static_advance(target):
    g = generators.star(9)

    def claim(src, dst, eid, weight, seen):
        seen[dst] = 1
        return True

    outputs = []
    for balancer in (EVERY_BRANCH, "auto", "thread"):
        f = Frontier.from_vertices(g, [0], target=target)
        seen = target.zeros(g.num_vertices, np.int32)
        out = advance(g, f, claim, seen, balancer=balancer)
        outputs.append(sorted(out.to_numpy().tolist()))
    assert outputs[0] == outputs[1] == outputs[2] == list(range(1, 9))


def test_repeated_calls_reuse_the_pooled_buffers_and_stay_correct(target):
    g = generators.grid2d(6, 5)
    first = bfs(g, 0, target=target, direction="pull")
    pool = Frontier.from_vertices(g, [0], target=target, capacity=g.num_vertices,
                                  shared=True).pool
    for source, direction in ((7, "push"), (29, "auto"), (0, "pull")):
        r = bfs(g, source, target=target, direction=direction)
        check_bfs(g, source, r.distances, r.predecessors)
    again = Frontier.from_vertices(g, [0], target=target, capacity=g.num_vertices, shared=True)
    assert again.pool is pool and pool.capacity == g.num_vertices
    np.testing.assert_array_equal(first.distances, bfs(g, 0, target=target).distances)


def test_a_shared_pool_restart_makes_its_earlier_frontiers_stale(target):
    from frontier import StaleFrontierError

    g = generators.path(4)
    old = Frontier.from_vertices(g, [1], target=target, capacity=4, shared=True)
    Frontier.from_vertices(g, [2], target=target, capacity=4, shared=True)
    with pytest.raises(StaleFrontierError):
        len(old)


def test_device_results_stay_on_the_target(target):
    g = generators.path(6)
    r = bfs(g, 0, target=target, out="device")
    assert not isinstance(r.distances, np.ndarray) or target.name == "cpu"
    if target.name == "cuda" and not target.simulated:  # the simulator's arrays lack it
        assert hasattr(r.distances, "__cuda_array_interface__")
    np.testing.assert_array_equal(target.to_host(r.distances), np.arange(6))
    assert [s.frontier_size for s in r.stats] == [1] * 6


def test_bfs_rejects_an_unknown_out():
    with pytest.raises(ValueError, match="'gpu'"):
        bfs(generators.path(2), 0, target="cpu", out="gpu")


def test_calibration_cache_is_written_and_read(tmp_path, monkeypatch):
    from frontier.target import resolve_target

    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    cpu = resolve_target("cpu")
    assert thresholds_for(cpu).source.startswith("device properties")
    save_calibration(cpu.device_name, Thresholds(t2=123, hub_edges=4567), {"note": "test"})
    stored = load_calibration(cpu.device_name)
    assert stored["t2"] == 123 and stored["measured"] == {"note": "test"}
    found = thresholds_for(cpu)
    assert (found.t2, found.hub_edges) == (123, 4567) and found.source.startswith("calibrated")


def test_a_broken_calibration_cache_falls_back_to_the_device(tmp_path, monkeypatch):
    from frontier.target import resolve_target

    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    (tmp_path / "calibration.json").write_text("{not json")
    assert thresholds_for(resolve_target("cpu")).source.startswith("device properties")
    (tmp_path / "calibration.json").write_text(json.dumps({"cpu": {"t2": -1}}))
    assert thresholds_for(resolve_target("cpu")).source.startswith("device properties")


def test_the_calibration_lives_in_the_cache_directory_whatever_decides_it(tmp_path, monkeypatch):
    from frontier.runtime.cache_dir import CACHE_DIR_INPUTS, cache_dir
    from operators.adaptive import calibration_path

    for name in CACHE_DIR_INPUTS:
        monkeypatch.delenv(name, raising=False)
    seen = {calibration_path()}
    for name in reversed(CACHE_DIR_INPUTS):  # each overrides the ones set before it
        monkeypatch.setenv(name, str(tmp_path / name))
        assert calibration_path() == cache_dir() / "calibration.json"
        assert calibration_path() not in seen
        seen.add(calibration_path())


def _calibration_of(t2: int) -> str:
    return json.dumps({"cpu": {"t2": t2}})


def test_a_link_planted_as_the_calibration_file_is_not_read_and_is_replaced_not_written_through(
        tmp_path, monkeypatch):
    from frontier.target import resolve_target

    cache, victim = tmp_path / "cache", tmp_path / "victim.json"
    cache.mkdir(mode=0o700)
    victim.write_text(_calibration_of(77))
    (cache / "calibration.json").symlink_to(victim)
    monkeypatch.setenv(CACHE_ENV, str(cache))
    cpu = resolve_target("cpu")
    assert load_calibration(cpu.device_name) is None
    assert thresholds_for(cpu).source.startswith("device properties")
    written = save_calibration(cpu.device_name, Thresholds(t2=123), {})
    assert victim.read_text() == _calibration_of(77)
    assert written == cache / "calibration.json" and not written.is_symlink()
    assert json.loads(written.read_text())["cpu"]["t2"] == 123
    assert [p.name for p in cache.iterdir()] == ["calibration.json"]  # no leftovers
    assert thresholds_for(cpu).t2 == 123


NOBODY = 65534
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _refuse(cache, how: str) -> None:
    """Make the calibration cache ``cache`` one another user could have written, ``how``."""
    if how == "owned by another user" or how == "its file another user's":
        if not AS_ROOT:
            pytest.skip("needs chown")
        os.chown(cache / "calibration.json" if how.startswith("its file") else cache, NOBODY, -1)
    else:
        cache.chmod({"writable by others": 0o777, "writable by its group": 0o770}[how])


#: Per way another user could have put a calibration there: whether the directory is refused
#: (with the cache's warning) or only the file is not read.
PLANTED = {"writable by others": True, "writable by its group": True,
           "owned by another user": True, "its file another user's": False}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX owners and modes")
@pytest.mark.parametrize("how", sorted(PLANTED))
def test_a_calibration_another_user_could_have_put_there_is_not_read(tmp_path, monkeypatch,
                                                                     how):
    from frontier.target import resolve_target

    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    (cache / "calibration.json").write_text(_calibration_of(123))
    _refuse(cache, how)
    monkeypatch.setenv(CACHE_ENV, str(cache))
    cpu = resolve_target("cpu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert thresholds_for(cpu).source.startswith("device properties")
        assert load_calibration(cpu.device_name) is None
    refused = [w for w in caught if issubclass(w.category, CacheDirectoryWarning)]
    assert len(refused) == PLANTED[how]
    assert all(str(cache) in str(w.message) for w in refused)
    assert [p.name for p in cache.iterdir()] == ["calibration.json"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_a_saved_calibration_is_private_whatever_the_umask(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "home" / "cache"))
    old = os.umask(0)
    try:
        written = save_calibration("cpu", Thresholds(t2=5), {})
    finally:
        os.umask(old)
    modes = [stat.S_IMODE(p.stat().st_mode) for p in (written, written.parent,
                                                       written.parent.parent)]
    assert written == tmp_path / "home" / "cache" / "calibration.json"
    assert modes == [0o600, 0o700, 0o700]


def test_calibrate_command_measures_and_writes_the_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    code = main(["calibrate", "--target", "cpu", "--quick", "--runs", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "thresholds" in out and str(tmp_path) in out
    assert "t2" in json.loads((tmp_path / "calibration.json").read_text())["cpu"]


def test_run_trace_lists_every_level_and_plot_reads_it(tmp_path, capsys):
    trace = tmp_path / "grid.csv"
    assert main(["run", "bfs", "grid:8x9", "--target", "cpu", "--runs", "1", "--trace",
                 str(trace)]) == 0
    rows = read_trace(trace)
    assert len(rows) == 16 and sum(r["frontier_size"] for r in rows) == 72
    assert all(r["balancer"] == "n/a on cpu" for r in rows)  # no balancer applies on the cpu
    assert main(["run", "bfs", "path:5", "--target", "cpu", "--runs", "1", "--trace"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("\n4,1,") == 1 and "# trace" in printed
    saved = tmp_path / "run.txt"
    saved.write_text(printed)
    assert [r["step"] for r in read_trace(saved)] == [0, 1, 2, 3, 4]


def test_plot_draws_a_trace_or_says_what_is_missing(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    main(["run", "bfs", "grid:5x5", "--target", "cpu", "--runs", "1", "--trace", str(trace)])
    code = main(["plot", str(trace), "--out", str(tmp_path / "t.png")])
    err = capsys.readouterr().err
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert code == 2 and "matplotlib" in err
    else:
        assert code == 0 and (tmp_path / "t.png").stat().st_size > 0


def test_plot_of_a_file_without_a_trace_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "x.txt"
    bad.write_text("hello\n")
    assert main(["plot", str(bad)]) == 2
    assert "no trace header" in capsys.readouterr().err


def test_calibration_moves_a_threshold_only_on_a_clear_repeated_win():
    from operators.calibrate import _crossover

    noisy = {256: {"a": 1.0, "b": 1.2}, 512: {"a": 1.0, "b": 1.0}, 1024: {"a": 1.0, "b": 1.05}}
    assert _crossover(noisy, "a", "b", default=77) == 77
    clear = {256: {"a": 1.0, "b": 1.0}, 512: {"a": 1.0, "b": 2.0}, 1024: {"a": 1.0, "b": 3.0}}
    assert _crossover(clear, "a", "b", default=77) == 512
