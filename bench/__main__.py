"""``python -m bench all --out results/``: the benchmark suite (see bench/suite.py)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from algorithms import CATALOG
from bench.suite import markdown, measure, standard_graphs, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("what", choices=["all"], help="run the whole suite")
    parser.add_argument("--out", type=Path, default=Path("results"))
    parser.add_argument("--target", default=None, choices=["cuda", "cpu"])
    parser.add_argument("--balancers", default="thread", help="comma-separated")
    parser.add_argument("--algorithms", help="comma-separated",
                        default=",".join(name for name, entry in CATALOG.items() if entry.suite))
    parser.add_argument("--graphs", default=None, help="comma-separated names (default: all)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="small graphs (a smoke test)")
    args = parser.parse_args(argv)

    builders = standard_graphs(args.quick)
    names = args.graphs.split(",") if args.graphs else list(builders)
    unknown = [n for n in names if n not in builders]
    if unknown:
        print(f"unknown graphs {unknown}; known: {list(builders)}", file=sys.stderr)
        return 2
    rows = []
    for name in names:
        t = time.perf_counter()
        graph = builders[name]()
        print(f"[{name}] {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs "
              f"(built in {time.perf_counter() - t:.1f} s)", flush=True)
        for algorithm in args.algorithms.split(","):
            for balancer in args.balancers.split(","):
                row = measure(name, graph, algorithm, balancer, args.target, args.runs)
                rows.append(row)
                print(f"  {algorithm:5s} {balancer:14s} {row.ms:10.3f} ms {row.mteps:9.0f} MTEPS "
                      f"{row.us_per_level:8.1f} us/level  scipy {row.scipy_ms:9.1f} ms  "
                      f"valid={row.validated}", flush=True)
        write(rows, args.out)
    print(markdown(rows))
    return 0 if all(r.validated for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
