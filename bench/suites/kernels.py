"""The generated kernels of a representative set of calls, name and source, for diffs.

Runs every catalog algorithm (list ranking on its example list) with its default options and
each of ``--balancers`` (where it takes one) on each of ``--graphs`` and each of ``--targets``,
then lists every kernel text compiled for the target meanwhile: all kernel text passes through
:meth:`frontier.target.Target.compile_source`, which registers it in :mod:`linecache` as
``<frontier-generated NAME>``. A change that must leave the generated kernels unchanged is
checked by diffing ``kernels.txt`` before and after it (the same command on both trees).

``python -m bench kernels --out DIR [--targets cpu,cuda] [--graphs tiny]
[--balancers auto,thread,warp,cta_warp_scan]`` writes ``kernels.txt`` (every kernel's source,
sorted by target and name), ``kernels.csv`` and ``kernels.md`` (target, kernel, lines, sha256)
and ``kernels_calls.csv`` (each call and whether it ran). Simulated ``cuda`` is slow: keep the
graphs tiny there.
"""

from __future__ import annotations

import argparse
import hashlib
import linecache

from bench import baselines, options, tables
from bench.graphs import build, source_of
from frontier.target import cuda_usable, resolve_target
from operators import available_balancers

_PREFIX = "<frontier-generated "


def _generated() -> dict[str, str]:
    """Kernel name -> the text last compiled under it."""
    return {key[len(_PREFIX):-1]: "".join(entry[2]) for key, entry in linecache.cache.items()
            if isinstance(key, str) and key.startswith(_PREFIX)}


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
    graphs = {name: build(name) for name in args.graphs}
    calls: list[dict] = []
    kernels: dict[tuple[str, str], str] = {}
    for target_name in targets:
        target = resolve_target(target_name)
        before = _generated()
        for algorithm in args.algorithms:
            spec = baselines.example(algorithm)
            inputs = {spec: build(spec)} if spec else graphs
            for graph_name, graph in inputs.items():
                source = source_of(graph) if baselines.takes_source(algorithm) else None
                for balancer in args.balancers if baselines.balanced(algorithm) else ["-"]:
                    error = ""
                    try:
                        baselines.run(algorithm, graph, source, balancer=balancer,
                                      target=target)
                    except Exception as err:  # noqa: BLE001 - a refused call is a row
                        error = f"{type(err).__name__}: {err}".splitlines()[0][:200]
                    calls.append({"target": target_name, "algorithm": algorithm,
                                  "graph": graph_name, "balancer": balancer, "error": error})
        for name, text in _generated().items():
            if before.get(name) != text:
                kernels[target_name, name] = text
    rows = [{"target": target, "kernel": name, "lines": text.count("\n"),
             "sha256": hashlib.sha256(text.encode()).hexdigest()[:16]}
            for (target, name), text in sorted(kernels.items())]
    tables.write(rows, args.out, "kernels")
    tables.write(calls, args.out, "kernels_calls")
    tables.replace_text(args.out / "kernels.txt", "".join(
        f"=== {target} {name}\n{text}\n" for (target, name), text in sorted(kernels.items())))
    print(f"{len(rows)} kernels from {len(calls)} calls "
          f"({sum(bool(c['error']) for c in calls)} refused) -> {args.out / 'kernels.txt'}")
    return 0
