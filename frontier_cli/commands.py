"""The ``frontier`` command: run an algorithm on a graph file or a generated graph, describe a
graph, or run a demo.

``frontier run ALGO GRAPH [--source S] [--balancer B] [--target T] [--validate] [--trace [FILE]]
[options]``
``frontier info GRAPH [--sweeps K] [--target T]``
``frontier convert IN OUT``
``frontier explain ALGO GRAPH [--source S] [--balancer B] [--target T] [options]``
``frontier calibrate [--target T] [--quick] [--runs R]``, ``frontier plot TRACE [--out PNG]``
``frontier warmup [--target T]``, ``frontier cache {info,clear}``, ``frontier demo``,
``frontier algorithms``, ``frontier balancers``, ``frontier completion {bash,zsh}``,
``frontier --version``,
``frontier check-cuda ALGO|module:function [GRAPH] [--source S] [--arch sm_80]``

``--balancer`` defaults to ``auto`` (the adaptive runtime, docs/adaptive.md). ``--trace`` prints
(or writes to FILE) one CSV row per step of the last timed run: frontier size, edges, balancer,
representation, direction, mode, time (:mod:`frontier_cli.trace`); ``plot`` draws such a
trace.
``calibrate`` measures the runtime's thresholds on the device and keeps them in the per-user
cache (:mod:`operators.calibrate`). ``warmup`` compiles every algorithm's default kernels into
the per-user disk cache once, so that no later process waits for them
(:mod:`frontier_cli.warmup`). ``cache info`` prints the cache directory, whether it is used
(or refused, and why), its entries, their size and the size limit; ``cache clear`` deletes its
entries (:mod:`frontier.runtime.cache_entries`). ``explain`` runs the algorithm once on GRAPH, with
the options ``run`` takes, under a recording (:mod:`frontier.runtime.recording`), and prints each
kernel it launched (name, balancer, mode, launch shape, source); with ``--json``,
``{"kernels": [{"name": ..., "source": ...}, ...], ...}``. ``check-cuda`` compiles every functor
that ALGO (each variant of its options) or a user's ``module:function`` runs for a CUDA
architecture, without a GPU, and names each one that does not build, with its file and line
(:mod:`frontier_cli.check_cuda`; exit 1 when one does not).

ALGO is any algorithm of :data:`algorithms.CATALOG`, whose entry gives its description, its
options and its summary lines: adding an entry adds the commands (an entry with
``source=False`` or ``balanced=False`` gets no ``--source`` or ``--balancer``); or an installed
algorithm (entry-point group ``frontier.algorithms``), or ``module:function``, a user's
function read as an entry from its signature (:mod:`frontier_cli.algorithm_spec` decides which,
before the command line is parsed; :mod:`algorithms.user`). ``frontier algorithms`` lists them.
GRAPH is a file (:func:`frontier.io.load`) or a generator spec
(:func:`frontier.generators.from_spec`).

Every command takes ``--json`` (one JSON document on stdout instead of the text), ``--debug``
(a traceback with errors) and ``--progress`` (show progress even when stderr is not a terminal;
:mod:`frontier_cli.progress`). ``frontier completion bash`` prints a completion script
(:mod:`frontier_cli.completion`).

The command line is the top layer (pyproject.toml's import-linter contracts): it imports
``algorithms``, ``operators`` and ``frontier``, and nothing imports it.

Exit status: 0 on success; 2 for bad input — an ALGO that names nothing runnable (an unknown
name, a module that is not found or fails to import, a missing or non-callable function, one the
command cannot call), ``--validate`` for a function that declares no reference, a missing file,
a malformed graph, a bad generator spec, a graph too large for memory, an out-of-range
source, an unknown balancer or any argument an algorithm refuses, an output that cannot be
written or that is one of the inputs (checked before any work), a cache directory that
``warmup`` or ``cache clear`` may not use (another user could write it, it is a file, it cannot
be made) or a ``warmup`` that could keep nothing (the simulator compiles no code), a bad
``$FRONTIER_CACHE_MAX_BYTES`` — reported as one line on stderr (``--debug`` adds the
traceback); 1 for a result that ``--validate`` finds different from its reference (one line),
an error a user's function raised (one line naming it and where it was raised) or an internal
error (one line asking for ``--debug``); 130 when interrupted (Ctrl-C), without a traceback:
the installed ``frontier`` command runs :func:`main` behind :mod:`frontier_cli.guard`, which
also covers Ctrl-C while the library is being imported.

Every file a command writes (``convert``'s output, ``--trace FILE``, ``plot``'s image) is
written through :mod:`frontier.safefile`: whole or not at all.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from algorithms import CATALOG, bfs
from algorithms.entry import Entry, Option
from frontier import __version__, generators, messages
from frontier.data import demo_graph_path
from frontier.graph import Graph
from frontier.io import SAVE_FORMATS, load, save
from frontier.runtime import cache_entries, cuda_support, kernel_cache
from frontier.runtime.cache_dir import cache_dir
from frontier.runtime.cuda_support import cuda_problem
from frontier.runtime.cudacheck import DEFAULT_ARCH, arch_name, compiler_problem, parse_arch
from frontier.runtime.simulator import enabled as simulator_enabled
from frontier.runtime.target import Target
from frontier.safefile import check_output, writing
from frontier.target import TARGET_NAMES, resolve_target
from frontier_cli import algorithm_spec, check_cuda, summary, warmup
from frontier_cli.completion import SHELLS, script
from frontier_cli.progress import Progress
from frontier_cli.trace import plot_trace, read_trace, trace_rows, write_trace
from operators import available_balancers, get_balancer, recording
from operators.calibrate import FULL, QUICK, calibrate_and_save, describe

EXIT_BAD_INPUT = 2
EXIT_WRONG_RESULT = 1
EXIT_INTERRUPTED = 130
#: What ``plot`` draws to, by the output's ending.
PLOT_ENDINGS = (".png", ".svg", ".pdf")
#: The balancer an algorithm runs with when ``--balancer`` is not given (shown in summaries):
#: every algorithm that advances defaults to the adaptive runtime (docs/adaptive.md).
DEFAULT_BALANCER = "auto"


class CommandError(Exception):
    """Bad input to the command line: reported as one line, exit status 2."""


class UserCodeError(Exception):
    """An error a user's algorithm raised (not the library's bad-input errors): reported as
    one line naming the algorithm, the error and where it was raised, exit status 1."""


def load_graph(graph: str, progress: bool = False) -> Graph:
    """The graph a generator spec (``rmat:18``, ``grid:1000x1000``) names, or a graph file."""
    with Progress(f"{'generating' if generators.is_spec(graph) else 'loading'} {graph}",
                  enabled=progress):
        if generators.is_spec(graph):
            return generators.from_spec(graph)
        return load(graph)


def _median_run(fn: Callable[[], object], runs: int, progress: bool = False
                ) -> tuple[object, list[float]]:
    """The last result of ``runs`` timed calls after one warm-up, and their times."""
    times, result = [], None
    with Progress("timed runs (after one warm-up)", runs + 1, enabled=progress) as shown:
        fn()  # warm-up: compiles the kernels
        shown.advance()
        for _ in range(runs):
            start = time.perf_counter()
            result = fn()
            times.append(time.perf_counter() - start)
            shown.advance()
    return result, times


def _options(entry: Entry, args: argparse.Namespace) -> dict[str, Any]:
    """The entry's options as given on the command line."""
    return {o.name: getattr(args, o.name) for o in entry.options}


def _call(entry: Entry, args: argparse.Namespace, graph: Graph, source: int | None,
          balancer: dict[str, str], options: dict[str, Any]) -> Callable[[], Any]:
    """One run of the entry as the command asks for it: the source where it takes one, the
    balancer where ``--balancer`` was given, the target where it takes one."""
    inputs = (graph, source) if entry.source else (graph,)
    target = {"target": args.target} if entry.targeted else {}
    if _catalogued(entry):
        return lambda: entry.run(*inputs, **target, **balancer, **options)

    def call() -> Any:
        try:
            return entry.run(*inputs, **target, **balancer, **options)
        except (ValueError, TypeError, MemoryError, OSError):  # bad input, reported as such
            raise
        except Exception as err:  # noqa: BLE001 - the user's code: no internal error of ours
            first = str(err).splitlines()[0] if str(err) else ""
            raise UserCodeError(f"{entry.name} raised {type(err).__name__}"
                                f"{algorithm_spec.where_raised(err)}"
                                f"{': ' + first if first else ''}") from err

    return call


def _source(entry: Entry, args: argparse.Namespace, graph: Graph) -> int | None:
    """The source vertex ``--source`` gives (None for an entry without one), in range."""
    if not entry.source:
        return None
    if not 0 <= args.source < graph.num_vertices:
        raise CommandError(f"source {args.source} is out of range: the graph has "
                           f"{graph.num_vertices} vertices (ids 0..{graph.num_vertices - 1})")
    return args.source


def _balancer(entry: Entry, args: argparse.Namespace) -> dict[str, str]:
    """``{"balancer": name}`` when ``--balancer`` was given (checked against the registry, the
    message listing the valid names), else nothing: the algorithm's default applies."""
    given = getattr(args, "balancer", None)
    if given is None or not entry.balanced:
        return {}
    try:
        get_balancer(given)
    except ValueError:
        raise CommandError(f"unknown balancer {given!r}; expected one of "
                           f"{', '.join(available_balancers(include_auto=True))} (frontier "
                           "balancers lists the static ones)") from None
    return {"balancer": given}


def _emit(args: argparse.Namespace, document: dict[str, Any], lines: list[str]) -> None:
    """Print ``document`` as one JSON document (``--json``) or ``lines`` as text."""
    if args.json:
        print(json.dumps(document, indent=2, default=_jsonable))
    else:
        print("\n".join(lines))


def _jsonable(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def _inputs(graph: str) -> list[str]:
    """The files a command reads for GRAPH: none for a generator spec."""
    return [] if generators.is_spec(graph) else [graph]


def run_algorithm(args: argparse.Namespace) -> int:
    entry: Entry = args.entry
    if args.validate and entry.check is None:
        raise CommandError(f"--validate: {entry.name} declares no reference to compare its "
                           "result with (declare one with @algorithms.declare(reference=...) "
                           "or check=...; docs/tutorial.md)")
    if args.trace is not None and not entry.traced:
        traced = ", ".join(name for name, known in CATALOG.items() if known.traced)
        raise CommandError(f"--trace: {entry.name} keeps no per-level traversal statistics to "
                           f"trace; expected one of {traced}")
    balancer = _balancer(entry, args)
    target = _target_of(entry, args)
    if args.trace not in (None, "-"):
        check_output(args.trace, _inputs(args.graph))
    graph = load_graph(args.graph, args.progress)
    source = _source(entry, args, graph)
    options = _options(entry, args)
    result, times = _median_run(_call(entry, args, graph, source, balancer, options),
                                args.runs, args.progress)
    target = _ran_on(result, target)
    seconds = statistics.median(times)
    edges = getattr(result, "edges_traversed", None)
    mteps = edges / seconds / 1e6 if edges is not None and seconds > 0 else None
    iterations = getattr(result, "iterations", None)
    shown_balancer = _shown_balancer(entry, balancer) or "-"
    report = entry.report(result)
    validated = None
    if args.validate:
        try:
            entry.check(graph, source, result)
            validated = True
        except AssertionError as err:
            first = str(err).splitlines()[0] if str(err) else "no detail"
            print(f"frontier: error: {entry.name} disagrees with {entry.reference_name}: "
                  f"{first}", file=sys.stderr)
            return EXIT_WRONG_RESULT
    shown = "".join(f", {o.shown.format(options[o.name])}" for o in entry.options)
    lines = [f"graph       {args.graph}", f"|V|         {graph.num_vertices:,}",
             f"|E|         {graph.num_edges:,} arcs",
             f"target      {_shown_target(target, getattr(args, 'target', None))}",
             f"balancer    {shown_balancer}{shown}"]
    if entry.source:
        lines.append(f"source      {source}")
    lines.append(f"time        {seconds * 1e3:.3f} ms (median of {args.runs} after warm-up)")
    if mteps is not None:
        lines.append(f"MTEPS       {mteps:.1f} ({edges:,} edges traversed)")
    lines += [f"{label:<12}{value}" for label, value in report]
    if iterations is not None:
        lines.append(f"iterations  {iterations}")
    if validated:
        lines.append(f"validated   {entry.checks}")
    trace = _trace(result, args.trace, lines)
    _emit(args, {"command": "run", "trace": trace, "algorithm": entry.name, "graph": args.graph,
                 "num_vertices": graph.num_vertices, "num_edges": graph.num_edges,
                 "directed": graph.directed, "target": target.name if target else None,
                 "simulated": target.simulated if target else None,
                 "auto": _auto(getattr(args, "target", None)) if target else None,
                 "balancer": shown_balancer if entry.balanced else None, "options": options,
                 "source": source, "runs": args.runs, "seconds": times,
                 "median_seconds": seconds, "edges_traversed": edges, "mteps": mteps,
                 "iterations": iterations, "report": dict(report),
                 "validated": validated, "checks": entry.checks if validated else None},
          lines)
    return 0


def run_info(args: argparse.Namespace) -> int:
    resolve_target(args.target)  # an unusable target fails before the graph is read
    graph = load_graph(args.graph, args.progress)
    target = resolve_target(args.target, graph)
    out_degrees = graph.out_degrees()
    degrees = {"out": out_degrees}
    if graph.directed:
        degrees["in"] = graph.in_degrees()
    stats = {k: {**summary.degree_statistics(d), "histogram": summary.degree_histogram(d)}
             for k, d in degrees.items()}
    parts = summary.components(graph)
    diameter, sweeps = _diameter_lower_bound(graph, target, args.sweeps, args.progress)
    lines = [f"graph       {args.graph}", f"|V|         {graph.num_vertices:,}",
             f"|E|         {graph.num_edges:,} arcs "
             f"({'directed' if graph.directed else 'undirected: each edge stored both ways'})",
             f"weighted    {'yes, ' + str(graph.weights.dtype) if graph.weighted else 'no'}",
             f"self-loops  {summary.self_loops(graph):,}"]
    for kind, st in stats.items():
        lines.append(f"{kind}-degree   min {st['min']}, max {st['max']}, mean {st['mean']:.2f}, "
                     f"median {st['median']:g}, std {st['std']:.2f}")
        lines += summary.text_histogram(st["histogram"])
    strong = f", {parts['strong']:,} strong" if "strong" in parts else ""
    lines.append(f"components  {parts['weak']:,} weak{strong}; largest "
                 f"{parts['largest']:,} vertices")
    lines.append(f"diameter    >= {diameter} (lower bound from {sweeps} BFS sweeps on "
                 f"{target.name})")
    _emit(args, {"command": "info", "graph": args.graph, "num_vertices": graph.num_vertices,
                 "num_edges": graph.num_edges, "directed": graph.directed,
                 "weighted": graph.weighted, "self_loops": summary.self_loops(graph),
                 "degrees": stats, "components": parts, "diameter_lower_bound": diameter,
                 "diameter_sweeps": sweeps, "target": target.name}, lines)
    return 0


def _diameter_lower_bound(graph: Graph, target: Any, sweeps: int, progress: bool
                          ) -> tuple[int, int]:
    """The largest BFS distance found by ``sweeps`` BFS runs, each from the vertex farthest from
    the previous one's source (the double sweep; Magnien, Latapy & Habib), starting at the
    vertex of largest out-degree: a lower bound on the diameter, often exact on real graphs."""
    if graph.num_vertices == 0:
        return 0, 0
    source, best, done = int(np.argmax(graph.out_degrees())), 0, 0
    with Progress("diameter sweeps", sweeps, enabled=progress) as shown:
        for _ in range(sweeps):
            distances = bfs(graph, source, target=target).distances
            done += 1
            shown.advance()
            far = int(distances.max())
            if far <= best and done > 1:
                break
            best = max(best, far)
            source = int(np.argmax(distances))
    return best, done


def run_demo(args: argparse.Namespace) -> int:
    # imported here, not on top: it loads scipy.sparse.csgraph, 18 ms of every command's start
    from frontier.testing import check_bfs

    target = resolve_target(args.target)
    lines = [f"Frontier demo on target {target.name}"
             f"{' (simulator)' if target.simulated else ''}"]
    unused = _auto(args.target) and target.name == "cpu" and cuda_support.unused_gpus()
    if unused:
        lines.append(f"  the GPU is not used: {cuda_problem()}")
    path = demo_graph_path()
    cases = [("grid2d(64, 64), road-like", generators.grid2d(64, 64)),
             (f"{path.name} (OpenStreetMap road network, shipped)", load(path))]
    found = []
    for name, graph in cases:
        source = int(np.argmax(graph.out_degrees()))
        before, start = kernel_cache.stats(), time.perf_counter()
        result = bfs(graph, source, target=target)
        seconds, after = time.perf_counter() - start, kernel_cache.stats()
        check_bfs(graph, source, result.distances, result.predecessors)
        reached = int(np.count_nonzero(result.distances >= 0))
        compiled = after.compiled + after.uncached - before.compiled - before.uncached
        loaded = after.loaded - before.loaded
        found.append({"graph": name, "num_vertices": graph.num_vertices,
                      "num_edges": graph.num_edges, "source": source, "reached": reached,
                      "levels": result.iterations, "seconds": seconds, "validated": True,
                      "kernels_compiled": compiled, "kernels_loaded": loaded})
        lines.append(f"  BFS on {name}: {graph.num_vertices:,} vertices, {graph.num_edges:,} "
                     f"arcs, source {source}: reached {reached:,} in {result.iterations} "
                     f"levels, {seconds * 1e3:.1f} ms ({_kernels_got(compiled, loaded, target)}"
                     "); equal to scipy.sparse.csgraph")
    _emit(args, {"command": "demo", "target": target.name, "simulated": target.simulated,
                 "unused_gpus": unused or 0, "cases": found}, lines)
    return 0


def _kernels_got(compiled: int, loaded: int, target: Target) -> str:
    """How a timed first run got its kernels, for the demo's lines: compiled (its time
    included), loaded from the disk cache, or already in the process."""
    if target.simulated:
        return "simulator: kernels run as Python, nothing compiled"
    got = [f"{compiled} kernel{'s' * (compiled != 1)} compiled"] if compiled else []
    if loaded:
        got.append(f"{loaded} kernel{'s' * (loaded != 1)} loaded from the disk cache")
    if not got:
        return "kernels already in this process"
    return "first run: " + " and ".join(got) + (", compile time included" if compiled else "")


def run_convert(args: argparse.Namespace) -> int:
    ending = "." + args.output.lower().rpartition(".")[2] if "." in args.output else ""
    if ending not in SAVE_FORMATS:
        raise CommandError(f"cannot write {args.output!r}: expected a name ending in "
                           f"{', '.join(SAVE_FORMATS)}")
    check_output(args.output, _inputs(args.graph))
    graph = load_graph(args.graph, args.progress)
    with Progress(f"writing {args.output}", enabled=args.progress):
        save(graph, args.output)
    _emit(args, {"command": "convert", "input": args.graph, "output": args.output,
                 "vertices": graph.num_vertices, "arcs": graph.num_edges},
          [f"{args.output}: {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs"])
    return 0


def _trace(result: Any, where: str | None, lines: list[str]) -> list[dict[str, Any]] | None:
    """The per-level rows of ``--trace`` (None without it) of a traced entry's result:
    appended to ``lines`` as CSV after a ``# trace`` line, or written to the file ``where``."""
    if where is None:
        return None
    rows = trace_rows(result.stats)
    if where == "-":
        text = io.StringIO()
        write_trace(rows, text)
        lines += text.getvalue().splitlines()
    else:
        with writing(where) as partial, open(partial, "w") as stream:
            write_trace(rows, stream)
        lines.append(f"trace       {len(rows)} steps written to {where}")
    return rows


def run_plot(args: argparse.Namespace) -> int:
    out = args.out or str(args.trace_file) + ".png"
    if not out.lower().endswith(PLOT_ENDINGS):
        raise CommandError(f"cannot draw to {out!r}: expected a name ending in "
                           f"{', '.join(PLOT_ENDINGS)}")
    check_output(out, [args.trace_file])
    rows = read_trace(args.trace_file)
    with writing(out) as partial:
        plot_trace(rows, partial, title=args.title or "")
    _emit(args, {"command": "plot", "steps": len(rows), "out": out},
          [f"plot        {len(rows)} steps drawn to {out}"])
    return 0


def run_calibrate(args: argparse.Namespace) -> int:
    target = resolve_target(args.target)
    result, path = calibrate_and_save(target, QUICK if args.quick else FULL, args.runs)
    _emit(args, {"command": "calibrate", "target": target.name, "device": target.device_name,
                 "thresholds": vars(result.thresholds), "measured": result.measured(),
                 "written": str(path)},
          [f"target      {target.name} ({target.device_name})", *describe(result),
           f"written     {path}"])
    return 0


def run_explain(args: argparse.Namespace) -> int:
    """Run the algorithm once on the graph, as ``run`` would, under a recording, and print the
    kernels it launched."""
    entry: Entry = args.entry
    balancer = _balancer(entry, args)
    target = _target_of(entry, args)
    graph = load_graph(args.graph, args.progress)
    source = _source(entry, args, graph)
    options = _options(entry, args)
    with recording() as log:
        target = _ran_on(_call(entry, args, graph, source, balancer, options)(), target)
    shown_balancer = _shown_balancer(entry, balancer)
    kernels = log.kernels()
    lines = [f"# {entry.name} on {args.graph}"
             + (f" from {source}" if entry.source else "")
             + f", target {_shown_target(target, getattr(args, 'target', None))}"
             + (f", balancer {shown_balancer}" if entry.balanced else "")
             + "".join(f", {o.shown.format(options[o.name])}" for o in entry.options)
             + f": {len(log)} launches of {len(kernels)} kernels", "", log.text()]
    _emit(args, {"command": "explain", "algorithm": entry.name, "graph": args.graph,
                 "target": target.name if target else None,
                 "simulated": target.simulated if target else None,
                 "balancer": shown_balancer, "options": options, "source": source,
                 "launches": len(log), **log.as_json()}, lines)
    return 0


def run_check_cuda(args: argparse.Namespace) -> int:
    """Compile every functor the calls of ALGO or ``module:function`` run for CUDA (see
    :mod:`frontier_cli.check_cuda`); in the simulator, run again without it."""
    if simulator_enabled():
        return check_cuda.without_simulator(_check_cuda_argv(args))
    arch = parse_arch(args.arch)
    found = check_cuda.calls(args.algorithm, args.graph, args.source)
    problem = compiler_problem(arch)
    if problem is not None:
        raise CommandError(problem)
    checked = check_cuda.check_calls(found, arch)
    report = checked.report
    listed = checked.ran if len(checked.ran) <= 3 else ()
    lines = [f"# check-cuda {args.algorithm} for CUDA {arch_name(report.arch)}: "
             f"{len(checked.ran)} call{'s' if len(checked.ran) != 1 else ''} run on the cpu "
             f"target{'' if listed else ' (--json lists them)'}",
             *(f"#   {label}" for label in listed),
             *(f"#   skipped {why}" for why in checked.skipped), report.text(most_lines=16)]
    _emit(args, {"command": "check-cuda", "checked": args.algorithm,
                 "arch": arch_name(report.arch), "ok": report.ok, "calls": list(checked.ran),
                 "skipped": list(checked.skipped), "launches": report.launches,
                 "functors": [vars(f) for f in report.checked],
                 "failures": [vars(f) for f in report.failures]}, lines)
    if report.ok:
        return 0
    names = ", ".join(f"{f.name} ({f.line or f.location})" for f in report.failures)
    print(f"frontier: error: functors of {args.algorithm} that do not compile for CUDA "
          f"{arch_name(report.arch)}: {names}", file=sys.stderr)
    return EXIT_WRONG_RESULT


def _check_cuda_argv(args: argparse.Namespace) -> list[str]:
    """The command line of a ``check-cuda`` run, to run it again."""
    argv = ["check-cuda", args.algorithm, *([args.graph] if args.graph else []),
            "--arch", args.arch]
    if args.source is not None:
        argv += ["--source", str(args.source)]
    return argv + [f"--{flag}" for flag in ("json", "debug") if getattr(args, flag)]


def run_warmup(args: argparse.Namespace) -> int:
    """Compile every algorithm's default kernels into the disk cache (:mod:`frontier_cli.warmup`),
    with a progress bar."""
    target = resolve_target(args.target)
    problem = warmup.unkept(target)
    if problem is not None:
        raise CommandError(f"warmup would keep nothing: {problem}")
    before = kernel_cache.stats()
    with Progress(f"warming up kernels on {target.name}", total=len(warmup.cases()),
                  enabled=args.progress) as progress:
        found = warmup.warm_up(target, progress.advance)
    where = kernel_cache.kernels_dir()
    if not warmup.stored(before, kernel_cache.stats()):
        raise CommandError(f"warmup kept nothing: no kernel could be saved in {where} (see "
                           "the warnings above)")
    lines = [f"target      {target.name}{' (simulator)' if target.simulated else ''}"]
    lines += [f"{w.algorithm:<12}{w.compiled:>4} compiled {w.loaded:>4} loaded  {w.seconds:6.2f} s"
              + "".join(f"\n{'':<12}skipped {s}" for s in w.skipped) for w in found]
    lines.append(f"{sum(w.compiled for w in found)} kernels compiled, "
                 f"{sum(w.loaded for w in found)} loaded from the cache ({where})")
    _emit(args, {"command": "warmup", "target": target.name, "simulated": target.simulated,
                 "cache": str(where), "algorithms": [vars(w) for w in found]}, lines)
    return 0


def run_cache_info(args: argparse.Namespace) -> int:
    """Describe the per-user disk cache (:mod:`frontier.runtime.cache_entries`)."""
    info = cache_entries.describe(cache_dir())
    if not info.usable:
        state = f"refused: {info.problem}"
    elif info.resolved is not None and not info.resolved.exists():
        state = "usable (not created yet)"
    else:
        state = "used"
    shown = "" if info.resolved in (None, info.directory) else f" (which is {info.resolved})"
    _emit(args, {"command": "cache", "action": "info", "directory": str(info.directory),
                 "resolved": str(info.resolved) if info.resolved else None,
                 "usable": info.usable, "problem": info.problem or None,
                 "entries": info.entries, "bytes": info.size, "limit_bytes": info.limit},
          [f"directory   {info.directory}{shown}", f"state       {state}",
           f"entries     {info.entries:,}", f"size        {_size(info.size)}",
           f"limit       {_size(info.limit)} (${cache_entries.LIMIT_VARIABLE})"])
    return 0


def run_cache_clear(args: argparse.Namespace) -> int:
    """Delete every entry of the per-user disk cache; a refused directory is left alone."""
    where = cache_dir()
    removed, size = cache_entries.clear(where)
    _emit(args, {"command": "cache", "action": "clear", "directory": str(where),
                 "entries_removed": removed, "bytes_removed": size},
          [f"removed {removed:,} entries ({_size(size)}) from {where}"])
    return 0


def _size(size: int) -> str:
    unit, scale = next((u, s) for u, s in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))
                       if size >= s or u == "KiB")
    return f"{size:,} bytes ({size / scale:.1f} {unit})"


def run_algorithms(args: argparse.Namespace) -> int:
    """List the catalog's algorithms and the installed ones (not loaded: their entry points)."""
    installed = algorithm_spec.installed()
    rows = [{"name": name, "origin": "catalog", "description": entry.description}
            for name, entry in CATALOG.items()]
    rows += [{"name": name, "origin": "installed", "entry_points": [p.value for p in points],
              "description": ("hidden by the catalog's own (run it as "
                              f"{points[0].value})" if name in CATALOG else
                              "; ".join(p.value for p in points)
                              + (" (clash: run one as module:function)" if len(points) > 1
                                 else ""))}
             for name, points in installed.items()]
    lines = [f"{r['name']:<12}{r['description']}" for r in rows if r["origin"] == "catalog"]
    if installed:
        lines += ["", f"installed ({algorithm_spec.GROUP} entry points):"]
        lines += [f"{r['name']:<12}{r['description']}" for r in rows
                  if r["origin"] == "installed"]
    lines += ["", "and module:function, a function of your own (frontier run mymodule:my_bfs "
              "GRAPH; docs/tutorial.md)"]
    _emit(args, {"command": "algorithms", "algorithms": rows}, lines)
    return 0


def run_balancers(args: argparse.Namespace) -> int:
    names = available_balancers()
    _emit(args, {"command": "balancers", "balancers": names}, names)
    return 0


def run_completion(args: argparse.Namespace) -> int:
    text = script(build_parser(), args.shell)
    if args.json:
        _emit(args, {"command": "completion", "shell": args.shell, "script": text}, [])
    else:
        sys.stdout.write(text)
    return 0


def _add_options(parser: argparse.ArgumentParser, options: Sequence[Option]) -> None:
    for option in options:
        parser.add_argument(f"--{option.name.replace('_', '-')}", dest=option.name,
                            choices=option.choices or None, type=option.kind,
                            default=option.default,
                            metavar=None if option.choices else option.kind.__name__.upper(),
                            help=f"{option.help} (default {option.default})")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        unknown = message.partition("unrecognized arguments: ")[2]
        if unknown:
            message = (f"unknown arguments {messages.text(unknown)}; expected the arguments "
                       "of the command (frontier COMMAND --help lists them)")
        print(f"frontier: error: {message}", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)


def _output_flags(parser: argparse.ArgumentParser, top: bool = False) -> None:
    """``--json``, ``--debug`` and ``--progress``, accepted before or after the command (a
    subcommand's copy does not reset what the top level set)."""
    default: Any = False if top else argparse.SUPPRESS
    parser.add_argument("--json", action="store_true", default=default,
                        help="print one JSON document on stdout instead of text")
    parser.add_argument("--debug", action="store_true", default=default,
                        help="show the traceback of an error")
    parser.add_argument("--progress", action="store_true", default=default,
                        help="show progress of long work even when stderr is not a terminal")


def _common(entry: Entry) -> argparse.ArgumentParser:
    """The arguments every algorithm's commands share: its target, its balancer if it takes
    one, and the output flags."""
    common = _Parser(add_help=False)
    if entry.balanced:
        balancer = common.add_argument(
            "--balancer", default=None,
            help=f"load balancer: auto or one of {', '.join(available_balancers())} "
                 f"(default: the algorithm's, {DEFAULT_BALANCER})")
        balancer.completions = available_balancers(include_auto=True)  # type: ignore[attr-defined]
    if entry.targeted:
        _target(common)
    _output_flags(common)
    return common


def _target(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", choices=list(TARGET_NAMES), default=None,
                        help="default: auto (on a GPU, the cpu target for tiny and long thin "
                        "graphs, the GPU otherwise; docs/adaptive.md)")


def _auto(name: str | None) -> bool:
    """Whether the target was left to ``auto``."""
    return name in (None, "auto")


def _catalogued(entry: Entry) -> bool:
    """Whether the entry is the catalog's (else a user's algorithm)."""
    return CATALOG.get(entry.name) is entry


def _shown_balancer(entry: Entry, balancer: dict[str, str]) -> str | None:
    """The balancer a run used, as summaries show it: the one given, else the default (the
    catalog's is :data:`DEFAULT_BALANCER`; a user's function has its own); None for an entry
    that takes none."""
    if not entry.balanced:
        return None
    return balancer.get("balancer", DEFAULT_BALANCER if _catalogued(entry)
                        else "the function's default")


def _target_of(entry: Entry, args: argparse.Namespace) -> Target | None:
    """The target ``--target`` names (checked before any work), None for an entry that takes
    no target (a user's function without one: what it runs on is its own choice)."""
    return resolve_target(args.target) if entry.targeted else None


def _ran_on(result: Any, resolved: Target | None) -> Target | None:
    """The target that ran a result: the result's own ``target`` (what ``auto`` picked), else
    the one resolved from ``--target`` alone (None where the entry takes no target)."""
    ran = getattr(result, "target", None)
    return ran if isinstance(ran, Target) else resolved


def _shown_target(target: Target | None, name: str | None) -> str:
    if target is None:
        return "- (the function takes no target)"
    return (f"{target.name}{' (simulator)' if target.simulated else ''}"
            f"{' (auto)' if _auto(name) else ''}")


def _graph_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("graph", help="a graph file (.mtx, .gr, SNAP edge list; .gz too) or a "
                        "generator spec: " + ", ".join(f.usage for f in
                                                       generators.SPECS.values()))


def _algorithm_parser(commands: Any, name: str, entry: Entry) -> argparse.ArgumentParser:
    """The parser of ``run ALGO`` and ``explain ALGO``: the common arguments, the graph, the
    source where the entry takes one, and the entry's options."""
    algo = commands.add_parser(name, parents=[_common(entry)], help=entry.description,
                               description=entry.description)
    _graph_argument(algo)
    if entry.source:
        algo.add_argument("--source", type=int, default=0, help="source vertex (default 0)")
    _add_options(algo, entry.options)
    algo.set_defaults(entry=entry)
    return algo


def _algorithms(chosen: Entry | None) -> dict[str, Entry | str]:
    """The ``ALGO`` choices of ``run`` and ``explain``: the catalog, the algorithm the command
    line names where it is not the catalog's (``chosen``, resolved before parsing), and the
    other installed algorithms by name, as the text of their entry points (not loaded: listed,
    never parsed; the command line naming one loads it first)."""
    found: dict[str, Entry | str] = dict(CATALOG)
    found.update({name: ", ".join(p.value for p in points)
                  for name, points in algorithm_spec.installed().items() if name not in found})
    if chosen is not None:
        found[chosen.name] = chosen
    return found


def build_parser(chosen: Entry | None = None) -> argparse.ArgumentParser:
    """The command line's parser; ``chosen``: the entry of the ``ALGO`` argument of ``run``
    or ``explain`` where it is not the catalog's (:func:`_named_algorithm`)."""
    parser = _Parser(prog="frontier", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"frontier {__version__}")
    _output_flags(parser, top=True)
    sub = parser.add_subparsers(dest="command", required=True)
    choices = _algorithms(chosen)

    run = sub.add_parser("run", help="run an algorithm on a graph: ALGO is a name of the "
                         "catalog, an installed algorithm or module:function, a function of "
                         "your own")
    algorithms = run.add_subparsers(dest="algorithm", required=True, metavar="ALGO")
    for name, entry in choices.items():
        if isinstance(entry, str):
            algorithms.add_parser(name, help=f"installed: {entry}")
            continue
        algo = _algorithm_parser(algorithms, name, entry)
        algo.add_argument("--runs", type=int, default=3, help="timed runs after one warm-up")
        algo.add_argument("--validate", action="store_true",
                          help=f"check the result: {entry.checks}" if entry.check is not None
                          else "refused: the function declares no reference")
        algo.add_argument("--trace", nargs="?", const="-", default=None, metavar="FILE",
                          help="per step of the last run: frontier size, edges, balancer, "
                          "representation, direction, mode, time (CSV; to FILE if given)")
        algo.set_defaults(handler=run_algorithm)

    info = sub.add_parser("info", help="describe a graph: sizes, degrees, components, diameter")
    _graph_argument(info)
    info.add_argument("--sweeps", type=int, default=4,
                      help="BFS sweeps of the diameter estimate (default 4)")
    _target(info)
    _output_flags(info)
    info.set_defaults(handler=run_info)

    demo = sub.add_parser("demo", help="BFS on a generated and a shipped road graph, validated")
    _target(demo)
    _output_flags(demo)
    demo.set_defaults(handler=run_demo)

    explain = sub.add_parser("explain", help="run an algorithm on a graph once and print the "
                             "kernels it launched")
    explained = explain.add_subparsers(dest="algorithm", required=True, metavar="ALGO")
    for name, entry in choices.items():
        if isinstance(entry, str):
            explained.add_parser(name, help=f"installed: {entry}")
        else:
            _algorithm_parser(explained, name, entry).set_defaults(handler=run_explain)

    listing = sub.add_parser("algorithms", help="list the algorithms run and explain take: the "
                             "catalog's and the installed ones")
    _output_flags(listing)
    listing.set_defaults(handler=run_algorithms)

    check = sub.add_parser(
        "check-cuda", help="compile the functors an algorithm (or module:function) runs for a "
        "CUDA architecture, without a GPU, naming each one that does not build")
    check.add_argument("algorithm", metavar="ALGO|module:function",
                       help=f"one of {', '.join(CATALOG)}, or a function of an importable "
                       "module (called with no arguments, or with GRAPH)")
    check.add_argument("graph", nargs="?", default=None, metavar="GRAPH",
                       help="the graph to run it on (default: small generated graphs, or the "
                       "algorithm's example)")
    check.add_argument("--source", type=int, default=None,
                       help="source vertex (default 0 for an algorithm that takes one)")
    check.add_argument("--arch", default=arch_name(DEFAULT_ARCH),
                       help=f"CUDA architecture (default {arch_name(DEFAULT_ARCH)})")
    _output_flags(check)
    check.set_defaults(handler=run_check_cuda)

    convert = sub.add_parser("convert", help="write a graph file or generated graph to .npz "
                             "(binary CSR, fast to load), .mtx or .txt")
    convert.add_argument("graph", metavar="IN", help="a graph file or a generator spec")
    convert.add_argument("output", metavar="OUT", help="the file to write; its ending (.npz, "
                         ".mtx, .txt) names the format")
    _output_flags(convert)
    convert.set_defaults(handler=run_convert)

    calibrate = sub.add_parser(
        "calibrate", help="measure the adaptive runtime's thresholds on this device and keep "
        "them in the per-user cache ($FRONTIER_CACHE_DIR or ~/.cache/frontier)")
    _target(calibrate)
    calibrate.add_argument("--quick", action="store_true",
                           help="tiny graphs (a smoke run; thresholds not meaningful)")
    calibrate.add_argument("--runs", type=int, default=5, help="timed steps per measurement")
    _output_flags(calibrate)
    calibrate.set_defaults(handler=run_calibrate)

    plot = sub.add_parser("plot", help="draw a trace (frontier run ... --trace): frontier "
                          "size per step, coloured by the choice (needs matplotlib)")
    plot.add_argument("trace_file", metavar="TRACE", help="a trace file or saved run output")
    plot.add_argument("--out", default=None, help="image file (default TRACE.png)")
    plot.add_argument("--title", default=None)
    _output_flags(plot)
    plot.set_defaults(handler=run_plot)

    warm = sub.add_parser("warmup", help="compile the default kernels of every algorithm for "
                          "this machine once, into the per-user cache ($FRONTIER_CACHE_DIR or "
                          "~/.cache/frontier), so that later processes load them")
    _target(warm)
    _output_flags(warm)
    warm.set_defaults(handler=run_warmup)

    cache = sub.add_parser("cache", help="describe or empty the per-user disk cache of "
                           "compiled code ($FRONTIER_CACHE_DIR or ~/.cache/frontier)")
    actions = cache.add_subparsers(dest="action", required=True, metavar="ACTION")
    cache_info = actions.add_parser("info", help="the cache directory, whether it is used (and "
                                    "why not), its entries, their size and the size limit")
    _output_flags(cache_info)
    cache_info.set_defaults(handler=run_cache_info)
    cache_clear = actions.add_parser("clear", help="delete every entry of the cache (compiled "
                                     "code; the calibration stays)")
    _output_flags(cache_clear)
    cache_clear.set_defaults(handler=run_cache_clear)

    balancers = sub.add_parser("balancers", help="list the load balancers")
    _output_flags(balancers)
    balancers.set_defaults(handler=run_balancers)

    completion = sub.add_parser("completion", help="print a shell completion script "
                                "(eval \"$(frontier completion bash)\")")
    completion.add_argument("shell", choices=SHELLS)
    _output_flags(completion)
    completion.set_defaults(handler=run_completion)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else list(argv)
    debug = "--debug" in given
    try:
        named = _named_algorithm(given)
        chosen = None if named is None or named in CATALOG else algorithm_spec.resolve(named)
        parser = build_parser(chosen)
        _refuse_unknown_leading_option(parser, given)
        args = parser.parse_args(given)
        args.progress = args.progress or sys.stderr.isatty()
        for name in ("runs", "sweeps"):
            if getattr(args, name, 1) < 1:
                raise CommandError(f"--{name} must be >= 1")
        return args.handler(args)
    except KeyboardInterrupt:
        return _interrupted()
    except UserCodeError as err:
        if _caused_by_interrupt(err):
            return _interrupted()
        _report(f"{err} (--debug shows the traceback)" if not debug else str(err), debug)
        return EXIT_WRONG_RESULT
    except FileNotFoundError as err:
        _report(f"no such file: {messages.path(err.filename) if err.filename else err}", debug)
    except (CommandError, ValueError, TypeError) as err:
        # every error class of frontier, operators and algorithms (GraphError, GraphFormatError,
        # GraphTooLargeError, SpecError, FrontierError, TargetError, BalancerError,
        # OperatorError, FunctorError, the checks of frontier.validate) is one of these
        _report(str(err).splitlines()[0] if str(err) else type(err).__name__, debug)
    except MemoryError:
        _report("out of memory: the graph or its working arrays do not fit on this machine; "
                "try a smaller graph", debug)
    except OSError as err:
        _report(f"{err.strerror or err}"
                f"{': ' + messages.path(err.filename) if err.filename else ''}", debug)
    except Exception as err:  # noqa: BLE001 - a bug: still one line unless --debug
        if _caused_by_interrupt(err):
            return _interrupted()
        first = str(err).splitlines()[0] if str(err) else ""
        _report(f"internal error: {type(err).__name__}: {first} (run again with --debug for "
                "the traceback, and report it)", debug)
        return EXIT_WRONG_RESULT
    return EXIT_BAD_INPUT


#: The commands whose first argument is an ``ALGO`` (:mod:`frontier_cli.algorithm_spec`).
ALGORITHM_COMMANDS = ("run", "explain")


def _named_algorithm(argv: Sequence[str]) -> str | None:
    """The ``ALGO`` argument of a ``run`` or ``explain`` command line, None for another
    command (or none yet): the options before the command are flags that take no value, and
    ``ALGO`` comes right after the command."""
    command_at = next((i for i, w in enumerate(argv) if not w.startswith("-")), None)
    if (command_at is None or argv[command_at] not in ALGORITHM_COMMANDS
            or command_at + 1 == len(argv) or argv[command_at + 1].startswith("-")):
        return None
    return argv[command_at + 1]


def _refuse_unknown_leading_option(parser: argparse.ArgumentParser, argv: Sequence[str]
                                   ) -> None:
    """A usage error naming the first option before the command that the top level does not
    take (``frontier --bogus``): argparse would report the missing command instead."""
    for token in argv:
        if not token.startswith("-") or token == "-":
            return
        if token.split("=")[0] not in parser._option_string_actions:
            parser.error(f"unknown option {messages.text(token)}; expected a command first "
                         "(run, info, convert, ...: frontier --help lists them), then its "
                         "options (frontier COMMAND --help)")


def _interrupted() -> int:
    print("frontier: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def _caused_by_interrupt(err: BaseException) -> bool:
    """Whether ``err`` was raised while handling a KeyboardInterrupt (a library that turns
    Ctrl-C inside its code into its own error)."""
    seen: set[int] = set()
    cause: BaseException | None = err
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def _report(message: str, debug: bool) -> None:
    if debug:
        traceback.print_exc()
    print(f"frontier: error: {message}", file=sys.stderr)
