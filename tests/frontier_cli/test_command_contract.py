"""The command line's contract with its users (issue 9 item 7, issue 13 item 4): ``--version``;
every user error one line on stderr and exit 2, a traceback only with ``--debug``; Ctrl-C exit 130
without a traceback; ``--json`` on every command; ``info``; shell completion; progress on long
work; errors that suggest the fix."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace

import pytest

import frontier
from algorithms import CATALOG
from algorithms.entry import Entry
from frontier_cli import progress
from frontier_cli.commands import build_parser
from frontier_cli.completion import script
from operators import available_balancers
from tests.frontier_cli.cli import run_cli


def test_version_prints_the_package_version(capsys):
    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out.strip() == f"frontier {frontier.__version__}"


@pytest.mark.parametrize("argv, words", [
    (["run", "bfs", "rmat:6", "--balancer", "nosuch"], "two_phase"),
    (["run", "bfs", "rmat:6", "--direction", "pull", "--balancer", "warp", "--target", "cpu"],
     "balancer has no effect with direction='pull'"),
    (["run", "bfs", "rmat:6", "--source", "99999999"], "source 99999999 is out of range"),
    (["run", "bfs", "rmat:6", "--source", "x"], "invalid int value"),
    (["run", "bfs", "gnm:10:1000"], "gnm"),
    (["info", "/no/such/file.mtx"], "no such file"),
    (["info", "rmat:6", "--sweeps", "0"], "--sweeps must be >= 1"),
    (["completion", "tcsh"], "invalid choice"),
])
def test_user_errors_are_one_line_and_exit_2(capsys, argv, words):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2, err
    assert err.startswith("frontier: error:") and words in err
    assert len(err.strip().splitlines()) == 1


def _file(where, name: str, content: bytes) -> str:
    path = where / name
    path.write_bytes(content)
    return str(path)


#: The unclear messages of issue 47, item 6 (and their neighbours): per case, the arguments
#: (made from a temporary directory), the environment, and what the one line must say.
UNCLEAR_BEFORE = {
    "spec of 5000 digits": (lambda d: ["info", "path:" + "9" * 5000], {},
                            "a number of 5,000 digits; expected whole numbers of at most 18"),
    "grid of 10**20 rows": (lambda d: ["info", "grid:99999999999999999999x0"], {},
                            "grid:99999999999999999999x0': a number of 20 digits"),
    "--bogus": (lambda d: ["--bogus"], {}, "unknown option '--bogus'; expected a command first"),
    "run bfs --bogus": (lambda d: ["run", "bfs", "path:3", "--bogus"], {},
                        "unknown arguments '--bogus'; expected the arguments of the command"),
    "negative host limit": (lambda d: ["info", "path:3"], {"FRONTIER_MAX_HOST_BYTES": "-5"},
                            "error: FRONTIER_MAX_HOST_BYTES='-5'; expected a whole number of "
                            "bytes > 0"),
    "calibration cache a file": (
        lambda d: ["calibrate", "--target", "cpu", "--quick"],
        {"FRONTIER_CACHE_DIR": "{d}/cache"}, "{d}/cache: is not a directory (a file is in its "
        "place); expected a directory for the calibration cache"),
    "plot of a binary file": (lambda d: ["plot", _file(d, "t.csv", b"\x00\xff\xfe" * 50)], {},
                              "{d}/t.csv: not text (byte 1 is not UTF-8); expected the output "
                              "of frontier run ... --trace"),
    "newline in a missing file": (lambda d: ["info", f"{d}/a\nb.txt"], {},
                                  "no such file; expected an existing graph file"),
    "newline in a file": (lambda d: ["info", _file(d, "a\nb.txt", b"0 x\n")], {},
                          "'{d}/a\\nb.txt':1:"),
    "newline in an output directory": (lambda d: ["convert", "path:3", f"{d}/no\ndir/g.npz"], {},
                                       "the directory '{d}/no\\ndir' does not exist"),
}


@pytest.mark.parametrize("case", sorted(UNCLEAR_BEFORE))
def test_what_was_unclear_is_one_line_naming_what_where_and_what_was_expected(
        capsys, monkeypatch, tmp_path, case):
    argv, environment, words = UNCLEAR_BEFORE[case]
    (tmp_path / "cache").write_text("a file where the cache directory should be")
    for name, value in environment.items():
        monkeypatch.setenv(name, value.format(d=tmp_path))
    code, _, err = run_cli(capsys, *argv(tmp_path))
    assert code == 2, err
    assert err.startswith("frontier: error:") and words.format(d=tmp_path) in err
    assert len(err.splitlines()) == 1 and len(err) < 400 and "generator spec 'path:3'" not in err


def test_an_unknown_balancer_lists_every_valid_name(capsys):
    _, _, err = run_cli(capsys, "run", "bfs", "rmat:6", "--balancer", "nosuch")
    assert all(name in err for name in available_balancers())


def raising_entry(error: BaseException) -> Entry:
    def run(graph, source, **options):
        raise error

    return replace(CATALOG["bfs"], name="broken", description="raises", run=run, options=())


@pytest.mark.parametrize("error, code, words", [
    (MemoryError(), 2, "out of memory"),
    (frontier.GraphError("too big"), 2, "too big"),
    (RuntimeError("a bug\nsecond line"), 1, "internal error: RuntimeError: a bug (run again "
                                            "with --debug"),
])
def test_errors_from_deep_inside_are_one_line_without_a_traceback(capsys, monkeypatch, error,
                                                                  code, words):
    monkeypatch.setitem(CATALOG, "broken", raising_entry(error))
    got, _, err = run_cli(capsys, "run", "broken", "path:3", "--target", "cpu")
    assert got == code and words in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_debug_shows_the_traceback(capsys, monkeypatch):
    monkeypatch.setitem(CATALOG, "broken", raising_entry(RuntimeError("a bug")))
    code, _, err = run_cli(capsys, "run", "broken", "path:3", "--target", "cpu", "--debug")
    assert code == 1 and "Traceback" in err and err.rstrip().endswith("and report it)")


def test_an_interrupt_exits_130_without_a_traceback(capsys, monkeypatch):
    monkeypatch.setitem(CATALOG, "broken", raising_entry(KeyboardInterrupt()))
    code, _, err = run_cli(capsys, "run", "broken", "path:3", "--target", "cpu")
    assert code == 130 and err == "frontier: interrupted\n"


def test_an_interrupt_a_library_turned_into_its_own_error_still_exits_130(capsys, monkeypatch):
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("Error calling __set_name__") from None
    except RuntimeError as converted:
        error = converted
    monkeypatch.setitem(CATALOG, "broken", raising_entry(error))
    code, _, err = run_cli(capsys, "run", "broken", "path:3", "--target", "cpu")
    assert code == 130 and err == "frontier: interrupted\n"


def test_ctrl_c_on_a_running_command_exits_130_without_a_traceback():
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    proc = subprocess.Popen([sys.executable, "-m", "frontier_cli", "run", "bfs", "grid:200x200",
                             "--target", "cpu", "--runs", "1000000"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(6)  # imports, graph, compilation: well into the timed runs
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip() == "frontier: interrupted"


# the entry point `frontier` runs, behind a line telling the test that Python has started
GUARDED = ("import os, sys\nfrom frontier_cli.guard import main\nos.write(1, b'started\\n')\n"
           "sys.exit(main())\n")


#: The installed script (as pip writes it), under a trace function that sends SIGINT to the
#: process at the line event given (counted from the guard's handler on, in every module:
#: the guard's own lines, the imports it makes, main's first lines), then says "fired"; one
#: that reaches the command's module first stops tracing and says "late".
AT_A_LINE = """
import _signal, os, sys
DEFAULT, at, seen = _signal.getsignal(_signal.SIGINT), int(sys.argv.pop(1)), [0]
def lines(frame, event, arg):
    if event == "line" and _signal.getsignal(_signal.SIGINT) is not DEFAULT:
        if frame.f_code.co_filename.endswith("commands.py"):
            sys.settrace(None)
            os.write(1, b"late")
            os._exit(0)
        seen[0] += 1
        if seen[0] == at:
            sys.settrace(None)
            os.write(1, b"fired")
            os.kill(os.getpid(), _signal.SIGINT)
    return lines
sys.settrace(lines)
import re
import sys
from frontier_cli.guard import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
"""


#: Line events to interrupt at: every one of the first 40 (the guard's own lines), then a
#: spread over the imports the guard makes and the start of main.
LINE_EVENTS = list(range(1, 41)) + list(range(60, 1600, 60))


def test_ctrl_c_at_every_line_from_the_guards_first_on_exits_130_with_one_line():
    """The window issue 47 found: Ctrl-C in the first milliseconds of a command, while the
    script imports the guard, printed a traceback or ended the process by the signal."""
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    children = [(at, subprocess.Popen([sys.executable, "-c", AT_A_LINE, str(at), "balancers"],
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
                for at in LINE_EVENTS]
    fired = 0
    for at, proc in children:
        out, err = proc.communicate(timeout=120)
        if out == b"late":
            continue  # this environment's imports end before that many lines
        fired += 1
        assert out == b"fired" and (proc.returncode, err.decode()) == (
            130, "frontier: interrupted\n"), f"at line event {at}: {err.decode()[-300:]}"
    assert fired >= 40


@pytest.mark.parametrize("seconds", [0.0, 0.002, 0.005, 0.01, 0.02, 0.1, 0.2, 0.3, 0.45, 0.6,
                                     0.8, 1.2, 2.0])
def test_ctrl_c_at_any_moment_from_start_up_on_exits_130_with_one_line(seconds):
    """From the library's first import to the timed runs: the imports, reading the arguments,
    building the graph, compiling the kernels, running them."""
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    proc = subprocess.Popen([sys.executable, "-c", GUARDED, "run", "bfs", "grid:30x30",
                             "--target", "cpu", "--runs", "1000000"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"started\n"
    time.sleep(seconds)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err.decode()) == (130, "frontier: interrupted\n")


JSON_COMMANDS = [
    ["run", "bfs", "rmat:6", "--target", "cpu", "--runs", "1", "--validate"],
    ["info", "rmat:6", "--target", "cpu"],
    ["explain", "bfs", "rmat:6", "--target", "cpu"],
    ["balancers"],
    ["cache", "info"],
    ["completion", "bash"],
    *[["run", name, entry.example or "grid:4x5", "--target", "cpu", "--runs", "1"]
      for name, entry in CATALOG.items()],
]


@pytest.mark.parametrize("argv", JSON_COMMANDS, ids=lambda a: "-".join(a[:2]))
@pytest.mark.parametrize("where", ["after", "before"])
def test_every_command_prints_one_json_document_with_json(capsys, argv, where):
    full = [*argv, "--json"] if where == "after" else ["--json", *argv]
    code, out, err = run_cli(capsys, *full)
    assert code == 0, err
    document = json.loads(out)
    assert document["command"] == argv[0]


def test_run_json_carries_the_measurement_and_the_validation(capsys):
    _, out, _ = run_cli(capsys, "run", "bfs", "grid:4x5", "--target", "cpu", "--runs", "2",
                        "--validate", "--json")
    doc = json.loads(out)
    assert doc["num_vertices"] == 20 and doc["source"] == 0 and len(doc["seconds"]) == 2
    assert doc["validated"] is True and doc["report"]["reached"] == "20 vertices"
    assert doc["balancer"] == "auto" and doc["iterations"] == 8


def test_info_reports_sizes_degrees_components_and_a_diameter_bound(capsys):
    code, out, _ = run_cli(capsys, "info", "grid:4x5", "--target", "cpu")
    assert code == 0
    for line in ("|V|         20", "|E|         62 arcs", "out-degree   min 2, max 4",
                 "components  1 weak; largest 20 vertices", "diameter    >= 7"):
        assert line in out
    _, out, _ = run_cli(capsys, "info", "grid:4x5", "--target", "cpu", "--json")
    doc = json.loads(out)
    assert doc["diameter_lower_bound"] == 7 and doc["components"]["weak"] == 1
    assert sum(b["count"] for b in doc["degrees"]["out"]["histogram"]) == 20


def test_info_on_a_directed_graph_reports_in_degrees_and_strong_components(capsys, tmp_path):
    edges = tmp_path / "g.txt"
    edges.write_text("0 1\n1 2\n2 0\n3 4\n")
    code, out, err = run_cli(capsys, "info", str(edges), "--target", "cpu", "--json")
    assert code == 0, err
    doc = json.loads(out)
    if doc["directed"]:
        assert "in" in doc["degrees"] and doc["components"]["strong"] == 3
    assert doc["components"]["weak"] == 2


def complete(line: str) -> list[str]:
    """What the bash completion script offers for the last word of ``line``."""
    words = line.split(" ")
    program = (script(build_parser(), "bash")
               + f"COMP_WORDS=({' '.join(repr(w) for w in words)})\n"
               + f"COMP_CWORD={len(words) - 1}\n_frontier_complete\n"
               + 'printf "%s\\n" "${COMPREPLY[@]}"\n')
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=True)
    return done.stdout.split()


def test_bash_completion_offers_commands_algorithms_options_and_balancers():
    assert {"run", "info", "explain", "completion"} <= set(complete("frontier "))
    assert set(complete("frontier run ")) >= set(CATALOG)
    assert "--balancer" in complete("frontier run bfs rmat:6 --b")
    assert complete("frontier run bfs rmat:6 --balancer ") == available_balancers(include_auto=True)
    assert complete("frontier run bfs rmat:6 --target c") == ["cuda", "cpu"]


def test_zsh_completion_runs_the_bash_script_through_bashcompinit():
    assert script(build_parser(), "zsh").startswith("autoload -U +X bashcompinit")


def test_progress_is_silent_for_short_work_and_reports_long_work(monkeypatch):
    monkeypatch.setattr(progress, "_rich_bar", lambda *args: None)
    stream = io.StringIO()
    with progress.Progress("quick", enabled=True, stream=stream, delay=5):
        pass
    assert stream.getvalue() == ""
    with progress.Progress("sweeps", 3, enabled=True, stream=stream, delay=0.05) as shown:
        shown.advance()
        time.sleep(0.3)
    assert stream.getvalue().startswith("frontier: sweeps 1/3 (0 s)")
    assert stream.getvalue().rstrip().endswith("done")
