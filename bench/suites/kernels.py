"""The generated kernels of a representative set of calls, name and source, for diffs.

Runs every catalog algorithm (list ranking on its example list) with its default options and
each of ``--balancers`` (where it takes one) on each of ``--graphs``, for each of ``--targets``
in a fresh process (so that no kernel is already compiled), then lists every kernel text that
process compiled: all kernel text passes through
:meth:`frontier.runtime.target.Target.compile_source`, which registers it in :mod:`linecache` as
``<frontier-generated NAME>``. A change that must leave the generated kernels unchanged is
checked by diffing ``kernels.txt`` before and after it (the same command on both trees).

``python -m bench kernels --out DIR [--targets cpu,cuda] [--graphs tiny]
[--balancers auto,thread,warp,cta_warp_scan]`` writes ``kernels.txt`` (every kernel's source,
sorted by target and name), ``kernels.csv`` and ``kernels.md`` (target, kernel, lines, sha256)
and ``kernels_calls.csv`` (each call and whether it ran), after each target. Simulated ``cuda``
is slow (the default graphs take tens of minutes on two cores): ``--graphs grid:6x6,rmat:5,path:10``
there.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import linecache
from pathlib import Path

from bench import baselines, fresh, options, tables
from bench.graphs import build, source_of
from frontier.runtime.cuda_support import cuda_usable
from frontier.target import resolve_target
from operators import available_balancers

_PREFIX = "<frontier-generated "


def generated() -> dict[str, str]:
    """Kernel name -> the text compiled under it in this process."""
    return {key[len(_PREFIX):-1]: "".join(entry[2]) for key, entry in linecache.cache.items()
            if isinstance(key, str) and key.startswith(_PREFIX)}


def run_calls(target_name: str, graph_names: list[str], algorithms: list[str],
              balancers: list[str]) -> list[dict]:
    """Every call of the plan on one target; a call that raises is a row with its error."""
    target = resolve_target(target_name)
    graphs = {name: build(name) for name in graph_names}
    calls = []
    for algorithm in algorithms:
        spec = baselines.example(algorithm)
        for graph_name, graph in ({spec: build(spec)} if spec else graphs).items():
            source = source_of(graph) if baselines.takes_source(algorithm) else None
            for balancer in balancers if baselines.balanced(algorithm) else ["-"]:
                error = ""
                try:
                    baselines.run(algorithm, graph, source, balancer=balancer, target=target)
                except Exception as err:  # noqa: BLE001 - a refused call is a row
                    error = f"{type(err).__name__}: {err}".splitlines()[0][:200]
                calls.append({"target": target_name, "algorithm": algorithm,
                              "graph": graph_name, "balancer": balancer, "error": error})
    return calls


#: The child process of one target: the plan as JSON in, the calls and kernels as JSON out.
_CHILD = """
import json, sys
from bench.suites.kernels import generated, run_calls
calls = run_calls(*json.loads(sys.argv[1]))
print(json.dumps({"calls": calls, "kernels": generated()}))
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    parser.add_argument("--targets", default=None,
                        help="comma-separated: cpu, cuda (default: every usable one)")
    options.add_graphs(parser, "tiny")
    options.add_names(parser, "--algorithms", ",".join(baselines.names()),
                      "catalog algorithms", baselines.names())
    known = ["auto", *available_balancers()]
    options.add_names(parser, "--balancers", "auto,thread,warp,cta_warp_scan", "balancers",
                      known)


def run(args: argparse.Namespace) -> int:
    targets = (args.targets.split(",") if args.targets
               else ["cpu"] + (["cuda"] if cuda_usable() else []))
    for name in targets:
        resolve_target(name)  # an unusable target fails here, before any call
    calls: list[dict] = []
    kernels: dict[tuple[str, str], str] = {}
    for target in targets:  # each target's kernels written once it is done
        plan = json.dumps([target, args.graphs, args.algorithms, args.balancers])
        try:
            found = fresh.run_json(_CHILD, plan)
        except RuntimeError as err:
            raise RuntimeError(f"the calls on {target}: {err}") from None
        calls += found["calls"]
        kernels.update({(target, name): text for name, text in found["kernels"].items()})
        write(kernels, calls, args.out)
    print(f"{len(kernels)} kernels from {len(calls)} calls "
          f"({sum(bool(c['error']) for c in calls)} refused) -> {args.out / 'kernels.txt'}")
    return 0


def write(kernels: dict[tuple[str, str], str], calls: list[dict], out: Path) -> None:
    """``kernels.txt`` (the sources), ``kernels.csv``/``.md`` and ``kernels_calls.csv``/``.md``."""
    rows = [{"target": target, "kernel": name, "lines": text.count("\n"),
             "sha256": hashlib.sha256(text.encode()).hexdigest()[:16]}
            for (target, name), text in sorted(kernels.items())]
    tables.write(rows, out, "kernels")
    tables.write(calls, out, "kernels_calls")
    tables.replace_text(out / "kernels.txt", "".join(
        f"=== {target} {name}\n{text}\n" for (target, name), text in sorted(kernels.items())))
