"""The ``frontier`` command: every catalog algorithm runs and explains, output of run/demo/explain,
and one-line errors with exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from algorithms import CATALOG
from algorithms.entry import Entry, Option
from frontier import generators
from operators import available_balancers
from tests.frontier_cli.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]



OPTION_CHOICES = [pytest.param(name, option.name, choice, id=f"{name}-{option.name}={choice}")
                  for name, entry in CATALOG.items()
                  for option in entry.options for choice in option.choices]


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_catalog_algorithm_runs_on_a_spec_graph_and_validates(capsys, name):
    graph = CATALOG[name].example or "grid:6x7"
    code, out, err = run_cli(capsys, "run", name, graph, "--target", "cpu", "--validate",
                             "--runs", "1")
    assert code == 0, err
    assert f"|V|         {generators.from_spec(graph).num_vertices:,}" in out
    assert f"validated   {CATALOG[name].checks}" in out


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_trace_prints_the_levels_of_a_traced_algorithm_and_refuses_the_others_up_front(
        capsys, monkeypatch, name):
    def loaded_anyway(*args):
        raise AssertionError("the graph was read before --trace was refused")

    entry = CATALOG[name]
    graph = entry.example or "grid:6x7"
    if not entry.traced:
        monkeypatch.setattr("frontier_cli.commands.load_graph", loaded_anyway)
    code, out, err = run_cli(capsys, "run", name, graph, "--target", "cpu", "--runs", "1",
                             "--trace")
    if entry.traced:
        assert code == 0 and "# trace" in out, err
    else:
        assert code == 2 and "--trace" in err and "bfs" in err and err.count("\n") == 1


@pytest.mark.parametrize("name, option, choice", OPTION_CHOICES)
def test_every_option_choice_of_every_algorithm_runs_and_is_shown(capsys, name, option, choice):
    code, out, err = run_cli(capsys, "run", name, CATALOG[name].example or "rmat:6", "--target",
                             "cpu", "--validate", "--runs", "1", f"--{option}", choice)
    assert code == 0, err
    shown = next(o.shown for o in CATALOG[name].options if o.name == option).format(choice)
    assert f", {shown}" in out.split("balancer    ")[1].splitlines()[0]


@pytest.mark.parametrize("kind", sorted(generators.SPECS))
def test_run_accepts_every_generator_spec_form(capsys, kind):
    spec = generators.SPECS[kind].example
    code, out, err = run_cli(capsys, "run", "bfs", spec, "--target", "cpu", "--validate",
                             "--runs", "1")
    assert code == 0, err
    assert f"|V|         {generators.from_spec(spec).num_vertices:,}" in out


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_catalog_algorithm_explains_the_kernels_it_ran(capsys, name):
    code, out, err = run_cli(capsys, "explain", name, CATALOG[name].example or "grid:4x5",
                             "--target", "cpu")
    assert code == 0, err
    assert out.startswith(f"# {name} on ") and "\n# --- " in out and "\ndef " in out


def test_explain_on_the_cpu_says_the_balancer_does_not_apply(capsys):
    code, out, err = run_cli(capsys, "explain", "bfs", "path:5", "--balancer", "warp:32",
                             "--target", "cpu")
    assert code == 0, err
    headings = [line for line in out.splitlines() if line.startswith("# --- ")]
    assert headings and all(", balancer n/a on cpu, " in h.replace(":", ",")
                            or ": balancer -, " in h for h in headings)
    code, out, err = run_cli(capsys, "explain", "bfs", "path:5", "--balancer", "warp:32",
                             "--target", "cpu", "--json")
    assert code == 0, err
    assert "n/a on cpu" in {k["balancer"] for k in json.loads(out)["kernels"]}


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_options_an_algorithm_does_not_take_are_refused(capsys, name):
    taken = {o.name for o in CATALOG[name].options}
    others = sorted({o.name for e in CATALOG.values() for o in e.options} - taken) or ["nosuch"]
    code, _, err = run_cli(capsys, "run", name, "path:3", f"--{others[0]}", "x")
    assert code == 2 and len(err.strip().splitlines()) == 1


def fake_entry(agrees) -> Entry:
    """A catalog entry that runs BFS under another name, with an option of its own."""
    def run(graph, source, colour="red", **options):
        return CATALOG["bfs"].run(graph, source, **options)

    return Entry(name="fake", description="a BFS in disguise", run=run,
                 reference=CATALOG["bfs"].reference, check=agrees, checks="it agrees",
                 report=lambda result: [("colour", "seen")],
                 options=(Option("colour", ("red", "blue"), "red", "a colour",
                                 shown="{} colour"),))


def test_a_new_catalog_entry_is_a_command_with_its_options(capsys, monkeypatch):
    monkeypatch.setitem(CATALOG, "fake", fake_entry(lambda graph, source, result: None))
    code, out, err = run_cli(capsys, "run", "fake", "path:4", "--colour", "blue", "--target",
                             "cpu", "--runs", "1", "--validate")
    assert code == 0, err
    for line in ("balancer    auto, blue colour", "colour      seen", "validated   it agrees"):
        assert line in out
    code, out, err = run_cli(capsys, "explain", "fake", "path:4", "--colour", "blue",
                             "--target", "cpu")
    assert code == 0 and "blue colour" in out.splitlines()[0] and "def traverse_" in out, err


def test_an_entry_without_source_or_balancer_offers_neither(capsys, monkeypatch):
    seen = {}

    def run(graph, target):
        seen["run"] = graph.num_vertices
        return CATALOG["bfs"].run(graph, 0, target=target)

    def agrees(graph, source, result):
        seen["agrees"] = graph.num_vertices

    entry = Entry(name="whole", description="a whole-graph algorithm", run=run,
                  reference=lambda graph, source: None, check=agrees, checks="it agrees",
                  report=lambda result: [],
                  source=False, balanced=False)
    monkeypatch.setitem(CATALOG, "whole", entry)
    code, out, err = run_cli(capsys, "run", "whole", "path:5", "--target", "cpu", "--runs", "1",
                             "--validate")
    assert code == 0, err
    assert seen == {"run": 5, "agrees": 5} and "source" not in out
    assert "balancer    -" in out
    for command in ("run", "explain"):
        for refused in (["--source", "1"], ["--balancer", "warp"]):
            assert run_cli(capsys, command, "whole", "path:5", *refused)[0] == 2
    assert run_cli(capsys, "explain", "whole", "path:5", "--target", "cpu")[0] == 0


def test_a_result_that_disagrees_with_scipy_is_one_line_and_exit_1(capsys, monkeypatch):
    def disagree(graph, source, result):
        raise AssertionError("vertex 3: distance 2, expected 1\nmore detail")

    monkeypatch.setitem(CATALOG, "fake", fake_entry(disagree))
    code, _, err = run_cli(capsys, "run", "fake", "path:4", "--target", "cpu", "--runs", "1",
                           "--validate")
    assert code == 1
    assert err == "frontier: error: fake disagrees with scipy: vertex 3: distance 2, expected 1\n"


def test_balancers_lists_the_registry(capsys):
    code, out, _ = run_cli(capsys, "balancers")
    assert code == 0 and out.split() == available_balancers()


def test_run_bfs_on_a_generator_spec_prints_sizes_time_mteps_and_validates(capsys):
    code, out, err = run_cli(capsys, "run", "bfs", "grid:20x30", "--target", "cpu",
                             "--validate", "--runs", "1")
    assert code == 0, err
    for field in ("|V|         600", "|E|         2,300 arcs", "MTEPS", "reached     600",
                  "iterations  49", "validated"):
        assert field in out


def test_run_bfs_dense_frontier_host_loop_on_rmat(capsys):
    code, out, _ = run_cli(capsys, "run", "bfs", "rmat:8", "--target", "cpu",
                           "--frontier", "dense", "--runs", "1", "--validate")
    assert code == 0 and "dense frontier" in out


@pytest.mark.parametrize("argv, message", [
    (["run", "bfs", "/no/such/graph.mtx"], "no such file"),
    (["run", "bfs", "grid:10xten"], "expected whole numbers"),
    (["run", "bfs", "rmat:1:2:3"], "expected rmat:SCALE"),
    (["run", "bfs", "rmat:31"], "scale is 31"),
    (["run", "nosuch", "path:5"], "unknown algorithm 'nosuch'"),
    (["explain", "nosuch"], "unknown algorithm 'nosuch'"),
    (["explain", "bfs", "/no/such/graph.mtx"], "no such file"),
    (["explain", "bfs", "grid:10xten"], "expected whole numbers"),
    (["explain", "bfs", "path:5", "--source", "5", "--target", "cpu"],
     "source 5 is out of range"),
    (["explain", "bfs", "path:5", "--balancer", "nope", "--target", "cpu"], "unknown balancer"),
    (["run", "bfs", "path:5", "--source", "5", "--target", "cpu"], "source 5 is out of range"),
    (["run", "bfs", "path:5", "--balancer", "nope", "--target", "cpu"], "unknown balancer"),
    (["run", "bfs", "path:5", "--runs", "0"], "--runs must be >= 1"),
])
def test_bad_input_prints_one_line_and_exits_2(capsys, argv, message):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_malformed_graph_file_names_file_and_line(capsys, tmp_path):
    bad = tmp_path / "bad.gr"
    bad.write_text("p sp 3 2\na 1 2 5\na 1 x 5\n")
    code, _, err = run_cli(capsys, "run", "bfs", str(bad), "--target", "cpu")
    assert code == 2 and "bad.gr" in err and ":3" in err


def test_demo_validates_bfs_on_generated_and_shipped_graphs(capsys):
    code, out, _ = run_cli(capsys, "demo", "--target", "cpu")
    assert code == 0
    assert out.count("equal to scipy.sparse.csgraph") == 2 and "luxembourg_osm" in out


@pytest.mark.parametrize("counts, said", [
    ((0, 1, 0), "(first run: 1 kernel compiled, compile time included)"),
    ((2, 0, 0), "(first run: 2 kernels loaded from the disk cache)"),
    ((1, 0, 2), "(first run: 2 kernels compiled and 1 kernel loaded from the disk cache, "
                "compile time included)"),
    ((0, 0, 0), "(kernels already in this process)")])
def test_the_demo_says_whether_its_kernels_were_compiled_or_loaded(capsys, monkeypatch,
                                                                    counts, said):
    from frontier.runtime import kernel_cache

    # per case: the counts before its BFS, then after (loaded, compiled, uncached); the
    # counting itself is frontier.runtime.kernel_cache's (tests/frontier/test_kernel_cache.py)
    before, after = kernel_cache.KernelCacheStats(0, 0, 0), kernel_cache.KernelCacheStats(*counts)
    calls = iter([before, after, after, after])
    monkeypatch.setattr(kernel_cache, "stats", lambda: next(calls))
    code, out, _ = run_cli(capsys, "demo", "--target", "cpu")
    assert code == 0
    first, second = out.splitlines()[1:3]
    assert said in first and "(kernels already in this process)" in second


def test_the_demo_names_the_extra_where_a_gpu_goes_unused_without_numba_cuda(
        capsys, monkeypatch):
    from frontier.runtime import cuda_support, simulator

    monkeypatch.setattr(simulator, "enabled", lambda: False)
    monkeypatch.setattr(cuda_support, "numba_cuda", lambda: None)
    monkeypatch.setattr(cuda_support, "driver_found", lambda: True)
    monkeypatch.setattr(cuda_support, "driver_gpus", lambda: 1)
    cuda_support.cuda_usable.cache_clear()
    try:
        code, out, _ = run_cli(capsys, "demo")
        assert code == 0
        assert out.splitlines()[:2] == [
            "Frontier demo on target cpu",
            "  the GPU is not used: this machine has 1 NVIDIA GPU, but numba-cuda is not "
            f"installed: {cuda_support.INSTALL_HINT}"]
        code, out, _ = run_cli(capsys, "demo", "--target", "cpu")  # asked for: nothing said
        assert code == 0 and "the GPU is not used" not in out
    finally:
        monkeypatch.undo()
        cuda_support.cuda_usable.cache_clear()


def test_explain_prints_the_kernels_bfs_ran_in_each_direction(capsys):
    code, out, _ = run_cli(capsys, "explain", "bfs", "rmat:6", "--target", "cpu", "--direction",
                           "push")
    assert code == 0 and "def traverse_thread_vertices_sparse_to_sparse__visit(" in out
    assert "pull" not in out
    code, out, _ = run_cli(capsys, "explain", "bfs", "rmat:6", "--target", "cpu", "--direction",
                           "pull")
    assert code == 0 and "def pull_thread_" in out and "mode host" in out
    assert "def traverse_" not in out


def test_console_entry_point_exits_2_on_missing_file():
    proc = subprocess.run([sys.executable, "-m", "frontier_cli", "run", "bfs", "missing.mtx"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("frontier: error:")


def test_the_console_script_is_the_guard_of_the_command_line_package():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    module, _, function = project["project"]["scripts"]["frontier"].partition(":")
    assert module == "frontier_cli.guard"
    # in a child: importing the guard takes over Ctrl-C, which this process keeps
    code = f"import {module}; print(callable({module}.{function}))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert proc.stdout.split() == ["True"]


def test_the_guard_imports_nothing_but_the_standard_library_before_the_command_starts():
    code = ("import sys\nbefore = set(sys.modules)\nimport frontier_cli.guard\n"
            "print(*sorted({m.split('.')[0] for m in set(sys.modules) - before}\n"
            "              - set(sys.stdlib_module_names)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    assert proc.stdout.split() == ["frontier_cli"]


#: Edge lists with repeated arcs, self-loops and both (directed; the last also undirected).
REPEATED_ARCS = {"repeated": "0 1\n0 1\n1 0\n", "self-loops": "0 0\n0 1\n1 1\n1 2\n2 0\n",
                 "both": "0 0\n0 0\n0 1\n0 1\n1 0\n1 1\n2 1\n3 3\n",
                 "both-undirected": "# frontier-graph vertices=4 arcs=9 directed=false "
                                    "weights=none\n0 0\n0 1\n0 1\n1 0\n1 0\n1 1\n1 2\n2 1\n3 3\n"}


#: ``frontier info --json`` on each file named after it, in one child interpreter (it pays
#: Numba's import once), printing one JSON line per file: its exit status and output.
INFO_EACH = """import contextlib, io, json, sys
from frontier_cli.commands import main
for path in sys.argv[1:]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["info", path, "--json", "--target", "cpu"])
    print(json.dumps([code, out.getvalue()]), flush=True)
"""


@pytest.fixture(scope="module")
def info_on_repeated_arcs(tmp_path_factory) -> dict[str, tuple[Path, int, str]]:
    """Each of REPEATED_ARCS as a file, and what ``frontier info --json`` said of it: run in a
    child, which must end within a minute."""
    folder = tmp_path_factory.mktemp("repeated")
    paths = {name: folder / f"{name}.txt" for name in sorted(REPEATED_ARCS)}
    for name, path in paths.items():
        path.write_text(REPEATED_ARCS[name])
    proc = subprocess.run([sys.executable, "-c", INFO_EACH, *map(str, paths.values())],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    said = [json.loads(line) for line in proc.stdout.splitlines()]
    return {name: (path, *said[k]) for k, (name, path) in enumerate(paths.items())}


@pytest.mark.parametrize("name", sorted(REPEATED_ARCS))
def test_info_on_repeated_arcs_and_self_loops_ends_and_counts_the_components(
        info_on_repeated_arcs, name):
    from frontier import load
    from frontier.testing import reference_components, reference_scc

    path, code, out = info_on_repeated_arcs[name]
    assert code == 0
    graph, parts = load(path), json.loads(out)["components"]
    assert parts["weak"] == len(set(reference_components(graph).tolist()))
    if graph.directed:
        assert parts["strong"] == len(set(reference_scc(graph).tolist()))


@pytest.mark.parametrize("algorithm", sorted(CATALOG))
def test_every_algorithm_runs_and_explains_on_repeated_arcs_and_self_loops(tmp_path, capsys,
                                                                          algorithm):
    path = tmp_path / "both.txt"
    path.write_text(REPEATED_ARCS["both"])
    for command in (["run", algorithm, str(path), "--validate", "--runs", "1"],
                    ["explain", algorithm, str(path)]):
        code, _, err = run_cli(capsys, *command, "--target", "cpu")
        # validated, or refused as input the algorithm does not take (listrank: not a list)
        assert code == 0 or (code == 2 and err.count("\n") == 1
                             and "takes" in err and "internal" not in err), err


@pytest.mark.parametrize("ending", [".npz", ".mtx", ".txt"])
def test_convert_keeps_repeated_arcs_and_self_loops(tmp_path, capsys, ending):
    from frontier import load

    for name, text in REPEATED_ARCS.items():
        source, out = tmp_path / f"{name}.txt", tmp_path / f"{name}-converted{ending}"
        source.write_text(text)
        code, _, err = run_cli(capsys, "convert", str(source), str(out))
        assert code == 0, err
        a, b = load(source), load(out)
        assert (a.num_vertices, a.directed, a.row_offsets.tolist(), a.col_indices.tolist()) == (
            b.num_vertices, b.directed, b.row_offsets.tolist(), b.col_indices.tolist())


NOBODY = 65534


def _shared(cache: Path, how: str) -> str:
    """Make ``cache`` a calibration cache directory another user could write, ``how``: the
    problem the refusal must name."""
    cache.mkdir(mode=0o700)
    if how == "owned by another user":
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            pytest.skip("needs chown")
        os.chown(cache, NOBODY, -1)
        return f"is owned by uid {NOBODY}, mode 0700"
    mode = {"writable by others": 0o777, "writable by its group": 0o770}[how]
    cache.chmod(mode)
    return f"is owned by uid {os.geteuid()}, mode {mode:04o}"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX owners and modes")
@pytest.mark.parametrize("how", ["writable by others", "writable by its group",
                                 "owned by another user"])
def test_calibrate_refuses_a_cache_directory_another_user_could_write_before_measuring(
        capsys, monkeypatch, tmp_path, how):
    from operators import calibrate

    cache = tmp_path / "cache"
    problem = _shared(cache, how)
    measured = []
    monkeypatch.setattr(calibrate, "calibrate", lambda *args: measured.append(args))
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(cache))
    code, _, err = run_cli(capsys, "calibrate", "--target", "cpu", "--quick")
    assert code == 2 and measured == [] and len(err.splitlines()) == 1
    assert f"the calibration cache cannot be kept: {cache}: {problem}; expected a directory " \
           f"owned by you (uid {os.geteuid()}) and writable only by you (mode 0700)" in err
    assert list(cache.iterdir()) == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_calibrate_replaces_a_link_planted_as_its_file_and_never_writes_through_it(
        capsys, monkeypatch, tmp_path):
    cache, victim = tmp_path / "cache", tmp_path / "victim"
    cache.mkdir(mode=0o700)
    victim.write_text("the user's file")
    (cache / "calibration.json").symlink_to(victim)
    monkeypatch.setenv("FRONTIER_CACHE_DIR", str(cache))
    code, out, err = run_cli(capsys, "calibrate", "--target", "cpu", "--quick", "--runs", "1")
    written = cache / "calibration.json"
    assert code == 0 and f"written     {written}" in out, err
    assert victim.read_text() == "the user's file" and not written.is_symlink()
    assert "t2" in json.loads(written.read_text())["cpu"]
    assert oct(written.stat().st_mode & 0o777) == oct(0o600)
